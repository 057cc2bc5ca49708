//===- DynamicShapes.cpp - bindings of exports with dynamic dimensions ----===//
//
// The kernel ABI hands bindings over as bare pointers, and the LLVM lowering
// passes memrefs as bare pointers too, which needs static shapes. An export
// whose tensors have dynamic dimensions therefore takes each such tensor as
// a memref<0xT> placeholder for its pointer and views it with its real shape
// (memref.reinterpret_cast, row-major strides) built from the trailing index
// arguments that carry the dynamic sizes. Its results become out-parameters
// after the inputs, written through bufferization.materialize_in_destination,
// so the results are computed in place (empty tensor elimination), which is
// the (inputs..., results...) signature bufferization gives static exports.
//
// kBindingShapesAttr records each binding's shape, a dynamic size as the
// argument that carries it, so the dispatch function can check every
// binding's length against the sizes it is called with.
//
//===----------------------------------------------------------------------===//
#include "Strata/Codegen/LLVMCPU/Codegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mlir::strata::llvmcpu {
namespace {

bool hasDynamicTensor(FunctionType type) {
  return llvm::any_of(
      llvm::concat<const Type>(type.getInputs(), type.getResults()),
      [](Type t) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        return tensor && !tensor.hasStaticShape();
      });
}

// The shape of a binding of `type`, its dynamic sizes taken in turn from
// the arguments at `nextSize`: a dimension is its size when static, else
// -1 - (the index of the argument holding it).
SmallVector<int64_t> encodeShape(RankedTensorType type, unsigned &nextSize) {
  SmallVector<int64_t> shape;
  for (int64_t size : type.getShape()) {
    shape.push_back(ShapedType::isDynamic(size)
                        ? -1 - static_cast<int64_t>(nextSize++)
                        : size);
  }
  return shape;
}

// A row-major view of `placeholder` with the encoded shape.
Value viewBinding(OpBuilder &b, Location loc, Value placeholder,
                  RankedTensorType type, ArrayRef<int64_t> shape,
                  Block &entry) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t size : shape) {
    if (size >= 0) {
      sizes.push_back(b.getIndexAttr(size));
    } else {
      sizes.push_back(entry.getArgument(static_cast<unsigned>(-1 - size)));
    }
  }
  return createRowMajorView(
      b, loc, placeholder,
      MemRefType::get(type.getShape(), type.getElementType()), sizes);
}

LogicalResult bindFunction(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  FunctionType type = func.getFunctionType();
  if (!func.getBody().hasOneBlock()) {
    return func.emitError()
           << "llvm-cpu: an export with dynamic shapes must be one block";
  }
  Block &entry = func.getBody().front();
  Location loc = func.getLoc();
  unsigned dynamicSizes = 0;
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults())) {
    if (auto tensor = dyn_cast<RankedTensorType>(t)) {
      dynamicSizes += tensor.getNumDynamicDims();
    }
  }
  // VerifyInput checked that these are index arguments.
  unsigned nextSize = type.getNumInputs() - dynamicSizes;
  SmallVector<Attribute> bindingShapes;
  OpBuilder b = OpBuilder::atBlockBegin(&entry);

  // Inputs: a dynamic tensor becomes a placeholder pointer and a view.
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    auto tensor = dyn_cast<RankedTensorType>(type.getInput(i));
    if (!tensor) {
      continue;
    }
    SmallVector<int64_t> shape = encodeShape(tensor, nextSize);
    bindingShapes.push_back(DenseI64ArrayAttr::get(context, shape));
    if (tensor.hasStaticShape()) {
      continue; // bufferized at the function boundary
    }
    BlockArgument arg = entry.getArgument(i);
    arg.setType(MemRefType::get({0}, tensor.getElementType()));
    Value view = viewBinding(b, loc, arg, tensor, shape, entry);
    Value value = bufferization::ToTensorOp::create(b, loc, tensor, view,
                                                    /*restrict=*/true,
                                                    /*writable=*/false);
    arg.replaceAllUsesExcept(value, view.getDefiningOp());
  }

  // Results: each one an out-parameter, in order, after the inputs.
  auto returnOp = cast<func::ReturnOp>(entry.getTerminator());
  SmallVector<Value> outs;
  for (Type resultType : type.getResults()) {
    auto tensor = cast<RankedTensorType>(resultType);
    SmallVector<int64_t> shape = encodeShape(tensor, nextSize);
    bindingShapes.push_back(DenseI64ArrayAttr::get(context, shape));
    Type argType =
        tensor.hasStaticShape()
            ? MemRefType::get(tensor.getShape(), tensor.getElementType())
            : MemRefType::get({0}, tensor.getElementType());
    BlockArgument arg = entry.addArgument(argType, loc);
    outs.push_back(tensor.hasStaticShape()
                       ? Value(arg)
                       : viewBinding(b, loc, arg, tensor, shape, entry));
  }
  b.setInsertionPoint(returnOp);
  for (auto [value, out] : llvm::zip(returnOp.getOperands(), outs)) {
    bufferization::MaterializeInDestinationOp::create(
        b, returnOp.getLoc(), /*result=*/Type(), value, out,
        /*restrict=*/true, /*writable=*/true);
  }
  returnOp->setOperands({});
  func.setType(FunctionType::get(context, entry.getArgumentTypes(), {}));
  func->setAttr(kBindingShapesAttr, ArrayAttr::get(context, bindingShapes));
  return success();
}

} // namespace

Value createRowMajorView(OpBuilder &b, Location loc, Value source,
                         MemRefType type, ArrayRef<OpFoldResult> sizes) {
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> strides(rank);
  OpFoldResult stride = b.getIndexAttr(1);
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    std::optional<int64_t> known = getConstantIntValue(stride);
    std::optional<int64_t> size = getConstantIntValue(sizes[d]);
    if (known && size) {
      stride = b.getIndexAttr(*known * *size);
    } else {
      Value lhs = getValueOrCreateConstantIndexOp(b, loc, stride);
      Value rhs = getValueOrCreateConstantIndexOp(b, loc, sizes[d]);
      stride = arith::MulIOp::create(b, loc, lhs, rhs).getResult();
    }
  }
  return memref::ReinterpretCastOp::create(b, loc, type, source,
                                           b.getIndexAttr(0), sizes, strides);
}

LogicalResult bindDynamicShapes(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isPublic() && !func.isExternal() &&
        hasDynamicTensor(func.getFunctionType()) &&
        failed(bindFunction(func))) {
      return failure();
    }
  }
  return success();
}

} // namespace mlir::strata::llvmcpu
