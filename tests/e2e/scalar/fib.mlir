// Recursive Fibonacci: calls, scf.if with a result, i64 arithmetic.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=fib --input=i64=0 --expected_output=i64=0
// RUN: strata-run --module=%t.vmfb --function=fib --input=i64=1 --expected_output=i64=1
// RUN: strata-run --module=%t.vmfb --function=fib --input=i64=20 --expected_output=i64=6765
// RUN: strata-run --module=%t.vmfb --function=fib --input=i64=27 --expected_output=i64=196418
// RUN: not strata-run --module=%t.vmfb --function=fib --input=i64=20 --expected_output=i64=6766

func.func @fib(%n: i64) -> i64 {
  %c2 = arith.constant 2 : i64
  %small = arith.cmpi slt, %n, %c2 : i64
  %r = scf.if %small -> i64 {
    scf.yield %n : i64
  } else {
    %c1 = arith.constant 1 : i64
    %a = arith.subi %n, %c1 : i64
    %fa = func.call @fib(%a) : (i64) -> i64
    %b = arith.subi %n, %c2 : i64
    %fb = func.call @fib(%b) : (i64) -> i64
    %sum = arith.addi %fa, %fb : i64
    scf.yield %sum : i64
  }
  return %r : i64
}
