// The stream schedule lowered to typed hal ops, op by op.
// RUN: strata-opt --strata-convert-stream-to-hal %s | FileCheck %s

hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @first ordinal(0) workgroup_count([4, 1, 1])
  hal.executable.export @second ordinal(1) workgroup_count([1, 2, 3])
}

// CHECK-LABEL: func.func @submission
// CHECK-SAME: (%[[T:.*]]: tensor<?x4xf32>, %[[N:.*]]: index, %[[F:.*]]: f32, %[[WAIT:.*]]: !hal.fence, %[[SIGNAL:.*]]: !hal.fence)
// The device once per function, at its entry; its allocator when needed.
// CHECK: %[[DEV:.*]] = hal.devices.get index(%{{.*}})
// CHECK-NEXT: %[[ALLOC:.*]] = hal.device.allocator device(%[[DEV]])
// CHECK: %[[SLAB:.*]] = hal.allocator.allocate_uninitialized allocator(%[[ALLOC]]) length(%{{.*}})
// CHECK: %[[TV:.*]] = hal.tensor.export %[[T]] : tensor<?x4xf32> -> !hal.buffer_view
// CHECK: %[[IN:.*]] = hal.buffer_view.buffer view(%[[TV]])
// CHECK: %[[LEN:.*]] = hal.buffer.length buffer(%[[IN]])
// CHECK: %[[W:.*]] = hal.buffer.wrap source(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>)
// CHECK: %[[OUT:.*]] = hal.allocator.allocate_uninitialized allocator(%[[ALLOC]]) length(%[[LEN]])
// CHECK: %[[VIEW:.*]] = hal.buffer_view.create buffer(%[[OUT]]) offset(%{{.*}}) length(%[[LEN]]) element_type(%{{.*}}) encoding(%{{.*}}) dims(%[[N]], %{{.*}} : index, index)
// CHECK: %[[RESULT:.*]] = hal.tensor.import %[[VIEW]] : !hal.buffer_view -> tensor<?x4xf32>{%[[N]]}
// CHECK: %[[CB:.*]] = hal.command_buffer.create device(%[[DEV]]) mode(%{{.*}}) categories(%{{.*}})
// CHECK: %[[EXE:.*]] = hal.executable.lookup @exe : !hal.executable
// The index constant goes as two 32-bit words, low first; the f32 as its bits.
// CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[HIGH:.*]] = arith.shrui %[[N64]], %{{.*}} : i64
// CHECK: %[[LO:.*]] = arith.trunci %[[N64]] : i64 to i32
// CHECK: %[[HI:.*]] = arith.trunci %[[HIGH]] : i64 to i32
// CHECK: %[[FB:.*]] = arith.bitcast %[[F]] : f32 to i32
// CHECK: hal.command_buffer.dispatch command_buffer(%[[CB]]) executable(%[[EXE]]) ordinal(%{{.*}}) x(%{{.*}}) y(%{{.*}}) z(%{{.*}}) constants(%[[LO]], %[[HI]], %[[FB]] : i32, i32, i32) bindings(%[[IN]], %{{.*}}, %[[LEN]], %[[W]], %{{.*}}, %{{.*}}, %[[SLAB]], %{{.*}}, %{{.*}} : !hal.buffer, index, index, !hal.buffer, index, index, !hal.buffer, index, index)
// CHECK-NEXT: hal.command_buffer.execution_barrier command_buffer(%[[CB]])
// CHECK: hal.command_buffer.dispatch command_buffer(%[[CB]]) executable(%[[EXE]])
// CHECK: hal.command_buffer.finalize command_buffer(%[[CB]])
// CHECK: %[[FENCE:.*]] = hal.fence.create device(%[[DEV]]) flags(%{{.*}})
// CHECK: hal.device.queue.execute device(%[[DEV]]) wait(%[[WAIT]]) signal(%[[FENCE]]) command_buffers(%[[CB]] : !hal.command_buffer)
// CHECK: hal.device.queue.barrier device(%[[DEV]]) wait(%[[FENCE]]) signal(%[[SIGNAL]])
// CHECK: hal.fence.await timeout_ms(%{{.*}}) fences(%[[FENCE]] : !hal.fence)
// CHECK: return %[[RESULT]]
func.func @submission(%t: tensor<?x4xf32>, %n: index, %f: f32, %wait: !hal.fence, %signal: !hal.fence) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %slab = stream.resource.alloca %c128 : !stream.resource
  %in = stream.tensor.import %t : tensor<?x4xf32> -> !stream.resource
  %len = stream.resource.size %in : !stream.resource
  %w = stream.resource.constant dense<[1.0, 2.0]> : tensor<2xf32> -> !stream.resource
  %out = stream.resource.alloc %len : !stream.resource
  %view = stream.tensor.export %out[%c0, %len] : !stream.resource -> tensor<?x4xf32>{%n}
  %entry = stream.timepoint.import %wait : !hal.fence
  %tp = stream.cmd.execute await(%entry) {
    stream.cmd.dispatch @exe::@first(%n, %f : index, f32) bindings(%in[%c0, %len], %w[%c0, %c8], %slab[%c0, %c8])
    stream.cmd.barrier
    stream.cmd.dispatch @exe::@second bindings(%slab[%c0, %c8], %out[%c0, %len])
  }
  stream.timepoint.chain_external await(%tp) signal(%signal)
  %ready = stream.timepoint.await %tp ready(%view : tensor<?x4xf32>)
  return %ready : tensor<?x4xf32>
}

// A dispatch whose results may be empty gets x = 0 workgroups then; an
// immediate timepoint is a reached fence; a submission without a wait has
// no wait operand.
// CHECK-LABEL: func.func @conditional
// CHECK-SAME: (%[[N:.*]]: index, %[[NONEMPTY:.*]]: i1, %[[SIGNAL:.*]]: !hal.fence)
// CHECK: %[[X:.*]] = arith.select %[[NONEMPTY]], %{{.*}}, %{{.*}} : i32
// CHECK: hal.command_buffer.dispatch command_buffer(%{{.*}}) executable(%{{.*}}) ordinal(%{{.*}}) x(%[[X]])
// CHECK: hal.device.queue.execute device(%{{.*}}) signal(%{{.*}}) command_buffers(
// CHECK: %[[NOW:.*]] = hal.fence.immediate : !hal.fence
// CHECK: hal.fence.await timeout_ms(%{{.*}}) fences(%[[NOW]] : !hal.fence)
// CHECK: hal.fence.signal fence(%[[SIGNAL]])
func.func @conditional(%n: index, %nonempty: i1, %signal: !hal.fence) {
  %c0 = arith.constant 0 : index
  %out = stream.resource.alloc %n : !stream.resource
  %tp = stream.cmd.execute {
    stream.cmd.dispatch @exe::@first bindings(%out[%c0, %n]) if(%nonempty)
  }
  %now = stream.timepoint.immediate : !stream.timepoint
  stream.timepoint.await %now
  stream.timepoint.chain_external signal(%signal)
  return
}
