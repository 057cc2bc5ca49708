// opcodes.h - per-opcode tables expanded from schemas/opcodes.def (the enum
// itself is schemas/opcode_enum.h), plus a bounds-checked instruction
// decoder shared by the verifier, the disassembler and tests. The interpreter
// does not use the decoder: it reads operands at fixed offsets the verifier has
// proven valid.
#ifndef STRATA_VM_SRC_OPCODES_H_
#define STRATA_VM_SRC_OPCODES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "format.h"
#include "opcode_enum.h"

namespace strata::vm {

struct OpcodeInfo {
  const char* name;      // "AddI32"; nullptr for unassigned bytes
  const char* mnemonic;  // "add.i32"
  const char* format;    // operand kinds, see format.h
};

// Indexed by opcode byte.
extern const OpcodeInfo kOpcodeInfo[256];

inline const OpcodeInfo& opcodeInfo(uint8_t byte) { return kOpcodeInfo[byte]; }
inline bool isValidOpcode(uint8_t byte) {
  return kOpcodeInfo[byte].name != nullptr;
}

// Whether control never falls through to the next instruction.
inline bool isTerminator(Opcode op) {
  switch (op) {
    case Opcode::Br:
    case Opcode::CondBr:
    case Opcode::CondBrLtSI64:
    case Opcode::CondBrLtSI64Imm:
    case Opcode::BrTable:
    case Opcode::Return:
    case Opcode::Fail:
    case Opcode::Yield:
      return true;
    default:
      return false;
  }
}

// Little-endian unaligned reads.
inline uint16_t readU16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline uint32_t readU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline uint64_t readU64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

inline bool isRefRegister(uint16_t reg) {
  return (reg & STRATA_REGISTER_REF_BIT) != 0;
}
inline bool isMoveRegister(uint16_t reg) {
  return (reg & (STRATA_REGISTER_REF_BIT | STRATA_REGISTER_MOVE_BIT)) ==
         (STRATA_REGISTER_REF_BIT | STRATA_REGISTER_MOVE_BIT);
}
inline uint16_t refIndex(uint16_t reg) { return reg & STRATA_REGISTER_REF_MASK; }
inline uint16_t primIndex(uint16_t reg) {
  return reg & STRATA_REGISTER_PRIM_MASK;
}

// One decoded operand. Lists point into the bytecode and are read with
// readU16/readU32 at the documented strides.
struct Operand {
  char kind = 0;        // the format character
  uint64_t value = 0;   // register, immediate bits, ordinal, offset or count
  const uint8_t* data = nullptr;  // S: the bytes; V/P/X/C: the first entry
  uint32_t count = 0;   // S: length; V/P/C: entries; X: cases
  uint32_t offset = 0;  // byte offset of the operand from the function start
};

constexpr int kMaxOperands = 8;

struct Instruction {
  Opcode opcode;
  uint32_t pc = 0;      // offset of the opcode byte from the function start
  uint32_t length = 0;  // total bytes including the opcode
  int operand_count = 0;
  Operand operands[kMaxOperands];
};

enum class DecodeError {
  kOk,
  kUnknownOpcode,
  kTruncated,
};

// Decodes the instruction at code[pc] within code[0, length). Checks only
// that the opcode exists and every operand fits; the verifier checks meaning.
DecodeError decodeInstruction(const uint8_t* code, uint32_t length,
                              uint32_t pc, Instruction* out);

// Number of bytes a remap list entry or branch table case occupies, used by
// the decoder and the interpreter: a P list is 2 + 4 * count bytes.
inline uint32_t remapListSize(const uint8_t* p) { return 2u + 4u * readU16(p); }
inline uint32_t registerListSize(const uint8_t* p) {
  return 2u + 2u * readU16(p);
}

}  // namespace strata::vm

#endif  // STRATA_VM_SRC_OPCODES_H_
