// RUN: strata-opt --pass-pipeline='builtin.module(vm.module(vm.func(strata-vm-rotate-loops)))' --split-input-file %s | FileCheck %s

vm.module @rotate {
  // The header is copied into the entry and the latch: both branch to the
  // body or the exit, and the header's arguments reach them as block
  // arguments.
  // CHECK-LABEL: vm.func @count
  // CHECK-SAME: (%[[N:.*]]: i64)
  vm.func @count(%n: i64) -> i64 {
    // CHECK: %[[ZERO:.*]] = vm.const.i64 0
    // CHECK: vm.cond_br.lt.i64.s %[[ZERO]], %[[N]], ^[[BODY:bb[0-9]+]](%[[ZERO]] : i64), ^[[EXIT:bb[0-9]+]](%[[ZERO]] : i64)
    // CHECK: ^[[BODY]](%[[I:.*]]: i64):
    // CHECK: %[[NEXT:.*]] = vm.add.i64.imm %[[I]], 1
    // CHECK: vm.cond_br.lt.i64.s %[[NEXT]], %[[N]], ^[[BODY]](%[[NEXT]] : i64), ^[[EXIT]](%[[NEXT]] : i64)
    // CHECK: ^[[EXIT]](%[[R:.*]]: i64):
    // CHECK: vm.return %[[R]]
    %zero = vm.const.i64 0
    vm.br ^header(%zero : i64)
  ^header(%i: i64):
    vm.cond_br.lt.i64.s %i, %n, ^body, ^exit
  ^body:
    %next = vm.add.i64.imm %i, 1
    vm.br ^header(%next : i64)
  ^exit:
    vm.return %i : i64
  }
}

// -----

vm.module @kept {
  // A header whose own result is used outside it is not copied.
  // CHECK-LABEL: vm.func @escaping
  // CHECK: ^bb1(%{{.*}}: i64):
  // CHECK-NEXT: %[[C:.*]] = vm.cmp.lt.i64.s
  // CHECK-NEXT: vm.cond_br %[[C]]
  vm.func @escaping(%n: i64) -> i32 {
    %zero = vm.const.i64 0
    vm.br ^header(%zero : i64)
  ^header(%i: i64):
    %c = vm.cmp.lt.i64.s %i, %n
    vm.cond_br %c, ^body, ^exit
  ^body:
    %next = vm.add.i64.imm %i, 1
    vm.br ^header(%next : i64)
  ^exit:
    vm.return %c : i32
  }

  // Headers with side effects are not copied.
  // CHECK-LABEL: vm.func @effects
  // CHECK: ^bb1(%{{.*}}: i64):
  // CHECK-NEXT: vm.div.i64.s
  vm.func @effects(%n: i64) -> i64 {
    %one = vm.const.i64 1
    vm.br ^header(%one : i64)
  ^header(%i: i64):
    %q = vm.div.i64.s %n, %i
    vm.cond_br.lt.i64.s %q, %n, ^body, ^exit
  ^body:
    %next = vm.add.i64.imm %i, 1
    vm.br ^header(%next : i64)
  ^exit:
    vm.return %i : i64
  }
}
