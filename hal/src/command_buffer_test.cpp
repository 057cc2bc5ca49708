// command_buffer_test.cpp - hal.command_buffer: recording dispatches, fills,
// copies and barriers, with every record-time check and the retention of
// what commands use.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "command_buffer_impl.h"
#include "strata/hal/command_buffer.h"
#include "strata/hal/device.h"

namespace {

const char* const kSamplePath = STRATA_TEST_SAMPLE_KERNELS_PATH;
constexpr uint32_t kAdd = 0;
constexpr uint32_t kMatmul = 2;
constexpr uint32_t kFailAlways = 3;

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

// Wraps the system allocator, counting live allocations.
struct CountingAllocator {
  int live = 0;
  static void* alloc(void* self, size_t size, size_t alignment) {
    void* ptr =
        strata_allocator_alloc(strata_allocator_system(), size, alignment);
    if (ptr) {
      static_cast<CountingAllocator*>(self)->live++;
    }
    return ptr;
  }
  static void free(void* self, void* ptr) {
    if (ptr) {
      static_cast<CountingAllocator*>(self)->live--;
    }
    strata_allocator_free(strata_allocator_system(), ptr);
  }
  strata_allocator_t get() { return {this, alloc, free}; }
};

uint32_t refs(void* object) {
  return strata_vm_ref_count(static_cast<strata_vm_ref_object_t*>(object));
}

// The sample kernels, three buffers and a command buffer.
struct Fixture {
  strata_hal_executable_t* executable = nullptr;
  strata_hal_buffer_t* a = nullptr;
  strata_hal_buffer_t* b = nullptr;
  strata_hal_buffer_t* out = nullptr;
  strata_hal_command_buffer_t* cb = nullptr;

  explicit Fixture(strata_hal_command_buffer_mode_t mode =
                       STRATA_HAL_COMMAND_BUFFER_MODE_ONE_SHOT) {
    REQUIRE(consume(strata_hal_executable_load_file(
                kSamplePath, strata_allocator_system(), &executable)) ==
            "OK");
    for (strata_hal_buffer_t** buffer : {&a, &b, &out}) {
      REQUIRE(consume(strata_hal_buffer_allocate(strata_allocator_system(),
                                                 64 * sizeof(float),
                                                 buffer)) == "OK");
    }
    REQUIRE(consume(strata_hal_command_buffer_create(
                mode, strata_allocator_system(), &cb)) == "OK");
  }
  ~Fixture() {
    strata_hal_command_buffer_release(cb);
    strata_hal_buffer_release(a);
    strata_hal_buffer_release(b);
    strata_hal_buffer_release(out);
    strata_hal_executable_release(executable);
  }
  strata_status_t dispatchAdd(uint32_t n, uint64_t out_length = UINT64_MAX) {
    const uint32_t count[3] = {(n + 63) / 64, 1, 1};
    const strata_hal_buffer_binding_t bindings[] = {
        {a, 0, UINT64_MAX}, {b, 0, UINT64_MAX}, {out, 0, out_length}};
    return strata_hal_command_buffer_dispatch(cb, executable, kAdd, count, &n,
                                              1, bindings, 3);
  }
  float* floats(strata_hal_buffer_t* buffer) {
    uint8_t* ptr = nullptr;
    REQUIRE(consume(strata_hal_buffer_map(buffer, 0, 64 * sizeof(float),
                                          &ptr)) == "OK");
    return reinterpret_cast<float*>(ptr);
  }
};

// Runs cb on a local-sync device and returns the signal fence's status.
std::string runSync(strata_hal_command_buffer_t* cb) {
  strata_hal_device_options_t options = {"local-sync", 0};
  strata_hal_device_t* device = nullptr;
  REQUIRE(consume(strata_hal_device_create(&options, strata_allocator_system(),
                                           &device)) == "OK");
  strata_hal_fence_t* fence = nullptr;
  REQUIRE(consume(strata_hal_fence_create_pending(strata_allocator_system(),
                                                  &fence)) == "OK");
  std::string text = consume(
      strata_hal_device_queue_execute(device, nullptr, fence, &cb, 1));
  if (text == "OK") {
    text = consume(strata_hal_fence_wait(
        fence, strata_hal_deadline_after_ns(5 * 1000 * 1000 * 1000ll)));
  }
  strata_hal_fence_release(fence);
  strata_hal_device_release(device);
  return text;
}

}  // namespace

TEST_SUITE("hal.command_buffer") {

TEST_CASE("is a hal.command_buffer ref object and rejects unknown modes") {
  strata_hal_command_buffer_t* cb = nullptr;
  REQUIRE(consume(strata_hal_command_buffer_create(
              STRATA_HAL_COMMAND_BUFFER_MODE_REUSABLE,
              strata_allocator_system(), &cb)) == "OK");
  strata_vm_ref_object_t* ref = strata_hal_command_buffer_as_ref(cb);
  CHECK(std::string(ref->type->name) == "hal.command_buffer");
  CHECK(strata_hal_command_buffer_from_ref(ref) == cb);
  CHECK(strata_hal_command_buffer_from_ref(nullptr) == nullptr);
  CHECK(strata_hal_command_buffer_command_count(cb) == 0);
  strata_hal_command_buffer_release(cb);
  std::string text = consume(strata_hal_command_buffer_create(
      static_cast<strata_hal_command_buffer_mode_t>(7),
      strata_allocator_system(), &cb));
  CHECK(text.find("unknown hal.command_buffer mode 7") != std::string::npos);
  CHECK(cb == nullptr);
}

TEST_CASE("records commands in order and counts them") {
  Fixture f;
  REQUIRE(consume(f.dispatchAdd(10)) == "OK");
  REQUIRE(consume(strata_hal_command_buffer_barrier(f.cb)) == "OK");
  REQUIRE(consume(strata_hal_command_buffer_fill(f.cb, f.a, 0, 16, 7, 4)) ==
          "OK");
  REQUIRE(consume(strata_hal_command_buffer_copy(f.cb, f.a, 0, f.b, 4, 8)) ==
          "OK");
  CHECK(strata_hal_command_buffer_command_count(f.cb) == 4);
  const strata::hal::Command* command = strata::hal::commandBufferFirst(f.cb);
  using strata::hal::CommandKind;
  const CommandKind expected[] = {CommandKind::kDispatch, CommandKind::kBarrier,
                                  CommandKind::kFill, CommandKind::kCopy};
  for (CommandKind kind : expected) {
    REQUIRE(command != nullptr);
    CHECK(command->kind == kind);
    command = command->next;
  }
  CHECK(command == nullptr);
}

TEST_CASE("resolves bindings at record time, to the end when asked") {
  Fixture f;
  REQUIRE(consume(f.dispatchAdd(10)) == "OK");
  auto* dispatch = reinterpret_cast<const strata::hal::DispatchCommand*>(
      strata::hal::commandBufferFirst(f.cb));
  CHECK(dispatch->state.binding_count == 3);
  CHECK(dispatch->state.binding_lengths[2] == 64 * sizeof(float));
  CHECK(dispatch->state.binding_ptrs[2] == static_cast<void*>(f.floats(f.out)));
  CHECK(dispatch->state.workgroup_size_x == 64);
  CHECK(dispatch->state.workgroup_count_x == 1);
  CHECK(dispatch->workgroup_total == 1);

  const uint32_t count[3] = {1, 1, 1};
  const uint32_t n = 4;
  const strata_hal_buffer_binding_t offset_bindings[] = {
      {f.a, 16, UINT64_MAX}, {f.b, 0, 16}, {f.out, 240, UINT64_MAX}};
  REQUIRE(consume(strata_hal_command_buffer_dispatch(
              f.cb, f.executable, kAdd, count, &n, 1, offset_bindings, 3)) ==
          "OK");
  dispatch = reinterpret_cast<const strata::hal::DispatchCommand*>(
      dispatch->header.next);
  CHECK(dispatch->state.binding_lengths[0] == 240);
  CHECK(dispatch->state.binding_lengths[1] == 16);
  CHECK(dispatch->state.binding_lengths[2] == 16);
  CHECK(static_cast<uint8_t*>(dispatch->state.binding_ptrs[0]) ==
        reinterpret_cast<uint8_t*>(f.floats(f.a)) + 16);
}

TEST_CASE("rejects out-of-range bindings naming the buffer length and range") {
  Fixture f;
  const uint32_t count[3] = {1, 1, 1};
  const uint32_t n = 4;
  strata_hal_buffer_binding_t bindings[] = {
      {f.a, 0, UINT64_MAX}, {f.b, 0, UINT64_MAX}, {f.out, 200, 64}};
  std::string text = consume(strata_hal_command_buffer_dispatch(
      f.cb, f.executable, kAdd, count, &n, 1, bindings, 3));
  CHECK(text ==
        "OUT_OF_RANGE: binding 2 of dispatch 'add_f32': range of 64 bytes at "
        "offset 200 is out of bounds of a hal.buffer of 256 bytes");
  bindings[2] = {f.out, UINT64_MAX - 8, 16};
  text = consume(strata_hal_command_buffer_dispatch(
      f.cb, f.executable, kAdd, count, &n, 1, bindings, 3));
  CHECK(text.rfind("OUT_OF_RANGE: binding 2", 0) == 0);
  bindings[2] = {f.out, 300, UINT64_MAX};
  text = consume(strata_hal_command_buffer_dispatch(
      f.cb, f.executable, kAdd, count, &n, 1, bindings, 3));
  CHECK(text.find("offset 300 is past the end of a hal.buffer of 256 bytes") !=
        std::string::npos);
  bindings[1] = {nullptr, 0, 4};
  text = consume(strata_hal_command_buffer_dispatch(
      f.cb, f.executable, kAdd, count, &n, 1, bindings, 3));
  CHECK(text ==
        "INVALID_ARGUMENT: binding 1 of dispatch 'add_f32' is a null "
        "hal.buffer");
  // Nothing was recorded, nothing retained.
  CHECK(strata_hal_command_buffer_command_count(f.cb) == 0);
  CHECK(refs(f.a) == 1);
  CHECK(refs(f.executable) == 1);
}

TEST_CASE("checks binding and constant counts and ordinals against the export") {
  Fixture f;
  const uint32_t count[3] = {1, 1, 1};
  const uint32_t constants[3] = {4, 4, 4};
  const strata_hal_buffer_binding_t bindings[] = {
      {f.a, 0, UINT64_MAX}, {f.b, 0, UINT64_MAX}, {f.out, 0, UINT64_MAX}};
  std::string text = consume(strata_hal_command_buffer_dispatch(
      f.cb, f.executable, kAdd, count, constants, 1, bindings, 2));
  CHECK(text.find("'add_f32'") != std::string::npos);
  CHECK(text.find("takes 3 bindings but the dispatch passes 2") !=
        std::string::npos);
  text = consume(strata_hal_command_buffer_dispatch(
      f.cb, f.executable, kMatmul, count, constants, 2, bindings, 3));
  CHECK(text.find("'matmul_f32'") != std::string::npos);
  CHECK(text.find("takes 3 push constants but the dispatch passes 2") !=
        std::string::npos);
  text = consume(strata_hal_command_buffer_dispatch(
      f.cb, f.executable, 9, count, constants, 1, bindings, 3));
  CHECK(text.rfind("OUT_OF_RANGE", 0) == 0);
  CHECK(text.find("ordinal 9") != std::string::npos);
  CHECK(text.find("4 exports") != std::string::npos);
  text = consume(strata_hal_command_buffer_dispatch(
      f.cb, f.executable, kFailAlways, count, nullptr, 0, bindings, 3));
  CHECK(text.find("takes 0 bindings but the dispatch passes 3") !=
        std::string::npos);
  text = consume(strata_hal_command_buffer_dispatch(
      f.cb, nullptr, kAdd, count, constants, 1, bindings, 3));
  CHECK(text.rfind("INVALID_ARGUMENT", 0) == 0);
  text = consume(strata_hal_command_buffer_dispatch(
      f.cb, f.executable, kAdd, count, nullptr, 1, bindings, 3));
  CHECK(text.rfind("INVALID_ARGUMENT", 0) == 0);
  CHECK(strata_hal_command_buffer_command_count(f.cb) == 0);
}

TEST_CASE("rejects grids it cannot run") {
  Fixture f;
  const uint32_t deep[3] = {1, 1, 70000};
  std::string text = consume(strata_hal_command_buffer_dispatch(
      f.cb, f.executable, kFailAlways, deep, nullptr, 0, nullptr, 0));
  CHECK(text.find("workgroup count z 70000 exceeds 65535") !=
        std::string::npos);
  const uint32_t huge[3] = {UINT32_MAX, UINT32_MAX, 2};
  text = consume(strata_hal_command_buffer_dispatch(
      f.cb, f.executable, kFailAlways, huge, nullptr, 0, nullptr, 0));
  CHECK(text.find("exceeds the limit") != std::string::npos);
  // An empty grid is a valid no-op.
  const uint32_t empty[3] = {0, 1, 1};
  CHECK(consume(strata_hal_command_buffer_dispatch(
            f.cb, f.executable, kFailAlways, empty, nullptr, 0, nullptr,
            0)) == "OK");
  REQUIRE(consume(strata_hal_command_buffer_finalize(f.cb)) == "OK");
  CHECK(runSync(f.cb) == "OK");
}

TEST_CASE("retains the executable and bound buffers until destroyed") {
  CountingAllocator counter;
  Fixture f;
  strata_hal_command_buffer_t* cb = nullptr;
  REQUIRE(consume(strata_hal_command_buffer_create(
              STRATA_HAL_COMMAND_BUFFER_MODE_REUSABLE, counter.get(), &cb)) ==
          "OK");
  const uint32_t count[3] = {1, 1, 1};
  const uint32_t n = 8;
  const strata_hal_buffer_binding_t bindings[] = {
      {f.a, 0, UINT64_MAX}, {f.b, 0, UINT64_MAX}, {f.out, 0, UINT64_MAX}};
  // Enough dispatches to spill over one arena block.
  for (int i = 0; i < 40; ++i) {
    REQUIRE(consume(strata_hal_command_buffer_dispatch(
                cb, f.executable, kAdd, count, &n, 1, bindings, 3)) == "OK");
  }
  REQUIRE(consume(strata_hal_command_buffer_fill(cb, f.a, 0, 4, 1, 1)) ==
          "OK");
  REQUIRE(consume(strata_hal_command_buffer_copy(cb, f.a, 0, f.b, 0, 4)) ==
          "OK");
  CHECK(refs(f.executable) == 41);
  CHECK(refs(f.a) == 43);
  CHECK(refs(f.b) == 42);
  CHECK(refs(f.out) == 41);
  CHECK(counter.live > 1);
  strata_hal_command_buffer_release(cb);
  CHECK(counter.live == 0);
  CHECK(refs(f.executable) == 1);
  CHECK(refs(f.a) == 1);
  CHECK(refs(f.b) == 1);
  CHECK(refs(f.out) == 1);
}

TEST_CASE("copies constants at record time") {
  Fixture f;
  float* a = f.floats(f.a);
  float* b = f.floats(f.b);
  for (int i = 0; i < 64; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 100.0f;
  }
  uint32_t n = 3;
  const uint32_t count[3] = {1, 1, 1};
  const strata_hal_buffer_binding_t bindings[] = {
      {f.a, 0, UINT64_MAX}, {f.b, 0, UINT64_MAX}, {f.out, 0, UINT64_MAX}};
  REQUIRE(consume(strata_hal_command_buffer_dispatch(
              f.cb, f.executable, kAdd, count, &n, 1, bindings, 3)) == "OK");
  n = 64;  // must not affect the recorded dispatch
  REQUIRE(consume(strata_hal_command_buffer_finalize(f.cb)) == "OK");
  CHECK(runSync(f.cb) == "OK");
  float* out = f.floats(f.out);
  CHECK(out[0] == 100.0f);
  CHECK(out[2] == 102.0f);
  CHECK(out[3] == 0.0f);
}

TEST_CASE("finalize ends recording") {
  Fixture f;
  REQUIRE(consume(strata_hal_command_buffer_finalize(f.cb)) == "OK");
  std::string text = consume(f.dispatchAdd(4));
  CHECK(text ==
        "FAILED_PRECONDITION: cannot record a dispatch: the "
        "hal.command_buffer is finalized");
  CHECK(consume(strata_hal_command_buffer_fill(f.cb, f.a, 0, 4, 0, 4))
            .rfind("FAILED_PRECONDITION", 0) == 0);
  CHECK(consume(strata_hal_command_buffer_copy(f.cb, f.a, 0, f.b, 0, 4))
            .rfind("FAILED_PRECONDITION", 0) == 0);
  CHECK(consume(strata_hal_command_buffer_barrier(f.cb))
            .rfind("FAILED_PRECONDITION", 0) == 0);
  CHECK(consume(strata_hal_command_buffer_finalize(f.cb))
            .rfind("FAILED_PRECONDITION", 0) == 0);
  CHECK(strata_hal_command_buffer_command_count(f.cb) == 0);
}

TEST_CASE("an unfinalized command buffer cannot be submitted") {
  Fixture f;
  REQUIRE(consume(f.dispatchAdd(4)) == "OK");
  std::string text = runSync(f.cb);
  CHECK(text.find("not finalized") != std::string::npos);
}

TEST_CASE("fill checks pattern size, alignment and range") {
  Fixture f;
  CHECK(consume(strata_hal_command_buffer_fill(f.cb, f.a, 0, 8, 0, 3)) ==
        "INVALID_ARGUMENT: fill pattern size 3 is not 1, 2 or 4 bytes");
  CHECK(consume(strata_hal_command_buffer_fill(f.cb, f.a, 2, 8, 0, 4)) ==
        "INVALID_ARGUMENT: fill of 8 bytes at offset 2 is not aligned to its "
        "4-byte pattern");
  CHECK(consume(strata_hal_command_buffer_fill(f.cb, f.a, 0, 6, 0, 4))
            .find("not aligned") != std::string::npos);
  CHECK(consume(strata_hal_command_buffer_fill(f.cb, f.a, 0, 7, 0, 2))
            .find("not aligned") != std::string::npos);
  CHECK(consume(strata_hal_command_buffer_fill(f.cb, f.a, 252, 8, 0, 4)) ==
        "OUT_OF_RANGE: fill target: range of 8 bytes at offset 252 is out of "
        "bounds of a hal.buffer of 256 bytes");
  CHECK(consume(strata_hal_command_buffer_fill(f.cb, nullptr, 0, 4, 0, 4))
            .rfind("INVALID_ARGUMENT", 0) == 0);
  CHECK(strata_hal_command_buffer_command_count(f.cb) == 0);
  CHECK(consume(strata_hal_command_buffer_fill(f.cb, f.a, 3, 5, 0, 1)) ==
        "OK");
  CHECK(consume(strata_hal_command_buffer_fill(f.cb, f.a, 8, UINT64_MAX, 0,
                                               4)) == "OK");
}

TEST_CASE("copy checks both ranges") {
  Fixture f;
  CHECK(consume(strata_hal_command_buffer_copy(f.cb, f.a, 250, f.b, 0, 8)) ==
        "OUT_OF_RANGE: copy source: range of 8 bytes at offset 250 is out of "
        "bounds of a hal.buffer of 256 bytes");
  CHECK(consume(strata_hal_command_buffer_copy(f.cb, f.a, 0, f.b, 256, 1)) ==
        "OUT_OF_RANGE: copy target: range of 1 bytes at offset 256 is out of "
        "bounds of a hal.buffer of 256 bytes");
  CHECK(consume(strata_hal_command_buffer_copy(f.cb, f.a, 0, f.b, 0,
                                               UINT64_MAX))
            .rfind("INVALID_ARGUMENT", 0) == 0);
  CHECK(strata_hal_command_buffer_command_count(f.cb) == 0);
  CHECK(consume(strata_hal_command_buffer_copy(f.cb, f.a, 0, f.a, 4, 8)) ==
        "OK");
}

TEST_CASE("fill and copy execute as recorded, overlapping copies included") {
  Fixture f;
  uint8_t* a = reinterpret_cast<uint8_t*>(f.floats(f.a));
  uint8_t* b = reinterpret_cast<uint8_t*>(f.floats(f.b));
  for (int i = 0; i < 256; ++i) {
    a[i] = static_cast<uint8_t>(i);
  }
  REQUIRE(consume(strata_hal_command_buffer_fill(f.cb, f.b, 0, 8, 0xAB, 1)) ==
          "OK");
  REQUIRE(consume(strata_hal_command_buffer_fill(f.cb, f.b, 8, 8, 0x1234, 2)) ==
          "OK");
  REQUIRE(consume(strata_hal_command_buffer_fill(f.cb, f.b, 16, 8,
                                                 0xDEADBEEF, 4)) == "OK");
  // Overlapping, forward and backward, within one buffer.
  REQUIRE(consume(strata_hal_command_buffer_copy(f.cb, f.a, 0, f.a, 4, 16)) ==
          "OK");
  REQUIRE(consume(strata_hal_command_buffer_copy(f.cb, f.a, 104, f.a, 100,
                                                 16)) == "OK");
  REQUIRE(consume(strata_hal_command_buffer_finalize(f.cb)) == "OK");
  CHECK(runSync(f.cb) == "OK");
  for (int i = 0; i < 8; ++i) {
    CHECK(b[i] == 0xAB);
  }
  uint16_t half;
  std::memcpy(&half, b + 10, 2);
  CHECK(half == 0x1234);
  uint32_t word;
  std::memcpy(&word, b + 20, 4);
  CHECK(word == 0xDEADBEEFu);
  CHECK(b[24] == 0);
  for (int i = 0; i < 16; ++i) {
    CHECK(a[4 + i] == i);
    CHECK(a[100 + i] == 104 + i);
  }
  CHECK(a[3] == 3);
  CHECK(a[20] == 20);
}

}  // TEST_SUITE
