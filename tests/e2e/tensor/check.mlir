// check.* ops run in the native check module: passing checks return, a
// failing one fails the call with the check's name, both values and the
// source line of the op.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=passes
// RUN: strata-run --module=%t.vmfb --function=scalars
// RUN: not strata-run --module=%t.vmfb --function=fails_eq 2>&1 | FileCheck %s --check-prefix=EQ
// RUN: not strata-run --module=%t.vmfb --function=fails_almost 2>&1 | FileCheck %s --check-prefix=ALMOST
// RUN: not strata-run --module=%t.vmfb --function=fails_true 2>&1 | FileCheck %s --check-prefix=TRUE
// RUN: not strata-run --module=%t.vmfb --function=fails_i1 2>&1 | FileCheck %s --check-prefix=BOOL

func.func @passes() {
  %a = util.unfoldable_constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %b = util.unfoldable_constant dense<[10, 20, 30, 40]> : tensor<4xi32>
  %sum = tosa.add %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  check.expect_eq_const(%sum, dense<[11, 22, 33, 44]> : tensor<4xi32>) : tensor<4xi32>
  %expected = util.unfoldable_constant dense<[11, 22, 33, 44]> : tensor<4xi32>
  check.expect_eq(%sum, %expected) : tensor<4xi32>
  %f = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %e = tosa.exp %f : (tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%e, dense<[[2.7182817, 7.389056], [20.085537, 54.59815]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  %cmp = tosa.greater %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  check.expect_eq_const(%cmp, dense<false> : tensor<4xi1>) : tensor<4xi1>
  return
}

func.func @scalars() {
  %one = util.unfoldable_constant 1 : i32
  %zero = util.unfoldable_constant 0 : i32
  check.expect_true(%one) : i32
  check.expect_false(%zero) : i32
  return
}

// EQ: check.expect_eq failed: element [1, 0] is 3, expected 5; actual 2x2xi32=[1 2][3 4], expected 2x2xi32=[1 2][5 4]
// EQ-NEXT: in call to 'check.expect_eq'
// EQ-NEXT: at module.fails_eq ({{.*}}check.mlir:[[# @LINE + 3]]:3)
func.func @fails_eq() {
  %a = util.unfoldable_constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  check.expect_eq_const(%a, dense<[[1, 2], [5, 4]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  return
}

// ALMOST: check.expect_almost_eq failed: element [1] is 2, expected 2.01
// ALMOST: at module.fails_almost ({{.*}}check.mlir:[[# @LINE + 3]]:3)
func.func @fails_almost() {
  %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const(%a, dense<[1.00001, 2.01]> : tensor<2xf32>) : tensor<2xf32>
  return
}

// TRUE: check.expect_true failed: the value is 0
// TRUE: at module.fails_true ({{.*}}check.mlir:[[# @LINE + 3]]:3)
func.func @fails_true() {
  %zero = util.unfoldable_constant 0 : i32
  check.expect_true(%zero) : i32
  return
}

// BOOL: check.expect_eq failed: element [2] is 0, expected 1
func.func @fails_i1() {
  %a = util.unfoldable_constant dense<[true, false, false]> : tensor<3xi1>
  check.expect_eq_const(%a, dense<[true, false, true]> : tensor<3xi1>) : tensor<3xi1>
  return
}
