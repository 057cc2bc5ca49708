// fence_wait_test.cpp - the VM wait a deferring native function registers
// on a fence (strata_hal_fence_make_vm_wait): blocking, failure, deadline,
// subscribe and unsubscribe.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "strata/modules/hal/module.h"
#include "sync_testing.h"

using namespace strata::hal::testing;

namespace {

using Fixture = FenceFixture;

}  // namespace

TEST_SUITE("hal.fence") {
TEST_CASE("the VM wait blocks with the fence, and a failure ends the wait") {
  Fixture fx(2);
  strata_vm_wait_t wait = strata_hal_fence_make_vm_wait(fx.fence, 0);
  CHECK(wait.user == fx.fence);
  CHECK(wait.deadline_ns == STRATA_HAL_INFINITE_FUTURE);
  REQUIRE(static_cast<bool>(wait.wait));
  Status timeout(wait.wait(wait.user, deadlineAfterMs(10)));
  CHECK(timeout.code() == STRATA_STATUS_DEADLINE_EXCEEDED);
  std::thread failer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    strata_hal_semaphore_fail(
        fx.semaphores[0], strata_make_status(STRATA_STATUS_ABORTED, "boom"));
  });
  // The wait is over; the deferred call finds the failure itself.
  CHECK(wait.wait(wait.user, deadlineAfterMs(5000)) == nullptr);
  failer.join();
  strata_vm_wait_t with_deadline =
      strata_hal_fence_make_vm_wait(fx.fence, 12345);
  CHECK(with_deadline.deadline_ns == 12345);
}

TEST_CASE("the VM wait subscribes and unsubscribes through the fence") {
  CountingAllocator counting;
  {
    Fixture fx(1, counting.get());
    strata_vm_wait_t wait = strata_hal_fence_make_vm_wait(fx.fence, 0);
    std::atomic<int> notified{0};
    auto notify = [](void* user) {
      static_cast<std::atomic<int>*>(user)->fetch_add(1);
    };
    void* token = nullptr;
    REQUIRE(wait.subscribe(wait.user, notify, &notified, &token) == nullptr);
    CHECK(wait.unsubscribe(wait.user, token) == 1);
    REQUIRE(wait.subscribe(wait.user, notify, &notified, &token) == nullptr);
    fx.signal(0);
    CHECK(notified == 1);
    CHECK(wait.unsubscribe(wait.user, token) == 0);
    CHECK(refs(fx.fence) == 1);
  }
  CHECK(counting.live() == 0);
}
}
