// ElementwiseOps.cpp - ONNX's elementwise op types (unary math,
// activations, binary arithmetic with broadcasting, comparisons, logic,
// Cast, Where, Clip) as broadcasting linalg.generic ops.

#include "Lowering.h"

#include <cmath>

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

using ScalarFn = std::function<Value(OpBuilder &, Location, ValueRange)>;

/// Broadcasts inputs [0, count) and applies `fn` to each element; the
/// result has `resultElement` (the first input's when null).
LogicalResult lowerMap(Node &n, unsigned count, Type resultElement,
                       bool resultUnsigned, const ScalarFn &fn) {
  SmallVector<Value> inputs;
  SmallVector<ArrayRef<int64_t>> shapes;
  for (unsigned i = 0; i < count; ++i) {
    if (!n.has(i)) {
      return n.fail("input " + llvm::Twine(i) + " is missing");
    }
    inputs.push_back(n.in(i));
    shapes.push_back(n.shape(i));
  }
  FailureOr<SmallVector<int64_t>> shape = broadcastShapes(shapes);
  if (failed(shape)) {
    return n.fail("the input shapes do not broadcast");
  }
  Type element = resultElement ? resultElement : n.elem(0);
  Value result = elementwise(n.b, n.loc, inputs, *shape, element,
                             [&](OpBuilder &b, Location loc, ValueRange args) {
                               return fn(b, loc, args);
                             });
  return n.replace(result, {resultUnsigned});
}

void unaryFloat(LoweringTable &table, llvm::StringRef name,
                std::function<Value(OpBuilder &, Location, Value, Node &)> fn,
                bool viaF32Math = true) {
  table[name] = [fn, viaF32Math](Node &n) -> LogicalResult {
    if (!n.has(0) || !isFloat(n.elem(0))) {
      return n.fail("expects a floating-point input");
    }
    return lowerMap(n, 1, nullptr, false,
                    [&](OpBuilder &b, Location loc, ValueRange args) {
                      if (!viaF32Math) {
                        return fn(b, loc, args[0], n);
                      }
                      return viaF32(b, loc, args[0], [&](Value x) {
                        return fn(b, loc, x, n);
                      });
                    });
  };
}

template <typename OpTy>
std::function<Value(OpBuilder &, Location, Value, Node &)> mathOp() {
  return [](OpBuilder &b, Location loc, Value x, Node &) -> Value {
    return OpTy::create(b, loc, x);
  };
}

Value cst(OpBuilder &b, Location loc, Value like, double value) {
  return scalar(b, loc, like.getType(), value);
}

Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value neg = arith::NegFOp::create(b, loc, x);
  Value e = math::ExpOp::create(b, loc, neg);
  Value one = cst(b, loc, x, 1.0);
  Value den = arith::AddFOp::create(b, loc, one, e);
  return arith::DivFOp::create(b, loc, one, den);
}

Value select(OpBuilder &b, Location loc, Value cond, Value a, Value c) {
  return arith::SelectOp::create(b, loc, cond, a, c);
}

Value cmpf(OpBuilder &b, Location loc, arith::CmpFPredicate p, Value x,
           Value y) {
  return arith::CmpFOp::create(b, loc, p, x, y);
}

/// ONNX's Cast/CastLike element type codes (TensorProto.DataType).
std::pair<Type, bool> dataType(MLIRContext *ctx, int64_t code) {
  Builder b(ctx);
  switch (code) {
  case 1:
    return {b.getF32Type(), false};
  case 2:
    return {b.getIntegerType(8), true};
  case 3:
    return {b.getIntegerType(8), false};
  case 4:
    return {b.getIntegerType(16), true};
  case 5:
    return {b.getIntegerType(16), false};
  case 6:
    return {b.getIntegerType(32), false};
  case 7:
    return {b.getIntegerType(64), false};
  case 9:
    return {b.getI1Type(), false};
  case 10:
    return {b.getF16Type(), false};
  case 11:
    return {b.getF64Type(), false};
  case 12:
    return {b.getIntegerType(32), true};
  case 13:
    return {b.getIntegerType(64), true};
  case 16:
    return {b.getBF16Type(), false};
  // The narrow types (opsets 19 and 21) are returned as their ONNX types
  // (Cast converts them with convertOnnxScalar).
  case 17:
    return {Float8E4M3FNType::get(ctx), false};
  case 18:
    return {Float8E4M3FNUZType::get(ctx), false};
  case 19:
    return {Float8E5M2Type::get(ctx), false};
  case 20:
    return {Float8E5M2FNUZType::get(ctx), false};
  case 21:
    return {IntegerType::get(ctx, 4, IntegerType::Unsigned), false};
  case 22:
    return {b.getIntegerType(4), false};
  default:
    return {Type(), false};
  }
}

/// Cast and CastLike from or to a narrow type (float8, int4, uint4):
/// elementwise conversion of the i8 storage, `saturate` (opset 19 on)
/// choosing what a float8 does out of range.
LogicalResult castNarrow(Node &n, Type to) {
  Type from = n.onnxElem(0);
  bool saturate = n.opset() < 19 || n.intAttr("saturate", 1) != 0;
  Value result =
      elementwise(n.b, n.loc, {n.in(0)}, n.shape(0), storageElement(to),
                  [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                    return convertOnnxScalar(b, l, a[0], from, to, saturate);
                  });
  bool marked = isNarrowElement(to) || to.isUnsignedInteger();
  n.narrowElem = isNarrowElement(to) ? to : Type();
  return n.replace(result, {marked});
}

/// A binary arithmetic op type on floats and (signed or unsigned)
/// integers.
void binary(LoweringTable &table, llvm::StringRef name,
            std::function<Value(OpBuilder &, Location, Value, Value, bool,
                                Node &)>
                fn) {
  table[name] = [fn](Node &n) -> LogicalResult {
    if (n.numInputs() < 2) {
      return n.fail("expects two inputs");
    }
    if (n.elem(0) != n.elem(1)) {
      return n.fail("the two inputs have different element types");
    }
    bool isUnsigned = n.isUnsigned(0);
    return lowerMap(n, 2, nullptr, isUnsigned,
                    [&](OpBuilder &b, Location loc, ValueRange args) {
                      return fn(b, loc, args[0], args[1], isUnsigned, n);
                    });
  };
}

/// Max, Min, Sum, Mean: any number of broadcast inputs.
void variadic(LoweringTable &table, llvm::StringRef name,
              std::function<Value(OpBuilder &, Location, Value, Value, bool)>
                  combine,
              bool mean = false) {
  table[name] = [combine, mean](Node &n) -> LogicalResult {
    unsigned count = n.numInputs();
    if (count == 0) {
      return n.fail("expects at least one input");
    }
    bool isUnsigned = n.isUnsigned(0);
    return lowerMap(n, count, nullptr, isUnsigned,
                    [&](OpBuilder &b, Location loc, ValueRange args) {
                      Value acc = args[0];
                      for (Value arg : args.drop_front()) {
                        acc = combine(b, loc, acc, arg, isUnsigned);
                      }
                      if (mean) {
                        acc = arith::DivFOp::create(
                            b, loc, acc, cst(b, loc, acc, args.size()));
                      }
                      return acc;
                    });
  };
}

Value maxOf(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned) {
  if (isFloat(x.getType())) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  if (isUnsigned) {
    return arith::MaxUIOp::create(b, loc, x, y);
  }
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value minOf(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned) {
  if (isFloat(x.getType())) {
    return arith::MinimumFOp::create(b, loc, x, y);
  }
  if (isUnsigned) {
    return arith::MinUIOp::create(b, loc, x, y);
  }
  return arith::MinSIOp::create(b, loc, x, y);
}

void comparison(LoweringTable &table, llvm::StringRef name,
                arith::CmpFPredicate fp, arith::CmpIPredicate si,
                arith::CmpIPredicate ui) {
  table[name] = [=](Node &n) -> LogicalResult {
    if (n.numInputs() < 2 || n.elem(0) != n.elem(1)) {
      return n.fail("expects two inputs of one element type");
    }
    bool isUnsigned = n.isUnsigned(0);
    return lowerMap(n, 2, n.b.getI1Type(), false,
                    [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
                      if (isFloat(args[0].getType())) {
                        return cmpf(b, loc, fp, args[0], args[1]);
                      }
                      return arith::CmpIOp::create(b, loc,
                                                   isUnsigned ? ui : si,
                                                   args[0], args[1]);
                    });
  };
}

Value powOf(OpBuilder &b, Location loc, Value x, Value y) {
  return viaF32(b, loc, x, [&](Value base) -> Value {
    Value exponent = convertScalar(b, loc, y, base.getType());
    // Negative bases with integral exponents: |x|^y with the sign of x
    // when y is odd (math.powf's expansion takes the logarithm of x).
    Value absBase = math::AbsFOp::create(b, loc, base);
    Value magnitude = math::PowFOp::create(b, loc, absBase, exponent);
    Value zero = cst(b, loc, base, 0.0);
    Value two = cst(b, loc, base, 2.0);
    Value isNegative = cmpf(b, loc, arith::CmpFPredicate::OLT, base, zero);
    Value truncated = math::TruncOp::create(b, loc, exponent);
    Value isIntegral =
        cmpf(b, loc, arith::CmpFPredicate::OEQ, truncated, exponent);
    Value half = arith::DivFOp::create(b, loc, exponent, two);
    Value halfTrunc = math::TruncOp::create(b, loc, half);
    Value isOdd = cmpf(b, loc, arith::CmpFPredicate::ONE, halfTrunc, half);
    Value negated = arith::NegFOp::create(b, loc, magnitude);
    Value nan = cst(b, loc, base, std::nan(""));
    Value signedResult = select(b, loc, isOdd, negated, magnitude);
    Value negativeResult = select(b, loc, isIntegral, signedResult, nan);
    Value result = select(b, loc, isNegative, negativeResult, magnitude);
    // x^0 is 1, also for x = 0 and NaN.
    Value isZeroExp = cmpf(b, loc, arith::CmpFPredicate::OEQ, exponent, zero);
    return select(b, loc, isZeroExp, cst(b, loc, base, 1.0), result);
  });
}

} // namespace

void mlir::strata::onnx::addElementwiseLowerings(LoweringTable &table) {
  // Every pattern of this file but PRelu's broadcasts through
  // `elementwise`, which takes dynamic dimensions: they are marked so at
  // the end.
  llvm::StringSet<> before;
  for (const auto &entry : table) {
    before.insert(entry.getKey());
  }
  // Unary math, computed in f32 where the element type is narrower or
  // wider (the kernels approximate transcendental functions in f32).
  unaryFloat(table, "Exp", mathOp<math::ExpOp>());
  unaryFloat(table, "Log", mathOp<math::LogOp>());
  unaryFloat(table, "Sin", mathOp<math::SinOp>());
  unaryFloat(table, "Cos", mathOp<math::CosOp>());
  unaryFloat(table, "Tan", mathOp<math::TanOp>());
  unaryFloat(table, "Asin", mathOp<math::AsinOp>());
  unaryFloat(table, "Acos", mathOp<math::AcosOp>());
  unaryFloat(table, "Atan", mathOp<math::AtanOp>());
  unaryFloat(table, "Sinh", mathOp<math::SinhOp>());
  unaryFloat(table, "Cosh", mathOp<math::CoshOp>());
  unaryFloat(table, "Asinh", mathOp<math::AsinhOp>());
  unaryFloat(table, "Acosh", mathOp<math::AcoshOp>());
  unaryFloat(table, "Atanh", mathOp<math::AtanhOp>());
  unaryFloat(table, "Tanh", mathOp<math::TanhOp>());
  unaryFloat(table, "Erf", mathOp<math::ErfOp>());
  unaryFloat(table, "Sqrt", mathOp<math::SqrtOp>(), false);
  unaryFloat(table, "Ceil", mathOp<math::CeilOp>(), false);
  unaryFloat(table, "Floor", mathOp<math::FloorOp>(), false);
  unaryFloat(table, "Round", mathOp<math::RoundEvenOp>(), false);
  unaryFloat(table, "Reciprocal",
             [](OpBuilder &b, Location loc, Value x, Node &) -> Value {
               return arith::DivFOp::create(b, loc, cst(b, loc, x, 1.0), x);
             },
             false);
  unaryFloat(table, "Sigmoid",
             [](OpBuilder &b, Location loc, Value x, Node &) {
               return sigmoid(b, loc, x);
             });
  unaryFloat(table, "HardSigmoid",
             [](OpBuilder &b, Location loc, Value x, Node &n) -> Value {
               Value alpha = cst(b, loc, x, n.floatAttr("alpha", 0.2));
               Value beta = cst(b, loc, x, n.floatAttr("beta", 0.5));
               Value y = arith::AddFOp::create(
                   b, loc, arith::MulFOp::create(b, loc, alpha, x), beta);
               y = arith::MaximumFOp::create(b, loc, y, cst(b, loc, x, 0.0));
               return arith::MinimumFOp::create(b, loc, y,
                                                cst(b, loc, x, 1.0));
             },
             false);
  unaryFloat(table, "HardSwish",
             [](OpBuilder &b, Location loc, Value x, Node &) -> Value {
               Value y = arith::AddFOp::create(
                   b, loc, arith::MulFOp::create(b, loc,
                                                 cst(b, loc, x, 1.0 / 6), x),
                   cst(b, loc, x, 0.5));
               y = arith::MaximumFOp::create(b, loc, y, cst(b, loc, x, 0.0));
               y = arith::MinimumFOp::create(b, loc, y, cst(b, loc, x, 1.0));
               return arith::MulFOp::create(b, loc, x, y);
             },
             false);
  unaryFloat(table, "Relu",
             [](OpBuilder &b, Location loc, Value x, Node &) -> Value {
               return arith::MaximumFOp::create(b, loc, x,
                                                cst(b, loc, x, 0.0));
             },
             false);
  unaryFloat(table, "LeakyRelu",
             [](OpBuilder &b, Location loc, Value x, Node &n) -> Value {
               Value alpha = cst(b, loc, x, n.floatAttr("alpha", 0.01));
               Value neg = cmpf(b, loc, arith::CmpFPredicate::OLT, x,
                                cst(b, loc, x, 0.0));
               return select(b, loc, neg, arith::MulFOp::create(b, loc, alpha, x),
                             x);
             },
             false);
  unaryFloat(table, "ThresholdedRelu",
             [](OpBuilder &b, Location loc, Value x, Node &n) -> Value {
               Value alpha = cst(b, loc, x, n.floatAttr("alpha", 1.0));
               Value above = cmpf(b, loc, arith::CmpFPredicate::OGT, x, alpha);
               return select(b, loc, above, x, cst(b, loc, x, 0.0));
             },
             false);
  unaryFloat(table, "Elu",
             [](OpBuilder &b, Location loc, Value x, Node &n) -> Value {
               Value alpha = cst(b, loc, x, n.floatAttr("alpha", 1.0));
               Value em1 = arith::SubFOp::create(
                   b, loc, math::ExpOp::create(b, loc, x), cst(b, loc, x, 1.0));
               Value neg = cmpf(b, loc, arith::CmpFPredicate::OLT, x,
                                cst(b, loc, x, 0.0));
               return select(b, loc, neg,
                             arith::MulFOp::create(b, loc, alpha, em1), x);
             });
  unaryFloat(table, "Celu",
             [](OpBuilder &b, Location loc, Value x, Node &n) -> Value {
               Value alpha = cst(b, loc, x, n.floatAttr("alpha", 1.0));
               Value em1 = arith::SubFOp::create(
                   b, loc,
                   math::ExpOp::create(b, loc,
                                       arith::DivFOp::create(b, loc, x, alpha)),
                   cst(b, loc, x, 1.0));
               Value negPart = arith::MinimumFOp::create(
                   b, loc, cst(b, loc, x, 0.0),
                   arith::MulFOp::create(b, loc, alpha, em1));
               Value posPart =
                   arith::MaximumFOp::create(b, loc, cst(b, loc, x, 0.0), x);
               return arith::AddFOp::create(b, loc, posPart, negPart);
             });
  unaryFloat(table, "Selu",
             [](OpBuilder &b, Location loc, Value x, Node &n) -> Value {
               Value alpha =
                   cst(b, loc, x, n.floatAttr("alpha", 1.67326319217681884765625));
               Value gamma =
                   cst(b, loc, x, n.floatAttr("gamma", 1.05070102214813232421875));
               Value em1 = arith::SubFOp::create(
                   b, loc, math::ExpOp::create(b, loc, x), cst(b, loc, x, 1.0));
               Value neg = cmpf(b, loc, arith::CmpFPredicate::OLE, x,
                                cst(b, loc, x, 0.0));
               Value y = select(b, loc, neg,
                                arith::MulFOp::create(b, loc, alpha, em1), x);
               return arith::MulFOp::create(b, loc, gamma, y);
             });
  unaryFloat(
      table, "Mish", [](OpBuilder &b, Location loc, Value x, Node &) -> Value {
        // x * tanh(softplus(x)), softplus computed stably.
        Value zero = cst(b, loc, x, 0.0);
        Value e = math::ExpOp::create(
            b, loc,
            arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
        Value softplus = arith::AddFOp::create(
            b, loc, arith::MaximumFOp::create(b, loc, x, zero),
            math::Log1pOp::create(b, loc, e));
        return arith::MulFOp::create(b, loc, x,
                                     math::TanhOp::create(b, loc, softplus));
      });
  unaryFloat(table, "Softplus",
             [](OpBuilder &b, Location loc, Value x, Node &) -> Value {
               // log(1 + e^x) = max(x, 0) + log(1 + e^-|x|), stable.
               Value zero = cst(b, loc, x, 0.0);
               Value absX = math::AbsFOp::create(b, loc, x);
               Value e = math::ExpOp::create(
                   b, loc, arith::NegFOp::create(b, loc, absX));
               Value l = math::Log1pOp::create(b, loc, e);
               return arith::AddFOp::create(
                   b, loc, arith::MaximumFOp::create(b, loc, x, zero), l);
             });
  unaryFloat(table, "Softsign",
             [](OpBuilder &b, Location loc, Value x, Node &) -> Value {
               Value den = arith::AddFOp::create(
                   b, loc, cst(b, loc, x, 1.0), math::AbsFOp::create(b, loc, x));
               return arith::DivFOp::create(b, loc, x, den);
             },
             false);
  unaryFloat(table, "Gelu",
             [](OpBuilder &b, Location loc, Value x, Node &n) -> Value {
               Value half = cst(b, loc, x, 0.5);
               Value one = cst(b, loc, x, 1.0);
               Value inner;
               if (n.stringAttr("approximate").value_or("none") == "tanh") {
                 Value x3 = arith::MulFOp::create(
                     b, loc, x, arith::MulFOp::create(b, loc, x, x));
                 Value t = arith::AddFOp::create(
                     b, loc, x,
                     arith::MulFOp::create(b, loc, cst(b, loc, x, 0.044715),
                                           x3));
                 inner = math::TanhOp::create(
                     b, loc,
                     arith::MulFOp::create(
                         b, loc, cst(b, loc, x, std::sqrt(2.0 / M_PI)), t));
               } else {
                 inner = math::ErfOp::create(
                     b, loc,
                     arith::MulFOp::create(b, loc, x,
                                           cst(b, loc, x, M_SQRT1_2)));
               }
               return arith::MulFOp::create(
                   b, loc, arith::MulFOp::create(b, loc, half, x),
                   arith::AddFOp::create(b, loc, one, inner));
             });
  unaryFloat(table, "Shrink",
             [](OpBuilder &b, Location loc, Value x, Node &n) -> Value {
               Value bias = cst(b, loc, x, n.floatAttr("bias", 0.0));
               Value lambd = cst(b, loc, x, n.floatAttr("lambd", 0.5));
               Value negLambd = arith::NegFOp::create(b, loc, lambd);
               Value below =
                   cmpf(b, loc, arith::CmpFPredicate::OLT, x, negLambd);
               Value above = cmpf(b, loc, arith::CmpFPredicate::OGT, x, lambd);
               Value zero = cst(b, loc, x, 0.0);
               Value y = select(b, loc, above,
                                arith::SubFOp::create(b, loc, x, bias), zero);
               return select(b, loc, below,
                             arith::AddFOp::create(b, loc, x, bias), y);
             },
             false);

  // Abs, Neg, Sign: floats and integers.
  table["Abs"] = [](Node &n) {
    bool isUnsigned = n.isUnsigned(0);
    return lowerMap(n, 1, nullptr, isUnsigned,
                    [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                      if (isFloat(a[0].getType())) {
                        return math::AbsFOp::create(b, loc, a[0]);
                      }
                      if (isUnsigned) {
                        return a[0];
                      }
                      return math::AbsIOp::create(b, loc, a[0]);
                    });
  };
  table["Neg"] = [](Node &n) {
    return lowerMap(n, 1, nullptr, false,
                    [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                      if (isFloat(a[0].getType())) {
                        return arith::NegFOp::create(b, loc, a[0]);
                      }
                      return arith::SubIOp::create(b, loc, cst(b, loc, a[0], 0),
                                                   a[0]);
                    });
  };
  table["Sign"] = [](Node &n) {
    bool isUnsigned = n.isUnsigned(0);
    return lowerMap(n, 1, nullptr, isUnsigned,
                    [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                      Value x = a[0];
                      Value zero = cst(b, loc, x, 0), one = cst(b, loc, x, 1),
                            minusOne = cst(b, loc, x, -1);
                      Value pos, neg;
                      if (isFloat(x.getType())) {
                        pos = cmpf(b, loc, arith::CmpFPredicate::OGT, x, zero);
                        neg = cmpf(b, loc, arith::CmpFPredicate::OLT, x, zero);
                      } else {
                        pos = arith::CmpIOp::create(
                            b, loc,
                            isUnsigned ? arith::CmpIPredicate::ugt
                                       : arith::CmpIPredicate::sgt,
                            x, zero);
                        neg = isUnsigned
                                  ? arith::ConstantOp::create(
                                        b, loc, b.getBoolAttr(false))
                                        .getResult()
                                  : arith::CmpIOp::create(
                                        b, loc, arith::CmpIPredicate::slt, x,
                                        zero)
                                        .getResult();
                      }
                      return select(b, loc, pos, one,
                                    select(b, loc, neg, minusOne, zero));
                    });
  };
  table["IsNaN"] = [](Node &n) {
    return lowerMap(n, 1, n.b.getI1Type(), false,
                    [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                      return cmpf(b, loc, arith::CmpFPredicate::UNO, a[0],
                                  a[0]);
                    });
  };
  table["IsInf"] = [](Node &n) {
    bool negative = n.intAttr("detect_negative", 1) != 0;
    bool positive = n.intAttr("detect_positive", 1) != 0;
    return lowerMap(n, 1, n.b.getI1Type(), false,
                    [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                      Value x = a[0];
                      auto type = cast<FloatType>(x.getType());
                      Value inf = arith::ConstantOp::create(
                          b, loc,
                          b.getFloatAttr(type, APFloat::getInf(
                                                   type.getFloatSemantics())));
                      Value ninf = arith::NegFOp::create(b, loc, inf);
                      Value isPos =
                          cmpf(b, loc, arith::CmpFPredicate::OEQ, x, inf);
                      Value isNeg =
                          cmpf(b, loc, arith::CmpFPredicate::OEQ, x, ninf);
                      Value no = arith::ConstantOp::create(
                          b, loc, b.getBoolAttr(false));
                      Value p = positive ? isPos : no;
                      Value q = negative ? isNeg : no;
                      return arith::OrIOp::create(b, loc, p, q);
                    });
  };
  table["Not"] = [](Node &n) {
    return lowerMap(n, 1, nullptr, false,
                    [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                      return arith::XOrIOp::create(
                          b, loc, a[0],
                          arith::ConstantOp::create(b, loc,
                                                    b.getBoolAttr(true)));
                    });
  };

  binary(table, "Add",
         [](OpBuilder &b, Location loc, Value x, Value y, bool,
            Node &) -> Value {
           if (isFloat(x.getType())) {
             return arith::AddFOp::create(b, loc, x, y);
           }
           return arith::AddIOp::create(b, loc, x, y);
         });
  binary(table, "Sub",
         [](OpBuilder &b, Location loc, Value x, Value y, bool,
            Node &) -> Value {
           if (isFloat(x.getType())) {
             return arith::SubFOp::create(b, loc, x, y);
           }
           return arith::SubIOp::create(b, loc, x, y);
         });
  binary(table, "Mul",
         [](OpBuilder &b, Location loc, Value x, Value y, bool,
            Node &) -> Value {
           if (isFloat(x.getType())) {
             return arith::MulFOp::create(b, loc, x, y);
           }
           return arith::MulIOp::create(b, loc, x, y);
         });
  binary(table, "Div",
         [](OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned,
            Node &) -> Value {
           if (isFloat(x.getType())) {
             return arith::DivFOp::create(b, loc, x, y);
           }
           if (isUnsigned) {
             return arith::DivUIOp::create(b, loc, x, y);
           }
           return arith::DivSIOp::create(b, loc, x, y);
         });
  binary(table, "Mod",
         [](OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned,
            Node &n) -> Value {
           bool fmod = n.intAttr("fmod", 0) != 0;
           if (isFloat(x.getType())) {
             // x - y * trunc(x / y) (C fmod); the floored form adds y when
             // the signs differ.
             Value q = math::TruncOp::create(
                 b, loc, arith::DivFOp::create(b, loc, x, y));
             Value r = arith::SubFOp::create(
                 b, loc, x, arith::MulFOp::create(b, loc, y, q));
             if (fmod) {
               return r;
             }
             Value zero = cst(b, loc, x, 0.0);
             Value rNeg = cmpf(b, loc, arith::CmpFPredicate::OLT, r, zero);
             Value yNeg = cmpf(b, loc, arith::CmpFPredicate::OLT, y, zero);
             Value nonZero = cmpf(b, loc, arith::CmpFPredicate::ONE, r, zero);
             Value differ = arith::XOrIOp::create(b, loc, rNeg, yNeg);
             Value fix = arith::AndIOp::create(b, loc, differ, nonZero);
             return select(b, loc, fix, arith::AddFOp::create(b, loc, r, y), r);
           }
           if (isUnsigned) {
             return arith::RemUIOp::create(b, loc, x, y);
           }
           Value r = arith::RemSIOp::create(b, loc, x, y);
           if (fmod) {
             return r;
           }
           Value zero = cst(b, loc, x, 0);
           Value rNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              r, zero);
           Value yNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              y, zero);
           Value nonZero = arith::CmpIOp::create(
               b, loc, arith::CmpIPredicate::ne, r, zero);
           Value fix = arith::AndIOp::create(
               b, loc, arith::XOrIOp::create(b, loc, rNeg, yNeg), nonZero);
           return select(b, loc, fix, arith::AddIOp::create(b, loc, r, y), r);
         });
  table["Pow"] = [](Node &n) -> LogicalResult {
    if (!isFloat(n.elem(0))) {
      // Integer bases: square and multiply over the exponent's bits (an
      // exponent of 64 or more overflows every base but 0, 1 and -1).
      bool fromUnsigned = n.isUnsigned(1);
      return lowerMap(
          n, 2, nullptr, n.isUnsigned(0),
          [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
            Value base = a[0];
            Type type = base.getType();
            Value exponent = a[1];
            if (isFloat(exponent.getType())) {
              exponent = arith::FPToSIOp::create(b, loc, b.getI64Type(),
                                                 exponent);
            } else {
              exponent = convertScalar(b, loc, exponent, b.getI64Type(),
                                       fromUnsigned);
            }
            Value result = cst(b, loc, base, 1);
            Value one = scalar(b, loc, b.getI64Type(), 1);
            for (int bit = 0; bit < 6; ++bit) {
              Value set = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::ne,
                  arith::AndIOp::create(
                      b, loc,
                      arith::ShRUIOp::create(
                          b, loc, exponent,
                          scalar(b, loc, b.getI64Type(), bit)),
                      one),
                  scalar(b, loc, b.getI64Type(), 0));
              result = select(b, loc, set,
                              arith::MulIOp::create(b, loc, result, base),
                              result);
              base = arith::MulIOp::create(b, loc, base, base);
            }
            (void)type;
            return result;
          });
    }
    return lowerMap(n, 2, nullptr, false,
                    [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                      Value y = a[1];
                      if (!isFloat(y.getType())) {
                        y = convertScalar(b, loc, y, a[0].getType(),
                                          n.isUnsigned(1));
                      }
                      return powOf(b, loc, a[0], y);
                    });
  };
  table["PRelu"] = [](Node &n) -> LogicalResult {
    // x < 0 ? slope * x : x, on floats or integers (unsigned ones are
    // never below 0).
    bool isUnsigned = n.isUnsigned(0);
    auto prelu = [isUnsigned](OpBuilder &b, Location loc,
                              ValueRange a) -> Value {
      Value x = a[0];
      if (isUnsigned) {
        return x;
      }
      if (!isFloat(x.getType())) {
        Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x,
                                          cst(b, loc, x, 0));
        return select(b, loc, neg, arith::MulIOp::create(b, loc, a[1], x), x);
      }
      Value neg =
          cmpf(b, loc, arith::CmpFPredicate::OLT, x, cst(b, loc, x, 0.0));
      return select(b, loc, neg, arith::MulFOp::create(b, loc, a[1], x), x);
    };
    if (n.opset() < 7 && n.rank(1) == 1 && n.rank(0) >= 2 &&
        n.shape(1)[0] == n.shape(0)[1] && n.shape(1)[0] != 1) {
      // Before opset 7 a 1-D slope is per channel (axis 1).
      SmallVector<int64_t> shape(n.rank(0) - 1, 1);
      shape[0] = n.shape(1)[0];
      Value slope = reshape(n.b, n.loc, n.in(1), shape);
      Value result = elementwise(n.b, n.loc, {n.in(0), slope}, n.shape(0),
                                 n.elem(0), prelu);
      return n.replace(result, {isUnsigned});
    }
    return lowerMap(n, 2, nullptr, isUnsigned, prelu);
  };
  variadic(table, "Max", maxOf);
  variadic(table, "Min", minOf);
  variadic(table, "Sum",
           [](OpBuilder &b, Location loc, Value x, Value y, bool) -> Value {
             if (isFloat(x.getType())) {
               return arith::AddFOp::create(b, loc, x, y);
             }
             return arith::AddIOp::create(b, loc, x, y);
           });
  variadic(table, "Mean",
           [](OpBuilder &b, Location loc, Value x, Value y, bool) -> Value {
             return arith::AddFOp::create(b, loc, x, y);
           },
           /*mean=*/true);

  comparison(table, "Equal", arith::CmpFPredicate::OEQ,
             arith::CmpIPredicate::eq, arith::CmpIPredicate::eq);
  comparison(table, "Greater", arith::CmpFPredicate::OGT,
             arith::CmpIPredicate::sgt, arith::CmpIPredicate::ugt);
  comparison(table, "Less", arith::CmpFPredicate::OLT,
             arith::CmpIPredicate::slt, arith::CmpIPredicate::ult);
  comparison(table, "GreaterOrEqual", arith::CmpFPredicate::OGE,
             arith::CmpIPredicate::sge, arith::CmpIPredicate::uge);
  comparison(table, "LessOrEqual", arith::CmpFPredicate::OLE,
             arith::CmpIPredicate::sle, arith::CmpIPredicate::ule);
  binary(table, "And",
         [](OpBuilder &b, Location loc, Value x, Value y, bool,
            Node &) -> Value { return arith::AndIOp::create(b, loc, x, y); });
  binary(table, "Or",
         [](OpBuilder &b, Location loc, Value x, Value y, bool,
            Node &) -> Value { return arith::OrIOp::create(b, loc, x, y); });
  binary(table, "Xor",
         [](OpBuilder &b, Location loc, Value x, Value y, bool,
            Node &) -> Value { return arith::XOrIOp::create(b, loc, x, y); });
  // Opset 18's bitwise ops on integers (signed or unsigned alike).
  binary(table, "BitwiseAnd",
         [](OpBuilder &b, Location loc, Value x, Value y, bool,
            Node &) -> Value { return arith::AndIOp::create(b, loc, x, y); });
  binary(table, "BitwiseOr",
         [](OpBuilder &b, Location loc, Value x, Value y, bool,
            Node &) -> Value { return arith::OrIOp::create(b, loc, x, y); });
  binary(table, "BitwiseXor",
         [](OpBuilder &b, Location loc, Value x, Value y, bool,
            Node &) -> Value { return arith::XOrIOp::create(b, loc, x, y); });
  table["BitwiseNot"] = [](Node &n) {
    return lowerMap(n, 1, nullptr, n.isUnsigned(0),
                    [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                      return arith::XOrIOp::create(b, loc, a[0],
                                                   cst(b, loc, a[0], -1));
                    });
  };
  binary(table, "BitShift",
         [](OpBuilder &b, Location loc, Value x, Value y, bool,
            Node &n) -> Value {
           // Shifting by the width or more gives 0 (arith leaves it poison).
           unsigned width = x.getType().getIntOrFloatBitWidth();
           Value tooFar = arith::CmpIOp::create(
               b, loc, arith::CmpIPredicate::uge, y, cst(b, loc, y, width));
           Value shifted;
           if (n.stringAttr("direction").value_or("") == "LEFT") {
             shifted = arith::ShLIOp::create(b, loc, x, y);
           } else {
             shifted = arith::ShRUIOp::create(b, loc, x, y);
           }
           return select(b, loc, tooFar, cst(b, loc, x, 0), shifted);
         });

  table["Where"] = [](Node &n) {
    bool isUnsigned = n.isUnsigned(1);
    return lowerMap(n, 3, n.elem(1), isUnsigned,
                    [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                      return select(b, loc, a[0], a[1], a[2]);
                    });
  };
  table["Cast"] = [](Node &n) -> LogicalResult {
    auto [to, toUnsigned] =
        dataType(n.b.getContext(), n.intAttr("to", 0));
    if (!to) {
      return n.fail("casts to data type " + llvm::Twine(n.intAttr("to", 0)) +
                    " are not supported");
    }
    if (isNarrowElement(to) || isNarrowElement(n.onnxElem(0))) {
      return castNarrow(n, toUnsigned
                               ? IntegerType::get(n.b.getContext(),
                                                  to.getIntOrFloatBitWidth(),
                                                  IntegerType::Unsigned)
                               : to);
    }
    bool fromUnsigned = n.isUnsigned(0);
    Value result = convertTensor(n.b, n.loc, n.in(0), to, fromUnsigned,
                                 toUnsigned);
    return n.replace(result, {toUnsigned});
  };
  table["CastLike"] = [](Node &n) -> LogicalResult {
    if (isNarrowElement(n.onnxElem(1)) || isNarrowElement(n.onnxElem(0))) {
      return castNarrow(n, n.onnxElem(1));
    }
    Type to = n.elem(1);
    bool toUnsigned = n.isUnsigned(1);
    Value result = convertTensor(n.b, n.loc, n.in(0), to, n.isUnsigned(0),
                                 toUnsigned);
    return n.replace(result, {toUnsigned});
  };
  table["Clip"] = [](Node &n) -> LogicalResult {
    Type element = n.elem(0);
    bool isUnsigned = n.isUnsigned(0);
    Value x = n.in(0);
    Value minValue, maxValue;
    if (n.opset() < 11) {
      if (std::optional<double> v = n.floatAttr("min")) {
        minValue = splat(n.b, n.loc, {}, element, *v);
      }
      if (std::optional<double> v = n.floatAttr("max")) {
        maxValue = splat(n.b, n.loc, {}, element, *v);
      }
    } else {
      minValue = n.in(1);
      maxValue = n.in(2);
    }
    SmallVector<Value> inputs = {x};
    SmallVector<ArrayRef<int64_t>> shapes = {n.shape(0)};
    if (minValue) {
      inputs.push_back(minValue);
      shapes.push_back(cast<RankedTensorType>(minValue.getType()).getShape());
    }
    if (maxValue) {
      inputs.push_back(maxValue);
      shapes.push_back(cast<RankedTensorType>(maxValue.getType()).getShape());
    }
    FailureOr<SmallVector<int64_t>> shape = broadcastShapes(shapes);
    if (failed(shape)) {
      return n.fail("min and max do not broadcast to the input");
    }
    bool hasMin = static_cast<bool>(minValue);
    Value result = elementwise(
        n.b, n.loc, inputs, *shape, element,
        [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
          Value y = a[0];
          unsigned next = 1;
          if (hasMin) {
            y = maxOf(b, loc, y, a[next++], isUnsigned);
          }
          if (next < a.size()) {
            y = minOf(b, loc, y, a[next], isUnsigned);
          }
          return y;
        });
    return n.replace(result, {isUnsigned});
  };
  for (const auto &entry : table) {
    if (!before.contains(entry.getKey()) && entry.getKey() != "PRelu") {
      table.dynamic.insert(entry.getKey());
    }
  }
}
