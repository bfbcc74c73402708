"""core against packaging, case by case.

A seeded generator writes cases of each kind (versions, version pairs, specifier sets with
candidate versions, markers on several environments, requirements, wheel filenames, tag lists
of generated interpreters), core_oracle answers all of them in one batch, packaging answers
the same here, and every case where the two differ is printed, shrunk to a small input, with
both answers. Then the tag lists of this machine's own interpreters are compared with what
packaging.tags.sys_tags() says when run inside each of them. Exit status 1 when anything
differs.

    python differential.py --oracle build/release/tests/core_oracle --count 5000 --seed 15

Runs under the tools venv (scripts/setup.sh: torchdex_tools_venv), whose packaging is pinned
by scripts/tools-requirements.txt. Standard library and packaging only.

Where core deliberately answers another question than packaging, the expectation is written
in core's terms here, each with its reason (search for "core's terms"); docs/standards.md
lists them. Everything else must agree exactly.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import sysconfig

import packaging
from packaging import _manylinux, _musllinux, tags
from packaging.markers import Marker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

UINT64_MAX = 2**64 - 1

# ---------------------------------------------------------------------------------------------
# Generators. Each takes a random.Random and returns the JSON case core_oracle reads.
# ---------------------------------------------------------------------------------------------

PRE_SPELLINGS = {
    "a": ["a", "alpha", "A", "Alpha"],
    "b": ["b", "beta", "B", "BETA"],
    "rc": ["rc", "c", "pre", "preview", "RC", "C", "Pre"],
}
POST_SPELLINGS = ["post", "rev", "r", "POST", "Rev", "R"]
SEPARATORS = ["", "", "", ".", "-", "_"]
LOCAL_WORDS = ["cu128", "cu124", "cu118", "cpu", "rocm6.2.4", "xpu", "cxx11", "abi", "ubuntu",
               "local", "1", "2", "001", "10", "g1234abc", "CU128", "Cpu", "dirty", "0"]


def number(rng: random.Random, big: bool = True) -> int:
    r = rng.random()
    if r < 0.45:
        return rng.randint(0, 9)
    if r < 0.7:
        return rng.randint(10, 40)
    if r < 0.85:
        return rng.choice([20251231, 20260301, 20260314, 20260315, 1234, 1235])
    if r < 0.99 or not big:
        return rng.randint(0, 10**12)
    return rng.choice([UINT64_MAX, UINT64_MAX + 1, 10**25])


def spell_number(rng: random.Random, n: int) -> str:
    # Leading zeros are allowed and dropped by normalisation ("01" is 1).
    return ("0" * rng.choice([0, 0, 0, 0, 1, 2])) + str(n)


def random_version(rng: random.Random, big: bool = True) -> dict:
    """A version as parts: epoch, release, pre, post, dev, local."""
    v = {"epoch": 0, "release": [], "pre": None, "post": None, "dev": None, "local": None}
    if rng.random() < 0.1:
        v["epoch"] = rng.choice([1, 2, number(rng, big)])
    v["release"] = [number(rng, big) for _ in range(rng.choice([1, 2, 2, 3, 3, 3, 4, 5]))]
    if rng.random() < 0.3:
        v["pre"] = (rng.choice(["a", "b", "rc"]), rng.choice([0, 1, 2, 3, number(rng, big)]))
    if rng.random() < 0.2:
        v["post"] = rng.choice([0, 1, 2, number(rng, big)])
    if rng.random() < 0.25:
        v["dev"] = rng.choice([0, 1, 20260301, 20260314, number(rng, big)])
    if rng.random() < 0.3:
        v["local"] = [rng.choice(LOCAL_WORDS) for _ in range(rng.choice([1, 1, 2, 3]))]
    return v


def pytorch_version(rng: random.Random) -> dict:
    """The shapes of PyTorch's own versions: 2.8.0+cu128, 2.12.0.dev20260314+cu128, ..."""
    minor = rng.randint(0, 13)
    v = {"epoch": 0, "release": [2, minor, rng.randint(0, 3)], "pre": None, "post": None,
         "dev": None, "local": None}
    shape = rng.random()
    if shape < 0.35:
        v["dev"] = rng.choice([20260301, 20260314, 20251231])
    elif shape < 0.45:
        v["pre"] = ("rc", rng.randint(1, 4))
    elif shape < 0.5:
        v["post"] = rng.randint(0, 2)
    if rng.random() < 0.7:
        v["local"] = [rng.choice(["cu128", "cu126", "cu118", "cpu", "rocm6.3", "xpu"])]
        if rng.random() < 0.1:
            v["local"] += ["cxx11", "abi"]
    return v


def spell(rng: random.Random, v: dict, odd: float = 0.3) -> str:
    """One of the many spellings PEP 440 normalises to the same version."""
    def sep() -> str:
        return rng.choice(SEPARATORS) if rng.random() < odd else ""

    out = ""
    if rng.random() < odd * 0.2:
        out += rng.choice(["v", "V"])
    if v["epoch"] or rng.random() < odd * 0.1:
        out += spell_number(rng, v["epoch"]) + "!"
    out += ".".join(spell_number(rng, n) if rng.random() < odd else str(n) for n in v["release"])
    if v["pre"]:
        kind, n = v["pre"]
        label = rng.choice(PRE_SPELLINGS[kind]) if rng.random() < odd else kind
        implicit = n == 0 and rng.random() < odd * 0.5
        out += sep() + label + ("" if implicit else sep() + str(n))
    if v["post"] is not None:
        if rng.random() < odd * 0.3 and not v["pre"] or rng.random() < odd * 0.1:
            out += "-" + str(v["post"])  # the implicit post release: 1.0-1
        else:
            label = rng.choice(POST_SPELLINGS) if rng.random() < odd else "post"
            implicit = v["post"] == 0 and rng.random() < odd * 0.5
            out += (rng.choice(SEPARATORS) if rng.random() < odd else ".") + label
            out += "" if implicit else sep() + str(v["post"])
    if v["dev"] is not None:
        implicit = v["dev"] == 0 and rng.random() < odd * 0.5
        label = "DEV" if rng.random() < odd * 0.2 else "dev"
        out += (rng.choice(SEPARATORS) if rng.random() < odd else ".") + label
        out += "" if implicit else sep() + str(v["dev"])
    if v["local"]:
        out += "+" + v["local"][0]
        for segment in v["local"][1:]:
            out += (rng.choice([".", "-", "_"]) if rng.random() < odd else ".") + segment
    if rng.random() < odd * 0.1:
        out = rng.choice([" ", "\t", "  ", "\n"]) + out + rng.choice(["", " ", "\r\n"])
    return out


GARBAGE = list("0123456789.-_+!*vVabcdeprstlo ") + ["..", "++", "!!", "+-", "-.", "é", "１", "\x00"]


def mutate(rng: random.Random, text: str) -> str:
    """A small edit that usually breaks the grammar: insert, delete, replace, cut."""
    for _ in range(rng.choice([1, 1, 2, 3])):
        op = rng.random()
        i = rng.randint(0, len(text))
        if op < 0.4:
            text = text[:i] + rng.choice(GARBAGE) + text[i:]
        elif op < 0.7 and text:
            i = min(i, len(text) - 1)
            text = text[:i] + text[i + 1:]
        elif op < 0.9 and text:
            i = min(i, len(text) - 1)
            text = text[:i] + rng.choice(GARBAGE) + text[i + 1:]
        else:
            text = text[:i]
    return text


def version_text(rng: random.Random, big: bool = True) -> str:
    v = pytorch_version(rng) if rng.random() < 0.2 else random_version(rng, big)
    return spell(rng, v)


def gen_version(rng: random.Random) -> dict:
    text = version_text(rng)
    if rng.random() < 0.3:
        text = mutate(rng, text)
    return {"kind": "version", "text": text}


def neighbour(rng: random.Random, v: dict) -> dict:
    """A version near v: its pre, post, dev and local variants, trailing zeros, the next one."""
    w = json.loads(json.dumps(v))
    for _ in range(rng.choice([1, 1, 2, 3])):
        change = rng.random()
        if change < 0.15:
            w["local"] = None if w["local"] else [rng.choice(LOCAL_WORDS)]
        elif change < 0.3:
            w["post"] = None if w["post"] is not None else rng.choice([0, 1, 2])
        elif change < 0.45:
            w["dev"] = None if w["dev"] is not None else rng.choice([0, 1, 2, 20260314])
        elif change < 0.6:
            w["pre"] = None if w["pre"] else (rng.choice(["a", "b", "rc"]), rng.randint(0, 3))
        elif change < 0.7:
            w["release"] = w["release"] + [0] * rng.randint(1, 2)
        elif change < 0.8 and len(w["release"]) > 1 and w["release"][-1] == 0:
            w["release"] = w["release"][:-1]
        elif change < 0.9:
            i = rng.randrange(len(w["release"]))
            w["release"][i] = max(0, w["release"][i] + rng.choice([-1, 1]))
        else:
            for part in ("pre", "post", "dev"):
                if w[part] is not None and part != "pre":
                    w[part] = max(0, w[part] + rng.choice([-1, 1]))
            if w["pre"]:
                w["pre"] = (w["pre"][0], max(0, w["pre"][1] + rng.choice([-1, 1])))
    return w


def gen_order(rng: random.Random) -> dict:
    a = pytorch_version(rng) if rng.random() < 0.2 else random_version(rng, big=False)
    b = neighbour(rng, a) if rng.random() < 0.7 else random_version(rng, big=False)
    return {"kind": "order", "a": spell(rng, a), "b": spell(rng, b)}


SPEC_OPS = ["==", "!=", "<=", ">=", "<", ">", "~=", "==="]


def one_specifier(rng: random.Random, v: dict) -> str:
    op = rng.choice(SPEC_OPS + [">", "<", ">=", "=="])
    w = json.loads(json.dumps(v))
    if op not in ("==", "!=") and rng.random() < 0.9:
        w["local"] = None
    if op == "~=" and len(w["release"]) < 2 and rng.random() < 0.9:
        w["release"] = w["release"] + [rng.randint(0, 3)]
    if op in ("==", "!=") and rng.random() < 0.25:
        # A prefix match: epoch and release only.
        w = {"epoch": w["epoch"], "release": w["release"][: rng.randint(1, len(w["release"]))],
             "pre": None, "post": None, "dev": None, "local": None}
        text = spell(rng, w, odd=0.1) + ".*"
    else:
        text = spell(rng, w, odd=0.15).strip()
    gap = rng.choice(["", "", "", " ", "  "])
    return rng.choice(["", "", " "]) + op + gap + text + rng.choice(["", "", " "])


def gen_specifier(rng: random.Random) -> dict:
    base = pytorch_version(rng) if rng.random() < 0.3 else random_version(rng, big=False)
    specs = [one_specifier(rng, base if rng.random() < 0.7 else neighbour(rng, base))
             for _ in range(rng.choice([0, 1, 1, 1, 2, 2, 3]))]
    spec = ",".join(specs)
    if rng.random() < 0.1:
        spec = mutate(rng, spec)
    candidates = []
    for _ in range(rng.randint(1, 8)):
        near = neighbour(rng, base) if rng.random() < 0.8 else random_version(rng, big=False)
        candidates.append(spell(rng, near, odd=0.1).strip())
    return {"kind": "specifier", "spec": spec, "versions": candidates}


# Environments as a resolver would describe its targets, from `python -c` on each.
def _linux(python: str, machine: str = "x86_64") -> dict:
    return {
        "implementation_name": "cpython", "implementation_version": python,
        "os_name": "posix", "platform_machine": machine,
        "platform_python_implementation": "CPython", "platform_release": "6.8.0-45-generic",
        "platform_system": "Linux", "platform_version": "#45-Ubuntu SMP PREEMPT_DYNAMIC",
        "python_full_version": python, "python_version": ".".join(python.split(".")[:2]),
        "sys_platform": "linux",
    }


ENVIRONMENTS = [
    _linux("3.10.14"), _linux("3.11.9"), _linux("3.12.3"), _linux("3.13.1"),
    _linux("3.12.3", "aarch64"),
    {**_linux("3.12.3"), "platform_release": "", "platform_version": ""},  # torchdex's plan
    {"implementation_name": "cpython", "implementation_version": "3.12.3", "os_name": "nt",
     "platform_machine": "AMD64", "platform_python_implementation": "CPython",
     "platform_release": "11", "platform_system": "Windows", "platform_version": "10.0.22631",
     "python_full_version": "3.12.3", "python_version": "3.12", "sys_platform": "win32"},
    {"implementation_name": "cpython", "implementation_version": "3.13.0", "os_name": "posix",
     "platform_machine": "arm64", "platform_python_implementation": "CPython",
     "platform_release": "23.4.0", "platform_system": "Darwin",
     "platform_version": "Darwin Kernel Version 23.4.0: Fri Mar 15 00:10:42 PDT 2024",
     "python_full_version": "3.13.0", "python_version": "3.13", "sys_platform": "darwin"},
    {"implementation_name": "pypy", "implementation_version": "7.3.17", "os_name": "posix",
     "platform_machine": "x86_64", "platform_python_implementation": "PyPy",
     "platform_release": "6.1.0-25-amd64", "platform_system": "Linux",
     "platform_version": "#1 SMP PREEMPT_DYNAMIC Debian 6.1.106-3",
     "python_full_version": "3.10.14", "python_version": "3.10", "sys_platform": "linux"},
]
EXTRAS = ["", "cuda", "Test_Extra"]

MARKER_VALUES = {
    "python_version": ["3.10", "3.11", "3.12", "3.13", "3", "3.12.1", "2.7", "3.9", "3.*",
                       "3.12.*", "3.13a1", "4"],
    "python_full_version": ["3.12.3", "3.13.0", "3.10.14", "3.12", "3.13.0rc1", "3.12.*"],
    "implementation_version": ["3.12.3", "7.3.17", "3.13"],
    "os_name": ["posix", "nt", "java"],
    "sys_platform": ["linux", "win32", "darwin", "cygwin", "linux2", "lin"],
    "platform_release": ["6.8.0-45-generic", "6.8", "5.15", "23.4.0", "11", "10", ""],
    "platform_system": ["Linux", "Windows", "Darwin", "linux"],
    "platform_version": ["10.0.22631", "#45-Ubuntu SMP PREEMPT_DYNAMIC", "1"],
    "platform_machine": ["x86_64", "aarch64", "AMD64", "arm64", "i686", "x86"],
    "platform_python_implementation": ["CPython", "PyPy", "cpython"],
    "implementation_name": ["cpython", "pypy", "graalpy"],
    "extra": ["cuda", "CUDA", "test-extra", "Test_Extra", "test.extra", ""],
}
MARKER_SPELLINGS = {  # the legacy spellings packaging still reads
    "os_name": ["os_name", "os.name"], "sys_platform": ["sys_platform", "sys.platform"],
    "platform_version": ["platform_version", "platform.version"],
    "platform_machine": ["platform_machine", "platform.machine"],
    "platform_python_implementation": ["platform_python_implementation",
                                       "platform.python_implementation",
                                       "python_implementation"],
}
MARKER_OPS = ["==", "!=", "<", "<=", ">", ">=", "~=", "===", "in", "not in"]


def quoted(rng: random.Random, value: str) -> str:
    q = rng.choice(["'", '"'])
    return q + value + q


def marker_atom(rng: random.Random) -> str:
    var = rng.choice(list(MARKER_VALUES))
    spelled = rng.choice(MARKER_SPELLINGS.get(var, [var]))
    if rng.random() < 0.02:
        spelled = rng.choice(["python_versoin", "extras", "dependency_groups", "os_nam"])
    op = rng.choice(MARKER_OPS) if rng.random() < 0.5 else rng.choice(["==", "!=", ">=", "<"])
    value = rng.choice(MARKER_VALUES[var])
    ws = lambda: rng.choice(["", " ", " ", " ", "  ", "\t"])  # noqa: E731
    if op in ("in", "not in"):
        before, after = rng.choice([" ", "  "]), rng.choice([" ", "  "])
        if op == "not in" and rng.random() < 0.1:
            op = "not  in"
    else:
        before, after = ws(), ws()
    shape = rng.random()
    if shape < 0.8:
        return spelled + before + op + after + quoted(rng, value)
    if shape < 0.95:
        return quoted(rng, value) + before + op + after + spelled
    if shape < 0.98:
        return quoted(rng, value) + before + op + after + quoted(rng, rng.choice(MARKER_VALUES[var]))
    other = rng.choice(list(MARKER_VALUES))
    return spelled + before + op + after + other


def marker_expression(rng: random.Random, depth: int = 0) -> str:
    if depth >= 3 or rng.random() < 0.45:
        return marker_atom(rng)
    parts = [marker_expression(rng, depth + 1) for _ in range(rng.choice([2, 2, 3]))]
    out = parts[0]
    for part in parts[1:]:
        out += rng.choice([" and ", " or ", "  and ", " or  "]) + part
    if depth > 0 and rng.random() < 0.7 or rng.random() < 0.1:
        out = "(" + rng.choice(["", " "]) + out + rng.choice(["", " "]) + ")"
    return out


def gen_marker(rng: random.Random) -> dict:
    text = marker_expression(rng)
    if rng.random() < 0.1:
        text = mutate(rng, text)
    return {"kind": "marker", "text": text, "environments": ENVIRONMENTS, "extras": EXTRAS}


NAMES = ["torch", "torchvision", "Torch_Vision", "zope.interface", "typing_extensions", "a",
         "A1", "nvidia-cudnn-cu12", "pytorch-triton-rocm", "foo--bar", "foo._bar"]
BAD_NAMES = ["-torch", "torch_", ".x", "x.", "tor ch", "t@rch", "ñame"]
EXTRA_NAMES = ["cuda", "CUDA", "opt-einsum", "Test_Extra", "a.b", "x", "dev"]
URLS = [
    "https://download.pytorch.org/whl/cu128/torch-2.8.0%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl",
    "https://example.com/foo-1.0.tar.gz#sha256=abc",
    "file:///tmp/torch-2.8.0-cp312-cp312-linux_x86_64.whl",
    "git+https://github.com/pytorch/vision@v0.20.0",
    "https://example.com/a;b",
]


def gen_requirement(rng: random.Random) -> dict:
    ws = lambda: rng.choice(["", "", " ", "  "])  # noqa: E731
    name = rng.choice(NAMES) if rng.random() < 0.95 else rng.choice(BAD_NAMES)
    text = ws() + name + ws()
    if rng.random() < 0.3:
        extras = [rng.choice(EXTRA_NAMES) for _ in range(rng.choice([0, 1, 1, 2, 3]))]
        text += "[" + ws() + (ws() + "," + ws()).join(extras) + ws() + "]" + ws()
    shape = rng.random()
    if shape < 0.15:
        text += "@" + rng.choice([" ", "", "  "]) + rng.choice(URLS)
    elif shape < 0.85:
        base = pytorch_version(rng) if rng.random() < 0.4 else random_version(rng, big=False)
        specs = [one_specifier(rng, neighbour(rng, base) if rng.random() < 0.3 else base).strip()
                 for _ in range(rng.choice([1, 1, 2, 3]))]
        body = (ws() + "," + ws()).join(specs)
        if rng.random() < 0.15:
            body = "(" + ws() + body + ws() + ")"
        text += body
    if rng.random() < 0.35:
        text += rng.choice([" ", "", "  "]) + ";" + ws() + marker_expression(rng, 1)
    text += ws()
    if rng.random() < 0.08:
        text = mutate(rng, text)
    return {"kind": "requirement", "text": text}


PYTHON_TAGS = ["cp312", "cp313", "py3", "py2.py3", "cp311.cp312", "pp310", "CP312", "cp3.12",
               "py3.cp312", "graalpy311", "1py"]
ABI_TAGS = ["cp312", "abi3", "none", "cp313t", "cp312d", "abi3.none", "pypy310_pp73", "NONE",
            "cp312.abi3"]
PLATFORM_TAGS = ["manylinux_2_28_x86_64", "manylinux_2_17_x86_64.manylinux2014_x86_64", "any",
                 "win_amd64", "macosx_11_0_arm64", "linux_x86_64", "musllinux_1_2_aarch64",
                 "macosx_10_9_universal2", "Win_AMD64", "manylinux2014_aarch64.manylinux_2_17_aarch64"]
WHEEL_NAMES = ["torch", "torch_vision", "nvidia_cudnn_cu12", "Foo", "foo.bar", "a", "x__y",
               "é", "_x", "foo-bar"]


def gen_wheel(rng: random.Random) -> dict:
    name = rng.choice(WHEEL_NAMES[:5]) if rng.random() < 0.85 else rng.choice(WHEEL_NAMES)
    version = version_text(rng, big=False).strip()
    parts = [name, version]
    if rng.random() < 0.2:
        parts.append(rng.choice(["1", "2", "0", "12b", "1_linux", "b1", "", "18446744073709551616"]))
    parts += [rng.choice(PYTHON_TAGS), rng.choice(ABI_TAGS), rng.choice(PLATFORM_TAGS)]
    filename = "-".join(parts) + rng.choice([".whl"] * 12 + [".WHL", ".zip", ""])
    if rng.random() < 0.1:
        filename = mutate(rng, filename)
    return {"kind": "wheel", "filename": filename}


def gen_interpreter(rng: random.Random) -> dict:
    implementation = rng.choice(["cp"] * 8 + ["pp", "graalpy"])
    minor = rng.randint(7, 15) if implementation == "cp" else rng.randint(9, 12)
    info = {"implementation": implementation, "python_major": 3, "python_minor": minor,
            "free_threaded": implementation == "cp" and minor >= 13 and rng.random() < 0.3,
            "debug": implementation == "cp" and rng.random() < 0.1,
            "pypy_abi": f"pypy{minor}_pp73" if implementation == "pp" else ""}
    os_name = rng.choice(["linux"] * 6 + ["macos"] * 2 + ["windows"] * 2)
    info["os"] = os_name
    if os_name == "linux":
        info["arch"] = rng.choice(["x86_64"] * 4 + ["aarch64"] * 2 +
                                  ["armv8l", "armv7l", "i686", "ppc64le", "s390x", "riscv64"])
        if rng.random() < 0.85:
            info.update(libc="glibc", libc_major=2, libc_minor=rng.randint(5, 41))
        else:
            info.update(libc="musl", libc_major=1, libc_minor=rng.randint(0, 2))
    elif os_name == "macos":
        info["arch"] = rng.choice(["x86_64", "arm64"])
        if rng.random() < 0.3:
            info.update(macos_major=10, macos_minor=rng.randint(4, 16))
        else:
            info.update(macos_major=rng.randint(11, 26), macos_minor=rng.randint(0, 6))
    else:
        info["arch"] = rng.choice(["x86_64", "arm64", "x86"])
    return {"kind": "tags", "interpreter": info}


def gen_tags(rng: random.Random) -> dict:
    return gen_interpreter(rng)


# ---------------------------------------------------------------------------------------------
# packaging's answers, in the shape core_oracle prints.
# ---------------------------------------------------------------------------------------------

def failure() -> dict:
    return {"ok": False}


def expect_version(case: dict) -> dict:
    try:
        v = Version(case["text"])
    except InvalidVersion:
        return failure()
    return {
        "ok": True, "normal": str(v), "public": v.public, "base": v.base_version,
        "epoch": v.epoch, "release": list(v.release),
        "pre": list(v.pre) if v.pre else None, "post": v.post, "dev": v.dev, "local": v.local,
        "is_prerelease": v.is_prerelease, "is_postrelease": v.is_postrelease,
        "is_devrelease": v.is_devrelease,
    }


def expect_order(case: dict) -> dict:
    a, b = Version(case["a"]), Version(case["b"])
    return {"ok": True, "cmp": (a > b) - (a < b)}


def normal_specifier(spec) -> str:
    """core's terms: core prints each specifier with its version in normal form (">=1.0a1"
    for ">= 1.0-alpha1"); packaging keeps the version as written."""
    if spec.operator == "===":
        return str(spec)
    wildcard = spec.version.endswith(".*")
    version = spec.version[:-2] if wildcard else spec.version
    return spec.operator + str(Version(version)) + (".*" if wildcard else "")


def normal_specifier_set(specifiers: SpecifierSet) -> str:
    # core's terms: sorted by the normal form, repeats kept (packaging sorts what was written
    # and drops specifiers equal to one already printed).
    return ",".join(sorted(normal_specifier(s) for s in specifiers))


def expect_specifier(case: dict) -> dict:
    try:
        ss = SpecifierSet(case["spec"])
    except InvalidSpecifier:
        return failure()
    versions = [Version(v) for v in case["versions"]]
    opted_in = bool(ss.prereleases)

    def indices(prereleases):
        kept = {id(v) for v in ss.filter(versions, prereleases=prereleases)}
        return [i for i, v in enumerate(versions) if id(v) in kept]

    return {
        "ok": True,
        "normal": normal_specifier_set(ss),
        "prereleases": opted_in,
        # core's terms: Contains(kDefault) asks "may this version be chosen on its own merits",
        # pip's default before packaging 26.0: a pre-release only where the set names one.
        # packaging 26's contains(prereleases=None) lets a lone pre-release in (the "only
        # candidate" rule); core answers that through Filter, compared below.
        "contains": [[ss.contains(v, prereleases=True), ss.contains(v, prereleases=False),
                      ss.contains(v, prereleases=opted_in)] for v in versions],
        "filter": {"allow": indices(True), "deny": indices(False), "default": indices(None)},
    }


def expect_marker(case: dict) -> dict:
    try:
        marker = Marker(case["text"])
    except Exception:  # InvalidMarker, and anything else packaging raises on garbage
        return failure()
    results = []
    for env in case["environments"]:
        for extra in case["extras"]:
            try:
                results.append(marker.evaluate({**env, "extra": extra}))
            except Exception:  # UndefinedComparison, UndefinedEnvironmentName
                results.append("error")
    return {"ok": True, "normal": str(marker), "evaluate": results}


def expect_requirement(case: dict) -> dict:
    try:
        r = Requirement(case["text"])
    except InvalidRequirement:
        text = case["text"]
        if not text.isascii() and re.search(r"===\s*[^\s;)]*,[^\s;)]*\s+[^\s;]", text):
            # packaging's token for "===" runs over ',' up to whitespace; where the text is
            # not all ASCII (so its one-pass SPECIFIER_LIST does not apply), "===é, ==1"
            # then fails. core ends the operand at ',' as it ends every version.
            return {"skip": "packaging: '===' operand runs over ','"}
        return failure()
    # core's terms: extras normalised (PEP 685) and specifiers in normal form, in str() too.
    extras = sorted({canonicalize_name(e) for e in r.extras})
    specifier = normal_specifier_set(r.specifier)
    text = r.name
    if extras:
        text += "[" + ",".join(extras) + "]"
    text += specifier
    if r.url:
        text += f" @ {r.url}"
        if r.marker:
            text += " "
    if r.marker:
        text += f"; {r.marker}"
    return {"ok": True, "name": r.name, "extras": extras, "specifier": specifier,
            "url": r.url or "", "marker": str(r.marker) if r.marker else "", "str": text}


def expect_wheel(case: dict) -> dict:
    # core's terms: names and python tags are read as ASCII (packaging's \w and
    # str.isidentifier() take any Unicode letter; no index serves such a wheel).
    if not case["filename"].split("-")[0].isascii() or any(
            not p.isascii() for p in case["filename"].split("-")[-3:-2]):
        return failure()
    try:
        name, version, build, wheel_tags = parse_wheel_filename(case["filename"])
    except Exception:  # InvalidWheelFilename, and InvalidTag where 26.x lets it escape
        return failure()
    return {"ok": True, "name": name, "version": str(version),
            "build": list(build) if build else None,
            "tags": sorted(str(t) for t in wheel_tags)}


WINDOWS_PLATFORM = {"x86_64": "win-amd64", "arm64": "win-arm64", "x86": "win32"}


def packaging_sys_tags(info: dict) -> list[str]:
    """sys_tags() for a described interpreter: the facts packaging would read from sysconfig,
    the ELF header and libc are given instead (as tests/fixtures/sys-tags/generate.py does)."""
    config = {"Py_DEBUG": int(info["debug"]), "Py_GIL_DISABLED": int(info["free_threaded"]),
              "WITH_PYMALLOC": 1}
    tags._get_config_var = lambda name, warn=False: config.get(name)
    _manylinux._have_compatible_abi = lambda executable, archs: True
    _manylinux._get_manylinux_module = lambda: None
    glibc = (info["libc_major"], info["libc_minor"]) if info.get("libc") == "glibc" else (-1, -1)
    _manylinux._get_glibc_version = lambda: _manylinux._GLibCVersion(*glibc)
    musl = (_musllinux._MuslVersion(info["libc_major"], info["libc_minor"])
            if info.get("libc") == "musl" else None)
    _musllinux._get_musl_version = lambda executable: musl
    os_name, arch = info["os"], info["arch"]
    if os_name == "linux":
        sysconfig.get_platform = lambda: "linux-" + arch
        platforms = list(tags._linux_platforms(is_32bit=False))
    elif os_name == "macos":
        platforms = list(tags.mac_platforms((info["macos_major"], info["macos_minor"]), arch))
    else:
        sysconfig.get_platform = lambda: WINDOWS_PLATFORM[arch]
        platforms = list(tags._generic_platforms())
    python = (info["python_major"], info["python_minor"])
    nodot = tags._version_nodot(python)
    impl = info["implementation"]
    if impl == "cp":
        out = list(tags.cpython_tags(python, None, platforms))
        out += tags.compatible_tags(python, "cp" + nodot, platforms)
    elif impl == "pp":
        out = list(tags.generic_tags("pp" + nodot, [info["pypy_abi"]], platforms))
        out += tags.compatible_tags(python, "pp3", platforms)
    else:
        out = list(tags.generic_tags(impl + nodot, [], platforms))
        out += tags.compatible_tags(python, None, platforms)
    return [str(t) for t in out]


def tag_digest(tag_list: list[str]) -> dict:
    joined = "".join(t + "\n" for t in tag_list)
    return {"ok": True, "count": len(tag_list),
            "sha256": hashlib.sha256(joined.encode()).hexdigest()}


_SAVED = (tags._get_config_var, _manylinux._have_compatible_abi, _manylinux._get_manylinux_module,
          _manylinux._get_glibc_version, _musllinux._get_musl_version, sysconfig.get_platform)


def expect_tags(case: dict) -> dict:
    try:
        return tag_digest(packaging_sys_tags(case["interpreter"]))
    finally:
        (tags._get_config_var, _manylinux._have_compatible_abi, _manylinux._get_manylinux_module,
         _manylinux._get_glibc_version, _musllinux._get_musl_version,
         sysconfig.get_platform) = _SAVED


KINDS = {
    "version": (gen_version, expect_version),
    "order": (gen_order, expect_order),
    "specifier": (gen_specifier, expect_specifier),
    "marker": (gen_marker, expect_marker),
    "requirement": (gen_requirement, expect_requirement),
    "wheel": (gen_wheel, expect_wheel),
    "tags": (gen_tags, expect_tags),
}

# ---------------------------------------------------------------------------------------------
# Comparing.
# ---------------------------------------------------------------------------------------------


def limit_of_core(case: dict, got: dict) -> bool:
    """core keeps every number in 64 bits and says so ("number too large"); packaging takes
    any size. Such a case is a documented limit, not a disagreement."""
    return not got.get("ok") and "too large" in got.get("error", "")


def same(case: dict, got: dict, want: dict) -> bool:
    if "skip" in want:
        return True
    if got.get("ok") != want.get("ok"):
        return want.get("ok") is True and limit_of_core(case, got)
    if not want["ok"]:
        return True
    got = {k: v for k, v in got.items() if k != "error"}
    if case["kind"] == "wheel":
        got = {**got, "tags": sorted(set(got["tags"]))}
    return got == want


class Oracle:
    """core_oracle, one case a line; batch() for the many, ask() while shrinking."""

    def __init__(self, path: str):
        self.path = path
        self.process = None

    def batch(self, cases: list[dict]) -> list[dict]:
        data = "".join(json.dumps(c) + "\n" for c in cases)
        run = subprocess.run([self.path], input=data.encode(), capture_output=True, check=False)
        if run.returncode != 0:
            sys.exit(f"differential: {self.path} failed ({run.returncode}): "
                     f"{run.stderr.decode(errors='replace')}")
        answers = [json.loads(line) for line in run.stdout.decode().splitlines()]
        if len(answers) != len(cases):
            sys.exit(f"differential: {len(cases)} cases but {len(answers)} answers")
        return answers

    def ask(self, case: dict) -> dict:
        if self.process is None:
            self.process = subprocess.Popen([self.path], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, text=True)
        self.process.stdin.write(json.dumps(case) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self):
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait()


def disagrees(oracle: Oracle, case: dict) -> bool:
    expect = KINDS[case["kind"]][1]
    try:
        want = expect(case)
    except Exception:  # a shrunk input packaging cannot take at all (an invalid candidate)
        return False
    return not same(case, oracle.ask(case), want)


def shrink_text(oracle: Oracle, case: dict, key: str, budget: list[int]) -> dict:
    """Delta debugging on one string field: drop chunks, then single characters, while the
    two still disagree."""
    text = case[key]
    chunk = max(1, len(text) // 2)
    while chunk >= 1 and budget[0] > 0:
        i = 0
        progress = False
        while i < len(text) and budget[0] > 0:
            candidate = text[:i] + text[i + chunk:]
            budget[0] -= 1
            if disagrees(oracle, {**case, key: candidate}):
                text = candidate
                progress = True
            else:
                i += chunk
        if not progress:
            chunk //= 2
    return {**case, key: text}


def shrink(oracle: Oracle, case: dict) -> dict:
    budget = [1500]
    kind = case["kind"]
    if kind == "specifier":
        versions = list(case["versions"])
        for v in list(versions):
            trial = [x for x in versions if x is not v]
            if trial and disagrees(oracle, {**case, "versions": trial}):
                versions = trial
        case = {**case, "versions": versions}
        case = shrink_text(oracle, case, "spec", budget)
    elif kind == "order":
        case = shrink_text(oracle, case, "a", budget)
        case = shrink_text(oracle, case, "b", budget)
    elif kind == "marker":
        envs = case["environments"]
        for env in envs:
            for extra in case["extras"]:
                trial = {**case, "environments": [env], "extras": [extra]}
                if disagrees(oracle, trial):
                    return shrink_text(oracle, trial, "text", budget)
        case = shrink_text(oracle, case, "text", budget)
    elif kind != "tags":
        key = {"version": "text", "requirement": "text", "wheel": "filename"}[kind]
        case = shrink_text(oracle, case, key, budget)
    return case


def show_difference(oracle: Oracle, case: dict) -> str:
    want = KINDS[case["kind"]][1](case)
    if case["kind"] == "tags":
        got = oracle.ask({**case, "full": True})
        ours = got.get("tags", [])
        theirs = packaging_sys_tags(case["interpreter"])
        first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b),
                     min(len(ours), len(theirs)))
        return (f"  interpreter: {json.dumps(case['interpreter'])}\n"
                f"  core {len(ours)} tags, packaging {len(theirs)}; first difference at {first}:\n"
                f"    core:      {ours[first:first + 3]}\n"
                f"    packaging: {theirs[first:first + 3]}")
    got = oracle.ask(case)
    shown = {k: v for k, v in case.items() if k not in ("kind", "environments", "extras")}
    if case["kind"] == "marker":
        shown["environment"] = case["environments"]
        shown["extras"] = case["extras"]
    return (f"  input:     {json.dumps(shown, ensure_ascii=False)}\n"
            f"  core:      {json.dumps(got, ensure_ascii=False)}\n"
            f"  packaging: {json.dumps(want, ensure_ascii=False)}")


def run_generated(oracle: Oracle, count: int, seed: int, kinds: list[str], show: int) -> int:
    failures = 0
    for kind in kinds:
        generate, expect = KINDS[kind]
        rng = random.Random(f"{seed}:{kind}")
        cases = [generate(rng) for _ in range(count)]
        answers = oracle.batch(cases)
        bad = []
        settled: dict[str, int] = {}
        for case, got in zip(cases, answers):
            want = expect(case)
            if not same(case, got, want):
                bad.append(case)
            elif "skip" in want:
                settled[want["skip"]] = settled.get(want["skip"], 0) + 1
            elif got.get("ok") != want.get("ok"):
                reason = "core: numbers past 64 bits"
                settled[reason] = settled.get(reason, 0) + 1
        note = "".join(f"; {n} settled ({why})" for why, n in sorted(settled.items()))
        print(f"differential: {kind}: {count} cases, {len(bad)} disagree{note}")
        seen = set()
        for case in bad[:show]:
            small = shrink(oracle, case)
            key = json.dumps(small, sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            print(f"DISAGREE {kind}:\n{show_difference(oracle, small)}")
        failures += len(bad)
    return failures


# ---------------------------------------------------------------------------------------------
# This machine's interpreters: sys_tags() inside each, against core given the same facts.
# ---------------------------------------------------------------------------------------------

PROBE = r"""
import json, os, platform, sys, sysconfig
from packaging import tags, _musllinux
name = tags.interpreter_name()
info = {"implementation": name, "python_major": sys.version_info[0],
        "python_minor": sys.version_info[1],
        "free_threaded": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "debug": bool(sysconfig.get_config_var("Py_DEBUG")), "pypy_abi": ""}
if name == "pp":
    info["pypy_abi"] = next(iter(tags._generic_abi()))
system = platform.system()
if system == "Linux":
    info["os"] = "linux"
    info["arch"] = sysconfig.get_platform().split("-", 1)[1]
    musl = _musllinux._get_musl_version(sys.executable)
    if musl is not None:
        info.update(libc="musl", libc_major=musl.major, libc_minor=musl.minor)
    else:
        major, minor = os.confstr("CS_GNU_LIBC_VERSION").split()[1].split(".")[:2]
        info.update(libc="glibc", libc_major=int(major), libc_minor=int(minor))
elif system == "Darwin":
    info["os"] = "macos"
    info["arch"] = platform.machine()
    major, minor = (platform.mac_ver()[0].split(".") + ["0"])[:2]
    info.update(macos_major=int(major), macos_minor=int(minor))
else:
    info["os"] = "windows"
    info["arch"] = platform.machine()
print(json.dumps({"executable": os.path.realpath(sys.executable), "info": info,
                  "tags": [str(t) for t in tags.sys_tags()]}))
"""


def machine_interpreters() -> list[str]:
    """Every python3.N (and python3) on PATH and in pyenv's versions, once each."""
    found = []
    dirs = os.environ.get("PATH", "").split(os.pathsep) + ["/usr/bin", "/usr/local/bin"]
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    dirs += sorted(glob.glob(os.path.join(pyenv, "versions", "*", "bin")))
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "python3*"))):
            if re.fullmatch(r"python3(\.\d+t?)?", os.path.basename(path)) and os.access(path, os.X_OK):
                found.append(path)
    return list(dict.fromkeys(found))


def run_machine(oracle: Oracle) -> int:
    site = os.path.dirname(os.path.dirname(os.path.abspath(packaging.__file__)))
    env = {**os.environ, "PYTHONPATH": site, "PYTHONNOUSERSITE": "1"}
    seen = set()
    failures = 0
    for path in machine_interpreters():
        try:
            run = subprocess.run([path, "-c", PROBE], env=env, capture_output=True, text=True,
                                 timeout=60, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if run.returncode != 0:
            continue  # a pyenv shim of an inactive version, or a Python packaging cannot run on
        probe = json.loads(run.stdout)
        if probe["executable"] in seen:
            continue
        seen.add(probe["executable"])
        theirs = probe["tags"]
        got = oracle.ask({"kind": "tags", "interpreter": probe["info"], "full": True})
        ours = got.get("tags", [])
        label = f"{probe['executable']} ({json.dumps(probe['info'])})"
        if ours == theirs:
            print(f"differential: machine: {label}: {len(theirs)} tags agree")
            continue
        failures += 1
        first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b),
                     min(len(ours), len(theirs)))
        print(f"DISAGREE machine: {label}\n  core {len(ours)} tags, packaging {len(theirs)}; "
              f"first difference at {first}:\n    core:      {ours[first:first + 3]}\n"
              f"    packaging: {theirs[first:first + 3]}")
    if not seen:
        print("differential: machine: no interpreter could run packaging", file=sys.stderr)
        failures += 1
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--oracle", required=True, help="path of the core_oracle binary")
    parser.add_argument("--count", type=int, default=5000, help="cases per kind")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds")
    parser.add_argument("--show", type=int, default=10, help="disagreements shrunk and shown, per kind")
    parser.add_argument("--no-machine", action="store_true", help="skip this machine's interpreters")
    args = parser.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        parser.error(f"unknown kinds: {unknown}; known: {list(KINDS)}")
    print(f"differential: packaging {packaging.__version__}, seed {args.seed}, "
          f"{args.count} cases per kind")
    oracle = Oracle(args.oracle)
    try:
        failures = run_generated(oracle, args.count, args.seed, kinds, args.show)
        if not args.no_machine:
            failures += run_machine(oracle)
    finally:
        oracle.close()
    print(f"differential: {'FAILED, ' + str(failures) + ' disagreements' if failures else 'all agree'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
