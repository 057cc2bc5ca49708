// opcode_enum.h - the one Opcode enum of the project, expanded from
// opcodes.def: the runtime's decoder, verifier, interpreter and disassembler,
// the module writer and the compiler's bytecode encoder and vm dialect all use
// it. Standalone C++17 (no includes besides <cstdint>).
#ifndef STRATA_SCHEMAS_OPCODE_ENUM_H_
#define STRATA_SCHEMAS_OPCODE_ENUM_H_

#include <cstdint>

namespace strata::vm {

// One enumerator per opcodes.def row, valued by the row's opcode byte.
enum class Opcode : uint8_t {
#define STRATA_OP(name, number, mnemonic, format) name = number,
#include "opcodes.def"
};

// The row's operand format (format.h): one char per operand, in encoding
// order. "" for a value that names no row.
constexpr const char* opcodeFormat(Opcode opcode) {
  switch (opcode) {
#define STRATA_OP(name, number, mnemonic, format) \
  case Opcode::name: return format;
#include "opcodes.def"
  }
  return "";
}

// The row's mnemonic ("add.i32"); "" for a value that names no row.
constexpr const char* opcodeMnemonic(Opcode opcode) {
  switch (opcode) {
#define STRATA_OP(name, number, mnemonic, format) \
  case Opcode::name: return mnemonic;
#include "opcodes.def"
  }
  return "";
}

}  // namespace strata::vm

#endif  // STRATA_SCHEMAS_OPCODE_ENUM_H_
