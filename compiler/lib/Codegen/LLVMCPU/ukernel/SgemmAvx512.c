/*===- SgemmAvx512.c - f32 matmul microkernel for AVX-512 (14 x 32) -------===//
 *
 * 28 zmm accumulators (14 rows x 2 vectors of 16 columns); per k step two
 * loads of packed B and 14 broadcasts of packed A, which clang folds into
 * the FMAs as embedded broadcasts.
 *===----------------------------------------------------------------------===*/
#include <immintrin.h>
#include <stdint.h>

#include "IgemmRequant.h"
#include "SgemmEpilogue.h"
#include "SgemmParams.h"
#include "SgemmRuns.h"

#define MR STRATA_SGEMM_AVX512_MR
#define NR STRATA_SGEMM_AVX512_NR

/* One element of A in every lane; clang folds it into the multiply-add as
 * an embedded broadcast. */
static inline __m512 broadcastA(const float *p) { return _mm512_set1_ps(*p); }

/* Rows [0, rows) and columns [0, cols) of one MR x NR tile of C. rows,
 * vecs (vectors of columns computed: 1 when cols <= 16) and masked (cols <
 * NR: C, bias and residual are read and written through lane masks) are
 * constants after inlining: each combination gets its own fully unrolled
 * kernel, so an edge tile costs only its rows and vectors. */
static inline __attribute__((always_inline)) void
microRows(const struct ARuns *runs, const float *restrict pa, int64_t lda,
          const float *restrict pb, int64_t ldb, float *restrict c, int64_t ldc,
          int add, const struct TileEpilogue *ep, int stream, const int rows,
          int64_t cols, const int vecs, const int masked, const int split) {
  __m512 acc[MR][2];
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = _mm512_setzero_ps();
    acc[i][1] = _mm512_setzero_ps();
  }
  int64_t nextRow = 0, nextCol = 0;
  /* (A tile of two output rows reads a convolution in place: no next row
   * panel to prefetch.) */
  if (runs->next && !split) {
    STRATA_SGEMM_STEPS(1, __m512, _mm512_loadu_ps, broadcastA, _mm512_fmadd_ps,
                       16)
  } else {
    STRATA_SGEMM_STEPS(0, __m512, _mm512_loadu_ps, broadcastA, _mm512_fmadd_ps,
                       16)
  }
  __mmask16 m0 = 0xFFFF, m1 = 0xFFFF;
  if (masked) {
    m0 = cols >= 16 ? 0xFFFF : (__mmask16)((1u << cols) - 1);
    m1 = cols >= 32 ? 0xFFFF
                    : (cols > 16 ? (__mmask16)((1u << (cols - 16)) - 1) : 0);
  }
#define LOAD0(p) (masked ? _mm512_maskz_loadu_ps(m0, p) : _mm512_loadu_ps(p))
#define LOAD1(p) (masked ? _mm512_maskz_loadu_ps(m1, p) : _mm512_loadu_ps(p))
#pragma clang loop unroll(full)
  for (int i = 0; i < MR; ++i) {
    if (i < rows) {
      float *row = c + i * ldc;
      if (add) {
        acc[i][0] = _mm512_add_ps(acc[i][0], LOAD0(row));
        if (vecs > 1) {
          acc[i][1] = _mm512_add_ps(acc[i][1], LOAD1(row + 16));
        }
      }
      if (ep) {
        STRATA_SGEMM_APPLY_EPILOGUE(__m512, acc[i][0], ep, i, 0, LOAD0,
                                    _mm512_set1_ps, _mm512_max_ps,
                                    _mm512_min_ps);
        if (vecs > 1) {
          STRATA_SGEMM_APPLY_EPILOGUE(__m512, acc[i][1], ep, i, 16, LOAD1,
                                      _mm512_set1_ps, _mm512_max_ps,
                                      _mm512_min_ps);
        }
      }
      /* Whole aligned vectors of a streamed C bypass the cache. */
      int streamRow = stream && ((uintptr_t)row & 63) == 0;
      if (streamRow && (!masked || m0 == 0xFFFF)) {
        _mm512_stream_ps(row, acc[i][0]);
      } else {
        _mm512_mask_storeu_ps(row, m0, acc[i][0]);
      }
      if (vecs > 1) {
        if (streamRow && (!masked || m1 == 0xFFFF)) {
          _mm512_stream_ps(row + 16, acc[i][1]);
        } else {
          _mm512_mask_storeu_ps(row + 16, m1, acc[i][1]);
        }
      }
    }
  }
#undef LOAD0
#undef LOAD1
}

#include "SgemmDriver.h"

/* The depthwise convolution kernel on the same vectors. */
#define DW_VL 16
typedef __m512 dwvec;
static inline dwvec dwLoad(const float *p) { return _mm512_loadu_ps(p); }
static inline void dwStore(float *p, dwvec v) { _mm512_storeu_ps(p, v); }
static inline void dwStream(float *p, dwvec v) { _mm512_stream_ps(p, v); }
static inline dwvec dwSplat(float x) { return _mm512_set1_ps(x); }
static inline dwvec dwMaxFirst(dwvec a, dwvec b) { return _mm512_max_ps(a, b); }
static inline dwvec dwMinFirst(dwvec a, dwvec b) { return _mm512_min_ps(a, b); }
static inline dwvec dwFma(dwvec a, dwvec b, dwvec c) {
  return _mm512_fmadd_ps(a, b, c);
}

/* IEEE maximum (NaN propagates, +0 over -0) in three instructions:
 * VRANGEPS's "max" with the sign of the value selected (right for zeros,
 * but it drops a quiet NaN), then a NaN operand put back by an add where
 * either is one. */
static inline dwvec dwMax(dwvec a, dwvec b) {
  __m512 larger = _mm512_range_ps(a, b, 5);
  __mmask16 nan = _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q);
  return _mm512_mask_add_ps(larger, nan, a, b);
}
/* A max pool takes VRANGEPS alone a tap, NaNs found by a sum beside it. */
#define DW_MAX_SPLIT 1
static inline dwvec dwMaxNoNan(dwvec a, dwvec b) {
  return _mm512_range_ps(a, b, 5);
}
static inline int dwAnyUnordered(dwvec a, dwvec b) {
  return _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q) != 0;
}
#include "DwconvDriver.h"
#include "WinogradDriver.h"

/* The int8 depthwise convolution: 16 channels a vector, vpdpwssd with
 * AVX-512 VNNI, else vpmaddwd and an add. */
#define IDW_VL 16
typedef __m512i idwvec;
static inline idwvec idwZero(void) { return _mm512_setzero_si512(); }
static inline idwvec idwSplat(int32_t x) { return _mm512_set1_epi32(x); }
static inline idwvec idwLoadInput(const int8_t *p) {
  return _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)p));
}
static inline idwvec idwLoadI32(const int32_t *p) {
  return _mm512_loadu_si512((const void *)p);
}
static inline void idwStoreI32(int32_t *p, idwvec v) {
  _mm512_storeu_si512((void *)p, v);
}
static inline idwvec idwAdd(idwvec a, idwvec b) {
  return _mm512_add_epi32(a, b);
}
static inline idwvec idwMac(idwvec acc, idwvec x, idwvec w) {
#if defined(__AVX512VNNI__)
  return _mm512_dpwssd_epi32(acc, x, w);
#else
  return _mm512_add_epi32(acc, _mm512_madd_epi16(x, w));
#endif
}
static inline void idwStoreRequant(int8_t *p, idwvec acc, const int32_t *adjust,
                                   const float *multiplier, float zero,
                                   float lo, float hi) {
  __m512i q = igRequant512(acc, _mm512_loadu_si512((const void *)adjust),
                           _mm512_loadu_ps(multiplier), _mm512_set1_ps(zero),
                           _mm512_set1_ps(lo), _mm512_set1_ps(hi));
  _mm_storeu_si128((__m128i *)p, _mm512_cvtepi32_epi8(q));
}
#include "IdwconvDriver.h"

/* The int8 matmul: AMX tiles where the target has AMX-INT8 (the
 * sgemm_avx512amx variant), vpdpbusd where it has AVX-512 VNNI (the
 * sgemm_avx512vnni variant), else vpmaddwd on 256-bit vectors. */
#if defined(__AMX_INT8__) && defined(__AMX_TILE__) && defined(__AVX512VNNI__)
#include "IgemmAmx.h"
#elif defined(__AVX512VNNI__)
#include "IgemmVnni.h"
#else
#include "IgemmMadd.h"
#endif
