//===- LowerToUkernels.cpp - linalg ops on memrefs to ukernel calls -------===//
//
// Runs the microkernel rewrites over a module of bufferized exports: window
// ops (WindowUkernel.cpp), convolutions (ConvUkernel.cpp), int8 and f32
// matmuls (MatmulUkernel.cpp), declaring each microkernel the module calls;
// then erases the transposes of packed weights the kernels read in place.
//
//===----------------------------------------------------------------------===//
#include "UkernelCommon.h"

#include "Strata/Codegen/LLVMCPU/Codegen.h"
#include "Strata/Dialect/Flow/IR/PackedWeightLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::strata::llvmcpu {

using namespace ukernel;

int64_t ukernelPanelColumns(StringRef variantName) {
  std::optional<Variant> variant = lookupVariant(variantName);
  return variant ? variant->nr : 0;
}

int64_t ukernelStreamedResultBytes(StringRef variantName) {
  std::optional<Variant> variant = lookupVariant(variantName);
  return variant ? variant->streamedResultBytes : 0;
}

int64_t ukernelStreamedFilterBytes(StringRef variantName) {
  std::optional<Variant> variant = lookupVariant(variantName);
  return variant ? variant->streamedFilterBytes : 0;
}

std::array<int64_t, 3> ukernelInt8Panel(StringRef variantName) {
  std::optional<Variant> variant = lookupVariant(variantName);
  if (!variant) {
    return {0, 0, 0};
  }
  return {variant->intNr, variant->intKg, variant->intKMultiple};
}

LogicalResult lowerToUkernels(ModuleOp module, StringRef variantName,
                              int64_t streamedResultBytes) {
  std::optional<Variant> variant = lookupVariant(variantName);
  if (variantName.empty() || variantName == "none") {
    return success();
  }
  if (!variant) {
    return module.emitError()
           << "llvm-cpu: unknown matmul microkernel variant '" << variantName
           << "'";
  }
  if (streamedResultBytes > 0) {
    variant->streamedResultBytes = streamedResultBytes;
  }
  MLIRContext *context = module.getContext();
  context->loadDialect<arith::ArithDialect, func::FuncDialect,
                       memref::MemRefDialect>();
  SmallVector<linalg::BatchMatmulOp> batches;
  module.walk([&](linalg::BatchMatmulOp op) { batches.push_back(op); });
  for (linalg::BatchMatmulOp batch : batches) {
    unbatchMatmul(batch);
  }
  SmallVector<linalg::MatmulOp> matmuls;
  module.walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
  SmallVector<linalg::Conv2DNhwcHwcfOp> convs;
  module.walk([&](linalg::Conv2DNhwcHwcfOp op) { convs.push_back(op); });
  func::FuncOp convCallee =
      module.lookupSymbol<func::FuncOp>(kSconvUkernelSymbol);
  // Every packed weight's transpose (--strata-pack-weights): erased when
  // the microkernel reads all its views, else warned about.
  SmallPtrSet<Operation *, 8> relayouts;
  module.walk([&](linalg::TransposeOp transpose) {
    if (transpose.hasPureBufferSemantics() &&
        transpose.getInit().getDefiningOp<memref::AllocOp>() &&
        flow::PackedWeightLayout::get(transpose)) {
      relayouts.insert(transpose);
    }
  });
  SmallVector<Operation *> windowOps;
  module.walk([&](Operation *op) {
    if (isa<linalg::DepthwiseConv2DNhwcHwcOp, linalg::PoolingNhwcMaxOp,
            linalg::PoolingNhwcSumOp>(op)) {
      windowOps.push_back(op);
    }
  });
  func::FuncOp dwCallee =
      module.lookupSymbol<func::FuncOp>(kSdwconvUkernelSymbol);
  func::FuncOp intDwCallee =
      module.lookupSymbol<func::FuncOp>(kIdwconvUkernelSymbol);
  for (Operation *op : windowOps) {
    if (failed(rewriteWindowOp(op, *variant, dwCallee, intDwCallee, module))) {
      return failure();
    }
  }
  for (linalg::Conv2DNhwcHwcfOp conv : convs) {
    bool rewritten;
    if (failed(rewriteConv(conv, *variant, convCallee, module, rewritten))) {
      return failure();
    }
  }
  // Filters read back from their Winograd transforms (PackedWeightLayout.h):
  // erased when every reader became a Winograd call, before the transposes
  // of the transforms they read.
  SmallPtrSet<Operation *, 8> winogradViews;
  module.walk([&](linalg::GenericOp generic) {
    if (generic.hasPureBufferSemantics() &&
        generic.getDpsInits()[0].getDefiningOp<memref::AllocOp>() &&
        flow::WinogradFilter::get(generic)) {
      winogradViews.insert(generic);
    }
  });
  eraseDeadRelayouts(winogradViews);
  if (!matmuls.empty()) {
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Type i64 = b.getI64Type();
    func::FuncOp intCallee =
        module.lookupSymbol<func::FuncOp>(kIgemmUkernelSymbol);
    bool intCreated = false;
    if (!intCallee) {
      intCallee = func::FuncOp::create(
          b, module.getLoc(), kIgemmUkernelSymbol,
          b.getFunctionType(SmallVector<Type>(19, i64), {}));
      intCallee.setPrivate();
      intCreated = true;
    }
    bool anyInt = false;
    SmallVector<linalg::MatmulOp> floatMatmuls;
    for (linalg::MatmulOp matmul : matmuls) {
      bool rewritten;
      if (failed(rewriteIntMatmul(matmul, *variant, intCallee, rewritten))) {
        return failure();
      }
      anyInt |= rewritten;
      if (!rewritten) {
        floatMatmuls.push_back(matmul);
      }
    }
    if (intCreated && !anyInt) {
      intCallee.erase();
    }
    matmuls = std::move(floatMatmuls);
  }
  if (matmuls.empty()) {
    eraseDeadRelayouts(relayouts);
    return success();
  }
  func::FuncOp callee = module.lookupSymbol<func::FuncOp>(kSgemmUkernelSymbol);
  bool created = false;
  if (!callee) {
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Type i64 = b.getI64Type();
    callee =
        func::FuncOp::create(b, module.getLoc(), kSgemmUkernelSymbol,
                             b.getFunctionType(SmallVector<Type>(19, i64), {}));
    callee.setPrivate();
    created = true;
  }
  bool any = false;
  for (linalg::MatmulOp matmul : matmuls) {
    bool rewritten;
    if (failed(rewriteMatmul(matmul, *variant, callee, rewritten))) {
      return failure();
    }
    any |= rewritten;
  }
  if (created && !any) {
    callee.erase();
  }
  eraseDeadRelayouts(relayouts);
  return success();
}

} // namespace mlir::strata::llvmcpu
