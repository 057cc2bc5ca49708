#!/usr/bin/env python3
"""qoperator.py - rewrites a QDQ model (make_quantized_models.py: PyTorch's
static quantization exported as QuantizeLinear / DequantizeLinear around
float Conv, Gemm, Add, MaxPool, GlobalAveragePool and Flatten) into the
other two forms ONNX Runtime's quantization tool writes, which is not
available here:

  qoperator: QLinearConv (Conv, Conv + Relu), QLinearConv 1x1 between two
    Reshapes (Gemm), com.microsoft QLinearAdd (Add, Add + Relu),
    com.microsoft QLinearGlobalAveragePool, and MaxPool / Flatten on the
    quantized tensor itself when they keep its scale and zero point. A Relu
    is dropped only where the output's saturation already implies it (zero
    point at the bottom of the range); a group that does not match stays in
    QDQ form.
  dynamic: activations in f32; each Conv / Gemm with a quantized constant
    weight becomes DynamicQuantizeLinear of its input, ConvInteger /
    MatMulInteger (the weight as uint8 with its zero point + 128: exact),
    Cast to f32, Mul by input scale x weight scale, Add of the f32 bias.
    Every activation QuantizeLinear -> DequantizeLinear pair goes.

  qoperator.py --form=qoperator|dynamic IN.onnx OUT.onnx

Debian's onnx 1.12 and numpy only.
"""
import argparse
import sys

import numpy as np


def _onnx():
    import onnx
    from onnx import helper, numpy_helper
    return onnx, helper, numpy_helper


class Graph:
    """The nodes of a graph with its constants folded to numpy (Constant,
    ConstantOfShape and Cast of constants) and use counts."""

    def __init__(self, model):
        onnx, helper, numpy_helper = _onnx()
        self.model = model
        self.graph = model.graph
        self.values = {t.name: numpy_helper.to_array(t)
                       for t in self.graph.initializer}
        nodes = []
        for node in self.graph.node:
            if self._fold(node):
                continue
            nodes.append(node)
        self.nodes = nodes
        self.counter = 0
        self.recount()

    def _fold(self, node):
        onnx, helper, numpy_helper = _onnx()
        if node.op_type == "Constant" and node.attribute[0].name == "value":
            self.values[node.output[0]] = numpy_helper.to_array(
                node.attribute[0].t)
            return True
        if node.op_type == "ConstantOfShape" and node.input[0] in self.values:
            value = np.zeros(1, np.float32)
            for a in node.attribute:
                if a.name == "value":
                    value = numpy_helper.to_array(a.t)
            shape = self.values[node.input[0]].astype(np.int64)
            self.values[node.output[0]] = np.full(tuple(shape), value[0],
                                                  value.dtype)
            return True
        if node.op_type == "Cast" and node.input[0] in self.values:
            to = helper.get_attribute_value(node.attribute[0])
            dtype = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[to]
            self.values[node.output[0]] = self.values[node.input[0]].astype(
                dtype)
            return True
        return False

    def recount(self):
        self.producer = {o: n for n in self.nodes for o in n.output}
        self.uses = {}
        for n in self.nodes:
            for i in n.input:
                self.uses[i] = self.uses.get(i, 0) + 1
        for o in self.graph.output:
            self.uses[o.name] = self.uses.get(o.name, 0) + 1

    def only_user(self, name):
        users = [n for n in self.nodes if name in n.input]
        return users[0] if len(users) == 1 and self.uses.get(name) == 1 \
            else None

    def const(self, name, dtype=None):
        array = np.asarray(self.values[name])
        return array.astype(dtype) if dtype is not None else array

    def fresh(self, base):
        self.counter += 1
        return "%s__q%d" % (base, self.counter)

    def add_const(self, base, array):
        name = self.fresh(base)
        self.values[name] = np.asarray(array)
        return name

    def quantized(self, name):
        """(tensor, scale name, zero point name) when `name` is a
        DequantizeLinear of an activation (a QuantizeLinear's output, maybe
        through a Cast to its own type), else None."""
        dq = self.producer.get(name)
        if dq is None or dq.op_type != "DequantizeLinear" or \
                dq.input[0] in self.values:
            return None
        zp = dq.input[2] if len(dq.input) > 2 and dq.input[2] else None
        if zp is None or np.asarray(self.values.get(dq.input[1])).size != 1:
            return None
        return dq.input[0], dq.input[1], zp

    def weight(self, name):
        """(int8 values, scale, zero point) of a DequantizeLinear of a
        constant."""
        dq = self.producer.get(name)
        if dq is None or dq.op_type != "DequantizeLinear" or \
                dq.input[0] not in self.values:
            return None
        zp = self.const(dq.input[2]) if len(dq.input) > 2 and dq.input[2] \
            else np.zeros(1, self.const(dq.input[0]).dtype)
        return self.const(dq.input[0]), self.const(dq.input[1]), zp

    def finish(self, opsets):
        """Drops dead nodes and writes the graph's constants as
        initializers."""
        onnx, helper, numpy_helper = _onnx()
        live = {o.name for o in self.graph.output}
        kept = []
        for node in reversed(self.nodes):
            if any(o in live for o in node.output):
                kept.append(node)
                live.update(i for i in node.input if i)
        kept.reverse()
        del self.graph.node[:]
        self.graph.node.extend(kept)
        del self.graph.initializer[:]
        inputs = {i.name for i in self.graph.input}
        for name in sorted(live):
            if name in self.values and name not in inputs:
                self.graph.initializer.append(
                    numpy_helper.from_array(np.asarray(self.values[name]),
                                            name))
        del self.graph.value_info[:]
        del self.model.opset_import[:]
        for domain, version in opsets:
            self.model.opset_import.append(helper.make_opsetid(domain,
                                                               version))
        return self.model


def _relu_implied(g, zp_name):
    zp = g.const(zp_name)
    low = 0 if zp.dtype == np.uint8 else -128
    return int(zp.reshape(-1)[0]) == low


def _through_relu(g, name):
    """The QuantizeLinear that reads `name` (the op's only user), through
    one Relu; (quantize node, relu node or None)."""
    user = g.only_user(name)
    relu = None
    if user is not None and user.op_type == "Relu":
        relu = user
        user = g.only_user(relu.output[0])
    if user is None or user.op_type != "QuantizeLinear" or len(user.input) < 3:
        return None, None
    if relu is not None and not _relu_implied(g, user.input[2]):
        return None, None
    return user, relu


def _bias_int32(g, name, x_scale, w_scale, channels):
    """The bias as QLinearConv wants it: int32 in steps of x_scale *
    w_scale[c], zero point 0."""
    if not name:
        return None
    dq = g.producer.get(name)
    if dq is not None and dq.op_type == "DequantizeLinear" and \
            dq.input[0] in g.values:
        zp = g.const(dq.input[2]) if len(dq.input) > 2 and dq.input[2] else 0
        real = (g.const(dq.input[0], np.float64) - zp) * \
            g.const(dq.input[1], np.float64)
    elif name in g.values:
        real = g.const(name, np.float64)
    else:
        return False
    steps = np.broadcast_to(x_scale * w_scale, (channels,)).astype(np.float64)
    return np.rint(real / steps).astype(np.int32)


def to_qoperator(model):
    onnx, helper, numpy_helper = _onnx()
    g = Graph(model)
    out = []
    replaced = {}
    for node in g.nodes:
        if id(node) in replaced:
            out.extend(replaced.pop(id(node)))
            continue
        new = None
        if node.op_type in ("Conv", "Gemm"):
            new = _qlinear_conv(g, node)
        elif node.op_type == "Add":
            new = _qlinear_add(g, node)
        elif node.op_type == "GlobalAveragePool":
            new = _qlinear_pool(g, node)
        elif node.op_type in ("MaxPool", "Flatten"):
            new = _on_quantized(g, node)
        if new is None:
            out.append(node)
            continue
        # The new nodes take the place of the QuantizeLinear (their last
        # output is its output); the float op and its Relu go.
        quantize, nodes = new
        replaced[id(quantize)] = nodes
    g.nodes = [n for n in out]
    g.recount()
    return g.finish([("", 13), ("com.microsoft", 1)])


def _qlinear_conv(g, node):
    onnx, helper, numpy_helper = _onnx()
    x = g.quantized(node.input[0])
    w = g.weight(node.input[1])
    if x is None or w is None:
        return None
    quantize, relu = _through_relu(g, node.output[0])
    if quantize is None:
        return None
    wq, ws, wz = w
    x_scale = float(g.const(x[1]).reshape(-1)[0])
    if node.op_type == "Gemm":
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if attrs.get("transA", 0) or attrs.get("alpha", 1.0) != 1.0 or \
                attrs.get("beta", 1.0) != 1.0:
            return None
        if not attrs.get("transB", 0):
            wq = wq.T
        wq = wq.reshape(wq.shape[0], wq.shape[1], 1, 1)
    channels = wq.shape[0]
    bias = _bias_int32(g, node.input[2] if len(node.input) > 2 else "",
                       x_scale, ws.astype(np.float64), channels)
    if bias is False:
        return None
    inputs = [x[0], x[1], x[2], g.add_const("w", wq),
              g.add_const("w_scale", ws.astype(np.float32)),
              g.add_const("w_zero_point", wz.astype(wq.dtype)),
              quantize.input[1], quantize.input[2]]
    if bias is not None:
        inputs.append(g.add_const("bias", bias))
    name = node.name or node.output[0]
    if node.op_type == "Conv":
        attrs = [a for a in node.attribute]
        conv = helper.make_node("QLinearConv", inputs, [quantize.output[0]],
                                name=name + "_quant")
        conv.attribute.extend(attrs)
        return quantize, [conv]
    # A Gemm: [N, C] -> [N, C, 1, 1], a 1x1 QLinearConv, back to [N, F].
    column = g.fresh(name + "_nchw")
    result = g.fresh(name + "_nf11")
    inputs[0] = column
    return quantize, [
        helper.make_node("Reshape", [x[0], g.add_const(
            "shape", np.array([0, -1, 1, 1], np.int64))], [column]),
        helper.make_node("QLinearConv", inputs, [result],
                         name=name + "_quant"),
        helper.make_node("Reshape", [result, g.add_const(
            "shape", np.array([0, -1], np.int64))], [quantize.output[0]]),
    ]


def _qlinear_add(g, node):
    onnx, helper, numpy_helper = _onnx()
    a = g.quantized(node.input[0])
    b = g.quantized(node.input[1])
    if a is None or b is None:
        return None
    quantize, relu = _through_relu(g, node.output[0])
    if quantize is None:
        return None
    add = helper.make_node(
        "QLinearAdd", [a[0], a[1], a[2], b[0], b[1], b[2], quantize.input[1],
                       quantize.input[2]], [quantize.output[0]],
        domain="com.microsoft", name=(node.name or node.output[0]) + "_quant")
    return quantize, [add]


def _qlinear_pool(g, node):
    onnx, helper, numpy_helper = _onnx()
    x = g.quantized(node.input[0])
    quantize, relu = _through_relu(g, node.output[0])
    if x is None or quantize is None or relu is not None:
        return None
    pool = helper.make_node(
        "QLinearGlobalAveragePool", [x[0], x[1], x[2], quantize.input[1],
                                     quantize.input[2]],
        [quantize.output[0]], domain="com.microsoft", channels_last=0,
        name=(node.name or node.output[0]) + "_quant")
    return quantize, [pool]


def _on_quantized(g, node):
    """MaxPool / Flatten between a DequantizeLinear and a QuantizeLinear of
    the same scale and zero point: the op on the quantized tensor."""
    onnx, helper, numpy_helper = _onnx()
    x = g.quantized(node.input[0])
    quantize, relu = _through_relu(g, node.output[0])
    if x is None or quantize is None or relu is not None:
        return None
    same = all(np.array_equal(g.const(p), g.const(q)) and
               g.const(p).dtype == g.const(q).dtype
               for p, q in ((x[1], quantize.input[1]),
                            (x[2], quantize.input[2])))
    if not same:
        return None
    op = helper.make_node(node.op_type, [x[0]], [quantize.output[0]],
                          name=(node.name or node.output[0]) + "_quant")
    op.attribute.extend(node.attribute)
    return quantize, [op]


def to_dynamic(model):
    onnx, helper, numpy_helper = _onnx()
    g = Graph(model)
    # Activations in f32: a DequantizeLinear of an activation reads the
    # QuantizeLinear's float input instead (its scale is gone).
    alias = {}
    for node in g.nodes:
        if node.op_type == "DequantizeLinear" and node.input[0] not in g.values:
            source = node.input[0]
            producer = g.producer.get(source)
            while producer is not None and producer.op_type == "Cast":
                source = producer.input[0]
                producer = g.producer.get(source)
            if producer is not None and producer.op_type == "QuantizeLinear":
                alias[node.output[0]] = producer.input[0]
    out = []
    for node in g.nodes:
        for i, name in enumerate(node.input):
            while name in alias:
                name = alias[name]
            node.input[i] = name
        if node.op_type in ("Conv", "Gemm"):
            new = _integer_op(g, node)
            if new is not None:
                out.extend(new)
                continue
        out.append(node)
    g.nodes = out
    g.recount()
    # The graph's output was a DequantizeLinear: it reads the float value
    # now, through an Identity keeping its name.
    final = []
    for o in g.graph.output:
        name = o.name
        if name in alias:
            source = alias[name]
            while source in alias:
                source = alias[source]
            final.append(helper.make_node("Identity", [source], [name]))
    g.nodes = [n for n in g.nodes if not (n.output and n.output[0] in
                                          {o.name for o in g.graph.output}
                                          and n.op_type == "DequantizeLinear")]
    g.nodes += final
    g.recount()
    return g.finish([("", 13)])


def _integer_op(g, node):
    onnx, helper, numpy_helper = _onnx()
    w = g.weight(node.input[1])
    if w is None:
        return None
    wq, ws, wz = w
    name = node.name or node.output[0]
    # uint8 weights (ONNX Runtime's ConvInteger kernel takes uint8 x
    # uint8): w + 128 with the zero point + 128, the same products.
    wu = (wq.astype(np.int32) + 128).astype(np.uint8)
    wzu = (wz.astype(np.int32) + 128).astype(np.uint8)
    channels = wq.shape[0]
    if node.op_type == "Gemm":
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if attrs.get("transA", 0) or attrs.get("alpha", 1.0) != 1.0 or \
                attrs.get("beta", 1.0) != 1.0:
            return None
        if attrs.get("transB", 0):
            wu = np.ascontiguousarray(wu.T)
        channels = wu.shape[1]
    # ONNX Runtime's ConvInteger takes a per-tensor weight zero point only:
    # per-channel zero points that are all equal (symmetric weights) become
    # one; others leave the layer in QDQ form.
    if wzu.size > 1 and not np.all(wzu == wzu.reshape(-1)[0]):
        return None
    wzu = wzu.reshape(-1)[:1].reshape(())
    xq, xs, xz = (g.fresh(name + "_xq"), g.fresh(name + "_xs"),
                  g.fresh(name + "_xz"))
    acc, accf, scale, scaled = (g.fresh(name + "_acc"), g.fresh(name + "_accf"),
                                g.fresh(name + "_scale"),
                                g.fresh(name + "_scaled"))
    nodes = [helper.make_node("DynamicQuantizeLinear", [node.input[0]],
                              [xq, xs, xz])]
    ws = np.broadcast_to(ws.reshape(-1).astype(np.float32), (channels,))
    if node.op_type == "Conv":
        integer = helper.make_node(
            "ConvInteger", [xq, g.add_const("w", wu), xz,
                            g.add_const("w_zero_point", wzu)], [acc],
            name=name + "_integer")
        integer.attribute.extend(node.attribute)
        ws_shaped = ws.reshape(1, channels, 1, 1)
    else:
        integer = helper.make_node(
            "MatMulInteger", [xq, g.add_const("w", wu), xz,
                              g.add_const("w_zero_point", wzu)], [acc],
            name=name + "_integer")
        ws_shaped = ws.reshape(1, channels)
    nodes += [integer,
              helper.make_node("Cast", [acc], [accf], to=1),
              helper.make_node("Mul", [xs, g.add_const("w_scale", ws_shaped)],
                               [scale])]
    bias_name = node.input[2] if len(node.input) > 2 else ""
    if bias_name:
        dq = g.producer.get(bias_name)
        if dq is not None and dq.op_type == "DequantizeLinear":
            zp = g.const(dq.input[2]) if len(dq.input) > 2 and dq.input[2] \
                else 0
            bias = (g.const(dq.input[0], np.float64) - zp) * \
                g.const(dq.input[1], np.float64)
        else:
            bias = g.const(bias_name, np.float64)
        shape = (1, channels, 1, 1) if node.op_type == "Conv" else \
            (1, channels)
        nodes += [helper.make_node("Mul", [accf, scale], [scaled]),
                  helper.make_node("Add", [scaled, g.add_const(
                      "bias", bias.astype(np.float32).reshape(shape))],
                      [node.output[0]])]
    else:
        nodes.append(helper.make_node("Mul", [accf, scale], [node.output[0]]))
    return nodes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--form", choices=["qoperator", "dynamic"],
                        required=True)
    parser.add_argument("input")
    parser.add_argument("output")
    args = parser.parse_args()
    onnx, helper, numpy_helper = _onnx()
    model = onnx.load(args.input)
    model = to_qoperator(model) if args.form == "qoperator" else \
        to_dynamic(model)
    onnx.save(model, args.output)
    counts = {}
    for node in model.graph.node:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    print("%s: %s" % (args.output, ", ".join(
        "%s %d" % kv for kv in sorted(counts.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
