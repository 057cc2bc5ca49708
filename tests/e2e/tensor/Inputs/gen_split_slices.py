#!/usr/bin/env python3
# gen_split_slices.py - writes the sliced-results test program: a matmul
# with a constant weight and a bias, read only through disjoint slices of
# its columns (an attention's query, key and value projection), which
# --strata-split-sliced-results computes as one matmul per slice on the
# matching columns of the weight. Cases: 37 rows of 131 (primes) into 3 x 97
# columns, one row (a decoded token), the 3-D form the encoder has (the
# product expanded to rows x 1 x columns before the bias and the slices),
# and slices that leave columns out (never computed). Each function returns
# q + 2k + 3v of its slices; every value is a multiple of 1/8 and every sum
# is exact in f32.
#
#   gen_split_slices.py OUT_DIR
#
# writes OUT_DIR/program.mlir and NAME.input.npy, NAME.expected.npy.
# Plain Python: the test's python3 may have no numpy.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_packed_weights import Array, dense, tensor, values  # noqa: E402
from gen_weights import write_npy  # noqa: E402

K = 131
PART = 97
# name, rows, 3-D, the slices' first columns
CASES = [
    ("qkv", 37, False, (0, PART, 2 * PART)),
    ("qkv_row1", 1, False, (0, PART, 2 * PART)),
    ("qkv_3d", 37, True, (0, PART, 2 * PART)),
    ("gaps", 5, False, (3, PART + 7, 2 * PART + 9)),
]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 3 * PART + 16
    w = values((K, n), 2)
    b = values((n,), 3)
    program = []
    for name, m, three_d, starts in CASES:
        x = values((m, K), 1)
        y = [[sum(x.data[r * K + i] * w.data[i * n + j] for i in range(K)) +
              b.data[j] for j in range(n)] for r in range(m)]
        expected = [y[r][starts[0] + j] + 2 * y[r][starts[1] + j] +
                    3 * y[r][starts[2] + j] for r in range(m)
                    for j in range(PART)]
        write_npy(os.path.join(out, name + ".input.npy"), (m, K), x.data)
        shape = (m, 1, PART) if three_d else (m, PART)
        write_npy(os.path.join(out, name + ".expected.npy"), shape, expected)
        rt = tensor((m, n))
        full = tensor((m, 1, n)) if three_d else rt
        part = tensor(shape)
        rank = len(shape)
        ident = "affine_map<(%s) -> (%s)>" % (
            ", ".join("d%d" % i for i in range(rank)),
            ", ".join("d%d" % i for i in range(rank)))
        bias_map = "affine_map<(%s) -> (d%d)>" % (
            ", ".join("d%d" % i for i in range(rank)), rank - 1)
        par = ", ".join(['"parallel"'] * rank)
        lines = [
            "func.func @%s(%%x: %s) -> %s {" % (name, tensor((m, K)), part),
            "  %%w = arith.constant %s : %s" % (dense(w), tensor((K, n))),
            "  %%b = arith.constant %s : %s" % (dense(b), tensor((n,))),
            "  %zero = arith.constant 0.0 : f32",
            "  %%e = tensor.empty() : %s" % rt,
            "  %%f = linalg.fill ins(%%zero : f32) outs(%%e : %s) -> %s" %
            (rt, rt),
            "  %%mm = linalg.matmul ins(%%x, %%w : %s, %s) outs(%%f : %s) "
            "-> %s" % (tensor((m, K)), tensor((K, n)), rt, rt),
        ]
        source = "%mm"
        if three_d:
            lines.append("  %%mm3 = tensor.expand_shape %%mm [[0, 1], [2]] "
                         "output_shape [%d, 1, %d] : %s into %s" %
                         (m, n, rt, full))
            source = "%mm3"
        lines += [
            "  %%e2 = tensor.empty() : %s" % full,
            "  %%y = linalg.generic {indexing_maps = [%s, %s, %s], "
            "iterator_types = [%s]} ins(%s, %%b : %s, %s) outs(%%e2 : %s) {" %
            (ident, bias_map, ident, par, source, full, tensor((n,)), full),
            "  ^bb0(%in: f32, %bias: f32, %o: f32):",
            "    %s = arith.addf %in, %bias : f32",
            "    linalg.yield %s : f32",
            "  } -> %s" % full,
        ]
        for label, start in zip("qkv", starts):
            offsets = "[0, 0, %d]" % start if three_d else "[0, %d]" % start
            sizes = "[%d, 1, %d]" % (m, PART) if three_d else "[%d, %d]" % (
                m, PART)
            strides = "[1, 1, 1]" if three_d else "[1, 1]"
            lines.append("  %%%s = tensor.extract_slice %%y%s %s %s : %s to %s"
                         % (label, offsets, sizes, strides, full, part))
        lines += [
            "  %%e3 = tensor.empty() : %s" % part,
            "  %%r = linalg.generic {indexing_maps = [%s, %s, %s, %s], "
            "iterator_types = [%s]} ins(%%q, %%k, %%v : %s, %s, %s) "
            "outs(%%e3 : %s) {" % (ident, ident, ident, ident, par, part,
                                   part, part, part),
            "  ^bb0(%a: f32, %bb: f32, %c: f32, %o: f32):",
            "    %two = arith.constant 2.0 : f32",
            "    %three = arith.constant 3.0 : f32",
            "    %b2 = arith.mulf %bb, %two : f32",
            "    %c3 = arith.mulf %c, %three : f32",
            "    %s1 = arith.addf %a, %b2 : f32",
            "    %s2 = arith.addf %s1, %c3 : f32",
            "    linalg.yield %s2 : f32",
            "  } -> %s" % part,
            "  return %%r : %s" % part,
            "}",
        ]
        program.append("\n".join(lines))
    with open(os.path.join(out, "program.mlir"), "w") as f:
        f.write("\n\n".join(program) + "\n")


if __name__ == "__main__":
    main()
