// A matmul with a constant weight and a bias, read only through disjoint
// slices of its columns (an attention's query, key and value projection):
// --strata-split-sliced-results computes one matmul per slice on the
// matching columns of the weight, so no slice is copied, and here the
// three products and the op combining them (q + 2k + 3v) are one dispatch.
// Edge cases (Inputs/gen_split_slices.py): 37 rows of depth 131 into
// slices of 97 columns, one row, the encoder's 3-D form (the product
// expanded to rows x 1 x columns before its bias), slices that leave
// columns out. Every sum is exact in f32: the results must be the
// expected values exactly, on both devices and with the host's, AVX2's and
// baseline x86-64's kernels.
// RUN: rm -rf %t && python3 %S/Inputs/gen_split_slices.py %t
// RUN: strata-compile %t/program.mlir --compile-to=flow --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s
// CHECK-NOT: _extract_slice_
// CHECK: flow.dispatch @{{.*}}::@qkv_dispatch_{{[0-9]+}}_matmul_37x97x131_f32(
// CHECK-NEXT: return
// CHECK: flow.dispatch @{{.*}}_matmul_1x97x131_f32(
// CHECK-NEXT: return
// CHECK: flow.dispatch @{{.*}}::@qkv_dispatch_{{[0-9]+}}_matmul_37x97x131_f32(
// CHECK: flow.dispatch @{{.*}}_matmul_5x97x131_f32(
// CHECK-NEXT: return
// CHECK-NOT: _extract_slice_
// RUN: strata-compile %t/program.mlir -o %t/host.vmfb
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64-v3 -o %t/avx2.vmfb
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64 -o %t/generic.vmfb
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=qkv --input=@%t/qkv.input.npy --expected_output=@%t/qkv.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=qkv --input=@%t/qkv.input.npy --expected_output=@%t/qkv.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=qkv --input=@%t/qkv.input.npy --expected_output=@%t/qkv.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=qkv --input=@%t/qkv.input.npy --expected_output=@%t/qkv.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=qkv --input=@%t/qkv.input.npy --expected_output=@%t/qkv.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=qkv --input=@%t/qkv.input.npy --expected_output=@%t/qkv.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=qkv_row1 --input=@%t/qkv_row1.input.npy --expected_output=@%t/qkv_row1.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=qkv_row1 --input=@%t/qkv_row1.input.npy --expected_output=@%t/qkv_row1.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=qkv_row1 --input=@%t/qkv_row1.input.npy --expected_output=@%t/qkv_row1.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=qkv_row1 --input=@%t/qkv_row1.input.npy --expected_output=@%t/qkv_row1.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=qkv_row1 --input=@%t/qkv_row1.input.npy --expected_output=@%t/qkv_row1.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=qkv_row1 --input=@%t/qkv_row1.input.npy --expected_output=@%t/qkv_row1.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=qkv_3d --input=@%t/qkv_3d.input.npy --expected_output=@%t/qkv_3d.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=qkv_3d --input=@%t/qkv_3d.input.npy --expected_output=@%t/qkv_3d.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=qkv_3d --input=@%t/qkv_3d.input.npy --expected_output=@%t/qkv_3d.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=qkv_3d --input=@%t/qkv_3d.input.npy --expected_output=@%t/qkv_3d.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=qkv_3d --input=@%t/qkv_3d.input.npy --expected_output=@%t/qkv_3d.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=qkv_3d --input=@%t/qkv_3d.input.npy --expected_output=@%t/qkv_3d.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=gaps --input=@%t/gaps.input.npy --expected_output=@%t/gaps.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=gaps --input=@%t/gaps.input.npy --expected_output=@%t/gaps.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=gaps --input=@%t/gaps.input.npy --expected_output=@%t/gaps.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=gaps --input=@%t/gaps.input.npy --expected_output=@%t/gaps.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=gaps --input=@%t/gaps.input.npy --expected_output=@%t/gaps.expected.npy --expected_f32_threshold=0
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=gaps --input=@%t/gaps.input.npy --expected_output=@%t/gaps.expected.npy --expected_f32_threshold=0
