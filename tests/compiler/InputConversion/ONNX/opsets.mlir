// RUN: strata-opt --split-input-file --strata-lower-onnx %s | FileCheck %s

// The behaviours ONNX's opsets 18 to 21 added, one case per op (the cases
// of Resize's antialias, LpPool, GridSample in 3-D and the bool
// reductions are in nn.mlir, ops2.mlir and reduction.mlir). Each is run
// against a numpy reference by tests/onnx/opset_test.py.

// CenterCropPad-18 on axes (1, 2): axis 1 cropped 5 -> 3 from offset 1,
// axis 2 padded 6 -> 9 with one zero before the data.
// CHECK-LABEL: func.func @center_crop_pad
// CHECK: %[[C:.*]] = tensor.extract_slice %{{.*}}[0, 1, 0] [2, 3, 6] [1, 1, 1] : tensor<2x5x6xf32> to tensor<2x3x6xf32>
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: tensor.insert_slice %[[C]] into %[[Z]][0, 0, 1] [2, 3, 6] [1, 1, 1] : tensor<2x3x6xf32> into tensor<2x3x9xf32>
func.func @center_crop_pad(%x: tensor<2x5x6xf32>) -> tensor<2x3x9xf32> {
  %s = arith.constant dense<[3, 9]> : tensor<2xi64>
  %0 = onnx.node "CenterCropPad"(%x, %s) {attrs = {axes = [1, 2]}, domain = "", opset = 18 : i64} : (tensor<2x5x6xf32>, tensor<2xi64>) -> tensor<2x3x9xf32>
  return %0 : tensor<2x3x9xf32>
}

// -----

// Col2Im-18 of a 3-D image: the output's five dims parallel, the block's
// three offsets reduced over a block-shaped operand.
// CHECK-LABEL: func.func @col2im_3d
// CHECK: %[[K:.*]] = arith.constant dense<0.000000e+00> : tensor<2x3x2xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[K]] : tensor<2x3x2xf32>) outs(%{{.*}} : tensor<1x1x4x5x3xf32>)
// CHECK: arith.divsi
// CHECK: arith.remsi
// CHECK: tensor.extract %{{.*}} : tensor<1x12x4xf32>
func.func @col2im_3d(%x: tensor<1x12x4xf32>) -> tensor<1x1x4x5x3xf32> {
  %i = arith.constant dense<[4, 5, 3]> : tensor<3xi64>
  %b = arith.constant dense<[2, 3, 2]> : tensor<3xi64>
  %0 = onnx.node "Col2Im"(%x, %i, %b) {attrs = {strides = [2, 2, 2]}, domain = "", opset = 18 : i64} : (tensor<1x12x4xf32>, tensor<3xi64>, tensor<3xi64>) -> tensor<1x1x4x5x3xf32>
  return %0 : tensor<1x1x4x5x3xf32>
}

// -----

// AffineGrid-20 with align_corners: the normalized (x, y, 1) points are a
// compile-time constant contracted with theta.
// CHECK-LABEL: func.func @affine_grid
// CHECK: %[[P:.*]] = arith.constant dense<{{\[\[\[}}-1.000000e+00, -1.000000e+00, 1.000000e+00], [-0.333333343, -1.000000e+00, 1.000000e+00], [0.333333343, -1.000000e+00, 1.000000e+00], [1.000000e+00, -1.000000e+00, 1.000000e+00]], {{.*}}> : tensor<3x4x3xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[P]] : tensor<2x2x3xf32>, tensor<3x4x3xf32>) outs(%{{.*}} : tensor<2x3x4x2xf32>)
func.func @affine_grid(%t: tensor<2x2x3xf32>) -> tensor<2x3x4x2xf32> {
  %s = arith.constant dense<[2, 1, 3, 4]> : tensor<4xi64>
  %0 = onnx.node "AffineGrid"(%t, %s) {attrs = {align_corners = 1}, domain = "", opset = 20 : i64} : (tensor<2x2x3xf32>, tensor<4xi64>) -> tensor<2x3x4x2xf32>
  return %0 : tensor<2x3x4x2xf32>
}

// -----

// DFT-20 with the axis as an input: a one-sided transform of 4 real
// points is one contraction with a (3 x 4 x 1 x 2) twiddle constant.
// CHECK-LABEL: func.func @dft_20
// CHECK: %[[T:.*]] = arith.constant dense<{{.*}}> : tensor<3x4x1x2xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %[[T]] : tensor<1x4x1xf32>, tensor<3x4x1x2xf32>) outs(%{{.*}} : tensor<1x3x2xf32>)
func.func @dft_20(%x: tensor<1x4x1xf32>) -> tensor<1x3x2xf32> {
  %none = onnx.none : none
  %a = arith.constant dense<1> : tensor<i64>
  %0 = onnx.node "DFT"(%x, %none, %a) {attrs = {onesided = 1}, domain = "", opset = 20 : i64} : (tensor<1x4x1xf32>, none, tensor<i64>) -> tensor<1x3x2xf32>
  return %0 : tensor<1x3x2xf32>
}

// -----

// Mish-18: x * tanh(softplus(x)), softplus as max(x, 0) + log1p(exp(-|x|)).
// CHECK-LABEL: func.func @mish
// CHECK: math.absf
// CHECK: math.exp
// CHECK: math.log1p
// CHECK: arith.maximumf
// CHECK: math.tanh
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
func.func @mish(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = onnx.node "Mish"(%x) {attrs = {}, domain = "", opset = 18 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// BitwiseAnd-18 and BitwiseNot-18 (xor with all ones).
// CHECK-LABEL: func.func @bitwise
// CHECK: arith.andi %{{.*}}, %{{.*}} : i32
// CHECK: %[[ONES:.*]] = arith.constant -1 : i32
// CHECK: arith.xori %{{.*}}, %[[ONES]] : i32
func.func @bitwise(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = onnx.node "BitwiseAnd"(%a, %b) {attrs = {}, domain = "", opset = 18 : i64} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = onnx.node "BitwiseNot"(%0) {attrs = {}, domain = "", opset = 18 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// GroupNormalization: scale and bias per group at opset 18 (broadcast
// over the group's channels), per channel at 21.
// CHECK-LABEL: func.func @group_norm_18
// CHECK: tensor.expand_shape %arg1 {{.*}} output_shape [1, 2, 1, 1] : tensor<2xf32> into tensor<1x2x1x1xf32>
// CHECK-LABEL: func.func @group_norm_21
// CHECK: tensor.expand_shape %arg1 {{.*}} output_shape [1, 2, 2, 1] : tensor<4xf32> into tensor<1x2x2x1xf32>
func.func @group_norm_18(%x: tensor<1x4x2xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<1x4x2xf32> {
  %0 = onnx.node "GroupNormalization"(%x, %s, %b) {attrs = {num_groups = 2}, domain = "", opset = 18 : i64} : (tensor<1x4x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x2xf32>
  return %0 : tensor<1x4x2xf32>
}
func.func @group_norm_21(%x: tensor<1x4x2xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1x4x2xf32> {
  %0 = onnx.node "GroupNormalization"(%x, %s, %b) {attrs = {num_groups = 2}, domain = "", opset = 21 : i64} : (tensor<1x4x2xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2xf32>
  return %0 : tensor<1x4x2xf32>
}

// -----

// OptionalHasElement-18 and OptionalGetElement-18 of a plain tensor: it is
// there, and is itself.
// CHECK-LABEL: func.func @optional_of_tensor
// CHECK: %[[T:.*]] = arith.constant true
// CHECK: %[[H:.*]] = tensor.from_elements %[[T]] : tensor<i1>
// CHECK: return %[[H]], %arg0
func.func @optional_of_tensor(%x: tensor<3xf32>) -> (tensor<i1>, tensor<3xf32>) {
  %0 = onnx.node "OptionalHasElement"(%x) {attrs = {}, domain = "", opset = 18 : i64} : (tensor<3xf32>) -> tensor<i1>
  %1 = onnx.node "OptionalGetElement"(%x) {attrs = {}, domain = "", opset = 18 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<i1>, tensor<3xf32>
}

// -----

// Split-18's num_outputs: ceil(7 / 3) each, the last what is left.
// CHECK-LABEL: func.func @split_num_outputs
// CHECK: tensor.extract_slice %arg0[0] [3] [1]
// CHECK: tensor.extract_slice %arg0[3] [3] [1]
// CHECK: tensor.extract_slice %arg0[6] [1] [1]
func.func @split_num_outputs(%x: tensor<7xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<1xf32>) {
  %0:3 = onnx.node "Split"(%x) {attrs = {num_outputs = 3}, domain = "", opset = 18 : i64} : (tensor<7xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<1xf32>)
  return %0#0, %0#1, %0#2 : tensor<3xf32>, tensor<3xf32>, tensor<1xf32>
}

// -----

// Pad-18's axes (only axis 1 padded) with Pad-19's wrap mode: each output
// index reads (i - pad_begin + size) mod size.
// CHECK-LABEL: func.func @pad_axes_wrap
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x6xf32>)
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[S:.*]] = arith.subi %[[J]], %c1 : index
// CHECK: %[[A:.*]] = arith.addi %[[S]], %{{.*}} : index
// CHECK: %[[W:.*]] = arith.remsi %[[A]], %c3 : index
// CHECK: tensor.extract %arg0[%{{.*}}, %[[W]]] : tensor<2x3xf32>
func.func @pad_axes_wrap(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %p = arith.constant dense<[1, 2]> : tensor<2xi64>
  %none = onnx.none : none
  %a = arith.constant dense<[1]> : tensor<1xi64>
  %0 = onnx.node "Pad"(%x, %p, %none, %a) {attrs = {mode = "wrap"}, domain = "", opset = 19 : i64} : (tensor<2x3xf32>, tensor<2xi64>, none, tensor<1xi64>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// ScatterElements-18 and ScatterND-18 with max and min: IEEE maximum and
// minimum of the element and each update that hits it.
// CHECK-LABEL: func.func @scatter_elements_max
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-LABEL: func.func @scatter_nd_min
// CHECK: arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK-LABEL: func.func @scatter_nd_max_unsigned
// CHECK: arith.maxui %{{.*}}, %{{.*}} : i8
func.func @scatter_elements_max(%d: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x4xf32>) -> tensor<3x4xf32> {
  %0 = onnx.node "ScatterElements"(%d, %i, %u) {attrs = {reduction = "max"}, domain = "", opset = 18 : i64} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
func.func @scatter_nd_min(%d: tensor<4xf32>, %i: tensor<2x1xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  %0 = onnx.node "ScatterND"(%d, %i, %u) {attrs = {reduction = "min"}, domain = "", opset = 18 : i64} : (tensor<4xf32>, tensor<2x1xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @scatter_nd_max_unsigned(%d: tensor<4xui8>, %i: tensor<2x1xi64>, %u: tensor<2xui8>) -> tensor<4xui8> {
  %0 = onnx.node "ScatterND"(%d, %i, %u) {attrs = {reduction = "max"}, domain = "", opset = 18 : i64} : (tensor<4xui8>, tensor<2x1xi64>, tensor<2xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Gelu-20 with approximate = "tanh".
// CHECK-LABEL: func.func @gelu_tanh
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: arith.constant 0.797884583 : f32
// CHECK: math.tanh
func.func @gelu_tanh(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = onnx.node "Gelu"(%x) {attrs = {approximate = "tanh"}, domain = "", opset = 20 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Resize-18's keep_aspect_ratio_policy "not_larger" on axes (2, 3): sizes
// (3, 3) of a 4x6 image keep one scale, min(3/4, 3/6) = 0.5: 2x3.
// CHECK-LABEL: func.func @resize_not_larger
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x2x3xf32>)
func.func @resize_not_larger(%x: tensor<1x1x4x6xf32>) -> tensor<1x1x2x3xf32> {
  %none = onnx.none : none
  %s = arith.constant dense<[3, 3]> : tensor<2xi64>
  %0 = onnx.node "Resize"(%x, %none, %none, %s) {attrs = {axes = [2, 3], keep_aspect_ratio_policy = "not_larger", mode = "nearest"}, domain = "", opset = 18 : i64} : (tensor<1x1x4x6xf32>, none, none, tensor<2xi64>) -> tensor<1x1x2x3xf32>
  return %0 : tensor<1x1x2x3xf32>
}
