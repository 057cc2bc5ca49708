// PackedWeightLayout.h - the marker of a weight that --strata-pack-weights
// stored in a microkernel's panel layout: what it says, which op carries it,
// and the one definition of the layout's shape that the producer and its
// readers share.

#ifndef STRATA_DIALECT_FLOW_IR_PACKEDWEIGHTLAYOUT_H
#define STRATA_DIALECT_FLOW_IR_PACKEDWEIGHTLAYOUT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::strata::flow {

/// The name of the discardable attribute that marks a packed weight.
inline constexpr llvm::StringLiteral kPackedWeightAttrName =
    "strata.packed_weight";

/// The layout --strata-pack-weights (PackWeights.cpp) gave a constant
/// weight W, in panels of `panelColumns` (NR) columns:
///  - f32 (`depthGroup` 0): W is depth... x N and P[N/NR, depth..., NR],
///    each panel its whole depth k-major;
///  - int8 (`depthGroup` KG): W is K x N and P[N/NR, Kp/KG, NR, KG], the
///    depth in groups of KG.
/// The program reads P back to W's shape through a linalg.transpose (by
/// transposePermutation) and a tensor.collapse_shape, then a
/// tensor.extract_slice when W was padded. The transpose carries the marker
/// as the attribute kPackedWeightAttrName,
///   {depth_group = KG : i64, panel_columns = NR : i64},
/// and keeps it into its consumer's dispatch and through bufferization.
/// Dispatch formation (FormDispatches.cpp), the llvm-cpu tiling
/// (TileAndDistribute.cpp) and the microkernel rewrite (PackedWeights.cpp in
/// Codegen/LLVMCPU) find packed weights by it: a weight whose marker is lost
/// is an ordinary transpose, which the microkernel rewrite warns about when
/// it still sees a marked one left unread.
struct PackedWeightLayout {
  int64_t panelColumns = 0;
  int64_t depthGroup = 0;

  bool isInt8() const { return depthGroup > 0; }

  /// The marker `op` carries, if any and well formed.
  static std::optional<PackedWeightLayout> get(Operation *op) {
    if (!op) {
      return std::nullopt;
    }
    auto dict = op->getAttrOfType<DictionaryAttr>(kPackedWeightAttrName);
    if (!dict) {
      return std::nullopt;
    }
    auto columns = dict.getAs<IntegerAttr>("panel_columns");
    auto group = dict.getAs<IntegerAttr>("depth_group");
    if (!columns || !group || columns.getInt() <= 0 || group.getInt() < 0) {
      return std::nullopt;
    }
    return PackedWeightLayout{columns.getInt(), group.getInt()};
  }

  /// Marks `op` (the transpose that reads the panels back) with this layout.
  void set(Operation *op) const {
    Builder b(op->getContext());
    op->setAttr(
        kPackedWeightAttrName,
        b.getDictionaryAttr(
            {b.getNamedAttr("depth_group", b.getI64IntegerAttr(depthGroup)),
             b.getNamedAttr("panel_columns",
                            b.getI64IntegerAttr(panelColumns))}));
  }

  /// The permutation of the transpose that reads panels of rank `rank`
  /// back: result dim i is source dim permutation[i]. f32 panels (rank
  /// r + 1 for an r-dim weight): the depth dims, then the panel, then the
  /// column within it; int8 panels: [Kp/KG, KG, N/NR, NR].
  SmallVector<int64_t> transposePermutation(int64_t rank) const {
    if (isInt8()) {
      return {1, 3, 0, 2};
    }
    SmallVector<int64_t> permutation;
    for (int64_t d = 1; d + 1 < rank; ++d) {
      permutation.push_back(d);
    }
    permutation.append({0, rank - 1});
    return permutation;
  }
};

/// The name of the discardable attribute that marks a Winograd filter view.
inline constexpr llvm::StringLiteral kWinogradFilterAttrName =
    "strata.winograd_filter";

/// The marker of a 3x3 convolution filter that --strata-pack-weights stored
/// as its Winograd F(m x m, 3x3) transform U = G g G^T (alpha x alpha x C x
/// F, alpha = m + 2), itself packed in f32 panels (PackedWeightLayout: the
/// program reads U through the marked transpose and reshape). The filter
/// the convolution reads is then g = L U L^T, L a left inverse of G (L G =
/// I), computed by a linalg.generic
///   g[ky, kx, c, f] = sum over a, b of L[ky, a] * L[kx, b] * U[a, b, c, f]
/// (operands L, L, U) that carries the marker as the attribute
/// kWinogradFilterAttrName, {output_tile = m : i64}: the program means the
/// filter it always did (to rounding), and the llvm-cpu code generator's
/// convolution microkernel reads U instead (STRATA_SGEMM_WINOGRAD,
/// ConvUkernel.cpp), the generic then dead. Dispatch formation keeps the
/// generic with the packed view in the convolution's dispatch.
struct WinogradFilter {
  int64_t outputTile = 0;

  int64_t alpha() const { return outputTile + 2; }

  /// The marker `op` carries, if any and well formed.
  static std::optional<WinogradFilter> get(Operation *op) {
    if (!op) {
      return std::nullopt;
    }
    auto dict = op->getAttrOfType<DictionaryAttr>(kWinogradFilterAttrName);
    if (!dict) {
      return std::nullopt;
    }
    auto tile = dict.getAs<IntegerAttr>("output_tile");
    if (!tile || tile.getInt() <= 0) {
      return std::nullopt;
    }
    return WinogradFilter{tile.getInt()};
  }

  /// Marks `op` (the generic that reads the filter back from U).
  void set(Operation *op) const {
    Builder b(op->getContext());
    op->setAttr(kWinogradFilterAttrName,
                b.getDictionaryAttr({b.getNamedAttr(
                    "output_tile", b.getI64IntegerAttr(outputTile))}));
  }
};

} // namespace mlir::strata::flow

#endif // STRATA_DIALECT_FLOW_IR_PACKEDWEIGHTLAYOUT_H
