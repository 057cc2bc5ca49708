// Constants fold, so --canonicalize hoists and merges equal ones and drops
// unused pure ops.
// RUN: strata-opt --canonicalize %s | FileCheck %s

vm.module @fold {
  // CHECK-LABEL: vm.func @merge_constants
  vm.func @merge_constants(%x: i32) -> (i32, i32) {
    // CHECK-NEXT: %[[C:.*]] = vm.const.i32 3
    // CHECK-NEXT: %[[A:.*]] = vm.add.i32 %{{.*}}, %[[C]]
    // CHECK-NEXT: %[[B:.*]] = vm.mul.i32 %[[A]], %[[C]]
    // CHECK-NEXT: vm.return %[[A]], %[[B]] : i32, i32
    %c0 = vm.const.i32 3
    %a = vm.add.i32 %x, %c0
    %c1 = vm.const.i32 3
    %b = vm.mul.i32 %a, %c1
    %c2 = vm.const.f32 1.0
    %dead = vm.sub.f32 %c2, %c2
    vm.return %a, %b : i32, i32
  }

  // Integer division may fail at run time, so it stays even when unused.
  // CHECK-LABEL: vm.func @keep_trapping
  vm.func @keep_trapping(%x: i32) {
    // CHECK: vm.div.i32.s
    %0 = vm.div.i32.s %x, %x
    vm.return
  }
}
