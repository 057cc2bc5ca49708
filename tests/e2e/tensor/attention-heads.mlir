// Attention's two products per head at edge sizes (a sequence of 67, 3
// heads, a depth of 131): the scores read K^T, the transpose of a
// [sequence, heads, depth] key, and the weighted sum reads the values of
// one head, rows heads x depth floats apart. Each workgroup's microkernel
// reads the key (STRATA_SGEMM_TRANSPOSED_B: 8 x 8 blocks transposed as it
// packs, a partial last panel, depth past a multiple of 8) and the values
// in place of a per-workgroup copy. Against one plain contraction each
// that reads the operands in their own layout; every value is a multiple
// of 1/4 and every sum exact in f32, so any order gives the same bits.
// AVX-512 host, AVX2 and generic x86-64 builds, both devices; the
// portable target as well.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-compile %s --target-cpu=x86-64-v3 -o %t.avx2.vmfb
// RUN: strata-compile %s --target-cpu=x86-64 -o %t.generic.vmfb
// RUN: strata-run --module=%t.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=checked
// RUN: strata-run --module=%t.avx2.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.avx2.vmfb --device=local-sync --function=checked
// RUN: strata-run --module=%t.generic.vmfb --device=local-task --function=checked
// RUN: %if portable %{ strata-compile %s --target=portable -o %t.portable.vmfb %}
// RUN: %if portable %{ strata-run --module=%t.portable.vmfb --no-native-kernels --function=checked %}
// REQUIRES: llvm-cpu

#id3 = affine_map<(a, b, c) -> (a, b, c)>
#s_q = affine_map<(h, i, j, e) -> (i, h, e)>
#s_k = affine_map<(h, i, j, e) -> (j, h, e)>
#s_out = affine_map<(h, i, j, e) -> (h, i, j)>
#v_p = affine_map<(h, i, e, j) -> (h, i, j)>
#v_v = affine_map<(h, i, e, j) -> (j, h, e)>
#v_out = affine_map<(h, i, e, j) -> (h, i, e)>

// ((x * a + y * b + z * c) mod 17 - 8) / 4 over the three indices.
func.func private @pattern(%a: index, %b: index, %c: index, %e: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<?x?x?xf32>) {
  ^bb0(%out: f32):
    %x = linalg.index 0 : index
    %y = linalg.index 1 : index
    %z = linalg.index 2 : index
    %xa = arith.muli %x, %a : index
    %yb = arith.muli %y, %b : index
    %zc = arith.muli %z, %c : index
    %s1 = arith.addi %xa, %yb : index
    %s2 = arith.addi %s1, %zc : index
    %c17 = arith.constant 17 : index
    %m = arith.remui %s2, %c17 : index
    %i = arith.index_cast %m : index to i32
    %f = arith.sitofp %i : i32 to f32
    %c8 = arith.constant 8.0 : f32
    %quarter = arith.constant 0.25 : f32
    %g = arith.subf %f, %c8 : f32
    %v = arith.mulf %g, %quarter : f32
    linalg.yield %v : f32
  } -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

func.func private @make(%a: index, %b: index, %c: index, %d0: index, %d1: index, %d2: index) -> tensor<?x?x?xf32> {
  %e = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %r = func.call @pattern(%a, %b, %c, %e) : (index, index, index, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

func.func @checked() {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %c67 = arith.constant 67 : index
  %c131 = arith.constant 131 : index
  %q0 = func.call @make(%c7, %c13, %c3, %c67, %c3, %c131) : (index, index, index, index, index, index) -> tensor<?x?x?xf32>
  %k0 = func.call @make(%c5, %c11, %c7, %c67, %c3, %c131) : (index, index, index, index, index, index) -> tensor<?x?x?xf32>
  %v0 = func.call @make(%c3, %c7, %c13, %c67, %c3, %c131) : (index, index, index, index, index, index) -> tensor<?x?x?xf32>
  %p0 = func.call @make(%c11, %c3, %c5, %c3, %c67, %c67) : (index, index, index, index, index, index) -> tensor<?x?x?xf32>
  %q1 = tensor.cast %q0 : tensor<?x?x?xf32> to tensor<67x3x131xf32>
  %k1 = tensor.cast %k0 : tensor<?x?x?xf32> to tensor<67x3x131xf32>
  %v1 = tensor.cast %v0 : tensor<?x?x?xf32> to tensor<67x3x131xf32>
  %p1 = tensor.cast %p0 : tensor<?x?x?xf32> to tensor<3x67x67xf32>
  %q = util.optimization_barrier %q1 : tensor<67x3x131xf32>
  %k = util.optimization_barrier %k1 : tensor<67x3x131xf32>
  %v = util.optimization_barrier %v1 : tensor<67x3x131xf32>
  %p = util.optimization_barrier %p1 : tensor<3x67x67xf32>
  %zero = arith.constant 0.0 : f32

  // scores[h, i, j] = sum_e q[i, h, e] * k[j, h, e]
  %eq = tensor.empty() : tensor<3x67x131xf32>
  %qt = linalg.transpose ins(%q : tensor<67x3x131xf32>) outs(%eq : tensor<3x67x131xf32>) permutation = [1, 0, 2]
  %ek = tensor.empty() : tensor<3x131x67xf32>
  %kt = linalg.transpose ins(%k : tensor<67x3x131xf32>) outs(%ek : tensor<3x131x67xf32>) permutation = [1, 2, 0]
  %es = tensor.empty() : tensor<3x67x67xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<3x67x67xf32>) -> tensor<3x67x67xf32>
  %s = linalg.batch_matmul ins(%qt, %kt : tensor<3x67x131xf32>, tensor<3x131x67xf32>) outs(%fs : tensor<3x67x67xf32>) -> tensor<3x67x67xf32>
  %sref = linalg.generic {indexing_maps = [#s_q, #s_k, #s_out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<67x3x131xf32>, tensor<67x3x131xf32>) outs(%fs : tensor<3x67x67xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<3x67x67xf32>
  check.expect_eq(%s, %sref) : tensor<3x67x67xf32>

  // out[h, i, e] = sum_j p[h, i, j] * v[j, h, e]
  %ev = tensor.empty() : tensor<3x67x131xf32>
  %vt = linalg.transpose ins(%v : tensor<67x3x131xf32>) outs(%ev : tensor<3x67x131xf32>) permutation = [1, 0, 2]
  %fo = linalg.fill ins(%zero : f32) outs(%ev : tensor<3x67x131xf32>) -> tensor<3x67x131xf32>
  %o = linalg.batch_matmul ins(%p, %vt : tensor<3x67x67xf32>, tensor<3x67x131xf32>) outs(%fo : tensor<3x67x131xf32>) -> tensor<3x67x131xf32>
  %oref = linalg.generic {indexing_maps = [#v_p, #v_v, #v_out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<3x67x67xf32>, tensor<67x3x131xf32>) outs(%fo : tensor<3x67x131xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<3x67x131xf32>
  check.expect_eq(%o, %oref) : tensor<3x67x131xf32>
  return
}
