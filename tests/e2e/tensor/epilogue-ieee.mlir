// Bias + clamp epilogues fused into the microkernels' stores (the matmul
// kernel on a 1x1 convolution, the depthwise kernel on a padded 3x3) follow
// IEEE maximum/minimum: a NaN input pixel stays NaN through relu, relu6
// and clip, and clip(x, -1, -0) of a zero sum is -0 (the kernels use the
// ISA's max/min with a fix-up rather than the general expansion;
// ukernel/SgemmEpilogue.h). Each function also returns its result's bits,
// so zero signs are checked exactly, on AVX-512 (host), AVX2 and generic
// builds (Inputs/gen_epilogue_ieee.py). A bias and a residual are added in
// the fused op's order, bit for bit: conv*_residual_bias and
// conv*_bias_residual (a 1x1 and a padded 3x3 convolution) have sums that
// round differently in the two orders (one element in 16), so a kernel
// adding them in the other order fails the bits.
// RUN: rm -rf %t && python3 %S/Inputs/gen_epilogue_ieee.py %t
// RUN: strata-compile %t/program.mlir -o %t/host.vmfb
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64-v3 -o %t/avx2.vmfb
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64 -o %t/generic.vmfb
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv_relu --input=@%t/conv_relu.input.npy --expected_output=@%t/conv_relu.expected.npy --expected_output=@%t/conv_relu.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv_relu --input=@%t/conv_relu.input.npy --expected_output=@%t/conv_relu.expected.npy --expected_output=@%t/conv_relu.bits.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv_relu --input=@%t/conv_relu.input.npy --expected_output=@%t/conv_relu.expected.npy --expected_output=@%t/conv_relu.bits.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv_relu --input=@%t/conv_relu.input.npy --expected_output=@%t/conv_relu.expected.npy --expected_output=@%t/conv_relu.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv_clip_neg_zero --input=@%t/conv_clip_neg_zero.input.npy --expected_output=@%t/conv_clip_neg_zero.expected.npy --expected_output=@%t/conv_clip_neg_zero.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv_clip_neg_zero --input=@%t/conv_clip_neg_zero.input.npy --expected_output=@%t/conv_clip_neg_zero.expected.npy --expected_output=@%t/conv_clip_neg_zero.bits.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv_clip_neg_zero --input=@%t/conv_clip_neg_zero.input.npy --expected_output=@%t/conv_clip_neg_zero.expected.npy --expected_output=@%t/conv_clip_neg_zero.bits.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv_clip_neg_zero --input=@%t/conv_clip_neg_zero.input.npy --expected_output=@%t/conv_clip_neg_zero.expected.npy --expected_output=@%t/conv_clip_neg_zero.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv_relu6 --input=@%t/conv_relu6.input.npy --expected_output=@%t/conv_relu6.expected.npy --expected_output=@%t/conv_relu6.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv_relu6 --input=@%t/conv_relu6.input.npy --expected_output=@%t/conv_relu6.expected.npy --expected_output=@%t/conv_relu6.bits.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv_relu6 --input=@%t/conv_relu6.input.npy --expected_output=@%t/conv_relu6.expected.npy --expected_output=@%t/conv_relu6.bits.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv_relu6 --input=@%t/conv_relu6.input.npy --expected_output=@%t/conv_relu6.expected.npy --expected_output=@%t/conv_relu6.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv_residual_bias --input=@%t/conv_residual_bias.input.npy --input=@%t/conv_residual_bias.input1.npy --expected_output=@%t/conv_residual_bias.expected.npy --expected_output=@%t/conv_residual_bias.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv_residual_bias --input=@%t/conv_residual_bias.input.npy --input=@%t/conv_residual_bias.input1.npy --expected_output=@%t/conv_residual_bias.expected.npy --expected_output=@%t/conv_residual_bias.bits.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv_residual_bias --input=@%t/conv_residual_bias.input.npy --input=@%t/conv_residual_bias.input1.npy --expected_output=@%t/conv_residual_bias.expected.npy --expected_output=@%t/conv_residual_bias.bits.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv_residual_bias --input=@%t/conv_residual_bias.input.npy --input=@%t/conv_residual_bias.input1.npy --expected_output=@%t/conv_residual_bias.expected.npy --expected_output=@%t/conv_residual_bias.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv_bias_residual --input=@%t/conv_bias_residual.input.npy --input=@%t/conv_bias_residual.input1.npy --expected_output=@%t/conv_bias_residual.expected.npy --expected_output=@%t/conv_bias_residual.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv_bias_residual --input=@%t/conv_bias_residual.input.npy --input=@%t/conv_bias_residual.input1.npy --expected_output=@%t/conv_bias_residual.expected.npy --expected_output=@%t/conv_bias_residual.bits.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv_bias_residual --input=@%t/conv_bias_residual.input.npy --input=@%t/conv_bias_residual.input1.npy --expected_output=@%t/conv_bias_residual.expected.npy --expected_output=@%t/conv_bias_residual.bits.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv_bias_residual --input=@%t/conv_bias_residual.input.npy --input=@%t/conv_bias_residual.input1.npy --expected_output=@%t/conv_bias_residual.expected.npy --expected_output=@%t/conv_bias_residual.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_residual_bias --input=@%t/conv3x3_residual_bias.input.npy --input=@%t/conv3x3_residual_bias.input1.npy --expected_output=@%t/conv3x3_residual_bias.expected.npy --expected_output=@%t/conv3x3_residual_bias.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_residual_bias --input=@%t/conv3x3_residual_bias.input.npy --input=@%t/conv3x3_residual_bias.input1.npy --expected_output=@%t/conv3x3_residual_bias.expected.npy --expected_output=@%t/conv3x3_residual_bias.bits.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_residual_bias --input=@%t/conv3x3_residual_bias.input.npy --input=@%t/conv3x3_residual_bias.input1.npy --expected_output=@%t/conv3x3_residual_bias.expected.npy --expected_output=@%t/conv3x3_residual_bias.bits.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_residual_bias --input=@%t/conv3x3_residual_bias.input.npy --input=@%t/conv3x3_residual_bias.input1.npy --expected_output=@%t/conv3x3_residual_bias.expected.npy --expected_output=@%t/conv3x3_residual_bias.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=conv3x3_bias_residual --input=@%t/conv3x3_bias_residual.input.npy --input=@%t/conv3x3_bias_residual.input1.npy --expected_output=@%t/conv3x3_bias_residual.expected.npy --expected_output=@%t/conv3x3_bias_residual.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=conv3x3_bias_residual --input=@%t/conv3x3_bias_residual.input.npy --input=@%t/conv3x3_bias_residual.input1.npy --expected_output=@%t/conv3x3_bias_residual.expected.npy --expected_output=@%t/conv3x3_bias_residual.bits.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=conv3x3_bias_residual --input=@%t/conv3x3_bias_residual.input.npy --input=@%t/conv3x3_bias_residual.input1.npy --expected_output=@%t/conv3x3_bias_residual.expected.npy --expected_output=@%t/conv3x3_bias_residual.bits.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=conv3x3_bias_residual --input=@%t/conv3x3_bias_residual.input.npy --input=@%t/conv3x3_bias_residual.input1.npy --expected_output=@%t/conv3x3_bias_residual.expected.npy --expected_output=@%t/conv3x3_bias_residual.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=dw_relu6 --input=@%t/dw_relu6.input.npy --expected_output=@%t/dw_relu6.expected.npy --expected_output=@%t/dw_relu6.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=dw_relu6 --input=@%t/dw_relu6.input.npy --expected_output=@%t/dw_relu6.expected.npy --expected_output=@%t/dw_relu6.bits.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=dw_relu6 --input=@%t/dw_relu6.input.npy --expected_output=@%t/dw_relu6.expected.npy --expected_output=@%t/dw_relu6.bits.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=dw_relu6 --input=@%t/dw_relu6.input.npy --expected_output=@%t/dw_relu6.expected.npy --expected_output=@%t/dw_relu6.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=dw_clip_neg_zero --input=@%t/dw_clip_neg_zero.input.npy --expected_output=@%t/dw_clip_neg_zero.expected.npy --expected_output=@%t/dw_clip_neg_zero.bits.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=dw_clip_neg_zero --input=@%t/dw_clip_neg_zero.input.npy --expected_output=@%t/dw_clip_neg_zero.expected.npy --expected_output=@%t/dw_clip_neg_zero.bits.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=dw_clip_neg_zero --input=@%t/dw_clip_neg_zero.input.npy --expected_output=@%t/dw_clip_neg_zero.expected.npy --expected_output=@%t/dw_clip_neg_zero.bits.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=dw_clip_neg_zero --input=@%t/dw_clip_neg_zero.input.npy --expected_output=@%t/dw_clip_neg_zero.expected.npy --expected_output=@%t/dw_clip_neg_zero.bits.npy
