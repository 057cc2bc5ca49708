// RUN: strata-opt --strata-convert-input --split-input-file %s | FileCheck %s

// TOSA is found and lowered to linalg/arith without a flag.
// CHECK-LABEL: func.func @add
// CHECK-NOT: tosa.
// CHECK: linalg.generic
// CHECK: arith.addf
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = tosa.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A module without TOSA is left as it is.
// CHECK-LABEL: func.func @plain
// CHECK-NEXT: %[[R:.*]] = arith.addi
// CHECK-NEXT: return %[[R]]
func.func @plain(%a: i32) -> i32 {
  %r = arith.addi %a, %a : i32
  return %r : i32
}
