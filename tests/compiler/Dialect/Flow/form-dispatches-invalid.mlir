// RUN: strata-opt --strata-form-dispatches --split-input-file --verify-diagnostics %s

// expected-error @+1 {{tensor type 'tensor<?xf32>' has a dynamic shape, which is not supported yet}}
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}

// -----

func.func @dynamic_inside(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{tensor type 'tensor<?xf32>' has a dynamic shape, which is not supported yet}}
  %s = tensor.extract_slice %a[%c0] [%c4] [1] : tensor<4xf32> to tensor<?xf32>
  %t = tensor.cast %s : tensor<?xf32> to tensor<4xf32>
  return %t : tensor<4xf32>
}



// -----

// expected-error @+1 {{tensor type 'tensor<4xbf16>' has element type 'bf16', which is not supported (supported: i1, i8, i16, i32, i64, f16, f32, f64)}}
func.func @brain_half(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %e = tensor.empty() : tensor<4xbf16>
  %r = linalg.add ins(%a, %a : tensor<4xbf16>, tensor<4xbf16>) outs(%e : tensor<4xbf16>) -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}
