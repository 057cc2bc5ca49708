// ONNX LayerNormalization (opset 17, f32) as the ONNX import writes it,
// an onnx.node whose scale and bias are constants, at edge sizes: rows of
// 1, 7, 131 and 1000 elements in odd counts (9, 13, 11, 7), token rows
// (3 x 5 x 24, axis -1) and two normalized axes (5 x 3 x 7, axis 1, no
// bias). f32 takes its statistics in one pass (ReductionOps.cpp
// onePassStatistics): one reduction dispatch reads x once and sums x and
// x^2 in f64, one takes per row the mean and 1 / sqrt(max(E[x^2] - mean^2,
// 0) + epsilon) in f64 and rounds them to f32, one normalizes. On the
// llvm-cpu target the sums of rows of 1000 and 24 elements are split into
// per-lane partial sums (SplitRowSums.cpp: a multiple of the f64 lanes,
// 8 on the AVX-512 host, 4 with AVX2, 2 on x86-64), those of 1, 7 and 131
// and of two axes are not. Most rows sit at 1e4 or -2500 beside a
// deviation of 30 or 10, where sums taken in f32 would miss by 1.7e-2 to
// 0.24; constant rows (variance 0) give the bias. Against float64 answers
// within strata-run's default 1e-4 (the mean rounded to f32 at 1e4 costs
// at most 2.5e-5). Host, AVX2 and generic x86-64 builds, both devices, and
// the portable target. Inputs and answers: Inputs/gen_layernorm_rows.py.
// REQUIRES: llvm-cpu
// RUN: rm -rf %t && python3 %S/Inputs/gen_layernorm_rows.py %t
// RUN: strata-compile %t/program.mlir -o %t/host.vmfb
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64-v3 -o %t/avx2.vmfb
// RUN: strata-compile %t/program.mlir --target-cpu=x86-64 -o %t/generic.vmfb
// RUN: strata-compile %t/program.mlir --compile-to=flow | FileCheck %s
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
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=rows_of_131 --input=@%t/rows_of_131.input.npy --expected_output=@%t/rows_of_131.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=rows_of_131 --input=@%t/rows_of_131.input.npy --expected_output=@%t/rows_of_131.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=rows_of_131 --input=@%t/rows_of_131.input.npy --expected_output=@%t/rows_of_131.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=rows_of_131 --input=@%t/rows_of_131.input.npy --expected_output=@%t/rows_of_131.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=rows_of_131 --input=@%t/rows_of_131.input.npy --expected_output=@%t/rows_of_131.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=rows_of_131 --input=@%t/rows_of_131.input.npy --expected_output=@%t/rows_of_131.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=rows_of_1000 --input=@%t/rows_of_1000.input.npy --expected_output=@%t/rows_of_1000.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=rows_of_1000 --input=@%t/rows_of_1000.input.npy --expected_output=@%t/rows_of_1000.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=rows_of_1000 --input=@%t/rows_of_1000.input.npy --expected_output=@%t/rows_of_1000.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=rows_of_1000 --input=@%t/rows_of_1000.input.npy --expected_output=@%t/rows_of_1000.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=rows_of_1000 --input=@%t/rows_of_1000.input.npy --expected_output=@%t/rows_of_1000.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=rows_of_1000 --input=@%t/rows_of_1000.input.npy --expected_output=@%t/rows_of_1000.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=tokens --input=@%t/tokens.input.npy --expected_output=@%t/tokens.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=tokens --input=@%t/tokens.input.npy --expected_output=@%t/tokens.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=tokens --input=@%t/tokens.input.npy --expected_output=@%t/tokens.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=tokens --input=@%t/tokens.input.npy --expected_output=@%t/tokens.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=tokens --input=@%t/tokens.input.npy --expected_output=@%t/tokens.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=tokens --input=@%t/tokens.input.npy --expected_output=@%t/tokens.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-task --function=two_axes --input=@%t/two_axes.input.npy --expected_output=@%t/two_axes.expected.npy
// RUN: strata-run --module=%t/host.vmfb --device=local-sync --function=two_axes --input=@%t/two_axes.input.npy --expected_output=@%t/two_axes.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-task --function=two_axes --input=@%t/two_axes.input.npy --expected_output=@%t/two_axes.expected.npy
// RUN: strata-run --module=%t/avx2.vmfb --device=local-sync --function=two_axes --input=@%t/two_axes.input.npy --expected_output=@%t/two_axes.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-task --function=two_axes --input=@%t/two_axes.input.npy --expected_output=@%t/two_axes.expected.npy
// RUN: strata-run --module=%t/generic.vmfb --device=local-sync --function=two_axes --input=@%t/two_axes.input.npy --expected_output=@%t/two_axes.expected.npy
// RUN: %if portable %{ strata-compile %t/program.mlir --target=portable -o %t/portable.vmfb %}
// RUN: %if portable %{ strata-run --module=%t/portable.vmfb --no-native-kernels --function=rows_of_1 --input=@%t/rows_of_1.input.npy --expected_output=@%t/rows_of_1.expected.npy %}
// RUN: %if portable %{ strata-run --module=%t/portable.vmfb --no-native-kernels --function=rows_of_7 --input=@%t/rows_of_7.input.npy --expected_output=@%t/rows_of_7.expected.npy %}
// RUN: %if portable %{ strata-run --module=%t/portable.vmfb --no-native-kernels --function=rows_of_131 --input=@%t/rows_of_131.input.npy --expected_output=@%t/rows_of_131.expected.npy %}
// RUN: %if portable %{ strata-run --module=%t/portable.vmfb --no-native-kernels --function=rows_of_1000 --input=@%t/rows_of_1000.input.npy --expected_output=@%t/rows_of_1000.expected.npy %}
// RUN: %if portable %{ strata-run --module=%t/portable.vmfb --no-native-kernels --function=tokens --input=@%t/tokens.input.npy --expected_output=@%t/tokens.expected.npy %}
// RUN: %if portable %{ strata-run --module=%t/portable.vmfb --no-native-kernels --function=two_axes --input=@%t/two_axes.input.npy --expected_output=@%t/two_axes.expected.npy %}

// Each LayerNorm is three dispatches: the sums (two f64 results, one read
// of x), the statistics (two f32 results), the normalization.
// CHECK-LABEL: func.func @rows_of_1(
// CHECK: %[[SUMS:[a-zA-Z0-9_]+]]:2 = flow.dispatch @{{.*}}::@rows_of_1_dispatch_{{[0-9]+}}_reduction_9x1_f64(%arg0) : (tensor<9x1xf32>) -> (tensor<9xf64>, tensor<9xf64>)
// CHECK-NEXT: %[[STATS:[a-zA-Z0-9_]+]]:2 = flow.dispatch @{{.*}}::@rows_of_1_dispatch_{{[0-9]+}}_elementwise_9_f32(%[[SUMS]]#0, %[[SUMS]]#1) : (tensor<9xf64>, tensor<9xf64>) -> (tensor<9xf32>, tensor<9xf32>)
// CHECK-NOT: flow.dispatch
// CHECK: flow.dispatch @{{.*}}::@rows_of_1_dispatch_{{[0-9]+}}_elementwise_9x1_f32(%arg0,
// CHECK-NOT: flow.dispatch
// CHECK: return %{{.*}} : tensor<9x1xf32>
// CHECK-LABEL: func.func @rows_of_7(
// CHECK: %[[SUMS:[a-zA-Z0-9_]+]]:2 = flow.dispatch @{{.*}}::@rows_of_7_dispatch_{{[0-9]+}}_reduction_13x7_f64(%arg0) : (tensor<13x7xf32>) -> (tensor<13xf64>, tensor<13xf64>)
// CHECK-NEXT: %[[STATS:[a-zA-Z0-9_]+]]:2 = flow.dispatch @{{.*}}::@rows_of_7_dispatch_{{[0-9]+}}_elementwise_13_f32(%[[SUMS]]#0, %[[SUMS]]#1) : (tensor<13xf64>, tensor<13xf64>) -> (tensor<13xf32>, tensor<13xf32>)
// CHECK-NOT: flow.dispatch
// CHECK: flow.dispatch @{{.*}}::@rows_of_7_dispatch_{{[0-9]+}}_elementwise_13x7_f32(%arg0,
// CHECK-NOT: flow.dispatch
// CHECK: return %{{.*}} : tensor<13x7xf32>
// CHECK-LABEL: func.func @rows_of_131(
// CHECK: %[[SUMS:[a-zA-Z0-9_]+]]:2 = flow.dispatch @{{.*}}::@rows_of_131_dispatch_{{[0-9]+}}_reduction_11x131_f64(%arg0) : (tensor<11x131xf32>) -> (tensor<11xf64>, tensor<11xf64>)
// CHECK-NEXT: %[[STATS:[a-zA-Z0-9_]+]]:2 = flow.dispatch @{{.*}}::@rows_of_131_dispatch_{{[0-9]+}}_elementwise_11_f32(%[[SUMS]]#0, %[[SUMS]]#1) : (tensor<11xf64>, tensor<11xf64>) -> (tensor<11xf32>, tensor<11xf32>)
// CHECK-NOT: flow.dispatch
// CHECK: flow.dispatch @{{.*}}::@rows_of_131_dispatch_{{[0-9]+}}_elementwise_11x131_f32(%arg0,
// CHECK-NOT: flow.dispatch
// CHECK: return %{{.*}} : tensor<11x131xf32>
// CHECK-LABEL: func.func @rows_of_1000(
// CHECK: %[[SUMS:[a-zA-Z0-9_]+]]:2 = flow.dispatch @{{.*}}::@rows_of_1000_dispatch_{{[0-9]+}}_reduction_7x1000_f64(%arg0) : (tensor<7x1000xf32>) -> (tensor<7xf64>, tensor<7xf64>)
// CHECK-NEXT: %[[STATS:[a-zA-Z0-9_]+]]:2 = flow.dispatch @{{.*}}::@rows_of_1000_dispatch_{{[0-9]+}}_elementwise_7_f32(%[[SUMS]]#0, %[[SUMS]]#1) : (tensor<7xf64>, tensor<7xf64>) -> (tensor<7xf32>, tensor<7xf32>)
// CHECK-NOT: flow.dispatch
// CHECK: flow.dispatch @{{.*}}::@rows_of_1000_dispatch_{{[0-9]+}}_elementwise_7x1000_f32(%arg0,
// CHECK-NOT: flow.dispatch
// CHECK: return %{{.*}} : tensor<7x1000xf32>
// CHECK-LABEL: func.func @tokens(
// CHECK: %[[SUMS:[a-zA-Z0-9_]+]]:2 = flow.dispatch @{{.*}}::@tokens_dispatch_{{[0-9]+}}_reduction_3x5x24_f64(%arg0) : (tensor<3x5x24xf32>) -> (tensor<3x5xf64>, tensor<3x5xf64>)
// CHECK-NEXT: %[[STATS:[a-zA-Z0-9_]+]]:2 = flow.dispatch @{{.*}}::@tokens_dispatch_{{[0-9]+}}_elementwise_3x5_f32(%[[SUMS]]#0, %[[SUMS]]#1) : (tensor<3x5xf64>, tensor<3x5xf64>) -> (tensor<3x5xf32>, tensor<3x5xf32>)
// CHECK-NOT: flow.dispatch
// CHECK: flow.dispatch @{{.*}}::@tokens_dispatch_{{[0-9]+}}_elementwise_3x5x24_f32(%arg0,
// CHECK-NOT: flow.dispatch
// CHECK: return %{{.*}} : tensor<3x5x24xf32>
// CHECK-LABEL: func.func @two_axes(
// CHECK: %[[SUMS:[a-zA-Z0-9_]+]]:2 = flow.dispatch @{{.*}}::@two_axes_dispatch_{{[0-9]+}}_reduction_5x3x7_f64(%arg0) : (tensor<5x3x7xf32>) -> (tensor<5xf64>, tensor<5xf64>)
// CHECK-NEXT: %[[STATS:[a-zA-Z0-9_]+]]:2 = flow.dispatch @{{.*}}::@two_axes_dispatch_{{[0-9]+}}_elementwise_5_f32(%[[SUMS]]#0, %[[SUMS]]#1) : (tensor<5xf64>, tensor<5xf64>) -> (tensor<5xf32>, tensor<5xf32>)
// CHECK-NOT: flow.dispatch
// CHECK: flow.dispatch @{{.*}}::@two_axes_dispatch_{{[0-9]+}}_elementwise_5x3x7_f32(%arg0,
// CHECK-NOT: flow.dispatch
// CHECK: return %{{.*}} : tensor<5x3x7xf32>
// The sums of x and of its squares widened to f64, in one reduction;
// E[x^2] - mean^2 in f64, clamped at 0, rounded to f32 once.
// CHECK-LABEL: func.func @rows_of_1000_dispatch_{{[0-9]+}}_reduction_7x1000_f64(
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}}ins(%{{.*}} : tensor<7x1000xf32>) outs(%{{.*}}, %{{.*}} : tensor<7xf64>, tensor<7xf64>)
// CHECK-NEXT: ^bb0(%[[IN:[a-zA-Z0-9_]+]]: f32, %[[SUM:[a-zA-Z0-9_]+]]: f64, %[[SQUARES:[a-zA-Z0-9_]+]]: f64):
// CHECK-NEXT: %[[W:[a-zA-Z0-9_]+]] = arith.extf %[[IN]] : f32 to f64
// CHECK-NEXT: %[[S:[a-zA-Z0-9_]+]] = arith.addf %[[SUM]], %[[W]] : f64
// CHECK-NEXT: %[[SQ:[a-zA-Z0-9_]+]] = arith.mulf %[[W]], %[[W]] : f64
// CHECK-NEXT: %[[Q:[a-zA-Z0-9_]+]] = arith.addf %[[SQUARES]], %[[SQ]] : f64
// CHECK-NEXT: linalg.yield %[[S]], %[[Q]] : f64, f64
// CHECK-LABEL: func.func @rows_of_1000_dispatch_{{[0-9]+}}_elementwise_7_f32(
// CHECK: %[[MEAN:[a-zA-Z0-9_]+]] = arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: %[[MEANSQ:[a-zA-Z0-9_]+]] = arith.mulf %[[MEAN]], %[[MEAN]] : f64
// CHECK: %[[VAR:[a-zA-Z0-9_]+]] = arith.subf %{{.*}}, %[[MEANSQ]] : f64
// CHECK: arith.maximumf %[[VAR]], %{{.*}} : f64
// CHECK: math.sqrt %{{.*}} : f64
// CHECK: arith.truncf %[[MEAN]] : f64 to f32
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK-LABEL: func.func @rows_of_1000_dispatch_{{[0-9]+}}_elementwise_7x1000_f32(
// CHECK: arith.subf %{{.*}}, %{{.*}} : f32
