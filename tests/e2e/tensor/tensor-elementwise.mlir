// arith and math ops applied to whole tensors, outside any linalg op: they
// become elementwise dispatches (convert-elementwise-to-linalg), with
// static and dynamic shapes, comparisons and selects; on both devices.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=chain --input="4xf32=1 2 3 4" --input="4xf32=0 0 0 -4" --expected_output="4xf32=2.7182817 7.389056 20.085537 1"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=chain --input="4xf32=1 2 3 4" --input="4xf32=0 0 0 -4" --expected_output="4xf32=2.7182817 7.389056 20.085537 1"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=clamp_dynamic --input="2x3xi32=-5 0 5 10 15 20" --expected_output="2x3xi32=0 0 5 10 10 10"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=clamp_dynamic --input="1x2xi32=-1 11" --expected_output="1x2xi32=0 10"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=mixed --input="3xf32=1 4 9" --expected_output="3xi32=2 3 4"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=checked
//
// f64 -> f16 rounds once (through f32 rounded to odd): 1 + 2^-11 + 4 ulps
// is above the halfway point, so it rounds up, where rounding through f32
// first would tie to even (1).
// RUN: strata-run --module=%t.vmfb --device=local-task --function=narrow --input="4xf64=1.0004882812500009 65519.99 -3.14159265358979 1e-9" --expected_output="4xf16=1.0009765625 65504 -3.140625 0" --expected_f16_threshold=0

func.func @chain(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  %1 = math.exp %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

func.func @clamp_dynamic(%a: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant dense<0> : tensor<2x3xi32>
  %lo = arith.constant 0 : i32
  %hi = arith.constant 10 : i32
  %c0i = arith.constant 0 : index
  %c1i = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0i : tensor<?x?xi32>
  %d1 = tensor.dim %a, %c1i : tensor<?x?xi32>
  %los = tensor.splat %lo[%d0, %d1] : tensor<?x?xi32>
  %his = tensor.splat %hi[%d0, %d1] : tensor<?x?xi32>
  %m = arith.maxsi %a, %los : tensor<?x?xi32>
  %r = arith.minsi %m, %his : tensor<?x?xi32>
  return %r : tensor<?x?xi32>
}

// sqrt, +1, then to integers: type-changing ops on tensors.
func.func @mixed(%a: tensor<3xf32>) -> tensor<3xi32> {
  %s = math.sqrt %a : tensor<3xf32>
  %one = arith.constant dense<1.0> : tensor<3xf32>
  %p = arith.addf %s, %one : tensor<3xf32>
  %i = arith.fptosi %p : tensor<3xf32> to tensor<3xi32>
  return %i : tensor<3xi32>
}

func.func @checked() {
  %a = util.unfoldable_constant dense<[1.0, -2.0, 3.0, -4.0]> : tensor<4xf32>
  %b = util.unfoldable_constant dense<[0.5, 0.5, 0.5, 0.5]> : tensor<4xf32>
  %neg = arith.cmpf olt, %a, %b : tensor<4xf32>
  %abs = math.absf %a : tensor<4xf32>
  %sel = arith.select %neg, %abs, %a : tensor<4xi1>, tensor<4xf32>
  %mul = arith.mulf %sel, %b : tensor<4xf32>
  check.expect_almost_eq_const(%mul, dense<[0.5, 1.0, 1.5, 2.0]> : tensor<4xf32>) : tensor<4xf32>
  %ia = util.unfoldable_constant dense<[7, -7, 9]> : tensor<3xi32>
  %ib = util.unfoldable_constant dense<[2, 2, -4]> : tensor<3xi32>
  %q = arith.divsi %ia, %ib : tensor<3xi32>
  %r = arith.remsi %ia, %ib : tensor<3xi32>
  %sh = arith.shli %q, %ib : tensor<3xi32>
  check.expect_eq_const(%q, dense<[3, -3, -2]> : tensor<3xi32>) : tensor<3xi32>
  check.expect_eq_const(%r, dense<[1, -1, 1]> : tensor<3xi32>) : tensor<3xi32>
  return
}

func.func @narrow(%a: tensor<4xf64>) -> tensor<4xf16> {
  %r = arith.truncf %a : tensor<4xf64> to tensor<4xf16>
  return %r : tensor<4xf16>
}
