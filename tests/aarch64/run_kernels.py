#!/usr/bin/env python3
"""run_kernels.py - the f32 microkernels' edge cases on another machine
(the aarch64 suite): compiles kernels.mlir with strata-compile for the
target (--compile-arg) and for this host, runs each function on random
inputs under the emulator (--run-wrapper) and natively, and compares the
target's result with numpy's (float64) and with this host's, rtol 1e-3,
atol 1e-4 as the models suite; then checks that the target's runtime
refuses this host's module with an error naming both formats. Prints one
line per check, then "N passed, N failed, 0 skipped".
"""

import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def conv_nhwc(x, w, stride):
    """NHWC x HWCF, no padding."""
    n, h, wd, c = x.shape
    kh, kw, _, f = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, oh, ow, f))
    for ky in range(kh):
        for kx in range(kw):
            patch = x[:, ky:ky + stride * (oh - 1) + 1:stride,
                      kx:kx + stride * (ow - 1) + 1:stride, :]
            out += patch @ w[ky, kx]
    return out


def depthwise(x, w):
    kh, kw, _ = w.shape
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], oh, ow, x.shape[3]))
    for ky in range(kh):
        for kx in range(kw):
            out += x[:, ky:ky + oh, kx:kx + ow, :] * w[ky, kx]
    return out


def maxpool(x, k, stride):
    oh = (x.shape[1] - k) // stride + 1
    ow = (x.shape[2] - k) // stride + 1
    out = np.full((x.shape[0], oh, ow, x.shape[3]), -np.inf)
    for ky in range(k):
        for kx in range(k):
            out = np.maximum(out, x[:, ky:ky + stride * (oh - 1) + 1:stride,
                                    kx:kx + stride * (ow - 1) + 1:stride, :])
    return out


# name: (input shapes, reference)
CASES = {
    "matmul_bias_relu": ([(259, 131), (131, 75), (75,)],
                         lambda a, b, bias: np.maximum(a @ b + bias, 0)),
    "matmul_residual": ([(203, 300), (300, 45), (203, 45)],
                        lambda a, b, r: a @ b + r),
    "conv3x3": ([(1, 58, 58, 16), (3, 3, 16, 21)],
                lambda x, w: conv_nhwc(x, w, 1)),
    "conv3x3_w4_pairs": ([(1, 11, 6, 64), (3, 3, 64, 61)],
                         lambda x, w: conv_nhwc(x, w, 1)),
    "conv_stride2_bias": ([(1, 81, 81, 32), (3, 3, 32, 3), (3,)],
                          lambda x, w, b: conv_nhwc(x, w, 2) + b),
    "depthwise": ([(1, 20, 20, 11), (3, 3, 11)], depthwise),
    "maxpool": ([(1, 21, 21, 11)], lambda x: maxpool(x, 3, 2)),
}


def run(command, timeout):
    result = subprocess.run(command, capture_output=True, text=True,
                            timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError(" ".join(command[:2]) + ": " +
                           (result.stderr + result.stdout).strip()[-2000:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strata-compile", required=True)
    parser.add_argument("--strata-run", required=True,
                        help="the target's strata-run")
    parser.add_argument("--native-run", required=True,
                        help="this host's strata-run")
    parser.add_argument("--compile-arg", action="append", default=[])
    parser.add_argument("--run-wrapper", action="append", default=[])
    parser.add_argument("--work", required=True)
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    source = os.path.join(HERE, "kernels.mlir")
    target_vmfb = os.path.join(args.work, "kernels.vmfb")
    native_vmfb = os.path.join(args.work, "kernels.native.vmfb")
    try:
        run([args.strata_compile] + args.compile_arg +
            [source, "-o", target_vmfb], args.timeout)
        run([args.strata_compile, source, "-o", native_vmfb], args.timeout)
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        print("FAIL compile: %s" % error)
        print("0 passed, %d failed, 0 skipped" % len(CASES))
        return 1

    rng = np.random.default_rng(31)
    passed = failed = 0
    for name, (shapes, reference) in CASES.items():
        inputs = []
        for index, shape in enumerate(shapes):
            value = rng.standard_normal(shape).astype(np.float32)
            path = os.path.join(args.work, "%s.in%d.npy" % (name, index))
            np.save(path, value)
            inputs.append((path, value))
        flags = ["--function=" + name] + ["--input=@" + p for p, _ in inputs]
        target_out = os.path.join(args.work, name + ".npy")
        native_out = os.path.join(args.work, name + ".native.npy")
        try:
            run(args.run_wrapper + [args.strata_run, "--module=" + target_vmfb,
                                    "--output=@" + target_out] + flags,
                args.timeout)
            run([args.native_run, "--module=" + native_vmfb,
                 "--output=@" + native_out] + flags, args.timeout)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            print("FAIL %s: %s" % (name, error))
            failed += 1
            continue
        actual = np.load(target_out)
        native = np.load(native_out)
        expected = reference(*[v.astype(np.float64) for _, v in inputs])
        if actual.shape != expected.shape or native.shape != expected.shape:
            print("FAIL %s: shape %s (this host %s), expected %s" % (
                name, actual.shape, native.shape, expected.shape))
            failed += 1
            continue
        ok = (np.allclose(actual, expected, rtol=args.rtol, atol=args.atol)
              and np.allclose(actual, native, rtol=args.rtol,
                              atol=args.atol))
        print("%s %s: max abs error %.3g, max abs difference from this "
              "host's %.3g" % (
                  "PASS" if ok else "FAIL", name,
                  float(np.abs(actual - expected).max()),
                  float(np.abs(actual.astype(np.float64) - native).max())))
        passed += ok
        failed += not ok
    # This host's module on the target's runtime: refused, naming both
    # formats.
    refused = subprocess.run(
        args.run_wrapper + [args.strata_run, "--module=" + native_vmfb,
                            "--function=maxpool"] +
        ["--input=@" + os.path.join(args.work, "maxpool.in0.npy")],
        capture_output=True, text=True, timeout=args.timeout)
    ok = refused.returncode != 0 and "is for another architecture" in \
        refused.stderr
    print("%s this host's module refused: %s" % (
        "PASS" if ok else "FAIL",
        refused.stderr.strip().splitlines()[0] if refused.stderr.strip()
        else "exit status %d" % refused.returncode))
    passed += ok
    failed += not ok
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
