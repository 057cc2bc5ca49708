#!/usr/bin/env python3
"""compare.py - the portable target (kernel bytecode, interpreted) against
llvm-cpu on the same models, measured in one interleaved run: each round
runs strata-benchmark on the llvm-cpu module, then on the portable module
(under --no-native-kernels), so both see the same machine load. Prints the
median of the rounds' medians (and the minimum) per target and their ratio.

    bench/portable/compare.py --build build --models resnet18,transformer

The models come from tests/models/make_models.py (exported with torch into
--work unless they are there already).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def benchmark(args, vmfb, input_npy, extra):
    command = [os.path.join(args.build, "tools", "strata-benchmark",
                            "strata-benchmark"),
               "--module=" + vmfb, "--input=@" + input_npy,
               "--warmup=%d" % args.warmup,
               "--repetitions=%d" % args.repetitions,
               "--task_workers=%d" % args.threads, "--format=json"] + extra
    result = subprocess.run(command, capture_output=True, text=True,
                            timeout=1800)
    if result.returncode != 0:
        sys.exit("strata-benchmark failed: " + result.stderr)
    data = json.loads(result.stdout)
    return data["median_ms"], data["min_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work", default="/tmp/strata-portable-bench")
    parser.add_argument("--models", default="resnet18,transformer")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1,
                        help="local-task workers for both (the portable "
                        "target runs each dispatch as one workgroup)")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    models = args.models.split(",")
    missing = [m for m in models
               if not os.path.exists(os.path.join(args.work, m + ".onnx"))]
    if missing:
        subprocess.run([sys.executable,
                        os.path.join(ROOT, "tests", "models", "make_models.py"),
                        "--out", args.work, "--models", ",".join(missing)],
                       check=True, timeout=1800)
    compiler = os.path.join(args.build, "compiler", "tools", "strata-compile",
                            "strata-compile")
    print("| model | llvm-cpu median (min) ms | portable median (min) ms "
          "| portable / llvm-cpu |")
    print("|---|---|---|---|")
    for name in models:
        onnx = os.path.join(args.work, name + ".onnx")
        modules = {}
        for target in ("llvm-cpu", "portable"):
            vmfb = os.path.join(args.work, "%s.%s.vmfb" % (name, target))
            subprocess.run([compiler, onnx, "--target=" + target, "-o", vmfb],
                           check=True, timeout=1800)
            modules[target] = vmfb
        input_npy = os.path.join(args.work, name + ".input.npy")
        medians = {"llvm-cpu": [], "portable": []}
        minimums = {"llvm-cpu": [], "portable": []}
        for _ in range(args.rounds):
            for target, extra in (("llvm-cpu", []),
                                  ("portable", ["--no-native-kernels"])):
                median, minimum = benchmark(args, modules[target], input_npy,
                                            extra)
                medians[target].append(median)
                minimums[target].append(minimum)
        native = statistics.median(medians["llvm-cpu"])
        portable = statistics.median(medians["portable"])
        print("| %s | %.2f (%.2f) | %.2f (%.2f) | %.1fx |" % (
            name, native, min(minimums["llvm-cpu"]), portable,
            min(minimums["portable"]), portable / native))
    return 0


if __name__ == "__main__":
    sys.exit(main())
