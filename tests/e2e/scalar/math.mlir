// f32 and f64 arithmetic and math functions against known values (to 1e-6;
// --expected_f32_threshold / --expected_f64_threshold set the tolerance).
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-run --module=%t.vmfb --function=f64_math --input=f64=2 --expected_f64_threshold=1e-12 \
// RUN:   --expected_output=f64=1.4142135623730951 --expected_output=f64=2.718281828459045 \
// RUN:   --expected_output=f64=2.302585092994046 --expected_output=f64=0.46211715726000974 \
// RUN:   --expected_output=f64=0.5204998778130465 --expected_output=f64=1024 \
// RUN:   --expected_output=f64=0.8414709848078965 --expected_output=f64=0.5403023058681398
// RUN: strata-run --module=%t.vmfb --function=f32_math --input=f32=2 --expected_f32_threshold=1e-6 \
// RUN:   --expected_output=f32=1.4142135 --expected_output=f32=2.7182817 \
// RUN:   --expected_output=f32=2.3025851 --expected_output=f32=0.46211717 \
// RUN:   --expected_output=f32=0.52049988 --expected_output=f32=1024 \
// RUN:   --expected_output=f32=11.313708 --expected_output=f32=3.321928
// RUN: strata-run --module=%t.vmfb --function=rounding --input=f64=-2.5 \
// RUN:   --expected_output=f64=-3 --expected_output=f64=-2 --expected_output=f64=-3 --expected_output=f64=-2
// RUN: strata-run --module=%t.vmfb --function=arith --input=f32=7.5 --input=f32=2 \
// RUN:   --expected_output=f32=9.5 --expected_output=f32=5.5 --expected_output=f32=15 --expected_output=f32=3.75 \
// RUN:   --expected_output=f32=1.5 --expected_output=f32=-7.5 --expected_output=f32=2 --expected_output=f32=16
// RUN: strata-run --module=%t.vmfb --function=conversions --input=f64=-3.75 \
// RUN:   --expected_output=i32=-3 --expected_output=f32=-3.75 --expected_output=f64=-3 --expected_output=i32=1
// RUN: strata-run --module=%t.vmfb --function=nan_compare --input=f32=nan --expected_output=i32=0 --expected_output=i32=1

func.func @f64_math(%x: f64) -> (f64, f64, f64, f64, f64, f64, f64, f64) {
  %one = arith.constant 1.0 : f64
  %ten = arith.constant 10.0 : f64
  %half = arith.constant 0.5 : f64
  %sqrt = math.sqrt %x : f64
  %e = math.exp %one : f64
  %ln10 = math.log %ten : f64
  %tanh = math.tanh %half : f64
  %erf = math.erf %half : f64
  %pow = math.powf %x, %ten : f64
  %sin = math.sin %one : f64
  %cos = math.cos %one : f64
  return %sqrt, %e, %ln10, %tanh, %erf, %pow, %sin, %cos
      : f64, f64, f64, f64, f64, f64, f64, f64
}

func.func @f32_math(%x: f32) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
  %one = arith.constant 1.0 : f32
  %ten = arith.constant 10.0 : f32
  %half = arith.constant 0.5 : f32
  %e35 = arith.constant 3.5 : f32
  %sqrt = math.sqrt %x : f32
  %e = math.exp %one : f32
  %ln10 = math.log %ten : f32
  %tanh = math.tanh %half : f32
  %erf = math.erf %half : f32
  %pow = math.powf %x, %ten : f32
  %exp2 = math.exp2 %e35 : f32
  %log2 = math.log2 %ten : f32
  return %sqrt, %e, %ln10, %tanh, %erf, %pow, %exp2, %log2
      : f32, f32, f32, f32, f32, f32, f32, f32
}

// floor, ceil, round (half away from zero), roundeven (half to even)
func.func @rounding(%x: f64) -> (f64, f64, f64, f64) {
  %f = math.floor %x : f64
  %c = math.ceil %x : f64
  %r = math.round %x : f64
  %e = math.roundeven %x : f64
  return %f, %c, %r, %e : f64, f64, f64, f64
}

func.func @arith(%a: f32, %b: f32) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
  %add = arith.addf %a, %b : f32
  %sub = arith.subf %a, %b : f32
  %mul = arith.mulf %a, %b : f32
  %div = arith.divf %a, %b : f32
  %rem = arith.remf %a, %b : f32
  %neg = arith.negf %a : f32
  %min = arith.minimumf %a, %b : f32
  %one = arith.constant 1.0 : f32
  %fma = math.fma %a, %b, %one : f32
  return %add, %sub, %mul, %div, %rem, %neg, %min, %fma
      : f32, f32, f32, f32, f32, f32, f32, f32
}

func.func @conversions(%x: f64) -> (i32, f32, f64, i32) {
  %i = arith.fptosi %x : f64 to i32
  %f = arith.truncf %x : f64 to f32
  %back = arith.sitofp %i : i32 to f64
  %zero = arith.constant 0.0 : f64
  %neg = arith.cmpf olt, %x, %zero : f64
  %n = arith.extui %neg : i1 to i32
  return %i, %f, %back, %n : i32, f32, f64, i32
}

// Ordered comparisons with NaN are false; unordered ones are true.
func.func @nan_compare(%x: f32) -> (i32, i32) {
  %o = arith.cmpf oeq, %x, %x : f32
  %u = arith.cmpf une, %x, %x : f32
  %oi = arith.extui %o : i1 to i32
  %ui = arith.extui %u : i1 to i32
  return %oi, %ui : i32, i32
}
