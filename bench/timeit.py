#!/usr/bin/env python3
"""Times whole processes: runs COMMAND N times (after one warm-up) and prints one JSON line with
the median and minimum wall time in milliseconds, and the peak RSS in MB of one more run under
GNU time (wait4's figure after posix_spawn counts the parent's memory, so it is not used).

    bench/timeit.py [--runs N] [--cwd DIR] [--vs BASELINE] -- COMMAND ARGS...

--vs BASELINE (one string, split as a shell splits words) pairs the runs: COMMAND then BASELINE,
BASELINE then COMMAND, and so on in turn (whichever runs second of a pair is quicker), and adds
the baseline's median ("vs_median_ms") and the median of the ratios of each pair ("ratio"): on a
shared machine whose speed drifts, a ratio of runs taken side by side means more than a ratio of
two medians taken apart.
"""
import argparse
import json
import os
import shlex
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
    parser.add_argument("--vs", help="a baseline command, run in turn with COMMAND")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    argv = args.command[1:] if args.command and args.command[0] == "--" else args.command
    if not argv:
        sys.exit("usage: timeit.py [--runs N] [--vs BASELINE] -- COMMAND ...")
    baseline = shlex.split(args.vs) if args.vs else None
    run_once(argv, args.cwd)  # warm-up: page cache, dynamic loader
    if baseline:
        run_once(baseline, args.cwd)
    walls, base_walls, ratios, codes = [], [], [], set()
    for i in range(args.runs):
        # The second process of a pair runs quicker (15 to 20% for a 1 ms process here: caches
        # warm from the first), so the pairs alternate which goes first.
        base_first = baseline is not None and i % 2 == 1
        if base_first:
            base_wall, _ = run_once(baseline, args.cwd)
        wall, code = run_once(argv, args.cwd)
        walls.append(wall)
        codes.add(code)
        if baseline:
            if not base_first:
                base_wall, _ = run_once(baseline, args.cwd)
            base_walls.append(base_wall)
            ratios.append(wall / base_wall)
    result = {"median_ms": round(statistics.median(walls), 3), "min_ms": round(min(walls), 3),
              "peak_rss_mb": peak_rss_mb(argv, args.cwd), "runs": args.runs,
              "exit_codes": sorted(codes)}
    if baseline:
        result["vs_median_ms"] = round(statistics.median(base_walls), 3)
        result["ratio"] = round(statistics.median(ratios), 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
