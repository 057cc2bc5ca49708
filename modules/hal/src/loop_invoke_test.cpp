// loop_invoke_test.cpp - VM invocations on the loop: the scheduler core
// driven deterministically by a fake backend, then the libuv loop running
// invocations that defer on fences signalled, failed or left to time out by
// other threads.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "loop_testing.h"
#include "module_builder.h"
#include "strata/modules/hal/loop_invoke.h"
#include "strata/modules/hal/module.h"
#include "vm_harness.h"

using namespace strata::hal;
using namespace strata::hal::testing;
using namespace strata::vm;
using strata::vm::testing::Harness;
using strata::vm::testing::ModuleBuilder;
using strata::vm::testing::prim;
using strata::vm::testing::ref;

namespace {

//===--------------------------------------------------------------------===//
// A native module "fences" and a bytecode module "app" that calls it
//===--------------------------------------------------------------------===//

struct FencesModule {
  std::atomic<int> timeouts_seen{0};
  std::atomic<int> calls{0};
};

// fences.await(fence, timeout_ms) -> 7 when reached, -1 when timed out; a
// failed fence fails the call with the fence's status.
strata_status_t fencesAwait(strata_vm_native_call_t* call, void* self, void*,
                            const strata_vm_value_t* args, size_t,
                            strata_vm_value_t* results, size_t) {
  auto* module = static_cast<FencesModule*>(self);
  module->calls.fetch_add(1);
  strata_hal_fence_t* fence = strata_hal_fence_from_ref(args[0].ref);
  if (!fence) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "fences.await needs a hal.fence");
  }
  if (strata_vm_native_call_timed_out(call)) {
    module->timeouts_seen.fetch_add(1);
    results[0].i32 = -1;
    return nullptr;
  }
  int reached = 0;
  STRATA_RETURN_IF_ERROR(strata_hal_fence_query(fence, &reached));
  if (reached) {
    results[0].i32 = 7;
    return nullptr;
  }
  int32_t timeout_ms = args[1].i32;
  strata_vm_native_call_set_wait(
      call, strata_hal_fence_make_vm_wait(
                fence, timeout_ms < 0 ? STRATA_HAL_INFINITE_FUTURE
                                      : strata_hal_deadline_after_ns(
                                            timeout_ms * 1000000LL)));
  return strata_status_deferred();
}

strata_status_t blockOnly(void* user, int64_t deadline_ns) {
  return strata_hal_fence_wait(static_cast<strata_hal_fence_t*>(user),
                               deadline_ns);
}

// fences.block(fence) -> i: defers with a wait that can only block.
strata_status_t fencesBlock(strata_vm_native_call_t* call, void*, void*,
                            const strata_vm_value_t* args, size_t,
                            strata_vm_value_t* results, size_t) {
  strata_hal_fence_t* fence = strata_hal_fence_from_ref(args[0].ref);
  int reached = 0;
  STRATA_RETURN_IF_ERROR(strata_hal_fence_query(fence, &reached));
  if (reached) {
    results[0].i32 = 1;
    return nullptr;
  }
  strata_vm_wait_t wait{};
  wait.wait = blockOnly;
  wait.user = fence;
  strata_vm_native_call_set_wait(call, wait);
  return strata_status_deferred();
}

// fences.never() -> i: defers and registers no wait at all.
strata_status_t fencesNever(strata_vm_native_call_t*, void*, void*,
                            const strata_vm_value_t*, size_t,
                            strata_vm_value_t*, size_t) {
  return strata_status_deferred();
}

const strata_vm_native_function_t kFencesFunctions[] = {
    {"await", "0ri_i", fencesAwait},
    {"block", "0r_i", fencesBlock},
    {"never", "0_i", fencesNever},
};
const strata_vm_native_module_descriptor_t kFences = {
    "fences", 1, nullptr, 0, kFencesFunctions, 3, nullptr, nullptr, nullptr};

void buildApp(ModuleBuilder& mb) {
  uint32_t await = mb.addImport("fences.await", "0ri_i");
  uint32_t block = mb.addImport("fences.block", "0r_i");
  uint32_t never = mb.addImport("fences.never", "0_i");
  {
    auto& f = mb.addFunction("stuck", "0_i");
    f.op(Opcode::CallImport).u32(never).list({}).list({prim(0)});
    f.op(Opcode::Return).list({prim(0)});
    mb.addExport("stuck", f.index());
  }
  {
    // main(fence, x, timeout_ms) = 2 * x + fences.await(fence, timeout_ms)
    auto& f = mb.addFunction("main", "0rii_i");
    f.op(Opcode::CallImport).u32(await).list({ref(0), prim(1)}).list({prim(2)});
    f.op(Opcode::AddI32).reg(prim(0)).reg(prim(0)).reg(prim(3));
    f.op(Opcode::AddI32).reg(prim(3)).reg(prim(2)).reg(prim(3));
    f.op(Opcode::Return).list({prim(3)});
    mb.addExport("main", f.index());
  }
  {
    auto& f = mb.addFunction("blocking", "0r_i");
    f.op(Opcode::CallImport).u32(block).list({ref(0)}).list({prim(0)});
    f.op(Opcode::Return).list({prim(0)});
    mb.addExport("blocking", f.index());
  }
  {
    // count(n): yields n times, returns n.
    auto& f = mb.addFunction("count", "0i_i");
    uint32_t loop = f.newBlock(), body = f.newBlock(), done = f.newBlock();
    f.op(Opcode::ConstI32).i32(0).reg(prim(1));
    f.op(Opcode::ConstI32).i32(1).reg(prim(2));
    f.op(Opcode::Br).block(loop).remap({});
    f.bind(loop);
    f.op(Opcode::CmpLtSI32).reg(prim(1)).reg(prim(0)).reg(prim(3));
    f.op(Opcode::CondBr)
        .reg(prim(3))
        .block(body)
        .remap({})
        .block(done)
        .remap({});
    f.bind(body);
    f.op(Opcode::AddI32).reg(prim(1)).reg(prim(2)).reg(prim(4));
    f.op(Opcode::Yield).block(loop).remap({{prim(4), prim(1)}});
    f.bind(done);
    f.op(Opcode::Return).list({prim(1)});
    mb.addExport("count", f.index());
  }
}

struct App {
  App() {
    REQUIRE(strata_vm_instance_register_type(
                h.instance, strata_hal_fence_type()) == nullptr);
    strata_vm_module_t* native = nullptr;
    REQUIRE(strata_vm_native_module_create(&kFences, &fences,
                                           strata_allocator_system(),
                                           &native) == nullptr);
    h.add(native);
    ModuleBuilder mb("app");
    buildApp(mb);
    Status load(h.load(mb));
    REQUIRE_MESSAGE(load.ok(), load.text);
    Status link(h.link());
    REQUIRE_MESSAGE(link.ok(), link.text);
    REQUIRE(h.lookup("app.main", &main) == nullptr);
    REQUIRE(h.lookup("app.blocking", &blocking) == nullptr);
    REQUIRE(h.lookup("app.count", &count) == nullptr);
    REQUIRE(h.lookup("app.stuck", &stuck) == nullptr);
  }
  FencesModule fences;
  Harness h;
  strata_vm_function_t main{}, blocking{}, count{}, stuck{};
};

strata_vm_list_t* mainInputs(strata_hal_fence_t* fence, int32_t x,
                             int32_t timeout_ms) {
  strata_vm_list_t* list = nullptr;
  REQUIRE(strata_vm_list_create(3, strata_allocator_system(), &list) ==
          nullptr);
  REQUIRE(strata_vm_list_push(
              list, strata_vm_variant_ref(strata_hal_fence_as_ref(fence))) ==
          nullptr);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_i32(x)) == nullptr);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_i32(timeout_ms)) ==
          nullptr);
  return list;
}

strata_vm_list_t* i32Inputs(int32_t x) {
  strata_vm_list_t* list = nullptr;
  REQUIRE(strata_vm_list_create(1, strata_allocator_system(), &list) ==
          nullptr);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_i32(x)) == nullptr);
  return list;
}

void onInvoked(void* user, strata_status_t status, strata_vm_list_t* outputs) {
  auto* o = static_cast<Outcome*>(user);
  recordOutcome(o, status);
  if (outputs) {
    strata_vm_variant_t v;
    if (strata_vm_list_get(outputs, 0, &v) == nullptr) {
      o->value = v.value.i32;
    }
  }
  strata_vm_list_release(outputs);
}

}  // namespace

TEST_SUITE("hal.loop") {
TEST_CASE("core: a timed-out invocation reruns its deferred call marked") {
  CountingAllocator counting;
  App app;
  {
    FakeLoop fx(counting.get());
    strata_hal_fence_t* fence = pendingFence(counting.get());
    // The deadline is real time (the native function computes it), so let
    // the fake clock jump far past it.
    strata_vm_list_t* inputs = mainInputs(fence, 5, 1000);
    Outcome o;
    REQUIRE(strata_hal_loop_invoke(fx.loop, app.h.context, app.main, inputs,
                                   counting.get(), onInvoked, &o) == nullptr);
    strata_vm_list_release(inputs);
    fx.turn();
    CHECK(o.calls == 0);
    CHECK(fx.fake->timer != INT64_MAX);
    fx.fake->now = fx.fake->timer;
    fx.turn();
    CHECK(o.calls == 1);
    CHECK(o.code == STRATA_STATUS_OK);
    CHECK(o.value == 2 * 5 - 1);
    CHECK(app.fences.timeouts_seen == 1);
    CHECK(strata_hal_fence_signal(fence) == nullptr);
    CHECK(refs(fence) == 1);
    strata_hal_fence_release(fence);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE("core: vm.yield resumes once per loop iteration") {
  CountingAllocator counting;
  App app;
  {
    FakeLoop fx(counting.get());
    strata_vm_list_t* inputs = i32Inputs(3);
    Outcome o;
    REQUIRE(strata_hal_loop_invoke(fx.loop, app.h.context, app.count, inputs,
                                   counting.get(), onInvoked, &o) == nullptr);
    strata_vm_list_release(inputs);
    // Turn 1 starts it (first yield) and resumes it once from idle.
    fx.turn();
    CHECK(o.calls == 0);
    CHECK(fx.fake->idle);
    fx.turn();
    CHECK(o.calls == 0);
    fx.turn();
    CHECK(o.calls == 1);
    CHECK(o.value == 3);
    CHECK_FALSE(fx.fake->idle);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE("core: destroy cancels every operation in flight and leaks nothing") {
  CountingAllocator counting;
  App app;
  strata_hal_fence_t* fence = pendingFence(counting.get());
  Outcome waiting, invoked, yielding, unstarted;
  {
    FakeLoop fx(counting.get());
    REQUIRE(strata_hal_loop_wait_fence(fx.loop, fence, 1000000, onFence,
                                       &waiting) == nullptr);
    strata_vm_list_t* inputs = mainInputs(fence, 1, -1);
    REQUIRE(strata_hal_loop_invoke(fx.loop, app.h.context, app.main, inputs,
                                   counting.get(), onInvoked,
                                   &invoked) == nullptr);
    strata_vm_list_release(inputs);
    inputs = i32Inputs(1000);
    REQUIRE(strata_hal_loop_invoke(fx.loop, app.h.context, app.count, inputs,
                                   counting.get(), onInvoked,
                                   &yielding) == nullptr);
    fx.turn();
    REQUIRE(strata_hal_loop_invoke(fx.loop, app.h.context, app.count, inputs,
                                   counting.get(), onInvoked,
                                   &unstarted) == nullptr);
    strata_vm_list_release(inputs);
    CHECK(strata_hal_loop_in_flight(fx.loop) == 4);
    CHECK(refs(fence) > 1);
  }
  for (Outcome* o : {&waiting, &invoked, &yielding, &unstarted}) {
    CHECK(o->calls == 1);
    CHECK(o->code == STRATA_STATUS_CANCELLED);
    CHECK(o->text.find("the loop was destroyed") != std::string::npos);
  }
  CHECK(refs(fence) == 1);
  // The fence outlives the loop: signalling it now touches nothing freed.
  CHECK(strata_hal_fence_signal(fence) == nullptr);
  strata_hal_fence_release(fence);
  CHECK(counting.live() == 0);
}

TEST_CASE(
    "an invocation deferring on a fence resumes when another thread "
    "signals it") {
  CountingAllocator counting;
  App app;
  {
    Loop loop(counting.get());
    strata_hal_fence_t* fence = pendingFence(counting.get());
    strata_vm_list_t* inputs = mainInputs(fence, 20, -1);
    Outcome o;
    REQUIRE(strata_hal_loop_invoke(loop, app.h.context, app.main, inputs,
                                   counting.get(), onInvoked, &o) == nullptr);
    strata_vm_list_release(inputs);  // copied by invoke
    std::thread signaller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      CHECK(strata_hal_fence_signal(fence) == nullptr);
    });
    CHECK(runUntil(loop, [&] { return o.calls == 1; }));
    signaller.join();
    CHECK(o.code == STRATA_STATUS_OK);
    CHECK(o.value == 2 * 20 + 7);
    CHECK(bool(o.thread == std::this_thread::get_id()));
    CHECK(app.fences.calls == 2);  // deferred once, then ran again
    CHECK(refs(fence) == 1);
    strata_hal_fence_release(fence);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE(
    "one loop runs 1000 invocations, 64 in flight, fences signalled "
    "elsewhere") {
  constexpr int kTotal = 1000;
  constexpr int kInFlight = 64;
  CountingAllocator counting;
  App app;
  {
    Loop loop(counting.get());
    struct Run {
      strata_hal_loop_t* loop;
      App* app;
      CountingAllocator* counting;
      Signaller* signaller;
      int submitted = 0;
      int completed = 0;
      int max_in_flight = 0;
      std::vector<Outcome> outcomes = std::vector<Outcome>(kTotal);
    };
    Signaller signaller;
    Run run{loop, &app, &counting, &signaller};
    struct Submit {
      static void next(Run* run) {
        int i = run->submitted++;
        strata_hal_fence_t* fence = pendingFence(run->counting->get());
        strata_vm_list_t* inputs = mainInputs(fence, i, -1);
        struct Context {
          Run* run;
          int i;
        };
        auto* context = new Context{run, i};
        REQUIRE(strata_hal_loop_invoke(
                    run->loop, run->app->h.context, run->app->main, inputs,
                    run->counting->get(),
                    [](void* user, strata_status_t status,
                       strata_vm_list_t* outputs) {
                      auto* c = static_cast<Context*>(user);
                      Run* run = c->run;
                      onInvoked(&run->outcomes[c->i], status, outputs);
                      ++run->completed;
                      delete c;
                      if (run->submitted < kTotal) {
                        next(run);
                      }
                    },
                    context) == nullptr);
        strata_vm_list_release(inputs);
        run->signaller->add(fence);
        strata_hal_fence_release(fence);
        run->max_in_flight =
            std::max(run->max_in_flight,
                     static_cast<int>(strata_hal_loop_in_flight(run->loop)));
      }
    };
    for (int i = 0; i < kInFlight; ++i) {
      Submit::next(&run);
    }
    CHECK(runUntil(loop, [&] { return run.completed == kTotal; }, 30000));
    CHECK(run.completed == kTotal);
    CHECK(run.max_in_flight == kInFlight + 1);  // and runUntil's watchdog
    int wrong = 0;
    for (int i = 0; i < kTotal; ++i) {
      const Outcome& o = run.outcomes[i];
      if (o.calls != 1 || o.code != STRATA_STATUS_OK || o.value != 2 * i + 7) {
        ++wrong;
      }
    }
    CHECK(wrong == 0);
    CHECK(strata_hal_loop_in_flight(loop) == 0);
  }
  // Every fence, semaphore, subscription, invocation, task and output list.
  CHECK(counting.live() == 0);
}

TEST_CASE(
    "a failing fence fails its invocation with its error; the others "
    "complete") {
  CountingAllocator counting;
  App app;
  {
    Loop loop(counting.get());
    Signaller signaller;
    constexpr int kCount = 16;
    std::vector<Outcome> outcomes(kCount);
    for (int i = 0; i < kCount; ++i) {
      strata_hal_fence_t* fence = pendingFence(counting.get());
      strata_vm_list_t* inputs = mainInputs(fence, i, 10000);
      REQUIRE(strata_hal_loop_invoke(loop, app.h.context, app.main, inputs,
                                     counting.get(), onInvoked,
                                     &outcomes[i]) == nullptr);
      strata_vm_list_release(inputs);
      signaller.add(fence, /*fail=*/i == 5);
      strata_hal_fence_release(fence);
    }
    CHECK(runUntil(loop, [&] {
      return std::all_of(outcomes.begin(), outcomes.end(),
                         [](const Outcome& o) { return o.calls == 1; });
    }));
    for (int i = 0; i < kCount; ++i) {
      CAPTURE(i);
      if (i == 5) {
        CHECK(outcomes[i].code == STRATA_STATUS_INTERNAL);
        CHECK(outcomes[i].text.find("kernel failed on tile 3") !=
              std::string::npos);
        CHECK(outcomes[i].text.find("at dispatch matmul[2]") !=
              std::string::npos);
        CHECK(outcomes[i].text.find("at app.main") != std::string::npos);
      } else {
        CHECK(outcomes[i].code == STRATA_STATUS_OK);
        CHECK(outcomes[i].value == 2 * i + 7);
      }
    }
  }
  CHECK(counting.live() == 0);
}

TEST_CASE(
    "an invocation's timeout is honoured and the late signal does no harm") {
  CountingAllocator counting;
  App app;
  {
    Loop loop(counting.get());
    strata_hal_fence_t* slow = pendingFence(counting.get());
    strata_hal_fence_t* quick = pendingFence(counting.get());
    Outcome timed_out, on_time;
    int64_t start = strata_hal_now_ns();
    strata_vm_list_t* inputs = mainInputs(slow, 3, 40);
    REQUIRE(strata_hal_loop_invoke(loop, app.h.context, app.main, inputs,
                                   counting.get(), onInvoked,
                                   &timed_out) == nullptr);
    strata_vm_list_release(inputs);
    inputs = mainInputs(quick, 4, 5000);
    REQUIRE(strata_hal_loop_invoke(loop, app.h.context, app.main, inputs,
                                   counting.get(), onInvoked,
                                   &on_time) == nullptr);
    strata_vm_list_release(inputs);
    std::thread signaller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      CHECK(strata_hal_fence_signal(quick) == nullptr);
    });
    CHECK(runUntil(loop, [&] { return timed_out.calls && on_time.calls; }));
    signaller.join();
    int64_t elapsed_ms = (timed_out.at_ns - start) / 1000000;
    CHECK(timed_out.code == STRATA_STATUS_OK);
    CHECK(timed_out.value == 2 * 3 - 1);  // the function saw timed_out
    CHECK(app.fences.timeouts_seen == 1);
    CHECK(elapsed_ms >= 40);
    CHECK(elapsed_ms < 1000);
    CHECK(on_time.value == 2 * 4 + 7);
    // The late signal: nothing is subscribed any more.
    CHECK(refs(slow) == 1);
    CHECK(strata_hal_fence_signal(slow) == nullptr);
    CHECK(strata_hal_loop_run(loop) == nullptr);
    CHECK(timed_out.calls == 1);
    strata_hal_fence_release(slow);
    strata_hal_fence_release(quick);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE(
    "a deferral whose wait can only block fails instead of blocking the loop") {
  App app;
  Loop loop;
  strata_hal_fence_t* fence = pendingFence(strata_allocator_system());
  strata_vm_list_t* inputs = nullptr;
  REQUIRE(strata_vm_list_create(1, strata_allocator_system(), &inputs) ==
          nullptr);
  REQUIRE(strata_vm_list_push(
              inputs, strata_vm_variant_ref(strata_hal_fence_as_ref(fence))) ==
          nullptr);
  Outcome o;
  REQUIRE(strata_hal_loop_invoke(loop, app.h.context, app.blocking, inputs,
                                 strata_allocator_system(), onInvoked,
                                 &o) == nullptr);
  strata_vm_list_release(inputs);
  CHECK(runUntil(loop, [&] { return o.calls == 1; }));
  CHECK(o.code == STRATA_STATUS_FAILED_PRECONDITION);
  CHECK(o.text.find("can only block") != std::string::npos);
  CHECK(refs(fence) == 1);
  strata_hal_fence_release(fence);
}

TEST_CASE("a deferral without any wait fails instead of spinning the loop") {
  App app;
  Loop loop;
  Outcome o;
  REQUIRE(strata_hal_loop_invoke(loop, app.h.context, app.stuck, nullptr,
                                 strata_allocator_system(), onInvoked,
                                 &o) == nullptr);
  CHECK(runUntil(loop, [&] { return o.calls == 1; }));
  CHECK(o.code == STRATA_STATUS_FAILED_PRECONDITION);
  CHECK(o.text.find("deferred without a wait") != std::string::npos);
}

TEST_CASE("vm.yield completes on the libuv loop") {
  App app;
  Loop loop;
  strata_vm_list_t* inputs = i32Inputs(50);
  Outcome o;
  REQUIRE(strata_hal_loop_invoke(loop, app.h.context, app.count, inputs,
                                 strata_allocator_system(), onInvoked,
                                 &o) == nullptr);
  strata_vm_list_release(inputs);
  CHECK(runUntil(loop, [&] { return o.calls == 1; }));
  CHECK(o.value == 50);
}

TEST_CASE("destroying a libuv loop with invocations in flight cancels them") {
  CountingAllocator counting;
  App app;
  constexpr int kCount = 8;
  std::vector<Outcome> outcomes(kCount);
  std::vector<strata_hal_fence_t*> fences;
  {
    Loop loop(counting.get());
    for (int i = 0; i < kCount; ++i) {
      strata_hal_fence_t* fence = pendingFence(counting.get());
      fences.push_back(fence);
      strata_vm_list_t* inputs = mainInputs(fence, i, i % 2 ? 60000 : -1);
      REQUIRE(strata_hal_loop_invoke(loop, app.h.context, app.main, inputs,
                                     counting.get(), onInvoked,
                                     &outcomes[i]) == nullptr);
      strata_vm_list_release(inputs);
    }
    int more = 0;
    REQUIRE(strata_hal_loop_run_nowait(loop, &more) == nullptr);
    CHECK(more == 1);
    // Races the destroy below: some notifies are already on their way.
    std::thread signaller([&] {
      for (int i = 0; i < kCount; i += 2) {
        CHECK(strata_hal_fence_signal(fences[i]) == nullptr);
      }
    });
    signaller.join();
  }
  for (const Outcome& o : outcomes) {
    CHECK(o.calls == 1);
    CHECK(o.code == STRATA_STATUS_CANCELLED);
  }
  for (strata_hal_fence_t* fence : fences) {
    CHECK(refs(fence) == 1);
    strata_hal_fence_release(fence);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE("other threads submit invocations while the loop runs") {
  CountingAllocator counting;
  App app;
  {
    Loop loop(counting.get());
    constexpr int kThreads = 4;
    constexpr int kPerThread = 50;
    std::vector<Outcome> outcomes(kThreads * kPerThread);
    std::atomic<int> done{0};
    struct Context {
      Outcome* outcome;
      std::atomic<int>* done;
    };
    std::vector<Context> contexts(outcomes.size());
    std::vector<std::thread> submitters;
    for (int t = 0; t < kThreads; ++t) {
      submitters.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          int k = t * kPerThread + i;
          contexts[k] = {&outcomes[k], &done};
          strata_hal_fence_t* fence = pendingFence(counting.get());
          strata_vm_list_t* inputs = mainInputs(fence, k, -1);
          strata_status_t s = strata_hal_loop_invoke(
              loop, app.h.context, app.main, inputs, counting.get(),
              [](void* user, strata_status_t status,
                 strata_vm_list_t* outputs) {
                auto* c = static_cast<Context*>(user);
                onInvoked(c->outcome, status, outputs);
                c->done->fetch_add(1);
              },
              &contexts[k]);
          CHECK(s == nullptr);
          strata_vm_list_release(inputs);
          CHECK(strata_hal_fence_signal(fence) == nullptr);
          strata_hal_fence_release(fence);
        }
      });
    }
    CHECK(runUntil(loop, [&] { return done.load() == kThreads * kPerThread; }));
    for (std::thread& t : submitters) {
      t.join();
    }
    CHECK(strata_hal_loop_run(loop) == nullptr);
    for (size_t k = 0; k < outcomes.size(); ++k) {
      CHECK(outcomes[k].value == 2 * static_cast<int>(k) + 7);
    }
  }
  CHECK(counting.live() == 0);
}

TEST_CASE("invoke with bad inputs fails at once and never calls back") {
  App app;
  Loop loop;
  strata_vm_list_t* inputs = i32Inputs(1);  // main wants (fence, i, i)
  Outcome o;
  Status s(strata_hal_loop_invoke(loop, app.h.context, app.main, inputs,
                                  strata_allocator_system(), onInvoked, &o));
  strata_vm_list_release(inputs);
  CHECK_FALSE(s.ok());
  CHECK(strata_hal_loop_in_flight(loop) == 0);
  CHECK(strata_hal_loop_run(loop) == nullptr);
  CHECK(o.calls == 0);
}
}
