// Scalar code outside linalg ops and indexing maps with mod on the
// portable target end to end: a select of whole tensors on one i1 (an If
// of constant branches) becomes an elementwise select on a push constant;
// tensor.from_elements of scalar inputs becomes one-iteration stores at
// constant indices; an input read at `d mod c` (a tiled repeat) becomes a
// range-checked gather at indices computed from the loop indices.
// RUN: strata-compile %s --target=portable -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=pick --input="i1=1" --expected_output="3xf32=1 2 3"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=pick --input="i1=0" --expected_output="3xf32=4 5 6"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=pack --input="i64=7" --input="i64=-9" --expected_output="2xi64=7 -9"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=flag --input="i1=1" --expected_output="i1=1"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --device=local-task --function=tile --input="2x3xf32=1 2 3 4 5 6" --expected_output="4x6xf32=1 2 3 1 2 3 4 5 6 4 5 6 1 2 3 1 2 3 4 5 6 4 5 6"
// RUN: strata-run --module=%t.vmfb --no-native-kernels --function=halves --input="6xi32=1 2 3 4 5 6" --expected_output="2x6xi32=1 1 2 2 3 3 4 4 5 5 6 6"

func.func @pick(%c: tensor<i1>) -> tensor<3xf32> {
  %cond = tensor.extract %c[] : tensor<i1>
  %a = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = arith.constant dense<[4.0, 5.0, 6.0]> : tensor<3xf32>
  %r = arith.select %cond, %a, %b : tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func @pack(%a: tensor<i64>, %b: tensor<i64>) -> tensor<2xi64> {
  %x = tensor.extract %a[] : tensor<i64>
  %y = tensor.extract %b[] : tensor<i64>
  %r = tensor.from_elements %x, %y : tensor<2xi64>
  return %r : tensor<2xi64>
}

func.func @flag(%a: tensor<i1>) -> tensor<i1> {
  %x = tensor.extract %a[] : tensor<i1>
  %r = tensor.from_elements %x : tensor<i1>
  return %r : tensor<i1>
}

func.func @tile(%a: tensor<2x3xf32>) -> tensor<4x6xf32> {
  %e = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 mod 2, d1 mod 3)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<2x3xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// Each element twice: floordiv (a nearest-neighbour upsample).
func.func @halves(%a: tensor<6xi32>) -> tensor<2x6xi32> {
  %e = tensor.empty() : tensor<2x6xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ((d0 * 6 + d1) floordiv 2)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<6xi32>) outs(%e : tensor<2x6xi32>) {
  ^bb0(%x: i32, %o: i32):
    linalg.yield %x : i32
  } -> tensor<2x6xi32>
  return %r : tensor<2x6xi32>
}
