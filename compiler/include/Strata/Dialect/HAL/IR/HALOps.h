// HALOps.h - the hal dialect (HALBase.td, HALOps.td) and the ops generated
// from schemas/hal_imports.def (HALImportOps.td).

#ifndef STRATA_DIALECT_HAL_IR_HALOPS_H
#define STRATA_DIALECT_HAL_IR_HALOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Strata/Dialect/HAL/IR/HALDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Strata/Dialect/HAL/IR/HALTypes.h.inc"

#include <optional>

namespace mlir::strata::hal {

/// The runtime's code of a tensor element type (strata/schemas/
/// element_types.h), or nothing when the runtime has none.
std::optional<int32_t> getElementTypeCode(Type elementType);

/// One parameter of a hal_imports.def signature: `name:type` or, for a
/// variadic span, `name:[type...]` (one type per tuple member).
struct ImportParam {
  StringRef name;
  SmallVector<StringRef, 3> types;
  bool span = false;
  /// A `rodata` parameter: an attribute of the op, module data in the vm.
  bool isRodata() const { return !span && types.front() == "rodata"; }
};

/// A parsed signature: its parameters in order and its result type (empty
/// when there is none). The table is checked when the compiler is built
/// (schemas/hal_imports.h), so every row parses.
struct ImportSignature {
  SmallVector<ImportParam> params;
  StringRef result;
};
ImportSignature parseImportSignature(StringRef sig);

/// The checks the ODS types cannot state: the members of tuple spans.
LogicalResult verifyImportOp(Operation *op, StringRef sig,
                             function_ref<OperandRange(unsigned)> group);

template <typename ConcreteType>
class HALImportOpTrait
    : public OpTrait::TraitBase<ConcreteType, HALImportOpTrait> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    auto concrete = cast<ConcreteType>(op);
    return verifyImportOp(
        op, ConcreteType::getImportSignature(),
        [&](unsigned index) { return concrete.getODSOperands(index); });
  }
};

} // namespace mlir::strata::hal

#define GET_OP_CLASSES
#include "Strata/Dialect/HAL/IR/HALOps.h.inc"

#define GET_OP_CLASSES
#include "Strata/Dialect/HAL/IR/HALImportOps.h.inc"

#endif // STRATA_DIALECT_HAL_IR_HALOPS_H
