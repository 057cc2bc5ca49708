// One case passes, one fails its check.
func.func @good() {
  %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const(%a, dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}
func.func @bad() {
  %a = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const(%a, dense<[1, 3]> : tensor<2xi32>) : tensor<2xi32>
  return
}
