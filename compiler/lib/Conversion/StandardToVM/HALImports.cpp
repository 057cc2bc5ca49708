// HALImports.cpp - the hal imports of the vm conversion and their builder.

#include "HALImports.h"

#include "hal_imports.h"
#include "strata/schemas/element_types.h"

#include <string>
#include <string_view>

using namespace mlir;
using namespace mlir::strata;

namespace {

/// The hal functions the vm conversion calls, in the order their vm.imports
/// are declared. Each is a row of schemas/hal_imports.def, which gives its
/// calling convention and types: a name the table lacks fails the build.
constexpr std::string_view kUsedImports[] = {
    "devices.get",
    "device.allocator",
    "allocator.allocate",
    "allocator.allocate_uninitialized",
    "buffer.wrap",
    "buffer.length",
    "buffer_view.buffer",
    "buffer_view.dim",
    "buffer.load",
    "buffer_view.create",
    "buffer_view.assert",
    "executable.create",
    "command_buffer.create",
    "command_buffer.finalize",
    "command_buffer.execution_barrier",
    "command_buffer.dispatch",
    "device.queue.execute",
    "device.queue.barrier",
    "fence.create",
    "fence.signal",
    "fence.await",
};

constexpr bool allInTable() {
  for (std::string_view name : kUsedImports) {
    if (!::strata::hal_imports::find(name)) {
      return false;
    }
  }
  return true;
}
static_assert(allInTable(), "the vm conversion calls a hal function that "
                            "schemas/hal_imports.def does not have");

/// The vm type of one char of a typed calling convention (hal_imports.def:
/// format.h's chars, 'b' for a ref that is a vm.buffer).
Type typedChar(MLIRContext *context, char c) {
  switch (c) {
  case 'i':
    return IntegerType::get(context, 32);
  case 'I':
    return IntegerType::get(context, 64);
  case 'f':
    return Float32Type::get(context);
  case 'F':
    return Float64Type::get(context);
  case 'b':
    return vm::BufferType::get(context);
  default:
    return vm::RefType::get(context, Type());
  }
}

int64_t elementBytes(RankedTensorType type) {
  unsigned bits = type.getElementTypeBitWidth();
  return bits < 8 ? 1 : bits / 8;
}

} // namespace

// The codes come from schemas/ (strata/schemas/element_types.h), the one
// definition of IREE's element type encoding in the project.
std::optional<int32_t> mlir::strata::getHalElementType(Type elementType) {
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

void mlir::strata::declareHalImports(vm::ModuleOp vmModule) {
  MLIRContext *context = vmModule.getContext();
  Location loc = vmModule.getLoc();
  OpBuilder builder(context);
  builder.setInsertionPointToStart(&vmModule.getBody().front());
  for (std::string_view name : kUsedImports) {
    const ::strata::hal_imports::Import &row =
        *::strata::hal_imports::find(name);
    // The table's calling convention parses (hal_imports.h checks it when
    // this is built); its typed twin names the same chars, spans included.
    ::strata::cconv::Parsed parsed;
    ::strata::cconv::Error error;
    (void)::strata::cconv::parse(row.cconv, /*allow_variadic=*/true, &parsed,
                                 &error);
    std::string_view typed = row.typed.substr(1, parsed.args.size());
    SmallVector<Type> inputs, results;
    SmallVector<int32_t> spans;
    for (char c : typed) {
      if (c == 'C') {
        spans.push_back(static_cast<int32_t>(inputs.size()));
      } else if (c == 'D') {
        spans.push_back(static_cast<int32_t>(inputs.size()) - spans.back());
      } else {
        inputs.push_back(typedChar(context, c));
      }
    }
    for (char c : parsed.results) {
      results.push_back(typedChar(context, c));
    }
    std::string fullName = std::string(::strata::hal_imports::kModuleName) +
                           "." + std::string(name);
    // The hal version that added the function: the module will need at
    // least that hal (a dependency the bytecode writer records).
    vm::ImportOp::create(
        builder, loc, builder.getStringAttr(fullName),
        TypeAttr::get(builder.getFunctionType(inputs, results)),
        /*is_optional=*/UnitAttr(),
        spans.empty() ? DenseI32ArrayAttr()
                      : builder.getDenseI32ArrayAttr(spans),
        builder.getI32IntegerAttr(static_cast<int32_t>(row.since)));
  }
}

Value HalBuilder::i32(int32_t v) {
  return vm::ConstI32Op::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(v));
}

Value HalBuilder::i64(int64_t v) {
  return vm::ConstI64Op::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(v));
}

Value HalBuilder::rodata(StringRef name) {
  return vm::ConstRefRodataOp::create(b, loc, vm::BufferType::get(ctx()),
                                      FlatSymbolRefAttr::get(ctx(), name));
}

Value HalBuilder::call(StringRef name, ValueRange args, TypeRange results) {
  auto op = vm::CallImportOp::create(b, loc, results,
                                     FlatSymbolRefAttr::get(ctx(), name), args);
  return results.empty() ? Value() : op.getResult(0);
}

Value HalBuilder::callVariadic(StringRef name, ValueRange args,
                               ArrayRef<int32_t> segments, TypeRange results) {
  auto op = vm::CallVariadicOp::create(b, loc, results,
                                       FlatSymbolRefAttr::get(ctx(), name),
                                       args, b.getDenseI32ArrayAttr(segments));
  return results.empty() ? Value() : op.getResult(0);
}

Type HalBuilder::refTy() { return vm::RefType::get(ctx(), Type()); }

Value HalBuilder::dim(Value view, RankedTensorType type, int64_t d) {
  if (!type.isDynamicDim(d)) {
    return i64(type.getDimSize(d));
  }
  return call("hal.buffer_view.dim", {view, i32(static_cast<int32_t>(d))},
              b.getI64Type());
}

SmallVector<Value> HalBuilder::dims(RankedTensorType type,
                                    ValueRange dynamicDims) {
  SmallVector<Value> values;
  unsigned next = 0;
  for (int64_t dim : type.getShape()) {
    values.push_back(ShapedType::isDynamic(dim) ? dynamicDims[next++]
                                                : i64(dim));
  }
  return values;
}

Value HalBuilder::byteSize(RankedTensorType type) {
  return i64(type.getNumElements() * elementBytes(type));
}

Value HalBuilder::view(Value buffer, Value offset, RankedTensorType type,
                       ValueRange dims, Value bytes) {
  SmallVector<Value> args = {buffer, offset, bytes,
                             i32(*getHalElementType(type.getElementType())),
                             i32(0)};
  args.append(dims.begin(), dims.end());
  return callVariadic("hal.buffer_view.create", args,
                      {static_cast<int32_t>(type.getRank())}, refTy());
}
