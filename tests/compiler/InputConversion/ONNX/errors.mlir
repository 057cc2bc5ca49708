// RUN: strata-opt --split-input-file --verify-diagnostics --strata-lower-onnx %s

func.func @unsupported(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{onnx node 'n1' (NoSuchOp, opset 17): the op type is not supported}}
  %0 = onnx.node "NoSuchOp"(%a) {attrs = {}, domain = "", node_name = "n1", opset = 17 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @shape_not_integers(%a: tensor<6xf32>, %s: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{onnx node 'r' (Reshape, opset 14): input 1 (shape) must be an integer tensor of rank 0 or 1 with at most 64 elements; it is tensor<2xf32>}}
  %0 = onnx.node "Reshape"(%a, %s) {attrs = {}, domain = "", node_name = "r", opset = 14 : i64} : (tensor<6xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @dynamic(%a: tensor<?x4xf32>, %slope: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{onnx node (PRelu, opset 16): input 0 has the type tensor<?x4xf32>; the PRelu lowering takes static shapes only: fix the graph inputs' dimensions with --input-shape=NAME=DIMS}}
  %0 = onnx.node "PRelu"(%a, %slope) {attrs = {}, domain = "", opset = 16 : i64} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
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

// Range's bounds have one type: an integer range with a float limit of
// 1e30 cast values beyond int64.
func.func @range_types() -> tensor<3xi64> {
  %s = arith.constant dense<0> : tensor<i64>
  %l = arith.constant dense<1.0e30> : tensor<f32>
  %d = arith.constant dense<1.0e25> : tensor<f32>
  // expected-error @+1 {{onnx node (Range, opset 11): input 1 has element type f32; the op type takes the element type of input 0 (i64)}}
  %0 = onnx.node "Range"(%s, %l, %d) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
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

// -----

// Each op type's assumptions about its inputs' ranks and element types are
// checked before its pattern runs (InputSpecs.cpp). A QLinearConv whose
// weight is 1-D (found by onnx_fuzzer: it read the weight's second
// dimension).
func.func @qlinearconv_weight_rank(%x: tensor<1x1x7x7xi8>, %s: tensor<f32>, %z: tensor<i8>, %w: tensor<1xi8>, %ws: tensor<1xf32>, %wz: tensor<1xi8>) -> tensor<1x1x7x7xi8> {
  // expected-error @+1 {{onnx node (QLinearConv, opset 10): input 3 has rank 1; the op type takes the rank of input 0 (4)}}
  %0 = onnx.node "QLinearConv"(%x, %s, %z, %w, %ws, %wz, %s, %z) {attrs = {}, domain = "", opset = 10 : i64} : (tensor<1x1x7x7xi8>, tensor<f32>, tensor<i8>, tensor<1xi8>, tensor<1xf32>, tensor<1xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x7x7xi8>
  return %0 : tensor<1x1x7x7xi8>
}

// -----

func.func @conv_rank(%x: tensor<1x4xf32>, %w: tensor<1x4xf32>) -> tensor<1x1xf32> {
  // expected-error @+1 {{onnx node 'c' (Conv, opset 11): input 0 has rank 2; the op type takes rank 3 to 5}}
  %0 = onnx.node "Conv"(%x, %w) {attrs = {}, domain = "", node_name = "c", opset = 11 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

func.func @conv_weight_type(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x2x2xf16>) -> tensor<1x1x3x3xf32> {
  // expected-error @+1 {{onnx node (Conv, opset 11): input 1 has element type f16; the op type takes the element type of input 0 (f32)}}
  %0 = onnx.node "Conv"(%x, %w) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf16>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

func.func @conv_bias_size(%x: tensor<1x1x4x4xf32>, %w: tensor<2x1x2x2xf32>, %b: tensor<3xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{onnx node (Conv, opset 11): input 2 (B) has 3 values; it takes one per output channel (2)}}
  %0 = onnx.node "Conv"(%x, %w, %b) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<1x1x4x4xf32>, tensor<2x1x2x2xf32>, tensor<3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

func.func @gather_scalar_data(%a: tensor<f32>, %i: tensor<1xi64>) -> tensor<1xf32> {
  // expected-error @+1 {{onnx node (Gather, opset 13): input 0 has rank 0; the op type takes rank 1 or more}}
  %0 = onnx.node "Gather"(%a, %i) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<f32>, tensor<1xi64>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @gather_float_indices(%a: tensor<4xf32>, %i: tensor<1xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{onnx node (Gather, opset 13): input 1 has element type f32; the op type takes an int32 or int64 tensor}}
  %0 = onnx.node "Gather"(%a, %i) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<4xf32>, tensor<1xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @batchnorm_channels(%x: tensor<1x3x2xf32>, %s: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<1x3x2xf32> {
  // expected-error @+1 {{onnx node (BatchNormalization, opset 15): input 1 has the type tensor<2xf32>; the op type takes one value per channel of input 0 (3)}}
  %0 = onnx.node "BatchNormalization"(%x, %s, %b, %b, %b) {attrs = {}, domain = "", opset = 15 : i64} : (tensor<1x3x2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x2xf32>
  return %0 : tensor<1x3x2xf32>
}

// -----

func.func @concat_types(%a: tensor<2xf32>, %b: tensor<2xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{onnx node (Concat, opset 13): input 1 has element type i64; the op type takes the element type of input 0 (f32)}}
  %0 = onnx.node "Concat"(%a, %b) {attrs = {axis = 0 : i64}, domain = "", opset = 13 : i64} : (tensor<2xf32>, tensor<2xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @where_condition(%c: tensor<2xf32>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{onnx node (Where, opset 16): input 0 has element type f32; the op type takes a bool tensor}}
  %0 = onnx.node "Where"(%c, %a, %a) {attrs = {}, domain = "", opset = 16 : i64} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tile's repeats make a shape whose element count overflows int64 (found
// by onnx_fuzzer: the fold of the constant input sized a buffer by it).
func.func @tile_overflow() -> tensor<2x2xf32> {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %r = arith.constant dense<[1099511627776, 1099511627776]> : tensor<2xi64>
  // expected-error @+1 {{onnx node (Tile, opset 13): the result would have the shape [2199023255552x2199023255552], which is not a tensor shape of fewer than 2^62 bytes}}
  %0 = onnx.node "Tile"(%a, %r) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Resize's scales make a shape of more than 2^62 bytes (found by
// onnx_fuzzer, as Tile above).
func.func @resize_huge() -> tensor<1x1x4x4xf32> {
  %x = arith.constant dense<1.0> : tensor<1x1x2x2xf32>
  %s = arith.constant dense<[1.0, 1.0, 1073741824.0, 1073741824.0]> : tensor<4xf32>
  %none = onnx.none : none
  // expected-error @+1 {{onnx node (Resize, opset 13): the result would have the shape [1x1x2147483648x2147483648], which is not a tensor shape of fewer than 2^62 bytes}}
  %0 = onnx.node "Resize"(%x, %none, %s) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<1x1x2x2xf32>, none, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @resize_scale_nan() -> tensor<1x1x4x4xf32> {
  %x = arith.constant dense<1.0> : tensor<1x1x2x2xf32>
  %s = arith.constant dense<[1.0, 1.0, 0x7FC00000, 2.0]> : tensor<4xf32>
  %none = onnx.none : none
  // expected-error @+1 {{onnx node (Resize, opset 13): scale nan of axis 2 is not a positive number that makes a size below 2^62}}
  %0 = onnx.node "Resize"(%x, %none, %s) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<1x1x2x2xf32>, none, tensor<4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @unsqueeze_repeated_axis(%a: tensor<2xf32>) -> tensor<1x1x2xf32> {
  %axes = arith.constant dense<[0, 0]> : tensor<2xi64>
  // expected-error @+1 {{onnx node (Unsqueeze, opset 13): axes lists axis 0 twice}}
  %0 = onnx.node "Unsqueeze"(%a, %axes) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2xf32>, tensor<2xi64>) -> tensor<1x1x2xf32>
  return %0 : tensor<1x1x2xf32>
}

// -----

func.func @transpose_not_a_permutation(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{onnx node (Transpose, opset 13): perm is not a permutation of the 2 axes}}
  %0 = onnx.node "Transpose"(%a) {attrs = {perm = [0, 0]}, domain = "", opset = 13 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gathernd_index_length(%a: tensor<2xf32>, %i: tensor<1x2xi64>) -> tensor<1xf32> {
  // expected-error @+1 {{onnx node (GatherND, opset 13): the indices' last dimension is 2, more than the data's rank 1}}
  %0 = onnx.node "GatherND"(%a, %i) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2xf32>, tensor<1x2xi64>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @dequantize_axis_scale(%x: tensor<2x3xi8>, %s: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{onnx node (DequantizeLinear, opset 13): input 1 has 4 values in rank 1; a per-axis parameter is 1-D with one value per index of axis 1 (3)}}
  %0 = onnx.node "DequantizeLinear"(%x, %s) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x3xi8>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @qlinearmatmul_zero_point(%a: tensor<2x3xi8>, %s: tensor<f32>, %z: tensor<i8>, %b: tensor<3x4xi8>, %bz: tensor<5xi8>) -> tensor<2x4xi8> {
  // expected-error @+1 {{onnx node (QLinearMatMul, opset 10): input 5 has 5 values in rank 1; it takes one value, or one per index of a dimension of 4}}
  %0 = onnx.node "QLinearMatMul"(%a, %s, %z, %b, %s, %bz, %s, %z) {attrs = {}, domain = "", opset = 10 : i64} : (tensor<2x3xi8>, tensor<f32>, tensor<i8>, tensor<3x4xi8>, tensor<f32>, tensor<5xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4xi8>
  return %0 : tensor<2x4xi8>
}

// -----

// A scalar has no axis 0 (an axis was accepted for rank 0, then the
// pattern read dimension 0 of the scalar's shape).
func.func @argmax_scalar(%a: tensor<f32>) -> tensor<i64> {
  // expected-error @+1 {{onnx node (ArgMax, opset 13): axis 0 is out of range for rank 0}}
  %0 = onnx.node "ArgMax"(%a) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<f32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @reduce_repeated_axis(%a: tensor<2x3xf32>) -> tensor<1x3xf32> {
  // expected-error @+1 {{onnx node (ReduceMean, opset 13): axes lists axis 0 twice}}
  %0 = onnx.node "ReduceMean"(%a) {attrs = {axes = [0, -2]}, domain = "", opset = 13 : i64} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

func.func @reverse_sequence_axes(%a: tensor<2x3xf32>, %l: tensor<3xi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{onnx node (ReverseSequence, opset 10): batch_axis 7 and time_axis 0 are not 0 and 1 in some order}}
  %0 = onnx.node "ReverseSequence"(%a, %l) {attrs = {batch_axis = 7 : i64}, domain = "", opset = 10 : i64} : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @reverse_sequence_lengths(%a: tensor<2x3xf32>, %l: tensor<2xi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{onnx node (ReverseSequence, opset 10): input 1 (sequence_lens) has 2 values for a batch of 3}}
  %0 = onnx.node "ReverseSequence"(%a, %l) {attrs = {}, domain = "", opset = 10 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @scatternd_index_length(%a: tensor<4xf32>, %i: tensor<1x2xi64>, %u: tensor<1xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{onnx node (ScatterND, opset 13): the indices' last dimension is 2; it takes 1 to the data's rank 1}}
  %0 = onnx.node "ScatterND"(%a, %i, %u) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<4xf32>, tensor<1x2xi64>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @scatternd_updates(%a: tensor<4x2xf32>, %i: tensor<3x1xi64>, %u: tensor<3xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{onnx node (ScatterND, opset 13): input 2 (updates) must have the shape [3x2]: the indices' but the last, then the data's from dimension 1}}
  %0 = onnx.node "ScatterND"(%a, %i, %u) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<4x2xf32>, tensor<3x1xi64>, tensor<3xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @onehot_values(%i: tensor<2xi64>, %v: tensor<3xf32>) -> tensor<2x4xf32> {
  %d = arith.constant dense<4> : tensor<i64>
  // expected-error @+1 {{onnx node (OneHot, opset 11): input 2 (values) has 3 values; it takes two: [off, on]}}
  %0 = onnx.node "OneHot"(%i, %d, %v) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<2xi64>, tensor<i64>, tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @einsum_output_letter(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{onnx node (Einsum, opset 12): the equation's output 'iz' has a letter that no input term names once}}
  %0 = onnx.node "Einsum"(%a) {attrs = {equation = "ij->iz"}, domain = "", opset = 12 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @layernorm_scale(%x: tensor<2x3xf32>, %s: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{onnx node (LayerNormalization, opset 17): input 1 does not broadcast to the shape of input 0}}
  %0 = onnx.node "LayerNormalization"(%x, %s) {attrs = {}, domain = "", opset = 17 : i64} : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @nll_target_shape(%x: tensor<2x3xf32>, %t: tensor<5xi64>) -> tensor<f32> {
  // expected-error @+1 {{onnx node (NegativeLogLikelihoodLoss, opset 13): the target's shape is not the input's without its class dimension}}
  %0 = onnx.node "NegativeLogLikelihoodLoss"(%x, %t) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x3xf32>, tensor<5xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @rnn_bias_shape(%x: tensor<1x1x3xf32>, %w: tensor<1x2x3xf32>, %r: tensor<1x2x2xf32>, %b: tensor<1x3xf32>) -> tensor<1x1x1x2xf32> {
  // expected-error @+1 {{onnx node (RNN, opset 14): the shapes of B, initial_h, initial_c or P do not match the directions, the batch and the hidden size}}
  %0 = onnx.node "RNN"(%x, %w, %r, %b) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<1x1x3xf32>, tensor<1x2x3xf32>, tensor<1x2x2xf32>, tensor<1x3xf32>) -> tensor<1x1x1x2xf32>
  return %0 : tensor<1x1x1x2xf32>
}

// -----

// Each step of a recurrence is unrolled: a declared sequence of 10^9 steps
// would build ops until the process ran out of memory.
func.func @rnn_long_sequence(%x: tensor<1000000000x1x3xf32>, %w: tensor<1x2x3xf32>, %r: tensor<1x2x2xf32>) -> tensor<1000000000x1x1x2xf32> {
  // expected-error @+1 {{onnx node (RNN, opset 14): a sequence of 1000000000 steps in 1 directions is more than the 4096 steps unrolled at most}}
  %0 = onnx.node "RNN"(%x, %w, %r) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<1000000000x1x3xf32>, tensor<1x2x3xf32>, tensor<1x2x2xf32>) -> tensor<1000000000x1x1x2xf32>
  return %0 : tensor<1000000000x1x1x2xf32>
}

// -----

// blocksize^2 overflowed int64.
func.func @depth_to_space_blocksize(%a: tensor<1x4x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{onnx node (DepthToSpace, opset 13): channels are not a multiple of blocksize^2}}
  %0 = onnx.node "DepthToSpace"(%a) {attrs = {blocksize = 4294967296 : i64}, domain = "", opset = 13 : i64} : (tensor<1x4x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @gridsample_batch(%x: tensor<1x1x4x4xf32>, %g: tensor<2x3x3x2xf32>) -> tensor<1x1x3x3xf32> {
  // expected-error @+1 {{onnx node (GridSample, opset 16): expects an NCHW input and an N x H x W x 2 grid, or an NCDHW input and an N x D x H x W x 3 grid}}
  %0 = onnx.node "GridSample"(%x, %g) {attrs = {}, domain = "", opset = 16 : i64} : (tensor<1x1x4x4xf32>, tensor<2x3x3x2xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

func.func @lrn_rank(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{onnx node (LRN, opset 13): input 0 has rank 1; the op type takes rank 3 or more}}
  %0 = onnx.node "LRN"(%a) {attrs = {size = 3 : i64}, domain = "", opset = 13 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Constant inputs of different shapes were folded by the result's index,
// reading past the smaller one.
func.func @concat_shapes() -> tensor<2x3xf32> {
  %a = arith.constant dense<1.0> : tensor<1x3xf32>
  %b = arith.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  // expected-error @+1 {{onnx node (Concat, opset 13): input 1 has size 2 in dimension 1, input 0 3; only the axis may differ}}
  %0 = onnx.node "Concat"(%a, %b) {attrs = {axis = 0 : i64}, domain = "", opset = 13 : i64} : (tensor<1x3xf32>, tensor<1x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// num_outputs 0 divided by zero.
func.func @split_zero_parts(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{onnx node (Split, opset 18): num_outputs 0 is not the 1 outputs}}
  %0 = onnx.node "Split"(%a) {attrs = {num_outputs = 0 : i64}, domain = "", opset = 18 : i64} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A negative size made a slice type with a negative dimension.
func.func @split_negative_size(%a: tensor<3xf32>) -> (tensor<5xf32>, tensor<2xf32>) {
  %s = arith.constant dense<[5, -2]> : tensor<2xi64>
  // expected-error @+1 {{onnx node (Split, opset 13): the split sizes are negative or overflow}}
  %0:2 = onnx.node "Split"(%a, %s) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<3xf32>, tensor<2xi64>) -> (tensor<5xf32>, tensor<2xf32>)
  return %0#0, %0#1 : tensor<5xf32>, tensor<2xf32>
}

// -----

// full - output_shape overflowed for an output_shape near -2^63.
func.func @conv_transpose_output_shape(%x: tensor<1x1x2x2xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32> {
  // expected-error @+1 {{onnx node (ConvTranspose, opset 11): output_shape -9223372036854775807 of spatial axis 0 is not a size from 1 to 2^62}}
  %0 = onnx.node "ConvTranspose"(%x, %w) {attrs = {output_shape = [-9223372036854775807, 3]}, domain = "", opset = 11 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// The divisors of an average pool are a constant of the output's spatial
// shape: one of 2^26 elements was computed element by element.
func.func @average_pool_huge(%x: tensor<1x1x8192x8192xf32>) -> tensor<1x1x8192x8192xf32> {
  // expected-error @+1 {{onnx node (AveragePool, opset 11): the output's spatial shape has more than 2^20 elements, the most the divisors of an average pool are computed for}}
  %0 = onnx.node "AveragePool"(%x) {attrs = {kernel_shape = [1, 1]}, domain = "", opset = 11 : i64} : (tensor<1x1x8192x8192xf32>) -> tensor<1x1x8192x8192xf32>
  return %0 : tensor<1x1x8192x8192xf32>
}

// -----

func.func @resize_empty_input(%x: tensor<1x0xf32>) -> tensor<1x2xf32> {
  %sizes = arith.constant dense<[1, 2]> : tensor<2xi64>
  %none = onnx.none : none
  // expected-error @+1 {{onnx node (Resize, opset 13): the input is empty: there is nothing to resize}}
  %0 = onnx.node "Resize"(%x, %none, %none, %sizes) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<1x0xf32>, none, none, tensor<2xi64>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// -----

// The training optimizers' groups broadcast elementwise to X's shape: a G
// of another rank indexed past the result's shape.
func.func @adagrad_shapes(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<2xf32>, %g: tensor<2x2xf32>, %h: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  // expected-error @+1 {{onnx node (ai.onnx.preview.training.Adagrad, opset 1): input 3 does not have the floating-point type and shape of input 2}}
  %0:2 = onnx.node "Adagrad"(%r, %t, %x, %g, %h) {attrs = {}, domain = "ai.onnx.preview.training", opset = 1 : i64} : (tensor<f32>, tensor<i64>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// A splat constant of 2^40 values costs nothing to hold, but its values
// were read one by one.
func.func @reshape_huge_shape_input(%a: tensor<6xf32>) -> tensor<6xf32> {
  %s = arith.constant dense<1> : tensor<1099511627776xi64>
  // expected-error @+1 {{onnx node (Reshape, opset 14): input 1 (shape) must be an integer tensor of rank 0 or 1 with at most 64 elements; it is tensor<1099511627776xi64>}}
  %0 = onnx.node "Reshape"(%a, %s) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<6xf32>, tensor<1099511627776xi64>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @compress_huge_condition(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<true> : tensor<1099511627776xi1>
  // expected-error @+1 {{onnx node (Compress, opset 11): input 1 (condition) holds 1099511627776 values; at most 1048576 are read at compile time}}
  %0 = onnx.node "Compress"(%a, %c) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<4xf32>, tensor<1099511627776xi1>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A sequence of 0 steps concatenated no step outputs (found by
// onnx_fuzzer: a GRU whose X was 0x3x2).
func.func @gru_empty_sequence(%x: tensor<0x3x2xf32>, %w: tensor<1x15x2xf32>, %r: tensor<1x15x5xf32>) -> tensor<1x3x5xf32> {
  // expected-error @+1 {{onnx node (GRU, opset 14): X has a sequence of 0 steps; at least 1 is supported}}
  %0:2 = onnx.node "GRU"(%x, %w, %r) {attrs = {hidden_size = 5 : i64}, domain = "", opset = 14 : i64} : (tensor<0x3x2xf32>, tensor<1x15x2xf32>, tensor<1x15x5xf32>) -> (none, tensor<1x3x5xf32>)
  return %0#1 : tensor<1x3x5xf32>
}

// -----

// Element types the patterns build their arithmetic on (InputSpecs.cpp).
// Each of these ended in MLIR's verifier (an 'arith.andi' of floats, an
// 'arith.cmpf' of integers) rather than an error naming the node, and
// IsInf of integers crashed.
func.func @and_floats(%a: tensor<2xf32>) -> tensor<2xi1> {
  // expected-error @+1 {{onnx node 'a' (And, opset 7): input 0 has element type f32; the op type takes a bool tensor}}
  %0 = onnx.node "And"(%a, %a) {attrs = {}, domain = "", node_name = "a", opset = 7 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @or_second_input(%a: tensor<2xi1>, %b: tensor<2xi32>) -> tensor<2xi1> {
  // expected-error @+1 {{onnx node (Or, opset 7): input 1 has element type i32; the op type takes a bool tensor}}
  %0 = onnx.node "Or"(%a, %b) {attrs = {}, domain = "", opset = 7 : i64} : (tensor<2xi1>, tensor<2xi32>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @xor_halves(%a: tensor<2xf16>) -> tensor<2xi1> {
  // expected-error @+1 {{onnx node (Xor, opset 7): input 0 has element type f16; the op type takes a bool tensor}}
  %0 = onnx.node "Xor"(%a, %a) {attrs = {}, domain = "", opset = 7 : i64} : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @not_integers(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{onnx node (Not, opset 1): input 0 has element type i32; the op type takes a bool tensor}}
  %0 = onnx.node "Not"(%a) {attrs = {}, domain = "", opset = 1 : i64} : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @bitshift_floats(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{onnx node (BitShift, opset 11): input 0 has element type f32; the op type takes an integer tensor}}
  %0 = onnx.node "BitShift"(%a, %a) {attrs = {direction = "LEFT"}, domain = "", opset = 11 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @bitshift_amounts(%a: tensor<2xi32>, %b: tensor<2xi64>) -> tensor<2xi32> {
  // expected-error @+1 {{onnx node (BitShift, opset 11): input 1 has element type i64; the op type takes the element type of input 0 (i32)}}
  %0 = onnx.node "BitShift"(%a, %b) {attrs = {direction = "LEFT"}, domain = "", opset = 11 : i64} : (tensor<2xi32>, tensor<2xi64>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @isinf_integers(%a: tensor<2xi32>) -> tensor<2xi1> {
  // expected-error @+1 {{onnx node (IsInf, opset 10): input 0 has element type i32; the op type takes a floating-point tensor}}
  %0 = onnx.node "IsInf"(%a) {attrs = {}, domain = "", opset = 10 : i64} : (tensor<2xi32>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @isnan_bools(%a: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{onnx node (IsNaN, opset 13): input 0 has element type i1; the op type takes a floating-point tensor}}
  %0 = onnx.node "IsNaN"(%a) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @less_bools(%a: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{onnx node (Less, opset 13): input 0 has element type i1; the op type takes a numeric (not bool) tensor}}
  %0 = onnx.node "Less"(%a, %a) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @equal_types(%a: tensor<2xf32>, %b: tensor<2xi64>) -> tensor<2xi1> {
  // expected-error @+1 {{onnx node (Equal, opset 13): input 1 has element type i64; the op type takes the element type of input 0 (f32)}}
  %0 = onnx.node "Equal"(%a, %b) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2xf32>, tensor<2xi64>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @add_bools(%a: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{onnx node (Add, opset 14): input 0 has element type i1; the op type takes a numeric (not bool) tensor}}
  %0 = onnx.node "Add"(%a, %a) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @reduce_log_sum_exp_integers(%a: tensor<2x3xi32>) -> tensor<1x1xi32> {
  // expected-error @+1 {{onnx node (ReduceLogSumExp, opset 13): input 0 has element type i32; the op type takes a floating-point tensor}}
  %0 = onnx.node "ReduceLogSumExp"(%a) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x3xi32>) -> tensor<1x1xi32>
  return %0 : tensor<1x1xi32>
}

// -----

// ReduceL2 and ReduceLogSum of integers skipped the square root and the
// logarithm (a sum was returned); they are refused rather than wrong.
func.func @reduce_l2_integers(%a: tensor<2x3xi64>) -> tensor<1x1xi64> {
  // expected-error @+1 {{onnx node (ReduceL2, opset 13): input 0 has element type i64; the op type takes a floating-point tensor}}
  %0 = onnx.node "ReduceL2"(%a) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x3xi64>) -> tensor<1x1xi64>
  return %0 : tensor<1x1xi64>
}

// -----

func.func @argmax_bools(%a: tensor<2x3xi1>) -> tensor<1x3xi64> {
  // expected-error @+1 {{onnx node (ArgMax, opset 13): input 0 has element type i1; the op type takes a numeric (not bool) tensor}}
  %0 = onnx.node "ArgMax"(%a) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x3xi1>) -> tensor<1x3xi64>
  return %0 : tensor<1x3xi64>
}

// -----

// The integer matrix products did not check their inner dimensions (a
// 'tensor.expand_shape' failed to verify).
func.func @matmulinteger_inner(%a: tensor<2x3xi8>, %b: tensor<2x3xi8>) -> tensor<2x3xi32> {
  // expected-error @+1 {{onnx node (MatMulInteger, opset 10): the inner dimensions differ: input 0 has 3 columns, input 1 has 2 rows}}
  %0 = onnx.node "MatMulInteger"(%a, %b) {attrs = {}, domain = "", opset = 10 : i64} : (tensor<2x3xi8>, tensor<2x3xi8>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @qlinearmatmul_inner(%a: tensor<2x3xi8>, %s: tensor<f32>, %z: tensor<i8>, %b: tensor<4x5xi8>) -> tensor<2x5xi8> {
  // expected-error @+1 {{onnx node (QLinearMatMul, opset 10): the inner dimensions differ: input 0 has 3 columns, input 3 has 4 rows}}
  %0 = onnx.node "QLinearMatMul"(%a, %s, %z, %b, %s, %z, %s, %z) {attrs = {}, domain = "", opset = 10 : i64} : (tensor<2x3xi8>, tensor<f32>, tensor<i8>, tensor<4x5xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<2x5xi8>
  return %0 : tensor<2x5xi8>
}

// -----

func.func @qlinearmatmul_batch(%a: tensor<2x2x3xi8>, %s: tensor<f32>, %z: tensor<i8>, %b: tensor<3x3x4xi8>) -> tensor<2x2x4xi8> {
  // expected-error @+1 {{onnx node (QLinearMatMul, opset 10): the batch dimensions do not broadcast}}
  %0 = onnx.node "QLinearMatMul"(%a, %s, %z, %b, %s, %z, %s, %z) {attrs = {}, domain = "", opset = 10 : i64} : (tensor<2x2x3xi8>, tensor<f32>, tensor<i8>, tensor<3x3x4xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<2x2x4xi8>
  return %0 : tensor<2x2x4xi8>
}

// -----

// Branches whose outputs differ in rank cannot be one value.
func.func @if_ranks_differ(%c: tensor<i1>, %x: tensor<2x3xf32>) -> none {
  // expected-error @+1 {{onnx node (If, opset 13): output 0 is tensor<2x3xf32> in then_branch and tensor<6xf32> in else_branch; only dimensions may differ}}
  %0 = onnx.node "If"(%c) {attrs = {}, domain = "", opset = 13 : i64, subgraph_names = ["then_branch", "else_branch"]} : (tensor<i1>) -> none {
    onnx.yield %x : tensor<2x3xf32>
  }, {
    %shape = arith.constant dense<6> : tensor<1xi64>
    %r = onnx.node "Reshape"(%x, %shape) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<2x3xf32>, tensor<1xi64>) -> none
    onnx.yield %r : none
  }
  return %0 : none
}

// -----

func.func @nms_int_boxes(%b: tensor<1x4x4xi32>, %s: tensor<1x1x4xf32>) -> tensor<?x3xi64> {
  // expected-error @+1 {{onnx node 'nms' (NonMaxSuppression, opset 11): input 0 has element type i32; the op type takes a floating-point tensor}}
  %0 = onnx.node "NonMaxSuppression"(%b, %s) {attrs = {}, domain = "", node_name = "nms", opset = 11 : i64} : (tensor<1x4x4xi32>, tensor<1x1x4xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// -----

// A Loop-carried value that changes rank between iterations.
func.func @loop_rank_changes(%m: tensor<i64>, %x: tensor<2xf32>) -> none {
  %none = onnx.none : none
  // expected-error @+1 {{onnx node 'l' (Loop, opset 13): loop-carried value 0 enters as tensor<2xf32> and leaves an iteration as tensor<1x2xf32>; only its dimensions may change}}
  %0 = onnx.node "Loop"(%m, %none, %x) {attrs = {}, domain = "", node_name = "l", opset = 13 : i64, subgraph_names = ["body"]} : (tensor<i64>, none, tensor<2xf32>) -> none {
  ^bb0(%i: none, %c: none, %v: none):
    %axes = arith.constant dense<0> : tensor<1xi64>
    %u = onnx.node "Unsqueeze"(%v, %axes) {attrs = {}, domain = "", opset = 13 : i64} : (none, tensor<1xi64>) -> none
    onnx.yield %c, %u : none, none
  }
  return %0 : none
}

// -----

func.func @nms_three_coordinates(%b: tensor<1x4x3xf32>, %s: tensor<1x1x4xf32>) -> tensor<?x3xi64> {
  // expected-error @+1 {{onnx node 'nms' (NonMaxSuppression, opset 11): input 0 (boxes) has 3 coordinates per box; it takes 4}}
  %0 = onnx.node "NonMaxSuppression"(%b, %s) {attrs = {}, domain = "", node_name = "nms", opset = 11 : i64} : (tensor<1x4x3xf32>, tensor<1x1x4xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// -----

// Only If, Loop and Scan hold subgraphs.
func.func @subgraph_elsewhere(%x: tensor<2xf32>) -> none {
  // expected-error @+1 {{onnx node (Relu, opset 14): the op type takes no graph attribute}}
  %0 = onnx.node "Relu"(%x) {attrs = {}, domain = "", opset = 14 : i64, subgraph_names = ["g"]} : (tensor<2xf32>) -> none {
    onnx.yield
  }
  return %0 : none
}

// -----

func.func @nms_scores_of_other_boxes(%b: tensor<1x4x4xf32>, %s: tensor<1x2x5xf32>) -> tensor<?x3xi64> {
  // expected-error @+1 {{onnx node 'nms' (NonMaxSuppression, opset 11): input 1 (scores) has the shape tensor<1x2x5xf32>; it takes [1, classes, 4] for the boxes' tensor<1x4x4xf32>}}
  %0 = onnx.node "NonMaxSuppression"(%b, %s) {attrs = {}, domain = "", node_name = "nms", opset = 11 : i64} : (tensor<1x4x4xf32>, tensor<1x2x5xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// -----

func.func @nms_too_many_boxes(%b: tensor<1x4097x4xf32>, %s: tensor<1x1x4097xf32>) -> tensor<?x3xi64> {
  // expected-error @+1 {{onnx node 'nms' (NonMaxSuppression, opset 11): it takes at most 4096 boxes; the input has 4097}}
  %0 = onnx.node "NonMaxSuppression"(%b, %s) {attrs = {}, domain = "", node_name = "nms", opset = 11 : i64} : (tensor<1x4097x4xf32>, tensor<1x1x4097xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// -----

func.func @unique_many_slices(%x: tensor<5000x2xf32>) -> tensor<?x2xf32> {
  // expected-error @+1 {{onnx node 'uq' (Unique, opset 11): Unique along an axis compares 5000 slices pairwise; at most 4096 are supported}}
  %0 = onnx.node "Unique"(%x) {attrs = {axis = 0 : i64}, domain = "", node_name = "uq", opset = 11 : i64} : (tensor<5000x2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

func.func @nms_too_many_ranks(%b: tensor<1x4x4xf32>, %s: tensor<1x4611686018427387904x4xf32>) -> tensor<?x3xi64> {
  // expected-error @+1 {{onnx node 'nms' (NonMaxSuppression, opset 11): the ranks would have the shape [1x4611686018427387904x4], which is not a tensor shape of fewer than 2^62 bytes}}
  %0 = onnx.node "NonMaxSuppression"(%b, %s) {attrs = {}, domain = "", node_name = "nms", opset = 11 : i64} : (tensor<1x4x4xf32>, tensor<1x4611686018427387904x4xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}

// -----

func.func @resize_antialias_crop(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %roi = arith.constant dense<[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]> : tensor<8xf32>
  %s = arith.constant dense<[1.0, 1.0, 0.5, 0.5]> : tensor<4xf32>
  // expected-error @+1 {{onnx node (Resize, opset 18): antialias = 1 with tf_crop_and_resize is not supported}}
  %0 = onnx.node "Resize"(%x, %roi, %s) {attrs = {mode = "linear", antialias = 1, coordinate_transformation_mode = "tf_crop_and_resize"}, domain = "", opset = 18 : i64} : (tensor<1x1x4x4xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

func.func @stft_frame_length_unlike_window(%x: tensor<1x16x1xf32>, %w: tensor<8xf32>) -> tensor<1x3x5x2xf32> {
  %s = arith.constant dense<4> : tensor<i64>
  %l = arith.constant dense<6> : tensor<i64>
  // expected-error @+1 {{onnx node 'st' (STFT, opset 17): frame_length 6 differs from the window's size 8}}
  %0 = onnx.node "STFT"(%x, %s, %w, %l) {attrs = {}, domain = "", node_name = "st", opset = 17 : i64} : (tensor<1x16x1xf32>, tensor<i64>, tensor<8xf32>, tensor<i64>) -> tensor<1x3x5x2xf32>
  return %0 : tensor<1x3x5x2xf32>
}

// -----

func.func @float8_arithmetic(%a: tensor<2xf8E5M2>) -> tensor<2xf8E5M2> {
  // expected-error @+1 {{onnx node 'add' (Add, opset 19): input 0 has element type f8E5M2, which Strata lowers only through Cast, CastLike, QuantizeLinear, DequantizeLinear and the ops that move data (Identity, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice, Gather, Expand, Tile, Shape, Size): cast it to a wider type first}}
  %0 = onnx.node "Add"(%a, %a) {attrs = {}, domain = "", node_name = "add", opset = 19 : i64} : (tensor<2xf8E5M2>, tensor<2xf8E5M2>) -> tensor<2xf8E5M2>
  return %0 : tensor<2xf8E5M2>
}

// -----

func.func @stft_zero_step(%x: tensor<1x16x1xf32>, %w: tensor<8xf32>) -> tensor<1x3x5x2xf32> {
  %s = arith.constant dense<0> : tensor<i64>
  // expected-error @+1 {{onnx node 'st' (STFT, opset 17): frame_step 0 is not positive}}
  %0 = onnx.node "STFT"(%x, %s, %w) {attrs = {}, domain = "", node_name = "st", opset = 17 : i64} : (tensor<1x16x1xf32>, tensor<i64>, tensor<8xf32>) -> tensor<1x3x5x2xf32>
  return %0 : tensor<1x3x5x2xf32>
}

// -----

func.func @int4_zero_point_type(%x: tensor<4xi4>, %z: tensor<i8>) -> tensor<4xf32> {
  %s = arith.constant dense<2.0> : tensor<f32>
  // expected-error @+1 {{onnx node 'dq' (DequantizeLinear, opset 21): input 2 (the zero point) has element type i8; it takes input 0's type i4}}
  %0 = onnx.node "DequantizeLinear"(%x, %s, %z) {attrs = {}, domain = "", node_name = "dq", opset = 21 : i64} : (tensor<4xi4>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @mel_bad_datatype() -> tensor<9x8xf32> {
  %m = arith.constant dense<8> : tensor<i32>
  %d = arith.constant dense<16> : tensor<i32>
  %r = arith.constant dense<8192> : tensor<i32>
  %lo = arith.constant dense<0.0> : tensor<f32>
  %hi = arith.constant dense<4096.0> : tensor<f32>
  // expected-error @+1 {{onnx node 'mel' (MelWeightMatrix, opset 17): output_datatype 7 is not a float type (1, 10, 11 or 16)}}
  %0 = onnx.node "MelWeightMatrix"(%m, %d, %r, %lo, %hi) {attrs = {output_datatype = 7 : i64}, domain = "", node_name = "mel", opset = 17 : i64} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<9x8xf32>
  return %0 : tensor<9x8xf32>
}

// -----

func.func @negative_block_size(%x: tensor<4xi8>) -> tensor<4xf32> {
  %s = arith.constant dense<2.0> : tensor<f32>
  // expected-error @+1 {{onnx node 'dq' (DequantizeLinear, opset 21): block_size is -2; it must be positive (or 0: no blocks)}}
  %0 = onnx.node "DequantizeLinear"(%x, %s) {attrs = {block_size = -2 : i64}, domain = "", node_name = "dq", opset = 21 : i64} : (tensor<4xi8>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @mel_zero_bins() -> tensor<9x8xf32> {
  %m = arith.constant dense<0> : tensor<i32>
  %d = arith.constant dense<16> : tensor<i32>
  %r = arith.constant dense<8192> : tensor<i32>
  %lo = arith.constant dense<0.0> : tensor<f32>
  %hi = arith.constant dense<4096.0> : tensor<f32>
  // expected-error @+1 {{onnx node 'mel' (MelWeightMatrix, opset 17): num_mel_bins (0), dft_length (16) and sample_rate (8192) must be positive}}
  %0 = onnx.node "MelWeightMatrix"(%m, %d, %r, %lo, %hi) {attrs = {}, domain = "", node_name = "mel", opset = 17 : i64} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<9x8xf32>
  return %0 : tensor<9x8xf32>
}

// -----

func.func @quantize_output_dtype(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = arith.constant dense<2.0> : tensor<f32>
  // expected-error @+1 {{onnx node 'q' (QuantizeLinear, opset 21): output_dtype 1 is not a quantized type (uint8, int8, uint16, int16, the float8 types, uint4, int4)}}
  %0 = onnx.node "QuantizeLinear"(%x, %s) {attrs = {output_dtype = 1 : i64}, domain = "", node_name = "q", opset = 21 : i64} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @det_integer(%x: tensor<3x3xi32>) -> tensor<i32> {
  // expected-error @+1 {{onnx node 'det' (Det, opset 11): input 0 must be a float tensor of square matrices [..., M, M]; it is tensor<3x3xi32>}}
  %0 = onnx.node "Det"(%x) {attrs = {}, domain = "", node_name = "det", opset = 11 : i64} : (tensor<3x3xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @maxpool_storage_order(%x: tensor<1x2x5x5xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) {
  // expected-error @+1 {{onnx node 'p' (MaxPool, opset 12): storage_order must be 0 (row major) or 1 (column major); it is 2}}
  %y, %i = onnx.node "MaxPool"(%x) {attrs = {kernel_shape = [2, 2], strides = [2, 2], storage_order = 2 : i64}, domain = "", node_name = "p", opset = 12 : i64} : (tensor<1x2x5x5xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  return %y, %i : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>
}

// -----

func.func @maxunpool_small_output(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) -> tensor<1x1x3x4xf32> {
  %s = arith.constant dense<[1, 1, 3, 4]> : tensor<4xi64>
  // expected-error @+1 {{onnx node 'u' (MaxUnpool, opset 11): output_shape's dimension 2 is 3, not a size from 4 (the unpooled size) to 2^40}}
  %0 = onnx.node "MaxUnpool"(%x, %i, %s) {attrs = {kernel_shape = [2, 2], strides = [2, 2]}, domain = "", node_name = "u", opset = 11 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, tensor<4xi64>) -> tensor<1x1x3x4xf32>
  return %0 : tensor<1x1x3x4xf32>
}

// -----

func.func @roialign_transform(%x: tensor<1x2x8x8xf32>, %r: tensor<3x4xf32>, %b: tensor<3xi64>) -> tensor<3x2x1x1xf32> {
  // expected-error @+1 {{onnx node 'roi' (RoiAlign, opset 16): coordinate_transformation_mode 'align_corners' is not half_pixel or output_half_pixel}}
  %0 = onnx.node "RoiAlign"(%x, %r, %b) {attrs = {coordinate_transformation_mode = "align_corners"}, domain = "", node_name = "roi", opset = 16 : i64} : (tensor<1x2x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x1x1xf32>
  return %0 : tensor<3x2x1x1xf32>
}

// -----

func.func @roialign_batch_indices(%x: tensor<1x2x8x8xf32>, %r: tensor<3x4xf32>, %b: tensor<2xi64>) -> tensor<3x2x1x1xf32> {
  // expected-error @+1 {{onnx node 'roi' (RoiAlign, opset 16): input 2 (batch_indices) must be 3 integers, one per region; it is tensor<2xi64>}}
  %0 = onnx.node "RoiAlign"(%x, %r, %b) {attrs = {}, domain = "", node_name = "roi", opset = 16 : i64} : (tensor<1x2x8x8xf32>, tensor<3x4xf32>, tensor<2xi64>) -> tensor<3x2x1x1xf32>
  return %0 : tensor<3x2x1x1xf32>
}

// -----

func.func @deform_conv_3d(%x: tensor<1x2x4x4x4xf32>, %w: tensor<2x2x1x1x1xf32>, %o: tensor<1x3x4x4x4xf32>) -> tensor<1x2x4x4x4xf32> {
  // expected-error @+1 {{onnx node 'dc' (DeformConv, opset 19): input 0 (X) must be a float tensor [N, C, H, W] (2-D deformable convolution); it is tensor<1x2x4x4x4xf32>}}
  %0 = onnx.node "DeformConv"(%x, %w, %o) {attrs = {}, domain = "", node_name = "dc", opset = 19 : i64} : (tensor<1x2x4x4x4xf32>, tensor<2x2x1x1x1xf32>, tensor<1x3x4x4x4xf32>) -> tensor<1x2x4x4x4xf32>
  return %0 : tensor<1x2x4x4x4xf32>
}

// -----

func.func @deform_conv_no_offset(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{onnx node 'dc' (DeformConv, opset 19): input 2 is missing; the op type takes at least 3}}
  %0 = onnx.node "DeformConv"(%x, %w) {attrs = {}, domain = "", node_name = "dc", opset = 19 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// MatMulInteger takes batches of matrices (3-D activations); a zero point
// per row of each batch ([D, M, 1], which ONNX allows) is refused naming
// the input.
func.func @matmulinteger_batched_zero_point(%a: tensor<2x3x4xi8>, %b: tensor<4x5xi8>, %zp: tensor<2x3x1xi8>) -> tensor<2x3x5xi32> {
  // expected-error @+1 {{onnx node (MatMulInteger, opset 10): input 2 has rank 3; the op type takes rank 0 to 1}}
  %0 = onnx.node "MatMulInteger"(%a, %b, %zp) {attrs = {}, domain = "", opset = 10 : i64} : (tensor<2x3x4xi8>, tensor<4x5xi8>, tensor<2x3x1xi8>) -> tensor<2x3x5xi32>
  return %0 : tensor<2x3x5xi32>
}

// -----

// A ConvInteger with a constant weight and an invalid window is reported
// once (its int8 path and the i32 one both read the window).
func.func @convinteger_bad_stride(%x: tensor<1x2x5x5xui8>, %xz: tensor<ui8>) -> tensor<1x3x3x3xi32> {
  %w = arith.constant dense<1> : tensor<3x2x3x3xi8>
  // expected-error @+1 {{onnx node (ConvInteger, opset 10): the kernel size, stride, dilation or pads of spatial axis 0 are out of range (sizes, strides and dilations 1 to 2^30, pads 0 to 2^30)}}
  %0 = onnx.node "ConvInteger"(%x, %w, %xz) {attrs = {strides = [0, 1]}, domain = "", opset = 10 : i64} : (tensor<1x2x5x5xui8>, tensor<3x2x3x3xi8>, tensor<ui8>) -> tensor<1x3x3x3xi32>
  return %0 : tensor<1x3x3x3xi32>
}
