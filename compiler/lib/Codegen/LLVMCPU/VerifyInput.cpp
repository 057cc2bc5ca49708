//===- VerifyInput.cpp - the llvm-cpu target's input contract -------------===//
//
// Rejects what the code generator cannot compile, at the op that has it:
// unranked tensors, element types the kernel ABI does not carry, and
// dynamic dimensions whose sizes the export does not take as arguments. Checking up front keeps the errors at the user's ops instead of
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
  // f16 and bf16 are stored as themselves; math on them is computed in f32
  // (bf16 arithmetic too).
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

// Returns a description of what is wrong with `type`, or an empty string.
std::string checkBoundaryType(Type type) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType) {
    return "is not a ranked tensor";
  }
  if (!isSupportedElementType(tensorType.getElementType())) {
    return "has an unsupported element type (supported: i1, i8, i16, i32, "
           "i64, f16, bf16, f32, f64)";
  }
  return {};
}

// Types inside a body: scalars, vectors and shaped types must use supported
// element types (index is allowed inside), and be ranked.
std::string checkBodyType(Type type) {
  Type original = type;
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (isa<UnrankedTensorType, UnrankedMemRefType>(type)) {
      return "unranked shaped types are not supported";
    }
    type = shaped.getElementType();
  }
  if (type.isIndex() || isSupportedElementType(type)) {
    return {};
  }
  // Integers of other widths (i2, i4, i24...) compute in registers; only
  // their storage in tensors is not supported.
  if (auto integer = dyn_cast<IntegerType>(type);
      integer && !isa<ShapedType>(original) && integer.getWidth() <= 64) {
    return {};
  }
  if (isa<FloatType, IntegerType>(type)) {
    return "an unsupported element type on llvm-cpu (supported: i1, i8, "
           "i16, i32, i64, f16, bf16, f32, f64; other integer widths in "
           "scalar code)";
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
    // No f16/bf16 push constants: the host has no such scalars.
    if (input.isIndex() ||
        (isSupportedElementType(input) && !input.isF16() && !input.isBF16() &&
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
  // The sizes of dynamic dimensions (of each tensor argument, then of each
  // result) are the trailing index arguments.
  int64_t dynamicDims = 0;
  for (Type tensor : llvm::concat<const Type>(type.getInputs(),
                                              type.getResults())) {
    if (auto ranked = dyn_cast<RankedTensorType>(tensor)) {
      dynamicDims += ranked.getNumDynamicDims();
    }
  }
  int64_t inputCount = type.getNumInputs();
  for (int64_t i = std::max<int64_t>(0, inputCount - dynamicDims);
       i < inputCount; ++i) {
    if (!type.getInput(i).isIndex()) {
      func.emitError() << "argument " << i << " of type " << type.getInput(i)
                       << " should be the index size of a dynamic dimension ("
                       << dynamicDims
                       << " trailing index arguments give the sizes of the "
                          "dynamic dimensions of the tensor arguments, then "
                          "of the results)";
      ok = false;
      break;
    }
  }
  if (dynamicDims > inputCount) {
    func.emitError() << "the signature has " << dynamicDims
                     << " dynamic dimensions but only " << inputCount
                     << " arguments to give their sizes";
    ok = false;
  }
  if (func.isExternal()) {
    func.emitError() << "an export must have a body";
    return failure();
  }
  func.walk([&](Operation *op) {
    auto check = [&](Type valueType) {
      std::string problem = checkBodyType(valueType);
      if (!problem.empty()) {
        op->emitError() << "'" << op->getName() << "' uses type " << valueType
                        << ", which has " << problem;
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
