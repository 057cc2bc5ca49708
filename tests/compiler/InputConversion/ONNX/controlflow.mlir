// RUN: strata-opt --split-input-file --strata-lower-onnx %s | FileCheck %s
// RUN: strata-opt --split-input-file --strata-lower-onnx --canonicalize %s | FileCheck %s --check-prefix=CANON

// If on a run-time condition: an scf.if whose branches hold the lowered
// nodes of then_branch and else_branch; the branches read a value of the
// enclosing scope (%x) directly. Their outputs differ in a dimension, so
// the node's output is dynamic there.
// CHECK-LABEL: func.func @if_runtime
// CHECK-SAME: -> tensor<?x3xf32>
// CHECK: %[[C:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK: %[[R:.*]] = scf.if %[[C]] -> (tensor<?x3xf32>) {
// CHECK: linalg.generic
// CHECK: tensor.cast %{{.*}} : tensor<2x3xf32> to tensor<?x3xf32>
// CHECK: scf.yield
// CHECK: } else {
// CHECK: tensor.concat
// CHECK: tensor.cast %{{.*}} : tensor<4x3xf32> to tensor<?x3xf32>
// CHECK: scf.yield
// CHECK: return %[[R]]
func.func @if_runtime(%c: tensor<i1>, %x: tensor<2x3xf32>) -> none {
  %0 = onnx.node "If"(%c) {attrs = {}, domain = "", opset = 13 : i64, subgraph_names = ["then_branch", "else_branch"]} : (tensor<i1>) -> none {
    %t = onnx.node "Relu"(%x) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<2x3xf32>) -> none
    onnx.yield %t : none
  }, {
    %e = onnx.node "Concat"(%x, %x) {attrs = {axis = 0 : i64}, domain = "", opset = 13 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> none
    onnx.yield %e : none
  }
  return %0 : none
}

// -----

// An If whose condition computes from constants folds at compile time: only
// the branch taken is left, without an scf.if.
// CHECK-LABEL: func.func @if_constant
// CHECK-NOT: scf.if
// CHECK: arith.negf
// CHECK-NOT: scf.if
func.func @if_constant(%x: tensor<4xf32>) -> none {
  %a = arith.constant dense<1> : tensor<i64>
  %b = arith.constant dense<2> : tensor<i64>
  %c = onnx.node "Less"(%a, %b) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<i64>, tensor<i64>) -> none
  %0 = onnx.node "If"(%c) {attrs = {}, domain = "", opset = 13 : i64, subgraph_names = ["then_branch", "else_branch"]} : (none) -> none {
    %t = onnx.node "Neg"(%x) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<4xf32>) -> none
    onnx.yield %t : none
  }, {
    %e = onnx.node "Exp"(%x) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<4xf32>) -> none
    onnx.yield %e : none
  }
  return %0 : none
}

// -----

// Loop with a run-time trip count and a condition the body computes: an
// scf.while carrying (i, cond, y, scan output). The carried %y grows by a
// row each iteration, so it is carried as ?x2 (the body lowered again
// with that type); the scan output gets a slice per iteration (the slice
// has a dynamic dimension, so the first is taken as it is).
// CHECK-LABEL: func.func @loop_while
// CHECK-SAME: -> (tensor<?x2xf32>, tensor<?x?x2xf32>)
// CHECK: %[[M:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CHECK: %[[CAST:.*]] = tensor.cast %{{.*}} : tensor<1x2xf32> to tensor<?x2xf32>
// CHECK: %[[Y0:.*]] = util.optimization_barrier %[[CAST]] : tensor<?x2xf32>
// CHECK: scf.while (%[[I:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}, %{{.*}} = %[[Y0]], %{{.*}} = %{{.*}}) : (i64, i1, tensor<?x2xf32>, tensor<?x?x2xf32>)
// CHECK: %[[BELOW:.*]] = arith.cmpi slt, %[[I]], %[[M]] : i64
// CHECK: %[[GO:.*]] = arith.andi %[[C]], %[[BELOW]] : i1
// CHECK: scf.condition(%[[GO]])
// CHECK: } do {
// CHECK: %[[Y:.*]] = tensor.concat dim(0)
// CHECK: %[[NEXT:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0_i64
// CHECK: %[[S:.*]] = scf.if %[[FIRST]] -> (tensor<?x?x2xf32>) {
// CHECK: } else {
// CHECK: tensor.concat dim(0)
// CHECK: scf.yield %{{.*}}, %[[NEXT]], %[[Y]], %[[S]] : i64, i1, tensor<?x2xf32>, tensor<?x?x2xf32>
func.func @loop_while(%m: tensor<i64>, %c: tensor<i1>, %y: tensor<1x2xf32>) -> (none, none) {
  %neg1 = arith.constant dense<-1> : tensor<1xi64>
  %big = arith.constant dense<1000> : tensor<1xi64>
  %zero = arith.constant dense<0> : tensor<1xi64>
  %0:2 = onnx.node "Loop"(%m, %c, %y) {attrs = {}, domain = "", opset = 13 : i64, subgraph_names = ["body"]} : (tensor<i64>, tensor<i1>, tensor<1x2xf32>) -> (none, none) {
  ^bb0(%i: none, %cin: none, %yin: none):
    %s = onnx.node "Slice"(%yin, %neg1, %big, %zero) {attrs = {}, domain = "", opset = 13 : i64} : (none, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> none
    %one = arith.constant dense<1.0> : tensor<f32>
    %n = onnx.node "Add"(%s, %one) {attrs = {}, domain = "", opset = 14 : i64} : (none, tensor<f32>) -> none
    %yout = onnx.node "Concat"(%yin, %n) {attrs = {axis = 0 : i64}, domain = "", opset = 13 : i64} : (none, none) -> none
    %sum = onnx.node "ReduceSum"(%yout) {attrs = {keepdims = 0 : i64}, domain = "", opset = 13 : i64} : (none) -> none
    %limit = arith.constant dense<20.0> : tensor<f32>
    %cout = onnx.node "Less"(%sum, %limit) {attrs = {}, domain = "", opset = 13 : i64} : (none, tensor<f32>) -> none
    onnx.yield %cout, %yout, %n : none, none, none
  }
  return %0#0, %0#1 : none, none
}

// -----

// Loop with a trip count and no condition: an scf.for of max(M, 0)
// iterations, and a constant M gives the scan output its static length.
// The nested If reads the iteration number and a graph input (%w) of the
// scopes around it. The iteration number is a host scalar in the body:
// Mod and Equal on it compute on the host (no kernel, no read-back).
// CHECK-LABEL: func.func @loop_counted_nested_if
// CHECK-SAME: -> (tensor<3xf32>, tensor<4x3xf32>)
// CHECK: %[[M:.*]] = arith.maxsi
// CHECK: %[[UB:.*]] = arith.index_cast %[[M]] : i64 to index
// CHECK: %[[R:.*]]:2 = scf.for %[[IV:.*]] = %c0 to %[[UB]] step %c1 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<3xf32>, tensor<?x3xf32>)
// CHECK: %[[I:.*]] = arith.index_cast %[[IV]] : index to i64
// CHECK-NOT: linalg.generic
// CHECK: arith.remsi %[[I]]
// CHECK-NOT: linalg.generic
// CHECK: %[[EVEN:.*]] = arith.cmpi eq
// CHECK-NOT: linalg.generic
// CHECK: scf.if %[[EVEN]] -> (tensor<3xf32>) {
// CHECK: arith.addf
// CHECK: } else {
// CHECK: arith.subf
// CHECK: tensor.concat dim(0)
// CHECK: scf.yield
// CHECK: tensor.cast %[[R]]#1 : tensor<?x3xf32> to tensor<4x3xf32>
func.func @loop_counted_nested_if(%y: tensor<3xf32>, %w: tensor<3xf32>) -> (none, none) {
  %m = arith.constant dense<4> : tensor<i64>
  %none = onnx.none : none
  %0:2 = onnx.node "Loop"(%m, %none, %y) {attrs = {}, domain = "", opset = 13 : i64, subgraph_names = ["body"]} : (tensor<i64>, none, tensor<3xf32>) -> (none, none) {
  ^bb0(%i: tensor<i64>, %cin: tensor<i1>, %yin: tensor<3xf32>):
    %two = arith.constant dense<2> : tensor<i64>
    %r = onnx.node "Mod"(%i, %two) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<i64>, tensor<i64>) -> none
    %zero = arith.constant dense<0> : tensor<i64>
    %even = onnx.node "Equal"(%r, %zero) {attrs = {}, domain = "", opset = 13 : i64} : (none, tensor<i64>) -> none
    %yout = onnx.node "If"(%even) {attrs = {}, domain = "", opset = 13 : i64, subgraph_names = ["then_branch", "else_branch"]} : (none) -> none {
      %a = onnx.node "Add"(%yin, %w) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<3xf32>, tensor<3xf32>) -> none
      onnx.yield %a : none
    }, {
      %s = onnx.node "Sub"(%yin, %w) {attrs = {}, domain = "", opset = 14 : i64} : (tensor<3xf32>, tensor<3xf32>) -> none
      onnx.yield %s : none
    }
    onnx.yield %cin, %yout, %yout : tensor<i1>, none, none
  }
  return %0#0, %0#1 : none, none
}

// -----

// Scan over axis 1 of its input in reverse, its output stacked along axis
// 1 in reverse too: an scf.for over the 3 slices, each taken from the end.
// The scan output starts as an empty 2x0 behind a barrier, so that
// canonicalization (scf.for's cast folding) keeps carrying it as 2x?.
// CANON-LABEL: func.func @scan_reverse
// CANON: util.optimization_barrier %{{.*}} : tensor<2x?xf32>
// CANON: scf.for {{.*}} -> (tensor<2xf32>, tensor<2x?xf32>)
// CHECK-LABEL: func.func @scan_reverse
// CHECK-SAME: -> (tensor<2xf32>, tensor<2x3xf32>)
// CHECK: scf.for %[[IV:.*]] = %c0 to %c3 step %c1
// CHECK: %[[LAST:.*]] = arith.subi %c3, %c1 : index
// CHECK: %[[J:.*]] = arith.subi %[[LAST]], %[[IV]] : index
// CHECK: tensor.extract_slice %{{.*}}[0, %[[J]]] [2, 1] [1, 1] : tensor<2x3xf32> to tensor<2xf32>
// CHECK: tensor.concat dim(1)
// CHECK: tensor.cast %{{.*}} : tensor<2x?xf32> to tensor<2x3xf32>
func.func @scan_reverse(%init: tensor<2xf32>, %x: tensor<2x3xf32>) -> (none, none) {
  %0:2 = onnx.node "Scan"(%init, %x) {attrs = {num_scan_inputs = 1 : i64, scan_input_axes = [1], scan_input_directions = [1], scan_output_axes = [1], scan_output_directions = [1]}, domain = "", opset = 11 : i64, subgraph_names = ["body"]} : (tensor<2xf32>, tensor<2x3xf32>) -> (none, none) {
  ^bb0(%sum: none, %next: none):
    %s = onnx.node "Add"(%sum, %next) {attrs = {}, domain = "", opset = 14 : i64} : (none, none) -> none
    onnx.yield %s, %s : none, none
  }
  return %0#0, %0#1 : none, none
}

