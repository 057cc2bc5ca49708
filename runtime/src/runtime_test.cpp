// runtime_test.cpp - the embedding API: instances, sessions, checked
// calls, buffer views from host data, blocking and asynchronous calls
// (through the async-external entry point of hal_sample.vmfb, and the
// fallback invocation), and the C++ wrapper built without exceptions.
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "module_builder.h"
#include "strata/runtime.h"
#include "strata/runtime.hpp"

using strata::vm::Opcode;
using strata::vm::testing::ModuleBuilder;
using strata::vm::testing::prim;
using strata::vm::testing::ref;

namespace {

// The message of a status (freed), "" for OK.
std::string take(strata_status_t status) {
  std::string text = status ? strata_status_message(status) : "";
  strata_status_free(status);
  return text;
}
// The whole text ("CODE: message" and annotations); "OK" for OK.
std::string takeAll(strata_status_t status) {
  return strata::runtime::Status(status).toString();
}

// "app": imports hal_sample.add and exports, with no async entry point,
//   add2(a, b) -> view       hal_sample.add(a, b) (suspends on its fence)
//   fail(i32) -> i32         fails with "app.fail: asked to fail"
//   twice(i32) -> i32        2 * x
//   bad(a) -> view, bad$async(a) -> view   (breaks the async contract)
std::vector<uint8_t> buildApp() {
  ModuleBuilder mb("app", 1);
  uint32_t add = mb.addImport("hal_sample.add", "0rr_r");
  {
    auto& f = mb.addFunction("add2", "0rr_r");
    f.op(Opcode::CallImport).u32(add).list({ref(0), ref(1)}).list({ref(2)});
    f.op(Opcode::Return).list({ref(2, true)});
    mb.addExport("add2", f.index());
  }
  {
    auto& f = mb.addFunction("fail", "0i_i");
    f.location("app.mlir", 7, 3);
    f.op(Opcode::ConstI32).i32(STRATA_STATUS_FAILED_PRECONDITION).reg(prim(1));
    f.op(Opcode::Fail).reg(prim(1)).str("app.fail: asked to fail");
    mb.addExport("fail", f.index());
  }
  {
    auto& f = mb.addFunction("twice", "0i_i");
    f.op(Opcode::AddI32).reg(prim(0)).reg(prim(0)).reg(prim(1));
    f.op(Opcode::Return).list({prim(1)});
    mb.addExport("twice", f.index());
  }
  for (const char* name : {"bad", "bad$async"}) {
    auto& f = mb.addFunction(name, "0r_r");
    f.op(Opcode::Return).list({ref(0)});
    mb.addExport(name, f.index());
  }
  return mb.build();
}

struct Fixture {
  strata_allocator_t allocator = strata_allocator_system();
  strata_runtime_instance_t* instance = nullptr;
  strata_runtime_session_t* session = nullptr;

  explicit Fixture(const char* device, bool with_app = false) {
    strata_runtime_instance_options_t options;
    strata_runtime_instance_options_initialize(&options);
    options.device = device;
    options.task_worker_count = 2;
    REQUIRE(take(strata_runtime_instance_create(&options, allocator,
                                                &instance)) == "");
    std::vector<strata_vm_module_t*> modules(1);
    REQUIRE(take(strata_runtime_module_load_file(
                instance, STRATA_TEST_HAL_SAMPLE_PATH, &modules[0])) == "");
    if (with_app) {
      std::vector<uint8_t> app = buildApp();
      modules.push_back(nullptr);
      REQUIRE(take(strata_runtime_module_load_memory(
                  instance, app.data(), app.size(), &modules[1])) == "");
    }
    REQUIRE(take(strata_runtime_session_create(instance, nullptr,
                                               modules.data(), modules.size(),
                                               allocator, &session)) == "");
    for (strata_vm_module_t* module : modules) {
      strata_vm_module_release(module);  // the session holds them
    }
  }
  ~Fixture() {
    strata_runtime_session_release(session);
    strata_runtime_instance_release(instance);
  }

  strata_runtime_call_t* call(const char* name) {
    strata_runtime_call_t* call = nullptr;
    REQUIRE(take(strata_runtime_call_create(session, name, allocator, &call)) ==
            "");
    return call;
  }

  // A 2x3xf32 view of values start, start + step, ...
  strata_hal_buffer_view_t* view(float start, float step,
                                 std::vector<int64_t> shape = {2, 3}) {
    size_t n = 1;
    for (int64_t d : shape) {
      n *= static_cast<size_t>(d);
    }
    std::vector<float> data(n);
    for (size_t i = 0; i < n; ++i) {
      data[i] = start + step * static_cast<float>(i);
    }
    strata_hal_buffer_view_t* out = nullptr;
    REQUIRE(take(strata_runtime_buffer_view_from_host(
                STRATA_HAL_ELEMENT_TYPE_FLOAT_32, shape.data(), shape.size(),
                data.data(), data.size() * sizeof(float), allocator, &out)) ==
            "");
    return out;
  }
};

void pushViews(strata_runtime_call_t* call, strata_hal_buffer_view_t* a,
               strata_hal_buffer_view_t* b) {
  REQUIRE(take(strata_runtime_call_push_buffer_view(call, a)) == "");
  REQUIRE(take(strata_runtime_call_push_buffer_view(call, b)) == "");
  strata_hal_buffer_view_release(a);  // the call holds them
  strata_hal_buffer_view_release(b);
}

std::vector<float> resultFloats(strata_runtime_call_t* call, size_t i = 0) {
  strata_hal_buffer_view_t* view = nullptr;
  REQUIRE(take(strata_runtime_call_result_buffer_view(call, i, &view)) == "");
  std::vector<float> out(strata_hal_buffer_view_byte_length(view) /
                         sizeof(float));
  CHECK(take(strata_runtime_buffer_view_to_host(view, out.data(),
                                                out.size() * sizeof(float))) ==
        "");
  strata_hal_buffer_view_release(view);
  return out;
}

// Records the outcome of an asynchronous call.
struct Outcome {
  int calls = 0;
  std::string error;  // "OK" when OK
  std::thread::id thread;
  static void callback(void* user, strata_runtime_call_t*,
                       strata_status_t status) {
    auto* outcome = static_cast<Outcome*>(user);
    ++outcome->calls;
    outcome->error = takeAll(status);
    outcome->thread = std::this_thread::get_id();
  }
};

strata_hal_loop_t* newLoop() {
  strata_hal_loop_t* loop = nullptr;
  REQUIRE(take(strata_hal_loop_create(strata_allocator_system(), &loop)) ==
          "");
  return loop;
}

}  // namespace

TEST_SUITE("runtime") {

TEST_CASE("an unknown device fails naming it and the known ones") {
  strata_runtime_instance_options_t options;
  strata_runtime_instance_options_initialize(&options);
  CHECK(std::string(options.device) == "local-task");
  options.device = "gpu-9000";
  strata_runtime_instance_t* instance = nullptr;
  std::string error = takeAll(strata_runtime_instance_create(
      &options, strata_allocator_system(), &instance));
  CHECK(instance == nullptr);
  CHECK(error.find("gpu-9000") != std::string::npos);
  CHECK(error.find("local-sync") != std::string::npos);
}

TEST_CASE("the native-code policy refuses the sample's kernel library") {
  strata_runtime_instance_options_t options;
  strata_runtime_instance_options_initialize(&options);
  CHECK(options.no_native_kernels == 0);
  options.no_native_kernels = 1;
  strata_runtime_instance_t* instance = nullptr;
  REQUIRE(take(strata_runtime_instance_create(
              &options, strata_allocator_system(), &instance)) == "");
  strata_vm_module_t* module = nullptr;
  REQUIRE(take(strata_runtime_module_load_file(
              instance, STRATA_TEST_HAL_SAMPLE_PATH, &module)) == "");
  strata_runtime_session_t* session = nullptr;
  strata_status_t status = strata_runtime_session_create(
      instance, nullptr, &module, 1, strata_allocator_system(), &session);
  CHECK(strata_status_code(status) == STRATA_STATUS_PERMISSION_DENIED);
  std::string error = takeAll(status);
  CHECK(error.find("is native code, which the policy refuses (no native "
                   "kernels)") != std::string::npos);
  CHECK(session == nullptr);
  strata_vm_module_release(module);
  strata_runtime_instance_release(instance);
}

TEST_CASE("a missing or corrupt module file fails naming the path") {
  strata_runtime_instance_t* instance = nullptr;
  REQUIRE(take(strata_runtime_instance_create(
              nullptr, strata_allocator_system(), &instance)) == "");
  strata_runtime_session_t* session = nullptr;
  strata_status_t status = strata_runtime_session_create_from_file(
      instance, "/nonexistent/model.vmfb", &session);
  CHECK(strata_status_code(status) == STRATA_STATUS_NOT_FOUND);
  CHECK(take(status).find("/nonexistent/model.vmfb") != std::string::npos);
  CHECK(session == nullptr);
  const char junk[] = "not a module";
  strata_vm_module_t* module = nullptr;
  status = strata_runtime_module_load_memory(instance, junk, sizeof(junk),
                                             &module);
  CHECK(status != nullptr);
  CHECK(module == nullptr);
  strata_status_free(status);
  status = strata_runtime_session_create(instance, nullptr, nullptr, 0,
                                         strata_allocator_system(), &session);
  CHECK(take(status).find("at least one module") != std::string::npos);
  strata_runtime_instance_release(instance);
}

TEST_CASE("a blocking call adds two tensors on both devices") {
  for (const char* device : {"local-sync", "local-task"}) {
    CAPTURE(device);
    Fixture fx(device);
    strata_runtime_call_t* call = fx.call("add");
    CHECK(std::string(strata_runtime_call_function_name(call)) ==
          "hal_sample.add");
    CHECK(strata_runtime_call_argument_count(call) == 2);
    CHECK(strata_runtime_call_result_count(call) == 1);
    CHECK(strata_runtime_call_argument_kind(call, 0) ==
          STRATA_RUNTIME_VALUE_BUFFER_VIEW);
    CHECK(strata_runtime_call_has_async_entry(call) == 1);
    pushViews(call, fx.view(1, 1), fx.view(10, 10));
    REQUIRE(take(strata_runtime_call_invoke(call)) == "");
    CHECK(strata_runtime_call_result_kind(call, 0) ==
          STRATA_RUNTIME_VALUE_BUFFER_VIEW);
    CHECK(resultFloats(call) == std::vector<float>{11, 22, 33, 44, 55, 66});
    strata_hal_buffer_view_t* view = nullptr;
    REQUIRE(take(strata_runtime_call_result_buffer_view(call, 0, &view)) ==
            "");
    char type[32];
    CHECK(strata_runtime_buffer_view_format_type(view, type, sizeof(type)) ==
          7);
    CHECK(std::string(type) == "2x3xf32");
    strata_hal_buffer_view_release(view);
    // Reset and call again with new arguments; "module.fn" works too.
    strata_runtime_call_reset(call);
    pushViews(call, fx.view(0, 0), fx.view(-1, -1));
    REQUIRE(take(strata_runtime_call_invoke(call)) == "");
    CHECK(resultFloats(call) == std::vector<float>{-1, -2, -3, -4, -5, -6});
    strata_runtime_call_destroy(call);
    call = fx.call("hal_sample.add");
    strata_runtime_call_destroy(call);
  }
}

TEST_CASE("an unknown function fails cleanly, naming it and the exports") {
  Fixture fx("local-sync");
  strata_runtime_call_t* call = nullptr;
  strata_status_t status =
      strata_runtime_call_create(fx.session, "sub", fx.allocator, &call);
  CHECK(strata_status_code(status) == STRATA_STATUS_NOT_FOUND);
  std::string error = take(status);
  CHECK(error.find("'sub'") != std::string::npos);
  CHECK(error.find("add") != std::string::npos);
  CHECK(call == nullptr);
  status = strata_runtime_call_create(fx.session, "nomodule.fn", fx.allocator,
                                      &call);
  CHECK(take(status).find("nomodule.fn") != std::string::npos);
  status = strata_runtime_call_create(fx.session, "", fx.allocator, &call);
  CHECK(strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT);
  strata_status_free(status);
}

TEST_CASE("wrong argument kinds and counts fail naming the position") {
  Fixture fx("local-sync", /*with_app=*/true);
  strata_runtime_call_t* call = fx.call("hal_sample.add");
  std::string error = take(strata_runtime_call_push_i32(call, 5));
  CHECK(error ==
        "argument 0 of hal_sample.add is a buffer view, not i32; "
        "hal_sample.add takes (buffer view, buffer view) -> buffer view "
        "[0rr_r]");
  strata_hal_buffer_view_t* a = fx.view(1, 1);
  REQUIRE(take(strata_runtime_call_push_buffer_view(call, a)) == "");
  error = take(strata_runtime_call_invoke(call));
  CHECK(error.find("hal_sample.add takes 2 arguments, 1 was pushed") == 0);
  REQUIRE(take(strata_runtime_call_push_buffer_view(call, a)) == "");
  error = take(strata_runtime_call_push_buffer_view(call, a));
  CHECK(error.find("hal_sample.add takes 2 arguments; a 3rd (a buffer view) "
                   "is one too many") == 0);
  error = take(strata_runtime_call_push_buffer_view(call, nullptr));
  CHECK(error.find("buffer view is NULL") != std::string::npos);
  strata_hal_buffer_view_release(a);
  // Results before any invocation, and of the wrong kind.
  error = take(strata_runtime_call_result_buffer_view(
      call, 0, reinterpret_cast<strata_hal_buffer_view_t**>(&a)));
  CHECK(error == "hal_sample.add has no results: it was not invoked, or its "
                 "last invocation failed");
  REQUIRE(take(strata_runtime_call_invoke(call)) == "");
  int32_t i32 = 0;
  error = take(strata_runtime_call_result_i32(call, 0, &i32));
  CHECK(error == "result 0 of hal_sample.add is a buffer view, not i32");
  error = take(strata_runtime_call_result_i32(call, 1, &i32));
  CHECK(error == "hal_sample.add returned 1 result; there is no result 1");
  strata_runtime_call_destroy(call);

  call = fx.call("twice");
  // Without an async entry point, submit runs the function to completion
  // and signals the call's fence.
  REQUIRE(take(strata_runtime_call_push_i32(call, 5)) == "");
  REQUIRE(take(strata_runtime_call_submit(call, nullptr)) == "");
  REQUIRE(take(strata_runtime_call_result_i32(call, 0, &i32)) == "");
  CHECK(i32 == 10);
  int reached = 0;
  CHECK(take(strata_hal_fence_query(strata_runtime_call_signal_fence(call),
                                    &reached)) == "");
  CHECK(reached == 1);
  strata_runtime_call_reset(call);
  CHECK(strata_runtime_call_signal_fence(call) == nullptr);
  CHECK(std::string(strata_runtime_call_function_name(call)) == "app.twice");
  error = take(strata_runtime_call_push_f32(call, 1.5f));
  CHECK(error.find("argument 0 of app.twice is i32, not f32") == 0);
  REQUIRE(take(strata_runtime_call_push_i32(call, 21)) == "");
  REQUIRE(take(strata_runtime_call_invoke(call)) == "");
  REQUIRE(take(strata_runtime_call_result_i32(call, 0, &i32)) == "");
  CHECK(i32 == 42);
  strata_runtime_call_destroy(call);
}

TEST_CASE("a failing blocking call returns its error with the backtrace") {
  Fixture fx("local-sync", /*with_app=*/true);
  strata_runtime_call_t* call = fx.call("fail");
  REQUIRE(take(strata_runtime_call_push_i32(call, 1)) == "");
  std::string error = takeAll(strata_runtime_call_invoke(call));
  CHECK(error.find("FAILED_PRECONDITION: app.fail: asked to fail") == 0);
  CHECK(error.find("app.mlir:7") != std::string::npos);
  CHECK(strata_runtime_call_result_kind(call, 0) == STRATA_RUNTIME_VALUE_NONE);
  strata_runtime_call_destroy(call);
}

static strata_status_t hostTriple(strata_vm_native_call_t*, void*, void*,
                                  const strata_vm_value_t* args, size_t,
                                  strata_vm_value_t* results, size_t) {
  results[0].i32 = 3 * args[0].i32;
  return nullptr;
}

TEST_CASE("a session takes the user's native modules; 'module.fn' calls "
          "them") {
  static const strata_vm_native_function_t kFunctions[] = {
      {"triple", "0i_i", hostTriple}};
  strata_vm_native_module_descriptor_t descriptor = {};
  descriptor.name = "host";
  descriptor.version = 1;
  descriptor.functions = kFunctions;
  descriptor.function_count = 1;
  strata_runtime_instance_t* instance = nullptr;
  REQUIRE(take(strata_runtime_instance_create(
              nullptr, strata_allocator_system(), &instance)) == "");
  strata_vm_module_t* modules[2] = {};
  REQUIRE(take(strata_vm_native_module_create(&descriptor, nullptr,
                                              strata_allocator_system(),
                                              &modules[0])) == "");
  REQUIRE(take(strata_runtime_module_load_file(
              instance, STRATA_TEST_HAL_SAMPLE_PATH, &modules[1])) == "");
  strata_runtime_session_t* session = nullptr;
  REQUIRE(take(strata_runtime_session_create(instance, nullptr, modules, 2,
                                             strata_allocator_system(),
                                             &session)) == "");
  strata_vm_module_release(modules[0]);
  strata_vm_module_release(modules[1]);
  CHECK(std::string(strata_vm_module_name(
            strata_runtime_session_main_module(session))) == "hal_sample");
  strata_runtime_call_t* call = nullptr;
  std::string error = take(strata_runtime_call_create(
      session, "triple", strata_allocator_system(), &call));
  CHECK(error.find("module 'hal_sample' has no export 'triple'") !=
        std::string::npos);
  REQUIRE(take(strata_runtime_call_create(session, "host.triple",
                                          strata_allocator_system(), &call)) ==
          "");
  CHECK(strata_runtime_call_has_async_entry(call) == 0);
  REQUIRE(take(strata_runtime_call_push_i32(call, 14)) == "");
  REQUIRE(take(strata_runtime_call_invoke(call)) == "");
  int32_t value = 0;
  REQUIRE(take(strata_runtime_call_result_i32(call, 0, &value)) == "");
  CHECK(value == 42);
  strata_runtime_call_destroy(call);
  strata_runtime_session_release(session);
  strata_runtime_instance_release(instance);
}

TEST_CASE("buffer views from host data check their sizes") {
  strata_allocator_t allocator = strata_allocator_system();
  int64_t shape[] = {2, 3};
  float data[6] = {1, 2, 3, 4, 5, 6};
  strata_hal_buffer_view_t* view = nullptr;
  std::string error = take(strata_runtime_buffer_view_from_host(
      STRATA_HAL_ELEMENT_TYPE_FLOAT_32, shape, 2, data, 16, allocator, &view));
  CHECK(error == "buffer view 2x3xf32 needs 24 bytes of data, got 16");
  int64_t negative[] = {2, -3};
  error = take(strata_runtime_buffer_view_from_host(
      STRATA_HAL_ELEMENT_TYPE_FLOAT_32, negative, 2, data, 24, allocator,
      &view));
  CHECK(error == "buffer view 2x-3xf32: dim 1 is negative");
  int64_t huge[] = {INT64_MAX, 4};
  error = take(strata_runtime_buffer_view_from_host(
      STRATA_HAL_ELEMENT_TYPE_FLOAT_32, huge, 2, data, 24, allocator, &view));
  CHECK(error.find("overflows") != std::string::npos);
  error = take(strata_runtime_buffer_view_from_host(0x7777, shape, 2, data, 24,
                                                    allocator, &view));
  CHECK(error.find("unknown element type") != std::string::npos);
  CHECK(view == nullptr);
  REQUIRE(take(strata_runtime_buffer_view_from_host(
              STRATA_HAL_ELEMENT_TYPE_FLOAT_32, shape, 2, data, sizeof(data),
              allocator, &view)) == "");
  float back[6] = {};
  error = take(strata_runtime_buffer_view_to_host(view, back, 20));
  CHECK(error == "buffer view 2x3xf32 holds 24 bytes, the destination has 20");
  REQUIRE(take(strata_runtime_buffer_view_to_host(view, back, sizeof(back))) ==
          "");
  CHECK(std::memcmp(back, data, sizeof(data)) == 0);
  // A 0-d view.
  strata_hal_buffer_view_release(view);
  double scalar = 2.5;
  REQUIRE(take(strata_runtime_buffer_view_from_host(
              STRATA_HAL_ELEMENT_TYPE_FLOAT_64, nullptr, 0, &scalar,
              sizeof(scalar), allocator, &view)) == "");
  char type[8];
  CHECK(strata_runtime_buffer_view_format_type(view, type, sizeof(type)) == 3);
  CHECK(std::string(type) == "f64");
  strata_hal_buffer_view_release(view);
}

TEST_CASE("16 asynchronous calls overlap on local-task through add$async") {
  Fixture fx("local-task");
  strata_hal_loop_t* loop = newLoop();
  // Every call's device work waits for one gate, so all 16 are submitted
  // and in flight together before any can finish.
  strata_hal_fence_t* gate = nullptr;
  REQUIRE(take(strata_hal_fence_create_pending(fx.allocator, &gate)) == "");
  constexpr int kCalls = 16;
  std::vector<strata_runtime_call_t*> calls(kCalls);
  std::vector<Outcome> outcomes(kCalls);
  for (int i = 0; i < kCalls; ++i) {
    calls[i] = fx.call("add");
    REQUIRE(strata_runtime_call_has_async_entry(calls[i]) == 1);
    // 64x64 elements: 64 workgroups each.
    pushViews(calls[i], fx.view(static_cast<float>(i), 1, {64, 64}),
              fx.view(1000.0f * i, 0, {64, 64}));
    REQUIRE(take(strata_runtime_call_invoke_async(
                calls[i], loop, gate, Outcome::callback, &outcomes[i])) ==
            "");
    // The signal fence exists at once and is not reached before the loop
    // ran (the entry point runs on the loop thread).
    REQUIRE(strata_runtime_call_signal_fence(calls[i]) != nullptr);
  }
  CHECK(strata_hal_loop_in_flight(loop) == kCalls);
  for (int turn = 0; turn < 10; ++turn) {
    int more = 0;
    REQUIRE(take(strata_hal_loop_run_nowait(loop, &more)) == "");
    REQUIRE(more == 1);
  }
  // Nothing completes while the gate is closed.
  CHECK(strata_hal_loop_in_flight(loop) == kCalls);
  for (const Outcome& outcome : outcomes) {
    CHECK(outcome.calls == 0);
  }
  std::thread opener(
      [gate] { strata_status_free(strata_hal_fence_signal(gate)); });
  REQUIRE(take(strata_hal_loop_run(loop)) == "");
  opener.join();
  strata_hal_fence_release(gate);
  for (int i = 0; i < kCalls; ++i) {
    CAPTURE(i);
    CHECK(outcomes[i].calls == 1);
    CHECK(outcomes[i].error == "OK");
    CHECK((outcomes[i].thread == std::this_thread::get_id()));
    std::vector<float> got = resultFloats(calls[i]);
    REQUIRE(got.size() == 64 * 64);
    bool all = true;
    for (size_t e = 0; e < got.size(); ++e) {
      all = all && got[e] == static_cast<float>(i) + static_cast<float>(e) +
                                 1000.0f * i;
    }
    CHECK(all);
    int reached = 0;
    CHECK(take(strata_hal_fence_query(
              strata_runtime_call_signal_fence(calls[i]), &reached)) == "");
    CHECK(reached == 1);
    strata_runtime_call_destroy(calls[i]);
  }
  strata_hal_loop_destroy(loop);
}

TEST_CASE("an asynchronous call whose entry point fails reports it via the "
          "callback and fails its signal fence") {
  Fixture fx("local-task");
  strata_hal_loop_t* loop = newLoop();
  strata_runtime_call_t* call = fx.call("add");
  pushViews(call, fx.view(1, 1, {2, 3}), fx.view(1, 1, {3, 2}));
  Outcome outcome;
  REQUIRE(take(strata_runtime_call_invoke_async(call, loop, nullptr,
                                                Outcome::callback, &outcome)) ==
          "");
  REQUIRE(take(strata_hal_loop_run(loop)) == "");
  CHECK(outcome.calls == 1);
  CHECK(outcome.error.find(
            "input 1: expected tensor<2x3xf32>, got tensor<3x2xf32>") !=
        std::string::npos);
  CHECK(outcome.error.find("add$async") != std::string::npos);  // backtrace
  CHECK(strata_runtime_call_result_kind(call, 0) == STRATA_RUNTIME_VALUE_NONE);
  int reached = 0;
  std::string fence_error = take(strata_hal_fence_query(
      strata_runtime_call_signal_fence(call), &reached));
  CHECK(fence_error.find("input 1") != std::string::npos);
  strata_runtime_call_destroy(call);
  strata_hal_loop_destroy(loop);
}

TEST_CASE("a wait fence orders asynchronous calls, and its failure fails "
          "the call through the device") {
  Fixture fx("local-task");
  strata_hal_loop_t* loop = newLoop();
  strata_hal_fence_t* gate = nullptr;
  REQUIRE(take(strata_hal_fence_create_pending(fx.allocator, &gate)) == "");

  // first waits for the gate; second waits for first's signal fence.
  strata_runtime_call_t* first = fx.call("add");
  strata_runtime_call_t* second = fx.call("add");
  pushViews(first, fx.view(1, 0), fx.view(2, 0));
  pushViews(second, fx.view(10, 0), fx.view(20, 0));
  Outcome a, b;
  REQUIRE(take(strata_runtime_call_invoke_async(first, loop, gate,
                                                Outcome::callback, &a)) == "");
  REQUIRE(take(strata_runtime_call_invoke_async(
              second, loop, strata_runtime_call_signal_fence(first),
              Outcome::callback, &b)) == "");
  // Both entry points run and submit; nothing completes while the gate is
  // closed.
  for (int i = 0; i < 20; ++i) {
    int more = 0;
    REQUIRE(take(strata_hal_loop_run_nowait(loop, &more)) == "");
    REQUIRE(more == 1);
  }
  CHECK(a.calls == 0);
  CHECK(b.calls == 0);
  REQUIRE(take(strata_hal_fence_signal(gate)) == "");
  REQUIRE(take(strata_hal_loop_run(loop)) == "");
  CHECK(a.error == "OK");
  CHECK(b.error == "OK");
  CHECK(resultFloats(first) == std::vector<float>(6, 3));
  CHECK(resultFloats(second) == std::vector<float>(6, 30));
  strata_hal_fence_release(gate);

  // A failed wait fence fails the device work, hence the signal fence.
  REQUIRE(take(strata_hal_fence_create_pending(fx.allocator, &gate)) == "");
  strata_runtime_call_reset(first);
  pushViews(first, fx.view(1, 0), fx.view(2, 0));
  REQUIRE(take(strata_runtime_call_invoke_async(first, loop, gate,
                                                Outcome::callback, &a)) == "");
  strata_hal_fence_fail(gate, strata_make_status(STRATA_STATUS_ABORTED,
                                                 "upstream model failed"));
  REQUIRE(take(strata_hal_loop_run(loop)) == "");
  CHECK(a.calls == 2);
  CHECK(a.error.find("upstream model failed") != std::string::npos);
  CHECK(a.error.find("at hal_sample.add$async (its signal fence)") !=
        std::string::npos);
  strata_hal_fence_release(gate);
  strata_runtime_call_destroy(first);
  strata_runtime_call_destroy(second);
  strata_hal_loop_destroy(loop);
}

TEST_CASE("submitted calls chain on their fences without a host round "
          "trip") {
  for (const char* device : {"local-sync", "local-task"}) {
    CAPTURE(device);
    Fixture fx(device);
    strata_hal_fence_t* gate = nullptr;
    REQUIRE(take(strata_hal_fence_create_pending(fx.allocator, &gate)) == "");
    // first = x + y; second = first + first; third = second + x.
    strata_hal_buffer_view_t* x = fx.view(1, 1);
    strata_hal_buffer_view_t* y = fx.view(10, 0);
    strata_runtime_call_t* calls[3] = {fx.call("add"), fx.call("add"),
                                       fx.call("add")};
    REQUIRE(take(strata_runtime_call_push_buffer_view(calls[0], x)) == "");
    REQUIRE(take(strata_runtime_call_push_buffer_view(calls[0], y)) == "");
    REQUIRE(take(strata_runtime_call_submit(calls[0], gate)) == "");
    for (int i = 1; i < 3; ++i) {
      strata_hal_buffer_view_t* previous = nullptr;
      REQUIRE(take(strata_runtime_call_result_buffer_view(calls[i - 1], 0,
                                                          &previous)) == "");
      REQUIRE(take(strata_runtime_call_push_buffer_view(calls[i], previous)) ==
              "");
      REQUIRE(take(strata_runtime_call_push_buffer_view(
                  calls[i], i == 1 ? previous : x)) == "");
      strata_hal_buffer_view_release(previous);
      REQUIRE(take(strata_runtime_call_submit(
                  calls[i], strata_runtime_call_signal_fence(calls[i - 1]))) ==
              "");
    }
    // Everything is submitted and nothing has run: the gate is closed.
    int reached = 1;
    CHECK(take(strata_hal_fence_query(
              strata_runtime_call_signal_fence(calls[2]), &reached)) == "");
    CHECK(reached == 0);
    REQUIRE(take(strata_hal_fence_signal(gate)) == "");
    CHECK(take(strata_hal_fence_wait(strata_runtime_call_signal_fence(calls[2]),
                                     strata_hal_deadline_after_ns(
                                         10ll * 1000 * 1000 * 1000))) == "");
    // (1+i + 10) * 2 + (1+i)
    CHECK(resultFloats(calls[2]) == std::vector<float>{23, 26, 29, 32, 35, 38});
    strata_hal_fence_release(gate);

    // A failed gate fails the whole chain with its error.
    REQUIRE(take(strata_hal_fence_create_pending(fx.allocator, &gate)) == "");
    for (int i = 0; i < 3; ++i) {
      REQUIRE(take(strata_runtime_call_submit(
                  calls[i], i == 0 ? gate
                                   : strata_runtime_call_signal_fence(
                                         calls[i - 1]))) == "");
    }
    strata_hal_fence_fail(gate, strata_make_status(STRATA_STATUS_ABORTED,
                                                   "input stream closed"));
    std::string error = take(strata_hal_fence_wait(
        strata_runtime_call_signal_fence(calls[2]),
        strata_hal_deadline_after_ns(10ll * 1000 * 1000 * 1000)));
    CHECK(error.find("input stream closed") != std::string::npos);
    strata_hal_fence_release(gate);
    for (strata_runtime_call_t* call : calls) {
      strata_runtime_call_destroy(call);
    }
    strata_hal_buffer_view_release(x);
    strata_hal_buffer_view_release(y);
  }
}

TEST_CASE("without an async entry point the call suspends on the loop") {
  for (const char* device : {"local-sync", "local-task"}) {
    CAPTURE(device);
    Fixture fx(device, /*with_app=*/true);
    strata_hal_loop_t* loop = newLoop();
    strata_hal_fence_t* gate = nullptr;
    REQUIRE(take(strata_hal_fence_create_pending(fx.allocator, &gate)) == "");
    strata_runtime_call_t* call = fx.call("add2");
    CHECK(strata_runtime_call_has_async_entry(call) == 0);
    pushViews(call, fx.view(1, 1), fx.view(1, 1));
    Outcome outcome;
    REQUIRE(take(strata_runtime_call_invoke_async(
                call, loop, gate, Outcome::callback, &outcome)) == "");
    int more = 0;
    REQUIRE(take(strata_hal_loop_run_nowait(loop, &more)) == "");
    CHECK(more == 1);
    CHECK(outcome.calls == 0);
    std::thread signaller([gate] { strata_status_free(strata_hal_fence_signal(gate)); });
    REQUIRE(take(strata_hal_loop_run(loop)) == "");
    signaller.join();
    CHECK(outcome.error == "OK");
    CHECK(resultFloats(call) == std::vector<float>{2, 4, 6, 8, 10, 12});
    int reached = 0;
    CHECK(take(strata_hal_fence_query(strata_runtime_call_signal_fence(call),
                                      &reached)) == "");
    CHECK(reached == 1);
    strata_runtime_call_destroy(call);

    // A failure in the fallback reaches the callback with the backtrace.
    call = fx.call("fail");
    REQUIRE(take(strata_runtime_call_push_i32(call, 1)) == "");
    REQUIRE(take(strata_runtime_call_invoke_async(
                call, loop, nullptr, Outcome::callback, &outcome)) == "");
    REQUIRE(take(strata_hal_loop_run(loop)) == "");
    CHECK(outcome.calls == 2);
    CHECK(outcome.error.find("FAILED_PRECONDITION: app.fail: asked to fail") ==
          0);
    CHECK(outcome.error.find("app.mlir:7") != std::string::npos);
    std::string fence_error = take(strata_hal_fence_query(
        strata_runtime_call_signal_fence(call), &reached));
    CHECK(fence_error == "app.fail: asked to fail");
    strata_runtime_call_destroy(call);
    strata_hal_fence_release(gate);
    strata_hal_loop_destroy(loop);
  }
}

TEST_CASE("an async entry point that breaks the contract is refused") {
  Fixture fx("local-sync", /*with_app=*/true);
  strata_hal_loop_t* loop = newLoop();
  strata_runtime_call_t* call = fx.call("bad");
  CHECK(strata_runtime_call_has_async_entry(call) == 1);
  strata_hal_buffer_view_t* a = fx.view(1, 1);
  REQUIRE(take(strata_runtime_call_push_buffer_view(call, a)) == "");
  strata_hal_buffer_view_release(a);
  Outcome outcome;
  std::string error = take(strata_runtime_call_invoke_async(
      call, loop, nullptr, Outcome::callback, &outcome));
  CHECK(error.find("app.bad$async has the calling convention 0r_r") == 0);
  CHECK(error.find("0rrr_r") != std::string::npos);
  REQUIRE(take(strata_hal_loop_run(loop)) == "");
  CHECK(outcome.calls == 0);
  // Blocking calls do not use the entry point.
  REQUIRE(take(strata_runtime_call_invoke(call)) == "");
  strata_runtime_call_destroy(call);
  strata_hal_loop_destroy(loop);
}

TEST_CASE("a call in flight refuses changes; the loop's destruction cancels "
          "it") {
  Fixture fx("local-task");
  strata_hal_loop_t* loop = newLoop();
  strata_runtime_call_t* call = fx.call("add");
  pushViews(call, fx.view(1, 1), fx.view(1, 1));
  Outcome outcome;
  REQUIRE(take(strata_runtime_call_invoke_async(call, loop, nullptr,
                                                Outcome::callback, &outcome)) ==
          "");
  std::string error = take(strata_runtime_call_invoke(call));
  CHECK(error ==
        "cannot invoke hal_sample.add: an asynchronous invocation of it is in "
        "flight");
  error = take(strata_runtime_call_push_i32(call, 1));
  CHECK(error.find("in flight") != std::string::npos);
  strata_hal_loop_destroy(loop);
  CHECK(outcome.calls == 1);
  CHECK(outcome.error.find("CANCELLED") == 0);
  strata_runtime_call_destroy(call);
}

TEST_CASE("sessions of one instance run calls from several threads at "
          "once") {
  Fixture fx("local-task");
  strata_vm_module_t* module = nullptr;
  REQUIRE(take(strata_runtime_module_load_file(
              fx.instance, STRATA_TEST_HAL_SAMPLE_PATH, &module)) == "");
  strata_runtime_session_t* second = nullptr;
  REQUIRE(take(strata_runtime_session_create(fx.instance, nullptr, &module, 1,
                                             fx.allocator, &second)) == "");
  strata_vm_module_release(module);
  std::vector<std::string> errors(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      strata_runtime_session_t* session = t % 2 ? second : fx.session;
      strata_runtime_call_t* call = nullptr;
      std::string& error = errors[t];
      error = take(strata_runtime_call_create(session, "add", fx.allocator,
                                              &call));
      for (int i = 0; error.empty() && i < 20; ++i) {
        strata_runtime_call_reset(call);
        float a[3] = {1.0f * t, 2.0f * i, 3};
        int64_t shape[1] = {3};
        strata_hal_buffer_view_t* view = nullptr;
        error = take(strata_runtime_buffer_view_from_host(
            STRATA_HAL_ELEMENT_TYPE_FLOAT_32, shape, 1, a, sizeof(a),
            fx.allocator, &view));
        if (error.empty()) {
          error = take(strata_runtime_call_push_buffer_view(call, view));
        }
        if (error.empty()) {
          error = take(strata_runtime_call_push_buffer_view(call, view));
        }
        strata_hal_buffer_view_release(view);
        if (error.empty()) {
          error = take(strata_runtime_call_invoke(call));
        }
        float sum[3] = {};
        strata_hal_buffer_view_t* out = nullptr;
        if (error.empty()) {
          error = take(strata_runtime_call_result_buffer_view(call, 0, &out));
        }
        if (error.empty()) {
          error = take(strata_runtime_buffer_view_to_host(out, sum,
                                                          sizeof(sum)));
          strata_hal_buffer_view_release(out);
        }
        if (error.empty() &&
            (sum[0] != 2.0f * t || sum[1] != 4.0f * i || sum[2] != 6)) {
          error = "wrong sum";
        }
      }
      strata_runtime_call_destroy(call);
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const std::string& error : errors) {
    CHECK(error == "");
  }
  strata_runtime_session_release(second);
}

TEST_CASE("a call keeps its session and instance alive") {
  strata_runtime_call_t* call = nullptr;
  strata_hal_buffer_view_t* a = nullptr;
  strata_hal_buffer_view_t* b = nullptr;
  {
    Fixture fx("local-sync");
    call = fx.call("add");
    a = fx.view(1, 1);
    b = fx.view(2, 2);
  }  // the fixture released its session and instance
  pushViews(call, a, b);
  REQUIRE(take(strata_runtime_call_invoke(call)) == "");
  CHECK(resultFloats(call) == std::vector<float>{3, 6, 9, 12, 15, 18});
  strata_runtime_call_destroy(call);  // the last references go here

  // The same with an asynchronous call in flight when the session and
  // instance are released.
  strata_hal_loop_t* loop = newLoop();
  Outcome outcome;
  {
    Fixture fx("local-task");
    call = fx.call("add");
    pushViews(call, fx.view(1, 1), fx.view(2, 2));
    REQUIRE(take(strata_runtime_call_invoke_async(
                call, loop, nullptr, Outcome::callback, &outcome)) == "");
  }
  REQUIRE(take(strata_hal_loop_run(loop)) == "");
  CHECK(outcome.error == "OK");
  CHECK(resultFloats(call) == std::vector<float>{3, 6, 9, 12, 15, 18});
  strata_runtime_call_destroy(call);
  strata_hal_loop_destroy(loop);
}

TEST_CASE("the C++ wrapper works without exceptions") {
  namespace rt = strata::runtime;
  rt::Result<rt::Instance> instance = rt::Instance::create("nonsense");
  CHECK(!instance.ok());
  CHECK(instance.status().message().find("nonsense") != std::string::npos);
  instance = rt::Instance::create("local-task", 2);
  REQUIRE(instance.ok());
  rt::Result<rt::Session> session =
      rt::Session::fromFile(*instance, STRATA_TEST_HAL_SAMPLE_PATH);
  REQUIRE(session.ok());
  CHECK(!session->call("nope").ok());
  rt::Result<rt::Call> call = session->call("add");
  REQUIRE(call.ok());
  rt::Result<rt::Tensor> a =
      rt::Tensor::fromHost<float>({3}, {1.0f, 2.0f, 3.0f});
  REQUIRE(a.ok());
  CHECK(a->typeString() == "3xf32");
  CHECK(!rt::Tensor::fromHost<float>({4}, {1.0f}).ok());
  REQUIRE(call->push(*a).ok());
  REQUIRE(call->push(*a).ok());
  rt::Status status = call->invoke();
  REQUIRE(status.ok());
  rt::Result<rt::Tensor> sum = call->resultTensor(0);
  REQUIRE(sum.ok());
  CHECK(sum->shape() == std::vector<int64_t>{3});
  rt::Result<std::vector<float>> values = sum->toVector<float>();
  REQUIRE(values.ok());
  CHECK(*values == std::vector<float>{2, 4, 6});
  CHECK(!sum->toVector<int32_t>().ok());
  CHECK(!call->resultI32(0).ok());

  // Asynchronously, completion on the loop.
  rt::Result<rt::Loop> loop = rt::Loop::create();
  REQUIRE(loop.ok());
  call->reset();
  REQUIRE(call->push(*a).ok());
  REQUIRE(call->push(*sum).ok());
  std::vector<float> got;
  std::string error = "not called";
  REQUIRE(call->invokeAsync(*loop, [&](rt::Call& done, rt::Status s) {
                error = s.ok() ? "" : s.toString();
                rt::Result<rt::Tensor> out = done.resultTensor(0);
                if (out.ok()) {
                  got = out->toVector<float>().value();
                }
              }).ok());
  REQUIRE(loop->run().ok());
  CHECK(error == "");
  CHECK(got == std::vector<float>{3, 6, 9});
}

// "loop": spin(i64) -> i64 branches backward forever.
std::vector<uint8_t> buildEndlessLoop() {
  ModuleBuilder mb("loop", 1);
  auto& f = mb.addFunction("spin", "0I_I");
  uint32_t body = f.newBlock();
  f.op(Opcode::Br).block(body).remap({});
  f.bind(body);
  f.op(Opcode::AddI64Imm).reg(prim(0)).i64(1).reg(prim(0));
  f.op(Opcode::Br).block(body).remap({});
  mb.addExport("spin", f.index());
  return mb.build();
}

int64_t msFromNow(int64_t ms) { return strata_hal_deadline_after_ns(ms * 1000000); }

TEST_CASE("a deadline ends endless bytecode, blocking or on a loop, and the "
          "device stays usable") {
  Fixture fx("local-task");
  std::vector<uint8_t> bytes = buildEndlessLoop();
  strata_vm_module_t* module = nullptr;
  REQUIRE(take(strata_runtime_module_load_memory(fx.instance, bytes.data(),
                                                 bytes.size(), &module)) == "");
  strata_runtime_session_t* session = nullptr;
  REQUIRE(take(strata_runtime_session_create(fx.instance, nullptr, &module, 1,
                                             fx.allocator, &session)) == "");
  strata_vm_module_release(module);
  strata_runtime_call_t* call = nullptr;
  REQUIRE(take(strata_runtime_call_create(session, "spin", fx.allocator,
                                          &call)) == "");
  REQUIRE(take(strata_runtime_call_push_i64(call, 0)) == "");
  auto start = std::chrono::steady_clock::now();
  strata_runtime_call_set_deadline(call, msFromNow(50));
  strata_status_t status = strata_runtime_call_invoke(call);
  CHECK(strata_status_code(status) == STRATA_STATUS_DEADLINE_EXCEEDED);
  CHECK(take(status) == "the call's deadline passed while its bytecode ran");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));

  strata_hal_loop_t* loop = newLoop();
  Outcome outcome;
  strata_runtime_call_set_deadline(call, msFromNow(50));
  REQUIRE(take(strata_runtime_call_invoke_async(call, loop, nullptr,
                                                Outcome::callback, &outcome)) ==
          "");
  REQUIRE(take(strata_hal_loop_run(loop)) == "");
  CHECK(outcome.calls == 1);
  CHECK(outcome.error.rfind("DEADLINE_EXCEEDED: the call's deadline passed "
                            "while its bytecode ran",
                            0) == 0);
  strata_hal_loop_destroy(loop);
  strata_runtime_call_destroy(call);
  strata_runtime_session_release(session);

  // No device work was in flight: the device still works.
  strata_runtime_call_t* add = fx.call("add");
  pushViews(add, fx.view(1, 1), fx.view(10, 10));
  strata_runtime_call_set_deadline(add, msFromNow(10000));
  CHECK(take(strata_runtime_call_invoke(add)) == "");
  CHECK(resultFloats(add) == std::vector<float>{11, 22, 33, 44, 55, 66});
  strata_runtime_call_destroy(add);
}

TEST_CASE("a kernel that never returns: the call ends at its deadline and the "
          "device is lost for every later call") {
  strata_allocator_t allocator = strata_allocator_system();
  strata_runtime_instance_options_t options;
  strata_runtime_instance_options_initialize(&options);
  options.device = "local-task";
  options.task_worker_count = 2;
  strata_runtime_instance_t* instance = nullptr;
  REQUIRE(take(strata_runtime_instance_create(&options, allocator,
                                              &instance)) == "");
  strata_runtime_session_t* session = nullptr;
  REQUIRE(take(strata_runtime_session_create_from_file(
              instance, STRATA_TEST_ENDLESS_KERNEL_PATH, &session)) == "");
  strata_runtime_call_t* call = nullptr;
  REQUIRE(take(strata_runtime_call_create(session, "add", allocator,
                                          &call)) == "");
  std::vector<float> data = {1, 2};
  int64_t shape[] = {2};
  for (int i = 0; i < 2; ++i) {
    strata_hal_buffer_view_t* view = nullptr;
    REQUIRE(take(strata_runtime_buffer_view_from_host(
                STRATA_HAL_ELEMENT_TYPE_FLOAT_32, shape, 1, data.data(),
                data.size() * sizeof(float), allocator, &view)) == "");
    REQUIRE(take(strata_runtime_call_push_buffer_view(call, view)) == "");
    strata_hal_buffer_view_release(view);
  }
  // Asynchronously (add$async, then its signal fence on the loop).
  strata_hal_loop_t* loop = newLoop();
  Outcome outcome;
  auto start = std::chrono::steady_clock::now();
  strata_runtime_call_set_deadline(call, msFromNow(100));
  REQUIRE(take(strata_runtime_call_invoke_async(call, loop, nullptr,
                                                Outcome::callback, &outcome)) ==
          "");
  REQUIRE(take(strata_hal_loop_run(loop)) == "");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
  CHECK(outcome.calls == 1);
  CHECK(outcome.error.rfind("DEADLINE_EXCEEDED: hal_sample.add passed its "
                            "deadline while its device work ran; device "
                            "'local-task' is now lost",
                            0) == 0);
  strata_hal_loop_destroy(loop);
  // Every later use says so, at once.
  strata_runtime_call_set_deadline(call, 0);
  std::string later = takeAll(strata_runtime_call_invoke(call));
  CHECK(later.find("UNAVAILABLE: device 'local-task' is lost: a call's "
                   "deadline passed while its device work ran") == 0);
  strata_status_t lost = strata_hal_device_lost_status(
      strata_runtime_instance_device(instance));
  CHECK(strata_status_code(lost) == STRATA_STATUS_UNAVAILABLE);
  strata_status_free(lost);
  strata_runtime_call_destroy(call);
  strata_runtime_session_release(session);
  // The stuck worker keeps the device: releasing it must not block.
  start = std::chrono::steady_clock::now();
  strata_runtime_instance_release(instance);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
}

}  // TEST_SUITE
