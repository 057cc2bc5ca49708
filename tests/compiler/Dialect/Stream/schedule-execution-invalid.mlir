// RUN: strata-opt --strata-schedule-execution --verify-diagnostics %s

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @f_dispatch_0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// expected-error @+1 {{dispatch 'f_dispatch_0' is in no executable of the module}}
func.func private @f_dispatch_0(tensor<4xf32>) -> tensor<4xf32> attributes {strata.dispatch}
