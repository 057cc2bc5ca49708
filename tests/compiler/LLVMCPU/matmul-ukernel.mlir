// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids | FileCheck %s --check-prefix=TILES
// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=64 matmul-ukernel=avx512' | FileCheck %s --check-prefix=UKERNEL
// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=64 matmul-ukernel=avx512 streamed-result-bytes=67108864' | FileCheck %s --check-prefix=LLC
// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=64' | FileCheck %s --check-prefix=NONE
// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=64 matmul-ukernel=avx512' -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=32 matmul-ukernel=avx2' | FileCheck %s --check-prefix=AVX2

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
// The last five arguments are the epilogue's (none here: zeros).
// UKERNEL: llvm.call @strata_ukernel_sgemm_f32(%{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %{{.*}}, %[[K]], %[[MN]], %[[MN]], %[[K]], %[[FLAGS]], %{{.*}}, %[[FLAGS]], %[[FLAGS]], %[[FLAGS]], %[[FLAGS]], %[[FLAGS]]) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
// UKERNEL-NOT: llvm.intr.fma
// UKERNEL: llvm.func @strata_ukernel_sgemm_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
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

// A result of 32 MiB (kDefaultStreamedResultBytes) is stored streamed:
// flags 256 (STRATA_SGEMM_STREAM) on every workgroup's 256 x 256 tile. The
// 4 MiB one above is not (flags 0), nor is this one for a target whose
// last-level cache holds 64 MiB (streamed-result-bytes).
// LLC-LABEL: llvm.func @streamed
// LLC-DAG: %[[C256:.*]] = llvm.mlir.constant(256 : i64) : i64
// LLC-DAG: %[[K:.*]] = llvm.mlir.constant(64 : i64) : i64
// LLC-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// LLC: llvm.call @strata_ukernel_sgemm_f32(%{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C256]], %[[C256]], %[[K]], %[[ZERO]], %{{.*}}) :
// UKERNEL-LABEL: llvm.func @streamed
// UKERNEL-DAG: %[[C256:.*]] = llvm.mlir.constant(256 : i64) : i64
// UKERNEL-DAG: %[[K:.*]] = llvm.mlir.constant(64 : i64) : i64
// UKERNEL: llvm.call @strata_ukernel_sgemm_f32(%{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C256]], %[[C256]], %[[K]], %[[C256]], %{{.*}}) :
func.func @streamed(%a: tensor<2048x64xf32>, %b: tensor<64x4096xf32>) -> tensor<2048x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x4096xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2048x64xf32>, tensor<64x4096xf32>) outs(%f : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  return %r : tensor<2048x4096xf32>
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

// -----

// A 3x3 convolution with a bias and relu epilogue: workgroups take whole
// rows of output pixels (2 rows of 28 pixels, 14 workgroups: enough to
// spread evenly) and the conv becomes one call of the convolution microkernel per
// workgroup, whose A packing reads the input's windows in place. Its zero
// fill folds in and the bias + relu epilogue too (flags 4 | 32: bias,
// clamp to [0, +inf], 0x7F800000 = +inf): the microkernel applies it as it
// stores each finished tile into the output, so neither a temporary for
// the conv's tile nor a separate elementwise loop is left.
// TILES-LABEL: func.func @conv_bias_relu
// TILES-SAME: strata.workgroup_count = array<i64: 14, 1, 1>
// TILES: linalg.conv_2d_nhwc_hwcf {{.*}} memref<1x4x30x64xf32, {{.*}} outs({{.*}} : memref<1x2x28x64xf32
// UKERNEL-LABEL: llvm.func @conv_bias_relu
// UKERNEL-SAME: strata.local_memory_size = 126464
// UKERNEL-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(36 : i64) : i64
// UKERNEL-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// UKERNEL-DAG: %[[INF:.*]] = llvm.mlir.constant(2139095040 : i64) : i64
// UKERNEL-NOT: llvm.intr.maximum
// UKERNEL: llvm.call @strata_ukernel_sconv_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %[[ZERO]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[INF]])
// UKERNEL-SAME: (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
// UKERNEL-NOT: llvm.intr.maximum
// UKERNEL: llvm.func @strata_ukernel_sconv_f32(
// NONE-LABEL: llvm.func @conv_bias_relu
// NONE-NOT: strata_ukernel
func.func @conv_bias_relu(%x: tensor<1x30x30x64xf32>, %w: tensor<3x3x64x64xf32>, %bias: tensor<64xf32>) -> tensor<1x28x28x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x28x28x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x30x30x64xf32>, tensor<3x3x64x64xf32>) outs(%f : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %bias : tensor<1x28x28x64xf32>, tensor<64xf32>) outs(%e : tensor<1x28x28x64xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x28x28x64xf32>
  return %r : tensor<1x28x28x64xf32>
}

// -----

// A zero-padded input: bufferization leaves each workgroup a padded window
// (an alloc filled with zeros, the input's rows copied in), which the
// microkernel does not need: it is called on the unpadded rows with the
// padding above and left of them (the arguments after the input's strides:
// rows, columns, top, left) and skips the taps that fall in it, so the
// window, its fill and its copy are erased: nothing in the workgroup loads
// or stores but the call. (Rows 56 wide: wide enough for the border columns'
// tiles of 4 rows; ConvUkernel.cpp.)
// TILES-LABEL: func.func @padded_conv
// TILES: linalg.map outs(%{{.*}} : memref<1x6x58x16xf32>)
// TILES: memref.copy
// TILES: linalg.conv_2d_nhwc_hwcf
// UKERNEL-LABEL: llvm.func @padded_conv
// UKERNEL-NOT: llvm.store
// UKERNEL-NOT: llvm.load
// UKERNEL: llvm.call @strata_ukernel_sconv_f32(
// UKERNEL-NOT: llvm.store
// UKERNEL-NOT: llvm.load
// UKERNEL: llvm.return
func.func @padded_conv(%x: tensor<1x56x56x16xf32>, %w: tensor<3x3x16x64xf32>) -> tensor<1x56x56x64xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x56x56x16xf32> to tensor<1x58x58x16xf32>
  %e = tensor.empty() : tensor<1x56x56x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x58x58x16xf32>, tensor<3x3x16x64xf32>) outs(%f : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %c : tensor<1x56x56x64xf32>
}

// -----

// A batch_matmul runs one batch per workgroup, as a matmul call on views.
// TILES-LABEL: func.func @batched
// TILES-SAME: strata.workgroup_count = array<i64: 4, 1, 1>
// UKERNEL-LABEL: llvm.func @batched
// UKERNEL: llvm.call @strata_ukernel_sgemm_f32(
// NONE-LABEL: llvm.func @batched
// NONE-NOT: strata_ukernel
func.func @batched(%a: tensor<4x128x64xf32>, %b: tensor<4x64x128xf32>) -> tensor<4x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x128x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x128x64xf32>, tensor<4x64x128xf32>) outs(%f : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
  return %r : tensor<4x128x128xf32>
}

// -----

// Attention's scores per head: K^T of a [sequence, heads, depth] key is a
// transpose that each workgroup (one head) would copy with loads 8 KiB
// apart. The microkernel reads the key in place of that copy instead
// (flags 512: STRATA_SGEMM_TRANSPOSED_B), its rows of 64 floats 2048
// apart (B's row stride), packing it per call; no copy is left: nothing
// in the workgroup loads or stores but the call.
// UKERNEL-LABEL: llvm.func @scores
// UKERNEL-DAG: %[[T:.*]] = llvm.mlir.constant(512 : i64) : i64
// UKERNEL-DAG: %[[LDB:.*]] = llvm.mlir.constant(2048 : i64) : i64
// UKERNEL-NOT: llvm.load
// UKERNEL-NOT: llvm.store
// UKERNEL: llvm.call @strata_ukernel_sgemm_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LDB]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[T]],
// UKERNEL-NOT: llvm.load
// UKERNEL-NOT: llvm.store
// UKERNEL: llvm.return
func.func @scores(%q: tensor<32x128x64xf32>, %k: tensor<128x32x64xf32>) -> tensor<32x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<32x64x128xf32>
  %kt = linalg.transpose ins(%k : tensor<128x32x64xf32>) outs(%et : tensor<32x64x128xf32>) permutation = [1, 2, 0]
  %e = tensor.empty() : tensor<32x128x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x128x128xf32>) -> tensor<32x128x128xf32>
  %r = linalg.batch_matmul ins(%q, %kt : tensor<32x128x64xf32>, tensor<32x64x128xf32>) outs(%f : tensor<32x128x128xf32>) -> tensor<32x128x128xf32>
  return %r : tensor<32x128x128xf32>
}

// -----

// A decoder's scores over its cache (a dynamic sequence, K heads-first):
// the copy's buffer and the view of its batch are dynamic; the key is
// still read in place, transposed.
// UKERNEL-LABEL: llvm.func @scores_dynamic
// UKERNEL-DAG: %[[T:.*]] = llvm.mlir.constant(512 : i64) : i64
// UKERNEL-NOT: llvm.load
// UKERNEL-NOT: llvm.store
// UKERNEL: llvm.call @strata_ukernel_sgemm_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[T]],
// UKERNEL-NOT: llvm.load
// UKERNEL-NOT: llvm.store
// UKERNEL: llvm.return
func.func @scores_dynamic(%q: tensor<4x?x64xf32>, %k: tensor<4x?x64xf32>, %qn: index, %kn: index, %rm: index, %rn: index) -> tensor<4x?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty(%kn) : tensor<4x64x?xf32>
  %kt = linalg.transpose ins(%k : tensor<4x?x64xf32>) outs(%et : tensor<4x64x?xf32>) permutation = [0, 2, 1]
  %e = tensor.empty(%qn, %kn) : tensor<4x?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x?x?xf32>) -> tensor<4x?x?xf32>
  %r = linalg.batch_matmul ins(%q, %kt : tensor<4x?x64xf32>, tensor<4x64x?xf32>) outs(%f : tensor<4x?x?xf32>) -> tensor<4x?x?xf32>
  return %r : tensor<4x?x?xf32>
}

// -----

// The values of one head are a strided view (rows 2048 floats apart, unit
// columns): read in place of their copy as a plain B (flags 0) of that row
// stride.
// UKERNEL-LABEL: llvm.func @values
// UKERNEL-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// UKERNEL-DAG: %[[LDB:.*]] = llvm.mlir.constant(2048 : i64) : i64
// UKERNEL-NOT: llvm.load
// UKERNEL-NOT: llvm.store
// UKERNEL: llvm.call @strata_ukernel_sgemm_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LDB]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]],
// UKERNEL-NOT: llvm.load
// UKERNEL-NOT: llvm.store
// UKERNEL: llvm.return
func.func @values(%s: tensor<32x128x128xf32>, %v: tensor<128x32x64xf32>) -> tensor<32x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ev = tensor.empty() : tensor<32x128x64xf32>
  %vt = linalg.transpose ins(%v : tensor<128x32x64xf32>) outs(%ev : tensor<32x128x64xf32>) permutation = [1, 0, 2]
  %f = linalg.fill ins(%zero : f32) outs(%ev : tensor<32x128x64xf32>) -> tensor<32x128x64xf32>
  %r = linalg.batch_matmul ins(%s, %vt : tensor<32x128x128xf32>, tensor<32x128x64xf32>) outs(%f : tensor<32x128x64xf32>) -> tensor<32x128x64xf32>
  return %r : tensor<32x128x64xf32>
}

// -----

// A weight packed at compile time (--strata-pack-weights): the filter is
// the reshape of a transpose of 32-column panels. The microkernel reads the
// panels in place (flags 2: STRATA_SGEMM_PACKED_B, overwrite), so nothing
// transposes at run time: no temporary for the 3x3x64x2x32 transpose (36864
// floats). The one temporary is the packing scratch for A (15232 floats,
// on the stack: 14 workgroups of 2 rows need no local memory).
// UKERNEL-LABEL: llvm.func @packed_conv
// UKERNEL-NOT: strata.local_memory_size
// UKERNEL-DAG: %[[SCRATCH:.*]] = llvm.mlir.constant(15232 : index) : i64
// UKERNEL-DAG: %[[PACKED:.*]] = llvm.mlir.constant(2 : i64) : i64
// UKERNEL-DAG: %[[NR:.*]] = llvm.mlir.constant(32 : i64) : i64
// UKERNEL-NOT: llvm.alloca
// UKERNEL: llvm.alloca %[[SCRATCH]] x f32
// UKERNEL-NOT: llvm.alloca
// UKERNEL: llvm.call @strata_ukernel_sconv_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NR]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PACKED]],
// UKERNEL-NOT: llvm.intr.fma
// UKERNEL: llvm.func @strata_ukernel_sconv_f32(
// The AVX2 kernel (16 columns) reads the same 32-column panels as two
// strips, the panel width passed as B's row stride: a multi-ISA module
// packs its weights once, for its first variant.
// AVX2-LABEL: llvm.func @packed_conv
// AVX2-DAG: %[[PACKED:.*]] = llvm.mlir.constant(2 : i64) : i64
// AVX2-DAG: %[[WIDTH:.*]] = llvm.mlir.constant(32 : {{i64|index}}) : i64
// AVX2: llvm.call @strata_ukernel_sconv_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WIDTH]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PACKED]],
// AVX2-NOT: llvm.intr.fma
// AVX2: llvm.func @strata_ukernel_sconv_f32(
// Without a microkernel the transpose runs and the conv is loops.
// NONE-LABEL: llvm.func @packed_conv
// NONE-NOT: strata_ukernel
func.func @packed_conv(%x: tensor<1x30x30x64xf32>, %p: tensor<2x3x3x64x32xf32>) -> tensor<1x28x28x64xf32> {
  %zero = arith.constant 0.0 : f32
  %t0 = tensor.empty() : tensor<3x3x64x2x32xf32>
  %t = linalg.transpose ins(%p : tensor<2x3x3x64x32xf32>) outs(%t0 : tensor<3x3x64x2x32xf32>) permutation = [1, 2, 3, 0, 4] {strata.packed_weight = {depth_group = 0 : i64, panel_columns = 32 : i64}}
  %w = tensor.collapse_shape %t [[0], [1], [2], [3, 4]] : tensor<3x3x64x2x32xf32> into tensor<3x3x64x64xf32>
  %e = tensor.empty() : tensor<1x28x28x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x30x30x64xf32>, tensor<3x3x64x64xf32>) outs(%f : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  return %c : tensor<1x28x28x64xf32>
}

// -----

// A filter read back from its Winograd transform (--strata-pack-weights
// winograd: U packed in 32-column panels of 6x6 x 64 each, the marked
// generic computing L U L^T): workgroups of 4 output rows (one row of 4x4
// tiles), and the microkernel reads U (flags PACKED_B | WINOGRAD, 1026)
// and the padded input in place; the generic, its fill and U's transpose
// are erased (no loops of multiplies left). Scratch: the band's input
// transforms and products (36 x 28 tiles x (64 + 64) floats) and the
// products' own.
// UKERNEL-LABEL: llvm.func @winograd_conv
// UKERNEL-SAME: strata.workgroup_count = array<i64: 14, 1, 1>
// UKERNEL-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(1026 : i64) : i64
// UKERNEL-NOT: llvm.fmul
// UKERNEL: llvm.call @strata_ukernel_sconv_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]],
// UKERNEL-NOT: llvm.fmul
// UKERNEL: llvm.func @strata_ukernel_sconv_f32(
// The AVX2 kernel reads the same 32-column panels as two strips.
// AVX2-LABEL: llvm.func @winograd_conv
// AVX2-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(1026 : i64) : i64
// AVX2: llvm.call @strata_ukernel_sconv_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]],
// Without a microkernel the generic computes the filter back and the
// convolution is loops.
// NONE-LABEL: llvm.func @winograd_conv
// NONE-NOT: strata_ukernel
func.func @winograd_conv(%x: tensor<1x56x56x64xf32>, %p: tensor<2x6x6x64x32xf32>) -> tensor<1x56x56x64xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x56x56x64xf32> to tensor<1x58x58x64xf32>
  %t0 = tensor.empty() : tensor<6x6x64x2x32xf32>
  %t = linalg.transpose ins(%p : tensor<2x6x6x64x32xf32>) outs(%t0 : tensor<6x6x64x2x32xf32>) permutation = [1, 2, 3, 0, 4] {strata.packed_weight = {depth_group = 0 : i64, panel_columns = 32 : i64}}
  %u = tensor.collapse_shape %t [[0], [1], [2], [3, 4]] : tensor<6x6x64x2x32xf32> into tensor<6x6x64x64xf32>
  %l = arith.constant dense<[[2.13333344, -1.33333337, -1.33333337, 0.266666681, 0.266666681, -0.533333361], [0.0, -2.4, 2.4, 1.2, -1.2, 0.0], [-0.13333334, -0.0666666701, -0.0666666701, 0.13333334, 0.13333334, 0.933333337]]> : tensor<3x6xf32>
  %ge = tensor.empty() : tensor<3x3x64x64xf32>
  %gf = linalg.fill ins(%zero : f32) outs(%ge : tensor<3x3x64x64xf32>) -> tensor<3x3x64x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(ky, kx, c, f, a, b) -> (ky, a)>, affine_map<(ky, kx, c, f, a, b) -> (kx, b)>, affine_map<(ky, kx, c, f, a, b) -> (a, b, c, f)>, affine_map<(ky, kx, c, f, a, b) -> (ky, kx, c, f)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%l, %l, %u : tensor<3x6xf32>, tensor<3x6xf32>, tensor<6x6x64x64xf32>) outs(%gf : tensor<3x3x64x64xf32>) attrs = {strata.winograd_filter = {output_tile = 4 : i64}} {
  ^bb0(%la: f32, %lb: f32, %uv: f32, %acc: f32):
    %m = arith.mulf %la, %lb : f32
    %n = arith.mulf %m, %uv : f32
    %s = arith.addf %acc, %n : f32
    linalg.yield %s : f32
  } -> tensor<3x3x64x64xf32>
  %e = tensor.empty() : tensor<1x56x56x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %g : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%f : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %c : tensor<1x56x56x64xf32>
}

// -----

// The same for a matmul's B (1024 x 512 as 16 panels of 1024 x 32),
// workgroups cutting columns at multiples of 32: B's offset is the first
// column times the depth.
// UKERNEL-LABEL: llvm.func @packed_matmul
// UKERNEL-SAME: strata.local_memory_size = 289408
// UKERNEL-DAG: %[[PACKED:.*]] = llvm.mlir.constant(2 : i64) : i64
// UKERNEL: llvm.call @strata_ukernel_sgemm_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PACKED]], %{{.*}})
// UKERNEL-NOT: llvm.intr.fma
// AVX2-LABEL: llvm.func @packed_matmul
// AVX2-DAG: %[[PACKED:.*]] = llvm.mlir.constant(2 : i64) : i64
// AVX2-DAG: %[[WIDTH:.*]] = llvm.mlir.constant(32 : {{i64|index}}) : i64
// AVX2: llvm.call @strata_ukernel_sgemm_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WIDTH]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[PACKED]], %{{.*}})
// AVX2-NOT: llvm.intr.fma
// NONE-LABEL: llvm.func @packed_matmul
// NONE-NOT: strata_ukernel
func.func @packed_matmul(%a: tensor<512x1024xf32>, %p: tensor<16x1024x32xf32>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %t0 = tensor.empty() : tensor<1024x16x32xf32>
  %t = linalg.transpose ins(%p : tensor<16x1024x32xf32>) outs(%t0 : tensor<1024x16x32xf32>) permutation = [1, 0, 2] {strata.packed_weight = {depth_group = 0 : i64, panel_columns = 32 : i64}}
  %b = tensor.collapse_shape %t [[0], [1, 2]] : tensor<1024x16x32xf32> into tensor<1024x512xf32>
  %e = tensor.empty() : tensor<512x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<512x1024xf32>, tensor<1024x512xf32>) outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}

// -----

// A depthwise conv with bias + clip: one call of the depthwise microkernel
// per workgroup, the zero fill and the epilogue folded in (flags 36: bias
// and clamp; 1086324736 = 6.0f), no loops of its own.
// UKERNEL-LABEL: llvm.func @depthwise_bias_clip
// UKERNEL-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(36 : i64) : i64
// UKERNEL-DAG: %[[SIX:.*]] = llvm.mlir.constant(1086324736 : i64) : i64
// UKERNEL-NOT: llvm.intr.maximum
// UKERNEL: llvm.call @strata_ukernel_sdwconv_f32({{.*}}, %[[FLAGS]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SIX]])
// UKERNEL-NOT: llvm.intr.maximum
// UKERNEL: llvm.func @strata_ukernel_sdwconv_f32(
// NONE-LABEL: llvm.func @depthwise_bias_clip
// NONE-NOT: strata_ukernel
func.func @depthwise_bias_clip(%x: tensor<1x58x58x96xf32>, %w: tensor<3x3x96xf32>, %bias: tensor<96xf32>) -> tensor<1x56x56x96xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<1x56x56x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x58x58x96xf32>, tensor<3x3x96xf32>) outs(%f : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %bias : tensor<1x56x56x96xf32>, tensor<96xf32>) outs(%e : tensor<1x56x56x96xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<1x56x56x96xf32>
  return %r : tensor<1x56x56x96xf32>
}

// -----

// A zero-padded depthwise input: each workgroup's padded window (a guarded
// alloc, zero fill and copy of the input rows after bufferization) is not
// built; the microkernel reads the input in place, given the window's rows
// and columns inside the input and the padding before it (top = the
// workgroup's, left = 1).
// TILES-LABEL: func.func @depthwise_padded
// TILES: scf.if
// TILES: memref.copy
// TILES: linalg.depthwise_conv_2d_nhwc_hwc
// UKERNEL-LABEL: llvm.func @depthwise_padded
// UKERNEL-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// UKERNEL-DAG: %[[COLS:.*]] = llvm.mlir.constant(56 : i64) : i64
// UKERNEL-NOT: llvm.cond_br
// UKERNEL-NOT: llvm.alloca
// UKERNEL: %[[IN:.*]] = llvm.ptrtoint %arg0
// UKERNEL: llvm.call @strata_ukernel_sdwconv_f32(%[[IN]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[COLS]], %{{.*}}, %[[ONE]],
// UKERNEL-NOT: llvm.cond_br
// UKERNEL: llvm.return
func.func @depthwise_padded(%x: tensor<1x56x56x144xf32>, %w: tensor<3x3x144xf32>) -> tensor<1x56x56x144xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x56x56x144xf32> to tensor<1x58x58x144xf32>
  %e = tensor.empty() : tensor<1x56x56x144xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x56x56x144xf32>) -> tensor<1x56x56x144xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x58x58x144xf32>, tensor<3x3x144xf32>) outs(%f : tensor<1x56x56x144xf32>) -> tensor<1x56x56x144xf32>
  return %c : tensor<1x56x56x144xf32>
}

// -----

// A max pool over a -inf padding of a convolution computed in its band
// (resnet18's stem, fused into the pool's dispatch): the band's rows go
// through the convolution microkernel with their bias and ReLU, and the
// pool's microkernel reads them in place, skipping the padding (no filled
// window, no copy: no loop at all).
// UKERNEL-LABEL: llvm.func @padded_pooled_conv
// UKERNEL-NOT: llvm.br
// UKERNEL-NOT: llvm.cond_br
// UKERNEL: llvm.call @strata_ukernel_sconv_f32(
// UKERNEL-NOT: llvm.br
// UKERNEL-NOT: llvm.cond_br
// UKERNEL: llvm.call @strata_ukernel_sdwconv_f32(
// UKERNEL-NOT: llvm.br
// UKERNEL-NOT: llvm.cond_br
// UKERNEL: llvm.return
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

// The padded stem and pool of a batch known only at run time: its
// workgroups are a loop over a dynamic count, whose tile indices (a
// remainder and quotient of the linear index) still bound each band's
// padded input rows, so they get a buffer (no "cannot allocate").
// UKERNEL-LABEL: llvm.func @padded_pooled_conv_dynamic_batch
// UKERNEL: llvm.call @strata_ukernel_sconv_f32(
// UKERNEL: llvm.call @strata_ukernel_sdwconv_f32(
// UKERNEL: llvm.return
#ukdynpool_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ukdynpool_bias = affine_map<(d0, d1, d2, d3) -> (d3)>
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
  %3 = linalg.generic {indexing_maps = [#ukdynpool_map, #ukdynpool_bias, #ukdynpool_map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2, %arg2 : tensor<?x112x112x64xf32>, tensor<64xf32>) outs(%0 : tensor<?x112x112x64xf32>) {
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

// A matrix-vector product with a bias (a classifier): its workgroups are
// cut along the product's columns (8 of them, not one for the whole
// product), and the bias is the microkernel's epilogue (flags 4).
// TILES-LABEL: func.func @matvec_bias
// TILES-SAME: strata.workgroup_count = array<i64: 8, 1, 1>
// UKERNEL-LABEL: llvm.func @matvec_bias
// UKERNEL-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(4 : i64) : i64
// UKERNEL-NOT: llvm.cond_br
// UKERNEL: llvm.call @strata_ukernel_sgemm_f32(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[FLAGS]],
// UKERNEL-NOT: llvm.cond_br
// UKERNEL: llvm.return
func.func @matvec_bias(%x: tensor<1x1280xf32>, %w: tensor<1280x1000xf32>, %bias: tensor<1000xf32>) -> tensor<1x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %m = linalg.matmul ins(%x, %w : tensor<1x1280xf32>, tensor<1280x1000xf32>) outs(%f : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<1x1000xf32>, tensor<1000xf32>) outs(%e : tensor<1x1000xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x1000xf32>
  return %r : tensor<1x1000xf32>
}

// -----

// A packed weight read by an op the microkernel does not take (here an
// elementwise add) is still right, but each workgroup unpacks all of it:
// a warning says so. Only this case warns.
// WARN-NOT: warning
// WARN: warning: llvm-cpu: a weight packed for the matmul microkernel is read by an op that does not run on it; each workgroup unpacks it
// WARN-NOT: warning
func.func @packed_misused(%x: tensor<1024x512xf32>, %p: tensor<16x1024x32xf32>) -> tensor<1024x512xf32> {
  %t0 = tensor.empty() : tensor<1024x16x32xf32>
  %t = linalg.transpose ins(%p : tensor<16x1024x32xf32>) outs(%t0 : tensor<1024x16x32xf32>) permutation = [1, 0, 2] {strata.packed_weight = {depth_group = 0 : i64, panel_columns = 32 : i64}}
  %w = tensor.collapse_shape %t [[0], [1, 2]] : tensor<1024x16x32xf32> into tensor<1024x512xf32>
  %e = tensor.empty() : tensor<1024x512xf32>
  %r = linalg.add ins(%x, %w : tensor<1024x512xf32>, tensor<1024x512xf32>) outs(%e : tensor<1024x512xf32>) -> tensor<1024x512xf32>
  return %r : tensor<1024x512xf32>
}

// -----

// mobilenet_v2's inverted residual block at batch 2 as one dispatch (an
// image a workgroup): its expansion and its depthwise convolution, at one
// shape, take their init from one zero fill (CSE merges the two).
// Bufferization clones the fill before each (cloneSharedFills), so each
// writes a temporary of its own with its fill in front of it, and all
// three convolutions fold their fill and epilogue into their microkernel
// calls: no loops, no copies. Without the clone, the expansion's buffer
// was a copy of the fill's and both bias + clip epilogues ran as loops.
// UKERNEL-LABEL: llvm.func @shared_fill_chain
// UKERNEL-NOT: llvm.intr.maximum
// UKERNEL-NOT: llvm.intr.memcpy
// UKERNEL-NOT: llvm.br
// UKERNEL: llvm.call @strata_ukernel_sconv_f32(
// UKERNEL-NOT: llvm.intr.maximum
// UKERNEL-NOT: llvm.br
// UKERNEL: llvm.call @strata_ukernel_sdwconv_f32(
// UKERNEL-NOT: llvm.intr.maximum
// UKERNEL-NOT: llvm.br
// UKERNEL: llvm.call @strata_ukernel_sconv_f32(
// UKERNEL-NOT: llvm.intr.maximum
// UKERNEL-NOT: llvm.br
// UKERNEL: llvm.return
func.func @shared_fill_chain(%x: tensor<2x14x14x24xf32>, %w1: tensor<1x1x24x128xf32>, %b1: tensor<128xf32>, %w2: tensor<3x3x128xf32>, %b2: tensor<128xf32>, %w3: tensor<1x1x128x24xf32>, %b3: tensor<24xf32>) -> tensor<2x14x14x24xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<2x14x14x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x14x14x128xf32>) -> tensor<2x14x14x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<2x14x14x24xf32>, tensor<1x1x24x128xf32>) outs(%f : tensor<2x14x14x128xf32>) -> tensor<2x14x14x128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b1 : tensor<2x14x14x128xf32>, tensor<128xf32>) outs(%e : tensor<2x14x14x128xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<2x14x14x128xf32>
  %p = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x14x14x128xf32> to tensor<2x16x16x128xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w2 : tensor<2x16x16x128xf32>, tensor<3x3x128xf32>) outs(%f : tensor<2x14x14x128xf32>) -> tensor<2x14x14x128xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %b2 : tensor<2x14x14x128xf32>, tensor<128xf32>) outs(%e : tensor<2x14x14x128xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    %m = arith.maximumf %s, %zero : f32
    %n = arith.minimumf %m, %six : f32
    linalg.yield %n : f32
  } -> tensor<2x14x14x128xf32>
  %e3 = tensor.empty() : tensor<2x14x14x24xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x14x14x24xf32>) -> tensor<2x14x14x24xf32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%y, %w3 : tensor<2x14x14x128xf32>, tensor<1x1x128x24xf32>) outs(%f3 : tensor<2x14x14x24xf32>) -> tensor<2x14x14x24xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %c3, %b3 : tensor<2x14x14x24xf32>, tensor<2x14x14x24xf32>, tensor<24xf32>) outs(%e3 : tensor<2x14x14x24xf32>) {
  ^bb0(%res: f32, %in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    %t = arith.addf %res, %s : f32
    linalg.yield %t : f32
  } -> tensor<2x14x14x24xf32>
  return %o : tensor<2x14x14x24xf32>
}
