// RUN: strata-opt --split-input-file --strata-lower-onnx %s | FileCheck %s

// QuantizeLinear divides in f32 when x and the scale are f32 (as ONNX's
// reference does), rounds half to even and saturates into the zero
// point's (unsigned) type.
// CHECK-LABEL: func.func @quantize
// CHECK-SAME: -> tensor<4xi8>
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: math.roundeven %{{.*}} : f32
// CHECK: arith.fptoui %{{.*}} : f32 to i8
func.func @quantize(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xui8> {
  %0 = onnx.node "QuantizeLinear"(%x, %s, %z) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// An int32 x divides in f64 (its values need more than f32's 24 bits, and
// ONNX's reference divides them so).
// CHECK-LABEL: func.func @quantize_int32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: math.roundeven %{{.*}} : f64
func.func @quantize_int32(%x: tensor<4xi32>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<4xi8> {
  %0 = onnx.node "QuantizeLinear"(%x, %s, %z) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<4xi32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// A nearest Resize of a constant folds at compile time while its body's ops
// over all elements stay within kFoldWorkLimit (4 x 2^20): 4x4 here folds
// to a constant; 512 x 1024 (the index arithmetic of 524288 elements) is
// left to a kernel instead of taking seconds to fold.
// CHECK-LABEL: func.func @resize_nearest_folds
// CHECK-NOT: linalg.generic
// CHECK: %[[C:.*]] = arith.constant dense<{{.*}}> : tensor<1x1x4x4xf32>
// CHECK: return %[[C]]
func.func @resize_nearest_folds() -> tensor<1x1x4x4xf32> {
  %x = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %roi = arith.constant dense<> : tensor<0xf32>
  %scales = arith.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %0 = onnx.node "Resize"(%x, %roi, %scales) {attrs = {mode = "nearest"}, domain = "", opset = 13 : i64} : (tensor<1x1x2x2xf32>, tensor<0xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}
// CHECK-LABEL: func.func @resize_nearest_too_much_to_fold
// CHECK: linalg.generic
// CHECK: return %{{.*}} : tensor<1x1x512x1024xf32>
func.func @resize_nearest_too_much_to_fold() -> tensor<1x1x512x1024xf32> {
  %x = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %roi = arith.constant dense<> : tensor<0xf32>
  %scales = arith.constant dense<[1.0, 1.0, 256.0, 512.0]> : tensor<4xf32>
  %0 = onnx.node "Resize"(%x, %roi, %scales) {attrs = {mode = "nearest"}, domain = "", opset = 13 : i64} : (tensor<1x1x2x2xf32>, tensor<0xf32>, tensor<4xf32>) -> tensor<1x1x512x1024xf32>
  return %0 : tensor<1x1x512x1024xf32>
}

// -----

// Linear Resize reads the four neighbours of each source coordinate.
// CHECK-LABEL: func.func @resize
// CHECK-COUNT-4: tensor.extract %{{.*}} : tensor<1x1x2x2xf32>
// CHECK: return %{{.*}} : tensor<1x1x4x4xf32>
func.func @resize(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %roi = arith.constant dense<> : tensor<0xf32>
  %scales = arith.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %0 = onnx.node "Resize"(%x, %roi, %scales) {attrs = {mode = "linear"}, domain = "", opset = 13 : i64} : (tensor<1x1x2x2xf32>, tensor<0xf32>, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// OneHot compares each index with the position along the new axis.
// CHECK-LABEL: func.func @onehot
// CHECK: linalg.index 1
// CHECK: arith.cmpi eq
// CHECK: arith.select
func.func @onehot(%i: tensor<3xi64>) -> tensor<3x5xf32> {
  %d = arith.constant dense<5> : tensor<i64>
  %v = arith.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = onnx.node "OneHot"(%i, %d, %v) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Einsum is one generic: the letters missing from the output reduce.
// CHECK-LABEL: func.func @einsum
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @einsum(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = onnx.node "Einsum"(%a, %b) {attrs = {equation = "ij,jk->ik"}, domain = "", opset = 12 : i64} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// TopK unrolls K rounds of max then first index; values and indices are
// concatenated along the axis.
// CHECK-LABEL: func.func @topk
// CHECK-COUNT-2: arith.maximumf
// CHECK: tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
// CHECK: tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<2x1xi64>, tensor<2x1xi64>) -> tensor<2x2xi64>
func.func @topk(%x: tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>) {
  %k = arith.constant dense<2> : tensor<1xi64>
  %0:2 = onnx.node "TopK"(%x, %k) {attrs = {axis = 1 : i64}, domain = "", opset = 11 : i64} : (tensor<2x5xf32>, tensor<1xi64>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  return %0#0, %0#1 : tensor<2x2xf32>, tensor<2x2xi64>
}

// -----

// ConvTranspose is a stride-1 convolution of the spread and padded input
// with the flipped kernel.
// CHECK-LABEL: func.func @convtranspose
// CHECK: tensor.insert_slice
// CHECK: linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x7x7x1xf32>, tensor<3x3x1x2xf32>)
// CHECK: return %{{.*}} : tensor<1x2x5x5xf32>
func.func @convtranspose(%x: tensor<1x1x3x3xf32>, %w: tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32> {
  %0 = onnx.node "ConvTranspose"(%x, %w) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}

// -----

// ScatterElements: the output starts as the data; every update position
// is a reduction loop that lands where its index points.
// CHECK-LABEL: func.func @scatter
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: arith.cmpi eq
// CHECK: arith.select
func.func @scatter(%d: tensor<3x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %0 = onnx.node "ScatterElements"(%d, %i, %u) {attrs = {axis = 0 : i64}, domain = "", opset = 16 : i64} : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// GRU unrolls the sequence: per step one matmul of the input with all
// gates and three of the hidden state (z, r, and the reset state for h).
// CHECK-LABEL: func.func @gru
// CHECK-COUNT-8: linalg.matmul
// CHECK-NOT: linalg.matmul
// CHECK: return %{{.*}} : tensor<1x1x4xf32>
func.func @gru(%x: tensor<2x1x3xf32>, %w: tensor<1x12x3xf32>, %r: tensor<1x12x4xf32>) -> tensor<1x1x4xf32> {
  %0:2 = onnx.node "GRU"(%x, %w, %r) {attrs = {hidden_size = 4 : i64}, domain = "", opset = 14 : i64} : (tensor<2x1x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>) -> (none, tensor<1x1x4xf32>)
  return %0#1 : tensor<1x1x4xf32>
}

// -----

// AveragePool sums NHWC windows and divides by a constant count per
// output position (padding not counted).
// CHECK-LABEL: func.func @avgpool
// CHECK: linalg.pooling_nhwc_sum
// CHECK: arith.constant dense<{{\[}}{{\[}}[4.000000e+00], [6.000000e+00]], {{\[}}[6.000000e+00], [9.000000e+00]]]> : tensor<2x2x1xf32>
// CHECK: arith.divf
func.func @avgpool(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %0 = onnx.node "AveragePool"(%x) {attrs = {kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]}, domain = "", opset = 11 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}
