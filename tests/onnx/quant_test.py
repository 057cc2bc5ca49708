#!/usr/bin/env python3
"""quant_test.py - integer contractions on models made with onnx.helper:
ConvInteger, MatMulInteger, QLinearConv and QLinearMatMul with int8 and
uint8 on either side (zero points as constants and as graph inputs), a
dynamically quantized convolution (DynamicQuantizeLinear -> ConvInteger on
its uint8 output and run-time zero point; MatMulInteger on 3-D
activations with the dequantization and bias after it), ConvInteger and
MatMulInteger with constant weights on the int8 path (padded, strided,
1x1 and depthwise; per-channel zero points; the i32 path when W' leaves
i8), and ONNX Runtime's
com.microsoft QLinearAdd (broadcasting, saturating) and
QLinearGlobalAveragePool, DequantizeLinear -> MaxPool -> QuantizeLinear
(the pool on the 8-bit values when both sides share their parameters)
and QuantizeLinear's f32 division at ties and QLinearAdd's f32 sum near
them, each compiled, run with
strata-run and compared exactly with a numpy reference; a per-channel
QLinearAdd scale is refused
with an error naming the input. Prints one line per case and `N passed,
N failed`."""

import itertools
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from model_cases import Cases, arguments, model

ONNX_TYPE = {np.int8: TensorProto.INT8, np.uint8: TensorProto.UINT8,
             np.int32: TensorProto.INT32, np.float32: TensorProto.FLOAT}


def vi(name, array):
    return helper.make_tensor_value_info(name, ONNX_TYPE[array.dtype.type],
                                         list(array.shape))


def conv2d(x, w, pads=(0, 0, 0, 0), strides=(1, 1)):
    """NCHW x OIHW in int64, group 1."""
    x = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (pads[0], pads[2]),
                                    (pads[1], pads[3])))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh = (h - kh) // strides[0] + 1
    ow = (wd - kw) // strides[1] + 1
    y = np.zeros((n, o, oh, ow), np.int64)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * strides[0]:i * strides[0] + kh,
                      j * strides[1]:j * strides[1] + kw]
            y[:, :, i, j] = np.einsum("nchw,ochw->no", patch,
                                      w.astype(np.int64))
    return y


def random_of(rng, dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape).astype(dtype)


def requantize(acc, scale, zp):
    info = np.iinfo(zp.dtype)
    y = np.round(acc.astype(np.float64) * scale) + int(zp)
    return np.clip(y, info.min, info.max).astype(zp.dtype)


def max_pool(x, k, s, pads, fill):
    """NCHW max pool in x's type, `pads` (top, left, bottom, right) of
    `fill`, which no window takes over a value of x."""
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])),
               constant_values=fill)
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    y = np.empty((n, c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            y[:, :, i, j] = x[:, :, i * s:i * s + k, j * s:j * s + k].max(
                axis=(2, 3))
    return y


def qdq_max_pools(cases, rng):
    """DequantizeLinear -> MaxPool -> QuantizeLinear: with one scale and
    zero point on both sides the pool runs on the 8-bit values (exact);
    with another scale after it, on the f32 values, quantized again (f32
    division, as ONNX's reference)."""
    for t, shape, k, s, pads in [
            (np.uint8, (2, 3, 7, 5), 3, 2, (1, 1, 1, 1)),
            (np.int8, (1, 17, 6, 9), 3, 2, (0, 1, 1, 0)),
            (np.uint8, (1, 1, 1, 1), 1, 1, (0, 0, 0, 0)),
            (np.int8, (3, 2, 11, 13), 2, 2, (1, 0, 0, 1))]:
        x = random_of(rng, t, shape)
        scale = np.float32(0.0110530118)
        zp = np.array(t(7 if t is np.uint8 else -5))
        info = np.iinfo(t)
        for out_scale in [scale, np.float32(0.03)]:
            deq = (x.astype(np.int32) - int(zp)).astype(np.float32) * scale
            pooled = max_pool(deq, k, s, pads, -np.inf)
            ref = np.clip(np.rint(pooled / out_scale) + int(zp), info.min,
                          info.max).astype(t)
            if out_scale == scale:
                # The same as pooling the integers themselves.
                assert (ref == max_pool(x, k, s, pads, info.min)).all()
            inits = [numpy_helper.from_array(np.array(scale), "s"),
                     numpy_helper.from_array(np.array(out_scale), "s2"),
                     numpy_helper.from_array(zp, "z")]
            y = np.empty(ref.shape, t)
            cases.run_model(
                "DequantizeLinear -> MaxPool -> QuantizeLinear %s %s k%d "
                "s%d pads %s%s" % (np.dtype(t).name,
                                   "x".join(map(str, shape)), k, s,
                                   list(pads),
                                   "" if out_scale == scale else
                                   ", another scale"),
                model([helper.make_node("DequantizeLinear", ["x", "s", "z"],
                                        ["d"]),
                       helper.make_node("MaxPool", ["d"], ["p"],
                                        kernel_shape=[k, k], strides=[s, s],
                                        pads=list(pads)),
                       helper.make_node("QuantizeLinear", ["p", "s2", "z"],
                                        ["y"])],
                      [vi("x", x)], [vi("y", y)], inits), [x], [ref],
                rtol=0, atol=0)


def quantize_ties(cases):
    """QuantizeLinear of f32 values whose f32 quotient by the scale is a
    tie (k + 0.5) that the exact quotient is not: ONNX's reference divides
    in f32 and rounds the tie to even."""
    scale = np.float32(0.1)
    found = []
    for k in range(-300, 300):
        for candidate in np.arange(k + 0.5 - 1e-3, k + 0.5 + 1e-3, 1e-5):
            x = np.float32(np.float32(candidate) * scale)
            q32 = x / scale
            q64 = np.float64(x) / np.float64(scale)
            if q32 == np.float32(k + 0.5) and np.rint(q32) != np.rint(q64):
                found.append(x)
                break
        if len(found) == 16:
            break
    x = np.array(found, np.float32)
    zp = np.array(np.uint8(128))
    ref = np.clip(np.rint(x / scale) + 128, 0, 255).astype(np.uint8)
    inits = [numpy_helper.from_array(np.array(scale), "s"),
             numpy_helper.from_array(zp, "z")]
    cases.run_model(
        "QuantizeLinear f32 ties (%d values the f64 quotient rounds the "
        "other way)" % len(found),
        model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])],
              [vi("x", x)], [vi("y", ref)], inits), [x], [ref], rtol=0,
        atol=0)


def qlinear_add_ties(cases):
    """com.microsoft QLinearAdd on pairs whose sum in f32 (each term (x -
    zp) * (scale / C_scale), the quotient in f32, the product and the sum
    rounded separately) rounds to another integer than the sum in f64 or
    with the product and the sum fused: the lowering computes in f32 (as
    ONNX Runtime's float path), unfused."""
    ms = [("com.microsoft", 1)]
    sa, sb, sc = np.float32(0.1), np.float32(0.07), np.float32(0.3)
    for t in (np.uint8, np.int8):
        info = np.iinfo(t)
        azp, bzp, czp = t(3), t(-7 if t is np.int8 else 200), t(10)
        values = np.arange(info.min, info.max + 1)
        pa, pb = [m.ravel() for m in np.meshgrid(values, values)]
        da = pa.astype(np.float32) - np.float32(int(azp))
        db = pb.astype(np.float32) - np.float32(int(bzp))
        v32 = da * (sa / sc) + db * (sb / sc)
        assert v32.dtype == np.float32
        v64 = (da.astype(np.float64) * (np.float64(sa) / np.float64(sc)) +
               db.astype(np.float64) * (np.float64(sb) / np.float64(sc)))
        fused = np.float32(da.astype(np.float64) *
                           np.float64(sa / sc) + db * (sb / sc))
        q = np.rint(v32) + int(czp)
        pick = np.flatnonzero(
            ((np.rint(v64) != np.rint(v32)) | (np.rint(fused) != np.rint(v32)))
            & (q > info.min) & (q < info.max))[:32]
        assert len(pick) == 32
        a, b = pa[pick].astype(t), pb[pick].astype(t)
        ref = q[pick].astype(t)
        inits = [numpy_helper.from_array(np.array(x, np.float32), n)
                 for x, n in [(sa, "sa"), (sb, "sb"), (sc, "sc")]]
        inits += [numpy_helper.from_array(np.array(x), n)
                  for x, n in [(azp, "azp"), (bzp, "bzp"), (czp, "czp")]]
        cases.run_model(
            "com.microsoft.QLinearAdd %s near ties (32 pairs f64 or a fused "
            "multiply-add rounds the other way)" % np.dtype(t).name, model(
                [helper.make_node("QLinearAdd", ["a", "sa", "azp", "b", "sb",
                                                 "bzp", "sc", "czp"], ["c"],
                                  domain="com.microsoft")],
                [vi("a", a), vi("b", b)], [vi("c", ref)], inits,
                extra_opsets=ms), [a, b], [ref], rtol=0, atol=0)


def run(cases):
    rng = np.random.default_rng(11)
    kinds = [np.int8, np.uint8]
    for xt, wt in itertools.product(kinds, kinds):
        tag = "%s x %s" % (np.dtype(xt).name, np.dtype(wt).name)
        # MatMulInteger: A 3x5, B 5x4, zero points as inputs.
        a = random_of(rng, xt, (3, 5))
        b = random_of(rng, wt, (5, 4))
        azp = np.array(xt(3))
        bzp = np.array(wt(5))
        ref = ((a.astype(np.int64) - int(azp)) @
               (b.astype(np.int64) - int(bzp))).astype(np.int32)
        cases.run_model("MatMulInteger " + tag, model(
            [helper.make_node("MatMulInteger", ["a", "b", "azp", "bzp"],
                              ["y"])],
            [vi("a", a), vi("b", b), vi("azp", azp), vi("bzp", bzp)],
            [vi("y", ref)]), [a, b, azp, bzp], [ref])
        # ConvInteger: x 1x2x5x5, w 3x2x3x3 a constant, pads 1.
        x = random_of(rng, xt, (1, 2, 5, 5))
        w = random_of(rng, wt, (3, 2, 3, 3))
        xzp = np.array(xt(7))
        wzp = np.array(wt(2))
        ref = conv2d(x.astype(np.int64) - int(xzp),
                     w.astype(np.int64) - int(wzp),
                     pads=(1, 1, 1, 1)).astype(np.int32)
        cases.run_model("ConvInteger " + tag, model(
            [helper.make_node("ConvInteger", ["x", "w", "xzp", "wzp"], ["y"],
                              pads=[1, 1, 1, 1])],
            [vi("x", x), vi("xzp", xzp)], [vi("y", ref)],
            [numpy_helper.from_array(w, "w"),
             numpy_helper.from_array(wzp, "wzp")]), [x, xzp], [ref])
        # QLinearMatMul / QLinearConv with y of the other type.
        yt = wt
        sa, sb, sy = np.float32(0.02), np.float32(0.03), np.float32(0.05)
        yzp = np.array(yt(4))
        acc = ((a.astype(np.int64) - int(azp)) @
               (b.astype(np.int64) - int(bzp)))
        ref = requantize(acc, np.float64(sa) * np.float64(sb) /
                         np.float64(sy), yzp)
        inits = [numpy_helper.from_array(np.array(v, np.float32), n)
                 for v, n in [(sa, "sa"), (sb, "sb"), (sy, "sy")]]
        inits += [numpy_helper.from_array(azp, "azp"),
                  numpy_helper.from_array(bzp, "bzp"),
                  numpy_helper.from_array(yzp, "yzp")]
        cases.run_model("QLinearMatMul " + tag, model(
            [helper.make_node("QLinearMatMul",
                              ["a", "sa", "azp", "b", "sb", "bzp", "sy",
                               "yzp"], ["y"])],
            [vi("a", a), vi("b", b)], [vi("y", ref)], inits), [a, b], [ref],
            rtol=0, atol=0)
        bias = rng.integers(-500, 500, (3,)).astype(np.int32)
        acc = conv2d(x.astype(np.int64) - int(xzp),
                     w.astype(np.int64) - int(wzp), strides=(2, 2)) + \
            bias.reshape(1, 3, 1, 1)
        ref = requantize(acc, np.float64(sa) * np.float64(sb) /
                         np.float64(sy), yzp)
        inits = [numpy_helper.from_array(np.array(v, np.float32), n)
                 for v, n in [(sa, "sa"), (sb, "sb"), (sy, "sy")]]
        inits += [numpy_helper.from_array(xzp, "xzp"),
                  numpy_helper.from_array(wzp, "wzp"),
                  numpy_helper.from_array(yzp, "yzp"),
                  numpy_helper.from_array(w, "w"),
                  numpy_helper.from_array(bias, "bias")]
        cases.run_model("QLinearConv " + tag, model(
            [helper.make_node("QLinearConv",
                              ["x", "sa", "xzp", "w", "sb", "wzp", "sy",
                               "yzp", "bias"], ["y"], strides=[2, 2])],
            [vi("x", x)], [vi("y", ref)], inits), [x], [ref], rtol=0, atol=0)

    # uint8 data and weights without an x zero point, the weight's zero
    # points per output channel (a uint8 vector initializer).
    x = random_of(rng, np.uint8, (1, 2, 4, 4))
    w = random_of(rng, np.uint8, (3, 2, 2, 2))
    wzp = np.array([0, 128, 255], np.uint8)
    ref = conv2d(x, w.astype(np.int64) - wzp.reshape(3, 1, 1, 1).astype(
        np.int64)).astype(np.int32)
    cases.run_model("ConvInteger uint8 with per-channel weight zero points",
                    model([helper.make_node("ConvInteger",
                                            ["x", "w", "", "wzp"], ["y"])],
                          [vi("x", x)], [vi("y", ref)],
                          [numpy_helper.from_array(w, "w"),
                           numpy_helper.from_array(wzp, "wzp")]),
                    [x], [ref])

    # A dynamically quantized convolution, as onnxruntime's quantizer
    # writes it: DynamicQuantizeLinear's uint8 output and zero point (run
    # time values) into ConvInteger with an int8 or uint8 weight.
    for wt in kinds:
        x = rng.standard_normal((1, 3, 6, 6)).astype(np.float32)
        w = random_of(rng, wt, (4, 3, 3, 3))
        wzp = np.array(wt(1))
        w_scale = np.float32(0.01)
        lo, hi = min(0.0, float(x.min())), max(0.0, float(x.max()))
        scale = np.float32((hi - lo) / 255.0)
        zp = np.uint8(np.clip(np.round(np.float32(-lo) / scale), 0, 255))
        q = np.clip(np.round(x / scale) + zp, 0, 255).astype(np.uint8)
        acc = conv2d(q.astype(np.int64) - int(zp),
                     w.astype(np.int64) - int(wzp), pads=(1, 1, 1, 1))
        ref = (acc.astype(np.float32) * (scale * w_scale)).astype(np.float32)
        nodes = [
            helper.make_node("DynamicQuantizeLinear", ["x"],
                             ["q", "q_scale", "q_zp"], name="dql"),
            helper.make_node("ConvInteger", ["q", "w", "q_zp", "wzp"],
                             ["acc"], name="conv", pads=[1, 1, 1, 1]),
            helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["q_scale", "w_scale"], ["s"]),
            helper.make_node("Mul", ["accf", "s"], ["y"]),
        ]
        cases.run_model(
            "DynamicQuantizeLinear -> ConvInteger (%s weight)" %
            np.dtype(wt).name, model(
                nodes, [vi("x", x)], [vi("y", ref)],
                [numpy_helper.from_array(w, "w"),
                 numpy_helper.from_array(wzp, "wzp"),
                 numpy_helper.from_array(np.array(w_scale), "w_scale")]),
            [x], [ref], rtol=1e-5, atol=1e-5)

    # The dynamically quantized transformer's projections: MatMulInteger on
    # 3-D activations with a constant weight, its dequantization and bias.
    # A weight whose W' = w - zero point fits in i8 takes the int8
    # microkernel's i8 x i8 matmul (the u8 activation's top bit flipped, the
    # zero-point term added per column, in the matmul's dispatch); one that
    # does not (the last case) is computed in i32. 2 x 61 rows, 136 deep,
    # 50 columns (enough work for the microkernel; edge sizes of its
    # tiles), and 2 x 7 x 12 x 10 (loops).
    dynamic = [
        ("int8 weight", rng.integers(-100, 101, (136, 50)).astype(np.int8),
         np.array(np.int8(3))),
        ("uint8 weight", rng.integers(100, 231, (136, 50)).astype(np.uint8),
         np.array(np.uint8(128))),
        ("int8 weight, a zero point per column",
         rng.integers(-100, 101, (136, 50)).astype(np.int8),
         rng.integers(-5, 6, (50,)).astype(np.int8)),
        ("small, int8 weight",
         rng.integers(-100, 101, (12, 10)).astype(np.int8),
         np.array(np.int8(-2))),
        ("int8 weight beyond i8 after its zero point",
         random_of(rng, np.int8, (12, 10)), np.array(np.int8(3))),
    ]
    dynamic[4][1][0, 0] = -128
    for what, w, wzp in dynamic:
        depth, columns = w.shape
        x = rng.standard_normal((2, 61 if depth > 12 else 7,
                                 depth)).astype(np.float32)
        w_scale = np.float32(0.02)
        bias = rng.standard_normal((columns,)).astype(np.float32)
        lo, hi = min(0.0, float(x.min())), max(0.0, float(x.max()))
        scale = np.float32((hi - lo) / 255.0)
        zp = np.uint8(np.clip(np.round(np.float32(-lo) / scale), 0, 255))
        q = np.clip(np.round(x / scale) + zp, 0, 255).astype(np.uint8)
        acc = (q.astype(np.int64) - int(zp)) @ (w.astype(np.int64) -
                                                wzp.astype(np.int64))
        ref = (acc.astype(np.float32) * (scale * w_scale) +
               bias).astype(np.float32)
        nodes = [
            helper.make_node("DynamicQuantizeLinear", ["x"],
                             ["q", "q_scale", "q_zp"], name="dql"),
            helper.make_node("MatMulInteger", ["q", "w", "q_zp", "wzp"],
                             ["acc"], name="matmul"),
            helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["q_scale", "w_scale"], ["s"]),
            helper.make_node("Mul", ["accf", "s"], ["scaled"]),
            helper.make_node("Add", ["scaled", "bias"], ["y"]),
        ]
        cases.run_model(
            "DynamicQuantizeLinear -> MatMulInteger 3-D -> dequantize + bias "
            "(%s)" % what, model(
                nodes, [vi("x", x)], [vi("y", ref)],
                [numpy_helper.from_array(w, "w"),
                 numpy_helper.from_array(wzp, "wzp"),
                 numpy_helper.from_array(np.array(w_scale), "w_scale"),
                 numpy_helper.from_array(bias, "bias")]),
            [x], [ref], rtol=1e-5, atol=1e-5)
    # ConvInteger with a constant weight whose W' fits in i8 takes the same
    # int8 path: the input padded with its run-time zero point (a mask
    # selects it), im2col, the i8 matmul, the zero-point term per channel.
    # Padded 3x3 (stride 1 and 2), 1x1, depthwise, u8 and i8 inputs, one
    # zero point or one per channel for the weight; 2 x 3 x 7 x 7 (loops),
    # 2 x 16 x 9 x 9 -> 24 (the microkernel), 32 channels depthwise (its
    # vectors).
    conv_cases = [
        ("u8 input, 3x3 pads 1", np.uint8, (2, 3, 7, 7), (5, 3, 3, 3),
         dict(pads=[1, 1, 1, 1])),
        ("u8 input, 3x3 stride 2 pads 1 0 2 1", np.uint8, (2, 3, 7, 7),
         (5, 3, 3, 3), dict(pads=[1, 0, 2, 1], strides=[2, 2])),
        ("i8 input, 1x1", np.int8, (2, 3, 7, 7), (5, 3, 1, 1), {}),
        ("u8 input, 3x3 pads 1, microkernel sizes", np.uint8, (2, 16, 9, 9),
         (24, 16, 3, 3), dict(pads=[1, 1, 1, 1])),
        ("u8 input, depthwise 3x3 pads 1", np.uint8, (2, 5, 7, 7),
         (5, 1, 3, 3), dict(pads=[1, 1, 1, 1], group=5)),
        ("i8 input, depthwise 3x3 stride 2 pads 1, 32 channels", np.int8,
         (2, 32, 9, 9), (32, 1, 3, 3),
         dict(pads=[1, 1, 1, 1], strides=[2, 2], group=32)),
    ]
    for what, xt, xshape, wshape, attrs in conv_cases:
        for per_channel in (False, True):
            x = random_of(rng, xt, xshape)
            xzp = np.array(xt(200 if xt is np.uint8 else -20))
            w = rng.integers(-100, 101, wshape).astype(np.int8)
            wzp = (rng.integers(-5, 6, (wshape[0],)).astype(np.int8)
                   if per_channel else np.array(np.int8(4)))
            pads = attrs.get("pads", [0, 0, 0, 0])
            xc = x.astype(np.int64) - int(xzp)
            wc = w.astype(np.int64) - wzp.astype(np.int64).reshape(-1, 1, 1, 1)
            strides = attrs.get("strides", [1, 1])
            if attrs.get("group", 1) == 1:
                ref = conv2d(xc, wc, pads=pads, strides=strides)
            else:
                ref = np.concatenate(
                    [conv2d(xc[:, c:c + 1], wc[c:c + 1], pads=pads,
                            strides=strides) for c in range(wshape[0])], 1)
            ref = ref.astype(np.int32)
            cases.run_model(
                "ConvInteger, constant weight: %s%s" %
                (what, ", a weight zero point per channel" if per_channel
                 else ""), model(
                    [helper.make_node("ConvInteger", ["x", "w", "xzp", "wzp"],
                                      ["y"], **attrs)],
                    [vi("x", x), vi("xzp", xzp)], [vi("y", ref)],
                    [numpy_helper.from_array(w, "w"),
                     numpy_helper.from_array(wzp, "wzp")]), [x, xzp], [ref])
    # An int8 activation without a zero point against a constant weight:
    # the i8 matmul alone.
    a = random_of(rng, np.int8, (3, 5, 9))
    w = rng.integers(-128, 128, (9, 6)).astype(np.int8)
    ref = (a.astype(np.int64) @ w.astype(np.int64)).astype(np.int32)
    cases.run_model("MatMulInteger 3-D int8 x constant int8", model(
        [helper.make_node("MatMulInteger", ["a", "w"], ["y"])],
        [vi("a", a)], [vi("y", ref)], [numpy_helper.from_array(w, "w")]),
        [a], [ref])

    # com.microsoft QLinearAdd: uint8 and int8, B broadcast along rows, the
    # sum saturating at both ends; QLinearGlobalAveragePool.
    ms = [("com.microsoft", 1)]
    for t in kinds:
        a = random_of(rng, t, (2, 3, 4, 5))
        b = random_of(rng, t, (1, 3, 1, 5))
        sa, sb, sc = np.float32(0.02), np.float32(0.03), np.float32(0.025)
        azp, bzp, czp = np.array(t(3)), np.array(t(-7 if t is np.int8 else
                                                   200)), np.array(t(10))
        # In f32: each term (x - zp) * (scale / C_scale), f32 quotients.
        v = ((a.astype(np.float32) - np.float32(int(azp))) * (sa / sc) +
             (b.astype(np.float32) - np.float32(int(bzp))) * (sb / sc))
        assert v.dtype == np.float32
        info = np.iinfo(t)
        ref = np.clip(np.round(v) + int(czp), info.min, info.max).astype(t)
        inits = [numpy_helper.from_array(np.array(x, np.float32), n)
                 for x, n in [(sa, "sa"), (sb, "sb"), (sc, "sc")]]
        inits += [numpy_helper.from_array(azp, "azp"),
                  numpy_helper.from_array(bzp, "bzp"),
                  numpy_helper.from_array(czp, "czp")]
        cases.run_model("com.microsoft.QLinearAdd " + np.dtype(t).name, model(
            [helper.make_node("QLinearAdd", ["a", "sa", "azp", "b", "sb",
                                             "bzp", "sc", "czp"], ["c"],
                              domain="com.microsoft")],
            [vi("a", a), vi("b", b)], [vi("c", ref)], inits,
            extra_opsets=ms), [a, b], [ref], rtol=0, atol=0)
        x = random_of(rng, t, (2, 5, 3, 7))
        sx, sy = np.float32(0.04), np.float32(0.01)
        xzp, yzp = np.array(t(5)), np.array(t(-3 if t is np.int8 else 30))
        mean = (x.astype(np.float64) - int(xzp)).sum(axis=(2, 3),
                                                      keepdims=True) / 21
        ref = np.clip(np.round(mean * (np.float64(sx) / sy)) + int(yzp),
                      info.min, info.max).astype(t)
        inits = [numpy_helper.from_array(np.array(sx), "sx"),
                 numpy_helper.from_array(np.array(sy), "sy"),
                 numpy_helper.from_array(xzp, "xzp"),
                 numpy_helper.from_array(yzp, "yzp")]
        cases.run_model(
            "com.microsoft.QLinearGlobalAveragePool " + np.dtype(t).name,
            model([helper.make_node("QLinearGlobalAveragePool",
                                    ["x", "sx", "xzp", "sy", "yzp"], ["y"],
                                    domain="com.microsoft", channels_last=0)],
                  [vi("x", x)], [vi("y", ref)], inits, extra_opsets=ms),
            [x], [ref], rtol=0, atol=0)
    qdq_max_pools(cases, rng)
    quantize_ties(cases)
    qlinear_add_ties(cases)
    a = random_of(rng, np.uint8, (1, 3, 2, 2))
    cases.expect_error(
        "com.microsoft.QLinearAdd with a per-channel scale", model(
            [helper.make_node("QLinearAdd", ["a", "sa", "", "a", "sa", "",
                                             "sa", ""], ["c"],
                              domain="com.microsoft")],
            [vi("a", a)], [vi("c", a)],
            [numpy_helper.from_array(np.array([0.1, 0.2, 0.3], np.float32),
                                     "sa")], extra_opsets=ms),
        "onnx node (com.microsoft.QLinearAdd, opset 1): input 1 has 3 "
        "values; only a per-tensor scale or zero point (one value) is "
        "supported")
    return cases.summary()


def main():
    args = arguments(__doc__)
    with tempfile.TemporaryDirectory() as work:
        return run(Cases(args, work))


if __name__ == "__main__":
    sys.exit(main())
