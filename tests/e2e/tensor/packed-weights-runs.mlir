// The packed-weights cases (their flow form: packed-weights.mlir) run on
// every ISA row (AVX-512, AVX2, baseline x86-64; NEON in the aarch64 suite)
// and both devices: matmuls and convolutions whose constant weights the
// flow phase stores in the microkernel's panel layout, which the
// microkernel reads in place. Edge sizes: 1, 5 and 131 rows (131 rows of
// 1024 floats too, which the driver packs: partial row panels of packed
// A), primes for depth and image sizes, 1x1, 3x3 (padded; on a 7x7 image)
// and 7x7 stride-2 convolutions, bias + relu epilogues, 97 and 100 columns
// (a last panel padded with zero columns), output rows 28 and 55 wide,
// which the microkernel reads in place from the padded input, and rows of
// 14 and 13 read in place at depths 1179 and 2367 (more than one depth
// block of the AVX-512 VNNI row's conv_kc, 1152), rows of 7 and 3 read two
// to a tile (half of AVX-512's and of AVX2's tile), and two convolutions
// whose bias, ReLU and global average pool are computed in their dispatch
// (--fuse-into-pool; a partial column tile of 140 of 300 filters at batch
// 3), and resnet18's tail at batch 3 (a 3x3 convolution with its bias,
// residual and ReLU pooled in one dispatch, the classifier's matmul in
// another). Every case also runs with the weight passed as an argument
// (unpacked); both must give the expected values of
// Inputs/gen_packed_weights.py: every sum is exact in f32, so all but the
// global pools' averages, which round once, are exact. The Winograd cases
// (wg_*) run in winograd.mlir.
// RUN: rm -rf %t && python3 %S/Inputs/gen_packed_weights.py %t mm_rows131 mm_rows1 mm_rows5 mm_packed_a conv3x3_pad conv7x7_s2 conv1x1 conv3x3_7x7 mm_n97 conv1x1_f100 conv1x1_f24 conv1x1_f20 conv3x3_w28 conv3x3_s2_w55 conv3x3_k1179 conv3x3_k2367 conv3x3_w7_pairs conv3x3_w3_pairs conv3x3_f48 gp1x1_f300_n3 gp3x3_f37 classifier_n3
// RUN: strata-compile %t/program.mlir -o %t/host.vmfb 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// Every packed weight is read by the microkernel in place (a weight left to
// an op on loops would be unpacked by every workgroup, with a warning).
// QUIET-NOT: warning
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64-v3 -o %t/avx2.vmfb 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64 -o %t/generic.vmfb 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=mm_rows131_arg --input=@%t/mm_rows131.input.npy --input=@%t/mm_rows131.weight.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=mm_rows1_arg --input=@%t/mm_rows1.input.npy --input=@%t/mm_rows1.weight.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=mm_rows5_arg --input=@%t/mm_rows5.input.npy --input=@%t/mm_rows5.weight.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=mm_packed_a --input=@%t/mm_packed_a.input.npy --expected_output=@%t/mm_packed_a.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=mm_packed_a --input=@%t/mm_packed_a.input.npy --expected_output=@%t/mm_packed_a.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=mm_packed_a --input=@%t/mm_packed_a.input.npy --expected_output=@%t/mm_packed_a.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=mm_packed_a --input=@%t/mm_packed_a.input.npy --expected_output=@%t/mm_packed_a.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=mm_packed_a --input=@%t/mm_packed_a.input.npy --expected_output=@%t/mm_packed_a.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=mm_packed_a --input=@%t/mm_packed_a.input.npy --expected_output=@%t/mm_packed_a.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=mm_packed_a_arg --input=@%t/mm_packed_a.input.npy --input=@%t/mm_packed_a.weight.npy --expected_output=@%t/mm_packed_a.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv3x3_pad_arg --input=@%t/conv3x3_pad.input.npy --input=@%t/conv3x3_pad.weight.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv7x7_s2_arg --input=@%t/conv7x7_s2.input.npy --input=@%t/conv7x7_s2.weight.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv1x1_arg --input=@%t/conv1x1.input.npy --input=@%t/conv1x1.weight.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv3x3_7x7_arg --input=@%t/conv3x3_7x7.input.npy --input=@%t/conv3x3_7x7.weight.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=mm_n97_arg --input=@%t/mm_n97.input.npy --input=@%t/mm_n97.weight.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv1x1_f100_arg --input=@%t/conv1x1_f100.input.npy --input=@%t/conv1x1_f100.weight.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv1x1_f24 --input=@%t/conv1x1_f24.input.npy --expected_output=@%t/conv1x1_f24.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv1x1_f24 --input=@%t/conv1x1_f24.input.npy --expected_output=@%t/conv1x1_f24.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv1x1_f24 --input=@%t/conv1x1_f24.input.npy --expected_output=@%t/conv1x1_f24.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=conv1x1_f24 --input=@%t/conv1x1_f24.input.npy --expected_output=@%t/conv1x1_f24.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv1x1_f24 --input=@%t/conv1x1_f24.input.npy --expected_output=@%t/conv1x1_f24.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=conv1x1_f24 --input=@%t/conv1x1_f24.input.npy --expected_output=@%t/conv1x1_f24.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv1x1_f24_arg --input=@%t/conv1x1_f24.input.npy --input=@%t/conv1x1_f24.weight.npy --expected_output=@%t/conv1x1_f24.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv1x1_f20 --input=@%t/conv1x1_f20.input.npy --expected_output=@%t/conv1x1_f20.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv1x1_f20 --input=@%t/conv1x1_f20.input.npy --expected_output=@%t/conv1x1_f20.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv1x1_f20 --input=@%t/conv1x1_f20.input.npy --expected_output=@%t/conv1x1_f20.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=conv1x1_f20 --input=@%t/conv1x1_f20.input.npy --expected_output=@%t/conv1x1_f20.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv1x1_f20 --input=@%t/conv1x1_f20.input.npy --expected_output=@%t/conv1x1_f20.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=conv1x1_f20 --input=@%t/conv1x1_f20.input.npy --expected_output=@%t/conv1x1_f20.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv1x1_f20_arg --input=@%t/conv1x1_f20.input.npy --input=@%t/conv1x1_f20.weight.npy --expected_output=@%t/conv1x1_f20.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv3x3_w28_arg --input=@%t/conv3x3_w28.input.npy --input=@%t/conv3x3_w28.weight.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv3x3_s2_w55_arg --input=@%t/conv3x3_s2_w55.input.npy --input=@%t/conv3x3_s2_w55.weight.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_k1179 --input=@%t/conv3x3_k1179.input.npy --expected_output=@%t/conv3x3_k1179.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_k1179 --input=@%t/conv3x3_k1179.input.npy --expected_output=@%t/conv3x3_k1179.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_k1179 --input=@%t/conv3x3_k1179.input.npy --expected_output=@%t/conv3x3_k1179.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=conv3x3_k1179 --input=@%t/conv3x3_k1179.input.npy --expected_output=@%t/conv3x3_k1179.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_k1179 --input=@%t/conv3x3_k1179.input.npy --expected_output=@%t/conv3x3_k1179.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=conv3x3_k1179 --input=@%t/conv3x3_k1179.input.npy --expected_output=@%t/conv3x3_k1179.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv3x3_k1179_arg --input=@%t/conv3x3_k1179.input.npy --input=@%t/conv3x3_k1179.weight.npy --expected_output=@%t/conv3x3_k1179.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_k2367 --input=@%t/conv3x3_k2367.input.npy --expected_output=@%t/conv3x3_k2367.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_k2367 --input=@%t/conv3x3_k2367.input.npy --expected_output=@%t/conv3x3_k2367.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_k2367 --input=@%t/conv3x3_k2367.input.npy --expected_output=@%t/conv3x3_k2367.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=conv3x3_k2367 --input=@%t/conv3x3_k2367.input.npy --expected_output=@%t/conv3x3_k2367.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_k2367 --input=@%t/conv3x3_k2367.input.npy --expected_output=@%t/conv3x3_k2367.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=conv3x3_k2367 --input=@%t/conv3x3_k2367.input.npy --expected_output=@%t/conv3x3_k2367.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv3x3_k2367_arg --input=@%t/conv3x3_k2367.input.npy --input=@%t/conv3x3_k2367.weight.npy --expected_output=@%t/conv3x3_k2367.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_w7_pairs --input=@%t/conv3x3_w7_pairs.input.npy --expected_output=@%t/conv3x3_w7_pairs.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_w7_pairs --input=@%t/conv3x3_w7_pairs.input.npy --expected_output=@%t/conv3x3_w7_pairs.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_w7_pairs --input=@%t/conv3x3_w7_pairs.input.npy --expected_output=@%t/conv3x3_w7_pairs.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=conv3x3_w7_pairs --input=@%t/conv3x3_w7_pairs.input.npy --expected_output=@%t/conv3x3_w7_pairs.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_w7_pairs --input=@%t/conv3x3_w7_pairs.input.npy --expected_output=@%t/conv3x3_w7_pairs.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=conv3x3_w7_pairs --input=@%t/conv3x3_w7_pairs.input.npy --expected_output=@%t/conv3x3_w7_pairs.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv3x3_w7_pairs_arg --input=@%t/conv3x3_w7_pairs.input.npy --input=@%t/conv3x3_w7_pairs.weight.npy --expected_output=@%t/conv3x3_w7_pairs.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_w3_pairs --input=@%t/conv3x3_w3_pairs.input.npy --expected_output=@%t/conv3x3_w3_pairs.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_w3_pairs --input=@%t/conv3x3_w3_pairs.input.npy --expected_output=@%t/conv3x3_w3_pairs.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_w3_pairs --input=@%t/conv3x3_w3_pairs.input.npy --expected_output=@%t/conv3x3_w3_pairs.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=conv3x3_w3_pairs --input=@%t/conv3x3_w3_pairs.input.npy --expected_output=@%t/conv3x3_w3_pairs.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_w3_pairs --input=@%t/conv3x3_w3_pairs.input.npy --expected_output=@%t/conv3x3_w3_pairs.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=conv3x3_w3_pairs --input=@%t/conv3x3_w3_pairs.input.npy --expected_output=@%t/conv3x3_w3_pairs.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv3x3_w3_pairs_arg --input=@%t/conv3x3_w3_pairs.input.npy --input=@%t/conv3x3_w3_pairs.weight.npy --expected_output=@%t/conv3x3_w3_pairs.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_f48 --input=@%t/conv3x3_f48.input.npy --expected_output=@%t/conv3x3_f48.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_f48 --input=@%t/conv3x3_f48.input.npy --expected_output=@%t/conv3x3_f48.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_f48 --input=@%t/conv3x3_f48.input.npy --expected_output=@%t/conv3x3_f48.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=conv3x3_f48 --input=@%t/conv3x3_f48.input.npy --expected_output=@%t/conv3x3_f48.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_f48 --input=@%t/conv3x3_f48.input.npy --expected_output=@%t/conv3x3_f48.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=conv3x3_f48 --input=@%t/conv3x3_f48.input.npy --expected_output=@%t/conv3x3_f48.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=conv3x3_f48_arg --input=@%t/conv3x3_f48.input.npy --input=@%t/conv3x3_f48.weight.npy --expected_output=@%t/conv3x3_f48.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=gp1x1_f300_n3 --input=@%t/gp1x1_f300_n3.input.npy --expected_output=@%t/gp1x1_f300_n3.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=gp1x1_f300_n3 --input=@%t/gp1x1_f300_n3.input.npy --expected_output=@%t/gp1x1_f300_n3.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=gp1x1_f300_n3 --input=@%t/gp1x1_f300_n3.input.npy --expected_output=@%t/gp1x1_f300_n3.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=gp1x1_f300_n3 --input=@%t/gp1x1_f300_n3.input.npy --expected_output=@%t/gp1x1_f300_n3.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=gp1x1_f300_n3 --input=@%t/gp1x1_f300_n3.input.npy --expected_output=@%t/gp1x1_f300_n3.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=gp1x1_f300_n3 --input=@%t/gp1x1_f300_n3.input.npy --expected_output=@%t/gp1x1_f300_n3.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=gp1x1_f300_n3_arg --input=@%t/gp1x1_f300_n3.input.npy --input=@%t/gp1x1_f300_n3.weight.npy --expected_output=@%t/gp1x1_f300_n3.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=gp3x3_f37 --input=@%t/gp3x3_f37.input.npy --expected_output=@%t/gp3x3_f37.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=gp3x3_f37 --input=@%t/gp3x3_f37.input.npy --expected_output=@%t/gp3x3_f37.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=gp3x3_f37 --input=@%t/gp3x3_f37.input.npy --expected_output=@%t/gp3x3_f37.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=gp3x3_f37 --input=@%t/gp3x3_f37.input.npy --expected_output=@%t/gp3x3_f37.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=gp3x3_f37 --input=@%t/gp3x3_f37.input.npy --expected_output=@%t/gp3x3_f37.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=gp3x3_f37 --input=@%t/gp3x3_f37.input.npy --expected_output=@%t/gp3x3_f37.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=gp3x3_f37_arg --input=@%t/gp3x3_f37.input.npy --input=@%t/gp3x3_f37.weight.npy --expected_output=@%t/gp3x3_f37.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=classifier_n3 --input=@%t/classifier_n3.input.npy --expected_output=@%t/classifier_n3.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=classifier_n3 --input=@%t/classifier_n3.input.npy --expected_output=@%t/classifier_n3.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=classifier_n3 --input=@%t/classifier_n3.input.npy --expected_output=@%t/classifier_n3.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=classifier_n3 --input=@%t/classifier_n3.input.npy --expected_output=@%t/classifier_n3.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=classifier_n3 --input=@%t/classifier_n3.input.npy --expected_output=@%t/classifier_n3.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=classifier_n3 --input=@%t/classifier_n3.input.npy --expected_output=@%t/classifier_n3.expected.npy
// RUN: strata-run --module=%t/host.vmfb --function=classifier_n3_arg --input=@%t/classifier_n3.input.npy --input=@%t/classifier_n3.weight.npy --expected_output=@%t/classifier_n3.expected.npy
// REQUIRES: llvm-cpu
