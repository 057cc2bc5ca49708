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
import struct
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


def clamp_lines(lo, hi, terms=("bias",)):
    names = {"bias": "%bias_v", "residual": "%res_v"}
    body = ["  ^bb0(%%a: f32, %s, %%o: f32):" % ", ".join(
        "%s: f32" % names[t] for t in sorted(terms))]
    lines = []
    last = "%a"
    for i, term in enumerate(terms):
        body.append("    %%t%d = arith.addf %s, %s : f32" % (i, last,
                                                          names[term]))
        last = "%%t%d" % i
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


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def rounding_values(n, seed):
    # In [-2, 2) with 22 fraction bits: exact in f32, but a sum with a
    # product of a few integer bits rounds, and differently in the two
    # orders of bias and residual.
    return [((i * 2654435761 + seed * 40503) % (1 << 24)) / float(1 << 22) - 2.0
            for i in range(n)]


def conv_case(name, c, f, lo, hi, k=1, terms=("bias",)):
    """A k x k convolution (k = 3: zero padding 1, same size) of c to f
    channels, then an epilogue adding `terms` ("bias", "residual") in
    that order, then the clamp."""
    x = inputs(c)
    w = [value(i, 2) for i in range(k * k * c * f)]
    rounding = "residual" in terms
    if rounding:
        bias = rounding_values(f, 3)
        residual = rounding_values(H * W * f, 6)
    else:
        bias = [value(i, 3) if i % 4 else 0.0 for i in range(f)]
        residual = None
    out = []
    for oy in range(H):
        for ox in range(W):
            for j in range(f):
                acc = 0.0
                for i in range(k):
                    for jj in range(k):
                        iy, ix = oy + i - k // 2, ox + jj - k // 2
                        if not (0 <= iy < H and 0 <= ix < W):
                            continue
                        for ch in range(c):
                            acc += (x[(iy * W + ix) * c + ch] *
                                    w[((i * k + jj) * c + ch) * f + j])
                v = acc
                for term in terms:
                    v = f32(v + (bias[j] if term == "bias" else
                                 residual[(oy * W + ox) * f + j]))
                out.append(clamp(v, lo, hi))
    xt = "tensor<1x%dx%dx%dxf32>" % (H, W, c)
    pt = "tensor<1x%dx%dx%dxf32>" % (H + k - 1, W + k - 1, c)
    wt = "tensor<%dx%dx%dx%dxf32>" % (k, k, c, f)
    yt = "tensor<1x%dx%dx%dxf32>" % (H, W, f)
    it = "tensor<1x%dx%dx%dxi32>" % (H, W, f)
    cl, body = clamp_lines(lo, hi, terms)
    weights = "[%s]" % ", ".join(
        "[%s]" % ", ".join(
            "[%s]" % ", ".join(
                "[%s]" % ", ".join(repr(w[((i * k + jj) * c + ch) * f + j])
                                   for j in range(f))
                for ch in range(c))
            for jj in range(k))
        for i in range(k))
    args = "%%x: %s" % xt + (", %%res: %s" % yt if residual else "")
    lines = ["func.func @%s(%s) -> (%s, %s) {" % (name, args, yt, it),
             "  %zero = arith.constant 0.0 : f32",
             "  %%w = arith.constant dense<%s> : %s" % (weights, wt),
             "  %%bias = arith.constant %s : tensor<%dxf32>" % (dense(bias), f)]
    lines += cl
    source = "%x"
    if k > 1:
        pad = k // 2
        lines += [
            "  %%p = tensor.pad %%x low[0, %d, %d, 0] high[0, %d, %d, 0] {" % (
                pad, pad, pad, pad),
            "  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):",
            "    tensor.yield %zero : f32",
            "  } : %s to %s" % (xt, pt)]
        source = "%p"
    ins = ["%y", "%bias"] + (["%res"] if residual else [])
    types = [yt, "tensor<%dxf32>" % f] + ([yt] if residual else [])
    maps = ["affine_map<(n, h, w, c) -> (n, h, w, c)>",
            "affine_map<(n, h, w, c) -> (c)>"]
    if residual:
        maps.append("affine_map<(n, h, w, c) -> (n, h, w, c)>")
    maps.append("affine_map<(n, h, w, c) -> (n, h, w, c)>")
    lines += [
        "  %%e = tensor.empty() : %s" % yt,
        "  %%f = linalg.fill ins(%%zero : f32) outs(%%e : %s) -> %s" % (yt, yt),
        "  %%y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : "
        "tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%s, %%w : "
        "%s, %s) outs(%%f : %s) -> %s" % (source, pt if k > 1 else xt, wt,
                                         yt, yt),
        "  %%r = linalg.generic {indexing_maps = [%s], iterator_types = "
        "[\"parallel\", \"parallel\", \"parallel\", \"parallel\"]} "
        "ins(%s : %s) outs(%%e : %s) {" % (", ".join(maps), ", ".join(ins),
                                           ", ".join(types), yt)]
    lines += body
    lines.append("  } -> %s" % yt)
    lines += bits_generic(yt, it)
    inputs_ = [((1, H, W, c), x)] + ([((1, H, W, f), residual)]
                                     if residual else [])
    return "\n".join(lines) + "\n", inputs_, (1, H, W, f), out


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
    return "\n".join(lines) + "\n", [((1, H, W, c), x)], (1, H, W, c), out


CASES = [
    # name, builder, arguments (channels..., lo, hi[, kernel, terms])
    ("conv_relu", conv_case, (64, 72, 0.0, None)),
    ("conv_clip_neg_zero", conv_case, (64, 72, -1.0, -0.0)),
    ("conv_relu6", conv_case, (64, 40, 0.0, 6.0)),
    # The order of bias and residual, bit for bit: each sum rounds.
    ("conv_residual_bias", conv_case,
     (64, 72, 0.0, None, 1, ("residual", "bias"))),
    ("conv_bias_residual", conv_case,
     (64, 72, None, None, 1, ("bias", "residual"))),
    ("conv3x3_residual_bias", conv_case,
     (16, 24, 0.0, None, 3, ("residual", "bias"))),
    ("conv3x3_bias_residual", conv_case,
     (16, 24, None, 6.0, 3, ("bias", "residual"))),
    ("dw_relu6", depthwise_case, (48, 0.0, 6.0)),
    ("dw_clip_neg_zero", depthwise_case, (48, -1.0, -0.0)),
]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    program = []
    for name, build, args in CASES:
        body, ins, yshape, y = build(name, *args)
        program.append(body)
        for i, (shape, values) in enumerate(ins):
            write_npy(os.path.join(out, "%s.input%s.npy" % (
                name, i if i else "")), "<f4", shape, "f", values)
        write_npy(os.path.join(out, name + ".expected.npy"), "<f4", yshape,
                  "f", y)
        write_npy(os.path.join(out, name + ".bits.npy"), "<i4", yshape, "i",
                  [bits(v) for v in y])
    with open(os.path.join(out, "program.mlir"), "w") as f:
        f.write("".join(program))


if __name__ == "__main__":
    main()
