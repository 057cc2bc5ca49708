// The runner's own test: two cases that pass, and a function with an
// argument, which is not a case.
func.func @add() {
  %a = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  %r = tosa.add %a, %a : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  check.expect_eq_const(%r, dense<[2, 4]> : tensor<2xi32>) : tensor<2xi32>
  return
}
func.func @scalar() {
  %one = util.unfoldable_constant 1 : i32
  check.expect_true(%one) : i32
  return
}
func.func @not_a_case(%a: i32) -> i32 {
  return %a : i32
}
