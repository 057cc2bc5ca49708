#!/usr/bin/env python3
"""run.py - bench/conv: Strata's compiled 3x3 conv2d (NHWC, stride 1) at
1x56x56x64 -> 64 and 1x28x28x128 -> 128 beside the peer, im2col in numpy
plus one OpenBLAS sgemm, in interleaved rounds, with 1 and 2 threads on
each side (local-task workers / OpenBLAS threads). Prints GFLOP/s and the
ratio strata / peer.

  bench/conv/run.py [--build=DIR] [--rounds=N] [--repetitions=N]
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
    # name, function, output H, W, channels C, filters F
    ("1x56x56x64 -> 64", "conv56", 56, 56, 64, 64),
    ("1x28x28x128 -> 128", "conv28", 28, 28, 128, 128),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repetitions", type=int, default=5)
    args = parser.parse_args()
    # The peer's OpenBLAS picks its kernel for this CPU (see
    # ../shared/bench/peers/gemm_openblas.py), or the best the host allows
    # where it does not know the CPU (kernel_bench.openblas_core).
    core = kernel_bench.openblas_core()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        module = os.path.join(tmp, "conv.vmfb")
        kernel_bench.compile_program(args.build,
                                     os.path.join(HERE, "conv.mlir"), module)
        for name, function, h, w, c, f in CASES:
            inputs = ["1x%dx%dx%dxf32=0.5" % (h + 2, w + 2, c),
                      "3x3x%dx%dxf32=0.25" % (c, f)]

            def strata(workers):
                return lambda: kernel_bench.strata_median_ms(
                    args.build, module, function, inputs, workers,
                    args.repetitions)

            def peer(threads):
                return lambda: kernel_bench.peer_median_ms(
                    os.path.join(HERE, "peer_im2col.py"),
                    [h, w, c, f, threads, args.repetitions])

            medians = kernel_bench.interleave(
                args.rounds, [strata(1), peer(1), strata(2), peer(2)])
            flop = 2.0 * h * w * f * 3 * 3 * c
            rows.append((name, flop, medians))
    print("bench/conv: %d interleaved rounds, medians; load average %s; "
          "OpenBLAS core %s" % (args.rounds, kernel_bench.load_average(),
                                core))
    print("%-20s %8s %11s %11s %8s" %
          ("case", "threads", "strata", "peer", "ratio"))
    for name, flop, (s1, p1, s2, p2) in rows:
        gf = lambda ms: flop / (ms * 1e-3) / 1e9
        for threads, s, p in ((1, s1, p1), (2, s2, p2)):
            print("%-20s %8d %6.1f GF/s %6.1f GF/s %7.2fx" %
                  (name, threads, gf(s), gf(p), p / s))
    print("target: strata >= 0.6 x peer (im2col + OpenBLAS sgemm)")


main()
