// ConvToMatmul.cpp - 2-D convolutions (NHWC input, HWCF filter) with enough
// work as im2col + matmul, so that they run on the code generator's matmul
// path (on x86, its packed microkernel) instead of as loops.
//
//   %cols = linalg.generic (im2col): N x OH x OW x KH x KW x C, the input
//           window of each output pixel (the channel dimension stays
//           innermost and contiguous, so the copy is a run of memcpys)
//   %a    = tensor.collapse_shape %cols : (N*OH*OW) x (KH*KW*C)
//   %b    = tensor.collapse_shape %filter : (KH*KW*C) x F
//   %c    = linalg.matmul ins(%a, %b) outs(init as (N*OH*OW) x F)
//   %out  = tensor.expand_shape %c : N x OH x OW x F
//
// The reshapes are views on the host; the im2col and the matmul become one
// dispatch each.

#include "ConvToMatmul.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {

struct ConvToIm2colMatmul : OpRewritePattern<linalg::Conv2DNhwcHwcfOp> {
  ConvToIm2colMatmul(MLIRContext *context, int64_t minWork, bool dynamicBatch)
      : OpRewritePattern(context), minWork(minWork),
        dynamicBatch(dynamicBatch) {}

  LogicalResult matchAndRewrite(linalg::Conv2DNhwcHwcfOp conv,
                                PatternRewriter &rewriter) const override {
    if (!conv.hasPureTensorSemantics()) {
      return failure();
    }
    Value input = conv.getInputs()[0];
    Value filter = conv.getInputs()[1];
    Value init = conv.getOutputs()[0];
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    auto filterType = dyn_cast<RankedTensorType>(filter.getType());
    auto outputType = dyn_cast<RankedTensorType>(init.getType());
    // Static but for the batch (dimension 0 of the input and output),
    // which may be dynamic when the target asks for it.
    auto staticPastBatch = [](RankedTensorType type) {
      return llvm::all_of(type.getShape().drop_front(),
                          [](int64_t d) { return !ShapedType::isDynamic(d); });
    };
    if (!inputType || !filterType || !outputType ||
        !filterType.hasStaticShape() || !staticPastBatch(inputType) ||
        !staticPastBatch(outputType) || !outputType.getElementType().isF32() ||
        inputType.getElementType() != outputType.getElementType() ||
        filterType.getElementType() != outputType.getElementType()) {
      return rewriter.notifyMatchFailure(conv, "not a static f32 conv");
    }
    bool dynamic = outputType.isDynamicDim(0) || inputType.isDynamicDim(0);
    if (dynamic && (!dynamicBatch || !outputType.isDynamicDim(0) ||
                    !inputType.isDynamicDim(0))) {
      return rewriter.notifyMatchFailure(conv, "dynamic batch");
    }
    int64_t n = outputType.getDimSize(0), oh = outputType.getDimSize(1),
            ow = outputType.getDimSize(2), f = outputType.getDimSize(3);
    int64_t kh = filterType.getDimSize(0), kw = filterType.getDimSize(1),
            c = filterType.getDimSize(2);
    int64_t depth = kh * kw * c;
    int64_t rows = dynamic ? ShapedType::kDynamic : n * oh * ow;
    if ((dynamic ? 1 : n) * oh * ow * depth * f < minWork) {
      return rewriter.notifyMatchFailure(conv, "too little work");
    }
    auto strides = conv.getStrides().getValues<int64_t>();
    auto dilations = conv.getDilations().getValues<int64_t>();
    int64_t sh = strides[0], sw = strides[1];
    int64_t dh = dilations[0], dw = dilations[1];
    Location loc = conv.getLoc();
    MLIRContext *context = rewriter.getContext();
    Type element = outputType.getElementType();

    // im2col over (n, oh, ow, kh, kw, c): affine in every index (a floordiv
    // of a linearized row would break tiling, which offsets each index).
    AffineExpr bn, y, x, ky, kx, ch;
    bindDims(context, bn, y, x, ky, kx, ch);
    AffineMap inputMap = AffineMap::get(
        6, 0, {bn, y * sh + ky * dh, x * sw + kx * dw, ch}, context);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(6, context);
    auto colsType = RankedTensorType::get({n, oh, ow, kh, kw, c}, element);
    // A dynamic batch: the input's.
    SmallVector<Value> batch;
    if (dynamic) {
      batch.push_back(tensor::DimOp::create(rewriter, loc, input, 0));
    }
    Value colsInit = tensor::EmptyOp::create(rewriter, loc, colsType, batch);
    SmallVector<utils::IteratorType> parallel(6, utils::IteratorType::parallel);
    auto im2col = linalg::GenericOp::create(
        rewriter, loc, colsType, ValueRange{input}, ValueRange{colsInit},
        ArrayRef<AffineMap>{inputMap, identity}, parallel,
        [](OpBuilder &b, Location bodyLoc, ValueRange args) {
          linalg::YieldOp::create(b, bodyLoc, args[0]);
        });
    Value a = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({rows, depth}, element),
        im2col.getResult(0),
        ArrayRef<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
    Value b = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({depth, f}, element), filter,
        ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
    // The destination: a fill of an empty tensor is remade in 2-D (so it
    // stays with the matmul), anything else is viewed as rows x F.
    auto accType = RankedTensorType::get({rows, f}, element);
    Value acc;
    if (auto fill = init.getDefiningOp<linalg::FillOp>();
        fill && fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>()) {
      SmallVector<Value> accRows;
      if (dynamic) {
        accRows.push_back(
            tensor::DimOp::create(rewriter, loc, a, 0).getResult());
      }
      Value empty = tensor::EmptyOp::create(rewriter, loc, accType, accRows);
      acc = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
                .getResult(0);
    } else {
      acc = tensor::CollapseShapeOp::create(
          rewriter, loc, accType, init,
          ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
    }
    auto matmul = linalg::MatmulOp::create(rewriter, loc, TypeRange{accType},
                                           ValueRange{a, b}, ValueRange{acc});
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        conv, outputType, matmul.getResult(0),
        ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
    return success();
  }

private:
  int64_t minWork;
  bool dynamicBatch;
};

} // namespace

void mlir::strata::flow::populateConvToMatmulPatterns(
    RewritePatternSet &patterns, int64_t minWork, bool dynamicBatch) {
  patterns.add<ConvToIm2colMatmul>(patterns.getContext(), minWork,
                                   dynamicBatch);
}
