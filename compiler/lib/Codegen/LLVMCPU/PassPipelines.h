//===- PassPipelines.h - running upstream passes by their textual names ---===//
#ifndef STRATA_LIB_CODEGEN_LLVMCPU_PASSPIPELINES_H_
#define STRATA_LIB_CODEGEN_LLVMCPU_PASSPIPELINES_H_

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir::strata::llvmcpu {

/// Runs `pipeline` (textual, anchored on builtin.module, e.g.
/// "func.func(canonicalize),one-shot-bufferize") on `module`. The upstream
/// passes are registered on first use. Pass failures are reported through
/// the context's diagnostics.
LogicalResult runPassPipeline(ModuleOp module, StringRef pipeline);

} // namespace mlir::strata::llvmcpu

#endif // STRATA_LIB_CODEGEN_LLVMCPU_PASSPIPELINES_H_
