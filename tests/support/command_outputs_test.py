#!/usr/bin/env python3
"""scripts/command-outputs, as CONTRIBUTING.md tells a contributor to use it: two captures of
the same build are the same (its timings written as N), one file per run, each with its
command, environment and exit status.

    tests/support/command_outputs_test.py BUILD_DIR
"""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def capture(build, out):
    proc = subprocess.run([sys.executable, str(ROOT / "scripts/command-outputs"), build, out],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        sys.exit("command-outputs failed: " + proc.stderr)
    match = re.search(r"(\d+) outputs under", proc.stdout)
    if not match:
        sys.exit("command-outputs said: " + proc.stdout)
    return int(match.group(1))


def main():
    build = sys.argv[1]
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        count = capture(build, a)
        capture(build, b)
        files = sorted(Path(a).rglob("*.txt"))
        if len(files) != count or count < 100:
            sys.exit(f"{count} outputs said, {len(files)} files written")
        diff = subprocess.run(["diff", "-r", a, b], capture_output=True, text=True)
        if diff.returncode != 0:
            sys.exit("two captures of one build differ:\n" + diff.stdout[:4000])
        detect = (Path(a) / "linux-a100-driver550" / "01.txt").read_text()
        for expected in ("$ torchdex detect --json --root ", "\nexit: 0\n", '"total": N'):
            if expected not in detect:
                sys.exit(f"detect --json's capture lacks {expected!r}:\n{detect[:2000]}")
    print(f"command-outputs: {count} outputs, two captures the same")


if __name__ == "__main__":
    main()
