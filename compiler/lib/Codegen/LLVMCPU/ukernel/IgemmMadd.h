/*===- IgemmMadd.h - int8 matmul microkernel on AVX2 vpmaddwd (6 x 16) ----===//
 *
 * Included by SgemmAvx2.c, and by SgemmAvx512.c without VNNI. Both
 * operands are widened to i16 when packed and vpmaddwd adds two products
 * of depth per 32-bit lane: exact (no i16 saturation, unlike vpmaddubsw),
 * no correction. 12 ymm accumulators (6 rows x 2 vectors of 8 columns).
 *===----------------------------------------------------------------------===*/
#include <immintrin.h>
#include <stdint.h>

#include "IgemmParams.h"

#define IG_MR STRATA_IGEMM_MADD_MR
#define IG_NR STRATA_IGEMM_MADD_NR
#define IG_KG STRATA_IGEMM_MADD_KG
#define IG_A_T int16_t
#define IG_B_T int16_t
#define IG_A_SHIFT 0

static inline __attribute__((always_inline)) void
igemmRows(const int16_t *restrict pa, const int16_t *restrict pb,
          int64_t groups, int32_t *restrict c, int64_t ldc,
          const int32_t *restrict correction, int add, const int rows,
          int64_t cols) {
  (void)correction;
  __m256i acc[IG_MR][2];
#pragma clang loop unroll(full)
  for (int i = 0; i < IG_MR; ++i) {
    acc[i][0] = _mm256_setzero_si256();
    acc[i][1] = _mm256_setzero_si256();
  }
  for (int64_t g = 0; g < groups; ++g) {
    __m256i b0 = _mm256_loadu_si256((const __m256i *)(pb + g * IG_NR * 2));
    __m256i b1 = _mm256_loadu_si256((const __m256i *)(pb + g * IG_NR * 2 + 16));
    const int16_t *ag = pa + g * IG_MR * 2;
#pragma clang loop unroll(full)
    for (int i = 0; i < IG_MR; ++i) {
      if (i < rows) {
        int32_t two;
        __builtin_memcpy(&two, ag + i * 2, 4);
        __m256i av = _mm256_set1_epi32(two);
        acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(av, b0));
        acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(av, b1));
      }
    }
  }
  __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256i m0 =
      _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(cols < 8 ? cols : 8)), lane);
  __m256i m1 = _mm256_cmpgt_epi32(
      _mm256_set1_epi32((int)(cols > 8 ? cols - 8 : 0)), lane);
#pragma clang loop unroll(full)
  for (int i = 0; i < IG_MR; ++i) {
    if (i < rows) {
      int *row = (int *)(c + i * ldc);
      __m256i v0 = acc[i][0], v1 = acc[i][1];
      if (add) {
        v0 = _mm256_add_epi32(v0, _mm256_maskload_epi32(row, m0));
        v1 = _mm256_add_epi32(v1, _mm256_maskload_epi32(row + 8, m1));
      }
      _mm256_maskstore_epi32(row, m0, v0);
      _mm256_maskstore_epi32(row + 8, m1, v1);
    }
  }
}

static void igemmTile(const int16_t *restrict pa, const int16_t *restrict pb,
                      int64_t groups, int32_t *restrict c, int64_t ldc,
                      const int32_t *restrict correction, int add, int64_t rows,
                      int64_t cols) {
  switch (rows) {
#define IG_CASE(r)                                                             \
  case r:                                                                      \
    igemmRows(pa, pb, groups, c, ldc, correction, add, r, cols);               \
    return;
    IG_CASE(1)
    IG_CASE(2)
    IG_CASE(3)
    IG_CASE(4)
    IG_CASE(5)
    IG_CASE(6)
#undef IG_CASE
  default:
    return;
  }
}

#include "IgemmDriver.h"
