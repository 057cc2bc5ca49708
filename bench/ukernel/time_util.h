/* time_util.h - what the bench/ukernel timing programs share: a monotonic
 * clock in seconds, the median of a sample (sorted in place) and 64-byte
 * aligned float arrays (exit 1 when out of memory). */
#ifndef STRATA_BENCH_UKERNEL_TIME_UTIL_H
#define STRATA_BENCH_UKERNEL_TIME_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int compareDoubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof(double), compareDoubles);
  return v[n / 2];
}

static float* floats(int64_t n) {
  float* p = aligned_alloc(64, (size_t)((n * 4 + 63) / 64 * 64));
  if (!p) {
    fprintf(stderr, "out of memory (%lld floats)\n", (long long)n);
    exit(1);
  }
  return p;
}

#endif /* STRATA_BENCH_UKERNEL_TIME_UTIL_H */
