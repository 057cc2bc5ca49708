// onnx_fuzzer.cpp - libFuzzer target for the ONNX importer and the ONNX
// lowering: the bytes are a .onnx model, imported (onnx::importModel), its
// tensor sizes checked (input::checkTensorByteSizes) and lowered
// (--strata-lower-onnx, with the verifier after it), as strata-compile's
// input phase begins. A model that is refused must be refused with an
// error diagnostic; nothing may crash, leak or hang. Each input gets a
// fresh context, so one input cannot change what the next one does.
#include <cstddef>
#include <cstdint>

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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect, math::MathDialect,
                  scf::SCFDialect, linalg::LinalgDialect, tensor::TensorDialect,
                  util::UtilDialect, check::CheckDialect, onnx::ONNXDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
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
