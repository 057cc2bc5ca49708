// strata-compile's default mode: standard dialects through the pipeline.
// RUN: strata-compile --output-format=vm-mlir %s | FileCheck %s
// RUN: strata-compile --mlir-print-ir-after-all %s -o %t.vmfb 2>&1 | FileCheck %s --check-prefix=PASSES
// RUN: strata-dump %t.vmfb | FileCheck %s --check-prefix=DUMP
// RUN: strata-run --module=%t.vmfb --function=count --input=i64=10 | FileCheck %s --check-prefix=RESULT
// RUN: strata-compile --version | FileCheck %s --check-prefix=VERSION
// RUN: strata-compile --mlir-timing %s -o %t.timed.vmfb 2>&1 | FileCheck %s --check-prefix=TIMING

// The module takes the builtin module's name; the loop is rotated and its
// compare and branch fused with the constant bound.
// CHECK: vm.module @std
// CHECK-LABEL: vm.func @count
// CHECK: vm.cond_br.lt.i64.s
// CHECK: ^[[BODY:bb[0-9]+]](%{{.*}}: i64, %{{.*}}: i64):
// CHECK: vm.add.i64.imm
// CHECK: vm.cond_br.lt.i64.s %{{.*}}, %{{.*}}, ^[[BODY]]
// CHECK: vm.export @count

// PASSES: IR Dump After Canonicalizer
// PASSES: IR Dump After ConvertToVMPass
// PASSES: IR Dump After VMRotateLoopsPass
// PASSES: IR Dump After VMPeepholePass

// DUMP: module std version 1
// DUMP: func @count 0I_I
// RESULT: i64=45

// VERSION: strata-compile {{[0-9]+\.[0-9]+\.[0-9]+}} (LLVM 22

// TIMING: Execution time report
// TIMING: ConvertToVMPass

module @std {
  func.func @count(%n: i64) -> i64 {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i64) : i64 {
      %s = arith.addi %acc, %i : i64
      scf.yield %s : i64
    }
    return %r : i64
  }
}
