// loop.mlir - the interpreter benchmark's integer loop: the algorithm of
// ../shared/bench/peers/loop.lua (loop.lua here), in i64:
// s = (s + i * 3) mod 1000003 for i = 1 .. 200000000. main prints 539100
// through strata-run ("i64=539100").
func.func @main() -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %three = arith.constant 3 : i64
  %modulus = arith.constant 1000003 : i64
  %end = arith.constant 200000001 : i64
  %s = scf.for %i = %one to %end step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %t = arith.muli %i, %three : i64
    %u = arith.addi %acc, %t : i64
    %v = arith.remsi %u, %modulus : i64
    scf.yield %v : i64
  }
  return %s : i64
}
