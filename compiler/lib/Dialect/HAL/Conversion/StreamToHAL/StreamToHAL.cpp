// StreamToHAL.cpp - --strata-convert-stream-to-hal (HAL/Transforms/
// Passes.td): each stream op becomes the typed hal ops that do its work.

#include "Strata/Dialect/HAL/IR/HALOps.h"
#include "Strata/Dialect/HAL/Transforms/Passes.h"
#include "Strata/Dialect/Stream/IR/StreamOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::strata::hal {
#define GEN_PASS_DEF_CONVERTSTREAMTOHALPASS
#include "Strata/Dialect/HAL/Transforms/Passes.h.inc"
} // namespace mlir::strata::hal

using namespace mlir;
using namespace mlir::strata;

namespace {

Value i32(OpBuilder &b, Location loc, int32_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

/// The device and allocator of a function, made at its entry the first
/// time one of its ops needs them (device 0 of the context).
class DeviceCache {
public:
  Value device(Operation *user, OpBuilder &b) {
    Entry &entry = entryOf(user, b);
    return entry.device;
  }
  Value allocator(Operation *user, OpBuilder &b) {
    Entry &entry = entryOf(user, b);
    if (!entry.allocator) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfterValue(entry.device);
      entry.allocator = hal::DeviceAllocatorOp::create(b, entry.device.getLoc(),
                                                       entry.device);
    }
    return entry.allocator;
  }

private:
  struct Entry {
    Value device;
    Value allocator;
  };
  Entry &entryOf(Operation *user, OpBuilder &b) {
    auto func = user->getParentOfType<FunctionOpInterface>();
    Entry &entry = entries[func];
    if (!entry.device) {
      OpBuilder::InsertionGuard guard(b);
      Block &entryBlock = func.getFunctionBody().front();
      b.setInsertionPointToStart(&entryBlock);
      Location loc = func.getLoc();
      entry.device = hal::DevicesGetOp::create(b, loc, i32(b, loc, 0));
    }
    return entry;
  }
  DenseMap<Operation *, Entry> entries;
};

template <typename OpTy> struct StreamPattern : OpConversionPattern<OpTy> {
  StreamPattern(const TypeConverter &typeConverter, MLIRContext *context,
                DeviceCache &devices)
      : OpConversionPattern<OpTy>(typeConverter, context), devices(devices) {}
  DeviceCache &devices;
};

/// stream.resource.alloc/alloca -> hal.allocator.allocate_uninitialized:
/// every byte is written by a dispatch before anything reads it, so
/// results and slabs need no zeroing.
template <typename OpTy> struct ResourceAllocConversion : StreamPattern<OpTy> {
  using StreamPattern<OpTy>::StreamPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value allocator = this->devices.allocator(op, rewriter);
    rewriter.replaceOpWithNewOp<hal::AllocatorAllocateUninitializedOp>(
        op, allocator, adaptor.getSize());
    return success();
  }
};

/// stream.resource.constant -> hal.buffer.wrap of the data in place.
struct ResourceConstantConversion : StreamPattern<stream::ResourceConstantOp> {
  using StreamPattern::StreamPattern;
  LogicalResult
  matchAndRewrite(stream::ResourceConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<hal::BufferWrapOp>(op, op.getValue());
    return success();
  }
};

/// stream.resource.size -> hal.buffer.length.
struct ResourceSizeConversion : StreamPattern<stream::ResourceSizeOp> {
  using StreamPattern::StreamPattern;
  LogicalResult
  matchAndRewrite(stream::ResourceSizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<hal::BufferLengthOp>(op, adaptor.getResource());
    return success();
  }
};

/// stream.tensor.import -> the buffer of the tensor's buffer view.
struct TensorImportConversion : StreamPattern<stream::TensorImportOp> {
  using StreamPattern::StreamPattern;
  LogicalResult
  matchAndRewrite(stream::TensorImportOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value view = hal::TensorExportOp::create(
        rewriter, op.getLoc(), rewriter.getType<hal::BufferViewType>(),
        adaptor.getSource());
    rewriter.replaceOpWithNewOp<hal::BufferViewBufferOp>(op, view);
    return success();
  }
};

/// stream.tensor.export -> a buffer view over the range, as a host tensor.
struct TensorExportConversion : StreamPattern<stream::TensorExportOp> {
  using StreamPattern::StreamPattern;
  LogicalResult
  matchAndRewrite(stream::TensorExportOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    std::optional<int32_t> code =
        hal::getElementTypeCode(type.getElementType());
    if (!code) {
      return rewriter.notifyMatchFailure(op, "no element type code");
    }
    Location loc = op.getLoc();
    SmallVector<Value> dims;
    unsigned next = 0;
    for (int64_t dim : type.getShape()) {
      dims.push_back(
          ShapedType::isDynamic(dim)
              ? adaptor.getDynamicDims()[next++]
              : arith::ConstantIndexOp::create(rewriter, loc, dim).getResult());
    }
    Value view = hal::BufferViewCreateOp::create(
        rewriter, loc, adaptor.getSource(), adaptor.getOffset(),
        adaptor.getLength(), i32(rewriter, loc, *code), i32(rewriter, loc, 0),
        dims);
    rewriter.replaceOpWithNewOp<hal::TensorImportOp>(op, type, view,
                                                     adaptor.getDynamicDims());
    return success();
  }
};

/// A push constant as 32-bit words (two, low first, for 64-bit values).
void appendConstantWords(OpBuilder &b, Location loc, Value value,
                         SmallVectorImpl<Value> &words) {
  Type i32Type = b.getI32Type();
  Type i64Type = b.getI64Type();
  if (value.getType().isIndex()) {
    value = arith::IndexCastOp::create(b, loc, i64Type, value);
  } else if (value.getType().isF32()) {
    value = arith::BitcastOp::create(b, loc, i32Type, value);
  } else if (value.getType().isF64()) {
    value = arith::BitcastOp::create(b, loc, i64Type, value);
  } else if (value.getType().isF16() || value.getType().isBF16()) {
    Type i16 = b.getI16Type();
    value = arith::BitcastOp::create(b, loc, i16, value);
  }
  unsigned width = value.getType().getIntOrFloatBitWidth();
  if (width == 64) {
    Value high = arith::ShRUIOp::create(
        b, loc, value, arith::ConstantIntOp::create(b, loc, 32, 64));
    words.push_back(arith::TruncIOp::create(b, loc, i32Type, value));
    words.push_back(arith::TruncIOp::create(b, loc, i32Type, high));
    return;
  }
  if (width < 32) {
    value = arith::ExtUIOp::create(b, loc, i32Type, value);
  }
  words.push_back(value);
}

/// stream.cmd.execute -> a one-shot command buffer with its commands, a
/// fence, and the submission that waits for the awaited fence and signals
/// the new one (the op's timepoint).
struct CmdExecuteConversion : StreamPattern<stream::CmdExecuteOp> {
  CmdExecuteConversion(const TypeConverter &typeConverter, MLIRContext *context,
                       DeviceCache &devices, SymbolTableCollection &symbols)
      : StreamPattern(typeConverter, context, devices), symbols(symbols) {}

  LogicalResult
  matchAndRewrite(stream::CmdExecuteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value device = devices.device(op, rewriter);
    // One-shot command buffer (mode 1), any category.
    Value commands = hal::CommandBufferCreateOp::create(
        rewriter, loc, device, i32(rewriter, loc, 1), i32(rewriter, loc, 0));
    // Each executable the commands use is looked up once.
    DenseMap<StringAttr, Value> executables;
    for (Operation &command : op.getBody().front()) {
      Location at = command.getLoc();
      if (isa<stream::CmdBarrierOp>(command)) {
        hal::CommandBufferExecutionBarrierOp::create(rewriter, at, commands);
        continue;
      }
      auto dispatch = cast<stream::CmdDispatchOp>(command);
      auto entry = symbols.lookupNearestSymbolFrom<hal::ExecutableExportOp>(
          op, dispatch.getEntryPoint());
      if (!entry) {
        return rewriter.notifyMatchFailure(op, "dispatch without an export");
      }
      StringAttr executableName = dispatch.getEntryPoint().getRootReference();
      Value &executable = executables[executableName];
      if (!executable) {
        executable = hal::ExecutableLookupOp::create(
            rewriter, loc, rewriter.getType<hal::ExecutableType>(),
            FlatSymbolRefAttr::get(executableName));
      }
      SmallVector<Value> constants;
      for (Value constant : dispatch.getConstants()) {
        appendConstantWords(rewriter, at, rewriter.getRemappedValue(constant),
                            constants);
      }
      // A dispatch whose results are all empty at run time gets no
      // workgroups: the device skips it.
      ArrayRef<int32_t> grid = entry.getWorkgroupCount();
      Value gridX = i32(rewriter, at, grid[0]);
      if (Value enabled = dispatch.getEnabled()) {
        gridX = arith::SelectOp::create(rewriter, at,
                                        rewriter.getRemappedValue(enabled),
                                        gridX, i32(rewriter, at, 0));
      }
      SmallVector<Value> bindings;
      for (auto [resource, offset, length] :
           llvm::zip(dispatch.getResources(), dispatch.getOffsets(),
                     dispatch.getLengths())) {
        bindings.append({rewriter.getRemappedValue(resource),
                         rewriter.getRemappedValue(offset),
                         rewriter.getRemappedValue(length)});
      }
      hal::CommandBufferDispatchOp::create(
          rewriter, at, commands, executable,
          i32(rewriter, at, static_cast<int32_t>(entry.getOrdinal())), gridX,
          i32(rewriter, at, grid[1]), i32(rewriter, at, grid[2]), constants,
          bindings);
    }
    hal::CommandBufferFinalizeOp::create(rewriter, loc, commands);
    Value fence = hal::FenceCreateOp::create(rewriter, loc, device,
                                             i32(rewriter, loc, 0));
    hal::DeviceQueueExecuteOp::create(rewriter, loc, device,
                                      adaptor.getAwaitTimepoint(), fence,
                                      ValueRange{commands});
    rewriter.replaceOp(op, fence);
    return success();
  }

  SymbolTableCollection &symbols;
};

/// stream.timepoint.immediate -> a reached (null) fence.
struct TimepointImmediateConversion
    : StreamPattern<stream::TimepointImmediateOp> {
  using StreamPattern::StreamPattern;
  LogicalResult
  matchAndRewrite(stream::TimepointImmediateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<hal::FenceImmediateOp>(
        op, rewriter.getType<hal::FenceType>());
    return success();
  }
};

/// stream.timepoint.await -> hal.fence.await with no deadline (a negative
/// timeout waits for as long as it takes; a failed dispatch fails the
/// await with its error); the values pass through.
struct TimepointAwaitConversion : StreamPattern<stream::TimepointAwaitOp> {
  using StreamPattern::StreamPattern;
  LogicalResult
  matchAndRewrite(stream::TimepointAwaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    hal::FenceAwaitOp::create(rewriter, op.getLoc(),
                              i32(rewriter, op.getLoc(), -1),
                              ValueRange{adaptor.getTimepoint()});
    rewriter.replaceOp(op, adaptor.getResourceOperands());
    return success();
  }
};

/// stream.timepoint.import: the caller's fence is the timepoint.
struct TimepointImportConversion : StreamPattern<stream::TimepointImportOp> {
  using StreamPattern::StreamPattern;
  LogicalResult
  matchAndRewrite(stream::TimepointImportOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getFence());
    return success();
  }
};

/// stream.timepoint.chain_external -> hal.device.queue.barrier from the
/// timepoint to the fence, or hal.fence.signal without a timepoint.
struct TimepointChainExternalConversion
    : StreamPattern<stream::TimepointChainExternalOp> {
  using StreamPattern::StreamPattern;
  LogicalResult
  matchAndRewrite(stream::TimepointChainExternalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (Value timepoint = adaptor.getTimepoint()) {
      hal::DeviceQueueBarrierOp::create(rewriter, op.getLoc(),
                                        devices.device(op, rewriter), timepoint,
                                        adaptor.getFence());
    } else {
      hal::FenceSignalOp::create(rewriter, op.getLoc(), adaptor.getFence());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct ConvertStreamToHALPass
    : mlir::strata::hal::impl::ConvertStreamToHALPassBase<
          ConvertStreamToHALPass> {
  /// Reports what no pattern can lower, each at the op the user wrote.
  LogicalResult checkInput(ModuleOp module) {
    SymbolTableCollection symbols;
    WalkResult result = module.walk([&](Operation *op) {
      if (auto dispatch = dyn_cast<stream::CmdDispatchOp>(op)) {
        if (!symbols.lookupNearestSymbolFrom<hal::ExecutableExportOp>(
                op, dispatch.getEntryPoint())) {
          dispatch.emitError("dispatch '")
              << dispatch.getEntryPoint().getLeafReference().getValue()
              << "' has no compiled kernel; the hal phase's code generation "
                 "(--strata-compile-executables) must run first";
          return WalkResult::interrupt();
        }
      }
      if (auto exportOp = dyn_cast<stream::TensorExportOp>(op)) {
        Type element = exportOp.getType().getElementType();
        if (!hal::getElementTypeCode(element)) {
          exportOp.emitOpError("has element type ")
              << element << ", which the runtime has no code for";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (failed(checkInput(module))) {
      return signalPassFailure();
    }
    TypeConverter typeConverter;
    typeConverter.addConversion([](Type type) { return type; });
    typeConverter.addConversion([](stream::ResourceType type) -> Type {
      return hal::BufferType::get(type.getContext());
    });
    typeConverter.addConversion([](stream::TimepointType type) -> Type {
      return hal::FenceType::get(type.getContext());
    });

    DeviceCache devices;
    SymbolTableCollection symbols;
    RewritePatternSet patterns(context);
    patterns.add<CmdExecuteConversion>(typeConverter, context, devices,
                                       symbols);
    patterns.add<ResourceAllocConversion<stream::ResourceAllocOp>,
                 ResourceAllocConversion<stream::ResourceAllocaOp>,
                 ResourceConstantConversion, ResourceSizeConversion,
                 TensorImportConversion, TensorExportConversion,
                 TimepointImmediateConversion, TimepointAwaitConversion,
                 TimepointImportConversion, TimepointChainExternalConversion>(
        typeConverter, context, devices);

    ConversionTarget target(*context);
    target.addIllegalDialect<stream::StreamDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    // Host control flow that carries resources or timepoints is retyped.
    scf::populateSCFStructuralTypeConversionsAndLegality(typeConverter,
                                                         patterns, target);
    if (failed(applyPartialConversion(module, target, std::move(patterns)))) {
      return signalPassFailure();
    }
  }
};

} // namespace
