#!/usr/bin/env python3
# gen_layernorm_rows.py - writes layernorm-rows.mlir's program: ONNX
# LayerNormalization (opset 17, f32, epsilon 1e-5) as the ONNX import
# writes it (one onnx.node; scale and bias constants, as a model's
# initializers are), over rows of 1, 7, 131 and 1000 elements in odd
# counts, token rows (3 x 5 x 24, axis -1) and two normalized axes
# (5 x 3 x 7, axis 1, no bias).
#
# The rows cycle through four kinds: 1e4 plus noise of deviation 30 (a
# large common offset: with the sums of x and x^2 taken in f32 the outputs
# are 1.7e-2 to 0.24 off), standard normal noise, -2500 plus noise of
# deviation 10, and a constant 1e4 row (variance 0: the output is the
# bias). The deviation of 30 keeps what f32 must lose within strata-run's
# 1e-4: the mean rounded to f32 (ONNX's Mean output is f32) is up to
# 4.9e-4 off at 1e4, 1.6e-5 of a deviation. Expected values are computed
# in double precision from the f32 inputs: (x - mean) / sqrt(var +
# epsilon) * scale + bias, var the mean of the squared deviations (two
# passes, math.fsum).
#
#   gen_layernorm_rows.py OUT_DIR
#
# writes OUT_DIR/program.mlir and, per case NAME, NAME.input.npy and
# NAME.expected.npy. Plain Python: the test's python3 may have no numpy.
import math
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_pooling import write_npy  # noqa: E402


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


# ONNX's epsilon attribute is an f32.
EPSILON = f32(1e-5)

# name -> (shape, first normalized axis, with a bias)
CASES = {
    "rows_of_1": ((9, 1), 1, True),
    "rows_of_7": ((13, 7), 1, True),
    "rows_of_131": ((11, 131), 1, True),
    "rows_of_1000": ((7, 1000), 1, True),
    "tokens": ((3, 5, 24), 2, True),
    "two_axes": ((5, 3, 7), 1, False),
}


def row(rng, kind, size):
    """A row of `size` f32 values of one of the four kinds above."""
    if kind == 3:
        return [1e4] * size
    offset, deviation = [(1e4, 30.0), (0.0, 1.0), (-2500.0, 10.0)][kind]
    return [f32(offset + deviation * rng.gauss(0.0, 1.0))
            for _ in range(size)]


def normalize(x, scale, bias):
    n = len(x)
    mean = math.fsum(x) / n
    var = math.fsum((v - mean) ** 2 for v in x) / n
    inv = 1.0 / math.sqrt(var + EPSILON)
    return [(v - mean) * inv * s + b for v, s, b in zip(x, scale, bias)]


def dense(values, shape):
    """An MLIR dense literal of `values` (row-major) nested to `shape`."""
    if len(shape) == 1:
        return "[%s]" % ", ".join("%.9g" % v for v in values)
    step = len(values) // shape[0]
    return "[%s]" % ", ".join(dense(values[i:i + step], shape[1:])
                              for i in range(0, len(values), step))


def tensor_type(shape):
    return "tensor<%sxf32>" % "x".join(str(d) for d in shape)


def function(name, shape, axis, scale, bias):
    t = tensor_type(shape)
    inner = shape[axis:]
    p = tensor_type(inner)
    lines = ["func.func @%s(%%x: %s) -> %s {" % (name, t, t),
             "  %%s = arith.constant dense<%s> : %s" % (dense(scale, inner),
                                                       p)]
    operands, types = ["%x", "%s"], [t, p]
    if bias is not None:
        lines.append("  %%b = arith.constant dense<%s> : %s" %
                     (dense(bias, inner), p))
        operands.append("%b")
        types.append(p)
    # The last axis as PyTorch's export writes it, -1.
    attr = -1 if axis == len(shape) - 1 else axis
    lines.append('  %%y = onnx.node "LayerNormalization"(%s) {attrs = '
                 '{axis = %d : i64, epsilon = 1.0e-5 : f32}, domain = "", '
                 'opset = 17 : i64} : (%s) -> %s' %
                 (", ".join(operands), attr, ", ".join(types), t))
    lines.append("  return %%y : %s" % t)
    lines.append("}")
    return "\n".join(lines)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(20261207)
    functions = []
    for name, (shape, axis, with_bias) in CASES.items():
        rows = math.prod(shape[:axis])
        size = math.prod(shape[axis:])
        scale = [f32(rng.uniform(0.5, 1.5) * rng.choice((-1.0, 1.0)))
                 for _ in range(size)]
        bias = ([f32(0.5 * rng.gauss(0.0, 1.0)) for _ in range(size)]
                if with_bias else None)
        flat, expected = [], []
        for r in range(rows):
            x = row(rng, r % 4, size)
            flat += x
            expected += normalize(x, scale, bias or [0.0] * size)
        functions.append(function(name, shape, axis, scale, bias))
        write_npy(os.path.join(out, name + ".input.npy"), "<f4", shape, "f",
                  flat)
        write_npy(os.path.join(out, name + ".expected.npy"), "<f4", shape,
                  "f", expected)
    with open(os.path.join(out, "program.mlir"), "w") as f:
        f.write("\n\n".join(functions) + "\n")


if __name__ == "__main__":
    main()
