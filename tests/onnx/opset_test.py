#!/usr/bin/env python3
"""opset_test.py - models of opsets 18 to 21 (newer than Debian's onnx 1.12
knows) made here with onnx.helper, their opset imports set by hand and
never passed to onnx's checker: GroupNormalization (18 and 21), the Bitwise
ops, Mish, Reduce* with axes as an input (run-time data and constants,
noop_with_empty_axes), ReduceMax/ReduceMin of bool (20), LpPool (18),
Resize's axes, keep_aspect_ratio_policy and half_pixel_symmetric,
ScatterElements' and ScatterND's max and min, GridSample's opset-20 mode
names and 3-D (volumetric) sampling, CenterCropPad (crops and pads of odd
and even differences, axes, the error of a shape known only at run time),
Col2Im (1-D, 2-D and 3-D images with strides, dilations and pads; its
errors), AffineGrid (2-D and 3-D, align_corners 0 and 1; a run-time size
refused), DFT at opset 20 (axis and dft_length as constant inputs, real and
complex, onesided, inverse; a run-time axis and a one-sided inverse
refused) and 17 (axis an attribute; one out of range refused), STFT-17
(constant and run-time frame_step and frame_length, windows, complex
signals; bad run-time values fail the call), MelWeightMatrix-17 (folded
constants and run-time inputs), Det (batches of 1x1 to 6x6 matrices,
singular ones among them; non-square and too large refused), MaxPool's
Indices (1-D to 3-D, storage_order 1) and MaxUnpool of them (output_shape
constant and run-time), RoiAlign (opsets 10 and 16, avg and max, fixed and
adaptive sampling grids, regions partly outside), DeformConv-19 (odd sizes,
groups, offset groups, masks, biases; against a numpy reference written
from the spec), GatherND with batch_dims 1 and 2, Einsum with ellipses,
grouped 3-D Conv, 3-D ConvTranspose, ops unchanged since opset 17 imported
at 21, opset 19's float8 types and opset 21's int4/uint4 (Cast and CastLike
with saturate, rounding ties, NaN and infinities, every float8 code
decoded; QuantizeLinear/DequantizeLinear with float8 and 4-bit zero points,
output_dtype and blocked quantization; data movement, packed initializers,
Constant nodes; an int4 input out of range, arithmetic on float8 and bad
blocks refused), checked against narrow_ref.py's numpy references, and the
shape-deciding operands of older opsets that arrive as run-time data
(CumSum's axis, TopK's K). Each is compiled with strata-compile, run with
strata-run and compared with numpy; bad run-time values (an axis out of
range, K beyond the axis) fail the call with the node's message. Resize's
antialias (18) is checked against the values ONNX's own test cases give and
a numpy reference of the filter. Prints one line per case and `N passed, N
failed`."""

import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import narrow_ref
from model_cases import Cases, arguments, model

F32 = TensorProto.FLOAT
I64 = TensorProto.INT64
U8 = TensorProto.UINT8
BOOL = TensorProto.BOOL


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


def center_crop_pad_ref(x, shape, axes):
    """CenterCropPad from the spec: a crop starts at floor(diff / 2); a pad
    puts floor(diff / 2) zeros before the data, the rest after it."""
    out_shape = list(x.shape)
    for ax, size in zip(axes, shape):
        out_shape[ax] = size
    src, dst = [], []
    for d, (n_in, n_out) in enumerate(zip(x.shape, out_shape)):
        if n_in >= n_out:
            start = (n_in - n_out) // 2
            src.append(slice(start, start + n_out))
            dst.append(slice(0, n_out))
        else:
            start = (n_out - n_in) // 2
            src.append(slice(0, n_in))
            dst.append(slice(start, start + n_in))
    y = np.zeros(out_shape, x.dtype)
    y[tuple(dst)] = x[tuple(src)]
    return y


def col2im_ref(x, image, block, strides, dilations, pads):
    """Col2Im from the spec: block (bi, bj) of channel c at kernel offset
    (ki, kj) adds to pixel (bi * sh - top + ki * dh, bj * sw - left +
    kj * dw) when that pixel is inside the image."""
    n, rows, _ = x.shape
    kh, kw = block
    c = rows // (kh * kw)
    oh = (image[0] + pads[0] + pads[2] - (dilations[0] * (kh - 1) + 1)) \
        // strides[0] + 1
    ow = (image[1] + pads[1] + pads[3] - (dilations[1] * (kw - 1) + 1)) \
        // strides[1] + 1
    y = np.zeros((n, c, image[0], image[1]), np.float64)
    for ch in range(c):
        for ki in range(kh):
            for kj in range(kw):
                for bi in range(oh):
                    for bj in range(ow):
                        r = bi * strides[0] - pads[0] + ki * dilations[0]
                        q = bj * strides[1] - pads[1] + kj * dilations[1]
                        if 0 <= r < image[0] and 0 <= q < image[1]:
                            y[:, ch, r, q] += x[:, ch * kh * kw + ki * kw +
                                                kj, bi * ow + bj]
    return y.astype(x.dtype)


def col2im_nd_ref(x, image, block, strides, dilations, pads):
    """Col2Im of any spatial rank from the spec: the block at grid position
    b (row-major among the blocks) of channel c, at kernel offset k
    (row-major within the block), adds to pixel b * stride - pad_begin +
    k * dilation when that pixel is inside the image."""
    s = len(image)
    n, rows, _ = x.shape
    c = rows // int(np.prod(block))
    grid = [(image[d] + pads[d] + pads[d + s] -
             (dilations[d] * (block[d] - 1) + 1)) // strides[d] + 1
            for d in range(s)]
    y = np.zeros((n, c) + tuple(image), np.float64)
    for ch in range(c):
        for ki, k in enumerate(np.ndindex(*block)):
            for bi, bl in enumerate(np.ndindex(*grid)):
                p = [bl[d] * strides[d] - pads[d] + k[d] * dilations[d]
                     for d in range(s)]
                if all(0 <= p[d] < image[d] for d in range(s)):
                    y[(slice(None), ch) + tuple(p)] += \
                        x[:, ch * int(np.prod(block)) + ki, bi]
    return y.astype(x.dtype)


def affine_grid_ref(theta, size, align):
    """AffineGrid from the spec: each point's normalized coordinates (x
    along the last axis first, then y, z, and a 1) times theta[n]."""
    dims = size[2:]

    def axis(count):
        if align:
            return (np.zeros(1) if count == 1 else
                    -1 + 2 * np.arange(count) / (count - 1))
        return -1 + (2 * np.arange(count) + 1) / count
    coords = np.meshgrid(*[axis(d) for d in dims], indexing="ij")
    base = np.stack(coords[::-1] + [np.ones(dims)], axis=-1)
    grid = np.einsum("...j,nkj->n...k", base, theta.astype(np.float64))
    return grid.astype(theta.dtype)


def dft_ref(x, axis, length, inverse, onesided):
    """DFT from the spec with numpy's FFT: the signal along `axis` cut or
    zero-padded to `length`; complex output in a trailing dimension of 2."""
    signal = x[..., 0] if x.shape[-1] == 1 else x[..., 0] + 1j * x[..., 1]
    signal = signal.astype(np.complex128)
    y = (np.fft.ifft(signal, n=length, axis=axis) if inverse else
         np.fft.fft(signal, n=length, axis=axis))
    if onesided:
        y = np.take(y, np.arange(length // 2 + 1), axis=axis)
    return np.stack([y.real, y.imag], axis=-1).astype(x.dtype)


def lp_pool_ref(x, kernel, strides, pads, dilations, p, ceil):
    """LpPool over the last two dims of NCHW `x`: the p-th root of the sum
    of |x|^p over each window, padding and the ceil_mode overhang adding
    nothing."""
    n, c, h, w = x.shape
    padded = np.zeros((n, c, h + pads[0] + pads[2] + 8,
                       w + pads[1] + pads[3] + 8), np.float64)
    padded[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + w] = np.abs(x) ** p
    rnd = np.ceil if ceil else np.floor
    out = []
    for d, size in enumerate((h, w)):
        extent = (kernel[d] - 1) * dilations[d] + 1
        out.append(int(rnd((size + pads[d] + pads[d + 2] - extent) /
                           strides[d])) + 1)
    y = np.zeros((n, c, out[0], out[1]), np.float64)
    for i in range(out[0]):
        for j in range(out[1]):
            for ki in range(kernel[0]):
                for kj in range(kernel[1]):
                    r = i * strides[0] + ki * dilations[0]
                    q = j * strides[1] + kj * dilations[1]
                    if r < h + pads[0] + pads[2] and q < w + pads[1] + pads[3]:
                        y[:, :, i, j] += padded[:, :, r, q]
    return (y ** (1.0 / p)).astype(np.float32)


def antialias_1d(v, out, scale, mode, cubic_a=-0.75, exclude=False,
                 coordinates="half_pixel"):
    """Resize-18's antialiasing filter along the last axis of `v`, from the
    spec: the linear or cubic kernel stretched by 1 / scale when
    downsampling, normalized, over the taps nearest each source coordinate
    (an integral coordinate prefers the taps left of it), the input
    edge-padded by half the tap count."""
    n_in = v.shape[-1]
    s = min(scale, 1.0)
    y = np.zeros(v.shape[:-1] + (out,), np.float64)
    for x in range(out):
        if coordinates == "half_pixel":
            c = (x + 0.5) / scale - 0.5
        elif coordinates == "asymmetric":
            c = x / scale
        else:  # align_corners
            c = 0.0 if out == 1 else x * (n_in - 1) / (n_in * scale - 1)
        ratio = 1.0 if float(c).is_integer() else c - np.floor(c)
        if mode == "linear":
            start = int(np.floor(-1 / s) + 1)
            args = (np.arange(start, 2 - start) - ratio) * s
            w = np.clip(1 - np.abs(args), 0, 1)
        else:
            start = int(np.floor(-2 / s) + 1)
            a = cubic_a
            t = np.abs(s * (np.arange(start, 2 - start) - ratio))
            w = np.where(t <= 1, (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1,
                         np.where(t < 2, a * t ** 3 - 5 * a * t ** 2 +
                                  8 * a * t - 4 * a, 0.0))
        w = w / w.sum()
        pad = int(np.ceil(len(w) / 2))
        cands = sorted(range(-pad, n_in + pad), key=lambda i: (abs(c - i), i))
        taps = sorted(cands[:len(w)])
        if exclude:
            w = np.where([0 <= i < n_in for i in taps], w, 0.0)
            w = w / w.sum()
        for wk, i in zip(w, taps):
            y[..., x] += wk * v[..., min(max(i, 0), n_in - 1)]
    return y


def antialias_ref(x, out, scales, mode, **kw):
    """The filter along each axis in turn (it is separable)."""
    y = x.astype(np.float64)
    for d in range(x.ndim):
        if out[d] == x.shape[d] and scales[d] == 1:
            continue
        y = np.moveaxis(antialias_1d(np.moveaxis(y, d, -1), out[d],
                                     scales[d], mode, **kw), -1, d)
    return y


def grid_sample_ref(x, grid, mode, padding, align):
    """GridSample from the spec, any spatial rank: the grid's last axis
    holds normalized coordinates innermost axis first; linear sums the
    2^rank neighbours, nearest rounds half to even; zeros padding reads 0
    outside, border clamps, reflection reflects the coordinate."""
    spatial = x.ndim - 2
    sizes = x.shape[2:]
    out = np.zeros(x.shape[:2] + grid.shape[1:-1], np.float64)

    def reflect(c, lo, hi):
        span = hi - lo
        if c < lo:
            d = lo - c
            k, r = divmod(d, span)
            return lo + r if int(k) % 2 == 0 else hi - r
        if c > hi:
            d = c - hi
            k, r = divmod(d, span)
            return hi - r if int(k) % 2 == 0 else lo + r
        return c

    def value(n, idx):
        if all(0 <= i < s for i, s in zip(idx, sizes)):
            return x[(n, slice(None)) + tuple(idx)]
        if padding == "zeros":
            return np.zeros(x.shape[1])
        return x[(n, slice(None)) + tuple(min(max(i, 0), s - 1)
                                         for i, s in zip(idx, sizes))]

    for pos in np.ndindex(grid.shape[:-1]):
        n = pos[0]
        coords = []
        for d in range(spatial):
            g = float(grid[pos + (spatial - 1 - d,)])
            size = sizes[d]
            c = ((g + 1) / 2 * (size - 1) if align
                 else ((g + 1) * size - 1) / 2)
            if padding == "border":
                c = min(max(c, 0), size - 1)
            elif padding == "reflection":
                c = (reflect(c, 0, size - 1) if align
                     else reflect(c, -0.5, size - 0.5))
                c = min(max(c, 0), size - 1)
            coords.append(c)
        if mode == "nearest":
            v = value(n, [int(np.rint(c)) for c in coords])
        else:
            v = np.zeros(x.shape[1])
            for corner in np.ndindex((2,) * spatial):
                w = 1.0
                idx = []
                for d, c in enumerate(coords):
                    f = np.floor(c)
                    t = c - f
                    w *= t if corner[d] else 1 - t
                    idx.append(int(f) + corner[d])
                v = v + w * value(n, idx)
        out[(n, slice(None)) + pos[1:]] = v
    return out.astype(np.float32)


def stft_ref(x, step, length, window, onesided):
    """STFT from the spec with numpy's FFT: frame f is the signal from f *
    step, `length` long, times the window; one-sided keeps length // 2 + 1
    bins."""
    signal = x[..., 0] if x.shape[-1] == 1 else x[..., 0] + 1j * x[..., 1]
    signal = signal.astype(np.complex128)
    w = np.ones(length) if window is None else window.astype(np.float64)
    frames = (x.shape[1] - length) // step + 1
    bins = length // 2 + 1 if onesided else length
    out = np.zeros((x.shape[0], frames, bins, 2))
    for f in range(frames):
        y = np.fft.fft(signal[:, f * step:f * step + length] * w, axis=1)
        out[:, f, :, 0] = y[:, :bins].real
        out[:, f, :, 1] = y[:, :bins].imag
    return out.astype(x.dtype)


def mel_ref(mels, dft_length, rate, lower, upper):
    """MelWeightMatrix from the spec: mels + 2 edges equally spaced on the
    mel scale 2595 log10(1 + f / 700) from `lower` to `upper` Hz, each
    mapped to spectrogram bin floor((dft_length + 1) f / rate); band i
    rises from its left edge to 1 at its center and falls to its right."""
    def mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)
    lo, hi = mel(lower), mel(upper)
    edges = []
    for i in range(mels + 2):
        m = lo + i * (hi - lo) / (mels + 2)
        hz = 700.0 * (10.0 ** (m / 2595.0) - 1.0)
        edges.append(int(np.floor((dft_length + 1) * hz / rate)))
    out = np.zeros((dft_length // 2 + 1, mels))
    for i in range(mels):
        left, center, right = edges[i:i + 3]
        for j in range(out.shape[0]):
            if j == center:
                out[j, i] = 1.0
            elif left <= j < center:
                out[j, i] = (j - left) / (center - left)
            elif center < j < right:
                out[j, i] = (right - j) / (right - center)
    return out.astype(np.float32)


def det_ref(x):
    """Det by Gaussian elimination with partial pivoting, in float64."""
    flat = x.reshape((-1,) + x.shape[-2:]).astype(np.float64)
    out = []
    for a in flat:
        a = a.copy()
        det = 1.0
        for k in range(a.shape[0]):
            p = k + int(np.argmax(np.abs(a[k:, k])))
            if p != k:
                a[[k, p]] = a[[p, k]]
                det = -det
            det *= a[k, k]
            if a[k, k] != 0:
                a[k + 1:] -= np.outer(a[k + 1:, k] / a[k, k], a[k])
        out.append(det)
    return np.array(out).reshape(x.shape[:-2]).astype(x.dtype)


def maxpool_ref(x, kernel, strides, pads, dilations, column_major):
    """MaxPool's values and Indices from the spec: for each output, the
    largest tap inside the input and its flat NC... index (the first one
    of equals in row-major tap order), the plane row major or column
    major."""
    spatial = len(kernel)
    ins = x.shape[2:]
    outs = [(ins[i] + pads[i] + pads[i + spatial] -
             (kernel[i] - 1) * dilations[i] - 1) // strides[i] + 1
            for i in range(spatial)]
    values = np.zeros(x.shape[:2] + tuple(outs), x.dtype)
    indices = np.zeros(values.shape, np.int64)
    plane = int(np.prod(ins))
    for n_ in range(x.shape[0]):
        for c in range(x.shape[1]):
            for o in np.ndindex(*outs):
                best, where = None, None
                for k in np.ndindex(*kernel):
                    at = [o[i] * strides[i] + k[i] * dilations[i] - pads[i]
                          for i in range(spatial)]
                    if any(a < 0 or a >= ins[i] for i, a in enumerate(at)):
                        continue
                    v = x[(n_, c) + tuple(at)]
                    if best is None or v > best:
                        best, where = v, at
                flat = 0
                order = range(spatial) if not column_major else \
                    reversed(range(spatial))
                for i in order:
                    flat = flat * ins[i] + where[i]
                values[(n_, c) + o] = best
                indices[(n_, c) + o] = (n_ * x.shape[1] + c) * plane + flat
    return values, indices


def maxunpool_ref(x, indices, inferred, output):
    """MaxUnpool from the spec: zeros of the inferred shape with Y.flat[I]
    = X, placed at the start of an output of `output`'s shape."""
    y = np.zeros(int(np.prod(inferred)), x.dtype)
    y[indices.ravel()] = x.ravel()
    out = np.zeros(output, x.dtype)
    out[tuple(slice(0, s) for s in inferred)] = y.reshape(inferred)
    return out


def roi_align_ref(x, rois, batch, out_h, out_w, ratio, scale, mode,
                  half_pixel):
    """RoiAlign from the spec: each output bin samples a grid of bilinear
    points (sampling_ratio per axis, else ceil(bin size)) at the centers
    of its cells; a point more than a pixel outside counts 0; avg averages
    the points, max takes the largest weighted corner of any point."""
    h, w = x.shape[2:]
    out = np.zeros((len(rois), x.shape[1], out_h, out_w), np.float64)
    off = 0.5 if half_pixel else 0.0
    for r, (x1, y1, x2, y2) in enumerate(rois.astype(np.float64)):
        sy, sx = y1 * scale - off, x1 * scale - off
        rh, rw = y2 * scale - off - sy, x2 * scale - off - sx
        if not half_pixel:
            rh, rw = max(rh, 1.0), max(rw, 1.0)
        bh, bw = rh / out_h, rw / out_w
        gh = ratio if ratio > 0 else int(np.ceil(rh / out_h))
        gw = ratio if ratio > 0 else int(np.ceil(rw / out_w))
        img = x[batch[r]].astype(np.float64)
        for ph in range(out_h):
            for pw in range(out_w):
                samples = []
                for iy in range(gh):
                    for ix in range(gw):
                        yy = sy + ph * bh + (iy + 0.5) * bh / gh
                        xx = sx + pw * bw + (ix + 0.5) * bw / gw
                        if yy < -1 or yy > h or xx < -1 or xx > w:
                            samples.append(np.zeros(x.shape[1]))
                            continue
                        yy, xx = max(yy, 0.0), max(xx, 0.0)
                        y0, x0 = int(yy), int(xx)
                        if y0 >= h - 1:
                            y0 = y1_ = h - 1
                            yy = float(y0)
                        else:
                            y1_ = y0 + 1
                        if x0 >= w - 1:
                            x0 = x1_ = w - 1
                            xx = float(x0)
                        else:
                            x1_ = x0 + 1
                        ly, lx = yy - y0, xx - x0
                        corners = [(1 - ly) * (1 - lx) * img[:, y0, x0],
                                   (1 - ly) * lx * img[:, y0, x1_],
                                   ly * (1 - lx) * img[:, y1_, x0],
                                   ly * lx * img[:, y1_, x1_]]
                        samples.append(sum(corners) if mode == "avg" else
                                       np.max(corners, axis=0))
                samples = np.array(samples)
                out[r, :, ph, pw] = (samples.sum(0) / max(gh * gw, 1)
                                     if mode == "avg" else samples.max(0))
    return out.astype(x.dtype)


def deform_conv_ref(x, w, offset, bias, mask, strides, pads, dilations,
                    group, offset_group):
    """DeformConv from the spec (2-D): tap (kh, kw) of output (oh, ow)
    samples channel c at (oh s - pad + kh d + dy, ow s - pad + kw d + dx),
    (dy, dx) the offsets of c's offset group, bilinearly with each corner
    outside the map counting 0, times the mask; then a grouped
    convolution with W and the bias."""
    n_, c_, h, wd = x.shape
    oc, cpg, kh, kw = w.shape
    oh, ow = offset.shape[2:]
    cols = np.zeros((n_, c_, kh, kw, oh, ow))
    per_og = c_ // offset_group
    for b in range(n_):
        for c in range(c_):
            og = c // per_og
            for i in range(kh):
                for j in range(kw):
                    k = og * kh * kw + i * kw + j
                    for p in range(oh):
                        for q in range(ow):
                            y = (p * strides[0] - pads[0] + i * dilations[0] +
                                 float(offset[b, 2 * k, p, q]))
                            xx = (q * strides[1] - pads[1] +
                                  j * dilations[1] +
                                  float(offset[b, 2 * k + 1, p, q]))
                            y0, x0 = int(np.floor(y)), int(np.floor(xx))
                            v = 0.0
                            for cy, wy in ((y0, 1 - (y - y0)),
                                           (y0 + 1, y - y0)):
                                for cx, wx in ((x0, 1 - (xx - x0)),
                                               (x0 + 1, xx - x0)):
                                    if 0 <= cy < h and 0 <= cx < wd:
                                        v += wy * wx * float(x[b, c, cy, cx])
                            if mask is not None:
                                v *= float(mask[b, k, p, q])
                            cols[b, c, i, j, p, q] = v
    out = np.zeros((n_, oc, oh, ow))
    opg = oc // group
    for o in range(oc):
        g = o // opg
        part = cols[:, g * cpg:(g + 1) * cpg]
        out[:, o] = np.einsum("ncijpq,cij->npq", part,
                              w[o].astype(np.float64))
        if bias is not None:
            out[:, o] += bias[o]
    return out.astype(x.dtype)


def gather_nd_ref(data, indices, batch):
    """GatherND from the spec: the first `batch` dimensions shared, each
    index tuple picking a slice of its batch's data."""
    lead = data.shape[:batch]
    k = indices.shape[-1]
    out = np.zeros(indices.shape[:-1] + data.shape[batch + k:], data.dtype)
    for at in np.ndindex(*indices.shape[:-1]):
        where = tuple(at[:batch]) + tuple(int(v) for v in indices[at])
        out[at] = data[where]
    assert lead == indices.shape[:batch]
    return out


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

    # ReduceMax/ReduceMin-20 on bool: any and all, constant and run-time
    # axes.
    bx = rng.random((3, 4, 5)) < 0.3
    bx[1] = False
    bx[2, :, 1] = True
    for kind, fn in (("ReduceMax", np.any), ("ReduceMin", np.all)):
        for axes, keep in (([1], 1), ([0, 2], 0)):
            want = fn(bx, axis=tuple(axes), keepdims=bool(keep))
            init = [numpy_helper.from_array(np.array(axes, np.int64), "axes")]
            cases.run_model("%s-20 bool axes %s keepdims=%d" %
                            (kind, axes, keep), single(
                                kind, [("x", [3, 4, 5], BOOL),
                                       ("axes", [len(axes)], I64)],
                                [("y", list(want.shape), BOOL)], 20, init,
                                keepdims=keep), [bx], [want])
        want = fn(bx, axis=2, keepdims=True)
        cases.run_model("%s-20 bool run-time axes" % kind, single(
            kind, [("x", [3, 4, 5], BOOL), ("axes", [1], I64)],
            [("y", ["?", "?", "?"], BOOL)], 20, keepdims=1),
            [bx, np.array([2], np.int64)], [want])

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
    # Resize-18 antialias: ONNX's own cases (values from its test suite's
    # comments), then the spec's filter in numpy.
    sixteen = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    for mode, by_sizes, want in (
            ("linear", False, [[2.875, 4.5], [9.375, 11.0]]),
            ("linear", True, [[2.3636363, 3.590909, 4.818182],
                              [7.2727275, 8.5, 9.727273],
                              [12.181818, 13.409091, 14.636364]]),
            ("cubic", False, [[2.5180721, 4.2858863], [9.589329, 11.357142]]),
            ("cubic", True, [[1.7750092, 3.1200073, 4.4650054],
                             [7.1550016, 8.5, 9.844998],
                             [12.534994, 13.8799925, 15.224991]])):
        want = np.array(want, np.float32)[None, None]
        if by_sizes:
            init = numpy_helper.from_array(
                np.array(want.shape, np.int64), "sizes")
            ins = ["x", none, none, "sizes"]
        else:
            init = numpy_helper.from_array(
                np.array([1, 1, 0.6, 0.6], np.float32), "scales")
            ins = ["x", none, "scales"]
        node = helper.make_node("Resize", ins, ["y"], name="n", mode=mode,
                                antialias=1)
        cases.run_model("Resize-18 antialias %s by %s (ONNX's case)" %
                        (mode, "sizes" if by_sizes else "scales"),
                        model([node], [vi("x", [1, 1, 4, 4])],
                              [vi("y", list(want.shape))], [init], opset=18),
                        [sixteen], [want], rtol=1e-5, atol=1e-5)
    ax = rng.standard_normal((2, 3, 17, 11)).astype(np.float32)
    for mode, scales, coords, extra in (
            ("linear", [1, 1, 0.3, 0.5], "half_pixel", {}),
            ("cubic", [1, 1, 0.25, 0.7], "half_pixel", {}),
            ("cubic", [1, 1, 0.4, 1.5], "half_pixel",
             {"exclude_outside": 1, "cubic_coeff_a": -0.5}),
            ("linear", [1, 1, 0.45, 2.0], "asymmetric", {}),
            ("linear", [1, 1, 0.35, 0.6], "align_corners", {})):
        out = [int(np.floor(d * np.float32(sc)))
               for d, sc in zip(ax.shape, scales)]
        node = helper.make_node("Resize", ["x", none, "scales"], ["y"],
                                name="n", mode=mode, antialias=1,
                                coordinate_transformation_mode=coords,
                                **extra)
        kw = {"coordinates": coords}
        if "exclude_outside" in extra:
            kw["exclude"] = True
        if "cubic_coeff_a" in extra:
            kw["cubic_a"] = extra["cubic_coeff_a"]
        ref = antialias_ref(ax, out, [float(np.float32(v)) for v in scales],
                            mode, **kw).astype(np.float32)
        cases.run_model(
            "Resize-18 antialias %s scales %s %s %s" %
            (mode, scales[2:], coords, extra or ""),
            model([node], [vi("x", list(ax.shape))], [vi("y", out)],
                  [numpy_helper.from_array(np.array(scales, np.float32),
                                           "scales")], opset=18),
            [ax], [ref], rtol=1e-4, atol=1e-5)
    # uint8 images: rounded to nearest even, unsigned kept.
    img = rng.integers(0, 256, (1, 3, 12, 9), dtype=np.uint8)
    node = helper.make_node("Resize", ["x", none, none, "sizes"], ["y"],
                            name="n", mode="linear", antialias=1,
                            axes=[2, 3])
    ref = np.round(antialias_ref(img, [1, 3, 5, 4], [1, 1, 5 / 12, 4 / 9],
                                 "linear"))
    cases.run_model("Resize-18 antialias uint8 sizes for axes (2, 3)",
                    model([node], [vi("x", [1, 3, 12, 9], U8)],
                          [vi("y", [1, 3, 5, 4], U8)],
                          [numpy_helper.from_array(np.array([5, 4], np.int64),
                                                   "sizes")], opset=18),
                    [img], [np.clip(ref, 0, 255).astype(np.uint8)], atol=1)
    node = helper.make_node("Resize", ["x", none, "scales"], ["y"], name="n",
                            antialias=1, mode="linear")
    cases.expect_error("Resize-18 antialias with run-time scales is refused",
                       model([node], [vi("x", [1, 2, 3, 4]),
                                      vi("scales", [4])],
                             [vi("y", [1, 2, "?", "?"])], opset=18),
                       "onnx node 'n' (Resize, opset 18): antialias = 1 needs "
                       "scales known at compile time (its filters are "
                       "constants)")

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
    # ScatterND-18's max and min: rows of a 4x3 (float and uint8), indices
    # repeated and negative.
    nidx = np.array([[1], [-1], [1], [0]], np.int64)
    for dtype, elem in ((np.float32, F32), (np.uint8, U8)):
        if dtype == np.uint8:
            nd = rng.integers(0, 256, (4, 3)).astype(np.uint8)
            nu = rng.integers(0, 256, (4, 3)).astype(np.uint8)
        else:
            nd = rng.standard_normal((4, 3)).astype(np.float32)
            nu = rng.standard_normal((4, 3)).astype(np.float32)
        for reduction, fn in (("max", np.maximum), ("min", np.minimum)):
            want = nd.copy()
            for i in range(4):
                want[nidx[i, 0]] = fn(want[nidx[i, 0]], nu[i])
            cases.run_model("ScatterND-18 reduction %s %s" %
                            (reduction, np.dtype(dtype).name),
                            single("ScatterND",
                                   [("d", [4, 3], elem), ("i", [4, 1], I64),
                                    ("u", [4, 3], elem)], [("y", [4, 3], elem)],
                                   18, reduction=reduction),
                            [nd, nidx, nu], [want])

    # GridSample-20 names its bilinear mode "linear".
    gx = rng.standard_normal((1, 1, 3, 3)).astype(np.float32)
    grid = np.zeros((1, 1, 1, 2), np.float32)
    cases.run_model("GridSample-20 mode linear", single(
        "GridSample", [("x", [1, 1, 3, 3], F32), ("g", [1, 1, 1, 2], F32)],
        [("y", [1, 1, 1, 1], F32)], 20, mode="linear", align_corners=1),
        [gx, grid], [gx[:, :, 1:2, 1:2]])

    # GridSample-20 in 3-D (NCDHW, an N x D x H x W x 3 grid) and 2-D.
    vol = rng.standard_normal((2, 3, 4, 5, 6)).astype(np.float32)
    vgrid = (rng.random((2, 3, 2, 4, 3)) * 2.6 - 1.3).astype(np.float32)
    img2 = rng.standard_normal((2, 3, 5, 7)).astype(np.float32)
    grid2 = (rng.random((2, 4, 3, 2)) * 2.6 - 1.3).astype(np.float32)
    for data, g in ((vol, vgrid), (img2, grid2)):
        for mode in ("linear", "nearest"):
            for padding in ("zeros", "border", "reflection"):
                for align in (0, 1):
                    want = grid_sample_ref(data, g, mode, padding, align)
                    cases.run_model(
                        "GridSample-20 %d-D %s %s align_corners=%d" %
                        (data.ndim - 2, mode, padding, align),
                        single("GridSample",
                               [("x", list(data.shape), F32),
                                ("g", list(g.shape), F32)],
                               [("y", list(want.shape), F32)], 20, mode=mode,
                               padding_mode=padding, align_corners=align),
                        [data, g], [want], rtol=1e-4, atol=1e-5)
    cases.expect_error("GridSample-20 3-D cubic is refused", single(
        "GridSample", [("x", [1, 1, 2, 2, 2], F32),
                       ("g", [1, 1, 1, 1, 3], F32)],
        [("y", [1, 1, 1, 1, 1], F32)], 20, mode="cubic"),
        "onnx node 'n' (GridSample, opset 20): mode 'cubic' takes a 2-D "
        "(NCHW) input only")

    # CenterCropPad-18: crops and pads (odd and even differences), axes.
    c = rng.standard_normal((2, 5, 6)).astype(np.float32)
    for shape, axes in (([2, 3, 9], None), ([4, 7], [1, 2]),
                        ([2, 8], [-1, 1]), ([1, 6, 6], None)):
        want = center_crop_pad_ref(c, shape, axes if axes else [0, 1, 2])
        init = [numpy_helper.from_array(np.array(shape, np.int64), "s")]
        attrs = {"axes": axes} if axes else {}
        cases.run_model("CenterCropPad-18 shape %s axes %s" % (shape, axes),
                        single("CenterCropPad", [("x", [2, 5, 6], F32),
                                                 ("s", [len(shape)], I64)],
                               [("y", list(want.shape), F32)], 18, init,
                               **attrs), [c], [want])
    ci = rng.integers(-50, 50, (3, 4)).astype(np.int32)
    want = center_crop_pad_ref(ci, [6, 1], [0, 1])
    cases.run_model("CenterCropPad-18 int32", single(
        "CenterCropPad", [("x", [3, 4], TensorProto.INT32), ("s", [2], I64)],
        [("y", [6, 1], TensorProto.INT32)], 18,
        [numpy_helper.from_array(np.array([6, 1], np.int64), "s")]), [ci],
        [want])
    cases.expect_error("CenterCropPad-18 run-time shape is refused", single(
        "CenterCropPad", [("x", [2, 5, 6], F32), ("s", [3], I64)],
        [("y", ["?", "?", "?"], F32)], 18),
        "onnx node 'n' (CenterCropPad, opset 18): input 1 (shape) must be an "
        "integer tensor known at compile time; data-dependent values are "
        "not supported")
    cases.expect_error("CenterCropPad-18 shape of the wrong length", single(
        "CenterCropPad", [("x", [2, 5, 6], F32), ("s", [2], I64)],
        [("y", ["?", "?", "?"], F32)], 18,
        [numpy_helper.from_array(np.array([3, 3], np.int64), "s")]),
        "onnx node 'n' (CenterCropPad, opset 18): shape has 2 values for 3 "
        "axes")

    # Col2Im-18: overlapping blocks summed (strides, dilations, pads).
    for image, block, strides, dilations, pads in (
            ([5, 5], [2, 2], [1, 1], [1, 1], [0, 0, 0, 0]),
            ([6, 7], [3, 2], [2, 1], [1, 2], [1, 0, 2, 1]),
            ([4, 5], [2, 3], [2, 2], [1, 1], [1, 1, 1, 1])):
        kh, kw = block
        oh = (image[0] + pads[0] + pads[2] - (dilations[0] * (kh - 1) + 1)) \
            // strides[0] + 1
        ow = (image[1] + pads[1] + pads[3] - (dilations[1] * (kw - 1) + 1)) \
            // strides[1] + 1
        cols = rng.standard_normal((2, 3 * kh * kw, oh * ow)).astype(
            np.float32)
        init = [numpy_helper.from_array(np.array(image, np.int64), "i"),
                numpy_helper.from_array(np.array(block, np.int64), "b")]
        cases.run_model(
            "Col2Im-18 image %s block %s strides %s dilations %s pads %s" %
            (image, block, strides, dilations, pads),
            single("Col2Im", [("x", list(cols.shape), F32), ("i", [2], I64),
                              ("b", [2], I64)],
                   [("y", [2, 3] + image, F32)], 18, init, strides=strides,
                   dilations=dilations, pads=pads), [cols],
            [col2im_ref(cols, image, block, strides, dilations, pads)],
            rtol=1e-5, atol=1e-5)
    # 1-D and 3-D images.
    for image, block, strides, dilations, pads in (
            ([9], [3], [2], [1], [1, 2]),
            ([7], [2], [1], [3], [0, 0]),
            ([4, 5, 3], [2, 3, 2], [1, 2, 1], [1, 1, 2], [0, 1, 1, 1, 0, 1])):
        s3 = len(image)
        grid = [(image[d] + pads[d] + pads[d + s3] -
                 (dilations[d] * (block[d] - 1) + 1)) // strides[d] + 1
                for d in range(s3)]
        cols = rng.standard_normal(
            (2, 2 * int(np.prod(block)), int(np.prod(grid)))).astype(
                np.float32)
        init = [numpy_helper.from_array(np.array(image, np.int64), "i"),
                numpy_helper.from_array(np.array(block, np.int64), "b")]
        cases.run_model(
            "Col2Im-18 %d-D image %s block %s strides %s dilations %s pads %s"
            % (s3, image, block, strides, dilations, pads),
            single("Col2Im", [("x", list(cols.shape), F32),
                              ("i", [s3], I64), ("b", [s3], I64)],
                   [("y", [2, 2] + image, F32)], 18, init, strides=strides,
                   dilations=dilations, pads=pads), [cols],
            [col2im_nd_ref(cols, image, block, strides, dilations, pads)],
            rtol=1e-5, atol=1e-5)
    init = [numpy_helper.from_array(np.array([5, 5], np.int64), "i"),
            numpy_helper.from_array(np.array([2, 2], np.int64), "b")]
    cases.expect_error("Col2Im-18 block count mismatch is refused", single(
        "Col2Im", [("x", [1, 4, 15], F32), ("i", [2], I64), ("b", [2], I64)],
        [("y", [1, 1, 5, 5], F32)], 18, init),
        "onnx node 'n' (Col2Im, opset 18): the input holds 15 blocks where "
        "the image, block, strides, dilations and pads make 4 x 4")
    cases.expect_error("Col2Im-18 run-time image_shape is refused", single(
        "Col2Im", [("x", [1, 4, 16], F32), ("i", [2], I64), ("b", [2], I64)],
        [("y", [1, 1, 5, 5], F32)], 18, init[1:]),
        "onnx node 'n' (Col2Im, opset 18): input 1 (image_shape) must be an "
        "integer tensor known at compile time; data-dependent values are "
        "not supported")

    # AffineGrid-20: 2-D and 3-D, align_corners 0 and 1.
    for size in ([2, 3, 4, 5], [1, 2, 3, 1], [2, 1, 3, 4, 2]):
        spatial = len(size) - 2
        theta = rng.standard_normal((size[0], spatial, spatial + 1)).astype(
            np.float32)
        out = [size[0]] + size[2:] + [spatial]
        for align in (0, 1):
            cases.run_model("AffineGrid-20 size %s align_corners=%d" %
                            (size, align),
                            single("AffineGrid", [("t", list(theta.shape), F32),
                                                  ("s", [len(size)], I64)],
                                   [("y", out, F32)], 20,
                                   [numpy_helper.from_array(
                                       np.array(size, np.int64), "s")],
                                   align_corners=align),
                            [theta], [affine_grid_ref(theta, size, align)],
                            rtol=1e-5, atol=1e-6)
    cases.expect_error("AffineGrid-20 run-time size is refused", single(
        "AffineGrid", [("t", [2, 2, 3], F32), ("s", [4], I64)],
        [("y", ["?", "?", "?", 2], F32)], 20),
        "onnx node 'n' (AffineGrid, opset 20): input 1 (size) must be an "
        "integer tensor known at compile time; data-dependent values are "
        "not supported")
    cases.expect_error("AffineGrid-20 theta of the wrong shape", single(
        "AffineGrid", [("t", [2, 3, 4], F32), ("s", [4], I64)],
        [("y", [2, 3, 3, 2], F32)], 20,
        [numpy_helper.from_array(np.array([2, 1, 3, 3], np.int64), "s")]),
        "onnx node 'n' (AffineGrid, opset 20): theta must be 2 x 2 x 3 for "
        "size's batch and rank; it is tensor<2x3x4xf32>")

    # DFT-20: axis and dft_length as constant inputs.
    real = rng.standard_normal((2, 6, 5, 1)).astype(np.float32)
    cplx = rng.standard_normal((2, 6, 5, 2)).astype(np.float32)
    for x_in, axis, length, inverse, onesided in (
            (real, 1, None, 0, 0), (real, -2, 8, 0, 1), (cplx, 2, 3, 0, 0),
            (cplx, 1, 7, 1, 0), (real, 2, None, 1, 0), (cplx, -3, 6, 0, 1)):
        want = dft_ref(x_in, axis if axis >= 0 else axis + 4,
                       length or x_in.shape[axis], inverse, onesided)
        init = [numpy_helper.from_array(np.array(axis, np.int64), "a")]
        names = [("x", list(x_in.shape), F32)]
        if length:
            init.append(numpy_helper.from_array(np.array(length, np.int64),
                                                "l"))
            names.append(("l", [], I64))
        else:
            names.append(("", [], I64))
        names.append(("a", [], I64))
        node = helper.make_node("DFT", [name for name, _, _ in names], ["y"],
                                name="n", inverse=inverse, onesided=onesided)
        m = model([node], [vi("x", list(x_in.shape))],
                  [vi("y", list(want.shape))], init, opset=20)
        cases.run_model("DFT-20 %s axis %d dft_length %s inverse=%d "
                        "onesided=%d" % ("real" if x_in is real else
                                         "complex", axis, length, inverse,
                                         onesided), m, [x_in], [want],
                        rtol=1e-4, atol=1e-4)
    # DFT-17: axis an attribute, dft_length a constant input.
    init = [numpy_helper.from_array(np.array(4, np.int64), "l")]
    node = helper.make_node("DFT", ["x", "l"], ["y"], name="n", axis=-3,
                            onesided=1)
    cases.run_model("DFT-17 real axis -3 dft_length 4 onesided=1", model(
        [node], [vi("x", [2, 6, 5, 1])], [vi("y", [2, 3, 5, 2])], init,
        opset=17), [real], [dft_ref(real, 1, 4, 0, 1)], rtol=1e-4, atol=1e-4)
    node = helper.make_node("DFT", ["x"], ["y"], name="n", axis=3)
    cases.expect_error("DFT-17 axis on the complex dimension is refused",
                       model([node], [vi("x", [2, 6, 5, 1])],
                             [vi("y", [2, 6, 5, 2])], opset=17),
                       "onnx node 'n' (DFT, opset 17): axis 3 is outside "
                       "[-4, -2] and [0, 2]")
    node = helper.make_node("DFT", ["x", "", "a"], ["y"], name="n")
    cases.expect_error("DFT-20 run-time axis is refused", model(
        [node], [vi("x", [2, 6, 5, 1]), vi("a", [], I64)],
        [vi("y", ["?", "?", "?", 2])], opset=20),
        "onnx node 'n' (DFT, opset 20): input 2 (axis) must be an integer "
        "tensor known at compile time; data-dependent values are not "
        "supported")
    node = helper.make_node("DFT", ["x"], ["y"], name="n", inverse=1,
                            onesided=1)
    cases.expect_error("DFT-20 one-sided inverse is refused", model(
        [node], [vi("x", [2, 6, 5, 2])], [vi("y", [2, 6, 3, 2])], opset=20),
        "onnx node 'n' (DFT, opset 20): onesided = 1 with inverse = 1 (a "
        "one-sided inverse transform) is not supported")

    # LpPool (18: dilations and ceil_mode), GlobalLpPool, LpNormalization.
    lx = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
    for p, kernel, strides, pads, dil, ceil in (
            (2, [3, 3], [1, 1], [0, 0, 0, 0], [1, 1], 0),
            (1, [2, 3], [2, 1], [1, 0, 1, 2], [1, 1], 0),
            (3, [3, 2], [2, 2], [1, 1, 0, 0], [2, 1], 0),
            (2, [2, 2], [2, 2], [0, 0, 0, 0], [1, 1], 1)):
        ref = lp_pool_ref(lx, kernel, strides, pads, dil, p, ceil)
        cases.run_model(
            "LpPool-18 p=%d kernel %s strides %s pads %s dilations %s "
            "ceil_mode=%d" % (p, kernel, strides, pads, dil, ceil),
            single("LpPool", [("x", list(lx.shape), F32)],
                   [("y", list(ref.shape), F32)], 18, p=p,
                   kernel_shape=kernel, strides=strides, pads=pads,
                   dilations=dil, ceil_mode=ceil),
            [lx], [ref], rtol=1e-4, atol=1e-5)
    ref = lp_pool_ref(lx, [2, 2], [1, 1], [0, 0, 0, 0], [1, 1], 2, 0)
    cases.run_model("LpPool-11 p defaults to 2", single(
        "LpPool", [("x", list(lx.shape), F32)], [("y", list(ref.shape), F32)],
        11, kernel_shape=[2, 2]), [lx], [ref], rtol=1e-4, atol=1e-5)
    for p in (1, 2, 3):
        ref = (np.sum(np.abs(lx.astype(np.float64)) ** p, axis=(2, 3),
                      keepdims=True) ** (1.0 / p)).astype(np.float32)
        cases.run_model("GlobalLpPool-2 p=%d" % p, single(
            "GlobalLpPool", [("x", list(lx.shape), F32)],
            [("y", [2, 3, 1, 1], F32)], 2, p=p), [lx], [ref], rtol=1e-4)
    for p, axis in ((2, -1), (1, 0), (2, 2)):
        norm = np.sum(np.abs(lx.astype(np.float64)) ** p, axis=axis,
                      keepdims=True) ** (1.0 / p)
        cases.run_model("LpNormalization-1 p=%d axis=%d" % (p, axis), single(
            "LpNormalization", [("x", list(lx.shape), F32)],
            [("y", list(lx.shape), F32)], 1, p=p, axis=axis), [lx],
            [(lx / norm).astype(np.float32)], rtol=1e-5, atol=1e-6)
    cases.expect_error("LpPool-18 p=0 is refused", single(
        "LpPool", [("x", [1, 1, 4, 4], F32)], [("y", [1, 1, 3, 3], F32)], 18,
        p=0, kernel_shape=[2, 2]),
        "onnx node 'n' (LpPool, opset 18): p = 0 is outside [1, 1024]")
    cases.expect_error("LpNormalization-1 p=3 is refused", single(
        "LpNormalization", [("x", [2, 3], F32)], [("y", [2, 3], F32)], 1,
        p=3),
        "onnx node 'n' (LpNormalization, opset 1): p = 3 is not 1 or 2")
    # STFT-17: frame_step and frame_length constant (twiddle factors made
    # at compile time) or run-time data (made by a kernel); with and
    # without a window; complex signals; its errors.
    sig = rng.standard_normal((2, 37, 1)).astype(np.float32)
    csig = rng.standard_normal((1, 29, 2)).astype(np.float32)
    win = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(9) / 9)).astype(
        np.float32)
    for x_in, step, length, window, onesided, constant in (
            (sig, 4, 9, win, 1, True), (sig, 3, 8, None, 1, True),
            (sig, 5, 7, None, 0, False), (csig, 2, 9, win, 0, True),
            (csig, 3, 6, None, 1, False), (sig, 1, 37, None, 1, True)):
        want = stft_ref(x_in, step, length, window, onesided)
        names = ["x", "s", "w" if window is not None else "",
                 "" if window is not None and constant else "l"]
        graph_in = [vi("x", list(x_in.shape))]
        inputs = [x_in]
        init = []
        if constant:
            init.append(numpy_helper.from_array(np.array(step, np.int64),
                                                "s"))
            if names[3]:
                init.append(numpy_helper.from_array(
                    np.array(length, np.int64), "l"))
        else:
            graph_in.append(vi("s", [], I64))
            inputs.append(np.array(step, np.int64))
        if window is not None:
            graph_in.append(vi("w", [length]))
            inputs.append(window)
        if not constant and names[3]:
            graph_in.append(vi("l", [], I64))
            inputs.append(np.array(length, np.int64))
        while names and not names[-1]:
            names.pop()
        node = helper.make_node("STFT", names, ["y"], name="n",
                                onesided=onesided)
        m = model([node], graph_in, [vi("y", ["?"] * 4)], init, opset=17)
        cases.run_model("STFT-17 %s step %d length %d %s onesided=%d %s" % (
            "real" if x_in is sig else "complex", step, length,
            "window" if window is not None else "no window", onesided,
            "constant" if constant else "run-time"), m, inputs, [want],
            rtol=1e-4, atol=1e-4)
    node = helper.make_node("STFT", ["x", "s", "w", "l"], ["y"], name="n")
    m = model([node], [vi("x", [2, 37, 1]), vi("s", [], I64),
                       vi("w", [9]), vi("l", [], I64)],
              [vi("y", ["?"] * 4)], opset=17)
    expect_run_error(cases, "STFT-17 frame_length unlike the window fails "
                     "the call", m, [sig, np.array(4, np.int64), win,
                                     np.array(8, np.int64)],
                     "onnx node 'n' (STFT, opset 17): frame_length differs "
                     "from the window's size at run time")
    node = helper.make_node("STFT", ["x", "s", "", "l"], ["y"], name="n")
    m = model([node], [vi("x", [2, 37, 1]), vi("s", [], I64),
                       vi("l", [], I64)], [vi("y", ["?"] * 4)], opset=17)
    expect_run_error(cases, "STFT-17 a zero frame_step fails the call", m,
                     [sig, np.array(0, np.int64), np.array(8, np.int64)],
                     "onnx node 'n' (STFT, opset 17): frame_step is not "
                     "positive at run time")
    expect_run_error(cases, "STFT-17 frame_length beyond the signal fails "
                     "the call", m,
                     [sig, np.array(2, np.int64), np.array(38, np.int64)],
                     "onnx node 'n' (STFT, opset 17): frame_length is "
                     "outside [1, 37] (the signal's length) at run time")
    init = [numpy_helper.from_array(np.array(2, np.int64), "s"),
            numpy_helper.from_array(np.array(40, np.int64), "l")]
    cases.expect_error("STFT-17 constant frame_length beyond the signal is "
                       "refused", model([node], [vi("x", [2, 37, 1])],
                                        [vi("y", ["?"] * 4)], init,
                                        opset=17),
                       "onnx node 'n' (STFT, opset 17): frame_length 40 is "
                       "outside [1, 37] (the signal's length)")
    cases.expect_error("STFT-17 a signal of the wrong shape is refused",
                       single("STFT", [("x", [2, 37, 3], F32),
                                       ("s", [], I64)],
                              [("y", ["?"] * 4, F32)], 17),
                       "onnx node 'n' (STFT, opset 17): input 0 (signal) "
                       "must be a float tensor [batch, length, 1 or 2]; it "
                       "is tensor<2x37x3xf32>")

    # MelWeightMatrix-17: constant inputs fold to a constant; run-time
    # inputs are computed by a kernel.
    I32 = TensorProto.INT32
    mel_names = ["m", "d", "r", "lo", "hi"]
    for mels, dft, rate, lower, upper, constant in (
            (8, 16, 8192, 0.0, 4096.0, True), (5, 63, 16000, 120.0,
                                                 7000.0, True),
            (10, 64, 22050, 30.0, 9000.0, False)):
        values = [np.array(mels, np.int32), np.array(dft, np.int32),
                  np.array(rate, np.int32), np.array(lower, np.float32),
                  np.array(upper, np.float32)]
        types = [I32, I32, I32, F32, F32]
        node = helper.make_node("MelWeightMatrix", mel_names, ["y"],
                                name="n")
        want = mel_ref(mels, dft, rate, float(values[3]), float(values[4]))
        if constant:
            init = [numpy_helper.from_array(v, k)
                    for k, v in zip(mel_names, values)]
            m = model([node], [], [vi("y", list(want.shape))], init,
                      opset=17)
            inputs = []
        else:
            m = model([node], [vi(k, [], t) for k, t in zip(mel_names,
                                                            types)],
                      [vi("y", ["?", "?"])], opset=17)
            inputs = values
        cases.run_model("MelWeightMatrix-17 %d bands, dft_length %d, %g-%g "
                        "Hz %s" % (mels, dft, lower, upper,
                                   "constant" if constant else "run-time"),
                        m, inputs, [want])
    init = [numpy_helper.from_array(v, k) for k, v in zip(mel_names, [
        np.array(4, np.int32), np.array(16, np.int32),
        np.array(8000, np.int32), np.array(3000.0, np.float32),
        np.array(100.0, np.float32)])]
    cases.expect_error("MelWeightMatrix-17 edges out of order are refused",
                       model([helper.make_node("MelWeightMatrix", mel_names,
                                               ["y"], name="n")], [],
                             [vi("y", [9, 4])], init, opset=17),
                       "onnx node 'n' (MelWeightMatrix, opset 17): "
                       "lower_edge_hertz 3000 and upper_edge_hertz 100 are "
                       "not edges 0 <= lower <= upper")

    # Det: batches of 1x1 to 6x6 matrices, singular ones among them.
    for shape in ((1, 1), (3, 3), (2, 4, 4), (5, 6, 6), (2, 2, 5, 5)):
        a = rng.standard_normal(shape).astype(np.float32)
        if len(shape) > 2:
            a.reshape((-1,) + shape[-2:])[0, -1] = \
                a.reshape((-1,) + shape[-2:])[0, 0]  # singular
        cases.run_model("Det %s" % (shape,), single(
            "Det", [("x", list(shape), F32)], [("y", list(shape[:-2]), F32)],
            13), [a], [det_ref(a)], rtol=1e-4, atol=1e-5)
    cases.expect_error("Det of non-square matrices is refused", single(
        "Det", [("x", [2, 3, 4], F32)], [("y", [2], F32)], 13),
        "onnx node 'n' (Det, opset 13): input 0 must be a float tensor of "
        "square matrices [..., M, M]; it is tensor<2x3x4xf32>")
    cases.expect_error("Det of 17 x 17 matrices is refused", single(
        "Det", [("x", [17, 17], F32)], [("y", [], F32)], 13),
        "onnx node 'n' (Det, opset 13): Det of 17 x 17 matrices is not "
        "supported: the factorization is unrolled for matrices of at most "
        "16 x 16")

    # MaxPool's Indices (1-D, 2-D, 3-D; pads, strides, dilations,
    # storage_order 1) and MaxUnpool of them (inferred and larger output
    # shapes, constant and run-time).
    for shape, kernel, strides, pads, dilations, order in (
            ((2, 3, 9), [3], [2], [1, 1], [1], 0),
            ((1, 2, 7, 6), [3, 2], [2, 1], [1, 0, 1, 1], [1, 2], 0),
            ((1, 2, 7, 6), [2, 2], [2, 2], [0, 0, 1, 0], [1, 1], 1),
            ((1, 1, 4, 5, 3), [2, 3, 2], [1, 2, 1], [0, 1, 0, 1, 0, 1],
             [1, 1, 1], 0)):
        xp = rng.standard_normal(shape).astype(np.float32)
        xp.reshape(-1)[1] = xp.reshape(-1)[0]  # a tie
        want_v, want_i = maxpool_ref(xp, kernel, strides, pads, dilations,
                                     order)
        node = helper.make_node("MaxPool", ["x"], ["y", "i"], name="n",
                                kernel_shape=kernel, strides=strides,
                                pads=pads, dilations=dilations,
                                storage_order=order)
        cases.run_model("MaxPool Indices %s kernel %s storage_order %d" % (
            shape, kernel, order), model(
                [node], [vi("x", list(shape))],
                [vi("y", list(want_v.shape)), vi("i", list(want_i.shape),
                                                 I64)], opset=12),
            [xp], [want_v, want_i])
    xp = rng.standard_normal((2, 3, 6, 8)).astype(np.float32)
    pooled, where = maxpool_ref(xp, [2, 2], [2, 2], [0, 0, 0, 0], [1, 1], 0)
    for output, runtime in ((None, False), ((2, 3, 7, 9), False),
                            ((2, 3, 6, 10), True)):
        names = ["x", "i"] + (["s"] if output else [])
        node = helper.make_node("MaxUnpool", names, ["y"], name="n",
                                kernel_shape=[2, 2], strides=[2, 2])
        graph_in = [vi("x", [2, 3, 3, 4]), vi("i", [2, 3, 3, 4], I64)]
        inputs = [pooled, where]
        init = []
        if output and runtime:
            graph_in.append(vi("s", [4], I64))
            inputs.append(np.array(output, np.int64))
        elif output:
            init.append(numpy_helper.from_array(np.array(output, np.int64),
                                                "s"))
        want = maxunpool_ref(pooled, where, (2, 3, 6, 8),
                             output or (2, 3, 6, 8))
        cases.run_model("MaxUnpool of MaxPool's Indices, output %s%s" % (
            output, " (run-time)" if runtime else ""), model(
                [node], graph_in, [vi("y", ["?"] * 4)], init, opset=11),
            inputs, [want])
    node = helper.make_node("MaxUnpool", ["x", "i", "s"], ["y"], name="n",
                            kernel_shape=[2, 2], strides=[2, 2])
    m = model([node], [vi("x", [2, 3, 3, 4]), vi("i", [2, 3, 3, 4], I64),
                       vi("s", [4], I64)], [vi("y", ["?"] * 4)], opset=11)
    expect_run_error(cases, "MaxUnpool output_shape below the unpooled size "
                     "fails the call", m,
                     [pooled, where, np.array([2, 3, 5, 8], np.int64)],
                     "onnx node 'n' (MaxUnpool, opset 11): output_shape is "
                     "not the input's N and C and spatial sizes from the "
                     "unpooled ones to 2^40 at run time")
    cases.expect_error("MaxUnpool without kernel_shape is refused", single(
        "MaxUnpool", [("x", [2, 3, 3, 4], F32), ("i", [2, 3, 3, 4], I64)],
        [("y", ["?"] * 4, F32)], 11),
        "onnx node 'n' (MaxUnpool, opset 11): kernel_shape must hold one "
        "size per spatial dimension (2)")

    # RoiAlign: opset 16 (half_pixel and output_half_pixel), opset 10;
    # avg and max; a fixed and an adaptive sampling grid; regions partly
    # outside the map.
    fmap = rng.standard_normal((2, 3, 9, 11)).astype(np.float32)
    boxes = np.array([[0.5, 1.0, 7.0, 6.5], [2.0, 0.0, 10.5, 8.9],
                      [-2.0, -1.5, 4.0, 3.0], [3.3, 2.2, 3.9, 2.8],
                      [1.0, 1.0, 20.0, 17.0]], np.float32)
    which = np.array([0, 1, 1, 0, 1], np.int64)
    for opset, transform, mode, ratio, scale in (
            (16, "half_pixel", "avg", 2, 1.0),
            (16, "output_half_pixel", "max", 2, 0.5),
            (16, "half_pixel", "avg", 0, 1.0),
            (16, "half_pixel", "max", 0, 0.75),
            (10, None, "avg", 3, 1.0)):
        attrs = dict(mode=mode, output_height=3, output_width=4,
                     sampling_ratio=ratio, spatial_scale=scale)
        if transform:
            attrs["coordinate_transformation_mode"] = transform
        want = roi_align_ref(fmap, boxes, which, 3, 4, ratio, scale, mode,
                             transform == "half_pixel")
        cases.run_model("RoiAlign-%d %s %s sampling_ratio %d scale %g" % (
            opset, transform or "(output_half_pixel)", mode, ratio, scale),
            single("RoiAlign", [("x", [2, 3, 9, 11], F32),
                                ("rois", [5, 4], F32),
                                ("b", [5], I64)],
                   [("y", [5, 3, 3, 4], F32)], opset, **attrs),
            [fmap, boxes, which], [want], rtol=1e-4, atol=1e-5)
    cases.expect_error("RoiAlign of an unknown mode is refused", single(
        "RoiAlign", [("x", [2, 3, 9, 11], F32), ("rois", [5, 4], F32),
                     ("b", [5], I64)], [("y", [5, 3, 1, 1], F32)], 16,
        mode="median"),
        "onnx node 'n' (RoiAlign, opset 16): mode 'median' is not avg or max")
    cases.expect_error("RoiAlign of rois [R, 5] is refused", single(
        "RoiAlign", [("x", [2, 3, 9, 11], F32), ("rois", [5, 5], F32),
                     ("b", [5], I64)], [("y", [5, 3, 1, 1], F32)], 16),
        "onnx node 'n' (RoiAlign, opset 16): input 1 (rois) must be a float "
        "tensor [R, 4]; it is tensor<5x5xf32>")

    # DeformConv-19 (no node test in onnx 1.12): odd sizes, strides,
    # dilations and pads, groups, offset groups, with and without mask and
    # bias; offsets that move taps off the map.
    for (n_, c_, h, wd, oc, k, strides, pads, dilations, group, og, use_mask,
         use_bias) in (
            (1, 1, 5, 5, 1, (3, 3), [1, 1], [0, 0, 0, 0], [1, 1], 1, 1,
             False, False),
            (2, 4, 7, 6, 6, (3, 2), [2, 1], [1, 0, 2, 1], [1, 2], 2, 2,
             True, True),
            (1, 6, 5, 7, 3, (2, 3), [1, 2], [1, 1, 0, 1], [2, 1], 3, 3,
             True, False),
            (1, 3, 4, 5, 2, (1, 1), [1, 1], [0, 0, 0, 0], [1, 1], 1, 3,
             False, True)):
        kh, kw = k
        oh = (h + pads[0] + pads[2] - (kh - 1) * dilations[0] - 1) // \
            strides[0] + 1
        ow = (wd + pads[1] + pads[3] - (kw - 1) * dilations[1] - 1) // \
            strides[1] + 1
        xd = rng.standard_normal((n_, c_, h, wd)).astype(np.float32)
        wd_ = rng.standard_normal((oc, c_ // group, kh, kw)).astype(
            np.float32)
        off = (rng.standard_normal((n_, og * kh * kw * 2, oh, ow)) *
               1.7).astype(np.float32)
        names = [("x", [n_, c_, h, wd], F32), ("w", list(wd_.shape), F32),
                 ("o", list(off.shape), F32)]
        inputs = [xd, wd_, off]
        bias = mask = None
        if use_bias:
            bias = rng.standard_normal(oc).astype(np.float32)
            names.append(("b", [oc], F32))
            inputs.append(bias)
        elif use_mask:
            names.append(("", [], F32))
        if use_mask:
            mask = rng.uniform(0, 1, (n_, og * kh * kw, oh, ow)).astype(
                np.float32)
            names.append(("m", list(mask.shape), F32))
            inputs.append(mask)
        node = helper.make_node("DeformConv", [nm for nm, _, _ in names],
                                ["y"], name="n", strides=strides, pads=pads,
                                dilations=dilations, group=group,
                                offset_group=og)
        want = deform_conv_ref(xd, wd_, off, bias, mask, strides, pads,
                               dilations, group, og)
        cases.run_model("DeformConv-19 %s kernel %s group %d offset_group %d"
                        "%s%s" % ((n_, c_, h, wd), k, group, og,
                                  " mask" if use_mask else "",
                                  " bias" if use_bias else ""),
                        model([node], [vi(nm, sh, t) for nm, sh, t in names
                                       if nm], [vi("y", list(want.shape))],
                              opset=19), inputs, [want], rtol=1e-4,
                        atol=1e-5)
    # Zero offsets and no mask: a plain grouped convolution, computed here
    # without sampling (zero padding, strides, dilations).
    xd = rng.standard_normal((1, 4, 6, 7)).astype(np.float32)
    wd_ = rng.standard_normal((4, 2, 3, 2)).astype(np.float32)
    padded = np.pad(xd.astype(np.float64), ((0, 0), (0, 0), (1, 0), (2, 1)))
    oh, ow = (7 - 5) // 1 + 1, (10 - 2) // 2 + 1
    plain = np.zeros((1, 4, oh, ow))
    for o in range(4):
        g = o // 2
        for p in range(oh):
            for q in range(ow):
                patch = padded[0, 2 * g:2 * g + 2, p:p + 5:2, 2 * q:2 * q + 2]
                plain[0, o, p, q] = np.sum(patch * wd_[o])
    off = np.zeros((1, 12, oh, ow), np.float32)
    node = helper.make_node("DeformConv", ["x", "w", "o"], ["y"], name="n",
                            strides=[1, 2], pads=[1, 2, 0, 1],
                            dilations=[2, 1], group=2)
    cases.run_model("DeformConv-19 zero offsets equal a grouped Conv",
                    model([node], [vi("x", [1, 4, 6, 7]),
                                   vi("w", [4, 2, 3, 2]),
                                   vi("o", list(off.shape))],
                          [vi("y", [1, 4, oh, ow])], opset=19),
                    [xd, wd_, off], [plain.astype(np.float32)], rtol=1e-4,
                    atol=1e-5)
    cases.expect_error("DeformConv-19 offsets of the wrong shape are refused",
                       single("DeformConv", [("x", [1, 2, 5, 5], F32),
                                             ("w", [2, 2, 3, 3], F32),
                                             ("o", [1, 9, 3, 3], F32)],
                              [("y", [1, 2, 3, 3], F32)], 19),
                       "onnx node 'n' (DeformConv, opset 19): input 2 "
                       "(offset) must be 1 x 18 x 3 x 3 (N, offset_group kH "
                       "kW 2, the output's size) of X's element type; it is "
                       "tensor<1x9x3x3xf32>")
    cases.expect_error("DeformConv-19 an offset_group not dividing C is "
                       "refused",
                       single("DeformConv", [("x", [1, 2, 5, 5], F32),
                                             ("w", [2, 2, 3, 3], F32),
                                             ("o", [1, 54, 3, 3], F32)],
                              [("y", [1, 2, 3, 3], F32)], 19,
                              offset_group=3),
                       "onnx node 'n' (DeformConv, opset 19): offset_group 3 "
                       "does not divide X's 2 channels")

    # GatherND with batch_dims 1 and 2 (negative indices among them).
    for dshape, ishape, batch in (((2, 3, 4), (2, 1), 1),
                                  ((2, 3, 4, 5), (2, 3, 2, 1), 2),
                                  ((3, 4, 5), (3, 2, 2), 1)):
        dat = rng.standard_normal(dshape).astype(np.float32)
        k = ishape[-1]
        hi = np.array(dshape[batch:batch + k])
        idx = (rng.integers(0, 1 << 20, ishape) % hi - (
            rng.integers(0, 2, ishape) * hi)).astype(np.int64)
        want = gather_nd_ref(dat, np.where(idx < 0, idx + hi, idx), batch)
        cases.run_model("GatherND batch_dims %d data %s indices %s" % (
            batch, dshape, ishape), single(
                "GatherND", [("d", list(dshape), F32),
                             ("i", list(ishape), I64)],
                [("y", list(want.shape), F32)], 13, batch_dims=batch),
            [dat, idx], [want])
    cases.expect_error("GatherND batch dimensions that differ are refused",
                       single("GatherND", [("d", [2, 3, 4], F32),
                                           ("i", [3, 1], I64)],
                              [("y", [3, 4], F32)], 13, batch_dims=1),
                       "onnx node 'n' (GatherND, opset 13): batch dimension "
                       "0 is 2 in the data and 3 in the indices")

    # Einsum with ellipses: broadcast batch dimensions, an implicit
    # output, a diagonal, an ellipsis in the middle.
    for equation, shapes in (("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
                             ("...ij,...jk", [(3, 2, 4), (3, 4, 5)]),
                             ("...ii->...i", [(2, 3, 3)]),
                             ("i...j->j...", [(2, 3, 4, 5)]),
                             ("b...,b...->...", [(3, 4), (3, 1)])):
        ops = [rng.standard_normal(sh).astype(np.float32) for sh in shapes]
        want = np.einsum(equation, *ops).astype(np.float32)
        names = [("x%d" % i, list(sh), F32) for i, sh in enumerate(shapes)]
        cases.run_model("Einsum '%s' %s" % (equation, shapes), single(
            "Einsum", names, [("y", list(want.shape), F32)], 12,
            equation=equation), ops, [want], rtol=1e-4, atol=1e-5)
    cases.expect_error("Einsum with two ellipses in a term is refused",
                       single("Einsum", [("x0", [2, 3, 4], F32)],
                              [("y", [2], F32)], 12,
                              equation="...i...->i"),
                       "onnx node 'n' (Einsum, opset 12): term '...i...' has "
                       "more than one ellipsis or no input")

    # Grouped 3-D Conv (strides and pads), against a direct sum.
    x3 = rng.standard_normal((2, 6, 5, 4, 6)).astype(np.float32)
    w3 = rng.standard_normal((9, 2, 2, 3, 2)).astype(np.float32)
    p3 = np.pad(x3.astype(np.float64), ((0, 0), (0, 0), (1, 0), (0, 1),
                                        (1, 1)))
    outs3 = [(p3.shape[2 + i] - w3.shape[2 + i]) // s + 1
             for i, s in enumerate((2, 1, 2))]
    y3 = np.zeros((2, 9) + tuple(outs3))
    for o in range(9):
        g = o // 3
        for a, b_, c in np.ndindex(*outs3):
            patch = p3[:, 2 * g:2 * g + 2, 2 * a:2 * a + 2, b_:b_ + 3,
                       2 * c:2 * c + 2]
            y3[:, o, a, b_, c] = np.sum(patch * w3[o], axis=(1, 2, 3, 4))
    cases.run_model("Conv 3-D group 3", single(
        "Conv", [("x", [2, 6, 5, 4, 6], F32), ("w", [9, 2, 2, 3, 2], F32)],
        [("y", [2, 9] + outs3, F32)], 11, group=3, strides=[2, 1, 2],
        pads=[1, 0, 1, 0, 1, 1]), [x3, w3], [y3.astype(np.float32)],
        rtol=1e-4, atol=1e-5)

    # 3-D ConvTranspose (strides, dilations, pads, output_padding, groups,
    # a bias), against the scatter of each input element.
    for group, strides, dilations, pads, opad in (
            (1, [1, 1, 1], [1, 1, 1], [0, 0, 0, 0, 0, 0], [0, 0, 0]),
            (2, [2, 1, 3], [1, 2, 1], [1, 0, 2, 0, 1, 1], [1, 0, 2])):
        xt = rng.standard_normal((2, 4, 3, 4, 2)).astype(np.float32)
        wt = rng.standard_normal((4, 3, 2, 3, 2)).astype(np.float32)
        bt = rng.standard_normal(3 * group).astype(np.float32)
        full = [strides[i] * (xt.shape[2 + i] - 1) + opad[i] +
                (wt.shape[2 + i] - 1) * dilations[i] + 1 for i in range(3)]
        big = np.zeros((2, 3 * group) + tuple(full))
        cpg = 4 // group
        for n_, c in np.ndindex(2, 4):
            g = c // cpg
            for i in np.ndindex(*xt.shape[2:]):
                for kk in np.ndindex(*wt.shape[2:]):
                    o = tuple(i[a] * strides[a] + kk[a] * dilations[a]
                              for a in range(3))
                    big[(n_, slice(3 * g, 3 * g + 3)) + o] += \
                        xt[(n_, c) + i] * wt[(c, slice(None)) + kk]
        want = big[:, :, pads[0]:full[0] - pads[3],
                   pads[1]:full[1] - pads[4],
                   pads[2]:full[2] - pads[5]] + bt.reshape(1, -1, 1, 1, 1)
        cases.run_model("ConvTranspose 3-D group %d strides %s" % (
            group, strides), single(
                "ConvTranspose", [("x", list(xt.shape), F32),
                                  ("w", list(wt.shape), F32),
                                  ("b", [3 * group], F32)],
                [("y", list(want.shape), F32)], 11, group=group,
                strides=strides, dilations=dilations, pads=pads,
                output_padding=opad), [xt, wt, bt],
            [want.astype(np.float32)], rtol=1e-4, atol=1e-5)

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

    # LayerNormalization of f32 takes its statistics in one pass (the sum
    # and sum of squares in f64): rows far from zero beside their spread
    # (a mean of 300 and deviations of about 1, where E[x^2] - mean^2 taken
    # in f32 would be 1% off), constant rows (a variance of exactly 0: with
    # epsilon 0 their outputs are 0 * inf, NaN, as numpy's) and plain rows,
    # normalized over the last two axes, with the Mean and InvStdDev
    # outputs checked too.
    rows = np.stack([
        300 + rng.standard_normal((3, 4)),
        np.full((3, 4), -7.25),
        rng.standard_normal((3, 4))]).astype(np.float32)
    rows = rows.reshape(1, 3, 3, 4)
    scale = rng.standard_normal((3, 4)).astype(np.float32)
    bias = rng.standard_normal((3, 4)).astype(np.float32)
    wide = rows.astype(np.float64)
    mean = wide.mean(axis=(2, 3), keepdims=True)
    var = ((wide - mean) ** 2).mean(axis=(2, 3), keepdims=True)
    for epsilon in (1e-5, 0.0):
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1 / np.sqrt(var + epsilon)
            y = (wide - mean) * inv * scale + bias
        cases.run_model(
            "LayerNormalization-17 one-pass statistics, epsilon %g" % epsilon,
            single("LayerNormalization",
                   [("x", [1, 3, 3, 4], F32), ("s", [3, 4], F32),
                    ("b", [3, 4], F32)],
                   [("y", [1, 3, 3, 4], F32), ("m", [1, 3, 1, 1], F32),
                    ("i", [1, 3, 1, 1], F32)],
                   17, axis=2, epsilon=epsilon),
            [rows, scale, bias],
            [y.astype(np.float32), mean.astype(np.float32),
             inv.astype(np.float32)], rtol=1e-4, atol=1e-4)
    run_narrow(cases, rng)
    return cases.summary()


def f8_input_model(op, kind, shape, out_elem, out_shape=None, opset=19,
                   initializers=(), extra_inputs=(), **attrs):
    """One node reading a float8 graph input 'x' (given as its uint8
    bits) and the initializers."""
    code = narrow_ref.FLOAT8[kind][0]
    names = ["x"] + [t.name for t in initializers] + [
        name for name, _, _ in extra_inputs]
    node = helper.make_node(op, names, ["y"], name="n", **attrs)
    return model([node], [vi("x", shape, code)] +
                 [vi(name, s, e) for name, s, e in extra_inputs],
                 [vi("y", out_shape or shape, out_elem)], initializers,
                 opset=opset)


def run_narrow(cases, rng):
    """Opset 19's float8 types and opset 21's int4/uint4: Cast, CastLike,
    QuantizeLinear, DequantizeLinear (blocked too), data movement,
    initializers, and the errors. float8 tensors travel as their bit
    patterns (uint8 in .npy), int4 as int8 and uint4 as uint8 values."""
    I32 = TensorProto.INT32
    INT4, UINT4 = 22, 21
    for kind, layout in narrow_ref.FLOAT8.items():
        code = layout[0]
        x = np.concatenate([narrow_ref.specials(), narrow_ref.ties(kind),
                            (rng.standard_normal(64) *
                             np.exp2(rng.integers(-14, 14, 64))).astype(
                                 np.float32)])
        for saturate in (1, 0):
            cases.run_model("Cast-19 float -> %s saturate=%d" % (kind, saturate),
                            single("Cast", [("x", [len(x)], F32)],
                                   [("y", [len(x)], code)], 19, to=code,
                                   saturate=saturate),
                            [x], [narrow_ref.encode(kind, x, saturate)])
        bits = np.arange(256, dtype=np.uint8)
        cases.run_model("Cast-19 %s -> float, every code" % kind,
                        f8_input_model("Cast", kind, [256], F32, to=1),
                        [bits], [narrow_ref.decode(kind, bits).astype(
                            np.float32)], rtol=0, atol=0)
        cases.run_model("Cast-19 %s -> float16" % kind,
                        f8_input_model("Cast", kind, [256],
                                       TensorProto.FLOAT16, to=10),
                        [bits], [narrow_ref.decode(kind, bits).astype(
                            np.float16)], rtol=0, atol=0)
        # CastLike takes the type of its second input.
        like = np.zeros([1], dtype=np.uint8)
        cases.run_model("CastLike-19 float -> %s" % kind, single(
            "CastLike", [("x", [len(x)], F32), ("t", [1], code)],
            [("y", [len(x)], code)], 19), [x, like],
            [narrow_ref.encode(kind, x, True)])
        # QuantizeLinear with a float8 zero point: x / scale rounded.
        scale = numpy_helper.from_array(np.array(0.5, np.float32), "s")
        zp = narrow_ref.tensor("zp", code, [], int32=[0])
        xq = x[np.isfinite(x)][:40]
        with np.errstate(over="ignore"):
            # 3e38 / 0.5 is infinite in float32, as the kernel computes.
            scaled = xq / np.float32(0.5)
        for saturate in (1, 0):
            cases.run_model(
                "QuantizeLinear-19 %s zero point saturate=%d" % (kind, saturate),
                single("QuantizeLinear", [("x", [len(xq)], F32),
                                          ("s", [], F32), ("zp", [], code)],
                       [("y", [len(xq)], code)], 19, [scale, zp],
                       saturate=saturate),
                [xq], [narrow_ref.encode(kind, scaled, saturate)])
        # DequantizeLinear of every code, per axis.
        codes = bits.reshape(2, 128)
        s2 = np.array([0.25, 3.0], np.float32)
        cases.run_model(
            "DequantizeLinear-19 %s per axis" % kind,
            f8_input_model("DequantizeLinear", kind, [2, 128], F32,
                           initializers=[numpy_helper.from_array(s2, "s")],
                           axis=0),
            [codes], [(narrow_ref.decode(kind, codes) *
                       s2[:, None]).astype(np.float32)], rtol=0, atol=0)

    # Data movement keeps float8 bits: Reshape, Transpose, Concat, Slice,
    # Gather, Identity, then a Cast to float; and a float8 output.
    kind = "E5M2"
    xb = rng.integers(0, 256, (2, 6), dtype=np.uint8)
    xb[xb == 0x7C] = 0x3C
    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["r"]),
        helper.make_node("Transpose", ["r"], ["t"], perm=[1, 0, 2]),
        helper.make_node("Concat", ["t", "t"], ["c"], axis=2),
        helper.make_node("Slice", ["c", "starts", "ends", "axes"], ["sl"]),
        helper.make_node("Gather", ["sl", "idx"], ["g"], axis=0),
        helper.make_node("Identity", ["g"], ["bitsout"]),
        helper.make_node("Cast", ["g"], ["f"], to=1)]
    inits = [numpy_helper.from_array(np.array([2, 3, 2], np.int64), "shape"),
             numpy_helper.from_array(np.array([1], np.int64), "starts"),
             numpy_helper.from_array(np.array([4], np.int64), "ends"),
             numpy_helper.from_array(np.array([2], np.int64), "axes"),
             numpy_helper.from_array(np.array([2, 0], np.int64), "idx")]
    r = xb.reshape(2, 3, 2).transpose(1, 0, 2)
    g = np.concatenate([r, r], axis=2)[:, :, 1:4][[2, 0]]
    cases.run_model("float8 data movement keeps the bits", model(
        nodes, [vi("x", [2, 6], 19)],
        [vi("bitsout", [2, 2, 3], 19), vi("f", [2, 2, 3], F32)], inits,
        opset=19), [xb], [g, narrow_ref.decode(kind, g).astype(np.float32)],
        rtol=0, atol=0)
    # The other data movers: Flatten, Unsqueeze, Squeeze, Expand, Tile,
    # Split, Shape and Size of E4M3FN data, then a Cast: the type stays
    # float8 through each (a plain int8 would cast to other values). The
    # portable target has no Tile (its index map takes a modulo), whatever
    # the type: there the chain goes without it.
    tile = getattr(cases.args, "target", None) != "portable"
    xu = rng.integers(0, 256, (2, 3), dtype=np.uint8)
    xu[(xu & 0x7F) == 0x7F] = 0x40
    nodes = [
        helper.make_node("Unsqueeze", ["x", "ax"], ["u"]),
        helper.make_node("Expand", ["u", "eshape"], ["e"])]
    if tile:
        nodes.append(helper.make_node("Tile", ["e", "reps"], ["t"]))
    nodes += [
        helper.make_node("Flatten", ["t" if tile else "e"], ["f"], axis=1),
        helper.make_node("Split", ["f", "parts"], ["s0", "s1"], axis=1),
        helper.make_node("Squeeze", ["u", "ax"], ["sq"]),
        helper.make_node("Shape", ["t" if tile else "e"], ["shape"]),
        helper.make_node("Size", ["t" if tile else "e"], ["size"]),
        helper.make_node("Cast", ["s0"], ["c0"], to=1)]
    width = 12 if tile else 6
    inits = [numpy_helper.from_array(np.array([1], np.int64), "ax"),
             numpy_helper.from_array(np.array([2, 2, 3], np.int64), "eshape"),
             numpy_helper.from_array(np.array([1, 1, 2], np.int64), "reps"),
             numpy_helper.from_array(np.array([4, width - 4], np.int64),
                                     "parts")]
    t = np.broadcast_to(xu[:, None, :], (2, 2, 3))
    if tile:
        t = np.tile(t, (1, 1, 2))
    f = t.reshape(2, width)
    cases.run_model("float8 Unsqueeze, Expand, %sFlatten, Split, Squeeze, "
                    "Shape, Size" % ("Tile, " if tile else ""), model(
                        nodes, [vi("x", [2, 3], 17)],
                        [vi("s0", [2, 4], 17), vi("s1", [2, width - 4], 17),
                         vi("sq", [2, 3], 17), vi("shape", [3], I64),
                         vi("size", [], I64), vi("c0", [2, 4], F32)], inits,
                        opset=21),
                    [xu], [f[:, :4], f[:, 4:], xu,
                           np.array(t.shape, np.int64),
                           np.array(t.size, np.int64),
                           narrow_ref.decode("E4M3FN", f[:, :4]).astype(
                               np.float32)], rtol=0, atol=0)
    # float8 initializers (raw bytes and int32_data) and a Constant node.
    vals = np.array([0x00, 0x38, 0xB8, 0x7E, 0x01, 0xFE], np.uint8)
    raw = narrow_ref.tensor("w", 17, [6], raw=vals.tobytes())
    typed = narrow_ref.tensor("w", 17, [6], int32=vals)
    for label, w in (("raw_data", raw), ("int32_data", typed)):
        cases.run_model("float8 E4M3FN initializer from %s" % label, model(
            [helper.make_node("Cast", ["w"], ["y"], to=1)], [],
            [vi("y", [6], F32)], [w], opset=19), [],
            [narrow_ref.decode("E4M3FN", vals).astype(np.float32)],
            rtol=0, atol=0)
    cases.run_model("float8 Constant node", model(
        [helper.make_node("Constant", [], ["c"], value=raw),
         helper.make_node("Cast", ["c"], ["y"], to=1)], [],
        [vi("y", [6], F32)], opset=19), [],
        [narrow_ref.decode("E4M3FN", vals).astype(np.float32)],
        rtol=0, atol=0)
    # float8 to float8: E5M2 codes to E4M3FN, through their values.
    every = np.arange(256, dtype=np.uint8)
    wide = narrow_ref.decode("E5M2", every).astype(np.float32)
    for saturate in (1, 0):
        cases.run_model("Cast-19 E5M2 -> E4M3FN saturate=%d" % saturate,
                        f8_input_model("Cast", "E5M2", [256], 17, to=17,
                                       saturate=saturate),
                        [every], [narrow_ref.encode("E4M3FN", wide,
                                                    saturate)])

    # int4 and uint4 (opset 21).
    ints = np.array([-20, -9, -8, -1, 0, 1, 7, 8, 9, 15, 16, 100, -100],
                    np.int32)
    for to, signed, name in ((INT4, True, "int4"), (UINT4, False, "uint4")):
        cases.run_model("Cast-21 int32 -> %s wraps" % name, single(
            "Cast", [("x", [len(ints)], I32)], [("y", [len(ints)], to)], 21,
            to=to), [ints], [narrow_ref.wrap4(ints, signed)])
    fl = np.array([-8.0, -7.9, -3.5, -0.5, 0.0, 0.7, 3.5, 7.9], np.float32)
    cases.run_model("Cast-21 float -> int4 truncates", single(
        "Cast", [("x", [8], F32)], [("y", [8], INT4)], 21, to=INT4),
        [fl], [np.trunc(fl).astype(np.int8)])
    v4 = np.array([-8, -5, -1, 0, 3, 7], np.int8)
    cases.run_model("Cast-21 int4 -> float and int64", model(
        [helper.make_node("Cast", ["x"], ["f"], to=1),
         helper.make_node("Cast", ["x"], ["i"], to=7)],
        [vi("x", [6], INT4)], [vi("f", [6], F32), vi("i", [6], I64)],
        opset=21), [v4], [v4.astype(np.float32), v4.astype(np.int64)])
    u4 = np.array([0, 1, 8, 15], np.uint8)
    cases.run_model("Cast-21 uint4 -> float, uint4 out", model(
        [helper.make_node("Cast", ["x"], ["f"], to=1),
         helper.make_node("Identity", ["x"], ["same"])],
        [vi("x", [4], UINT4)], [vi("f", [4], F32), vi("same", [4], UINT4)],
        opset=21), [u4], [u4.astype(np.float32), u4])
    # Packed initializers: an odd count, raw_data and int32_data.
    w4 = np.array([-8, 7, -1, 0, 5], np.int64)
    packed = narrow_ref.pack4(w4)
    for label, t in (
            ("raw_data", narrow_ref.tensor("w", INT4, [5], raw=packed.tobytes())),
            ("int32_data", narrow_ref.tensor("w", INT4, [5], int32=packed))):
        cases.run_model("int4 initializer from %s (5 values packed)" % label,
                        model([helper.make_node("Cast", ["w"], ["y"], to=6)],
                              [], [vi("y", [5], I32)], [t], opset=21), [],
                        [w4.astype(np.int32)])
    u4w = np.array([15, 0, 9], np.int64)
    cases.run_model("uint4 initializer (raw_data)", model(
        [helper.make_node("Cast", ["w"], ["y"], to=6)], [],
        [vi("y", [3], I32)],
        [narrow_ref.tensor("w", UINT4, [3], raw=narrow_ref.pack4(u4w))], opset=21), [], [u4w.astype(np.int32)])
    # QuantizeLinear-21 to int4 (its zero point's type) and to uint4
    # (output_dtype): ties to even, saturation, negative values.
    xq = np.array([-20.0, -8.4, -5.0, -3.0, -1.0, 1.0, 3.0, 5.0, 7.0, 40.0],
                  np.float32)
    zp4 = narrow_ref.tensor("zp", INT4, [], raw=narrow_ref.pack4([-1]))
    s = numpy_helper.from_array(np.array(2.0, np.float32), "s")
    want = np.clip(np.rint(xq / 2) - 1, -8, 7).astype(np.int8)
    cases.run_model("QuantizeLinear-21 int4 zero point", single(
        "QuantizeLinear", [("x", [10], F32), ("s", [], F32),
                           ("zp", [], INT4)], [("y", [10], INT4)], 21,
        [s, zp4]), [xq], [want])
    cases.run_model("QuantizeLinear-21 output_dtype uint4", single(
        "QuantizeLinear", [("x", [10], F32), ("s", [], F32)],
        [("y", [10], UINT4)], 21, [s], output_dtype=UINT4), [xq],
        [np.clip(np.rint(xq / 2), 0, 15).astype(np.uint8)])
    cases.run_model("QuantizeLinear-21 output_dtype float8", single(
        "QuantizeLinear", [("x", [10], F32), ("s", [], F32)],
        [("y", [10], 17)], 21, [s], output_dtype=17), [xq],
        [narrow_ref.encode("E4M3FN", xq / 2, True)])
    # DequantizeLinear-21 of int4 with an int4 zero point per axis.
    xd = np.array([[-8, -3, 0, 7], [1, 2, -1, -8]], np.int8)
    zpa = np.array([2, -3], np.int64)
    sa = np.array([0.5, 4.0], np.float32)
    cases.run_model("DequantizeLinear-21 int4 per axis", single(
        "DequantizeLinear", [("x", [2, 4], INT4), ("s", [2], F32),
                             ("zp", [2], INT4)], [("y", [2, 4], F32)], 21,
        [numpy_helper.from_array(sa, "s"),
         narrow_ref.tensor("zp", INT4, [2], raw=narrow_ref.pack4(zpa))], axis=0),
        [xd], [((xd - zpa[:, None]) * sa[:, None]).astype(np.float32)])
    # Blocked quantization: scale blocks of 2 along axis 1 (6 -> 3), and of
    # 4 along axis 1 (6 -> 2, the last block short).
    xb2 = (rng.standard_normal((4, 6)) * 8).astype(np.float32)
    sb = rng.uniform(0.5, 2.0, (4, 3)).astype(np.float32)
    zb = rng.integers(-3, 3, (4, 3))
    rep = np.repeat(sb, 2, axis=1)
    zrep = np.repeat(zb, 2, axis=1)
    cases.run_model("QuantizeLinear-21 blocked int4 (block_size 2)", single(
        "QuantizeLinear", [("x", [4, 6], F32), ("s", [4, 3], F32),
                           ("zp", [4, 3], INT4)], [("y", [4, 6], INT4)], 21,
        [numpy_helper.from_array(sb, "s"),
         narrow_ref.tensor("zp", INT4, [4, 3], raw=narrow_ref.pack4(zb))], axis=1, block_size=2),
        [xb2], [np.clip(np.rint(xb2 / rep) + zrep, -8, 7).astype(np.int8)])
    xi = rng.integers(0, 16, (3, 6)).astype(np.uint8)
    sd = rng.uniform(0.5, 2.0, (3, 2)).astype(np.float32)
    zd = rng.integers(0, 16, (3, 2))
    rep = np.repeat(sd, 4, axis=1)[:, :6]
    zrep = np.repeat(zd, 4, axis=1)[:, :6]
    cases.run_model("DequantizeLinear-21 blocked uint4 (block_size 4, "
                    "short last block)", single(
        "DequantizeLinear", [("x", [3, 6], UINT4), ("s", [3, 2], F32),
                             ("zp", [3, 2], UINT4)], [("y", [3, 6], F32)], 21,
        [numpy_helper.from_array(sd, "s"),
         narrow_ref.tensor("zp", UINT4, [3, 2], raw=narrow_ref.pack4(zd))],
        axis=1, block_size=4),
        [xi], [((xi.astype(np.int64) - zrep) * rep).astype(np.float32)])
    cases.run_model("DequantizeLinear-21 blocked float scale, int8", single(
        "DequantizeLinear", [("x", [3, 6], TensorProto.INT8),
                             ("s", [3, 2], F32)], [("y", [3, 6], F32)], 21,
        [numpy_helper.from_array(sd, "s")], axis=-1, block_size=3),
        [xi.astype(np.int8)],
        [(xi.astype(np.float32) * np.repeat(sd, 3, axis=1))])

    # Errors.
    expect_run_error(cases, "int4 input out of range fails the call",
                     single("Cast", [("x", [3], INT4)], [("y", [3], F32)], 21,
                            to=1), [np.array([1, 8, -2], np.int8)],
                     "graph input 'x' (argument 0) is int4, given as int8 "
                     "values one a byte, and holds a value outside [-8, 7]")
    expect_run_error(cases, "uint4 input out of range fails the call",
                     single("Cast", [("x", [2], UINT4)], [("y", [2], F32)],
                            21, to=1), [np.array([3, 16], np.uint8)],
                     "graph input 'x' (argument 0) is uint4, given as uint8 "
                     "values one a byte, and holds a value outside [0, 15]")
    cases.expect_error("arithmetic on float8 is refused", single(
        "Add", [("a", [2], 17), ("b", [2], 17)], [("y", [2], 17)], 19),
        "onnx node 'n' (Add, opset 19): input 0 has element type f8E4M3FN, "
        "which Strata lowers only through Cast, CastLike, QuantizeLinear, "
        "DequantizeLinear and the ops that move data (Identity, Reshape, "
        "Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice, "
        "Gather, Expand, Tile, Shape, Size): cast it to a wider type first")
    cases.expect_error("a blocked scale of the wrong shape is refused", single(
        "DequantizeLinear", [("x", [3, 6], TensorProto.INT8),
                             ("s", [3, 1], F32)], [("y", [3, 6], F32)], 21,
        [numpy_helper.from_array(np.ones((3, 1), np.float32), "s")],
        axis=1, block_size=4),
        "onnx node 'n' (DequantizeLinear, opset 21): input 1 has the shape "
        "[3x1]; with block_size 4 along axis 1 it takes input 0's shape but "
        "ceil(6 / 4) values along that axis")
    cases.expect_error("a float4e2m1 input (opset 23) is refused naming it",
                       single("Cast", [("x", [2], 23)], [("y", [2], F32)], 23,
                              to=1),
                       "value 'x' has element type float4e2m1 (23), which is "
                       "not supported")
    cases.expect_error("output_dtype other than the zero point's is refused",
                       single("QuantizeLinear", [("x", [2], F32),
                                                 ("s", [], F32),
                                                 ("zp", [], INT4)],
                              [("y", [2], INT4)], 21, [s, zp4],
                              output_dtype=3),
                       "onnx node 'n' (QuantizeLinear, opset 21): "
                       "output_dtype 3 differs from the zero point's type i4")


def main():
    args = arguments(__doc__)
    with tempfile.TemporaryDirectory() as work:
        return run(Cases(args, work))


if __name__ == "__main__":
    sys.exit(main())
