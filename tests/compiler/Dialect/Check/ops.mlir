// The check ops parse as IREE's e2e programs write them and print back the
// same way.
// RUN: strata-opt %s | strata-opt | FileCheck %s
// RUN: strata-opt --strata-convert-input %s | FileCheck %s --check-prefix=LOWERED

// CHECK-LABEL: func.func @scalars
// CHECK-SAME: (%[[A:.*]]: i32)
// CHECK: check.expect_true(%[[A]]) : i32
// CHECK: check.expect_false(%[[A]]) : i32
func.func @scalars(%a: i32) {
  check.expect_true(%a) : i32
  check.expect_false(%a) : i32
  return
}

// CHECK-LABEL: func.func @tensors
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xi32>, %[[Y:.*]]: tensor<2x2xi32>, %[[F:.*]]: tensor<3xf32>, %[[G:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<4xi1>, %[[S:.*]]: tensor<f16>)
// CHECK: check.expect_eq(%[[X]], %[[Y]]) : tensor<2x2xi32>
// CHECK: check.expect_eq_const(%[[X]], dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>) : tensor<2x2xi32>
// CHECK: check.expect_eq_const(%[[B]], dense<[true, false, true, false]> : tensor<4xi1>) : tensor<4xi1>
// CHECK: check.expect_almost_eq(%[[F]], %[[G]]) : tensor<3xf32>
// CHECK: check.expect_almost_eq(%[[F]], %[[G]], atol 0.00999999977, rtol 1.000000e-03) : tensor<3xf32>
// CHECK: check.expect_almost_eq(%[[F]], %[[G]], atol 5.000000e-01) : tensor<3xf32>
// CHECK: check.expect_almost_eq_const(%[[F]], dense<[1.000000e+00, 2.500000e+00, -3.000000e+00]> : tensor<3xf32>) : tensor<3xf32>
// CHECK: check.expect_almost_eq_const(%[[S]], dense<1.500000e+00> : tensor<f16>, atol 1.000000e-01) : tensor<f16>
// The input phase compares with a materialized constant.
// LOWERED-LABEL: func.func @tensors
// LOWERED-SAME: (%[[X:.*]]: tensor<2x2xi32>, %[[Y:.*]]: tensor<2x2xi32>, %[[F:.*]]: tensor<3xf32>, %[[G:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<4xi1>, %[[S:.*]]: tensor<f16>)
// LOWERED: check.expect_eq(%[[X]], %[[Y]]) : tensor<2x2xi32>
// LOWERED: %[[C0:.*]] = arith.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
// LOWERED: check.expect_eq(%[[X]], %[[C0]]) : tensor<2x2xi32>
// LOWERED: %[[C1:.*]] = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
// LOWERED: check.expect_eq(%[[B]], %[[C1]]) : tensor<4xi1>
// LOWERED: %[[C2:.*]] = arith.constant dense<[1.000000e+00, 2.500000e+00, -3.000000e+00]> : tensor<3xf32>
// LOWERED: check.expect_almost_eq(%[[F]], %[[C2]]) : tensor<3xf32>
// LOWERED: %[[C3:.*]] = arith.constant dense<1.500000e+00> : tensor<f16>
// LOWERED: check.expect_almost_eq(%[[S]], %[[C3]], atol 1.000000e-01) : tensor<f16>
// LOWERED-NOT: _const
func.func @tensors(%x: tensor<2x2xi32>, %y: tensor<2x2xi32>, %f: tensor<3xf32>,
                   %g: tensor<3xf32>, %b: tensor<4xi1>, %s: tensor<f16>) {
  check.expect_eq(%x, %y) : tensor<2x2xi32>
  check.expect_eq_const(%x, dense<[[1, 2],
                                   [3, 4]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  check.expect_eq_const(%b, dense<[true, false, true, false]> : tensor<4xi1>) : tensor<4xi1>
  check.expect_almost_eq(%f, %g) : tensor<3xf32>
  check.expect_almost_eq(%f, %g, atol 1.0e-2, rtol 1.0e-3) : tensor<3xf32>
  check.expect_almost_eq(%f, %g, atol 0.5) : tensor<3xf32>
  check.expect_almost_eq_const(%f, dense<[1.0, 2.5, -3.0]> : tensor<3xf32>) : tensor<3xf32>
  check.expect_almost_eq_const(%s, dense<1.5> : tensor<f16>, atol 0.1) : tensor<f16>
  return
}
