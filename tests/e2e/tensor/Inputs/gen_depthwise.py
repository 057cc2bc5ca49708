#!/usr/bin/env python3
# gen_depthwise.py - writes the depthwise-convolution test program: NHWC
# depthwise convolutions at edge sizes (channels that are not a whole
# number of vectors, strides, dilation, 5x5 and 7x7 windows, a non-zero
# accumulator, padding on some sides only or none) with bias + clamp
# epilogues, and their expected outputs.
# Values are small multiples of 1/8, so every sum is exact in f32.
#
#   gen_depthwise.py OUT_DIR
#
# writes OUT_DIR/program.mlir and, per case NAME, NAME.input.npy,
# NAME.weight.npy, NAME.acc.npy (the accumulator, for cases that take one)
# and NAME.expected.npy.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_packed_weights import Array, dense, tensor, values  # noqa: E402
from gen_weights import write_npy  # noqa: E402


def case(name, h, w_, c, k, stride, dilation, pad, clamp, accumulate):
    # pad: one amount for every side, or (top, left, bottom, right).
    top, left, bottom, right = pad if isinstance(pad, tuple) else (pad,) * 4
    x = values((1, h, w_, c), 6)
    w = values((k, k, c), 7)
    b = values((c,), 8)
    acc0 = values((1, 1, 1, 1), 9)  # replaced below when accumulating
    span = dilation * (k - 1) + 1
    oh = (h + top + bottom - span) // stride + 1
    ow = (w_ + left + right - span) // stride + 1
    if accumulate:
        acc0 = values((1, oh, ow, c), 9)
    out = []
    for oy in range(oh):
        for ox in range(ow):
            for ch in range(c):
                v = acc0.data[((oy * ow) + ox) * c + ch] if accumulate else 0.0
                for i in range(k):
                    for j in range(k):
                        iy = oy * stride + i * dilation - top
                        ix = ox * stride + j * dilation - left
                        if 0 <= iy < h and 0 <= ix < w_:
                            v += (x.data[(iy * w_ + ix) * c + ch] *
                                  w.data[(i * k + j) * c + ch])
                if clamp is not None:
                    v = max(v + b.data[ch], clamp[0])
                    if clamp[1] is not None:
                        v = min(v, clamp[1])
                out.append(v)
    y = Array((1, oh, ow, c), out)
    yt, xt, wt = tensor(y.shape), tensor(x.shape), tensor(w.shape)
    pt = tensor((1, h + top + bottom, w_ + left + right, c))
    lines = ["func.func @%s(%%x: %s, %%w: %s%s) -> %s {" % (
        name, xt, wt, (", %%acc: %s" % yt) if accumulate else "", yt)]
    lines.append("  %zero = arith.constant 0.0 : f32")
    lines.append("  %%p = tensor.pad %%x low[0, %d, %d, 0] high[0, %d, %d, 0] {"
                 % (top, left, bottom, right))
    lines.append("  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):")
    lines.append("    tensor.yield %zero : f32")
    lines.append("  } : %s to %s" % (xt, pt))
    lines.append("  %%e = tensor.empty() : %s" % yt)
    init = "%acc"
    if not accumulate:
        lines.append("  %%f = linalg.fill ins(%%zero : f32) outs(%%e : %s) -> %s"
                     % (yt, yt))
        init = "%f"
    lines.append("  %%y = linalg.depthwise_conv_2d_nhwc_hwc {dilations = "
                 "dense<%d> : tensor<2xi64>, strides = dense<%d> : "
                 "tensor<2xi64>} ins(%%p, %%w : %s, %s) outs(%s : %s) -> %s"
                 % (dilation, stride, pt, wt, init, yt, yt))
    result = "%y"
    if clamp is not None:
        lines.append("  %%b = arith.constant %s : %s" % (dense(b),
                                                       tensor(b.shape)))
        lines.append("  %%lo = arith.constant %r : f32" % clamp[0])
        if clamp[1] is not None:
            lines.append("  %%hi = arith.constant %r : f32" % clamp[1])
        lines.append(
            "  %%r = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) "
            "-> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n,"
            " h, w, c) -> (n, h, w, c)>], iterator_types = [\"parallel\", "
            "\"parallel\", \"parallel\", \"parallel\"]} ins(%%y, %%b : %s, %s) "
            "outs(%%e : %s) {" % (yt, tensor(b.shape), yt))
        lines.append("  ^bb0(%v: f32, %bias: f32, %o: f32):")
        lines.append("    %s = arith.addf %v, %bias : f32")
        lines.append("    %m = arith.maximumf %s, %lo : f32")
        if clamp[1] is not None:
            lines.append("    %n = arith.minimumf %m, %hi : f32")
            lines.append("    linalg.yield %n : f32")
        else:
            lines.append("    linalg.yield %m : f32")
        lines.append("  } -> %s" % yt)
        result = "%r"
    lines.append("  return %s : %s" % (result, yt))
    lines.append("}")
    arrays = {"input": x, "weight": w, "expected": y}
    if accumulate:
        arrays["acc"] = acc0
    return "\n".join(lines) + "\n", arrays


CASES = [
    # name, h, w, channels, window, stride, dilation, pad, clamp, accumulate
    ("dw3x3_c19", 11, 13, 19, 3, 1, 1, 1, (0.0, 6.0), False),
    ("dw3x3_s2_c96", 15, 17, 96, 3, 2, 1, 1, (0.0, None), False),
    ("dw5x5_d2_c40", 13, 12, 40, 5, 1, 2, 4, None, True),
    ("dw3x3_c8", 7, 9, 8, 3, 1, 1, 1, (-1.0, 1.0), False),
    # Padding on one side of each dimension (stride 2, "same"), none at
    # all, a 7x7 window (more taps than the kernel keeps in registers)
    # wider than the image, and one output row.
    ("dw3x3_s2_same_c32", 14, 9, 32, 3, 2, 1, (0, 0, 1, 1), (0.0, 6.0),
     False),
    ("dw3x3_valid_c48", 9, 23, 48, 3, 1, 1, 0, None, False),
    ("dw7x7_c16", 5, 6, 16, 7, 1, 1, 3, (0.0, None), True),
    ("dw3x3_row_c17", 1, 31, 17, 3, 1, 1, 1, None, False),
]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    program = []
    for spec in CASES:
        body, arrays = case(*spec)
        program.append(body)
        for suffix, array in arrays.items():
            write_npy(os.path.join(out, "%s.%s.npy" % (spec[0], suffix)),
                      array.shape, array.data)
    with open(os.path.join(out, "program.mlir"), "w") as f:
        f.write("".join(program))


if __name__ == "__main__":
    main()
