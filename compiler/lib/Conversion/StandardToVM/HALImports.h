// HALImports.h - the hal module's imports as the vm conversion calls them,
// and a builder of those calls (schemas/hal_imports.def has the contract).

#ifndef STRATA_CONVERSION_STANDARDTOVM_HALIMPORTS_H
#define STRATA_CONVERSION_STANDARDTOVM_HALIMPORTS_H

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::strata {

/// The hal element type code (strata/schemas/element_types.h) of a tensor
/// element type, or nothing when the runtime has none.
std::optional<int32_t> getHalElementType(Type elementType);

/// Declares every hal import the conversion may call at the start of
/// `vmModule`.
void declareHalImports(vm::ModuleOp vmModule);

/// Builds vm ops for one host-side sequence at `builder`'s insertion point.
class HalBuilder {
public:
  HalBuilder(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  Value i32(int32_t v);
  Value i64(int64_t v);
  /// A `!vm.buffer` of the rodata `name`.
  Value rodata(StringRef name);
  /// vm.call.import of `name`; its first result, if any.
  Value call(StringRef name, ValueRange args, TypeRange results = {});
  /// vm.call.variadic of `name` with the sizes of its variadic spans.
  Value callVariadic(StringRef name, ValueRange args,
                     ArrayRef<int32_t> segments, TypeRange results = {});
  Type refTy();

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
  MLIRContext *ctx() { return b.getContext(); }

  OpBuilder &b;
  Location loc;
};

} // namespace mlir::strata

#endif // STRATA_CONVERSION_STANDARDTOVM_HALIMPORTS_H
