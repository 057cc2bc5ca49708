/* idwconv_check.c - checks strata_ukernel_idwconv_s8 (the int8 depthwise
 * convolution microkernel, ukernel/IdwconvDriver.h) against a scalar
 * reference on edge shapes: padding with a nonzero pad value, stride 2,
 * dilation, odd channel counts (the scalar tail), a 5x5 window, i32
 * output (overwritten and accumulated) and the requantization (zero
 * points 0/128/255 as the compiler folds them, saturation at both ends).
 * Built by bench/ukernel/run.sh check against each variant's object. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "IgemmParams.h"

void strata_ukernel_idwconv_s8(
    int64_t inBase, int64_t inOffset, int64_t inStrideH, int64_t inStrideW,
    int64_t inRows, int64_t inCols, int64_t padTop, int64_t padLeft,
    int64_t padValue, int64_t filterBase, int64_t filterOffset,
    int64_t filterStrideH, int64_t filterStrideW, int64_t outBase,
    int64_t outOffset, int64_t outStrideH, int64_t outStrideW, int64_t rows,
    int64_t outWidth, int64_t channels, int64_t kernelH, int64_t kernelW,
    int64_t strideH, int64_t strideW, int64_t dilationH, int64_t dilationW,
    int64_t flags, int64_t scratch, int64_t adjust, int64_t multiplier,
    int64_t zeroBits, int64_t loBits, int64_t hiBits);

static uint32_t seed = 12345;
static int rnd(int lo, int hi) {
  seed = seed * 1103515245u + 12345u;
  return lo + (int)((seed >> 8) % (uint32_t)(hi - lo + 1));
}
static int64_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

struct Case {
  int h, w, c, kh, kw, s, d, pt, pl, pb, pr, pad,
      mode; /* mode 0 i32, 1 acc, 2 q */
  float zero, lo, hi, scale;
};

static int run(const struct Case* k) {
  int oh = (k->h + k->pt + k->pb - (k->kh - 1) * k->d - 1) / k->s + 1;
  int ow = (k->w + k->pl + k->pr - (k->kw - 1) * k->d - 1) / k->s + 1;
  int8_t* in = malloc((size_t)k->h * k->w * k->c);
  int8_t* f = malloc((size_t)k->kh * k->kw * k->c);
  int32_t* adj = malloc(sizeof(int32_t) * k->c);
  float* mul = malloc(sizeof(float) * k->c);
  int32_t* ref = malloc(sizeof(int32_t) * oh * ow * k->c);
  int32_t* out = malloc(sizeof(int32_t) * oh * ow * k->c);
  void* scratch = malloc(STRATA_IDWCONV_SCRATCH_BYTES(k->kh * k->kw, k->c));
  for (int i = 0; i < k->h * k->w * k->c; ++i) in[i] = (int8_t)rnd(-128, 127);
  for (int i = 0; i < k->kh * k->kw * k->c; ++i) f[i] = (int8_t)rnd(-128, 127);
  for (int i = 0; i < k->c; ++i) {
    adj[i] = rnd(-40000, 40000);
    mul[i] = k->scale * (float)rnd(1, 100) / 50.0f;
  }
  for (int i = 0; i < oh * ow * k->c; ++i) out[i] = 7;
  int errors = 0;
  for (int oy = 0; oy < oh; ++oy)
    for (int ox = 0; ox < ow; ++ox)
      for (int c = 0; c < k->c; ++c) {
        int32_t acc = 0;
        for (int ky = 0; ky < k->kh; ++ky)
          for (int kx = 0; kx < k->kw; ++kx) {
            int y = oy * k->s + ky * k->d - k->pt;
            int x = ox * k->s + kx * k->d - k->pl;
            int v = y < 0 || y >= k->h || x < 0 || x >= k->w
                        ? k->pad
                        : in[(y * k->w + x) * k->c + c];
            acc += v * f[(ky * k->kw + kx) * k->c + c];
          }
        int at = (oy * ow + ox) * k->c + c;
        if (k->mode == 1) acc += 7;
        if (k->mode == 2) {
          float t = nearbyintf((float)(acc + adj[c]) * mul[c]) + k->zero;
          t = fminf(fmaxf(t, k->lo), k->hi);
          acc = (int8_t)(int32_t)t;
        }
        ref[at] = acc;
      }
  int flags = k->mode == 1   ? STRATA_IGEMM_ACCUMULATE
              : k->mode == 2 ? STRATA_IGEMM_REQUANTIZE
                             : 0;
  strata_ukernel_idwconv_s8((int64_t)(intptr_t)in, 0, k->w * k->c, k->c, k->h,
                            k->w, k->pt, k->pl, k->pad, (int64_t)(intptr_t)f, 0,
                            k->kw * k->c, k->c, (int64_t)(intptr_t)out, 0,
                            ow * k->c, k->c, oh, ow, k->c, k->kh, k->kw, k->s,
                            k->s, k->d, k->d, flags, (int64_t)(intptr_t)scratch,
                            (int64_t)(intptr_t)adj, (int64_t)(intptr_t)mul,
                            bits(k->zero), bits(k->lo), bits(k->hi));
  int sat = 0;
  for (int i = 0; i < oh * ow * k->c; ++i) {
    int32_t got = k->mode == 2 ? ((int8_t*)out)[i] : out[i];
    if (k->mode == 2)
      sat +=
          ref[i] == (int8_t)(int32_t)k->lo || ref[i] == (int8_t)(int32_t)k->hi;
    if (got != ref[i] && errors++ < 5)
      printf("  at %d: got %d, expected %d\n", i, got, ref[i]);
  }
  printf(
      "%s %dx%dx%d k%dx%d s%d d%d pad %d,%d,%d,%d value %d mode %d: %d "
      "errors, %.0f%% saturated\n",
      errors ? "FAIL" : "ok", k->h, k->w, k->c, k->kh, k->kw, k->s, k->d, k->pt,
      k->pl, k->pb, k->pr, k->pad, k->mode, errors,
      100.0 * sat / (oh * ow * k->c));
  free(in), free(f), free(adj), free(mul), free(ref), free(out), free(scratch);
  return errors != 0;
}

int main(void) {
  const struct Case cases[] = {
      {17, 17, 24, 3, 3, 1, 1, 1, 1, 1, 1, -128, 2, -128, -128, 127, 0.0005f},
      {15, 15, 19, 3, 3, 2, 1, 1, 1, 1, 1, -91, 2, -28, -128, 127, 0.0004f},
      {9, 9, 40, 5, 5, 1, 1, 2, 2, 2, 2, -5, 2, 2, -128, 127, 0.0003f},
      {12, 13, 33, 3, 3, 1, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0},
      {12, 13, 32, 3, 3, 2, 1, 0, 1, 1, 0, 3, 1, 0, 0, 0, 0},
      {56, 56, 144, 3, 3, 1, 1, 1, 1, 1, 1, -128, 2, -128, -128, 127, 0.001f},
      {8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1, 127, 2, 127, -128, 127, 0.01f},
      {5, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, -128, 2, -128, -128, -28, 0.01f},
      {1, 1, 16, 3, 3, 1, 1, 1, 1, 1, 1, -128, 2, 0, -128, 127, 0.001f},
  };
  int failed = 0;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
    failed += run(&cases[i]);
  printf("%d failed\n", failed);
  return failed != 0;
}
