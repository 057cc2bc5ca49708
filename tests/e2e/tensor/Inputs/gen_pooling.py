#!/usr/bin/env python3
# gen_pooling.py - writes the pooling test program: NHWC max and sum
# poolings (padded or not, strided, channel counts with a scalar tail) and
# their expected outputs. Max pooling inputs hold NaNs (which must win),
# infinities of both signs (some windows hold both) and windows whose
# maximum is a zero of either sign (+0 beats -0, as IEEE maximum says);
# some inputs hold no NaN and no -inf (the AVX-512 kernel's maximum that
# may drop a NaN is then the answer: no window sums to a NaN), others a
# single NaN (one group of pixels finds it, and that kernel call computes
# its output again with the IEEE maximum);
# results come back as their bits (NaNs as one
# canonical pattern), so signs of zeros are checked exactly. Sum pooling
# values are multiples of 1/8: every sum is exact in any order.
#
#   gen_pooling.py OUT_DIR
#
# writes OUT_DIR/program.mlir and, per case NAME, NAME.input.npy and
# NAME.expected.npy (int32 bits). Plain Python: the test's python3 may have
# no numpy.
import math
import os
import struct
import sys

NAN_BITS = 0x7FC00000


def write_npy(path, descr, shape, fmt, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ", ".join(str(d) for d in shape) + ("," if len(shape) == 1
                                                   else ""))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def bits(x):
    if math.isnan(x):
        return NAN_BITS
    return struct.unpack("<i", struct.pack("<f", x))[0]


def ieee_max(a, b):
    if math.isnan(a) or math.isnan(b):
        return float("nan")
    if a == b == 0.0:
        return a if math.copysign(1.0, a) > 0 else b
    return a if a > b else b


def input_values(name, h, w, c, kind, nans):
    """nans: "scattered", "none" (nor -inf), or (y, x, channel) of the
    one NaN (no -inf either)."""
    data = []
    for y in range(h):
        for x in range(w):
            for ch in range(c):
                i = (y * w + x) * c + ch
                v = (((i * 7 + i // 13) % 15) - 7) / 8.0
                if kind == "max":
                    # Zeros of both signs among negatives in the top-left
                    # corner (some windows' maximum is a zero), NaNs
                    # scattered elsewhere.
                    if y < 3 and x < 3:
                        v = (-0.0, 0.0, -0.5)[(y + x + ch) % 3]
                        if ch % 4 == 1:
                            v = -0.0 if v == 0.0 else v
                    elif i % 37 == 5 and nans == "scattered":
                        v = float("nan")
                    elif i % 41 == 7:
                        v = float("inf")
                    elif i % 43 == 11 and nans == "scattered":
                        v = float("-inf")
                    if nans == (y, x, ch):
                        v = float("nan")
                data.append(v)
    return data


def case(name, kind, h, w, c, k, stride, pad, nans="scattered"):
    top, left, bottom, right = pad
    oh = (h + top + bottom - k) // stride + 1
    ow = (w + left + right - k) // stride + 1
    x = input_values(name, h, w, c, kind, nans)
    out = []
    for oy in range(oh):
        for ox in range(ow):
            for ch in range(c):
                acc = float("-inf") if kind == "max" else 0.0
                for i in range(k):
                    for j in range(k):
                        iy, ix = oy * stride + i - top, ox * stride + j - left
                        v = (x[(iy * w + ix) * c + ch]
                             if 0 <= iy < h and 0 <= ix < w else
                             (float("-inf") if kind == "max" else 0.0))
                        acc = ieee_max(acc, v) if kind == "max" else acc + v
                out.append(bits(acc))
    xt = "tensor<1x%dx%dx%dxf32>" % (h, w, c)
    pt = "tensor<1x%dx%dx%dxf32>" % (h + top + bottom, w + left + right, c)
    yt = "tensor<1x%dx%dx%dxf32>" % (oh, ow, c)
    it = "tensor<1x%dx%dx%dxi32>" % (oh, ow, c)
    init = "0xFF800000" if kind == "max" else "0.0"
    op = "linalg.pooling_nhwc_max" if kind == "max" else "linalg.pooling_nhwc_sum"
    lines = [
        "func.func @%s(%%x: %s) -> %s {" % (name, xt, it),
        "  %%init = arith.constant %s : f32" % init,
        "  %%p = tensor.pad %%x low[0, %d, %d, 0] high[0, %d, %d, 0] {"
        % (top, left, bottom, right),
        "  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):",
        "    tensor.yield %init : f32",
        "  } : %s to %s" % (xt, pt),
        "  %%window = tensor.empty() : tensor<%dx%dxf32>" % (k, k),
        "  %%e = tensor.empty() : %s" % yt,
        "  %%f = linalg.fill ins(%%init : f32) outs(%%e : %s) -> %s" % (yt, yt),
        "  %%y = %s {dilations = dense<1> : tensor<2xi64>, strides = dense<%d>"
        " : tensor<2xi64>} ins(%%p, %%window : %s, tensor<%dx%dxf32>) "
        "outs(%%f : %s) -> %s" % (op, stride, pt, k, k, yt, yt),
        "  %%bits0 = tensor.empty() : %s" % it,
        "  %%bits = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> "
        "(n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], "
        "iterator_types = [\"parallel\", \"parallel\", \"parallel\", "
        "\"parallel\"]} ins(%%y : %s) outs(%%bits0 : %s) {" % (yt, it),
        "  ^bb0(%v: f32, %o: i32):",
        "    %nan = arith.cmpf uno, %v, %v : f32",
        "    %b = arith.bitcast %v : f32 to i32",
        "    %%canonical = arith.constant %d : i32" % NAN_BITS,
        "    %r = arith.select %nan, %canonical, %b : i32",
        "    linalg.yield %r : i32",
        "  } -> %s" % it,
        "  return %%bits : %s" % it,
        "}",
    ]
    return "\n".join(lines) + "\n", (1, h, w, c), x, (1, oh, ow, c), out


CASES = [
    # name, max or sum, h, w, channels, window, stride, (top, left,
    # bottom, right) padding[, NaNs of a max pooling's input]
    ("max3x3_s2_c19", "max", 13, 11, 19, 3, 2, (1, 1, 1, 1)),
    ("max3x3_s2_c64", "max", 17, 17, 64, 3, 2, (1, 1, 1, 1)),
    ("max3x3_s2_c48_nonan", "max", 15, 29, 48, 3, 2, (1, 1, 1, 1), "none"),
    # One NaN inside (row 9, column 16: the second pixel of a group of
    # six, a vector channel), then one at the
    # last pixel (the right border's windows).
    ("max3x3_s2_c40_nan_inside", "max", 19, 23, 40, 3, 2, (1, 1, 1, 1),
     (9, 16, 17)),
    ("max3x3_s2_c40_nan_border", "max", 19, 23, 40, 3, 2, (1, 1, 1, 1),
     (18, 22, 3)),
    ("max2x2_s2_c32", "max", 8, 10, 32, 2, 2, (0, 0, 0, 0)),
    ("max3x3_s1_c24", "max", 9, 14, 24, 3, 1, (1, 1, 1, 1)),
    ("sum3x3_s1_c24", "sum", 9, 7, 24, 3, 1, (1, 1, 1, 1)),
    ("sum3x3_s2_c17", "sum", 11, 12, 17, 3, 2, (0, 0, 1, 1)),
]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    program = []
    for spec in CASES:
        body, xshape, x, yshape, y = case(*spec)
        program.append(body)
        write_npy(os.path.join(out, spec[0] + ".input.npy"), "<f4", xshape,
                  "f", x)
        write_npy(os.path.join(out, spec[0] + ".expected.npy"), "<i4", yshape,
                  "i", y)
    with open(os.path.join(out, "program.mlir"), "w") as f:
        f.write("".join(program))


if __name__ == "__main__":
    main()
