#!/usr/bin/env python3
"""Builds a tiny PyTorch-style index and a PyPI-style default index for the install tests.

Usage: make_index.py OUT [--lock]

OUT/bait/torch-99.0.0-py3-none-any.whl is on no page: needs-url-torch names it by a file:// URL.

--lock (the lock and sync tests): every page gives its sha256 (a lock needs one for every
wheel), a cu128 backend is added beside cpu and cu124, and the test channel's variant index
(PEP 825, docs/variants.md): whl/test/variant/torch/ with torch 2.10.0 in every label of
tests/fixtures/variants/torch-2.10.0-variants.json (each requiring what its build would: the
CUDA ones a fake nvidia runtime, xpu a fake Intel one), 2.11.0 without PEP 658 metadata and its
variants.json linked without a hash, and a plain torchvision that requires torch 2.10.0.

Every wheel is small but valid (METADATA with Requires-Dist, WHEEL, RECORD with sha256), so a
real pip installs it. Layout, as download.pytorch.org serves it (index-format.md §2.2):
  OUT/whl/<backend>/<project>/index.html   anchors with #sha256 and data-core-metadata
  OUT/whl/<backend>/<file>.whl             the wheel ("+" literal on disk, "%2B" in hrefs)
  OUT/whl/<backend>/<file>.whl.metadata    PEP 658
  OUT/simple/<project>/index.html          the default index (PyPI-style), with bait versions
                                           of routed names (dependency confusion)
Zip entries carry a fixed date, so the wheels and their hashes are the same on every run.
"""
import base64
import hashlib
import json
import os
import sys
import urllib.parse
import zipfile

LINUX = 'platform_system == "Linux"'

# (directory, project, version, Requires-Dist lines, options)
# options: hash=False leaves the page without #sha256 (index-format.md quirk 1, nightly pages).
WHEELS = [
    ("whl/cu124", "torch", "2.5.1+cu124",
     ["filelock", "typing-extensions>=4.8.0", f"triton==3.1.0; {LINUX}",
      'opt-einsum>=3.3; extra == "opt-einsum"'], {}),
    ("whl/cu124", "torch", "2.6.0+cu124", ["filelock", f"triton==3.2.0; {LINUX}"], {}),
    ("whl/cu124", "torchvision", "0.20.1+cu124", ["torch==2.5.1"], {}),
    ("whl/cu124", "torchvision", "0.21.0+cu124", ["torch==2.6.0"], {}),
    ("whl/cu124", "triton", "3.1.0", ["filelock"], {}),
    ("whl/cu124", "triton", "3.2.0", ["filelock"], {}),
    ("whl/cu121", "torch", "2.5.1+cu121", ["filelock", f"triton==3.1.0; {LINUX}"], {}),
    ("whl/cu121", "triton", "3.1.0", ["filelock"], {}),
    ("whl/cpu", "torch", "2.5.1+cpu", ["filelock"], {}),
    ("whl/cpu", "torchvision", "0.20.1+cpu", ["torch==2.5.1"], {"hash": False}),
    ("whl/nightly/cu124", "torch", "2.6.0.dev20241112+cu124",
     ["filelock", f"pytorch-triton==3.2.0+git0d4682f0; {LINUX}"], {"hash": False}),
    ("whl/nightly/cu124", "pytorch-triton", "3.2.0+git0d4682f0", [], {"hash": False}),
    # The default index: what pip may take for everything that is not routed, and bait for
    # the routed names (higher versions than the backend has).
    ("simple", "filelock", "3.16.1", [], {}),
    ("simple", "typing-extensions", "4.12.2", [], {}),
    ("simple", "torch", "2.5.1", ["filelock"], {}),
    ("simple", "torch", "9.9.9", ["filelock"], {}),
    ("simple", "torchvision", "9.9.9", [], {}),
    ("simple", "triton", "9.9.9", [], {}),
    # Default-index packages that reach routed names only through their dependencies, as
    # lightning, torchmetrics and timm require torch (issue 13 A.1): pip or uv alone take the
    # bait torch 9.9.9 above for them.
    ("simple", "needs-torch", "1.0", ["torch>=2.0"], {}),
    ("simple", "needs-needs-torch", "1.0", ["needs-torch"], {}),
    # ... and one the cpu backend cannot serve: it has no triton.
    ("simple", "needs-triton", "1.0", ["triton"], {}),
    # A direct URL in a dependency's metadata (issue 29, item 3): pip alone installs the bait
    # torch 99.0.0 it names, directly or one level further down. {out} is OUT, absolute.
    ("simple", "needs-url-torch", "1.0", ["torch @ file://{out}/bait/torch-99.0.0-py3-none-any.whl"], {}),
    ("simple", "needs-needs-url-torch", "1.0", ["needs-url-torch"], {}),
]

# With --lock: a third backend, for a lock that is not asked for.
LOCK_WHEELS = [
    ("whl/cu128", "torch", "2.7.0+cu128", ["filelock", f"triton==3.3.0; {LINUX}"], {}),
    ("whl/cu128", "torchvision", "0.22.0+cu128", ["torch==2.7.0"], {}),
    ("whl/cu128", "triton", "3.3.0", ["filelock"], {}),
]

# With --lock: the variant index. (label, Requires-Dist) of torch 2.10.0; the labels are those of
# the variants.json fixture.
VARIANT_LABELS = [
    ("null", ["filelock"]),
    ("cuda12.6", ["filelock", f"nvidia-fake-cu12==12.6; {LINUX}"]),
    ("cuda12.8", ["filelock", f"nvidia-fake-cu12==12.8; {LINUX}"]),
    ("cuda13.0", ["filelock", f"nvidia-fake-cu13==13.0; {LINUX}"]),
    ("xpu", ["filelock", "intel-fake==2025.2"]),
    ("rocm7.0", ["filelock"]),
    ("rocm7.1", ["filelock"]),
]
VARIANT_SIMPLE = [
    ("simple", "nvidia-fake-cu12", "12.6", [], {}),
    ("simple", "nvidia-fake-cu12", "12.8", [], {}),
    ("simple", "nvidia-fake-cu13", "13.0", [], {}),
    ("simple", "intel-fake", "2025.2", [], {}),
]

# Listed on the page but unfit for any Linux interpreter: the planner must skip it.
UNFIT = [("whl/cu124", "torch", "torch-2.5.1+cu124-cp39-cp39-win_amd64.whl")]

DATE = (2024, 10, 29, 0, 0, 0)


def b64_digest(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def metadata_text(project, version, requires):
    lines = ["Metadata-Version: 2.1", f"Name: {project}", f"Version: {version}",
             "Summary: a fake for torchdex tests", "Requires-Python: >=3.8"]
    if any("extra ==" in r for r in requires):
        lines.append("Provides-Extra: opt-einsum")
    lines += [f"Requires-Dist: {r}" for r in requires]
    return "\n".join(lines) + "\n\nA fake package.\n"


def build_wheel(path, project, version, requires, variant_json=None):
    module = project.replace("-", "_")
    dist_info = f"{module}-{version}.dist-info"
    files = {
        f"{module}/__init__.py": f'__version__ = "{version}"\n'.encode(),
        f"{dist_info}/METADATA": metadata_text(project, version, requires).encode(),
        f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: torchdex-tests\n"
                              b"Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    if variant_json is not None:
        files[f"{dist_info}/variant.json"] = variant_json  # PEP 825: its own label only
    record = "".join(f"{name},sha256={b64_digest(data)},{len(data)}\n"
                     for name, data in files.items())
    record += f"{dist_info}/RECORD,,\n"
    files[f"{dist_info}/RECORD"] = record.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, DATE)
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return files[f"{dist_info}/METADATA"]


def write_variant_index(out, pages):
    directory = "whl/test/variant"
    folder = os.path.join(out, directory)
    os.makedirs(folder, exist_ok=True)
    fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "variants",
                           "torch-2.10.0-variants.json")
    with open(fixture, "rb") as f:
        variants = f.read()
    with open(os.path.join(folder, "torch-2.10.0-variants.json"), "wb") as f:
        f.write(variants)
    document = json.loads(variants)
    anchors = pages.setdefault((directory, "torch"), [])
    anchors.append(f'<a href="/{directory}/torch-2.10.0-variants.json#sha256={hashlib.sha256(variants).hexdigest()}">'
                   "torch-2.10.0-variants.json</a>")
    for version, labels, with_metadata in (("2.10.0", VARIANT_LABELS, True),
                                           ("2.11.0", [("cuda12.8", ["filelock"]), ("null", ["filelock"])], False)):
        for label, requires in labels:
            own = dict(document, variants={label: document["variants"][label]})
            filename = f"torch-{version}-py3-none-any-{label}.whl"
            wheel_path = os.path.join(folder, filename)
            metadata = build_wheel(wheel_path, "torch", version, requires,
                                   json.dumps(own, sort_keys=True).encode())
            with open(wheel_path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            attributes = ""
            if with_metadata:
                with open(wheel_path + ".metadata", "wb") as f:
                    f.write(metadata)
                meta = hashlib.sha256(metadata).hexdigest()
                attributes = f' data-dist-info-metadata="sha256={meta}" data-core-metadata="sha256={meta}"'
            anchors.append(f'<a href="/{directory}/{filename}#sha256={digest}"{attributes}>{filename}</a>')
    # 2.11.0's labels need their file too (PEP 825): the same document serves.
    with open(os.path.join(folder, "torch-2.11.0-variants.json"), "wb") as f:
        f.write(variants.replace(b"2.10.0", b"2.11.0"))
    with open(os.path.join(folder, "torch-2.11.0-variants.json"), "rb") as f:
        other = f.read()
    # Linked without a hash: read unverified (a warning), pinned as read.
    anchors.append(f'<a href="/{directory}/torch-2.11.0-variants.json">torch-2.11.0-variants.json</a>')
    # A plain wheel on the variant index that requires the variant package.
    filename = "torchvision-0.25.0-py3-none-any.whl"
    wheel_path = os.path.join(folder, filename)
    metadata = build_wheel(wheel_path, "torchvision", "0.25.0", ["torch==2.10.0"])
    with open(wheel_path + ".metadata", "wb") as f:
        f.write(metadata)
    with open(wheel_path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    meta = hashlib.sha256(metadata).hexdigest()
    pages.setdefault((directory, "torchvision"), []).append(
        f'<a href="/{directory}/{filename}#sha256={digest}" data-dist-info-metadata="sha256={meta}" '
        f'data-core-metadata="sha256={meta}">{filename}</a>')


def main():
    out = os.path.abspath(sys.argv[1])
    lock = "--lock" in sys.argv[2:]
    pages = {}  # (directory, project) -> anchors
    # The bait a direct URL names: on no index page, only at its file:// URL.
    os.makedirs(os.path.join(out, "bait"), exist_ok=True)
    build_wheel(os.path.join(out, "bait", "torch-99.0.0-py3-none-any.whl"), "torch", "99.0.0", [])
    for directory, project, version, requires, options in WHEELS + (LOCK_WHEELS + VARIANT_SIMPLE if lock else []):
        requires = [r.replace("{out}", out) for r in requires]
        if lock:
            options = dict(options, hash=True)
        folder = os.path.join(out, directory)
        os.makedirs(folder, exist_ok=True)
        filename = f"{project.replace('-', '_')}-{version}-py3-none-any.whl"
        wheel_path = os.path.join(folder, filename)
        metadata = build_wheel(wheel_path, project, version, requires)
        with open(wheel_path + ".metadata", "wb") as f:
            f.write(metadata)
        with open(wheel_path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        href = f"/{directory}/{urllib.parse.quote(filename)}"
        if options.get("hash", True):
            href += f"#sha256={digest}"
        attributes = ""
        if directory.startswith("whl"):
            meta = hashlib.sha256(metadata).hexdigest()
            attributes = f' data-dist-info-metadata="sha256={meta}" data-core-metadata="sha256={meta}"'
        else:
            attributes = ' data-requires-python="&gt;=3.8"'
        pages.setdefault((directory, project), []).append(
            f'<a href="{href}"{attributes}>{filename}</a>')
    if lock:
        write_variant_index(out, pages)
    for directory, project, filename in UNFIT:
        pages[(directory, project)].append(
            f'<a href="/{directory}/{urllib.parse.quote(filename)}#sha256={"0" * 64}">{filename}</a>')
    for (directory, project), anchors in pages.items():
        folder = os.path.join(out, directory, project)
        os.makedirs(folder, exist_ok=True)
        separator = "<br/>\n    " if directory.startswith("whl") else "<br />\n    "
        with open(os.path.join(folder, "index.html"), "w") as f:
            f.write("<!DOCTYPE html>\n<html>\n  <body>\n    <h1>Links for "
                    f"{project}</h1>\n    {separator.join(anchors)}<br/>\n  </body>\n</html>\n")
    for directory in sorted({d for d, _ in pages}):
        projects = sorted(p for d, p in pages if d == directory)
        with open(os.path.join(out, directory, "index.html"), "w") as f:
            f.write("<!DOCTYPE html>\n<html>\n  <body>\n" +
                    "".join(f'    <a href="{p}/">{p}</a><br/>\n' for p in projects) +
                    "  </body>\n</html>\n")


if __name__ == "__main__":
    main()
