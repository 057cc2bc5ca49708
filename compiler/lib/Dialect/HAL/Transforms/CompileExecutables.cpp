// CompileExecutables.cpp - --strata-compile-executables (Passes.td).

#include "Strata/Dialect/HAL/Transforms/Passes.h"

#include "Strata/Dialect/Flow/Transforms/Passes.h"
#include "Strata/Target/TargetBackend.h"

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
    SmallVector<ModuleOp> executables;
    for (auto nested : module.getOps<ModuleOp>()) {
      if (nested->hasAttr(flow::kExecutableAttr)) {
        executables.push_back(nested);
      }
    }
    if (executables.empty()) {
      return;
    }
    if (executables.size() > 1) {
      executables[1].emitError("a module has one executable so far");
      return signalPassFailure();
    }
    ModuleOp executable = executables.front();
    // A program whose tensors all stay on the host (it returns an argument
    // or a constant view) has nothing to compile: no kernel library.
    if (executable.getOps<func::FuncOp>().empty()) {
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
        backend->compile(executable, options);
    if (failed(compiled)) {
      return signalPassFailure();
    }

    Builder builder(&getContext());
    for (auto [ordinal, info] : llvm::enumerate(compiled->exports)) {
      auto decl = module.lookupSymbol<func::FuncOp>(info.name);
      if (!decl || !decl->hasAttr(flow::kDispatchAttr)) {
        continue; // an export no host function calls
      }
      decl->setAttr(
          flow::kDispatchAttr,
          builder.getDictionaryAttr({
              builder.getNamedAttr("ordinal",
                                   builder.getI32IntegerAttr(ordinal)),
              builder.getNamedAttr(
                  "workgroup_count",
                  builder.getDenseI32ArrayAttr(
                      {static_cast<int32_t>(info.workgroupCount[0]),
                       static_cast<int32_t>(info.workgroupCount[1]),
                       static_cast<int32_t>(info.workgroupCount[2])})),
          }));
    }
    module->setAttr(
        "strata.executable_library",
        builder.getDictionaryAttr({
            builder.getNamedAttr("format",
                                 builder.getStringAttr(compiled->format)),
            builder.getNamedAttr(
                "library",
                builder.getStringAttr(StringRef(
                    reinterpret_cast<const char *>(compiled->library.data()),
                    compiled->library.size()))),
        }));
    executable.erase();
  }
};

} // namespace
