// elementwise.mlir - bench/elementwise: a fused a * b + c over 16M f32, and a
// row-wise softmax of 4096 x 1024 f32.
func.func @fma(%a: tensor<16777216xf32>, %b: tensor<16777216xf32>, %c: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %e = tensor.empty() : tensor<16777216xf32>
  %m = linalg.mul ins(%a, %b : tensor<16777216xf32>, tensor<16777216xf32>) outs(%e : tensor<16777216xf32>) -> tensor<16777216xf32>
  %r = linalg.add ins(%m, %c : tensor<16777216xf32>, tensor<16777216xf32>) outs(%e : tensor<16777216xf32>) -> tensor<16777216xf32>
  return %r : tensor<16777216xf32>
}

func.func @softmax(%x: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %e = tensor.empty() : tensor<4096x1024xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4096x1024xf32>) outs(%e : tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  return %r : tensor<4096x1024xf32>
}
