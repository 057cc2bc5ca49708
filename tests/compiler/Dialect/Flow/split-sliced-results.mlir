// RUN: strata-opt --strata-split-sliced-results --split-input-file %s | FileCheck %s

// An attention's projection: one matmul of 6 columns, its bias added after
// a reshape, read as three slices of 2 columns. Each slice becomes its own
// matmul on its columns of the weight and its own bias add, the weight and
// the bias sliced at compile time; nothing reads the whole any more.
// CHECK-LABEL: func.func @qkv(
// CHECK-SAME: %[[X:.*]]: tensor<4x3xf32>
// CHECK-NOT: tensor.extract_slice
// CHECK-NOT: tensor<4x6xf32>
// CHECK-DAG: %[[W0:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [7.000000e+00, 8.000000e+00], [1.300000e+01, 1.400000e+01]]> : tensor<3x2xf32>
// CHECK-DAG: %[[B0:.*]] = arith.constant dense<[1.000000e-01, 2.000000e-01]> : tensor<2xf32>
// CHECK: %[[M0:.*]] = linalg.matmul ins(%[[X]], %[[W0]] : tensor<4x3xf32>, tensor<3x2xf32>) outs(%{{.*}} : tensor<4x2xf32>)
// CHECK: %[[E0:.*]] = tensor.expand_shape %[[M0]] {{\[}}[0, 1], [2]] output_shape [2, 2, 2] : tensor<4x2xf32> into tensor<2x2x2xf32>
// CHECK: %[[Q:.*]] = linalg.generic {{.*}} ins(%[[B0]], %[[E0]] : tensor<2xf32>, tensor<2x2x2xf32>)
// CHECK-DAG: %[[W1:.*]] = arith.constant dense<{{\[}}[3.000000e+00, 4.000000e+00], [9.000000e+00, 1.000000e+01], [1.500000e+01, 1.600000e+01]]> : tensor<3x2xf32>
// CHECK-DAG: %[[B1:.*]] = arith.constant dense<[3.000000e-01, 4.000000e-01]> : tensor<2xf32>
// CHECK: %[[M1:.*]] = linalg.matmul ins(%[[X]], %[[W1]] : tensor<4x3xf32>, tensor<3x2xf32>)
// CHECK: %[[E1:.*]] = tensor.expand_shape %[[M1]]
// CHECK: %[[K:.*]] = linalg.generic {{.*}} ins(%[[B1]], %[[E1]] : tensor<2xf32>, tensor<2x2x2xf32>)
// CHECK-DAG: %[[W2:.*]] = arith.constant dense<{{\[}}[5.000000e+00, 6.000000e+00], [1.100000e+01, 1.200000e+01], [1.700000e+01, 1.800000e+01]]> : tensor<3x2xf32>
// CHECK: %[[M2:.*]] = linalg.matmul ins(%[[X]], %[[W2]] : tensor<4x3xf32>, tensor<3x2xf32>)
// CHECK: %[[V:.*]] = linalg.generic
// CHECK: return %[[Q]], %[[K]], %[[V]]
#bias = affine_map<(d0, d1, d2) -> (d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @qkv(%x: tensor<4x3xf32>) -> (tensor<2x2x2xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>) {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [7.0, 8.0, 9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0, 17.0, 18.0]]> : tensor<3x6xf32>
  %b = arith.constant dense<[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]> : tensor<6xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x3xf32>, tensor<3x6xf32>) outs(%fill : tensor<4x6xf32>) -> tensor<4x6xf32>
  %x3 = tensor.expand_shape %mm [[0, 1], [2]] output_shape [2, 2, 6] : tensor<4x6xf32> into tensor<2x2x6xf32>
  %e3 = tensor.empty() : tensor<2x2x6xf32>
  %add = linalg.generic {indexing_maps = [#bias, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b, %x3 : tensor<6xf32>, tensor<2x2x6xf32>) outs(%e3 : tensor<2x2x6xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.addf %in, %in_0 : f32
    linalg.yield %s : f32
  } -> tensor<2x2x6xf32>
  %q = tensor.extract_slice %add[0, 0, 0] [2, 2, 2] [1, 1, 1] : tensor<2x2x6xf32> to tensor<2x2x2xf32>
  %k = tensor.extract_slice %add[0, 0, 2] [2, 2, 2] [1, 1, 1] : tensor<2x2x6xf32> to tensor<2x2x2xf32>
  %v = tensor.extract_slice %add[0, 0, 4] [2, 2, 2] [1, 1, 1] : tensor<2x2x6xf32> to tensor<2x2x2xf32>
  return %q, %k, %v : tensor<2x2x2xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>
}

// -----

// Rows of any count (a sequence), the whole dimension read back with
// tensor.dim or given as the size the rows were made with; named elementwise ops, a splat bias, a collapse of a unit
// dimension, and a part nobody reads (columns 2..3): it is not computed.
// CHECK-LABEL: func.func @dynamic_rows(
// CHECK-SAME: %[[X:.*]]: tensor<?x3xf32>
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[W0:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [7.000000e+00, 8.000000e+00], [1.300000e+01, 1.400000e+01]]> : tensor<3x2xf32>
// CHECK: %[[M0:.*]] = linalg.matmul ins(%[[X]], %[[W0]] : tensor<?x3xf32>, tensor<3x2xf32>) outs(%{{.*}} : tensor<?x2xf32>)
// CHECK: %[[C0:.*]] = tensor.collapse_shape
// CHECK-SAME: tensor<?x1x2xf32> into tensor<?x2xf32>
// CHECK: %[[ONES:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x2xf32>)
// CHECK: %[[A:.*]] = linalg.add ins(%[[C0]], %[[ONES]] : tensor<?x2xf32>, tensor<?x2xf32>)
// CHECK: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<2xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[HALF]] : tensor<?x2xf32>, tensor<2xf32>)
// CHECK: %[[W2:.*]] = arith.constant dense<{{\[}}[5.000000e+00, 6.000000e+00], [1.100000e+01, 1.200000e+01], [1.700000e+01, 1.800000e+01]]> : tensor<3x2xf32>
// CHECK: linalg.matmul ins(%[[X]], %[[W2]] : tensor<?x3xf32>, tensor<3x2xf32>)
// CHECK-NOT: tensor<3x6xf32>
func.func @dynamic_rows(%x: tensor<?x3xf32>) -> (tensor<?x2xf32>, tensor<?x2xf32>) {
  %c0 = arith.constant 0 : index
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [7.0, 8.0, 9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0, 17.0, 18.0]]> : tensor<3x6xf32>
  %b = arith.constant dense<0.5> : tensor<6xf32>
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x3xf32>
  %e = tensor.empty(%n) : tensor<?x6xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<?x6xf32>) -> tensor<?x6xf32>
  %ones = linalg.fill ins(%one : f32) outs(%e : tensor<?x6xf32>) -> tensor<?x6xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x3xf32>, tensor<3x6xf32>) outs(%fill : tensor<?x6xf32>) -> tensor<?x6xf32>
  %x3 = tensor.expand_shape %mm [[0], [1, 2]] output_shape [%n, 1, 6] : tensor<?x6xf32> into tensor<?x1x6xf32>
  %flat = tensor.collapse_shape %x3 [[0], [1, 2]] : tensor<?x1x6xf32> into tensor<?x6xf32>
  %sum = linalg.add ins(%flat, %ones : tensor<?x6xf32>, tensor<?x6xf32>) outs(%e : tensor<?x6xf32>) -> tensor<?x6xf32>
  %add = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sum, %b : tensor<?x6xf32>, tensor<6xf32>) outs(%e : tensor<?x6xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.mulf %in, %in_0 : f32
    linalg.yield %s : f32
  } -> tensor<?x6xf32>
  %m = tensor.dim %add, %c0 : tensor<?x6xf32>
  %q = tensor.extract_slice %add[0, 0] [%m, 2] [1, 1] : tensor<?x6xf32> to tensor<?x2xf32>
  %v = tensor.extract_slice %add[0, 4] [%n, 2] [1, 1] : tensor<?x6xf32> to tensor<?x2xf32>
  return %q, %v : tensor<?x2xf32>, tensor<?x2xf32>
}

// -----

// Left as they are: a weight known only at run time (its slices would be
// copies), a result also read whole, overlapping slices, and slices along
// a matmul's rows.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-2: tensor.extract_slice %{{.*}} : tensor<4x6xf32> to tensor<4x3xf32>
// CHECK: linalg.matmul {{.*}} -> tensor<4x6xf32>
// CHECK-COUNT-2: tensor.extract_slice %{{.*}} : tensor<4x6xf32> to tensor<4x3xf32>
// CHECK: linalg.matmul {{.*}} -> tensor<4x6xf32>
// CHECK-COUNT-2: tensor.extract_slice %{{.*}} : tensor<4x6xf32> to tensor<4x4xf32>
// CHECK: linalg.matmul {{.*}} -> tensor<4x6xf32>
// CHECK-COUNT-2: tensor.extract_slice %{{.*}} : tensor<4x6xf32> to tensor<2x6xf32>
func.func @kept(%x: tensor<4x3xf32>, %wr: tensor<3x6xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x6xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<2x6xf32>, tensor<2x6xf32>) {
  %w = arith.constant dense<1.5> : tensor<3x6xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %m0 = linalg.matmul ins(%x, %wr : tensor<4x3xf32>, tensor<3x6xf32>) outs(%fill : tensor<4x6xf32>) -> tensor<4x6xf32>
  %a0 = tensor.extract_slice %m0[0, 0] [4, 3] [1, 1] : tensor<4x6xf32> to tensor<4x3xf32>
  %a1 = tensor.extract_slice %m0[0, 3] [4, 3] [1, 1] : tensor<4x6xf32> to tensor<4x3xf32>
  %m1 = linalg.matmul ins(%x, %w : tensor<4x3xf32>, tensor<3x6xf32>) outs(%fill : tensor<4x6xf32>) -> tensor<4x6xf32>
  %b0 = tensor.extract_slice %m1[0, 0] [4, 3] [1, 1] : tensor<4x6xf32> to tensor<4x3xf32>
  %b1 = tensor.extract_slice %m1[0, 3] [4, 3] [1, 1] : tensor<4x6xf32> to tensor<4x3xf32>
  %m2 = linalg.matmul ins(%x, %w : tensor<4x3xf32>, tensor<3x6xf32>) outs(%fill : tensor<4x6xf32>) -> tensor<4x6xf32>
  %c0 = tensor.extract_slice %m2[0, 0] [4, 4] [1, 1] : tensor<4x6xf32> to tensor<4x4xf32>
  %c1 = tensor.extract_slice %m2[0, 2] [4, 4] [1, 1] : tensor<4x6xf32> to tensor<4x4xf32>
  %m3 = linalg.matmul ins(%x, %w : tensor<4x3xf32>, tensor<3x6xf32>) outs(%fill : tensor<4x6xf32>) -> tensor<4x6xf32>
  %d0 = tensor.extract_slice %m3[0, 0] [2, 6] [1, 1] : tensor<4x6xf32> to tensor<2x6xf32>
  %d1 = tensor.extract_slice %m3[2, 0] [2, 6] [1, 1] : tensor<4x6xf32> to tensor<2x6xf32>
  return %a0, %a1, %b0, %b1, %m1, %c0, %c1, %d0, %d1 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x6xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<2x6xf32>, tensor<2x6xf32>
}

// -----

// A weight stored as a resource blob (as large ONNX initializers are):
// its slices are cut from the blob's bytes.
// CHECK-LABEL: func.func @resource_weight(
// CHECK-DAG: arith.constant dense<{{\[}}[1.000000e+00], [3.000000e+00]]> : tensor<2x1xf32>
// CHECK-DAG: arith.constant dense<{{\[}}[2.000000e+00], [4.000000e+00]]> : tensor<2x1xf32>
// CHECK-NOT: tensor.extract_slice
func.func @resource_weight(%x: tensor<3x2xf32>) -> (tensor<3x1xf32>, tensor<3x1xf32>) {
  %w = arith.constant dense_resource<weight> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%fill : tensor<3x2xf32>) -> tensor<3x2xf32>
  %a = tensor.extract_slice %mm[0, 0] [3, 1] [1, 1] : tensor<3x2xf32> to tensor<3x1xf32>
  %b = tensor.extract_slice %mm[0, 1] [3, 1] [1, 1] : tensor<3x2xf32> to tensor<3x1xf32>
  return %a, %b : tensor<3x1xf32>, tensor<3x1xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weight: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
