// RUN: strata-opt --split-input-file --strata-lower-onnx --canonicalize %s | FileCheck %s

// Sequences are lists on the host (!util.list). SequenceInsert makes a new
// list of n + 1 elements: the references before the position, the tensor,
// the references after it (copied by host loops; no kernel); a negative
// position counts from the end and is checked at run time.
// CHECK-LABEL: func.func @insert
// CHECK-SAME: -> !util.list<tensor<3xi64>>
// CHECK: %[[N:.*]] = util.list.size %arg0
// CHECK: cf.assert %{{.*}}, "onnx node (SequenceInsert, opset 11): the position is outside the sequence (it may be -n to n for n elements)"
// CHECK: %[[L:.*]] = util.list.create
// CHECK: util.list.resize %[[L]]
// CHECK: scf.for
// CHECK: util.list.get %arg0
// CHECK: util.list.set %[[L]]
// CHECK: scf.for
// CHECK: util.list.set %[[L]][%{{.*}}], %arg1
// CHECK: return %[[L]]
func.func @insert(%s: !util.list<tensor<3xi64>>, %t: tensor<3xi64>, %p: tensor<1xi64>) -> none {
  %0 = onnx.node "SequenceInsert"(%s, %t, %p) {attrs = {}, domain = "", opset = 11 : i64} : (!util.list<tensor<3xi64>>, tensor<3xi64>, tensor<1xi64>) -> none
  return %0 : none
}

// -----

// SequenceAt reads an element as the sequence's element type; SequenceLength
// is a host scalar.
// CHECK-LABEL: func.func @at_and_length
// CHECK: %[[T:.*]] = util.list.get %arg0[%{{.*}}] : <tensor<?x4xf32>> -> tensor<?x4xf32>
// CHECK: %[[N:.*]] = util.list.size %arg0
// CHECK: arith.index_cast %[[N]] : index to i64
// CHECK: tensor.from_elements
func.func @at_and_length(%s: !util.list<tensor<?x4xf32>>, %i: tensor<i64>) -> (none, none) {
  %0 = onnx.node "SequenceAt"(%s, %i) {attrs = {}, domain = "", opset = 11 : i64} : (!util.list<tensor<?x4xf32>>, tensor<i64>) -> none
  %1 = onnx.node "SequenceLength"(%s) {attrs = {}, domain = "", opset = 11 : i64} : (!util.list<tensor<?x4xf32>>) -> none
  return %0, %1 : none, none
}

// -----

// SequenceMap: a host loop over the sequence that runs the body on each
// element and sets the output sequence's element.
// CHECK-LABEL: func.func @map
// CHECK-SAME: -> !util.list<tensor<?xf32>>
// CHECK: %[[N:.*]] = util.list.size %arg0
// CHECK: %[[OUT:.*]] = util.list.create %[[N]]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]]
// CHECK: %[[E:.*]] = util.list.get %arg0[%[[I]]]
// CHECK: linalg.generic
// CHECK: util.list.set %[[OUT]][%[[I]]]
func.func @map(%s: !util.list<tensor<?xf32>>) -> none {
  %0 = onnx.node "SequenceMap"(%s) {attrs = {}, domain = "", opset = 17 : i64, subgraph_names = ["body"]} : (!util.list<tensor<?xf32>>) -> none {
  ^bb0(%e: none):
    %r = onnx.node "Relu"(%e) {attrs = {}, domain = "", opset = 14 : i64} : (none) -> none
    onnx.yield %r : none
  }
  return %0 : none
}

// -----

// SplitToSequence of a dynamic axis by sizes known at run time: a first
// host loop reads the sizes and checks them (none negative, adding up to
// the axis), a second takes one slice per size.
// CHECK-LABEL: func.func @split_sizes
// CHECK-SAME: -> !util.list<tensor<3x?xf32>>
// CHECK: %[[W:.*]] = tensor.dim %arg0, %{{.*}} : tensor<3x?xf32>
// CHECK: scf.for
// CHECK: tensor.extract %arg1
// CHECK: cf.assert %{{.*}}, "onnx node (SplitToSequence, opset 11): the split has a negative size"
// CHECK: cf.assert %{{.*}}, "onnx node (SplitToSequence, opset 11): the split's sizes do not add up to the length of axis 1 of the input"
// CHECK: %[[L:.*]] = util.list.create
// CHECK: scf.for
// CHECK: tensor.extract_slice %arg0[0, %{{.*}}] [3, %{{.*}}] [1, 1] : tensor<3x?xf32> to tensor<3x?xf32>
// CHECK: util.list.set %[[L]]
func.func @split_sizes(%x: tensor<3x?xf32>, %split: tensor<2xi64>) -> none {
  %0 = onnx.node "SplitToSequence"(%x, %split) {attrs = {axis = 1 : i64}, domain = "", opset = 11 : i64} : (tensor<3x?xf32>, tensor<2xi64>) -> none
  return %0 : none
}

// -----

// A sequence of uint8 keeps its type (what the reflection records) but
// holds its elements signless: SequenceAt reads an i8 tensor.
// CHECK-LABEL: func.func @unsigned_at
// CHECK-SAME: (%arg0: !util.list<tensor<?xui8>>
// CHECK: util.list.get %arg0[%{{.*}}] : <tensor<?xui8>> -> tensor<?xi8>
func.func @unsigned_at(%s: !util.list<tensor<?xui8>>, %i: tensor<i64>) -> none {
  %0 = onnx.node "SequenceAt"(%s, %i) {attrs = {}, domain = "", opset = 11 : i64} : (!util.list<tensor<?xui8>>, tensor<i64>) -> none
  return %0 : none
}
