#!/usr/bin/env python3
"""run_models.py - the `models` suite: real models exported from PyTorch
(make_models.py) compiled by strata-compile and run by strata-run on both
local devices, each output compared with torch's (rtol 1e-3, atol 1e-4).
For another machine (the aarch64 suite), --compile-arg gives strata-compile
its target, --run-wrapper runs strata-run under an emulator, and
--native-run also compiles each model for this host and compares the two
machines' outputs with the same tolerance.

Prints one line per model and device with the largest absolute and
relative errors, then `N passed, N failed, N skipped`.
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ["resnet18", "mobilenet_v2", "squeezenet1_1", "transformer"]


def run_native(args, name, onnx_path):
    """Compiles `name` for this host and runs it on local-task; returns
    (output, None) or (None, error)."""
    vmfb = os.path.join(args.work, name + ".native.vmfb")
    out = os.path.join(args.work, name + ".native.npy")
    compile_run = subprocess.run(
        [args.strata_compile, onnx_path, "-o", vmfb],
        capture_output=True, text=True, timeout=args.timeout)
    if compile_run.returncode != 0:
        return None, "compile: " + compile_run.stderr.strip()[-2000:]
    run = subprocess.run(
        [args.native_run, "--module=" + vmfb, "--device=local-task",
         "--input=@" + os.path.join(args.work, name + ".input.npy"),
         "--output=@" + out],
        capture_output=True, text=True, timeout=args.timeout)
    if run.returncode != 0:
        return None, "run: " + run.stderr.strip()[-2000:]
    return np.load(out), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strata-compile", required=True)
    parser.add_argument("--strata-run", required=True)
    parser.add_argument("--work", required=True,
                        help="where the models and modules are written")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--devices", default="local-sync,local-task")
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--compile-arg", action="append", default=[],
                        help="an extra strata-compile argument "
                        "(--target-triple=aarch64-linux-gnu)")
    parser.add_argument("--run-arg", action="append", default=[],
                        help="an extra strata-run argument "
                        "(--no-native-kernels)")
    parser.add_argument("--run-wrapper", action="append", default=[],
                        help="a word of the command strata-run runs under "
                        "(qemu-aarch64-static)")
    parser.add_argument("--native-run",
                        help="this host's strata-run: also compile for the "
                        "host and compare the outputs with it")
    parser.add_argument("--target-cpu", default=None,
                        help="strata-compile's --target-cpu (a list or "
                        "x86-64-multi makes a multi-ISA module)")
    parser.add_argument("--cpu-features", default="",
                        help="comma-free list separated by ';' of "
                        "STRATA_CPU_FEATURES values to run each device "
                        "under (e.g. 'avx512;avx2;baseline': each variant "
                        "of a multi-ISA module); empty: the host as it is")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    models = args.models.split(",")

    missing = [m for m in models
               if not os.path.exists(os.path.join(args.work, m + ".expected.npy"))]
    if missing:
        start = time.time()
        make = subprocess.run(
            [sys.executable, os.path.join(HERE, "make_models.py"),
             "--out", args.work, "--models", ",".join(missing)],
            capture_output=True, text=True, timeout=args.timeout)
        if make.returncode != 0:
            print(make.stdout + make.stderr)
            print("models: exporting %s failed" % ", ".join(missing))
            print("0 passed, %d failed, 0 skipped" % len(models))
            return 1
        print("exported %s with torch in %.1f s" % (", ".join(missing),
                                                     time.time() - start))

    passed = failed = 0
    for name in models:
        onnx_path = os.path.join(args.work, name + ".onnx")
        vmfb = os.path.join(args.work, name + ".vmfb")
        start = time.time()
        compile_run = subprocess.run(
            [args.strata_compile] + args.compile_arg + [onnx_path, "-o", vmfb] +
            (["--target-cpu=" + args.target_cpu] if args.target_cpu else []),
            capture_output=True, text=True, timeout=args.timeout)
        if compile_run.returncode != 0:
            print("FAIL %s: compile: %s" % (name, compile_run.stderr.strip()[-2000:]))
            failed += len(args.devices.split(",")) * max(
                1, len(args.cpu_features.split(";")) if args.cpu_features
                else 1)
            continue
        compile_seconds = time.time() - start
        expected = np.load(os.path.join(args.work, name + ".expected.npy"))
        native = None
        if args.native_run:
            native, error = run_native(args, name, onnx_path)
            if error:
                print("FAIL %s: on this host: %s" % (name, error))
                failed += len(args.devices.split(","))
                continue
        runs = [(device, features) for device in args.devices.split(",")
                for features in (args.cpu_features.split(";")
                                 if args.cpu_features else [None])]
        for device, features in runs:
            env = dict(os.environ)
            if features is not None:
                env["STRATA_CPU_FEATURES"] = features
                device_label = "%s (STRATA_CPU_FEATURES=%s)" % (device,
                                                                features)
            else:
                device_label = device
            out = os.path.join(args.work, "%s.%s.npy" % (name, device))
            start = time.time()
            run = subprocess.run(
                args.run_wrapper +
                [args.strata_run, "--module=" + vmfb, "--device=" + device,
                 "--input=@" + os.path.join(args.work, name + ".input.npy"),
                 "--output=@" + out] + args.run_arg,
                capture_output=True, text=True, timeout=args.timeout,
                env=env)
            run_seconds = time.time() - start
            if run.returncode != 0:
                print("FAIL %s on %s: run: %s" % (name, device_label,
                                                  run.stderr.strip()[-2000:]))
                failed += 1
                continue
            actual = np.load(out)
            if actual.shape != expected.shape:
                print("FAIL %s on %s: shape %s, expected %s" % (
                    name, device_label, actual.shape, expected.shape))
                failed += 1
                continue
            diff = np.abs(actual.astype(np.float64) - expected)
            max_abs = float(diff.max())
            max_rel = float((diff / np.maximum(np.abs(expected), 1e-30)).max())
            ok = np.allclose(actual, expected, rtol=args.rtol, atol=args.atol)
            versus_native = ""
            if native is not None:
                same_shape = native.shape == actual.shape
                close = same_shape and np.allclose(
                    actual, native, rtol=args.rtol, atol=args.atol)
                ok = ok and close
                versus_native = (
                    ", max abs difference from this host's %.3g" %
                    float(np.abs(actual.astype(np.float64) - native).max())
                    if same_shape else
                    ", shape %s differs from this host's %s" % (
                        actual.shape, native.shape))
            print("%s %s on %s: max abs error %.3g, max rel error %.3g%s "
                  "(compile %.1f s, run %.2f s)" % (
                      "PASS" if ok else "FAIL", name, device_label, max_abs,
                      max_rel, versus_native, compile_seconds, run_seconds))
            passed += ok
            failed += not ok
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
