// HALToVM.h - the hal dialect in the vm conversion: each op generated from
// schemas/hal_imports.def becomes the call of its import through one
// table-driven pattern; executables and wrapped constants are loaded once
// per context. The only code that knows the imports' names.

#ifndef STRATA_DIALECT_HAL_CONVERSION_HALTOVM_HALTOVM_H
#define STRATA_DIALECT_HAL_CONVERSION_HALTOVM_HALTOVM_H

#include "Strata/Dialect/HAL/IR/HALOps.h"
#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::strata {

/// What the hal conversion made at module level: the vm.rodata of each
/// attribute an import takes as data, and the globals holding each loaded
/// executable and each wrapped constant.
struct HALToVMState {
  DenseMap<Attribute, std::string> rodata;
  llvm::StringMap<std::string> executables;
  DenseMap<Attribute, std::string> constants;
};

/// Before the conversion (the module's ops are in `vmModule`): each
/// hal.executable becomes module data, a global and the initializer code
/// that loads it (so a bad library fails when the context is made), and
/// the data of each hal.buffer_wrap of a constant is wrapped once per
/// context into a global.
void prepareHALToVM(vm::ModuleOp vmModule, HALToVMState &state);

/// hal types -> `!vm.ref<?>`, for the vm type converter.
std::optional<Type> convertHALType(Type type);

/// The import-call pattern of every generated op, and the hand-written
/// ops: hal.executable.lookup (the executable's global),
/// hal.fence.immediate (a null ref), hal.tensor.import/export (the
/// identity: host tensors are buffer views).
void populateHALToVMPatterns(const TypeConverter &typeConverter,
                             RewritePatternSet &patterns, HALToVMState &state);

/// After the conversion: declares the hal imports the module calls, in
/// table order, each with the hal version that added it.
void declareHALImports(vm::ModuleOp vmModule);

/// Builds vm code that calls the hal module at `builder`'s insertion point,
/// for code that is already in the vm dialect (host tensors, module
/// initialization). The import is the row of the hal op `OpTy`; arguments
/// are vm values in the row's order, spans flattened.
class HalBuilder {
public:
  HalBuilder(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  Value i32(int32_t v);
  Value i64(int64_t v);
  /// A `!vm.buffer` of the rodata `name`.
  Value rodata(StringRef name);
  Type refTy();

  /// The import of `OpTy`, called with `args`; its result, if any. Spans
  /// give their sizes in `spans` (tuples, not values), in order.
  template <typename OpTy>
  Value call(ValueRange args, TypeRange results = {},
             ArrayRef<int32_t> spans = {}) {
    return callImport(OpTy::getOperationName(), OpTy::hasImportSpans(), args,
                      results, spans);
  }

  /// Dimension `d` of the buffer view `view` of a `type` tensor: a
  /// constant when static, else read from the view (hal.buffer_view.dim).
  Value dim(Value view, RankedTensorType type, int64_t d);
  /// The dimensions of a `type` tensor: the static ones as constants, the
  /// dynamic ones taken in order from `dynamicDims` (i64 values).
  SmallVector<Value> dims(RankedTensorType type, ValueRange dynamicDims);
  /// The bytes of a static `type` tensor.
  Value byteSize(RankedTensorType type);
  /// A buffer view over `[offset, offset + bytes)` of `buffer` with `type`'s
  /// element type and `dims`.
  Value view(Value buffer, Value offset, RankedTensorType type, ValueRange dims,
             Value bytes);

private:
  Value callImport(StringRef name, bool variadic, ValueRange args,
                   TypeRange results, ArrayRef<int32_t> spans);
  MLIRContext *ctx() { return b.getContext(); }

  OpBuilder &b;
  Location loc;
};

} // namespace mlir::strata

#endif // STRATA_DIALECT_HAL_CONVERSION_HALTOVM_HALTOVM_H
