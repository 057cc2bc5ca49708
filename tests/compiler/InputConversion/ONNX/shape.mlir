// RUN: strata-opt --split-input-file --strata-lower-onnx %s | FileCheck %s

// A shape subgraph (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) folds
// at compile time; the reshape is a collapse and expand of the input.
// CHECK-LABEL: func.func @shape_subgraph
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [2, 12] : tensor<24xf32> into tensor<2x12xf32>
// CHECK: return %[[R]]
func.func @shape_subgraph(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %s = onnx.node "Shape"(%x) {attrs = {}, domain = "", opset = 15 : i64} : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %i = arith.constant dense<0> : tensor<i64>
  %g = onnx.node "Gather"(%s, %i) {attrs = {axis = 0 : i64}, domain = "", opset = 13 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %a = arith.constant dense<0> : tensor<1xi64>
  %u = onnx.node "Unsqueeze"(%g, %a) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %m = arith.constant dense<-1> : tensor<1xi64>
  %c = onnx.node "Concat"(%u, %m) {attrs = {axis = 0 : i64}, domain = "", opset = 13 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = onnx.node "Reshape"(%x, %c) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  return %r : tensor<2x12xf32>
}

// -----

// Transpose of a constant folds; of a value it is a linalg.transpose.
// CHECK-LABEL: func.func @transpose
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[1, 3], [2, 4]]> : tensor<2x2xi32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<3x2xf32>) permutation = [1, 0]
func.func @transpose(%x: tensor<2x3xf32>) -> (tensor<2x2xi32>, tensor<3x2xf32>) {
  %c = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %0 = onnx.node "Transpose"(%c) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x2xi32>) -> tensor<2x2xi32>
  %1 = onnx.node "Transpose"(%x) {attrs = {perm = [1, 0]}, domain = "", opset = 13 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0, %1 : tensor<2x2xi32>, tensor<3x2xf32>
}

// -----

// Slice with clamped ends and a step: tensor.extract_slice.
// CHECK-LABEL: func.func @slice
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [2, 2] [1, 2] : tensor<2x5xf32> to tensor<2x2xf32>
func.func @slice(%x: tensor<2x5xf32>) -> tensor<2x2xf32> {
  %starts = arith.constant dense<1> : tensor<1xi64>
  %ends = arith.constant dense<100> : tensor<1xi64>
  %axes = arith.constant dense<1> : tensor<1xi64>
  %steps = arith.constant dense<2> : tensor<1xi64>
  %0 = onnx.node "Slice"(%x, %starts, %ends, %axes, %steps) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Steps near +-2^63 take one element (the count of steps overflowed).
// CHECK-LABEL: func.func @slice_huge_steps
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [2, 1] [1, 9223372036854775807] : tensor<2x5xf32> to tensor<2x1xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x1xf32>)
func.func @slice_huge_steps(%x: tensor<2x5xf32>) -> (tensor<2x1xf32>, tensor<2x1xf32>) {
  %starts = arith.constant dense<1> : tensor<1xi64>
  %ends = arith.constant dense<100> : tensor<1xi64>
  %axes = arith.constant dense<1> : tensor<1xi64>
  %steps = arith.constant dense<9223372036854775807> : tensor<1xi64>
  %0 = onnx.node "Slice"(%x, %starts, %ends, %axes, %steps) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x1xf32>
  %rstarts = arith.constant dense<4> : tensor<1xi64>
  %rends = arith.constant dense<-100> : tensor<1xi64>
  %rsteps = arith.constant dense<-9223372036854775808> : tensor<1xi64>
  %1 = onnx.node "Slice"(%x, %rstarts, %rends, %axes, %rsteps) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x1xf32>
  return %0, %1 : tensor<2x1xf32>, tensor<2x1xf32>
}

// -----

// Gather with data-dependent indices reads the data with tensor.extract,
// negative indices wrapped.
// CHECK-LABEL: func.func @gather
// CHECK: linalg.generic
// CHECK: arith.index_cast
// CHECK: arith.select
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<5x3xf32>
func.func @gather(%x: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = onnx.node "Gather"(%x, %i) {attrs = {axis = 0 : i64}, domain = "", opset = 13 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Split into equal parts and a Concat of values.
// CHECK-LABEL: func.func @split_concat
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [2, 2] [1, 1]
// CHECK: tensor.extract_slice %{{.*}}[0, 2] [2, 2] [1, 1]
// CHECK: tensor.concat dim(1)
func.func @split_concat(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a:2 = onnx.node "Split"(%x) {attrs = {axis = 1 : i64}, domain = "", opset = 13 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  %c = onnx.node "Concat"(%a#1, %a#0) {attrs = {axis = 1 : i64}, domain = "", opset = 13 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}

// -----

// An EyeLike too large to compute at compile time (its 2^40 values were
// computed one by one) is a generic comparing column and row.
// CHECK-LABEL: func.func @eye_like_large
// CHECK: linalg.generic
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK-SAME: f32
func.func @eye_like_large(%x: tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32> {
  %0 = onnx.node "EyeLike"(%x) {attrs = {k = 1 : i64}, domain = "", opset = 9 : i64} : (tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32>
  return %0 : tensor<1048576x1048576xf32>
}

// -----

// A float attribute beyond int64's range for an integer tensor saturates
// (its cast to int64 was undefined).
// CHECK-LABEL: func.func @pad_value_saturates
// CHECK: arith.constant 9223372036854775807 : i64
// CHECK: linalg.fill
func.func @pad_value_saturates(%x: tensor<2xi64>) -> tensor<4xi64> {
  %0 = onnx.node "Pad"(%x) {attrs = {pads = [1, 1], value = 1.0e30 : f32}, domain = "", opset = 2 : i64} : (tensor<2xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Gather indices without elements whose other dimensions' product
// overflows int64 (found by onnx_fuzzer: the folder's strides overflowed):
// the result has no elements either.
// CHECK-LABEL: func.func @gather_empty_indices
// CHECK: %[[E:.*]] = arith.constant dense<> : tensor<3x0x144115188075855871x147455x4x3xf32>
// CHECK: return %[[E]]
func.func @gather_empty_indices(%x: tensor<5x4x3xf32>) -> tensor<3x0x144115188075855871x147455x4x3xf32> {
  %i = arith.constant dense<> : tensor<3x0x144115188075855871x147455xi64>
  %0 = onnx.node "Gather"(%x, %i) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<5x4x3xf32>, tensor<3x0x144115188075855871x147455xi64>) -> tensor<3x0x144115188075855871x147455x4x3xf32>
  return %0 : tensor<3x0x144115188075855871x147455x4x3xf32>
}
