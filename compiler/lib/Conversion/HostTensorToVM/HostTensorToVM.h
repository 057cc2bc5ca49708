// HostTensorToVM.h - tensors on the host in the vm conversion: they are
// hal.buffer_views; exported signatures are checked and described.

#ifndef STRATA_CONVERSION_HOSTTENSORTOVM_HOSTTENSORTOVM_H
#define STRATA_CONVERSION_HOSTTENSORTOVM_HOSTTENSORTOVM_H

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::strata {

/// Set by the util.list.get conversion on a vm.list.get.ref whose element
/// is read as a ranked tensor (its TypeAttr); finalizeHostTensorSupport
/// checks the element against it (hal.buffer_view.assert) and drops it.
inline constexpr llvm::StringLiteral kListElementTypeAttrName =
    "strata.list_element_type";

/// What the host side of a module needs from the hal module: whether it
/// uses it at all, and the tensor arguments that public functions check on
/// entry, with the tensor signature each export describes.
struct HostTensorState {
  struct EntryCheck {
    unsigned argument;
    RankedTensorType type;
  };
  llvm::StringMap<SmallVector<EntryCheck>> entryChecks;
  /// Public functions with tensors in their signature: "arg0" / "result0"
  /// -> "4x16xf32", the export's reflection metadata.
  llvm::StringMap<SmallVector<std::pair<std::string, std::string>>> reflection;
  bool usesHal = false;
};

/// Reads the public signatures of `module` into `state`. Fails, reporting
/// at the declaration, on a dispatch the stream phase did not schedule.
LogicalResult collectHostTensorState(ModuleOp module, HostTensorState &state);

/// tensor.extract (an element read back), tensor.dim, static reshapes (new
/// views of the same buffer) and util.optimization_barrier (the identity).
void populateHostTensorToVMPatterns(const TypeConverter &typeConverter,
                                    RewritePatternSet &patterns);

/// After the conversion: each public function checks the shape and element
/// type of its tensor arguments first, exports carry their tensor
/// signature, and hal imports nothing calls go.
void finalizeHostTensorSupport(vm::ModuleOp vmModule,
                               const HostTensorState &state);

} // namespace mlir::strata

#endif // STRATA_CONVERSION_HOSTTENSORTOVM_HOSTTENSORTOVM_H
