/*===- WinogradDriver.h - 3x3 convolutions by Winograd's F(4x4, 3x3) -----===//
 *
 * Included by each variant after SgemmDriver.h and the depthwise kernel's
 * vector type (DW_VL floats of `dwvec`, dwLoad, dwStore, dwSplat,
 * dwMaxFirst, dwMinFirst): the convolution entry point sends a call with
 * STRATA_SGEMM_WINOGRAD here (SgemmParams.h).
 *
 * Output rows go in bands of whole rows of 4x4 tiles, enough rows for
 * STRATA_SWINOGRAD_BAND_MIN_TILES tiles (the scratch holds one band:
 * STRATA_SWINOGRAD_SCRATCH). For each band:
 *  1. every 6x6 input tile under its 4x4 output tiles becomes
 *     V = B^T d B, per input channel (vectors along the channels, NHWC
 *     keeps them contiguous; taps outside the input are zeros), stored as
 *     36 matrices of tiles x C;
 *  2. position by position, M = V x U, a tiles x C by C x n product on the
 *     matmul driver, U being the filter's transform G g G^T packed at
 *     compile time ([36][C][NR] panels, ASource.bPanelDepth);
 *  3. each tile's 36 values become Y = A^T M A, the 4x4 output tile, which
 *     the call's epilogue (bias, residual, clamp) and accumulation finish
 *     as the direct kernel's would, stored where they fall inside the
 *     output.
 * B^T, G and A^T are Lavin and Gray's for F(4x4, 3x3) (interpolation
 * points 0, +-1, +-2 and infinity): a 4x4 tile takes 36 multiply-adds per
 * channel pair where the direct convolution takes 144. Rounding differs
 * from the direct sum's: the transforms scale by up to 8 (resnet18's
 * layers stay within 2e-5 of the largest output, bench/ukernel/
 * winograd.sh). A non-finite input spreads further than in the direct
 * sum: a NaN or an infinity in an input tile makes every output of its 4x4
 * tile NaN (infinities meet with both signs in the transforms), where the
 * direct kernel touches only the outputs whose windows hold it.
 *
 * Builds freestanding, like the matmul driver.
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "SgemmEpilogue.h"
#include "SgemmParams.h"

#define WG_T STRATA_SWINOGRAD_TILE
#define WG_A STRATA_SWINOGRAD_ALPHA

static inline float wgSplatScalar(float x) { return x; }
static inline float wgLoadScalar(const float *p) { return *p; }

/* y = B^T x over six values of type T (a tile's rows, then its columns). */
#define WG_INPUT6(T, splat, x, y)                                              \
  do {                                                                         \
    T a_ = (x)[4] - splat(4.0f) * (x)[2];                                      \
    T b_ = (x)[3] - splat(4.0f) * (x)[1];                                      \
    T p_ = (x)[4] - (x)[2];                                                    \
    T q_ = splat(2.0f) * ((x)[3] - (x)[1]);                                    \
    (y)[0] = splat(4.0f) * (x)[0] - splat(5.0f) * (x)[2] + (x)[4];             \
    (y)[1] = a_ + b_;                                                          \
    (y)[2] = a_ - b_;                                                          \
    (y)[3] = p_ + q_;                                                          \
    (y)[4] = p_ - q_;                                                          \
    (y)[5] = splat(4.0f) * (x)[1] - splat(5.0f) * (x)[3] + (x)[5];             \
  } while (0)

/* y = A^T x: four values of type T from six. */
#define WG_OUTPUT6(T, splat, x, y)                                             \
  do {                                                                         \
    T s12_ = (x)[1] + (x)[2], d12_ = (x)[1] - (x)[2];                          \
    T s34_ = (x)[3] + (x)[4], d34_ = (x)[3] - (x)[4];                          \
    (y)[0] = (x)[0] + s12_ + s34_;                                             \
    (y)[1] = d12_ + splat(2.0f) * d34_;                                        \
    (y)[2] = s12_ + splat(4.0f) * s34_;                                        \
    (y)[3] = d12_ + splat(8.0f) * d34_ + (x)[5];                               \
  } while (0)

/* The 6x6 input tile whose first tap is input element (iy, ix) (either may
 * lie in the padding), channels [c, c + lanes) of type T: transformed and
 * stored at vt (36 positions, `positionStride` floats apart). `inside`: the
 * whole tile lies in the input (no bound tests). */
#define WG_INPUT_TILE(T, load, zero, splat, store)                             \
  do {                                                                         \
    T rows_[WG_A][WG_A];                                                       \
    for (int i = 0; i < WG_A; ++i) {                                           \
      T x_[WG_A];                                                              \
      int64_t y_ = iy + i;                                                     \
      for (int j = 0; j < WG_A; ++j) {                                         \
        int64_t xx_ = ix + j;                                                  \
        x_[j] =                                                                \
            inside || (y_ >= 0 && y_ < src->inRows && xx_ >= 0 &&              \
                       xx_ < src->inCols)                                      \
                ? load(src->base + y_ * src->strideH + xx_ * src->strideW + c) \
                : zero;                                                        \
      }                                                                        \
      WG_INPUT6(T, splat, x_, rows_[i]);                                       \
    }                                                                          \
    for (int j = 0; j < WG_A; ++j) {                                           \
      T x_[WG_A], y6_[WG_A];                                                   \
      for (int i = 0; i < WG_A; ++i) {                                         \
        x_[i] = rows_[i][j];                                                   \
      }                                                                        \
      WG_INPUT6(T, splat, x_, y6_);                                            \
      for (int i = 0; i < WG_A; ++i) {                                         \
        store(vt + (i * WG_A + j) * positionStride + c, y6_[i]);               \
      }                                                                        \
    }                                                                          \
  } while (0)

static inline void wgStoreScalar(float *p, float x) { *p = x; }

/* Input tiles of the band whose output rows start at oy0, `rowTiles` a
 * row: tile t (output rows oy0 + 4 (t / rowTiles) on, columns
 * 4 (t % rowTiles) on) into row t of the 36 matrices at v (tiles x C
 * each). */
static void wgInputBand(const struct ASource *src, int64_t oy0,
                        int64_t rowTiles, int64_t tiles, float *v) {
  int64_t channels = src->channels;
  int64_t positionStride = tiles * channels;
  for (int64_t t = 0; t < tiles; ++t) {
    int64_t iy = oy0 + t / rowTiles * WG_T - src->padTop;
    int64_t ix = t % rowTiles * WG_T - src->padLeft;
    int inside = iy >= 0 && iy + WG_A <= src->inRows && ix >= 0 &&
                 ix + WG_A <= src->inCols;
    float *vt = v + t * channels;
    int64_t c = 0;
    for (; c + DW_VL <= channels; c += DW_VL) {
      WG_INPUT_TILE(dwvec, dwLoad, dwSplat(0.0f), dwSplat, dwStore);
    }
    for (; c < channels; ++c) {
      WG_INPUT_TILE(float, wgLoadScalar, 0.0f, wgSplatScalar, wgStoreScalar);
    }
  }
}

/* Output tile t of the band at output row oy0, columns [col, col + lanes)
 * of type T: its 36 products (m, `positionStride` floats apart)
 * transformed back, accumulated into C when asked, through the epilogue,
 * and stored where the tile lies inside the call's rows x outWidth. */
#define WG_OUTPUT_TILE(T, load, splat, store, maxFirst, minFirst)              \
  do {                                                                         \
    T cols_[WG_A][WG_T];                                                       \
    for (int j = 0; j < WG_A; ++j) {                                           \
      T x_[WG_A];                                                              \
      for (int i = 0; i < WG_A; ++i) {                                         \
        x_[i] = load(mt + (i * WG_A + j) * positionStride + col);              \
      }                                                                        \
      WG_OUTPUT6(T, splat, x_, cols_[j]);                                      \
    }                                                                          \
    for (int i = 0; i < WG_T && oy0 + i < rows; ++i) {                         \
      T x_[WG_A], y4_[WG_T];                                                   \
      for (int j = 0; j < WG_A; ++j) {                                         \
        x_[j] = cols_[j][i];                                                   \
      }                                                                        \
      WG_OUTPUT6(T, splat, x_, y4_);                                           \
      for (int j = 0; j < WG_T && ox0 + j < outWidth; ++j) {                   \
        int64_t pixel = (oy0 + i) * outWidth + ox0 + j;                        \
        float *out = c + pixel * ldc + col;                                    \
        T value = y4_[j];                                                      \
        if (accumulate) {                                                      \
          value = value + load(out);                                           \
        }                                                                      \
        struct TileEpilogue tileEp_;                                           \
        const struct TileEpilogue *ep_ =                                       \
            tileEpilogue(epilogue, pixel, col, &tileEp_);                      \
        if (ep_) {                                                             \
          STRATA_SGEMM_APPLY_EPILOGUE(T, value, ep_, 0, 0, load, splat,        \
                                      maxFirst, minFirst);                     \
        }                                                                      \
        store(out, value);                                                     \
      }                                                                        \
    }                                                                          \
  } while (0)

static void wgOutputBand(const float *m, int64_t rowTiles, int64_t tiles,
                         int64_t n, int64_t bandY, int64_t rows,
                         int64_t outWidth, float *c, int64_t ldc,
                         int accumulate, const struct Epilogue *epilogue) {
  int64_t positionStride = tiles * n;
  for (int64_t t = 0; t < tiles; ++t) {
    int64_t oy0 = bandY + t / rowTiles * WG_T;
    int64_t ox0 = t % rowTiles * WG_T;
    const float *mt = m + t * n;
    int64_t col = 0;
    for (; col + DW_VL <= n; col += DW_VL) {
      WG_OUTPUT_TILE(dwvec, dwLoad, dwSplat, dwStore, dwMaxFirst, dwMinFirst);
    }
    for (; col < n; ++col) {
      WG_OUTPUT_TILE(float, wgLoadScalar, wgSplatScalar, wgStoreScalar,
                     strataMaxFirst, strataMinFirst);
    }
  }
}

/* The convolution of src (3x3, stride and dilation 1) against the filter
 * transform u (the panel of C's first column; panels of pw columns, each
 * [36][channels][pw]) into c: m = rows x outWidth pixels, ldc floats
 * apart, n columns. */
static void swinograd(const struct ASource *src, const float *u, int64_t pw,
                      float *c, int64_t ldc, int64_t m, int64_t n,
                      int64_t flags, float *scratch,
                      const struct Epilogue *epilogue) {
  int64_t outWidth = src->outWidth, channels = src->channels;
  if (m <= 0 || n <= 0 || outWidth <= 0) {
    return;
  }
  int64_t rows = m / outWidth;
  int64_t rowTiles = STRATA_SWINOGRAD_ROW_TILES(outWidth);
  int64_t bandRows = STRATA_SWINOGRAD_BAND_TILE_ROWS(outWidth) * WG_T;
  /* The scratch holds a whole band; a call's last band may be fewer rows. */
  int64_t most = STRATA_SWINOGRAD_BAND_TILES(outWidth);
  float *v = scratch;
  float *products = v + STRATA_SGEMM_ROUND_UP(36 * most * channels, 16);
  float *gemmScratch = products + STRATA_SGEMM_ROUND_UP(36 * most * n, 16);
  int accumulate = (flags & STRATA_SGEMM_ACCUMULATE) != 0;
  for (int64_t bandY = 0; bandY < rows; bandY += bandRows) {
    int64_t bandEnd = bandY + bandRows < rows ? bandY + bandRows : rows;
    int64_t tiles = (bandEnd - bandY + WG_T - 1) / WG_T * rowTiles;
    wgInputBand(src, bandY, rowTiles, tiles, v);
    for (int64_t position = 0; position < WG_A * WG_A; ++position) {
      struct ASource a = {0};
      a.base = v + position * tiles * channels;
      a.lda = channels;
      a.bPanelDepth = WG_A * WG_A * channels;
      sgemm(&a, u + position * channels * pw, pw,
            products + position * tiles * n, n, tiles, n, channels,
            STRATA_SGEMM_PACKED_B, gemmScratch, 0);
    }
    wgOutputBand(products, rowTiles, tiles, n, bandY, rows, outWidth, c, ldc,
                 accumulate, epilogue);
  }
}

#undef WG_T
#undef WG_A
