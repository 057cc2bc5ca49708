// Pipelines.cpp - the pass pipelines of strata-compile (Pipelines.h).

#include "Strata/Pipelines/Pipelines.h"

#include "Strata/Target/TargetBackend.h"

#include "Strata/Conversion/Passes.h"
#include "Strata/Dialect/Flow/Transforms/Passes.h"
#include "Strata/Dialect/HAL/Transforms/Passes.h"
#include "Strata/Dialect/Stream/Transforms/Passes.h"
#include "Strata/Dialect/VM/Transforms/Passes.h"
#include "Strata/InputConversion/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

std::optional<mlir::strata::Phase> mlir::strata::parsePhase(StringRef name) {
  return llvm::StringSwitch<std::optional<Phase>>(name)
      .Case("import", Phase::Import)
      .Case("input", Phase::Input)
      .Case("flow", Phase::Flow)
      .Case("stream", Phase::Stream)
      .Case("hal", Phase::Hal)
      .Case("vm", Phase::VM)
      .Default(std::nullopt);
}

void mlir::strata::buildVMOptimizationPipeline(OpPassManager &pm) {
  OpPassManager &modulePM = pm.nest<vm::ModuleOp>();
  modulePM.addPass(createCanonicalizerPass());
  modulePM.addPass(createCSEPass());
  modulePM.nest<vm::FuncOp>().addPass(vm::createVMRotateLoopsPass());
  // Last: the fused and immediate opcodes have no folders.
  modulePM.addPass(vm::createVMPeepholePass());
}

void mlir::strata::buildPhasePipeline(OpPassManager &pm,
                                      std::optional<Phase> from, Phase to,
                                      const PipelineOptions &options) {
  auto wants = [&](Phase phase) {
    return (!from || *from < phase) && phase <= to;
  };
  if (wants(Phase::Input)) {
    pm.addPass(input::createLowerONNXPass());
    pm.addPass(input::createConvertInputPass());
    // arith/math ops applied to whole tensors become elementwise
    // linalg.generic ops, which form dispatches like any other.
    pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
    pm.addPass(input::createLowerPackUnpackPass());
    pm.addPass(input::createPropagateTransposesPass());
    pm.addPass(input::createInsertShapeChecksPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  if (wants(Phase::Flow)) {
    flow::FormDispatchesPassOptions flowOptions;
    TargetBackendOptions targetOptions;
    targetOptions.triple = options.targetTriple;
    // A multi-ISA module's host program is one: it stores weights as its
    // best variant's kernels read them.
    targetOptions.cpu = primaryTargetCpu(options.targetCpu);
    const TargetBackend *target = lookupTargetBackend(options.target);
    flowOptions.im2colConvolutions =
        !target || !target->hasDirectConvolution(targetOptions);
    int64_t minWork = target ? target->minMatmulTileWork(targetOptions) : 0;
    flowOptions.im2colMinWork = minWork;
    flowOptions.im2colDynamicBatch =
        target && target->im2colDynamicBatch(targetOptions);
    flowOptions.fuseIntoConcat =
        target && target->writesConcatOperandsInPlace(targetOptions);
    bool producersInBands =
        target && target->computesProducersInBands(targetOptions);
    flowOptions.fuseIntoPool = producersInBands;
    flowOptions.fuseIntoDepthwise = producersInBands;
    flowOptions.fuseIntoProjection = producersInBands;
    flow::PackWeightsPassOptions packOptions;
    packOptions.panelColumns =
        target ? target->weightPanelColumns(targetOptions) : 0;
    packOptions.minWork = minWork;
    packOptions.winograd = options.winograd && target &&
                           target->winogradConvolutions(targetOptions);
    std::array<int64_t, 3> int8Panel =
        target ? target->int8WeightPanel(targetOptions)
               : std::array<int64_t, 3>{0, 0, 0};
    packOptions.int8PanelColumns = int8Panel[0];
    packOptions.int8DepthGroup = int8Panel[1];
    packOptions.int8DepthMultiple = int8Panel[2];
    // Before packing: the parts of a sliced weight are packed apart.
    pm.addPass(flow::createSplitSlicedResultsPass());
    pm.addPass(flow::createPackWeightsPass(packOptions));
    pm.addPass(flow::createFormDispatchesPass(flowOptions));
    // Host size arithmetic that dispatch formation reified as affine.apply
    // (a concat's summed dimension) becomes arith, which the VM speaks.
    // Only the host functions: kernels keep their affine forms for codegen.
    pm.addNestedPass<func::FuncOp>(createLowerAffinePass());
    pm.addPass(createCanonicalizerPass());
    // The sizes of dynamic dimensions read once per value.
    pm.addPass(createCSEPass());
  }
  if (wants(Phase::Stream)) {
    stream::ScheduleExecutionPassOptions streamOptions;
    streamOptions.asyncExports = options.asyncExports;
    pm.addPass(stream::createScheduleExecutionPass(streamOptions));
  }
  if (wants(Phase::Hal)) {
    hal::CompileExecutablesPassOptions halOptions;
    halOptions.target = options.target;
    halOptions.targetTriple = options.targetTriple;
    halOptions.targetCpu = options.targetCpu;
    pm.addPass(hal::createCompileExecutablesPass(halOptions));
    pm.addPass(hal::createConvertStreamToHALPass());
  }
  if (wants(Phase::VM)) {
    pm.addPass(createConvertToVMPass());
    buildVMOptimizationPipeline(pm);
  }
}

void mlir::strata::buildStandardToVMPipeline(OpPassManager &pm) {
  buildPhasePipeline(pm, std::nullopt, Phase::VM, PipelineOptions());
}

namespace {
struct PhasePipelineOptions
    : public PassPipelineOptions<PhasePipelineOptions> {
  Option<std::string> from{*this, "from",
                           llvm::cl::desc("phase the input is at (none: raw)"),
                           llvm::cl::init("")};
  Option<std::string> to{*this, "to", llvm::cl::desc("phase to stop after"),
                         llvm::cl::init("vm")};
  Option<std::string> targetTriple{*this, "target-triple",
                                   llvm::cl::desc("kernel LLVM triple"),
                                   llvm::cl::init("")};
  Option<std::string> targetCpu{*this, "target-cpu",
                                llvm::cl::desc("kernel CPU or 'host'"),
                                llvm::cl::init("host")};
  Option<bool> asyncExports{
      *this, "async-exports",
      llvm::cl::desc("also export <name>$async with wait/signal fences"),
      llvm::cl::init(false)};
  Option<bool> winograd{
      *this, "winograd",
      llvm::cl::desc("3x3 stride-1 convolutions by Winograd's F(4x4, 3x3) "
                     "where the target takes it"),
      llvm::cl::init(true)};
};
} // namespace

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
  PassPipelineRegistration<PhasePipelineOptions>(
      "strata-phase-pipeline",
      "strata-compile's phases from 'from' (exclusive) to 'to' (inclusive): "
      "import, input, flow, stream, hal, vm",
      [](OpPassManager &pm, const PhasePipelineOptions &opts) {
        std::optional<Phase> from;
        if (!opts.from.empty()) {
          from = parsePhase(opts.from);
        }
        std::optional<Phase> to = parsePhase(opts.to);
        PipelineOptions options;
        options.targetTriple = opts.targetTriple;
        options.targetCpu = opts.targetCpu;
        options.asyncExports = opts.asyncExports;
        options.winograd = opts.winograd;
        buildPhasePipeline(pm, from, to.value_or(Phase::VM), options);
      });
}
