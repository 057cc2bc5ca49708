#!/usr/bin/env python3
"""controlflow_test.py - ONNX's If, Loop and Scan on models made here with
onnx.helper: an If on a graph input whose branches run an LSTM and a
MatMul, branches of different shapes, a constant condition folded at
compile time, Loop with a run-time trip count and a loop-carried tensor
that grows every iteration, Loop with a data-dependent condition, an If
nested in a Loop reading values of both enclosing scopes, Scan in both
directions along other axes, Scan-8's batch, a subgraph reading a value
made by a node listed after it, a Scan in an If in a Loop; each compiled,
run with strata-run on both devices and compared with numpy, and the
errors of bad subgraphs; and a scripted PyTorch model (a for loop and an
if, exported by torch.onnx) compared with PyTorch. Prints one line per
case and `N passed, N failed`."""

import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from model_cases import Cases, arguments, model

F32 = TensorProto.FLOAT
I64 = TensorProto.INT64
BOOL = TensorProto.BOOL
DEVICES = ("local-sync", "local-task")


def vi(name, shape, elem=F32):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, array):
    return helper.make_node("Constant", [], [name], name="c_" + name,
                            value=numpy_helper.from_array(np.asarray(array),
                                                          name))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lstm_ref(x, w, r, b):
    """ONNX LSTM, one direction, default activations: Y_h [1, batch, h]."""
    hidden = r.shape[-1]
    h = np.zeros((x.shape[1], hidden), np.float32)
    c = np.zeros_like(h)
    wb, rb = b[0, :4 * hidden], b[0, 4 * hidden:]
    for t in range(x.shape[0]):
        g = x[t] @ w[0].T + h @ r[0].T + wb + rb
        i, o, f, cc = np.split(g, 4, axis=1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(cc)
        h = sigmoid(o) * np.tanh(c)
    return h[None].astype(np.float32)


def if_cases(cases, rng):
    # An If on a graph input whose then_branch runs an LSTM over x and
    # whose else_branch a MatMul (a voice-activity model's shape). Both
    # branches read x and the weights from the enclosing graph.
    seq, batch, size, hidden = 5, 1, 4, 8
    x = rng.standard_normal((seq, batch, size)).astype(np.float32)
    w = (rng.standard_normal((1, 4 * hidden, size)) * 0.5).astype(np.float32)
    r = (rng.standard_normal((1, 4 * hidden, hidden)) * 0.5).astype(
        np.float32)
    b = (rng.standard_normal((1, 8 * hidden)) * 0.1).astype(np.float32)
    m = rng.standard_normal((size, hidden)).astype(np.float32)
    then_g = helper.make_graph(
        [helper.make_node("LSTM", ["x", "W", "R", "B"], ["", "h"],
                          name="lstm", hidden_size=hidden)],
        "then", [], [vi("h", [1, batch, hidden])])
    else_g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "M"], ["p"], name="mm"),
         helper.make_node("ReduceMean", ["p"], ["q"], name="mean",
                          axes=[0], keepdims=1)],
        "else", [], [vi("q", [1, batch, hidden])])
    nodes = [helper.make_node("If", ["cond"], ["y"], name="if",
                              then_branch=then_g, else_branch=else_g)]
    inits = [numpy_helper.from_array(v, n)
             for v, n in ((w, "W"), (r, "R"), (b, "B"), (m, "M"))]
    t, f = np.array(True), np.array(False)
    cases.run_model("If on an input: an LSTM or a MatMul", model(
        nodes, [vi("cond", [], BOOL), vi("x", [seq, batch, size])],
        [vi("y", [1, batch, hidden])], inits),
        [[t, x], [f, x]],
        [[lstm_ref(x, w, r, b)], [(x @ m).mean(axis=0, keepdims=True)]],
        rtol=1e-4, atol=1e-5, devices=DEVICES)

    # Branches of different shapes: the output's first dimension is
    # dynamic.
    a = rng.standard_normal((2, 3)).astype(np.float32)
    then_g = helper.make_graph(
        [helper.make_node("Relu", ["a"], ["t"])], "then", [], [vi("t", None)])
    else_g = helper.make_graph(
        [helper.make_node("Concat", ["a", "a"], ["e"], axis=0)], "else", [],
        [vi("e", None)])
    cases.run_model("If branches of different shapes", model(
        [helper.make_node("If", ["cond"], ["y"], then_branch=then_g,
                          else_branch=else_g)],
        [vi("cond", [], BOOL), vi("a", [2, 3])], [vi("y", None)]),
        [[t, a], [f, a]], [[np.maximum(a, 0)], [np.concatenate([a, a])]],
        devices=DEVICES)

    # A condition computed from constants folds: no scf.if is left.
    then_g = helper.make_graph([helper.make_node("Neg", ["a"], ["t"])],
                               "then", [], [vi("t", None)])
    else_g = helper.make_graph([helper.make_node("Exp", ["a"], ["e"])],
                               "else", [], [vi("e", None)])
    folded = model(
        [const("one", np.array(1, np.int64)),
         const("two", np.array(2, np.int64)),
         helper.make_node("Less", ["one", "two"], ["c"]),
         helper.make_node("If", ["c"], ["y"], then_branch=then_g,
                          else_branch=else_g)],
        [vi("a", [2, 3])], [vi("y", [2, 3])])
    cases.run_model("If on a constant condition", folded, [a], [-a],
                    devices=DEVICES)
    path = cases.save(folded)
    out = subprocess.run([cases.args.strata_compile, path,
                          "--compile-to=input", "-o", "-"],
                         capture_output=True, text=True, timeout=300)
    cases.check("If on a constant condition folds at compile time",
                out.returncode == 0 and "scf.if" not in out.stdout and
                "math.exp" not in out.stdout and "negf" in out.stdout,
                out.stderr[-800:] or out.stdout[-800:])

    # The branch reads a value that a node listed after the If makes: the
    # sort puts that node first.
    then_g = helper.make_graph([helper.make_node("Add", ["a", "late"], ["t"])],
                               "then", [], [vi("t", None)])
    else_g = helper.make_graph([helper.make_node("Sub", ["a", "late"], ["e"])],
                               "else", [], [vi("e", None)])
    cases.run_model("a branch reads a value made by a later-listed node",
                    model([helper.make_node("If", ["cond"], ["y"],
                                            then_branch=then_g,
                                            else_branch=else_g),
                           helper.make_node("Exp", ["a"], ["late"])],
                          [vi("cond", [], BOOL), vi("a", [2, 3])],
                          [vi("y", [2, 3])]),
                    [[t, a], [f, a]], [[a + np.exp(a)], [a - np.exp(a)]],
                    devices=DEVICES)

    # A branch cannot read a value of the other branch: names are scoped.
    cases.expect_error("a branch reading the other branch's value", model(
        [helper.make_node("If", ["cond"], ["y"], name="if",
                          then_branch=helper.make_graph(
                              [helper.make_node("Relu", ["a"], ["inner"])],
                              "then", [], [vi("inner", None)]),
                          else_branch=helper.make_graph(
                              [helper.make_node("Neg", ["inner"], ["e"])],
                              "else", [], [vi("e", None)]))],
        [vi("cond", [], BOOL), vi("a", [2, 3])], [vi("y", None)]),
        "node 'if' (If) reads 'inner', which no node, input or initializer "
        "produces")

    cases.expect_error("If branches of different ranks", model(
        [const("shape", np.array([6], np.int64)),
         helper.make_node("If", ["cond"], ["y"], name="if",
                          then_branch=helper.make_graph(
                              [helper.make_node("Relu", ["a"], ["t"])],
                              "then", [], [vi("t", None)]),
                          else_branch=helper.make_graph(
                              [helper.make_node("Reshape", ["a", "shape"],
                                                ["e"])],
                              "else", [], [vi("e", None)]))],
        [vi("cond", [], BOOL), vi("a", [2, 3])], [vi("y", None)]),
        "onnx node 'if' (If, opset 17): output 0 is tensor<2x3xf32> in "
        "then_branch and tensor<6xf32> in else_branch; only dimensions may "
        "differ")


def loop_cases(cases, rng):
    # A run-time trip count and a loop-carried tensor that grows by a row
    # each iteration (row = last row * 2 + i); the scan output collects the
    # new rows' sums.
    body = helper.make_graph(
        [const("start", np.array([-1], np.int64)),
         const("end", np.array([1 << 40], np.int64)),
         helper.make_node("Slice", ["y_in", "start", "end"], ["last"]),
         const("two", np.array(2, np.float32)),
         helper.make_node("Mul", ["last", "two"], ["doubled"]),
         helper.make_node("Cast", ["i"], ["fi"], to=F32),
         helper.make_node("Add", ["doubled", "fi"], ["row"]),
         helper.make_node("Concat", ["y_in", "row"], ["y_out"], axis=0),
         helper.make_node("ReduceSum", ["row"], ["sum"], keepdims=0),
         helper.make_node("Identity", ["c_in"], ["c_out"])],
        "body", [vi("i", [], I64), vi("c_in", [], BOOL), vi("y_in", None)],
        [vi("c_out", [], BOOL), vi("y_out", None), vi("sum", None)])
    grow = model(
        [helper.make_node("Loop", ["m", "", "y0"], ["y", "sums"], name="loop",
                          body=body)],
        [vi("m", [], I64), vi("y0", [1, 2])],
        [vi("y", None), vi("sums", None)])
    y0 = np.array([[1, -1]], np.float32)

    def grow_ref(m):
        rows = [y0[0]]
        for i in range(m):
            rows.append(rows[-1] * 2 + i)
        y = np.stack(rows).astype(np.float32)
        return [y, y[1:].sum(axis=1).astype(np.float32)]

    trips = [0, 1, 5]
    cases.run_model("Loop: run-time trip count, a growing tensor", grow,
                    [[np.array(m, np.int64), y0] for m in trips],
                    [grow_ref(m) for m in trips], devices=DEVICES)

    # A data-dependent condition (no trip count): double x until its sum
    # reaches the limit; the iteration count comes out as the scan output's
    # length.
    body = helper.make_graph(
        [const("two", np.array(2, np.float32)),
         helper.make_node("Mul", ["x_in", "two"], ["x_out"]),
         helper.make_node("ReduceSum", ["x_out"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "limit"], ["c_out"]),
         helper.make_node("Identity", ["i"], ["seen"])],
        "body", [vi("i", [], I64), vi("c_in", [], BOOL), vi("x_in", [3])],
        [vi("c_out", [], BOOL), vi("x_out", [3]), vi("seen", [], I64)])
    until = model(
        [helper.make_node("Loop", ["", "go", "x0"], ["x", "iters"], body=body)],
        [vi("go", [], BOOL), vi("x0", [3]), vi("limit", [])],
        [vi("x", [3]), vi("iters", None, I64)])
    x0 = np.array([0.5, 1, 1.5], np.float32)

    def until_ref(go, limit):
        x, iters = x0.copy(), []
        c, i = go, 0
        while c:
            x = x * 2
            iters.append(i)
            i += 1
            c = x.sum() < limit
        return [x.astype(np.float32), np.array(iters, np.int64)]

    runs = [(True, 40.0), (True, 1.0), (False, 40.0)]
    cases.run_model("Loop: a data-dependent condition", until,
                    [[np.array(go), x0, np.array(lim, np.float32)]
                     for go, lim in runs],
                    [until_ref(go, lim) for go, lim in runs], devices=DEVICES)

    # An If nested in the body: even iterations add w (a graph input, two
    # scopes out), odd ones multiply by the body's own value k.
    then_g = helper.make_graph([helper.make_node("Add", ["v_in", "w"],
                                                 ["t"])],
                               "then", [], [vi("t", None)])
    else_g = helper.make_graph([helper.make_node("Mul", ["v_in", "k"],
                                                 ["e"])],
                               "else", [], [vi("e", None)])
    body = helper.make_graph(
        [const("k", np.array(-0.5, np.float32)),
         const("two_i", np.array(2, np.int64)),
         const("zero_i", np.array(0, np.int64)),
         helper.make_node("Mod", ["i", "two_i"], ["r"]),
         helper.make_node("Equal", ["r", "zero_i"], ["even"]),
         helper.make_node("If", ["even"], ["v_out"], name="inner_if",
                          then_branch=then_g, else_branch=else_g),
         helper.make_node("Identity", ["c_in"], ["c_out"])],
        "body", [vi("i", [], I64), vi("c_in", [], BOOL), vi("v_in", [2, 2])],
        [vi("c_out", [], BOOL), vi("v_out", [2, 2]), vi("v_out", [2, 2])])
    nested = model(
        [helper.make_node("Loop", ["m", "go", "v0"], ["v", "trace"],
                          body=body)],
        [vi("m", [], I64), vi("go", [], BOOL), vi("v0", [2, 2]),
         vi("w", [2, 2])],
        [vi("v", [2, 2]), vi("trace", None)])
    v0 = rng.standard_normal((2, 2)).astype(np.float32)
    w = rng.standard_normal((2, 2)).astype(np.float32)

    def nested_ref(m, go):
        v, trace = v0.copy(), []
        for i in range(m if go else 0):
            v = v + w if i % 2 == 0 else v * np.float32(-0.5)
            trace.append(v)
        return [v, np.array(trace, np.float32).reshape(-1, 2, 2)]

    # The import holds each subgraph as a region of its node: the If's
    # branches inside the Loop's body, which reads the graph input w.
    out = subprocess.run([cases.args.strata_compile, cases.save(nested),
                          "--compile-to=import", "-o", "-"],
                         capture_output=True, text=True, timeout=300)
    text = out.stdout
    loop_at = text.find('onnx.node "Loop"')
    if_at = text.find('onnx.node "If"')
    cases.check("the import nests the If's branches in the Loop's body",
                out.returncode == 0 and 0 <= loop_at < if_at and
                'subgraph_names = ["body"]' in text and
                'subgraph_names = ["else_branch", "then_branch"]' in text and
                text.count("onnx.yield") == 3 and
                'onnx.node "Add"(%arg6, %arg3)' in text,
                out.stderr[-800:] or text[-1500:])

    runs = [(4, True), (3, True), (4, False)]
    cases.run_model("Loop with an If nested in its body", nested,
                    [[np.array(m, np.int64), np.array(go), v0, w]
                     for m, go in runs],
                    [nested_ref(m, go) for m, go in runs], devices=DEVICES)

    # Loops nested 4 deep run m^4 times; 17 deep is refused (a body is
    # lowered again with the loops in it when its shapes change).
    x = np.array([0.5, -2], np.float32)
    cases.run_model("Loops nested 4 deep", nested_loops(4),
                    [[np.array(m, np.int64), x] for m in (0, 2, 3)],
                    [[x + m ** 4] for m in (0, 2, 3)], devices=DEVICES)
    cases.expect_error("Loops nested 17 deep", nested_loops(17),
                       "onnx node 'loop17' (Loop, opset 17): loops nest more "
                       "than 16 deep")

    cases.expect_error("a loop-carried value that changes rank", model(
        [helper.make_node("Loop", ["m", "", "x"], ["y"], name="l",
                          body=helper.make_graph(
                              [const("axes", np.array([0], np.int64)),
                               helper.make_node("Unsqueeze", ["v", "axes"],
                                                ["u"])],
                              "body", [vi("i", [], I64), vi("c", [], BOOL),
                                       vi("v", None)],
                              [vi("c", [], BOOL), vi("u", None)]))],
        [vi("m", [], I64), vi("x", [2])], [vi("y", None)]),
        "onnx node 'l' (Loop, opset 17): loop-carried value 0 enters as "
        "tensor<2xf32> and leaves an iteration as tensor<1x2xf32>; only its "
        "dimensions may change")


def nested_loops(depth):
    """`depth` Loops, each the body of the one around it, adding 1 to the
    carried value in the innermost."""
    body = helper.make_graph(
        [const("one_f", np.array(1, np.float32)),
         helper.make_node("Add", ["v%d" % depth, "one_f"], ["o%d" % depth])],
        "body%d" % depth,
        [vi("i%d" % depth, [], I64), vi("c%d" % depth, [], BOOL),
         vi("v%d" % depth, None)],
        [vi("c%d" % depth, [], BOOL), vi("o%d" % depth, None)])
    for level in range(depth - 1, 0, -1):
        body = helper.make_graph(
            [helper.make_node("Loop", ["m", "", "v%d" % level],
                              ["o%d" % level], body=body,
                              name="loop%d" % (level + 1))],
            "body%d" % level,
            [vi("i%d" % level, [], I64), vi("c%d" % level, [], BOOL),
             vi("v%d" % level, None)],
            [vi("c%d" % level, [], BOOL), vi("o%d" % level, None)])
    return model([helper.make_node("Loop", ["m", "", "x"], ["y"], body=body,
                                   name="loop1")],
                 [vi("m", [], I64), vi("x", [2])], [vi("y", None)])


def scan_ref(states, inputs, in_axes, in_dirs, out_axes, out_dirs, body):
    length = inputs[0].shape[in_axes[0]]
    outs = None
    for t in range(length):
        slices = [np.take(x, t if d == 0 else length - 1 - t, axis=a)
                  for x, a, d in zip(inputs, in_axes, in_dirs)]
        states, items = body(states, slices)
        outs = [[] for _ in items] if outs is None else outs
        for o, item in zip(outs, items):
            o.append(item)
    return states + [np.stack(o[::-1] if d else o, axis=a)
                     for o, a, d in zip(outs, out_axes, out_dirs)]


def scan_cases(cases, rng):
    # Two scan inputs: x forward along axis 1 and x backward along axis 1;
    # the state is a running sum of both; the outputs: the running sum
    # forward along axis 0 and the product of the slices backward along
    # axis 2.
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    s0 = np.zeros((2, 4), np.float32)
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "a"], ["t"]),
         helper.make_node("Add", ["t", "b"], ["s_out"]),
         helper.make_node("Mul", ["a", "b"], ["p"])],
        "body", [vi("s_in", [2, 4]), vi("a", [2, 4]), vi("b", [2, 4])],
        [vi("s_out", [2, 4]), vi("s_out2", None), vi("p", [2, 4])])
    body.output[1].name = "s_out"
    scan = model(
        [helper.make_node("Scan", ["s0", "x", "x"], ["s", "sums", "prods"],
                          body=body, num_scan_inputs=2,
                          scan_input_axes=[1, 1], scan_input_directions=[0, 1],
                          scan_output_axes=[0, 2],
                          scan_output_directions=[0, 1])],
        [vi("s0", [2, 4]), vi("x", [2, 3, 4])],
        [vi("s", [2, 4]), vi("sums", None), vi("prods", None)])

    def step(states, slices):
        s = states[0] + slices[0] + slices[1]
        return [s], [s, slices[0] * slices[1]]

    cases.run_model("Scan in both directions along other axes", scan,
                    [s0, x], scan_ref([s0], [x, x], [1, 1], [0, 1], [0, 2],
                                      [0, 1], step),
                    rtol=1e-5, atol=1e-5, devices=DEVICES)

    # Scan-8: a batch axis first, the sequence along axis 1 (directions
    # per input), the outputs stacked along axis 1.
    xb = rng.standard_normal((2, 3, 2)).astype(np.float32)
    init = rng.standard_normal((2, 2)).astype(np.float32)
    body = helper.make_graph(
        [helper.make_node("Add", ["sum_in", "next"], ["sum_out"]),
         helper.make_node("Identity", ["sum_out"], ["scan_out"])],
        "body", [vi("sum_in", [2]), vi("next", [2])],
        [vi("sum_out", [2]), vi("scan_out", [2])])
    scan8 = model(
        [helper.make_node("Scan", ["", "init", "x"], ["y", "z"], body=body,
                          num_scan_inputs=1, directions=[1])],
        [vi("init", [2, 2]), vi("x", [2, 3, 2])],
        [vi("y", [2, 2]), vi("z", [2, 3, 2])], opset=8)
    ys, zs = [], []
    for e in range(2):
        y, z = scan_ref([init[e]], [xb[e]], [0], [1], [0], [0],
                        lambda st, sl: ([st[0] + sl[0]], [st[0] + sl[0]]))
        ys.append(y)
        zs.append(z)
    cases.run_model("Scan-8 over a batch of 2, reversed", scan8, [init, xb],
                    [np.stack(ys), np.stack(zs)], devices=DEVICES)


def conv_case(cases, rng):
    # Convolutions run in NHWC between transposes, which the input phase
    # cancels between neighbouring layers: here the neighbours are on both
    # sides of a branch (1x1 convolutions, so numpy's reference is a
    # contraction over channels).
    x = rng.standard_normal((1, 2, 3, 3)).astype(np.float32)
    w1 = rng.standard_normal((4, 2, 1, 1)).astype(np.float32)
    w2 = rng.standard_normal((3, 4, 1, 1)).astype(np.float32)
    b2 = rng.standard_normal(3).astype(np.float32)

    def conv(v, w, b=None):
        y = np.einsum("oc,nchw->nohw", w[:, :, 0, 0], v)
        return y if b is None else y + b[None, :, None, None]

    then_g = helper.make_graph(
        [helper.make_node("Conv", ["y1", "W2", "B2"], ["c2"]),
         helper.make_node("Relu", ["c2"], ["t"])],
        "then", [], [vi("t", None)])
    else_g = helper.make_graph(
        [helper.make_node("Conv", ["y1", "W2"], ["e0"]),
         helper.make_node("Neg", ["e0"], ["e"])],
        "else", [], [vi("e", None)])
    m = model(
        [helper.make_node("Conv", ["x", "W1"], ["c1"]),
         helper.make_node("Relu", ["c1"], ["y1"]),
         helper.make_node("If", ["cond"], ["y"], then_branch=then_g,
                          else_branch=else_g)],
        [vi("cond", [], BOOL), vi("x", [1, 2, 3, 3])], [vi("y", None)],
        [numpy_helper.from_array(w1, "W1"), numpy_helper.from_array(w2, "W2"),
         numpy_helper.from_array(b2, "B2")])
    y1 = np.maximum(conv(x, w1), 0)
    cases.run_model("convolutions on both sides of a branch", m,
                    [[np.array(True), x], [np.array(False), x]],
                    [[np.maximum(conv(y1, w2, b2), 0).astype(np.float32)],
                     [-conv(y1, w2).astype(np.float32)]],
                    rtol=1e-4, atol=1e-5, devices=DEVICES)


def deep_case(cases, rng):
    # Three levels: a Loop whose body holds an If whose then_branch holds a
    # Scan; the Scan's body reads the Loop body's iteration number, the
    # If's enclosing Loop-carried value and a graph input.
    scan_body = helper.make_graph(
        [helper.make_node("Add", ["acc", "row"], ["t"]),
         helper.make_node("Cast", ["i"], ["fi"], to=F32),
         helper.make_node("Mul", ["fi", "g"], ["gi"]),
         helper.make_node("Add", ["t", "gi"], ["acc_out"])],
        "scan_body", [vi("acc", [3]), vi("row", [3])], [vi("acc_out", [3])])
    then_g = helper.make_graph(
        [helper.make_node("Scan", ["v_in", "m2"], ["s"], body=scan_body,
                          num_scan_inputs=1)],
        "then", [], [vi("s", [3])])
    else_g = helper.make_graph([helper.make_node("Neg", ["v_in"], ["e"])],
                               "else", [], [vi("e", [3])])
    body = helper.make_graph(
        [const("one_i", np.array(1, np.int64)),
         helper.make_node("Less", ["i", "one_i"], ["first"]),
         helper.make_node("Not", ["first"], ["later"]),
         helper.make_node("If", ["later"], ["v_out"], then_branch=then_g,
                          else_branch=else_g),
         helper.make_node("Identity", ["c_in"], ["c_out"])],
        "body", [vi("i", [], I64), vi("c_in", [], BOOL), vi("v_in", [3])],
        [vi("c_out", [], BOOL), vi("v_out", [3])])
    deep = model(
        [helper.make_node("Loop", ["m", "", "v0"], ["v"], body=body)],
        [vi("m", [], I64), vi("v0", [3]), vi("m2", [2, 3]), vi("g", [3])],
        [vi("v", [3])])
    v0 = rng.standard_normal(3).astype(np.float32)
    m2 = rng.standard_normal((2, 3)).astype(np.float32)
    g = rng.standard_normal(3).astype(np.float32)

    def deep_ref(m):
        v = v0.copy()
        for i in range(m):
            if i >= 1:
                for row in m2:
                    v = v + row + np.float32(i) * g
            else:
                v = -v
        return [v.astype(np.float32)]

    cases.run_model("a Scan in an If in a Loop, reading all three scopes",
                    deep, [[np.array(m, np.int64), v0, m2, g]
                           for m in (0, 1, 3)],
                    [deep_ref(m) for m in (0, 1, 3)], rtol=1e-5, atol=1e-5,
                    devices=DEVICES)


def scripted_case(cases):
    # A scripted PyTorch model (torch.jit.script, then torch.onnx.export):
    # a for loop over a run-time count and an if on a computed value, as
    # PyTorch writes them (Loop, If), compared with PyTorch.
    try:
        import torch
    except ImportError:
        print("SKIP a scripted PyTorch model: no torch")
        return

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)

        def forward(self, x, n):
            h = x
            for _ in range(int(n)):
                h = torch.tanh(self.lin(h)) + h
            if bool(h.sum() > 0):
                y = h * 2
            else:
                y = -h
            return y

    torch.manual_seed(3)
    scripted = torch.jit.script(Model())
    xs = [torch.randn(2, 4), -torch.ones(2, 4) * 3, torch.ones(2, 4)]
    ns = [torch.tensor(3), torch.tensor(0), torch.tensor(5)]
    path = cases.save(b"", stem="scripted")
    torch.onnx.export(scripted, (xs[0], ns[0]), path, opset_version=13,
                      input_names=["x", "n"], output_names=["y"])
    with open(path, "rb") as f:
        data = f.read()
    with torch.no_grad():
        expected = [[scripted(x, n).numpy()] for x, n in zip(xs, ns)]
    cases.run_model("a scripted PyTorch model (for loop, if)", data,
                    [[x.numpy(), n.numpy()] for x, n in zip(xs, ns)],
                    expected, rtol=1e-4, atol=1e-5, devices=DEVICES)


def run(cases):
    rng = np.random.default_rng(11)
    if_cases(cases, rng)
    loop_cases(cases, rng)
    scan_cases(cases, rng)
    conv_case(cases, rng)
    deep_case(cases, rng)
    scripted_case(cases)
    return cases.summary()


def main():
    args = arguments(__doc__)
    with tempfile.TemporaryDirectory() as work:
        return run(Cases(args, work))


if __name__ == "__main__":
    sys.exit(main())
