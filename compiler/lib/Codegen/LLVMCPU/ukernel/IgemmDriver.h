/*===- IgemmDriver.h - the int8 matmul around a microkernel ---------------===//
 *
 * Included by a variant after it defines IG_MR, IG_NR, IG_KG, the packed
 * element types IG_A_T and IG_B_T, IG_A_SHIFT (what packing adds to each
 * A value: 128 for vpdpbusd, whose left operand is unsigned, 0 otherwise)
 * and
 *   igemmTile(const IG_A_T *pa, const IG_B_T *pb, int64_t groups,
 *             int32_t *c, int64_t ldc, const int32_t *correction,
 *             int add, int64_t rows, int64_t cols)
 * which computes rows [0, rows) and columns [0, cols) of one IG_MR x IG_NR
 * tile of C from a packed A panel (depth group g of row r at
 * pa[(g * IG_MR + r) * IG_KG]) and a packed B panel (depth group g of
 * column j at pb[(g * IG_NR + j) * IG_KG]), subtracts correction[j] (IG_A_SHIFT
 * times column j's sum) and overwrites C, or adds to it when `add` is set.
 *
 * B is packed once per call (its column sums with it), A one row panel at
 * a time; depth past k is zero in B, so A's padding does not matter.
 * Builds freestanding: no C library.
 *===----------------------------------------------------------------------===*/
#include <stdint.h>

#include "IgemmParams.h"

static inline int64_t igMin(int64_t a, int64_t b) { return a < b ? a : b; }

static void igPackB(const int8_t *b, int64_t ldb, int64_t n, int64_t k,
                    int64_t groups, IG_B_T *restrict pb,
                    int32_t *restrict correction) {
  int64_t panels = (n + IG_NR - 1) / IG_NR;
  for (int64_t p = 0; p < panels; ++p) {
    IG_B_T *panel = pb + p * groups * IG_NR * IG_KG;
    int64_t cols = igMin(IG_NR, n - p * IG_NR);
    int32_t sums[IG_NR];
    for (int64_t j = 0; j < IG_NR; ++j) {
      sums[j] = 0;
    }
    /* Rows of B in order (contiguous reads), each spread over the depth
     * group's lanes. */
    for (int64_t g = 0; g < groups; ++g) {
      IG_B_T *out = panel + g * IG_NR * IG_KG;
      for (int64_t t = 0; t < IG_KG; ++t) {
        int64_t depth = g * IG_KG + t;
        if (depth < k && cols == IG_NR) {
          const int8_t *row = b + depth * ldb + p * IG_NR;
          for (int64_t j = 0; j < IG_NR; ++j) {
            out[j * IG_KG + t] = (IG_B_T)row[j];
            sums[j] += row[j];
          }
          continue;
        }
        for (int64_t j = 0; j < IG_NR; ++j) {
          int8_t v = j < cols && depth < k ? b[depth * ldb + p * IG_NR + j] : 0;
          out[j * IG_KG + t] = (IG_B_T)v;
          sums[j] += v;
        }
      }
    }
    for (int64_t j = 0; j < IG_NR; ++j) {
      correction[p * IG_NR + j] = IG_A_SHIFT * sums[j];
    }
  }
}

static void igPackA(const int8_t *a, int64_t lda, int64_t rows, int64_t k,
                    int64_t groups, IG_A_T *restrict pa) {
  for (int64_t r = 0; r < IG_MR; ++r) {
    const int8_t *row = a + r * lda;
    if (r >= rows) {
      for (int64_t d = 0; d < groups * IG_KG; ++d) {
        pa[((d / IG_KG) * IG_MR + r) * IG_KG + d % IG_KG] = 0;
      }
      continue;
    }
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t t = 0; t < IG_KG; ++t) {
        int64_t depth = g * IG_KG + t;
        int32_t v = depth < k ? row[depth] + IG_A_SHIFT : 0;
        pa[(g * IG_MR + r) * IG_KG + t] = (IG_A_T)v;
      }
    }
  }
}

static inline uintptr_t igAlign64(uintptr_t p) {
  return (p + 63) & ~(uintptr_t)63;
}

void strata_ukernel_igemm_s8(int64_t aBase, int64_t aOffset, int64_t lda,
                             int64_t bBase, int64_t bOffset, int64_t ldb,
                             int64_t cBase, int64_t cOffset, int64_t ldc,
                             int64_t m, int64_t n, int64_t k, int64_t flags,
                             int64_t scratch) {
  const int8_t *a = (const int8_t *)(uintptr_t)aBase + aOffset;
  const int8_t *b = (const int8_t *)(uintptr_t)bBase + bOffset;
  int32_t *c = (int32_t *)(uintptr_t)cBase + cOffset;
  int add = (flags & STRATA_IGEMM_ACCUMULATE) != 0;
  if (m <= 0 || n <= 0) {
    return;
  }
  int64_t groups = (k + IG_KG - 1) / IG_KG;
  int64_t panels = (n + IG_NR - 1) / IG_NR;
  uintptr_t s = igAlign64((uintptr_t)scratch);
  IG_B_T *pb = (IG_B_T *)s;
  s = igAlign64(s +
                (uintptr_t)(panels * groups * IG_NR * IG_KG) * sizeof(IG_B_T));
  int32_t *correction = (int32_t *)s;
  s = igAlign64(s + (uintptr_t)(panels * IG_NR) * sizeof(int32_t));
  IG_A_T *pa = (IG_A_T *)s;
  igPackB(b, ldb, n, k, groups, pb, correction);
  for (int64_t i = 0; i < m; i += IG_MR) {
    int64_t rows = igMin(IG_MR, m - i);
    igPackA(a + i * lda, lda, rows, k, groups, pa);
    for (int64_t p = 0; p < panels; ++p) {
      igemmTile(pa, pb + p * groups * IG_NR * IG_KG, groups,
                c + i * ldc + p * IG_NR, ldc, correction + p * IG_NR, add, rows,
                igMin(IG_NR, n - p * IG_NR));
    }
  }
}
