// conv.mlir - bench/conv: 3x3 conv2d, NHWC input, HWCF filter, stride 1, no
// padding, at the sizes of a small CNN's layers.
func.func @conv56(%x: tensor<1x58x58x64xf32>, %w: tensor<3x3x64x64xf32>) -> tensor<1x56x56x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x56x56x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%f : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %r : tensor<1x56x56x64xf32>
}

func.func @conv28(%x: tensor<1x30x30x128xf32>, %w: tensor<3x3x128x128xf32>) -> tensor<1x28x28x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x28x28x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x30x30x128xf32>, tensor<3x3x128x128xf32>) outs(%f : tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32>
  return %r : tensor<1x28x28x128xf32>
}
