// strata-compile --compile-mode=vm rejects input that is not one vm.module.
// RUN: not strata-compile --compile-mode=vm --output-format=vm-mlir %s 2>&1 | FileCheck %s

vm.module @first {
}

// CHECK: error: --compile-mode=vm takes one vm.module; the first is 'first'
vm.module @second {
}
