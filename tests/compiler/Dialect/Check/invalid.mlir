// RUN: strata-opt --split-input-file --verify-diagnostics %s

func.func @not_i32(%a: i64) {
  // expected-error @+1 {{'check.expect_true' op operand #0 must be 32-bit signless integer, but got 'i64'}}
  check.expect_true(%a) : i64
  return
}

// -----

func.func @mismatched(%a: tensor<2xi32>, %b: tensor<3xi32>) {
  // expected-error @+1 {{'check.expect_eq' op failed to verify that all of {lhs, rhs} have same type}}
  "check.expect_eq"(%a, %b) : (tensor<2xi32>, tensor<3xi32>) -> ()
  return
}

// -----

func.func @constant_type(%a: tensor<2xi32>) {
  // expected-error @+1 {{'check.expect_eq_const' op constant of type 'tensor<2xi64>' does not match the operand type 'tensor<2xi32>'}}
  check.expect_eq_const(%a, dense<[1, 2]> : tensor<2xi64>) : tensor<2xi32>
  return
}

// -----

func.func @almost_constant_shape(%a: tensor<2xf32>) {
  // expected-error @+1 {{'check.expect_almost_eq_const' op constant of type 'tensor<3xf32>' does not match the operand type 'tensor<2xf32>'}}
  check.expect_almost_eq_const(%a, dense<1.0> : tensor<3xf32>) : tensor<2xf32>
  return
}

// -----

func.func @negative_tolerance(%a: tensor<2xf32>) {
  // expected-error @+1 {{'check.expect_almost_eq' op atol must be a non-negative number}}
  check.expect_almost_eq(%a, %a, atol -1.0) : tensor<2xf32>
  return
}

// -----

func.func @unsupported_element(%a: tensor<2xbf16>) {
  // expected-error @+1 {{'check.expect_eq' op operand #0 must be ranked tensor of}}
  check.expect_eq(%a, %a) : tensor<2xbf16>
  return
}

// -----

func.func @dynamic(%a: tensor<?xi32>) {
  // expected-error @+1 {{'check.expect_eq_const' op constant of type 'tensor<2xi32>' does not match the operand type 'tensor<?xi32>'}}
  check.expect_eq_const(%a, dense<[1, 2]> : tensor<2xi32>) : tensor<?xi32>
  return
}

// -----

func.func @missing_paren(%a: i32) {
  // expected-error @+1 {{expected '('}}
  check.expect_true %a : i32
  return
}
