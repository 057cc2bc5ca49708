// disassembler_test.cpp - every opcodes.def row disassembles with its
// mnemonic and operands; branches, remaps, calls and lists print exactly.
#include "disassembler.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "module_builder.h"
#include "strata/vm/vm.h"

namespace strata::vm {
namespace {

// The rows of opcodes.def, expanded here independently of kOpcodeInfo so that
// a table that drifted from the .def file is caught.
struct Row {
  int number;
  const char* mnemonic;
  const char* format;
};
const Row kRows[] = {
#define STRATA_OP(name, number, mnemonic, format) {number, mnemonic, format},
#include "opcodes.def"
};

// Hand encoder for raw bytecode (no builder needed).
class Code {
 public:
  Code& op(uint8_t byte) {
    bytes.push_back(byte);
    return *this;
  }
  Code& u16(uint16_t v) {
    append(&v, sizeof(v));
    return *this;
  }
  Code& u32(uint32_t v) {
    append(&v, sizeof(v));
    return *this;
  }
  Code& u64(uint64_t v) {
    append(&v, sizeof(v));
    return *this;
  }
  Code& f32(float v) {
    append(&v, sizeof(v));
    return *this;
  }
  Code& f64(double v) {
    append(&v, sizeof(v));
    return *this;
  }
  Code& str(const std::string& s) {
    u16(static_cast<uint16_t>(s.size()));
    append(s.data(), s.size());
    return *this;
  }
  uint32_t size() const { return static_cast<uint32_t>(bytes.size()); }

  Function function(const std::vector<uint32_t>& blocks) {
    blocks_ = blocks;
    Function f;
    f.code = bytes.data();
    f.length = size();
    f.block_offsets = blocks_.data();
    f.block_count = static_cast<uint32_t>(blocks_.size());
    return f;
  }

  std::vector<uint8_t> bytes;

 private:
  void append(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    bytes.insert(bytes.end(), b, b + n);
  }
  std::vector<uint32_t> blocks_;
};

constexpr uint16_t kRef = STRATA_REGISTER_REF_BIT;
constexpr uint16_t kMove = STRATA_REGISTER_MOVE_BIT;

// Encodes a sample operand of the given kind and returns the text the
// disassembler must print for it (with no module: ordinals as numbers).
std::string encodeSample(Code& code, char kind, int n) {
  switch (kind) {
    case 'a':
      code.u16(static_cast<uint16_t>(n));
      return "%i" + std::to_string(n);
    case 'r':
      // Alternate plain and MOVE refs.
      code.u16(static_cast<uint16_t>(kRef | (n % 2 ? kMove : 0) | n));
      return "%r" + std::to_string(n) + (n % 2 ? "<move>" : "");
    case 'i':
      code.u32(static_cast<uint32_t>(-7 - n));
      return std::to_string(-7 - n);
    case 'l':
      code.u64(static_cast<uint64_t>(-1234567890123LL));
      return "-1234567890123";
    case 'f':
      code.f32(2.5f);
      return "2.5";
    case 'd':
      code.f64(0.1);
      return "0.1";
    case 'B':
      code.u32(0);
      return "^bb0";
    case 'P':
      code.u16(2).u16(1).u16(2).u16(kRef | kMove | 3).u16(kRef | 4);
      return "(%i1 -> %i2, %r3<move> -> %r4)";
    case 'X':
      code.u16(2);
      code.u32(0).u16(0);
      code.u32(0).u16(1).u16(5).u16(6);
      return "[0: ^bb0, 1: ^bb0(%i5 -> %i6)]";
    case 'F':
      code.u32(3);
      return "@fn3";
    case 'M':
      code.u32(2);
      return "@import2";
    case 'w':
      code.u32(16);
      return "global[16]";
    case 'W':
      code.u32(24);
      return "global[24]";
    case 'G':
      code.u32(1);
      return "global.ref[1]";
    case 'D':
      code.u32(0);
      return "rodata[0]";
    case 'T':
      code.u32(1);
      return "type[1]";
    case 'S':
      code.str("hi \"x\"\n");
      return "\"hi \\\"x\\\"\\n\"";
    case 'V':
      code.u16(2).u16(static_cast<uint16_t>(n)).u16(kRef | kMove | 7);
      return "(%i" + std::to_string(n) + ", %r7<move>)";
    case 'C':
      code.u16(2).u16(2).u16(1);
      return "spans[2, 1]";
    default:
      FAIL("unknown operand kind ", kind);
      return "";
  }
}

std::vector<DisassembledInstruction> disassemble(Code& code,
                                                 std::vector<uint32_t> blocks) {
  Function f = code.function(blocks);
  std::vector<DisassembledInstruction> out;
  strata_status_t status = disassembleCode(f, nullptr, 0, &out);
  if (status) {
    char* text = strata_status_to_string(status);
    FAIL_CHECK("disassembly failed: ", text);
    std::free(text);
    strata_status_free(status);
  }
  return out;
}

std::string line(const DisassembledInstruction& d) {
  return std::string(d.mnemonic) + (d.operands.empty() ? "" : " ") +
         d.operands;
}

TEST_SUITE("vm.disassembler") {
  TEST_CASE("every opcode in opcodes.def prints its mnemonic and operands") {
    size_t rows = sizeof(kRows) / sizeof(kRows[0]);
    REQUIRE(rows > 100);
    Code all;
    std::vector<uint32_t> pcs;
    std::vector<std::vector<std::string>> expected(rows);
    for (size_t r = 0; r < rows; ++r) {
      const Row& row = kRows[r];
      pcs.push_back(all.size());
      all.op(static_cast<uint8_t>(row.number));
      int n = 0;
      for (const char* f = row.format; *f; ++f) {
        expected[r].push_back(encodeSample(all, *f, n++));
      }
    }
    std::vector<DisassembledInstruction> out = disassemble(all, {0});
    REQUIRE(out.size() == rows);
    for (size_t r = 0; r < rows; ++r) {
      const Row& row = kRows[r];
      CAPTURE(row.mnemonic);
      CHECK(out[r].pc == pcs[r]);
      CHECK(static_cast<int>(out[r].opcode) == row.number);
      CHECK(std::string(out[r].mnemonic) == row.mnemonic);
      // Each operand's text appears, in order.
      size_t at = 0;
      for (const std::string& piece : expected[r]) {
        size_t found = out[r].operands.find(piece, at);
        CHECK_MESSAGE(found != std::string::npos,
                      "operand ", piece, " missing in '", out[r].operands,
                      "'");
        if (found != std::string::npos) {
          at = found + piece.size();
        }
      }
      CHECK(at == out[r].operands.size());
      // The formatted line starts with pc and mnemonic.
      std::string text = formatInstruction(out[r]);
      CHECK(text.find(row.mnemonic) == 6);
    }
    CHECK(out[0].block == 0);
    CHECK(out[1].block == -1);
  }

  TEST_CASE("branches print block labels and remap lists") {
    Code code;
    // ^bb0: br ^bb1(%i0 -> %i3, %r1<move> -> %r0)
    code.op(0x00).u32(0).u16(2).u16(0).u16(3).u16(kRef | kMove | 1).u16(kRef);
    // placeholder target patched below
    uint32_t bb1 = code.size();
    // ^bb1: cond_br %i0, ^bb2, ^bb1(%i1 -> %i2)
    code.op(0x01).u16(0).u32(0).u16(0).u32(bb1).u16(1).u16(1).u16(2);
    uint32_t bb2 = code.size();
    // ^bb2: br_table %i0, ^bb1, [0: ^bb2, 1: ^bb1(%i1 -> %i2)]
    code.op(0x02).u16(0).u32(bb1).u16(0).u16(2);
    code.u32(bb2).u16(0);
    code.u32(bb1).u16(1).u16(1).u16(2);
    // Patch the first two targets now that the blocks are placed.
    std::memcpy(code.bytes.data() + 1, &bb1, 4);
    std::memcpy(code.bytes.data() + bb1 + 3, &bb2, 4);

    std::vector<DisassembledInstruction> out = disassemble(code, {0, bb1, bb2});
    REQUIRE(out.size() == 3);
    CHECK(line(out[0]) == "br ^bb1(%i0 -> %i3, %r1<move> -> %r0)");
    CHECK(line(out[1]) == "cond_br %i0, ^bb2, ^bb1(%i1 -> %i2)");
    CHECK(line(out[2]) ==
          "br_table %i0, ^bb1, [0: ^bb2, 1: ^bb1(%i1 -> %i2)]");
    CHECK(out[0].block == 0);
    CHECK(out[1].block == 1);
    CHECK(out[2].block == 2);
  }

  TEST_CASE("cond_br.lt.i64.s prints both compared registers and both edges") {
    Code code;
    // ^bb0: cond_br.lt.i64.s %i3, %i7, ^bb0(%i1 -> %i2), ^bb1
    code.op(0x0B).u16(3).u16(7).u32(0).u16(1).u16(1).u16(2).u32(0).u16(0);
    uint32_t bb1 = code.size();
    std::memcpy(code.bytes.data() + 15, &bb1, 4);
    // ^bb1: cond_br.lt.i64.s %i0, %i1, ^bb1, ^bb0(%i4 -> %i5)
    code.op(0x0B).u16(0).u16(1).u32(bb1).u16(0).u32(0).u16(1).u16(4).u16(5);
    std::vector<DisassembledInstruction> out = disassemble(code, {0, bb1});
    REQUIRE(out.size() == 2);
    CHECK(line(out[0]) == "cond_br.lt.i64.s %i3, %i7, ^bb0(%i1 -> %i2), ^bb1");
    CHECK(line(out[1]) == "cond_br.lt.i64.s %i0, %i1, ^bb1, ^bb0(%i4 -> %i5)");
    CHECK(out[1].block == 1);
  }

  TEST_CASE("immediate forms print the constant between the registers") {
    Code code;
    code.op(0x55).u16(1).u64(static_cast<uint64_t>(-2)).u16(2);
    code.op(0x56).u16(2).u64(3).u16(3);
    code.op(0x57).u16(3).u64(1000003).u16(4);
    std::vector<DisassembledInstruction> out = disassemble(code, {0});
    REQUIRE(out.size() == 3);
    CHECK(line(out[0]) == "add.i64.imm %i1, -2, %i2");
    CHECK(line(out[1]) == "mul.i64.imm %i2, 3, %i3");
    CHECK(line(out[2]) == "rem.i64.s.imm %i3, 1000003, %i4");
  }

  TEST_CASE("cond_fail.ne.i64 prints both compared registers and the message") {
    Code code;
    code.op(0x0D).u16(1).u16(2).u16(3).str("dim is {1}, not {0}");
    std::vector<DisassembledInstruction> out = disassemble(code, {0});
    REQUIRE(out.size() == 1);
    CHECK(line(out[0]) ==
          "cond_fail.ne.i64 %i1, %i2, %i3, \"dim is {1}, not {0}\"");
    CHECK(out[0].length == code.size());
  }

  TEST_CASE("a branch into the middle of a block is marked, not guessed") {
    Code code;
    code.op(0x00).u32(3).u16(0);
    std::vector<DisassembledInstruction> out = disassemble(code, {0});
    REQUIRE(out.size() == 1);
    CHECK(line(out[0]) == "br ^<bad target 0x0003>");
  }

  TEST_CASE("calls, returns and literals print exactly") {
    Code code;
    code.op(0x03).u32(1).u16(2).u16(0).u16(kRef | kMove).u16(1).u16(1);
    code.op(0x05).u32(0).u16(2).u16(2).u16(1).u16(3).u16(0).u16(1).u16(2);
    code.u16(1).u16(kRef);
    code.op(0x04).u32(4).u16(0).u16(0);
    code.op(0x12).f32(2.5f).u16(0);
    code.op(0x13).f64(0.1).u16(1);
    code.op(0x11).u64(0x8000000000000000ull).u16(2);
    code.op(0x10).u32(0xFFFFFFFFu).u16(3);
    code.op(0x07).u16(0).str("bad \"x\"\n\x01");
    code.op(0x06).u16(2).u16(1).u16(kRef | kMove | 2);
    code.op(0xF2);
    std::vector<DisassembledInstruction> out = disassemble(code, {0});
    REQUIRE(out.size() == 10);
    CHECK(line(out[0]) == "call @fn1(%i0, %r0<move>) -> (%i1)");
    CHECK(line(out[1]) ==
          "call.variadic @import0 spans[2, 1](%i0, %i1, %i2) -> (%r0)");
    CHECK(line(out[2]) == "call.import @import4() -> ()");
    CHECK(line(out[3]) == "const.f32 2.5, %i0");
    CHECK(line(out[4]) == "const.f64 0.1, %i1");
    CHECK(line(out[5]) == "const.i64 -9223372036854775808, %i2");
    CHECK(line(out[6]) == "const.i32 -1, %i3");
    CHECK(line(out[7]) == "fail %i0, \"bad \\\"x\\\"\\n\\x01\"");
    CHECK(line(out[8]) == "return (%i1, %r2<move>)");
    CHECK(line(out[9]) == "break");
    char pc[16];
    std::snprintf(pc, sizeof(pc), "%04x", out[9].pc);
    CHECK(formatInstruction(out[9]) == std::string(pc) + "  break");
    CHECK(formatInstruction(out[0]).rfind("0000  call @fn1(", 0) == 0);
    CHECK(out[9].pc + out[9].length == code.size());
  }

  TEST_CASE("an unknown opcode or truncated operand is an error with its pc") {
    Code code;
    code.op(0xF2).op(0xFF);
    Function f = code.function({0});
    std::vector<DisassembledInstruction> out;
    strata_status_t status = disassembleCode(f, nullptr, 3, &out);
    REQUIRE(status != nullptr);
    std::string message = strata_status_message(status);
    CHECK(message.find("fn3") != std::string::npos);
    CHECK(message.find("0x0001") != std::string::npos);
    CHECK(message.find("unknown opcode") != std::string::npos);
    strata_status_free(status);
    CHECK(out.size() == 1);  // the instruction before the error

    Code truncated;
    truncated.op(0x10).u16(1);  // const.i32 needs 4 + 2 bytes
    Function t = truncated.function({0});
    status = disassembleCode(t, nullptr, 0, &out);
    REQUIRE(status != nullptr);
    CHECK(std::string(strata_status_message(status)).find("truncated") !=
          std::string::npos);
    strata_status_free(status);
    CHECK(out.empty());
  }

  TEST_CASE("floats print as the shortest text that reads back exactly") {
    CHECK(formatF32(2.5f) == "2.5");
    CHECK(formatF32(0.1f) == "0.1");
    CHECK(formatF64(0.1) == "0.1");
    CHECK(formatF64(1e-300) == "1e-300");
    CHECK(formatF64(-0.0) == "-0");
    CHECK(formatF32(std::numeric_limits<float>::infinity()) == "inf");
    CHECK(formatF64(-std::numeric_limits<double>::infinity()) == "-inf");
    CHECK(formatF32(std::numeric_limits<float>::quiet_NaN()) == "nan");
    const float floats[] = {1.0f / 3.0f, 16777217.0f,
                            std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::denorm_min(),
                            -123.456f};
    for (float v : floats) {
      CAPTURE(v);
      CHECK(std::strtof(formatF32(v).c_str(), nullptr) == v);
    }
    const double doubles[] = {1.0 / 3.0, 9007199254740993.0,
                              std::numeric_limits<double>::max(),
                              std::numeric_limits<double>::denorm_min(),
                              -2.718281828459045};
    for (double v : doubles) {
      CAPTURE(v);
      CHECK(std::strtod(formatF64(v).c_str(), nullptr) == v);
    }
    uint32_t payload = 0x7FC00001u;
    float odd_nan;
    std::memcpy(&odd_nan, &payload, sizeof(odd_nan));
    CHECK(formatF32(odd_nan) == "nan(0x7fc00001)");
  }

  TEST_CASE("a loaded module resolves names, types, blocks and locations") {
    using namespace strata::vm::testing;
    ModuleBuilder b("demo");
    uint32_t import = b.addImport("ext.length", "0r_I", /*optional=*/true);
    uint32_t type = b.addType("vm.buffer");
    uint32_t rodata = b.addRodata({1, 2, 3, 4});
    FunctionBuilder& callee = b.addFunction("callee", "0i_i");
    callee.location("callee.mlir", 1, 1);
    callee.op(Opcode::Return).list({prim(0)});
    FunctionBuilder& f = b.addFunction("main", "0ii_i");
    f.location("main.mlir", 3, 5);
    f.op(Opcode::AddI32).reg(prim(0)).reg(prim(1)).reg(prim(2));
    f.location("main.mlir", 4);
    f.op(Opcode::Call).u32(callee.index()).list({prim(2)}).list({prim(3)});
    f.op(Opcode::ConstRefRodata).u32(rodata).reg(ref(0));
    f.op(Opcode::CastRef).reg(ref(0, true)).u32(type).reg(ref(1));
    uint32_t bb1 = f.newBlock();
    f.op(Opcode::Br).block(bb1).remap({{prim(3), prim(4)}});
    f.bind(bb1);
    f.op(Opcode::ImportResolved).u32(import).reg(prim(5));
    f.op(Opcode::Return).list({prim(4)});
    b.addExport("main", f.index());
    std::vector<uint8_t> bytes = b.build();

    strata_vm_instance_t* instance = nullptr;
    REQUIRE(strata_vm_instance_create(strata_allocator_system(), &instance) ==
            nullptr);
    BytecodeModule* module = nullptr;
    strata_status_t status = loadBytecodeModule(
        instance, bytes.data(), bytes.size(), nullptr, nullptr,
        strata_allocator_system(), &module);
    if (status) {
      FAIL_CHECK(strata_status_message(status));
      strata_status_free(status);
    }
    REQUIRE(module != nullptr);

    std::vector<DisassembledInstruction> out;
    REQUIRE(disassembleFunction(*module, f.index(), &out) == nullptr);
    REQUIRE(out.size() == 7);
    CHECK(line(out[0]) == "add.i32 %i0, %i1, %i2");
    CHECK(line(out[1]) == "call @callee(%i2) -> (%i3)");
    CHECK(line(out[2]) == "const.ref.rodata rodata[0], %r0");
    CHECK(line(out[3]) == "cast.ref %r0<move>, type[0]:vm.buffer, %r1");
    CHECK(line(out[4]) == "br ^bb1(%i3 -> %i4)");
    CHECK(line(out[5]) == "import.resolved @ext.length, %i5");
    CHECK(line(out[6]) == "return (%i4)");
    CHECK(out[0].block == 0);
    CHECK(out[5].block == 1);
    CHECK(formatLocation(out[0].location) == "main.mlir:3:5");
    CHECK(formatLocation(out[1].location) == "main.mlir:4");
    CHECK(formatLocation(out[6].location) == "main.mlir:4");

    std::string text = formatFunctionText(*module, f.index());
    CAPTURE(text);
    CHECK(text.rfind("func @main 0ii_i", 0) == 0);
    CHECK(text.find("^bb0:\n  0000  add.i32 %i0, %i1, %i2") !=
          std::string::npos);
    CHECK(text.find("loc(main.mlir:3:5)") != std::string::npos);
    CHECK(text.find("^bb1:\n") != std::string::npos);
    CHECK(formatFunctionText(*module, callee.index()).find(
              "return (%i0)") != std::string::npos);

    status = disassembleFunction(*module, 7, &out);
    CHECK(status != nullptr);
    CHECK(strata_status_code(status) == STRATA_STATUS_OUT_OF_RANGE);
    strata_status_free(status);
    delete module;
    strata_vm_instance_release(instance);
  }

  TEST_CASE("registers print by bank with the MOVE marker") {
    CHECK(formatRegister(0) == "%i0");
    CHECK(formatRegister(0x7FFF) == "%i32767");
    CHECK(formatRegister(kRef | 5) == "%r5");
    CHECK(formatRegister(kRef | kMove | 5) == "%r5<move>");
    CHECK(quoteString("a\tb\\") == "\"a\\tb\\\\\"");
  }
}

}  // namespace
}  // namespace strata::vm
