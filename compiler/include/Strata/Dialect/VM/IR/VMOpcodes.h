// VMOpcodes.h - the opcode enum of the compiler, expanded from schemas/opcodes.def.

#ifndef STRATA_DIALECT_VM_IR_VMOPCODES_H
#define STRATA_DIALECT_VM_IR_VMOPCODES_H

#include <cstdint>

namespace mlir::strata::vm {

/// One enumerator per opcodes.def row, valued by the row's opcode byte. The
/// numbers come only from the table; the vm ops name their row through
/// OpcodeOpInterface::getOpcode().
enum class Opcode : uint8_t {
#define STRATA_OP(name, number, mnemonic, format) name = number,
#include "opcodes.def"
};

} // namespace mlir::strata::vm

#endif // STRATA_DIALECT_VM_IR_VMOPCODES_H
