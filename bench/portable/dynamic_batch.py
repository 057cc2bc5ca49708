#!/usr/bin/env python3
"""dynamic_batch.py - resnet18 on the portable target compiled with a
dynamic batch against the same model compiled static, both at batch 1, in
one interleaved run: each round runs strata-benchmark (--no-native-kernels)
on the static module, then on the dynamic one (and on each --extra module,
e.g. a dynamic module an older build compiled), so all see the same machine
load. Prints the median of the rounds' medians (and the minimum) per module
and each one's ratio to the static module.

    bench/portable/dynamic_batch.py --build build [--extra before=old.vmfb]

The models come from tests/models/make_models.py (resnet18 and
resnet18 --dynamic, exported with torch into --work unless there already).
"""

import argparse
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def benchmark(args, vmfb, input_npy):
    """compare.py's strata-benchmark run, native kernels refused."""
    return compare.benchmark(args, vmfb, input_npy, ["--no-native-kernels"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work", default="/tmp/strata-portable-dynamic")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--extra", action="append", default=[],
                        help="NAME=PATH: another dynamic-batch module to run "
                        "in the same rounds (repeatable)")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    make = os.path.join(ROOT, "tests", "models", "make_models.py")
    if not os.path.exists(os.path.join(args.work, "resnet18.onnx")):
        subprocess.run([sys.executable, make, "--out", args.work,
                        "--models", "resnet18"], check=True, timeout=1800)
    if not os.path.exists(os.path.join(args.work, "resnet18_dyn.onnx")):
        subprocess.run([sys.executable, make, "--out", args.work,
                        "--models", "resnet18", "--dynamic", "1"],
                       check=True, timeout=1800)
    compiler = os.path.join(args.build, "compiler", "tools", "strata-compile",
                            "strata-compile")
    modules = {}
    for name, stem in (("static", "resnet18"), ("dynamic", "resnet18_dyn")):
        vmfb = os.path.join(args.work, stem + ".portable.vmfb")
        subprocess.run([compiler, os.path.join(args.work, stem + ".onnx"),
                        "--target=portable", "-o", vmfb],
                       check=True, timeout=1800)
        modules[name] = vmfb
    for extra in args.extra:
        name, _, path = extra.partition("=")
        modules[name] = path
    input_npy = os.path.join(args.work, "resnet18.input.npy")
    medians = {name: [] for name in modules}
    minimums = {name: [] for name in modules}
    for _ in range(args.rounds):
        for name, vmfb in modules.items():
            median, minimum = benchmark(args, vmfb, input_npy)
            medians[name].append(median)
            minimums[name].append(minimum)
    static = statistics.median(medians["static"])
    print("| module (batch 1) | median (min) ms | / static |")
    print("|---|---|---|")
    for name in modules:
        median = statistics.median(medians[name])
        print("| %s | %.2f (%.2f) | %.2fx |" % (
            name, median, min(minimums[name]), median / static))
    return 0


if __name__ == "__main__":
    sys.exit(main())
