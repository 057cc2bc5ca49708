#!/usr/bin/env python3
"""run_quantized_cases.py - edge cases of the int8 path on small QDQ models
made here with onnx.helper (f32 input -> QuantizeLinear -> DequantizeLinear
-> Conv (dense or depthwise) / Gemm with a constant int8 weight -> (Relu) -> QuantizeLinear ->
DequantizeLinear -> f32 output), compiled by strata-compile and run on both
local devices against ONNX Runtime's output on the same file.

The cases: uint8 zero points 0, 128 and 255; int8 activations; outputs
saturating at both ends; odd channel counts and depths that are not a
multiple of 4; sizes below the microkernel's threshold (the vectorized
loops) and above it (conv_zp0_relu, conv_zp128, gemm_odd_k: calls of the
int8 microkernel with partial row and column tiles, their weights packed
at compile time); depthwise convolutions (dwconv_*: u8 and s8, stride 2,
a 5 x 5 window, zero points 0, 128 and 255, saturation at both ends, odd
channel counts past the int8 depthwise microkernel's vectors); for the AMX kernel (32-row blocks of 16-row tiles, 64
of depth a step), a depth that is a whole number of steps with rows short
of a tile (gemm_amx_rows) besides the depths that are not (117, 259, 45).
Each output must be within one output quantization step of ONNX Runtime's
everywhere. Skipped (exit 77) without onnxruntime-node, and with
--require-cpu-flags when /proc/cpuinfo lacks one of them (a kernel
compiled for AMX cannot run there).
"""

import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_quantized_models  # noqa: E402


def make_model(path, kind, x_shape, w_shape, x_zp, x_unsigned, y_scale, y_zp,
               relu, seed, pads=(0, 0, 0, 0), strides=(1, 1), group=1):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(seed)
    x_type = np.uint8 if x_unsigned else np.int8
    w = rng.integers(-128, 128, size=w_shape, dtype=np.int64).astype(np.int8)
    channels = w_shape[0]
    w_scale = (rng.random(channels) * 0.01 + 0.002).astype(np.float32)
    x_scale = np.float32(0.02)
    bias = rng.integers(-2000, 2000, size=channels).astype(np.int32)
    inits = [
        numpy_helper.from_array(np.array(x_scale, np.float32), "xs"),
        numpy_helper.from_array(np.array(x_zp, x_type), "xz"),
        numpy_helper.from_array(w, "w"),
        numpy_helper.from_array(w_scale, "ws"),
        numpy_helper.from_array(np.zeros(channels, np.int8), "wz"),
        numpy_helper.from_array(bias, "b"),
        numpy_helper.from_array((x_scale * w_scale).astype(np.float32), "bs"),
        numpy_helper.from_array(np.zeros(channels, np.int32), "bz"),
        numpy_helper.from_array(np.array(y_scale, np.float32), "ys"),
        numpy_helper.from_array(np.array(y_zp, x_type), "yz"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["input", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xf"]),
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wf"], axis=0),
        helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bf"], axis=0),
    ]
    if kind == "conv":
        nodes.append(helper.make_node("Conv", ["xf", "wf", "bf"], ["y"],
                                      pads=list(pads), strides=list(strides),
                                      group=group))
    else:
        nodes.append(helper.make_node("Gemm", ["xf", "wf", "bf"], ["y"],
                                      transB=1))
    last = "y"
    if relu:
        nodes.append(helper.make_node("Relu", ["y"], ["yr"]))
        last = "yr"
    nodes += [
        helper.make_node("QuantizeLinear", [last, "ys", "yz"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["output"]),
    ]
    graph = helper.make_graph(
        nodes, kind, [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                    list(x_shape))],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, None)],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.save(model, path)
    # Inputs over the whole quantized range and past it (the input
    # QuantizeLinear saturates too).
    lo = (0 - x_zp) if x_unsigned else (-128 - x_zp)
    hi = (255 - x_zp) if x_unsigned else (127 - x_zp)
    data = rng.uniform(lo - 8, hi + 8, size=x_shape) * x_scale
    return data.astype(np.float32)


# name: (kind, x shape, w shape, x zp, unsigned, y scale, y zp, relu, extra)
CASES = {
    "conv_zp0_relu": ("conv", (1, 13, 32, 32), (37, 13, 3, 3), 0, True, 0.05, 0,
                      True, {"pads": (1, 1, 1, 1)}),
    "conv_zp128": ("conv", (1, 13, 32, 32), (37, 13, 3, 3), 128, True, 0.05, 128,
                   False, {"pads": (1, 1, 1, 1)}),
    "conv_zp255_saturating": ("conv", (1, 5, 17, 17), (33, 5, 3, 3), 255, True,
                              0.004, 255, False, {"strides": (2, 2)}),
    "conv_1x1_odd": ("conv", (2, 3, 15, 15), (67, 3, 1, 1), 37, True, 0.01, 100,
                     False, {}),
    "conv_s8": ("conv", (1, 9, 16, 16), (40, 9, 3, 3), -5, False, 0.03, 2, True,
                {"pads": (1, 0, 1, 0)}),
    # Depthwise (group = channels): an i8 depthwise convolution into i32.
    "dwconv_zp128_relu": ("conv", (1, 24, 17, 17), (24, 1, 3, 3), 128, True,
                          0.05, 0, True, {"pads": (1, 1, 1, 1), "group": 24}),
    "dwconv_s2_odd": ("conv", (2, 19, 15, 15), (19, 1, 3, 3), 37, True, 0.02,
                      100, False, {"pads": (1, 1, 1, 1), "strides": (2, 2),
                                   "group": 19}),
    "dwconv_s8": ("conv", (1, 40, 9, 9), (40, 1, 5, 5), -5, False, 0.03, 2,
                  False, {"pads": (2, 2, 2, 2), "group": 40}),
    # Depthwise layers wide enough for the int8 depthwise microkernel
    # (a vector of channels; the rest in its scalar loop): u8 zero points
    # 0 and 255, saturation at both ends, padding on one side only.
    "dwconv_zp0_relu_wide": ("conv", (1, 48, 12, 12), (48, 1, 3, 3), 0, True,
                             0.05, 0, True, {"pads": (0, 1, 1, 0),
                                             "group": 48}),
    "dwconv_zp255_saturating": ("conv", (1, 37, 14, 14), (37, 1, 3, 3), 255,
                                True, 0.004, 255, False,
                                {"pads": (1, 1, 1, 1), "group": 37}),
    "dwconv_s8_saturating_s2": ("conv", (2, 33, 16, 15), (33, 1, 3, 3), 0,
                                False, 0.002, 0, False,
                                {"pads": (1, 1, 1, 1), "strides": (2, 2),
                                 "group": 33}),
    "gemm_odd_k": ("gemm", (256, 259), (131, 259), 128, True, 0.02, 128, False, {}),
    "gemm_small": ("gemm", (3, 5), (7, 5), 255, True, 0.01, 0, True, {}),
    "gemm_saturating_s8": ("gemm", (20, 203), (50, 203), 0, False, 0.002, 0,
                           False, {}),
    "gemm_amx_rows": ("gemm", (49, 192), (45, 192), 255, True, 0.01, 255,
                      False, {}),
}


def missing_cpu_flags(flags):
    """The flags of `flags` (comma-separated) /proc/cpuinfo does not list."""
    wanted = [f for f in flags.split(",") if f]
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    have = set(line.split(":", 1)[1].split())
                    return [f for f in wanted if f not in have]
    except OSError:
        pass
    return wanted


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strata-compile", required=True)
    parser.add_argument("--strata-run", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--devices", default="local-sync,local-task")
    parser.add_argument("--ort-modules", default=None)
    parser.add_argument("--target-cpu", default=None,
                        help="strata-compile's --target-cpu (default: host); "
                        "znver3 takes the AVX2 kernels, x86-64 none")
    parser.add_argument("--require-cpu-flags", default="",
                        help="skip unless /proc/cpuinfo lists these "
                        "(comma-separated), e.g. amx_tile,amx_int8 for "
                        "--target-cpu=sapphirerapids")
    args = parser.parse_args()
    missing = missing_cpu_flags(args.require_cpu_flags)
    if missing:
        print("SKIP: this host lacks %s, which --target-cpu=%s needs" % (
            " ".join(missing), args.target_cpu))
        return 77
    os.makedirs(args.work, exist_ok=True)
    modules = make_quantized_models.find_ort_modules(args.ort_modules)
    if not modules:
        print("SKIP: no onnxruntime-node for the reference")
        return 77
    passed = failed = 0
    for seed, name in enumerate(args.cases.split(",")):
        kind, xs, ws, xz, unsigned, ys, yz, relu, extra = CASES[name]
        stem = os.path.join(args.work, name)
        data = make_model(stem + ".onnx", kind, xs, ws, xz, unsigned, ys, yz,
                          relu, seed, **extra)
        np.save(stem + ".input.npy", data)
        make_quantized_models.ort_reference(modules, stem + ".onnx",
                                            stem + ".input.npy",
                                            stem + ".expected.npy")
        expected = np.load(stem + ".expected.npy").astype(np.float64)
        compiled = subprocess.run(
            [args.strata_compile, stem + ".onnx", "-o", stem + ".vmfb"] +
            (["--target-cpu=" + args.target_cpu] if args.target_cpu else []),
            capture_output=True, text=True, timeout=300)
        if compiled.returncode != 0:
            print("FAIL %s: compile: %s" % (name, compiled.stderr[-2000:]))
            failed += 1
            continue
        lo_q, hi_q = (0, 255) if unsigned else (-128, 127)
        saturated = (np.isclose(expected, (lo_q - yz) * ys) |
                     np.isclose(expected, (hi_q - yz) * ys)).mean()
        for device in args.devices.split(","):
            out = "%s.%s.npy" % (stem, device)
            run = subprocess.run(
                [args.strata_run, "--module=" + stem + ".vmfb",
                 "--device=" + device, "--input=@" + stem + ".input.npy",
                 "--output=@" + out], capture_output=True, text=True,
                timeout=300)
            if run.returncode != 0:
                print("FAIL %s on %s: run: %s" % (name, device, run.stderr[-2000:]))
                failed += 1
                continue
            actual = np.load(out).astype(np.float64)
            if actual.shape != expected.shape:
                print("FAIL %s on %s: shape %s, expected %s" % (
                    name, device, actual.shape, expected.shape))
                failed += 1
                continue
            steps = np.abs(actual - expected) / ys
            ok = steps.max() <= 1.0 + 1e-4
            print("%s %s on %s: max %.2f output steps, %.1f%% exact, %.0f%% "
                  "saturated" % ("PASS" if ok else "FAIL", name, device,
                                 steps.max(), 100.0 * (steps < 1e-4).mean(),
                                 100.0 * saturated))
            passed += ok
            failed += not ok
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
