/* igemm_check.c - checks and times one int8 matmul microkernel variant
 * (strata_ukernel_igemm_s8 of compiler/lib/Codegen/LLVMCPU/ukernel) against
 * a scalar reference, outside the compiler: run.sh compiles the variant's
 * source with clang and links it here.
 *
 *   igemm_check check KMULTIPLE           every case; exit 0 when all match
 *   igemm_check time KMULTIPLE M N K REPS  best ns per call of REPS, packed B,
 *                                          requantized (the compiled form)
 *
 * KMULTIPLE is the variant's packed depth multiple (4 for VNNI, 64 for AMX).
 * The variant's B panels are NR = 32 columns by depth groups of KG = 4.
 * On Linux the AMX tile state is requested first, as the runtime does.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "IgemmParams.h"

void strata_ukernel_igemm_s8(int64_t aBase, int64_t aOffset, int64_t lda,
                             int64_t bBase, int64_t bOffset, int64_t ldb,
                             int64_t cBase, int64_t cOffset, int64_t ldc,
                             int64_t m, int64_t n, int64_t k, int64_t flags,
                             int64_t scratch, int64_t adjust,
                             int64_t multiplier, int64_t zeroBits,
                             int64_t loBits, int64_t hiBits);

enum { NR = 32, KG = 4 };

static uint64_t g_seed = 12345;
static uint32_t rnd(void) {
  g_seed = g_seed * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(g_seed >> 33);
}

static int64_t roundUp(int64_t x, int64_t r) { return (x + r - 1) / r * r; }

/* The packing of PackWeights.cpp (packIntOperand): panel p, group g,
 * column j, step t at ((p * G + g) * NR + j) * KG + t, zeros past k and n,
 * G the groups of k rounded up to kmult. */
static int8_t* pack(const int8_t* b, int64_t ldb, int64_t n, int64_t k,
                    int64_t kmult) {
  int64_t panels = (n + NR - 1) / NR, groups = roundUp(k, kmult) / KG;
  int8_t* p = calloc((size_t)(panels * groups * NR * KG), 1);
  for (int64_t d = 0; d < k; ++d) {
    for (int64_t j = 0; j < n; ++j) {
      p[(((j / NR) * groups + d / KG) * NR + j % NR) * KG + d % KG] =
          b[d * ldb + j];
    }
  }
  return p;
}

static uint32_t bitsOf(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

struct Case {
  int64_t m, n, k;
  int mode;   /* 0: i32 over C, 1: i32 added to C, 2: requantized */
  int packed; /* B packed at compile time */
  float zero, lo, hi, scale;
  int extreme; /* operands at -128 / 127 only */
};

static int runCase(const struct Case* cs, int64_t kmult) {
  int64_t m = cs->m, n = cs->n, k = cs->k;
  int64_t lda = k + 3, ldb = n + 1, ldc = n + 5;
  int8_t* a = malloc((size_t)(m * lda));
  int8_t* b = malloc((size_t)(k * ldb));
  for (int64_t i = 0; i < m * lda; ++i) {
    a[i] = cs->extreme ? (rnd() & 1 ? 127 : -128) : (int8_t)rnd();
  }
  for (int64_t i = 0; i < k * ldb; ++i) {
    b[i] = cs->extreme ? (rnd() & 1 ? 127 : -128) : (int8_t)rnd();
  }
  int32_t* ref = malloc((size_t)(m * n) * 4);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int32_t s = 0;
      for (int64_t d = 0; d < k; ++d) {
        s += (int32_t)a[i * lda + d] * b[d * ldb + j];
      }
      ref[i * n + j] = s;
    }
  }
  int32_t* adjust = malloc((size_t)n * 4);
  float* mult = malloc((size_t)n * 4);
  for (int64_t j = 0; j < n; ++j) {
    adjust[j] = (int32_t)(rnd() % 20001) - 10000;
    mult[j] = cs->scale * (0.5f + (float)(rnd() % 1000) / 1000.0f);
  }
  int8_t* pb = cs->packed ? pack(b, ldb, n, k, kmult) : NULL;
  size_t scratchBytes =
      STRATA_IGEMM_SCRATCH_BYTES(n, roundUp(k, kmult), cs->packed) + 64;
  char* scratch = malloc(scratchBytes);
  int64_t elem = cs->mode == 2 ? 1 : 4;
  /* A guard past C catches stores out of the tile. */
  size_t cBytes = (size_t)(m * ldc * elem) + 256;
  char* c = malloc(cBytes);
  for (size_t i = 0; i < cBytes; ++i) {
    c[i] = (char)0x5A;
  }
  int32_t* initial = malloc((size_t)(m * ldc) * 4);
  if (cs->mode == 1) {
    for (int64_t i = 0; i < m * ldc; ++i) {
      initial[i] = (int32_t)(rnd() % 2001) - 1000;
      ((int32_t*)c)[i] = initial[i];
    }
  }
  int64_t flags = (cs->mode == 1 ? STRATA_IGEMM_ACCUMULATE : 0) |
                  (cs->packed ? STRATA_IGEMM_PACKED_B : 0) |
                  (cs->mode == 2 ? STRATA_IGEMM_REQUANTIZE : 0);
  strata_ukernel_igemm_s8((int64_t)(uintptr_t)a, 0, lda,
                          (int64_t)(uintptr_t)(cs->packed ? pb : b), 0, ldb,
                          (int64_t)(uintptr_t)c, 0, ldc, m, n, k, flags,
                          (int64_t)(uintptr_t)scratch,
                          (int64_t)(uintptr_t)adjust, (int64_t)(uintptr_t)mult,
                          bitsOf(cs->zero), bitsOf(cs->lo), bitsOf(cs->hi));
  int bad = 0;
  for (int64_t i = 0; i < m && bad < 3; ++i) {
    for (int64_t j = 0; j < ldc && bad < 3; ++j) {
      int64_t got, want;
      if (cs->mode == 2) {
        got = ((int8_t*)c)[i * ldc + j];
        if (j >= n) {
          want = (int8_t)0x5A;
        } else {
          float f = (float)(ref[i * n + j] + adjust[j]) * mult[j];
          f = nearbyintf(f) + cs->zero;
          f = fminf(fmaxf(f, cs->lo), cs->hi);
          want = (int8_t)(int32_t)f;
        }
      } else {
        got = ((int32_t*)c)[i * ldc + j];
        if (j >= n) {
          want = cs->mode == 1 ? initial[i * ldc + j] : 0x5A5A5A5A;
        } else {
          want = ref[i * n + j] + (cs->mode == 1 ? initial[i * ldc + j] : 0);
        }
      }
      if (got != want) {
        fprintf(stderr,
                "MISMATCH m=%lld n=%lld k=%lld mode=%d packed=%d zero=%g: "
                "c[%lld][%lld] = %lld, want %lld\n",
                (long long)m, (long long)n, (long long)k, cs->mode, cs->packed,
                cs->zero, (long long)i, (long long)j, (long long)got,
                (long long)want);
        ++bad;
      }
    }
  }
  for (size_t i = (size_t)(m * ldc * elem); i < cBytes; ++i) {
    if (c[i] != (char)0x5A) {
      fprintf(stderr, "store past C: m=%lld n=%lld k=%lld\n", (long long)m,
              (long long)n, (long long)k);
      ++bad;
      break;
    }
  }
  free(a), free(b), free(ref), free(adjust), free(mult), free(pb);
  free(scratch), free(c), free(initial);
  return bad;
}

static void requestAmx(void) {
  /* ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA; fails harmlessly without AMX. */
  syscall(SYS_arch_prctl, 0x1023, 18);
}

static int check(int64_t kmult) {
  const int64_t ms[] = {1, 5, 12, 15, 16, 17, 31, 32, 33, 49, 64, 100};
  const int64_t ns[] = {1, 17, 32, 33, 64, 100};
  const int64_t ks[] = {1, 3, 4, 5, 63, 64, 65, 127, 200, 576};
  int cases = 0, failed = 0;
  for (size_t mi = 0; mi < sizeof ms / sizeof *ms; ++mi) {
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ++ni) {
      for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ++ki) {
        for (int mode = 0; mode < 3; ++mode) {
          for (int packed = 0; packed < 2; ++packed) {
            struct Case cs = {ms[mi], ns[ni], ks[ki], mode,        packed,
                              0,      -128,   127,    1.0f / 4096, 0};
            failed += runCase(&cs, kmult) != 0;
            ++cases;
          }
        }
      }
    }
  }
  /* Zero points 0 / 128 / 255 (u8 outputs: [0, 255] stored as bytes),
   * saturation at both ends (large scales), extreme operands. */
  const float zeros[] = {0, 128, 255};
  const float scales[] = {1.0f / 65536, 1.0f / 64, 1.0f};
  for (int zi = 0; zi < 3; ++zi) {
    for (int si = 0; si < 3; ++si) {
      for (int extreme = 0; extreme < 2; ++extreme) {
        struct Case cs = {49,        33, 147, 2,          1,
                          zeros[zi], 0,  255, scales[si], extreme};
        failed += runCase(&cs, kmult) != 0;
        struct Case signedCase = {
            33, 65, 75, 2, 1, zeros[zi] - 128, -128, 127, scales[si], extreme};
        failed += runCase(&signedCase, kmult) != 0;
        cases += 2;
      }
    }
  }
  printf("%d cases, %d failed\n", cases, failed);
  return failed != 0;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int timeShape(int64_t kmult, int64_t m, int64_t n, int64_t k, int reps) {
  int8_t *a = malloc((size_t)(m * k)), *b = malloc((size_t)(k * n));
  for (int64_t i = 0; i < m * k; ++i) {
    a[i] = (int8_t)rnd();
  }
  for (int64_t i = 0; i < k * n; ++i) {
    b[i] = (int8_t)rnd();
  }
  int8_t* pb = pack(b, n, n, k, kmult);
  int32_t* adjust = calloc((size_t)n, 4);
  float* mult = malloc((size_t)n * 4);
  for (int64_t j = 0; j < n; ++j) {
    mult[j] = 1.0f / 4096;
  }
  char* scratch =
      malloc(STRATA_IGEMM_SCRATCH_BYTES(n, roundUp(k, kmult), 1) + 64);
  int8_t* c = malloc((size_t)(m * n));
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    strata_ukernel_igemm_s8((int64_t)(uintptr_t)a, 0, k, (int64_t)(uintptr_t)pb,
                            0, n, (int64_t)(uintptr_t)c, 0, n, m, n, k,
                            STRATA_IGEMM_PACKED_B | STRATA_IGEMM_REQUANTIZE,
                            (int64_t)(uintptr_t)scratch,
                            (int64_t)(uintptr_t)adjust,
                            (int64_t)(uintptr_t)mult, bitsOf(0.0f),
                            bitsOf(-128.0f), bitsOf(127.0f));
    double t = now() - t0;
    best = t < best ? t : best;
  }
  printf("%lld %lld %lld %.0f ns %.1f GOP/s\n", (long long)m, (long long)n,
         (long long)k, best, 2.0 * m * n * k / best);
  free(a), free(b), free(pb), free(adjust), free(mult), free(scratch), free(c);
  return 0;
}

int main(int argc, char** argv) {
  requestAmx();
  if (argc >= 3 && strcmp(argv[1], "check") == 0) {
    return check(atoll(argv[2]));
  }
  if (argc >= 7 && strcmp(argv[1], "time") == 0) {
    return timeShape(atoll(argv[2]), atoll(argv[3]), atoll(argv[4]),
                     atoll(argv[5]), atoi(argv[6]));
  }
  fprintf(stderr,
          "usage: igemm_check check KMULTIPLE | time KMULTIPLE M N "
          "K REPS\n");
  return 2;
}
