// bf16 tensors: stored as themselves, conversions from and to f32 (round to
// nearest even) and elementwise arithmetic and math computed in f32, as
// integer code on any CPU; bf16 arguments and results; on both devices.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --device=local-task --function=round --input="5xf32=1 0.1 3.14159 -1000.5 65280.5" --expected_output="5xbf16=1 0.10009765625 3.140625 -1000 65280"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=round --input="5xf32=1 0.1 3.14159 -1000.5 65280.5" --expected_output="5xbf16=1 0.10009765625 3.140625 -1000 65280"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=axpy --input="4xbf16=1 2 3 4" --input="4xbf16=0.5 0.25 -8 1" --expected_output="4xbf16=2.5 4.25 -2 9"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=widen --input="3xbf16=1.5 -0.0078125 256" --expected_output="3xf32=1.5 -0.0078125 256"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=exp --input="3xbf16=0 1 -1" --expected_output="3xbf16=1 2.71875 0.3671875"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=checked

func.func @round(%a: tensor<5xf32>) -> tensor<5xbf16> {
  %r = arith.truncf %a : tensor<5xf32> to tensor<5xbf16>
  return %r : tensor<5xbf16>
}

// 2 * x + y, in bf16.
func.func @axpy(%x: tensor<4xbf16>, %y: tensor<4xbf16>) -> tensor<4xbf16> {
  %two = arith.constant dense<2.0> : tensor<4xbf16>
  %m = arith.mulf %x, %two : tensor<4xbf16>
  %r = arith.addf %m, %y : tensor<4xbf16>
  return %r : tensor<4xbf16>
}

func.func @widen(%a: tensor<3xbf16>) -> tensor<3xf32> {
  %r = arith.extf %a : tensor<3xbf16> to tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func @exp(%a: tensor<3xbf16>) -> tensor<3xbf16> {
  %r = math.exp %a : tensor<3xbf16>
  return %r : tensor<3xbf16>
}

// A bf16 matmul (accumulated in bf16 by the op's definition) against
// exact values, and a comparison.
func.func @checked() {
  %a = util.unfoldable_constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
  %b = util.unfoldable_constant dense<[[0.5, -1.0], [2.0, 0.25]]> : tensor<2x2xbf16>
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<2x2xbf16>
  %f = linalg.fill ins(%zero : bf16) outs(%e : tensor<2x2xbf16>) -> tensor<2x2xbf16>
  %m = linalg.matmul ins(%a, %b : tensor<2x2xbf16>, tensor<2x2xbf16>) outs(%f : tensor<2x2xbf16>) -> tensor<2x2xbf16>
  %m32 = arith.extf %m : tensor<2x2xbf16> to tensor<2x2xf32>
  check.expect_almost_eq_const(%m32, dense<[[4.5, -0.5], [9.5, -2.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  %lt = arith.cmpf oge, %m, %a : tensor<2x2xbf16>
  check.expect_eq_const(%lt, dense<[[true, false], [true, false]]> : tensor<2x2xi1>) : tensor<2x2xi1>
  return
}
