// bench_support.h - what every benchmark program needs: a monotonic clock,
// a median, reading a file, and exiting with the status when setup fails.
// Header-only; benchmarks are programs, not tests.
#ifndef STRATA_BENCH_COMMON_BENCH_SUPPORT_H_
#define STRATA_BENCH_COMMON_BENCH_SUPPORT_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "strata/base/status.h"

namespace strata::bench {

inline double nowNs() {
  return std::chrono::duration<double, std::nano>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline double nowUs() { return nowNs() / 1000.0; }

inline double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// Prints "program: what: STATUS" and exits 1 when status is not OK.
inline void checkOrExit(const char* program, strata_status_t status,
                        const char* what) {
  if (status) {
    char* text = strata_status_to_string(status);
    std::fprintf(stderr, "%s: %s: %s\n", program, what, text ? text : "");
    std::exit(1);
  }
}

// The whole file at path, or exits 1 naming it.
inline std::vector<uint8_t> readFileOrExit(const char* program,
                                           const char* path) {
  std::vector<uint8_t> bytes;
  FILE* file = std::fopen(path, "rb");
  if (!file) {
    std::fprintf(stderr, "%s: cannot read %s\n", program, path);
    std::exit(1);
  }
  uint8_t chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), file)) > 0) {
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  std::fclose(file);
  return bytes;
}

}  // namespace strata::bench

#endif  // STRATA_BENCH_COMMON_BENCH_SUPPORT_H_
