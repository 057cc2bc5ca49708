// disassembler.h - turns a bytecode function back into readable text, one
// line per instruction, expanded from the opcode table so that every opcode
// prints without a hand-written case. Used by strata-dump and by tests.
//
// Text form of one instruction (pc in hex, operands by kind, see format.h):
//
//   ^bb1:
//     0013  cond_br %i0, ^bb2(%i1 -> %i4), ^bb3  loc(model.mlir:7:3)
//
//   a/r  %i3, %r2, %r2<move>        B     ^bb<N> (block index)
//   i/l  signed decimal             P     (%i1 -> %i4, %r0<move> -> %r1)
//   f/d  shortest exact decimal     X     [0: ^bb2, 1: ^bb3(%i1 -> %i2)]
//   F    @function_name             V     (%i0, %r1)
//   M    @import.full_name          C     [2, 1]
//   w/W  global[<byte offset>]      S     "quoted \"escaped\" text"
//   G    global.ref[<ordinal>]      D     rodata[<ordinal>]
//   T    type[<ordinal>]:<name>
//
// A branch target, function or import that a call/branch names is followed
// directly by its list ("^bb1(%i0 -> %i1)", "@add(%i0, %i1) -> (%i2)").
//
// The disassembler never trusts its input beyond what decodeInstruction
// checks: an unknown opcode or a truncated operand is an error status, and
// out-of-range ordinals print as "<bad ...>" rather than being looked up.
// All functions are thread-compatible and allocate with the default C++
// allocator; they are for tools and tests, not the interpreter's hot path.
#ifndef STRATA_VM_SRC_DISASSEMBLER_H_
#define STRATA_VM_SRC_DISASSEMBLER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bytecode_module.h"
#include "opcodes.h"
#include "strata/base/status.h"

namespace strata::vm {

// Appends printf-style text to out (any length). Shared with strata-dump.
void appendf(std::string& out, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

// One decoded and formatted instruction.
struct DisassembledInstruction {
  uint32_t pc = 0;      // byte offset from the function start
  uint32_t length = 0;  // bytes, opcode included
  Opcode opcode = Opcode::Break;
  const char* mnemonic = "";  // static, from kOpcodeInfo
  std::string operands;       // formatted operands; "" when there are none
  int32_t block = -1;  // index of the block starting at pc, or -1
  SourceLocation location;  // file is "" when unknown
};

// Disassembles function `index` of a loaded module, resolving function,
// import and type names and source locations through module.
strata_status_t disassembleFunction(
    const BytecodeModule& module, uint32_t index,
    std::vector<DisassembledInstruction>* out);

// Disassembles raw code with its block table. module may be null: ordinals
// then print as numbers and no locations are looked up. function_index is
// only used for locations. On error, out holds the instructions before it.
strata_status_t disassembleCode(const Function& function,
                                const BytecodeModule* module,
                                uint32_t function_index,
                                std::vector<DisassembledInstruction>* out);

// Formats the operands of one decoded instruction. function supplies the
// block table for branch targets; module (may be null) supplies names.
std::string formatOperands(const Instruction& instruction,
                           const Function& function,
                           const BytecodeModule* module);

// "file:line:column", "file:line", or "" when the location is unknown.
std::string formatLocation(const SourceLocation& location);

// "0013  cond_br %i0, ^bb2  loc(model.mlir:7:3)": one line, no newline.
std::string formatInstruction(const DisassembledInstruction& instruction);

// A whole function as text: a header line ("@add 0ii_i ..."), block labels
// and one indented line per instruction, each ending in '\n'. A decode error
// is written as a final "  <error: ...>" line.
std::string formatFunctionText(const BytecodeModule& module, uint32_t index);

// Register operand text: "%i3", "%r2" or "%r2<move>" (bank from bit 15).
std::string formatRegister(uint16_t encoded);

// Shortest decimal text that reads back as exactly the same value
// ("2.5", "0.1", "1e-30", "nan", "-inf").
std::string formatF32(float value);
std::string formatF64(double value);

// Double-quoted, with \" \\ \n \r \t and \xNN for other non-printable bytes.
std::string quoteString(std::string_view text);

}  // namespace strata::vm

#endif  // STRATA_VM_SRC_DISASSEMBLER_H_
