// Elementwise ops on each element type, fused into single dispatches, on
// both local devices.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=f32_ops --input="2x3xf32=1 2 3 4 5 6" --input="2x3xf32=6 5 4 3 2 1" --expected_output="2x3xf32=42 37 34 33 34 37"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=f32_ops --input="2x3xf32=1 2 3 4 5 6" --input="2x3xf32=6 5 4 3 2 1" --expected_output="2x3xf32=42 37 34 33 34 37"
// RUN: strata-run --module=%t.vmfb --function=f32_math --input="4xf32=0 0.5 1 -1" --expected_f32_threshold=1e-5 --expected_output="4xf32=1 2.1108384 3.4798760 -0.39371471"
// RUN: strata-run --module=%t.vmfb --function=f64_ops --input="3xf64=1 2 3" --input="3xf64=0.5 0.25 0.125" --expected_output="3xf64=0.5 0.5 0.375"
// RUN: strata-run --module=%t.vmfb --function=i32_ops --input="4xi32=1 -2 3 -4" --input="4xi32=5 6 -7 8" --expected_output="4xi32=5 -12 -21 -32" --expected_output="4xi32=5 6 3 8"
// RUN: strata-run --module=%t.vmfb --function=i64_ops --input="2xi64=4294967296 -1" --expected_output="2xi64=8589934592 -2"
// RUN: strata-run --module=%t.vmfb --function=i8_ops --input="3xi8=100 -100 7" --input="3xi8=100 -100 1" --expected_output="3xi8=-56 56 8"
// RUN: strata-run --module=%t.vmfb --function=i16_ops --input="2xi16=30000 -5" --input="2xi16=10000 5" --expected_output="2xi16=-25536 0"
// RUN: strata-run --module=%t.vmfb --function=compare --input="4xf32=1 5 3 7" --input="4xf32=2 4 3 8" --expected_output="4xi1=1 0 0 1"
// RUN: strata-run --module=%t.vmfb --function=casts --input="3xi32=-2 0 7" --expected_output="3xf32=-1 0 3.5"

// (a + b) * a + b * b - a
func.func @f32_ops(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %s = linalg.add ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p = linalg.mul ins(%s, %a : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %q = linalg.mul ins(%b, %b : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = linalg.add ins(%p, %q : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = linalg.sub ins(%r, %a : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %t : tensor<2x3xf32>
}

// exp(x) + tanh(x), with no libm calls in the kernel
func.func @f32_math(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %a = math.exp %v : f32
    %b = math.tanh %v : f32
    %c = arith.addf %a, %b : f32
    linalg.yield %c : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @f64_ops(%a: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<3xf64> {
  %e = tensor.empty() : tensor<3xf64>
  %r = linalg.mul ins(%a, %b : tensor<3xf64>, tensor<3xf64>) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}

func.func @i32_ops(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %e = tensor.empty() : tensor<4xi32>
  %m = linalg.mul ins(%a, %b : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %s = linalg.add ins(%a, %b : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %x = linalg.max ins(%a, %b : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %mm = linalg.add ins(%m, %s : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %r = linalg.sub ins(%mm, %s : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  return %r, %x : tensor<4xi32>, tensor<4xi32>
}

func.func @i64_ops(%a: tensor<2xi64>) -> tensor<2xi64> {
  %e = tensor.empty() : tensor<2xi64>
  %r = linalg.add ins(%a, %a : tensor<2xi64>, tensor<2xi64>) outs(%e : tensor<2xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// 100 + 100 wraps to -56 in i8.
func.func @i8_ops(%a: tensor<3xi8>, %b: tensor<3xi8>) -> tensor<3xi8> {
  %e = tensor.empty() : tensor<3xi8>
  %r = linalg.add ins(%a, %b : tensor<3xi8>, tensor<3xi8>) outs(%e : tensor<3xi8>) -> tensor<3xi8>
  return %r : tensor<3xi8>
}

func.func @i16_ops(%a: tensor<2xi16>, %b: tensor<2xi16>) -> tensor<2xi16> {
  %e = tensor.empty() : tensor<2xi16>
  %r = linalg.add ins(%a, %b : tensor<2xi16>, tensor<2xi16>) outs(%e : tensor<2xi16>) -> tensor<2xi16>
  return %r : tensor<2xi16>
}

func.func @compare(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  %e = tensor.empty() : tensor<4xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xi1>) {
  ^bb0(%x: f32, %y: f32, %o: i1):
    %c = arith.cmpf olt, %x, %y : f32
    linalg.yield %c : i1
  } -> tensor<4xi1>
  return %r : tensor<4xi1>
}

func.func @casts(%a: tensor<3xi32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %half = arith.constant 0.5 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<3xi32>) outs(%e : tensor<3xf32>) {
  ^bb0(%x: i32, %o: f32):
    %f = arith.sitofp %x : i32 to f32
    %h = arith.mulf %f, %half : f32
    linalg.yield %h : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
