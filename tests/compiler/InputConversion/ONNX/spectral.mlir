// RUN: strata-opt --split-input-file --strata-lower-onnx %s | FileCheck %s

// STFT with a constant step and a window: the twiddle factors are
// constants made at compile time; one contraction over the frame's
// samples reads the signal at f * step + t.
// CHECK-DAG: #[[TW:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d4)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d4)>
// CHECK-LABEL: func.func @stft_constant
// CHECK: %[[COS:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00{{.*}}> : tensor<5x8xf32>
// CHECK: %[[SIN:.*]] = arith.constant dense<{{\[\[}}0.000000e+00{{.*}}> : tensor<5x8xf32>
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: linalg.generic {indexing_maps = [#[[TW]], #[[TW]], #[[WIN]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[COS]], %[[SIN]], %{{.*}} : tensor<5x8xf32>, tensor<5x8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<1x3x5x2xf32>)
// CHECK: %[[F:.*]] = linalg.index 1
// CHECK: %[[T:.*]] = linalg.index 4
// CHECK: %[[FS:.*]] = arith.muli %[[F]], %[[C4]]
// CHECK: %[[AT:.*]] = arith.addi %[[FS]], %[[T]]
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[AT]], %{{.*}}] : tensor<1x16x1xf32>
func.func @stft_constant(%x: tensor<1x16x1xf32>, %w: tensor<8xf32>) -> tensor<1x3x5x2xf32> {
  %s = arith.constant dense<4> : tensor<i64>
  %0 = onnx.node "STFT"(%x, %s, %w) {attrs = {}, domain = "", opset = 17 : i64} : (tensor<1x16x1xf32>, tensor<i64>, tensor<8xf32>) -> tensor<1x3x5x2xf32>
  return %0 : tensor<1x3x5x2xf32>
}

// -----

// STFT with a run-time step and frame_length: both are read on the host
// and checked there, the result's frames and bins are dynamic, and the
// twiddle factors are made by kernels (exact at the quarter turns).
// CHECK-LABEL: func.func @stft_runtime
// CHECK: cf.assert %{{.*}}, "onnx node 'st' (STFT, opset 17): frame_length is outside [1, 16] (the signal's length) at run time"
// CHECK: cf.assert %{{.*}}, "onnx node 'st' (STFT, opset 17): frame_step is not positive at run time"
// CHECK: arith.divui
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// CHECK: math.cos
// CHECK: arith.select
// CHECK: math.sin
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<1x?x?x2xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<1x?x?x2xf32>)
func.func @stft_runtime(%x: tensor<1x16x1xf32>, %s: tensor<i64>, %l: tensor<i64>) -> tensor<?x?x?x?xf32> {
  %none = onnx.none : none
  %0 = onnx.node "STFT"(%x, %s, %none, %l) {attrs = {}, domain = "", node_name = "st", opset = 17 : i64} : (tensor<1x16x1xf32>, tensor<i64>, none, tensor<i64>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// MelWeightMatrix of constants folds to its matrix (ONNX's node test: 8
// bands over a 16-point DFT at 8192 Hz, 0 to 4096 Hz).
// CHECK-LABEL: func.func @mel_constant
// CHECK: arith.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]{{.*}}> : tensor<9x8xf32>
// CHECK-NOT: linalg
func.func @mel_constant() -> tensor<9x8xf32> {
  %m = arith.constant dense<8> : tensor<i32>
  %d = arith.constant dense<16> : tensor<i32>
  %r = arith.constant dense<8192> : tensor<i32>
  %lo = arith.constant dense<0.0> : tensor<f32>
  %hi = arith.constant dense<4096.0> : tensor<f32>
  %0 = onnx.node "MelWeightMatrix"(%m, %d, %r, %lo, %hi) {attrs = {}, domain = "", opset = 17 : i64} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<9x8xf32>
  return %0 : tensor<9x8xf32>
}

// -----

// MelWeightMatrix of run-time values: the sizes on the host, the weights
// by a kernel in f64.
// CHECK-LABEL: func.func @mel_runtime
// CHECK: cf.assert %{{.*}}, "onnx node 'mel' (MelWeightMatrix, opset 17): num_mel_bins, dft_length and sample_rate are not all from 1 to 2^40 at run time"
// CHECK: cf.assert %{{.*}}, "onnx node 'mel' (MelWeightMatrix, opset 17): lower_edge_hertz and upper_edge_hertz are not edges 0 <= lower <= upper at run time"
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// CHECK: linalg.generic
// CHECK: math.log10 %{{.*}} : f64
// CHECK: math.exp %{{.*}} : f64
// CHECK: math.floor %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @mel_runtime(%m: tensor<i64>, %d: tensor<i64>, %r: tensor<i64>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<?x?xf32> {
  %0 = onnx.node "MelWeightMatrix"(%m, %d, %r, %lo, %hi) {attrs = {}, domain = "", node_name = "mel", opset = 17 : i64} : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Det: one kernel over the batch whose body factors each 3 x 3 matrix,
// unrolled: 9 reads, pivots chosen by |a[i][k]|, rows swapped by selects.
// CHECK-LABEL: func.func @det
// CHECK: linalg.generic {indexing_maps = [{{.*}}], iterator_types = ["parallel"]} outs(%{{.*}} : tensor<4xf32>)
// CHECK-COUNT-9: tensor.extract %{{.*}} : tensor<4x3x3xf32>
// CHECK: math.absf
// CHECK: arith.cmpf ogt
// CHECK: arith.negf
// CHECK: arith.cmpf oeq
// CHECK: arith.divf
// CHECK: linalg.yield
func.func @det(%x: tensor<4x3x3xf32>) -> tensor<4xf32> {
  %0 = onnx.node "Det"(%x) {attrs = {}, domain = "", opset = 11 : i64} : (tensor<4x3x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
