// HALOps.cpp - the hal dialect's registration, builders and verifiers.

#include "Strata/Dialect/HAL/IR/HALOps.h"

#include "strata/schemas/element_types.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::strata::hal;

#include "Strata/Dialect/HAL/IR/HALDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Strata/Dialect/HAL/IR/HALTypes.cpp.inc"

void HALDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Strata/Dialect/HAL/IR/HALTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "Strata/Dialect/HAL/IR/HALOps.cpp.inc"
      ,
#define GET_OP_LIST
#include "Strata/Dialect/HAL/IR/HALImportOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "Strata/Dialect/HAL/IR/HALOps.cpp.inc"

#define GET_OP_CLASSES
#include "Strata/Dialect/HAL/IR/HALImportOps.cpp.inc"

// The codes come from schemas/ (strata/schemas/element_types.h), the one
// definition of IREE's element type encoding in the project.
std::optional<int32_t> mlir::strata::hal::getElementTypeCode(Type elementType) {
  if (elementType.isInteger(1)) {
    return static_cast<int32_t>(STRATA_HAL_ELEMENT_TYPE_BOOL_8); // 1 byte
  }
  if (auto integer = dyn_cast<IntegerType>(elementType)) {
    unsigned width = integer.getWidth();
    if (integer.isSignless() &&
        (width == 8 || width == 16 || width == 32 || width == 64)) {
      return static_cast<int32_t>(
          STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER, width));
    }
    return std::nullopt;
  }
  if (elementType.isBF16()) {
    return static_cast<int32_t>(STRATA_HAL_ELEMENT_TYPE_BFLOAT_16);
  }
  if (elementType.isF16() || elementType.isF32() || elementType.isF64()) {
    return static_cast<int32_t>(
        STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_FLOAT_IEEE,
                                elementType.getIntOrFloatBitWidth()));
  }
  return std::nullopt;
}

ImportSignature mlir::strata::hal::parseImportSignature(StringRef sig) {
  ImportSignature parsed;
  auto [params, result] = sig.split("->");
  parsed.result = result.trim();
  params = params.trim();
  while (!params.empty()) {
    ImportParam param;
    auto [name, rest] = params.split(':');
    param.name = name;
    if (rest.starts_with("[")) {
      auto [members, after] = rest.drop_front().split(']');
      param.span = true;
      members.split(param.types, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
      params = after.trim();
    } else {
      auto [type, after] = rest.split(' ');
      param.types.push_back(type);
      params = after.trim();
    }
    parsed.params.push_back(std::move(param));
  }
  return parsed;
}

/// Whether `type` is what a signature type names (tuple members only: the
/// other operands are typed by ODS).
static bool matchesSigType(Type type, StringRef sigType) {
  StringRef base = sigType.rtrim('?');
  return llvm::StringSwitch<bool>(base)
      .Case("i32", type.isInteger(32))
      .Case("i64", type.isIndex())
      .Case("any", true)
      // Module data inside a span: the vm's buffer (the vm conversion builds
      // these calls), which this dialect does not know.
      .Case("rodata", true)
      .Case("device", isa<DeviceType>(type))
      .Case("allocator", isa<AllocatorType>(type))
      .Case("buffer", isa<BufferType>(type))
      .Case("buffer_view", isa<BufferViewType>(type))
      .Case("command_buffer", isa<CommandBufferType>(type))
      .Case("fence", isa<FenceType>(type))
      .Case("executable", isa<ExecutableType>(type))
      .Default(false);
}

LogicalResult
mlir::strata::hal::verifyImportOp(Operation *op, StringRef sig,
                                  function_ref<OperandRange(unsigned)> group) {
  ImportSignature parsed = parseImportSignature(sig);
  unsigned index = 0;
  for (const ImportParam &param : parsed.params) {
    if (param.isRodata()) {
      continue;
    }
    OperandRange operands = group(index++);
    if (!param.span || param.types.size() == 1) {
      continue;
    }
    size_t arity = param.types.size();
    if (operands.size() % arity != 0) {
      return op->emitOpError() << "'" << param.name << "' takes tuples of "
                               << arity << " values, got " << operands.size();
    }
    for (auto [i, value] : llvm::enumerate(operands)) {
      StringRef want = param.types[i % arity];
      if (!matchesSigType(value.getType(), want)) {
        return op->emitOpError()
               << "'" << param.name << "' member " << i % arity << " of tuple "
               << i / arity << " must be " << want << ", got "
               << value.getType();
      }
    }
  }
  return success();
}

void ExecutableOp::build(OpBuilder &builder, OperationState &state,
                         StringRef name, StringRef format, StringRef data) {
  Properties &props = state.getOrAddProperties<Properties>();
  props.sym_name = builder.getStringAttr(name);
  props.format = builder.getStringAttr(format);
  props.data = builder.getStringAttr(data);
  state.addRegion()->push_back(new Block());
}

LogicalResult ExecutableExportOp::verify() {
  ArrayRef<int32_t> grid = getWorkgroupCount();
  if (grid.size() != 3 || llvm::any_of(grid, [](int32_t n) { return n < 1; })) {
    return emitOpError("workgroup_count must be 3 positive sizes (x, y, z)");
  }
  return success();
}

LogicalResult
ExecutableLookupOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!symbolTable.lookupNearestSymbolFrom<ExecutableOp>(*this,
                                                         getExecutableAttr())) {
    return emitOpError("'")
           << getExecutableAttr() << "' is not a hal.executable";
  }
  return success();
}

LogicalResult TensorImportOp::verify() {
  auto type = cast<RankedTensorType>(getResult().getType());
  if (static_cast<int64_t>(getDynamicDims().size()) !=
      type.getNumDynamicDims()) {
    return emitOpError("takes ")
           << type.getNumDynamicDims() << " dynamic dimensions for " << type
           << ", got " << getDynamicDims().size();
  }
  return success();
}
