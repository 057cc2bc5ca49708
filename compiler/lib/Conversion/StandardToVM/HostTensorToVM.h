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
  /// one's result, and one submission after the last, which signals the
  /// group's fence (its timepoint). Groups of a block form a chain: each
  /// submission waits for the previous group's fence, and the host waits
  /// only before the first op that needs the data (a read-back, a call, a
  /// return, a branch...), for the fence of the last group before it. The
  /// host code between groups runs while the device works.
  struct CallPlan {
    unsigned group;
    bool first;
    bool last;
    bool barrier;
    /// On a group's first call: the group whose fence its submission
    /// waits for, if any, or else a fence the function was given (the wait
    /// fence of an async-external function).
    std::optional<unsigned> waitFor;
    Value waitForFence;
    /// On a group's last call: the op the host awaits the group's fence
    /// before (null when a later group of the chain takes over the wait).
    Operation *awaitBefore = nullptr;
    /// On a group's last call in an async-external function: the return
    /// before which the group's fence is forwarded to the signal fence
    /// (a queue barrier) instead of awaited.
    Operation *signalBefore = nullptr;
    Value signalFence;
    /// Bytes of the group's transient slab (on its first call), and where
    /// each of this call's results lives in it (-1: its own allocation).
    /// A result is transient when only dispatches of its own group read
    /// it and its shape is static.
    int64_t slabBytes = 0;
    SmallVector<int64_t> slabOffsets;
  };
  llvm::DenseMap<Operation *, CallPlan> calls;
  /// Per group, while the conversion runs: the device, its allocator, the
  /// command buffer the group's dispatches are recorded into, the
  /// executable they dispatch, the fence its submission waits for (or
  /// null), its transient slab and, once submitted, its fence.
  struct GroupValues {
    Value device;
    Value allocator;
    Value commands;
    Value executable;
    Value waitFence;
    Value slab;
    Value fence;
  };
  llvm::DenseMap<unsigned, GroupValues> groups;
  /// Views of transient results: the slab and offset a dispatch binds.
  struct TransientView {
    Value slab;
    int64_t offset;
    int64_t bytes;
  };
  llvm::DenseMap<Value, TransientView> transients;
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

/// With --async-exports: adds `<name>$async` (wait fence, signal fence
/// appended; `strata.async` marks it) next to each public function with
/// tensors in its signature.
void addAsyncExports(ModuleOp module);

/// Plans how the dispatch calls of each block are grouped, chained and
/// awaited (HostTensorState::CallPlan). Runs once scf is lowered to cf, right
/// before the conversion: the plan points at ops it must find unchanged.
void planHostDispatches(ModuleOp module, HostTensorState &state);

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
