// SequenceOps.cpp - ONNX sequences and optionals as lists of tensors on the
// host (!util.list): SequenceEmpty, SequenceConstruct, SequenceInsert,
// SequenceErase, SequenceAt, SequenceLength, SplitToSequence,
// ConcatFromSequence, Optional, OptionalHasElement and OptionalGetElement
// (SequenceMap, a loop over a subgraph, is in ControlFlowOps.cpp).
//
// ONNX values are immutable and a util.list is a reference, so every op
// that makes a sequence from another makes a new list (a host loop copies
// the element references, never their data). A list of unsigned ONNX
// tensors says so in its type (`!util.list<tensor<?xui8>>`, what the
// reflection records) but holds them signless, as the program holds every
// unsigned tensor: reads give the signless tensor, marked unsigned.

#include "Lowering.h"

#include "Strata/Dialect/Util/IR/UtilOps.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

bool mlir::strata::onnx::takesLists(llvm::StringRef opType) {
  static const llvm::StringSet<> opTypes = {"Identity",
                                            "If",
                                            "Loop",
                                            "SequenceMap",
                                            "SequenceInsert",
                                            "SequenceErase",
                                            "SequenceAt",
                                            "SequenceLength",
                                            "ConcatFromSequence",
                                            "Optional",
                                            "OptionalHasElement",
                                            "OptionalGetElement"};
  return opTypes.contains(opType);
}

Type mlir::strata::onnx::joinValueTypes(Type a, Type b) {
  if (a == b) {
    return a;
  }
  if (isa<NoneType>(a)) {
    return b;
  }
  if (isa<NoneType>(b)) {
    return a;
  }
  auto listA = dyn_cast<util::ListType>(a);
  auto listB = dyn_cast<util::ListType>(b);
  if (listA && listB) {
    Type element =
        joinValueTypes(listA.getElementType(), listB.getElementType());
    return element ? util::ListType::get(a.getContext(), element) : Type();
  }
  auto tensorA = dyn_cast<TensorType>(a);
  auto tensorB = dyn_cast<TensorType>(b);
  if (!tensorA || !tensorB ||
      tensorA.getElementType() != tensorB.getElementType()) {
    return {};
  }
  auto rankedA = dyn_cast<RankedTensorType>(a);
  auto rankedB = dyn_cast<RankedTensorType>(b);
  if (!rankedA || !rankedB || rankedA.getRank() != rankedB.getRank()) {
    return UnrankedTensorType::get(tensorA.getElementType());
  }
  SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip(rankedA.getShape(), rankedB.getShape())) {
    shape.push_back(x == y ? x : ShapedType::kDynamic);
  }
  return RankedTensorType::get(shape, tensorA.getElementType());
}

Value mlir::strata::onnx::castValueTo(OpBuilder &b, Location loc, Value value,
                                      Type type) {
  if (value.getType() == type) {
    return value;
  }
  if (isa<util::ListType>(type)) {
    return util::ListCastOp::create(b, loc, type, value);
  }
  return tensor::CastOp::create(b, loc, type, value);
}

Value mlir::strata::onnx::listSize(OpBuilder &b, Location loc, Value list) {
  return util::ListSizeOp::create(b, loc, list);
}

Value mlir::strata::onnx::newList(OpBuilder &b, Location loc,
                                  util::ListType type, Value size) {
  Value list = util::ListCreateOp::create(b, loc, type, size);
  util::ListResizeOp::create(b, loc, list, size);
  return list;
}

namespace {

/// The ONNX type of input `i` as a sequence element: an unsigned tensor's
/// own type (`tensor<3xui8>`), which the list's type keeps, so that what
/// reads an element gives it back unsigned and the reflection says so.
Type elementTypeOf(Node &n, unsigned i) {
  return n.op.getInputs()[i].getType();
}

/// Whether a list's element type is of unsigned ONNX tensors.
bool isUnsignedElement(Type element) {
  auto tensor = dyn_cast<TensorType>(element);
  return tensor && tensor.getElementType().isUnsignedInteger();
}

/// A list's element type as the program holds its elements: an unsigned
/// ONNX tensor is the signless tensor of its width (as everywhere else),
/// so a read gives the type the run-time check of the element expects.
Type storedType(Type element) {
  if (!isUnsignedElement(element)) {
    return element;
  }
  auto tensor = cast<TensorType>(element);
  return tensor.cloneWith(
      std::nullopt,
      IntegerType::get(element.getContext(),
                       tensor.getElementType().getIntOrFloatBitWidth()));
}

/// Element `at` of `list`, as the program holds it (see storedType).
Value getElement(OpBuilder &b, Location loc, Value list, Value at) {
  Type element = cast<util::ListType>(list.getType()).getElementType();
  return util::ListGetOp::create(b, loc, storedType(element), list, at);
}

/// Slice `at` (of `size` along `axis`) of `input`; without the axis when
/// `dropAxis` (then `size` is 1).
Value sliceAlong(OpBuilder &b, Location loc, Value input, int64_t axis,
                 OpFoldResult at, OpFoldResult size, bool dropAxis) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = dimsOf(b, loc, input);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  offsets[axis] = at;
  sizes[axis] = size;
  SmallVector<int64_t> shape = staticShapeOf(sizes);
  if (dropAxis) {
    shape.erase(shape.begin() + axis);
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, resultType, input, offsets,
                                        sizes, strides);
}

/// Copies `count` elements of `source` from `from` into `dest` at `to`,
/// on the host (references only).
void copyElements(OpBuilder &b, Location loc, Value source, Value from,
                  Value dest, Value to, Value count) {
  // A list of `none` elements (SequenceEmpty's, an empty optional's) is
  // always empty: there is nothing to copy, and no type to read one as.
  if (isa<NoneType>(cast<util::ListType>(source.getType()).getElementType())) {
    return;
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  scf::ForOp::create(b, loc, zero, count, one, ValueRange{},
                     [&](OpBuilder &nb, Location l, Value i, ValueRange) {
                       Value at = arith::AddIOp::create(nb, l, from, i);
                       Value value = getElement(nb, l, source, at);
                       Value into = arith::AddIOp::create(nb, l, to, i);
                       util::ListSetOp::create(nb, l, dest, into, value);
                       scf::YieldOp::create(nb, l);
                     });
}

/// The list of input `i`, or a failure naming the input when it is not a
/// sequence.
FailureOr<Value> listIn(Node &n, unsigned i, llvm::StringRef what) {
  Value value = n.has(i) ? n.op.getInputs()[i] : Value();
  if (!value || !isa<util::ListType>(value.getType())) {
    return n.fail("input " + llvm::Twine(i) + " (" + what + ") is " +
                  (value ? typeText(value.getType()) : std::string("absent")) +
                  ", not a sequence");
  }
  return value;
}

/// Input `i` (a position: one integer) as an index normalized against
/// `size` (a negative position counts from the end), checked at run time
/// to lie in [0, size) (or [0, size] when `end` is allowed).
FailureOr<Value> position(Node &n, unsigned i, Value size, bool end) {
  if (!n.has(i)) {
    return Value();
  }
  auto type = dyn_cast<RankedTensorType>(n.in(i).getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() != 1 ||
      !isa<IntegerType>(type.getElementType())) {
    return n.fail("the position (input " + llvm::Twine(i) + ") has the type " +
                  typeText(n.op.getInputs()[i].getType()) +
                  "; it must hold one integer");
  }
  Location loc = n.loc;
  OpBuilder &b = n.b;
  Type i64 = b.getI64Type();
  Value raw = n.hostScalarIn(i);
  if (!raw.getType().isInteger(64)) {
    raw = arith::ExtSIOp::create(b, loc, i64, raw);
  }
  Value count = arith::IndexCastOp::create(b, loc, i64, size);
  Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, raw, zero);
  Value shifted = arith::AddIOp::create(b, loc, raw, count);
  Value at = arith::SelectOp::create(b, loc, negative, shifted, raw);
  Value above =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, at, zero);
  Value below = arith::CmpIOp::create(
      b, loc, end ? arith::CmpIPredicate::sle : arith::CmpIPredicate::slt, at,
      count);
  n.check(arith::AndIOp::create(b, loc, above, below),
          end ? "the position is outside the sequence (it may be -n to n "
                "for n elements)"
              : "the position is outside the sequence (it may be -n to n-1 "
                "for n elements)");
  return Value(arith::IndexCastOp::create(b, loc, b.getIndexType(), at));
}

/// A 0-d tensor on the host holding `value`.
Value hostScalarTensor(OpBuilder &b, Location loc, Value value) {
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, value.getType()), ValueRange{value});
}

LogicalResult lowerSequenceEmpty(Node &n) {
  // float, uint8, int8, uint16, int16, int32, int64, bool, float16,
  // double, uint32, uint64, bfloat16: the element types a sequence may
  // hold (not strings, not complex numbers).
  int64_t dtype = n.intAttr("dtype", 1);
  if (!llvm::is_contained({1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 16},
                          dtype)) {
    return n.fail("dtype " + llvm::Twine(dtype) +
                  " is not a supported sequence element type (sequences of "
                  "strings and complex numbers are not supported)");
  }
  // The list holds no element yet: its element type is `none`, which
  // joins the type of the first tensor inserted (a Loop that appends to
  // it carries a list of that type, whose elements SequenceAt and
  // ConcatFromSequence can then read).
  auto type = util::ListType::get(n.op.getContext(), n.b.getNoneType());
  Value zero = arith::ConstantIndexOp::create(n.b, n.loc, 0);
  return n.replace(
      util::ListCreateOp::create(n.b, n.loc, type, zero).getResult());
}

LogicalResult lowerSequenceConstruct(Node &n) {
  if (n.numInputs() == 0) {
    return n.fail("it has no inputs; SequenceEmpty makes an empty sequence");
  }
  Type element = elementTypeOf(n, 0);
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    if (!isa<RankedTensorType>(n.in(i).getType())) {
      return n.fail("input " + llvm::Twine(i) + " has the type " +
                    typeText(n.op.getInputs()[i].getType()) +
                    "; sequence elements are tensors");
    }
    element = joinValueTypes(element, elementTypeOf(n, i));
    if (!element) {
      return n.fail(
          "input " + llvm::Twine(i) + " has the element type " +
          typeText(cast<ShapedType>(elementTypeOf(n, i)).getElementType()) +
          "; input 0 has " +
          typeText(cast<ShapedType>(elementTypeOf(n, 0)).getElementType()));
    }
  }
  auto type = util::ListType::get(n.op.getContext(), element);
  Value size = arith::ConstantIndexOp::create(n.b, n.loc, n.numInputs());
  Value list = newList(n.b, n.loc, type, size);
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    Value at = arith::ConstantIndexOp::create(n.b, n.loc, i);
    util::ListSetOp::create(n.b, n.loc, list, at, n.in(i));
  }
  return n.replace(list);
}

LogicalResult lowerSequenceInsert(Node &n) {
  FailureOr<Value> source = listIn(n, 0, "the sequence");
  if (failed(source)) {
    return failure();
  }
  Value tensorIn = n.in(1);
  if (!tensorIn || !isa<RankedTensorType>(tensorIn.getType())) {
    return n.fail("input 1 (the tensor) is " +
                  typeText(n.op.getInputs()[1].getType()) +
                  "; sequence elements are tensors");
  }
  auto sourceType = cast<util::ListType>(source->getType());
  Type element =
      joinValueTypes(sourceType.getElementType(), elementTypeOf(n, 1));
  if (!element) {
    return n.fail("the tensor is " + typeText(elementTypeOf(n, 1)) +
                  "; the sequence holds " +
                  typeText(sourceType.getElementType()));
  }
  Location loc = n.loc;
  OpBuilder &b = n.b;
  Value size = listSize(b, loc, *source);
  FailureOr<Value> at = position(n, 2, size, /*end=*/true);
  if (failed(at)) {
    return failure();
  }
  Value pos = *at ? *at : size;
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto type = util::ListType::get(n.op.getContext(), element);
  Value list = newList(b, loc, type, arith::AddIOp::create(b, loc, size, one));
  copyElements(b, loc, *source, zero, list, zero, pos);
  Value after = arith::AddIOp::create(b, loc, pos, one);
  copyElements(b, loc, *source, pos, list, after,
               arith::SubIOp::create(b, loc, size, pos));
  util::ListSetOp::create(b, loc, list, pos, tensorIn);
  return n.replace(list);
}

LogicalResult lowerSequenceErase(Node &n) {
  FailureOr<Value> source = listIn(n, 0, "the sequence");
  if (failed(source)) {
    return failure();
  }
  Location loc = n.loc;
  OpBuilder &b = n.b;
  Value size = listSize(b, loc, *source);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  FailureOr<Value> at = position(n, 1, size, /*end=*/false);
  if (failed(at)) {
    return failure();
  }
  Value pos = *at;
  if (!pos) {
    // The last element; an empty sequence has none.
    n.check(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, size, zero),
        "the sequence is empty: there is no element to erase");
    pos = arith::SubIOp::create(b, loc, size, one);
  }
  Value list = newList(b, loc, cast<util::ListType>(source->getType()),
                       arith::SubIOp::create(b, loc, size, one));
  copyElements(b, loc, *source, zero, list, zero, pos);
  Value next = arith::AddIOp::create(b, loc, pos, one);
  copyElements(b, loc, *source, next, list, pos,
               arith::SubIOp::create(b, loc, size, next));
  return n.replace(list);
}

LogicalResult lowerSequenceAt(Node &n) {
  FailureOr<Value> source = listIn(n, 0, "the sequence");
  if (failed(source)) {
    return failure();
  }
  Type element = cast<util::ListType>(source->getType()).getElementType();
  if (!isa<RankedTensorType, util::ListType>(element)) {
    return n.fail("the sequence's elements are " + typeText(element) +
                  ", of no known rank; declare the sequence's element shape "
                  "in the model");
  }
  Value size = listSize(n.b, n.loc, *source);
  FailureOr<Value> at = position(n, 1, size, /*end=*/false);
  if (failed(at)) {
    return failure();
  }
  return n.replace(getElement(n.b, n.loc, *source, *at),
                   {isUnsignedElement(element)});
}

LogicalResult lowerSequenceLength(Node &n) {
  FailureOr<Value> source = listIn(n, 0, "the sequence");
  if (failed(source)) {
    return failure();
  }
  Value size = listSize(n.b, n.loc, *source);
  Value length = arith::IndexCastOp::create(n.b, n.loc, n.b.getI64Type(), size);
  return n.replace(hostScalarTensor(n.b, n.loc, length));
}

/// SplitToSequence whose input has dynamic dimensions or whose `split` is
/// known only at run time: host loops make the slices, one per element,
/// their number and sizes computed (and checked) at run time.
LogicalResult lowerSplitToSequenceAtRunTime(Node &n, int64_t axis,
                                            bool keepDims) {
  Location loc = n.loc;
  OpBuilder &b = n.b;
  Value input = n.in(0);
  Type onnxElement = cast<ShapedType>(elementTypeOf(n, 0)).getElementType();
  Type i64 = b.getI64Type();
  Value length = indexValueOf(b, loc, n.dim(0, axis));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<int64_t> shape(n.shape(0));
  auto listOf = [&](ArrayRef<int64_t> elementShape) {
    return util::ListType::get(
        n.op.getContext(), RankedTensorType::get(elementShape, onnxElement));
  };
  if (!n.has(1)) {
    // Slices of 1, with or without the axis.
    if (keepDims) {
      shape[axis] = 1;
    } else {
      shape.erase(shape.begin() + axis);
    }
    Value list = newList(b, loc, listOf(shape), length);
    scf::ForOp::create(b, loc, zero, length, one, ValueRange{},
                       [&](OpBuilder &lb, Location l, Value i, ValueRange) {
                         Value part = sliceAlong(lb, l, input, axis, i,
                                                 lb.getIndexAttr(1),
                                                 /*dropAxis=*/!keepDims);
                         util::ListSetOp::create(lb, l, list, i, part);
                         scf::YieldOp::create(lb, l);
                       });
    return n.replace(list);
  }
  RankedTensorType splitType = n.type(1);
  if (!isa<IntegerType>(splitType.getElementType()) ||
      splitType.getRank() > 1) {
    return n.fail("the split (input 1) has the type " + typeText(splitType) +
                  "; it must be an integer scalar or a 1-D integer tensor");
  }
  // The split ignores keepdims: every element keeps the axis.
  shape[axis] = ShapedType::kDynamic;
  Value list;
  if (splitType.getRank() == 0) {
    // Chunks of the scalar's size, the last one shorter when it does not
    // divide the axis.
    Value raw = n.hostScalarIn(1);
    if (!raw.getType().isInteger(64)) {
      raw = arith::ExtSIOp::create(b, loc, i64, raw);
    }
    n.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, raw,
                                  arith::ConstantIntOp::create(b, loc, i64, 0)),
            "the split (a scalar, the size of each element) is not positive");
    Value chunk = arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
    Value count = arith::CeilDivUIOp::create(b, loc, length, chunk);
    list = newList(b, loc, listOf(shape), count);
    scf::ForOp::create(
        b, loc, zero, count, one, ValueRange{},
        [&](OpBuilder &lb, Location l, Value k, ValueRange) {
          Value offset = arith::MulIOp::create(lb, l, k, chunk);
          Value rest = arith::SubIOp::create(lb, l, length, offset);
          Value size = arith::MinUIOp::create(lb, l, chunk, rest);
          Value part = sliceAlong(lb, l, input, axis, offset, size,
                                  /*dropAxis=*/false);
          util::ListSetOp::create(lb, l, list, k, part);
          scf::YieldOp::create(lb, l);
        });
    return n.replace(list);
  }
  // One element per size. Each size is read on the host (the split may be
  // a kernel's result); they must not be negative and must add up to the
  // axis's length, which the first loop checks before any slice is taken.
  Value sizes = n.in(1);
  Value count = indexValueOf(b, loc, n.dim(1, 0));
  Value lengthI64 = arith::IndexCastOp::create(b, loc, i64, length);
  auto readSize = [&](OpBuilder &lb, Location l, Value k) -> Value {
    Value value = tensor::ExtractOp::create(lb, l, sizes, ValueRange{k});
    if (!value.getType().isInteger(64)) {
      value = arith::ExtSIOp::create(lb, l, i64, value);
    }
    return value;
  };
  Value zeroI64 = arith::ConstantIntOp::create(b, loc, i64, 0);
  Value trueValue = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  // The sum saturates at length + 1 (a size above the length goes
  // straight there), so it cannot overflow and a sum too large stays
  // unequal to the length.
  Value past = arith::AddIOp::create(
      b, loc, lengthI64, arith::ConstantIntOp::create(b, loc, i64, 1));
  auto sum = scf::ForOp::create(
      b, loc, zero, count, one, ValueRange{zeroI64, trueValue},
      [&](OpBuilder &lb, Location l, Value k, ValueRange args) {
        Value size = readSize(lb, l, k);
        Value positive = arith::CmpIOp::create(lb, l, arith::CmpIPredicate::sge,
                                               size, zeroI64);
        Value bounded = arith::CmpIOp::create(lb, l, arith::CmpIPredicate::sle,
                                              size, lengthI64);
        Value total = arith::SelectOp::create(
            lb, l, bounded, arith::AddIOp::create(lb, l, args[0], size), past);
        total = arith::MinSIOp::create(lb, l, total, past);
        scf::YieldOp::create(
            lb, l,
            ValueRange{total, arith::AndIOp::create(lb, l, args[1], positive)});
      });
  n.check(sum.getResult(1), "the split has a negative size");
  n.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                sum.getResult(0), lengthI64),
          "the split's sizes do not add up to the length of axis " +
              llvm::Twine(axis) + " of the input");
  list = newList(b, loc, listOf(shape), count);
  scf::ForOp::create(
      b, loc, zero, count, one, ValueRange{zero},
      [&](OpBuilder &lb, Location l, Value k, ValueRange args) {
        Value size = arith::IndexCastOp::create(lb, l, lb.getIndexType(),
                                                readSize(lb, l, k));
        Value part = sliceAlong(lb, l, input, axis, args[0], size,
                                /*dropAxis=*/false);
        util::ListSetOp::create(lb, l, list, k, part);
        scf::YieldOp::create(
            lb, l, ValueRange{arith::AddIOp::create(lb, l, args[0], size)});
      });
  return n.replace(list);
}

/// The most elements SplitToSequence makes as separate slices at compile
/// time; more are made by a host loop.
constexpr int64_t kUnrolledSplit = 4096;

LogicalResult lowerSplitToSequence(Node &n) {
  FailureOr<int64_t> axis = n.axis(n.intAttr("axis", 0), n.rank(0));
  if (failed(axis)) {
    return failure();
  }
  bool keepDims = n.intAttr("keepdims", 1) != 0;
  // A static input split by constant sizes (or into slices of 1): each
  // slice of its own static type, made here. Otherwise at run time.
  DenseElementsAttr constantSplit = n.has(1) ? n.constant(1) : nullptr;
  if (!n.type(0).hasStaticShape() || (n.has(1) && !constantSplit) ||
      (!n.has(1) && n.shape(0)[*axis] > kUnrolledSplit)) {
    return lowerSplitToSequenceAtRunTime(n, *axis, keepDims);
  }
  int64_t length = n.shape(0)[*axis];
  SmallVector<int64_t> sizes;
  if (n.has(1)) {
    FailureOr<SmallVector<int64_t>> split = n.constInts(1, "the split");
    if (failed(split)) {
      return failure();
    }
    if (n.rank(1) == 0) {
      int64_t chunk = (*split)[0];
      if (chunk <= 0) {
        return n.fail("the split " + llvm::Twine(chunk) +
                      " is not a positive size");
      }
      if ((length + chunk - 1) / chunk > kUnrolledSplit) {
        return lowerSplitToSequenceAtRunTime(n, *axis, keepDims);
      }
      for (int64_t start = 0; start < length; start += chunk) {
        sizes.push_back(std::min(chunk, length - start));
      }
    } else {
      int64_t total = 0;
      for (int64_t size : *split) {
        if (size < 0) {
          return n.fail("the split has a negative size");
        }
        total += size;
        sizes.push_back(size);
      }
      if (total != length) {
        return n.fail("the split's sizes add up to " + llvm::Twine(total) +
                      "; the axis has " + llvm::Twine(length));
      }
      if (static_cast<int64_t>(sizes.size()) > kUnrolledSplit) {
        return lowerSplitToSequenceAtRunTime(n, *axis, keepDims);
      }
    }
    keepDims = true;
  } else {
    sizes.assign(length, 1);
  }
  Location loc = n.loc;
  OpBuilder &b = n.b;
  SmallVector<Value> parts;
  Type element;
  int64_t offset = 0;
  for (int64_t size : sizes) {
    SmallVector<int64_t> offsets(n.rank(0), 0);
    SmallVector<int64_t> shape(n.shape(0));
    SmallVector<int64_t> strides(n.rank(0), 1);
    offsets[*axis] = offset;
    shape[*axis] = size;
    Value part = slice(b, loc, n.in(0), offsets, shape, strides);
    if (!keepDims) {
      shape.erase(shape.begin() + *axis);
      part = reshape(b, loc, part, shape);
    }
    element =
        element ? joinValueTypes(element, part.getType()) : part.getType();
    parts.push_back(part);
    offset += size;
  }
  if (!element) {
    SmallVector<int64_t> shape(n.shape(0));
    shape[*axis] = 0;
    element = RankedTensorType::get(shape, n.elem(0));
  }
  if (n.isUnsigned(0)) {
    element = unsignedTensorType(cast<RankedTensorType>(element));
  }
  auto type = util::ListType::get(n.op.getContext(), element);
  Value list = newList(b, loc, type,
                       arith::ConstantIndexOp::create(b, loc, parts.size()));
  for (auto [i, part] : llvm::enumerate(parts)) {
    util::ListSetOp::create(b, loc, list,
                            arith::ConstantIndexOp::create(b, loc, i), part);
  }
  return n.replace(list);
}

LogicalResult lowerConcatFromSequence(Node &n) {
  FailureOr<Value> source = listIn(n, 0, "the sequence");
  if (failed(source)) {
    return failure();
  }
  Type listElement = cast<util::ListType>(source->getType()).getElementType();
  bool isUnsigned = isUnsignedElement(listElement);
  auto elementType = dyn_cast<RankedTensorType>(storedType(listElement));
  if (!elementType) {
    return n.fail(
        "the sequence's elements are " +
        typeText(cast<util::ListType>(source->getType()).getElementType()) +
        ", of no known rank; declare the sequence's element shape "
        "in the model");
  }
  bool newAxis = n.intAttr("new_axis", 0) != 0;
  int64_t rank = elementType.getRank() + (newAxis ? 1 : 0);
  FailureOr<int64_t> axis = n.axis(n.intAttr("axis", 0), rank);
  if (failed(axis)) {
    return failure();
  }
  Location loc = n.loc;
  OpBuilder &b = n.b;
  Value size = listSize(b, loc, *source);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // ONNX defines no output for an empty sequence: its shape and element
  // type come from the elements.
  n.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, size, zero),
          "the sequence is empty: there is nothing to concatenate (the "
          "output's shape comes from the elements, and ONNX defines no "
          "output for an empty sequence)");
  // Each element, with a unit axis inserted for new_axis.
  auto part = [&](OpBuilder &pb, Location l, Value at) -> Value {
    Value value = getElement(pb, l, *source, at);
    if (!newAxis) {
      return value;
    }
    SmallVector<ReassociationIndices> groups;
    for (int64_t d = 0; d < elementType.getRank(); ++d) {
      groups.push_back({d + (d >= *axis ? 1 : 0)});
    }
    if (elementType.getRank() == 0) {
      return tensor::ExpandShapeOp::create(
          pb, l, RankedTensorType::get({1}, elementType.getElementType()),
          value, ArrayRef<ReassociationIndices>{});
    }
    if (*axis == elementType.getRank()) {
      groups.back().push_back(*axis);
    } else {
      groups[*axis].insert(groups[*axis].begin(), *axis);
    }
    SmallVector<int64_t> shape(elementType.getShape());
    shape.insert(shape.begin() + *axis, 1);
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
      int64_t from = d - (d > *axis ? 1 : 0);
      if (d == *axis) {
        sizes.push_back(pb.getIndexAttr(1));
      } else if (ShapedType::isDynamic(shape[d])) {
        sizes.push_back(tensor::DimOp::create(pb, l, value, from).getResult());
      } else {
        sizes.push_back(pb.getIndexAttr(shape[d]));
      }
    }
    return tensor::ExpandShapeOp::create(
        pb, l, RankedTensorType::get(shape, elementType.getElementType()),
        value, groups, sizes);
  };
  Value first = part(b, loc, zero);
  auto firstType = cast<RankedTensorType>(first.getType());
  SmallVector<int64_t> accShape(firstType.getShape());
  accShape[*axis] = ShapedType::kDynamic;
  auto accType = RankedTensorType::get(accShape, firstType.getElementType());
  Value init = tensor::CastOp::create(b, loc, accType, first);
  init = util::OptimizationBarrierOp::create(b, loc, TypeRange{accType},
                                             ValueRange{init})
             .getResult(0);
  auto loop = scf::ForOp::create(
      b, loc, one, size, one, ValueRange{init},
      [&](OpBuilder &lb, Location l, Value i, ValueRange args) {
        Value next = part(lb, l, i);
        Value joined =
            tensor::ConcatOp::create(lb, l, *axis, ValueRange{args[0], next});
        scf::YieldOp::create(lb, l, castValueTo(lb, l, joined, accType));
      });
  return n.replace(loop.getResult(0), {isUnsigned});
}

LogicalResult lowerOptional(Node &n) {
  Location loc = n.loc;
  if (!n.has(0)) {
    // An empty optional; its element type is what the model declares for
    // the output, when it does.
    Type element = n.b.getNoneType();
    Type declared = n.op.getOutputs()[0].getType();
    if (auto list = dyn_cast<util::ListType>(declared)) {
      element = list.getElementType();
    }
    Value zero = arith::ConstantIndexOp::create(n.b, loc, 0);
    return n.replace(
        util::ListCreateOp::create(
            n.b, loc, util::ListType::get(n.op.getContext(), element), zero)
            .getResult());
  }
  // An unsigned tensor is held signless; the list's type says unsigned.
  Value value = n.in(0);
  Value one = arith::ConstantIndexOp::create(n.b, loc, 1);
  Value list =
      newList(n.b, loc,
              util::ListType::get(n.op.getContext(), elementTypeOf(n, 0)), one);
  util::ListSetOp::create(n.b, loc, list,
                          arith::ConstantIndexOp::create(n.b, loc, 0), value);
  return n.replace(list);
}

LogicalResult lowerOptionalHasElement(Node &n) {
  Location loc = n.loc;
  Value has;
  if (!n.has(0)) {
    has = arith::ConstantIntOp::create(n.b, loc, n.b.getI1Type(), 0);
  } else if (isa<util::ListType>(n.op.getInputs()[0].getType())) {
    Value size = listSize(n.b, loc, n.op.getInputs()[0]);
    Value zero = arith::ConstantIndexOp::create(n.b, loc, 0);
    has =
        arith::CmpIOp::create(n.b, loc, arith::CmpIPredicate::ugt, size, zero);
  } else {
    // A tensor (opset 18 takes one): it is there.
    has = arith::ConstantIntOp::create(n.b, loc, n.b.getI1Type(), 1);
  }
  return n.replace(hostScalarTensor(n.b, loc, has));
}

LogicalResult lowerOptionalGetElement(Node &n) {
  Value value = n.op.getInputs()[0];
  auto type = dyn_cast<util::ListType>(value.getType());
  if (!type) {
    // A tensor (opset 18): itself.
    return n.replace(n.in(0), {n.isUnsigned(0)});
  }
  if (!isa<RankedTensorType, util::ListType>(type.getElementType())) {
    return n.fail("the optional's element is " +
                  typeText(type.getElementType()) +
                  ", of no known rank or type");
  }
  Location loc = n.loc;
  Value size = listSize(n.b, loc, value);
  Value zero = arith::ConstantIndexOp::create(n.b, loc, 0);
  n.check(
      arith::CmpIOp::create(n.b, loc, arith::CmpIPredicate::ugt, size, zero),
      "the optional is empty");
  return n.replace(getElement(n.b, loc, value, zero),
                   {isUnsignedElement(type.getElementType())});
}

} // namespace

void mlir::strata::onnx::addSequenceLowerings(LoweringTable &table) {
  table["SequenceEmpty"] = lowerSequenceEmpty;
  table["SequenceConstruct"] = lowerSequenceConstruct;
  table["SequenceInsert"] = lowerSequenceInsert;
  table["SequenceErase"] = lowerSequenceErase;
  table["SequenceAt"] = lowerSequenceAt;
  table["SequenceLength"] = lowerSequenceLength;
  table["SplitToSequence"] = lowerSplitToSequence;
  table["ConcatFromSequence"] = lowerConcatFromSequence;
  table["Optional"] = lowerOptional;
  table["OptionalHasElement"] = lowerOptionalHasElement;
  table["OptionalGetElement"] = lowerOptionalGetElement;
  table.allowDynamic({"SequenceEmpty", "SequenceConstruct", "SequenceInsert",
                      "SequenceErase", "SequenceAt", "SequenceLength",
                      "SplitToSequence", "ConcatFromSequence", "Optional",
                      "OptionalHasElement", "OptionalGetElement"});
}
