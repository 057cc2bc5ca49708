// WinogradFilters.h - 3x3 convolution filters stored as their Winograd
// F(4x4, 3x3) transforms (--strata-pack-weights winograd, PackWeights.cpp;
// the marker they carry: PackedWeightLayout.h, WinogradFilter).

#ifndef STRATA_DIALECT_FLOW_TRANSFORMS_WINOGRADFILTERS_H
#define STRATA_DIALECT_FLOW_TRANSFORMS_WINOGRADFILTERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

#include <vector>

namespace mlir::strata::flow {

/// The output tile of the Winograd transform the filters are stored in.
inline constexpr int64_t kWinogradOutputTile = 4;

/// Whether `conv`'s filter is stored as its Winograd transform: a static
/// f32 3x3 x C x F filter (C >= 16, F >= 32, the transform at most 10 MiB),
/// stride and dilation 1, an output of at least 8x8 static pixels, and no
/// pooling or depthwise convolution reading the result (directly or
/// through one elementwise op), nor a concatenation unless the batch is
/// static and at least 8: the code generator cuts those into bands of a
/// row or a few, where 4x4 output tiles would be mostly discarded (a
/// concatenation of 8 images or more takes whole images).
bool isWinogradConvolution(linalg::Conv2DNhwcHwcfOp conv);

/// U = G g G^T of a 3x3 x C x F filter `g` (HWCF, row-major): 6 x 6 x C x F,
/// row-major, computed in double precision.
std::vector<float> winogradFilterTransform(ArrayRef<float> g, int64_t channels,
                                           int64_t filters);

/// The filter of type `filterType` read back from its transform `u`
/// (6 x 6 x C x F): the linalg.generic computing L u L^T that carries the
/// Winograd marker.
Value winogradFilterView(OpBuilder &b, Location loc, Value u,
                         RankedTensorType filterType);

} // namespace mlir::strata::flow

#endif // STRATA_DIALECT_FLOW_TRANSFORMS_WINOGRADFILTERS_H
