// device_test.cpp - hal.device on local-sync and local-task (1 and 2
// workers): sample kernels against references, fence chains, independent
// and concurrent submissions, failures that reach every waiter, queue
// alloca/dealloca/barrier, and no allocation per dispatch.
#include <doctest/doctest.h>
#include <pthread.h>
#include <array>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "device_testing.h"
#include "kernel_bytecode.h"
#include "strata/hal/command_buffer.h"
#include "strata/hal/device.h"
#include "strata/hal/executable.h"
#include "strata/hal/semaphore.h"
#include "task_pool.h"

namespace {

using namespace strata::hal::device_testing;

const char* const kSamplePath = STRATA_TEST_SAMPLE_KERNELS_PATH;
constexpr uint32_t kAdd = 0;
constexpr uint32_t kMul = 1;
constexpr uint32_t kMatmul = 2;
constexpr uint32_t kFailAlways = 3;

// Thread-safe allocation counter around the system allocator.
struct CountingAllocator {
  std::atomic<int> allocs{0};
  std::atomic<int> live{0};
  static void* alloc(void* self, size_t size, size_t alignment) {
    auto* counter = static_cast<CountingAllocator*>(self);
    counter->allocs.fetch_add(1);
    void* ptr =
        strata_allocator_alloc(strata_allocator_system(), size, alignment);
    if (ptr) {
      counter->live.fetch_add(1);
    }
    return ptr;
  }
  static void free(void* self, void* ptr) {
    if (ptr) {
      static_cast<CountingAllocator*>(self)->live.fetch_sub(1);
    }
    strata_allocator_free(strata_allocator_system(), ptr);
  }
  strata_allocator_t get() { return {this, alloc, free}; }
};

//===----------------------------------------------------------------------===//
// Test kernels, registered statically.
//===----------------------------------------------------------------------===//

// What "record" writes per workgroup (uint32 each).
struct Record {
  uint32_t runs;
  uint32_t processor_id;
  uint32_t local_memory_ok;
  uint32_t worker_count;
};

std::atomic<uint64_t> g_kernel_thread{0};

uint64_t threadKey() { return static_cast<uint64_t>(pthread_self()); }

uint32_t linearWorkgroup(
    const strata_hal_executable_dispatch_state_v0_t* state,
    const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  return workgroup->workgroup_id_x +
         state->workgroup_count_x *
             (workgroup->workgroup_id_y +
              state->workgroup_count_y * workgroup->workgroup_id_z);
}

// Export 0: one Record per workgroup; checks that its local memory is its
// own while it runs.
int recordKernel(const strata_hal_executable_environment_v0_t* environment,
                 const strata_hal_executable_dispatch_state_v0_t* state,
                 const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  uint32_t index = linearWorkgroup(state, workgroup);
  if ((index + 1) * sizeof(Record) > state->binding_lengths[0]) {
    return 2;
  }
  Record* record = static_cast<Record*>(state->binding_ptrs[0]) + index;
  __atomic_fetch_add(&record->runs, 1, __ATOMIC_RELAXED);
  record->processor_id = workgroup->processor_id;
  record->worker_count = environment->worker_count;
  bool ok = workgroup->local_memory && workgroup->local_memory_size == 256;
  if (ok) {
    auto* scratch = static_cast<volatile uint32_t*>(workgroup->local_memory);
    for (uint32_t i = 0; i < 64; ++i) {
      scratch[i] = index * 64 + i;
    }
    for (uint32_t i = 0; i < 64; ++i) {
      ok = ok && scratch[i] == index * 64 + i;
    }
  }
  record->local_memory_ok = ok ? 1 : 0;
  return 0;
}

// Export 1: fails with code 7 at the workgroup whose linear index is
// constant 0.
int failAtKernel(const strata_hal_executable_environment_v0_t*,
                 const strata_hal_executable_dispatch_state_v0_t* state,
                 const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  return linearWorkgroup(state, workgroup) == state->constants[0] ? 7 : 0;
}

// Export 2: needs 1 MiB of local memory (more than workers preallocate).
int bigLocalKernel(const strata_hal_executable_environment_v0_t*,
                   const strata_hal_executable_dispatch_state_v0_t* state,
                   const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  if (!workgroup->local_memory || workgroup->local_memory_size != (1u << 20)) {
    return 3;
  }
  std::memset(workgroup->local_memory, 0x5A, workgroup->local_memory_size);
  auto* flag = static_cast<uint32_t*>(state->binding_ptrs[0]);
  __atomic_store_n(flag, 1u, __ATOMIC_RELAXED);
  return 0;
}

// Export 3: records the thread it runs on.
int threadKernel(const strata_hal_executable_environment_v0_t*,
                 const strata_hal_executable_dispatch_state_v0_t*,
                 const strata_hal_executable_workgroup_state_v0_t*) {
  g_kernel_thread.store(threadKey());
  return 0;
}

// Export 4: an index out of range at workgroup (1,0,0), as a version 0
// kernel says it: the code alone.
int outOfRangeKernel(
    const strata_hal_executable_environment_v0_t*,
    const strata_hal_executable_dispatch_state_v0_t*,
    const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  return workgroup->workgroup_id_x == 1
             ? STRATA_HAL_EXECUTABLE_DISPATCH_INDEX_OUT_OF_RANGE
             : 0;
}

// Export 5: records the processor each workgroup ran on (uint32 per
// workgroup), taking constant 0 milliseconds on processor 1 and constant
// 1 on the others: a worker on a slower CPU.
int slowProcessorKernel(
    const strata_hal_executable_environment_v0_t*,
    const strata_hal_executable_dispatch_state_v0_t* state,
    const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  uint32_t index = linearWorkgroup(state, workgroup);
  if ((index + 1) * sizeof(uint32_t) > state->binding_lengths[0]) {
    return 2;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(
      state->constants[workgroup->processor_id == 1 ? 0 : 1]));
  static_cast<uint32_t*>(state->binding_ptrs[0])[index] =
      workgroup->processor_id;
  return 0;
}

const strata_hal_executable_dispatch_v0_t kTestPtrs[] = {
    recordKernel, failAtKernel,     bigLocalKernel,
    threadKernel, outOfRangeKernel, slowProcessorKernel};
const char* const kTestNames[] = {"record", "fail_at",      "big_local",
                                  "thread", "out_of_range", "slow_processor"};
const strata_hal_executable_dispatch_attrs_v0_t kTestAttrs[] = {
    {1, 0, 256, 0, 0, 0, 0},      {0, 1, 0, 0, 0, 0, 0},
    {1, 0, 1u << 20, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0},        {1, 2, 0, 0, 0, 0, 0},
};
const strata_hal_executable_library_header_t kTestHeader = {
    STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_0,
    STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_BUILD, "device_test_kernels", 0};
const strata_hal_executable_library_v0_t kTestLibrary = {
    &kTestHeader,
    {0, 0, nullptr},
    {6, 0, kTestPtrs, kTestNames, nullptr, kTestAttrs},
};
const strata_hal_executable_library_header_t* const* testQuery(
    uint32_t, const strata_hal_executable_environment_v0_t*) {
  return &kTestLibrary.header;
}

// A version 1 library: its one export fails at workgroup (1,0,0) with an
// index out of range, and says which index and bound in the dispatch
// detail when push constant 0 is 1 (else it leaves the detail alone).
int detailKernel(const strata_hal_executable_environment_v0_t*,
                 const strata_hal_executable_dispatch_state_v0_t* state,
                 const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  const auto* v1 =
      reinterpret_cast<const strata_hal_executable_workgroup_state_v1_t*>(
          workgroup);
  if (!v1->detail || v1->detail->kind != 0) {
    return 5;  // a version 1 runtime passes a fresh detail
  }
  if (workgroup->workgroup_id_x != 1) {
    return 0;
  }
  if (state->constants[0] == 1) {
    v1->detail->kind = STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_INDEX;
    v1->detail->index = 17;
    v1->detail->bound = 10;
  }
  return STRATA_HAL_EXECUTABLE_DISPATCH_INDEX_OUT_OF_RANGE;
}
const strata_hal_executable_dispatch_v0_t kDetailPtrs[] = {detailKernel};
const char* const kDetailNames[] = {"gather"};
const strata_hal_executable_dispatch_attrs_v0_t kDetailAttrs[] = {
    {0, 1, 0, 0, 0, 0, 0}};
const strata_hal_executable_library_header_t kDetailHeader = {
    STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_1,
    STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_BUILD, "device_test_detail", 0};
const strata_hal_executable_library_v0_t kDetailLibrary = {
    &kDetailHeader,
    {0, 0, nullptr},
    {1, 0, kDetailPtrs, kDetailNames, nullptr, kDetailAttrs},
};
const strata_hal_executable_library_header_t* const* detailQuery(
    uint32_t max_version, const strata_hal_executable_environment_v0_t*) {
  return max_version >= STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_1
             ? &kDetailLibrary.header
             : nullptr;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

struct Executable {
  strata_hal_executable_t* ptr = nullptr;
  Executable() {
    REQUIRE(consume(strata_hal_executable_load_file(
                kSamplePath, strata_allocator_system(), &ptr)) == "OK");
  }
  explicit Executable(
      const char* static_name,
      strata_hal_executable_library_query_fn_t query = testQuery) {
    strata_status_t status =
        strata_hal_executable_register_static(static_name, query);
    if (strata_status_code(status) == STRATA_STATUS_ALREADY_EXISTS) {
      strata_status_free(status);
      status = nullptr;
    }
    REQUIRE(consume(status) == "OK");
    REQUIRE(consume(strata_hal_executable_load_static(
                static_name, strata_allocator_system(), &ptr)) == "OK");
  }
  ~Executable() { strata_hal_executable_release(ptr); }
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;
  operator strata_hal_executable_t*() const { return ptr; }
};

// Records out = a <op> b over n floats.
void recordElementwise(strata_hal_command_buffer_t* cb,
                       strata_hal_executable_t* executable, uint32_t ordinal,
                       strata_hal_buffer_t* a, strata_hal_buffer_t* b,
                       strata_hal_buffer_t* out, uint32_t n) {
  const uint32_t count[3] = {(n + 63) / 64, 1, 1};
  const strata_hal_buffer_binding_t bindings[] = {
      {a, 0, UINT64_MAX}, {b, 0, UINT64_MAX}, {out, 0, UINT64_MAX}};
  REQUIRE(consume(strata_hal_command_buffer_dispatch(
              cb, executable, ordinal, count, &n, 1, bindings, 3)) == "OK");
}

void fillFloats(float* data, uint32_t n, float scale, float offset) {
  for (uint32_t i = 0; i < n; ++i) {
    data[i] = scale * static_cast<float>(i % 17) + offset;
  }
}

}  // namespace

TEST_SUITE("hal.device") {

TEST_CASE("creates local-sync and local-task devices and rejects others") {
  strata_hal_device_options_t options = {"local-sync", 0};
  strata_hal_device_t* device = nullptr;
  REQUIRE(consume(strata_hal_device_create(&options, strata_allocator_system(),
                                           &device)) == "OK");
  CHECK(std::string(strata_hal_device_name(device)) == "local-sync");
  CHECK(strata_hal_device_worker_count(device) == 1);
  CHECK(std::string(strata_hal_device_as_ref(device)->type->name) ==
        "hal.device");
  CHECK(strata_hal_device_from_ref(strata_hal_device_as_ref(device)) ==
        device);
  bool same_allocator =
      strata_hal_device_allocator(device).alloc ==
      strata_allocator_system().alloc;
  CHECK(same_allocator);
  strata_hal_device_release(device);

  options = {"local-task", 3};
  REQUIRE(consume(strata_hal_device_create(&options, strata_allocator_system(),
                                           &device)) == "OK");
  CHECK(std::string(strata_hal_device_name(device)) == "local-task");
  CHECK(strata_hal_device_worker_count(device) == 3);
  strata_hal_device_release(device);

  options = {"local-task", 0};
  REQUIRE(consume(strata_hal_device_create(&options, strata_allocator_system(),
                                           &device)) == "OK");
  uint32_t cores = std::thread::hardware_concurrency();
  CHECK(strata_hal_device_worker_count(device) == (cores ? cores : 1));
  strata_hal_device_release(device);

  options = {"vulkan", 0};
  CHECK(consume(strata_hal_device_create(&options, strata_allocator_system(),
                                         &device)) ==
        "INVALID_ARGUMENT: unknown device 'vulkan'; known devices: "
        "local-sync, local-task");
  CHECK(device == nullptr);
}

TEST_CASE("add and mul match a reference at sizes 1, 7, 33 and 100") {
  Executable executable;
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    for (uint32_t n : {1u, 7u, 33u, 100u}) {
      CAPTURE(n);
      for (uint32_t ordinal : {kAdd, kMul}) {
        // Buffers of exactly n floats, so a stray access trips ASan.
        Buffer a(n * 4), b(n * 4), out(n * 4);
        fillFloats(a.data<float>(), n, 1.5f, -3.0f);
        fillFloats(b.data<float>(), n, -0.25f, 2.0f);
        CommandBuffer cb(STRATA_HAL_COMMAND_BUFFER_MODE_ONE_SHOT);
        recordElementwise(cb, executable, ordinal, a, b, out, n);
        cb.finalize();
        Fence done;
        REQUIRE(execute(device, nullptr, done, cb) == "OK");
        REQUIRE(done.wait() == "OK");
        int mismatches = 0;
        for (uint32_t i = 0; i < n; ++i) {
          float x = a.data<float>()[i];
          float y = b.data<float>()[i];
          float expected = ordinal == kAdd ? x + y : x * y;
          mismatches += out.data<float>()[i] != expected;
        }
        CHECK(mismatches == 0);
      }
    }
  }
}

TEST_CASE("a 64x48x40 matmul matches a reference") {
  constexpr uint32_t M = 64, N = 48, K = 40;
  Executable executable;
  Buffer lhs(M * K * 4), rhs(K * N * 4);
  float* a = lhs.data<float>();
  float* b = rhs.data<float>();
  for (uint32_t i = 0; i < M * K; ++i) {
    a[i] = static_cast<float>((i * 7) % 13) * 0.5f - 3.0f;
  }
  for (uint32_t i = 0; i < K * N; ++i) {
    b[i] = static_cast<float>((i * 5) % 11) * 0.25f - 1.0f;
  }
  std::vector<double> expected(M * N);
  for (uint32_t m = 0; m < M; ++m) {
    for (uint32_t n = 0; n < N; ++n) {
      double sum = 0;
      for (uint32_t k = 0; k < K; ++k) {
        sum += static_cast<double>(a[m * K + k]) * b[k * N + n];
      }
      expected[m * N + n] = sum;
    }
  }
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Buffer out(M * N * 4);
    CommandBuffer cb;
    const uint32_t count[3] = {M / 8, N / 8, 1};
    const uint32_t constants[3] = {M, N, K};
    const strata_hal_buffer_binding_t bindings[] = {
        {lhs, 0, UINT64_MAX}, {rhs, 0, UINT64_MAX}, {out, 0, UINT64_MAX}};
    REQUIRE(consume(strata_hal_command_buffer_dispatch(
                cb, executable, kMatmul, count, constants, 3, bindings, 3)) ==
            "OK");
    cb.finalize();
    Fence done;
    REQUIRE(execute(device, nullptr, done, cb) == "OK");
    REQUIRE(done.wait() == "OK");
    int mismatches = 0;
    for (uint32_t i = 0; i < M * N; ++i) {
      mismatches +=
          std::fabs(out.data<float>()[i] - expected[i]) > 1e-3 ? 1 : 0;
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("every workgroup of a 3-D grid runs once on a valid processor") {
  Executable executable("device_test_kernels");
  constexpr uint32_t X = 13, Y = 7, Z = 3;
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Buffer records(X * Y * Z * sizeof(Record));
    CommandBuffer cb;
    const uint32_t count[3] = {X, Y, Z};
    const strata_hal_buffer_binding_t binding = {records, 0, UINT64_MAX};
    REQUIRE(consume(strata_hal_command_buffer_dispatch(
                cb, executable, 0, count, nullptr, 0, &binding, 1)) == "OK");
    cb.finalize();
    Fence done;
    REQUIRE(execute(device, nullptr, done, cb) == "OK");
    REQUIRE(done.wait() == "OK");
    uint32_t workers = strata_hal_device_worker_count(device);
    int bad = 0;
    for (uint32_t i = 0; i < X * Y * Z; ++i) {
      const Record& record = records.data<Record>()[i];
      bad += record.runs != 1 || record.processor_id >= workers ||
             record.local_memory_ok != 1 || record.worker_count != workers;
    }
    CHECK(bad == 0);
  }
}

// The workgroups are cut into one range per worker (up to kPoolJobRanges,
// task_pool.h), each worker claiming from its own range first and then
// from the others: grids smaller than the workers, prime sizes, and more
// workers than ranges (several per range) still run every workgroup once.
TEST_CASE("every workgroup runs once whatever the grid and worker count") {
  Executable executable("device_test_kernels");
  for (uint32_t workers : {2u, 3u, 5u, 9u, 11u}) {
    CAPTURE(workers);
    Config config = {"local-task", workers, "local-task"};
    Device device(config);
    for (const auto& grid :
         {std::array<uint32_t, 3>{1, 1, 1}, std::array<uint32_t, 3>{2, 1, 1},
          std::array<uint32_t, 3>{7, 1, 1}, std::array<uint32_t, 3>{31, 3, 1},
          std::array<uint32_t, 3>{97, 1, 5}}) {
      uint32_t total = grid[0] * grid[1] * grid[2];
      CAPTURE(total);
      Buffer records(total * sizeof(Record));
      CommandBuffer cb;
      const strata_hal_buffer_binding_t binding = {records, 0, UINT64_MAX};
      // Twice, ordered by a barrier (both write each record).
      for (int repeat = 0; repeat < 2; ++repeat) {
        if (repeat) {
          REQUIRE(consume(strata_hal_command_buffer_barrier(cb)) == "OK");
        }
        REQUIRE(consume(strata_hal_command_buffer_dispatch(
                    cb, executable, 0, grid.data(), nullptr, 0, &binding, 1)) ==
                "OK");
      }
      cb.finalize();
      Fence done;
      REQUIRE(execute(device, nullptr, done, cb) == "OK");
      REQUIRE(done.wait() == "OK");
      int bad = 0;
      for (uint32_t i = 0; i < total; ++i) {
        const Record& record = records.data<Record>()[i];
        bad += record.runs != 2 || record.processor_id >= workers;
      }
      CHECK(bad == 0);
    }
  }
}

// Claims shrink as a range empties (guided), so that a faster worker finds
// single workgroups left to take from a slower one's range; a thief leaves
// the last one to an owner at work.
TEST_CASE("claimChunk: guided claims, capped, contiguous, last left to owner") {
  using strata::hal::claimChunk;
  std::atomic<uint64_t> next{0};
  uint64_t begin = 0, end = 0;
  std::vector<uint64_t> sizes;
  uint64_t expected_begin = 0;
  while (claimChunk(next, 32, 8, 2, false, &begin, &end)) {
    CHECK(begin == expected_begin);
    sizes.push_back(end - begin);
    expected_begin = end;
  }
  CHECK(expected_begin == 32);
  CHECK(next.load() == 32);
  // A quarter of what is left (2 ranges), then single workgroups.
  CHECK(sizes == std::vector<uint64_t>{8, 6, 4, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1});
  // Capped at max_chunk; at least one.
  next = 0;
  REQUIRE(claimChunk(next, 1000, 64, 1, false, &begin, &end));
  CHECK(end - begin == 64);
  next = 5;
  REQUIRE(claimChunk(next, 6, 64, 8, false, &begin, &end));
  CHECK((begin == 5 && end == 6));
  // The last workgroup is left to the owner, not the ones before it.
  next = 30;
  REQUIRE(claimChunk(next, 32, 8, 2, true, &begin, &end));
  CHECK((begin == 30 && end == 31));
  CHECK_FALSE(claimChunk(next, 32, 8, 2, true, &begin, &end));
  CHECK(next.load() == 31);
  REQUIRE(claimChunk(next, 32, 8, 2, false, &begin, &end));
  CHECK((begin == 31 && end == 32));
  CHECK_FALSE(claimChunk(next, 32, 8, 2, false, &begin, &end));
  // Claimed from two threads at once, every workgroup exactly once.
  constexpr uint64_t kTotal = 100000;
  std::vector<std::atomic<uint8_t>> runs(kTotal);
  next = 0;
  auto claimer = [&](bool leave_last) {
    uint64_t b = 0, e = 0;
    while (claimChunk(next, kTotal, 64, 2, leave_last, &b, &e)) {
      for (uint64_t i = b; i < e; ++i) {
        runs[i].fetch_add(1, std::memory_order_relaxed);
      }
    }
  };
  std::thread thief(claimer, true);
  claimer(false);
  thief.join();
  int bad = 0;
  for (const auto& count : runs) {
    bad += count.load() != 1;
  }
  CHECK(bad == 0);
}

// A range of a few workgroups is not left to its owner at work: a worker
// on a slower CPU (processor 1, 100 ms a workgroup against 5) keeps one
// workgroup of its range of two, the other taking the rest (task_pool.cpp,
// kLeaveLastMinRange). Left its last one, it would run both, and the
// dispatch would take 200 ms rather than 100.
TEST_CASE("a slow worker's small range goes to the faster worker") {
  Executable executable("device_test_kernels");
  Config config = {"local-task", 2, "local-task"};
  Device device(config);
  constexpr uint32_t kTotal = 4;
  Buffer processors(kTotal * sizeof(uint32_t));
  CommandBuffer cb;
  const uint32_t count[3] = {kTotal, 1, 1};
  const uint32_t milliseconds[2] = {100, 5};  // processor 1, the others
  const strata_hal_buffer_binding_t binding = {processors, 0, UINT64_MAX};
  REQUIRE(consume(strata_hal_command_buffer_dispatch(
              cb, executable, 5, count, milliseconds, 2, &binding, 1)) == "OK");
  cb.finalize();
  Fence done;
  REQUIRE(execute(device, nullptr, done, cb) == "OK");
  REQUIRE(done.wait() == "OK");
  uint32_t on_slow = 0;
  for (uint32_t i = 0; i < kTotal; ++i) {
    uint32_t processor = processors.data<uint32_t>()[i];
    CHECK(processor < 2);
    on_slow += processor == 1;
  }
  CHECK(on_slow <= 1);
}

TEST_CASE("kernels needing more local memory than preallocated still run") {
  Executable executable("device_test_kernels");
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Buffer flag(4);
    CommandBuffer cb;
    const uint32_t count[3] = {4, 1, 1};
    const strata_hal_buffer_binding_t binding = {flag, 0, UINT64_MAX};
    REQUIRE(consume(strata_hal_command_buffer_dispatch(
                cb, executable, 2, count, nullptr, 0, &binding, 1)) == "OK");
    cb.finalize();
    Fence done;
    REQUIRE(execute(device, nullptr, done, cb) == "OK");
    CHECK(done.wait() == "OK");
    CHECK(flag.data<uint32_t>()[0] == 1);
  }
}

TEST_CASE("a chain of dependent submissions runs in fence order") {
  constexpr uint32_t n = 100;
  constexpr int kSteps = 50;
  Executable executable;
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Buffer a(n * 4), out(n * 4);
    fillFloats(a.data<float>(), n, 1.0f, 1.0f);
    // out = a + out, again and again.
    CommandBuffer cb;
    recordElementwise(cb, executable, kAdd, a, out, out, n);
    cb.finalize();
    std::vector<Fence> fences(kSteps + 1);
    for (int i = 0; i < kSteps; ++i) {
      REQUIRE(execute(device, fences[i], fences[i + 1], cb) == "OK");
    }
    // Nothing ran before the head of the chain was signalled.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    CHECK(fences[kSteps].state() == "pending");
    CHECK(out.data<float>()[0] == 0.0f);
    REQUIRE(consume(strata_hal_fence_signal(fences[0])) == "OK");
    REQUIRE(fences[kSteps].wait() == "OK");
    int mismatches = 0;
    for (uint32_t i = 0; i < n; ++i) {
      mismatches += out.data<float>()[i] != kSteps * a.data<float>()[i];
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("independent submissions from several threads all complete") {
  constexpr uint32_t n = 33;
  constexpr int kThreads = 4;
  constexpr int kSteps = 25;
  Executable executable;
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    std::vector<std::string> errors(kThreads);
    std::vector<float> results(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        // Each thread chains its own buffers; threads share the device.
        strata_hal_buffer_t* a = nullptr;
        strata_hal_buffer_t* out = nullptr;
        strata_hal_command_buffer_t* cb = nullptr;
        std::string error;
        error = consume(
            strata_hal_buffer_allocate(strata_allocator_system(), n * 4, &a));
        if (error == "OK") {
          error = consume(strata_hal_buffer_allocate(strata_allocator_system(),
                                                     n * 4, &out));
        }
        if (error == "OK") {
          uint8_t* bytes = nullptr;
          strata_status_free(strata_hal_buffer_map(a, 0, n * 4, &bytes));
          for (uint32_t i = 0; i < n; ++i) {
            reinterpret_cast<float*>(bytes)[i] = static_cast<float>(t + 1);
          }
          error = consume(strata_hal_command_buffer_create(
              STRATA_HAL_COMMAND_BUFFER_MODE_REUSABLE,
              strata_allocator_system(), &cb));
        }
        if (error == "OK") {
          const uint32_t count[3] = {1, 1, 1};
          const strata_hal_buffer_binding_t bindings[] = {
              {a, 0, UINT64_MAX}, {out, 0, UINT64_MAX}, {out, 0, UINT64_MAX}};
          error = consume(strata_hal_command_buffer_dispatch(
              cb, executable, kAdd, count, &n, 1, bindings, 3));
          strata_status_free(strata_hal_command_buffer_finalize(cb));
        }
        strata_hal_fence_t* previous = nullptr;
        for (int step = 0; step < kSteps && error == "OK"; ++step) {
          strata_hal_fence_t* next = nullptr;
          error = consume(
              strata_hal_fence_create_pending(strata_allocator_system(), &next));
          if (error == "OK") {
            error = consume(
                strata_hal_device_queue_execute(device, previous, next, &cb, 1));
          }
          strata_hal_fence_release(previous);
          previous = next;
        }
        if (error == "OK") {
          error = consume(strata_hal_fence_wait(
              previous, strata_hal_deadline_after_ns(kTimeoutNs)));
        }
        strata_hal_fence_release(previous);
        uint8_t* bytes = nullptr;
        strata_status_free(strata_hal_buffer_map(out, 0, n * 4, &bytes));
        results[t] = bytes ? reinterpret_cast<float*>(bytes)[n - 1] : -1.0f;
        errors[t] = error;
        strata_hal_command_buffer_release(cb);
        strata_hal_buffer_release(a);
        strata_hal_buffer_release(out);
      });
    }
    for (std::thread& thread : threads) {
      thread.join();
    }
    for (int t = 0; t < kThreads; ++t) {
      CHECK(errors[t] == "OK");
      CHECK(results[t] == static_cast<float>(kSteps * (t + 1)));
    }
  }
}

TEST_CASE("a failing kernel fails the signal fence and everyone downstream") {
  Executable executable;
  const std::string kMessage =
      "INTERNAL: dispatch 'fail_always' (export 3 of library "
      "'sample_kernels') failed with code 1 at workgroup (0,0,0)";
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Buffer untouched(64), out(64 * 4), a(64 * 4);
    // The failing dispatch, then (after a barrier) a fill that must never
    // run.
    CommandBuffer failing(STRATA_HAL_COMMAND_BUFFER_MODE_ONE_SHOT);
    const uint32_t one[3] = {1, 1, 1};
    REQUIRE(consume(strata_hal_command_buffer_dispatch(
                failing, executable, kFailAlways, one, nullptr, 0, nullptr,
                0)) == "OK");
    REQUIRE(consume(strata_hal_command_buffer_barrier(failing)) == "OK");
    REQUIRE(consume(strata_hal_command_buffer_fill(failing, untouched, 0, 64,
                                                   0xFF, 1)) == "OK");
    failing.finalize();
    CommandBuffer add;
    fillFloats(a.data<float>(), 64, 1.0f, 1.0f);
    recordElementwise(add, executable, kAdd, a, a, out, 64);
    add.finalize();

    Fence start, failed, after, barrier;
    REQUIRE(execute(device, start, failed, failing) == "OK");
    REQUIRE(execute(device, failed, after, add) == "OK");
    REQUIRE(consume(strata_hal_device_queue_barrier(device, after, barrier)) ==
            "OK");
    // Blocked waiters on both ends of the chain.
    std::string seen_failed, seen_barrier;
    std::thread waiter1([&] { seen_failed = failed.wait(); });
    std::thread waiter2([&] { seen_barrier = barrier.wait(); });
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(consume(strata_hal_fence_signal(start)) == "OK");
    waiter1.join();
    waiter2.join();
    CHECK(seen_failed == kMessage);
    CHECK(seen_barrier == kMessage);
    CHECK(after.wait() == kMessage);
    // A submission made after the failure sees it too, without running.
    Fence late;
    REQUIRE(execute(device, failed, late, add) == "OK");
    CHECK(late.wait() == kMessage);
    CHECK(untouched.data<uint8_t>()[0] == 0);
    CHECK(untouched.data<uint8_t>()[63] == 0);
    CHECK(out.data<float>()[0] == 0.0f);
  }
}

TEST_CASE("a failure names the failing workgroup of a large grid") {
  Executable executable("device_test_kernels");
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    CommandBuffer cb;
    const uint32_t count[3] = {5, 3, 2};
    const uint32_t fail_at = 2 + 5 * (1 + 3 * 1);  // workgroup (2,1,1)
    REQUIRE(consume(strata_hal_command_buffer_dispatch(
                cb, executable, 1, count, &fail_at, 1, nullptr, 0)) == "OK");
    cb.finalize();
    Fence done;
    REQUIRE(execute(device, nullptr, done, cb) == "OK");
    CHECK(done.wait() ==
          "INTERNAL: dispatch 'fail_at' (export 1 of library "
          "'device_test_kernels') failed with code 7 at workgroup (2,1,1)");
  }
}

TEST_CASE("an index out of range names the index and its bound") {
  Executable detail("device_test_detail", detailQuery);
  Executable old("device_test_kernels");
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    const uint32_t count[3] = {3, 1, 1};
    auto run = [&](strata_hal_executable_t* executable, uint32_t ordinal,
                   const uint32_t* constant) {
      CommandBuffer cb;
      REQUIRE(consume(strata_hal_command_buffer_dispatch(
                  cb, executable, ordinal, count, constant, constant ? 1 : 0,
                  nullptr, 0)) == "OK");
      cb.finalize();
      Fence done;
      REQUIRE(execute(device, nullptr, done, cb) == "OK");
      return done.wait();
    };
    // A version 1 kernel that fills in the detail.
    const uint32_t with_detail = 1;
    CHECK(run(detail, 0, &with_detail) ==
          "OUT_OF_RANGE: dispatch 'gather' (export 0 of library "
          "'device_test_detail') failed with code 2 at workgroup (1,0,0): "
          "index 17 computed from tensor data is out of range [0, 10) of "
          "the dimension it indexes");
    // One that does not, and a version 0 kernel (which has no detail):
    // the message without the index.
    const std::string without =
        "failed with code 2 at workgroup (1,0,0): an index computed from "
        "tensor data is out of range of the dimension it indexes";
    const uint32_t no_detail = 0;
    CHECK(run(detail, 0, &no_detail) ==
          "OUT_OF_RANGE: dispatch 'gather' (export 0 of library "
          "'device_test_detail') " +
              without);
    CHECK(run(old, 4, nullptr) ==
          "OUT_OF_RANGE: dispatch 'out_of_range' (export 4 of library "
          "'device_test_kernels') " +
              without);
  }
}

// A portable-bytecode export with a dynamic shape: out[i] = a[i] over n
// f32 elements, n the i64 push constant (words 0, 1); both bindings must
// hold 4n bytes (schemas/kernel_bytecode.h's shape instruction).
std::vector<uint32_t> dynamicCopyProgram() {
  namespace k = strata::kernel;
  std::vector<uint32_t> w = {k::kMagic, k::kVersion, k::kTableDigest, 1, 4};
  uint32_t name = 0;
  std::memcpy(&name, "copy", 4);
  w.insert(w.end(), {name, 2, 2, 0, 0, 0, 0, 0, 0, 1});
  const uint32_t f32 = static_cast<uint32_t>(k::Type::F32);
  // shape: V0 = n, V1 = 4, V2 = 4n; bindings 0, 1 need V2; word 21 (the
  // generic's size) takes V0. Then the generic, from word 19.
  std::vector<uint32_t> code = {static_cast<uint32_t>(k::Inst::Shape),
                                3,
                                static_cast<uint32_t>(k::Value::Push),
                                0,
                                0,
                                static_cast<uint32_t>(k::Value::Const),
                                4,
                                0,
                                static_cast<uint32_t>(k::Value::Mul),
                                0,
                                1,
                                2,
                                0,
                                2,
                                1,
                                2,
                                1,
                                21,
                                0,
                                static_cast<uint32_t>(k::Inst::Generic),
                                1,
                                0,
                                0,
                                1,
                                2,
                                1,
                                0,
                                f32,
                                0,
                                0,
                                1,
                                0,
                                1,
                                f32,
                                0,
                                0,
                                1,
                                0,
                                1,
                                static_cast<uint32_t>(k::Op::Load) | (f32 << 8),
                                0,
                                0,
                                0,
                                0,
                                0};
  w.push_back(static_cast<uint32_t>(code.size()));
  w.insert(w.end(), code.begin(), code.end());
  return w;
}

TEST_CASE("a portable dispatch short of its run-time shape names the binding") {
  std::vector<uint32_t> words = dynamicCopyProgram();
  strata_hal_executable_t* executable = nullptr;
  REQUIRE(consume(strata_hal_executable_load_portable(
              reinterpret_cast<const uint8_t*>(words.data()), words.size() * 4,
              "dynamic_copy", strata_allocator_system(), &executable)) == "OK");
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Buffer a(400);
    Buffer out(396);
    auto run = [&](uint64_t n) {
      const uint32_t constants[2] = {static_cast<uint32_t>(n), 0};
      const uint32_t count[3] = {1, 1, 1};
      const strata_hal_buffer_binding_t bindings[] = {{a, 0, UINT64_MAX},
                                                      {out, 0, UINT64_MAX}};
      CommandBuffer cb;
      REQUIRE(consume(strata_hal_command_buffer_dispatch(
                  cb, executable, 0, count, constants, 2, bindings, 2)) ==
              "OK");
      cb.finalize();
      Fence done;
      REQUIRE(execute(device, nullptr, done, cb) == "OK");
      return done.wait();
    };
    fillFloats(a.data<float>(), 100, 1.0f, 0.0f);
    CHECK(run(99) == "OK");
    CHECK(out.data<float>()[98] == a.data<float>()[98]);
    CHECK(run(100) ==
          "INVALID_ARGUMENT: dispatch 'copy' (export 0 of library "
          "'dynamic_copy'): binding 1 holds 396 bytes, fewer than the 400 "
          "that the dispatch's shapes need");
    CHECK(run(uint64_t(1) << 31) ==
          "INVALID_ARGUMENT: dispatch 'copy' (export 0 of library "
          "'dynamic_copy'): binding 0 holds 400 bytes, fewer than the "
          "8589934592 that the dispatch's shapes need");
  }
  strata_hal_executable_release(executable);
}

TEST_CASE("a failed wait fence propagates without running anything") {
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Buffer target(16);
    CommandBuffer fill;
    REQUIRE(consume(strata_hal_command_buffer_fill(fill, target, 0, 16, 1,
                                                   1)) == "OK");
    fill.finalize();
    // Failed after the submission...
    Fence upstream, done;
    REQUIRE(execute(device, upstream, done, fill) == "OK");
    CHECK(done.state() == "pending");
    strata_hal_fence_fail(upstream, strata_make_status(STRATA_STATUS_ABORTED,
                                                       "upstream broke"));
    CHECK(done.wait() == "ABORTED: upstream broke");
    // ...and before it.
    Fence done2;
    REQUIRE(execute(device, upstream, done2, fill) == "OK");
    CHECK(done2.wait() == "ABORTED: upstream broke");
    Fence done3;
    REQUIRE(consume(strata_hal_device_queue_barrier(device, upstream,
                                                    done3)) == "OK");
    CHECK(done3.wait() == "ABORTED: upstream broke");
    CHECK(target.data<uint8_t>()[0] == 0);
  }
}

TEST_CASE("a wait fence of several semaphores waits for all of them") {
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Buffer target(4);
    CommandBuffer fill;
    REQUIRE(consume(strata_hal_command_buffer_fill(fill, target, 0, 4, 9,
                                                   1)) == "OK");
    fill.finalize();
    strata_hal_semaphore_t* semaphores[3] = {};
    strata_hal_fence_t* wait = nullptr;
    REQUIRE(consume(strata_hal_fence_create(3, strata_allocator_system(),
                                            &wait)) == "OK");
    for (strata_hal_semaphore_t*& semaphore : semaphores) {
      REQUIRE(consume(strata_hal_semaphore_create(
                  0, strata_allocator_system(), &semaphore)) == "OK");
      REQUIRE(consume(strata_hal_fence_insert(wait, semaphore, 2)) == "OK");
    }
    Fence done;
    REQUIRE(execute(device, wait, done, fill) == "OK");
    REQUIRE(consume(strata_hal_semaphore_signal(semaphores[0], 2)) == "OK");
    REQUIRE(consume(strata_hal_semaphore_signal(semaphores[1], 5)) == "OK");
    REQUIRE(consume(strata_hal_semaphore_signal(semaphores[2], 1)) == "OK");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    CHECK(done.state() == "pending");
    CHECK(target.data<uint8_t>()[0] == 0);
    REQUIRE(consume(strata_hal_semaphore_signal(semaphores[2], 2)) == "OK");
    CHECK(done.wait() == "OK");
    CHECK(target.data<uint8_t>()[3] == 9);

    // One failure resolves the wait at once, even with others pending.
    Fence done2;
    strata_hal_fence_t* wait2 = nullptr;
    REQUIRE(consume(strata_hal_fence_create(2, strata_allocator_system(),
                                            &wait2)) == "OK");
    REQUIRE(consume(strata_hal_fence_insert(wait2, semaphores[0], 10)) == "OK");
    REQUIRE(consume(strata_hal_fence_insert(wait2, semaphores[1], 10)) == "OK");
    REQUIRE(execute(device, wait2, done2, fill) == "OK");
    strata_hal_semaphore_fail(semaphores[1], strata_make_status(
                                                 STRATA_STATUS_DATA_LOSS,
                                                 "gone"));
    CHECK(done2.wait() == "DATA_LOSS: gone");
    // The timepoint still armed on semaphores[0] may fire later.
    REQUIRE(consume(strata_hal_semaphore_signal(semaphores[0], 10)) == "OK");
    strata_hal_fence_release(wait2);
    strata_hal_fence_release(wait);
    for (strata_hal_semaphore_t* semaphore : semaphores) {
      strata_hal_semaphore_release(semaphore);
    }
  }
}

TEST_CASE("fills and copies separated by barriers run in order") {
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Buffer a(256), b(256);
    CommandBuffer cb;
    REQUIRE(consume(strata_hal_command_buffer_fill(cb, a, 0, 256, 0x01020304,
                                                   4)) == "OK");
    REQUIRE(consume(strata_hal_command_buffer_barrier(cb)) == "OK");
    REQUIRE(consume(strata_hal_command_buffer_copy(cb, a, 0, b, 128, 64)) ==
            "OK");
    // Each of the next two touches what the copy reads or writes: barriers
    // keep them after it (commands between barriers may run in any order).
    REQUIRE(consume(strata_hal_command_buffer_barrier(cb)) == "OK");
    REQUIRE(consume(strata_hal_command_buffer_fill(cb, a, 2, 4, 0xBEEF, 2)) ==
            "OK");
    // Overlapping copy inside b: [128, 192) moves to [120, 184).
    REQUIRE(consume(strata_hal_command_buffer_copy(cb, b, 128, b, 120, 64)) ==
            "OK");
    cb.finalize();
    Fence done;
    REQUIRE(execute(device, nullptr, done, cb) == "OK");
    REQUIRE(done.wait() == "OK");
    uint32_t word;
    std::memcpy(&word, a.data<uint8_t>() + 8, 4);
    CHECK(word == 0x01020304u);
    uint16_t half;
    std::memcpy(&half, a.data<uint8_t>() + 4, 2);
    CHECK(half == 0xBEEF);
    std::memcpy(&word, b.data<uint8_t>() + 120, 4);
    CHECK(word == 0x01020304u);
    std::memcpy(&word, b.data<uint8_t>() + 180, 4);
    CHECK(word == 0x01020304u);
    CHECK(b.data<uint8_t>()[119] == 0);
    // [184, 192) kept the copied bytes; [192, 256) was never written.
    CHECK(b.data<uint8_t>()[192] == 0);
  }
}

TEST_CASE("one-shot command buffers run once and reusable ones repeatedly") {
  constexpr uint32_t n = 7;
  Executable executable;
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Buffer a(n * 4), out(n * 4);
    fillFloats(a.data<float>(), n, 1.0f, 1.0f);
    CommandBuffer once(STRATA_HAL_COMMAND_BUFFER_MODE_ONE_SHOT);
    recordElementwise(once, executable, kAdd, a, out, out, n);
    once.finalize();
    Fence first, second;
    REQUIRE(execute(device, nullptr, first, once) == "OK");
    REQUIRE(first.wait() == "OK");
    std::string text = execute(device, nullptr, second, once);
    CHECK(text.rfind("FAILED_PRECONDITION: a ONE_SHOT hal.command_buffer", 0) ==
          0);
    // The rejected submission's signal fence fails too: nobody hangs on it.
    CHECK(second.wait() == text);
    CHECK(out.data<float>()[n - 1] == a.data<float>()[n - 1]);

    CommandBuffer reusable;
    recordElementwise(reusable, executable, kAdd, a, out, out, n);
    reusable.finalize();
    for (int i = 0; i < 3; ++i) {
      Fence done;
      REQUIRE(execute(device, nullptr, done, reusable) == "OK");
      REQUIRE(done.wait() == "OK");
    }
    CHECK(out.data<float>()[n - 1] == 4 * a.data<float>()[n - 1]);
    // Several command buffers in one submission run in order.
    strata_hal_command_buffer_t* both[] = {reusable, reusable};
    Fence done;
    REQUIRE(consume(strata_hal_device_queue_execute(device, nullptr, done, both,
                                                    2)) == "OK");
    REQUIRE(done.wait() == "OK");
    CHECK(out.data<float>()[0] == 6 * a.data<float>()[0]);
  }
}

// ref's reference count, polled until only the caller's is left or 5 s
// pass.
int settledRefCount(strata_vm_ref_object_t* ref) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (strata_vm_ref_count(ref) != 1 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return static_cast<int>(strata_vm_ref_count(ref));
}

TEST_CASE("a finished submission lets go of its command buffers") {
  // local-task retires them (and the submission's fences) to the next
  // submission or an idle worker (device.cpp, finishSubmission); either way
  // nothing outlives the work.
  constexpr uint32_t n = 33;
  Executable executable;
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Buffer a(n * 4), out(n * 4);
    fillFloats(a.data<float>(), n, 1.0f, 1.0f);
    Fence start, done;
    {
      CommandBuffer cb(STRATA_HAL_COMMAND_BUFFER_MODE_ONE_SHOT);
      recordElementwise(cb, executable, kAdd, a, a, out, n);
      cb.finalize();
      REQUIRE(execute(device, start, done, cb) == "OK");
      REQUIRE(consume(strata_hal_fence_signal(start)) == "OK");
      REQUIRE(done.wait() == "OK");
    }
    // No further work on the device: the command buffer (the only other
    // holder of out) and both fences are released anyway.
    CHECK(settledRefCount(strata_hal_buffer_as_ref(out)) == 1);
    CHECK(settledRefCount(strata_hal_fence_as_ref(start)) == 1);
    CHECK(settledRefCount(strata_hal_fence_as_ref(done)) == 1);
    CHECK(out.data<float>()[n - 1] == 2 * a.data<float>()[n - 1]);
    // Many at once, then idle: all released.
    std::vector<Fence> fences(20);
    for (size_t i = 0; i < fences.size(); ++i) {
      CommandBuffer cb(STRATA_HAL_COMMAND_BUFFER_MODE_ONE_SHOT);
      recordElementwise(cb, executable, kAdd, a, a, out, n);
      cb.finalize();
      REQUIRE(execute(device, i ? fences[i - 1].ptr : nullptr, fences[i],
                      cb) == "OK");
    }
    REQUIRE(fences.back().wait() == "OK");
    CHECK(settledRefCount(strata_hal_buffer_as_ref(out)) == 1);
  }
}

TEST_CASE("queue alloca, dealloca and barrier follow their fences") {
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Fence start, allocated;
    strata_hal_buffer_t* buffer = nullptr;
    REQUIRE(consume(strata_hal_device_queue_alloca(device, start, allocated,
                                                   100, &buffer)) == "OK");
    REQUIRE(buffer != nullptr);
    CHECK(strata_hal_buffer_length(buffer) == 100);
    CHECK(allocated.state() == "pending");
    Fence barrier;
    REQUIRE(consume(strata_hal_device_queue_barrier(device, allocated,
                                                    barrier)) == "OK");
    Fence freed;
    REQUIRE(consume(strata_hal_device_queue_dealloca(device, barrier, freed,
                                                     buffer)) == "OK");
    // The queue holds the buffer until its dealloca's wait is reached.
    CHECK(strata_vm_ref_count(strata_hal_buffer_as_ref(buffer)) == 2);
    CHECK(barrier.state() == "pending");
    REQUIRE(consume(strata_hal_fence_signal(start)) == "OK");
    CHECK(allocated.wait() == "OK");
    CHECK(barrier.wait() == "OK");
    CHECK(freed.wait() == "OK");
    CHECK(strata_vm_ref_count(strata_hal_buffer_as_ref(buffer)) == 1);
    strata_hal_buffer_release(buffer);
    // No fences at all: done at once.
    REQUIRE(consume(strata_hal_device_queue_barrier(device, nullptr,
                                                    nullptr)) == "OK");
    CHECK(consume(strata_hal_device_queue_dealloca(device, nullptr, nullptr,
                                                   nullptr))
              .rfind("INVALID_ARGUMENT", 0) == 0);
  }
}

TEST_CASE("local-task never runs kernels on the thread that signals") {
  Executable executable("device_test_kernels");
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    CommandBuffer cb;
    const uint32_t one[3] = {1, 1, 1};
    REQUIRE(consume(strata_hal_command_buffer_dispatch(
                cb, executable, 3, one, nullptr, 0, nullptr, 0)) == "OK");
    cb.finalize();
    Fence start, done;
    REQUIRE(execute(device, start, done, cb) == "OK");
    g_kernel_thread.store(0);
    REQUIRE(consume(strata_hal_fence_signal(start)) == "OK");
    REQUIRE(done.wait() == "OK");
    bool on_signaller = g_kernel_thread.load() == threadKey();
    // local-sync runs on the resolving thread by design.
    CHECK(on_signaller == (std::string(config.name) == "local-sync"));
  }
}

TEST_CASE("destroying a device fails the submissions still waiting") {
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Fence never, done;
    {
      Device device(config);
      REQUIRE(consume(strata_hal_device_queue_barrier(device, never, done)) ==
              "OK");
      CHECK(done.state() == "pending");
    }
    CHECK(done.wait() ==
          std::string("CANCELLED: device '") + config.name +
              "' was destroyed before the submission's wait fence was "
              "reached");
    // The cancelled timepoint is gone: signalling later is harmless.
    REQUIRE(consume(strata_hal_fence_signal(never)) == "OK");
  }
}

TEST_CASE("the last device reference may be dropped by a callback it runs") {
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    CountingAllocator counter;
    Fence start, done;
    {
      strata_hal_device_options_t options = {config.name, config.workers};
      strata_hal_device_t* device = nullptr;
      REQUIRE(consume(strata_hal_device_create(&options, counter.get(),
                                               &device)) == "OK");
      REQUIRE(consume(strata_hal_device_queue_barrier(device, start, done)) ==
              "OK");
      // The callback runs on the thread that signals done: a worker of the
      // device (local-task) or inside its local-sync run (local-sync).
      REQUIRE(consume(strata_hal_fence_on_resolved(
                  done, strata_allocator_system(),
                  [](void* user, strata_status_t status) {
                    strata_status_free(status);
                    strata_hal_device_release(
                        static_cast<strata_hal_device_t*>(user));
                  },
                  device)) == "OK");
    }
    REQUIRE(consume(strata_hal_fence_signal(start)) == "OK");
    CHECK(done.wait() == "OK");
    // The device is torn down off that thread; everything it holds is freed.
    int64_t deadline = strata_hal_deadline_after_ns(kTimeoutNs);
    while (counter.live.load() != 0 && strata_hal_now_ns() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CHECK(counter.live.load() == 0);
  }
}

TEST_CASE("submitting a prerecorded command buffer allocates nothing") {
  Executable executable;
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    CountingAllocator counter;
    {
      Device device(config, counter.get());
      constexpr uint32_t n = 256;
      constexpr uint32_t kWide = 12;
      Buffer a(n * 4), out(n * 4), wide_out(kWide * n * 4);
      // one: a dispatch; many: a chain of 50 dependent dispatches, each
      // after a barrier; wide: a batch of kWide independent dispatches,
      // more than a submission record holds inline.
      CommandBuffer one, many, wide;
      recordElementwise(one, executable, kAdd, a, a, out, n);
      for (int i = 0; i < 50; ++i) {
        REQUIRE(consume(strata_hal_command_buffer_barrier(many)) == "OK");
        recordElementwise(many, executable, kAdd, a, out, out, n);
      }
      for (uint32_t i = 0; i < kWide; ++i) {
        const uint32_t count[3] = {n / 64, 1, 1};
        const strata_hal_buffer_binding_t bindings[] = {
            {a, 0, UINT64_MAX}, {a, 0, UINT64_MAX}, {wide_out, i * n * 4, n * 4}};
        REQUIRE(consume(strata_hal_command_buffer_dispatch(
                    wide, executable, kAdd, count, &n, 1, bindings, 3)) ==
                "OK");
      }
      one.finalize();
      many.finalize();
      wide.finalize();
      // Warm up: a few submission records in flight at once (barriers, so
      // that nothing writes the buffers concurrently), then a dispatch.
      {
        Fence start;
        std::vector<Fence> done(4);
        for (Fence& fence : done) {
          REQUIRE(consume(strata_hal_device_queue_barrier(device, start,
                                                          fence)) == "OK");
        }
        REQUIRE(consume(strata_hal_fence_signal(start)) == "OK");
        for (Fence& fence : done) {
          REQUIRE(fence.wait() == "OK");
        }
        Fence done_one;
        REQUIRE(execute(device, nullptr, done_one, one) == "OK");
        REQUIRE(done_one.wait() == "OK");
        // Four records queued at once, one after the other on fences: each
        // grows its job storage for wide's batch, once. Enough grown
        // records that one is free whenever wide is submitted below.
        std::vector<Fence> wide_fences(5);
        for (size_t i = 0; i + 1 < wide_fences.size(); ++i) {
          REQUIRE(execute(device, wide_fences[i], wide_fences[i + 1], wide) ==
                  "OK");
        }
        REQUIRE(consume(strata_hal_fence_signal(wide_fences[0])) == "OK");
        REQUIRE(wide_fences.back().wait() == "OK");
      }
      // Let the last records return to the free list.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      int before = counter.allocs.load();
      for (int i = 0; i < 10; ++i) {
        Fence done_one, done_many, done_wide;
        REQUIRE(execute(device, nullptr, done_one, one) == "OK");
        REQUIRE(execute(device, done_one, done_many, many) == "OK");
        REQUIRE(done_many.wait() == "OK");
        REQUIRE(execute(device, nullptr, done_wide, wide) == "OK");
        REQUIRE(done_wide.wait() == "OK");
      }
      CHECK(counter.allocs.load() - before == 0);
      CHECK(out.data<float>()[n - 1] == (1 + 10 * 50) * 2 * a.data<float>()[n - 1]);
    }
    CHECK(counter.live.load() == 0);
  }
}

TEST_CASE("a lost device fails every later queue operation naming why, "
          "and its pending work") {
  for (const char* name : {"local-sync", "local-task"}) {
    CAPTURE(name);
    strata_hal_device_options_t options = {name, 2};
    strata_hal_device_t* device = nullptr;
    REQUIRE(consume(strata_hal_device_create(
                &options, strata_allocator_system(), &device)) == "OK");
    CHECK(strata_hal_device_lost_status(device) == nullptr);
    // A barrier that waits for a fence nobody signals yet.
    Fence gate;
    Fence before;
    REQUIRE(consume(strata_hal_device_queue_barrier(device, gate, before)) ==
            "OK");
    strata_hal_device_lose(device, "a test lost it");
    strata_hal_device_lose(device, "a second reason is ignored");
    std::string lost = std::string("UNAVAILABLE: device '") + name +
                       "' is lost: a test lost it";
    CHECK(consume(strata_hal_device_lost_status(device)) == lost);
    Fence after;
    CHECK(consume(strata_hal_device_queue_barrier(device, nullptr, after)) ==
          lost);
    CHECK(after.state() == lost);  // its signal fence fails too
    strata_hal_buffer_t* buffer = nullptr;
    CHECK(consume(strata_hal_device_queue_alloca(device, nullptr, nullptr, 64,
                                                 &buffer)) == lost);
    CHECK(buffer == nullptr);
    // Work queued before the loss still resolves (a barrier runs nothing).
    REQUIRE(consume(strata_hal_fence_signal(gate)) == "OK");
    CHECK(before.wait() == "OK");
    strata_hal_device_release(device);
  }
}

}  // TEST_SUITE
