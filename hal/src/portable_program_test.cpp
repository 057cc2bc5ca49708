// portable_program_test.cpp - portable-bytecode executables: a program built
// word by word loads, runs on its bindings and checks them; every malformed
// or unprovable program is refused at load with an error naming the fault.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "executable_impl.h"
#include "kernel_bytecode.h"
#include "portable_program.h"

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

// One export "dadd" with dynamic shapes: out[i] = a[i] + b[i] over n f32
// elements, n the i64 push constant (words 0, 1); each binding must hold
// 4n bytes (shape requirements); the generic's size is patched with n.
struct DynamicAddProgram {
  int64_t out_stride = 1;
  // Breakers: the patch's field word (0: the generic's size), the Mul
  // value's second operand, the first value's op, the table entry of
  // binding 0, and a second shape instruction after the generic.
  uint32_t patch_field = 0;
  uint32_t mul_operand = 1;
  uint32_t push_word = 0;
  uint64_t a_table_bytes = 0;
  bool second_shape = false;

  // Words of the shape instruction: 4 + 3 values + 3 requirements + 1
  // patch.
  static constexpr uint32_t kShapeWords = 4 + 3 * 3 + 2 * 3 + 2 * 1;

  std::vector<uint32_t> words() const {
    std::vector<uint32_t> w = {kernel::kMagic, kernel::kVersion,
                               kernel::kTableDigest, 1};
    w.push_back(4);  // name "dadd"
    uint32_t name = 0;
    std::memcpy(&name, "dadd", 4);
    w.push_back(name);
    w.push_back(3);  // bindings a, b, out
    w.push_back(2);  // push constant words: n (i64)
    auto push64 = [](std::vector<uint32_t>& v, uint64_t x) {
      v.push_back(static_cast<uint32_t>(x));
      v.push_back(static_cast<uint32_t>(x >> 32));
    };
    push64(w, a_table_bytes);
    push64(w, 0);
    push64(w, 0);
    w.push_back(0);  // temporaries
    w.push_back(0);  // constant data
    w.push_back(3);  // registers
    auto v = [](kernel::Value op) { return static_cast<uint32_t>(op); };
    std::vector<uint32_t> code = {static_cast<uint32_t>(kernel::Inst::Shape),
                                  3,
                                  v(kernel::Value::Push),
                                  push_word,
                                  0,
                                  v(kernel::Value::Const),
                                  4,
                                  0,
                                  v(kernel::Value::Mul),
                                  0,
                                  mul_operand,
                                  3,
                                  0,
                                  2,
                                  1,
                                  2,
                                  2,
                                  2,
                                  1,
                                  patch_field ? patch_field : kShapeWords + 2,
                                  0};
    REQUIRE(code.size() == kShapeWords);
    code.insert(code.end(), {static_cast<uint32_t>(kernel::Inst::Generic), 1, 0,
                             0, 1, 3, 1});
    for (uint32_t slot = 0; slot < 3; ++slot) {
      code.push_back(slot);
      code.push_back(t(kernel::Type::F32));
      push64(code, 0);
      push64(code, static_cast<uint64_t>(slot == 2 ? out_stride : 1));
    }
    code.push_back(3);
    auto body = [&](kernel::Op o, uint32_t d, uint32_t a, uint32_t b) {
      code.push_back(static_cast<uint32_t>(o) | (t(kernel::Type::F32) << 8));
      code.insert(code.end(), {d, a, b, 0});
    };
    body(kernel::Op::Load, 0, 0, 0);
    body(kernel::Op::Load, 1, 1, 0);
    body(kernel::Op::AddF, 2, 0, 1);
    code.push_back(2);
    if (second_shape) {
      code.insert(code.end(), {static_cast<uint32_t>(kernel::Inst::Shape), 1,
                               v(kernel::Value::Const), 0, 0, 0, 0});
    }
    w.push_back(static_cast<uint32_t>(code.size()));
    w.insert(w.end(), code.begin(), code.end());
    return w;
  }
};

// Runs export 0 once with the push constant n (an i64) and returns the
// code, the detail in *detail.
int runDynamic(strata_hal_executable_t* executable, int64_t n,
               std::vector<void*> ptrs, std::vector<size_t> lengths,
               strata_hal_executable_dispatch_detail_v1_t* detail) {
  const strata_hal_executable_dispatch_attrs_v0_t* attrs =
      strata_hal_executable_export_attrs(executable, 0);
  std::vector<uint8_t> local(attrs->local_memory_size + 64);
  uint32_t constants[2] = {
      static_cast<uint32_t>(n),
      static_cast<uint32_t>(static_cast<uint64_t>(n) >> 32)};
  strata_hal_executable_dispatch_state_v0_t state = {};
  state.binding_count = static_cast<uint16_t>(ptrs.size());
  state.binding_ptrs = ptrs.data();
  state.binding_lengths = lengths.data();
  state.constant_count = 2;
  state.constants = constants;
  state.workgroup_count_x = state.workgroup_count_y = 1;
  state.workgroup_count_z = 1;
  *detail = {};
  strata_hal_executable_workgroup_state_v1_t workgroup = {};
  workgroup.detail = detail;
  workgroup.v0.local_memory = local.data();
  workgroup.v0.local_memory_size = attrs->local_memory_size;
  return exportFunction(executable, 0)(&dispatchEnvironment(executable, 0),
                                       &state, &workgroup.v0);
}

TEST_SUITE("hal.portable") {
TEST_CASE("a program with dynamic shapes runs at its push constants' sizes") {
  strata_hal_executable_t* executable = nullptr;
  REQUIRE(load(DynamicAddProgram().words(), &executable) == "OK");
  for (int64_t n : {100, 3, 0}) {
    std::vector<float> a(100);
    std::vector<float> b(100);
    std::vector<float> out(101, -1.0f);
    for (int i = 0; i < 100; ++i) {
      a[i] = static_cast<float>(i);
      b[i] = 0.5f * static_cast<float>(i);
    }
    size_t bytes = static_cast<size_t>(4 * n);
    strata_hal_executable_dispatch_detail_v1_t detail;
    CHECK(runDynamic(executable, n, {a.data(), b.data(), out.data()},
                     {bytes, bytes, bytes},
                     &detail) == STRATA_HAL_EXECUTABLE_DISPATCH_OK);
    for (int64_t i = 0; i < n; ++i) {
      CHECK(out[i] == doctest::Approx(1.5f * static_cast<float>(i)));
    }
    CHECK(out[n] == -1.0f);  // nothing past the run-time size
  }
  strata_hal_executable_release(executable);
}

TEST_CASE("a binding short of its run-time shape fails naming the binding") {
  strata_hal_executable_t* executable = nullptr;
  REQUIRE(load(DynamicAddProgram().words(), &executable) == "OK");
  std::vector<float> a(100, 1.0f);
  std::vector<float> out(100, -1.0f);
  strata_hal_executable_dispatch_detail_v1_t detail;
  CHECK(runDynamic(executable, 100, {a.data(), a.data(), out.data()},
                   {400, 396, 400},
                   &detail) == STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE);
  CHECK(detail.kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_BINDING);
  CHECK(detail.index == 1);
  CHECK(detail.bound == 400);
  CHECK(out[0] == -1.0f);
  strata_hal_executable_release(executable);
}

TEST_CASE("push constants out of range fail the dispatch before any access") {
  strata_hal_executable_t* executable = nullptr;
  REQUIRE(load(DynamicAddProgram().words(), &executable) == "OK");
  std::vector<float> a(4, 1.0f);
  std::vector<float> out(4, -1.0f);
  size_t huge = SIZE_MAX;
  strata_hal_executable_dispatch_detail_v1_t detail;
  // A negative size: the requirement (4n bytes) is negative.
  CHECK(runDynamic(executable, -1, {a.data(), a.data(), out.data()},
                   {16, 16, 16},
                   &detail) == STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE);
  CHECK(detail.kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE);
  CHECK(detail.index == -4);
  // 4n overflows.
  CHECK(runDynamic(executable, int64_t(1) << 62,
                   {a.data(), a.data(), out.data()}, {huge, huge, huge},
                   &detail) == STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE);
  CHECK(detail.kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE);
  CHECK(detail.bound == -1);
  // A loop of more than 2^30 iterations, with bindings that claim to hold
  // it: refused before a pointer is formed.
  CHECK(runDynamic(executable, int64_t(1) << 31,
                   {a.data(), a.data(), out.data()}, {huge, huge, huge},
                   &detail) == STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE);
  CHECK(detail.kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE);
  CHECK(detail.index == int64_t(1) << 31);
  CHECK(detail.bound == int64_t(1) << 30);
  CHECK(out[0] == -1.0f);
  strata_hal_executable_release(executable);
}

TEST_CASE("an access past the run-time shape is refused at dispatch") {
  DynamicAddProgram program;
  program.out_stride = 2;  // out reaches element 2(n - 1) of n
  strata_hal_executable_t* executable = nullptr;
  // Unprovable at load (its sizes are patched): proved per dispatch.
  REQUIRE(load(program.words(), &executable) == "OK");
  std::vector<float> a(10, 1.0f);
  std::vector<float> out(10, -1.0f);
  strata_hal_executable_dispatch_detail_v1_t detail;
  CHECK(runDynamic(executable, 10, {a.data(), a.data(), out.data()},
                   {40, 40, 40},
                   &detail) == STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE);
  CHECK(detail.kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_BINDING);
  CHECK(detail.index == 2);
  CHECK(detail.bound == 76);
  CHECK(out[0] == -1.0f);
  // n = 1 reaches only element 0.
  CHECK(runDynamic(executable, 1, {a.data(), a.data(), out.data()}, {4, 4, 4},
                   &detail) == STRATA_HAL_EXECUTABLE_DISPATCH_OK);
  CHECK(out[0] == 2.0f);
  strata_hal_executable_release(executable);
}

// One export "half": out[i] = op(in[i]) over 4 elements, `in` of type
// in_type, `out` of out_type, the body on f32 registers (body_type).
std::vector<uint32_t> halfProgram(kernel::Type in_type, kernel::Type out_type,
                                  kernel::Op op, kernel::Type body_type) {
  auto bytes = [](kernel::Type type) {
    return uint64_t(kernel::typeBytes(static_cast<uint32_t>(type))) * 4;
  };
  std::vector<uint32_t> w = {kernel::kMagic, kernel::kVersion,
                             kernel::kTableDigest, 1};
  w.push_back(4);
  uint32_t name = 0;
  std::memcpy(&name, "half", 4);
  w.push_back(name);
  w.push_back(2);  // bindings in, out
  w.push_back(0);
  for (uint64_t b : {bytes(in_type), bytes(out_type)}) {
    w.push_back(static_cast<uint32_t>(b));
    w.push_back(0);
  }
  w.push_back(0);  // temporaries
  w.push_back(0);  // constant data
  w.push_back(2);  // registers
  std::vector<uint32_t> code = {
      static_cast<uint32_t>(kernel::Inst::Generic), 1, 4, 0, 1, 2, 1};
  kernel::Type types[2] = {in_type, out_type};
  for (uint32_t slot = 0; slot < 2; ++slot) {
    code.push_back(slot);
    code.push_back(t(types[slot]));
    code.insert(code.end(), {0, 0, 1, 0});  // offset 0, stride 1
  }
  code.push_back(2);
  code.push_back(static_cast<uint32_t>(kernel::Op::Load) | (t(body_type) << 8));
  code.insert(code.end(), {0, 0, 0, 0});
  code.push_back(static_cast<uint32_t>(op) | (t(body_type) << 8));
  code.insert(code.end(), {1, 0, 0, 0});
  code.push_back(1);  // yield r1
  w.push_back(static_cast<uint32_t>(code.size()));
  w.insert(w.end(), code.begin(), code.end());
  return w;
}

TEST_CASE("f16 and bf16 memory load as f32 and store rounded to nearest") {
  strata_hal_executable_t* executable = nullptr;
  // bf16 out = f16 in + f16 in (AddF of the register with itself).
  REQUIRE(load(halfProgram(kernel::Type::F16, kernel::Type::BF16,
                           kernel::Op::AddF, kernel::Type::F32),
               &executable) == "OK");
  // 1.0, 65504 (the largest f16), 2^-24 (the smallest subnormal), NaN.
  std::vector<uint16_t> in = {0x3C00, 0x7BFF, 0x0001, 0x7E00};
  std::vector<uint16_t> out(4, 0);
  CHECK(run(executable, {in.data(), out.data()}, {8, 8}) ==
        STRATA_HAL_EXECUTABLE_DISPATCH_OK);
  CHECK(out[0] == 0x4000);  // 2.0
  CHECK(out[1] == 0x4800);  // 131008 rounds up to 131072 in bf16
  CHECK(out[2] == 0x3400);  // 2^-23
  CHECK((out[3] & 0x7F80) == 0x7F80);
  CHECK((out[3] & 0x007F) != 0);  // still NaN
  strata_hal_executable_release(executable);
}

TEST_CASE("roundf16 rounds f32 lanes to the nearest f16") {
  strata_hal_executable_t* executable = nullptr;
  REQUIRE(load(halfProgram(kernel::Type::F32, kernel::Type::F16,
                           kernel::Op::RoundF16, kernel::Type::F32),
               &executable) == "OK");
  // Halfway between 1 and 1 + 2^-10 (to even: 1), 1 + 3 * 2^-11 (to
  // 1 + 2^-9), past the largest f16 (infinity), below half the smallest
  // subnormal (0).
  std::vector<float> in = {1.0f + 0.00048828125f, 1.0f + 0.00146484375f,
                           70000.0f, 1e-8f};
  std::vector<uint16_t> out(4, 0xFFFF);
  CHECK(run(executable, {in.data(), out.data()}, {16, 8}) ==
        STRATA_HAL_EXECUTABLE_DISPATCH_OK);
  CHECK(out[0] == 0x3C00);
  CHECK(out[1] == 0x3C02);
  CHECK(out[2] == 0x7C00);
  CHECK(out[3] == 0x0000);
  strata_hal_executable_release(executable);
}

TEST_CASE("rejects f16 and bf16 registers") {
  // A body instruction typed f16.
  CHECK(load(halfProgram(kernel::Type::F16, kernel::Type::F16, kernel::Op::NegF,
                         kernel::Type::F16))
            .find("has type 7 (f16), which it does not take") !=
        std::string::npos);
  // An f16 operand loaded as f64.
  CHECK(load(halfProgram(kernel::Type::F16, kernel::Type::F64, kernel::Op::NegF,
                         kernel::Type::F64))
            .find("(load) reads operand 0 as f64") != std::string::npos);
}

// One export "dtemp": t = a, then out = t, over n f32 elements (the i64
// push constant); a, out and the temporary t are sized 4n at dispatch.
std::vector<uint32_t> dynamicTemporaryProgram() {
  namespace k = kernel;
  std::vector<uint32_t> w = {k::kMagic, k::kVersion, k::kTableDigest, 1, 5};
  uint32_t name[2] = {0, 0};
  std::memcpy(name, "dtemp", 5);
  w.insert(w.end(), {name[0], name[1], 2, 2, 0, 0, 0, 0});
  w.insert(w.end(), {1, 0, 0, 0, 1});  // one temporary (entry 0), no data
  auto v = [](k::Value op) { return static_cast<uint32_t>(op); };
  const uint32_t f32 = t(k::Type::F32);
  const uint32_t load = static_cast<uint32_t>(k::Op::Load) | (f32 << 8);
  const uint32_t gen = static_cast<uint32_t>(k::Inst::Generic);
  // The shape (23 words): slots 0, 1 (bindings) and 2 (the temporary)
  // take V2 = 4n bytes; the generics (at 23 and 49) take n as their sizes.
  std::vector<uint32_t> code = {static_cast<uint32_t>(k::Inst::Shape),
                                3,
                                v(k::Value::Push),
                                0,
                                0,
                                v(k::Value::Const),
                                4,
                                0,
                                v(k::Value::Mul),
                                0,
                                1,
                                3,
                                0,
                                2,
                                1,
                                2,
                                2,
                                2,
                                2,
                                25,
                                0,
                                51,
                                0};
  REQUIRE(code.size() == 23);
  for (uint32_t from_to : {0x0002u, 0x0201u}) {  // a -> t, t -> out
    code.insert(code.end(), {gen, 1, 0, 0, 1, 2, 1});
    code.insert(code.end(), {from_to >> 8 ? 2u : 0u, f32, 0, 0, 1, 0});
    code.insert(code.end(), {from_to & 0xFF, f32, 0, 0, 1, 0});
    code.insert(code.end(), {1, load, 0, 0, 0, 0, 0});
  }
  REQUIRE(code[49] == gen);
  w.push_back(static_cast<uint32_t>(code.size()));
  w.insert(w.end(), code.begin(), code.end());
  return w;
}

TEST_CASE("temporaries sized at dispatch take local memory after the code") {
  strata_hal_executable_t* executable = nullptr;
  REQUIRE(load(dynamicTemporaryProgram(), &executable) == "OK");
  const strata::hal::PortableExport& e =
      executable->portable_program->exports[0];
  CHECK(e.dynamic_temporaries);
  CHECK(e.local_memory_size == kernel::kMaxLocalMemory);
  std::vector<float> a = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  std::vector<float> out(10, -1.0f);
  auto call = [&](int64_t n, uint64_t local_size,
                  strata_hal_executable_dispatch_detail_v1_t* detail) {
    std::vector<uint8_t> local(local_size);
    uint32_t constants[2] = {static_cast<uint32_t>(n), 0};
    std::vector<void*> ptrs = {a.data(), out.data()};
    std::vector<size_t> lengths = {40, 40};
    strata_hal_executable_dispatch_state_v0_t state = {};
    state.binding_count = 2;
    state.binding_ptrs = ptrs.data();
    state.binding_lengths = lengths.data();
    state.constant_count = 2;
    state.constants = constants;
    state.workgroup_count_x = state.workgroup_count_y = 1;
    state.workgroup_count_z = 1;
    *detail = {};
    strata_hal_executable_workgroup_state_v1_t workgroup = {};
    workgroup.detail = detail;
    workgroup.v0.local_memory = local.data();
    workgroup.v0.local_memory_size = static_cast<uint32_t>(local_size);
    return exportFunction(executable, 0)(&dispatchEnvironment(executable, 0),
                                         &state, &workgroup.v0);
  };
  strata_hal_executable_dispatch_detail_v1_t detail;
  // Room for the temporary's 40 bytes after the code copy: it runs.
  CHECK(call(10, e.dynamic_temporary_offset + 64, &detail) ==
        STRATA_HAL_EXECUTABLE_DISPATCH_OK);
  CHECK(out[9] == 10.0f);
  // 16 bytes short: refused before anything runs, saying how much.
  out.assign(10, -1.0f);
  CHECK(call(10, e.dynamic_temporary_offset + 24, &detail) ==
        STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE);
  CHECK(detail.kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_LOCAL_MEMORY);
  CHECK(detail.index == 40);
  CHECK(detail.bound == 24);
  CHECK(out[0] == -1.0f);
  // Less than the static part (the code copy) is refused as before.
  CHECK(call(10, e.code_copy_offset, &detail) ==
        STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE);
  strata_hal_executable_release(executable);
}

TEST_CASE("rejects a malformed shape instruction") {
  const uint32_t generic = DynamicAddProgram::kShapeWords;
  DynamicAddProgram slot_patch;
  slot_patch.patch_field = generic + 7;  // operand 0's slot
  CHECK(load(slot_patch.words()).find("starts no size or extent") !=
        std::string::npos);
  DynamicAddProgram wide_size;
  wide_size.patch_field = (generic + 2) | kernel::kPatchWide;
  CHECK(load(wide_size.words()).find("starts no offset or stride") !=
        std::string::npos);
  DynamicAddProgram inside;
  inside.patch_field = 5;  // a word of the shape instruction itself
  CHECK(load(inside.words()).find("not a word after the shape instruction") !=
        std::string::npos);
  DynamicAddProgram forward;
  forward.mul_operand = 2;  // value 2 reads itself
  CHECK(load(forward.words()).find("shape value 2 (mul)") != std::string::npos);
  DynamicAddProgram past;
  past.push_word = 1;  // words 1 and 2 of 2
  CHECK(load(past.words()).find("shape value 0 (push)") != std::string::npos);
  DynamicAddProgram both;
  both.a_table_bytes = 400;  // a table entry and a requirement
  CHECK(load(both.words()).find("shape requirement 0 names slot 0") !=
        std::string::npos);
  DynamicAddProgram twice;
  twice.second_shape = true;
  CHECK(load(twice.words()).find("is not the first instruction") !=
        std::string::npos);
  std::vector<uint32_t> words = DynamicAddProgram().words();
  for (size_t size = 1; size < words.size(); ++size) {
    std::vector<uint32_t> cut(words.begin(), words.begin() + size);
    CHECK_MESSAGE(load(cut).find("INVALID_ARGUMENT") == 0, size);
  }
}

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

// One export "mm": C (m x n) += A (m x k) * B (k x n), row-major, with the
// matrices' types and C's binding size adjustable to break it.
struct MatmulProgram {
  uint32_t m = 5;  // a block of 4 rows and one more
  uint32_t n = 3;
  uint32_t k = 2048;
  kernel::Type a = kernel::Type::F16;
  kernel::Type b = kernel::Type::F16;
  kernel::Type c = kernel::Type::F16;
  int64_t c_bytes_less = 0;

  uint64_t bytes(kernel::Type type, uint64_t count) const {
    return count * kernel::typeBytes(t(type));
  }
  std::vector<uint32_t> words() const {
    std::vector<uint32_t> w = {kernel::kMagic, kernel::kVersion,
                               kernel::kTableDigest, 1};
    w.push_back(2);  // name "mm"
    uint32_t name = 0;
    std::memcpy(&name, "mm", 2);
    w.push_back(name);
    w.push_back(3);  // bindings A, B, C
    w.push_back(0);  // constants
    auto push64 = [&](std::vector<uint32_t>& to, uint64_t v) {
      to.push_back(static_cast<uint32_t>(v));
      to.push_back(static_cast<uint32_t>(v >> 32));
    };
    push64(w, bytes(a, uint64_t(m) * k));
    push64(w, bytes(b, uint64_t(k) * n));
    push64(w, bytes(c, uint64_t(m) * n) - c_bytes_less);
    w.push_back(0);  // temporaries
    w.push_back(0);  // constant data
    w.push_back(0);  // registers
    std::vector<uint32_t> code = {static_cast<uint32_t>(kernel::Inst::Matmul),
                                  1, m, n, k};
    auto matrix = [&](uint32_t slot, kernel::Type type, uint64_t rows_stride) {
      code.push_back(slot);
      code.push_back(t(type));
      push64(code, 0);            // offset
      push64(code, 0);            // batch stride
      push64(code, rows_stride);  // row stride
      push64(code, 1);            // column stride
    };
    matrix(0, a, k);
    matrix(1, b, n);
    matrix(2, c, n);
    w.push_back(static_cast<uint32_t>(code.size()));
    w.insert(w.end(), code.begin(), code.end());
    return w;
  }
};

TEST_CASE("an f16 matmul rounds each product and sum to f16") {
  strata_hal_executable_t* executable = nullptr;
  MatmulProgram program;
  REQUIRE(load(program.words(), &executable) == "OK");
  // 2048 steps of 1.0 * 0.01 (0x211F): an f16 sum stalls past 16 where its
  // spacing outgrows the step; f32's would be 20.48.
  std::vector<uint16_t> a(5 * 2048, 0x3C00);
  std::vector<uint16_t> b(2048 * 3, 0x211F);
  std::vector<uint16_t> c(5 * 3, 0);
  CHECK(run(executable, {a.data(), b.data(), c.data()},
            {a.size() * 2, b.size() * 2, c.size() * 2}) ==
        STRATA_HAL_EXECUTABLE_DISPATCH_OK);
  for (uint16_t value : c) {
    CHECK(value == 0x4D12);  // 20.28125
  }
  strata_hal_executable_release(executable);
}

TEST_CASE("a bf16 matmul rounds each product and sum to bf16") {
  strata_hal_executable_t* executable = nullptr;
  MatmulProgram program;
  program.k = 300;
  program.a = program.b = program.c = kernel::Type::BF16;
  REQUIRE(load(program.words(), &executable) == "OK");
  std::vector<uint16_t> a(5 * 300, 0x3F80);  // 1.0
  std::vector<uint16_t> b(300 * 3, 0x3C24);  // 0.01
  std::vector<uint16_t> c(5 * 3, 0);
  CHECK(run(executable, {a.data(), b.data(), c.data()},
            {a.size() * 2, b.size() * 2, c.size() * 2}) ==
        STRATA_HAL_EXECUTABLE_DISPATCH_OK);
  for (uint16_t value : c) {
    CHECK(value == 0x404E);  // 3.21875
  }
  strata_hal_executable_release(executable);
}

TEST_CASE("an f32 matmul of f16 inputs widens them exactly") {
  strata_hal_executable_t* executable = nullptr;
  MatmulProgram program;
  program.c = kernel::Type::F32;
  REQUIRE(load(program.words(), &executable) == "OK");
  std::vector<uint16_t> a(5 * 2048, 0x3C00);
  std::vector<uint16_t> b(2048 * 3, 0x211F);
  std::vector<float> c(5 * 3, 0.0f);
  CHECK(run(executable, {a.data(), b.data(), c.data()},
            {a.size() * 2, b.size() * 2, c.size() * 4}) ==
        STRATA_HAL_EXECUTABLE_DISPATCH_OK);
  for (float value : c) {
    CHECK(value == 20.484375f);  // f32's sum of 2048 f16 0.01s
  }
  strata_hal_executable_release(executable);
}

TEST_CASE("rejects an f16 matmul whose A or B is of another type") {
  MatmulProgram program;
  program.a = kernel::Type::F32;
  std::string error = load(program.words());
  CHECK(error.find("INVALID_ARGUMENT") == 0);
  CHECK(error.find("C is f16 but A is f32 and B f16") != std::string::npos);
}

TEST_CASE("rejects a matmul of integers") {
  MatmulProgram program;
  program.b = kernel::Type::I16;
  CHECK(load(program.words())
            .find("B names slot 1 of 3 with type 4 (f32, "
                  "f16 or bf16 only)") != std::string::npos);
}

TEST_CASE("rejects an f16 matmul past its binding, counted in f16 bytes") {
  MatmulProgram program;
  program.c_bytes_less = 1;  // 29 bytes: C's last f16 element sticks out
  CHECK(load(program.words()).find("C reaches elements [0, 14] of f16") !=
        std::string::npos);
}
