// HostTensorToVM.cpp - tensors on the host as hal.buffer_views, dispatches as
// calls of the hal module (hal/src/hal_module.cpp has the import contract).

#include "HostTensorToVM.h"

#include "Strata/Dialect/Util/IR/Reflection.h"
#include "Strata/Dialect/Util/IR/UtilOps.h"
#include "strata/hal/buffer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::strata;

namespace {

constexpr llvm::StringLiteral kDispatchAttr = "strata.dispatch";
constexpr llvm::StringLiteral kLibraryAttr = "strata.executable_library";
constexpr llvm::StringLiteral kExecutableGlobal = "__executable";
constexpr llvm::StringLiteral kFormatRodata = "__executable_format";
constexpr llvm::StringLiteral kAsyncAttr = "strata.async";
constexpr llvm::StringLiteral kAsyncSuffix = "$async";
constexpr llvm::StringLiteral kLibraryRodata = "__executable_library";

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

Type refType(MLIRContext *context) { return vm::RefType::get(context, Type()); }

int64_t elementBytes(RankedTensorType type) {
  unsigned bits = type.getElementTypeBitWidth();
  return bits < 8 ? 1 : bits / 8;
}

/// Builds vm ops for one host-side sequence.
class HalBuilder {
public:
  HalBuilder(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  Value i32(int32_t v) {
    return vm::ConstI32Op::create(b, loc, b.getI32Type(),
                                  b.getI32IntegerAttr(v));
  }
  Value i64(int64_t v) {
    return vm::ConstI64Op::create(b, loc, b.getI64Type(),
                                  b.getI64IntegerAttr(v));
  }
  Value rodata(StringRef name) {
    return vm::ConstRefRodataOp::create(b, loc, vm::BufferType::get(ctx()),
                                        FlatSymbolRefAttr::get(ctx(), name));
  }
  Value call(StringRef name, ValueRange args, TypeRange results = {}) {
    auto op = vm::CallImportOp::create(
        b, loc, results, FlatSymbolRefAttr::get(ctx(), name), args);
    return results.empty() ? Value() : op.getResult(0);
  }
  Value callVariadic(StringRef name, ValueRange args,
                     ArrayRef<int32_t> segments, TypeRange results = {}) {
    auto op = vm::CallVariadicOp::create(
        b, loc, results, FlatSymbolRefAttr::get(ctx(), name), args,
        b.getDenseI32ArrayAttr(segments));
    return results.empty() ? Value() : op.getResult(0);
  }
  Type refTy() { return refType(ctx()); }

  /// Dimension `d` of the buffer view `view` of a `type` tensor: a
  /// constant when static, else read from the view (hal.buffer_view.dim).
  Value dim(Value view, RankedTensorType type, int64_t d) {
    if (!type.isDynamicDim(d)) {
      return i64(type.getDimSize(d));
    }
    return call("hal.buffer_view.dim", {view, i32(static_cast<int32_t>(d))},
                b.getI64Type());
  }

  /// The dimensions of a `type` tensor: the static ones as constants, the
  /// dynamic ones taken in order from `dynamicDims` (i64 values).
  SmallVector<Value> dims(RankedTensorType type, ValueRange dynamicDims) {
    SmallVector<Value> values;
    unsigned next = 0;
    for (int64_t dim : type.getShape()) {
      values.push_back(ShapedType::isDynamic(dim) ? dynamicDims[next++]
                                                  : i64(dim));
    }
    return values;
  }

  /// The bytes of a tensor of `type` with dimensions `dims`.
  Value byteSize(RankedTensorType type, ValueRange dims) {
    if (type.hasStaticShape()) {
      return i64(type.getNumElements() * elementBytes(type));
    }
    Value size = i64(elementBytes(type));
    for (auto [dim, value] : llvm::zip(type.getShape(), dims)) {
      if (ShapedType::isDynamic(dim)) {
        size = vm::MulI64Op::create(b, loc, b.getI64Type(), size, value);
      } else if (dim != 1) {
        size = vm::MulI64Op::create(b, loc, b.getI64Type(), size, i64(dim));
      }
    }
    return size;
  }

  /// A buffer view over the first `bytes` of `buffer` with `type`'s
  /// element type and `dims`.
  Value view(Value buffer, Value offset, RankedTensorType type, ValueRange dims,
             Value bytes) {
    SmallVector<Value> args = {buffer, offset, bytes,
                               i32(*getHalElementType(type.getElementType())),
                               i32(0)};
    args.append(dims.begin(), dims.end());
    return callVariadic("hal.buffer_view.create", args,
                        {static_cast<int32_t>(type.getRank())}, refTy());
  }

  MLIRContext *ctx() { return b.getContext(); }

private:
  OpBuilder &b;
  Location loc;
};

/// func.call @main_dispatch_0_...(views...) -> views: the dispatch is
/// recorded into its group's command buffer (HostTensorState::CallPlan); the
/// last of the group submits them all and waits before any result is read.
struct DispatchCallConversion : OpConversionPattern<func::CallOp> {
  DispatchCallConversion(const TypeConverter &typeConverter,
                         MLIRContext *context, HostTensorState &state)
      : OpConversionPattern(typeConverter, context, /*benefit=*/2),
        state(state) {}

  LogicalResult
  matchAndRewrite(func::CallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto it = state.dispatches.find(op.getCallee());
    if (it == state.dispatches.end()) {
      return failure();
    }
    const HostTensorState::Dispatch &dispatch = it->second;
    auto planIt = state.calls.find(op.getOperation());
    if (planIt == state.calls.end()) {
      return failure();
    }
    const HostTensorState::CallPlan &plan = planIt->second;
    HalBuilder hal(rewriter, op.getLoc());
    Type ref = hal.refTy();
    HostTensorState::GroupValues &group = state.groups[plan.group];
    if (plan.first) {
      group.device = hal.call("hal.devices.get", {hal.i32(0)}, ref);
      group.allocator = hal.call("hal.device.allocator", {group.device}, ref);
      // One-shot command buffer (mode 1), any category.
      group.commands = hal.call("hal.command_buffer.create",
                                {group.device, hal.i32(1), hal.i32(0)}, ref);
      group.executable = vm::GlobalLoadRefOp::create(
          rewriter, op.getLoc(), ref,
          FlatSymbolRefAttr::get(rewriter.getContext(), kExecutableGlobal));
      if (plan.waitFor) {
        group.waitFence = state.groups.lookup(*plan.waitFor).fence;
      } else if (plan.waitForFence) {
        group.waitFence = rewriter.getRemappedValue(plan.waitForFence);
      }
      if (plan.slabBytes) {
        // Every byte of a result is written by its dispatch before anything
        // reads it, so results and slabs need no zeroing.
        group.slab = hal.call("hal.allocator.allocate_uninitialized",
                              {group.allocator, hal.i64(plan.slabBytes)}, ref);
      }
    }
    Value device = group.device;
    Value allocator = group.allocator;
    Value commands = group.commands;
    Value executable = group.executable;

    // Bindings (buffer, offset, length): every tensor input's buffer (a
    // transient one's place in its slab), then each result's. Scalar
    // inputs become push constants: 32-bit words, two (low first) for
    // 64-bit values.
    struct Binding {
      Value buffer, offset, length;
    };
    SmallVector<Binding> bindings;
    SmallVector<Value> constants;
    Type i32 = rewriter.getI32Type();
    Type i64 = rewriter.getI64Type();
    Value zero = hal.i64(0);
    Value toEnd = hal.i64(-1);
    for (auto [original, input] :
         llvm::zip(op.getOperands(), adaptor.getOperands())) {
      if (isa<TensorType>(original.getType())) {
        auto transient = state.transients.find(input);
        if (transient != state.transients.end()) {
          bindings.push_back({transient->second.slab,
                              hal.i64(transient->second.offset),
                              hal.i64(transient->second.bytes)});
        } else {
          bindings.push_back(
              {hal.call("hal.buffer_view.buffer", {input}, ref), zero, toEnd});
        }
        continue;
      }
      Value value = input;
      if (value.getType().isF32()) {
        value = vm::BitcastF32I32Op::create(rewriter, op.getLoc(), i32, value);
      } else if (value.getType().isF64()) {
        value = vm::BitcastF64I64Op::create(rewriter, op.getLoc(), i64, value);
      }
      if (value.getType().isInteger(64)) {
        Value high = vm::ShrUI64Op::create(rewriter, op.getLoc(), i64, value,
                                           hal.i64(32));
        constants.push_back(
            vm::TruncI64I32Op::create(rewriter, op.getLoc(), i32, value));
        constants.push_back(
            vm::TruncI64I32Op::create(rewriter, op.getLoc(), i32, high));
      } else {
        constants.push_back(value);
      }
    }
    // The sizes of the results' dynamic dimensions are the call's last
    // operands (flow's contract with the dispatch).
    unsigned resultDynamicDims = 0;
    for (Type type : op.getResultTypes()) {
      resultDynamicDims += cast<RankedTensorType>(type).getNumDynamicDims();
    }
    ValueRange dynamicDims = adaptor.getOperands().take_back(resultDynamicDims);
    struct Result {
      Binding binding;
      SmallVector<Value> dims;
      Value bytes;
      int64_t slabOffset; // -1: its own allocation
    };
    SmallVector<Result> results;
    for (auto [index, type] : llvm::enumerate(op.getResultTypes())) {
      auto tensor = cast<RankedTensorType>(type);
      Result result;
      result.dims =
          hal.dims(tensor, dynamicDims.take_front(tensor.getNumDynamicDims()));
      dynamicDims = dynamicDims.drop_front(tensor.getNumDynamicDims());
      result.bytes = hal.byteSize(tensor, result.dims);
      result.slabOffset =
          index < plan.slabOffsets.size() ? plan.slabOffsets[index] : -1;
      if (result.slabOffset >= 0) {
        result.binding = {group.slab, hal.i64(result.slabOffset), result.bytes};
      } else {
        result.binding = {hal.call("hal.allocator.allocate_uninitialized",
                                   {allocator, result.bytes}, ref),
                          zero, toEnd};
      }
      bindings.push_back(result.binding);
      results.push_back(result);
    }

    if (plan.barrier) {
      hal.call("hal.command_buffer.execution_barrier", {commands});
    }
    SmallVector<Value> args = {commands,
                               executable,
                               hal.i32(dispatch.ordinal),
                               hal.i32(dispatch.workgroups[0]),
                               hal.i32(dispatch.workgroups[1]),
                               hal.i32(dispatch.workgroups[2])};
    args.append(constants);
    for (const Binding &binding : bindings) {
      args.append({binding.buffer, binding.offset, binding.length});
    }
    hal.callVariadic("hal.command_buffer.dispatch", args,
                     {static_cast<int32_t>(constants.size()),
                      static_cast<int32_t>(bindings.size())});
    // The views only describe the buffers; nothing reads them before the
    // host awaits the group's fence (or a later one of its chain). A
    // transient result has no view: only dispatches of this group read it,
    // through its place in the slab; a null ref stands for it.
    SmallVector<Value> views;
    for (auto [result, type] : llvm::zip(results, op.getResultTypes())) {
      auto tensor = cast<RankedTensorType>(type);
      if (result.slabOffset >= 0) {
        Value placeholder =
            vm::ConstRefZeroOp::create(rewriter, op.getLoc(), ref);
        state.transients[placeholder] = {group.slab, result.slabOffset,
                                         tensor.getNumElements() *
                                             elementBytes(tensor)};
        views.push_back(placeholder);
        continue;
      }
      views.push_back(hal.view(result.binding.buffer, result.binding.offset,
                               tensor, result.dims, result.bytes));
    }
    if (plan.last) {
      hal.call("hal.command_buffer.finalize", {commands});
      group.fence = hal.call("hal.fence.create", {device, hal.i32(0)}, ref);
      Value wait = group.waitFence
                       ? group.waitFence
                       : vm::ConstRefZeroOp::create(rewriter, op.getLoc(), ref)
                             .getResult();
      hal.callVariadic("hal.device.queue.execute",
                       {device, wait, group.fence, commands}, {1});
      if (plan.signalBefore) {
        // The caller learns of the results through its signal fence.
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(plan.signalBefore);
        HalBuilder signalHal(rewriter, plan.signalBefore->getLoc());
        signalHal.call(
            "hal.device.queue.barrier",
            {device, group.fence, rewriter.getRemappedValue(plan.signalFence)});
      }
      if (plan.awaitBefore) {
        // A negative timeout waits for as long as it takes; a failed
        // dispatch fails the await with its error.
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(plan.awaitBefore);
        HalBuilder awaitHal(rewriter, plan.awaitBefore->getLoc());
        awaitHal.callVariadic("hal.fence.await",
                              {awaitHal.i32(-1), group.fence}, {1},
                              rewriter.getI32Type());
      }
    }
    rewriter.replaceOp(op, views);
    return success();
  }

  HostTensorState &state;
};

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
        hal.call("hal.buffer_view.buffer", {adaptor.getTensor()}, hal.refTy());
    auto load = [&](Value at, int32_t width) {
      return hal.call("hal.buffer.load", {buffer, at, hal.i32(width)}, i32);
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

/// tensor.collapse_shape / expand_shape of a static tensor on the host: a
/// new view of the same buffer (row-major, so the bytes do not move).
template <typename ReshapeOp>
struct ReshapeConversion : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern<ReshapeOp>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<ReshapeOp>::OpAdaptor;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto result = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!result || !result.hasStaticShape()) {
      return rewriter.notifyMatchFailure(op, "not a static reshape");
    }
    HalBuilder hal(rewriter, op.getLoc());
    Value buffer =
        hal.call("hal.buffer_view.buffer", {adaptor.getSrc()}, hal.refTy());
    Value view = hal.view(buffer, hal.i64(0), result, hal.dims(result, {}),
                          hal.byteSize(result, {}));
    rewriter.replaceOp(op, view);
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
  if (elementType.isF16() || elementType.isF32() || elementType.isF64()) {
    return static_cast<int32_t>(
        STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_FLOAT_IEEE,
                                elementType.getIntOrFloatBitWidth()));
  }
  return std::nullopt;
}

namespace {

/// Whether the host must have the results of earlier dispatches before
/// `op` runs: it reads tensors (other than their shapes), holds regions
/// that touch tensors, or ends the block (the wait is not carried across
/// blocks).
bool needsDispatchResults(Operation &op) {
  auto hasTensor = [](TypeRange types) {
    return llvm::any_of(types, [](Type t) { return isa<TensorType>(t); });
  };
  if (op.hasTrait<OpTrait::IsTerminator>()) {
    return true;
  }
  if (isa<tensor::DimOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp,
          util::OptimizationBarrierOp>(op)) {
    return false;
  }
  if (hasTensor(op.getOperandTypes())) {
    return true;
  }
  if (op.getNumRegions() == 0) {
    return false;
  }
  WalkResult touches = op.walk([&](Operation *nested) {
    return hasTensor(nested->getOperandTypes()) ||
                   hasTensor(nested->getResultTypes())
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return touches.wasInterrupted();
}

/// Places the results of `calls` (one group) that only later dispatches of
/// the group read, with static shapes, in one transient slab: one
/// allocation for the group's intermediates.
void planTransients(ArrayRef<Operation *> calls, HostTensorState &state) {
  constexpr int64_t kSlabAlignment = 64;
  SmallPtrSet<Operation *, 8> group(calls.begin(), calls.end());
  int64_t total = 0;
  for (Operation *call : calls) {
    HostTensorState::CallPlan &plan = state.calls[call];
    plan.slabOffsets.assign(call->getNumResults(), -1);
    for (OpResult result : call->getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      bool transient = type && type.hasStaticShape() && !result.use_empty() &&
                       llvm::all_of(result.getUsers(), [&](Operation *user) {
                         return group.contains(user);
                       });
      if (!transient) {
        continue;
      }
      plan.slabOffsets[result.getResultNumber()] = total;
      int64_t bytes = type.getNumElements() * elementBytes(type);
      total += (bytes + kSlabAlignment - 1) / kSlabAlignment * kSlabAlignment;
    }
  }
  state.calls[calls.front()].slabBytes = total;
}

/// Before `op`: the host waits for `fence` (a function argument, so the vm
/// ops can be written before the conversion; it maps their operand).
void awaitFence(Operation &op, Value fence) {
  OpBuilder b(&op);
  HalBuilder hal(b, op.getLoc());
  hal.callVariadic("hal.fence.await", {hal.i32(-1), fence}, {1},
                   b.getI32Type());
}

/// Before an async-external return with no device work pending: the signal
/// fence is signaled now, or once the wait fence is (if nothing waited for
/// it).
void signalAtReturn(Operation &op, Value waitFence, Value signalFence) {
  OpBuilder b(&op);
  HalBuilder hal(b, op.getLoc());
  if (!waitFence) {
    hal.call("hal.fence.signal", {signalFence});
    return;
  }
  Value device = hal.call("hal.devices.get", {hal.i32(0)}, hal.refTy());
  hal.call("hal.device.queue.barrier", {device, waitFence, signalFence});
}

/// Groups the dispatch calls of each block of `func` and chains the groups
/// (see HostTensorState::CallPlan).
void planGroups(func::FuncOp func, HostTensorState &state) {
  auto isDispatch = [&](Operation *op) {
    auto call = dyn_cast<func::CallOp>(op);
    return call && state.dispatches.contains(call.getCallee());
  };
  auto hasTensor = [](TypeRange types) {
    return llvm::any_of(types, [](Type t) { return isa<TensorType>(t); });
  };
  unsigned nextGroup = state.calls.size();
  // An async-external function starts with its wait fence pending, and
  // hands what is pending at a return to its signal fence.
  Value entryFence, signalFence;
  if (func->hasAttr(kAsyncAttr)) {
    Block &entry = func.getBody().front();
    entryFence = entry.getArgument(entry.getNumArguments() - 2);
    signalFence = entry.getArgument(entry.getNumArguments() - 1);
  }
  // Every block (scf is lowered to cf by now, so each op planned here
  // keeps its identity until the conversion reaches it).
  func.walk([&](Block *blockPtr) {
    Block &block = *blockPtr;
    SmallVector<Operation *> groupCalls; // of the open group
    unsigned group = 0;
    // The last group submitted and not yet awaited, and its last call.
    std::optional<unsigned> pending;
    Operation *pendingLast = nullptr;
    // The function's wait fence, until something waits for it.
    Value pendingFence = block.isEntryBlock() ? entryFence : Value();
    auto close = [&]() {
      if (groupCalls.empty()) {
        return;
      }
      state.calls[groupCalls.back()].last = true;
      planTransients(groupCalls, state);
      pending = group;
      pendingLast = groupCalls.back();
      groupCalls.clear();
    };
    for (Operation &op : block) {
      if (isDispatch(&op)) {
        HostTensorState::CallPlan plan;
        plan.first = groupCalls.empty();
        if (plan.first) {
          group = nextGroup++;
          // The chain goes on: this group's submission waits for the
          // pending one, whose wait the host leaves to this group's.
          plan.waitFor = pending;
          if (!pending) {
            plan.waitForFence = pendingFence;
          }
          pending.reset();
          pendingLast = nullptr;
          pendingFence = Value();
        }
        plan.group = group;
        plan.last = false;
        // A barrier goes before a dispatch that reads what an earlier one
        // of its group writes, directly or through a reshape (a view of
        // the same buffer on the host).
        plan.barrier = llvm::any_of(op.getOperands(), [&](Value v) {
          while (Operation *view = v.getDefiningOp()) {
            if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(view)) {
              v = collapse.getSrc();
            } else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(view)) {
              v = expand.getSrc();
            } else {
              break;
            }
          }
          return v.getDefiningOp() &&
                 llvm::is_contained(groupCalls, v.getDefiningOp());
        });
        state.calls[&op] = plan;
        groupCalls.push_back(&op);
        continue;
      }
      // Scalar work may sit between dispatches, and reads of shapes and
      // reshapes (the views exist as soon as the dispatch is recorded);
      // anything else that touches a tensor or has effects ends the group.
      if (isa<tensor::DimOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
              op)) {
        continue;
      }
      if (op.hasTrait<OpTrait::IsTerminator>() || !isMemoryEffectFree(&op) ||
          op.getNumRegions() != 0 || hasTensor(op.getOperandTypes()) ||
          hasTensor(op.getResultTypes())) {
        close();
      }
      if (signalFence && isa<func::ReturnOp>(op)) {
        // An async-external return: what is pending goes to the signal
        // fence; the host does not wait.
        if (pendingLast) {
          state.calls[pendingLast].signalBefore = &op;
          state.calls[pendingLast].signalFence = signalFence;
        } else {
          signalAtReturn(op, pendingFence, signalFence);
        }
        pending.reset();
        pendingLast = nullptr;
        pendingFence = Value();
        continue;
      }
      if (!needsDispatchResults(op)) {
        continue;
      }
      if (pendingLast) {
        state.calls[pendingLast].awaitBefore = &op;
        pending.reset();
        pendingLast = nullptr;
      } else if (pendingFence) {
        awaitFence(op, pendingFence);
        pendingFence = Value();
      }
    }
    close();
  });
}

} // namespace

LogicalResult mlir::strata::collectHostTensorState(ModuleOp module,
                                                   HostTensorState &state) {
  if (auto library = module->getAttrOfType<DictionaryAttr>(kLibraryAttr)) {
    auto format = library.getAs<StringAttr>("format");
    auto bytes = library.getAs<StringAttr>("library");
    if (!format || !bytes) {
      return module.emitError("'")
             << kLibraryAttr << "' needs string 'format' and 'library'";
    }
    state.libraryFormat = format.getValue().str();
    state.library = bytes.getValue().str();
    module->removeAttr(kLibraryAttr);
  }
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
    if (Attribute attr = func->getAttr(kDispatchAttr)) {
      auto info = dyn_cast<DictionaryAttr>(attr);
      auto ordinal = info ? info.getAs<IntegerAttr>("ordinal") : IntegerAttr();
      auto grid = info ? info.getAs<DenseI32ArrayAttr>("workgroup_count")
                       : DenseI32ArrayAttr();
      if (!ordinal || !grid || grid.size() != 3 || state.library.empty()) {
        return func.emitError("dispatch '")
               << func.getSymName()
               << "' has no compiled kernel; the hal phase (code generation "
                  "of the executable) must run before the vm conversion";
      }
      state.dispatches[func.getSymName()] = {
          static_cast<int32_t>(ordinal.getInt()), {grid[0], grid[1], grid[2]}};
      func.erase();
      continue;
    }
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
            strata::util::kReflectionAttrName)) {
      for (NamedAttribute entry : names) {
        if (auto text = dyn_cast<StringAttr>(entry.getValue())) {
          state.reflection[func.getSymName()].push_back(
              {entry.getName().str(), text.str()});
        }
      }
    }
  }
  return success();
}

void mlir::strata::addAsyncExports(ModuleOp module) {
  auto hasTensor = [](TypeRange types) {
    return llvm::any_of(types, [](Type t) { return isa<TensorType>(t); });
  };
  SmallVector<func::FuncOp> exports;
  for (auto func : module.getOps<func::FuncOp>()) {
    FunctionType type = func.getFunctionType();
    if (func.isPublic() && !func.isDeclaration() &&
        (hasTensor(type.getInputs()) || hasTensor(type.getResults()))) {
      exports.push_back(func);
    }
  }
  for (func::FuncOp func : exports) {
    OpBuilder builder(func);
    builder.setInsertionPointAfter(func);
    auto twin = cast<func::FuncOp>(builder.clone(*func));
    twin.setSymName((func.getSymName() + kAsyncSuffix).str());
    Type ref = refType(module.getContext());
    unsigned count = twin.getNumArguments();
    if (failed(twin.insertArguments({count, count}, {ref, ref}, {{}, {}},
                                    {func.getLoc(), func.getLoc()}))) {
      func.emitError("cannot add the fence arguments of its async twin");
      continue;
    }
    twin->setAttr(kAsyncAttr, builder.getUnitAttr());
  }
}

void mlir::strata::planHostDispatches(ModuleOp module, HostTensorState &state) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isDeclaration()) {
      planGroups(func, state);
    }
  }
}

void mlir::strata::materializeHostTensorSupport(vm::ModuleOp vmModule,
                                                const HostTensorState &state) {
  if (!state.usesHal()) {
    return;
  }
  MLIRContext *context = vmModule.getContext();
  Location loc = vmModule.getLoc();
  OpBuilder builder(context);
  Block &body = vmModule.getBody().front();
  builder.setInsertionPointToStart(&body);
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
  if (state.dispatches.empty()) {
    return;
  }
  vm::RodataOp::create(builder, loc, kFormatRodata,
                       builder.getStringAttr(state.libraryFormat));
  vm::RodataOp::create(builder, loc, kLibraryRodata,
                       builder.getStringAttr(state.library));
  vm::GlobalRefOp::create(
      builder, loc, builder.getStringAttr(kExecutableGlobal),
      /*is_mutable=*/builder.getUnitAttr(), TypeAttr::get(refType(context)));

  // __init: load the kernel library once per context, so a bad library
  // fails when the context is made, not at the first call.
  builder.setInsertionPointToEnd(&body);
  auto init = vm::FuncOp::create(builder, loc, "__init",
                                 builder.getFunctionType({}, {}),
                                 /*arg_attrs=*/ArrayAttr(),
                                 /*res_attrs=*/ArrayAttr());
  init->setAttr("vm.initializer", builder.getUnitAttr());
  builder.setInsertionPointToStart(init.addEntryBlock());
  HalBuilder hal(builder, loc);
  Value device = hal.call("hal.devices.get", {hal.i32(0)}, hal.refTy());
  Value executable =
      hal.call("hal.executable.create",
               {device, hal.rodata(kFormatRodata), hal.rodata(kLibraryRodata)},
               hal.refTy());
  vm::GlobalStoreRefOp::create(
      builder, loc, executable,
      FlatSymbolRefAttr::get(context, kExecutableGlobal));
  vm::ReturnOp::create(builder, loc, ValueRange());
}

void mlir::strata::populateHostTensorToVMPatterns(
    const TypeConverter &typeConverter, RewritePatternSet &patterns,
    HostTensorState &state) {
  patterns.add<DispatchCallConversion>(typeConverter, patterns.getContext(),
                                       state);
  patterns.add<ExtractConversion, DimConversion, OptimizationBarrierConversion,
               ReshapeConversion<tensor::CollapseShapeOp>,
               ReshapeConversion<tensor::ExpandShapeOp>>(typeConverter,
                                                         patterns.getContext());
}

void mlir::strata::finalizeHostTensorSupport(vm::ModuleOp vmModule,
                                             const HostTensorState &state) {
  if (!state.usesHal()) {
    return;
  }
  OpBuilder builder(vmModule.getContext());
  Block &body = vmModule.getBody().front();
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
          hal.i32(*getHalElementType(check.type.getElementType())), hal.i32(0)};
      // A dynamic dimension is -1: any size.
      for (int64_t dim : check.type.getShape()) {
        args.push_back(hal.i64(ShapedType::isDynamic(dim) ? -1 : dim));
      }
      hal.callVariadic("hal.buffer_view.assert", args,
                       {static_cast<int32_t>(check.type.getRank())});
    }
  }
  // The exports' reflection metadata: the tensor types of the signature.
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
  // Imports nothing calls are dropped: the module asks the context only for
  // what it uses.
  for (auto import : llvm::make_early_inc_range(body.getOps<vm::ImportOp>())) {
    if (SymbolTable::symbolKnownUseEmpty(import, vmModule)) {
      import.erase();
    }
  }
}
