/*===- IgemmTile.h - what an int8 matmul tile stores, and where ----------===//
 *
 * Shared by the int8 variants (IgemmVnni.h, IgemmAmx.h, IgemmMadd.h) and
 * their driver (IgemmDriver.h): the store side of one tile, its pointers at
 * the tile's first row and column.
 *===----------------------------------------------------------------------===*/
#ifndef STRATA_UKERNEL_IGEMM_TILE_H_
#define STRATA_UKERNEL_IGEMM_TILE_H_

#include <stdint.h>

struct IgStore {
  char *c;     /* i32 C, or the i8 output with requant */
  int64_t ldc; /* in elements of C */
  int add;     /* add to C (i32 only) */
  int requant; /* STRATA_IGEMM_REQUANTIZE */
  /* IG_A_SHIFT times each column's sum of B, subtracted. */
  const int32_t *correction;
  /* The requantization's per-column constants and bounds. */
  const int32_t *adjust;
  const float *multiplier;
  float zero, lo, hi;
  /* AMX: the block's A depth past its last 64 bytes, 64 bytes a row; its
   * rows short of a tile, 16 rows of the depth padded to 64. */
  const int8_t *aTail, *aPad;
};

#endif /* STRATA_UKERNEL_IGEMM_TILE_H_ */
