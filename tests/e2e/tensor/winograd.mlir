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
// of a band of rows, the last band shorter) and batch 2. Each
// against the exact sums of Inputs/gen_packed_weights.py within
// strata-run's 1e-4 (Winograd's transforms round differently), and the
// same convolutions with the filter as an argument (the direct kernel).
// RUN: rm -rf %t && python3 %S/Inputs/gen_packed_weights.py %t wg_edges wg_valid wg_rows wg_concat_n8 wg_concat_n1 wg_concat_rows wg_concat_n2
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
// At batch 1 too, the 3x3 expansion keeps its transform in the
// concatenation's dispatch.
// RUN: strata-compile %t/program.mlir --compile-to=flow --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s --check-prefix=FLOW
// FLOW: func.func @wg_concat_n1_dispatch_{{[0-9]+}}_conv_3x3_17x128_13x11_concat_f32(
// FLOW: strata.winograd_filter = {output_tile = 4 : i64}
// RUN: strata-compile %t/program.mlir --winograd=false -o %t/direct.vmfb
// RUN: strata-run --module=%t/direct.vmfb --function=wg_edges --input=@%t/wg_edges.input.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_edges --input=@%t/wg_edges.input.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_edges --input=@%t/wg_edges.input.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_edges --input=@%t/wg_edges.input.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_edges --input=@%t/wg_edges.input.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_edges --input=@%t/wg_edges.input.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=wg_edges_arg --input=@%t/wg_edges.input.npy --input=@%t/wg_edges.weight.npy --expected_output=@%t/wg_edges.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_valid --input=@%t/wg_valid.input.npy --expected_output=@%t/wg_valid.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_valid --input=@%t/wg_valid.input.npy --expected_output=@%t/wg_valid.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_valid --input=@%t/wg_valid.input.npy --expected_output=@%t/wg_valid.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_valid --input=@%t/wg_valid.input.npy --expected_output=@%t/wg_valid.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_valid --input=@%t/wg_valid.input.npy --expected_output=@%t/wg_valid.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=wg_valid_arg --input=@%t/wg_valid.input.npy --input=@%t/wg_valid.weight.npy --expected_output=@%t/wg_valid.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_rows --input=@%t/wg_rows.input.npy --expected_output=@%t/wg_rows.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_rows --input=@%t/wg_rows.input.npy --expected_output=@%t/wg_rows.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_rows --input=@%t/wg_rows.input.npy --expected_output=@%t/wg_rows.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_rows --input=@%t/wg_rows.input.npy --expected_output=@%t/wg_rows.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_rows --input=@%t/wg_rows.input.npy --expected_output=@%t/wg_rows.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=wg_rows_arg --input=@%t/wg_rows.input.npy --input=@%t/wg_rows.weight.npy --expected_output=@%t/wg_rows.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_concat_n8 --input=@%t/wg_concat_n8.input.npy --expected_output=@%t/wg_concat_n8.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_concat_n8 --input=@%t/wg_concat_n8.input.npy --expected_output=@%t/wg_concat_n8.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_concat_n8 --input=@%t/wg_concat_n8.input.npy --expected_output=@%t/wg_concat_n8.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_concat_n8 --input=@%t/wg_concat_n8.input.npy --expected_output=@%t/wg_concat_n8.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_concat_n8 --input=@%t/wg_concat_n8.input.npy --expected_output=@%t/wg_concat_n8.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_concat_n1 --input=@%t/wg_concat_n1.input.npy --expected_output=@%t/wg_concat_n1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_concat_n1 --input=@%t/wg_concat_n1.input.npy --expected_output=@%t/wg_concat_n1.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_concat_n1 --input=@%t/wg_concat_n1.input.npy --expected_output=@%t/wg_concat_n1.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_concat_n1 --input=@%t/wg_concat_n1.input.npy --expected_output=@%t/wg_concat_n1.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_concat_n1 --input=@%t/wg_concat_n1.input.npy --expected_output=@%t/wg_concat_n1.expected.npy
// RUN: strata-run --module=%t/direct.vmfb --function=wg_concat_n1 --input=@%t/wg_concat_n1.input.npy --expected_output=@%t/wg_concat_n1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_concat_n2 --input=@%t/wg_concat_n2.input.npy --expected_output=@%t/wg_concat_n2.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_concat_n2 --input=@%t/wg_concat_n2.input.npy --expected_output=@%t/wg_concat_n2.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_concat_n2 --input=@%t/wg_concat_n2.input.npy --expected_output=@%t/wg_concat_n2.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_concat_n2 --input=@%t/wg_concat_n2.input.npy --expected_output=@%t/wg_concat_n2.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_concat_n2 --input=@%t/wg_concat_n2.input.npy --expected_output=@%t/wg_concat_n2.expected.npy
// RUN: strata-run --module=%t/direct.vmfb --function=wg_concat_n2 --input=@%t/wg_concat_n2.input.npy --expected_output=@%t/wg_concat_n2.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=wg_concat_rows --input=@%t/wg_concat_rows.input.npy --expected_output=@%t/wg_concat_rows.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=wg_concat_rows --input=@%t/wg_concat_rows.input.npy --expected_output=@%t/wg_concat_rows.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=wg_concat_rows --input=@%t/wg_concat_rows.input.npy --expected_output=@%t/wg_concat_rows.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=wg_concat_rows --input=@%t/wg_concat_rows.input.npy --expected_output=@%t/wg_concat_rows.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=wg_concat_rows --input=@%t/wg_concat_rows.input.npy --expected_output=@%t/wg_concat_rows.expected.npy
// RUN: strata-run --module=%t/direct.vmfb --function=wg_concat_rows --input=@%t/wg_concat_rows.input.npy --expected_output=@%t/wg_concat_rows.expected.npy
// REQUIRES: llvm-cpu
