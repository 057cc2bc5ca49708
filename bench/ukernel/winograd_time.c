/* winograd_time.c - the convolution microkernel's two ways through a 3x3
 * stride-1 convolution on this host (strata_ukernel_sconv_f32, as the
 * compiler calls it: one NHWC image read in place with its zero padding of
 * 1, bias + relu, calls of ROWS output rows): directly against the filter
 * packed at compile time, and by Winograd's F(4x4, 3x3)
 * (STRATA_SGEMM_WINOGRAD: against the filter's transforms, packed as
 * --strata-pack-weights packs them). Rounds interleave the two; prints each
 * one's median time, its GFLOP/s counted as the direct convolution's
 * multiply-adds, the ratio, and the largest difference between the two
 * outputs relative to the largest output (exit 1 above 1e-4).
 *
 *   winograd_time H W C F ROWS REPS ROUNDS [COLS]
 *
 * COLS (a multiple of 32; F by default) cuts the filters into calls of that
 * many, as a workgroup's column tile.
 * H x W is the output (any sizes: partial tiles at the edges), C and F any
 * channel counts.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "time_util.h"

#include "sconv_abi.h"

enum { PACKED_B = 2, BIAS = 4, CLAMP = 32, WINOGRAD = 1024, PANEL = 32 };

/* The filter's transform U = G g G^T for every (c, f), packed as
 * --strata-pack-weights packs it: panels of 32 columns, each [36][C][32]
 * (zeros past F). */
static void transformFilter(const float* g, int64_t c, int64_t f, float* u) {
  static const double G[6][3] = {{1.0 / 4, 0, 0},
                                 {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                 {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                 {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                 {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                 {0, 0, 1}};
  for (int64_t ci = 0; ci < c; ++ci) {
    for (int64_t fi = 0; fi < f; ++fi) {
      double tmp[6][3];
      for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 3; ++j) {
          double s = 0;
          for (int k = 0; k < 3; ++k) {
            s += G[i][k] * g[((k * 3 + j) * c + ci) * f + fi];
          }
          tmp[i][j] = s;
        }
      }
      for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) {
          double s = 0;
          for (int k = 0; k < 3; ++k) {
            s += tmp[i][k] * G[j][k];
          }
          float* panel = u + fi / PANEL * (36 * c * PANEL);
          panel[((i * 6 + j) * c + ci) * PANEL + fi % PANEL] = (float)s;
        }
      }
    }
  }
}

int main(int argc, char** argv) {
  if (argc != 8 && argc != 9) {
    fprintf(stderr, "usage: winograd_time H W C F ROWS REPS ROUNDS [COLS]\n");
    return 2;
  }
  int64_t h = atoi(argv[1]), w = atoi(argv[2]), c = atoi(argv[3]),
          f = atoi(argv[4]), rows = atoi(argv[5]);
  int reps = atoi(argv[6]), rounds = atoi(argv[7]);
  int64_t cols = argc == 9 ? atoi(argv[8]) : f;
  if (h <= 0 || w <= 0 || c <= 0 || f <= 0 || rows <= 0 || reps <= 0 ||
      rounds <= 0 || cols <= 0 || (cols < f && cols % PANEL)) {
    fprintf(stderr,
            "winograd_time: sizes must be positive, COLS a multiple "
            "of 32\n");
    return 2;
  }
  int64_t k = 9 * c, panels = (f + PANEL - 1) / PANEL;
  /* The unpadded input; the kernel reads it in place, padding 1. */
  float* in = floats(h * w * c);
  for (int64_t i = 0; i < h * w * c; ++i) {
    in[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
  }
  float* g = floats(k * f);
  for (int64_t i = 0; i < k * f; ++i) {
    g[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
  }
  /* The direct kernel's filter: panels of 32 columns, each k x 32. */
  float* packed = floats(panels * PANEL * k);
  memset(packed, 0, sizeof(float) * panels * PANEL * k);
  for (int64_t p = 0; p < k; ++p) {
    for (int64_t j = 0; j < f; ++j) {
      packed[j / PANEL * (k * PANEL) + p * PANEL + j % PANEL] = g[p * f + j];
    }
  }
  float* u = floats(panels * PANEL * 36 * c);
  memset(u, 0, sizeof(float) * panels * PANEL * 36 * c);
  transformFilter(g, c, f, u);
  float* bias = floats(f);
  for (int64_t i = 0; i < f; ++i) {
    bias[i] = 0.1f;
  }
  float* scratch = floats(16 << 20);
  float* out[2] = {floats(h * w * f), floats(h * w * f)};
  float lo = 0.0f, hi = INFINITY;
  uint32_t loBits, hiBits;
  memcpy(&loBits, &lo, 4);
  memcpy(&hiBits, &hi, 4);
  double* times = calloc((size_t)(2 * rounds), sizeof(double));
  for (int r = 0; r < rounds; ++r) {
    for (int variant = 0; variant < 2; ++variant) {
      double best = 1e30;
      for (int q = 0; q < reps; ++q) {
        double start = now();
        for (int64_t j = 0; j < f; j += cols) {
          int64_t nc = cols < f - j ? cols : f - j;
          for (int64_t y = 0; y < h; y += rows) {
            int64_t n = rows < h - y ? rows : h - y;
            /* The call's input rows: from its first window row (clamped to
             * the image) to its last, the top padding what lies above. */
            int64_t first = y - 1 < 0 ? 0 : y - 1;
            int64_t last = y + n + 1 > h ? h : y + n + 1;
            strata_ukernel_sconv_f32(
                (int64_t)in, first * w * c, w * c, c, last - first, w,
                first - (y - 1), 1, (int64_t)(variant ? u : packed),
                j / PANEL * (variant ? 36 : 9) * c * PANEL, PANEL,
                (int64_t)out[variant], y * w * f + j, f, n * w, nc, k,
                PACKED_B | BIAS | CLAMP | (variant ? WINOGRAD : 0),
                (int64_t)scratch, w, c, 3, 1, 1, 1, 1, (int64_t)(bias + j), 0,
                0, loBits, hiBits);
          }
        }
        double elapsed = now() - start;
        best = elapsed < best ? elapsed : best;
      }
      times[variant * rounds + r] = best;
    }
  }
  double worst = 0, largest = 0;
  for (int64_t i = 0; i < h * w * f; ++i) {
    double d = fabs((double)out[1][i] - out[0][i]);
    worst = d > worst ? d : worst;
    largest = fabs(out[0][i]) > largest ? fabs(out[0][i]) : largest;
  }
  double flops = 2.0 * h * w * f * k;
  printf(
      "3x3 conv %lldx%lld, %lld -> %lld channels, calls of %lld rows x %lld "
      "filters; %d rounds of the best of %d\n",
      (long long)h, (long long)w, (long long)c, (long long)f, (long long)rows,
      (long long)cols, rounds, reps);
  const char* names[2] = {"direct", "winograd"};
  for (int variant = 0; variant < 2; ++variant) {
    double own[rounds], ratio[rounds];
    for (int r = 0; r < rounds; ++r) {
      own[r] = times[variant * rounds + r];
      ratio[r] = times[variant * rounds + r] / times[r];
    }
    double t = median(own, rounds);
    printf("  %-9s %9.1f us %7.1f GFLOP/s (direct's)  %.3fx of direct\n",
           names[variant], t * 1e6, flops / t * 1e-9, median(ratio, rounds));
  }
  double relative = largest > 0 ? worst / largest : worst;
  printf("  largest difference %.3g of the largest output %.3g (%.2g)\n", worst,
         largest, relative);
  return relative > 1e-4 || !(largest > 0);
}
