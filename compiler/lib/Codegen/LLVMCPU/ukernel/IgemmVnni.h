/*===- IgemmVnni.h - int8 matmul microkernel for AVX-512 VNNI (12 x 32) ---===//
 *
 * Included by SgemmAvx512.c when compiled with AVX-512 VNNI. vpdpbusd
 * multiplies unsigned bytes by signed ones, four of depth per 32-bit lane:
 * A is packed as a + 128 (u8) and the tile subtracts 128 times each
 * column's sum of B. 24 zmm accumulators (12 rows x 2 vectors of 16
 * columns); per depth group two loads of packed B and 12 broadcasts of
 * four A bytes.
 *===----------------------------------------------------------------------===*/
#include <immintrin.h>
#include <stdint.h>

#include "IgemmParams.h"

#define IG_MR STRATA_IGEMM_VNNI_MR
#define IG_NR STRATA_IGEMM_VNNI_NR
#define IG_KG STRATA_IGEMM_VNNI_KG
#define IG_A_T uint8_t
#define IG_B_T int8_t
#define IG_A_SHIFT 128

static inline __attribute__((always_inline)) void
igemmRows(const uint8_t *restrict pa, const int8_t *restrict pb, int64_t groups,
          int32_t *restrict c, int64_t ldc, const int32_t *restrict correction,
          int add, const int rows, int64_t cols) {
  __m512i acc[IG_MR][2];
#pragma clang loop unroll(full)
  for (int i = 0; i < IG_MR; ++i) {
    acc[i][0] = _mm512_setzero_si512();
    acc[i][1] = _mm512_setzero_si512();
  }
  for (int64_t g = 0; g < groups; ++g) {
    __m512i b0 = _mm512_loadu_si512((const void *)(pb + g * IG_NR * 4));
    __m512i b1 = _mm512_loadu_si512((const void *)(pb + g * IG_NR * 4 + 64));
    const uint8_t *ag = pa + g * IG_MR * 4;
#pragma clang loop unroll(full)
    for (int i = 0; i < IG_MR; ++i) {
      if (i < rows) {
        int32_t four;
        __builtin_memcpy(&four, ag + i * 4, 4);
        __m512i av = _mm512_set1_epi32(four);
        acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], av, b0);
        acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], av, b1);
      }
    }
  }
  __mmask16 m0 = cols >= 16 ? 0xFFFF : (__mmask16)((1u << cols) - 1);
  __mmask16 m1 = cols >= 32
                     ? 0xFFFF
                     : (cols > 16 ? (__mmask16)((1u << (cols - 16)) - 1) : 0);
  __m512i k0 = _mm512_loadu_si512((const void *)correction);
  __m512i k1 = _mm512_loadu_si512((const void *)(correction + 16));
#pragma clang loop unroll(full)
  for (int i = 0; i < IG_MR; ++i) {
    if (i < rows) {
      int32_t *row = c + i * ldc;
      __m512i v0 = _mm512_sub_epi32(acc[i][0], k0);
      __m512i v1 = _mm512_sub_epi32(acc[i][1], k1);
      if (add) {
        v0 = _mm512_add_epi32(v0, _mm512_maskz_loadu_epi32(m0, row));
        v1 = _mm512_add_epi32(v1, _mm512_maskz_loadu_epi32(m1, row + 16));
      }
      _mm512_mask_storeu_epi32(row, m0, v0);
      _mm512_mask_storeu_epi32(row + 16, m1, v1);
    }
  }
}

/* igemmRows with a constant row count: one unrolled kernel per count. */
static void igemmTile(const uint8_t *restrict pa, const int8_t *restrict pb,
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
    IG_CASE(7)
    IG_CASE(8)
    IG_CASE(9)
    IG_CASE(10)
    IG_CASE(11)
    IG_CASE(12)
#undef IG_CASE
  default:
    return;
  }
}

#include "IgemmDriver.h"
