//===- Vectorize.cpp - upstream linalg vectorization of parallel ops ------===//
//
// Within a workgroup, each linalg op whose innermost loops are static (its
// outer ones may be dynamic: tiled by one) is tiled to one native
// vector along its innermost parallel loop (and up to 16 iterations of its
// innermost reduction loop: matmuls become vector.contracts lowered to outer
// products, row reductions vector.multi_reductions) and vectorized with
// upstream linalg::vectorize. Ops it does not fit (partial vectors, i1 data,
// whose vectors LLVM packs into bits while the ABI keeps one byte per
// element, convolutions the vectorizer rejects) stay scalar loops, which
// LLVM's own vectorizers still see; a generic among them whose operands
// all run contiguously along another loop gets that loop innermost.
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
// Reduction loops are vectorized this many iterations at a time (at most).
constexpr int64_t kReductionLanes = 16;

// The widest power of two up to `limit` that divides `range`.
int64_t dividingPowerOfTwo(int64_t range, int64_t limit) {
  int64_t lanes = 1;
  while (lanes * 2 <= limit && range % (lanes * 2) == 0) {
    lanes *= 2;
  }
  return lanes;
}

// Tile sizes that give `op` one native vector along its innermost parallel
// loop (and up to kReductionLanes along its innermost reduction loop), or
// empty when it is left to loops.
SmallVector<int64_t> chooseVectorTile(linalg::LinalgOp op,
                                      int64_t nativeVectorBytes) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      !linalg::hasVectorizationImpl(op)) {
    return {};
  }
  int64_t widestBits = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    Type elementType = getElementTypeOrSelf(operand.get().getType());
    if (!elementType.isIntOrFloat() || elementType.isInteger(1)) {
      return {};
    }
    widestBits =
        std::max<int64_t>(widestBits, elementType.getIntOrFloatBitWidth());
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  std::optional<unsigned> parallelDim, reductionDim;
  for (unsigned dim = 0; dim < iterators.size(); ++dim) {
    if (iterators[dim] == utils::IteratorType::parallel) {
      parallelDim = dim;
    } else {
      reductionDim = dim;
    }
  }
  // Dynamic loops outside the vector are tiled by one (a row of a
  // sequence, a head's cache); the vector's own loops must be static.
  if (!parallelDim || ShapedType::isDynamic(ranges[*parallelDim]) ||
      (reductionDim && ShapedType::isDynamic(ranges[*reductionDim]))) {
    return {};
  }
  int64_t nativeLanes =
      std::max<int64_t>(1, nativeVectorBytes * 8 / widestBits);
  int64_t lanes = dividingPowerOfTwo(ranges[*parallelDim], nativeLanes);
  if (lanes < kMinLanes) {
    return {};
  }
  SmallVector<int64_t> tileSizes(op.getNumLoops(), 1);
  tileSizes[*parallelDim] = lanes;
  if (reductionDim && *reductionDim > *parallelDim) {
    tileSizes[*reductionDim] =
        dividingPowerOfTwo(ranges[*reductionDim], kReductionLanes);
  } else if (reductionDim) {
    // Rows of lanes (a split reduction's 294 steps of 16 partial sums):
    // any divisor makes whole vectors, and a tile of 2 stored the
    // accumulator to memory every second row.
    int64_t rows = kReductionLanes;
    while (ranges[*reductionDim] % rows != 0) {
      --rows;
    }
    tileSizes[*reductionDim] = rows;
  }
  return tileSizes;
}

// A generic left to loops whose operands all run contiguously along one
// parallel loop that is not its innermost (their last dimension is that
// loop's, or they have none): the loops are interchanged to put that loop
// innermost, so that the scalar loops step along memory and LLVM's loop
// vectorizer takes the innermost. A workgroup's column tile of a
// reduction over rows and columns (a global pool computed with its
// convolution: its channel count is dynamic when the last tile is
// partial) otherwise became loops over the columns innermost, a channel
// row apart each step.
void interchangeContiguousLoopInnermost(IRRewriter &rewriter,
                                        linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1) {
    return;
  }
  AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outputMap.getNumResults() == 0) {
    return;
  }
  auto last = dyn_cast<AffineDimExpr>(outputMap.getResults().back());
  unsigned loops = op.getNumLoops();
  if (!last || last.getPosition() == loops - 1 ||
      op.getIteratorTypesArray()[last.getPosition()] !=
          utils::IteratorType::parallel) {
    return;
  }
  unsigned contiguous = last.getPosition();
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (map.getNumResults() == 0) {
      continue;
    }
    auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!dim || dim.getPosition() != contiguous) {
      return;
    }
  }
  SmallVector<unsigned> order;
  for (unsigned loop = 0; loop < loops; ++loop) {
    if (loop != contiguous) {
      order.push_back(loop);
    }
  }
  order.push_back(contiguous);
  rewriter.setInsertionPoint(op);
  (void)linalg::interchangeGenericOp(rewriter, op, order);
}

void vectorizeFunction(func::FuncOp func, int64_t nativeVectorBytes) {
  SmallVector<linalg::LinalgOp> candidates;
  func.walk([&](linalg::LinalgOp op) { candidates.push_back(op); });
  IRRewriter rewriter(func.getContext());
  for (linalg::LinalgOp op : candidates) {
    SmallVector<int64_t> tileSizes = chooseVectorTile(op, nativeVectorBytes);
    if (tileSizes.empty()) {
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
        interchangeContiguousLoopInnermost(rewriter, generic);
      }
      continue;
    }
    // What the vectorizer rejects whole (2-d convolutions, pooling) it
    // rejects as tiles too: leave those untiled for the loop lowering.
    if (failed(linalg::vectorizeOpPrecondition(op))) {
      continue;
    }
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
        succeeded(linalg::vectorize(
            rewriter, tile, /*inputVectorSizes=*/{},
            /*inputScalableVecDims=*/{}, /*vectorizeNDExtract=*/false,
            /*flatten1DDepthwiseConv=*/false,
            /*assumeDynamicDimsMatchVecSizes=*/false,
            // vector.contract, lowered to outer products, is twice as fast
            // as broadcast + multiply + multi_reduction for matmuls.
            /*createNamedContraction=*/true))) {
      rewriter.eraseOp(tile);
    }
  }
}

// Whether combining in any order gives the same bits: extremes (NaN and
// signed zeros included) and integer sums, products and bitwise ops, not
// float sums or products.
bool isOrderFree(vector::CombiningKind kind, Type element) {
  using Kind = vector::CombiningKind;
  switch (kind) {
  case Kind::MINIMUMF:
  case Kind::MAXIMUMF:
  case Kind::MINNUMF:
  case Kind::MAXNUMF:
  case Kind::MINSI:
  case Kind::MINUI:
  case Kind::MAXSI:
  case Kind::MAXUI:
  case Kind::AND:
  case Kind::OR:
  case Kind::XOR:
    return true;
  case Kind::ADD:
  case Kind::MUL:
    return isa<IntegerType>(element);
  }
  return false;
}

// A vector.multi_reduction over one outer dimension (the parallel lanes
// innermost: a split reduction's partial extremes, 16 rows of 16 lanes a
// step) is lowered upstream to a chain, each row combined into the
// accumulator in turn; a NaN-propagating minimum is five dependent
// instructions on x86, so the chain, not memory, set the pace (2.2x the
// time of the float sum beside it over the same 9.6M floats). Where the
// order cannot change the result, the rows are combined as a tree of
// halves instead (an odd row out at a level joins at the end), then once
// into the accumulator: 162 -> 75 us for the minimum of 196x256x16 floats
// in cache, the sum 60.
void combineRowsAsTree(func::FuncOp func) {
  SmallVector<vector::MultiDimReductionOp> reductions;
  func.walk([&](vector::MultiDimReductionOp op) {
    VectorType type = op.getSourceVectorType();
    ArrayRef<int64_t> dims = op.getReductionDims();
    if (dims.size() != 1 || dims[0] == type.getRank() - 1 ||
        type.isScalable() || type.getDimSize(dims[0]) < 4 ||
        !isOrderFree(op.getKind(), type.getElementType()) ||
        isa<vector::MaskingOpInterface>(op->getParentOp())) {
      return;
    }
    reductions.push_back(op);
  });
  IRRewriter rewriter(func.getContext());
  for (vector::MultiDimReductionOp op : reductions) {
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    int64_t dim = op.getReductionDims()[0];
    Value rows = op.getSource();
    auto type = cast<VectorType>(rows.getType());
    SmallVector<int64_t> strides(type.getRank(), 1);
    auto slice = [&](int64_t offset, int64_t count) -> Value {
      SmallVector<int64_t> offsets(type.getRank(), 0), shape(type.getShape());
      offsets[dim] = offset;
      shape[dim] = count;
      return vector::ExtractStridedSliceOp::create(rewriter, loc, rows, offsets,
                                                   shape, strides);
    };
    // Odd rows out at each level are combined at the end.
    SmallVector<Value> odd;
    for (int64_t n = type.getDimSize(dim); n > 1; n /= 2) {
      if (n % 2 != 0) {
        odd.push_back(slice(n - 1, 1));
      }
      Value a = slice(0, n / 2);
      Value b = slice(n / 2, n / 2);
      rows = vector::makeArithReduction(rewriter, loc, op.getKind(), a, b);
    }
    for (Value row : odd) {
      rows = vector::makeArithReduction(rewriter, loc, op.getKind(), rows, row);
    }
    Value row =
        vector::ShapeCastOp::create(rewriter, loc, op.getDestType(), rows);
    rewriter.replaceOp(op, vector::makeArithReduction(
                               rewriter, loc, op.getKind(), row, op.getAcc()));
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
    splitRowSums(func, nativeVectorBytes);
    vectorizeFunction(func, nativeVectorBytes);
    combineRowsAsTree(func);
  }
  return success();
}

} // namespace mlir::strata::llvmcpu
