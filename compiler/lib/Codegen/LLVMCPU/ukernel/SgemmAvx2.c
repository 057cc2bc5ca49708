/*===- SgemmAvx2.c - f32 matmul microkernel for AVX2 + FMA (6 x 16) -------===//
 *
 * 12 ymm accumulators (6 rows x 2 vectors of 8 columns), two loads of packed
 * B and 6 broadcasts of packed A per k step.
 *===----------------------------------------------------------------------===*/
#include <immintrin.h>
#include <stdint.h>

#include "SgemmEpilogue.h"
#include "SgemmParams.h"

#define MR STRATA_SGEMM_AVX2_MR
#define NR STRATA_SGEMM_AVX2_NR

/* Rows [0, rows) of one MR x NR tile of C (rows is a constant after
 * inlining: each count gets its own fully unrolled kernel, so an edge panel
 * of few rows costs only those rows). */
static inline __attribute__((always_inline)) void
microRows(int64_t kc, const float *restrict pa, const float *restrict pb,
          int64_t ldb, float *restrict c, int64_t ldc, int add,
          const struct TileEpilogue *ep, const int rows) {
  __m256 acc[MR][2];
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = _mm256_setzero_ps();
    acc[i][1] = _mm256_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    __m256 b0 = _mm256_loadu_ps(pb);
    __m256 b1 = _mm256_loadu_ps(pb + 8);
#pragma clang loop unroll(full)
    for (int i = 0; i < MR; ++i) {
      if (i < rows) {
        __m256 ai = _mm256_broadcast_ss(pa + i * STRATA_SGEMM_A_ROW_STRIDE);
        acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
        acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
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
        acc[i][0] = _mm256_add_ps(acc[i][0], _mm256_loadu_ps(row));
        acc[i][1] = _mm256_add_ps(acc[i][1], _mm256_loadu_ps(row + 8));
      }
      if (ep) {
        STRATA_SGEMM_APPLY_EPILOGUE(__m256, acc[i][0], ep, i, 0,
                                    _mm256_loadu_ps, _mm256_set1_ps);
        STRATA_SGEMM_APPLY_EPILOGUE(__m256, acc[i][1], ep, i, 8,
                                    _mm256_loadu_ps, _mm256_set1_ps);
      }
      _mm256_storeu_ps(row, acc[i][0]);
      _mm256_storeu_ps(row + 8, acc[i][1]);
    }
  }
}

#include "SgemmDriver.h"

/* The depthwise convolution kernel on the same vectors. */
#define DW_VL 8
typedef __m256 dwvec;
static inline dwvec dwLoad(const float *p) { return _mm256_loadu_ps(p); }
static inline void dwStore(float *p, dwvec v) { _mm256_storeu_ps(p, v); }
static inline dwvec dwSplat(float x) { return _mm256_set1_ps(x); }
static inline dwvec dwFma(dwvec a, dwvec b, dwvec c) {
  return _mm256_fmadd_ps(a, b, c);
}

#include "DwconvDriver.h"
