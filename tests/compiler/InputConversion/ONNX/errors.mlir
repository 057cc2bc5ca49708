// RUN: strata-opt --split-input-file --verify-diagnostics --strata-lower-onnx %s

func.func @unsupported(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{onnx node 'n1' (NoSuchOp, opset 17): the op type is not supported}}
  %0 = onnx.node "NoSuchOp"(%a) {attrs = {}, domain = "", node_name = "n1", opset = 17 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @data_dependent_shape(%a: tensor<6xf32>, %s: tensor<2xi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{onnx node 'r' (Reshape, opset 14): input 1 (shape) must be an integer tensor known at compile time; data-dependent values are not supported}}
  %0 = onnx.node "Reshape"(%a, %s) {attrs = {}, domain = "", node_name = "r", opset = 14 : i64} : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @dynamic(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{onnx node (Relu, opset 14): input 0 has the type tensor<?x4xf32>; dynamic shapes are not supported yet: fix the graph inputs' dimensions with --input-shape=NAME=DIMS}}
  %0 = onnx.node "Relu"(%a) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @bad_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{onnx node 'add' (Add, opset 14): the input shapes do not broadcast}}
  %0 = onnx.node "Add"(%a, %b) {attrs = {}, domain = "", node_name = "add", opset = 14 : i64} : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @domain(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{onnx node (com.microsoft.Gelu, opset 1): the domain 'com.microsoft' is not supported}}
  %0 = onnx.node "Gelu"(%a) {attrs = {}, domain = "com.microsoft", opset = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Sizes, counts and scalars read from constants are checked before they
// make a type or a loop (each of these crashed or ran out of memory).
func.func @window_negative() -> tensor<3xf32> {
  %n = arith.constant dense<-3> : tensor<i64>
  // expected-error @+1 {{onnx node (HannWindow, opset 17): size -3 is not a window size from 1 to 1048576}}
  %0 = onnx.node "HannWindow"(%n) {attrs = {}, domain = "", opset = 17 : i64} : (tensor<i64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @window_huge() -> tensor<3xf32> {
  %n = arith.constant dense<1099511627776> : tensor<i64>
  // expected-error @+1 {{onnx node (HannWindow, opset 17): size 1099511627776 is not a window size from 1 to 1048576}}
  %0 = onnx.node "HannWindow"(%n) {attrs = {}, domain = "", opset = 17 : i64} : (tensor<i64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @window_empty() -> tensor<3xf32> {
  %n = arith.constant dense<> : tensor<0xi64>
  // expected-error @+1 {{onnx node (HannWindow, opset 17): input 0 (size) must hold one value; it holds 0}}
  %0 = onnx.node "HannWindow"(%n) {attrs = {}, domain = "", opset = 17 : i64} : (tensor<0xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @cumsum_empty_axis(%a: tensor<4xf32>) -> tensor<4xf32> {
  %axis = arith.constant dense<> : tensor<0xi64>
  // expected-error @+1 {{onnx node (CumSum, opset 14): input 1 (axis) must hold one value; it holds 0}}
  %0 = onnx.node "CumSum"(%a, %axis) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<4xf32>, tensor<0xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @range_huge() -> tensor<3xf32> {
  %s = arith.constant dense<0.0> : tensor<f32>
  %l = arith.constant dense<1.0e30> : tensor<f32>
  %d = arith.constant dense<1.0> : tensor<f32>
  // expected-error @+1 {{values (or none that is a number)}}
  %0 = onnx.node "Range"(%s, %l, %d) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @range_nan() -> tensor<3xf32> {
  %s = arith.constant dense<0.0> : tensor<f32>
  %l = arith.constant dense<0x7FC00000> : tensor<f32>
  %d = arith.constant dense<1.0> : tensor<f32>
  // expected-error @+1 {{values (or none that is a number)}}
  %0 = onnx.node "Range"(%s, %l, %d) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @constant_of_negative_shape() -> tensor<3xf32> {
  %shape = arith.constant dense<[-3]> : tensor<1xi64>
  // expected-error @+1 {{onnx node (ConstantOfShape, opset 9): the result would have the shape [-3], which is not a tensor shape of fewer than 2^62 bytes}}
  %0 = onnx.node "ConstantOfShape"(%shape) {attrs = {}, domain = "", opset = 9 : i64} : (tensor<1xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @constant_of_huge_shape() -> tensor<3xf32> {
  %shape = arith.constant dense<[4611686018427387904, 4]> : tensor<2xi64>
  // expected-error @+1 {{onnx node (ConstantOfShape, opset 9): the result would have the shape [4611686018427387904x4], which is not a tensor shape of fewer than 2^62 bytes}}
  %0 = onnx.node "ConstantOfShape"(%shape) {attrs = {}, domain = "", opset = 9 : i64} : (tensor<2xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @tile_negative(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = arith.constant dense<[-1]> : tensor<1xi64>
  // expected-error @+1 {{onnx node (Tile, opset 13): repeats -1 of axis 0 is negative or too large}}
  %0 = onnx.node "Tile"(%a, %r) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2xf32>, tensor<1xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @pad_crops_too_much(%a: tensor<2xf32>) -> tensor<2xf32> {
  %p = arith.constant dense<[-2, -1]> : tensor<2xi64>
  // expected-error @+1 {{onnx node (Pad, opset 13): the negative pads of axis 0 remove more than its 2 elements}}
  %0 = onnx.node "Pad"(%a, %p) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @onehot_depth_nan(%i: tensor<2xi64>, %v: tensor<2xf32>) -> tensor<2x3xf32> {
  %d = arith.constant dense<0x7FC00000> : tensor<f32>
  // expected-error @+1 {{is not a number of classes from 1 to 2^40}}
  %0 = onnx.node "OneHot"(%i, %d, %v) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<2xi64>, tensor<f32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A requested shape whose element count overflows int64 (found by
// onnx_fuzzer: a signed overflow).
func.func @reshape_overflow(%a: tensor<6xf32>) -> tensor<6xf32> {
  %s = arith.constant dense<[6, 7815152728371363842]> : tensor<2xi64>
  // expected-error @+1 {{onnx node (Reshape, opset 14): the shape's element count overflows a 64-bit integer}}
  %0 = onnx.node "Reshape"(%a, %s) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<6xf32>, tensor<2xi64>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// A stride of 0 divided by zero; window parameters are bounded.
func.func @pool_stride_zero(%a: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{onnx node (MaxPool, opset 12): the kernel size, stride, dilation or pads of spatial axis 0 are out of range (sizes, strides and dilations 1 to 2^30, pads 0 to 2^30)}}
  %0 = onnx.node "MaxPool"(%a) {attrs = {kernel_shape = [2, 2], strides = [0, 2]}, domain = "", opset = 12 : i64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// A node without the inputs its op type requires (found by onnx_fuzzer: a
// Squeeze with none read a null value).
func.func @missing_input() -> tensor<3xf32> {
  // expected-error @+1 {{onnx node (Squeeze, opset 13): input 0 is missing; the op type takes at least 1}}
  %0 = onnx.node "Squeeze"() {attrs = {}, domain = "", opset = 13 : i64} : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @missing_second_input(%a: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{onnx node (Add, opset 14): input 1 is missing; the op type takes at least 2}}
  %0 = onnx.node "Add"(%a) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// An LSTM whose X is not of rank 3 (found by onnx_fuzzer: it read a third
// dimension of a rank-1 tensor).
func.func @lstm_rank(%x: tensor<4xf32>, %w: tensor<1x8x3xf32>, %r: tensor<1x8x2xf32>) -> tensor<1x1x1x2xf32> {
  // expected-error @+1 {{onnx node (LSTM, opset 14): X, W and R must have rank 3, B rank 2, initial_h and initial_c rank 3}}
  %0 = onnx.node "LSTM"(%x, %w, %r) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<4xf32>, tensor<1x8x3xf32>, tensor<1x8x2xf32>) -> tensor<1x1x1x2xf32>
  return %0 : tensor<1x1x1x2xf32>
}
