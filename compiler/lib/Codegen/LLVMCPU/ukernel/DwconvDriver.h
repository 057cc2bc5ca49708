/*===- DwconvDriver.h - the f32 NHWC depthwise convolution microkernel
 * ---===//
 *
 * Included by each variant (SgemmAvx512.c, SgemmAvx2.c) after it defines
 * DW_VL (floats per vector), the vector type `dwvec` and dwLoad, dwStore,
 * dwSplat and dwFma for it.
 *
 * A depthwise convolution multiplies each channel by its own KH x KW
 * window: no reduction across channels, so no packing either. Vectors run
 * along channels (NHWC keeps them contiguous); for each block of DW_VL
 * channels the KH * KW filter vectors stay in registers while DW_PIXELS
 * output pixels of a row accumulate together, each tap one load and one
 * FMA per pixel. Channels past the last whole vector take a scalar loop.
 *
 * Builds freestanding, like the matmul driver.
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "SgemmEpilogue.h"
#include "SgemmParams.h"

/* Output pixels computed together: their accumulators stay in registers. */
#define DW_PIXELS 6
/* Most filter taps kept in registers (a 5x5 window; larger ones reload). */
#define DW_MAX_TAPS 25

struct DwconvShape {
  const float *in;
  int64_t inStrideH, inStrideW; /* in floats; channels are contiguous */
  const float *filter;
  int64_t filterStrideH, filterStrideW;
  float *out;
  int64_t outStrideH, outStrideW;
  int64_t rows, outWidth, channels, kernelH, kernelW;
  int64_t strideH, strideW, dilationH, dilationW;
  int accumulate;
};

static inline float dwLoadScalar(const float *p) { return *p; }
static inline float dwSplatScalar(float x) { return x; }

/* Pixels [ox, ox + count) of output row oy, channels [c, c + DW_VL), with
 * the taps' filter vectors in w. */
static inline __attribute__((always_inline)) void
dwPixels(const struct DwconvShape *s, const struct Epilogue *epilogue,
         const dwvec *w, int64_t oy, int64_t ox, int64_t c, const int count) {
  dwvec acc[DW_PIXELS];
  float *out = s->out + oy * s->outStrideH + ox * s->outStrideW + c;
#pragma clang loop unroll(full)
  for (int p = 0; p < DW_PIXELS; ++p) {
    if (p < count) {
      acc[p] = s->accumulate ? dwLoad(out + p * s->outStrideW) : dwSplat(0.0f);
    }
  }
  const float *in = s->in + oy * s->strideH * s->inStrideH +
                    ox * s->strideW * s->inStrideW + c;
  int64_t pixelStep = s->strideW * s->inStrideW;
  for (int64_t ky = 0; ky < s->kernelH; ++ky) {
    const float *inRow = in + ky * s->dilationH * s->inStrideH;
    for (int64_t kx = 0; kx < s->kernelW; ++kx) {
      int64_t t = ky * s->kernelW + kx;
      dwvec wt = t < DW_MAX_TAPS ? w[t]
                                 : dwLoad(s->filter + ky * s->filterStrideH +
                                          kx * s->filterStrideW + c);
      const float *tap = inRow + kx * s->dilationW * s->inStrideW;
#pragma clang loop unroll(full)
      for (int p = 0; p < DW_PIXELS; ++p) {
        if (p < count) {
          acc[p] = dwFma(dwLoad(tap + p * pixelStep), wt, acc[p]);
        }
      }
    }
  }
  struct TileEpilogue tileEp;
  const struct TileEpilogue *ep = tileEpilogue(epilogue, 0, c, &tileEp);
#pragma clang loop unroll(full)
  for (int p = 0; p < DW_PIXELS; ++p) {
    if (p < count) {
      if (ep) {
        STRATA_SGEMM_APPLY_EPILOGUE(dwvec, acc[p], ep, 0, 0, dwLoad, dwSplat);
      }
      dwStore(out + p * s->outStrideW, acc[p]);
    }
  }
}

/* dwPixels with a constant pixel count, one unrolled body per count. */
static void dwPixelsN(const struct DwconvShape *s,
                      const struct Epilogue *epilogue, const dwvec *w,
                      int64_t oy, int64_t ox, int64_t c, int64_t count) {
  switch (count) {
#define STRATA_DW_CASE(n)                                                      \
  case n:                                                                      \
    if (n <= DW_PIXELS) {                                                      \
      dwPixels(s, epilogue, w, oy, ox, c, n);                                  \
    }                                                                          \
    return;
    STRATA_DW_CASE(1)
    STRATA_DW_CASE(2)
    STRATA_DW_CASE(3)
    STRATA_DW_CASE(4)
    STRATA_DW_CASE(5)
    STRATA_DW_CASE(6)
#undef STRATA_DW_CASE
  default:
    return;
  }
}

/* One channel c of every output pixel, scalar: the channels past the last
 * whole vector. */
static void dwScalarChannel(const struct DwconvShape *s,
                            const struct Epilogue *epilogue, int64_t c) {
  struct TileEpilogue tileEp;
  const struct TileEpilogue *ep = tileEpilogue(epilogue, 0, c, &tileEp);
  for (int64_t oy = 0; oy < s->rows; ++oy) {
    for (int64_t ox = 0; ox < s->outWidth; ++ox) {
      float *out = s->out + oy * s->outStrideH + ox * s->outStrideW + c;
      float acc = s->accumulate ? *out : 0.0f;
      for (int64_t ky = 0; ky < s->kernelH; ++ky) {
        for (int64_t kx = 0; kx < s->kernelW; ++kx) {
          const float *in =
              s->in + (oy * s->strideH + ky * s->dilationH) * s->inStrideH +
              (ox * s->strideW + kx * s->dilationW) * s->inStrideW + c;
          acc += *in *
                 s->filter[ky * s->filterStrideH + kx * s->filterStrideW + c];
        }
      }
      if (ep) {
        STRATA_SGEMM_APPLY_EPILOGUE(float, acc, ep, 0, 0, dwLoadScalar,
                                    dwSplatScalar);
      }
      *out = acc;
    }
  }
}

/* The entry point: output rows [0, rows) of one image, the input already
 * padded and starting at the first row's window. Pointers come as integers
 * (memref base addresses), offsets and strides in floats. flags:
 * STRATA_SGEMM_ACCUMULATE and the bias/clamp epilogue bits; the epilogue
 * arguments are the matmul's (the residual ones unused: no residual). */
void strata_ukernel_sdwconv_f32(
    int64_t inBase, int64_t inOffset, int64_t inStrideH, int64_t inStrideW,
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
  struct Epilogue epilogueStorage;
  const struct Epilogue *epilogue =
      decodeEpilogue(flags & ~(int64_t)STRATA_SGEMM_RESIDUAL, bias, 0, 0,
                     loBits, hiBits, &epilogueStorage);
  int64_t taps = kernelH * kernelW;
  int64_t vectorChannels = channels / DW_VL * DW_VL;
  for (int64_t c = 0; c < vectorChannels; c += DW_VL) {
    dwvec w[DW_MAX_TAPS];
    for (int64_t t = 0; t < taps && t < DW_MAX_TAPS; ++t) {
      w[t] = dwLoad(s.filter + (t / kernelW) * filterStrideH +
                    (t % kernelW) * filterStrideW + c);
    }
    for (int64_t oy = 0; oy < rows; ++oy) {
      int64_t ox = 0;
      for (; ox + DW_PIXELS <= outWidth; ox += DW_PIXELS) {
        dwPixels(&s, epilogue, w, oy, ox, c, DW_PIXELS);
      }
      if (ox < outWidth) {
        dwPixelsN(&s, epilogue, w, oy, ox, c, outWidth - ox);
      }
    }
  }
  for (int64_t c = vectorChannels; c < channels; ++c) {
    dwScalarChannel(&s, epilogue, c);
  }
}
