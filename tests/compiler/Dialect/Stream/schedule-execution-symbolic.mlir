// --strata-schedule-execution with dynamic sizes: the symbolic memory plan.
// Results with dynamic sizes that only later dispatches of their block read
// live in the block's slab; their offsets, lengths and the slab's size are
// host index arithmetic, computed before the slab is made.
// RUN: strata-opt --strata-schedule-execution --split-input-file %s | FileCheck %s
// RUN: strata-opt '--strata-schedule-execution=dynamic-transients=false' --split-input-file %s | FileCheck %s --check-prefix=UNPLANNED
// RUN: strata-opt --strata-schedule-execution --strata-convert-stream-to-hal --strata-convert-to-vm --split-input-file %s | FileCheck %s --check-prefix=VM

// A chain of four transients, each read by the next dispatch only: the
// layout (sizes estimated) puts the first and third at 0 and the second
// and fourth on them, so the slab holds two, whatever n is. The length of
// each binding is 32 n bytes; the capacity is that rounded up to 64.
// CHECK-LABEL: func.func @chain(
// CHECK: %[[N:.*]] = tensor.dim
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[BYTES:.*]] = arith.muli %[[C32]], %[[N]] : index
// CHECK: %[[C63:.*]] = arith.constant 63 : index
// CHECK: %[[PADDED:.*]] = arith.addi %[[BYTES]], %[[C63]] : index
// CHECK: %[[MASK:.*]] = arith.constant -64 : index
// CHECK: %[[CAP:.*]] = arith.andi %[[PADDED]], %[[MASK]] : index
// CHECK: %[[END:.*]] = arith.addi %[[CAP]], %[[CAP]] : index
// CHECK-NOT: arith.addi
// CHECK: %[[SLAB:.*]] = stream.resource.alloca %[[END]] : !stream.resource
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// Only the last result is allocated.
// CHECK: %[[OUT:.*]] = stream.resource.alloc
// CHECK-NOT: stream.resource.alloc
// CHECK: stream.cmd.execute {
// CHECK-NEXT: stream.cmd.dispatch @exe::@d(%[[N]], %[[N]] : index, index) bindings(%{{.*}}, %[[SLAB]][%[[C0]], %[[BYTES]]])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@d({{.*}}) bindings(%[[SLAB]][%[[C0]], %[[BYTES]]], %[[SLAB]][%[[CAP]], %[[BYTES]]])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@d({{.*}}) bindings(%[[SLAB]][%[[CAP]], %[[BYTES]]], %[[SLAB]][%[[C0]], %[[BYTES]]])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@d({{.*}}) bindings(%[[SLAB]][%[[C0]], %[[BYTES]]], %[[SLAB]][%[[CAP]], %[[BYTES]]])
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@d({{.*}}) bindings(%[[SLAB]][%[[CAP]], %[[BYTES]]], %[[OUT]][
// Without the option, each result is an allocation of its own.
// UNPLANNED-LABEL: func.func @chain(
// UNPLANNED-NOT: stream.resource.alloca
// UNPLANNED-COUNT-5: stream.resource.alloc %
// UNPLANNED-NOT: stream.resource.alloca
// UNPLANNED: return
// The size reaches the allocation as an i64 the bytecode computes.
// VM-LABEL: vm.func @chain(
// VM: vm.and.i64
// VM: %[[VMEND:.*]] = vm.add.i64
// VM: vm.call.import @hal.allocator.allocate_uninitialized(%{{.*}}, %[[VMEND]])
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d ordinal(0) workgroup_count([64, 1, 1])
}
func.func @chain(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %0 = flow.dispatch @exe::@d(%a, %n, %n) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  %1 = flow.dispatch @exe::@d(%0, %n, %n) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  %2 = flow.dispatch @exe::@d(%1, %n, %n) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  %3 = flow.dispatch @exe::@d(%2, %n, %n) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  %4 = flow.dispatch @exe::@d(%3, %n, %n) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  return %4 : tensor<?x8xf32>
}

// -----

// A size computed after the first dispatch (2 n) moves before the slab,
// with its constant; the size of a result read by tensor.dim is the one its
// dispatch was given, so that result is transient too.
// CHECK-LABEL: func.func @hoisted(
// CHECK: %[[N:.*]] = tensor.dim
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[M:.*]] = arith.muli %[[N]], %[[C2]] : index
// CHECK: %[[B0:.*]] = arith.muli %{{.*}}, %[[N]] : index
// CHECK: %[[CAP0:.*]] = arith.andi
// CHECK: %[[B1:.*]] = arith.muli %{{.*}}, %[[M]] : index
// CHECK: %[[CAP1:.*]] = arith.andi
// CHECK: %[[SIZE:.*]] = arith.addi %[[CAP0]], %[[CAP1]] : index
// CHECK: %[[SLAB:.*]] = stream.resource.alloca %[[SIZE]]
// CHECK-NOT: tensor.dim
// CHECK: stream.cmd.dispatch @exe::@d(%[[N]], %[[N]] : index, index) bindings(%{{.*}}, %[[SLAB]][%{{.*}}, %[[B0]]])
// CHECK: stream.cmd.dispatch @exe::@d(%[[N]], %[[M]] : index, index) bindings(%[[SLAB]][%{{.*}}, %[[B0]]], %[[SLAB]][%[[CAP0]], %[[B1]]])
// CHECK: stream.cmd.dispatch @exe::@d(%[[M]], %[[M]] : index, index) bindings(%[[SLAB]][%[[CAP0]], %[[B1]]],
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d ordinal(0) workgroup_count([64, 1, 1])
}
func.func @hoisted(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %0 = flow.dispatch @exe::@d(%a, %n, %n) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  %c2 = arith.constant 2 : index
  %m = arith.muli %n, %c2 : index
  %1 = flow.dispatch @exe::@d(%0, %n, %m) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  %d = tensor.dim %1, %c0 : tensor<?x8xf32>
  %2 = flow.dispatch @exe::@d(%1, %d, %d) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  return %2 : tensor<?x8xf32>
}

// -----

// A static transient (400 bytes, 448 with its padding) live beside a
// dynamic one: in the layout it sits on the dynamic one (larger by the
// estimate), so its offset is the dynamic one's capacity.
// CHECK-LABEL: func.func @mixed(
// CHECK: %[[CAP:.*]] = arith.andi
// CHECK: %[[C448:.*]] = arith.constant 448 : index
// CHECK: %[[SIZE:.*]] = arith.addi %[[CAP]], %[[C448]] : index
// CHECK: %[[SLAB:.*]] = stream.resource.alloca %[[SIZE]]
// CHECK: stream.cmd.dispatch @exe::@s bindings(%[[SLAB]][%[[CAP]], %{{.*}}])
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d ordinal(0) workgroup_count([64, 1, 1])
  hal.executable.export @s ordinal(1) workgroup_count([1, 1, 1])
}
func.func @mixed(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %s = flow.dispatch @exe::@s() : () -> tensor<100xf32>
  %0 = flow.dispatch @exe::@d(%a, %s, %n, %n) : (tensor<?x8xf32>, tensor<100xf32>, index, index) -> tensor<?x8xf32>
  %1 = flow.dispatch @exe::@d(%0, %s, %n, %n) : (tensor<?x8xf32>, tensor<100xf32>, index, index) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// A size read back from the device (a count) is not known where the slab
// would be made: the results it sizes get allocations of their own.
// CHECK-LABEL: func.func @readBack(
// CHECK-NOT: stream.resource.alloca
// CHECK: tensor.extract
// CHECK: %[[K:.*]] = arith.index_cast
// CHECK-NOT: stream.resource.alloca
// CHECK-COUNT-2: stream.resource.alloc %
// CHECK-NOT: stream.resource.alloca
// CHECK: return
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d ordinal(0) workgroup_count([64, 1, 1])
  hal.executable.export @count ordinal(1) workgroup_count([1, 1, 1])
}
func.func @readBack(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %k = flow.dispatch @exe::@count(%a, %n) : (tensor<?x8xf32>, index) -> tensor<1xi64>
  %k0 = tensor.extract %k[%c0] : tensor<1xi64>
  %ki = arith.index_cast %k0 : i64 to index
  %0 = flow.dispatch @exe::@d(%a, %n, %ki) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  %1 = flow.dispatch @exe::@d(%0, %ki, %ki) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// A loop body's transients (static) take one place of the function's slab,
// beside dynamic transients before and after the loop that it may share
// bytes with: the slab is the largest of the three.
// CHECK-LABEL: func.func @loop(
// CHECK: %[[CAP:.*]] = arith.andi
// CHECK: %[[C448:.*]] = arith.constant 448 : index
// CHECK: %[[SIZE:.*]] = arith.maxui %[[CAP]], %[[C448]] : index
// CHECK: %[[SLAB:.*]] = stream.resource.alloca %[[SIZE]]
// CHECK: scf.for
// CHECK: stream.cmd.dispatch @exe::@s bindings(%[[SLAB]][%{{.*}}, %{{.*}}])
// CHECK: scf.yield
// CHECK: stream.cmd.dispatch @exe::@d({{.*}}) bindings(%[[SLAB]][%{{.*}}, %{{.*}}], %{{.*}})
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d ordinal(0) workgroup_count([64, 1, 1])
  hal.executable.export @s ordinal(1) workgroup_count([1, 1, 1])
}
func.func @loop(%a: tensor<?x8xf32>, %steps: index) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %0 = flow.dispatch @exe::@d(%a, %n, %n) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  %1 = flow.dispatch @exe::@d(%0, %n, %n) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  %r = scf.for %i = %c0 to %steps step %c1 iter_args(%x = %1) -> tensor<?x8xf32> {
    %s = flow.dispatch @exe::@s() : () -> tensor<100xf32>
    %y = flow.dispatch @exe::@d(%x, %s, %n, %n) : (tensor<?x8xf32>, tensor<100xf32>, index, index) -> tensor<?x8xf32>
    scf.yield %y : tensor<?x8xf32>
  }
  %2 = flow.dispatch @exe::@d(%r, %n, %n) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  %3 = flow.dispatch @exe::@d(%2, %n, %n) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  return %3 : tensor<?x8xf32>
}

// -----

// A result read through reshapes, whose sizes the host reads with tensor.dim
// of the views: those are the sizes the dispatch was given (8 n elements),
// so the result is transient. The size of the next transient is inferred
// by a division after a check (a reshape's -1): the ops that compute it are
// cloned before the slab, dividing by max(divisor, 1), and the originals
// stay after the check for the dispatch. The check reads host values only:
// the three dispatches are one submission, which goes after it.
// CHECK-LABEL: func.func @views(
// CHECK: %[[N:.*]] = tensor.dim
// CHECK: %[[TOTAL:.*]] = arith.muli %[[N]], %{{.*}} : index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[SAFE:.*]] = arith.maxui %[[N]], %[[ONE]] : index
// CHECK: %[[M:.*]] = arith.divui %[[TOTAL]], %[[SAFE]] : index
// CHECK: arith.muli %{{.*}}, %[[M]] : index
// CHECK: %[[SLAB:.*]] = stream.resource.alloca
// CHECK-NOT: tensor.dim
// CHECK: cf.assert
// CHECK: %[[MORIG:.*]] = arith.divui %{{.*}}, %[[N]] : index
// CHECK: stream.cmd.execute {
// CHECK-NEXT: stream.cmd.dispatch @exe::@d
// CHECK-NEXT: stream.cmd.barrier
// CHECK-NEXT: stream.cmd.dispatch @exe::@r(%{{.*}}, %[[MORIG]] : index, index) bindings(%[[SLAB]][%{{.*}}], %[[SLAB]][%{{.*}}])
// CHECK: return
hal.executable @exe format("embedded-elf-x86_64") data("\7FELF") {
  hal.executable.export @d ordinal(0) workgroup_count([64, 1, 1])
  hal.executable.export @r ordinal(1) workgroup_count([64, 1, 1])
}
func.func @views(%a: tensor<?x8xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %0 = flow.dispatch @exe::@d(%a, %n, %n) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
  %flat = tensor.collapse_shape %0 [[0, 1]] : tensor<?x8xf32> into tensor<?xf32>
  %total = tensor.dim %flat, %c0 : tensor<?xf32>
  %c4 = arith.constant 4 : index
  %ok = arith.cmpi ne, %total, %c0 : index
  cf.assert %ok, "the reshape needs elements"
  %rows = arith.divui %total, %c4 : index
  %m = arith.divui %total, %n : index
  %v = tensor.expand_shape %flat [[0, 1]] output_shape [%rows, 4] : tensor<?xf32> into tensor<?x4xf32>
  %1 = flow.dispatch @exe::@r(%v, %rows, %m) : (tensor<?x4xf32>, index, index) -> tensor<?x4xf32>
  %2 = flow.dispatch @exe::@r(%1, %m, %m) : (tensor<?x4xf32>, index, index) -> tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}
