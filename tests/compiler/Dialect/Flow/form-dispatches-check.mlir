// RUN: strata-opt --strata-form-dispatches %s | FileCheck %s

// check ops read their tensors on the host: they stay in the host function,
// after the dispatch that computes their operand; the expected constant is a
// dispatch of its own (a host tensor).
// CHECK-LABEL: func.func @checks
// CHECK-SAME: (%[[A:.*]]: tensor<4xi32>)
// CHECK-DAG: %[[SUM:.*]] = flow.dispatch @module_linked_llvm_cpu::@checks_dispatch_0_elementwise_4_i32(%[[A]])
// CHECK-DAG: %[[EXPECTED:.*]] = flow.dispatch @module_linked_llvm_cpu::@checks_dispatch_1_constant_4_i32()
// CHECK: check.expect_eq(%[[SUM]], %[[EXPECTED]]) : tensor<4xi32>
// CHECK: %[[X:.*]] = tensor.extract %[[SUM]]
// CHECK: check.expect_true(%[[X]]) : i32
// CHECK: flow.executable @{{.*}}_linked_llvm_cpu
// CHECK-NOT: check.
func.func @checks(%a: tensor<4xi32>) {
  %e = tensor.empty() : tensor<4xi32>
  %sum = linalg.add ins(%a, %a : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %expected = arith.constant dense<[2, 4, 6, 8]> : tensor<4xi32>
  check.expect_eq(%sum, %expected) : tensor<4xi32>
  %c0 = arith.constant 0 : index
  %x = tensor.extract %sum[%c0] : tensor<4xi32>
  check.expect_true(%x) : i32
  return
}
