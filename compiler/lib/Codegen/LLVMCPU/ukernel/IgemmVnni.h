/*===- IgemmVnni.h - int8 matmul microkernel for AVX-512 VNNI (12 x 32) ---===//
 *
 * Included by SgemmAvx512.c when compiled with AVX-512 VNNI. vpdpbusd
 * multiplies unsigned bytes by signed ones, four of depth per 32-bit lane:
 * the kernel reads A in place, four bytes of a row at a time, flips their
 * top bits (a + 128, u8) as it broadcasts them, and subtracts 128 times
 * each column's sum of B. 24 zmm accumulators (12 rows x 2 vectors of 16
 * columns); per depth group two loads of packed B and 12 broadcasts of
 * four A bytes. The requantization (STRATA_IGEMM_REQUANTIZE) is applied to
 * the accumulators as they are stored.
 *===----------------------------------------------------------------------===*/
#include <immintrin.h>
#include <stdint.h>

#include "IgemmParams.h"
#include "IgemmTile.h"

#define IG_MR STRATA_IGEMM_VNNI_MR
#define IG_NR STRATA_IGEMM_VNNI_NR
#define IG_KG STRATA_IGEMM_VNNI_KG
#define IG_A_SHIFT 128
#define IG_PACK_A 0

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

static inline __attribute__((always_inline)) void
igemmRows(const int8_t *restrict a, int64_t lda, const int8_t *restrict pb,
          int64_t k, const struct IgStore *st, const int rows, int64_t cols) {
  __m512i acc[IG_MR][2];
#pragma clang loop unroll(full)
  for (int i = 0; i < IG_MR; ++i) {
    acc[i][0] = _mm512_setzero_si512();
    acc[i][1] = _mm512_setzero_si512();
  }
  const __m512i flip = _mm512_set1_epi32((int32_t)0x80808080u);
  int64_t full = k / 4;
  for (int64_t g = 0; g < full; ++g) {
    __m512i b0 = _mm512_loadu_si512((const void *)(pb + g * IG_NR * 4));
    __m512i b1 = _mm512_loadu_si512((const void *)(pb + g * IG_NR * 4 + 64));
#pragma clang loop unroll(full)
    for (int i = 0; i < IG_MR; ++i) {
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
    __m512i b0 = _mm512_loadu_si512((const void *)(pb + full * IG_NR * 4));
    __m512i b1 = _mm512_loadu_si512((const void *)(pb + full * IG_NR * 4 + 64));
#pragma clang loop unroll(full)
    for (int i = 0; i < IG_MR; ++i) {
      if (i < rows) {
        __m512i av = _mm512_xor_si512(
            _mm512_set1_epi32(igTail(a + i * lda, full * 4, k)), flip);
        acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], av, b0);
        acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], av, b1);
      }
    }
  }
  __mmask16 m0 = cols >= 16 ? 0xFFFF : (__mmask16)((1u << cols) - 1);
  __mmask16 m1 = cols >= 32
                     ? 0xFFFF
                     : (cols > 16 ? (__mmask16)((1u << (cols - 16)) - 1) : 0);
  __m512i k0 = _mm512_loadu_si512((const void *)st->correction);
  __m512i k1 = _mm512_loadu_si512((const void *)(st->correction + 16));
  if (st->requant) {
    /* The adjustment less the correction, then the f32 steps. */
    __m512i adj0 =
        _mm512_sub_epi32(_mm512_maskz_loadu_epi32(m0, st->adjust), k0);
    __m512i adj1 =
        _mm512_sub_epi32(_mm512_maskz_loadu_epi32(m1, st->adjust + 16), k1);
    __m512 mul0 = _mm512_maskz_loadu_ps(m0, st->multiplier);
    __m512 mul1 = _mm512_maskz_loadu_ps(m1, st->multiplier + 16);
    __m512 zero = _mm512_set1_ps(st->zero), lo = _mm512_set1_ps(st->lo),
           hi = _mm512_set1_ps(st->hi);
#pragma clang loop unroll(full)
    for (int i = 0; i < IG_MR; ++i) {
      if (i < rows) {
        int8_t *row = (int8_t *)st->c + i * st->ldc;
        __m512 f0 = _mm512_mul_ps(
            _mm512_cvtepi32_ps(_mm512_add_epi32(acc[i][0], adj0)), mul0);
        __m512 f1 = _mm512_mul_ps(
            _mm512_cvtepi32_ps(_mm512_add_epi32(acc[i][1], adj1)), mul1);
        f0 = _mm512_roundscale_ps(f0, _MM_FROUND_TO_NEAREST_INT |
                                          _MM_FROUND_NO_EXC);
        f1 = _mm512_roundscale_ps(f1, _MM_FROUND_TO_NEAREST_INT |
                                          _MM_FROUND_NO_EXC);
        f0 = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(f0, zero), lo), hi);
        f1 = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(f1, zero), lo), hi);
        _mm512_mask_cvtepi32_storeu_epi8(row, m0, _mm512_cvttps_epi32(f0));
        _mm512_mask_cvtepi32_storeu_epi8(row + 16, m1, _mm512_cvttps_epi32(f1));
      }
    }
    return;
  }
#pragma clang loop unroll(full)
  for (int i = 0; i < IG_MR; ++i) {
    if (i < rows) {
      int32_t *row = (int32_t *)st->c + i * st->ldc;
      __m512i v0 = _mm512_sub_epi32(acc[i][0], k0);
      __m512i v1 = _mm512_sub_epi32(acc[i][1], k1);
      if (st->add) {
        v0 = _mm512_add_epi32(v0, _mm512_maskz_loadu_epi32(m0, row));
        v1 = _mm512_add_epi32(v1, _mm512_maskz_loadu_epi32(m1, row + 16));
      }
      _mm512_mask_storeu_epi32(row, m0, v0);
      _mm512_mask_storeu_epi32(row + 16, m1, v1);
    }
  }
}

/* igemmRows with a constant row count: one unrolled kernel per count. */
static void igemmTile(const void *a, int64_t lda, const int8_t *restrict pb,
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

#include "IgemmDriver.h"
