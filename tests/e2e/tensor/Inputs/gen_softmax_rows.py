#!/usr/bin/env python3
# gen_softmax_rows.py - writes the softmax edge-size test program: one
# linalg.softmax over the innermost dimension per case, with rows of 1, 7,
# 33 and 1000 elements (none, some and most of a row in whole vectors of
# 4, 8 and 16 lanes, the rest in the scalar tail), a 3-d case (two outer
# loops), a dynamic row length, and rows that test stability: large values
# (1e30, 1000 apart from the rest), -inf elements, a row of one finite
# value among -inf, and rows holding NaN (all NaN) or +inf (NaN as well:
# inf - inf). Expected values are computed in double precision.
#
#   gen_softmax_rows.py OUT_DIR
#
# writes OUT_DIR/program.mlir and, per case NAME, NAME.input.npy and
# NAME.expected.npy. Plain Python: the test's python3 may have no numpy.
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_pooling import write_npy  # noqa: E402

INF = float("inf")
NAN = float("nan")


def values(count, seed):
    return [(((i * 37 + seed * 11) % 101) - 50) / 7.0 for i in range(count)]


def softmax_row(row):
    finite = [x for x in row if not math.isnan(x)]
    if len(finite) != len(row):
        return [NAN] * len(row)
    top = max(row)
    if math.isinf(top):
        # -inf - -inf and inf - inf are NaN.
        return [NAN] * len(row)
    exps = [math.exp(x - top) for x in row]
    total = math.fsum(exps)
    return [e / total for e in exps]


# name -> (shape, dynamic dims, rows)
CASES = {
    "rows_of_1": ((3, 1), (), [[5.0], [-1e30], [42.0]]),
    "rows_of_7": ((2, 7), (), [values(7, 1), values(7, 2)]),
    "rows_of_33": ((3, 33), (), [values(33, s) for s in range(3)]),
    "rows_of_1000": ((2, 1000), (), [values(1000, s) for s in range(2)]),
    "outer_3d": ((2, 3, 17), (),
                 [values(17, s) for s in range(6)]),
    "dynamic_length": ((3, 19), (0, 1), [values(19, s) for s in range(3)]),
    "stability": ((6, 20), (), [
        [1e30] + values(19, 1),
        [1000.0 + x for x in values(20, 2)],
        values(10, 3) + [-INF] * 10,
        [-INF] * 19 + [0.0],
        values(5, 4) + [NAN] + values(14, 5),
        values(17, 6) + [INF, 1.0, 2.0],
    ]),
}


def tensor_type(shape, dynamic):
    dims = ["?" if d in dynamic else str(size) for d, size in enumerate(shape)]
    return "tensor<%sxf32>" % "x".join(dims)


def function(name, shape, dynamic):
    t = tensor_type(shape, dynamic)
    lines = ["func.func @%s(%%x: %s) -> %s {" % (name, t, t)]
    sizes = []
    for d in sorted(dynamic):
        lines.append("  %%c%d = arith.constant %d : index" % (d, d))
        lines.append("  %%d%d = tensor.dim %%x, %%c%d : %s" % (d, d, t))
        sizes.append("%%d%d" % d)
    lines.append("  %%e = tensor.empty(%s) : %s" % (", ".join(sizes), t))
    lines.append("  %%r = linalg.softmax dimension(%d) ins(%%x : %s) "
                 "outs(%%e : %s) -> %s" % (len(shape) - 1, t, t, t))
    lines.append("  return %%r : %s" % t)
    lines.append("}")
    return "\n".join(lines)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    functions = []
    for name, (shape, dynamic, rows) in CASES.items():
        functions.append(function(name, shape, dynamic))
        flat = [x for row in rows for x in row]
        expected = [y for row in rows for y in softmax_row(row)]
        assert len(flat) == math.prod(shape), name
        write_npy(os.path.join(out, name + ".input.npy"), "<f4", shape, "f",
                  flat)
        write_npy(os.path.join(out, name + ".expected.npy"), "<f4", shape,
                  "f", expected)
    with open(os.path.join(out, "program.mlir"), "w") as f:
        f.write("\n\n".join(functions) + "\n")


if __name__ == "__main__":
    main()
