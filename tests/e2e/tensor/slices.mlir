// Slices that are dispatches of their own (a tensor computed once, read by
// several slices: the attention's queries, keys and values taken from one
// projection) are copied by workgroups, each a band of rows. Edge sizes: 61
// rows (a prime), a slice of 59 rows at an offset, odd inner sizes, a slice
// that drops a unit dimension, and a 1-row slice; every value is exact
// (i * 10000 + j * 100 + k), checked against the same formula at the
// slice's offsets. Host, AVX2 and baseline x86-64 kernels, both devices.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-compile %s --target-cpu=x86-64-v3 -o %t.avx2.vmfb
// RUN: strata-compile %s --target-cpu=x86-64 -o %t.base.vmfb
// RUN: strata-compile %s --compile-to=flow | FileCheck %s
// CHECK-COUNT-3: func.func @checked_dispatch_{{[0-9]+}}_extract_slice_
// RUN: strata-run --module=%t.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=checked
// RUN: strata-run --module=%t.avx2.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.avx2.vmfb --device=local-sync --function=checked
// RUN: strata-run --module=%t.base.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.base.vmfb --device=local-sync --function=checked
// REQUIRES: llvm-cpu

#id3 = affine_map<(i, j, k) -> (i, j, k)>
#id2 = affine_map<(i, k) -> (i, k)>

// i * 10000 + j * 100 + k at (i + di, j + dj, k + dk).
func.func private @pattern(%di: index, %dj: index, %dk: index, %e: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<?x?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %ii = arith.addi %i, %di : index
    %jj = arith.addi %j, %dj : index
    %kk = arith.addi %k, %dk : index
    %c10000 = arith.constant 10000 : index
    %c100 = arith.constant 100 : index
    %a = arith.muli %ii, %c10000 : index
    %b = arith.muli %jj, %c100 : index
    %s0 = arith.addi %a, %b : index
    %s = arith.addi %s0, %kk : index
    %n = arith.index_cast %s : index to i32
    %f = arith.sitofp %n : i32 to f32
    linalg.yield %f : f32
  } -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

func.func @checked() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c30 = arith.constant 30 : index
  %zero = util.unfoldable_constant 0 : index
  %e = tensor.empty() : tensor<61x7x301xf32>
  %ed = tensor.cast %e : tensor<61x7x301xf32> to tensor<?x?x?xf32>
  %vd = func.call @pattern(%zero, %zero, %zero, %ed) : (index, index, index, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %v = tensor.cast %vd : tensor<?x?x?xf32> to tensor<61x7x301xf32>
  // Rows 1..59, columns 5..135.
  %a = tensor.extract_slice %v[1, 0, 5] [59, 7, 131] [1, 1, 1] : tensor<61x7x301xf32> to tensor<59x7x131xf32>
  // Plane j = 2 (the unit dimension dropped), columns 30..286.
  %b = tensor.extract_slice %v[0, 2, 30] [61, 1, 257] [1, 1, 1] : tensor<61x7x301xf32> to tensor<61x257xf32>
  // The last row.
  %c = tensor.extract_slice %v[60, 0, 0] [1, 7, 301] [1, 1, 1] : tensor<61x7x301xf32> to tensor<1x7x301xf32>
  %ea = tensor.empty() : tensor<59x7x131xf32>
  %ead = tensor.cast %ea : tensor<59x7x131xf32> to tensor<?x?x?xf32>
  %wa = func.call @pattern(%c1, %c0, %c5, %ead) : (index, index, index, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %wac = tensor.cast %wa : tensor<?x?x?xf32> to tensor<59x7x131xf32>
  check.expect_eq(%a, %wac) : tensor<59x7x131xf32>
  %eb = tensor.empty() : tensor<61x1x257xf32>
  %ebd = tensor.cast %eb : tensor<61x1x257xf32> to tensor<?x?x?xf32>
  %wb = func.call @pattern(%c0, %c2, %c30, %ebd) : (index, index, index, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %wbc = tensor.cast %wb : tensor<?x?x?xf32> to tensor<61x1x257xf32>
  %wbr = tensor.collapse_shape %wbc [[0, 1], [2]] : tensor<61x1x257xf32> into tensor<61x257xf32>
  check.expect_eq(%b, %wbr) : tensor<61x257xf32>
  %c60 = arith.constant 60 : index
  %ec = tensor.empty() : tensor<1x7x301xf32>
  %ecd = tensor.cast %ec : tensor<1x7x301xf32> to tensor<?x?x?xf32>
  %wc = func.call @pattern(%c60, %c0, %c0, %ecd) : (index, index, index, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %wcc = tensor.cast %wc : tensor<?x?x?xf32> to tensor<1x7x301xf32>
  check.expect_eq(%c, %wcc) : tensor<1x7x301xf32>
  return
}
