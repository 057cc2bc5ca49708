// BytecodeTarget.h - writes a vm.module as a Strata module file (.vmfb).

#ifndef STRATA_TARGET_BYTECODE_BYTECODETARGET_H
#define STRATA_TARGET_BYTECODE_BYTECODETARGET_H

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::strata::vm {

/// What the module records about its making (module.fbs CompilerInfo).
struct BytecodeTargetOptions {
  std::string compilerName = "strata-compile";
  std::string compilerVersion;
  /// The command line, one argument each.
  std::vector<std::string> compilerFlags;
  /// Whether to write the debug database (function names and source
  /// locations). Without it the runtime names functions by ordinal.
  bool emitDebugInfo = true;
  /// When not empty: an Ed25519 secret key file (strata-keygen's PREFIX.key)
  /// whose key signs the module (Module.signature; docs/security.md).
  std::string signingKeyFile;
};

/// Encodes `module` and writes the file to `os`: registers are allocated
/// per function (RegisterAllocation.h), every op is written from its
/// schemas/opcodes.def row, and ordinals are assigned to functions, imports,
/// globals, rodata and types in module order. Globals with initial values
/// get a synthesized initializer function. Errors are reported at the op
/// that cannot be encoded; nothing is written then.
LogicalResult translateModuleToBytecode(ModuleOp module,
                                        const BytecodeTargetOptions &options,
                                        llvm::raw_ostream &os);

/// The calling convention string (schemas/format.h) of `type`; variadic
/// spans are (start, length) pairs over the inputs, as on vm.import.
FailureOr<std::string>
getCallingConvention(Operation *op, FunctionType type,
                     ArrayRef<int32_t> variadicSpans = {});

} // namespace mlir::strata::vm

#endif // STRATA_TARGET_BYTECODE_BYTECODETARGET_H
