/* sconv_time.c - times builds of the f32 convolution microkernel
 * (strata_ukernel_sconv_f32 of compiler/lib/Codegen/LLVMCPU/ukernel) that
 * differ only in their tuning, on one convolution (3x3 stride 1 unless
 * KERNEL and STRIDE say otherwise: resnet18's stem is 7 and 2, on C = 3)
 * as the compiler calls it: one padded NHWC image, its filter packed at
 * compile time
 * (STRATA_SGEMM_PACKED_B, 32-column panels), bias + relu, output rows cut
 * into calls of ROWS rows (a workgroup's tile). sconv.sh builds the
 * variants and the table naming them (sconv_variants.h: NV, names[],
 * fns[]), each under its own symbol. Rounds interleave the variants; each
 * round takes the best of REPS calls over the image (COLS filters a call
 * when given, as a workgroup's column tile; all F by default). Prints each
 * variant's
 * median time, GFLOP/s and median ratio to the first, and checks that
 * every variant's output equals the first's to 1e-4 (the depth blocks
 * change the summation order).
 *
 *   sconv_time H C F ROWS REPS ROUNDS [COLS [KERNEL [STRIDE]]]
 *
 * H is the output's height and width; the input is as large as the
 * windows need ((H - 1) * STRIDE + KERNEL, padding included).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "time_util.h"

#include "sconv_abi.h"
#include "sconv_variants.h"

enum { PACKED_B = 2, BIAS = 4, CLAMP = 32, PANEL = 32 };

int main(int argc, char** argv) {
  if (argc < 7 || argc > 10) {
    fprintf(stderr,
            "usage: sconv_time H C F ROWS REPS ROUNDS [COLS [KERNEL "
            "[STRIDE]]]\n");
    return 2;
  }
  int64_t h = atoi(argv[1]), c = atoi(argv[2]), f = atoi(argv[3]);
  int64_t rows = atoi(argv[4]);
  int reps = atoi(argv[5]), rounds = atoi(argv[6]);
  int64_t cols = argc >= 8 ? atoi(argv[7]) : f;
  int64_t kernel = argc >= 9 ? atoi(argv[8]) : 3;
  int64_t stride = argc >= 10 ? atoi(argv[9]) : 1;
  if (h <= 0 || c <= 0 || f <= 0 || rows <= 0 || h % rows || reps <= 0 ||
      rounds <= 0 || cols <= 0 || f % cols || cols % PANEL || kernel <= 0 ||
      stride <= 0) {
    fprintf(stderr,
            "sconv_time: sizes must be positive, ROWS must divide H, COLS "
            "must divide F and be a multiple of %d\n",
            PANEL);
    return 2;
  }
  int64_t w = h, hp = (h - 1) * stride + kernel, wp = hp;
  int64_t k = kernel * kernel * c;
  int64_t panels = (f + PANEL - 1) / PANEL;
  float* in = floats(hp * wp * c);
  for (int64_t i = 0; i < hp * wp * c; ++i) {
    in[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
  }
  /* Panels of PANEL columns, each k x PANEL, zeros past f. */
  float* packed = floats(panels * PANEL * k);
  for (int64_t i = 0; i < panels * PANEL * k; ++i) {
    int64_t column = i / (PANEL * k) * PANEL + i % PANEL;
    packed[i] = column < f ? (float)((i * 5) % 11) / 11.0f - 0.5f : 0.0f;
  }
  float* bias = floats(f);
  for (int64_t i = 0; i < f; ++i) {
    bias[i] = 0.1f;
  }
  float* scratch = floats(4 << 20);
  float* out[NV];
  for (int v = 0; v < NV; ++v) {
    out[v] = floats(h * w * f);
  }
  float lo = 0.0f, hi = INFINITY;
  uint32_t loBits, hiBits;
  memcpy(&loBits, &lo, 4);
  memcpy(&hiBits, &hi, 4);
  double* times = calloc((size_t)(NV * rounds), sizeof(double));
  for (int r = 0; r < rounds; ++r) {
    for (int v = 0; v < NV; ++v) {
      double best = 1e30;
      for (int q = 0; q < reps; ++q) {
        double start = now();
        for (int64_t j = 0; j < f; j += cols) {
          for (int64_t y = 0; y < h; y += rows) {
            fns[v]((int64_t)in, y * stride * wp * c, wp * c, c,
                   (rows - 1) * stride + kernel, wp, 0, 0, (int64_t)packed,
                   j * k, PANEL, (int64_t)out[v], y * w * f + j, f, rows * w,
                   cols, k, PACKED_B | BIAS | CLAMP, (int64_t)scratch, w, c,
                   kernel, stride, stride, 1, 1, (int64_t)(bias + j), 0, 0,
                   loBits, hiBits);
          }
        }
        double elapsed = now() - start;
        best = elapsed < best ? elapsed : best;
      }
      times[v * rounds + r] = best;
    }
  }
  double flops = 2.0 * h * w * f * k;
  int status = 0;
  char strideLabel[32] = "";
  if (stride > 1) {
    snprintf(strideLabel, sizeof(strideLabel), " s%lld", (long long)stride);
  }
  printf(
      "%lldx%lld%s conv %lldx%lld, %lld -> %lld channels, %lld rows x %lld "
      "filters a call; %d rounds of the best of %d\n",
      (long long)kernel, (long long)kernel, strideLabel, (long long)h,
      (long long)w, (long long)c, (long long)f, (long long)rows,
      (long long)cols, rounds, reps);
  for (int v = 0; v < NV; ++v) {
    double worst = 0;
    for (int64_t i = 0; i < h * w * f; ++i) {
      double d = fabs((double)out[v][i] - out[0][i]);
      worst = d > worst ? d : worst;
    }
    if (worst > 1e-4) {
      printf("  %s: differs from %s by up to %g\n", names[v], names[0], worst);
      status = 1;
    }
    double own[rounds], ratio[rounds];
    for (int r = 0; r < rounds; ++r) {
      own[r] = times[v * rounds + r];
      ratio[r] = times[v * rounds + r] / times[r];
    }
    double m = median(own, rounds);
    printf("  %-12s %9.1f us %7.1f GFLOP/s  %.3fx of %s\n", names[v], m * 1e6,
           flops / m * 1e-9, median(ratio, rounds), names[0]);
  }
  return status;
}
