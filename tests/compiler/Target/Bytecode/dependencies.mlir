// A module's dependencies come from its imports' minimum_version: per
// imported module, the highest one, optional only when every import of that
// module is. The runtime refuses a module that needs a newer hal than it
// has, naming the module and both versions, and runs one that does not.
// RUN: strata-compile --compile-mode=vm %s -o %t.vmfb
// RUN: strata-dump %t.vmfb | FileCheck %s
// RUN: sed -e 's/minimum_version = 2 :/minimum_version = 99 :/' -e 's/@module/@future/' %s > %t.future.mlir
// RUN: strata-compile --compile-mode=vm %t.future.mlir -o %t.future.vmfb
// RUN: not strata-run --module=%t.future.vmfb --function=count 2>&1 | FileCheck %s --check-prefix=REFUSE
// RUN: strata-run --module=%t.vmfb --function=count | FileCheck %s --check-prefix=ACCEPT

// CHECK: dependencies (2):
// CHECK-NEXT: hal >= 2
// CHECK-NEXT: custom >= 3 optional
// CHECK: imports (4):

// REFUSE: module 'future' needs 'hal' >= 99, the context has 'hal' version 3

// ACCEPT: i32=1
vm.module @module {
  vm.import @hal.devices.count {minimum_version = 1 : i32} : () -> i32
  vm.import @hal.buffer.wrap {minimum_version = 2 : i32} : (!vm.buffer) -> !vm.ref<?>
  vm.import optional @custom.old {minimum_version = 1 : i32} : () -> ()
  vm.import optional @custom.new {minimum_version = 3 : i32} : () -> ()

  vm.func @count() -> i32 {
    %n = vm.call.import @hal.devices.count() : () -> i32
    vm.return %n : i32
  }
  vm.export @count
}
