// RUN: strata-opt --strata-form-dispatches --split-input-file --verify-diagnostics %s

// expected-error @+1 {{tensor type 'tensor<*xf32>' is unranked, which is not supported}}
func.func @unranked(%a: tensor<*xf32>) -> tensor<*xf32> {
  return %a : tensor<*xf32>
}

// -----

// expected-error @+1 {{tensor type 'tensor<4xi4>' with element type 'i4', an unsupported element type (supported: i1, i8, i16, i32, i64, f16, bf16, f32, f64)}}
func.func @nibbles(%a: tensor<4xi4>) -> tensor<4xi4> {
  %e = tensor.empty() : tensor<4xi4>
  %r = linalg.add ins(%a, %a : tensor<4xi4>, tensor<4xi4>) outs(%e : tensor<4xi4>) -> tensor<4xi4>
  return %r : tensor<4xi4>
}

// -----

func.func @fp8(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arith.truncf' uses tensor type 'tensor<4xf8E4M3FN>' with element type 'f8E4M3FN', an unsupported element type}}
  %t = arith.truncf %a : tensor<4xf32> to tensor<4xf8E4M3FN>
  %r = arith.extf %t : tensor<4xf8E4M3FN> to tensor<4xf32>
  return %r : tensor<4xf32>
}
