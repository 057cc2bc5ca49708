// Constant weights of matmuls and convolutions are stored in the matmul
// microkernel's panel layout at compile time (--strata-pack-weights: 32 columns
// per panel for AVX-512, 16 for AVX2, 8 for SSE2 on a baseline x86-64) and the
// microkernel reads the panels in place. Edge sizes: 1, 5 and 131 rows (131
// rows of 1024 floats too, which the driver packs: partial row panels of packed
// A), primes for depth and image sizes, 1x1, 3x3 (padded; on a 7x7 image) and
// 7x7 stride-2 convolutions, bias + relu epilogues, 97 and 100 columns (a last
// panel padded with zero columns), output rows 28 and 55 wide, which the
// microkernel reads in place from the padded input, and rows of 14 and 13 read
// in place at depths 1179 and 2367 (more than one depth block of the AVX-512
// VNNI row's conv_kc, 1152), rows of 7 and 3 read two to a tile (half of
// AVX-512's and of AVX2's tile), and two convolutions whose bias, ReLU and
// global average pool are computed in their dispatch (--fuse-into-pool; a
// partial column tile of 140 of 300 filters at batch 3), and resnet18's tail
// at batch 3 (a 3x3 convolution with its bias, residual and ReLU pooled in
// one dispatch, the classifier's matmul in another). Each case also runs
// with the weight passed as an argument (unpacked); both must give the expected
// values (Inputs/gen_packed_weights.py: every sum is exact in f32, so all but
// the global pools' averages, which round once, are exact, and but the 3x3
// stride-1 convolutions whose filters are stored as their Winograd
// transforms, whose tiles round differently: within strata-run's 1e-4).
// Those (wg_*) run in winograd.mlir, which the aarch64 suite runs too; here
// their flow form is checked.
// RUN: rm -rf %t && python3 %S/Inputs/gen_packed_weights.py %t
// RUN: strata-compile %t/program.mlir -o %t/host.vmfb 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// Every packed weight is read by the microkernel in place (a weight left to
// an op on loops would be unpacked by every workgroup, with a warning).
// QUIET-NOT: warning
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64-v3 -o %t/avx2.vmfb 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64 -o %t/generic.vmfb
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
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=mm_rows131_arg --input=@%t/mm_rows131.input.npy --input=@%t/mm_rows131.weight.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=mm_rows1_arg --input=@%t/mm_rows1.input.npy --input=@%t/mm_rows1.weight.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=mm_rows5_arg --input=@%t/mm_rows5.input.npy --input=@%t/mm_rows5.weight.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=mm_packed_a --input=@%t/mm_packed_a.input.npy --expected_output=@%t/mm_packed_a.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=mm_packed_a --input=@%t/mm_packed_a.input.npy --expected_output=@%t/mm_packed_a.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=mm_packed_a --input=@%t/mm_packed_a.input.npy --expected_output=@%t/mm_packed_a.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=mm_packed_a --input=@%t/mm_packed_a.input.npy --expected_output=@%t/mm_packed_a.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=mm_packed_a_arg --input=@%t/mm_packed_a.input.npy --input=@%t/mm_packed_a.weight.npy --expected_output=@%t/mm_packed_a.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv3x3_pad_arg --input=@%t/conv3x3_pad.input.npy --input=@%t/conv3x3_pad.weight.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv7x7_s2_arg --input=@%t/conv7x7_s2.input.npy --input=@%t/conv7x7_s2.weight.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv1x1_arg --input=@%t/conv1x1.input.npy --input=@%t/conv1x1.weight.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv3x3_7x7_arg --input=@%t/conv3x3_7x7.input.npy --input=@%t/conv3x3_7x7.weight.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=mm_n97_arg --input=@%t/mm_n97.input.npy --input=@%t/mm_n97.weight.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv1x1_f100_arg --input=@%t/conv1x1_f100.input.npy --input=@%t/conv1x1_f100.weight.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv1x1_f24 --input=@%t/conv1x1_f24.input.npy --expected_output=@%t/conv1x1_f24.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv1x1_f24 --input=@%t/conv1x1_f24.input.npy --expected_output=@%t/conv1x1_f24.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv1x1_f24 --input=@%t/conv1x1_f24.input.npy --expected_output=@%t/conv1x1_f24.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv1x1_f24 --input=@%t/conv1x1_f24.input.npy --expected_output=@%t/conv1x1_f24.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv1x1_f20 --input=@%t/conv1x1_f20.input.npy --expected_output=@%t/conv1x1_f20.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv1x1_f20 --input=@%t/conv1x1_f20.input.npy --expected_output=@%t/conv1x1_f20.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv1x1_f20 --input=@%t/conv1x1_f20.input.npy --expected_output=@%t/conv1x1_f20.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv1x1_f20 --input=@%t/conv1x1_f20.input.npy --expected_output=@%t/conv1x1_f20.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_k1179 --input=@%t/conv3x3_k1179.input.npy --expected_output=@%t/conv3x3_k1179.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_k1179 --input=@%t/conv3x3_k1179.input.npy --expected_output=@%t/conv3x3_k1179.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_k1179 --input=@%t/conv3x3_k1179.input.npy --expected_output=@%t/conv3x3_k1179.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_k1179 --input=@%t/conv3x3_k1179.input.npy --expected_output=@%t/conv3x3_k1179.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_k2367 --input=@%t/conv3x3_k2367.input.npy --expected_output=@%t/conv3x3_k2367.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_k2367 --input=@%t/conv3x3_k2367.input.npy --expected_output=@%t/conv3x3_k2367.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_k2367 --input=@%t/conv3x3_k2367.input.npy --expected_output=@%t/conv3x3_k2367.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_k2367 --input=@%t/conv3x3_k2367.input.npy --expected_output=@%t/conv3x3_k2367.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_w7_pairs --input=@%t/conv3x3_w7_pairs.input.npy --expected_output=@%t/conv3x3_w7_pairs.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_w7_pairs --input=@%t/conv3x3_w7_pairs.input.npy --expected_output=@%t/conv3x3_w7_pairs.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_w7_pairs --input=@%t/conv3x3_w7_pairs.input.npy --expected_output=@%t/conv3x3_w7_pairs.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_w7_pairs --input=@%t/conv3x3_w7_pairs.input.npy --expected_output=@%t/conv3x3_w7_pairs.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv3x3_w7_pairs_arg --input=@%t/conv3x3_w7_pairs.input.npy --input=@%t/conv3x3_w7_pairs.weight.npy --expected_output=@%t/conv3x3_w7_pairs.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_w3_pairs --input=@%t/conv3x3_w3_pairs.input.npy --expected_output=@%t/conv3x3_w3_pairs.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_w3_pairs --input=@%t/conv3x3_w3_pairs.input.npy --expected_output=@%t/conv3x3_w3_pairs.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_w3_pairs --input=@%t/conv3x3_w3_pairs.input.npy --expected_output=@%t/conv3x3_w3_pairs.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_w3_pairs --input=@%t/conv3x3_w3_pairs.input.npy --expected_output=@%t/conv3x3_w3_pairs.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv3x3_w3_pairs_arg --input=@%t/conv3x3_w3_pairs.input.npy --input=@%t/conv3x3_w3_pairs.weight.npy --expected_output=@%t/conv3x3_w3_pairs.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_f48 --input=@%t/conv3x3_f48.input.npy --expected_output=@%t/conv3x3_f48.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_f48 --input=@%t/conv3x3_f48.input.npy --expected_output=@%t/conv3x3_f48.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_f48 --input=@%t/conv3x3_f48.input.npy --expected_output=@%t/conv3x3_f48.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_f48 --input=@%t/conv3x3_f48.input.npy --expected_output=@%t/conv3x3_f48.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=gp1x1_f300_n3 --input=@%t/gp1x1_f300_n3.input.npy --expected_output=@%t/gp1x1_f300_n3.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=gp1x1_f300_n3 --input=@%t/gp1x1_f300_n3.input.npy --expected_output=@%t/gp1x1_f300_n3.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=gp1x1_f300_n3 --input=@%t/gp1x1_f300_n3.input.npy --expected_output=@%t/gp1x1_f300_n3.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=gp1x1_f300_n3 --input=@%t/gp1x1_f300_n3.input.npy --expected_output=@%t/gp1x1_f300_n3.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=gp1x1_f300_n3_arg --input=@%t/gp1x1_f300_n3.input.npy --input=@%t/gp1x1_f300_n3.weight.npy --expected_output=@%t/gp1x1_f300_n3.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=gp3x3_f37 --input=@%t/gp3x3_f37.input.npy --expected_output=@%t/gp3x3_f37.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=gp3x3_f37 --input=@%t/gp3x3_f37.input.npy --expected_output=@%t/gp3x3_f37.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=gp3x3_f37 --input=@%t/gp3x3_f37.input.npy --expected_output=@%t/gp3x3_f37.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=gp3x3_f37 --input=@%t/gp3x3_f37.input.npy --expected_output=@%t/gp3x3_f37.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=gp3x3_f37_arg --input=@%t/gp3x3_f37.input.npy --input=@%t/gp3x3_f37.weight.npy --expected_output=@%t/gp3x3_f37.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=classifier_n3 --input=@%t/classifier_n3.input.npy --expected_output=@%t/classifier_n3.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=classifier_n3 --input=@%t/classifier_n3.input.npy --expected_output=@%t/classifier_n3.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=classifier_n3 --input=@%t/classifier_n3.input.npy --expected_output=@%t/classifier_n3.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=classifier_n3 --input=@%t/classifier_n3.input.npy --expected_output=@%t/classifier_n3.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=classifier_n3_arg --input=@%t/classifier_n3.input.npy --input=@%t/classifier_n3.weight.npy --expected_output=@%t/classifier_n3.expected.npy
