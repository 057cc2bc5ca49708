// VMOpcodes.h - the opcode enum of the compiler: the project's one enum,
// expanded from schemas/opcodes.def in schemas/opcode_enum.h.

#ifndef STRATA_DIALECT_VM_IR_VMOPCODES_H
#define STRATA_DIALECT_VM_IR_VMOPCODES_H

#include "opcode_enum.h"

namespace mlir::strata::vm {

/// One enumerator per opcodes.def row, valued by the row's opcode byte. The
/// numbers come only from the table; the vm ops name their row through
/// OpcodeOpInterface::getOpcode().
using Opcode = ::strata::vm::Opcode;

} // namespace mlir::strata::vm

#endif // STRATA_DIALECT_VM_IR_VMOPCODES_H
