// VMTypeConverter.cpp - the source-to-vm type mapping and the narrow-integer
// helpers that keep i1/i8/i16 arithmetic exact in i32 registers.

#include "ConvertToVM/VMTypeConverter.h"

#include "Strata/Dialect/Util/IR/UtilOps.h"

#include "ConvertToVM/IntegerRepresentation.h"
#include "HALToVM.h"

#include "Strata/Dialect/VM/IR/VMOps.h"

using namespace mlir;
using namespace mlir::strata;

VMTypeConverter::VMTypeConverter() {
  // Returning std::nullopt from the catch-all lets the more specific
  // conversions below decide; a type none accepts has no conversion.
  addConversion([](Type type) -> std::optional<Type> {
    if (vm::isRefType(type)) {
      return type;
    }
    return std::nullopt;
  });
  addConversion([](FloatType type) -> std::optional<Type> {
    if (type.isF32() || type.isF64()) {
      return type;
    }
    return std::nullopt;
  });
  // A tensor on the host is a hal.buffer_view, which carries its shape.
  addConversion([](RankedTensorType type) -> std::optional<Type> {
    if (!hal::getElementTypeCode(type.getElementType())) {
      return std::nullopt;
    }
    return vm::RefType::get(type.getContext(), Type());
  });
  // A tensor of unknown rank (a sequence element) is one too.
  addConversion([](UnrankedTensorType type) -> std::optional<Type> {
    if (!hal::getElementTypeCode(type.getElementType())) {
      return std::nullopt;
    }
    return vm::RefType::get(type.getContext(), Type());
  });
  // A list on the host (an ONNX sequence or optional) is a vm.list.
  addConversion([](util::ListType type) -> std::optional<Type> {
    return vm::ListType::get(type.getContext());
  });
  // The hal objects (devices, buffers, fences, ...) are refs.
  addConversion([](Type type) { return convertHALType(type); });
  addConversion([](IndexType type) -> std::optional<Type> {
    return IntegerType::get(type.getContext(), 64);
  });
  addConversion([](IntegerType type) -> std::optional<Type> {
    // Signed/unsigned integer types are not arith's; only signless ones.
    if (!type.isSignless()) {
      return std::nullopt;
    }
    switch (type.getWidth()) {
    case 1:
    case 8:
    case 16:
    case 32:
      return IntegerType::get(type.getContext(), 32);
    case 64:
      return type;
    default:
      return std::nullopt;
    }
  });
}

namespace mlir::strata::vm_conversion {

unsigned getIntegerWidth(Type type) {
  if (isa<IndexType>(type)) {
    return 64;
  }
  if (auto intType = dyn_cast<IntegerType>(type)) {
    return intType.getWidth();
  }
  return 0;
}

Value createI32Constant(OpBuilder &builder, Location loc, int32_t value) {
  return vm::ConstI32Op::create(builder, loc, builder.getI32Type(),
                                builder.getI32IntegerAttr(value));
}

Value createI64Constant(OpBuilder &builder, Location loc, int64_t value) {
  return vm::ConstI64Op::create(builder, loc, builder.getI64Type(),
                                builder.getI64IntegerAttr(value));
}

Value maskToI1(OpBuilder &builder, Location loc, Value value) {
  Value one = createI32Constant(builder, loc, 1);
  return vm::AndI32Op::create(builder, loc, builder.getI32Type(), value, one);
}

Value extendToI32(OpBuilder &builder, Location loc, Value value, unsigned width,
                  bool isSigned) {
  Type i32 = builder.getI32Type();
  switch (width) {
  case 1:
    // A canonical i1 is 0 or 1 already; signed, true is -1.
    return isSigned ? Value(vm::NegI32Op::create(builder, loc, i32, value))
                    : value;
  case 8:
    return isSigned ? Value(vm::ExtI8I32SOp::create(builder, loc, i32, value))
                    : Value(vm::ExtI8I32UOp::create(builder, loc, i32, value));
  case 16:
    return isSigned ? Value(vm::ExtI16I32SOp::create(builder, loc, i32, value))
                    : Value(vm::ExtI16I32UOp::create(builder, loc, i32, value));
  default:
    return value;
  }
}

Value extendOperand(OpBuilder &builder, Location loc, Value value,
                    unsigned width, bool isSigned) {
  if (width >= 32) {
    return value;
  }
  return extendToI32(builder, loc, value, width, isSigned);
}

Value castInteger(OpBuilder &builder, Location loc, Value value,
                  unsigned srcWidth, unsigned dstWidth, bool isSigned) {
  if (srcWidth == dstWidth) {
    return value;
  }
  if (dstWidth > srcWidth) {
    Value wide = extendToI32(builder, loc, value, srcWidth, isSigned);
    if (dstWidth < 64) {
      return wide;
    }
    Type i64 = builder.getI64Type();
    return isSigned ? Value(vm::ExtI32I64SOp::create(builder, loc, i64, wide))
                    : Value(vm::ExtI32I64UOp::create(builder, loc, i64, wide));
  }
  // Narrowing: the low bits are the result; only i1 must be made canonical.
  if (srcWidth == 64) {
    value =
        vm::TruncI64I32Op::create(builder, loc, builder.getI32Type(), value);
  }
  if (dstWidth == 1) {
    return maskToI1(builder, loc, value);
  }
  return value;
}

Value createIntCompare(OpBuilder &builder, Location loc, IntCompare predicate,
                       Value lhs, Value rhs, unsigned width) {
  enum class Kind { Eq, Ne, Lt, Le };
  Kind kind = Kind::Eq;
  bool isSigned = false;
  bool swap = false;
  switch (predicate) {
  case IntCompare::Eq:
    kind = Kind::Eq;
    break;
  case IntCompare::Ne:
    kind = Kind::Ne;
    break;
  case IntCompare::Slt:
  case IntCompare::Sgt:
    kind = Kind::Lt;
    isSigned = true;
    swap = predicate == IntCompare::Sgt;
    break;
  case IntCompare::Sle:
  case IntCompare::Sge:
    kind = Kind::Le;
    isSigned = true;
    swap = predicate == IntCompare::Sge;
    break;
  case IntCompare::Ult:
  case IntCompare::Ugt:
    kind = Kind::Lt;
    swap = predicate == IntCompare::Ugt;
    break;
  case IntCompare::Ule:
  case IntCompare::Uge:
    kind = Kind::Le;
    swap = predicate == IntCompare::Uge;
    break;
  }
  lhs = extendOperand(builder, loc, lhs, width, isSigned);
  rhs = extendOperand(builder, loc, rhs, width, isSigned);
  if (swap) {
    std::swap(lhs, rhs);
  }
  Type i32 = builder.getI32Type();
  if (width == 64) {
    switch (kind) {
    case Kind::Eq:
      return vm::CmpEqI64Op::create(builder, loc, i32, lhs, rhs);
    case Kind::Ne:
      return vm::CmpNeI64Op::create(builder, loc, i32, lhs, rhs);
    case Kind::Lt:
      return isSigned
                 ? Value(vm::CmpLtSI64Op::create(builder, loc, i32, lhs, rhs))
                 : Value(vm::CmpLtUI64Op::create(builder, loc, i32, lhs, rhs));
    case Kind::Le:
      return isSigned
                 ? Value(vm::CmpLeSI64Op::create(builder, loc, i32, lhs, rhs))
                 : Value(vm::CmpLeUI64Op::create(builder, loc, i32, lhs, rhs));
    }
  }
  switch (kind) {
  case Kind::Eq:
    return vm::CmpEqI32Op::create(builder, loc, i32, lhs, rhs);
  case Kind::Ne:
    return vm::CmpNeI32Op::create(builder, loc, i32, lhs, rhs);
  case Kind::Lt:
    return isSigned
               ? Value(vm::CmpLtSI32Op::create(builder, loc, i32, lhs, rhs))
               : Value(vm::CmpLtUI32Op::create(builder, loc, i32, lhs, rhs));
  case Kind::Le:
    return isSigned
               ? Value(vm::CmpLeSI32Op::create(builder, loc, i32, lhs, rhs))
               : Value(vm::CmpLeUI32Op::create(builder, loc, i32, lhs, rhs));
  }
  return Value();
}

} // namespace mlir::strata::vm_conversion
