#!/usr/bin/env python3
"""opset_test.py - models of opsets 18 to 21 (newer than Debian's onnx
1.12 knows) made here with onnx.helper, their opset imports set by hand and
never passed to onnx's checker: GroupNormalization (18 and 21), the Bitwise
ops, Mish, Reduce* with axes as an input (run-time data and constants,
noop_with_empty_axes), Resize's axes, keep_aspect_ratio_policy and
half_pixel_symmetric, ScatterElements' max and min, GridSample's opset-20
mode names, ops unchanged since opset 17 imported at 21, and the
shape-deciding operands of older opsets that arrive as run-time data
(CumSum's axis, TopK's K). Each is compiled with strata-compile, run with
strata-run and compared with numpy; bad run-time values (an axis out of
range, K beyond the axis) fail the call with the node's message, and
antialias is refused at compile time. Prints one line per case and `N
passed, N failed`."""

import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from model_cases import Cases, arguments, model

F32 = TensorProto.FLOAT
I64 = TensorProto.INT64


def vi(name, shape, elem=F32):
    return helper.make_tensor_value_info(name, elem, shape)


def single(op, inputs, outputs, opset, initializers=(), **attrs):
    """A model of one node named 'n' reading graph inputs `inputs` (name,
    shape, type) that are not initializers."""
    names = [name for name, _, _ in inputs]
    init_names = {t.name for t in initializers}
    node = helper.make_node(op, names, [name for name, _, _ in outputs],
                            name="n", **attrs)
    return model([node],
                 [vi(name, shape, elem) for name, shape, elem in inputs
                  if name not in init_names],
                 [vi(name, shape, elem) for name, shape, elem in outputs],
                 initializers, opset=opset)


def expect_run_error(cases, name, m, inputs, text):
    """`m` compiles, and a call on `inputs` fails with `text` in its
    error, without a crash."""
    path = cases.save(m)
    vmfb = path[:-5] + ".vmfb"
    result = cases.compile(path, "-o", vmfb)
    if result.returncode != 0:
        return cases.check(name, False, "compile: " + result.stderr[-1500:])
    cmd = [cases.args.strata_run, "--module=" + vmfb]
    for i, x in enumerate(inputs):
        p = "%s.in%d.npy" % (path[:-5], i)
        np.save(p, x)
        cmd.append("--input=@" + p)
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    ok = (run.returncode != 0 and text in run.stderr and
          run.returncode > 0)
    return cases.check(name, ok, "exit %d: %s" % (run.returncode,
                                                 run.stderr.strip()[-800:]))


def reduce_ref(kind, x, axes, keep):
    axes = tuple(axes)
    if kind == "ReduceSum":
        return np.sum(x, axis=axes, keepdims=keep)
    if kind == "ReduceMean":
        return np.mean(x, axis=axes, keepdims=keep)
    if kind == "ReduceMax":
        return np.max(x, axis=axes, keepdims=keep)
    if kind == "ReduceLogSumExp":
        return np.log(np.sum(np.exp(x), axis=axes, keepdims=keep))
    if kind == "ReduceL2":
        return np.sqrt(np.sum(x * x, axis=axes, keepdims=keep))
    raise ValueError(kind)


def resize_axis(n_in, n_out, scale, mode, nearest):
    """Source indices and weights along one axis (nearest: one tap,
    linear: two), as ONNX's Resize defines them."""
    x = np.arange(n_out, dtype=np.float64)
    if mode == "asymmetric":
        c = x / scale
    elif mode == "half_pixel_symmetric":
        adjustment = n_out / (n_in * scale)
        c = 0.5 * n_in * (1 - adjustment) + (x + 0.5) / scale - 0.5
    else:
        c = (x + 0.5) / scale - 0.5
    if nearest:
        i = np.clip(np.ceil(c - 0.5), 0, n_in - 1).astype(int)
        return [(i, np.ones(n_out))]
    f = np.floor(c)
    t = c - f
    i0 = np.clip(f, 0, n_in - 1).astype(int)
    i1 = np.clip(f + 1, 0, n_in - 1).astype(int)
    return [(i0, 1 - t), (i1, t)]


def resize_ref(x, out, scales, mode, nearest):
    y = x.astype(np.float64)
    for d in range(x.ndim):
        if out[d] == x.shape[d] and scales[d] == 1:
            continue
        taps = resize_axis(x.shape[d], out[d], scales[d], mode, nearest)
        acc = 0
        for index, weight in taps:
            shape = [1] * x.ndim
            shape[d] = out[d]
            acc = acc + np.take(y, index, axis=d) * weight.reshape(shape)
        y = acc
    return y.astype(x.dtype)


def group_norm_ref(x, scale, bias, groups, eps, per_channel):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1).astype(np.float64)
    mean = g.mean(axis=2, keepdims=True)
    var = g.var(axis=2, keepdims=True)
    y = ((g - mean) / np.sqrt(var + eps)).reshape(x.shape)
    shape = [1, c] + [1] * (x.ndim - 2)
    if not per_channel:
        scale = np.repeat(scale, c // groups)
        bias = np.repeat(bias, c // groups)
    return (y * scale.reshape(shape) + bias.reshape(shape)).astype(x.dtype)


def run(cases):
    rng = np.random.default_rng(18)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)

    # Reduce* at opset 18: axes as a graph input (read at run time).
    for kind in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceLogSumExp",
                 "ReduceL2"):
        for axes, keep in (([1], 1), ([-1, 0], 0), ([2], 0)):
            out_shape = list(reduce_ref(kind, x, axes, keep).shape)
            m = single(kind, [("x", [2, 3, 4], F32),
                              ("axes", [len(axes)], I64)],
                       [("y", ["?"] * len(out_shape), F32)], 18,
                       keepdims=keep)
            cases.run_model("%s-18 run-time axes %s keepdims=%d" %
                            (kind, axes, keep), m,
                            [x, np.array(axes, np.int64)],
                            [reduce_ref(kind, x, axes, keep)], rtol=1e-4)
    # Constant axes (an initializer) and empty axes.
    axes = numpy_helper.from_array(np.array([0, 2], np.int64), "axes")
    cases.run_model("ReduceMean-18 constant axes", single(
        "ReduceMean", [("x", [2, 3, 4], F32), ("axes", [2], I64)],
        [("y", [1, 3, 1], F32)], 18, [axes]), [x],
        [np.mean(x, axis=(0, 2), keepdims=True)])
    empty = numpy_helper.from_array(np.zeros((0,), np.int64), "axes")
    cases.run_model("ReduceMax-18 empty axes reduces all", single(
        "ReduceMax", [("x", [2, 3, 4], F32), ("axes", [0], I64)],
        [("y", [1, 1, 1], F32)], 18, [empty]), [x],
        [np.max(x, keepdims=True)])
    cases.run_model("ReduceSum-18 empty axes, noop_with_empty_axes", single(
        "ReduceSum", [("x", [2, 3, 4], F32), ("axes", [0], I64)],
        [("y", [2, 3, 4], F32)], 18, [empty], noop_with_empty_axes=1), [x],
        [x])
    cases.run_model("ReduceSum-18 without axes", single(
        "ReduceSum", [("x", [2, 3, 4], F32)], [("y", [1, 1, 1], F32)], 18),
        [x], [np.sum(x, keepdims=True)], rtol=1e-4)
    m = single("ReduceSum", [("x", [2, 3, 4], F32), ("axes", [2], I64)],
               [("y", ["?", "?", "?"], F32)], 18)
    expect_run_error(cases, "ReduceSum-18 axis out of range at run time", m,
                     [x, np.array([0, 3], np.int64)],
                     "onnx node 'n' (ReduceSum, opset 18): an axis is "
                     "outside [-3, 3) at run time")
    expect_run_error(cases, "ReduceSum-18 axis listed twice at run time", m,
                     [x, np.array([1, -2], np.int64)],
                     "onnx node 'n' (ReduceSum, opset 18): axes lists an "
                     "axis twice at run time")

    # CumSum's axis and TopK's K as run-time data.
    for axis in (0, 1, -1):
        for exclusive, reverse in ((0, 0), (1, 0), (0, 1), (1, 1)):
            want = x
            if reverse:
                want = np.flip(want, axis)
            want = np.cumsum(want, axis=axis)
            if exclusive:
                want = want - (np.flip(x, axis) if reverse else x)
            if reverse:
                want = np.flip(want, axis)
            cases.run_model(
                "CumSum run-time axis %d exclusive=%d reverse=%d" %
                (axis, exclusive, reverse),
                single("CumSum", [("x", [2, 3, 4], F32), ("axis", [], I64)],
                       [("y", [2, 3, 4], F32)], 14, exclusive=exclusive,
                       reverse=reverse),
                [x, np.array(axis, np.int64)], [want.astype(np.float32)],
                rtol=1e-4, atol=1e-5)
    t = rng.permutation(24).astype(np.float32).reshape(2, 3, 4)
    for k, largest in ((2, 1), (3, 0), (0, 1)):
        order = np.argsort(-t if largest else t, axis=1, kind="stable")
        index = order[:, :k, :]
        cases.run_model(
            "TopK-11 run-time K=%d largest=%d" % (k, largest),
            single("TopK", [("x", [2, 3, 4], F32), ("k", [1], I64)],
                   [("v", [2, "?", 4], F32), ("i", [2, "?", 4], I64)], 11,
                   axis=1, largest=largest),
            [t, np.array([k], np.int64)],
            [np.take_along_axis(t, index, 1), index.astype(np.int64)])
    m = single("TopK", [("x", [2, 3, 4], F32), ("k", [1], I64)],
               [("v", [2, "?", 4], F32), ("i", [2, "?", 4], I64)], 11,
               axis=1)
    expect_run_error(cases, "TopK K beyond the axis at run time", m,
                     [t, np.array([4], np.int64)],
                     "onnx node 'n' (TopK, opset 11): K is outside [0, 3] "
                     "at run time")

    # GroupNormalization: scale and bias per group (18), per channel (21).
    g = rng.standard_normal((2, 4, 3, 2)).astype(np.float32)
    for opset, per_channel in ((18, False), (21, True)):
        count = 4 if per_channel else 2
        scale = rng.standard_normal(count).astype(np.float32)
        bias = rng.standard_normal(count).astype(np.float32)
        cases.run_model("GroupNormalization-%d" % opset, single(
            "GroupNormalization", [("x", [2, 4, 3, 2], F32),
                                   ("s", [count], F32), ("b", [count], F32)],
            [("y", [2, 4, 3, 2], F32)], opset, num_groups=2, epsilon=1e-3),
            [g, scale, bias],
            [group_norm_ref(g, scale, bias, 2, 1e-3, per_channel)],
            rtol=1e-4, atol=1e-5)

    # Bitwise ops on signed and unsigned integers.
    for elem, dtype in ((TensorProto.INT32, np.int32),
                        (TensorProto.UINT8, np.uint8)):
        a = rng.integers(0, 200, (3, 4)).astype(dtype)
        b = rng.integers(0, 200, (3, 4)).astype(dtype)
        for op, fn in (("BitwiseAnd", np.bitwise_and),
                       ("BitwiseOr", np.bitwise_or),
                       ("BitwiseXor", np.bitwise_xor)):
            cases.run_model("%s-18 %s" % (op, np.dtype(dtype).name), single(
                op, [("a", [3, 4], elem), ("b", [3, 4], elem)],
                [("y", [3, 4], elem)], 18), [a, b], [fn(a, b)])
        cases.run_model("BitwiseNot-18 %s" % np.dtype(dtype).name, single(
            "BitwiseNot", [("a", [3, 4], elem)], [("y", [3, 4], elem)], 18),
            [a], [np.invert(a)])

    # Mish: x * tanh(softplus(x)).
    mx = (rng.standard_normal((3, 5)) * 4).astype(np.float32)
    cases.run_model("Mish-18", single(
        "Mish", [("x", [3, 5], F32)], [("y", [3, 5], F32)], 18), [mx],
        [(mx * np.tanh(np.log1p(np.exp(mx.astype(np.float64))))).astype(
            np.float32)], rtol=1e-4, atol=1e-5)

    # Resize-18: sizes for axes (2, 3) only, read at run time.
    r = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    none = ""
    node = helper.make_node("Resize", ["x", none, none, "sizes"], ["y"],
                            name="n", axes=[2, 3], mode="linear")
    m = model([node], [vi("x", [1, 2, 3, 4]), vi("sizes", [2], I64)],
              [vi("y", [1, 2, "?", "?"])], opset=18)
    cases.run_model("Resize-18 run-time sizes for axes (2, 3)", m,
                    [r, np.array([5, 6], np.int64)],
                    [resize_ref(r, [1, 2, 5, 6], [1, 1, 5 / 3, 6 / 4],
                                "half_pixel", False)], rtol=1e-4, atol=1e-5)
    # keep_aspect_ratio_policy: one scale for the listed axes.
    for policy, scale, out in (("not_larger", 5 / 3, [1, 2, 5, 7]),
                               ("not_smaller", 3.0, [1, 2, 9, 12])):
        sizes = numpy_helper.from_array(np.array([5, 7] if policy ==
                                                 "not_larger" else [9, 7],
                                                 np.int64), "sizes")
        node = helper.make_node("Resize", ["x", none, none, "sizes"], ["y"],
                                name="n", axes=[2, 3], mode="nearest",
                                keep_aspect_ratio_policy=policy)
        m = model([node], [vi("x", [1, 2, 3, 4])], [vi("y", out)], [sizes],
                  opset=18)
        cases.run_model("Resize-18 keep_aspect_ratio_policy %s" % policy, m,
                        [r], [resize_ref(r, out, [1, 1, scale, scale],
                                         "half_pixel", True)])
    # half_pixel_symmetric (opset 19), scales known and read at run time.
    for known in (True, False):
        scales = np.array([1, 1, 0.6, 1.7], np.float32)
        init = [numpy_helper.from_array(scales, "scales")] if known else []
        node = helper.make_node("Resize", ["x", none, "scales"], ["y"],
                                name="n", mode="linear",
                                coordinate_transformation_mode=
                                "half_pixel_symmetric")
        inputs = [vi("x", [1, 2, 3, 4])] + ([] if known else
                                            [vi("scales", [4])])
        m = model([node], inputs, [vi("y", [1, 2, 1, 6])], init, opset=19)
        cases.run_model("Resize-19 half_pixel_symmetric, %s scales" %
                        ("constant" if known else "run-time"), m,
                        [r] if known else [r, scales],
                        [resize_ref(r, [1, 2, 1, 6],
                                    [1, 1, float(np.float32(0.6)),
                                     float(np.float32(1.7))],
                                    "half_pixel_symmetric", False)],
                        rtol=1e-4, atol=1e-5)
    node = helper.make_node("Resize", ["x", none, "scales"], ["y"], name="n",
                            antialias=1, mode="linear")
    cases.expect_error("Resize-18 antialias is refused", model(
        [node], [vi("x", [1, 2, 3, 4])], [vi("y", [1, 2, 1, 2])],
        [numpy_helper.from_array(np.array([1, 1, 0.5, 0.5], np.float32),
                                 "scales")], opset=18),
        "onnx node 'n' (Resize, opset 18): antialias = 1 (an antialiasing "
        "filter when downsampling) is not supported")

    # ScatterElements-18's max and min reductions.
    data = rng.standard_normal((3, 4)).astype(np.float32)
    idx = np.array([[0, 1, 0, 2], [0, 1, 0, 2]], np.int64)
    upd = rng.standard_normal((2, 4)).astype(np.float32)
    for reduction, fn in (("max", np.maximum), ("min", np.minimum)):
        want = data.copy()
        for i in range(2):
            for j in range(4):
                want[idx[i, j], j] = fn(want[idx[i, j], j], upd[i, j])
        cases.run_model("ScatterElements-18 reduction %s" % reduction,
                        single("ScatterElements",
                               [("d", [3, 4], F32), ("i", [2, 4], I64),
                                ("u", [2, 4], F32)], [("y", [3, 4], F32)],
                               18, axis=0, reduction=reduction),
                        [data, idx, upd], [want])

    # GridSample-20 names its bilinear mode "linear".
    gx = rng.standard_normal((1, 1, 3, 3)).astype(np.float32)
    grid = np.zeros((1, 1, 1, 2), np.float32)
    cases.run_model("GridSample-20 mode linear", single(
        "GridSample", [("x", [1, 1, 3, 3], F32), ("g", [1, 1, 1, 2], F32)],
        [("y", [1, 1, 1, 1], F32)], 20, mode="linear", align_corners=1),
        [gx, grid], [gx[:, :, 1:2, 1:2]])

    # Ops whose semantics did not change, imported at opset 21.
    a = rng.standard_normal((2, 3)).astype(np.float32)
    w = rng.standard_normal((3, 4)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["a", "w"], ["m"]),
             helper.make_node("Relu", ["m"], ["r"]),
             helper.make_node("Softmax", ["r"], ["s"], axis=-1),
             helper.make_node("Transpose", ["s"], ["y"], perm=[1, 0])]
    r21 = np.maximum(a @ w, 0)
    e = np.exp(r21 - r21.max(axis=-1, keepdims=True))
    cases.run_model("MatMul, Relu, Softmax, Transpose at opset 21", model(
        nodes, [vi("a", [2, 3]), vi("w", [3, 4])], [vi("y", [4, 2])],
        opset=21), [a, w], [(e / e.sum(axis=-1, keepdims=True)).T],
        rtol=1e-4, atol=1e-6)
    return cases.summary()


def main():
    args = arguments(__doc__)
    with tempfile.TemporaryDirectory() as work:
        return run(Cases(args, work))


if __name__ == "__main__":
    sys.exit(main())
