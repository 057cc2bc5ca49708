// InputSpecs.cpp - what each op type's pattern assumes of its inputs
// (ranks, element types) as one table, checked before the pattern runs: a
// model may hand any node inputs of any rank and type, and the patterns
// index shapes and build arithmetic on what the ONNX schemas promise.

#include "Lowering.h"

#include <limits>

using namespace mlir;
using namespace mlir::strata;
using namespace mlir::strata::onnx;

namespace {

/// The element types an input may have (ONNX's type constraints, narrowed
/// to what the pattern lowers).
enum class Elements {
  Any,
  Float,   // f16, bf16, f32, f64
  Integer, // integers other than bool, signed or unsigned
  Index,   // int32 or int64 (ONNX's tensor(int32), tensor(int64))
  Numeric, // Float or Integer
  Bool,    // i1
};

constexpr int64_t kAnyRank = std::numeric_limits<int64_t>::max();

/// What one input must be. Built in the table below as, for example,
/// `in(1).sameRankAs(0).sameElementAs(0)`.
struct InputRule {
  unsigned input;
  int64_t minRank = 0;
  int64_t maxRank = kAnyRank;
  Elements elements = Elements::Any;
  int sameElement = -1;  // an input whose element type this one must have
  int sameRank = -1;     // an input whose rank this one must have
  bool channels = false; // 1-D, one value per channel (input 0's dim 1)

  constexpr InputRule rank(int64_t least, int64_t most = kAnyRank) const {
    InputRule r = *this;
    r.minRank = least;
    r.maxRank = most;
    return r;
  }
  constexpr InputRule rankIs(int64_t value) const { return rank(value, value); }
  constexpr InputRule of(Elements kind) const {
    InputRule r = *this;
    r.elements = kind;
    return r;
  }
  constexpr InputRule sameElementAs(int other) const {
    InputRule r = *this;
    r.sameElement = other;
    return r;
  }
  constexpr InputRule sameRankAs(int other) const {
    InputRule r = *this;
    r.sameRank = other;
    return r;
  }
  constexpr InputRule perChannel() const {
    InputRule r = *this;
    r.channels = true;
    return r;
  }
};

constexpr InputRule in(unsigned input) { return InputRule{input}; }

struct OpSpec {
  SmallVector<InputRule, 4> inputs;
  /// Every present input has input 0's element type (variadic op types:
  /// Concat, Sum, Max, ...).
  bool allSameElement = false;
};

const llvm::StringMap<OpSpec> &specs() {
  using E = Elements;
  static const llvm::StringMap<OpSpec> table = [] {
    llvm::StringMap<OpSpec> t;
    // Convolutions and pools: N x C x spatial..., weights of the same rank.
    t["Conv"] = {{in(0).rank(3, 5).of(E::Float),
                  in(1).sameRankAs(0).sameElementAs(0),
                  in(2).rankIs(1).sameElementAs(0)}};
    t["ConvTranspose"] = {{in(0).rank(3, 5).of(E::Float),
                           in(1).sameRankAs(0).sameElementAs(0),
                           in(2).rankIs(1).sameElementAs(0)}};
    t["ConvInteger"] = {
        {in(0).rank(3, 5).of(E::Integer), in(1).sameRankAs(0).of(E::Integer),
         in(2).rank(0, 1).sameElementAs(0), in(3).rank(0, 1).sameElementAs(1)}};
    t["QLinearConv"] = {
        {in(0).rank(3, 5).of(E::Integer), in(1).rank(0, 1).of(E::Float),
         in(2).rank(0, 1).sameElementAs(0), in(3).sameRankAs(0).of(E::Integer),
         in(4).rank(0, 1).sameElementAs(1), in(5).rank(0, 1).sameElementAs(3),
         in(6).rank(0, 1).sameElementAs(1), in(7).rank(0, 1).of(E::Integer),
         in(8).rankIs(1).of(E::Integer)}};
    t["MaxPool"] = {{in(0).rank(3, 5).of(E::Numeric)}};
    t["AveragePool"] = {{in(0).rank(3, 5).of(E::Float)}};
    t["GlobalAveragePool"] = {{in(0).rank(3).of(E::Float)}};
    t["LpPool"] = {{in(0).rank(3, 5).of(E::Float)}};
    t["GlobalLpPool"] = {{in(0).rank(3, 5).of(E::Float)}};
    t["LpNormalization"] = {{in(0).rank(1).of(E::Float)}};
    t["GlobalMaxPool"] = {{in(0).rank(3).of(E::Float)}};
    // Normalizations: statistics are per channel.
    t["BatchNormalization"] = {{in(0).rank(1).of(E::Float),
                                in(1).perChannel().sameElementAs(0),
                                in(2).perChannel().sameElementAs(0),
                                in(3).perChannel().sameElementAs(0),
                                in(4).perChannel().sameElementAs(0)}};
    t["InstanceNormalization"] = {{in(0).rank(3).of(E::Float),
                                   in(1).perChannel().sameElementAs(0),
                                   in(2).perChannel().sameElementAs(0)}};
    t["LayerNormalization"] = {{in(0).rank(1).of(E::Float),
                                in(1).sameElementAs(0),
                                in(2).sameElementAs(0)}};
    t["GroupNormalization"] = {{in(0).rank(3).of(E::Float),
                                in(1).rankIs(1).sameElementAs(0),
                                in(2).rankIs(1).sameElementAs(0)}};
    t["LRN"] = {{in(0).rank(3).of(E::Float)}};
    t["MeanVarianceNormalization"] = {{in(0).of(E::Float)}};
    // Contractions.
    t["MatMul"] = {
        {in(0).rank(1).of(E::Numeric), in(1).rank(1).sameElementAs(0)}};
    t["Gemm"] = {{in(0).rankIs(2).of(E::Numeric),
                  in(1).rankIs(2).sameElementAs(0),
                  in(2).rank(0, 2).sameElementAs(0)}};
    t["MatMulInteger"] = {{in(0).of(E::Integer), in(1).of(E::Integer),
                           in(2).rank(0, 1).sameElementAs(0),
                           in(3).rank(0, 1).sameElementAs(1)}};
    t["QLinearMatMul"] = {
        {in(0).of(E::Integer), in(1).rank(0, 1).of(E::Float),
         in(2).rank(0, 1).sameElementAs(0), in(3).of(E::Integer),
         in(4).rank(0, 1).sameElementAs(1), in(5).rank(0, 1).sameElementAs(3),
         in(6).rank(0, 1).sameElementAs(1), in(7).rank(0, 1).of(E::Integer)}};
    t["Einsum"] = {{in(0).of(E::Numeric)}, /*allSameElement=*/true};
    // Gathers and scatters: indices are int32 or int64.
    t["Gather"] = {{in(0).rank(1), in(1).of(E::Index)}};
    t["GatherElements"] = {{in(0).rank(1), in(1).sameRankAs(0).of(E::Index)}};
    t["GatherND"] = {{in(0).rank(1), in(1).rank(1).of(E::Index)}};
    t["ScatterElements"] = {{in(0).rank(1), in(1).sameRankAs(0).of(E::Index),
                             in(2).sameRankAs(0).sameElementAs(0)}};
    t["Scatter"] = t["ScatterElements"];
    t["ScatterND"] = {
        {in(0).rank(1), in(1).rank(1).of(E::Index), in(2).sameElementAs(0)}};
    // Data movement.
    t["Concat"] = {{in(0).rank(1)}, /*allSameElement=*/true};
    t["Split"] = {{in(0).rank(1), in(1).rankIs(1).of(E::Index)}};
    t["Compress"] = {{in(0).rank(1), in(1).rankIs(1).of(E::Bool)}};
    // Results whose shape depends on the data (DataDependentOps.cpp).
    t["NonMaxSuppression"] = {
        {in(0).rankIs(3).of(E::Float), in(1).rankIs(3).sameElementAs(0),
         in(2).rank(0, 1).of(E::Integer), in(3).rank(0, 1).of(E::Float),
         in(4).rank(0, 1).of(E::Float)}};
    t["EyeLike"] = {{in(0).rankIs(2)}};
    t["ReverseSequence"] = {{in(0).rank(2), in(1).rankIs(1).of(E::Index)}};
    t["Where"] = {{in(0).of(E::Bool), in(1), in(2).sameElementAs(1)}};
    t["TopK"] = {{in(0).rank(1).of(E::Numeric), in(1).rankIs(1).of(E::Index)}};
    t["CumSum"] = {{in(0).of(E::Numeric), in(1).rank(0, 1).of(E::Index)}};
    t["OneHot"] = {{in(0).of(E::Numeric), in(1).rank(0, 1).of(E::Numeric),
                    in(2).rankIs(1)}};
    t["GridSample"] = {
        {in(0).rank(4, 5).of(E::Float), in(1).sameRankAs(0).sameElementAs(0)}};
    // Range's values are computed in doubles and cast to input 0's type:
    // the bounds of an integer range must be integers.
    t["Range"] = {
        {in(0).of(E::Numeric), in(1).sameElementAs(0), in(2).sameElementAs(0)}};
    t["Resize"] = {{in(0).rank(1)}};
    t["Upsample"] = {{in(0).rank(1)}};
    // Elementwise arithmetic: ONNX's numeric types; the patterns build
    // integer or float arithmetic from input 0's type, which bool is not.
    for (const char *name : {"Add", "Sub", "Mul", "Div", "Mod"}) {
      t[name] = {{in(0).of(E::Numeric), in(1).sameElementAs(0)}};
    }
    t["Pow"] = {{in(0).of(E::Numeric), in(1).of(E::Numeric)}};
    for (const char *name : {"Abs", "Neg", "Sign"}) {
      t[name] = {{in(0).of(E::Numeric)}};
    }
    t["IsNaN"] = {{in(0).of(E::Float)}};
    t["IsInf"] = {{in(0).of(E::Float)}};
    // Logic on bools, bit shifts on integers, comparisons of one type
    // (orderings of numbers only).
    for (const char *name : {"And", "Or", "Xor"}) {
      t[name] = {{in(0).of(E::Bool), in(1).of(E::Bool)}};
    }
    t["Not"] = {{in(0).of(E::Bool)}};
    t["BitShift"] = {{in(0).of(E::Integer), in(1).sameElementAs(0)}};
    for (const char *name : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) {
      t[name] = {{in(0).of(E::Integer), in(1).sameElementAs(0)}};
    }
    t["BitwiseNot"] = {{in(0).of(E::Integer)}};
    t["Equal"] = {{in(0), in(1).sameElementAs(0)}};
    for (const char *name :
         {"Less", "LessOrEqual", "Greater", "GreaterOrEqual"}) {
      t[name] = {{in(0).of(E::Numeric), in(1).sameElementAs(0)}};
    }
    // Reductions: integer and float orders and sums (bool only orders);
    // the logarithms and the square root are computed in floats
    // only.
    for (const char *name :
         {"ReduceSum", "ReduceMean", "ReduceProd", "ReduceL1",
          "ReduceSumSquare", "ArgMax", "ArgMin"}) {
      t[name] = {{in(0).of(E::Numeric)}};
    }
    // Opset 20 adds bool to ReduceMax (any) and ReduceMin (all).
    for (const char *name : {"ReduceMax", "ReduceMin"}) {
      t[name] = {{in(0).of(E::Any)}};
    }
    for (const char *name : {"ReduceL2", "ReduceLogSum", "ReduceLogSumExp"}) {
      t[name] = {{in(0).of(E::Float)}};
    }
    // Variadic elementwise op types.
    for (const char *name : {"Sum", "Max", "Min"}) {
      t[name] = {{in(0).of(E::Numeric)}, /*allSameElement=*/true};
    }
    t["Mean"] = {{in(0).of(E::Float)}, /*allSameElement=*/true};
    t["Clip"] = {{in(0).of(E::Numeric), in(1).rank(0, 1).sameElementAs(0),
                  in(2).rank(0, 1).sameElementAs(0)}};
    t["PRelu"] = {{in(0).of(E::Numeric), in(1).sameElementAs(0)}};
    // Losses: scores N x C x ..., targets N x ... of indices.
    t["NegativeLogLikelihoodLoss"] = {{in(0).rank(2).of(E::Float),
                                       in(1).of(E::Index),
                                       in(2).rankIs(1).sameElementAs(0)}};
    t["SoftmaxCrossEntropyLoss"] = t["NegativeLogLikelihoodLoss"];
    // Quantization.
    t["QuantizeLinear"] = {
        {in(0).of(E::Numeric), in(1).of(E::Float), in(2).of(E::Integer)}};
    t["DequantizeLinear"] = {
        {in(0).of(E::Integer), in(1).of(E::Float), in(2).sameElementAs(0)}};
    t["DynamicQuantizeLinear"] = {{in(0).of(E::Float)}};
    // Recurrent: X, W, R, B, initial states in one float type.
    for (const char *name : {"RNN", "GRU", "LSTM"}) {
      t[name] = {{in(0).of(E::Float), in(1).sameElementAs(0),
                  in(2).sameElementAs(0), in(3).sameElementAs(0),
                  in(4).rankIs(1).of(E::Index), in(5).sameElementAs(0),
                  in(6).sameElementAs(0), in(7).sameElementAs(0)}};
    }
    return t;
  }();
  return table;
}

bool hasElements(Type type, Elements kind) {
  switch (kind) {
  case Elements::Any:
    return true;
  case Elements::Float:
    return isFloat(type);
  case Elements::Integer:
    return type.isInteger() && !type.isInteger(1);
  case Elements::Index:
    return type.isInteger(32) || type.isInteger(64);
  case Elements::Numeric:
    return isFloat(type) || (type.isInteger() && !type.isInteger(1));
  case Elements::Bool:
    return type.isInteger(1);
  }
  return false;
}

const char *describe(Elements kind) {
  switch (kind) {
  case Elements::Any:
    return "any element type";
  case Elements::Float:
    return "a floating-point tensor";
  case Elements::Integer:
    return "an integer tensor";
  case Elements::Index:
    return "an int32 or int64 tensor";
  case Elements::Numeric:
    return "a numeric (not bool) tensor";
  case Elements::Bool:
    return "a bool tensor";
  }
  return "";
}

std::string rankText(int64_t least, int64_t most) {
  if (least == most) {
    return "rank " + std::to_string(least);
  }
  if (most == kAnyRank) {
    return "rank " + std::to_string(least) + " or more";
  }
  return "rank " + std::to_string(least) + " to " + std::to_string(most);
}

LogicalResult checkRule(Node &n, const InputRule &rule) {
  unsigned i = rule.input;
  if (!n.has(i)) {
    return success();
  }
  std::string input = "input " + std::to_string(i);
  int64_t rank = n.rank(i);
  if (rank < rule.minRank || rank > rule.maxRank) {
    return n.fail(input + " has rank " + llvm::Twine(rank) +
                  "; the op type takes " +
                  rankText(rule.minRank, rule.maxRank));
  }
  if (rule.sameRank >= 0 && n.has(rule.sameRank) &&
      rank != n.rank(rule.sameRank)) {
    return n.fail(input + " has rank " + llvm::Twine(rank) +
                  "; the op type takes the rank of input " +
                  llvm::Twine(rule.sameRank) + " (" +
                  llvm::Twine(n.rank(rule.sameRank)) + ")");
  }
  if (rule.channels) {
    int64_t channels = n.rank(0) > 1 ? n.shape(0)[1] : 1;
    if (rank != 1 || n.shape(i)[0] != channels) {
      return n.fail(input + " has the type " + typeText(n.type(i)) +
                    "; the op type takes one value per channel of input "
                    "0 (" +
                    llvm::Twine(channels) + ")");
    }
  }
  if (!hasElements(n.elem(i), rule.elements)) {
    return n.fail(input + " has element type " + typeText(n.elem(i)) +
                  "; the op type takes " + describe(rule.elements));
  }
  if (rule.sameElement >= 0 && n.has(rule.sameElement) &&
      n.elem(i) != n.elem(rule.sameElement)) {
    return n.fail(input + " has element type " + typeText(n.elem(i)) +
                  "; the op type takes the element type of input " +
                  llvm::Twine(rule.sameElement) + " (" +
                  typeText(n.elem(rule.sameElement)) + ")");
  }
  return success();
}

} // namespace

LogicalResult mlir::strata::onnx::checkInputSpecs(Node &n) {
  auto it = specs().find(n.opType());
  if (it == specs().end()) {
    return success();
  }
  const OpSpec &spec = it->second;
  for (const InputRule &rule : spec.inputs) {
    if (failed(checkRule(n, rule))) {
      return failure();
    }
  }
  if (spec.allSameElement) {
    for (unsigned i = 1; i < n.numInputs(); ++i) {
      if (failed(checkRule(n, in(i).sameElementAs(0)))) {
        return failure();
      }
    }
  }
  return success();
}

std::string mlir::strata::onnx::typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}
