// loop_test.cpp - the loop: the scheduler core driven deterministically by
// a fake backend (fence waits, and operations that yield, wait on fences
// and time out), then the libuv loop waiting on fences signalled, failed or
// left to time out by other threads. Operations that run VM invocations are
// tested with them, in modules/hal/src/loop_invoke_test.cpp.
#include <doctest/doctest.h>

#include <thread>

#include "loop_testing.h"

using namespace strata::hal;
using namespace strata::hal::testing;

namespace {

// A loop operation scripted by the test: it yields `yields` times, then
// waits on `fence` (when given) through the fence's notify subscriptions,
// then finishes with `finish_code` (or DEADLINE_EXCEEDED when its wait
// timed out). Records its steps and its outcome.
struct ScriptedOp {
  int yields = 0;
  strata_hal_fence_t* fence = nullptr;  // borrowed
  int64_t deadline_ns = 0;
  bool waited = false;
  bool drop_unsubscribe = false;
  strata_status_code_t finish_code = STRATA_STATUS_OK;
  int steps = 0;
  int timed_out_steps = 0;
  Outcome outcome;

  strata_hal_loop_op_t op() {
    strata_hal_loop_op_t op{};
    op.step = step;
    op.complete = complete;
    op.user = this;
    return op;
  }

  static strata_status_t subscribe(void* user, strata_hal_notify_fn_t notify,
                                   void* notify_user, void** out_token) {
    strata_hal_fence_token_t token = 0;
    strata_status_t status = strata_hal_fence_subscribe_notify(
        static_cast<strata_hal_fence_t*>(user), notify, notify_user, &token);
    *out_token = reinterpret_cast<void*>(static_cast<uintptr_t>(token));
    return status;
  }
  static int unsubscribe(void* user, void* token) {
    return strata_hal_fence_unsubscribe(
        static_cast<strata_hal_fence_t*>(user),
        static_cast<strata_hal_fence_token_t>(
            reinterpret_cast<uintptr_t>(token)));
  }
  static strata_hal_loop_step_t step(void* user, int timed_out,
                                     strata_hal_loop_wait_t* out_wait,
                                     strata_status_t* out_status) {
    auto* self = static_cast<ScriptedOp*>(user);
    ++self->steps;
    if (timed_out) {
      ++self->timed_out_steps;
      *out_status = strata_make_status(STRATA_STATUS_DEADLINE_EXCEEDED,
                                       "scripted op timed out");
      return STRATA_HAL_LOOP_STEP_DONE;
    }
    if (self->yields > 0) {
      --self->yields;
      return STRATA_HAL_LOOP_STEP_YIELD;
    }
    if (self->fence && !self->waited) {
      self->waited = true;
      out_wait->subscribe = subscribe;
      out_wait->unsubscribe = self->drop_unsubscribe ? nullptr : unsubscribe;
      out_wait->user = self->fence;
      out_wait->deadline_ns = self->deadline_ns;
      return STRATA_HAL_LOOP_STEP_WAIT;
    }
    if (self->finish_code != STRATA_STATUS_OK) {
      *out_status = strata_make_status(self->finish_code, "scripted failure");
    }
    return STRATA_HAL_LOOP_STEP_DONE;
  }
  static void complete(void* user, strata_status_t status) {
    recordOutcome(&static_cast<ScriptedOp*>(user)->outcome, status);
  }
};

}  // namespace

TEST_SUITE("hal.loop") {
TEST_CASE("core: a resolved fence calls back only when the loop turns") {
  CountingAllocator counting;
  {
    FakeLoop fx(counting.get());
    strata_hal_fence_t* fence = pendingFence(counting.get());
    Outcome o;
    REQUIRE(strata_hal_loop_wait_fence(fx.loop, fence,
                                       STRATA_HAL_INFINITE_FUTURE, onFence,
                                       &o) == nullptr);
    CHECK(strata_hal_loop_in_flight(fx.loop) == 1);
    CHECK(fx.fake->woken.load());  // submitted from off the loop thread
    fx.turn();
    CHECK(o.calls == 0);
    CHECK(fx.fake->alive);
    CHECK(strata_hal_fence_signal(fence) == nullptr);
    CHECK(o.calls == 0);  // the signalling thread only queued it
    CHECK(fx.fake->woken.load());
    fx.turn();
    CHECK(o.calls == 1);
    CHECK(o.code == STRATA_STATUS_OK);
    CHECK(strata_hal_loop_in_flight(fx.loop) == 0);
    CHECK_FALSE(fx.fake->alive);
    CHECK(refs(fence) == 1);
    strata_hal_fence_release(fence);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE("core: deadlines arm the timer earliest first and expire on it") {
  CountingAllocator counting;
  {
    FakeLoop fx(counting.get());
    strata_hal_fence_t* a = pendingFence(counting.get());
    strata_hal_fence_t* b = pendingFence(counting.get());
    Outcome oa, ob;
    REQUIRE(strata_hal_loop_wait_fence(fx.loop, a, 500, onFence, &oa) ==
            nullptr);
    REQUIRE(strata_hal_loop_wait_fence(fx.loop, b, 300, onFence, &ob) ==
            nullptr);
    fx.turn();
    CHECK(fx.fake->timer == 300);
    fx.fake->now = 299;
    fx.turn();
    CHECK(ob.calls == 0);
    fx.fake->now = 300;
    fx.turn();
    CHECK(ob.calls == 1);
    CHECK(ob.code == STRATA_STATUS_DEADLINE_EXCEEDED);
    CHECK(fx.fake->timer == 500);
    // The late signal finds nothing subscribed.
    CHECK(strata_hal_fence_signal(b) == nullptr);
    fx.turn();
    CHECK(ob.calls == 1);
    // Reaching a before its deadline disarms the timer.
    CHECK(strata_hal_fence_signal(a) == nullptr);
    fx.turn();
    CHECK(oa.calls == 1);
    CHECK(oa.code == STRATA_STATUS_OK);
    CHECK(fx.fake->timer == INT64_MAX);
    CHECK(refs(a) == 1);
    CHECK(refs(b) == 1);
    strata_hal_fence_release(a);
    strata_hal_fence_release(b);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE("core: an operation that yields steps again from idle, then ends") {
  CountingAllocator counting;
  {
    FakeLoop fx(counting.get());
    ScriptedOp op;
    op.yields = 2;
    op.finish_code = STRATA_STATUS_ABORTED;
    REQUIRE(strata_hal_loop_submit(fx.loop, op.op()) == nullptr);
    CHECK(op.steps == 0);  // never inside submit
    CHECK(strata_hal_loop_in_flight(fx.loop) == 1);
    // Turn 1 starts it (first yield) and steps it once more from idle
    // (second yield); turn 2 steps it to its end.
    fx.turn();
    CHECK(op.steps == 2);
    CHECK(op.outcome.calls == 0);
    CHECK(fx.fake->idle);
    fx.turn();
    CHECK(op.steps == 3);
    CHECK(op.outcome.calls == 1);
    CHECK_FALSE(fx.fake->idle);
    CHECK(op.outcome.code == STRATA_STATUS_ABORTED);
    CHECK(op.outcome.text.find("scripted failure") != std::string::npos);
    CHECK(strata_hal_loop_in_flight(fx.loop) == 0);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE(
    "core: an operation waits on a subscription and steps again when "
    "it notifies") {
  CountingAllocator counting;
  {
    FakeLoop fx(counting.get());
    strata_hal_fence_t* fence = pendingFence(counting.get());
    ScriptedOp op;
    op.fence = fence;
    REQUIRE(strata_hal_loop_submit(fx.loop, op.op()) == nullptr);
    fx.turn();
    CHECK(op.steps == 1);
    fx.turn();
    CHECK(op.steps == 1);  // parked
    CHECK(strata_hal_fence_signal(fence) == nullptr);
    CHECK(op.outcome.calls == 0);  // the signalling thread only queued it
    fx.turn();
    CHECK(op.steps == 2);
    CHECK(op.outcome.calls == 1);
    CHECK(op.outcome.code == STRATA_STATUS_OK);
    CHECK(refs(fence) == 1);
    strata_hal_fence_release(fence);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE(
    "core: an operation's wait that outlives its deadline is cancelled "
    "and the operation steps marked timed out") {
  CountingAllocator counting;
  {
    FakeLoop fx(counting.get());
    strata_hal_fence_t* fence = pendingFence(counting.get());
    ScriptedOp op;
    op.fence = fence;
    op.deadline_ns = 700;
    REQUIRE(strata_hal_loop_submit(fx.loop, op.op()) == nullptr);
    fx.turn();
    CHECK(fx.fake->timer == 700);
    fx.fake->now = 700;
    fx.turn();
    CHECK(op.timed_out_steps == 1);
    CHECK(op.outcome.code == STRATA_STATUS_DEADLINE_EXCEEDED);
    // The late signal finds nothing subscribed.
    CHECK(strata_hal_fence_signal(fence) == nullptr);
    fx.turn();
    CHECK(op.steps == 2);
    CHECK(op.outcome.calls == 1);
    CHECK(refs(fence) == 1);
    strata_hal_fence_release(fence);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE(
    "core: a wait the loop cannot cancel fails the operation; a bad or "
    "late submission is refused") {
  CountingAllocator counting;
  {
    FakeLoop fx(counting.get());
    strata_hal_fence_t* fence = pendingFence(counting.get());
    ScriptedOp op;
    op.fence = fence;
    op.drop_unsubscribe = true;
    REQUIRE(strata_hal_loop_submit(fx.loop, op.op()) == nullptr);
    fx.turn();
    CHECK(op.outcome.calls == 1);
    CHECK(op.outcome.code == STRATA_STATUS_FAILED_PRECONDITION);
    CHECK(op.outcome.text.find("without both subscribe and unsubscribe") !=
          std::string::npos);

    strata_hal_loop_op_t incomplete{};
    incomplete.step = ScriptedOp::step;
    Status missing(strata_hal_loop_submit(fx.loop, incomplete));
    CHECK(missing.code() == STRATA_STATUS_INVALID_ARGUMENT);
    CHECK(missing.contains("needs step and complete"));
    CHECK(strata_hal_loop_in_flight(fx.loop) == 0);
    strata_hal_fence_release(fence);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE(
    "core: destroying the loop completes a parked operation with "
    "CANCELLED") {
  CountingAllocator counting;
  strata_hal_fence_t* fence = pendingFence(counting.get());
  ScriptedOp op;
  op.fence = fence;
  {
    FakeLoop fx(counting.get());
    REQUIRE(strata_hal_loop_submit(fx.loop, op.op()) == nullptr);
    fx.turn();
    CHECK(op.outcome.calls == 0);
  }
  CHECK(op.outcome.calls == 1);
  CHECK(op.outcome.code == STRATA_STATUS_CANCELLED);
  CHECK(op.outcome.text.find("the loop was destroyed") != std::string::npos);
  CHECK(refs(fence) == 1);
  strata_hal_fence_release(fence);
  CHECK(counting.live() == 0);
}

TEST_CASE(
    "a fence wait calls back on the loop thread after another thread signals") {
  Loop loop;
  strata_hal_fence_t* fence = pendingFence(strata_allocator_system());
  Outcome o;
  REQUIRE(strata_hal_loop_wait_fence(loop, fence, deadlineAfterMs(5000),
                                     onFence, &o) == nullptr);
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(strata_hal_fence_signal(fence) == nullptr);
  });
  CHECK(strata_hal_loop_run(loop) == nullptr);
  signaller.join();
  CHECK(o.calls == 1);
  CHECK(o.code == STRATA_STATUS_OK);
  CHECK(bool(o.thread == std::this_thread::get_id()));
  CHECK(strata_hal_loop_in_flight(loop) == 0);
  CHECK(refs(fence) == 1);
  strata_hal_fence_release(fence);
}

TEST_CASE("a fence wait delivers the fence's failure with its message") {
  Loop loop;
  strata_hal_fence_t* fence = pendingFence(strata_allocator_system());
  Outcome o;
  REQUIRE(strata_hal_loop_wait_fence(loop, fence, deadlineAfterMs(5000),
                                     onFence, &o) == nullptr);
  std::thread failer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    strata_hal_fence_fail(fence, failure("queue died"));
  });
  CHECK(runUntil(loop, [&] { return o.calls == 1; }));
  failer.join();
  CHECK(o.code == STRATA_STATUS_INTERNAL);
  CHECK(o.text.find("queue died") != std::string::npos);
  CHECK(o.text.find("at dispatch matmul[2]") != std::string::npos);
  strata_hal_fence_release(fence);
}

TEST_CASE(
    "a fence wait times out within a tolerance; the late signal is harmless") {
  Loop loop;
  strata_hal_fence_t* fence = pendingFence(strata_allocator_system());
  Outcome o;
  int64_t start = strata_hal_now_ns();
  REQUIRE(strata_hal_loop_wait_fence(loop, fence, start + 40 * 1000000, onFence,
                                     &o) == nullptr);
  CHECK(runUntil(loop, [&] { return o.calls == 1; }));
  int64_t elapsed_ms = (o.at_ns - start) / 1000000;
  CHECK(o.code == STRATA_STATUS_DEADLINE_EXCEEDED);
  CHECK(elapsed_ms >= 40);
  CHECK(elapsed_ms < 1000);
  CHECK(refs(fence) == 1);
  CHECK(strata_hal_fence_signal(fence) == nullptr);
  CHECK(strata_hal_loop_run(loop) == nullptr);
  CHECK(o.calls == 1);
  strata_hal_fence_release(fence);
}

TEST_CASE("run from inside a loop callback is rejected") {
  Loop loop;
  strata_hal_fence_t* fence = nullptr;
  REQUIRE(strata_hal_fence_create(0, strata_allocator_system(), &fence) ==
          nullptr);
  struct Nested {
    strata_hal_loop_t* loop;
    Status status;
    int calls = 0;
  } nested{loop, Status(), 0};
  REQUIRE(strata_hal_loop_wait_fence(
              loop, fence, STRATA_HAL_INFINITE_FUTURE,
              [](void* user, strata_status_t status) {
                strata_status_free(status);
                auto* n = static_cast<Nested*>(user);
                ++n->calls;
                n->status.reset(strata_hal_loop_run(n->loop));
              },
              &nested) == nullptr);
  CHECK(strata_hal_loop_run(loop) == nullptr);
  CHECK(nested.calls == 1);
  CHECK(nested.status.code() == STRATA_STATUS_FAILED_PRECONDITION);
  CHECK(nested.status.contains("inside a loop callback"));
  strata_hal_fence_release(fence);
}
}
