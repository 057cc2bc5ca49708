//===- LLVMCPUTarget.cpp - the llvm-cpu target's driver -------------------===//
//
// compileExecutable: checks the input, distributes each export over
// workgroups, bufferizes, lowers to the LLVM dialect (lib/Codegen/LLVMCPU),
// translates to LLVM IR, adds the kernel ABI (LibraryEmitter), then compiles
// and links a shared library (ObjectLinker).
//
//===----------------------------------------------------------------------===//
#include "Strata/Target/LLVMCPU/LLVMCPUTarget.h"

#include "KernelGuards.h"
#include "LibraryEmitter.h"
#include "ObjectLinker.h"
#include "Strata/Codegen/LLVMCPU/Codegen.h"
#include "Strata/Codegen/LLVMCPU/Passes.h"
#include "UkernelLinker.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "strata/hal/executable_library.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

// The code guarded kernels return (Codegen.h) is the kernel ABI's.
static_assert(mlir::strata::llvmcpu::kIndexOutOfRangeCode ==
                  STRATA_HAL_EXECUTABLE_DISPATCH_INDEX_OUT_OF_RANGE,
              "kIndexOutOfRangeCode must be the ABI's index-out-of-range "
              "code");

namespace mlir::strata {

void registerLLVMCPUTargetDialects(DialectRegistry &registry) {
  llvmcpu::registerLLVMCPUCodegenDialects(registry);
  registerAllToLLVMIRTranslations(registry);
}

namespace {

// Runs the tensor-to-memref half until every export's distribution is safe.
// A function whose distribution turns out unsafe is compiled again as one
// workgroup; the second round cannot fail that way.
FailureOr<OwningOpRef<ModuleOp>>
distributeAndBufferize(ModuleOp input, StringRef ukernelVariant) {
  llvm::StringSet<> singleWorkgroup;
  for (int round = 0; round < 2; ++round) {
    OwningOpRef<ModuleOp> work(input.clone());
    SmallVector<std::string> unsafe;
    if (failed(llvmcpu::tileAndDistributeToWorkgroups(
            *work, singleWorkgroup, /*tileDynamicRanges=*/true,
            /*keepSoftmaxRows=*/true,
            llvmcpu::ukernelStreamedFilterBytes(ukernelVariant))) ||
        failed(llvmcpu::bufferizeExecutable(*work)) ||
        failed(llvmcpu::bindWorkgroupIds(*work, unsafe))) {
      return failure();
    }
    if (unsafe.empty()) {
      return work;
    }
    for (const std::string &name : unsafe) {
      if (!singleWorkgroup.insert(name).second) {
        return input.emitError()
               << "llvm-cpu: export '" << name
               << "' writes its bindings outside its workgroup loop";
      }
    }
  }
  return input.emitError() << "llvm-cpu: workgroup distribution failed";
}

} // namespace

bool hasConvolutionMicrokernel(const LLVMCPUTargetOptions &options) {
  llvmcpu::ResolvedTarget target;
  return llvmcpu::createTargetMachine(options, target).empty() &&
         !target.ukernelVariant.empty();
}

int64_t microkernelPanelColumns(const LLVMCPUTargetOptions &options) {
  llvmcpu::ResolvedTarget target;
  if (!llvmcpu::createTargetMachine(options, target).empty()) {
    return 0;
  }
  return llvmcpu::ukernelPanelColumns(target.ukernelVariant);
}

std::array<int64_t, 3>
microkernelInt8Panel(const LLVMCPUTargetOptions &options) {
  llvmcpu::ResolvedTarget target;
  if (!llvmcpu::createTargetMachine(options, target).empty()) {
    return {0, 0, 0};
  }
  return llvmcpu::ukernelInt8Panel(target.ukernelVariant);
}

FailureOr<CompiledExecutable>
compileExecutable(ModuleOp executable, const LLVMCPUTargetOptions &options) {
  MLIRContext *context = executable.getContext();
  {
    DialectRegistry registry;
    registerLLVMCPUTargetDialects(registry);
    context->appendDialectRegistry(registry);
  }
  // The code generator creates ops of these dialects outside of passes
  // (tiling, workgroup ids, temporaries, vectorization), where nothing
  // loads them on demand.
  context->loadDialect<affine::AffineDialect, arith::ArithDialect,
                       bufferization::BufferizationDialect, func::FuncDialect,
                       linalg::LinalgDialect, math::MathDialect,
                       memref::MemRefDialect, scf::SCFDialect,
                       tensor::TensorDialect, vector::VectorDialect,
                       LLVM::LLVMDialect>();
  llvmcpu::ResolvedTarget target;
  if (std::string error = llvmcpu::createTargetMachine(options, target);
      !error.empty()) {
    return executable.emitError() << "llvm-cpu: " << error;
  }
  if (failed(llvmcpu::verifyExecutableInput(executable))) {
    return failure();
  }
  FailureOr<OwningOpRef<ModuleOp>> distributed =
      distributeAndBufferize(executable, target.ukernelVariant);
  if (failed(distributed)) {
    return failure();
  }
  ModuleOp work = distributed->get();

  CompiledExecutable compiled;
  compiled.format = target.format;
  SmallVector<llvmcpu::KernelExport> kernels;
  for (auto func : work.getOps<func::FuncOp>()) {
    if (!func.isPublic()) {
      continue;
    }
    ExecutableExportInfo info;
    info.name = func.getSymName().str();
    auto counts =
        func->getAttrOfType<DenseI64ArrayAttr>(llvmcpu::kWorkgroupCountAttr);
    for (unsigned dim = 0; dim < 3; ++dim) {
      info.workgroupCount[dim] = static_cast<uint32_t>(counts[dim]);
    }
    llvmcpu::KernelExport kernel;
    kernel.name = info.name;
    kernel.kernelSymbol = info.name;
    kernel.inputCount = static_cast<uint32_t>(
        func->getAttrOfType<IntegerAttr>(llvmcpu::kInputCountAttr).getInt());
    kernel.resultCount = static_cast<uint32_t>(
        func->getAttrOfType<IntegerAttr>(llvmcpu::kResultCountAttr).getInt());
    // Bindings are (inputs..., workgroup id x, y, results...) by now; the
    // scalar inputs are push constants, not bindings.
    for (auto [index, type] :
         llvm::enumerate(func.getFunctionType().getInputs())) {
      if (index == kernel.inputCount || index == kernel.inputCount + 1) {
        continue;
      }
      auto memref = dyn_cast<MemRefType>(type);
      if (!memref) {
        continue;
      }
      uint64_t elementBytes =
          std::max<uint64_t>(1, (memref.getElementTypeBitWidth() + 7) / 8);
      kernel.bindingBytes.push_back(memref.getNumElements() * elementBytes);
      kernel.bindingSizeArgs.emplace_back();
    }
    // Bindings with dynamic sizes hold their static part times the sizes
    // the dispatch is called with.
    if (auto shapes =
            func->getAttrOfType<ArrayAttr>(llvmcpu::kBindingShapesAttr)) {
      if (shapes.size() != kernel.bindingBytes.size()) {
        return func.emitError()
               << "llvm-cpu: " << shapes.size() << " binding shapes for "
               << kernel.bindingBytes.size() << " bindings";
      }
      unsigned binding = 0;
      for (Type type : func.getFunctionType().getInputs()) {
        auto memref = dyn_cast<MemRefType>(type);
        if (!memref) {
          continue;
        }
        uint64_t bytes =
            std::max<uint64_t>(1, (memref.getElementTypeBitWidth() + 7) / 8);
        for (int64_t size :
             cast<DenseI64ArrayAttr>(shapes[binding]).asArrayRef()) {
          if (size >= 0) {
            bytes *= static_cast<uint64_t>(size);
          } else {
            kernel.bindingSizeArgs[binding].push_back(
                static_cast<uint32_t>(-1 - size));
          }
        }
        kernel.bindingBytes[binding++] = bytes;
      }
    }
    info.bindingCount = static_cast<uint32_t>(kernel.bindingBytes.size());
    compiled.exports.push_back(info);
    kernels.push_back(kernel);
  }

  // Results the last-level cache cannot hold are streamed: the ISA's
  // measured threshold (ukernel/IsaTuning.def), or the CPU's own cache when
  // it is known and larger.
  int64_t streamedResultBytes =
      std::max(llvmcpu::ukernelStreamedResultBytes(target.ukernelVariant),
               target.lastLevelCacheBytes);
  if (failed(llvmcpu::lowerToLLVMDialect(work, target.nativeVectorBytes,
                                         target.ukernelVariant,
                                         streamedResultBytes))) {
    return failure();
  }
  // Placing temporaries decided which exports need local memory.
  for (llvmcpu::KernelExport &kernel : kernels) {
    auto func = work.lookupSymbol<LLVM::LLVMFuncOp>(kernel.kernelSymbol);
    if (!func) {
      return executable.emitError()
             << "llvm-cpu: kernel '" << kernel.kernelSymbol
             << "' is missing after lowering";
    }
    if (auto size =
            func->getAttrOfType<IntegerAttr>(llvmcpu::kLocalMemorySizeAttr)) {
      kernel.localMemorySize = static_cast<uint32_t>(size.getInt());
    }
  }
  std::string libraryName =
      executable.getSymName() ? executable.getSymName()->str() : "executable";
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(work, llvmContext, libraryName);
  if (!llvmModule) {
    return executable.emitError()
           << "llvm-cpu: cannot translate the kernels to LLVM IR";
  }
  // Before the ABI and the microkernels: only kernel code divides by data.
  llvmcpu::guardIntegerDivision(*llvmModule);
  llvmcpu::normalizeBoolLoads(*llvmModule);
  // A library calling the int8 matmul kernel needs what that kernel uses
  // (AMX), the others only what the target machine does.
  uint64_t requiredFeatures = target.requiredFeatures;
  if (llvmModule->getFunction(llvmcpu::kIgemmUkernelSymbol)) {
    requiredFeatures |= target.int8UkernelFeatures;
  }
  std::string error = llvmcpu::emitLibraryABI(*llvmModule, libraryName, kernels,
                                              requiredFeatures);
  if (error.empty()) {
    error = llvmcpu::linkUkernels(*llvmModule, target.ukernelVariant);
  }
  if (error.empty()) {
    llvmcpu::addFreestandingMemoryFunctions(*llvmModule);
    llvmcpu::addFreestandingHalfConversions(*llvmModule);
    llvmcpu::addFreestandingRounding(*llvmModule);
    std::vector<char> object;
    error = llvmcpu::emitObject(*llvmModule, *target.machine, object);
    if (error.empty()) {
      error = llvmcpu::linkSharedLibrary(object, compiled.library);
    }
  }
  if (!error.empty()) {
    return executable.emitError() << "llvm-cpu: " << error;
  }
  return compiled;
}

} // namespace mlir::strata
