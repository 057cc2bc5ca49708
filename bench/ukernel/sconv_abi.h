/* sconv_abi.h - the f32 convolution microkernel's entry point
 * (strata_ukernel_sconv_f32, compiler/lib/Codegen/LLVMCPU/ukernel/
 * SgemmDriver.h), as nchwc_time.c and band_time.c call the host's build
 * of it. */
#ifndef STRATA_BENCH_UKERNEL_SCONV_ABI_H
#define STRATA_BENCH_UKERNEL_SCONV_ABI_H

#include <stdint.h>

#define STRATA_SCONV_PARAMS                                                   \
  int64_t inBase, int64_t inOffset, int64_t inStrideH, int64_t inStrideW,     \
      int64_t inRows, int64_t inCols, int64_t padTop, int64_t padLeft,        \
      int64_t bBase, int64_t bOffset, int64_t ldb, int64_t cBase,             \
      int64_t cOffset, int64_t ldc, int64_t m, int64_t n, int64_t k,          \
      int64_t flags, int64_t scratchBase, int64_t outWidth, int64_t channels, \
      int64_t kernelW, int64_t convStrideH, int64_t convStrideW,              \
      int64_t dilationH, int64_t dilationW, int64_t bias, int64_t residual,   \
      int64_t ldr, int64_t loBits, int64_t hiBits

/* The entry point, and its type (sconv_time.c's variants). */
void strata_ukernel_sconv_f32(STRATA_SCONV_PARAMS);
typedef void (*SconvFn)(STRATA_SCONV_PARAMS);

#endif /* STRATA_BENCH_UKERNEL_SCONV_ABI_H */
