// Passes.h - the llvm-cpu code generator's steps as passes (Passes.td).

#ifndef STRATA_CODEGEN_LLVMCPU_PASSES_H
#define STRATA_CODEGEN_LLVMCPU_PASSES_H

#include "Strata/Codegen/LLVMCPU/Codegen.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::strata::llvmcpu {

/// Adds every dialect the code generator reads or creates, with the
/// interface models its passes need (bufferization, tiling, ...).
void registerLLVMCPUCodegenDialects(DialectRegistry &registry);

#define GEN_PASS_DECL
#include "Strata/Codegen/LLVMCPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Strata/Codegen/LLVMCPU/Passes.h.inc"

} // namespace mlir::strata::llvmcpu

#endif // STRATA_CODEGEN_LLVMCPU_PASSES_H
