// ConstantData.h - the bytes of a constant tensor, for the flow passes that
// rewrite weights at compile time (PackWeights.cpp, SplitSlicedResults.cpp).

#ifndef STRATA_DIALECT_FLOW_TRANSFORMS_CONSTANTDATA_H
#define STRATA_DIALECT_FLOW_TRANSFORMS_CONSTANTDATA_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <optional>

namespace mlir::strata::flow {

/// The raw bytes of a constant's elements in row-major order: a dense
/// attribute that is not a splat, or a dense resource whose blob is
/// loaded; nullopt otherwise.
inline std::optional<ArrayRef<char>> rawElementData(Attribute value) {
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.isSplat()) {
      return std::nullopt;
    }
    return dense.getRawData();
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob()) {
      return blob->getData();
    }
  }
  return std::nullopt;
}

} // namespace mlir::strata::flow

#endif // STRATA_DIALECT_FLOW_TRANSFORMS_CONSTANTDATA_H
