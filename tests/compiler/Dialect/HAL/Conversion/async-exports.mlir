// --strata-schedule-execution{async-exports}: an async-external twin per
// function with tensors in its signature, as the vm conversion lowers it.
// RUN: strata-opt '--strata-schedule-execution=async-exports=true' --strata-convert-stream-to-hal --strata-convert-to-vm %s | FileCheck %s
// RUN: strata-opt --strata-schedule-execution --strata-convert-stream-to-hal --strata-convert-to-vm %s | FileCheck %s --check-prefix=SYNC

// The twin's first submission waits for the wait fence; its return hands
// the last fence to the signal fence with a queue barrier, without waiting.
// CHECK-LABEL: vm.func @f$async(
// CHECK-SAME: %[[A:.*]]: !vm.ref<?>, %[[WAIT:.*]]: !vm.ref<?>, %[[SIGNAL:.*]]: !vm.ref<?>) -> !vm.ref<?>
// CHECK: %[[DEV:.*]] = vm.call.import @hal.devices.get
// CHECK: %[[FENCE:.*]] = vm.call.import @hal.fence.create
// CHECK: vm.call.variadic @hal.device.queue.execute(%[[DEV]], %[[WAIT]], %[[FENCE]], %{{.*}}) segments [1]
// CHECK-NOT: hal.fence.await
// CHECK: vm.call.import @hal.device.queue.barrier(%[[DEV]], %[[FENCE]], %[[SIGNAL]])
// CHECK-NEXT: vm.return
// CHECK: vm.export @f$async {reflection = {arg0 = "4xf32", result0 = "4xf32"}}
//
// A read-back waits for the wait fence first; then the signal fence is
// signaled by the host.
// CHECK-LABEL: vm.func @read$async(
// CHECK-SAME: %[[B:.*]]: !vm.ref<?>, %[[WAIT2:.*]]: !vm.ref<?>, %[[SIGNAL2:.*]]: !vm.ref<?>) -> i32
// CHECK: vm.call.variadic @hal.fence.await(%{{.*}}, %[[WAIT2]]) segments [1]
// CHECK: vm.call.import @hal.buffer.load
// CHECK: vm.call.import @hal.fence.signal(%[[SIGNAL2]])
// CHECK-NEXT: vm.return
//
// Scalar functions get no twin.
// CHECK-NOT: @scalar$async
// SYNC-NOT: $async
module {
  hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
    hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])
  }
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func @read(%a: tensor<4xi32>) -> i32 {
    %c0 = arith.constant 0 : index
    %v = tensor.extract %a[%c0] : tensor<4xi32>
    return %v : i32
  }
  func.func @scalar(%x: i32) -> i32 {
    return %x : i32
  }
}
