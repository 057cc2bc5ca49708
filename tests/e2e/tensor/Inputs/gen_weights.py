#!/usr/bin/env python3
# gen_weights.py - writes the rodata-weights test program: a matmul whose
# 512x512 f32 weight (1 MiB) is a constant, with its input and expected
# output as .npy files. Every value is a multiple of 1/8 and every sum is
# exact in f32, so any summation order gives the expected bits.
#
#   gen_weights.py OUT.mlir INPUT.npy EXPECTED.npy
import struct
import sys

ROWS, K, N = 4, 512, 512


def weight(i, j):
    return ((i * 7 + j * 13) % 31 - 15) / 8.0


def x(r, i):
    return float((r + i) % 5 - 2)


def write_npy(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else ""))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


def main():
    out, input_npy, expected_npy = sys.argv[1:4]
    rows = []
    for i in range(K):
        rows.append("[" + ", ".join(repr(weight(i, j)) for j in range(N)) + "]")
    with open(out, "w") as f:
        f.write("func.func @predict(%x: tensor<4x512xf32>) -> tensor<4x512xf32> {\n")
        f.write("  %w = arith.constant dense<[" + ", ".join(rows) +
                "]> : tensor<512x512xf32>\n")
        f.write("  %zero = arith.constant 0.0 : f32\n")
        f.write("  %e = tensor.empty() : tensor<4x512xf32>\n")
        f.write("  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x512xf32>) -> tensor<4x512xf32>\n")
        f.write("  %y = linalg.matmul ins(%x, %w : tensor<4x512xf32>, tensor<512x512xf32>) "
                "outs(%acc : tensor<4x512xf32>) -> tensor<4x512xf32>\n")
        f.write("  return %y : tensor<4x512xf32>\n}\n")
    write_npy(input_npy, (ROWS, K), [x(r, i) for r in range(ROWS) for i in range(K)])
    expected = []
    for r in range(ROWS):
        for j in range(N):
            expected.append(sum(x(r, i) * weight(i, j) for i in range(K)))
    write_npy(expected_npy, (ROWS, N), expected)


if __name__ == "__main__":
    main()
