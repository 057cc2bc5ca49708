// RUN: strata-opt --split-input-file --verify-diagnostics %s

func.func @flat(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{entry point @d0 must be @executable::@function}}
  %0 = flow.dispatch @d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{must hold exactly one builtin.module of dispatch functions}}
flow.executable @empty {
}

// -----

func.func @scalar_result(%a: tensor<4xf32>) -> f32 {
  // expected-error @+1 {{result #0 must be variadic of ranked tensor of any type values, but got 'f32'}}
  %0 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> f32
  return %0 : f32
}
