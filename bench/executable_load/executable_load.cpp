// executable_load.cpp - cost of loading a kernel library: from memory (memfd +
// dlopen of /proc/self/fd/N, no file) beside loading the same .so from its
// path, and beside IREE's way (write a temp file, dlopen it, unlink it).
// Each load is released before the next, so every one maps the library
// afresh. Methods are interleaved; min and median are reported.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_support.h"
#include "strata/hal/executable.h"

namespace {

using strata::bench::median;
using strata::bench::nowNs;
using strata::bench::nowUs;

void check(strata_status_t status, const char* what) {
  strata::bench::checkOrExit("executable_load", status, what);
}

std::vector<uint8_t> readFile(const char* path) {
  return strata::bench::readFileOrExit("executable_load", path);
}

double loadMemory(const std::vector<uint8_t>& bytes) {
  strata_hal_executable_t* executable = nullptr;
  double start = nowUs();
  check(strata_hal_executable_load_memory(bytes.data(), bytes.size(),
                                          "sample_kernels",
                                          strata_allocator_system(),
                                          &executable),
        "load_memory");
  double elapsed = nowUs() - start;
  strata_hal_executable_release(executable);
  return elapsed;
}

double loadFile(const char* path) {
  strata_hal_executable_t* executable = nullptr;
  double start = nowUs();
  check(strata_hal_executable_load_file(path, strata_allocator_system(),
                                        &executable),
        "load_file");
  double elapsed = nowUs() - start;
  strata_hal_executable_release(executable);
  return elapsed;
}

// What a runtime without memfd does: write the bytes to a fresh temp file,
// load it by path, unlink it.
double loadTempFile(const std::vector<uint8_t>& bytes) {
  strata_hal_executable_t* executable = nullptr;
  double start = nowUs();
  char path[] = "/tmp/strata_bench_XXXXXX.so";
  int fd = mkstemps(path, 3);
  if (fd < 0 || write(fd, bytes.data(), bytes.size()) !=
                    static_cast<ssize_t>(bytes.size())) {
    std::fprintf(stderr, "executable_load: temp file: %s\n",
                 std::strerror(errno));
    std::exit(1);
  }
  close(fd);
  check(strata_hal_executable_load_file(path, strata_allocator_system(),
                                        &executable),
        "load_file (temp)");
  unlink(path);
  double elapsed = nowUs() - start;
  strata_hal_executable_release(executable);
  return elapsed;
}

void report(const char* name, std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  std::printf("  %-34s min %8.1f us   median %8.1f us\n", name, samples[0],
              samples[samples.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = STRATA_BENCH_SAMPLE_KERNELS_PATH;
  int repetitions = 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--repetitions=", 14) == 0) {
      repetitions = std::max(1, std::atoi(argv[i] + 14));
    } else {
      path = argv[i];
    }
  }
  std::vector<uint8_t> bytes = readFile(path);
  // Warm up: the page cache, the loader's own allocations.
  loadMemory(bytes);
  loadFile(path);
  loadTempFile(bytes);
  std::vector<double> memory, file, temp;
  for (int i = 0; i < repetitions; ++i) {
    memory.push_back(loadMemory(bytes));
    file.push_back(loadFile(path));
    temp.push_back(loadTempFile(bytes));
  }
  std::printf("executable_load: %s (%zu bytes), %d repetitions\n", path,
              bytes.size(), repetitions);
  report("load_memory (memfd + dlopen)", memory);
  report("load_file (already on disk)", file);
  report("temp file + load_file + unlink", temp);
  return 0;
}
