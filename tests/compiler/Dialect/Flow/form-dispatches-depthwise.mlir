// RUN: strata-opt '--strata-form-dispatches=im2col-convolutions=false fuse-into-depthwise=true fuse-into-projection=true' --canonicalize --split-input-file %s | FileCheck %s --check-prefix=FUSED
// RUN: strata-opt --strata-form-dispatches=im2col-convolutions=false --canonicalize --split-input-file %s | FileCheck %s --check-prefix=APART

// mobilenet_v2's first block at batch 8: a padded depthwise convolution
// with bias and ReLU6 (8 x 112 x 112 x 32 floats, 12.8 MB) read only by a
// 1x1 convolution (the projection). With fuse-into-projection both are one
// dispatch, named after the depthwise convolution and its epilogue, then
// the projection; without, two.
// FUSED-LABEL: func.func @block(
// FUSED: flow.dispatch @module_linked_llvm_cpu::@block_dispatch_0_dwconv_3x3_32_112x112_n8_bias_clip_conv_1x1_32x16_112x112_n8_f32
// FUSED-NOT: flow.dispatch
// FUSED: flow.executable
// FUSED: func.func @block_dispatch_0_dwconv_3x3_32_112x112_n8_bias_clip_conv_1x1_32x16_112x112_n8_f32(%{{.*}}: tensor<8x112x112x32xf32>
// FUSED:   tensor.pad
// FUSED:   linalg.depthwise_conv_2d_nhwc_hwc
// FUSED:   linalg.generic
// FUSED:   linalg.conv_2d_nhwc_hwcf
// FUSED:   return {{.*}} : tensor<8x112x112x16xf32>

// APART-LABEL: func.func @block(
// APART: flow.dispatch {{.*}}@block_dispatch_0_dwconv_3x3_32_112x112_n8_bias_clip_f32
// APART: flow.dispatch {{.*}}@block_dispatch_1_conv_1x1_32x16_112x112_n8_f32
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @block(%x: tensor<8x112x112x32xf32>, %w: tensor<3x3x32xf32>, %b: tensor<32xf32>, %v: tensor<1x1x32x16xf32>) -> tensor<8x112x112x16xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<8x112x112x32xf32> to tensor<8x114x114x32xf32>
  %e = tensor.empty() : tensor<8x112x112x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x112x112x32xf32>) -> tensor<8x112x112x32xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : tensor<8x114x114x32xf32>, tensor<3x3x32xf32>) outs(%f : tensor<8x112x112x32xf32>) -> tensor<8x112x112x32xf32>
  %r = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%d, %b : tensor<8x112x112x32xf32>, tensor<32xf32>) outs(%e : tensor<8x112x112x32xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<8x112x112x32xf32>
  %ec = tensor.empty() : tensor<8x112x112x16xf32>
  %fc = linalg.fill ins(%zero : f32) outs(%ec : tensor<8x112x112x16xf32>) -> tensor<8x112x112x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%r, %v : tensor<8x112x112x32xf32>, tensor<1x1x32x16xf32>) outs(%fc : tensor<8x112x112x16xf32>) -> tensor<8x112x112x16xf32>
  return %c : tensor<8x112x112x16xf32>
}

// -----

// Not fused: a result under 1 MiB (it stays in the cache between the two
// dispatches), a 1x1 convolution of stride 2 (it reads every other row),
// a 3x3 convolution (its bands would share rows), and a depthwise result
// something else reads too.
// FUSED-LABEL: func.func @apart(
// FUSED: flow.dispatch {{.*}}_dwconv_3x3_32_28x28_f32
// FUSED: flow.dispatch {{.*}}_conv_1x1_32x16_28x28_f32
// FUSED: flow.dispatch {{.*}}_dwconv_3x3_32_112x112_f32
// FUSED: flow.dispatch {{.*}}_conv_1x1_s2_32x16_56x56_f32
// FUSED: flow.dispatch {{.*}}_dwconv_3x3_32_112x112_f32
// FUSED: flow.dispatch {{.*}}_conv_3x3_32x16_110x110_f32
// FUSED: %[[SHARED:.*]] = flow.dispatch {{.*}}_dwconv_3x3_32_112x112_f32
// FUSED: flow.dispatch {{.*}}_conv_1x1_32x16_112x112_f32(%[[SHARED]]
func.func @apart(%s: tensor<1x30x30x32xf32>, %x: tensor<1x114x114x32xf32>, %w: tensor<3x3x32xf32>, %v: tensor<1x1x32x16xf32>, %u: tensor<3x3x32x16xf32>) -> (tensor<1x28x28x16xf32>, tensor<1x56x56x16xf32>, tensor<1x110x110x16xf32>, tensor<1x112x112x16xf32>, tensor<1x112x112x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<1x28x28x32xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x28x28x32xf32>) -> tensor<1x28x28x32xf32>
  %ds = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%s, %w : tensor<1x30x30x32xf32>, tensor<3x3x32xf32>) outs(%fs : tensor<1x28x28x32xf32>) -> tensor<1x28x28x32xf32>
  %ecs = tensor.empty() : tensor<1x28x28x16xf32>
  %fcs = linalg.fill ins(%zero : f32) outs(%ecs : tensor<1x28x28x16xf32>) -> tensor<1x28x28x16xf32>
  %cs = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%ds, %v : tensor<1x28x28x32xf32>, tensor<1x1x32x16xf32>) outs(%fcs : tensor<1x28x28x16xf32>) -> tensor<1x28x28x16xf32>

  %e = tensor.empty() : tensor<1x112x112x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x112x112x32xf32>) -> tensor<1x112x112x32xf32>
  %d1 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x114x114x32xf32>, tensor<3x3x32xf32>) outs(%f : tensor<1x112x112x32xf32>) -> tensor<1x112x112x32xf32>
  %e1 = tensor.empty() : tensor<1x56x56x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x56x56x16xf32>) -> tensor<1x56x56x16xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%d1, %v : tensor<1x112x112x32xf32>, tensor<1x1x32x16xf32>) outs(%f1 : tensor<1x56x56x16xf32>) -> tensor<1x56x56x16xf32>

  %d2 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x114x114x32xf32>, tensor<3x3x32xf32>) outs(%f : tensor<1x112x112x32xf32>) -> tensor<1x112x112x32xf32>
  %e2 = tensor.empty() : tensor<1x110x110x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x110x110x16xf32>) -> tensor<1x110x110x16xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%d2, %u : tensor<1x112x112x32xf32>, tensor<3x3x32x16xf32>) outs(%f2 : tensor<1x110x110x16xf32>) -> tensor<1x110x110x16xf32>

  %d3 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x114x114x32xf32>, tensor<3x3x32xf32>) outs(%f : tensor<1x112x112x32xf32>) -> tensor<1x112x112x32xf32>
  %e3 = tensor.empty() : tensor<1x112x112x16xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x112x112x16xf32>) -> tensor<1x112x112x16xf32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%d3, %v : tensor<1x112x112x32xf32>, tensor<1x1x32x16xf32>) outs(%f3 : tensor<1x112x112x16xf32>) -> tensor<1x112x112x16xf32>
  return %cs, %c1, %c2, %c3, %d3 : tensor<1x28x28x16xf32>, tensor<1x56x56x16xf32>, tensor<1x110x110x16xf32>, tensor<1x112x112x16xf32>, tensor<1x112x112x32xf32>
}

// -----

// mobilenet_v2's second block at batch 1: a 1x1 expansion with bias and
// ReLU6 (112 x 112 x 96 floats, 4.8 MB) read only by a padded stride-2
// depthwise convolution, whose result (56 x 56 x 96, 1.2 MB) a 1x1
// projection reads. With both fusions the block is one dispatch, named
// after its three window ops in order; without, three.
// FUSED-LABEL: func.func @inverted_residual(
// FUSED: flow.dispatch @module_linked_llvm_cpu::@inverted_residual_dispatch_0_conv_1x1_16x96_112x112_bias_clip_dwconv_3x3_s2_96_56x56_bias_clip_conv_1x1_96x24_56x56_f32
// FUSED-NOT: flow.dispatch
// FUSED: func.func @inverted_residual_dispatch_0_{{.*}}(%{{.*}}: tensor<1x112x112x16xf32>
// FUSED:   linalg.conv_2d_nhwc_hwcf
// FUSED:   linalg.generic
// FUSED:   tensor.pad
// FUSED:   linalg.depthwise_conv_2d_nhwc_hwc
// FUSED:   linalg.generic
// FUSED:   linalg.conv_2d_nhwc_hwcf
// FUSED:   return {{.*}} : tensor<1x56x56x24xf32>

// APART-LABEL: func.func @inverted_residual(
// APART: flow.dispatch {{.*}}@inverted_residual_dispatch_0_conv_1x1_16x96_112x112_bias_clip_f32
// APART: flow.dispatch {{.*}}@inverted_residual_dispatch_1_dwconv_3x3_s2_96_56x56_bias_clip_f32
// APART: flow.dispatch {{.*}}@inverted_residual_dispatch_2_conv_1x1_96x24_56x56_f32
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @inverted_residual(%x: tensor<1x112x112x16xf32>, %we: tensor<1x1x16x96xf32>, %be: tensor<96xf32>, %w: tensor<3x3x96xf32>, %b: tensor<96xf32>, %v: tensor<1x1x96x24xf32>) -> tensor<1x56x56x24xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %ee = tensor.empty() : tensor<1x112x112x96xf32>
  %fe = linalg.fill ins(%zero : f32) outs(%ee : tensor<1x112x112x96xf32>) -> tensor<1x112x112x96xf32>
  %ce = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %we : tensor<1x112x112x16xf32>, tensor<1x1x16x96xf32>) outs(%fe : tensor<1x112x112x96xf32>) -> tensor<1x112x112x96xf32>
  %re = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ce, %be : tensor<1x112x112x96xf32>, tensor<96xf32>) outs(%ee : tensor<1x112x112x96xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<1x112x112x96xf32>
  %padded = tensor.pad %re low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x112x112x96xf32> to tensor<1x114x114x96xf32>
  %e = tensor.empty() : tensor<1x56x56x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded, %w : tensor<1x114x114x96xf32>, tensor<3x3x96xf32>) outs(%f : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
  %r = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%d, %b : tensor<1x56x56x96xf32>, tensor<96xf32>) outs(%e : tensor<1x56x56x96xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<1x56x56x96xf32>
  %ec = tensor.empty() : tensor<1x56x56x24xf32>
  %fc = linalg.fill ins(%zero : f32) outs(%ec : tensor<1x56x56x24xf32>) -> tensor<1x56x56x24xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%r, %v : tensor<1x56x56x96xf32>, tensor<1x1x96x24xf32>) outs(%fc : tensor<1x56x56x24xf32>) -> tensor<1x56x56x24xf32>
  return %c : tensor<1x56x56x24xf32>
}

// -----

// An expansion under 1 MiB (28 x 28 x 144 floats, 451 KB) stays its own
// dispatch (it stays in the cache), and so does one something else reads.
// FUSED-LABEL: func.func @expansions_apart(
// FUSED: flow.dispatch {{.*}}_conv_1x1_24x144_28x28_f32
// FUSED: flow.dispatch {{.*}}_dwconv_3x3_144_26x26_f32
// FUSED: %[[SHARED:.*]] = flow.dispatch {{.*}}_conv_1x1_24x144_56x56_f32
// FUSED: flow.dispatch {{.*}}_dwconv_3x3_144_54x54_f32(%[[SHARED]]
func.func @expansions_apart(%x: tensor<1x28x28x24xf32>, %y: tensor<1x56x56x24xf32>, %we: tensor<1x1x24x144xf32>, %w: tensor<3x3x144xf32>) -> (tensor<1x26x26x144xf32>, tensor<1x54x54x144xf32>, tensor<1x56x56x144xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x28x28x144xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x28x28x144xf32>) -> tensor<1x28x28x144xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %we : tensor<1x28x28x24xf32>, tensor<1x1x24x144xf32>) outs(%f1 : tensor<1x28x28x144xf32>) -> tensor<1x28x28x144xf32>
  %ed1 = tensor.empty() : tensor<1x26x26x144xf32>
  %fd1 = linalg.fill ins(%zero : f32) outs(%ed1 : tensor<1x26x26x144xf32>) -> tensor<1x26x26x144xf32>
  %d1 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%c1, %w : tensor<1x28x28x144xf32>, tensor<3x3x144xf32>) outs(%fd1 : tensor<1x26x26x144xf32>) -> tensor<1x26x26x144xf32>
  %e2 = tensor.empty() : tensor<1x56x56x144xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x56x56x144xf32>) -> tensor<1x56x56x144xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%y, %we : tensor<1x56x56x24xf32>, tensor<1x1x24x144xf32>) outs(%f2 : tensor<1x56x56x144xf32>) -> tensor<1x56x56x144xf32>
  %ed2 = tensor.empty() : tensor<1x54x54x144xf32>
  %fd2 = linalg.fill ins(%zero : f32) outs(%ed2 : tensor<1x54x54x144xf32>) -> tensor<1x54x54x144xf32>
  %d2 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%c2, %w : tensor<1x56x56x144xf32>, tensor<3x3x144xf32>) outs(%fd2 : tensor<1x54x54x144xf32>) -> tensor<1x54x54x144xf32>
  return %d1, %d2, %c2 : tensor<1x26x26x144xf32>, tensor<1x54x54x144xf32>, tensor<1x56x56x144xf32>
}
