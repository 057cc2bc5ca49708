//===- LLVMCPUTarget.h - the llvm-cpu target --------------------*- C++ -*-===//
//
// Compiles a module of tensor dispatch functions into one shared library that
// implements the kernel ABI of hal/include/strata/hal/executable_library.h
// (v0), returned as bytes the runtime loads from memory.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_TARGET_LLVMCPU_LLVMCPUTARGET_H_
#define STRATA_TARGET_LLVMCPU_LLVMCPUTARGET_H_

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::strata {

/// The machine kernels are compiled for.
struct LLVMCPUTargetOptions {
  /// An LLVM target triple; empty means the host's
  /// (llvm::sys::getProcessTriple()).
  std::string triple;
  /// "host" means the host CPU (llvm::sys::getHostCPUName()) with the
  /// features detected on it; used only when the triple is the host's.
  /// Otherwise an LLVM CPU name ("generic", "skylake", "neoverse-n1"...).
  std::string cpu = "host";
  /// Extra features, "+avx2,+fma" style, added to the CPU's.
  std::string features;
};

/// What the host needs to dispatch one export.
struct ExecutableExportInfo {
  /// The export's name: the func.func's symbol name.
  std::string name;
  /// The static grid to dispatch (x, y, z). Every workgroup of it must run
  /// exactly once; they may run concurrently and in any order.
  uint32_t workgroupCount[3] = {1, 1, 1};
  /// Bindings: the function's arguments (read only), then its results.
  uint32_t bindingCount = 0;
};

/// A compiled kernel library.
struct CompiledExecutable {
  /// The shared object's bytes (an ELF .so exporting only
  /// strata_hal_executable_library_query).
  std::vector<uint8_t> library;
  /// One entry per export, in export-ordinal order (the order of the public
  /// func.funcs in the input).
  std::vector<ExecutableExportInfo> exports;
  /// "embedded-elf-x86_64" or "embedded-elf-aarch64".
  std::string format;
};

/// Adds the dialects, interfaces and translations compileExecutable needs to
/// `registry`. compileExecutable appends them to the module's context itself;
/// call this to create a context up front (e.g. to parse input).
void registerLLVMCPUTargetDialects(DialectRegistry &registry);

/// Compiles every public func.func of `executable` into one shared library.
///
/// Input contract: each public function takes and returns ranked tensors of
/// static shape (i1, i8, i16, i32, i64, f32 or f64 elements; 0-d allowed)
/// and its body uses linalg, tensor, arith and math ops. Binding i < #args is
/// argument i; binding #args + j is result j, a dense row-major buffer (i1 is
/// one byte per element) that the host allocates and zero-fills.
///
/// Treat `executable` as consumed: the compiler lowers a copy of it, but
/// marks the original's functions with strata.* attributes. Errors are
/// emitted at the offending op's location (through the context's diagnostic
/// handler); failure is returned then. Not thread-safe for one context;
/// compiles in different contexts may run concurrently (the in-process
/// linker is serialized internally).
FailureOr<CompiledExecutable>
compileExecutable(ModuleOp executable, const LLVMCPUTargetOptions &options);

/// Whether kernels for `options` get the convolution microkernel (x86-64
/// with AVX2 and FMA, or AVX-512); false when the options name no machine.
bool hasConvolutionMicrokernel(const LLVMCPUTargetOptions &options);

/// The panel width (NR) of the matmul microkernel `options` select, which
/// constant weights are packed in at compile time; 0 without one.
int64_t microkernelPanelColumns(const LLVMCPUTargetOptions &options);

/// The panel (columns, depth group, multiple the depth is padded to) of
/// the int8 matmul microkernel `options` select, which constant int8
/// weights are packed in at compile time; {0, 0, 0} without one.
std::array<int64_t, 3>
microkernelInt8Panel(const LLVMCPUTargetOptions &options);

} // namespace mlir::strata

#endif // STRATA_TARGET_LLVMCPU_LLVMCPUTARGET_H_
