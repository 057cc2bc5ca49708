/*===- SgemmRuns.h - where a microkernel tile's depth lies in A ----------===//
 *
 * The depth of one microkernel call, [0, kc), split into runs that are
 * contiguous in each row of A: run r covers length[r] depth steps starting
 * offset[r] floats from the row's start (rows lda apart), against B's rows
 * from depth[r] on. Packed A and a matrix read in place are one run; a
 * convolution read in place has a run per window row (or per tap when the
 * pixels are not dense), each row of A being an output pixel, and skips
 * the taps that fall in the zero padding: B's rows of those are passed
 * over (depth[r] past the previous run's end; SgemmDriver.h).
 *===----------------------------------------------------------------------===*/
#ifndef STRATA_UKERNEL_SGEMM_RUNS_H_
#define STRATA_UKERNEL_SGEMM_RUNS_H_

#include <stdint.h>

#include "SgemmParams.h"

struct ARuns {
  int64_t count;
  const int64_t *offset;
  const int64_t *length;
  const int64_t *depth;
  /* A matrix or a convolution read in place: where the next row panel's
   * A starts at this depth, or 0. The microkernel prefetches its lines
   * while it computes this tile (sgemmPrefetchNext below): read in place,
   * a panel's rows are read side by side, which the hardware prefetchers
   * do not follow. It walks nextRows rows nextStride floats apart (a
   * matrix: the panel's rows; a convolution: the window rows of the next
   * tile's pixels, input rows apart), a line of each in turn, then the
   * next 16 floats of each, over nextSpan floats of every row. */
  const float *next;
  int64_t nextStride;
  int64_t nextRows;
  int64_t nextSpan;
  /* What the depth steps prefetch into L2: one address a step, starting
   * here and advancing bPrefetchStep bytes a step. By default B's own rows
   * STRATA_SGEMM_B_PREFETCH_ROWS ahead (sgemmBPrefetch); the driver points
   * it instead at this tile's share of the next B panel when B packed at
   * compile time streams from memory, so that those lines arrive spread
   * over the tile's steps rather than in a burst that stalls on the
   * memory system (SgemmDriver.h). */
  const char *bPrefetch;
  int64_t bPrefetchStep;
  /* A tile of a convolution read in place whose rows are the pixels of
   * two output rows (SgemmDriver.h, pairsOutputRows): the floats from the
   * tile's first pixel to the first pixel of its second output row, whose
   * pixels are its rows from `split` on (a constant of the variant's
   * microRows, MR / 2); 0 otherwise. */
  int64_t pairOffset;
};

/* Row i of a tile's A at a depth step: rows lda floats apart from a; in a
 * tile of two output rows (split > 0, a constant), rows from split on lda
 * floats apart from a2, the second output row's first pixel at that step
 * (a + runs->pairOffset). */
#define STRATA_SGEMM_A_ROW(a, a2, i, lda, split)                               \
  ((split) > 0 && (i) >= (split) ? (a2) + ((i) - (split)) * (lda)              \
                                 : (a) + (i) * (lda))

/* The default prefetch of a tile whose B panel starts at pb, rows ldb
 * floats apart: B_PREFETCH_ROWS rows ahead of the step, a row a step. */
static inline void sgemmBPrefetch(struct ARuns *runs, const float *pb,
                                  int64_t ldb) {
  runs->bPrefetch = (const char *)(pb + STRATA_SGEMM_B_PREFETCH_ROWS * ldb);
  runs->bPrefetchStep = ldb * (int64_t)sizeof(float);
}

/* One line of the next row panel per depth step, row after row
 * (runs->nextRows rows, runs->nextStride floats apart), then the next 16
 * floats of each row, starting over past runs->nextSpan floats (lines
 * already asked for). A matrix's kc steps cover its MR rows' 16 * kc / MR
 * floats, more than the kc each needs; a 3x3 convolution's the three
 * window rows of the next tile's pixels, several times over. *row and
 * *col start at 0. */
static inline __attribute__((always_inline)) void
sgemmPrefetchNext(const struct ARuns *runs, int64_t *row, int64_t *col) {
  __builtin_prefetch(runs->next + *row * runs->nextStride + *col, 0, 3);
  if (++*row == runs->nextRows) {
    *row = 0;
    *col += 16;
    if (*col >= runs->nextSpan) {
      *col = 0;
    }
  }
}

/* The depth steps of a microkernel tile (each variant's microRows), in
 * scope there: runs, pa, lda, pb, ldb, acc, rows, vecs, split (0, or the
 * first row of a tile's second output row: STRATA_SGEMM_A_ROW), nextRow,
 * nextCol and MR. Each step loads B's `vecs` vectors of type VecT (`half`
 * floats apart, with `load`), broadcasts each row's element of A (`broadcast`,
 * from its address) and multiply-adds (`fma`). With `prefetch` (a
 * constant), the next row panel's lines are prefetched a line per step:
 * the variants expand it twice, so that the loop without the prefetch
 * carries none of its state (addressing the rows of A takes most general
 * registers). */
/* Each step prefetches one address of runs->bPrefetch (advancing
 * runs->bPrefetchStep bytes): by default B STRATA_SGEMM_B_PREFETCH_ROWS
 * rows ahead (the ISA's b_prefetch_rows, IsaTuning.def): B streams from
 * memory when it is a weight read once per call (a few rows of A: a
 * decoder's token), and one sequential stream alone leaves the memory bus
 * mostly idle. The lines go to L2 (prefetcht1). */

#define STRATA_SGEMM_STEPS(prefetch, VecT, load, broadcast, fma, half)         \
  const char *prefetchB = runs->bPrefetch;                                     \
  const int64_t prefetchBStep = runs->bPrefetchStep;                           \
  const float *const pbTile = pb;                                              \
  for (int64_t r = 0; r < runs->count; ++r) {                                  \
    const float *a = pa + runs->offset[r];                                     \
    const float *a2 = a + runs->pairOffset;                                    \
    pb = pbTile + runs->depth[r] * ldb;                                        \
    for (int64_t p = 0; p < runs->length[r]; ++p) {                            \
      if (prefetch) {                                                          \
        sgemmPrefetchNext(runs, &nextRow, &nextCol);                           \
      }                                                                        \
      __builtin_prefetch(prefetchB, 0, 2);                                     \
      prefetchB += prefetchBStep;                                              \
      VecT b0 = load(pb);                                                      \
      VecT b1 = vecs > 1 ? load(pb + (half)) : b0;                             \
      _Pragma("clang loop unroll(full)") for (int i = 0; i < MR; ++i) {        \
        if (i < rows) {                                                        \
          VecT ai = broadcast(STRATA_SGEMM_A_ROW(a, a2, i, lda, split));       \
          acc[i][0] = fma(ai, b0, acc[i][0]);                                  \
          if (vecs > 1) {                                                      \
            acc[i][1] = fma(ai, b1, acc[i][1]);                                \
          }                                                                    \
        }                                                                      \
      }                                                                        \
      a += 1;                                                                  \
      a2 += 1;                                                                 \
      pb += ldb;                                                               \
    }                                                                          \
  }

#endif /* STRATA_UKERNEL_SGEMM_RUNS_H_ */
