// HostTensorToVM.cpp - tensors on the host as hal.buffer_views in the vm
// conversion: element reads, shapes, reshapes, and the checks and
// reflection of exported signatures (schemas/hal_imports.def has the
// import contract).

#include "HostTensorToVM/HostTensorToVM.h"

#include "HALToVM.h"

#include "Strata/Dialect/Flow/IR/FlowOps.h"
#include "Strata/Dialect/HAL/IR/HALOps.h"
#include "Strata/Dialect/Stream/IR/StreamOps.h"
#include "Strata/Dialect/Util/IR/Reflection.h"
#include "Strata/Dialect/Util/IR/UtilOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::strata;

namespace {

/// tensor.extract on the host: one element read back from the view's
/// buffer (hal.buffer.load, 4 bytes at a time) once the dispatches that
/// made it have been waited for (the group ends before any such read).
struct ExtractConversion : OpConversionPattern<tensor::ExtractOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tensor::ExtractOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getTensor().getType());
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (!type || !resultType) {
      return rewriter.notifyMatchFailure(op, "not a ranked tensor");
    }
    Location loc = op.getLoc();
    HalBuilder hal(rewriter, loc);
    Type i32 = rewriter.getI32Type();
    Type i64 = rewriter.getI64Type();
    // Row-major element index, then bytes; dynamic dimensions are read
    // from the view.
    Value linear = hal.i64(0);
    Value stride = hal.i64(1);
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      Value term = vm::MulI64Op::create(rewriter, loc, i64,
                                        adaptor.getIndices()[d], stride);
      linear = vm::AddI64Op::create(rewriter, loc, i64, linear, term);
      if (d == 0) {
        break;
      }
      Value size = hal.dim(adaptor.getTensor(), type, d);
      stride = vm::MulI64Op::create(rewriter, loc, i64, stride, size);
    }
    unsigned bits = type.getElementTypeBitWidth();
    int64_t bytes = bits < 8 ? 1 : bits / 8;
    Value offset =
        vm::MulI64Op::create(rewriter, loc, i64, linear, hal.i64(bytes));
    Value buffer =
        hal.call<hal::BufferViewBufferOp>({adaptor.getTensor()}, hal.refTy());
    auto load = [&](Value at, int32_t width) {
      return hal.call<hal::BufferLoadOp>({buffer, at, hal.i32(width)}, i32);
    };
    Value result;
    if (bytes <= 4) {
      result = load(offset, static_cast<int32_t>(bytes));
      if (resultType.isF32()) {
        result = vm::BitcastI32F32Op::create(rewriter, loc, resultType, result);
      }
    } else {
      Value low = vm::ExtI32I64UOp::create(rewriter, loc, i64, load(offset, 4));
      Value highAt =
          vm::AddI64Op::create(rewriter, loc, i64, offset, hal.i64(4));
      Value high =
          vm::ExtI32I64UOp::create(rewriter, loc, i64, load(highAt, 4));
      high = vm::ShlI64Op::create(rewriter, loc, i64, high, hal.i64(32));
      result = vm::OrI64Op::create(rewriter, loc, i64, low, high);
      if (resultType.isF64()) {
        result = vm::BitcastI64F64Op::create(rewriter, loc, resultType, result);
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// tensor.dim of a host tensor: the view's dimension (a static one is
/// folded before this).
struct DimConversion : OpConversionPattern<tensor::DimOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tensor::DimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getSource().getType());
    std::optional<int64_t> index = op.getConstantIndex();
    if (!type || !index || *index < 0 || *index >= type.getRank()) {
      return rewriter.notifyMatchFailure(op, "not a constant dimension");
    }
    HalBuilder hal(rewriter, op.getLoc());
    rewriter.replaceOp(op, hal.dim(adaptor.getSource(), type, *index));
    return success();
  }
};

/// tensor.collapse_shape / expand_shape on the host: a new view of the
/// same buffer (row-major, so the bytes do not move). A dynamic result
/// dimension is an expand's output size, or the product of the collapsed
/// source dimensions read from the source view.
template <typename ReshapeOp>
struct ReshapeConversion : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern<ReshapeOp>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<ReshapeOp>::OpAdaptor;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto result = dyn_cast<RankedTensorType>(op.getResult().getType());
    auto source = dyn_cast<RankedTensorType>(op.getSrc().getType());
    if (!result || !source) {
      return rewriter.notifyMatchFailure(op, "not a ranked reshape");
    }
    Location loc = op.getLoc();
    HalBuilder hal(rewriter, loc);
    Value buffer =
        hal.call<hal::BufferViewBufferOp>({adaptor.getSrc()}, hal.refTy());
    if (result.hasStaticShape()) {
      Value view = hal.view(buffer, hal.i64(0), result, hal.dims(result, {}),
                            hal.byteSize(result));
      rewriter.replaceOp(op, view);
      return success();
    }
    Type i64 = rewriter.getI64Type();
    SmallVector<Value> dims;
    if constexpr (std::is_same_v<ReshapeOp, tensor::ExpandShapeOp>) {
      dims = hal.dims(result, adaptor.getOutputShape());
    } else {
      for (const ReassociationIndices &group : op.getReassociationIndices()) {
        Value size = hal.i64(1);
        for (int64_t d : group) {
          size = vm::MulI64Op::create(rewriter, loc, i64, size,
                                      hal.dim(adaptor.getSrc(), source, d));
        }
        dims.push_back(size);
      }
    }
    unsigned bits = result.getElementTypeBitWidth();
    Value bytes = hal.i64(bits < 8 ? 1 : bits / 8);
    for (Value dim : dims) {
      bytes = vm::MulI64Op::create(rewriter, loc, i64, bytes, dim);
    }
    rewriter.replaceOp(op, hal.view(buffer, hal.i64(0), result, dims, bytes));
    return success();
  }
};

/// util.optimization_barrier: its job (keeping the compiler from folding
/// through it) is done by now; it is the identity.
struct OptimizationBarrierConversion
    : OpConversionPattern<util::OptimizationBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(util::OptimizationBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperands());
    return success();
  }
};

} // namespace

LogicalResult mlir::strata::collectHostTensorState(ModuleOp module,
                                                   HostTensorState &state) {
  // Anything that touches tensors or the device needs the hal module.
  module.walk([&](Operation *op) {
    if (isa_and_nonnull<stream::StreamDialect, hal::HALDialect>(
            op->getDialect()) ||
        llvm::any_of(op->getOperandTypes(), llvm::IsaPred<TensorType>) ||
        llvm::any_of(op->getResultTypes(), llvm::IsaPred<TensorType>)) {
      state.usesHal = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  WalkResult unscheduled = module.walk([&](flow::DispatchOp dispatch) {
    dispatch.emitError("dispatch '")
        << dispatch.getEntryPoint().getLeafReference().getValue()
        << "' was not scheduled; the stream phase "
           "(--strata-schedule-execution) and the hal phase must run before "
           "the vm conversion";
    return WalkResult::interrupt();
  });
  if (unscheduled.wasInterrupted()) {
    return failure();
  }
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isDeclaration() || !func.isPublic()) {
      continue;
    }
    auto describe = [](RankedTensorType tensor) {
      std::string text;
      llvm::raw_string_ostream os(text);
      for (int64_t dim : tensor.getShape()) {
        if (ShapedType::isDynamic(dim)) {
          os << "?x";
        } else {
          os << dim << "x";
        }
      }
      tensor.getElementType().print(os);
      return text;
    };
    FunctionType type = func.getFunctionType();
    for (auto [index, input] : llvm::enumerate(type.getInputs())) {
      if (auto tensor = dyn_cast<RankedTensorType>(input)) {
        state.entryChecks[func.getSymName()].push_back(
            {static_cast<unsigned>(index), tensor});
        state.reflection[func.getSymName()].push_back(
            {"arg" + std::to_string(index), describe(tensor)});
      }
    }
    for (auto [index, result] : llvm::enumerate(type.getResults())) {
      if (auto tensor = dyn_cast<RankedTensorType>(result)) {
        state.reflection[func.getSymName()].push_back(
            {"result" + std::to_string(index), describe(tensor)});
      }
    }
    // What the front end names (util.reflection), after the types.
    if (auto names = func->getAttrOfType<DictionaryAttr>(
            mlir::strata::util::kReflectionAttrName)) {
      for (NamedAttribute entry : names) {
        if (auto text = dyn_cast<StringAttr>(entry.getValue())) {
          state.reflection[func.getSymName()].push_back(
              {entry.getName().str(), text.str()});
        }
      }
    }
  }
  state.usesHal |= !state.entryChecks.empty();
  return success();
}

void mlir::strata::populateHostTensorToVMPatterns(
    const TypeConverter &typeConverter, RewritePatternSet &patterns) {
  patterns.add<ExtractConversion, DimConversion, OptimizationBarrierConversion,
               ReshapeConversion<tensor::CollapseShapeOp>,
               ReshapeConversion<tensor::ExpandShapeOp>>(typeConverter,
                                                         patterns.getContext());
}

void mlir::strata::finalizeHostTensorSupport(vm::ModuleOp vmModule,
                                             const HostTensorState &state) {
  OpBuilder builder(vmModule.getContext());
  Block &body = vmModule.getBody().front();
  // The exports' reflection metadata: the tensor types of the signature,
  // then what the front end names (also in a module without tensor work:
  // one that only moves sequences' elements).
  for (auto exportOp : body.getOps<vm::ExportOp>()) {
    auto it = state.reflection.find(exportOp.getFunctionRef());
    if (it == state.reflection.end()) {
      continue;
    }
    SmallVector<NamedAttribute> entries;
    for (const auto &[key, value] : it->second) {
      entries.push_back(
          builder.getNamedAttr(key, builder.getStringAttr(value)));
    }
    exportOp.setReflectionAttr(builder.getDictionaryAttr(entries));
  }
  if (!state.usesHal) {
    return;
  }
  SymbolTable symbols(vmModule);
  for (const auto &entry : state.entryChecks) {
    auto func = symbols.lookup<vm::FuncOp>(entry.getKey());
    if (!func || func.isExternal()) {
      continue;
    }
    Block &entryBlock = func.getBody().front();
    // Each check goes first in turn, so walk them backwards: argument 0 is
    // checked first.
    for (const HostTensorState::EntryCheck &check :
         llvm::reverse(entry.getValue())) {
      // The message names the argument: "argument 0 of @main: expected
      // tensor<2x3xf32>, got tensor<2x4xf32>".
      std::string name =
          ("__message_" + entry.getKey() + "_" + std::to_string(check.argument))
              .str();
      builder.setInsertionPointToStart(&body);
      vm::RodataOp::create(
          builder, func.getLoc(), name,
          builder.getStringAttr("argument " + std::to_string(check.argument) +
                                " of @" + entry.getKey().str()));
      builder.setInsertionPointToStart(&entryBlock);
      HalBuilder hal(builder, func.getLoc());
      SmallVector<Value> args = {
          entryBlock.getArgument(check.argument), hal.rodata(name),
          hal.i32(*hal::getElementTypeCode(check.type.getElementType())),
          hal.i32(0)};
      // A dynamic dimension is -1: any size.
      for (int64_t dim : check.type.getShape()) {
        args.push_back(hal.i64(ShapedType::isDynamic(dim) ? -1 : dim));
      }
      hal.call<hal::BufferViewAssertOp>(
          args, {}, {static_cast<int32_t>(check.type.getRank())});
    }
  }
  // Each element read from a list as a ranked tensor is checked like an
  // argument: kernels trust its shape, and a list may come from the caller
  // (the C API does not check elements) or hold an element never set.
  std::string listMessage;
  vmModule.walk([&](vm::ListGetRefOp get) {
    auto attr = get->getAttrOfType<TypeAttr>(kListElementTypeAttrName);
    if (!attr) {
      return;
    }
    get->removeAttr(kListElementTypeAttrName);
    auto type = cast<RankedTensorType>(attr.getValue());
    if (listMessage.empty()) {
      listMessage = "__message_list_element";
      builder.setInsertionPointToStart(&body);
      vm::RodataOp::create(builder, get.getLoc(), listMessage,
                           builder.getStringAttr("a sequence element"));
    }
    builder.setInsertionPointAfter(get);
    HalBuilder hal(builder, get.getLoc());
    SmallVector<Value> args = {
        get.getResult(), hal.rodata(listMessage),
        hal.i32(*hal::getElementTypeCode(type.getElementType())), hal.i32(0)};
    for (int64_t dim : type.getShape()) {
      args.push_back(hal.i64(ShapedType::isDynamic(dim) ? -1 : dim));
    }
    hal.call<hal::BufferViewAssertOp>(args, {},
                                      {static_cast<int32_t>(type.getRank())});
  });
  // Imports nothing calls are dropped: the module asks the context only for
  // what it uses.
  for (auto import : llvm::make_early_inc_range(body.getOps<vm::ImportOp>())) {
    if (SymbolTable::symbolKnownUseEmpty(import, vmModule)) {
      import.erase();
    }
  }
}
