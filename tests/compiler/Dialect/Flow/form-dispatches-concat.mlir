// RUN: strata-opt '--strata-form-dispatches=im2col-convolutions=false fuse-into-concat=true' --canonicalize --split-input-file %s | FileCheck %s --check-prefix=FUSED
// RUN: strata-opt --strata-form-dispatches=im2col-convolutions=false --canonicalize --split-input-file %s | FileCheck %s --check-prefix=COPY

// A fire module's expand convolutions (one with bias + ReLU, one bare)
// joined along channels. With fuse-into-concat both are computed in the
// concatenation's dispatch (named after the larger convolution), which the
// code generator cuts into bands written in place; without, each is a
// dispatch of its own and the concatenation copies them.
// FUSED-LABEL: func.func @fire(
// FUSED: flow.dispatch @module_linked_llvm_cpu::@fire_dispatch_0_conv_3x3_16x64_55x55_concat_f32
// FUSED-NOT: flow.dispatch
// FUSED: flow.executable
// FUSED: func.func @fire_dispatch_0_conv_3x3_16x64_55x55_concat_f32
// FUSED:   linalg.conv_2d_nhwc_hwcf
// FUSED:   linalg.generic
// FUSED:   linalg.conv_2d_nhwc_hwcf
// FUSED:   tensor.concat dim(3)

// COPY-LABEL: func.func @fire(
// COPY: flow.dispatch {{.*}}@fire_dispatch_0_conv_1x1_16x64_55x55_bias_relu_f32
// COPY: flow.dispatch {{.*}}@fire_dispatch_1_conv_3x3_16x64_55x55_f32
// COPY: flow.dispatch {{.*}}@fire_dispatch_2_concat_1x55x55x128_f32
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @fire(%x: tensor<1x55x55x16xf32>, %w1: tensor<1x1x16x64xf32>, %w3: tensor<3x3x16x64xf32>, %b: tensor<64xf32>) -> tensor<1x55x55x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x55x55x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x55x55x64xf32>) -> tensor<1x55x55x64xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<1x55x55x16xf32>, tensor<1x1x16x64xf32>) outs(%f : tensor<1x55x55x64xf32>) -> tensor<1x55x55x64xf32>
  %r1 = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %b : tensor<1x55x55x64xf32>, tensor<64xf32>) outs(%e : tensor<1x55x55x64xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x55x55x64xf32>
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x55x55x16xf32> to tensor<1x57x57x16xf32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w3 : tensor<1x57x57x16xf32>, tensor<3x3x16x64xf32>) outs(%f : tensor<1x55x55x64xf32>) -> tensor<1x55x55x64xf32>
  %r = tensor.concat dim(3) %r1, %c3 : (tensor<1x55x55x64xf32>, tensor<1x55x55x64xf32>) -> tensor<1x55x55x128xf32>
  return %r : tensor<1x55x55x128xf32>
}

// -----

// An operand that is no convolution's (an elementwise op of an argument),
// or a convolution read by anything else, keeps its own dispatch: only
// the convolution read by nothing but the concatenation joins it.
// FUSED-LABEL: func.func @mixed(
// FUSED: flow.dispatch {{.*}}@mixed_dispatch_0_elementwise_1x8x8x16_f32
// FUSED: %[[SHARED:.*]] = flow.dispatch {{.*}}@mixed_dispatch_1_conv_3x3_16x16_8x8_f32
// FUSED: flow.dispatch {{.*}}@mixed_dispatch_2_conv_3x3_16x16_8x8_concat_f32(%{{.*}}, %[[SHARED]], %{{.*}}, %{{.*}})
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @mixed(%x: tensor<1x8x8x16xf32>, %y: tensor<1x10x10x16xf32>, %w: tensor<3x3x16x16xf32>) -> (tensor<1x8x8x48xf32>, tensor<1x8x8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x16xf32>
  %n = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x8x16xf32>) outs(%e : tensor<1x8x8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %ng = arith.negf %in : f32
    linalg.yield %ng : f32
  } -> tensor<1x8x8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %shared = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%y, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x16xf32>) outs(%f : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %own = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%y, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x16xf32>) outs(%f : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %r = tensor.concat dim(3) %n, %shared, %own : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x48xf32>
  return %r, %shared : tensor<1x8x8x48xf32>, tensor<1x8x8x16xf32>
}

// -----

// Joined along rows rather than channels, a convolution keeps its own
// dispatch: the code generator's bands write whole pixel rows of an operand
// at the concatenation's channel stride only.
// FUSED-LABEL: func.func @along_rows(
// FUSED: flow.dispatch {{.*}}@along_rows_dispatch_{{[0-9]+}}_conv_3x3_16x16_8x8_f32
// FUSED: flow.dispatch {{.*}}@along_rows_dispatch_{{[0-9]+}}_concat_1x16x8x16_f32
func.func @along_rows(%x: tensor<1x8x8x16xf32>, %y: tensor<1x10x10x16xf32>, %w: tensor<3x3x16x16xf32>) -> tensor<1x16x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%y, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x16xf32>) outs(%f : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %r = tensor.concat dim(1) %x, %c : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x16x8x16xf32>
  return %r : tensor<1x16x8x16xf32>
}
