// StrataOpt.cpp - strata-opt: runs Strata and upstream passes on MLIR files.

#include "Strata/Conversion/Passes.h"
#include "Strata/Dialect/Check/IR/CheckOps.h"
#include "Strata/Dialect/Flow/Transforms/Passes.h"
#include "Strata/Dialect/HAL/Transforms/Passes.h"
#include "Strata/Dialect/ONNX/IR/ONNXOps.h"
#include "Strata/Dialect/Util/IR/UtilOps.h"
#include "Strata/Dialect/VM/IR/VMDialect.h"
#include "Strata/Dialect/VM/Transforms/Passes.h"
#include "Strata/InputConversion/Passes.h"
#include "Strata/Pipelines/Pipelines.h"
#include "Strata/Target/TargetBackend.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::strata::vm::VMDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::index::IndexDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect, mlir::linalg::LinalgDialect,
                  mlir::tensor::TensorDialect, mlir::tosa::TosaDialect,
                  mlir::strata::util::UtilDialect,
                  mlir::strata::check::CheckDialect,
                  mlir::strata::onnx::ONNXDialect>();
  // Upstream cleanups (--canonicalize, --cse, ...) and Strata's own passes.
  mlir::registerTransformsPasses();
  mlir::strata::registerConversionPasses();
  mlir::strata::vm::registerVMPasses();
  mlir::strata::flow::registerFlowPasses();
  mlir::strata::input::registerInputPasses();
  mlir::strata::hal::registerHALPasses();
  mlir::strata::registerStrataPipelines();
  // Each target's code generation passes and the dialects they create.
  mlir::strata::registerTargetBackendDialects(registry);
  mlir::strata::registerTargetBackendPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Strata optimizer driver\n", registry));
}
