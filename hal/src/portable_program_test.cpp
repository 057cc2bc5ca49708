// portable_program_test.cpp - portable-bytecode executables: a program built
// word by word loads, runs on its bindings and checks them; every malformed
// or unprovable program is refused at load with an error naming the fault.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "executable_impl.h"
#include "kernel_bytecode.h"

namespace {

using namespace strata::hal;
namespace kernel = strata::kernel;

std::string consume(strata_status_t status) {
  if (!status) {
    return "OK";
  }
  std::string text = strata_status_code_name(strata_status_code(status));
  text += ": ";
  text += strata_status_message(status);
  strata_status_free(status);
  return text;
}

uint32_t t(kernel::Type type) { return static_cast<uint32_t>(type); }

// One export "add": out[i] = a[i] + b[i] * 2 over n f32 elements, with the
// operands' strides and the out binding's size adjustable to break it.
struct AddProgram {
  uint32_t n = 100;
  uint64_t a_bytes = 400;
  int64_t out_stride = 1;
  uint32_t op = static_cast<uint32_t>(kernel::Op::AddF);
  uint32_t digest = kernel::kTableDigest;
  uint32_t read_register = 1;
  bool out_in_data = false;    // the output names a constant data slot
  uint32_t gather_extent = 0;  // non-zero: a = gather(a, i) at extent

  std::vector<uint32_t> words() const {
    std::vector<uint32_t> w = {kernel::kMagic, kernel::kVersion, digest, 1};
    w.push_back(3);  // name "add"
    uint32_t name = 0;
    std::memcpy(&name, "add", 3);
    w.push_back(name);
    w.push_back(3);  // bindings a, b, out
    w.push_back(0);  // constants
    auto push64 = [&](uint64_t v) {
      w.push_back(static_cast<uint32_t>(v));
      w.push_back(static_cast<uint32_t>(v >> 32));
    };
    push64(a_bytes);
    push64(400);
    push64(400);
    w.push_back(0);  // temporaries
    if (out_in_data) {
      w.push_back(1);  // one block of constant data, 400 bytes
      push64(400);
      w.push_back(w.size() % 2 == 0 ? 1 : 0);  // data 8-byte aligned
      if (w.back() == 1) {
        w.push_back(0);
      }
      w.insert(w.end(), 100, 0);
    } else {
      w.push_back(0);  // no constant data
    }
    w.push_back(4);  // registers
    std::vector<uint32_t> code = {
        static_cast<uint32_t>(kernel::Inst::Generic), 1, n, 0, 1, 3, 1};
    auto operand = [&](uint32_t slot, int64_t stride) {
      code.push_back(slot);
      code.push_back(t(kernel::Type::F32));
      code.push_back(0);
      code.push_back(0);
      code.push_back(static_cast<uint32_t>(stride));
      code.push_back(
          static_cast<uint32_t>(static_cast<uint64_t>(stride) >> 32));
    };
    operand(0, 1);
    operand(1, 1);
    operand(out_in_data ? 3 : 2, out_stride);
    auto body = [&](kernel::Op o, uint32_t d, uint32_t a, uint32_t b) {
      code.push_back(static_cast<uint32_t>(o) | (t(kernel::Type::F32) << 8));
      code.insert(code.end(), {d, a, b, 0});
    };
    if (gather_extent) {
      // r0 = a[i + index(0)] within gather_extent, r1 = b, out = r0 + r1
      code.push_back(4);
      code.push_back(static_cast<uint32_t>(kernel::Op::Index) |
                     (t(kernel::Type::I64) << 8));
      code.insert(code.end(), {2, 0, 0, 0});
      code.push_back(static_cast<uint32_t>(kernel::Op::Gather) |
                     (t(kernel::Type::F32) << 8));
      code.insert(code.end(), {0, 0, 2, gather_extent});
      body(kernel::Op::Load, 1, 1, 0);
      body(kernel::Op::AddF, 3, 0, 1);
      code.push_back(3);
      w.push_back(static_cast<uint32_t>(code.size()));
      w.insert(w.end(), code.begin(), code.end());
      return w;
    }
    code.push_back(4);  // body count
    body(kernel::Op::Load, 0, 0, 0);
    body(kernel::Op::Load, 1, 1, 0);
    body(kernel::Op::AddF, 2, 1, read_register);  // 2b
    code.push_back(op | (t(kernel::Type::F32) << 8));
    code.insert(code.end(), {3, 0, 2, 0});  // a + 2b
    code.push_back(3);                      // yield r3
    w.push_back(static_cast<uint32_t>(code.size()));
    w.insert(w.end(), code.begin(), code.end());
    return w;
  }
};

std::string load(const std::vector<uint32_t>& words,
                 strata_hal_executable_t** out = nullptr) {
  strata_hal_executable_t* executable = nullptr;
  std::string result = consume(strata_hal_executable_load_portable(
      reinterpret_cast<const uint8_t*>(words.data()), words.size() * 4, "test",
      strata_allocator_system(), &executable));
  if (out) {
    *out = executable;
  } else if (executable) {
    strata_hal_executable_release(executable);
  }
  return result;
}

// Runs export 0 once over the bindings with enough local memory.
int run(strata_hal_executable_t* executable, std::vector<void*> ptrs,
        std::vector<size_t> lengths) {
  const strata_hal_executable_dispatch_attrs_v0_t* attrs =
      strata_hal_executable_export_attrs(executable, 0);
  std::vector<uint8_t> local(attrs->local_memory_size + 64);
  strata_hal_executable_dispatch_state_v0_t state = {};
  state.binding_count = static_cast<uint16_t>(ptrs.size());
  state.binding_ptrs = ptrs.data();
  state.binding_lengths = lengths.data();
  state.workgroup_count_x = state.workgroup_count_y = 1;
  state.workgroup_count_z = 1;
  // Version 1 state, as the devices pass.
  strata_hal_executable_dispatch_detail_v1_t detail = {};
  strata_hal_executable_workgroup_state_v1_t workgroup = {};
  workgroup.detail = &detail;
  workgroup.v0.local_memory = local.data();
  workgroup.v0.local_memory_size = attrs->local_memory_size;
  return exportFunction(executable, 0)(&dispatchEnvironment(executable, 0),
                                       &state, &workgroup.v0);
}

TEST_SUITE("hal.portable") {
TEST_CASE("a verified program runs on its bindings") {
  strata_hal_executable_t* executable = nullptr;
  REQUIRE(load(AddProgram().words(), &executable) == "OK");
  CHECK_FALSE(strata_hal_executable_is_native(executable));
  CHECK(std::string(strata_hal_executable_export_name(executable, 0)) == "add");
  std::vector<float> a(100);
  std::vector<float> b(100);
  std::vector<float> out(100, -1.0f);
  for (int i = 0; i < 100; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 0.5f * static_cast<float>(i);
  }
  CHECK(run(executable, {a.data(), b.data(), out.data()}, {400, 400, 400}) ==
        STRATA_HAL_EXECUTABLE_DISPATCH_OK);
  for (int i = 0; i < 100; ++i) {
    CHECK(out[i] == doctest::Approx(2.0f * static_cast<float>(i)));
  }
  strata_hal_executable_release(executable);
}

TEST_CASE("a dispatch with a short binding fails before writing") {
  strata_hal_executable_t* executable = nullptr;
  REQUIRE(load(AddProgram().words(), &executable) == "OK");
  std::vector<float> a(100, 1.0f);
  std::vector<float> out(100, -1.0f);
  CHECK(run(executable, {a.data(), a.data(), out.data()}, {400, 400, 396}) ==
        STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE);
  CHECK(out[0] == -1.0f);
  strata_hal_executable_release(executable);
}

TEST_CASE("rejects an access past its binding") {
  AddProgram program;
  program.out_stride = 2;  // reaches element 198 of a 100-element binding
  std::string error = load(program.words());
  CHECK(error.find("INVALID_ARGUMENT") == 0);
  CHECK(error.find("export 'add'") != std::string::npos);
  CHECK(error.find("operand 2 reaches elements [0, 198]") != std::string::npos);
}

TEST_CASE("a gather index past its extent fails the dispatch") {
  AddProgram program;
  program.gather_extent = 1;
  strata_hal_executable_t* executable = nullptr;
  REQUIRE(load(program.words(), &executable) == "OK");
  std::vector<float> a(100, 1.0f);
  std::vector<float> out(100, -1.0f);
  CHECK(run(executable, {a.data(), a.data(), out.data()}, {400, 400, 400}) ==
        STRATA_HAL_EXECUTABLE_DISPATCH_INDEX_OUT_OF_RANGE);
  strata_hal_executable_release(executable);
}

TEST_CASE("rejects a gather whose extent leaves its binding") {
  AddProgram program;
  program.gather_extent = 2;  // reaches element 99 + 1 of 100
  CHECK(load(program.words()).find("gather reaches elements [0, 100]") !=
        std::string::npos);
}

TEST_CASE("rejects a write to constant data") {
  AddProgram program;
  program.out_in_data = true;
  CHECK(load(program.words()).find("output 0 writes constant data") !=
        std::string::npos);
}

TEST_CASE("rejects a negative access") {
  AddProgram program;
  program.out_stride = -1;
  CHECK(load(program.words()).find("reaches elements [-99, 0]") !=
        std::string::npos);
}

TEST_CASE("rejects a binding declared smaller than its accesses") {
  AddProgram program;
  program.a_bytes = 399;
  CHECK(load(program.words()).find("operand 0 reaches elements [0, 99]") !=
        std::string::npos);
}

TEST_CASE("rejects an unknown opcode") {
  AddProgram program;
  program.op = 250;
  CHECK(load(program.words()).find("unknown opcode 250") != std::string::npos);
}

TEST_CASE("rejects an opcode of the wrong type") {
  AddProgram program;
  program.op = static_cast<uint32_t>(kernel::Op::AddI);
  CHECK(load(program.words()).find("(addi) has type 0 (f32)") !=
        std::string::npos);
}

TEST_CASE("rejects a register read before it is written") {
  AddProgram program;
  program.read_register = 3;
  CHECK(load(program.words()).find("reads register 3, which is not defined") !=
        std::string::npos);
}

TEST_CASE("rejects a program of another opcode table") {
  AddProgram program;
  program.digest ^= 1;
  CHECK(load(program.words()).find("kernel_opcodes.def differs") !=
        std::string::npos);
}

TEST_CASE("rejects every truncation") {
  std::vector<uint32_t> words = AddProgram().words();
  for (size_t size = 1; size < words.size(); ++size) {
    std::vector<uint32_t> cut(words.begin(), words.begin() + size);
    std::string error = load(cut);
    CHECK_MESSAGE(error.find("INVALID_ARGUMENT") == 0, size);
  }
  std::vector<uint32_t> longer = words;
  longer.push_back(0);
  CHECK(load(longer).find("1 words after the last export") !=
        std::string::npos);
}

TEST_CASE("rejects more constant data blocks than the words hold") {
  std::vector<uint32_t> words = AddProgram().words();
  REQUIRE(words[14] == 0);  // temporaries
  REQUIRE(words[15] == 0);  // constant data blocks
  words[15] = 64;
  CHECK(load(words).find("64 constant data blocks") != std::string::npos);
}

TEST_CASE("rejects bad magic and odd sizes") {
  std::vector<uint32_t> words = AddProgram().words();
  words[0] = 0x7F454C46;
  CHECK(load(words).find("bad magic") != std::string::npos);
  strata_hal_executable_t* executable = nullptr;
  CHECK(consume(strata_hal_executable_load_portable(
                    reinterpret_cast<const uint8_t*>("abcdefghijklmnopq"), 17,
                    "odd", strata_allocator_system(), &executable))
            .find("not a whole program") != std::string::npos);
  CHECK(executable == nullptr);
}
}

}  // namespace
