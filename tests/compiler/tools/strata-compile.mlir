// strata-compile --compile-mode=vm: VM dialect in, VM dialect (vm-mlir) out.
// RUN: strata-compile --compile-mode=vm --output-format=vm-mlir %s -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: strata-opt %t.mlir | FileCheck %s
// RUN: not strata-compile --compile-mode=vm --output-format=vm-bytecode %s -o %t.vmfb 2>&1 | FileCheck %s --check-prefix=BYTECODE
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

// BYTECODE: error: --output-format=vm-bytecode is not implemented yet

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
