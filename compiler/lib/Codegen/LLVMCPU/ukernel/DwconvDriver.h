/*===- DwconvDriver.h - the f32 NHWC depthwise convolution microkernel --===//
 *
 * Included by each variant (SgemmAvx512.c, SgemmAvx2.c, SgemmSse.c,
 * SgemmNeon.c) after it defines DW_VL (floats per vector), the vector type
 * `dwvec` and dwLoad, dwStore, dwStream (a non-temporal store to an
 * aligned address), dwSplat, dwFma, dwMax (IEEE maximum: NaN propagates,
 * +0 > -0) and dwMaxFirst/dwMinFirst (the ISA's max and min) for it.
 * A variant whose IEEE maximum costs more than one instruction may also
 * define DW_MAX_SPLIT with dwMaxNoNan (the IEEE maximum of two numbers,
 * whatever it returns for a NaN) and dwAnyUnordered (nonzero if a lane of
 * either operand is a NaN): a max pool then runs on those (see
 * DW_OP_MAX_SPLIT).
 *
 * A depthwise convolution multiplies each channel by its own KH x KW
 * window: no reduction across channels, so no packing either. Vectors run
 * along channels (NHWC keeps them contiguous): DW_PIXELS output pixels of
 * a row accumulate together, each tap one filter vector load and one load
 * and one FMA per pixel, one channel block after the other, then the next
 * pixels. Channels past the last whole vector take a scalar loop.
 *
 * Zero padding is the kernel's: it reads the unpadded input in place and
 * skips the taps that fall outside it (the padded window would be a copy
 * of every input row per output row, which costs more than the
 * convolution). Pixels whose whole window is inside run with the window
 * unrolled (3x3 is specialized); the border's pixels take a path that
 * bounds each tap.
 *
 * Builds freestanding, like the matmul driver.
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "SgemmEpilogue.h"
#include "SgemmParams.h"
#include "WindowTaps.h"

/* Output pixels computed together: their accumulators stay in registers. */
#define DW_PIXELS 6

/* What a tap does (a constant in each unrolled body): a depthwise
 * convolution's multiply-add, or a pooling's maximum or sum (no filter). */
#define DW_OP_MAC 0
#define DW_OP_MAX 1
#define DW_OP_SUM 2
/* A max pool in two instructions a tap where the IEEE maximum takes more
 * (DW_MAX_SPLIT): the maximum that may drop a NaN, and a sum of the taps
 * beside it, which a NaN turns into a NaN (so can +inf and -inf in one
 * window). A group of pixels reports whether any sum is a NaN; when one
 * is, the call computes its whole output again with DW_OP_MAX (the
 * maximum is idempotent, and the split form only runs when the output
 * does not accumulate). */
#define DW_OP_MAX_SPLIT 3

/* acc with the tap's input `in` (and filter vector `wt` for DW_OP_MAC);
 * sum is DW_OP_MAX_SPLIT's sum of the taps. */
#define DW_TAP(op, acc, sum, in, wt)                                           \
  do {                                                                         \
    if ((op) == DW_OP_MAC) {                                                   \
      acc = dwFma(in, wt, acc);                                                \
    } else if ((op) == DW_OP_MAX) {                                            \
      acc = dwMax(acc, in);                                                    \
    } else if ((op) == DW_OP_MAX_SPLIT) {                                      \
      dwvec tapIn = (in);                                                      \
      acc = dwMaxNoNan(acc, tapIn);                                            \
      sum = sum + tapIn;                                                       \
    } else {                                                                   \
      acc = acc + (in);                                                        \
    }                                                                          \
  } while (0)

#ifndef DW_MAX_SPLIT
/* Never called: without DW_MAX_SPLIT no call runs DW_OP_MAX_SPLIT. */
static inline dwvec dwMaxNoNan(dwvec a, dwvec b) { return dwMax(a, b); }
static inline int dwAnyUnordered(dwvec a, dwvec b) {
  (void)a;
  (void)b;
  return 0;
}
#endif

/* Whether DW_OP_MAX_SPLIT's sums of `count` pixels hold a NaN. */
static inline __attribute__((always_inline)) int
dwSumsUnordered(const dwvec *sum, const int count) {
  int any = 0;
#pragma clang loop unroll(full)
  for (int p = 0; p < DW_PIXELS; p += 2) {
    if (p < count) {
      any |= dwAnyUnordered(sum[p], p + 1 < count ? sum[p + 1] : sum[p]);
    }
  }
  return any;
}

struct DwconvShape {
  /* The unpadded input's element (0, 0, channel 0); rows x cols of it
   * exist. Window positions are padded coordinates: padded (y, x) is
   * input (y - padTop, x - padLeft), zero outside the input. */
  const float *in;
  int64_t inStrideH, inStrideW; /* in floats; channels are contiguous */
  int64_t inRows, inCols, padTop, padLeft;
  const float *filter;
  int64_t filterStrideH, filterStrideW;
  float *out;
  int64_t outStrideH, outStrideW;
  int64_t rows, outWidth, channels, kernelH, kernelW;
  int64_t strideH, strideW, dilationH, dilationW;
  int accumulate;
  int stream; /* STRATA_SGEMM_STREAM */
};

static inline float dwLoadScalar(const float *p) { return *p; }
static inline float dwSplatScalar(float x) { return x; }

/* The value an output starts from when not accumulating: the identity of
 * the op (-inf for the maximum: every window has a tap). */
static inline float dwIdentity(const int op) {
  return op == DW_OP_MAX || op == DW_OP_MAX_SPLIT ? -__builtin_inff() : 0.0f;
}

/* Loads the accumulators of `count` pixels at out, or the op's identity
 * unless accumulating. */
#define DW_INIT_ACC(acc, sum, s, out, count, op)                               \
  _Pragma("clang loop unroll(full)") for (int p = 0; p < DW_PIXELS; ++p) {     \
    if (p < (count)) {                                                         \
      (acc)[p] = (s)->accumulate ? dwLoad((out) + p * (s)->outStrideW)         \
                                 : dwSplat(dwIdentity(op));                    \
      (sum)[p] = dwSplat(0.0f);                                                \
    }                                                                          \
  }

/* Applies the epilogue of channels [c, c + DW_VL) and stores. */
static inline __attribute__((always_inline)) void
dwStorePixels(const struct DwconvShape *s, const struct Epilogue *epilogue,
              dwvec *acc, float *out, int64_t c, const int count) {
  struct TileEpilogue tileEp;
  const struct TileEpilogue *ep = tileEpilogue(epilogue, 0, c, &tileEp);
#pragma clang loop unroll(full)
  for (int p = 0; p < DW_PIXELS; ++p) {
    if (p < count) {
      if (ep) {
        STRATA_SGEMM_APPLY_EPILOGUE(dwvec, acc[p], ep, 0, 0, dwLoad, dwSplat,
                                    dwMaxFirst, dwMinFirst);
      }
      float *to = out + p * s->outStrideW;
      if (s->stream && ((uintptr_t)to & (DW_VL * sizeof(float) - 1)) == 0) {
        dwStream(to, acc[p]);
      } else {
        dwStore(to, acc[p]);
      }
    }
  }
}

/* Pixels [ox, ox + count) of output row oy, channels [c, c + DW_VL), whose
 * every tap is inside the input. Callers pass constant kernelH/kernelW
 * where they can: the window unrolls. Returns whether DW_OP_MAX_SPLIT saw
 * a NaN (0 for the other ops). */
static inline __attribute__((always_inline)) int
dwPixelsInside(const struct DwconvShape *s, const struct Epilogue *epilogue,
               int64_t oy, int64_t ox, int64_t c, const int count,
               const int64_t kernelH, const int64_t kernelW, const int op) {
  dwvec acc[DW_PIXELS], sum[DW_PIXELS];
  float *out = s->out + oy * s->outStrideH + ox * s->outStrideW + c;
  DW_INIT_ACC(acc, sum, s, out, count, op);
  const float *in = s->in + (oy * s->strideH - s->padTop) * s->inStrideH +
                    (ox * s->strideW - s->padLeft) * s->inStrideW + c;
  int64_t pixelStep = s->strideW * s->inStrideW;
  for (int64_t ky = 0; ky < kernelH; ++ky) {
    const float *inRow = in + ky * s->dilationH * s->inStrideH;
    for (int64_t kx = 0; kx < kernelW; ++kx) {
      dwvec wt = op == DW_OP_MAC ? dwLoad(s->filter + ky * s->filterStrideH +
                                          kx * s->filterStrideW + c)
                                 : dwSplat(0.0f);
      const float *tap = inRow + kx * s->dilationW * s->inStrideW;
#pragma clang loop unroll(full)
      for (int p = 0; p < DW_PIXELS; ++p) {
        if (p < count) {
          DW_TAP(op, acc[p], sum[p], dwLoad(tap + p * pixelStep), wt);
        }
      }
    }
  }
  dwStorePixels(s, epilogue, acc, out, c, count);
  return op == DW_OP_MAX_SPLIT ? dwSumsUnordered(sum, count) : 0;
}

/* Pixels [ox, ox + count) of output row oy, channels [c, c + DW_VL), with
 * only the taps [kyLo, kyHi) x [kxLo, kxHi) inside the input (the same for
 * every pixel of the group); filter vectors come from memory. Returns as
 * dwPixelsInside. */
static inline __attribute__((always_inline)) int
dwPixelsBorder(const struct DwconvShape *s, const struct Epilogue *epilogue,
               int64_t oy, int64_t ox, int64_t c, const int count, int64_t kyLo,
               int64_t kyHi, int64_t kxLo, int64_t kxHi, const int op) {
  dwvec acc[DW_PIXELS], sum[DW_PIXELS];
  float *out = s->out + oy * s->outStrideH + ox * s->outStrideW + c;
  DW_INIT_ACC(acc, sum, s, out, count, op);
  int64_t y0 = oy * s->strideH - s->padTop;
  int64_t x0 = ox * s->strideW - s->padLeft;
  int64_t pixelStep = s->strideW * s->inStrideW;
  for (int64_t ky = kyLo; ky < kyHi; ++ky) {
    int64_t y = y0 + ky * s->dilationH;
    for (int64_t kx = kxLo; kx < kxHi; ++kx) {
      int64_t x = x0 + kx * s->dilationW;
      dwvec wt = op == DW_OP_MAC ? dwLoad(s->filter + ky * s->filterStrideH +
                                          kx * s->filterStrideW + c)
                                 : dwSplat(0.0f);
      const float *tap = s->in + y * s->inStrideH + x * s->inStrideW + c;
#pragma clang loop unroll(full)
      for (int p = 0; p < DW_PIXELS; ++p) {
        if (p < count) {
          DW_TAP(op, acc[p], sum[p], dwLoad(tap + p * pixelStep), wt);
        }
      }
    }
  }
  dwStorePixels(s, epilogue, acc, out, c, count);
  return op == DW_OP_MAX_SPLIT ? dwSumsUnordered(sum, count) : 0;
}

/* The calls above with a constant pixel count, one body per count. */
#define DW_SWITCH_COUNT(count, call)                                           \
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
  default: {                                                                   \
    const int n = 6;                                                           \
    call;                                                                      \
  } break;                                                                     \
  }

/* Every output pixel of the vector channels: row by row, a group of
 * pixels at a time, every channel block of the group before the next
 * group (the group's input stays in L1; the filter is small enough to stay
 * there too). Output columns [oxLo, oxHi) have every tap column inside the
 * input. Returns whether DW_OP_MAX_SPLIT saw a NaN. */
static inline __attribute__((always_inline)) int
dwVectorChannels(const struct DwconvShape *s, const struct Epilogue *epilogue,
                 int64_t vectorChannels, int64_t oxLo, int64_t oxHi,
                 const int64_t kernelH, const int64_t kernelW, const int op) {
  int sawNan = 0;
  for (int64_t oy = 0; oy < s->rows; ++oy) {
    int64_t kyLo, kyHi;
    strataTapRange(oy * s->strideH - s->padTop, kernelH, s->dilationH,
                   s->inRows, &kyLo, &kyHi);
    int inside = kyLo == 0 && kyHi == kernelH;
    /* The left and right border: a pixel at a time, taps bounded. */
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
      for (int64_t c = 0; c < vectorChannels; c += DW_VL) {
        sawNan |= dwPixelsBorder(s, epilogue, oy, ox, c, 1, kyLo, kyHi, kxLo,
                                 kxHi, op);
      }
    }
    for (int64_t ox = oxLo; ox < oxHi; ox += DW_PIXELS) {
      int64_t count = oxHi - ox < DW_PIXELS ? oxHi - ox : DW_PIXELS;
      if (inside && count == DW_PIXELS) {
        for (int64_t c = 0; c < vectorChannels; c += DW_VL) {
          sawNan |= dwPixelsInside(s, epilogue, oy, ox, c, DW_PIXELS, kernelH,
                                   kernelW, op);
        }
      } else if (inside) {
        for (int64_t c = 0; c < vectorChannels; c += DW_VL) {
          DW_SWITCH_COUNT(count,
                          sawNan |= dwPixelsInside(s, epilogue, oy, ox, c, n,
                                                   kernelH, kernelW, op));
        }
      } else {
        for (int64_t c = 0; c < vectorChannels; c += DW_VL) {
          DW_SWITCH_COUNT(count,
                          sawNan |= dwPixelsBorder(s, epilogue, oy, ox, c, n,
                                                   kyLo, kyHi, 0, kernelW, op));
        }
      }
    }
  }
  return sawNan;
}

/* One channel c of every output pixel, scalar: the channels past the last
 * whole vector. */
static void dwScalarChannel(const struct DwconvShape *s,
                            const struct Epilogue *epilogue, int64_t c,
                            const int op) {
  struct TileEpilogue tileEp;
  const struct TileEpilogue *ep = tileEpilogue(epilogue, 0, c, &tileEp);
  for (int64_t oy = 0; oy < s->rows; ++oy) {
    int64_t y0 = oy * s->strideH - s->padTop;
    for (int64_t ox = 0; ox < s->outWidth; ++ox) {
      int64_t x0 = ox * s->strideW - s->padLeft;
      float *out = s->out + oy * s->outStrideH + ox * s->outStrideW + c;
      float acc = s->accumulate ? *out : dwIdentity(op);
      for (int64_t ky = 0; ky < s->kernelH; ++ky) {
        int64_t y = y0 + ky * s->dilationH;
        if (y < 0 || y >= s->inRows) {
          continue;
        }
        for (int64_t kx = 0; kx < s->kernelW; ++kx) {
          int64_t x = x0 + kx * s->dilationW;
          if (x < 0 || x >= s->inCols) {
            continue;
          }
          float in = s->in[y * s->inStrideH + x * s->inStrideW + c];
          if (op == DW_OP_MAC) {
            acc += in *
                   s->filter[ky * s->filterStrideH + kx * s->filterStrideW + c];
          } else if (op == DW_OP_MAX || op == DW_OP_MAX_SPLIT) {
            acc = __builtin_elementwise_maximum(acc, in);
          } else {
            acc += in;
          }
        }
      }
      if (ep) {
        STRATA_SGEMM_APPLY_EPILOGUE(float, acc, ep, 0, 0, dwLoadScalar,
                                    dwSplatScalar, strataMaxFirst,
                                    strataMinFirst);
      }
      *out = acc;
    }
  }
}

/* The entry point: output rows [0, rows) of one image. The input is given
 * unpadded: its element (0, 0) (pointer + offset), strides, extent
 * (inRows x inCols, possibly empty) and the zero padding before it
 * (padTop, padLeft; what lies past its end is padding too), so that output
 * row 0's window starts at padded row 0. Pointers come as integers (memref
 * base addresses), offsets and strides in floats. flags:
 * STRATA_SGEMM_ACCUMULATE, the bias/clamp epilogue bits, and
 * STRATA_DW_POOL_MAX or STRATA_DW_POOL_SUM for a pooling (the filter
 * arguments are then unused; padding never wins a maximum and adds nothing
 * to a sum); the epilogue arguments are the matmul's (the residual ones
 * unused: no residual). */
void strata_ukernel_sdwconv_f32(
    int64_t inBase, int64_t inOffset, int64_t inStrideH, int64_t inStrideW,
    int64_t inRows, int64_t inCols, int64_t padTop, int64_t padLeft,
    int64_t filterBase, int64_t filterOffset, int64_t filterStrideH,
    int64_t filterStrideW, int64_t outBase, int64_t outOffset,
    int64_t outStrideH, int64_t outStrideW, int64_t rows, int64_t outWidth,
    int64_t channels, int64_t kernelH, int64_t kernelW, int64_t strideH,
    int64_t strideW, int64_t dilationH, int64_t dilationW, int64_t flags,
    int64_t bias, int64_t residual, int64_t ldr, int64_t loBits,
    int64_t hiBits) {
  (void)residual;
  (void)ldr;
  struct DwconvShape s;
  s.in = (const float *)(intptr_t)inBase + inOffset;
  s.inStrideH = inStrideH;
  s.inStrideW = inStrideW;
  s.inRows = inRows;
  s.inCols = inCols;
  s.padTop = padTop;
  s.padLeft = padLeft;
  s.filter = (const float *)(intptr_t)filterBase + filterOffset;
  s.filterStrideH = filterStrideH;
  s.filterStrideW = filterStrideW;
  s.out = (float *)(intptr_t)outBase + outOffset;
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
  s.accumulate = (flags & STRATA_SGEMM_ACCUMULATE) != 0;
  s.stream = (flags & STRATA_SGEMM_STREAM) != 0;
  struct Epilogue epilogueStorage;
  const struct Epilogue *epilogue =
      decodeEpilogue(flags & ~(int64_t)STRATA_SGEMM_RESIDUAL, bias, 0, 0,
                     loBits, hiBits, &epilogueStorage);
  /* Output columns whose every tap column is inside the input: from the
   * first whose window starts at or after column 0 to the last whose
   * window ends before inCols. */
  int64_t oxLo, oxHi;
  strataInteriorRange(padLeft, strideW, kernelW, dilationW, inCols, outWidth,
                      &oxLo, &oxHi);
  int64_t vectorChannels = channels / DW_VL * DW_VL;
  /* One body per op, with the 3x3 window unrolled; sawNan is whether
   * DW_OP_MAX_SPLIT met a NaN. */
  int sawNan = 0;
#define DW_BODY(op)                                                            \
  do {                                                                         \
    if (kernelH == 3 && kernelW == 3) {                                        \
      sawNan = dwVectorChannels(&s, epilogue, vectorChannels, oxLo, oxHi, 3,   \
                                3, op);                                        \
    } else {                                                                   \
      sawNan = dwVectorChannels(&s, epilogue, vectorChannels, oxLo, oxHi,      \
                                kernelH, kernelW, op);                         \
    }                                                                          \
    for (int64_t c = vectorChannels; c < channels; ++c) {                      \
      dwScalarChannel(&s, epilogue, c, op);                                    \
    }                                                                          \
  } while (0)
  if (flags & STRATA_DW_POOL_MAX) {
#ifdef DW_MAX_SPLIT
    if (!s.accumulate) {
      DW_BODY(DW_OP_MAX_SPLIT);
    }
    if (s.accumulate || sawNan) {
      DW_BODY(DW_OP_MAX);
    }
#else
    DW_BODY(DW_OP_MAX);
#endif
  } else if (flags & STRATA_DW_POOL_SUM) {
    DW_BODY(DW_OP_SUM);
  } else {
    DW_BODY(DW_OP_MAC);
  }
#undef DW_BODY
  (void)sawNan; /* read only under DW_MAX_SPLIT */
#if defined(__x86_64__)
  if (s.stream) {
    __builtin_ia32_sfence(); /* as in sgemm */
  }
#endif
}
