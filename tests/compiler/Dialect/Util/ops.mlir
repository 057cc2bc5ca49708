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

// A barrier nothing reads blocks nothing: canonicalization erases it (and
// with it, here, the only use of a dynamically shaped cast).
// RUN: strata-opt --canonicalize %s | FileCheck %s --check-prefix=CANON
// CANON-LABEL: func.func @unused_barrier
// CANON-NEXT: return %arg0 : tensor<2x3xf32>
func.func @unused_barrier(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %cast = tensor.cast %a : tensor<2x3xf32> to tensor<2x?xf32>
  %1 = util.optimization_barrier %cast : tensor<2x?xf32>
  %back = tensor.cast %cast : tensor<2x?xf32> to tensor<2x3xf32>
  return %back : tensor<2x3xf32>
}
// A used one stays.
// CANON-LABEL: func.func @used_barrier
// CANON-NEXT: %[[B:.*]] = util.optimization_barrier %arg0
// CANON-NEXT: return %[[B]]
func.func @used_barrier(%a: i32) -> i32 {
  %b = util.optimization_barrier %a : i32
  return %b : i32
}

// util.assert_eq round-trips; a check of a value against itself or of two
// equal constants folds away, a check that can fail stays (also one of two
// different constants: it fails at run time, naming both).
// CHECK-LABEL: func.func @assert_eq
// CHECK: util.assert_eq %arg0, %arg1, "sizes {0} and {1}" : index
// CANON-LABEL: func.func @assert_eq
// CANON-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CANON-DAG: %[[C3:.*]] = arith.constant 3 : i64
// CANON: util.assert_eq %arg0, %arg1, "sizes {0} and {1}" : index
// CANON-NEXT: util.assert_eq %[[C2]], %[[C3]], "differ" : i64
// CANON-NEXT: return
func.func @assert_eq(%a: index, %b: index) {
  util.assert_eq %a, %b, "sizes {0} and {1}" : index
  util.assert_eq %a, %a, "always equal" : index
  %c2 = arith.constant 2 : i64
  %c2b = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  util.assert_eq %c2, %c2b, "equal constants" : i64
  util.assert_eq %c2, %c3, "differ" : i64
  return
}
