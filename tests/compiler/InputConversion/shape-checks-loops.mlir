// RUN: strata-opt --strata-insert-shape-checks --canonicalize --cse --split-input-file %s | FileCheck %s

// The K of a matmul is read from both operands: with either dynamic, the
// two sizes are checked equal before the op, and the message gives both
// ({0} and {1}, filled in at run time by vm.cond_fail.ne.i64).
// CHECK-LABEL: func.func @matmul_k
// CHECK-SAME: (%[[A:.*]]: tensor<2x?xf32>, %[[B:.*]]: tensor<?x4xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[KA:.*]] = tensor.dim %[[A]], %[[C1]]
// CHECK-DAG: %[[KB:.*]] = tensor.dim %[[B]], %[[C0]]
// CHECK: util.assert_eq %[[KA]], %[[KB]], "'linalg.matmul': dimension 1 of operand 0 and dimension 0 of operand 1 must be equal (both are the size of loop 2; they are {0} and {1})" : index
// CHECK: linalg.matmul
func.func @matmul_k(%a: tensor<2x?xf32>, %b: tensor<?x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<2x?xf32>, tensor<?x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// A static size against a dynamic one: checked against the constant.
// Operands that are one value need no check.
// CHECK-LABEL: func.func @add_rows
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>, %[[Y:.*]]: tensor<8xf32>
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[N:.*]] = tensor.dim %[[X]]
// CHECK: util.assert_eq %[[N]], %[[C8]], "'linalg.add': dimension 0 of operand 0 and dimension 0 of operand 1 must be equal (both are the size of loop 0; they are {0} and {1})" : index
// CHECK: util.assert_eq %[[N]], %[[C8]], "'linalg.add': dimension 0 of operand 0 and dimension 0 of operand 2 must be equal (both are the size of loop 0; they are {0} and {1})" : index
// CHECK-NOT: util.assert_eq
// CHECK: linalg.add
// CHECK-NOT: util.assert_eq
// CHECK: return
func.func @add_rows(%x: tensor<?xf32>, %y: tensor<8xf32>, %o: tensor<8xf32>) -> (tensor<8xf32>, tensor<?xf32>) {
  %r = linalg.add ins(%x, %y : tensor<?xf32>, tensor<8xf32>) outs(%o : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.add ins(%x, %x : tensor<?xf32>, tensor<?xf32>) outs(%x : tensor<?xf32>) -> tensor<?xf32>
  return %r, %s : tensor<8xf32>, tensor<?xf32>
}
