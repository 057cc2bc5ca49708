// TestHarness.h - compiles MLIR text with the llvm-cpu target, loads the
// library with the runtime and runs its exports, for the llvm-cpu tests.
#ifndef STRATA_TESTS_COMPILER_LLVMCPU_TESTHARNESS_H_
#define STRATA_TESTS_COMPILER_LLVMCPU_TESTHARNESS_H_

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "Strata/Target/LLVMCPU/LLVMCPUTarget.h"
#include "strata/hal/buffer.h"
#include "strata/hal/executable.h"

namespace llvmcpu_test {

using mlir::strata::CompiledExecutable;
using mlir::strata::LLVMCPUTargetOptions;

/// Compiles `source` (named test.mlir in diagnostics) in a fresh context;
/// on failure returns false with the diagnostics, one per line, in errors.
bool compile(const std::string &source, CompiledExecutable &out,
             std::string &errors, const LLVMCPUTargetOptions &options = {});

/// A compiled executable and the runtime's handle on it (released at the
/// end of its scope).
struct Loaded {
  CompiledExecutable compiled;
  strata_hal_executable_t *executable = nullptr;
  ~Loaded() {
    if (executable) {
      strata_hal_executable_release(executable);
    }
  }
};

/// Compiles `source` for the host and loads it with
/// strata_hal_executable_load_memory; failures are test failures.
bool compileAndLoad(const std::string &source, Loaded &loaded);

/// Runs every workgroup of export `ordinal`'s grid, in a shuffled order, on
/// `threads` threads, each with its own local memory; each call must
/// return 0. `bindings` are (pointer, byte length) pairs.
void dispatch(const Loaded &loaded, uint32_t ordinal,
              const std::vector<std::pair<void *, size_t>> &bindings,
              unsigned threads = 1);

/// Runs workgroup (x, 0, 0) of export `ordinal` with push `constants` and
/// returns what the dispatch function returns (0, or non-zero when it
/// refuses the dispatch state or fails); `detail`, when given, receives
/// the dispatch detail the kernel wrote (kind NONE when it wrote none).
int dispatchWorkgroup(
    const Loaded &loaded, uint32_t ordinal,
    const std::vector<std::pair<void *, size_t>> &bindings,
    const std::vector<uint32_t> &constants, uint32_t x,
    strata_hal_executable_dispatch_detail_v1_t *detail = nullptr);

template <typename T>
std::pair<void *, size_t> binding(std::vector<T> &values) {
  return {values.data(), values.size() * sizeof(T)};
}

/// count floats following a short deterministic pattern.
std::vector<float> ramp(size_t count, float scale, float offset);

/// Workgroups in an export's grid.
uint32_t workgroupTotal(const mlir::strata::ExecutableExportInfo &info);

/// "OK", or the status's code and message (the status is consumed).
std::string consume(strata_status_t status);

/// Runs export `ordinal` once on a device ("local-sync", or "local-task"
/// with `workers` threads) through a command buffer; "OK" or the failure.
std::string runOnDevice(const Loaded &loaded, uint32_t ordinal,
                        const char *deviceName, uint32_t workers,
                        const std::vector<strata_hal_buffer_t *> &buffers);

/// The buffer's bytes as T.
template <typename T> T *mapBuffer(strata_hal_buffer_t *buffer) {
  uint8_t *bytes = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(
              buffer, 0, strata_hal_buffer_length(buffer), &bytes)) == "OK");
  return reinterpret_cast<T *>(bytes);
}

} // namespace llvmcpu_test

#endif // STRATA_TESTS_COMPILER_LLVMCPU_TESTHARNESS_H_
