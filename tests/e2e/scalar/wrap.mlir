// Integer wrap-around: i64 and i32 arithmetic wraps modulo 2^N; i8 and i16
// values wrap at their own width even though the VM computes in 32 bits.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=i64_max_plus_one --expected_output=i64=-9223372036854775808
// RUN: strata-run --module=%t.vmfb --function=i64_min_minus_one --expected_output=i64=9223372036854775807
// RUN: strata-run --module=%t.vmfb --function=i64_mul --input=i64=4294967296 --input=i64=4294967297 --expected_output=i64=4294967296
// RUN: strata-run --module=%t.vmfb --function=i64_unsigned --input=i64=-1 --input=i64=2 --expected_output=i64=9223372036854775807 --expected_output=i64=1
// RUN: strata-run --module=%t.vmfb --function=i32_wrap --input=i32=2147483647 --expected_output=i32=-2147483648
// RUN: strata-run --module=%t.vmfb --function=i8_wrap --input=i32=127 --expected_output=i32=-128 --expected_output=i32=128
// RUN: strata-run --module=%t.vmfb --function=i8_wrap --input=i32=255 --expected_output=i32=0 --expected_output=i32=0
// RUN: strata-run --module=%t.vmfb --function=i16_compare --input=i32=32767 --expected_output=i32=1
// Narrow arguments and results at the export boundary: an i1 argument is its
// low bit, i8/i16 results are sign-extended into the caller's i32.
// RUN: strata-run --module=%t.vmfb --function=add_i8 --input=i32=100 --input=i32=100 --expected_output=i32=-56
// RUN: strata-run --module=%t.vmfb --function=identity_i8 --input=i32=300 --expected_output=i32=44
// RUN: strata-run --module=%t.vmfb --function=identity_i16 --input=i32=98304 --expected_output=i32=-32768
// RUN: strata-run --module=%t.vmfb --function=identity_i1 --input=i32=6 --expected_output=i32=0
// RUN: strata-run --module=%t.vmfb --function=identity_i1 --input=i32=-1 --expected_output=i32=1
// RUN: strata-run --module=%t.vmfb --function=shifts --input=i64=-16 --expected_output=i64=-4 --expected_output=i64=4611686018427387900 --expected_output=i64=-64

func.func @i64_max_plus_one() -> i64 {
  %max = arith.constant 9223372036854775807 : i64
  %one = arith.constant 1 : i64
  // An opaque call keeps the addition from being folded at compile time.
  %x = func.call @identity(%max) : (i64) -> i64
  %r = arith.addi %x, %one : i64
  return %r : i64
}

func.func @i64_min_minus_one() -> i64 {
  %min = arith.constant -9223372036854775808 : i64
  %one = arith.constant 1 : i64
  %x = func.call @identity(%min) : (i64) -> i64
  %r = arith.subi %x, %one : i64
  return %r : i64
}

func.func @identity(%x: i64) -> i64 {
  return %x : i64
}

// (2^32) * (2^32 + 1) = 2^64 + 2^32 = 2^32 (mod 2^64)
func.func @i64_mul(%a: i64, %b: i64) -> i64 {
  %r = arith.muli %a, %b : i64
  return %r : i64
}

// -1 as unsigned is 2^64 - 1: divided by 2 and its remainder.
func.func @i64_unsigned(%a: i64, %b: i64) -> (i64, i64) {
  %q = arith.divui %a, %b : i64
  %r = arith.remui %a, %b : i64
  return %q, %r : i64, i64
}

func.func @i32_wrap(%a: i32) -> i32 {
  %one = arith.constant 1 : i32
  %r = arith.addi %a, %one : i32
  return %r : i32
}

// i8 arithmetic wraps at 8 bits: 127 + 1 = -128 (signed), 128 (unsigned).
func.func @i8_wrap(%a: i32) -> (i32, i32) {
  %x = arith.trunci %a : i32 to i8
  %one = arith.constant 1 : i8
  %y = arith.addi %x, %one : i8
  %s = arith.extsi %y : i8 to i32
  %u = arith.extui %y : i8 to i32
  return %s, %u : i32, i32
}

// 32767 + 1 wraps to -32768 in i16, which is less than 0.
func.func @i16_compare(%a: i32) -> i32 {
  %x = arith.trunci %a : i32 to i16
  %one = arith.constant 1 : i16
  %zero = arith.constant 0 : i16
  %y = arith.addi %x, %one : i16
  %neg = arith.cmpi slt, %y, %zero : i16
  %r = arith.extui %neg : i1 to i32
  return %r : i32
}

func.func @shifts(%a: i64) -> (i64, i64, i64) {
  %two = arith.constant 2 : i64
  %s = arith.shrsi %a, %two : i64
  %u = arith.shrui %a, %two : i64
  %l = arith.shli %a, %two : i64
  return %s, %u, %l : i64, i64, i64
}

func.func @add_i8(%a: i8, %b: i8) -> i8 {
  %r = arith.addi %a, %b : i8
  return %r : i8
}

func.func @identity_i8(%a: i8) -> i8 {
  return %a : i8
}

func.func @identity_i16(%a: i16) -> i16 {
  return %a : i16
}

func.func @identity_i1(%a: i1) -> i1 {
  return %a : i1
}
