// A convolution read only by a max pool (squeezenet1_1's and resnet18's
// stems) whose result is 1 MiB or more: with a convolution microkernel it
// is computed in the pool's dispatch (--fuse-into-pool), each band of the
// pool's output rows computing the convolution rows its windows read (the
// rows two bands share computed by both) into a temporary the pool reads.
// Against the same written with linalg.generic convolutions and pools
// (loops, two dispatches), exactly: every value is a small integer, every
// sum exact in f32. Edge sizes: 97 output channels (three microkernel
// panels and one column), a stride-2 convolution with bias and ReLU pooled
// into 25 rows (bands of 5), and a stride-1 convolution of 2 images with no
// epilogue pooled into 29 rows (a prime: an image per band), and a
// 5x5 stride-2 convolution of 3 images with a bias and 67 channels under
// an asymmetric -inf padding (resnet18's stem's form: the pool's
// microkernel reads the band's rows in place and skips the padding),
// pooled into 24 rows (bands of 4, the first and last padded), and the
// same with 131 filters and a batch known only at run time. Host, AVX2
// and baseline x86-64 kernels, both devices.
// @edges: that batch known only at run time at 5 images and at 1 (the
// same dispatch, called from @dynamic_pool; against @reference_pool's
// loops); +inf, -inf and NaN in a pool's windows, from the input and from
// a bias (IEEE maximum: NaN propagates; AVX-512's pool microkernel finds
// a NaN by a sum of the taps and runs the call again); and 7 output
// channels, fewer than a vector of AVX2 and AVX-512 (the convolution on
// its microkernel, one partial panel; the pool in the same dispatch, on
// loops there and on its microkernel, a vector and 3 channels more, on
// SSE2).
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-compile %s --target-cpu=x86-64-v3 -o %t.avx2.vmfb
// RUN: strata-compile %s --target-cpu=x86-64 -o %t.base.vmfb
// RUN: strata-compile %s --compile-to=flow | FileCheck %s
// CHECK-DAG: func.func @checked_dispatch_{{[0-9]+}}_conv_3x3_s2_5x97_51x61_bias_relu_maxpool_f32
// CHECK-DAG: func.func @checked_dispatch_{{[0-9]+}}_conv_3x3_5x37_59x61_n2_maxpool_f32
// CHECK-DAG: func.func @checked_dispatch_{{[0-9]+}}_conv_5x5_s2_3x67_47x43_n3_bias_maxpool_f32
// CHECK-DAG: func.func @checked_dispatch_{{[0-9]+}}_conv_5x5_s2_3x131_47x43_nD_bias_maxpool_f32
// @dynamic_pool (its arguments) dispatches that same function:
// CHECK-DAG: flow.dispatch @module_linked_llvm_cpu::@checked_dispatch_{{[0-9]+}}_conv_5x5_s2_3x131_47x43_nD_bias_maxpool_f32(%arg0, %arg1,
// CHECK-DAG: func.func @edges_dispatch_{{[0-9]+}}_conv_3x3_7x19_83x89_n2_bias_maxpool_f32
// CHECK-DAG: func.func @edges_dispatch_{{[0-9]+}}_conv_3x3_3x7_199x193_bias_relu_maxpool_f32
// RUN: strata-run --module=%t.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=checked
// RUN: strata-run --module=%t.avx2.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.avx2.vmfb --device=local-sync --function=checked
// RUN: strata-run --module=%t.base.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.base.vmfb --device=local-sync --function=checked
// RUN: strata-run --module=%t.vmfb --device=local-task --function=edges
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=edges
// RUN: strata-run --module=%t.avx2.vmfb --device=local-task --function=edges
// RUN: strata-run --module=%t.avx2.vmfb --device=local-sync --function=edges
// RUN: strata-run --module=%t.base.vmfb --device=local-task --function=edges
// RUN: strata-run --module=%t.base.vmfb --device=local-sync --function=edges
// REQUIRES: llvm-cpu

#id4 = affine_map<(a, b, c, d) -> (a, b, c, d)>
#bias = affine_map<(a, b, c, d) -> (d)>
#conv_in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, c)>
#conv1_in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#conv_w = affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>
#conv_out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
#pool_in = affine_map<(n, oh, ow, c, kh, kw) -> (n, oh * 2 + kh, ow * 2 + kw, c)>
#pool_w = affine_map<(n, oh, ow, c, kh, kw) -> (kh, kw)>
#pool_out = affine_map<(n, oh, ow, c, kh, kw) -> (n, oh, ow, c)>

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

func.func @checked() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c37 = arith.constant 37 : index
  %c61 = arith.constant 61 : index
  %c63 = arith.constant 63 : index
  %c67 = arith.constant 67 : index
  %c89 = arith.constant 89 : index
  %c97 = arith.constant 97 : index
  %c103 = arith.constant 103 : index
  %c123 = arith.constant 123 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %window = tensor.empty() : tensor<3x3xf32>

  // Stride 2, bias and ReLU: 1x103x123x5 -> 1x51x61x97 -> pooled 1x25x30x97.
  %x0 = func.call @pattern(%c1, %c3, %c5, %c2, %c1, %c103, %c123, %c5) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %w0 = func.call @pattern(%c2, %c1, %c3, %c5, %c3, %c3, %c5, %c97) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %x1 = tensor.cast %x0 : tensor<?x?x?x?xf32> to tensor<1x103x123x5xf32>
  %w1 = tensor.cast %w0 : tensor<?x?x?x?xf32> to tensor<3x3x5x97xf32>
  %x = util.optimization_barrier %x1 : tensor<1x103x123x5xf32>
  %w = util.optimization_barrier %w1 : tensor<3x3x5x97xf32>
  %b = arith.constant dense<[1.0, -2.0, 3.0, -4.0, 5.0, -6.0, 7.0, -8.0, 9.0, -10.0, 11.0, -12.0, 13.0, -14.0, 15.0, -16.0, 17.0, -18.0, 19.0, -20.0, 21.0, -22.0, 23.0, -24.0, 25.0, -26.0, 27.0, -28.0, 29.0, -30.0, 31.0, -32.0, 33.0, -34.0, 35.0, -36.0, 37.0, -38.0, 39.0, -40.0, 41.0, -42.0, 43.0, -44.0, 45.0, -46.0, 47.0, -48.0, 49.0, -50.0, 51.0, -52.0, 53.0, -54.0, 55.0, -56.0, 57.0, -58.0, 59.0, -60.0, 61.0, -62.0, 63.0, -64.0, 65.0, -66.0, 67.0, -68.0, 69.0, -70.0, 71.0, -72.0, 73.0, -74.0, 75.0, -76.0, 77.0, -78.0, 79.0, -80.0, 81.0, -82.0, 83.0, -84.0, 85.0, -86.0, 87.0, -88.0, 89.0, -90.0, 91.0, -92.0, 93.0, -94.0, 95.0, -96.0, 97.0]> : tensor<97xf32>
  %ec = tensor.empty() : tensor<1x51x61x97xf32>
  %fc = linalg.fill ins(%zero : f32) outs(%ec : tensor<1x51x61x97xf32>) -> tensor<1x51x61x97xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x103x123x5xf32>, tensor<3x3x5x97xf32>) outs(%fc : tensor<1x51x61x97xf32>) -> tensor<1x51x61x97xf32>
  %act = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %b : tensor<1x51x61x97xf32>, tensor<97xf32>) outs(%ec : tensor<1x51x61x97xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x51x61x97xf32>
  %ep = tensor.empty() : tensor<1x25x30x97xf32>
  %fp = linalg.fill ins(%ninf : f32) outs(%ep : tensor<1x25x30x97xf32>) -> tensor<1x25x30x97xf32>
  %pool = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%act, %window : tensor<1x51x61x97xf32>, tensor<3x3xf32>) outs(%fp : tensor<1x25x30x97xf32>) -> tensor<1x25x30x97xf32>

  %rconv = linalg.generic {indexing_maps = [#conv_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x103x123x5xf32>, tensor<3x3x5x97xf32>) outs(%fc : tensor<1x51x61x97xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x51x61x97xf32>
  %ract = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rconv, %b : tensor<1x51x61x97xf32>, tensor<97xf32>) outs(%ec : tensor<1x51x61x97xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x51x61x97xf32>
  %rpool = linalg.generic {indexing_maps = [#pool_in, #pool_w, #pool_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%ract, %window : tensor<1x51x61x97xf32>, tensor<3x3xf32>) outs(%fp : tensor<1x25x30x97xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<1x25x30x97xf32>
  check.expect_eq(%pool, %rpool) : tensor<1x25x30x97xf32>

  // Stride 1, no epilogue, 2 images: 2x61x63x5 -> 2x59x61x37 -> pooled 2x29x30x37.
  %y0 = func.call @pattern(%c3, %c2, %c1, %c5, %c2, %c61, %c63, %c5) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v0 = func.call @pattern(%c1, %c5, %c2, %c3, %c3, %c3, %c5, %c37) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %y1 = tensor.cast %y0 : tensor<?x?x?x?xf32> to tensor<2x61x63x5xf32>
  %v1 = tensor.cast %v0 : tensor<?x?x?x?xf32> to tensor<3x3x5x37xf32>
  %y = util.optimization_barrier %y1 : tensor<2x61x63x5xf32>
  %v = util.optimization_barrier %v1 : tensor<3x3x5x37xf32>
  %ed = tensor.empty() : tensor<2x59x61x37xf32>
  %fd = linalg.fill ins(%zero : f32) outs(%ed : tensor<2x59x61x37xf32>) -> tensor<2x59x61x37xf32>
  %conv2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%y, %v : tensor<2x61x63x5xf32>, tensor<3x3x5x37xf32>) outs(%fd : tensor<2x59x61x37xf32>) -> tensor<2x59x61x37xf32>
  %eq = tensor.empty() : tensor<2x29x30x37xf32>
  %fq = linalg.fill ins(%ninf : f32) outs(%eq : tensor<2x29x30x37xf32>) -> tensor<2x29x30x37xf32>
  %pool2 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%conv2, %window : tensor<2x59x61x37xf32>, tensor<3x3xf32>) outs(%fq : tensor<2x29x30x37xf32>) -> tensor<2x29x30x37xf32>

  %rconv2 = linalg.generic {indexing_maps = [#conv1_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%y, %v : tensor<2x61x63x5xf32>, tensor<3x3x5x37xf32>) outs(%fd : tensor<2x59x61x37xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x59x61x37xf32>
  %rpool2 = linalg.generic {indexing_maps = [#pool_in, #pool_w, #pool_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%rconv2, %window : tensor<2x59x61x37xf32>, tensor<3x3xf32>) outs(%fq : tensor<2x29x30x37xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<2x29x30x37xf32>
  check.expect_eq(%pool2, %rpool2) : tensor<2x29x30x37xf32>

  // A padded pool (resnet18's stem: -inf padding, which the pool's
  // microkernel skips in place), asymmetric, over a 5x5 stride-2
  // convolution of 3 images with a bias and no activation (negative values
  // meet the padding): 3x97x89x3 -> 3x47x43x67, padded to 3x50x46x67 ->
  // pooled 3x24x22x67.
  %z0 = func.call @pattern(%c2, %c3, %c1, %c5, %c3, %c97, %c89, %c3) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %u0 = func.call @pattern(%c3, %c1, %c2, %c1, %c5, %c5, %c3, %c67) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %z1 = tensor.cast %z0 : tensor<?x?x?x?xf32> to tensor<3x97x89x3xf32>
  %u1 = tensor.cast %u0 : tensor<?x?x?x?xf32> to tensor<5x5x3x67xf32>
  %z = util.optimization_barrier %z1 : tensor<3x97x89x3xf32>
  %u = util.optimization_barrier %u1 : tensor<5x5x3x67xf32>
  %b3 = arith.constant dense<[-6.0, -5.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -6.0, -5.0, -4.0, -3.0]> : tensor<67xf32>
  %e3 = tensor.empty() : tensor<3x47x43x67xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<3x47x43x67xf32>) -> tensor<3x47x43x67xf32>
  %conv3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%z, %u : tensor<3x97x89x3xf32>, tensor<5x5x3x67xf32>) outs(%f3 : tensor<3x47x43x67xf32>) -> tensor<3x47x43x67xf32>
  %biased3 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv3, %b3 : tensor<3x47x43x67xf32>, tensor<67xf32>) outs(%e3 : tensor<3x47x43x67xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<3x47x43x67xf32>
  %padded3 = tensor.pad %biased3 low[0, 1, 2, 0] high[0, 2, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<3x47x43x67xf32> to tensor<3x50x46x67xf32>
  %ep3 = tensor.empty() : tensor<3x24x22x67xf32>
  %fp3 = linalg.fill ins(%ninf : f32) outs(%ep3 : tensor<3x24x22x67xf32>) -> tensor<3x24x22x67xf32>
  %pool3 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded3, %window : tensor<3x50x46x67xf32>, tensor<3x3xf32>) outs(%fp3 : tensor<3x24x22x67xf32>) -> tensor<3x24x22x67xf32>

  %rconv3 = linalg.generic {indexing_maps = [#conv_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%z, %u : tensor<3x97x89x3xf32>, tensor<5x5x3x67xf32>) outs(%f3 : tensor<3x47x43x67xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x47x43x67xf32>
  %rbiased3 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rconv3, %b3 : tensor<3x47x43x67xf32>, tensor<67xf32>) outs(%e3 : tensor<3x47x43x67xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<3x47x43x67xf32>
  %rpadded3 = tensor.pad %rbiased3 low[0, 1, 2, 0] high[0, 2, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<3x47x43x67xf32> to tensor<3x50x46x67xf32>
  %rpool3 = linalg.generic {indexing_maps = [#pool_in, #pool_w, #pool_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%rpadded3, %window : tensor<3x50x46x67xf32>, tensor<3x3xf32>) outs(%fp3 : tensor<3x24x22x67xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<3x24x22x67xf32>
  check.expect_eq(%pool3, %rpool3) : tensor<3x24x22x67xf32>

  // A batch known only at run time (a module compiled once for any
  // batch), 131 filters (an image's result is 1 MiB): an image per band's
  // workgroup, bands as for one image. 3x97x89x3 -> 3x47x43x131 -> pooled
  // 3x24x22x131.
  %c131 = arith.constant 131 : index
  %u5 = func.call @pattern(%c1, %c2, %c3, %c1, %c5, %c5, %c3, %c131) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %u6 = tensor.cast %u5 : tensor<?x?x?x?xf32> to tensor<5x5x3x131xf32>
  %u4 = util.optimization_barrier %u6 : tensor<5x5x3x131xf32>
  %b4 = arith.constant dense<[-4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0]> : tensor<131xf32>
  %zd1 = tensor.cast %z0 : tensor<?x?x?x?xf32> to tensor<?x97x89x3xf32>
  %zd = util.optimization_barrier %zd1 : tensor<?x97x89x3xf32>
  %c0 = arith.constant 0 : index
  %n4 = tensor.dim %zd, %c0 : tensor<?x97x89x3xf32>
  %e4 = tensor.empty(%n4) : tensor<?x47x43x131xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<?x47x43x131xf32>) -> tensor<?x47x43x131xf32>
  %conv4 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%zd, %u4 : tensor<?x97x89x3xf32>, tensor<5x5x3x131xf32>) outs(%f4 : tensor<?x47x43x131xf32>) -> tensor<?x47x43x131xf32>
  %biased4 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv4, %b4 : tensor<?x47x43x131xf32>, tensor<131xf32>) outs(%e4 : tensor<?x47x43x131xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<?x47x43x131xf32>
  %padded4 = tensor.pad %biased4 low[0, 1, 2, 0] high[0, 2, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<?x47x43x131xf32> to tensor<?x50x46x131xf32>
  %ep4 = tensor.empty(%n4) : tensor<?x24x22x131xf32>
  %fp4 = linalg.fill ins(%ninf : f32) outs(%ep4 : tensor<?x24x22x131xf32>) -> tensor<?x24x22x131xf32>
  %pool4 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded4, %window : tensor<?x50x46x131xf32>, tensor<3x3xf32>) outs(%fp4 : tensor<?x24x22x131xf32>) -> tensor<?x24x22x131xf32>
  %pool4b = util.optimization_barrier %pool4 : tensor<?x24x22x131xf32>
  %pool4s = tensor.cast %pool4b : tensor<?x24x22x131xf32> to tensor<3x24x22x131xf32>

  %e5 = tensor.empty() : tensor<3x47x43x131xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<3x47x43x131xf32>) -> tensor<3x47x43x131xf32>
  %rconv4 = linalg.generic {indexing_maps = [#conv_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%z, %u4 : tensor<3x97x89x3xf32>, tensor<5x5x3x131xf32>) outs(%f5 : tensor<3x47x43x131xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x47x43x131xf32>
  %rbiased4 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rconv4, %b4 : tensor<3x47x43x131xf32>, tensor<131xf32>) outs(%e5 : tensor<3x47x43x131xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<3x47x43x131xf32>
  %rpadded4 = tensor.pad %rbiased4 low[0, 1, 2, 0] high[0, 2, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<3x47x43x131xf32> to tensor<3x50x46x131xf32>
  %ep5 = tensor.empty() : tensor<3x24x22x131xf32>
  %fp5 = linalg.fill ins(%ninf : f32) outs(%ep5 : tensor<3x24x22x131xf32>) -> tensor<3x24x22x131xf32>
  %rpool4 = linalg.generic {indexing_maps = [#pool_in, #pool_w, #pool_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%rpadded4, %window : tensor<3x50x46x131xf32>, tensor<3x3xf32>) outs(%fp5 : tensor<3x24x22x131xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<3x24x22x131xf32>
  check.expect_eq(%pool4s, %rpool4) : tensor<3x24x22x131xf32>
  return
}

// The dynamic-batch chain of @checked's last case in a function of its own:
// the same dispatch, which @edges runs at batches 5 and 1.
func.func private @dynamic_pool(%x: tensor<?x97x89x3xf32>, %u: tensor<5x5x3x131xf32>) -> tensor<?x24x22x131xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %window = tensor.empty() : tensor<3x3xf32>
  %b = arith.constant dense<[-4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0]> : tensor<131xf32>
  %n = tensor.dim %x, %c0 : tensor<?x97x89x3xf32>
  %e = tensor.empty(%n) : tensor<?x47x43x131xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x47x43x131xf32>) -> tensor<?x47x43x131xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %u : tensor<?x97x89x3xf32>, tensor<5x5x3x131xf32>) outs(%f : tensor<?x47x43x131xf32>) -> tensor<?x47x43x131xf32>
  %biased = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %b : tensor<?x47x43x131xf32>, tensor<131xf32>) outs(%e : tensor<?x47x43x131xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<?x47x43x131xf32>
  %padded = tensor.pad %biased low[0, 1, 2, 0] high[0, 2, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<?x47x43x131xf32> to tensor<?x50x46x131xf32>
  %ep = tensor.empty(%n) : tensor<?x24x22x131xf32>
  %fp = linalg.fill ins(%ninf : f32) outs(%ep : tensor<?x24x22x131xf32>) -> tensor<?x24x22x131xf32>
  %pool = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded, %window : tensor<?x50x46x131xf32>, tensor<3x3xf32>) outs(%fp : tensor<?x24x22x131xf32>) -> tensor<?x24x22x131xf32>
  return %pool : tensor<?x24x22x131xf32>
}

// @dynamic_pool on loops (linalg.generic), for any batch.
func.func private @reference_pool(%x: tensor<?x97x89x3xf32>, %u: tensor<5x5x3x131xf32>) -> tensor<?x24x22x131xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %window = tensor.empty() : tensor<3x3xf32>
  %b = arith.constant dense<[-4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, -4.0, -3.0, -2.0, -1.0, 0.0]> : tensor<131xf32>
  %n = tensor.dim %x, %c0 : tensor<?x97x89x3xf32>
  %e = tensor.empty(%n) : tensor<?x47x43x131xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x47x43x131xf32>) -> tensor<?x47x43x131xf32>
  %conv = linalg.generic {indexing_maps = [#conv_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %u : tensor<?x97x89x3xf32>, tensor<5x5x3x131xf32>) outs(%f : tensor<?x47x43x131xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x47x43x131xf32>
  %biased = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %b : tensor<?x47x43x131xf32>, tensor<131xf32>) outs(%e : tensor<?x47x43x131xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<?x47x43x131xf32>
  %padded = tensor.pad %biased low[0, 1, 2, 0] high[0, 2, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<?x47x43x131xf32> to tensor<?x50x46x131xf32>
  %ep = tensor.empty(%n) : tensor<?x24x22x131xf32>
  %fp = linalg.fill ins(%ninf : f32) outs(%ep : tensor<?x24x22x131xf32>) -> tensor<?x24x22x131xf32>
  %pool = linalg.generic {indexing_maps = [#pool_in, #pool_w, #pool_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%padded, %window : tensor<?x50x46x131xf32>, tensor<3x3xf32>) outs(%fp : tensor<?x24x22x131xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<?x24x22x131xf32>
  return %pool : tensor<?x24x22x131xf32>
}

func.func @edges() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c19 = arith.constant 19 : index
  %c85 = arith.constant 85 : index
  %c89 = arith.constant 89 : index
  %c91 = arith.constant 91 : index
  %c97 = arith.constant 97 : index
  %c131 = arith.constant 131 : index
  %c195 = arith.constant 195 : index
  %c201 = arith.constant 201 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %window = tensor.empty() : tensor<3x3xf32>

  // The dynamic batch at 5 images and at 1, each against the chain on
  // loops (@reference_pool): 5x97x89x3 -> 5x47x43x131 -> pooled
  // 5x24x22x131.
  %u50 = func.call @pattern(%c2, %c5, %c1, %c3, %c5, %c5, %c3, %c131) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %u51 = tensor.cast %u50 : tensor<?x?x?x?xf32> to tensor<5x5x3x131xf32>
  %u5 = util.optimization_barrier %u51 : tensor<5x5x3x131xf32>
  %x50 = func.call @pattern(%c3, %c2, %c5, %c1, %c5, %c97, %c89, %c3) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %x51 = tensor.cast %x50 : tensor<?x?x?x?xf32> to tensor<?x97x89x3xf32>
  %x5 = util.optimization_barrier %x51 : tensor<?x97x89x3xf32>
  %p5 = func.call @dynamic_pool(%x5, %u5) : (tensor<?x97x89x3xf32>, tensor<5x5x3x131xf32>) -> tensor<?x24x22x131xf32>
  %r5 = func.call @reference_pool(%x5, %u5) : (tensor<?x97x89x3xf32>, tensor<5x5x3x131xf32>) -> tensor<?x24x22x131xf32>
  check.expect_eq(%p5, %r5) : tensor<?x24x22x131xf32>
  %x10 = func.call @pattern(%c5, %c1, %c2, %c3, %c1, %c97, %c89, %c3) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %x11 = tensor.cast %x10 : tensor<?x?x?x?xf32> to tensor<?x97x89x3xf32>
  %x1 = util.optimization_barrier %x11 : tensor<?x97x89x3xf32>
  %p1 = func.call @dynamic_pool(%x1, %u5) : (tensor<?x97x89x3xf32>, tensor<5x5x3x131xf32>) -> tensor<?x24x22x131xf32>
  %r1 = func.call @reference_pool(%x1, %u5) : (tensor<?x97x89x3xf32>, tensor<5x5x3x131xf32>) -> tensor<?x24x22x131xf32>
  check.expect_eq(%p1, %r1) : tensor<?x24x22x131xf32>

  // IEEE values in the pool's windows: +inf, -inf and NaN in a few input
  // elements (image, row, column, channel): +inf at (0, 20, 30, 1),
  // (0, 84, 90, 4) (the last row and column) and (1, 40, 41, 3), -inf at
  // (0, 50, 60, 2), (1, 41, 43, 3) and (1, 0, 0, 4) (the first), NaN at
  // (1, 10, 10, 0): the convolution's windows that meet them hold +inf,
  // -inf, or NaN (a zero tap, or +inf and -inf together); and a bias of
  // -inf, NaN and +inf in channels 4, 11 and 17 (whole channels of them,
  // NaN where an infinity of the other sign meets them). The pool's
  // maximum propagates NaN (arith.maximumf; check.expect_eq takes NaN for
  // NaN). 2x85x91x7 -> 2x83x89x19 with a bias -> pooled 2x41x44x19 (bands
  // of one pooled row; 19 channels: whole vectors and 3 more on every
  // ISA).
  %y0 = func.call @pattern(%c2, %c3, %c1, %c5, %c2, %c85, %c91, %c7) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v0 = func.call @pattern(%c1, %c2, %c3, %c5, %c3, %c3, %c7, %c19) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %y1 = tensor.cast %y0 : tensor<?x?x?x?xf32> to tensor<2x85x91x7xf32>
  %v1 = tensor.cast %v0 : tensor<?x?x?x?xf32> to tensor<3x3x7x19xf32>
  %ey = tensor.empty() : tensor<2x85x91x7xf32>
  %y2 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y1 : tensor<2x85x91x7xf32>) outs(%ey : tensor<2x85x91x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %l = linalg.index 3 : index
    %i85 = arith.muli %i, %c85 : index
    %ij = arith.addi %i85, %j : index
    %ij91 = arith.muli %ij, %c91 : index
    %ijk = arith.addi %ij91, %k : index
    %ijk7 = arith.muli %ijk, %c7 : index
    %at = arith.addi %ijk7, %l : index
    %key0 = arith.constant 12951 : index
    %hit0 = arith.cmpi eq, %at, %key0 : index
    %sel0 = arith.select %hit0, %pinf, %in : f32
    %key1 = arith.constant 32272 : index
    %hit1 = arith.cmpi eq, %at, %key1 : index
    %sel1 = arith.select %hit1, %ninf, %sel0 : f32
    %key2 = arith.constant 54142 : index
    %hit2 = arith.cmpi eq, %at, %key2 : index
    %sel2 = arith.select %hit2, %pinf, %sel1 : f32
    %key3 = arith.constant 60585 : index
    %hit3 = arith.cmpi eq, %at, %key3 : index
    %sel3 = arith.select %hit3, %nan, %sel2 : f32
    %key4 = arith.constant 79915 : index
    %hit4 = arith.cmpi eq, %at, %key4 : index
    %sel4 = arith.select %hit4, %pinf, %sel3 : f32
    %key5 = arith.constant 80566 : index
    %hit5 = arith.cmpi eq, %at, %key5 : index
    %sel5 = arith.select %hit5, %ninf, %sel4 : f32
    %key6 = arith.constant 54149 : index
    %hit6 = arith.cmpi eq, %at, %key6 : index
    %sel6 = arith.select %hit6, %ninf, %sel5 : f32
    linalg.yield %sel6 : f32
  } -> tensor<2x85x91x7xf32>
  %y = util.optimization_barrier %y2 : tensor<2x85x91x7xf32>
  %v = util.optimization_barrier %v1 : tensor<3x3x7x19xf32>
  %b6 = arith.constant dense<[-3.0, 0.0, 3.0, -1.0, 0xFF800000, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 0x7FC00000, -2.0, 1.0, -3.0, 0.0, 3.0, 0x7F800000, 2.0]> : tensor<19xf32>
  %e6 = tensor.empty() : tensor<2x83x89x19xf32>
  %f6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<2x83x89x19xf32>) -> tensor<2x83x89x19xf32>
  %conv6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%y, %v : tensor<2x85x91x7xf32>, tensor<3x3x7x19xf32>) outs(%f6 : tensor<2x83x89x19xf32>) -> tensor<2x83x89x19xf32>
  %biased6 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv6, %b6 : tensor<2x83x89x19xf32>, tensor<19xf32>) outs(%e6 : tensor<2x83x89x19xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<2x83x89x19xf32>
  %ep6 = tensor.empty() : tensor<2x41x44x19xf32>
  %fp6 = linalg.fill ins(%ninf : f32) outs(%ep6 : tensor<2x41x44x19xf32>) -> tensor<2x41x44x19xf32>
  %pool6 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%biased6, %window : tensor<2x83x89x19xf32>, tensor<3x3xf32>) outs(%fp6 : tensor<2x41x44x19xf32>) -> tensor<2x41x44x19xf32>

  %rconv6 = linalg.generic {indexing_maps = [#conv1_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%y, %v : tensor<2x85x91x7xf32>, tensor<3x3x7x19xf32>) outs(%f6 : tensor<2x83x89x19xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x83x89x19xf32>
  %rbiased6 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rconv6, %b6 : tensor<2x83x89x19xf32>, tensor<19xf32>) outs(%e6 : tensor<2x83x89x19xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<2x83x89x19xf32>
  %rpool6 = linalg.generic {indexing_maps = [#pool_in, #pool_w, #pool_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%rbiased6, %window : tensor<2x83x89x19xf32>, tensor<3x3xf32>) outs(%fp6 : tensor<2x41x44x19xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<2x41x44x19xf32>
  check.expect_eq(%pool6, %rpool6) : tensor<2x41x44x19xf32>

  // 7 channels, fewer than a vector but on SSE2 (a vector and 3 more),
  // with a bias and ReLU under a -inf padding: 1x201x195x3 -> 1x199x193x7
  // (1.08 MB, enough to be fused) -> padded to 1x201x195x7 -> pooled
  // 1x100x97x7.
  %s0 = func.call @pattern(%c1, %c2, %c3, %c5, %c1, %c201, %c195, %c3) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %t0 = func.call @pattern(%c3, %c1, %c5, %c2, %c3, %c3, %c3, %c7) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %s1 = tensor.cast %s0 : tensor<?x?x?x?xf32> to tensor<1x201x195x3xf32>
  %t1 = tensor.cast %t0 : tensor<?x?x?x?xf32> to tensor<3x3x3x7xf32>
  %s = util.optimization_barrier %s1 : tensor<1x201x195x3xf32>
  %t = util.optimization_barrier %t1 : tensor<3x3x3x7xf32>
  %b7 = arith.constant dense<[-3.0, 2.0, -1.0, 0.0, 1.0, -2.0, 3.0]> : tensor<7xf32>
  %e7 = tensor.empty() : tensor<1x199x193x7xf32>
  %f7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<1x199x193x7xf32>) -> tensor<1x199x193x7xf32>
  %conv7 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%s, %t : tensor<1x201x195x3xf32>, tensor<3x3x3x7xf32>) outs(%f7 : tensor<1x199x193x7xf32>) -> tensor<1x199x193x7xf32>
  %act7 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv7, %b7 : tensor<1x199x193x7xf32>, tensor<7xf32>) outs(%e7 : tensor<1x199x193x7xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %a = arith.addf %in, %bi : f32
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x199x193x7xf32>
  %padded7 = tensor.pad %act7 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<1x199x193x7xf32> to tensor<1x201x195x7xf32>
  %ep7 = tensor.empty() : tensor<1x100x97x7xf32>
  %fp7 = linalg.fill ins(%ninf : f32) outs(%ep7 : tensor<1x100x97x7xf32>) -> tensor<1x100x97x7xf32>
  %pool7 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded7, %window : tensor<1x201x195x7xf32>, tensor<3x3xf32>) outs(%fp7 : tensor<1x100x97x7xf32>) -> tensor<1x100x97x7xf32>

  %rconv7 = linalg.generic {indexing_maps = [#conv1_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%s, %t : tensor<1x201x195x3xf32>, tensor<3x3x3x7xf32>) outs(%f7 : tensor<1x199x193x7xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %sum = arith.addf %acc, %p : f32
    linalg.yield %sum : f32
  } -> tensor<1x199x193x7xf32>
  %ract7 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rconv7, %b7 : tensor<1x199x193x7xf32>, tensor<7xf32>) outs(%e7 : tensor<1x199x193x7xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %a = arith.addf %in, %bi : f32
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x199x193x7xf32>
  %rpadded7 = tensor.pad %ract7 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<1x199x193x7xf32> to tensor<1x201x195x7xf32>
  %rpool7 = linalg.generic {indexing_maps = [#pool_in, #pool_w, #pool_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%rpadded7, %window : tensor<1x201x195x7xf32>, tensor<3x3xf32>) outs(%fp7 : tensor<1x100x97x7xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<1x100x97x7xf32>
  check.expect_eq(%pool7, %rpool7) : tensor<1x100x97x7xf32>
  return
}
