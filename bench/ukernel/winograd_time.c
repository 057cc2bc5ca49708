/* winograd_time.c - what Winograd's F(4x4, 3x3) would make of a 3x3
 * stride-1 convolution on this host, before the compiler has it: the
 * convolution microkernel (strata_ukernel_sconv_f32, as the compiler calls
 * it: the padded NHWC image read in place against its filter packed at
 * compile time, bias + relu, calls of ROWS output rows) beside the same
 * convolution as 6x6 input tiles transformed (B^T d B, AVX-512 over 16
 * channels), 36 products of the tiles' transforms by the filter's
 * (strata_ukernel_sgemm_f32 on filter transforms packed beforehand, as the
 * compiler would pack them) and 4x4 output tiles transformed back (A^T m A)
 * with the bias and relu, a band of BAND tile rows at a time (its
 * transforms stay in the cache). Rounds interleave the two; prints each
 * one's median time, its GFLOP/s counted as the direct convolution's
 * multiply-adds, the ratio, and the largest difference between the two
 * outputs relative to the largest output.
 *
 *   winograd_time H C F ROWS BAND REPS ROUNDS
 *
 * H is the output's height and width (a multiple of 4); C and F multiples
 * of 16 and 32.
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "time_util.h"

#include "sconv_abi.h"

void strata_ukernel_sgemm_f32(int64_t aBase, int64_t aOffset, int64_t lda,
                              int64_t bBase, int64_t bOffset, int64_t ldb,
                              int64_t cBase, int64_t cOffset, int64_t ldc,
                              int64_t m, int64_t n, int64_t k, int64_t flags,
                              int64_t scratchBase, int64_t bias,
                              int64_t residual, int64_t ldr, int64_t loBits,
                              int64_t hiBits);

enum { PACKED_B = 2, BIAS = 4, CLAMP = 32, PANEL = 32 };

/* The filter's transform U = G g G^T for every (c, f), packed as the
 * matmul kernel reads a weight packed at compile time: for each of the 36
 * positions a C x F matrix in panels of 32 columns, each C x 32. */
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
          float* panel = u + (i * 6 + j) * c * f + fi / PANEL * (c * PANEL);
          panel[ci * PANEL + fi % PANEL] = (float)s;
        }
      }
    }
  }
}

/* B^T x over six vectors (rows or columns of a tile). */
#define BT6(x, y)                                                           \
  do {                                                                      \
    __m512 four = _mm512_set1_ps(4.0f), five = _mm512_set1_ps(5.0f),        \
           two = _mm512_set1_ps(2.0f);                                      \
    y[0] = _mm512_fmadd_ps(four, x[0], _mm512_fnmadd_ps(five, x[2], x[4])); \
    __m512 a = _mm512_fnmadd_ps(four, x[2], x[4]);                          \
    __m512 b = _mm512_fnmadd_ps(four, x[1], x[3]);                          \
    y[1] = _mm512_add_ps(a, b);                                             \
    y[2] = _mm512_sub_ps(a, b);                                             \
    __m512 p = _mm512_sub_ps(x[4], x[2]);                                   \
    __m512 q = _mm512_mul_ps(two, _mm512_sub_ps(x[3], x[1]));               \
    y[3] = _mm512_add_ps(p, q);                                             \
    y[4] = _mm512_sub_ps(p, q);                                             \
    y[5] = _mm512_fmadd_ps(four, x[1], _mm512_fnmadd_ps(five, x[3], x[5])); \
  } while (0)

/* A^T x: four vectors from six. */
#define AT6(x, y)                                                            \
  do {                                                                       \
    __m512 two = _mm512_set1_ps(2.0f), four = _mm512_set1_ps(4.0f),          \
           eight = _mm512_set1_ps(8.0f);                                     \
    __m512 s12 = _mm512_add_ps(x[1], x[2]), d12 = _mm512_sub_ps(x[1], x[2]); \
    __m512 s34 = _mm512_add_ps(x[3], x[4]), d34 = _mm512_sub_ps(x[3], x[4]); \
    y[0] = _mm512_add_ps(_mm512_add_ps(x[0], s12), s34);                     \
    y[1] = _mm512_fmadd_ps(two, d34, d12);                                   \
    y[2] = _mm512_fmadd_ps(four, s34, s12);                                  \
    y[3] = _mm512_add_ps(_mm512_fmadd_ps(eight, d34, d12), x[5]);            \
  } while (0)

/* The band's tiles (tile rows ty0 .. ty0 + bandRows, tilesW a row) of the
 * padded input (rows wp * c floats apart) into v: 36 matrices of
 * tiles x c. */
static void transformInput(const float* in, int64_t wp, int64_t c, int64_t ty0,
                           int64_t bandRows, int64_t tilesW, float* v) {
  int64_t tiles = bandRows * tilesW;
  for (int64_t t = 0; t < tiles; ++t) {
    int64_t ty = ty0 + t / tilesW, tx = t % tilesW;
    const float* origin = in + (4 * ty * wp + 4 * tx) * c;
    for (int64_t c0 = 0; c0 < c; c0 += 16) {
      __m512 rows[6][6];
      for (int i = 0; i < 6; ++i) {
        __m512 x[6];
        for (int j = 0; j < 6; ++j) {
          x[j] = _mm512_loadu_ps(origin + (i * wp + j) * c + c0);
        }
        BT6(x, rows[i]);
      }
      for (int j = 0; j < 6; ++j) {
        __m512 x[6], y[6];
        for (int i = 0; i < 6; ++i) {
          x[i] = rows[i][j];
        }
        BT6(x, y);
        for (int i = 0; i < 6; ++i) {
          _mm512_storeu_ps(v + ((i * 6 + j) * tiles + t) * c + c0, y[i]);
        }
      }
    }
  }
}

/* The band's 36 products m (tiles x f each) back to 4x4 output tiles, with
 * the bias and relu, into the output (rows w * f floats apart). */
static void transformOutput(const float* m, int64_t f, int64_t w, int64_t ty0,
                            int64_t bandRows, int64_t tilesW, const float* bias,
                            float* out) {
  int64_t tiles = bandRows * tilesW;
  __m512 zero = _mm512_setzero_ps();
  for (int64_t t = 0; t < tiles; ++t) {
    int64_t ty = ty0 + t / tilesW, tx = t % tilesW;
    float* origin = out + (4 * ty * w + 4 * tx) * f;
    for (int64_t f0 = 0; f0 < f; f0 += 16) {
      __m512 cols[6][4];
      for (int j = 0; j < 6; ++j) {
        __m512 x[6];
        for (int i = 0; i < 6; ++i) {
          x[i] = _mm512_loadu_ps(m + ((i * 6 + j) * tiles + t) * f + f0);
        }
        AT6(x, cols[j]);
      }
      __m512 b = _mm512_loadu_ps(bias + f0);
      for (int i = 0; i < 4; ++i) {
        __m512 x[6], y[4];
        for (int j = 0; j < 6; ++j) {
          x[j] = cols[j][i];
        }
        AT6(x, y);
        for (int j = 0; j < 4; ++j) {
          _mm512_storeu_ps(origin + (i * w + j) * f + f0,
                           _mm512_max_ps(_mm512_add_ps(y[j], b), zero));
        }
      }
    }
  }
}

int main(int argc, char** argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: winograd_time H C F ROWS BAND REPS ROUNDS\n");
    return 2;
  }
  int64_t h = atoi(argv[1]), c = atoi(argv[2]), f = atoi(argv[3]);
  int64_t rows = atoi(argv[4]), band = atoi(argv[5]);
  int reps = atoi(argv[6]), rounds = atoi(argv[7]);
  int64_t tilesW = h / 4;
  if (h <= 0 || h % 4 || c % 16 || f % PANEL || c <= 0 || f <= 0 || rows <= 0 ||
      h % rows || band <= 0 || tilesW % band || reps <= 0 || rounds <= 0) {
    fprintf(stderr,
            "winograd_time: H a multiple of 4 and of ROWS, BAND "
            "dividing H / 4, C of 16, F of 32\n");
    return 2;
  }
  int64_t w = h, hp = h + 2, wp = w + 2, k = 9 * c;
  float* in = floats(hp * wp * c);
  for (int64_t y = 0; y < hp; ++y) {
    for (int64_t x = 0; x < wp; ++x) {
      for (int64_t i = 0; i < c; ++i) {
        int inside = y > 0 && y <= h && x > 0 && x <= w;
        in[(y * wp + x) * c + i] =
            inside ? (float)(((y * wp + x) * c + i) * 7 % 13) / 13.0f - 0.5f
                   : 0.0f;
      }
    }
  }
  float* g = floats(k * f);
  for (int64_t i = 0; i < k * f; ++i) {
    g[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
  }
  /* The direct kernel's filter: panels of 32 columns, each k x 32. */
  float* packed = floats(k * f);
  for (int64_t p = 0; p < k; ++p) {
    for (int64_t j = 0; j < f; ++j) {
      packed[j / PANEL * (k * PANEL) + p * PANEL + j % PANEL] = g[p * f + j];
    }
  }
  float* u = floats(36 * c * f);
  transformFilter(g, c, f, u);
  float* bias = floats(f);
  for (int64_t i = 0; i < f; ++i) {
    bias[i] = 0.1f;
  }
  int64_t tiles = band * tilesW;
  float* v = floats(36 * tiles * c);
  float* m = floats(36 * tiles * f);
  float* scratch = floats(4 << 20);
  float* outDirect = floats(h * w * f);
  float* outWinograd = floats(h * w * f);
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
        if (variant == 0) {
          for (int64_t y = 0; y < h; y += rows) {
            strata_ukernel_sconv_f32(
                (int64_t)in, y * wp * c, wp * c, c, rows + 2, wp, 0, 0,
                (int64_t)packed, 0, PANEL, (int64_t)outDirect, y * w * f, f,
                rows * w, f, k, PACKED_B | BIAS | CLAMP, (int64_t)scratch, w, c,
                3, 1, 1, 1, 1, (int64_t)bias, 0, 0, loBits, hiBits);
          }
        } else {
          for (int64_t ty = 0; ty < tilesW; ty += band) {
            transformInput(in, wp, c, ty, band, tilesW, v);
            for (int pos = 0; pos < 36; ++pos) {
              strata_ukernel_sgemm_f32((int64_t)(v + pos * tiles * c), 0, c,
                                       (int64_t)(u + pos * c * f), 0, PANEL,
                                       (int64_t)(m + pos * tiles * f), 0, f,
                                       tiles, f, c, PACKED_B, (int64_t)scratch,
                                       0, 0, 0, 0, 0);
            }
            transformOutput(m, f, w, ty, band, tilesW, bias, outWinograd);
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
    double d = fabs((double)outWinograd[i] - outDirect[i]);
    worst = d > worst ? d : worst;
    largest = fabs(outDirect[i]) > largest ? fabs(outDirect[i]) : largest;
  }
  double flops = 2.0 * h * w * f * k;
  printf(
      "3x3 conv %lldx%lld, %lld -> %lld channels: direct in calls of "
      "%lld rows, Winograd F(4,3) in bands of %lld tile rows; %d rounds "
      "of the best of %d\n",
      (long long)h, (long long)w, (long long)c, (long long)f, (long long)rows,
      (long long)band, rounds, reps);
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
  printf("  largest difference %.3g of the largest output %.3g (%.2g)\n", worst,
         largest, worst / largest);
  return worst / largest > 1e-4;
}
