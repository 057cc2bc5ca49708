"""narrow_ref.py - numpy references for ONNX's float8 types (opset 19) and
int4/uint4 (opset 21), written from the spec (Cast-19's tables, the
TensorProto comments): every float8 code decoded, floats rounded to the
nearest code with ties to even, saturated or overflowing as `saturate`
says, and 4-bit values packed two a byte, low nibble first. The tests of
opset_test.py compare Strata's results with these."""

import numpy as np
from onnx import TensorProto

# name: (TensorProto code, exponent bits, mantissa bits, bias, fnuz,
# has infinities, largest finite code)
FLOAT8 = {
    "E4M3FN": (17, 4, 3, 7, False, False, 0x7E),
    "E4M3FNUZ": (18, 4, 3, 8, True, False, 0x7F),
    "E5M2": (19, 5, 2, 15, False, True, 0x7B),
    "E5M2FNUZ": (20, 5, 2, 16, True, False, 0x7F),
}


def decode(kind, bits):
    """The float64 values of float8 codes `bits` (uint8)."""
    _, ebits, mbits, bias, fnuz, has_inf, _ = FLOAT8[kind]
    bits = np.asarray(bits, dtype=np.uint8).astype(np.int64)
    sign = np.where(bits & 0x80, -1.0, 1.0)
    mag = bits & 0x7F
    e = mag >> mbits
    m = mag & ((1 << mbits) - 1)
    value = np.where(e == 0, m * 2.0 ** (1 - bias - mbits),
                     (1 + m / 2.0 ** mbits) * 2.0 ** (e - bias))
    value = sign * value
    if fnuz:
        value = np.where(bits == 0x80, np.nan, value)
    elif has_inf:
        top = (1 << ebits) - 1
        value = np.where((e == top) & (m == 0), sign * np.inf, value)
        value = np.where((e == top) & (m != 0), np.nan, value)
    else:
        value = np.where(mag == 0x7F, np.nan, value)
    return value


def nan_code(kind, negative=False):
    _, _, _, _, fnuz, has_inf, _ = FLOAT8[kind]
    if fnuz:
        return 0x80
    return (0x80 if negative else 0) | (0x7E if has_inf else 0x7F)


def encode(kind, x, saturate=True):
    """float32 values `x` as float8 codes (uint8): round to nearest, ties
    to the even code; beyond the largest finite value (infinities too)
    the largest one when `saturate`, else NaN (E5M2: infinity)."""
    _, _, mbits, bias, fnuz, has_inf, max_code = FLOAT8[kind]
    x = np.asarray(x, dtype=np.float32).astype(np.float64).ravel()
    codes = np.arange(max_code + 1)
    values = decode(kind, codes.astype(np.uint8))
    top = values[-1]
    # The value the next code would have if the exponent went on: rounding
    # to it is an overflow.
    e_top = max_code >> mbits
    over_value = top + 2.0 ** (e_top - bias - mbits)
    values = np.append(values, over_value)
    out = np.zeros(x.shape, dtype=np.uint8)
    for i, v in enumerate(x):
        negative = bool(np.signbit(v))
        if np.isnan(v):
            out[i] = nan_code(kind, negative)
            continue
        a = abs(v)
        if saturate:
            a = min(a, top)
        if a >= values[-1]:
            c = max_code + 1
        else:
            d = np.abs(values - a)
            best = np.flatnonzero(d == d.min())
            c = int(best[0]) if len(best) == 1 else int(
                [b for b in best if b % 2 == 0][0])
        if c == max_code + 1:
            if fnuz:
                out[i] = 0x80
            elif has_inf:
                out[i] = (0x80 if negative else 0) | 0x7C
            else:
                out[i] = (0x80 if negative else 0) | 0x7F
            continue
        if fnuz and c == 0:
            out[i] = 0
            continue
        out[i] = (0x80 if negative else 0) | c
    return out


def ties(kind):
    """float32 values halfway between neighbouring codes (normal and
    subnormal), just above and below those, and around the largest
    value: where rounding and overflow differ."""
    _, _, mbits, bias, _, _, max_code = FLOAT8[kind]
    values = decode(kind, np.arange(max_code + 1, dtype=np.uint8))
    e_top = max_code >> mbits
    values = np.append(values, values[-1] + 2.0 ** (e_top - bias - mbits))
    picks = [0, 1, 2, 3, (1 << mbits) - 1, 1 << mbits, (1 << mbits) + 1,
             max_code // 2, max_code // 2 + 1, max_code - 1, max_code]
    out = []
    for c in picks:
        mid = (values[c] + values[c + 1]) / 2
        out += [mid, np.nextafter(np.float32(mid), np.float32(np.inf)),
                np.nextafter(np.float32(mid), np.float32(-np.inf))]
    out = np.array(out, dtype=np.float32)
    return np.concatenate([out, -out])


def specials():
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30,
                     1e-40, 3e38, -3e38, 1.0, -1.0, 0.3, -0.3, 100.0, 1e5,
                     -1e5], dtype=np.float32)


def pack4(values):
    """4-bit values (-8..15) packed two a byte, the first in the low
    nibble, as ONNX stores INT4 and UINT4 data."""
    v = np.asarray(values, dtype=np.int64).ravel() & 0xF
    if len(v) % 2:
        v = np.append(v, 0)
    return (v[0::2] | (v[1::2] << 4)).astype(np.uint8)


def wrap4(values, signed):
    """ONNX's cast of integers to int4/uint4: the low four bits."""
    v = np.asarray(values, dtype=np.int64) & 0xF
    if signed:
        v = np.where(v >= 8, v - 16, v)
        return v.astype(np.int8)
    return v.astype(np.uint8)


def tensor(name, code, dims, raw=None, int32=None):
    """A TensorProto of data type `code` (onnx 1.12's make_tensor knows
    none of the narrow types) from raw bytes or int32_data."""
    t = TensorProto()
    t.name = name
    t.data_type = code
    t.dims.extend(dims)
    if raw is not None:
        t.raw_data = bytes(raw)
    else:
        t.int32_data.extend(int(v) for v in int32)
    return t
