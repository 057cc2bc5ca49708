#!/usr/bin/env python3
"""import_test.py - strata-compile's ONNX front door on models made here
with onnx.helper: external-data weights, a symbolic batch fixed with
--input-shape, names in the module's reflection, and the clear errors of
bad input (a truncated or corrupt file, a missing external-data file, an
initializer without its values, an unsupported op, a dynamic shape, a bad
--input-shape, an attribute named twice or not at all). Prints one line per
case and `N passed, N failed`."""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def gemm_model(batch="N", weights_external=False, folder=None):
    x = helper.make_tensor_value_info("features", TensorProto.FLOAT, [batch, 4])
    y = helper.make_tensor_value_info("scores", TensorProto.FLOAT, [batch, 3])
    w = numpy_helper.from_array(
        np.arange(12, dtype=np.float32).reshape(3, 4) / 10.0, "w")
    b = numpy_helper.from_array(np.array([1, 2, 3], np.float32), "b")
    node = helper.make_node("Gemm", ["features", "w", "b"], ["scores"],
                            name="dense", transB=1)
    graph = helper.make_graph([node], "tiny", [x], [y], [w, b])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


class Cases:
    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.passed = 0
        self.failed = 0

    def compile(self, model_path, *flags):
        return subprocess.run([self.args.strata_compile, model_path, *flags],
                              capture_output=True, text=True, timeout=120)

    def check(self, name, ok, detail=""):
        print("%s %s%s" % ("PASS" if ok else "FAIL", name,
                           (": " + detail) if detail and not ok else ""))
        if ok:
            self.passed += 1
        else:
            self.failed += 1

    def expect_error(self, name, model_path, text, *flags):
        result = self.compile(model_path, "-o", os.path.join(self.work, "x.vmfb"),
                              *flags)
        self.check(name, result.returncode != 0 and text in result.stderr and
                   "Stack dump" not in result.stderr and
                   "PLEASE submit" not in result.stderr,
                   "exit %d, stderr: %s" % (result.returncode,
                                            result.stderr.strip()[-500:]))

    def run(self):
        w = self.work
        # A symbolic batch fixed by --input-shape; weights in an external
        # file next to the model; the results against numpy.
        model = gemm_model()
        path = os.path.join(w, "tiny.onnx")
        onnx.save_model(model, path, save_as_external_data=True,
                        all_tensors_to_one_file=True, location="tiny.weights",
                        size_threshold=0)
        vmfb = os.path.join(w, "tiny.vmfb")
        result = self.compile(path, "-o", vmfb, "--input-shape=features=2x4")
        self.check("external data and --input-shape compile",
                   result.returncode == 0, result.stderr.strip())
        if result.returncode == 0:
            x = np.array([[1, 2, 3, 4], [0, -1, 0.5, 2]], np.float32)
            np.save(os.path.join(w, "x.npy"), x)
            run = subprocess.run(
                [self.args.strata_run, "--module=" + vmfb,
                 "--input=@" + os.path.join(w, "x.npy"),
                 "--output=@" + os.path.join(w, "y.npy")],
                capture_output=True, text=True, timeout=60)
            expected = x @ (np.arange(12, dtype=np.float32).reshape(3, 4) / 10.0).T + \
                np.array([1, 2, 3], np.float32)
            ok = run.returncode == 0 and np.allclose(
                np.load(os.path.join(w, "y.npy")), expected, rtol=1e-6)
            self.check("external-data model runs (main, the default function)",
                       ok, run.stderr.strip())
            dump = subprocess.run([self.args.strata_dump, vmfb],
                                  capture_output=True, text=True, timeout=60)
            self.check("reflection names the graph, its input and output",
                       "arg0.name = features" in dump.stdout and
                       "result0.name = scores" in dump.stdout and
                       "onnx.graph = tiny" in dump.stdout, dump.stdout[-800:])
        imported = self.compile(path, "--compile-to=import",
                                "--input-shape=features=2x4")
        self.check("--compile-to=import prints onnx.node ops",
                   imported.returncode == 0 and
                   'onnx.node "Gemm"' in imported.stdout and
                   'node_name = "dense"' in imported.stdout,
                   imported.stderr.strip())
        # The same model without the flag: the batch stays dynamic, one
        # module for every batch, its name in the reflection.
        dynamic = os.path.join(w, "tiny_dynamic.vmfb")
        result = self.compile(path, "-o", dynamic)
        self.check("a dynamic batch compiles without --input-shape",
                   result.returncode == 0, result.stderr.strip())
        if result.returncode == 0:
            for rows in (1, 3):
                x = np.arange(rows * 4, dtype=np.float32).reshape(rows, 4)
                np.save(os.path.join(w, "xd.npy"), x)
                run = subprocess.run(
                    [self.args.strata_run, "--module=" + dynamic,
                     "--input=@" + os.path.join(w, "xd.npy"),
                     "--output=@" + os.path.join(w, "yd.npy")],
                    capture_output=True, text=True, timeout=60)
                expected = x @ (np.arange(12, dtype=np.float32)
                                .reshape(3, 4) / 10.0).T + \
                    np.array([1, 2, 3], np.float32)
                ok = run.returncode == 0 and np.allclose(
                    np.load(os.path.join(w, "yd.npy")), expected, rtol=1e-6)
                self.check("the dynamic-batch module runs %d rows" % rows, ok,
                           run.stderr.strip())
            dump = subprocess.run([self.args.strata_dump, dynamic],
                                  capture_output=True, text=True, timeout=60)
            self.check("reflection names the symbolic batch",
                       "arg0.dims = N,4" in dump.stdout, dump.stdout[-800:])
        self.expect_error("--input-shape of an unknown input", path,
                          "--input-shape names 'nope', which is not an input "
                          "of the graph (its inputs: 'features')",
                          "--input-shape=nope=1x4")
        self.expect_error("--input-shape of the wrong rank", path,
                          "--input-shape for 'features' has rank 3, but the "
                          "model declares rank 2",
                          "--input-shape=features=1x2x4")
        self.expect_error("a malformed --input-shape", path,
                          "is not a dimension", "--input-shape=features=2xq")
        # The external-data file gone.
        os.rename(os.path.join(w, "tiny.weights"), os.path.join(w, "gone"))
        self.expect_error("a missing external-data file names the tensor",
                          path, "initializer 'w': cannot read its external "
                          "data file", "--input-shape=features=2x4")
        # Truncated and corrupt files.
        whole = gemm_model(batch=2).SerializeToString()
        for name, data in [("truncated", whole[: len(whole) // 2]),
                           ("corrupt", b"\x08\x07\x12\xff\xff\xff\xff\x0f"
                                       + bytes(range(256)))]:
            bad = os.path.join(w, name + ".onnx")
            with open(bad, "wb") as f:
                f.write(data)
            self.expect_error("a %s file" % name, bad,
                              "not a valid ONNX model: the protobuf does "
                              "not parse")
        # An initializer whose dims ask for 2^37 floats but that holds no
        # value: refused before any buffer of that size is made (it
        # aborted on bad_alloc).
        huge = TensorProto()
        huge.name = "w"
        huge.data_type = TensorProto.FLOAT
        huge.dims.extend([1 << 37])
        graph = helper.make_graph(
            [helper.make_node("Add", ["x0", "x0"], ["y0"])], "g",
            [helper.make_tensor_value_info("x0", TensorProto.FLOAT, [2])],
            [helper.make_tensor_value_info("y0", TensorProto.FLOAT, [2])],
            [huge])
        empty = os.path.join(w, "empty_initializer.onnx")
        onnx.save(helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 17)]), empty)
        self.expect_error("an initializer without its values", empty,
                          "initializer 'w' holds 0 values for 137438953472 "
                          "elements")
        # An op type without a lowering names the node.
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
        graph = helper.make_graph(
            [helper.make_node("Frobnicate", ["x"], ["y"], name="mystery")],
            "g", [x], [y])
        odd = os.path.join(w, "odd.onnx")
        onnx.save(helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 17)]), odd)
        self.expect_error("an unsupported op names the node", odd,
                          "onnx node 'mystery' (Frobnicate, opset 17): the op "
                          "type is not supported")
        # A data-dependent shape names the input it needs.
        s = helper.make_tensor_value_info("s", TensorProto.INT64, [2])
        z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 2])
        graph = helper.make_graph(
            [helper.make_node("Reshape", ["x", "s"], ["z"], name="r")],
            "g", [x, s], [z])
        reshape = os.path.join(w, "reshape.onnx")
        onnx.save(helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 17)]), reshape)
        result = self.compile(reshape, "-o", os.path.join(w, "reshape.vmfb"))
        self.check("a shape given as data at run time compiles",
                   result.returncode == 0, result.stderr.strip())
        # A shape of floats names the input.
        sf = helper.make_tensor_value_info("s", TensorProto.FLOAT, [2])
        graph = helper.make_graph(
            [helper.make_node("Reshape", ["x", "s"], ["z"], name="r")],
            "g", [x, sf], [z])
        onnx.save(helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 17)]), reshape)
        self.expect_error("a shape that is not integers names the input",
                          reshape,
                          "onnx node 'r' (Reshape, opset 17): input 1 (shape) "
                          "must be an integer tensor of rank 0 or 1")
        # A node's attributes are a dictionary: names are unique and not
        # empty (MLIR asserts both; a release build kept either value).
        for case, names, text in [
                ("twice", ["alpha", "alpha"],
                 "node 'lr' (LeakyRelu) has attribute 'alpha' twice"),
                ("without a name", [""],
                 "node 'lr' (LeakyRelu) has an attribute without a name")]:
            node = helper.make_node("LeakyRelu", ["x"], ["y"], name="lr")
            for name in names:
                attr = node.attribute.add()
                attr.name = name
                attr.type = onnx.AttributeProto.FLOAT
                attr.f = 0.5
            graph = helper.make_graph([node], "g", [x], [y])
            path = os.path.join(w, "attrs.onnx")
            with open(path, "wb") as f:
                f.write(helper.make_model(
                    graph, opset_imports=[helper.make_opsetid("", 17)])
                    .SerializeToString())
            self.expect_error("an attribute " + case, path, text)
        # --input-type=mlir on an ONNX file is parsed as MLIR and fails
        # cleanly; --input-type=onnx on MLIR text does too.
        self.expect_error("--input-type=onnx on MLIR text", os.path.join(
            self.args.source_root, "samples", "mlp", "mlp.mlir"),
            "not a valid ONNX model", "--input-type=onnx")
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 0 if self.failed == 0 else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strata-compile", required=True)
    parser.add_argument("--strata-run", required=True)
    parser.add_argument("--strata-dump", required=True)
    parser.add_argument("--source-root", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        return Cases(args, work).run()


if __name__ == "__main__":
    sys.exit(main())
