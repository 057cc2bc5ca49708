//===- MathExpansions.cpp - library-free math the upstream patterns lack --===//
//
// See MathExpansions.h. The f64 functions work on scalars and vectors alike
// (constants are splats of the operand's type). Their accuracy is a few
// ulps over the whole range, with one exception: sin and cos reduce their
// argument by pi/2 in three parts (Cody-Waite), exact up to |x| ~ 1e5 and
// losing digits beyond.
//
//===----------------------------------------------------------------------===//
#include "MathExpansions.h"

#include "Strata/Conversion/MathExpansions.h"

#include <cmath>
#include <type_traits>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::strata::llvmcpu {
namespace {

/// Arithmetic on values of one float type (scalar or vector), with splat
/// constants of that type.
class F {
public:
  F(PatternRewriter &rewriter, Location loc, Type type)
      : b(loc, rewriter), type(type) {
    auto vector = dyn_cast<VectorType>(type);
    intType = vector ? Type(VectorType::get(vector.getShape(), b.getI64Type()))
                     : Type(b.getI64Type());
    boolType = vector ? Type(VectorType::get(vector.getShape(), b.getI1Type()))
                      : Type(b.getI1Type());
  }

  Value c(double v) {
    Type element = getElementTypeOrSelf(type);
    if (auto vector = dyn_cast<VectorType>(type)) {
      return arith::ConstantOp::create(
          b, DenseElementsAttr::get(vector, b.getFloatAttr(element, v)));
    }
    return arith::ConstantOp::create(b, b.getFloatAttr(element, v));
  }
  Value ci(int64_t v) {
    if (auto vector = dyn_cast<VectorType>(intType)) {
      return arith::ConstantOp::create(
          b, DenseElementsAttr::get(vector, b.getI64IntegerAttr(v)));
    }
    return arith::ConstantOp::create(b, b.getI64IntegerAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, x, y); }
  Value neg(Value x) { return arith::NegFOp::create(b, x); }
  Value abs(Value x) { return math::AbsFOp::create(b, x); }
  Value sqrt(Value x) { return math::SqrtOp::create(b, x); }
  Value copysign(Value x, Value s) { return math::CopySignOp::create(b, x, s); }
  Value roundeven(Value x) { return math::RoundEvenOp::create(b, x); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, p, x, y);
  }
  Value lt(Value x, Value y) { return cmp(arith::CmpFPredicate::OLT, x, y); }
  Value gt(Value x, Value y) { return cmp(arith::CmpFPredicate::OGT, x, y); }
  Value eq(Value x, Value y) { return cmp(arith::CmpFPredicate::OEQ, x, y); }
  Value isNaN(Value x) { return cmp(arith::CmpFPredicate::UNO, x, x); }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, cond, x, y);
  }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, x, y); }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, x, y); }
  Value bitsOf(Value x) { return arith::BitcastOp::create(b, intType, x); }
  Value fromBits(Value x) { return arith::BitcastOp::create(b, type, x); }
  Value toInt(Value x) { return arith::FPToSIOp::create(b, intType, x); }
  Value toFloat(Value x) { return arith::SIToFPOp::create(b, type, x); }

  /// sum_i coefficients[i] * x^i (Horner).
  Value poly(Value x, ArrayRef<double> coefficients) {
    Value result = c(coefficients.back());
    for (double coefficient : llvm::reverse(coefficients.drop_back())) {
      result = add(mul(result, x), c(coefficient));
    }
    return result;
  }

  /// 2^k for integral k in [-1074, 1023] (a float), exact.
  Value exp2Int(Value k) {
    // Two factors, so each exponent is a normal number's.
    Value half = roundeven(mul(k, c(0.5)));
    Value rest = sub(k, half);
    auto pow2 = [&](Value e) {
      Value biased = arith::AddIOp::create(b, toInt(e), ci(1023));
      return fromBits(arith::ShLIOp::create(b, biased, ci(52)));
    };
    return mul(pow2(half), pow2(rest));
  }

  ImplicitLocOpBuilder b;
  Type type;
  Type intType;
  Type boolType;
};

constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kPi = 3.14159265358979311600e+00;

/// 1/n! for n = 0..count-1.
SmallVector<double> inverseFactorials(int count) {
  SmallVector<double> result;
  double f = 1;
  for (int n = 0; n < count; ++n) {
    if (n > 0) {
      f *= n;
    }
    result.push_back(1.0 / f);
  }
  return result;
}

Value expF64(F &f, Value x) {
  // x = k ln2 + r, |r| <= ln2 / 2; e^r by its Taylor series to r^14.
  Value clamped = f.select(f.gt(x, f.c(710.0)), f.c(710.0),
                           f.select(f.lt(x, f.c(-746.0)), f.c(-746.0), x));
  Value k = f.roundeven(f.mul(clamped, f.c(1.4426950408889634)));
  Value r = f.sub(f.sub(clamped, f.mul(k, f.c(kLn2Hi))), f.mul(k, f.c(kLn2Lo)));
  Value p = f.poly(r, inverseFactorials(15));
  Value result = f.mul(p, f.exp2Int(k));
  result = f.select(f.gt(x, f.c(709.782712893384)), f.c(INFINITY), result);
  result = f.select(f.lt(x, f.c(-745.1332191019412)), f.c(0.0), result);
  return f.select(f.isNaN(x), x, result);
}

Value logF64(F &f, Value x) {
  // x = m 2^e with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh((m-1)/(m+1)).
  Value subnormal = f.lt(x, f.c(2.2250738585072014e-308));
  Value scaled = f.select(subnormal, f.mul(x, f.c(18014398509481984.0)), x);
  Value bits = f.bitsOf(scaled);
  Value exponentBits = arith::AndIOp::create(
      f.b, arith::ShRUIOp::create(f.b, bits, f.ci(52)), f.ci(0x7ff));
  Value e = f.toFloat(arith::SubIOp::create(f.b, exponentBits, f.ci(1023)));
  e = f.select(subnormal, f.sub(e, f.c(54.0)), e);
  Value mantissa = f.fromBits(arith::OrIOp::create(
      f.b, arith::AndIOp::create(f.b, bits, f.ci(0x000fffffffffffffLL)),
      f.ci(0x3ff0000000000000LL)));
  Value big = f.gt(mantissa, f.c(1.4142135623730951));
  Value m = f.select(big, f.mul(mantissa, f.c(0.5)), mantissa);
  e = f.select(big, f.add(e, f.c(1.0)), e);
  Value t = f.div(f.sub(m, f.c(1.0)), f.add(m, f.c(1.0)));
  Value s = f.mul(t, t);
  SmallVector<double> odd;
  for (int n = 0; n < 14; ++n) {
    odd.push_back(1.0 / (2 * n + 1));
  }
  Value logM = f.mul(f.mul(f.c(2.0), t), f.poly(s, odd));
  Value result =
      f.add(f.mul(e, f.c(kLn2Hi)), f.add(logM, f.mul(e, f.c(kLn2Lo))));
  result = f.select(f.eq(x, f.c(INFINITY)), x, result);
  result = f.select(f.eq(x, f.c(0.0)), f.c(-INFINITY), result);
  return f.select(f.orI(f.lt(x, f.c(0.0)), f.isNaN(x)), f.c(NAN), result);
}

/// sin(x) and cos(x).
std::pair<Value, Value> sinCosF64(F &f, Value x) {
  // x = q pi/2 + r, |r| <= pi/4 (pi/2 in three parts).
  Value q = f.roundeven(f.mul(x, f.c(0.63661977236758138243)));
  Value r = f.sub(x, f.mul(q, f.c(1.57079632673412561417e+00)));
  r = f.sub(r, f.mul(q, f.c(6.07710050630396597660e-11)));
  r = f.sub(r, f.mul(q, f.c(2.02226624871116645580e-21)));
  Value r2 = f.mul(r, r);
  SmallVector<double> sinTerms, cosTerms;
  SmallVector<double> inv = inverseFactorials(22);
  for (int n = 0; n < 10; ++n) {
    double sign = n % 2 ? -1.0 : 1.0;
    sinTerms.push_back(sign * inv[2 * n + 1]);
    cosTerms.push_back(sign * inv[2 * n]);
  }
  Value sinR = f.mul(r, f.poly(r2, sinTerms));
  Value cosR = f.poly(r2, cosTerms);
  // The quadrant q mod 4; q is NaN or huge only where r is NaN anyway.
  Value finite = f.lt(f.abs(q), f.c(9.0e15));
  Value quadrant = arith::AndIOp::create(
      f.b, f.toInt(f.select(finite, q, f.c(0.0))), f.ci(3));
  auto is = [&](int64_t v) {
    return arith::CmpIOp::create(f.b, arith::CmpIPredicate::eq, quadrant,
                                 f.ci(v));
  };
  Value swap = f.orI(is(1), is(3));
  Value sinBase = f.select(swap, cosR, sinR);
  Value cosBase = f.select(swap, sinR, cosR);
  Value sinNeg = f.orI(is(2), is(3));
  Value cosNeg = f.orI(is(1), is(2));
  return {f.select(sinNeg, f.neg(sinBase), sinBase),
          f.select(cosNeg, f.neg(cosBase), cosBase)};
}

Value atanF64(F &f, Value x) {
  // |x| > 1: pi/2 - atan(1/|x|); then t > tan(pi/8): pi/4 + atan((t-1)/(t+1)).
  Value a = f.abs(x);
  Value inverted = f.gt(a, f.c(1.0));
  Value t = f.select(inverted, f.div(f.c(1.0), a), a);
  Value reduced = f.gt(t, f.c(0.41421356237309503));
  Value u = f.select(reduced, f.div(f.sub(t, f.c(1.0)), f.add(t, f.c(1.0))), t);
  SmallVector<double> terms;
  for (int n = 0; n < 25; ++n) {
    terms.push_back((n % 2 ? -1.0 : 1.0) / (2 * n + 1));
  }
  Value p = f.mul(u, f.poly(f.mul(u, u), terms));
  p = f.select(reduced, f.add(f.c(kPi / 4), p), p);
  p = f.select(inverted, f.sub(f.c(kPi / 2), p), p);
  return f.select(f.isNaN(x), x, f.copysign(p, x));
}

Value atan2F64(F &f, Value y, Value x) {
  Value base = atanF64(f, f.div(y, x));
  // Left half-plane: +-pi. Both zero: 0 or pi by the sign of x, signed as y.
  Value xNegative = arith::CmpIOp::create(f.b, arith::CmpIPredicate::slt,
                                          f.bitsOf(x), f.ci(0));
  Value shifted = f.add(base, f.copysign(f.c(kPi), y));
  Value result = f.select(xNegative, shifted, base);
  Value zeros = f.andI(f.eq(x, f.c(0.0)), f.eq(y, f.c(0.0)));
  Value zeroResult = f.copysign(f.select(xNegative, f.c(kPi), f.c(0.0)), y);
  // Both infinite: odd multiples of pi/4.
  Value infinities =
      f.andI(f.eq(f.abs(x), f.c(INFINITY)), f.eq(f.abs(y), f.c(INFINITY)));
  Value infResult =
      f.copysign(f.select(xNegative, f.c(3 * kPi / 4), f.c(kPi / 4)), y);
  result = f.select(zeros, zeroResult, result);
  return f.select(infinities, infResult, result);
}

/// erfc(a) for a >= 2 by its continued fraction.
Value erfcTailF64(F &f, Value a) {
  Value k = a;
  for (int n = 60; n >= 1; --n) {
    k = f.add(a, f.div(f.c(n / 2.0), k));
  }
  Value e = expF64(f, f.neg(f.mul(a, a)));
  return f.div(e, f.mul(f.c(1.7724538509055160273), k));
}

/// erf(a) for 0 <= a < 2 by its Taylor series.
Value erfSeriesF64(F &f, Value a) {
  Value minusA2 = f.neg(f.mul(a, a));
  Value term = a;
  Value sum = a;
  for (int n = 1; n < 50; ++n) {
    term = f.mul(term, f.div(minusA2, f.c(n)));
    sum = f.add(sum, f.mul(term, f.c(1.0 / (2 * n + 1))));
  }
  return f.mul(sum, f.c(1.1283791670955125739));
}

Value erfF64(F &f, Value x) {
  Value a = f.abs(x);
  Value small = f.lt(a, f.c(2.0));
  Value clampedSmall = f.select(small, a, f.c(0.0));
  Value clampedLarge = f.select(small, f.c(2.0), a);
  Value result = f.select(small, erfSeriesF64(f, clampedSmall),
                          f.sub(f.c(1.0), erfcTailF64(f, clampedLarge)));
  result = f.select(f.eq(a, f.c(INFINITY)), f.c(1.0), result);
  return f.select(f.isNaN(x), x, f.copysign(result, x));
}

Value erfcF64(F &f, Value x) {
  Value a = f.abs(x);
  Value small = f.lt(a, f.c(2.0));
  Value clampedSmall = f.select(small, a, f.c(0.0));
  Value clampedLarge = f.select(small, f.c(2.0), a);
  Value erfA = erfSeriesF64(f, clampedSmall);
  Value tail = erfcTailF64(f, clampedLarge);
  tail = f.select(f.eq(a, f.c(INFINITY)), f.c(0.0), tail);
  // erfc(a) = 1 - erf(a) near 0, the tail beyond; erfc(-a) = 2 - erfc(a).
  Value positive = f.select(small, f.sub(f.c(1.0), erfA), tail);
  Value result =
      f.select(f.lt(x, f.c(0.0)), f.sub(f.c(2.0), positive), positive);
  return f.select(f.isNaN(x), x, result);
}

Value cbrtF64(F &f, Value x) {
  Value a = f.abs(x);
  Value y = expF64(f, f.mul(logF64(f, a), f.c(1.0 / 3.0)));
  // One Newton step: y - (y^3 - a) / (3 y^2).
  Value y2 = f.mul(y, y);
  y = f.sub(y, f.div(f.sub(f.mul(y2, y), a), f.mul(f.c(3.0), y2)));
  Value special =
      f.orI(f.orI(f.eq(a, f.c(0.0)), f.eq(a, f.c(INFINITY))), f.isNaN(x));
  return f.select(special, x, f.copysign(y, x));
}

Value expm1F64(F &f, Value x) {
  Value small = f.lt(f.abs(x), f.c(0.5));
  SmallVector<double> inv = inverseFactorials(20);
  Value series = f.mul(x, f.poly(x, ArrayRef<double>(inv).drop_front()));
  Value large = f.sub(expF64(f, x), f.c(1.0));
  return f.select(small, series, large);
}

Value log1pF64(F &f, Value x) {
  // log(u) * x / (u - 1) with u = 1 + x corrects u's rounding (Kahan).
  Value u = f.add(x, f.c(1.0));
  Value d = f.sub(u, f.c(1.0));
  Value corrected = f.div(f.mul(logF64(f, u), x), d);
  Value result = f.select(f.eq(d, f.c(0.0)), x, corrected);
  return f.select(f.eq(x, f.c(INFINITY)), x,
                  f.select(f.eq(u, f.c(0.0)), f.c(-INFINITY), result));
}

bool isF64(Type type) { return getElementTypeOrSelf(type).isF64(); }

template <typename OpTy, Value (*Fn)(F &, Value)>
struct UnaryF64 : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!isF64(op.getType())) {
      return failure();
    }
    F f(rewriter, op.getLoc(), op.getType());
    rewriter.replaceOp(op, Fn(f, op.getOperand()));
    return success();
  }
};

Value sinF64(F &f, Value x) { return sinCosF64(f, x).first; }
Value cosF64(F &f, Value x) { return sinCosF64(f, x).second; }
Value log2F64(F &f, Value x) {
  return f.mul(logF64(f, x), f.c(1.4426950408889634074));
}
Value asinF64(F &f, Value x) {
  Value root = f.sqrt(f.mul(f.sub(f.c(1.0), x), f.add(f.c(1.0), x)));
  return atan2F64(f, x, root);
}
Value acosF64(F &f, Value x) {
  Value root = f.sqrt(f.mul(f.sub(f.c(1.0), x), f.add(f.c(1.0), x)));
  return atan2F64(f, root, x);
}

struct Atan2F64 : OpRewritePattern<math::Atan2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Atan2Op op,
                                PatternRewriter &rewriter) const override {
    if (!isF64(op.getType())) {
      return failure();
    }
    F f(rewriter, op.getLoc(), op.getType());
    rewriter.replaceOp(op, atan2F64(f, op.getLhs(), op.getRhs()));
    return success();
  }
};

/// math.sincos as its two halves.
struct SplitSincos : OpRewritePattern<math::SincosOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::SincosOp op,
                                PatternRewriter &rewriter) const override {
    Value sin = math::SinOp::create(rewriter, op.getLoc(), op.getOperand());
    Value cos = math::CosOp::create(rewriter, op.getLoc(), op.getOperand());
    rewriter.replaceOp(op, {sin, cos});
    return success();
  }
};

/// Hyperbolic functions through expm1 and log1p, accurate near 0 where
/// upstream's expansions through exp and log cancel (sinh(1e-8) = 0), and
/// without overflow before the result does. On every float type; tanh on
/// f64 only (f32 has a polynomial).
template <typename OpTy> struct Hyperbolic : OpRewritePattern<OpTy> {
  Hyperbolic(MLIRContext *context)
      : OpRewritePattern<OpTy>(context, /*benefit=*/3) {}
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isa<FloatType>(getElementTypeOrSelf(type)) ||
        (std::is_same_v<OpTy, math::TanhOp> && !isF64(type))) {
      return failure();
    }
    F f(rewriter, op.getLoc(), type);
    Value x = op.getOperand();
    Value a = f.abs(x);
    auto expm1 = [&](Value v) { return math::ExpM1Op::create(f.b, v); };
    auto log1p = [&](Value v) { return math::Log1pOp::create(f.b, v); };
    auto log = [&](Value v) { return math::LogOp::create(f.b, v); };
    auto exp = [&](Value v) { return math::ExpOp::create(f.b, v); };
    Value result;
    if constexpr (std::is_same_v<OpTy, math::SinhOp>) {
      // (t + t / (t + 1)) / 2 with t = expm1(|x|); beyond 20, e^|x| / 2
      // as (e^(|x|/2))^2 / 2, so it overflows only where sinh does.
      Value t = expm1(a);
      Value near = f.mul(f.c(0.5), f.add(t, f.div(t, f.add(t, f.c(1.0)))));
      Value h = exp(f.mul(a, f.c(0.5)));
      Value far = f.mul(f.mul(f.c(0.5), h), h);
      result = f.copysign(f.select(f.lt(a, f.c(20.0)), near, far), x);
    } else if constexpr (std::is_same_v<OpTy, math::TanhOp>) {
      // t / (t + 2) with t = expm1(2|x|); 1 beyond 20.
      Value t = expm1(f.mul(f.c(2.0), a));
      Value near = f.div(t, f.add(t, f.c(2.0)));
      result = f.copysign(f.select(f.lt(a, f.c(20.0)), near, f.c(1.0)), x);
    } else if constexpr (std::is_same_v<OpTy, math::AsinhOp>) {
      // log1p(a + a^2 / (1 + sqrt(1 + a^2))); log(a) + ln 2 for huge a.
      Value a2 = f.mul(a, a);
      Value near = log1p(
          f.add(a, f.div(a2, f.add(f.c(1.0), f.sqrt(f.add(f.c(1.0), a2))))));
      Value far = f.add(log(a), f.c(0.69314718055994530942));
      result = f.copysign(f.select(f.lt(a, f.c(268435456.0)), near, far), x);
    } else if constexpr (std::is_same_v<OpTy, math::AtanhOp>) {
      // log1p(2a / (1 - a)) / 2.
      Value v = f.div(f.mul(f.c(2.0), a), f.sub(f.c(1.0), a));
      result = f.copysign(f.mul(f.c(0.5), log1p(v)), x);
    } else {
      // acosh: log1p(t + sqrt(t (t + 2))) with t = x - 1 below 2,
      // log(x + sqrt(x^2 - 1)) up to 2^28, log(x) + ln 2 beyond.
      Value t = f.sub(x, f.c(1.0));
      Value near = log1p(f.add(t, f.sqrt(f.mul(t, f.add(t, f.c(2.0))))));
      Value mid = log(f.add(x, f.sqrt(f.sub(f.mul(x, x), f.c(1.0)))));
      Value far = f.add(log(x), f.c(0.69314718055994530942));
      result = f.select(f.lt(x, f.c(2.0)), near,
                        f.select(f.lt(x, f.c(268435456.0)), mid, far));
    }
    rewriter.replaceOp(op, f.select(f.isNaN(x), x, result));
    return success();
  }
};

/// f32 sin, cos, cbrt and atan2 computed in f64, whose versions above
/// reduce large arguments exactly and handle the special values (upstream's
/// f32 approximations lose all digits of sin(5000), give NaN for
/// cbrt(inf) and atan2(0, 0)). The f64 result rounds to f32 once.
template <typename OpTy> struct ThroughF64 : OpRewritePattern<OpTy> {
  ThroughF64(MLIRContext *context)
      : OpRewritePattern<OpTy>(context, /*benefit=*/3) {}
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32()) {
      return failure();
    }
    Type wide = rewriter.getF64Type();
    if (auto vector = dyn_cast<VectorType>(type)) {
      wide = VectorType::get(vector.getShape(), wide);
    }
    Location loc = op.getLoc();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      operands.push_back(arith::ExtFOp::create(rewriter, loc, wide, operand));
    }
    F f(rewriter, loc, wide);
    Value result;
    if constexpr (std::is_same_v<OpTy, math::SinOp>) {
      result = sinF64(f, operands[0]);
    } else if constexpr (std::is_same_v<OpTy, math::CosOp>) {
      result = cosF64(f, operands[0]);
    } else if constexpr (std::is_same_v<OpTy, math::CbrtOp>) {
      result = cbrtF64(f, operands[0]);
    } else {
      result = atan2F64(f, operands[0], operands[1]);
    }
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, result);
    return success();
  }
};

/// arith.truncf f64 -> f16 (which LLVM turns into a call of
/// __truncdfhf2) as f64 -> f32 rounded to odd, then f32 -> f16 rounded to
/// nearest even: a single correct rounding, since f32 keeps more than
/// twice f16's precision plus two bits.
struct TruncF64ToF16 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type in = getElementTypeOrSelf(op.getIn().getType());
    Type out = getElementTypeOrSelf(op.getType());
    if (!in.isF64() || !out.isF16() || op.getRoundingmodeAttr()) {
      return failure();
    }
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
    Type wide = op.getIn().getType();
    if (auto vector = dyn_cast<VectorType>(wide)) {
      f32 = VectorType::get(vector.getShape(), f32);
      i32 = VectorType::get(vector.getShape(), i32);
    }
    ImplicitLocOpBuilder b(loc, rewriter);
    Value x = op.getIn();
    Value nearest = arith::TruncFOp::create(b, f32, x);
    Value back = arith::ExtFOp::create(b, wide, nearest);
    // Toward zero: one ulp back when rounding went away from zero.
    Value bits = arith::BitcastOp::create(b, i32, nearest);
    auto splat = [&](int32_t v) -> Value {
      if (auto vector = dyn_cast<VectorType>(i32)) {
        return arith::ConstantOp::create(
            b, DenseElementsAttr::get(vector, b.getI32IntegerAttr(v)));
      }
      return arith::ConstantOp::create(b, b.getI32IntegerAttr(v));
    };
    Value away = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT,
                                       math::AbsFOp::create(b, back),
                                       math::AbsFOp::create(b, x));
    Value towardZero = arith::SelectOp::create(
        b, away, arith::SubIOp::create(b, bits, splat(1)), bits);
    // Inexact: set the last bit (round to odd). Exact, infinite or NaN:
    // as it is.
    Value inexact =
        arith::CmpFOp::create(b, arith::CmpFPredicate::ONE, back, x);
    Value odd = arith::SelectOp::create(
        b, inexact, arith::OrIOp::create(b, towardZero, splat(1)), bits);
    Value narrowed = arith::BitcastOp::create(b, f32, odd);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), narrowed);
    return success();
  }
};

} // namespace

void populateMathExpansionPatterns(RewritePatternSet &patterns) {
  patterns.add<TruncF64ToF16>(patterns.getContext());
  patterns.add<ThroughF64<math::SinOp>, ThroughF64<math::CosOp>,
               ThroughF64<math::CbrtOp>, ThroughF64<math::Atan2Op>>(
      patterns.getContext());
  patterns.add<Hyperbolic<math::SinhOp>, Hyperbolic<math::TanhOp>,
               Hyperbolic<math::AsinhOp>, Hyperbolic<math::AtanhOp>,
               Hyperbolic<math::AcoshOp>>(patterns.getContext());
  MLIRContext *context = patterns.getContext();
  patterns
      .add<strata::Log10ToLog, SplitSincos, Atan2F64,
           UnaryF64<math::ExpOp, expF64>, UnaryF64<math::LogOp, logF64>,
           UnaryF64<math::Log2Op, log2F64>, UnaryF64<math::Log1pOp, log1pF64>,
           UnaryF64<math::ExpM1Op, expm1F64>, UnaryF64<math::SinOp, sinF64>,
           UnaryF64<math::CosOp, cosF64>, UnaryF64<math::AtanOp, atanF64>,
           UnaryF64<math::AsinOp, asinF64>, UnaryF64<math::AcosOp, acosF64>,
           UnaryF64<math::ErfOp, erfF64>, UnaryF64<math::ErfcOp, erfcF64>,
           UnaryF64<math::CbrtOp, cbrtF64>>(context);
}

} // namespace mlir::strata::llvmcpu
