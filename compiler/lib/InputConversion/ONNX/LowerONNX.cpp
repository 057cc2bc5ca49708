// LowerONNX.cpp - --strata-lower-onnx: each onnx.node to linalg, tensor,
// arith and math by the pattern of its op type (Lowering.h), in graph order.

#include "Lowering.h"

#include "Strata/Dialect/Util/IR/Reflection.h"
#include "Strata/InputConversion/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::strata::input {
#define GEN_PASS_DEF_LOWERONNXPASS
#include "Strata/InputConversion/Passes.h.inc"
} // namespace mlir::strata::input

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

//===----------------------------------------------------------------------===//
// Node
//===----------------------------------------------------------------------===//

namespace {

/// The unsigned ONNX type behind which a signless value travels.
Type unsignedType(RankedTensorType type) {
  auto element = cast<IntegerType>(type.getElementType());
  return type.clone(
      IntegerType::get(type.getContext(), element.getWidth(),
                       IntegerType::Unsigned));
}

/// Whether values of `type` travel behind a cast: unsigned and narrow
/// (float8, int4, uint4) element types.
bool hasUnsignedElements(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && (shaped.getElementType().isUnsignedInteger() ||
                    isNarrowElement(shaped.getElementType()));
}

Type signlessType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !hasUnsignedElements(tensor)) {
    return type;
  }
  return tensor.clone(storageElement(tensor.getElementType()));
}

} // namespace

Node::Node(NodeOp op, RewriterBase &rewriter)
    : op(op), b(rewriter), loc(op.getLoc()) {}

bool Node::has(unsigned i) {
  return i < numInputs() && !isa<NoneType>(op.getInputs()[i].getType());
}

Value Node::in(unsigned i) {
  if (!has(i)) {
    return {};
  }
  Value value = op.getInputs()[i];
  if (auto cast = value.getDefiningOp<UnrealizedConversionCastOp>()) {
    return cast.getInputs()[0];
  }
  return value;
}

RankedTensorType Node::type(unsigned i) {
  return cast<RankedTensorType>(in(i).getType());
}

bool Node::isUnsigned(unsigned i) {
  return has(i) && hasUnsignedElements(op.getInputs()[i].getType());
}

Type Node::onnxElem(unsigned i) {
  if (!has(i)) {
    return {};
  }
  auto shaped = dyn_cast<ShapedType>(op.getInputs()[i].getType());
  return shaped ? shaped.getElementType() : Type();
}

bool Node::outputUsed(unsigned i) {
  return i < numOutputs() && !op.getOutputs()[i].use_empty();
}

std::optional<int64_t> Node::intAttr(llvm::StringRef name) {
  if (auto attr = op.getAttrs().getAs<IntegerAttr>(name)) {
    return attr.getInt();
  }
  return std::nullopt;
}

std::optional<double> Node::floatAttr(llvm::StringRef name) {
  if (auto attr = op.getAttrs().getAs<FloatAttr>(name)) {
    return attr.getValueAsDouble();
  }
  if (auto attr = op.getAttrs().getAs<IntegerAttr>(name)) {
    return static_cast<double>(attr.getInt());
  }
  return std::nullopt;
}

std::optional<SmallVector<int64_t>> Node::intsAttr(llvm::StringRef name) {
  auto array = op.getAttrs().getAs<ArrayAttr>(name);
  if (!array) {
    return std::nullopt;
  }
  SmallVector<int64_t> values;
  for (Attribute item : array) {
    if (auto attr = dyn_cast<IntegerAttr>(item)) {
      values.push_back(attr.getInt());
    }
  }
  return values;
}

std::optional<SmallVector<double>> Node::floatsAttr(llvm::StringRef name) {
  auto array = op.getAttrs().getAs<ArrayAttr>(name);
  if (!array) {
    return std::nullopt;
  }
  SmallVector<double> values;
  for (Attribute item : array) {
    if (auto attr = dyn_cast<FloatAttr>(item)) {
      values.push_back(attr.getValueAsDouble());
    }
  }
  return values;
}

std::optional<llvm::StringRef> Node::stringAttr(llvm::StringRef name) {
  if (auto attr = op.getAttrs().getAs<StringAttr>(name)) {
    return attr.getValue();
  }
  return std::nullopt;
}

DenseElementsAttr Node::tensorAttr(llvm::StringRef name) {
  return op.getAttrs().getAs<DenseElementsAttr>(name);
}

DenseElementsAttr Node::constant(unsigned i) {
  // A splat of 2^40 elements (ConstantOfShape's) costs nothing to hold but
  // hangs a loop over its values.
  DenseElementsAttr attr = constantOf(in(i));
  if (attr && attr.getNumElements() <= kFoldLimit) {
    return attr;
  }
  return {};
}

LogicalResult Node::checkReadable(unsigned i, llvm::StringRef what) {
  DenseElementsAttr attr = constantOf(in(i));
  if (attr && attr.getNumElements() > kFoldLimit) {
    return fail("input " + llvm::Twine(i) + " (" + what + ") holds " +
                llvm::Twine(attr.getNumElements()) + " values; at most " +
                llvm::Twine(kFoldLimit) + " are read at compile time");
  }
  return success();
}

FailureOr<SmallVector<int64_t>> Node::constInts(unsigned i,
                                                llvm::StringRef what) {
  if (failed(checkReadable(i, what))) {
    return failure();
  }
  DenseElementsAttr attr = constant(i);
  if (!attr || !isa<IntegerType>(attr.getElementType())) {
    return fail("input " + llvm::Twine(i) + " (" + what +
                ") must be an integer tensor known at compile time; "
                "data-dependent values are not supported");
  }
  SmallVector<int64_t> values;
  bool isUnsignedInput = isUnsigned(i);
  for (const APInt &value : attr.getValues<APInt>()) {
    values.push_back(isUnsignedInput ? static_cast<int64_t>(value.getZExtValue())
                                     : value.getSExtValue());
  }
  return values;
}

FailureOr<SmallVector<double>> Node::constFloats(unsigned i,
                                                 llvm::StringRef what) {
  if (failed(checkReadable(i, what))) {
    return failure();
  }
  DenseElementsAttr attr = constant(i);
  if (!attr) {
    return fail("input " + llvm::Twine(i) + " (" + what +
                ") must be known at compile time; data-dependent values "
                "are not supported");
  }
  SmallVector<double> values;
  if (isa<FloatType>(attr.getElementType())) {
    for (const APFloat &value : attr.getValues<APFloat>()) {
      values.push_back(value.convertToDouble());
    }
  } else {
    for (const APInt &value : attr.getValues<APInt>()) {
      values.push_back(static_cast<double>(value.getSExtValue()));
    }
  }
  return values;
}

FailureOr<int64_t> Node::constInt(unsigned i, llvm::StringRef what) {
  FailureOr<SmallVector<int64_t>> values = constInts(i, what);
  if (failed(values)) {
    return failure();
  }
  if (values->size() != 1) {
    return fail("input " + llvm::Twine(i) + " (" + what +
                ") must hold one value; it holds " +
                llvm::Twine(values->size()));
  }
  return values->front();
}

FailureOr<double> Node::constFloat(unsigned i, llvm::StringRef what) {
  FailureOr<SmallVector<double>> values = constFloats(i, what);
  if (failed(values)) {
    return failure();
  }
  if (values->size() != 1) {
    return fail("input " + llvm::Twine(i) + " (" + what +
                ") must hold one value; it holds " +
                llvm::Twine(values->size()));
  }
  return values->front();
}

LogicalResult Node::checkShape(ArrayRef<int64_t> shape, Type element,
                               const llvm::Twine &what) {
  uint64_t bytes =
      element.isIntOrFloat()
          ? std::max<uint64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8)
          : 8;
  std::string dims;
  bool bad = false;
  for (int64_t dim : shape) {
    dims += (dims.empty() ? "" : "x") + std::to_string(dim);
    if (ShapedType::isDynamic(dim)) {
      continue;
    }
    bad |= dim < 0 ||
           __builtin_mul_overflow(bytes, static_cast<uint64_t>(dim), &bytes);
  }
  if (bad || bytes >= input::kMaxTensorBytes) {
    return fail(what + " would have the shape [" + dims +
                "], which is not a tensor shape of fewer than 2^62 bytes");
  }
  return success();
}

LogicalResult Node::fail(const llvm::Twine &message) {
  op.emitError() << "onnx node " << op.describe() << ": " << message;
  return failure();
}

FailureOr<int64_t> Node::axis(int64_t value, int64_t rank) {
  int64_t normalized = value < 0 ? value + rank : value;
  // A scalar has no axis: the patterns index the shape with the result.
  if (normalized < 0 || normalized >= rank) {
    return fail("axis " + llvm::Twine(value) + " is out of range for rank " +
                llvm::Twine(rank));
  }
  return normalized;
}

LogicalResult Node::normalizeAxes(SmallVectorImpl<int64_t> &axes,
                                  int64_t rank) {
  for (auto [i, value] : llvm::enumerate(axes)) {
    FailureOr<int64_t> normalized = axis(value, rank);
    if (failed(normalized)) {
      return failure();
    }
    value = *normalized;
    if (llvm::is_contained(ArrayRef<int64_t>(axes).take_front(i), value)) {
      return fail("axes lists axis " + llvm::Twine(value) + " twice");
    }
  }
  return success();
}

LogicalResult Node::replace(ValueRange values,
                            ArrayRef<bool> unsignedResults) {
  if (values.size() != numOutputs()) {
    return fail("the lowering made " + llvm::Twine(values.size()) +
                " results for " + llvm::Twine(numOutputs()) + " outputs");
  }
  SmallVector<Value> replacements;
  for (auto [index, value] : llvm::enumerate(values)) {
    // A last line of defence: no pattern may leave a shape that is not
    // one (each checks what it computes; this names any it missed).
    if (auto type = value ? dyn_cast<RankedTensorType>(value.getType())
                          : RankedTensorType();
        type && failed(checkShape(type.getShape(), type.getElementType(),
                                  "output " + llvm::Twine(index)))) {
      return failure();
    }
    Value result = op.getOutputs()[index];
    if (!value) {
      if (!result.use_empty()) {
        return fail("output " + llvm::Twine(index) +
                    " is used but not supported by this lowering");
      }
      replacements.push_back(nullptr);
      continue;
    }
    bool isUnsignedResult =
        index < unsignedResults.size() && unsignedResults[index];
    if (isUnsignedResult) {
      auto type = cast<RankedTensorType>(value.getType());
      Type onnxType =
          narrowElem ? Type(type.clone(narrowElem)) : unsignedType(type);
      value = UnrealizedConversionCastOp::create(b, loc, onnxType, value)
                  .getResult(0);
    }
    replacements.push_back(value);
  }
  for (auto [result, replacement] :
       llvm::zip(op.getOutputs(), replacements)) {
    if (replacement) {
      result.replaceAllUsesWith(replacement);
    }
  }
  b.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {

const LoweringTable &loweringTable() {
  static const LoweringTable table = [] {
    LoweringTable t;
    addElementwiseLowerings(t);
    addShapeLowerings(t);
    addReductionLowerings(t);
    addNNLowerings(t);
    addResizeLowerings(t);
    addQuantizationLowerings(t);
    addMiscLowerings(t);
    addRecurrentLowerings(t);
    addGridSampleLowerings(t);
    addSpectralLowerings(t);
    addMatrixLowerings(t);
    addRegionLowerings(t);
    addControlFlowLowerings(t);
    addDataDependentLowerings(t);
    addNonMaxSuppressionLowering(t);
    addSequenceLowerings(t);
    return t;
  }();
  return table;
}

/// The inputs an op type of the default domain requires: the least
/// min_input of its ONNX schemas over all opsets (onnx 1.12's
/// `onnx.defs.get_all_schemas_with_history()`), where it is not 1. Patterns
/// read their required inputs unchecked, so a node without them is refused
/// first.
unsigned requiredInputs(llvm::StringRef opType) {
  static const llvm::StringMap<unsigned> table = {
      {"Add", 2},
      {"And", 2},
      {"BatchNormalization", 5},
      {"BitShift", 2},
      {"CastLike", 2},
      {"Compress", 2},
      {"Constant", 0},
      {"Conv", 2},
      {"ConvInteger", 2},
      {"ConvTranspose", 2},
      {"CumSum", 2},
      {"DeformConv", 3},
      {"DequantizeLinear", 2},
      {"Div", 2},
      {"Equal", 2},
      {"Expand", 2},
      {"GRU", 3},
      {"Gather", 2},
      {"GatherElements", 2},
      {"GatherND", 2},
      {"Gemm", 2},
      {"Greater", 2},
      {"GreaterOrEqual", 2},
      {"GridSample", 2},
      {"InstanceNormalization", 3},
      {"LSTM", 3},
      {"LayerNormalization", 2},
      {"Less", 2},
      {"LessOrEqual", 2},
      // Loop's M and cond and Scan-8's sequence_lens may be empty (their
      // patterns check the inputs' places).
      {"Loop", 0},
      {"MatMul", 2},
      {"MatMulInteger", 2},
      {"MaxRoiPool", 2},
      {"MaxUnpool", 2},
      {"MelWeightMatrix", 5},
      {"Mod", 2},
      {"Mul", 2},
      {"NegativeLogLikelihoodLoss", 2},
      {"NonMaxSuppression", 2},
      {"OneHot", 3},
      {"Optional", 0},
      {"Or", 2},
      {"PRelu", 2},
      {"Pow", 2},
      {"QLinearConv", 8},
      {"QLinearMatMul", 8},
      {"QuantizeLinear", 2},
      {"RNN", 3},
      {"RandomNormal", 0},
      {"RandomUniform", 0},
      {"Range", 3},
      {"ReverseSequence", 2},
      {"RoiAlign", 3},
      {"STFT", 2},
      {"Scan", 0},
      {"Scatter", 3},
      {"ScatterElements", 3},
      {"ScatterND", 3},
      {"SequenceAt", 2},
      {"SequenceEmpty", 0},
      {"SequenceInsert", 2},
      {"SoftmaxCrossEntropyLoss", 2},
      {"Sub", 2},
      {"Tile", 2},
      {"Where", 3},
      {"Xor", 2},
  };
  auto it = table.find(opType);
  return it == table.end() ? 1 : it->second;
}

/// Checks the node's inputs and lowers it by the pattern of its op type.
LogicalResult lowerNode(NodeOp node, RewriterBase &rewriter) {
  const LoweringTable &table = loweringTable();
  Node context(node, rewriter);
  // Ops of other domains are registered as "<domain>.<op type>".
  std::string key = node.getOpType().str();
  if (!node.getDomain().empty() && node.getDomain() != "ai.onnx") {
    key = node.getDomain().str() + "." + key;
    if (!table.count(key)) {
      return context.fail("the domain '" + node.getDomain() +
                          "' is not supported");
    }
  }
  auto it = table.find(key);
  if (it == table.end()) {
    return context.fail("the op type is not supported");
  }
  if (!node.getSubgraphs().empty() && !table.subgraphs.contains(key)) {
    return context.fail("the op type takes no graph attribute");
  }
  bool takesDynamic = table.dynamic.contains(key);
  for (auto [index, input] : llvm::enumerate(node.getInputs())) {
    if (isa<NoneType>(input.getType())) {
      continue;
    }
    if (isa<util::ListType>(input.getType())) {
      if (key == "Scan") {
        // Loop carries sequences; ONNX's Scan takes tensors only.
        return context.fail("input " + llvm::Twine(index) +
                            " is a sequence or optional (" +
                            typeText(input.getType()) +
                            "); Scan's state variables and scan inputs are "
                            "tensors (ONNX allows sequences in Loop, not in "
                            "Scan)");
      }
      if (!takesLists(key)) {
        return context.fail("input " + llvm::Twine(index) +
                            " is a sequence "
                            "or optional (" +
                            typeText(input.getType()) +
                            "); the op type takes tensors");
      }
      continue;
    }
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type) {
      return context.fail("input " + llvm::Twine(index) + " has the type " +
                          typeText(input.getType()) + ", which has no rank");
    }
    if (!type.hasStaticShape() && !takesDynamic) {
      return context.fail(
          "input " + llvm::Twine(index) + " has the type " +
          typeText(input.getType()) + "; the " + node.getOpType() +
          " lowering takes static shapes only: fix the graph inputs' "
          "dimensions with --input-shape=NAME=DIMS");
    }
  }
  if (key == node.getOpType()) {
    unsigned required = requiredInputs(key);
    for (unsigned i = 0; i < required; ++i) {
      if (!context.has(i)) {
        return context.fail("input " + llvm::Twine(i) +
                            " is missing; the op type takes at least " +
                            llvm::Twine(required));
      }
    }
  }
  // Narrow types (float8, int4, uint4) are i8 storage here: only the op
  // types that convert or move them may see them.
  for (unsigned i = 0; i < context.numInputs(); ++i) {
    Type element = context.has(i) ? context.onnxElem(i) : Type();
    if (!element || !isNarrowElement(element)) {
      continue;
    }
    if (!takesNarrow(key)) {
      std::string text;
      llvm::raw_string_ostream(text) << element;
      return context.fail(
          "input " + llvm::Twine(i) + " has element type " + text +
          ", which Strata lowers only through Cast, CastLike, "
          "QuantizeLinear, DequantizeLinear and the ops that move data "
          "(Identity, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, "
          "Concat, Split, Slice, Gather, Expand, Tile, Shape, Size): cast "
          "it to a wider type first");
    }
    if (i == 0 && key != "Cast" && key != "CastLike" &&
        key != "QuantizeLinear" && key != "DequantizeLinear") {
      context.narrowElem = element;
    }
  }
  if (key == node.getOpType() && failed(checkInputSpecs(context))) {
    return failure();
  }
  rewriter.setInsertionPoint(node);
  return it->second(context);
}

/// An int4 or uint4 argument arrives as i8 values, one a byte: a call whose
/// values do not fit fails naming the argument (the graph input's name
/// when the block is the function's).
void checkInt4Argument(BlockArgument arg, RankedTensorType type,
                       RewriterBase &rewriter) {
  Location loc = arg.getLoc();
  bool isUnsigned = type.getElementType().isUnsignedInteger();
  int64_t lo = isUnsigned ? 0 : -8, hi = isUnsigned ? 15 : 7;
  std::string what = "argument " + std::to_string(arg.getArgNumber());
  if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())) {
    if (auto reflection =
            func->getAttrOfType<DictionaryAttr>(util::kReflectionAttrName)) {
      if (auto name = reflection.getAs<StringAttr>(
              "arg" + std::to_string(arg.getArgNumber()) + ".name")) {
        what = "graph input '" + name.getValue().str() + "' (" + what + ")";
      }
    }
  }
  Type i1 = rewriter.getI1Type();
  Type i8 = rewriter.getIntegerType(8);
  SmallVector<int64_t> axes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    axes.push_back(d);
  }
  Value all = reduce(
      rewriter, loc, arg, axes, scalar(rewriter, loc, i1, 1),
      [&](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value inRange = arith::AndIOp::create(
            b, l,
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, a[0],
                                  scalar(b, l, i8, static_cast<double>(lo))),
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle, a[0],
                                  scalar(b, l, i8, static_cast<double>(hi))));
        return arith::AndIOp::create(b, l, a[1], inRange);
      });
  Value ok = tensor::ExtractOp::create(rewriter, loc, all, ValueRange{});
  cf::AssertOp::create(
      rewriter, loc, ok,
      rewriter.getStringAttr(what + " is " + (isUnsigned ? "uint4" : "int4") +
                             ", given as " + (isUnsigned ? "uint8" : "int8") +
                             " values one a byte, and holds a value outside [" +
                             std::to_string(lo) + ", " + std::to_string(hi) +
                             "]"));
}

/// Unsigned block arguments arrive signless; a cast gives them back their
/// ONNX type for the patterns to see. So do unsigned initializers
/// (constants of the importer): signless constants of the same bits behind
/// such a cast.
void prepareBlock(Block &block, RewriterBase &rewriter) {
  rewriter.setInsertionPointToStart(&block);
  for (BlockArgument arg : block.getArguments()) {
    if (auto type = dyn_cast<RankedTensorType>(arg.getType());
        type && hasUnsignedElements(type)) {
      arg.setType(signlessType(type));
      auto cast =
          UnrealizedConversionCastOp::create(rewriter, arg.getLoc(), type, arg);
      arg.replaceAllUsesExcept(cast.getResult(0), cast);
      if (type.getElementType().isInteger(4)) {
        checkInt4Argument(arg, type, rewriter);
      }
    }
  }
  for (auto constant :
       llvm::make_early_inc_range(block.getOps<arith::ConstantOp>())) {
    auto type = dyn_cast<RankedTensorType>(constant.getType());
    auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!type || !value || !hasUnsignedElements(type)) {
      continue;
    }
    rewriter.setInsertionPoint(constant);
    Type storage = storageElement(type.getElementType());
    DenseElementsAttr stored;
    if (type.getElementType().isInteger(4)) {
      // int4 and uint4 are held extended to i8.
      bool isUnsigned = type.getElementType().isUnsignedInteger();
      stored = value.mapValues(storage, [&](const APInt &v) {
        return isUnsigned ? v.zext(8) : v.sext(8);
      });
    } else {
      stored = value.bitcast(storage);
    }
    auto signless =
        arith::ConstantOp::create(rewriter, constant.getLoc(), stored);
    auto cast = UnrealizedConversionCastOp::create(rewriter, constant.getLoc(),
                                                   type, signless.getResult());
    rewriter.replaceOp(constant, cast.getResult(0));
  }
}

} // namespace

LogicalResult mlir::strata::onnx::lowerNodes(Block &block,
                                             RewriterBase &rewriter) {
  prepareBlock(block, rewriter);
  expandQLinearConvs(block, rewriter);
  QuantizedGroups groups;
  groups.find(block);
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto node = dyn_cast<NodeOp>(op);
    if (!node || groups.isDeferred(node)) {
      continue;
    }
    if (const QuantizedGroup *group = groups.endingAt(node)) {
      if (NodeOp pool = groups.integerPool(*group, rewriter)) {
        if (failed(lowerNode(pool, rewriter))) {
          return failure();
        }
        continue;
      }
      FailureOr<bool> done = groups.lower(*group, rewriter);
      if (failed(done)) {
        return failure();
      }
      if (*done) {
        continue;
      }
      // Not one the integer path takes: its nodes one by one, in order.
      for (NodeOp member :
           {group->input, group->weight, group->bias, group->contraction,
            group->pool, group->activation}) {
        if (member && failed(lowerNode(member, rewriter))) {
          return failure();
        }
      }
    }
    if (failed(lowerNode(node, rewriter))) {
      return failure();
    }
  }
  return success();
}

Type mlir::strata::onnx::unsignedTensorType(RankedTensorType type) {
  return unsignedType(type);
}

namespace {

struct LowerONNXPass
    : mlir::strata::input::impl::LowerONNXPassBase<LowerONNXPass> {
  LogicalResult lowerFunction(func::FuncOp func) {
    IRRewriter rewriter(func.getContext());
    Block &entry = func.getBody().front();
    if (failed(lowerNodes(entry, rewriter))) {
      return failure();
    }
    // Results leave as signless tensors of the types computed.
    Operation *terminator = entry.getTerminator();
    for (OpOperand &operand : terminator->getOpOperands()) {
      if (auto cast =
              operand.get().getDefiningOp<UnrealizedConversionCastOp>()) {
        operand.set(cast.getInputs()[0]);
      }
      if (isa<NoneType>(operand.get().getType())) {
        return emitError(terminator->getLoc())
               << "graph output " << operand.getOperandNumber()
               << " is an absent value";
      }
    }
    func.setFunctionType(FunctionType::get(
        func.getContext(), entry.getArgumentTypes(),
        terminator->getOperandTypes()));
    // What the patterns left unused (casts, absent inputs, the original
    // weights of folded transposes) goes, in nested blocks (loop bodies,
    // branches) before the blocks around them.
    SmallVector<Block *> blocks;
    func.walk<WalkOrder::PostOrder>(
        [&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks) {
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block))) {
        if (isOpTriviallyDead(&op) ||
            (isa<UnrealizedConversionCastOp>(op) && op.use_empty())) {
          op.erase();
        }
      }
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      bool hasNodes = false;
      func.walk([&](Operation *op) {
        hasNodes |= isa<NodeOp, NoneOp>(op);
      });
      if (hasNodes && failed(lowerFunction(func))) {
        return signalPassFailure();
      }
    }
    // Argument and result names are kept for the module's reflection.
  }
};

} // namespace
