// strata-run --trace writes a Chrome trace (Perfetto): the invocation, the
// queue submission and the fence wait (local-task; local-sync runs the
// work inside the submission and has nothing to wait for), and for each of
// the two dispatches the share every worker ran, adding up to its grid.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=two --task_workers=2 --input="256x256xf32=1" --expected_output="256x256xf32=5" --trace=%t.task.json
// RUN: python3 %S/Inputs/check_trace.py %t.task.json two two_dispatch_0_elementwise_256x256_f32:16 two_dispatch_1_elementwise_256x256_f32:16
// RUN: strata-run --module=%t.vmfb --device=local-sync --function=two --input="256x256xf32=1" --expected_output="256x256xf32=5" --trace=%t.sync.json
// RUN: python3 %S/Inputs/check_trace.py --inline %t.sync.json two two_dispatch_0_elementwise_256x256_f32:16 two_dispatch_1_elementwise_256x256_f32:16
// A trace file that cannot be written is an error naming it, before the run.
// RUN: not strata-run --module=%t.vmfb --function=two --input="256x256xf32=1" --trace=%t.missing/trace.json 2>&1 | FileCheck %s
// CHECK-NOT: 256x256xf32=
// CHECK: --trace: cannot write '{{.*}}missing/trace.json': No such file or directory

// (a + a) then (d * d + 1): two dependent dispatches of 16 workgroups each.
func.func @two(%a: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %e = tensor.empty() : tensor<256x256xf32>
  %one = arith.constant dense<1.0> : tensor<256x256xf32>
  %d = linalg.add ins(%a, %a : tensor<256x256xf32>, tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %b = util.optimization_barrier %d : tensor<256x256xf32>
  %s = linalg.mul ins(%b, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.add ins(%s, %one : tensor<256x256xf32>, tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
