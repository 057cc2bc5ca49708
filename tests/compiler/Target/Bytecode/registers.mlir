// Register allocation and remaps, checked in the disassembly and by running
// the module.
// RUN: strata-compile --compile-mode=vm %s -o %t.vmfb
// RUN: strata-dump %t.vmfb | FileCheck %s
// RUN: strata-run --module=%t.vmfb --function=swap --input=i32=1 --input=i32=2 --input=i32=3 | FileCheck %s --check-prefix=SWAP3
// RUN: strata-run --module=%t.vmfb --function=swap --input=i32=1 --input=i32=2 --input=i32=4 | FileCheck %s --check-prefix=SWAP4
// RUN: strata-run --module=%t.vmfb --function=swap_refs --input=i32=3 | FileCheck %s --check-prefix=REFS3
// RUN: strata-run --module=%t.vmfb --function=swap_refs --input=i32=4 | FileCheck %s --check-prefix=REFS4
// RUN: strata-run --module=%t.vmfb --function=loop --input=i64=1000 | FileCheck %s --check-prefix=LOOP
// SWAP3: i32=2
// SWAP4: i32=1
// REFS3: i64=20
// REFS4: i64=10
// LOOP: i64=501497

vm.module @registers {
  // Arguments arrive in registers 0.. of their bank; the loop's block
  // arguments share registers with the values the latch passes, so the back
  // edge has no remap.
  // CHECK-LABEL: func @loop 0I_I
  // CHECK: rem.i64.s
  // CHECK-NEXT: add.i64
  // CHECK-NEXT: br ^bb1 loc(
  vm.func @loop(%n: i64) -> i64 {
    %zero = vm.const.i64 0
    %one = vm.const.i64 1
    %three = vm.const.i64 3
    %m = vm.const.i64 1000003
    %ub = vm.add.i64 %n, %one
    vm.br ^header(%one, %zero : i64, i64)
  ^header(%i: i64, %s: i64):
    %c = vm.cmp.lt.i64.s %i, %ub
    vm.cond_br %c, ^body, ^exit
  ^body:
    %t = vm.mul.i64 %i, %three
    %u = vm.add.i64 %s, %t
    %s2 = vm.rem.i64.s %u, %m
    %i2 = vm.add.i64 %i, %one
    vm.br ^header(%i2, %s2 : i64, i64)
  ^exit:
    vm.return %s : i64
  }
  vm.export @loop

  // Swapping two block arguments is a copy cycle: one value is saved in a
  // scratch register first.
  // CHECK-LABEL: func @swap 0iii_i
  // CHECK: br ^bb1(%i[[Y:[0-9]+]] -> %i[[T:[0-9]+]], %i[[X:[0-9]+]] -> %i[[Y]], %i[[T]] -> %i[[X]])
  vm.func @swap(%a: i32, %b: i32, %n: i32) -> i32 {
    vm.br ^loop(%a, %b, %n : i32, i32, i32)
  ^loop(%x: i32, %y: i32, %k: i32):
    %c = vm.cmp.nz.i32 %k
    vm.cond_br %c, ^body, ^exit
  ^body:
    %minus1 = vm.const.i32 -1
    %k2 = vm.add.i32 %k, %minus1
    vm.br ^loop(%y, %x, %k2 : i32, i32, i32)
  ^exit:
    vm.return %x : i32
  }
  vm.export @swap

  // The same with refs: the copies move their references (no retain and
  // release), and the last use of each buffer moves it.
  // CHECK-LABEL: func @swap_refs 0i_I
  // CHECK: br ^bb1(%r[[Y:[0-9]+]]<move> -> %r[[T:[0-9]+]], %r[[X:[0-9]+]]<move> -> %r[[Y]], %r[[T]]<move> -> %r[[X]])
  // CHECK: buffer.length %r{{[0-9]+}}<move>
  vm.func @swap_refs(%n: i32) -> i64 {
    %ten = vm.const.i64 10
    %twenty = vm.const.i64 20
    %a = vm.buffer.alloc %ten
    %b = vm.buffer.alloc %twenty
    vm.br ^loop(%a, %b, %n : !vm.buffer, !vm.buffer, i32)
  ^loop(%x: !vm.buffer, %y: !vm.buffer, %k: i32):
    %c = vm.cmp.nz.i32 %k
    vm.cond_br %c, ^body, ^exit
  ^body:
    %minus1 = vm.const.i32 -1
    %k2 = vm.add.i32 %k, %minus1
    vm.br ^loop(%y, %x, %k2 : !vm.buffer, !vm.buffer, i32)
  ^exit:
    %length = vm.buffer.length %x
    vm.return %length : i64
  }
  vm.export @swap_refs

  // A ref read twice is retained by the first read and moved by the last.
  // CHECK-LABEL: func @twice 0r_ir
  // CHECK: cmp.eq.ref %r0, %r0, %i0
  // CHECK: return (%i0, %r0<move>)
  vm.func @twice(%b: !vm.buffer) -> (i32, !vm.buffer) {
    %eq = vm.cmp.eq.ref %b, %b : !vm.buffer, !vm.buffer
    vm.return %eq, %b : i32, !vm.buffer
  }
  vm.export @twice
}
