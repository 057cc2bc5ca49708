// loop_test.cpp - the loop: the scheduler core driven deterministically by
// a fake backend, then the libuv loop waiting on fences signalled, failed or
// left to time out by other threads. Operations that run VM invocations are
// tested with them, in modules/hal/src/loop_invoke_test.cpp.
#include <doctest/doctest.h>

#include <thread>

#include "loop_testing.h"

using namespace strata::hal;
using namespace strata::hal::testing;

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
