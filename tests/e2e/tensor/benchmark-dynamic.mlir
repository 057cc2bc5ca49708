// strata-benchmark and strata-run with dynamic shapes: a function of
// ?x64xf32 runs at any row count; a tensor that does not fit the recorded
// signature is refused naming the argument; and the traces name dynamic
// dispatches as static ones are named, "D" for a size known at run time
// (elementwise_Dx64, and a convolution of a dynamic batch conv_..._nD).
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-benchmark --module=%t.vmfb --function=scale_rows --input="3x64xf32=1" --input=f32=2 --repetitions=3 --format=json | python3 %S/Inputs/check_benchmark.py module.scale_rows local-task 3
// RUN: strata-benchmark --module=%t.vmfb --function=scale_rows --input="300x64xf32=1" --input=f32=2 --repetitions=3 --format=json --device=local-sync | python3 %S/Inputs/check_benchmark.py module.scale_rows local-sync 3
// RUN: not strata-benchmark --module=%t.vmfb --function=scale_rows --input="3x63xf32=1" --input=f32=2 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: strata-benchmark: --input #1 ('3x63xf32=1'): argument 0 of module.scale_rows is a ?x64xf32 tensor, not 3x63xf32
// RUN: not strata-benchmark --module=%t.vmfb --function=scale_rows --input="64xf32=1" --input=f32=2 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: strata-benchmark: --input #1 ('64xf32=1'): argument 0 of module.scale_rows is a ?x64xf32 tensor, not 64xf32
//
// RUN: strata-benchmark --module=%t.vmfb --function=scale_rows --input="256x64xf32=1" --input=f32=2 --warmup=0 --repetitions=1 --task_workers=2 --trace=%t.bench.json
// RUN: python3 %S/Inputs/check_trace.py %t.bench.json scale_rows 'scale_rows_dispatch_0_elementwise_Dx64_f32:*'
// RUN: strata-run --module=%t.vmfb --function=conv --task_workers=2 --input="3x10x10x4xf32=1" --trace=%t.conv.json | FileCheck %s --check-prefix=CONV
// CONV: 3x8x8x8xf32=
// RUN: python3 %S/Inputs/check_trace.py %t.conv.json conv 'conv_dispatch_1_conv_3x3_4x8_8x8_nD_f32:*'
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=conv --input="2x10x10x4xf32=1" --trace=%t.conv.sync.json
// RUN: python3 %S/Inputs/check_trace.py --inline %t.conv.sync.json conv 'conv_dispatch_1_conv_3x3_4x8_8x8_nD_f32:*'

func.func @scale_rows(%a: tensor<?x64xf32>, %s: f32) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.mulf %x, %s : f32
      linalg.yield %y : f32
  } -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// A 3x3 convolution of a batch of any size.
func.func @conv(%x: tensor<?x10x10x4xf32>) -> tensor<?x8x8x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x10x10x4xf32>
  %w = arith.constant dense<0.5> : tensor<3x3x4x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x8x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x10x10x4xf32>, tensor<3x3x4x8xf32>) outs(%init : tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
  return %r : tensor<?x8x8x8xf32>
}
