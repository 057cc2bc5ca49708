// A convolution read only by a depthwise convolution (mobilenet_v2's
// expansion before each depthwise convolution) whose result is 1 MiB or
// more: with a convolution microkernel it is computed in the depthwise
// convolution's dispatch (--fuse-into-depthwise), each band of depthwise
// rows computing the convolution rows its windows read (the rows two bands
// share computed by both, fewer at the image's edges) and the window
// microkernel reading them in place with its own zero padding. Against the
// same written with linalg.generic (loops, zero padding by an
// insert_slice), exactly: every value is a small integer, every sum exact
// in f32. Edge sizes: a whole inverted residual block (1x1 expansion of 7
// to 37 channels with bias and ReLU6, depthwise with bias and ReLU6, 1x1
// projection to 23 with bias and a residual) over 2 images of 61 x 59 (a
// prime height: an image per band); and a padded 3x3 stride-2 convolution
// of 5 to 97 channels with bias, padded again for a depthwise convolution
// with no epilogue and no projection (54 rows: bands of 9, the first and
// last clamped). Host, AVX2 and baseline x86-64 kernels, both devices.
// @stride2: mobilenet_v2's downsampling block (1x1 expansion of 19 to 67
// channels with bias and ReLU6, depthwise 3x3 stride 2 pad 1 with bias and
// ReLU6, 1x1 projection to 31 with bias, no residual), checked the same
// way. With a depthwise result of 1 MiB or more the three are one dispatch,
// as mobilenet_v2's first stride-2 block (112x112x96 -> 56x56) is: over
// 1x131x127 (22 bands of 3 of its 66 depthwise rows, each computing 7
// expansion rows; an odd image: every high padding row and column read)
// and 3x77x84 (13 bands an image; an even width: the high padding column
// unread). Under 1 MiB the projection is a dispatch of its own, the
// expansion still in the depthwise convolution's (as mobilenet_v2's
// 56x56x144 -> 28x28 block at batch 1): 2x47x44, whose depthwise result
// is 283 KB.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-compile %s --target-cpu=x86-64-v3 -o %t.avx2.vmfb
// RUN: strata-compile %s --target-cpu=x86-64 -o %t.base.vmfb
// RUN: strata-compile %s --compile-to=flow | FileCheck %s
// CHECK-DAG: func.func @checked_dispatch_{{[0-9]+}}_conv_1x1_7x37_61x59_n2_bias_clip_dwconv_3x3_37_61x59_n2_bias_clip_conv_1x1_37x23_61x59_n2_bias_add_f32
// CHECK-DAG: func.func @checked_dispatch_{{[0-9]+}}_conv_3x3_s2_5x97_54x57_bias_dwconv_3x3_97_54x57_f32
// RUN: strata-run --module=%t.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=checked
// RUN: strata-run --module=%t.avx2.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.avx2.vmfb --device=local-sync --function=checked
// RUN: strata-run --module=%t.base.vmfb --device=local-task --function=checked
// RUN: strata-run --module=%t.base.vmfb --device=local-sync --function=checked
// CHECK-DAG: func.func @stride2_dispatch_{{[0-9]+}}_conv_1x1_19x67_131x127_bias_clip_dwconv_3x3_s2_67_66x64_bias_clip_conv_1x1_67x31_66x64_bias_f32
// CHECK-DAG: func.func @stride2_dispatch_{{[0-9]+}}_conv_1x1_19x67_77x84_n3_bias_clip_dwconv_3x3_s2_67_39x42_n3_bias_clip_conv_1x1_67x31_39x42_n3_bias_f32
// CHECK-DAG: func.func @stride2_dispatch_{{[0-9]+}}_conv_1x1_19x67_47x44_n2_bias_clip_dwconv_3x3_s2_67_24x22_n2_bias_clip_f32
// CHECK-DAG: func.func @stride2_dispatch_{{[0-9]+}}_conv_1x1_67x31_24x22_n2_bias_f32
// RUN: strata-run --module=%t.vmfb --device=local-task --function=stride2
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=stride2
// RUN: strata-run --module=%t.avx2.vmfb --device=local-task --function=stride2
// RUN: strata-run --module=%t.avx2.vmfb --device=local-sync --function=stride2
// RUN: strata-run --module=%t.base.vmfb --device=local-task --function=stride2
// RUN: strata-run --module=%t.base.vmfb --device=local-sync --function=stride2
// REQUIRES: llvm-cpu

#id4 = affine_map<(a, b, c, d) -> (a, b, c, d)>
#bias = affine_map<(a, b, c, d) -> (d)>
#conv2_in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, c)>
#conv_w = affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>
#conv_out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
#dw_in = affine_map<(n, oh, ow, c, kh, kw) -> (n, oh + kh, ow + kw, c)>
#dw2_in = affine_map<(n, oh, ow, c, kh, kw) -> (n, oh * 2 + kh, ow * 2 + kw, c)>
#dw_w = affine_map<(n, oh, ow, c, kh, kw) -> (kh, kw, c)>
#dw_out = affine_map<(n, oh, ow, c, kh, kw) -> (n, oh, ow, c)>
#pw_in = affine_map<(n, oh, ow, f, c) -> (n, oh, ow, c)>
#pw_w = affine_map<(n, oh, ow, f, c) -> (0, 0, c, f)>
#pw_out = affine_map<(n, oh, ow, f, c) -> (n, oh, ow, f)>

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
  %c7 = arith.constant 7 : index
  %c23 = arith.constant 23 : index
  %c37 = arith.constant 37 : index
  %c59 = arith.constant 59 : index
  %c61 = arith.constant 61 : index
  %c97 = arith.constant 97 : index
  %c107 = arith.constant 107 : index
  %c113 = arith.constant 113 : index
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32

  // An inverted residual block: 2x61x59x7 -> expansion to 37 channels,
  // padded depthwise, projection to 23 channels with a residual.
  %x0 = func.call @pattern(%c1, %c3, %c5, %c2, %c2, %c61, %c59, %c7) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %we0 = func.call @pattern(%c2, %c3, %c1, %c5, %c1, %c1, %c7, %c37) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %w0 = func.call @pattern(%c2, %c1, %c3, %c5, %c1, %c3, %c3, %c37) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v0 = func.call @pattern(%c3, %c2, %c1, %c5, %c1, %c1, %c37, %c23) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %s0 = func.call @pattern(%c5, %c1, %c2, %c3, %c2, %c61, %c59, %c23) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %x1 = tensor.cast %x0 : tensor<?x?x?x?xf32> to tensor<2x61x59x7xf32>
  %we1 = tensor.cast %we0 : tensor<?x?x?x?xf32> to tensor<1x1x7x37xf32>
  %w1 = tensor.cast %w0 : tensor<?x?x?x?xf32> to tensor<1x3x3x37xf32>
  %v1 = tensor.cast %v0 : tensor<?x?x?x?xf32> to tensor<1x1x37x23xf32>
  %s1 = tensor.cast %s0 : tensor<?x?x?x?xf32> to tensor<2x61x59x23xf32>
  %x = util.optimization_barrier %x1 : tensor<2x61x59x7xf32>
  %we = util.optimization_barrier %we1 : tensor<1x1x7x37xf32>
  %w4 = util.optimization_barrier %w1 : tensor<1x3x3x37xf32>
  %v = util.optimization_barrier %v1 : tensor<1x1x37x23xf32>
  %skip = util.optimization_barrier %s1 : tensor<2x61x59x23xf32>
  %w = tensor.collapse_shape %w4 [[0, 1], [2], [3]] : tensor<1x3x3x37xf32> into tensor<3x3x37xf32>
  %be = arith.constant dense<[0.0, -1.0, 2.0, -3.0, 4.0, 0.0, 1.0, -2.0, 3.0, -4.0, 0.0, -1.0, 2.0, -3.0, 4.0, 0.0, 1.0, -2.0, 3.0, -4.0, 0.0, -1.0, 2.0, -3.0, 4.0, 0.0, 1.0, -2.0, 3.0, -4.0, 0.0, -1.0, 2.0, -3.0, 4.0, 0.0, 1.0]> : tensor<37xf32>
  %b = arith.constant dense<[-3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0]> : tensor<37xf32>
  %pb = arith.constant dense<[0.0, 1.0, -2.0, 3.0, 0.0, 1.0, -2.0, 3.0, 0.0, 1.0, -2.0, 3.0, 0.0, 1.0, -2.0, 3.0, 0.0, 1.0, -2.0, 3.0, 0.0, 1.0, -2.0]> : tensor<23xf32>

  %ee = tensor.empty() : tensor<2x61x59x37xf32>
  %fe = linalg.fill ins(%zero : f32) outs(%ee : tensor<2x61x59x37xf32>) -> tensor<2x61x59x37xf32>
  %ex = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %we : tensor<2x61x59x7xf32>, tensor<1x1x7x37xf32>) outs(%fe : tensor<2x61x59x37xf32>) -> tensor<2x61x59x37xf32>
  %exa = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex, %be : tensor<2x61x59x37xf32>, tensor<37xf32>) outs(%ee : tensor<2x61x59x37xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<2x61x59x37xf32>
  %padded = tensor.pad %exa low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x61x59x37xf32> to tensor<2x63x61x37xf32>
  %dw = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : tensor<2x63x61x37xf32>, tensor<3x3x37xf32>) outs(%fe : tensor<2x61x59x37xf32>) -> tensor<2x61x59x37xf32>
  %act = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%dw, %b : tensor<2x61x59x37xf32>, tensor<37xf32>) outs(%ee : tensor<2x61x59x37xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<2x61x59x37xf32>
  %ep = tensor.empty() : tensor<2x61x59x23xf32>
  %fp = linalg.fill ins(%zero : f32) outs(%ep : tensor<2x61x59x23xf32>) -> tensor<2x61x59x23xf32>
  %pw = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%act, %v : tensor<2x61x59x37xf32>, tensor<1x1x37x23xf32>) outs(%fp : tensor<2x61x59x23xf32>) -> tensor<2x61x59x23xf32>
  %res = linalg.generic {indexing_maps = [#id4, #bias, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%pw, %pb, %skip : tensor<2x61x59x23xf32>, tensor<23xf32>, tensor<2x61x59x23xf32>) outs(%ep : tensor<2x61x59x23xf32>) {
  ^bb0(%in: f32, %bi: f32, %r: f32, %o: f32):
    %s = arith.addf %in, %bi : f32
    %t = arith.addf %s, %r : f32
    linalg.yield %t : f32
  } -> tensor<2x61x59x23xf32>

  %rex = linalg.generic {indexing_maps = [#pw_in, #pw_w, #pw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %we : tensor<2x61x59x7xf32>, tensor<1x1x7x37xf32>) outs(%fe : tensor<2x61x59x37xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x61x59x37xf32>
  %rexa = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rex, %be : tensor<2x61x59x37xf32>, tensor<37xf32>) outs(%ee : tensor<2x61x59x37xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<2x61x59x37xf32>
  %ez = tensor.empty() : tensor<2x63x61x37xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%ez : tensor<2x63x61x37xf32>) -> tensor<2x63x61x37xf32>
  %rpadded = tensor.insert_slice %rexa into %fz[0, 1, 1, 0] [2, 61, 59, 37] [1, 1, 1, 1] : tensor<2x61x59x37xf32> into tensor<2x63x61x37xf32>
  %rdw = linalg.generic {indexing_maps = [#dw_in, #dw_w, #dw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%rpadded, %w : tensor<2x63x61x37xf32>, tensor<3x3x37xf32>) outs(%fe : tensor<2x61x59x37xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x61x59x37xf32>
  %ract = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rdw, %b : tensor<2x61x59x37xf32>, tensor<37xf32>) outs(%ee : tensor<2x61x59x37xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<2x61x59x37xf32>
  %rpw = linalg.generic {indexing_maps = [#pw_in, #pw_w, #pw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%ract, %v : tensor<2x61x59x37xf32>, tensor<1x1x37x23xf32>) outs(%fp : tensor<2x61x59x23xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x61x59x23xf32>
  %rres = linalg.generic {indexing_maps = [#id4, #bias, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rpw, %pb, %skip : tensor<2x61x59x23xf32>, tensor<23xf32>, tensor<2x61x59x23xf32>) outs(%ep : tensor<2x61x59x23xf32>) {
  ^bb0(%in: f32, %bi: f32, %r: f32, %o: f32):
    %s = arith.addf %in, %bi : f32
    %t = arith.addf %s, %r : f32
    linalg.yield %t : f32
  } -> tensor<2x61x59x23xf32>
  check.expect_eq(%res, %rres) : tensor<2x61x59x23xf32>

  // A padded 3x3 stride-2 convolution 1x107x113x5 -> 1x54x57x97 with bias,
  // padded again for a depthwise convolution with no epilogue.
  %y0 = func.call @pattern(%c3, %c2, %c1, %c5, %c1, %c107, %c113, %c5) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %u0 = func.call @pattern(%c1, %c5, %c2, %c3, %c3, %c3, %c5, %c97) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %q0 = func.call @pattern(%c2, %c3, %c5, %c1, %c1, %c3, %c3, %c97) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %y1 = tensor.cast %y0 : tensor<?x?x?x?xf32> to tensor<1x107x113x5xf32>
  %u1 = tensor.cast %u0 : tensor<?x?x?x?xf32> to tensor<3x3x5x97xf32>
  %q1 = tensor.cast %q0 : tensor<?x?x?x?xf32> to tensor<1x3x3x97xf32>
  %y = util.optimization_barrier %y1 : tensor<1x107x113x5xf32>
  %u = util.optimization_barrier %u1 : tensor<3x3x5x97xf32>
  %q4 = util.optimization_barrier %q1 : tensor<1x3x3x97xf32>
  %q = tensor.collapse_shape %q4 [[0, 1], [2], [3]] : tensor<1x3x3x97xf32> into tensor<3x3x97xf32>
  %cb = arith.constant dense<[0.0, -1.0, 2.0, -3.0, 4.0, -5.0, 6.0, 0.0, 1.0, -2.0, 3.0, -4.0, 5.0, -6.0, 0.0, -1.0, 2.0, -3.0, 4.0, -5.0, 6.0, 0.0, 1.0, -2.0, 3.0, -4.0, 5.0, -6.0, 0.0, -1.0, 2.0, -3.0, 4.0, -5.0, 6.0, 0.0, 1.0, -2.0, 3.0, -4.0, 5.0, -6.0, 0.0, -1.0, 2.0, -3.0, 4.0, -5.0, 6.0, 0.0, 1.0, -2.0, 3.0, -4.0, 5.0, -6.0, 0.0, -1.0, 2.0, -3.0, 4.0, -5.0, 6.0, 0.0, 1.0, -2.0, 3.0, -4.0, 5.0, -6.0, 0.0, -1.0, 2.0, -3.0, 4.0, -5.0, 6.0, 0.0, 1.0, -2.0, 3.0, -4.0, 5.0, -6.0, 0.0, -1.0, 2.0, -3.0, 4.0, -5.0, 6.0, 0.0, 1.0, -2.0, 3.0, -4.0, 5.0]> : tensor<97xf32>

  %ypadded = tensor.pad %y low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x107x113x5xf32> to tensor<1x109x115x5xf32>
  %ec = tensor.empty() : tensor<1x54x57x97xf32>
  %fc = linalg.fill ins(%zero : f32) outs(%ec : tensor<1x54x57x97xf32>) -> tensor<1x54x57x97xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%ypadded, %u : tensor<1x109x115x5xf32>, tensor<3x3x5x97xf32>) outs(%fc : tensor<1x54x57x97xf32>) -> tensor<1x54x57x97xf32>
  %convb = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %cb : tensor<1x54x57x97xf32>, tensor<97xf32>) outs(%ec : tensor<1x54x57x97xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<1x54x57x97xf32>
  %cpadded = tensor.pad %convb low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x54x57x97xf32> to tensor<1x56x59x97xf32>
  %dw2 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%cpadded, %q : tensor<1x56x59x97xf32>, tensor<3x3x97xf32>) outs(%fc : tensor<1x54x57x97xf32>) -> tensor<1x54x57x97xf32>

  %ez2 = tensor.empty() : tensor<1x109x115x5xf32>
  %fz2 = linalg.fill ins(%zero : f32) outs(%ez2 : tensor<1x109x115x5xf32>) -> tensor<1x109x115x5xf32>
  %rypadded = tensor.insert_slice %y into %fz2[0, 1, 1, 0] [1, 107, 113, 5] [1, 1, 1, 1] : tensor<1x107x113x5xf32> into tensor<1x109x115x5xf32>
  %rconv = linalg.generic {indexing_maps = [#conv2_in, #conv_w, #conv_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%rypadded, %u : tensor<1x109x115x5xf32>, tensor<3x3x5x97xf32>) outs(%fc : tensor<1x54x57x97xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x54x57x97xf32>
  %rconvb = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rconv, %cb : tensor<1x54x57x97xf32>, tensor<97xf32>) outs(%ec : tensor<1x54x57x97xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<1x54x57x97xf32>
  %ez3 = tensor.empty() : tensor<1x56x59x97xf32>
  %fz3 = linalg.fill ins(%zero : f32) outs(%ez3 : tensor<1x56x59x97xf32>) -> tensor<1x56x59x97xf32>
  %rcpadded = tensor.insert_slice %rconvb into %fz3[0, 1, 1, 0] [1, 54, 57, 97] [1, 1, 1, 1] : tensor<1x54x57x97xf32> into tensor<1x56x59x97xf32>
  %rdw2 = linalg.generic {indexing_maps = [#dw_in, #dw_w, #dw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%rcpadded, %q : tensor<1x56x59x97xf32>, tensor<3x3x97xf32>) outs(%fc : tensor<1x54x57x97xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x54x57x97xf32>
  check.expect_eq(%dw2, %rdw2) : tensor<1x54x57x97xf32>
  return
}

func.func @stride2() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c19 = arith.constant 19 : index
  %c31 = arith.constant 31 : index
  %c44 = arith.constant 44 : index
  %c47 = arith.constant 47 : index
  %c67 = arith.constant 67 : index
  %c77 = arith.constant 77 : index
  %c84 = arith.constant 84 : index
  %c127 = arith.constant 127 : index
  %c131 = arith.constant 131 : index
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  // The weights the three blocks share: 1x1 19 -> 67, 3x3 depthwise of 67,
  // 1x1 67 -> 31, with their biases.
  %we0 = func.call @pattern(%c2, %c3, %c1, %c5, %c1, %c1, %c19, %c67) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %w0 = func.call @pattern(%c2, %c1, %c3, %c5, %c1, %c3, %c3, %c67) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %v0 = func.call @pattern(%c3, %c2, %c1, %c5, %c1, %c1, %c67, %c31) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %we1 = tensor.cast %we0 : tensor<?x?x?x?xf32> to tensor<1x1x19x67xf32>
  %w1 = tensor.cast %w0 : tensor<?x?x?x?xf32> to tensor<1x3x3x67xf32>
  %v1 = tensor.cast %v0 : tensor<?x?x?x?xf32> to tensor<1x1x67x31xf32>
  %we = util.optimization_barrier %we1 : tensor<1x1x19x67xf32>
  %w4 = util.optimization_barrier %w1 : tensor<1x3x3x67xf32>
  %v = util.optimization_barrier %v1 : tensor<1x1x67x31xf32>
  %w = tensor.collapse_shape %w4 [[0, 1], [2], [3]] : tensor<1x3x3x67xf32> into tensor<3x3x67xf32>
  %be = arith.constant dense<[-4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0, -1.0, 2.0, -4.0]> : tensor<67xf32>
  %b = arith.constant dense<[-3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0]> : tensor<67xf32>
  %pb = arith.constant dense<[-2.0, 0.0, 2.0, -1.0, 1.0, -2.0, 0.0, 2.0, -1.0, 1.0, -2.0, 0.0, 2.0, -1.0, 1.0, -2.0, 0.0, 2.0, -1.0, 1.0, -2.0, 0.0, 2.0, -1.0, 1.0, -2.0, 0.0, 2.0, -1.0, 1.0, -2.0]> : tensor<31xf32>

  // 1x131x127x19: expansion, stride-2 depthwise into 66x64, projection,
  // all three in one dispatch.
  %x0_b1 = func.call @pattern(%c1, %c3, %c5, %c2, %c1, %c131, %c127, %c19) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %x1_b1 = tensor.cast %x0_b1 : tensor<?x?x?x?xf32> to tensor<1x131x127x19xf32>
  %x_b1 = util.optimization_barrier %x1_b1 : tensor<1x131x127x19xf32>
  %ee_b1 = tensor.empty() : tensor<1x131x127x67xf32>
  %fe_b1 = linalg.fill ins(%zero : f32) outs(%ee_b1 : tensor<1x131x127x67xf32>) -> tensor<1x131x127x67xf32>
  %ex_b1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x_b1, %we : tensor<1x131x127x19xf32>, tensor<1x1x19x67xf32>) outs(%fe_b1 : tensor<1x131x127x67xf32>) -> tensor<1x131x127x67xf32>
  %exa_b1 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex_b1, %be : tensor<1x131x127x67xf32>, tensor<67xf32>) outs(%ee_b1 : tensor<1x131x127x67xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<1x131x127x67xf32>
  %padded_b1 = tensor.pad %exa_b1 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x131x127x67xf32> to tensor<1x133x129x67xf32>
  %ed_b1 = tensor.empty() : tensor<1x66x64x67xf32>
  %fd_b1 = linalg.fill ins(%zero : f32) outs(%ed_b1 : tensor<1x66x64x67xf32>) -> tensor<1x66x64x67xf32>
  %dw_b1 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded_b1, %w : tensor<1x133x129x67xf32>, tensor<3x3x67xf32>) outs(%fd_b1 : tensor<1x66x64x67xf32>) -> tensor<1x66x64x67xf32>
  %act_b1 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%dw_b1, %b : tensor<1x66x64x67xf32>, tensor<67xf32>) outs(%ed_b1 : tensor<1x66x64x67xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<1x66x64x67xf32>
  %ep_b1 = tensor.empty() : tensor<1x66x64x31xf32>
  %fp_b1 = linalg.fill ins(%zero : f32) outs(%ep_b1 : tensor<1x66x64x31xf32>) -> tensor<1x66x64x31xf32>
  %pw_b1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%act_b1, %v : tensor<1x66x64x67xf32>, tensor<1x1x67x31xf32>) outs(%fp_b1 : tensor<1x66x64x31xf32>) -> tensor<1x66x64x31xf32>
  %res_b1 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%pw_b1, %pb : tensor<1x66x64x31xf32>, tensor<31xf32>) outs(%ep_b1 : tensor<1x66x64x31xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<1x66x64x31xf32>

  %rex_b1 = linalg.generic {indexing_maps = [#pw_in, #pw_w, #pw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x_b1, %we : tensor<1x131x127x19xf32>, tensor<1x1x19x67xf32>) outs(%fe_b1 : tensor<1x131x127x67xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x131x127x67xf32>
  %rexa_b1 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rex_b1, %be : tensor<1x131x127x67xf32>, tensor<67xf32>) outs(%ee_b1 : tensor<1x131x127x67xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<1x131x127x67xf32>
  %ez_b1 = tensor.empty() : tensor<1x133x129x67xf32>
  %fz_b1 = linalg.fill ins(%zero : f32) outs(%ez_b1 : tensor<1x133x129x67xf32>) -> tensor<1x133x129x67xf32>
  %rpadded_b1 = tensor.insert_slice %rexa_b1 into %fz_b1[0, 1, 1, 0] [1, 131, 127, 67] [1, 1, 1, 1] : tensor<1x131x127x67xf32> into tensor<1x133x129x67xf32>
  %rdw_b1 = linalg.generic {indexing_maps = [#dw2_in, #dw_w, #dw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%rpadded_b1, %w : tensor<1x133x129x67xf32>, tensor<3x3x67xf32>) outs(%fd_b1 : tensor<1x66x64x67xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x66x64x67xf32>
  %ract_b1 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rdw_b1, %b : tensor<1x66x64x67xf32>, tensor<67xf32>) outs(%ed_b1 : tensor<1x66x64x67xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<1x66x64x67xf32>
  %rpw_b1 = linalg.generic {indexing_maps = [#pw_in, #pw_w, #pw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%ract_b1, %v : tensor<1x66x64x67xf32>, tensor<1x1x67x31xf32>) outs(%fp_b1 : tensor<1x66x64x31xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x66x64x31xf32>
  %rres_b1 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rpw_b1, %pb : tensor<1x66x64x31xf32>, tensor<31xf32>) outs(%ep_b1 : tensor<1x66x64x31xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<1x66x64x31xf32>
  check.expect_eq(%res_b1, %rres_b1) : tensor<1x66x64x31xf32>

  // 3x77x84x19: the same at batch 3 (an odd height, an even width: the
  // high padding column unread), all three in one dispatch.
  %x0_b3 = func.call @pattern(%c1, %c3, %c5, %c2, %c3, %c77, %c84, %c19) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %x1_b3 = tensor.cast %x0_b3 : tensor<?x?x?x?xf32> to tensor<3x77x84x19xf32>
  %x_b3 = util.optimization_barrier %x1_b3 : tensor<3x77x84x19xf32>
  %ee_b3 = tensor.empty() : tensor<3x77x84x67xf32>
  %fe_b3 = linalg.fill ins(%zero : f32) outs(%ee_b3 : tensor<3x77x84x67xf32>) -> tensor<3x77x84x67xf32>
  %ex_b3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x_b3, %we : tensor<3x77x84x19xf32>, tensor<1x1x19x67xf32>) outs(%fe_b3 : tensor<3x77x84x67xf32>) -> tensor<3x77x84x67xf32>
  %exa_b3 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex_b3, %be : tensor<3x77x84x67xf32>, tensor<67xf32>) outs(%ee_b3 : tensor<3x77x84x67xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<3x77x84x67xf32>
  %padded_b3 = tensor.pad %exa_b3 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<3x77x84x67xf32> to tensor<3x79x86x67xf32>
  %ed_b3 = tensor.empty() : tensor<3x39x42x67xf32>
  %fd_b3 = linalg.fill ins(%zero : f32) outs(%ed_b3 : tensor<3x39x42x67xf32>) -> tensor<3x39x42x67xf32>
  %dw_b3 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded_b3, %w : tensor<3x79x86x67xf32>, tensor<3x3x67xf32>) outs(%fd_b3 : tensor<3x39x42x67xf32>) -> tensor<3x39x42x67xf32>
  %act_b3 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%dw_b3, %b : tensor<3x39x42x67xf32>, tensor<67xf32>) outs(%ed_b3 : tensor<3x39x42x67xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<3x39x42x67xf32>
  %ep_b3 = tensor.empty() : tensor<3x39x42x31xf32>
  %fp_b3 = linalg.fill ins(%zero : f32) outs(%ep_b3 : tensor<3x39x42x31xf32>) -> tensor<3x39x42x31xf32>
  %pw_b3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%act_b3, %v : tensor<3x39x42x67xf32>, tensor<1x1x67x31xf32>) outs(%fp_b3 : tensor<3x39x42x31xf32>) -> tensor<3x39x42x31xf32>
  %res_b3 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%pw_b3, %pb : tensor<3x39x42x31xf32>, tensor<31xf32>) outs(%ep_b3 : tensor<3x39x42x31xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<3x39x42x31xf32>

  %rex_b3 = linalg.generic {indexing_maps = [#pw_in, #pw_w, #pw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x_b3, %we : tensor<3x77x84x19xf32>, tensor<1x1x19x67xf32>) outs(%fe_b3 : tensor<3x77x84x67xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x77x84x67xf32>
  %rexa_b3 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rex_b3, %be : tensor<3x77x84x67xf32>, tensor<67xf32>) outs(%ee_b3 : tensor<3x77x84x67xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<3x77x84x67xf32>
  %ez_b3 = tensor.empty() : tensor<3x79x86x67xf32>
  %fz_b3 = linalg.fill ins(%zero : f32) outs(%ez_b3 : tensor<3x79x86x67xf32>) -> tensor<3x79x86x67xf32>
  %rpadded_b3 = tensor.insert_slice %rexa_b3 into %fz_b3[0, 1, 1, 0] [3, 77, 84, 67] [1, 1, 1, 1] : tensor<3x77x84x67xf32> into tensor<3x79x86x67xf32>
  %rdw_b3 = linalg.generic {indexing_maps = [#dw2_in, #dw_w, #dw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%rpadded_b3, %w : tensor<3x79x86x67xf32>, tensor<3x3x67xf32>) outs(%fd_b3 : tensor<3x39x42x67xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x39x42x67xf32>
  %ract_b3 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rdw_b3, %b : tensor<3x39x42x67xf32>, tensor<67xf32>) outs(%ed_b3 : tensor<3x39x42x67xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<3x39x42x67xf32>
  %rpw_b3 = linalg.generic {indexing_maps = [#pw_in, #pw_w, #pw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%ract_b3, %v : tensor<3x39x42x67xf32>, tensor<1x1x67x31xf32>) outs(%fp_b3 : tensor<3x39x42x31xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x39x42x31xf32>
  %rres_b3 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rpw_b3, %pb : tensor<3x39x42x31xf32>, tensor<31xf32>) outs(%ep_b3 : tensor<3x39x42x31xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<3x39x42x31xf32>
  check.expect_eq(%res_b3, %rres_b3) : tensor<3x39x42x31xf32>

  // 2x47x44x19: the depthwise result (2x24x22x67, 283 KB) is under 1 MiB,
  // so the expansion and the depthwise are one dispatch, the projection
  // another.
  %x0_b2 = func.call @pattern(%c1, %c3, %c5, %c2, %c2, %c47, %c44, %c19) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?x?xf32>
  %x1_b2 = tensor.cast %x0_b2 : tensor<?x?x?x?xf32> to tensor<2x47x44x19xf32>
  %x_b2 = util.optimization_barrier %x1_b2 : tensor<2x47x44x19xf32>
  %ee_b2 = tensor.empty() : tensor<2x47x44x67xf32>
  %fe_b2 = linalg.fill ins(%zero : f32) outs(%ee_b2 : tensor<2x47x44x67xf32>) -> tensor<2x47x44x67xf32>
  %ex_b2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x_b2, %we : tensor<2x47x44x19xf32>, tensor<1x1x19x67xf32>) outs(%fe_b2 : tensor<2x47x44x67xf32>) -> tensor<2x47x44x67xf32>
  %exa_b2 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ex_b2, %be : tensor<2x47x44x67xf32>, tensor<67xf32>) outs(%ee_b2 : tensor<2x47x44x67xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<2x47x44x67xf32>
  %padded_b2 = tensor.pad %exa_b2 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x47x44x67xf32> to tensor<2x49x46x67xf32>
  %ed_b2 = tensor.empty() : tensor<2x24x22x67xf32>
  %fd_b2 = linalg.fill ins(%zero : f32) outs(%ed_b2 : tensor<2x24x22x67xf32>) -> tensor<2x24x22x67xf32>
  %dw_b2 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded_b2, %w : tensor<2x49x46x67xf32>, tensor<3x3x67xf32>) outs(%fd_b2 : tensor<2x24x22x67xf32>) -> tensor<2x24x22x67xf32>
  %act_b2 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%dw_b2, %b : tensor<2x24x22x67xf32>, tensor<67xf32>) outs(%ed_b2 : tensor<2x24x22x67xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<2x24x22x67xf32>
  %ep_b2 = tensor.empty() : tensor<2x24x22x31xf32>
  %fp_b2 = linalg.fill ins(%zero : f32) outs(%ep_b2 : tensor<2x24x22x31xf32>) -> tensor<2x24x22x31xf32>
  %pw_b2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%act_b2, %v : tensor<2x24x22x67xf32>, tensor<1x1x67x31xf32>) outs(%fp_b2 : tensor<2x24x22x31xf32>) -> tensor<2x24x22x31xf32>
  %res_b2 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%pw_b2, %pb : tensor<2x24x22x31xf32>, tensor<31xf32>) outs(%ep_b2 : tensor<2x24x22x31xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<2x24x22x31xf32>

  %rex_b2 = linalg.generic {indexing_maps = [#pw_in, #pw_w, #pw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x_b2, %we : tensor<2x47x44x19xf32>, tensor<1x1x19x67xf32>) outs(%fe_b2 : tensor<2x47x44x67xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x47x44x67xf32>
  %rexa_b2 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rex_b2, %be : tensor<2x47x44x67xf32>, tensor<67xf32>) outs(%ee_b2 : tensor<2x47x44x67xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<2x47x44x67xf32>
  %ez_b2 = tensor.empty() : tensor<2x49x46x67xf32>
  %fz_b2 = linalg.fill ins(%zero : f32) outs(%ez_b2 : tensor<2x49x46x67xf32>) -> tensor<2x49x46x67xf32>
  %rpadded_b2 = tensor.insert_slice %rexa_b2 into %fz_b2[0, 1, 1, 0] [2, 47, 44, 67] [1, 1, 1, 1] : tensor<2x47x44x67xf32> into tensor<2x49x46x67xf32>
  %rdw_b2 = linalg.generic {indexing_maps = [#dw2_in, #dw_w, #dw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%rpadded_b2, %w : tensor<2x49x46x67xf32>, tensor<3x3x67xf32>) outs(%fd_b2 : tensor<2x24x22x67xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x24x22x67xf32>
  %ract_b2 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rdw_b2, %b : tensor<2x24x22x67xf32>, tensor<67xf32>) outs(%ed_b2 : tensor<2x24x22x67xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<2x24x22x67xf32>
  %rpw_b2 = linalg.generic {indexing_maps = [#pw_in, #pw_w, #pw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%ract_b2, %v : tensor<2x24x22x67xf32>, tensor<1x1x67x31xf32>) outs(%fp_b2 : tensor<2x24x22x31xf32>) {
  ^bb0(%in: f32, %wt: f32, %acc: f32):
    %p = arith.mulf %in, %wt : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x24x22x31xf32>
  %rres_b2 = linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rpw_b2, %pb : tensor<2x24x22x31xf32>, tensor<31xf32>) outs(%ep_b2 : tensor<2x24x22x31xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    linalg.yield %s : f32
  } -> tensor<2x24x22x31xf32>
  check.expect_eq(%res_b2, %rres_b2) : tensor<2x24x22x31xf32>
  return
}
