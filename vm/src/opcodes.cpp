// opcodes.cpp - opcode tables and the bounds-checked instruction decoder.
#include "opcodes.h"

namespace strata::vm {

namespace {

constexpr OpcodeInfo makeTable(int byte) {
  switch (byte) {
#define STRATA_OP(name, number, mnemonic, format) \
  case number:                                    \
    return OpcodeInfo{#name, mnemonic, format};
#include "opcodes.def"
    default:
      return OpcodeInfo{nullptr, nullptr, nullptr};
  }
}

}  // namespace

// Build the 256-entry table at compile time; duplicate numbers in
// opcodes.def fail here as duplicate case labels.
#define STRATA_ROW(i) makeTable(i)
const OpcodeInfo kOpcodeInfo[256] = {
#define R4(i) STRATA_ROW(i), STRATA_ROW(i + 1), STRATA_ROW(i + 2), STRATA_ROW(i + 3)
#define R16(i) R4(i), R4(i + 4), R4(i + 8), R4(i + 12)
#define R64(i) R16(i), R16(i + 16), R16(i + 32), R16(i + 48)
    R64(0), R64(64), R64(128), R64(192)
#undef R64
#undef R16
#undef R4
};
#undef STRATA_ROW

DecodeError decodeInstruction(const uint8_t* code, uint32_t length,
                              uint32_t pc, Instruction* out) {
  if (pc >= length) {
    return DecodeError::kTruncated;
  }
  uint8_t byte = code[pc];
  if (!isValidOpcode(byte)) {
    return DecodeError::kUnknownOpcode;
  }
  out->opcode = static_cast<Opcode>(byte);
  out->pc = pc;
  out->operand_count = 0;
  uint64_t p = uint64_t(pc) + 1;  // 64-bit so that additions cannot wrap
  auto need = [&](uint64_t n) { return p + n <= length; };
  for (const char* f = kOpcodeInfo[byte].format; *f; ++f) {
    Operand& o = out->operands[out->operand_count++];
    o = Operand{};
    o.kind = *f;
    o.offset = static_cast<uint32_t>(p);
    switch (*f) {
      case 'a':
      case 'r':
        if (!need(2)) return DecodeError::kTruncated;
        o.value = readU16(code + p);
        p += 2;
        break;
      case 'i':
      case 'f':
      case 'B':
      case 'F':
      case 'M':
      case 'w':
      case 'W':
      case 'G':
      case 'D':
      case 'T':
        if (!need(4)) return DecodeError::kTruncated;
        o.value = readU32(code + p);
        p += 4;
        break;
      case 'l':
      case 'd':
        if (!need(8)) return DecodeError::kTruncated;
        o.value = readU64(code + p);
        p += 8;
        break;
      case 'S':
        if (!need(2)) return DecodeError::kTruncated;
        o.count = readU16(code + p);
        if (!need(2 + uint64_t(o.count))) return DecodeError::kTruncated;
        o.data = code + p + 2;
        p += 2 + uint64_t(o.count);
        break;
      case 'V':
      case 'C':
        if (!need(2)) return DecodeError::kTruncated;
        o.count = readU16(code + p);
        if (!need(2 + 2 * uint64_t(o.count))) return DecodeError::kTruncated;
        o.data = code + p + 2;
        p += 2 + 2 * uint64_t(o.count);
        break;
      case 'P':
        if (!need(2)) return DecodeError::kTruncated;
        o.count = readU16(code + p);
        if (!need(2 + 4 * uint64_t(o.count))) return DecodeError::kTruncated;
        o.data = code + p + 2;
        p += 2 + 4 * uint64_t(o.count);
        break;
      case 'X': {
        if (!need(2)) return DecodeError::kTruncated;
        o.count = readU16(code + p);
        o.data = code + p + 2;
        p += 2;
        for (uint32_t i = 0; i < o.count; ++i) {
          if (!need(6)) return DecodeError::kTruncated;
          uint64_t remaps = readU16(code + p + 4);
          if (!need(6 + 4 * remaps)) return DecodeError::kTruncated;
          p += 6 + 4 * remaps;
        }
        break;
      }
      default:
        return DecodeError::kUnknownOpcode;  // a malformed table row
    }
  }
  out->length = static_cast<uint32_t>(p - pc);
  return DecodeError::kOk;
}

}  // namespace strata::vm
