/*===- SgemmEpilogue.h - the elementwise epilogue of one microkernel tile
 * ---===//
 *
 * What the last store of a tile of C applies (STRATA_SGEMM_BIAS and the
 * other epilogue flags of SgemmParams.h), for the tile's own columns and
 * rows: each variant's microRows calls applyEpilogue on its vectors, the
 * driver (SgemmDriver.h) on the scalars of a partial tile. The order is the
 * order the fused op computed in, so results are the bits it gave.
 *===----------------------------------------------------------------------===*/
#ifndef STRATA_UKERNEL_SGEMM_EPILOGUE_H_
#define STRATA_UKERNEL_SGEMM_EPILOGUE_H_

#include <stdint.h>

/* Scalar forms of the ISA's max and min (the same choice on NaN and on
 * zeros of both signs). */
static inline float strataMaxFirst(float a, float b) { return a > b ? a : b; }
static inline float strataMinFirst(float a, float b) { return a < b ? a : b; }

struct TileEpilogue {
  const float *bias;     /* at the tile's first column, or 0 */
  const float *residual; /* at the tile's first element, or 0 */
  int64_t ldr;           /* residual row stride */
  int residualFirst;
  int clamp;
  float lo, hi;
  /* For the clamp (strataLoZeroFix, strataIsNegativeZero): added after the
   * lower bound's max, and whether the upper bound needs the general
   * minimum. Worked out once per call (decodeEpilogue). */
  float loZeroFix;
  int hiNegativeZero;
};

/* The clamp's bounds are constants, never NaN (MatmulUkernel.cpp), so IEEE
 * maximum(v, lo) is the ISA's max with lo first (a > b ? a : b returns v
 * when v is NaN) plus loZeroFix: +0.0 when lo is +0 (maximum(-0, +0) is
 * +0, the max gives -0) and -0.0 otherwise (adding -0.0 changes nothing).
 * Likewise minimum(v, hi) is the ISA's min with hi first, except when hi is
 * -0 (minimum(+0, -0) is -0): then the general minimum. Three instructions
 * where the general maximum and minimum take twelve. */
static inline int strataIsNegativeZero(float x) {
  return x == 0.0f && __builtin_signbit(x);
}
static inline float strataLoZeroFix(float lo) {
  return lo == 0.0f && !__builtin_signbit(lo) ? 0.0f : -0.0f;
}

/* T: a float or a vector of floats; load(p): T from p; maxFirst(a, b) and
 * minFirst(a, b): a > b ? a : b and a < b ? a : b (x86 MAXPS, MINPS). */
#define STRATA_SGEMM_APPLY_EPILOGUE(T, v, ep, row, col, load, splat, maxFirst, \
                                    minFirst)                                  \
  do {                                                                         \
    if ((ep)->residual && (ep)->residualFirst) {                               \
      v = v + load((ep)->residual + (row) * (ep)->ldr + (col));                \
    }                                                                          \
    if ((ep)->bias) {                                                          \
      v = v + load((ep)->bias + (col));                                        \
    }                                                                          \
    if ((ep)->residual && !(ep)->residualFirst) {                              \
      v = v + load((ep)->residual + (row) * (ep)->ldr + (col));                \
    }                                                                          \
    if ((ep)->clamp) {                                                         \
      v = maxFirst(splat((ep)->lo), v) + splat((ep)->loZeroFix);               \
      v = (ep)->hiNegativeZero                                                 \
              ? __builtin_elementwise_minimum(v, splat((ep)->hi))              \
              : minFirst(splat((ep)->hi), v);                                  \
    }                                                                          \
  } while (0)

#endif /* STRATA_UKERNEL_SGEMM_EPILOGUE_H_ */
