#!/usr/bin/env python3
"""run.py - bench/elementwise: Strata's compiled kernels for a fused
a * b + c over 16M f32 and a row-wise softmax of 4096 x 1024 f32, beside
numpy doing the same (each numpy op timed separately, summed), in
interleaved rounds. Prints GB/s (the bytes the work must move at least:
fma reads 3 and writes 1 array, softmax reads and writes 1) and the ratio
strata / numpy, for 1 and 2 local-task workers (numpy uses one thread).

  bench/elementwise/run.py [--build=DIR] [--rounds=N] [--repetitions=N]
"""
import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "common"))
import kernel_bench  # noqa: E402

CASES = [
    # name, function, inputs, bytes moved
    ("fma 16M f32", "fma",
     ["16777216xf32=1.5", "16777216xf32=2", "16777216xf32=0.25"],
     4 * 16777216 * 4),
    ("softmax 4096x1024", "softmax", ["4096x1024xf32=0.5"],
     2 * 4096 * 1024 * 4),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repetitions", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        module = os.path.join(tmp, "elementwise.vmfb")
        kernel_bench.compile_program(
            args.build, os.path.join(HERE, "elementwise.mlir"), module)
        rows = []
        for name, function, inputs, moved in CASES:
            def strata(workers):
                return lambda: kernel_bench.strata_median_ms(
                    args.build, module, function, inputs, workers,
                    args.repetitions)
            numpy = lambda: kernel_bench.peer_median_ms(
                os.path.join(HERE, "peer_numpy.py"),
                [function, args.repetitions])
            one, two, peer = kernel_bench.interleave(
                args.rounds, [strata(1), strata(2), numpy])
            rows.append((name, moved, one, two, peer))
    print("bench/elementwise: %d interleaved rounds, medians; load average %s"
          % (args.rounds, kernel_bench.load_average()))
    print("%-20s %10s %10s %10s %12s %12s" %
          ("case", "strata 1w", "strata 2w", "numpy", "1w / numpy",
           "2w / numpy"))
    for name, moved, one, two, peer in rows:
        gbs = lambda ms: moved / (ms * 1e-3) / 1e9
        print("%-20s %7.1f GB/s %5.1f GB/s %5.1f GB/s %11.2fx %11.2fx" %
              (name, gbs(one), gbs(two), gbs(peer), peer / one, peer / two))
    print("target: strata >= 1.0 x numpy")


main()
