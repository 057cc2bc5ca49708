/*===- IgemmParams.h - the int8 matmul microkernel's constants -----------===//
 *
 * Shared by the int8 kernels (IgemmDriver.h and its variants) and the
 * compiler (MatmulUkernel.cpp), which sizes the packing scratch with
 * STRATA_IGEMM_SCRATCH_BYTES. strata_ukernel_igemm_s8 computes
 * C (i32) = A (s8, m x k) * B (s8, k x n), or adds it to C with
 * STRATA_IGEMM_ACCUMULATE, or stores the requantized i8 result
 * (STRATA_IGEMM_REQUANTIZE). Its arguments: A, B and C each as base
 * address, element offset and row stride, then m, n, k, the flags, the
 * scratch's address, and the requantization's adjust and multiplier
 * addresses, zero, lo and hi (f32 bits); all i64.
 *===----------------------------------------------------------------------===*/
#ifndef STRATA_UKERNEL_IGEMM_PARAMS_H_
#define STRATA_UKERNEL_IGEMM_PARAMS_H_

/* Register tile and depth group: AVX-512 VNNI (vpdpbusd: 4 bytes of depth
 * per 32-bit lane), and vpmaddwd on AVX2 (2 16-bit values per lane). */
#define STRATA_IGEMM_VNNI_MR 12
#define STRATA_IGEMM_VNNI_NR 32
#define STRATA_IGEMM_VNNI_KG 4
/* AMX-INT8: a block of 32 rows (two tiles of 16) by the VNNI panel of 32
 * columns, whose depth is padded to whole tiles (64 bytes of depth). */
#define STRATA_IGEMM_AMX_MR 32
#define STRATA_IGEMM_AMX_KMULTIPLE 64
#define STRATA_IGEMM_MADD_MR 6
#define STRATA_IGEMM_MADD_NR 16
#define STRATA_IGEMM_MADD_KG 2

/* Bit 0 of the flags: add to C instead of overwriting it. */
#define STRATA_IGEMM_ACCUMULATE 1
/* Bit 1: B was packed at compile time (--strata-pack-weights) into the
 * variant's panels: NR columns each, its depth in groups of KG, value
 * (group g, column j, step t) at byte (g * NR + j) * KG + t of the panel,
 * a panel ceil(k / KG) * NR * KG bytes, zeros past k and past the last
 * column; b points at the panel of the call's first column (a multiple of
 * NR) and ldb is unused. Nothing of B is packed per call. */
#define STRATA_IGEMM_PACKED_B 2
/* Bit 2: C is the i8 output of the requantization, applied as the tile is
 * stored: c[i][j] = (i8) min(max(round_even((float)(acc + adjust[j]) *
 * multiplier[j]) + zero, lo), hi), all in f32 (the loops QDQFusion.cpp
 * writes), ldc in bytes. Not with STRATA_IGEMM_ACCUMULATE. */
#define STRATA_IGEMM_REQUANTIZE 4

#define STRATA_IGEMM_ROUND_UP(x, r) (((x) + (r) - 1) / (r) * (r))
/* Bytes of scratch for an m x k by k x n call (k: the panels' padded
 * depth): B packed in panels of NR columns (i8, each depth group of NR
 * columns together; none when B was packed at compile time), the column
 * corrections (i32), and one packed row panel of A (i16, the vpmaddwd
 * variant) or 16 rows of A at the depth padded to 64 (AMX); every part
 * 64-byte aligned. Wide enough for every variant. */
#define STRATA_IGEMM_SCRATCH_BYTES(n, k, packedB)                              \
  (((packedB) ? 0                                                              \
              : STRATA_IGEMM_ROUND_UP(n, 32) * STRATA_IGEMM_ROUND_UP(k, 4)) +  \
   STRATA_IGEMM_ROUND_UP(n, 32) * 4 + 16 * STRATA_IGEMM_ROUND_UP(k, 64) +      \
   3 * 64)

/* strata_ukernel_idwconv_s8 (IdwconvDriver.h), the int8 depthwise
 * convolution, takes STRATA_IGEMM_ACCUMULATE and STRATA_IGEMM_REQUANTIZE
 * with the same meaning; its scratch holds the filter of `taps` taps
 * widened to i32, channels rounded up to 16 (every variant's vector). */
#define STRATA_IDWCONV_SCRATCH_BYTES(taps, channels)                           \
  ((taps) * STRATA_IGEMM_ROUND_UP(channels, 16) * 4 + 64)

#endif /* STRATA_UKERNEL_IGEMM_PARAMS_H_ */
