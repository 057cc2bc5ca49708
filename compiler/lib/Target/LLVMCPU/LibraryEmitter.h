//===- LibraryEmitter.h - the kernel ABI's tables in LLVM IR ----*- C++ -*-===//
#ifndef STRATA_LIB_TARGET_LLVMCPU_LIBRARYEMITTER_H_
#define STRATA_LIB_TARGET_LLVMCPU_LIBRARYEMITTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::strata::llvmcpu {

/// One export as the emitter sees it: the kernel function in the module takes
/// (ptr input..., i64 workgroup_id_x, i64 workgroup_id_y, [ptr local_memory,]
/// ptr result...); local_memory is there when localMemorySize is not 0.
struct KernelExport {
  std::string name;         // the export's name in the table
  std::string kernelSymbol; // the kernel function in the llvm::Module
  uint32_t inputCount = 0;
  uint32_t resultCount = 0;
  uint32_t localMemorySize = 0; // bytes of workgroup local memory it needs
  /// Bytes each binding must hold (inputs, then results); the dispatch
  /// function fails (returns non-zero) when a binding is shorter.
  std::vector<uint64_t> bindingBytes;
  /// For each binding, the inputs (index arguments, push constants) whose
  /// values multiply its bindingBytes: the sizes of its dynamic dimensions.
  /// The product is checked for overflow.
  std::vector<std::vector<uint32_t>> bindingSizeArgs;
};

/// Adds to `module` one dispatch function per export (the ABI's
/// strata_hal_executable_dispatch_v0_t, calling the kernel), the export
/// table, the library header and library struct, and the one exported
/// symbol, strata_hal_executable_library_query. Every other definition is
/// made internal (or hidden), so only the query function is exported.
/// Returns an error message, or an empty string.
std::string emitLibraryABI(llvm::Module &module, llvm::StringRef libraryName,
                           llvm::ArrayRef<KernelExport> exports,
                           uint64_t requiredFeatures);

/// Adds hidden, self-contained memcpy, memmove and memset definitions (built
/// with "no-builtins" so they are not turned back into calls to themselves)
/// for the calls LLVM's code generation may introduce.
void addFreestandingMemoryFunctions(llvm::Module &module);

/// Adds hidden __extendhfsf2 and __truncsfhf2 (f16 <-> f32, written with
/// integer operations) for targets where LLVM converts halves through these
/// library calls (x86 without F16C); unused ones are dropped by the linker.
void addFreestandingHalfConversions(llvm::Module &module);

} // namespace mlir::strata::llvmcpu

#endif // STRATA_LIB_TARGET_LLVMCPU_LIBRARYEMITTER_H_
