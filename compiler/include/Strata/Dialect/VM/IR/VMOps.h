// VMOps.h - the vm ops: module structure, control flow and one op per opcode.

#ifndef STRATA_DIALECT_VM_IR_VMOPS_H
#define STRATA_DIALECT_VM_IR_VMOPS_H

#include "Strata/Dialect/VM/IR/VMDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "Strata/Dialect/VM/IR/VMOps.h.inc"

#define GET_OP_CLASSES
#include "Strata/Dialect/VM/IR/VMOpcodeOps.h.inc"

#endif // STRATA_DIALECT_VM_IR_VMOPS_H
