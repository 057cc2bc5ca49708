//===- PortableTarget.cpp - the portable target (no native code) ----------===//
//
// --target=portable: each dispatch becomes kernel bytecode
// ("portable-bytecode-v1", schemas/kernel_bytecode.h) that the runtime
// verifies at load and interprets over vectorized C++ primitives, so a
// module can run where native code is refused (--no-native-kernels).
//
// Its strategy: the tensor-level front of the CPU code generator (input
// checks, decompositions, fusion, one-shot bufferization; every export one
// workgroup), then KernelEncoder on the bufferized functions.
//
//===----------------------------------------------------------------------===//
#include "KernelEncoder.h"
#include "Strata/Codegen/LLVMCPU/Codegen.h"
#include "Strata/Codegen/LLVMCPU/Passes.h"
#include "Strata/Target/TargetBackend.h"
#include "kernel_bytecode.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringSet.h"

#include <cstring>

namespace mlir::strata {

namespace {

/// Rewrites each select of whole tensors on one i1 (an If whose branches
/// are constants) as an elementwise linalg.generic selecting between the
/// two: bufferized, a select of memrefs would choose a buffer at run time,
/// which no kernel bytecode view can be; as a generic the condition is a
/// push constant the body reads.
void selectTensorsElementwise(ModuleOp module) {
  SmallVector<arith::SelectOp> selects;
  module.walk([&](arith::SelectOp select) {
    if (isa<RankedTensorType>(select.getType()) &&
        select.getCondition().getType().isInteger(1)) {
      selects.push_back(select);
    }
  });
  for (arith::SelectOp select : selects) {
    OpBuilder b(select);
    Location loc = select.getLoc();
    auto type = cast<RankedTensorType>(select.getType());
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(b, loc, select.getTrueValue());
    Value empty = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
    AffineMap identity =
        AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    Value condition = select.getCondition();
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{type},
        ValueRange{select.getTrueValue(), select.getFalseValue()},
        ValueRange{empty}, {identity, identity, identity}, iterators,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value chosen =
              arith::SelectOp::create(nb, l, condition, args[0], args[1]);
          linalg::YieldOp::create(nb, l, chosen);
        });
    select.replaceAllUsesWith(generic.getResult(0));
    select.erase();
  }
}

class PortableTargetBackend final : public TargetBackend {
public:
  StringRef getName() const override { return "portable"; }

  void registerDialects(DialectRegistry &registry) const override {
    llvmcpu::registerLLVMCPUCodegenDialects(registry);
  }

  /// A dynamic-batch convolution as im2col + matmul: the matmul
  /// instruction with a patched M beats generic convolution loops (12x
  /// for resnet18 at batch 1, docs/targets.md).
  bool im2colDynamicBatch(const TargetBackendOptions &options) const override {
    return true;
  }

  FailureOr<TargetExecutable>
  compile(ModuleOp executable,
          const TargetBackendOptions &options) const override {
    MLIRContext *context = executable.getContext();
    {
      DialectRegistry registry;
      registerDialects(registry);
      context->appendDialectRegistry(registry);
    }
    context->loadDialect<affine::AffineDialect, arith::ArithDialect,
                         bufferization::BufferizationDialect, func::FuncDialect,
                         linalg::LinalgDialect, math::MathDialect,
                         memref::MemRefDialect, scf::SCFDialect,
                         tensor::TensorDialect>();
    if (failed(llvmcpu::verifyExecutableInput(executable))) {
      return failure();
    }
    // Every export is one workgroup.
    llvm::StringSet<> singleWorkgroup;
    for (auto func : executable.getOps<func::FuncOp>()) {
      if (func.isPublic()) {
        singleWorkgroup.insert(func.getSymName());
      }
    }
    OwningOpRef<ModuleOp> work(executable.clone());
    selectTensorsElementwise(*work);
    SmallVector<std::string> unsafe;
    if (failed(llvmcpu::tileAndDistributeToWorkgroups(
            *work, singleWorkgroup,
            /*tileDynamicRanges=*/false, /*keepSoftmaxRows=*/false)) ||
        failed(llvmcpu::bufferizeExecutable(*work)) ||
        failed(llvmcpu::bindWorkgroupIds(*work, unsafe))) {
      return failure();
    }
    TargetExecutable result;
    result.format = ::strata::kernel::kFormat;
    std::vector<uint32_t> words;
    uint32_t exportCount = 0;
    for (auto func : work->getOps<func::FuncOp>()) {
      if (func.isPublic()) {
        ++exportCount;
      }
    }
    portable::encodeProgramHeader(exportCount, words);
    for (auto func : work->getOps<func::FuncOp>()) {
      if (!func.isPublic()) {
        continue;
      }
      auto inputs = func->getAttrOfType<IntegerAttr>(llvmcpu::kInputCountAttr);
      uint32_t workgroups = 1;
      if (!inputs || failed(portable::encodeExport(
                         func, static_cast<unsigned>(inputs.getInt()), words,
                         workgroups))) {
        return failure();
      }
      TargetExecutable::Export entry;
      entry.name = func.getSymName().str();
      entry.workgroupCount[0] = workgroups;
      result.exports.push_back(std::move(entry));
    }
    result.library.resize(words.size() * sizeof(uint32_t));
    std::memcpy(result.library.data(), words.data(), result.library.size());
    return result;
  }
};

} // namespace

std::unique_ptr<TargetBackend> createPortableTargetBackend() {
  return std::make_unique<PortableTargetBackend>();
}

} // namespace mlir::strata
