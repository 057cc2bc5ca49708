/*===- IgemmParams.h - the int8 matmul microkernel's constants -----------===//
 *
 * Shared by the int8 kernels (IgemmDriver.h and its variants) and the
 * compiler (MatmulUkernel.cpp), which sizes the packing scratch with
 * STRATA_IGEMM_SCRATCH_BYTES. strata_ukernel_igemm_s8 computes
 * C (i32) = A (s8, m x k) * B (s8, k x n), or adds it to C with
 * STRATA_IGEMM_ACCUMULATE.
 *===----------------------------------------------------------------------===*/
#ifndef STRATA_UKERNEL_IGEMM_PARAMS_H_
#define STRATA_UKERNEL_IGEMM_PARAMS_H_

/* Register tile and depth group: AVX-512 VNNI (vpdpbusd: 4 bytes of depth
 * per 32-bit lane), and vpmaddwd on AVX2 (2 16-bit values per lane). */
#define STRATA_IGEMM_VNNI_MR 12
#define STRATA_IGEMM_VNNI_NR 32
#define STRATA_IGEMM_VNNI_KG 4
#define STRATA_IGEMM_MADD_MR 6
#define STRATA_IGEMM_MADD_NR 16
#define STRATA_IGEMM_MADD_KG 2

#define STRATA_IGEMM_ACCUMULATE 1

#define STRATA_IGEMM_ROUND_UP(x, r) (((x) + (r) - 1) / (r) * (r))
/* Bytes of scratch for an m x k by k x n call: B packed in panels of NR
 * columns (each depth group of NR columns together, `elem` bytes a value),
 * its column sums (i32), and one packed row panel of A; every part 64-byte
 * aligned. Wide enough for both variants. */
#define STRATA_IGEMM_SCRATCH_BYTES(n, k)                                       \
  (STRATA_IGEMM_ROUND_UP(n, 32) * STRATA_IGEMM_ROUND_UP(k, 4) * 2 +            \
   STRATA_IGEMM_ROUND_UP(n, 32) * 4 + 16 * STRATA_IGEMM_ROUND_UP(k, 4) * 2 +   \
   3 * 64)

#endif /* STRATA_UKERNEL_IGEMM_PARAMS_H_ */
