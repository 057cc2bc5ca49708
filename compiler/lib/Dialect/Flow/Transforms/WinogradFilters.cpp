// WinogradFilters.cpp - 3x3 convolution filters stored as their Winograd
// F(4x4, 3x3) transforms (WinogradFilters.h).
//
// Lavin and Gray's F(4x4, 3x3) (interpolation points 0, +-1, +-2 and
// infinity): an output tile Y = A^T [(G g G^T) . (B^T d B)] A. The filter's
// part, U = G g G^T, is computed here once; B^T and A^T are the
// convolution kernel's (ukernel/WinogradDriver.h).

#include "WinogradFilters.h"

#include "Strata/Dialect/Flow/IR/PackedWeightLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <array>

using namespace mlir;
using namespace mlir::strata;

namespace {

constexpr int64_t kAlpha = flow::kWinogradOutputTile + 2;

// G of F(4x4, 3x3): alpha x 3.
constexpr double kG[kAlpha][3] = {{1.0 / 4, 0, 0},
                                  {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                  {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                  {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                  {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                  {0, 0, 1}};

// The largest transform stored (bytes): 256 -> 256 channels (9 MiB) is,
// 512 -> 512 (36 MiB, more than the caches: every call would read it from
// memory, against the 9 MiB of the filter) is not.
constexpr int64_t kMaxTransformBytes = 10 << 20;

// L = (G^T G)^-1 G^T: 3 x alpha, L G = I.
std::array<std::array<double, kAlpha>, 3> leftInverse() {
  double gtg[3][3] = {};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int a = 0; a < kAlpha; ++a) {
        gtg[i][j] += kG[a][i] * kG[a][j];
      }
    }
  }
  // The 3x3 inverse by cofactors.
  double det = gtg[0][0] * (gtg[1][1] * gtg[2][2] - gtg[1][2] * gtg[2][1]) -
               gtg[0][1] * (gtg[1][0] * gtg[2][2] - gtg[1][2] * gtg[2][0]) +
               gtg[0][2] * (gtg[1][0] * gtg[2][1] - gtg[1][1] * gtg[2][0]);
  double inv[3][3];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3,
          c1 = (i + 2) % 3;
      inv[i][j] = (gtg[r0][c0] * gtg[r1][c1] - gtg[r0][c1] * gtg[r1][c0]) / det;
    }
  }
  std::array<std::array<double, kAlpha>, 3> l = {};
  for (int i = 0; i < 3; ++i) {
    for (int a = 0; a < kAlpha; ++a) {
      for (int j = 0; j < 3; ++j) {
        l[i][a] += inv[i][j] * kG[a][j];
      }
    }
  }
  return l;
}

// Whether `value` is read (directly, or through the one elementwise
// generic that reads it) by an op whose dispatch cuts it into bands of rows
// (a window op's input, through a pad or not), or by a concatenation of a
// dynamic batch (kept whole in one workgroup). A static concatenation's
// dispatch cuts a Winograd operand into bands of whole 4x4 tiles, and its
// channels into parts when those bands are few (TileAndDistribute.cpp,
// distributeConcat).
bool readInBands(Value value, int64_t images) {
  for (Operation *user : value.getUsers()) {
    if (auto pad = dyn_cast<tensor::PadOp>(user)) {
      if (readInBands(pad.getResult(), images)) {
        return true;
      }
      continue;
    }
    if (isa<linalg::PoolingNhwcMaxOp, linalg::PoolingNhwcSumOp,
            linalg::DepthwiseConv2DNhwcHwcOp>(user) ||
        (isa<tensor::ConcatOp>(user) && ShapedType::isDynamic(images))) {
      return true;
    }
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (generic && linalg::isElementwise(generic) &&
        generic->getNumResults() == 1 &&
        readInBands(generic->getResult(0), images)) {
      return true;
    }
  }
  return false;
}

} // namespace

bool flow::isWinogradConvolution(linalg::Conv2DNhwcHwcfOp conv) {
  auto filter = dyn_cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto out = dyn_cast<RankedTensorType>(conv.getOutputs()[0].getType());
  if (!filter || !out || !filter.hasStaticShape() ||
      !filter.getElementType().isF32() || !out.getElementType().isF32() ||
      filter.getDimSize(0) != 3 || filter.getDimSize(1) != 3 ||
      out.isDynamicDim(1) || out.isDynamicDim(2) ||
      !llvm::all_of(conv.getStrides().getValues<int64_t>(),
                    [](int64_t s) { return s == 1; }) ||
      !llvm::all_of(conv.getDilations().getValues<int64_t>(),
                    [](int64_t d) { return d == 1; })) {
    return false;
  }
  int64_t channels = filter.getDimSize(2), filters = filter.getDimSize(3);
  return channels >= 16 && filters >= 32 && out.getDimSize(1) >= 8 &&
         out.getDimSize(2) >= 8 &&
         kAlpha * kAlpha * channels * filters *
                 static_cast<int64_t>(sizeof(float)) <=
             kMaxTransformBytes &&
         !readInBands(conv->getResult(0), out.getDimSize(0));
}

std::vector<float> flow::winogradFilterTransform(ArrayRef<float> g,
                                                 int64_t channels,
                                                 int64_t filters) {
  std::vector<float> u(kAlpha * kAlpha * channels * filters);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t f = 0; f < filters; ++f) {
      auto tap = [&](int ky, int kx) {
        return static_cast<double>(
            g[((ky * 3 + kx) * channels + c) * filters + f]);
      };
      // G g (alpha x 3), then (G g) G^T.
      double gg[kAlpha][3];
      for (int a = 0; a < kAlpha; ++a) {
        for (int kx = 0; kx < 3; ++kx) {
          gg[a][kx] = kG[a][0] * tap(0, kx) + kG[a][1] * tap(1, kx) +
                      kG[a][2] * tap(2, kx);
        }
      }
      for (int a = 0; a < kAlpha; ++a) {
        for (int b = 0; b < kAlpha; ++b) {
          double sum =
              gg[a][0] * kG[b][0] + gg[a][1] * kG[b][1] + gg[a][2] * kG[b][2];
          u[((a * kAlpha + b) * channels + c) * filters + f] =
              static_cast<float>(sum);
        }
      }
    }
  }
  return u;
}

Value flow::winogradFilterView(OpBuilder &b, Location loc, Value u,
                               RankedTensorType filterType) {
  std::array<std::array<double, kAlpha>, 3> inverse = leftInverse();
  SmallVector<float> values;
  for (const std::array<double, kAlpha> &row : inverse) {
    for (double v : row) {
      values.push_back(static_cast<float>(v));
    }
  }
  Type f32 = b.getF32Type();
  auto lType = RankedTensorType::get({3, kAlpha}, f32);
  Value l = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(lType, ArrayRef<float>(values)));
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value empty = tensor::EmptyOp::create(b, loc, filterType.getShape(), f32);
  Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  MLIRContext *context = b.getContext();
  AffineExpr ky, kx, c, f, a, bb;
  bindDims(context, ky, kx, c, f, a, bb);
  SmallVector<AffineMap> maps = {AffineMap::get(6, 0, {ky, a}, context),
                                 AffineMap::get(6, 0, {kx, bb}, context),
                                 AffineMap::get(6, 0, {a, bb, c, f}, context),
                                 AffineMap::get(6, 0, {ky, kx, c, f}, context)};
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{filterType}, ValueRange{l, l, u}, ValueRange{init},
      maps, iterators, [](OpBuilder &nb, Location nl, ValueRange args) {
        Value lr = arith::MulFOp::create(nb, nl, args[0], args[1]);
        Value term = arith::MulFOp::create(nb, nl, lr, args[2]);
        Value sum = arith::AddFOp::create(nb, nl, args[3], term);
        linalg::YieldOp::create(nb, nl, sum);
      });
  flow::WinogradFilter{kWinogradOutputTile}.set(generic);
  return generic.getResult(0);
}
