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

} // namespace mlir::strata::flow

#endif // STRATA_DIALECT_FLOW_IR_PACKEDWEIGHTLAYOUT_H
