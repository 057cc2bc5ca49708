#!/usr/bin/env python3
"""graphs_test.py - graphs as other tool chains write them, on models made
here with onnx.helper: nodes out of order (a float16 converter's Casts
appended at the end), opset imports no node uses, model-local functions
(attribute references, defaults, nested calls, omitted inputs and outputs)
inlined, each compiled, run with strata-run and compared with numpy; and
the exact errors of cycles, unknown domains, values read but never made or
made twice, and bad function calls. Prints one line per case and `N
passed, N failed`."""

import sys
import tempfile

import numpy as np
from onnx import AttributeProto, FunctionProto, TensorProto, helper, \
    numpy_helper

from model_cases import Cases, arguments, model

F32 = TensorProto.FLOAT


def vi(name, shape, elem=F32):
    return helper.make_tensor_value_info(name, elem, shape)


def ref_attr(name, ref, kind):
    attr = AttributeProto()
    attr.name = name
    attr.ref_attr_name = ref
    attr.type = kind
    return attr


def varint(n):
    out = b""
    while True:
        low, n = n & 0x7F, n >> 7
        if n:
            out += bytes([low | 0x80])
        else:
            return out + bytes([low])


def with_default(function, attr):
    """`function` with `attr` as an attribute default (FunctionProto field
    11, attribute_proto, which onnx 1.12's helper cannot write)."""
    data = attr.SerializeToString()
    return FunctionProto.FromString(function.SerializeToString() + b"\x5a" +
                                    varint(len(data)) + data)


def run(cases):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3)).astype(np.float32)

    # Nodes listed backwards: each reads what a later node makes.
    nodes = [helper.make_node("Mul", ["b", "x"], ["y"], name="last"),
             helper.make_node("Relu", ["a"], ["b"], name="middle"),
             helper.make_node("Add", ["x", "x"], ["a"], name="first")]
    cases.run_model("nodes listed backwards", model(
        nodes, [vi("x", [2, 3])], [vi("y", [2, 3])]), [x],
        [np.maximum(x + x, 0) * x])

    # A float16 converter's output: the Casts it inserts come last, after
    # the nodes that read them.
    w = rng.standard_normal((2, 3)).astype(np.float16)
    nodes = [helper.make_node("Mul", ["x_f16", "w"], ["m"], name="mul"),
             helper.make_node("Relu", ["m"], ["r"], name="relu"),
             helper.make_node("Cast", ["x"], ["x_f16"], name="cast_in",
                              to=TensorProto.FLOAT16),
             helper.make_node("Cast", ["r"], ["y"], name="cast_out", to=F32)]
    cases.run_model("float16 converter's Casts at the end", model(
        nodes, [vi("x", [2, 3])], [vi("y", [2, 3])],
        [numpy_helper.from_array(w, "w")]), [x],
        [np.maximum(x.astype(np.float16) * w, 0).astype(np.float32)],
        rtol=1e-3, atol=1e-3)

    # A long chain listed backwards (the sort keeps no recursion).
    count = 3000
    nodes = [helper.make_node("Neg", ["v%d" % i], ["v%d" % (i + 1)],
                              name="n%d" % i) for i in range(count)]
    nodes[-1].output[0] = "y"
    nodes[0].input[0] = "x"
    cases.run_model("a chain of 3000 nodes listed backwards", model(
        nodes[::-1], [vi("x", [2, 3])], [vi("y", [2, 3])]), [x], [x])

    # Opset imports for domains no node uses.
    cases.run_model("opset imports no node uses", model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")],
        [vi("x", [2, 3])], [vi("y", [2, 3])],
        extra_opsets=[("com.microsoft", 1), ("ai.onnx.ml", 3),
                      ("ai.onnx.preview.training", 1)]),
        [x], [np.maximum(x, 0)])

    # A cycle names a node on it.
    nodes = [helper.make_node("Add", ["x", "t1"], ["t0"], name="n0"),
             helper.make_node("Relu", ["t0"], ["t1"], name="n1"),
             helper.make_node("Identity", ["t0"], ["y"], name="n2")]
    cases.expect_error("a cycle names a node on it", model(
        nodes, [vi("x", [2, 3])], [vi("y", [2, 3])]),
        "node 'n1' (Relu) is on a cycle: its input 't0' depends on its own "
        "outputs")
    cases.expect_error("a node reading its own output", model(
        [helper.make_node("Add", ["x", "y"], ["y"], name="self")],
        [vi("x", [2, 3])], [vi("y", [2, 3])]),
        "node 'self' (Add) is on a cycle: its input 'y' depends on its own "
        "outputs")
    cases.expect_error("a value nothing makes", model(
        [helper.make_node("Relu", ["ghost"], ["y"])],
        [vi("x", [2, 3])], [vi("y", [2, 3])]),
        "node 'Relu' (unnamed) reads 'ghost', which no node, input or "
        "initializer produces")
    cases.expect_error("a value made twice", model(
        [helper.make_node("Relu", ["x"], ["y"], name="one"),
         helper.make_node("Neg", ["x"], ["y"], name="two")],
        [vi("x", [2, 3])], [vi("y", [2, 3])]),
        "value 'y' is made by two nodes, 'one' (Relu) and 'two' (Neg)")

    # Unknown domains: not imported, and imported without a lowering (the
    # lowering names such a node's op type with its domain).
    odd = helper.make_node("Frobnicate", ["x"], ["y"], name="odd",
                           domain="com.example")
    cases.expect_error("a domain the model does not import", model(
        [odd], [vi("x", [2, 3])], [vi("y", [2, 3])]),
        "node 'odd' (Frobnicate) is in domain 'com.example', which the "
        "model neither imports nor defines a function of")
    cases.expect_error("an imported domain without lowerings", model(
        [odd], [vi("x", [2, 3])], [vi("y", [2, 3])],
        extra_opsets=[("com.example", 2)]),
        "onnx node 'odd' (com.example.Frobnicate, opset 2): the domain "
        "'com.example' is not supported")

    # Model-local functions. Scale(x; s) = x * s, s an attribute through
    # Constant's value_float; LeakyAdd(a, b; alpha) = LeakyRelu(Scale(a+b;
    # s=2), alpha), alpha from the caller or its default 0.25; its second
    # output is (a+b), often left out by callers.
    scale = helper.make_function(
        "local", "Scale", ["x"], ["y"],
        [helper.make_node("Constant", [], ["s"], name="const"),
         helper.make_node("Mul", ["x", "s"], ["y"], name="mul")],
        [helper.make_opsetid("", 17)], ["s"])
    scale.node[0].attribute.append(ref_attr("value_float", "s",
                                            AttributeProto.FLOAT))
    leaky = helper.make_function(
        "local", "LeakyAdd", ["a", "b"], ["y", "sum"],
        # Out of order inside the function too.
        [helper.make_node("LeakyRelu", ["scaled"], ["y"], name="act"),
         helper.make_node("Scale", ["sum"], ["scaled"], name="scale",
                          domain="local", s=2.0),
         helper.make_node("Add", ["a", "b"], ["sum"], name="add")],
        [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
        ["alpha"])
    leaky.node[0].attribute.append(ref_attr("alpha", "alpha",
                                            AttributeProto.FLOAT))
    leaky = with_default(leaky, helper.make_attribute("alpha", 0.25))
    z = rng.standard_normal((2, 3)).astype(np.float32)

    def leaky_ref(a, b, alpha):
        v = (a + b) * 2
        return np.where(v >= 0, v, alpha * v).astype(np.float32)

    nodes = [helper.make_node("LeakyAdd", ["x", "z"], ["y1", "s1"],
                              name="call1", domain="local", alpha=0.5),
             helper.make_node("LeakyAdd", ["y1", "x"], ["y2"], name="call2",
                              domain="local"),
             helper.make_node("Scale", ["s1"], ["y3"], domain="local",
                              s=-1.0)]
    cases.run_model("functions inlined (ref_attr_name, defaults, nesting)",
                    model(nodes, [vi("x", [2, 3]), vi("z", [2, 3])],
                          [vi("y2", [2, 3]), vi("y3", [2, 3]),
                           vi("s1", [2, 3])],
                          functions=[scale, leaky],
                          extra_opsets=[("local", 1)]),
                    [x, z], [leaky_ref(leaky_ref(x, z, 0.5), x, 0.25),
                             -(x + z), x + z])

    # A function's inner names never clash with the graph's: the graph
    # has its own "sum" and "scaled".
    nodes = [helper.make_node("Add", ["x", "x"], ["sum"], name="own_sum"),
             helper.make_node("LeakyAdd", ["sum", "x"], ["scaled"],
                              domain="local", alpha=0.1),
             helper.make_node("Sub", ["scaled", "sum"], ["y"])]
    cases.run_model("inlined names do not clash with the graph's", model(
        nodes, [vi("x", [2, 3])], [vi("y", [2, 3])],
        functions=[scale, leaky], extra_opsets=[("local", 1)]), [x],
        [leaky_ref(x + x, x, 0.1) - (x + x)])

    # An omitted trailing input is absent inside the function: Clip
    # without its max.
    clip = helper.make_function(
        "local", "Floor0", ["x", "lo", "hi"], ["y"],
        [helper.make_node("Clip", ["x", "lo", "hi"], ["y"])],
        [helper.make_opsetid("", 17)], [])
    lo = numpy_helper.from_array(np.array(-0.5, np.float32), "lo")
    cases.run_model("a function called with fewer inputs", model(
        [helper.make_node("Floor0", ["x", "lo"], ["y"], domain="local")],
        [vi("x", [2, 3])], [vi("y", [2, 3])], [lo], functions=[clip],
        extra_opsets=[("local", 1)]), [x], [np.maximum(x, -0.5)])

    # Bad calls.
    selfcall = helper.make_function(
        "local", "Loop1", ["x"], ["y"],
        [helper.make_node("Loop1", ["x"], ["y"], name="again",
                          domain="local")],
        [helper.make_opsetid("local", 1)], [])
    cases.expect_error("a function that calls itself", model(
        [helper.make_node("Loop1", ["x"], ["y"], name="call",
                          domain="local")],
        [vi("x", [2, 3])], [vi("y", [2, 3])], functions=[selfcall],
        extra_opsets=[("local", 1)]),
        "node 'call/again' (Loop1) calls function 'Loop1', which is already "
        "being inlined (a function may not call itself)")
    outside = helper.make_function(
        "local", "Peek", ["x"], ["y"],
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        [helper.make_opsetid("", 17)], [])
    cases.expect_error("a function reading a graph value", model(
        [helper.make_node("Peek", ["x"], ["y"], name="peek",
                          domain="local")],
        [vi("x", [2, 3])], [vi("y", [2, 3])],
        [numpy_helper.from_array(x, "w")], functions=[outside],
        extra_opsets=[("local", 1)]),
        "function 'Peek': node 'peek/add' (Add) reads 'w', which is neither "
        "an input of the function nor made by a node in it")
    cases.expect_error("a function called with too many inputs", model(
        [helper.make_node("Peek", ["x", "x"], ["y"], name="peek",
                          domain="local")],
        [vi("x", [2, 3])], [vi("y", [2, 3])], functions=[outside],
        extra_opsets=[("local", 1)]),
        "node 'peek' (Peek) has 2 inputs and 1 outputs; function 'Peek' "
        "takes at most 1 and makes 1")
    refout = helper.make_node("LeakyRelu", ["x"], ["y"], name="lr")
    refout.attribute.append(ref_attr("alpha", "alpha", AttributeProto.FLOAT))
    cases.expect_error("ref_attr_name outside a function", model(
        [refout], [vi("x", [2, 3])], [vi("y", [2, 3])]),
        "node 'lr' (LeakyRelu): attribute 'alpha' refers to 'alpha' "
        "(ref_attr_name), which only a function's nodes may do")
    return cases.summary()


def main():
    args = arguments(__doc__)
    with tempfile.TemporaryDirectory() as work:
        return run(Cases(args, work))


if __name__ == "__main__":
    sys.exit(main())
