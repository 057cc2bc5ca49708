// Max and sum poolings (NHWC) run on the depthwise microkernel
// (ukernel/DwconvDriver.h: the window's maximum or sum per channel vector,
// padding skipped rather than copied) on every x86-64 build: AVX-512
// (host), AVX2, and the baseline x86-64's SSE2 vectors (SgemmSse.c
// includes the same driver), each on both devices. Max inputs hold NaNs
// and windows whose maximum is a zero of either sign; results come back
// as bits (NaNs as one pattern), so IEEE maximum's NaN propagation and +0
// over -0 are checked exactly. Channel counts with a scalar tail, padding
// on some sides or none, strides 1 and 2 (Inputs/gen_pooling.py).
// RUN: rm -rf %t && python3 %S/Inputs/gen_pooling.py %t
// RUN: strata-compile %t/program.mlir -o %t/host.vmfb
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64-v3 -o %t/avx2.vmfb
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64 -o %t/generic.vmfb
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=max3x3_s2_c19 --input=@%t/max3x3_s2_c19.input.npy --expected_output=@%t/max3x3_s2_c19.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=max3x3_s2_c19 --input=@%t/max3x3_s2_c19.input.npy --expected_output=@%t/max3x3_s2_c19.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=max3x3_s2_c19 --input=@%t/max3x3_s2_c19.input.npy --expected_output=@%t/max3x3_s2_c19.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=max3x3_s2_c19 --input=@%t/max3x3_s2_c19.input.npy --expected_output=@%t/max3x3_s2_c19.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=max3x3_s2_c19 --input=@%t/max3x3_s2_c19.input.npy --expected_output=@%t/max3x3_s2_c19.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=max3x3_s2_c19 --input=@%t/max3x3_s2_c19.input.npy --expected_output=@%t/max3x3_s2_c19.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=max3x3_s2_c64 --input=@%t/max3x3_s2_c64.input.npy --expected_output=@%t/max3x3_s2_c64.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=max3x3_s2_c64 --input=@%t/max3x3_s2_c64.input.npy --expected_output=@%t/max3x3_s2_c64.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=max3x3_s2_c64 --input=@%t/max3x3_s2_c64.input.npy --expected_output=@%t/max3x3_s2_c64.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=max3x3_s2_c64 --input=@%t/max3x3_s2_c64.input.npy --expected_output=@%t/max3x3_s2_c64.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=max3x3_s2_c64 --input=@%t/max3x3_s2_c64.input.npy --expected_output=@%t/max3x3_s2_c64.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=max3x3_s2_c64 --input=@%t/max3x3_s2_c64.input.npy --expected_output=@%t/max3x3_s2_c64.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=max3x3_s2_c48_nonan --input=@%t/max3x3_s2_c48_nonan.input.npy --expected_output=@%t/max3x3_s2_c48_nonan.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=max3x3_s2_c48_nonan --input=@%t/max3x3_s2_c48_nonan.input.npy --expected_output=@%t/max3x3_s2_c48_nonan.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=max3x3_s2_c48_nonan --input=@%t/max3x3_s2_c48_nonan.input.npy --expected_output=@%t/max3x3_s2_c48_nonan.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=max3x3_s2_c48_nonan --input=@%t/max3x3_s2_c48_nonan.input.npy --expected_output=@%t/max3x3_s2_c48_nonan.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=max3x3_s2_c48_nonan --input=@%t/max3x3_s2_c48_nonan.input.npy --expected_output=@%t/max3x3_s2_c48_nonan.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=max3x3_s2_c48_nonan --input=@%t/max3x3_s2_c48_nonan.input.npy --expected_output=@%t/max3x3_s2_c48_nonan.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=max3x3_s2_c40_nan_inside --input=@%t/max3x3_s2_c40_nan_inside.input.npy --expected_output=@%t/max3x3_s2_c40_nan_inside.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=max3x3_s2_c40_nan_inside --input=@%t/max3x3_s2_c40_nan_inside.input.npy --expected_output=@%t/max3x3_s2_c40_nan_inside.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=max3x3_s2_c40_nan_inside --input=@%t/max3x3_s2_c40_nan_inside.input.npy --expected_output=@%t/max3x3_s2_c40_nan_inside.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=max3x3_s2_c40_nan_inside --input=@%t/max3x3_s2_c40_nan_inside.input.npy --expected_output=@%t/max3x3_s2_c40_nan_inside.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=max3x3_s2_c40_nan_inside --input=@%t/max3x3_s2_c40_nan_inside.input.npy --expected_output=@%t/max3x3_s2_c40_nan_inside.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=max3x3_s2_c40_nan_inside --input=@%t/max3x3_s2_c40_nan_inside.input.npy --expected_output=@%t/max3x3_s2_c40_nan_inside.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=max3x3_s2_c40_nan_border --input=@%t/max3x3_s2_c40_nan_border.input.npy --expected_output=@%t/max3x3_s2_c40_nan_border.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=max3x3_s2_c40_nan_border --input=@%t/max3x3_s2_c40_nan_border.input.npy --expected_output=@%t/max3x3_s2_c40_nan_border.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=max3x3_s2_c40_nan_border --input=@%t/max3x3_s2_c40_nan_border.input.npy --expected_output=@%t/max3x3_s2_c40_nan_border.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=max3x3_s2_c40_nan_border --input=@%t/max3x3_s2_c40_nan_border.input.npy --expected_output=@%t/max3x3_s2_c40_nan_border.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=max3x3_s2_c40_nan_border --input=@%t/max3x3_s2_c40_nan_border.input.npy --expected_output=@%t/max3x3_s2_c40_nan_border.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=max3x3_s2_c40_nan_border --input=@%t/max3x3_s2_c40_nan_border.input.npy --expected_output=@%t/max3x3_s2_c40_nan_border.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=max2x2_s2_c32 --input=@%t/max2x2_s2_c32.input.npy --expected_output=@%t/max2x2_s2_c32.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=max2x2_s2_c32 --input=@%t/max2x2_s2_c32.input.npy --expected_output=@%t/max2x2_s2_c32.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=max2x2_s2_c32 --input=@%t/max2x2_s2_c32.input.npy --expected_output=@%t/max2x2_s2_c32.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=max2x2_s2_c32 --input=@%t/max2x2_s2_c32.input.npy --expected_output=@%t/max2x2_s2_c32.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=max2x2_s2_c32 --input=@%t/max2x2_s2_c32.input.npy --expected_output=@%t/max2x2_s2_c32.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=max2x2_s2_c32 --input=@%t/max2x2_s2_c32.input.npy --expected_output=@%t/max2x2_s2_c32.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=max3x3_s1_c24 --input=@%t/max3x3_s1_c24.input.npy --expected_output=@%t/max3x3_s1_c24.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=max3x3_s1_c24 --input=@%t/max3x3_s1_c24.input.npy --expected_output=@%t/max3x3_s1_c24.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=max3x3_s1_c24 --input=@%t/max3x3_s1_c24.input.npy --expected_output=@%t/max3x3_s1_c24.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=max3x3_s1_c24 --input=@%t/max3x3_s1_c24.input.npy --expected_output=@%t/max3x3_s1_c24.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=max3x3_s1_c24 --input=@%t/max3x3_s1_c24.input.npy --expected_output=@%t/max3x3_s1_c24.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=max3x3_s1_c24 --input=@%t/max3x3_s1_c24.input.npy --expected_output=@%t/max3x3_s1_c24.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=sum3x3_s1_c24 --input=@%t/sum3x3_s1_c24.input.npy --expected_output=@%t/sum3x3_s1_c24.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=sum3x3_s1_c24 --input=@%t/sum3x3_s1_c24.input.npy --expected_output=@%t/sum3x3_s1_c24.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=sum3x3_s1_c24 --input=@%t/sum3x3_s1_c24.input.npy --expected_output=@%t/sum3x3_s1_c24.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=sum3x3_s1_c24 --input=@%t/sum3x3_s1_c24.input.npy --expected_output=@%t/sum3x3_s1_c24.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=sum3x3_s1_c24 --input=@%t/sum3x3_s1_c24.input.npy --expected_output=@%t/sum3x3_s1_c24.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=sum3x3_s1_c24 --input=@%t/sum3x3_s1_c24.input.npy --expected_output=@%t/sum3x3_s1_c24.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=sum3x3_s2_c17 --input=@%t/sum3x3_s2_c17.input.npy --expected_output=@%t/sum3x3_s2_c17.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=sum3x3_s2_c17 --input=@%t/sum3x3_s2_c17.input.npy --expected_output=@%t/sum3x3_s2_c17.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=sum3x3_s2_c17 --input=@%t/sum3x3_s2_c17.input.npy --expected_output=@%t/sum3x3_s2_c17.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=sum3x3_s2_c17 --input=@%t/sum3x3_s2_c17.input.npy --expected_output=@%t/sum3x3_s2_c17.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=sum3x3_s2_c17 --input=@%t/sum3x3_s2_c17.input.npy --expected_output=@%t/sum3x3_s2_c17.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=sum3x3_s2_c17 --input=@%t/sum3x3_s2_c17.input.npy --expected_output=@%t/sum3x3_s2_c17.expected.npy
