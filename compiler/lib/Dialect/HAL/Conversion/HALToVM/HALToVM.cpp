// HALToVM.cpp - the hal dialect -> calls of the hal module (HALToVM.h).

#include "HALToVM.h"

#include "hal_imports.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

#include <string>
#include <string_view>

using namespace mlir;
using namespace mlir::strata;

namespace {

/// The vm type of a signature type (hal_imports.def): i32, i64, a
/// vm.buffer for module data, a ref for every hal object.
Type vmTypeOf(MLIRContext *context, StringRef type) {
  type = type.rtrim('?');
  if (type == "i32") {
    return IntegerType::get(context, 32);
  }
  if (type == "i64") {
    return IntegerType::get(context, 64);
  }
  if (type == "rodata") {
    return vm::BufferType::get(context);
  }
  return vm::RefType::get(context, Type());
}

/// The vm.rodata holding `value`'s bytes (a string or dense elements),
/// made once per attribute, named `preferred` when given.
Value rodataOf(OpBuilder &builder, Location loc, Attribute value,
               HALToVMState &state, StringRef preferred = {}) {
  std::string &name = state.rodata[value];
  auto module = builder.getInsertionBlock()
                    ->getParentOp()
                    ->getParentOfType<vm::ModuleOp>();
  if (name.empty()) {
    name = preferred.empty()
               ? "__hal_data_" + std::to_string(state.rodata.size() - 1)
               : preferred.str();
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&module.getBody().front());
    vm::RodataOp::create(builder, loc, name, value);
  }
  return vm::ConstRefRodataOp::create(
      builder, loc, vm::BufferType::get(builder.getContext()),
      FlatSymbolRefAttr::get(builder.getContext(), name));
}

/// Every op generated from a hal_imports.def row: the call of its import,
/// its operands in the row's order (absent optional refs null, module data
/// as rodata, spans flattened with their tuple counts).
template <typename OpTy> struct ImportOpConversion : OpConversionPattern<OpTy> {
  ImportOpConversion(const TypeConverter &typeConverter, MLIRContext *context,
                     HALToVMState &state)
      : OpConversionPattern<OpTy>(typeConverter, context), state(state) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    static const hal::ImportSignature sig =
        hal::parseImportSignature(OpTy::getImportSignature());
    Location loc = op.getLoc();
    SmallVector<Value> args;
    SmallVector<int32_t> spans;
    unsigned index = 0;
    for (const hal::ImportParam &param : sig.params) {
      if (param.isRodata()) {
        std::optional<Attribute> data = op->getInherentAttr(param.name);
        args.push_back(rodataOf(rewriter, loc, *data, state));
        continue;
      }
      ValueRange values = adaptor.getODSOperands(index++);
      if (param.span) {
        spans.push_back(
            static_cast<int32_t>(values.size() / param.types.size()));
        args.append(values.begin(), values.end());
      } else if (values.empty()) {
        args.push_back(vm::ConstRefZeroOp::create(
            rewriter, loc, vm::RefType::get(op.getContext(), Type())));
      } else {
        args.push_back(values.front());
      }
    }
    SmallVector<Type> results;
    if (failed(this->getTypeConverter()->convertTypes(op->getResultTypes(),
                                                      results))) {
      return rewriter.notifyMatchFailure(op, "result type has no vm type");
    }
    auto callee =
        FlatSymbolRefAttr::get(op.getContext(), OpTy::getOperationName());
    if (OpTy::hasImportSpans()) {
      rewriter.replaceOpWithNewOp<vm::CallVariadicOp>(
          op, results, callee, args, rewriter.getDenseI32ArrayAttr(spans));
    } else {
      rewriter.replaceOpWithNewOp<vm::CallImportOp>(op, results, callee, args);
    }
    return success();
  }

  HALToVMState &state;
};

/// hal.buffer.wrap of constant data: the global prepareHALToVM wrapped it
/// into once per context.
struct ConstantWrapConversion : OpConversionPattern<hal::BufferWrapOp> {
  ConstantWrapConversion(const TypeConverter &typeConverter,
                         MLIRContext *context, HALToVMState &state)
      : OpConversionPattern(typeConverter, context, /*benefit=*/2),
        state(state) {}

  LogicalResult
  matchAndRewrite(hal::BufferWrapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto global = state.constants.find(op.getSource());
    if (global == state.constants.end()) {
      return rewriter.notifyMatchFailure(op, "not a wrapped constant");
    }
    rewriter.replaceOpWithNewOp<vm::GlobalLoadRefOp>(
        op, vm::RefType::get(op.getContext(), Type()),
        FlatSymbolRefAttr::get(op.getContext(), global->second));
    return success();
  }

  HALToVMState &state;
};

/// hal.executable.lookup -> the global its executable was loaded into.
struct ExecutableLookupConversion
    : OpConversionPattern<hal::ExecutableLookupOp> {
  ExecutableLookupConversion(const TypeConverter &typeConverter,
                             MLIRContext *context, HALToVMState &state)
      : OpConversionPattern(typeConverter, context), state(state) {}

  LogicalResult
  matchAndRewrite(hal::ExecutableLookupOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto global = state.executables.find(op.getExecutable());
    if (global == state.executables.end()) {
      return op.emitOpError("names '")
             << op.getExecutable() << "', which is not a hal.executable";
    }
    rewriter.replaceOpWithNewOp<vm::GlobalLoadRefOp>(
        op, vm::RefType::get(op.getContext(), Type()),
        FlatSymbolRefAttr::get(op.getContext(), global->second));
    return success();
  }

  HALToVMState &state;
};

/// hal.fence.immediate -> a null ref: waits skip it.
struct FenceImmediateConversion : OpConversionPattern<hal::FenceImmediateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(hal::FenceImmediateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<vm::ConstRefZeroOp>(
        op, vm::RefType::get(op.getContext(), Type()));
    return success();
  }
};

/// hal.tensor.import/export: a host tensor is its buffer view.
template <typename OpTy>
struct TensorBridgeConversion : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSource());
    return success();
  }
};

template <typename... OpTys>
void addImportPatterns(const TypeConverter &typeConverter,
                       RewritePatternSet &patterns, HALToVMState &state) {
  patterns.add<ImportOpConversion<OpTys>...>(typeConverter,
                                             patterns.getContext(), state);
}

} // namespace

std::optional<Type> mlir::strata::convertHALType(Type type) {
  if (isa<hal::DeviceType, hal::AllocatorType, hal::BufferType,
          hal::BufferViewType, hal::CommandBufferType, hal::FenceType,
          hal::ExecutableType>(type)) {
    return vm::RefType::get(type.getContext(), Type());
  }
  return std::nullopt;
}

void mlir::strata::prepareHALToVM(vm::ModuleOp vmModule, HALToVMState &state) {
  Block &body = vmModule.getBody().front();
  SmallVector<hal::ExecutableOp> executables(body.getOps<hal::ExecutableOp>());
  SmallVector<hal::BufferWrapOp> wraps;
  vmModule.walk([&](hal::BufferWrapOp op) { wraps.push_back(op); });
  if (executables.empty() && wraps.empty()) {
    return;
  }
  MLIRContext *context = vmModule.getContext();
  OpBuilder builder(context);
  OpBuilder initBuilder = vm::getInitializerBuilder(vmModule);
  Type ref = vm::RefType::get(context, Type());
  // Load each kernel library once per context.
  if (!executables.empty()) {
    Location loc = vmModule.getLoc();
    HalBuilder hal(initBuilder, loc);
    Value device = hal.call<hal::DevicesGetOp>({hal.i32(0)}, ref);
    for (auto [index, executable] : llvm::enumerate(executables)) {
      std::string suffix = index ? "_" + std::to_string(index) : "";
      std::string global = "__executable" + suffix;
      builder.setInsertionPoint(executable);
      vm::GlobalRefOp::create(
          builder, executable.getLoc(), builder.getStringAttr(global),
          /*is_mutable=*/builder.getUnitAttr(), TypeAttr::get(ref));
      // Each rodata goes first in the module: the library is made first so
      // that the format comes before it.
      Value library =
          rodataOf(initBuilder, executable.getLoc(), executable.getDataAttr(),
                   state, "__executable_library" + suffix);
      Value format =
          rodataOf(initBuilder, executable.getLoc(), executable.getFormatAttr(),
                   state, "__executable_format" + suffix);
      // A multi-ISA executable: the first library the host runs, of the
      // best and then each variant (equal bytes share one rodata).
      SmallVector<hal::ExecutableVariantOp> variants(
          executable.getOps<hal::ExecutableVariantOp>());
      Value loaded;
      if (variants.empty()) {
        loaded =
            hal.call<hal::ExecutableCreateOp>({device, format, library}, ref);
      } else {
        SmallVector<Value> candidates = {format, library};
        for (auto [i, variant] : llvm::enumerate(variants)) {
          std::string name = "__executable_library" + suffix + "_variant_" +
                             std::to_string(i + 1);
          Value variantLibrary = rodataOf(initBuilder, variant.getLoc(),
                                          variant.getDataAttr(), state, name);
          Value variantFormat =
              rodataOf(initBuilder, variant.getLoc(), variant.getFormatAttr(),
                       state, name + "_format");
          candidates.append({variantFormat, variantLibrary});
        }
        SmallVector<Value> args = {device};
        args.append(candidates);
        loaded = hal.call<hal::ExecutableCreateFirstOp>(
            args, ref, {static_cast<int32_t>(variants.size() + 1)});
      }
      vm::GlobalStoreRefOp::create(initBuilder, loc, loaded,
                                   FlatSymbolRefAttr::get(context, global));
      state.executables[executable.getSymName()] = global;
      executable.erase();
    }
  }
  // Constant data (a model's weights) is wrapped once per context; equal
  // constants (the same weight read in several places, or by a function and
  // its async twin) share one global.
  for (hal::BufferWrapOp op : wraps) {
    Attribute data = op.getSource();
    std::string &global = state.constants[data];
    if (!global.empty()) {
      continue;
    }
    std::string name =
        "__constant_" + std::to_string(state.constants.size() - 1);
    global = name + "_buffer";
    builder.setInsertionPointToStart(&body);
    vm::GlobalRefOp::create(builder, op.getLoc(), builder.getStringAttr(global),
                            /*is_mutable=*/builder.getUnitAttr(),
                            TypeAttr::get(ref));
    HalBuilder hal(initBuilder, op.getLoc());
    Value source = rodataOf(initBuilder, op.getLoc(), data, state, name);
    Value buffer = hal.call<hal::BufferWrapOp>({source}, ref);
    vm::GlobalStoreRefOp::create(initBuilder, op.getLoc(), buffer,
                                 FlatSymbolRefAttr::get(context, global));
  }
}

void mlir::strata::populateHALToVMPatterns(const TypeConverter &typeConverter,
                                           RewritePatternSet &patterns,
                                           HALToVMState &state) {
  MLIRContext *context = patterns.getContext();
  addImportPatterns<
#define GET_OP_LIST
#include "Strata/Dialect/HAL/IR/HALImportOps.cpp.inc"
      >(typeConverter, patterns, state);
  patterns.add<ConstantWrapConversion, ExecutableLookupConversion>(
      typeConverter, context, state);
  patterns.add<FenceImmediateConversion,
               TensorBridgeConversion<hal::TensorImportOp>,
               TensorBridgeConversion<hal::TensorExportOp>>(typeConverter,
                                                            context);
}

void mlir::strata::declareHALImports(vm::ModuleOp vmModule) {
  // The hal functions the module calls.
  llvm::StringSet<> called;
  std::string prefix = std::string(::strata::hal_imports::kModuleName) + ".";
  vmModule.walk([&](Operation *op) {
    if (auto callee = op->getAttrOfType<FlatSymbolRefAttr>("callee")) {
      if (callee.getValue().starts_with(prefix)) {
        called.insert(callee.getValue());
      }
    }
  });
  MLIRContext *context = vmModule.getContext();
  Location loc = vmModule.getLoc();
  OpBuilder builder(context);
  builder.setInsertionPointToStart(&vmModule.getBody().front());
  for (const ::strata::hal_imports::Import &row :
       ::strata::hal_imports::kImports) {
    std::string name = prefix + std::string(row.name);
    if (!called.contains(name) ||
        SymbolTable::lookupSymbolIn(vmModule, builder.getStringAttr(name))) {
      continue;
    }
    hal::ImportSignature sig =
        hal::parseImportSignature(StringRef(row.sig.data(), row.sig.size()));
    SmallVector<Type> inputs, results;
    SmallVector<int32_t> spans;
    for (const hal::ImportParam &param : sig.params) {
      if (param.span) {
        spans.push_back(static_cast<int32_t>(inputs.size()));
        spans.push_back(static_cast<int32_t>(param.types.size()));
      }
      for (StringRef type : param.types) {
        inputs.push_back(vmTypeOf(context, type));
      }
    }
    if (!sig.result.empty()) {
      results.push_back(vmTypeOf(context, sig.result));
    }
    // The hal version that added the function: the module needs at least
    // that hal (a dependency the bytecode writer records).
    vm::ImportOp::create(
        builder, loc, builder.getStringAttr(name),
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

Type HalBuilder::refTy() { return vm::RefType::get(ctx(), Type()); }

Value HalBuilder::callImport(StringRef name, bool variadic, ValueRange args,
                             TypeRange results, ArrayRef<int32_t> spans) {
  auto callee = FlatSymbolRefAttr::get(ctx(), name);
  Operation *call;
  if (variadic) {
    call = vm::CallVariadicOp::create(b, loc, results, callee, args,
                                      b.getDenseI32ArrayAttr(spans));
  } else {
    call = vm::CallImportOp::create(b, loc, results, callee, args);
  }
  return results.empty() ? Value() : call->getResult(0);
}

Value HalBuilder::dim(Value view, RankedTensorType type, int64_t d) {
  if (!type.isDynamicDim(d)) {
    return i64(type.getDimSize(d));
  }
  return call<hal::BufferViewDimOp>({view, i32(static_cast<int32_t>(d))},
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
  unsigned bits = type.getElementTypeBitWidth();
  return i64(type.getNumElements() * (bits < 8 ? 1 : bits / 8));
}

Value HalBuilder::view(Value buffer, Value offset, RankedTensorType type,
                       ValueRange dims, Value bytes) {
  SmallVector<Value> args = {
      buffer, offset, bytes,
      i32(*hal::getElementTypeCode(type.getElementType())), i32(0)};
  args.append(dims.begin(), dims.end());
  return call<hal::BufferViewCreateOp>(args, refTy(),
                                       {static_cast<int32_t>(type.getRank())});
}
