/* nchwc_time.c - the f32 3x3 convolution in a channel-blocked layout
 * (NCHWc, 16 channels a block: the layout ONNX Runtime keeps between
 * AVX-512 convolutions) beside this repository's NHWC microkernel
 * (strata_ukernel_sconv_f32, built by nchwc.sh for the host's row as the
 * compiler builds it), on one image, hot in cache, interleaved rounds.
 *
 * The blocked kernel is written here the way such kernels are: an output
 * tile of BLOCK_PIXELS pixels of a row by BLOCK_FILTERS blocks of 16
 * output channels (14 x 2 by default: the NHWC kernel's 14 x 32 tile, 28
 * accumulators), each step one input channel: BLOCK_PIXELS broadcasts of
 * the input (one cache line holds a pixel's 16 channels of a block) and
 * BLOCK_FILTERS filter vectors. -DBLOCK_PIXELS=7 -DBLOCK_FILTERS=2 ran as
 * fast; 7 x 4 needs 33 vector registers and spills (1.22x slower). Input
 * padded (like the NHWC kernel's), bias and ReLU applied before the store,
 * as both layouts' models run them. Both kernels' outputs are compared (to
 * 1e-3 relative) after each size.
 *
 *   nchwc_time H C F REPS ROUNDS
 * (H a multiple of BLOCK_PIXELS, C of 64, F of 16 x BLOCK_FILTERS)
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sconv_abi.h"
#include "time_util.h"

enum { PACKED_B = 2, BIAS = 4, CLAMP = 32, PANEL = 32, CB = 16 };
#ifndef BLOCK_PIXELS
#define BLOCK_PIXELS 14
#endif
#ifndef BLOCK_FILTERS
#define BLOCK_FILTERS 2
#endif

/* in: [C/16][h+2][w+2][16] (padded); filter: [F/16][C/16][3][3][16 in][16
 * out]; out: [F/16][h][w][16]. */
static void convNchwc16(const float* in, const float* filter, const float* bias,
                        float* out, int64_t h, int64_t w, int64_t c,
                        int64_t f) {
  int64_t cBlocks = c / CB, wp = w + 2, hp = h + 2;
  int64_t filterBlock = cBlocks * 9 * CB * CB; /* one output block's */
  for (int64_t ob = 0; ob < f / CB; ob += BLOCK_FILTERS) {
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; x += BLOCK_PIXELS) {
        __m512 acc[BLOCK_PIXELS][BLOCK_FILTERS];
#pragma clang loop unroll(full)
        for (int j = 0; j < BLOCK_FILTERS; ++j) {
          __m512 b = _mm512_load_ps(bias + (ob + j) * CB);
#pragma clang loop unroll(full)
          for (int p = 0; p < BLOCK_PIXELS; ++p) {
            acc[p][j] = b;
          }
        }
        for (int64_t cb = 0; cb < cBlocks; ++cb) {
          for (int64_t ky = 0; ky < 3; ++ky) {
            for (int64_t kx = 0; kx < 3; ++kx) {
              const float* ip = in + ((cb * hp + y + ky) * wp + x + kx) * CB;
              const float* fp =
                  filter + ((ob * cBlocks + cb) * 9 + ky * 3 + kx) * CB * CB;
              for (int ic = 0; ic < CB; ++ic) {
                __m512 wv[BLOCK_FILTERS];
#pragma clang loop unroll(full)
                for (int j = 0; j < BLOCK_FILTERS; ++j) {
                  wv[j] = _mm512_load_ps(fp + j * filterBlock + ic * CB);
                }
#pragma clang loop unroll(full)
                for (int p = 0; p < BLOCK_PIXELS; ++p) {
                  __m512 v = _mm512_set1_ps(ip[p * CB + ic]);
#pragma clang loop unroll(full)
                  for (int j = 0; j < BLOCK_FILTERS; ++j) {
                    acc[p][j] = _mm512_fmadd_ps(v, wv[j], acc[p][j]);
                  }
                }
              }
            }
          }
        }
        __m512 zero = _mm512_setzero_ps();
#pragma clang loop unroll(full)
        for (int j = 0; j < BLOCK_FILTERS; ++j) {
#pragma clang loop unroll(full)
          for (int p = 0; p < BLOCK_PIXELS; ++p) {
            _mm512_store_ps(out + (((ob + j) * h + y) * w + x + p) * CB,
                            _mm512_max_ps(acc[p][j], zero));
          }
        }
      }
    }
  }
}

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: nchwc_time H C F REPS ROUNDS\n");
    return 2;
  }
  int64_t h = atoi(argv[1]), c = atoi(argv[2]), f = atoi(argv[3]);
  int reps = atoi(argv[4]), rounds = atoi(argv[5]);
  if (h <= 0 || h % BLOCK_PIXELS || c <= 0 || c % (CB * 4) || f <= 0 ||
      f % (CB * BLOCK_FILTERS) || reps <= 0 || rounds <= 0) {
    fprintf(stderr,
            "nchwc_time: H a multiple of %d, C of %d, F of %d; REPS and "
            "ROUNDS positive\n",
            BLOCK_PIXELS, CB * 4, CB * BLOCK_FILTERS);
    return 2;
  }
  int64_t w = h, hp = h + 2, wp = w + 2, k = 9 * c;
  /* The same values in both layouts: x(y, x, ch) and wt(ky, kx, ch, o). */
  float *inNhwc = floats(hp * wp * c), *inBlocked = floats(hp * wp * c);
  for (int64_t y = 0; y < hp; ++y) {
    for (int64_t x = 0; x < wp; ++x) {
      for (int64_t ch = 0; ch < c; ++ch) {
        int inside = y > 0 && y <= h && x > 0 && x <= w;
        float v = inside ? (float)(((y * 31 + x * 7 + ch * 3) % 13) - 6) / 13.0f
                         : 0.0f;
        inNhwc[(y * wp + x) * c + ch] = v;
        inBlocked[((ch / CB * hp + y) * wp + x) * CB + ch % CB] = v;
      }
    }
  }
  int64_t panels = f / PANEL;
  float *packed = floats(panels * PANEL * k), *blockedFilter = floats(k * f);
  for (int64_t ky = 0; ky < 3; ++ky) {
    for (int64_t kx = 0; kx < 3; ++kx) {
      for (int64_t ch = 0; ch < c; ++ch) {
        for (int64_t o = 0; o < f; ++o) {
          float v = (float)(((ky * 5 + kx * 11 + ch * 7 + o * 3) % 17) - 8) /
                    (17.0f * (float)c);
          int64_t row = (ky * 3 + kx) * c + ch;
          packed[(o / PANEL * k + row) * PANEL + o % PANEL] = v;
          blockedFilter[((((o / CB) * (c / CB) + ch / CB) * 9 + ky * 3 + kx) *
                             CB +
                         ch % CB) *
                            CB +
                        o % CB] = v;
        }
      }
    }
  }
  float* bias = floats(f);
  for (int64_t i = 0; i < f; ++i) {
    bias[i] = 0.01f * (float)(i % 7);
  }
  float* scratch = floats(4 << 20);
  float *outNhwc = floats(h * w * f), *outBlocked = floats(h * w * f);
  float lo = 0.0f, hi = INFINITY;
  uint32_t loBits, hiBits;
  memcpy(&loBits, &lo, 4);
  memcpy(&hiBits, &hi, 4);
  /* Rows a call of the NHWC kernel: the compiler's tiles at batch 8. */
  int64_t rows = h >= 28 ? 4 : h;
  double timesNhwc[rounds], timesBlocked[rounds], ratio[rounds];
  for (int r = 0; r < rounds; ++r) {
    for (int side = 0; side < 2; ++side) {
      double best = 1e30;
      for (int q = 0; q < reps; ++q) {
        double start = now();
        if (side == 0) {
          for (int64_t y = 0; y < h; y += rows) {
            strata_ukernel_sconv_f32(
                (int64_t)inNhwc, y * wp * c, wp * c, c, rows + 2, wp, 0, 0,
                (int64_t)packed, 0, PANEL, (int64_t)outNhwc, y * w * f, f,
                rows * w, f, k, PACKED_B | BIAS | CLAMP, (int64_t)scratch, w, c,
                3, 1, 1, 1, 1, (int64_t)bias, 0, 0, loBits, hiBits);
          }
        } else {
          convNchwc16(inBlocked, blockedFilter, bias, outBlocked, h, w, c, f);
        }
        double elapsed = now() - start;
        best = elapsed < best ? elapsed : best;
      }
      (side == 0 ? timesNhwc : timesBlocked)[r] = best;
    }
    ratio[r] = timesBlocked[r] / timesNhwc[r];
  }
  double worst = 0;
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      for (int64_t o = 0; o < f; ++o) {
        double a = outNhwc[(y * w + x) * f + o];
        double b = outBlocked[((o / CB * h + y) * w + x) * CB + o % CB];
        double d = fabs(a - b) / (fabs(a) > 1.0 ? fabs(a) : 1.0);
        worst = d > worst ? d : worst;
      }
    }
  }
  double flops = 2.0 * h * w * f * k;
  double mn = median(timesNhwc, rounds), mb = median(timesBlocked, rounds);
  printf(
      "3x3 conv %lldx%lld, %lld -> %lld channels: NHWC %.1f us (%.1f "
      "GFLOP/s), NCHWc16 %.1f us (%.1f GFLOP/s), NCHWc16/NHWC %.3f "
      "(median of %d rounds, best of %d)\n",
      (long long)h, (long long)w, (long long)c, (long long)f, mn * 1e6,
      flops / mn * 1e-9, mb * 1e6, flops / mb * 1e-9, median(ratio, rounds),
      rounds, reps);
  if (worst > 1e-3) {
    printf("  the layouts' outputs differ by up to %g\n", worst);
    return 1;
  }
  return 0;
}
