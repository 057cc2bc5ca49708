#!/usr/bin/env python3
"""sequence_test.py - ONNX sequences and optionals (lists on the host) in
models made with onnx.helper, beyond ONNX's node tests: SplitToSequence and
ConcatFromSequence (which ONNX 1.12 has no node test of; SplitToSequence
also of dynamic inputs and by run-time splits), negative positions,
SequenceErase, Optional of a graph value, sequences of unsigned tensors,
a Loop carrying a sequence input, sequences given to strata-run as .npz
files and 'list:N', and the errors of positions out of range, splits
that do not add up, empty sequences, elements of unknown rank, sequences
fed to tensor ops and to Scan, and nested sequences. Compared with numpy;
prints one line per case and `N passed, N failed`."""

import os
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper

from model_cases import Cases, arguments, model

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def seq_info(name, elem=F, shape=None):
    return helper.make_value_info(
        name, helper.make_sequence_type_proto(
            helper.make_tensor_type_proto(elem, shape)))


def opt_info(name, elem=F, shape=None):
    return helper.make_value_info(
        name, helper.make_optional_type_proto(
            helper.make_tensor_type_proto(elem, shape)))


def tensor_info(name, elem=F, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


class Runner:
    def __init__(self, cases, args, work):
        self.cases = cases
        self.args = args
        self.work = work
        self.count = 0

    def run(self, name, m, inputs, expected, error=None, device=None):
        """Compiles and runs `m`. An input that is a Python list is a
        sequence (an .npz file), None an empty optional; an expected output
        that is a list is read back from an .npz. With `error`, the run must
        fail with that text on stderr."""
        self.count += 1
        stem = os.path.join(self.work, "s%d" % self.count)
        path = self.cases.save(m, "s%d" % self.count)
        vmfb = stem + ".vmfb"
        result = self.cases.compile(path, "-o", vmfb)
        if result.returncode != 0:
            return self.cases.check(name, False, "compile: " +
                                    result.stderr.strip()[-1200:])
        cmd = [self.args.strata_run, "--module=" + vmfb]
        if device:
            cmd.append("--device=" + device)
        for i, value in enumerate(inputs):
            if value is None:
                cmd.append("--input=none")
            elif isinstance(value, list):
                file = "%s.in%d.npz" % (stem, i)
                np.savez(file, *value)
                cmd.append("--input=@" + file)
            else:
                file = "%s.in%d.npy" % (stem, i)
                np.save(file, value)
                cmd.append("--input=@" + file)
        outs = []
        for i, value in enumerate(expected):
            file = "%s.out%d.%s" % (stem, i, "npz" if isinstance(value, list)
                                    else "npy")
            outs.append(file)
            cmd.append("--output=@" + file)
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if error is not None:
            return self.cases.check(name, run.returncode == 1 and
                                    error in run.stderr and
                                    "Stack dump" not in run.stderr,
                                    "exit %d, stderr %r" % (run.returncode,
                                                            run.stderr))
        if run.returncode != 0:
            return self.cases.check(name, False, "run: " + run.stderr.strip())
        for i, (want, file) in enumerate(zip(expected, outs)):
            if isinstance(want, list):
                with np.load(file) as z:
                    got = [z[k] for k in z.files]
            else:
                got = [np.load(file)]
                want = [want]
            if len(got) != len(want):
                return self.cases.check(name, False, "output %d: %d arrays, "
                                        "expected %d" % (i, len(got),
                                                         len(want)))
            for k, (g, w) in enumerate(zip(got, want)):
                if g.dtype != w.dtype or g.shape != w.shape or \
                        not np.allclose(g, w):
                    return self.cases.check(
                        name, False, "output %d element %d: %s %s %s, "
                        "expected %s %s %s" % (i, k, g.dtype, g.shape, g,
                                               w.dtype, w.shape, w))
        return self.cases.check(name, True)


def run(cases, args, work):
    r = Runner(cases, args, work)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 4)).astype(np.float32)

    # Split into rows (keepdims=0) and stack them back as columns.
    m = model([helper.make_node("SplitToSequence", ["x"], ["s"], axis=0,
                                keepdims=0),
               helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=1,
                                new_axis=1),
               helper.make_node("SequenceLength", ["s"], ["n"])],
              [tensor_info("x", F, [3, 4])],
              [tensor_info("y", F, [4, 3]), tensor_info("n", I64, [])])
    for device in ("local-task", "local-sync"):
        r.run("SplitToSequence rows, ConcatFromSequence new_axis (%s)"
              % device, m, [x], [x.T.copy(), np.array(3, np.int64)],
              device=device)

    # Split sizes along axis 1, the sequence as the output.
    split = np.array([1, 3], np.int64)
    m = model([helper.make_node("SplitToSequence", ["x", "split"], ["s"],
                                axis=1)],
              [tensor_info("x", F, [3, 4])], [seq_info("s", F, [3, None])],
              [helper.make_tensor("split", I64, [2], split)])
    r.run("SplitToSequence sizes [1, 3] along axis 1", m, [x],
          [[x[:, :1].copy(), x[:, 1:].copy()]])

    # Concatenate a sequence input whose elements differ along the axis.
    a = rng.standard_normal((2, 1)).astype(np.float32)
    b = rng.standard_normal((2, 3)).astype(np.float32)
    m = model([helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=-1)],
              [seq_info("s", F, [2, "W"])], [tensor_info("y", F, [2, None])])
    r.run("ConcatFromSequence of a sequence input (widths 1 and 3)", m,
          [[a, b]], [np.concatenate([a, b], axis=1)])
    r.run("ConcatFromSequence of one element", m, [[b]], [b])
    r.run("ConcatFromSequence of an empty sequence fails", m, [[]], [b],
          error="onnx node (ConcatFromSequence, opset 17): the sequence is "
                "empty: there is nothing to concatenate (the output's shape "
                "comes from the elements, and ONNX defines no output for an "
                "empty sequence)")

    # SequenceAt(-1), SequenceErase(0), SequenceConstruct of two shapes.
    c = rng.standard_normal((5,)).astype(np.float32)
    m = model([helper.make_node("SequenceAt", ["s", "last"], ["t"]),
               helper.make_node("SequenceErase", ["s", "zero"], ["rest"]),
               helper.make_node("SequenceConstruct", ["t", "t"], ["pair"]),
               helper.make_node("SequenceLength", ["rest"], ["n"])],
              [seq_info("s", F, [None]), tensor_info("last", I64, []),
               tensor_info("zero", I64, [])],
              [tensor_info("t", F, [None]), seq_info("rest", F, [None]),
               seq_info("pair", F, [None]), tensor_info("n", I64, [])])
    d = c[:2].copy()
    r.run("SequenceAt -1, SequenceErase 0, SequenceConstruct", m,
          [[c, d], np.array(-1, np.int64), np.array(0, np.int64)],
          [d, [d], [d, d], np.array(1, np.int64)])
    r.run("SequenceAt past the end fails", m,
          [[c, d], np.array(2, np.int64), np.array(0, np.int64)],
          [d, [d], [d, d], np.array(1, np.int64)],
          error="the position is outside the sequence (it may be -n to n-1 "
                "for n elements)")
    r.run("SequenceErase below -n fails", m,
          [[c, d], np.array(0, np.int64), np.array(-3, np.int64)],
          [d, [d], [d, d], np.array(1, np.int64)],
          error="the position is outside the sequence")

    # A list built in a loop from SequenceEmpty, then concatenated (as
    # PyTorch exports appending to a list and torch.cat): the elements'
    # type comes from what is inserted, so ConcatFromSequence can read them.
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]),
         helper.make_node("Unsqueeze", ["i", "axes"], ["i1"]),
         helper.make_node("Cast", ["i1"], ["f"], to=F),
         helper.make_node("Add", ["f", "x"], ["row"]),
         helper.make_node("SequenceInsert", ["acc", "row"], ["acc_out"])],
        "body", [tensor_info("i", I64, []),
                 tensor_info("c", TensorProto.BOOL, []),
                 seq_info("acc", F, None)],
        [tensor_info("c_out", TensorProto.BOOL, []),
         seq_info("acc_out", F, None)],
        [helper.make_tensor("axes", I64, [1], [0])])
    m = model([helper.make_node("SequenceEmpty", [], ["empty"], dtype=F),
               helper.make_node("Loop", ["n", "", "empty"], ["rows"],
                                body=body),
               helper.make_node("ConcatFromSequence", ["rows"], ["y"],
                                axis=0)],
              [tensor_info("n", I64, []), tensor_info("x", F, [2])],
              [tensor_info("y", F, [None])])
    v = np.array([0.5, -1.0], np.float32)
    r.run("SequenceEmpty, a Loop of SequenceInsert, ConcatFromSequence", m,
          [np.array(3, np.int64), v],
          [np.concatenate([v + k for k in range(3)]).astype(np.float32)])
    r.run("the same loop run 0 times: nothing to concatenate", m,
          [np.array(0, np.int64), v], [v],
          error="the sequence is empty: there is nothing to concatenate")

    # Optionals: of a graph value, and an optional graph input.
    m = model([helper.make_node("OptionalHasElement", ["o"], ["has"]),
               helper.make_node("Optional", ["x"], ["wrapped"]),
               helper.make_node("OptionalGetElement", ["wrapped"], ["back"])],
              [opt_info("o", F, [3, 4]), tensor_info("x", F, [3, 4])],
              [tensor_info("has", TensorProto.BOOL, []),
               tensor_info("back", F, [3, 4])])
    r.run("OptionalHasElement of None, Optional then OptionalGetElement", m,
          [None, x], [np.array(False), x])
    r.run("OptionalHasElement of a value", m, [x, x], [np.array(True), x])
    m = model([helper.make_node("OptionalGetElement", ["o"], ["v"])],
              [opt_info("o", F, [2])], [tensor_info("v", F, [2])])
    r.run("OptionalGetElement of None fails", m, [None],
          [np.zeros(2, np.float32)], error="the optional is empty")

    # strata-run's list:N spelling of the same sequence input.
    m = model([helper.make_node("SequenceLength", ["s"], ["n"])],
              [seq_info("s", I64, None)], [tensor_info("n", I64, [])])
    path = cases.save(m, "listn")
    vmfb = path[:-5] + ".vmfb"
    cases.compile(path, "-o", vmfb)
    run = subprocess.run([args.strata_run, "--module=" + vmfb,
                          "--input=list:2", "--input=2xi64=1 2",
                          "--input=i64=3"],
                         capture_output=True, text=True, timeout=60)
    cases.check("list:N input, elements of any rank",
                run.returncode == 0 and run.stdout == "i64=2\n",
                run.stdout + run.stderr)
    run = subprocess.run([args.strata_run, "--module=" + vmfb,
                          "--input=list:1", "--input=2xf32=1 2"],
                         capture_output=True, text=True, timeout=60)
    cases.check("an element of the wrong type is refused",
                run.returncode == 1 and
                "element 0 of argument 0 of module.main is a *xi64 tensor, "
                "not 2xf32" in run.stderr, run.stderr)

    # A sequence of uint8 through strata-run's text forms: printed unsigned.
    u8_seq = seq_info("s", TensorProto.UINT8, [None])
    m = model([helper.make_node("Identity", ["s"], ["o"])], [u8_seq],
              [seq_info("o", TensorProto.UINT8, [None])])
    path = cases.save(m, "u8list")
    vmfb = path[:-5] + ".vmfb"
    cases.compile(path, "-o", vmfb)
    run = subprocess.run([args.strata_run, "--module=" + vmfb,
                          "--input=list:2", "--input=3xui8=200 1 255",
                          "--input=1xui8=128"],
                         capture_output=True, text=True, timeout=60)
    cases.check("a list of uint8 printed unsigned",
                run.returncode == 0 and
                run.stdout == "list<2>[3xui8=200 1 255, 1xui8=128]\n",
                run.stdout + run.stderr)

    # Compile-time errors.
    cases.expect_error("a sequence fed to a tensor op", model(
        [helper.make_node("Relu", ["s"], ["y"], name="relu")],
        [seq_info("s", F, [2])], [tensor_info("y", F, [2])]),
        "onnx node 'relu' (Relu, opset 17): input 0 is a sequence or optional "
        "(!util.list<tensor<2xf32>>); the op type takes tensors")
    cases.expect_error("SequenceAt of elements of unknown rank", model(
        [helper.make_node("SequenceAt", ["s", "i"], ["y"], name="at")],
        [seq_info("s", F, None), tensor_info("i", I64, [])],
        [tensor_info("y", F, None)]),
        "onnx node 'at' (SequenceAt, opset 17): the sequence's elements are "
        "tensor<*xf32>, of no known rank; declare the sequence's element "
        "shape in the model")
    cases.expect_error("SplitToSequence sizes that do not add up", model(
        [helper.make_node("SplitToSequence", ["x", "split"], ["s"], axis=1,
                          name="split")],
        [tensor_info("x", F, [3, 4])], [seq_info("s", F, [3, None])],
        [helper.make_tensor("split", I64, [2], [1, 2])]),
        "onnx node 'split' (SplitToSequence, opset 17): the split's sizes add "
        "up to 3; the axis has 4")

    # SplitToSequence of a dynamic input and with run-time splits.
    x = rng.standard_normal((3, 7)).astype(np.float32)
    m = model([helper.make_node("SplitToSequence", ["x"], ["s"], axis=1,
                                keepdims=0, name="rows"),
               helper.make_node("SequenceLength", ["s"], ["n"])],
              [tensor_info("x", F, [3, "W"])],
              [seq_info("s", F, [3]), tensor_info("n", I64, [])])
    for device in ("local-task", "local-sync"):
        r.run("SplitToSequence of a dynamic axis, keepdims=0 (%s)" % device,
              m, [x], [[x[:, k].copy() for k in range(7)],
                       np.array(7, np.int64)], device=device)
    r.run("SplitToSequence of a dynamic axis of length 0", m,
          [np.zeros((3, 0), np.float32)], [[], np.array(0, np.int64)])
    m = model([helper.make_node("SplitToSequence", ["x"], ["s"], axis=0,
                                name="keep")],
              [tensor_info("x", F, ["H", 7])], [seq_info("s", F, [1, 7])])
    r.run("SplitToSequence of a dynamic axis, keepdims=1", m, [x],
          [[x[k:k + 1].copy() for k in range(3)]])
    m = model([helper.make_node("SplitToSequence", ["x", "split"], ["s"],
                                axis=1, name="chunks"),
               helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=1)],
              [tensor_info("x", F, [3, "W"]), tensor_info("split", I64, [])],
              [seq_info("s", F, [3, None]), tensor_info("y", F, [3, None])])
    for chunk in (3, 7, 10, 1):
        want = [x[:, k:k + chunk].copy() for k in range(0, 7, chunk)]
        r.run("SplitToSequence by a run-time scalar %d (7 columns)" % chunk,
              m, [x, np.array(chunk, np.int64)], [want, x])
    r.run("SplitToSequence by a run-time scalar 0 fails", m,
          [x, np.array(0, np.int64)], [[x], x],
          error="onnx node 'chunks' (SplitToSequence, opset 17): the split "
                "(a scalar, the size of each element) is not positive")
    i32 = TensorProto.INT32
    m = model([helper.make_node("SplitToSequence", ["x", "split"], ["s"],
                                axis=-1, keepdims=0, name="sizes")],
              [tensor_info("x", F, [3, "W"]), tensor_info("split", i32, [3])],
              [seq_info("s", F, [3, None])])
    sizes = np.array([2, 0, 5], np.int32)
    r.run("SplitToSequence by run-time sizes [2, 0, 5] (int32, keepdims "
          "ignored)", m, [x, sizes],
          [[x[:, :2].copy(), x[:, 2:2].copy(), x[:, 2:].copy()]])
    r.run("SplitToSequence sizes that do not add up fail at run time", m,
          [x, np.array([2, 2, 2], np.int32)], [[x]],
          error="onnx node 'sizes' (SplitToSequence, opset 17): the split's "
                "sizes do not add up to the length of axis 1 of the input")
    r.run("SplitToSequence sizes past the axis fail at run time", m,
          [x, np.array([8, 0, 0], np.int32)], [[x]],
          error="the split's sizes do not add up to the length of axis 1")
    r.run("SplitToSequence negative sizes fail at run time", m,
          [x, np.array([9, -2, 0], np.int32)], [[x]],
          error="onnx node 'sizes' (SplitToSequence, opset 17): the split "
                "has a negative size")
    # The sizes computed by a kernel (Abs) from a graph input.
    m = model([helper.make_node("Abs", ["split"], ["pos"]),
               helper.make_node("SplitToSequence", ["x", "pos"], ["s"],
                                axis=0)],
              [tensor_info("x", F, [3, 7]), tensor_info("split", I64, [2])],
              [seq_info("s", F, [None, 7])])
    r.run("SplitToSequence of a static input by computed sizes", m,
          [x, np.array([-1, 2], np.int64)], [[x[:1].copy(), x[1:].copy()]])

    # A static axis longer than what is sliced at compile time (4096): the
    # host loop makes the 5000 elements.
    long = rng.standard_normal((5000,)).astype(np.float32)
    m = model([helper.make_node("SplitToSequence", ["x"], ["s"], axis=0,
                                keepdims=0),
               helper.make_node("SequenceLength", ["s"], ["n"]),
               helper.make_node("SequenceAt", ["s", "i"], ["t"])],
              [tensor_info("x", F, [5000]), tensor_info("i", I64, [])],
              [tensor_info("n", I64, []), tensor_info("t", F, [])])
    r.run("SplitToSequence into 5000 elements (a host loop)", m,
          [long, np.array(4321, np.int64)],
          [np.array(5000, np.int64), np.array(long[4321])])
    # A uint8 input of a dynamic axis split at run time stays uint8.
    m = model([helper.make_node("SplitToSequence", ["x", "split"], ["s"],
                                axis=0)],
              [tensor_info("x", TensorProto.UINT8, ["N"]),
               tensor_info("split", I64, [])],
              [seq_info("s", TensorProto.UINT8, [None])])
    bytes_in = np.array([255, 0, 128, 7, 200], np.uint8)
    r.run("SplitToSequence of a dynamic uint8 input by a run-time scalar", m,
          [bytes_in, np.array(2, np.int64)],
          [[bytes_in[0:2].copy(), bytes_in[2:4].copy(), bytes_in[4:].copy()]])

    # Sequences of unsigned tensors, in and out: the values stay unsigned.
    U8 = TensorProto.UINT8
    U16 = TensorProto.UINT16
    u = np.array([[1, 200, 255], [128, 0, 7]], np.uint8)
    m = model([helper.make_node("SplitToSequence", ["x"], ["s"], axis=0,
                                keepdims=0),
               helper.make_node("SequenceInsert", ["s", "x0"], ["s2"]),
               helper.make_node("SequenceAt", ["s2", "last"], ["t"]),
               helper.make_node("ConcatFromSequence", ["s2"], ["cat"],
                                axis=0),
               helper.make_node("Cast", ["cat"], ["wide"], to=I64)],
              [tensor_info("x", U8, [2, 3]), tensor_info("x0", U8, [3]),
               tensor_info("last", I64, [])],
              [seq_info("s2", U8, [3]), tensor_info("t", U8, [3]),
               tensor_info("cat", U8, [9]), tensor_info("wide", I64, [9])])
    x0 = np.array([250, 3, 129], np.uint8)
    allrows = np.concatenate([u[0], u[1], x0])
    r.run("a sequence of uint8: split, insert, at, concat, cast", m,
          [u, x0, np.array(-1, np.int64)],
          [[u[0].copy(), u[1].copy(), x0], x0, allrows,
           allrows.astype(np.int64)])
    m = model([helper.make_node("SequenceAt", ["s", "i"], ["t"]),
               helper.make_node("Cast", ["t"], ["f"], to=F),
               helper.make_node("Identity", ["s"], ["same"])],
              [seq_info("s", U16, [None]), tensor_info("i", I64, [])],
              [tensor_info("f", F, [None]), seq_info("same", U16, [None])])
    v16 = [np.array([65535, 1], np.uint16), np.array([40000], np.uint16)]
    r.run("a sequence of uint16 as an input (.npz), and as an output", m,
          [v16, np.array(0, np.int64)],
          [np.array([65535, 1], np.float32), v16])
    r.run("a sequence of uint16 refuses int16 data", m,
          [[np.array([1], np.int16)], np.array(0, np.int64)],
          [np.zeros(1, np.float32), v16],
          error="is a ?xui16 tensor, not 1xi16")
    m = model([helper.make_node("Optional", ["x"], ["o"]),
               helper.make_node("OptionalGetElement", ["o"], ["back"]),
               helper.make_node("SequenceEmpty", [], ["e"], dtype=U8),
               helper.make_node("SequenceInsert", ["e", "x"], ["one"])],
              [tensor_info("x", U8, [3])],
              [opt_info("o", U8, [3]), tensor_info("back", U8, [3]),
               seq_info("one", U8, [3])])
    r.run("an optional of uint8, SequenceEmpty of uint8", m, [x0],
          [[x0], x0, [x0]])
    body = helper.make_graph(
        [helper.make_node("Add", ["e", "e"], ["twice"])], "double",
        [tensor_info("e", U8, [None])], [tensor_info("twice", U8, [None])])
    m = model([helper.make_node("SequenceMap", ["s"], ["out"], body=body)],
              [seq_info("s", U8, [None])], [seq_info("out", U8, [None])])
    r.run("SequenceMap over uint8 elements (wrapping add)", m,
          [[x0, u[0].copy()]], [[x0 + x0, u[0] + u[0]]])
    cases.expect_error("SequenceConstruct of uint8 and int8", model(
        [helper.make_node("SequenceConstruct", ["a", "b"], ["s"],
                          name="mixed")],
        [tensor_info("a", U8, [2]), tensor_info("b", TensorProto.INT8, [2])],
        [seq_info("s", U8, [2])]),
        "onnx node 'mixed' (SequenceConstruct, opset 17): input 1 has the "
        "element type i8; input 0 has ui8")

    # A Loop that carries a sequence given as a graph input, appending to
    # it; Scan takes no sequences (ONNX's Scan is of tensors only).
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]),
         helper.make_node("SequenceAt", ["acc", "minus1"], ["last"]),
         helper.make_node("Mul", ["last", "two"], ["next"]),
         helper.make_node("SequenceInsert", ["acc", "next"], ["acc_out"])],
        "body", [tensor_info("i", I64, []),
                 tensor_info("c", TensorProto.BOOL, []),
                 seq_info("acc", F, [2])],
        [tensor_info("c_out", TensorProto.BOOL, []),
         seq_info("acc_out", F, [2])],
        [helper.make_tensor("minus1", I64, [], [-1]),
         helper.make_tensor("two", F, [], [2.0])])
    m = model([helper.make_node("Loop", ["n", "", "s"], ["out"], body=body)],
              [tensor_info("n", I64, []), seq_info("s", F, [2])],
              [seq_info("out", F, [2])])
    start = np.array([1.0, -0.5], np.float32)
    r.run("a Loop carrying a sequence input (3 iterations)", m,
          [np.array(3, np.int64), [start]],
          [[start * (2.0 ** k) for k in range(4)]])
    scan_body = helper.make_graph(
        [helper.make_node("SequenceInsert", ["acc", "v"], ["acc_out"])],
        "scan_body", [seq_info("acc", F, [2]), tensor_info("v", F, [2])],
        [seq_info("acc_out", F, [2])])
    cases.expect_error("Scan with a sequence state", model(
        [helper.make_node("Scan", ["s", "x"], ["out"], body=scan_body,
                          num_scan_inputs=1, name="scan")],
        [seq_info("s", F, [2]), tensor_info("x", F, [3, 2])],
        [seq_info("out", F, [2])], opset=16),
        "onnx node 'scan' (Scan, opset 16): input 0 is a sequence or "
        "optional (!util.list<tensor<2xf32>>); Scan's state variables and "
        "scan inputs are tensors (ONNX allows sequences in Loop, not in "
        "Scan)")
    scan_body = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["v"], ["seq"])],
        "scan_body", [tensor_info("v", F, [2])], [seq_info("seq", F, [2])])
    cases.expect_error("Scan whose body makes a sequence scan output", model(
        [helper.make_node("Scan", ["x"], ["out"], body=scan_body,
                          num_scan_inputs=1, name="scan2")],
        [tensor_info("x", F, [3, 2])], [tensor_info("out", F, [3, 2])],
        opset=16),
        "onnx node 'scan2' (Scan, opset 16): scan output 0 of the body is "
        "!util.list<tensor<2xf32>>; Scan's scan outputs are tensors")

    loop_body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]),
         helper.make_node("SequenceConstruct", ["x"], ["seq"])],
        "loop_body", [tensor_info("i", I64, []),
                      tensor_info("c", TensorProto.BOOL, [])],
        [tensor_info("c_out", TensorProto.BOOL, []), seq_info("seq", F, [2])])
    cases.expect_error("Loop whose body makes a sequence scan output", model(
        [helper.make_node("Loop", ["n", ""], ["out"], body=loop_body,
                          name="loop")],
        [tensor_info("n", I64, []), tensor_info("x", F, [2])],
        [tensor_info("out", F, [None, 2])]),
        "onnx node 'loop' (Loop, opset 17): scan output 0 of the body is "
        "!util.list<tensor<2xf32>>; scan outputs are tensors")

    cases.expect_error("SequenceEmpty of strings", model(
        [helper.make_node("SequenceEmpty", [], ["s"], dtype=TensorProto.STRING,
                          name="empty"),
         helper.make_node("SequenceLength", ["s"], ["n"])],
        [], [tensor_info("n", I64, [])]),
        "onnx node 'empty' (SequenceEmpty, opset 17): dtype 8 is not a "
        "supported sequence element type (sequences of strings and complex "
        "numbers are not supported)")

    # Nested sequences are refused with the value's name.
    nested = helper.make_value_info(
        "ss", helper.make_sequence_type_proto(
            helper.make_sequence_type_proto(
                helper.make_tensor_type_proto(F, [2]))))
    cases.expect_error("a sequence of sequences", model(
        [helper.make_node("SequenceLength", ["ss"], ["n"])], [nested],
        [tensor_info("n", I64, [])]),
        "value 'ss' is a sequence of sequences; only sequences of tensors "
        "are supported (ONNX's sequence ops make and read no other)")
    return cases.summary()


def main():
    args = arguments(__doc__)
    with tempfile.TemporaryDirectory() as work:
        return run(Cases(args, work), args, work)


if __name__ == "__main__":
    sys.exit(main())
