// device_batch_test.cpp - batches: the commands between two barriers run at
// the same time on local-task (and in order on local-sync); a barrier orders
// the batches and makes earlier writes visible; a failing dispatch fails
// the submission deterministically; wide batches give correct results.
//
// Every kernel that waits for another one gives up after a bounded time
// and fails its dispatch, so a broken device fails these tests instead of
// hanging them.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "device_testing.h"
#include "strata/hal/executable.h"

namespace {

using namespace strata::hal::device_testing;

using Clock = std::chrono::steady_clock;

constexpr uint32_t kRendezvous = 0;
constexpr uint32_t kStamp = 1;
constexpr uint32_t kFailSlow = 2;
constexpr uint32_t kFailAt = 3;
constexpr uint32_t kRecord = 4;
constexpr uint32_t kAxpy = 5;
constexpr char kLibrary[] = "device_batch_test_kernels";

uint32_t linearWorkgroup(
    const strata_hal_executable_dispatch_state_v0_t* state,
    const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  return workgroup->workgroup_id_x +
         state->workgroup_count_x *
             (workgroup->workgroup_id_y +
              state->workgroup_count_y * workgroup->workgroup_id_z);
}

//===----------------------------------------------------------------------===//
// Test kernels, registered statically.
//===----------------------------------------------------------------------===//

// Export 0 "rendezvous": sets flags[constant 0], then waits until
// flags[constant 1] is set, for at most constant 2 milliseconds. Two of
// them waiting for each other's flag both succeed only when they run at
// the same time; otherwise the first one fails with code 9.
int rendezvousKernel(const strata_hal_executable_environment_v0_t*,
                     const strata_hal_executable_dispatch_state_v0_t* state,
                     const strata_hal_executable_workgroup_state_v0_t*) {
  uint32_t mine = state->constants[0];
  uint32_t other = state->constants[1];
  size_t needed = ((mine > other ? mine : other) + 1) * sizeof(uint32_t);
  if (needed > state->binding_lengths[0]) {
    return 2;
  }
  auto* flags = static_cast<uint32_t*>(state->binding_ptrs[0]);
  __atomic_store_n(&flags[mine], 1u, __ATOMIC_RELEASE);
  Clock::time_point deadline =
      Clock::now() + std::chrono::milliseconds(state->constants[2]);
  while (!__atomic_load_n(&flags[other], __ATOMIC_ACQUIRE)) {
    if (Clock::now() > deadline) {
      return 9;
    }
    std::this_thread::yield();
  }
  return 0;
}

// Export 1 "stamp": one stage of a pipeline of dispatches over the words
// of binding 0: word 0 is the latest stage started (atomic), word 1 + w the
// stage workgroup w reached (plain loads and stores, so ThreadSanitizer
// checks that stages are ordered). Constants: the stage (from 1), how many
// milliseconds workgroup 0 holds the stage open, and whether to use the
// log words. While holding, it watches word 0: a later stage starting
// before this one ended fails the dispatch with code 100 + stage. With the
// log, workgroup w moves its word from stage - 1 to stage, or fails with
// code 200 + stage when the previous stage's write is not there.
int stampKernel(const strata_hal_executable_environment_v0_t*,
                const strata_hal_executable_dispatch_state_v0_t* state,
                const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  uint32_t stage = state->constants[0];
  uint32_t hold_ms = state->constants[1];
  bool use_log = state->constants[2] != 0;
  uint32_t index = linearWorkgroup(state, workgroup);
  if ((index + 2) * sizeof(uint32_t) > state->binding_lengths[0]) {
    return 2;
  }
  auto* words = static_cast<uint32_t*>(state->binding_ptrs[0]);
  uint32_t started = __atomic_load_n(&words[0], __ATOMIC_RELAXED);
  while (started < stage &&
         !__atomic_compare_exchange_n(&words[0], &started, stage, true,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  if (index == 0 && hold_ms) {
    Clock::time_point deadline =
        Clock::now() + std::chrono::milliseconds(hold_ms);
    while (Clock::now() < deadline) {
      if (__atomic_load_n(&words[0], __ATOMIC_RELAXED) > stage) {
        return static_cast<int>(100 + stage);
      }
      std::this_thread::yield();
    }
  }
  if (use_log) {
    uint32_t* log = &words[1 + index];
    if (*log != stage - 1) {
      return static_cast<int>(200 + stage);
    }
    *log = stage;
  }
  return 0;
}

// Export 2 "fail_slow": the workgroup whose linear index is constant 0
// sleeps constant 1 milliseconds, then fails with code 8.
int failSlowKernel(const strata_hal_executable_environment_v0_t*,
                   const strata_hal_executable_dispatch_state_v0_t* state,
                   const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  if (linearWorkgroup(state, workgroup) != state->constants[0]) {
    return 0;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(state->constants[1]));
  return 8;
}

// Export 3 "fail_at": fails with code 7 at the workgroup whose linear index
// is constant 0.
int failAtKernel(const strata_hal_executable_environment_v0_t*,
                 const strata_hal_executable_dispatch_state_v0_t* state,
                 const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  return linearWorkgroup(state, workgroup) == state->constants[0] ? 7 : 0;
}

// Export 4 "record": counts the runs of each workgroup in binding 0 (one
// uint32 each).
int recordKernel(const strata_hal_executable_environment_v0_t*,
                 const strata_hal_executable_dispatch_state_v0_t* state,
                 const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  uint32_t index = linearWorkgroup(state, workgroup);
  if ((index + 1) * sizeof(uint32_t) > state->binding_lengths[0]) {
    return 2;
  }
  __atomic_fetch_add(static_cast<uint32_t*>(state->binding_ptrs[0]) + index,
                     1u, __ATOMIC_RELAXED);
  return 0;
}

// Export 5 "axpy": out[i] = k * x[i] + y[i] over constant 0 = n floats, k
// the float whose bits are constant 1. Bindings x, y, out; workgroup x
// covers [64x, min(64x + 64, n)).
int axpyKernel(const strata_hal_executable_environment_v0_t*,
               const strata_hal_executable_dispatch_state_v0_t* state,
               const strata_hal_executable_workgroup_state_v0_t* workgroup) {
  uint32_t n = state->constants[0];
  float k;
  std::memcpy(&k, &state->constants[1], sizeof(k));
  for (uint32_t b = 0; b < 3; ++b) {
    if (state->binding_lengths[b] < n * sizeof(float)) {
      return 2;
    }
  }
  const auto* x = static_cast<const float*>(state->binding_ptrs[0]);
  const auto* y = static_cast<const float*>(state->binding_ptrs[1]);
  auto* out = static_cast<float*>(state->binding_ptrs[2]);
  uint32_t begin = workgroup->workgroup_id_x * 64;
  uint32_t end = begin + 64 < n ? begin + 64 : n;
  for (uint32_t i = begin; i < end; ++i) {
    out[i] = k * x[i] + y[i];
  }
  return 0;
}

const strata_hal_executable_dispatch_v0_t kPtrs[] = {
    rendezvousKernel, stampKernel,  failSlowKernel,
    failAtKernel,     recordKernel, axpyKernel};
const char* const kNames[] = {"rendezvous", "stamp",  "fail_slow",
                              "fail_at",    "record", "axpy"};
const strata_hal_executable_dispatch_attrs_v0_t kAttrs[] = {
    {1, 3, 0, 0, 0, 0, 0},  // rendezvous
    {1, 3, 0, 0, 0, 0, 0},  // stamp
    {0, 2, 0, 0, 0, 0, 0},  // fail_slow
    {0, 1, 0, 0, 0, 0, 0},  // fail_at
    {1, 0, 0, 0, 0, 0, 0},  // record
    {3, 2, 0, 0, 0, 0, 0},  // axpy
};
const strata_hal_executable_library_header_t kHeader = {
    STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_0,
    STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_BUILD, kLibrary, 0};
const strata_hal_executable_library_v0_t kLibraryV0 = {
    &kHeader,
    {0, 0, nullptr},
    {6, 0, kPtrs, kNames, nullptr, kAttrs},
};
const strata_hal_executable_library_header_t* const* query(
    uint32_t, const strata_hal_executable_environment_v0_t*) {
  return &kLibraryV0.header;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

struct Executable {
  strata_hal_executable_t* ptr = nullptr;
  Executable() {
    strata_status_t status =
        strata_hal_executable_register_static(kLibrary, query);
    if (strata_status_code(status) == STRATA_STATUS_ALREADY_EXISTS) {
      strata_status_free(status);
      status = nullptr;
    }
    REQUIRE(consume(status) == "OK");
    REQUIRE(consume(strata_hal_executable_load_static(
                kLibrary, strata_allocator_system(), &ptr)) == "OK");
  }
  ~Executable() { strata_hal_executable_release(ptr); }
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;
  operator strata_hal_executable_t*() const { return ptr; }
};

void dispatch(strata_hal_command_buffer_t* cb, strata_hal_executable_t* e,
              uint32_t ordinal, uint32_t x, uint32_t y,
              std::vector<uint32_t> constants,
              std::vector<strata_hal_buffer_binding_t> bindings) {
  const uint32_t count[3] = {x, y, 1};
  REQUIRE(consume(strata_hal_command_buffer_dispatch(
              cb, e, ordinal, count, constants.data(), constants.size(),
              bindings.data(), bindings.size())) == "OK");
}

void barrier(strata_hal_command_buffer_t* cb) {
  REQUIRE(consume(strata_hal_command_buffer_barrier(cb)) == "OK");
}

strata_hal_buffer_binding_t whole(strata_hal_buffer_t* buffer) {
  return {buffer, 0, UINT64_MAX};
}

// Records rendezvous(mine, other) over a flags buffer.
void rendezvous(strata_hal_command_buffer_t* cb, strata_hal_executable_t* e,
                strata_hal_buffer_t* flags, uint32_t mine, uint32_t other,
                uint32_t timeout_ms) {
  dispatch(cb, e, kRendezvous, 1, 1, {mine, other, timeout_ms},
           {whole(flags)});
}

std::string failure(const char* name, uint32_t ordinal, int code,
                    const char* workgroup) {
  return std::string("INTERNAL: dispatch '") + name + "' (export " +
         std::to_string(ordinal) + " of library '" + kLibrary +
         "') failed with code " + std::to_string(code) + " at workgroup " +
         workgroup;
}

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

const Config kTwoWorkers = {"local-task", 2, "local-task x2"};

}  // namespace

TEST_SUITE("hal.device.batch") {

TEST_CASE("independent dispatches of a batch run at the same time on "
          "local-task") {
  Executable executable;
  // Each waits up to 5 s for the other's flag: both succeed only if the
  // two overlap, and a device that serializes them fails instead of hanging.
  {
    Device device(kTwoWorkers);
    Buffer flags(8);
    CommandBuffer cb;
    rendezvous(cb, executable, flags, 0, 1, 5000);
    rendezvous(cb, executable, flags, 1, 0, 5000);
    cb.finalize();
    Fence done;
    REQUIRE(execute(device, nullptr, done, cb) == "OK");
    CHECK(done.wait() == "OK");
    CHECK(flags.data<uint32_t>()[0] == 1);
    CHECK(flags.data<uint32_t>()[1] == 1);
  }
  // The controls: where the two cannot overlap, the first one's wait times
  // out (200 ms) and fails the submission.
  const std::string timed_out =
      failure("rendezvous", kRendezvous, 9, "(0,0,0)");
  // One at a time: local-sync, and local-task with a single worker.
  for (const Config& config : {kConfigs[0], kConfigs[1]}) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Buffer flags(8);
    CommandBuffer cb;
    rendezvous(cb, executable, flags, 0, 1, 200);
    rendezvous(cb, executable, flags, 1, 0, 200);
    cb.finalize();
    Fence done;
    REQUIRE(execute(device, nullptr, done, cb) == "OK");
    CHECK(done.wait() == timed_out);
  }
  // A barrier between them, with two workers.
  {
    Device device(kTwoWorkers);
    Buffer flags(8);
    CommandBuffer cb;
    rendezvous(cb, executable, flags, 0, 1, 200);
    barrier(cb);
    rendezvous(cb, executable, flags, 1, 0, 200);
    cb.finalize();
    Fence done;
    REQUIRE(execute(device, nullptr, done, cb) == "OK");
    CHECK(done.wait() == timed_out);
    // The dispatch after the barrier never ran.
    CHECK(flags.data<uint32_t>()[1] == 0);
  }
  // Two command buffers of one submission, with two workers.
  {
    Device device(kTwoWorkers);
    Buffer flags(8);
    CommandBuffer first, second;
    rendezvous(first, executable, flags, 0, 1, 200);
    rendezvous(second, executable, flags, 1, 0, 200);
    first.finalize();
    second.finalize();
    strata_hal_command_buffer_t* both[] = {first, second};
    Fence done;
    REQUIRE(consume(strata_hal_device_queue_execute(device, nullptr, done,
                                                    both, 2)) == "OK");
    CHECK(done.wait() == timed_out);
    CHECK(flags.data<uint32_t>()[1] == 0);
  }
}

TEST_CASE("a barrier orders dependent dispatches and shows them the earlier "
          "writes") {
  Executable executable;
  constexpr uint32_t kStages = 5;
  constexpr uint32_t kWorkgroups = 6;  // a 3x2 grid
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Buffer words((1 + kWorkgroups) * 4);
    // Each stage holds workgroup 0 open for 20 ms: a later stage that
    // started meanwhile fails the submission.
    CommandBuffer cb;
    for (uint32_t stage = 1; stage <= kStages; ++stage) {
      if (stage > 1) {
        barrier(cb);
      }
      dispatch(cb, executable, kStamp, 3, 2,
               {stage, stage < kStages ? 20u : 0u, 1}, {whole(words)});
    }
    cb.finalize();
    Fence done;
    REQUIRE(execute(device, nullptr, done, cb) == "OK");
    CHECK(done.wait() == "OK");
    CHECK(words.data<uint32_t>()[0] == kStages);
    int behind = 0;
    for (uint32_t w = 0; w < kWorkgroups; ++w) {
      behind += words.data<uint32_t>()[1 + w] != kStages;
    }
    CHECK(behind == 0);
  }
  // The control: without the barrier (and without the log, which would
  // then be a data race), the second stage starts while the first holds.
  Device device(kTwoWorkers);
  Buffer words(8);
  CommandBuffer cb;
  dispatch(cb, executable, kStamp, 1, 1, {1, 5000, 0}, {whole(words)});
  dispatch(cb, executable, kStamp, 1, 1, {2, 0, 0}, {whole(words)});
  cb.finalize();
  Fence done;
  REQUIRE(execute(device, nullptr, done, cb) == "OK");
  CHECK(done.wait() == failure("stamp", kStamp, 101, "(0,0,0)"));
}

TEST_CASE("a failing dispatch in a batch fails the submission with the "
          "earliest-recorded failure") {
  Executable executable;
  constexpr uint32_t kRuns = 8;
  for (const Config& config : kConfigs) {
    std::string label = config.label;
    CAPTURE(label);
    bool sync = std::string(config.name) == "local-sync";
    Device device(config);
    Buffer runs1(kRuns * 4), runs2(kRuns * 4), runs3(kRuns * 4);
    Buffer filled(64), untouched(64);
    CommandBuffer cb(STRATA_HAL_COMMAND_BUFFER_MODE_ONE_SHOT);
    // The batch: fail_slow fails after 30 ms, fail_at (recorded later) at
    // once; the first-recorded failure is the one reported.
    dispatch(cb, executable, kRecord, kRuns, 1, {}, {whole(runs1)});
    dispatch(cb, executable, kFailSlow, 3, 1, {1, 30}, {});
    dispatch(cb, executable, kFailAt, 4, 1, {2}, {});
    dispatch(cb, executable, kRecord, kRuns, 1, {}, {whole(runs2)});
    REQUIRE(consume(strata_hal_command_buffer_fill(cb, filled, 0, 64, 0xAB,
                                                   1)) == "OK");
    // After the barrier: never runs.
    barrier(cb);
    REQUIRE(consume(strata_hal_command_buffer_fill(cb, untouched, 0, 64, 0xFF,
                                                   1)) == "OK");
    dispatch(cb, executable, kRecord, kRuns, 1, {}, {whole(runs3)});
    cb.finalize();
    Fence done;
    REQUIRE(execute(device, nullptr, done, cb) == "OK");
    CHECK(done.wait() == failure("fail_slow", kFailSlow, 8, "(1,0,0)"));
    int wrong1 = 0, wrong2 = 0, wrong3 = 0;
    // local-sync stops at the failure; local-task lets the rest of the
    // batch finish (its dispatches are independent of the failed one).
    uint32_t expected2 = sync ? 0 : 1;
    for (uint32_t i = 0; i < kRuns; ++i) {
      wrong1 += runs1.data<uint32_t>()[i] != 1;
      wrong2 += runs2.data<uint32_t>()[i] != expected2;
      wrong3 += runs3.data<uint32_t>()[i] != 0;
    }
    CHECK(wrong1 == 0);
    CHECK(wrong2 == 0);
    CHECK(wrong3 == 0);
    CHECK(filled.data<uint8_t>()[63] == (sync ? 0 : 0xAB));
    CHECK(untouched.data<uint8_t>()[0] == 0);
    CHECK(untouched.data<uint8_t>()[63] == 0);
    // The device is still usable.
    CommandBuffer ok;
    dispatch(ok, executable, kRecord, kRuns, 1, {}, {whole(runs3)});
    ok.finalize();
    Fence done_ok;
    REQUIRE(execute(device, nullptr, done_ok, ok) == "OK");
    CHECK(done_ok.wait() == "OK");
    CHECK(runs3.data<uint32_t>()[kRuns - 1] == 1);
  }
}

TEST_CASE("a batch of 100 dispatches with fills and copies gives correct "
          "results") {
  Executable executable;
  constexpr uint32_t kDispatches = 100;
  constexpr uint32_t kStride = 256;  // floats per dispatch's slice
  constexpr uint32_t kTotal = kDispatches * kStride;
  constexpr uint32_t kHalf = kTotal / 2;
  auto size = [](uint32_t i) { return 1 + (i * 37) % 200; };  // 1..4 groups
  const Config configs[] = {kConfigs[0], kConfigs[1], kConfigs[2],
                            {"local-task", 4, "local-task x4"}};
  for (const Config& config : configs) {
    std::string label = config.label;
    CAPTURE(label);
    Device device(config);
    Buffer x(kTotal * 4), y(kTotal * 4), out1(kTotal * 4), out2(kTotal * 4),
        out3(kTotal * 4);
    for (uint32_t j = 0; j < kTotal; ++j) {
      x.data<float>()[j] = static_cast<float>(j % 101);
      y.data<float>()[j] = static_cast<float>(j % 7) - 3.0f;
    }
    auto slice = [&](strata_hal_buffer_t* buffer, uint32_t i) {
      return strata_hal_buffer_binding_t{buffer, uint64_t(i) * kStride * 4,
                                         uint64_t(size(i)) * 4};
    };
    // Batch 1: out1_i = k_i * x_i + y_i, and a fill of out3 (1.0f).
    // Batch 2: out2_i = 2 * out1_i + x_i, and a copy of out1's first half
    // into out3. All values are small integers, so exact.
    CommandBuffer cb;
    for (uint32_t i = 0; i < kDispatches; ++i) {
      float k = static_cast<float>(i % 5 + 1);
      dispatch(cb, executable, kAxpy, (size(i) + 63) / 64, 1,
               {size(i), floatBits(k)},
               {slice(x, i), slice(y, i), slice(out1, i)});
      if (i == kDispatches / 2) {
        REQUIRE(consume(strata_hal_command_buffer_fill(
                    cb, out3, 0, kTotal * 4, floatBits(1.0f), 4)) == "OK");
      }
    }
    barrier(cb);
    REQUIRE(consume(strata_hal_command_buffer_copy(cb, out1, 0, out3, 0,
                                                   kHalf * 4)) == "OK");
    for (uint32_t i = 0; i < kDispatches; ++i) {
      dispatch(cb, executable, kAxpy, (size(i) + 63) / 64, 1,
               {size(i), floatBits(2.0f)},
               {slice(out1, i), slice(x, i), slice(out2, i)});
    }
    cb.finalize();
    // Three rounds, each from zeroed outputs and checked: twice in a row
    // (the record's jobs are reused), then twice in one submission.
    for (int round = 0; round < 3; ++round) {
      CAPTURE(round);
      for (const Buffer* out : {&out1, &out2, &out3}) {
        std::memset(out->data<float>(), 0, kTotal * 4);
      }
      Fence done;
      if (round < 2) {
        REQUIRE(execute(device, nullptr, done, cb) == "OK");
      } else {
        strata_hal_command_buffer_t* both[] = {cb, cb};
        REQUIRE(consume(strata_hal_device_queue_execute(device, nullptr, done,
                                                        both, 2)) == "OK");
      }
      REQUIRE(done.wait() == "OK");
      int wrong = 0;
      for (uint32_t i = 0; i < kDispatches; ++i) {
        float k = static_cast<float>(i % 5 + 1);
        for (uint32_t j = i * kStride; j < (i + 1) * kStride; ++j) {
          bool in = j - i * kStride < size(i);
          float expected1 =
              in ? k * x.data<float>()[j] + y.data<float>()[j] : 0;
          float expected2 = in ? 2 * expected1 + x.data<float>()[j] : 0;
          float expected3 = j < kHalf ? expected1 : 1.0f;
          wrong += out1.data<float>()[j] != expected1;
          wrong += out2.data<float>()[j] != expected2;
          wrong += out3.data<float>()[j] != expected3;
        }
      }
      CHECK(wrong == 0);
    }
  }
}

}  // TEST_SUITE
