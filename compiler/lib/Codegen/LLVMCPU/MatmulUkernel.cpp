//===- MatmulUkernel.cpp - f32 and int8 matmuls to ukernel calls ----------===//
//
// Within a workgroup, a linalg.matmul on f32 with enough work becomes one
// call of strata_ukernel_sgemm_f32 (ukernel/SgemmDriver.h): the base
// addresses, offsets and row strides of its three memrefs, its sizes, an
// accumulate flag and a packing scratch buffer, all as i64. A zero fill of
// the same output right before it is folded into the call (the kernel
// overwrites instead of accumulating). The scratch is a memref.alloc sized
// from the sizes' upper bounds, which placeTemporaries puts in the
// workgroup's local memory. The target links in the bitcode of the variant
// (Target/LLVMCPU/UkernelLinker.cpp). An i8 x i8 -> i32 matmul becomes a
// call of strata_ukernel_igemm_s8 likewise, with its requantization; a
// batch_matmul of one batch becomes a matmul first.
//
//===----------------------------------------------------------------------===//
#include "UkernelCommon.h"

#include "IndexBounds.h"

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
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

#include "ukernel/IgemmParams.h"
#include "ukernel/SgemmParams.h"

namespace mlir::strata::llvmcpu::ukernel {
namespace {

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

// Whether an op strictly between `from` and `to` (one block) may write
// the buffer `root`.
bool writtenBetween(Operation *from, Operation *to, Value root) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode()) {
    if (isMemoryEffectFree(op)) {
      continue;
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      return true;
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      if (isa<MemoryEffects::Write>(effect.getEffect()) &&
          (!effect.getValue() || rootBuffer(effect.getValue()) == root)) {
        return true;
      }
    }
  }
  return false;
}

// A matmul's right-hand operand that is a copy of a strided view, which
// the microkernel reads instead of the copy: within a workgroup, the tile
// of a transposed or strided operand (attention's K^T and V of one head,
// taken from a [sequence, heads, depth] tensor). The operand (or the view
// of one batch that unbatchMatmul made) is a memref.alloc whose one writer,
// earlier in the block, is an elementwise copy (linalg.transpose, or a
// generic that yields its input) from `source`, which nothing writes
// between the copy and the matmul.
struct CopiedB {
  Operation *copy;
  Value buffer; // the copy's alloc
  Value source; // what it copies
  // B's row stride is the stride of this dimension of `source`: its depth
  // dimension when B's columns are unit-stride there, else (transposed)
  // its column dimension, whose depth is unit-stride.
  int64_t rowStrideDim;
  bool transposed;
};

std::optional<CopiedB> findCopiedB(linalg::MatmulOp matmul, Value rhs) {
  // B's depth and column dimensions as dimensions of the buffer.
  SmallVector<int64_t, 2> bufferDims = {0, 1};
  Value buffer = rhs;
  Operation *view = nullptr;
  if (auto subview = rhs.getDefiningOp<memref::SubViewOp>()) {
    // Only a whole buffer with unit dimensions dropped (unbatchMatmul):
    // each size the source's own, static or its memref.dim.
    auto sourceType = subview.getSourceType();
    auto wholeDim = [&](auto indexed) {
      auto [d, size] = indexed;
      if (std::optional<int64_t> known = getConstantIntValue(size)) {
        return !sourceType.isDynamicDim(d) &&
               *known == sourceType.getDimSize(d);
      }
      Value value = dyn_cast<Value>(size);
      auto dim = value ? value.getDefiningOp<memref::DimOp>() : nullptr;
      return dim && dim.getSource() == subview.getSource() &&
             getConstantIntValue(dim.getDimension()) == static_cast<int64_t>(d);
    };
    if (!llvm::all_of(subview.getMixedOffsets(), isZeroInteger) ||
        !llvm::all_of(subview.getMixedStrides(), isOneInteger) ||
        !llvm::all_of(llvm::enumerate(subview.getMixedSizes()), wholeDim)) {
      return std::nullopt;
    }
    llvm::SmallBitVector dropped = subview.getDroppedDims();
    bufferDims.clear();
    for (int64_t d = 0; d < sourceType.getRank(); ++d) {
      if (!dropped.test(d)) {
        bufferDims.push_back(d);
      }
    }
    if (bufferDims.size() != 2 || !subview->hasOneUse()) {
      return std::nullopt;
    }
    view = subview;
    buffer = subview.getSource();
  }
  if (!buffer.getDefiningOp<memref::AllocOp>()) {
    return std::nullopt;
  }
  linalg::LinalgOp copy;
  for (Operation *user : buffer.getUsers()) {
    // (The sizes of the view of a dynamic buffer are its memref.dims.)
    if (user == view || user == matmul.getOperation() ||
        isa<memref::DeallocOp, memref::DimOp>(user)) {
      continue;
    }
    auto writer = dyn_cast<linalg::LinalgOp>(user);
    if (copy || !writer || writer.getNumDpsInits() != 1 ||
        writer.getDpsInits()[0] != buffer) {
      return std::nullopt;
    }
    copy = writer;
  }
  if (!copy || !isa<linalg::GenericOp, linalg::TransposeOp>(copy) ||
      !copy.hasPureBufferSemantics() || copy.getNumDpsInputs() != 1 ||
      copy.getNumParallelLoops() != copy.getNumLoops() ||
      copy->getBlock() != matmul->getBlock() ||
      !copy->isBeforeInBlock(matmul)) {
    return std::nullopt;
  }
  Block *body = copy.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || body->getOperations().size() != 1 ||
      yield.getNumOperands() != 1 ||
      yield.getOperand(0) != body->getArgument(0)) {
    return std::nullopt;
  }
  OpOperand *input = copy.getDpsInputOperand(0);
  AffineMap inputMap = copy.getMatchingIndexingMap(input);
  AffineMap initMap = copy.getMatchingIndexingMap(copy.getDpsInitOperand(0));
  auto sourceType = dyn_cast<MemRefType>(input->get().getType());
  if (!inputMap.isPermutation() || !initMap.isPermutation() || !sourceType ||
      !sourceType.getElementType().isF32()) {
    return std::nullopt;
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(sourceType.getStridesAndOffset(strides, offset))) {
    return std::nullopt;
  }
  // The source dimension that buffer dimension `d` copies.
  auto sourceDim = [&](int64_t d) -> int64_t {
    unsigned loop = initMap.getDimPosition(d);
    return *inputMap.getResultPosition(
        getAffineDimExpr(loop, copy.getContext()));
  };
  int64_t depthDim = sourceDim(bufferDims[0]);
  int64_t columnDim = sourceDim(bufferDims[1]);
  Value source = input->get();
  if (writtenBetween(copy, matmul, rootBuffer(source))) {
    return std::nullopt;
  }
  if (strides[columnDim] == 1) {
    return CopiedB{copy, buffer, source, depthDim, /*transposed=*/false};
  }
  if (strides[depthDim] == 1) {
    return CopiedB{copy, buffer, source, columnDim, /*transposed=*/true};
  }
  return std::nullopt;
}

// Erases the copy findCopiedB found, once the call reads its source: its
// view of one batch (now unused), the copy and its buffer.
void eraseCopiedB(const CopiedB &copied, Value rhs) {
  if (rhs != copied.buffer && rhs.use_empty()) {
    rhs.getDefiningOp()->erase();
  }
  copied.copy->erase();
  for (Operation *user : llvm::make_early_inc_range(copied.buffer.getUsers())) {
    if (isa<memref::DeallocOp>(user) ||
        (isa<memref::DimOp>(user) && user->use_empty())) {
      user->erase();
    }
  }
  if (copied.buffer.use_empty()) {
    copied.buffer.getDefiningOp()->erase();
  }
}

} // namespace

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
  FailureOr<int64_t> mBound = dimUpperBound(out, 0);
  FailureOr<int64_t> nBound = dimUpperBound(out, 1);
  FailureOr<int64_t> kBound = dimUpperBound(lhs, 1);
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
  // (A weight packed at compile time is no copy.)
  std::optional<CopiedB> copied;
  if (!packed) {
    copied = findCopiedB(matmul, rhs);
  }
  int64_t mb = *mBound, nb = *nBound, kb = *kBound;
  int64_t scratchFloats =
      sgemmScratchFloats(variant, mb, nb, kb, packed.has_value());

  OpBuilder b(matmul);
  Location loc = matmul.getLoc();
  linalg::FillOp fill = findZeroFill(matmul, out);
  auto scratchType = MemRefType::get({scratchFloats}, b.getF32Type());
  Value scratch =
      memref::AllocOp::create(b, loc, scratchType, b.getI64IntegerAttr(64));
  MatmulOperands a = decompose(b, loc, lhs);
  MatmulOperands bm =
      packed   ? decomposePacked(b, loc, *packed, lhsType.getDimSize(1))
      : copied ? decompose(b, loc, copied->source, copied->rowStrideDim)
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
          (copied && copied->transposed ? STRATA_SGEMM_TRANSPOSED_B : 0) |
          (epilogue ? epilogue->flags() : 0) | streamFlag(result, variant));
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
  if (copied) {
    eraseCopiedB(*copied, rhs);
  }
  rewritten = true;
  return success();
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
  FailureOr<int64_t> mBound = dimUpperBound(out, 0);
  FailureOr<int64_t> nBound = dimUpperBound(out, 1);
  FailureOr<int64_t> kBound = dimUpperBound(lhs, 1);
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
  std::optional<IntEpilogue> epilogue = findRequantization(
      matmul, out, fill, [](Value value) { return isRowMajorInt(value, 8); });
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

} // namespace mlir::strata::llvmcpu::ukernel
