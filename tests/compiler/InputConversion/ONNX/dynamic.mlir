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

// Unsqueeze with run-time axes: the rank is static, each dimension is 1 or
// the next input dimension, chosen on the host; the axes are checked.
// CHECK-LABEL: func.func @runtime_unsqueeze
// CHECK: tensor.extract %{{.*}} : tensor<1xi64>
// CHECK: cf.assert %{{.*}}, "onnx node 'u' (Unsqueeze, opset 13): element 0 of axes is outside [-3, 3) at run time"
// CHECK: arith.select
// CHECK: tensor.expand_shape {{.*}} : tensor<?xf32> into tensor<?x?x?xf32>
func.func @runtime_unsqueeze(%x: tensor<3x4xf32>, %axes: tensor<1xi64>) -> tensor<?x?x?xf32> {
  %r = onnx.node "Unsqueeze"(%x, %axes) {attrs = {}, domain = "", node_name = "u", opset = 13 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
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

// Squeeze with run-time axes: a listed dimension must be 1 at run time.
// CHECK-LABEL: func.func @runtime_squeeze
// CHECK: cf.assert %{{.*}}, "onnx node 's' (Squeeze, opset 13): cannot squeeze dimension 1, which is not 1, at run time"
// CHECK: tensor.collapse_shape {{.*}} : tensor<1x3xf32> into tensor<3xf32>
// CHECK: tensor.cast %{{.*}} : tensor<3xf32> to tensor<?xf32>
func.func @runtime_squeeze(%x: tensor<1x3xf32>, %axes: tensor<1xi64>) -> tensor<?xf32> {
  %r = onnx.node "Squeeze"(%x, %axes) {attrs = {}, domain = "", node_name = "s", opset = 13 : i64} : (tensor<1x3xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %r : tensor<?xf32>
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

// Slice with run-time axes and steps: a gather reading in[start + i * step]
// on host-computed starts and steps, a step of 0 refused at run time.
// CHECK-LABEL: func.func @runtime_slice_steps
// CHECK: cf.assert %{{.*}}, "onnx node 'sl' (Slice, opset 13): step 0 is 0 at run time"
// CHECK: arith.ceildivui
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK: tensor.extract %{{.*}} : tensor<4x5xf32>
func.func @runtime_slice_steps(%x: tensor<4x5xf32>, %s: tensor<1xi64>, %e: tensor<1xi64>, %a: tensor<1xi64>, %st: tensor<1xi64>) -> tensor<?x?xf32> {
  %r = onnx.node "Slice"(%x, %s, %e, %a, %st) {attrs = {}, domain = "", node_name = "sl", opset = 13 : i64} : (tensor<4x5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
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

// -----

// Split with run-time sizes: each part a slice of a host-computed size, the
// sizes checked to add up to the dimension.
// CHECK-LABEL: func.func @runtime_split
// CHECK: cf.assert %{{.*}}, "onnx node 'sp' (Split, opset 13): split size 0 is negative at run time"
// CHECK: cf.assert %{{.*}}, "onnx node 'sp' (Split, opset 13): the split sizes do not add up to dimension 0 at run time"
// CHECK: tensor.extract_slice %{{.*}}[0] [%{{.*}}] [1] : tensor<6xf32> to tensor<?xf32>
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}] [%{{.*}}] [1] : tensor<6xf32> to tensor<?xf32>
func.func @runtime_split(%x: tensor<6xf32>, %sizes: tensor<2xi64>) -> (tensor<?xf32>, tensor<?xf32>) {
  %a, %b = onnx.node "Split"(%x, %sizes) {attrs = {}, domain = "", node_name = "sp", opset = 13 : i64} : (tensor<6xf32>, tensor<2xi64>) -> (tensor<?xf32>, tensor<?xf32>)
  return %a, %b : tensor<?xf32>, tensor<?xf32>
}

// -----

// Tile with run-time repeats: host-computed sizes, each element read at the
// index modulo the input's dimension.
// CHECK-LABEL: func.func @runtime_tile
// CHECK: cf.assert %{{.*}}, "onnx node 't' (Tile, opset 13): repeats of axis 0 is negative or too large at run time"
// CHECK: linalg.generic
// CHECK: arith.remui
func.func @runtime_tile(%x: tensor<2x3xf32>, %r: tensor<2xi64>) -> tensor<?x?xf32> {
  %t = onnx.node "Tile"(%x, %r) {attrs = {}, domain = "", node_name = "t", opset = 13 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

// -----

// Pad with run-time pads: the input cropped by the negative pads, then one
// generic of host-computed sizes reading it
// where the index is inside it, else the value.
// CHECK-LABEL: func.func @runtime_pad
// CHECK: cf.assert %{{.*}}, "onnx node 'p' (Pad, opset 13): the pads of axis 0 are out of range at run time"
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// CHECK: linalg.generic
// CHECK: arith.cmpi ult
// CHECK: tensor.extract %{{.*}} : tensor<?x?xf32>
// CHECK: arith.select
func.func @runtime_pad(%x: tensor<2x3xf32>, %pads: tensor<4xi64>) -> tensor<?x?xf32> {
  %p = onnx.node "Pad"(%x, %pads) {attrs = {mode = "constant"}, domain = "", node_name = "p", opset = 13 : i64} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}

// -----

// Trilu with a run-time k: read on the host, compared in the kernel.
// CHECK-LABEL: func.func @runtime_trilu
// CHECK: %[[K:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CHECK: %[[KI:.*]] = arith.index_cast %[[K]]
// CHECK: linalg.generic
// CHECK: arith.cmpi sge, %{{.*}}, %[[KI]]
func.func @runtime_trilu(%x: tensor<3x4xf32>, %k: tensor<i64>) -> tensor<3x4xf32> {
  %t = onnx.node "Trilu"(%x, %k) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
  return %t : tensor<3x4xf32>
}

// -----

// OneHot with a run-time depth and a window of a run-time size: a dynamic
// dimension sized on the host.
// CHECK-LABEL: func.func @runtime_onehot_window
// CHECK: cf.assert %{{.*}}, "onnx node 'o' (OneHot, opset 11): depth is not a number of classes from 1 to 2^40 at run time"
// CHECK: tensor.empty(%{{.*}}) : tensor<3x?xf32>
// CHECK: cf.assert %{{.*}}, "onnx node 'w' (HannWindow, opset 17): size is not a window size from 1 to 2^40 at run time"
// CHECK: math.cos
func.func @runtime_onehot_window(%i: tensor<3xi64>, %d: tensor<f32>, %v: tensor<2xf32>, %n: tensor<i32>) -> (tensor<3x?xf32>, tensor<?xf32>) {
  %o = onnx.node "OneHot"(%i, %d, %v) {attrs = {axis = -1 : i64}, domain = "", node_name = "o", opset = 11 : i64} : (tensor<3xi64>, tensor<f32>, tensor<2xf32>) -> tensor<3x?xf32>
  %w = onnx.node "HannWindow"(%n) {attrs = {}, domain = "", node_name = "w", opset = 17 : i64} : (tensor<i32>) -> tensor<?xf32>
  return %o, %w : tensor<3x?xf32>, tensor<?xf32>
}
