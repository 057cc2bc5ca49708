// Host code of tensor programs: tensors are hal.buffer_views, dispatches are
// calls of the hal module (once the stream phase has scheduled them and the
// hal phase has compiled the executable).
// RUN: strata-opt --strata-schedule-execution --strata-convert-stream-to-hal --strata-convert-to-vm --split-input-file %s | FileCheck %s

// CHECK-LABEL: vm.module @mlp
// CHECK-DAG: vm.rodata @__message_main_0 "argument 0 of @main"
// CHECK-DAG: vm.rodata @__executable_format "embedded-elf-x86_64"
// CHECK-DAG: vm.rodata @__executable_library "\7FELF"
// CHECK-DAG: vm.global.ref mutable @__executable : !vm.ref<?>
// Each hal import carries the hal version that added it (hal_imports.def).
// CHECK-DAG: vm.import @hal.command_buffer.dispatch {minimum_version = 1 : i32, variadic_spans = array<i32: 6, 1, 7, 3>}
// CHECK-DAG: vm.import @hal.allocator.allocate_uninitialized {minimum_version = 2 : i32}
// CHECK: vm.func @main(%[[X:.*]]: !vm.ref<?>, %[[W:.*]]: !vm.ref<?>) -> !vm.ref<?>
// Arguments are checked in order, before anything else.
// CHECK: vm.call.variadic @hal.buffer_view.assert(%[[X]], %{{.*}}) segments [2]
// CHECK: vm.call.variadic @hal.buffer_view.assert(%[[W]], %{{.*}}) segments [2]
// The buffers the dispatch binds and the view of its result come first,
// then the submission.
// CHECK: %[[DEV:.*]] = vm.call.import @hal.devices.get
// CHECK: %[[XB:.*]] = vm.call.import @hal.buffer_view.buffer(%[[X]])
// CHECK: %[[WB:.*]] = vm.call.import @hal.buffer_view.buffer(%[[W]])
// CHECK: %[[OUT:.*]] = vm.call.import @hal.allocator.allocate
// CHECK: %[[VIEW:.*]] = vm.call.variadic @hal.buffer_view.create(%[[OUT]], {{.*}}) segments [2]
// CHECK: %[[CB:.*]] = vm.call.import @hal.command_buffer.create(%[[DEV]]
// CHECK: %[[EXE:.*]] = vm.global.load.ref @__executable
// CHECK-NOT: execution_barrier
// CHECK: vm.call.variadic @hal.command_buffer.dispatch(%[[CB]], %[[EXE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[XB]], %{{.*}}, %{{.*}}, %[[WB]], %{{.*}}, %{{.*}}, %[[OUT]], %{{.*}}, %{{.*}}) segments [0, 3]
// CHECK: vm.call.import @hal.command_buffer.finalize(%[[CB]])
// CHECK: %[[FENCE:.*]] = vm.call.import @hal.fence.create(%[[DEV]]
// CHECK: vm.call.variadic @hal.device.queue.execute(%[[DEV]], %{{.*}}, %[[FENCE]], %[[CB]]) segments [1]
// CHECK: vm.call.variadic @hal.fence.await(%{{.*}}, %[[FENCE]]) segments [1]
// CHECK: vm.return %[[VIEW]]
// The export records the tensor signature for tools.
// CHECK: vm.export @main {reflection = {arg0 = "4x16xf32", arg1 = "16x8xf32", result0 = "4x8xf32"}}
// The initializer makes the executable once per context.
// CHECK: vm.initializer @__init {
// CHECK: vm.call.import @hal.executable.create
// CHECK: vm.global.store.ref %{{.*}}, @__executable
module @mlp {
  hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
    hal.executable.export @main_dispatch_0_matmul_4x8x16_f32 ordinal(0) workgroup_count([4, 1, 1])
  }
  func.func @main(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
    %0 = flow.dispatch @exe::@main_dispatch_0_matmul_4x8x16_f32(%x, %w) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}

// -----

// Consecutive dispatches share one command buffer and one wait; a dispatch
// that reads an earlier one's result waits for it at a barrier. A result
// only the group's dispatches read lives in the group's transient slab and
// gets no view. Any other use of a tensor ends the group.
// CHECK-LABEL: vm.module @chain
// CHECK: vm.func @f(
// CHECK: %[[SLAB:.*]] = vm.call.import @hal.allocator.allocate_uninitialized(%{{.*}}, %[[SLABBYTES:.*]])
// Two of the three results get a view; the transient one does not.
// CHECK-COUNT-2: vm.call.variadic @hal.buffer_view.create
// CHECK-NOT: vm.call.variadic @hal.buffer_view.create
// CHECK: %[[CB:.*]] = vm.call.import @hal.command_buffer.create
// CHECK: %[[GEXE:.*]] = vm.global.load.ref @__executable
// CHECK-NOT: vm.global.load.ref
// CHECK: vm.call.variadic @hal.command_buffer.dispatch(%[[CB]], %[[GEXE]], {{.*}}, %[[SLAB]], %{{.*}}, %{{.*}}) segments [0, 2]
// CHECK-NOT: vm.call.variadic @hal.buffer_view.create
// CHECK-NOT: vm.global.load.ref
// CHECK: vm.call.import @hal.command_buffer.execution_barrier(%[[CB]])
// CHECK-NOT: vm.global.load.ref
// CHECK: vm.call.variadic @hal.command_buffer.dispatch(%[[CB]], %[[GEXE]], {{.*}}, %[[SLAB]], %{{.*}}, %{{.*}}, %{{.*}}) segments [0, 2]
// CHECK-NOT: vm.global.load.ref
// CHECK: vm.call.variadic @hal.command_buffer.dispatch(%[[CB]], %[[GEXE]]
// CHECK-NOT: vm.global.load.ref
// CHECK: vm.call.variadic @hal.fence.await
// CHECK-NOT: vm.call.variadic @hal.fence.await
// CHECK: vm.call @keep
// CHECK: vm.call.import @hal.command_buffer.create
// CHECK: vm.call.variadic @hal.fence.await
// CHECK: vm.return
module @chain {
  hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
    hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])
    hal.executable.export @d1 ordinal(1) workgroup_count([1, 1, 1])
  }
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = flow.dispatch @exe::@d1(%0) : (tensor<4xf32>) -> tensor<4xf32>
    %c = arith.constant 1 : i32
    %2 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %3 = call @keep(%2) : (tensor<4xf32>) -> tensor<4xf32>
    %4 = flow.dispatch @exe::@d1(%3) : (tensor<4xf32>) -> tensor<4xf32>
    return %4 : tensor<4xf32>
  }
  func.func private @keep(%t: tensor<4xf32>) -> tensor<4xf32> {
    return %t : tensor<4xf32>
  }
}

// -----

// A dispatch that reads an earlier one's result through a reshape (a view
// of the same buffer on the host) also waits for it at a barrier; without
// one, local-task ran the two side by side (conv-im2col's im2col and
// matmul gave wrong sums).
// CHECK-LABEL: vm.module @reshaped
// CHECK: vm.func @f(
// CHECK: %[[CB:.*]] = vm.call.import @hal.command_buffer.create
// CHECK: vm.call.variadic @hal.command_buffer.dispatch(%[[CB]]
// CHECK-NOT: vm.call.variadic @hal.command_buffer.dispatch
// CHECK: vm.call.import @hal.command_buffer.execution_barrier(%[[CB]])
// CHECK-NOT: vm.call
// CHECK: vm.call.variadic @hal.command_buffer.dispatch(%[[CB]]
module @reshaped {
  hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
    hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])
    hal.executable.export @d1 ordinal(1) workgroup_count([1, 1, 1])
  }
  func.func @f(%a: tensor<4xf32>) -> tensor<2x2xf32> {
    %0 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = tensor.expand_shape %0 [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
    %2 = flow.dispatch @exe::@d1(%1) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    return %2 : tensor<2x2xf32>
  }
}

// -----

// Groups chain: host work that does not touch tensors (a call with
// effects) ends a group without a wait; the next group's submission waits
// for the first's fence, and the host awaits only the last fence, before
// the return. The work between runs while the device does.
// CHECK-LABEL: vm.module @timepoints
// CHECK: vm.func @f(
// CHECK: %[[F1:.*]] = vm.call.import @hal.fence.create
// CHECK: vm.call.variadic @hal.device.queue.execute(%{{.*}}, %{{.*}}, %[[F1]], %{{.*}}) segments [1]
// CHECK-NOT: vm.call.variadic @hal.fence.await
// CHECK: vm.call.import @clock.tick
// CHECK: %[[F2:.*]] = vm.call.import @hal.fence.create
// CHECK: vm.call.variadic @hal.device.queue.execute(%{{.*}}, %[[F1]], %[[F2]], %{{.*}}) segments [1]
// CHECK-NOT: vm.call.variadic @hal.fence.await(%{{.*}}, %[[F1]])
// CHECK: vm.call.variadic @hal.fence.await(%{{.*}}, %[[F2]]) segments [1]
// CHECK-NEXT: vm.return
module @timepoints {
  hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
    hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])
    hal.executable.export @d1 ordinal(1) workgroup_count([1, 1, 1])
  }
  func.func @f(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, i32) {
    %0 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %t = call @clock.tick() : () -> i32
    %1 = flow.dispatch @exe::@d1(%0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0, %1, %t : tensor<4xf32>, tensor<4xf32>, i32
  }
  func.func private @clock.tick() -> i32
}

// -----

// A function that only passes a tensor through checks it and needs no
// executable; unused hal imports are dropped.
// CHECK-LABEL: vm.module @pass
// CHECK-NOT: vm.import @hal.command_buffer
// CHECK: vm.import @hal.buffer_view.assert
// CHECK-NOT: vm.import
// CHECK: vm.func @same(%[[T:.*]]: !vm.ref<?>) -> !vm.ref<?>
// CHECK: vm.call.variadic @hal.buffer_view.assert(%[[T]], {{.*}}) segments [1]
// CHECK: vm.return %[[T]]
// CHECK-NOT: vm.initializer
module @pass {
  func.func @same(%t: tensor<3xi8>) -> tensor<3xi8> {
    return %t : tensor<3xi8>
  }
}

// -----

// Dynamic dimensions: the entry check takes -1 for any size, tensor.dim
// reads the view, the result is allocated by the size the dispatch is
// given (its last operand), and its view is created with that dimension.
// CHECK-LABEL: vm.module @dynamic
// CHECK: vm.func @rows(%[[A:.*]]: !vm.ref<?>) -> !vm.ref<?>
// CHECK-DAG: %[[ANY:.*]] = vm.const.i64 -1
// CHECK-DAG: %[[C8:.*]] = vm.const.i64 8
// CHECK: vm.call.variadic @hal.buffer_view.assert(%[[A]], %{{.*}}, %{{.*}}, %{{.*}}, %[[ANY]], %[[C8]]) segments [2]
// CHECK: %[[N:.*]] = vm.call.import @hal.buffer_view.dim(%[[A]], %{{.*}}) : (!vm.ref<?>, i32) -> i64
// CHECK: %[[BYTES4:.*]] = vm.mul.i64 %{{.*}}, %[[N]]
// CHECK: %[[BYTES:.*]] = vm.mul.i64 %[[BYTES4]], %{{.*}}
// CHECK: %[[OUT:.*]] = vm.call.import @hal.allocator.allocate_uninitialized(%{{.*}}, %[[BYTES]])
// CHECK: vm.call.variadic @hal.buffer_view.create(%[[OUT]], %{{.*}}, %[[BYTES]], %{{.*}}, %{{.*}}, %[[N]], %{{.*}}) segments [2]
// CHECK: vm.call.variadic @hal.command_buffer.dispatch
// CHECK: vm.export @rows {reflection = {arg0 = "?x8xf32", result0 = "?x8xf32"}}
module @dynamic {
  hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
    hal.executable.export @rows_dispatch_0_elementwise_Dx8_f32 ordinal(0) workgroup_count([64, 1, 1])
  }
  func.func @rows(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?x8xf32>
    %0 = flow.dispatch @exe::@rows_dispatch_0_elementwise_Dx8_f32(%a, %n, %n) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
    return %0 : tensor<?x8xf32>
  }
}

// -----

// A static reshape on the host is a new view of the same buffer, in the
// same group as the dispatches around it (no wait between them).
// CHECK-LABEL: vm.module @reshape
// CHECK: %[[V:.*]] = vm.call.variadic @hal.buffer_view.create
// CHECK-NOT: hal.fence.await
// CHECK: %[[B:.*]] = vm.call.import @hal.buffer_view.buffer(%[[V]])
// CHECK: vm.call.variadic @hal.buffer_view.create(%[[B]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) segments [1]
// CHECK-NOT: hal.fence.await
// CHECK: vm.call.variadic @hal.command_buffer.dispatch
// CHECK: vm.call.variadic @hal.fence.await
module @reshape {
  hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
    hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])
    hal.executable.export @d1 ordinal(1) workgroup_count([1, 1, 1])
  }
  func.func @f(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<6xf32>) {
    %0 = flow.dispatch @exe::@d0(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = tensor.collapse_shape %0 [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
    %2 = flow.dispatch @exe::@d1(%1) : (tensor<6xf32>) -> tensor<6xf32>
    return %0, %2 : tensor<2x3xf32>, tensor<6xf32>
  }
}
