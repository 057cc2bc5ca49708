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
