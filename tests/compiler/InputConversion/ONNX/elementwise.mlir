// RUN: strata-opt --split-input-file --strata-lower-onnx %s | FileCheck %s

// Binary ops broadcast with numpy's rules: the smaller operand is read
// through a map with the broadcast dims dropped.
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK: arith.addf
// CHECK: return %[[R]] : tensor<2x3xf32>
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = onnx.node "Add"(%a, %b) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Integer division truncates; unsigned inputs divide unsigned and the
// function keeps signless types at its boundary.
// CHECK-LABEL: func.func @div_unsigned
// CHECK-SAME: (%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> tensor<4xi8>
// CHECK: arith.divui
func.func @div_unsigned(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = onnx.node "Div"(%a, %b) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Transcendental functions on f16 are computed in f32.
// CHECK-LABEL: func.func @exp_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @exp_f16(%a: tensor<5xf16>) -> tensor<5xf16> {
  %0 = onnx.node "Exp"(%a) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<5xf16>) -> tensor<5xf16>
  return %0 : tensor<5xf16>
}

// -----

// Cast to an unsigned type converts toward zero (fptoui); comparisons
// give i1.
// CHECK-LABEL: func.func @cast_and_compare
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK: arith.cmpi ugt
// CHECK: return %{{.*}} : tensor<3xi1>
func.func @cast_and_compare(%a: tensor<3xf32>, %b: tensor<3xui8>) -> tensor<3xi1> {
  %0 = onnx.node "Cast"(%a) {attrs = {to = 2 : i64}, domain = "", opset = 13 : i64} : (tensor<3xf32>) -> tensor<3xui8>
  %1 = onnx.node "Greater"(%0, %b) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xi1>
  return %1 : tensor<3xi1>
}

// -----

// Work on constants folds at compile time: no generic is left.
// CHECK-LABEL: func.func @folded
// CHECK-NOT: linalg.generic
// CHECK: %[[C:.*]] = arith.constant dense<[3, 5]> : tensor<2xi64>
// CHECK: return %[[C]]
func.func @folded() -> tensor<2xi64> {
  %a = arith.constant dense<[1, 2]> : tensor<2xi64>
  %b = arith.constant dense<[2, 3]> : tensor<2xi64>
  %0 = onnx.node "Add"(%a, %b) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Clip before opset 11 takes its bounds from attributes.
// CHECK-LABEL: func.func @clip_attrs
// CHECK: arith.maximumf
// CHECK: arith.minimumf
func.func @clip_attrs(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = onnx.node "Clip"(%a) {attrs = {min = -1.0 : f32, max = 1.0 : f32}, domain = "", opset = 6 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// PRelu before opset 7 with one slope per channel, on integers: integer
// ops (it built arith.cmpf on i32, which failed to verify).
// CHECK-LABEL: func.func @prelu_channels_integers
// CHECK: linalg.generic
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[X:.*]], %{{.*}} : i32
// CHECK: %[[SCALED:.*]] = arith.muli %{{.*}}, %[[X]] : i32
// CHECK: arith.select %[[NEG]], %[[SCALED]], %[[X]] : i32
func.func @prelu_channels_integers(%x: tensor<1x2x3xi32>, %s: tensor<2xi32>) -> tensor<1x2x3xi32> {
  %0 = onnx.node "PRelu"(%x, %s) {attrs = {}, domain = "", opset = 6 : i64} : (tensor<1x2x3xi32>, tensor<2xi32>) -> tensor<1x2x3xi32>
  return %0 : tensor<1x2x3xi32>
}

// -----

// PRelu of unsigned integers is the input (nothing is below 0; they were
// compared as signed), and its result stays unsigned for the next node.
// CHECK-LABEL: func.func @prelu_unsigned
// CHECK-NOT: arith.cmpi
// CHECK: arith.divui
func.func @prelu_unsigned(%x: tensor<2x3xui8>, %s: tensor<3xui8>) -> tensor<2x3xui8> {
  %0 = onnx.node "PRelu"(%x, %s) {attrs = {}, domain = "", opset = 16 : i64} : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  %1 = onnx.node "Div"(%0, %x) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<2x3xui8>, tensor<2x3xui8>) -> tensor<2x3xui8>
  return %1 : tensor<2x3xui8>
}
