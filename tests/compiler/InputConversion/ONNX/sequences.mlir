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
