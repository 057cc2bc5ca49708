// RUN: strata-opt %s --split-input-file --verify-diagnostics --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids | FileCheck %s
// RUN: not strata-opt %s --split-input-file --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDER

// Run without the input check before it, the binding says so (it does not
// know where the inputs end) instead of crashing.
// ORDER: error: llvm-cpu: binding workgroup ids needs the input count of the input check (--strata-llvmcpu-verify-input) first

// The result becomes the last argument, after the inputs and the workgroup
// ids x and y; row tile x is rows [8x, 8x + 8) of the result binding.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: memref<64x16xf32>, %[[B:.*]]: memref<16x32xf32>, %[[X:.*]]: index, %[[Y:.*]]: index, %[[C:.*]]: memref<64x32xf32>)
// CHECK-SAME: strata.workgroup_count = array<i64: 8, 1, 1>
// CHECK-NOT: scf.forall
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[ROW:.*]] = arith.muli %[[X]], %[[C8]] : index
// CHECK-DAG: memref.subview %[[A]][%[[ROW]], 0] [8, 16] [1, 1]
// CHECK-DAG: %[[TILE:.*]] = memref.subview %[[C]][%[[ROW]], 0] [8, 32] [1, 1]
// CHECK: linalg.fill {{.*}} outs(%[[TILE]]
// CHECK: linalg.matmul {{.*}} outs(%[[TILE]]
// CHECK: return
func.func @matmul(%a: tensor<64x16xf32>, %b: tensor<16x32xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x16xf32>, tensor<16x32xf32>)
                     outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// Two results of one op: both are out-parameters, split by the same tiles.
// CHECK-LABEL: func.func @two
// CHECK-SAME: (%{{.*}}: memref<256x128xf32>, %{{.*}}: index, %{{.*}}: index, %[[LO:.*]]: memref<256x128xf32>, %[[HI:.*]]: memref<256x128xf32>)
// CHECK-SAME: strata.workgroup_count = array<i64: 8, 1, 1>
// CHECK: linalg.generic
func.func @two(%a: tensor<256x128xf32>) -> (tensor<256x128xf32>, tensor<256x128xf32>) {
  %e = tensor.empty() : tensor<256x128xf32>
  %r:2 = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<256x128xf32>) outs(%e, %e : tensor<256x128xf32>, tensor<256x128xf32>) {
  ^bb0(%x: f32, %o0: f32, %o1: f32):
    %n = arith.negf %x : f32
    linalg.yield %n, %x : f32, f32
  } -> (tensor<256x128xf32>, tensor<256x128xf32>)
  return %r#0, %r#1 : tensor<256x128xf32>, tensor<256x128xf32>
}

// -----

// Returning an argument copies it into the result: one workgroup.
// CHECK-LABEL: func.func @identity
// CHECK-SAME: (%[[IN:.*]]: memref<4096xi8>, %{{.*}}: index, %{{.*}}: index, %[[OUT:.*]]: memref<4096xi8>)
// CHECK-SAME: strata.workgroup_count = array<i64: 1, 1, 1>
// CHECK: memref.copy %[[IN]], %[[OUT]]
func.func @identity(%a: tensor<4096xi8>) -> tensor<4096xi8> {
  return %a : tensor<4096xi8>
}

// -----

// Dynamic rows: the bindings are bare pointers viewed with the sizes from
// the trailing index arguments (the argument's rows, then the result's);
// the result is an out-parameter. Row tiles of a static size are shared
// by the 64 workgroups: workgroup x runs tiles [x * T / 64, (x + 1) * T /
// 64) of the T tiles, so a few tiles spread over the whole grid.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK-SAME: (%[[A:.*]]: memref<0xf32>, %[[N:.*]]: index, %[[M:.*]]: index, %[[X:.*]]: index, %{{.*}}: index, %[[R:.*]]: memref<0xf32>)
// CHECK-SAME: strata.binding_shapes = [array<i64: -2, 1024>, array<i64: -3, 1024>]
// CHECK-SAME: strata.workgroup_count = array<i64: 64, 1, 1>
// CHECK-DAG: %[[IN:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [%[[N]], 1024], strides: [1024, 1]
// CHECK-DAG: %[[OUT:.*]] = memref.reinterpret_cast %[[R]] to offset: [0], sizes: [%[[M]], 1024], strides: [1024, 1]
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[XT:.*]] = arith.muli %[[X]], %[[T:.*]] : index
// CHECK: %[[BEGIN:.*]] = arith.divui %[[XT]], %[[C64]] : index
// CHECK: %[[NEXT:.*]] = arith.addi %[[X]], %c1 : index
// CHECK: %[[NT:.*]] = arith.muli %[[NEXT]], %[[T]] : index
// CHECK: %[[END:.*]] = arith.divui %[[NT]], %[[C64]] : index
// CHECK: scf.for %[[TILE:.*]] = %[[BEGIN]] to %[[END]] step %c1
// CHECK: memref.subview %[[IN]]
// CHECK: memref.subview %[[OUT]]
// CHECK: linalg.generic
// CHECK-NOT: scf.forall
// CHECK: return
func.func @dynamic_rows(%a: tensor<?x1024xf32>, %n: index, %m: index) -> tensor<?x1024xf32> {
  %e = tensor.empty(%m) : tensor<?x1024xf32>
  %r = linalg.add ins(%a, %a : tensor<?x1024xf32>, tensor<?x1024xf32>)
                  outs(%e : tensor<?x1024xf32>) -> tensor<?x1024xf32>
  return %r : tensor<?x1024xf32>
}

// -----

// A 2-d grid is row-major: the forall's last dimension (the column tiles)
// is x, which the runtime's linear workgroup order varies fastest, so the
// workers' contiguous ranges of workgroups are bands of whole rows.
// CHECK-LABEL: func.func @grid
// CHECK-SAME: (%{{.*}}: memref<256x64xf32>, %[[X:.*]]: index, %[[Y:.*]]: index, %[[C:.*]]: memref<256x64xf32>)
// CHECK-SAME: strata.workgroup_count = array<i64: 4, 2, 1>
// CHECK-DAG: %[[ROW:.*]] = arith.muli %[[Y]], %{{.*}} : index
// CHECK-DAG: %[[COL:.*]] = arith.muli %[[X]], %{{.*}} : index
// CHECK: memref.subview %[[C]][%[[ROW]], %[[COL]]] [128, 16] [1, 1]
func.func @grid(%a: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %e = tensor.empty() : tensor<256x64xf32>
  %r = scf.forall (%i, %j) = (0, 0) to (256, 64) step (128, 16) shared_outs(%o = %e) -> (tensor<256x64xf32>) {
    %s = tensor.extract_slice %a[%i, %j] [128, 16] [1, 1] : tensor<256x64xf32> to tensor<128x16xf32>
    %d = tensor.extract_slice %o[%i, %j] [128, 16] [1, 1] : tensor<256x64xf32> to tensor<128x16xf32>
    %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<128x16xf32>) outs(%d : tensor<128x16xf32>) {
    ^bb0(%x: f32, %y: f32):
      %v = arith.negf %x : f32
      linalg.yield %v : f32
    } -> tensor<128x16xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %n into %o[%i, %j] [128, 16] [1, 1] : tensor<128x16xf32> into tensor<256x64xf32>
    }
  }
  return %r : tensor<256x64xf32>
}

// -----

// A 3-d grid: the kernel has two ids, so y is the dimensions before the
// last, linearized row-major (y = image * 2 + row tile), x the last
// (column tiles). A batch-2 convolution cut into images, row bands and
// filter columns (chooseConvTileSizes) is 4 x 4 workgroups, where it was
// refused and ran as one workgroup of scalar loops.
// CHECK-LABEL: func.func @grid3
// CHECK-SAME: (%{{.*}}: memref<2x14x14x256xf32>, %{{.*}}: memref<1x1x256x512xf32>, %[[X:.*]]: index, %[[Y:.*]]: index, %[[C:.*]]: memref<2x14x14x512xf32>)
// CHECK-SAME: strata.workgroup_count = array<i64: 4, 4, 1>
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[BAND:.*]] = arith.remui %[[Y]], %[[C2]] : index
// CHECK-DAG: %[[IMAGE:.*]] = arith.divui %[[Y]], %[[C2]] : index
// CHECK-DAG: %[[ROW:.*]] = arith.muli %[[BAND]], %{{.*}} : index
// CHECK-DAG: %[[COL:.*]] = arith.muli %[[X]], %{{.*}} : index
// CHECK: memref.subview %[[C]][%[[IMAGE]], %[[ROW]], 0, %[[COL]]] [1, 7, 14, 128] [1, 1, 1, 1]
// CHECK-NOT: scf.forall
func.func @grid3(%x: tensor<2x14x14x256xf32>, %w: tensor<1x1x256x512xf32>) -> tensor<2x14x14x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x14x14x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x14x14x512xf32>) -> tensor<2x14x14x512xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x14x14x256xf32>, tensor<1x1x256x512xf32>) outs(%f : tensor<2x14x14x512xf32>) -> tensor<2x14x14x512xf32>
  return %c : tensor<2x14x14x512xf32>
}
