#!/usr/bin/env python3
"""The way conda detects CUDA (conda/plugins/virtual_packages/cuda.py, described in
shared/research/detection.md section 2.2): a child Python process loads libcuda with ctypes, calls
cuInit and cuDriverGetVersion, and reads each device's compute capability (attributes 75/76);
the parent waits for its answer. Used by bench/run as the baseline for `torchdex detect`."""
import ctypes
import json
import multiprocessing
import sys


def probe(queue):
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        queue.put(None)
        return
    if cuda.cuInit(0) != 0:
        queue.put(None)
        return
    version = ctypes.c_int()
    cuda.cuDriverGetVersion(ctypes.byref(version))
    count = ctypes.c_int()
    cuda.cuDeviceGetCount(ctypes.byref(count))
    ccs = []
    for i in range(count.value):
        device, major, minor = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        cuda.cuDeviceGet(ctypes.byref(device), i)
        cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, device)
        cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, device)
        ccs.append(f"{major.value}.{minor.value}")
    queue.put({"driver": version.value, "compute_capabilities": ccs})


def main():
    context = multiprocessing.get_context("spawn")  # conda runs the probe in a fresh process
    queue = context.Queue()
    child = context.Process(target=probe, args=(queue,))
    child.start()
    child.join(10)
    answer = queue.get() if not queue.empty() else None
    json.dump({"cuda": answer}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
