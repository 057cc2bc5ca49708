/*===- SgemmAvx2.c - f32 matmul microkernel for AVX2 + FMA (6 x 16) -------===//
 *
 * 12 ymm accumulators (6 rows x 2 vectors of 8 columns), two loads of packed
 * B and 6 broadcasts of packed A per k step.
 *===----------------------------------------------------------------------===*/
#include <immintrin.h>
#include <stdint.h>

#include "IgemmRequant.h"
#include "SgemmEpilogue.h"
#include "SgemmParams.h"
#include "SgemmRuns.h"

#define MR STRATA_SGEMM_AVX2_MR
#define NR STRATA_SGEMM_AVX2_NR

/* Rows [0, rows) and columns [0, cols) of one MR x NR tile of C. rows,
 * vecs (vectors of columns computed: 1 when cols <= 8) and masked (cols <
 * NR: C, bias and residual are read and written through lane masks) are
 * constants after inlining: each combination gets its own fully unrolled
 * kernel, so an edge tile costs only its rows and vectors. */
static inline __attribute__((always_inline)) void
microRows(const struct ARuns *runs, const float *restrict pa, int64_t lda,
          const float *restrict pb, int64_t ldb, float *restrict c, int64_t ldc,
          int add, const struct TileEpilogue *ep, int stream, const int rows,
          int64_t cols, const int vecs, const int masked, const int split) {
  __m256 acc[MR][2];
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = _mm256_setzero_ps();
    acc[i][1] = _mm256_setzero_ps();
  }
  int64_t nextRow = 0, nextCol = 0;
  /* (A tile of two output rows reads a convolution in place: no next row
   * panel to prefetch.) */
  if (runs->next && !split) {
    STRATA_SGEMM_STEPS(1, __m256, _mm256_loadu_ps, _mm256_broadcast_ss,
                       _mm256_fmadd_ps, 8)
  } else {
    STRATA_SGEMM_STEPS(0, __m256, _mm256_loadu_ps, _mm256_broadcast_ss,
                       _mm256_fmadd_ps, 8)
  }
  __m256i m0 = _mm256_set1_epi32(-1), m1 = m0;
  if (masked) {
    __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)cols), lane);
    m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)cols - 8), lane);
  }
#define LOAD0(p) (masked ? _mm256_maskload_ps(p, m0) : _mm256_loadu_ps(p))
#define LOAD1(p) (masked ? _mm256_maskload_ps(p, m1) : _mm256_loadu_ps(p))
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    if (i < rows) {
      float *row = c + i * ldc;
      if (add) {
        acc[i][0] = _mm256_add_ps(acc[i][0], LOAD0(row));
        if (vecs > 1) {
          acc[i][1] = _mm256_add_ps(acc[i][1], LOAD1(row + 8));
        }
      }
      if (ep) {
        STRATA_SGEMM_APPLY_EPILOGUE(__m256, acc[i][0], ep, i, 0, LOAD0,
                                    _mm256_set1_ps, _mm256_max_ps,
                                    _mm256_min_ps);
        if (vecs > 1) {
          STRATA_SGEMM_APPLY_EPILOGUE(__m256, acc[i][1], ep, i, 8, LOAD1,
                                      _mm256_set1_ps, _mm256_max_ps,
                                      _mm256_min_ps);
        }
      }
      if (masked) {
        _mm256_maskstore_ps(row, m0, acc[i][0]);
        if (vecs > 1) {
          _mm256_maskstore_ps(row + 8, m1, acc[i][1]);
        }
      } else if (stream && ((uintptr_t)row & 31) == 0) {
        /* Aligned rows of a streamed C bypass the cache. */
        _mm256_stream_ps(row, acc[i][0]);
        _mm256_stream_ps(row + 8, acc[i][1]);
      } else {
        _mm256_storeu_ps(row, acc[i][0]);
        _mm256_storeu_ps(row + 8, acc[i][1]);
      }
    }
  }
#undef LOAD0
#undef LOAD1
}

#include "SgemmDriver.h"

/* The depthwise convolution kernel on the same vectors. */
#define DW_VL 8
typedef __m256 dwvec;
static inline dwvec dwLoad(const float *p) { return _mm256_loadu_ps(p); }
static inline void dwStore(float *p, dwvec v) { _mm256_storeu_ps(p, v); }
static inline void dwStream(float *p, dwvec v) { _mm256_stream_ps(p, v); }
static inline dwvec dwSplat(float x) { return _mm256_set1_ps(x); }
static inline dwvec dwMaxFirst(dwvec a, dwvec b) { return _mm256_max_ps(a, b); }
static inline dwvec dwMinFirst(dwvec a, dwvec b) { return _mm256_min_ps(a, b); }
static inline dwvec dwFma(dwvec a, dwvec b, dwvec c) {
  return _mm256_fmadd_ps(a, b, c);
}

static inline dwvec dwMax(dwvec a, dwvec b) {
  return __builtin_elementwise_maximum(a, b);
}
#include "DwconvDriver.h"
#include "WinogradDriver.h"

/* The int8 depthwise convolution: 8 channels a vector, vpmaddwd and an
 * add. */
#define IDW_VL 8
typedef __m256i idwvec;
static inline idwvec idwZero(void) { return _mm256_setzero_si256(); }
static inline idwvec idwSplat(int32_t x) { return _mm256_set1_epi32(x); }
static inline idwvec idwLoadInput(const int8_t *p) {
  return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p));
}
static inline idwvec idwLoadI32(const int32_t *p) {
  return _mm256_loadu_si256((const __m256i *)p);
}
static inline void idwStoreI32(int32_t *p, idwvec v) {
  _mm256_storeu_si256((__m256i *)p, v);
}
static inline idwvec idwAdd(idwvec a, idwvec b) {
  return _mm256_add_epi32(a, b);
}
static inline idwvec idwMac(idwvec acc, idwvec x, idwvec w) {
  return _mm256_add_epi32(acc, _mm256_madd_epi16(x, w));
}
static inline void idwStoreRequant(int8_t *p, idwvec acc, const int32_t *adjust,
                                   const float *multiplier, float zero,
                                   float lo, float hi) {
  __m256i q = igRequant256(acc, _mm256_loadu_si256((const __m256i *)adjust),
                           _mm256_loadu_ps(multiplier), _mm256_set1_ps(zero),
                           _mm256_set1_ps(lo), _mm256_set1_ps(hi));
  /* Values within [-128, 255]: the saturating i16 pack keeps them, the mask
   * their low bytes, which the unsigned pack then keeps. */
  __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q),
                              _mm256_extracti128_si256(q, 1));
  w = _mm_and_si128(w, _mm_set1_epi16(0xFF));
  _mm_storel_epi64((__m128i *)p, _mm_packus_epi16(w, w));
}
#include "IdwconvDriver.h"

/* The int8 matmul on vpmaddwd. */
#include "IgemmMadd.h"
