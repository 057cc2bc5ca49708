// A convolution whose batch alone is dynamic becomes im2col + matmul only
// when the target asks for it (im2col-dynamic-batch: the portable target,
// whose matmul instruction takes a run-time M): the im2col rows and the
// matmul's M are then dynamic, the host's reshapes carry the batch. By
// default it stays one convolution dispatch. A dynamic spatial size is
// never rewritten.
// RUN: strata-opt --strata-form-dispatches='im2col-min-work=262144 im2col-dynamic-batch=true' --canonicalize --split-input-file %s | FileCheck %s
// RUN: strata-opt --strata-form-dispatches='im2col-min-work=262144' --canonicalize --split-input-file %s | FileCheck %s --check-prefix=STATIC

// CHECK-LABEL: func.func @conv(
// CHECK: %[[COLS:.*]] = flow.dispatch @module_linked_llvm_cpu::@conv_dispatch_0_generic_Dx8x8x3x3x16_f32(%arg0, {{.*}}) : (tensor<?x10x10x16xf32>, index, index, index) -> tensor<?x8x8x3x3x16xf32>
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[COLS]] {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<?x8x8x3x3x16xf32> into tensor<?x144xf32>
// CHECK: %[[M:.*]] = flow.dispatch @module_linked_llvm_cpu::@conv_dispatch_1_matmul_Dx32x144_f32(%[[A]], {{.*}}) : (tensor<?x144xf32>, tensor<144x32xf32>, index, index, index) -> tensor<?x32xf32>
// CHECK: tensor.expand_shape %[[M]] {{\[\[}}0, 1, 2], [3]] output_shape [%{{.*}}, 8, 8, 32] : tensor<?x32xf32> into tensor<?x8x8x32xf32>
// CHECK: func.func @conv_dispatch_1_matmul_Dx32x144_f32
// CHECK: linalg.fill
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x144xf32>, tensor<144x32xf32>)
// STATIC-LABEL: func.func @conv(
// STATIC: flow.dispatch @module_linked_llvm_cpu::@conv_dispatch_0_conv_3x3_16x32_8x8_nD_f32(
// STATIC-NOT: linalg.matmul
func.func @conv(%x: tensor<?x10x10x16xf32>, %w: tensor<3x3x16x32xf32>) -> tensor<?x8x8x32xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x10x10x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x8x8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x10x10x16xf32>, tensor<3x3x16x32xf32>) outs(%f : tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32>
  return %r : tensor<?x8x8x32xf32>
}

// -----

// CHECK-LABEL: func.func @spatial(
// CHECK: flow.dispatch @module_linked_llvm_cpu::@spatial_dispatch_0_conv
// CHECK-NOT: linalg.matmul
func.func @spatial(%x: tensor<1x?x10x16xf32>, %w: tensor<3x3x16x32xf32>, %init: tensor<1x?x8x32xf32>) -> tensor<1x?x8x32xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x?x10x16xf32>, tensor<3x3x16x32xf32>) outs(%init : tensor<1x?x8x32xf32>) -> tensor<1x?x8x32xf32>
  return %r : tensor<1x?x8x32xf32>
}
