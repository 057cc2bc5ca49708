// onnx_fuzzer.cpp - libFuzzer target for the ONNX importer and the ONNX
// lowering: the bytes are a .onnx model, imported (onnx::importModel), its
// tensor sizes checked (input::checkTensorByteSizes) and lowered
// (--strata-lower-onnx, with the verifier after it), as strata-compile's
// input phase begins. A model that is refused must be refused with an
// error diagnostic that says something; nothing may crash, leak or hang.
//
// What inputs share: one MLIRContext, because making a context and
// loading its dialects (linalg's above all) took most of each execution.
// The dialects are loaded as strata-compile loads them, by the importer and
// by the pass's dependent dialects, once per context rather than once per
// input. Every input gets its own module, diagnostic handler and pass
// manager; what else outlives an input is only the context's uniqued
// types, attributes and names, which are immutable, so one input cannot
// change what the next one does. The context is replaced after
// kInputsPerContext inputs, or sooner when the memory held between inputs
// has grown by kMaxRetainedBytes (a folded constant may hold a million
// values), so it never approaches -rss_limit_mb.
#include <sanitizer/allocator_interface.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "Strata/Dialect/Check/IR/CheckOps.h"
#include "Strata/Dialect/ONNX/IR/ONNXOps.h"
#include "Strata/Dialect/Util/IR/UtilOps.h"
#include "Strata/InputConversion/ONNX/Importer.h"
#include "Strata/InputConversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::strata;

namespace {

constexpr int kInputsPerContext = 1000;
constexpr size_t kMaxRetainedBytes = size_t{256} << 20;

/// The context inputs share, and how much it has been used.
struct SharedContext {
  std::unique_ptr<MLIRContext> context;
  int inputs = 0;
  size_t baseline_bytes = 0;  // allocated bytes once the context was made
};

SharedContext& sharedContext() {
  static SharedContext shared;
  if (shared.context && shared.inputs < kInputsPerContext &&
      __sanitizer_get_current_allocated_bytes() <
          shared.baseline_bytes + kMaxRetainedBytes) {
    return shared;
  }
  shared.context.reset();
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect, math::MathDialect,
                  scf::SCFDialect, linalg::LinalgDialect, tensor::TensorDialect,
                  util::UtilDialect, check::CheckDialect, onnx::ONNXDialect>();
  shared.context =
      std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  shared.context->printOpOnDiagnostic(false);
  shared.inputs = 0;
  shared.baseline_bytes = __sanitizer_get_current_allocated_bytes();
  return shared;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  SharedContext& shared = sharedContext();
  ++shared.inputs;
  MLIRContext& context = *shared.context;
  // Every failure must come with an error that says something.
  bool error = false;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic& diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error) {
      if (diagnostic.str().empty()) {
        __builtin_trap();
      }
      error = true;
    }
    return success();
  });
  onnx::ImportOptions options;
  // External data is looked up nowhere that exists.
  options.externalDataDir = "/nonexistent-onnx-fuzzer-dir";
  OwningOpRef<ModuleOp> module = onnx::importModel(
      &context, llvm::StringRef(reinterpret_cast<const char*>(data), size),
      options);
  if (!module) {
    if (!error) {
      __builtin_trap();  // refused without a word
    }
    return 0;
  }
  if (failed(input::checkTensorByteSizes(*module))) {
    if (!error) {
      __builtin_trap();
    }
    return 0;
  }
  PassManager pm(&context);
  pm.addPass(input::createLowerONNXPass());
  if (failed(pm.run(*module)) && !error) {
    __builtin_trap();
  }
  return 0;
}
