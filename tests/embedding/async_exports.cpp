// async_exports.cpp - the embedding API on a module strata-compile made with
// --async-exports (the compiler's side of the async-external contract):
// blocking calls, 16 asynchronous calls in flight behind one gate, a chain
// of submitted calls, and failures reported through the callback.
//
//   async_exports ASYNC_PROGRAM.vmfb DEVICE
//
// Prints one line per check and exits 1 at the first failure.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "strata/runtime.h"
#include "strata/runtime.hpp"

namespace {

constexpr int64_t kSide = 64;
constexpr size_t kCount = kSide * kSide;
const int64_t kShape[2] = {kSide, kSide};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "async_exports: FAILED: %s\n", what.c_str());
  std::exit(1);
}

std::string text(strata_status_t status) {
  return strata::runtime::Status(status).toString();
}

void ok(strata_status_t status, const std::string& what) {
  if (status) {
    die(what + ": " + text(status));
  }
}

strata_hal_buffer_view_t* tensor(float start) {
  std::vector<float> data(kCount);
  for (size_t i = 0; i < kCount; ++i) {
    data[i] = start + static_cast<float>(i % 97);
  }
  strata_hal_buffer_view_t* view = nullptr;
  ok(strata_runtime_buffer_view_from_host(
         STRATA_HAL_ELEMENT_TYPE_FLOAT_32, kShape, 2, data.data(),
         data.size() * sizeof(float), strata_allocator_system(), &view),
     "input");
  return view;
}

// scale_add(x, y) = 2x + y, elementwise.
void expectResult(strata_runtime_call_t* call, float x, float y,
                  const std::string& what) {
  strata_hal_buffer_view_t* view = nullptr;
  ok(strata_runtime_call_result_buffer_view(call, 0, &view), what);
  std::vector<float> got(kCount);
  ok(strata_runtime_buffer_view_to_host(view, got.data(),
                                        got.size() * sizeof(float)),
     what);
  strata_hal_buffer_view_release(view);
  for (size_t i = 0; i < kCount; ++i) {
    float e = static_cast<float>(i % 97);
    float want = 2 * (x + e) + (y + e);
    if (got[i] != want) {
      die(what + ": element " + std::to_string(i) + " is " +
          std::to_string(got[i]) + ", expected " + std::to_string(want));
    }
  }
}

struct Outcome {
  int calls = 0;
  std::string error;
  static void callback(void* user, strata_runtime_call_t*,
                       strata_status_t status) {
    auto* outcome = static_cast<Outcome*>(user);
    ++outcome->calls;
    outcome->error = status ? text(status) : "";
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: async_exports MODULE.vmfb DEVICE\n");
    return 2;
  }
  strata_allocator_t allocator = strata_allocator_system();
  strata_runtime_instance_options_t options;
  strata_runtime_instance_options_initialize(&options);
  options.device = argv[2];
  options.task_worker_count = 2;
  strata_runtime_instance_t* instance = nullptr;
  ok(strata_runtime_instance_create(&options, allocator, &instance),
     "instance");
  strata_runtime_session_t* session = nullptr;
  ok(strata_runtime_session_create_from_file(instance, argv[1], &session),
     "session");
  strata_hal_loop_t* loop = nullptr;
  ok(strata_hal_loop_create(allocator, &loop), "loop");

  // Blocking.
  strata_runtime_call_t* call = nullptr;
  ok(strata_runtime_call_create(session, "scale_add", allocator, &call),
     "call");
  if (!strata_runtime_call_has_async_entry(call)) {
    die("scale_add has no async entry point; compile with --async-exports");
  }
  strata_hal_buffer_view_t* x = tensor(1);
  strata_hal_buffer_view_t* y = tensor(100);
  ok(strata_runtime_call_push_buffer_view(call, x), "push");
  ok(strata_runtime_call_push_buffer_view(call, y), "push");
  ok(strata_runtime_call_invoke(call), "blocking scale_add");
  expectResult(call, 1, 100, "blocking scale_add");
  std::printf("blocking: ok\n");

  // 16 calls in flight: their work waits for one gate.
  constexpr int kCalls = 16;
  strata_hal_fence_t* gate = nullptr;
  ok(strata_hal_fence_create_pending(allocator, &gate), "gate");
  std::vector<strata_runtime_call_t*> calls(kCalls);
  std::vector<Outcome> outcomes(kCalls);
  for (int i = 0; i < kCalls; ++i) {
    ok(strata_runtime_call_create(session, "scale_add", allocator, &calls[i]),
       "call");
    strata_hal_buffer_view_t* xi = tensor(static_cast<float>(i));
    ok(strata_runtime_call_push_buffer_view(calls[i], xi), "push");
    ok(strata_runtime_call_push_buffer_view(calls[i], y), "push");
    strata_hal_buffer_view_release(xi);
    ok(strata_runtime_call_invoke_async(calls[i], loop, gate,
                                        Outcome::callback, &outcomes[i]),
       "invoke_async");
  }
  for (int turn = 0; turn < 10; ++turn) {
    int more = 0;
    ok(strata_hal_loop_run_nowait(loop, &more), "loop turn");
    if (!more) {
      die("the loop went idle with the gate closed");
    }
  }
  for (const Outcome& outcome : outcomes) {
    if (outcome.calls) {
      die("a call completed before its wait fence was reached");
    }
  }
  std::thread opener(
      [gate] { strata_status_free(strata_hal_fence_signal(gate)); });
  ok(strata_hal_loop_run(loop), "loop run");
  opener.join();
  strata_hal_fence_release(gate);
  for (int i = 0; i < kCalls; ++i) {
    if (outcomes[i].calls != 1 || !outcomes[i].error.empty()) {
      die("async call " + std::to_string(i) + ": " + outcomes[i].error);
    }
    expectResult(calls[i], static_cast<float>(i), 100,
                 "async call " + std::to_string(i));
  }
  std::printf("16 async calls: ok\n");

  // A chain of submissions: calls[1] = scale_add(calls[0], y) after
  // calls[0]'s signal fence, and so on.
  ok(strata_hal_fence_create_pending(allocator, &gate), "gate");
  for (int i = 0; i < 3; ++i) {
    strata_runtime_call_reset(calls[i]);
    strata_hal_buffer_view_t* in = nullptr;
    if (i == 0) {
      in = tensor(0);
    } else {
      ok(strata_runtime_call_result_buffer_view(calls[i - 1], 0, &in),
         "previous result");
    }
    ok(strata_runtime_call_push_buffer_view(calls[i], in), "push");
    ok(strata_runtime_call_push_buffer_view(calls[i], y), "push");
    strata_hal_buffer_view_release(in);
    ok(strata_runtime_call_submit(
           calls[i],
           i == 0 ? gate : strata_runtime_call_signal_fence(calls[i - 1])),
       "submit");
  }
  int reached = 1;
  ok(strata_hal_fence_query(strata_runtime_call_signal_fence(calls[2]),
                            &reached),
     "query");
  if (reached) {
    die("the chain finished before its gate opened");
  }
  ok(strata_hal_fence_signal(gate), "open gate");
  ok(strata_hal_fence_wait(strata_runtime_call_signal_fence(calls[2]),
                           strata_hal_deadline_after_ns(30000000000ll)),
     "chain");
  strata_hal_fence_release(gate);
  {
    // Three times v = 2v + y from v = x, checked element-wise against the
    // same arithmetic in float.
    strata_hal_buffer_view_t* view = nullptr;
    ok(strata_runtime_call_result_buffer_view(calls[2], 0, &view), "chain");
    std::vector<float> got(kCount);
    ok(strata_runtime_buffer_view_to_host(view, got.data(),
                                          got.size() * sizeof(float)),
       "chain");
    strata_hal_buffer_view_release(view);
    for (size_t i = 0; i < kCount; ++i) {
      float e = static_cast<float>(i % 97);
      float v = e;
      for (int k = 0; k < 3; ++k) {
        v = 2 * v + (100 + e);
      }
      if (got[i] != v) {
        die("chain: element " + std::to_string(i) + " is " +
            std::to_string(got[i]) + ", expected " + std::to_string(v));
      }
    }
  }
  std::printf("submitted chain: ok\n");

  // A failed wait fence fails the call through its callback.
  ok(strata_hal_fence_create_pending(allocator, &gate), "gate");
  strata_runtime_call_reset(calls[0]);
  ok(strata_runtime_call_push_buffer_view(calls[0], x), "push");
  ok(strata_runtime_call_push_buffer_view(calls[0], y), "push");
  Outcome failed;
  ok(strata_runtime_call_invoke_async(calls[0], loop, gate, Outcome::callback,
                                      &failed),
     "invoke_async");
  strata_hal_fence_fail(gate, strata_make_status(STRATA_STATUS_ABORTED,
                                                 "upstream failed"));
  ok(strata_hal_loop_run(loop), "loop run");
  strata_hal_fence_release(gate);
  if (failed.calls != 1 ||
      failed.error.find("upstream failed") == std::string::npos) {
    die("a failed wait fence gave: '" + failed.error + "'");
  }
  std::printf("failed wait fence: ok\n");

  // A wrong shape fails inside the entry point, reported the same way.
  strata_hal_buffer_view_t* small = nullptr;
  const int64_t small_shape[2] = {2, 2};
  const float small_data[4] = {1, 2, 3, 4};
  ok(strata_runtime_buffer_view_from_host(STRATA_HAL_ELEMENT_TYPE_FLOAT_32,
                                          small_shape, 2, small_data,
                                          sizeof(small_data), allocator,
                                          &small),
     "small input");
  strata_runtime_call_reset(calls[0]);
  ok(strata_runtime_call_push_buffer_view(calls[0], x), "push");
  ok(strata_runtime_call_push_buffer_view(calls[0], small), "push");
  strata_hal_buffer_view_release(small);
  Outcome wrong;
  ok(strata_runtime_call_invoke_async(calls[0], loop, nullptr,
                                      Outcome::callback, &wrong),
     "invoke_async");
  ok(strata_hal_loop_run(loop), "loop run");
  if (wrong.calls != 1 || wrong.error.find("2x2") == std::string::npos) {
    die("a wrong shape gave: '" + wrong.error + "'");
  }
  std::printf("wrong shape: ok (%s)\n",
              wrong.error.substr(0, wrong.error.find('\n')).c_str());

  for (strata_runtime_call_t* c : calls) {
    strata_runtime_call_destroy(c);
  }
  strata_runtime_call_destroy(call);
  strata_hal_buffer_view_release(x);
  strata_hal_buffer_view_release(y);
  strata_hal_loop_destroy(loop);
  strata_runtime_session_release(session);
  strata_runtime_instance_release(instance);
  return 0;
}
