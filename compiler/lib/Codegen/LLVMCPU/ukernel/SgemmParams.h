/*===- SgemmParams.h - blocking of the f32 matmul microkernels -----------===//
 *
 * Shared by the C microkernels (sgemm_*.c) and the compiler
 * (MatmulUkernel.cpp), which sizes each call's packing scratch from them:
 * both sides must agree on these numbers.
 *
 * MR x NR is the register tile (accumulators); KC the depth of one packed
 * block (a KC x NR panel of B stays in L1); MC x KC of packed A stays in L2;
 * NC columns of B are packed at a time.
 *===----------------------------------------------------------------------===*/
#ifndef STRATA_UKERNEL_SGEMM_PARAMS_H_
#define STRATA_UKERNEL_SGEMM_PARAMS_H_

/* AVX-512: 14 x 2 zmm accumulators. */
#define STRATA_SGEMM_AVX512_MR 14
#define STRATA_SGEMM_AVX512_NR 32
/* AVX2 + FMA: 6 x 2 ymm accumulators. */
#define STRATA_SGEMM_AVX2_MR 6
#define STRATA_SGEMM_AVX2_NR 16
/* Baseline x86-64 (SSE2): 6 x 2 xmm accumulators (SgemmSse.c). */
#define STRATA_SGEMM_SSE_MR 6
#define STRATA_SGEMM_SSE_NR 8
/* AArch64 NEON: 8 x 2 q-register accumulators (SgemmNeon.c). */
#define STRATA_SGEMM_NEON_MR 8
#define STRATA_SGEMM_NEON_NR 8

/* The tuning of the ISA class a microkernel is built for: its row of
 * IsaTuning.def (kc, mc_rows, nc, the in-place thresholds, the prefetch
 * distance), picked by -DSTRATA_UKERNEL_ISA=<isa> (meson.build). The
 * compiler includes this header without it and reads each variant's row
 * itself (UkernelCommon.cpp lookupVariant). */
#ifdef STRATA_UKERNEL_ISA
#define STRATA_ISA_TUNING(isa, kc, mc_rows, nc, l1_b_floats, conv_step,        \
                          in_place_b_rows, b_prefetch_rows, streamed_mib,      \
                          streamed_filter_mib, pointwise_depth, conv_kc)       \
  enum {                                                                       \
    strata_tuning_##isa##_kc = (kc),                                           \
    strata_tuning_##isa##_mc_rows = (mc_rows),                                 \
    strata_tuning_##isa##_nc = (nc),                                           \
    strata_tuning_##isa##_l1_b_floats = (l1_b_floats),                         \
    strata_tuning_##isa##_conv_step = (conv_step),                             \
    strata_tuning_##isa##_in_place_b_rows = (in_place_b_rows),                 \
    strata_tuning_##isa##_b_prefetch_rows = (b_prefetch_rows),                 \
    strata_tuning_##isa##_pointwise_depth = (pointwise_depth),                 \
    strata_tuning_##isa##_conv_kc = (conv_kc)                                  \
  };
#include "IsaTuning.def"
#undef STRATA_ISA_TUNING
#define STRATA_TUNING_NAME(isa, field) strata_tuning_##isa##_##field
#define STRATA_TUNING_OF(isa, field) STRATA_TUNING_NAME(isa, field)
#define STRATA_TUNING(field) STRATA_TUNING_OF(STRATA_UKERNEL_ISA, field)

#define STRATA_SGEMM_KC STRATA_TUNING(kc)
#define STRATA_SGEMM_MC_ROWS STRATA_TUNING(mc_rows)
#define STRATA_SGEMM_NC STRATA_TUNING(nc)
/* The depth block of a convolution read in place against a filter packed
 * at compile time (IsaTuning.def conv_kc), at least KC. bench/ukernel
 * builds the kernel with -DSTRATA_UKERNEL_CONV_KC=<n> to time other
 * depths against the row's. */
#ifdef STRATA_UKERNEL_CONV_KC
#define STRATA_SGEMM_CONV_KC_ROW STRATA_UKERNEL_CONV_KC
#else
#define STRATA_SGEMM_CONV_KC_ROW STRATA_TUNING(conv_kc)
#endif
#define STRATA_SGEMM_CONV_KC                                                   \
  (STRATA_SGEMM_CONV_KC_ROW > STRATA_SGEMM_KC ? STRATA_SGEMM_CONV_KC_ROW       \
                                              : STRATA_SGEMM_KC)
/* Floats of B panels a depth block may have for all of them to stay in L1:
 * the driver then walks C a row panel at a time (SgemmDriver.h). */
#define STRATA_SGEMM_L1_B_FLOATS STRATA_TUNING(l1_b_floats)
/* A matrix, or a 1x1 convolution's dense pixels, is read in place by the
 * microkernel rather than packed when its rows spread over the L1 cache's
 * sets (SgemmDriver.h rowStrideOf, spreadRows: rows a multiple of 4 KiB
 * apart are packed), with the next row panel prefetched as it goes
 * (SgemmRuns.h), since the hardware does not follow a panel's rows read
 * side by side. Batch-8 1x1 convolutions, AVX-512: without the prefetch,
 * in place was 1.15-1.5x slower than packed (96 and 128 channels to 16-24
 * outputs); with it 0.65-0.75x of packed there, 0.85-0.98x for 256-960
 * channels to 64-1000 outputs.
 *
 * A convolution's windows are read in place (no im2col copy) when the
 * pixels of an output row are at most this many floats apart
 * (SgemmDriver.h convPixelStep). That path reads a window's runs and has
 * no prefetch. */
#define STRATA_SGEMM_CONV_IN_PLACE_MAX_STEP STRATA_TUNING(conv_step)
/* A 1x1 convolution's dense pixels (rowStrideOf) are read in place only
 * below this many input channels, deeper ones packed (0: in place at any
 * depth). */
#define STRATA_SGEMM_POINTWISE_IN_PLACE_DEPTH STRATA_TUNING(pointwise_depth)
/* At most this many rows of A in a call: B is read in place rather than
 * packed (SgemmDriver.h). */
#define STRATA_SGEMM_IN_PLACE_B_ROWS STRATA_TUNING(in_place_b_rows)
/* Rows of B ahead of the one a depth step reads that it prefetches
 * (SgemmRuns.h). */
#define STRATA_SGEMM_B_PREFETCH_ROWS STRATA_TUNING(b_prefetch_rows)
#endif

/* Rows of A packed at a time: MR times this many panels, which covers
 * mc_rows. */
#define STRATA_SGEMM_MC_PANELS(mr, mc_rows) (((mc_rows) + (mr) - 1) / (mr))
/* Packed A keeps rows (not k-major panels): row i of an MR-row panel at
 * floats i * this from the panel's start, a compile-time constant so the
 * microkernel addresses every row from one register; the 16 floats of
 * padding spread the rows over different L1 sets. */
#define STRATA_SGEMM_A_ROW_STRIDE(kc) ((kc) + 16)

/* Bit 0 of the flags argument: add to C instead of overwriting it. */
#define STRATA_SGEMM_ACCUMULATE 1
/* Bit 1: B was packed at compile time into panels of ldb columns (NR, or a
 * multiple of NR that the kernel reads as strips of NR: a multi-ISA
 * module's weights are packed for its first variant), each its whole
 * depth k-major (k x ldb floats, panel after panel; the layout
 * --strata-pack-weights gives a constant weight; columns past the weight's
 * last in its last panel are zeros); the call's b points at the panel of
 * its first column, a multiple of ldb. Nothing is packed per call. */
#define STRATA_SGEMM_PACKED_B 2
/* Bits 2-4: an epilogue fused into the last store of each tile (the
 * elementwise op that read the product; MatmulUkernel.cpp): add bias[j]
 * (bias argument), add residual[i][j] (residual argument, row stride ldr),
 * the residual before the bias rather than after, then clamp to
 * [lo, hi] (IEEE maximum/minimum: NaN stays NaN; an absent bound is an
 * infinity). Not with STRATA_SGEMM_ACCUMULATE. */
#define STRATA_SGEMM_BIAS 4
#define STRATA_SGEMM_RESIDUAL 8
#define STRATA_SGEMM_RESIDUAL_FIRST 16
#define STRATA_SGEMM_CLAMP 32
/* Bits 6-7, the depthwise kernel's only (DwconvDriver.h): the window's
 * maximum or sum (a max or sum pooling) instead of the convolution. */
#define STRATA_DW_POOL_MAX 64
#define STRATA_DW_POOL_SUM 128
/* Bit 8, both kernels: the final values of C go out with non-temporal
 * stores where a whole vector is aligned (then a store fence). The compiler
 * sets it when the whole result is too large to stay in the cache for its
 * reader (Codegen.h, kDefaultStreamedResultBytes): streaming it skips
 * reading every line of C in before it is overwritten. */
#define STRATA_SGEMM_STREAM 256
/* Bit 9, the matmul kernel's only: B is given transposed, element (p, j)
 * at b[j * ldb + p] (the k-contiguous rows of a key matrix that attention's
 * Q x K^T reads). It is always packed per call (8 x 8 blocks transposed in
 * registers); not with STRATA_SGEMM_PACKED_B. */
#define STRATA_SGEMM_TRANSPOSED_B 512
/* Bit 10, the convolution kernel's only, with STRATA_SGEMM_PACKED_B: the
 * convolution is 3x3 of stride and dilation 1 and B is not its filter g but
 * the filter's Winograd F(4x4, 3x3) transform U = G g G^T, packed at
 * compile time (--strata-pack-weights) in panels of ldb columns, each
 * 36 * C deep: position (a, b) of the 6x6 transform, then the input
 * channel (a panel is [36][C][ldb]). The kernel computes the convolution
 * by Winograd's algorithm (WinogradDriver.h): 4x4 output tiles from 6x6
 * input tiles, 36 products of C-deep matrices where the direct
 * convolution makes 9 * C-deep ones of 16 pixels each (2.25x fewer
 * multiply-adds). k stays 9 * C. */
#define STRATA_SGEMM_WINOGRAD 1024
/* The Winograd kernel's output tiles and the input tiles they read. */
#define STRATA_SWINOGRAD_TILE 4
#define STRATA_SWINOGRAD_ALPHA 6
/* Floats of scratch the Winograd kernel takes before its products' own
 * (the matmul driver's, for m = the tiles of a band, n, k = C): the band's
 * input transforms (36 x tiles x C) and products (36 x tiles x n), each
 * rounded up to 16 floats. A band is whole rows of tiles (each
 * STRATA_SWINOGRAD_TILE output rows), enough for at least
 * STRATA_SWINOGRAD_BAND_MIN_TILES tiles (the products' rows: a 13-wide
 * image's 4 tiles a row made products too thin to run near the
 * microkernel's peak). */
#define STRATA_SWINOGRAD_BAND_MIN_TILES 28
#define STRATA_SWINOGRAD_ROW_TILES(outWidth)                                   \
  (((outWidth) + STRATA_SWINOGRAD_TILE - 1) / STRATA_SWINOGRAD_TILE)
#define STRATA_SWINOGRAD_BAND_TILE_ROWS(outWidth)                              \
  ((STRATA_SWINOGRAD_BAND_MIN_TILES + STRATA_SWINOGRAD_ROW_TILES(outWidth) -   \
    1) /                                                                       \
   STRATA_SWINOGRAD_ROW_TILES(outWidth))
#define STRATA_SWINOGRAD_BAND_TILES(outWidth)                                  \
  (STRATA_SWINOGRAD_ROW_TILES(outWidth) *                                      \
   STRATA_SWINOGRAD_BAND_TILE_ROWS(outWidth))
#define STRATA_SWINOGRAD_SCRATCH(outWidth, c, n)                               \
  (STRATA_SGEMM_ROUND_UP(36 * STRATA_SWINOGRAD_BAND_TILES(outWidth) * (c),     \
                         16) +                                                 \
   STRATA_SGEMM_ROUND_UP(36 * STRATA_SWINOGRAD_BAND_TILES(outWidth) * (n),     \
                         16))

/* Floats of scratch one call needs for an m x n x k problem with the
 * tuning (kc, mc_rows, nc) of its variant: packed A (min(MC, m rounded up
 * to MR) rows of STRATA_SGEMM_A_ROW_STRIDE) then packed B (min(kc, k) x
 * min(nc, n rounded up to NR)). */
#define STRATA_SGEMM_ROUND_UP(x, r) (((x) + (r) - 1) / (r) * (r))
#define STRATA_SGEMM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define STRATA_SGEMM_SCRATCH_A(mr, kc, mc_rows, m, k)                          \
  (STRATA_SGEMM_MIN((mr) * STRATA_SGEMM_MC_PANELS(mr, mc_rows),                \
                    STRATA_SGEMM_ROUND_UP((m), (mr))) *                        \
   STRATA_SGEMM_A_ROW_STRIDE(kc))
#define STRATA_SGEMM_SCRATCH_B(nr, kc, nc, n, k)                               \
  (STRATA_SGEMM_MIN((nc), STRATA_SGEMM_ROUND_UP((n), (nr))) *                  \
   STRATA_SGEMM_MIN((kc), (k)))

#endif /* STRATA_UKERNEL_SGEMM_PARAMS_H_ */
