// CheckToVM.cpp - check ops as calls of the native `check` module. A failed
// check fails the call; the VM's backtrace names the check op's location
// (the call carries it into the debug database).

#include "CheckToVM/CheckToVM.h"

#include "Strata/Dialect/Check/IR/CheckOps.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::strata;

namespace {

// The check module's exports this conversion calls, with their signatures
// ('i' i32, 'r' a hal.buffer_view ref, 'f' f32).
constexpr llvm::StringLiteral kExpectTrue = "check.expect_true";
constexpr llvm::StringLiteral kExpectFalse = "check.expect_false";
constexpr llvm::StringLiteral kExpectEq = "check.expect_eq";
constexpr llvm::StringLiteral kExpectAlmostEq = "check.expect_almost_eq";
constexpr llvm::StringLiteral kExpectAlmostEqTol = "check.expect_almost_eq_tol";

struct ImportSpec {
  llvm::StringLiteral name;
  const char *inputs;
};

constexpr ImportSpec kImports[] = {
    {kExpectTrue, "i"},      {kExpectFalse, "i"},          {kExpectEq, "rr"},
    {kExpectAlmostEq, "rr"}, {kExpectAlmostEqTol, "rrff"},
};

/// The import an op calls.
StringRef importOf(Operation *op) {
  if (isa<check::ExpectTrueOp>(op)) {
    return kExpectTrue;
  }
  if (isa<check::ExpectFalseOp>(op)) {
    return kExpectFalse;
  }
  if (isa<check::ExpectEqOp>(op)) {
    return kExpectEq;
  }
  if (auto almost = dyn_cast<check::ExpectAlmostEqOp>(op)) {
    return almost.getAtol() || almost.getRtol() ? kExpectAlmostEqTol
                                                : kExpectAlmostEq;
  }
  return {};
}

void callImport(ConversionPatternRewriter &rewriter, Operation *op,
                ValueRange args) {
  vm::CallImportOp::create(
      rewriter, op->getLoc(), TypeRange(),
      FlatSymbolRefAttr::get(rewriter.getContext(), importOf(op)), args);
  rewriter.eraseOp(op);
}

/// Checks whose operands pass as they are (i32 or buffer views).
template <typename OpTy>
struct DirectCheckConversion : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    callImport(rewriter, op, adaptor.getOperands());
    return success();
  }
};

/// expect_almost_eq with tolerances given: they follow the views as f32
/// (-1 takes the runtime's default for the one not given).
struct AlmostEqConversion : OpConversionPattern<check::ExpectAlmostEqOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(check::ExpectAlmostEqOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> args = {adaptor.getLhs(), adaptor.getRhs()};
    if (op.getAtol() || op.getRtol()) {
      for (std::optional<APFloat> value : {op.getAtol(), op.getRtol()}) {
        float tolerance = value ? value->convertToFloat() : -1.0f;
        args.push_back(
            vm::ConstF32Op::create(rewriter, op.getLoc(), rewriter.getF32Type(),
                                   rewriter.getF32FloatAttr(tolerance)));
      }
    }
    callImport(rewriter, op, args);
    return success();
  }
};

} // namespace

void mlir::strata::materializeCheckImports(vm::ModuleOp vmModule) {
  llvm::StringSet<> used;
  vmModule.walk([&](Operation *op) {
    StringRef name = importOf(op);
    if (!name.empty()) {
      used.insert(name);
    }
  });
  if (used.empty()) {
    return;
  }
  MLIRContext *context = vmModule.getContext();
  OpBuilder builder(context);
  builder.setInsertionPointToStart(&vmModule.getBody().front());
  for (const ImportSpec &spec : kImports) {
    if (!used.contains(spec.name)) {
      continue;
    }
    SmallVector<Type> inputs;
    for (const char *c = spec.inputs; *c; ++c) {
      inputs.push_back(*c == 'i'   ? Type(builder.getI32Type())
                       : *c == 'f' ? Type(builder.getF32Type())
                                   : Type(vm::RefType::get(context, Type())));
    }
    vm::ImportOp::create(builder, vmModule.getLoc(),
                         builder.getStringAttr(spec.name),
                         TypeAttr::get(builder.getFunctionType(inputs, {})),
                         /*is_optional=*/UnitAttr(),
                         /*variadic_spans=*/DenseI32ArrayAttr(),
                         /*minimum_version=*/IntegerAttr());
  }
}

void mlir::strata::populateCheckToVMPatterns(const TypeConverter &typeConverter,
                                             RewritePatternSet &patterns) {
  patterns.add<DirectCheckConversion<check::ExpectTrueOp>,
               DirectCheckConversion<check::ExpectFalseOp>,
               DirectCheckConversion<check::ExpectEqOp>, AlmostEqConversion>(
      typeConverter, patterns.getContext());
}
