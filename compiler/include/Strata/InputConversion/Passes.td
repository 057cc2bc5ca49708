// Passes.td - the input phase: front-end dialects to linalg/tensor/arith.

#ifndef STRATA_INPUTCONVERSION_PASSES_TD
#define STRATA_INPUTCONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertInputPass : Pass<"strata-convert-input", "::mlir::ModuleOp"> {
  let summary = "lower the input's front-end dialects (TOSA) to linalg, tensor and arith";
  let description = [{
    Lowers `util.unfoldable_constant` to an `arith.constant` behind a
    `util.optimization_barrier`, and `check.expect_eq_const` /
    `check.expect_almost_eq_const` to `check.expect_eq` /
    `check.expect_almost_eq` of an `arith.constant`. Detects the dialects of the input by
    itself: when the module holds TOSA
    ops, runs upstream's TOSA lowering on each function (tosa-to-linalg-named,
    tosa-to-linalg, tosa-to-arith, tosa-to-tensor, tosa-to-scf) so that the
    rest of the compiler sees only linalg, tensor, arith, math and scf. Any
    TOSA op left afterwards is an error at its location. Modules without
    TOSA are left as they are.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // STRATA_INPUTCONVERSION_PASSES_TD
