//===- UkernelCommon.cpp - what the microkernel rewrites share ------------===//
//
// The microkernel variants, memref operands as call arguments, the fills
// and elementwise epilogues a call absorbs (UkernelCommon.h).
//
//===----------------------------------------------------------------------===//
#include "UkernelCommon.h"

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
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

#include "ukernel/IgemmParams.h"
#include "ukernel/SgemmParams.h"

namespace mlir::strata::llvmcpu::ukernel {
namespace {

// The register tiles and panels of the variant `name` (its kernels).
std::optional<Variant> lookupVariantKernels(StringRef name) {
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
  if (name == "sse") {
    // Baseline x86-64: f32 kernels only, as on AArch64.
    return Variant{STRATA_SGEMM_SSE_MR, STRATA_SGEMM_SSE_NR, 4, 0, 0, 0};
  }
  if (name == "neon") {
    // AArch64: f32 kernels only (an int8 panel of 0: int8 matmuls stay
    // with the code generator).
    return Variant{STRATA_SGEMM_NEON_MR, STRATA_SGEMM_NEON_NR, 4, 0, 0, 0};
  }
  return std::nullopt;
}

// The rows of ukernel/IsaTuning.def, by variant name.
struct Tuning {
  const char *isa;
  int64_t kc, mcRows, nc, streamedResultMib, streamedFilterMib;
};
constexpr Tuning kTunings[] = {
#define STRATA_ISA_TUNING(isa, kc, mc_rows, nc, l1_b_floats, conv_step,        \
                          in_place_b_rows, b_prefetch_rows, streamed_mib,      \
                          streamed_filter_mib, pointwise_depth, conv_kc)       \
  {#isa, kc, mc_rows, nc, streamed_mib, streamed_filter_mib},
#include "ukernel/IsaTuning.def"
#undef STRATA_ISA_TUNING
};

} // namespace

std::optional<Variant> lookupVariant(StringRef name) {
  std::optional<Variant> variant = lookupVariantKernels(name);
  if (!variant) {
    return std::nullopt;
  }
  const Tuning *row = llvm::find_if(
      kTunings, [&](const Tuning &tuning) { return name == tuning.isa; });
  if (row == std::end(kTunings)) {
    return std::nullopt; // a variant without a row (UkernelTest checks)
  }
  variant->kc = row->kc;
  variant->mcRows = row->mcRows;
  variant->nc = row->nc;
  variant->streamedResultBytes = row->streamedResultMib << 20;
  variant->streamedFilterBytes = row->streamedFilterMib << 20;
  return variant;
}

int64_t sgemmScratchFloats(const Variant &variant, int64_t m, int64_t n,
                           int64_t k, bool packedB) {
  int64_t a = STRATA_SGEMM_ROUND_UP(
      STRATA_SGEMM_SCRATCH_A(variant.mr, variant.kc, variant.mcRows, m, k), 16);
  return a + (packedB ? 0
                      : STRATA_SGEMM_SCRATCH_B(variant.nr, variant.kc,
                                               variant.nc, n, k));
}

// The buffer `memref` is a view of (through subviews, casts, reshapes).
Value rootBuffer(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>()) {
    memref = view.getViewSource();
  }
  return memref;
}

// STRATA_SGEMM_STREAM when the whole buffer `memref` is a view of (through
// subviews, casts and reshapes) has a static shape of at least
// variant.streamedResultBytes; a tile of a large result streams like the
// rest.
int64_t streamFlag(Value memref, const Variant &variant) {
  memref = rootBuffer(memref);
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32()) {
    return 0;
  }
  int64_t bytes = type.getNumElements() * 4;
  return bytes >= variant.streamedResultBytes ? STRATA_SGEMM_STREAM : 0;
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

MatmulOperands decompose(OpBuilder &b, Location loc, Value memref,
                         int64_t rowStrideDim) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, metadata.getBaseBuffer());
  return {pointer, metadata.getOffset(), metadata.getStrides()[rowStrideDim]};
}

// `out` is the product's temporary output (a memref.alloc written by
// `fill`, which the call folds, and `product`); `layoutOk` says whether a
// memref can be the microkernel's C (or residual) in its place.
namespace {

// The elementwise generic that is the one reader of `out` (a memref.alloc
// written by `fill` and `product`) besides them, in `product`'s block, all
// parallel with one init, with only views, index math and allocations (its
// operands: a temporary it writes, in a band of fused ops) between the
// two: the call moves down to it. Null otherwise.
linalg::GenericOp findEpilogueGeneric(Operation *product, Value out,
                                      linalg::FillOp fill) {
  if (!fill || !out.getDefiningOp<memref::AllocOp>()) {
    return {};
  }
  linalg::GenericOp generic;
  for (Operation *user : out.getUsers()) {
    if (user == product || user == fill.getOperation() ||
        isa<memref::DeallocOp>(user)) {
      continue;
    }
    auto consumer = dyn_cast<linalg::GenericOp>(user);
    if (!consumer || generic) {
      return {};
    }
    generic = consumer;
  }
  if (!generic || generic->getBlock() != product->getBlock() ||
      !generic.hasPureBufferSemantics() || generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops()) {
    return {};
  }
  for (Operation *op = product->getNextNode(); op != generic.getOperation();
       op = op->getNextNode()) {
    if (!isMemoryEffectFree(op) && !isa<memref::AllocOp>(op)) {
      return {};
    }
  }
  return generic;
}

} // namespace

std::optional<FusedEpilogue> findEpilogue(Operation *product, Value out,
                                          linalg::FillOp fill,
                                          function_ref<bool(Value)> layoutOk) {
  linalg::GenericOp generic = findEpilogueGeneric(product, out, fill);
  auto outType = cast<MemRefType>(out.getType());
  int64_t rank = outType.getRank();
  if (!generic || generic.getNumLoops() != static_cast<unsigned>(rank)) {
    return std::nullopt;
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

Value elementAddress(OpBuilder &b, Location loc, Value memref,
                     int64_t elementBytes) {
  MatmulOperands operands = decompose(b, loc, memref);
  Value bytes = arith::MulIOp::create(
      b, loc, operands.offset,
      arith::ConstantIndexOp::create(b, loc, elementBytes));
  Value sum = arith::AddIOp::create(b, loc, operands.alignedPointer, bytes);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), sum);
}

// The epilogue's five call arguments (bias and residual addresses, the
// residual's row stride, the clamp bounds' bits), zeros without one.
void appendEpilogueArguments(OpBuilder &b, Location loc,
                             const std::optional<FusedEpilogue> &epilogue,
                             int64_t residualRowStrideDim,
                             SmallVectorImpl<Value> &args) {
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
  auto address = [&](Value memref) -> Value {
    return memref ? elementAddress(b, loc, memref, 4) : zero;
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

std::optional<IntEpilogue>
findRequantization(Operation *product, Value out, linalg::FillOp fill,
                   function_ref<bool(Value)> layoutOk) {
  linalg::GenericOp generic = findEpilogueGeneric(product, out, fill);
  if (!generic || generic.getNumDpsInputs() != 3) {
    return std::nullopt;
  }
  IntEpilogue epilogue;
  epilogue.generic = generic;
  OpOperand *init = generic.getDpsInitOperand(0);
  epilogue.target = init->get();
  auto targetType = cast<MemRefType>(epilogue.target.getType());
  if (!layoutOk(epilogue.target) ||
      !cast<MemRefType>(epilogue.target.getType())
           .getElementType()
           .isSignlessInteger(8) ||
      targetType.getShape() != cast<MemRefType>(out.getType()).getShape() ||
      !generic.getMatchingIndexingMap(init).isIdentity() ||
      !generic.getMatchingBlockArgument(init).use_empty()) {
    return std::nullopt;
  }
  MLIRContext *context = generic.getContext();
  unsigned loops = generic.getNumLoops();
  AffineMap lastDim =
      AffineMap::get(loops, 0, getAffineDimExpr(loops - 1, context));
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
  // A flip of the top bit after the truncation (u8 x as x - 128 for the
  // next layer, QDQFusion.cpp's shift fused here) is x - 128 of the
  // clamped value: the same clamp 128 lower.
  float flip = 0.0f;
  if (auto xori = current.getDefiningOp<arith::XOrIOp>()) {
    Value other = xori.getRhs();
    Value chain = xori.getLhs();
    APInt mask;
    if (!matchPattern(other, m_ConstantInt(&mask))) {
      std::swap(other, chain);
    }
    if (!matchPattern(other, m_ConstantInt(&mask)) || mask.getBitWidth() != 8 ||
        mask != APInt(8, 0x80) || !chain.getDefiningOp<arith::TruncIOp>() ||
        !chain.hasOneUse()) {
      return std::nullopt;
    }
    current = chain;
    flip = 128.0f;
    ++ops;
  }
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
  // With a flip the clamped value must be a byte's unsigned value.
  if (flip != 0.0f && !(*lo >= 0.0f && *hi <= 255.0f)) {
    return std::nullopt;
  }
  epilogue.lo = *lo - flip;
  epilogue.hi = *hi - flip;
  epilogue.zero = -flip;
  if (auto add = current.getDefiningOp<arith::AddFOp>()) {
    Value rounded = add.getLhs().getDefiningOp<math::RoundEvenOp>()
                        ? add.getLhs()
                        : add.getRhs();
    std::optional<float> zero = constantOf(otherOf(add, rounded));
    if (!zero) {
      return std::nullopt;
    }
    epilogue.zero = *zero - flip;
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

namespace {

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
  if (!unitInnerStride(copy.getSource()) ||
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

} // namespace

bool unitInnerStride(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return type && succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
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

// Erases a padded window the microkernel no longer reads (matchPaddedInput:
// nothing else reads it), with its fill, view and copy.
void erasePaddedWindow(const std::optional<PaddedInput> &padded) {
  if (!padded) {
    return;
  }
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

Value paddedSource(OpBuilder &b, Location loc, const PaddedInput &padded,
                   Value &top, Value &left) {
  Value input = padded.source;
  if (isa<scf::IfOp>(padded.root)) {
    // The view as the guard's else branch made it, here.
    input = b.clone(*input.getDefiningOp())->getResult(0);
  }
  top = getValueOrCreateConstantIndexOp(b, loc, padded.top);
  left = getValueOrCreateConstantIndexOp(b, loc, padded.left);
  return input;
}

} // namespace mlir::strata::llvmcpu::ukernel
