// CompileExecutables.cpp - --strata-compile-executables (Passes.td).

#include "Strata/Dialect/HAL/Transforms/Passes.h"

#include "Strata/Dialect/Flow/IR/FlowOps.h"
#include "Strata/Dialect/HAL/IR/HALOps.h"
#include "Strata/Target/TargetBackend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::strata::hal {
#define GEN_PASS_DEF_COMPILEEXECUTABLESPASS
#include "Strata/Dialect/HAL/Transforms/Passes.h.inc"
} // namespace mlir::strata::hal

using namespace mlir;
using namespace mlir::strata;

namespace {

struct CompileExecutablesPass
    : mlir::strata::hal::impl::CompileExecutablesPassBase<
          CompileExecutablesPass> {
  using CompileExecutablesPassBase::CompileExecutablesPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<flow::ExecutableOp> executables(
        module.getOps<flow::ExecutableOp>());
    if (executables.empty()) {
      return;
    }
    if (executables.size() > 1) {
      executables[1].emitError("a module has one executable so far");
      return signalPassFailure();
    }
    flow::ExecutableOp executable = executables.front();
    // A program whose tensors all stay on the host (it returns an argument
    // or a constant view) has nothing to compile: no kernel library.
    if (executable.getInnerModule().getOps<mlir::func::FuncOp>().empty()) {
      executable.erase();
      return;
    }
    const TargetBackend *backend = lookupTargetBackend(target);
    if (!backend) {
      executable.emitError("no target '")
          << target << "' in this build; it has: " << getTargetBackendNames();
      return signalPassFailure();
    }
    TargetBackendOptions options;
    options.triple = targetTriple;
    options.cpu = targetCpu;
    FailureOr<TargetExecutable> compiled =
        backend->compile(executable.getInnerModule(), options);
    if (failed(compiled)) {
      return signalPassFailure();
    }

    // The library replaces the executable module, under its name; each
    // export keeps its function's name.
    OpBuilder builder(executable);
    auto library = hal::ExecutableOp::create(
        builder, executable.getLoc(), executable.getSymName(), compiled->format,
        StringRef(reinterpret_cast<const char *>(compiled->library.data()),
                  compiled->library.size()));
    builder.setInsertionPointToStart(&library.getBody().front());
    for (auto [ordinal, info] : llvm::enumerate(compiled->exports)) {
      hal::ExecutableExportOp::create(
          builder, executable.getLoc(), info.name,
          static_cast<int32_t>(ordinal),
          ArrayRef<int32_t>{static_cast<int32_t>(info.workgroupCount[0]),
                            static_cast<int32_t>(info.workgroupCount[1]),
                            static_cast<int32_t>(info.workgroupCount[2])});
    }
    executable.erase();
  }
};

} // namespace
