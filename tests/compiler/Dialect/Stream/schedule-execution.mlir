// --strata-schedule-execution: dispatch calls into submissions, barriers,
// transient slabs and timepoints.
// RUN: strata-opt --strata-schedule-execution --split-input-file %s | FileCheck %s
// RUN: strata-opt '--strata-schedule-execution=async-exports=true' --split-input-file %s | FileCheck %s --check-prefix=ASYNC

// Consecutive dispatches are one submission. A dispatch that reads an
// earlier one's result comes after a barrier; a result only the group's
// dispatches read lives in the group's transient slab and has no host
// tensor. Any other use of a tensor (a call) ends the group, after the
// host awaits the results it reads.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>)
// CHECK: %[[SLAB_SIZE:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[SLAB:.*]] = stream.resource.alloca %[[SLAB_SIZE]] : !stream.resource
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[IN:.*]] = stream.tensor.import %[[A]] : tensor<4xf32> -> !stream.resource
// CHECK: %[[OUT1:.*]] = stream.resource.alloc %[[C16]] : !stream.resource
// CHECK: stream.tensor.export %[[OUT1]][%[[C0]], %[[C16]]] : !stream.resource -> tensor<4xf32>
// CHECK: %[[IN2:.*]] = stream.tensor.import %[[A]]
// CHECK: %[[OUT2:.*]] = stream.resource.alloc %[[C16]]
// CHECK: %[[V2:.*]] = stream.tensor.export %[[OUT2]][%[[C0]], %[[C16]]]
// CHECK-NOT: stream.tensor.export
// CHECK: %[[TP:.*]] = stream.cmd.execute {
// CHECK-NEXT: stream.cmd.dispatch @exe::@d0 bindings(%[[IN]][%[[C0]], %[[C16]]], %[[SLAB]][%[[C0]], %[[C16]]])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@d1 bindings(%[[SLAB]][%[[C0]], %[[C16]]], %[[OUT1]][%[[C0]], %[[C16]]])
// CHECK-NEXT: stream.cmd.dispatch @exe::@d0 bindings(%[[IN2]][%[[C0]], %[[C16]]], %[[OUT2]][%[[C0]], %[[C16]]])
// CHECK-NEXT: }
// CHECK-NEXT: %[[READY:.*]] = stream.timepoint.await %[[TP]] ready(%[[V2]] : tensor<4xf32>)
// CHECK-NEXT: %[[KEPT:.*]] = call @keep(%[[READY]])
// CHECK: stream.tensor.import %[[KEPT]]
// CHECK: %[[TP2:.*]] = stream.cmd.execute {
// CHECK: %[[LAST:.*]] = stream.timepoint.await %[[TP2]] ready(
// CHECK-NEXT: return %[[LAST]]
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])
  hal.executable.export @d1 ordinal(1) workgroup_count([1, 1, 1])
}
func.func @chain(%a: tensor<4xf32>) -> tensor<4xf32> {
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

// -----

// Two transient results share the slab at 64-byte aligned offsets; the
// dispatch that reads both comes after a barrier. Dispatches that read
// nothing of each other's run side by side.
// CHECK-LABEL: func.func @slab(
// CHECK: %[[SLAB_SIZE:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[SLAB:.*]] = stream.resource.alloca %[[SLAB_SIZE]] : !stream.resource
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: stream.cmd.execute
// CHECK-NEXT: stream.cmd.dispatch @exe::@d0 bindings(%{{.*}}, %[[SLAB]][%[[C0]], %[[C16]]])
// CHECK-NEXT: stream.cmd.dispatch @exe::@d0 bindings(%{{.*}}, %[[SLAB]][%[[C64]], %[[C16]]])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@d2 bindings(%[[SLAB]][%[[C0]], %[[C16]]], %[[SLAB]][%[[C64]], %[[C16]]], %{{.*}})
// CHECK-NEXT: }
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])
  hal.executable.export @d2 ordinal(1) workgroup_count([1, 1, 1])
}
func.func @slab(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = flow.dispatch @exe::@d2(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// A dispatch that reads an earlier one's result through a reshape (a view
// of the same memory on the host) also comes after a barrier; without one,
// local-task ran the two side by side (conv-im2col's im2col and matmul
// gave wrong sums). The result is transient all the same: the reshape is
// only a view, so both dispatches bind the same slab bytes and the
// reshape goes away.
// CHECK-LABEL: func.func @reshaped(
// CHECK: %[[SLAB_SIZE:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[SLAB:.*]] = stream.resource.alloca %[[SLAB_SIZE]]
// CHECK-NOT: tensor.expand_shape
// CHECK: stream.cmd.execute
// CHECK-NEXT: stream.cmd.dispatch @exe::@d0 bindings(%{{.*}}, %[[SLAB]][%[[C0:.*]], %[[C16:.*]]])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@d1 bindings(%[[SLAB]][%[[C0]], %[[C16]]], %{{.*}})
// CHECK-NEXT: }
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])
  hal.executable.export @d1 ordinal(1) workgroup_count([1, 1, 1])
}
func.func @reshaped(%a: tensor<4xf32>) -> tensor<2x2xf32> {
  %0 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tensor.expand_shape %0 [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  %2 = flow.dispatch @exe::@d1(%1) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %2 : tensor<2x2xf32>
}

// -----

// The slab serves every group of a block: a result that only dispatches of
// a later group read (%2) lives in it across the host's read of another
// result (%1, allocated and exported), and the later group binds it in
// place: never exported, never imported. Results of different groups share
// bytes: %3 is written after %0's last reader finished (the second group
// waits for the first), so both sit at offset 0 and the slab holds two
// results, not three.
// CHECK-LABEL: func.func @acrossGroups(
// CHECK: %[[SLAB_SIZE:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[SLAB:.*]] = stream.resource.alloca %[[SLAB_SIZE]] : !stream.resource
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[OUT1:.*]] = stream.resource.alloc
// CHECK: stream.cmd.execute
// CHECK-NEXT: stream.cmd.dispatch @exe::@d0 bindings(%{{.*}}, %[[SLAB]][%[[C0]], %[[C16]]])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@d2 bindings(%[[SLAB]][%[[C0]], %[[C16]]], %{{.*}}, %[[OUT1]][%[[C0]], %[[C16]]])
// CHECK-NEXT: stream.cmd.dispatch @exe::@d0 bindings(%{{.*}}, %[[SLAB]][%[[C64]], %[[C16]]])
// CHECK-NEXT: }
// CHECK: stream.timepoint.await
// CHECK: tensor.extract
// CHECK-NOT: stream.resource.alloca
// CHECK: stream.cmd.execute
// CHECK-NEXT: stream.cmd.dispatch @exe::@d0 bindings(%{{.*}}, %[[SLAB]][%c0{{[_0-9]*}}, %c16{{[_0-9]*}}])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@d2 bindings(%[[SLAB]][%c64{{[_0-9]*}}, %c16{{[_0-9]*}}], %[[SLAB]][%c0{{[_0-9]*}}, %c16{{[_0-9]*}}], %{{.*}})
// CHECK-NEXT: }
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])
  hal.executable.export @d2 ordinal(1) workgroup_count([1, 1, 1])
}
func.func @acrossGroups(%a: tensor<4xf32>) -> (tensor<4xf32>, f32) {
  %0 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = flow.dispatch @exe::@d2(%0, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %c0 = arith.constant 0 : index
  %x = tensor.extract %1[%c0] : tensor<4xf32>
  %3 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = flow.dispatch @exe::@d2(%2, %3) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %4, %x : tensor<4xf32>, f32
}

// -----

// A loop's body keeps its transients in the function's slab: the body's
// room (64 bytes) is placed like one result whose life is the loop, clear
// of %0 (read after the loop) but sharing bytes with %p (whose last
// reader ran before it): three parts in a 128-byte slab allocated once,
// outside the loop. The body binds its result at the room's offset.
// CHECK-LABEL: func.func @loopBody(
// CHECK: %[[SLAB_SIZE:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[SLAB:.*]] = stream.resource.alloca %[[SLAB_SIZE]] : !stream.resource
// CHECK: stream.cmd.execute
// CHECK-NEXT: stream.cmd.dispatch @exe::@d0 bindings(%{{.*}}, %[[SLAB]][%c64{{[_0-9]*}}, %c16{{[_0-9]*}}])
// CHECK-NEXT: stream.cmd.dispatch @exe::@d0 bindings(%{{.*}}, %[[SLAB]][%c0{{[_0-9]*}}, %c16{{[_0-9]*}}])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@d2 bindings(%[[SLAB]][%c0{{[_0-9]*}}, %c16{{[_0-9]*}}], %{{.*}}, %{{.*}})
// CHECK: scf.for
// CHECK-NOT: stream.resource.alloca
// CHECK: stream.cmd.execute
// CHECK-NEXT: stream.cmd.dispatch @exe::@d0 bindings(%{{.*}}, %[[SLAB]][%c0{{[_0-9]*}}, %c16{{[_0-9]*}}])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@d2 bindings(%[[SLAB]][%c0{{[_0-9]*}}, %c16{{[_0-9]*}}], %{{.*}}, %{{.*}})
// CHECK: scf.yield
// CHECK: stream.cmd.execute
// CHECK-NEXT: stream.cmd.dispatch @exe::@d2 bindings(%[[SLAB]][%c64{{[_0-9]*}}, %c16{{[_0-9]*}}], %{{.*}}, %{{.*}})
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])
  hal.executable.export @d2 ordinal(1) workgroup_count([1, 1, 1])
}
func.func @loopBody(%a: tensor<4xf32>, %n: index) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %p = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %q = flow.dispatch @exe::@d2(%p, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<4xf32>) {
    %1 = flow.dispatch @exe::@d0(%acc) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = flow.dispatch @exe::@d2(%1, %acc) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    scf.yield %2 : tensor<4xf32>
  }
  %3 = flow.dispatch @exe::@d2(%0, %r) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %3, %q : tensor<4xf32>, tensor<4xf32>
}

// -----

// A view the host reads too (here: returns) keeps its result out of the
// slab: the result is allocated and exported, and the reshape stays.
// CHECK-LABEL: func.func @reshapedAndReturned(
// CHECK-NOT: stream.resource.alloca
// CHECK: %[[V0:.*]] = stream.tensor.export
// CHECK: %[[R:.*]] = tensor.expand_shape %[[V0]]
// CHECK: stream.tensor.import %[[R]]
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])
  hal.executable.export @d1 ordinal(1) workgroup_count([1, 1, 1])
}
func.func @reshapedAndReturned(%a: tensor<4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tensor.expand_shape %0 [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  %2 = flow.dispatch @exe::@d1(%1) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %1, %2 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// Groups chain: host work that does not touch tensors (a call with
// effects) ends a group without a wait; the next submission awaits the
// first's timepoint, and the host awaits only the last one, before the
// return, for both results.
// CHECK-LABEL: func.func @timepoints(
// CHECK: %[[TP1:.*]] = stream.cmd.execute {
// CHECK-NOT: stream.timepoint.await
// CHECK: call @clock.tick
// CHECK: %[[TP2:.*]] = stream.cmd.execute await(%[[TP1]]) {
// CHECK-NOT: stream.timepoint.await %[[TP1]]
// CHECK: %[[READY:.*]]:2 = stream.timepoint.await %[[TP2]] ready(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: return %[[READY]]#0, %[[READY]]#1, %{{.*}}
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])
  hal.executable.export @d1 ordinal(1) workgroup_count([1, 1, 1])
}
func.func @timepoints(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, i32) {
  %0 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %t = call @clock.tick() : () -> i32
  %1 = flow.dispatch @exe::@d1(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %t : tensor<4xf32>, tensor<4xf32>, i32
}
func.func private @clock.tick() -> i32

// -----

// Dynamic dimensions: the input's length is read from its resource, the
// result is allocated by the size the dispatch is given (its last
// operand), and the sizes are push constants. The dispatch runs only when
// its result has elements.
// CHECK-LABEL: func.func @rows(
// CHECK-SAME: %[[A:.*]]: tensor<?x8xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[A]]
// CHECK: %[[IN:.*]] = stream.tensor.import %[[A]]
// CHECK: %[[LEN:.*]] = stream.resource.size %[[IN]]
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi ne, %[[N]], %{{.*}} : index
// CHECK: %[[BYTES4:.*]] = arith.muli %{{.*}}, %[[N]] : index
// CHECK: %[[BYTES:.*]] = arith.muli %[[BYTES4]], %{{.*}} : index
// CHECK: %[[OUT:.*]] = stream.resource.alloc %[[BYTES]]
// CHECK: %[[VIEW:.*]] = stream.tensor.export %[[OUT]][%{{.*}}, %[[BYTES]]] : !stream.resource -> tensor<?x8xf32>{%[[N]]}
// CHECK: stream.cmd.dispatch @exe::@rows_d(%[[N]], %[[N]] : index, index) bindings(%[[IN]][%{{.*}}, %[[LEN]]], %[[OUT]][%{{.*}}, %[[BYTES]]]) if(%[[NONEMPTY]])
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @rows_d ordinal(0) workgroup_count([64, 1, 1])
}
func.func @rows(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %0 = flow.dispatch @exe::@rows_d(%a, %n, %n) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// A check of dynamic dimensions between two dispatches (the equalities a
// graph implies) does not split their submission: it reads host values
// only, and the one submission goes after it, so it still runs before the
// dispatch it guards.
// CHECK-LABEL: func.func @checked(
// CHECK-SAME: %[[A:.*]]: tensor<?x8xf32>, %[[B:.*]]: tensor<?x8xf32>)
// CHECK: util.assert_eq
// CHECK-NOT: stream.timepoint.await
// CHECK: stream.cmd.execute {
// CHECK-NEXT: stream.cmd.dispatch @exe::@rows_d
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@add_d
// CHECK-NEXT: }
// CHECK-NOT: stream.cmd.execute
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @rows_d ordinal(0) workgroup_count([64, 1, 1])
  hal.executable.export @add_d ordinal(1) workgroup_count([64, 1, 1])
}
func.func @checked(%a: tensor<?x8xf32>, %b: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %0 = flow.dispatch @exe::@rows_d(%a, %n, %n) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  %m = tensor.dim %b, %c0 : tensor<?x8xf32>
  util.assert_eq %m, %n, "dimension 0 of operand 1 is {0}, of operand 0 {1}" : index
  %1 = flow.dispatch @exe::@add_d(%0, %b, %n, %n) : (tensor<?x8xf32>, tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// Results empty whatever the sizes: a dispatch whose results are all
// statically empty is not recorded; one with a dynamic result besides runs
// when that result has elements (both dimensions non-zero).
// CHECK-LABEL: func.func @empties(
// CHECK-SAME: %[[A:.*]]: tensor<?x?xf32>, %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[MNZ:.*]] = arith.cmpi ne, %[[M]], %{{.*}} : index
// CHECK: %[[NNZ:.*]] = arith.cmpi ne, %[[N]], %{{.*}} : index
// CHECK: %[[BOTH:.*]] = arith.andi %[[MNZ]], %[[NNZ]] : i1
// CHECK: stream.cmd.execute
// CHECK-NOT: @exe::@empty_d
// CHECK: stream.cmd.dispatch @exe::@mixed_d(%[[M]], %[[M]], %[[N]] : index, index, index) bindings({{.*}}) if(%[[BOTH]])
// CHECK-NEXT: }
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @empty_d ordinal(0) workgroup_count([1, 1, 1])
  hal.executable.export @mixed_d ordinal(1) workgroup_count([64, 1, 1])
}
func.func @empties(%a: tensor<?x?xf32>, %m: index, %n: index) -> (tensor<0x4xf32>, tensor<?x0xf32>, tensor<?x?xf32>) {
  %0 = flow.dispatch @exe::@empty_d(%a, %m) : (tensor<?x?xf32>, index) -> tensor<0x4xf32>
  %1 = flow.dispatch @exe::@empty_d(%a, %m) : (tensor<?x?xf32>, index) -> tensor<?x0xf32>
  %2:2 = flow.dispatch @exe::@mixed_d(%a, %m, %m, %n) : (tensor<?x?xf32>, index, index, index) -> (tensor<?x0xf32>, tensor<?x?xf32>)
  return %0, %1, %2#1 : tensor<0x4xf32>, tensor<?x0xf32>, tensor<?x?xf32>
}

// -----

// The async twin awaits its wait fence in its first submission and chains
// its work to the signal fence at the return, without waiting; a
// read-back awaits the wait fence on the host first, and the signal fence
// is then signaled at once.
// ASYNC-LABEL: func.func @f(
// ASYNC-NOT: stream.timepoint.import
// ASYNC: stream.timepoint.await
// ASYNC-LABEL: func.func @f$async(
// ASYNC-SAME: %[[A:.*]]: tensor<4xf32>, %[[WAIT:.*]]: !hal.fence, %[[SIGNAL:.*]]: !hal.fence)
// ASYNC: %[[ENTRY:.*]] = stream.timepoint.import %[[WAIT]] : !hal.fence
// ASYNC: %[[TP:.*]] = stream.cmd.execute await(%[[ENTRY]]) {
// ASYNC-NOT: stream.timepoint.await
// ASYNC: stream.timepoint.chain_external await(%[[TP]]) signal(%[[SIGNAL]])
// ASYNC-NEXT: return
// ASYNC-LABEL: func.func @read$async(
// ASYNC-SAME: %{{.*}}: tensor<4xi32>, %[[WAIT2:.*]]: !hal.fence, %[[SIGNAL2:.*]]: !hal.fence)
// ASYNC: %[[ENTRY2:.*]] = stream.timepoint.import %[[WAIT2]]
// ASYNC: stream.timepoint.await %[[ENTRY2]]
// ASYNC-NEXT: tensor.extract
// ASYNC: stream.timepoint.chain_external signal(%[[SIGNAL2]])
// ASYNC-NEXT: return
// ASYNC-NOT: @scalar$async
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

// -----

// A constant tensor a dispatch reads is a constant resource, bound in
// place; one the host keeps (returned) is a view of a constant resource.
// CHECK-LABEL: func.func @weights(
// CHECK: %[[KEPT:.*]] = stream.resource.constant dense<4.000000e+00> : tensor<80xf32> -> !stream.resource
// CHECK: %[[VIEW:.*]] = stream.tensor.export %[[KEPT]][%{{.*}}, %{{.*}}] : !stream.resource -> tensor<80xf32>
// CHECK: %[[W:.*]] = stream.resource.constant dense<3.000000e+00> : tensor<80xf32> -> !stream.resource
// CHECK: stream.cmd.dispatch @exe::@add bindings(%{{.*}}, %[[W]][%{{.*}}, %{{.*}}], %{{.*}})
// CHECK-NOT: arith.constant dense
// CHECK: return %{{.*}}, %[[VIEW]]
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @add ordinal(0) workgroup_count([1, 1, 1])
}
func.func @weights(%x: tensor<80xf32>) -> (tensor<80xf32>, tensor<80xf32>) {
  %w = arith.constant dense<3.0> : tensor<80xf32>
  %k = arith.constant dense<4.0> : tensor<80xf32>
  %0 = flow.dispatch @exe::@add(%x, %w) : (tensor<80xf32>, tensor<80xf32>) -> tensor<80xf32>
  return %0, %k : tensor<80xf32>, tensor<80xf32>
}

// -----

// The await returns the pending tensors and the views of them made before
// it (an optimization barrier is the identity); a reshape after it reads
// the awaited tensor.
// CHECK-LABEL: func.func @views(
// CHECK: %[[V:.*]] = stream.tensor.export
// CHECK: %[[TP:.*]] = stream.cmd.execute
// CHECK: %[[B:.*]] = util.optimization_barrier %[[V]] : tensor<4xf32>
// CHECK: %[[READY:.*]]:2 = stream.timepoint.await %[[TP]] ready(%[[V]], %[[B]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: %[[E:.*]] = tensor.extract %[[READY]]#1
// CHECK-NEXT: %[[R:.*]] = tensor.expand_shape %[[READY]]#0
// CHECK-NEXT: return %[[E]], %[[R]], %[[READY]]#1
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])
}
func.func @views(%a: tensor<4xf32>) -> (f32, tensor<2x2xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %0 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %b = util.optimization_barrier %0 : tensor<4xf32>
  %v = tensor.extract %b[%c0] : tensor<4xf32>
  %r = tensor.expand_shape %0 [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  return %v, %r, %b : f32, tensor<2x2xf32>, tensor<4xf32>
}

// -----

// Transient places are sized by lifetime: the third result takes the place
// of the first, whose last reader (the second dispatch) a barrier separates
// from the third dispatch; the second result cannot (its reader is the
// third dispatch), so the slab holds two places, not three.
// CHECK-LABEL: func.func @lifetimes(
// CHECK: %[[SLAB_SIZE:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[SLAB:.*]] = stream.resource.alloca %[[SLAB_SIZE]] : !stream.resource
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: stream.cmd.execute
// CHECK-NEXT: stream.cmd.dispatch @exe::@d0 bindings(%{{.*}}, %[[SLAB]][%[[C0]], %[[C16]]])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@d1 bindings(%[[SLAB]][%[[C0]], %[[C16]]], %[[SLAB]][%[[C64]], %[[C16]]])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@d1 bindings(%[[SLAB]][%[[C64]], %[[C16]]], %[[SLAB]][%[[C0]], %[[C16]]])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@d1 bindings(%[[SLAB]][%[[C0]], %[[C16]]], %{{.*}})
// CHECK-NEXT: }
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d0 ordinal(0) workgroup_count([1, 1, 1])
  hal.executable.export @d1 ordinal(1) workgroup_count([1, 1, 1])
}
func.func @lifetimes(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = flow.dispatch @exe::@d0(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = flow.dispatch @exe::@d1(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = flow.dispatch @exe::@d1(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = flow.dispatch @exe::@d1(%2) : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// Places are chosen greedily by size: the 4 KiB result of @grow (t2)
// takes offset 0 first; t0 shares it (t0's reader is done before @grow
// writes), t1 and t3 go to 4096, each beside the results it lives with.
// 5 KiB in all; placing in order of definition needed 6 KiB (t2 found no
// free place large enough and went after t0 and t1).
// CHECK-LABEL: func.func @by_size(
// CHECK: %[[SLAB_SIZE:.*]] = arith.constant 5120 : index
// CHECK-NEXT: %[[SLAB:.*]] = stream.resource.alloca %[[SLAB_SIZE]] : !stream.resource
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4096:.*]] = arith.constant 4096 : index
// CHECK-DAG: %[[C1024:.*]] = arith.constant 1024 : index
// CHECK: stream.cmd.execute
// CHECK-NEXT: stream.cmd.dispatch @exe::@small bindings({{.*}}, %[[SLAB]][%[[C0]], %[[C1024]]])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@small bindings(%[[SLAB]][%[[C0]], %[[C1024]]], %[[SLAB]][%[[C4096]], %[[C1024]]])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@grow bindings(%[[SLAB]][%[[C4096]], %[[C1024]]], %[[SLAB]][%[[C0]], %[[C4096]]])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@shrink bindings(%[[SLAB]][%[[C0]], %[[C4096]]], %[[SLAB]][%[[C4096]], %[[C1024]]])
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @small ordinal(0) workgroup_count([1, 1, 1])
  hal.executable.export @grow ordinal(1) workgroup_count([1, 1, 1])
  hal.executable.export @shrink ordinal(2) workgroup_count([1, 1, 1])
}
func.func @by_size(%a: tensor<256xf32>) -> tensor<256xf32> {
  %t0 = flow.dispatch @exe::@small(%a) : (tensor<256xf32>) -> tensor<256xf32>
  %t1 = flow.dispatch @exe::@small(%t0) : (tensor<256xf32>) -> tensor<256xf32>
  %t2 = flow.dispatch @exe::@grow(%t1) : (tensor<256xf32>) -> tensor<1024xf32>
  %t3 = flow.dispatch @exe::@shrink(%t2) : (tensor<1024xf32>) -> tensor<256xf32>
  %r = flow.dispatch @exe::@small(%t3) : (tensor<256xf32>) -> tensor<256xf32>
  return %r : tensor<256xf32>
}
