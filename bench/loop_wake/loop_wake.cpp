// loop_wake.cpp - wake-up latency: a fence signalled on one thread until the
// waiter runs on another. Through the loop (a fence wait's callback, and an
// invocation deferred on hal-style fence await resuming to completion),
// beside a thread blocked in strata_hal_fence_wait (a condition variable).
// Prints median/p90/p99 in microseconds; not a test.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.h"
#include "module_builder.h"
#include "strata/hal/loop.h"
#include "strata/hal/semaphore.h"
#include "strata/modules/hal/loop_invoke.h"
#include "strata/modules/hal/module.h"
#include "strata/vm/vm.h"

using namespace strata::vm;
using namespace strata::vm::testing;

namespace {

using strata::bench::median;
using strata::bench::nowNs;
using strata::bench::nowUs;

void check(strata_status_t status, const char* what) {
  strata::bench::checkOrExit("loop_wake", status, what);
}


// The signalling side: waits for round `round` to be armed, lets the waiter
// settle into its blocking call, stamps the time and signals.
struct Signaller {
  std::atomic<int> armed{-1};
  std::atomic<int> stop{0};
  strata_hal_fence_t* fence = nullptr;  // of the armed round
  int64_t signalled_at = 0;

  // Hands the signaller a reference: the waiter may be done with the fence
  // before signal returns.
  void arm(int round, strata_hal_fence_t* f) {
    strata_hal_fence_retain(f);
    fence = f;
    armed.store(round, std::memory_order_release);
  }
  void run(int rounds) {
    for (int round = 0; round < rounds; ++round) {
      while (armed.load(std::memory_order_acquire) != round) {
      }
      // The waiter re-arms as soon as it wakes: read the fence first.
      strata_hal_fence_t* f = fence;
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      signalled_at = strata_hal_now_ns();
      check(strata_hal_fence_signal(f), "signal");
      strata_hal_fence_release(f);
    }
  }
};

struct Stats {
  std::vector<double> us;
  void print(const char* name) {
    std::sort(us.begin(), us.end());
    auto at = [&](double q) {
      return us[std::min(us.size() - 1, static_cast<size_t>(q * us.size()))];
    };
    std::printf("%-44s median %7.2f us   p90 %7.2f us   p99 %7.2f us\n", name,
                at(0.5), at(0.9), at(0.99));
  }
};

// A fence wait on the loop: signal -> callback on the loop thread.
Stats loopFenceWait(int rounds) {
  strata_hal_loop_t* loop = nullptr;
  check(strata_hal_loop_create(strata_allocator_system(), &loop), "loop");
  Signaller signaller;
  std::thread thread([&] { signaller.run(rounds); });
  Stats stats;
  for (int round = 0; round < rounds; ++round) {
    strata_hal_fence_t* fence = nullptr;
    check(strata_hal_fence_create_pending(strata_allocator_system(), &fence),
          "fence");
    int64_t called_at = 0;
    check(strata_hal_loop_wait_fence(
              loop, fence, STRATA_HAL_INFINITE_FUTURE,
              [](void* user, strata_status_t status) {
                check(status, "fence wait");
                *static_cast<int64_t*>(user) = strata_hal_now_ns();
              },
              &called_at),
          "wait_fence");
    signaller.arm(round, fence);
    check(strata_hal_loop_run(loop), "run");
    stats.us.push_back((called_at - signaller.signalled_at) / 1000.0);
    strata_hal_fence_release(fence);
  }
  thread.join();
  strata_hal_loop_destroy(loop);
  return stats;
}

// The peer: a thread blocked in strata_hal_fence_wait.
Stats blockingFenceWait(int rounds) {
  Signaller signaller;
  std::thread thread([&] { signaller.run(rounds); });
  Stats stats;
  for (int round = 0; round < rounds; ++round) {
    strata_hal_fence_t* fence = nullptr;
    check(strata_hal_fence_create_pending(strata_allocator_system(), &fence),
          "fence");
    signaller.arm(round, fence);
    check(strata_hal_fence_wait(fence, STRATA_HAL_INFINITE_FUTURE), "wait");
    int64_t woke_at = strata_hal_now_ns();
    stats.us.push_back((woke_at - signaller.signalled_at) / 1000.0);
    strata_hal_fence_release(fence);
  }
  thread.join();
  return stats;
}

// A native "await" that defers on its fence argument, the way hal.fence.await
// does, and an app whose main awaits and returns.
strata_status_t awaitFence(strata_vm_native_call_t* call, void*, void*,
                           const strata_vm_value_t* args, size_t,
                           strata_vm_value_t* results, size_t) {
  strata_hal_fence_t* fence = strata_hal_fence_from_ref(args[0].ref);
  int reached = 0;
  STRATA_RETURN_IF_ERROR(strata_hal_fence_query(fence, &reached));
  if (reached) {
    results[0].i32 = 1;
    return nullptr;
  }
  strata_vm_native_call_set_wait(
      call, strata_hal_fence_make_vm_wait(fence, STRATA_HAL_INFINITE_FUTURE));
  return strata_status_deferred();
}

const strata_vm_native_function_t kFunctions[] = {
    {"await", "0r_i", awaitFence}};
const strata_vm_native_module_descriptor_t kModule = {
    "bench", 1, nullptr, 0, kFunctions, 1, nullptr, nullptr, nullptr};

// An invocation deferred on a fence: signal -> resumed, completed, callback.
Stats loopInvocationResume(int rounds) {
  strata_vm_instance_t* instance = nullptr;
  check(strata_vm_instance_create(strata_allocator_system(), &instance),
        "instance");
  check(strata_vm_instance_register_type(instance, strata_hal_fence_type()),
        "type");
  strata_vm_module_t* native = nullptr;
  check(strata_vm_native_module_create(&kModule, nullptr,
                                       strata_allocator_system(), &native),
        "native module");
  ModuleBuilder mb("app");
  uint32_t await = mb.addImport("bench.await", "0r_i");
  auto& f = mb.addFunction("main", "0r_i");
  f.op(Opcode::CallImport).u32(await).list({ref(0)}).list({prim(0)});
  f.op(Opcode::Return).list({prim(0)});
  mb.addExport("main", f.index());
  std::vector<uint8_t> bytes = mb.build();
  strata_vm_module_t* app = nullptr;
  check(strata_vm_bytecode_module_load(instance, bytes.data(), bytes.size(),
                                       nullptr, nullptr,
                                       strata_allocator_system(), &app),
        "load");
  strata_vm_module_t* modules[] = {native, app};
  strata_vm_context_t* context = nullptr;
  check(strata_vm_context_create(instance, modules, 2, nullptr,
                                 strata_allocator_system(), &context),
        "context");
  strata_vm_function_t main_fn;
  check(strata_vm_context_lookup(context, "app.main", &main_fn), "lookup");
  strata_hal_loop_t* loop = nullptr;
  check(strata_hal_loop_create(strata_allocator_system(), &loop), "loop");
  Signaller signaller;
  std::thread thread([&] { signaller.run(rounds); });
  Stats stats;
  for (int round = 0; round < rounds; ++round) {
    strata_hal_fence_t* fence = nullptr;
    check(strata_hal_fence_create_pending(strata_allocator_system(), &fence),
          "fence");
    strata_vm_list_t* inputs = nullptr;
    check(strata_vm_list_create(1, strata_allocator_system(), &inputs), "list");
    check(strata_vm_list_push(
              inputs, strata_vm_variant_ref(strata_hal_fence_as_ref(fence))),
          "push");
    int64_t done_at = 0;
    check(
        strata_hal_loop_invoke(
            loop, context, main_fn, inputs, strata_allocator_system(),
            [](void* user, strata_status_t status, strata_vm_list_t* outputs) {
              check(status, "invocation");
              strata_vm_list_release(outputs);
              *static_cast<int64_t*>(user) = strata_hal_now_ns();
            },
            &done_at),
        "invoke");
    strata_vm_list_release(inputs);
    // Let the invocation start and defer before arming the signaller.
    int more = 0;
    check(strata_hal_loop_run_nowait(loop, &more), "run_nowait");
    signaller.arm(round, fence);
    check(strata_hal_loop_run(loop), "run");
    stats.us.push_back((done_at - signaller.signalled_at) / 1000.0);
    strata_hal_fence_release(fence);
  }
  thread.join();
  strata_hal_loop_destroy(loop);
  strata_vm_context_release(context);
  strata_vm_module_release(app);
  strata_vm_module_release(native);
  strata_vm_instance_release(instance);
  return stats;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 1000;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--rounds=", 9) == 0) {
      rounds = std::max(1, std::atoi(argv[i] + 9));
    } else {
      std::fprintf(stderr, "usage: loop_wake [--rounds=N]\n");
      return 2;
    }
  }
  std::printf("wake-up latency, signal on another thread -> waiter runs "
              "(%d rounds)\n",
              rounds);
  loopFenceWait(rounds).print("loop: fence wait callback");
  loopInvocationResume(rounds).print("loop: deferred invocation resumed+done");
  blockingFenceWait(rounds).print("peer: thread blocked in fence_wait");
  return 0;
}
