// RUN: strata-opt %s --split-input-file --verify-diagnostics --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids "--strata-llvmcpu-lower-to-llvm=native-vector-bytes=32" | FileCheck %s

// Bare pointers for the bindings, i64 workgroup ids; exp and tanh are
// polynomials on 8-lane vectors: no call is left.
// CHECK-LABEL: llvm.func @exp_tanh
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr)
// CHECK-NOT: llvm.call
// CHECK: llvm.fmul {{.*}} : vector<8xf32>
// CHECK-NOT: llvm.call
// CHECK: llvm.return
func.func @exp_tanh(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = math.tanh %x : f32
    %y = math.exp %t : f32
    linalg.yield %y : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// A temporary over 64 KiB lives in workgroup local memory: one more pointer
// argument after the workgroup ids.
// CHECK-LABEL: llvm.func @local
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-SAME: strata.local_memory_size = 262144 : i64
func.func @local(%a: tensor<256x32xf32>, %b: tensor<32x256xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %m = linalg.matmul ins(%a, %b : tensor<256x32xf32>, tensor<32x256xf32>)
                     outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  %e0 = tensor.empty() : tensor<f32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%m : tensor<256x256xf32>) outs(%f0 : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

// -----

func.func @remf(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    // expected-error @+1 {{'arith.remf' on 'f32' has no library-free lowering on llvm-cpu}}
    %y = arith.remf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Dynamic outer loops, a static inner one (a sequence of rows of 64): the
// rows are tiled by one and each row's 64 elements move and add as 8-lane
// vectors (a dynamic loop is never vectorized itself).
// CHECK-LABEL: llvm.func @dynamic_rows
// CHECK: llvm.fadd {{.*}} : vector<8xf32>
// CHECK: llvm.return
func.func @dynamic_rows(%a: tensor<?x64xf32>, %b: tensor<?x64xf32>, %na: index, %nb: index, %n: index) -> tensor<?x64xf32> {
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %r = linalg.add ins(%a, %b : tensor<?x64xf32>, tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// -----

// A softmax over rows (SoftmaxRows.cpp), 8 workgroups of 32 rows, no call left,
// exp a polynomial on 8-lane vectors, one division a row.
// CHECK-LABEL: llvm.func @whole
// CHECK-NOT: llvm.call
// CHECK: llvm.fmul {{.*}} : vector<8xf32>
// CHECK-NOT: llvm.call
// CHECK: llvm.fdiv {{.*}} : f32
// CHECK-NOT: llvm.fdiv {{.*}} : vector
// CHECK: llvm.return
func.func @whole(%in: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %e = tensor.empty() : tensor<256x128xf32>
  %r = linalg.softmax dimension(1) ins(%in : tensor<256x128xf32>) outs(%e : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %r : tensor<256x128xf32>
}
