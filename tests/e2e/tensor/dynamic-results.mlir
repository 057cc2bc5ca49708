// Results whose sizes no constant bounds (every dimension from the inputs):
// fills, matmuls, matmul + bias + relu, transposes and row sums of
// tensor<?x?xT>. The host allocates each dispatch's results from the sizes
// and passes them in; no kernel allocates. On both devices.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=fill --input="2x3xf32=0" --expected_output="2x3xf32=3 3 3 3 3 3"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=fill --input="0x5xf32=" --expected_output="0x5xf32="
// RUN: strata-run --module=%t.vmfb --device=local-task --function=matmul --input="2x3xf32=1 2 3 4 5 6" --input="3x2xf32=1 0 0 1 1 1" --expected_output="2x2xf32=4 5 10 11"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=matmul --input="2x3xf32=1 2 3 4 5 6" --input="3x1xf32=1 1 1" --expected_output="2x1xf32=6 15"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=matmul_bias_relu --input="2x2xf32=1 2 3 4" --input="2x3xf32=1 0 -1 0 1 -1" --input="3xf32=0 0 1" --expected_output="2x3xf32=1 2 0 3 4 0"
// RUN: strata-run --module=%t.vmfb --device=local-task --function=transpose --input="2x3xi32=1 2 3 4 5 6" --expected_output="3x2xi32=1 4 2 5 3 6"
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=row_sums --input="2x3xf32=1 2 3 4 5 6" --expected_output="2xf32=6 15"
//
// Large sizes through the dynamic code paths, compared in the program with
// the same computation on static shapes.
// RUN: strata-run --module=%t.vmfb --device=local-task --function=large
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=large

func.func @fill(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %cst = arith.constant 3.0 : f32
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %f : tensor<?x?xf32>
}

func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %m = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %m : tensor<?x?xf32>
}

func.func @matmul_bias_relu(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %m = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @transpose(%a: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xi32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xi32>
  %e = tensor.empty(%d1, %d0) : tensor<?x?xi32>
  %t = linalg.transpose ins(%a : tensor<?x?xi32>) outs(%e : tensor<?x?xi32>) permutation = [1, 0]
  return %t : tensor<?x?xi32>
}

func.func @row_sums(%a: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%d0) : tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%a : tensor<?x?xf32>) outs(%f : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
}

// A[i, k] = (i + 2k) mod 7 - 3 and B[k, j] = (3k + j) mod 5 - 2 (exact in f32).
func.func private @operand(%rows: index, %cols: index, %mi: index, %mk: index, %mod: index, %off: f32) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %a = arith.muli %i, %mi : index
    %b = arith.muli %j, %mk : index
    %s = arith.addi %a, %b : index
    %r = arith.remui %s, %mod : index
    %ri = arith.index_cast %r : index to i32
    %rf = arith.sitofp %ri : i32 to f32
    %v = arith.subf %rf, %off : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}

func.func @large() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %m = util.unfoldable_constant 300 : index
  %k = util.unfoldable_constant 200 : index
  %n = util.unfoldable_constant 150 : index
  %f3 = arith.constant 3.0 : f32
  %f2 = arith.constant 2.0 : f32
  %a = call @operand(%m, %k, %c1, %c2, %c7, %f3) : (index, index, index, index, index, f32) -> tensor<?x?xf32>
  %b = call @operand(%k, %n, %c3, %c1, %c5, %f2) : (index, index, index, index, index, f32) -> tensor<?x?xf32>
  %bias = arith.constant dense<0.5> : tensor<150xf32>
  %biasd = tensor.cast %bias : tensor<150xf32> to tensor<?xf32>
  %r = call @matmul_bias_relu(%a, %b, %biasd) : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %rs = tensor.cast %r : tensor<?x?xf32> to tensor<300x150xf32>
  // The same on static shapes.
  %as = tensor.cast %a : tensor<?x?xf32> to tensor<300x200xf32>
  %bs = tensor.cast %b : tensor<?x?xf32> to tensor<200x150xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<300x150xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<300x150xf32>) -> tensor<300x150xf32>
  %mm = linalg.matmul ins(%as, %bs : tensor<300x200xf32>, tensor<200x150xf32>) outs(%f : tensor<300x150xf32>) -> tensor<300x150xf32>
  %ref = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<300x150xf32>, tensor<150xf32>) outs(%e : tensor<300x150xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  } -> tensor<300x150xf32>
  check.expect_almost_eq(%rs, %ref) : tensor<300x150xf32>
  %t = call @transpose_f32(%r) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %ts = tensor.cast %t : tensor<?x?xf32> to tensor<150x300xf32>
  %et = tensor.empty() : tensor<150x300xf32>
  %reft = linalg.transpose ins(%ref : tensor<300x150xf32>) outs(%et : tensor<150x300xf32>) permutation = [1, 0]
  check.expect_eq(%ts, %reft) : tensor<150x300xf32>
  return
}

func.func private @transpose_f32(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d1, %d0) : tensor<?x?xf32>
  %t = linalg.transpose ins(%a : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) permutation = [1, 0]
  return %t : tensor<?x?xf32>
}
