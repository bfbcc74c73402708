#!/usr/bin/env python3
"""torchdex_variant_provider under the reference variantlib (PyPI, pinned in
scripts/tools-requirements.txt): variantlib loads the plugins by their plugin-api, in its own
subprocess, and orders the variants of PyTorch's configs by what `torchdex detect --variants
--json` reports for captured hosts.

  test_variantlib.py TORCHDEX_BINARY REPOSITORY_ROOT
"""
import json
import os
import sys
import unittest
import warnings

BINARY, ROOT = sys.argv[1], sys.argv[2]
sys.argv[1:] = []
PACKAGE_DIR = os.path.join(ROOT, "python", "torchdex_variant_provider")
sys.path.insert(0, PACKAGE_DIR)
# variantlib's plugin subprocess imports the plugin by name: the package must be on its path.
os.environ["PYTHONPATH"] = PACKAGE_DIR + os.pathsep + os.environ.get("PYTHONPATH", "")
os.environ["TORCHDEX_BIN"] = BINARY

import variantlib  # noqa: E402
from variantlib import api, protocols  # noqa: E402

import torchdex_variant_provider as tvp  # noqa: E402

HOSTS = os.path.join(ROOT, "tests", "fixtures", "hosts")


def variants_json(version):
    """PyTorch's variants (tests/fixtures/variants/) in variantlib's own schema, with torchdex's
    plugins as the providers and the `priority` namespace as a provider's static properties."""
    with open(os.path.join(ROOT, "tests", "fixtures", "variants", f"torch-{version}-variants.json")) as f:
        fixture = json.load(f)
    providers = {
        "nvidia": {"plugin-api": "torchdex_variant_provider:NvidiaPlugin",
                  "requires": ["torchdex-variant-provider"]},
        "intel": {"plugin-api": "torchdex_variant_provider:IntelPlugin",
                  "requires": ["torchdex-variant-provider"]},
        "amd": {"plugin-api": "torchdex_variant_provider:AmdPlugin",
                  "requires": ["torchdex-variant-provider"]},
    }
    if "static-properties" in fixture:
        providers["priority"] = {"static-properties": fixture["static-properties"]["priority"]}
    return {
        "$schema": variantlib.constants.VARIANT_INFO_SCHEMA_URL,
        "default-priorities": fixture["default-priorities"],
        "providers": providers,
        "variants": fixture["variants"],
    }


def ranked(host, version):
    os.environ["TORCHDEX_DETECT_ARGS"] = "--root " + os.path.join(HOSTS, host)
    tvp.detect.cache_clear()
    variantlib.plugins.loader.VARIANT_PROVIDER_CACHE_TABLE.clear()
    return [v.label for v in api.get_variants_by_priority(variants_json=variants_json(version))]


class Protocol(unittest.TestCase):
    def test_plugins_are_variantlib_plugins(self):
        for plugin in (tvp.NvidiaPlugin, tvp.IntelPlugin, tvp.AmdPlugin, tvp.plugin_for("acme")):
            self.assertIsInstance(plugin(), protocols.PluginType)

    def test_supported_configs_are_torchdex_detect(self):
        os.environ["TORCHDEX_DETECT_ARGS"] = "--root " + os.path.join(HOSTS, "linux-a100-driver550")
        tvp.detect.cache_clear()
        configs = tvp.NvidiaPlugin.get_supported_configs()
        self.assertEqual([c.name for c in configs],
                         ["cuda_version_lower_bound", "cuda_version_upper_bound", "sm_arch"])
        self.assertEqual(configs[0].values[0], "12.4")
        self.assertEqual(configs[2].values, ["80_real", "80_virtual"])
        for config in configs:
            self.assertIsInstance(config, protocols.VariantFeatureConfigType)
        self.assertEqual(tvp.IntelPlugin.get_supported_configs(), [])

    def test_no_torchdex_is_nothing_supported_with_a_warning(self):
        os.environ["TORCHDEX_BIN"] = "/nonexistent/torchdex"
        tvp.detect.cache_clear()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                self.assertEqual(tvp.NvidiaPlugin.get_supported_configs(), [])
            self.assertTrue(any("did not answer" in str(w.message) for w in caught))
        finally:
            os.environ["TORCHDEX_BIN"] = BINARY
            tvp.detect.cache_clear()


    def test_bad_arguments_or_answers_are_nothing_supported_with_a_warning(self):
        # Each of these raised out of the plugin before: an unbalanced quote in the arguments,
        # a torchdex that prints JSON which is not an object, or an object of the wrong shape.
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            cases = []
            for name, body in [("list", "[1]"), ("shape", '{"version": 1, "namespaces": [1]}')]:
                fake = os.path.join(tmp, name)
                with open(fake, "w") as f:
                    f.write(f"#!/bin/sh\necho '{body}'\n")
                os.chmod(fake, 0o755)
                cases.append(({"TORCHDEX_BIN": fake}, "torchdex"))
            cases.append(({"TORCHDEX_DETECT_ARGS": "--root 'x"}, "TORCHDEX_DETECT_ARGS cannot be split"))
            for env, expected in cases:
                saved = {k: os.environ.get(k) for k in env}
                os.environ.update(env)
                tvp.detect.cache_clear()
                try:
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        self.assertEqual(tvp.NvidiaPlugin.get_supported_configs(), [])
                    self.assertTrue(any(expected in str(w.message) for w in caught), [str(w.message) for w in caught])
                finally:
                    for k, v in saved.items():
                        if v is None:
                            os.environ.pop(k, None)
                        else:
                            os.environ[k] = v
                    tvp.detect.cache_clear()


class VariantlibOrders(unittest.TestCase):
    def test_done_when_hosts(self):
        self.assertEqual(ranked("linux-a100-driver550", "2.10.0")[:3], ["cuda12.8", "cuda12.6", "null"])
        self.assertEqual(ranked("linux-a100-driver550", "2.11.0")[:3], ["cuda12.6", "cuda12.8", "null"])
        self.assertEqual(ranked("linux-rtx5090-driver580", "2.10.0")[0], "cuda13.0")
        self.assertEqual(ranked("linux-rtx5090-driver575", "2.10.0")[0], "cuda12.8")
        self.assertEqual(ranked("intel-arc-b580-xpu", "2.11.0"), ["xpu", "null"])
        self.assertEqual(ranked("linux-no-gpu", "2.11.0"), ["null"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
