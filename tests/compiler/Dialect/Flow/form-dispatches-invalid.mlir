// RUN: strata-opt --strata-form-dispatches --split-input-file --verify-diagnostics %s

// expected-error @+1 {{tensor type 'tensor<*xf32>' is unranked, which is not supported}}
func.func @unranked(%a: tensor<*xf32>) -> tensor<*xf32> {
  return %a : tensor<*xf32>
}

// -----

// expected-error @+1 {{tensor type 'tensor<4xbf16>' has element type 'bf16', which is not supported (supported: i1, i8, i16, i32, i64, f16, f32, f64)}}
func.func @brain_half(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %e = tensor.empty() : tensor<4xbf16>
  %r = linalg.add ins(%a, %a : tensor<4xbf16>, tensor<4xbf16>) outs(%e : tensor<4xbf16>) -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}
