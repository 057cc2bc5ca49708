// CompileExecutables.cpp - --strata-compile-executables (Passes.td).

#include "Strata/Dialect/HAL/Transforms/Passes.h"

#include "Strata/Dialect/Flow/IR/FlowOps.h"
#include "Strata/Dialect/HAL/IR/HALOps.h"
#include "Strata/Target/TargetBackend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OwningOpRef.h"

#include <algorithm>

namespace mlir::strata::hal {
#define GEN_PASS_DEF_COMPILEEXECUTABLESPASS
#include "Strata/Dialect/HAL/Transforms/Passes.h.inc"
} // namespace mlir::strata::hal

using namespace mlir;
using namespace mlir::strata;

namespace {

/// A variant must have the first one's exports: the same names in the same
/// ordinals, each over the same grid (the host program dispatches them
/// without knowing which variant was loaded).
LogicalResult checkSameExports(Operation *at, StringRef firstCpu,
                               const TargetExecutable &first, StringRef cpu,
                               const TargetExecutable &other) {
  if (first.exports.size() != other.exports.size()) {
    return at->emitError("the kernel library for CPU '")
           << cpu << "' has " << other.exports.size()
           << " exports but the one for '" << firstCpu << "' has "
           << first.exports.size();
  }
  for (auto [ordinal, pair] :
       llvm::enumerate(llvm::zip_equal(first.exports, other.exports))) {
    auto &[a, b] = pair;
    if (a.name != b.name ||
        !std::equal(a.workgroupCount, a.workgroupCount + 3, b.workgroupCount)) {
      return at->emitError("export ")
             << ordinal << " of the kernel library for CPU '" << cpu << "' is '"
             << b.name << "' over [" << b.workgroupCount[0] << ", "
             << b.workgroupCount[1] << ", " << b.workgroupCount[2]
             << "] but for '" << firstCpu << "' it is '" << a.name << "' over ["
             << a.workgroupCount[0] << ", " << a.workgroupCount[1] << ", "
             << a.workgroupCount[2]
             << "]: the variants of a multi-ISA module must agree";
    }
  }
  return success();
}

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
    // One library per CPU, best first (a multi-ISA module has several).
    std::vector<std::string> cpus = expandTargetCpus(targetCpu);
    if (cpus.empty()) {
      executable.emitError("--target-cpu='")
          << targetCpu << "' names no CPU; give a CPU, 'host' or a "
          << "comma-separated list";
      return signalPassFailure();
    }
    SmallVector<TargetExecutable> compiled;
    for (const std::string &cpu : cpus) {
      TargetBackendOptions options;
      options.triple = targetTriple;
      options.cpu = cpu;
      // compile consumes its module: each CPU compiles a copy but the last.
      OwningOpRef<ModuleOp> copy;
      ModuleOp input = executable.getInnerModule();
      if (&cpu != &cpus.back()) {
        copy = input.clone();
        input = *copy;
      }
      FailureOr<TargetExecutable> library = backend->compile(input, options);
      if (failed(library)) {
        return signalPassFailure();
      }
      if (!compiled.empty() &&
          failed(checkSameExports(executable, cpus.front(), compiled.front(),
                                  cpu, *library))) {
        return signalPassFailure();
      }
      compiled.push_back(std::move(*library));
    }

    // The library replaces the executable module, under its name; each
    // export keeps its function's name.
    OpBuilder builder(executable);
    auto bytes = [](const TargetExecutable &library) {
      return StringRef(reinterpret_cast<const char *>(library.library.data()),
                       library.library.size());
    };
    auto library = hal::ExecutableOp::create(
        builder, executable.getLoc(), executable.getSymName(),
        compiled.front().format, bytes(compiled.front()));
    builder.setInsertionPointToStart(&library.getBody().front());
    for (size_t i = 1; i < compiled.size(); ++i) {
      hal::ExecutableVariantOp::create(builder, executable.getLoc(), cpus[i],
                                       compiled[i].format, bytes(compiled[i]));
    }
    for (auto [ordinal, info] : llvm::enumerate(compiled.front().exports)) {
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
