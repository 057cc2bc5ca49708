// TOSA input, detected without a flag and lowered with upstream's TOSA
// conversions, then compiled and run like any tensor program.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=addmul --input="4xi32=1 2 3 4" --input="4xi32=10 20 30 40" --expected_output="4xi32=11 44 99 176"
// RUN: strata-run --module=%t.vmfb --function=clamp_exp --input="2x3xf32=-1 0 1 2 7 -3" --expected_f32_threshold=1e-3 --expected_output="2x3xf32=1 1 2.7182817 7.389056 403.4288 1"
// RUN: strata-run --module=%t.vmfb --function=matmul --input="1x2x3xf32=1 2 3 4 5 6" --input="1x3x2xf32=7 8 9 10 11 12" --expected_output="1x2x2xf32=58 64 139 154"
module @tosa {
  // (a + b) * a
  func.func @addmul(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
    %s = tosa.add %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.mul %s, %a, %shift : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
    return %m : tensor<4xi32>
  }
  // exp(clamp(x, 0, 6))
  func.func @clamp_exp(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %r = tosa.clamp %a {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %e = tosa.exp %r : (tensor<2x3xf32>) -> tensor<2x3xf32>
    return %e : tensor<2x3xf32>
  }
  func.func @matmul(%a: tensor<1x2x3xf32>, %b: tensor<1x3x2xf32>) -> tensor<1x2x2xf32> {
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %r = tosa.matmul %a, %b, %zp, %zp : (tensor<1x2x3xf32>, tensor<1x3x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
    return %r : tensor<1x2x2xf32>
  }
}
