#!/usr/bin/env python3
# gen_packed_weights.py - writes the packed-weights test program: matmuls
# and convolutions whose weights are constants (which the flow phase stores
# in the microkernel's panel layout), at edge sizes, each next to the same
# op with the weight passed as an argument (read unpacked). Every value is
# a small multiple of 1/8 and every sum is exact in f32, so both must give
# the expected bits in any summation order.
#
#   gen_packed_weights.py OUT_DIR [NAME ...]
#
# writes OUT_DIR/program.mlir and, per case NAME, NAME.input.npy,
# NAME.weight.npy and NAME.expected.npy: every case of CASES, or only
# those named (a smaller program compiles faster), which may be those of
# NAMED_CASES too (some write more arrays: NAME.residual.npy). Plain
# Python: the test's python3 may have no numpy.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_weights import write_npy  # noqa: E402


class Array:
    """A row-major array of Python floats (no numpy in the test's python)."""

    def __init__(self, shape, data):
        self.shape = tuple(shape)
        self.data = data

    def at(self, *index):
        offset = 0
        for i, d in zip(index, self.shape):
            offset = offset * d + i
        return self.data[offset]


def values(shape, seed):
    n = 1
    for d in shape:
        n *= d
    return Array(shape, [(((i * 7 + i // 13 + 3 * seed) % 15) - 7) / 8.0
                         for i in range(n)])


def nested(array, dim=0, offset=0):
    if dim == len(array.shape):
        return repr(array.data[offset])
    stride = 1
    for d in array.shape[dim + 1:]:
        stride *= d
    return "[" + ", ".join(nested(array, dim + 1, offset + i * stride)
                           for i in range(array.shape[dim])) + "]"


def dense(array):
    return "dense<%s>" % nested(array)


def tensor(shape):
    return "tensor<%sxf32>" % "x".join(str(d) for d in shape)


def both_forms(template, w, fields):
    """The function `template` writes twice: with the weight `w` a constant
    (@NAME, packed at compile time) and as an argument (@NAME_arg)."""
    body = template.format(
        suffix="", warg="",
        wconst="\n  %%w = arith.constant %s : %s" % (dense(w), tensor(w.shape)),
        **fields)
    body += template.format(suffix="_arg", warg=", %%w: %s" % tensor(w.shape),
                            wconst="", **fields)
    return body


def conv_pixel(x, w, img, oy, ox, stride=1, pad=0):
    """The exact sums of output pixel (oy, ox) of image `img` of an NHWC
    convolution of `x` by the HWCF filter `w`, one a filter: the window's
    taps inside the image (zero padding outside), channel by channel."""
    _, h, w_, c = x.shape
    kh, kw, _, f = w.shape
    taps = []
    for i in range(kh):
        for j in range(kw):
            iy, ix = oy * stride + i - pad, ox * stride + j - pad
            if 0 <= iy < h and 0 <= ix < w_:
                taps.append((((img * h + iy) * w_ + ix) * c,
                             (i * kw + j) * c * f))
    return [sum(x.data[xi + ch] * w.data[wi + ch * f + o]
                for xi, wi in taps for ch in range(c)) for o in range(f)]


def matmul_case(name, m, k, n):
    x = values((m, k), 1)
    w = values((k, n), 2)
    y = Array((m, n), [sum(x.data[r * k + i] * w.data[i * n + j]
                           for i in range(k))
                       for r in range(m) for j in range(n)])
    body = """
func.func @{name}(%x: {xt}) -> {yt} {{
  %w = arith.constant {w} : {wt}
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {yt}
  %acc = linalg.fill ins(%zero : f32) outs(%e : {yt}) -> {yt}
  %y = linalg.matmul ins(%x, %w : {xt}, {wt}) outs(%acc : {yt}) -> {yt}
  return %y : {yt}
}}
func.func @{name}_arg(%x: {xt}, %w: {wt}) -> {yt} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {yt}
  %acc = linalg.fill ins(%zero : f32) outs(%e : {yt}) -> {yt}
  %y = linalg.matmul ins(%x, %w : {xt}, {wt}) outs(%acc : {yt}) -> {yt}
  return %y : {yt}
}}
""".format(name=name, xt=tensor(x.shape), wt=tensor(w.shape),
           yt=tensor(y.shape), w=dense(w))
    return body, x, w, y


def conv_case(name, h, w_, c, kh, kw, f, stride, pad, bias_relu):
    x = values((1, h, w_, c), 3)
    w = values((kh, kw, c, f), 4)
    b = values((f,), 5)
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (w_ + 2 * pad - kw) // stride + 1
    out = []
    for oy in range(oh):
        for ox in range(ow):
            for o, v in enumerate(conv_pixel(x, w, 0, oy, ox, stride, pad)):
                out.append(max(v + b.data[o], 0.0) if bias_relu else v)
    y = Array((1, oh, ow, f), out)
    pt = tensor((1, h + 2 * pad, w_ + 2 * pad, c))
    yt = tensor(y.shape)
    epilogue = ""
    result = "%y"
    if bias_relu:
        epilogue = """
  %b = arith.constant {b} : {bt}
  %r = linalg.generic {{indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%y, %b : {yt}, {bt}) outs(%e : {yt}) {{
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  }} -> {yt}""".format(b=dense(b), bt=tensor(b.shape), yt=yt)
        result = "%r"
    template = """
func.func @{name}{suffix}(%x: {xt}{warg}) -> {yt} {{{wconst}
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, {pad}, {pad}, 0] high[0, {pad}, {pad}, 0] {{
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  }} : {xt} to {pt}
  %e = tensor.empty() : {yt}
  %acc = linalg.fill ins(%zero : f32) outs(%e : {yt}) -> {yt}
  %y = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}} ins(%p, %w : {pt}, {wt}) outs(%acc : {yt}) -> {yt}{epilogue}
  return {result} : {yt}
}}
"""
    fields = dict(name=name, xt=tensor(x.shape), wt=tensor(w.shape), yt=yt,
                  pt=pt, pad=pad, stride=stride, epilogue=epilogue,
                  result=result)
    return both_forms(template, w, fields), x, w, y


def concat_case(name, n, h, w_, c, f1, f3):
    """A squeezenet fire module's expansions: a 1x1 and a padded 3x3
    convolution of the same input (f1 and f3 filters, constant weights)
    joined along channels, computed in the concatenation's dispatch
    (--fuse-into-concat). `n` images."""
    x = values((n, h, w_, c), 6)
    w1 = values((1, 1, c, f1), 7)
    w3 = values((3, 3, c, f3), 8)
    out = []
    for img in range(n):
        for oy in range(h):
            for ox in range(w_):
                out.extend(conv_pixel(x, w1, img, oy, ox))
                out.extend(conv_pixel(x, w3, img, oy, ox, pad=1))
    y = Array((n, h, w_, f1 + f3), out)
    body = """
func.func @{name}(%x: {xt}) -> {yt} {{
  %w1 = arith.constant {w1} : {w1t}
  %w3 = arith.constant {w3} : {w3t}
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : {o1t}
  %a1 = linalg.fill ins(%zero : f32) outs(%e1 : {o1t}) -> {o1t}
  %c1 = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} ins(%x, %w1 : {xt}, {w1t}) outs(%a1 : {o1t}) -> {o1t}
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {{
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  }} : {xt} to {pt}
  %e3 = tensor.empty() : {o3t}
  %a3 = linalg.fill ins(%zero : f32) outs(%e3 : {o3t}) -> {o3t}
  %c3 = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} ins(%p, %w3 : {pt}, {w3t}) outs(%a3 : {o3t}) -> {o3t}
  %y = tensor.concat dim(3) %c1, %c3 : ({o1t}, {o3t}) -> {yt}
  return %y : {yt}
}}
""".format(name=name, xt=tensor(x.shape), yt=tensor(y.shape),
           w1=dense(w1), w1t=tensor(w1.shape), w3=dense(w3),
           w3t=tensor(w3.shape), o1t=tensor((n, h, w_, f1)),
           o3t=tensor((n, h, w_, f3)), pt=tensor((n, h + 2, w_ + 2, c)))
    return body, x, w3, y


def globalpool_case(name, n, h, w_, c, k, f, pad):
    """A convolution (k x k, stride 1) with bias and ReLU folded into a
    global average pool, as the ONNX import writes Conv + Relu +
    GlobalAveragePool: a reduction over rows and columns that adds the bias,
    takes the ReLU and sums, then a division by the pixel count. The sums
    are exact; the division rounds once (the expected value is the exact
    quotient rounded to f32 by the writer, within the test's threshold)."""
    x = values((n, h, w_, c), 3)
    w = values((k, k, c, f), 4)
    b = values((f,), 5)
    out = []
    for img in range(n):
        sums = [0.0] * f
        for oy in range(h):
            for ox in range(w_):
                for o, v in enumerate(conv_pixel(x, w, img, oy, ox, pad=pad)):
                    sums[o] += max(v + b.data[o], 0.0)
        out.extend(s / (h * w_) for s in sums)
    y = Array((n, f), out)
    xt = tensor(x.shape)
    pt = tensor((n, h + 2 * pad, w_ + 2 * pad, c))
    ct = tensor((n, h, w_, f))
    yt = tensor(y.shape)
    template = """
func.func @{name}{suffix}(%x: {xt}{warg}) -> {yt} {{{wconst}
  %zero = arith.constant 0.0 : f32
  %count = arith.constant {count}.0 : f32
  %b = arith.constant {b} : {bt}
  %p = tensor.pad %x low[0, {pad}, {pad}, 0] high[0, {pad}, {pad}, 0] {{
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  }} : {xt} to {pt}
  %e = tensor.empty() : {ct}
  %acc = linalg.fill ins(%zero : f32) outs(%e : {ct}) -> {ct}
  %y = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} ins(%p, %w : {pt}, {wt}) outs(%acc : {ct}) -> {ct}
  %e2 = tensor.empty() : {yt}
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : {yt}) -> {yt}
  %s = linalg.generic {{indexing_maps = [affine_map<(n, f, h, w) -> (n, h, w, f)>, affine_map<(n, f, h, w) -> (f)>, affine_map<(n, f, h, w) -> (n, f)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}} ins(%y, %b : {ct}, {bt}) outs(%f2 : {yt}) {{
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a = arith.addf %v, %bias : f32
    %r = arith.maximumf %a, %zero : f32
    %t = arith.addf %o, %r : f32
    linalg.yield %t : f32
  }} -> {yt}
  %m = linalg.generic {{indexing_maps = [affine_map<(n, f) -> (n, f)>, affine_map<(n, f) -> (n, f)>], iterator_types = ["parallel", "parallel"]}} ins(%s : {yt}) outs(%e2 : {yt}) {{
  ^bb0(%v: f32, %o: f32):
    %d = arith.divf %v, %count : f32
    linalg.yield %d : f32
  }} -> {yt}
  return %m : {yt}
}}
"""
    fields = dict(name=name, xt=xt, wt=tensor(w.shape), yt=yt, pt=pt, ct=ct,
                  pad=pad, count=h * w_, b=dense(b), bt=tensor(b.shape))
    return both_forms(template, w, fields), x, w, y


def classifier_case(name, n, h, w_, c, classes):
    """resnet18's tail: a padded 3x3 convolution (c -> c) with its bias,
    the block's input added back (the residual) and ReLU, a global average
    pool, and the classifier's matmul (constant weights) with its bias. The
    flow phase computes the convolution in the pool's dispatch and the
    matmul apart (the pool's average is not fused into the matmul). The
    convolution's sums are exact (multiples of 1/64); the average and the
    matmul round a little, within the test's threshold."""
    x = values((n, h, w_, c), 9)
    w = values((3, 3, c, c), 10)
    b = values((c,), 11)
    fc = values((c, classes), 12)
    fb = values((classes,), 13)
    out = []
    for img in range(n):
        sums = [0.0] * c
        for oy in range(h):
            for ox in range(w_):
                base = ((img * h + oy) * w_ + ox) * c
                for o, v in enumerate(conv_pixel(x, w, img, oy, ox, pad=1)):
                    sums[o] += max(v + b.data[o] + x.data[base + o], 0.0)
        pooled = [s / (h * w_) for s in sums]
        for k in range(classes):
            out.append(sum(pooled[f] * fc.data[f * classes + k]
                           for f in range(c)) + fb.data[k])
    y = Array((n, classes), out)
    xt = tensor(x.shape)
    pt = tensor((n, h + 2, w_ + 2, c))
    pooledt = tensor((n, c))
    template = """
func.func @{name}{suffix}(%x: {xt}{warg}) -> {yt} {{{wconst}
  %zero = arith.constant 0.0 : f32
  %count = arith.constant {count}.0 : f32
  %b = arith.constant {b} : {bt}
  %fc = arith.constant {fc} : {fct}
  %fb = arith.constant {fb} : {fbt}
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {{
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  }} : {xt} to {pt}
  %e = tensor.empty() : {xt}
  %acc = linalg.fill ins(%zero : f32) outs(%e : {xt}) -> {xt}
  %y = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} ins(%p, %w : {pt}, {wt}) outs(%acc : {xt}) -> {xt}
  %r = linalg.generic {{indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%y, %b, %x : {xt}, {bt}, {xt}) outs(%e : {xt}) {{
  ^bb0(%v: f32, %bias: f32, %res: f32, %o: f32):
    %a = arith.addf %v, %bias : f32
    %a2 = arith.addf %a, %res : f32
    %m = arith.maximumf %a2, %zero : f32
    linalg.yield %m : f32
  }} -> {xt}
  %e2 = tensor.empty() : {pooledt}
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : {pooledt}) -> {pooledt}
  %s = linalg.generic {{indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}} ins(%r : {xt}) outs(%f2 : {pooledt}) {{
  ^bb0(%v: f32, %o: f32):
    %t = arith.addf %o, %v : f32
    linalg.yield %t : f32
  }} -> {pooledt}
  %avg = linalg.generic {{indexing_maps = [affine_map<(n, c) -> (n, c)>, affine_map<(n, c) -> (n, c)>], iterator_types = ["parallel", "parallel"]}} ins(%s : {pooledt}) outs(%e2 : {pooledt}) {{
  ^bb0(%v: f32, %o: f32):
    %d = arith.divf %v, %count : f32
    linalg.yield %d : f32
  }} -> {pooledt}
  %e3 = tensor.empty() : {yt}
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : {yt}) -> {yt}
  %mm = linalg.matmul ins(%avg, %fc : {pooledt}, {fct}) outs(%f3 : {yt}) -> {yt}
  %out = linalg.generic {{indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (k)>, affine_map<(n, k) -> (n, k)>], iterator_types = ["parallel", "parallel"]}} ins(%mm, %fb : {yt}, {fbt}) outs(%e3 : {yt}) {{
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a = arith.addf %v, %bias : f32
    linalg.yield %a : f32
  }} -> {yt}
  return %out : {yt}
}}
"""
    fields = dict(name=name, xt=xt, wt=tensor(w.shape), yt=tensor(y.shape),
                  pt=pt, pooledt=pooledt, count=h * w_, b=dense(b),
                  bt=tensor(b.shape), fc=dense(fc), fct=tensor(fc.shape),
                  fb=dense(fb), fbt=tensor(fb.shape))
    return both_forms(template, w, fields), x, w, y


def wg_epilogue_case(name, n, h, w_, c, f, residual):
    """A padded 3x3 stride-1 convolution of `n` images (h x w_ out, c -> f)
    with its bias, with `residual` a second argument added back (as
    resnet's blocks add a block's input) and ReLU: the epilogue of the
    Winograd convolution's dispatch. The residual is written as
    NAME.residual.npy, the last argument of both functions."""
    x = values((n, h, w_, c), 14)
    w = values((3, 3, c, f), 15)
    b = values((f,), 16)
    r = values((n, h, w_, f), 17)
    out = []
    for img in range(n):
        for oy in range(h):
            for ox in range(w_):
                base = ((img * h + oy) * w_ + ox) * f
                for o, v in enumerate(conv_pixel(x, w, img, oy, ox, pad=1)):
                    v += b.data[o]
                    if residual:
                        v += r.data[base + o]
                    out.append(max(v, 0.0))
    y = Array((n, h, w_, f), out)
    xt = tensor(x.shape)
    yt = tensor(y.shape)
    rarg, rin, rtype, rmap, rblock, radd = "", "", "", "", "", ""
    relu_of = "%a"
    if residual:
        rarg = ", %res: " + yt
        rin, rtype = ", %res", ", " + yt
        rmap = ", affine_map<(n, h, w, f) -> (n, h, w, f)>"
        rblock = ", %rv: f32"
        radd = "\n    %s = arith.addf %a, %rv : f32"
        relu_of = "%s"
    template = """
func.func @{name}{suffix}(%x: {xt}{warg}{rarg}) -> {yt} {{{wconst}
  %zero = arith.constant 0.0 : f32
  %b = arith.constant {b} : {bt}
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {{
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  }} : {xt} to {pt}
  %e = tensor.empty() : {yt}
  %acc = linalg.fill ins(%zero : f32) outs(%e : {yt}) -> {yt}
  %y = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} ins(%p, %w : {pt}, {wt}) outs(%acc : {yt}) -> {yt}
  %r = linalg.generic {{indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (f)>{rmap}, affine_map<(n, h, w, f) -> (n, h, w, f)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%y, %b{rin} : {yt}, {bt}{rtype}) outs(%e : {yt}) {{
  ^bb0(%v: f32, %bias: f32{rblock}, %o: f32):
    %a = arith.addf %v, %bias : f32{radd}
    %m = arith.maximumf {relu_of}, %zero : f32
    linalg.yield %m : f32
  }} -> {yt}
  return %r : {yt}
}}
"""
    fields = dict(name=name, xt=xt, wt=tensor(w.shape), yt=yt,
                  pt=tensor((n, h + 2, w_ + 2, c)), b=dense(b),
                  bt=tensor(b.shape), rarg=rarg, rin=rin, rtype=rtype,
                  rmap=rmap, rblock=rblock, radd=radd, relu_of=relu_of)
    extra = {"residual": r} if residual else {}
    return both_forms(template, w, fields), x, w, y, extra


CASES = [
    # name, builder, arguments
    ("mm_rows131", matmul_case, (131, 67, 96)),
    ("mm_rows1", matmul_case, (1, 1031, 320)),
    ("mm_rows5", matmul_case, (5, 257, 224)),
    # Rows 4 KiB apart, which the driver packs (SgemmDriver.h, spreadRows):
    # 131 rows (a prime) leave partial row panels on every ISA, which the
    # run-time-stride kernels read from the packed rows; 40 columns, a
    # partial column tile.
    ("mm_packed_a", matmul_case, (131, 1024, 40)),
    ("conv3x3_pad", conv_case, (17, 23, 5, 3, 3, 64, 1, 1, True)),
    ("conv7x7_s2", conv_case, (29, 31, 3, 7, 7, 32, 2, 3, True)),
    ("conv1x1", conv_case, (13, 11, 40, 1, 1, 96, 1, 0, False)),
    ("conv3x3_7x7", conv_case, (7, 7, 96, 3, 3, 128, 1, 1, True)),
    # N not a multiple of the panel width: a last panel padded with zeros.
    ("mm_n97", matmul_case, (37, 131, 97)),
    ("conv1x1_f100", conv_case, (13, 13, 64, 1, 1, 100, 1, 0, True)),
    # Fewer columns than a panel (a masked vector and a half), a vector and
    # a part (AVX2's second panel: 4 columns), and one and a half panels.
    ("conv1x1_f24", conv_case, (33, 35, 48, 1, 1, 24, 1, 0, True)),
    ("conv1x1_f20", conv_case, (31, 29, 64, 1, 1, 20, 1, 0, True)),
    ("conv3x3_f48", conv_case, (17, 19, 16, 3, 3, 48, 1, 1, True)),
    # Output rows the microkernel reads in place (SgemmDriver.h,
    # convPixelStep): 28 wide (two AVX-512 tiles; 28 of AVX2's 30), and 55
    # wide with stride 2 (55 of 56), both padded.
    ("conv3x3_w28", conv_case, (11, 28, 16, 3, 3, 40, 1, 1, True)),
    ("conv3x3_s2_w55", conv_case, (9, 110, 8, 3, 3, 32, 2, 1, True)),
    # Read in place and deeper than one depth block of the avx512vnni row's
    # conv_kc (IsaTuning.def: 1152; 256 on the other rows): 3x3 x 131 =
    # 1179 (1152 + 27) on rows of 14 pixels, 37 filters (a masked panel);
    # 3x3 x 263 = 2367 (two blocks and 63) on rows of 13.
    ("conv3x3_k1179", conv_case, (5, 14, 131, 3, 3, 37, 1, 1, True)),
    ("conv3x3_k2367", conv_case, (3, 13, 263, 3, 3, 40, 1, 1, True)),
    # Output rows of half a tile read in place two to a tile (SgemmDriver.h,
    # pairsOutputRows): 9 rows of 7 (AVX-512's 14-row tiles: four pairs
    # and a row alone; 40 filters, a masked panel) and 7 rows of 3
    # (AVX2's and SSE2's 6-row tiles).
    ("conv3x3_w7_pairs", conv_case, (9, 7, 24, 3, 3, 40, 1, 1, True)),
    ("conv3x3_w3_pairs", conv_case, (7, 3, 48, 3, 3, 52, 1, 1, True)),
    # 3x3 stride-1 convolutions whose filters are stored as their Winograd
    # F(4x4, 3x3) transforms (C >= 16, F >= 32, an output of 8x8 or more):
    # 13x11 outputs (partial 4x4 tiles down and across, 13 rows a prime: one
    # workgroup), 17 channels (a vector and one on AVX-512, two and one on
    # AVX2) and 37 filters (a masked panel); an unpadded input (10x8 out)
    # with bias + relu; 28 rows 9 wide (workgroups of 4 rows, a partial tile
    # across). Within strata-run's 1e-4 of the exact sums: Winograd's
    # transforms round differently.
    ("wg_edges", conv_case, (13, 11, 17, 3, 3, 37, 1, 1, False)),
    ("wg_valid", conv_case, (12, 10, 16, 3, 3, 33, 1, 0, True)),
    ("wg_rows", conv_case, (28, 9, 24, 3, 3, 64, 1, 1, True)),
    # A fire module's expansions at batch 8 (a 9x9 image, partial tiles),
    # joined in the concatenation's dispatch: its 3x3 filter is stored as
    # its Winograd transform, the dispatch cut into whole images.
    ("wg_concat_n8", concat_case, (8, 9, 9, 16, 32, 48)),
    # The same at batch 1, a 13x11 image of 17 channels: each workgroup
    # takes half of both operands' channels (32 of 64, 64 of 128); 22x14:
    # bands of 16 rows and 6 (the last tile row partial), each in halves of
    # the channels; at batch 2 with 32 1x1 filters (no halves of whole
    # panels), image bands alone.
    ("wg_concat_n1", concat_case, (1, 13, 11, 17, 64, 128)),
    ("wg_concat_rows", concat_case, (1, 22, 14, 16, 64, 64)),
    ("wg_concat_n2", concat_case, (2, 10, 9, 16, 32, 64)),
    # A global average pool over a convolution, computed in one dispatch
    # (--fuse-into-pool): an image and a column tile a workgroup. 300
    # filters at batch 3 make two column tiles, the second partial (160 and
    # 140 columns: a dynamic width); 37 filters of a padded 3x3 at batch 1,
    # one tile.
    ("gp1x1_f300_n3", globalpool_case, (3, 9, 11, 40, 1, 300, 0)),
    ("gp3x3_f37", globalpool_case, (1, 7, 13, 16, 3, 37, 1)),
    # resnet18's tail at batch 3 on a 7x5 image of 40 channels (column
    # tiles of 32 and 8), 13 classes: the pool's dispatch computes the
    # convolution with its residual, the classifier's matmul its own.
    ("classifier_n3", classifier_case, (3, 7, 5, 40, 13)),
]


# Cases written only when named (winograd.mlir's): a program of every case
# (packed-weights.mlir's) stays as it was.
NAMED_CASES = [
    # Winograd convolutions whose microkernel calls run the band loop more
    # than once (WinogradDriver.h: a band is the rows of 4x4 tiles that make
    # STRATA_SWINOGRAD_BAND_MIN_TILES = 28 tiles or more): 61 rows (a prime:
    # every call the whole height) 13 wide (4 tiles a row: bands of 28
    # rows), in calls of 32 and of 5 filters (37, a masked panel): bands of
    # 28, 28 and 5 rows (the last a tile row and a partial one), bias + relu.
    ("wg_bands", conv_case, (61, 13, 16, 3, 3, 37, 1, 1, True)),
    # A transform larger than 1 MiB (36 x 96 x 97 floats: 1.28 MiB;
    # TileAndDistribute.cpp, chooseWinogradTileSizes): calls of the most
    # rows that waste no more (all 8 of an 8x9 output, not 4), in column
    # tiles of whole panels (32, 32, 32 and 1 filters). Its sums, 864 deep
    # and up to 39, lose up to 2.5e-4 to Winograd's transforms.
    ("wg_large", conv_case, (8, 9, 96, 3, 3, 97, 1, 1, False)),
    # A residual (a second argument) added in the epilogue with the bias,
    # then relu, as resnet's blocks: 17 rows 30 wide (8 tiles a row: bands
    # of 16 rows and 1, the residual read in both), and a standalone
    # convolution at batch 3 (11x9 out, 19 channels, 35 filters: an image
    # a workgroup) with bias + relu.
    ("wg_residual", wg_epilogue_case, (1, 17, 30, 16, 40, True)),
    ("wg_n3", wg_epilogue_case, (3, 11, 9, 19, 35, False)),
]


def main():
    out, names = sys.argv[1], sys.argv[2:]
    unknown = set(names) - {name for name, _, _ in CASES + NAMED_CASES}
    if unknown:
        sys.exit("gen_packed_weights.py: no case named %s" %
                 ", ".join(sorted(unknown)))
    os.makedirs(out, exist_ok=True)
    program = []
    named = {name for name, _, _ in NAMED_CASES}
    for name, build, args in CASES + NAMED_CASES:
        if (names or name in named) and name not in names:
            continue
        # A builder may return arrays of its own (suffix -> array) last.
        body, x, w, y, *extra = build(name, *args)
        program.append(body)
        arrays = [("input", x), ("weight", w), ("expected", y)]
        if extra:
            arrays += sorted(extra[0].items())
        for suffix, array in arrays:
            write_npy(os.path.join(out, "%s.%s.npy" % (name, suffix)),
                      array.shape, array.data)
    with open(os.path.join(out, "program.mlir"), "w") as f:
        f.write("".join(program))


if __name__ == "__main__":
    main()
