#!/usr/bin/env python3
# gen_epilogue_ieee.py - writes the fused-clamp test program: a 1x1
# convolution (the matmul microkernel) and a depthwise 3x3 convolution (its
# own microkernel), each with a bias and a clamp fused into the kernel's
# stores, on inputs holding a NaN pixel and an all-zero pixel. IEEE
# maximum/minimum decide: a NaN stays NaN through relu and clip, and
# clip(x, -1, -0) of a zero sum is -0. Each function returns the clamped
# result and, computed from it by a separate op (two users keep the clamp
# from fusing with it, so the kernel applies the clamp), its bits (NaNs as
# one canonical pattern): zero signs are checked exactly. Values are
# multiples of 1/8: every sum is exact in any order.
#
#   gen_epilogue_ieee.py OUT_DIR
#
# writes OUT_DIR/program.mlir and, per case NAME, NAME.input.npy,
# NAME.expected.npy and NAME.bits.npy (int32). Plain Python: the test's python3 may have
# no numpy.
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_pooling import NAN_BITS, bits, write_npy  # noqa: E402

H, W = 16, 16
NAN_PIXEL, ZERO_PIXEL = (3, 5), (7, 7)


def value(i, seed):
    return (((i * 7 + i // 13 + 3 * seed) % 15) - 7) / 8.0


def ieee_max(a, b):
    if math.isnan(a) or math.isnan(b):
        return float("nan")
    if a == b == 0.0:
        return a if math.copysign(1.0, a) > 0 else b
    return a if a > b else b


def ieee_min(a, b):
    if math.isnan(a) or math.isnan(b):
        return float("nan")
    if a == b == 0.0:
        return a if math.copysign(1.0, a) < 0 else b
    return a if a < b else b


def inputs(c):
    x = []
    for y in range(H):
        for xx in range(W):
            for ch in range(c):
                v = value((y * W + xx) * c + ch, 1)
                if (y, xx) == NAN_PIXEL and ch == 1:
                    v = float("nan")
                if (y, xx) == ZERO_PIXEL:
                    v = 0.0
                x.append(v)
    return x


def clamp(v, lo, hi):
    if lo is not None:
        v = ieee_max(v, lo)
    if hi is not None:
        v = ieee_min(v, hi)
    return v


def dense(values):
    return "dense<[%s]>" % ", ".join(repr(v) for v in values)


def bits_generic(yt, it):
    return [
        "  %%bits0 = tensor.empty() : %s" % it,
        "  %%bits = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) "
        "-> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], "
        "iterator_types = [\"parallel\", \"parallel\", \"parallel\", "
        "\"parallel\"]} ins(%%r : %s) outs(%%bits0 : %s) {" % (yt, it),
        "  ^bb0(%v: f32, %o: i32):",
        "    %nan = arith.cmpf uno, %v, %v : f32",
        "    %b = arith.bitcast %v : f32 to i32",
        "    %%canonical = arith.constant %d : i32" % NAN_BITS,
        "    %s = arith.select %nan, %canonical, %b : i32",
        "    linalg.yield %s : i32",
        "  } -> %s" % it,
        "  return %%r, %%bits : %s, %s" % (yt, it),
        "}",
    ]


def clamp_lines(lo, hi):
    lines = []
    body = ["  ^bb0(%a: f32, %bb: f32, %o: f32):",
            "    %t = arith.addf %a, %bb : f32"]
    last = "%t"
    if lo is not None:
        lines.append("  %%lo = arith.constant %r : f32" % lo)
        body.append("    %%m = arith.maximumf %s, %%lo : f32" % last)
        last = "%m"
    if hi is not None:
        lines.append("  %%hi = arith.constant %r : f32" % hi)
        body.append("    %%n = arith.minimumf %s, %%hi : f32" % last)
        last = "%n"
    body.append("    linalg.yield %s : f32" % last)
    return lines, body


def conv1x1_case(name, c, f, lo, hi):
    x = inputs(c)
    w = [value(i, 2) for i in range(c * f)]
    bias = [value(i, 3) if i % 4 else 0.0 for i in range(f)]
    out = []
    for p in range(H * W):
        for j in range(f):
            acc = 0.0
            for k in range(c):
                acc += x[p * c + k] * w[k * f + j]
            out.append(clamp(acc + bias[j], lo, hi))
    xt = "tensor<1x%dx%dx%dxf32>" % (H, W, c)
    wt = "tensor<1x1x%dx%dxf32>" % (c, f)
    yt = "tensor<1x%dx%dx%dxf32>" % (H, W, f)
    it = "tensor<1x%dx%dx%dxi32>" % (H, W, f)
    cl, body = clamp_lines(lo, hi)
    lines = ["func.func @%s(%%x: %s) -> (%s, %s) {" % (name, xt, yt, it),
             "  %zero = arith.constant 0.0 : f32",
             "  %%w = arith.constant dense<[[[%s]]]> : %s" % (
                 ", ".join("[" + ", ".join(repr(w[k * f + j])
                                           for j in range(f)) + "]"
                           for k in range(c)), wt),
             "  %%bias = arith.constant %s : tensor<%dxf32>" % (dense(bias), f)]
    lines += cl
    lines += [
        "  %%e = tensor.empty() : %s" % yt,
        "  %%f = linalg.fill ins(%%zero : f32) outs(%%e : %s) -> %s" % (yt, yt),
        "  %%y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : "
        "tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%%x, %%w : "
        "%s, %s) outs(%%f : %s) -> %s" % (xt, wt, yt, yt),
        "  %%r = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> "
        "(n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, "
        "w, c) -> (n, h, w, c)>], iterator_types = [\"parallel\", "
        "\"parallel\", \"parallel\", \"parallel\"]} ins(%%y, %%bias : %s, "
        "tensor<%dxf32>) outs(%%e : %s) {" % (yt, f, yt)]
    lines += body
    lines.append("  } -> %s" % yt)
    lines += bits_generic(yt, it)
    return "\n".join(lines) + "\n", (1, H, W, c), x, (1, H, W, f), out


def depthwise_case(name, c, lo, hi):
    x = inputs(c)
    w = [value(i, 4) for i in range(9 * c)]
    bias = [value(i, 5) if i % 4 else 0.0 for i in range(c)]
    out = []
    for oy in range(H):
        for ox in range(W):
            for ch in range(c):
                acc = 0.0
                for i in range(3):
                    for j in range(3):
                        iy, ix = oy + i - 1, ox + j - 1
                        if 0 <= iy < H and 0 <= ix < W:
                            acc += (x[(iy * W + ix) * c + ch] *
                                    w[(i * 3 + j) * c + ch])
                out.append(clamp(acc + bias[ch], lo, hi))
    xt = "tensor<1x%dx%dx%dxf32>" % (H, W, c)
    pt = "tensor<1x%dx%dx%dxf32>" % (H + 2, W + 2, c)
    wt = "tensor<3x3x%dxf32>" % c
    yt = xt
    it = "tensor<1x%dx%dx%dxi32>" % (H, W, c)
    cl, body = clamp_lines(lo, hi)
    lines = ["func.func @%s(%%x: %s) -> (%s, %s) {" % (name, xt, yt, it),
             "  %zero = arith.constant 0.0 : f32",
             "  %%w = arith.constant dense<%s> : %s" % (
                 "[" + ", ".join("[" + ", ".join(
                     "[" + ", ".join(repr(w[(i * 3 + j) * c + ch])
                                     for ch in range(c)) + "]"
                     for j in range(3)) + "]" for i in range(3)) + "]", wt),
             "  %%bias = arith.constant %s : tensor<%dxf32>" % (dense(bias), c)]
    lines += cl
    lines += [
        "  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {",
        "  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):",
        "    tensor.yield %zero : f32",
        "  } : %s to %s" % (xt, pt),
        "  %%e = tensor.empty() : %s" % yt,
        "  %%f = linalg.fill ins(%%zero : f32) outs(%%e : %s) -> %s" % (yt, yt),
        "  %%y = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : "
        "tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%%p, %%w : "
        "%s, %s) outs(%%f : %s) -> %s" % (pt, wt, yt, yt),
        "  %%r = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> "
        "(n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, "
        "w, c) -> (n, h, w, c)>], iterator_types = [\"parallel\", "
        "\"parallel\", \"parallel\", \"parallel\"]} ins(%%y, %%bias : %s, "
        "tensor<%dxf32>) outs(%%e : %s) {" % (yt, c, yt)]
    lines += body
    lines.append("  } -> %s" % yt)
    lines += bits_generic(yt, it)
    return "\n".join(lines) + "\n", (1, H, W, c), x, (1, H, W, c), out


CASES = [
    # name, builder, arguments (channels..., lo, hi)
    ("conv_relu", conv1x1_case, (64, 72, 0.0, None)),
    ("conv_clip_neg_zero", conv1x1_case, (64, 72, -1.0, -0.0)),
    ("conv_relu6", conv1x1_case, (64, 40, 0.0, 6.0)),
    ("dw_relu6", depthwise_case, (48, 0.0, 6.0)),
    ("dw_clip_neg_zero", depthwise_case, (48, -1.0, -0.0)),
]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    program = []
    for name, build, args in CASES:
        body, xshape, x, yshape, y = build(name, *args)
        program.append(body)
        write_npy(os.path.join(out, name + ".input.npy"), "<f4", xshape, "f",
                  x)
        write_npy(os.path.join(out, name + ".expected.npy"), "<f4", yshape,
                  "f", y)
        write_npy(os.path.join(out, name + ".bits.npy"), "<i4", yshape, "i",
                  [bits(v) for v in y])
    with open(os.path.join(out, "program.mlir"), "w") as f:
        f.write("".join(program))


if __name__ == "__main__":
    main()
