// --strata-pack-weights on int8 matmuls (a quantized layer's contraction):
// the constant i8 weight is stored in the int8 microkernel's panels (here
// vpdpbusd's: 32 columns, depth groups of 4), P[j / 32, d / 4, j % 32, d % 4]
// = W[d, j], zeros past K = 7 and N = 40, and read back through a
// transpose, a reshape and a slice of the first 7 x 40.
// RUN: strata-opt %s '--strata-pack-weights=int8-panel-columns=32 int8-depth-group=4' | FileCheck %s
// RUN: strata-opt %s '--strata-pack-weights=panel-columns=32' | FileCheck %s --check-prefix=NONE
// RUN: strata-opt %s '--strata-pack-weights=int8-panel-columns=32 int8-depth-group=4 int8-depth-multiple=64' | FileCheck %s --check-prefix=AMX

// CHECK-LABEL: func.func @int8_weight(
// The panels, in hex: column 0's depth 0-3, column 1's, ... then depth group
// 1: column 0's depth 4-6 and a zero, column 1's...
// CHECK: %[[P:.*]] = arith.constant dense<"0x0001020308090A0B{{[0-9A-F]+}}040506000C0D0E00{{[0-9A-F]+}}"> : tensor<2x2x32x4xi8>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4x2x32xi8>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[P]] : tensor<2x2x32x4xi8>) outs(%[[E]] : tensor<2x4x2x32xi8>) permutation = [1, 3, 0, 2]
// The transpose carries the layout as the packed-weight marker, which the
// code generator reads (PackedWeightLayout.h).
// CHECK-SAME: {strata.packed_weight = {depth_group = 4 : i64, panel_columns = 32 : i64}}
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2, 3]] : tensor<2x4x2x32xi8> into tensor<8x64xi8>
// CHECK: %[[W:.*]] = tensor.extract_slice %[[C]][0, 0] [7, 40] [1, 1] : tensor<8x64xi8> to tensor<7x40xi8>
// CHECK: linalg.matmul ins(%{{.*}}, %[[W]] : tensor<49x7xi8>, tensor<7x40xi8>)
// For AMX tiles the depth is padded to a multiple of 64 (16 groups of 4,
// all zero past K = 7), so every B tile of 64 of depth is whole.
// AMX-LABEL: func.func @int8_weight(
// AMX: %[[P:.*]] = arith.constant dense<"0x0001020308090A0B{{[0-9A-F]+}}040506000C0D0E00{{[0-9A-F]+}}"> : tensor<2x16x32x4xi8>
// AMX: %[[T:.*]] = linalg.transpose ins(%[[P]] : tensor<2x16x32x4xi8>) outs(%{{.*}} : tensor<16x4x2x32xi8>) permutation = [1, 3, 0, 2]
// AMX-SAME: {strata.packed_weight = {depth_group = 4 : i64, panel_columns = 32 : i64}}
// AMX: %[[C:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2, 3]] : tensor<16x4x2x32xi8> into tensor<64x64xi8>
// AMX: %[[W:.*]] = tensor.extract_slice %[[C]][0, 0] [7, 40] [1, 1] : tensor<64x64xi8> to tensor<7x40xi8>
// AMX: linalg.matmul ins(%{{.*}}, %[[W]] : tensor<49x7xi8>, tensor<7x40xi8>)
// NONE-LABEL: func.func @int8_weight(
// NONE-NOT: linalg.transpose
// NONE: linalg.matmul
func.func @int8_weight(%a: tensor<49x7xi8>) -> tensor<49x40xi32> {
  %zero = arith.constant 0 : i32
  %w = arith.constant dense<[[0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 0, 8, 16, 24, 32, 40, 48, 56], [1, 9, 17, 25, 33, 41, 49, 57, 65, 73, 81, 89, 97, 105, 113, 121, 1, 9, 17, 25, 33, 41, 49, 57, 65, 73, 81, 89, 97, 105, 113, 121, 1, 9, 17, 25, 33, 41, 49, 57], [2, 10, 18, 26, 34, 42, 50, 58, 66, 74, 82, 90, 98, 106, 114, 122, 2, 10, 18, 26, 34, 42, 50, 58, 66, 74, 82, 90, 98, 106, 114, 122, 2, 10, 18, 26, 34, 42, 50, 58], [3, 11, 19, 27, 35, 43, 51, 59, 67, 75, 83, 91, 99, 107, 115, 123, 3, 11, 19, 27, 35, 43, 51, 59, 67, 75, 83, 91, 99, 107, 115, 123, 3, 11, 19, 27, 35, 43, 51, 59], [4, 12, 20, 28, 36, 44, 52, 60, 68, 76, 84, 92, 100, 108, 116, 124, 4, 12, 20, 28, 36, 44, 52, 60, 68, 76, 84, 92, 100, 108, 116, 124, 4, 12, 20, 28, 36, 44, 52, 60], [5, 13, 21, 29, 37, 45, 53, 61, 69, 77, 85, 93, 101, 109, 117, 125, 5, 13, 21, 29, 37, 45, 53, 61, 69, 77, 85, 93, 101, 109, 117, 125, 5, 13, 21, 29, 37, 45, 53, 61], [6, 14, 22, 30, 38, 46, 54, 62, 70, 78, 86, 94, 102, 110, 118, 126, 6, 14, 22, 30, 38, 46, 54, 62, 70, 78, 86, 94, 102, 110, 118, 126, 6, 14, 22, 30, 38, 46, 54, 62]]> : tensor<7x40xi8>
  %e = tensor.empty() : tensor<49x40xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<49x40xi32>) -> tensor<49x40xi32>
  %r = linalg.matmul ins(%a, %w : tensor<49x7xi8>, tensor<7x40xi8>) outs(%f : tensor<49x40xi32>) -> tensor<49x40xi32>
  return %r : tensor<49x40xi32>
}
