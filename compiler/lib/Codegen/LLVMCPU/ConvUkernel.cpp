//===- ConvUkernel.cpp - f32 NHWC convolutions to ukernel calls -----------===//
//
// A conv_2d_nhwc_hwcf of one image becomes a call of
// strata_ukernel_sconv_f32: the matmul driver, packing the input's windows
// straight into its panels, with the filter as B (read in place when packed
// at compile time) and the matmul's epilogues.
//
//===----------------------------------------------------------------------===//
#include "UkernelCommon.h"

#include "IndexBounds.h"

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

} // namespace

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
  if (!unitInnerStride(input)) {
    return success();
  }
  std::optional<SmallVector<int64_t>> filterStrides = staticStrides(filter);
  std::optional<PackedWeights> packed = findPackedWeights(filter, variant.nr);
  int64_t kh = filterType.getDimSize(0), kw = filterType.getDimSize(1),
          channels = filterType.getDimSize(2);
  // A filter read back from its Winograd transform: the kernel reads the
  // transform and runs Winograd's algorithm (STRATA_SGEMM_WINOGRAD).
  auto strides = conv.getStrides().getValues<int64_t>();
  auto dilations = conv.getDilations().getValues<int64_t>();
  bool winograd = false;
  if (!packed && kh == 3 && kw == 3 &&
      llvm::all_of(strides, [](int64_t s) { return s == 1; }) &&
      llvm::all_of(dilations, [](int64_t d) { return d == 1; })) {
    packed = findWinogradWeights(filter, variant.nr);
    winograd = packed.has_value();
  }
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
  FailureOr<int64_t> rowBound = dimUpperBound(out, 1);
  FailureOr<int64_t> nBound = dimUpperBound(out, 3);
  int64_t kb = kh * kw * channels;
  if (failed(rowBound) || failed(nBound) ||
      (!packed && *rowBound * outWidth * *nBound * kb < kMinMatmulTileWork)) {
    return success();
  }
  int64_t mb = *rowBound * outWidth, nb = *nBound;
  // A zero-padded window (a fused tensor.pad) is not built: the kernel
  // reads the input it was copied from and skips the taps in the padding
  // (ukernel/SgemmDriver.h; 0.97x on resnet18 at batch 8, its 3x3
  // convolutions 0.92-0.98x, Intel Xeon AVX-512). Read in place, the
  // first and last output columns go down the tile's rows, a microkernel
  // tile of their own: a tile of few rows in a narrow image loses more
  // than the copy cost (2 rows of 14 pixels, resnet18 at batch 1: 1.07x),
  // so those keep the window, and so do output rows of MR / 2 pixels,
  // which go two to a tile (SgemmDriver.h pairsOutputRows) only from
  // padded rows (resnet18's at 7x7 on AVX-512 would pack their windows
  // instead).
  std::optional<PaddedInput> padded = matchPaddedInput(input, conv);
  // (The Winograd kernel reads tiles of a whole 6x6 window: in place,
  // whatever the tile.)
  if (padded &&
      (!matchPattern(padded->padValue, m_AnyZeroFloat()) ||
       !unitInnerStride(padded->source) ||
       (!winograd &&
        ((variant.mr % 2 == 0 && outWidth == variant.mr / 2) ||
         (2 * *rowBound < variant.mr && outWidth < 4 * variant.mr))))) {
    padded.reset();
  }
  int64_t scratchFloats =
      winograd ? STRATA_SWINOGRAD_SCRATCH(outWidth, channels, nb) +
                     sgemmScratchFloats(variant,
                                        STRATA_SWINOGRAD_BAND_TILES(outWidth),
                                        nb, channels, /*packedB=*/true)
               : sgemmScratchFloats(variant, mb, nb, kb, packed.has_value());
  if (!callee) {
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    callee = func::FuncOp::create(
        b, module.getLoc(), kSconvUkernelSymbol,
        b.getFunctionType(SmallVector<Type>(31, b.getI64Type()), {}));
    callee.setPrivate();
  }

  OpBuilder b(conv);
  Location loc = conv.getLoc();
  auto scratchType = MemRefType::get({scratchFloats}, b.getF32Type());
  Value scratch =
      memref::AllocOp::create(b, loc, scratchType, b.getI64IntegerAttr(64));
  Value top, left;
  if (padded) {
    input = paddedSource(b, loc, *padded, top, left);
  } else {
    top = left = arith::ConstantIndexOp::create(b, loc, 0);
  }
  auto inputMeta = memref::ExtractStridedMetadataOp::create(b, loc, input);
  Value inputPointer = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, inputMeta.getBaseBuffer());
  MatmulOperands bm =
      packed ? decomposePacked(b, loc, *packed,
                               winograd ? STRATA_SWINOGRAD_ALPHA *
                                              STRATA_SWINOGRAD_ALPHA * channels
                                        : kb)
             : decompose(b, loc, filter);
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
  SmallVector<Value> args;
  for (Value value : std::initializer_list<Value>{
           inputPointer,
           inputMeta.getOffset(),
           inputMeta.getStrides()[1],
           inputMeta.getStrides()[2],
           inputMeta.getSizes()[1],
           inputMeta.getSizes()[2],
           top,
           left,
           bm.alignedPointer,
           bm.offset,
           packed ? bm.rowStride : constant((*filterStrides)[2]),
           outPointer,
           outMeta.getOffset(),
           outMeta.getStrides()[2],
           m,
           n,
           constant(kb),
           constant((fill ? 0 : STRATA_SGEMM_ACCUMULATE) |
                    (packed ? STRATA_SGEMM_PACKED_B : 0) |
                    (winograd ? STRATA_SGEMM_WINOGRAD : 0) |
                    (epilogue ? epilogue->flags() : 0) |
                    streamFlag(result, variant)),
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
  erasePaddedWindow(padded);
  if (fill) {
    fill.erase();
  }
  eraseFusedEpilogue(epilogue, out);
  rewritten = true;
  return success();
}

} // namespace mlir::strata::llvmcpu::ukernel
