// RUN: strata-opt --split-input-file --strata-lower-onnx %s | FileCheck %s

// Conv in NCHW runs as an NHWC convolution: the input is transposed in and
// the result out, the constant OIHW weight is transposed to HWCF at compile
// time, and padding is a tensor.pad (the flow phase computes it inside the
// convolution's dispatch).
// CHECK-LABEL: func.func @conv
// CHECK-NOT: tensor<4x2x3x3xf32>
// CHECK: %[[IN:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x2x5x5xf32>) outs(%{{.*}} : tensor<1x5x5x2xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[PAD:.*]] = tensor.pad %[[IN]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: tensor<1x5x5x2xf32> to tensor<1x7x7x2xf32>
// CHECK: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<3x3x2x4xf32>
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %[[W]] : tensor<1x7x7x2xf32>, tensor<3x3x2x4xf32>) outs(%{{.*}} : tensor<1x3x3x4xf32>)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x3x3x4xf32>) outs(%{{.*}} : tensor<1x4x3x3xf32>) permutation = [0, 3, 1, 2]
func.func @conv(%x: tensor<1x2x5x5xf32>) -> tensor<1x4x3x3xf32> {
  %w = arith.constant dense<0.5> : tensor<4x2x3x3xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = onnx.node "Conv"(%x, %w, %b) {attrs = {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]}, domain = "", opset = 11 : i64} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// -----

// A depthwise convolution (group = channels) has its own kernel.
// CHECK-LABEL: func.func @depthwise
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc
// CHECK-SAME: tensor<3x3x8xf32>
func.func @depthwise(%x: tensor<1x8x6x6xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %0 = onnx.node "Conv"(%x, %w) {attrs = {group = 8 : i64}, domain = "", opset = 11 : i64} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// MatMul with a shared right operand multiplies all batch rows at once.
// CHECK-LABEL: func.func @matmul_batched_lhs
// CHECK: tensor.collapse_shape %{{.*}} : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<6x4xf32>, tensor<4x5xf32>) outs(%{{.*}} : tensor<6x5xf32>)
// CHECK: return %{{.*}} : tensor<2x3x5xf32>
func.func @matmul_batched_lhs(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = onnx.node "MatMul"(%a, %b) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Both operands batched: batch_matmul.
// CHECK-LABEL: func.func @matmul_batched
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<2x4x5xf32>)
func.func @matmul_batched(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = onnx.node "MatMul"(%a, %b) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Gemm with transB on a constant weight: the transpose folds away.
// CHECK-LABEL: func.func @gemm
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3x4xf32>)
// CHECK: arith.addf
func.func @gemm(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = arith.constant dense<1.0> : tensor<4x3xf32>
  %c = arith.constant dense<0.5> : tensor<4xf32>
  %0 = onnx.node "Gemm"(%a, %w, %c) {attrs = {transB = 1 : i64}, domain = "", opset = 13 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// MaxPool pads with -inf and pools NHWC.
// CHECK-LABEL: func.func @maxpool
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
func.func @maxpool(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %0 = onnx.node "MaxPool"(%x) {attrs = {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]}, domain = "", opset = 12 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// BatchNormalization with constant statistics folds to a scale and shift
// per channel.
// CHECK-LABEL: func.func @batchnorm
// CHECK-DAG: arith.constant dense<{{.*}}> : tensor<2x1x1xf32>
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: math.sqrt
func.func @batchnorm(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %s = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = arith.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %m = arith.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %v = arith.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %0 = onnx.node "BatchNormalization"(%x, %s, %b, %m, %v) {attrs = {epsilon = 0.0 : f32}, domain = "", opset = 15 : i64} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// LRN reads the channels within the window once each, whatever the size
// (a size of 2^40 built a tap per unit of it until memory ran out).
// CHECK-LABEL: func.func @lrn_huge_size
// CHECK: linalg.generic
// CHECK-COUNT-3: tensor.extract %{{.*}} : tensor<1x2x1x1xf32>
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @lrn_huge_size(%x: tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32> {
  %0 = onnx.node "LRN"(%x) {attrs = {size = 1099511627776 : i64}, domain = "", opset = 13 : i64} : (tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  return %0 : tensor<1x2x1x1xf32>
}

// -----

// The divisors of an average pool count each window's taps inside the
// input, with dilation and padding (counted without a loop over the
// kernel, which may have 2^30 taps).
// CHECK-LABEL: func.func @average_pool_divisors
// CHECK: arith.constant dense<{{\[\[\[}}2.000000e+00], [2.000000e+00], [3.000000e+00], [2.000000e+00], [2.000000e+00]]]> : tensor<1x5x1xf32>
func.func @average_pool_divisors(%x: tensor<1x1x1x5xf32>) -> tensor<1x1x1x5xf32> {
  %0 = onnx.node "AveragePool"(%x) {attrs = {kernel_shape = [1, 3], dilations = [1, 2], pads = [0, 2, 0, 2]}, domain = "", opset = 19 : i64} : (tensor<1x1x1x5xf32>) -> tensor<1x1x1x5xf32>
  return %0 : tensor<1x1x1x5xf32>
}

// -----

// A 3-D convolution's bias has one value per filter, the last dimension of
// its NDHWC result (not the fourth: the bias check once read the depth).
// CHECK-LABEL: func.func @conv3d_bias
// CHECK: linalg.conv_3d_ndhwc_dhwcf
// CHECK: arith.addf
// CHECK: return %{{.*}} : tensor<1x2x3x3x3xf32>
func.func @conv3d_bias(%x: tensor<1x1x4x4x4xf32>, %w: tensor<2x1x2x2x2xf32>, %b: tensor<2xf32>) -> tensor<1x2x3x3x3xf32> {
  %0 = onnx.node "Conv"(%x, %w, %b) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<1x1x4x4x4xf32>, tensor<2x1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x3x3x3xf32>
  return %0 : tensor<1x2x3x3x3xf32>
}

// -----

// LpPool sums |x|^p over each window (a sum pooling of the powers, padding
// adding zeros), then takes the p-th root; p = 2 squares and takes sqrt.
// CHECK-LABEL: func.func @lp_pool
// CHECK: math.absf
// CHECK: math.powf %{{.*}}, %{{.*}} : f32
// CHECK: linalg.pooling_nhwc_sum {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK: arith.constant 0.333333343 : f32
// CHECK: math.powf
// CHECK-LABEL: func.func @global_lp_pool
// CHECK: arith.mulf %[[V:.*]], %[[V]] : f32
// CHECK: linalg.pooling_nhwc_sum {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4x5x3xf32>, tensor<4x5xf32>) outs(%{{.*}} : tensor<2x1x1x3xf32>)
// CHECK: math.sqrt
func.func @lp_pool(%x: tensor<1x2x7x5xf32>) -> tensor<1x2x2x2xf32> {
  %0 = onnx.node "LpPool"(%x) {attrs = {kernel_shape = [3, 3], strides = [2, 2], dilations = [2, 1], p = 3}, domain = "", opset = 18 : i64} : (tensor<1x2x7x5xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}
func.func @global_lp_pool(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32> {
  %0 = onnx.node "GlobalLpPool"(%x) {attrs = {}, domain = "", opset = 2 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  return %0 : tensor<2x3x1x1xf32>
}

// -----

// A grouped 3-D Conv: one conv_3d per group on its channels and filters,
// concatenated along the filters.
// CHECK-LABEL: func.func @conv3d_groups
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0, 0] [1, 3, 3, 3, 2] [1, 1, 1, 1, 1] : tensor<1x3x3x3x4xf32> to tensor<1x3x3x3x2xf32>
// CHECK: %[[G0:.*]] = linalg.conv_3d_ndhwc_dhwcf
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0, 2] [1, 3, 3, 3, 2]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0, 3] [1, 1, 1, 2, 3]
// CHECK: %[[G1:.*]] = linalg.conv_3d_ndhwc_dhwcf
// CHECK: tensor.concat dim(4) %[[G0]], %[[G1]] : (tensor<1x3x3x3x3xf32>, tensor<1x3x3x3x3xf32>) -> tensor<1x3x3x3x6xf32>
func.func @conv3d_groups(%x: tensor<1x4x3x3x3xf32>, %w: tensor<6x2x1x1x1xf32>) -> tensor<1x6x3x3x3xf32> {
  %0 = onnx.node "Conv"(%x, %w) {attrs = {group = 2 : i64}, domain = "", opset = 11 : i64} : (tensor<1x4x3x3x3xf32>, tensor<6x2x1x1x1xf32>) -> tensor<1x6x3x3x3xf32>
  return %0 : tensor<1x6x3x3x3xf32>
}

// -----

// LpNormalization: one reduction of |x| (p = 1) over the axis, its root per
// reduced element, then x divided by it broadcast along the axis.
// CHECK-LABEL: func.func @lp_normalization
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK: math.absf
// CHECK: arith.addf
// CHECK: tensor.expand_shape {{.*}} : tensor<3xf32> into tensor<1x3xf32>
// CHECK: linalg.generic
// CHECK: arith.divf
func.func @lp_normalization(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = onnx.node "LpNormalization"(%x) {attrs = {axis = 0, p = 1}, domain = "", opset = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Resize-18 with antialias: one contraction per resized axis with that
// axis's constant (output x input) filter matrix; the width is upsampled
// (the filter is plain linear interpolation there), the height downsampled
// 4 -> 2 with the triangle stretched over four taps (1, 3, 3, 1) / 8, the
// tap left of the edge reading the edge row.
// CHECK-LABEL: func.func @resize_antialias
// CHECK: %[[H:.*]] = arith.constant dense<{{\[\[}}5.000000e-01, 3.750000e-01, 1.250000e-01, 0.000000e+00], [0.000000e+00, 1.250000e-01, 3.750000e-01, 5.000000e-01]]> : tensor<2x4xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[H]] : tensor<1x1x4x2xf32>, tensor<2x4xf32>) outs(%{{.*}} : tensor<1x1x2x2xf32>)
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00], [5.000000e-01, 5.000000e-01], [0.000000e+00, 1.000000e+00]]> : tensor<3x2xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : tensor<1x1x2x2xf32>, tensor<3x2xf32>) outs(%{{.*}} : tensor<1x1x2x3xf32>)
func.func @resize_antialias(%x: tensor<1x1x4x2xf32>) -> tensor<1x1x2x3xf32> {
  %none = onnx.none : none
  %s = arith.constant dense<[1.0, 1.0, 0.5, 1.5]> : tensor<4xf32>
  %0 = onnx.node "Resize"(%x, %none, %s) {attrs = {mode = "linear", antialias = 1}, domain = "", opset = 18 : i64} : (tensor<1x1x4x2xf32>, none, tensor<4xf32>) -> tensor<1x1x2x3xf32>
  return %0 : tensor<1x1x2x3xf32>
}

// -----

// A 3-D ConvTranspose as a gather: one kernel over [N, group, M/group,
// D, H, W] reducing over the group's channels and the taps (the weight
// seen as [group, C/group, M/group, kd, kh, kw]); the input position
// (o + pad - k dilation) / stride where the stride divides it.
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d6, d2, d7, d8, d9)>
// CHECK-LABEL: func.func @convtranspose_3d
// CHECK: linalg.generic {indexing_maps = [#[[W]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%{{.*}} : tensor<2x1x1x2x2x2xf32>) outs(%{{.*}} : tensor<1x2x1x6x6x6xf32>)
// CHECK-COUNT-3: arith.floordivsi %{{.*}}, %c2
// CHECK: tensor.extract %{{.*}} : tensor<1x2x3x3x3xf32>
// CHECK: arith.select
func.func @convtranspose_3d(%x: tensor<1x2x3x3x3xf32>, %w: tensor<2x1x2x2x2xf32>) -> tensor<1x2x6x6x6xf32> {
  %0 = onnx.node "ConvTranspose"(%x, %w) {attrs = {strides = [2, 2, 2], group = 2 : i64}, domain = "", opset = 11 : i64} : (tensor<1x2x3x3x3xf32>, tensor<2x1x2x2x2xf32>) -> tensor<1x2x6x6x6xf32>
  return %0 : tensor<1x2x6x6x6xf32>
}
