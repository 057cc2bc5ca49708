// Depthwise NHWC convolutions run on their own microkernel (channels in
// vectors, the window's filter vectors in registers, several output pixels
// at a time; ukernel/DwconvDriver.h) on every x86-64 build: AVX-512
// (host), AVX2, and the baseline x86-64's SSE2 vectors (SgemmSse.c), each
// on both devices. Edge sizes: 19 channels (a vector and a scalar tail),
// 96 channels with stride 2, a 5x5 window with dilation 2 accumulating
// into a non-zero tensor, 8 channels (the AVX2 and SSE2 kernels; less
// than an AVX-512 vector stays on loops), padding on the bottom and right
// only, no padding, a 7x7 window wider than its image, one row; bias +
// clamp epilogues fused into the kernel, the zero padding done by the
// kernel (it reads the unpadded input). Every sum is exact in f32
// (Inputs/gen_depthwise.py), so all must give the expected values.
// RUN: rm -rf %t && python3 %S/Inputs/gen_depthwise.py %t
// RUN: strata-compile %t/program.mlir -o %t/host.vmfb
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64-v3 -o %t/avx2.vmfb
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64 -o %t/generic.vmfb
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=dw3x3_c19 --input=@%t/dw3x3_c19.input.npy --input=@%t/dw3x3_c19.weight.npy --expected_output=@%t/dw3x3_c19.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=dw3x3_c19 --input=@%t/dw3x3_c19.input.npy --input=@%t/dw3x3_c19.weight.npy --expected_output=@%t/dw3x3_c19.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=dw3x3_c19 --input=@%t/dw3x3_c19.input.npy --input=@%t/dw3x3_c19.weight.npy --expected_output=@%t/dw3x3_c19.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=dw3x3_c19 --input=@%t/dw3x3_c19.input.npy --input=@%t/dw3x3_c19.weight.npy --expected_output=@%t/dw3x3_c19.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=dw3x3_c19 --input=@%t/dw3x3_c19.input.npy --input=@%t/dw3x3_c19.weight.npy --expected_output=@%t/dw3x3_c19.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=dw3x3_c19 --input=@%t/dw3x3_c19.input.npy --input=@%t/dw3x3_c19.weight.npy --expected_output=@%t/dw3x3_c19.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=dw3x3_s2_c96 --input=@%t/dw3x3_s2_c96.input.npy --input=@%t/dw3x3_s2_c96.weight.npy --expected_output=@%t/dw3x3_s2_c96.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=dw3x3_s2_c96 --input=@%t/dw3x3_s2_c96.input.npy --input=@%t/dw3x3_s2_c96.weight.npy --expected_output=@%t/dw3x3_s2_c96.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=dw3x3_s2_c96 --input=@%t/dw3x3_s2_c96.input.npy --input=@%t/dw3x3_s2_c96.weight.npy --expected_output=@%t/dw3x3_s2_c96.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=dw3x3_s2_c96 --input=@%t/dw3x3_s2_c96.input.npy --input=@%t/dw3x3_s2_c96.weight.npy --expected_output=@%t/dw3x3_s2_c96.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=dw3x3_s2_c96 --input=@%t/dw3x3_s2_c96.input.npy --input=@%t/dw3x3_s2_c96.weight.npy --expected_output=@%t/dw3x3_s2_c96.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=dw3x3_s2_c96 --input=@%t/dw3x3_s2_c96.input.npy --input=@%t/dw3x3_s2_c96.weight.npy --expected_output=@%t/dw3x3_s2_c96.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=dw5x5_d2_c40 --input=@%t/dw5x5_d2_c40.input.npy --input=@%t/dw5x5_d2_c40.weight.npy --input=@%t/dw5x5_d2_c40.acc.npy --expected_output=@%t/dw5x5_d2_c40.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=dw5x5_d2_c40 --input=@%t/dw5x5_d2_c40.input.npy --input=@%t/dw5x5_d2_c40.weight.npy --input=@%t/dw5x5_d2_c40.acc.npy --expected_output=@%t/dw5x5_d2_c40.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=dw5x5_d2_c40 --input=@%t/dw5x5_d2_c40.input.npy --input=@%t/dw5x5_d2_c40.weight.npy --input=@%t/dw5x5_d2_c40.acc.npy --expected_output=@%t/dw5x5_d2_c40.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=dw5x5_d2_c40 --input=@%t/dw5x5_d2_c40.input.npy --input=@%t/dw5x5_d2_c40.weight.npy --input=@%t/dw5x5_d2_c40.acc.npy --expected_output=@%t/dw5x5_d2_c40.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=dw5x5_d2_c40 --input=@%t/dw5x5_d2_c40.input.npy --input=@%t/dw5x5_d2_c40.weight.npy --input=@%t/dw5x5_d2_c40.acc.npy --expected_output=@%t/dw5x5_d2_c40.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=dw5x5_d2_c40 --input=@%t/dw5x5_d2_c40.input.npy --input=@%t/dw5x5_d2_c40.weight.npy --input=@%t/dw5x5_d2_c40.acc.npy --expected_output=@%t/dw5x5_d2_c40.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=dw3x3_c8 --input=@%t/dw3x3_c8.input.npy --input=@%t/dw3x3_c8.weight.npy --expected_output=@%t/dw3x3_c8.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=dw3x3_c8 --input=@%t/dw3x3_c8.input.npy --input=@%t/dw3x3_c8.weight.npy --expected_output=@%t/dw3x3_c8.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=dw3x3_c8 --input=@%t/dw3x3_c8.input.npy --input=@%t/dw3x3_c8.weight.npy --expected_output=@%t/dw3x3_c8.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=dw3x3_c8 --input=@%t/dw3x3_c8.input.npy --input=@%t/dw3x3_c8.weight.npy --expected_output=@%t/dw3x3_c8.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=dw3x3_c8 --input=@%t/dw3x3_c8.input.npy --input=@%t/dw3x3_c8.weight.npy --expected_output=@%t/dw3x3_c8.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=dw3x3_c8 --input=@%t/dw3x3_c8.input.npy --input=@%t/dw3x3_c8.weight.npy --expected_output=@%t/dw3x3_c8.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=dw3x3_s2_same_c32 --input=@%t/dw3x3_s2_same_c32.input.npy --input=@%t/dw3x3_s2_same_c32.weight.npy --expected_output=@%t/dw3x3_s2_same_c32.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=dw3x3_s2_same_c32 --input=@%t/dw3x3_s2_same_c32.input.npy --input=@%t/dw3x3_s2_same_c32.weight.npy --expected_output=@%t/dw3x3_s2_same_c32.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=dw3x3_s2_same_c32 --input=@%t/dw3x3_s2_same_c32.input.npy --input=@%t/dw3x3_s2_same_c32.weight.npy --expected_output=@%t/dw3x3_s2_same_c32.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=dw3x3_s2_same_c32 --input=@%t/dw3x3_s2_same_c32.input.npy --input=@%t/dw3x3_s2_same_c32.weight.npy --expected_output=@%t/dw3x3_s2_same_c32.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=dw3x3_s2_same_c32 --input=@%t/dw3x3_s2_same_c32.input.npy --input=@%t/dw3x3_s2_same_c32.weight.npy --expected_output=@%t/dw3x3_s2_same_c32.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=dw3x3_s2_same_c32 --input=@%t/dw3x3_s2_same_c32.input.npy --input=@%t/dw3x3_s2_same_c32.weight.npy --expected_output=@%t/dw3x3_s2_same_c32.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=dw3x3_valid_c48 --input=@%t/dw3x3_valid_c48.input.npy --input=@%t/dw3x3_valid_c48.weight.npy --expected_output=@%t/dw3x3_valid_c48.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=dw3x3_valid_c48 --input=@%t/dw3x3_valid_c48.input.npy --input=@%t/dw3x3_valid_c48.weight.npy --expected_output=@%t/dw3x3_valid_c48.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=dw3x3_valid_c48 --input=@%t/dw3x3_valid_c48.input.npy --input=@%t/dw3x3_valid_c48.weight.npy --expected_output=@%t/dw3x3_valid_c48.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=dw3x3_valid_c48 --input=@%t/dw3x3_valid_c48.input.npy --input=@%t/dw3x3_valid_c48.weight.npy --expected_output=@%t/dw3x3_valid_c48.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=dw3x3_valid_c48 --input=@%t/dw3x3_valid_c48.input.npy --input=@%t/dw3x3_valid_c48.weight.npy --expected_output=@%t/dw3x3_valid_c48.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=dw3x3_valid_c48 --input=@%t/dw3x3_valid_c48.input.npy --input=@%t/dw3x3_valid_c48.weight.npy --expected_output=@%t/dw3x3_valid_c48.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=dw7x7_c16 --input=@%t/dw7x7_c16.input.npy --input=@%t/dw7x7_c16.weight.npy --input=@%t/dw7x7_c16.acc.npy --expected_output=@%t/dw7x7_c16.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=dw7x7_c16 --input=@%t/dw7x7_c16.input.npy --input=@%t/dw7x7_c16.weight.npy --input=@%t/dw7x7_c16.acc.npy --expected_output=@%t/dw7x7_c16.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=dw7x7_c16 --input=@%t/dw7x7_c16.input.npy --input=@%t/dw7x7_c16.weight.npy --input=@%t/dw7x7_c16.acc.npy --expected_output=@%t/dw7x7_c16.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=dw7x7_c16 --input=@%t/dw7x7_c16.input.npy --input=@%t/dw7x7_c16.weight.npy --input=@%t/dw7x7_c16.acc.npy --expected_output=@%t/dw7x7_c16.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=dw7x7_c16 --input=@%t/dw7x7_c16.input.npy --input=@%t/dw7x7_c16.weight.npy --input=@%t/dw7x7_c16.acc.npy --expected_output=@%t/dw7x7_c16.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=dw7x7_c16 --input=@%t/dw7x7_c16.input.npy --input=@%t/dw7x7_c16.weight.npy --input=@%t/dw7x7_c16.acc.npy --expected_output=@%t/dw7x7_c16.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=dw3x3_row_c17 --input=@%t/dw3x3_row_c17.input.npy --input=@%t/dw3x3_row_c17.weight.npy --expected_output=@%t/dw3x3_row_c17.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=dw3x3_row_c17 --input=@%t/dw3x3_row_c17.input.npy --input=@%t/dw3x3_row_c17.weight.npy --expected_output=@%t/dw3x3_row_c17.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=dw3x3_row_c17 --input=@%t/dw3x3_row_c17.input.npy --input=@%t/dw3x3_row_c17.weight.npy --expected_output=@%t/dw3x3_row_c17.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=dw3x3_row_c17 --input=@%t/dw3x3_row_c17.input.npy --input=@%t/dw3x3_row_c17.weight.npy --expected_output=@%t/dw3x3_row_c17.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=dw3x3_row_c17 --input=@%t/dw3x3_row_c17.input.npy --input=@%t/dw3x3_row_c17.weight.npy --expected_output=@%t/dw3x3_row_c17.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=dw3x3_row_c17 --input=@%t/dw3x3_row_c17.input.npy --input=@%t/dw3x3_row_c17.weight.npy --expected_output=@%t/dw3x3_row_c17.expected.npy
