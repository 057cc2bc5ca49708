// FormDispatches.cpp - --strata-form-dispatches: elementwise fusion, then one
// outlined dispatch function per root tensor op (see Passes.td).

#include "Strata/Dialect/Flow/Transforms/Passes.h"

#include "Strata/Dialect/Check/IR/CheckOps.h"
#include "Strata/Dialect/Flow/IR/FlowOps.h"
#include "Strata/Dialect/Flow/IR/GlobalPool.h"
#include "Strata/Dialect/Flow/IR/PackedWeightLayout.h"
#include "Strata/Dialect/Util/IR/UtilOps.h"

#include "ConvToMatmul.h"
#include "SplitReductions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::strata::flow {
#define GEN_PASS_DEF_FORMDISPATCHESPASS
#include "Strata/Dialect/Flow/Transforms/Passes.h.inc"
} // namespace mlir::strata::flow

using namespace mlir;
using namespace mlir::strata;

namespace {

bool isPackedWeight(Operation *op);
bool isTransposedMatmulOperand(Operation *op);

/// Elementwise named ops (linalg.add, linalg.exp, ...) as linalg.generic, so
/// that the fusion patterns see them. linalg.fill is left alone: it is
/// recomputed in the dispatch of its consumer instead.
struct GeneralizeElementwise : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<linalg::GenericOp, linalg::FillOp>(op) ||
        !linalg::isElementwise(op) || !op.hasPureTensorSemantics() ||
        isPackedWeight(op) || isTransposedMatmulOperand(op)) {
      return failure();
    }
    if (failed(linalg::generalizeNamedOp(rewriter, op))) {
      return failure();
    }
    return success();
  }
};

/// An elementwise f32 op on a matmul's result that an expand_shape gave
/// unit dimensions (ONNX MatMul on [S, 1, K] activations, computed as an
/// [S, K] matmul and expanded back: at batch 1 the attention's projection
/// of a sequence-first encoder and its bias) is computed on the matmul's
/// shape instead, its result expanded: it then reads the matmul's result
/// in its own layout and joins its dispatch as the microkernel's epilogue.
/// (The reshape fusion by collapsing below does that for unit dimensions
/// grouped with the dimensions an operand reads alone, [[0, 1], [2]], not
/// for one among them, [[0], [1, 2]] with the bias read (d2): a dispatch of
/// its own, a pass over the product; 1.2% of a transformer encoder's time
/// at batch 1.) Not a greedy pattern: linalg's dropUnitDims may leave dead
/// ops when it gives up.
void dropUnitDimsOfMatmulEpilogues(ModuleOp module) {
  SmallVector<std::pair<linalg::GenericOp, SmallVector<unsigned>>> work;
  module.walk([&](linalg::GenericOp op) {
    if (!linalg::isElementwise(op) || !op.hasPureTensorSemantics() ||
        op.getNumResults() != 1 ||
        !getElementTypeOrSelf(op.getResult(0).getType()).isF32() ||
        !op.getIndexingMapsArray().back().isIdentity()) {
      return;
    }
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto expand = input->get().getDefiningOp<tensor::ExpandShapeOp>();
      if (!expand || !expand->hasOneUse() ||
          !op.getMatchingIndexingMap(input).isIdentity() ||
          !isa_and_nonnull<linalg::MatmulOp>(expand.getSrc().getDefiningOp()) ||
          !expand.getSrc().hasOneUse()) {
        continue;
      }
      // The expansion only adds unit dimensions: without them, the
      // source's shape.
      RankedTensorType type = expand.getResultType();
      SmallVector<unsigned> unit;
      SmallVector<int64_t> kept;
      for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
        if (type.getDimSize(d) == 1) {
          unit.push_back(d);
        } else {
          kept.push_back(type.getDimSize(d));
        }
      }
      if (!unit.empty() &&
          ArrayRef<int64_t>(kept) == expand.getSrcType().getShape()) {
        work.push_back({op, unit});
        return;
      }
    }
  });
  IRRewriter rewriter(module.getContext());
  for (auto &[op, unit] : work) {
    linalg::ControlDropUnitDims options;
    options.controlFn = [&](Operation *) { return unit; };
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::DropUnitDimsResult> result =
        linalg::dropUnitDims(rewriter, op, options);
    if (succeeded(result)) {
      rewriter.replaceOp(op, result->replacements);
    }
  }
}

/// An input of an elementwise generic read through a map with constant
/// results (a per-channel scale of shape 1xCx1x1 read (d0, d3, 0, 0) once
/// the layout is NHWC) is read as its collapse without its unit dimensions
/// instead, by the map without their results (any index of a unit
/// dimension that is in bounds is 0): (d3) on a tensor of C. The reshape
/// fusions below need maps that are projected permutations (a dequantized
/// matmul's per-channel scale and bias then join its epilogue).
struct DropUnitDimsOfInputs : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!linalg::isElementwise(op) || !op.hasPureTensorSemantics()) {
      return failure();
    }
    bool changed = false;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto type = dyn_cast<RankedTensorType>(input->get().getType());
      AffineMap map = op.getMatchingIndexingMap(input);
      // (A linalg op's result is left to elementwise fusion, which would
      // not fuse its producer through the collapse.)
      if (!type || map.isProjectedPermutation() ||
          input->get().getDefiningOp<linalg::LinalgOp>()) {
        continue;
      }
      SmallVector<int64_t> kept;
      for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
        if (type.getDimSize(d) != 1) {
          kept.push_back(d);
        }
      }
      AffineMap dropped =
          map.getSubMap(SmallVector<unsigned>(kept.begin(), kept.end()));
      if (!dropped.isProjectedPermutation()) {
        continue;
      }
      // Each kept dimension with the unit dimensions before it; trailing
      // unit dimensions join the last group.
      SmallVector<ReassociationIndices> groups;
      ReassociationIndices group;
      for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
        group.push_back(d);
        if (type.getDimSize(d) != 1) {
          groups.push_back(group);
          group.clear();
        }
      }
      if (!groups.empty()) {
        groups.back().append(group.begin(), group.end());
      }
      SmallVector<int64_t> shape;
      for (int64_t d : kept) {
        shape.push_back(type.getDimSize(d));
      }
      Value collapsed = tensor::CollapseShapeOp::create(
          rewriter, op.getLoc(), type.clone(shape), input->get(), groups);
      rewriter.modifyOpInPlace(op, [&] { input->set(collapsed); });
      maps[input->getOperandNumber()] = dropped;
      changed = true;
    }
    if (!changed) {
      return failure();
    }
    rewriter.modifyOpInPlace(op, [&] {
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

/// tensor.splat as a linalg.fill of a tensor.empty: a destination-style op
/// that writes its result in place (a splat would bufferize to a temporary
/// in the kernel, which a dynamic size leaves unbounded).
struct SplatToFill : OpRewritePattern<tensor::SplatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::SplatOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type) {
      return failure();
    }
    Value empty = tensor::EmptyOp::create(rewriter, op.getLoc(), type,
                                          op.getDynamicSizes());
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, op.getInput(), empty);
    return success();
  }
};

bool hasTensorType(TypeRange types) {
  return llvm::any_of(types, [](Type t) { return isa<TensorType>(t); });
}

/// Host control flow that only carries tensor values (scf.if/for/while and
/// their terminators, cf branches, calls and returns): it stays on the host.
/// So do check ops, which read their tensors on the host (check module),
/// and loads and stores of globals (a tensor global holds a host tensor).
bool isHostControlFlow(Operation *op) {
  return isa<func::CallOp, func::ReturnOp, RegionBranchOpInterface,
             RegionBranchTerminatorOpInterface, BranchOpInterface,
             strata::util::OptimizationBarrierOp, strata::util::GlobalLoadOp,
             strata::util::GlobalStoreOp, strata::util::ListGetOp,
             strata::util::ListSetOp>(op) ||
         isa_and_nonnull<strata::check::CheckDialect>(op->getDialect());
}

/// A reshape of a row-major tensor: on the host it is a new view of the
/// same buffer (its dynamic sizes computed there), so it is no dispatch.
bool isHostReshape(Operation *op) {
  if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op)) {
    return false;
  }
  auto source = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return source && result;
}

/// A constant tensor too large to copy into dispatches (a weight): it stays
/// on the host and dispatches read it like any other input.
bool isHostConstant(Operation *op) {
  auto constant = dyn_cast<arith::ConstantOp>(op);
  auto type = constant ? dyn_cast<RankedTensorType>(constant.getType())
                       : RankedTensorType();
  if (!type || !type.hasStaticShape() ||
      !type.getElementType().isIntOrFloat()) {
    return false;
  }
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (dense && dense.isSplat()) {
    return false; // a fill, whatever its size
  }
  unsigned bits = type.getElementTypeBitWidth();
  int64_t bytes = type.getNumElements() * (bits < 8 ? 1 : bits / 8);
  return bytes > flow::kMaxInlinedConstantBytes;
}

/// Ops that each dispatch recomputes rather than receives: they are cheap
/// and have no tensor operands that would have to be passed in.
bool isCloneable(Operation *op) {
  if (isHostConstant(op)) {
    return false;
  }
  if (isa<tensor::EmptyOp, arith::ConstantOp>(op)) {
    return true;
  }
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    Operation *value = fill.getInputs()[0].getDefiningOp();
    Operation *init = fill.getOutputs()[0].getDefiningOp();
    return value && init && isa<arith::ConstantOp>(value) &&
           isa<tensor::EmptyOp>(init);
  }
  return false;
}

/// Whether `pad` pads static dimensions by static amounts, except perhaps a
/// dynamic outermost dimension (a batch) that it does not pad.
bool hasStaticWindowShape(tensor::PadOp pad) {
  ArrayRef<int64_t> source = pad.getSourceType().getShape();
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  for (auto [dim, size] : llvm::enumerate(source)) {
    if (ShapedType::isDynamic(low[dim]) || ShapedType::isDynamic(high[dim])) {
      return false;
    }
    if (ShapedType::isDynamic(size) &&
        (dim != 0 || low[dim] != 0 || high[dim] != 0)) {
      return false;
    }
  }
  return true;
}

/// A tensor.pad by a value from outside (a constant) whose only use is the
/// input of a convolution or pooling, or of a gather of its windows (the
/// im2col of an int8 convolution, or of any convolution on a target
/// without direct convolutions), static but perhaps for its batch
/// (hasStaticWindowShape): each workgroup pads just the window its tile
/// reads, so no padded copy of the whole input is made (it was a dispatch
/// of one workgroup).
bool isPadOfWindowOp(tensor::PadOp pad) {
  if (!pad->hasOneUse() || !hasStaticWindowShape(pad) ||
      !pad.getConstantPaddingValue()) {
    return false;
  }
  OpOperand &use = *pad->getUses().begin();
  auto consumer = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!consumer || consumer->getBlock() != pad->getBlock() ||
      use.getOperandNumber() != 0) {
    return false;
  }
  if (isa<linalg::ConvolutionOpInterface>(consumer.getOperation())) {
    return true;
  }
  // A gather of the windows (an im2col: every loop parallel, the padded
  // tensor its one input, read through a map that is no permutation of
  // the loops, such as (n, y, x, ky, kx, c) -> (n, y + ky, x + kx, c)).
  return isa<linalg::GenericOp>(consumer.getOperation()) &&
         consumer.getNumDpsInputs() == 1 &&
         consumer.getNumParallelLoops() == consumer.getNumLoops() &&
         !consumer.getMatchingIndexingMap(&use).isProjectedPermutation();
}

/// The size of a padded dimension read from the pad's source: a window
/// op's pad (isPadOfWindowOp) then has no other user than its consumer.
struct DimOfPadFromSource : OpRewritePattern<tensor::DimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::DimOp dim,
                                PatternRewriter &rewriter) const override {
    auto pad = dim.getSource().getDefiningOp<tensor::PadOp>();
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!pad || !index || *index < 0 ||
        *index >= pad.getResultType().getRank() ||
        ShapedType::isDynamic(pad.getStaticLow()[*index]) ||
        ShapedType::isDynamic(pad.getStaticHigh()[*index])) {
      return failure();
    }
    int64_t added = pad.getStaticLow()[*index] + pad.getStaticHigh()[*index];
    Value size =
        tensor::DimOp::create(rewriter, dim.getLoc(), pad.getSource(), *index);
    if (added != 0) {
      size = arith::AddIOp::create(
          rewriter, dim.getLoc(), size,
          arith::ConstantIndexOp::create(rewriter, dim.getLoc(), added));
    }
    rewriter.replaceOp(dim, size);
    return success();
  }
};

/// Every other constant tensor.pad becomes a fill of its padded shape and an
/// insert of its source (upstream's decomposition), a dispatch of its own.
struct DecomposeOtherPads : linalg::DecomposePadOpPattern {
  using DecomposePadOpPattern::DecomposePadOpPattern;
  LogicalResult matchAndRewrite(tensor::PadOp pad,
                                PatternRewriter &rewriter) const override {
    if (isPadOfWindowOp(pad) || !pad.getConstantPaddingValue()) {
      return failure();
    }
    return DecomposePadOpPattern::matchAndRewrite(pad, rewriter);
  }
};

/// A convolution filter stored as its Winograd transform
/// (--strata-pack-weights winograd): the generic carrying the Winograd
/// marker (PackedWeightLayout.h, WinogradFilter) that reads the filter back
/// from the transform, read only as a convolution's filter.
bool isWinogradFilterView(Operation *op) {
  auto generic = dyn_cast_if_present<linalg::GenericOp>(op);
  if (!generic || !flow::WinogradFilter::get(generic) ||
      !generic->hasOneUse()) {
    return false;
  }
  OpOperand &use = *generic->getUses().begin();
  return isa<linalg::Conv2DNhwcHwcfOp>(use.getOwner()) &&
         use.getOperandNumber() == 1;
}

/// A weight packed at compile time (--strata-pack-weights): the reshape
/// of a transpose that carries the packed-weight marker
/// (PackedWeightLayout.h) and reads a host constant, read only as the
/// right-hand operand of a matmul or convolution, or as the transform a
/// Winograd filter view reads (isWinogradFilterView). All go into that
/// dispatch, which reads the packed constant; the code generator hands its
/// panels to the microkernel instead of transposing.
bool isPackedWeightReshape(Operation *op) {
  auto collapse = dyn_cast<tensor::CollapseShapeOp>(op);
  if (!collapse || !collapse->hasOneUse()) {
    return false;
  }
  auto transpose = collapse.getSrc().getDefiningOp<linalg::TransposeOp>();
  if (!flow::PackedWeightLayout::get(transpose)) {
    return false;
  }
  Operation *weight = transpose.getInput().getDefiningOp();
  OpOperand *use = &*collapse->getUses().begin();
  // Columns past N pad the last panel: a slice takes the first N.
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(use->getOwner())) {
    if (!slice->hasOneUse()) {
      return false;
    }
    use = &*slice->getUses().begin();
  }
  if (!weight || !transpose->hasOneUse() || !isHostConstant(weight)) {
    return false;
  }
  if (isWinogradFilterView(use->getOwner())) {
    return use->getOperandNumber() == 2;
  }
  return isa<linalg::MatmulOp, linalg::Conv2DNhwcHwcfOp>(use->getOwner()) &&
         use->getOperandNumber() == 1;
}

bool isPackedWeight(Operation *op) {
  if (isWinogradFilterView(op)) {
    return true;
  }
  if (auto transpose = dyn_cast<linalg::TransposeOp>(op)) {
    return transpose->hasOneUse() &&
           isPackedWeightReshape(*transpose->getUsers().begin());
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    Operation *source = slice.getSource().getDefiningOp();
    return source && isPackedWeightReshape(source);
  }
  return isPackedWeightReshape(op);
}

/// A static linalg.generic that relays out one tensor cheaply: all
/// parallel, its input and result read through permutations, a body of a
/// few arith ops on that input and constants (the attention's Q transposed
/// to heads-first and scaled by 1/sqrt(d) on the way).
bool isCheapRelayout(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  constexpr int64_t kMaxBodyOps = 4;
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic->getNumResults() != 1 ||
      !generic.hasPureTensorSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops()) {
    return false;
  }
  auto type = dyn_cast<RankedTensorType>(generic->getResult(0).getType());
  if (!type || !type.hasStaticShape() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isPermutation(); }) ||
      !generic.getMatchingBlockArgument(generic.getDpsInitOperand(0))
           .use_empty()) {
    return false;
  }
  Block *body = generic.getBody();
  if (static_cast<int64_t>(body->getOperations().size()) > kMaxBodyOps + 1) {
    return false;
  }
  for (Operation &bodyOp : body->without_terminator()) {
    if (!isa_and_nonnull<arith::ArithDialect>(bodyOp.getDialect())) {
      return false;
    }
    for (Value operand : bodyOp.getOperands()) {
      Operation *def = operand.getDefiningOp();
      bool outside = operand.getParentBlock() != body;
      if (outside && !(def && isa<arith::ConstantOp>(def))) {
        return false; // a captured non-constant value
      }
    }
  }
  return true;
}

/// A relayout (a transpose, or isCheapRelayout) whose one use is an operand
/// of a matmul or batch_matmul with a static depth: a key cache read as K^T
/// (the right-hand side), or the attention's queries transposed to
/// heads-first and scaled (the left). Each workgroup relays out its own tile
/// of the operand into a bounded temporary that the microkernel packs,
/// instead of a dispatch writing the whole relaid tensor to memory for the
/// matmul to read back. Not a relayout of a reduction's result (a global
/// pool's average before a classifier's matmul, which each of the matmul's
/// workgroups would compute again: mobilenet_v2's at batch 8 took 1.0-1.5
/// ms in 8 workgroups for a 10 M multiply-add matmul); that one is the root
/// of its own dispatch, with the pool and what the pool reads
/// (isFusedIntoGlobalPool).
bool isTransposedMatmulOperand(Operation *op) {
  bool transpose = isa<linalg::TransposeOp>(op);
  if ((!transpose && !isCheapRelayout(op)) || !op->hasOneUse()) {
    return false;
  }
  auto producer = op->getOperand(0).getDefiningOp<linalg::GenericOp>();
  if (producer && producer.getNumReductionLoops() != 0) {
    return false;
  }
  OpOperand &use = *op->getUses().begin();
  auto consumer = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!consumer || consumer->getBlock() != op->getBlock() ||
      use.getOperandNumber() > 1 ||
      (transpose && use.getOperandNumber() != 1) ||
      !isa<linalg::MatmulOp, linalg::BatchMatmulOp>(consumer.getOperation())) {
    return false;
  }
  if (auto matmul = dyn_cast<linalg::MatmulOp>(consumer.getOperation());
      matmul && matmul.hasUserDefinedMaps()) {
    return false;
  }
  if (auto batch = dyn_cast<linalg::BatchMatmulOp>(consumer.getOperation());
      batch && batch.hasUserDefinedMaps()) {
    return false;
  }
  SmallVector<int64_t> ranges = consumer.getStaticLoopRanges();
  return !ShapedType::isDynamic(ranges.back());
}

/// A linalg op computed inside the dispatch of its one consumer, an
/// elementwise linalg.generic that reads its whole result in the same
/// layout: a matmul and its bias and activation become one dispatch (the
/// code generator tiles the consumer and fuses the producer into each tile);
/// or a transposed matmul operand (isTransposedMatmulOperand).
bool isFusedIntoConsumer(Operation *op) {
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    return isPadOfWindowOp(pad);
  }
  if (isPackedWeight(op)) {
    return true;
  }
  auto producer = dyn_cast<linalg::LinalgOp>(op);
  if (!producer || isa<linalg::FillOp>(op) || op->getNumResults() != 1 ||
      !op->hasOneUse()) {
    return false;
  }
  if (isTransposedMatmulOperand(op)) {
    return true;
  }
  // The code generator cuts a root with dynamic sizes along its outermost
  // dimension only: a fused producer with another dynamic dimension would
  // need a temporary whose size has no bound. As a dispatch of its own,
  // its result is allocated by the host from the sizes it gets.
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (type && type.getRank() > 1 &&
      llvm::any_of(type.getShape().drop_front(), ShapedType::isDynamic)) {
    return false;
  }
  OpOperand &use = *op->getUses().begin();
  auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!consumer || consumer->getBlock() != op->getBlock() ||
      !linalg::isElementwise(consumer) || consumer.isDpsInit(&use)) {
    return false;
  }
  return consumer.getMatchingIndexingMap(&use).isIdentity();
}

/// An OpT (an NHWC convolution or depthwise convolution), or its
/// elementwise epilogue (an all-parallel generic reading one), with one
/// result and one use, on tensors.
template <typename OpT> bool isWindowOpOrItsEpilogue(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !op->hasOneUse() || op->getNumResults() != 1 ||
      !linalgOp.hasPureTensorSemantics()) {
    return false;
  }
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return isa<OpT>(op) || (generic && linalg::isElementwise(generic) &&
                          llvm::any_of(generic.getDpsInputs(), [](Value input) {
                            return isa_and_nonnull<OpT>(input.getDefiningOp());
                          }));
}

/// The input of `epilogue` a window op computes (isWindowOpOrItsEpilogue).
Operation *findWindowOpInput(linalg::GenericOp epilogue) {
  for (Value input : epilogue.getDpsInputs()) {
    if (isa_and_nonnull<linalg::ConvolutionOpInterface>(
            input.getDefiningOp())) {
      return input.getDefiningOp();
    }
  }
  return nullptr;
}

bool isConvolutionOrItsEpilogue(Operation *op) {
  return isWindowOpOrItsEpilogue<linalg::Conv2DNhwcHwcfOp>(op);
}

/// An NHWC convolution, or its elementwise epilogue (bias, activation), whose
/// one use is an operand of a static tensor.concat along channels: it is
/// computed in the concatenation's dispatch, which the code generator cuts into
/// bands that compute each operand's band straight into its slice of the result
/// (no operand is written whole to memory and copied back). For targets
/// that write a convolution's result through a strided view
/// (--fuse-into-concat).
bool isFusedIntoConcat(Operation *op) {
  if (!isConvolutionOrItsEpilogue(op)) {
    return false;
  }
  // Joined along channels, the innermost dimension: the band's slice of
  // each operand is then whole pixel rows at the concatenation's stride.
  auto concat = dyn_cast<tensor::ConcatOp>(*op->getUsers().begin());
  return concat && concat->getBlock() == op->getBlock() &&
         static_cast<int64_t>(concat.getDim()) ==
             concat.getResultType().getRank() - 1 &&
         concat.getResultType().hasStaticShape() &&
         cast<RankedTensorType>(op->getResult(0).getType()).hasStaticShape();
}

/// A result at least this large read by one window op is not written whole
/// to memory by the op that computes it, but band by band inside its
/// reader's dispatch: about the L2 of the CPUs the kernels run on, beyond
/// which the reader would read it back from the last level (squeezenet1_1's
/// and resnet18's first convolutions write 3.2 MB for their max pools,
/// mobilenet_v2's first depthwise convolution 1.6 MB an image for its
/// projection).
constexpr int64_t kBandFusionMinBytes = 1 << 20;

/// Whether `type` is static but perhaps for its outermost dimension (a
/// dynamic batch of NHWC images).
bool hasStaticImages(RankedTensorType type) {
  return llvm::none_of(type.getShape().drop_front(), ShapedType::isDynamic);
}

/// The window op (a depthwise convolution, a max pool) that reads `op`'s
/// one result as its input, directly or through its padding
/// (isPadOfWindowOp), in `op`'s block, with a result static but perhaps
/// for its batch (hasStaticImages; a depthwise convolution's chain needs
/// a static producer, isFusedIntoDepthwise); null otherwise.
template <typename OpT> OpT findWindowReader(Operation *op) {
  OpOperand *use = &*op->getUses().begin();
  if (auto pad = dyn_cast<tensor::PadOp>(use->getOwner())) {
    if (!isPadOfWindowOp(pad)) {
      return {};
    }
    use = &*pad->getUses().begin();
  }
  auto reader = dyn_cast<OpT>(use->getOwner());
  if (!reader || reader->getBlock() != op->getBlock() ||
      use->getOperandNumber() != 0 ||
      !hasStaticImages(
          cast<RankedTensorType>(reader->getResult(0).getType()))) {
    return {};
  }
  return reader;
}

/// The depthwise convolution that reads `op`'s one result as its input
/// (findWindowReader); null otherwise.
linalg::DepthwiseConv2DNhwcHwcOp findDepthwiseReader(Operation *op) {
  return findWindowReader<linalg::DepthwiseConv2DNhwcHwcOp>(op);
}

/// A static f32 NHWC convolution, or its elementwise epilogue (bias,
/// activation), whose one use is the input of a max pool (static, but
/// perhaps for its batch), directly
/// or through its padding by -inf (resnet18's stem: the pool's microkernel
/// skips it in place; another value would be copied into a padded window
/// by every band), and whose result is static (but perhaps for its batch)
/// and at least kBandFusionMinBytes (an image of a dynamic batch): it is
/// computed in the pool's dispatch, which the
/// code generator cuts into bands of output rows, each computing the
/// convolution's rows its windows read into a temporary that stays in
/// cache (neighbouring bands recompute the rows they share). For targets
/// that can (--fuse-into-pool).
bool isFusedIntoPool(Operation *op) {
  if (!isConvolutionOrItsEpilogue(op)) {
    return false;
  }
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || type.getRank() == 0 || !hasStaticImages(type) ||
      !type.getElementType().isF32()) {
    return false;
  }
  // A dynamic batch counts one image.
  int64_t bytes = 4;
  for (int64_t size : type.getShape()) {
    bytes *= ShapedType::isDynamic(size) ? 1 : size;
  }
  if (bytes < kBandFusionMinBytes ||
      !findWindowReader<linalg::PoolingNhwcMaxOp>(op)) {
    return false;
  }
  // (findWindowReader: a pad's value is one from outside its region.)
  auto pad = dyn_cast<tensor::PadOp>(*op->getUsers().begin());
  return !pad || matchPattern(pad.getConstantPaddingValue(), m_NegInfFloat());
}

/// The reduction over whole images that is the one use of `op`, a static
/// f32 NHWC convolution or its elementwise epilogue (a global pool,
/// flow::isGlobalPoolOf: a linalg.generic whose loops over the
/// convolution's rows and columns are its reductions, over images and
/// channels its parallel loops, and whose result is images x channels;
/// squeezenet1_1's classifier, 1x1 512 -> 1000 at 13x13, then its bias,
/// ReLU and average); null otherwise. At most kGlobalPoolMaxPixels pixels
/// an image, so that a workgroup's temporary stays in cache.
linalg::GenericOp findGlobalPoolReader(Operation *op) {
  constexpr int64_t kGlobalPoolMaxPixels = 1024;
  if (!isConvolutionOrItsEpilogue(op)) {
    return {};
  }
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  OpOperand &use = *op->getUses().begin();
  auto reduction = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
      type.getDimSize(1) * type.getDimSize(2) > kGlobalPoolMaxPixels ||
      !reduction || reduction->getBlock() != op->getBlock() ||
      !flow::isGlobalPoolOf(reduction, use) ||
      !cast<RankedTensorType>(reduction->getResult(0).getType())
           .hasStaticShape()) {
    return {};
  }
  return reduction;
}

/// A static f32 NHWC depthwise convolution, or its elementwise epilogue
/// (bias, activation), whose one use is the input of a static 1x1
/// convolution of stride 1 (mobilenet_v2's projection after each
/// depthwise convolution) and whose result is at least kBandFusionMinBytes:
/// it is computed in the projection's dispatch, which the code generator
/// cuts into bands of rows, each computing the depthwise rows it reads into
/// a temporary that stays in cache (a 1x1 convolution reads no neighbouring
/// row: nothing is computed twice). For targets that can
/// (--fuse-into-projection).
bool isFusedIntoProjection(Operation *op) {
  if (!isWindowOpOrItsEpilogue<linalg::DepthwiseConv2DNhwcHwcOp>(op)) {
    return false;
  }
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  OpOperand &use = *op->getUses().begin();
  auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(use.getOwner());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
      type.getNumElements() * 4 < kBandFusionMinBytes || !conv ||
      conv->getBlock() != op->getBlock() || use.getOperandNumber() != 0) {
    return false;
  }
  auto filter = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto isOne = [](DenseIntElementsAttr attr) {
    return llvm::all_of(attr.getValues<int64_t>(),
                        [](int64_t v) { return v == 1; });
  };
  return filter.hasStaticShape() && filter.getDimSize(0) == 1 &&
         filter.getDimSize(1) == 1 && isOne(conv.getStrides()) &&
         isOne(conv.getDilations()) &&
         cast<RankedTensorType>(conv->getResult(0).getType()).hasStaticShape();
}

/// A static f32 NHWC convolution, or its elementwise epilogue (bias,
/// activation), whose one use is the input of a static depthwise
/// convolution (or the pad of that input: mobilenet_v2's expansion before
/// each depthwise convolution) and whose result is at least
/// kBandFusionMinBytes: it is computed in the depthwise convolution's
/// dispatch, which the code generator cuts into bands of rows, each
/// computing the rows its windows read into a temporary that stays in
/// cache (neighbouring bands both compute the rows they share). For
/// targets that can (--fuse-into-depthwise).
bool isFusedIntoDepthwise(Operation *op) {
  if (!isConvolutionOrItsEpilogue(op)) {
    return false;
  }
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return type && type.hasStaticShape() && type.getElementType().isF32() &&
         type.getNumElements() * 4 >= kBandFusionMinBytes &&
         findDepthwiseReader(op);
}

/// "matmul_64x32x16_f32": what the root computes, over which loop ranges
/// (or result shape), on which element type.
/// What an elementwise epilogue does to the op it consumes, as name parts:
/// "bias" (a broadcast operand), "add" (another whole tensor: a residual),
/// "relu", "clip", "sigmoid", "tanh", "gelu" (erf).
std::string describeEpilogue(linalg::GenericOp epilogue) {
  SmallVector<std::string> parts;
  auto add = [&](StringRef part) {
    if (!llvm::is_contained(parts, part)) {
      parts.push_back(part.str());
    }
  };
  int64_t loops = epilogue.getNumLoops();
  bool whole = false;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    if (map.getNumResults() < loops) {
      add("bias");
    } else if (whole) {
      add("add"); // a second whole operand besides the producer's result
    } else {
      whole = true;
    }
  }
  bool max = false, min = false;
  epilogue.getBody()->walk([&](Operation *op) {
    if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op)) {
      max = true;
    } else if (isa<arith::MinimumFOp, arith::MinNumFOp>(op)) {
      min = true;
    } else if (isa<math::TanhOp>(op)) {
      add("tanh");
    } else if (isa<math::ErfOp>(op)) {
      add("gelu");
    } else if (isa<math::ExpOp>(op)) {
      add("sigmoid");
    }
  });
  if (max || min) {
    add(min ? "clip" : "relu"); // an upper bound makes it a clip
  }
  return llvm::join(parts, "_");
}

/// A size in a dispatch's name: its value, or "D" when dynamic (known only
/// at run time), as static and dynamic dispatches are named alike.
std::string sizeName(int64_t size) {
  return ShapedType::isDynamic(size) ? std::string("D") : std::to_string(size);
}

/// "conv_3x3_s2_64x128_28x28", "dwconv_3x3_s2_96_56x56", "maxpool_3x3_s2_64":
/// a 2-D window op by its window, stride and dilation (when not 1),
/// channels and output size, then "_nB" for a batch B other than 1 ("_nD"
/// for a dynamic one); empty for other ops.
std::string describeWindowOp(Operation *op) {
  auto conv = dyn_cast<linalg::ConvolutionOpInterface>(op);
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!conv || !linalgOp) {
    return {};
  }
  auto attrs = [&](StringRef name) -> SmallVector<int64_t> {
    auto attr = op->getAttrOfType<DenseIntElementsAttr>(name);
    SmallVector<int64_t> values;
    if (attr) {
      for (APInt v : attr.getValues<APInt>()) {
        values.push_back(v.getSExtValue());
      }
    }
    return values;
  };
  auto shape = [](Value v) { return cast<ShapedType>(v.getType()).getShape(); };
  std::string kind;
  std::string channels;
  ArrayRef<int64_t> window;
  if (auto c = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op)) {
    kind = "conv";
    ArrayRef<int64_t> filter = shape(c.getInputs()[1]);
    window = filter.take_front(2);
    channels = sizeName(filter[2]) + "x" + sizeName(filter[3]);
  } else if (auto c = dyn_cast<linalg::DepthwiseConv2DNhwcHwcOp>(op)) {
    kind = "dwconv";
    ArrayRef<int64_t> filter = shape(c.getInputs()[1]);
    window = filter.take_front(2);
    channels = sizeName(filter[2]);
  } else if (isa<linalg::PoolingNhwcMaxOp, linalg::PoolingNhwcSumOp>(op)) {
    kind = isa<linalg::PoolingNhwcMaxOp>(op) ? "maxpool" : "sumpool";
    window = shape(linalgOp.getDpsInputs()[1]);
    channels = sizeName(shape(linalgOp.getDpsInits()[0])[3]);
  } else {
    return {};
  }
  if (window.size() != 2) {
    return {};
  }
  auto pair = [](int64_t a, int64_t b) {
    return a == b ? std::to_string(a)
                  : std::to_string(a) + "x" + std::to_string(b);
  };
  std::string name =
      kind + "_" + sizeName(window[0]) + "x" + sizeName(window[1]);
  SmallVector<int64_t> strides = attrs("strides");
  if (strides.size() == 2 && (strides[0] != 1 || strides[1] != 1)) {
    name += "_s" + pair(strides[0], strides[1]);
  }
  SmallVector<int64_t> dilations = attrs("dilations");
  if (dilations.size() == 2 && (dilations[0] != 1 || dilations[1] != 1)) {
    name += "_d" + pair(dilations[0], dilations[1]);
  }
  ArrayRef<int64_t> out = shape(linalgOp.getDpsInits()[0]);
  name += "_" + channels + "_" + sizeName(out[1]) + "x" + sizeName(out[2]);
  if (out[0] != 1) {
    name = name + "_n" + sizeName(out[0]);
  }
  return name;
}

/// A window op's name followed by what its epilogue does:
/// "dwconv_3x3_32_112x112" -> "dwconv_3x3_32_112x112_bias_clip".
std::string withEpilogue(std::string window, Operation *epilogue) {
  if (auto generic = dyn_cast_or_null<linalg::GenericOp>(epilogue)) {
    if (std::string tail = describeEpilogue(generic); !tail.empty()) {
      window += "_" + tail;
    }
  }
  return window;
}

/// The global pool (findGlobalPoolReader) that reads `window`, a
/// convolution, directly or through its elementwise epilogue, when `root`
/// is that pool or the all-parallel op after it
/// (flow::isGlobalPoolEpilogue): the dispatch rooted at `root` computes the
/// convolution in the pool. Null otherwise.
linalg::GenericOp findFusingGlobalPool(Operation *window, Operation *root) {
  if (!root) {
    return {};
  }
  linalg::GenericOp pool = findGlobalPoolReader(window);
  if (!pool && window->hasOneUse()) {
    pool = findGlobalPoolReader(*window->getUsers().begin());
  }
  if (!pool || (root != pool.getOperation() &&
                !flow::isGlobalPoolEpilogue(dyn_cast<linalg::GenericOp>(root),
                                            pool->getResult(0)))) {
    return {};
  }
  return pool;
}

/// `root`'s name, preceded by those of the window ops fused into it
/// before it (isFusedIntoDepthwise, isFusedIntoProjection), each a window
/// op or its epilogue, first to last:
/// "dwconv_3x3_32_112x112_bias_clip_conv_1x1_32x16_112x112_bias_f32".
std::string describe(Operation *root, Operation *epilogue = nullptr,
                     ArrayRef<Operation *> leading = {}) {
  if (std::string window = describeWindowOp(root); !window.empty()) {
    // A convolution fused into its max pool (isFusedIntoPool): its
    // epilogue, then the pool.
    bool pooled = isa_and_nonnull<linalg::PoolingNhwcMaxOp>(epilogue);
    if (pooled) {
      epilogue = epilogue->getOperand(0).getDefiningOp();
      if (auto pad = dyn_cast<tensor::PadOp>(epilogue)) {
        epilogue = pad.getSource().getDefiningOp();
      }
    }
    // A convolution fused into its global pool (isFusedIntoGlobalPool):
    // what the reduction does to each value (its bias and activation),
    // then the pool; the root is the reduction or an op after it.
    linalg::GenericOp globalPool = findFusingGlobalPool(root, epilogue);
    if (globalPool) {
      epilogue = globalPool;
    }
    if (isa_and_nonnull<tensor::ConcatOp>(epilogue)) {
      window += "_concat";
    } else {
      window = withEpilogue(std::move(window), epilogue);
    }
    if (pooled) {
      window += "_maxpool";
    } else if (globalPool) {
      window += "_globalpool";
    }
    std::string lead;
    for (Operation *op : leading) {
      auto opEpilogue = dyn_cast<linalg::GenericOp>(op);
      lead += withEpilogue(describeWindowOp(
                               opEpilogue ? findWindowOpInput(opEpilogue) : op),
                           opEpilogue) +
              "_";
    }
    window = lead + window;
    std::string type;
    llvm::raw_string_ostream os(type);
    getElementTypeOrSelf(root->getResult(0).getType()).print(os);
    return window + "_" + type;
  }
  std::string kind;
  SmallVector<int64_t> dims;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(root)) {
    dims = linalgOp.getStaticLoopRanges();
    if (isa<linalg::GenericOp>(root)) {
      kind = linalgOp.getNumReductionLoops()   ? "reduction"
             : linalg::isElementwise(linalgOp) ? "elementwise"
                                               : "generic";
    } else {
      kind = root->getName().stripDialect().str();
    }
  } else {
    kind = root->getName().stripDialect().str();
    if (auto shaped = dyn_cast<ShapedType>(root->getResult(0).getType())) {
      dims.assign(shaped.getShape().begin(), shaped.getShape().end());
    }
  }
  std::replace(kind.begin(), kind.end(), '.', '_');
  std::string name = kind;
  if (!dims.empty()) {
    name += "_";
    name += llvm::join(llvm::map_range(dims, sizeName), "x");
  }
  std::string type;
  llvm::raw_string_ostream os(type);
  getElementTypeOrSelf(root->getResult(0).getType()).print(os);
  return name + "_" + type;
}

/// The values an op and the regions it holds read from outside it.
SmallVector<Value> readValues(Operation *op) {
  SetVector<Value> values(op->getOperands().begin(), op->getOperands().end());
  for (Region &region : op->getRegions()) {
    SetVector<Value> above;
    getUsedValuesDefinedAbove(region, above);
    values.insert(above.begin(), above.end());
  }
  return values.takeVector();
}

/// The size of dimension `dim` of `tensor`, as an index value on the host,
/// built with `b` (before the root being outlined). Sizes of what the
/// dispatch computes come from what it computes them from (a destination,
/// a tensor.empty's operands, or the op's own shape reification); sizes of
/// host tensors are read from their buffer views (tensor.dim).
Value resolveDim(OpBuilder &b, Location loc, Value tensor, int64_t dim,
                 const llvm::function_ref<bool(Operation *)> &inDispatch) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(dim)) {
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim));
  }
  Operation *def = tensor.getDefiningOp();
  if (def && inDispatch(def)) {
    if (auto empty = dyn_cast<tensor::EmptyOp>(def)) {
      return empty.getDynamicSize(dim);
    }
    // A cast keeps its source's sizes; it has no shape reification, and a
    // tensor.dim of the cast itself would read the dispatch's own result
    // before the dispatch.
    if (auto castOp = dyn_cast<tensor::CastOp>(def)) {
      return resolveDim(b, loc, castOp.getSource(), dim, inDispatch);
    }
    auto result = cast<OpResult>(tensor);
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(def)) {
      return resolveDim(b, loc,
                        dps.getDpsInitOperand(result.getResultNumber())->get(),
                        dim, inDispatch);
    }
    if (auto reifiable = dyn_cast<ReifyRankedShapedTypeOpInterface>(def)) {
      ReifiedRankedShapedTypeDims shapes;
      if (succeeded(reifiable.reifyResultShapes(b, shapes))) {
        OpFoldResult size = shapes[result.getResultNumber()][dim];
        if (auto attr = dyn_cast<Attribute>(size)) {
          return arith::ConstantIndexOp::create(
              b, loc, cast<IntegerAttr>(attr).getInt());
        }
        Value value = cast<Value>(size);
        // The reification reads its operands' sizes; those of values the
        // dispatch computes are resolved in turn.
        if (auto dimOp = value.getDefiningOp<tensor::DimOp>()) {
          std::optional<int64_t> index = dimOp.getConstantIndex();
          Operation *source = dimOp.getSource().getDefiningOp();
          if (index && source && inDispatch(source)) {
            Value resolved =
                resolveDim(b, loc, dimOp.getSource(), *index, inDispatch);
            if (dimOp->use_empty()) {
              dimOp->erase();
            }
            return resolved;
          }
        }
        return value;
      }
    }
  }
  return tensor::DimOp::create(b, loc, tensor, dim);
}

class DispatchFormer {
public:
  DispatchFormer(ModuleOp module, flow::ExecutableOp executable,
                 bool fuseIntoConcat, bool fuseIntoPool, bool fuseIntoDepthwise,
                 bool fuseIntoProjection)
      : module(module), executable(executable),
        functions(executable.getInnerModule()), fuseIntoConcat(fuseIntoConcat),
        fuseIntoPool(fuseIntoPool), fuseIntoDepthwise(fuseIntoDepthwise),
        fuseIntoProjection(fuseIntoProjection) {}

  /// Outlines every root of `func`; fails after reporting at the op.
  LogicalResult formDispatches(func::FuncOp func);

private:
  LogicalResult outline(func::FuncOp func, Operation *root);
  func::FuncOp findEquivalent(func::FuncOp kernel);
  /// A convolution (or its epilogue) read only by a global pool
  /// (findGlobalPoolReader) that is the root of its dispatch, or whose
  /// dispatch's root is an all-parallel op reading it (the average's
  /// division); not one computed in another op's dispatch (a pool's
  /// average is not fused into the classifier's matmul that reads it:
  /// isTransposedMatmulOperand). The pool's
  /// workgroups each compute an image's pixels for a tile of its channels
  /// into a temporary and reduce them there, instead of the convolution
  /// writing its whole result to memory for a dispatch of its own to read
  /// back. For targets that can (--fuse-into-pool).
  bool isFusedIntoGlobalPool(Operation *op) const {
    linalg::GenericOp reduction = findGlobalPoolReader(op);
    if (!reduction) {
      return false;
    }
    Operation *root = reduction;
    if (fused(reduction)) {
      if (!reduction->hasOneUse()) {
        return false;
      }
      root = *reduction->getUsers().begin();
      if (fused(root)) {
        return false;
      }
    }
    // The root the code generator cuts (findGlobalPooledConvolution): the
    // reduction, or an all-parallel op reading its result as it writes
    // it.
    return root == reduction ||
           flow::isGlobalPoolEpilogue(dyn_cast<linalg::GenericOp>(root),
                                      reduction->getResult(0));
  }
  /// Computed inside its consumer's dispatch (isFusedIntoConsumer, with
  /// fuseIntoConcat isFusedIntoConcat, with fuseIntoPool isFusedIntoPool
  /// and isFusedIntoGlobalPool, with fuseIntoDepthwise
  /// isFusedIntoDepthwise, with fuseIntoProjection isFusedIntoProjection).
  bool fused(Operation *op) const {
    return isFusedIntoConsumer(op) ||
           (fuseIntoConcat && isFusedIntoConcat(op)) ||
           (fuseIntoPool &&
            (isFusedIntoPool(op) || isFusedIntoGlobalPool(op))) ||
           (fuseIntoDepthwise && isFusedIntoDepthwise(op)) ||
           (fuseIntoProjection && isFusedIntoProjection(op));
  }

  ModuleOp module;
  flow::ExecutableOp executable;
  /// The executable's module of dispatch functions.
  ModuleOp functions;
  bool fuseIntoConcat;
  bool fuseIntoPool;
  bool fuseIntoDepthwise;
  bool fuseIntoProjection;
  unsigned dispatchCount = 0;
  SmallVector<func::FuncOp> kernels;
};

/// Whether dispatches can take and produce `type`: ranked tensors (static
/// or dynamic dimensions) of the element types the kernels and the
/// runtime's buffer views both have. Reports at `loc` otherwise.
LogicalResult checkTensorType(Type type, Location loc,
                              Operation *op = nullptr) {
  if (!isa<TensorType>(type)) {
    return success();
  }
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) {
    return emitError(loc, "tensor type ")
           << type << " is unranked, which is not supported";
  }
  Type element = tensor.getElementType();
  bool supported = element.isInteger(1) || element.isInteger(8) ||
                   element.isInteger(16) || element.isInteger(32) ||
                   element.isInteger(64) || element.isF16() ||
                   element.isBF16() || element.isF32() || element.isF64();
  if (!supported ||
      (isa<IntegerType>(element) && !element.isSignlessInteger())) {
    InFlightDiagnostic diag = emitError(loc);
    if (op) {
      diag << "'" << op->getName() << "' uses ";
    }
    return diag
           << "tensor type " << type << " with element type " << element
           << ", an unsupported element type (supported: i1, i8, i16, i32, "
              "i64, f16, bf16, f32, f64)";
  }
  return success();
}

LogicalResult DispatchFormer::formDispatches(func::FuncOp func) {
  // Check the whole function first, so nothing changes on failure; the
  // first problem is reported, at the function for its signature.
  bool ok = true;
  for (Type type : llvm::concat<const Type>(func.getArgumentTypes(),
                                            func.getResultTypes())) {
    if (failed(checkTensorType(type, func.getLoc()))) {
      return failure();
    }
  }
  func.walk([&](Operation *op) -> WalkResult {
    // A list's elements (an ONNX sequence's) may be of unknown rank: they
    // are only moved between lists on the host.
    if (isa<strata::util::ListGetOp, strata::util::ListSetOp>(op)) {
      return WalkResult::advance();
    }
    for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                              op->getResultTypes())) {
      if (failed(checkTensorType(type, op->getLoc(), op))) {
        ok = false;
        return WalkResult::interrupt();
      }
    }
    // tensor.extract reads one element back on the host (after a wait);
    // tensor.dim reads the buffer view's shape.
    if (!isHostControlFlow(op) && !isa<tensor::ExtractOp, tensor::DimOp>(op) &&
        hasTensorType(op->getOperandTypes()) &&
        !hasTensorType(op->getResultTypes())) {
      op->emitError("'") << op->getName()
                         << "' reads a tensor on the host, which is not "
                            "supported yet";
      ok = false;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!ok) {
    return failure();
  }
  SmallVector<Operation *> roots;
  func.walk([&](Operation *op) {
    if (hasTensorType(op->getResultTypes()) && !isCloneable(op) &&
        !isHostControlFlow(op) && !fused(op) && !isHostReshape(op) &&
        !isHostConstant(op)) {
      roots.push_back(op);
    }
  });
  for (Operation *root : roots) {
    if (failed(outline(func, root))) {
      return failure();
    }
  }
  // Cloneable ops left on the host: the dead ones go, and a tensor that
  // still reaches the host (a returned constant) becomes a dispatch of its
  // own.
  SmallVector<Operation *> leftovers;
  func.walk([&](Operation *op) {
    if (isCloneable(op) && hasTensorType(op->getResultTypes())) {
      leftovers.push_back(op);
    }
  });
  // Users first: a fill that reaches the host takes its tensor.empty into
  // its dispatch, and the empty is then dead.
  for (Operation *op : llvm::reverse(leftovers)) {
    if (op->use_empty()) {
      op->erase();
    } else if (failed(outline(func, op))) {
      return failure();
    }
  }
  return success();
}

LogicalResult DispatchFormer::outline(func::FuncOp func, Operation *root) {
  // The dispatch: the root and, transitively, its cloneable producers, in
  // an order where definitions come first.
  SetVector<Operation *> ops;
  SetVector<Value> inputs;
  SetVector<Value> scalars; // push constants, after the tensors
  std::function<LogicalResult(Operation *)> gather =
      [&](Operation *op) -> LogicalResult {
    for (Value value : readValues(op)) {
      Operation *def = value.getDefiningOp();
      if (def && def != root && (isCloneable(def) || fused(def))) {
        if (!ops.contains(def) && failed(gather(def))) {
          return failure();
        }
        continue;
      }
      if (!isa<TensorType>(value.getType())) {
        Type type = value.getType();
        bool pushable = type.isIndex() || type.isInteger(1) ||
                        type.isInteger(8) || type.isInteger(16) ||
                        type.isInteger(32) || type.isInteger(64) ||
                        type.isF32() || type.isF64();
        if (!pushable) {
          return op->emitError("uses the host value ")
                 << value << " of type " << type
                 << ", which cannot be passed to a dispatch";
        }
        scalars.insert(value);
        continue;
      }
      inputs.insert(value);
    }
    ops.insert(op);
    return success();
  };
  if (failed(gather(root))) {
    return failure();
  }
  // Scalars computed on the host reach the kernel as push constants; they
  // follow the tensors in its signature. Then come the sizes of the
  // dynamic dimensions of each tensor input, then of each result, in
  // order: the kernel's bindings are shaped by them and the host allocates
  // the results by them (this order is the contract with the code
  // generator, which finds them as the trailing index arguments).
  inputs.insert(scalars.begin(), scalars.end());
  SmallVector<Value> operands(inputs.begin(), inputs.end());
  {
    OpBuilder dimBuilder(root);
    auto inDispatch = [&](Operation *op) { return ops.contains(op); };
    for (Value input : inputs.getArrayRef()) {
      if (auto tensor = dyn_cast<RankedTensorType>(input.getType())) {
        for (int64_t d = 0; d < tensor.getRank(); ++d) {
          if (tensor.isDynamicDim(d)) {
            operands.push_back(
                resolveDim(dimBuilder, root->getLoc(), input, d, inDispatch));
          }
        }
      }
    }
    for (Value result : root->getResults()) {
      if (auto tensor = dyn_cast<RankedTensorType>(result.getType())) {
        for (int64_t d = 0; d < tensor.getRank(); ++d) {
          if (tensor.isDynamicDim(d)) {
            operands.push_back(
                resolveDim(dimBuilder, root->getLoc(), result, d, inDispatch));
          }
        }
      }
    }
  }

  // Named after the op that does the most work: a fused producer (the
  // matmul of matmul + bias) rather than its elementwise consumer, and of
  // two fused convolutions (a residual block's downsample and its second
  // conv) the larger.
  auto work = [](Operation *op) -> int64_t {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp) {
      return 0;
    }
    int64_t product = 1;
    for (int64_t range : linalgOp.getStaticLoopRanges()) {
      product *= ShapedType::isDynamic(range) ? 1 : range;
    }
    return product;
  };
  Operation *named = root;
  int64_t namedWork = -1;
  for (Operation *op : ops) {
    if (op != root && fused(op) && !isa<tensor::PadOp>(op) &&
        !isPackedWeight(op) && !isTransposedMatmulOperand(op) &&
        work(op) > namedWork) {
      named = op;
      namedWork = work(op);
    }
  }
  // A chain of window ops (expansion -> depthwise -> projection) is named
  // after the last, led by the others: a convolution fused into its
  // depthwise convolution, that depthwise convolution fused into its
  // projection.
  Operation *expansion = nullptr, *depthwise = nullptr;
  for (Operation *op : ops) {
    if (op != root && fuseIntoDepthwise && isFusedIntoDepthwise(op)) {
      expansion = op;
    } else if (op != root && fuseIntoProjection && isFusedIntoProjection(op)) {
      depthwise = op;
    }
  }
  SmallVector<Operation *> leading;
  if (expansion) {
    leading.push_back(expansion);
    named = findDepthwiseReader(expansion);
  }
  if (depthwise) {
    leading.push_back(depthwise);
    named = *depthwise->getUsers().begin();
  }
  std::string name = func.getSymName().str() + "_dispatch_" +
                     std::to_string(dispatchCount) + "_" +
                     describe(named, named != root ? root : nullptr, leading);
  OpBuilder builder(root->getContext());
  builder.setInsertionPointToEnd(functions.getBody());
  SmallVector<Type> inputTypes;
  for (Value operand : operands) {
    inputTypes.push_back(operand.getType());
  }
  auto type = builder.getFunctionType(inputTypes, root->getResultTypes());
  auto kernel = func::FuncOp::create(builder, root->getLoc(), name, type);
  Block *body = kernel.addEntryBlock();
  IRMapping mapping;
  mapping.map(inputs.getArrayRef(),
              body->getArguments().take_front(inputs.size()));
  builder.setInsertionPointToStart(body);
  for (Operation *op : ops) {
    builder.clone(*op, mapping);
  }
  SmallVector<Value> results;
  for (Value result : root->getResults()) {
    results.push_back(mapping.lookup(result));
  }
  func::ReturnOp::create(builder, root->getLoc(), results);

  if (func::FuncOp same = findEquivalent(kernel)) {
    kernel.erase();
    kernel = same;
  } else {
    kernels.push_back(kernel);
    ++dispatchCount;
  }
  OpBuilder callBuilder(root);
  auto entryPoint =
      SymbolRefAttr::get(executable.getSymNameAttr(),
                         {FlatSymbolRefAttr::get(kernel.getSymNameAttr())});
  auto call =
      flow::DispatchOp::create(callBuilder, root->getLoc(),
                               root->getResultTypes(), entryPoint, operands);
  root->replaceAllUsesWith(call.getResults());
  root->erase();
  // Producers computed inside the dispatch had the root as their only user.
  for (Operation *op : llvm::reverse(ops.getArrayRef())) {
    if (op != root && !isCloneable(op) && op->use_empty()) {
      op->erase();
    }
  }
  return success();
}

func::FuncOp DispatchFormer::findEquivalent(func::FuncOp kernel) {
  for (func::FuncOp other : kernels) {
    if (other.getFunctionType() == kernel.getFunctionType() &&
        OperationEquivalence::isRegionEquivalentTo(
            &other.getBody(), &kernel.getBody(),
            OperationEquivalence::IgnoreLocations)) {
      return other;
    }
  }
  return nullptr;
}

struct FormDispatchesPass
    : mlir::strata::flow::impl::FormDispatchesPassBase<FormDispatchesPass> {
  using FormDispatchesPassBase::FormDispatchesPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    bool hasTensors = false;
    module.walk([&](Operation *op) {
      if (hasTensorType(op->getResultTypes()) ||
          hasTensorType(op->getOperandTypes())) {
        hasTensors = true;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (!hasTensors) {
      return; // a scalar program: nothing to dispatch
    }

    // Sizes of padded tensors from their sources, and of ops' results from
    // their inits, first, so a window op's pad or the op computing its
    // input is not kept from its dispatch by a size query (the shape
    // checks of a dynamic batch: equal sizes, whose asserts then go).
    {
      RewritePatternSet dimPatterns(context);
      dimPatterns.add<DimOfPadFromSource>(context);
      // (A dynamic batch's convolution and epilogues: the size their
      // tensor.empty was made with, which keeps a convolution's one use
      // for the pool it is fused into, isFusedIntoPool.)
      memref::populateResolveRankedShapedTypeResultDimsPatterns(dimPatterns);
      tensor::EmptyOp::getCanonicalizationPatterns(dimPatterns, context);
      util::AssertEqOp::getCanonicalizationPatterns(dimPatterns, context);
      if (failed(applyPatternsGreedily(module, std::move(dimPatterns)))) {
        module.emitError(
            "resolving the sizes of pads and op results did not converge");
        return signalPassFailure();
      }
    }
    RewritePatternSet patterns(context);
    // A pad whose convolution becomes im2col + matmul below then reads into
    // a gather, and is decomposed in the same run.
    patterns.add<GeneralizeElementwise, SplatToFill, DecomposeOtherPads,
                 DropUnitDimsOfInputs>(context);
    if (im2colConvolutions) {
      flow::populateConvToMatmulPatterns(patterns, im2colMinWork,
                                         im2colDynamicBatch);
    }
    // (A packed weight's transpose is not folded back into a constant.)
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *operand) {
          Operation *producer = operand->get().getDefiningOp();
          return producer && producer->hasOneUse() &&
                 !isPackedWeight(operand->getOwner());
        });
    // An elementwise op reading an expand_shape of a linalg op's result is
    // computed on the collapsed shape instead, so it fuses into that op's
    // epilogue rather than being a dispatch of its own:
    // - an integer op of one operand (the xor that shifts a u8 activation
    //   for the next quantized layer, after the previous layer's matmul and
    //   the reshape back to NHWC), which the int8 microkernels fold into
    //   their requantization;
    // - a float op on a matmul's result (ONNX MatMul on 3-D activations,
    //   computed as a 2-D matmul and expanded back: the attention's
    //   projection bias, the MLP's bias and ReLU), which the matmul
    //   microkernel applies as it stores (bias, residual, clamp), or on an
    //   elementwise op of one (an i8 matmul's zero-point term, then its
    //   dequantization: MatMulInteger), which joins it there.
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        patterns, [](OpOperand *operand) {
          auto generic = dyn_cast<linalg::GenericOp>(operand->getOwner());
          auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
          if (!generic || !expand || generic.getNumResults() != 1 ||
              !linalg::isElementwise(generic) || !expand->hasOneUse() ||
              !generic.getMatchingIndexingMap(operand).isIdentity() ||
              !generic.getIndexingMapsArray().back().isIdentity()) {
            return false;
          }
          Operation *producer = expand.getSrc().getDefiningOp();
          if (!isa_and_nonnull<linalg::LinalgOp>(producer) ||
              !producer->hasOneUse()) {
            return false;
          }
          if (getElementTypeOrSelf(generic.getResult(0).getType())
                  .isInteger()) {
            return generic.getNumDpsInputs() == 1;
          }
          auto epilogue = dyn_cast<linalg::GenericOp>(producer);
          bool ofMatmul =
              isa<linalg::MatmulOp>(producer) ||
              (epilogue && linalg::isElementwise(epilogue) &&
               epilogue.getNumDpsInputs() >= 1 &&
               epilogue.getMatchingIndexingMap(epilogue.getDpsInputOperand(0))
                   .isIdentity() &&
               isa_and_nonnull<linalg::MatmulOp>(
                   epilogue.getDpsInputs()[0].getDefiningOp()));
          return ofMatmul &&
                 getElementTypeOrSelf(generic.getResult(0).getType()).isF32();
        });
    if (failed(applyPatternsGreedily(module, std::move(patterns)))) {
      module.emitError("elementwise fusion did not converge");
      return signalPassFailure();
    }
    // After fusion (a bias and its ReLU are one op by then), for the
    // epilogues the collapsing above left; the collapse of the expansion
    // it leaves folds away.
    dropUnitDimsOfMatmulEpilogues(module);
    {
      RewritePatternSet reshapePatterns(context);
      tensor::CollapseShapeOp::getCanonicalizationPatterns(reshapePatterns,
                                                           context);
      tensor::ExpandShapeOp::getCanonicalizationPatterns(reshapePatterns,
                                                         context);
      // The op's init, a collapsed tensor.empty, is an empty again.
      tensor::populateFoldTensorEmptyPatterns(reshapePatterns);
      if (failed(applyPatternsGreedily(module, std::move(reshapePatterns)))) {
        module.emitError("folding reshapes did not converge");
        return signalPassFailure();
      }
    }

    // After fusion, so a sum's fused producers (a square, a cast) come
    // along into its partial sums.
    flow::splitReductions(module);

    // A reduction over integer tensors (a quantized activation's global
    // average pool, dequantized in its body) whose inputs the loops
    // read through a permutation (NHWC read in NCHW order: channels, the
    // contiguous dimension, a parallel loop before the reduced H and W)
    // runs its loops in the input's order instead, so the code generator's
    // vectors along the innermost loop are contiguous reads, not gathers.
    {
      SmallVector<linalg::GenericOp> reorder;
      // (Several inputs read the same way: a residual add and its
      // requantization fused into the pool that reads them.)
      module.walk([&](linalg::GenericOp generic) {
        if (generic.getNumDpsInputs() == 0 ||
            generic.getNumReductionLoops() == 0 ||
            !generic.hasPureTensorSemantics()) {
          return;
        }
        AffineMap map =
            generic.getMatchingIndexingMap(generic.getDpsInputOperand(0));
        if (map.isIdentity() || !map.isPermutation() ||
            !llvm::all_of(generic.getDpsInputOperands(), [&](OpOperand *in) {
              return generic.getMatchingIndexingMap(in) == map &&
                     getElementTypeOrSelf(in->get().getType()).isInteger();
            })) {
          return;
        }
        reorder.push_back(generic);
      });
      IRRewriter rewriter(context);
      for (linalg::GenericOp generic : reorder) {
        AffineMap map =
            generic.getMatchingIndexingMap(generic.getDpsInputOperand(0));
        SmallVector<unsigned> order;
        for (AffineExpr expr : map.getResults()) {
          order.push_back(cast<AffineDimExpr>(expr).getPosition());
        }
        rewriter.setInsertionPoint(generic);
        (void)linalg::interchangeGenericOp(rewriter, generic, order);
      }
    }

    OpBuilder builder(context);
    builder.setInsertionPointToEnd(module.getBody());
    std::string name =
        module.getSymName().value_or("module").str() + "_linked_llvm_cpu";
    auto executable =
        flow::ExecutableOp::create(builder, module.getLoc(), name);

    DispatchFormer former(module, executable, fuseIntoConcat, fuseIntoPool,
                          fuseIntoDepthwise, fuseIntoProjection);
    for (auto func :
         llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (func.isDeclaration()) {
        continue;
      }
      if (failed(former.formDispatches(func))) {
        return signalPassFailure();
      }
    }
  }
};

} // namespace
