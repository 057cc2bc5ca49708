// bytecode_verifier.cpp - proves one function's bytecode safe to interpret:
// every instruction decodes, registers are in range and in the right bank,
// branches land on block starts, ordinals name existing tables and calls
// match their callee's calling convention. The interpreter checks none of
// this again, so anything admitted here must be memory-safe to run.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>

#include "bytecode_module.h"
#include "opcodes.h"

namespace strata::vm {

namespace {

std::string registerName(uint16_t reg) {
  if (isRefRegister(reg)) {
    return "%r" + std::to_string(refIndex(reg));
  }
  return "%i" + std::to_string(primIndex(reg));
}

bool isRefChar(char c) { return c == 'r'; }

const char* bankName(char c) { return isRefChar(c) ? "a ref" : "a primitive"; }

// Expands each "C...D" span of an import signature by its repetition count
// in `sizes` (a C operand: u16 entries), giving one character per register
// the call passes. The caller has checked that the result fits a V list.
std::string expandVariadicArgs(std::string_view args, const uint8_t* sizes) {
  std::string out;
  uint32_t span = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] != 'C') {
      out += args[i];
      continue;
    }
    size_t close = args.find('D', i);
    std::string_view chars = args.substr(i + 1, close - i - 1);
    for (uint32_t k = 0, n = readU16(sizes + 2 * span); k < n; ++k) {
      out += chars;
    }
    ++span;
    i = close;
  }
  return out;
}

class FunctionVerifier {
 public:
  FunctionVerifier(const BytecodeModule& module, uint32_t index)
      : module_(module), function_(module.functions[index]),
        name_(module.functionDisplayName(index)) {}

  strata_status_t run();

 private:
  // "function 'main' at pc 12 (add.i32): <message>"
  strata_status_t fail(const char* format, ...)
      __attribute__((format(printf, 2, 3)));
  // "function 'main': <message>", for faults not tied to one instruction.
  strata_status_t failFunction(const char* format, ...)
      __attribute__((format(printf, 2, 3)));

  strata_status_t checkOperand(const Operand& operand, int position);
  strata_status_t checkPrim(uint16_t reg, const char* what, uint32_t n);
  strata_status_t checkRef(uint16_t reg, const char* what, uint32_t n);
  strata_status_t checkAny(uint16_t reg, const char* what, uint32_t n);
  strata_status_t checkTarget(uint64_t target);
  strata_status_t checkRemapList(const uint8_t* data, uint32_t count);
  strata_status_t checkBranchTable(const Operand& operand);
  // Checks a register list against one signature character per entry.
  strata_status_t checkValueList(const Operand& list, std::string_view chars,
                                 const char* what, const std::string& site,
                                 std::string_view cconv);
  // Call and return lists against their signatures, plus the few rules that
  // belong to one opcode (rem.i64.s.imm's divisor).
  strata_status_t checkCalls();

  const BytecodeModule& module_;
  const Function& function_;
  std::string name_;
  Instruction inst_{};
};

strata_status_t FunctionVerifier::fail(const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  return strata_make_status(
      STRATA_STATUS_INVALID_ARGUMENT, "function '%s' at pc %u (%s): %s",
      name_.c_str(), inst_.pc,
      opcodeInfo(static_cast<uint8_t>(inst_.opcode)).mnemonic, message);
}

strata_status_t FunctionVerifier::failFunction(const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT, "function '%s': %s",
                            name_.c_str(), message);
}

strata_status_t FunctionVerifier::checkPrim(uint16_t reg, const char* what,
                                            uint32_t n) {
  if (isRefRegister(reg)) {
    return fail("%s %u must be a primitive register, not %s", what, n,
                registerName(reg).c_str());
  }
  if (primIndex(reg) >= function_.prim_register_count) {
    return fail("register %s out of range (function has %u primitive "
                "registers)",
                registerName(reg).c_str(), function_.prim_register_count);
  }
  return nullptr;
}

strata_status_t FunctionVerifier::checkRef(uint16_t reg, const char* what,
                                           uint32_t n) {
  if (!isRefRegister(reg)) {
    return fail("%s %u must be a ref register, not %s", what, n,
                registerName(reg).c_str());
  }
  // The MOVE bit is legal on any ref operand; only the index matters here.
  if (refIndex(reg) >= function_.ref_register_count) {
    return fail("register %s out of range (function has %u ref registers)",
                registerName(reg).c_str(), function_.ref_register_count);
  }
  return nullptr;
}

strata_status_t FunctionVerifier::checkAny(uint16_t reg, const char* what,
                                           uint32_t n) {
  return isRefRegister(reg) ? checkRef(reg, what, n) : checkPrim(reg, what, n);
}

strata_status_t FunctionVerifier::checkTarget(uint64_t target) {
  if (target >= function_.length) {
    return fail("branch target %llu is past the end of the function (%u "
                "bytes)",
                static_cast<unsigned long long>(target), function_.length);
  }
  if (!std::binary_search(function_.block_offsets,
                          function_.block_offsets + function_.block_count,
                          static_cast<uint32_t>(target))) {
    return fail("branch target %llu is not the start of a block",
                static_cast<unsigned long long>(target));
  }
  return nullptr;
}

strata_status_t FunctionVerifier::checkRemapList(const uint8_t* data,
                                                 uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    uint16_t src = readU16(data + 4 * i);
    uint16_t dst = readU16(data + 4 * i + 2);
    if (isRefRegister(src) != isRefRegister(dst)) {
      return fail("remap pair %u mixes register banks (%s -> %s)", i,
                  registerName(src).c_str(), registerName(dst).c_str());
    }
    STRATA_RETURN_IF_ERROR(checkAny(src, "remap source", i));
    STRATA_RETURN_IF_ERROR(checkAny(dst, "remap destination", i));
  }
  return nullptr;
}

strata_status_t FunctionVerifier::checkBranchTable(const Operand& operand) {
  // The decoder proved every case fits; walk them with the same strides.
  const uint8_t* p = operand.data;
  for (uint32_t i = 0; i < operand.count; ++i) {
    STRATA_RETURN_IF_ERROR(checkTarget(readU32(p)));
    uint32_t remaps = readU16(p + 4);
    STRATA_RETURN_IF_ERROR(checkRemapList(p + 6, remaps));
    p += 6 + 4 * remaps;
  }
  return nullptr;
}

strata_status_t FunctionVerifier::checkOperand(const Operand& o, int position) {
  const uint32_t n = static_cast<uint32_t>(position);
  const uint64_t v = o.value;
  switch (o.kind) {
  case 'a':
    return checkPrim(static_cast<uint16_t>(v), "operand", n);
  case 'r':
    return checkRef(static_cast<uint16_t>(v), "operand", n);
  case 'B':
    return checkTarget(v);
  case 'F':
    if (v >= module_.functions.size()) {
      return fail("function ordinal %llu out of range (module has %zu "
                  "functions)",
                  static_cast<unsigned long long>(v), module_.functions.size());
    }
    return nullptr;
  case 'M':
    if (v >= module_.imports.size()) {
      return fail("import ordinal %llu out of range (module has %zu "
                  "imports)",
                  static_cast<unsigned long long>(v), module_.imports.size());
    }
    return nullptr;
  case 'w':
  case 'W': {
    uint64_t width = o.kind == 'w' ? 4 : 8;
    if (v % width != 0) {
      return fail("global offset %llu is not %llu-byte aligned",
                  static_cast<unsigned long long>(v),
                  static_cast<unsigned long long>(width));
    }
    // v is a u32, so v + width cannot wrap in 64 bits.
    if (v + width > module_.global_prim_bytes) {
      return fail("global offset %llu (%llu bytes) is outside the %u bytes "
                  "of primitive globals",
                  static_cast<unsigned long long>(v),
                  static_cast<unsigned long long>(width),
                  module_.global_prim_bytes);
    }
    return nullptr;
  }
  case 'G':
    if (v >= module_.global_ref_count) {
      return fail("ref global %llu out of range (module has %u ref "
                  "globals)",
                  static_cast<unsigned long long>(v), module_.global_ref_count);
    }
    return nullptr;
  case 'D':
    if (v >= module_.rodata.size()) {
      return fail("rodata ordinal %llu out of range (module has %zu rodata "
                  "segments)",
                  static_cast<unsigned long long>(v), module_.rodata.size());
    }
    return nullptr;
  case 'T':
    if (v >= module_.types.size()) {
      return fail("type ordinal %llu out of range (module has %zu types)",
                  static_cast<unsigned long long>(v), module_.types.size());
    }
    return nullptr;
  case 'V':
    for (uint32_t i = 0; i < o.count; ++i) {
      STRATA_RETURN_IF_ERROR(
          checkAny(readU16(o.data + 2 * i), "list entry", i));
    }
    return nullptr;
  case 'P':
    return checkRemapList(o.data, o.count);
  case 'X':
    return checkBranchTable(o);
  case 'i':
  case 'l':
  case 'f':
  case 'd':
  case 'S':
  case 'C':
    // Immediates and strings are any bytes; C is checked by call.variadic.
    return nullptr;
  default:
    return fail("operand %u has unknown kind '%c'", n, o.kind);
  }
}

strata_status_t FunctionVerifier::checkValueList(const Operand& list,
                                                 std::string_view chars,
                                                 const char* what,
                                                 const std::string& site,
                                                 std::string_view cconv) {
  if (list.count != chars.size()) {
    return fail("%s has %u %ss but calling convention '%.*s' expects %zu",
                site.c_str(), list.count, what, static_cast<int>(cconv.size()),
                cconv.data(), chars.size());
  }
  for (uint32_t i = 0; i < list.count; ++i) {
    uint16_t reg = readU16(list.data + 2 * i);
    if (isRefRegister(reg) != isRefChar(chars[i])) {
      return fail("%s %u of %s is %s but calling convention '%.*s' expects "
                  "%s register ('%c')",
                  what, i, site.c_str(), registerName(reg).c_str(),
                  static_cast<int>(cconv.size()), cconv.data(),
                  bankName(chars[i]), chars[i]);
    }
    // Ranges were checked with the generic V operand walk.
  }
  return nullptr;
}

strata_status_t FunctionVerifier::checkCalls() {
  const Operand* ops = inst_.operands;
  switch (inst_.opcode) {
  case Opcode::Call: {
    uint32_t callee = static_cast<uint32_t>(ops[0].value);
    const Signature& sig = module_.functions[callee].signature;
    std::string site = "call to '" + module_.functionDisplayName(callee) + "'";
    STRATA_RETURN_IF_ERROR(
        checkValueList(ops[1], sig.args, "argument", site, sig.text));
    return checkValueList(ops[2], sig.results, "result", site, sig.text);
  }
  case Opcode::CallImport: {
    const Import& import = module_.imports[ops[0].value];
    std::string site = "call to import '" + std::string(import.full_name) + "'";
    if (import.signature.variadic) {
      return fail("%s: the import is variadic ('%.*s'); use call.variadic",
                  site.c_str(), static_cast<int>(import.signature.text.size()),
                  import.signature.text.data());
    }
    const Signature& sig = import.signature;
    STRATA_RETURN_IF_ERROR(
        checkValueList(ops[1], sig.args, "argument", site, sig.text));
    return checkValueList(ops[2], sig.results, "result", site, sig.text);
  }
  case Opcode::CallVariadic: {
    const Import& import = module_.imports[ops[0].value];
    const Signature& sig = import.signature;
    std::string site =
        "variadic call to import '" + std::string(import.full_name) + "'";
    if (!sig.variadic) {
      return fail("%s: the import is not variadic ('%.*s'); use "
                  "call.import",
                  site.c_str(), static_cast<int>(sig.text.size()),
                  sig.text.data());
    }
    uint32_t spans = 0;
    uint64_t expected = 0;
    for (size_t i = 0; i < sig.args.size(); ++i) {
      if (sig.args[i] != 'C') {
        ++expected;
        continue;
      }
      size_t close = sig.args.find('D', i);
      if (spans < ops[1].count) {
        expected += uint64_t(readU16(ops[1].data + 2 * spans)) *
                    (close - i - 1);
      }
      ++spans;
      i = close;
    }
    if (ops[1].count != spans) {
      return fail("%s gives %u span sizes but the calling convention '%.*s' "
                  "has %u span(s)",
                  site.c_str(), ops[1].count,
                  static_cast<int>(sig.text.size()), sig.text.data(), spans);
    }
    // Compare counts before expanding so a huge span size cannot make a
    // huge string: a V list holds at most 65535 registers.
    if (expected != ops[2].count) {
      return fail("%s has %u arguments but calling convention '%.*s' with "
                  "its span sizes expects %llu",
                  site.c_str(), ops[2].count, static_cast<int>(sig.text.size()),
                  sig.text.data(), static_cast<unsigned long long>(expected));
    }
    std::string args = expandVariadicArgs(sig.args, ops[1].data);
    STRATA_RETURN_IF_ERROR(
        checkValueList(ops[2], args, "argument", site, sig.text));
    return checkValueList(ops[3], sig.results, "result", site, sig.text);
  }
  case Opcode::Return: {
    const Signature& sig = function_.signature;
    return checkValueList(ops[0], sig.results, "value", "return", sig.text);
  }
  case Opcode::RemSI64Imm:
    // The interpreter divides without tests: 0 would fault and -1 trap on
    // MIN. A compiler keeps those constants in rem.i64.s.
    if (ops[1].value == 0 || ops[1].value == ~uint64_t(0)) {
      return fail("the divisor immediate is %lld; rem.i64.s.imm takes "
                  "neither 0 nor -1",
                  static_cast<long long>(ops[1].value));
    }
    return nullptr;
  default:
    return nullptr;
  }
}

strata_status_t FunctionVerifier::run() {
  const uint8_t* code = function_.code;
  const uint32_t length = function_.length;
  uint32_t next_block = 0;
  uint32_t pc = 0;
  uint32_t last_pc = 0;
  bool any = false;
  while (pc < length) {
    // Blocks must start on instruction boundaries: the block table and the
    // instruction stream are both sorted, so walk them together.
    if (next_block < function_.block_count &&
        function_.block_offsets[next_block] < pc) {
      return failFunction("block %u starts at offset %u, inside the "
                          "instruction at pc %u",
                          next_block, function_.block_offsets[next_block],
                          last_pc);
    }
    if (next_block < function_.block_count &&
        function_.block_offsets[next_block] == pc) {
      ++next_block;
    }
    DecodeError error = decodeInstruction(code, length, pc, &inst_);
    if (error == DecodeError::kUnknownOpcode) {
      return failFunction("unknown opcode 0x%02x at pc %u", code[pc], pc);
    }
    if (error == DecodeError::kTruncated) {
      inst_.pc = pc;
      inst_.opcode = static_cast<Opcode>(code[pc]);
      return fail("instruction is truncated (function is %u bytes)", length);
    }
    for (int i = 0; i < inst_.operand_count; ++i) {
      STRATA_RETURN_IF_ERROR(checkOperand(inst_.operands[i], i));
    }
    STRATA_RETURN_IF_ERROR(checkCalls());
    last_pc = pc;
    any = true;
    pc += inst_.length;
  }
  if (next_block < function_.block_count) {
    return failFunction("block %u starts at offset %u, inside the instruction "
                        "at pc %u",
                        next_block, function_.block_offsets[next_block],
                        last_pc);
  }
  if (!any) {
    return failFunction("has no instructions");
  }
  if (!isTerminator(inst_.opcode)) {
    return failFunction("ends with %s at pc %u, which is not a terminator: "
                        "execution would fall off the end",
                        opcodeInfo(static_cast<uint8_t>(inst_.opcode)).mnemonic,
                        last_pc);
  }
  return nullptr;
}

}  // namespace

strata_status_t verifyFunction(const BytecodeModule& module, uint32_t index) {
  if (index >= module.functions.size()) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "function %u out of range (module has %zu "
                              "functions)",
                              index, module.functions.size());
  }
  const Function& f = module.functions[index];
  if (!f.code || f.length == 0 || !f.block_offsets || f.block_count == 0) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "function '%s' has no code or no block table",
                              module.functionDisplayName(index).c_str());
  }
  return FunctionVerifier(module, index).run();
}

}  // namespace strata::vm
