// Errors in the default mode point at the source, exit 1 and write nothing.
// RUN: not strata-compile %s -o %t.vmfb 2>&1 | FileCheck %s
// RUN: not test -e %t.vmfb
// RUN: not strata-compile %S/strata-compile.mlir -o %t.vm.vmfb 2>&1 | FileCheck %s --check-prefix=VMINPUT
// RUN: not strata-compile %s.missing -o %t.vmfb 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not strata-compile --compile-mode=bogus %s 2>&1 | FileCheck %s --check-prefix=FLAG

// CHECK: strata-compile-std-invalid.mlir:[[@LINE+1]]:1: error: unsupported type 'f16' in conversion to vm
func.func @half(%a: f16) -> f16 {
  return %a : f16
}

// VMINPUT: strata-compile.mlir:{{[0-9]+}}:1: error: vm.module input needs --compile-mode=vm
// MISSING: strata-compile: cannot open input file '{{.*}}strata-compile-std-invalid.mlir.missing'
// FLAG: strata-compile: for the --compile-mode option: Cannot find option named 'bogus'!
