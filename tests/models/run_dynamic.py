#!/usr/bin/env python3
"""run_dynamic.py - the `models` suite's dynamic-shape test: the transformer
exported with a dynamic sequence length and resnet18 with a dynamic batch
(make_models.py --dynamic), each compiled once by strata-compile and run by
strata-run at several sizes on both local devices against torch's outputs
(rtol 1e-3, atol 1e-4). --compile-arg/--run-arg select another target
(the portable one: --target=portable, --no-native-kernels). It also checks the module's reflection names the
symbolic dimension and that a call with a wrong static dimension fails with
an error naming the argument.

Prints one line per model, size and device, then `N passed, N failed`.
"""

import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Model -> (sizes run, the reflection's dims text, a wrong input's shape).
CASES = {
    "transformer": ([0, 1, 77, 128], "1,S,256", "1x5x255xf32=0"),
    "resnet18": ([1, 3], "N,3,224,224", "1x3x224x225xf32=0"),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strata-compile", required=True)
    parser.add_argument("--strata-run", required=True)
    parser.add_argument("--strata-dump", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--devices", default="local-sync,local-task")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--compile-arg", action="append", default=[],
                        help="extra strata-compile argument (repeatable)")
    parser.add_argument("--run-arg", action="append", default=[],
                        help="extra strata-run argument (repeatable)")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    passed = failed = 0

    def report(ok, line):
        nonlocal passed, failed
        print(("ok    " if ok else "FAIL  ") + line)
        if ok:
            passed += 1
        else:
            failed += 1

    for name, (sizes, dims, wrong) in CASES.items():
        stem = os.path.join(args.work, name + "_dyn")
        if not all(os.path.exists("%s.%d.expected.npy" % (stem, s))
                   for s in sizes):
            make = subprocess.run(
                [sys.executable, os.path.join(HERE, "make_models.py"),
                 "--out", args.work, "--models", name,
                 "--dynamic", ",".join(map(str, sizes))],
                capture_output=True, text=True, timeout=args.timeout)
            if make.returncode != 0:
                report(False, "%s: export failed\n%s" % (name, make.stderr))
                continue
        vmfb = stem + ".vmfb"
        build = subprocess.run([args.strata_compile, stem + ".onnx", "-o", vmfb]
                               + args.compile_arg,
                               capture_output=True, text=True,
                               timeout=args.timeout)
        if build.returncode != 0:
            report(False, "%s: compile failed\n%s" % (name, build.stderr))
            continue
        dump = subprocess.run([args.strata_dump, vmfb], capture_output=True,
                              text=True, timeout=args.timeout)
        report("arg0.dims = %s" % dims in dump.stdout,
               "%s: reflection arg0.dims = %s" % (name, dims))
        bad = subprocess.run([args.strata_run, "--module=" + vmfb,
                              "--input=" + wrong] + args.run_arg,
                             capture_output=True,
                             text=True, timeout=args.timeout)
        report(bad.returncode != 0 and "argument 0" in bad.stderr,
               "%s: %s refused (%s)" % (name, wrong,
                                        bad.stderr.strip().splitlines()[0]
                                        if bad.stderr.strip() else "no error"))
        for size in sizes:
            expected = np.load("%s.%d.expected.npy" % (stem, size))
            for device in args.devices.split(","):
                out = os.path.join(args.work, "%s_dyn.%d.%s.npy" %
                                   (name, size, device))
                if os.path.exists(out):
                    os.remove(out)
                run = subprocess.run(
                    [args.strata_run, "--module=" + vmfb,
                     "--device=" + device,
                     "--input=@%s.%d.input.npy" % (stem, size),
                     "--output=@" + out] + args.run_arg,
                    capture_output=True, text=True, timeout=args.timeout)
                line = "%s size %d %s" % (name, size, device)
                if run.returncode != 0:
                    report(False, line + ": " + run.stderr.strip())
                    continue
                got = np.load(out)
                ok = got.shape == expected.shape and np.allclose(
                    got, expected, rtol=1e-3, atol=1e-4)
                err = (float(np.abs(got - expected).max())
                       if got.shape == expected.shape and got.size else 0.0)
                report(ok, "%s: shape %s, max abs error %.3g" %
                       (line, got.shape, err))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
