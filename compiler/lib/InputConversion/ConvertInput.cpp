// ConvertInput.cpp - --strata-convert-input: front-end dialects to linalg,
// tensor and arith, chosen by what the module holds (Passes.td).

#include "Strata/InputConversion/Passes.h"

#include "Strata/Dialect/Check/IR/CheckOps.h"
#include "Strata/Dialect/Util/IR/UtilOps.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToSCF/TosaToSCF.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/IR/Iterators.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::strata::input {
#define GEN_PASS_DEF_CONVERTINPUTPASS
#include "Strata/InputConversion/Passes.h.inc"
} // namespace mlir::strata::input

using namespace mlir;

namespace {

struct ConvertInputPass
    : mlir::strata::input::impl::ConvertInputPassBase<ConvertInputPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertInputPassBase::getDependentDialects(registry);
    OpPassManager pm(ModuleOp::getOperationName());
    buildTosaPipeline(pm);
    pm.getDependentDialects(registry);
  }

  static void buildTosaPipeline(OpPassManager &pm) {
    OpPassManager &funcPM = pm.nest<func::FuncOp>();
    funcPM.addPass(createTosaToSCFPass());
    // tosa.apply_scale (from tosa.mul with a shift, tosa.rescale) to arith,
    // in i64 where it needs the range.
    TosaToArithPassOptions arithOptions;
    arithOptions.includeApplyRescale = true;
    pm.addPass(createTosaToArithPass(arithOptions));
    // No tosa-validate: it wants operands such as tosa.table's table to be
    // constants, which IREE's programs compute (the lowering does not care).
    tosa::addTosaToLinalgPasses(pm, TosaToLinalgOptions(),
                                TosaToLinalgNamedOptions(),
                                /*validationOptions=*/std::nullopt);
    pm.addPass(createTosaToArithPass(arithOptions));
    pm.addPass(createTosaToTensorPass());
  }

  /// An immutable global with an initial value is that constant: its loads
  /// become it (and fold like any constant). A mutable tensor global's
  /// initial value is stored by a private initializer function, which the
  /// vm conversion calls from the module's initializer (tensors are made by
  /// dispatches or taken from rodata, at run time).
  static void lowerGlobals(ModuleOp module) {
    SymbolTable symbols(module);
    SmallVector<strata::util::GlobalLoadOp> loads;
    module.walk([&](strata::util::GlobalLoadOp op) { loads.push_back(op); });
    for (strata::util::GlobalLoadOp load : loads) {
      auto global = symbols.lookup<strata::util::GlobalOp>(load.getGlobal());
      if (!global || global.getIsMutable() || !global.getInitialValue()) {
        continue;
      }
      OpBuilder builder(load);
      Value constant = arith::ConstantOp::create(builder, load.getLoc(),
                                                 *global.getInitialValue());
      load.replaceAllUsesWith(constant);
      load.erase();
    }
    func::FuncOp init;
    for (auto global :
         llvm::make_early_inc_range(module.getOps<strata::util::GlobalOp>())) {
      if (!global.getIsMutable() && global.getInitialValue() &&
          SymbolTable::symbolKnownUseEmpty(global, module)) {
        global.erase();
        continue;
      }
      if (!global.getIsMutable() || !global.getInitialValue() ||
          !isa<TensorType>(global.getType())) {
        continue;
      }
      Location loc = global.getLoc();
      if (!init) {
        OpBuilder builder(module.getContext());
        builder.setInsertionPointToEnd(module.getBody());
        init = func::FuncOp::create(builder, loc,
                                    strata::util::kGlobalInitializerName,
                                    builder.getFunctionType({}, {}));
        init.setPrivate();
        builder.setInsertionPointToStart(init.addEntryBlock());
        func::ReturnOp::create(builder, loc);
      }
      OpBuilder builder(init.getBody().front().getTerminator());
      Value constant =
          arith::ConstantOp::create(builder, loc, *global.getInitialValue());
      strata::util::GlobalStoreOp::create(builder, loc, constant,
                                          global.getSymName());
      global.removeInitialValueAttr();
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // An unfoldable constant is a constant behind a barrier.
    module.walk([&](strata::util::UnfoldableConstantOp op) {
      OpBuilder builder(op);
      Value constant = arith::ConstantOp::create(builder, op.getLoc(),
                                                 op.getValue());
      auto barrier = strata::util::OptimizationBarrierOp::create(
          builder, op.getLoc(), TypeRange{op.getType()}, ValueRange{constant});
      op->replaceAllUsesWith(barrier.getResults());
      op.erase();
    });
    // A check against a constant compares with a tensor made from it.
    module.walk([&](strata::check::ExpectEqConstOp op) {
      OpBuilder builder(op);
      Value expected = arith::ConstantOp::create(
          builder, op.getLoc(), cast<TypedAttr>(op.getValue()));
      strata::check::ExpectEqOp::create(builder, op.getLoc(), op.getLhs(),
                                        expected);
      op.erase();
    });
    module.walk([&](strata::check::ExpectAlmostEqConstOp op) {
      OpBuilder builder(op);
      Value expected = arith::ConstantOp::create(
          builder, op.getLoc(), cast<TypedAttr>(op.getValue()));
      strata::check::ExpectAlmostEqOp::create(builder, op.getLoc(),
                                              op.getLhs(), expected,
                                              op.getAtolAttr(),
                                              op.getRtolAttr());
      op.erase();
    });
    lowerGlobals(module);
    auto isTosa = [](Operation *op) {
      return isa_and_nonnull<tosa::TosaDialect>(op->getDialect());
    };
    bool hasTosa = false;
    module.walk([&](Operation *op) {
      if (isTosa(op)) {
        hasTosa = true;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (!hasTosa) {
      return;
    }
    // Upstream's TOSA lowering needs ranked tensors and says only "failed
    // to legalize" without them: name the operand here.
    bool ranked = true;
    module.walk([&](Operation *op) {
      if (!isTosa(op)) {
        return;
      }
      for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                                op->getResultTypes())) {
        if (isa<UnrankedTensorType>(type)) {
          op->emitError("'") << op->getName() << "' on " << type
                             << ": unranked tensors are not supported; give "
                                "the function's arguments ranked types";
          ranked = false;
          return;
        }
      }
    });
    if (!ranked) {
      return signalPassFailure();
    }
    OpPassManager pm(ModuleOp::getOperationName());
    buildTosaPipeline(pm);
    if (failed(runPipeline(pm, module))) {
      return signalPassFailure();
    }
    // Shapes (tosa.const_shape) that the lowered ops read as attributes are
    // left without users.
    // Users come before producers in this order, so chains go too.
    SmallVector<Operation *> tosaOps;
    module.walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
      if (isTosa(op)) {
        tosaOps.push_back(op);
      }
    });
    for (Operation *op : tosaOps) {
      if (isOpTriviallyDead(op)) {
        op->erase();
      }
    }
    bool ok = true;
    module.walk([&](Operation *op) {
      if (isTosa(op)) {
        op->emitError("'") << op->getName() << "' has no lowering to linalg";
        ok = false;
      }
    });
    if (!ok) {
      signalPassFailure();
    }
  }
};

} // namespace
