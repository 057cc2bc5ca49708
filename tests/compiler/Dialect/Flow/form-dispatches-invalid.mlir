// RUN: strata-opt --strata-form-dispatches --split-input-file --verify-diagnostics %s

// expected-error @+1 {{tensor type 'tensor<*xf32>' is unranked, which is not supported}}
func.func @unranked(%a: tensor<*xf32>) -> tensor<*xf32> {
  return %a : tensor<*xf32>
}

// -----

// expected-error @+1 {{tensor type 'tensor<4xf16>' has element type 'f16', which is not supported (supported: i1, i8, i16, i32, i64, f32, f64)}}
func.func @half(%a: tensor<4xf16>) -> tensor<4xf16> {
  %e = tensor.empty() : tensor<4xf16>
  %r = linalg.add ins(%a, %a : tensor<4xf16>, tensor<4xf16>) outs(%e : tensor<4xf16>) -> tensor<4xf16>
  return %r : tensor<4xf16>
}
