// ControlFlowOps.cpp - ONNX's If, Loop and Scan as host control flow: each
// subgraph's nodes are lowered like the graph's, then moved into an
// scf.if, scf.for or scf.while that carries tensors on the host, so the
// kernels of a branch or a body are dispatched like any others.
//
// A subgraph reads the values of the enclosing scopes directly (the
// importer resolved its names), and it is lowered with the types of what
// the node passes in. Loop-carried values may change shape from one
// iteration to the next (a growing tensor): the body is lowered with the
// initial values' types, and while a value comes out of an iteration with
// another shape, the dimensions that differ become dynamic and the body is
// lowered again from its unlowered copy. Scan outputs (Loop's and Scan's)
// are concatenated along their axis iteration by iteration.

#include "Lowering.h"

#include "Strata/Dialect/Util/IR/UtilOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

/// A lowered copy of one of a node's subgraphs.
struct Body {
  /// A copy of the node; the lowered subgraph is its region's block.
  NodeOp holder;
  Block *block = nullptr;
  /// The subgraph's outputs as signless tensors, and which of them are
  /// unsigned ONNX tensors.
  SmallVector<Value> results;
  SmallVector<bool> unsignedResults;
  /// The scalars read from the inputs given as host scalars (see
  /// lowerCopy), folded when the body is inlined.
  SmallVector<tensor::ExtractOp> hostReads;
};

bool hasUnsignedElements(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.getElementType().isUnsignedInteger();
}

/// The type both `a` and `b` are instances of: their dimensions where they
/// agree and dynamic where they do not. Null when the ranks or element
/// types differ.
RankedTensorType joinTypes(RankedTensorType a, RankedTensorType b) {
  if (a.getRank() != b.getRank() || a.getElementType() != b.getElementType()) {
    return {};
  }
  SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip(a.getShape(), b.getShape())) {
    shape.push_back(x == y ? x : ShapedType::kDynamic);
  }
  return RankedTensorType::get(shape, a.getElementType());
}

/// joinTypes for tensors; for sequences and optionals (lists), the join of
/// their element types. Null when they have nothing in common.
Type joinAny(Type a, Type b) {
  auto tensorA = dyn_cast<RankedTensorType>(a);
  auto tensorB = dyn_cast<RankedTensorType>(b);
  if (tensorA && tensorB) {
    return joinTypes(tensorA, tensorB);
  }
  if (isa<util::ListType>(a) && isa<util::ListType>(b)) {
    return joinValueTypes(a, b);
  }
  return {};
}

Value castTo(OpBuilder &b, Location loc, Value value, Type type) {
  return castValueTo(b, loc, value, type);
}

/// `value` as the first value of a loop that carries `type` (less static
/// than the value's): a cast behind a barrier. Upstream's scf.for
/// canonicalization would otherwise fold the cast into the loop and carry
/// the initial, static type, which a value whose shape changes (a growing
/// tensor, a scan output) does not keep.
Value loopInit(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type) {
    return value;
  }
  if (isa<util::ListType>(type)) {
    return castValueTo(b, loc, value, type);
  }
  Value cast = tensor::CastOp::create(b, loc, type, value);
  return util::OptimizationBarrierOp::create(b, loc, TypeRange{type},
                                             ValueRange{cast})
      .getResult(0);
}

/// Lowers a copy of the node's subgraph `name` whose inputs are of
/// `types` (`unsignedArgs` marks unsigned ONNX tensors). The node's own
/// region stays as it is, so the subgraph can be lowered again with other
/// types. The first `hostArgs` inputs (a Loop's iteration number and
/// condition) are one-element tensors the loop makes from scalars: the
/// body sees them as host vectors, so arithmetic on the iteration number
/// stays on the host rather than becoming kernels.
FailureOr<Body> lowerCopy(Node &n, llvm::StringRef name, ArrayRef<Type> types,
                          ArrayRef<bool> unsignedArgs, unsigned hostArgs = 0) {
  Region *region = n.op.subgraph(name);
  if (!region) {
    return n.fail("the graph attribute '" + name + "' is missing");
  }
  if (region->front().getNumArguments() != types.size()) {
    return n.fail("the '" + name + "' graph takes " +
                  llvm::Twine(region->front().getNumArguments()) +
                  " inputs; the node gives it " + llvm::Twine(types.size()));
  }
  n.b.setInsertionPoint(n.op);
  Body body;
  body.holder = cast<NodeOp>(n.b.clone(*n.op));
  body.block = &body.holder.getSubgraphs()[region->getRegionNumber()].front();
  for (auto [arg, type, isUnsigned] :
       llvm::zip(body.block->getArguments(), types, unsignedArgs)) {
    arg.setType(isUnsigned ? unsignedTensorType(cast<RankedTensorType>(type))
                           : type);
  }
  n.b.setInsertionPointToStart(body.block);
  for (unsigned a = 0; a < hostArgs; ++a) {
    BlockArgument arg = body.block->getArgument(a);
    auto read = tensor::ExtractOp::create(n.b, n.loc, arg, ValueRange{});
    Value vector = tensor::FromElementsOp::create(n.b, n.loc, arg.getType(),
                                                  ValueRange{read});
    arg.replaceAllUsesExcept(vector, read);
    body.hostReads.push_back(read);
  }
  if (failed(lowerNodes(*body.block, n.b))) {
    return failure();
  }
  n.b.setInsertionPoint(n.op);
  auto yield = cast<YieldOp>(body.block->getTerminator());
  for (auto [index, value] : llvm::enumerate(yield.getValues())) {
    bool isUnsigned = false;
    if (auto cast = value.getDefiningOp<UnrealizedConversionCastOp>();
        cast && hasUnsignedElements(value.getType())) {
      value = cast.getInputs()[0];
      isUnsigned = true;
    }
    if (!isa<RankedTensorType, util::ListType>(value.getType())) {
      n.b.eraseOp(body.holder);
      return n.fail("output " + llvm::Twine(index) + " of the '" + name +
                    "' graph has the type " + typeText(value.getType()) +
                    ", not a tensor");
    }
    body.results.push_back(value);
    body.unsignedResults.push_back(isUnsigned);
  }
  return body;
}

/// Whether `value` is the body's host input `a` as it came in.
bool isHostArg(Body &body, Value value, unsigned a) {
  auto vector = value.getDefiningOp<tensor::FromElementsOp>();
  return a < body.hostReads.size() && vector &&
         vector.getElements().size() == 1 &&
         vector.getElements()[0] == body.hostReads[a].getResult();
}

/// Moves the body's ops before `point` in `dest`, its inputs replaced by
/// `args`, and erases the copy of the node: the subgraph's outputs, valid
/// there.
SmallVector<Value> inlineBody(Node &n, Body &body, Block *dest,
                              Block::iterator point, ValueRange args) {
  SmallVector<Value> results;
  for (Value value : body.results) {
    auto arg = dyn_cast<BlockArgument>(value);
    results.push_back(
        arg && arg.getOwner() == body.block ? args[arg.getArgNumber()] : value);
  }
  Operation *yield = body.block->getTerminator();
  n.b.inlineBlockBefore(body.block, dest, point, args);
  n.b.eraseOp(yield);
  n.b.eraseOp(body.holder);
  // A scalar read from a tensor the loop made of that scalar is the
  // scalar.
  for (tensor::ExtractOp read : body.hostReads) {
    auto made = read.getTensor().getDefiningOp<tensor::FromElementsOp>();
    if (made && made.getElements().size() == 1) {
      n.b.replaceOp(read, made.getElements()[0]);
    }
  }
  return results;
}

/// An scf.if of `types` whose blocks the callers fill (they end them with
/// scf.yield).
scf::IfOp emptyIf(OpBuilder &b, Location loc, TypeRange types, Value cond) {
  auto ifOp = scf::IfOp::create(b, loc, types, cond, /*addThenBlock=*/false,
                                /*addElseBlock=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&ifOp.getThenRegion());
  b.createBlock(&ifOp.getElseRegion());
  return ifOp;
}

/// `item` appended to `acc` (or put before it: `prepend`) along `axis`,
/// as one more slice of a scan output. `isFirst` (an i1) says whether acc
/// is still the empty start, whose dynamic dimensions are 0: then an item
/// with dynamic dimensions is taken as it is rather than concatenated.
Value appendItem(OpBuilder &b, Location loc, Value acc, Value item,
                 int64_t axis, bool prepend, Value isFirst) {
  auto accType = cast<RankedTensorType>(acc.getType());
  auto itemType = cast<RankedTensorType>(item.getType());
  SmallVector<OpFoldResult> sizes = dimsOf(b, loc, item);
  sizes.insert(sizes.begin() + axis, b.getIndexAttr(1));
  Value expanded = reshapeTo(b, loc, item, sizes);
  auto joined = [&](OpBuilder &builder, Location at) {
    SmallVector<Value> parts = prepend ? SmallVector<Value>{expanded, acc}
                                       : SmallVector<Value>{acc, expanded};
    return castTo(builder, at, concat(builder, at, parts, axis), accType);
  };
  if (itemType.hasStaticShape()) {
    return joined(b, loc);
  }
  scf::IfOp ifOp = emptyIf(b, loc, accType, isFirst);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&ifOp.getThenRegion().front());
  scf::YieldOp::create(b, loc, castTo(b, loc, expanded, accType));
  b.setInsertionPointToEnd(&ifOp.getElseRegion().front());
  scf::YieldOp::create(b, loc, joined(b, loc));
  return ifOp.getResult(0);
}

/// The type of a scan output made of items of `item` along `axis` (a
/// dynamic length), and its empty start (0 slices; the item's dynamic
/// dimensions 0).
RankedTensorType scanOutputType(RankedTensorType item, int64_t axis) {
  SmallVector<int64_t> shape(item.getShape());
  shape.insert(shape.begin() + axis, ShapedType::kDynamic);
  return RankedTensorType::get(shape, item.getElementType());
}

Value emptyScanOutput(OpBuilder &b, Location loc, RankedTensorType item,
                      int64_t axis) {
  SmallVector<int64_t> shape;
  for (int64_t dim : item.getShape()) {
    shape.push_back(ShapedType::isDynamic(dim) ? 0 : dim);
  }
  shape.insert(shape.begin() + axis, 0);
  Value empty = splat(b, loc, shape, item.getElementType(), 0.0);
  return loopInit(b, loc, empty, scanOutputType(item, axis));
}

/// Slice `index` of `input` along `axis`, without that axis.
Value takeSlice(OpBuilder &b, Location loc, Value input, int64_t axis,
                OpFoldResult index) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = dimsOf(b, loc, input);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  offsets[axis] = index;
  sizes[axis] = b.getIndexAttr(1);
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, resultType, input, offsets,
                                        sizes, strides);
}

/// Whether `value` is a constant whose elements are all true.
bool isConstantTrue(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) ||
      !attr.getElementType().isInteger(1)) {
    return false;
  }
  return llvm::all_of(attr.getValues<APInt>(),
                      [](const APInt &v) { return !v.isZero(); });
}

/// How deep loops (Loop, Scan) may nest. A body whose carried values
/// change shape is lowered more than once, with the loops inside it, so
/// the work can grow with the nesting's depth as a power: a hostile model
/// must not make that unbounded. Real models nest a few levels.
constexpr int kMaxLoopDepth = 16;

/// Lowers the subgraph `name` with the loop-carried values' types
/// `carried` (updated to types every iteration keeps: a dimension that
/// changes becomes dynamic) and the `fixed` inputs (the iteration number
/// and condition before them in a Loop, the slices after them in a Scan:
/// `carriedFirst`). The body's outputs `firstCarried...` are the carried
/// values' next values.
FailureOr<Body>
lowerLoopBody(Node &n, llvm::StringRef name, ArrayRef<Type> fixed,
              ArrayRef<bool> fixedUnsigned, SmallVectorImpl<Type> &carried,
              ArrayRef<bool> carriedUnsigned, bool carriedFirst,
              unsigned firstCarried, unsigned numOutputs, unsigned hostArgs = 0,
              SmallVectorImpl<bool> *wrapped = nullptr) {
  int depth = 0;
  for (Operation *op = n.op; op; op = op->getParentOp()) {
    auto node = dyn_cast<NodeOp>(op);
    depth += node && node.getOpType() != "If";
  }
  if (depth > kMaxLoopDepth) {
    return n.fail("loops nest more than " + llvm::Twine(kMaxLoopDepth) +
                  " deep");
  }
  // Each round makes at least one more dimension dynamic, so this ends.
  while (true) {
    SmallVector<Type> types;
    SmallVector<bool> flags;
    if (!carriedFirst) {
      types.append(fixed.begin(), fixed.end());
      flags.append(fixedUnsigned.begin(), fixedUnsigned.end());
    }
    types.append(carried.begin(), carried.end());
    flags.append(carriedUnsigned.begin(), carriedUnsigned.end());
    if (carriedFirst) {
      types.append(fixed.begin(), fixed.end());
      flags.append(fixedUnsigned.begin(), fixedUnsigned.end());
    }
    FailureOr<Body> body = lowerCopy(n, name, types, flags, hostArgs);
    if (failed(body)) {
      return failure();
    }
    if (body->results.size() != numOutputs) {
      n.b.eraseOp(body->holder);
      return n.fail("the '" + name + "' graph makes " +
                    llvm::Twine(body->results.size()) + " outputs; the node " +
                    "takes " + llvm::Twine(numOutputs) + " from it");
    }
    bool stable = true;
    for (unsigned j = 0; j < carried.size(); ++j) {
      Type &type = carried[j];
      Value next = body->results[firstCarried + j];
      Type nextType = next.getType();
      Type joined = joinAny(type, nextType);
      // An optional sequence that enters and a sequence that leaves (Loop
      // 16 allows it): the sequence is carried as the optional's value.
      auto list = dyn_cast<util::ListType>(type);
      if (!joined && wrapped && list &&
          isa<util::ListType>(list.getElementType()) &&
          isa<util::ListType>(nextType)) {
        if (Type element = joinAny(list.getElementType(), nextType)) {
          joined = util::ListType::get(type.getContext(), element);
          (*wrapped)[j] = true;
        }
      }
      if (!joined ||
          body->unsignedResults[firstCarried + j] != carriedUnsigned[j]) {
        n.b.eraseOp(body->holder);
        return n.fail("loop-carried value " + llvm::Twine(j) + " enters as " +
                      typeText(type) + " and leaves an iteration as " +
                      typeText(nextType) + "; only its dimensions may change");
      }
      if (joined != type) {
        type = joined;
        stable = false;
      }
    }
    if (stable) {
      return body;
    }
    n.b.eraseOp(body->holder);
  }
}

//===----------------------------------------------------------------------===//
// If
//===----------------------------------------------------------------------===//

LogicalResult lowerIf(Node &n) {
  if (!n.elem(0).isInteger(1) || !n.type(0).hasStaticShape() ||
      n.type(0).getNumElements() != 1) {
    return n.fail("the condition has the type " + typeText(n.type(0)) +
                  "; it must hold one bool");
  }
  // A condition known at compile time (a constant, or computed from
  // constants, which the patterns before folded) takes its branch only.
  if (DenseElementsAttr cond = n.constant(0)) {
    bool taken = !(*cond.getValues<APInt>().begin()).isZero();
    FailureOr<Body> body =
        lowerCopy(n, taken ? "then_branch" : "else_branch", {}, {});
    if (failed(body)) {
      return failure();
    }
    if (body->results.size() != n.numOutputs()) {
      return n.fail("the branch makes " + llvm::Twine(body->results.size()) +
                    " outputs; the node has " + llvm::Twine(n.numOutputs()));
    }
    SmallVector<bool> flags = body->unsignedResults;
    SmallVector<Value> results =
        inlineBody(n, *body, n.op->getBlock(), n.op->getIterator(), {});
    n.b.setInsertionPoint(n.op);
    return n.replace(results, flags);
  }
  Value cond = n.hostScalarIn(0);
  FailureOr<Body> thenBody = lowerCopy(n, "then_branch", {}, {});
  if (failed(thenBody)) {
    return failure();
  }
  FailureOr<Body> elseBody = lowerCopy(n, "else_branch", {}, {});
  if (failed(elseBody)) {
    return failure();
  }
  if (thenBody->results.size() != n.numOutputs() ||
      elseBody->results.size() != n.numOutputs()) {
    return n.fail("the branches make " + llvm::Twine(thenBody->results.size()) +
                  " and " + llvm::Twine(elseBody->results.size()) +
                  " outputs; the node has " + llvm::Twine(n.numOutputs()));
  }
  // The branches may make outputs of different shapes (of one rank): the
  // node's output is dynamic where they differ.
  SmallVector<Type> types;
  for (unsigned i = 0; i < n.numOutputs(); ++i) {
    Type thenType = thenBody->results[i].getType();
    Type elseType = elseBody->results[i].getType();
    Type joined = joinAny(thenType, elseType);
    if (!joined ||
        thenBody->unsignedResults[i] != elseBody->unsignedResults[i]) {
      return n.fail("output " + llvm::Twine(i) + " is " + typeText(thenType) +
                    " in then_branch and " + typeText(elseType) +
                    " in else_branch; only dimensions may differ");
    }
    types.push_back(joined);
  }
  SmallVector<bool> flags = thenBody->unsignedResults;
  scf::IfOp ifOp = emptyIf(n.b, n.loc, types, cond);
  for (auto [body, region] :
       {std::make_pair(&*thenBody, &ifOp.getThenRegion()),
        std::make_pair(&*elseBody, &ifOp.getElseRegion())}) {
    Block *block = &region->front();
    SmallVector<Value> results = inlineBody(n, *body, block, block->end(), {});
    n.b.setInsertionPointToEnd(block);
    SmallVector<Value> yields;
    for (auto [value, type] : llvm::zip(results, types)) {
      yields.push_back(castTo(n.b, n.loc, value, type));
    }
    scf::YieldOp::create(n.b, n.loc, yields);
  }
  n.b.setInsertionPoint(n.op);
  return n.replace(ifOp.getResults(), flags);
}

//===----------------------------------------------------------------------===//
// Loop
//===----------------------------------------------------------------------===//

LogicalResult lowerLoop(Node &n) {
  // M and cond may each be empty, but their places are there.
  if (n.numInputs() < 2) {
    return n.fail("it has " + llvm::Twine(n.numInputs()) +
                  " inputs; the op type takes at least 2 (M and cond, "
                  "which may be empty)");
  }
  unsigned numCarried = n.numInputs() - 2;
  if (n.numOutputs() < numCarried) {
    return n.fail("it has " + llvm::Twine(n.numOutputs()) + " outputs for " +
                  llvm::Twine(numCarried) + " loop-carried values");
  }
  unsigned numScans = n.numOutputs() - numCarried;
  for (unsigned i : {0u, 1u}) {
    if (n.has(i) && (n.type(i).getNumElements() != 1 ||
                     (i == 0 && !isa<IntegerType>(n.elem(i))) ||
                     (i == 1 && !n.elem(i).isInteger(1)))) {
      return n.fail(
          "input " + llvm::Twine(i) + (i == 0 ? " (M)" : " (cond)") +
          " has the type " + typeText(n.type(i)) +
          (i == 0 ? "; it must hold one integer" : "; it must hold one bool"));
    }
  }
  Type i64 = n.b.getI64Type();
  Type i1 = n.b.getI1Type();
  auto i64Tensor = RankedTensorType::get({}, i64);
  auto i1Tensor = RankedTensorType::get({}, i1);
  SmallVector<Type> carried;
  SmallVector<bool> carriedUnsigned;
  for (unsigned j = 0; j < numCarried; ++j) {
    if (!n.has(2 + j)) {
      return n.fail("loop-carried value " + llvm::Twine(j) + " is absent");
    }
    carried.push_back(n.in(2 + j).getType());
    carriedUnsigned.push_back(n.isUnsigned(2 + j));
  }
  SmallVector<bool> wrapped(numCarried, false);
  FailureOr<Body> body = lowerLoopBody(
      n, "body", {Type(i64Tensor), Type(i1Tensor)}, {false, false}, carried,
      carriedUnsigned, /*carriedFirst=*/false, 1, 1 + numCarried + numScans,
      /*hostArgs=*/2, &wrapped);
  if (failed(body)) {
    return failure();
  }
  Value condOut = body->results[0];
  auto condType = cast<RankedTensorType>(condOut.getType());
  if (!condType.getElementType().isInteger(1) || !condType.hasStaticShape() ||
      condType.getNumElements() != 1) {
    n.b.eraseOp(body->holder);
    return n.fail("the body's condition output has the type " +
                  typeText(condType) + "; it must hold one bool");
  }
  SmallVector<RankedTensorType> items;
  SmallVector<bool> flags(carriedUnsigned);
  for (unsigned k = 0; k < numScans; ++k) {
    Type itemType = body->results[1 + numCarried + k].getType();
    auto item = dyn_cast<RankedTensorType>(itemType);
    if (!item) {
      // (The type outlives the body's ops; the values do not.)
      n.b.eraseOp(body->holder);
      return n.fail("scan output " + llvm::Twine(k) + " of the body is " +
                    typeText(itemType) + "; scan outputs are tensors");
    }
    items.push_back(item);
    flags.push_back(body->unsignedResults[1 + numCarried + k]);
  }

  Location loc = n.loc;
  RewriterBase &b = n.b;
  Value tripCount;
  if (n.has(0)) {
    tripCount = n.hostScalarIn(0);
    if (!tripCount.getType().isInteger(64)) {
      tripCount = n.isUnsigned(0)
                      ? Value(arith::ExtUIOp::create(b, loc, i64, tripCount))
                      : Value(arith::ExtSIOp::create(b, loc, i64, tripCount));
    }
  }
  Value cond0 = n.has(1) ? n.hostScalarIn(1) : Value(scalar(b, loc, i1, 1));
  SmallVector<Value> inits;
  for (unsigned j = 0; j < numCarried; ++j) {
    inits.push_back(loopInit(b, loc, n.in(2 + j), carried[j]));
  }
  for (RankedTensorType item : items) {
    inits.push_back(emptyScanOutput(b, loc, item, 0));
  }
  // The condition stays what it was when the body passes it through (or
  // makes true) or the node has none: a counted loop.
  bool counted = tripCount && (!n.has(1) || isConstantTrue(condOut) ||
                               isHostArg(*body, condOut, 1));
  // What the body's outputs become each iteration: the carried values'
  // next values, and each scan output with one more slice.
  auto nextValues = [&](ArrayRef<Value> results, ValueRange iterArgs,
                        Value isFirst) {
    SmallVector<Value> next;
    for (unsigned j = 0; j < numCarried; ++j) {
      Value value = results[1 + j];
      if (wrapped[j]) {
        // The sequence as an optional holding it.
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value list = newList(
            b, loc, util::ListType::get(b.getContext(), value.getType()), one);
        util::ListSetOp::create(b, loc, list, zero, value);
        value = list;
      }
      next.push_back(castTo(b, loc, value, carried[j]));
    }
    for (unsigned k = 0; k < numScans; ++k) {
      next.push_back(appendItem(b, loc, iterArgs[numCarried + k],
                                results[1 + numCarried + k], 0,
                                /*prepend=*/false, isFirst));
    }
    return next;
  };
  ValueRange loopResults;
  if (counted) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value upper =
        arith::MaxSIOp::create(b, loc, tripCount, scalar(b, loc, i64, 0));
    upper = arith::IndexCastOp::create(b, loc, b.getIndexType(), upper);
    if (n.has(1)) {
      upper = arith::SelectOp::create(b, loc, cond0, upper, zero);
    }
    auto forOp = scf::ForOp::create(b, loc, zero, upper, one, inits);
    Block *loopBlock = forOp.getBody();
    if (!loopBlock->empty()) {
      b.eraseOp(loopBlock->getTerminator());
    }
    b.setInsertionPointToStart(loopBlock);
    Value iv = forOp.getInductionVar();
    Value i = arith::IndexCastOp::create(b, loc, i64, iv);
    SmallVector<Value> args = {
        tensor::FromElementsOp::create(b, loc, i64Tensor, ValueRange{i}),
        splat(b, loc, {}, i1, 1)};
    args.append(forOp.getRegionIterArgs().begin(),
                forOp.getRegionIterArgs().end());
    SmallVector<Value> results =
        inlineBody(n, *body, loopBlock, loopBlock->end(), args);
    b.setInsertionPointToEnd(loopBlock);
    Value isFirst =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, iv, zero);
    scf::YieldOp::create(
        b, loc, nextValues(results, forOp.getRegionIterArgs(), isFirst));
    b.setInsertionPointAfter(forOp);
    loopResults = forOp.getResults();
  } else {
    // (i, cond, carried..., scan outputs...) while (i < M) && cond.
    SmallVector<Value> whileInits = {scalar(b, loc, i64, 0), cond0};
    whileInits.append(inits);
    SmallVector<Type> types =
        llvm::to_vector(ValueRange(whileInits).getTypes());
    SmallVector<Location> locs(types.size(), loc);
    auto whileOp = scf::WhileOp::create(b, loc, types, whileInits);
    Block *before = b.createBlock(&whileOp.getBefore(), {}, types, locs);
    Value go = before->getArgument(1);
    if (tripCount) {
      Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          before->getArgument(0), tripCount);
      go = arith::AndIOp::create(b, loc, go, below);
    }
    scf::ConditionOp::create(b, loc, go, before->getArguments());
    Block *after = b.createBlock(&whileOp.getAfter(), {}, types, locs);
    Value i = after->getArgument(0);
    SmallVector<Value> args = {
        tensor::FromElementsOp::create(b, loc, i64Tensor, ValueRange{i}),
        tensor::FromElementsOp::create(b, loc, i1Tensor,
                                       ValueRange{after->getArgument(1)})};
    args.append(after->args_begin() + 2, after->args_end());
    SmallVector<Value> results =
        inlineBody(n, *body, after, after->end(), args);
    b.setInsertionPointToEnd(after);
    Value nextCond = after->getArgument(1);
    if (n.has(1)) {
      SmallVector<Value> at(condType.getRank(),
                            arith::ConstantIndexOp::create(b, loc, 0));
      nextCond = tensor::ExtractOp::create(b, loc, results[0], at);
    }
    Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, i,
                                          scalar(b, loc, i64, 0));
    SmallVector<Value> yields = {
        arith::AddIOp::create(b, loc, i, scalar(b, loc, i64, 1)), nextCond};
    yields.append(
        nextValues(results, after->getArguments().drop_front(2), isFirst));
    scf::YieldOp::create(b, loc, yields);
    b.setInsertionPointAfter(whileOp);
    loopResults = whileOp.getResults().drop_front(2);
  }
  SmallVector<Value> outputs(loopResults.begin(), loopResults.end());
  // A carried optional whose output the model declares a sequence: its
  // value (the loop ran, or the initial optional held one).
  for (unsigned j = 0; j < numCarried; ++j) {
    auto declared = dyn_cast<util::ListType>(n.op.getOutputs()[j].getType());
    auto carriedList = dyn_cast<util::ListType>(carried[j]);
    if (!declared || !carriedList ||
        isa<util::ListType>(declared.getElementType()) ||
        !isa<util::ListType>(carriedList.getElementType())) {
      continue;
    }
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value size = listSize(b, loc, outputs[j]);
    n.check(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, size, zero),
        "loop-carried value " + llvm::Twine(j) +
            " is an empty optional after the loop; the model declares "
            "a sequence");
    outputs[j] = util::ListGetOp::create(b, loc, carriedList.getElementType(),
                                         outputs[j], zero);
  }
  // A constant M without a condition: the scan outputs' length is known.
  DenseElementsAttr count = n.has(0) && !n.has(1) ? n.constant(0) : nullptr;
  if (count) {
    int64_t length = std::max<int64_t>(
        0, (*count.getValues<APInt>().begin()).getSExtValue());
    for (unsigned k = 0; k < numScans; ++k) {
      SmallVector<int64_t> shape(items[k].getShape());
      shape.insert(shape.begin(), length);
      outputs[numCarried + k] =
          castTo(b, loc, outputs[numCarried + k],
                 RankedTensorType::get(shape, items[k].getElementType()));
    }
  }
  return n.replace(outputs, flags);
}

//===----------------------------------------------------------------------===//
// Scan
//===----------------------------------------------------------------------===//

/// What a Scan does with its inputs (opset 9 on; opset 8 runs it once per
/// batch entry).
struct ScanPlan {
  SmallVector<Value> states, inputs;
  SmallVector<bool> statesUnsigned, inputsUnsigned;
  /// Normalized input axes; output axes as given (normalized against the
  /// outputs' ranks once the body says them).
  SmallVector<int64_t> inputAxes, outputAxes;
  SmallVector<bool> inputReverse, outputReverse;
};

/// Builds the scan at the insertion point: the final states, then the
/// scan outputs; `flags` gets which are unsigned.
FailureOr<SmallVector<Value>> buildScan(Node &n, const ScanPlan &plan,
                                        SmallVectorImpl<bool> &flags) {
  RewriterBase &b = n.b;
  Location loc = n.loc;
  unsigned numStates = plan.states.size();
  unsigned numScans = n.numOutputs() - numStates;
  // The iteration count: every scan input's length along its axis.
  OpFoldResult length = dimOf(b, loc, plan.inputs[0], plan.inputAxes[0]);
  for (unsigned j = 1; j < plan.inputs.size(); ++j) {
    OpFoldResult other = dimOf(b, loc, plan.inputs[j], plan.inputAxes[j]);
    std::optional<int64_t> a = getConstantIntValue(length);
    std::optional<int64_t> c = getConstantIntValue(other);
    if (a && c && *a != *c) {
      return n.fail("scan input " + llvm::Twine(j) + " has " + llvm::Twine(*c) +
                    " slices along its axis; scan input 0 " + "has " +
                    llvm::Twine(*a));
    }
    if (!a || !c) {
      n.check(compareSizes(b, loc, arith::CmpIPredicate::eq, length, other),
              "scan input " + llvm::Twine(j) +
                  " has another number of slices than scan input 0");
    }
  }
  SmallVector<Type> sliceTypes;
  for (auto [input, axis] : llvm::zip(plan.inputs, plan.inputAxes)) {
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + axis);
    sliceTypes.push_back(RankedTensorType::get(shape, type.getElementType()));
  }
  SmallVector<Type> carried;
  for (Value state : plan.states) {
    carried.push_back(state.getType());
  }
  FailureOr<Body> body = lowerLoopBody(
      n, "body", sliceTypes, plan.inputsUnsigned, carried, plan.statesUnsigned,
      /*carriedFirst=*/true, 0, numStates + numScans);
  if (failed(body)) {
    return failure();
  }
  SmallVector<RankedTensorType> items;
  SmallVector<int64_t> outputAxes;
  flags.assign(plan.statesUnsigned.begin(), plan.statesUnsigned.end());
  for (unsigned k = 0; k < numScans; ++k) {
    auto item =
        dyn_cast<RankedTensorType>(body->results[numStates + k].getType());
    if (!item) {
      // ONNX's Scan concatenates tensors only (its outputs are tensors).
      Type itemType = body->results[numStates + k].getType();
      n.b.eraseOp(body->holder);
      return n.fail("scan output " + llvm::Twine(k) + " of the body is " +
                    typeText(itemType) + "; Scan's scan outputs are tensors");
    }
    int64_t axis = plan.outputAxes[k];
    int64_t rank = item.getRank() + 1;
    if (axis < -rank || axis >= rank) {
      n.b.eraseOp(body->holder);
      return n.fail("scan output axis " + llvm::Twine(axis) +
                    " is out of range for rank " + llvm::Twine(rank));
    }
    items.push_back(item);
    outputAxes.push_back(axis < 0 ? axis + rank : axis);
    flags.push_back(body->unsignedResults[numStates + k]);
  }
  std::optional<int64_t> knownLength = getConstantIntValue(length);
  if (knownLength == 0) {
    // No slice to take (a slice of an empty axis would not verify): the
    // states as they are and empty scan outputs.
    n.b.eraseOp(body->holder);
    SmallVector<Value> outputs;
    outputs.append(plan.states.begin(), plan.states.end());
    for (auto [item, axis] : llvm::zip(items, outputAxes)) {
      SmallVector<int64_t> shape;
      for (int64_t dim : item.getShape()) {
        shape.push_back(ShapedType::isDynamic(dim) ? 0 : dim);
      }
      shape.insert(shape.begin() + axis, 0);
      outputs.push_back(splat(b, loc, shape, item.getElementType(), 0.0));
    }
    return outputs;
  }
  SmallVector<Value> inits;
  for (auto [state, type] : llvm::zip(plan.states, carried)) {
    inits.push_back(loopInit(b, loc, state, type));
  }
  for (auto [item, axis] : llvm::zip(items, outputAxes)) {
    inits.push_back(emptyScanOutput(b, loc, item, axis));
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value upper = indexValueOf(b, loc, length);
  auto forOp = scf::ForOp::create(b, loc, zero, upper, one, inits);
  Block *loopBlock = forOp.getBody();
  if (!loopBlock->empty()) {
    b.eraseOp(loopBlock->getTerminator());
  }
  b.setInsertionPointToStart(loopBlock);
  Value iv = forOp.getInductionVar();
  Value last = arith::SubIOp::create(b, loc, upper, one);
  Value reversed = arith::SubIOp::create(b, loc, last, iv);
  // The body's inputs: the states, then a slice of each scan input.
  SmallVector<Value> args(forOp.getRegionIterArgs().begin(),
                          forOp.getRegionIterArgs().begin() + numStates);
  for (auto [j, input] : llvm::enumerate(plan.inputs)) {
    args.push_back(takeSlice(b, loc, input, plan.inputAxes[j],
                             plan.inputReverse[j] ? reversed : iv));
  }
  SmallVector<Value> results =
      inlineBody(n, *body, loopBlock, loopBlock->end(), args);
  b.setInsertionPointToEnd(loopBlock);
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, iv, zero);
  SmallVector<Value> yields;
  for (unsigned j = 0; j < numStates; ++j) {
    yields.push_back(castTo(b, loc, results[j], carried[j]));
  }
  for (unsigned k = 0; k < numScans; ++k) {
    yields.push_back(appendItem(
        b, loc, forOp.getRegionIterArgs()[numStates + k],
        results[numStates + k], outputAxes[k], plan.outputReverse[k], isFirst));
  }
  scf::YieldOp::create(b, loc, yields);
  b.setInsertionPointAfter(forOp);
  SmallVector<Value> outputs(forOp.getResults().begin(),
                             forOp.getResults().end());
  if (knownLength) {
    for (unsigned k = 0; k < numScans; ++k) {
      SmallVector<int64_t> shape(items[k].getShape());
      shape.insert(shape.begin() + outputAxes[k], *knownLength);
      outputs[numStates + k] =
          castTo(b, loc, outputs[numStates + k],
                 RankedTensorType::get(shape, items[k].getElementType()));
    }
  }
  return outputs;
}

LogicalResult lowerScan(Node &n) {
  std::optional<int64_t> numScanInputs = n.intAttr("num_scan_inputs");
  // Opset 8 has an optional sequence_lens first and a batch axis.
  unsigned first = n.opset() < 9 ? 1 : 0;
  if (!numScanInputs || *numScanInputs < 1 ||
      *numScanInputs > static_cast<int64_t>(n.numInputs() - first)) {
    return n.fail("num_scan_inputs must be between 1 and the number of "
                  "inputs");
  }
  if (first && n.has(0)) {
    return n.fail("sequence_lens is not supported (every sequence runs "
                  "its whole length)");
  }
  unsigned numStates = n.numInputs() - first - *numScanInputs;
  if (n.numOutputs() < numStates) {
    return n.fail("it has " + llvm::Twine(n.numOutputs()) + " outputs for " +
                  llvm::Twine(numStates) + " state variables");
  }
  unsigned numScans = n.numOutputs() - numStates;
  auto listAttr = [&](llvm::StringRef name, size_t count,
                      SmallVector<int64_t> &out) -> LogicalResult {
    std::optional<SmallVector<int64_t>> values = n.intsAttr(name);
    if (!values) {
      out.assign(count, 0);
      return success();
    }
    if (values->size() != count) {
      return n.fail(name + " has " + llvm::Twine(values->size()) +
                    " entries for " + llvm::Twine(count));
    }
    out = *values;
    return success();
  };
  ScanPlan plan;
  SmallVector<int64_t> inputDirections, outputDirections;
  if (failed(listAttr(first ? "directions" : "scan_input_directions",
                      *numScanInputs, inputDirections)) ||
      failed(listAttr("scan_output_directions", first ? 0 : numScans,
                      outputDirections))) {
    return failure();
  }
  SmallVector<int64_t> inputAxes;
  if (first) {
    plan.outputAxes.assign(numScans, 0);
    inputAxes.assign(*numScanInputs, 0);
    outputDirections.assign(numScans, 0);
  } else if (failed(listAttr("scan_input_axes", *numScanInputs, inputAxes)) ||
             failed(listAttr("scan_output_axes", numScans, plan.outputAxes))) {
    return failure();
  }
  for (int64_t direction :
       llvm::concat<int64_t>(inputDirections, outputDirections)) {
    if (direction != 0 && direction != 1) {
      return n.fail("a scan direction is " + llvm::Twine(direction) +
                    "; it must be 0 (forward) or 1 (reverse)");
    }
  }
  for (int64_t d : inputDirections) {
    plan.inputReverse.push_back(d == 1);
  }
  for (int64_t d : outputDirections) {
    plan.outputReverse.push_back(d == 1);
  }
  for (unsigned j = 0; j < numStates; ++j) {
    plan.statesUnsigned.push_back(n.isUnsigned(first + j));
  }
  for (unsigned j = 0; j < *numScanInputs; ++j) {
    unsigned i = first + numStates + j;
    plan.inputsUnsigned.push_back(n.isUnsigned(i));
    int64_t rank = n.rank(i) - static_cast<int64_t>(first);
    if (rank < 1) {
      return n.fail("scan input " + llvm::Twine(j) + " has rank " +
                    llvm::Twine(n.rank(i)) + "; it needs an axis to scan");
    }
    FailureOr<int64_t> axis = n.axis(inputAxes[j], rank);
    if (failed(axis)) {
      return failure();
    }
    plan.inputAxes.push_back(*axis);
  }
  SmallVector<bool> flags;
  if (!first) {
    for (unsigned j = 0; j < numStates; ++j) {
      plan.states.push_back(n.in(j));
    }
    for (unsigned j = 0; j < *numScanInputs; ++j) {
      plan.inputs.push_back(n.in(numStates + j));
    }
    FailureOr<SmallVector<Value>> outputs = buildScan(n, plan, flags);
    if (failed(outputs)) {
      return failure();
    }
    return n.replace(*outputs, flags);
  }
  // Opset 8: every input has a batch axis first, scanned entry by entry
  // (the batch is unrolled: it must be static), the outputs stacked.
  int64_t batch = ShapedType::kDynamic;
  for (unsigned i = 1; i < n.numInputs(); ++i) {
    int64_t dim = n.rank(i) > 0 ? n.shape(i)[0] : ShapedType::kDynamic;
    if (ShapedType::isDynamic(dim) ||
        (!ShapedType::isDynamic(batch) && dim != batch)) {
      return n.fail("input " + llvm::Twine(i) + " has the type " +
                    typeText(n.type(i)) +
                    "; Scan-8 takes one static batch size for every input");
    }
    batch = dim;
  }
  SmallVector<SmallVector<Value>> perEntry(n.numOutputs());
  for (int64_t e = 0; e < batch; ++e) {
    ScanPlan entry = plan;
    for (unsigned j = 0; j < numStates; ++j) {
      entry.states.push_back(
          takeSlice(n.b, n.loc, n.in(1 + j), 0, n.b.getIndexAttr(e)));
    }
    for (unsigned j = 0; j < *numScanInputs; ++j) {
      entry.inputs.push_back(takeSlice(n.b, n.loc, n.in(1 + numStates + j), 0,
                                       n.b.getIndexAttr(e)));
    }
    FailureOr<SmallVector<Value>> outputs = buildScan(n, entry, flags);
    if (failed(outputs)) {
      return failure();
    }
    for (auto [o, value] : llvm::enumerate(*outputs)) {
      SmallVector<OpFoldResult> sizes = dimsOf(n.b, n.loc, value);
      sizes.insert(sizes.begin(), n.b.getIndexAttr(1));
      perEntry[o].push_back(reshapeTo(n.b, n.loc, value, sizes));
    }
  }
  SmallVector<Value> outputs;
  for (ArrayRef<Value> parts : perEntry) {
    outputs.push_back(concat(n.b, n.loc, parts, 0));
  }
  return n.replace(outputs, flags);
}

} // namespace

//===----------------------------------------------------------------------===//
// SequenceMap
//===----------------------------------------------------------------------===//

/// SequenceMap: a host loop over the first sequence's elements that runs
/// the body on element i of every sequence input (the tensor inputs as they
/// are) and puts its outputs at i of the output sequences.
LogicalResult lowerSequenceMap(Node &n) {
  if (!n.has(0) || !isa<util::ListType>(n.op.getInputs()[0].getType())) {
    return n.fail("input 0 is not a sequence");
  }
  RewriterBase &b = n.b;
  Location loc = n.loc;
  SmallVector<Type> types;
  SmallVector<bool> flags;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    if (!n.has(i)) {
      return n.fail("input " + llvm::Twine(i) + " is absent");
    }
    Value input = n.op.getInputs()[i];
    if (auto list = dyn_cast<util::ListType>(input.getType())) {
      auto element = dyn_cast<RankedTensorType>(list.getElementType());
      if (!element) {
        return n.fail("sequence input " + llvm::Twine(i) + " holds " +
                      typeText(list.getElementType()) +
                      ", of no known rank; declare its element shape in the "
                      "model");
      }
      // An unsigned element is held signless (SequenceOps.cpp).
      bool isUnsigned = hasUnsignedElements(element);
      types.push_back(
          isUnsigned ? RankedTensorType::get(
                           element.getShape(),
                           IntegerType::get(b.getContext(),
                                            element.getElementTypeBitWidth()))
                     : element);
      flags.push_back(isUnsigned);
    } else {
      types.push_back(n.in(i).getType());
      flags.push_back(n.isUnsigned(i));
    }
  }
  Value size = listSize(b, loc, n.op.getInputs()[0]);
  for (unsigned i = 1; i < n.numInputs(); ++i) {
    Value input = n.op.getInputs()[i];
    if (isa<util::ListType>(input.getType())) {
      Value other = listSize(b, loc, input);
      n.check(
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, other),
          "sequence input " + llvm::Twine(i) +
              " has another length than sequence input 0");
    }
  }
  FailureOr<Body> body = lowerCopy(n, "body", types, flags);
  if (failed(body)) {
    return failure();
  }
  if (body->results.size() != n.numOutputs()) {
    n.b.eraseOp(body->holder);
    return n.fail("the body makes " + llvm::Twine(body->results.size()) +
                  " outputs; the node has " + llvm::Twine(n.numOutputs()));
  }
  SmallVector<Value> outputs;
  for (auto [k, value] : llvm::enumerate(body->results)) {
    Type valueType = value.getType();
    auto type = dyn_cast<RankedTensorType>(valueType);
    if (!type) {
      n.b.eraseOp(body->holder);
      return n.fail("output " + llvm::Twine(k) + " of the body is " +
                    typeText(valueType) + "; sequence elements are tensors");
    }
    Type element = body->unsignedResults[k] ? unsignedTensorType(type) : type;
    outputs.push_back(
        newList(b, loc, util::ListType::get(b.getContext(), element), size));
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto forOp = scf::ForOp::create(b, loc, zero, size, one);
  Block *loopBlock = forOp.getBody();
  b.eraseOp(loopBlock->getTerminator());
  b.setInsertionPointToStart(loopBlock);
  Value iv = forOp.getInductionVar();
  SmallVector<Value> args;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    Value input = n.op.getInputs()[i];
    if (isa<util::ListType>(input.getType())) {
      args.push_back(
          util::ListGetOp::create(b, loc, types[i], input, iv).getResult());
    } else {
      args.push_back(input);
    }
  }
  SmallVector<Value> results =
      inlineBody(n, *body, loopBlock, loopBlock->end(), args);
  b.setInsertionPointToEnd(loopBlock);
  for (auto [list, value] : llvm::zip(outputs, results)) {
    util::ListSetOp::create(b, loc, list, iv, value);
  }
  scf::YieldOp::create(b, loc);
  b.setInsertionPointAfter(forOp);
  return n.replace(outputs);
}

void mlir::strata::onnx::addControlFlowLowerings(LoweringTable &table) {
  table["SequenceMap"] = lowerSequenceMap;
  table.allowDynamic({"SequenceMap"});
  table.subgraphs.insert("SequenceMap");
  table["If"] = lowerIf;
  table["Loop"] = lowerLoop;
  table["Scan"] = lowerScan;
  table.allowDynamic({"If", "Loop", "Scan"});
  table.subgraphs.insert("If");
  table.subgraphs.insert("Loop");
  table.subgraphs.insert("Scan");
}
