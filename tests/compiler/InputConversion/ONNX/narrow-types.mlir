// RUN: strata-opt --split-input-file --strata-lower-onnx %s | FileCheck %s

// ONNX's float8 (opset 19) and int4/uint4 (opset 21) tensors are i8
// storage after the lowering: float8 bits, 4-bit values extended.

// Cast to float8 rounds the f32 bits to nearest even with integer
// arithmetic; saturating, the overflow code is the largest finite one
// (E4M3FN: 126), NaN is 127 with the sign.
// CHECK-LABEL: func.func @cast_to_e4m3fn
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xi8>
// CHECK: linalg.generic
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: math.roundeven %{{.*}} : f32
// CHECK: arith.constant 126 : i32
// CHECK: arith.constant 127 : i32
// CHECK: arith.trunci %{{.*}} : i32 to i8
func.func @cast_to_e4m3fn(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  %0 = onnx.node "Cast"(%x) {attrs = {to = 17 : i64}, domain = "", opset = 19 : i64} : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// saturate = 0: E5M2 overflows to infinity (124 with the sign).
// CHECK-LABEL: func.func @cast_to_e5m2_overflow
// CHECK: arith.constant 123 : i32
// CHECK: arith.constant 124 : i32
// CHECK: arith.trunci %{{.*}} : i32 to i8
func.func @cast_to_e5m2_overflow(%x: tensor<4xf32>) -> tensor<4xf8E5M2> {
  %0 = onnx.node "Cast"(%x) {attrs = {to = 19 : i64, saturate = 0 : i64}, domain = "", opset = 19 : i64} : (tensor<4xf32>) -> tensor<4xf8E5M2>
  return %0 : tensor<4xf8E5M2>
}

// -----

// From E5M2: significand times a power of two made in the f32 exponent
// field; exponent 31 is infinity or NaN.
// CHECK-LABEL: func.func @cast_from_e5m2
// CHECK-SAME: (%{{.*}}: tensor<4xi8>) -> tensor<4xf32>
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.uitofp %{{.*}} : i32 to f32
// CHECK: arith.mulf
// CHECK: arith.constant 31 : i32
// CHECK: arith.constant 0x7F800000 : f32
func.func @cast_from_e5m2(%x: tensor<4xf8E5M2>) -> tensor<4xf32> {
  %0 = onnx.node "Cast"(%x) {attrs = {to = 1 : i64}, domain = "", opset = 19 : i64} : (tensor<4xf8E5M2>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// To int4: the low four bits, sign-extended in the i8.
// CHECK-LABEL: func.func @cast_to_int4
// CHECK-SAME: -> tensor<4xi8>
// CHECK: %[[T:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK: %[[L:.*]] = arith.shli %[[T]], %[[F:.*]] : i8
// CHECK: arith.shrsi %[[L]], %[[F]] : i8
func.func @cast_to_int4(%x: tensor<4xi32>) -> tensor<4xi4> {
  %0 = onnx.node "Cast"(%x) {attrs = {to = 22 : i64}, domain = "", opset = 21 : i64} : (tensor<4xi32>) -> tensor<4xi4>
  return %0 : tensor<4xi4>
}

// -----

// QuantizeLinear to int4 (its zero point's type) saturates to [-8, 7].
// CHECK-LABEL: func.func @quantize_int4
// CHECK-SAME: -> tensor<4xi8>
// CHECK: arith.constant dense<-1> : tensor<i8>
// CHECK: math.roundeven %{{.*}} : f32
// CHECK: arith.constant -8.000000e+00 : f32
// CHECK: arith.constant 7.000000e+00 : f32
// CHECK: arith.fptosi %{{.*}} : f32 to i8
func.func @quantize_int4(%x: tensor<4xf32>) -> tensor<4xi4> {
  %s = arith.constant dense<0.5> : tensor<f32>
  %z = arith.constant dense<-1> : tensor<i4>
  %0 = onnx.node "QuantizeLinear"(%x, %s, %z) {attrs = {}, domain = "", opset = 21 : i64} : (tensor<4xf32>, tensor<f32>, tensor<i4>) -> tensor<4xi4>
  return %0 : tensor<4xi4>
}

// -----

// Blocked DequantizeLinear: each scale repeated block_size (4) times along
// the axis and cut to the input's 6.
// CHECK-LABEL: func.func @dequantize_blocked
// CHECK: tensor.expand_shape %{{.*}} output_shape [2, 2, 1]
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x2x1xf32>) outs(%{{.*}} : tensor<2x2x4xf32>)
// CHECK: tensor.expand_shape %{{.*}} output_shape [2, 8]
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [2, 6] [1, 1] : tensor<2x8xf32> to tensor<2x6xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x6xi8>, tensor<2x6xf32>)
func.func @dequantize_blocked(%x: tensor<2x6xi8>, %s: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %0 = onnx.node "DequantizeLinear"(%x, %s) {attrs = {axis = 1 : i64, block_size = 4 : i64}, domain = "", opset = 21 : i64} : (tensor<2x6xi8>, tensor<2x2xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// DequantizeLinear of E4M3FNUZ: decoded (0x80 is NaN), times the scale.
// CHECK-LABEL: func.func @dequantize_e4m3fnuz
// CHECK-SAME: (%{{.*}}: tensor<4xi8>) -> tensor<4xf32>
// CHECK: arith.constant 128 : i32
// CHECK: arith.mulf
func.func @dequantize_e4m3fnuz(%x: tensor<4xf8E4M3FNUZ>) -> tensor<4xf32> {
  %s = arith.constant dense<2.0> : tensor<f32>
  %0 = onnx.node "DequantizeLinear"(%x, %s) {attrs = {}, domain = "", opset = 19 : i64} : (tensor<4xf8E4M3FNUZ>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Ops that move data move the bits.
// CHECK-LABEL: func.func @reshape_float8
// CHECK-SAME: (%[[X:.*]]: tensor<6xi8>) -> tensor<2x3xi8>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[X]] {{.*}} : tensor<6xi8> into tensor<2x3xi8>
// CHECK: return %[[R]]
func.func @reshape_float8(%x: tensor<6xf8E4M3FN>) -> tensor<2x3xf8E4M3FN> {
  %shape = arith.constant dense<[2, 3]> : tensor<2xi64>
  %0 = onnx.node "Reshape"(%x, %shape) {attrs = {}, domain = "", opset = 19 : i64} : (tensor<6xf8E4M3FN>, tensor<2xi64>) -> tensor<2x3xf8E4M3FN>
  return %0 : tensor<2x3xf8E4M3FN>
}

// -----

// An int4 argument is checked in range on entry.
// CHECK-LABEL: func.func @int4_argument
// CHECK-SAME: (%[[X:.*]]: tensor<4xi8>) -> tensor<4xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[X]] : tensor<4xi8>)
// CHECK: arith.cmpi sle
// CHECK: arith.cmpi sge
// CHECK: %[[OK:.*]] = tensor.extract
// CHECK: cf.assert %[[OK]], "argument 0 is int4, given as int8 values one a byte, and holds a value outside [-8, 7]"
// CHECK: arith.sitofp %{{.*}} : i8 to f32
func.func @int4_argument(%x: tensor<4xi4>) -> tensor<4xf32> {
  %0 = onnx.node "Cast"(%x) {attrs = {to = 1 : i64}, domain = "", opset = 21 : i64} : (tensor<4xi4>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// int4 and uint4 constants are stored extended (uint4 15 stays 15).
// CHECK-LABEL: func.func @int4_constants
// CHECK-DAG: arith.constant dense<[-8, 7, -1]> : tensor<3xi32>
// CHECK-DAG: arith.constant dense<[15, 0, 9]> : tensor<3xi32>
func.func @int4_constants() -> (tensor<3xi32>, tensor<3xi32>) {
  %c = arith.constant dense<[-8, 7, -1]> : tensor<3xi4>
  %u = arith.constant dense<[15, 0, 9]> : tensor<3xui4>
  %0 = onnx.node "Cast"(%c) {attrs = {to = 6 : i64}, domain = "", opset = 21 : i64} : (tensor<3xi4>) -> tensor<3xi32>
  %1 = onnx.node "Cast"(%u) {attrs = {to = 6 : i64}, domain = "", opset = 21 : i64} : (tensor<3xui4>) -> tensor<3xi32>
  return %0, %1 : tensor<3xi32>, tensor<3xi32>
}
