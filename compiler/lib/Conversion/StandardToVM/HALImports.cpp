// HALImports.cpp - the hal imports of the vm conversion and their builder.

#include "HALImports.h"

#include "strata/hal/buffer.h"

using namespace mlir;
using namespace mlir::strata;

namespace {

/// A hal import: name, inputs, results and variadic spans, as the hal
/// module exports it. 'r' is a ref, 'b' a vm.buffer (also a ref to the
/// module), 'i' i32, 'I' i64.
struct ImportSpec {
  const char *name;
  const char *inputs;
  const char *results;
  std::initializer_list<int32_t> spans;
};

constexpr ImportSpec kImports[] = {
    {"hal.devices.get", "i", "r", {}},
    {"hal.device.allocator", "r", "r", {}},
    {"hal.allocator.allocate", "rI", "r", {}},
    {"hal.allocator.allocate_uninitialized", "rI", "r", {}},
    {"hal.buffer.wrap", "b", "r", {}},
    {"hal.buffer.length", "r", "I", {}},
    {"hal.buffer_view.buffer", "r", "r", {}},
    {"hal.buffer_view.dim", "ri", "I", {}},
    {"hal.buffer.load", "rIi", "i", {}},
    {"hal.buffer_view.create", "rIIiiI", "r", {5, 1}},
    {"hal.buffer_view.assert", "rbiiI", "", {4, 1}},
    {"hal.executable.create", "rbb", "r", {}},
    {"hal.command_buffer.create", "rii", "r", {}},
    {"hal.command_buffer.finalize", "r", "", {}},
    {"hal.command_buffer.execution_barrier", "r", "", {}},
    {"hal.command_buffer.dispatch", "rriiiiirII", "", {6, 1, 7, 3}},
    {"hal.device.queue.execute", "rrrr", "", {3, 1}},
    {"hal.device.queue.barrier", "rrr", "", {}},
    {"hal.fence.create", "ri", "r", {}},
    {"hal.fence.signal", "r", "", {}},
    {"hal.fence.await", "ir", "i", {1, 1}},
};

Type specType(MLIRContext *context, char c) {
  switch (c) {
  case 'i':
    return IntegerType::get(context, 32);
  case 'I':
    return IntegerType::get(context, 64);
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

// The codes come from the runtime's header, the one definition of IREE's
// element type encoding in the project.
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
  for (const ImportSpec &spec : kImports) {
    SmallVector<Type> inputs, results;
    for (const char *c = spec.inputs; *c; ++c) {
      inputs.push_back(specType(context, *c));
    }
    for (const char *c = spec.results; *c; ++c) {
      results.push_back(specType(context, *c));
    }
    SmallVector<int32_t> spans(spec.spans);
    vm::ImportOp::create(
        builder, loc, builder.getStringAttr(spec.name),
        TypeAttr::get(builder.getFunctionType(inputs, results)),
        /*is_optional=*/UnitAttr(),
        spans.empty() ? DenseI32ArrayAttr()
                      : builder.getDenseI32ArrayAttr(spans));
  }
}

OpBuilder mlir::strata::getInitializerBuilder(vm::ModuleOp vmModule) {
  Block &body = vmModule.getBody().front();
  OpBuilder builder(vmModule.getContext());
  for (auto func : body.getOps<vm::FuncOp>()) {
    if (func->hasAttr("vm.initializer") && !func.isExternal()) {
      builder.setInsertionPoint(func.getBody().back().getTerminator());
      return builder;
    }
  }
  Location loc = vmModule.getLoc();
  builder.setInsertionPointToEnd(&body);
  auto init = vm::FuncOp::create(builder, loc, "__init",
                                 builder.getFunctionType({}, {}),
                                 /*arg_attrs=*/ArrayAttr(),
                                 /*res_attrs=*/ArrayAttr());
  init->setAttr("vm.initializer", builder.getUnitAttr());
  builder.setInsertionPointToStart(init.addEntryBlock());
  auto ret = vm::ReturnOp::create(builder, loc, ValueRange());
  builder.setInsertionPoint(ret);
  return builder;
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
