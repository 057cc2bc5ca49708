// Attention's scaled scores as one dispatch: Q (sequence x heads x depth)
// transposed to heads-first and divided by sqrt(64) inside the batch
// matmul's dispatch (each workgroup relays out its own batch of Q and K
// for the microkernel; FormDispatches.cpp isCheapRelayout), against the
// same scores from one plain contraction that reads Q and K in their own
// layout. Every value is a multiple of 1/32 well inside f32's precision,
// so both orders give the same bits. Edge sizes (checked_edges): one query
// against 2003 keys with heads of depth 131 (a decoder's step: one row a
// head, the microkernel's few-rows path), 131 queries and keys with heads
// of depth 17, 3 heads; primes and odd depths, still enough work per head
// for the microkernel. AVX-512 host, AVX2 and generic x86-64 builds, both
// devices; the portable target as well.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-compile %s --target-cpu=x86-64-v3 -o %t.avx2.vmfb
// RUN: strata-compile %s --target-cpu=x86-64 -o %t.generic.vmfb
// RUN: strata-compile %s --compile-to=flow | FileCheck %s
// RUN: strata-run --module=%t.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=checked
// RUN: strata-run --module=%t.avx2.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.avx2.vmfb --device=local-sync --function=checked
// RUN: strata-run --module=%t.generic.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.generic.vmfb --device=local-sync --function=checked
// RUN: strata-run --module=%t.vmfb --device=local-task --function=checked_edges
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=checked_edges
// RUN: strata-run --module=%t.avx2.vmfb --device=local-task --function=checked_edges
// RUN: strata-run --module=%t.avx2.vmfb --device=local-sync --function=checked_edges
// RUN: strata-run --module=%t.generic.vmfb --device=local-task --function=checked_edges
// RUN: strata-run --module=%t.generic.vmfb --device=local-sync --function=checked_edges
// RUN: %if portable %{ strata-compile %s --target=portable -o %t.portable.vmfb %}
// RUN: %if portable %{ strata-run --module=%t.portable.vmfb --no-native-kernels --function=checked %}
// RUN: %if portable %{ strata-run --module=%t.portable.vmfb --no-native-kernels --function=checked_edges %}
// REQUIRES: llvm-cpu

// The scores' dispatch reads Q and K as they are (no transposed copy).
// CHECK: func.func @checked_dispatch_{{[0-9]+}}_batch_matmul_4x64x64x64_f32(%{{.*}}: tensor<64x4x64xf32>, %{{.*}}: tensor<64x4x64xf32>)
// CHECK: arith.divf
// CHECK: linalg.transpose
// CHECK: linalg.batch_matmul
// The edge cases take the same form.
// CHECK: func.func @checked_edges_dispatch_{{[0-9]+}}_batch_matmul_3x1x2003x131_f32(%{{.*}}: tensor<1x3x131xf32>, %{{.*}}: tensor<2003x3x131xf32>)
// CHECK: arith.divf
// CHECK: linalg.transpose
// CHECK: linalg.batch_matmul
// CHECK: func.func @checked_edges_dispatch_{{[0-9]+}}_batch_matmul_3x131x131x17_f32(%{{.*}}: tensor<131x3x17xf32>, %{{.*}}: tensor<131x3x17xf32>)
// CHECK: arith.divf
// CHECK: linalg.transpose
// CHECK: linalg.batch_matmul

#q_map = affine_map<(l, h, e) -> (l, h, e)>
#s_q = affine_map<(h, i, j, e) -> (i, h, e)>
#s_k = affine_map<(h, i, j, e) -> (j, h, e)>
#s_out = affine_map<(h, i, j, e) -> (h, i, j)>

// ((l * a + h * b + e * c) mod 17 - 8) / 4
func.func private @pattern(%a: index, %b: index, %c: index) -> tensor<64x4x64xf32> {
  %e = tensor.empty() : tensor<64x4x64xf32>
  %r = linalg.generic {indexing_maps = [#q_map], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<64x4x64xf32>) {
  ^bb0(%out: f32):
    %l = linalg.index 0 : index
    %h = linalg.index 1 : index
    %d = linalg.index 2 : index
    %x = arith.muli %l, %a : index
    %y = arith.muli %h, %b : index
    %z = arith.muli %d, %c : index
    %s1 = arith.addi %x, %y : index
    %s2 = arith.addi %s1, %z : index
    %c17 = arith.constant 17 : index
    %m = arith.remui %s2, %c17 : index
    %i = arith.index_cast %m : index to i32
    %f = arith.sitofp %i : i32 to f32
    %c8 = arith.constant 8.0 : f32
    %c4 = arith.constant 0.25 : f32
    %g = arith.subf %f, %c8 : f32
    %v = arith.mulf %g, %c4 : f32
    linalg.yield %v : f32
  } -> tensor<64x4x64xf32>
  return %r : tensor<64x4x64xf32>
}

func.func @checked() {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %q0 = func.call @pattern(%c7, %c13, %c3) : (index, index, index) -> tensor<64x4x64xf32>
  %k0 = func.call @pattern(%c5, %c11, %c7) : (index, index, index) -> tensor<64x4x64xf32>
  %q = util.optimization_barrier %q0 : tensor<64x4x64xf32>
  %k = util.optimization_barrier %k0 : tensor<64x4x64xf32>
  %zero = arith.constant 0.0 : f32
  %eight = arith.constant dense<8.0> : tensor<4x64x64xf32>
  %eq = tensor.empty() : tensor<4x64x64xf32>
  %qt = linalg.transpose ins(%q : tensor<64x4x64xf32>) outs(%eq : tensor<4x64x64xf32>) permutation = [1, 0, 2]
  %qs = linalg.div ins(%qt, %eight : tensor<4x64x64xf32>, tensor<4x64x64xf32>) outs(%eq : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  %kt = linalg.transpose ins(%k : tensor<64x4x64xf32>) outs(%eq : tensor<4x64x64xf32>) permutation = [1, 2, 0]
  %e = tensor.empty() : tensor<4x64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  %s = linalg.batch_matmul ins(%qs, %kt : tensor<4x64x64xf32>, tensor<4x64x64xf32>) outs(%f : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  %ref = linalg.generic {indexing_maps = [#s_q, #s_k, #s_out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<64x4x64xf32>, tensor<64x4x64xf32>) outs(%f : tensor<4x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %c8 = arith.constant 8.0 : f32
    %as = arith.divf %a, %c8 : f32
    %p = arith.mulf %as, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x64x64xf32>
  check.expect_eq(%s, %ref) : tensor<4x64x64xf32>
  return
}

// The same pattern at the edge cases' sizes.
func.func private @pattern_1x3x131(%a: index, %b: index, %c: index) -> tensor<1x3x131xf32> {
  %e = tensor.empty() : tensor<1x3x131xf32>
  %r = linalg.generic {indexing_maps = [#q_map], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<1x3x131xf32>) {
  ^bb0(%out: f32):
    %l = linalg.index 0 : index
    %h = linalg.index 1 : index
    %d = linalg.index 2 : index
    %x = arith.muli %l, %a : index
    %y = arith.muli %h, %b : index
    %z = arith.muli %d, %c : index
    %s1 = arith.addi %x, %y : index
    %s2 = arith.addi %s1, %z : index
    %c17 = arith.constant 17 : index
    %m = arith.remui %s2, %c17 : index
    %i = arith.index_cast %m : index to i32
    %f = arith.sitofp %i : i32 to f32
    %c8 = arith.constant 8.0 : f32
    %c4 = arith.constant 0.25 : f32
    %g = arith.subf %f, %c8 : f32
    %v = arith.mulf %g, %c4 : f32
    linalg.yield %v : f32
  } -> tensor<1x3x131xf32>
  return %r : tensor<1x3x131xf32>
}

func.func private @pattern_2003x3x131(%a: index, %b: index, %c: index) -> tensor<2003x3x131xf32> {
  %e = tensor.empty() : tensor<2003x3x131xf32>
  %r = linalg.generic {indexing_maps = [#q_map], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<2003x3x131xf32>) {
  ^bb0(%out: f32):
    %l = linalg.index 0 : index
    %h = linalg.index 1 : index
    %d = linalg.index 2 : index
    %x = arith.muli %l, %a : index
    %y = arith.muli %h, %b : index
    %z = arith.muli %d, %c : index
    %s1 = arith.addi %x, %y : index
    %s2 = arith.addi %s1, %z : index
    %c17 = arith.constant 17 : index
    %m = arith.remui %s2, %c17 : index
    %i = arith.index_cast %m : index to i32
    %f = arith.sitofp %i : i32 to f32
    %c8 = arith.constant 8.0 : f32
    %c4 = arith.constant 0.25 : f32
    %g = arith.subf %f, %c8 : f32
    %v = arith.mulf %g, %c4 : f32
    linalg.yield %v : f32
  } -> tensor<2003x3x131xf32>
  return %r : tensor<2003x3x131xf32>
}

func.func private @pattern_131x3x17(%a: index, %b: index, %c: index) -> tensor<131x3x17xf32> {
  %e = tensor.empty() : tensor<131x3x17xf32>
  %r = linalg.generic {indexing_maps = [#q_map], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<131x3x17xf32>) {
  ^bb0(%out: f32):
    %l = linalg.index 0 : index
    %h = linalg.index 1 : index
    %d = linalg.index 2 : index
    %x = arith.muli %l, %a : index
    %y = arith.muli %h, %b : index
    %z = arith.muli %d, %c : index
    %s1 = arith.addi %x, %y : index
    %s2 = arith.addi %s1, %z : index
    %c17 = arith.constant 17 : index
    %m = arith.remui %s2, %c17 : index
    %i = arith.index_cast %m : index to i32
    %f = arith.sitofp %i : i32 to f32
    %c8 = arith.constant 8.0 : f32
    %c4 = arith.constant 0.25 : f32
    %g = arith.subf %f, %c8 : f32
    %v = arith.mulf %g, %c4 : f32
    linalg.yield %v : f32
  } -> tensor<131x3x17xf32>
  return %r : tensor<131x3x17xf32>
}

// Edge sizes in the same form, each still large enough per head for the
// microkernel (MatmulUkernel.cpp): one query against 2003 keys (a
// decoder's step: one row), 3 heads of depth 131; 131 queries and keys,
// 3 heads of depth 17. Still divided by 8, a power of two: the sums stay
// exact.
func.func @checked_edges() {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %zero = arith.constant 0.0 : f32
  // Scores 3 x 1 x 2003.
  %q1 = func.call @pattern_1x3x131(%c7, %c13, %c3) : (index, index, index) -> tensor<1x3x131xf32>
  %k1 = func.call @pattern_2003x3x131(%c5, %c11, %c7) : (index, index, index) -> tensor<2003x3x131xf32>
  %qb1 = util.optimization_barrier %q1 : tensor<1x3x131xf32>
  %kb1 = util.optimization_barrier %k1 : tensor<2003x3x131xf32>
  %eight1 = arith.constant dense<8.0> : tensor<3x1x131xf32>
  %eq1 = tensor.empty() : tensor<3x1x131xf32>
  %qt1 = linalg.transpose ins(%qb1 : tensor<1x3x131xf32>) outs(%eq1 : tensor<3x1x131xf32>) permutation = [1, 0, 2]
  %qs1 = linalg.div ins(%qt1, %eight1 : tensor<3x1x131xf32>, tensor<3x1x131xf32>) outs(%eq1 : tensor<3x1x131xf32>) -> tensor<3x1x131xf32>
  %ek1 = tensor.empty() : tensor<3x131x2003xf32>
  %kt1 = linalg.transpose ins(%kb1 : tensor<2003x3x131xf32>) outs(%ek1 : tensor<3x131x2003xf32>) permutation = [1, 2, 0]
  %e1 = tensor.empty() : tensor<3x1x2003xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3x1x2003xf32>) -> tensor<3x1x2003xf32>
  %s1 = linalg.batch_matmul ins(%qs1, %kt1 : tensor<3x1x131xf32>, tensor<3x131x2003xf32>) outs(%f1 : tensor<3x1x2003xf32>) -> tensor<3x1x2003xf32>
  %ref1 = linalg.generic {indexing_maps = [#s_q, #s_k, #s_out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%qb1, %kb1 : tensor<1x3x131xf32>, tensor<2003x3x131xf32>) outs(%f1 : tensor<3x1x2003xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %c8 = arith.constant 8.0 : f32
    %as = arith.divf %a, %c8 : f32
    %p = arith.mulf %as, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<3x1x2003xf32>
  check.expect_eq(%s1, %ref1) : tensor<3x1x2003xf32>
  // Scores 3 x 131 x 131.
  %q2 = func.call @pattern_131x3x17(%c7, %c13, %c3) : (index, index, index) -> tensor<131x3x17xf32>
  %k2 = func.call @pattern_131x3x17(%c5, %c11, %c7) : (index, index, index) -> tensor<131x3x17xf32>
  %qb2 = util.optimization_barrier %q2 : tensor<131x3x17xf32>
  %kb2 = util.optimization_barrier %k2 : tensor<131x3x17xf32>
  %eight2 = arith.constant dense<8.0> : tensor<3x131x17xf32>
  %eq2 = tensor.empty() : tensor<3x131x17xf32>
  %qt2 = linalg.transpose ins(%qb2 : tensor<131x3x17xf32>) outs(%eq2 : tensor<3x131x17xf32>) permutation = [1, 0, 2]
  %qs2 = linalg.div ins(%qt2, %eight2 : tensor<3x131x17xf32>, tensor<3x131x17xf32>) outs(%eq2 : tensor<3x131x17xf32>) -> tensor<3x131x17xf32>
  %ek2 = tensor.empty() : tensor<3x17x131xf32>
  %kt2 = linalg.transpose ins(%kb2 : tensor<131x3x17xf32>) outs(%ek2 : tensor<3x17x131xf32>) permutation = [1, 2, 0]
  %e2 = tensor.empty() : tensor<3x131x131xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x131x131xf32>) -> tensor<3x131x131xf32>
  %s2 = linalg.batch_matmul ins(%qs2, %kt2 : tensor<3x131x17xf32>, tensor<3x17x131xf32>) outs(%f2 : tensor<3x131x131xf32>) -> tensor<3x131x131xf32>
  %ref2 = linalg.generic {indexing_maps = [#s_q, #s_k, #s_out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%qb2, %kb2 : tensor<131x3x17xf32>, tensor<131x3x17xf32>) outs(%f2 : tensor<3x131x131xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %c8 = arith.constant 8.0 : f32
    %as = arith.divf %a, %c8 : f32
    %p = arith.mulf %as, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<3x131x131xf32>
  check.expect_eq(%s2, %ref2) : tensor<3x131x131xf32>
  return
}
