// fib.mlir - the interpreter benchmark's recursive Fibonacci: the algorithm
// of ../shared/bench/peers/fib.lua (fib.lua here), in i64. main prints
// 2178309 through strata-run ("i64=2178309").
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

func.func @main() -> i64 {
  %n = arith.constant 32 : i64
  %r = func.call @fib(%n) : (i64) -> i64
  return %r : i64
}
