/*===- IgemmAmx.h - int8 matmul microkernel on AMX-INT8 tiles (32 x 32) ---===//
 *
 * Included by SgemmAvx512.c when compiled with AMX-INT8 (the
 * sgemm_avx512amx variant, which has AVX-512 VNNI as well). tdpbssd
 * multiplies signed bytes by signed bytes, 4 of depth per 32-bit lane, so
 * the products need no correction. Eight tiles, configured once per call
 * (ldtilecfg) and released after it: four accumulate a 32 x 32 block of C
 * (16 x 16 i32 each), two hold 16 rows x 64 bytes of A, read in place with
 * A's row stride, two hold 16 depth groups of 16 columns of B, read in
 * place from the vpdpbusd panels (a panel's group is 128 bytes: columns
 * 0-15 then 16-31, each four bytes of depth, which is a B tile's row).
 * The panels' depth is padded to a multiple of 64 when they are packed, so
 * every B tile is whole; A's depth past the last multiple of 64 is copied,
 * zero-padded, into a small buffer once per row block. Rows short of a
 * whole tile of 16 (m % 16, and all of a call of fewer than 16 rows) are
 * copied, zero-padded to 16 rows of the padded depth, into the scratch
 * once per row block and run on tiles as well, when there are at least
 * IG_AMX_PAD_MIN_ROWS of them (default 17: never, see there); fewer run
 * on the VNNI kernel over the same panels. The accumulators are
 * stored to a buffer and the VNNI kernel's igStoreRow applies the
 * requantization.
 *===----------------------------------------------------------------------===*/
#include <immintrin.h>
#include <stdint.h>

#include "IgemmParams.h"
#include "IgemmTile.h"

#define IG_VNNI_NO_DRIVER 1
#include "IgemmVnni.h"

#define IG_MR STRATA_IGEMM_AMX_MR
#define IG_NR STRATA_IGEMM_VNNI_NR
#define IG_KG STRATA_IGEMM_VNNI_KG
#define IG_KMULTIPLE STRATA_IGEMM_AMX_KMULTIPLE
/* For the rows the VNNI kernel takes. */
#define IG_A_SHIFT 128
#define IG_PACK_A 0
/* Rows short of a tile at or above this many run on tiles (copied); fewer
 * on the VNNI kernel. Even one row is faster on tiles in bench/ukernel
 * (1 x 512 x 512 requantized: 4.6 us, VNNI 6.4 us; 8 rows: 5.4 us, VNNI
 * 13.0 us), but compiled into a model the copied path crashed (a jump to
 * address 0 in int8-cases conv_s8 and gemm_amx_rows; not found yet), so
 * it is off (17: never) until that is understood. */
#ifndef IG_AMX_PAD_MIN_ROWS
#define IG_AMX_PAD_MIN_ROWS 17
#endif
/* Whether the last rows of a call of m run on the VNNI kernel. */
#define IG_AMX_VNNI_ROWS(m) ((m) % 16 != 0 && (m) % 16 < IG_AMX_PAD_MIN_ROWS)
#define IG_NEEDS_CORRECTION(m) IG_AMX_VNNI_ROWS(m)

/* The tile configuration (palette 1): tiles 0-3 C, 4-5 A, 6-7 B, each 16
 * rows of 64 bytes. */
struct IgAmxConfig {
  uint8_t palette, startRow, reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
};

static inline void igAmxConfigure(void) {
  struct IgAmxConfig config __attribute__((aligned(64)));
  uint8_t *bytes = (uint8_t *)&config;
  for (int i = 0; i < 64; ++i) {
    bytes[i] = 0;
  }
  config.palette = 1;
  for (int t = 0; t < 8; ++t) {
    config.colsb[t] = 64;
    config.rows[t] = 16;
  }
  _tile_loadconfig(&config);
}

/* Rows AMX takes of a block of `rows` (at most 32): whole tiles of 16. */
static inline int64_t igAmxRows(int64_t rows) { return rows & ~(int64_t)15; }

/* Rows [0, rows) of A, all of their depth, into 16 rows of `kp` bytes
 * (the depth padded to a multiple of 64), zeros past k and below rows. */
static void igAmxPad(int8_t *restrict pad, const int8_t *a, int64_t lda,
                     int64_t rows, int64_t k, int64_t kp) {
  for (int64_t r = 0; r < 16; ++r) {
    for (int64_t d = 0; d < kp; d += 64) {
      int64_t left = r < rows ? k - d : 0;
      __mmask64 keep = left >= 64  ? ~(__mmask64)0
                       : left <= 0 ? 0
                                   : ((__mmask64)1 << left) - 1;
      _mm512_store_si512((void *)(pad + r * kp + d),
                         _mm512_maskz_loadu_epi8(keep, a + r * lda + d));
    }
  }
}

/* The depth of A's rows past the last whole 64 bytes, zero-padded to 64
 * bytes a row, for the whole tiles of the block at `a`; and its rows
 * short of a tile into `pad` when they run on tiles. */
static void igAmxRowsBegin(int8_t *restrict tail, int8_t *restrict pad,
                           const int8_t *a, int64_t lda, int64_t rows,
                           int64_t k) {
  int64_t amxRows = igAmxRows(rows);
  int64_t rest = rows - amxRows;
  if (rest >= IG_AMX_PAD_MIN_ROWS) {
    igAmxPad(pad, a + amxRows * lda, lda, rest, k,
             STRATA_IGEMM_ROUND_UP(k, 64));
  }
  int64_t start = k & ~(int64_t)63;
  if (start == k) {
    return;
  }
  /* A masked load reads (and may fault on) only the bytes it keeps. */
  __mmask64 keep = ((__mmask64)1 << (k - start)) - 1;
  for (int64_t r = 0; r < amxRows; ++r) {
    _mm512_store_si512((void *)(tail + r * 64),
                       _mm512_maskz_loadu_epi8(keep, a + r * lda + start));
  }
}

/* One 16 (halves 1) or 32 (halves 2) row block of C by one panel; rows
 * [0, rows) are stored. */
static inline __attribute__((always_inline)) void
igAmxBlock(const int8_t *a, int64_t lda, const int8_t *restrict pb, int64_t k,
           const struct IgStore *st, int64_t cols, const int halves,
           int64_t rows) {
  int32_t acc[32 * 32] __attribute__((aligned(64)));
  _tile_zero(0);
  _tile_zero(1);
  if (halves == 2) {
    _tile_zero(2);
    _tile_zero(3);
  }
  int64_t steps = k / 64;
  for (int64_t s = 0; s < steps; ++s) {
    const int8_t *b = pb + s * 2048;
    _tile_loadd(6, b, 128);
    _tile_loadd(7, b + 64, 128);
    _tile_loadd(4, a + s * 64, lda);
    _tile_dpbssd(0, 4, 6);
    _tile_dpbssd(1, 4, 7);
    if (halves == 2) {
      _tile_loadd(5, a + 16 * lda + s * 64, lda);
      _tile_dpbssd(2, 5, 6);
      _tile_dpbssd(3, 5, 7);
    }
  }
  if (k % 64) {
    const int8_t *b = pb + steps * 2048;
    _tile_loadd(6, b, 128);
    _tile_loadd(7, b + 64, 128);
    _tile_loadd(4, st->aTail, 64);
    _tile_dpbssd(0, 4, 6);
    _tile_dpbssd(1, 4, 7);
    if (halves == 2) {
      _tile_loadd(5, st->aTail + 16 * 64, 64);
      _tile_dpbssd(2, 5, 6);
      _tile_dpbssd(3, 5, 7);
    }
  }
  _tile_stored(0, acc, 128);
  _tile_stored(1, acc + 16, 128);
  if (halves == 2) {
    _tile_stored(2, acc + 16 * 32, 128);
    _tile_stored(3, acc + 16 * 32 + 16, 128);
  }
  struct IgRowStore rs;
  igPrepareStore(st, cols, 0, &rs);
  for (int64_t i = 0; i < rows; ++i) {
    igStoreRow(st, &rs, i, _mm512_load_si512((const void *)(acc + i * 32)),
               _mm512_load_si512((const void *)(acc + i * 32 + 16)));
  }
}

static void igemmTile(const void *a, int64_t lda, const int8_t *restrict pb,
                      int64_t k, const struct IgStore *st, int64_t rows,
                      int64_t cols) {
  const int8_t *ap = (const int8_t *)a;
  int64_t amxRows = igAmxRows(rows);
  if (amxRows == 32) {
    igAmxBlock(ap, lda, pb, k, st, cols, 2, 32);
  } else if (amxRows == 16) {
    igAmxBlock(ap, lda, pb, k, st, cols, 1, 16);
  }
  int64_t elemBytes = st->requant ? 1 : 4;
  if (rows - amxRows >= IG_AMX_PAD_MIN_ROWS) {
    /* The copied rows: whole 64-byte steps of the padded depth. */
    struct IgStore part = *st;
    part.c = st->c + amxRows * st->ldc * elemBytes;
    int64_t kp = STRATA_IGEMM_ROUND_UP(k, 64);
    igAmxBlock(st->aPad, kp, pb, kp, &part, cols, 1, rows - amxRows);
    return;
  }
  for (int64_t r = amxRows; r < rows; r += STRATA_IGEMM_VNNI_MR) {
    struct IgStore part = *st;
    part.c = st->c + r * st->ldc * elemBytes;
    int64_t left = rows - r;
    igemmVnniTile(ap + r * lda, lda, pb, k, &part,
                  left < STRATA_IGEMM_VNNI_MR ? left : STRATA_IGEMM_VNNI_MR,
                  cols);
  }
}

/* The driver's hooks: the tiles configured once per call that uses them,
 * A's depth tail (into a buffer of the driver's frame) and the rows short
 * of a tile (into the scratch, past the corrections: `s`) copied once per
 * row block, the tiles released at the end. */
#define IG_CALL_BEGIN()                                                        \
  int8_t igTailBuffer[32 * 64] __attribute__((aligned(64)));                   \
  int igUsesAmx = m >= 16 || !IG_AMX_VNNI_ROWS(m);                             \
  if (igUsesAmx) {                                                             \
    igAmxConfigure();                                                          \
  }                                                                            \
  st.aTail = igTailBuffer;                                                     \
  st.aPad = (int8_t *)s;
#define IG_ROWS_BEGIN(a, lda, rows, k)                                         \
  igAmxRowsBegin(igTailBuffer, (int8_t *)st.aPad, a, lda, rows, k)
#define IG_CALL_END()                                                          \
  if (igUsesAmx) {                                                             \
    _tile_release();                                                           \
  }

#include "IgemmDriver.h"
