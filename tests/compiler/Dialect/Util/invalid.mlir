// RUN: strata-opt --split-input-file --verify-diagnostics %s

func.func @mismatch() -> tensor<2xi32> {
  // expected-error @+1 {{'util.optimization_barrier' op failed to verify that all of {operands, results} have same type}}
  %r = "util.optimization_barrier"() : () -> tensor<2xi32>
  return %r : tensor<2xi32>
}
