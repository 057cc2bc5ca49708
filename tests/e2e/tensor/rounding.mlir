// Rounding (floor, ceil, trunc, roundeven, round) on f32 and f64, compiled
// for the host and for baseline x86-64, whose CPUs have no rounding
// instruction (no SSE4.1): LLVM calls floorf & co there, which the kernel
// library defines itself (no libm). Both give the same exact results,
// signed zeros included.
// RUN: strata-compile %s -o %t.host.vmfb
// RUN: strata-compile --target-cpu=x86-64 %s -o %t.base.vmfb
// RUN: strata-run --module=%t.host.vmfb --function=round32 --input="8xf32=-2.5 -1.5 -0.5 -0.4 0.5 1.5 2.7 1e10" --expected_output="8xf32=-3 -2 -1 -1 0 1 2 1e10" --expected_output="8xf32=-2 -1 -0 -0 1 2 3 1e10" --expected_output="8xf32=-2 -1 -0 -0 0 1 2 1e10" --expected_output="8xf32=-2 -2 -0 -0 0 2 3 1e10" --expected_output="8xf32=-3 -2 -1 -0 1 2 3 1e10"
// RUN: strata-run --module=%t.base.vmfb --function=round32 --input="8xf32=-2.5 -1.5 -0.5 -0.4 0.5 1.5 2.7 1e10" --expected_output="8xf32=-3 -2 -1 -1 0 1 2 1e10" --expected_output="8xf32=-2 -1 -0 -0 1 2 3 1e10" --expected_output="8xf32=-2 -1 -0 -0 0 1 2 1e10" --expected_output="8xf32=-2 -2 -0 -0 0 2 3 1e10" --expected_output="8xf32=-3 -2 -1 -0 1 2 3 1e10"
// RUN: strata-run --module=%t.base.vmfb --function=round64 --input="8xf64=-2.5 -1.5 -0.5 -0.4 0.5 1.5 2.7 1e300" --expected_output="8xf64=-3 -2 -1 -1 0 1 2 1e300" --expected_output="8xf64=-2 -1 -0 -0 1 2 3 1e300" --expected_output="8xf64=-2 -1 -0 -0 0 1 2 1e300" --expected_output="8xf64=-2 -2 -0 -0 0 2 3 1e300" --expected_output="8xf64=-3 -2 -1 -0 1 2 3 1e300"
// Edges: the last fractional floats, the float below 0.5, NaN, signed
// zero, a tiny negative value (floor, then roundeven).
// RUN: strata-run --module=%t.base.vmfb --function=round32 --input="8xf32=8388607.5 -8388607.5 0.49999997 nan 4194304.5 -0 16777216 -1e-30" --output=- --output= --output= --output=- --output= | FileCheck %s
// CHECK: 8xf32=8388607 -8388608 0 nan 4194304 -0 16777216 -1
// CHECK-NEXT: 8xf32=8388608 -8388608 0 nan 4194304 -0 16777216 -0

func.func @round32(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.floor ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %c = linalg.ceil ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.trunc %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %re = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.roundeven %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %ro = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.round %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %f, %c, %t, %re, %ro : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

func.func @round64(%x: tensor<8xf64>) -> (tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>) {
  %e = tensor.empty() : tensor<8xf64>
  %f = linalg.floor ins(%x : tensor<8xf64>) outs(%e : tensor<8xf64>) -> tensor<8xf64>
  %c = linalg.ceil ins(%x : tensor<8xf64>) outs(%e : tensor<8xf64>) -> tensor<8xf64>
  %t = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf64>) outs(%e : tensor<8xf64>) {
  ^bb0(%a: f64, %o: f64):
    %r = math.trunc %a : f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  %re = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf64>) outs(%e : tensor<8xf64>) {
  ^bb0(%a: f64, %o: f64):
    %r = math.roundeven %a : f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  %ro = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf64>) outs(%e : tensor<8xf64>) {
  ^bb0(%a: f64, %o: f64):
    %r = math.round %a : f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  return %f, %c, %t, %re, %ro : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>
}
