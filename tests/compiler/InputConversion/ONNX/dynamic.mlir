// RUN: strata-opt --split-input-file --strata-lower-onnx --canonicalize %s | FileCheck %s

// Shape arithmetic on a dynamic dimension stays on the host as index math:
// Shape -> Gather -> Mul -> Unsqueeze -> Concat -> Reshape reads the
// dimension (x * 1 folds to it), the -1 is inferred statically (the
// input's own dimension cancels), and the reshape is a view: no shape
// tensor, no run-time check is left.
// CHECK-LABEL: func.func @dynamic_shape_subgraph
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x4xf32>) -> tensor<?x12xf32>
// CHECK-NOT: tensor.from_elements
// CHECK-NOT: cf.assert
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] : tensor<?x3x4xf32> into tensor<?x12xf32>
// CHECK: return %[[R]]
func.func @dynamic_shape_subgraph(%x: tensor<?x3x4xf32>) -> tensor<?x12xf32> {
  %s = onnx.node "Shape"(%x) {attrs = {}, domain = "", opset = 15 : i64} : (tensor<?x3x4xf32>) -> tensor<3xi64>
  %i = arith.constant dense<0> : tensor<i64>
  %g = onnx.node "Gather"(%s, %i) {attrs = {axis = 0 : i64}, domain = "", opset = 13 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %one = arith.constant dense<1> : tensor<i64>
  %m1 = onnx.node "Mul"(%g, %one) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %a = arith.constant dense<0> : tensor<1xi64>
  %u = onnx.node "Unsqueeze"(%m1, %a) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %m = arith.constant dense<-1> : tensor<1xi64>
  %c = onnx.node "Concat"(%u, %m) {attrs = {axis = 0 : i64}, domain = "", opset = 13 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = onnx.node "Reshape"(%x, %c) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x12xf32>
  return %r : tensor<?x12xf32>
}

// -----

// A shape that arrives as data (a graph input) is read element by element
// on the host; a run-time -1 is inferred, and the element count is checked
// at run time with errors naming the node.
// CHECK-LABEL: func.func @runtime_shape
// CHECK: tensor.extract %{{.*}}[%c0] : tensor<2xi64>
// CHECK: tensor.extract %{{.*}}[%c1] : tensor<2xi64>
// CHECK: cf.assert %{{.*}}, "onnx node 'r' (Reshape, opset 14): element 0 of the shape is below -1 at run time"
// CHECK: cf.assert %{{.*}}, "onnx node 'r' (Reshape, opset 14): the shape has more than one -1 at run time"
// CHECK: arith.divui
// CHECK: cf.assert %{{.*}}, "onnx node 'r' (Reshape, opset 14): the shape's element count differs from the input's at run time"
// CHECK: %[[CAST:.*]] = tensor.cast %{{.*}} : tensor<24xf32> to tensor<?xf32>
// CHECK: tensor.expand_shape %[[CAST]] {{\[}}[0, 1]] output_shape [%{{.*}}, %{{.*}}] : tensor<?xf32> into tensor<?x?xf32>
func.func @runtime_shape(%x: tensor<2x3x4xf32>, %shape: tensor<2xi64>) -> tensor<?x?xf32> {
  %r = onnx.node "Reshape"(%x, %shape) {attrs = {}, domain = "", node_name = "r", opset = 14 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Range with a run-time limit: its length is computed on the host, its
// values by a generic sized by it.
// CHECK-LABEL: func.func @runtime_range
// CHECK: %[[L:.*]] = tensor.extract
// CHECK: arith.ceildivsi
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?xi64>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<?xi64>)
func.func @runtime_range(%limit: tensor<i64>) -> tensor<?xi64> {
  %s = arith.constant dense<0> : tensor<i64>
  %d = arith.constant dense<2> : tensor<i64>
  %r = onnx.node "Range"(%s, %limit, %d) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// -----

// ReduceMean-18 with axes that arrive as data: each axis is normalized and
// checked on the host, the result's dims are selects (1 where reduced), and
// one generic reduces a window (the input's leading slice, each dim the
// input's where reduced, else 1) read at o + k. keepdims = 0 views the
// result as the dims not reduced (here the one left is the whole view).
// CHECK-LABEL: func.func @runtime_reduce_axes
// CHECK: %[[A:.*]] = tensor.extract %{{.*}}[%c0] : tensor<2xi64>
// CHECK: cf.assert %{{.*}}, "onnx node 'r' (ReduceMean, opset 18): an axis is outside [-3, 3) at run time"
// CHECK: cf.assert %{{.*}}, "onnx node 'r' (ReduceMean, opset 18): axes lists an axis twice at run time"
// CHECK: %[[W:.*]] = tensor.extract_slice %[[X:.*]][0, 0, 0] [%{{.*}}, %{{.*}}, %{{.*}}] [1, 1, 1] : tensor<2x3x4xf32> to tensor<?x?x?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN:.*]], #[[WIN:.*]], #[[OUT:.*]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %[[W]] : tensor<2x3x4xf32>, tensor<?x?x?xf32>) outs(%{{.*}} : tensor<?x?x?xf32>)
// CHECK: arith.divf
// CHECK: %[[V:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<?x?x?xf32> into tensor<?xf32>
// CHECK: return %[[V]] : tensor<?xf32>
func.func @runtime_reduce_axes(%x: tensor<2x3x4xf32>, %axes: tensor<2xi64>) -> tensor<?xf32> {
  %0 = onnx.node "ReduceMean"(%x, %axes) {attrs = {keepdims = 0 : i64}, domain = "", node_name = "r", opset = 18 : i64} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Constant axes (an opset-18 input) keep today's static lowering.
// CHECK-LABEL: func.func @constant_reduce_axes
// CHECK-NOT: cf.assert
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: return %{{.*}} : tensor<2x1x4xf32>
func.func @constant_reduce_axes(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %axes = arith.constant dense<[-2]> : tensor<1xi64>
  %0 = onnx.node "ReduceSum"(%x, %axes) {attrs = {}, domain = "", opset = 18 : i64} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// -----

// CumSum along a run-time axis: one generic over the result and a window
// spanning the axis; the body reads the input at the window's position
// along the axis (in bounds by construction) where it precedes the
// result's.
// CHECK-LABEL: func.func @runtime_cumsum_axis
// CHECK: cf.assert %{{.*}}, "onnx node 'c' (CumSum, opset 14): an axis is outside [-2, 2) at run time"
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]{{.*}}outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x3xf32>
// CHECK: arith.cmpi sle
func.func @runtime_cumsum_axis(%x: tensor<2x3xf32>, %axis: tensor<i64>) -> tensor<2x3xf32> {
  %0 = onnx.node "CumSum"(%x, %axis) {attrs = {}, domain = "", node_name = "c", opset = 14 : i64} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// TopK with a run-time K: K is checked against the axis, each element's
// rank is counted, and the results (K along the axis) pick rank j.
// CHECK-LABEL: func.func @runtime_topk
// CHECK: cf.assert %{{.*}}, "onnx node 't' (TopK, opset 11): K is outside [0, 4] at run time"
// CHECK: linalg.generic {{.*}}outs(%{{.*}} : tensor<3x4xi64>)
// CHECK: arith.cmpf ogt
// CHECK: %[[K:.*]] = tensor.empty(%{{.*}}) : tensor<3x?xf32>
// CHECK: linalg.generic {{.*}}outs(%{{.*}}, %{{.*}} : tensor<3x?xf32>, tensor<3x?xi64>)
func.func @runtime_topk(%x: tensor<3x4xf32>, %k: tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>) {
  %0:2 = onnx.node "TopK"(%x, %k) {attrs = {}, domain = "", node_name = "t", opset = 11 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
  return %0#0, %0#1 : tensor<3x?xf32>, tensor<3x?xi64>
}

// -----

// Resize with run-time scales: each size is in * scale computed on the
// host in f64 and checked there; the kernel reads 1 / scale as an f32.
// CHECK-LABEL: func.func @runtime_resize_scales
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: cf.assert %{{.*}}, "onnx node 'z' (Resize, opset 13): element 2 of scales is not a positive number that makes a size below 2^62 at run time"
// CHECK: cf.assert %{{.*}}, "onnx node 'z' (Resize, opset 13): the result's axis 3 is empty at run time"
// CHECK: %[[INV:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK: tensor.empty(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : tensor<?x?x?x?xf32>
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %[[INV]] : f32
func.func @runtime_resize_scales(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>) -> tensor<?x?x?x?xf32> {
  %none = onnx.none : none
  %0 = onnx.node "Resize"(%x, %none, %s) {attrs = {mode = "linear"}, domain = "", node_name = "z", opset = 13 : i64} : (tensor<1x1x2x2xf32>, none, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Resize-18 with run-time sizes for axes (2, 3) only: the other dims keep
// their static lengths.
// CHECK-LABEL: func.func @runtime_resize_sizes_axes
// CHECK: cf.assert %{{.*}}, "onnx node 'z' (Resize, opset 18): element 0 of sizes is below 1 at run time"
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<1x3x?x?xf32>
func.func @runtime_resize_sizes_axes(%x: tensor<1x3x2x2xf32>, %sizes: tensor<2xi64>) -> tensor<1x3x?x?xf32> {
  %none = onnx.none : none
  %0 = onnx.node "Resize"(%x, %none, %none, %sizes) {attrs = {axes = [2, 3], mode = "nearest"}, domain = "", node_name = "z", opset = 18 : i64} : (tensor<1x3x2x2xf32>, none, none, tensor<2xi64>) -> tensor<1x3x?x?xf32>
  return %0 : tensor<1x3x?x?xf32>
}
