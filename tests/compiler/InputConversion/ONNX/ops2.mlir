// RUN: strata-opt --split-input-file --strata-lower-onnx %s | FileCheck %s

// Pad in reflect mode reads the input at mirrored indices.
// CHECK-LABEL: func.func @pad_reflect
// CHECK: linalg.generic
// CHECK: arith.remsi
// CHECK: tensor.extract %{{.*}} : tensor<3x2xf32>
func.func @pad_reflect(%x: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %p = arith.constant dense<[0, 2, 0, 0]> : tensor<4xi64>
  %0 = onnx.node "Pad"(%x, %p) {attrs = {mode = "reflect"}, domain = "", opset = 13 : i64} : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Tile reads the input modulo its dims.
// CHECK-DAG: #[[TILE:.*]] = affine_map<(d0, d1) -> (d0 mod 2, d1 mod 3)>
// CHECK-LABEL: func.func @tile
// CHECK: linalg.generic {indexing_maps = [#[[TILE]],
func.func @tile(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %r = arith.constant dense<[2, 1]> : tensor<2xi64>
  %0 = onnx.node "Tile"(%x, %r) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Range of constants folds.
// CHECK-LABEL: func.func @range
// CHECK: arith.constant dense<[1, 3, 5, 7]> : tensor<4xi64>
// CHECK-NOT: linalg
func.func @range() -> tensor<4xi64> {
  %s = arith.constant dense<1> : tensor<i64>
  %l = arith.constant dense<9> : tensor<i64>
  %d = arith.constant dense<2> : tensor<i64>
  %0 = onnx.node "Range"(%s, %l, %d) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// A start of +inf below the limit makes -inf steps: no values (found by
// onnx_fuzzer: the steps were cast to int64, which UBSan reports).
// CHECK-LABEL: func.func @range_infinite_start
// CHECK: arith.constant dense<> : tensor<0xf32>
func.func @range_infinite_start() -> tensor<0xf32> {
  %s = arith.constant dense<0x7F800000> : tensor<f32>
  %l = arith.constant dense<5.0> : tensor<f32>
  %d = arith.constant dense<2.77e-32> : tensor<f32>
  %0 = onnx.node "Range"(%s, %l, %d) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// CumSum (reverse): a reduction over the axis taking the later elements.
// CHECK-LABEL: func.func @cumsum
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpi sge
func.func @cumsum(%x: tensor<5xf32>) -> tensor<5xf32> {
  %a = arith.constant dense<0> : tensor<i64>
  %0 = onnx.node "CumSum"(%x, %a) {attrs = {reverse = 1 : i64}, domain = "", opset = 14 : i64} : (tensor<5xf32>, tensor<i64>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// DepthToSpace is reshapes around one transpose.
// CHECK-LABEL: func.func @depth_to_space
// CHECK: tensor.expand_shape {{.*}} into tensor<1x2x2x2x2x3xf32>
// CHECK: linalg.transpose {{.*}} permutation = [0, 1, 4, 2, 5, 3]
// CHECK: tensor.expand_shape {{.*}} into tensor<1x2x4x6xf32>
func.func @depth_to_space(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %0 = onnx.node "DepthToSpace"(%x) {attrs = {blocksize = 2 : i64, mode = "CRD"}, domain = "", opset = 13 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %0 : tensor<1x2x4x6xf32>
}

// -----

// LSTM unrolls its three steps: two matmuls each.
// CHECK-LABEL: func.func @lstm
// CHECK-COUNT-6: linalg.matmul
// CHECK-NOT: linalg.matmul
// CHECK: tensor.concat dim(0)
func.func @lstm(%x: tensor<3x2x4xf32>, %w: tensor<1x20x4xf32>, %r: tensor<1x20x5xf32>) -> tensor<3x1x2x5xf32> {
  %0:3 = onnx.node "LSTM"(%x, %w, %r) {attrs = {hidden_size = 5 : i64}, domain = "", opset = 14 : i64} : (tensor<3x2x4xf32>, tensor<1x20x4xf32>, tensor<1x20x5xf32>) -> (tensor<3x1x2x5xf32>, none, none)
  return %0#0 : tensor<3x1x2x5xf32>
}

// -----

// Window functions of a constant size are constants.
// CHECK-LABEL: func.func @hann
// CHECK: arith.constant dense<[0.000000e+00, 5.000000e-01, 1.000000e+00, 5.000000e-01]> : tensor<4xf32>
func.func @hann() -> tensor<4xf32> {
  %n = arith.constant dense<4> : tensor<i64>
  %0 = onnx.node "HannWindow"(%n) {attrs = {}, domain = "", opset = 17 : i64} : (tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// DequantizeLinear of unsigned data zero-extends before subtracting.
// CHECK-LABEL: func.func @dequantize
// CHECK-SAME: (%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<i8>) -> tensor<4xf32>
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.subi
// CHECK: arith.mulf
func.func @dequantize(%x: tensor<4xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xf32> {
  %0 = onnx.node "DequantizeLinear"(%x, %s, %z) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A 3-D Conv runs as NDHWC with the weight transposed to DHWCF.
// CHECK-LABEL: func.func @conv3d
// CHECK: linalg.conv_3d_ndhwc_dhwcf {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x4x4x4x2xf32>, tensor<3x3x3x2x3xf32>)
func.func @conv3d(%x: tensor<1x2x4x4x4xf32>, %w: tensor<3x2x3x3x3xf32>) -> tensor<1x3x2x2x2xf32> {
  %0 = onnx.node "Conv"(%x, %w) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<1x2x4x4x4xf32>, tensor<3x2x3x3x3xf32>) -> tensor<1x3x2x2x2xf32>
  return %0 : tensor<1x3x2x2x2xf32>
}

// -----

// Adam (ai.onnx.preview.training) is elementwise math; the step's powers
// are exp(T log beta).
// CHECK-LABEL: func.func @adam
// CHECK: math.exp
// CHECK: math.sqrt
// CHECK: return %{{.*}} : tensor<2xf32>
func.func @adam(%r: tensor<f32>, %t: tensor<i64>, %x: tensor<2xf32>, %g: tensor<2xf32>, %v: tensor<2xf32>, %h: tensor<2xf32>) -> tensor<2xf32> {
  %0:3 = onnx.node "Adam"(%r, %t, %x, %g, %v, %h) {attrs = {}, domain = "ai.onnx.preview.training", opset = 1 : i64} : (tensor<f32>, tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %0#0 : tensor<2xf32>
}

// -----

// GridSample-20 in 3-D: one generic over the N x C x D x H x W result that
// reads the grid's three coordinates (x, y, z: components 2, 1, 0 feed
// the depth, height and width axes in reverse) and sums the eight
// trilinear neighbours.
// CHECK-LABEL: func.func @grid_sample_3d
// CHECK: linalg.generic {{.*}}outs(%{{.*}} : tensor<1x2x2x3x4xf32>)
// CHECK-COUNT-3: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c{{[0-2]}}] : tensor<1x2x3x4x3xf32>
// CHECK-COUNT-8: tensor.extract %{{.*}} : tensor<1x2x5x6x7xf32>
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @grid_sample_3d(%x: tensor<1x2x5x6x7xf32>, %g: tensor<1x2x3x4x3xf32>) -> tensor<1x2x2x3x4xf32> {
  %0 = onnx.node "GridSample"(%x, %g) {attrs = {mode = "linear", padding_mode = "border"}, domain = "", opset = 20 : i64} : (tensor<1x2x5x6x7xf32>, tensor<1x2x3x4x3xf32>) -> tensor<1x2x2x3x4xf32>
  return %0 : tensor<1x2x2x3x4xf32>
}

// -----

// GatherND with batch_dims 1: the batch index is shared, the index tuple
// (negative ones wrapped by 3) picks the row of that batch's data.
// CHECK-LABEL: func.func @gathernd_batch
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: %[[B:.*]] = linalg.index 0
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: tensor.extract %{{.*}}[%[[B]], %{{.*}}] : tensor<2x1xi64>
// CHECK: %[[ROW:.*]] = arith.select
// CHECK: tensor.extract %{{.*}}[%[[B]], %[[ROW]], %[[J]]] : tensor<2x3x4xf32>
func.func @gathernd_batch(%d: tensor<2x3x4xf32>, %i: tensor<2x1xi64>) -> tensor<2x4xf32> {
  %0 = onnx.node "GatherND"(%d, %i) {attrs = {batch_dims = 1 : i64}, domain = "", opset = 13 : i64} : (tensor<2x3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Einsum with ellipses: each "..." becomes unused letters, right-aligned
// across operands (the second operand's one batch dimension meets the
// first's second, which broadcasts from 1).
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @einsum_ellipsis
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[Y]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
func.func @einsum_ellipsis(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x2xf32>) -> tensor<2x5x3x2xf32> {
  %0 = onnx.node "Einsum"(%a, %b) {attrs = {equation = "...ij,...jk->...ik"}, domain = "", opset = 12 : i64} : (tensor<2x1x3x4xf32>, tensor<5x4x2xf32>) -> tensor<2x5x3x2xf32>
  return %0 : tensor<2x5x3x2xf32>
}
