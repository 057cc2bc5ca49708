//===- Vectorize.cpp - upstream linalg vectorization of parallel ops ------===//
//
// Within a workgroup, each all-parallel linalg op (elementwise generics,
// fills, copies, transposes, broadcasts) on static shapes is tiled to one
// native vector along its innermost loop and vectorized with upstream
// linalg::vectorize. Ops it does not fit (reductions and contractions,
// partial vectors, i1 data, whose vectors LLVM packs into bits while the ABI
// keeps one byte per element) stay scalar loops, which LLVM's own vectorizers
// still see.
//
//===----------------------------------------------------------------------===//
#include "Strata/Codegen/LLVMCPU/Codegen.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::strata::llvmcpu {
namespace {

// Fewer lanes than this are not worth a vector.
constexpr int64_t kMinLanes = 4;

// The vector width (lanes) for `op`, or 0 when it is left to loops.
int64_t chooseLanes(linalg::LinalgOp op, int64_t nativeVectorBytes) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !linalg::hasVectorizationImpl(op)) {
    return 0;
  }
  int64_t widestBits = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    Type elementType = getElementTypeOrSelf(operand.get().getType());
    if (!elementType.isIntOrFloat() || elementType.isInteger(1)) {
      return 0;
    }
    widestBits =
        std::max<int64_t>(widestBits, elementType.getIntOrFloatBitWidth());
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic)) {
    return 0;
  }
  int64_t inner = ranges.back();
  int64_t lanes = std::max<int64_t>(1, nativeVectorBytes * 8 / widestBits);
  // The widest power of two up to the native width that divides the loop.
  while (lanes >= kMinLanes && inner % lanes != 0) {
    lanes /= 2;
  }
  return lanes >= kMinLanes ? lanes : 0;
}

void vectorizeFunction(func::FuncOp func, int64_t nativeVectorBytes) {
  SmallVector<linalg::LinalgOp> candidates;
  func.walk([&](linalg::LinalgOp op) { candidates.push_back(op); });
  IRRewriter rewriter(func.getContext());
  for (linalg::LinalgOp op : candidates) {
    int64_t lanes = chooseLanes(op, nativeVectorBytes);
    if (!lanes) {
      continue;
    }
    SmallVector<int64_t> tileSizes(op.getNumLoops(), 1);
    tileSizes.back() = lanes;
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::TiledLinalgOp> tiled = linalg::tileLinalgOp(
        rewriter, op, linalg::LinalgTilingOptions().setTileSizes(tileSizes));
    if (failed(tiled)) {
      continue;
    }
    rewriter.eraseOp(op);
    linalg::LinalgOp tile = tiled->op;
    rewriter.setInsertionPoint(tile);
    // On failure the tile stays a linalg op and becomes loops later.
    if (succeeded(linalg::vectorizeOpPrecondition(tile)) &&
        succeeded(linalg::vectorize(rewriter, tile))) {
      rewriter.eraseOp(tile);
    }
  }
}

} // namespace

LogicalResult vectorizeExecutable(ModuleOp module, int64_t nativeVectorBytes) {
  // Tiling and vectorization create ops of these dialects outside of any
  // pass, so nothing has loaded them yet.
  MLIRContext *context = module.getContext();
  context->loadDialect<affine::AffineDialect, arith::ArithDialect,
                       memref::MemRefDialect, scf::SCFDialect,
                       vector::VectorDialect>();
  for (auto func : module.getOps<func::FuncOp>()) {
    vectorizeFunction(func, nativeVectorBytes);
  }
  return success();
}

} // namespace mlir::strata::llvmcpu
