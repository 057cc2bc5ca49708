// RUN: strata-opt %s --split-input-file --strata-propagate-transposes | FileCheck %s

// A collapse that merges dimensions the transpose leaves in order moves
// above it (a view of the input), so the transpose feeds the batch_matmul
// directly (a key cache read as K^T); a size read of the transposed value
// does not stop it.
// CHECK-LABEL: func.func @keys
// CHECK: %[[C:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2], [3]] : tensor<1x4x?x64xf32> into tensor<4x?x64xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[C]] : tensor<4x?x64xf32>) outs(%{{.*}} : tensor<4x64x?xf32>) permutation = [0, 2, 1]
// CHECK: linalg.batch_matmul ins(%arg0, %[[T]] : tensor<4x?x64xf32>, tensor<4x64x?xf32>)
func.func @keys(%q: tensor<4x?x64xf32>, %k: tensor<1x4x?x64xf32>, %acc: tensor<4x?x?xf32>) -> (tensor<4x?x?xf32>, index) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %k, %c2 : tensor<1x4x?x64xf32>
  %e = tensor.empty(%n) : tensor<1x4x64x?xf32>
  %t = linalg.transpose ins(%k : tensor<1x4x?x64xf32>) outs(%e : tensor<1x4x64x?xf32>) permutation = [0, 1, 3, 2]
  %d = tensor.dim %t, %c3 : tensor<1x4x64x?xf32>
  %kt = tensor.collapse_shape %t [[0, 1], [2], [3]] : tensor<1x4x64x?xf32> into tensor<4x64x?xf32>
  %r = linalg.batch_matmul ins(%q, %kt : tensor<4x?x64xf32>, tensor<4x64x?xf32>) outs(%acc : tensor<4x?x?xf32>) -> tensor<4x?x?xf32>
  return %r, %d : tensor<4x?x?xf32>, index
}

// -----

// A collapse that merges dimensions the transpose swaps stays below it.
// CHECK-LABEL: func.func @swapped
// CHECK: linalg.transpose
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<3x2xf32> into tensor<6xf32>
func.func @swapped(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %c = tensor.collapse_shape %t [[0, 1]] : tensor<3x2xf32> into tensor<6xf32>
  return %c : tensor<6xf32>
}

// -----

// The minimum and maximum of a whole transposed tensor (a dynamically
// quantized layer's range) read the tensor in its own order: the transpose
// goes.
// CHECK-LABEL: func.func @range
// CHECK-NOT: linalg.transpose
// CHECK: %[[C:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2, 3]] : tensor<1x5x7x3xf32> into tensor<105xf32>
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<105xf32>)
// CHECK: arith.minimumf
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<105xf32>)
// CHECK: arith.maximumf
func.func @range(%x: tensor<1x5x7x3xf32>, %init: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %e = tensor.empty() : tensor<1x3x5x7xf32>
  %t = linalg.transpose ins(%x : tensor<1x5x7x3xf32>) outs(%e : tensor<1x3x5x7xf32>) permutation = [0, 3, 1, 2]
  %c = tensor.collapse_shape %t [[0, 1, 2, 3]] : tensor<1x3x5x7xf32> into tensor<105xf32>
  %min = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%c : tensor<105xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.minimumf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%c : tensor<105xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %min, %max : tensor<f32>, tensor<f32>
}

// -----

// A float sum's rounding depends on the order it adds in: a sum of the
// flattened transpose keeps the transpose.
// CHECK-LABEL: func.func @sum
// CHECK: linalg.transpose
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<3x2xf32> into tensor<6xf32>
func.func @sum(%x: tensor<2x3xf32>, %init: tensor<f32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %c = tensor.collapse_shape %t [[0, 1]] : tensor<3x2xf32> into tensor<6xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%c : tensor<6xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Both extremes in one op (DynamicQuantizeLinear's range in one pass): the
// transpose goes too.
// CHECK-LABEL: func.func @range_one_op
// CHECK-NOT: linalg.transpose
// CHECK: %[[C:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2, 3]] : tensor<1x5x7x3xf32> into tensor<105xf32>
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<105xf32>)
func.func @range_one_op(%x: tensor<1x5x7x3xf32>, %init: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %e = tensor.empty() : tensor<1x3x5x7xf32>
  %t = linalg.transpose ins(%x : tensor<1x5x7x3xf32>) outs(%e : tensor<1x3x5x7xf32>) permutation = [0, 3, 1, 2]
  %c = tensor.collapse_shape %t [[0, 1, 2, 3]] : tensor<1x3x5x7xf32> into tensor<105xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%c : tensor<105xf32>) outs(%init, %init : tensor<f32>, tensor<f32>) {
  ^bb0(%in: f32, %a: f32, %b: f32):
    %m = arith.minimumf %a, %in : f32
    %n = arith.maximumf %b, %in : f32
    linalg.yield %m, %n : f32, f32
  } -> (tensor<f32>, tensor<f32>)
  return %r#0, %r#1 : tensor<f32>, tensor<f32>
}

// -----

// One of two results a float sum: the transpose stays.
// CHECK-LABEL: func.func @range_and_sum
// CHECK: linalg.transpose
func.func @range_and_sum(%x: tensor<2x3xf32>, %init: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %c = tensor.collapse_shape %t [[0, 1]] : tensor<3x2xf32> into tensor<6xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%c : tensor<6xf32>) outs(%init, %init : tensor<f32>, tensor<f32>) {
  ^bb0(%in: f32, %a: f32, %b: f32):
    %m = arith.minimumf %a, %in : f32
    %s = arith.addf %b, %in : f32
    linalg.yield %m, %s : f32, f32
  } -> (tensor<f32>, tensor<f32>)
  return %r#0, %r#1 : tensor<f32>, tensor<f32>
}
