// REQUIRES: llvm-cpu
// RUN: strata-opt --strata-compile-executables %s | FileCheck %s
// RUN: strata-opt --strata-compile-executables='target-triple=aarch64-linux-gnu target-cpu=generic' %s | FileCheck %s --check-prefix=ARM
// RUN: not strata-opt --strata-compile-executables='target=nowhere' %s 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: strata-opt --strata-compile-executables='target-cpu=x86-64-multi' %s | FileCheck %s --check-prefix=MULTI
// RUN: strata-opt --strata-compile-executables='target-cpu=x86-64-v3,x86-64' %s | FileCheck %s --check-prefix=LIST
// RUN: not strata-opt --strata-compile-executables='target-cpu=,' %s 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not strata-opt --strata-compile-executables='target-cpu=x86-64-v3,nonsense' %s 2>&1 | FileCheck %s --check-prefix=BADCPU

// The flow.executable becomes a hal.executable of the same name: the
// library and one export per dispatch function with its ordinal and grid.
// CHECK: module @m {
// CHECK: flow.dispatch @m_linked_llvm_cpu::@f_dispatch_0
// CHECK: hal.executable @m_linked_llvm_cpu format("embedded-elf-x86_64") data("\7FELF
// CHECK-NEXT: hal.executable.export @f_dispatch_0 ordinal(0) workgroup_count([1, 1, 1])
// CHECK-NEXT: hal.executable.export @f_dispatch_1 ordinal(1) workgroup_count([1, 1, 1])
// CHECK-NEXT: }
// CHECK-NOT: flow.executable
// ARM: hal.executable @m_linked_llvm_cpu format("embedded-elf-aarch64")
// NONE: error: no target 'nowhere' in this build; it has: llvm-cpu{{(, portable)?}}

// A list of CPUs (x86-64-multi: x86-64-v4,x86-64-v3,x86-64) compiles one
// library per CPU, best first: the executable's own, then one variant each;
// the exports are shared.
// MULTI: hal.executable @m_linked_llvm_cpu format("embedded-elf-x86_64") data("\7FELF
// MULTI-NEXT: hal.executable.variant target("x86-64-v3") format("embedded-elf-x86_64") data("\7FELF
// MULTI-NEXT: hal.executable.variant target("x86-64") format("embedded-elf-x86_64") data("\7FELF
// MULTI-NEXT: hal.executable.export @f_dispatch_0 ordinal(0) workgroup_count([1, 1, 1])
// MULTI-NEXT: hal.executable.export @f_dispatch_1 ordinal(1) workgroup_count([1, 1, 1])
// MULTI-NEXT: }
// LIST: hal.executable @m_linked_llvm_cpu format("embedded-elf-x86_64")
// LIST-NEXT: hal.executable.variant target("x86-64") format("embedded-elf-x86_64")
// LIST-NOT: hal.executable.variant
// EMPTY: error: --target-cpu=',' names no CPU; give a CPU, 'host' or a comma-separated list
// BADCPU: error: llvm-cpu: 'nonsense' is not a CPU of target
module @m {
  func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
    %0 = flow.dispatch @m_linked_llvm_cpu::@f_dispatch_0(%a) : (tensor<8xf32>) -> tensor<8xf32>
    %1 = flow.dispatch @m_linked_llvm_cpu::@f_dispatch_1(%0) : (tensor<8xf32>) -> tensor<8xf32>
    return %1 : tensor<8xf32>
  }
  flow.executable @m_linked_llvm_cpu {
  builtin.module {
    func.func @f_dispatch_0(%a: tensor<8xf32>) -> tensor<8xf32> {
      %e = tensor.empty() : tensor<8xf32>
      %r = linalg.add ins(%a, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
      return %r : tensor<8xf32>
    }
    func.func @f_dispatch_1(%a: tensor<8xf32>) -> tensor<8xf32> {
      %e = tensor.empty() : tensor<8xf32>
      %r = linalg.mul ins(%a, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
      return %r : tensor<8xf32>
    }
  }
  }
}
