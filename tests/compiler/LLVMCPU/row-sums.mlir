// RUN: strata-opt %s --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=64' | FileCheck %s
// RUN: strata-opt %s --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=32' | FileCheck %s --check-prefix=AVX2

// LayerNormalization's statistics (ReductionOps.cpp onePassStatistics):
// f32 rows summed, with their squares, in f64. Each workgroup's sums are
// split into per-lane partial sums (SplitRowSums.cpp): two rows x lanes
// temporaries on the stack (8 rows x 8 f64 lanes with AVX-512), each step
// a vector of a row's elements widened and added to them, a vector of
// lanes a row; each row's lanes are added into its outputs at the end.
// Vectorized as they were, 16 rows' elements a vector, each row's lanes
// were combined every 16 elements.
// CHECK-LABEL: llvm.func @layer_norm_sums
// CHECK-DAG: %[[LANES:.*]] = llvm.mlir.constant(64 : index) : i64
// CHECK: llvm.alloca %[[LANES]] x f64
// CHECK: llvm.alloca %[[LANES]] x f64
// CHECK: llvm.fpext %{{.*}} : vector<8xf32> to vector<8xf64>
// CHECK: llvm.fadd %{{.*}} : vector<8xf64>
// CHECK: llvm.fmul %{{.*}} : vector<8xf64>
// CHECK-NOT: vector<16xf64>
// CHECK: llvm.return
// AVX2-LABEL: llvm.func @layer_norm_sums
// AVX2: llvm.fpext %{{.*}} : vector<4xf32> to vector<4xf64>
// AVX2: llvm.fadd %{{.*}} : vector<4xf64>
func.func @layer_norm_sums(%x: tensor<8x128x256xf32>) -> (tensor<8x128xf64>, tensor<8x128xf64>) {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<8x128xf64>
  %f = linalg.fill ins(%zero : f64) outs(%e : tensor<8x128xf64>) -> tensor<8x128xf64>
  %s:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<8x128x256xf32>) outs(%f, %f : tensor<8x128xf64>, tensor<8x128xf64>) {
  ^bb0(%in: f32, %sum: f64, %squares: f64):
    %v = arith.extf %in : f32 to f64
    %a = arith.addf %sum, %v : f64
    %m = arith.mulf %v, %v : f64
    %b = arith.addf %squares, %m : f64
    linalg.yield %a, %b : f64, f64
  } -> (tensor<8x128xf64>, tensor<8x128xf64>)
  return %s#0, %s#1 : tensor<8x128xf64>, tensor<8x128xf64>
}
