/*===- IdwconvDriver.h - the int8 NHWC depthwise convolution microkernel --===//
 *
 * Included by the x86 variants (SgemmAvx512.c, SgemmAvx2.c) after they
 * define IDW_VL (i32 lanes per vector), the vector type `idwvec` and
 *   idwZero(), idwSplat(int32_t), idwLoadInput(const int8_t *p) (IDW_VL
 *   bytes sign-extended to i32), idwLoadI32(const int32_t *p),
 *   idwStoreI32(int32_t *p, idwvec), idwAdd(a, b), idwMac(acc, x, w) (acc + x *
 * w per lane, for x a sign-extended byte and w an i16 zero-extended to 32 bits:
 * vpmaddwd's high half then multiplies by zero), and idwStoreRequant(int8_t *p,
 * idwvec acc, const int32_t *adjust, const float *multiplier, float zero, float
 * lo, float hi) (IgemmRequant.h's requantization, IDW_VL bytes stored).
 *
 * The i8 x i8 -> i32 depthwise convolution QDQFusion.cpp makes of a
 * quantized depthwise layer (A' = x - 128 for u8 x, W' = w - zero point),
 * with its requantization applied as each vector of results is stored
 * (STRATA_IGEMM_REQUANTIZE: i8 out, no i32 temporary), or the i32 result
 * stored or added (STRATA_IGEMM_ACCUMULATE). The loop order is the f32
 * kernel's (DwconvDriver.h): vectors along channels, IDW_PIXELS output
 * pixels of a row together, every channel block of them before the next
 * pixels, the 3x3 window unrolled, a scalar loop for channels past the
 * last whole vector. The filter is widened once per call into the
 * scratch (i16 values zero-extended to i32 lanes: one multiply-add per
 * tap, vpdpwssd with AVX-512 VNNI).
 *
 * Padding: the input is read in place, given its extent and the padding
 * before it; a tap outside the input reads `padValue` (the zero point's
 * A', not 0 in general).
 *
 * Builds freestanding, like the matmul driver.
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "IgemmParams.h"
#include "IgemmRequant.h"
#include "WindowTaps.h"

/* Output pixels computed together: their accumulators stay in registers. */
#define IDW_PIXELS 8

struct IdwShape {
  /* As DwconvShape (DwconvDriver.h), strides in bytes of input and
   * elements of output; filter taps at (ky * kernelW + kx) * filterStride
   * of the widened filter. */
  const int8_t *in;
  int64_t inStrideH, inStrideW;
  int64_t inRows, inCols, padTop, padLeft;
  int32_t padValue;
  const int32_t *filter; /* widened: tap t of channel c at t * cp + c */
  int64_t cp;
  char *out;
  int64_t outStrideH, outStrideW;
  int64_t rows, outWidth, channels, kernelH, kernelW;
  int64_t strideH, strideW, dilationH, dilationW;
  int accumulate, requant;
  const int32_t *adjust;
  const float *multiplier;
  float zero, lo, hi;
};

/* Stores the accumulators of `count` pixels at output pixel `out` (channel
 * c): requantized, or as i32 (added to what is there when accumulating). */
static inline __attribute__((always_inline)) void
idwStorePixels(const struct IdwShape *s, idwvec *acc, int64_t pixel, int64_t c,
               const int count) {
#pragma clang loop unroll(full)
  for (int p = 0; p < IDW_PIXELS; ++p) {
    if (p < count) {
      int64_t at = pixel + p * s->outStrideW + c;
      if (s->requant) {
        idwStoreRequant((int8_t *)s->out + at, acc[p], s->adjust + c,
                        s->multiplier + c, s->zero, s->lo, s->hi);
      } else {
        int32_t *to = (int32_t *)s->out + at;
        idwStoreI32(to,
                    s->accumulate ? idwAdd(acc[p], idwLoadI32(to)) : acc[p]);
      }
    }
  }
}

/* Pixels [ox, ox + count) of output row oy, channels [c, c + IDW_VL):
 * taps [kyLo, kyHi) x [kxLo, kxHi) are inside the input (the same for
 * every pixel of the group), the others read the pad value. Callers pass
 * constant kernelH/kernelW where they can: the window unrolls, and with
 * the whole window inside the pad test folds away. */
static inline __attribute__((always_inline)) void
idwPixels(const struct IdwShape *s, int64_t oy, int64_t ox, int64_t c,
          const int count, int64_t kyLo, int64_t kyHi, int64_t kxLo,
          int64_t kxHi, const int64_t kernelH, const int64_t kernelW) {
  idwvec acc[IDW_PIXELS];
#pragma clang loop unroll(full)
  for (int p = 0; p < IDW_PIXELS; ++p) {
    acc[p] = idwZero();
  }
  int64_t y0 = oy * s->strideH - s->padTop;
  int64_t x0 = ox * s->strideW - s->padLeft;
  int64_t pixelStep = s->strideW * s->inStrideW;
  idwvec pad = idwSplat(s->padValue);
  for (int64_t ky = 0; ky < kernelH; ++ky) {
    int64_t y = y0 + ky * s->dilationH;
    int rowInside = ky >= kyLo && ky < kyHi;
    for (int64_t kx = 0; kx < kernelW; ++kx) {
      int64_t x = x0 + kx * s->dilationW;
      idwvec w = idwLoadI32(s->filter + (ky * kernelW + kx) * s->cp + c);
      if (rowInside && kx >= kxLo && kx < kxHi) {
        const int8_t *tap = s->in + y * s->inStrideH + x * s->inStrideW + c;
#pragma clang loop unroll(full)
        for (int p = 0; p < IDW_PIXELS; ++p) {
          if (p < count) {
            acc[p] = idwMac(acc[p], idwLoadInput(tap + p * pixelStep), w);
          }
        }
      } else {
#pragma clang loop unroll(full)
        for (int p = 0; p < IDW_PIXELS; ++p) {
          if (p < count) {
            acc[p] = idwMac(acc[p], pad, w);
          }
        }
      }
    }
  }
  idwStorePixels(s, acc, oy * s->outStrideH + ox * s->outStrideW, c, count);
}

/* idwPixels with a constant pixel count, one body per count. */
#define IDW_SWITCH_COUNT(count, call)                                          \
  switch (count) {                                                             \
  case 1: {                                                                    \
    const int n = 1;                                                           \
    call;                                                                      \
  } break;                                                                     \
  case 2: {                                                                    \
    const int n = 2;                                                           \
    call;                                                                      \
  } break;                                                                     \
  case 3: {                                                                    \
    const int n = 3;                                                           \
    call;                                                                      \
  } break;                                                                     \
  case 4: {                                                                    \
    const int n = 4;                                                           \
    call;                                                                      \
  } break;                                                                     \
  case 5: {                                                                    \
    const int n = 5;                                                           \
    call;                                                                      \
  } break;                                                                     \
  case 6: {                                                                    \
    const int n = 6;                                                           \
    call;                                                                      \
  } break;                                                                     \
  case 7: {                                                                    \
    const int n = 7;                                                           \
    call;                                                                      \
  } break;                                                                     \
  default: {                                                                   \
    const int n = 8;                                                           \
    call;                                                                      \
  } break;                                                                     \
  }

/* Every output pixel of the vector channels, row by row: the border
 * pixels one at a time, output columns [oxLo, oxHi) (every tap column
 * inside the input) IDW_PIXELS at a time. */
static inline __attribute__((always_inline)) void
idwVectorChannels(const struct IdwShape *s, int64_t vectorChannels,
                  int64_t oxLo, int64_t oxHi, const int64_t kernelH,
                  const int64_t kernelW) {
  for (int64_t oy = 0; oy < s->rows; ++oy) {
    int64_t kyLo, kyHi;
    strataTapRange(oy * s->strideH - s->padTop, kernelH, s->dilationH,
                   s->inRows, &kyLo, &kyHi);
    int inside = kyLo == 0 && kyHi == kernelH;
    for (int64_t ox = 0; ox < s->outWidth; ++ox) {
      if (ox == oxLo) {
        ox = oxHi;
        if (ox >= s->outWidth) {
          break;
        }
      }
      int64_t kxLo, kxHi;
      strataTapRange(ox * s->strideW - s->padLeft, kernelW, s->dilationW,
                     s->inCols, &kxLo, &kxHi);
      for (int64_t c = 0; c < vectorChannels; c += IDW_VL) {
        idwPixels(s, oy, ox, c, 1, kyLo, kyHi, kxLo, kxHi, kernelH, kernelW);
      }
    }
    for (int64_t ox = oxLo; ox < oxHi; ox += IDW_PIXELS) {
      int64_t count = oxHi - ox < IDW_PIXELS ? oxHi - ox : IDW_PIXELS;
      if (inside && count == IDW_PIXELS) {
        for (int64_t c = 0; c < vectorChannels; c += IDW_VL) {
          idwPixels(s, oy, ox, c, IDW_PIXELS, 0, kernelH, 0, kernelW, kernelH,
                    kernelW);
        }
      } else {
        for (int64_t c = 0; c < vectorChannels; c += IDW_VL) {
          IDW_SWITCH_COUNT(count, idwPixels(s, oy, ox, c, n, kyLo, kyHi, 0,
                                            kernelW, kernelH, kernelW));
        }
      }
    }
  }
}

/* One channel c of every output pixel, scalar: the channels past the last
 * whole vector. */
static void idwScalarChannel(const struct IdwShape *s, int64_t c) {
  for (int64_t oy = 0; oy < s->rows; ++oy) {
    int64_t y0 = oy * s->strideH - s->padTop;
    for (int64_t ox = 0; ox < s->outWidth; ++ox) {
      int64_t x0 = ox * s->strideW - s->padLeft;
      int32_t acc = 0;
      for (int64_t ky = 0; ky < s->kernelH; ++ky) {
        int64_t y = y0 + ky * s->dilationH;
        for (int64_t kx = 0; kx < s->kernelW; ++kx) {
          int64_t x = x0 + kx * s->dilationW;
          int32_t in = y < 0 || y >= s->inRows || x < 0 || x >= s->inCols
                           ? s->padValue
                           : s->in[y * s->inStrideH + x * s->inStrideW + c];
          acc += in * (int16_t)s->filter[(ky * s->kernelW + kx) * s->cp + c];
        }
      }
      int64_t at = oy * s->outStrideH + ox * s->outStrideW + c;
      if (s->requant) {
        ((int8_t *)s->out)[at] = (int8_t)igRequantScalar(
            acc, s->adjust[c], s->multiplier[c], s->zero, s->lo, s->hi);
      } else {
        int32_t *to = (int32_t *)s->out + at;
        *to = s->accumulate ? *to + acc : acc;
      }
    }
  }
}

static inline uintptr_t idwAlign64(uintptr_t p) {
  return (p + 63) & ~(uintptr_t)63;
}

/* The entry point: output rows [0, rows) of one image. The input (i8) is
 * given unpadded, like strata_ukernel_sdwconv_f32's (offsets and strides
 * in bytes), with the value a tap in the padding reads; the filter is i8
 * (KH x KW x C, strides in bytes, channels contiguous); the output i32
 * or, with STRATA_IGEMM_REQUANTIZE, i8 (offset and strides in elements).
 * The scratch holds STRATA_IDWCONV_SCRATCH_BYTES(kernelH * kernelW,
 * channels). The requantization's arguments are the int8 matmul's:
 * per-channel adjust (i32) and multiplier (f32) addresses, zero, lo and
 * hi (f32 bits). */
void strata_ukernel_idwconv_s8(
    int64_t inBase, int64_t inOffset, int64_t inStrideH, int64_t inStrideW,
    int64_t inRows, int64_t inCols, int64_t padTop, int64_t padLeft,
    int64_t padValue, int64_t filterBase, int64_t filterOffset,
    int64_t filterStrideH, int64_t filterStrideW, int64_t outBase,
    int64_t outOffset, int64_t outStrideH, int64_t outStrideW, int64_t rows,
    int64_t outWidth, int64_t channels, int64_t kernelH, int64_t kernelW,
    int64_t strideH, int64_t strideW, int64_t dilationH, int64_t dilationW,
    int64_t flags, int64_t scratch, int64_t adjust, int64_t multiplier,
    int64_t zeroBits, int64_t loBits, int64_t hiBits) {
  if (rows <= 0 || outWidth <= 0 || channels <= 0) {
    return;
  }
  struct IdwShape s;
  s.in = (const int8_t *)(intptr_t)inBase + inOffset;
  s.inStrideH = inStrideH;
  s.inStrideW = inStrideW;
  s.inRows = inRows;
  s.inCols = inCols;
  s.padTop = padTop;
  s.padLeft = padLeft;
  s.padValue = (int32_t)(int8_t)padValue;
  s.requant = (flags & STRATA_IGEMM_REQUANTIZE) != 0;
  s.accumulate = !s.requant && (flags & STRATA_IGEMM_ACCUMULATE) != 0;
  s.out = (char *)(intptr_t)outBase + outOffset * (s.requant ? 1 : 4);
  s.outStrideH = outStrideH;
  s.outStrideW = outStrideW;
  s.rows = rows;
  s.outWidth = outWidth;
  s.channels = channels;
  s.kernelH = kernelH;
  s.kernelW = kernelW;
  s.strideH = strideH;
  s.strideW = strideW;
  s.dilationH = dilationH;
  s.dilationW = dilationW;
  s.adjust = (const int32_t *)(intptr_t)adjust;
  s.multiplier = (const float *)(intptr_t)multiplier;
  union {
    uint32_t bits;
    float value;
  } zero = {(uint32_t)zeroBits}, lo = {(uint32_t)loBits},
    hi = {(uint32_t)hiBits};
  s.zero = zero.value;
  s.lo = lo.value;
  s.hi = hi.value;
  /* The filter widened: i16 in the low half of each i32 lane, zeros in
   * the high half; channels padded to whole vectors with zeros. */
  int64_t cp = STRATA_IGEMM_ROUND_UP(channels, IDW_VL);
  int32_t *wide = (int32_t *)idwAlign64((uintptr_t)scratch);
  const int8_t *filter = (const int8_t *)(intptr_t)filterBase + filterOffset;
  for (int64_t ky = 0; ky < kernelH; ++ky) {
    for (int64_t kx = 0; kx < kernelW; ++kx) {
      int32_t *tap = wide + (ky * kernelW + kx) * cp;
      const int8_t *from = filter + ky * filterStrideH + kx * filterStrideW;
      for (int64_t c = 0; c < cp; ++c) {
        tap[c] = c < channels ? (int32_t)(uint16_t)(int16_t)from[c] : 0;
      }
    }
  }
  s.filter = wide;
  s.cp = cp;
  /* Output columns whose every tap column is inside the input. */
  int64_t oxLo, oxHi;
  strataInteriorRange(padLeft, strideW, kernelW, dilationW, inCols, outWidth,
                      &oxLo, &oxHi);
  int64_t vectorChannels = channels / IDW_VL * IDW_VL;
  if (kernelH == 3 && kernelW == 3) {
    idwVectorChannels(&s, vectorChannels, oxLo, oxHi, 3, 3);
  } else {
    idwVectorChannels(&s, vectorChannels, oxLo, oxHi, kernelH, kernelW);
  }
  for (int64_t c = vectorChannels; c < channels; ++c) {
    idwScalarChannel(&s, c);
  }
}
