// RUN: strata-opt --split-input-file --strata-lower-onnx %s | FileCheck %s

// ReduceMean over the last axis: a sum reduction, then a division; keepdims
// is a reshape.
// CHECK-LABEL: func.func @reduce_mean
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: return %{{.*}} : tensor<2x1xf32>
func.func @reduce_mean(%x: tensor<2x8xf32>) -> tensor<2x1xf32> {
  %0 = onnx.node "ReduceMean"(%x) {attrs = {axes = [-1]}, domain = "", opset = 13 : i64} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// f16 sums accumulate in f32.
// CHECK-LABEL: func.func @reduce_sum_f16
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: arith.extf
// CHECK: arith.truncf
func.func @reduce_sum_f16(%x: tensor<2x8xf16>) -> tensor<2xf16> {
  %axes = arith.constant dense<1> : tensor<1xi64>
  %0 = onnx.node "ReduceSum"(%x, %axes) {attrs = {keepdims = 0 : i64}, domain = "", opset = 13 : i64} : (tensor<2x8xf16>, tensor<1xi64>) -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

// Softmax: one linalg.softmax over the axis (-1 by default from opset 13).
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x5xf32>
// CHECK: %[[R:.*]] = linalg.softmax dimension(1) ins(%[[X]] : tensor<2x5xf32>) outs(%[[E]] : tensor<2x5xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = onnx.node "Softmax"(%x) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Softmax of f16: computed in f32 between two conversions; before opset
// 13 over the input flattened to 2-D at the axis (1 by default).
// CHECK-LABEL: func.func @softmax_f16_opset11
// CHECK: tensor.expand_shape %{{.*}} output_shape [2, 12] : tensor<24xf16> into tensor<2x12xf16>
// CHECK: arith.extf
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : tensor<2x12xf32>)
// CHECK: arith.truncf
// CHECK: tensor.expand_shape
func.func @softmax_f16_opset11(%x: tensor<2x3x4xf16>) -> tensor<2x3x4xf16> {
  %0 = onnx.node "Softmax"(%x) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<2x3x4xf16>) -> tensor<2x3x4xf16>
  return %0 : tensor<2x3x4xf16>
}

// -----

// LogSoftmax stays x - max - log(sum(exp(x - max))): log(softmax(x)) would
// give -inf where exp underflows.
// CHECK-LABEL: func.func @log_softmax
// CHECK-NOT: linalg.softmax
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: math.log
// CHECK: arith.subf
func.func @log_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = onnx.node "LogSoftmax"(%x) {attrs = {}, domain = "", opset = 13 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// ArgMax: the first index holding the maximum, as i64.
// CHECK-LABEL: func.func @argmax
// CHECK: arith.maximumf
// CHECK: arith.cmpf oeq
// CHECK: arith.minsi
// CHECK: return %{{.*}} : tensor<2xi64>
func.func @argmax(%x: tensor<2x5xf32>) -> tensor<2xi64> {
  %0 = onnx.node "ArgMax"(%x) {attrs = {axis = 1 : i64, keepdims = 0 : i64}, domain = "", opset = 13 : i64} : (tensor<2x5xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// LayerNormalization over the last axis with scale and bias: f32 input
// in one pass, its sum and sum of squares accumulated in f64 by one
// reduction; per row the mean and 1 / sqrt(max(E[x^2] - mean^2, 0) + eps)
// in f64, rounded to f32; then (x - mean) * invstd * scale + bias.
// CHECK-LABEL: func.func @layernorm
// CHECK: %[[SUMS:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}ins(%{{.*}} : tensor<2x4xf32>) outs(%{{.*}}, %{{.*}} : tensor<2xf64>, tensor<2xf64>)
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: %[[STATS:.*]]:2 = linalg.generic {{.*}}ins(%[[SUMS]]#0, %[[SUMS]]#1 : tensor<2xf64>, tensor<2xf64>) outs(%{{.*}}, %{{.*}} : tensor<2xf32>, tensor<2xf32>)
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f64
// CHECK: math.sqrt %{{.*}} : f64
// CHECK: arith.truncf
// CHECK: arith.truncf
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK-NOT: linalg.generic
// CHECK: return %{{.*}} : tensor<2x4xf32>
func.func @layernorm(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = onnx.node "LayerNormalization"(%x, %s, %b) {attrs = {epsilon = 1.0e-5 : f32}, domain = "", opset = 17 : i64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// An f64 input keeps the two passes (the mean, then the sum of squares of
// the centred values): f64 has no wider type to take E[x^2] - mean^2 in.
// CHECK-LABEL: func.func @layernorm_f64
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}outs(%{{.*}} : tensor<2xf64>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}outs(%{{.*}} : tensor<2xf64>)
// CHECK: math.sqrt %{{.*}} : f64
// CHECK: return %{{.*}} : tensor<2x4xf64>
func.func @layernorm_f64(%x: tensor<2x4xf64>, %s: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<2x4xf64> {
  %0 = onnx.node "LayerNormalization"(%x, %s, %b) {attrs = {epsilon = 1.0e-5 : f32}, domain = "", opset = 17 : i64} : (tensor<2x4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<2x4xf64>
  return %0 : tensor<2x4xf64>
}

// -----

// TopK with a constant K above the 64 rounds the unrolled form takes: the
// rank form, with static results.
// CHECK-LABEL: func.func @topk_large_k
// CHECK-NOT: cf.assert
// CHECK: linalg.generic {{.*}}outs(%{{.*}} : tensor<2x100xi64>)
// CHECK: linalg.generic {{.*}}outs(%{{.*}}, %{{.*}} : tensor<2x70xf32>, tensor<2x70xi64>)
func.func @topk_large_k(%x: tensor<2x100xf32>) -> (tensor<2x70xf32>, tensor<2x70xi64>) {
  %k = arith.constant dense<70> : tensor<1xi64>
  %0:2 = onnx.node "TopK"(%x, %k) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<2x100xf32>, tensor<1xi64>) -> (tensor<2x70xf32>, tensor<2x70xi64>)
  return %0#0, %0#1 : tensor<2x70xf32>, tensor<2x70xi64>
}

// -----

// ReduceMax/ReduceMin-20 of bool: an unsigned order on i1, so the maximum
// is "any" (from false) and the minimum "all" (from true).
// CHECK-LABEL: func.func @reduce_bool
// CHECK: %[[F:.*]] = arith.constant false
// CHECK: linalg.fill ins(%[[F]] : i1)
// CHECK: arith.maxui %{{.*}}, %{{.*}} : i1
// CHECK: %[[T:.*]] = arith.constant true
// CHECK: linalg.fill ins(%[[T]] : i1)
// CHECK: arith.minui %{{.*}}, %{{.*}} : i1
func.func @reduce_bool(%x: tensor<3x4xi1>) -> (tensor<3x1xi1>, tensor<3x1xi1>) {
  %axes = arith.constant dense<[1]> : tensor<1xi64>
  %0 = onnx.node "ReduceMax"(%x, %axes) {attrs = {}, domain = "", opset = 20 : i64} : (tensor<3x4xi1>, tensor<1xi64>) -> tensor<3x1xi1>
  %1 = onnx.node "ReduceMin"(%x, %axes) {attrs = {}, domain = "", opset = 20 : i64} : (tensor<3x4xi1>, tensor<1xi64>) -> tensor<3x1xi1>
  return %0, %1 : tensor<3x1xi1>, tensor<3x1xi1>
}
