// A large f32 batch_matmul runs one batch per workgroup on the matmul
// microkernel (a matmul on rank-reduced views), with and without an
// elementwise epilogue; the same product written as a linalg.generic runs
// as loops. Inputs differ per batch (built from their indices), at edge
// sizes (3 batches, 67 x 129 x 130), and both must agree exactly.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=loops --output=@%t.expected.npy
// RUN: strata-run --module=%t.vmfb --function=bmm --expected_output=@%t.expected.npy
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=bmm --expected_output=@%t.expected.npy
// RUN: strata-run --module=%t.vmfb --function=loops_relu --output=@%t.relu.npy
// RUN: strata-run --module=%t.vmfb --function=bmm_relu --expected_output=@%t.relu.npy
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=bmm_relu --expected_output=@%t.relu.npy

// v[b, i, j] = ((3b + 5i + 7j + seed) mod 11) - 5
func.func private @lhs(%seed: index) -> tensor<3x67x130xf32> {
  %e = tensor.empty() : tensor<3x67x130xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<3x67x130xf32>) {
  ^bb0(%o: f32):
    %b = linalg.index 0 : index
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c11 = arith.constant 11 : index
    %five = arith.constant 5.0 : f32
    %t0 = arith.muli %b, %c3 : index
    %t1 = arith.muli %i, %c5 : index
    %t2 = arith.muli %j, %c7 : index
    %s0 = arith.addi %t0, %t1 : index
    %s1 = arith.addi %s0, %t2 : index
    %s2 = arith.addi %s1, %seed : index
    %m = arith.remui %s2, %c11 : index
    %n = arith.index_cast %m : index to i32
    %f = arith.sitofp %n : i32 to f32
    %v = arith.subf %f, %five : f32
    linalg.yield %v : f32
  } -> tensor<3x67x130xf32>
  return %x : tensor<3x67x130xf32>
}

func.func private @rhs(%seed: index) -> tensor<3x130x129xf32> {
  %e = tensor.empty() : tensor<3x130x129xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<3x130x129xf32>) {
  ^bb0(%o: f32):
    %b = linalg.index 0 : index
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c11 = arith.constant 11 : index
    %five = arith.constant 5.0 : f32
    %t0 = arith.muli %b, %c3 : index
    %t1 = arith.muli %i, %c5 : index
    %t2 = arith.muli %j, %c7 : index
    %s0 = arith.addi %t0, %t1 : index
    %s1 = arith.addi %s0, %t2 : index
    %s2 = arith.addi %s1, %seed : index
    %m = arith.remui %s2, %c11 : index
    %n = arith.index_cast %m : index to i32
    %f = arith.sitofp %n : i32 to f32
    %v = arith.subf %f, %five : f32
    linalg.yield %v : f32
  } -> tensor<3x130x129xf32>
  return %x : tensor<3x130x129xf32>
}

func.func private @operands() -> (tensor<3x67x130xf32>, tensor<3x130x129xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = call @lhs(%c1) : (index) -> tensor<3x67x130xf32>
  %b = call @rhs(%c2) : (index) -> tensor<3x130x129xf32>
  return %a, %b : tensor<3x67x130xf32>, tensor<3x130x129xf32>
}

func.func @bmm() -> tensor<3x67x129xf32> {
  %a, %b = call @operands() : () -> (tensor<3x67x130xf32>, tensor<3x130x129xf32>)
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x67x129xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x67x129xf32>) -> tensor<3x67x129xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x67x130xf32>, tensor<3x130x129xf32>) outs(%f : tensor<3x67x129xf32>) -> tensor<3x67x129xf32>
  return %r : tensor<3x67x129xf32>
}

func.func @loops() -> tensor<3x67x129xf32> {
  %a, %b = call @operands() : () -> (tensor<3x67x130xf32>, tensor<3x130x129xf32>)
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x67x129xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x67x129xf32>) -> tensor<3x67x129xf32>
  %r = linalg.generic {indexing_maps = [
      affine_map<(b, i, j, k) -> (b, i, k)>,
      affine_map<(b, i, j, k) -> (b, k, j)>,
      affine_map<(b, i, j, k) -> (b, i, j)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3x67x130xf32>, tensor<3x130x129xf32>) outs(%f : tensor<3x67x129xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x67x129xf32>
  return %r : tensor<3x67x129xf32>
}

func.func @bmm_relu() -> tensor<3x67x129xf32> {
  %r = call @bmm() : () -> tensor<3x67x129xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x67x129xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%r : tensor<3x67x129xf32>) outs(%e : tensor<3x67x129xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<3x67x129xf32>
  return %y : tensor<3x67x129xf32>
}

func.func @loops_relu() -> tensor<3x67x129xf32> {
  %r = call @loops() : () -> tensor<3x67x129xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x67x129xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%r : tensor<3x67x129xf32>) outs(%e : tensor<3x67x129xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<3x67x129xf32>
  return %y : tensor<3x67x129xf32>
}
