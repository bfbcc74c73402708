"""PEP 817 variant provider plugins backed by torchdex's detection.

Each class is one plugin of the provider API (a `namespace` attribute, `get_supported_configs()`
and `get_all_configs()` class methods returning objects with `name`, `values` and
`multi_value`), so a Python installer that loads providers (variantlib, and tools built on it)
gets the properties `torchdex detect --variants --json` prints, in torchdex's order. Name them in
a variants.json as `plugin-api = "torchdex_variant_provider:NvidiaPlugin"` (or `IntelPlugin`,
`AmdPlugin`; `plugin_for("acme")` makes one for a namespace an external torchdex provider adds).

The torchdex binary is `$TORCHDEX_BIN`, else `torchdex` on PATH; `$TORCHDEX_DETECT_ARGS` adds
arguments (`--root DIR` for a captured host). Without torchdex, or when it fails, a plugin
reports nothing supported and warns: only the null variant fits. See docs/variants.md.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import shlex
import shutil
import subprocess
import warnings

__all__ = ["VariantFeatureConfig", "NvidiaPlugin", "IntelPlugin", "AmdPlugin", "plugin_for", "detect"]

_TIMEOUT_SECONDS = 60


@dataclasses.dataclass(frozen=True)
class VariantFeatureConfig:
    name: str
    values: list  # most preferred first
    multi_value: bool = False


@functools.lru_cache(maxsize=None)
def detect() -> dict:
    """The parsed output of `torchdex detect --variants --json`, run once per process."""
    binary = os.environ.get("TORCHDEX_BIN") or shutil.which("torchdex")
    if not binary:
        warnings.warn("torchdex_variant_provider: no torchdex on PATH (set TORCHDEX_BIN)", UserWarning)
        return {"namespaces": []}
    try:
        extra = shlex.split(os.environ.get("TORCHDEX_DETECT_ARGS", ""))
    except ValueError as e:
        warnings.warn(f"torchdex_variant_provider: TORCHDEX_DETECT_ARGS cannot be split: {e}", UserWarning)
        return {"namespaces": []}
    argv = [binary, "detect", "--variants", "--json"] + extra
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=_TIMEOUT_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        warnings.warn(f"torchdex_variant_provider: {argv[0]} did not answer: {e}", UserWarning)
        return {"namespaces": []}
    if done.returncode != 0:
        warnings.warn(f"torchdex_variant_provider: {' '.join(argv)} exited with {done.returncode}: "
                      f"{done.stderr.strip()}", UserWarning)
        return {"namespaces": []}
    try:
        doc = json.loads(done.stdout)
    except ValueError as e:
        warnings.warn(f"torchdex_variant_provider: torchdex printed no JSON: {e}", UserWarning)
        return {"namespaces": []}
    if not isinstance(doc, dict):
        warnings.warn(f"torchdex_variant_provider: torchdex printed {type(doc).__name__}, not an object", UserWarning)
        return {"namespaces": []}
    if doc.get("version") != 1:
        warnings.warn(f"torchdex_variant_provider: unknown output version {doc.get('version')!r}", UserWarning)
        return {"namespaces": []}
    for warning in doc.get("warnings", []):
        warnings.warn(f"torchdex: {warning}", UserWarning)
    return doc


def _supported(namespace: str) -> list:
    try:
        for ns in detect().get("namespaces", []):
            if ns.get("namespace") == namespace:
                return [VariantFeatureConfig(f["name"], list(f["values"]), multi_value=len(f["values"]) > 1)
                        for f in ns.get("features", [])]
    except (AttributeError, KeyError, TypeError) as e:
        warnings.warn(f"torchdex_variant_provider: torchdex's answer is not in its documented shape: {e!r}",
                      UserWarning)
    return []


def _all_nvidia() -> list:
    # The catalogue of nvidia-variant-provider2 (json/nvidia.json `all_umd`, `all_sm`): CUDA 15.20
    # down to 11, then SM 12.9 down to 5.0, real before virtual.
    umd = []
    for major in range(15, 10, -1):
        umd += [f"{major}.{minor}" for minor in range(20, -1, -1)] + [str(major)]
    sm = [f"{major}{minor}_{kind}" for kind in ("real", "virtual") for major in range(12, 4, -1)
          for minor in range(9, -1, -1)]
    return [VariantFeatureConfig("cuda_version_lower_bound", umd),
            VariantFeatureConfig("cuda_version_upper_bound", umd),
            VariantFeatureConfig("sm_arch", sm, multi_value=True)]


class _Plugin:
    namespace = ""
    all_properties_compatible = False  # what is supported depends on the machine

    @classmethod
    def get_supported_configs(cls, known_properties=None) -> list:
        return _supported(cls.namespace)

    @classmethod
    def get_all_configs(cls) -> list:
        # Valid values beyond this machine's are not known for every namespace: what it supports.
        return _supported(cls.namespace)


class NvidiaPlugin(_Plugin):
    namespace = "nvidia"

    @classmethod
    def get_all_configs(cls) -> list:
        return _all_nvidia()


class IntelPlugin(_Plugin):
    namespace = "intel"


class AmdPlugin(_Plugin):
    namespace = "amd"


def plugin_for(namespace: str) -> type:
    """A plugin class for any namespace torchdex reports (an external provider's)."""
    return type(f"Plugin_{namespace}", (_Plugin,), {"namespace": namespace})
