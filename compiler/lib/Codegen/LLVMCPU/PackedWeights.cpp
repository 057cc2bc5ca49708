//===- PackedWeights.cpp - packed weights the microkernels read -----------===//
//
// The weights --strata-pack-weights stored in a microkernel's panel layout
// (f32 and int8), as the rewrites find them on bufferized memrefs, and the
// transposes that unpack them, erased once every reader is a microkernel
// call (UkernelCommon.h).
//
//===----------------------------------------------------------------------===//
#include "UkernelCommon.h"

#include "Strata/Codegen/LLVMCPU/Codegen.h"
#include "Strata/Dialect/Flow/IR/PackedWeightLayout.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

#include "ukernel/IgemmParams.h"
#include "ukernel/SgemmParams.h"

namespace mlir::strata::llvmcpu::ukernel {

namespace {

// The transpose that reads packed panels back into `transposed`, a buffer
// of its own (a memref.alloc) that nothing else writes, when it carries
// the packed-weight marker of `layout` (PackedWeightLayout.h, set by
// --strata-pack-weights) and permutes as that layout says.
linalg::TransposeOp findMarkedTranspose(Value transposed,
                                        flow::PackedWeightLayout layout) {
  if (!transposed.getDefiningOp<memref::AllocOp>()) {
    return {};
  }
  linalg::TransposeOp transpose;
  for (Operation *user : transposed.getUsers()) {
    auto op = dyn_cast<DestinationStyleOpInterface>(user);
    if (op && llvm::is_contained(op.getDpsInits(), transposed)) {
      if (transpose || !isa<linalg::TransposeOp>(user)) {
        return {};
      }
      transpose = cast<linalg::TransposeOp>(user);
    }
  }
  std::optional<flow::PackedWeightLayout> marker =
      flow::PackedWeightLayout::get(transpose);
  if (!marker || marker->panelColumns != layout.panelColumns ||
      marker->depthGroup != layout.depthGroup ||
      transpose.getPermutation() !=
          ArrayRef<int64_t>(layout.transposePermutation(
              cast<MemRefType>(transpose.getInput().getType()).getRank()))) {
    return {};
  }
  return transpose;
}

// Adds a view's column offset to `column`, the offset of the views seen so
// far: false when both are non-zero (two column cuts are not worth adding
// up).
bool addColumnOffset(OpFoldResult &column, OpFoldResult offset) {
  if (!isConstantIntValue(column, 0)) {
    return isConstantIntValue(offset, 0);
  }
  column = offset;
  return true;
}

} // namespace

// Whether `value` is provably a multiple of `factor`: a constant, a
// product with such a factor, a sum of multiples, an affine.apply whose
// expression is one whatever its operands (a workgroup's part of a
// concatenation's channels, p * 96 + 192), or the
// induction variable of an scf.forall whose lower bound and step are
// multiples (the column offset of a workgroup's tile, before or after its
// loop became workgroup ids).
bool isMultipleOf(OpFoldResult value, int64_t factor, int depth) {
  if (std::optional<int64_t> constant = getConstantIntValue(value)) {
    return *constant % factor == 0;
  }
  auto v = cast<Value>(value);
  if (depth > 8) {
    return false;
  }
  if (auto mul = v.getDefiningOp<arith::MulIOp>()) {
    return isMultipleOf(mul.getLhs(), factor, depth + 1) ||
           isMultipleOf(mul.getRhs(), factor, depth + 1);
  }
  if (auto add = v.getDefiningOp<arith::AddIOp>()) {
    return isMultipleOf(add.getLhs(), factor, depth + 1) &&
           isMultipleOf(add.getRhs(), factor, depth + 1);
  }
  if (auto apply = v.getDefiningOp<affine::AffineApplyOp>()) {
    return apply.getAffineMap().getResult(0).isMultipleOf(factor);
  }
  auto arg = dyn_cast<BlockArgument>(v);
  auto loop = arg ? dyn_cast<scf::ForallOp>(arg.getOwner()->getParentOp())
                  : scf::ForallOp();
  if (!loop || arg.getArgNumber() >= loop.getRank()) {
    return false;
  }
  unsigned dim = arg.getArgNumber();
  return isMultipleOf(loop.getMixedLowerBound()[dim], factor, depth + 1) &&
         isMultipleOf(loop.getMixedStep()[dim], factor, depth + 1);
}

// A weight packed at compile time (--strata-pack-weights): the right-hand
// operand of a matmul or conv is (a view of columns of)
//   collapse_shape(transpose(P)) : ... x N   (the last two dims merged)
// where P is a contiguous memref [N/W, <depth dims>, W] and the
// transpose, the one writer of its buffer, carries the f32 packed-weight
// marker for W (findMarkedTranspose), W a multiple of the microkernel's
// NR: its own panels, or a multi-ISA module's first variant's wider ones
// (the AVX2 kernel reads AVX-512's 32-column panels as two strips of 16).
// Every column the views start at begins a panel. The microkernel reads
// P's panels in place (STRATA_SGEMM_PACKED_B); the transpose is then dead
// (eraseDeadRelayouts).
std::optional<PackedWeights> findPackedWeights(Value rhs, int64_t nr) {
  auto rhsType = cast<MemRefType>(rhs.getType());
  int64_t rank = rhsType.getRank();
  Value whole = rhs;
  OpFoldResult column = OpBuilder(rhs.getContext()).getIndexAttr(0);
  // Views of columns of views (a tile of the first N columns of a padded
  // last panel): every column offset must start a panel (checked below,
  // once the panel width is known).
  SmallVector<OpFoldResult> offsets;
  while (auto view = whole.getDefiningOp<memref::SubViewOp>()) {
    // Every depth dimension whole, unit strides: only columns are cut.
    MemRefType sourceType = view.getSourceType();
    if (sourceType.getRank() != rank || !view.hasUnitStride()) {
      return std::nullopt;
    }
    for (int64_t d = 0; d + 1 < rank; ++d) {
      std::optional<int64_t> offset =
          getConstantIntValue(view.getMixedOffsets()[d]);
      std::optional<int64_t> size =
          getConstantIntValue(view.getMixedSizes()[d]);
      if (!offset || *offset != 0 || !size || sourceType.isDynamicDim(d) ||
          *size != sourceType.getDimSize(d)) {
        return std::nullopt;
      }
    }
    OpFoldResult offset = view.getMixedOffsets().back();
    offsets.push_back(offset);
    if (!addColumnOffset(column, offset)) {
      return std::nullopt;
    }
    whole = view.getSource();
  }
  auto collapse = whole.getDefiningOp<memref::CollapseShapeOp>();
  if (!collapse) {
    return std::nullopt;
  }
  SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
  for (int64_t d = 0; d + 1 < rank; ++d) {
    if (groups[d].size() != 1) {
      return std::nullopt;
    }
  }
  Value transposed = collapse.getSrc();
  auto transposedType = cast<MemRefType>(transposed.getType());
  if (groups.back().size() != 2 || !transposedType.hasStaticShape()) {
    return std::nullopt;
  }
  int64_t width = transposedType.getShape().back();
  if (width % nr != 0 || llvm::any_of(offsets, [&](OpFoldResult offset) {
        return !isMultipleOf(offset, width);
      })) {
    return std::nullopt;
  }
  linalg::TransposeOp transpose = findMarkedTranspose(
      transposed, flow::PackedWeightLayout{width, /*depthGroup=*/0});
  if (!transpose) {
    return std::nullopt;
  }
  Value panels = transpose.getInput();
  auto panelsType = dyn_cast<MemRefType>(panels.getType());
  if (!panelsType || !panelsType.getLayout().isIdentity() ||
      !panelsType.getElementType().isF32()) {
    return std::nullopt;
  }
  return PackedWeights{panels, column, width};
}

// The pointer and element offset of the first panel `packed` reads:
// P's own offset plus column * depth (each panel is depth x NR floats).
MatmulOperands decomposePacked(OpBuilder &b, Location loc,
                               const PackedWeights &packed, int64_t depth) {
  MatmulOperands operands = decompose(b, loc, packed.panels);
  Value column = getValueOrCreateConstantIndexOp(b, loc, packed.column);
  Value skipped = arith::MulIOp::create(
      b, loc, column, arith::ConstantIndexOp::create(b, loc, depth));
  operands.offset = arith::AddIOp::create(b, loc, operands.offset, skipped);
  operands.rowStride = arith::ConstantIndexOp::create(b, loc, packed.width);
  return operands;
}

std::optional<PackedWeights> findWinogradWeights(Value filter, int64_t nr) {
  Value whole = filter;
  OpFoldResult column = OpBuilder(filter.getContext()).getIndexAttr(0);
  // Views of its columns (a workgroup's column tile of a filter computed
  // whole): every other dimension whole, unit strides.
  while (auto view = whole.getDefiningOp<memref::SubViewOp>()) {
    MemRefType sourceType = view.getSourceType();
    if (sourceType.getRank() != 4 || !view.hasUnitStride() ||
        !sourceType.hasStaticShape()) {
      return std::nullopt;
    }
    for (int64_t d = 0; d < 3; ++d) {
      if (!isConstantIntValue(view.getMixedOffsets()[d], 0) ||
          !isConstantIntValue(view.getMixedSizes()[d],
                              sourceType.getDimSize(d))) {
        return std::nullopt;
      }
    }
    OpFoldResult offset = view.getMixedOffsets().back();
    if (!addColumnOffset(column, offset)) {
      return std::nullopt;
    }
    whole = view.getSource();
  }
  if (!whole.getDefiningOp<memref::AllocOp>()) {
    return std::nullopt;
  }
  // (Its zero fill aside: the generic sums into the buffer.)
  linalg::GenericOp writer;
  for (Operation *user : whole.getUsers()) {
    auto op = dyn_cast<DestinationStyleOpInterface>(user);
    if (op && !isa<linalg::FillOp>(user) &&
        llvm::is_contained(op.getDpsInits(), whole)) {
      if (writer || !isa<linalg::GenericOp>(user)) {
        return std::nullopt;
      }
      writer = cast<linalg::GenericOp>(user);
    }
  }
  std::optional<flow::WinogradFilter> marker =
      flow::WinogradFilter::get(writer);
  if (!marker || marker->outputTile != STRATA_SWINOGRAD_TILE ||
      writer.getNumDpsInputs() != 3) {
    return std::nullopt;
  }
  std::optional<PackedWeights> packed =
      findPackedWeights(writer.getDpsInputs()[2], nr);
  if (!packed) {
    return std::nullopt;
  }
  // The filter's column tile, or the transform's: one of them is whole.
  if (!isMultipleOf(column, packed->width) ||
      !addColumnOffset(packed->column, column)) {
    return std::nullopt;
  }
  return packed;
}

// An int8 weight packed at compile time (--strata-pack-weights): the
// right-hand operand of an int8 matmul is (a view of rows [0, K) and
// columns of)
//   collapse_shape(transpose(P)) : Kp x Np   ([[0, 1], [2, 3]])
// where P is a contiguous i8 memref [Np / NR, Kp / KG, NR, KG] and the
// transpose (T[g, t, p, j] = P[p, g, j, t]), the one writer of T, carries
// the int8 packed-weight marker for NR and KG (findMarkedTranspose). The
// microkernel reads P's panels (STRATA_IGEMM_PACKED_B).
std::optional<PackedWeights> findPackedIntWeights(Value rhs, int64_t nr,
                                                  int64_t kg) {
  Value whole = rhs;
  OpFoldResult column = OpBuilder(rhs.getContext()).getIndexAttr(0);
  while (auto view = whole.getDefiningOp<memref::SubViewOp>()) {
    // The depth from its start (K of the padded Kp), unit strides; a
    // column offset must start a panel.
    if (view.getSourceType().getRank() != 2 || !view.hasUnitStride() ||
        !isConstantIntValue(view.getMixedOffsets()[0], 0)) {
      return std::nullopt;
    }
    OpFoldResult offset = view.getMixedOffsets()[1];
    if (!isMultipleOf(offset, nr)) {
      return std::nullopt;
    }
    if (!addColumnOffset(column, offset)) {
      return std::nullopt;
    }
    whole = view.getSource();
  }
  auto collapse = whole.getDefiningOp<memref::CollapseShapeOp>();
  if (!collapse) {
    return std::nullopt;
  }
  SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
  Value transposed = collapse.getSrc();
  auto transposedType = cast<MemRefType>(transposed.getType());
  if (groups.size() != 2 || groups[0] != ReassociationIndices{0, 1} ||
      groups[1] != ReassociationIndices{2, 3} ||
      !transposedType.hasStaticShape() || transposedType.getDimSize(1) != kg ||
      transposedType.getDimSize(3) != nr) {
    return std::nullopt;
  }
  linalg::TransposeOp transpose =
      findMarkedTranspose(transposed, flow::PackedWeightLayout{nr, kg});
  if (!transpose) {
    return std::nullopt;
  }
  Value panels = transpose.getInput();
  auto panelsType = dyn_cast<MemRefType>(panels.getType());
  if (!panelsType || !panelsType.getLayout().isIdentity() ||
      !panelsType.getElementType().isSignlessInteger(8)) {
    return std::nullopt;
  }
  return PackedWeights{panels, column, nr};
}

// The transposes of packed weights whose output nothing reads any more
// (every view of it became a microkernel call): the views, the transpose
// and its buffer go. One still read (by an op left on loops) stays.
void eraseDeadRelayouts(SmallPtrSetImpl<Operation *> &relayouts) {
  for (Operation *relayout : relayouts) {
    auto op = cast<linalg::LinalgOp>(relayout);
    Value buffer = op.getDpsInits()[0];
    SmallVector<Operation *> views;
    std::function<bool(Value)> onlyViews = [&](Value value) {
      for (Operation *user : value.getUsers()) {
        if (user == relayout) {
          continue;
        }
        // The fill that zeroes a reduction's buffer first (a Winograd
        // filter view's) goes with it.
        auto fill = dyn_cast<linalg::FillOp>(user);
        if (fill && value == buffer && fill.getOutputs()[0] == buffer) {
          views.push_back(user);
          continue;
        }
        if (!isa<memref::SubViewOp, memref::CollapseShapeOp>(user) ||
            !onlyViews(user->getResult(0))) {
          return false;
        }
        views.push_back(user);
      }
      return true;
    };
    if (!onlyViews(buffer)) {
      // Correct, but every workgroup transposes the whole weight: the flow
      // phase packed it for an op the microkernel did not take.
      relayout->emitWarning()
          << "llvm-cpu: a weight packed for the matmul microkernel is read "
             "by an op that does not run on it; each workgroup unpacks it";
      continue;
    }
    // Users before their sources.
    for (Operation *view : views) {
      view->dropAllUses();
    }
    for (Operation *view : views) {
      view->erase();
    }
    Operation *alloc = buffer.getDefiningOp();
    relayout->erase();
    alloc->erase();
  }
}

} // namespace mlir::strata::llvmcpu::ukernel
