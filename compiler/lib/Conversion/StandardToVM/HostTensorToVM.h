// HostTensorToVM.h - the host side of tensor programs in the vm conversion:
// tensors are hal.buffer_views, dispatches become calls of the hal module.

#ifndef STRATA_CONVERSION_STANDARDTOVM_HOSTTENSORTOVM_H
#define STRATA_CONVERSION_STANDARDTOVM_HOSTTENSORTOVM_H

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringMap.h"

#include <array>
#include <optional>
#include <string>

namespace mlir::strata {

/// What the hal phase left for the host of one module: each dispatch's
/// export ordinal and grid (from its `strata.dispatch` declaration), the
/// kernel library (the module's `strata.executable_library`), and the tensor
/// arguments that public functions must check on entry.
struct HostTensorState {
  struct Dispatch {
    int32_t ordinal;
    std::array<int32_t, 3> workgroups;
  };
  struct EntryCheck {
    unsigned argument;
    RankedTensorType type;
  };
  llvm::StringMap<Dispatch> dispatches;
  /// How each dispatch call is submitted. Consecutive dispatch calls of a
  /// block (scalar ops between them allowed) form one group: one command
  /// buffer, an execution barrier before a dispatch that reads an earlier
  /// one's result, one submission and one wait after the last.
  struct CallPlan {
    unsigned group;
    bool first;
    bool last;
    bool barrier;
  };
  llvm::DenseMap<Operation *, CallPlan> calls;
  /// Per group, while the conversion runs: the device, its allocator, the
  /// command buffer the group's dispatches are recorded into and the
  /// executable they dispatch.
  struct GroupValues {
    Value device;
    Value allocator;
    Value commands;
    Value executable;
  };
  llvm::DenseMap<unsigned, GroupValues> groups;
  std::string libraryFormat;
  std::string library;
  llvm::StringMap<SmallVector<EntryCheck>> entryChecks;
  /// Public functions with tensors in their signature: "arg0" / "result0"
  /// -> "4x16xf32", the export's reflection metadata.
  llvm::StringMap<SmallVector<std::pair<std::string, std::string>>> reflection;

  bool usesHal() const { return !dispatches.empty() || !entryChecks.empty(); }
};

/// The hal element type code (strata/hal/buffer.h) of a tensor element
/// type, or nothing when the runtime has none.
std::optional<int32_t> getHalElementType(Type elementType);

/// Reads the dispatch declarations and the library from `module` into
/// `state` and erases them. Fails, reporting at the op, on a dispatch the
/// hal phase did not compile.
LogicalResult collectHostTensorState(ModuleOp module, HostTensorState &state);

/// Adds to `vmModule` the hal imports, the library rodata, the executable
/// global and the initializer that creates it.
void materializeHostTensorSupport(vm::ModuleOp vmModule,
                                  const HostTensorState &state);

/// func.call of a dispatch -> allocate the results, record the dispatch,
/// submit it and await its fence, wrap the results in buffer views.
void populateHostTensorToVMPatterns(const TypeConverter &typeConverter,
                                    RewritePatternSet &patterns,
                                    HostTensorState &state);

/// After the conversion: each public function checks the shape and element
/// type of its tensor arguments first; hal imports nothing calls go.
void finalizeHostTensorSupport(vm::ModuleOp vmModule,
                               const HostTensorState &state);

} // namespace mlir::strata

#endif // STRATA_CONVERSION_STANDARDTOVM_HOSTTENSORTOVM_H
