// Lowering.h - what the ONNX lowering patterns share: the node being
// lowered (its inputs as lowered values, attributes, constant operands,
// errors), the table of patterns by op type, and the tensor builders.

#ifndef STRATA_INPUTCONVERSION_ONNX_LOWERING_H
#define STRATA_INPUTCONVERSION_ONNX_LOWERING_H

#include "Strata/Dialect/ONNX/IR/ONNXOps.h"
#include "Strata/Dialect/Util/IR/UtilOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <optional>

namespace mlir::strata::onnx {

/// One onnx.node while it is lowered. Its inputs are already lowered: each
/// is a ranked tensor of static shape with a signless element type (an
/// unsigned ONNX tensor is such a value behind an unrealized cast to its
/// unsigned type, which `isUnsigned` reads).
class Node {
public:
  Node(NodeOp op, RewriterBase &rewriter);

  NodeOp op;
  RewriterBase &b;
  Location loc;
  /// The narrow element type (float8, int4, uint4) of a data-movement
  /// node's input: an output marked unsigned in `replace` then takes it.
  Type narrowElem;

  int64_t opset() { return op.getOpset(); }
  llvm::StringRef opType() { return op.getOpType(); }
  unsigned numInputs() { return op.getInputs().size(); }
  unsigned numOutputs() { return op.getOutputs().size(); }
  /// Whether input `i` exists and is not an absent optional input.
  bool has(unsigned i);
  /// Input `i` as a signless tensor (null when absent).
  Value in(unsigned i);
  RankedTensorType type(unsigned i);
  Type elem(unsigned i) { return type(i).getElementType(); }
  ArrayRef<int64_t> shape(unsigned i) { return type(i).getShape(); }
  int64_t rank(unsigned i) { return type(i).getRank(); }
  /// Whether input `i` travels behind a cast to its ONNX type: an unsigned
  /// integer, or a narrow type (float8, int4, uint4; see isNarrowElement),
  /// which only the op types of `takesNarrow` see.
  bool isUnsigned(unsigned i);
  /// The ONNX element type of input `i` (ui8, f8E4M3FN, i4, ... where the
  /// lowered value is signless); null when absent.
  Type onnxElem(unsigned i);
  /// Whether output `i` is used (an unused optional output is skipped).
  bool outputUsed(unsigned i);

  std::optional<int64_t> intAttr(llvm::StringRef name);
  int64_t intAttr(llvm::StringRef name, int64_t otherwise) {
    return intAttr(name).value_or(otherwise);
  }
  std::optional<double> floatAttr(llvm::StringRef name);
  double floatAttr(llvm::StringRef name, double otherwise) {
    return floatAttr(name).value_or(otherwise);
  }
  std::optional<SmallVector<int64_t>> intsAttr(llvm::StringRef name);
  std::optional<SmallVector<double>> floatsAttr(llvm::StringRef name);
  std::optional<llvm::StringRef> stringAttr(llvm::StringRef name);
  DenseElementsAttr tensorAttr(llvm::StringRef name);

  /// Input `i` when it is a compile-time constant of at most kFoldLimit
  /// elements (what patterns read value by value), else null.
  DenseElementsAttr constant(unsigned i);
  /// Fails with an error naming `what` when input `i` is a constant of
  /// more than kFoldLimit elements, which `constant` does not return.
  LogicalResult checkReadable(unsigned i, llvm::StringRef what);
  /// Input `i` as integers, which must be known at compile time; fails
  /// with an error naming `what` otherwise.
  FailureOr<SmallVector<int64_t>> constInts(unsigned i, llvm::StringRef what);
  FailureOr<SmallVector<double>> constFloats(unsigned i, llvm::StringRef what);
  /// Input `i` as one integer (or number): a constant holding exactly one
  /// value, else an error naming `what`.
  FailureOr<int64_t> constInt(unsigned i, llvm::StringRef what);
  FailureOr<double> constFloat(unsigned i, llvm::StringRef what);
  /// Succeeds when `shape` (computed from attributes or constants) is a
  /// tensor shape: no negative dimension, fewer than 2^62 bytes of
  /// `element`; else an error naming `what`.
  LogicalResult checkShape(ArrayRef<int64_t> shape, Type element,
                           const llvm::Twine &what);

  /// Replaces the node's outputs (a null value for an unused output);
  /// `unsignedResults[i]` marks output i as an unsigned ONNX tensor.
  LogicalResult replace(ValueRange values,
                        ArrayRef<bool> unsignedResults = {});
  /// Emits "<node>: <message>" at the node and returns failure.
  LogicalResult fail(const llvm::Twine &message);

  /// Normalizes a possibly negative axis for `rank`; fails when outside.
  FailureOr<int64_t> axis(int64_t value, int64_t rank);
  /// Normalizes each of `axes` for `rank` in place; fails when one is
  /// outside or listed twice (each pattern counts or inserts each once).
  LogicalResult normalizeAxes(SmallVectorImpl<int64_t> &axes, int64_t rank);

  /// Dimension `d` of input `i` (an index attribute when static, else a
  /// tensor.dim on the host), and all of them.
  OpFoldResult dim(unsigned i, int64_t d);
  SmallVector<OpFoldResult> dims(unsigned i);
  /// Whether every present input has a static shape.
  bool allStatic();
  /// Input `i`'s integers as index sizes: attributes where they are known
  /// at compile time, index values computed on the host otherwise (from a
  /// host vector, or read element by element from a small integer tensor
  /// with tensor.extract, which waits for the kernel that made it). Fails
  /// naming `what` when the input is not an integer tensor of rank <= 1
  /// with a static length of at most kHostElements.
  FailureOr<SmallVector<OpFoldResult>> hostInts(unsigned i,
                                                llvm::StringRef what);
  /// Input `i`'s numbers (integers or floats) as f64: attributes where
  /// they are known at compile time, f64 values computed on the host
  /// otherwise (read as `hostInts` reads). Fails naming `what` when the
  /// input is not a tensor of rank <= 1 with a static length of at most
  /// kHostElements.
  FailureOr<SmallVector<OpFoldResult>> hostFloats(unsigned i,
                                                  llvm::StringRef what);
  /// Input `i`'s axes for `rank` as index sizes, each normalized (a
  /// negative axis counts from the end): attributes when the input is a
  /// constant (checked here, failing when one is outside or listed twice),
  /// else values read on the host and checked at run time for the same.
  FailureOr<SmallVector<OpFoldResult>> hostAxes(unsigned i, int64_t rank,
                                                llvm::StringRef what);
  /// Input `i` (holding one value) as a scalar of its element type on the
  /// host: its element when it is a host vector, else a tensor.extract.
  Value hostScalarIn(unsigned i);
  /// Asserts `ok` (an i1) at run time: a call where it is false fails with
  /// "onnx node <node>: <message>". Nothing is emitted when `ok` folded to
  /// true.
  void check(Value ok, const llvm::Twine &message);
};

/// Checks what the node's op type assumes of its inputs' ranks and element
/// types (InputSpecs.cpp) before its pattern reads them: fails with an
/// error naming the input, else succeeds (also for op types without a
/// spec).
LogicalResult checkInputSpecs(Node &n);

/// `type` as MLIR prints it, for error messages.
std::string typeText(Type type);

using LowerFn = std::function<LogicalResult(Node &)>;

/// The patterns by op type. `dynamic` names the op types whose pattern
/// takes inputs with dynamic dimensions; a node of any other op type with
/// such an input is refused with an error naming the input and its type.
struct LoweringTable : llvm::StringMap<LowerFn> {
  llvm::StringSet<> dynamic;
  /// The op types whose nodes hold subgraphs (If, Loop, Scan); a node of
  /// any other op type with a graph attribute is refused.
  llvm::StringSet<> subgraphs;
  /// Marks each of `opTypes` as taking dynamic dimensions.
  void allowDynamic(std::initializer_list<llvm::StringRef> opTypes) {
    for (llvm::StringRef opType : opTypes) {
      dynamic.insert(opType);
    }
  }
};

void addElementwiseLowerings(LoweringTable &table);
void addShapeLowerings(LoweringTable &table);
void addReductionLowerings(LoweringTable &table);
void addNNLowerings(LoweringTable &table);
void addResizeLowerings(LoweringTable &table);
void addQuantizationLowerings(LoweringTable &table);
void addMiscLowerings(LoweringTable &table);
void addRecurrentLowerings(LoweringTable &table);
void addGridSampleLowerings(LoweringTable &table);
/// STFT and MelWeightMatrix (SpectralOps.cpp).
void addSpectralLowerings(LoweringTable &table);
/// Det (MatrixOps.cpp).
void addMatrixLowerings(LoweringTable &table);
/// MaxUnpool, RoiAlign and DeformConv: ops that place or sample windows of
/// feature maps at places their inputs compute (RegionOps.cpp).
void addRegionLowerings(LoweringTable &table);
void addControlFlowLowerings(LoweringTable &table);

/// Lowers the onnx.node ops of `block` in order, each by its op type's
/// pattern (a subgraph's nodes are lowered by the pattern of the node that
/// holds them, ControlFlowOps.cpp). Unsigned block arguments and constants
/// are first made signless values behind a cast to their unsigned type, as
/// the patterns expect. Fails after an error naming the node.
LogicalResult lowerNodes(Block &block, RewriterBase &rewriter);
/// `type` with its signless integer elements unsigned (the ONNX type an
/// unsigned tensor travels behind).
Type unsignedTensorType(RankedTensorType type);

/// Sequences and optionals as lists on the host (SequenceOps.cpp).
void addSequenceLowerings(LoweringTable &table);
/// The op types that take sequence or optional inputs (`!util.list`);
/// a node of any other op type with one is refused.
bool takesLists(llvm::StringRef opType);
/// The type both `a` and `b` are instances of: tensors of one element type
/// dynamic where their dimensions differ (unranked where their ranks do),
/// lists of the join of their elements, `none` joins anything. Null when
/// they have nothing in common.
Type joinValueTypes(Type a, Type b);
/// `value` seen as `type` (a join of its type): a tensor.cast or a
/// util.list.cast.
Value castValueTo(OpBuilder &b, Location loc, Value value, Type type);
/// The number of elements of a `!util.list` (an index).
Value listSize(OpBuilder &b, Location loc, Value list);
/// A new list of `size` (empty) elements.
Value newList(OpBuilder &b, Location loc, util::ListType type, Value size);
/// NonZero and Unique (DataDependentOps.cpp).
void addDataDependentLowerings(LoweringTable &table);
/// NonMaxSuppression (NonMaxSuppression.cpp).
void addNonMaxSuppressionLowering(LoweringTable &table);

/// Compress whose condition is known only at run time: the count of kept
/// slices is computed by kernels and read back (DataDependentOps.cpp).
LogicalResult lowerCompressAtRunTime(Node &n);

/// A(..., M, K) x B(..., K, N) with numpy batch broadcasting (rank >= 2),
/// accumulated in f32 for f16/bf16 (NNOps.cpp).
Value matmulValues(OpBuilder &b, Location loc, Value lhs, Value rhs);
/// The node's convolution (Conv's attributes) of `x` with `weight`, any
/// element type, in NCHW (NCL), without bias (NNOps.cpp).
FailureOr<Value> convolveNCHW(Node &n, Value x, Value weight);

/// The 2-D window of a Conv node (its strides, dilations, pads and
/// auto_pad) over input spatial dims `in` with kernel `kernel`.
struct ConvWindow {
  SmallVector<int64_t> strides, dilations, padBegin, padEnd, out;
};
/// Fails with an error naming the node when the attributes are invalid
/// (NNOps.cpp).
FailureOr<ConvWindow> convWindow2D(Node &n, ArrayRef<int64_t> in,
                                   ArrayRef<int64_t> kernel);

/// One quantized layer in ONNX's QDQ form (QDQFusion.cpp): the
/// DequantizeLinear nodes of its activation, constant weight and optional
/// bias, the Conv / Gemm / MatMul, an optional Relu or Clip and the
/// QuantizeLinear of its output, each the only user of the one before.
struct QuantizedGroup {
  NodeOp input, weight, bias, contraction, activation, quantize;
  /// Or a MaxPool between the DequantizeLinear (`input`) and the
  /// QuantizeLinear: with the same per-tensor parameters on both, the
  /// pool runs on the quantized values (no contraction).
  NodeOp pool;
};

/// The quantized groups of a function, found on its onnx.node ops before
/// any is lowered. The lowering skips a group's nodes (they are deferred)
/// and lowers the group at its QuantizeLinear, as an integer contraction
/// when it is one the integer path takes, else node by node.
/// Each QLinearConv (default domain) with constant scales and weight
/// becomes the QDQ group it means - DequantizeLinear of its input, of its
/// weight (axis 0) and of its int32 bias (scale x_scale * w_scale),
/// Conv, QuantizeLinear - so that QuantizedGroups lowers it on the integer
/// path (QDQFusion.cpp) rather than node by node.
void expandQLinearConvs(Block &block, RewriterBase &rewriter);

class QuantizedGroups {
public:
  void find(Block &block);
  bool isDeferred(Operation *op) const;
  /// The group whose QuantizeLinear is `op`, or null.
  const QuantizedGroup *endingAt(Operation *op) const;
  /// Lowers the group as an i8 x i8 -> i32 matmul (a convolution through
  /// im2col) with a requantizing epilogue at its QuantizeLinear: true when
  /// done, false when the integer path does not take it (nothing was
  /// changed), failure after an error.
  FailureOr<bool> lower(const QuantizedGroup &group, RewriterBase &rewriter);
  /// A pool group (QuantizedGroup::pool) whose DequantizeLinear and
  /// QuantizeLinear share their parameters: replaced by the same MaxPool
  /// of the quantized input, returned for the caller to lower; null (and
  /// nothing changed) otherwise.
  NodeOp integerPool(const QuantizedGroup &group, RewriterBase &rewriter);

private:
  llvm::DenseMap<Operation *, QuantizedGroup> groups;
  llvm::DenseSet<Operation *> deferred;
};

//===----------------------------------------------------------------------===//
// Builders (Builders.cpp)
//===----------------------------------------------------------------------===//

using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// The numpy broadcast of `shapes`, or failure when they do not broadcast.
FailureOr<SmallVector<int64_t>>
broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes);

/// A linalg.generic computing `body` elementwise over `inputs` broadcast
/// (numpy rules) to `shape`, with a `resultElement` result. All-constant
/// inputs of at most kFoldLimit elements fold to a constant; host vectors
/// (shape arithmetic) are computed element by element on the host. A
/// dynamic dimension of `shape` takes its size from the inputs.
Value elementwise(OpBuilder &b, Location loc, ValueRange inputs,
                  ArrayRef<int64_t> shape, Type resultElement, BodyFn body);

/// A linalg.generic whose body may read `linalg.index`: `inputs` are read
/// through `inputMaps` (over the result's dims), the result is `type`.
/// Its dynamic dimensions are `sizes` when given, else those of an input
/// the same loop indexes (which must exist).
Value generic(OpBuilder &b, Location loc, ValueRange inputs,
              ArrayRef<AffineMap> inputMaps, RankedTensorType type, BodyFn body,
              ArrayRef<OpFoldResult> sizes = {});

/// Folds a linalg.generic whose inputs are all constants by evaluating its
/// body per element (parallel loops only): the constant, or null.
DenseElementsAttr foldGeneric(linalg::GenericOp op);

/// Elements folded at most at compile time by foldGeneric.
constexpr int64_t kFoldLimit = 1 << 20;
/// Body ops (at least one per element) foldGeneric evaluates at most: it
/// folds each op of the body through attributes, about a microsecond a
/// time, so a long body over many elements (a nearest Resize's index
/// arithmetic over 400k elements took 7 s) is left to a kernel. Up to four
/// ops over the largest foldable constant.
constexpr int64_t kFoldWorkLimit = 4 * kFoldLimit;

/// A constant (arith.constant) of `value`.
Value constant(OpBuilder &b, Location loc, DenseElementsAttr value);
/// A scalar constant of `type` (integer, index or float) of `value`.
Value scalar(OpBuilder &b, Location loc, Type type, double value);
/// A tensor of `shape` filled with `value` (a constant splat).
Value splat(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type type,
            double value);
/// tensor.empty + linalg.fill.
Value filled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
             Value scalarValue);
/// The smallest/largest value of `type` (-inf/+inf for floats).
Value lowest(OpBuilder &b, Location loc, Type type);
Value highest(OpBuilder &b, Location loc, Type type);

/// A static reshape (collapse to 1-D, expand to `shape`; constants fold).
Value reshape(OpBuilder &b, Location loc, Value input,
              ArrayRef<int64_t> shape);
/// linalg.transpose by `perm` (constants fold).
Value transpose(OpBuilder &b, Location loc, Value input,
                ArrayRef<int64_t> perm);
/// tensor.extract_slice with static offsets, sizes and strides (constants
/// fold).
Value slice(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> offsets,
            ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides);
/// Broadcasts `input` (numpy rules) to `sizes`, which may be dynamic: a
/// static 1 of the input broadcasts, any other dimension is read as it is
/// (the loop checks compare its size with the result's at run time).
Value broadcastToSizes(OpBuilder &b, Location loc, Value input,
                       ArrayRef<OpFoldResult> sizes);
/// Broadcasts `input` (numpy rules) to `shape`.
Value broadcastTo(OpBuilder &b, Location loc, Value input,
                  ArrayRef<int64_t> shape);
/// Converts a scalar between element types; `fromUnsigned`/`toUnsigned`
/// choose the integer conversions (ONNX Cast semantics, saturating
/// nothing: float -> int truncates toward zero).
Value convertScalar(OpBuilder &b, Location loc, Value value, Type to,
                    bool fromUnsigned = false, bool toUnsigned = false);
/// Converts a whole tensor's element type.
Value convertTensor(OpBuilder &b, Location loc, Value input, Type to,
                    bool fromUnsigned = false, bool toUnsigned = false);

//===----------------------------------------------------------------------===//
// Narrow element types (NarrowTypes.cpp)
//===----------------------------------------------------------------------===//

/// ONNX's float8 types (opset 19), int4 and uint4 (opset 21). While the
/// pass runs, a tensor of one of them is an i8 tensor (the float8 bit
/// pattern; the int4 value sign-extended, the uint4 value zero-extended)
/// behind an unrealized cast to the narrow type.
bool isNarrowElement(Type type);
/// Whether `type` is one of the four float8 types.
bool isFloat8(Type type);
/// Whether op type `opType` lowers narrow-typed inputs (Cast, CastLike,
/// QuantizeLinear, DequantizeLinear and the ops that only move data).
bool takesNarrow(llvm::StringRef opType);
/// The f32 value of float8 bits `bits` (i8) of type `f8`.
Value float8ToF32(OpBuilder &b, Location loc, Value bits, FloatType f8);
/// `x` (f32) as float8 bits (i8) of type `f8`, rounded to nearest even;
/// out of range values (and infinities) become the largest finite value
/// when `saturate`, else NaN (E5M2: infinity), as ONNX's Cast-19 says.
Value f32ToFloat8(OpBuilder &b, Location loc, Value x, FloatType f8,
                  bool saturate);
/// Converts scalar `value` (a lowered storage value) from ONNX element type
/// `from` to ONNX element type `to` with ONNX's Cast rules, either of which
/// may be narrow; the result is `to`'s storage type (i8 when narrow).
Value convertOnnxScalar(OpBuilder &b, Location loc, Value value, Type from,
                        Type to, bool saturate);
/// The storage (lowered) element type of ONNX element type `type`.
Type storageElement(Type type);
/// The ONNX element type of TensorProto.DataType `code` (unsigned
/// integers as such), null for codes not lowered (strings, complex).
Type onnxDataType(MLIRContext *ctx, int64_t code);

/// The loops of a reduction of `input` over `axes`: the kept dimensions'
/// sizes, the map from the loops to them (the result's indexing map) and
/// each loop's iterator type.
struct ReductionLoops {
  SmallVector<OpFoldResult> keptSizes;
  AffineMap keptMap;
  SmallVector<utils::IteratorType> iterators;
};
ReductionLoops reductionLoops(OpBuilder &b, Location loc, Value input,
                              ArrayRef<int64_t> axes);

/// A reduction over `axes` of `input` (kept dims dropped) with `init` and
/// the combining `body(acc... , elem)`: body gets (element, accumulator).
Value reduce(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
             Value init, BodyFn body);

/// The body of a float contraction's linalg.generic: yields
/// out + in0 * in1 (block arguments in0, in1, out).
void yieldFloatMulAdd(OpBuilder &b, Location loc, ValueRange args);

/// Concatenates along `axis` (tensor.concat; constants fold).
Value concat(OpBuilder &b, Location loc, ValueRange inputs, int64_t axis);

/// `value` when it is a constant (arith.constant) of any size, else null:
/// for patterns that read it once, in bulk (Node::constant bounds what is
/// read value by value).
DenseElementsAttr constantOf(Value value);
/// An integer constant's values (zero-extended when `isUnsigned`).
SmallVector<int64_t> intsOf(DenseElementsAttr attr, bool isUnsigned);

/// An 8-bit value as the int8 microkernels read it: a u8's top bit flipped
/// (x - 128 as i8) when `isUnsigned`, an i8 as it is.
Value flipTopBit(OpBuilder &b, Location loc, Value v, bool isUnsigned);
/// The windows of an NHWC i8 tensor (padded already) as the rows of a
/// matrix (im2col): one row per output pixel of `window` (batch, y, x), its
/// kh x kw x channels taps in that order, each through flipTopBit. A 1x1
/// window at stride 1 over all of the input, not flipped, is a view.
Value windowRows(OpBuilder &b, Location loc, Value nhwc,
                 const ConvWindow &window, int64_t kh, int64_t kw,
                 bool isUnsigned);

/// A constant made of `source` elements gathered by `indexOf`: for each
/// multi-index of `type` (row-major), the linear index into `source`.
DenseElementsAttr gatherConstant(
    DenseElementsAttr source, RankedTensorType type,
    function_ref<int64_t(ArrayRef<int64_t>)> indexOf);

/// Row-major strides of `shape` (those of a shape without elements
/// saturate at INT64_MAX where its dimensions' product overflows).
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape);

bool isFloat(Type type);

/// `fn` computed in f32 for f16/bf16/f64 scalars: the kernels approximate
/// transcendental functions (exp, log, tanh, ...) in f32 only.
Value viaF32(OpBuilder &b, Location loc, Value x,
             function_ref<Value(Value)> fn);
Value expOf(OpBuilder &b, Location loc, Value x);
Value logOf(OpBuilder &b, Location loc, Value x);

//===----------------------------------------------------------------------===//
// Sizes and host vectors (HostShapes.cpp)
//===----------------------------------------------------------------------===//

/// Dimension `d` of the tensor `value`: an index attribute when static,
/// else a tensor.dim.
OpFoldResult dimOf(OpBuilder &b, Location loc, Value value, int64_t d);
SmallVector<OpFoldResult> dimsOf(OpBuilder &b, Location loc, Value value);
/// The static shape of `sizes`: each attribute's value, kDynamic for each
/// value.
SmallVector<int64_t> staticShapeOf(ArrayRef<OpFoldResult> sizes);
/// `size` as an index value (a constant for an attribute).
Value indexValueOf(OpBuilder &b, Location loc, OpFoldResult size);
/// Index arithmetic on sizes that folds constants: the result is an
/// attribute when both operands are.
OpFoldResult addSizes(OpBuilder &b, Location loc, OpFoldResult lhs,
                      OpFoldResult rhs);
OpFoldResult subSizes(OpBuilder &b, Location loc, OpFoldResult lhs,
                      OpFoldResult rhs);
OpFoldResult mulSizes(OpBuilder &b, Location loc, OpFoldResult lhs,
                      OpFoldResult rhs);
/// The product of `sizes` (1 for none).
OpFoldResult productOf(OpBuilder &b, Location loc,
                       ArrayRef<OpFoldResult> sizes);
/// `condition` (an i1 on the host) ? `whenTrue` : `whenFalse` on sizes:
/// the chosen one when `condition` folds to a constant or both are the same
/// constant, else an arith.select.
OpFoldResult selectSize(OpBuilder &b, Location loc, Value condition,
                        OpFoldResult whenTrue, OpFoldResult whenFalse);
OpFoldResult minSizes(OpBuilder &b, Location loc, OpFoldResult lhs,
                      OpFoldResult rhs);
OpFoldResult maxSizes(OpBuilder &b, Location loc, OpFoldResult lhs,
                      OpFoldResult rhs);
/// `lhs pred rhs` on sizes, as an i1 on the host (a constant when both are
/// constants).
Value compareSizes(OpBuilder &b, Location loc, arith::CmpIPredicate pred,
                   OpFoldResult lhs, OpFoldResult rhs);
/// Whether one of `axes` (normalized, as from Node::hostAxes) is `d`.
Value isListedAxis(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> axes,
                   int64_t d);
/// `values[j]` for the `j` whose `axes[j]` is `d` (the axes are distinct),
/// else `otherwise`: what Slice and Pad take for dimension `d` from inputs
/// listed by axis.
OpFoldResult valueForAxis(OpBuilder &b, Location loc,
                          ArrayRef<OpFoldResult> axes,
                          ArrayRef<OpFoldResult> values, int64_t d,
                          OpFoldResult otherwise);
/// tensor.empty of `sizes` (its dynamic dimensions are the values).
Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type element);

/// Most elements a host vector holds (a shape's rank, Slice's starts).
constexpr int64_t kHostElements = 64;

/// The elements of `value` when it is a host vector: a rank-0 or rank-1
/// tensor of at most kHostElements integers or floats, each known on the
/// host without a kernel (a constant, or a tensor.from_elements of
/// scalars). Each element is an attribute (a constant) or a scalar value of
/// the element type.
std::optional<SmallVector<OpFoldResult>> hostElements(Value value);
/// `value` (a scalar) as a constant attribute when it computes from
/// constants alone (folding the ops that make it), else null: shape
/// arithmetic on a mix of known and dynamic dimensions keeps the known
/// ones static.
Attribute foldHostScalar(Value value);
/// `value` (a scalar) simplified by folding: a constant attribute when it
/// computes from constants, else the value its ops fold to (x * 1 is x).
OpFoldResult simplifyHostScalar(Value value);
/// The dimension of `tensor` that `size` reads (through index casts), if it
/// is a tensor.dim of it.
std::optional<int64_t> dimIndexOf(Value size, Value tensor);
/// Whether `value` is a host vector with at least one element that is not
/// a constant (what shape arithmetic computes from dynamic dimensions).
bool isComputedHostVector(Value value);
/// A host vector of `type` holding `elements` (attributes or scalars of the
/// element type): a constant when every element is one, else a
/// tensor.from_elements.
Value hostVector(OpBuilder &b, Location loc, RankedTensorType type,
                 ArrayRef<OpFoldResult> elements);
/// Element `element` as a scalar value of `type` (a constant for an
/// attribute).
Value hostScalar(OpBuilder &b, Location loc, Type type, OpFoldResult element);

/// `input` (row-major) viewed as `resultType`, whose dynamic dimensions are
/// `sizes`' values: a collapse to 1-D and an expand, which the host lowers
/// to a new buffer view. The element counts must agree (the callers check).
Value viewAs(OpBuilder &b, Location loc, Value input,
             RankedTensorType resultType, ArrayRef<OpFoldResult> sizes);
/// A reshape of `input` to `sizes`, which may be dynamic: a view of the
/// same row-major buffer (collapse to 1-D, expand to `sizes`; the static
/// form is `reshape`).
Value reshapeTo(OpBuilder &b, Location loc, Value input,
                ArrayRef<OpFoldResult> sizes);
/// tensor.empty + linalg.fill of `sizes`, which may be dynamic.
Value filledTo(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
               Value scalarValue);

//===----------------------------------------------------------------------===//
// Selections whose count decides a shape (DataDependentOps.cpp)
//===----------------------------------------------------------------------===//

/// Inclusive prefix sums of `x`, a 1-D i64 tensor (a 0/1 selection), by a
/// Hillis-Steele scan: ceil(log2 n) kernels, unrolled for a static n, in an
/// scf.while on the host for a dynamic one.
Value inclusiveScan(OpBuilder &b, Location loc, Value x);
/// The last element of `inclusive` (a 1-D i64 prefix count) read back on
/// the host as an index (0 when it is empty): the count of a selection.
/// The host waits there for the kernels that made it.
OpFoldResult readCount(OpBuilder &b, Location loc, Value inclusive);
/// For each k in [0, count): the position of the (k+1)-th selected element
/// (1-D i64), by a binary search over the prefix count `inclusive`. A
/// dynamic length must be below 2^40 (the callers check).
Value selectedPositions(OpBuilder &b, Location loc, Value inclusive,
                        OpFoldResult count);

} // namespace mlir::strata::onnx

#endif // STRATA_INPUTCONVERSION_ONNX_LOWERING_H
