#!/usr/bin/env python3
# gen_dynamic_products.py - writes the dynamic-products test program:
# matmuls whose rows are dynamic against a constant weight (packed at
# compile time, read in place by the microkernel), and a batch_matmul whose
# rows and depth are dynamic (attention's scores x values over a sequence),
# which the code generator cuts into bounded depth tiles that accumulate.
# Every value is a small multiple of 1/8 and every sum is exact in f32, so
# any summation order gives the expected bits.
#
#   gen_dynamic_products.py OUT_DIR
#
# writes OUT_DIR/program.mlir and, per case NAME, NAME.<input>.npy and
# NAME.expected.npy. Plain Python: the test's python3 may have no numpy.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_packed_weights import Array, dense, values  # noqa: E402
from gen_weights import write_npy  # noqa: E402

K, N = 96, 160  # the constant weight: 5 panels of 32 (3 and 10 of AVX2's)
HEADS, DV = 3, 64

PROGRAM = """
func.func @rows(%x: tensor<?x{k}xf32>) -> tensor<?x{n}xf32> {{
  %c0 = arith.constant 0 : index
  %w = arith.constant {w} : tensor<{k}x{n}xf32>
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x{k}xf32>
  %e = tensor.empty(%m) : tensor<?x{n}xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x{n}xf32>) -> tensor<?x{n}xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x{k}xf32>, tensor<{k}x{n}xf32>) outs(%acc : tensor<?x{n}xf32>) -> tensor<?x{n}xf32>
  return %y : tensor<?x{n}xf32>
}}
func.func @depth(%s: tensor<{h}x?x?xf32>, %v: tensor<{h}x?x{dv}xf32>) -> tensor<{h}x?x{dv}xf32> {{
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %s, %c1 : tensor<{h}x?x?xf32>
  %e = tensor.empty(%m) : tensor<{h}x?x{dv}xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<{h}x?x{dv}xf32>) -> tensor<{h}x?x{dv}xf32>
  %y = linalg.batch_matmul ins(%s, %v : tensor<{h}x?x?xf32>, tensor<{h}x?x{dv}xf32>) outs(%acc : tensor<{h}x?x{dv}xf32>) -> tensor<{h}x?x{dv}xf32>
  return %y : tensor<{h}x?x{dv}xf32>
}}
"""


def product(a, b, batch, m, k, n):
    out = []
    for h in range(batch):
        for r in range(m):
            for j in range(n):
                out.append(sum(a.data[(h * m + r) * k + i] *
                               b.data[(h * k + i) * n + j] for i in range(k)))
    return out


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    w = values((K, N), 2)
    with open(os.path.join(out, "program.mlir"), "w") as f:
        f.write(PROGRAM.format(k=K, n=N, w=dense(w), h=HEADS, dv=DV))
    # Rows: none, one (a decoder's token), a few, and more than one 64-row
    # tile.
    for m in (0, 1, 5, 70):
        x = values((m, K), 1)
        write_npy(os.path.join(out, "rows%d.x.npy" % m), x.shape, x.data)
        write_npy(os.path.join(out, "rows%d.expected.npy" % m), (m, N),
                  product(x, w, 1, m, K, N))
    # Depths: one, the 256-deep tile and one more (a partial second tile),
    # three tiles; with one row and with 70.
    for m, k in ((1, 1), (1, 257), (70, 600), (2, 256)):
        s = values((HEADS, m, k), 3)
        v = values((HEADS, k, DV), 4)
        name = "depth%dx%d" % (m, k)
        write_npy(os.path.join(out, name + ".s.npy"), s.shape, s.data)
        write_npy(os.path.join(out, name + ".v.npy"), v.shape, v.data)
        write_npy(os.path.join(out, name + ".expected.npy"), (HEADS, m, DV),
                  product(s, v, HEADS, m, k, DV))


if __name__ == "__main__":
    main()
