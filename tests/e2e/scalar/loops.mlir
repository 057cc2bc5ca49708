// Nested loops: scf.for with iter_args over index, scf.while, loops in
// loops, a loop that runs zero times.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=nested --input=i64=10 --input=i64=20 --expected_output=i64=8550
// RUN: strata-run --module=%t.vmfb --function=nested --input=i64=0 --input=i64=20 --expected_output=i64=0
// RUN: strata-run --module=%t.vmfb --function=collatz --input=i64=27 --expected_output=i32=111
// RUN: strata-run --module=%t.vmfb --function=collatz --input=i64=1 --expected_output=i32=0
// RUN: strata-run --module=%t.vmfb --function=triangle --input=i32=100 --expected_output=i32=171700
// RUN: strata-run --module=%t.vmfb --function=loop --input=i64=1000 --expected_output=i64=501497

// sum over i < n, j < m of i * j = (n(n-1)/2) * (m(m-1)/2)
func.func @nested(%n: i64, %m: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %ni = arith.index_cast %n : i64 to index
  %mi = arith.index_cast %m : i64 to index
  %sum = scf.for %i = %c0 to %ni step %c1 iter_args(%acc = %zero) -> (i64) {
    %inner = scf.for %j = %c0 to %mi step %c1 iter_args(%acc2 = %acc) -> (i64) {
      %prod = arith.muli %i, %j : index
      %p = arith.index_cast %prod : index to i64
      %next = arith.addi %acc2, %p : i64
      scf.yield %next : i64
    }
    scf.yield %inner : i64
  }
  return %sum : i64
}

// Steps of the Collatz sequence from n down to 1.
func.func @collatz(%n: i64) -> i32 {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %three = arith.constant 3 : i64
  %r:2 = scf.while (%x = %n, %steps = %c0) : (i64, i32) -> (i64, i32) {
    %more = arith.cmpi ne, %x, %one : i64
    scf.condition(%more) %x, %steps : i64, i32
  } do {
  ^bb0(%x: i64, %steps: i32):
    %rem = arith.remui %x, %two : i64
    %even = arith.cmpi ne, %rem, %one : i64
    %y = scf.if %even -> i64 {
      %h = arith.divui %x, %two : i64
      scf.yield %h : i64
    } else {
      %t = arith.muli %x, %three : i64
      %u = arith.addi %t, %one : i64
      scf.yield %u : i64
    }
    %c1 = arith.constant 1 : i32
    %s = arith.addi %steps, %c1 : i32
    scf.yield %y, %s : i64, i32
  }
  return %r#1 : i32
}

// sum over i <= n of i * (i + 1) / 2, with i32 loop bounds.
func.func @triangle(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %end = arith.addi %n, %c1 : i32
  %r = scf.for %i = %c0 to %end step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %ip1 = arith.addi %i, %c1 : i32
    %t = arith.muli %i, %ip1 : i32
    %h = arith.divsi %t, %c2 : i32
    %s = arith.addi %acc, %h : i32
    scf.yield %s : i32
  }
  return %r : i32
}

// The interpreter benchmark's loop: s = (s + i * 3) mod 1000003.
func.func @loop(%n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %three = arith.constant 3 : i64
  %m = arith.constant 1000003 : i64
  %ub = arith.addi %n, %one : i64
  %s = scf.for %i = %one to %ub step %one iter_args(%acc = %zero) -> (i64) : i64 {
    %t = arith.muli %i, %three : i64
    %u = arith.addi %acc, %t : i64
    %v = arith.remsi %u, %m : i64
    scf.yield %v : i64
  }
  return %s : i64
}
