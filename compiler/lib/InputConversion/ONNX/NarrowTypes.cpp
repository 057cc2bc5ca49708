// NarrowTypes.cpp - ONNX's float8 (opset 19), int4 and uint4 (opset 21)
// element types in the lowering: their i8 storage, and the conversions
// between them and the other types, written as integer arithmetic on the
// bits (the CPU code generator has no float8 truncf/extf).

#include "Lowering.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

/// The layout of a float8 type: exponent and mantissa bits, bias, whether
/// it is "FNUZ" (no negative zero and no infinities, 0x80 is the one NaN),
/// whether it has infinities (E5M2), and the code of its largest finite
/// magnitude.
struct Float8Layout {
  unsigned mantissa;
  int bias;
  bool fnuz;
  bool hasInf;
  int maxCode;
};

Float8Layout layoutOf(FloatType type) {
  if (isa<Float8E4M3FNType>(type)) {
    return {3, 7, false, false, 0x7E};
  }
  if (isa<Float8E4M3FNUZType>(type)) {
    return {3, 8, true, false, 0x7F};
  }
  if (isa<Float8E5M2Type>(type)) {
    return {2, 15, false, true, 0x7B};
  }
  // Float8E5M2FNUZType
  return {2, 16, true, false, 0x7F};
}

Value i32c(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
}

Value f32c(OpBuilder &b, Location loc, double value) {
  return arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                        llvm::APFloat(float(value)));
}

Value cmpi(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x,
           Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}

Value sel(OpBuilder &b, Location loc, Value c, Value x, Value y) {
  return arith::SelectOp::create(b, loc, c, x, y);
}

} // namespace

bool mlir::strata::onnx::isFloat8(Type type) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
             Float8E5M2FNUZType>(type);
}

bool mlir::strata::onnx::isNarrowElement(Type type) {
  return isFloat8(type) || type.isInteger(4);
}

Type mlir::strata::onnx::storageElement(Type type) {
  if (isNarrowElement(type)) {
    return IntegerType::get(type.getContext(), 8);
  }
  if (type.isUnsignedInteger()) {
    return IntegerType::get(type.getContext(), type.getIntOrFloatBitWidth());
  }
  return type;
}

bool mlir::strata::onnx::takesNarrow(llvm::StringRef opType) {
  // Ops that compute on the values are refused (they would compute on the
  // storage bits); these convert them or only move them.
  static const llvm::StringSet<> opTypes = {
      "Cast",    "CastLike", "QuantizeLinear", "DequantizeLinear", "Identity",
      "Reshape", "Flatten",  "Squeeze",        "Unsqueeze",        "Transpose",
      "Concat",  "Split",    "Slice",          "Gather",           "Expand",
      "Tile",    "Shape",    "Size",           "Constant"};
  return opTypes.contains(opType);
}

Value mlir::strata::onnx::float8ToF32(OpBuilder &b, Location loc, Value bits,
                                      FloatType f8) {
  Float8Layout l = layoutOf(f8);
  Type i32 = b.getI32Type();
  Value u = arith::ExtUIOp::create(b, loc, i32, bits);
  Value sign = arith::ShRUIOp::create(b, loc, u, i32c(b, loc, 7));
  Value magnitude = arith::AndIOp::create(b, loc, u, i32c(b, loc, 0x7F));
  Value exponent =
      arith::ShRUIOp::create(b, loc, magnitude, i32c(b, loc, l.mantissa));
  Value mantissa = arith::AndIOp::create(b, loc, magnitude,
                                         i32c(b, loc, (1 << l.mantissa) - 1));
  // value = significand * 2^(max(e, 1) - bias - mantissa bits), where the
  // significand has its implicit 1 for normal numbers: exact in f32.
  Value isNormal =
      cmpi(b, loc, arith::CmpIPredicate::ne, exponent, i32c(b, loc, 0));
  Value significand =
      sel(b, loc, isNormal,
          arith::OrIOp::create(b, loc, mantissa, i32c(b, loc, 1 << l.mantissa)),
          mantissa);
  Value e = arith::MaxSIOp::create(b, loc, exponent, i32c(b, loc, 1));
  Value power = arith::ShLIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, e, i32c(b, loc, 127 - l.bias - static_cast<int>(l.mantissa))),
      i32c(b, loc, 23));
  Value value = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, b.getF32Type(), significand),
      arith::BitcastOp::create(b, loc, b.getF32Type(), power));
  value =
      sel(b, loc, cmpi(b, loc, arith::CmpIPredicate::ne, sign, i32c(b, loc, 0)),
          arith::NegFOp::create(b, loc, value), value);
  Value nan = f32c(b, loc, std::numeric_limits<double>::quiet_NaN());
  if (l.fnuz) {
    return sel(b, loc,
               cmpi(b, loc, arith::CmpIPredicate::eq, u, i32c(b, loc, 0x80)),
               nan, value);
  }
  if (!l.hasInf) {
    // E4M3FN: S.1111.111 is NaN; there is no infinity.
    return sel(
        b, loc,
        cmpi(b, loc, arith::CmpIPredicate::eq, magnitude, i32c(b, loc, 0x7F)),
        nan, value);
  }
  // E5M2: exponent 31 is infinity (mantissa 0) or NaN.
  Value special =
      cmpi(b, loc, arith::CmpIPredicate::eq, exponent, i32c(b, loc, 31));
  Value inf =
      sel(b, loc, cmpi(b, loc, arith::CmpIPredicate::ne, sign, i32c(b, loc, 0)),
          f32c(b, loc, -std::numeric_limits<double>::infinity()),
          f32c(b, loc, std::numeric_limits<double>::infinity()));
  Value infOrNan = sel(
      b, loc, cmpi(b, loc, arith::CmpIPredicate::eq, mantissa, i32c(b, loc, 0)),
      inf, nan);
  return sel(b, loc, special, infOrNan, value);
}

Value mlir::strata::onnx::f32ToFloat8(OpBuilder &b, Location loc, Value x,
                                      FloatType f8, bool saturate) {
  Float8Layout l = layoutOf(f8);
  Type i32 = b.getI32Type();
  Value u = arith::BitcastOp::create(b, loc, i32, x);
  Value sign = arith::ShRUIOp::create(b, loc, u, i32c(b, loc, 31));
  Value a = arith::AndIOp::create(b, loc, u, i32c(b, loc, 0x7FFFFFFF));
  const int shift = 23 - static_cast<int>(l.mantissa);
  // Normal results (target exponent >= 1): rebias the exponent field and
  // round the mantissa to nearest, ties to even; a carry moves into the
  // exponent, as it should.
  Value rebased =
      arith::SubIOp::create(b, loc, a, i32c(b, loc, (127 - l.bias) << 23));
  Value lsb = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, rebased, i32c(b, loc, shift)),
      i32c(b, loc, 1));
  Value rounded = arith::AddIOp::create(
      b, loc, rebased,
      arith::AddIOp::create(b, loc, lsb, i32c(b, loc, (1 << (shift - 1)) - 1)));
  Value normal = arith::ShRUIOp::create(b, loc, rounded, i32c(b, loc, shift));
  // Subnormal results: the magnitude in units of the smallest subnormal,
  // rounded to nearest even (exact in f32: the scale is a power of two);
  // 2^mantissa there is the smallest normal's code, as it should be.
  Value absX = arith::BitcastOp::create(b, loc, b.getF32Type(), a);
  Value units = arith::MulFOp::create(
      b, loc, absX,
      f32c(b, loc, std::ldexp(1.0, l.bias - 1 + static_cast<int>(l.mantissa))));
  Value subnormal = arith::FPToUIOp::create(
      b, loc, i32, math::RoundEvenOp::create(b, loc, units));
  Value isNormal = cmpi(b, loc, arith::CmpIPredicate::uge, a,
                        i32c(b, loc, (128 - l.bias) << 23));
  Value code = sel(b, loc, isNormal, normal, subnormal);
  // Infinities land above the largest code too.
  Value over =
      cmpi(b, loc, arith::CmpIPredicate::sgt, code, i32c(b, loc, l.maxCode));
  Value isNan =
      cmpi(b, loc, arith::CmpIPredicate::ugt, a, i32c(b, loc, 0x7F800000));
  Value signBit = arith::ShLIOp::create(b, loc, sign, i32c(b, loc, 7));
  Value result;
  if (l.fnuz) {
    // No negative zero: -0 (and what rounds to it) is 0; 0x80 is NaN.
    Value isZero =
        cmpi(b, loc, arith::CmpIPredicate::eq, code, i32c(b, loc, 0));
    Value signedCode = arith::OrIOp::create(
        b, loc, sel(b, loc, isZero, i32c(b, loc, 0), signBit),
        arith::MinUIOp::create(b, loc, code, i32c(b, loc, l.maxCode)));
    Value overflow = saturate ? signedCode : i32c(b, loc, 0x80);
    result = sel(b, loc, over, overflow, signedCode);
    result = sel(b, loc, isNan, i32c(b, loc, 0x80), result);
  } else {
    Value finite = arith::OrIOp::create(b, loc, signBit, code);
    // Past the largest value: E5M2 has infinity, E4M3FN only NaN.
    Value overflow = arith::OrIOp::create(
        b, loc, signBit,
        i32c(b, loc, saturate ? l.maxCode : (l.hasInf ? 0x7C : 0x7F)));
    result = sel(b, loc, over, overflow, finite);
    Value nanCode = arith::OrIOp::create(b, loc, signBit,
                                         i32c(b, loc, l.hasInf ? 0x7E : 0x7F));
    result = sel(b, loc, isNan, nanCode, result);
  }
  return arith::TruncIOp::create(b, loc, b.getIntegerType(8), result);
}

Value mlir::strata::onnx::convertOnnxScalar(OpBuilder &b, Location loc,
                                            Value value, Type from, Type to,
                                            bool saturate) {
  Type f32 = b.getF32Type();
  if (from == to) {
    return value;
  }
  if (isFloat8(from)) {
    value = float8ToF32(b, loc, value, cast<FloatType>(from));
    from = f32;
    if (from == to) {
      return value;
    }
  }
  if (isFloat8(to)) {
    // Through f32 (a double is rounded twice; ONNX's reference also
    // rounds through float32).
    Value x = convertScalar(b, loc, value, f32, from.isUnsignedInteger());
    return f32ToFloat8(b, loc, x, cast<FloatType>(to), saturate);
  }
  bool fromUnsigned = from.isUnsignedInteger();
  if (to.isInteger(4)) {
    // The low four bits (ONNX: fixed point out of range wraps; a float is
    // truncated toward zero first), sign- or zero-extended into the i8.
    Type i8 = b.getIntegerType(8);
    Value wide = isFloat(from)
                     ? convertScalar(b, loc, value, b.getI32Type(), false)
                     : value;
    Value low = convertScalar(b, loc, wide, i8,
                              isFloat(from) ? false : fromUnsigned, false);
    Value four = arith::ConstantIntOp::create(b, loc, i8, 4);
    if (to.isUnsignedInteger()) {
      return arith::AndIOp::create(
          b, loc, low, arith::ConstantIntOp::create(b, loc, i8, 15));
    }
    return arith::ShRSIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, low, four), four);
  }
  // int4 and uint4 are held extended to i8: convert from there.
  return convertScalar(b, loc, value, storageElement(to), fromUnsigned,
                       to.isUnsignedInteger());
}

Type mlir::strata::onnx::onnxDataType(MLIRContext *ctx, int64_t code) {
  Builder b(ctx);
  auto u = [&](unsigned width) {
    return IntegerType::get(ctx, width, IntegerType::Unsigned);
  };
  switch (code) {
  case 1:
    return b.getF32Type();
  case 2:
    return u(8);
  case 3:
    return b.getIntegerType(8);
  case 4:
    return u(16);
  case 5:
    return b.getIntegerType(16);
  case 6:
    return b.getIntegerType(32);
  case 7:
    return b.getIntegerType(64);
  case 9:
    return b.getI1Type();
  case 10:
    return b.getF16Type();
  case 11:
    return b.getF64Type();
  case 12:
    return u(32);
  case 13:
    return u(64);
  case 16:
    return b.getBF16Type();
  case 17:
    return Float8E4M3FNType::get(ctx);
  case 18:
    return Float8E4M3FNUZType::get(ctx);
  case 19:
    return Float8E5M2Type::get(ctx);
  case 20:
    return Float8E5M2FNUZType::get(ctx);
  case 21:
    return u(4);
  case 22:
    return b.getIntegerType(4);
  default:
    return {};
  }
}
