// strata-compile --compile-mode=vm: VM dialect in, VM dialect (vm-mlir) out.
// RUN: strata-compile --compile-mode=vm --output-format=vm-mlir %s -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: strata-opt %t.mlir | FileCheck %s
// RUN: strata-compile --compile-mode=vm --output-format=vm-bytecode %s -o %t.vmfb
// RUN: strata-dump %t.vmfb | FileCheck %s --check-prefix=BYTECODE
// RUN: strata-compile --compile-mode=vm %s -o %t.default.vmfb
// RUN: strata-dump %t.default.vmfb | FileCheck %s --check-prefix=DEFAULT
// RUN: strata-compile --help | FileCheck %s --check-prefix=HELP

// CHECK-LABEL: vm.module @assembled
vm.module @assembled {
  // CHECK: vm.func @add(%[[A:.*]]: i32, %[[B:.*]]: i32) -> i32
  vm.func @add(%a: i32, %b: i32) -> i32 {
    // CHECK-NEXT: %[[SUM:.*]] = vm.add.i32 %[[A]], %[[B]]
    %0 = vm.add.i32 %a, %b
    // CHECK-NEXT: vm.return %[[SUM]] : i32
    vm.return %0 : i32
  }
  // CHECK: vm.export @add
  vm.export @add
}

// The module records the compiler, its version and the command line, and
// the debug database names functions and source locations.
// BYTECODE: module assembled version 1
// BYTECODE: compiler: strata-compile {{[0-9]+\.[0-9]+\.[0-9]+}}
// BYTECODE-NEXT: flags: --compile-mode=vm --output-format=vm-bytecode {{.*}}strata-compile.mlir -o {{.*}}.vmfb
// BYTECODE: add -> @add  0ii_i  (i32, i32) -> i32
// BYTECODE: func @add 0ii_i
// BYTECODE-NEXT: ^bb0:
// BYTECODE-NEXT: add.i32 %i0, %i1, %i0 loc({{.*}}strata-compile.mlir:{{[0-9]+}}:10)
// BYTECODE-NEXT: return (%i0) loc({{.*}}strata-compile.mlir:{{[0-9]+}}:5)

// vm-bytecode is the default output format.
// DEFAULT: func @add 0ii_i

// HELP-NOT: --amdgpu
// HELP: MLIR options:
// HELP: --mlir-print-ir-after-all
// HELP: strata-compile options:
// HELP-DAG: --compile-mode=<value>
// HELP-DAG: =vm
// HELP-DAG: --output-format=<value>
// HELP-DAG: =vm-bytecode
// HELP-DAG: =vm-mlir
// HELP-DAG: -o <filename>
