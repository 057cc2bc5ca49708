// Conversions run: unsigned and narrow-integer semantics, selects, min/max,
// casts, index arithmetic, cf.switch, cmpf predicates, math expansions.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=unsigned_i32 --input=i32=-1 --input=i32=3 \
// RUN:   --expected_output=i32=1431655765 --expected_output=i32=0 --expected_output=i32=1 --expected_output=i32=-1 --expected_output=i32=3
// RUN: strata-run --module=%t.vmfb --function=narrow --input=i32=200 --input=i32=100 \
// RUN:   --expected_output=i32=1 --expected_output=i32=-56 --expected_output=i32=2 --expected_output=i32=44 --expected_output=i32=0
// RUN: strata-run --module=%t.vmfb --function=i16_div --input=i32=-32768 --input=i32=-1 --expected_output=i32=-32768
// RUN: strata-run --module=%t.vmfb --function=bools --input=i32=1 --input=i32=1 \
// RUN:   --expected_output=i32=0 --expected_output=i32=1 --expected_output=i32=0 --expected_output=i32=-1
// RUN: strata-run --module=%t.vmfb --function=switch --input=i32=0 --expected_output=i32=10
// RUN: strata-run --module=%t.vmfb --function=switch --input=i32=2 --expected_output=i32=30
// RUN: strata-run --module=%t.vmfb --function=switch --input=i32=7 --expected_output=i32=-1
// RUN: strata-run --module=%t.vmfb --function=switch --input=i32=-3 --expected_output=i32=-1
// RUN: strata-run --module=%t.vmfb --function=index_math --input=i64=-7 --input=i64=2 \
// RUN:   --expected_output=i64=-3 --expected_output=i64=-4 --expected_output=i64=-3 --expected_output=i64=-1
// RUN: strata-run --module=%t.vmfb --function=float_casts --input=f32=3e9 --input=f32=-2.5 \
// RUN:   --expected_output=i32=2147483647 --expected_output=i32=-2 --expected_output=i64=3000000000 --expected_output=f64=-2.5
// RUN: strata-run --module=%t.vmfb --function=fcmp --input=f64=1 --input=f64=nan \
// RUN:   --expected_output=i32=0 --expected_output=i32=1 --expected_output=i32=1 --expected_output=i32=0 --expected_output=i32=1
// RUN: strata-run --module=%t.vmfb --function=expansions --input=f64=1e-10 --expected_f64_threshold=1e-20 \
// RUN:   --expected_output=f64=9.9999999995e-11 --expected_output=f64=1.00000000005e-10
// RUN: strata-run --module=%t.vmfb --function=nanmax --input=f32=nan --input=f32=2 --expected_output=f32=2 --expected_output=f32=nan

// -1 as u32 is 4294967295: / 3, % 3, unsigned min/max, signed min.
func.func @unsigned_i32(%a: i32, %b: i32) -> (i32, i32, i32, i32, i32) {
  %q = arith.divui %a, %b : i32
  %r = arith.remui %a, %b : i32
  %lt = arith.cmpi ugt, %a, %b : i32
  %lti = arith.extui %lt : i1 to i32
  %mx = arith.maxui %a, %b : i32
  %mn = arith.minui %a, %b : i32
  return %q, %r, %lti, %mx, %mn : i32, i32, i32, i32, i32
}

// 200 and 100 as i8 are -56 and 100: -56 < 100 signed, 200 > 100 unsigned;
// 200 / 100 unsigned = 2; (200 + 100) mod 256 = 44; -56 >> 7 (logical) = 1,
// and 1 >> 1 = 0.
func.func @narrow(%a32: i32, %b32: i32) -> (i32, i32, i32, i32, i32) {
  %a = arith.trunci %a32 : i32 to i8
  %b = arith.trunci %b32 : i32 to i8
  %slt = arith.cmpi slt, %a, %b : i8
  %slti = arith.extui %slt : i1 to i32
  %as = arith.extsi %a : i8 to i32
  %q = arith.divui %a, %b : i8
  %qi = arith.extui %q : i8 to i32
  %s = arith.addi %a, %b : i8
  %si = arith.extui %s : i8 to i32
  %c7 = arith.constant 7 : i8
  %top = arith.shrui %a, %c7 : i8
  %c1 = arith.constant 1 : i8
  %z = arith.shrui %top, %c1 : i8
  %zi = arith.extui %z : i8 to i32
  return %slti, %as, %qi, %si, %zi : i32, i32, i32, i32, i32
}

// -32768 / -1 overflows i16 and wraps to -32768.
func.func @i16_div(%a32: i32, %b32: i32) -> i32 {
  %a = arith.trunci %a32 : i32 to i16
  %b = arith.trunci %b32 : i32 to i16
  %q = arith.divsi %a, %b : i16
  %r = arith.extsi %q : i16 to i32
  return %r : i32
}

// i1 arithmetic stays 0 or 1: 1 + 1 = 0, 1 * 1 = 1, 1 xor 1 = 0; an i1 1
// sign-extends to -1.
func.func @bools(%a32: i32, %b32: i32) -> (i32, i32, i32, i32) {
  %a = arith.trunci %a32 : i32 to i1
  %b = arith.trunci %b32 : i32 to i1
  %s = arith.addi %a, %b : i1
  %m = arith.muli %a, %b : i1
  %x = arith.xori %a, %b : i1
  %si = arith.extui %s : i1 to i32
  %mi = arith.extui %m : i1 to i32
  %xi = arith.extui %x : i1 to i32
  %e = arith.extsi %a : i1 to i32
  return %si, %mi, %xi, %e : i32, i32, i32, i32
}

func.func @switch(%x: i32) -> i32 {
  cf.switch %x : i32, [
    default: ^other,
    0: ^zero,
    1: ^one,
    2: ^two
  ]
^zero:
  %c10 = arith.constant 10 : i32
  return %c10 : i32
^one:
  %c20 = arith.constant 20 : i32
  return %c20 : i32
^two:
  %c30 = arith.constant 30 : i32
  return %c30 : i32
^other:
  %m1 = arith.constant -1 : i32
  return %m1 : i32
}

// -7 / 2 toward zero -3, floor -4, ceil -3; -7 rem 2 = -1.
func.func @index_math(%a64: i64, %b64: i64) -> (i64, i64, i64, i64) {
  %a = arith.index_cast %a64 : i64 to index
  %b = arith.index_cast %b64 : i64 to index
  %q = index.divs %a, %b
  %f = index.floordivs %a, %b
  %c = index.ceildivs %a, %b
  %r = index.rems %a, %b
  %qi = arith.index_cast %q : index to i64
  %fi = arith.index_cast %f : index to i64
  %ci = arith.index_cast %c : index to i64
  %ri = arith.index_cast %r : index to i64
  return %qi, %fi, %ci, %ri : i64, i64, i64, i64
}

// fptosi saturates: 3e9 does not fit i32.
func.func @float_casts(%a: f32, %b: f32) -> (i32, i32, i64, f64) {
  %s = arith.fptosi %a : f32 to i32
  %t = arith.fptosi %b : f32 to i32
  %u = arith.fptoui %a : f32 to i64
  %e = arith.extf %b : f32 to f64
  return %s, %t, %u, %e : i32, i32, i64, f64
}

// With b = NaN: olt false, ult true, une true, oeq false, uno true.
func.func @fcmp(%a: f64, %b: f64) -> (i32, i32, i32, i32, i32) {
  %olt = arith.cmpf olt, %a, %b : f64
  %ult = arith.cmpf ult, %a, %b : f64
  %une = arith.cmpf une, %a, %b : f64
  %oeq = arith.cmpf oeq, %a, %b : f64
  %uno = arith.cmpf uno, %a, %b : f64
  %0 = arith.extui %olt : i1 to i32
  %1 = arith.extui %ult : i1 to i32
  %2 = arith.extui %une : i1 to i32
  %3 = arith.extui %oeq : i1 to i32
  %4 = arith.extui %uno : i1 to i32
  return %0, %1, %2, %3, %4 : i32, i32, i32, i32, i32
}

// log1p and expm1 keep their precision near 0.
func.func @expansions(%x: f64) -> (f64, f64) {
  %l = math.log1p %x : f64
  %e = math.expm1 %x : f64
  return %l, %e : f64, f64
}

// maxnumf ignores a NaN operand; maximumf propagates it.
func.func @nanmax(%a: f32, %b: f32) -> (f32, f32) {
  %n = arith.maxnumf %a, %b : f32
  %m = arith.maximumf %a, %b : f32
  return %n, %m : f32, f32
}
