// Constant weights of matmuls and convolutions are stored in the matmul
// microkernel's panel layout at compile time (--strata-pack-weights: 32 columns
// per panel for AVX-512, 16 for AVX2, 8 for SSE2 on a baseline x86-64) and the
// microkernel reads the panels in place; 3x3 stride-1 convolutions' filters
// (C >= 16, F >= 32, an output of 8x8 or more) are stored as their Winograd
// transforms. Here the flow form of the cases of Inputs/gen_packed_weights.py
// is checked, with the panel widths of the x86 rows (so the aarch64 suite
// leaves this test out). The cases run against their exact values on every
// ISA row and both devices in packed-weights-runs.mlir and, the Winograd
// ones (wg_*), in winograd.mlir; the aarch64 suite runs both (NEON).
// RUN: rm -rf %t && python3 %S/Inputs/gen_packed_weights.py %t
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64-v4 --compile-to=flow --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s --check-prefix=AVX512
// AVX512: %[[P:.*]] = arith.constant dense_resource<__elided__> : tensor<3x67x32xf32>
// AVX512: flow.dispatch @module_linked_llvm_cpu::@mm_rows131_dispatch_{{[0-9]+}}_matmul_131x96x67_f32(%arg0, %[[P]])
// AVX512: func.func @mm_rows131_dispatch_{{[0-9]+}}_matmul_131x96x67_f32(%arg0: tensor<131x67xf32>, %arg1: tensor<3x67x32xf32>)
// AVX512: linalg.transpose ins(%arg1 : tensor<3x67x32xf32>) outs(%{{.*}} : tensor<67x3x32xf32>) permutation = [1, 0, 2]
// The transpose keeps the packed-weight marker in the dispatch, where the
// code generator finds the panels by it (PackedWeightLayout.h).
// AVX512-SAME: {strata.packed_weight = {depth_group = 0 : i64, panel_columns = 32 : i64}}
// AVX512: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<67x3x32xf32> into tensor<67x96xf32>
// AVX512: func.func @conv3x3_pad_dispatch_{{[0-9]+}}_conv_3x3_5x64_17x23_bias_relu_f32(%arg0: tensor<1x17x23x5xf32>, %arg1: tensor<2x3x3x5x32xf32>
// AVX512: linalg.transpose ins(%arg1 : tensor<2x3x3x5x32xf32>) {{.*}} permutation = [1, 2, 3, 0, 4]
// AVX512-SAME: {strata.packed_weight = {depth_group = 0 : i64, panel_columns = 32 : i64}}
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64-v3 --compile-to=flow --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s --check-prefix=AVX2
// AVX2: func.func @mm_rows131_dispatch_{{[0-9]+}}_matmul_131x96x67_f32(%arg0: tensor<131x67xf32>, %arg1: tensor<6x67x16xf32>)
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64 --compile-to=flow --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s --check-prefix=GENERIC
// GENERIC: func.func @mm_rows131_dispatch_{{[0-9]+}}_matmul_131x96x67_f32(%arg0: tensor<131x67xf32>, %arg1: tensor<12x67x8xf32>)
// A 3x3 convolution of a 7x7 output keeps its filter (Winograd's 4x4 tiles
// would be mostly padding: WinogradFilters.h).
// AVX512: func.func @conv3x3_7x7_dispatch_{{[0-9]+}}_conv_3x3_96x128_7x7_bias_relu_f32(%arg0: tensor<1x7x7x96xf32>, %arg1: tensor<4x3x3x96x32xf32>
// AVX512-NOT: strata.winograd_filter
// AVX512: func.func @mm_n97_dispatch_{{[0-9]+}}_matmul_37x97x131_f32(%arg0: tensor<37x131xf32>, %arg1: tensor<4x131x32xf32>)
// AVX512: tensor.extract_slice %{{.*}}[0, 0] [131, 97] [1, 1] : tensor<131x128xf32> to tensor<131x97xf32>
// A filter stored as its Winograd transform: 6x6 x 17 x 37 in two
// 32-column panels, read back through the marked generic (L U L^T) that
// the convolution microkernel reads past (STRATA_SGEMM_WINOGRAD).
// AVX512: func.func @wg_edges_dispatch_{{[0-9]+}}_conv_3x3_17x37_13x11_f32(%arg0: tensor<1x13x11x17xf32>, %arg1: tensor<2x6x6x17x32xf32>)
// AVX512: linalg.transpose ins(%arg1 : tensor<2x6x6x17x32xf32>) {{.*}} permutation = [1, 2, 3, 0, 4]
// AVX512: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<3x6xf32>, tensor<3x6xf32>, tensor<6x6x17x37xf32>) outs(%{{.*}} : tensor<3x3x17x37xf32>)
// AVX512-SAME: strata.winograd_filter = {output_tile = 4 : i64}
// AVX512: linalg.conv_2d_nhwc_hwcf
// A fire module's 3x3 expansion at batch 8 too, in its concatenation's
// dispatch (whose bands are then whole images).
// AVX512: func.func @wg_concat_n8_dispatch_{{[0-9]+}}_conv_3x3_16x48_9x9_n8_concat_f32(%arg0: tensor<8x9x9x16xf32>, %arg1: tensor<1x1x1x16x32xf32>, %arg2: tensor<2x6x6x16x32xf32>)
// AVX512: strata.winograd_filter = {output_tile = 4 : i64}
// The classifier: the pool's average is not computed in the matmul's
// dispatch (each of its workgroups would pool again), so the convolution
// and its epilogue are computed in the pool's.
// AVX512: func.func @classifier_n3_dispatch_{{[0-9]+}}_conv_3x3_40x40_7x5_n3_bias_add_relu_globalpool_f32(
// AVX512-SAME: -> tensor<3x40xf32>
// AVX512: func.func @classifier_n3_dispatch_{{[0-9]+}}_matmul_3x13x40_
// AVX512-SAME: (%arg0: tensor<3x40xf32>
