// RUN: strata-opt --strata-form-dispatches=im2col-min-work=262144 --canonicalize --split-input-file %s | FileCheck %s
// RUN: strata-opt --strata-form-dispatches=im2col-convolutions=false --canonicalize --split-input-file %s | FileCheck %s --check-prefix=NOIM2COL

// A matmul with its zero fill, then bias + relu: the elementwise ops fuse
// into one generic, and the matmul is computed inside that generic's
// dispatch (its only consumer). The host keeps one call; the executable
// holds the kernel.
// CHECK-LABEL: module @mlp
// CHECK: func.func @main(%[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[R:.*]] = flow.dispatch @mlp_linked_llvm_cpu::@main_dispatch_0_matmul_4x8x16_f32(%[[X]], %[[W]], %[[B]])
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: func.func private
// CHECK: flow.executable @mlp_linked_llvm_cpu {
// CHECK-NEXT: builtin.module {
// CHECK: func.func @main_dispatch_0_matmul_4x8x16_f32(
// CHECK: linalg.fill
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK-NOT: func.func
module @mlp {
  func.func @main(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %mm = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%fill : tensor<4x8xf32>) -> tensor<4x8xf32>
    %bb = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
    %add = linalg.add ins(%mm, %bb : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %relu = linalg.max ins(%add, %fill : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    return %relu : tensor<4x8xf32>
  }
}

// -----

// Two dispatches with the same body share one kernel.
// CHECK-LABEL: module @dedup
// CHECK: %[[A:.*]] = flow.dispatch @dedup_linked_llvm_cpu::@f_dispatch_0_elementwise_8_f32(%{{.*}}, %{{.*}})
// CHECK: %[[B:.*]] = flow.dispatch @dedup_linked_llvm_cpu::@f_dispatch_0_elementwise_8_f32(%[[A]], %{{.*}})
// CHECK-NOT: f_dispatch_1
module @dedup {
  func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
    %e = tensor.empty() : tensor<8xf32>
    %0 = linalg.add ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %1 = linalg.add ins(%0, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %2 = func.call @keep(%0) : (tensor<8xf32>) -> tensor<8xf32>
    return %1 : tensor<8xf32>
  }
  func.func private @keep(%t: tensor<8xf32>) -> tensor<8xf32> {
    return %t : tensor<8xf32>
  }
}

// -----

// A reduction and a returned constant tensor each get a dispatch.
// CHECK-LABEL: module @kinds
// CHECK-DAG: flow.dispatch @kinds_linked_llvm_cpu::@g_dispatch_0_reduce_4x8_i32
// CHECK-DAG: flow.dispatch @kinds_linked_llvm_cpu::@g_dispatch_1_constant_2_i32
module @kinds {
  func.func @g(%a: tensor<4x8xi32>) -> (tensor<4xi32>, tensor<2xi32>) {
    %c0 = arith.constant 0 : i32
    %e = tensor.empty() : tensor<4xi32>
    %z = linalg.fill ins(%c0 : i32) outs(%e : tensor<4xi32>) -> tensor<4xi32>
    %r = linalg.reduce ins(%a : tensor<4x8xi32>) outs(%z : tensor<4xi32>) dimensions = [1]
      (%in: i32, %acc: i32) {
        %s = arith.addi %in, %acc : i32
        linalg.yield %s : i32
      }
    %k = arith.constant dense<[1, 2]> : tensor<2xi32>
    return %r, %k : tensor<4xi32>, tensor<2xi32>
  }
}

// -----

// Scalars computed on the host are passed to the dispatch after its
// tensors (push constants).
// CHECK-LABEL: module @scalars
// CHECK: func.func @f(%[[A:.*]]: tensor<4xf32>, %[[S:.*]]: f32)
// CHECK: %[[T:.*]] = arith.mulf %[[S]], %[[S]]
// CHECK: flow.dispatch @scalars_linked_llvm_cpu::@f_dispatch_0_elementwise_4_f32(%[[A]], %[[T]]) : (tensor<4xf32>, f32) -> tensor<4xf32>
module @scalars {
  func.func @f(%a: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
    %t = arith.mulf %s, %s : f32
    %e = tensor.empty() : tensor<4xf32>
    %f = linalg.fill ins(%t : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %r = linalg.add ins(%a, %f : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
}

// -----

// Dynamic dimensions: the dispatch takes its tensors, its scalars (the row
// count the tensor.empty inside needs, the factor), then the sizes of the
// dynamic dimensions of its tensor argument and of its result, read on the
// host from the argument's view.
// CHECK-LABEL: func.func @scale_rows
// CHECK-SAME: (%[[A:.*]]: tensor<?x8xf32>, %[[S:.*]]: f32)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[N:.*]] = tensor.dim %[[A]], %[[C0]]
// CHECK: %[[R:.*]] = flow.dispatch @module_linked_llvm_cpu::@scale_rows_dispatch_0_elementwise_Dx8_f32(%[[A]], %[[N]], %[[S]], %{{.*}}, %{{.*}}) : (tensor<?x8xf32>, index, f32, index, index) -> tensor<?x8xf32>
// CHECK: return %[[R]]
// CHECK: func.func @scale_rows_dispatch_0_elementwise_Dx8_f32(%[[KA:.*]]: tensor<?x8xf32>, %[[KN:.*]]: index, %[[KS:.*]]: f32, %{{.*}}: index, %{{.*}}: index) -> tensor<?x8xf32>
// CHECK: tensor.empty(%[[KN]]) : tensor<?x8xf32>
func.func @scale_rows(%a: tensor<?x8xf32>, %s: f32) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.mulf %x, %s : f32
      linalg.yield %y : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// Static reshapes stay on the host (a view of the same buffer), between
// the dispatches that produce and read them.
// CHECK-LABEL: func.func @reshape_between
// CHECK: %[[D:.*]] = flow.dispatch @module_linked_llvm_cpu::@reshape_between_dispatch_0_elementwise_2x3_f32
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[D]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: flow.dispatch @module_linked_llvm_cpu::@reshape_between_dispatch_1_elementwise_6_f32(%[[R]])
func.func @reshape_between(%a: tensor<2x3xf32>) -> tensor<6xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %d = linalg.add ins(%a, %a : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = tensor.collapse_shape %d [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %e6 = tensor.empty() : tensor<6xf32>
  %m = linalg.mul ins(%r, %r : tensor<6xf32>, tensor<6xf32>) outs(%e6 : tensor<6xf32>) -> tensor<6xf32>
  return %m : tensor<6xf32>
}

// -----

// A static f32 conv with enough work: im2col (affine in every index) and a
// matmul, each a dispatch, with host views (reshapes) around them; the
// zero fill is remade in 2-D inside the matmul's dispatch.
// CHECK: #[[IM2COL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d3, d2 + d4, d5)>
// CHECK-LABEL: func.func @conv
// CHECK: %[[COLS:.*]] = flow.dispatch @module_linked_llvm_cpu::@conv_dispatch_{{[0-9]+}}_generic_1x8x8x3x3x16_f32(%{{.*}}) : (tensor<1x10x10x16xf32>) -> tensor<1x8x8x3x3x16xf32>
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[COLS]] {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<1x8x8x3x3x16xf32> into tensor<64x144xf32>
// CHECK: %[[B:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : tensor<3x3x16x32xf32> into tensor<144x32xf32>
// CHECK: %[[M:.*]] = flow.dispatch @module_linked_llvm_cpu::@conv_dispatch_{{[0-9]+}}_matmul_64x32x144_f32(%[[A]], %[[B]])
// CHECK: tensor.expand_shape %[[M]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 8, 8, 32]
// CHECK: func.func @conv_dispatch_{{[0-9]+}}_generic_1x8x8x3x3x16_f32
// CHECK: linalg.generic {indexing_maps = [#[[IM2COL]], #{{.*}}]
// CHECK: func.func @conv_dispatch_{{[0-9]+}}_matmul_64x32x144_f32
// CHECK: linalg.fill
// CHECK: linalg.matmul
func.func @conv(%x: tensor<1x10x10x16xf32>, %w: tensor<3x3x16x32xf32>) -> tensor<1x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x32xf32>) outs(%f : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %r : tensor<1x8x8x32xf32>
}

// -----

// A constant pad read only by a convolution is computed inside the
// convolution's dispatch (each workgroup pads the window its tile reads);
// a pad with another reader is a fill and an insert of its own.
// CHECK-LABEL: func.func @padded_conv(
// CHECK: flow.dispatch @module_linked_llvm_cpu::@padded_conv_dispatch_0_conv_3x3_3x8_4x4_f32(%arg0, %{{.*}})
// CHECK-NOT: flow.dispatch
// CHECK: func.func @padded_conv_dispatch_0_conv_3x3_3x8_4x4_f32
// CHECK: tensor.pad
// CHECK: linalg.conv_2d_nhwc_hwcf
func.func @padded_conv(%x: tensor<1x4x4x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x4x3xf32> to tensor<1x6x6x3xf32>
  %e = tensor.empty() : tensor<1x4x4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x6x6x3xf32>, tensor<3x3x3x8xf32>) outs(%f : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %r : tensor<1x4x4x8xf32>
}

// -----

// With a dynamic batch that the pad leaves alone, the pad goes into the
// convolution's dispatch as well, even when the batch of the padded tensor
// is read (a size query resolves to the pad's source).
// CHECK-LABEL: func.func @padded_conv_dynamic_batch(
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK: flow.dispatch @module_linked_llvm_cpu::@padded_conv_dynamic_batch_dispatch_0_conv_3x3_3x8_4x4_nD_f32(%arg0, %{{.*}}, %[[N]]
// CHECK-NOT: flow.dispatch
// CHECK: return
// CHECK: func.func @padded_conv_dynamic_batch_dispatch_0_conv_3x3_3x8_4x4_nD_f32
// CHECK: tensor.pad
// CHECK: linalg.conv_2d_nhwc_hwcf
func.func @padded_conv_dynamic_batch(%x: tensor<?x4x4x3xf32>, %w: tensor<3x3x3x8xf32>) -> (tensor<?x4x4x8xf32>, index) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<?x4x4x3xf32> to tensor<?x6x6x3xf32>
  %n = tensor.dim %p, %c0 : tensor<?x6x6x3xf32>
  %e = tensor.empty(%n) : tensor<?x4x4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4x4x8xf32>) -> tensor<?x4x4x8xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<?x6x6x3xf32>, tensor<3x3x3x8xf32>) outs(%f : tensor<?x4x4x8xf32>) -> tensor<?x4x4x8xf32>
  return %r, %n : tensor<?x4x4x8xf32>, index
}

// -----

// A constant pad read only by a gather of its windows (an int8
// convolution's im2col: every loop parallel, the padded tensor read through
// a window map) goes into the gather's dispatch as well; an elementwise
// reader (a permutation map) keeps the pad a dispatch of its own.
// CHECK-LABEL: func.func @padded_im2col(
// CHECK: flow.dispatch @module_linked_llvm_cpu::@padded_im2col_dispatch_0_generic_1x4x4x3x3x3_i8(%arg0)
// CHECK-NOT: insert_slice
// CHECK: func.func @padded_im2col_dispatch_0_generic_1x4x4x3x3x3_i8
// CHECK: tensor.pad
// CHECK: linalg.generic
#im2col_in = affine_map<(n, y, x, i, j, c) -> (n, y + i, x + j, c)>
#im2col_out = affine_map<(n, y, x, i, j, c) -> (n, y, x, i, j, c)>
func.func @padded_im2col(%x: tensor<1x4x4x3xi8>) -> tensor<1x4x4x3x3x3xi8> {
  %zp = arith.constant 7 : i8
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zp : i8
  } : tensor<1x4x4x3xi8> to tensor<1x6x6x3xi8>
  %e = tensor.empty() : tensor<1x4x4x3x3x3xi8>
  %g = linalg.generic {indexing_maps = [#im2col_in, #im2col_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<1x6x6x3xi8>) outs(%e : tensor<1x4x4x3x3x3xi8>) {
  ^bb0(%in: i8, %out: i8):
    %f = arith.xori %in, %zp : i8
    linalg.yield %f : i8
  } -> tensor<1x4x4x3x3x3xi8>
  return %g : tensor<1x4x4x3x3x3xi8>
}

// -----

// CHECK-LABEL: func.func @padded_elementwise(
// CHECK: flow.dispatch @module_linked_llvm_cpu::@padded_elementwise_dispatch_0_insert_slice_1x6x6x3_i8(%arg0)
// CHECK: flow.dispatch @module_linked_llvm_cpu::@padded_elementwise_dispatch_1_elementwise_1x6x6x3_i8
#id4 = affine_map<(n, y, x, c) -> (n, y, x, c)>
func.func @padded_elementwise(%x: tensor<1x4x4x3xi8>) -> tensor<1x6x6x3xi8> {
  %zp = arith.constant 7 : i8
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zp : i8
  } : tensor<1x4x4x3xi8> to tensor<1x6x6x3xi8>
  %e = tensor.empty() : tensor<1x6x6x3xi8>
  %g = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<1x6x6x3xi8>) outs(%e : tensor<1x6x6x3xi8>) {
  ^bb0(%in: i8, %out: i8):
    %f = arith.xori %in, %zp : i8
    linalg.yield %f : i8
  } -> tensor<1x6x6x3xi8>
  return %g : tensor<1x6x6x3xi8>
}

// -----

// CHECK-LABEL: func.func @pad_twice_read(
// CHECK: flow.dispatch @module_linked_llvm_cpu::@pad_twice_read_dispatch_0_insert_slice_1x6x6x3_f32(%arg0)
// CHECK: func.func @pad_twice_read_dispatch_0_insert_slice_1x6x6x3_f32
// CHECK: linalg.fill
// CHECK: tensor.insert_slice
func.func @pad_twice_read(%x: tensor<1x4x4x3xf32>) -> (tensor<1x6x6x3xf32>, tensor<1x6x6x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x4x3xf32> to tensor<1x6x6x3xf32>
  return %p, %p : tensor<1x6x6x3xf32>, tensor<1x6x6x3xf32>
}

// -----

// A static-to-dynamic tensor.cast feeding a barrier is a dispatch whose
// result size comes from the cast's source (a constant here), not from a
// tensor.dim of its own result, which would read it before it exists.
// CHECK-LABEL: func.func @cast_to_dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>)
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[D:.*]] = flow.dispatch @module_linked_llvm_cpu::@cast_to_dynamic_dispatch_{{[0-9]+}}_cast_D_f32(%[[A]], %[[C4]]) : (tensor<4xf32>, index) -> tensor<?xf32>
// CHECK: util.optimization_barrier %[[D]] : tensor<?xf32>
func.func @cast_to_dynamic(%a: tensor<4xf32>) -> tensor<?xf32> {
  %c = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
  %b = util.optimization_barrier %c : tensor<?xf32>
  return %b : tensor<?xf32>
}

// -----

// A fill of dynamic size that reaches the host takes its tensor.empty into
// its dispatch (no dispatch of its own for the empty).
// CHECK-LABEL: func.func @dynamic_fill
// CHECK: %[[F:.*]] = flow.dispatch @module_linked_llvm_cpu::@dynamic_fill_dispatch_{{[0-9]+}}_fill_DxD_f32(
// CHECK-NOT: flow.dispatch
// CHECK: return %[[F]]
// CHECK: func.func @dynamic_fill_dispatch_{{[0-9]+}}_fill_DxD_f32
// CHECK: tensor.empty
// CHECK: linalg.fill
func.func @dynamic_fill(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %cst = arith.constant 3.0 : f32
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %f : tensor<?x?xf32>
}

// -----

// Two convolutions fused into one dispatch through the add that reads both
// (a residual block's second conv and its downsample): the dispatch is
// named after the one doing more work, the 3x3.
// NOIM2COL-LABEL: func.func @two_convs
// NOIM2COL: flow.dispatch @module_linked_llvm_cpu::@two_convs_dispatch_0_conv_3x3_64x64_28x28_add_f32(
// NOIM2COL-NOT: flow.dispatch
func.func @two_convs(%x: tensor<1x30x30x64xf32>, %w: tensor<3x3x64x64xf32>, %y: tensor<1x28x28x32xf32>, %v: tensor<1x1x32x64xf32>) -> tensor<1x28x28x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x28x28x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x30x30x64xf32>, tensor<3x3x64x64xf32>) outs(%f : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%y, %v : tensor<1x28x28x32xf32>, tensor<1x1x32x64xf32>) outs(%f : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c3, %c1 : tensor<1x28x28x64xf32>, tensor<1x28x28x64xf32>) outs(%e : tensor<1x28x28x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x28x28x64xf32>
  return %r : tensor<1x28x28x64xf32>
}

// -----

// A convolution of a dynamic batch is named as a static one is, the batch
// as "_nD" (it was "_n-9223372036854775808", kDynamic printed).
// CHECK-LABEL: func.func @conv_dynamic_batch
// CHECK: flow.dispatch @{{.*}}::@conv_dynamic_batch_dispatch_0_conv_3x3_4x8_8x8_nD_f32(
// NOIM2COL-LABEL: func.func @conv_dynamic_batch
// NOIM2COL: flow.dispatch @{{.*}}::@conv_dynamic_batch_dispatch_0_conv_3x3_4x8_8x8_nD_f32(
func.func @conv_dynamic_batch(%x: tensor<?x10x10x4xf32>) -> tensor<?x8x8x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x10x10x4xf32>
  %w = arith.constant dense<0.5> : tensor<3x3x4x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x8x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x10x10x4xf32>, tensor<3x3x4x8xf32>) outs(%init : tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
  return %r : tensor<?x8x8x8xf32>
}

// -----

// A quantized 1x1 layer's requantization on the matmul's 2-D result, the
// reshape back to NHWC, then the next depthwise layer's u8 shift (xori
// 0x80): the shift is computed on the collapsed shape and fuses into the
// matmul's epilogue, one dispatch, no elementwise dispatch of its own.
// CHECK-LABEL: func.func @shift_after_reshape
// CHECK: flow.dispatch @{{.*}}::@shift_after_reshape_dispatch_0_matmul_64x16x8_i32(
// CHECK-NOT: flow.dispatch
// CHECK: tensor.expand_shape
// CHECK: func.func @shift_after_reshape_dispatch_0_matmul_64x16x8_i32
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.trunci
// CHECK: arith.xori
// NOIM2COL-LABEL: func.func @shift_after_reshape
func.func @shift_after_reshape(%a: tensor<64x8xi8>, %b: tensor<8x16xi8>) -> tensor<1x8x8x16xi8> {
  %zero = arith.constant 0 : i32
  %flip = arith.constant -128 : i8
  %e = tensor.empty() : tensor<64x16xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<64x16xi32>) -> tensor<64x16xi32>
  %m = linalg.matmul ins(%a, %b : tensor<64x8xi8>, tensor<8x16xi8>) outs(%f : tensor<64x16xi32>) -> tensor<64x16xi32>
  %e8 = tensor.empty() : tensor<64x16xi8>
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<64x16xi32>) outs(%e8 : tensor<64x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  } -> tensor<64x16xi8>
  %x = tensor.expand_shape %q [[0, 1, 2], [3]] output_shape [1, 8, 8, 16] : tensor<64x16xi8> into tensor<1x8x8x16xi8>
  %e4 = tensor.empty() : tensor<1x8x8x16xi8>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x8x8x16xi8>) outs(%e4 : tensor<1x8x8x16xi8>) {
  ^bb0(%in: i8, %o: i8):
    %u = arith.xori %in, %flip : i8
    linalg.yield %u : i8
  } -> tensor<1x8x8x16xi8>
  return %s : tensor<1x8x8x16xi8>
}

// -----

// ONNX MatMul on 3-D activations: a 2-D matmul, the reshape back to
// sequence x batch x features, then the bias and ReLU. The elementwise op is
// computed on the collapsed shape and fuses into the matmul's dispatch (its
// microkernel's epilogue), with the bias read along the collapsed columns;
// the reshape stays on the host. A result the reshape hands to two readers
// is left alone (the matmul's dispatch would have to write it twice).
// CHECK-LABEL: func.func @bias_relu_after_reshape
// CHECK: %[[D:.*]] = flow.dispatch @{{.*}}::@bias_relu_after_reshape_dispatch_0_matmul_48x32x16_f32(
// CHECK-NOT: flow.dispatch
// CHECK: tensor.expand_shape %[[D]] {{\[\[}}0, 1], [2]] output_shape [12, 4, 32]
// CHECK-LABEL: func.func @bias_after_shared_reshape
// CHECK: flow.dispatch @{{.*}}::@bias_after_shared_reshape_dispatch_{{[0-9]+}}_matmul_48x32x16_f32(
// CHECK: tensor.expand_shape
// CHECK: flow.dispatch @{{.*}}::@bias_after_shared_reshape_dispatch_{{[0-9]+}}_elementwise_12x4x32_f32(
// CHECK: func.func @bias_relu_after_reshape_dispatch_0_matmul_48x32x16_f32
// CHECK: linalg.matmul
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%arg0, %{{.*}} : tensor<32xf32>, tensor<48x32xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// NOIM2COL-LABEL: func.func @bias_relu_after_reshape
func.func @bias_relu_after_reshape(%a: tensor<48x16xf32>, %b: tensor<16x32xf32>, %bias: tensor<32xf32>) -> tensor<12x4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<48x32xf32>) -> tensor<48x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<48x16xf32>, tensor<16x32xf32>) outs(%f : tensor<48x32xf32>) -> tensor<48x32xf32>
  %x = tensor.expand_shape %m [[0, 1], [2]] output_shape [12, 4, 32] : tensor<48x32xf32> into tensor<12x4x32xf32>
  %e3 = tensor.empty() : tensor<12x4x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias, %x : tensor<32xf32>, tensor<12x4x32xf32>) outs(%e3 : tensor<12x4x32xf32>) {
  ^bb0(%c: f32, %in: f32, %o: f32):
    %t = arith.addf %c, %in : f32
    %u = arith.maximumf %t, %zero : f32
    linalg.yield %u : f32
  } -> tensor<12x4x32xf32>
  return %r : tensor<12x4x32xf32>
}

func.func @bias_after_shared_reshape(%a: tensor<48x16xf32>, %b: tensor<16x32xf32>, %bias: tensor<32xf32>) -> (tensor<12x4x32xf32>, tensor<12x4x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<48x32xf32>) -> tensor<48x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<48x16xf32>, tensor<16x32xf32>) outs(%f : tensor<48x32xf32>) -> tensor<48x32xf32>
  %x = tensor.expand_shape %m [[0, 1], [2]] output_shape [12, 4, 32] : tensor<48x32xf32> into tensor<12x4x32xf32>
  %e3 = tensor.empty() : tensor<12x4x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias, %x : tensor<32xf32>, tensor<12x4x32xf32>) outs(%e3 : tensor<12x4x32xf32>) {
  ^bb0(%c: f32, %in: f32, %o: f32):
    %t = arith.addf %c, %in : f32
    linalg.yield %t : f32
  } -> tensor<12x4x32xf32>
  return %r, %x : tensor<12x4x32xf32>, tensor<12x4x32xf32>
}

// -----

// The same at batch 1 of a sequence-first encoder: the reshape adds a unit
// dimension among the others (48x32 -> 48x1x32), which the collapsing
// fusion leaves; the unit dimension is dropped from the bias op instead,
// which then reads the matmul's result as it is and joins its dispatch.
// CHECK-LABEL: func.func @bias_after_unit_reshape
// CHECK: %[[D:.*]] = flow.dispatch @{{.*}}::@bias_after_unit_reshape_dispatch_0_matmul_48x32x16_f32(
// CHECK-NOT: flow.dispatch
// CHECK: tensor.expand_shape %[[D]] {{\[\[}}0, 1], [2]] output_shape [48, 1, 32]
// CHECK: func.func @bias_after_unit_reshape_dispatch_0_matmul_48x32x16_f32
// CHECK: linalg.matmul
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]}
// CHECK: arith.addf
func.func @bias_after_unit_reshape(%a: tensor<48x16xf32>, %b: tensor<16x32xf32>, %bias: tensor<32xf32>) -> tensor<48x1x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<48x32xf32>) -> tensor<48x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<48x16xf32>, tensor<16x32xf32>) outs(%f : tensor<48x32xf32>) -> tensor<48x32xf32>
  %x = tensor.expand_shape %m [[0], [1, 2]] output_shape [48, 1, 32] : tensor<48x32xf32> into tensor<48x1x32xf32>
  %e3 = tensor.empty() : tensor<48x1x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias, %x : tensor<32xf32>, tensor<48x1x32xf32>) outs(%e3 : tensor<48x1x32xf32>) {
  ^bb0(%c: f32, %in: f32, %o: f32):
    %t = arith.addf %c, %in : f32
    linalg.yield %t : f32
  } -> tensor<48x1x32xf32>
  return %r : tensor<48x1x32xf32>
}

// -----

// MatMulInteger on 3-D activations with a constant weight: an i8 matmul,
// its zero-point term per column (an i32 elementwise op on the matmul),
// the reshape back, then the dequantization and bias in f32. The f32 op is
// computed on the collapsed shape too and joins the other two in one
// dispatch.
// CHECK-LABEL: func.func @dequantize_after_int8_matmul
// CHECK: %[[D:.*]] = flow.dispatch @{{.*}}::@dequantize_after_int8_matmul_dispatch_0_matmul_48x32x16_i32(
// CHECK-NOT: flow.dispatch
// CHECK: tensor.expand_shape %[[D]] {{\[\[}}0, 1], [2]] output_shape [12, 4, 32]
// CHECK: func.func @dequantize_after_int8_matmul_dispatch_0_matmul_48x32x16_i32
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK: arith.sitofp
// CHECK: arith.addf
// NOIM2COL-LABEL: func.func @dequantize_after_int8_matmul
func.func @dequantize_after_int8_matmul(%a: tensor<48x16xi8>, %b: tensor<16x32xi8>, %colsum: tensor<32xi32>, %azp: tensor<i32>, %scale: tensor<f32>, %bias: tensor<32xf32>) -> tensor<12x4x32xf32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<48x32xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<48x32xi32>) -> tensor<48x32xi32>
  %m = linalg.matmul ins(%a, %b : tensor<48x16xi8>, tensor<16x32xi8>) outs(%f : tensor<48x32xi32>) -> tensor<48x32xi32>
  %e2 = tensor.empty() : tensor<48x32xi32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %colsum, %azp : tensor<48x32xi32>, tensor<32xi32>, tensor<i32>) outs(%e2 : tensor<48x32xi32>) {
  ^bb0(%in: i32, %s: i32, %z: i32, %o: i32):
    %t = arith.muli %z, %s : i32
    %u = arith.addi %in, %t : i32
    linalg.yield %u : i32
  } -> tensor<48x32xi32>
  %x = tensor.expand_shape %c [[0, 1], [2]] output_shape [12, 4, 32] : tensor<48x32xi32> into tensor<12x4x32xi32>
  %e3 = tensor.empty() : tensor<12x4x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %scale, %bias : tensor<12x4x32xi32>, tensor<f32>, tensor<32xf32>) outs(%e3 : tensor<12x4x32xf32>) {
  ^bb0(%in: i32, %s: f32, %bb: f32, %o: f32):
    %v = arith.sitofp %in : i32 to f32
    %w = arith.mulf %v, %s : f32
    %y = arith.addf %w, %bb : f32
    linalg.yield %y : f32
  } -> tensor<12x4x32xf32>
  return %r : tensor<12x4x32xf32>
}

// -----

// ConvInteger's 1x1 form in NHWC: its per-channel scale and bias are
// 1xCx1x1 constants of the NCHW model, read (d0, d3, 0, 0) once the layout
// moved. They are read as tensors of C by (d3), a map the collapse can
// carry, so the dequantization joins the matmul's dispatch.
// CHECK-LABEL: func.func @dequantize_nchw_scale
// CHECK: %[[D:.*]] = flow.dispatch @{{.*}}::@dequantize_nchw_scale_dispatch_0_matmul_12x32x16_i32(
// CHECK-NOT: flow.dispatch
// CHECK: tensor.expand_shape %[[D]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 3, 4, 32]
// CHECK: func.func @dequantize_nchw_scale_dispatch_0_matmul_12x32x16_i32
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK-SAME: tensor<32xf32>, tensor<32xf32>
// CHECK: arith.sitofp
// CHECK: arith.mulf
// CHECK: arith.addf
// NOIM2COL-LABEL: func.func @dequantize_nchw_scale
func.func @dequantize_nchw_scale(%a: tensor<12x16xi8>, %b: tensor<16x32xi8>, %colsum: tensor<32xi32>, %azp: tensor<i32>, %scale: tensor<1x32x1x1xf32>, %bias: tensor<1x32x1x1xf32>) -> tensor<1x3x4x32xf32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<12x32xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<12x32xi32>) -> tensor<12x32xi32>
  %m = linalg.matmul ins(%a, %b : tensor<12x16xi8>, tensor<16x32xi8>) outs(%f : tensor<12x32xi32>) -> tensor<12x32xi32>
  %e2 = tensor.empty() : tensor<12x32xi32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %colsum, %azp : tensor<12x32xi32>, tensor<32xi32>, tensor<i32>) outs(%e2 : tensor<12x32xi32>) {
  ^bb0(%in: i32, %s: i32, %z: i32, %o: i32):
    %t = arith.muli %z, %s : i32
    %u = arith.addi %in, %t : i32
    linalg.yield %u : i32
  } -> tensor<12x32xi32>
  %x = tensor.expand_shape %c [[0, 1, 2], [3]] output_shape [1, 3, 4, 32] : tensor<12x32xi32> into tensor<1x3x4x32xi32>
  %e3 = tensor.empty() : tensor<1x3x4x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %scale, %bias : tensor<1x3x4x32xi32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>) outs(%e3 : tensor<1x3x4x32xf32>) {
  ^bb0(%in: i32, %s: f32, %bb: f32, %o: f32):
    %v = arith.sitofp %in : i32 to f32
    %w = arith.mulf %v, %s : f32
    %y = arith.addf %w, %bb : f32
    linalg.yield %y : f32
  } -> tensor<1x3x4x32xf32>
  return %r : tensor<1x3x4x32xf32>
}

// -----

// A global average pool of a quantized NHWC tensor read in NCHW order (its
// dequantization in the body): the loops run in the input's order, the
// channels innermost (the input map becomes the identity).
// CHECK-LABEL: func.func @int_pool_order
// CHECK: func.func @int_pool_order_dispatch_0_
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
// NOIM2COL-LABEL: func.func @int_pool_order
func.func @int_pool_order(%x: tensor<1x7x7x64xi8>) -> tensor<1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<1x7x7x64xi8>) outs(%f : tensor<1x64xf32>) {
  ^bb0(%in: i8, %acc: f32):
    %v = arith.sitofp %in : i8 to f32
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

// -----

// The same with the residual add and its requantization in the pool's body
// (an int8 resnet18's last block): both inputs read through one
// permutation, so the loops run in their order.
// CHECK-LABEL: func.func @int_pool_order_two_inputs
// CHECK: func.func @int_pool_order_two_inputs_dispatch_0_
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
// NOIM2COL-LABEL: func.func @int_pool_order_two_inputs
func.func @int_pool_order_two_inputs(%x: tensor<1x7x7x64xi8>, %y: tensor<1x7x7x64xi8>) -> tensor<1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %y : tensor<1x7x7x64xi8>, tensor<1x7x7x64xi8>) outs(%f : tensor<1x64xf32>) {
  ^bb0(%a: i8, %b: i8, %acc: f32):
    %u = arith.sitofp %a : i8 to f32
    %v = arith.sitofp %b : i8 to f32
    %w = arith.addf %u, %v : f32
    %s = arith.addf %acc, %w : f32
    linalg.yield %s : f32
  } -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

// -----

// A softmax is one dispatch (the code generator cuts it into bands of rows).
// CHECK-LABEL: module @softmax
// CHECK: func.func @main(%[[X:.*]]: tensor<4x128x128xf32>)
// CHECK-NEXT: %[[R:.*]] = flow.dispatch @softmax_linked_llvm_cpu::@main_dispatch_0_softmax_4x128x128_f32(%[[X]])
// CHECK-NEXT: return %[[R]]
// CHECK: func.func @main_dispatch_0_softmax_4x128x128_f32(
// CHECK: linalg.softmax dimension(2)
// CHECK-NOT: func.func
module @softmax {
  func.func @main(%x: tensor<4x128x128xf32>) -> tensor<4x128x128xf32> {
    %e = tensor.empty() : tensor<4x128x128xf32>
    %r = linalg.softmax dimension(2) ins(%x : tensor<4x128x128xf32>) outs(%e : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    return %r : tensor<4x128x128xf32>
  }
}

// -----

// Attention's scores: the queries transposed to heads-first and divided by
// sqrt(d) (one generic once the division fuses into the transpose), and the
// keys transposed, both read by the batch_matmul: one dispatch, where each
// workgroup relays out its own tiles of both operands.
// CHECK-LABEL: module @scaled_scores
// CHECK: func.func @main(%[[Q:.*]]: tensor<128x4x64xf32>, %[[K:.*]]: tensor<128x4x64xf32>)
// CHECK-NEXT: %[[R:.*]] = flow.dispatch @scaled_scores_linked_llvm_cpu::@main_dispatch_0_batch_matmul_4x128x128x64_f32(%[[Q]], %[[K]])
// CHECK-NEXT: return %[[R]]
// CHECK: func.func @main_dispatch_0_batch_matmul_4x128x128x64_f32(
// CHECK: %[[QT:.*]] = linalg.generic
// CHECK: arith.divf
// CHECK: %[[KT:.*]] = linalg.transpose
// CHECK: linalg.batch_matmul ins(%[[QT]], %[[KT]] :
// CHECK-NOT: func.func
module @scaled_scores {
  func.func @main(%q: tensor<128x4x64xf32>, %k: tensor<128x4x64xf32>) -> tensor<4x128x128xf32> {
    %zero = arith.constant 0.0 : f32
    %eight = arith.constant dense<8.0> : tensor<4x128x64xf32>
    %eq = tensor.empty() : tensor<4x128x64xf32>
    %qt = linalg.transpose ins(%q : tensor<128x4x64xf32>) outs(%eq : tensor<4x128x64xf32>) permutation = [1, 0, 2]
    %qs = linalg.div ins(%qt, %eight : tensor<4x128x64xf32>, tensor<4x128x64xf32>) outs(%eq : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
    %ek = tensor.empty() : tensor<4x64x128xf32>
    %kt = linalg.transpose ins(%k : tensor<128x4x64xf32>) outs(%ek : tensor<4x64x128xf32>) permutation = [1, 2, 0]
    %e = tensor.empty() : tensor<4x128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %s = linalg.batch_matmul ins(%qs, %kt : tensor<4x128x64xf32>, tensor<4x64x128xf32>) outs(%f : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    return %s : tensor<4x128x128xf32>
  }
}

// -----

// A relayout with other work in its body (an exp), or read by more than
// the matmul, stays a dispatch of its own.
// CHECK-LABEL: module @not_cheap
// CHECK: %[[A:.*]] = flow.dispatch @not_cheap_linked_llvm_cpu::@main_dispatch_0_elementwise_4x128x64_f32(
// CHECK: flow.dispatch @not_cheap_linked_llvm_cpu::@main_dispatch_1_batch_matmul_4x128x128x64_f32(%[[A]],
// CHECK: %[[C:.*]] = flow.dispatch @not_cheap_linked_llvm_cpu::@main_dispatch_2_elementwise_4x128x64_f32(
// CHECK: flow.dispatch @not_cheap_linked_llvm_cpu::@main_dispatch_1_batch_matmul_4x128x128x64_f32(%[[C]],
module @not_cheap {
  func.func @main(%q: tensor<128x4x64xf32>, %k: tensor<4x64x128xf32>) -> (tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<4x128x64xf32>) {
    %zero = arith.constant 0.0 : f32
    %eq = tensor.empty() : tensor<4x128x64xf32>
    %qt = linalg.transpose ins(%q : tensor<128x4x64xf32>) outs(%eq : tensor<4x128x64xf32>) permutation = [1, 0, 2]
    %qe = linalg.exp ins(%qt : tensor<4x128x64xf32>) outs(%eq : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
    %e = tensor.empty() : tensor<4x128x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %s = linalg.batch_matmul ins(%qe, %k : tensor<4x128x64xf32>, tensor<4x64x128xf32>) outs(%f : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %q2 = linalg.transpose ins(%q : tensor<128x4x64xf32>) outs(%eq : tensor<4x128x64xf32>) permutation = [1, 0, 2]
    %q3 = linalg.negf ins(%q2 : tensor<4x128x64xf32>) outs(%eq : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
    %t = linalg.batch_matmul ins(%q3, %k : tensor<4x128x64xf32>, tensor<4x64x128xf32>) outs(%f : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    return %s, %t, %q3 : tensor<4x128x128xf32>, tensor<4x128x128xf32>, tensor<4x128x64xf32>
  }
}
