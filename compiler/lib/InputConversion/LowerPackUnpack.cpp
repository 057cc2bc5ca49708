// LowerPackUnpack.cpp - --strata-lower-pack-unpack: linalg.pack and
// linalg.unpack as linalg.generic ops that compute their source positions
// (Passes.td).

#include "Strata/InputConversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::strata::input {
#define GEN_PASS_DEF_LOWERPACKUNPACKPASS
#include "Strata/InputConversion/Passes.h.inc"
} // namespace mlir::strata::input

using namespace mlir;

namespace {

/// A linalg.generic over `dest` (all loops parallel, no inputs) whose body
/// `buildBody` computes each element from the loop indices.
linalg::GenericOp buildIndexedGeneric(
    RewriterBase &rewriter, Location loc, Value dest,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> buildBody) {
  auto type = cast<RankedTensorType>(dest.getType());
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
      rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{dest}, maps,
      iterators, [&](OpBuilder &b, Location bodyLoc, ValueRange) {
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d) {
          indices.push_back(linalg::IndexOp::create(b, bodyLoc, d));
        }
        linalg::YieldOp::create(b, bodyLoc, buildBody(b, bodyLoc, indices));
      });
}

/// The inner tile sizes as index values, built before the op.
SmallVector<Value> tileValues(RewriterBase &rewriter, Location loc,
                              ArrayRef<OpFoldResult> tiles) {
  SmallVector<Value> values;
  for (OpFoldResult tile : tiles) {
    if (auto value = dyn_cast<Value>(tile)) {
      values.push_back(value);
    } else {
      values.push_back(arith::ConstantIndexOp::create(
          rewriter, loc, cast<IntegerAttr>(cast<Attribute>(tile)).getInt()));
    }
  }
  return values;
}

/// For each source dimension of an unpacked tensor, the position of its
/// outer dimension in the packed tensor (outer_dims_perm applied).
SmallVector<int64_t> outerPositions(int64_t rank, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> positions(rank);
  for (int64_t p = 0; p < rank; ++p) {
    positions[perm.empty() ? p : perm[p]] = p;
  }
  return positions;
}

/// dest[outer..., inner...] = source[outer * tile + inner] (outer
/// dimensions permuted), or the padding value past the source's end.
void lowerPack(RewriterBase &rewriter, linalg::PackOp op) {
  Location loc = op.getLoc();
  Value source = op.getSource();
  auto sourceType = cast<RankedTensorType>(source.getType());
  int64_t rank = sourceType.getRank();
  SmallVector<Value> tiles = tileValues(rewriter, loc, op.getMixedTiles());
  ArrayRef<int64_t> innerPos = op.getInnerDimsPos();
  SmallVector<int64_t> outerPos = outerPositions(rank, op.getOuterDimsPerm());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    sizes.push_back(tensor::DimOp::create(rewriter, loc, source, d));
  }
  Value padding = op.getPaddingValue();
  auto generic = buildIndexedGeneric(
      rewriter, loc, op.getDest(),
      [&](OpBuilder &b, Location l, ArrayRef<Value> idx) -> Value {
        Value one = arith::ConstantIndexOp::create(b, l, 1);
        SmallVector<Value> sourceIdx;
        Value inBounds;
        for (int64_t d = 0; d < rank; ++d) {
          Value index = idx[outerPos[d]];
          auto tiled = llvm::find(innerPos, d);
          if (tiled != innerPos.end()) {
            int64_t j = std::distance(innerPos.begin(), tiled);
            Value scaled = arith::MulIOp::create(b, l, index, tiles[j]);
            index = arith::AddIOp::create(b, l, scaled, idx[rank + j]);
            if (padding) {
              // Past the end: the padding value, read from a clamped
              // (in-bounds) position.
              Value ok = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                               index, sizes[d]);
              inBounds =
                  inBounds ? arith::AndIOp::create(b, l, inBounds, ok) : ok;
              Value last = arith::SubIOp::create(b, l, sizes[d], one);
              index = arith::MinUIOp::create(b, l, index, last);
            }
          }
          sourceIdx.push_back(index);
        }
        Value value = tensor::ExtractOp::create(b, l, source, sourceIdx);
        if (inBounds) {
          value = arith::SelectOp::create(b, l, inBounds, value, padding);
        }
        return value;
      });
  rewriter.replaceOp(op, generic.getResults());
}

/// dest[i] = source[i / tile (outer dimensions permuted), i % tile].
void lowerUnpack(RewriterBase &rewriter, linalg::UnPackOp op) {
  Location loc = op.getLoc();
  Value source = op.getSource();
  int64_t rank = cast<RankedTensorType>(op.getDest().getType()).getRank();
  SmallVector<Value> tiles = tileValues(rewriter, loc, op.getMixedTiles());
  ArrayRef<int64_t> innerPos = op.getInnerDimsPos();
  SmallVector<int64_t> outerPos = outerPositions(rank, op.getOuterDimsPerm());
  auto generic = buildIndexedGeneric(
      rewriter, loc, op.getDest(),
      [&](OpBuilder &b, Location l, ArrayRef<Value> idx) -> Value {
        SmallVector<Value> sourceIdx(rank + innerPos.size());
        for (int64_t d = 0; d < rank; ++d) {
          Value outer = idx[d];
          auto tiled = llvm::find(innerPos, d);
          if (tiled != innerPos.end()) {
            int64_t j = std::distance(innerPos.begin(), tiled);
            outer = arith::DivUIOp::create(b, l, idx[d], tiles[j]);
            sourceIdx[rank + j] =
                arith::RemUIOp::create(b, l, idx[d], tiles[j]);
          }
          sourceIdx[outerPos[d]] = outer;
        }
        return tensor::ExtractOp::create(b, l, source, sourceIdx);
      });
  rewriter.replaceOp(op, generic.getResults());
}

struct LowerPackUnpackPass
    : mlir::strata::input::impl::LowerPackUnpackPassBase<LowerPackUnpackPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::PackOp, linalg::UnPackOp>(op)) {
        ops.push_back(op);
      }
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      if (!cast<DestinationStyleOpInterface>(op).hasPureTensorSemantics()) {
        op->emitError("'") << op->getName() << "' on buffers is not supported";
        return signalPassFailure();
      }
      rewriter.setInsertionPoint(op);
      if (auto pack = dyn_cast<linalg::PackOp>(op)) {
        lowerPack(rewriter, pack);
      } else {
        lowerUnpack(rewriter, cast<linalg::UnPackOp>(op));
      }
    }
  }
};

} // namespace
