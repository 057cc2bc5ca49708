// opcodes_test.cpp - the opcode table expands consistently and the decoder
// honours every operand format.
#include <doctest/doctest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "opcodes.h"

using namespace strata::vm;

TEST_SUITE("vm.opcodes") {
  TEST_CASE("every row has a unique name, mnemonic and a known format") {
    std::set<std::string> names, mnemonics;
    int count = 0;
    for (int byte = 0; byte < 256; ++byte) {
      const OpcodeInfo& info = kOpcodeInfo[byte];
      if (!info.name) continue;
      ++count;
      CHECK(names.insert(info.name).second);
      CHECK(mnemonics.insert(info.mnemonic).second);
      for (const char* f = info.format; *f; ++f) {
        CHECK_MESSAGE(std::strchr("ariflBdFMwWGDTSVPXC", *f) != nullptr,
                      info.name << " has unknown operand kind " << *f);
      }
      CHECK(std::strlen(info.format) <= static_cast<size_t>(kMaxOperands));
    }
    int rows = 0;
#define STRATA_OP(name, number, mnemonic, format) ++rows;
#include "opcodes.def"
    CHECK(count == rows);
    CHECK(rows > 200);
  }

  TEST_CASE("the decoder reads each operand kind and rejects truncation") {
    for (int byte = 0; byte < 256; ++byte) {
      if (!isValidOpcode(static_cast<uint8_t>(byte))) continue;
      // Encode minimal operands: lists and strings empty, X with no cases.
      std::vector<uint8_t> code{static_cast<uint8_t>(byte)};
      size_t expected = 1;
      for (const char* f = kOpcodeInfo[byte].format; *f; ++f) {
        size_t n = 0;
        switch (*f) {
          case 'a': case 'r': case 'S': case 'V': case 'P': case 'X':
          case 'C':
            n = 2; break;
          case 'l': case 'd': n = 8; break;
          default: n = 4; break;
        }
        code.insert(code.end(), n, 0);
        expected += n;
      }
      Instruction inst;
      REQUIRE(decodeInstruction(code.data(), static_cast<uint32_t>(code.size()),
                                0, &inst) == DecodeError::kOk);
      CHECK(inst.length == expected);
      CHECK(static_cast<int>(inst.opcode) == byte);
      CHECK(inst.operand_count ==
            static_cast<int>(std::strlen(kOpcodeInfo[byte].format)));
      if (code.size() > 1) {
        CHECK(decodeInstruction(code.data(),
                                static_cast<uint32_t>(code.size() - 1), 0,
                                &inst) == DecodeError::kTruncated);
      }
    }
  }

  TEST_CASE("unassigned bytes decode as unknown opcodes") {
    uint8_t code[1] = {0xFF};
    Instruction inst;
    CHECK(decodeInstruction(code, 1, 0, &inst) == DecodeError::kUnknownOpcode);
  }

  TEST_CASE("list operands account for their entries") {
    // call.import M V V with two args and one result.
    std::vector<uint8_t> code = {static_cast<uint8_t>(Opcode::CallImport),
                                 1, 0, 0, 0, 2, 0, 1, 0, 2, 0, 1, 0, 3, 0};
    Instruction inst;
    REQUIRE(decodeInstruction(code.data(), static_cast<uint32_t>(code.size()),
                              0, &inst) == DecodeError::kOk);
    CHECK(inst.length == code.size());
    CHECK(inst.operands[1].count == 2);
    CHECK(inst.operands[2].count == 1);
    CHECK(readU16(inst.operands[2].data) == 3);
    code.pop_back();
    CHECK(decodeInstruction(code.data(), static_cast<uint32_t>(code.size()), 0,
                            &inst) == DecodeError::kTruncated);
  }
}
