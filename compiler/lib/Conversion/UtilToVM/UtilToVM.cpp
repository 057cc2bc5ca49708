// UtilToVM.cpp - util.global and its loads and stores as vm globals, and
// util.assert_eq as vm.cond_fail.ne.i64 (UtilToVM.h).

#include "UtilToVM/UtilToVM.h"

#include "ConvertToVM/IntegerRepresentation.h"
#include "HostTensorToVM/HostTensorToVM.h"

#include "Strata/Dialect/Util/IR/UtilOps.h"

using namespace mlir;
using namespace mlir::strata;

namespace {

/// The vm kind of a converted global type: i32, i64, f32, f64 or ref.
enum class Kind { I32, I64, F32, F64, Ref };

std::optional<Kind> kindOf(Type vmType) {
  if (vm::isRefType(vmType)) {
    return Kind::Ref;
  }
  if (vmType.isInteger(32)) {
    return Kind::I32;
  }
  if (vmType.isInteger(64)) {
    return Kind::I64;
  }
  if (vmType.isF32()) {
    return Kind::F32;
  }
  if (vmType.isF64()) {
    return Kind::F64;
  }
  return std::nullopt;
}

struct GlobalConversion : OpConversionPattern<util::GlobalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(util::GlobalOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type vmType = getTypeConverter()->convertType(op.getType());
    std::optional<Kind> kind = vmType ? kindOf(vmType) : std::nullopt;
    if (!kind) {
      return op.emitOpError("global of type ")
             << op.getType() << " has no vm global kind";
    }
    // A global that is never stored to is still written by the
    // initializer when it has an initial value; only util's view of it is
    // immutable, so every vm global here is mutable.
    UnitAttr isMutable = rewriter.getUnitAttr();
    StringAttr name = op.getSymNameAttr();
    Location loc = op.getLoc();
    std::optional<TypedAttr> value = op.getInitialValue();
    if (*kind == Kind::Ref) {
      if (value) {
        return op.emitOpError(
            "a tensor global's initial value should have been moved into "
            "the initializer by the input phase");
      }
      rewriter.replaceOpWithNewOp<vm::GlobalRefOp>(op, name, isMutable,
                                                   TypeAttr::get(vmType));
      return success();
    }
    auto intValue = [&](unsigned width) -> IntegerAttr {
      if (!value) {
        return {};
      }
      auto attr = dyn_cast<IntegerAttr>(*value);
      if (!attr) {
        return {};
      }
      // i1 is 0 or 1; narrower integers live sign-extended.
      APInt bits = attr.getValue();
      bits = attr.getType().isInteger(1) ? bits.zext(width)
                                         : bits.sextOrTrunc(width);
      return rewriter.getIntegerAttr(rewriter.getIntegerType(width), bits);
    };
    auto floatValue = [&]() -> FloatAttr {
      return value ? dyn_cast<FloatAttr>(*value) : FloatAttr();
    };
    if (value && !intValue(64) && !floatValue()) {
      return op.emitOpError("initial value ")
             << *value << " is not an integer or float";
    }
    switch (*kind) {
    case Kind::I32:
      rewriter.replaceOpWithNewOp<vm::GlobalI32Op>(op, name, isMutable,
                                                   intValue(32));
      break;
    case Kind::I64:
      rewriter.replaceOpWithNewOp<vm::GlobalI64Op>(op, name, isMutable,
                                                   intValue(64));
      break;
    case Kind::F32:
      rewriter.replaceOpWithNewOp<vm::GlobalF32Op>(op, name, isMutable,
                                                   floatValue());
      break;
    case Kind::F64:
      rewriter.replaceOpWithNewOp<vm::GlobalF64Op>(op, name, isMutable,
                                                   floatValue());
      break;
    case Kind::Ref:
      break;
    }
    (void)loc;
    return success();
  }
};

struct GlobalLoadConversion : OpConversionPattern<util::GlobalLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(util::GlobalLoadOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type vmType = getTypeConverter()->convertType(op.getType());
    std::optional<Kind> kind = vmType ? kindOf(vmType) : std::nullopt;
    if (!kind) {
      return failure();
    }
    FlatSymbolRefAttr global = op.getGlobalAttr();
    switch (*kind) {
    case Kind::I32:
      rewriter.replaceOpWithNewOp<vm::GlobalLoadI32Op>(op, vmType, global);
      break;
    case Kind::I64:
      rewriter.replaceOpWithNewOp<vm::GlobalLoadI64Op>(op, vmType, global);
      break;
    case Kind::F32:
      rewriter.replaceOpWithNewOp<vm::GlobalLoadF32Op>(op, vmType, global);
      break;
    case Kind::F64:
      rewriter.replaceOpWithNewOp<vm::GlobalLoadF64Op>(op, vmType, global);
      break;
    case Kind::Ref:
      rewriter.replaceOpWithNewOp<vm::GlobalLoadRefOp>(op, vmType, global);
      break;
    }
    return success();
  }
};

struct GlobalStoreConversion : OpConversionPattern<util::GlobalStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(util::GlobalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type vmType = getTypeConverter()->convertType(op.getValue().getType());
    std::optional<Kind> kind = vmType ? kindOf(vmType) : std::nullopt;
    if (!kind) {
      return failure();
    }
    Value value = adaptor.getValue();
    FlatSymbolRefAttr global = op.getGlobalAttr();
    switch (*kind) {
    case Kind::I32:
      rewriter.replaceOpWithNewOp<vm::GlobalStoreI32Op>(op, value, global);
      break;
    case Kind::I64:
      rewriter.replaceOpWithNewOp<vm::GlobalStoreI64Op>(op, value, global);
      break;
    case Kind::F32:
      rewriter.replaceOpWithNewOp<vm::GlobalStoreF32Op>(op, value, global);
      break;
    case Kind::F64:
      rewriter.replaceOpWithNewOp<vm::GlobalStoreF64Op>(op, value, global);
      break;
    case Kind::Ref:
      rewriter.replaceOpWithNewOp<vm::GlobalStoreRefOp>(op, value, global);
      break;
    }
    return success();
  }
};

/// util.assert_eq -> vm.cond_fail.ne.i64: the interpreter puts both values
/// into the message ({0}, {1}). Index operands are i64 in the vm.
struct AssertEqConversion : OpConversionPattern<util::AssertEqOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(util::AssertEqOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!adaptor.getLhs().getType().isInteger(64) ||
        !adaptor.getRhs().getType().isInteger(64)) {
      return rewriter.notifyMatchFailure(op, "operands are not i64");
    }
    // STRATA_STATUS_FAILED_PRECONDITION, as a failed cf.assert's.
    constexpr int32_t kFailedPrecondition = 9;
    Value status = vm_conversion::createI32Constant(rewriter, op.getLoc(),
                                                    kFailedPrecondition);
    rewriter.replaceOpWithNewOp<vm::CondFailNeI64Op>(
        op, adaptor.getLhs(), adaptor.getRhs(), status, op.getMessageAttr());
    return success();
  }
};

/// A list index or size (an index: i64 in the vm) as the i32 the vm.list
/// ops take.
Value listIndex(OpBuilder &b, Location loc, Value value) {
  return vm::TruncI64I32Op::create(b, loc, b.getI32Type(), value);
}

/// util.list.create -> vm.list.alloc.
struct ListCreateConversion : OpConversionPattern<util::ListCreateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(util::ListCreateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<vm::ListAllocOp>(
        op, vm::ListType::get(op.getContext()),
        listIndex(rewriter, op.getLoc(), adaptor.getCapacity()));
    return success();
  }
};

/// util.list.size -> vm.list.size, widened to an index (i64).
struct ListSizeConversion : OpConversionPattern<util::ListSizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(util::ListSizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value size = vm::ListSizeOp::create(
        rewriter, op.getLoc(), rewriter.getI32Type(), adaptor.getList());
    rewriter.replaceOpWithNewOp<vm::ExtI32I64UOp>(op, rewriter.getI64Type(),
                                                  size);
    return success();
  }
};

/// util.list.resize -> vm.list.resize.
struct ListResizeConversion : OpConversionPattern<util::ListResizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(util::ListResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<vm::ListResizeOp>(
        op, adaptor.getList(),
        listIndex(rewriter, op.getLoc(), adaptor.getSize()));
    return success();
  }
};

/// util.list.get -> vm.list.get.ref (an element is a buffer view or a
/// list).
struct ListGetConversion : OpConversionPattern<util::ListGetOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(util::ListGetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type || !vm::isRefType(type)) {
      return rewriter.notifyMatchFailure(op, "the element is not a ref");
    }
    auto get = rewriter.replaceOpWithNewOp<vm::ListGetRefOp>(
        op, type, adaptor.getList(),
        listIndex(rewriter, op.getLoc(), adaptor.getIndex()));
    // Checked once the module is converted (HostTensorToVM.cpp).
    if (auto tensor = dyn_cast<RankedTensorType>(op.getType())) {
      get->setAttr(kListElementTypeAttrName, TypeAttr::get(tensor));
    }
    return success();
  }
};

/// util.list.set -> vm.list.set.ref.
struct ListSetConversion : OpConversionPattern<util::ListSetOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(util::ListSetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!vm::isRefType(adaptor.getValue().getType())) {
      return rewriter.notifyMatchFailure(op, "the element is not a ref");
    }
    rewriter.replaceOpWithNewOp<vm::ListSetRefOp>(
        op, adaptor.getList(),
        listIndex(rewriter, op.getLoc(), adaptor.getIndex()),
        adaptor.getValue());
    return success();
  }
};

/// util.list.cast: the same vm.list.
struct ListCastConversion : OpConversionPattern<util::ListCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(util::ListCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSource());
    return success();
  }
};

} // namespace

void mlir::strata::populateUtilToVMPatterns(const TypeConverter &typeConverter,
                                            RewritePatternSet &patterns) {
  patterns.add<GlobalConversion, GlobalLoadConversion, GlobalStoreConversion,
               AssertEqConversion, ListCreateConversion, ListSizeConversion,
               ListResizeConversion, ListGetConversion, ListSetConversion,
               ListCastConversion>(typeConverter, patterns.getContext());
}

void mlir::strata::callGlobalInitializer(vm::ModuleOp vmModule) {
  vm::FuncOp init;
  for (auto func : vmModule.getBody().front().getOps<vm::FuncOp>()) {
    if (func.getSymName() == util::kGlobalInitializerName) {
      init = func;
    }
  }
  if (!init) {
    return;
  }
  OpBuilder builder = vm::getInitializerBuilder(vmModule);
  vm::CallOp::create(builder, init.getLoc(), TypeRange(),
                     FlatSymbolRefAttr::get(init.getSymNameAttr()),
                     ValueRange());
}
