// linalg.softmax over the innermost dimension at edge sizes, one dispatch
// each: rows of 1, 7, 33 and 1000 elements (whole vectors and the scalar
// tail of SoftmaxRows.cpp at 16, 8 and 4 lanes: AVX-512 host, AVX2 and
// generic x86-64 builds, each on both devices), three dimensions, a
// dynamic row length, and stability: 1e30 and 1000-offset rows, -inf
// elements, NaN and +inf rows (all NaN). The portable target decomposes it
// instead (no dynamic shapes there). Inputs and double-precision answers:
// Inputs/gen_softmax_rows.py.
// REQUIRES: llvm-cpu
// RUN: rm -rf %t && python3 %S/Inputs/gen_softmax_rows.py %t
// RUN: strata-compile %t/program.mlir -o %t/host.vmfb
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64-v3 -o %t/avx2.vmfb
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64 -o %t/generic.vmfb
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=rows_of_1 --input=@%t/rows_of_1.input.npy --expected_output=@%t/rows_of_1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=rows_of_1 --input=@%t/rows_of_1.input.npy --expected_output=@%t/rows_of_1.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=rows_of_1 --input=@%t/rows_of_1.input.npy --expected_output=@%t/rows_of_1.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=rows_of_1 --input=@%t/rows_of_1.input.npy --expected_output=@%t/rows_of_1.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=rows_of_1 --input=@%t/rows_of_1.input.npy --expected_output=@%t/rows_of_1.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=rows_of_1 --input=@%t/rows_of_1.input.npy --expected_output=@%t/rows_of_1.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=rows_of_7 --input=@%t/rows_of_7.input.npy --expected_output=@%t/rows_of_7.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=rows_of_7 --input=@%t/rows_of_7.input.npy --expected_output=@%t/rows_of_7.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=rows_of_7 --input=@%t/rows_of_7.input.npy --expected_output=@%t/rows_of_7.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=rows_of_7 --input=@%t/rows_of_7.input.npy --expected_output=@%t/rows_of_7.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=rows_of_7 --input=@%t/rows_of_7.input.npy --expected_output=@%t/rows_of_7.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=rows_of_7 --input=@%t/rows_of_7.input.npy --expected_output=@%t/rows_of_7.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=rows_of_33 --input=@%t/rows_of_33.input.npy --expected_output=@%t/rows_of_33.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=rows_of_33 --input=@%t/rows_of_33.input.npy --expected_output=@%t/rows_of_33.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=rows_of_33 --input=@%t/rows_of_33.input.npy --expected_output=@%t/rows_of_33.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=rows_of_33 --input=@%t/rows_of_33.input.npy --expected_output=@%t/rows_of_33.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=rows_of_33 --input=@%t/rows_of_33.input.npy --expected_output=@%t/rows_of_33.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=rows_of_33 --input=@%t/rows_of_33.input.npy --expected_output=@%t/rows_of_33.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=rows_of_1000 --input=@%t/rows_of_1000.input.npy --expected_output=@%t/rows_of_1000.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=rows_of_1000 --input=@%t/rows_of_1000.input.npy --expected_output=@%t/rows_of_1000.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=rows_of_1000 --input=@%t/rows_of_1000.input.npy --expected_output=@%t/rows_of_1000.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=rows_of_1000 --input=@%t/rows_of_1000.input.npy --expected_output=@%t/rows_of_1000.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=rows_of_1000 --input=@%t/rows_of_1000.input.npy --expected_output=@%t/rows_of_1000.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=rows_of_1000 --input=@%t/rows_of_1000.input.npy --expected_output=@%t/rows_of_1000.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=outer_3d --input=@%t/outer_3d.input.npy --expected_output=@%t/outer_3d.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=outer_3d --input=@%t/outer_3d.input.npy --expected_output=@%t/outer_3d.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=outer_3d --input=@%t/outer_3d.input.npy --expected_output=@%t/outer_3d.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=outer_3d --input=@%t/outer_3d.input.npy --expected_output=@%t/outer_3d.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=outer_3d --input=@%t/outer_3d.input.npy --expected_output=@%t/outer_3d.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=outer_3d --input=@%t/outer_3d.input.npy --expected_output=@%t/outer_3d.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=dynamic_length --input=@%t/dynamic_length.input.npy --expected_output=@%t/dynamic_length.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=dynamic_length --input=@%t/dynamic_length.input.npy --expected_output=@%t/dynamic_length.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=dynamic_length --input=@%t/dynamic_length.input.npy --expected_output=@%t/dynamic_length.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=dynamic_length --input=@%t/dynamic_length.input.npy --expected_output=@%t/dynamic_length.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=dynamic_length --input=@%t/dynamic_length.input.npy --expected_output=@%t/dynamic_length.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=dynamic_length --input=@%t/dynamic_length.input.npy --expected_output=@%t/dynamic_length.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=stability --input=@%t/stability.input.npy --expected_output=@%t/stability.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=stability --input=@%t/stability.input.npy --expected_output=@%t/stability.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=stability --input=@%t/stability.input.npy --expected_output=@%t/stability.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=stability --input=@%t/stability.input.npy --expected_output=@%t/stability.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=stability --input=@%t/stability.input.npy --expected_output=@%t/stability.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=stability --input=@%t/stability.input.npy --expected_output=@%t/stability.expected.npy
// RUN: %if portable %{ strata-compile %t/program.mlir --target=portable -o %t/portable.vmfb %}
// RUN: %if portable %{ strata-run --module=%t/portable.vmfb --no-native-kernels --function=rows_of_1 --input=@%t/rows_of_1.input.npy --expected_output=@%t/rows_of_1.expected.npy %}
// RUN: %if portable %{ strata-run --module=%t/portable.vmfb --no-native-kernels --function=rows_of_7 --input=@%t/rows_of_7.input.npy --expected_output=@%t/rows_of_7.expected.npy %}
// RUN: %if portable %{ strata-run --module=%t/portable.vmfb --no-native-kernels --function=rows_of_33 --input=@%t/rows_of_33.input.npy --expected_output=@%t/rows_of_33.expected.npy %}
// RUN: %if portable %{ strata-run --module=%t/portable.vmfb --no-native-kernels --function=rows_of_1000 --input=@%t/rows_of_1000.input.npy --expected_output=@%t/rows_of_1000.expected.npy %}
// RUN: %if portable %{ strata-run --module=%t/portable.vmfb --no-native-kernels --function=outer_3d --input=@%t/outer_3d.input.npy --expected_output=@%t/outer_3d.expected.npy %}
// RUN: %if portable %{ strata-run --module=%t/portable.vmfb --no-native-kernels --function=stability --input=@%t/stability.input.npy --expected_output=@%t/stability.expected.npy %}
