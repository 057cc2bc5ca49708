/*===- IgemmVnni.h - int8 matmul microkernel for AVX-512 VNNI (12 x 32) ---===//
 *
 * Included by SgemmAvx512.c when compiled with AVX-512 VNNI. vpdpbusd
 * multiplies unsigned bytes by signed ones, four of depth per 32-bit lane:
 * the kernel reads A in place, four bytes of a row at a time, flips their
 * top bits (a + 128, u8) as it broadcasts them, and subtracts 128 times
 * each column's sum of B. 24 zmm accumulators (12 rows x 2 vectors of 16
 * columns); per depth group two loads of packed B and 12 broadcasts of
 * four A bytes. The requantization (STRATA_IGEMM_REQUANTIZE) is applied to
 * the accumulators as they are stored (igStoreRow, which the AMX kernel
 * shares). IgemmAmx.h includes this file with IG_VNNI_NO_DRIVER defined:
 * it takes the rows AMX tiles do not fill, with its own driver.
 *===----------------------------------------------------------------------===*/
#include <immintrin.h>
#include <stdint.h>

#include "IgemmParams.h"
#include "IgemmRequant.h"
#include "IgemmTile.h"

#ifndef IG_VNNI_NO_DRIVER
#define IG_MR STRATA_IGEMM_VNNI_MR
#define IG_NR STRATA_IGEMM_VNNI_NR
#define IG_KG STRATA_IGEMM_VNNI_KG
#define IG_A_SHIFT 128
#define IG_PACK_A 0
#endif

/* 128 times the column sums of a packed panel: vpdpbusd of ones. */
static void igPanelCorrection(const int8_t *panel, int64_t groups,
                              int32_t *out) {
  __m512i ones = _mm512_set1_epi8(1);
  __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
  for (int64_t g = 0; g < groups; ++g) {
    s0 = _mm512_dpbusd_epi32(
        s0, ones, _mm512_loadu_si512((const void *)(panel + g * 128)));
    s1 = _mm512_dpbusd_epi32(
        s1, ones, _mm512_loadu_si512((const void *)(panel + g * 128 + 64)));
  }
  _mm512_storeu_si512((void *)out, _mm512_slli_epi32(s0, 7));
  _mm512_storeu_si512((void *)(out + 16), _mm512_slli_epi32(s1, 7));
}

/* The four bytes of depth [start, start + 4) of a row, those at or past
 * its k-th zero. */
static inline int32_t igTail(const int8_t *row, int64_t start, int64_t k) {
  uint32_t word = 0;
  for (int64_t t = 0; t < 4 && start + t < k; ++t) {
    word |= (uint32_t)(uint8_t)row[start + t] << (8 * t);
  }
  return (int32_t)word;
}

/* What storing the rows of one tile (32 columns, two vectors) needs, read
 * once per tile: the column masks, and either the correction or the
 * requantization's constants (the adjustment less the correction). */
struct IgRowStore {
  __mmask16 m0, m1;
  __m512i k0, k1;    /* subtracted (i32 C) or added (requant) */
  __m512 mul0, mul1; /* requant: the multipliers */
  __m512 zero, lo, hi;
};

/* The constants of a tile's columns [0, cols); `correct` 0 leaves the
 * correction out (products exact without it: AMX's tdpbssd). */
static inline __attribute__((always_inline)) void
igPrepareStore(const struct IgStore *st, int64_t cols, int correct,
               struct IgRowStore *rs) {
  rs->m0 = cols >= 16 ? 0xFFFF : (__mmask16)((1u << cols) - 1);
  rs->m1 = cols >= 32 ? 0xFFFF
                      : (cols > 16 ? (__mmask16)((1u << (cols - 16)) - 1) : 0);
  __m512i k0 = _mm512_setzero_si512(), k1 = _mm512_setzero_si512();
  if (correct) {
    k0 = _mm512_loadu_si512((const void *)st->correction);
    k1 = _mm512_loadu_si512((const void *)(st->correction + 16));
  }
  if (st->requant) {
    rs->k0 = _mm512_sub_epi32(_mm512_maskz_loadu_epi32(rs->m0, st->adjust), k0);
    rs->k1 =
        _mm512_sub_epi32(_mm512_maskz_loadu_epi32(rs->m1, st->adjust + 16), k1);
    rs->mul0 = _mm512_maskz_loadu_ps(rs->m0, st->multiplier);
    rs->mul1 = _mm512_maskz_loadu_ps(rs->m1, st->multiplier + 16);
    rs->zero = _mm512_set1_ps(st->zero);
    rs->lo = _mm512_set1_ps(st->lo);
    rs->hi = _mm512_set1_ps(st->hi);
  } else {
    rs->k0 = _mm512_sub_epi32(_mm512_setzero_si512(), k0);
    rs->k1 = _mm512_sub_epi32(_mm512_setzero_si512(), k1);
  }
}

/* Row i of the tile from its accumulators v0 (columns 0-15) and v1
 * (16-31): requantized to i8, or i32 added to or stored over C. */
static inline __attribute__((always_inline)) void
igStoreRow(const struct IgStore *st, const struct IgRowStore *rs, int64_t i,
           __m512i v0, __m512i v1) {
  if (st->requant) {
    int8_t *row = (int8_t *)st->c + i * st->ldc;
    _mm512_mask_cvtepi32_storeu_epi8(
        row, rs->m0,
        igRequant512(v0, rs->k0, rs->mul0, rs->zero, rs->lo, rs->hi));
    _mm512_mask_cvtepi32_storeu_epi8(
        row + 16, rs->m1,
        igRequant512(v1, rs->k1, rs->mul1, rs->zero, rs->lo, rs->hi));
    return;
  }
  v0 = _mm512_add_epi32(v0, rs->k0);
  v1 = _mm512_add_epi32(v1, rs->k1);
  int32_t *row = (int32_t *)st->c + i * st->ldc;
  if (st->add) {
    v0 = _mm512_add_epi32(v0, _mm512_maskz_loadu_epi32(rs->m0, row));
    v1 = _mm512_add_epi32(v1, _mm512_maskz_loadu_epi32(rs->m1, row + 16));
  }
  _mm512_mask_storeu_epi32(row, rs->m0, v0);
  _mm512_mask_storeu_epi32(row + 16, rs->m1, v1);
}

static inline __attribute__((always_inline)) void
igemmRows(const int8_t *restrict a, int64_t lda, const int8_t *restrict pb,
          int64_t k, const struct IgStore *st, const int rows, int64_t cols) {
  __m512i acc[STRATA_IGEMM_VNNI_MR][2];
#pragma clang loop unroll(full)
  for (int i = 0; i < STRATA_IGEMM_VNNI_MR; ++i) {
    acc[i][0] = _mm512_setzero_si512();
    acc[i][1] = _mm512_setzero_si512();
  }
  const __m512i flip = _mm512_set1_epi32((int32_t)0x80808080u);
  int64_t full = k / 4;
  for (int64_t g = 0; g < full; ++g) {
    __m512i b0 = _mm512_loadu_si512((const void *)(pb + g * 128));
    __m512i b1 = _mm512_loadu_si512((const void *)(pb + g * 128 + 64));
#pragma clang loop unroll(full)
    for (int i = 0; i < STRATA_IGEMM_VNNI_MR; ++i) {
      if (i < rows) {
        int32_t four;
        __builtin_memcpy(&four, a + i * lda + g * 4, 4);
        __m512i av = _mm512_xor_si512(_mm512_set1_epi32(four), flip);
        acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], av, b0);
        acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], av, b1);
      }
    }
  }
  if (k % 4) {
    __m512i b0 = _mm512_loadu_si512((const void *)(pb + full * 128));
    __m512i b1 = _mm512_loadu_si512((const void *)(pb + full * 128 + 64));
#pragma clang loop unroll(full)
    for (int i = 0; i < STRATA_IGEMM_VNNI_MR; ++i) {
      if (i < rows) {
        __m512i av = _mm512_xor_si512(
            _mm512_set1_epi32(igTail(a + i * lda, full * 4, k)), flip);
        acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], av, b0);
        acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], av, b1);
      }
    }
  }
  struct IgRowStore rs;
  igPrepareStore(st, cols, 1, &rs);
#pragma clang loop unroll(full)
  for (int i = 0; i < STRATA_IGEMM_VNNI_MR; ++i) {
    if (i < rows) {
      igStoreRow(st, &rs, i, acc[i][0], acc[i][1]);
    }
  }
}

/* igemmRows with a constant row count: one unrolled kernel per count. */
static void igemmVnniTile(const void *a, int64_t lda, const int8_t *restrict pb,
                          int64_t k, const struct IgStore *st, int64_t rows,
                          int64_t cols) {
  switch (rows) {
#define IG_CASE(r)                                                             \
  case r:                                                                      \
    igemmRows((const int8_t *)a, lda, pb, k, st, r, cols);                     \
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

#ifndef IG_VNNI_NO_DRIVER
#define igemmTile igemmVnniTile
#include "IgemmDriver.h"
#endif
