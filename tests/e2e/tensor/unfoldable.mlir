// Unfoldable constants (as IREE's e2e tests write them) are computed at run
// time, not folded: the subtraction runs in a dispatch.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-compile --compile-to=flow %s | FileCheck %s --check-prefix=FLOW
// RUN: strata-run --module=%t.vmfb --function=sub --expected_output="4xi32=-4 -4 -4 -4"
// RUN: strata-run --module=%t.vmfb --function=scalar --expected_output=i32=14
// FLOW: util.optimization_barrier
// FLOW: flow.dispatch @module_linked_llvm_cpu::@sub_dispatch_0_elementwise_4_i32
func.func @sub() -> tensor<4xi32> {
  %0 = util.unfoldable_constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %1 = util.unfoldable_constant dense<[5, 6, 7, 8]> : tensor<4xi32>
  %result = tosa.sub %0, %1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %result : tensor<4xi32>
}
func.func @scalar() -> i32 {
  %0 = util.unfoldable_constant 7 : i32
  %1 = arith.addi %0, %0 : i32
  return %1 : i32
}
