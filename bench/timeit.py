#!/usr/bin/env python3
"""Times whole processes: runs COMMAND N times (after one warm-up) and prints one JSON line with
the median and minimum wall time in milliseconds, and the peak RSS in MB of one more run under
GNU time (wait4's figure after posix_spawn counts the parent's memory, so it is not used).

    bench/timeit.py [--runs N] [--cwd DIR] -- COMMAND ARGS...
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def run_once(argv, cwd):
    start = time.perf_counter()
    code = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return (time.perf_counter() - start) * 1000, code


def peak_rss_mb(argv, cwd):
    out = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], cwd=cwd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True).stderr.strip().splitlines()
    try:
        return round(int(out[-1]) / 1024, 1)
    except (IndexError, ValueError):
        return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--cwd")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    argv = args.command[1:] if args.command and args.command[0] == "--" else args.command
    if not argv:
        sys.exit("usage: timeit.py [--runs N] -- COMMAND ...")
    run_once(argv, args.cwd)  # warm-up: page cache, dynamic loader
    walls, codes = [], set()
    for _ in range(args.runs):
        wall, code = run_once(argv, args.cwd)
        walls.append(wall)
        codes.add(code)
    print(json.dumps({"median_ms": round(statistics.median(walls), 3), "min_ms": round(min(walls), 3),
                      "peak_rss_mb": peak_rss_mb(argv, args.cwd), "runs": args.runs,
                      "exit_codes": sorted(codes)}))


if __name__ == "__main__":
    main()
