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

/* -0.0 in as many lanes as a tile has columns: what a missing bias or
 * residual adds (x + -0.0 is x for every x, -0 included). */
#define STRATA_SGEMM_NEGATIVE_ZEROS4 -0.0f, -0.0f, -0.0f, -0.0f
static const float strataNegativeZeros[32] = {
    STRATA_SGEMM_NEGATIVE_ZEROS4, STRATA_SGEMM_NEGATIVE_ZEROS4,
    STRATA_SGEMM_NEGATIVE_ZEROS4, STRATA_SGEMM_NEGATIVE_ZEROS4,
    STRATA_SGEMM_NEGATIVE_ZEROS4, STRATA_SGEMM_NEGATIVE_ZEROS4,
    STRATA_SGEMM_NEGATIVE_ZEROS4, STRATA_SGEMM_NEGATIVE_ZEROS4};
#undef STRATA_SGEMM_NEGATIVE_ZEROS4

/* The epilogue of one tile, in a form its rows apply without a test: two
 * terms added in the fused op's order (the bias and the residual, either
 * first), each `ld` floats from one row to the next (the bias 0), a term
 * the op does not have reading strataNegativeZeros; then the clamp, whose
 * bounds are -inf and +inf when the op has none (maxFirst(-inf, v) and
 * minFirst(+inf, v) are v, NaN included; loZeroFix -0.0 adds nothing).
 * The rows read it through the tile's pointer: the tests they made per
 * vector before (six) made a 16-deep 1x1 convolution 5% slower and the
 * AVX-512 `micro` 40% larger, and values held in locals instead spilled
 * accumulators (docs/performance.md). Built per tile by the driver
 * (tileEpilogue). */
struct TileEpilogue {
  const float *first, *second; /* at the tile's first element */
  int64_t firstLd, secondLd;
  float lo, hi;
  /* For the clamp (strataLoZeroFix, strataIsNegativeZero): added after the
   * lower bound's max, and whether the upper bound needs the general
   * minimum. Worked out once per call (decodeEpilogue). */
  float loZeroFix;
  int hiNegativeZero;
  /* The residual alone (its lines are prefetched), or 0. */
  const float *residual;
  int64_t ldr;
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
    v = v + load((ep)->first + (row) * (ep)->firstLd + (col));                 \
    v = v + load((ep)->second + (row) * (ep)->secondLd + (col));               \
    v = maxFirst(splat((ep)->lo), v) + splat((ep)->loZeroFix);                 \
    v = (ep)->hiNegativeZero                                                   \
            ? __builtin_elementwise_minimum(v, splat((ep)->hi))                \
            : minFirst(splat((ep)->hi), v);                                    \
  } while (0)

#endif /* STRATA_UKERNEL_SGEMM_EPILOGUE_H_ */
