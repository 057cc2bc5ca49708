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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

#include "ukernel/SgemmParams.h"

namespace mlir::strata::llvmcpu {
namespace {

// Smaller matmuls are not worth packing: the vectorized path keeps them.
constexpr int64_t kMinUkernelWork = 64 * 64 * 64;

struct Variant {
  int64_t mr, nr;
};

std::optional<Variant> lookupVariant(StringRef name) {
  if (name == "avx512") {
    return Variant{STRATA_SGEMM_AVX512_MR, STRATA_SGEMM_AVX512_NR};
  }
  if (name == "avx2") {
    return Variant{STRATA_SGEMM_AVX2_MR, STRATA_SGEMM_AVX2_NR};
  }
  return std::nullopt;
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

// The zero fill of exactly `output` right before `matmul`, if any: only ops
// without memory effects (views, constants, index math) may sit between.
linalg::FillOp findZeroFill(linalg::MatmulOp matmul, Value output) {
  for (Operation *op = matmul->getPrevNode(); op; op = op->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      if (fill.getOutputs()[0] != output ||
          !matchPattern(fill.getInputs()[0], m_AnyZeroFloat())) {
        return {};
      }
      // -0.0 + x differs from x only in the sign of a zero result; the
      // kernel's overwrite gives x, which is what 0.0 + x gives.
      return fill;
    }
    if (!isMemoryEffectFree(op)) {
      return {};
    }
  }
  return {};
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
  if (failed(mBound) || failed(nBound) || failed(kBound) ||
      *mBound * *nBound * *kBound < kMinUkernelWork) {
    return success();
  }
  int64_t mb = *mBound, nb = *nBound, kb = *kBound;
  int64_t scratchFloats =
      STRATA_SGEMM_ROUND_UP(STRATA_SGEMM_SCRATCH_A(variant.mr, mb, kb), 16) +
      STRATA_SGEMM_SCRATCH_B(variant.nr, nb, kb);

  OpBuilder b(matmul);
  Location loc = matmul.getLoc();
  linalg::FillOp fill = findZeroFill(matmul, out);
  auto scratchType = MemRefType::get({scratchFloats}, b.getF32Type());
  Value scratch =
      memref::AllocOp::create(b, loc, scratchType, b.getI64IntegerAttr(64));
  MatmulOperands a = decompose(b, loc, lhs);
  MatmulOperands bm = decompose(b, loc, rhs);
  MatmulOperands c = decompose(b, loc, out);
  Value m = memref::DimOp::create(b, loc, out, 0);
  Value n = memref::DimOp::create(b, loc, out, 1);
  Value k = memref::DimOp::create(b, loc, lhs, 1);
  Value flags = arith::ConstantIndexOp::create(
      b, loc, fill ? 0 : STRATA_SGEMM_ACCUMULATE);
  Value scratchPointer =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, scratch);
  SmallVector<Value> args;
  for (Value value :
       {a.alignedPointer, a.offset, a.rowStride, bm.alignedPointer, bm.offset,
        bm.rowStride, c.alignedPointer, c.offset, c.rowStride, m, n, k, flags,
        scratchPointer}) {
    args.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(), value));
  }
  func::CallOp::create(b, loc, callee, args);
  matmul.erase();
  if (fill) {
    fill.erase();
  }
  rewritten = true;
  return success();
}

} // namespace

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
  SmallVector<linalg::MatmulOp> matmuls;
  module.walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
  if (matmuls.empty()) {
    return success();
  }
  func::FuncOp callee = module.lookupSymbol<func::FuncOp>(kSgemmUkernelSymbol);
  bool created = false;
  if (!callee) {
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Type i64 = b.getI64Type();
    callee =
        func::FuncOp::create(b, module.getLoc(), kSgemmUkernelSymbol,
                             b.getFunctionType(SmallVector<Type>(14, i64), {}));
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
  return success();
}

} // namespace mlir::strata::llvmcpu
