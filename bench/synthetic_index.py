#!/usr/bin/env python3
"""Writes a synthetic PyTorch-style wheel index of the real one's shape into DIR/whl/.

For bench/crawl on a clone without ../shared: a root index listing backends and projects,
40 backends with about 100 projects each (torch-like pages with hundreds of labelled wheels for
the routed few, small pages for the rest), about 3,400 pages and 300,000 anchors in all.
"""
import os
import random
import sys

PYTHONS = ["cp39", "cp310", "cp311", "cp312", "cp313", "cp313t", "cp314"]
PLATFORMS = ["manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "win_amd64", "linux_x86_64"]
ROUTED = ["torch", "torchvision", "torchaudio", "torchao", "torchrec", "fbgemm-gpu"]


def page(title, anchors):
    lines = ["<!DOCTYPE html>", "<html>", "  <body>", f"    <h1>Links for {title}</h1>"]
    lines += [f'    <a href="{href}">{text}</a><br/>' for href, text in anchors]
    lines += ["  </body>", "</html>", "<!--TIMESTAMP 1773550800-->"]
    return "\n".join(lines)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main(root):
    rng = random.Random(20260315)
    whl = os.path.join(root, "whl")
    backends = [f"cu{v}" for v in range(100, 131)] + [f"rocm6.{m}" for m in range(5)] + ["cpu", "xpu", "rocm7.0", "rocm7.1"]
    mirrors = [f"dep{i:03d}" for i in range(94)]
    projects = ROUTED + mirrors
    listing = [(f"{name}/", name) for name in sorted(backends + projects)]
    write(os.path.join(whl, "index.html"), page("root", listing))
    for backend in backends:
        write(os.path.join(whl, backend, "index.html"), page(backend, [(f"{p}/", p) for p in projects]))
        for project in projects:
            anchors = []
            if project in ROUTED:
                n_versions = 30 if project == "torch" else 12
                for minor in range(n_versions):
                    for py in PYTHONS:
                        for plat in PLATFORMS:
                            name = project.replace("-", "_")
                            fname = f"{name}-2.{minor}.0%2B{backend}-{py}-{py}-{plat}.whl"
                            digest = "%064x" % rng.getrandbits(256)
                            anchors.append((f"/whl/{backend}/{fname}#sha256={digest}", fname.replace("%2B", "+")))
            else:
                for minor in range(rng.randint(2, 12)):
                    fname = f"{project}-1.{minor}.0-py3-none-any.whl"
                    digest = "%064x" % rng.getrandbits(256)
                    anchors.append((f"/whl/{fname}#sha256={digest}", fname))
            write(os.path.join(whl, backend, project, "index.html"), page(project, anchors))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: synthetic_index.py DIR")
    main(sys.argv[1])
