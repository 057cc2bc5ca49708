// --strata-form-dispatches: constant tensors of more than 256 bytes
// (flow::kMaxInlinedConstantBytes; splats aside) stay on the host and are
// passed to the dispatches that read them; smaller ones and splats are
// recomputed inside each dispatch.
// RUN: strata-opt --strata-form-dispatches %s | FileCheck %s

// CHECK-LABEL: func.func @weights(
// CHECK-SAME: %[[X:[^:]*]]: tensor<65xf32>, %[[Y:[^:]*]]: tensor<64xf32>
// CHECK: %[[W:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00,{{.*}}]> : tensor<65xf32>
// CHECK-NOT: arith.constant dense
// CHECK: flow.dispatch @module_linked_llvm_cpu::@weights_dispatch_0_elementwise_65_f32(%[[X]], %[[W]])
// CHECK: flow.dispatch @module_linked_llvm_cpu::@weights_dispatch_1_elementwise_64_f32(%[[Y]])
// CHECK: flow.dispatch @module_linked_llvm_cpu::@weights_dispatch_2_elementwise_1024_f32(%{{.*}})
// CHECK-LABEL: flow.executable @module_linked_llvm_cpu
// CHECK: func.func @weights_dispatch_0_elementwise_65_f32(%{{.*}}: tensor<65xf32>, %{{.*}}: tensor<65xf32>)
// CHECK-NOT: arith.constant dense
// CHECK: func.func @weights_dispatch_1_elementwise_64_f32(%{{.*}}: tensor<64xf32>)
// CHECK: arith.constant dense<[0.000000e+00, 1.000000e+00,{{.*}}]> : tensor<64xf32>
// CHECK: func.func @weights_dispatch_2_elementwise_1024_f32(%{{.*}}: tensor<1024xf32>)
// CHECK: arith.constant 2.000000e+00 : f32
func.func @weights(%x: tensor<65xf32>, %y: tensor<64xf32>, %z: tensor<1024xf32>) -> (tensor<65xf32>, tensor<64xf32>, tensor<1024xf32>) {
  %w65 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0]> : tensor<65xf32>
  %w64 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0]> : tensor<64xf32>
  %splat = arith.constant dense<2.0> : tensor<1024xf32>
  %e65 = tensor.empty() : tensor<65xf32>
  %e64 = tensor.empty() : tensor<64xf32>
  %e1024 = tensor.empty() : tensor<1024xf32>
  %0 = linalg.add ins(%x, %w65 : tensor<65xf32>, tensor<65xf32>) outs(%e65 : tensor<65xf32>) -> tensor<65xf32>
  %1 = linalg.add ins(%y, %w64 : tensor<64xf32>, tensor<64xf32>) outs(%e64 : tensor<64xf32>) -> tensor<64xf32>
  %2 = linalg.add ins(%z, %splat : tensor<1024xf32>, tensor<1024xf32>) outs(%e1024 : tensor<1024xf32>) -> tensor<1024xf32>
  return %0, %1, %2 : tensor<65xf32>, tensor<64xf32>, tensor<1024xf32>
}
