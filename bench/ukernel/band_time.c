/* band_time.c - the f32 convolution microkernel (strata_ukernel_sconv_f32
 * of compiler/lib/Codegen/LLVMCPU/ukernel, the host's variant) called as a
 * workgroup of a batched model calls it: per image and band of ROWS output
 * rows, one call over the band with bias, the residual add and ReLU, into
 * the image's own output (3x3, stride 1, pad 1, NHWC). Four modes,
 * interleaved in rounds of the best of REPS passes over the batch:
 *   window   the band's padded window (zeros around) filled and the
 *            image's rows copied in before the call, as the compiler did
 *            before the kernel took the padding itself; each image's
 *            input, output and residual its own (at batch 8 and 56x56x64,
 *            6.4 MB each: past a 2 MiB L2);
 *   model    the same without the window: the kernel reads the image's
 *            rows and skips the padding, as the compiler calls it now;
 *   hot-out  window, but every image writes one output and reads one
 *            residual (kept in cache);
 *   hot      hot-out without the fill and copy (the last window again).
 * Prints each mode's median time per image, GFLOP/s and ratio to `hot`:
 * what the memory around the kernel costs in the model, which bench/
 * ukernel/sconv.sh (one hot image) does not show. Checks the model mode's
 * first image against a scalar reference at a few pixels (exit 1 when it
 * differs).
 *
 *   band_time H C F ROWS BATCH REPS ROUNDS
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sconv_abi.h"
#include "time_util.h"

enum { PACKED_B = 2, BIAS = 4, RESIDUAL = 8, CLAMP = 32, PANEL = 32 };
enum { WINDOW, MODEL, HOT_OUT, HOT, MODES };
static const char* const kModes[MODES] = {"window", "model", "hot-out", "hot"};

int main(int argc, char** argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: band_time H C F ROWS BATCH REPS ROUNDS\n");
    return 2;
  }
  int64_t h = atoi(argv[1]), c = atoi(argv[2]), f = atoi(argv[3]);
  int64_t rows = atoi(argv[4]), batch = atoi(argv[5]);
  int reps = atoi(argv[6]), rounds = atoi(argv[7]);
  if (h <= 0 || c <= 0 || f <= 0 || rows <= 0 || h % rows || batch <= 0 ||
      reps <= 0 || rounds <= 0 || f % PANEL) {
    fprintf(stderr,
            "band_time: sizes must be positive, ROWS must divide H and F "
            "be a multiple of %d\n",
            PANEL);
    return 2;
  }
  int64_t w = h, wp = w + 2, k = 9 * c, image = h * w * c, result = h * w * f;
  float* in = floats(batch * image);
  float* residual = floats(batch * result);
  float* out = floats(batch * result);
  for (int64_t i = 0; i < batch * image; ++i) {
    in[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
  }
  for (int64_t i = 0; i < batch * result; ++i) {
    residual[i] = (float)((i * 3) % 7) / 7.0f - 0.5f;
  }
  /* The HWCF filter, and packed as the compiler packs it: panels of PANEL
   * columns, each k x PANEL. */
  float* filter = floats(k * f);
  float* packed = floats(k * f);
  for (int64_t i = 0; i < k * f; ++i) {
    filter[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
  }
  for (int64_t p = 0; p < f / PANEL; ++p) {
    for (int64_t r = 0; r < k; ++r) {
      for (int64_t j = 0; j < PANEL; ++j) {
        packed[(p * k + r) * PANEL + j] = filter[r * f + p * PANEL + j];
      }
    }
  }
  float* bias = floats(f);
  for (int64_t i = 0; i < f; ++i) {
    bias[i] = 0.1f;
  }
  float* window = floats((rows + 2) * wp * c);
  float* scratch = floats(4 << 20);
  float lo = 0.0f, hi = INFINITY;
  uint32_t loBits, hiBits;
  memcpy(&loBits, &lo, 4);
  memcpy(&hiBits, &hi, 4);
  double* times = calloc((size_t)(MODES * rounds), sizeof(double));
  for (int r = 0; r < rounds; ++r) {
    for (int mode = 0; mode < MODES; ++mode) {
      double best = 1e30;
      for (int q = 0; q < reps; ++q) {
        double start = now();
        for (int64_t n = 0; n < batch; ++n) {
          int64_t own = mode == WINDOW || mode == MODEL ? n : 0;
          for (int64_t y = 0; y < h; y += rows) {
            if (mode == MODEL) {
              /* Rows y - 1 to y + rows of the image, those that exist. */
              int64_t top = y > 0 ? 1 : 0;
              int64_t last = y + rows < h ? y + rows : h - 1;
              strata_ukernel_sconv_f32(
                  (int64_t)in, n * image + (y - top) * w * c, w * c, c,
                  last - (y - top) + 1, w, 1 - top, 1, (int64_t)packed, 0,
                  PANEL, (int64_t)(out + own * result), y * w * f, f, rows * w,
                  f, k, PACKED_B | BIAS | RESIDUAL | CLAMP, (int64_t)scratch, w,
                  c, 3, 1, 1, 1, 1, (int64_t)bias,
                  (int64_t)(residual + own * result + y * w * f), f, loBits,
                  hiBits);
              continue;
            }
            if (mode != HOT) {
              memset(window, 0, (size_t)((rows + 2) * wp * c) * sizeof(float));
              for (int64_t i = 0; i < rows + 2; ++i) {
                int64_t iy = y - 1 + i;
                if (iy >= 0 && iy < h) {
                  memcpy(window + (i * wp + 1) * c, in + n * image + iy * w * c,
                         (size_t)(w * c) * sizeof(float));
                }
              }
            }
            strata_ukernel_sconv_f32(
                (int64_t)window, 0, wp * c, c, rows + 2, wp, 0, 0,
                (int64_t)packed, 0, PANEL, (int64_t)(out + own * result),
                y * w * f, f, rows * w, f, k,
                PACKED_B | BIAS | RESIDUAL | CLAMP, (int64_t)scratch, w, c, 3,
                1, 1, 1, 1, (int64_t)bias,
                (int64_t)(residual + own * result + y * w * f), f, loBits,
                hiBits);
          }
        }
        double elapsed = now() - start;
        best = elapsed < best ? elapsed : best;
      }
      times[mode * rounds + r] = best;
      if ((mode == WINDOW || mode == MODEL) && r == 0) {
        /* Image 0's output (the last pass wrote every image's own):
         * corners, edges and a middle pixel against a scalar reference. */
        const int64_t pixels[][2] = {
            {0, 0},         {0, w - 1}, {h / 2, w / 2},    {h - 1, 0},
            {h - 1, w - 1}, {rows, 0},  {rows - 1, w - 1}, {0, w / 2},
            {h - 1, w / 3}};
        for (size_t p = 0; p < sizeof(pixels) / sizeof(pixels[0]); ++p) {
          int64_t oy = pixels[p][0], ox = pixels[p][1];
          for (int64_t j = 0; j < f; ++j) {
            double sum = bias[j];
            for (int64_t ky = 0; ky < 3; ++ky) {
              for (int64_t kx = 0; kx < 3; ++kx) {
                int64_t iy = oy + ky - 1, ix = ox + kx - 1;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) {
                  continue;
                }
                for (int64_t ch = 0; ch < c; ++ch) {
                  sum += (double)in[(iy * w + ix) * c + ch] *
                         filter[((ky * 3 + kx) * c + ch) * f + j];
                }
              }
            }
            sum += residual[(oy * w + ox) * f + j];
            double want = sum > 0 ? sum : 0;
            double got = out[(oy * w + ox) * f + j];
            if (fabs(got - want) > 1e-3 * (1 + fabs(want))) {
              fprintf(stderr,
                      "band_time: %s: output (%lld, %lld, %lld) is %g, the "
                      "reference %g\n",
                      kModes[mode], (long long)oy, (long long)ox, (long long)j,
                      got, want);
              return 1;
            }
          }
        }
      }
    }
  }
  double flops = 2.0 * h * w * f * k;
  printf(
      "3x3 conv %lldx%lld, %lld -> %lld channels, bands of %lld rows, batch "
      "%lld; %d rounds of the best of %d\n",
      (long long)h, (long long)w, (long long)c, (long long)f, (long long)rows,
      (long long)batch, rounds, reps);
  for (int mode = 0; mode < MODES; ++mode) {
    double own[rounds], ratio[rounds];
    for (int r = 0; r < rounds; ++r) {
      own[r] = times[mode * rounds + r] / batch;
      ratio[r] = times[mode * rounds + r] / times[HOT * rounds + r];
    }
    double m = median(own, rounds);
    printf("  %-8s %9.1f us an image %7.1f GFLOP/s  %.3fx of hot\n",
           kModes[mode], m * 1e6, flops / m * 1e-9, median(ratio, rounds));
  }
  return 0;
}
