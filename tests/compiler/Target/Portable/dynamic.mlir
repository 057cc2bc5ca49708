// Dynamic shapes on the portable target: an export whose sizes come from
// its index arguments (push constants) starts its code with a shape
// instruction (schemas/kernel_bytecode.h): the run-time values, what each
// dynamic binding must hold, and the code words each value is patched into.
// REQUIRES: portable
// RUN: strata-opt --strata-compile-executables='target=portable' --split-input-file %s | FileCheck %s

// A slice at a run-time offset of a run-time length: push constant words
// 0-1 hold %off, 2-3 hold %n (the result's size).
// CHECK-LABEL: module @slice
// CHECK: hal.executable @slice_linked format("portable-bytecode-v1") data("SKBC
// Two bindings (input, result), four push constant words; the input holds
// 64 bytes, the result's entry is 0 (sized at dispatch).
// CHECK-SAME: slice\00\00\00\02\00\00\00\04\00\00\00@\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00
// shape, 4 values: V0 = push words 2-3 (%n), V1 = 4, V2 = V1 * V0, V3 =
// push words 0-1 (%off).
// CHECK-SAME: \03\00\00\00\04\00\00\00\01\00\00\00\02\00\00\00\00\00\00\00\03\00\00\00\04\00\00\00\00\00\00\00\06\00\00\00\01\00\00\00\00\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00
// One requirement: binding 1 holds V2 = 4 * %n bytes.
// CHECK-SAME: \01\00\00\00\01\00\00\00\02\00\00\00
// Two patches: code word 24 (the copy's loop size) takes V0, and the i64 at
// word 31 (the input's offset; bit 31 marks an i64) takes V3.
// CHECK-SAME: \02\00\00\00\18\00\00\00\00\00\00\00\1F\00\00\80\03\00\00\00
// The copy: a generic of rank 1 whose size word is 0 until patched.
// CHECK-SAME: \01\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\01\00\00\00\02\00\00\00\01\00\00\00
// CHECK: hal.executable.export @slice ordinal(0) workgroup_count([1, 1, 1])
module @slice {
  flow.executable @slice_linked {
  builtin.module {
    func.func @slice(%a: tensor<16xf32>, %off: index, %n: index) -> tensor<?xf32> {
      %s = tensor.extract_slice %a[%off] [%n] [1] : tensor<16xf32> to tensor<?xf32>
      return %s : tensor<?xf32>
    }
  }
  }
}

// -----

// Both bindings dynamic (?x4): each must hold 16 bytes per row, its rows
// from its own size argument.
// CHECK-LABEL: module @add
// CHECK: data("SKBC
// Two bindings, both sized at dispatch.
// CHECK-SAME: add\00\02\00\00\00\04\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00
// V0 = %n, V1 = 4, V2 = 4 %n, V3 = 4 V2 (16 %n); V4 = %m, V5 = 4 %m,
// V6 = 16 %m.
// CHECK-SAME: \03\00\00\00\07\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\03\00\00\00\04\00\00\00\00\00\00\00\06\00\00\00\01\00\00\00\00\00\00\00\06\00\00\00\02\00\00\00\01\00\00\00\01\00\00\00\02\00\00\00\00\00\00\00\06\00\00\00\01\00\00\00\04\00\00\00\06\00\00\00\05\00\00\00\01\00\00\00
// Requirements: binding 0 holds V3 bytes, binding 1 V6.
// CHECK-SAME: \02\00\00\00\00\00\00\00\03\00\00\00\01\00\00\00\06\00\00\00
module @add {
  flow.executable @add_linked {
  builtin.module {
    func.func @add(%a: tensor<?x4xf32>, %n: index, %m: index) -> tensor<?x4xf32> {
      %e = tensor.empty(%m) : tensor<?x4xf32>
      %r = linalg.add ins(%a, %a : tensor<?x4xf32>, tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
      return %r : tensor<?x4xf32>
    }
  }
  }
}
