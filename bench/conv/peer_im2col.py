"""Peer for bench/conv: im2col (numpy, a strided view copied into rows of
3 * 3 * C) then one OpenBLAS sgemm through numpy's matmul; both timed.

Usage: peer_im2col.py H W C F THREADS REPETITIONS
(H, W: the output size; the input is (H + 2) x (W + 2) x C.) Run it with
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset so OpenBLAS picks the kernel
for this CPU. Prints {"median_ms": ...} over repetitions.
"""
import json
import os
import statistics
import sys
import time

h, w, c, f, threads, repetitions = (int(a) for a in sys.argv[1:7])
os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
import numpy as np  # noqa: E402  (after the thread count is set)
from numpy.lib.stride_tricks import as_strided  # noqa: E402

rng = np.random.default_rng(0)
x = rng.random((h + 2, w + 2, c), dtype=np.float32)
weights = rng.random((3 * 3 * c, f), dtype=np.float32)
s = x.strides


def conv():
    patches = as_strided(x, shape=(h, w, 3, 3, c),
                         strides=(s[0], s[1], s[0], s[1], s[2]))
    columns = np.ascontiguousarray(patches).reshape(h * w, 3 * 3 * c)
    return columns @ weights


conv()
times = []
for _ in range(repetitions):
    start = time.perf_counter()
    conv()
    times.append((time.perf_counter() - start) * 1e3)
print(json.dumps({"median_ms": statistics.median(times)}))
