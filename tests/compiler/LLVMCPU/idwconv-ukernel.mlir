// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=64 matmul-ukernel=avx512vnni' | FileCheck %s --check-prefix=VNNI
// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=32 matmul-ukernel=avx2' | FileCheck %s --check-prefix=AVX2
// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=64' | FileCheck %s --check-prefix=NONE

// A quantized depthwise layer as QDQFusion.cpp writes it (a u8 input
// shifted to i8, padded with the zero point's A' = -128, an i8 x i8 -> i32
// depthwise convolution, its requantization to u8 and the next layer's
// shift, xori 0x80): one call of the int8 depthwise microkernel per
// workgroup with flags 4 (STRATA_IGEMM_REQUANTIZE, overwrite), reading the
// input in place with the pad value -128, storing i8 itself (no i32
// temporary, no loop after the call); the shift is folded into the
// requantization: zero 3 - 128, lo 0 - 128, hi 255 - 128 as f32 bits.
// VNNI-LABEL: llvm.func @dwconv_requantized
// VNNI-DAG: %[[PAD:.*]] = llvm.mlir.constant(-128 : i64) : i64
// VNNI-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(4 : i64) : i64
// VNNI-DAG: %[[ZERO:.*]] = llvm.mlir.constant(3271163904 : i64) : i64
// VNNI-DAG: %[[LO:.*]] = llvm.mlir.constant(3271557120 : i64) : i64
// VNNI-DAG: %[[HI:.*]] = llvm.mlir.constant(1123942400 : i64) : i64
// VNNI: llvm.call @strata_ukernel_idwconv_s8(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PAD]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]], %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %[[LO]], %[[HI]])
// VNNI-NOT: llvm.intr.roundeven
// VNNI: llvm.func @strata_ukernel_idwconv_s8(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// AVX2-LABEL: llvm.func @dwconv_requantized
// AVX2-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(4 : i64) : i64
// AVX2: llvm.call @strata_ukernel_idwconv_s8(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]],
// AVX2-NOT: llvm.intr.roundeven
// Without a microkernel: loops, with the requantization's rounding.
// NONE-LABEL: llvm.func @dwconv_requantized
// NONE-NOT: strata_ukernel
// NONE: llvm.intr.roundeven
func.func @dwconv_requantized(%x: tensor<1x20x20x48xi8>, %w: tensor<3x3x48xi8>, %adjust: tensor<48xi32>, %multiplier: tensor<48xf32>) -> tensor<1x20x20x48xi8> {
  %zero = arith.constant 0 : i32
  %pad = arith.constant -128 : i8
  %flip = arith.constant -128 : i8
  %zp = arith.constant 3.0 : f32
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 255.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %pad : i8
  } : tensor<1x20x20x48xi8> to tensor<1x22x22x48xi8>
  %e = tensor.empty() : tensor<1x20x20x48xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x20x20x48xi32>) -> tensor<1x20x20x48xi32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x22x22x48xi8>, tensor<3x3x48xi8>) outs(%f : tensor<1x20x20x48xi32>) -> tensor<1x20x20x48xi32>
  %e8 = tensor.empty() : tensor<1x20x20x48xi8>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r, %adjust, %multiplier : tensor<1x20x20x48xi32>, tensor<48xi32>, tensor<48xf32>) outs(%e8 : tensor<1x20x20x48xi8>) {
  ^bb0(%acc: i32, %adj: i32, %mul: f32, %out: i8):
    %s = arith.addi %acc, %adj : i32
    %sf = arith.sitofp %s : i32 to f32
    %scaled = arith.mulf %sf, %mul : f32
    %rounded = math.roundeven %scaled : f32
    %shifted = arith.addf %rounded, %zp : f32
    %low = arith.maximumf %shifted, %lo : f32
    %high = arith.minimumf %low, %hi : f32
    %i = arith.fptosi %high : f32 to i32
    %q = arith.trunci %i : i32 to i8
    %u = arith.xori %q, %flip : i8
    linalg.yield %u : i8
  } -> tensor<1x20x20x48xi8>
  return %y : tensor<1x20x20x48xi8>
}

// -----

// Without its requantization (an i32 result): the call stores i32 (flags
// 0: the zero fill folded).
// VNNI-LABEL: llvm.func @dwconv_i32
// VNNI-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(0 : i64) : i64
// VNNI: llvm.call @strata_ukernel_idwconv_s8(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]],
// AVX2-LABEL: llvm.func @dwconv_i32
// NONE-LABEL: llvm.func @dwconv_i32
// NONE-NOT: strata_ukernel
func.func @dwconv_i32(%x: tensor<1x20x20x48xi8>, %w: tensor<3x3x48xi8>) -> tensor<1x9x9x48xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x9x9x48xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x9x9x48xi32>) -> tensor<1x9x9x48xi32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x20x20x48xi8>, tensor<3x3x48xi8>) outs(%f : tensor<1x9x9x48xi32>) -> tensor<1x9x9x48xi32>
  return %r : tensor<1x9x9x48xi32>
}
