// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt --strata-convert-input %s | FileCheck %s --check-prefix=LOWERED

// CHECK-LABEL: func.func @ops
// CHECK: %[[C:.*]] = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
// CHECK: %[[S:.*]] = util.unfoldable_constant 7 : i32
// CHECK: util.optimization_barrier %[[C]], %[[S]] : tensor<2xi32>, i32
// An unfoldable constant is a constant behind a barrier.
// LOWERED-LABEL: func.func @ops
// LOWERED: %[[C:.*]] = arith.constant dense<[1, 2]> : tensor<2xi32>
// LOWERED: %[[B:.*]] = util.optimization_barrier %[[C]] : tensor<2xi32>
// LOWERED-NOT: util.unfoldable_constant
func.func @ops() -> (tensor<2xi32>, i32) {
  %c = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  %s = util.unfoldable_constant 7 : i32
  %r:2 = util.optimization_barrier %c, %s : tensor<2xi32>, i32
  return %r#0, %r#1 : tensor<2xi32>, i32
}
