// SplitSlicedResults.cpp - --strata-split-sliced-results: a result read
// only in disjoint slices along one dimension is computed slice by slice
// (Passes.td).
//
// An attention's query, key and value come from one projection: a matmul
// of 3 * D columns (and its bias), then three slices of D columns. Each
// slice would be a dispatch that copies its third of the result; computed
// as three matmuls of D columns on the matching columns of the constant
// weight (sliced here, at compile time), each result is its own tensor and
// nothing is copied.
//
// What a slice is pushed through (each producer read by nothing else, so
// no work is repeated): elementwise linalg ops (their operands sliced
// along the same loop), linalg.matmul's columns (its weight and
// init), expand_shape and collapse_shape on a dimension they leave whole.
// It must end in constants (sliced here), tensor.empty and linalg.fill;
// anything else would be a copy at run time, so the chain is left as it
// is.

#include "Strata/Dialect/Flow/Transforms/Passes.h"

#include "ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Iterators.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::strata::flow {
#define GEN_PASS_DEF_SPLITSLICEDRESULTSPASS
#include "Strata/Dialect/Flow/Transforms/Passes.h.inc"
} // namespace mlir::strata::flow

using namespace mlir;
using namespace mlir::strata;

namespace {

// Elements [offset, offset + size) of dimension `dim`, all of the others.
struct DimSlice {
  int64_t dim;
  int64_t offset;
  int64_t size;
};

// Whether [offset, offset + size) is the whole of dimension `i` of
// `source`: static, or a dynamic size known to equal it (read back with
// tensor.dim, or the size its producer was made with).
bool isWholeDim(Value source, int64_t i, OpFoldResult offset,
                OpFoldResult size) {
  if (!isZeroInteger(offset)) {
    return false;
  }
  auto type = cast<RankedTensorType>(source.getType());
  if (!type.isDynamicDim(i)) {
    return isConstantIntValue(size, type.getDimSize(i));
  }
  FailureOr<bool> equal = ValueBoundsConstraintSet::areEqual(
      ValueBoundsConstraintSet::Variable(size),
      ValueBoundsConstraintSet::Variable(source, i));
  return succeeded(equal) && *equal;
}

// A slice of unit strides, of the same rank, that takes a static part of
// one static dimension and the whole of the others.
std::optional<DimSlice> matchDimSlice(tensor::ExtractSliceOp slice) {
  RankedTensorType sourceType = slice.getSourceType();
  if (slice.getResultType().getRank() != sourceType.getRank() ||
      !llvm::all_of(slice.getMixedStrides(), isOneInteger)) {
    return std::nullopt;
  }
  std::optional<DimSlice> part;
  for (int64_t i = 0; i < sourceType.getRank(); ++i) {
    OpFoldResult offset = slice.getMixedOffsets()[i];
    OpFoldResult size = slice.getMixedSizes()[i];
    if (isWholeDim(slice.getSource(), i, offset, size)) {
      continue;
    }
    std::optional<int64_t> start = getConstantIntValue(offset);
    std::optional<int64_t> length = getConstantIntValue(size);
    if (part || !start || !length || sourceType.isDynamicDim(i)) {
      return std::nullopt;
    }
    part = DimSlice{i, *start, *length};
  }
  return part;
}

// The slices reading `value` when those are all its uses (but for
// tensor.dim of the other dimensions): disjoint, along one dimension.
std::optional<SmallVector<std::pair<tensor::ExtractSliceOp, DimSlice>>>
matchSliceUses(Value value) {
  SmallVector<std::pair<tensor::ExtractSliceOp, DimSlice>> slices;
  SmallVector<int64_t> dims;
  for (Operation *user : value.getUsers()) {
    if (auto dim = dyn_cast<tensor::DimOp>(user)) {
      std::optional<int64_t> index = dim.getConstantIndex();
      if (!index) {
        return std::nullopt;
      }
      dims.push_back(*index);
      continue;
    }
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    std::optional<DimSlice> part = slice ? matchDimSlice(slice) : std::nullopt;
    if (!part || (!slices.empty() && slices.front().second.dim != part->dim)) {
      return std::nullopt;
    }
    slices.push_back({slice, *part});
  }
  if (slices.empty() || llvm::is_contained(dims, slices.front().second.dim)) {
    return std::nullopt;
  }
  SmallVector<DimSlice> parts = llvm::map_to_vector(
      slices, [](const auto &slice) { return slice.second; });
  llvm::sort(parts, [](const DimSlice &a, const DimSlice &b) {
    return a.offset < b.offset;
  });
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].offset < parts[i - 1].offset + parts[i - 1].size) {
      return std::nullopt;
    }
  }
  return slices;
}

// The dimension of an expand_shape's source (collapse_shape's result) that
// dimension `dim` of its result (source) is in, when every other dimension
// of that group is 1: slicing one is slicing the other.
std::optional<int64_t> reshapedDim(ArrayRef<ReassociationIndices> groups,
                                   ArrayRef<int64_t> expandedShape,
                                   int64_t dim) {
  for (auto [collapsed, group] : llvm::enumerate(groups)) {
    if (!llvm::is_contained(group, dim)) {
      continue;
    }
    for (int64_t other : group) {
      if (other != dim && expandedShape[other] != 1) {
        return std::nullopt;
      }
    }
    return collapsed;
  }
  return std::nullopt;
}

// The dimension of expanded dimension `collapsed`'s group that is not 1
// (the group's first when all are).
int64_t expandedDim(ArrayRef<ReassociationIndices> groups,
                    ArrayRef<int64_t> expandedShape, int64_t collapsed) {
  for (int64_t dim : groups[collapsed]) {
    if (expandedShape[dim] != 1) {
      return dim;
    }
  }
  return groups[collapsed].front();
}

// For an elementwise linalg op (parallel loops, its result's map the
// identity, a generic or a named op such as linalg.add or a transpose),
// the dimension of each operand that loop `dim` reads: its slice along the
// loop takes that slice of those operands.
std::optional<SmallVector<std::optional<int64_t>>>
elementwiseOperandDims(linalg::LinalgOp op, int64_t dim) {
  if (op->getNumResults() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.hasPureTensorSemantics() ||
      !op.getIndexingMapsArray().back().isIdentity() ||
      !op.getBlock()->getOps<linalg::IndexOp>().empty()) {
    return std::nullopt;
  }
  SmallVector<std::optional<int64_t>> dims;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation()) {
      return std::nullopt;
    }
    dims.push_back(
        map.getResultPosition(getAffineDimExpr(dim, op.getContext())));
  }
  return dims;
}

// The operands of `op` (the producer of a value sliced along `dim`) that
// take the slice, and along which of their dimensions; nullopt when the
// slice cannot be pushed through `op`.
std::optional<SmallVector<std::pair<unsigned, int64_t>>>
slicedOperands(Operation *op, int64_t dim) {
  SmallVector<std::pair<unsigned, int64_t>> sliced;
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op)) {
    // Columns: the weight's and the init's.
    if (dim != 1 || matmul.hasUserDefinedMaps() ||
        !matmul.hasPureTensorSemantics()) {
      return std::nullopt;
    }
    return SmallVector<std::pair<unsigned, int64_t>>{{1, 1}, {2, 1}};
  }
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    auto dims = elementwiseOperandDims(linalgOp, dim);
    if (!dims) {
      return std::nullopt;
    }
    for (auto [i, operandDim] : llvm::enumerate(*dims)) {
      if (operandDim) {
        sliced.push_back({static_cast<unsigned>(i), *operandDim});
      }
    }
    return sliced;
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    std::optional<int64_t> source =
        reshapedDim(expand.getReassociationIndices(),
                    expand.getResultType().getShape(), dim);
    if (!source) {
      return std::nullopt;
    }
    return SmallVector<std::pair<unsigned, int64_t>>{{0, *source}};
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
    int64_t source = expandedDim(groups, shape, dim);
    if (reshapedDim(groups, shape, source) != dim) {
      return std::nullopt;
    }
    return SmallVector<std::pair<unsigned, int64_t>>{{0, source}};
  }
  return std::nullopt;
}

// A constant whose elements are whole bytes: its slices are computed here.
bool isSliceableConstant(Value value) {
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!constant || !type || !type.hasStaticShape() ||
      !type.getElementType().isIntOrFloat() ||
      type.getElementType().getIntOrFloatBitWidth() % 8 != 0) {
    return false;
  }
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return (dense && dense.isSplat()) ||
         flow::rawElementData(constant.getValue()).has_value();
}

// Whether a slice of `value` along `dim` costs nothing at run time: it is a
// constant, an empty tensor or a fill of one, or the result of an op read
// by nothing else (`top`: the op whose result the slices read) whose
// operands' slices cost nothing.
bool isFreeToSlice(Value value, int64_t dim, bool top = false) {
  if (isSliceableConstant(value) || value.getDefiningOp<tensor::EmptyOp>()) {
    return true;
  }
  if (auto fill = value.getDefiningOp<linalg::FillOp>()) {
    return fill.hasPureTensorSemantics() &&
           isFreeToSlice(fill.getOutputs()[0], dim);
  }
  Operation *op = value.getDefiningOp();
  if (!op || op->getNumResults() != 1 || (!top && !value.hasOneUse())) {
    return false;
  }
  auto operands = slicedOperands(op, dim);
  return operands &&
         llvm::all_of(*operands, [&](std::pair<unsigned, int64_t> operand) {
           return isFreeToSlice(op->getOperand(operand.first), operand.second);
         });
}

// Elements [offset, offset + size) of dimension `dim` of a constant.
Value sliceConstant(OpBuilder &b, arith::ConstantOp constant,
                    const DimSlice &part) {
  auto type = cast<RankedTensorType>(constant.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[part.dim] = part.size;
  auto slicedType = RankedTensorType::get(shape, type.getElementType());
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (dense && dense.isSplat()) {
    return arith::ConstantOp::create(b, constant.getLoc(),
                                     dense.resizeSplat(slicedType));
  }
  ArrayRef<char> raw = *flow::rawElementData(constant.getValue());
  int64_t elementBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  int64_t inner = elementBytes;
  for (int64_t d = part.dim + 1; d < type.getRank(); ++d) {
    inner *= type.getDimSize(d);
  }
  int64_t outer = type.getNumElements() * elementBytes /
                  (inner * type.getDimSize(part.dim));
  std::vector<char> bytes;
  bytes.reserve(outer * part.size * inner);
  for (int64_t o = 0; o < outer; ++o) {
    const char *row =
        raw.data() + (o * type.getDimSize(part.dim) + part.offset) * inner;
    bytes.insert(bytes.end(), row, row + part.size * inner);
  }
  return arith::ConstantOp::create(
      b, constant.getLoc(),
      DenseElementsAttr::getFromRawBuffer(slicedType, bytes));
}

// The slice `part` of `value` (isFreeToSlice), made of new ops before the
// slice's use.
Value sliceValue(OpBuilder &b, Value value, const DimSlice &part) {
  Location loc = value.getLoc();
  if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
    return sliceConstant(b, constant, part);
  }
  if (auto empty = value.getDefiningOp<tensor::EmptyOp>()) {
    SmallVector<OpFoldResult> sizes = empty.getMixedSizes();
    sizes[part.dim] = b.getIndexAttr(part.size);
    return tensor::EmptyOp::create(b, loc, sizes,
                                   empty.getType().getElementType());
  }
  Operation *op = value.getDefiningOp();
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    Value init = sliceValue(b, fill.getOutputs()[0], part);
    return linalg::FillOp::create(b, loc, fill.getInputs()[0], init)
        .getResult(0);
  }
  SmallVector<Value> operands(op->getOperands());
  // (Held: a range over the optional's temporary would dangle.)
  std::optional<SmallVector<std::pair<unsigned, int64_t>>> sliced =
      slicedOperands(op, part.dim);
  for (auto [index, operandDim] : *sliced) {
    operands[index] = sliceValue(b, operands[index],
                                 DimSlice{operandDim, part.offset, part.size});
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    SmallVector<OpFoldResult> outputShape = expand.getMixedOutputShape();
    outputShape[part.dim] = b.getIndexAttr(part.size);
    SmallVector<int64_t> shape(expand.getResultType().getShape());
    shape[part.dim] = part.size;
    return tensor::ExpandShapeOp::create(
        b, loc, expand.getResultType().clone(shape), operands[0],
        expand.getReassociationIndices(), outputShape);
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    return tensor::CollapseShapeOp::create(b, loc, operands[0],
                                           collapse.getReassociationIndices());
  }
  // A linalg op: its result has its init's type.
  Operation *clone = b.clone(*op);
  clone->setOperands(operands);
  auto init = cast<DestinationStyleOpInterface>(clone).getDpsInitOperand(0);
  clone->getResult(0).setType(init->get().getType());
  return clone->getResult(0);
}

struct SplitSlicedResultsPass
    : flow::impl::SplitSlicedResultsPassBase<SplitSlicedResultsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // A chain (a matmul, the reshape after it, the bias add) is split from
    // the op the slices read, its operands sliced on the way (sliceValue),
    // so one pass over the ops finds each chain at its end.
    SmallVector<Operation *> producers;
    module.walk([&](Operation *op) {
      if (op->getNumResults() == 1 &&
          isa<linalg::LinalgOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
              op)) {
        producers.push_back(op);
      }
    });
    OpBuilder b(&getContext());
    bool split = false;
    for (Operation *op : producers) {
      Value result = op->getResult(0);
      auto slices = matchSliceUses(result);
      if (!slices || !isFreeToSlice(result, slices->front().second.dim,
                                    /*top=*/true)) {
        continue;
      }
      // The sizes of the other dimensions asked of the whole (a slice's
      // size, the whole of a dynamic dimension) are asked of what it is
      // computed from: a linalg op's init, a reshape's operand and output
      // shape (reified only for a reshape).
      b.setInsertionPointAfter(op);
      auto dps = dyn_cast<DestinationStyleOpInterface>(op);
      ReifiedRankedShapedTypeDims shapes;
      if (!dps &&
          llvm::any_of(result.getUsers(), llvm::IsaPred<tensor::DimOp>) &&
          failed(reifyResultShapes(b, op, shapes))) {
        continue;
      }
      for (Operation *user : llvm::make_early_inc_range(result.getUsers())) {
        if (auto dim = dyn_cast<tensor::DimOp>(user)) {
          int64_t index = *dim.getConstantIndex();
          OpFoldResult size =
              dps ? tensor::getMixedSize(b, dim.getLoc(),
                                         dps.getDpsInitOperand(0)->get(), index)
                  : shapes[0][index];
          dim.replaceAllUsesWith(
              getValueOrCreateConstantIndexOp(b, dim.getLoc(), size));
          dim.erase();
        }
      }
      for (auto [slice, part] : *slices) {
        b.setInsertionPoint(slice);
        Value sliced = sliceValue(b, result, part);
        slice.getResult().replaceAllUsesWith(sliced);
        slice.erase();
      }
      split = true;
    }
    // The chains that computed the wholes are read by nothing now.
    // (Walked from the end: a user goes before its producers.)
    while (split) {
      split = false;
      module.walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
        if (isa<linalg::LinalgOp, tensor::ExpandShapeOp,
                tensor::CollapseShapeOp, tensor::EmptyOp, tensor::DimOp,
                arith::ConstantOp>(op) &&
            isOpTriviallyDead(op)) {
          op->erase();
          split = true;
        }
      });
    }
  }
};

} // namespace
