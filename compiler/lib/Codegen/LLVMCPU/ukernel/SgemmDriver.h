/*===- SgemmDriver.h - the cache-blocked f32 matmul around a microkernel
 * ---===//
 *
 * Included by each variant (SgemmAvx512.c, SgemmAvx2.c, SgemmNeon.c) after
 * it defines MR, NR and `microRows(const struct ARuns *runs, const float *pa,
 * int64_t lda, const float *pb, int64_t ldb, float *c, int64_t ldc, int add,
 * const struct TileEpilogue *ep, int stream, const int rows, int64_t cols,
 * const int vecs, const int masked, const int split)`, which computes
 * rows [0, rows) and columns [0, cols) of one MR x NR tile of C from an A
 * panel (rows lda floats apart from pa, the depth in `runs` along each:
 * SgemmRuns.h; packed rows are STRATA_SGEMM_A_ROW_STRIDE apart, one run)
 * and a B panel of as many rows of NR floats as the runs cover, ldb apart
 * (NR when packed; B's own row stride when read in place; columns past
 * cols are zeros), adding to C when `add` is set and overwriting it
 * otherwise, then applying `ep` (SgemmEpilogue.h) when it is not null, and
 * storing the rows that are vector-aligned with non-temporal stores when
 * `stream` is set (no fence: the driver's). Only the first `vecs` vectors
 * of columns are computed; `masked` tiles touch C only in columns
 * [0, cols). A `split` other than 0 (MR / 2) reads the rows from it on
 * from their own address (runs->pairOffset: two output rows of a
 * convolution in one tile, STRATA_SGEMM_A_ROW in SgemmRuns.h).
 *
 * Builds freestanding: no C library, no calls LLVM would turn into one
 * except memcpy/memset, which the kernel library defines.
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "SgemmEpilogue.h"
#include "SgemmParams.h"
#include "WindowTaps.h"

#define MC (MR * STRATA_SGEMM_MC_PANELS(MR, STRATA_SGEMM_MC_ROWS))
#define KC STRATA_SGEMM_KC
#define NC STRATA_SGEMM_NC

static inline int64_t minI64(int64_t a, int64_t b) { return a < b ? a : b; }

/* microRows with constant rows, vector count and masking, one unrolled
 * kernel per combination: whole tiles, tiles of at most NR / 2 columns
 * (one vector), and other partial tiles; a tile of two output rows
 * (runs->pairOffset) is MR rows split at MR / 2. */
static void micro(const struct ARuns *runs, const float *restrict pa,
                  int64_t lda, const float *restrict pb, int64_t ldb,
                  float *restrict c, int64_t ldc, int add,
                  const struct TileEpilogue *ep, int stream, int64_t rows,
                  int64_t cols) {
#define STRATA_SGEMM_ROWS_SWITCH(vecs, masked)                                 \
  switch (rows) {                                                              \
    STRATA_SGEMM_ROWS_CASE(1, vecs, masked)                                    \
    STRATA_SGEMM_ROWS_CASE(2, vecs, masked)                                    \
    STRATA_SGEMM_ROWS_CASE(3, vecs, masked)                                    \
    STRATA_SGEMM_ROWS_CASE(4, vecs, masked)                                    \
    STRATA_SGEMM_ROWS_CASE(5, vecs, masked)                                    \
    STRATA_SGEMM_ROWS_CASE(6, vecs, masked)                                    \
    STRATA_SGEMM_ROWS_CASE(7, vecs, masked)                                    \
    STRATA_SGEMM_ROWS_CASE(8, vecs, masked)                                    \
    STRATA_SGEMM_ROWS_CASE(9, vecs, masked)                                    \
    STRATA_SGEMM_ROWS_CASE(10, vecs, masked)                                   \
    STRATA_SGEMM_ROWS_CASE(11, vecs, masked)                                   \
    STRATA_SGEMM_ROWS_CASE(12, vecs, masked)                                   \
    STRATA_SGEMM_ROWS_CASE(13, vecs, masked)                                   \
    STRATA_SGEMM_ROWS_CASE(14, vecs, masked)                                   \
    STRATA_SGEMM_ROWS_CASE(15, vecs, masked)                                   \
    STRATA_SGEMM_ROWS_CASE(16, vecs, masked)                                   \
  default:                                                                     \
    return;                                                                    \
  }
#define STRATA_SGEMM_ROWS_CASE(r, vecs, masked)                                \
  case r:                                                                      \
    if (r <= MR) {                                                             \
      microRows(runs, pa, rowStride, pb, ldb, c, ldc, add, ep, stream, r,      \
                cols, vecs, masked, 0);                                        \
    }                                                                          \
    return;
/* The column case of a tile, one kernel each: kernel(vecs, masked). */
#define STRATA_SGEMM_BY_COLS(kernel)                                           \
  if (cols == NR) {                                                            \
    kernel(2, 0)                                                               \
  } else if (cols <= NR / 2) {                                                 \
    kernel(1, 1)                                                               \
  } else {                                                                     \
    kernel(2, 1)                                                               \
  }
#define STRATA_SGEMM_WHOLE_PANEL(vecs, masked)                                 \
  microRows(runs, pa, rowStride, pb, ldb, c, ldc, add, ep, stream, MR, cols,   \
            vecs, masked, split);
#if MR % 2 == 0
  if (runs->pairOffset && rows == MR) {
    const int64_t rowStride = lda;
    const int split = MR / 2;
    STRATA_SGEMM_BY_COLS(STRATA_SGEMM_WHOLE_PANEL)
    return;
  }
#endif
  /* Packed A (one run, rows the compile-time STRATA_SGEMM_A_ROW_STRIDE
   * apart) gets kernels of its own for whole row panels: each row's
   * element is then a constant displacement from one register, folded
   * into its multiply-add, where a run-time stride costs address
   * arithmetic on every depth step. A partial panel (the last of a block)
   * takes the run-time-stride kernels: constant-stride kernels for every
   * row count doubled this function's machine code (87 kernels, 198 KB on
   * AVX-512, most of each module's compile time) for no measured gain
   * (a 13 x 1024 x 128 matmul, every tile partial: 0.0248 against 0.0249
   * ms; docs/performance.md). */
  if (lda == STRATA_SGEMM_A_ROW_STRIDE(KC) && runs->count == 1 && !runs->next &&
      rows == MR) {
    const int64_t rowStride = STRATA_SGEMM_A_ROW_STRIDE(KC);
    const int split = 0;
    STRATA_SGEMM_BY_COLS(STRATA_SGEMM_WHOLE_PANEL)
    return;
  }
  const int64_t rowStride = lda;
  STRATA_SGEMM_BY_COLS(STRATA_SGEMM_ROWS_SWITCH)
#undef STRATA_SGEMM_WHOLE_PANEL
#undef STRATA_SGEMM_BY_COLS
#undef STRATA_SGEMM_ROWS_CASE
#undef STRATA_SGEMM_ROWS_SWITCH
}

/* Points the depth steps' prefetch (SgemmRuns.h) at share `part` of
 * `parts` of the `bytes` bytes at `p` (whole cache lines), spread evenly
 * over the `steps` depth steps of the tile: a line every few steps, not a
 * burst of them before the tile (which stalled the tile on the memory
 * system: 9% of a 14x14x256 convolution's time, Intel Xeon). */
static inline void prefetchShare(struct ARuns *runs, const float *p,
                                 int64_t bytes, int64_t part, int64_t parts,
                                 int64_t steps) {
  int64_t lines = (bytes + 63) / 64;
  int64_t per = (lines + parts - 1) / parts;
  int64_t first = minI64(part * per, lines);
  int64_t count = minI64(per, lines - first);
  runs->bPrefetch = (const char *)p + first * 64;
  /* count lines over `steps` steps: the last step reaches the last line. */
  runs->bPrefetchStep =
      steps > 1 && count > 1 ? (count - 1) * 64 / (steps - 1) : 0;
}

/* The epilogue of a whole call (STRATA_SGEMM_BIAS...): bias[j] for column
 * j, residual[i * ldr + j] for element (i, j), then the clamp, whose
 * bounds are -inf and +inf without STRATA_SGEMM_CLAMP (as in struct
 * TileEpilogue: every tile of the call shares them). */
struct Epilogue {
  const float *bias;
  const float *residual;
  int64_t ldr;
  int residualFirst; /* a residual, added before the bias */
  float lo, hi;
  float loZeroFix; /* as in struct TileEpilogue */
  int hiNegativeZero;
};

/* The part of `epilogue` for the tile at row i, column j (0: none). */
static const struct TileEpilogue *tileEpilogue(const struct Epilogue *epilogue,
                                               int64_t i, int64_t j,
                                               struct TileEpilogue *tile) {
  if (!epilogue) {
    return 0;
  }
  const float *bias = epilogue->bias ? epilogue->bias + j : strataNegativeZeros;
  tile->residual =
      epilogue->residual ? epilogue->residual + i * epilogue->ldr + j : 0;
  tile->ldr = epilogue->residual ? epilogue->ldr : 0;
  const float *residual = tile->residual ? tile->residual : strataNegativeZeros;
  int residualFirst = epilogue->residualFirst;
  tile->first = residualFirst ? residual : bias;
  tile->firstLd = residualFirst ? tile->ldr : 0;
  tile->second = residualFirst ? bias : residual;
  tile->secondLd = residualFirst ? 0 : tile->ldr;
  tile->lo = epilogue->lo;
  tile->hi = epilogue->hi;
  tile->loZeroFix = epilogue->loZeroFix;
  tile->hiNegativeZero = epilogue->hiNegativeZero;
  return tile;
}

/* Asks for the lines of the residual a tile's epilogue adds (rows x cols
 * from ep->residual) before its depth steps, which then hide their
 * latency: read only after the last step, a residual that had left the
 * cache (a residual block's input, batch 8: 6.4 MB at 56x56x64) stalled
 * every tile on each of its rows, 6-8% of the convolution (resnet18 batch
 * 8, AMD Zen 5; 0.2-2% with this in two of three alternating traces, 6%
 * in the third). Prefetching C the same way when a depth block adds to it
 * (from L2) was 3% slower on the whole model. */
static inline void prefetchResidual(const struct TileEpilogue *ep, int64_t rows,
                                    int64_t cols) {
  for (int64_t i = 0; i < rows; ++i) {
    uintptr_t row = (uintptr_t)(ep->residual + i * ep->ldr);
    uintptr_t last = row + (uintptr_t)cols * sizeof(float) - 1;
    for (uintptr_t line = row & ~(uintptr_t)63; line <= last; line += 64) {
      __builtin_prefetch((const void *)line, 0, 3);
    }
  }
}

static inline float loadScalar(const float *p) { return *p; }
static inline float splatScalar(float x) { return x; }

/* Where the rows of A come from: a row-major matrix, or (implicit im2col)
 * the windows of an NHWC convolution's input, one output pixel per row. */
struct ASource {
  const float *base;
  int64_t lda; /* matrix: row stride */
  /* Convolution: row r is output pixel (r / outWidth, r % outWidth) of a
   * tile whose input starts at base; depth index k is (ky, kx, c) of a
   * KH x KW x C window, c fastest (the HWCF filter's row order). */
  int conv;
  int64_t strideH, strideW; /* input strides of H and W, in floats */
  int64_t outWidth, channels, kernelH, kernelW;
  int64_t convStrideH, convStrideW, dilationH, dilationW;
  /* The input is given unpadded: base is its element (0, 0), inRows x
   * inCols of it exist, and output pixel (oy, ox)'s window starts at input
   * (oy * convStrideH - padTop, ox * convStrideW - padLeft) (windowOrigin);
   * its taps outside the input are zeros, which no one stores: packing
   * writes zeros for them, and in place they are skipped (their rows of B
   * passed over). `padded` says whether any window has such a tap. */
  int64_t inRows, inCols, padTop, padLeft;
  int padded;
  /* The depth of each panel of a B packed at compile time when it is more
   * than the call's k, 0 otherwise: one Winograd position's products read
   * their C x NR slice of panels that hold all 36 (WinogradDriver.h). */
  int64_t bPanelDepth;
};

/* The taps of a window inside the input: window rows [yLo, yHi) x
 * columns [xLo, xHi). */
struct Taps {
  int64_t yLo, yHi, xLo, xHi;
};

static inline struct Taps wholeWindow(const struct ASource *src) {
  struct Taps taps = {0, src->kernelH, 0, src->kernelW};
  return taps;
}

static inline struct Taps pixelTaps(const struct ASource *src, int64_t oy,
                                    int64_t ox) {
  struct Taps taps;
  strataTapRange(oy * src->convStrideH - src->padTop, src->kernelH,
                 src->dilationH, src->inRows, &taps.yLo, &taps.yHi);
  strataTapRange(ox * src->convStrideW - src->padLeft, src->kernelW,
                 src->dilationW, src->inCols, &taps.xLo, &taps.xHi);
  return taps;
}

static inline int isWholeWindow(const struct ASource *src, struct Taps taps) {
  return taps.yLo == 0 && taps.yHi == src->kernelH && taps.xLo == 0 &&
         taps.xHi == src->kernelW;
}

/* Floats from base to the input element where output pixel (oy, ox)'s
 * window starts (outside the input when the window starts in padding:
 * an offset, never made a pointer). */
static inline int64_t windowOrigin(const struct ASource *src, int64_t oy,
                                   int64_t ox) {
  return (oy * src->convStrideH - src->padTop) * src->strideH +
         (ox * src->convStrideW - src->padLeft) * src->strideW;
}

/* Points a tile's prefetch of the next row panel (sgemmPrefetchNext) at
 * the window rows that depth [k0, k0 + kc) reads of `rows` output pixels
 * from `pixel` on, pixelStep floats apart: input rows from the first
 * pixel's window to the last one's end. A window starting in the top
 * padding starts at the input's first element instead (prefetches never
 * fault; rows past the input's end they may name are never read). */
static inline void convPrefetchNext(const struct ASource *src,
                                    int64_t pixelStep, int64_t k0, int64_t kc,
                                    int64_t pixel, int64_t rows,
                                    struct ARuns *runs) {
  int64_t windowRow = src->kernelW * src->channels;
  int64_t firstRow = k0 / windowRow;
  int64_t oy = pixel / src->outWidth;
  int64_t origin = windowOrigin(src, oy, pixel - oy * src->outWidth) +
                   firstRow * src->dilationH * src->strideH;
  runs->next = src->base + (origin > 0 ? origin : 0);
  runs->nextStride = src->dilationH * src->strideH;
  runs->nextRows = (k0 + kc + windowRow - 1) / windowRow - firstRow;
  runs->nextSpan = (rows - 1) * pixelStep +
                   (src->kernelW - 1) * src->dilationW * src->strideW +
                   src->channels;
}

/* Rows [row0, row0 + mc) x depth [k0, k0 + kc) of a matrix A into packed
 * rows STRATA_SGEMM_A_ROW_STRIDE floats apart (MR-row panels back to
 * back). Rows past mc in the last panel are left alone: the microkernel for
 * a partial panel reads only its rows. No transposition, so plain vector
 * copies. */
static void packAMatrix(const struct ASource *src, int64_t row0, int64_t k0,
                        int64_t mc, int64_t kc, float *restrict pa) {
  for (int64_t i = 0; i < mc; ++i) {
    const float *row = src->base + (row0 + i) * src->lda + k0;
    float *out = pa + i * STRATA_SGEMM_A_ROW_STRIDE(KC);
    for (int64_t p = 0; p < kc; ++p) {
      out[p] = row[p];
    }
  }
}

/* The runs of a convolution's depth block [k0, k0 + kc) over the taps
 * `taps` of a window: the parts of it that are contiguous in the input (a
 * window row's taps when dilationW is 1 and pixels are dense, else each
 * tap's C channels), as offsets from the window's start (windowOrigin),
 * lengths, and depths from k0 (where each starts in B); returns how many.
 * Taps outside `taps` are left out: their depth is passed over. */
static int64_t convRuns(const struct ASource *src, int64_t k0, int64_t kc,
                        struct Taps taps, int64_t *runOffset,
                        int64_t *runLength, int64_t *runDepth) {
  int64_t runs = 0;
  int64_t c = src->channels;
  int dense = src->dilationW == 1 && src->strideW == c;
  int64_t windowRow = src->kernelW * c;
  int64_t k1 = k0 + kc;
  int64_t yFirst = k0 / windowRow;
  int64_t yEnd = minI64(taps.yHi, (k1 + windowRow - 1) / windowRow);
  for (int64_t ky = yFirst > taps.yLo ? yFirst : taps.yLo; ky < yEnd; ++ky) {
    int64_t rowDepth = ky * windowRow;
    int64_t rowOffset = ky * src->dilationH * src->strideH;
    int64_t kx = taps.xLo;
    if (!dense && k0 > rowDepth + kx * c) {
      kx = (k0 - rowDepth) / c;
    }
    while (kx < taps.xHi) {
      /* The segment [start, end) of depth and its input offset. */
      int64_t start = rowDepth + kx * c, end, offset;
      if (dense) {
        end = rowDepth + taps.xHi * c;
        offset = rowOffset + kx * c;
        kx = taps.xHi;
      } else {
        end = start + c;
        offset = rowOffset + kx * src->dilationW * src->strideW;
        ++kx;
      }
      if (start >= k1) {
        break;
      }
      int64_t first = start > k0 ? start : k0;
      int64_t last = minI64(end, k1);
      if (first < last) {
        runOffset[runs] = offset + (first - start);
        runLength[runs] = last - first;
        runDepth[runs] = first - k0;
        ++runs;
      }
    }
  }
  return runs;
}

/* The same for a convolution's windows: each row copies the block's runs
 * (convRuns) from its own pixel, and a window that meets the padding
 * (ASource.padded) its own runs over zeros. */
static void packAConv(const struct ASource *src, int64_t row0, int64_t k0,
                      int64_t mc, int64_t kc, float *restrict pa) {
  int64_t runOffset[STRATA_SGEMM_KC];
  int64_t runLength[STRATA_SGEMM_KC];
  int64_t runDepth[STRATA_SGEMM_KC];
  struct Taps whole = wholeWindow(src);
  int64_t runs = convRuns(src, k0, kc, whole, runOffset, runLength, runDepth);
  int64_t oy = row0 / src->outWidth;
  int64_t ox = row0 - oy * src->outWidth;
  for (int64_t i = 0; i < mc; ++i) {
    int64_t origin = windowOrigin(src, oy, ox);
    float *out = pa + i * STRATA_SGEMM_A_ROW_STRIDE(KC);
    struct Taps taps = src->padded ? pixelTaps(src, oy, ox) : whole;
    if (isWholeWindow(src, taps)) {
      const float *pixel = src->base + origin;
      for (int64_t r = 0; r < runs; ++r) {
        const float *in = pixel + runOffset[r];
        int64_t length = runLength[r];
        for (int64_t q = 0; q < length; ++q) {
          out[q] = in[q];
        }
        out += length;
      }
    } else {
      int64_t clippedOffset[STRATA_SGEMM_KC];
      int64_t clippedLength[STRATA_SGEMM_KC];
      int64_t clippedDepth[STRATA_SGEMM_KC];
      int64_t clipped = convRuns(src, k0, kc, taps, clippedOffset,
                                 clippedLength, clippedDepth);
      for (int64_t q = 0; q < kc; ++q) {
        out[q] = 0.0f;
      }
      for (int64_t r = 0; r < clipped; ++r) {
        const float *in = src->base + (origin + clippedOffset[r]);
        float *to = out + clippedDepth[r];
        for (int64_t q = 0; q < clippedLength[r]; ++q) {
          to[q] = in[q];
        }
      }
    }
    if (++ox == src->outWidth) {
      ox = 0;
      ++oy;
    }
  }
}

static void packA(const struct ASource *src, int64_t row0, int64_t k0,
                  int64_t mc, int64_t kc, float *restrict pa) {
  if (src->conv) {
    packAConv(src, row0, k0, mc, kc, pa);
  } else {
    packAMatrix(src, row0, k0, mc, kc, pa);
  }
}

/* Whether the rows of a row panel read in place, `stride` floats apart,
 * spread over the L1 cache's sets: rows a multiple of 4 KiB apart all fall
 * in one set and evict each other (square matmuls of 1024 and 2048 floats
 * a row lost a quarter in place). Rows 2 KiB apart share two sets, which
 * holds (512 floats a row: a little faster in place). */
static int spreadRows(int64_t stride) {
  return ((stride * (int64_t)sizeof(float)) & 4095) != 0;
}

/* The distance in floats between consecutive rows of A when it is the same
 * for every row and A is better read in place than packed, else 0: rows
 * that spread over the cache's sets (spreadRows), which the microkernel
 * reads with the next row panel prefetched. Packing copies each element
 * once to read it from the copy once per column panel; in place, the first
 * column panel's reads bring the rows into the cache for the others. */
static int64_t rowStrideOf(const struct ASource *src, int64_t k) {
  int64_t stride = src->lda;
  if (src->conv) {
    stride = src->convStrideW * src->strideW;
    if (k != src->channels ||
        (STRATA_SGEMM_POINTWISE_IN_PLACE_DEPTH &&
         k >= STRATA_SGEMM_POINTWISE_IN_PLACE_DEPTH) ||
        src->convStrideH * src->strideH != src->outWidth * stride) {
      return 0;
    }
  }
  return spreadRows(stride) ? stride : 0;
}

/* Output rows of MR / 2 pixels (resnet18's 7x7 convolutions on AVX-512's
 * 14-row tiles), read in place, go two to a tile: the tile's second half
 * reads its pixels from the next output row's address (ARuns.pairOffset),
 * so that a tile is as full as packed A's would be. */
static int pairsOutputRows(const struct ASource *src) {
  return MR % 2 == 0 && src->conv && !src->padded && src->outWidth == MR / 2;
}

/* The distance in floats between neighbouring output pixels of a row in
 * the input when a convolution's A is better read in place than packed,
 * else 0. In place, a row panel of A is pixels of one output row (evenly
 * spaced), or of two (pairsOutputRows), so panels end where rows do: worth
 * it when that fills at least 90% of the rows of a row's panels (55 of 56,
 * 13 of 14; not 6 of 14), or when rows pair up. Pixels at most
 * STRATA_SGEMM_CONV_IN_PLACE_MAX_STEP floats apart: the microkernel reads
 * its rows side by side, without a prefetch on this path, which streams
 * well from memory only when they lie close together. */
static int64_t convPixelStep(const struct ASource *src) {
  int64_t step = src->convStrideW * src->strideW;
  int64_t panelRows = (src->outWidth + MR - 1) / MR * MR;
  if (!src->conv || step > STRATA_SGEMM_CONV_IN_PLACE_MAX_STEP ||
      (src->outWidth * 10 < panelRows * 9 && !pairsOutputRows(src))) {
    return 0;
  }
  return step;
}

/* The tiles of output pixels [row0, row0 + mc) of a convolution read in
 * place whose windows meet the padding (ASource.padded), as the driver's
 * row panels (first pixel from row0, pixels, column or not); returns how
 * many. Every pixel of a tile has the same taps inside the input, so the
 * tile reads one set of runs: the interior columns [oxLo, oxHi) of each
 * output row go MR pixels to a tile, as without padding; each column
 * before and after them goes down the rows instead (its pixels one input
 * row apart: as evenly spaced), MR rows to a tile, a new tile where the
 * rows' taps change (the first and last rows of the image). Then only
 * 1 + (padLeft + padRight) / stride pixels of an output row are tiles of
 * their own, and those tiles are as tall as the band of rows. */
static int64_t convTiles(const struct ASource *src, int64_t row0, int64_t mc,
                         int64_t oxLo, int64_t oxHi, int64_t *start,
                         int64_t *rows, unsigned char *column) {
  int64_t width = src->outWidth, end = row0 + mc, tiles = 0;
  for (int64_t oy = row0 / width; oy * width < end; ++oy) {
    int64_t lo = row0 - oy * width, hi = end - oy * width;
    lo = lo > oxLo ? lo : oxLo;
    hi = minI64(hi, oxHi);
    for (int64_t ox = lo; ox < hi; ox += MR) {
      start[tiles] = oy * width + ox - row0;
      rows[tiles] = minI64(MR, hi - ox);
      column[tiles] = 0;
      ++tiles;
    }
  }
  for (int64_t ox = 0; ox < width; ++ox) {
    if (ox == oxLo && oxHi > oxLo) {
      ox = oxHi - 1;
      continue;
    }
    /* The rows whose pixel ox lies in the block. */
    int64_t oy = row0 > ox ? (row0 - ox + width - 1) / width : 0;
    int64_t oyEnd = end > ox ? (end - 1 - ox) / width + 1 : 0;
    while (oy < oyEnd) {
      struct Taps taps = pixelTaps(src, oy, ox);
      int64_t count = 1;
      while (count < MR && oy + count < oyEnd) {
        struct Taps next = pixelTaps(src, oy + count, ox);
        if (next.yLo != taps.yLo || next.yHi != taps.yHi) {
          break;
        }
        ++count;
      }
      start[tiles] = oy * width + ox - row0;
      rows[tiles] = count;
      column[tiles] = 1;
      ++tiles;
      oy += count;
    }
  }
  return tiles;
}

/* Packs depth [0, kc) x columns [0, nc) of B (row stride ldb) into NR-column
 * panels, each k-major (NR floats per k), columns past nc as zeros. Row by
 * row: each row of B is read once, front to back. */
static void packB(const float *restrict b, int64_t ldb, int64_t kc, int64_t nc,
                  float *restrict pb) {
  int64_t fullPanels = nc / NR;
  int64_t tail = nc - fullPanels * NR;
  for (int64_t p = 0; p < kc; ++p) {
    const float *row = b + p * ldb;
    for (int64_t panel = 0; panel < fullPanels; ++panel) {
      float *out = pb + panel * NR * kc + p * NR;
      for (int64_t j = 0; j < NR; ++j) {
        out[j] = row[panel * NR + j];
      }
    }
    if (tail) {
      float *out = pb + fullPanels * NR * kc + p * NR;
      for (int64_t j = 0; j < NR; ++j) {
        out[j] = j < tail ? row[fullPanels * NR + j] : 0.0f;
      }
    }
  }
}

/* Eight floats of a row, at any float alignment. */
typedef float StrataF32x8 __attribute__((vector_size(32)));

static inline StrataF32x8 loadF32x8(const float *p) {
  StrataF32x8 v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}

/* out[c * ldo + r] = in[r * ldi + c] for an 8 x 8 block: three rounds of
 * shuffles (pairs of floats, pairs of pairs, then halves), which clang
 * lowers to the ISA's unpack and permute instructions. */
static inline void transposeBlock8(const float *restrict in, int64_t ldi,
                                   float *restrict out, int64_t ldo) {
  StrataF32x8 r0 = loadF32x8(in), r1 = loadF32x8(in + ldi);
  StrataF32x8 r2 = loadF32x8(in + 2 * ldi), r3 = loadF32x8(in + 3 * ldi);
  StrataF32x8 r4 = loadF32x8(in + 4 * ldi), r5 = loadF32x8(in + 5 * ldi);
  StrataF32x8 r6 = loadF32x8(in + 6 * ldi), r7 = loadF32x8(in + 7 * ldi);
#define STRATA_LO32(a, b)                                                      \
  __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13)
#define STRATA_HI32(a, b)                                                      \
  __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15)
#define STRATA_LO64(a, b)                                                      \
  __builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13)
#define STRATA_HI64(a, b)                                                      \
  __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15)
#define STRATA_LO128(a, b)                                                     \
  __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11)
#define STRATA_HI128(a, b)                                                     \
  __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15)
  StrataF32x8 t0 = STRATA_LO32(r0, r1), t1 = STRATA_HI32(r0, r1);
  StrataF32x8 t2 = STRATA_LO32(r2, r3), t3 = STRATA_HI32(r2, r3);
  StrataF32x8 t4 = STRATA_LO32(r4, r5), t5 = STRATA_HI32(r4, r5);
  StrataF32x8 t6 = STRATA_LO32(r6, r7), t7 = STRATA_HI32(r6, r7);
  /* u0: column 0 of rows 0-3, then column 4; u1 columns 1 and 5... */
  StrataF32x8 u0 = STRATA_LO64(t0, t2), u1 = STRATA_HI64(t0, t2);
  StrataF32x8 u2 = STRATA_LO64(t1, t3), u3 = STRATA_HI64(t1, t3);
  StrataF32x8 u4 = STRATA_LO64(t4, t6), u5 = STRATA_HI64(t4, t6);
  StrataF32x8 u6 = STRATA_LO64(t5, t7), u7 = STRATA_HI64(t5, t7);
  StrataF32x8 columns[8] = {STRATA_LO128(u0, u4), STRATA_LO128(u1, u5),
                            STRATA_LO128(u2, u6), STRATA_LO128(u3, u7),
                            STRATA_HI128(u0, u4), STRATA_HI128(u1, u5),
                            STRATA_HI128(u2, u6), STRATA_HI128(u3, u7)};
#undef STRATA_LO32
#undef STRATA_HI32
#undef STRATA_LO64
#undef STRATA_HI64
#undef STRATA_LO128
#undef STRATA_HI128
  for (int c = 0; c < 8; ++c) {
    __builtin_memcpy(out + c * ldo, &columns[c], sizeof(columns[c]));
  }
}

/* packB for a B given transposed (STRATA_SGEMM_TRANSPOSED_B): column j of
 * B is row j of bt (row stride ldbt), depth contiguous. Whole panels go
 * through 8 x 8 register transposes; a last partial panel and the depth
 * past a multiple of 8 element by element, columns past nc as zeros. */
_Static_assert(NR % 8 == 0, "packBTransposed moves whole 8 x 8 blocks");
static void packBTransposed(const float *restrict bt, int64_t ldbt, int64_t kc,
                            int64_t nc, float *restrict pb) {
  for (int64_t j0 = 0; j0 < nc; j0 += NR) {
    int64_t cols = minI64(NR, nc - j0);
    float *panel = pb + j0 * kc;
    int64_t p = 0;
    if (cols == NR) {
      for (; p + 8 <= kc; p += 8) {
        for (int64_t j = 0; j < NR; j += 8) {
          transposeBlock8(bt + (j0 + j) * ldbt + p, ldbt, panel + p * NR + j,
                          NR);
        }
      }
    }
    for (; p < kc; ++p) {
      for (int64_t j = 0; j < NR; ++j) {
        panel[p * NR + j] = j < cols ? bt[(j0 + j) * ldbt + p] : 0.0f;
      }
    }
  }
}

/* C[m x n] (+)= A[m x k] * B[k x n], B and C row-major with unit inner
 * stride (B column-major under STRATA_SGEMM_TRANSPOSED_B), A from `src`.
 * `scratch` holds STRATA_SGEMM_SCRATCH_A rounded up to 16 floats plus
 * STRATA_SGEMM_SCRATCH_B floats (64-byte alignment is best; any float alignment
 * works). */
static void sgemm(const struct ASource *src, const float *b, int64_t ldb,
                  float *c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                  int64_t flags, float *scratch,
                  const struct Epilogue *epilogue) {
  float *pa = scratch;
  float *pb =
      pa + STRATA_SGEMM_ROUND_UP(
               STRATA_SGEMM_SCRATCH_A(MR, KC, STRATA_SGEMM_MC_ROWS, m, k), 16);
  int accumulate = (flags & STRATA_SGEMM_ACCUMULATE) != 0;
  int stream = (flags & STRATA_SGEMM_STREAM) != 0;
  if (m <= 0 || n <= 0) {
    return;
  }
  if (k <= 0) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float v = accumulate ? c[i * ldc + j] : 0.0f;
        struct TileEpilogue tileEp;
        const struct TileEpilogue *ep = tileEpilogue(epilogue, i, j, &tileEp);
        if (ep) {
          STRATA_SGEMM_APPLY_EPILOGUE(float, v, ep, 0, 0, loadScalar,
                                      splatScalar, strataMaxFirst,
                                      strataMinFirst);
        }
        c[i * ldc + j] = v;
      }
    }
    return;
  }
  /* An A whose rows are evenly spaced (a matrix, or a 1x1 convolution's
   * dense pixels) and spread over the cache's sets is read in place,
   * directA floats from one row to the next (rowStrideOf). */
  int64_t directA = rowStrideOf(src, k);
  /* A convolution read in place (convPixelStep): no im2col copy at all;
   * the microkernel reads each pixel's window in runs. */
  int64_t pixelStep = directA ? 0 : convPixelStep(src);
  /* Two output rows a tile (pairsOutputRows): from one row's first pixel
   * to the next's. */
  int64_t pairOffset =
      pixelStep && pairsOutputRows(src) ? src->convStrideH * src->strideH : 0;
  int64_t oxLo = 0, oxHi = 0;
  if (pixelStep && src->padded) {
    strataInteriorRange(src->padLeft, src->convStrideW, src->kernelW,
                        src->dilationW, src->inCols, src->outWidth, &oxLo,
                        &oxHi);
  }
  int64_t runOffset[STRATA_SGEMM_CONV_KC];
  int64_t runLength[STRATA_SGEMM_CONV_KC];
  int64_t runDepth[STRATA_SGEMM_CONV_KC];
  /* A tile's own runs, when its windows meet the padding. */
  int64_t tileOffset[STRATA_SGEMM_CONV_KC];
  int64_t tileLength[STRATA_SGEMM_CONV_KC];
  int64_t tileDepth[STRATA_SGEMM_CONV_KC];
  /* Row panels of the current block: first row, rows, and whether the
   * rows are a column of output pixels (outWidth pixels apart) rather
   * than neighbours in one output row (convTiles). */
  int64_t panelStart[MC];
  int64_t panelRows[MC];
  unsigned char panelColumn[MC];
  int packedB = (flags & STRATA_SGEMM_PACKED_B) != 0;
  int transposedB = !packedB && (flags & STRATA_SGEMM_TRANSPOSED_B) != 0;
  /* Columns per compile-time panel (ldb under STRATA_SGEMM_PACKED_B): NR,
   * or a multiple of it that this kernel reads as strips of NR columns, pw
   * floats from one depth step to the next. */
  int64_t pw = packedB ? ldb : NR;
  /* Floats of depth in each compile-time panel: k, or more when the call
   * reads part of each panel's depth (ASource.bPanelDepth). */
  int64_t bDepth = src->bPanelDepth > k ? src->bPanelDepth : k;
  /* A few rows (a matrix-vector product, one image's last pixels): each B
   * panel serves one A panel, so packing B would only copy it. The
   * microkernel reads B's full panels in place (rows ldb apart); only a last
   * panel of fewer than NR columns is packed (zero-padded). */
  int inPlaceB = !packedB && !transposedB && m <= STRATA_SGEMM_IN_PLACE_B_ROWS;
  /* One row panel of A read in place against panels packed at compile time
   * (a matrix-vector product: a decoder's token): depth blocks would only
   * cut each panel's one contiguous stream into KC-row pieces that the
   * hardware prefetchers pick up again one by one. Each panel is read whole,
   * and the panels of a tile follow each other in memory. */
  int64_t depthBlock = packedB && directA && m <= MR ? k : KC;
  /* A convolution read in place against its filter packed at compile time
   * packs nothing: deeper blocks (the ISA's conv_kc, IsaTuning.def) take
   * each tile's accumulators through C fewer times and cut its window rows
   * into fewer runs, while the filter panel streams from L2. */
  if (packedB && pixelStep) {
    depthBlock = STRATA_SGEMM_CONV_KC;
  }
  for (int64_t jc = 0; jc < n; jc += NC) {
    int64_t nc = minI64(NC, n - jc);
    int64_t fullCols = nc / NR * NR;
    for (int64_t pc = 0; pc < k; pc += depthBlock) {
      int64_t kc = minI64(depthBlock, k - pc);
      int add = accumulate || pc > 0;
      /* The epilogue goes with the last depth block's stores, and so does
       * streaming: earlier blocks' C is read back. */
      const struct Epilogue *last = pc + kc >= k ? epilogue : 0;
      int streamBlock = stream && pc + kc >= k;
      /* Packed panels of this block: kc x NR each, kc * NR floats apart
       * when packed here; kc x pw, k * pw floats apart, when packed at
       * compile time (jc, a multiple of NC, starts a panel). */
      const float *blockB = pb;
      int64_t panelFloats = kc * NR;
      if (packedB) {
        blockB = b + jc * bDepth + pc * pw;
        panelFloats = bDepth * pw;
      } else if (transposedB) {
        packBTransposed(b + jc * ldb + pc, ldb, kc, nc, pb);
      } else if (!inPlaceB) {
        packB(b + pc * ldb + jc, ldb, kc, nc, pb);
      } else if (fullCols < nc) {
        packB(b + pc * ldb + jc + fullCols, ldb, kc, nc - fullCols, pb);
      }
      /* Column panels outside row panels keeps one B panel in L1 while
       * every row panel of A passes it. A shallow block's B panels fit in
       * L1 all together: then each row panel takes every column panel in
       * turn, so C is written a whole row panel at a time, front to back
       * (a few output channels over many pixels would otherwise write C
       * in NR-column strips, a cache line or two per row each pass). */
      int rowsOuter = kc * nc <= STRATA_SGEMM_L1_B_FLOATS;
      int64_t lengthOfBlock = kc, offsetOfBlock = 0, depthOfBlock = 0;
      struct ARuns blockRuns = {.count = 1,
                                .offset = &offsetOfBlock,
                                .length = &lengthOfBlock,
                                .depth = &depthOfBlock};
      if (pixelStep) {
        blockRuns.count = convRuns(src, pc, kc, wholeWindow(src), runOffset,
                                   runLength, runDepth);
        blockRuns.offset = runOffset;
        blockRuns.length = runLength;
        blockRuns.depth = runDepth;
      }
      /* A tile's runs: the block's, or its own (restored after it). */
      struct ARuns runs = blockRuns;
      for (int64_t ic = 0; ic < m; ic += MC) {
        int64_t mc = minI64(MC, m - ic);
        int64_t panels = 0;
        if (pixelStep && src->padded) {
          panels = convTiles(src, ic, mc, oxLo, oxHi, panelStart, panelRows,
                             panelColumn);
        } else {
          for (int64_t ir = 0; ir < mc;) {
            int64_t rows = minI64(MR, mc - ir);
            if (pixelStep) {
              int64_t ox = (ic + ir) % src->outWidth;
              if (!pairOffset || ox != 0 || rows < MR) {
                rows = minI64(rows, src->outWidth - ox);
              }
            }
            panelStart[panels] = ir;
            panelRows[panels] = rows;
            panelColumn[panels] = 0;
            ++panels;
            ir += rows;
          }
        }
        if (!directA && !pixelStep) {
          packA(src, ic, pc, mc, kc, pa);
        }
        int64_t outer = rowsOuter ? panels : nc;
        int64_t outerStep = rowsOuter ? 1 : NR;
        int64_t inner = rowsOuter ? nc : panels;
        int64_t innerStep = rowsOuter ? NR : 1;
        for (int64_t o = 0; o < outer; o += outerStep) {
          for (int64_t i = 0; i < inner; i += innerStep) {
            int64_t jr = rowsOuter ? i : o;
            int64_t panel = rowsOuter ? o : i;
            int64_t ir = panelStart[panel];
            int64_t rows = panelRows[panel];
            int64_t cols = minI64(NR, nc - jr);
            const float *panelB = blockB + jr / pw * panelFloats + jr % pw;
            int64_t panelStride = pw;
            if (inPlaceB) {
              panelB = cols == NR ? b + pc * ldb + jc + jr : pb;
              panelStride = cols == NR ? ldb : NR;
            }
            const float *panelA = pa + ir * STRATA_SGEMM_A_ROW_STRIDE(KC);
            int64_t lda = STRATA_SGEMM_A_ROW_STRIDE(KC);
            /* Pixels from one row of the tile to the next: C's rows. */
            int64_t pixelStride = 1;
            runs.next = 0;
            runs.pairOffset = pairOffset && rows == MR ? pairOffset : 0;
            if (directA) {
              panelA = src->base + (ic + ir) * directA + pc;
              lda = directA;
              /* The row panel after this one, once per row panel. */
              if (!rowsOuter || i == 0) {
                runs.next = panelA + rows * lda;
                runs.nextStride = lda;
                runs.nextRows = MR;
                runs.nextSpan = INT64_MAX;
              }
            } else if (pixelStep && !src->padded) {
              int64_t oy = (ic + ir) / src->outWidth;
              int64_t ox = (ic + ir) - oy * src->outWidth;
              panelA = src->base + oy * src->convStrideH * src->strideH +
                       ox * pixelStep;
              lda = pixelStep;
            } else if (pixelStep) {
              int64_t oy = (ic + ir) / src->outWidth;
              int64_t ox = (ic + ir) - oy * src->outWidth;
              int64_t origin = windowOrigin(src, oy, ox);
              lda = pixelStep;
              if (panelColumn[panel]) {
                lda = src->convStrideH * src->strideH;
                pixelStride = src->outWidth;
              }
              struct Taps taps = pixelTaps(src, oy, ox);
              if (!isWholeWindow(src, taps)) {
                /* The tile's taps inside the input, from the first one's
                 * address (the window's start may lie outside). */
                runs.count = convRuns(src, pc, kc, taps, tileOffset, tileLength,
                                      tileDepth);
                int64_t first = runs.count ? tileOffset[0] : 0;
                for (int64_t r = 0; r < runs.count; ++r) {
                  tileOffset[r] -= first;
                }
                origin = runs.count ? origin + first : 0;
                runs.offset = tileOffset;
                runs.length = tileLength;
                runs.depth = tileDepth;
              }
              panelA = src->base + origin;
            }
            /* A convolution read in place: the window rows of the next row
             * panel's pixels (a row of output pixels; a column of them or
             * two output rows a tile get nothing), while the first column
             * strip passes the row panels (the later ones find them in
             * L2): the 3x3 convolutions of resnet18 at batch 8 read each
             * band's rows from memory, not from a cache the dispatch
             * before left them in. */
            if (pixelStep && !runs.pairOffset && panel + 1 < panels &&
                !panelColumn[panel + 1] && jr == 0) {
              convPrefetchNext(src, pixelStep, pc, kc,
                               ic + panelStart[panel + 1], panelRows[panel + 1],
                               &runs);
            }
            /* B packed at compile time comes from memory, not from a
             * packing pass that left it in the cache: while the row panels
             * pass one column panel, the next panel's block is prefetched
             * a share per row panel, so its first pass does not wait on
             * memory (fc 768 -> 3072 at 512 rows, Intel Xeon AVX-512: 93
             * GFLOP/s without, against 115 packing per call). */
            /* (One row panel, a decoder's token, reads B in a stream the
             * microkernel prefetches itself: SgemmRuns.h.) */
            sgemmBPrefetch(&runs, panelB, panelStride);
            if (packedB && !rowsOuter && panels > 1) {
              /* The next panel: in this block, else the first of the next
               * depth block, else of the next column block. */
              /* A panel wider than NR is prefetched whole before its
               * first strip: its next strip needs nothing. */
              const float *nextB = 0;
              int64_t nextDepth = kc;
              if (jr + NR < nc) {
                if ((jr + NR) % pw == 0) {
                  nextB = blockB + (jr + NR) / pw * panelFloats;
                }
              } else if (pc + kc < k) {
                nextB = b + jc * bDepth + (pc + kc) * pw;
                nextDepth = minI64(depthBlock, k - pc - kc);
              } else if (jc + NC < n) {
                nextB = b + (jc + NC) * bDepth;
                nextDepth = minI64(depthBlock, k);
              }
              if (nextB) {
                prefetchShare(&runs, nextB,
                              nextDepth * pw * (int64_t)sizeof(float), i,
                              panels, kc);
              }
            }
            float *tile = c + (ic + ir) * ldc + jc + jr;
            struct TileEpilogue tileEp;
            const struct TileEpilogue *ep =
                tileEpilogue(last, ic + ir, jc + jr, &tileEp);
            if (ep && pixelStride != 1) {
              tileEp.firstLd *= pixelStride;
              tileEp.secondLd *= pixelStride;
              tileEp.ldr *= pixelStride;
            }
            if (ep && ep->residual) {
              prefetchResidual(ep, rows, cols);
            }
            micro(&runs, panelA, lda, panelB, panelStride, tile,
                  ldc * pixelStride, add, ep, streamBlock, rows, cols);
            if (runs.offset != blockRuns.offset) {
              runs.count = blockRuns.count;
              runs.offset = blockRuns.offset;
              runs.length = blockRuns.length;
              runs.depth = blockRuns.depth;
            }
          }
        }
      }
    }
  }
#if defined(__x86_64__)
  /* (The NEON variant streams nothing: plain stores.) */
  if (stream) {
    /* Non-temporal stores are weakly ordered: they must be visible before
     * whatever tells another thread that this workgroup is done. */
    __builtin_ia32_sfence();
  }
#endif
}

/* The matmul entry point. Pointers come as integers (the compiler passes
 * memref base addresses); offsets are in elements. */
/* The epilogue arguments of both entry points: bias and residual as
 * addresses (used when their flag is set), the residual's row stride, and
 * the clamp bounds as f32 bit patterns. */
static const struct Epilogue *decodeEpilogue(int64_t flags, int64_t bias,
                                             int64_t residual, int64_t ldr,
                                             int64_t loBits, int64_t hiBits,
                                             struct Epilogue *out) {
  if (!(flags &
        (STRATA_SGEMM_BIAS | STRATA_SGEMM_RESIDUAL | STRATA_SGEMM_CLAMP))) {
    return 0;
  }
  out->bias = flags & STRATA_SGEMM_BIAS ? (const float *)(intptr_t)bias : 0;
  out->residual =
      flags & STRATA_SGEMM_RESIDUAL ? (const float *)(intptr_t)residual : 0;
  out->ldr = ldr;
  out->residualFirst =
      out->residual && (flags & STRATA_SGEMM_RESIDUAL_FIRST) != 0;
  out->lo = -__builtin_inff();
  out->hi = __builtin_inff();
  if (flags & STRATA_SGEMM_CLAMP) {
    uint32_t lo = (uint32_t)loBits, hi = (uint32_t)hiBits;
    __builtin_memcpy(&out->lo, &lo, sizeof(float));
    __builtin_memcpy(&out->hi, &hi, sizeof(float));
  }
  /* -0.0 and 0 without a clamp: nothing to fix. */
  out->loZeroFix = strataLoZeroFix(out->lo);
  out->hiNegativeZero = strataIsNegativeZero(out->hi);
  return out;
}

void strata_ukernel_sgemm_f32(int64_t aBase, int64_t aOffset, int64_t lda,
                              int64_t bBase, int64_t bOffset, int64_t ldb,
                              int64_t cBase, int64_t cOffset, int64_t ldc,
                              int64_t m, int64_t n, int64_t k, int64_t flags,
                              int64_t scratchBase, int64_t bias,
                              int64_t residual, int64_t ldr, int64_t loBits,
                              int64_t hiBits) {
  struct ASource src = {0};
  src.base = (const float *)(intptr_t)aBase + aOffset;
  src.lda = lda;
  struct Epilogue epilogue;
  sgemm(&src, (const float *)(intptr_t)bBase + bOffset, ldb,
        (float *)(intptr_t)cBase + cOffset, ldc, m, n, k, flags,
        (float *)(intptr_t)scratchBase,
        decodeEpilogue(flags, bias, residual, ldr, loBits, hiBits, &epilogue));
}

/* The convolution entry point: an NHWC input tile (one image, rows of
 * output pixels outWidth wide), an HWCF filter viewed as its
 * (KH * KW * C) x F matrix (row stride ldb), and the output tile as the
 * (rows * outWidth) x F matrix it is when its pixels are dense (row stride
 * ldc). m = output pixels, n = output channels, k = KH * KW * C. The input
 * is given unpadded: its element (0, 0) (pointer + offset), strides,
 * extent (inRows x inCols) and the zero padding before it (padTop,
 * padLeft; what lies past its end is padding too), so that output row 0's
 * window starts at padded row 0 (an input already padded is passed with
 * no padding). No im2col matrix or padded copy is ever made: packing A
 * reads the windows straight from the input, writing zeros for the taps
 * in the padding, and reading in place skips those. */
/* A 3x3 convolution by Winograd's algorithm (STRATA_SGEMM_WINOGRAD):
 * WinogradDriver.h, which each variant includes after this. */
static void swinograd(const struct ASource *src, const float *u, int64_t pw,
                      float *c, int64_t ldc, int64_t m, int64_t n,
                      int64_t flags, float *scratch,
                      const struct Epilogue *epilogue);

void strata_ukernel_sconv_f32(
    int64_t inBase, int64_t inOffset, int64_t inStrideH, int64_t inStrideW,
    int64_t inRows, int64_t inCols, int64_t padTop, int64_t padLeft,
    int64_t bBase, int64_t bOffset, int64_t ldb, int64_t cBase, int64_t cOffset,
    int64_t ldc, int64_t m, int64_t n, int64_t k, int64_t flags,
    int64_t scratchBase, int64_t outWidth, int64_t channels, int64_t kernelW,
    int64_t convStrideH, int64_t convStrideW, int64_t dilationH,
    int64_t dilationW, int64_t bias, int64_t residual, int64_t ldr,
    int64_t loBits, int64_t hiBits) {
  struct ASource src = {0};
  src.base = (const float *)(intptr_t)inBase + inOffset;
  src.conv = 1;
  src.strideH = inStrideH;
  src.strideW = inStrideW;
  src.outWidth = outWidth;
  src.channels = channels;
  src.kernelH = kernelW * channels > 0 ? k / (kernelW * channels) : 0;
  src.kernelW = kernelW;
  src.convStrideH = convStrideH;
  src.convStrideW = convStrideW;
  src.dilationH = dilationH;
  src.dilationW = dilationW;
  src.inRows = inRows;
  src.inCols = inCols;
  src.padTop = padTop;
  src.padLeft = padLeft;
  /* Whether the first or last row's or column's windows reach past the
   * input. */
  int64_t lastRow = outWidth > 0 && m > 0 ? (m - 1) / outWidth : 0;
  src.padded =
      padTop > 0 || padLeft > 0 ||
      lastRow * convStrideH - padTop + (src.kernelH - 1) * dilationH >=
          inRows ||
      (outWidth - 1) * convStrideW - padLeft + (kernelW - 1) * dilationW >=
          inCols;
  struct Epilogue epilogue;
  const struct Epilogue *ep =
      decodeEpilogue(flags, bias, residual, ldr, loBits, hiBits, &epilogue);
  if (flags & STRATA_SGEMM_WINOGRAD) {
    swinograd(&src, (const float *)(intptr_t)bBase + bOffset, ldb,
              (float *)(intptr_t)cBase + cOffset, ldc, m, n, flags,
              (float *)(intptr_t)scratchBase, ep);
    return;
  }
  sgemm(&src, (const float *)(intptr_t)bBase + bOffset, ldb,
        (float *)(intptr_t)cBase + cOffset, ldc, m, n, k, flags,
        (float *)(intptr_t)scratchBase, ep);
}
