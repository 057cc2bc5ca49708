// RUN: strata-opt --split-input-file --strata-lower-onnx %s | FileCheck %s

// MaxPool's Indices: a second reduction over the window's taps, reading
// the padded input where the pool does and the pool's maxima; the least
// flat index of a tap holding the maximum inside the input (column major
// with storage_order 1: the height's position times 1, the width's times
// the height 5).
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d3)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @maxpool_indices
// CHECK: %[[MAX:.*]] = linalg.pooling_nhwc_max
// CHECK: %[[NONE:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<1x2x2x2xi64>)
// CHECK: %[[IDX:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[K]], #[[O]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}}, %[[MAX]] : tensor<1x5x5x2xf32>, tensor<2x2xf32>, tensor<1x2x2x2xf32>) outs(%[[NONE]] : tensor<1x2x2x2xi64>)
// CHECK: arith.cmpf oeq
// CHECK: arith.muli %{{.*}}, %c5_i64
// CHECK: arith.minsi
// CHECK: linalg.transpose ins(%[[IDX]] : tensor<1x2x2x2xi64>) {{.*}} permutation = [0, 3, 1, 2]
func.func @maxpool_indices(%x: tensor<1x2x5x5xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) {
  %y, %i = onnx.node "MaxPool"(%x) {attrs = {kernel_shape = [2, 2], strides = [2, 2], storage_order = 1 : i64}, domain = "", opset = 12 : i64} : (tensor<1x2x5x5xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  return %y, %i : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>
}

// -----

// MaxUnpool with a run-time output_shape: the sizes are read and checked
// on the host; each output element searches its (n, c) plane of the
// indices for its flat index in the inferred 4 x 4 shape.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @maxunpool
// CHECK: cf.assert %{{.*}}, "onnx node 'u' (MaxUnpool, opset 11): output_shape is not the input's N and C and spatial sizes from the unpooled ones to 2^40 at run time"
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<1x1x?x?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) outs(%{{.*}} : tensor<1x1x?x?xf32>)
// CHECK: arith.cmpi slt, %{{.*}}, %c4_i64
// CHECK: arith.cmpi eq
// CHECK: arith.select
func.func @maxunpool(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>, %s: tensor<4xi64>) -> tensor<?x?x?x?xf32> {
  %0 = onnx.node "MaxUnpool"(%x, %i, %s) {attrs = {kernel_shape = [2, 2], strides = [2, 2]}, domain = "", node_name = "u", opset = 11 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// RoiAlign with a fixed 2 x 2 sampling grid: one kernel over the output
// bins reduces over the grid's cells, reading each region's corners and
// batch index and the feature map at the four corners of each sample.
// CHECK-DAG: #[[G:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-LABEL: func.func @roialign_fixed
// CHECK-NOT: tensor.empty(%
// CHECK: linalg.generic {indexing_maps = [#[[G]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}} : tensor<2x2xf32>) outs(%{{.*}} : tensor<3x2x2x2xf32>)
// CHECK-COUNT-4: tensor.extract %{{.*}} : tensor<3x4xf32>
// CHECK: tensor.extract %{{.*}} : tensor<3xi64>
// CHECK-COUNT-4: tensor.extract %{{.*}} : tensor<1x2x8x8xf32>
// CHECK: arith.divf
func.func @roialign_fixed(%x: tensor<1x2x8x8xf32>, %r: tensor<3x4xf32>, %b: tensor<3xi64>) -> tensor<3x2x2x2xf32> {
  %0 = onnx.node "RoiAlign"(%x, %r, %b) {attrs = {output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 2 : i64}, domain = "", opset = 16 : i64} : (tensor<1x2x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x2x2xf32>
  return %0 : tensor<3x2x2x2xf32>
}

// -----

// RoiAlign with an adaptive grid (sampling_ratio 0): each region's
// ceil(bin size) per axis by a kernel, the largest of each read on the
// host, a kernel making the grid of that run-time size, and the pooling
// masking each region's excess cells.
// CHECK-LABEL: func.func @roialign_adaptive
// CHECK: math.ceil
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} outs(%{{.*}} : tensor<2xi64>)
// CHECK: arith.maxsi
// CHECK: %[[GH:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<2xi64>
// CHECK: %[[GW:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<2xi64>
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]{{.*}}ins(%{{.*}} : tensor<?x?xf32>) outs(%{{.*}} : tensor<3x2x2x2xf32>)
// CHECK: arith.cmpf oge
// CHECK: arith.maximumf
func.func @roialign_adaptive(%x: tensor<1x2x8x8xf32>, %r: tensor<3x4xf32>, %b: tensor<3xi64>) -> tensor<3x2x2x2xf32> {
  %0 = onnx.node "RoiAlign"(%x, %r, %b) {attrs = {mode = "max", output_height = 2 : i64, output_width = 2 : i64}, domain = "", opset = 16 : i64} : (tensor<1x2x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x2x2xf32>
  return %0 : tensor<3x2x2x2xf32>
}

// -----

// DeformConv: the sampled columns [N, C, kH, kW, oH, oW] (offsets of the
// channel's offset group c / 2, read in pairs at 2 (group 9 + tap), four
// bilinear corners of X, times the mask), then the grouped contraction
// with W seen as [group, oC/group, C/group, kH, kW], and the bias.
// CHECK-DAG: #[[COLS:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d6, d7, d3, d4)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-LABEL: func.func @deform_conv
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x3x3x3x3xf32>)
// CHECK: %[[OG:.*]] = arith.divui %{{.*}}, %c2
// CHECK: arith.muli %[[OG]], %c9
// CHECK: tensor.extract %{{.*}} : tensor<1x36x3x3xf32>
// CHECK: tensor.extract %{{.*}} : tensor<1x36x3x3xf32>
// CHECK: math.floor
// CHECK-COUNT-4: tensor.extract %{{.*}} : tensor<1x4x5x5xf32>
// CHECK: tensor.extract %{{.*}} : tensor<1x18x3x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[COLS]], #[[W]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x2x2x3x3x3x3xf32>, tensor<2x1x2x3x3xf32>) outs(%{{.*}} : tensor<1x2x1x3x3xf32>)
// CHECK: arith.addf
func.func @deform_conv(%x: tensor<1x4x5x5xf32>, %w: tensor<2x2x3x3xf32>, %o: tensor<1x36x3x3xf32>, %b: tensor<2xf32>, %m: tensor<1x18x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %0 = onnx.node "DeformConv"(%x, %w, %o, %b, %m) {attrs = {group = 2 : i64, offset_group = 2 : i64}, domain = "", opset = 19 : i64} : (tensor<1x4x5x5xf32>, tensor<2x2x3x3xf32>, tensor<1x36x3x3xf32>, tensor<2xf32>, tensor<1x18x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}
