// UtilOps.cpp - the util dialect's registration and verifiers.

#include "Strata/Dialect/Util/IR/UtilOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::strata::util;

#include "Strata/Dialect/Util/IR/UtilDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Strata/Dialect/Util/IR/UtilTypes.cpp.inc"

void UtilDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Strata/Dialect/Util/IR/UtilTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "Strata/Dialect/Util/IR/UtilOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "Strata/Dialect/Util/IR/UtilOps.cpp.inc"

LogicalResult UnfoldableConstantOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  auto *props = properties.as<Properties *>();
  TypedAttr value = props ? props->getValue() : TypedAttr();
  if (!value) {
    value = dyn_cast_or_null<TypedAttr>(attributes.get("value"));
  }
  if (!value) {
    return failure();
  }
  inferred.push_back(value.getType());
  return success();
}

LogicalResult UnfoldableConstantOp::verify() {
  if (getValue().getType() != getType()) {
    return emitOpError("value of type ")
           << getValue().getType() << " does not match the result type "
           << getType();
  }
  return success();
}

LogicalResult OptimizationBarrierOp::canonicalize(OptimizationBarrierOp op,
                                                  PatternRewriter &rewriter) {
  if (!op->use_empty()) {
    return failure();
  }
  rewriter.eraseOp(op);
  return success();
}

LogicalResult AssertEqOp::canonicalize(AssertEqOp op,
                                       PatternRewriter &rewriter) {
  APInt lhs;
  APInt rhs;
  bool same = op.getLhs() == op.getRhs() ||
              (matchPattern(op.getLhs(), m_ConstantInt(&lhs)) &&
               matchPattern(op.getRhs(), m_ConstantInt(&rhs)) && lhs == rhs);
  if (!same) {
    return failure();
  }
  rewriter.eraseOp(op);
  return success();
}

// util.global [visibility] [mutable] @name (= value [: type] | : type)
ParseResult GlobalOp::parse(OpAsmParser &parser, OperationState &result) {
  StringRef visibility;
  if (succeeded(parser.parseOptionalKeyword(&visibility,
                                            {"private", "public", "nested"}))) {
    result.addAttribute(getSymVisibilityAttrName(result.name),
                        parser.getBuilder().getStringAttr(visibility));
  }
  if (succeeded(parser.parseOptionalKeyword("mutable"))) {
    result.addAttribute(getIsMutableAttrName(result.name),
                        parser.getBuilder().getUnitAttr());
  }
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes)) {
    return failure();
  }
  Type type;
  if (succeeded(parser.parseOptionalEqual())) {
    Attribute value;
    if (parser.parseAttribute(value)) {
      return failure();
    }
    auto typed = dyn_cast<TypedAttr>(value);
    if (!typed) {
      return parser.emitError(parser.getCurrentLocation(),
                              "the initial value must be a typed attribute");
    }
    result.addAttribute(getInitialValueAttrName(result.name), typed);
    type = typed.getType();
    if (succeeded(parser.parseOptionalColon()) && parser.parseType(type)) {
      return failure();
    }
  } else if (parser.parseColonType(type)) {
    return failure();
  }
  result.addAttribute(getTypeAttrName(result.name), TypeAttr::get(type));
  return parser.parseOptionalAttrDict(result.attributes);
}

void GlobalOp::print(OpAsmPrinter &p) {
  if (auto visibility = getSymVisibility()) {
    p << " " << *visibility;
  }
  if (getIsMutable()) {
    p << " mutable";
  }
  p << " ";
  p.printSymbolName(getSymName());
  if (auto value = getInitialValue()) {
    p << " = ";
    p.printAttribute(*value);
    if (value->getType() != getType()) {
      p << " : " << getType();
    }
  } else {
    p << " : " << getType();
  }
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getSymVisibilityAttrName(), getIsMutableAttrName(),
                           getSymNameAttrName(), getTypeAttrName(),
                           getInitialValueAttrName()});
}

LogicalResult GlobalOp::verify() {
  if (auto value = getInitialValue()) {
    if (value->getType() != getType()) {
      return emitOpError("initial value of type ")
             << value->getType() << " does not match the global's type "
             << getType();
    }
  }
  return success();
}

/// The global `symbol` names, checked against the type of `value`.
static FailureOr<GlobalOp> lookupGlobal(Operation *op, FlatSymbolRefAttr symbol,
                                        Type type,
                                        SymbolTableCollection &symbolTable) {
  auto global = symbolTable.lookupNearestSymbolFrom<GlobalOp>(op, symbol);
  if (!global) {
    return op->emitOpError("'") << symbol << "' does not name a util.global";
  }
  if (global.getType() != type) {
    return op->emitOpError("type ")
           << type << " does not match the type " << global.getType()
           << " of global '" << symbol << "'";
  }
  return global;
}

LogicalResult
GlobalLoadOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return lookupGlobal(*this, getGlobalAttr(), getType(), symbolTable);
}

LogicalResult
GlobalStoreOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FailureOr<GlobalOp> global =
      lookupGlobal(*this, getGlobalAttr(), getValue().getType(), symbolTable);
  if (failed(global)) {
    return failure();
  }
  if (!global->getIsMutable()) {
    return emitOpError("stores to the immutable global '")
           << getGlobalAttr() << "'";
  }
  return success();
}
