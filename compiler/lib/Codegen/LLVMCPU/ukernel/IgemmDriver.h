/*===- IgemmDriver.h - the int8 matmul around a microkernel ---------------===//
 *
 * Included by a variant after it defines IG_MR, IG_NR, IG_KG, IG_A_SHIFT
 * (what the kernel adds to each A value: 128 for vpdpbusd, whose left
 * operand is unsigned, 0 otherwise; the correction of column j is
 * IG_A_SHIFT times its sum), IG_PACK_A (1: A is packed into a row panel of
 * i16 pairs, igPackA; 0: the kernel reads A in place), and
 *   igPanelCorrection(const int8_t *panel, int64_t groups, int32_t *out)
 *     the NR corrections of a packed B panel;
 *   igemmTile(const void *a, int64_t lda, const int8_t *pb, int64_t k,
 *             const struct IgStore *st, int64_t rows, int64_t cols)
 *     rows [0, rows) and columns [0, cols) of one IG_MR x IG_NR tile of C
 *     from A (in place: row r at a + r * lda; packed: depth group g of
 *     row r at ((const int16_t *)a)[(g * IG_MR + r) * 2]) and a B panel
 *     (depth group g of column j at pb[(g * IG_NR + j) * IG_KG]), stored
 *     as st says.
 *
 * B is read from its compile-time panels (STRATA_IGEMM_PACKED_B) or
 * packed once per call (with its column sums); depth past k is zero in
 * B, so what A holds there does not matter. Builds freestanding: no C
 * library.
 *
 * A variant may also define IG_KMULTIPLE (the panels' depth is k rounded
 * up to a multiple of it; default IG_KG), IG_NEEDS_CORRECTION(m) (whether
 * a call of m rows reads the corrections; default 1), and the hooks
 * IG_CALL_BEGIN() (before the first tile), IG_ROWS_BEGIN(a, lda, rows, k)
 * (before each row block's tiles, with the block's A) and IG_CALL_END()
 * (after the last tile).
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "IgemmParams.h"
#include "IgemmTile.h"

#ifndef IG_KMULTIPLE
#define IG_KMULTIPLE IG_KG
#endif
#ifndef IG_NEEDS_CORRECTION
#define IG_NEEDS_CORRECTION(m) 1
#endif
#ifndef IG_CALL_BEGIN
#define IG_CALL_BEGIN()
#endif
#ifndef IG_ROWS_BEGIN
#define IG_ROWS_BEGIN(a, lda, rows, k)
#endif
#ifndef IG_CALL_END
#define IG_CALL_END()
#endif

static inline int64_t igMin(int64_t a, int64_t b) { return a < b ? a : b; }

static void igPackB(const int8_t *b, int64_t ldb, int64_t n, int64_t k,
                    int64_t groups, int8_t *restrict pb,
                    int32_t *restrict correction) {
  int64_t panels = (n + IG_NR - 1) / IG_NR;
  for (int64_t p = 0; p < panels; ++p) {
    int8_t *panel = pb + p * groups * IG_NR * IG_KG;
    int64_t cols = igMin(IG_NR, n - p * IG_NR);
    int32_t sums[IG_NR];
    for (int64_t j = 0; j < IG_NR; ++j) {
      sums[j] = 0;
    }
    /* Rows of B in order (contiguous reads), each spread over the depth
     * group's lanes. */
    for (int64_t g = 0; g < groups; ++g) {
      int8_t *out = panel + g * IG_NR * IG_KG;
      for (int64_t t = 0; t < IG_KG; ++t) {
        int64_t depth = g * IG_KG + t;
        if (depth < k && cols == IG_NR) {
          const int8_t *row = b + depth * ldb + p * IG_NR;
          for (int64_t j = 0; j < IG_NR; ++j) {
            out[j * IG_KG + t] = row[j];
            sums[j] += row[j];
          }
          continue;
        }
        for (int64_t j = 0; j < IG_NR; ++j) {
          int8_t v = j < cols && depth < k ? b[depth * ldb + p * IG_NR + j] : 0;
          out[j * IG_KG + t] = v;
          sums[j] += v;
        }
      }
    }
    for (int64_t j = 0; j < IG_NR; ++j) {
      correction[p * IG_NR + j] = IG_A_SHIFT * sums[j];
    }
  }
}

#if IG_PACK_A
/* Rows [0, rows) of A into an IG_MR-row panel of i16 pairs, zeros below
 * and past k. */
static void igPackA(const int8_t *a, int64_t lda, int64_t rows, int64_t k,
                    int64_t groups, int16_t *restrict pa) {
  for (int64_t r = 0; r < IG_MR; ++r) {
    const int8_t *row = a + r * lda;
    int64_t full = r < rows ? k / 2 : 0;
    for (int64_t g = 0; g < full; ++g) {
      pa[(g * IG_MR + r) * 2] = row[2 * g];
      pa[(g * IG_MR + r) * 2 + 1] = row[2 * g + 1];
    }
    for (int64_t g = full; g < groups; ++g) {
      for (int64_t t = 0; t < 2; ++t) {
        int64_t depth = g * 2 + t;
        pa[(g * IG_MR + r) * 2 + t] = r < rows && depth < k ? row[depth] : 0;
      }
    }
  }
}
#endif

static inline uintptr_t igAlign64(uintptr_t p) {
  return (p + 63) & ~(uintptr_t)63;
}

void strata_ukernel_igemm_s8(int64_t aBase, int64_t aOffset, int64_t lda,
                             int64_t bBase, int64_t bOffset, int64_t ldb,
                             int64_t cBase, int64_t cOffset, int64_t ldc,
                             int64_t m, int64_t n, int64_t k, int64_t flags,
                             int64_t scratch, int64_t adjust,
                             int64_t multiplier, int64_t zeroBits,
                             int64_t loBits, int64_t hiBits) {
  const int8_t *a = (const int8_t *)(uintptr_t)aBase + aOffset;
  const int8_t *b = (const int8_t *)(uintptr_t)bBase + bOffset;
  if (m <= 0 || n <= 0) {
    return;
  }
  struct IgStore st;
  st.adjust = 0;
  st.aTail = 0;
  st.aPad = 0;
  st.multiplier = 0;
  st.requant = (flags & STRATA_IGEMM_REQUANTIZE) != 0;
  st.add = !st.requant && (flags & STRATA_IGEMM_ACCUMULATE) != 0;
  int64_t elemBytes = st.requant ? 1 : 4;
  char *c = (char *)(uintptr_t)cBase + cOffset * elemBytes;
  st.ldc = ldc;
  union {
    uint32_t bits;
    float value;
  } zero = {(uint32_t)zeroBits}, lo = {(uint32_t)loBits},
    hi = {(uint32_t)hiBits};
  st.zero = zero.value;
  st.lo = lo.value;
  st.hi = hi.value;
  int64_t groups = STRATA_IGEMM_ROUND_UP(k, IG_KMULTIPLE) / IG_KG;
  int64_t panels = (n + IG_NR - 1) / IG_NR;
  int64_t panelBytes = groups * IG_NR * IG_KG;
  uintptr_t s = igAlign64((uintptr_t)scratch);
  const int8_t *pb = b;
  int8_t *packed = (int8_t *)s;
  if (!(flags & STRATA_IGEMM_PACKED_B)) {
    s = igAlign64(s + (uintptr_t)(panels * panelBytes));
  }
  int32_t *correction = (int32_t *)s;
  s = igAlign64(s + (uintptr_t)(panels * IG_NR) * sizeof(int32_t));
  if (flags & STRATA_IGEMM_PACKED_B) {
    for (int64_t p = 0; IG_NEEDS_CORRECTION(m) && p < panels; ++p) {
      igPanelCorrection(pb + p * panelBytes, groups, correction + p * IG_NR);
    }
  } else {
    igPackB(b, ldb, n, k, groups, packed, correction);
    pb = packed;
  }
#if IG_PACK_A
  int16_t *pa = (int16_t *)s;
#endif
  IG_CALL_BEGIN();
  for (int64_t i = 0; i < m; i += IG_MR) {
    int64_t rows = igMin(IG_MR, m - i);
#if IG_PACK_A
    igPackA(a + i * lda, lda, rows, k, groups, pa);
    const void *tileA = pa;
#else
    const void *tileA = a + i * lda;
#endif
    IG_ROWS_BEGIN(a + i * lda, lda, rows, k);
    for (int64_t p = 0; p < panels; ++p) {
      int64_t column = p * IG_NR;
      st.c = c + (i * ldc + column) * elemBytes;
      st.correction = correction + column;
      if (st.requant) {
        st.adjust = (const int32_t *)(uintptr_t)adjust + column;
        st.multiplier = (const float *)(uintptr_t)multiplier + column;
      }
      igemmTile(tileA, lda, pb + p * panelBytes, k, &st, rows,
                igMin(IG_NR, n - column));
    }
  }
  IG_CALL_END();
}
