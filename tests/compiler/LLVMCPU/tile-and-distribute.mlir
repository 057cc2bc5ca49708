// RUN: strata-opt %s --split-input-file --strata-llvmcpu-tile-and-distribute | FileCheck %s

// A matmul is split by rows (8 rows of 16 KiB of work each); its fill is
// fused through the destination.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<64x32xf32>
// CHECK: scf.forall (%[[I:.*]]) = (0) to (64) step (8) shared_outs(%[[OUT:.*]] = %[[EMPTY]])
// CHECK:   %[[A:.*]] = tensor.extract_slice %{{.*}}[%[[I]], 0] [8, 16] [1, 1]
// CHECK:   %[[C:.*]] = tensor.extract_slice %[[OUT]][%[[I]], 0] [8, 32] [1, 1]
// CHECK:   %[[F:.*]] = linalg.fill {{.*}} outs(%[[C]] : tensor<8x32xf32>)
// CHECK:   %[[M:.*]] = linalg.matmul ins(%[[A]], %{{.*}} : tensor<8x16xf32>, tensor<16x32xf32>) outs(%[[F]] : tensor<8x32xf32>)
// CHECK:   tensor.parallel_insert_slice %[[M]] into %[[OUT]][%[[I]], 0] [8, 32] [1, 1]
func.func @matmul(%a: tensor<64x16xf32>, %b: tensor<16x32xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x16xf32>, tensor<16x32xf32>)
                     outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// A batch matmul with few batches is split along the rows too: a 2-d grid.
// CHECK-LABEL: func.func @batch
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (4, 32) step (1, 4)
// CHECK:   linalg.batch_matmul {{.*}} -> tensor<1x4x64xf32>
func.func @batch(%a: tensor<4x32x16xf32>, %b: tensor<4x16x64xf32>) -> tensor<4x32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x32x16xf32>, tensor<4x16x64xf32>)
                           outs(%f : tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
  return %r : tensor<4x32x64xf32>
}

// -----

// Small work stays one workgroup; the add and the exp fuse into one generic.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.forall
// CHECK: linalg.generic
// CHECK:   arith.addf
// CHECK:   math.exp
// CHECK-NOT: linalg.generic
func.func @small(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %s = linalg.add ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %x = linalg.exp ins(%s : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %x : tensor<2x3xf32>
}

// -----

// A reduction to a 0-d result has no parallel loop to split.
// CHECK-LABEL: func.func @total
// CHECK-NOT: scf.forall
// CHECK: linalg.reduce
func.func @total(%a: tensor<100000xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%a : tensor<100000xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

// -----

// An f32 softmax over the innermost dimension stays whole: each workgroup
// takes a band of 32 whole rows (lowerSoftmaxRows computes it row by row).
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[IN:.*]]: tensor<256x128xf32>)
// CHECK: scf.forall (%[[ROW:.*]]) = (0) to (256) step (32) shared_outs(%[[OUT:.*]] = %{{.*}})
// CHECK: %[[BAND:.*]] = tensor.extract_slice %[[IN]][%[[ROW]], 0] [32, 128] [1, 1]
// CHECK: %[[DEST:.*]] = tensor.extract_slice %[[OUT]][%[[ROW]], 0] [32, 128] [1, 1]
// CHECK: linalg.softmax dimension(1) ins(%[[BAND]] : tensor<32x128xf32>) outs(%[[DEST]] : tensor<32x128xf32>)
// CHECK-NOT: linalg.generic
// CHECK: scf.forall.in_parallel
func.func @softmax(%in: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %e = tensor.empty() : tensor<256x128xf32>
  %r = linalg.softmax dimension(1) ins(%in : tensor<256x128xf32>) outs(%e : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %r : tensor<256x128xf32>
}

// -----

// Over another dimension it is decomposed (max, exp, sum, divide), and the
// row reductions fuse into the tiles of the last op.
// CHECK-LABEL: func.func @softmax_outer
// CHECK-NOT: linalg.softmax
// CHECK: scf.forall
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: linalg.softmax
func.func @softmax_outer(%in: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %e = tensor.empty() : tensor<128x256xf32>
  %r = linalg.softmax dimension(0) ins(%in : tensor<128x256xf32>) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

// -----

// A dynamic row count: bands of a static size (8 rows of each of the 4
// matrices, 16 KiB), however many there are at run time.
// CHECK-LABEL: func.func @softmax_dynamic_rows
// CHECK: %[[N:.*]] = tensor.dim
// CHECK: scf.forall (%{{.*}}) = (0) to (%[[N]]) step (8)
// CHECK: linalg.softmax dimension(2) ins(%{{.*}} : tensor<4x?x128xf32>)
func.func @softmax_dynamic_rows(%in: tensor<4x?x128xf32>) -> tensor<4x?x128xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %in, %c1 : tensor<4x?x128xf32>
  %e = tensor.empty(%n) : tensor<4x?x128xf32>
  %r = linalg.softmax dimension(2) ins(%in : tensor<4x?x128xf32>) outs(%e : tensor<4x?x128xf32>) -> tensor<4x?x128xf32>
  return %r : tensor<4x?x128xf32>
}

// -----

// A result collapsed after its generic: the generic is collapsed instead and
// the collapse moves to the argument, so the result is tiled directly.
// CHECK-LABEL: func.func @collapsed_result
// CHECK: %[[IN:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<64x1024xf32> into tensor<65536xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<65536xf32>
// CHECK: scf.forall (%{{.*}}) = (0) to (65536) step (4096) shared_outs(%{{.*}} = %[[EMPTY]])
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
func.func @collapsed_result(%a: tensor<64x1024xf32>) -> tensor<65536xf32> {
  %e = tensor.empty() : tensor<64x1024xf32>
  %x = linalg.negf ins(%a : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<64x1024xf32> into tensor<65536xf32>
  return %c : tensor<65536xf32>
}

// -----

// A returned producer that the root reads as it writes is tiled with it:
// both results come out of the one loop, cut like the matmul (8
// workgroups; the bias epilogue does not stop that).
// CHECK-LABEL: func.func @producer_returned
// CHECK: %[[R:.*]]:2 = scf.forall (%{{.*}}) = (0) to (256) step (32) shared_outs(
// CHECK:   linalg.matmul
// CHECK:   linalg.generic
// CHECK:   scf.forall.in_parallel
// CHECK-COUNT-2: tensor.parallel_insert_slice
// CHECK: return %[[R]]#1, %[[R]]#0
func.func @producer_returned(%x: tensor<256x32xf32>, %w: tensor<32x64xf32>, %bias: tensor<64xf32>) -> (tensor<256x64xf32>, tensor<256x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x64xf32>) -> tensor<256x64xf32>
  %m = linalg.matmul ins(%x, %w : tensor<256x32xf32>, tensor<32x64xf32>) outs(%f : tensor<256x64xf32>) -> tensor<256x64xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<256x64xf32>, tensor<64xf32>) outs(%e : tensor<256x64xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<256x64xf32>
  return %m, %r : tensor<256x64xf32>, tensor<256x64xf32>
}

// -----

// A batch_matmul with a dynamic depth (scores x values over a sequence):
// one batch and at most 64 rows per workgroup, and inside it the depth cut
// into 256-deep tiles that accumulate into the workgroup's result, each a
// bounded product the microkernel takes; the fill stays before the loop.
// CHECK-LABEL: func.func @dynamic_depth
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (4, %{{.*}}) step (1, 64)
// CHECK:   %[[F:.*]] = linalg.fill {{.*}} -> tensor<1x?x64xf32>
// CHECK:   %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c256 iter_args(%[[ACC:.*]] = %[[F]])
// CHECK:     linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x?x?xf32>, tensor<1x?x64xf32>) outs(%{{.*}} : tensor<1x?x64xf32>)
// CHECK:   tensor.parallel_insert_slice %[[R]]
func.func @dynamic_depth(%s: tensor<4x?x?xf32>, %v: tensor<4x?x64xf32>) -> tensor<4x?x64xf32> {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %s, %c1 : tensor<4x?x?xf32>
  %e = tensor.empty(%m) : tensor<4x?x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x?x64xf32>) -> tensor<4x?x64xf32>
  %r = linalg.batch_matmul ins(%s, %v : tensor<4x?x?xf32>, tensor<4x?x64xf32>)
                           outs(%f : tensor<4x?x64xf32>) -> tensor<4x?x64xf32>
  return %r : tensor<4x?x64xf32>
}

// -----

// A row op over a dynamic square (a sequence's scores, 4 x S x S, the
// max of each row): the rows are tiled with the columns counted as a
// nominal 128 (kNominalDynamicRange), 8 rows of 4 heads per tile, so a
// sequence of 128 gives 16 tiles rather than one tile of 1024 rows.
// CHECK-LABEL: func.func @dynamic_rows_of_square
// CHECK: scf.forall (%{{.*}}) = (0) to (%{{.*}}) step (8)
// CHECK:   linalg.generic {{.*}} ins(%{{.*}} : tensor<4x?x?xf32>) outs(%{{.*}} : tensor<4x?xf32>)
func.func @dynamic_rows_of_square(%s: tensor<4x?x?xf32>) -> tensor<4x?xf32> {
  %c1 = arith.constant 1 : index
  %low = arith.constant -3.0e38 : f32
  %m = tensor.dim %s, %c1 : tensor<4x?x?xf32>
  %e = tensor.empty(%m) : tensor<4x?xf32>
  %f = linalg.fill ins(%low : f32) outs(%e : tensor<4x?xf32>) -> tensor<4x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(h, i, j) -> (h, i, j)>, affine_map<(h, i, j) -> (h, i)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<4x?x?xf32>) outs(%f : tensor<4x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = arith.maximumf %in, %out : f32
    linalg.yield %x : f32
  } -> tensor<4x?xf32>
  return %r : tensor<4x?xf32>
}

// -----

// A matmul with dynamic rows (a sequence) and a wide weight: 128-row tiles,
// so a prompt of up to 128 tokens passes each weight panel once; the
// columns give the workgroups (16 tiles of 128).
// CHECK-LABEL: func.func @dynamic_rows_wide
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (%{{.*}}, 2048) step (128, 128)
// CHECK:   linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x256xf32>, tensor<256x128xf32>)
func.func @dynamic_rows_wide(%a: tensor<?x256xf32>, %b: tensor<256x2048xf32>) -> tensor<?x2048xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x256xf32>
  %e = tensor.empty(%m) : tensor<?x2048xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x256xf32>, tensor<256x2048xf32>)
                     outs(%f : tensor<?x2048xf32>) -> tensor<?x2048xf32>
  return %r : tensor<?x2048xf32>
}

// -----

// The same with a narrow weight (two column tiles): 64-row tiles, so the
// rows spread the work too.
// CHECK-LABEL: func.func @dynamic_rows_narrow
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (%{{.*}}, 256) step (64, 128)
func.func @dynamic_rows_narrow(%a: tensor<?x1024xf32>, %b: tensor<1024x256xf32>) -> tensor<?x256xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x1024xf32>
  %e = tensor.empty(%m) : tensor<?x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x256xf32>) -> tensor<?x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x1024xf32>, tensor<1024x256xf32>)
                     outs(%f : tensor<?x256xf32>) -> tensor<?x256xf32>
  return %r : tensor<?x256xf32>
}

// -----

// A convolution of a dynamic batch: one image per tile, each image cut into
// at least a few row tiles (kDynamicConvWorkgroupsPerImage), so a batch of
// one still spreads over workers; here the static rule's pixel bound (about
// 256 output pixels a tile) gives 8 tiles of 7 rows.
// CHECK-LABEL: func.func @dynamic_batch_conv
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (%{{.*}}, 56) step (1, 7)
// CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x7x56x64xf32>
func.func @dynamic_batch_conv(%x: tensor<?x58x58x64xf32>, %w: tensor<3x3x64x64xf32>) -> tensor<?x56x56x64xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x58x58x64xf32>
  %e = tensor.empty(%n) : tensor<?x56x56x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x56x56x64xf32>) -> tensor<?x56x56x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<?x58x58x64xf32>, tensor<3x3x64x64xf32>)
         outs(%f : tensor<?x56x56x64xf32>) -> tensor<?x56x56x64xf32>
  return %r : tensor<?x56x56x64xf32>
}

// -----

// A concatenation of the function's arguments has no linalg root: it is cut
// into bands of its leading dimensions other than the concatenated one,
// each workgroup copying its slice of each operand into the result.
// CHECK-LABEL: func.func @concat
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<8x55x55x128xf32>
// CHECK: scf.forall (%[[N:.*]], %[[H:.*]]) in (8, 55) shared_outs(%[[OUT:.*]] = %[[EMPTY]])
// CHECK:   %[[A:.*]] = tensor.extract_slice %{{.*}}[%[[N]], %[[H]], 0, 0] [1, 1, 55, 64] [1, 1, 1, 1]
// CHECK:   %[[B:.*]] = tensor.extract_slice %{{.*}}[%[[N]], %[[H]], 0, 0] [1, 1, 55, 64] [1, 1, 1, 1]
// CHECK:   scf.forall.in_parallel
// CHECK:     tensor.parallel_insert_slice %[[A]] into %[[OUT]][%[[N]], %[[H]], 0, 0] [1, 1, 55, 64] [1, 1, 1, 1]
// CHECK:     tensor.parallel_insert_slice %[[B]] into %[[OUT]][%[[N]], %[[H]], 0, 64] [1, 1, 55, 64] [1, 1, 1, 1]
func.func @concat(%a: tensor<8x55x55x64xf32>, %b: tensor<8x55x55x64xf32>) -> tensor<8x55x55x128xf32> {
  %r = tensor.concat dim(3) %a, %b : (tensor<8x55x55x64xf32>, tensor<8x55x55x64xf32>) -> tensor<8x55x55x128xf32>
  return %r : tensor<8x55x55x128xf32>
}

// -----

// Operands computed in the function (the flow phase's --fuse-into-concat: a
// 1x1 convolution with its bias and ReLU, a padded 3x3 convolution) are
// computed band by band, each straight into its slice of the result: the
// epilogue's destination, and the fill under the bare convolution, are
// slices of the result as each insert before left it (the chain that
// bufferizes in place), which the parallel inserts write back (no operand
// is computed whole, nor copied). A 13x13 image: bands of one row (13 of
// them; a band of 14 pixels or more would leave fewer than 8).
// CHECK-LABEL: func.func @fused_concat
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf
// CHECK: scf.forall (%[[H:.*]]) in (13) shared_outs(%[[OUT:.*]] = %{{.*}})
// CHECK:   %[[D0:.*]] = tensor.extract_slice %[[OUT]][0, %[[H]], 0, 0] [1, 1, 13, 192]
// CHECK:   %[[C1:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x1x13x192xf32>
// CHECK:   %[[R1:.*]] = linalg.generic {{.*}} ins(%[[C1]], %{{.*}} : {{.*}}) outs(%[[D0]] : tensor<1x1x13x192xf32>)
// CHECK:   %[[BAND1:.*]] = tensor.insert_slice %[[R1]] into %[[OUT]][0, %[[H]], 0, 0] [1, 1, 13, 192]
// CHECK:   %[[D1:.*]] = tensor.extract_slice %[[BAND1]][0, %[[H]], 0, 192] [1, 1, 13, 192]
// CHECK:   tensor.pad
// CHECK:   %[[F:.*]] = linalg.fill {{.*}} outs(%[[D1]] : tensor<1x1x13x192xf32>)
// CHECK:   %[[C3:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} outs(%[[F]] : tensor<1x1x13x192xf32>)
// CHECK:   %[[BAND2:.*]] = tensor.insert_slice %[[C3]] into %[[BAND1]][0, %[[H]], 0, 192] [1, 1, 13, 192]
// CHECK:   %[[W1:.*]] = tensor.extract_slice %[[BAND2]][0, %[[H]], 0, 0] [1, 1, 13, 192]
// CHECK:   scf.forall.in_parallel
// CHECK:     tensor.parallel_insert_slice %[[W1]] into %[[OUT]][0, %[[H]], 0, 0] [1, 1, 13, 192]
// CHECK:     tensor.parallel_insert_slice %[[C3]] into %[[OUT]][0, %[[H]], 0, 192] [1, 1, 13, 192]
#fused_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#fused_bias = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @fused_concat(%x: tensor<1x13x13x48xf32>, %w1: tensor<1x1x48x192xf32>, %w3: tensor<3x3x48x192xf32>, %b: tensor<192xf32>) -> tensor<1x13x13x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x13x13x192xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x13x13x192xf32>) -> tensor<1x13x13x192xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<1x13x13x48xf32>, tensor<1x1x48x192xf32>) outs(%f : tensor<1x13x13x192xf32>) -> tensor<1x13x13x192xf32>
  %r1 = linalg.generic {indexing_maps = [#fused_map, #fused_bias, #fused_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %b : tensor<1x13x13x192xf32>, tensor<192xf32>) outs(%e : tensor<1x13x13x192xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x13x13x192xf32>
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x13x13x48xf32> to tensor<1x15x15x48xf32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w3 : tensor<1x15x15x48xf32>, tensor<3x3x48x192xf32>) outs(%f : tensor<1x13x13x192xf32>) -> tensor<1x13x13x192xf32>
  %r = tensor.concat dim(3) %r1, %c3 : (tensor<1x13x13x192xf32>, tensor<1x13x13x192xf32>) -> tensor<1x13x13x384xf32>
  return %r : tensor<1x13x13x384xf32>
}

// -----

// A 27x27 image (squeezenet1_1's middle fire modules): bands of one row of
// 27 pixels, a microkernel row panel or more (bands of three rows were
// 1.07-1.14x slower); eight images of 13x13: whole images, as a row of 13
// pixels is less than a panel.
// CHECK-LABEL: func.func @fused_concat_rows
// CHECK: scf.forall (%[[H:.*]]) in (27)
// CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x1x27x128xf32>
// CHECK:   tensor.parallel_insert_slice {{.*}}[0, %[[H]], 0, 0] [1, 1, 27, 128]
// CHECK:   tensor.parallel_insert_slice {{.*}}[0, %[[H]], 0, 128] [1, 1, 27, 128]
// CHECK-LABEL: func.func @fused_concat_images
// CHECK: scf.forall (%[[N:.*]]) in (8)
// CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x13x13x64xf32>
// CHECK:   tensor.parallel_insert_slice {{.*}}[%[[N]], 0, 0, 0] [1, 13, 13, 64]
// CHECK:   tensor.parallel_insert_slice {{.*}}[%[[N]], 0, 0, 64] [1, 13, 13, 64]
func.func @fused_concat_rows(%x: tensor<1x27x27x32xf32>, %w1: tensor<1x1x32x128xf32>, %w3: tensor<3x3x32x128xf32>) -> tensor<1x27x27x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x27x27x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x27x27x128xf32>) -> tensor<1x27x27x128xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<1x27x27x32xf32>, tensor<1x1x32x128xf32>) outs(%f : tensor<1x27x27x128xf32>) -> tensor<1x27x27x128xf32>
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x27x27x32xf32> to tensor<1x29x29x32xf32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w3 : tensor<1x29x29x32xf32>, tensor<3x3x32x128xf32>) outs(%f : tensor<1x27x27x128xf32>) -> tensor<1x27x27x128xf32>
  %r = tensor.concat dim(3) %c1, %c3 : (tensor<1x27x27x128xf32>, tensor<1x27x27x128xf32>) -> tensor<1x27x27x256xf32>
  return %r : tensor<1x27x27x256xf32>
}
func.func @fused_concat_images(%x: tensor<8x13x13x16xf32>, %w1: tensor<1x1x16x64xf32>, %w3: tensor<3x3x16x64xf32>) -> tensor<8x13x13x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x13x13x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x13x13x64xf32>) -> tensor<8x13x13x64xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<8x13x13x16xf32>, tensor<1x1x16x64xf32>) outs(%f : tensor<8x13x13x64xf32>) -> tensor<8x13x13x64xf32>
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<8x13x13x16xf32> to tensor<8x15x15x16xf32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w3 : tensor<8x15x15x16xf32>, tensor<3x3x16x64xf32>) outs(%f : tensor<8x13x13x64xf32>) -> tensor<8x13x13x64xf32>
  %r = tensor.concat dim(3) %c1, %c3 : (tensor<8x13x13x64xf32>, tensor<8x13x13x64xf32>) -> tensor<8x13x13x128xf32>
  return %r : tensor<8x13x13x128xf32>
}

// -----

// A max pool over a convolution computed in the function (the flow phase's
// --fuse-into-pool): bands of the pool's output rows, each computing the
// 2 x 5 + 1 convolution rows its windows read (the row two bands share is
// computed by both) into a temporary the pool reads. 55 rows: bands of 5
// (11 bands, 1.1-1.2x the convolution's work at 1, 2 and 4 workers: a
// band of 1 row recomputes half again, and 5 bands of 11 leave 4 workers
// 1.67x).
// CHECK-LABEL: func.func @pooled_conv
// CHECK: scf.forall (%[[H:.*]]) = (0) to (55) step (5) shared_outs(%[[OUT:.*]] = %{{.*}})
// CHECK:   %[[X:.*]] = tensor.extract_slice %{{.*}}[0, %{{.*}}, 0, 0] [1, 23, 223, 3]
// CHECK:   %[[T:.*]] = tensor.extract_slice %{{.*}}[0, %{{.*}}, 0, 0] [1, 11, 111, 64]
// CHECK:   %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[X]], %{{.*}} : tensor<1x23x223x3xf32>, tensor<3x3x3x64xf32>) {{.*}} -> tensor<1x11x111x64xf32>
// CHECK:   %[[R:.*]] = linalg.generic {{.*}} ins(%[[C]], %{{.*}} : {{.*}}) outs(%[[T]] : tensor<1x11x111x64xf32>)
// CHECK:   %[[P:.*]] = linalg.pooling_nhwc_max {{.*}} ins(%[[R]], %{{.*}} : tensor<1x11x111x64xf32>, tensor<3x3xf32>) {{.*}} -> tensor<1x5x55x64xf32>
// CHECK:   tensor.parallel_insert_slice %[[P]] into %[[OUT]][0, %[[H]], 0, 0] [1, 5, 55, 64]
#pool_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#pool_bias = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @pooled_conv(%x: tensor<1x224x224x3xf32>, %w: tensor<3x3x3x64xf32>, %b: tensor<64xf32>) -> tensor<1x55x55x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x111x111x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x111x111x64xf32>) -> tensor<1x111x111x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x224x224x3xf32>, tensor<3x3x3x64xf32>) outs(%f : tensor<1x111x111x64xf32>) -> tensor<1x111x111x64xf32>
  %r = linalg.generic {indexing_maps = [#pool_map, #pool_bias, #pool_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<1x111x111x64xf32>, tensor<64xf32>) outs(%e : tensor<1x111x111x64xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x111x111x64xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %ep = tensor.empty() : tensor<1x55x55x64xf32>
  %fp = linalg.fill ins(%ninf : f32) outs(%ep : tensor<1x55x55x64xf32>) -> tensor<1x55x55x64xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%r, %window : tensor<1x111x111x64xf32>, tensor<3x3xf32>) outs(%fp : tensor<1x55x55x64xf32>) -> tensor<1x55x55x64xf32>
  return %p : tensor<1x55x55x64xf32>
}

// -----

// Eight images: an image per workgroup and bands of 5 rows still (88
// workgroups), as 11 rows' convolution rows (23 x 111 x 64 floats, 650 KB)
// would not stay in the cache.
// CHECK-LABEL: func.func @pooled_conv_batch
// CHECK: scf.forall (%[[N:.*]], %[[H:.*]]) = (0, 0) to (8, 55) step (1, 5)
// CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x11x111x64xf32>
// CHECK:   linalg.pooling_nhwc_max {{.*}} -> tensor<1x5x55x64xf32>
func.func @pooled_conv_batch(%x: tensor<8x223x223x3xf32>, %w: tensor<3x3x3x64xf32>) -> tensor<8x55x55x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8x111x111x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x111x111x64xf32>) -> tensor<8x111x111x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<8x223x223x3xf32>, tensor<3x3x3x64xf32>) outs(%f : tensor<8x111x111x64xf32>) -> tensor<8x111x111x64xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %ep = tensor.empty() : tensor<8x55x55x64xf32>
  %fp = linalg.fill ins(%ninf : f32) outs(%ep : tensor<8x55x55x64xf32>) -> tensor<8x55x55x64xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%c, %window : tensor<8x111x111x64xf32>, tensor<3x3xf32>) outs(%fp : tensor<8x55x55x64xf32>) -> tensor<8x55x55x64xf32>
  return %p : tensor<8x55x55x64xf32>
}

// -----

// A max pool over a -inf padding of a convolution computed in the function
// (resnet18's stem): the band's convolution rows (clamped to the image:
// the first and last bands read fewer) padded by what the band's windows
// read outside the image (fifteen rows for seven pooled ones; the left
// column: the right one is never read). The pool's microkernel reads the
// rows in place and skips the padding. Two images: bands of 7 rows (16
// workgroups, 1.07x the convolution's work at 1, 2 and 4 workers; 8 rows'
// 14 bands leave 4 workers 1.21x).
// CHECK-LABEL: func.func @padded_pooled_conv
// CHECK: scf.forall (%[[N:.*]], %[[H:.*]]) = (0, 0) to (2, 56) step (1, 7)
// CHECK:   %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x?x112x64xf32>
// CHECK:   %[[R:.*]] = linalg.generic {{.*}} ins(%[[C]], %{{.*}} : tensor<1x?x112x64xf32>, tensor<64xf32>)
// CHECK:   %[[PAD:.*]] = tensor.pad %[[R]] low[0, %{{.*}}, 1, 0] high[0, %{{.*}}, 0, 0]
// CHECK:   tensor<1x?x112x64xf32> to tensor<1x15x113x64xf32>
// CHECK:   linalg.pooling_nhwc_max {{.*}} ins(%[[PAD]], %{{.*}} : tensor<1x15x113x64xf32>, tensor<3x3xf32>) {{.*}} -> tensor<1x7x56x64xf32>
#padpool_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#padpool_bias = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @padded_pooled_conv(%x: tensor<2x229x229x3xf32>, %w: tensor<7x7x3x64xf32>, %b: tensor<64xf32>) -> tensor<2x56x56x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x112x112x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x112x112x64xf32>) -> tensor<2x112x112x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<2x229x229x3xf32>, tensor<7x7x3x64xf32>) outs(%f : tensor<2x112x112x64xf32>) -> tensor<2x112x112x64xf32>
  %r = linalg.generic {indexing_maps = [#padpool_map, #padpool_bias, #padpool_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<2x112x112x64xf32>, tensor<64xf32>) outs(%e : tensor<2x112x112x64xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x112x112x64xf32>
  %padded = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<2x112x112x64xf32> to tensor<2x114x114x64xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %ep = tensor.empty() : tensor<2x56x56x64xf32>
  %fp = linalg.fill ins(%ninf : f32) outs(%ep : tensor<2x56x56x64xf32>) -> tensor<2x56x56x64xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded, %window : tensor<2x114x114x64xf32>, tensor<3x3xf32>) outs(%fp : tensor<2x56x56x64xf32>) -> tensor<2x56x56x64xf32>
  return %p : tensor<2x56x56x64xf32>
}

// -----

// The same with a batch known only at run time, and the stem's own zero
// padding of the image: an image per workgroup, bands as for one image
// (7 rows: 8 bands, 1.07x the convolution's work at 1, 2 and 4 workers,
// where 14 bands of 4 rows were 1.13-1.29x). The band's padded input rows are bounded through the
// distribution loop bindWorkgroupIds makes of a dynamic count
// (IndexBounds.cpp; matmul-ukernel.mlir lowers it).
// CHECK-LABEL: func.func @padded_pooled_conv_dynamic_batch
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (%{{.*}}, 56) step (1, 7)
// CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x?x112x64xf32>
// CHECK:   linalg.pooling_nhwc_max {{.*}} -> tensor<1x7x56x64xf32>
#dynpool_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#dynpool_bias = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @padded_pooled_conv_dynamic_batch(%arg0: tensor<?x224x224x3xf32>, %arg1: tensor<7x7x3x64xf32>, %arg2: tensor<64xf32>, %arg3: index, %arg4: index, %arg5: index) -> tensor<?x56x56x64xf32> {
  %cst = arith.constant 0xFF800000 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %inpad = tensor.pad %arg0 low[0, 3, 3, 0] high[0, 2, 2, 0] {
  ^bb0(%q0: index, %q1: index, %q2: index, %q3: index):
    tensor.yield %cst_0 : f32
  } : tensor<?x224x224x3xf32> to tensor<?x229x229x3xf32>
  %0 = tensor.empty(%arg3) : tensor<?x112x112x64xf32>
  %1 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<?x112x112x64xf32>) -> tensor<?x112x112x64xf32>
  %2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%inpad, %arg1 : tensor<?x229x229x3xf32>, tensor<7x7x3x64xf32>) outs(%1 : tensor<?x112x112x64xf32>) -> tensor<?x112x112x64xf32>
  %3 = linalg.generic {indexing_maps = [#dynpool_map, #dynpool_bias, #dynpool_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2, %arg2 : tensor<?x112x112x64xf32>, tensor<64xf32>) outs(%0 : tensor<?x112x112x64xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.addf %in, %in_1 : f32
    %9 = arith.maximumf %8, %cst_0 : f32
    linalg.yield %9 : f32
  } -> tensor<?x112x112x64xf32>
  %padded = tensor.pad %3 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%arg6: index, %arg7: index, %arg8: index, %arg9: index):
    tensor.yield %cst : f32
  } : tensor<?x112x112x64xf32> to tensor<?x114x114x64xf32>
  %4 = tensor.empty() : tensor<3x3xf32>
  %5 = tensor.empty(%arg3) : tensor<?x56x56x64xf32>
  %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<?x56x56x64xf32>) -> tensor<?x56x56x64xf32>
  %7 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%padded, %4 : tensor<?x114x114x64xf32>, tensor<3x3xf32>) outs(%6 : tensor<?x56x56x64xf32>) -> tensor<?x56x56x64xf32>
  return %7 : tensor<?x56x56x64xf32>
}

// -----

// A small one stays one workgroup, and so does one along the leading
// dimension (nothing before it to cut).
// CHECK-LABEL: func.func @small_concat
// CHECK-NOT: scf.forall
// CHECK: tensor.concat
func.func @small_concat(%a: tensor<16x8xi32>, %b: tensor<16x4xi32>) -> tensor<16x12xi32> {
  %r = tensor.concat dim(1) %a, %b : (tensor<16x8xi32>, tensor<16x4xi32>) -> tensor<16x12xi32>
  return %r : tensor<16x12xi32>
}

// -----

// A filter larger than kConvStreamedFilterBytes (3x3x512x512: 9.4 MB) would
// be read from memory once per row tile: the image keeps its rows whole and
// its workgroups are column tiles of 64 channels.
// CHECK-LABEL: func.func @large_filter_conv
// CHECK: scf.forall (%{{.*}}) = (0) to (512) step (64)
// CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x7x7x64xf32>
func.func @large_filter_conv(%x: tensor<1x9x9x512xf32>, %w: tensor<3x3x512x512xf32>) -> tensor<1x7x7x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x9x9x512xf32>, tensor<3x3x512x512xf32>) outs(%f : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  return %r : tensor<1x7x7x512xf32>
}

// -----

// A filter that fits (3x3x256x256: 2.4 MB) is cut by rows as well: 7 row
// tiles of 2 rows, 2 column tiles. The filter outweighs the input, so the
// column tiles come first (the workers split the columns, each reading its
// half of the filter).
// CHECK-LABEL: func.func @small_filter_conv
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (256, 14) step (128, 2)
func.func @small_filter_conv(%x: tensor<1x16x16x256xf32>, %w: tensor<3x3x256x256xf32>) -> tensor<1x14x14x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x14x14x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x16x16x256xf32>, tensor<3x3x256x256xf32>) outs(%f : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  return %r : tensor<1x14x14x256xf32>
}

// -----

// A transpose back to NCHW (with a bias and a ReLU): its input is
// contiguous along the channels, which the result is not, so the channels
// stay whole and the bands are cut from the other loops (here one row
// each): each workgroup reads whole pixels.
// CHECK-LABEL: func.func @transpose_to_nchw
// CHECK: scf.forall (%{{.*}}) in (112)
// CHECK:   linalg.generic
// CHECK:   } -> tensor<1x64x1x112xf32>
#nhwc = affine_map<(n, c, h, w) -> (n, h, w, c)>
#chan = affine_map<(n, c, h, w) -> (c)>
#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @transpose_to_nchw(%x: tensor<1x112x112x64xf32>, %b: tensor<64xf32>) -> tensor<1x64x112x112xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x112x112xf32>
  %r = linalg.generic {indexing_maps = [#nhwc, #chan, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<1x112x112x64xf32>, tensor<64xf32>) outs(%e : tensor<1x64x112x112xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64x112x112xf32>
  return %r : tensor<1x64x112x112xf32>
}

// -----

// A 1x1 convolution over a depthwise convolution computed in the function
// (the flow phase's --fuse-into-projection): bands of output rows with
// every output channel, each computing the depthwise rows it reads (a 1x1
// window shares none with the next band) into a temporary the convolution
// reads. 8 images of 112 rows: an image per workgroup, bands of 28 rows
// (32 workgroups; 56 would be 16, but 56 depthwise rows of 112 x 32
// floats, 800 KB, would not stay in the cache).
// CHECK-LABEL: func.func @projected_depthwise
// CHECK: scf.forall (%[[N:.*]], %[[H:.*]]) = (0, 0) to (8, 112) step (1, 28) shared_outs(%[[OUT:.*]] = %{{.*}})
// CHECK:   %[[D:.*]] = linalg.depthwise_conv_2d_nhwc_hwc {{.*}} -> tensor<1x28x112x32xf32>
// CHECK:   %[[R:.*]] = linalg.generic {{.*}} ins(%[[D]], %{{.*}} : tensor<1x28x112x32xf32>, tensor<32xf32>)
// CHECK:   %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[R]], %{{.*}} : tensor<1x28x112x32xf32>, tensor<1x1x32x16xf32>) {{.*}} -> tensor<1x28x112x16xf32>
// CHECK:   tensor.parallel_insert_slice %[[C]] into %[[OUT]][%[[N]], %[[H]], 0, 0] [1, 28, 112, 16]
#dw_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#dw_bias = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @projected_depthwise(%x: tensor<8x112x112x32xf32>, %w: tensor<3x3x32xf32>, %b: tensor<32xf32>, %v: tensor<1x1x32x16xf32>) -> tensor<8x112x112x16xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<8x112x112x32xf32> to tensor<8x114x114x32xf32>
  %e = tensor.empty() : tensor<8x112x112x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x112x112x32xf32>) -> tensor<8x112x112x32xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : tensor<8x114x114x32xf32>, tensor<3x3x32xf32>) outs(%f : tensor<8x112x112x32xf32>) -> tensor<8x112x112x32xf32>
  %r = linalg.generic {indexing_maps = [#dw_map, #dw_bias, #dw_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%d, %b : tensor<8x112x112x32xf32>, tensor<32xf32>) outs(%e : tensor<8x112x112x32xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<8x112x112x32xf32>
  %ec = tensor.empty() : tensor<8x112x112x16xf32>
  %fc = linalg.fill ins(%zero : f32) outs(%ec : tensor<8x112x112x16xf32>) -> tensor<8x112x112x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%r, %v : tensor<8x112x112x32xf32>, tensor<1x1x32x16xf32>) outs(%fc : tensor<8x112x112x16xf32>) -> tensor<8x112x112x16xf32>
  return %c : tensor<8x112x112x16xf32>
}

// -----

// One image of 7 x 7 pixels: a band would have fewer than 64 pixels (the
// microkernel's rows), so the image is one band: one workgroup.
// CHECK-LABEL: func.func @projected_depthwise_small
// CHECK-NOT: scf.forall
// CHECK: linalg.conv_2d_nhwc_hwcf
func.func @projected_depthwise_small(%x: tensor<1x7x7x960xf32>, %w: tensor<3x3x960xf32>, %v: tensor<1x1x960x320xf32>) -> tensor<1x7x7x320xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x960xf32> to tensor<1x9x9x960xf32>
  %e = tensor.empty() : tensor<1x7x7x960xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x960xf32>) -> tensor<1x7x7x960xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : tensor<1x9x9x960xf32>, tensor<3x3x960xf32>) outs(%f : tensor<1x7x7x960xf32>) -> tensor<1x7x7x960xf32>
  %ec = tensor.empty() : tensor<1x7x7x320xf32>
  %fc = linalg.fill ins(%zero : f32) outs(%ec : tensor<1x7x7x320xf32>) -> tensor<1x7x7x320xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%d, %v : tensor<1x7x7x960xf32>, tensor<1x1x960x320xf32>) outs(%fc : tensor<1x7x7x320xf32>) -> tensor<1x7x7x320xf32>
  return %c : tensor<1x7x7x320xf32>
}

// -----

// mobilenet_v2's second block at batch 1 as one function (the flow phase's
// --fuse-into-depthwise and --fuse-into-projection): bands of the
// depthwise convolution's 56 output rows, 2 rows each (the fewest that
// recompute at most a quarter of the expansion: its 5 rows for a band's 2
// stride-2 windows share one with the next band; 4 rows would leave fewer
// than 16 workgroups). The expansion computes a band's rows (fewer at the
// image's edges: clamped, a dynamic count) with no guard against an empty
// slice, and the pad of them is the depthwise convolution's window (113
// columns: the stride-2 windows never read the right one).
// CHECK-LABEL: func.func @expanded_depthwise
// CHECK: scf.forall (%[[H:.*]]) = (0) to (56) step (2) shared_outs(%[[OUT:.*]] = %{{.*}})
// CHECK-NOT: scf.if
// CHECK:   %[[E:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x?x112x96xf32>
// CHECK:   %[[R:.*]] = linalg.generic {{.*}} ins(%[[E]], %{{.*}} : tensor<1x?x112x96xf32>, tensor<96xf32>)
// CHECK:   %[[P:.*]] = tensor.pad %[[R]] low[0, %{{.*}}, 1, 0] high[0, %{{.*}}, 0, 0]
// CHECK:   } : tensor<1x?x112x96xf32> to tensor<1x5x113x96xf32>
// CHECK:   %[[D:.*]] = linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[P]], %{{.*}} : tensor<1x5x113x96xf32>, tensor<3x3x96xf32>) {{.*}} -> tensor<1x2x56x96xf32>
// CHECK:   %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[D]], %{{.*}} : tensor<1x2x56x96xf32>, tensor<1x1x96x24xf32>) {{.*}} -> tensor<1x2x56x24xf32>
// CHECK:   tensor.parallel_insert_slice %[[C]] into %[[OUT]][0, %[[H]], 0, 0] [1, 2, 56, 24]
#ex_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ex_bias = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @expanded_depthwise(%x: tensor<1x112x112x16xf32>, %we: tensor<1x1x16x96xf32>, %be: tensor<96xf32>, %w: tensor<3x3x96xf32>, %v: tensor<1x1x96x24xf32>) -> tensor<1x56x56x24xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %ee = tensor.empty() : tensor<1x112x112x96xf32>
  %fe = linalg.fill ins(%zero : f32) outs(%ee : tensor<1x112x112x96xf32>) -> tensor<1x112x112x96xf32>
  %ce = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %we : tensor<1x112x112x16xf32>, tensor<1x1x16x96xf32>) outs(%fe : tensor<1x112x112x96xf32>) -> tensor<1x112x112x96xf32>
  %re = linalg.generic {indexing_maps = [#ex_map, #ex_bias, #ex_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ce, %be : tensor<1x112x112x96xf32>, tensor<96xf32>) outs(%ee : tensor<1x112x112x96xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<1x112x112x96xf32>
  %padded = tensor.pad %re low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x112x112x96xf32> to tensor<1x114x114x96xf32>
  %e = tensor.empty() : tensor<1x56x56x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded, %w : tensor<1x114x114x96xf32>, tensor<3x3x96xf32>) outs(%f : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
  %ec = tensor.empty() : tensor<1x56x56x24xf32>
  %fc = linalg.fill ins(%zero : f32) outs(%ec : tensor<1x56x56x24xf32>) -> tensor<1x56x56x24xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%d, %v : tensor<1x56x56x96xf32>, tensor<1x1x96x24xf32>) outs(%fc : tensor<1x56x56x24xf32>) -> tensor<1x56x56x24xf32>
  return %c : tensor<1x56x56x24xf32>
}

// -----

// The same expansion and depthwise convolution (stride 1) with no
// projection: bands of the depthwise convolution's own rows, 8 of 56 (the
// fewest that recompute at most a quarter: 10 rows of the expansion for
// 8; 14 would leave 4 workgroups).
// CHECK-LABEL: func.func @expanded_depthwise_root
// CHECK: scf.forall (%[[H:.*]]) = (0) to (56) step (8)
// CHECK-NOT: scf.if
// CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x?x56x144xf32>
// CHECK:   linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x10x58x144xf32>, tensor<3x3x144xf32>) {{.*}} -> tensor<1x8x56x144xf32>
func.func @expanded_depthwise_root(%x: tensor<1x56x56x24xf32>, %we: tensor<1x1x24x144xf32>, %w: tensor<3x3x144xf32>) -> tensor<1x56x56x144xf32> {
  %zero = arith.constant 0.0 : f32
  %ee = tensor.empty() : tensor<1x56x56x144xf32>
  %fe = linalg.fill ins(%zero : f32) outs(%ee : tensor<1x56x56x144xf32>) -> tensor<1x56x56x144xf32>
  %ce = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %we : tensor<1x56x56x24xf32>, tensor<1x1x24x144xf32>) outs(%fe : tensor<1x56x56x144xf32>) -> tensor<1x56x56x144xf32>
  %padded = tensor.pad %ce low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x56x56x144xf32> to tensor<1x58x58x144xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : tensor<1x58x58x144xf32>, tensor<3x3x144xf32>) outs(%fe : tensor<1x56x56x144xf32>) -> tensor<1x56x56x144xf32>
  return %d : tensor<1x56x56x144xf32>
}

// -----

// A global average pool over a convolution computed in its function
// (squeezenet1_1's classifier: 1x1 512 -> 1000 at 13x13, batch 8): an
// image and a column tile of whole panels a workgroup (1000 in tiles of
// 256, the last partial), each computing its image's pixels for its
// columns and reducing them.
// CHECK-LABEL: func.func @global_pool
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (8, 1000) step (1, 256)
// CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x13x13x?xf32>
// CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]{{.*}} outs(%{{.*}} : tensor<1x?xf32>)
// CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} outs(%{{.*}} : tensor<1x?xf32>)
// CHECK: scf.forall.in_parallel
func.func @global_pool(%x: tensor<8x13x13x512xf32>, %w: tensor<1x1x512x1000xf32>, %b: tensor<1000xf32>) -> tensor<8x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 169.0 : f32
  %e = tensor.empty() : tensor<8x13x13x1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x13x13x1000xf32>) -> tensor<8x13x13x1000xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<8x13x13x512xf32>, tensor<1x1x512x1000xf32>) outs(%f : tensor<8x13x13x1000xf32>) -> tensor<8x13x13x1000xf32>
  %e2 = tensor.empty() : tensor<8x1000xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x1000xf32>) -> tensor<8x1000xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%c, %b : tensor<8x13x13x1000xf32>, tensor<1000xf32>) outs(%f2 : tensor<8x1000xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %a = arith.addf %v, %bias : f32
    %r = arith.maximumf %a, %zero : f32
    %t = arith.addf %o, %r : f32
    linalg.yield %t : f32
  } -> tensor<8x1000xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(n, c) -> (n, c)>, affine_map<(n, c) -> (n, c)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8x1000xf32>) outs(%e2 : tensor<8x1000xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.divf %v, %count : f32
    linalg.yield %d : f32
  } -> tensor<8x1000xf32>
  return %m : tensor<8x1000xf32>
}

// -----

// A function that only returns a slice (the attention's keys taken from the
// projection of queries, keys and values) copies it with a linalg.copy cut
// into workgroups like an elementwise op, each reading its band of the
// slice, rather than one workgroup copying it whole.
// CHECK-LABEL: func.func @slice_only
// CHECK-SAME: (%[[IN:.*]]: tensor<128x8x768xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[IN]][0, 0, 256] [128, 8, 256] [1, 1, 1]
// CHECK: scf.forall (%[[I:.*]]) = (0) to (128) step (2) shared_outs(%[[OUT:.*]] = %{{.*}})
// CHECK: %[[BAND:.*]] = tensor.extract_slice %[[S]][%[[I]], 0, 0] [2, 8, 256] [1, 1, 1]
// CHECK: linalg.copy ins(%[[BAND]] : tensor<2x8x256xf32>)
// CHECK: scf.forall.in_parallel
func.func @slice_only(%in: tensor<128x8x768xf32>) -> tensor<128x8x256xf32> {
  %s = tensor.extract_slice %in[0, 0, 256] [128, 8, 256] [1, 1, 1] : tensor<128x8x768xf32> to tensor<128x8x256xf32>
  return %s : tensor<128x8x256xf32>
}

// -----

// Two matmuls cut into row and column tiles: with more rows than columns
// (the input outweighs the weights) the row tiles come first, so two
// workers split the rows; with more columns than rows, the column tiles.
// CHECK-LABEL: func.func @rows_first
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (1024, 768) step (256, 256)
// CHECK-LABEL: func.func @columns_first
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (768, 128) step (128, 64)
func.func @rows_first(%a: tensor<1024x256xf32>, %b: tensor<256x768xf32>) -> tensor<1024x768xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x768xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1024x256xf32>, tensor<256x768xf32>) outs(%f : tensor<1024x768xf32>) -> tensor<1024x768xf32>
  return %r : tensor<1024x768xf32>
}

func.func @columns_first(%a: tensor<128x256xf32>, %b: tensor<256x768xf32>) -> tensor<128x768xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x768xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x768xf32>) -> tensor<128x768xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x256xf32>, tensor<256x768xf32>) outs(%f : tensor<128x768xf32>) -> tensor<128x768xf32>
  return %r : tensor<128x768xf32>
}

// -----

// A split reduction's partial extremes (256 groups of 2352 rows of 16
// lanes): the groups are cut, the 16 lanes (one 64-byte line a row) are
// not, though the work asks for more workgroups than there are groups.
// CHECK-LABEL: func.func @partial_extremes
// CHECK: scf.forall (%{{.*}}) in (256)
// CHECK:   linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2352x16xf32>) outs(%{{.*}} : tensor<1x16xf32>)
func.func @partial_extremes(%x: tensor<256x2352x16xf32>) -> tensor<256x16xf32> {
  %inf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<256x16xf32>
  %f = linalg.fill ins(%inf : f32) outs(%e : tensor<256x16xf32>) -> tensor<256x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : tensor<256x2352x16xf32>) outs(%f : tensor<256x16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.minimumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<256x16xf32>
  return %r : tensor<256x16xf32>
}

// -----

// Partial minimums and maximums in one op, written through one map: the
// lanes stay whole for both.
// CHECK-LABEL: func.func @partial_range
// CHECK: scf.forall (%{{.*}}) in (256)
// CHECK:   linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2352x16xf32>) outs(%{{.*}}, %{{.*}} : tensor<1x16xf32>, tensor<1x16xf32>)
func.func @partial_range(%x: tensor<256x2352x16xf32>) -> (tensor<256x16xf32>, tensor<256x16xf32>) {
  %inf = arith.constant 0x7F800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<256x16xf32>
  %f0 = linalg.fill ins(%inf : f32) outs(%e : tensor<256x16xf32>) -> tensor<256x16xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e : tensor<256x16xf32>) -> tensor<256x16xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : tensor<256x2352x16xf32>) outs(%f0, %f1 : tensor<256x16xf32>, tensor<256x16xf32>) {
  ^bb0(%in: f32, %a: f32, %b: f32):
    %m = arith.minimumf %a, %in : f32
    %n = arith.maximumf %b, %in : f32
    linalg.yield %m, %n : f32, f32
  } -> (tensor<256x16xf32>, tensor<256x16xf32>)
  return %r#0, %r#1 : tensor<256x16xf32>, tensor<256x16xf32>
}

// -----

// A concatenation of one image whose 3x3 operand is a Winograd convolution
// (squeezenet1_1's 13x13 fire modules at batch 1): whole images (13 rows
// waste the fewest 4x4 tiles), too few bands for kWinogradWorkgroups, so
// each workgroup takes a part of every operand's channels
// (concatChannelParts): halves of 192, as quarters (48) are not whole
// panels. Each part is computed straight into its slice of the result.
// CHECK-LABEL: func.func @fused_concat_winograd_parts
// CHECK: scf.forall (%[[P:.*]]) in (2) shared_outs(%[[OUT:.*]] = %{{.*}})
// CHECK:   %[[O1:.*]] = affine.apply #{{.*}}(%[[P]])
// CHECK:   %[[D1:.*]] = tensor.extract_slice %[[OUT]][0, 0, 0, %[[O1]]] [1, 13, 13, 96]
// CHECK:   linalg.fill {{.*}} outs(%[[D1]] : tensor<1x13x13x96xf32>)
// CHECK:   %[[C1:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x13x13x96xf32>
// CHECK:   %[[BAND1:.*]] = tensor.insert_slice %[[C1]] into %[[OUT]][0, 0, 0, %[[O1]]] [1, 13, 13, 96]
// CHECK:   %[[O3:.*]] = affine.apply #{{.*}}(%[[P]])
// CHECK:   %[[D3:.*]] = tensor.extract_slice %[[BAND1]][0, 0, 0, %[[O3]]] [1, 13, 13, 96]
// CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<3x3x48x96xf32>) attrs = {strata.winograd_filter
// CHECK:   linalg.fill {{.*}} outs(%[[D3]] : tensor<1x13x13x96xf32>)
// CHECK:   %[[C3:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x13x13x96xf32>
// CHECK:   scf.forall.in_parallel
// CHECK:     tensor.parallel_insert_slice %{{.*}} into %[[OUT]][0, 0, 0, %[[O1]]] [1, 13, 13, 96]
// CHECK:     tensor.parallel_insert_slice %[[C3]] into %[[OUT]][0, 0, 0, %[[O3]]] [1, 13, 13, 96]
func.func @fused_concat_winograd_parts(%x: tensor<1x13x13x48xf32>, %w1: tensor<1x1x48x192xf32>, %p: tensor<6x6x6x48x32xf32>) -> tensor<1x13x13x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x13x13x192xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x13x13x192xf32>) -> tensor<1x13x13x192xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<1x13x13x48xf32>, tensor<1x1x48x192xf32>) outs(%f : tensor<1x13x13x192xf32>) -> tensor<1x13x13x192xf32>
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x13x13x48xf32> to tensor<1x15x15x48xf32>
  %t0 = tensor.empty() : tensor<6x6x48x6x32xf32>
  %t = linalg.transpose ins(%p : tensor<6x6x6x48x32xf32>) outs(%t0 : tensor<6x6x48x6x32xf32>) permutation = [1, 2, 3, 0, 4] {strata.packed_weight = {depth_group = 0 : i64, panel_columns = 32 : i64}}
  %u = tensor.collapse_shape %t [[0], [1], [2], [3, 4]] : tensor<6x6x48x6x32xf32> into tensor<6x6x48x192xf32>
  %l = arith.constant dense<[[2.13333344, -1.33333337, -1.33333337, 0.266666681, 0.266666681, -0.533333361], [0.0, -2.4, 2.4, 1.2, -1.2, 0.0], [-0.13333334, -0.0666666701, -0.0666666701, 0.13333334, 0.13333334, 0.933333337]]> : tensor<3x6xf32>
  %ge = tensor.empty() : tensor<3x3x48x192xf32>
  %gf = linalg.fill ins(%zero : f32) outs(%ge : tensor<3x3x48x192xf32>) -> tensor<3x3x48x192xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(ky, kx, c, f, a, b) -> (ky, a)>, affine_map<(ky, kx, c, f, a, b) -> (kx, b)>, affine_map<(ky, kx, c, f, a, b) -> (a, b, c, f)>, affine_map<(ky, kx, c, f, a, b) -> (ky, kx, c, f)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%l, %l, %u : tensor<3x6xf32>, tensor<3x6xf32>, tensor<6x6x48x192xf32>) outs(%gf : tensor<3x3x48x192xf32>) attrs = {strata.winograd_filter = {output_tile = 4 : i64}} {
  ^bb0(%la: f32, %lb: f32, %uv: f32, %acc: f32):
    %m = arith.mulf %la, %lb : f32
    %n = arith.mulf %m, %uv : f32
    %s = arith.addf %acc, %n : f32
    linalg.yield %s : f32
  } -> tensor<3x3x48x192xf32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %g : tensor<1x15x15x48xf32>, tensor<3x3x48x192xf32>) outs(%f : tensor<1x13x13x192xf32>) -> tensor<1x13x13x192xf32>
  %r = tensor.concat dim(3) %c1, %c3 : (tensor<1x13x13x192xf32>, tensor<1x13x13x192xf32>) -> tensor<1x13x13x384xf32>
  return %r : tensor<1x13x13x384xf32>
}

// -----

// The same module of a 27x27 image (squeezenet1_1's middle fire modules at
// batch 1): bands of 8 rows (two rows of 4x4 tiles, 14 tiles), the last of
// 3 (what remains), four bands in all, so the channels stay whole
// (concatWinogradBandRows).
// CHECK-LABEL: func.func @fused_concat_winograd_rows
// CHECK: scf.forall (%[[H:.*]]) = (0) to (27) step (8) shared_outs(%[[OUT:.*]] = %{{.*}})
// CHECK:   %[[ROWS:.*]] = affine.min #{{.*}}(%[[H]])
// CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x?x27x128xf32>
// CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x?x27x128xf32>
// CHECK:   scf.forall.in_parallel
// CHECK:     tensor.parallel_insert_slice %{{.*}} into %[[OUT]][0, %[[H]], 0, 0] [1, %[[ROWS]], 27, 128]
// CHECK:     tensor.parallel_insert_slice %{{.*}} into %[[OUT]][0, %[[H]], 0, 128] [1, %[[ROWS]], 27, 128]
func.func @fused_concat_winograd_rows(%x: tensor<1x27x27x32xf32>, %w1: tensor<1x1x32x128xf32>, %p: tensor<4x6x6x32x32xf32>) -> tensor<1x27x27x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x27x27x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x27x27x128xf32>) -> tensor<1x27x27x128xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<1x27x27x32xf32>, tensor<1x1x32x128xf32>) outs(%f : tensor<1x27x27x128xf32>) -> tensor<1x27x27x128xf32>
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x27x27x32xf32> to tensor<1x29x29x32xf32>
  %t0 = tensor.empty() : tensor<6x6x32x4x32xf32>
  %t = linalg.transpose ins(%p : tensor<4x6x6x32x32xf32>) outs(%t0 : tensor<6x6x32x4x32xf32>) permutation = [1, 2, 3, 0, 4] {strata.packed_weight = {depth_group = 0 : i64, panel_columns = 32 : i64}}
  %u = tensor.collapse_shape %t [[0], [1], [2], [3, 4]] : tensor<6x6x32x4x32xf32> into tensor<6x6x32x128xf32>
  %l = arith.constant dense<[[2.13333344, -1.33333337, -1.33333337, 0.266666681, 0.266666681, -0.533333361], [0.0, -2.4, 2.4, 1.2, -1.2, 0.0], [-0.13333334, -0.0666666701, -0.0666666701, 0.13333334, 0.13333334, 0.933333337]]> : tensor<3x6xf32>
  %ge = tensor.empty() : tensor<3x3x32x128xf32>
  %gf = linalg.fill ins(%zero : f32) outs(%ge : tensor<3x3x32x128xf32>) -> tensor<3x3x32x128xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(ky, kx, c, f, a, b) -> (ky, a)>, affine_map<(ky, kx, c, f, a, b) -> (kx, b)>, affine_map<(ky, kx, c, f, a, b) -> (a, b, c, f)>, affine_map<(ky, kx, c, f, a, b) -> (ky, kx, c, f)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%l, %l, %u : tensor<3x6xf32>, tensor<3x6xf32>, tensor<6x6x32x128xf32>) outs(%gf : tensor<3x3x32x128xf32>) attrs = {strata.winograd_filter = {output_tile = 4 : i64}} {
  ^bb0(%la: f32, %lb: f32, %uv: f32, %acc: f32):
    %m = arith.mulf %la, %lb : f32
    %n = arith.mulf %m, %uv : f32
    %s = arith.addf %acc, %n : f32
    linalg.yield %s : f32
  } -> tensor<3x3x32x128xf32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %g : tensor<1x29x29x32xf32>, tensor<3x3x32x128xf32>) outs(%f : tensor<1x27x27x128xf32>) -> tensor<1x27x27x128xf32>
  %r = tensor.concat dim(3) %c1, %c3 : (tensor<1x27x27x128xf32>, tensor<1x27x27x128xf32>) -> tensor<1x27x27x256xf32>
  return %r : tensor<1x27x27x256xf32>
}


// -----

// A convolution whose filter is read back from its Winograd transform
// (hasWinogradFilter), whose transform (2.25 MiB) is larger than
// kWinogradCachedTransformBytes: the most rows that waste no 4x4 tile
// (28, the whole image, rather than 4), then column tiles of whole panels
// for kWinogradWorkgroups workgroups (4 of 32 filters).
// CHECK-LABEL: func.func @winograd_tiles
// CHECK: scf.forall (%{{.*}}) = (0) to (128) step (32)
// CHECK:   linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x28x28x32xf32>
func.func @winograd_tiles(%x: tensor<1x28x28x128xf32>, %p: tensor<4x6x6x128x32xf32>) -> tensor<1x28x28x128xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x28x28x128xf32> to tensor<1x30x30x128xf32>
  %t0 = tensor.empty() : tensor<6x6x128x4x32xf32>
  %t = linalg.transpose ins(%p : tensor<4x6x6x128x32xf32>) outs(%t0 : tensor<6x6x128x4x32xf32>) permutation = [1, 2, 3, 0, 4] {strata.packed_weight = {depth_group = 0 : i64, panel_columns = 32 : i64}}
  %u = tensor.collapse_shape %t [[0], [1], [2], [3, 4]] : tensor<6x6x128x4x32xf32> into tensor<6x6x128x128xf32>
  %l = arith.constant dense<[[2.13333344, -1.33333337, -1.33333337, 0.266666681, 0.266666681, -0.533333361], [0.0, -2.4, 2.4, 1.2, -1.2, 0.0], [-0.13333334, -0.0666666701, -0.0666666701, 0.13333334, 0.13333334, 0.933333337]]> : tensor<3x6xf32>
  %ge = tensor.empty() : tensor<3x3x128x128xf32>
  %gf = linalg.fill ins(%zero : f32) outs(%ge : tensor<3x3x128x128xf32>) -> tensor<3x3x128x128xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(ky, kx, c, f, a, b) -> (ky, a)>, affine_map<(ky, kx, c, f, a, b) -> (kx, b)>, affine_map<(ky, kx, c, f, a, b) -> (a, b, c, f)>, affine_map<(ky, kx, c, f, a, b) -> (ky, kx, c, f)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%l, %l, %u : tensor<3x6xf32>, tensor<3x6xf32>, tensor<6x6x128x128xf32>) outs(%gf : tensor<3x3x128x128xf32>) attrs = {strata.winograd_filter = {output_tile = 4 : i64}} {
  ^bb0(%la: f32, %lb: f32, %uv: f32, %acc: f32):
    %m = arith.mulf %la, %lb : f32
    %n = arith.mulf %m, %uv : f32
    %s = arith.addf %acc, %n : f32
    linalg.yield %s : f32
  } -> tensor<3x3x128x128xf32>
  %e = tensor.empty() : tensor<1x28x28x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %g : tensor<1x30x30x128xf32>, tensor<3x3x128x128xf32>) outs(%f : tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32>
  return %c : tensor<1x28x28x128xf32>
}
