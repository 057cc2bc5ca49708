//===- VerifyInput.cpp - the llvm-cpu target's input contract -------------===//
//
// Rejects what the code generator cannot compile, at the op that has it:
// dynamic shapes, unranked tensors and element types the kernel ABI does not
// carry. Checking up front keeps the errors at the user's ops instead of
// deep inside bufferization or the LLVM lowering.
//
//===----------------------------------------------------------------------===//
#include "Strata/Codegen/LLVMCPU/Codegen.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

namespace mlir::strata::llvmcpu {
namespace {

bool isSupportedElementType(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type)) {
    unsigned width = intType.getWidth();
    return width == 1 || width == 8 || width == 16 || width == 32 ||
           width == 64;
  }
  // f16 is stored as itself; math on it is computed in f32.
  return type.isF16() || type.isF32() || type.isF64();
}

// Returns a description of what is wrong with `type`, or an empty string.
std::string checkBoundaryType(Type type) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType) {
    return "is not a ranked tensor";
  }
  if (!tensorType.hasStaticShape()) {
    return "has a dynamic shape";
  }
  if (!isSupportedElementType(tensorType.getElementType())) {
    return "has an unsupported element type (supported: i1, i8, i16, i32, "
           "i64, f16, f32, f64)";
  }
  return {};
}

// Types inside a body: scalars, vectors and shaped types must use supported
// element types (index is allowed inside), and tensors must be static.
std::string checkBodyType(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (isa<UnrankedTensorType, UnrankedMemRefType>(type)) {
      return "unranked shaped types are not supported";
    }
    if (!shaped.hasStaticShape()) {
      return "dynamic shapes are not supported";
    }
    type = shaped.getElementType();
  }
  if (type.isIndex() || isSupportedElementType(type)) {
    return {};
  }
  if (isa<FloatType, IntegerType>(type)) {
    return "element type is not supported (supported: i1, i8, i16, i32, "
           "i64, f16, f32, f64)";
  }
  return {};
}

LogicalResult verifyFunction(func::FuncOp func) {
  FunctionType type = func.getFunctionType();
  bool ok = true;
  // Scalar arguments (i1..i64, index, f32, f64) come after the tensors; the
  // host passes them as push constants.
  bool seenScalar = false;
  for (auto [index, input] : llvm::enumerate(type.getInputs())) {
    // No f16 push constants: the host has no f16 scalars.
    if (input.isIndex() || (isSupportedElementType(input) && !input.isF16() &&
                            isa<IntegerType, FloatType>(input))) {
      seenScalar = true;
      continue;
    }
    if (seenScalar) {
      func.emitError() << "argument " << index << " of type " << input
                       << " follows a scalar argument; scalars come last";
      ok = false;
      continue;
    }
    std::string problem = checkBoundaryType(input);
    if (!problem.empty()) {
      func.emitError() << "argument " << index << " of type " << input << " "
                       << problem;
      ok = false;
    }
  }
  if (type.getNumResults() == 0) {
    func.emitError() << "an export must return at least one tensor";
    ok = false;
  }
  for (auto [index, result] : llvm::enumerate(type.getResults())) {
    std::string problem = checkBoundaryType(result);
    if (!problem.empty()) {
      func.emitError() << "result " << index << " of type " << result << " "
                       << problem;
      ok = false;
    }
  }
  if (func.isExternal()) {
    func.emitError() << "an export must have a body";
    return failure();
  }
  func.walk([&](Operation *op) {
    auto check = [&](Type valueType) {
      std::string problem = checkBodyType(valueType);
      if (!problem.empty()) {
        op->emitError() << "type " << valueType << ": " << problem;
        ok = false;
        return false;
      }
      return true;
    };
    for (Type resultType : op->getResultTypes()) {
      if (!check(resultType)) {
        return;
      }
    }
    for (Region &region : op->getRegions()) {
      for (Block &block : region) {
        for (BlockArgument arg : block.getArguments()) {
          if (op != func.getOperation() && !check(arg.getType())) {
            return;
          }
        }
      }
    }
  });
  func->setAttr(kInputCountAttr,
                IntegerAttr::get(IntegerType::get(func.getContext(), 64),
                                 type.getNumInputs()));
  func->setAttr(kResultCountAttr,
                IntegerAttr::get(IntegerType::get(func.getContext(), 64),
                                 type.getNumResults()));
  return success(ok);
}

} // namespace

LogicalResult verifyExecutableInput(ModuleOp module) {
  bool ok = true;
  bool anyExport = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic()) {
      continue;
    }
    anyExport = true;
    if (failed(verifyFunction(func))) {
      ok = false;
    }
  }
  if (!anyExport) {
    module.emitError() << "the executable has no public func.func to export";
    return failure();
  }
  return success(ok);
}

} // namespace mlir::strata::llvmcpu
