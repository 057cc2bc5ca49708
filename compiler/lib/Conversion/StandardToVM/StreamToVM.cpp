// StreamToVM.cpp - stream ops -> calls of the hal module, one op at a time
// (StreamToVM.h).

#include "StreamToVM.h"

#include "HALImports.h"

#include "Strata/Dialect/Stream/IR/StreamOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::strata;

namespace {

/// stream.context.resolve -> hal.devices.get(0), hal.device.allocator.
struct ContextResolveConversion
    : OpConversionPattern<stream::ContextResolveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::ContextResolveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    HalBuilder hal(rewriter, op.getLoc());
    Value device = hal.call("hal.devices.get", {hal.i32(0)}, hal.refTy());
    Value allocator = hal.call("hal.device.allocator", {device}, hal.refTy());
    rewriter.replaceOp(op, {device, allocator});
    return success();
  }
};

/// stream.resource.alloc/alloca -> hal.allocator.allocate_uninitialized:
/// every byte is written by a dispatch before anything reads it, so
/// results and slabs need no zeroing.
struct ResourceAllocConversion : OpConversionPattern<stream::ResourceAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::ResourceAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    HalBuilder hal(rewriter, op.getLoc());
    rewriter.replaceOp(op, hal.call("hal.allocator.allocate_uninitialized",
                                    {adaptor.getAllocator(), adaptor.getSize()},
                                    hal.refTy()));
    return success();
  }
};

struct ResourceAllocaConversion
    : OpConversionPattern<stream::ResourceAllocaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::ResourceAllocaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    HalBuilder hal(rewriter, op.getLoc());
    rewriter.replaceOp(op, hal.call("hal.allocator.allocate_uninitialized",
                                    {adaptor.getAllocator(), adaptor.getSize()},
                                    hal.refTy()));
    return success();
  }
};

/// stream.resource.constant -> the global its data was wrapped into once
/// per context (convertStreamConstants).
struct ResourceConstantConversion
    : OpConversionPattern<stream::ResourceConstantOp> {
  ResourceConstantConversion(const TypeConverter &typeConverter,
                             MLIRContext *context,
                             const ConstantGlobals &globals)
      : OpConversionPattern(typeConverter, context), globals(globals) {}

  LogicalResult
  matchAndRewrite(stream::ResourceConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto global = globals.find(op.getValue());
    if (global == globals.end()) {
      return rewriter.notifyMatchFailure(op, "constant not materialized");
    }
    rewriter.replaceOpWithNewOp<vm::GlobalLoadRefOp>(
        op, vm::RefType::get(op.getContext(), Type()),
        FlatSymbolRefAttr::get(op.getContext(), global->second));
    return success();
  }

  const ConstantGlobals &globals;
};

/// stream.resource.size -> hal.buffer.length.
struct ResourceSizeConversion : OpConversionPattern<stream::ResourceSizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::ResourceSizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    HalBuilder hal(rewriter, op.getLoc());
    rewriter.replaceOp(op,
                       hal.call("hal.buffer.length", {adaptor.getResource()},
                                rewriter.getI64Type()));
    return success();
  }
};

/// stream.tensor.import -> hal.buffer_view.buffer.
struct TensorImportConversion : OpConversionPattern<stream::TensorImportOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::TensorImportOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    HalBuilder hal(rewriter, op.getLoc());
    rewriter.replaceOp(op, hal.call("hal.buffer_view.buffer",
                                    {adaptor.getSource()}, hal.refTy()));
    return success();
  }
};

/// stream.tensor.export -> hal.buffer_view.create.
struct TensorExportConversion : OpConversionPattern<stream::TensorExportOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::TensorExportOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!getHalElementType(type.getElementType())) {
      return rewriter.notifyMatchFailure(op, "no hal element type");
    }
    HalBuilder hal(rewriter, op.getLoc());
    rewriter.replaceOp(op,
                       hal.view(adaptor.getSource(), adaptor.getOffset(), type,
                                hal.dims(type, adaptor.getDynamicDims()),
                                adaptor.getLength()));
    return success();
  }
};

/// stream.cmd.execute -> a one-shot command buffer with its commands, a
/// fence, and the submission that waits for the awaited timepoint and
/// signals the fence (the op's timepoint).
struct CmdExecuteConversion : OpConversionPattern<stream::CmdExecuteOp> {
  CmdExecuteConversion(const TypeConverter &typeConverter, MLIRContext *context,
                       const HALExports &exports)
      : OpConversionPattern(typeConverter, context), exports(exports) {}

  LogicalResult
  matchAndRewrite(stream::CmdExecuteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    HalBuilder hal(rewriter, loc);
    Type ref = hal.refTy();
    Type i32 = rewriter.getI32Type();
    Type i64 = rewriter.getI64Type();
    Value device = adaptor.getDevice();
    // One-shot command buffer (mode 1), any category.
    Value commands = hal.call("hal.command_buffer.create",
                              {device, hal.i32(1), hal.i32(0)}, ref);
    // Each executable the commands use is loaded once.
    llvm::StringMap<Value> executables;
    for (auto dispatch : op.getBody().getOps<stream::CmdDispatchOp>()) {
      const HALExports::Export &entry =
          exports.exports.find(dispatch.getEntryPoint())->second;
      if (!executables.count(entry.global)) {
        executables[entry.global] = vm::GlobalLoadRefOp::create(
            rewriter, loc, ref,
            FlatSymbolRefAttr::get(rewriter.getContext(), entry.global));
      }
    }
    for (Operation &command : op.getBody().front()) {
      HalBuilder cmd(rewriter, command.getLoc());
      if (isa<stream::CmdBarrierOp>(command)) {
        cmd.call("hal.command_buffer.execution_barrier", {commands});
        continue;
      }
      auto dispatch = cast<stream::CmdDispatchOp>(command);
      const HALExports::Export &entry =
          exports.exports.find(dispatch.getEntryPoint())->second;
      // Push constants are 32-bit words, two (low first) for 64-bit values.
      SmallVector<Value> constants;
      for (Value original : dispatch.getConstants()) {
        Value value = rewriter.getRemappedValue(original);
        Location at = command.getLoc();
        if (value.getType().isF32()) {
          value = vm::BitcastF32I32Op::create(rewriter, at, i32, value);
        } else if (value.getType().isF64()) {
          value = vm::BitcastF64I64Op::create(rewriter, at, i64, value);
        }
        if (value.getType().isInteger(64)) {
          Value high =
              vm::ShrUI64Op::create(rewriter, at, i64, value, cmd.i64(32));
          constants.push_back(
              vm::TruncI64I32Op::create(rewriter, at, i32, value));
          constants.push_back(
              vm::TruncI64I32Op::create(rewriter, at, i32, high));
        } else {
          constants.push_back(value);
        }
      }
      // A dispatch whose results are all empty at run time gets no
      // workgroups: the device skips it.
      Value gridX = cmd.i32(entry.workgroups[0]);
      if (Value enabled = dispatch.getEnabled()) {
        gridX = vm::SelectOp::create(rewriter, command.getLoc(), i32,
                                     rewriter.getRemappedValue(enabled), gridX,
                                     cmd.i32(0));
      }
      SmallVector<Value> args = {commands,
                                 executables.lookup(entry.global),
                                 cmd.i32(entry.ordinal),
                                 gridX,
                                 cmd.i32(entry.workgroups[1]),
                                 cmd.i32(entry.workgroups[2])};
      args.append(constants);
      for (auto [resource, offset, length] :
           llvm::zip(dispatch.getResources(), dispatch.getOffsets(),
                     dispatch.getLengths())) {
        args.append({rewriter.getRemappedValue(resource),
                     rewriter.getRemappedValue(offset),
                     rewriter.getRemappedValue(length)});
      }
      cmd.callVariadic("hal.command_buffer.dispatch", args,
                       {static_cast<int32_t>(constants.size()),
                        static_cast<int32_t>(dispatch.getResources().size())});
    }
    hal.call("hal.command_buffer.finalize", {commands});
    Value fence = hal.call("hal.fence.create", {device, hal.i32(0)}, ref);
    Value wait =
        adaptor.getAwaitTimepoint()
            ? adaptor.getAwaitTimepoint()
            : vm::ConstRefZeroOp::create(rewriter, loc, ref).getResult();
    hal.callVariadic("hal.device.queue.execute",
                     {device, wait, fence, commands}, {1});
    rewriter.replaceOp(op, fence);
    return success();
  }

  const HALExports &exports;
};

/// stream.timepoint.immediate -> a null fence (reached).
struct TimepointImmediateConversion
    : OpConversionPattern<stream::TimepointImmediateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::TimepointImmediateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<vm::ConstRefZeroOp>(
        op, vm::RefType::get(op.getContext(), Type()));
    return success();
  }
};

/// stream.timepoint.await -> hal.fence.await with no deadline (a negative
/// timeout waits for as long as it takes; a failed dispatch fails the
/// await with its error); the values pass through.
struct TimepointAwaitConversion
    : OpConversionPattern<stream::TimepointAwaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::TimepointAwaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    HalBuilder hal(rewriter, op.getLoc());
    hal.callVariadic("hal.fence.await", {hal.i32(-1), adaptor.getTimepoint()},
                     {1}, rewriter.getI32Type());
    rewriter.replaceOp(op, adaptor.getResourceOperands());
    return success();
  }
};

/// stream.timepoint.import: the fence is the timepoint.
struct TimepointImportConversion
    : OpConversionPattern<stream::TimepointImportOp> {
  using OpConversionPattern::OpConversionPattern;
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
    : OpConversionPattern<stream::TimepointChainExternalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::TimepointChainExternalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    HalBuilder hal(rewriter, op.getLoc());
    if (adaptor.getTimepoint()) {
      hal.call(
          "hal.device.queue.barrier",
          {adaptor.getDevice(), adaptor.getTimepoint(), adaptor.getFence()});
    } else {
      hal.call("hal.fence.signal", {adaptor.getFence()});
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The commands of a stream.cmd.execute are converted with it; these
/// patterns only make them count as convertible.
template <typename OpTy> struct RecordedCommand : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpConversionPattern<OpTy>::OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return rewriter.notifyMatchFailure(op, "converted with its execute op");
  }
};

} // namespace

void mlir::strata::convertStreamConstants(vm::ModuleOp vmModule,
                                          ConstantGlobals &globals) {
  SmallVector<stream::ResourceConstantOp> constants;
  vmModule.walk(
      [&](stream::ResourceConstantOp op) { constants.push_back(op); });
  if (constants.empty()) {
    return;
  }
  MLIRContext *context = vmModule.getContext();
  Block &body = vmModule.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&body);
  OpBuilder initBuilder = getInitializerBuilder(vmModule);
  for (stream::ResourceConstantOp op : constants) {
    // Equal constants (the same weight read in several places, or by a
    // function and its async twin) are stored once.
    std::string &global = globals[op.getValue()];
    if (!global.empty()) {
      continue;
    }
    std::string name = "__constant_" + std::to_string(globals.size() - 1);
    global = name + "_buffer";
    vm::RodataOp::create(builder, op.getLoc(), name, op.getValue());
    vm::GlobalRefOp::create(builder, op.getLoc(), builder.getStringAttr(global),
                            /*is_mutable=*/builder.getUnitAttr(),
                            TypeAttr::get(vm::RefType::get(context, Type())));
    HalBuilder hal(initBuilder, op.getLoc());
    Value buffer = hal.call("hal.buffer.wrap", {hal.rodata(name)}, hal.refTy());
    vm::GlobalStoreRefOp::create(initBuilder, op.getLoc(), buffer,
                                 FlatSymbolRefAttr::get(context, global));
  }
}

LogicalResult
mlir::strata::checkDispatchEntryPoints(Operation *root,
                                       const HALExports &exports) {
  WalkResult result = root->walk([&](stream::CmdDispatchOp dispatch) {
    if (exports.exports.count(dispatch.getEntryPoint())) {
      return WalkResult::advance();
    }
    dispatch.emitError("dispatch '")
        << dispatch.getEntryPoint().getLeafReference().getValue()
        << "' has no compiled kernel; the hal phase (code generation of the "
           "executable) must run before the vm conversion";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

void mlir::strata::populateStreamToVMPatterns(
    const TypeConverter &typeConverter, RewritePatternSet &patterns,
    const HALExports &exports, const ConstantGlobals &constants) {
  MLIRContext *context = patterns.getContext();
  patterns.add<CmdExecuteConversion>(typeConverter, context, exports);
  patterns.add<ResourceConstantConversion>(typeConverter, context, constants);
  patterns.add<ContextResolveConversion, ResourceAllocConversion,
               ResourceAllocaConversion, ResourceSizeConversion,
               TensorImportConversion, TensorExportConversion,
               TimepointImmediateConversion, TimepointAwaitConversion,
               TimepointImportConversion, TimepointChainExternalConversion,
               RecordedCommand<stream::CmdDispatchOp>,
               RecordedCommand<stream::CmdBarrierOp>>(typeConverter, context);
}
