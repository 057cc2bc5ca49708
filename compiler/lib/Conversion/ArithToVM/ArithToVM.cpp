// ArithToVM.cpp - patterns lowering arith ops to vm arithmetic, comparison,
// select and cast ops (see IntegerRepresentation.h for i1/i8/i16).

#include "ArithToVM/ArithToVM.h"

#include "ConvertToVM/ElementwisePatterns.h"
#include "ConvertToVM/IntegerRepresentation.h"

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::vm_conversion;

namespace {

/// How a narrow (i1/i8/i16) operand is widened before an op reads it.
enum class Ext { None, Signed, Unsigned };

Value extendFor(OpBuilder &builder, Location loc, Value value, unsigned width,
                Ext ext) {
  if (ext == Ext::None) {
    return value;
  }
  return extendOperand(builder, loc, value, width, ext == Ext::Signed);
}

/// An integer binary op to Op32 (i1..i32) or Op64 (i64, index). Narrow
/// operands are extended as `lhsExt`/`rhsExt` say, and an i1 result is
/// masked back to 0/1 when `maskI1` is set (the op may set other bits).
template <typename SrcOp, typename Op32, typename Op64>
struct IntBinaryOpConversion : OpConversionPattern<SrcOp> {
  using OpAdaptor = typename SrcOp::Adaptor;

  IntBinaryOpConversion(const TypeConverter &typeConverter,
                        MLIRContext *context, Ext lhsExt, Ext rhsExt,
                        bool maskI1)
      : OpConversionPattern<SrcOp>(typeConverter, context), lhsExt(lhsExt),
        rhsExt(rhsExt), maskI1(maskI1) {}

  LogicalResult
  matchAndRewrite(SrcOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned width = getIntegerWidth(op.getType());
    if (width == 0) {
      return rewriter.notifyMatchFailure(op, "not an integer");
    }
    if (width == 64) {
      rewriter.replaceOpWithNewOp<Op64>(op, rewriter.getI64Type(),
                                        adaptor.getLhs(), adaptor.getRhs());
      return success();
    }
    Value lhs = extendFor(rewriter, loc, adaptor.getLhs(), width, lhsExt);
    Value rhs = extendFor(rewriter, loc, adaptor.getRhs(), width, rhsExt);
    Value result = Op32::create(rewriter, loc, rewriter.getI32Type(), lhs, rhs);
    if (width == 1 && maskI1) {
      result = maskToI1(rewriter, loc, result);
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  Ext lhsExt;
  Ext rhsExt;
  bool maskI1;
};

struct ConstantOpConversion : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (auto intAttr = dyn_cast<IntegerAttr>(op.getValue())) {
      unsigned width = getIntegerWidth(intAttr.getType());
      const APInt &value = intAttr.getValue();
      if (width == 64) {
        rewriter.replaceOp(
            op, createI64Constant(rewriter, loc, value.getSExtValue()));
      } else if (width == 1) {
        // true is 1, not -1: an i1 register holds 0 or 1.
        rewriter.replaceOp(
            op, createI32Constant(rewriter, loc,
                                  static_cast<int32_t>(value.getZExtValue())));
      } else if (width != 0 && width <= 32) {
        rewriter.replaceOp(
            op, createI32Constant(rewriter, loc,
                                  static_cast<int32_t>(value.getSExtValue())));
      } else {
        return rewriter.notifyMatchFailure(op, "unsupported integer width");
      }
      return success();
    }
    if (auto floatAttr = dyn_cast<FloatAttr>(op.getValue())) {
      Type type = floatAttr.getType();
      if (type.isF32()) {
        rewriter.replaceOpWithNewOp<vm::ConstF32Op>(op, type, floatAttr);
        return success();
      }
      if (type.isF64()) {
        rewriter.replaceOpWithNewOp<vm::ConstF64Op>(op, type, floatAttr);
        return success();
      }
    }
    return rewriter.notifyMatchFailure(op, "unsupported constant");
  }
};

IntCompare toIntCompare(arith::CmpIPredicate predicate) {
  switch (predicate) {
  case arith::CmpIPredicate::eq:
    return IntCompare::Eq;
  case arith::CmpIPredicate::ne:
    return IntCompare::Ne;
  case arith::CmpIPredicate::slt:
    return IntCompare::Slt;
  case arith::CmpIPredicate::sle:
    return IntCompare::Sle;
  case arith::CmpIPredicate::sgt:
    return IntCompare::Sgt;
  case arith::CmpIPredicate::sge:
    return IntCompare::Sge;
  case arith::CmpIPredicate::ult:
    return IntCompare::Ult;
  case arith::CmpIPredicate::ule:
    return IntCompare::Ule;
  case arith::CmpIPredicate::ugt:
    return IntCompare::Ugt;
  case arith::CmpIPredicate::uge:
    return IntCompare::Uge;
  }
  return IntCompare::Eq;
}

struct CmpIOpConversion : OpConversionPattern<arith::CmpIOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::CmpIOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned width = getIntegerWidth(op.getLhs().getType());
    if (width == 0) {
      return rewriter.notifyMatchFailure(op, "not an integer");
    }
    rewriter.replaceOp(op, createIntCompare(rewriter, op.getLoc(),
                                            toIntCompare(op.getPredicate()),
                                            adaptor.getLhs(), adaptor.getRhs(),
                                            width));
    return success();
  }
};

/// One ordered vm float comparison (eq/lt/le are false on NaN, ne is true,
/// nan tells whether either operand is NaN).
enum class FloatCompare { Eq, Ne, Lt, Le, Nan };

Value createFloatCompare(OpBuilder &builder, Location loc, FloatCompare kind,
                         Value lhs, Value rhs) {
  Type i32 = builder.getI32Type();
  bool isF32 = lhs.getType().isF32();
  switch (kind) {
  case FloatCompare::Eq:
    return isF32 ? Value(vm::CmpEqF32Op::create(builder, loc, i32, lhs, rhs))
                 : Value(vm::CmpEqF64Op::create(builder, loc, i32, lhs, rhs));
  case FloatCompare::Ne:
    return isF32 ? Value(vm::CmpNeF32Op::create(builder, loc, i32, lhs, rhs))
                 : Value(vm::CmpNeF64Op::create(builder, loc, i32, lhs, rhs));
  case FloatCompare::Lt:
    return isF32 ? Value(vm::CmpLtF32Op::create(builder, loc, i32, lhs, rhs))
                 : Value(vm::CmpLtF64Op::create(builder, loc, i32, lhs, rhs));
  case FloatCompare::Le:
    return isF32 ? Value(vm::CmpLeF32Op::create(builder, loc, i32, lhs, rhs))
                 : Value(vm::CmpLeF64Op::create(builder, loc, i32, lhs, rhs));
  case FloatCompare::Nan:
    return isF32 ? Value(vm::CmpNanF32Op::create(builder, loc, i32, lhs, rhs))
                 : Value(vm::CmpNanF64Op::create(builder, loc, i32, lhs, rhs));
  }
  return Value();
}

/// arith.cmpf. Ordered predicates are the vm comparisons (gt/ge swap the
/// operands); `une` is vm.cmp.ne; `uno` is vm.cmp.nan and `ord` its negation;
/// `ueq` is eq-or-NaN and `one` is une-but-not-NaN; the other unordered
/// predicates are the negation of the opposite ordered one (ult = !oge).
struct CmpFOpConversion : OpConversionPattern<arith::CmpFOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::CmpFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Value a = adaptor.getLhs();
    Value b = adaptor.getRhs();
    auto cmp = [&](FloatCompare kind, Value lhs, Value rhs) {
      return createFloatCompare(rewriter, loc, kind, lhs, rhs);
    };
    auto negate = [&](Value value) -> Value {
      Value one = createI32Constant(rewriter, loc, 1);
      return vm::XorI32Op::create(rewriter, loc, i32, value, one);
    };
    Value result;
    switch (op.getPredicate()) {
    case arith::CmpFPredicate::AlwaysFalse:
      result = createI32Constant(rewriter, loc, 0);
      break;
    case arith::CmpFPredicate::AlwaysTrue:
      result = createI32Constant(rewriter, loc, 1);
      break;
    case arith::CmpFPredicate::OEQ:
      result = cmp(FloatCompare::Eq, a, b);
      break;
    case arith::CmpFPredicate::OGT:
      result = cmp(FloatCompare::Lt, b, a);
      break;
    case arith::CmpFPredicate::OGE:
      result = cmp(FloatCompare::Le, b, a);
      break;
    case arith::CmpFPredicate::OLT:
      result = cmp(FloatCompare::Lt, a, b);
      break;
    case arith::CmpFPredicate::OLE:
      result = cmp(FloatCompare::Le, a, b);
      break;
    case arith::CmpFPredicate::ONE:
      // une = one | uno, and the two are disjoint.
      {
        Value notEqual = cmp(FloatCompare::Ne, a, b);
        Value unordered = cmp(FloatCompare::Nan, a, b);
        result = vm::XorI32Op::create(rewriter, loc, i32, notEqual, unordered);
        break;
      }
    case arith::CmpFPredicate::ORD:
      result = negate(cmp(FloatCompare::Nan, a, b));
      break;
    case arith::CmpFPredicate::UEQ: {
      Value equal = cmp(FloatCompare::Eq, a, b);
      Value unordered = cmp(FloatCompare::Nan, a, b);
      result = vm::OrI32Op::create(rewriter, loc, i32, equal, unordered);
      break;
    }
    case arith::CmpFPredicate::UGT:
      result = negate(cmp(FloatCompare::Le, a, b));
      break;
    case arith::CmpFPredicate::UGE:
      result = negate(cmp(FloatCompare::Lt, a, b));
      break;
    case arith::CmpFPredicate::ULT:
      result = negate(cmp(FloatCompare::Le, b, a));
      break;
    case arith::CmpFPredicate::ULE:
      result = negate(cmp(FloatCompare::Lt, b, a));
      break;
    case arith::CmpFPredicate::UNE:
      result = cmp(FloatCompare::Ne, a, b);
      break;
    case arith::CmpFPredicate::UNO:
      result = cmp(FloatCompare::Nan, a, b);
      break;
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// arith.maxnumf/minnumf: a NaN operand yields the other operand. Each NaN
/// operand is replaced by the other one before vm.max/vm.min (which
/// propagate NaN), so only two NaNs give NaN.
template <typename SrcOp, typename OpF32, typename OpF64>
struct NumFOpConversion : OpConversionPattern<SrcOp> {
  using OpConversionPattern<SrcOp>::OpConversionPattern;
  using OpAdaptor = typename SrcOp::Adaptor;

  LogicalResult
  matchAndRewrite(SrcOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    Value a = adaptor.getLhs();
    Value b = adaptor.getRhs();
    Value aIsNan = createFloatCompare(rewriter, loc, FloatCompare::Nan, a, a);
    Value bIsNan = createFloatCompare(rewriter, loc, FloatCompare::Nan, b, b);
    Value lhs = vm::SelectOp::create(rewriter, loc, type, aIsNan, b, a);
    Value rhs = vm::SelectOp::create(rewriter, loc, type, bIsNan, a, b);
    if (type.isF32()) {
      rewriter.replaceOpWithNewOp<OpF32>(op, type, lhs, rhs);
    } else {
      rewriter.replaceOpWithNewOp<OpF64>(op, type, lhs, rhs);
    }
    return success();
  }
};

/// arith.select on primitives (vm.select) or refs (vm.select.ref); the i1
/// condition is 0 or 1 already.
struct SelectOpConversion : OpConversionPattern<arith::SelectOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = adaptor.getTrueValue().getType();
    if (vm::isRefType(type)) {
      rewriter.replaceOpWithNewOp<vm::SelectRefOp>(
          op, type, adaptor.getCondition(), adaptor.getTrueValue(),
          adaptor.getFalseValue());
    } else {
      rewriter.replaceOpWithNewOp<vm::SelectOp>(
          op, type, adaptor.getCondition(), adaptor.getTrueValue(),
          adaptor.getFalseValue());
    }
    return success();
  }
};

/// extsi, extui, trunci, index_cast and index_castui: integer width changes.
template <typename SrcOp>
struct IntCastOpConversion : OpConversionPattern<SrcOp> {
  using OpAdaptor = typename SrcOp::Adaptor;

  IntCastOpConversion(const TypeConverter &typeConverter, MLIRContext *context,
                      bool isSigned)
      : OpConversionPattern<SrcOp>(typeConverter, context), isSigned(isSigned) {
  }

  LogicalResult
  matchAndRewrite(SrcOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned srcWidth = getIntegerWidth(op.getIn().getType());
    unsigned dstWidth = getIntegerWidth(op.getType());
    if (srcWidth == 0 || dstWidth == 0) {
      return rewriter.notifyMatchFailure(op, "not an integer cast");
    }
    rewriter.replaceOp(op, castInteger(rewriter, op.getLoc(), adaptor.getIn(),
                                       srcWidth, dstWidth, isSigned));
    return success();
  }

  bool isSigned;
};

/// sitofp/uitofp: narrow sources are extended to i32 first.
template <typename SrcOp>
struct IntToFloatOpConversion : OpConversionPattern<SrcOp> {
  using OpAdaptor = typename SrcOp::Adaptor;

  IntToFloatOpConversion(const TypeConverter &typeConverter,
                         MLIRContext *context, bool isSigned)
      : OpConversionPattern<SrcOp>(typeConverter, context), isSigned(isSigned) {
  }

  LogicalResult
  matchAndRewrite(SrcOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned width = getIntegerWidth(op.getIn().getType());
    Type type = op.getType();
    Value in = adaptor.getIn();
    if (width == 64) {
      if (type.isF32()) {
        return replace<vm::CastSI64F32Op, vm::CastUI64F32Op>(op, type, in,
                                                             rewriter);
      }
      return replace<vm::CastSI64F64Op, vm::CastUI64F64Op>(op, type, in,
                                                           rewriter);
    }
    in = extendOperand(rewriter, loc, in, width, isSigned);
    if (type.isF32()) {
      return replace<vm::CastSI32F32Op, vm::CastUI32F32Op>(op, type, in,
                                                           rewriter);
    }
    return replace<vm::CastSI32F64Op, vm::CastUI32F64Op>(op, type, in,
                                                         rewriter);
  }

  template <typename SignedOp, typename UnsignedOp>
  LogicalResult replace(SrcOp op, Type type, Value in,
                        ConversionPatternRewriter &rewriter) const {
    if (isSigned) {
      rewriter.replaceOpWithNewOp<SignedOp>(op, type, in);
    } else {
      rewriter.replaceOpWithNewOp<UnsignedOp>(op, type, in);
    }
    return success();
  }

  bool isSigned;
};

/// fptosi/fptoui: saturating vm casts to i32 or i64; an i1 result is masked.
template <typename SrcOp>
struct FloatToIntOpConversion : OpConversionPattern<SrcOp> {
  using OpAdaptor = typename SrcOp::Adaptor;

  FloatToIntOpConversion(const TypeConverter &typeConverter,
                         MLIRContext *context, bool isSigned)
      : OpConversionPattern<SrcOp>(typeConverter, context), isSigned(isSigned) {
  }

  LogicalResult
  matchAndRewrite(SrcOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned width = getIntegerWidth(op.getType());
    bool fromF32 = op.getIn().getType().isF32();
    Value in = adaptor.getIn();
    Type i32 = rewriter.getI32Type();
    Type i64 = rewriter.getI64Type();
    Value result;
    if (width == 64) {
      if (fromF32) {
        result = isSigned
                     ? Value(vm::CastF32SI64Op::create(rewriter, loc, i64, in))
                     : Value(vm::CastF32UI64Op::create(rewriter, loc, i64, in));
      } else {
        result = isSigned
                     ? Value(vm::CastF64SI64Op::create(rewriter, loc, i64, in))
                     : Value(vm::CastF64UI64Op::create(rewriter, loc, i64, in));
      }
    } else {
      if (fromF32) {
        result = isSigned
                     ? Value(vm::CastF32SI32Op::create(rewriter, loc, i32, in))
                     : Value(vm::CastF32UI32Op::create(rewriter, loc, i32, in));
      } else {
        result = isSigned
                     ? Value(vm::CastF64SI32Op::create(rewriter, loc, i32, in))
                     : Value(vm::CastF64UI32Op::create(rewriter, loc, i32, in));
      }
      if (width == 1) {
        result = maskToI1(rewriter, loc, result);
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  bool isSigned;
};

struct ExtFOpConversion : OpConversionPattern<arith::ExtFOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getIn().getType().isF32() || !op.getType().isF64()) {
      return rewriter.notifyMatchFailure(op, "not f32 -> f64");
    }
    rewriter.replaceOpWithNewOp<vm::ExtF32F64Op>(op, op.getType(),
                                                 adaptor.getIn());
    return success();
  }
};

struct TruncFOpConversion : OpConversionPattern<arith::TruncFOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getIn().getType().isF64() || !op.getType().isF32()) {
      return rewriter.notifyMatchFailure(op, "not f64 -> f32");
    }
    rewriter.replaceOpWithNewOp<vm::TruncF64F32Op>(op, op.getType(),
                                                   adaptor.getIn());
    return success();
  }
};

/// arith.bitcast between i32/f32 and i64/f64 (and same-register no-ops).
struct BitcastOpConversion : OpConversionPattern<arith::BitcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::BitcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type srcType = op.getIn().getType();
    Type dstType = op.getType();
    Value in = adaptor.getIn();
    if (srcType.isInteger(32) && dstType.isF32()) {
      rewriter.replaceOpWithNewOp<vm::BitcastI32F32Op>(op, dstType, in);
    } else if (srcType.isF32() && dstType.isInteger(32)) {
      rewriter.replaceOpWithNewOp<vm::BitcastF32I32Op>(op, dstType, in);
    } else if (srcType.isInteger(64) && dstType.isF64()) {
      rewriter.replaceOpWithNewOp<vm::BitcastI64F64Op>(op, dstType, in);
    } else if (srcType.isF64() && dstType.isInteger(64)) {
      rewriter.replaceOpWithNewOp<vm::BitcastF64I64Op>(op, dstType, in);
    } else if (srcType == dstType) {
      rewriter.replaceOp(op, in);
    } else {
      return rewriter.notifyMatchFailure(op, "unsupported bitcast");
    }
    return success();
  }
};

template <typename SrcOp, typename Op32, typename Op64>
using IntBinary = IntBinaryOpConversion<SrcOp, Op32, Op64>;

} // namespace

void mlir::strata::populateArithToVMPatterns(const TypeConverter &typeConverter,
                                             RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  constexpr Ext none = Ext::None;
  constexpr Ext sext = Ext::Signed;
  constexpr Ext zext = Ext::Unsigned;
  // Wrapping ops read only the low bits: no extension. Division, remainder,
  // min/max and right shifts read all bits; shift amounts are zero-extended.
  patterns.add<IntBinary<arith::AddIOp, vm::AddI32Op, vm::AddI64Op>>(
      typeConverter, context, none, none, /*maskI1=*/true);
  patterns.add<IntBinary<arith::SubIOp, vm::SubI32Op, vm::SubI64Op>>(
      typeConverter, context, none, none, /*maskI1=*/true);
  patterns.add<IntBinary<arith::MulIOp, vm::MulI32Op, vm::MulI64Op>>(
      typeConverter, context, none, none, /*maskI1=*/false);
  patterns.add<IntBinary<arith::DivSIOp, vm::DivSI32Op, vm::DivSI64Op>>(
      typeConverter, context, sext, sext, /*maskI1=*/true);
  patterns.add<IntBinary<arith::DivUIOp, vm::DivUI32Op, vm::DivUI64Op>>(
      typeConverter, context, zext, zext, /*maskI1=*/false);
  patterns.add<IntBinary<arith::RemSIOp, vm::RemSI32Op, vm::RemSI64Op>>(
      typeConverter, context, sext, sext, /*maskI1=*/true);
  patterns.add<IntBinary<arith::RemUIOp, vm::RemUI32Op, vm::RemUI64Op>>(
      typeConverter, context, zext, zext, /*maskI1=*/false);
  patterns.add<IntBinary<arith::AndIOp, vm::AndI32Op, vm::AndI64Op>>(
      typeConverter, context, none, none, /*maskI1=*/false);
  patterns.add<IntBinary<arith::OrIOp, vm::OrI32Op, vm::OrI64Op>>(
      typeConverter, context, none, none, /*maskI1=*/false);
  patterns.add<IntBinary<arith::XOrIOp, vm::XorI32Op, vm::XorI64Op>>(
      typeConverter, context, none, none, /*maskI1=*/false);
  patterns.add<IntBinary<arith::ShLIOp, vm::ShlI32Op, vm::ShlI64Op>>(
      typeConverter, context, none, zext, /*maskI1=*/true);
  patterns.add<IntBinary<arith::ShRSIOp, vm::ShrSI32Op, vm::ShrSI64Op>>(
      typeConverter, context, sext, zext, /*maskI1=*/true);
  patterns.add<IntBinary<arith::ShRUIOp, vm::ShrUI32Op, vm::ShrUI64Op>>(
      typeConverter, context, zext, zext, /*maskI1=*/false);
  patterns.add<IntBinary<arith::MinSIOp, vm::MinSI32Op, vm::MinSI64Op>>(
      typeConverter, context, sext, sext, /*maskI1=*/true);
  patterns.add<IntBinary<arith::MaxSIOp, vm::MaxSI32Op, vm::MaxSI64Op>>(
      typeConverter, context, sext, sext, /*maskI1=*/true);
  patterns.add<IntBinary<arith::MinUIOp, vm::MinUI32Op, vm::MinUI64Op>>(
      typeConverter, context, zext, zext, /*maskI1=*/false);
  patterns.add<IntBinary<arith::MaxUIOp, vm::MaxUI32Op, vm::MaxUI64Op>>(
      typeConverter, context, zext, zext, /*maskI1=*/false);

  patterns.add<FloatOpConversion<arith::AddFOp, vm::AddF32Op, vm::AddF64Op>,
               FloatOpConversion<arith::SubFOp, vm::SubF32Op, vm::SubF64Op>,
               FloatOpConversion<arith::MulFOp, vm::MulF32Op, vm::MulF64Op>,
               FloatOpConversion<arith::DivFOp, vm::DivF32Op, vm::DivF64Op>,
               FloatOpConversion<arith::RemFOp, vm::RemF32Op, vm::RemF64Op>,
               FloatOpConversion<arith::NegFOp, vm::NegF32Op, vm::NegF64Op>,
               FloatOpConversion<arith::MaximumFOp, vm::MaxF32Op, vm::MaxF64Op>,
               FloatOpConversion<arith::MinimumFOp, vm::MinF32Op, vm::MinF64Op>,
               NumFOpConversion<arith::MaxNumFOp, vm::MaxF32Op, vm::MaxF64Op>,
               NumFOpConversion<arith::MinNumFOp, vm::MinF32Op, vm::MinF64Op>,
               ConstantOpConversion, CmpIOpConversion, CmpFOpConversion,
               SelectOpConversion, ExtFOpConversion, TruncFOpConversion,
               BitcastOpConversion>(typeConverter, context);

  patterns.add<IntCastOpConversion<arith::ExtSIOp>,
               IntCastOpConversion<arith::IndexCastOp>,
               IntToFloatOpConversion<arith::SIToFPOp>,
               FloatToIntOpConversion<arith::FPToSIOp>>(typeConverter, context,
                                                        /*isSigned=*/true);
  patterns.add<IntCastOpConversion<arith::ExtUIOp>,
               IntCastOpConversion<arith::IndexCastUIOp>,
               IntToFloatOpConversion<arith::UIToFPOp>,
               FloatToIntOpConversion<arith::FPToUIOp>>(typeConverter, context,
                                                        /*isSigned=*/false);
  // Truncation keeps the low bits whatever the signedness.
  patterns.add<IntCastOpConversion<arith::TruncIOp>>(typeConverter, context,
                                                     /*isSigned=*/false);
}
