// VMOps.h - the vm ops: module structure, control flow and one op per opcode.

#ifndef STRATA_DIALECT_VM_IR_VMOPS_H
#define STRATA_DIALECT_VM_IR_VMOPS_H

#include "Strata/Dialect/VM/IR/VMDialect.h"
#include "Strata/Dialect/VM/IR/VMOpcodes.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Strata/Dialect/VM/IR/VMOpInterfaces.h.inc"

namespace mlir::strata::vm {

/// Verifies the @global of a vm.global.load.* / vm.global.store.*: it names a
/// vm.global.<kind> whose kind matches `valueType` (for refs, the same type),
/// and a store needs a `mutable` global.
LogicalResult verifyGlobalAccess(Operation *op, FlatSymbolRefAttr global,
                                 bool isStore, Type valueType,
                                 SymbolTableCollection &symbolTable);

/// Verifies that `rodata` names a vm.rodata of the enclosing module.
LogicalResult verifyRodataUse(Operation *op, FlatSymbolRefAttr rodata,
                              SymbolTableCollection &symbolTable);

/// Verifies that `import` names a vm.import of the enclosing module.
LogicalResult verifyImportUse(Operation *op, FlatSymbolRefAttr import,
                              SymbolTableCollection &symbolTable);

} // namespace mlir::strata::vm

#define GET_OP_CLASSES
#include "Strata/Dialect/VM/IR/VMOps.h.inc"

#define GET_OP_CLASSES
#include "Strata/Dialect/VM/IR/VMOpcodeOps.h.inc"

namespace mlir::strata::vm {

/// A builder before the return of `module`'s vm.initializer, which it
/// creates (named `__init`, or `__init_1`... when that name is taken) when
/// the module has none. Conversions add the work each context does once
/// through it.
OpBuilder getInitializerBuilder(ModuleOp module);

} // namespace mlir::strata::vm

#endif // STRATA_DIALECT_VM_IR_VMOPS_H
