"""Peer for bench/elementwise: the same work in numpy, each numpy op timed
separately and the times summed (numpy runs them one at a time, one pass
over memory each).

Usage: peer_numpy.py fma|softmax REPETITIONS
Prints {"median_ms": ...}: the median over repetitions of the summed op
times.
"""
import json
import statistics
import sys
import time

import numpy as np

kind, repetitions = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return out, (time.perf_counter() - start) * 1e3


totals = []
if kind == "fma":
    a, b, c = (rng.random(16777216, dtype=np.float32) for _ in range(3))
    for i in range(repetitions + 1):
        m, t1 = timed(np.multiply, a, b)
        _, t2 = timed(np.add, m, c)
        if i:  # the first round warms up
            totals.append(t1 + t2)
else:
    x = rng.random((4096, 1024), dtype=np.float32)
    for i in range(repetitions + 1):
        mx, t1 = timed(np.max, x, 1, None, True)
        shifted, t2 = timed(np.subtract, x, mx)
        ex, t3 = timed(np.exp, shifted)
        sm, t4 = timed(np.sum, ex, 1, None, None, True)
        _, t5 = timed(np.divide, ex, sm)
        if i:
            totals.append(t1 + t2 + t3 + t4 + t5)
print(json.dumps({"median_ms": statistics.median(totals)}))
