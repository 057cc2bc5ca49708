/*===- IgemmRequant.h - the int8 requantization of i32 accumulators -------===//
 *
 * Shared by the int8 kernels that store requantized results: the matmul
 * (IgemmVnni.h, IgemmMadd.h, and IgemmAmx.h through IgemmVnni.h) and the
 * depthwise convolution (IdwconvDriver.h). What QDQFusion.cpp's epilogue
 * computes, all in f32:
 *   min(max(round_even((float)(acc + adjust) * multiplier) + zero, lo), hi)
 * returned as i32 (exact: the bounds are within the 8-bit range), the
 * caller truncating it to a byte. One function per vector width, and a
 * scalar one for the lanes past the last vector.
 *===----------------------------------------------------------------------===*/
#ifndef STRATA_UKERNEL_IGEMM_REQUANT_H_
#define STRATA_UKERNEL_IGEMM_REQUANT_H_

#include <stdint.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

static inline int32_t igRequantScalar(int32_t acc, int32_t adjust,
                                      float multiplier, float zero, float lo,
                                      float hi) {
  float f = __builtin_roundevenf((float)(acc + adjust) * multiplier) + zero;
  f = f > lo ? f : lo;
  f = f < hi ? f : hi;
  return (int32_t)f;
}

#if defined(__AVX512F__)
static inline __attribute__((always_inline))
__m512i igRequant512(__m512i acc, __m512i adjust, __m512 multiplier,
                     __m512 zero, __m512 lo, __m512 hi) {
  __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(acc, adjust)),
                           multiplier);
  f = _mm512_roundscale_ps(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  f = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(f, zero), lo), hi);
  return _mm512_cvttps_epi32(f);
}
#endif

#if defined(__AVX2__)
static inline __attribute__((always_inline))
__m256i igRequant256(__m256i acc, __m256i adjust, __m256 multiplier,
                     __m256 zero, __m256 lo, __m256 hi) {
  __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(acc, adjust)),
                           multiplier);
  f = _mm256_round_ps(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  f = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(f, zero), lo), hi);
  return _mm256_cvttps_epi32(f);
}
#endif

#endif /* STRATA_UKERNEL_IGEMM_REQUANT_H_ */
