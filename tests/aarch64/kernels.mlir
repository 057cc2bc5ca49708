// kernels.mlir - f32 matmuls, convolutions, a depthwise convolution and a
// max pooling whose sizes leave partial microkernel tiles (rows short of 8,
// columns short of 8 and of 4, channels past the last vector), with fused
// epilogues: run_kernels.py runs each for aarch64 under qemu and compares
// with numpy and with this host's results.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d3)>

// Bias and ReLU after the product (the clamp and bias epilogue).
func.func @matmul_bias_relu(%a: tensor<259x131xf32>, %b: tensor<131x75xf32>,
                            %bias: tensor<75xf32>) -> tensor<259x75xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<259x75xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<259x75xf32>) -> tensor<259x75xf32>
  %p = linalg.matmul ins(%a, %b : tensor<259x131xf32>, tensor<131x75xf32>)
                     outs(%f : tensor<259x75xf32>) -> tensor<259x75xf32>
  %r = linalg.generic {indexing_maps = [#id2, #col, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<259x75xf32>, tensor<75xf32>)
      outs(%e : tensor<259x75xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<259x75xf32>
  return %r : tensor<259x75xf32>
}

// A residual added to the product; depth over one block (300 > 256).
func.func @matmul_residual(%a: tensor<203x300xf32>, %b: tensor<300x45xf32>,
                           %res: tensor<203x45xf32>) -> tensor<203x45xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<203x45xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<203x45xf32>) -> tensor<203x45xf32>
  %p = linalg.matmul ins(%a, %b : tensor<203x300xf32>, tensor<300x45xf32>)
                     outs(%f : tensor<203x45xf32>) -> tensor<203x45xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p, %res : tensor<203x45xf32>, tensor<203x45xf32>)
      outs(%e : tensor<203x45xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<203x45xf32>
  return %r : tensor<203x45xf32>
}

// A 3x3 convolution, 16 channels in, 21 out (a last tile of 5 columns).
func.func @conv3x3(%in: tensor<1x58x58x16xf32>, %w: tensor<3x3x16x21xf32>)
    -> tensor<1x56x56x21xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x56x56x21xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x56x56x21xf32>) -> tensor<1x56x56x21xf32>
  %r = linalg.conv_2d_nhwc_hwcf
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x58x58x16xf32>, tensor<3x3x16x21xf32>)
      outs(%f : tensor<1x56x56x21xf32>) -> tensor<1x56x56x21xf32>
  return %r : tensor<1x56x56x21xf32>
}

// Output rows of 4 pixels, half of the NEON kernel's 8-row tile, read in
// place two to a tile (SgemmDriver.h, pairsOutputRows); 9 rows in
// workgroups of 3 (a row left alone), 61 filters (a last tile of 5
// columns), 64 channels (pixels 64 floats apart, the most read in place).
func.func @conv3x3_w4_pairs(%in: tensor<1x11x6x64xf32>,
                            %w: tensor<3x3x64x61xf32>)
    -> tensor<1x9x4x61xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x9x4x61xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x9x4x61xf32>) -> tensor<1x9x4x61xf32>
  %r = linalg.conv_2d_nhwc_hwcf
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x11x6x64xf32>, tensor<3x3x64x61xf32>)
      outs(%f : tensor<1x9x4x61xf32>) -> tensor<1x9x4x61xf32>
  return %r : tensor<1x9x4x61xf32>
}

// Stride 2, 32 channels in, 3 out (one partial vector), bias added.
func.func @conv_stride2_bias(%in: tensor<1x81x81x32xf32>,
                             %w: tensor<3x3x32x3xf32>, %bias: tensor<3xf32>)
    -> tensor<1x40x40x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x40x40x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x40x40x3xf32>) -> tensor<1x40x40x3xf32>
  %c = linalg.conv_2d_nhwc_hwcf
      {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %w : tensor<1x81x81x32xf32>, tensor<3x3x32x3xf32>)
      outs(%f : tensor<1x40x40x3xf32>) -> tensor<1x40x40x3xf32>
  %r = linalg.generic {indexing_maps = [#id4, #chan, #id4],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<1x40x40x3xf32>, tensor<3xf32>)
      outs(%e : tensor<1x40x40x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x40x40x3xf32>
  return %r : tensor<1x40x40x3xf32>
}

// A depthwise 3x3 over 11 channels (two vectors and three scalars).
func.func @depthwise(%in: tensor<1x20x20x11xf32>, %w: tensor<3x3x11xf32>)
    -> tensor<1x18x18x11xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x18x18x11xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x18x18x11xf32>) -> tensor<1x18x18x11xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x20x20x11xf32>, tensor<3x3x11xf32>)
      outs(%f : tensor<1x18x18x11xf32>) -> tensor<1x18x18x11xf32>
  return %r : tensor<1x18x18x11xf32>
}

// A 3x3 max pooling, stride 2.
func.func @maxpool(%in: tensor<1x21x21x11xf32>) -> tensor<1x10x10x11xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x10x10x11xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x10x10x11xf32>) -> tensor<1x10x10x11xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nhwc_max
      {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %win : tensor<1x21x21x11xf32>, tensor<3x3xf32>)
      outs(%f : tensor<1x10x10x11xf32>) -> tensor<1x10x10x11xf32>
  return %r : tensor<1x10x10x11xf32>
}
