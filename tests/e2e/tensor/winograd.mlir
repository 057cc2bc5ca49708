// 3x3 stride-1 convolutions whose constant filters the flow phase stores
// as their Winograd F(4x4, 3x3) transforms (--strata-pack-weights winograd;
// their flow form: packed-weights.mlir), run by the convolution
// microkernel's Winograd path on every ISA row (AVX-512, AVX2, baseline
// x86-64; NEON in the aarch64 suite) and both devices: 13x11 outputs
// (partial 4x4 tiles down and across, 13 rows a prime), 17 channels and 37
// filters (vector tails), an unpadded input with bias + relu (10x8 out), 28
// rows in workgroups of 4 rows, and a fire module's expansions computed in
// their concatenation's dispatch: at batch 8 (whole-image bands), batch 1
// (each workgroup a half of both operands' channels, of the whole image or
// of a band of rows, the last band shorter) and batch 2; 61 rows 13 wide
// (a prime: calls of the whole image, which the microkernel takes in bands
// of 28 rows, 28 + 28 + 5: its band loop three times a call); a transform
// larger than 1 MiB (96 channels, 97 filters: calls of all 8 rows, not 4,
// in column tiles of 32, 32, 32 and 1); a residual (a second argument)
// added with the bias before relu in the convolution's dispatch (17x30:
// bands of 16 rows and 1, the residual read in both); and a standalone
// convolution at batch 3 (11x9 out, 19 channels, 35 filters: an image a
// workgroup). Each against the exact sums of Inputs/gen_packed_weights.py
// within strata-run's 1e-4 (Winograd's transforms round differently; 1e-3
// for the 864-deep sums of the large transform, up to 39 in magnitude,
// which lose up to 2.5e-4 on the x86 rows and NEON alike), and the same
// convolutions with the filter as an argument (the direct kernel).
// RUN: rm -rf %t && python3 %S/Inputs/gen_packed_weights.py %t wg_edges wg_valid wg_rows wg_concat_n8 wg_concat_n1 wg_concat_rows wg_concat_n2 wg_bands wg_large wg_residual wg_n3
// RUN: strata-compile %t/program.mlir -o %t/host.vmfb 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// Every Winograd filter's view is read past by the microkernel (one left
// to an op on loops would be computed by every workgroup, with a warning).
// QUIET-NOT: warning
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64-v3 -o %t/avx2.vmfb 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64 -o %t/generic.vmfb 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// --winograd=false keeps every convolution on the direct kernel.
// RUN: strata-compile %t/program.mlir --winograd=false --compile-to=flow --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s --check-prefix=OFF
// OFF: func.func @wg_edges_dispatch_{{[0-9]+}}_conv_3x3_17x37_13x11_f32(%arg0: tensor<1x13x11x17xf32>, %arg1: tensor<{{[0-9]+}}x3x3x17x{{[0-9]+}}xf32>)
// OFF-NOT: strata.winograd_filter
// RUN: strata-compile %t/program.mlir --compile-to=flow --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s --check-prefix=FLOW
// The residual's function is one dispatch, which reads the residual.
// FLOW: func.func @wg_residual(%arg0: tensor<1x17x30x16xf32>, %arg1: tensor<1x17x30x40xf32>)
// FLOW-NOT: flow.dispatch
// FLOW: flow.dispatch @{{.*}}::@wg_residual_dispatch_{{[0-9]+}}_conv_3x3_16x40_17x30_bias_add_relu_f32(%arg0, %{{.*}}, %arg1)
// FLOW-NOT: flow.dispatch
// FLOW: return
// At batch 1 too, the 3x3 expansion keeps its transform in the
// concatenation's dispatch.
// FLOW: func.func @wg_concat_n1_dispatch_{{[0-9]+}}_conv_3x3_17x128_13x11_concat_f32(
// FLOW: strata.winograd_filter = {output_tile = 4 : i64}
// These four cases' filters are stored as their Winograd transforms too:
// the band loop's, the large transform (36 x 96 x 97 floats, under the 10
// MiB that WinogradFilters.cpp stores), the residual's (its add and relu
// computed after the convolution in its dispatch) and batch 3's.
// FLOW: func.func @wg_bands_dispatch_{{[0-9]+}}_conv_3x3_16x37_61x13_bias_relu_f32(
// FLOW-NOT: func.func
// FLOW: strata.winograd_filter = {output_tile = 4 : i64}
// FLOW: func.func @wg_large_dispatch_{{[0-9]+}}_conv_3x3_96x97_8x9_f32(
// FLOW-NOT: func.func
// FLOW: strata.winograd_filter = {output_tile = 4 : i64}
// FLOW: func.func @wg_residual_dispatch_{{[0-9]+}}_conv_3x3_16x40_17x30_bias_add_relu_f32(%arg0: tensor<1x17x30x16xf32>, %arg1: tensor<{{.*}}>, %arg2: tensor<1x17x30x40xf32>)
// FLOW-NOT: func.func
// FLOW: strata.winograd_filter = {output_tile = 4 : i64}
// FLOW-NOT: func.func
// FLOW: %[[CONV:.*]] = linalg.conv_2d_nhwc_hwcf
// FLOW-NOT: func.func
// FLOW: linalg.generic {{.*}} ins(%[[CONV]], %{{.*}}, %arg2 :
// FLOW-NEXT: ^bb0
// FLOW-NEXT: arith.addf
// FLOW-NEXT: arith.addf
// FLOW-NEXT: arith.maximumf
// FLOW: func.func @wg_n3_dispatch_{{[0-9]+}}_conv_3x3_19x35_11x9_n3_bias_relu_f32(
// FLOW-NOT: func.func
// FLOW: strata.winograd_filter = {output_tile = 4 : i64}
// RUN: strata-compile %t/program.mlir --winograd=false -o %t/direct.vmfb
// RUN: strata-run --module=%t/direct.vmfb --function=wg_edges --input=@%t/wg_edges.input.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_edges --input=@%t/wg_edges.input.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_edges --input=@%t/wg_edges.input.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_edges --input=@%t/wg_edges.input.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_edges --input=@%t/wg_edges.input.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_edges --input=@%t/wg_edges.input.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=wg_edges --input=@%t/wg_edges.input.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=wg_edges_arg --input=@%t/wg_edges.input.npy --input=@%t/wg_edges.weight.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_valid --input=@%t/wg_valid.input.npy --expected_output=@%t/wg_valid.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_valid --input=@%t/wg_valid.input.npy --expected_output=@%t/wg_valid.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_valid --input=@%t/wg_valid.input.npy --expected_output=@%t/wg_valid.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_valid --input=@%t/wg_valid.input.npy --expected_output=@%t/wg_valid.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_valid --input=@%t/wg_valid.input.npy --expected_output=@%t/wg_valid.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=wg_valid --input=@%t/wg_valid.input.npy --expected_output=@%t/wg_valid.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=wg_valid_arg --input=@%t/wg_valid.input.npy --input=@%t/wg_valid.weight.npy --expected_output=@%t/wg_valid.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_rows --input=@%t/wg_rows.input.npy --expected_output=@%t/wg_rows.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_rows --input=@%t/wg_rows.input.npy --expected_output=@%t/wg_rows.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_rows --input=@%t/wg_rows.input.npy --expected_output=@%t/wg_rows.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_rows --input=@%t/wg_rows.input.npy --expected_output=@%t/wg_rows.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_rows --input=@%t/wg_rows.input.npy --expected_output=@%t/wg_rows.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=wg_rows --input=@%t/wg_rows.input.npy --expected_output=@%t/wg_rows.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=wg_rows_arg --input=@%t/wg_rows.input.npy --input=@%t/wg_rows.weight.npy --expected_output=@%t/wg_rows.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_concat_n8 --input=@%t/wg_concat_n8.input.npy --expected_output=@%t/wg_concat_n8.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_concat_n8 --input=@%t/wg_concat_n8.input.npy --expected_output=@%t/wg_concat_n8.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_concat_n8 --input=@%t/wg_concat_n8.input.npy --expected_output=@%t/wg_concat_n8.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_concat_n8 --input=@%t/wg_concat_n8.input.npy --expected_output=@%t/wg_concat_n8.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_concat_n8 --input=@%t/wg_concat_n8.input.npy --expected_output=@%t/wg_concat_n8.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=wg_concat_n8 --input=@%t/wg_concat_n8.input.npy --expected_output=@%t/wg_concat_n8.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_concat_n1 --input=@%t/wg_concat_n1.input.npy --expected_output=@%t/wg_concat_n1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_concat_n1 --input=@%t/wg_concat_n1.input.npy --expected_output=@%t/wg_concat_n1.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_concat_n1 --input=@%t/wg_concat_n1.input.npy --expected_output=@%t/wg_concat_n1.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_concat_n1 --input=@%t/wg_concat_n1.input.npy --expected_output=@%t/wg_concat_n1.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_concat_n1 --input=@%t/wg_concat_n1.input.npy --expected_output=@%t/wg_concat_n1.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=wg_concat_n1 --input=@%t/wg_concat_n1.input.npy --expected_output=@%t/wg_concat_n1.expected.npy
// RUN: strata-run --module=%t/direct.vmfb --function=wg_concat_n1 --input=@%t/wg_concat_n1.input.npy --expected_output=@%t/wg_concat_n1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_concat_n2 --input=@%t/wg_concat_n2.input.npy --expected_output=@%t/wg_concat_n2.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_concat_n2 --input=@%t/wg_concat_n2.input.npy --expected_output=@%t/wg_concat_n2.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_concat_n2 --input=@%t/wg_concat_n2.input.npy --expected_output=@%t/wg_concat_n2.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_concat_n2 --input=@%t/wg_concat_n2.input.npy --expected_output=@%t/wg_concat_n2.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_concat_n2 --input=@%t/wg_concat_n2.input.npy --expected_output=@%t/wg_concat_n2.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=wg_concat_n2 --input=@%t/wg_concat_n2.input.npy --expected_output=@%t/wg_concat_n2.expected.npy
// RUN: strata-run --module=%t/direct.vmfb --function=wg_concat_n2 --input=@%t/wg_concat_n2.input.npy --expected_output=@%t/wg_concat_n2.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_concat_rows --input=@%t/wg_concat_rows.input.npy --expected_output=@%t/wg_concat_rows.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_concat_rows --input=@%t/wg_concat_rows.input.npy --expected_output=@%t/wg_concat_rows.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_concat_rows --input=@%t/wg_concat_rows.input.npy --expected_output=@%t/wg_concat_rows.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_concat_rows --input=@%t/wg_concat_rows.input.npy --expected_output=@%t/wg_concat_rows.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_concat_rows --input=@%t/wg_concat_rows.input.npy --expected_output=@%t/wg_concat_rows.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=wg_concat_rows --input=@%t/wg_concat_rows.input.npy --expected_output=@%t/wg_concat_rows.expected.npy
// RUN: strata-run --module=%t/direct.vmfb --function=wg_concat_rows --input=@%t/wg_concat_rows.input.npy --expected_output=@%t/wg_concat_rows.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_bands --input=@%t/wg_bands.input.npy --expected_output=@%t/wg_bands.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_bands --input=@%t/wg_bands.input.npy --expected_output=@%t/wg_bands.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_bands --input=@%t/wg_bands.input.npy --expected_output=@%t/wg_bands.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_bands --input=@%t/wg_bands.input.npy --expected_output=@%t/wg_bands.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_bands --input=@%t/wg_bands.input.npy --expected_output=@%t/wg_bands.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=wg_bands --input=@%t/wg_bands.input.npy --expected_output=@%t/wg_bands.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=wg_bands_arg --input=@%t/wg_bands.input.npy --input=@%t/wg_bands.weight.npy --expected_output=@%t/wg_bands.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_large --input=@%t/wg_large.input.npy --expected_f32_threshold=1e-3 --expected_output=@%t/wg_large.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_large --input=@%t/wg_large.input.npy --expected_f32_threshold=1e-3 --expected_output=@%t/wg_large.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_large --input=@%t/wg_large.input.npy --expected_f32_threshold=1e-3 --expected_output=@%t/wg_large.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_large --input=@%t/wg_large.input.npy --expected_f32_threshold=1e-3 --expected_output=@%t/wg_large.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_large --input=@%t/wg_large.input.npy --expected_f32_threshold=1e-3 --expected_output=@%t/wg_large.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=wg_large --input=@%t/wg_large.input.npy --expected_f32_threshold=1e-3 --expected_output=@%t/wg_large.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=wg_large_arg --input=@%t/wg_large.input.npy --input=@%t/wg_large.weight.npy --expected_output=@%t/wg_large.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_residual --input=@%t/wg_residual.input.npy --input=@%t/wg_residual.residual.npy --expected_output=@%t/wg_residual.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_residual --input=@%t/wg_residual.input.npy --input=@%t/wg_residual.residual.npy --expected_output=@%t/wg_residual.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_residual --input=@%t/wg_residual.input.npy --input=@%t/wg_residual.residual.npy --expected_output=@%t/wg_residual.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_residual --input=@%t/wg_residual.input.npy --input=@%t/wg_residual.residual.npy --expected_output=@%t/wg_residual.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_residual --input=@%t/wg_residual.input.npy --input=@%t/wg_residual.residual.npy --expected_output=@%t/wg_residual.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=wg_residual --input=@%t/wg_residual.input.npy --input=@%t/wg_residual.residual.npy --expected_output=@%t/wg_residual.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=wg_residual_arg --input=@%t/wg_residual.input.npy --input=@%t/wg_residual.weight.npy --input=@%t/wg_residual.residual.npy --expected_output=@%t/wg_residual.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_n3 --input=@%t/wg_n3.input.npy --expected_output=@%t/wg_n3.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_n3 --input=@%t/wg_n3.input.npy --expected_output=@%t/wg_n3.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_n3 --input=@%t/wg_n3.input.npy --expected_output=@%t/wg_n3.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_n3 --input=@%t/wg_n3.input.npy --expected_output=@%t/wg_n3.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_n3 --input=@%t/wg_n3.input.npy --expected_output=@%t/wg_n3.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=wg_n3 --input=@%t/wg_n3.input.npy --expected_output=@%t/wg_n3.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=wg_n3_arg --input=@%t/wg_n3.input.npy --input=@%t/wg_n3.weight.npy --expected_output=@%t/wg_n3.expected.npy
// REQUIRES: llvm-cpu
