// hal_module_test.cpp - the hal VM module driven by bytecode: buffers
// stored and loaded, executables loaded from rodata, dispatches of the sample
// kernels submitted with fences on local-sync and local-task, failing
// kernels, timeouts, and invocations suspended in fence.await.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "hal_module_testing.h"

using namespace strata::hal::testing;

namespace {

// app.small(i32 ordinal) -> (i32 status, i32 out0, i32 out1, i32 out2):
// everything in bytecode. Allocates a, b and out of three f32 each, stores
// the inputs with buffer.store, dispatches export `ordinal` (add_f32 or
// mul_f32), submits, awaits and reads out back with buffer.load.
const float kSmallA[3] = {1.5f, 2.0f, -3.0f};
const float kSmallB[3] = {4.0f, 0.5f, 10.0f};
void buildSmall(App& app) {
  FunctionBuilder& f = app.function("small", "0i_iiii", 10);
  f.op(Opcode::ConstI32).i32(0).reg(prim(1));
  app.call(f, "devices.get", {prim(1)}, {ref(0)});
  app.call(f, "device.allocator", {ref(0)}, {ref(1)});
  f.op(Opcode::ConstI64).i64(12).reg(prim(2));
  for (uint16_t r = 2; r <= 4; ++r) {
    app.call(f, "allocator.allocate", {ref(1), prim(2)}, {ref(r)});
  }
  f.op(Opcode::ConstI32).i32(4).reg(prim(5));
  for (int i = 0; i < 3; ++i) {
    f.op(Opcode::ConstI64).i64(4 * i).reg(prim(4));
    f.op(Opcode::ConstF32).f32(kSmallA[i]).reg(prim(3));
    app.call(f, "buffer.store", {prim(3), ref(2), prim(4), prim(5)}, {});
    f.op(Opcode::ConstF32).f32(kSmallB[i]).reg(prim(3));
    app.call(f, "buffer.store", {prim(3), ref(3), prim(4), prim(5)}, {});
  }
  app.createExecutable(f, 0, 5, 6, 7);
  f.op(Opcode::ConstI32).i32(1).reg(prim(6));  // one-shot; also "1"
  f.op(Opcode::ConstI32).i32(0).reg(prim(7));
  app.call(f, "command_buffer.create", {ref(0), prim(6), prim(7)}, {ref(8)});
  f.op(Opcode::ConstI32).i32(3).reg(prim(8));
  f.op(Opcode::ConstI64).i64(0).reg(prim(10));
  f.op(Opcode::ConstI64).i64(-1).reg(prim(11));
  f.location("app.mlir", 20, 5);
  app.callv(f, "command_buffer.dispatch", {1, 3},
            {ref(8), ref(7), prim(0), prim(6), prim(6), prim(6), prim(8),
             ref(2), prim(10), prim(11), ref(3), prim(10), prim(11), ref(4),
             prim(10), prim(11)},
            {});
  app.submitAndAwait(f, 0, 8, 9, 10, 20, 13);
  for (uint16_t i = 0; i < 3; ++i) {
    f.op(Opcode::ConstI64).i64(4 * i).reg(prim(4));
    app.call(f, "buffer.load", {ref(4), prim(4), prim(5)}, {prim(14 + i)});
  }
  f.op(Opcode::Return).list({prim(13), prim(14), prim(15), prim(16)});
}

// app.binary(view a, view b, i32 ordinal) -> view: out = a (op) b for f32
// vectors of any length n; asserts b matches a's shape, dispatches
// ceil(n / 64) workgroups with n as the constant.
void buildBinary(App& app) {
  FunctionBuilder& f = app.function("binary", "0rri_r", 30);
  uint32_t message = app.builder().addRodata(bytesOf("input 1"));
  f.op(Opcode::ConstI32).i32(0).reg(prim(1));
  app.call(f, "buffer_view.dim", {ref(0), prim(1)}, {prim(2)});  // n (i64)
  f.op(Opcode::ConstRefRodata).u32(message).reg(ref(2));
  f.op(Opcode::ConstI32).i32(kF32).reg(prim(3));
  app.callv(f, "buffer_view.assert", {1},
            {ref(1), ref(2), prim(3), prim(1), prim(2)}, {});
  app.call(f, "devices.get", {prim(1)}, {ref(3)});
  app.call(f, "device.allocator", {ref(3)}, {ref(4)});
  f.op(Opcode::ConstI64).i64(4).reg(prim(4));
  f.op(Opcode::MulI64).reg(prim(2)).reg(prim(4)).reg(prim(5));  // bytes
  app.call(f, "allocator.allocate", {ref(4), prim(5)}, {ref(5)});
  app.call(f, "buffer_view.buffer", {ref(0)}, {ref(6)});
  app.call(f, "buffer_view.buffer", {ref(1)}, {ref(7)});
  app.createExecutable(f, 3, 8, 9, 10);
  f.op(Opcode::ConstI32).i32(1).reg(prim(6));
  app.call(f, "command_buffer.create", {ref(3), prim(6), prim(1)}, {ref(11)});
  f.op(Opcode::TruncI64I32).reg(prim(2)).reg(prim(7));  // n (i32)
  f.op(Opcode::ConstI32).i32(63).reg(prim(8));
  f.op(Opcode::AddI32).reg(prim(7)).reg(prim(8)).reg(prim(9));
  f.op(Opcode::ConstI32).i32(6).reg(prim(8));
  f.op(Opcode::ShrUI32).reg(prim(9)).reg(prim(8)).reg(prim(9));  // groups
  f.op(Opcode::ConstI64).i64(0).reg(prim(10));
  f.op(Opcode::ConstI64).i64(-1).reg(prim(11));
  app.callv(f, "command_buffer.dispatch", {1, 3},
            {ref(11), ref(10), prim(0), prim(9), prim(6), prim(6), prim(7),
             ref(6), prim(10), prim(11), ref(7), prim(10), prim(11), ref(5),
             prim(10), prim(11)},
            {});
  app.submitAndAwait(f, 3, 11, 12, 13, 20, 12);
  f.op(Opcode::ConstI32).i32(STRATA_STATUS_DEADLINE_EXCEEDED).reg(prim(13));
  f.op(Opcode::CondFail).reg(prim(12)).reg(prim(13)).str("await timed out");
  app.callv(f, "buffer_view.create", {1},
            {ref(5), prim(10), prim(5), prim(3), prim(1), prim(2)}, {ref(14)});
  f.op(Opcode::Return).list({ref(14)});
}

// app.matmul(view a, view b) -> view: C[MxN] = A[MxK] * B[KxN] with
// constants M, N, K over ceil(M / 8) x ceil(N / 8) workgroups.
void buildMatmul(App& app) {
  FunctionBuilder& f = app.function("matmul", "0rr_r", 50);
  f.op(Opcode::ConstI32).i32(0).reg(prim(0));
  f.op(Opcode::ConstI32).i32(1).reg(prim(1));
  app.call(f, "buffer_view.dim", {ref(0), prim(0)}, {prim(2)});  // M
  app.call(f, "buffer_view.dim", {ref(0), prim(1)}, {prim(3)});  // K
  app.call(f, "buffer_view.dim", {ref(1), prim(1)}, {prim(4)});  // N
  app.call(f, "devices.get", {prim(0)}, {ref(2)});
  app.call(f, "device.allocator", {ref(2)}, {ref(3)});
  f.op(Opcode::MulI64).reg(prim(2)).reg(prim(4)).reg(prim(5));
  f.op(Opcode::ConstI64).i64(4).reg(prim(6));
  f.op(Opcode::MulI64).reg(prim(5)).reg(prim(6)).reg(prim(7));  // bytes
  app.call(f, "allocator.allocate", {ref(3), prim(7)}, {ref(4)});
  app.call(f, "buffer_view.buffer", {ref(0)}, {ref(5)});
  app.call(f, "buffer_view.buffer", {ref(1)}, {ref(6)});
  app.createExecutable(f, 2, 8, 9, 7);
  app.call(f, "command_buffer.create", {ref(2), prim(1), prim(0)}, {ref(8)});
  f.op(Opcode::TruncI64I32).reg(prim(2)).reg(prim(8));   // M
  f.op(Opcode::TruncI64I32).reg(prim(4)).reg(prim(9));   // N
  f.op(Opcode::TruncI64I32).reg(prim(3)).reg(prim(10));  // K
  f.op(Opcode::ConstI32).i32(7).reg(prim(11));
  f.op(Opcode::ConstI32).i32(3).reg(prim(12));
  f.op(Opcode::AddI32).reg(prim(8)).reg(prim(11)).reg(prim(13));
  f.op(Opcode::ShrUI32).reg(prim(13)).reg(prim(12)).reg(prim(13));
  f.op(Opcode::AddI32).reg(prim(9)).reg(prim(11)).reg(prim(14));
  f.op(Opcode::ShrUI32).reg(prim(14)).reg(prim(12)).reg(prim(14));
  f.op(Opcode::ConstI64).i64(0).reg(prim(15));
  f.op(Opcode::ConstI64).i64(-1).reg(prim(16));
  f.op(Opcode::ConstI32).i32(kMatmul).reg(prim(17));
  app.callv(f, "command_buffer.dispatch", {3, 3},
            {ref(8), ref(7), prim(17), prim(13), prim(14), prim(1), prim(8),
             prim(9), prim(10), ref(5), prim(15), prim(16), ref(6), prim(15),
             prim(16), ref(4), prim(15), prim(16)},
            {});
  app.submitAndAwait(f, 2, 8, 9, 10, 20, 18);
  f.op(Opcode::ConstI32).i32(STRATA_STATUS_DEADLINE_EXCEEDED).reg(prim(19));
  f.op(Opcode::CondFail).reg(prim(18)).reg(prim(19)).str("await timed out");
  f.op(Opcode::ConstI32).i32(kF32).reg(prim(20));
  app.callv(f, "buffer_view.create", {2},
            {ref(4), prim(15), prim(7), prim(20), prim(0), prim(2), prim(4)},
            {ref(11)});
  f.op(Opcode::Return).list({ref(11)});
}

// app.fail() -> i32: dispatches fail_always and awaits the result.
void buildFail(App& app) {
  FunctionBuilder& f = app.function("fail", "0_i", 70);
  f.op(Opcode::ConstI32).i32(0).reg(prim(0));
  f.op(Opcode::ConstI32).i32(1).reg(prim(1));
  f.op(Opcode::ConstI32).i32(kFailAlways).reg(prim(2));
  app.call(f, "devices.get", {prim(0)}, {ref(0)});
  app.createExecutable(f, 0, 1, 2, 3);
  app.call(f, "command_buffer.create", {ref(0), prim(1), prim(0)}, {ref(4)});
  app.callv(f, "command_buffer.dispatch", {0, 0},
            {ref(4), ref(3), prim(2), prim(1), prim(1), prim(1)}, {});
  f.location("app.mlir", 75, 7);
  app.submitAndAwait(f, 0, 4, 5, 6, 10, 3);
  f.op(Opcode::Return).list({prim(3)});
}

// app.gated(fence gate) -> i32: submits a barrier-only command buffer that
// waits on gate, then awaits its signal fence.
void buildGated(App& app) {
  FunctionBuilder& f = app.function("gated", "0r_i", 90);
  f.op(Opcode::ConstI32).i32(0).reg(prim(0));
  f.op(Opcode::ConstI32).i32(1).reg(prim(1));
  app.call(f, "devices.get", {prim(0)}, {ref(1)});
  app.call(f, "command_buffer.create", {ref(1), prim(1), prim(0)}, {ref(2)});
  app.call(f, "command_buffer.execution_barrier", {ref(2)}, {});
  app.call(f, "command_buffer.finalize", {ref(2)}, {});
  app.call(f, "fence.create", {ref(1), prim(0)}, {ref(3)});
  app.callv(f, "device.queue.execute", {1}, {ref(1), ref(0), ref(3), ref(2)},
            {});
  f.op(Opcode::ConstI32).i32(kAwaitMs).reg(prim(2));
  app.callv(f, "fence.await", {1}, {prim(2), ref(3)}, {prim(3)});
  f.op(Opcode::Return).list({prim(3)});
}

}  // namespace

TEST_SUITE("hal.module") {
  TEST_CASE("exports the documented contract") {
    Harness h;
    strata_vm_module_t* hal = nullptr;
    REQUIRE(strata_hal_module_create(h.instance, nullptr, 0,
                                     strata_allocator_system(),
                                     &hal) == nullptr);
    h.add(hal);
    CHECK(std::string(strata_vm_module_name(hal)) == "hal");
    CHECK(strata_vm_module_version(hal) == STRATA_HAL_MODULE_VERSION);
    std::map<std::string, std::string> exports;
    for (size_t i = 0; i < strata_vm_module_export_count(hal); ++i) {
      strata_vm_export_info_t info;
      REQUIRE(strata_vm_module_export_info(hal, i, &info) == nullptr);
      exports[info.name] = info.calling_convention;
    }
    CHECK(exports == kHalContract);
    // Every HAL type is registered, so modules may name them.
    for (const char* name :
         {"hal.buffer", "hal.buffer_view", "hal.device", "hal.allocator",
          "hal.executable", "hal.command_buffer", "hal.semaphore",
          "hal.fence"}) {
      CAPTURE(name);
      CHECK(strata_vm_instance_lookup_type(h.instance, name,
                                           std::strlen(name)) != nullptr);
    }
  }

  TEST_CASE("bytecode stores inputs, dispatches add and mul, loads results") {
    for (const std::string& device : kDevices) {
      CAPTURE(device);
      App app;
      buildSmall(app);
      Fixture fx(device, app);
      for (uint32_t ordinal : {kAdd, kMul}) {
        CAPTURE(ordinal);
        StatusText s(
            fx.call("small", {vI32(static_cast<int32_t>(ordinal))}, 4));
        REQUIRE_MESSAGE(s.ok(), s.str);
        CHECK(fx.results[0].i32 == 0);
        for (int i = 0; i < 3; ++i) {
          float expected = ordinal == kAdd ? kSmallA[i] + kSmallB[i]
                                           : kSmallA[i] * kSmallB[i];
          CHECK(asFloat(fx.results[1 + i].i32) == expected);
        }
      }
    }
  }

  TEST_CASE("element-wise kernels over views of any length") {
    for (const std::string& device : kDevices) {
      CAPTURE(device);
      App app;
      buildBinary(app);
      Fixture fx(device, app);
      for (int64_t n : {int64_t{1}, int64_t{64}, int64_t{1000}}) {
        CAPTURE(n);
        std::vector<float> a(n), b(n);
        for (int64_t i = 0; i < n; ++i) {
          a[i] = static_cast<float>(i) * 0.5f;
          b[i] = 3.0f - static_cast<float>(i);
        }
        Owned va(strata_hal_buffer_view_as_ref(makeView({n}, a)));
        Owned vb(strata_hal_buffer_view_as_ref(makeView({n}, b)));
        for (uint32_t ordinal : {kAdd, kMul}) {
          StatusText s(fx.call(
              "binary",
              {vRef(va.ptr), vRef(vb.ptr), vI32(static_cast<int32_t>(ordinal))},
              1));
          REQUIRE_MESSAGE(s.ok(), s.str);
          Owned out(fx.results[0].ref);
          strata_hal_buffer_view_t* view =
              strata_hal_buffer_view_from_ref(out.ptr);
          REQUIRE(view != nullptr);
          REQUIRE(strata_hal_buffer_view_rank(view) == 1);
          CHECK(strata_hal_buffer_view_dim(view, 0) == n);
          std::vector<float> got = viewValues(view);
          int wrong = 0;
          for (int64_t i = 0; i < n; ++i) {
            float expected = ordinal == kAdd ? a[i] + b[i] : a[i] * b[i];
            wrong += got[i] != expected;
          }
          CHECK(wrong == 0);
        }
      }
    }
  }

  TEST_CASE("matmul with three constants over a 2-D grid") {
    const int64_t m = 13, k = 7, n = 19;  // partial 8x8 tiles on both edges
    std::vector<float> a(m * k), b(k * n);
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = static_cast<float>(i % 5) - 2.0f;
    }
    for (size_t i = 0; i < b.size(); ++i) {
      b[i] = static_cast<float>(i % 3) * 0.25f;
    }
    for (const std::string& device : kDevices) {
      CAPTURE(device);
      App app;
      buildMatmul(app);
      Fixture fx(device, app);
      Owned va(strata_hal_buffer_view_as_ref(makeView({m, k}, a)));
      Owned vb(strata_hal_buffer_view_as_ref(makeView({k, n}, b)));
      StatusText s(fx.call("matmul", {vRef(va.ptr), vRef(vb.ptr)}, 1));
      REQUIRE_MESSAGE(s.ok(), s.str);
      Owned out(fx.results[0].ref);
      strata_hal_buffer_view_t* view = strata_hal_buffer_view_from_ref(out.ptr);
      REQUIRE(view != nullptr);
      REQUIRE(strata_hal_buffer_view_rank(view) == 2);
      CHECK(strata_hal_buffer_view_dim(view, 0) == m);
      CHECK(strata_hal_buffer_view_dim(view, 1) == n);
      std::vector<float> got = viewValues(view);
      int wrong = 0;
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t c = 0; c < n; ++c) {
          float sum = 0.0f;
          for (int64_t i = 0; i < k; ++i) {
            sum += a[r * k + i] * b[i * n + c];
          }
          wrong += got[r * n + c] != sum;
        }
      }
      CHECK(wrong == 0);
    }
  }

  TEST_CASE("a failing kernel fails fence.await with the dispatch error and "
            "the VM backtrace") {
    for (const std::string& device : kDevices) {
      CAPTURE(device);
      App app;
      buildFail(app);
      Fixture fx(device, app);
      StatusText s(fx.call("fail", {}, 1));
      REQUIRE_FALSE(s.ok());
      CAPTURE(s.str);
      CHECK(s.contains("fail_always"));
      CHECK(s.contains("in call to 'hal.fence.await'"));
      CHECK(s.contains("at app.fail (app.mlir:75:7)"));
      // The context keeps working after the failure.
      StatusText again(fx.call("fail", {}, 1));
      CHECK(again.contains("fail_always"));
    }
  }

  TEST_CASE("fence.await returns 4 when its timeout passes first") {
    App app;
    FunctionBuilder& f = app.function("timeout", "0i_i", 110);
    f.op(Opcode::ConstI32).i32(0).reg(prim(1));
    app.call(f, "devices.get", {prim(1)}, {ref(0)});
    app.call(f, "fence.create", {ref(0), prim(1)}, {ref(1)});
    f.op(Opcode::ConstRefZero).reg(ref(2));
    app.callv(f, "fence.await", {2}, {prim(0), ref(2), ref(1)}, {prim(2)});
    f.op(Opcode::Return).list({prim(2)});
    for (const std::string& device : kDevices) {
      CAPTURE(device);
      Fixture fx(device, app);
      auto start = std::chrono::steady_clock::now();
      StatusText s(fx.call("timeout", {vI32(30)}, 1));
      auto elapsed = std::chrono::steady_clock::now() - start;
      REQUIRE_MESSAGE(s.ok(), s.str);
      CHECK(fx.results[0].i32 == STRATA_STATUS_DEADLINE_EXCEEDED);
      CHECK(elapsed >= std::chrono::milliseconds(25));
      CHECK(elapsed < std::chrono::seconds(5));
      // Timeout 0 polls.
      StatusText poll(fx.call("timeout", {vI32(0)}, 1));
      REQUIRE_MESSAGE(poll.ok(), poll.str);
      CHECK(fx.results[0].i32 == STRATA_STATUS_DEADLINE_EXCEEDED);
    }
  }

  TEST_CASE("an async invocation suspends on a pending fence and completes "
            "once it is reached") {
    App app;
    buildGated(app);
    Fixture fx("local-task", app);
    strata_vm_function_t fn;
    REQUIRE(StatusText(fx.h.lookup("app.gated", &fn)).ok());
    for (bool subscribe : {false, true}) {
      CAPTURE(subscribe);
      strata_hal_fence_t* gate = nullptr;
      REQUIRE(strata_hal_fence_create_pending(strata_allocator_system(),
                                              &gate) == nullptr);
      Owned gate_ref(strata_hal_fence_as_ref(gate));
      strata_vm_list_t* inputs = nullptr;
      strata_vm_list_t* outputs = nullptr;
      REQUIRE(strata_vm_list_create(1, strata_allocator_system(), &inputs) ==
              nullptr);
      REQUIRE(strata_vm_list_create(1, strata_allocator_system(), &outputs) ==
              nullptr);
      REQUIRE(strata_vm_list_push(
                  inputs, strata_vm_variant_ref(gate_ref.ptr)) == nullptr);
      strata_vm_invocation_t* inv = nullptr;
      REQUIRE(StatusText(strata_vm_invocation_create(fx.h.context, fn, inputs,
                                                     strata_allocator_system(),
                                                     &inv))
                  .ok());
      REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
      CHECK(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_SUSPENDED);
      strata_vm_wait_t wait = strata_vm_invocation_wait(inv);
      REQUIRE(static_cast<bool>(wait.wait));
      CHECK(wait.deadline_ns > strata_hal_now_ns());
      CHECK(wait.deadline_ns != STRATA_HAL_INFINITE_FUTURE);
      if (subscribe) {
        REQUIRE(static_cast<bool>(wait.subscribe));
        static std::atomic<int> notified;
        notified = 0;
        void* token = nullptr;
        REQUIRE(StatusText(wait.subscribe(
                               wait.user, [](void*) { notified.fetch_add(1); },
                               nullptr, &token))
                    .ok());
        CHECK(notified.load() == 0);
        REQUIRE(strata_hal_fence_signal(gate) == nullptr);
        auto give_up =
            std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (notified.load() == 0 &&
               std::chrono::steady_clock::now() < give_up) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        REQUIRE(notified.load() == 1);
      } else {
        // Still pending: a short wait times out.
        StatusText early(
            wait.wait(wait.user, strata_hal_deadline_after_ns(5000000)));
        CHECK(early.code() == STRATA_STATUS_DEADLINE_EXCEEDED);
        REQUIRE(strata_hal_fence_signal(gate) == nullptr);
        StatusText waited(
            wait.wait(wait.user, strata_hal_deadline_after_ns(10000000000)));
        REQUIRE_MESSAGE(waited.ok(), waited.str);
      }
      REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
      CHECK(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_COMPLETED);
      REQUIRE(StatusText(strata_vm_invocation_take_outputs(inv, outputs)).ok());
      strata_vm_variant_t v;
      REQUIRE(strata_vm_list_get(outputs, 0, &v) == nullptr);
      CHECK(v.value.i32 == 0);
      strata_vm_invocation_destroy(inv);
      strata_vm_list_release(inputs);
      strata_vm_list_release(outputs);
    }
  }

  TEST_CASE("fence.await over several fences resumes until every one is "
            "reached") {
    App app;
    FunctionBuilder& f = app.function("both", "0rr_i", 100);
    f.op(Opcode::ConstI32).i32(kAwaitMs).reg(prim(0));
    f.op(Opcode::ConstRefZero).reg(ref(2));
    app.callv(f, "fence.await", {3}, {prim(0), ref(0), ref(2), ref(1)},
              {prim(1)});
    f.op(Opcode::Return).list({prim(1)});
    Fixture fx("local-task", app);
    strata_vm_function_t fn;
    REQUIRE(StatusText(fx.h.lookup("app.both", &fn)).ok());
    strata_hal_fence_t* fences[2] = {nullptr, nullptr};
    strata_vm_list_t* inputs = nullptr;
    strata_vm_list_t* outputs = nullptr;
    REQUIRE(strata_vm_list_create(2, strata_allocator_system(), &inputs) ==
            nullptr);
    REQUIRE(strata_vm_list_create(1, strata_allocator_system(), &outputs) ==
            nullptr);
    for (strata_hal_fence_t*& fence : fences) {
      REQUIRE(strata_hal_fence_create_pending(strata_allocator_system(),
                                              &fence) == nullptr);
      REQUIRE(strata_vm_list_push(
                  inputs, strata_vm_variant_ref(
                              strata_hal_fence_as_ref(fence))) == nullptr);
    }
    strata_vm_invocation_t* inv = nullptr;
    REQUIRE(
        StatusText(strata_vm_invocation_create(fx.h.context, fn, inputs,
                                               strata_allocator_system(), &inv))
            .ok());
    for (strata_hal_fence_t* fence : fences) {
      REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
      REQUIRE(strata_vm_invocation_state(inv) ==
              STRATA_VM_INVOCATION_SUSPENDED);
      REQUIRE(strata_hal_fence_signal(fence) == nullptr);
      strata_vm_wait_t wait = strata_vm_invocation_wait(inv);
      REQUIRE(static_cast<bool>(wait.wait));
      StatusText waited(
          wait.wait(wait.user, strata_hal_deadline_after_ns(10000000000)));
      REQUIRE_MESSAGE(waited.ok(), waited.str);
    }
    REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
    CHECK(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_COMPLETED);
    REQUIRE(StatusText(strata_vm_invocation_take_outputs(inv, outputs)).ok());
    strata_vm_variant_t v;
    REQUIRE(strata_vm_list_get(outputs, 0, &v) == nullptr);
    CHECK(v.value.i32 == 0);
    strata_vm_invocation_destroy(inv);
    strata_vm_list_release(inputs);
    strata_vm_list_release(outputs);
    for (strata_hal_fence_t* fence : fences) {
      strata_hal_fence_release(fence);
    }
  }

  TEST_CASE("destroying an invocation suspended in fence.await releases it") {
    App app;
    buildGated(app);
    Fixture fx("local-task", app);
    strata_vm_function_t fn;
    REQUIRE(StatusText(fx.h.lookup("app.gated", &fn)).ok());
    strata_hal_fence_t* gate = nullptr;
    REQUIRE(strata_hal_fence_create_pending(strata_allocator_system(), &gate) ==
            nullptr);
    strata_vm_list_t* inputs = nullptr;
    REQUIRE(strata_vm_list_create(1, strata_allocator_system(), &inputs) ==
            nullptr);
    REQUIRE(strata_vm_list_push(
                inputs, strata_vm_variant_ref(strata_hal_fence_as_ref(gate))) ==
            nullptr);
    strata_vm_invocation_t* inv = nullptr;
    REQUIRE(
        StatusText(strata_vm_invocation_create(fx.h.context, fn, inputs,
                                               strata_allocator_system(), &inv))
            .ok());
    REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
    REQUIRE(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_SUSPENDED);
    strata_vm_invocation_destroy(inv);
    strata_vm_list_release(inputs);
    // The queued work still runs once the gate opens; nothing leaks (LSan).
    REQUIRE(strata_hal_fence_signal(gate) == nullptr);
    strata_hal_fence_release(gate);
  }

  TEST_CASE("fences: query, signal, fail, join skipping null, await of a "
            "failed fence") {
    App app;
    FunctionBuilder& f = app.function("states", "0_iiiii", 260);
    f.op(Opcode::ConstI32).i32(0).reg(prim(0));
    app.call(f, "devices.get", {prim(0)}, {ref(0)});
    app.call(f, "fence.create", {ref(0), prim(0)}, {ref(1)});
    app.call(f, "fence.query", {ref(1)}, {prim(1)});  // pending
    app.call(f, "fence.signal", {ref(1)}, {});
    app.call(f, "fence.query", {ref(1)}, {prim(2)});  // reached
    app.call(f, "fence.create", {ref(0), prim(0)}, {ref(2)});
    f.op(Opcode::ConstI32).i32(STRATA_STATUS_INTERNAL).reg(prim(3));
    app.call(f, "fence.fail", {ref(2), prim(3)}, {});
    app.call(f, "fence.query", {ref(2)}, {prim(3)});  // failed: 13
    f.op(Opcode::ConstRefZero).reg(ref(3));
    app.callv(f, "fence.join", {2}, {ref(1), ref(3)}, {ref(4)});
    app.call(f, "fence.query", {ref(4)}, {prim(4)});  // reached
    app.callv(f, "fence.join", {3}, {ref(1), ref(3), ref(2)}, {ref(5)});
    app.call(f, "fence.query", {ref(5)}, {prim(5)});  // failed
    f.op(Opcode::Return).list({prim(1), prim(2), prim(3), prim(4), prim(5)});

    FunctionBuilder& g = app.function("await_failed", "0_i", 280);
    g.op(Opcode::ConstI32).i32(0).reg(prim(0));
    app.call(g, "devices.get", {prim(0)}, {ref(0)});
    app.call(g, "fence.create", {ref(0), prim(0)}, {ref(1)});
    app.call(g, "fence.create", {ref(0), prim(0)}, {ref(2)});
    app.call(g, "fence.signal", {ref(2)}, {});
    g.op(Opcode::ConstI32).i32(STRATA_STATUS_FAILED_PRECONDITION).reg(prim(1));
    app.call(g, "fence.fail", {ref(1), prim(1)}, {});
    g.op(Opcode::ConstI32).i32(kAwaitMs).reg(prim(2));
    g.location("app.mlir", 285, 9);
    app.callv(g, "fence.await", {2}, {prim(2), ref(2), ref(1)}, {prim(3)});
    g.op(Opcode::Return).list({prim(3)});

    FunctionBuilder& h = app.function("bad_code", "0i_", 290);
    h.op(Opcode::ConstI32).i32(0).reg(prim(1));
    app.call(h, "devices.get", {prim(1)}, {ref(0)});
    app.call(h, "fence.create", {ref(0), prim(1)}, {ref(1)});
    app.call(h, "fence.fail", {ref(1), prim(0)}, {});
    h.op(Opcode::Return).list({});

    FunctionBuilder& j = app.function("join_bad", "0r_", 295);
    app.callv(j, "fence.join", {1}, {ref(0)}, {ref(1)});
    j.op(Opcode::Return).list({});
    Fixture fx("local-sync", app);

    StatusText s(fx.call("states", {}, 5));
    REQUIRE_MESSAGE(s.ok(), s.str);
    CHECK(fx.results[0].i32 == 1000);
    CHECK(fx.results[1].i32 == 0);
    CHECK(fx.results[2].i32 == STRATA_STATUS_INTERNAL);
    CHECK(fx.results[3].i32 == 0);
    CHECK(fx.results[4].i32 == STRATA_STATUS_INTERNAL);

    StatusText failed(fx.call("await_failed", {}, 1));
    CHECK(failed.code() == STRATA_STATUS_FAILED_PRECONDITION);
    CHECK_MESSAGE(failed.contains("fence failed by hal.fence.fail"),
                  failed.str);
    CHECK_MESSAGE(failed.contains("at app.await_failed (app.mlir:285:9)"),
                  failed.str);

    StatusText code(fx.call("bad_code", {vI32(0)}, 0));
    CHECK_MESSAGE(code.contains("argument 1 (status code) is 0"), code.str);

    strata_vm_buffer_t* vm_buffer = nullptr;
    REQUIRE(strata_vm_buffer_create(1, 0, strata_allocator_system(),
                                    &vm_buffer) == nullptr);
    Owned wrong(strata_vm_buffer_as_ref(vm_buffer));
    StatusText join(fx.call("join_bad", {vRef(wrong.ptr)}, 0));
    CHECK_MESSAGE(join.contains("native function 'hal.fence.join': argument 1 "
                                "(element 0 of fences) must be a hal.fence or "
                                "null, got a vm.buffer"),
                  join.str);
  }

  TEST_CASE("command buffers fill and copy; queue alloca, dealloca and "
            "barrier order on fences") {
    App app;
    FunctionBuilder& f = app.function("fillcopy", "0i_iii", 310);
    f.op(Opcode::ConstI32).i32(0).reg(prim(1));
    app.call(f, "devices.get", {prim(1)}, {ref(0)});
    f.op(Opcode::ConstRefZero).reg(ref(1));
    app.call(f, "fence.create", {ref(0), prim(1)}, {ref(2)});
    f.op(Opcode::ConstI64).i64(16).reg(prim(2));
    app.call(f, "device.queue.alloca", {ref(0), ref(1), ref(2), prim(2)},
             {ref(3)});
    app.call(f, "fence.create", {ref(0), prim(1)}, {ref(4)});
    app.call(f, "device.queue.alloca", {ref(0), ref(2), ref(4), prim(2)},
             {ref(5)});
    // Reusable command buffer: fill a with 0xAB, copy a[4..8) to b[8..12).
    f.op(Opcode::ConstI32).i32(2).reg(prim(3));
    app.call(f, "command_buffer.create", {ref(0), prim(3), prim(1)}, {ref(6)});
    f.op(Opcode::ConstI64).i64(0).reg(prim(4));
    f.op(Opcode::ConstI32).i32(0xAB).reg(prim(5));
    f.op(Opcode::ConstI32).i32(1).reg(prim(6));
    app.call(f, "command_buffer.fill_buffer",
             {ref(6), ref(3), prim(4), prim(2), prim(5), prim(6)}, {});
    app.call(f, "command_buffer.execution_barrier", {ref(6)}, {});
    f.op(Opcode::ConstI64).i64(4).reg(prim(7));
    f.op(Opcode::ConstI64).i64(8).reg(prim(8));
    app.call(f, "command_buffer.copy_buffer",
             {ref(6), ref(3), prim(7), ref(5), prim(8), prim(7)}, {});
    app.call(f, "command_buffer.finalize", {ref(6)}, {});
    app.call(f, "fence.create", {ref(0), prim(1)}, {ref(7)});
    app.callv(f, "device.queue.execute", {1}, {ref(0), ref(4), ref(7), ref(6)},
              {});
    app.call(f, "fence.create", {ref(0), prim(1)}, {ref(8)});
    app.callv(f, "device.queue.execute", {1}, {ref(0), ref(7), ref(8), ref(6)},
              {});
    app.call(f, "fence.create", {ref(0), prim(1)}, {ref(9)});
    app.call(f, "device.queue.dealloca", {ref(0), ref(8), ref(9), ref(5)}, {});
    app.call(f, "fence.create", {ref(0), prim(1)}, {ref(10)});
    app.call(f, "device.queue.barrier", {ref(0), ref(9), ref(10)}, {});
    f.op(Opcode::ConstI32).i32(kAwaitMs).reg(prim(9));
    app.callv(f, "fence.await", {1}, {prim(9), ref(10)}, {prim(10)});
    f.op(Opcode::ConstI32).i32(4).reg(prim(11));
    app.call(f, "buffer.load", {ref(5), prim(8), prim(11)}, {prim(12)});
    app.call(f, "buffer.load", {ref(5), prim(7), prim(11)}, {prim(13)});
    f.op(Opcode::Return).list({prim(10), prim(12), prim(13)});
    for (const std::string& device : kDevices) {
      CAPTURE(device);
      Fixture fx(device, app);
      StatusText s(fx.call("fillcopy", {vI32(0)}, 3));
      REQUIRE_MESSAGE(s.ok(), s.str);
      CHECK(fx.results[0].i32 == 0);
      CHECK(static_cast<uint32_t>(fx.results[1].i32) == 0xABABABABu);
      CHECK(fx.results[2].i32 == 0);
    }
  }

  TEST_CASE("buffer.wrap uses rodata in place, read-only") {
    App app;
    std::vector<uint8_t> bytes(128);
    for (size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] = static_cast<uint8_t>(i);
    }
    uint32_t rodata = app.builder().addRodata(bytes);
    // wrapped(offset) -> (length, the 4 bytes at offset)
    FunctionBuilder& wrapped = app.function("wrapped", "0I_Ii", 700);
    wrapped.op(Opcode::ConstRefRodata).u32(rodata).reg(ref(0));
    app.call(wrapped, "buffer.wrap", {ref(0)}, {ref(1)});
    app.call(wrapped, "buffer.length", {ref(1)}, {prim(1)});
    wrapped.op(Opcode::ConstI32).i32(4).reg(prim(2));
    app.call(wrapped, "buffer.load", {ref(1), prim(0), prim(2)}, {prim(3)});
    wrapped.op(Opcode::Return).list({prim(1), prim(3)});
    // store(offset): a store into a subspan of the wrapped rodata.
    FunctionBuilder& store = app.function("store", "0I_", 710);
    store.op(Opcode::ConstRefRodata).u32(rodata).reg(ref(0));
    app.call(store, "buffer.wrap", {ref(0)}, {ref(1)});
    store.op(Opcode::ConstI64).i64(64).reg(prim(1));
    app.call(store, "buffer.subspan", {ref(1), prim(0), prim(1)}, {ref(2)});
    store.op(Opcode::ConstI32).i32(7).reg(prim(2));
    store.op(Opcode::ConstI32).i32(1).reg(prim(3));
    app.call(store, "buffer.store", {prim(2), ref(2), prim(0), prim(3)}, {});
    store.op(Opcode::Return).list({});
    // fill(): a command buffer fill of the wrapped rodata.
    FunctionBuilder& fill = app.function("fill", "0i_", 720);
    fill.op(Opcode::ConstRefRodata).u32(rodata).reg(ref(0));
    app.call(fill, "buffer.wrap", {ref(0)}, {ref(1)});
    app.call(fill, "devices.get", {prim(0)}, {ref(2)});
    fill.op(Opcode::ConstI32).i32(1).reg(prim(1));
    app.call(fill, "command_buffer.create", {ref(2), prim(1), prim(0)},
             {ref(3)});
    fill.op(Opcode::ConstI64).i64(0).reg(prim(2));
    fill.op(Opcode::ConstI64).i64(4).reg(prim(3));
    app.call(fill, "command_buffer.fill_buffer",
             {ref(3), ref(1), prim(2), prim(3), prim(0), prim(1)}, {});
    fill.op(Opcode::Return).list({});
    for (const std::string& device : kDevices) {
      CAPTURE(device);
      Fixture fx(device, app);
      StatusText s(fx.call("wrapped", {vI64(64)}, 2));
      REQUIRE_MESSAGE(s.ok(), s.str);
      CHECK(fx.results[0].i64 == 128);
      CHECK(static_cast<uint32_t>(fx.results[1].i32) == 0x43424140u);
      StatusText denied(fx.call("store", {vI64(0)}, 0));
      CHECK(denied.code() == STRATA_STATUS_PERMISSION_DENIED);
      CHECK_MESSAGE(denied.contains("read-only"), denied.str);
      StatusText filled(fx.call("fill", {vI32(0)}, 0));
      CHECK(filled.code() == STRATA_STATUS_PERMISSION_DENIED);
      CHECK_MESSAGE(filled.contains("fill target is a read-only"), filled.str);
    }
  }
}
