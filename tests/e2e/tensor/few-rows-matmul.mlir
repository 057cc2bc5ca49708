// Matmuls of at most 4 rows (matrix-vector products, a classifier's one
// row) read B in place instead of packing it; full column panels are read
// at B's row stride and a last panel of fewer columns is packed. Inputs
// differ per element (built from their indices), 1 and 3 rows against
// 1100 x 1000 (workgroups of 250 columns, each 7 panels of 32 + 26, or 15
// of 16 + 10; 250 x 1100 multiply-adds per row reach the microkernel's
// threshold), compared exactly with the same product written as a
// linalg.generic (loops).
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=loops1 --output=@%t.one.npy
// RUN: strata-run --module=%t.vmfb --function=mm1 --expected_output=@%t.one.npy
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=mm1 --expected_output=@%t.one.npy
// RUN: strata-run --module=%t.vmfb --function=loops3 --output=@%t.three.npy
// RUN: strata-run --module=%t.vmfb --function=mm3 --expected_output=@%t.three.npy
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=mm3 --expected_output=@%t.three.npy

// v[i, j] = ((5i + 7j + seed) mod 11) - 5
func.func private @lhs() -> tensor<3x1100xf32> {
  %e = tensor.empty() : tensor<3x1100xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<3x1100xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c11 = arith.constant 11 : index
    %five = arith.constant 5.0 : f32
    %t1 = arith.muli %i, %c5 : index
    %t2 = arith.muli %j, %c7 : index
    %s = arith.addi %t1, %t2 : index
    %m = arith.remui %s, %c11 : index
    %n = arith.index_cast %m : index to i32
    %f = arith.sitofp %n : i32 to f32
    %v = arith.subf %f, %five : f32
    linalg.yield %v : f32
  } -> tensor<3x1100xf32>
  return %x : tensor<3x1100xf32>
}

func.func private @rhs() -> tensor<1100x1000xf32> {
  %e = tensor.empty() : tensor<1100x1000xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<1100x1000xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c3 = arith.constant 3 : index
    %c13 = arith.constant 13 : index
    %c11 = arith.constant 11 : index
    %five = arith.constant 5.0 : f32
    %t1 = arith.muli %i, %c3 : index
    %t2 = arith.muli %j, %c13 : index
    %s = arith.addi %t1, %t2 : index
    %m = arith.remui %s, %c11 : index
    %n = arith.index_cast %m : index to i32
    %f = arith.sitofp %n : i32 to f32
    %v = arith.subf %f, %five : f32
    linalg.yield %v : f32
  } -> tensor<1100x1000xf32>
  return %x : tensor<1100x1000xf32>
}

func.func private @product(%a: tensor<?x1100xf32>, %b: tensor<1100x1000xf32>, %rows: index) -> tensor<?x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%rows) : tensor<?x1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  %r = linalg.generic {indexing_maps = [
      affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
      affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x1100xf32>, tensor<1100x1000xf32>) outs(%f : tensor<?x1000xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x1000xf32>
  return %r : tensor<?x1000xf32>
}

func.func @mm1() -> tensor<1x1000xf32> {
  %a0 = call @lhs() : () -> tensor<3x1100xf32>
  %a = tensor.extract_slice %a0[1, 0] [1, 1100] [1, 1] : tensor<3x1100xf32> to tensor<1x1100xf32>
  %b = call @rhs() : () -> tensor<1100x1000xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1x1100xf32>, tensor<1100x1000xf32>) outs(%f : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %r : tensor<1x1000xf32>
}

func.func @loops1() -> tensor<1x1000xf32> {
  %a0 = call @lhs() : () -> tensor<3x1100xf32>
  %a = tensor.extract_slice %a0[1, 0] [1, 1100] [1, 1] : tensor<3x1100xf32> to tensor<1x1100xf32>
  %b = call @rhs() : () -> tensor<1100x1000xf32>
  %c1 = arith.constant 1 : index
  %ad = tensor.cast %a : tensor<1x1100xf32> to tensor<?x1100xf32>
  %r = call @product(%ad, %b, %c1) : (tensor<?x1100xf32>, tensor<1100x1000xf32>, index) -> tensor<?x1000xf32>
  %rs = tensor.cast %r : tensor<?x1000xf32> to tensor<1x1000xf32>
  return %rs : tensor<1x1000xf32>
}

func.func @mm3() -> tensor<3x1000xf32> {
  %a = call @lhs() : () -> tensor<3x1100xf32>
  %b = call @rhs() : () -> tensor<1100x1000xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x1000xf32>) -> tensor<3x1000xf32>
  %r = linalg.matmul ins(%a, %b : tensor<3x1100xf32>, tensor<1100x1000xf32>) outs(%f : tensor<3x1000xf32>) -> tensor<3x1000xf32>
  return %r : tensor<3x1000xf32>
}

func.func @loops3() -> tensor<3x1000xf32> {
  %a = call @lhs() : () -> tensor<3x1100xf32>
  %b = call @rhs() : () -> tensor<1100x1000xf32>
  %c3 = arith.constant 3 : index
  %ad = tensor.cast %a : tensor<3x1100xf32> to tensor<?x1100xf32>
  %r = call @product(%ad, %b, %c3) : (tensor<?x1100xf32>, tensor<1100x1000xf32>, index) -> tensor<?x1000xf32>
  %rs = tensor.cast %r : tensor<?x1000xf32> to tensor<3x1000xf32>
  return %rs : tensor<3x1000xf32>
}
