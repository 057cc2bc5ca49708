#!/usr/bin/env python3
"""layout.py - bench/onnx: a 3x3 convolution written in NCHW in an ONNX
model (what PyTorch exports) beside the same convolution written in NHWC
linalg (bench/conv/conv.mlir), both compiled by strata-compile and timed by
strata-benchmark in interleaved rounds with 1 and 2 workers. The ONNX form
runs in NHWC between a transpose in and out; the ratio shows what that
costs. Needs Debian's python3-onnx.

  /usr/bin/python3 bench/onnx/layout.py [--build=DIR] [--rounds=N]
"""
import argparse
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "common"))
import kernel_bench  # noqa: E402

CASES = [
    # name, NHWC function in conv.mlir, output H, W, channels, filters
    ("1x56x56x64 -> 64", "conv56", 56, 56, 64, 64),
    ("1x28x28x128 -> 128", "conv28", 28, 28, 128, 128),
]


def conv_model(path, h, w, c, f):
    # The NHWC program takes the padded input; so does this one (no pads).
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, h + 2, w + 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, f, h, w])
    weight = numpy_helper.from_array(
        np.full((f, c, 3, 3), 0.25, np.float32), "w")
    node = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[3, 3])
    graph = helper.make_graph([node], "conv", [x], [y], [weight])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repetitions", type=int, default=10)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        nhwc = os.path.join(tmp, "conv.vmfb")
        kernel_bench.compile_program(
            args.build, os.path.join(ROOT, "bench", "conv", "conv.mlir"), nhwc)
        for name, function, h, w, c, f in CASES:
            model = os.path.join(tmp, function + ".onnx")
            conv_model(model, h, w, c, f)
            module = os.path.join(tmp, function + "_onnx.vmfb")
            kernel_bench.compile_program(args.build, model, module)
            nhwc_inputs = ["1x%dx%dx%dxf32=0.5" % (h + 2, w + 2, c),
                           "3x3x%dx%dxf32=0.25" % (c, f)]
            nchw_inputs = ["1x%dx%dx%dxf32=0.5" % (c, h + 2, w + 2)]

            def run(module_path, fn, inputs, workers):
                return lambda: kernel_bench.strata_median_ms(
                    args.build, module_path, fn, inputs, workers,
                    args.repetitions)

            medians = kernel_bench.interleave(
                args.rounds,
                [run(module, "main", nchw_inputs, 1),
                 run(nhwc, function, nhwc_inputs, 1),
                 run(module, "main", nchw_inputs, 2),
                 run(nhwc, function, nhwc_inputs, 2)])
            rows.append((name, medians))
    print("bench/onnx/layout: %d interleaved rounds, medians; load average %s"
          % (args.rounds, kernel_bench.load_average()))
    print("%-20s %8s %12s %12s %8s" % ("conv 3x3", "workers", "ONNX NCHW ms",
                                       "linalg NHWC ms", "ratio"))
    for name, (o1, n1, o2, n2) in rows:
        print("%-20s %8d %12.3f %12.3f %8.2f" % (name, 1, o1, n1, o1 / n1))
        print("%-20s %8d %12.3f %12.3f %8.2f" % (name, 2, o2, n2, o2 / n2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
