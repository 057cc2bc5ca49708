// FuncToVM.cpp - patterns lowering func (functions, calls, returns) and cf
// (branches, switches, asserts) to vm structure and control flow ops.

#include "FuncToVM/FuncToVM.h"

#include "ConvertToVM/IntegerRepresentation.h"

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::vm_conversion;

namespace {

/// Status code of a failed cf.assert: STRATA_STATUS_FAILED_PRECONDITION.
constexpr int32_t kAssertStatusCode = 9;

/// func.func with a body -> vm.func (+ vm.export when public);
/// a declaration -> vm.import (the pass has checked its `module.function`
/// name).
struct FuncOpConversion : OpConversionPattern<func::FuncOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(func::FuncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FunctionType type = op.getFunctionType();
    TypeConverter::SignatureConversion signature(type.getNumInputs());
    for (auto [index, input] : llvm::enumerate(type.getInputs())) {
      if (failed(getTypeConverter()->convertSignatureArg(index, input,
                                                         signature))) {
        return rewriter.notifyMatchFailure(op, "argument type not supported");
      }
    }
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertTypes(type.getResults(), results))) {
      return rewriter.notifyMatchFailure(op, "result type not supported");
    }
    auto vmType = FunctionType::get(op.getContext(),
                                    signature.getConvertedTypes(), results);

    if (op.isDeclaration()) {
      rewriter.replaceOpWithNewOp<vm::ImportOp>(
          op, rewriter.getStringAttr(op.getSymName()), TypeAttr::get(vmType),
          /*is_optional=*/UnitAttr(), /*variadic_spans=*/DenseI32ArrayAttr(),
          /*minimum_version=*/IntegerAttr());
      return success();
    }

    auto funcOp = vm::FuncOp::create(rewriter, op.getLoc(), op.getSymName(),
                                     vmType, /*arg_attrs=*/ArrayAttr(),
                                     /*res_attrs=*/ArrayAttr());
    rewriter.inlineRegionBefore(op.getBody(), funcOp.getBody(),
                                funcOp.getBody().end());
    if (failed(rewriter.convertRegionTypes(&funcOp.getBody(),
                                           *getTypeConverter(), &signature))) {
      return rewriter.notifyMatchFailure(op, "block argument not supported");
    }
    if (op.isPublic()) {
      // Exported i1 arguments arrive from callers as whole i32 registers,
      // while an i1 in a register is 0 or 1 by invariant:
      // normalizeExportedArguments masks them. (i8 and i16 registers have
      // unspecified high bits anyway, extended before each use that reads
      // them.)
      SmallVector<int32_t> widths;
      bool narrow = false;
      for (Type input : type.getInputs()) {
        widths.push_back(getIntegerWidth(input) == 1 ? 1 : 0);
        narrow |= widths.back() != 0;
      }
      if (narrow) {
        funcOp->setAttr(kNarrowArgumentsAttr,
                        rewriter.getDenseI32ArrayAttr(widths));
      }
      // i8/i16 results leave sign-extended, with their high bits defined.
      widths.clear();
      narrow = false;
      for (Type result : type.getResults()) {
        unsigned width = getIntegerWidth(result);
        widths.push_back(width == 8 || width == 16 ? width : 0);
        narrow |= widths.back() != 0;
      }
      if (narrow) {
        funcOp->setAttr(kNarrowResultsAttr,
                        rewriter.getDenseI32ArrayAttr(widths));
      }
      vm::ExportOp::create(rewriter, op.getLoc(),
                           FlatSymbolRefAttr::get(funcOp.getSymNameAttr()),
                           /*export_name=*/StringAttr(),
                           /*reflection=*/DictionaryAttr());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// func.call -> vm.call.import for a declared (imported) callee, else vm.call.
struct CallOpConversion : OpConversionPattern<func::CallOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(func::CallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> results;
    if (failed(
            getTypeConverter()->convertTypes(op.getResultTypes(), results))) {
      return rewriter.notifyMatchFailure(op, "result type not supported");
    }
    // The callee is either still a func.func or already its vm replacement.
    Operation *callee =
        SymbolTable::lookupNearestSymbolFrom(op, op.getCalleeAttr());
    bool isImport = isa_and_nonnull<vm::ImportOp>(callee);
    if (auto funcOp = dyn_cast_or_null<func::FuncOp>(callee)) {
      isImport = funcOp.isDeclaration();
    }
    if (isImport) {
      rewriter.replaceOpWithNewOp<vm::CallImportOp>(
          op, results, op.getCalleeAttr(), adaptor.getOperands());
    } else {
      rewriter.replaceOpWithNewOp<vm::CallOp>(op, results, op.getCalleeAttr(),
                                              adaptor.getOperands());
    }
    return success();
  }
};

struct ReturnOpConversion : OpConversionPattern<func::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(func::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<vm::ReturnOp>(op, adaptor.getOperands());
    return success();
  }
};

/// Returns `block` with its arguments converted to `expectedTypes` (the
/// converted types of the branch operands that flow into it).
FailureOr<Block *> getConvertedBlock(ConversionPatternRewriter &rewriter,
                                     const TypeConverter *converter,
                                     Operation *branchOp, Block *block,
                                     TypeRange expectedTypes) {
  if (block->getArgumentTypes() == expectedTypes) {
    return block;
  }
  std::optional<TypeConverter::SignatureConversion> conversion =
      converter->convertBlockSignature(block);
  if (!conversion) {
    return rewriter.notifyMatchFailure(branchOp,
                                       "block argument not supported");
  }
  if (expectedTypes != conversion->getConvertedTypes()) {
    return rewriter.notifyMatchFailure(
        branchOp, "block arguments do not match the branch operands");
  }
  return rewriter.applySignatureConversion(block, *conversion, converter);
}

struct BranchOpConversion : OpConversionPattern<cf::BranchOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(cf::BranchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Block *> dest =
        getConvertedBlock(rewriter, getTypeConverter(), op, op.getDest(),
                          TypeRange(adaptor.getDestOperands()));
    if (failed(dest)) {
      return failure();
    }
    rewriter.replaceOpWithNewOp<vm::BrOp>(op, adaptor.getDestOperands(), *dest);
    return success();
  }
};

/// cf.cond_br -> vm.cond_br; the i1 condition is 0 or 1 already.
struct CondBranchOpConversion : OpConversionPattern<cf::CondBranchOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(cf::CondBranchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Block *> trueDest =
        getConvertedBlock(rewriter, getTypeConverter(), op, op.getTrueDest(),
                          TypeRange(adaptor.getTrueDestOperands()));
    if (failed(trueDest)) {
      return failure();
    }
    FailureOr<Block *> falseDest =
        getConvertedBlock(rewriter, getTypeConverter(), op, op.getFalseDest(),
                          TypeRange(adaptor.getFalseDestOperands()));
    if (failed(falseDest)) {
      return failure();
    }
    rewriter.replaceOpWithNewOp<vm::CondBrOp>(
        op, adaptor.getCondition(), adaptor.getTrueDestOperands(),
        adaptor.getFalseDestOperands(), *trueDest, *falseDest);
    return success();
  }
};

/// cf.switch -> vm.br_table when the cases are 0..n-1 of a flag of at most 32
/// bits; otherwise a chain of vm.cmp.eq + vm.cond_br, one block per case,
/// then vm.br to the default destination.
struct SwitchOpConversion : OpConversionPattern<cf::SwitchOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(cf::SwitchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned width = getIntegerWidth(op.getFlag().getType());
    FailureOr<Block *> defaultDest = getConvertedBlock(
        rewriter, getTypeConverter(), op, op.getDefaultDestination(),
        TypeRange(adaptor.getDefaultOperands()));
    if (failed(defaultDest)) {
      return failure();
    }
    SmallVector<Block *> caseDests;
    for (auto [index, dest] : llvm::enumerate(op.getCaseDestinations())) {
      FailureOr<Block *> converted =
          getConvertedBlock(rewriter, getTypeConverter(), op, dest,
                            TypeRange(adaptor.getCaseOperands()[index]));
      if (failed(converted)) {
        return failure();
      }
      caseDests.push_back(*converted);
    }

    // Compare all bits of the flag: narrow flags are zero-extended, and so
    // are the case values.
    Value flag = extendOperand(rewriter, loc, adaptor.getFlag(), width,
                               /*isSigned=*/false);
    SmallVector<APInt> caseValues;
    if (auto values = op.getCaseValues()) {
      caseValues = llvm::to_vector(values->getValues<APInt>());
    }
    // Cases 0, 1, ..., n - 1 (in any order) of a flag that fits an i32
    // register are one vm.br_table.
    if (width <= 32 && !caseValues.empty()) {
      SmallVector<int64_t> caseAt(caseValues.size(), -1);
      bool dense = true;
      for (auto [index, caseValue] : llvm::enumerate(caseValues)) {
        uint64_t value = caseValue.getZExtValue();
        if (value >= caseAt.size() || caseAt[value] != -1) {
          dense = false;
          break;
        }
        caseAt[value] = static_cast<int64_t>(index);
      }
      if (dense) {
        SmallVector<ValueRange> tableOperands;
        SmallVector<Block *> tableDests;
        for (int64_t index : caseAt) {
          tableOperands.push_back(adaptor.getCaseOperands()[index]);
          tableDests.push_back(caseDests[index]);
        }
        rewriter.replaceOpWithNewOp<vm::BrTableOp>(
            op, flag, adaptor.getDefaultOperands(), tableOperands, *defaultDest,
            tableDests);
        return success();
      }
    }

    Block *current = op->getBlock();
    Region *region = current->getParent();
    for (auto [index, caseValue] : llvm::enumerate(caseValues)) {
      Value matches;
      if (width == 64) {
        Value constant =
            createI64Constant(rewriter, loc, caseValue.getSExtValue());
        matches = vm::CmpEqI64Op::create(rewriter, loc, rewriter.getI32Type(),
                                         flag, constant);
      } else {
        Value constant = createI32Constant(
            rewriter, loc, static_cast<int32_t>(caseValue.getZExtValue()));
        matches = vm::CmpEqI32Op::create(rewriter, loc, rewriter.getI32Type(),
                                         flag, constant);
      }
      Block *next =
          rewriter.createBlock(region, std::next(Region::iterator(current)));
      rewriter.setInsertionPointToEnd(current);
      vm::CondBrOp::create(rewriter, loc, matches,
                           adaptor.getCaseOperands()[index], ValueRange(),
                           caseDests[index], next);
      current = next;
      rewriter.setInsertionPointToEnd(current);
    }
    vm::BrOp::create(rewriter, loc, adaptor.getDefaultOperands(), *defaultDest);
    rewriter.eraseOp(op);
    return success();
  }
};

/// cf.assert -> vm.cond_fail on the negated condition.
struct AssertOpConversion : OpConversionPattern<cf::AssertOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(cf::AssertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Value one = createI32Constant(rewriter, loc, 1);
    Value failed =
        vm::XorI32Op::create(rewriter, loc, i32, adaptor.getArg(), one);
    Value status = createI32Constant(rewriter, loc, kAssertStatusCode);
    rewriter.replaceOpWithNewOp<vm::CondFailOp>(op, failed, status,
                                                op.getMsgAttr());
    return success();
  }
};

} // namespace

void mlir::strata::populateFuncToVMPatterns(const TypeConverter &typeConverter,
                                            RewritePatternSet &patterns) {
  patterns.add<FuncOpConversion, CallOpConversion, ReturnOpConversion,
               BranchOpConversion, CondBranchOpConversion, SwitchOpConversion,
               AssertOpConversion>(typeConverter, patterns.getContext());
}

void mlir::strata::normalizeExportBoundaries(Operation *vmModule) {
  vmModule->walk([](vm::FuncOp func) {
    if (auto widths =
            func->getAttrOfType<DenseI32ArrayAttr>(kNarrowResultsAttr)) {
      func->removeAttr(kNarrowResultsAttr);
      func.walk([&](vm::ReturnOp ret) {
        OpBuilder builder(ret);
        for (auto [index, width] : llvm::enumerate(widths.asArrayRef())) {
          if (width && index < ret->getNumOperands()) {
            ret->setOperand(index, extendToI32(builder, ret.getLoc(),
                                               ret->getOperand(index), width,
                                               /*isSigned=*/true));
          }
        }
      });
    }
    auto widths = func->getAttrOfType<DenseI32ArrayAttr>(kNarrowArgumentsAttr);
    if (!widths) {
      return;
    }
    func->removeAttr(kNarrowArgumentsAttr);
    if (func.getBody().empty()) {
      return;
    }
    Block &entry = func.getBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&entry);
    for (auto [index, width] : llvm::enumerate(widths.asArrayRef())) {
      if (!width || index >= entry.getNumArguments()) {
        continue;
      }
      BlockArgument argument = entry.getArgument(index);
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : argument.getUses()) {
        uses.push_back(&use);
      }
      if (uses.empty()) {
        continue;
      }
      Value canonical =
          width == 1 ? maskToI1(builder, func.getLoc(), argument)
                     : extendToI32(builder, func.getLoc(), argument, width,
                                   /*isSigned=*/true);
      for (OpOperand *use : uses) {
        use->set(canonical);
      }
    }
  });
}
