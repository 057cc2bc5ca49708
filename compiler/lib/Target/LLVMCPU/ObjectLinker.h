//===- ObjectLinker.h - llvm::Module to shared library bytes ----*- C++ -*-===//
#ifndef STRATA_LIB_TARGET_LLVMCPU_OBJECTLINKER_H_
#define STRATA_LIB_TARGET_LLVMCPU_OBJECTLINKER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "llvm/ADT/ArrayRef.h"

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir::strata {
struct LLVMCPUTargetOptions;
} // namespace mlir::strata

namespace mlir::strata::llvmcpu {

/// The machine compiled for, resolved from the options.
struct ResolvedTarget {
  std::unique_ptr<llvm::TargetMachine> machine;
  std::string format; // "embedded-elf-x86_64" / "embedded-elf-aarch64"
  uint64_t requiredFeatures = 0;  // STRATA_HAL_CPU_FEATURE_* bits
  int64_t nativeVectorBytes = 16; // widest vector register
  // The matmul microkernel variant its features allow ("avx512amx",
  // "avx512vnni", "avx512", "avx2"),
  // or empty (no microkernel: non-x86 targets, x86 without AVX2 + FMA).
  std::string ukernelVariant;
  // What a library that calls the variant's int8 matmul kernel requires
  // besides requiredFeatures (the AMX bit for "avx512amx").
  uint64_t int8UkernelFeatures = 0;
  // The last-level cache of the CPU compiled for, when known: this
  // machine's for --target-cpu=host (hostLastLevelCacheBytes), else 0.
  int64_t lastLevelCacheBytes = 0;
};

/// The size of this machine's largest data or unified cache, from Linux's
/// /sys/devices/system/cpu/cpu0/cache; 0 when it cannot be read.
int64_t hostLastLevelCacheBytes();

/// Resolves triple, CPU and features ("host" uses the detected host CPU and
/// its features) into a PIC target machine. Returns an error message, or an
/// empty string.
std::string createTargetMachine(const LLVMCPUTargetOptions &options,
                                ResolvedTarget &out);

/// Runs LLVM's O3 pipeline on `module`, then emits an ELF object.
std::string emitObject(llvm::Module &module, llvm::TargetMachine &machine,
                       std::vector<char> &object);

/// Links `object` with in-process lld into a shared library that has no
/// undefined symbols and exports only strata_hal_executable_library_query.
/// Thread-safe (lld calls are serialized).
std::string linkSharedLibrary(llvm::ArrayRef<char> object,
                              std::vector<uint8_t> &library);

} // namespace mlir::strata::llvmcpu

#endif // STRATA_LIB_TARGET_LLVMCPU_OBJECTLINKER_H_
