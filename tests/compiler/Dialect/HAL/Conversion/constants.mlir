// Constant tensors the host keeps (weights) are stored once in the
// module's rodata and bound in place: the initializer wraps the vm.buffer
// into a read-only hal.buffer (hal.buffer.wrap, no copy) once per context,
// and dispatches bind that global.
// RUN: strata-opt --strata-schedule-execution --strata-convert-stream-to-hal --strata-convert-to-vm %s | FileCheck %s

// One rodata for the weight, though two dispatches of two functions read it.
// CHECK-LABEL: vm.module @weights
// CHECK: vm.rodata @__constant_0 dense<[0.000000e+00, 1.000000e+00,{{.*}}]> : tensor<80xf32>
// CHECK-NEXT: vm.global.ref mutable @__constant_0_buffer : !vm.ref<?>
// CHECK-NOT: vm.rodata @__constant_1
// CHECK: vm.func @f(
// CHECK-NOT: hal.buffer.wrap
// CHECK: %[[W:.*]] = vm.global.load.ref @__constant_0_buffer
// CHECK-NOT: hal.buffer.wrap
// CHECK: vm.call.variadic @hal.command_buffer.dispatch({{.*}}, %[[W]], %{{.*}}, %{{.*}}, {{.*}}) segments [0, 3]
// CHECK: vm.func @g(
// CHECK-NOT: hal.buffer.wrap
// CHECK: vm.global.load.ref @__constant_0_buffer
// CHECK: vm.initializer @__init {
// CHECK: %[[DATA:.*]] = vm.const.ref.rodata @__constant_0
// CHECK: %[[WRAPPED:.*]] = vm.call.import @hal.buffer.wrap(%[[DATA]]) : (!vm.buffer) -> !vm.ref<?>
// CHECK: vm.global.store.ref %[[WRAPPED]], @__constant_0_buffer
// CHECK-NOT: hal.buffer.wrap
module @weights {
  hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
    hal.executable.export @add ordinal(0) workgroup_count([1, 1, 1])
  }
  func.func @f(%x: tensor<80xf32>) -> tensor<80xf32> {
    %w = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0]> : tensor<80xf32>
    %0 = flow.dispatch @exe::@add(%x, %w) : (tensor<80xf32>, tensor<80xf32>) -> tensor<80xf32>
    return %0 : tensor<80xf32>
  }
  func.func @g(%x: tensor<80xf32>) -> tensor<80xf32> {
    %w = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0]> : tensor<80xf32>
    %0 = flow.dispatch @exe::@add(%w, %x) : (tensor<80xf32>, tensor<80xf32>) -> tensor<80xf32>
    return %0 : tensor<80xf32>
  }
}
