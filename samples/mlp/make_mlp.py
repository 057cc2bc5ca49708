#!/usr/bin/env python3
"""make_mlp.py - writes the MLP sample: mlp.mlir (a 2-layer MLP with its
weights as constants), input.npy (a batch of 4 inputs) and expected.npy
(the softmax probabilities, computed here in plain Python).

  samples/mlp/make_mlp.py [OUT_DIR]     (default: this folder)

The weights are a fixed function of their indices, so the files are the
same on every run; mlp.mlir and input.npy are committed, and this script
is how they were made.
"""
import math
import os
import struct
import sys

BATCH, IN, HIDDEN, OUT = 4, 16, 32, 10


def weight(seed, i, j):
    return round(math.sin(seed * 7.1 + i * 1.3 + j * 0.7) * 0.25, 4)


def matrix(seed, rows, cols):
    return [[weight(seed, i, j) for j in range(cols)] for i in range(rows)]


def dense(values):
    if isinstance(values[0], list):
        return "[" + ", ".join(dense(v) for v in values) + "]"
    return "[" + ", ".join(repr(float(v)) for v in values) + "]"


def write_npy(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "".join("%d, " % d for d in shape))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.abspath(__file__))
    w1, b1 = matrix(1, IN, HIDDEN), matrix(2, 1, HIDDEN)[0]
    w2, b2 = matrix(3, HIDDEN, OUT), matrix(4, 1, OUT)[0]
    x = [[f32(math.cos(b * 0.9 + i * 0.37)) for i in range(IN)]
         for b in range(BATCH)]

    # The reference, in double precision.
    h = [[max(0.0, sum(x[b][k] * w1[k][j] for k in range(IN)) + b1[j])
          for j in range(HIDDEN)] for b in range(BATCH)]
    logits = [[sum(h[b][k] * w2[k][j] for k in range(HIDDEN)) + b2[j]
               for j in range(OUT)] for b in range(BATCH)]
    probs = []
    for row in logits:
        m = max(row)
        e = [math.exp(v - m) for v in row]
        s = sum(e)
        probs.append([v / s for v in e])

    with open(os.path.join(out, "mlp.mlir"), "w") as f:
        f.write(TEMPLATE.format(
            B=BATCH, I=IN, H=HIDDEN, O=OUT,
            w1=dense(w1), b1=dense(b1), w2=dense(w2), b2=dense(b2)))
    write_npy(os.path.join(out, "input.npy"), (BATCH, IN),
              [v for row in x for v in row])
    write_npy(os.path.join(out, "expected.npy"), (BATCH, OUT),
              [v for row in probs for v in row])


TEMPLATE = """\
// mlp.mlir - a small MLP: softmax(relu(x * W1 + b1) * W2 + b2) over a batch
// of {B} inputs of {I} features, {H} hidden units, {O} classes. Written by
// make_mlp.py; the weights are constants of the program.
module @mlp {{
  func.func @predict(%x: tensor<{B}x{I}xf32>) -> tensor<{B}x{O}xf32> {{
    %w1 = arith.constant dense<{w1}> : tensor<{I}x{H}xf32>
    %b1 = arith.constant dense<{b1}> : tensor<{H}xf32>
    %w2 = arith.constant dense<{w2}> : tensor<{H}x{O}xf32>
    %b2 = arith.constant dense<{b2}> : tensor<{O}xf32>
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32

    // Layer 1: matmul, bias, relu.
    %e1 = tensor.empty() : tensor<{B}x{H}xf32>
    %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<{B}x{H}xf32>) -> tensor<{B}x{H}xf32>
    %m1 = linalg.matmul ins(%x, %w1 : tensor<{B}x{I}xf32>, tensor<{I}x{H}xf32>) outs(%f1 : tensor<{B}x{H}xf32>) -> tensor<{B}x{H}xf32>
    %bb1 = linalg.broadcast ins(%b1 : tensor<{H}xf32>) outs(%e1 : tensor<{B}x{H}xf32>) dimensions = [0]
    %a1 = linalg.add ins(%m1, %bb1 : tensor<{B}x{H}xf32>, tensor<{B}x{H}xf32>) outs(%e1 : tensor<{B}x{H}xf32>) -> tensor<{B}x{H}xf32>
    %h = linalg.max ins(%a1, %f1 : tensor<{B}x{H}xf32>, tensor<{B}x{H}xf32>) outs(%e1 : tensor<{B}x{H}xf32>) -> tensor<{B}x{H}xf32>

    // Layer 2: matmul, bias.
    %e2 = tensor.empty() : tensor<{B}x{O}xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<{B}x{O}xf32>) -> tensor<{B}x{O}xf32>
    %m2 = linalg.matmul ins(%h, %w2 : tensor<{B}x{H}xf32>, tensor<{H}x{O}xf32>) outs(%f2 : tensor<{B}x{O}xf32>) -> tensor<{B}x{O}xf32>
    %bb2 = linalg.broadcast ins(%b2 : tensor<{O}xf32>) outs(%e2 : tensor<{B}x{O}xf32>) dimensions = [0]
    %logits = linalg.add ins(%m2, %bb2 : tensor<{B}x{O}xf32>, tensor<{B}x{O}xf32>) outs(%e2 : tensor<{B}x{O}xf32>) -> tensor<{B}x{O}xf32>

    // Softmax over each row: exp(x - max) / sum(exp(x - max)).
    %er = tensor.empty() : tensor<{B}xf32>
    %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<{B}xf32>) -> tensor<{B}xf32>
    %max = linalg.reduce ins(%logits : tensor<{B}x{O}xf32>) outs(%fm : tensor<{B}xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {{
        %m = arith.maximumf %in, %acc : f32
        linalg.yield %m : f32
      }}
    %maxb = linalg.broadcast ins(%max : tensor<{B}xf32>) outs(%e2 : tensor<{B}x{O}xf32>) dimensions = [1]
    %shifted = linalg.sub ins(%logits, %maxb : tensor<{B}x{O}xf32>, tensor<{B}x{O}xf32>) outs(%e2 : tensor<{B}x{O}xf32>) -> tensor<{B}x{O}xf32>
    %exp = linalg.exp ins(%shifted : tensor<{B}x{O}xf32>) outs(%e2 : tensor<{B}x{O}xf32>) -> tensor<{B}x{O}xf32>
    %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<{B}xf32>) -> tensor<{B}xf32>
    %sum = linalg.reduce ins(%exp : tensor<{B}x{O}xf32>) outs(%fs : tensor<{B}xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {{
        %s = arith.addf %in, %acc : f32
        linalg.yield %s : f32
      }}
    %sumb = linalg.broadcast ins(%sum : tensor<{B}xf32>) outs(%e2 : tensor<{B}x{O}xf32>) dimensions = [1]
    %probs = linalg.div ins(%exp, %sumb : tensor<{B}x{O}xf32>, tensor<{B}x{O}xf32>) outs(%e2 : tensor<{B}x{O}xf32>) -> tensor<{B}x{O}xf32>
    return %probs : tensor<{B}x{O}xf32>
  }}
}}
"""

if __name__ == "__main__":
    main()
