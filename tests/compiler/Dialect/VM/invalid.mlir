// Verifier errors of the vm dialect, one per split.
// RUN: strata-opt %s --split-input-file --verify-diagnostics

vm.module @m {
  vm.func @wrong_count(%x: i32) -> i32 {
    // expected-error @+1 {{'vm.return' op returns 0 values but 'wrong_count' has 1 results}}
    vm.return
  }
}

// -----

vm.module @m {
  vm.func @wrong_type(%x: i64) -> i32 {
    // expected-error @+1 {{'vm.return' op result #0 has type 'i64' but 'wrong_type' returns 'i32'}}
    vm.return %x : i64
  }
}

// -----

vm.module @m {
  vm.func @bad_operand(%x: i64) -> i32 {
    // expected-note @-1 {{prior use here}}
    // expected-error @+1 {{use of value '%x' expects different type than prior uses: 'i32' vs 'i64'}}
    %0 = vm.add.i32 %x, %x
    vm.return %0 : i32
  }
}

// -----

vm.module @m {
  vm.func @select_mismatch(%c: i32, %a: i32, %b: i64) {
    // expected-error @+1 {{'vm.select' op failed to verify that all of {b, c, result} have same type}}
    %0 = "vm.select"(%c, %a, %b) : (i32, i32, i64) -> i32
    vm.return
  }
}

// -----

vm.module @m {
  vm.func @index_arg(%x: index) {
    vm.return
  }
  // expected-error @-3 {{'vm.func' op argument #0 has type 'index', which no VM register holds}}
}

// -----

vm.module @m {
  vm.func @caller() {
    // expected-error @+1 {{'vm.call' op calls 'missing', which is not a vm.func of this module}}
    vm.call @missing() : () -> ()
    vm.return
  }
}

// -----

vm.module @m {
  vm.func @callee(%x: i32) {
    vm.return
  }
  vm.func @caller(%x: i64) {
    // expected-error @+1 {{'vm.call' op signature does not match 'callee' of type '(i32) -> ()'}}
    vm.call @callee(%x) : (i64) -> ()
    vm.return
  }
}

// -----

vm.module @m {
  vm.func @f() {
    vm.return
  }
  vm.func @caller() {
    // expected-error @+1 {{'vm.call.import' op calls 'f', which is not a vm.import of this module}}
    vm.call.import @f() : () -> ()
    vm.return
  }
}

// -----

vm.module @m {
  // expected-error @+1 {{'vm.export' op exports 'nowhere', which is not a vm.func of this module}}
  vm.export @nowhere
}

// -----

vm.module @m {
  // expected-error @+1 {{'vm.import' op name 'unqualified' must be qualified as module.function}}
  vm.import @unqualified : () -> ()
}

// -----

vm.module @m {
  // expected-error @+1 {{'vm.global.ref' op type must be a ref type, got 'i32'}}
  vm.global.ref @g : i32
}

// -----

// expected-error @+1 {{'vm.func' op expects parent op 'vm.module'}}
vm.func @orphan() {
  vm.return
}

// -----

vm.module @m {
  vm.func @branch_args(%x: i64) {
    // expected-error @+1 {{branch has 1 operands for successor #0, but target block has 0}}
    vm.br ^bb1(%x : i64)
  ^bb1:
    vm.return
  }
}

// -----

vm.module @m {
  vm.func @bad_buffer(%l: !vm.list, %i: i64) {
    // expected-error @+1 {{'vm.buffer.length' op operand #0 must be}}
    %0 = "vm.buffer.length"(%l) : (!vm.list) -> i64
    vm.return
  }
}

// -----

vm.module @m {
  vm.global.i32 @constant_global = 1
  vm.func @store_immutable(%x: i32) {
    // expected-error @+1 {{'vm.global.store.i32' op stores to 'constant_global', which is not mutable}}
    vm.global.store.i32 %x, @constant_global
    vm.return
  }
}

// -----

vm.module @m {
  vm.global.i64 mutable @wide
  vm.func @wrong_kind() {
    // expected-error @+1 {{'vm.global.load.i32' op accesses a 'i32' through 'wide', a 'vm.global.i64'}}
    %0 = vm.global.load.i32 @wide
    vm.return
  }
}

// -----

vm.module @m {
  vm.global.ref mutable @cache : !vm.buffer
  vm.func @wrong_ref_type() {
    // expected-error @+1 {{'vm.global.load.ref' op accesses a '!vm.list' through 'cache', a 'vm.global.ref'}}
    %0 = vm.global.load.ref @cache : !vm.list
    vm.return
  }
}

// -----

vm.module @m {
  vm.func @no_global() {
    // expected-error @+1 {{'vm.global.load.f32' op refers to 'missing', which is not a global of this module}}
    %0 = vm.global.load.f32 @missing
    vm.return
  }
}

// -----

vm.module @m {
  vm.func @no_rodata() {
    // expected-error @+1 {{'vm.const.ref.rodata' op refers to 'no_rodata', which is not a vm.rodata of this module}}
    %0 = vm.const.ref.rodata @no_rodata
    vm.return
  }
}

// -----

vm.module @m {
  vm.func @no_import() {
    // expected-error @+1 {{'vm.import.resolved' op refers to 'math.sin', which is not a vm.import of this module}}
    %0 = vm.import.resolved @math.sin
    vm.return
  }
}

// -----

vm.module @m {
  vm.func @rem_by_zero(%x: i64) {
    // expected-error @+1 {{'vm.rem.i64.s.imm' op divisor 0 is not encodable; use vm.rem.i64.s}}
    %0 = vm.rem.i64.s.imm %x, 0
    vm.return
  }
}

// -----

vm.module @m {
  vm.func @rem_by_minus_one(%x: i64) {
    // expected-error @+1 {{'vm.rem.i64.s.imm' op divisor -1 is not encodable; use vm.rem.i64.s}}
    %0 = vm.rem.i64.s.imm %x, -1
    vm.return
  }
}

// -----

vm.module @m {
  vm.func @cast_to_prim(%r: !vm.ref<?>) {
    // expected-error @+1 {{'vm.cast.ref' op casts to 'i32', which is not a ref type}}
    %0 = vm.cast.ref %r, i32 : !vm.ref<?>, !vm.ref<?>
    vm.return
  }
}

// -----

vm.module @m {
  // expected-error @+1 {{'vm.import' op variadic span (1, 2) must be non-empty, follow the previous span and lie within the 2 inputs}}
  vm.import @m.f {variadic_spans = array<i32: 1, 2>} : (i32, i32) -> ()
}

// -----

vm.module @m {
  // expected-error @+1 {{'vm.import' op variadic_spans must hold (start, length) pairs}}
  vm.import @m.f {variadic_spans = array<i32: 0>} : (i32, i32) -> ()
}

// -----

vm.module @m {
  vm.import @m.sum {variadic_spans = array<i32: 1, 1>} : (i32, i64) -> i64
  vm.func @f(%a: i32, %b: i64) -> i64 {
    // expected-error @+1 {{'vm.call.variadic' op signature does not match 'm.sum' of type '(i32, i64) -> i64' with segment sizes [2]}}
    %0 = vm.call.variadic @m.sum(%a, %b) segments [2] : (i32, i64) -> i64
    vm.return %0 : i64
  }
}

// -----

vm.module @m {
  vm.import @m.sum {variadic_spans = array<i32: 1, 1>} : (i32, i64) -> i64
  vm.func @f(%a: i32, %b: i64) -> i64 {
    // expected-error @+1 {{'vm.call.variadic' op gives 2 segment sizes but 'm.sum' has 1 variadic spans}}
    %0 = vm.call.variadic @m.sum(%a, %b) segments [1, 0] : (i32, i64) -> i64
    vm.return %0 : i64
  }
}

// -----

vm.module @m {
  vm.initializer @init {
    vm.return
  }
  // expected-error @+1 {{'vm.initializer' op is a second initializer of the module; a module has at most one}}
  vm.initializer @again {
    vm.return
  }
}

// -----

vm.module @m {
  vm.initializer @init {
    %c = vm.const.i32 1
    // expected-error @+1 {{'vm.return' op returns 1 values but 'init' has 0 results}}
    vm.return %c : i32
  }
}

// -----

vm.module @m {
  // expected-error @+1 {{'vm.initializer' op takes and returns nothing, but has type '(i32) -> ()'}}
  "vm.initializer"() <{sym_name = "init", function_type = (i32) -> ()}> ({
    vm.return
  }) : () -> ()
}

// -----

vm.module @m {
  // expected-error @+1 {{'vm.initializer' op needs a body}}
  "vm.initializer"() <{sym_name = "init", function_type = () -> ()}> ({
  }) : () -> ()
}

// -----

vm.module @m {
  vm.initializer @init {
    vm.return
  }
  vm.func @f() {
    // expected-error @+1 {{'vm.call' op calls 'init', which is not a vm.func of this module}}
    vm.call @init() : () -> ()
    vm.return
  }
}

// -----

vm.module @m {
  vm.initializer @init {
    vm.return
  }
  // expected-error @+1 {{'vm.export' op exports 'init', which is not a vm.func of this module}}
  vm.export @init
}
