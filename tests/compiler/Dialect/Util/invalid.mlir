// RUN: strata-opt --split-input-file --verify-diagnostics %s

func.func @mismatch() -> tensor<2xi32> {
  // expected-error @+1 {{'util.optimization_barrier' op failed to verify that all of {operands, results} have same type}}
  %r = "util.optimization_barrier"() : () -> tensor<2xi32>
  return %r : tensor<2xi32>
}

// -----

util.global private @limit = 3 : index
func.func @store_immutable(%v: index) {
  // expected-error @+1 {{'util.global.store' op stores to the immutable global '@limit'}}
  util.global.store %v, @limit : index
  return
}

// -----

util.global private mutable @x = 0 : i32
func.func @wrong_type() -> i64 {
  // expected-error @+1 {{'util.global.load' op type 'i64' does not match the type 'i32' of global '@x'}}
  %v = util.global.load @x : i64
  return %v : i64
}

// -----

func.func @missing() -> i32 {
  // expected-error @+1 {{'util.global.load' op '@nothing' does not name a util.global}}
  %v = util.global.load @nothing : i32
  return %v : i32
}

// -----

// expected-error @+1 {{'util.global' op initial value of type 'i32' does not match the global's type 'i64'}}
util.global private @bad = 1 : i32 : i64

// -----

func.func @assert_eq_types(%a: index, %b: i64) {
  // expected-error @+1 {{'util.assert_eq' op failed to verify that all of {lhs, rhs} have same type}}
  "util.assert_eq"(%a, %b) {message = "x"} : (index, i64) -> ()
  return
}

// -----

func.func @assert_eq_i32(%a: i32) {
  // expected-error @+1 {{'util.assert_eq' op operand #0 must be index or 64-bit signless integer, but got 'i32'}}
  util.assert_eq %a, %a, "x" : i32
  return
}
