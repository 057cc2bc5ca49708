/*===- SgemmAvx512.c - f32 matmul microkernel for AVX-512 (14 x 32) -------===//
 *
 * 28 zmm accumulators (14 rows x 2 vectors of 16 columns); per k step two
 * loads of packed B and 14 broadcasts of packed A, which clang folds into
 * the FMAs as embedded broadcasts.
 *===----------------------------------------------------------------------===*/
#include <immintrin.h>
#include <stdint.h>

#include "SgemmEpilogue.h"
#include "SgemmParams.h"

#define MR STRATA_SGEMM_AVX512_MR
#define NR STRATA_SGEMM_AVX512_NR

/* Rows [0, rows) of one MR x NR tile of C (rows is a constant after
 * inlining: each count gets its own fully unrolled kernel, so an edge panel
 * of few rows costs only those rows). */
static inline __attribute__((always_inline)) void
microRows(int64_t kc, const float *restrict pa, const float *restrict pb,
          int64_t ldb, float *restrict c, int64_t ldc, int add,
          const struct TileEpilogue *ep, const int rows) {
  __m512 acc[MR][2];
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = _mm512_setzero_ps();
    acc[i][1] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    __m512 b0 = _mm512_loadu_ps(pb);
    __m512 b1 = _mm512_loadu_ps(pb + 16);
#pragma clang loop unroll(full)
    for (int i = 0; i < MR; ++i) {
      if (i < rows) {
        __m512 ai = _mm512_set1_ps(pa[i * STRATA_SGEMM_A_ROW_STRIDE]);
        acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
        acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
      }
    }
    pa += 1;
    pb += ldb;
  }
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    if (i < rows) {
      float *row = c + i * ldc;
      if (add) {
        acc[i][0] = _mm512_add_ps(acc[i][0], _mm512_loadu_ps(row));
        acc[i][1] = _mm512_add_ps(acc[i][1], _mm512_loadu_ps(row + 16));
      }
      if (ep) {
        STRATA_SGEMM_APPLY_EPILOGUE(__m512, acc[i][0], ep, i, 0,
                                    _mm512_loadu_ps, _mm512_set1_ps);
        STRATA_SGEMM_APPLY_EPILOGUE(__m512, acc[i][1], ep, i, 16,
                                    _mm512_loadu_ps, _mm512_set1_ps);
      }
      _mm512_storeu_ps(row, acc[i][0]);
      _mm512_storeu_ps(row + 16, acc[i][1]);
    }
  }
}

#include "SgemmDriver.h"

/* The depthwise convolution kernel on the same vectors. */
#define DW_VL 16
typedef __m512 dwvec;
static inline dwvec dwLoad(const float *p) { return _mm512_loadu_ps(p); }
static inline void dwStore(float *p, dwvec v) { _mm512_storeu_ps(p, v); }
static inline dwvec dwSplat(float x) { return _mm512_set1_ps(x); }
static inline dwvec dwFma(dwvec a, dwvec b, dwvec c) {
  return _mm512_fmadd_ps(a, b, c);
}

#include "DwconvDriver.h"
