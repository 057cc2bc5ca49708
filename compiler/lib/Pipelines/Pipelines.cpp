// Pipelines.cpp - the pass pipelines of strata-compile (Pipelines.h).

#include "Strata/Pipelines/Pipelines.h"

#include "Strata/Conversion/Passes.h"
#include "Strata/Dialect/VM/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::strata::buildVMOptimizationPipeline(OpPassManager &pm) {
  OpPassManager &modulePM = pm.nest<vm::ModuleOp>();
  modulePM.addPass(createCanonicalizerPass());
  modulePM.addPass(createCSEPass());
  modulePM.nest<vm::FuncOp>().addPass(vm::createVMRotateLoopsPass());
  // Last: the fused and immediate opcodes have no folders.
  modulePM.addPass(vm::createVMPeepholePass());
}

void mlir::strata::buildStandardToVMPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createConvertToVMPass());
  buildVMOptimizationPipeline(pm);
}

void mlir::strata::registerStrataPipelines() {
  PassPipelineRegistration<>(
      "strata-std-to-vm-pipeline",
      "Standard dialects to an optimized vm.module (strata-compile's default "
      "pipeline before the bytecode target)",
      buildStandardToVMPipeline);
  PassPipelineRegistration<>(
      "strata-vm-optimize-pipeline",
      "The VM optimizations strata-compile runs after the conversion",
      buildVMOptimizationPipeline);
}
