// VMDialect.cpp - registers the vm dialect, parses and prints its types.

#include "Strata/Dialect/VM/IR/VMDialect.h"

#include "Strata/Dialect/VM/IR/VMOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::strata::vm;

#include "Strata/Dialect/VM/IR/VMDialect.cpp.inc"
#include "Strata/Dialect/VM/IR/VMOpInterfaces.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Strata/Dialect/VM/IR/VMTypes.cpp.inc"

void VMDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Strata/Dialect/VM/IR/VMTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "Strata/Dialect/VM/IR/VMOps.cpp.inc"
      >();
  // The generated ops register from their own shards (VMOpcodeOps*.cpp).
  registerVMDialectOperations(this);
}

Operation *VMDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || typed.getType() != type) {
    return nullptr;
  }
  if (auto attr = dyn_cast<IntegerAttr>(value)) {
    if (type.isInteger(32)) {
      return ConstI32Op::create(builder, loc, type, attr);
    }
    if (type.isInteger(64)) {
      return ConstI64Op::create(builder, loc, type, attr);
    }
  } else if (auto attr = dyn_cast<FloatAttr>(value)) {
    if (type.isF32()) {
      return ConstF32Op::create(builder, loc, type, attr);
    }
    if (type.isF64()) {
      return ConstF64Op::create(builder, loc, type, attr);
    }
  }
  return nullptr;
}

bool mlir::strata::vm::isRefType(Type type) {
  return isa<RefType, BufferType, ListType>(type);
}

bool mlir::strata::vm::isPrimType(Type type) {
  return type.isInteger(32) || type.isInteger(64) || type.isF32() ||
         type.isF64();
}

// !vm.ref<?> or !vm.ref<T>.
Type RefType::parse(AsmParser &parser) {
  if (parser.parseLess()) {
    return {};
  }
  Type objectType;
  if (failed(parser.parseOptionalQuestion())) {
    if (parser.parseType(objectType)) {
      return {};
    }
  }
  if (parser.parseGreater()) {
    return {};
  }
  return RefType::get(parser.getContext(), objectType);
}

void RefType::print(AsmPrinter &printer) const {
  printer << '<';
  if (getObjectType()) {
    printer << getObjectType();
  } else {
    printer << '?';
  }
  printer << '>';
}
