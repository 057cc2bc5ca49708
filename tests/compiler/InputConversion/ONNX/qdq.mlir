// RUN: strata-opt --split-input-file --strata-lower-onnx %s | FileCheck %s

// A QDQ Conv (u8 activation, per-channel s8 weight, i32 bias, Relu) is one
// i8 x i8 -> i32 matmul over the im2col of the input padded with its zero
// point (the top bit flipped: u8 - 128), then the requantization; no float
// convolution is left.
// CHECK-LABEL: func.func @qdq_conv
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf
// CHECK: arith.constant -106 : i8
// CHECK: tensor.pad
// CHECK: linalg.generic
// CHECK: arith.xori %{{.*}}, %{{.*}} : i8
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x18xi8>, tensor<18x3xi8>) outs(%{{.*}} : tensor<16x3xi32>)
// CHECK: linalg.generic
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: arith.sitofp
// CHECK: math.roundeven
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.fptosi
// CHECK: arith.trunci
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf
// CHECK: return %{{.*}} : tensor<1x3x4x4xi8>
func.func @qdq_conv(%x: tensor<1x2x4x4xui8>) -> tensor<1x3x4x4xui8> {
  %xs = arith.constant dense<0.05> : tensor<f32>
  %xz = arith.constant dense<150> : tensor<ui8>
  %w = arith.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[-1, 2, -3], [4, -5, 6], [-7, 8, -9]]], [[[10, 20, 30], [40, 50, 60], [70, 80, 90]], [[-10, -20, -30], [-40, -50, -60], [-70, -80, -90]]], [[[127, -128, 0], [1, 1, 1], [2, 2, 2]], [[3, 3, 3], [-4, -4, -4], [5, 5, 5]]]]> : tensor<3x2x3x3xi8>
  %ws = arith.constant dense<[0.01, 0.02, 0.005]> : tensor<3xf32>
  %wz = arith.constant dense<0> : tensor<3xi8>
  %b = arith.constant dense<[100, -200, 300]> : tensor<3xi32>
  %bs = arith.constant dense<[0.0005, 0.001, 0.00025]> : tensor<3xf32>
  %bz = arith.constant dense<0> : tensor<3xi32>
  %ys = arith.constant dense<0.1> : tensor<f32>
  %yz = arith.constant dense<3> : tensor<ui8>
  %0 = onnx.node "DequantizeLinear"(%x, %xs, %xz) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %1 = onnx.node "DequantizeLinear"(%w, %ws, %wz) {attrs = {axis = 0 : i64}, domain = "", opset = 13 : i64} : (tensor<3x2x3x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x2x3x3xf32>
  %2 = onnx.node "DequantizeLinear"(%b, %bs, %bz) {attrs = {axis = 0 : i64}, domain = "", opset = 13 : i64} : (tensor<3xi32>, tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  %3 = onnx.node "Conv"(%0, %1, %2) {attrs = {pads = [1, 1, 1, 1]}, domain = "", opset = 13 : i64} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %4 = onnx.node "Relu"(%3) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %5 = onnx.node "QuantizeLinear"(%4, %ys, %yz) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<1x3x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xui8>
  return %5 : tensor<1x3x4x4xui8>
}

// -----

// A QDQ Gemm with transB and an s8 activation: no bit flip, the weight
// transposed at compile time.
// CHECK-LABEL: func.func @qdq_gemm
// CHECK-NOT: arith.xori
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x5xi8>, tensor<5x4xi8>) outs(%{{.*}} : tensor<2x4xi32>)
// CHECK: math.roundeven
// CHECK: return %{{.*}} : tensor<2x4xi8>
func.func @qdq_gemm(%x: tensor<2x5xi8>) -> tensor<2x4xi8> {
  %xs = arith.constant dense<0.05> : tensor<f32>
  %xz = arith.constant dense<-3> : tensor<i8>
  %w = arith.constant dense<[[1, 2, 3, 4, 5], [-1, -2, -3, -4, -5], [127, -128, 0, 1, -1], [9, 8, 7, 6, 5]]> : tensor<4x5xi8>
  %ws = arith.constant dense<0.01> : tensor<f32>
  %wz = arith.constant dense<0> : tensor<i8>
  %b = arith.constant dense<[0.5, -0.5, 0.25, 0.0]> : tensor<4xf32>
  %ys = arith.constant dense<0.02> : tensor<f32>
  %yz = arith.constant dense<1> : tensor<i8>
  %0 = onnx.node "DequantizeLinear"(%x, %xs, %xz) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x5xi8>, tensor<f32>, tensor<i8>) -> tensor<2x5xf32>
  %1 = onnx.node "DequantizeLinear"(%w, %ws, %wz) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<4x5xi8>, tensor<f32>, tensor<i8>) -> tensor<4x5xf32>
  %2 = onnx.node "Gemm"(%0, %1, %b) {attrs = {transB = 1 : i64}, domain = "", opset = 13 : i64} : (tensor<2x5xf32>, tensor<4x5xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %3 = onnx.node "QuantizeLinear"(%2, %ys, %yz) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x4xf32>, tensor<f32>, tensor<i8>) -> tensor<2x4xi8>
  return %3 : tensor<2x4xi8>
}

// -----

// A weight that is not a constant keeps the float path: each node lowered
// on its own, in order.
// CHECK-LABEL: func.func @qdq_dynamic_weight
// CHECK-NOT: linalg.matmul ins(%{{.*}} : tensor<2x5xi8>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x5xf32>, tensor<5x4xf32>)
// CHECK: math.roundeven
func.func @qdq_dynamic_weight(%x: tensor<2x5xi8>, %w: tensor<4x5xi8>) -> tensor<2x4xi8> {
  %xs = arith.constant dense<0.05> : tensor<f32>
  %xz = arith.constant dense<0> : tensor<i8>
  %ws = arith.constant dense<0.01> : tensor<f32>
  %wz = arith.constant dense<0> : tensor<i8>
  %ys = arith.constant dense<0.02> : tensor<f32>
  %yz = arith.constant dense<0> : tensor<i8>
  %0 = onnx.node "DequantizeLinear"(%x, %xs, %xz) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x5xi8>, tensor<f32>, tensor<i8>) -> tensor<2x5xf32>
  %1 = onnx.node "DequantizeLinear"(%w, %ws, %wz) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<4x5xi8>, tensor<f32>, tensor<i8>) -> tensor<4x5xf32>
  %2 = onnx.node "Gemm"(%0, %1) {attrs = {transB = 1 : i64}, domain = "", opset = 13 : i64} : (tensor<2x5xf32>, tensor<4x5xf32>) -> tensor<2x4xf32>
  %3 = onnx.node "QuantizeLinear"(%2, %ys, %yz) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x4xf32>, tensor<f32>, tensor<i8>) -> tensor<2x4xi8>
  return %3 : tensor<2x4xi8>
}

// -----

// A QDQ depthwise Conv (group = channels, one filter each): an i8
// depthwise convolution into i32 over the input with its top bit flipped
// (u8 - 128), padded with its zero point flipped (150 - 128 = 22), the
// filter in HWC order, then the same requantization; no float convolution.
// CHECK-LABEL: func.func @qdq_depthwise
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwc {{.*}}f32
// CHECK: arith.xori %{{.*}}, %{{.*}} : i8
// CHECK: arith.constant 22 : i8
// CHECK: tensor.pad
// CHECK: arith.constant dense<{{\[\[\[}}1, 10, 127], [-2, 20, -128], [3, 30, 0]]
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x6x6x3xi8>, tensor<3x3x3xi8>) outs(%{{.*}} : tensor<1x2x2x3xi32>)
// The bias in accumulator steps plus (128 - 150) x each filter's sum:
// 100 - 22 x 29 = -538 for channel 0.
// CHECK: arith.constant dense<[-538, -10100, 124]> : tensor<3xi32>
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: math.roundeven
// CHECK: arith.trunci
// CHECK: return %{{.*}} : tensor<1x3x2x2xi8>
func.func @qdq_depthwise(%x: tensor<1x3x4x4xui8>) -> tensor<1x3x2x2xui8> {
  %xs = arith.constant dense<0.05> : tensor<f32>
  %xz = arith.constant dense<150> : tensor<ui8>
  %w = arith.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]]], [[[10, 20, 30], [40, 50, 60], [70, 80, 90]]], [[[127, -128, 0], [1, 1, 1], [2, 2, 2]]]]> : tensor<3x1x3x3xi8>
  %ws = arith.constant dense<[0.01, 0.02, 0.005]> : tensor<3xf32>
  %wz = arith.constant dense<0> : tensor<3xi8>
  %b = arith.constant dense<[100, -200, 300]> : tensor<3xi32>
  %bs = arith.constant dense<[0.0005, 0.001, 0.00025]> : tensor<3xf32>
  %bz = arith.constant dense<0> : tensor<3xi32>
  %ys = arith.constant dense<0.1> : tensor<f32>
  %yz = arith.constant dense<3> : tensor<ui8>
  %0 = onnx.node "DequantizeLinear"(%x, %xs, %xz) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<1x3x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xf32>
  %1 = onnx.node "DequantizeLinear"(%w, %ws, %wz) {attrs = {axis = 0 : i64}, domain = "", opset = 13 : i64} : (tensor<3x1x3x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x1x3x3xf32>
  %2 = onnx.node "DequantizeLinear"(%b, %bs, %bz) {attrs = {axis = 0 : i64}, domain = "", opset = 13 : i64} : (tensor<3xi32>, tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  %3 = onnx.node "Conv"(%0, %1, %2) {attrs = {group = 3 : i64, pads = [1, 1, 1, 1], strides = [2, 2]}, domain = "", opset = 13 : i64} : (tensor<1x3x4x4xf32>, tensor<3x1x3x3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  %4 = onnx.node "QuantizeLinear"(%3, %ys, %yz) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<1x3x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3x2x2xui8>
  return %4 : tensor<1x3x2x2xui8>
}

// -----

// A QLinearConv with constant scales, zero points and weight is the QDQ
// group it means (expandQLinearConvs): it takes the same integer path, an
// i8 x i8 -> i32 matmul and the requantization, no i32 convolution.
// CHECK-LABEL: func.func @qlinear_conv
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x18xi8>, tensor<18x3xi8>) outs(%{{.*}} : tensor<16x3xi32>)
// CHECK: math.roundeven
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf
// CHECK: return %{{.*}} : tensor<1x3x4x4xi8>
func.func @qlinear_conv(%x: tensor<1x2x4x4xui8>) -> tensor<1x3x4x4xui8> {
  %xs = arith.constant dense<0.05> : tensor<f32>
  %xz = arith.constant dense<150> : tensor<ui8>
  %w = arith.constant dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[-1, 2, -3], [4, -5, 6], [-7, 8, -9]]], [[[10, 20, 30], [40, 50, 60], [70, 80, 90]], [[-10, -20, -30], [-40, -50, -60], [-70, -80, -90]]], [[[127, -128, 0], [1, 1, 1], [2, 2, 2]], [[3, 3, 3], [-4, -4, -4], [5, 5, 5]]]]> : tensor<3x2x3x3xi8>
  %ws = arith.constant dense<[0.01, 0.02, 0.005]> : tensor<3xf32>
  %wz = arith.constant dense<0> : tensor<3xi8>
  %b = arith.constant dense<[100, -200, 300]> : tensor<3xi32>
  %ys = arith.constant dense<0.1> : tensor<f32>
  %yz = arith.constant dense<3> : tensor<ui8>
  %0 = onnx.node "QLinearConv"(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, %b) {attrs = {pads = [1, 1, 1, 1]}, domain = "", opset = 13 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<3x2x3x3xi8>, tensor<3xf32>, tensor<3xi8>, tensor<f32>, tensor<ui8>, tensor<3xi32>) -> tensor<1x3x4x4xui8>
  return %0 : tensor<1x3x4x4xui8>
}

// -----

// MatMulInteger with a constant weight (a dynamically quantized
// transformer's projection: u8 activations of 2 batches of 3 rows, a
// run-time zero point, a u8 weight with one zero point per column) is one
// i8 x i8 -> i32 matmul over the batches' rows: the activation's top bit
// flipped, W' = w - zero point folded (column 1: 200 - 130 = 70), the
// zero-point term (128 - a_zp) * colsum(W') added (colsum: 3 + 4, 70 + 70 =
// 140), then expanded back to 3-D.
// CHECK-LABEL: func.func @matmulinteger_constant_weight
// CHECK: arith.xori %{{.*}}, %{{.*}} : i8
// CHECK: arith.constant dense<{{\[}}[3, 70], [4, 70]]> : tensor<2x2xi8>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<6x2xi8>, tensor<2x2xi8>) outs(%{{.*}} : tensor<6x2xi32>)
// CHECK: arith.constant dense<[7, 140]> : tensor<2xi32>
// CHECK: linalg.generic
// CHECK: arith.constant 128 : i32
// CHECK: arith.extui
// CHECK: arith.subi
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK: tensor.expand_shape {{.*}} into tensor<2x3x2xi32>
func.func @matmulinteger_constant_weight(%a: tensor<2x3x2xui8>, %azp: tensor<ui8>) -> tensor<2x3x2xi32> {
  %w = arith.constant dense<[[3, 200], [4, 200]]> : tensor<2x2xui8>
  %wz = arith.constant dense<[0, 130]> : tensor<2xui8>
  %0 = onnx.node "MatMulInteger"(%a, %w, %azp, %wz) {attrs = {}, domain = "", opset = 10 : i64} : (tensor<2x3x2xui8>, tensor<2x2xui8>, tensor<ui8>, tensor<2xui8>) -> tensor<2x3x2xi32>
  return %0 : tensor<2x3x2xi32>
}

// -----

// A weight whose W' leaves i8 (-128 - 1) is computed in i32 as before.
// CHECK-LABEL: func.func @matmulinteger_wide_weight
// CHECK-NOT: tensor<2x2xi8>) outs
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x2xi32>, tensor<2x2xi32>) outs(%{{.*}} : tensor<3x2xi32>)
func.func @matmulinteger_wide_weight(%a: tensor<3x2xi8>) -> tensor<3x2xi32> {
  %w = arith.constant dense<[[-128, 5], [6, 7]]> : tensor<2x2xi8>
  %wz = arith.constant dense<1> : tensor<i8>
  %0 = onnx.node "MatMulInteger"(%a, %w, %wz, %wz) {attrs = {}, domain = "", opset = 10 : i64} : (tensor<3x2xi8>, tensor<2x2xi8>, tensor<i8>, tensor<i8>) -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

// -----

// ConvInteger with a constant weight (a dynamically quantized CNN): the u8
// input in NHWC padded with its run-time zero point (a constant mask
// selects it), the top bit flipped, im2col, an i8 x i8 -> i32 matmul
// against W' (rows ky, kx, c; the weight at (f, c, ky, kx) is 2 * ky + kx +
// 1, its zero point 1), the zero-point term per channel (colsum 6), back to
// NCHW.
// CHECK-LABEL: func.func @convinteger_constant_weight
// CHECK: tensor.pad
// CHECK: arith.constant dense<{{.*}}> : tensor<1x4x4x1xi8>
// CHECK: linalg.generic
// CHECK: arith.cmpi ne
// CHECK: arith.select
// CHECK: arith.xori
// CHECK: arith.constant dense<{{\[}}[0], [1], [2], [3]]> : tensor<4x1xi8>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<18x4xi8>, tensor<4x1xi8>) outs(%{{.*}} : tensor<18x1xi32>)
// CHECK: arith.constant dense<6> : tensor<1xi32>
// CHECK: arith.subi
// CHECK: linalg.transpose
// CHECK: return %{{.*}} : tensor<2x1x3x3xi32>
func.func @convinteger_constant_weight(%x: tensor<2x1x3x3xui8>, %xz: tensor<ui8>) -> tensor<2x1x3x3xi32> {
  %w = arith.constant dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xi8>
  %wz = arith.constant dense<1> : tensor<i8>
  %0 = onnx.node "ConvInteger"(%x, %w, %xz, %wz) {attrs = {pads = [1, 1, 0, 0]}, domain = "", opset = 10 : i64} : (tensor<2x1x3x3xui8>, tensor<1x1x2x2xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x1x3x3xi32>
  return %0 : tensor<2x1x3x3xi32>
}

// -----

// DequantizeLinear -> MaxPool -> QuantizeLinear with one scale and zero
// point on both sides: the pool runs on the u8 values themselves (an
// unsigned maximum), nothing is dequantized or quantized.
// CHECK-LABEL: func.func @qdq_maxpool
// CHECK-NOT: arith.sitofp
// CHECK-NOT: arith.uitofp
// CHECK-NOT: arith.divf
// CHECK: linalg.pooling_nhwc_max_unsigned
// CHECK-NOT: arith.divf
// CHECK: return %{{.*}} : tensor<1x2x3x3xi8>
func.func @qdq_maxpool(%x: tensor<1x2x5x5xui8>) -> tensor<1x2x3x3xui8> {
  %s = arith.constant dense<0.05> : tensor<f32>
  %z = arith.constant dense<7> : tensor<ui8>
  %0 = onnx.node "DequantizeLinear"(%x, %s, %z) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x5x5xf32>
  %1 = onnx.node "MaxPool"(%0) {attrs = {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]}, domain = "", opset = 13 : i64} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %2 = onnx.node "QuantizeLinear"(%1, %s, %z) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<1x2x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x3x3xui8>
  return %2 : tensor<1x2x3x3xui8>
}

// -----

// Another scale after the pool: the pool stays on the dequantized f32
// values, and the QuantizeLinear divides in f32 (x and the scale are f32,
// as ONNX's reference divides).
// CHECK-LABEL: func.func @qdq_maxpool_rescaled
// CHECK: linalg.pooling_nhwc_max
// CHECK-NOT: f64
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: math.roundeven %{{.*}} : f32
// CHECK: return %{{.*}} : tensor<1x2x3x3xi8>
func.func @qdq_maxpool_rescaled(%x: tensor<1x2x5x5xui8>) -> tensor<1x2x3x3xui8> {
  %s = arith.constant dense<0.05> : tensor<f32>
  %s2 = arith.constant dense<0.1> : tensor<f32>
  %z = arith.constant dense<7> : tensor<ui8>
  %0 = onnx.node "DequantizeLinear"(%x, %s, %z) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<1x2x5x5xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x5x5xf32>
  %1 = onnx.node "MaxPool"(%0) {attrs = {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]}, domain = "", opset = 13 : i64} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %2 = onnx.node "QuantizeLinear"(%1, %s2, %z) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<1x2x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x3x3xui8>
  return %2 : tensor<1x2x3x3xui8>
}
