// disassembler.cpp - table-driven bytecode disassembler: operands are printed
// by their format.h kind, so a new opcodes.def row needs no code here.
#include "disassembler.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace strata::vm {

void appendf(std::string& out, const char* format, ...) {
  char buffer[256];
  va_list args;
  va_start(args, format);
  int n = std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  if (n < 0) {
    return;
  }
  if (static_cast<size_t>(n) < sizeof(buffer)) {
    out.append(buffer, static_cast<size_t>(n));
    return;
  }
  std::string big(static_cast<size_t>(n) + 1, '\0');
  va_start(args, format);
  std::vsnprintf(big.data(), big.size(), format, args);
  va_end(args);
  big.resize(static_cast<size_t>(n));
  out += big;
}

namespace {

// "^bb<N>" for a block start, or a marker for a target the verifier would
// reject (the disassembler also runs on unverified code in tests).
void appendTarget(std::string& out, const Function& function,
                  uint32_t target) {
  const uint32_t* begin = function.block_offsets;
  const uint32_t* end = begin ? begin + function.block_count : begin;
  const uint32_t* it = std::lower_bound(begin, end, target);
  if (it != end && *it == target) {
    appendf(out, "^bb%u", static_cast<unsigned>(it - begin));
  } else {
    appendf(out, "^<bad target 0x%04x>", target);
  }
}

// "(%i1 -> %i4, ...)" from a P list body (count pairs at data).
void appendRemaps(std::string& out, const uint8_t* data, uint32_t count) {
  out += '(';
  for (uint32_t i = 0; i < count; ++i) {
    if (i) {
      out += ", ";
    }
    out += formatRegister(readU16(data + 4 * i));
    out += " -> ";
    out += formatRegister(readU16(data + 4 * i + 2));
  }
  out += ')';
}

// Separator printed between two operands of the given kinds. A target,
// callee or span list is glued to the list that belongs to it.
const char* separator(char previous, char next) {
  if ((previous == 'B' || previous == 'F' || previous == 'M' ||
       previous == 'C') &&
      (next == 'P' || next == 'V')) {
    return "";
  }
  if (previous == 'M' && next == 'C') {
    return " ";
  }
  if (previous == 'V' && next == 'V') {
    return " -> ";
  }
  return ", ";
}

}  // namespace

std::string formatRegister(uint16_t encoded) {
  std::string out;
  if (isRefRegister(encoded)) {
    appendf(out, "%%r%u", static_cast<unsigned>(refIndex(encoded)));
    if (isMoveRegister(encoded)) {
      out += "<move>";
    }
  } else {
    appendf(out, "%%i%u", static_cast<unsigned>(primIndex(encoded)));
  }
  return out;
}

std::string formatF32(float value) {
  if (std::isnan(value)) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    if (bits == 0x7FC00000u) {
      return "nan";
    }
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "nan(0x%08" PRIx32 ")", bits);
    return buffer;
  }
  if (std::isinf(value)) {
    return value < 0 ? "-inf" : "inf";
  }
  char buffer[64];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision,
                  static_cast<double>(value));
    if (std::strtof(buffer, nullptr) == value) {
      break;
    }
  }
  return buffer;
}

std::string formatF64(double value) {
  if (std::isnan(value)) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    if (bits == 0x7FF8000000000000ull) {
      return "nan";
    }
    char buffer[40];
    std::snprintf(buffer, sizeof(buffer), "nan(0x%016" PRIx64 ")", bits);
    return buffer;
  }
  if (std::isinf(value)) {
    return value < 0 ? "-inf" : "inf";
  }
  char buffer[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) {
      break;
    }
  }
  return buffer;
}

std::string quoteString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20 || u >= 0x7F) {
          appendf(out, "\\x%02x", static_cast<unsigned>(u));
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string formatOperands(const Instruction& instruction,
                           const Function& function,
                           const BytecodeModule* module) {
  std::string out;
  char previous = 0;
  for (int i = 0; i < instruction.operand_count; ++i) {
    const Operand& o = instruction.operands[i];
    // An empty remap list after a target says nothing; leave it out.
    if (o.kind == 'P' && o.count == 0 && previous == 'B') {
      continue;
    }
    if (previous) {
      out += separator(previous, o.kind);
    }
    previous = o.kind;
    switch (o.kind) {
      case 'a':
      case 'r':
        out += formatRegister(static_cast<uint16_t>(o.value));
        break;
      case 'i':
        appendf(out, "%" PRId32,
                static_cast<int32_t>(static_cast<uint32_t>(o.value)));
        break;
      case 'l':
        appendf(out, "%" PRId64, static_cast<int64_t>(o.value));
        break;
      case 'f': {
        uint32_t bits = static_cast<uint32_t>(o.value);
        float value;
        std::memcpy(&value, &bits, sizeof(value));
        out += formatF32(value);
        break;
      }
      case 'd': {
        uint64_t bits = o.value;
        double value;
        std::memcpy(&value, &bits, sizeof(value));
        out += formatF64(value);
        break;
      }
      case 'B':
        appendTarget(out, function, static_cast<uint32_t>(o.value));
        break;
      case 'F':
        if (!module) {
          appendf(out, "@fn%" PRIu64, o.value);
        } else if (o.value < module->functions.size()) {
          out += '@';
          out += module->functionDisplayName(static_cast<uint32_t>(o.value));
        } else {
          appendf(out, "@<bad function %" PRIu64 ">", o.value);
        }
        break;
      case 'M':
        if (!module) {
          appendf(out, "@import%" PRIu64, o.value);
        } else if (o.value < module->imports.size()) {
          out += '@';
          out += module->imports[o.value].full_name;
        } else {
          appendf(out, "@<bad import %" PRIu64 ">", o.value);
        }
        break;
      case 'w':
      case 'W':
        appendf(out, "global[%" PRIu64 "]", o.value);
        break;
      case 'G':
        appendf(out, "global.ref[%" PRIu64 "]", o.value);
        break;
      case 'D':
        appendf(out, "rodata[%" PRIu64 "]", o.value);
        break;
      case 'T':
        appendf(out, "type[%" PRIu64 "]", o.value);
        if (module && o.value < module->type_names.size()) {
          out += ':';
          out += module->type_names[o.value];
        }
        break;
      case 'S':
        out += quoteString(std::string_view(
            reinterpret_cast<const char*>(o.data), o.count));
        break;
      case 'V':
        out += '(';
        for (uint32_t j = 0; j < o.count; ++j) {
          if (j) {
            out += ", ";
          }
          out += formatRegister(readU16(o.data + 2 * j));
        }
        out += ')';
        break;
      case 'C':
        out += "spans[";
        for (uint32_t j = 0; j < o.count; ++j) {
          if (j) {
            out += ", ";
          }
          appendf(out, "%u", static_cast<unsigned>(readU16(o.data + 2 * j)));
        }
        out += ']';
        break;
      case 'P':
        appendRemaps(out, o.data, o.count);
        break;
      case 'X': {
        // count entries of (u32 target, u16 n, n register pairs).
        out += '[';
        const uint8_t* p = o.data;
        for (uint32_t j = 0; j < o.count; ++j) {
          if (j) {
            out += ", ";
          }
          appendf(out, "%u: ", static_cast<unsigned>(j));
          appendTarget(out, function, readU32(p));
          uint16_t n = readU16(p + 4);
          if (n) {
            appendRemaps(out, p + 6, n);
          }
          p += 6 + 4 * uint32_t(n);
        }
        out += ']';
        break;
      }
      default:
        appendf(out, "<unknown operand kind '%c'>", o.kind);
        break;
    }
  }
  return out;
}

strata_status_t disassembleCode(const Function& function,
                                const BytecodeModule* module,
                                uint32_t function_index,
                                std::vector<DisassembledInstruction>* out) {
  out->clear();
  uint32_t pc = 0;
  uint32_t block = 0;
  while (pc < function.length) {
    Instruction instruction;
    DecodeError error =
        decodeInstruction(function.code, function.length, pc, &instruction);
    if (error != DecodeError::kOk) {
      std::string name = module ? module->functionDisplayName(function_index)
                                : "fn" + std::to_string(function_index);
      return strata_make_status(
          STRATA_STATUS_DATA_LOSS,
          "cannot disassemble function '%s' at pc 0x%04x: %s (byte 0x%02x)",
          name.c_str(), pc,
          error == DecodeError::kUnknownOpcode ? "unknown opcode"
                                               : "truncated instruction",
          static_cast<unsigned>(function.code[pc]));
    }
    DisassembledInstruction d;
    d.pc = pc;
    d.length = instruction.length;
    d.opcode = instruction.opcode;
    d.mnemonic = opcodeInfo(function.code[pc]).mnemonic;
    while (block < function.block_count &&
           function.block_offsets[block] < pc) {
      ++block;
    }
    if (block < function.block_count && function.block_offsets[block] == pc) {
      d.block = static_cast<int32_t>(block);
    }
    d.operands = formatOperands(instruction, function, module);
    if (module) {
      d.location = module->locationFor(function_index, pc);
    }
    out->push_back(std::move(d));
    pc += instruction.length;
  }
  return nullptr;
}

strata_status_t disassembleFunction(const BytecodeModule& module,
                                    uint32_t index,
                                    std::vector<DisassembledInstruction>* out) {
  if (index >= module.functions.size()) {
    out->clear();
    return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                              "function %u out of range; module '%.*s' has %zu",
                              index, static_cast<int>(module.name.size()),
                              module.name.data(), module.functions.size());
  }
  return disassembleCode(module.functions[index], &module, index, out);
}

std::string formatLocation(const SourceLocation& location) {
  if (location.file.empty() && location.line == 0) {
    return "";
  }
  std::string out(location.file.empty() ? std::string_view("<unknown>")
                                        : location.file);
  if (location.line) {
    appendf(out, ":%u", location.line);
    if (location.column) {
      appendf(out, ":%u", location.column);
    }
  }
  return out;
}

std::string formatInstruction(const DisassembledInstruction& instruction) {
  std::string out;
  appendf(out, "%04x  ", instruction.pc);
  out += instruction.mnemonic;
  if (!instruction.operands.empty()) {
    out += ' ';
    out += instruction.operands;
  }
  std::string location = formatLocation(instruction.location);
  if (!location.empty()) {
    // Align locations into a column for short lines.
    constexpr size_t kLocationColumn = 48;
    out.append(out.size() < kLocationColumn ? kLocationColumn - out.size() : 0,
               ' ');
    out += "  loc(";
    out += location;
    out += ')';
  }
  return out;
}

std::string formatFunctionText(const BytecodeModule& module, uint32_t index) {
  std::string out;
  if (index >= module.functions.size()) {
    appendf(out, "<error: function %u out of range>\n", index);
    return out;
  }
  const Function& function = module.functions[index];
  out += "func @";
  out += module.functionDisplayName(index);
  out += ' ';
  out += function.signature.text;
  appendf(out, "  [registers: %u prim, %u ref; blocks: %u; bytes: %u]\n",
          static_cast<unsigned>(function.prim_register_count),
          static_cast<unsigned>(function.ref_register_count),
          function.block_count, function.length);
  std::vector<DisassembledInstruction> instructions;
  strata_status_t status = disassembleFunction(module, index, &instructions);
  for (const DisassembledInstruction& instruction : instructions) {
    if (instruction.block >= 0) {
      appendf(out, "^bb%d:\n", instruction.block);
    }
    out += "  ";
    out += formatInstruction(instruction);
    out += '\n';
  }
  if (status) {
    out += "  <error: ";
    out += strata_status_message(status);
    out += ">\n";
    strata_status_free(status);
  }
  return out;
}

}  // namespace strata::vm
