//===- WindowUkernel.cpp - depthwise convolutions and pools to calls ------===//
//
// A depthwise_conv_2d_nhwc_hwc, pooling_nhwc_max or pooling_nhwc_sum of one
// image becomes a call of strata_ukernel_sdwconv_f32
// (ukernel/DwconvDriver.h), an int8 depthwise one (i8 x i8 -> i32) a call
// of strata_ukernel_idwconv_s8 (ukernel/IdwconvDriver.h) with its
// requantization; both read a padded input in place.
//
//===----------------------------------------------------------------------===//
#include "UkernelCommon.h"

#include "Strata/Codegen/LLVMCPU/Codegen.h"

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

// Whether `memref` is f32 with a unit innermost stride.
bool hasUnitInnerStride(Value memref) {
  return unitInnerStride(memref) &&
         cast<MemRefType>(memref.getType()).getElementType().isF32();
}

// Whether `memref` holds `bits`-bit integers with a unit innermost stride.
bool hasUnitInnerStrideInt(Value memref, unsigned bits) {
  return unitInnerStride(memref) && cast<MemRefType>(memref.getType())
                                        .getElementType()
                                        .isSignlessInteger(bits);
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
LogicalResult rewriteWindow(OpTy op, WindowKind kind, const Variant &variant,
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
    input = paddedSource(b, loc, *padded, top, left);
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
                    (epilogue ? epilogue->flags() : 0) |
                    streamFlag(result, variant))}) {
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
  erasePaddedWindow(padded);
  return success();
}

// An i8 x i8 -> i32 depthwise_conv_2d_nhwc_hwc of one image (what
// QDQFusion.cpp makes of a quantized depthwise layer) with at least a
// vector of channels becomes a call of strata_ukernel_idwconv_s8
// (ukernel/IdwconvDriver.h) on the x86 variants: its zero fill folded, the
// requantization that reads the result applied as the kernel stores
// (findRequantization: i8 out, no i32 temporary), a padded window read in
// place whatever its pad value (taps outside the input read it).
LogicalResult rewriteIntDepthwise(linalg::DepthwiseConv2DNhwcHwcOp op,
                                  const Variant &variant, func::FuncOp &callee,
                                  ModuleOp module) {
  Value input = op.getInputs()[0];
  Value filter = op.getInputs()[1];
  Value out = op.getOutputs()[0];
  auto filterType = dyn_cast<MemRefType>(filter.getType());
  auto outType = dyn_cast<MemRefType>(out.getType());
  if (variant.intNr == 0 || !hasUnitInnerStrideInt(input, 8) ||
      !hasUnitInnerStrideInt(filter, 8) || !hasUnitInnerStrideInt(out, 32) ||
      !filterType.hasStaticShape() || outType.isDynamicDim(0) ||
      outType.getDimSize(0) != 1 || outType.isDynamicDim(3) ||
      outType.getDimSize(3) < variant.lanes) {
    return success();
  }
  std::optional<PaddedInput> padded = matchPaddedInput(input, op);
  APInt padValue(8, 0);
  if (padded && !matchPattern(padded->padValue, m_ConstantInt(&padValue))) {
    padded.reset();
  }
  linalg::FillOp fill = findFill(
      op, out, [](Value value) { return matchPattern(value, m_Zero()); });
  std::optional<IntEpilogue> epilogue =
      findRequantization(op, out, fill, [](Value value) {
        return unitInnerStride(value) &&
               cast<MemRefType>(value.getType()).getRank() == 4;
      });
  if (!callee) {
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    callee = func::FuncOp::create(
        b, module.getLoc(), kIdwconvUkernelSymbol,
        b.getFunctionType(SmallVector<Type>(33, b.getI64Type()), {}));
    callee.setPrivate();
  }
  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t channels = filterType.getDimSize(2);
  Value scratch = memref::AllocOp::create(
      b, loc,
      MemRefType::get(
          {STRATA_IDWCONV_SCRATCH_BYTES(
              filterType.getDimSize(0) * filterType.getDimSize(1), channels)},
          b.getI8Type()),
      b.getI64IntegerAttr(64));
  if (epilogue) {
    b.setInsertionPoint(epilogue->generic);
  }
  Value result = epilogue ? epilogue->target : out;
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  Value top = constant(0), left = constant(0);
  if (padded) {
    input = padded->source;
    if (isa<scf::IfOp>(padded->root)) {
      input = b.clone(*input.getDefiningOp())->getResult(0);
    }
    top = getValueOrCreateConstantIndexOp(b, loc, padded->top);
    left = getValueOrCreateConstantIndexOp(b, loc, padded->left);
  }
  auto inMeta = memref::ExtractStridedMetadataOp::create(b, loc, input);
  auto filterMeta = memref::ExtractStridedMetadataOp::create(b, loc, filter);
  auto outMeta = memref::ExtractStridedMetadataOp::create(b, loc, result);
  auto pointer = [&](Value memref) -> Value {
    return memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  };
  auto strides = op.getStrides().getValues<int64_t>();
  auto dilations = op.getDilations().getValues<int64_t>();
  SmallVector<Value> args;
  for (Value value : std::initializer_list<Value>{
           pointer(inMeta.getBaseBuffer()),
           inMeta.getOffset(),
           inMeta.getStrides()[1],
           inMeta.getStrides()[2],
           inMeta.getSizes()[1],
           inMeta.getSizes()[2],
           top,
           left,
           constant(padValue.getSExtValue()),
           pointer(filterMeta.getBaseBuffer()),
           filterMeta.getOffset(),
           filterMeta.getStrides()[0],
           filterMeta.getStrides()[1],
           pointer(outMeta.getBaseBuffer()),
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
           constant((fill ? 0 : STRATA_IGEMM_ACCUMULATE) |
                    (epilogue ? STRATA_IGEMM_REQUANTIZE : 0)),
           pointer(scratch)}) {
    args.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(), value));
  }
  auto bits = [&](float value) -> Value {
    return arith::ConstantIntOp::create(b, loc, llvm::bit_cast<uint32_t>(value),
                                        64);
  };
  if (epilogue) {
    args.append({elementAddress(b, loc, epilogue->adjust, 4),
                 elementAddress(b, loc, epilogue->multiplier, 4),
                 bits(epilogue->zero), bits(epilogue->lo), bits(epilogue->hi)});
  } else {
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
    args.append({zero, zero, zero, zero, zero});
  }
  func::CallOp::create(b, loc, callee, args);
  op.erase();
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
  erasePaddedWindow(padded);
  return success();
}

} // namespace

LogicalResult rewriteWindowOp(Operation *op, const Variant &variant,
                              func::FuncOp &callee, func::FuncOp &intCallee,
                              ModuleOp module) {
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](linalg::DepthwiseConv2DNhwcHwcOp conv) {
        if (conv.hasPureBufferSemantics() &&
            hasUnitInnerStrideInt(conv.getOutputs()[0], 32)) {
          return rewriteIntDepthwise(conv, variant, intCallee, module);
        }
        return rewriteWindow(conv, WindowKind::Depthwise, variant, callee,
                             module);
      })
      .Case([&](linalg::PoolingNhwcMaxOp pool) {
        return rewriteWindow(pool, WindowKind::MaxPool, variant, callee,
                             module);
      })
      .Case([&](linalg::PoolingNhwcSumOp pool) {
        return rewriteWindow(pool, WindowKind::SumPool, variant, callee,
                             module);
      })
      .Default([](Operation *) { return success(); });
}

} // namespace mlir::strata::llvmcpu::ukernel
