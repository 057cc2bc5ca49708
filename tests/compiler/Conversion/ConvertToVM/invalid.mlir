// Inputs --strata-convert-to-vm rejects, with the error at the culprit.
// RUN: strata-opt %s --strata-convert-to-vm --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error @+1 {{unsupported type 'f16' in conversion to vm}}
func.func @f16_argument(%a: f16) -> f16 {
  return %a : f16
}

// -----

func.func @bf16_result(%a: f32) -> f32 {
  // expected-error @+1 {{unsupported type 'bf16' in conversion to vm}}
  %0 = arith.truncf %a : f32 to bf16
  %1 = arith.extf %0 : bf16 to f32
  return %1 : f32
}

// -----

func.func @i128_result(%a: i64) -> i64 {
  // expected-error @+1 {{unsupported type 'i128' in conversion to vm}}
  %0 = arith.extsi %a : i64 to i128
  %1 = arith.trunci %0 : i128 to i64
  return %1 : i64
}

// -----

// expected-error @+1 {{unsupported type 'vector<4xf32>' in conversion to vm}}
func.func @vector_argument(%a: vector<4xf32>) -> vector<4xf32> {
  return %a : vector<4xf32>
}

// -----

// A tensor on the host is a hal.buffer_view: ranked tensors only.
// expected-error @+1 {{unsupported type 'tensor<*xi32>' in conversion to vm}}
func.func private @tensor.import(tensor<*xi32>) -> i32

// -----

// expected-error @+1 {{unsupported type 'tensor<2xf8E4M3FN>' in conversion to vm}}
func.func private @tensor.fp8(tensor<2xf8E4M3FN>) -> i32

// -----

// expected-error @+1 {{unsupported type 'memref<?xf32>' in conversion to vm}}
func.func private @memref.result() -> memref<?xf32>

// -----

func.func @block_argument(%c: i1) {
  cf.cond_br %c, ^bb1, ^bb1
^bb1:
  return
// expected-error @+1 {{unsupported type 'f16' in conversion to vm}}
^bb2(%h: f16):
  return
}

// -----

// expected-error @+1 {{unsupported type 'f16' in conversion to vm}}
func.func @f16_constant() -> f16 {
  // expected-error @+1 {{unsupported type 'f16' in conversion to vm}}
  %0 = arith.constant 1.0 : f16
  return %0 : f16
}

// -----

func.func @ctpop(%a: i32) -> i32 {
  // expected-error @+1 {{'math.ctpop' has no conversion to vm}}
  %0 = math.ctpop %a : i32
  return %0 : i32
}

// -----

func.func @ipowi(%a: i32, %b: i32) -> i32 {
  // expected-error @+1 {{'math.ipowi' has no conversion to vm}}
  %0 = math.ipowi %a, %b : i32
  return %0 : i32
}

// -----

func.func @add_extended(%a: i32, %b: i32) -> i32 {
  // expected-error @+1 {{'arith.addui_extended' has no conversion to vm}}
  %sum, %overflow = arith.addui_extended %a, %b : i32, i1
  return %sum : i32
}

// -----

func.func @callee(%a: i32) -> i32 {
  return %a : i32
}

func.func @indirect(%a: i32) -> i32 {
  // expected-error @+1 {{'func.constant' has no conversion to vm}}
  %f = func.constant @callee : (i32) -> i32
  // expected-error @+1 {{'func.call_indirect' has no conversion to vm}}
  %0 = func.call_indirect %f(%a) : (i32) -> i32
  return %0 : i32
}

// -----

func.func @unregistered() {
  // expected-error @+1 {{'foo.bar' has no conversion to vm}}
  "foo.bar"() : () -> ()
  return
}

// -----

module {
  // expected-error @+1 {{'builtin.module' has no conversion to vm}}
  module @nested {
  }
}

// -----

// An import must be named module.function.
// expected-error @+1 {{declaration '@no_dot' must be named `module.function` to become a vm.import}}
func.func private @no_dot(i32) -> i32

func.func @call_no_dot(%a: i32) -> i32 {
  %0 = call @no_dot(%a) : (i32) -> i32
  return %0 : i32
}

// -----

// vm.trunc.f64.f32 rounds to nearest even; other rounding modes are errors.
func.func @truncf_rounding(%a: f64) -> f32 {
  // expected-error @+1 {{'arith.truncf' with rounding mode 'downward' has no conversion to vm}}
  %0 = arith.truncf %a downward : f64 to f32
  return %0 : f32
}

// -----

// All problems are reported at once, and nothing is converted.
// expected-error @+1 {{declaration '@helper' must be named `module.function`}}
func.func private @helper(f32) -> f32

func.func @several(%a: f32, %b: i32) -> f32 {
  // expected-error @+1 {{unsupported type 'f16' in conversion to vm}}
  %0 = arith.truncf %a : f32 to f16
  // expected-error @+1 {{'math.ctpop' has no conversion to vm}}
  %1 = math.ctpop %b : i32
  %2 = call @helper(%a) : (f32) -> f32
  return %2 : f32
}
