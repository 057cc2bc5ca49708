// ConvertToVMPass.cpp - --strata-convert-to-vm: lowers scf to cf, expands
// the ops with no vm counterpart, checks that everything left has a
// conversion, then converts the module's functions into one vm.module.

#include "ArithToVM/ArithToVM.h"
#include "CheckToVM/CheckToVM.h"
#include "ConvertToVM/VMTypeConverter.h"
#include "FuncToVM/FuncToVM.h"
#include "HostTensorToVM/HostTensorToVM.h"
#include "MathToVM/MathToVM.h"
#include "UtilToVM/UtilToVM.h"
// The hal dialect's patterns (Dialect/HAL/Conversion/HALToVM).
#include "HALToVM.h"

#include "Strata/Conversion/Passes.h"
#include "Strata/Dialect/Flow/IR/FlowOps.h"
#include "Strata/Dialect/HAL/IR/HALOps.h"
#include "Strata/Dialect/Stream/IR/StreamOps.h"
#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::strata {
#define GEN_PASS_DEF_CONVERTTOVMPASS
#include "Strata/Conversion/Passes.h.inc"
} // namespace mlir::strata

using namespace mlir;
using namespace mlir::strata;

namespace {

/// The ops that some pattern of `patterns` is rooted at.
DenseSet<OperationName> getRootOps(RewritePatternSet &patterns) {
  DenseSet<OperationName> roots;
  for (const std::unique_ptr<RewritePattern> &pattern :
       patterns.getNativePatterns()) {
    if (std::optional<OperationName> root = pattern->getRootKind()) {
      roots.insert(*root);
    }
  }
  return roots;
}

/// Reports `type` at `loc` unless it has a vm register type.
bool checkType(const TypeConverter &typeConverter, Type type, Location loc) {
  if (typeConverter.convertType(type)) {
    return true;
  }
  emitError(loc) << "unsupported type " << type << " in conversion to vm";
  return false;
}

bool checkTypes(const TypeConverter &typeConverter, TypeRange types,
                Location loc) {
  for (Type type : types) {
    if (!checkType(typeConverter, type, loc)) {
      return false;
    }
  }
  return true;
}

/// checkTypes for a function's signature, where a tensor must be ranked:
/// a buffer view argument or result is checked against its type. (A
/// tensor of unknown rank exists only as an element moved between lists.)
bool checkSignatureTypes(const TypeConverter &typeConverter, TypeRange types,
                         Location loc) {
  for (Type type : types) {
    if (isa<UnrankedTensorType>(type)) {
      emitError(loc) << "unsupported type " << type << " in conversion to vm";
      return false;
    }
  }
  return checkTypes(typeConverter, types, loc);
}

/// Reports every op that nothing converts, every declaration that cannot be
/// an import, and every value whose type has no vm counterpart. A value is
/// reported once, where it is defined: at the op for results and function
/// signatures, at the block argument otherwise; an op without a conversion is
/// reported as such, not for its types. Runs before scf is lowered and ops are
/// expanded, so that each error names the op the user wrote.
LogicalResult checkInput(ModuleOp module, const TypeConverter &typeConverter,
                         const DenseSet<OperationName> &convertible) {
  bool ok = true;
  module.walk<WalkOrder::PreOrder>(
      [&](Operation *op) {
        if (op == module.getOperation()) {
          return WalkResult::advance();
        }
        if (isa_and_nonnull<vm::VMDialect>(op->getDialect())) {
          return WalkResult::skip();
        }
        if (!convertible.contains(op->getName())) {
          op->emitError() << "'" << op->getName()
                          << "' has no conversion to vm";
          ok = false;
          return WalkResult::advance();
        }
        // An executable's exports are converted with it.
        if (isa<hal::ExecutableOp>(op)) {
          return WalkResult::skip();
        }
        // vm.trunc.f64.f32 rounds to nearest even only.
        if (auto truncOp = dyn_cast<arith::TruncFOp>(op)) {
          std::optional<arith::RoundingMode> mode = truncOp.getRoundingmode();
          if (mode && *mode != arith::RoundingMode::to_nearest_even) {
            truncOp.emitError() << "'arith.truncf' with rounding mode '"
                                << arith::stringifyRoundingMode(*mode)
                                << "' has no conversion to vm";
            ok = false;
          }
        }
        bool skipEntryArgs = false;
        if (auto funcOp = dyn_cast<func::FuncOp>(op)) {
          if (funcOp.isDeclaration() && !funcOp.getSymName().contains('.')) {
            funcOp.emitError()
                << "declaration '@" << funcOp.getSymName()
                << "' must be named `module.function` to become a vm.import "
                   "(functions without a body are imported from another module "
                   "by that name)";
            ok = false;
          }
          FunctionType type = funcOp.getFunctionType();
          ok &= checkSignatureTypes(typeConverter, type.getInputs(),
                                    op->getLoc()) &&
                checkSignatureTypes(typeConverter, type.getResults(),
                                    op->getLoc());
          skipEntryArgs = true;
        } else {
          ok &= checkTypes(typeConverter, op->getResultTypes(), op->getLoc());
        }
        for (Region &region : op->getRegions()) {
          for (Block &block : region) {
            if (skipEntryArgs && block.isEntryBlock()) {
              continue;
            }
            for (BlockArgument arg : block.getArguments()) {
              ok &= checkType(typeConverter, arg.getType(), arg.getLoc());
            }
          }
        }
        return WalkResult::advance();
      });
  return success(ok);
}

/// Reports every op left without a conversion after scf lowering and the
/// expansions (none is expected: checkInput has vetted their inputs).
LogicalResult checkOps(ModuleOp module,
                       const DenseSet<OperationName> &convertible) {
  bool ok = true;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == module.getOperation()) {
      return WalkResult::advance();
    }
    if (isa_and_nonnull<vm::VMDialect>(op->getDialect())) {
      return WalkResult::skip();
    }
    if (!convertible.contains(op->getName())) {
      op->emitError() << "'" << op->getName() << "' has no conversion to vm";
      ok = false;
    }
    if (isa<hal::ExecutableOp>(op)) {
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  return success(ok);
}

/// Runs `patterns` greedily on the ops they are rooted at (and on what they
/// create), without folding or touching other ops.
LogicalResult applyExpansions(ModuleOp module, RewritePatternSet &&patterns) {
  DenseSet<OperationName> roots = getRootOps(patterns);
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (roots.contains(op->getName())) {
      ops.push_back(op);
    }
  });
  if (ops.empty()) {
    return success();
  }
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  config.enableFolding(false);
  config.enableConstantCSE(false);
  return applyOpPatternsGreedily(
      ops, FrozenRewritePatternSet(std::move(patterns)), config);
}

struct ConvertToVMPass
    : mlir::strata::impl::ConvertToVMPassBase<ConvertToVMPass> {
  using ConvertToVMPassBase::ConvertToVMPassBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();

    RewritePatternSet scfPatterns(context);
    populateSCFToControlFlowConversionPatterns(scfPatterns);
    RewritePatternSet expansionPatterns(context);
    populateArithToVMExpansionPatterns(expansionPatterns);
    populateMathToVMExpansionPatterns(expansionPatterns);
    // What the hal phase left: executables and the hal ops that dispatch
    // them.
    for (auto executable : module.getOps<flow::ExecutableOp>()) {
      executable.emitError("executable '")
          << executable.getSymName()
          << "' was not compiled; the hal phase must run before the vm "
             "conversion";
      return signalPassFailure();
    }
    WalkResult unlowered = module.walk([](Operation *op) {
      if (!isa_and_nonnull<stream::StreamDialect>(op->getDialect())) {
        return WalkResult::advance();
      }
      op->emitError("'") << op->getName()
                         << "' was not lowered; the hal phase "
                            "(--strata-convert-stream-to-hal) "
                            "must run before the vm conversion";
      return WalkResult::interrupt();
    });
    if (unlowered.wasInterrupted()) {
      return signalPassFailure();
    }
    HostTensorState hostState;
    if (failed(collectHostTensorState(module, hostState))) {
      return signalPassFailure();
    }

    VMTypeConverter typeConverter;
    RewritePatternSet patterns(context);
    HALToVMState halState;
    populateHALToVMPatterns(typeConverter, patterns, halState);
    populateHostTensorToVMPatterns(typeConverter, patterns);
    populateFuncToVMPatterns(typeConverter, patterns);
    populateArithToVMPatterns(typeConverter, patterns);
    populateIndexToVMPatterns(typeConverter, patterns);
    populateMathToVMPatterns(typeConverter, patterns);
    populateCheckToVMPatterns(typeConverter, patterns);
    populateUtilToVMPatterns(typeConverter, patterns);
    DenseSet<OperationName> convertible = getRootOps(patterns);
    // hal.executable is translated before the conversion.
    convertible.insert(
        OperationName(hal::ExecutableOp::getOperationName(), context));

    // Before anything changes, check that every op has a way to the vm
    // dialect: a conversion, an expansion, or the scf lowering (whose
    // patterns consume the scf terminators too).
    {
      DenseSet<OperationName> reachable = convertible;
      for (RewritePatternSet *set : {&scfPatterns, &expansionPatterns}) {
        DenseSet<OperationName> roots = getRootOps(*set);
        reachable.insert(roots.begin(), roots.end());
      }
      for (StringRef name : {"scf.yield", "scf.condition", "scf.reduce",
                             "scf.reduce.return", "scf.forall.in_parallel"}) {
        reachable.insert(OperationName(name, context));
      }
      if (failed(checkInput(module, typeConverter, reachable))) {
        return signalPassFailure();
      }
    }

    // scf -> cf, as upstream's --convert-scf-to-cf does it.
    {
      ConversionTarget target(*context);
      target.addIllegalOp<scf::ForallOp, scf::ForOp, scf::IfOp,
                          scf::IndexSwitchOp, scf::ParallelOp, scf::WhileOp,
                          scf::ExecuteRegionOp>();
      target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
      if (failed(
              applyPartialConversion(module, target, std::move(scfPatterns)))) {
        return signalPassFailure();
      }
    }

    if (failed(applyExpansions(module, std::move(expansionPatterns)))) {
      module.emitError("expanding ops for the vm conversion did not converge");
      return signalPassFailure();
    }

    if (failed(checkOps(module, convertible))) {
      return signalPassFailure();
    }

    // Everything but existing vm.modules moves into one new vm.module; a
    // module that holds only vm.modules is left as it is.
    SmallVector<Operation *> toMove;
    bool hasVMModule = false;
    for (Operation &op : *module.getBody()) {
      if (isa<vm::ModuleOp>(op)) {
        hasVMModule = true;
      } else {
        toMove.push_back(&op);
      }
    }
    if (toMove.empty() && hasVMModule) {
      return;
    }
    OpBuilder builder(context);
    builder.setInsertionPointToEnd(module.getBody());
    auto vmModule = vm::ModuleOp::create(
        builder, module.getLoc(), module.getSymName().value_or("module"));
    Block *body = builder.createBlock(&vmModule.getBody());
    for (Operation *op : toMove) {
      op->moveBefore(body, body->end());
    }
    prepareHALToVM(vmModule, halState);
    materializeCheckImports(vmModule);

    // No folding: this is a one-to-one translation; --canonicalize folds.
    ConversionConfig config;
    config.foldingMode = DialectConversionFoldingMode::Never;
    ConversionTarget target(*context);
    target.addLegalDialect<vm::VMDialect>();
    target.addLegalOp<ModuleOp>();
    if (failed(
            applyFullConversion(module, target, std::move(patterns), config))) {
      return signalPassFailure();
    }
    normalizeExportBoundaries(vmModule);
    finalizeHostTensorSupport(vmModule, hostState);
    declareHALImports(vmModule);
    callGlobalInitializer(vmModule);
  }
};

} // namespace
