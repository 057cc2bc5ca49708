// Round trip of generated opcode ops on refs, buffers, lists and globals,
// and of the debugging ops.
// RUN: strata-opt %s | strata-opt | FileCheck %s

vm.module @refs {
  vm.global.i32 mutable @counter
  vm.global.f64 mutable @total
  vm.global.ref mutable @last : !vm.buffer
  vm.rodata @table dense<[1, 2, 3, 4]> : tensor<4xi8>

  // CHECK-LABEL: vm.func @globals
  vm.func @globals(%b: !vm.buffer) {
    // CHECK: %[[C:.*]] = vm.global.load.i32 @counter
    %c = vm.global.load.i32 @counter
    // CHECK: vm.global.store.i32 %[[C]], @counter
    vm.global.store.i32 %c, @counter
    // CHECK: %[[T:.*]] = vm.global.load.f64 @total
    %t = vm.global.load.f64 @total
    // CHECK: vm.global.store.f64 %[[T]], @total
    vm.global.store.f64 %t, @total
    // CHECK: %[[L:.*]] = vm.global.load.ref @last : !vm.buffer
    %l = vm.global.load.ref @last : !vm.buffer
    // CHECK: vm.global.store.ref %[[L]], @last : !vm.buffer
    vm.global.store.ref %l, @last : !vm.buffer
    vm.return
  }

  // CHECK-LABEL: vm.func @buffers
  vm.func @buffers(%n: i64, %v: i32) -> i32 {
    // CHECK: %[[RO:.*]] = vm.const.ref.rodata @table
    %ro = vm.const.ref.rodata @table
    // CHECK: %[[B:.*]] = vm.buffer.alloc %[[N:.*]]
    %b = vm.buffer.alloc %n
    // CHECK: vm.buffer.copy %[[RO]], %[[N]], %[[B]], %[[N]], %[[N]]
    vm.buffer.copy %ro, %n, %b, %n, %n
    // CHECK: vm.buffer.fill.i16 %[[B]], %[[N]], %[[N]], %[[V:.*]]
    vm.buffer.fill.i16 %b, %n, %n, %v
    // CHECK: vm.buffer.store.i8 %[[B]], %[[N]], %[[V]]
    vm.buffer.store.i8 %b, %n, %v
    // CHECK: vm.buffer.load.i8.s %[[B]], %[[N]]
    %x = vm.buffer.load.i8.s %b, %n
    // CHECK: vm.buffer.load.f64 %[[B]], %[[N]]
    %y = vm.buffer.load.f64 %b, %n
    // CHECK: vm.buffer.length %[[B]]
    %len = vm.buffer.length %b
    // CHECK: %[[EQ:.*]] = vm.buffer.compare %[[RO]], %[[N]], %[[B]], %[[N]], %[[N]]
    %eq = vm.buffer.compare %ro, %n, %b, %n, %n
    // CHECK: vm.return %[[EQ]] : i32
    vm.return %eq : i32
  }

  // CHECK-LABEL: vm.func @lists
  // CHECK-SAME: (%[[I:.*]]: i32, %[[R:.*]]: !vm.ref<?>)
  vm.func @lists(%i: i32, %r: !vm.ref<?>) -> !vm.ref<?> {
    // CHECK: %[[L:.*]] = vm.list.alloc %[[I]]
    %l = vm.list.alloc %i
    // CHECK: vm.list.resize %[[L]], %[[I]]
    vm.list.resize %l, %i
    // CHECK: vm.list.set.i64 %[[L]], %[[I]], %{{.*}}
    %c = vm.const.i64 9
    vm.list.set.i64 %l, %i, %c
    // CHECK: vm.list.set.ref %[[L]], %[[I]], %[[R]] : !vm.ref<?>
    vm.list.set.ref %l, %i, %r : !vm.ref<?>
    // CHECK: %[[G:.*]] = vm.list.get.ref %[[L]], %[[I]] : !vm.ref<?>
    %g = vm.list.get.ref %l, %i : !vm.ref<?>
    // CHECK: vm.list.get.f32 %[[L]], %[[I]]
    %f = vm.list.get.f32 %l, %i
    // CHECK: %[[CAST:.*]] = vm.cast.ref %[[G]], !vm.buffer : !vm.ref<?>, !vm.ref<?>
    %cast = vm.cast.ref %g, !vm.buffer : !vm.ref<?>, !vm.ref<?>
    // CHECK: %[[Z:.*]] = vm.const.ref.zero : !vm.ref<?>
    %z = vm.const.ref.zero : !vm.ref<?>
    // CHECK: %[[NZ:.*]] = vm.cmp.nz.ref %[[CAST]] : !vm.ref<?>
    %nz = vm.cmp.nz.ref %cast : !vm.ref<?>
    // CHECK: %[[S:.*]] = vm.select.ref %[[NZ]], %[[CAST]], %[[Z]] : !vm.ref<?>
    %s = vm.select.ref %nz, %cast, %z : !vm.ref<?>
    // CHECK: %[[M:.*]] = vm.mov.ref %[[S]] : !vm.ref<?>
    %m = vm.mov.ref %s : !vm.ref<?>
    // CHECK: vm.return %[[M]] : !vm.ref<?>
    vm.return %m : !vm.ref<?>
  }

  // CHECK-LABEL: vm.func @debugging
  // CHECK-SAME: (%[[X:.*]]: i32, %[[B:.*]]: !vm.buffer)
  vm.func @debugging(%x: i32, %b: !vm.buffer) {
    // CHECK: vm.print "x = "(%[[X]], %[[B]] : i32, !vm.buffer)
    vm.print "x = "(%x, %b : i32, !vm.buffer)
    // CHECK: vm.trace "tick"{{$}}
    vm.trace "tick"
    // CHECK: vm.break
    vm.break
    vm.return
  }
}
