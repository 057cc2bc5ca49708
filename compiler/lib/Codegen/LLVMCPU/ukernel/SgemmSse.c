/*===- SgemmSse.c - f32 matmul microkernel for baseline x86-64 (6 x 8) ----===//
 *
 * For x86-64 CPUs without AVX2 and FMA (the baseline variant of a
 * multi-ISA module, or --target-cpu=x86-64): SSE2 only, which every x86-64
 * CPU has. 12 xmm accumulators (6 rows x 2 vectors of 4 columns), two loads
 * of packed B and 6 broadcasts of A per depth step: 15 of the 16 xmm
 * registers. No FMA: a multiply then an add (two roundings, as the code
 * generator's loops on this CPU). The depthwise kernel (DwconvDriver.h)
 * runs on the same vectors; there is no int8 kernel here (MatmulUkernel.cpp
 * leaves int8 matmuls to the code generator for this variant).
 *===----------------------------------------------------------------------===*/
#include <emmintrin.h>
#include <stdint.h>

#include "SgemmEpilogue.h"
#include "SgemmParams.h"
#include "SgemmRuns.h"

#define MR STRATA_SGEMM_SSE_MR
#define NR STRATA_SGEMM_SSE_NR

static inline __m128 sseBroadcast(const float *p) { return _mm_set1_ps(*p); }
static inline __m128 sseMulAdd(__m128 a, __m128 b, __m128 c) {
  return _mm_add_ps(_mm_mul_ps(a, b), c);
}

/* The first n (0 to 4) floats at p, the rest zeros: the columns of a
 * partial tile (SSE2 has no masked loads and stores). */
static inline __m128 loadPartial(const float *p, int64_t n) {
  float lanes[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int64_t j = 0; j < n && j < 4; ++j) {
    lanes[j] = p[j];
  }
  return _mm_loadu_ps(lanes);
}
static inline void storePartial(float *p, __m128 v, int64_t n) {
  float lanes[4];
  _mm_storeu_ps(lanes, v);
  for (int64_t j = 0; j < n && j < 4; ++j) {
    p[j] = lanes[j];
  }
}

/* Rows [0, rows) and columns [0, cols) of one MR x NR tile of C. rows,
 * vecs (vectors of columns computed: 1 when cols <= 4) and masked (cols <
 * NR) are constants after inlining: each combination gets its own fully
 * unrolled kernel. */
static inline __attribute__((always_inline)) void
microRows(const struct ARuns *runs, const float *restrict pa, int64_t lda,
          const float *restrict pb, int64_t ldb, float *restrict c, int64_t ldc,
          int add, const struct TileEpilogue *ep, int stream, const int rows,
          int64_t cols, const int vecs, const int masked, const int split) {
  __m128 acc[MR][2];
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = _mm_setzero_ps();
    acc[i][1] = _mm_setzero_ps();
  }
  int64_t nextRow = 0, nextCol = 0;
  /* (A tile of two output rows reads a convolution in place: no next row
   * panel to prefetch.) */
  if (runs->next && !split) {
    STRATA_SGEMM_STEPS(1, __m128, _mm_loadu_ps, sseBroadcast, sseMulAdd, 4)
  } else {
    STRATA_SGEMM_STEPS(0, __m128, _mm_loadu_ps, sseBroadcast, sseMulAdd, 4)
  }
  int64_t cols0 = cols < 4 ? cols : 4;
  int64_t cols1 = cols > 4 ? cols - 4 : 0;
#define LOAD0(p) (masked ? loadPartial(p, cols0) : _mm_loadu_ps(p))
#define LOAD1(p) (masked ? loadPartial(p, cols1) : _mm_loadu_ps(p))
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    if (i < rows) {
      float *row = c + i * ldc;
      if (add) {
        acc[i][0] = _mm_add_ps(acc[i][0], LOAD0(row));
        if (vecs > 1) {
          acc[i][1] = _mm_add_ps(acc[i][1], LOAD1(row + 4));
        }
      }
      if (ep) {
        STRATA_SGEMM_APPLY_EPILOGUE(__m128, acc[i][0], ep, i, 0, LOAD0,
                                    _mm_set1_ps, _mm_max_ps, _mm_min_ps);
        if (vecs > 1) {
          STRATA_SGEMM_APPLY_EPILOGUE(__m128, acc[i][1], ep, i, 4, LOAD1,
                                      _mm_set1_ps, _mm_max_ps, _mm_min_ps);
        }
      }
      if (masked) {
        storePartial(row, acc[i][0], cols0);
        if (vecs > 1) {
          storePartial(row + 4, acc[i][1], cols1);
        }
      } else if (stream && ((uintptr_t)row & 15) == 0) {
        /* Aligned rows of a streamed C bypass the cache. */
        _mm_stream_ps(row, acc[i][0]);
        _mm_stream_ps(row + 4, acc[i][1]);
      } else {
        _mm_storeu_ps(row, acc[i][0]);
        _mm_storeu_ps(row + 4, acc[i][1]);
      }
    }
  }
#undef LOAD0
#undef LOAD1
}

#include "SgemmDriver.h"

/* The depthwise convolution kernel on the same vectors. */
#define DW_VL 4
typedef __m128 dwvec;
static inline dwvec dwLoad(const float *p) { return _mm_loadu_ps(p); }
static inline void dwStore(float *p, dwvec v) { _mm_storeu_ps(p, v); }
static inline void dwStream(float *p, dwvec v) { _mm_stream_ps(p, v); }
static inline dwvec dwSplat(float x) { return _mm_set1_ps(x); }
static inline dwvec dwMaxFirst(dwvec a, dwvec b) { return _mm_max_ps(a, b); }
static inline dwvec dwMinFirst(dwvec a, dwvec b) { return _mm_min_ps(a, b); }
static inline dwvec dwFma(dwvec a, dwvec b, dwvec c) {
  return sseMulAdd(a, b, c);
}

static inline dwvec dwMax(dwvec a, dwvec b) {
  return __builtin_elementwise_maximum(a, b);
}
#include "DwconvDriver.h"
#include "WinogradDriver.h"
