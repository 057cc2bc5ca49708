// IndexToVM.cpp - patterns lowering the index dialect to i64 vm ops (index
// values live in i64 registers). ceildivs/ceildivu/floordivs are expanded
// before the conversion (StandardExpansions.cpp).

#include "ArithToVM/ArithToVM.h"

#include "ConvertToVM/IntegerRepresentation.h"

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/Dialect/Index/IR/IndexOps.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::vm_conversion;

namespace {

template <typename SrcOp, typename Op64>
struct BinaryOpConversion : OpConversionPattern<SrcOp> {
  using OpConversionPattern<SrcOp>::OpConversionPattern;
  using OpAdaptor = typename SrcOp::Adaptor;

  LogicalResult
  matchAndRewrite(SrcOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<Op64>(op, rewriter.getI64Type(),
                                      adaptor.getLhs(), adaptor.getRhs());
    return success();
  }
};

struct ConstantOpConversion : OpConversionPattern<index::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(index::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, createI64Constant(rewriter, op.getLoc(),
                                             op.getValue().getSExtValue()));
    return success();
  }
};

struct BoolConstantOpConversion : OpConversionPattern<index::BoolConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(index::BoolConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, createI32Constant(rewriter, op.getLoc(), op.getValue() ? 1 : 0));
    return success();
  }
};

/// index.sizeof: index is 64 bits wide on the VM.
struct SizeOfOpConversion : OpConversionPattern<index::SizeOfOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(index::SizeOfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, createI64Constant(rewriter, op.getLoc(), 64));
    return success();
  }
};

IntCompare toIntCompare(index::IndexCmpPredicate predicate) {
  switch (predicate) {
  case index::IndexCmpPredicate::EQ:
    return IntCompare::Eq;
  case index::IndexCmpPredicate::NE:
    return IntCompare::Ne;
  case index::IndexCmpPredicate::SLT:
    return IntCompare::Slt;
  case index::IndexCmpPredicate::SLE:
    return IntCompare::Sle;
  case index::IndexCmpPredicate::SGT:
    return IntCompare::Sgt;
  case index::IndexCmpPredicate::SGE:
    return IntCompare::Sge;
  case index::IndexCmpPredicate::ULT:
    return IntCompare::Ult;
  case index::IndexCmpPredicate::ULE:
    return IntCompare::Ule;
  case index::IndexCmpPredicate::UGT:
    return IntCompare::Ugt;
  case index::IndexCmpPredicate::UGE:
    return IntCompare::Uge;
  }
  return IntCompare::Eq;
}

struct CmpOpConversion : OpConversionPattern<index::CmpOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(index::CmpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, createIntCompare(rewriter, op.getLoc(),
                                            toIntCompare(op.getPred()),
                                            adaptor.getLhs(), adaptor.getRhs(),
                                            /*width=*/64));
    return success();
  }
};

/// index.casts / index.castu between index and any supported integer.
template <typename SrcOp, bool isSigned>
struct CastOpConversion : OpConversionPattern<SrcOp> {
  using OpConversionPattern<SrcOp>::OpConversionPattern;
  using OpAdaptor = typename SrcOp::Adaptor;

  LogicalResult
  matchAndRewrite(SrcOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned srcWidth = getIntegerWidth(op.getInput().getType());
    unsigned dstWidth = getIntegerWidth(op.getType());
    rewriter.replaceOp(op,
                       castInteger(rewriter, op.getLoc(), adaptor.getInput(),
                                   srcWidth, dstWidth, isSigned));
    return success();
  }
};

} // namespace

void mlir::strata::populateIndexToVMPatterns(const TypeConverter &typeConverter,
                                             RewritePatternSet &patterns) {
  patterns
      .add<BinaryOpConversion<index::AddOp, vm::AddI64Op>,
           BinaryOpConversion<index::SubOp, vm::SubI64Op>,
           BinaryOpConversion<index::MulOp, vm::MulI64Op>,
           BinaryOpConversion<index::DivSOp, vm::DivSI64Op>,
           BinaryOpConversion<index::DivUOp, vm::DivUI64Op>,
           BinaryOpConversion<index::RemSOp, vm::RemSI64Op>,
           BinaryOpConversion<index::RemUOp, vm::RemUI64Op>,
           BinaryOpConversion<index::MaxSOp, vm::MaxSI64Op>,
           BinaryOpConversion<index::MaxUOp, vm::MaxUI64Op>,
           BinaryOpConversion<index::MinSOp, vm::MinSI64Op>,
           BinaryOpConversion<index::MinUOp, vm::MinUI64Op>,
           BinaryOpConversion<index::ShlOp, vm::ShlI64Op>,
           BinaryOpConversion<index::ShrSOp, vm::ShrSI64Op>,
           BinaryOpConversion<index::ShrUOp, vm::ShrUI64Op>,
           BinaryOpConversion<index::AndOp, vm::AndI64Op>,
           BinaryOpConversion<index::OrOp, vm::OrI64Op>,
           BinaryOpConversion<index::XOrOp, vm::XorI64Op>, ConstantOpConversion,
           BoolConstantOpConversion, SizeOfOpConversion, CmpOpConversion,
           CastOpConversion<index::CastSOp, true>,
           CastOpConversion<index::CastUOp, false>>(typeConverter,
                                                    patterns.getContext());
}
