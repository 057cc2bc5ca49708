// --strata-pack-weights on an f32 matmul: the constant 3 x 40 weight is
// stored in 32-column panels, P[j / 32, k, j % 32] = W[k, j] (zeros past
// N = 40), read back through a transpose, a reshape and a slice of the
// first 40 columns. The transpose carries the layout as the packed-weight
// marker (PackedWeightLayout.h): dispatch formation, the llvm-cpu tiling
// and the microkernel rewrite find packed weights by it.
// RUN: strata-opt %s '--strata-pack-weights=panel-columns=32' | FileCheck %s
// RUN: strata-opt %s '--strata-pack-weights=panel-columns=0' | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: func.func @f32_weight(
// CHECK: %[[P:.*]] = arith.constant dense<{{.*}}> : tensor<2x3x32xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x2x32xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[P]] : tensor<2x3x32xf32>) outs(%[[E]] : tensor<3x2x32xf32>) permutation = [1, 0, 2]
// CHECK-SAME: {strata.packed_weight = {depth_group = 0 : i64, panel_columns = 32 : i64}}
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0], [1, 2]] : tensor<3x2x32xf32> into tensor<3x64xf32>
// CHECK: %[[W:.*]] = tensor.extract_slice %[[C]][0, 0] [3, 40] [1, 1] : tensor<3x64xf32> to tensor<3x40xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %[[W]] : tensor<16x3xf32>, tensor<3x40xf32>)
// NONE-LABEL: func.func @f32_weight(
// NONE-NOT: strata.packed_weight
// NONE-NOT: linalg.transpose
// NONE: linalg.matmul
func.func @f32_weight(%a: tensor<16x3xf32>) -> tensor<16x40xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0], [40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0], [80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0]]> : tensor<3x40xf32>
  %e = tensor.empty() : tensor<16x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x40xf32>) -> tensor<16x40xf32>
  %r = linalg.matmul ins(%a, %w : tensor<16x3xf32>, tensor<3x40xf32>) outs(%f : tensor<16x40xf32>) -> tensor<16x40xf32>
  return %r : tensor<16x40xf32>
}
