// strata-compile's phases: stop after one, go on from one.
// REQUIRES: llvm-cpu
// RUN: strata-compile --compile-to=flow %s -o %t.flow.mlir
// RUN: FileCheck %s --check-prefix=FLOW < %t.flow.mlir
// RUN: strata-compile --compile-from=flow --compile-to=stream %t.flow.mlir | FileCheck %s --check-prefix=STREAM
// RUN: strata-compile --compile-from=flow --compile-to=hal %t.flow.mlir | FileCheck %s --check-prefix=HAL
// RUN: strata-compile --compile-from=flow %t.flow.mlir -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=double --input="3xf32=1 2 3" --expected_output="3xf32=2 4 6"
// RUN: strata-compile --compile-to=input %s | FileCheck %s --check-prefix=INPUT
// RUN: not strata-compile --compile-to=bogus %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not strata-compile --compile-from=hal --compile-to=flow %s 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not strata-compile --target=gpu %s 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: strata-compile --target-triple=aarch64-linux-gnu --target-cpu=generic --compile-to=hal %s | FileCheck %s --check-prefix=AARCH64

// FLOW: func.func @double(%{{.*}}: tensor<3xf32>) -> tensor<3xf32>
// FLOW: flow.dispatch @phases_linked_llvm_cpu::@double_dispatch_0_elementwise_3_f32
// FLOW: flow.executable @phases_linked_llvm_cpu {

// STREAM: func.func @double(%[[A:.*]]: tensor<3xf32>) -> tensor<3xf32>
// STREAM: %[[IN:.*]] = stream.tensor.import %[[A]]
// STREAM: %[[TP:.*]] = stream.cmd.execute {
// STREAM-NEXT: stream.cmd.dispatch @phases_linked_llvm_cpu::@double_dispatch_0_elementwise_3_f32 bindings(%[[IN]]
// STREAM: stream.timepoint.await %[[TP]]
// STREAM-NOT: flow.dispatch
// STREAM: flow.executable @phases_linked_llvm_cpu {

// The hal phase: typed hal ops, no stream op left.
// HAL: func.func @double(%[[A:.*]]: tensor<3xf32>) -> tensor<3xf32>
// HAL: %[[DEV:.*]] = hal.devices.get index(%{{.*}})
// HAL: %[[VIEW:.*]] = hal.tensor.export %[[A]] : tensor<3xf32> -> !hal.buffer_view
// HAL: %[[IN:.*]] = hal.buffer_view.buffer view(%[[VIEW]])
// HAL: %[[CB:.*]] = hal.command_buffer.create device(%[[DEV]])
// HAL: %[[EXE:.*]] = hal.executable.lookup @phases_linked_llvm_cpu : !hal.executable
// HAL: hal.command_buffer.dispatch command_buffer(%[[CB]]) executable(%[[EXE]]) {{.*}} bindings(%[[IN]], {{.*}} : !hal.buffer, index, index, !hal.buffer, index, index)
// HAL: hal.command_buffer.finalize command_buffer(%[[CB]])
// HAL: %[[FENCE:.*]] = hal.fence.create device(%[[DEV]])
// HAL: hal.device.queue.execute device(%[[DEV]]) signal(%[[FENCE]]) command_buffers(%[[CB]] : !hal.command_buffer)
// HAL: hal.fence.await timeout_ms(%{{.*}}) fences(%[[FENCE]] : !hal.fence)
// HAL-NOT: stream.
// HAL: hal.executable @phases_linked_llvm_cpu format("embedded-elf-x86_64") data("\7FELF
// HAL-NEXT: hal.executable.export @double_dispatch_0_elementwise_3_f32 ordinal(0) workgroup_count([{{[0-9]+}}, 1, 1])
// HAL-NOT: flow.executable

// INPUT: linalg.add
// INPUT-NOT: call @

// BAD: error: --compile-to=bogus is not a phase: import, input, flow, stream, hal, vm
// ORDER: error: --compile-from=hal comes after --compile-to=flow
// TARGET: error: --target=gpu is not a target of this build; it has: llvm-cpu
// AARCH64: format("embedded-elf-aarch64")

module @phases {
  func.func @double(%a: tensor<3xf32>) -> tensor<3xf32> {
    %e = tensor.empty() : tensor<3xf32>
    %r = linalg.add ins(%a, %a : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) -> tensor<3xf32>
    return %r : tensor<3xf32>
  }
}
