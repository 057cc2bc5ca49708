// A convolution whose result is stored with non-temporal (streaming)
// stores, and one whose filter is too large to be read once per row tile.
// @streamed: a result of at least streamed_result_mib (32 MiB,
// ukernel/IsaTuning.def) leaves the convolution microkernel by
// non-temporal stores (STRATA_SGEMM_STREAM, ConvUkernel.cpp streamFlag):
// 2x339x339x29 -> 3x3, 37 filters -> 2x337x337x37 (33,612,424 bytes, just
// over 32 MiB), a workgroup an output row (337 x 2). Depth 9 * 29 = 261:
// the filter, an argument rather than a constant, is packed per call in
// depth blocks of kc 256 on every ISA, and only the last block (5 deep)
// streams, adding to what the first stored normally (SgemmDriver.h). Only
// whole, vector-aligned rows of a tile stream: 37 filters are whole
// panels and a partial one, and a pixel's 37 floats start a vector only
// every 4, 8 or 16 pixels. Checked exactly (every value a small integer,
// every sum exact in f32) by Freivalds' check against loops: each
// pixel's 37 channels weighted by 1, f and f * f mod 37, against the
// input convolved by a linalg.generic with the filter weighted the same
// way (3 channels: a tenth of a direct reference's 2.2 G multiply-adds,
// which take 1.5 s a run on loops); and image 1's last 3 rows element by
// element against a linalg.generic convolution. Whether the host build
// streams depends on the host: LLVMCPUTarget.cpp raises the threshold to
// the last-level cache /sys reports when that is larger than 32 MiB, so
// there only the values are checked; --target-cpu=x86-64-v3 and x86-64
// keep their row's 32 MiB and are checked to stream (the microkernel
// call's flags, 256, in their kernel IR: --mlir-print-ir-tree-dir). (A
// filter packed at compile time, whose in-place windows take conv_kc
// blocks, is not covered.)
// @large_filter: a filter larger than streamed_filter_mib (4 MiB:
// 3x3x337x353, 4,283,596 bytes) keeps each image's rows whole, its
// workgroups narrower column tiles instead (TileAndDistribute.cpp
// chooseConvTileSizes): 2 images of 11x9x337 -> 9x7x353, tiles of 64
// filters (five, and one of 33) over whole images, 2 x 6 workgroups, each
// a microkernel call of 63 pixels at depth 3033 (12 blocks of kc 256).
// Against a linalg.generic convolution, exactly.
// @grid3: convolutions at batch 2 and 3 cut into images, row bands and
// filter columns, a 3-d forall whose first two dimensions the binding
// linearizes into workgroup id y (BindWorkgroupIds.cpp; refused before,
// such a convolution ran as one workgroup of scalar loops): 3x26x11x97 ->
// 3x3, 263 filters (3 images x 2 bands of 12 rows, 3 column tiles, the
// last partial) and 2x19x17x61 -> 3x3, 257 filters (17 rows, a prime, in
// bands of 6, 6 and 5). Against linalg.generic convolutions, exactly.
// Host, AVX2 and baseline x86-64 kernels, both devices.
// RUN: rm -rf %t && mkdir -p %t
// RUN: strata-compile %s -o %t/host.vmfb --mlir-print-ir-after-all --mlir-print-ir-tree-dir=%t/host.ir
// RUN: strata-compile %s --target-cpu=x86-64-v3 -o %t/avx2.vmfb --mlir-print-ir-after-all --mlir-print-ir-tree-dir=%t/avx2.ir
// RUN: strata-compile %s --target-cpu=x86-64 -o %t/base.vmfb --mlir-print-ir-after-all --mlir-print-ir-tree-dir=%t/base.ir
// RUN: strata-compile %s --compile-to=flow | FileCheck %s
// CHECK-DAG: func.func @streamed_dispatch_{{[0-9]+}}_conv_3x3_29x37_337x337_n2_f32(%arg0: tensor<2x339x339x29xf32>, %arg1: tensor<3x3x29x37xf32>) -> tensor<2x337x337x37xf32>
// CHECK-DAG: func.func @large_filter_dispatch_{{[0-9]+}}_conv_3x3_337x353_9x7_n2_f32(%arg0: tensor<2x11x9x337xf32>, %arg1: tensor<3x3x337x353xf32>) -> tensor<2x9x7x353xf32>
// RUN: strata-compile %s --compile-to=hal | FileCheck %s --check-prefix=GRID
// GRID-DAG: @grid3_dispatch_{{[0-9]+}}_conv_3x3_97x263_24x9_n3_f32 ordinal({{[0-9]+}}) workgroup_count([3, 6, 1])
// GRID-DAG: @grid3_dispatch_{{[0-9]+}}_conv_3x3_61x257_17x15_n2_f32 ordinal({{[0-9]+}}) workgroup_count([3, 6, 1])
// The kernel IR of each convolution's dispatch once its microkernel call
// is made (the tree holds a file a pass a function):
// RUN: cat %t/avx2.ir/*/func_func_streamed_dispatch_*_conv_3x3_29x37_337x337_n2_f32/0_0_convert-linalg-to-loops.mlir | FileCheck %s --check-prefix=STREAM
// RUN: cat %t/base.ir/*/func_func_streamed_dispatch_*_conv_3x3_29x37_337x337_n2_f32/0_0_convert-linalg-to-loops.mlir | FileCheck %s --check-prefix=STREAM
// STREAM: func.func @streamed_dispatch_{{[0-9]+}}_conv_3x3_29x37_337x337_n2_f32(
// STREAM-SAME: strata.workgroup_count = array<i64: 337, 2, 1>
// m (an output row), n, k = 261, then the flags: STRATA_SGEMM_STREAM
// (256) alone.
// STREAM: call @strata_ukernel_sconv_f32({{.*}}, %c337_i64, %c37_i64, %c261_i64, %c256_i64,
// RUN: cat %t/host.ir/*/func_func_large_filter_dispatch_*_conv_3x3_337x353_9x7_n2_f32/0_0_convert-linalg-to-loops.mlir | FileCheck %s --check-prefix=LARGE
// RUN: cat %t/avx2.ir/*/func_func_large_filter_dispatch_*_conv_3x3_337x353_9x7_n2_f32/0_0_convert-linalg-to-loops.mlir | FileCheck %s --check-prefix=LARGE
// RUN: cat %t/base.ir/*/func_func_large_filter_dispatch_*_conv_3x3_337x353_9x7_n2_f32/0_0_convert-linalg-to-loops.mlir | FileCheck %s --check-prefix=LARGE
// LARGE: func.func @large_filter_dispatch_{{[0-9]+}}_conv_3x3_337x353_9x7_n2_f32(
// LARGE-SAME: strata.workgroup_count = array<i64: 2, 6, 1>
// LARGE: affine.min affine_map<(d0) -> (-d0 + 353, 64)>
// LARGE: memref.subview %{{.*}}[%{{.*}}, 0, 0, %{{.*}}] [1, 9, 7, %{{.*}}] [1, 1, 1, 1] : memref<2x9x7x353xf32> to
// A whole image (63 pixels) a call, k = 3033, flags 0 (nothing streams).
// LARGE: call @strata_ukernel_sconv_f32({{.*}}, %c353_i64, %c63_i64, %{{[0-9]+}}, %c3033_i64, %c0_i64,
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=streamed
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=streamed
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=streamed
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=streamed
// RUN: strata-run --module=%t/base.vmfb --device=local-task --function=streamed
// RUN: strata-run --module=%t/base.vmfb --device=local-sync --function=streamed
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=large_filter
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=large_filter
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=large_filter
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=large_filter
// RUN: strata-run --module=%t/base.vmfb --device=local-task --function=large_filter
// RUN: strata-run --module=%t/base.vmfb --device=local-sync --function=large_filter
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=grid3
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=grid3
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=grid3
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=grid3
// RUN: strata-run --module=%t/base.vmfb --device=local-task --function=grid3
// RUN: strata-run --module=%t/base.vmfb --device=local-sync --function=grid3
// REQUIRES: llvm-cpu

#id4 = affine_map<(a, b, c, d) -> (a, b, c, d)>
#conv_in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#conv_w = affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>
#conv_out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
#fv_w = affine_map<(kh, kw, c, j, f) -> (kh, kw, c, f)>
#fv_v = affine_map<(kh, kw, c, j, f) -> (f, j)>
#fv_out = affine_map<(kh, kw, c, j, f) -> (kh, kw, c, j)>
#pv_in = affine_map<(n, h, w, j, f) -> (n, h, w, f)>
#pv_v = affine_map<(n, h, w, j, f) -> (f, j)>
#pv_out = affine_map<(n, h, w, j, f) -> (n, h, w, j)>

// ((i * a + j * b + k * c + l * d) mod 7) - 3 over the four indices.
func.func private @pattern(%a: index, %b: index, %c: index, %d: index, %d0: index, %d1: index, %d2: index, %d3: index) -> tensor<?x?x?x?xf32> {
  %e = tensor.empty(%d0, %d1, %d2, %d3) : tensor<?x?x?x?xf32>
  %r = linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e : tensor<?x?x?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %l = linalg.index 3 : index
    %ia = arith.muli %i, %a : index
    %jb = arith.muli %j, %b : index
    %kc = arith.muli %k, %c : index
    %ld = arith.muli %l, %d : index
    %s1 = arith.addi %ia, %jb : index
    %s2 = arith.addi %s1, %kc : index
    %s3 = arith.addi %s2, %ld : index
    %c7 = arith.constant 7 : index
    %m = arith.remui %s3, %c7 : index
    %n = arith.index_cast %m : index to i32
    %f = arith.sitofp %n : i32 to f32
    %c3 = arith.constant 3.0 : f32
    %v = arith.subf %f, %c3 : f32
    linalg.yield %v : f32
  } -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

func.func @streamed() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c29 = arith.constant 29 : index
  %c37 = arith.constant 37 : index
  %c339 = arith.constant 339 : index
  %zero = arith.constant 0.0 : f32
  %x0 = func.call @pattern(%c3, %c1, %c2, %c5, %c2, %c339, %c339, %c29) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %w0 = func.call @pattern(%c1, %c2, %c5, %c3, %c3, %c3, %c29, %c37) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %x1 = tensor.cast %x0 : tensor<?x?x?x?xf32> to tensor<2x339x339x29xf32>
  %w1 = tensor.cast %w0 : tensor<?x?x?x?xf32> to tensor<3x3x29x37xf32>
  %x = util.optimization_barrier %x1 : tensor<2x339x339x29xf32>
  %w = util.optimization_barrier %w1 : tensor<3x3x29x37xf32>
  %e = tensor.empty() : tensor<2x337x337x37xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x337x337x37xf32>) -> tensor<2x337x337x37xf32>
  %conv0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x339x339x29xf32>, tensor<3x3x29x37xf32>) outs(%f : tensor<2x337x337x37xf32>) -> tensor<2x337x337x37xf32>
  // (The barrier keeps the weighted sums out of the convolution's
  // dispatch: the result is written whole, and streamed.)
  %conv = util.optimization_barrier %conv0 : tensor<2x337x337x37xf32>

  // The weights of filter f: 1, f and f * f mod 37 (sums of at most
  // 37 * 2349 * 36, exact in f32).
  %ev = tensor.empty() : tensor<37x3xf32>
  %v = linalg.generic {indexing_maps = [affine_map<(f, j) -> (f, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%ev : tensor<37x3xf32>) {
  ^bb0(%out: f32):
    %fi = linalg.index 0 : index
    %ji = linalg.index 1 : index
    %ff = arith.muli %fi, %fi : index
    %sq = arith.remui %ff, %c37 : index
    %isf = arith.cmpi eq, %ji, %c1 : index
    %issq = arith.cmpi eq, %ji, %c2 : index
    %a = arith.select %isf, %fi, %c1 : index
    %b = arith.select %issq, %sq, %a : index
    %bi = arith.index_cast %b : index to i32
    %bf = arith.sitofp %bi : i32 to f32
    linalg.yield %bf : f32
  } -> tensor<37x3xf32>
  // The filter weighted (3x3x29x3); the result weighted; the input
  // convolved with the weighted filter.
  %ewv = tensor.empty() : tensor<3x3x29x3xf32>
  %fwv = linalg.fill ins(%zero : f32) outs(%ewv : tensor<3x3x29x3xf32>) -> tensor<3x3x29x3xf32>
  %wv = linalg.generic {indexing_maps = [#fv_w, #fv_v, #fv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%w, %v : tensor<3x3x29x37xf32>, tensor<37x3xf32>) outs(%fwv : tensor<3x3x29x3xf32>) {
  ^bb0(%in: f32, %vi: f32, %acc: f32):
    %p = arith.mulf %in, %vi : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x3x29x3xf32>
  %ep = tensor.empty() : tensor<2x337x337x3xf32>
  %fp = linalg.fill ins(%zero : f32) outs(%ep : tensor<2x337x337x3xf32>) -> tensor<2x337x337x3xf32>
  %proj = linalg.generic {indexing_maps = [#pv_in, #pv_v, #pv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%conv, %v : tensor<2x337x337x37xf32>, tensor<37x3xf32>) outs(%fp : tensor<2x337x337x3xf32>) {
  ^bb0(%in: f32, %vi: f32, %acc: f32):
    %p = arith.mulf %in, %vi : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x337x337x3xf32>
  %rproj = linalg.generic {indexing_maps = [#conv_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %wv : tensor<2x339x339x29xf32>, tensor<3x3x29x3xf32>) outs(%fp : tensor<2x337x337x3xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x337x337x3xf32>
  check.expect_eq(%proj, %rproj) : tensor<2x337x337x3xf32>

  // Image 1's last 3 rows element by element.
  %xs = tensor.extract_slice %x[1, 334, 0, 0] [1, 5, 339, 29] [1, 1, 1, 1] : tensor<2x339x339x29xf32> to tensor<1x5x339x29xf32>
  %es = tensor.empty() : tensor<1x3x337x37xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x3x337x37xf32>) -> tensor<1x3x337x37xf32>
  %rs = linalg.generic {indexing_maps = [#conv_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%xs, %w : tensor<1x5x339x29xf32>, tensor<3x3x29x37xf32>) outs(%fs : tensor<1x3x337x37xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x3x337x37xf32>
  %cs = tensor.extract_slice %conv[1, 334, 0, 0] [1, 3, 337, 37] [1, 1, 1, 1] : tensor<2x337x337x37xf32> to tensor<1x3x337x37xf32>
  check.expect_eq(%cs, %rs) : tensor<1x3x337x37xf32>
  return
}

func.func @large_filter() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c9 = arith.constant 9 : index
  %c11 = arith.constant 11 : index
  %c337 = arith.constant 337 : index
  %c353 = arith.constant 353 : index
  %zero = arith.constant 0.0 : f32
  %x0 = func.call @pattern(%c2, %c3, %c1, %c5, %c2, %c11, %c9, %c337) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %w0 = func.call @pattern(%c3, %c5, %c2, %c1, %c3, %c3, %c337, %c353) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %x1 = tensor.cast %x0 : tensor<?x?x?x?xf32> to tensor<2x11x9x337xf32>
  %w1 = tensor.cast %w0 : tensor<?x?x?x?xf32> to tensor<3x3x337x353xf32>
  %x = util.optimization_barrier %x1 : tensor<2x11x9x337xf32>
  %w = util.optimization_barrier %w1 : tensor<3x3x337x353xf32>
  %e = tensor.empty() : tensor<2x9x7x353xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x9x7x353xf32>) -> tensor<2x9x7x353xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x11x9x337xf32>, tensor<3x3x337x353xf32>) outs(%f : tensor<2x9x7x353xf32>) -> tensor<2x9x7x353xf32>
  %rconv = linalg.generic {indexing_maps = [#conv_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<2x11x9x337xf32>, tensor<3x3x337x353xf32>) outs(%f : tensor<2x9x7x353xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x9x7x353xf32>
  check.expect_eq(%conv, %rconv) : tensor<2x9x7x353xf32>
  return
}

func.func @grid3() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c11 = arith.constant 11 : index
  %c17 = arith.constant 17 : index
  %c19 = arith.constant 19 : index
  %c26 = arith.constant 26 : index
  %c61 = arith.constant 61 : index
  %c97 = arith.constant 97 : index
  %c257 = arith.constant 257 : index
  %c263 = arith.constant 263 : index
  %zero = arith.constant 0.0 : f32
  %x3_0 = func.call @pattern(%c2, %c3, %c1, %c5, %c3, %c26, %c11, %c97) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %w3_0 = func.call @pattern(%c3, %c5, %c2, %c1, %c3, %c3, %c97, %c263) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %x3_1 = tensor.cast %x3_0 : tensor<?x?x?x?xf32> to tensor<3x26x11x97xf32>
  %w3_1 = tensor.cast %w3_0 : tensor<?x?x?x?xf32> to tensor<3x3x97x263xf32>
  %x3 = util.optimization_barrier %x3_1 : tensor<3x26x11x97xf32>
  %w3 = util.optimization_barrier %w3_1 : tensor<3x3x97x263xf32>
  %e3 = tensor.empty() : tensor<3x24x9x263xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<3x24x9x263xf32>) -> tensor<3x24x9x263xf32>
  %conv3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x3, %w3 : tensor<3x26x11x97xf32>, tensor<3x3x97x263xf32>) outs(%f3 : tensor<3x24x9x263xf32>) -> tensor<3x24x9x263xf32>
  %rconv3 = linalg.generic {indexing_maps = [#conv_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x3, %w3 : tensor<3x26x11x97xf32>, tensor<3x3x97x263xf32>) outs(%f3 : tensor<3x24x9x263xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x24x9x263xf32>
  check.expect_eq(%conv3, %rconv3) : tensor<3x24x9x263xf32>
  %x2_0 = func.call @pattern(%c3, %c1, %c2, %c5, %c2, %c19, %c17, %c61) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %w2_0 = func.call @pattern(%c1, %c2, %c5, %c3, %c3, %c3, %c61, %c257) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %x2_1 = tensor.cast %x2_0 : tensor<?x?x?x?xf32> to tensor<2x19x17x61xf32>
  %w2_1 = tensor.cast %w2_0 : tensor<?x?x?x?xf32> to tensor<3x3x61x257xf32>
  %x2 = util.optimization_barrier %x2_1 : tensor<2x19x17x61xf32>
  %w2 = util.optimization_barrier %w2_1 : tensor<3x3x61x257xf32>
  %e2 = tensor.empty() : tensor<2x17x15x257xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x17x15x257xf32>) -> tensor<2x17x15x257xf32>
  %conv2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x2, %w2 : tensor<2x19x17x61xf32>, tensor<3x3x61x257xf32>) outs(%f2 : tensor<2x17x15x257xf32>) -> tensor<2x17x15x257xf32>
  %rconv2 = linalg.generic {indexing_maps = [#conv_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x2, %w2 : tensor<2x19x17x61xf32>, tensor<3x3x61x257xf32>) outs(%f2 : tensor<2x17x15x257xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x17x15x257xf32>
  check.expect_eq(%conv2, %rconv2) : tensor<2x17x15x257xf32>
  return
}
