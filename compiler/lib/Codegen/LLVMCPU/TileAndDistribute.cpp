//===- TileAndDistribute.cpp - tensor-level workgroup distribution --------===//
//
// Splits each export's work into workgroups. The root op (the linalg op that
// produces the function's result) has its outermost one or two parallel loops
// tiled into an scf.forall; its producers (fills, elementwise ops, matmuls...)
// are fused into the forall so each iteration computes only the slices it
// needs. Every forall iteration later becomes one workgroup
// (bindWorkgroupIds). Reduction loops are never tiled, so a reduction to a
// 0-d result runs as one workgroup.
//
//===----------------------------------------------------------------------===//
#include "Strata/Codegen/LLVMCPU/Codegen.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"

#include "PassPipelines.h"

namespace mlir::strata::llvmcpu {
namespace {

// Work a workgroup should get: loop iterations times the element size of the
// result. Workgroups are cheap (one indirect call each), so a few KB of work
// amortize the call while leaving enough workgroups to spread over threads.
constexpr int64_t kTargetWorkgroupBytes = 16 * 1024;
// Beyond this many workgroups, tiles only get smaller: enough to keep any
// worker pool busy while each call still does a useful amount of work.
constexpr int64_t kMaxWorkgroups = 1024;
// The ABI's limit on each grid dimension.
constexpr int64_t kMaxWorkgroupsPerDim = 65535;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The tile size for a loop of `range` iterations split into about `wanted`
// tiles: a divisor of range close above range / wanted when one exists (full
// tiles only, static shapes stay static), else the plain quotient.
int64_t chooseTileSize(int64_t range, int64_t wanted) {
  wanted = std::max<int64_t>(1, std::min(wanted, range));
  int64_t ideal = ceilDiv(range, wanted);
  ideal = std::max(ideal, ceilDiv(range, kMaxWorkgroupsPerDim));
  for (int64_t size = ideal; size <= 2 * ideal && size <= range; ++size) {
    if (range % size == 0) {
      return size;
    }
  }
  return ideal;
}

// The linalg op whose results the function returns (all of them, e.g. a
// multi-result linalg.generic), or null when the results come from several
// ops or not from a linalg op.
linalg::LinalgOp findRoot(func::FuncOp func) {
  auto returnOp = dyn_cast<func::ReturnOp>(func.getBody().front().back());
  if (!returnOp || returnOp.getNumOperands() == 0) {
    return nullptr;
  }
  auto root = returnOp.getOperand(0).getDefiningOp<linalg::LinalgOp>();
  if (!root || !root.hasPureTensorSemantics() ||
      !isa<TilingInterface>(root.getOperation())) {
    return nullptr;
  }
  for (Value returned : returnOp.getOperands()) {
    if (returned.getDefiningOp() != root.getOperation()) {
      return nullptr;
    }
  }
  return root;
}

// Tile sizes (0: not tiled) for the root's loops; empty when the root should
// stay whole.
SmallVector<int64_t> chooseTileSizes(linalg::LinalgOp root) {
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  if (llvm::any_of(ranges, ShapedType::isDynamic)) {
    return {};
  }
  SmallVector<unsigned> parallelDims;
  for (auto [dim, iterator] : llvm::enumerate(iterators)) {
    if (iterator == utils::IteratorType::parallel && parallelDims.size() < 2) {
      parallelDims.push_back(dim);
    }
  }
  if (parallelDims.empty()) {
    return {};
  }
  int64_t elementBytes = 1;
  for (Type resultType : root->getResultTypes()) {
    Type elementType = getElementTypeOrSelf(resultType);
    elementBytes = std::max<int64_t>(
        elementBytes, elementType.getIntOrFloatBitWidth() / 8);
  }
  int64_t totalBytes = elementBytes;
  for (int64_t range : ranges) {
    totalBytes *= std::max<int64_t>(range, 1);
  }
  int64_t wanted =
      std::min(ceilDiv(totalBytes, kTargetWorkgroupBytes), kMaxWorkgroups);
  if (wanted <= 1) {
    return {};
  }
  SmallVector<int64_t> sizes(ranges.size(), 0);
  int64_t range0 = ranges[parallelDims[0]];
  int64_t size0 = chooseTileSize(range0, wanted);
  sizes[parallelDims[0]] = size0;
  int64_t count0 = ceilDiv(range0, size0);
  // Too few rows for the work: split the second parallel loop as well.
  if (count0 * 2 <= wanted && parallelDims.size() > 1) {
    int64_t range1 = ranges[parallelDims[1]];
    int64_t size1 = chooseTileSize(range1, ceilDiv(wanted, count0));
    if (size1 < range1) {
      sizes[parallelDims[1]] = size1;
    }
  }
  if (count0 == 1 && (parallelDims.size() < 2 || !sizes[parallelDims[1]])) {
    return {};
  }
  return sizes;
}

LogicalResult distributeFunction(func::FuncOp func) {
  linalg::LinalgOp root = findRoot(func);
  if (!root) {
    return success(); // one workgroup
  }
  SmallVector<int64_t> sizes = chooseTileSizes(root);
  if (sizes.empty()) {
    return success();
  }
  IRRewriter rewriter(func.getContext());
  rewriter.setInsertionPoint(root);
  SmallVector<OpFoldResult> tileSizes;
  for (int64_t size : sizes) {
    tileSizes.push_back(rewriter.getIndexAttr(size));
  }
  scf::SCFTilingOptions tilingOptions;
  tilingOptions.setTileSizes(tileSizes);
  tilingOptions.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tilingOptions);
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(root.getOperation()), options);
  if (failed(result)) {
    return root->emitError()
           << "cannot tile this op over workgroups (llvm-cpu)";
  }
  for (Value original : root->getResults()) {
    auto replacement = result->replacements.find(original);
    if (replacement == result->replacements.end()) {
      return root->emitError() << "tiling over workgroups lost a result";
    }
    rewriter.replaceAllUsesWith(original, replacement->second);
  }
  return success();
}

} // namespace

LogicalResult tileAndDistributeToWorkgroups(
    ModuleOp module, const llvm::StringSet<> &singleWorkgroup) {
  // Calls to private helpers are inlined (and the helpers dropped) so the
  // root is visible; elementwise chains become one linalg.generic, so the
  // root's producers are few and each fuses whole into the workgroup loop.
  if (failed(runPassPipeline(module, "inline,symbol-dce,"
                                     "func.func(linalg-fuse-elementwise-ops,"
                                     "canonicalize,cse)"))) {
    return failure();
  }
  // Tiling creates ops of these dialects outside of any pass.
  module.getContext()
      ->loadDialect<affine::AffineDialect, arith::ArithDialect,
                    scf::SCFDialect, tensor::TensorDialect>();
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || singleWorkgroup.contains(func.getSymName())) {
      continue;
    }
    if (failed(distributeFunction(func))) {
      return failure();
    }
  }
  // The untiled producers are dead now.
  return runPassPipeline(module, "func.func(canonicalize,cse)");
}

} // namespace mlir::strata::llvmcpu
