// LLVMCPUBackend.cpp - the llvm-cpu target behind the TargetBackend
// interface (compileExecutable in LLVMCPUTarget.h does the work).

#include "Strata/Codegen/LLVMCPU/Codegen.h"
#include "Strata/Codegen/LLVMCPU/Passes.h"
#include "Strata/Target/LLVMCPU/LLVMCPUTarget.h"
#include "Strata/Target/TargetBackend.h"

namespace mlir::strata {

namespace {

class LLVMCPUTargetBackend final : public TargetBackend {
public:
  StringRef getName() const override { return "llvm-cpu"; }

  void registerDialects(DialectRegistry &registry) const override {
    registerLLVMCPUTargetDialects(registry);
  }

  void registerPasses() const override {
    llvmcpu::registerLLVMCPUCodegenPasses();
  }

  bool
  hasDirectConvolution(const TargetBackendOptions &options) const override {
    LLVMCPUTargetOptions cpuOptions;
    cpuOptions.triple = options.triple;
    cpuOptions.cpu = options.cpu;
    return hasConvolutionMicrokernel(cpuOptions);
  }

  // The convolution microkernel writes its result through any row stride:
  // a band of a concatenation's operand goes straight into its slice
  // (TileAndDistribute.cpp, distributeConcat).
  bool writesConcatOperandsInPlace(
      const TargetBackendOptions &options) const override {
    return hasDirectConvolution(options);
  }

  // A band's workgroups compute the producer rows it reads into a
  // temporary that the reader's microkernel then reads: a convolution's
  // rows under a max pool (TileAndDistribute.cpp, choosePoolBandTileSizes)
  // or a depthwise convolution (padded for its window), a depthwise
  // convolution's rows under a 1x1 convolution (both
  // chooseDepthwiseChainTileSizes).
  bool
  computesProducersInBands(const TargetBackendOptions &options) const override {
    return hasDirectConvolution(options);
  }

  // The convolution microkernel runs a filter transformed at compile time
  // by Winograd's F(4x4, 3x3) (ukernel/WinogradDriver.h, ConvUkernel.cpp).
  bool
  winogradConvolutions(const TargetBackendOptions &options) const override {
    return hasDirectConvolution(options);
  }

  int64_t
  weightPanelColumns(const TargetBackendOptions &options) const override {
    LLVMCPUTargetOptions cpuOptions;
    cpuOptions.triple = options.triple;
    cpuOptions.cpu = options.cpu;
    return microkernelPanelColumns(cpuOptions);
  }

  std::array<int64_t, 3>
  int8WeightPanel(const TargetBackendOptions &options) const override {
    LLVMCPUTargetOptions cpuOptions;
    cpuOptions.triple = options.triple;
    cpuOptions.cpu = options.cpu;
    return microkernelInt8Panel(cpuOptions);
  }

  int64_t
  minMatmulTileWork(const TargetBackendOptions &options) const override {
    return llvmcpu::kMinMatmulTileWork;
  }

  FailureOr<TargetExecutable>
  compile(ModuleOp executable,
          const TargetBackendOptions &options) const override {
    LLVMCPUTargetOptions cpuOptions;
    cpuOptions.triple = options.triple;
    cpuOptions.cpu = options.cpu;
    FailureOr<CompiledExecutable> compiled =
        compileExecutable(executable, cpuOptions);
    if (failed(compiled)) {
      return failure();
    }
    TargetExecutable result;
    result.format = compiled->format;
    result.library = std::move(compiled->library);
    for (const ExecutableExportInfo &info : compiled->exports) {
      TargetExecutable::Export entry;
      entry.name = info.name;
      for (int i = 0; i < 3; ++i) {
        entry.workgroupCount[i] = info.workgroupCount[i];
      }
      result.exports.push_back(std::move(entry));
    }
    return result;
  }
};

} // namespace

std::unique_ptr<TargetBackend> createLLVMCPUTargetBackend() {
  return std::make_unique<LLVMCPUTargetBackend>();
}

} // namespace mlir::strata
