// Scalars computed on the host reach kernels as push constants: f32, i32,
// i64 above 2^32 (two words), f64, and an index, on both devices.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=scale --input="4xf32=1 2 3 4" --input=f32=2.5 --input=i64=5000000000 --input=i32=-3 --expected_output="4xf32=2.5 5 7.5 10" --expected_output="4xi64=10000000000 10000000000 10000000000 10000000000" --expected_output="4xi32=0 -3 -6 -9"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=scale --input="4xf32=1 2 3 4" --input=f32=2.5 --input=i64=5000000000 --input=i32=-3 --expected_output="4xf32=2.5 5 7.5 10" --expected_output="4xi64=10000000000 10000000000 10000000000 10000000000" --expected_output="4xi32=0 -3 -6 -9"
// RUN: strata-run --module=%t.vmfb --function=offset --input="3xf64=1 2 3" --input=f64=0.25 --input=i64=2 --expected_output="3xf64=1.75 2.75 3.75"

func.func @scale(%a: tensor<4xf32>, %s: f32, %k: i64, %n: i32) -> (tensor<4xf32>, tensor<4xi64>, tensor<4xi32>) {
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%s : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.mul ins(%a, %f : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %ei = tensor.empty() : tensor<4xi64>
  %k2 = arith.addi %k, %k : i64
  %fi = linalg.fill ins(%k2 : i64) outs(%ei : tensor<4xi64>) -> tensor<4xi64>
  %e32 = tensor.empty() : tensor<4xi32>
  %g = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]} outs(%e32 : tensor<4xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %v = arith.muli %ii, %n : i32
    linalg.yield %v : i32
  } -> tensor<4xi32>
  return %r, %fi, %g : tensor<4xf32>, tensor<4xi64>, tensor<4xi32>
}

// a + d * k with k an index from the host: 0.25 * 2 ... plus 1 - 0.5 = 0.75
func.func @offset(%a: tensor<3xf64>, %d: f64, %k64: i64) -> tensor<3xf64> {
  %k = arith.index_cast %k64 : i64 to index
  %e = tensor.empty() : tensor<3xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%x: f64, %o: f64):
    %kk = arith.index_cast %k : index to i64
    %kf = arith.sitofp %kk : i64 to f64
    %m = arith.mulf %d, %kf : f64
    %half = arith.constant 0.25 : f64
    %t = arith.addf %m, %half : f64
    %y = arith.addf %x, %t : f64
    linalg.yield %y : f64
  } -> tensor<3xf64>
  return %r : tensor<3xf64>
}
