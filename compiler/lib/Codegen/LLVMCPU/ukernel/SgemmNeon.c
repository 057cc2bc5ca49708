/*===- SgemmNeon.c - f32 matmul microkernel for AArch64 NEON (8 x 8) ------===//
 *
 * 16 q-register accumulators (8 rows x 2 vectors of 4 columns). Four depth
 * steps at a time: each row's next 4 elements of A in one q register, then
 * per step two loads of packed B and 16 FMLAs by lane (the element of A is
 * a lane of its row's register, so A costs one load per 4 steps). 26 of
 * the 32 vector registers; the rest of a run takes one step at a time with
 * A broadcast. The depthwise kernel (DwconvDriver.h) runs on the same
 * vectors; there is no int8 kernel here (MatmulUkernel.cpp leaves int8
 * matmuls to the code generator for this variant).
 *===----------------------------------------------------------------------===*/
#include <arm_neon.h>
#include <stdint.h>

#include "SgemmEpilogue.h"
#include "SgemmParams.h"
#include "SgemmRuns.h"

#define MR STRATA_SGEMM_NEON_MR
#define NR STRATA_SGEMM_NEON_NR

/* The ISA-independent max and min the epilogue expects (x86 MAXPS/MINPS:
 * a > b ? a : b, the second operand on NaN and on equal zeros); NEON's
 * FMAX/FMIN propagate NaN instead. */
static inline float32x4_t maxFirst(float32x4_t a, float32x4_t b) {
  return vbslq_f32(vcgtq_f32(a, b), a, b);
}
static inline float32x4_t minFirst(float32x4_t a, float32x4_t b) {
  return vbslq_f32(vcltq_f32(a, b), a, b);
}

/* The first n (0 to 4) floats at p, the rest zeros: the columns of a
 * partial tile (NEON has no masked loads and stores). */
static inline float32x4_t loadPartial(const float *p, int64_t n) {
  float lanes[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int64_t j = 0; j < n && j < 4; ++j) {
    lanes[j] = p[j];
  }
  return vld1q_f32(lanes);
}
static inline void storePartial(float *p, float32x4_t v, int64_t n) {
  float lanes[4];
  vst1q_f32(lanes, v);
  for (int64_t j = 0; j < n && j < 4; ++j) {
    p[j] = lanes[j];
  }
}

/* One depth step, lane L of each row's A register against B's row at pb. */
#define NEON_LANE_STEP(L)                                                      \
  do {                                                                         \
    __builtin_prefetch(prefetchB, 0, 2);                                       \
    prefetchB += prefetchBStep;                                                \
    float32x4_t b0 = vld1q_f32(pb);                                            \
    float32x4_t b1 = vecs > 1 ? vld1q_f32(pb + 4) : b0;                        \
    _Pragma("clang loop unroll(full)") for (int i = 0; i < MR; ++i) {          \
      if (i < rows) {                                                          \
        acc[i][0] = vfmaq_laneq_f32(acc[i][0], b0, av[i], L);                  \
        if (vecs > 1) {                                                        \
          acc[i][1] = vfmaq_laneq_f32(acc[i][1], b1, av[i], L);                \
        }                                                                      \
      }                                                                        \
    }                                                                          \
    pb += ldb;                                                                 \
  } while (0)

/* Rows [0, rows) and columns [0, cols) of one MR x NR tile of C. rows,
 * vecs (vectors of columns computed: 1 when cols <= 4) and masked (cols <
 * NR) are constants after inlining: each combination gets its own fully
 * unrolled kernel. `stream` is ignored: the stores are plain (STNP is only
 * a hint, and a plain store needs no fence after it). */
static inline __attribute__((always_inline)) void
microRows(const struct ARuns *runs, const float *restrict pa, int64_t lda,
          const float *restrict pb, int64_t ldb, float *restrict c, int64_t ldc,
          int add, const struct TileEpilogue *ep, int stream, const int rows,
          int64_t cols, const int vecs, const int masked, const int split) {
  (void)stream;
  float32x4_t acc[MR][2];
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = vdupq_n_f32(0.0f);
    acc[i][1] = vdupq_n_f32(0.0f);
  }
  int64_t nextRow = 0, nextCol = 0;
  /* B's prefetch, a line a depth step (SgemmRuns.h). */
  const char *prefetchB = runs->bPrefetch;
  const int64_t prefetchBStep = runs->bPrefetchStep;
  const float *const pbTile = pb;
  for (int64_t r = 0; r < runs->count; ++r) {
    const float *a = pa + runs->offset[r];
    const float *a2 = a + runs->pairOffset;
    pb = pbTile + runs->depth[r] * ldb;
    int64_t length = runs->length[r];
    int64_t p = 0;
    for (; p + 4 <= length; p += 4) {
      if (runs->next) {
        sgemmPrefetchNext(runs, &nextRow, &nextCol);
      }
      float32x4_t av[MR];
#pragma clang loop unroll(full)
      for (int i = 0; i < MR; ++i) {
        av[i] = i < rows
                    ? vld1q_f32(STRATA_SGEMM_A_ROW(a, a2, i, lda, split) + p)
                    : vdupq_n_f32(0.0f);
      }
      NEON_LANE_STEP(0);
      NEON_LANE_STEP(1);
      NEON_LANE_STEP(2);
      NEON_LANE_STEP(3);
    }
    for (; p < length; ++p) {
      float32x4_t b0 = vld1q_f32(pb);
      float32x4_t b1 = vecs > 1 ? vld1q_f32(pb + 4) : b0;
#pragma clang loop unroll(full)
      for (int i = 0; i < MR; ++i) {
        if (i < rows) {
          float32x4_t ai =
              vdupq_n_f32(STRATA_SGEMM_A_ROW(a, a2, i, lda, split)[p]);
          acc[i][0] = vfmaq_f32(acc[i][0], b0, ai);
          if (vecs > 1) {
            acc[i][1] = vfmaq_f32(acc[i][1], b1, ai);
          }
        }
      }
      pb += ldb;
    }
  }
  int64_t cols0 = cols < 4 ? cols : 4;
  int64_t cols1 = cols > 4 ? cols - 4 : 0;
#define LOAD0(p) (masked ? loadPartial(p, cols0) : vld1q_f32(p))
#define LOAD1(p) (masked ? loadPartial(p, cols1) : vld1q_f32(p))
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    if (i < rows) {
      float *row = c + i * ldc;
      if (add) {
        acc[i][0] = vaddq_f32(acc[i][0], LOAD0(row));
        if (vecs > 1) {
          acc[i][1] = vaddq_f32(acc[i][1], LOAD1(row + 4));
        }
      }
      if (ep) {
        STRATA_SGEMM_APPLY_EPILOGUE(float32x4_t, acc[i][0], ep, i, 0, LOAD0,
                                    vdupq_n_f32, maxFirst, minFirst);
        if (vecs > 1) {
          STRATA_SGEMM_APPLY_EPILOGUE(float32x4_t, acc[i][1], ep, i, 4, LOAD1,
                                      vdupq_n_f32, maxFirst, minFirst);
        }
      }
      if (masked) {
        storePartial(row, acc[i][0], cols0);
        if (vecs > 1) {
          storePartial(row + 4, acc[i][1], cols1);
        }
      } else {
        vst1q_f32(row, acc[i][0]);
        vst1q_f32(row + 4, acc[i][1]);
      }
    }
  }
#undef LOAD0
#undef LOAD1
}
#undef NEON_LANE_STEP

#include "SgemmDriver.h"

/* The depthwise convolution kernel on the same vectors. */
#define DW_VL 4
typedef float32x4_t dwvec;
static inline dwvec dwLoad(const float *p) { return vld1q_f32(p); }
static inline void dwStore(float *p, dwvec v) { vst1q_f32(p, v); }
static inline void dwStream(float *p, dwvec v) { vst1q_f32(p, v); }
static inline dwvec dwSplat(float x) { return vdupq_n_f32(x); }
static inline dwvec dwMaxFirst(dwvec a, dwvec b) { return maxFirst(a, b); }
static inline dwvec dwMinFirst(dwvec a, dwvec b) { return minFirst(a, b); }
static inline dwvec dwFma(dwvec a, dwvec b, dwvec c) {
  return vfmaq_f32(c, a, b);
}
/* FMAX is IEEE maximum: NaN propagates, +0 over -0. */
static inline dwvec dwMax(dwvec a, dwvec b) { return vmaxq_f32(a, b); }
#include "DwconvDriver.h"
#include "WinogradDriver.h"
