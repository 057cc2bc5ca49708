// SequenceOps.cpp - ONNX sequences and optionals as lists of tensors on the
// host (!util.list): SequenceEmpty, SequenceConstruct, SequenceInsert,
// SequenceErase, SequenceAt, SequenceLength, SplitToSequence,
// ConcatFromSequence, Optional, OptionalHasElement and OptionalGetElement
// (SequenceMap, a loop over a subgraph, is in ControlFlowOps.cpp).
//
// ONNX values are immutable and a util.list is a reference, so every op
// that makes a sequence from another makes a new list (a host loop copies
// the element references, never their data).

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

/// Copies `count` elements of `source` from `from` into `dest` at `to`,
/// on the host (references only).
void copyElements(OpBuilder &b, Location loc, Value source, Value from,
                  Value dest, Value to, Value count) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Type element = cast<util::ListType>(source.getType()).getElementType();
  scf::ForOp::create(b, loc, zero, count, one, ValueRange{},
                     [&](OpBuilder &nb, Location l, Value i, ValueRange) {
                       Value at = arith::AddIOp::create(nb, l, from, i);
                       Value value =
                           util::ListGetOp::create(nb, l, element, source, at);
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
  // float, int8, int16, int32, int64, bool, float16, double, bfloat16:
  // the element types a sequence may hold (not unsigned ones, not strings).
  int64_t dtype = n.intAttr("dtype", 1);
  if (!llvm::is_contained({1, 3, 5, 6, 7, 9, 10, 11, 16}, dtype)) {
    return n.fail("dtype " + llvm::Twine(dtype) +
                  " is not a supported sequence element type (sequences of "
                  "unsigned tensors and strings are not supported)");
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
  Type element = n.in(0).getType();
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    if (!isa<RankedTensorType>(n.in(i).getType()) || n.isUnsigned(i)) {
      return n.fail("input " + llvm::Twine(i) + " has the type " +
                    typeText(n.op.getInputs()[i].getType()) +
                    "; sequence elements are signed or float tensors");
    }
    element = joinValueTypes(element, n.in(i).getType());
    if (!element) {
      return n.fail("input " + llvm::Twine(i) + " has the element type " +
                    typeText(n.elem(i)) + "; input 0 has " +
                    typeText(n.elem(0)));
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
  if (!tensorIn || !isa<RankedTensorType>(tensorIn.getType()) ||
      n.isUnsigned(1)) {
    return n.fail("input 1 (the tensor) is " +
                  typeText(n.op.getInputs()[1].getType()) +
                  "; sequence elements are signed or float tensors");
  }
  auto sourceType = cast<util::ListType>(source->getType());
  Type element =
      joinValueTypes(sourceType.getElementType(), tensorIn.getType());
  if (!element) {
    return n.fail("the tensor is " + typeText(tensorIn.getType()) +
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
  return n.replace(
      util::ListGetOp::create(n.b, n.loc, element, *source, *at).getResult());
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

LogicalResult lowerSplitToSequence(Node &n) {
  if (!n.type(0).hasStaticShape()) {
    return n.fail("input 0 has the type " + typeText(n.type(0)) +
                  "; SplitToSequence takes static shapes only");
  }
  FailureOr<int64_t> axis = n.axis(n.intAttr("axis", 0), n.rank(0));
  if (failed(axis)) {
    return failure();
  }
  int64_t length = n.shape(0)[*axis];
  SmallVector<int64_t> sizes;
  bool keepDims = n.intAttr("keepdims", 1) != 0;
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
    }
    keepDims = true;
  } else {
    sizes.assign(length, 1);
  }
  if (sizes.size() > 4096) {
    return n.fail("the split makes " + llvm::Twine(sizes.size()) +
                  " elements; at most 4096 are supported");
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
  auto elementType = dyn_cast<RankedTensorType>(
      cast<util::ListType>(source->getType()).getElementType());
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
  n.check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, size, zero),
          "the sequence is empty: there is nothing to concatenate");
  // Each element, with a unit axis inserted for new_axis.
  auto part = [&](OpBuilder &pb, Location l, Value at) -> Value {
    Value value = util::ListGetOp::create(pb, l, elementType, *source, at);
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
  return n.replace(loop.getResult(0));
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
  Value value = n.op.getInputs()[0];
  if (n.isUnsigned(0)) {
    return n.fail("input 0 is an unsigned tensor; optionals of unsigned "
                  "tensors are not supported");
  }
  value = n.in(0);
  Value one = arith::ConstantIndexOp::create(n.b, loc, 1);
  Value list = newList(
      n.b, loc, util::ListType::get(n.op.getContext(), value.getType()), one);
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
  return n.replace(
      util::ListGetOp::create(n.b, loc, type.getElementType(), value, zero)
          .getResult());
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
                      "ConcatFromSequence", "Optional", "OptionalHasElement",
                      "OptionalGetElement"});
}
