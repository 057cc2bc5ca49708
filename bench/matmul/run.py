#!/usr/bin/env python3
"""run.py - Strata's compiled f32 matmul beside OpenBLAS sgemm (numpy), as one table.

    bench/matmul/run.py [--build DIR] [--sizes 256,512,1024,2048] [--threads 1,2]

Runs DIR/bench/matmul/matmul (default DIR: build-compiler, else build) and,
per size and thread count, ../shared/bench/peers/gemm_openblas.py with
/usr/bin/python3 (Debian's python3-numpy) in a clean OpenBLAS environment
(OpenBLAS's own choice of kernel, or the best the host allows where it
does not know the CPU: kernel_bench.openblas_core).
Prints GFLOP/s and the ratio Strata / OpenBLAS, then the accumulate form
(the matmul adds to an input, as a loop-carried accumulator does) beside
the fill form; it asserts nothing.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The peer program lives in shared/ beside the clone.
PEER = os.path.join(os.path.dirname(ROOT), "shared", "bench", "peers", "gemm_openblas.py")
if not os.path.exists(PEER):
    sys.exit("bench/matmul: the peer %s is missing (shared/ must sit beside "
             "the clone)" % PEER)
sys.path.insert(0, os.path.join(ROOT, "bench", "common"))
import kernel_bench  # noqa: E402


def parse(lines, prefix, others=()):
    figures = {}
    for line in lines.splitlines():
        m = re.match(prefix + r" N=(\d+) threads=(\d+) gflops=([\d.]+)", line)
        if m:
            figures[(int(m.group(1)), int(m.group(2)))] = float(m.group(3))
        elif line.strip() and not any(line.startswith(o + " ") for o in others):
            print(line, file=sys.stderr)
    return figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=None)
    parser.add_argument("--sizes", default="256,512,1024,2048")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--peer", default=PEER)
    args = parser.parse_args()
    build = args.build
    if build is None:
        for candidate in ("build-compiler", "build"):
            if os.path.exists(os.path.join(ROOT, candidate, "bench", "matmul", "matmul")):
                build = os.path.join(ROOT, candidate)
                break
    if build is None:
        sys.exit("run.py: no built bench/matmul/matmul; pass --build DIR")
    sizes = [int(s) for s in args.sizes.split(",")]
    threads = [int(t) for t in args.threads.split(",")]

    out = subprocess.run(
        [os.path.join(build, "bench", "matmul", "matmul"),
         "--sizes=" + args.sizes, "--threads=" + args.threads],
        check=True, capture_output=True, text=True).stdout
    strata = parse(out, "strata", others=("strata-acc",))
    # The same matmul adding to an input (a loop-carried accumulator).
    accumulate = parse(out, "strata-acc", others=("strata",))
    peer = {}
    env = dict(os.environ)
    core = kernel_bench.openblas_core(env)
    for n in sizes:
        for t in threads:
            env["OPENBLAS_NUM_THREADS"] = str(t)
            out = subprocess.run(["/usr/bin/python3", args.peer, str(n), str(t)],
                                 check=True, capture_output=True, text=True, env=env).stdout
            peer.update(parse(out, "openblas"))

    header = f"{'N':>5}"
    for t in threads:
        header += f" | {'strata ' + str(t) + 't':>10} {'openblas ' + str(t) + 't':>12} {'ratio':>6}"
    if 1 in threads and 2 in threads:
        header += f" | {'strata 2t/1t':>12}"
    print("f32 matmul N x N x N, GFLOP/s (median; OpenBLAS: best of 3; "
          "OpenBLAS core %s)" % core)
    print(header)
    print("-" * len(header))
    for n in sizes:
        row = f"{n:>5}"
        for t in threads:
            s = strata.get((n, t), float("nan"))
            p = peer.get((n, t), float("nan"))
            row += f" | {s:>10.1f} {p:>12.1f} {s / p:>6.2f}"
        if 1 in threads and 2 in threads:
            row += f" | {strata.get((n, 2), float('nan')) / strata.get((n, 1), float('nan')):>12.2f}"
        print(row)

    print()
    print("accumulating into an input (outs(%acc), as in a loop), GFLOP/s and "
          "the ratio to the fill form")
    header = f"{'N':>5}"
    for t in threads:
        header += f" | {'acc ' + str(t) + 't':>8} {'acc/fill':>8}"
    if 1 in threads and 2 in threads:
        header += f" | {'acc 2t/1t':>9}"
    print(header)
    print("-" * len(header))
    for n in sizes:
        row = f"{n:>5}"
        for t in threads:
            a = accumulate.get((n, t), float("nan"))
            row += f" | {a:>8.1f} {a / strata.get((n, t), float('nan')):>8.2f}"
        if 1 in threads and 2 in threads:
            row += f" | {accumulate.get((n, 2), float('nan')) / accumulate.get((n, 1), float('nan')):>9.2f}"
        print(row)


if __name__ == "__main__":
    main()
