// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=64 matmul-ukernel=avx512vnni' | FileCheck %s --check-prefix=VNNI
// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=64 matmul-ukernel=avx512amx' | FileCheck %s --check-prefix=AMX
// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=32 matmul-ukernel=avx2' | FileCheck %s --check-prefix=AVX2
// RUN: strata-opt %s --split-input-file --strata-llvmcpu-verify-input --strata-llvmcpu-tile-and-distribute --strata-llvmcpu-bufferize --strata-llvmcpu-bind-workgroup-ids '--strata-llvmcpu-lower-to-llvm=native-vector-bytes=64' | FileCheck %s --check-prefix=NONE

// A quantized layer's contraction as QDQFusion.cpp writes it, its i8
// weight packed at compile time for vpdpbusd (--strata-pack-weights:
// 32-column panels, depth groups of 4, K = 259 padded to 260): one call of
// the int8 microkernel per workgroup with flags 6 (STRATA_IGEMM_PACKED_B |
// STRATA_IGEMM_REQUANTIZE, overwrite). It reads the panels in place (no
// transpose of the weight at run time), stores the requantized i8 output
// itself (no i32 temporary, no loop after the call) and gets the
// requantization's adjust and multiplier addresses, then the zero point 3,
// lo 0 and hi 255 as f32 bits.
// VNNI-LABEL: llvm.func @requantized
// VNNI-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(6 : i64) : i64
// VNNI-DAG: %[[ZERO:.*]] = llvm.mlir.constant(1077936128 : i64) : i64
// VNNI-DAG: %[[LO:.*]] = llvm.mlir.constant(0 : i64) : i64
// VNNI-DAG: %[[HI:.*]] = llvm.mlir.constant(1132396544 : i64) : i64
// VNNI: llvm.call @strata_ukernel_igemm_s8(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]], %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %[[LO]], %[[HI]])
// VNNI-NOT: llvm.intr.roundeven
// VNNI: llvm.func @strata_ukernel_igemm_s8(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// The weight's panels are vpdpbusd's: with vpmaddwd's (16 x 2) they are
// not read in place; the transpose runs, and the call packs B (flags 4).
// AVX2-LABEL: llvm.func @requantized
// AVX2-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(4 : i64) : i64
// AVX2: llvm.call @strata_ukernel_igemm_s8(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]],
// AMX tiles read 64 bytes of depth at a time: their panels have the depth
// padded to a multiple of 64 (320 here). vpdpbusd's (260) are not read in
// place; the call packs B (flags 4).
// AMX-LABEL: llvm.func @requantized
// AMX-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(4 : i64) : i64
// AMX: llvm.call @strata_ukernel_igemm_s8(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]],
// Without a microkernel: loops, with the requantization's rounding.
// NONE-LABEL: llvm.func @requantized
// NONE-NOT: strata_ukernel
// NONE: llvm.intr.roundeven
func.func @requantized(%a: tensor<64x259xi8>, %p: tensor<3x65x32x4xi8>, %adjust: tensor<96xi32>, %multiplier: tensor<96xf32>) -> tensor<64x96xi8> {
  %zero = arith.constant 0 : i32
  %zp = arith.constant 3.0 : f32
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 255.0 : f32
  %t0 = tensor.empty() : tensor<65x4x3x32xi8>
  %t = linalg.transpose ins(%p : tensor<3x65x32x4xi8>) outs(%t0 : tensor<65x4x3x32xi8>) permutation = [1, 3, 0, 2] {strata.packed_weight = {depth_group = 4 : i64, panel_columns = 32 : i64}}
  %c = tensor.collapse_shape %t [[0, 1], [2, 3]] : tensor<65x4x3x32xi8> into tensor<260x96xi8>
  %b = tensor.extract_slice %c[0, 0] [259, 96] [1, 1] : tensor<260x96xi8> to tensor<259x96xi8>
  %e = tensor.empty() : tensor<64x96xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<64x96xi32>) -> tensor<64x96xi32>
  %r = linalg.matmul ins(%a, %b : tensor<64x259xi8>, tensor<259x96xi8>) outs(%f : tensor<64x96xi32>) -> tensor<64x96xi32>
  %e8 = tensor.empty() : tensor<64x96xi8>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r, %adjust, %multiplier : tensor<64x96xi32>, tensor<96xi32>, tensor<96xf32>) outs(%e8 : tensor<64x96xi8>) {
  ^bb0(%acc: i32, %adj: i32, %mul: f32, %out: i8):
    %s = arith.addi %acc, %adj : i32
    %sf = arith.sitofp %s : i32 to f32
    %scaled = arith.mulf %sf, %mul : f32
    %rounded = math.roundeven %scaled : f32
    %shifted = arith.addf %rounded, %zp : f32
    %low = arith.maximumf %shifted, %lo : f32
    %high = arith.minimumf %low, %hi : f32
    %i = arith.fptosi %high : f32 to i32
    %q = arith.trunci %i : i32 to i8
    linalg.yield %q : i8
  } -> tensor<64x96xi8>
  return %y : tensor<64x96xi8>
}

// -----

// The same layer with its weight packed for AMX (--strata-pack-weights
// int8-depth-multiple=64: 80 depth groups of 4, K = 259 padded to 320):
// the AMX kernel reads the panels in place and requantizes (flags 6); the
// VNNI kernel, whose panels hold 260 of depth, does not (flags 4).
// AMX-LABEL: llvm.func @requantized_amx
// AMX-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(6 : i64) : i64
// AMX: llvm.call @strata_ukernel_igemm_s8(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]],
// AMX-NOT: llvm.intr.roundeven
// VNNI-LABEL: llvm.func @requantized_amx
// VNNI-DAG: %[[FLAGS:.*]] = llvm.mlir.constant(4 : i64) : i64
// VNNI: llvm.call @strata_ukernel_igemm_s8(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]],
// AVX2-LABEL: llvm.func @requantized_amx
// NONE-LABEL: llvm.func @requantized_amx
func.func @requantized_amx(%a: tensor<64x259xi8>, %p: tensor<3x80x32x4xi8>, %adjust: tensor<96xi32>, %multiplier: tensor<96xf32>) -> tensor<64x96xi8> {
  %zero = arith.constant 0 : i32
  %zp = arith.constant 3.0 : f32
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 255.0 : f32
  %t0 = tensor.empty() : tensor<80x4x3x32xi8>
  %t = linalg.transpose ins(%p : tensor<3x80x32x4xi8>) outs(%t0 : tensor<80x4x3x32xi8>) permutation = [1, 3, 0, 2] {strata.packed_weight = {depth_group = 4 : i64, panel_columns = 32 : i64}}
  %c = tensor.collapse_shape %t [[0, 1], [2, 3]] : tensor<80x4x3x32xi8> into tensor<320x96xi8>
  %b = tensor.extract_slice %c[0, 0] [259, 96] [1, 1] : tensor<320x96xi8> to tensor<259x96xi8>
  %e = tensor.empty() : tensor<64x96xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<64x96xi32>) -> tensor<64x96xi32>
  %r = linalg.matmul ins(%a, %b : tensor<64x259xi8>, tensor<259x96xi8>) outs(%f : tensor<64x96xi32>) -> tensor<64x96xi32>
  %e8 = tensor.empty() : tensor<64x96xi8>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r, %adjust, %multiplier : tensor<64x96xi32>, tensor<96xi32>, tensor<96xf32>) outs(%e8 : tensor<64x96xi8>) {
  ^bb0(%acc: i32, %adj: i32, %mul: f32, %out: i8):
    %s = arith.addi %acc, %adj : i32
    %sf = arith.sitofp %s : i32 to f32
    %scaled = arith.mulf %sf, %mul : f32
    %rounded = math.roundeven %scaled : f32
    %shifted = arith.addf %rounded, %zp : f32
    %low = arith.maximumf %shifted, %lo : f32
    %high = arith.minimumf %low, %hi : f32
    %i = arith.fptosi %high : f32 to i32
    %q = arith.trunci %i : i32 to i8
    linalg.yield %q : i8
  } -> tensor<64x96xi8>
  return %y : tensor<64x96xi8>
}
