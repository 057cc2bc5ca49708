/*===- IgemmMadd.h - int8 matmul microkernel on AVX2 vpmaddwd (6 x 16) ----===//
 *
 * Included by SgemmAvx2.c, and by SgemmAvx512.c without VNNI. A is packed
 * widened to i16 pairs; B's panels hold bytes, widened to i16 as they are
 * loaded (vpmovsxbw), and vpmaddwd adds two products of depth per 32-bit
 * lane: exact (no i16 saturation, unlike vpmaddubsw), no correction. 12
 * ymm accumulators (6 rows x 2 vectors of 8 columns). The requantization
 * (STRATA_IGEMM_REQUANTIZE) is applied as the tile is stored.
 *===----------------------------------------------------------------------===*/
#include <immintrin.h>
#include <stdint.h>

#include "IgemmParams.h"
#include "IgemmRequant.h"
#include "IgemmTile.h"

#define IG_MR STRATA_IGEMM_MADD_MR
#define IG_NR STRATA_IGEMM_MADD_NR
#define IG_KG STRATA_IGEMM_MADD_KG
#define IG_A_SHIFT 0
#define IG_PACK_A 1

/* No correction: both operands are signed. */
static void igPanelCorrection(const int8_t *panel, int64_t groups,
                              int32_t *out) {
  (void)panel;
  (void)groups;
  for (int j = 0; j < IG_NR; ++j) {
    out[j] = 0;
  }
}

/* 16 i32 of one row (two vectors) as bytes, the low 8 bits of each. */
static inline void igStoreBytes(int8_t *row, __m256i v0, __m256i v1,
                                int64_t cols) {
  /* Values are within [-128, 255]: the saturating i16 pack keeps them, the
   * mask keeps their low bytes, which the unsigned pack then keeps. */
  __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(v0, v1), 0xD8);
  w = _mm256_and_si256(w, _mm256_set1_epi16(0xFF));
  __m128i bytes = _mm_packus_epi16(_mm256_castsi256_si128(w),
                                   _mm256_extracti128_si256(w, 1));
  if (cols >= 16) {
    _mm_storeu_si128((__m128i *)row, bytes);
    return;
  }
  int8_t lanes[16];
  _mm_storeu_si128((__m128i *)lanes, bytes);
  for (int64_t j = 0; j < cols; ++j) {
    row[j] = lanes[j];
  }
}

static inline __attribute__((always_inline)) void
igemmRows(const int16_t *restrict pa, const int8_t *restrict pb, int64_t groups,
          const struct IgStore *st, const int rows, int64_t cols) {
  __m256i acc[IG_MR][2];
#pragma clang loop unroll(full)
  for (int i = 0; i < IG_MR; ++i) {
    acc[i][0] = _mm256_setzero_si256();
    acc[i][1] = _mm256_setzero_si256();
  }
  for (int64_t g = 0; g < groups; ++g) {
    __m256i b0 = _mm256_cvtepi8_epi16(
        _mm_loadu_si128((const __m128i *)(pb + g * IG_NR * 2)));
    __m256i b1 = _mm256_cvtepi8_epi16(
        _mm_loadu_si128((const __m128i *)(pb + g * IG_NR * 2 + 16)));
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
  if (st->requant) {
    __m256i adj0 = _mm256_maskload_epi32(st->adjust, m0);
    __m256i adj1 = _mm256_maskload_epi32(st->adjust + 8, m1);
    __m256 mul0 = _mm256_maskload_ps(st->multiplier, m0);
    __m256 mul1 = _mm256_maskload_ps(st->multiplier + 8, m1);
    __m256 zero = _mm256_set1_ps(st->zero), lo = _mm256_set1_ps(st->lo),
           hi = _mm256_set1_ps(st->hi);
#pragma clang loop unroll(full)
    for (int i = 0; i < IG_MR; ++i) {
      if (i < rows) {
        igStoreBytes((int8_t *)st->c + i * st->ldc,
                     igRequant256(acc[i][0], adj0, mul0, zero, lo, hi),
                     igRequant256(acc[i][1], adj1, mul1, zero, lo, hi), cols);
      }
    }
    return;
  }
#pragma clang loop unroll(full)
  for (int i = 0; i < IG_MR; ++i) {
    if (i < rows) {
      int *row = (int *)st->c + i * st->ldc;
      __m256i v0 = acc[i][0], v1 = acc[i][1];
      if (st->add) {
        v0 = _mm256_add_epi32(v0, _mm256_maskload_epi32(row, m0));
        v1 = _mm256_add_epi32(v1, _mm256_maskload_epi32(row + 8, m1));
      }
      _mm256_maskstore_epi32(row, m0, v0);
      _mm256_maskstore_epi32(row + 8, m1, v1);
    }
  }
}

static void igemmTile(const void *a, int64_t lda, const int8_t *restrict pb,
                      int64_t k, const struct IgStore *st, int64_t rows,
                      int64_t cols) {
  (void)lda;
  const int16_t *pa = (const int16_t *)a;
  int64_t groups = (k + IG_KG - 1) / IG_KG;
  switch (rows) {
#define IG_CASE(r)                                                             \
  case r:                                                                      \
    igemmRows(pa, pb, groups, st, r, cols);                                    \
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
