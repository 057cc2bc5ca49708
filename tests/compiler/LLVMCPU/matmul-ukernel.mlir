// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids | FileCheck %s --check-prefix=TILES
// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=64 matmul-ukernel=avx512' | FileCheck %s --check-prefix=UKERNEL
// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=64' | FileCheck %s --check-prefix=NONE

// A 1024^3 f32 matmul: 256 x 256 workgroup tiles (4 x 4). Each workgroup's
// zero fill folds into one microkernel call (flags 0: overwrite) on its
// tiles: A, B and C as (aligned pointer, offset, row stride), then
// m, n, k, flags and the packing scratch in local memory.
// TILES-LABEL: func.func @large
// TILES-SAME: strata.workgroup_count = array<i64: 4, 4, 1>
// TILES: linalg.fill {{.*}} outs({{.*}} : memref<256x256xf32
// TILES: linalg.matmul {{.*}} memref<256x1024xf32, {{.*}}, memref<1024x256xf32, {{.*}} outs({{.*}} : memref<256x256xf32
// UKERNEL-LABEL: llvm.func @large
// UKERNEL-SAME: strata.local_memory_size = 551552
// UKERNEL-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(0 : i64) : i64
// UKERNEL-DAG: %[[K:.*]] = llvm.mlir.constant(1024 : i64) : i64
// UKERNEL-DAG: %[[MN:.*]] = llvm.mlir.constant(256 : i64) : i64
// UKERNEL: llvm.call @strata_ukernel_sgemm_f32(%{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %{{.*}}, %[[K]], %[[MN]], %[[MN]], %[[K]], %[[FLAGS]], %{{.*}}) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
// UKERNEL-NOT: llvm.intr.fma
// UKERNEL: llvm.func @strata_ukernel_sgemm_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// Without a microkernel variant the matmul is vectorized as before.
// NONE-LABEL: llvm.func @large
// NONE-NOT: strata_ukernel
// NONE: llvm.intr.fmuladd
func.func @large(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}

// -----

// A fill with another value stays: the call adds to it (flags 1).
// UKERNEL-LABEL: llvm.func @accumulate
// UKERNEL: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// UKERNEL: llvm.store
// UKERNEL: llvm.call @strata_ukernel_sgemm_f32({{.*}}, %[[ONE]], %{{.*}}) :
func.func @accumulate(%a: tensor<256x128xf32>, %b: tensor<128x128xf32>) -> tensor<256x128xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<256x128xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<256x128xf32>) -> tensor<256x128xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x128xf32>) outs(%f : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %r : tensor<256x128xf32>
}

// -----

// Below 64^3 multiply-adds, and on other element types, matmuls stay
// vectorized.
// UKERNEL-LABEL: llvm.func @small
// UKERNEL-NOT: strata_ukernel
// UKERNEL-LABEL: llvm.func @integer
// UKERNEL-NOT: strata_ukernel
func.func @small(%a: tensor<32x64xf32>, %b: tensor<64x64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}
func.func @integer(%a: tensor<128x128xi32>, %b: tensor<128x128xi32>) -> tensor<128x128xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<128x128xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<128x128xi32>) -> tensor<128x128xi32>
  %r = linalg.matmul ins(%a, %b : tensor<128x128xi32>, tensor<128x128xi32>) outs(%f : tensor<128x128xi32>) -> tensor<128x128xi32>
  return %r : tensor<128x128xi32>
}
