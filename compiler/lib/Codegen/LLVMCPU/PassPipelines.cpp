//===- PassPipelines.cpp - running upstream passes by their textual names -===//
//
// The code generator strings upstream passes together by name, as mlir-opt
// would, so each step reads like the command line that reproduces it.
//
//===----------------------------------------------------------------------===//
#include "PassPipelines.h"

#include <mutex>

#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::strata::llvmcpu {

LogicalResult runPassPipeline(ModuleOp module, StringRef pipeline) {
  static std::once_flag registered;
  std::call_once(registered, [] { registerAllPasses(); });
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  std::string parseErrors;
  llvm::raw_string_ostream errorStream(parseErrors);
  if (failed(parsePassPipeline(pipeline, pm, errorStream))) {
    return module.emitError() << "llvm-cpu: bad internal pass pipeline '"
                              << pipeline << "': " << parseErrors;
  }
  // Honors --mlir-print-ir-after-all, --mlir-timing... when the tool
  // registered the pass manager's command-line options; it fails (quietly)
  // when none were registered, which is not an error here.
  (void)applyPassManagerCLOptions(pm);
  return pm.run(module);
}

} // namespace mlir::strata::llvmcpu
