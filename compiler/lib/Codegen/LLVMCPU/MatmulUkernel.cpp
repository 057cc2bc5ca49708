//===- MatmulUkernel.cpp - f32 matmuls on memrefs to microkernel calls ----===//
//
// Within a workgroup, a linalg.matmul on f32 with enough work becomes one
// call of strata_ukernel_sgemm_f32 (ukernel/SgemmDriver.h): the base
// addresses, offsets and row strides of its three memrefs, its sizes, an
// accumulate flag and a packing scratch buffer, all as i64. A zero fill of
// the same output right before it is folded into the call (the kernel
// overwrites instead of accumulating). The scratch is a memref.alloc sized
// from the sizes' upper bounds, which placeTemporaries puts in the
// workgroup's local memory. The target links in the bitcode of the variant
// (Target/LLVMCPU/UkernelLinker.cpp).
//
//===----------------------------------------------------------------------===//
#include "Strata/Codegen/LLVMCPU/Codegen.h"

#include <cmath>
#include <limits>

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

namespace mlir::strata::llvmcpu {
namespace {

// Rows a matmul of fewer rows (a matrix-vector product) is counted as.
constexpr int64_t kFewRowsWork = 16;
// A result of at least this many bytes in all is written with non-temporal
// stores (STRATA_SGEMM_STREAM): the op that reads it next would find little
// of it in the cache anyway (the size of the last-level cache of the CPUs
// measured, AMD Zen 3/4: 32 MiB), and streaming saves reading each line in
// before it is overwritten. Smaller results stay cached for their reader:
// at 12 MiB the readers of 12-15 MB results (mobilenet_v2, batch 8) lost
// as much as the writers gained.
constexpr int64_t kStreamedResultBytes = 32 << 20;

struct Variant {
  int64_t mr, nr;
  int64_t lanes; // f32 per vector (the depthwise kernel's channel block)
  // The int8 kernel's panel: columns, depth steps per 32-bit lane, and the
  // multiple its packed depth is padded to.
  int64_t intNr, intKg, intKMultiple;
};

std::optional<Variant> lookupVariant(StringRef name) {
  if (name == "avx512amx") {
    // The f32 kernels of avx512vnni; the int8 one on AMX tiles, whose
    // panels are vpdpbusd's with the depth padded to whole tiles.
    return Variant{STRATA_SGEMM_AVX512_MR,
                   STRATA_SGEMM_AVX512_NR,
                   16,
                   STRATA_IGEMM_VNNI_NR,
                   STRATA_IGEMM_VNNI_KG,
                   STRATA_IGEMM_AMX_KMULTIPLE};
  }
  if (name == "avx512vnni") {
    return Variant{
        STRATA_SGEMM_AVX512_MR, STRATA_SGEMM_AVX512_NR, 16,
        STRATA_IGEMM_VNNI_NR,   STRATA_IGEMM_VNNI_KG,   STRATA_IGEMM_VNNI_KG};
  }
  if (name == "avx512") {
    return Variant{
        STRATA_SGEMM_AVX512_MR, STRATA_SGEMM_AVX512_NR, 16,
        STRATA_IGEMM_MADD_NR,   STRATA_IGEMM_MADD_KG,   STRATA_IGEMM_MADD_KG};
  }
  if (name == "avx2") {
    return Variant{
        STRATA_SGEMM_AVX2_MR, STRATA_SGEMM_AVX2_NR, 8,
        STRATA_IGEMM_MADD_NR, STRATA_IGEMM_MADD_KG, STRATA_IGEMM_MADD_KG};
  }
  if (name == "neon") {
    // AArch64: f32 kernels only (an int8 panel of 0: int8 matmuls stay
    // with the code generator).
    return Variant{STRATA_SGEMM_NEON_MR, STRATA_SGEMM_NEON_NR, 4, 0, 0, 0};
  }
  return std::nullopt;
}

// STRATA_SGEMM_STREAM when the whole buffer `memref` is a view of (through
// subviews, casts and reshapes) has a static shape of at least
// kStreamedResultBytes; a tile of a large result streams like the rest.
int64_t streamFlag(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>()) {
    memref = view.getViewSource();
  }
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32()) {
    return 0;
  }
  int64_t bytes = type.getNumElements() * 4;
  return bytes >= kStreamedResultBytes ? STRATA_SGEMM_STREAM : 0;
}

// A row-major f32 memref (unit inner stride) of rank 2.
bool isRowMajorF32(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type || type.getRank() != 2 || !type.getElementType().isF32()) {
    return false;
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

// The constant upper bound of dimension `dim` of `memref`.
FailureOr<int64_t> upperBound(Value memref, int64_t dim) {
  auto type = cast<MemRefType>(memref.getType());
  if (!type.isDynamicDim(dim)) {
    return type.getDimSize(dim);
  }
  return ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::UB,
      ValueBoundsConstraintSet::Variable(memref, dim),
      /*stopCondition=*/nullptr, /*closedUB=*/true);
}

// The fill of exactly `output` right before `consumer` whose value
// `matches`, if any: only ops without memory effects (views, constants,
// index math) may sit between.
linalg::FillOp findFill(Operation *consumer, Value output,
                        function_ref<bool(Value)> matches) {
  for (Operation *op = consumer->getPrevNode(); op; op = op->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      if (fill.getOutputs()[0] != output || !matches(fill.getInputs()[0])) {
        return {};
      }
      return fill;
    }
    if (!isMemoryEffectFree(op)) {
      return {};
    }
  }
  return {};
}

// The zero fill of `output` right before `consumer`. -0.0 + x differs from
// x only in the sign of a zero result; the kernel's overwrite gives x,
// which is what 0.0 + x gives.
linalg::FillOp findZeroFill(Operation *consumer, Value output) {
  return findFill(consumer, output, [](Value value) {
    return matchPattern(value, m_AnyZeroFloat());
  });
}

struct MatmulOperands {
  Value alignedPointer, offset, rowStride;
};

MatmulOperands decompose(OpBuilder &b, Location loc, Value memref) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, metadata.getBaseBuffer());
  return {pointer, metadata.getOffset(), metadata.getStrides()[0]};
}

// A weight packed at compile time (--strata-pack-weights): the right-hand
// operand of a matmul or conv is (a view of columns of)
//   collapse_shape(transpose(P)) : ... x N   (the last two dims merged)
// where P is a contiguous memref [N/NR, <depth dims>, NR], the transpose
// moves its panel dimension next to the NR columns and nothing else writes
// the transposed buffer. The microkernel reads P's panels in place
// (STRATA_SGEMM_PACKED_B); the transpose is then dead (eraseDeadRelayouts).
struct PackedWeights {
  Value panels;        // P
  OpFoldResult column; // the first column of the view (a multiple of NR)
};

// Whether `value` is provably a multiple of `factor`: a constant, a
// product with such a factor, a sum of multiples, or the induction
// variable of an scf.forall whose lower bound and step are multiples (the
// column offset of a workgroup's tile, before or after its loop became
// workgroup ids).
bool isMultipleOf(OpFoldResult value, int64_t factor, int depth = 0) {
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

std::optional<PackedWeights> findPackedWeights(Value rhs, int64_t nr) {
  auto rhsType = cast<MemRefType>(rhs.getType());
  int64_t rank = rhsType.getRank();
  Value whole = rhs;
  OpFoldResult column = OpBuilder(rhs.getContext()).getIndexAttr(0);
  // Views of columns of views (a tile of the first N columns of a padded
  // last panel): every column offset must start a panel.
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
    if (!isMultipleOf(offset, nr)) {
      return std::nullopt;
    }
    std::optional<int64_t> constant = getConstantIntValue(column);
    if (!constant || *constant != 0) {
      // Two non-zero column offsets: not worth adding up.
      if (!isConstantIntValue(offset, 0)) {
        return std::nullopt;
      }
    } else {
      column = offset;
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
  if (groups.back().size() != 2 || !transposedType.hasStaticShape() ||
      transposedType.getShape().back() != nr || !isMultipleOf(column, nr) ||
      !transposed.getDefiningOp<memref::AllocOp>()) {
    return std::nullopt;
  }
  // Its one writer: out[d0.., p, j] = P[p, d0.., j].
  linalg::LinalgOp writer;
  for (Operation *user : transposed.getUsers()) {
    auto op = dyn_cast<linalg::LinalgOp>(user);
    if (op && llvm::is_contained(op.getDpsInits(), transposed)) {
      if (writer) {
        return std::nullopt;
      }
      writer = op;
    }
  }
  int64_t loops = rank + 1;
  if (!writer || writer.getNumDpsInputs() != 1 ||
      writer.getNumDpsInits() != 1 ||
      writer.getNumParallelLoops() != static_cast<unsigned>(loops)) {
    return std::nullopt;
  }
  SmallVector<AffineExpr> panelFirst = {
      getAffineDimExpr(loops - 2, rhs.getContext())};
  for (int64_t d = 0; d < loops - 2; ++d) {
    panelFirst.push_back(getAffineDimExpr(d, rhs.getContext()));
  }
  panelFirst.push_back(getAffineDimExpr(loops - 1, rhs.getContext()));
  OpOperand *input = writer.getDpsInputOperand(0);
  OpOperand *init = writer.getDpsInitOperand(0);
  Block *body = writer.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (writer.getMatchingIndexingMap(input) !=
          AffineMap::get(loops, 0, panelFirst, rhs.getContext()) ||
      !writer.getMatchingIndexingMap(init).isIdentity() || !yield ||
      yield.getNumOperands() != 1 ||
      yield.getOperand(0) != body->getArgument(0)) {
    return std::nullopt;
  }
  Value panels = input->get();
  auto panelsType = dyn_cast<MemRefType>(panels.getType());
  if (!panelsType || !panelsType.getLayout().isIdentity() ||
      !panelsType.getElementType().isF32()) {
    return std::nullopt;
  }
  return PackedWeights{panels, column};
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
  return operands;
}

// The elementwise op that reads a product's whole result and writes the
// real output, when the microkernel can apply it as it stores the last
// depth block (SgemmEpilogue.h): out' = clamp((out + bias) + residual)
// with every part optional and the two additions in either order, the
// body's own order.
struct FusedEpilogue {
  linalg::GenericOp generic;
  Value target;   // the generic's output: the microkernel's C
  Value bias;     // memref<N>, or null
  Value residual; // shaped like the output, or null
  bool residualFirst = false;
  bool clamp = false;
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();

  int64_t flags() const {
    return (bias ? STRATA_SGEMM_BIAS : 0) |
           (residual ? STRATA_SGEMM_RESIDUAL : 0) |
           (residualFirst ? STRATA_SGEMM_RESIDUAL_FIRST : 0) |
           (clamp ? STRATA_SGEMM_CLAMP : 0);
  }
};

// `out` is the product's temporary output (a memref.alloc written by
// `fill`, which the call folds, and `product`); `layoutOk` says whether a
// memref can be the microkernel's C (or residual) in its place.
std::optional<FusedEpilogue> findEpilogue(Operation *product, Value out,
                                          linalg::FillOp fill,
                                          function_ref<bool(Value)> layoutOk) {
  if (!fill || !out.getDefiningOp<memref::AllocOp>()) {
    return std::nullopt;
  }
  linalg::GenericOp generic;
  for (Operation *user : out.getUsers()) {
    if (user == product || user == fill.getOperation() ||
        isa<memref::DeallocOp>(user)) {
      continue;
    }
    auto consumer = dyn_cast<linalg::GenericOp>(user);
    if (!consumer || generic) {
      return std::nullopt;
    }
    generic = consumer;
  }
  auto outType = cast<MemRefType>(out.getType());
  int64_t rank = outType.getRank();
  if (!generic || generic->getBlock() != product->getBlock() ||
      !generic.hasPureBufferSemantics() || generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != static_cast<unsigned>(rank) ||
      generic.getNumParallelLoops() != static_cast<unsigned>(rank)) {
    return std::nullopt;
  }
  // The call moves down to the generic: only views and index math (its
  // operands) may sit between.
  for (Operation *op = product->getNextNode(); op != generic.getOperation();
       op = op->getNextNode()) {
    if (!isMemoryEffectFree(op)) {
      return std::nullopt;
    }
  }
  FusedEpilogue epilogue;
  epilogue.generic = generic;
  OpOperand *init = generic.getDpsInitOperand(0);
  epilogue.target = init->get();
  auto targetType = dyn_cast<MemRefType>(epilogue.target.getType());
  if (!targetType || targetType.getShape() != outType.getShape() ||
      !targetType.getElementType().isF32() ||
      !generic.getMatchingIndexingMap(init).isIdentity() ||
      !layoutOk(epilogue.target) ||
      !generic.getMatchingBlockArgument(init).use_empty()) {
    return std::nullopt;
  }
  MLIRContext *context = generic.getContext();
  AffineMap lastDim =
      AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, context));
  BlockArgument productArg, biasArg, residualArg;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    Value value = input->get();
    auto type = dyn_cast<MemRefType>(value.getType());
    if (!type || !type.getElementType().isF32()) {
      return std::nullopt;
    }
    BlockArgument arg = generic.getMatchingBlockArgument(input);
    if (value == out && map.isIdentity() && !productArg) {
      productArg = arg;
    } else if (map == lastDim && type.getRank() == 1 && !biasArg) {
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(type.getStridesAndOffset(strides, offset)) ||
          strides[0] != 1) {
        return std::nullopt;
      }
      biasArg = arg;
      epilogue.bias = value;
    } else if (map.isIdentity() && type.getShape() == outType.getShape() &&
               value != out && layoutOk(value) && !residualArg) {
      residualArg = arg;
      epilogue.residual = value;
    } else {
      return std::nullopt;
    }
  }
  if (!productArg) {
    return std::nullopt;
  }
  // The body: one chain from the product's value to the yield.
  Value current = productArg;
  bool seenMax = false, seenMin = false;
  auto constantOf = [](Value value) -> std::optional<float> {
    FloatAttr attr;
    if (!matchPattern(value, m_Constant(&attr)) || !attr.getType().isF32()) {
      return std::nullopt;
    }
    return attr.getValue().convertToFloat();
  };
  for (Operation &op : generic.getBlock()->without_terminator()) {
    if (op.getNumOperands() != 2 || op.getNumResults() != 1) {
      return std::nullopt;
    }
    Value lhs = op.getOperand(0), rhs = op.getOperand(1);
    Value other = lhs == current ? rhs : rhs == current ? lhs : Value();
    if (!other || seenMax || seenMin) {
      // Additions come before the clamp (handled below for max/min).
      if (!other || !isa<arith::MaximumFOp, arith::MinimumFOp>(op)) {
        return std::nullopt;
      }
    }
    if (isa<arith::AddFOp>(op)) {
      if (other == biasArg && biasArg) {
        biasArg = BlockArgument(); // used once
        epilogue.residualFirst = epilogue.residual && !residualArg;
      } else if (other == residualArg && residualArg) {
        residualArg = BlockArgument();
      } else {
        return std::nullopt;
      }
    } else if (isa<arith::MaximumFOp>(op) && !seenMax) {
      // A NaN bound stays on loops: the kernel's clamp assumes none
      // (SgemmEpilogue.h).
      std::optional<float> bound = constantOf(other);
      if (!bound || std::isnan(*bound)) {
        return std::nullopt;
      }
      seenMax = true;
      epilogue.lo = *bound;
    } else if (isa<arith::MinimumFOp>(op) && !seenMin) {
      std::optional<float> bound = constantOf(other);
      if (!bound || std::isnan(*bound)) {
        return std::nullopt;
      }
      seenMin = true;
      epilogue.hi = *bound;
    } else {
      return std::nullopt;
    }
    current = op.getResult(0);
  }
  auto yield = cast<linalg::YieldOp>(generic.getBlock()->getTerminator());
  // Every input used (bias and residual once each); a min before the max
  // is the same clamp only when lo <= hi.
  if (yield.getNumOperands() != 1 || yield.getOperand(0) != current ||
      biasArg || residualArg) {
    return std::nullopt;
  }
  epilogue.clamp = seenMax || seenMin;
  if (seenMax && seenMin && !(epilogue.lo <= epilogue.hi)) {
    return std::nullopt;
  }
  return epilogue;
}

// The epilogue's five call arguments (bias and residual addresses, the
// residual's row stride, the clamp bounds' bits), zeros without one.
void appendEpilogueArguments(OpBuilder &b, Location loc,
                             const std::optional<FusedEpilogue> &epilogue,
                             int64_t residualRowStrideDim,
                             SmallVectorImpl<Value> &args) {
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
  auto address = [&](Value memref) -> Value {
    if (!memref) {
      return zero;
    }
    MatmulOperands operands = decompose(b, loc, memref);
    Value bytes = arith::MulIOp::create(
        b, loc, operands.offset, arith::ConstantIndexOp::create(b, loc, 4));
    Value sum = arith::AddIOp::create(b, loc, operands.alignedPointer, bytes);
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), sum);
  };
  auto bits = [&](float value) -> Value {
    return arith::ConstantIntOp::create(b, loc, llvm::bit_cast<uint32_t>(value),
                                        64);
  };
  if (!epilogue) {
    args.append({zero, zero, zero, zero, zero});
    return;
  }
  Value ldr = zero;
  if (epilogue->residual) {
    auto metadata =
        memref::ExtractStridedMetadataOp::create(b, loc, epilogue->residual);
    ldr = arith::IndexCastOp::create(
        b, loc, b.getI64Type(), metadata.getStrides()[residualRowStrideDim]);
  }
  args.append({address(epilogue->bias), address(epilogue->residual), ldr,
               bits(epilogue->lo), bits(epilogue->hi)});
}

// Erases what an applied epilogue leaves: the generic, and the product's
// temporary when nothing else reads it.
void eraseFusedEpilogue(const std::optional<FusedEpilogue> &epilogue,
                        Value out) {
  if (!epilogue) {
    return;
  }
  linalg::GenericOp generic = epilogue->generic;
  generic.erase();
  Operation *alloc = out.getDefiningOp();
  if (llvm::all_of(out.getUsers(), [](Operation *user) {
        return isa<memref::DeallocOp>(user);
      })) {
    for (Operation *user : llvm::make_early_inc_range(out.getUsers())) {
      user->erase();
    }
    alloc->erase();
  }
}

LogicalResult rewriteMatmul(linalg::MatmulOp matmul, const Variant &variant,
                            func::FuncOp callee, bool &rewritten) {
  rewritten = false;
  if (!matmul.hasPureBufferSemantics() || matmul.hasUserDefinedMaps()) {
    return success();
  }
  Value lhs = matmul.getDpsInputs()[0];
  Value rhs = matmul.getDpsInputs()[1];
  Value out = matmul.getDpsInits()[0];
  if (!isRowMajorF32(lhs) || !isRowMajorF32(rhs) || !isRowMajorF32(out)) {
    return success();
  }
  FailureOr<int64_t> mBound = upperBound(out, 0);
  FailureOr<int64_t> nBound = upperBound(out, 1);
  FailureOr<int64_t> kBound = upperBound(lhs, 1);
  std::optional<PackedWeights> packed = findPackedWeights(rhs, variant.nr);
  auto lhsType = cast<MemRefType>(lhs.getType());
  if (packed && lhsType.isDynamicDim(1)) {
    packed.reset();
  }
  // A few rows count as the microkernel's minimum tile: it reads B in place
  // then (STRATA_SGEMM_IN_PLACE_B_ROWS), where the vectorized path is slow.
  // A packed weight always takes it: the flow phase chose it for this.
  if (failed(mBound) || failed(nBound) || failed(kBound) ||
      (!packed && std::max<int64_t>(*mBound, kFewRowsWork) * *nBound * *kBound <
                      kMinMatmulTileWork)) {
    return success();
  }
  int64_t mb = *mBound, nb = *nBound, kb = *kBound;
  int64_t scratchFloats =
      STRATA_SGEMM_ROUND_UP(STRATA_SGEMM_SCRATCH_A(variant.mr, mb, kb), 16) +
      (packed ? 0 : STRATA_SGEMM_SCRATCH_B(variant.nr, nb, kb));

  OpBuilder b(matmul);
  Location loc = matmul.getLoc();
  linalg::FillOp fill = findZeroFill(matmul, out);
  auto scratchType = MemRefType::get({scratchFloats}, b.getF32Type());
  Value scratch =
      memref::AllocOp::create(b, loc, scratchType, b.getI64IntegerAttr(64));
  MatmulOperands a = decompose(b, loc, lhs);
  MatmulOperands bm =
      packed ? decomposePacked(b, loc, *packed, lhsType.getDimSize(1))
             : decompose(b, loc, rhs);
  std::optional<FusedEpilogue> epilogue =
      findEpilogue(matmul, out, fill, isRowMajorF32);
  if (epilogue) {
    b.setInsertionPoint(epilogue->generic);
  }
  Value result = epilogue ? epilogue->target : out;
  MatmulOperands c = decompose(b, loc, result);
  Value m = memref::DimOp::create(b, loc, result, 0);
  Value n = memref::DimOp::create(b, loc, result, 1);
  Value k = memref::DimOp::create(b, loc, lhs, 1);
  Value flags = arith::ConstantIndexOp::create(
      b, loc,
      (fill ? 0 : STRATA_SGEMM_ACCUMULATE) |
          (packed ? STRATA_SGEMM_PACKED_B : 0) |
          (epilogue ? epilogue->flags() : 0) | streamFlag(result));
  Value scratchPointer =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, scratch);
  SmallVector<Value> args;
  for (Value value :
       {a.alignedPointer, a.offset, a.rowStride, bm.alignedPointer, bm.offset,
        bm.rowStride, c.alignedPointer, c.offset, c.rowStride, m, n, k, flags,
        scratchPointer}) {
    args.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(), value));
  }
  appendEpilogueArguments(b, loc, epilogue, /*residualRowStrideDim=*/0, args);
  func::CallOp::create(b, loc, callee, args);
  matmul.erase();
  if (fill) {
    fill.erase();
  }
  eraseFusedEpilogue(epilogue, out);
  rewritten = true;
  return success();
}

// A row-major memref of rank 2 with elements of `bits`-bit integers.
bool isRowMajorInt(Value value, unsigned bits) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type || type.getRank() != 2 ||
      !type.getElementType().isSignlessInteger(bits)) {
    return false;
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

// An int8 weight packed at compile time (--strata-pack-weights): the
// right-hand operand of an int8 matmul is (a view of rows [0, K) and
// columns of)
//   collapse_shape(transpose(P)) : Kp x Np   ([[0, 1], [2, 3]])
// where P is a contiguous i8 memref [Np / NR, Kp / KG, NR, KG], the
// transpose writes T[g, t, p, j] = P[p, g, j, t] and nothing else writes T.
// The microkernel reads P's panels (STRATA_IGEMM_PACKED_B).
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
    if (!isConstantIntValue(column, 0)) {
      if (!isConstantIntValue(offset, 0)) {
        return std::nullopt;
      }
    } else {
      column = offset;
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
      transposedType.getDimSize(3) != nr ||
      !transposed.getDefiningOp<memref::AllocOp>()) {
    return std::nullopt;
  }
  linalg::LinalgOp writer;
  for (Operation *user : transposed.getUsers()) {
    auto op = dyn_cast<linalg::LinalgOp>(user);
    if (op && llvm::is_contained(op.getDpsInits(), transposed)) {
      if (writer) {
        return std::nullopt;
      }
      writer = op;
    }
  }
  if (!writer || writer.getNumDpsInputs() != 1 ||
      writer.getNumDpsInits() != 1 || writer.getNumParallelLoops() != 4) {
    return std::nullopt;
  }
  MLIRContext *context = rhs.getContext();
  AffineExpr g, t, p, j;
  bindDims(context, g, t, p, j);
  OpOperand *input = writer.getDpsInputOperand(0);
  OpOperand *init = writer.getDpsInitOperand(0);
  Block *body = writer.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (writer.getMatchingIndexingMap(input) !=
          AffineMap::get(4, 0, {p, g, j, t}, context) ||
      !writer.getMatchingIndexingMap(init).isIdentity() || !yield ||
      yield.getNumOperands() != 1 ||
      yield.getOperand(0) != body->getArgument(0)) {
    return std::nullopt;
  }
  Value panels = input->get();
  auto panelsType = dyn_cast<MemRefType>(panels.getType());
  if (!panelsType || !panelsType.getLayout().isIdentity() ||
      !panelsType.getElementType().isSignlessInteger(8)) {
    return std::nullopt;
  }
  return PackedWeights{panels, column};
}

// The requantization of an int8 matmul's i32 result (QDQFusion.cpp), when
// the microkernel can apply it as it stores (STRATA_IGEMM_REQUANTIZE): an
// elementwise generic reading the whole product, a per-column i32 adjust
// and f32 multiplier, writing i8 with the body
//   trunci(fptosi(min(max(roundeven(sitofp(acc + adjust) * mult) + zero,
//   lo), hi)))
// (the zero's addition may be absent).
struct IntEpilogue {
  linalg::GenericOp generic;
  Value target, adjust, multiplier;
  float zero = 0.0f, lo = 0.0f, hi = 0.0f;
};

std::optional<IntEpilogue> findRequantization(Operation *product, Value out,
                                              linalg::FillOp fill) {
  if (!fill || !out.getDefiningOp<memref::AllocOp>()) {
    return std::nullopt;
  }
  linalg::GenericOp generic;
  for (Operation *user : out.getUsers()) {
    if (user == product || user == fill.getOperation() ||
        isa<memref::DeallocOp>(user)) {
      continue;
    }
    auto consumer = dyn_cast<linalg::GenericOp>(user);
    if (!consumer || generic) {
      return std::nullopt;
    }
    generic = consumer;
  }
  if (!generic || generic->getBlock() != product->getBlock() ||
      !generic.hasPureBufferSemantics() || generic.getNumDpsInits() != 1 ||
      generic.getNumDpsInputs() != 3 || generic.getNumLoops() != 2 ||
      generic.getNumParallelLoops() != 2) {
    return std::nullopt;
  }
  for (Operation *op = product->getNextNode(); op != generic.getOperation();
       op = op->getNextNode()) {
    if (!isMemoryEffectFree(op)) {
      return std::nullopt;
    }
  }
  IntEpilogue epilogue;
  epilogue.generic = generic;
  OpOperand *init = generic.getDpsInitOperand(0);
  epilogue.target = init->get();
  auto targetType = cast<MemRefType>(epilogue.target.getType());
  if (!isRowMajorInt(epilogue.target, 8) ||
      targetType.getShape() != cast<MemRefType>(out.getType()).getShape() ||
      !generic.getMatchingIndexingMap(init).isIdentity() ||
      !generic.getMatchingBlockArgument(init).use_empty()) {
    return std::nullopt;
  }
  MLIRContext *context = generic.getContext();
  AffineMap lastDim = AffineMap::get(2, 0, getAffineDimExpr(1, context));
  BlockArgument accArg, adjustArg, multArg;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    Value value = input->get();
    auto type = cast<MemRefType>(value.getType());
    BlockArgument arg = generic.getMatchingBlockArgument(input);
    SmallVector<int64_t> strides;
    int64_t offset;
    bool unitVector = type.getRank() == 1 && map == lastDim &&
                      succeeded(type.getStridesAndOffset(strides, offset)) &&
                      strides[0] == 1;
    if (value == out && map.isIdentity() && !accArg) {
      accArg = arg;
    } else if (unitVector && type.getElementType().isSignlessInteger(32) &&
               !adjustArg) {
      adjustArg = arg;
      epilogue.adjust = value;
    } else if (unitVector && type.getElementType().isF32() && !multArg) {
      multArg = arg;
      epilogue.multiplier = value;
    } else {
      return std::nullopt;
    }
  }
  if (!accArg || !adjustArg || !multArg) {
    return std::nullopt;
  }
  auto constantOf = [](Value value) -> std::optional<float> {
    FloatAttr attr;
    if (!matchPattern(value, m_Constant(&attr)) || !attr.getType().isF32() ||
        !std::isfinite(attr.getValue().convertToFloat())) {
      return std::nullopt;
    }
    return attr.getValue().convertToFloat();
  };
  // Walks the chain from the yield back to the accumulator.
  auto yield = cast<linalg::YieldOp>(generic.getBlock()->getTerminator());
  Value current = yield.getOperand(0);
  // The other operand of a binary op on `current`'s chain, in either order.
  auto otherOf = [](Operation *op, Value chain) -> Value {
    return op->getOperand(0) == chain ? op->getOperand(1) : op->getOperand(0);
  };
  int64_t ops = 7; // the body's ops on the chain
  if (auto trunc = current.getDefiningOp<arith::TruncIOp>()) {
    current = trunc.getIn();
    ++ops;
  }
  auto toInt = current.getDefiningOp<arith::FPToSIOp>();
  if (!toInt) {
    return std::nullopt;
  }
  current = toInt.getIn();
  auto min = current.getDefiningOp<arith::MinimumFOp>();
  if (!min) {
    return std::nullopt;
  }
  auto max = min.getLhs().getDefiningOp<arith::MaximumFOp>();
  std::optional<float> hi = constantOf(min.getRhs());
  if (!max) {
    max = min.getRhs().getDefiningOp<arith::MaximumFOp>();
    hi = constantOf(min.getLhs());
  }
  if (!max || !hi) {
    return std::nullopt;
  }
  std::optional<float> lo = constantOf(max.getRhs());
  current = max.getLhs();
  if (!lo) {
    lo = constantOf(max.getLhs());
    current = max.getRhs();
  }
  if (!lo || !(*lo <= *hi)) {
    return std::nullopt;
  }
  epilogue.lo = *lo;
  epilogue.hi = *hi;
  if (auto add = current.getDefiningOp<arith::AddFOp>()) {
    Value rounded = add.getLhs().getDefiningOp<math::RoundEvenOp>()
                        ? add.getLhs()
                        : add.getRhs();
    std::optional<float> zero = constantOf(otherOf(add, rounded));
    if (!zero) {
      return std::nullopt;
    }
    epilogue.zero = *zero;
    current = rounded;
    ++ops;
  }
  auto round = current.getDefiningOp<math::RoundEvenOp>();
  auto mul = round ? round.getOperand().getDefiningOp<arith::MulFOp>()
                   : arith::MulFOp();
  if (!mul) {
    return std::nullopt;
  }
  Value scaled = mul.getLhs() == multArg ? mul.getRhs() : mul.getLhs();
  auto toFloat = scaled.getDefiningOp<arith::SIToFPOp>();
  if (otherOf(mul, scaled) != multArg || !toFloat) {
    return std::nullopt;
  }
  auto sum = toFloat.getIn().getDefiningOp<arith::AddIOp>();
  if (!sum || !((sum.getLhs() == accArg && sum.getRhs() == adjustArg) ||
                (sum.getLhs() == adjustArg && sum.getRhs() == accArg))) {
    return std::nullopt;
  }
  // Nothing else is computed: the body is the chain (its constants are
  // defined outside), each link read once.
  for (Operation *op :
       {sum.getOperation(), toFloat.getOperation(), mul.getOperation(),
        round.getOperation(), max.getOperation(), min.getOperation(),
        toInt.getOperation()}) {
    if (!op->hasOneUse()) {
      return std::nullopt;
    }
  }
  int64_t computed = 0;
  for (Operation &op : generic.getBlock()->without_terminator()) {
    computed += !isa<arith::ConstantOp>(op);
  }
  if (computed != ops) {
    return std::nullopt;
  }
  return epilogue;
}

// An address (i64) of the first element of a memref of `elementBytes`.
Value elementAddress(OpBuilder &b, Location loc, Value memref,
                     int64_t elementBytes) {
  MatmulOperands operands = decompose(b, loc, memref);
  Value bytes = arith::MulIOp::create(
      b, loc, operands.offset,
      arith::ConstantIndexOp::create(b, loc, elementBytes));
  Value sum = arith::AddIOp::create(b, loc, operands.alignedPointer, bytes);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), sum);
}

// An i8 x i8 -> i32 linalg.matmul (signed, the named op's casts) as a call
// of the int8 microkernel: the same threshold as the f32 one (a weight
// packed at compile time always takes it), a zero fill folded, the packing
// scratch from the sizes' upper bounds, and the requantization that reads
// the product applied as the kernel stores when it matches
// (findRequantization); otherwise that stays a loop nest over the i32
// tile.
LogicalResult rewriteIntMatmul(linalg::MatmulOp matmul, const Variant &variant,
                               func::FuncOp callee, bool &rewritten) {
  rewritten = false;
  if (variant.intNr == 0 || !matmul.hasPureBufferSemantics() ||
      matmul.hasUserDefinedMaps()) {
    return success();
  }
  Value lhs = matmul.getDpsInputs()[0];
  Value rhs = matmul.getDpsInputs()[1];
  Value out = matmul.getDpsInits()[0];
  if (!isRowMajorInt(lhs, 8) || !isRowMajorInt(rhs, 8) ||
      !isRowMajorInt(out, 32)) {
    return success();
  }
  std::optional<PackedWeights> packed =
      findPackedIntWeights(rhs, variant.intNr, variant.intKg);
  auto lhsType = cast<MemRefType>(lhs.getType());
  // The panels' depth must be the variant's padding of K (a weight packed
  // for another variant is read as a plain matrix).
  if (packed && (lhsType.isDynamicDim(1) ||
                 cast<MemRefType>(packed->panels.getType()).getDimSize(1) *
                         variant.intKg !=
                     static_cast<int64_t>(llvm::alignTo(
                         lhsType.getDimSize(1), variant.intKMultiple)))) {
    packed.reset();
  }
  FailureOr<int64_t> mBound = upperBound(out, 0);
  FailureOr<int64_t> nBound = upperBound(out, 1);
  FailureOr<int64_t> kBound = upperBound(lhs, 1);
  if (failed(mBound) || failed(nBound) || failed(kBound) ||
      (!packed && std::max<int64_t>(*mBound, kFewRowsWork) * *nBound * *kBound <
                      kMinMatmulTileWork)) {
    return success();
  }
  OpBuilder b(matmul);
  Location loc = matmul.getLoc();
  linalg::FillOp fill = findFill(
      matmul, out, [](Value value) { return matchPattern(value, m_Zero()); });
  int64_t scratchBytes = STRATA_IGEMM_SCRATCH_BYTES(
      *nBound, llvm::alignTo(*kBound, variant.intKMultiple),
      packed.has_value());
  Value scratch = memref::AllocOp::create(
      b, loc, MemRefType::get({scratchBytes}, b.getI8Type()),
      b.getI64IntegerAttr(64));
  MatmulOperands a = decompose(b, loc, lhs);
  // (The weight's view is not decomposed when packed: its transpose must
  // be left without readers, eraseDeadRelayouts.)
  MatmulOperands bm = decompose(b, loc, packed ? packed->panels : rhs);
  if (packed) {
    // Each panel is Kp * NR bytes (Kp: k rounded up to the depth
    // multiple): the column's panel starts column * Kp bytes in.
    int64_t groupBytes = llvm::alignTo(*kBound, variant.intKMultiple);
    Value column = getValueOrCreateConstantIndexOp(b, loc, packed->column);
    Value skipped = arith::MulIOp::create(
        b, loc, column, arith::ConstantIndexOp::create(b, loc, groupBytes));
    bm.offset = arith::AddIOp::create(b, loc, bm.offset, skipped);
  }
  std::optional<IntEpilogue> epilogue = findRequantization(matmul, out, fill);
  if (epilogue) {
    b.setInsertionPoint(epilogue->generic);
  }
  Value result = epilogue ? epilogue->target : out;
  MatmulOperands c = decompose(b, loc, result);
  Value m = memref::DimOp::create(b, loc, result, 0);
  Value n = memref::DimOp::create(b, loc, result, 1);
  Value k = memref::DimOp::create(b, loc, lhs, 1);
  Value flags = arith::ConstantIndexOp::create(
      b, loc,
      (fill ? 0 : STRATA_IGEMM_ACCUMULATE) |
          (packed ? STRATA_IGEMM_PACKED_B : 0) |
          (epilogue ? STRATA_IGEMM_REQUANTIZE : 0));
  Value scratchPointer =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, scratch);
  SmallVector<Value> args;
  for (Value value :
       {a.alignedPointer, a.offset, a.rowStride, bm.alignedPointer, bm.offset,
        bm.rowStride, c.alignedPointer, c.offset, c.rowStride, m, n, k, flags,
        scratchPointer}) {
    args.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(), value));
  }
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
  auto bits = [&](float value) -> Value {
    return arith::ConstantIntOp::create(b, loc, llvm::bit_cast<uint32_t>(value),
                                        64);
  };
  if (epilogue) {
    args.append({elementAddress(b, loc, epilogue->adjust, 4),
                 elementAddress(b, loc, epilogue->multiplier, 4),
                 bits(epilogue->zero), bits(epilogue->lo), bits(epilogue->hi)});
  } else {
    args.append({zero, zero, zero, zero, zero});
  }
  func::CallOp::create(b, loc, callee, args);
  matmul.erase();
  if (fill) {
    fill.erase();
  }
  if (epilogue) {
    epilogue->generic.erase();
    if (llvm::all_of(out.getUsers(), [](Operation *user) {
          return isa<memref::DeallocOp>(user);
        })) {
      Operation *alloc = out.getDefiningOp();
      for (Operation *user : llvm::make_early_inc_range(out.getUsers())) {
        user->erase();
      }
      alloc->erase();
    }
  }
  rewritten = true;
  return success();
}

// The strides of `memref`, if it has a unit inner stride and every stride
// but the outermost is static (a temporary with a dynamic leading size has
// a dynamic outermost stride, which a single image never steps over).
std::optional<SmallVector<int64_t>> staticStrides(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 ||
      llvm::any_of(ArrayRef<int64_t>(strides).drop_front(),
                   ShapedType::isDynamic)) {
    return std::nullopt;
  }
  return strides;
}

// A conv_2d_nhwc_hwcf of one image becomes a call of the convolution
// microkernel when its output pixels are dense (the tile is whole rows of
// the image: H stride = OW * W stride) and the filter is a row-major
// (KH * KW * C) x F matrix; the input may be any view with a unit channel
// stride.
LogicalResult rewriteConv(linalg::Conv2DNhwcHwcfOp conv, const Variant &variant,
                          func::FuncOp &callee, ModuleOp module,
                          bool &rewritten) {
  rewritten = false;
  if (!conv.hasPureBufferSemantics()) {
    return success();
  }
  Value input = conv.getInputs()[0];
  Value filter = conv.getInputs()[1];
  Value out = conv.getOutputs()[0];
  auto inputType = dyn_cast<MemRefType>(input.getType());
  auto filterType = dyn_cast<MemRefType>(filter.getType());
  auto outType = dyn_cast<MemRefType>(out.getType());
  if (!inputType || !filterType || !outType ||
      !inputType.getElementType().isF32() ||
      !filterType.getElementType().isF32() ||
      !outType.getElementType().isF32() ||
      // The window and channels static; the filters (columns) may be a
      // workgroup's partial last tile.
      llvm::any_of(filterType.getShape().drop_back(), ShapedType::isDynamic) ||
      outType.isDynamicDim(0) || outType.getDimSize(0) != 1 ||
      outType.isDynamicDim(2)) {
    return success();
  }
  SmallVector<int64_t> inputStrides;
  int64_t inputOffset;
  if (failed(inputType.getStridesAndOffset(inputStrides, inputOffset)) ||
      inputStrides.back() != 1) {
    return success();
  }
  std::optional<SmallVector<int64_t>> filterStrides = staticStrides(filter);
  std::optional<PackedWeights> packed = findPackedWeights(filter, variant.nr);
  int64_t kh = filterType.getDimSize(0), kw = filterType.getDimSize(1),
          channels = filterType.getDimSize(2);
  int64_t outWidth = outType.getDimSize(2);
  // The microkernel's C (the output, or the output of an epilogue it
  // applies) must have dense pixels: a temporary (identity layout, its
  // filters possibly a partial tile's), or static strides that say so.
  auto densePixels = [&](Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    if (type.getLayout().isIdentity()) {
      return !type.isDynamicDim(2);
    }
    std::optional<SmallVector<int64_t>> strides = staticStrides(memref);
    return strides && (*strides)[1] == outWidth * (*strides)[2];
  };
  linalg::FillOp fill = findZeroFill(conv, out);
  std::optional<FusedEpilogue> epilogue =
      findEpilogue(conv, out, fill, densePixels);
  Value result = epilogue ? epilogue->target : out;
  if ((!packed && (!filterStrides ||
                   (*filterStrides)[1] != channels * (*filterStrides)[2] ||
                   (*filterStrides)[0] != kw * (*filterStrides)[1])) ||
      !densePixels(result)) {
    return success();
  }
  FailureOr<int64_t> rowBound = upperBound(out, 1);
  FailureOr<int64_t> nBound = upperBound(out, 3);
  int64_t kb = kh * kw * channels;
  if (failed(rowBound) || failed(nBound) ||
      (!packed && *rowBound * outWidth * *nBound * kb < kMinMatmulTileWork)) {
    return success();
  }
  int64_t mb = *rowBound * outWidth, nb = *nBound;
  int64_t scratchFloats =
      STRATA_SGEMM_ROUND_UP(STRATA_SGEMM_SCRATCH_A(variant.mr, mb, kb), 16) +
      (packed ? 0 : STRATA_SGEMM_SCRATCH_B(variant.nr, nb, kb));
  if (!callee) {
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    callee = func::FuncOp::create(
        b, module.getLoc(), kSconvUkernelSymbol,
        b.getFunctionType(SmallVector<Type>(27, b.getI64Type()), {}));
    callee.setPrivate();
  }

  OpBuilder b(conv);
  Location loc = conv.getLoc();
  auto scratchType = MemRefType::get({scratchFloats}, b.getF32Type());
  Value scratch =
      memref::AllocOp::create(b, loc, scratchType, b.getI64IntegerAttr(64));
  auto inputMeta = memref::ExtractStridedMetadataOp::create(b, loc, input);
  Value inputPointer = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, inputMeta.getBaseBuffer());
  MatmulOperands bm =
      packed ? decomposePacked(b, loc, *packed, kb) : decompose(b, loc, filter);
  if (epilogue) {
    b.setInsertionPoint(epilogue->generic);
  }
  auto outMeta = memref::ExtractStridedMetadataOp::create(b, loc, result);
  Value outPointer = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, outMeta.getBaseBuffer());
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  Value rows = memref::DimOp::create(b, loc, result, 1);
  Value m = arith::MulIOp::create(b, loc, rows, constant(outWidth));
  Value n = memref::DimOp::create(b, loc, result, 3);
  auto strides = conv.getStrides().getValues<int64_t>();
  auto dilations = conv.getDilations().getValues<int64_t>();
  SmallVector<Value> args;
  for (Value value : std::initializer_list<Value>{
           inputPointer,
           inputMeta.getOffset(),
           inputMeta.getStrides()[1],
           inputMeta.getStrides()[2],
           bm.alignedPointer,
           bm.offset,
           constant(packed ? variant.nr : (*filterStrides)[2]),
           outPointer,
           outMeta.getOffset(),
           outMeta.getStrides()[2],
           m,
           n,
           constant(kb),
           constant((fill ? 0 : STRATA_SGEMM_ACCUMULATE) |
                    (packed ? STRATA_SGEMM_PACKED_B : 0) |
                    (epilogue ? epilogue->flags() : 0) | streamFlag(result)),
           Value(
               memref::ExtractAlignedPointerAsIndexOp::create(b, loc, scratch)),
           constant(outWidth),
           constant(channels),
           constant(kw),
           constant(strides[0]),
           constant(strides[1]),
           constant(dilations[0]),
           constant(dilations[1])}) {
    args.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(), value));
  }
  // A residual is read like C: pixels (W) one matrix row apart.
  appendEpilogueArguments(b, loc, epilogue, /*residualRowStrideDim=*/2, args);
  func::CallOp::create(b, loc, callee, args);
  conv.erase();
  if (fill) {
    fill.erase();
  }
  eraseFusedEpilogue(epilogue, out);
  rewritten = true;
  return success();
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

// Whether `memref` is f32 with a unit innermost stride.
bool hasUnitInnerStride(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return type && type.getElementType().isF32() &&
         succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

// The scalar `op` sets every element of `buffer` to, when it does: a
// linalg.fill, or a linalg.map without inputs yielding a value from outside
// its body. Null otherwise.
Value fillValueOf(Operation *op, Value buffer) {
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    return fill.getOutputs()[0] == buffer ? fill.getInputs()[0] : Value();
  }
  auto map = dyn_cast<linalg::MapOp>(op);
  if (!map || map.getInit() != buffer || !map.getInputs().empty()) {
    return {};
  }
  auto yield = cast<linalg::YieldOp>(map.getMapper().front().getTerminator());
  if (yield.getNumOperands() != 1 ||
      yield.getOperand(0).getParentRegion() == &map.getMapper()) {
    return {};
  }
  return yield.getOperand(0);
}

// A workgroup's padded input window, as bufferization leaves a fused
// tensor.pad: an alloc filled with the pad value into whose view at
// (0, top, left, 0) a view of the input is copied, possibly under the
// pad's guard
//   scf.if %empty { alloc; fill } else { view; alloc; fill; copy }
// where %empty says the view has no rows or no columns. The depthwise
// microkernel reads the view in place and skips the taps outside it.
struct PaddedInput {
  Value source; // what is copied (in the else region when guarded)
  OpFoldResult top, left;
  Value padValue;
  Operation *root; // the scf.if, or the alloc: erased once unused
};

// `alloc`'s uses are one fill, a view at (0, top, left, 0) that a copy
// fills, and `consumer`: that copy's source, the offsets and the fill's
// value.
std::optional<PaddedInput> matchPaddedAlloc(memref::AllocOp alloc,
                                            Operation *consumer) {
  Value padValue;
  Operation *fill = nullptr;
  memref::SubViewOp window;
  for (Operation *user : alloc->getUsers()) {
    if (user == consumer) {
      continue;
    }
    if (Value value = fillValueOf(user, alloc); value && !fill) {
      padValue = value;
      fill = user;
      continue;
    }
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (!view || window || !view->hasOneUse()) {
      return std::nullopt;
    }
    window = view;
  }
  if (!fill || !window) {
    return std::nullopt;
  }
  auto copy = dyn_cast<memref::CopyOp>(*window->getUsers().begin());
  auto type = cast<MemRefType>(alloc.getType());
  if (!copy || copy.getTarget() != window.getResult() || type.getRank() != 4 ||
      !type.hasStaticShape() || !window.hasUnitStride()) {
    return std::nullopt;
  }
  // The copy fills a whole-channel window of the one image.
  SmallVector<OpFoldResult> offsets = window.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = window.getMixedSizes();
  if (!isConstantIntValue(offsets[0], 0) ||
      !isConstantIntValue(offsets[3], 0) ||
      !isConstantIntValue(sizes[3], type.getDimSize(3)) ||
      window.getType().getRank() != 4) {
    return std::nullopt;
  }
  // Fill, then copy, then the consumer, in one block.
  if (!hasUnitInnerStride(copy.getSource()) ||
      copy->getBlock() != consumer->getBlock() ||
      fill->getBlock() != consumer->getBlock() ||
      !fill->isBeforeInBlock(copy) || !copy->isBeforeInBlock(consumer)) {
    return std::nullopt;
  }
  return PaddedInput{copy.getSource(), offsets[1], offsets[2], padValue, alloc};
}

// Whether `cond` implies that one of `view`'s sizes is zero:
// `arith.cmpi eq, size, 0` or an `arith.ori` of such.
bool saysEmpty(Value cond, memref::SubViewOp view) {
  if (auto ori = cond.getDefiningOp<arith::OrIOp>()) {
    return saysEmpty(ori.getLhs(), view) && saysEmpty(ori.getRhs(), view);
  }
  auto cmp = cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq ||
      !matchPattern(cmp.getRhs(), m_Zero())) {
    return false;
  }
  return llvm::is_contained(view.getSizes(), cmp.getLhs());
}

// The padded window `input` reads, when it is one (see PaddedInput).
std::optional<PaddedInput> matchPaddedInput(Value input, Operation *consumer) {
  if (auto alloc = input.getDefiningOp<memref::AllocOp>()) {
    return matchPaddedAlloc(alloc, consumer);
  }
  auto guard = input.getDefiningOp<scf::IfOp>();
  if (!guard || guard.getNumResults() != 1 || guard.getElseRegion().empty()) {
    return std::nullopt;
  }
  auto thenYield = cast<scf::YieldOp>(guard.thenBlock()->getTerminator());
  auto elseYield = cast<scf::YieldOp>(guard.elseBlock()->getTerminator());
  auto empty = thenYield.getOperand(0).getDefiningOp<memref::AllocOp>();
  auto padded = elseYield.getOperand(0).getDefiningOp<memref::AllocOp>();
  std::optional<PaddedInput> window =
      padded ? matchPaddedAlloc(padded, elseYield) : std::nullopt;
  auto view = window ? window->source.getDefiningOp<memref::SubViewOp>()
                     : memref::SubViewOp();
  if (!empty || !view || !saysEmpty(guard.getCondition(), view) ||
      !llvm::hasNItems(empty->getUsers(), 2) ||
      !llvm::all_of(empty->getUsers(), [&](Operation *user) {
        return user == thenYield ||
               fillValueOf(user, empty) == window->padValue;
      })) {
    return std::nullopt;
  }
  // The call goes after the scf.if: the view is cloned there, so its
  // operands and the offsets must come from outside the guard.
  auto outside = [&](Value value) {
    return !guard->isAncestor(value.getParentBlock()->getParentOp());
  };
  if (!llvm::all_of(view->getOperands(), outside) ||
      !llvm::all_of(
          std::initializer_list<OpFoldResult>{window->top, window->left},
          [&](OpFoldResult offset) {
            auto value = dyn_cast<Value>(offset);
            return !value || outside(value);
          })) {
    return std::nullopt;
  }
  window->root = guard;
  return window;
}
// What the depthwise microkernel computes for a window op.
enum class WindowKind { Depthwise, MaxPool, SumPool };

// A depthwise_conv_2d_nhwc_hwc, pooling_nhwc_max or pooling_nhwc_sum of
// one image with at least a vector of channels becomes a call of the
// depthwise microkernel (ukernel/DwconvDriver.h), with its bias + clamp
// epilogue. A padded window (PaddedInput) is not built: the kernel reads
// the input in place and skips the padding, which needs the pad value to
// be the op's identity (0; -inf for the maximum).
template <typename OpTy>
LogicalResult rewriteWindowOp(OpTy op, WindowKind kind, const Variant &variant,
                              func::FuncOp &callee, ModuleOp module) {
  if (!op.hasPureBufferSemantics()) {
    return success();
  }
  Value input = op.getInputs()[0];
  // The filter (KH x KW x C), or a pooling's window shape (KH x KW).
  Value filter = op.getInputs()[1];
  Value out = op.getOutputs()[0];
  auto filterType = dyn_cast<MemRefType>(filter.getType());
  auto outType = dyn_cast<MemRefType>(out.getType());
  bool pool = kind != WindowKind::Depthwise;
  if (!hasUnitInnerStride(input) || !hasUnitInnerStride(out) || !filterType ||
      !filterType.hasStaticShape() || (!pool && !hasUnitInnerStride(filter)) ||
      outType.isDynamicDim(0) || outType.getDimSize(0) != 1 ||
      outType.isDynamicDim(3) || outType.getDimSize(3) < variant.lanes) {
    return success();
  }
  auto isIdentity = [&](Value value) {
    return kind == WindowKind::MaxPool ? matchPattern(value, m_NegInfFloat())
                                       : matchPattern(value, m_AnyZeroFloat());
  };
  std::optional<PaddedInput> padded = matchPaddedInput(input, op);
  if (padded && !isIdentity(padded->padValue)) {
    padded.reset();
  }
  // The output's fill, folded when it is the op's identity (otherwise
  // the kernel starts from what the output holds).
  linalg::FillOp fill = findFill(op, out, isIdentity);
  std::optional<FusedEpilogue> epilogue =
      findEpilogue(op, out, fill, hasUnitInnerStride);
  if (epilogue && epilogue->residual) {
    epilogue.reset();
  }
  if (!callee) {
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    callee = func::FuncOp::create(
        b, module.getLoc(), kSdwconvUkernelSymbol,
        b.getFunctionType(SmallVector<Type>(31, b.getI64Type()), {}));
    callee.setPrivate();
  }
  OpBuilder b(op);
  if (epilogue) {
    b.setInsertionPoint(epilogue->generic);
  }
  Location loc = op.getLoc();
  Value result = epilogue ? epilogue->target : out;
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  Value top = constant(0), left = constant(0);
  if (padded) {
    input = padded->source;
    if (isa<scf::IfOp>(padded->root)) {
      // The view as the guard's else branch made it, here.
      input = b.clone(*input.getDefiningOp())->getResult(0);
    }
    top = getValueOrCreateConstantIndexOp(b, loc, padded->top);
    left = getValueOrCreateConstantIndexOp(b, loc, padded->left);
  }
  auto inMeta = memref::ExtractStridedMetadataOp::create(b, loc, input);
  auto outMeta = memref::ExtractStridedMetadataOp::create(b, loc, result);
  auto pointer = [&](memref::ExtractStridedMetadataOp meta) -> Value {
    return memref::ExtractAlignedPointerAsIndexOp::create(b, loc,
                                                          meta.getBaseBuffer());
  };
  // A pooling has no filter: its arguments are zeros.
  Value filterPointer = constant(0), filterOffset = filterPointer;
  Value filterStrideH = filterPointer, filterStrideW = filterPointer;
  if (!pool) {
    auto filterMeta = memref::ExtractStridedMetadataOp::create(b, loc, filter);
    filterPointer = pointer(filterMeta);
    filterOffset = filterMeta.getOffset();
    filterStrideH = filterMeta.getStrides()[0];
    filterStrideW = filterMeta.getStrides()[1];
  }
  int64_t opFlags = kind == WindowKind::MaxPool   ? STRATA_DW_POOL_MAX
                    : kind == WindowKind::SumPool ? STRATA_DW_POOL_SUM
                                                  : 0;
  auto strides = op.getStrides().template getValues<int64_t>();
  auto dilations = op.getDilations().template getValues<int64_t>();
  SmallVector<Value> args;
  for (Value value : std::initializer_list<Value>{
           pointer(inMeta),
           inMeta.getOffset(),
           inMeta.getStrides()[1],
           inMeta.getStrides()[2],
           inMeta.getSizes()[1],
           inMeta.getSizes()[2],
           top,
           left,
           filterPointer,
           filterOffset,
           filterStrideH,
           filterStrideW,
           pointer(outMeta),
           outMeta.getOffset(),
           outMeta.getStrides()[1],
           outMeta.getStrides()[2],
           outMeta.getSizes()[1],
           outMeta.getSizes()[2],
           outMeta.getSizes()[3],
           constant(filterType.getDimSize(0)),
           constant(filterType.getDimSize(1)),
           constant(strides[0]),
           constant(strides[1]),
           constant(dilations[0]),
           constant(dilations[1]),
           constant((fill ? 0 : STRATA_SGEMM_ACCUMULATE) | opFlags |
                    (epilogue ? epilogue->flags() : 0) | streamFlag(result))}) {
    args.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(), value));
  }
  appendEpilogueArguments(b, loc, epilogue, /*residualRowStrideDim=*/2, args);
  func::CallOp::create(b, loc, callee, args);
  op.erase();
  if (pool && filter.use_empty() && filter.getDefiningOp<memref::AllocOp>()) {
    filter.getDefiningOp()->erase();
  }
  if (fill) {
    fill.erase();
  }
  eraseFusedEpilogue(epilogue, out);
  if (padded) {
    // Nothing else reads the window (matchPaddedInput): it goes, with its
    // fill, view and copy.
    if (auto alloc = dyn_cast<memref::AllocOp>(padded->root)) {
      for (Operation *user : llvm::to_vector(alloc->getUsers())) {
        for (Operation *copy : llvm::to_vector(user->getUsers())) {
          copy->erase();
        }
        user->erase();
      }
    }
    if (padded->root->use_empty()) {
      padded->root->erase();
    }
  }
  return success();
}

// A batch_matmul of one batch (a workgroup's tile) as a linalg.matmul on
// rank-reduced views, which then takes the matmul path; a zero fill of its
// output right before it moves to the view.
void unbatchMatmul(linalg::BatchMatmulOp batch) {
  if (!batch.hasPureBufferSemantics() || batch.hasUserDefinedMaps()) {
    return;
  }
  Value lhs = batch.getDpsInputs()[0];
  Value rhs = batch.getDpsInputs()[1];
  Value out = batch.getDpsInits()[0];
  for (Value value : {lhs, rhs, out}) {
    auto type = dyn_cast<MemRefType>(value.getType());
    if (!type || type.getRank() != 3 || type.isDynamicDim(0) ||
        type.getDimSize(0) != 1) {
      return;
    }
  }
  OpBuilder b(batch);
  Location loc = batch.getLoc();
  auto view = [&](Value memref) -> Value {
    auto type = cast<MemRefType>(memref.getType());
    SmallVector<OpFoldResult> offsets(3, b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
    for (int64_t d = 1; d < 3; ++d) {
      if (type.isDynamicDim(d)) {
        sizes.push_back(memref::DimOp::create(b, loc, memref, d).getResult());
      } else {
        sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
      }
    }
    SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
    auto reduced = memref::SubViewOp::inferRankReducedResultType(
        {type.isDynamicDim(1) ? ShapedType::kDynamic : type.getDimSize(1),
         type.isDynamicDim(2) ? ShapedType::kDynamic : type.getDimSize(2)},
        type, offsets, sizes, strides);
    return memref::SubViewOp::create(b, loc, cast<MemRefType>(reduced), memref,
                                     offsets, sizes, strides);
  };
  linalg::FillOp fill = findZeroFill(batch, out);
  Value lhs2 = view(lhs), rhs2 = view(rhs), out2 = view(out);
  if (fill) {
    linalg::FillOp::create(b, loc, fill.getInputs()[0], out2);
    fill.erase();
  }
  linalg::MatmulOp::create(b, loc, TypeRange(), ValueRange{lhs2, rhs2},
                           ValueRange{out2});
  batch.erase();
}

} // namespace

int64_t ukernelPanelColumns(StringRef variantName) {
  std::optional<Variant> variant = lookupVariant(variantName);
  return variant ? variant->nr : 0;
}

std::array<int64_t, 3> ukernelInt8Panel(StringRef variantName) {
  std::optional<Variant> variant = lookupVariant(variantName);
  if (!variant) {
    return {0, 0, 0};
  }
  return {variant->intNr, variant->intKg, variant->intKMultiple};
}

LogicalResult lowerMatmulsToUkernel(ModuleOp module, StringRef variantName) {
  std::optional<Variant> variant = lookupVariant(variantName);
  if (variantName.empty() || variantName == "none") {
    return success();
  }
  if (!variant) {
    return module.emitError()
           << "llvm-cpu: unknown matmul microkernel variant '" << variantName
           << "'";
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
    Value buffer = transpose.getInit();
    if (transpose.hasPureBufferSemantics() &&
        buffer.getDefiningOp<memref::AllocOp>() &&
        llvm::any_of(buffer.getUsers(), [](Operation *user) {
          return isa<memref::CollapseShapeOp>(user);
        })) {
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
  for (Operation *op : windowOps) {
    LogicalResult rewritten =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](linalg::DepthwiseConv2DNhwcHwcOp conv) {
              return rewriteWindowOp(conv, WindowKind::Depthwise, *variant,
                                     dwCallee, module);
            })
            .Case([&](linalg::PoolingNhwcMaxOp pool) {
              return rewriteWindowOp(pool, WindowKind::MaxPool, *variant,
                                     dwCallee, module);
            })
            .Case([&](linalg::PoolingNhwcSumOp pool) {
              return rewriteWindowOp(pool, WindowKind::SumPool, *variant,
                                     dwCallee, module);
            });
    if (failed(rewritten)) {
      return failure();
    }
  }
  for (linalg::Conv2DNhwcHwcfOp conv : convs) {
    bool rewritten;
    if (failed(rewriteConv(conv, *variant, convCallee, module, rewritten))) {
      return failure();
    }
  }
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
