// A multi-ISA module (--target-cpu=x86-64-multi: one kernel library each
// for x86-64-v4, x86-64-v3 and x86-64) gives the exact expected values on
// every variant: STRATA_CPU_FEATURES lowers what the runtime believes the
// host has, so an AVX-512 machine runs the AVX2 and baseline libraries too.
// The program is the part of packed-weights.mlir's that this test runs
// (weights stored in the AVX-512 panel layout, which the AVX2 and baseline
// kernels read as written). Each variant on both devices.
// RUN: rm -rf %t && python3 %S/Inputs/gen_packed_weights.py %t mm_rows131 mm_rows1 mm_rows5 conv3x3_pad conv7x7_s2 conv1x1 conv3x3_7x7 mm_n97 conv1x1_f100 conv3x3_w28 conv3x3_s2_w55
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64-multi -o %t/multi.vmfb
//
// strata-dump lists the three libraries, each with the features it needs,
// and the one this host picks.
// RUN: env STRATA_CPU_FEATURES=avx2 strata-dump %t/multi.vmfb | FileCheck %s --check-prefix=DUMP-AVX2
// DUMP-AVX2: kernel libraries (3):
// DUMP-AVX2-DAG: needs: avx2 fma  (this host picks it)
// DUMP-AVX2-DAG: needs: none
// DUMP-AVX2-DAG: not on this host: {{.*}}needs CPU features this host lacks: avx512f
// RUN: env STRATA_CPU_FEATURES=baseline strata-dump %t/multi.vmfb | FileCheck %s --check-prefix=DUMP-BASE
// DUMP-BASE: kernel libraries (3):
// DUMP-BASE-DAG: needs: none  (this host picks it)
// DUMP-BASE-DAG: not on this host: {{.*}}lacks: avx2 fma avx512f
// DUMP-BASE-DAG: not on this host: {{.*}}lacks: avx2 fma (
//
// strata-run --verbose says which library it loaded.
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --verbose --module=%t/multi.vmfb --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy 2>&1 | FileCheck %s --check-prefix=VERBOSE
// VERBOSE: needs avx2 fma: loaded
// VERBOSE: [SUCCESS]
//
// A bad STRATA_CPU_FEATURES fails the load naming the value.
// RUN: env STRATA_CPU_FEATURES=avx3 not strata-run --module=%t/multi.vmfb --function=mm_rows1 --input=@%t/mm_rows1.input.npy 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: env STRATA_CPU_FEATURES=avx2,sse9 not strata-run --module=%t/multi.vmfb --function=mm_rows1 --input=@%t/mm_rows1.input.npy 2>&1 | FileCheck %s --check-prefix=BAD-LIST
// BAD: STRATA_CPU_FEATURES='avx3': 'avx3' is not a CPU feature; give avx512, avx2 or baseline
// BAD-LIST: STRATA_CPU_FEATURES='avx2,sse9': 'sse9' is not a CPU feature
//
// When no library runs, the load fails naming each candidate's reason.
// RUN: python3 %S/Inputs/gen_packed_weights.py %t/two mm_rows1
// RUN: strata-compile %t/two/program.mlir --target-cpu=x86-64-v4,x86-64-v3 -o %t/two.vmfb
// RUN: env STRATA_CPU_FEATURES=baseline not strata-run --module=%t/two.vmfb --function=mm_rows1 --input=@%t/mm_rows1.input.npy 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: none of the 2 kernel libraries runs on this host; candidate 0: {{.*}}lacks: avx2 fma avx512f {{.*}}; candidate 1: {{.*}}lacks: avx2 fma (
//
// Every variant, every function.
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-task --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-sync --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-task --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-sync --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-task --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-sync --function=mm_rows131 --input=@%t/mm_rows131.input.npy --expected_output=@%t/mm_rows131.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-task --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-sync --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-task --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-sync --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-task --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-sync --function=mm_rows1 --input=@%t/mm_rows1.input.npy --expected_output=@%t/mm_rows1.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-task --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-sync --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-task --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-sync --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-task --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-sync --function=mm_rows5 --input=@%t/mm_rows5.input.npy --expected_output=@%t/mm_rows5.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-task --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-sync --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-task --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-sync --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-task --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-sync --function=conv3x3_pad --input=@%t/conv3x3_pad.input.npy --expected_output=@%t/conv3x3_pad.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-task --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-sync --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-task --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-sync --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-task --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-sync --function=conv7x7_s2 --input=@%t/conv7x7_s2.input.npy --expected_output=@%t/conv7x7_s2.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-task --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-sync --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-task --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-sync --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-task --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-sync --function=conv1x1 --input=@%t/conv1x1.input.npy --expected_output=@%t/conv1x1.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-task --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-sync --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-task --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-sync --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-task --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-sync --function=conv3x3_7x7 --input=@%t/conv3x3_7x7.input.npy --expected_output=@%t/conv3x3_7x7.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-task --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-sync --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-task --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-sync --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-task --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-sync --function=mm_n97 --input=@%t/mm_n97.input.npy --expected_output=@%t/mm_n97.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-task --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-sync --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-task --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-sync --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-task --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-sync --function=conv1x1_f100 --input=@%t/conv1x1_f100.input.npy --expected_output=@%t/conv1x1_f100.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-task --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-sync --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-task --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-sync --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-task --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-sync --function=conv3x3_w28 --input=@%t/conv3x3_w28.input.npy --expected_output=@%t/conv3x3_w28.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-task --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx512 strata-run --module=%t/multi.vmfb --device=local-sync --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-task --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: env STRATA_CPU_FEATURES=avx2 strata-run --module=%t/multi.vmfb --device=local-sync --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-task --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
// RUN: env STRATA_CPU_FEATURES=baseline strata-run --module=%t/multi.vmfb --device=local-sync --function=conv3x3_s2_w55 --input=@%t/conv3x3_s2_w55.input.npy --expected_output=@%t/conv3x3_s2_w55.expected.npy
