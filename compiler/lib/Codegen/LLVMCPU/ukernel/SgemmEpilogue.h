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

struct TileEpilogue {
  const float *bias;     /* at the tile's first column, or 0 */
  const float *residual; /* at the tile's first element, or 0 */
  int64_t ldr;           /* residual row stride */
  int residualFirst;
  int clamp;
  float lo, hi;
};

/* T: a float or a vector of floats; load(p): T from p. */
#define STRATA_SGEMM_APPLY_EPILOGUE(T, v, ep, row, col, load, splat)           \
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
      v = __builtin_elementwise_maximum(v, splat((ep)->lo));                   \
      v = __builtin_elementwise_minimum(v, splat((ep)->hi));                   \
    }                                                                          \
  } while (0)

#endif /* STRATA_UKERNEL_SGEMM_EPILOGUE_H_ */
