#!/usr/bin/env python3
"""Runs the `$ torchdex ...` examples of README.md and docs/*.md and checks what they print.

A documented example is a promise: each fenced block whose lines start with `$ torchdex` and
whose commands are `select` or `detect` naming their host or backend (`--root
tests/fixtures/hosts/...`, `--torch-backend`)
is run from the repository root with the built binary, in an empty environment, and its output
(stdout then stderr) must match the lines that follow the command:
  - a line `...` alone stands for any number of lines;
  - a line ending in `...` matches any line that starts with what comes before;
  - any other line must be equal.
Commands that depend on the machine running them (no --root) are not run.

  scripts/doc_examples.py --bin build/release/installer/torchdex [--update]
--update rewrites each checked block with the real output (the `...` elisions are kept where
they still match, dropped where they do not).
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```\n", re.M | re.S)


def run(binary, command, home):
    argv = shlex.split(command, comments=True)
    env = {"HOME": home, "PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    done = subprocess.run([binary] + argv[1:], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    return (done.stdout + done.stderr).splitlines()


def matches(expected, actual):
    """Whether the documented lines match the output, with the elisions above."""
    def at(i, j):
        if i == len(expected):
            return j == len(actual)
        line = expected[i]
        if line == "...":
            return any(at(i + 1, k) for k in range(j, len(actual) + 1))
        if j == len(actual):
            return False
        if line.endswith("..."):
            ok = actual[j].startswith(line[:-3])
        else:
            ok = actual[j] == line
        return ok and at(i + 1, j + 1)
    return at(0, 0)


def checked(command):
    # Only what reads and prints (select, detect); never a command that installs or writes.
    if not (command.startswith("$ torchdex select ") or command.startswith("$ torchdex detect ")):
        return False
    return "--root tests/fixtures/" in command or "--torch-backend" in command


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--update", action="store_true")
    args = parser.parse_args()
    files = [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    failures = 0
    count = 0
    with tempfile.TemporaryDirectory() as home:
        for path in files:
            text = open(path, encoding="utf-8").read()
            changed = text
            for block in FENCE.finditer(text):
                lines = block.group(1).splitlines()
                if not lines or not lines[0].startswith("$ torchdex"):
                    continue
                # Commands and the lines each one documents.
                pieces, current = [], None
                for line in lines:
                    if line.startswith("$ "):
                        current = [line, []]
                        pieces.append(current)
                    elif current is not None:
                        current[1].append(line)
                if not all(checked(command) for command, _ in pieces):
                    continue
                new_lines = []
                for command, expected in pieces:
                    count += 1
                    actual = run(args.bin, command[2:], home)
                    if not matches(expected, actual):
                        failures += 1
                        print(f"{os.path.relpath(path, ROOT)}: {command}\n  documented:")
                        print("\n".join("    " + l for l in expected))
                        print("  printed:")
                        print("\n".join("    " + l for l in actual))
                    new_lines += [command] + (expected if matches(expected, actual) else actual)
                if args.update:
                    changed = changed.replace(block.group(1), "\n".join(new_lines) + "\n", 1)
            if args.update and changed != text:
                open(path, "w", encoding="utf-8").write(changed)
    print(f"doc examples: {count} run, {failures} differ" + (" (rewritten)" if args.update and failures else ""))
    return 1 if failures and not args.update else 0


if __name__ == "__main__":
    sys.exit(main())
