// PackWeights.cpp - --strata-pack-weights: constant matmul and convolution
// weights stored in the matmul microkernel's panel layout (Passes.td).
//
// The right-hand operand of a matmul is read by the microkernel in panels
// of NR columns, each k-major (ukernel/SgemmDriver.h). A constant weight is
// rearranged so once, here, and the program reads it back through a
// transpose marked with the layout (PackedWeightLayout.h) and a reshape,
// which the code generator drops (Codegen/LLVMCPU/PackedWeights.cpp):
// nothing is packed per call.

#include "Strata/Dialect/Flow/Transforms/Passes.h"

#include "Strata/Dialect/Flow/IR/PackedWeightLayout.h"

#include "ConstantData.h"
#include "WinogradFilters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::strata::flow {
#define GEN_PASS_DEF_PACKWEIGHTSPASS
#include "Strata/Dialect/Flow/Transforms/Passes.h.inc"
} // namespace mlir::strata::flow

using namespace mlir;
using namespace mlir::strata;

namespace {

// The raw bytes of a non-splat constant of `elementBytes`-byte elements
// (f32 or i8), in row-major order.
std::optional<ArrayRef<char>> constantBytes(Value value, Type elementType,
                                            int64_t elementBytes) {
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!constant || !type || !type.hasStaticShape() ||
      type.getElementType() != elementType ||
      type.getNumElements() * elementBytes <= flow::kMaxInlinedConstantBytes) {
    return std::nullopt;
  }
  std::optional<ArrayRef<char>> raw = flow::rawElementData(constant.getValue());
  if (!raw) {
    return std::nullopt;
  }
  if (static_cast<int64_t>(raw->size()) !=
      type.getNumElements() * elementBytes) {
    return std::nullopt;
  }
  return raw;
}

// The f32 values of a non-splat constant, in row-major order.
std::optional<ArrayRef<float>> constantFloats(Value value) {
  std::optional<ArrayRef<char>> raw =
      constantBytes(value, Float32Type::get(value.getContext()), 4);
  if (!raw) {
    return std::nullopt;
  }
  return ArrayRef<float>(reinterpret_cast<const float *>(raw->data()),
                         raw->size() / 4);
}

// The weight W of `type` (depth... x N, f32, `values` row-major) read from
// its packed form: the collapse of a transpose of
// P[j / NR, depth..., j % NR] = W[depth..., j], zeros past N in the last
// panel, and then (when N is not a multiple of NR) the slice of its first
// N columns.
Value packedView(OpBuilder &b, Location loc, RankedTensorType type,
                 ArrayRef<float> values, int64_t nr) {
  int64_t rank = type.getRank();
  int64_t columns = type.getShape().back();
  int64_t depth = type.getNumElements() / columns;
  int64_t panels = (columns + nr - 1) / nr;
  std::vector<float> packed(panels * depth * nr, 0.0f);
  for (int64_t p = 0; p < panels; ++p) {
    for (int64_t k = 0; k < depth; ++k) {
      for (int64_t j = 0; j < nr && p * nr + j < columns; ++j) {
        packed[(p * depth + k) * nr + j] = values[k * columns + p * nr + j];
      }
    }
  }
  SmallVector<int64_t> packedShape = {panels};
  llvm::append_range(packedShape, type.getShape().drop_back());
  packedShape.push_back(nr);
  SmallVector<int64_t> transposedShape(type.getShape().drop_back());
  transposedShape.append({panels, nr});
  // Result dim i is source dim permutation[i]: the depth dims, then the
  // panel, then the column within it.
  flow::PackedWeightLayout layout{nr, /*depthGroup=*/0};
  SmallVector<int64_t> permutation = layout.transposePermutation(rank + 1);
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d + 1 < rank; ++d) {
    groups.push_back({d});
  }
  groups.push_back({rank - 1, rank});

  auto packedType = RankedTensorType::get(packedShape, b.getF32Type());
  auto data = DenseElementsAttr::getFromRawBuffer(
      packedType, ArrayRef<char>(reinterpret_cast<const char *>(packed.data()),
                                 packed.size() * sizeof(float)));
  Value constant = arith::ConstantOp::create(b, loc, data);
  Value empty =
      tensor::EmptyOp::create(b, loc, transposedShape, b.getF32Type());
  auto transpose =
      linalg::TransposeOp::create(b, loc, constant, empty, permutation);
  layout.set(transpose);
  Value transposed = transpose->getResult(0);
  SmallVector<int64_t> paddedShape(type.getShape());
  paddedShape.back() = panels * nr;
  Value weight = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(paddedShape, b.getF32Type()), transposed,
      groups);
  if (paddedShape.back() != columns) {
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
    for (int64_t size : type.getShape()) {
      sizes.push_back(b.getIndexAttr(size));
    }
    weight = tensor::ExtractSliceOp::create(b, loc, type, weight, offsets,
                                            sizes, strides);
  }
  return weight;
}

// Replaces operand `use` (a depth... x N constant) by its packed view.
void packOperand(OpBuilder &b, OpOperand &use, ArrayRef<float> values,
                 int64_t nr) {
  use.set(packedView(b, use.get().getLoc(),
                     cast<RankedTensorType>(use.get().getType()), values, nr));
}

// Replaces the filter of `conv` (flow::isWinogradConvolution; its values
// `g`) by the Winograd view of its transform, the transform packed.
void packWinogradFilter(OpBuilder &b, linalg::Conv2DNhwcHwcfOp conv,
                        ArrayRef<float> g, int64_t nr) {
  OpOperand &use = conv->getOpOperand(1);
  auto type = cast<RankedTensorType>(use.get().getType());
  int64_t channels = type.getDimSize(2), filters = type.getDimSize(3);
  int64_t alpha = flow::kWinogradOutputTile + 2;
  std::vector<float> u = flow::winogradFilterTransform(g, channels, filters);
  Location loc = use.get().getLoc();
  Value transform = packedView(
      b, loc,
      RankedTensorType::get({alpha, alpha, channels, filters}, b.getF32Type()),
      u, nr);
  use.set(flow::winogradFilterView(b, loc, transform, type));
}

// Replaces operand `use` (a K x N i8 constant) by the view of its int8
// panels: P[j / NR, d / KG, j % NR, d % KG] = W[d, j] (zeros past K and
// N; the depth padded to a multiple of `depthMultiple`, itself one of
// KG), transposed to [Kp / KG, KG, N / NR, NR], collapsed to the padded
// matrix, and (when padded) sliced to K x N.
void packIntOperand(OpBuilder &b, OpOperand &use, ArrayRef<char> values,
                    int64_t nr, int64_t kg, int64_t depthMultiple) {
  auto type = cast<RankedTensorType>(use.get().getType());
  int64_t depth = type.getDimSize(0), columns = type.getDimSize(1);
  int64_t panels = (columns + nr - 1) / nr;
  int64_t groups = llvm::alignTo(depth, std::max(depthMultiple, kg)) / kg;
  std::vector<char> packed(panels * groups * nr * kg, 0);
  for (int64_t d = 0; d < depth; ++d) {
    for (int64_t j = 0; j < columns; ++j) {
      packed[(((j / nr) * groups + d / kg) * nr + j % nr) * kg + d % kg] =
          values[d * columns + j];
    }
  }
  Type i8 = b.getIntegerType(8);
  Location loc = use.get().getLoc();
  auto packedType = RankedTensorType::get({panels, groups, nr, kg}, i8);
  Value constant = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::getFromRawBuffer(packedType, packed));
  Value empty = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{groups, kg, panels, nr}, i8);
  flow::PackedWeightLayout layout{nr, kg};
  auto transpose = linalg::TransposeOp::create(b, loc, constant, empty,
                                               layout.transposePermutation(4));
  layout.set(transpose);
  Value transposed = transpose->getResult(0);
  Value weight = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({groups * kg, panels * nr}, i8), transposed,
      ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
  if (groups * kg != depth || panels * nr != columns) {
    weight = tensor::ExtractSliceOp::create(
        b, loc, type, weight,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(depth), b.getIndexAttr(columns)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  }
  use.set(weight);
}

// Whether `op` is a static linalg.matmul of i8 x i8 into i32 (a quantized
// layer's contraction, QDQFusion.cpp).
bool isStaticIntMatmul(Operation *op) {
  auto matmul = dyn_cast<linalg::MatmulOp>(op);
  if (!matmul || matmul.hasUserDefinedMaps()) {
    return false;
  }
  auto elementIs = [](Value value, unsigned bits) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return type && type.hasStaticShape() &&
           type.getElementType().isSignlessInteger(bits);
  };
  return elementIs(matmul.getDpsInputs()[0], 8) &&
         elementIs(matmul.getDpsInputs()[1], 8) &&
         elementIs(matmul.getDpsInits()[0], 32);
}

// Rows a product with a dynamic row count (a batch or a sequence folded
// into M) is taken to have when its work is weighed against min-work: the
// code generator cuts such rows into tiles of this many
// (TileAndDistribute.cpp, kDynamicMatmulRows), each a microkernel call
// that reads the packed weight in place.
constexpr int64_t kDynamicRows = 64;

// M, N and the depth of a matmul or convolution whose right-hand operand
// (operand 1) is a static f32 depth... x N weight, else nullopt. The rows of
// a matmul may be dynamic (M is then kDynamicRows), and so may the batch of
// a convolution (one image then); everything else is static.
std::optional<std::array<int64_t, 3>> productSizes(Operation *op) {
  auto allF32 = [&](bool dynamicRows) {
    return llvm::all_of(llvm::enumerate(op->getOperandTypes()), [&](auto it) {
      auto tensor = dyn_cast<RankedTensorType>(it.value());
      if (!tensor || !tensor.getElementType().isF32()) {
        return false;
      }
      // Operand 1 (the weight) is static; the others may have dynamic rows.
      for (auto [d, size] : llvm::enumerate(tensor.getShape())) {
        if (ShapedType::isDynamic(size) &&
            (!dynamicRows || it.index() == 1 || d != 0)) {
          return false;
        }
      }
      return true;
    });
  };
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op)) {
    if (matmul.hasUserDefinedMaps() || !allF32(/*dynamicRows=*/true)) {
      return std::nullopt;
    }
    auto out = cast<RankedTensorType>(matmul.getDpsInits()[0].getType());
    auto lhs = cast<RankedTensorType>(matmul.getDpsInputs()[0].getType());
    int64_t rows = out.isDynamicDim(0) ? kDynamicRows : out.getDimSize(0);
    return std::array<int64_t, 3>{rows, out.getDimSize(1), lhs.getDimSize(1)};
  }
  if (auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op)) {
    if (!allF32(/*dynamicRows=*/true)) {
      return std::nullopt;
    }
    // A dynamic batch: each image is a tile of its own (H x W rows).
    auto out = cast<RankedTensorType>(conv.getOutputs()[0].getType());
    auto filter = cast<RankedTensorType>(conv.getInputs()[1].getType());
    int64_t images = out.isDynamicDim(0) ? 1 : out.getDimSize(0);
    return std::array<int64_t, 3>{
        images * out.getDimSize(1) * out.getDimSize(2), out.getDimSize(3),
        filter.getDimSize(0) * filter.getDimSize(1) * filter.getDimSize(2)};
  }
  return std::nullopt;
}

struct PackWeightsPass : flow::impl::PackWeightsPassBase<PackWeightsPass> {
  using PackWeightsPassBase::PackWeightsPassBase;

  void runOnOperation() override {
    SmallVector<Operation *> products;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::MatmulOp, linalg::Conv2DNhwcHwcfOp>(op)) {
        products.push_back(op);
      }
    });
    for (Operation *op : products) {
      if (isStaticIntMatmul(op)) {
        packIntMatmul(cast<linalg::MatmulOp>(op));
        continue;
      }
      if (panelColumns <= 0) {
        continue;
      }
      std::optional<std::array<int64_t, 3>> sizes = productSizes(op);
      if (!sizes) {
        continue;
      }
      auto [m, n, k] = *sizes;
      // Smaller products stay on the target's vectorized loops, where a
      // packed weight would be unpacked by every workgroup.
      if (m * n * k < minWork) {
        continue;
      }
      OpOperand &use = op->getOpOperand(1);
      std::optional<ArrayRef<float>> values = constantFloats(use.get());
      if (!values) {
        continue;
      }
      OpBuilder b(op);
      auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op);
      if (winograd && conv && flow::isWinogradConvolution(conv)) {
        packWinogradFilter(b, conv, *values, panelColumns);
        continue;
      }
      packOperand(b, use, *values, panelColumns);
    }
  }

  // The weight of an int8 matmul in the int8 microkernel's panels, when
  // the target has one. A product of few rows counts as 16 of them, as in
  // the code generator (Codegen/LLVMCPU/MatmulUkernel.cpp), which then
  // takes it.
  void packIntMatmul(linalg::MatmulOp matmul) {
    if (int8PanelColumns <= 0 || int8DepthGroup <= 0 ||
        (int8DepthMultiple > 0 && int8DepthMultiple % int8DepthGroup != 0)) {
      return;
    }
    auto out = cast<RankedTensorType>(matmul.getDpsInits()[0].getType());
    auto lhs = cast<RankedTensorType>(matmul.getDpsInputs()[0].getType());
    int64_t m = out.getDimSize(0), n = out.getDimSize(1), k = lhs.getDimSize(1);
    if (std::max<int64_t>(m, 16) * n * k < minWork) {
      return;
    }
    OpOperand &use = matmul->getOpOperand(1);
    std::optional<ArrayRef<char>> values =
        constantBytes(use.get(), IntegerType::get(matmul.getContext(), 8), 1);
    if (!values) {
      return;
    }
    OpBuilder b(matmul);
    packIntOperand(b, use, *values, int8PanelColumns, int8DepthGroup,
                   int8DepthMultiple);
  }
};

} // namespace
