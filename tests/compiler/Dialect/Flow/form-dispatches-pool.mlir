// RUN: strata-opt '--strata-form-dispatches=im2col-convolutions=false fuse-into-pool=true' --canonicalize --split-input-file %s | FileCheck %s --check-prefix=FUSED
// RUN: strata-opt --strata-form-dispatches=im2col-convolutions=false --canonicalize --split-input-file %s | FileCheck %s --check-prefix=APART

// squeezenet1_1's stem: a convolution with bias and ReLU (111 x 111 x 64
// floats, 3.2 MB) read only by a max pool. With fuse-into-pool both are
// one dispatch, named after the convolution, its epilogue and the pool;
// without, two.
// FUSED-LABEL: func.func @stem(
// FUSED: flow.dispatch @module_linked_llvm_cpu::@stem_dispatch_0_conv_3x3_s2_3x64_111x111_bias_relu_maxpool_f32
// FUSED-NOT: flow.dispatch
// FUSED: flow.executable
// FUSED: func.func @stem_dispatch_0_conv_3x3_s2_3x64_111x111_bias_relu_maxpool_f32
// FUSED:   linalg.conv_2d_nhwc_hwcf
// FUSED:   linalg.generic
// FUSED:   linalg.pooling_nhwc_max
// FUSED:   return {{.*}} : tensor<1x55x55x64xf32>

// APART-LABEL: func.func @stem(
// APART: flow.dispatch {{.*}}@stem_dispatch_0_conv_3x3_s2_3x64_111x111_bias_relu_f32
// APART: flow.dispatch {{.*}}@stem_dispatch_1_maxpool_3x3_s2_64_55x55_f32
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @stem(%x: tensor<1x224x224x3xf32>, %w: tensor<3x3x3x64xf32>, %b: tensor<64xf32>) -> tensor<1x55x55x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x111x111x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x111x111x64xf32>) -> tensor<1x111x111x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x224x224x3xf32>, tensor<3x3x3x64xf32>) outs(%f : tensor<1x111x111x64xf32>) -> tensor<1x111x111x64xf32>
  %r = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<1x111x111x64xf32>, tensor<64xf32>) outs(%e : tensor<1x111x111x64xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
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

// Not fused: a result under 1 MiB (it stays in the cache between the two
// dispatches), and a convolution something else reads too.
// FUSED-LABEL: func.func @apart(
// FUSED: flow.dispatch {{.*}}_conv_3x3_16x16_30x30_f32
// FUSED: flow.dispatch {{.*}}_maxpool_2x2_s2_16_15x15_f32
// FUSED: %[[SHARED:.*]] = flow.dispatch {{.*}}_conv_3x3_16x64_64x64_f32
// FUSED: flow.dispatch {{.*}}_maxpool_2x2_s2_64_32x32_f32(%[[SHARED]])
func.func @apart(%x: tensor<1x32x32x16xf32>, %y: tensor<1x66x66x16xf32>, %w: tensor<3x3x16x16xf32>, %v: tensor<3x3x16x64xf32>) -> (tensor<1x15x15x16xf32>, tensor<1x32x32x64xf32>, tensor<1x64x64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %window = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x30x30x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x30x30x16xf32>) -> tensor<1x30x30x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x32x32x16xf32>, tensor<3x3x16x16xf32>) outs(%f : tensor<1x30x30x16xf32>) -> tensor<1x30x30x16xf32>
  %ep = tensor.empty() : tensor<1x15x15x16xf32>
  %fp = linalg.fill ins(%ninf : f32) outs(%ep : tensor<1x15x15x16xf32>) -> tensor<1x15x15x16xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%c, %window : tensor<1x30x30x16xf32>, tensor<2x2xf32>) outs(%fp : tensor<1x15x15x16xf32>) -> tensor<1x15x15x16xf32>
  %e2 = tensor.empty() : tensor<1x64x64x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x64x64x64xf32>) -> tensor<1x64x64x64xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%y, %v : tensor<1x66x66x16xf32>, tensor<3x3x16x64xf32>) outs(%f2 : tensor<1x64x64x64xf32>) -> tensor<1x64x64x64xf32>
  %ep2 = tensor.empty() : tensor<1x32x32x64xf32>
  %fp2 = linalg.fill ins(%ninf : f32) outs(%ep2 : tensor<1x32x32x64xf32>) -> tensor<1x32x32x64xf32>
  %p2 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%c2, %window : tensor<1x64x64x64xf32>, tensor<2x2xf32>) outs(%fp2 : tensor<1x32x32x64xf32>) -> tensor<1x32x32x64xf32>
  return %p, %p2, %c2 : tensor<1x15x15x16xf32>, tensor<1x32x32x64xf32>, tensor<1x64x64x64xf32>
}

// -----

// resnet18's stem: a 7x7 stride-2 convolution with bias and ReLU whose
// max pool pads it with -inf. The padding goes into the pool's dispatch
// with the convolution (the pool's microkernel skips it in place). Padded
// by another value (here one from outside), every band would copy its
// rows into a padded window: the convolution stays a dispatch of its own,
// the pad goes with the pool.
// FUSED-LABEL: func.func @padded(
// FUSED: flow.dispatch @module_linked_llvm_cpu::@padded_dispatch_0_conv_7x7_s2_3x64_112x112_bias_relu_maxpool_f32
// FUSED: %[[CONV:.*]] = flow.dispatch {{.*}}_conv_7x7_s2_3x64_112x112_f32
// FUSED: flow.dispatch {{.*}}_maxpool_3x3_s2_64_56x56_f32(%[[CONV]], %arg3)
// FUSED: func.func @padded_dispatch_0_conv_7x7_s2_3x64_112x112_bias_relu_maxpool_f32
// FUSED:   linalg.conv_2d_nhwc_hwcf
// FUSED:   linalg.generic
// FUSED:   tensor.pad
// FUSED:   linalg.pooling_nhwc_max
// FUSED:   return {{.*}} : tensor<1x56x56x64xf32>

// APART-LABEL: func.func @padded(
// APART: flow.dispatch {{.*}}@padded_dispatch_0_conv_7x7_s2_3x64_112x112_bias_relu_f32
// APART: flow.dispatch {{.*}}@padded_dispatch_1_maxpool_3x3_s2_64_56x56_f32
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @padded(%x: tensor<1x229x229x3xf32>, %w: tensor<7x7x3x64xf32>, %b: tensor<64xf32>, %padding: f32) -> (tensor<1x56x56x64xf32>, tensor<1x56x56x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x112x112x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x112x112x64xf32>) -> tensor<1x112x112x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x229x229x3xf32>, tensor<7x7x3x64xf32>) outs(%f : tensor<1x112x112x64xf32>) -> tensor<1x112x112x64xf32>
  %r = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<1x112x112x64xf32>, tensor<64xf32>) outs(%e : tensor<1x112x112x64xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x112x112x64xf32>
  %pad = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x112x112x64xf32> to tensor<1x114x114x64xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %ep = tensor.empty() : tensor<1x56x56x64xf32>
  %fp = linalg.fill ins(%ninf : f32) outs(%ep : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%pad, %window : tensor<1x114x114x64xf32>, tensor<3x3xf32>) outs(%fp : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x229x229x3xf32>, tensor<7x7x3x64xf32>) outs(%f : tensor<1x112x112x64xf32>) -> tensor<1x112x112x64xf32>
  %pad2 = tensor.pad %c2 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %padding : f32
  } : tensor<1x112x112x64xf32> to tensor<1x114x114x64xf32>
  %p2 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%pad2, %window : tensor<1x114x114x64xf32>, tensor<3x3xf32>) outs(%fp : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %p, %p2 : tensor<1x56x56x64xf32>, tensor<1x56x56x64xf32>
}

// -----

// The same stem with a batch known only at run time (a module compiled
// once for any batch), with the import's shape checks: the pool's batch is
// asked of the padded result, whose size comes from the pad's source and
// from the epilogue's init, so the checks read no op's result and the
// convolution still has one use. An image of its result (3.2 MB) is what
// counts.
// FUSED-LABEL: func.func @padded_dynamic_batch(
// FUSED: flow.dispatch @module_linked_llvm_cpu::@padded_dynamic_batch_dispatch_0_conv_7x7_s2_3x64_112x112_nD_bias_relu_maxpool_f32
// FUSED-NOT: flow.dispatch
// FUSED: return
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @padded_dynamic_batch(%x: tensor<?x229x229x3xf32>, %w: tensor<7x7x3x64xf32>, %b: tensor<64xf32>) -> tensor<?x56x56x64xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x229x229x3xf32>
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty(%n) : tensor<?x112x112x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x112x112x64xf32>) -> tensor<?x112x112x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<?x229x229x3xf32>, tensor<7x7x3x64xf32>) outs(%f : tensor<?x112x112x64xf32>) -> tensor<?x112x112x64xf32>
  %r = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<?x112x112x64xf32>, tensor<64xf32>) outs(%e : tensor<?x112x112x64xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x112x112x64xf32>
  %pad = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<?x112x112x64xf32> to tensor<?x114x114x64xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %ep = tensor.empty(%n) : tensor<?x56x56x64xf32>
  %fp = linalg.fill ins(%ninf : f32) outs(%ep : tensor<?x56x56x64xf32>) -> tensor<?x56x56x64xf32>
  %np = tensor.dim %pad, %c0 : tensor<?x114x114x64xf32>
  util.assert_eq %np, %n, "'linalg.pooling_nhwc_max': dimension 0 of operand 0 and dimension 0 of operand 2 must be equal" : index
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%pad, %window : tensor<?x114x114x64xf32>, tensor<3x3xf32>) outs(%fp : tensor<?x56x56x64xf32>) -> tensor<?x56x56x64xf32>
  return %p : tensor<?x56x56x64xf32>
}

// -----

// squeezenet1_1's classifier: a 1x1 convolution whose bias, ReLU and
// global average pool the import writes as one reduction over rows and
// columns and a division. With fuse-into-pool the convolution is computed
// in the pool's dispatch, named after the convolution, what the reduction
// does to each value and the pool; without, two dispatches.
// FUSED-LABEL: func.func @global_pool(
// FUSED: flow.dispatch @module_linked_llvm_cpu::@global_pool_dispatch_{{[0-9]+}}_conv_1x1_512x1000_13x13_n8_bias_relu_globalpool_f32
// FUSED-NOT: flow.dispatch
// FUSED: return

// APART-LABEL: func.func @global_pool(
// APART: flow.dispatch {{.*}}_conv_1x1_512x1000_13x13_n8_f32
// APART: flow.dispatch {{.*}}_reduction_8x1000x13x13_f32
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

// Not fused: a reduction over the channels (its parallel loops are the
// pixels), one over the rows only, a global pool that keeps its unit
// rows and columns (1x1x1x96: the code generator cuts images x channels),
// a reduction over rows and channels whose result is images x columns, and
// a global pool whose result is channels x images.
// FUSED-LABEL: func.func @not_global(
// FUSED: flow.dispatch {{.*}}_conv_1x1_64x96_13x13_f32
// FUSED: flow.dispatch {{.*}}_reduction_
// FUSED: flow.dispatch {{.*}}_conv_1x1_64x96_13x13_f32
// FUSED: flow.dispatch {{.*}}_reduction_
// FUSED: flow.dispatch {{.*}}_conv_1x1_64x96_13x13_f32
// FUSED: flow.dispatch {{.*}}_reduction_
// FUSED: flow.dispatch {{.*}}_conv_1x1_64x96_13x13_f32
// FUSED: flow.dispatch {{.*}}_reduction_
// FUSED: flow.dispatch {{.*}}_conv_1x1_64x96_13x13_f32
// FUSED: flow.dispatch {{.*}}_reduction_
func.func @not_global(%x: tensor<1x13x13x64xf32>, %w: tensor<1x1x64x96xf32>, %w2: tensor<1x1x64x96xf32>, %w3: tensor<1x1x64x96xf32>, %w4: tensor<1x1x64x96xf32>, %w5: tensor<1x1x64x96xf32>) -> (tensor<1x13x13xf32>, tensor<1x13x96xf32>, tensor<1x1x1x96xf32>, tensor<1x13xf32>, tensor<96x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x13x13x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x13x13x96xf32>) -> tensor<1x13x13x96xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x13x13x64xf32>, tensor<1x1x64x96xf32>) outs(%f : tensor<1x13x13x96xf32>) -> tensor<1x13x13x96xf32>
  %ep = tensor.empty() : tensor<1x13x13xf32>
  %fp = linalg.fill ins(%zero : f32) outs(%ep : tensor<1x13x13xf32>) -> tensor<1x13x13xf32>
  %channels = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%c : tensor<1x13x13x96xf32>) outs(%fp : tensor<1x13x13xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.addf %o, %v : f32
    linalg.yield %t : f32
  } -> tensor<1x13x13xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w2 : tensor<1x13x13x64xf32>, tensor<1x1x64x96xf32>) outs(%f : tensor<1x13x13x96xf32>) -> tensor<1x13x13x96xf32>
  %er = tensor.empty() : tensor<1x13x96xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<1x13x96xf32>) -> tensor<1x13x96xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(n, w, c, h) -> (n, h, w, c)>, affine_map<(n, w, c, h) -> (n, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%c2 : tensor<1x13x13x96xf32>) outs(%fr : tensor<1x13x96xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.addf %o, %v : f32
    linalg.yield %t : f32
  } -> tensor<1x13x96xf32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w3 : tensor<1x13x13x64xf32>, tensor<1x1x64x96xf32>) outs(%f : tensor<1x13x13x96xf32>) -> tensor<1x13x13x96xf32>
  %ek = tensor.empty() : tensor<1x1x1x96xf32>
  %fk = linalg.fill ins(%zero : f32) outs(%ek : tensor<1x1x1x96xf32>) -> tensor<1x1x1x96xf32>
  %kept = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, 0, 0, c)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%c3 : tensor<1x13x13x96xf32>) outs(%fk : tensor<1x1x1x96xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.addf %o, %v : f32
    linalg.yield %t : f32
  } -> tensor<1x1x1x96xf32>
  %c4 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w4 : tensor<1x13x13x64xf32>, tensor<1x1x64x96xf32>) outs(%f : tensor<1x13x13x96xf32>) -> tensor<1x13x13x96xf32>
  %ec = tensor.empty() : tensor<1x13xf32>
  %fc = linalg.fill ins(%zero : f32) outs(%ec : tensor<1x13xf32>) -> tensor<1x13xf32>
  %columns = linalg.generic {indexing_maps = [affine_map<(n, w, h, c) -> (n, h, w, c)>, affine_map<(n, w, h, c) -> (n, w)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%c4 : tensor<1x13x13x96xf32>) outs(%fc : tensor<1x13xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.addf %o, %v : f32
    linalg.yield %t : f32
  } -> tensor<1x13xf32>
  %c5 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w5 : tensor<1x13x13x64xf32>, tensor<1x1x64x96xf32>) outs(%f : tensor<1x13x13x96xf32>) -> tensor<1x13x13x96xf32>
  %et = tensor.empty() : tensor<96x1xf32>
  %ft = linalg.fill ins(%zero : f32) outs(%et : tensor<96x1xf32>) -> tensor<96x1xf32>
  %transposed = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (c, n)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%c5 : tensor<1x13x13x96xf32>) outs(%ft : tensor<96x1xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.addf %o, %v : f32
    linalg.yield %t : f32
  } -> tensor<96x1xf32>
  return %channels, %rows, %kept, %columns, %transposed : tensor<1x13x13xf32>, tensor<1x13x96xf32>, tensor<1x1x1x96xf32>, tensor<1x13xf32>, tensor<96x1xf32>
}

// -----

// resnet18's tail: the residual block's last convolution, its bias, the
// residual and ReLU, the global average pool and the classifier's matmul.
// The pool and its average are not computed in the matmul's dispatch
// (each of its workgroups would pool again: isTransposedMatmulOperand
// takes no relayout of a reduction's result); the convolution and its
// epilogue are computed in the pool's (isFusedIntoGlobalPool), and the
// matmul reads the pooled images x channels.
// FUSED-LABEL: func.func @pool_in_matmul(
// FUSED: %[[P:.*]] = flow.dispatch {{.*}}_conv_3x3_64x64_7x7_n2_bias_add_relu_globalpool_f32({{.*}}) : ({{.*}}) -> tensor<2x64xf32>
// FUSED: flow.dispatch {{.*}}_matmul_2x100x64_f32(%[[P]],
// FUSED-NOT: flow.dispatch
// FUSED: func.func @pool_in_matmul_dispatch_{{[0-9]+}}_conv_3x3_64x64_7x7_n2_bias_add_relu_globalpool_f32(
// FUSED-NOT: func.func
// FUSED: linalg.conv_2d_nhwc_hwcf
// FUSED-NOT: func.func
// FUSED: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// FUSED: func.func @pool_in_matmul_dispatch_{{[0-9]+}}_matmul_2x100x64_f32(
// FUSED-NOT: linalg.generic
// FUSED: linalg.matmul
func.func @pool_in_matmul(%x: tensor<2x9x9x64xf32>, %w: tensor<3x3x64x64xf32>, %b: tensor<64xf32>, %res: tensor<2x7x7x64xf32>, %fc: tensor<64x100xf32>) -> tensor<2x100xf32> {
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 49.0 : f32
  %e = tensor.empty() : tensor<2x7x7x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x7x7x64xf32>) -> tensor<2x7x7x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x9x9x64xf32>, tensor<3x3x64x64xf32>) outs(%f : tensor<2x7x7x64xf32>) -> tensor<2x7x7x64xf32>
  %act = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b, %res : tensor<2x7x7x64xf32>, tensor<64xf32>, tensor<2x7x7x64xf32>) outs(%e : tensor<2x7x7x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %r: f32, %o: f32):
    %a = arith.addf %v, %bias : f32
    %a2 = arith.addf %a, %r : f32
    %m = arith.maximumf %a2, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x7x7x64xf32>
  %e2 = tensor.empty() : tensor<2x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x64xf32>) -> tensor<2x64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%act : tensor<2x7x7x64xf32>) outs(%f2 : tensor<2x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.addf %o, %v : f32
    linalg.yield %t : f32
  } -> tensor<2x64xf32>
  %avg = linalg.generic {indexing_maps = [affine_map<(n, c) -> (n, c)>, affine_map<(n, c) -> (n, c)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<2x64xf32>) outs(%e2 : tensor<2x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.divf %v, %count : f32
    linalg.yield %d : f32
  } -> tensor<2x64xf32>
  %e3 = tensor.empty() : tensor<2x100xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x100xf32>) -> tensor<2x100xf32>
  %y = linalg.matmul ins(%avg, %fc : tensor<2x64xf32>, tensor<64x100xf32>) outs(%f3 : tensor<2x100xf32>) -> tensor<2x100xf32>
  return %y : tensor<2x100xf32>
}
