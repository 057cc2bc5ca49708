// Run-time errors are clean failures that name the function and the source
// line: integer division by zero, and recursion that never ends (the call
// depth limit stops it; the process does not crash).
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=divide --input=i32=7 --input=i32=2 --expected_output=i32=3
// RUN: not strata-run --module=%t.vmfb --function=divide --input=i32=7 --input=i32=0 2>&1 | FileCheck %s --check-prefix=DIV
// RUN: not strata-run --module=%t.vmfb --function=remainder --input=i64=7 --input=i64=0 2>&1 | FileCheck %s --check-prefix=REM
// RUN: not strata-run --module=%t.vmfb --function=runaway --input=i64=0 2>&1 | FileCheck %s --check-prefix=DEPTH

// DIV: integer division by zero
// DIV: at {{[a-z_]+}}.divide ({{.*}}errors.mlir:[[@LINE+3]]:
// DIV-NOT: Segmentation
func.func @divide(%a: i32, %b: i32) -> i32 {
  %q = arith.divsi %a, %b : i32
  return %q : i32
}

// The failing op is inside a callee: the backtrace names both frames.
// REM: integer division by zero
// REM: at {{[a-z_]+}}.rem_inner ({{.*}}errors.mlir:[[@LINE+2]]:
func.func @rem_inner(%a: i64, %b: i64) -> i64 {
  %r = arith.remui %a, %b : i64
  return %r : i64
}
// REM-NEXT: at {{[a-z_]+}}.remainder ({{.*}}errors.mlir:[[@LINE+2]]:
func.func @remainder(%a: i64, %b: i64) -> i64 {
  %r = func.call @rem_inner(%a, %b) : (i64, i64) -> i64
  return %r : i64
}

// DEPTH: call depth limit of {{[0-9]+}} frames exceeded
// The backtrace shows the recursing frame once, with its count.
// DEPTH-NEXT: at {{[a-z_]+}}.runaway ({{.*}}errors.mlir:[[@LINE+5]]:{{[0-9]+}}) (2048 frames)
// DEPTH-EMPTY:
func.func @runaway(%n: i64) -> i64 {
  %one = arith.constant 1 : i64
  %m = arith.addi %n, %one : i64
  %r = func.call @runaway(%m) : (i64) -> i64
  %s = arith.addi %r, %one : i64
  return %s : i64
}
