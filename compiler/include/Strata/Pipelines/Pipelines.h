// Pipelines.h - the pass pipelines strata-compile runs, also registered in
// strata-opt so that lit tests can run a whole phase.

#ifndef STRATA_PIPELINES_PIPELINES_H
#define STRATA_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace mlir::strata {

/// Standard dialects (func, arith, math, scf, cf, index) in a builtin module
/// to an optimized vm.module ready for the bytecode target: cleanups, the
/// conversion, then the VM optimizations (buildVMOptimizationPipeline).
void buildStandardToVMPipeline(OpPassManager &pm);

/// Optimizations on the vm.modules of a builtin module: canonicalization
/// and CSE, loop rotation, then the peephole selection of fused opcodes.
void buildVMOptimizationPipeline(OpPassManager &pm);

/// Registers --strata-std-to-vm-pipeline and --strata-vm-optimize-pipeline.
void registerStrataPipelines();

} // namespace mlir::strata

#endif // STRATA_PIPELINES_PIPELINES_H
