//===- KernelEncoder.cpp - bufferized dispatches to kernel bytecode -------===//
//
// Walks a bufferized dispatch function in order. Memref values are views
// (slot, element offset, sizes, strides) resolved statically through
// subview, reshape, cast and transpose; every linalg op becomes a generic
// instruction (or a matmul for f32, f16 and bf16 contractions) over those
// views, with per-loop strides composed from its indexing maps; memref.copy
// becomes an identity generic. The numbers come from
// schemas/kernel_opcodes.def.
//
//===----------------------------------------------------------------------===//
#include "KernelEncoder.h"

#include "Strata/Codegen/LLVMCPU/Codegen.h"
#include "kernel_bytecode.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <array>
#include <cstring>
#include <map>

namespace mlir::strata::portable {

namespace kernel = ::strata::kernel;

namespace {

constexpr llvm::StringLiteral kPrefix = "portable: ";
// The most workgroups one instruction is split over.
constexpr int64_t kMaxWorkgroups = 16;
// Slots while encoding: bindings from 0, temporaries from kMaxBindings,
// constant data from kDataSlotBase; renumbered at the end to follow each
// other.
constexpr uint32_t kDataSlotBase =
    ::strata::kernel::kMaxBindings + ::strata::kernel::kMaxTemporaries;

uint32_t typeNumber(kernel::Type type) { return static_cast<uint32_t>(type); }

/// The kernel type of a scalar type; failure for the others.
FailureOr<uint32_t> kernelType(Type type) {
  if (type.isF32()) {
    return typeNumber(kernel::Type::F32);
  }
  if (type.isF64()) {
    return typeNumber(kernel::Type::F64);
  }
  if (type.isF16()) {
    return typeNumber(kernel::Type::F16);
  }
  if (type.isBF16()) {
    return typeNumber(kernel::Type::BF16);
  }
  if (type.isIndex()) {
    return typeNumber(kernel::Type::I64);
  }
  if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1:
      return typeNumber(kernel::Type::I1);
    case 8:
      return typeNumber(kernel::Type::I8);
    case 16:
      return typeNumber(kernel::Type::I16);
    case 32:
      return typeNumber(kernel::Type::I32);
    case 64:
      return typeNumber(kernel::Type::I64);
    default:
      break;
    }
  }
  return failure();
}

/// The register type of a scalar type: f16 and bf16 values are computed
/// in f32 (memory-only types: kernel_opcodes.def).
FailureOr<uint32_t> registerType(Type type) {
  if (type.isF16() || type.isBF16()) {
    return typeNumber(kernel::Type::F32);
  }
  return kernelType(type);
}

bool isHalfType(Type type) { return type.isF16() || type.isBF16(); }

/// A size, offset or stride: a constant, or (for dynamic shapes) value
/// `value` of the export's shape instruction, known at dispatch.
struct Dim {
  int64_t constant = 0;
  int32_t value = -1;
  Dim() = default;
  Dim(int64_t constant) : constant(constant) {}
  static Dim dynamic(int32_t value) {
    Dim dim;
    dim.value = value;
    return dim;
  }
  bool isStatic() const { return value < 0; }
  bool isConstant(int64_t c) const { return isStatic() && constant == c; }
  bool operator==(const Dim &other) const {
    return isStatic() ? other.isStatic() && constant == other.constant
                      : value == other.value;
  }
  bool operator!=(const Dim &other) const { return !(*this == other); }
  /// The constant, or `guess` for a run-time value (loop-order heuristics).
  int64_t hint(int64_t guess = 1 << 20) const {
    return isStatic() ? constant : guess;
  }
};

/// A memref value as the code sees it: elements of `slot` at
/// offset + sum(i[d] * strides[d]).
struct View {
  uint32_t slot = 0;
  Dim offset = 0;
  SmallVector<Dim> sizes;
  SmallVector<Dim> strides;
  uint32_t type = 0;
};

SmallVector<Dim> staticDims(ArrayRef<int64_t> values) {
  return SmallVector<Dim>(values.begin(), values.end());
}

void push64(std::vector<uint32_t> &words, uint64_t value) {
  words.push_back(static_cast<uint32_t>(value));
  words.push_back(static_cast<uint32_t>(value >> 32));
}

/// The coefficient of each loop dimension and the constant of an affine
/// expression that is linear in the dimensions; failure otherwise.
LogicalResult linearize(AffineExpr expr, unsigned numDims,
                        SmallVectorImpl<int64_t> &coefficients,
                        int64_t &constant) {
  coefficients.assign(numDims, 0);
  constant = 0;
  std::function<bool(AffineExpr, int64_t)> walk = [&](AffineExpr e,
                                                      int64_t scale) -> bool {
    if (auto dim = dyn_cast<AffineDimExpr>(e)) {
      coefficients[dim.getPosition()] += scale;
      return true;
    }
    if (auto value = dyn_cast<AffineConstantExpr>(e)) {
      constant += scale * value.getValue();
      return true;
    }
    auto binary = dyn_cast<AffineBinaryOpExpr>(e);
    if (!binary) {
      return false;
    }
    if (binary.getKind() == AffineExprKind::Add) {
      return walk(binary.getLHS(), scale) && walk(binary.getRHS(), scale);
    }
    if (binary.getKind() == AffineExprKind::Mul) {
      if (auto c = dyn_cast<AffineConstantExpr>(binary.getRHS())) {
        return walk(binary.getLHS(), scale * c.getValue());
      }
      if (auto c = dyn_cast<AffineConstantExpr>(binary.getLHS())) {
        return walk(binary.getRHS(), scale * c.getValue());
      }
    }
    return false;
  };
  return success(walk(expr, 1));
}

/// x op y with the runtime's semantics (portable_program.cpp); nullopt on
/// overflow or division by zero.
std::optional<int64_t> foldValue(kernel::Value op, int64_t x, int64_t y) {
  using V = kernel::Value;
  int64_t out = 0;
  bool divides =
      op == V::DivS || op == V::FloorDivS || op == V::CeilDivS || op == V::RemS;
  if (divides && (y == 0 || (x == INT64_MIN && y == -1))) {
    return std::nullopt;
  }
  switch (op) {
  case V::Add:
    return __builtin_add_overflow(x, y, &out) ? std::nullopt
                                              : std::optional(out);
  case V::Sub:
    return __builtin_sub_overflow(x, y, &out) ? std::nullopt
                                              : std::optional(out);
  case V::Mul:
    return __builtin_mul_overflow(x, y, &out) ? std::nullopt
                                              : std::optional(out);
  case V::DivS:
    return x / y;
  case V::FloorDivS:
    return x / y - ((x % y != 0 && ((x < 0) != (y < 0))) ? 1 : 0);
  case V::CeilDivS:
    return x / y + ((x % y != 0 && ((x < 0) == (y < 0))) ? 1 : 0);
  case V::RemS:
    return x % y;
  case V::MinS:
    return std::min(x, y);
  case V::MaxS:
    return std::max(x, y);
  default:
    return std::nullopt;
  }
}

/// The run-time values of an export (its shape instruction): each distinct
/// op built once, constants folded.
class ShapeValues {
public:
  std::vector<std::array<uint32_t, 3>> ops;

  int32_t add(kernel::Value op, uint32_t a, uint32_t b) {
    std::array<uint32_t, 3> key = {static_cast<uint32_t>(op), a, b};
    auto [it, inserted] =
        known.try_emplace(key, static_cast<int32_t>(ops.size()));
    if (inserted) {
      ops.push_back(key);
    }
    return it->second;
  }
  uint32_t materialize(Dim d) {
    if (!d.isStatic()) {
      return static_cast<uint32_t>(d.value);
    }
    uint64_t bits = static_cast<uint64_t>(d.constant);
    return static_cast<uint32_t>(add(kernel::Value::Const,
                                     static_cast<uint32_t>(bits),
                                     static_cast<uint32_t>(bits >> 32)));
  }
  Dim push(uint32_t word, bool wide) {
    return Dim::dynamic(
        add(wide ? kernel::Value::Push : kernel::Value::PushI32, word, 0));
  }
  Dim combine(kernel::Value op, Dim a, Dim b) {
    using V = kernel::Value;
    if (a.isStatic() && b.isStatic()) {
      if (std::optional<int64_t> folded =
              foldValue(op, a.constant, b.constant)) {
        return *folded;
      }
    }
    if ((op == V::Add && b.isConstant(0)) ||
        (op == V::Sub && b.isConstant(0)) ||
        (op == V::Mul && b.isConstant(1)) ||
        ((op == V::DivS || op == V::FloorDivS || op == V::CeilDivS) &&
         b.isConstant(1))) {
      return a;
    }
    if ((op == V::Add && a.isConstant(0)) ||
        (op == V::Mul && a.isConstant(1))) {
      return b;
    }
    if (op == V::Mul && (a.isConstant(0) || b.isConstant(0))) {
      return 0;
    }
    return Dim::dynamic(add(op, materialize(a), materialize(b)));
  }
  Dim mul(Dim a, Dim b) { return combine(kernel::Value::Mul, a, b); }
  Dim plus(Dim a, Dim b) { return combine(kernel::Value::Add, a, b); }

private:
  std::map<std::array<uint32_t, 3>, int32_t> known;
};

class FunctionEncoder {
public:
  FunctionEncoder(func::FuncOp func, unsigned inputCount)
      : func(func), inputCount(inputCount) {}

  LogicalResult encode(std::vector<uint32_t> &out);
  /// Workgroups the export runs on (kernel_bytecode.h: a one-instruction
  /// export with no temporaries splits its instruction's outermost loop).
  uint32_t workgroups = 1;

private:
  LogicalResult bindArguments();
  LogicalResult encodeOp(Operation *op);
  LogicalResult defineView(Value result, Operation *op);
  LogicalResult encodeLinalg(linalg::LinalgOp op);
  LogicalResult encodeCopy(memref::CopyOp op);
  LogicalResult encodeStore(memref::StoreOp op);
  bool tryMatmul(linalg::LinalgOp op, ArrayRef<SmallVector<Dim>> operandStrides,
                 ArrayRef<Dim> operandOffsets, ArrayRef<Dim> loops);
  FailureOr<View> viewOf(Value value, Operation *user);
  /// The size an index value holds: a constant, or a run-time value built
  /// from push constants (scalar arguments), arith and affine ops on them,
  /// and memref.dim.
  FailureOr<Dim> dimOf(Value value, Operation *user);
  FailureOr<Dim> dimOf(OpFoldResult value, Operation *user) {
    if (auto attr = dyn_cast<Attribute>(value)) {
      return Dim(cast<IntegerAttr>(attr).getInt());
    }
    return dimOf(cast<Value>(value), user);
  }
  FailureOr<Dim> affineDim(AffineExpr expr, ArrayRef<Dim> dimValues,
                           ArrayRef<Dim> symbolValues);
  /// Appends a size word (patched when dynamic).
  void emitSize(Dim d) {
    if (!d.isStatic()) {
      patches.push_back(
          {static_cast<uint32_t>(code.size()), static_cast<uint32_t>(d.value)});
    }
    code.push_back(d.isStatic() ? static_cast<uint32_t>(d.constant) : 0);
  }
  /// Appends an i64 offset or stride (patched when dynamic).
  void emitWide(Dim d) {
    if (!d.isStatic()) {
      patches.push_back(
          {static_cast<uint32_t>(code.size()) | kernel::kPatchWide,
           static_cast<uint32_t>(d.value)});
    }
    push64(code, d.isStatic() ? static_cast<uint64_t>(d.constant) : 0);
  }

  func::FuncOp func;
  unsigned inputCount;
  llvm::DenseMap<Value, View> views;
  SmallVector<uint64_t> bindingBytes;
  SmallVector<uint64_t> temporaryBytes;
  // Constant data (memref.global constants), by global name.
  SmallVector<std::vector<uint8_t>> data;
  llvm::StringMap<uint32_t> dataSlots;
  uint32_t constantWords = 0;
  // The first push constant word of each scalar argument.
  llvm::DenseMap<Value, uint32_t> pushWords;
  uint32_t maxRegisters = 0;
  std::vector<uint32_t> code;
  unsigned instructions = 0;
  // Workgroups the last instruction could be split over (1: none).
  uint32_t lastSplit = 1;
  // Dynamic shapes: the shape instruction's values, patches (code word,
  // with kPatchWide for an i64; value) and requirements (binding, value).
  ShapeValues shape;
  std::vector<std::pair<uint32_t, uint32_t>> patches;
  std::vector<std::pair<uint32_t, uint32_t>> requirements;
  llvm::DenseMap<Value, Dim> dims;
};

FailureOr<Dim> FunctionEncoder::affineDim(AffineExpr expr,
                                          ArrayRef<Dim> dimValues,
                                          ArrayRef<Dim> symbolValues) {
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    return dimValues[d.getPosition()];
  }
  if (auto sym = dyn_cast<AffineSymbolExpr>(expr)) {
    return symbolValues[sym.getPosition()];
  }
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    return Dim(c.getValue());
  }
  auto binary = cast<AffineBinaryOpExpr>(expr);
  FailureOr<Dim> lhs = affineDim(binary.getLHS(), dimValues, symbolValues);
  FailureOr<Dim> rhs = affineDim(binary.getRHS(), dimValues, symbolValues);
  if (failed(lhs) || failed(rhs)) {
    return failure();
  }
  using V = kernel::Value;
  switch (binary.getKind()) {
  case AffineExprKind::Add:
    return shape.plus(*lhs, *rhs);
  case AffineExprKind::Mul:
    return shape.mul(*lhs, *rhs);
  case AffineExprKind::FloorDiv:
    return shape.combine(V::FloorDivS, *lhs, *rhs);
  case AffineExprKind::CeilDiv:
    return shape.combine(V::CeilDivS, *lhs, *rhs);
  case AffineExprKind::Mod: {
    // lhs - rhs * floor(lhs / rhs): never negative for a positive rhs.
    Dim quotient = shape.combine(V::FloorDivS, *lhs, *rhs);
    return shape.combine(V::Sub, *lhs, shape.mul(*rhs, quotient));
  }
  default:
    return failure();
  }
}

FailureOr<Dim> FunctionEncoder::dimOf(Value value, Operation *user) {
  if (auto it = dims.find(value); it != dims.end()) {
    return it->second;
  }
  auto fail = [&]() -> FailureOr<Dim> {
    user->emitError() << kPrefix << "cannot compute the size " << value
                      << " from constants and push constants";
    return failure();
  };
  FailureOr<Dim> result = failure();
  if (std::optional<int64_t> constant = getConstantIntValue(value)) {
    result = Dim(*constant);
  } else if (auto it = pushWords.find(value); it != pushWords.end()) {
    Type type = value.getType();
    unsigned bits = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
    if (!type.isIntOrIndex() || (bits != 64 && bits != 32)) {
      return fail();
    }
    result = shape.push(it->second, bits == 64);
  } else if (Operation *def = value.getDefiningOp()) {
    using V = kernel::Value;
    std::optional<V> binary =
        llvm::TypeSwitch<Operation *, std::optional<V>>(def)
            .Case([](arith::AddIOp) { return V::Add; })
            .Case([](arith::SubIOp) { return V::Sub; })
            .Case([](arith::MulIOp) { return V::Mul; })
            .Case([](arith::DivSIOp) { return V::DivS; })
            .Case([](arith::FloorDivSIOp) { return V::FloorDivS; })
            .Case([](arith::CeilDivSIOp) { return V::CeilDivS; })
            .Case([](arith::RemSIOp) { return V::RemS; })
            .Case([](arith::MinSIOp) { return V::MinS; })
            .Case([](arith::MaxSIOp) { return V::MaxS; })
            .Default([](Operation *) { return std::nullopt; });
    if (binary) {
      FailureOr<Dim> lhs = dimOf(def->getOperand(0), user);
      FailureOr<Dim> rhs = dimOf(def->getOperand(1), user);
      if (failed(lhs) || failed(rhs)) {
        return failure();
      }
      result = shape.combine(*binary, *lhs, *rhs);
    } else if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp>(
                   def)) {
      result = dimOf(def->getOperand(0), user);
    } else if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
      AffineMap map = apply.getAffineMap();
      SmallVector<Dim> operands;
      for (Value operand : apply.getMapOperands()) {
        FailureOr<Dim> d = dimOf(operand, user);
        if (failed(d)) {
          return failure();
        }
        operands.push_back(*d);
      }
      ArrayRef<Dim> all(operands);
      result = affineDim(map.getResult(0), all.take_front(map.getNumDims()),
                         all.drop_front(map.getNumDims()));
    } else if (isa<affine::AffineMinOp, affine::AffineMaxOp>(def)) {
      bool isMin = isa<affine::AffineMinOp>(def);
      AffineMap map = isMin ? cast<affine::AffineMinOp>(def).getAffineMap()
                            : cast<affine::AffineMaxOp>(def).getAffineMap();
      SmallVector<Dim> operands;
      for (Value operand : def->getOperands()) {
        FailureOr<Dim> d = dimOf(operand, user);
        if (failed(d)) {
          return failure();
        }
        operands.push_back(*d);
      }
      ArrayRef<Dim> all(operands);
      std::optional<Dim> folded;
      for (AffineExpr expr : map.getResults()) {
        FailureOr<Dim> d = affineDim(expr, all.take_front(map.getNumDims()),
                                     all.drop_front(map.getNumDims()));
        if (failed(d)) {
          return fail();
        }
        folded =
            folded ? shape.combine(isMin ? V::MinS : V::MaxS, *folded, *d) : *d;
      }
      if (folded) {
        result = *folded;
      }
    } else if (auto dim = dyn_cast<memref::DimOp>(def)) {
      std::optional<int64_t> index = dim.getConstantIndex();
      auto it = views.find(dim.getSource());
      if (index && it != views.end() &&
          *index < static_cast<int64_t>(it->second.sizes.size())) {
        result = it->second.sizes[*index];
      }
    }
  }
  if (failed(result)) {
    return fail();
  }
  dims[value] = *result;
  return result;
}

FailureOr<View> FunctionEncoder::viewOf(Value value, Operation *user) {
  auto it = views.find(value);
  if (it == views.end()) {
    user->emitError() << kPrefix << "cannot follow the memref operand " << value
                      << " to a binding or a temporary";
    return failure();
  }
  return it->second;
}

LogicalResult FunctionEncoder::bindArguments() {
  // Scalar inputs first: the sizes of dynamic bindings are among them.
  for (auto [index, arg] : llvm::enumerate(func.getArguments())) {
    if (index == inputCount || index == inputCount + 1 ||
        isa<MemRefType>(arg.getType())) {
      continue; // workgroup ids (one workgroup, both 0) and bindings
    }
    // A scalar input: a push constant (one word, two for 64 bits).
    unsigned bits =
        arg.getType().isIndex() ? 64 : arg.getType().getIntOrFloatBitWidth();
    // Bodies read it with push instructions.
    pushWords[arg] = constantWords;
    constantWords += bits > 32 ? 2 : 1;
  }
  // Exports with dynamic shapes: each binding's shape, a dynamic size as
  // -1 - (the argument holding it), before the workgroup ids were inserted
  // (after the inputs, so the sizes' indices are unchanged).
  auto shapes = func->getAttrOfType<ArrayAttr>(llvmcpu::kBindingShapesAttr);
  uint32_t binding = 0;
  for (auto [index, arg] : llvm::enumerate(func.getArguments())) {
    if (index == inputCount || index == inputCount + 1) {
      continue;
    }
    auto memref = dyn_cast<MemRefType>(arg.getType());
    if (!memref) {
      continue;
    }
    auto bindingShape = shapes && binding < shapes.size()
                            ? dyn_cast<DenseI64ArrayAttr>(shapes[binding])
                            : DenseI64ArrayAttr();
    if (bindingShape && llvm::any_of(bindingShape.asArrayRef(),
                                     [](int64_t d) { return d < 0; })) {
      // A placeholder the function views (memref.reinterpret_cast) with
      // its run-time shape: it holds elements * sizes bytes, checked at
      // dispatch.
      FailureOr<uint32_t> type = kernelType(memref.getElementType());
      if (failed(type)) {
        return func.emitError()
               << kPrefix << "export '" << func.getSymName() << "' binding "
               << binding << " has element type " << memref.getElementType()
               << ", which the portable target does not take";
      }
      Dim bytes = static_cast<int64_t>(kernel::typeBytes(*type));
      for (int64_t size : bindingShape.asArrayRef()) {
        if (size >= 0) {
          bytes = shape.mul(bytes, size);
          continue;
        }
        unsigned sizeArg = static_cast<unsigned>(-1 - size);
        auto word = sizeArg < func.getNumArguments()
                        ? pushWords.find(func.getArgument(sizeArg))
                        : pushWords.end();
        if (word == pushWords.end()) {
          return func.emitError()
                 << kPrefix << "export '" << func.getSymName() << "' binding "
                 << binding << " is sized by argument " << sizeArg
                 << ", which is no scalar input";
        }
        bytes = shape.mul(bytes, shape.push(word->second, /*wide=*/true));
      }
      View view;
      view.slot = binding;
      view.sizes = {0};
      view.strides = {1};
      view.type = *type;
      views[arg] = view;
      requirements.push_back({binding, shape.materialize(bytes)});
      bindingBytes.push_back(0);
      ++binding;
      continue;
    }
    if (!memref.hasStaticShape() || !memref.getLayout().isIdentity()) {
      return func.emitError()
             << kPrefix << "export '" << func.getSymName() << "' binding "
             << binding << " has type " << memref
             << "; the portable target needs static shapes";
    }
    FailureOr<uint32_t> type = kernelType(memref.getElementType());
    if (failed(type)) {
      return func.emitError()
             << kPrefix << "export '" << func.getSymName() << "' binding "
             << binding << " has element type " << memref.getElementType()
             << ", which the portable target does not take";
    }
    View view;
    view.slot = binding++;
    view.sizes = staticDims(memref.getShape());
    view.strides = staticDims(memref.getStridesAndOffset().first);
    view.type = *type;
    views[arg] = view;
    bindingBytes.push_back(static_cast<uint64_t>(memref.getNumElements()) *
                           kernel::typeBytes(*type));
  }
  return success();
}

LogicalResult FunctionEncoder::defineView(Value result, Operation *op) {
  auto type = dyn_cast<MemRefType>(result.getType());
  if (!type) {
    return op->emitError() << kPrefix << "needs a memref result";
  }
  if (isa<memref::GetGlobalOp>(op) && !type.hasStaticShape()) {
    return op->emitError() << kPrefix << "needs a static shape";
  }
  FailureOr<uint32_t> elementType = kernelType(type.getElementType());
  if (failed(elementType)) {
    return op->emitError() << kPrefix << "element type "
                           << type.getElementType() << " is not supported";
  }
  if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
    if (!type.getLayout().isIdentity()) {
      return op->emitError() << kPrefix << "needs an identity layout";
    }
    View view;
    view.type = *elementType;
    view.slot =
        static_cast<uint32_t>(kernel::kMaxBindings + temporaryBytes.size());
    if (type.hasStaticShape()) {
      view.sizes = staticDims(type.getShape());
      view.strides = staticDims(type.getStridesAndOffset().first);
      temporaryBytes.push_back(static_cast<uint64_t>(type.getNumElements()) *
                               kernel::typeBytes(*elementType));
      views[result] = view;
      return success();
    }
    // Sized at dispatch: a requirement gives its bytes, placed in local
    // memory then.
    unsigned next = 0;
    for (int64_t size : type.getShape()) {
      if (!ShapedType::isDynamic(size)) {
        view.sizes.push_back(size);
        continue;
      }
      FailureOr<Dim> d = dimOf(op->getOperand(next++), op);
      if (failed(d)) {
        return failure();
      }
      view.sizes.push_back(*d);
    }
    Dim stride = 1;
    view.strides.assign(view.sizes.size(), Dim(1));
    for (int d = static_cast<int>(view.sizes.size()) - 1; d >= 0; --d) {
      view.strides[d] = stride;
      stride = shape.mul(stride, view.sizes[d]);
    }
    Dim bytes = shape.mul(
        stride, static_cast<int64_t>(kernel::typeBytes(*elementType)));
    requirements.push_back({view.slot, shape.materialize(bytes)});
    temporaryBytes.push_back(0);
    views[result] = view;
    return success();
  }
  if (auto getGlobal = dyn_cast<memref::GetGlobalOp>(op)) {
    if (!type.getLayout().isIdentity()) {
      return op->emitError() << kPrefix << "needs an identity layout";
    }
    View view;
    view.sizes = staticDims(type.getShape());
    view.strides = staticDims(type.getStridesAndOffset().first);
    view.type = *elementType;
    StringRef name = getGlobal.getName();
    auto found = dataSlots.find(name);
    if (found != dataSlots.end()) {
      view.slot = found->second;
      views[result] = view;
      return success();
    }
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        op, getGlobal.getNameAttr());
    if (!global || !global.getConstant() || !global.getInitialValue()) {
      return op->emitError() << kPrefix << "reads global '" << name
                             << "', which is not a constant";
    }
    Attribute init = *global.getInitialValue();
    uint32_t bytes = kernel::typeBytes(*elementType);
    size_t count = static_cast<size_t>(type.getNumElements());
    std::vector<uint8_t> blob(count * bytes);
    if (auto dense = dyn_cast<DenseElementsAttr>(init)) {
      if (dense.getElementType().isInteger(1)) {
        for (auto [i, value] : llvm::enumerate(dense.getValues<bool>())) {
          blob[i] = value;
        }
      } else {
        ArrayRef<char> raw = dense.getRawData();
        if (dense.isSplat()) {
          for (size_t i = 0; i < count && raw.size() >= bytes; ++i) {
            std::memcpy(blob.data() + i * bytes, raw.data(), bytes);
          }
        } else if (raw.size() == blob.size()) {
          std::memcpy(blob.data(), raw.data(), blob.size());
        } else {
          return op->emitError() << kPrefix << "global '" << name << "' holds "
                                 << raw.size() << " bytes, not " << blob.size();
        }
      }
    } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(init)) {
      AsmResourceBlob *handle = resource.getRawHandle().getBlob();
      if (!handle || handle->getData().size() != blob.size()) {
        return op->emitError()
               << kPrefix << "global '" << name << "' has no data of "
               << blob.size() << " bytes";
      }
      std::memcpy(blob.data(), handle->getData().data(), blob.size());
    } else {
      return op->emitError() << kPrefix << "global '" << name
                             << "' has an initial value it cannot read";
    }
    view.slot = static_cast<uint32_t>(kDataSlotBase + data.size());
    dataSlots[name] = view.slot;
    data.push_back(std::move(blob));
    views[result] = view;
    return success();
  }
  if (auto subview = dyn_cast<memref::SubViewOp>(op)) {
    FailureOr<View> source = viewOf(subview.getSource(), op);
    if (failed(source)) {
      return failure();
    }
    SmallVector<OpFoldResult> offsets = subview.getMixedOffsets();
    SmallVector<OpFoldResult> sizes = subview.getMixedSizes();
    SmallVector<OpFoldResult> strides = subview.getMixedStrides();
    View view = *source;
    view.sizes.clear();
    view.strides.clear();
    llvm::SmallBitVector dropped = subview.getDroppedDims();
    if (offsets.size() != source->strides.size()) {
      return op->emitError() << kPrefix << "cannot follow this subview";
    }
    for (unsigned d = 0; d < offsets.size(); ++d) {
      FailureOr<Dim> offset = dimOf(offsets[d], op);
      FailureOr<Dim> size = dimOf(sizes[d], op);
      FailureOr<Dim> stride = dimOf(strides[d], op);
      if (failed(offset) || failed(size) || failed(stride)) {
        return failure();
      }
      view.offset =
          shape.plus(view.offset, shape.mul(*offset, source->strides[d]));
      if (!dropped.test(d)) {
        view.sizes.push_back(*size);
        view.strides.push_back(shape.mul(*stride, source->strides[d]));
      }
    }
    if (view.sizes.size() != view.strides.size()) {
      return op->emitError() << kPrefix << "cannot follow this subview";
    }
    views[result] = view;
    return success();
  }
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(op)) {
    FailureOr<View> source = viewOf(collapse.getSrc(), op);
    if (failed(source)) {
      return failure();
    }
    View view = *source;
    view.sizes.clear();
    view.strides.clear();
    for (const ReassociationIndices &group :
         collapse.getReassociationIndices()) {
      Dim size = 1;
      // Each dimension of the group steps over the whole of the next one
      // (what memref.collapse_shape's verifier requires of its layout;
      // checked here where the sizes are known).
      for (size_t i = 0; i < group.size(); ++i) {
        size = shape.mul(size, source->sizes[group[i]]);
        if (i + 1 < group.size() && !source->sizes[group[i]].isConstant(1) &&
            shape.mul(source->strides[group[i + 1]],
                      source->sizes[group[i + 1]]) !=
                source->strides[group[i]] &&
            source->strides[group[i]].isStatic() &&
            source->sizes[group[i + 1]].isStatic() &&
            source->strides[group[i + 1]].isStatic()) {
          return op->emitError() << kPrefix << "collapses dimensions that "
                                 << "are not contiguous";
        }
      }
      view.sizes.push_back(size);
      view.strides.push_back(group.empty() ? Dim(1)
                                           : source->strides[group.back()]);
    }
    views[result] = view;
    return success();
  }
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(op)) {
    FailureOr<View> source = viewOf(expand.getSrc(), op);
    if (failed(source)) {
      return failure();
    }
    View view = *source;
    view.sizes.clear();
    for (OpFoldResult size : expand.getMixedOutputShape()) {
      FailureOr<Dim> d = dimOf(size, op);
      if (failed(d)) {
        return failure();
      }
      view.sizes.push_back(*d);
    }
    view.strides.assign(view.sizes.size(), Dim(1));
    for (auto [d, group] : llvm::enumerate(expand.getReassociationIndices())) {
      Dim stride = d < source->strides.size() ? source->strides[d] : Dim(1);
      for (int i = static_cast<int>(group.size()) - 1; i >= 0; --i) {
        view.strides[group[i]] = stride;
        stride = shape.mul(stride, view.sizes[group[i]]);
      }
    }
    views[result] = view;
    return success();
  }
  if (auto cast = dyn_cast<memref::CastOp>(op)) {
    FailureOr<View> source = viewOf(cast.getSource(), op);
    if (failed(source)) {
      return failure();
    }
    views[result] = *source;
    return success();
  }
  if (auto reinterpret = dyn_cast<memref::ReinterpretCastOp>(op)) {
    FailureOr<View> source = viewOf(reinterpret.getSource(), op);
    if (failed(source)) {
      return failure();
    }
    View view = *source;
    FailureOr<Dim> offset = dimOf(reinterpret.getMixedOffsets()[0], op);
    if (failed(offset)) {
      return failure();
    }
    view.sizes.clear();
    view.strides.clear();
    for (OpFoldResult size : reinterpret.getMixedSizes()) {
      FailureOr<Dim> value = dimOf(size, op);
      if (failed(value)) {
        return failure();
      }
      view.sizes.push_back(*value);
    }
    for (OpFoldResult stride : reinterpret.getMixedStrides()) {
      FailureOr<Dim> value = dimOf(stride, op);
      if (failed(value)) {
        return failure();
      }
      view.strides.push_back(*value);
    }
    // The offset counts from the start of the slot.
    view.offset = *offset;
    views[result] = view;
    return success();
  }
  if (auto transpose = dyn_cast<memref::TransposeOp>(op)) {
    FailureOr<View> source = viewOf(transpose.getIn(), op);
    if (failed(source)) {
      return failure();
    }
    View view = *source;
    AffineMap perm = transpose.getPermutation();
    for (unsigned i = 0; i < perm.getNumResults(); ++i) {
      unsigned from = perm.getDimPosition(i);
      view.sizes[i] = source->sizes[from];
      view.strides[i] = source->strides[from];
    }
    views[result] = view;
    return success();
  }
  return op->emitError() << kPrefix << "cannot encode '" << op->getName()
                         << "'";
}

/// Encodes the body of a linalg op (or an identity copy when `op` is null)
/// as chunked vector instructions.
class BodyEncoder {
public:
  BodyEncoder(std::vector<uint32_t> &body, unsigned rank)
      : body(body), rank(rank) {}

  FailureOr<uint32_t> valueRegister(Value value, Operation *user);
  LogicalResult encodeOp(Operation *op);
  uint32_t emit(kernel::Op op, uint32_t type, uint32_t aux, uint32_t a = 0,
                uint32_t b = 0, uint32_t c = 0) {
    uint32_t d = allocate();
    body.push_back(static_cast<uint32_t>(op) | (type << 8) | (aux << 16));
    body.push_back(d);
    body.push_back(a);
    body.push_back(b);
    body.push_back(c);
    ++count;
    return d;
  }
  LogicalResult emitConstant(Value value, Attribute attr, Operation *user);
  /// A gather of element sum(indices[r] * view.strides[r]) of generic
  /// operand `operand` (the view's start, strides 0), range-checked against
  /// the view's extent at run time.
  FailureOr<uint32_t> emitGather(const View &view, uint32_t operand,
                                 ArrayRef<uint32_t> indices, uint32_t type,
                                 Operation *user);
  /// A register (i64) holding `expr` of the loop indices; the caller owns it.
  FailureOr<uint32_t> affineRegister(AffineExpr expr, Operation *user);
  /// `reg` (f32) rounded to `type`'s precision when it is f16 or bf16 (the
  /// value computed in f32 is then what that type would hold), else `reg`.
  uint32_t roundTo(Type type, uint32_t reg) {
    if (!isHalfType(type)) {
      return reg;
    }
    uint32_t rounded =
        emit(type.isF16() ? kernel::Op::RoundF16 : kernel::Op::RoundBF16,
             typeNumber(kernel::Type::F32), 0, reg);
    release(reg);
    return rounded;
  }

  /// Registers are reused once the values they hold are dead: a register
  /// freed by one instruction's operands is given to a later instruction,
  /// never to the one reading it.
  uint32_t allocate() {
    if (!freeRegisters.empty()) {
      uint32_t r = freeRegisters.back();
      freeRegisters.pop_back();
      return r;
    }
    return next++;
  }
  void release(uint32_t r) { freeRegisters.push_back(r); }
  /// `value` is held in `r` (several values may share one register).
  void bind(Value value, uint32_t r) {
    registers[value] = r;
    ++holders[r];
  }
  /// `value` is dead: its register is freed once no live value holds it.
  void retire(Value value) {
    auto it = registers.find(value);
    if (it == registers.end()) {
      return;
    }
    uint32_t r = it->second;
    registers.erase(it);
    if (--holders[r] == 0) {
      release(r);
    }
  }
  /// An i64 constant, patched with a run-time value when dynamic.
  uint32_t emitIndex(Dim d) {
    uint64_t bits = d.isStatic() ? static_cast<uint64_t>(d.constant) : 0;
    if (!d.isStatic()) {
      patches.push_back(
          {static_cast<uint32_t>(body.size() + 2) | kernel::kPatchWide,
           static_cast<uint32_t>(d.value)});
    }
    return emit(kernel::Op::Const, typeNumber(kernel::Type::I64), 0,
                static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32));
  }

  std::vector<uint32_t> &body;
  ShapeValues *shape = nullptr;
  std::vector<uint32_t> freeRegisters;
  llvm::DenseMap<uint32_t, unsigned> holders;
  // Body words patched with run-time values (word in `body`, with
  // kPatchWide for an i64; value).
  std::vector<std::pair<uint32_t, uint32_t>> patches;
  unsigned rank;
  uint32_t next = 0;
  uint32_t count = 0;
  llvm::DenseMap<Value, uint32_t> registers;
  // Block arguments: the operand each loads from, or a constant.
  llvm::DenseMap<Value, uint32_t> argumentOperands;
  llvm::DenseMap<Value, Attribute> argumentConstants;
  // Block arguments of scalar operands that are function arguments.
  llvm::DenseMap<Value, Value> scalarOperands;
  // Block arguments of inputs whose indexing map is not linear in the
  // loops (d mod c, d floordiv c): gathered at the map's results, each
  // computed from the loop indices. Their view, generic operand and map.
  struct MapGather {
    View view;
    uint32_t operand;
    AffineMap map;
  };
  llvm::DenseMap<Value, MapGather> argumentGathers;
  // Scalar function arguments: their first push constant word.
  const llvm::DenseMap<Value, uint32_t> *pushWords = nullptr;
  // Memrefs the body reads at computed indices (memref.load): their view
  // and generic operand.
  llvm::DenseMap<Value, std::pair<View, uint32_t>> gathered;
};

LogicalResult BodyEncoder::emitConstant(Value value, Attribute attr,
                                        Operation *user) {
  FailureOr<uint32_t> type = registerType(value.getType());
  if (failed(type)) {
    return user->emitError() << kPrefix << "constant of type "
                             << value.getType() << " is not supported";
  }
  uint64_t bits = 0;
  if (auto f = dyn_cast<FloatAttr>(attr)) {
    if (*type == typeNumber(kernel::Type::F32)) {
      float x = static_cast<float>(f.getValueAsDouble());
      std::memcpy(&bits, &x, sizeof(x));
    } else {
      double x = f.getValueAsDouble();
      std::memcpy(&bits, &x, sizeof(x));
    }
  } else if (auto i = dyn_cast<IntegerAttr>(attr)) {
    APInt v = i.getValue();
    bits = v.getBitWidth() == 1 ? v.getZExtValue() : v.getSExtValue();
  } else if (auto b = dyn_cast<BoolAttr>(attr)) {
    bits = b.getValue();
  } else {
    return user->emitError()
           << kPrefix << "constant " << attr << " is not a scalar";
  }
  bind(value, emit(kernel::Op::Const, *type, 0, static_cast<uint32_t>(bits),
                   static_cast<uint32_t>(bits >> 32)));
  return success();
}

FailureOr<uint32_t> BodyEncoder::valueRegister(Value value, Operation *user) {
  if (auto it = registers.find(value); it != registers.end()) {
    return it->second;
  }
  if (auto it = argumentOperands.find(value); it != argumentOperands.end()) {
    FailureOr<uint32_t> type = registerType(value.getType());
    if (failed(type)) {
      return user->emitError() << kPrefix << "value of type " << value.getType()
                               << " is not supported";
    }
    uint32_t reg = emit(kernel::Op::Load, *type, 0, it->second);
    bind(value, reg);
    return reg;
  }
  if (auto it = argumentGathers.find(value); it != argumentGathers.end()) {
    FailureOr<uint32_t> type = registerType(value.getType());
    if (failed(type)) {
      return user->emitError() << kPrefix << "value of type " << value.getType()
                               << " is not supported";
    }
    SmallVector<uint32_t> indices;
    auto releaseAll = [&]() {
      for (uint32_t reg : indices) {
        release(reg);
      }
    };
    for (AffineExpr expr : it->second.map.getResults()) {
      FailureOr<uint32_t> reg = affineRegister(expr, user);
      if (failed(reg)) {
        releaseAll();
        return failure();
      }
      indices.push_back(*reg);
    }
    FailureOr<uint32_t> reg =
        emitGather(it->second.view, it->second.operand, indices, *type, user);
    releaseAll();
    if (failed(reg)) {
      return failure();
    }
    bind(value, *reg);
    return *reg;
  }
  if (auto it = scalarOperands.find(value); it != scalarOperands.end()) {
    FailureOr<uint32_t> reg = valueRegister(it->second, user);
    if (succeeded(reg)) {
      bind(value, *reg);
    }
    return reg;
  }
  if (auto it = argumentConstants.find(value); it != argumentConstants.end()) {
    if (failed(emitConstant(value, it->second, user))) {
      return failure();
    }
    return registers[value];
  }
  // Captured from outside the body: push constants and constants.
  if (auto it = pushWords->find(value); it != pushWords->end()) {
    if (isHalfType(value.getType())) {
      return user->emitError() << kPrefix << "push constant of type "
                               << value.getType() << " is not supported";
    }
    FailureOr<uint32_t> type = registerType(value.getType());
    if (failed(type)) {
      return user->emitError() << kPrefix << "push constant of type "
                               << value.getType() << " is not supported";
    }
    uint32_t reg = emit(kernel::Op::Push, *type, 0, it->second);
    bind(value, reg);
    return reg;
  }
  Attribute attr;
  if (matchPattern(value, m_Constant(&attr))) {
    if (failed(emitConstant(value, attr, user))) {
      return failure();
    }
    return registers[value];
  }
  user->emitError() << kPrefix << "cannot encode the value " << value
                    << " read in a linalg body (only constants, operands and "
                       "body values)";
  return failure();
}

FailureOr<uint32_t> BodyEncoder::emitGather(const View &view, uint32_t operand,
                                            ArrayRef<uint32_t> indices,
                                            uint32_t type, Operation *user) {
  if (indices.size() != view.sizes.size()) {
    return user->emitError()
           << kPrefix << "reads " << indices.size()
           << " indices of a view of rank " << view.sizes.size();
  }
  // The element's position: sum(index[r] * stride[r]) (i64), within
  // extent = 1 + sum((size[r] - 1) * stride[r]) (0 when a size is 0:
  // every index is then out of range).
  uint32_t i64 = typeNumber(kernel::Type::I64);
  std::optional<uint32_t> linear;
  bool linearOwned = false;
  Dim extent = 1;
  bool empty = false;
  for (auto [r, reg] : llvm::enumerate(indices)) {
    if (view.strides[r].isStatic() && view.strides[r].constant < 0) {
      return user->emitError() << kPrefix << "gathers through a negative "
                               << "stride";
    }
    empty |= view.sizes[r].isConstant(0);
    extent = shape->plus(
        extent,
        shape->mul(shape->combine(kernel::Value::Sub, view.sizes[r], Dim(1)),
                   view.strides[r]));
    uint32_t term = reg;
    bool termOwned = false;
    if (!view.strides[r].isConstant(1)) {
      uint32_t c = emitIndex(view.strides[r]);
      term = emit(kernel::Op::MulI, i64, 0, reg, c);
      release(c);
      termOwned = true;
    }
    if (linear) {
      uint32_t sum = emit(kernel::Op::AddI, i64, 0, *linear, term);
      if (linearOwned) {
        release(*linear);
      }
      if (termOwned) {
        release(term);
      }
      linear = sum;
      linearOwned = true;
    } else {
      linear = term;
      linearOwned = termOwned;
    }
  }
  if (!linear) {
    linear = emit(kernel::Op::Const, i64, 0, 0, 0);
    linearOwned = true;
  }
  if (empty) {
    extent = 0;
  } else if (!extent.isStatic()) {
    // A run-time size of 0 makes the formula meaningless: no element.
    Dim smallest = 1;
    for (const Dim &size : view.sizes) {
      smallest = shape->combine(kernel::Value::MinS, smallest, size);
    }
    extent = shape->combine(
        kernel::Value::MaxS, Dim(0),
        shape->combine(kernel::Value::Mul, extent,
                       shape->combine(kernel::Value::MaxS, Dim(0), smallest)));
  }
  if (extent.isStatic() &&
      (extent.constant < 1 || extent.constant > UINT32_MAX)) {
    return user->emitError() << kPrefix << "gathers from " << extent.constant
                             << " elements (at most 2^32 - 1)";
  }
  if (!extent.isStatic()) {
    patches.push_back({static_cast<uint32_t>(body.size() + 4),
                       static_cast<uint32_t>(extent.value)});
  }
  uint32_t result =
      emit(kernel::Op::Gather, type, 0, operand, *linear,
           extent.isStatic() ? static_cast<uint32_t>(extent.constant) : 0);
  if (linearOwned) {
    release(*linear);
  }
  return result;
}

std::string exprText(AffineExpr expr) {
  std::string text;
  llvm::raw_string_ostream(text) << expr;
  return text;
}

FailureOr<uint32_t> BodyEncoder::affineRegister(AffineExpr expr,
                                                Operation *user) {
  uint32_t i64 = typeNumber(kernel::Type::I64);
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    return emit(kernel::Op::Index, i64, 0, d.getPosition());
  }
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    uint64_t bits = static_cast<uint64_t>(c.getValue());
    return emit(kernel::Op::Const, i64, 0, static_cast<uint32_t>(bits),
                static_cast<uint32_t>(bits >> 32));
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary) {
    return user->emitError()
           << kPrefix << "cannot compute the index " << exprText(expr);
  }
  bool divides = binary.getKind() == AffineExprKind::Mod ||
                 binary.getKind() == AffineExprKind::FloorDiv ||
                 binary.getKind() == AffineExprKind::CeilDiv;
  auto divisor = dyn_cast<AffineConstantExpr>(binary.getRHS());
  if (divides && (!divisor || divisor.getValue() <= 0)) {
    return user->emitError()
           << kPrefix << "cannot compute the index " << exprText(expr)
           << " (a division by other than a positive "
           << "constant)";
  }
  FailureOr<uint32_t> lhs = affineRegister(binary.getLHS(), user);
  if (failed(lhs)) {
    return failure();
  }
  FailureOr<uint32_t> rhs = affineRegister(binary.getRHS(), user);
  if (failed(rhs)) {
    release(*lhs);
    return failure();
  }
  uint32_t result = 0;
  switch (binary.getKind()) {
  case AffineExprKind::Add:
    result = emit(kernel::Op::AddI, i64, 0, *lhs, *rhs);
    break;
  case AffineExprKind::Mul:
    result = emit(kernel::Op::MulI, i64, 0, *lhs, *rhs);
    break;
  case AffineExprKind::FloorDiv:
    result = emit(kernel::Op::FloorDivSI, i64, 0, *lhs, *rhs);
    break;
  case AffineExprKind::CeilDiv:
    result = emit(kernel::Op::CeilDivSI, i64, 0, *lhs, *rhs);
    break;
  case AffineExprKind::Mod: {
    // lhs - rhs * floor(lhs / rhs): in [0, rhs) for a positive rhs.
    uint32_t quotient = emit(kernel::Op::FloorDivSI, i64, 0, *lhs, *rhs);
    uint32_t product = emit(kernel::Op::MulI, i64, 0, quotient, *rhs);
    release(quotient);
    result = emit(kernel::Op::SubI, i64, 0, *lhs, product);
    release(product);
    break;
  }
  default:
    release(*lhs);
    release(*rhs);
    return user->emitError()
           << kPrefix << "cannot compute the index " << exprText(expr);
  }
  release(*lhs);
  release(*rhs);
  return result;
}

std::optional<kernel::Op> binaryOp(Operation *op) {
  using K = kernel::Op;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case([](arith::AddFOp) { return K::AddF; })
      .Case([](arith::SubFOp) { return K::SubF; })
      .Case([](arith::MulFOp) { return K::MulF; })
      .Case([](arith::DivFOp) { return K::DivF; })
      .Case([](arith::RemFOp) { return K::RemF; })
      .Case([](arith::MaximumFOp) { return K::MaximumF; })
      .Case([](arith::MinimumFOp) { return K::MinimumF; })
      .Case([](arith::MaxNumFOp) { return K::MaxNumF; })
      .Case([](arith::MinNumFOp) { return K::MinNumF; })
      .Case([](math::PowFOp) { return K::PowF; })
      .Case([](math::Atan2Op) { return K::Atan2; })
      .Case([](math::CopySignOp) { return K::CopySign; })
      .Case([](arith::AddIOp) { return K::AddI; })
      .Case([](arith::SubIOp) { return K::SubI; })
      .Case([](arith::MulIOp) { return K::MulI; })
      .Case([](arith::DivSIOp) { return K::DivSI; })
      .Case([](arith::DivUIOp) { return K::DivUI; })
      .Case([](arith::RemSIOp) { return K::RemSI; })
      .Case([](arith::RemUIOp) { return K::RemUI; })
      .Case([](arith::AndIOp) { return K::AndI; })
      .Case([](arith::OrIOp) { return K::OrI; })
      .Case([](arith::XOrIOp) { return K::XOrI; })
      .Case([](arith::ShLIOp) { return K::ShLI; })
      .Case([](arith::ShRSIOp) { return K::ShRSI; })
      .Case([](arith::ShRUIOp) { return K::ShRUI; })
      .Case([](arith::MaxSIOp) { return K::MaxSI; })
      .Case([](arith::MinSIOp) { return K::MinSI; })
      .Case([](arith::MaxUIOp) { return K::MaxUI; })
      .Case([](arith::MinUIOp) { return K::MinUI; })
      .Case([](arith::FloorDivSIOp) { return K::FloorDivSI; })
      .Case([](arith::CeilDivSIOp) { return K::CeilDivSI; })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<kernel::Op> unaryOp(Operation *op) {
  using K = kernel::Op;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case([](arith::NegFOp) { return K::NegF; })
      .Case([](math::AbsFOp) { return K::AbsF; })
      .Case([](math::ExpOp) { return K::Exp; })
      .Case([](math::Exp2Op) { return K::Exp2; })
      .Case([](math::ExpM1Op) { return K::ExpM1; })
      .Case([](math::LogOp) { return K::Log; })
      .Case([](math::Log2Op) { return K::Log2; })
      .Case([](math::Log10Op) { return K::Log10; })
      .Case([](math::Log1pOp) { return K::Log1p; })
      .Case([](math::SqrtOp) { return K::Sqrt; })
      .Case([](math::RsqrtOp) { return K::Rsqrt; })
      .Case([](math::TanhOp) { return K::Tanh; })
      .Case([](math::SinOp) { return K::Sin; })
      .Case([](math::CosOp) { return K::Cos; })
      .Case([](math::TanOp) { return K::Tan; })
      .Case([](math::AtanOp) { return K::Atan; })
      .Case([](math::AsinOp) { return K::Asin; })
      .Case([](math::AcosOp) { return K::Acos; })
      .Case([](math::SinhOp) { return K::Sinh; })
      .Case([](math::CoshOp) { return K::Cosh; })
      .Case([](math::AsinhOp) { return K::Asinh; })
      .Case([](math::AcoshOp) { return K::Acosh; })
      .Case([](math::AtanhOp) { return K::Atanh; })
      .Case([](math::ErfOp) { return K::Erf; })
      .Case([](math::FloorOp) { return K::Floor; })
      .Case([](math::CeilOp) { return K::Ceil; })
      .Case([](math::RoundOp) { return K::Round; })
      .Case([](math::RoundEvenOp) { return K::RoundEven; })
      .Case([](math::TruncOp) { return K::Trunc; })
      .Case([](math::AbsIOp) { return K::AbsI; })
      .Case([](math::CountLeadingZerosOp) { return K::CtLz; })
      .Case([](math::CountTrailingZerosOp) { return K::CtTz; })
      .Case([](math::CtPopOp) { return K::CtPop; })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<kernel::Op> castOp(Operation *op) {
  using K = kernel::Op;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case([](arith::SIToFPOp) { return K::SIToFP; })
      .Case([](arith::UIToFPOp) { return K::UIToFP; })
      .Case([](arith::FPToSIOp) { return K::FPToSI; })
      .Case([](arith::FPToUIOp) { return K::FPToUI; })
      .Case([](arith::ExtFOp) { return K::ExtF; })
      .Case([](arith::TruncFOp) { return K::TruncF; })
      .Case([](arith::ExtSIOp) { return K::ExtSI; })
      .Case([](arith::ExtUIOp) { return K::ExtUI; })
      .Case([](arith::TruncIOp) { return K::TruncI; })
      .Case([](arith::BitcastOp) { return K::Bitcast; })
      .Default([](Operation *) { return std::nullopt; });
}

LogicalResult BodyEncoder::encodeOp(Operation *op) {
  auto operandRegs = [&](SmallVectorImpl<uint32_t> &regs) -> LogicalResult {
    for (Value operand : op->getOperands()) {
      FailureOr<uint32_t> reg = valueRegister(operand, op);
      if (failed(reg)) {
        return failure();
      }
      regs.push_back(*reg);
    }
    return success();
  };
  auto resultType = [&](Value value) -> FailureOr<uint32_t> {
    FailureOr<uint32_t> type = registerType(value.getType());
    if (failed(type)) {
      op->emitError() << kPrefix << "type " << value.getType()
                      << " is not supported in a linalg body";
    }
    return type;
  };
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    return emitConstant(constant.getResult(), constant.getValue(), op);
  }
  if (auto index = dyn_cast<linalg::IndexOp>(op)) {
    bind(index.getResult(),
         emit(kernel::Op::Index, typeNumber(kernel::Type::I64), 0,
              static_cast<uint32_t>(index.getDim())));
    return success();
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op)) {
    Value in = op->getOperand(0);
    Value out = op->getResult(0);
    FailureOr<uint32_t> reg = valueRegister(in, op);
    FailureOr<uint32_t> from = registerType(in.getType());
    FailureOr<uint32_t> to = resultType(out);
    if (failed(reg) || failed(from) || failed(to)) {
      return failure();
    }
    if (*from == *to) {
      bind(out, *reg);
      return success();
    }
    bool widen = kernel::typeBytes(*to) > kernel::typeBytes(*from) ||
                 (*from == typeNumber(kernel::Type::I1));
    kernel::Op kind = !widen                          ? kernel::Op::TruncI
                      : isa<arith::IndexCastUIOp>(op) ? kernel::Op::ExtUI
                                                      : kernel::Op::ExtSI;
    bind(out, emit(kind, *to, *from, *reg));
    return success();
  }
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    auto it = gathered.find(load.getMemRef());
    FailureOr<uint32_t> type = resultType(load.getResult());
    if (it == gathered.end() || failed(type)) {
      return op->emitError() << kPrefix << "cannot encode this load";
    }
    SmallVector<uint32_t> indices;
    for (Value index : load.getIndices()) {
      FailureOr<uint32_t> reg = valueRegister(index, op);
      if (failed(reg)) {
        return failure();
      }
      indices.push_back(*reg);
    }
    FailureOr<uint32_t> reg =
        emitGather(it->second.first, it->second.second, indices, *type, op);
    if (failed(reg)) {
      return failure();
    }
    bind(load.getResult(), *reg);
    return success();
  }
  if (auto fma = dyn_cast<math::FmaOp>(op)) {
    SmallVector<uint32_t> regs;
    FailureOr<uint32_t> type = resultType(fma.getResult());
    if (failed(operandRegs(regs)) || failed(type)) {
      return failure();
    }
    uint32_t product = emit(kernel::Op::MulF, *type, 0, regs[0], regs[1]);
    uint32_t sum = emit(kernel::Op::AddF, *type, 0, product, regs[2]);
    release(product);
    bind(fma.getResult(), roundTo(fma.getType(), sum));
    return success();
  }
  if (op->getNumResults() != 1) {
    return op->emitError() << kPrefix << "cannot encode '" << op->getName()
                           << "' in a linalg body";
  }
  Value result = op->getResult(0);
  SmallVector<uint32_t> regs;
  if (std::optional<kernel::Op> kind = binaryOp(op)) {
    FailureOr<uint32_t> type = resultType(result);
    if (failed(type) || failed(operandRegs(regs))) {
      return failure();
    }
    bind(result,
         roundTo(result.getType(), emit(*kind, *type, 0, regs[0], regs[1])));
    return success();
  }
  if (std::optional<kernel::Op> kind = unaryOp(op)) {
    FailureOr<uint32_t> type = resultType(result);
    if (failed(type) || failed(operandRegs(regs))) {
      return failure();
    }
    bind(result, roundTo(result.getType(), emit(*kind, *type, 0, regs[0])));
    return success();
  }
  // Conversions from or to f16/bf16 (held as f32): a widening is the same
  // register, a narrowing a rounding.
  if (isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp>(
          op) &&
      (isHalfType(op->getOperand(0).getType()) ||
       isHalfType(result.getType()))) {
    FailureOr<uint32_t> from = registerType(op->getOperand(0).getType());
    FailureOr<uint32_t> to = resultType(result);
    if (failed(from) || failed(to) || failed(operandRegs(regs))) {
      return op->emitError() << kPrefix << "cannot encode this conversion";
    }
    uint32_t reg = regs[0];
    bool fresh = false;
    if (*from != *to) {
      kernel::Op kind = isa<arith::ExtFOp>(op)     ? kernel::Op::ExtF
                        : isa<arith::TruncFOp>(op) ? kernel::Op::TruncF
                        : isa<arith::SIToFPOp>(op) ? kernel::Op::SIToFP
                                                   : kernel::Op::UIToFP;
      reg = emit(kind, *to, *from, reg);
      fresh = true;
    }
    if (isHalfType(result.getType())) {
      uint32_t rounded = emit(result.getType().isF16() ? kernel::Op::RoundF16
                                                       : kernel::Op::RoundBF16,
                              typeNumber(kernel::Type::F32), 0, reg);
      if (fresh) {
        release(reg);
      }
      reg = rounded;
    }
    bind(result, reg);
    return success();
  }
  if (isa<arith::BitcastOp>(op) && (isHalfType(op->getOperand(0).getType()) ||
                                    isHalfType(result.getType()))) {
    return op->emitError() << kPrefix << "cannot bitcast "
                           << op->getOperand(0).getType()
                           << " (computed in f32)";
  }
  if (std::optional<kernel::Op> kind = castOp(op)) {
    FailureOr<uint32_t> type = resultType(result);
    FailureOr<uint32_t> from = registerType(op->getOperand(0).getType());
    if (failed(type) || failed(from) || failed(operandRegs(regs))) {
      return op->emitError() << kPrefix << "cannot encode this conversion";
    }
    bind(result, emit(*kind, *type, *from, regs[0]));
    return success();
  }
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    FailureOr<uint32_t> type = registerType(cmp.getLhs().getType());
    if (failed(type) || failed(operandRegs(regs))) {
      return op->emitError() << kPrefix << "cannot encode this comparison";
    }
    bind(result,
         emit(kernel::Op::CmpF, *type,
              static_cast<uint32_t>(cmp.getPredicate()), regs[0], regs[1]));
    return success();
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    FailureOr<uint32_t> type = registerType(cmp.getLhs().getType());
    if (failed(type) || failed(operandRegs(regs))) {
      return op->emitError() << kPrefix << "cannot encode this comparison";
    }
    bind(result,
         emit(kernel::Op::CmpI, *type,
              static_cast<uint32_t>(cmp.getPredicate()), regs[0], regs[1]));
    return success();
  }
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    FailureOr<uint32_t> type = resultType(result);
    if (failed(type) || failed(operandRegs(regs))) {
      return failure();
    }
    if (!select.getCondition().getType().isInteger(1)) {
      return op->emitError() << kPrefix << "needs a scalar i1 condition";
    }
    bind(result, emit(kernel::Op::Select, *type, 0, regs[0], regs[1], regs[2]));
    return success();
  }
  return op->emitError() << kPrefix << "cannot encode '" << op->getName()
                         << "' in a linalg body";
}

LogicalResult FunctionEncoder::encodeCopy(memref::CopyOp op) {
  FailureOr<View> source = viewOf(op.getSource(), op);
  FailureOr<View> target = viewOf(op.getTarget(), op);
  if (failed(source) || failed(target)) {
    return failure();
  }
  if (source->type != target->type ||
      source->sizes.size() != target->sizes.size()) {
    return op.emitError() << kPrefix << "copies between different shapes";
  }
  unsigned rank = std::max<size_t>(1, source->sizes.size());
  // memref.copy's operands have one shape: a dimension static on either
  // side is that size.
  SmallVector<Dim> sizes;
  for (auto [from, to] : llvm::zip(source->sizes, target->sizes)) {
    if (from.isStatic() && to.isStatic() && from != to) {
      return op.emitError() << kPrefix << "copies between different shapes";
    }
    sizes.push_back(from.isStatic() ? from : to);
  }
  auto sourceStrides = source->strides;
  auto targetStrides = target->strides;
  if (sizes.empty()) {
    sizes = {Dim(1)};
    sourceStrides = {Dim(0)};
    targetStrides = {Dim(0)};
  }
  code.push_back(static_cast<uint32_t>(kernel::Inst::Generic));
  code.push_back(rank);
  for (const Dim &size : sizes) {
    emitSize(size);
  }
  for (unsigned d = 0; d < rank; ++d) {
    code.push_back(d);
  }
  ++instructions;
  lastSplit = 1;
  code.push_back(1); // vector
  code.push_back(2); // operands
  code.push_back(1); // outputs
  for (const auto &[view, strides] :
       {std::pair(*source, sourceStrides), std::pair(*target, targetStrides)}) {
    code.push_back(view.slot);
    code.push_back(view.type);
    emitWide(view.offset);
    for (const Dim &stride : strides) {
      emitWide(stride);
    }
  }
  code.push_back(1); // body: r0 = load operand 0 (f32 for f16/bf16)
  uint32_t registerTypeNumber = kernel::isMemoryOnlyType(source->type)
                                    ? typeNumber(kernel::Type::F32)
                                    : source->type;
  code.push_back(static_cast<uint32_t>(kernel::Op::Load) |
                 (registerTypeNumber << 8));
  code.push_back(0);
  code.push_back(0);
  code.push_back(0);
  code.push_back(0);
  code.push_back(0); // yield r0
  maxRegisters = std::max<uint32_t>(maxRegisters, 1);
  return success();
}

/// A scalar store outside a linalg op (tensor.from_elements): a generic of
/// one iteration whose output operand is the element at the indices (each
/// a constant or a run-time size, so the verifier proves the element inside
/// the slot like any other access) and whose body is the value (a constant
/// or a push constant).
LogicalResult FunctionEncoder::encodeStore(memref::StoreOp op) {
  FailureOr<View> target = viewOf(op.getMemRef(), op);
  if (failed(target)) {
    return failure();
  }
  if (op.getIndices().size() != target->strides.size()) {
    return op.emitError() << kPrefix << "stores with " << op.getIndices().size()
                          << " indices into a view of rank "
                          << target->strides.size();
  }
  Dim offset = target->offset;
  for (auto [index, stride] : llvm::zip(op.getIndices(), target->strides)) {
    FailureOr<Dim> at = dimOf(index, op);
    if (failed(at)) {
      return failure();
    }
    if (at->isStatic() && at->constant < 0) {
      return op.emitError() << kPrefix << "stores at a negative index";
    }
    offset = shape.plus(offset, shape.mul(*at, stride));
  }
  std::vector<uint32_t> body;
  BodyEncoder encoder(body, 1);
  encoder.pushWords = &pushWords;
  encoder.shape = &shape;
  FailureOr<uint32_t> reg = encoder.valueRegister(op.getValueToStore(), op);
  if (failed(reg)) {
    return failure();
  }
  ++instructions;
  lastSplit = 1;
  code.push_back(static_cast<uint32_t>(kernel::Inst::Generic));
  code.push_back(1); // rank
  code.push_back(1); // one iteration
  code.push_back(0); // loop order
  code.push_back(1); // vector
  code.push_back(1); // operands
  code.push_back(1); // outputs
  code.push_back(target->slot);
  code.push_back(target->type);
  emitWide(offset);
  emitWide(0); // stride
  code.push_back(encoder.count);
  for (auto [word, value] : encoder.patches) {
    patches.push_back({word + static_cast<uint32_t>(code.size()), value});
  }
  code.insert(code.end(), body.begin(), body.end());
  code.push_back(*reg); // yield
  maxRegisters = std::max(maxRegisters, encoder.next);
  return success();
}

bool FunctionEncoder::tryMatmul(linalg::LinalgOp op,
                                ArrayRef<SmallVector<Dim>> operandStrides,
                                ArrayRef<Dim> operandOffsets,
                                ArrayRef<Dim> loops) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(op)) {
    return false;
  }
  // f32, f16 or bf16 matrices (kernel_bytecode.h matmul): an f16/bf16 C
  // with A and B of its type and the plain multiply-add in that type (each
  // product and sum rounded to it), or an f32 C whose f16/bf16 inputs the
  // body widens (arith.extf) before the f32 multiply-add.
  SmallVector<Type> elementTypes;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type ||
        !(type.getElementType().isF32() || isHalfType(type.getElementType()))) {
      return false;
    }
    elementTypes.push_back(type.getElementType());
  }
  Type accumulator = elementTypes[2];
  if (isHalfType(accumulator) &&
      (elementTypes[0] != accumulator || elementTypes[1] != accumulator)) {
    return false;
  }
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->batch.size() > 1 || dims->m.size() != 1 ||
      dims->n.size() != 1 || dims->k.size() != 1) {
    return false;
  }
  // The body: yield(addf(acc, mulf(a, b))) in C's type, a and b the input
  // arguments, each widened by an extf when it is f16/bf16 and C is f32;
  // nothing else.
  Block *body = op.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield && yield.getNumOperands() == 1
                 ? yield.getOperand(0).getDefiningOp<arith::AddFOp>()
                 : arith::AddFOp();
  if (!add || add.getType() != accumulator) {
    return false;
  }
  Value product = add.getLhs() == body->getArgument(2)   ? add.getRhs()
                  : add.getRhs() == body->getArgument(2) ? add.getLhs()
                                                         : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : arith::MulFOp();
  if (!mul || mul->getBlock() != body) {
    return false;
  }
  unsigned expectedOps = 3;
  auto isInput = [&](Value value, unsigned index) {
    if (value == body->getArgument(index)) {
      return elementTypes[index] == accumulator;
    }
    auto ext = value.getDefiningOp<arith::ExtFOp>();
    if (!ext || ext->getBlock() != body ||
        ext.getIn() != body->getArgument(index) || !accumulator.isF32() ||
        !isHalfType(elementTypes[index])) {
      return false;
    }
    ++expectedOps;
    return true;
  };
  auto matches = [&](unsigned lhs, unsigned rhs) {
    expectedOps = 3;
    return isInput(mul.getLhs(), lhs) && isInput(mul.getRhs(), rhs);
  };
  if (!matches(0, 1) && !matches(1, 0)) {
    return false;
  }
  if (body->getOperations().size() != expectedOps) {
    return false;
  }
  unsigned m = dims->m[0];
  unsigned n = dims->n[0];
  unsigned k = dims->k[0];
  std::optional<unsigned> b =
      dims->batch.empty() ? std::nullopt : std::optional(dims->batch[0]);
  // A is the input indexed by m, B the one indexed by n.
  unsigned aIndex = operandStrides[0][m] != Dim(0) ? 0 : 1;
  unsigned bIndex = 1 - aIndex;
  if (operandStrides[aIndex][n] != Dim(0) ||
      operandStrides[bIndex][m] != Dim(0)) {
    return false;
  }
  // Splits over batches when there are several, else over row blocks.
  ++instructions;
  int64_t batches = b ? loops[*b].hint() : 1;
  lastSplit = static_cast<uint32_t>(std::min<int64_t>(
      batches > 1 ? batches : (loops[m].hint() + 3) / 4, kMaxWorkgroups));
  code.push_back(static_cast<uint32_t>(kernel::Inst::Matmul));
  emitSize(b ? loops[*b] : Dim(1));
  emitSize(loops[m]);
  emitSize(loops[n]);
  emitSize(loops[k]);
  auto matrix = [&](unsigned index, unsigned row, unsigned col) {
    const View &view = views[op->getOpOperand(index).get()];
    code.push_back(view.slot);
    code.push_back(view.type);
    emitWide(operandOffsets[index]);
    emitWide(b ? operandStrides[index][*b] : Dim(0));
    emitWide(operandStrides[index][row]);
    emitWide(operandStrides[index][col]);
  };
  matrix(aIndex, m, k);
  matrix(bIndex, k, n);
  matrix(2, m, n);
  return true;
}

LogicalResult FunctionEncoder::encodeLinalg(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics()) {
    return op.emitError() << kPrefix << "needs a bufferized linalg op";
  }
  SmallVector<int64_t> staticLoops = op.getStaticLoopRanges();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // Each loop's range: static, or the size of an operand dimension its
  // indexing map reads with that loop alone.
  SmallVector<Dim> loops;
  for (auto [d, size] : llvm::enumerate(staticLoops)) {
    if (!ShapedType::isDynamic(size)) {
      if (size < 0 || size > (1 << 30)) {
        return op.emitError() << kPrefix << "has a loop of " << size
                              << " iterations (at most 2^30)";
      }
      loops.push_back(size);
      continue;
    }
    std::optional<Dim> found;
    for (OpOperand &operand : op->getOpOperands()) {
      auto it = views.find(operand.get());
      if (it == views.end()) {
        continue;
      }
      AffineMap map = maps[operand.getOperandNumber()];
      for (unsigned r = 0; r < map.getNumResults() && !found; ++r) {
        auto dim = dyn_cast<AffineDimExpr>(map.getResult(r));
        if (dim && dim.getPosition() == d && r < it->second.sizes.size()) {
          found = it->second.sizes[r];
        }
      }
    }
    if (!found) {
      return op.emitError() << kPrefix << "cannot find the range of loop " << d
                            << " in an operand's sizes";
    }
    loops.push_back(*found);
  }
  unsigned numLoops = loops.size();
  unsigned rank = std::max(1u, numLoops);
  if (rank > kernel::kMaxRank) {
    return op.emitError() << kPrefix << "has " << rank << " loops (at most "
                          << kernel::kMaxRank << ")";
  }
  SmallVector<SmallVector<Dim>> operandStrides;
  SmallVector<Dim> operandOffsets;
  // Operands that are memrefs become generic operands; scalar inputs are
  // constants of the body.
  SmallVector<unsigned> memrefOperands;
  llvm::DenseMap<unsigned, AffineMap> mapGathers;
  Block *block = op.getBlock();
  for (OpOperand &operand : op->getOpOperands()) {
    unsigned index = operand.getOperandNumber();
    SmallVector<Dim> strides(rank, Dim(0));
    Dim offset = 0;
    if (isa<MemRefType>(operand.get().getType())) {
      FailureOr<View> view = viewOf(operand.get(), op);
      if (failed(view)) {
        return failure();
      }
      AffineMap map = maps[index];
      bool linear = llvm::all_of(map.getResults(), [&](AffineExpr expr) {
        SmallVector<int64_t> coefficients;
        int64_t constant = 0;
        return succeeded(linearize(expr, numLoops, coefficients, constant));
      });
      if (!linear && index < op.getNumDpsInputs() &&
          map.getNumResults() == view->sizes.size()) {
        // An input read at a non-linear map (d mod c: a tiled repeat): a
        // gather at the map's results, computed per lane from the loop
        // indices and range-checked against the view (kernel_opcodes.def
        // Gather). Its generic operand stays at the view's start.
        mapGathers[index] = map;
        operandStrides.push_back(strides);
        operandOffsets.push_back(view->offset);
        memrefOperands.push_back(index);
        continue;
      }
      for (unsigned r = 0; r < map.getNumResults(); ++r) {
        SmallVector<int64_t> coefficients;
        int64_t constant = 0;
        if (failed(linearize(map.getResult(r), numLoops, coefficients,
                             constant))) {
          return op.emitError()
                 << kPrefix << "indexing map " << AffineMapAttr::get(map)
                 << " is not linear in the loop dimensions";
        }
        if (r >= view->strides.size()) {
          return op.emitError()
                 << kPrefix << "indexing map " << AffineMapAttr::get(map)
                 << " has more results than its operand";
        }
        for (unsigned d = 0; d < numLoops; ++d) {
          strides[d] = shape.plus(strides[d],
                                  shape.mul(coefficients[d], view->strides[r]));
        }
        offset = shape.plus(offset, shape.mul(constant, view->strides[r]));
      }
      offset = shape.plus(offset, view->offset);
      memrefOperands.push_back(index);
    } else if (index >= op.getNumDpsInputs()) {
      return op.emitError() << kPrefix << "needs memref outputs";
    }
    operandStrides.push_back(strides);
    operandOffsets.push_back(offset);
  }
  if (mapGathers.empty() &&
      tryMatmul(op, operandStrides, operandOffsets, loops)) {
    return success();
  }

  // The vector loop: a parallel dimension, the one the first output steps
  // through contiguously if it is long enough to fill chunks, else the
  // largest (a strided chunk beats many short ones: the interpreter decodes
  // each instruction once per chunk).
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned firstOutput = op.getNumDpsInputs();
  std::optional<unsigned> vectorDim;
  std::optional<unsigned> contiguous;
  for (unsigned d = 0; d < numLoops; ++d) {
    if (iterators[d] != utils::IteratorType::parallel) {
      continue;
    }
    if (!contiguous && firstOutput < operandStrides.size() &&
        operandStrides[firstOutput][d].isConstant(1)) {
      contiguous = d;
    }
    if (!vectorDim || loops[d].hint() > loops[*vectorDim].hint()) {
      vectorDim = d;
    }
  }
  if (contiguous && loops[*contiguous].hint() >= 16) {
    vectorDim = contiguous;
  }
  SmallVector<unsigned> order;
  if (vectorDim) {
    for (unsigned d = 0; d < numLoops; ++d) {
      if (d != *vectorDim && iterators[d] == utils::IteratorType::parallel) {
        order.push_back(d);
      }
    }
    for (unsigned d = 0; d < numLoops; ++d) {
      if (iterators[d] != utils::IteratorType::parallel) {
        order.push_back(d);
      }
    }
    order.push_back(*vectorDim);
    // The outermost loop is the one workgroups split: lead with the first
    // parallel loop of more than one iteration (loops of one iteration
    // before it change no access order).
    for (size_t i = 0; i + 1 < order.size(); ++i) {
      if (iterators[order[i]] != utils::IteratorType::parallel) {
        break;
      }
      if (loops[order[i]].hint() > 1) {
        unsigned lead = order[i];
        order.erase(order.begin() + i);
        order.insert(order.begin(), lead);
        break;
      }
    }
  } else {
    for (unsigned d = 0; d < rank; ++d) {
      order.push_back(d);
    }
  }

  std::vector<uint32_t> body;
  BodyEncoder encoder(body, rank);
  encoder.pushWords = &pushWords;
  encoder.shape = &shape;
  // Generic operands: the memref inputs, then the memrefs the body
  // gathers from (all strides 0), then the outputs.
  struct GenericOperand {
    uint32_t slot;
    uint32_t type;
    Dim offset;
    SmallVector<Dim> strides;
  };
  SmallVector<GenericOperand> genericOperands;
  llvm::DenseMap<unsigned, uint32_t> genericIndex;
  unsigned firstOutputOperand = op.getNumDpsInputs();
  auto addOperand = [&](unsigned index) {
    const View &view = views[op->getOperand(index)];
    genericIndex[index] = genericOperands.size();
    genericOperands.push_back(
        {view.slot, view.type, operandOffsets[index], operandStrides[index]});
  };
  for (unsigned index : memrefOperands) {
    if (index < firstOutputOperand) {
      addOperand(index);
    }
  }
  WalkResult gathers = block->walk([&](memref::LoadOp load) {
    Value source = load.getMemRef();
    if (encoder.gathered.count(source)) {
      return WalkResult::advance();
    }
    auto it = views.find(source);
    if (it == views.end()) {
      load.emitError() << kPrefix << "cannot follow the memref it loads "
                       << "from to a binding or a temporary";
      return WalkResult::interrupt();
    }
    encoder.gathered[source] = {it->second,
                                static_cast<uint32_t>(genericOperands.size())};
    genericOperands.push_back({it->second.slot, it->second.type,
                               it->second.offset,
                               SmallVector<Dim>(rank, Dim(0))});
    return WalkResult::advance();
  });
  if (gathers.wasInterrupted()) {
    return failure();
  }
  for (unsigned index : memrefOperands) {
    if (index >= firstOutputOperand) {
      addOperand(index);
    }
  }
  unsigned outputCount = op.getNumDpsInits();
  if (genericOperands.size() > kernel::kMaxOperands) {
    return op.emitError() << kPrefix << "has more than " << kernel::kMaxOperands
                          << " operands";
  }
  for (OpOperand &operand : op->getOpOperands()) {
    unsigned index = operand.getOperandNumber();
    BlockArgument arg = block->getArgument(index);
    if (auto it = genericIndex.find(index); it != genericIndex.end()) {
      if (auto gather = mapGathers.find(index); gather != mapGathers.end()) {
        encoder.argumentGathers[arg] = {views[operand.get()], it->second,
                                        gather->second};
        continue;
      }
      encoder.argumentOperands[arg] = it->second;
      continue;
    }
    Attribute attr;
    if (matchPattern(operand.get(), m_Constant(&attr))) {
      encoder.argumentConstants[arg] = attr;
      continue;
    }
    // A scalar function argument (a push constant): its block argument
    // reads it.
    if (auto it = pushWords.find(operand.get()); it != pushWords.end()) {
      encoder.scalarOperands[arg] = operand.get();
      continue;
    }
    return op.emitError() << kPrefix << "scalar operand " << index
                          << " is neither a constant nor a push constant";
  }
  SmallVector<uint32_t> yields;
  // The last body op reading each value (yielded ones live to the end):
  // its register is reused after that op.
  llvm::DenseMap<Value, unsigned> lastUse;
  constexpr unsigned kLive = ~0u;
  for (auto [index, inner] : llvm::enumerate(block->getOperations())) {
    for (Value operand : inner.getOperands()) {
      lastUse[operand] =
          isa<linalg::YieldOp>(inner) ? kLive : static_cast<unsigned>(index);
    }
  }
  for (auto [index, inner] : llvm::enumerate(block->getOperations())) {
    if (auto yield = dyn_cast<linalg::YieldOp>(inner)) {
      for (Value value : yield.getValues()) {
        FailureOr<uint32_t> reg = encoder.valueRegister(value, yield);
        if (failed(reg)) {
          return failure();
        }
        yields.push_back(*reg);
      }
      continue;
    }
    if (failed(encoder.encodeOp(&inner))) {
      return failure();
    }
    llvm::SmallPtrSet<Value, 4> done;
    for (Value operand : inner.getOperands()) {
      auto it = lastUse.find(operand);
      if (it != lastUse.end() && it->second == index &&
          done.insert(operand).second) {
        encoder.retire(operand);
      }
    }
    for (Value result : inner.getResults()) {
      if (!lastUse.count(result)) {
        encoder.retire(result); // never read
      }
    }
  }
  if (encoder.next > kernel::kMaxRegisters) {
    return op.emitError() << kPrefix << "body needs " << encoder.next
                          << " registers (at most " << kernel::kMaxRegisters
                          << ")";
  }
  // A yielded value of another type than its output (never, in valid IR)
  // would be refused by the verifier.
  maxRegisters = std::max(maxRegisters, encoder.next);

  // Its outermost loop splits over workgroups when it is parallel and not
  // the vector loop.
  ++instructions;
  lastSplit = 1;
  if (rank >= 2 && order.size() == rank && iterators.size() > order[0] &&
      iterators[order[0]] == utils::IteratorType::parallel) {
    lastSplit = static_cast<uint32_t>(
        std::min<int64_t>(loops[order[0]].hint(), kMaxWorkgroups));
  }
  code.push_back(static_cast<uint32_t>(kernel::Inst::Generic));
  code.push_back(rank);
  for (unsigned d = 0; d < rank; ++d) {
    emitSize(d < numLoops ? loops[d] : Dim(1));
  }
  for (unsigned d : order) {
    code.push_back(d);
  }
  code.push_back(vectorDim ? 1 : 0);
  code.push_back(static_cast<uint32_t>(genericOperands.size()));
  code.push_back(outputCount);
  for (const GenericOperand &operand : genericOperands) {
    code.push_back(operand.slot);
    code.push_back(operand.type);
    emitWide(operand.offset);
    for (const Dim &stride : operand.strides) {
      emitWide(stride);
    }
  }
  code.push_back(encoder.count);
  for (auto [word, value] : encoder.patches) {
    patches.push_back({word + static_cast<uint32_t>(code.size()), value});
  }
  code.insert(code.end(), body.begin(), body.end());
  code.insert(code.end(), yields.begin(), yields.end());
  return success();
}

LogicalResult FunctionEncoder::encodeOp(Operation *op) {
  if (isa<func::ReturnOp, memref::DeallocOp, memref::AssumeAlignmentOp>(op)) {
    if (auto assume = dyn_cast<memref::AssumeAlignmentOp>(op)) {
      FailureOr<View> view = viewOf(assume.getMemref(), op);
      if (failed(view)) {
        return failure();
      }
      views[assume.getResult()] = *view;
    }
    return success();
  }
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    return encodeLinalg(linalgOp);
  }
  if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    return encodeCopy(copy);
  }
  if (auto store = dyn_cast<memref::StoreOp>(op)) {
    return encodeStore(store);
  }
  if (op->getNumResults() == 1 && isa<MemRefType>(op->getResult(0).getType())) {
    return defineView(op->getResult(0), op);
  }
  // Scalar arithmetic of constants (subview offsets, fill values) is read
  // where it is used.
  if (isMemoryEffectFree(op) && op->getNumRegions() == 0) {
    return success();
  }
  return op->emitError() << kPrefix << "cannot encode '" << op->getName()
                         << "'";
}

LogicalResult FunctionEncoder::encode(std::vector<uint32_t> &out) {
  if (!func.getBody().hasOneBlock()) {
    return func.emitError() << kPrefix << "export '" << func.getSymName()
                            << "' has control flow";
  }
  if (failed(bindArguments())) {
    return failure();
  }
  for (Operation &op : func.getBody().front()) {
    if (failed(encodeOp(&op))) {
      return failure();
    }
  }
  if (bindingBytes.size() > kernel::kMaxBindings ||
      temporaryBytes.size() > kernel::kMaxTemporaries ||
      data.size() > kernel::kMaxConstantData) {
    return func.emitError() << kPrefix << "export '" << func.getSymName()
                            << "' has too many bindings or temporaries";
  }
  uint64_t local = uint64_t(maxRegisters) * kernel::kRegisterBytes;
  for (uint64_t bytes : temporaryBytes) {
    local = (local + bytes + 63) & ~uint64_t(63);
  }
  if (local > kernel::kMaxLocalMemory) {
    return func.emitError()
           << kPrefix << "export '" << func.getSymName() << "' needs " << local
           << " bytes of temporaries, more than the " << kernel::kMaxLocalMemory
           << " of workgroup local memory";
  }
  // Temporaries and constant data follow the bindings.
  uint32_t bindings = static_cast<uint32_t>(bindingBytes.size());
  uint32_t temporaries = static_cast<uint32_t>(temporaryBytes.size());
  auto remap = [&](uint32_t &slot) {
    if (slot >= kDataSlotBase) {
      slot = slot - kDataSlotBase + bindings + temporaries;
    } else if (slot >= kernel::kMaxBindings) {
      slot = slot - kernel::kMaxBindings + bindings;
    }
  };
  for (auto &requirement : requirements) {
    remap(requirement.first);
  }
  for (size_t at = 0; at < code.size();) {
    uint32_t inst = code[at];
    if (inst == static_cast<uint32_t>(kernel::Inst::Generic)) {
      uint32_t rank = code[at + 1];
      size_t p = at + 2 + 2 * rank + 1;
      uint32_t operands = code[p];
      uint32_t outputs = code[p + 1];
      p += 2;
      for (uint32_t i = 0; i < operands; ++i) {
        remap(code[p]);
        p += 4 + 2 * rank;
      }
      uint32_t bodyCount = code[p];
      at = p + 1 + bodyCount * kernel::kBodyWords + outputs;
    } else {
      size_t p = at + 5;
      for (int i = 0; i < 3; ++i) {
        remap(code[p]);
        p += 10;
      }
      at = p;
    }
  }

  if (instructions == 1 && temporaryBytes.empty()) {
    workgroups = std::max<uint32_t>(1, lastSplit);
  }
  StringRef name = func.getSymName();
  if (name.empty() || name.size() > kernel::kMaxNameLength) {
    return func.emitError()
           << kPrefix << "export name '" << name << "' is empty or too long";
  }
  out.push_back(static_cast<uint32_t>(name.size()));
  size_t nameWords = (name.size() + 3) / 4;
  size_t start = out.size();
  out.resize(start + nameWords, 0);
  std::memcpy(out.data() + start, name.data(), name.size());
  out.push_back(bindings);
  out.push_back(constantWords);
  for (uint64_t bytes : bindingBytes) {
    push64(out, bytes);
  }
  out.push_back(static_cast<uint32_t>(temporaryBytes.size()));
  for (uint64_t bytes : temporaryBytes) {
    push64(out, bytes);
  }
  out.push_back(static_cast<uint32_t>(data.size()));
  for (const std::vector<uint8_t> &blob : data) {
    push64(out, blob.size());
    // The data starts at an even word: 8-byte aligned in the runtime's
    // copy (which starts 64-byte aligned).
    bool pad = (out.size() + 1) % 2 != 0;
    out.push_back(pad ? 1 : 0);
    if (pad) {
      out.push_back(0);
    }
    size_t start = out.size();
    out.resize(start + (blob.size() + 3) / 4, 0);
    if (!blob.empty()) {
      std::memcpy(out.data() + start, blob.data(), blob.size());
    }
  }
  // Dynamic shapes: the shape instruction leads the code; its patches name
  // words of the code after it.
  std::vector<uint32_t> shapeWords;
  if (!shape.ops.empty()) {
    if (shape.ops.size() > kernel::kMaxValues) {
      return func.emitError()
             << kPrefix << "export '" << func.getSymName() << "' needs "
             << shape.ops.size() << " run-time values (at most "
             << kernel::kMaxValues << ")";
    }
    uint32_t length =
        static_cast<uint32_t>(4 + 3 * shape.ops.size() +
                              2 * requirements.size() + 2 * patches.size());
    shapeWords.push_back(static_cast<uint32_t>(kernel::Inst::Shape));
    shapeWords.push_back(static_cast<uint32_t>(shape.ops.size()));
    for (const std::array<uint32_t, 3> &op : shape.ops) {
      shapeWords.insert(shapeWords.end(), op.begin(), op.end());
    }
    shapeWords.push_back(static_cast<uint32_t>(requirements.size()));
    for (auto [binding, value] : requirements) {
      shapeWords.push_back(binding);
      shapeWords.push_back(value);
    }
    shapeWords.push_back(static_cast<uint32_t>(patches.size()));
    for (auto [field, value] : patches) {
      shapeWords.push_back(field + length);
      shapeWords.push_back(value);
    }
  }
  out.push_back(maxRegisters);
  out.push_back(static_cast<uint32_t>(shapeWords.size() + code.size()));
  out.insert(out.end(), shapeWords.begin(), shapeWords.end());
  out.insert(out.end(), code.begin(), code.end());
  return success();
}

} // namespace

void encodeProgramHeader(uint32_t exportCount, std::vector<uint32_t> &words) {
  words.push_back(kernel::kMagic);
  words.push_back(kernel::kVersion);
  words.push_back(kernel::kTableDigest);
  words.push_back(exportCount);
}

LogicalResult encodeExport(func::FuncOp func, unsigned inputCount,
                           std::vector<uint32_t> &words, uint32_t &workgroups) {
  FunctionEncoder encoder(func, inputCount);
  if (failed(encoder.encode(words))) {
    return failure();
  }
  workgroups = encoder.workgroups;
  return success();
}

} // namespace mlir::strata::portable
