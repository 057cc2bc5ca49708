// fence_test.cpp - fences: building and joining, query/signal/fail, blocking
// waits, on_resolved, and cancellable subscriptions under races.
#include <doctest/doctest.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "strata/hal/semaphore.h"
#include "sync_testing.h"

using namespace strata::hal::testing;

namespace {

using Fixture = FenceFixture;

struct Record {
  std::atomic<int> calls{0};
  strata_status_code_t code = STRATA_STATUS_OK;
  std::string text;
};

void recordCallback(void* user, strata_status_t status) {
  auto* r = static_cast<Record*>(user);
  r->code = strata_status_code(status);
  if (char* t = strata_status_to_string(status)) {
    r->text = t;
    std::free(t);
  }
  strata_status_free(status);
  r->calls.fetch_add(1);
}

strata_status_t failure(const char* message) {
  return strata_status_annotate(
      strata_make_status(STRATA_STATUS_ABORTED, "%s", message),
      "at kernel.matmul");
}

}  // namespace

TEST_SUITE("hal.fence") {
TEST_CASE("an empty fence is reached") {
  strata_hal_fence_t* fence = nullptr;
  REQUIRE(strata_hal_fence_create(0, strata_allocator_system(), &fence) ==
          nullptr);
  int reached = 0;
  CHECK(strata_hal_fence_query(fence, &reached) == nullptr);
  CHECK(reached == 1);
  CHECK(strata_hal_fence_wait(fence, STRATA_HAL_IMMEDIATE_PAST) == nullptr);
  Record r;
  CHECK(strata_hal_fence_on_resolved(fence, strata_allocator_system(),
                                     recordCallback, &r) == nullptr);
  CHECK(r.calls == 1);
  strata_hal_fence_release(fence);
}

TEST_CASE(
    "insert keeps the largest value per semaphore and grows past capacity") {
  CountingAllocator counting;
  {
    strata_hal_fence_t* fence = nullptr;
    REQUIRE(strata_hal_fence_create(1, counting.get(), &fence) == nullptr);
    strata_hal_semaphore_t* a = newSemaphore(0, counting.get());
    strata_hal_semaphore_t* b = newSemaphore(0, counting.get());
    REQUIRE(strata_hal_fence_insert(fence, a, 3) == nullptr);
    REQUIRE(strata_hal_fence_insert(fence, a, 2) == nullptr);
    REQUIRE(strata_hal_fence_insert(fence, b, 1) == nullptr);  // grows
    REQUIRE(strata_hal_fence_insert(fence, a, 5) == nullptr);
    REQUIRE(strata_hal_fence_count(fence) == 2);
    strata_hal_semaphore_t* s = nullptr;
    uint64_t v = 0;
    strata_hal_fence_at(fence, 0, &s, &v);
    CHECK(s == a);
    CHECK(v == 5);
    strata_hal_fence_at(fence, 1, &s, &v);
    CHECK(s == b);
    CHECK(v == 1);
    CHECK(refs(a) == 2);
    strata_hal_semaphore_release(a);
    strata_hal_semaphore_release(b);
    strata_hal_fence_release(fence);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE("create_pending makes one semaphore at 0 waited to 1") {
  strata_hal_fence_t* fence = nullptr;
  REQUIRE(strata_hal_fence_create_pending(strata_allocator_system(), &fence) ==
          nullptr);
  REQUIRE(strata_hal_fence_count(fence) == 1);
  strata_hal_semaphore_t* s = nullptr;
  uint64_t v = 0;
  strata_hal_fence_at(fence, 0, &s, &v);
  CHECK(v == 1);
  CHECK(refs(s) == 1);  // only the fence holds it
  int reached = -1;
  CHECK(strata_hal_fence_query(fence, &reached) == nullptr);
  CHECK(reached == 0);
  CHECK(strata_hal_fence_signal(fence) == nullptr);
  CHECK(strata_hal_fence_query(fence, &reached) == nullptr);
  CHECK(reached == 1);
  Status again(strata_hal_fence_signal(fence));
  CHECK(again.code() == STRATA_STATUS_FAILED_PRECONDITION);
  strata_hal_fence_release(fence);
}

TEST_CASE("join dedups semaphores keeping the largest value and skips NULL") {
  strata_hal_semaphore_t* a = newSemaphore(0, strata_allocator_system());
  strata_hal_semaphore_t* b = newSemaphore(0, strata_allocator_system());
  strata_hal_fence_t *f1 = nullptr, *f2 = nullptr, *joined = nullptr;
  REQUIRE(strata_hal_fence_create(2, strata_allocator_system(), &f1) ==
          nullptr);
  REQUIRE(strata_hal_fence_create(2, strata_allocator_system(), &f2) ==
          nullptr);
  REQUIRE(strata_hal_fence_insert(f1, a, 4) == nullptr);
  REQUIRE(strata_hal_fence_insert(f1, b, 1) == nullptr);
  REQUIRE(strata_hal_fence_insert(f2, a, 2) == nullptr);
  REQUIRE(strata_hal_fence_insert(f2, b, 6) == nullptr);
  strata_hal_fence_t* inputs[] = {f1, nullptr, f2};
  REQUIRE(strata_hal_fence_join(inputs, 3, strata_allocator_system(),
                                &joined) == nullptr);
  REQUIRE(strata_hal_fence_count(joined) == 2);
  strata_hal_semaphore_t* s = nullptr;
  uint64_t v = 0;
  strata_hal_fence_at(joined, 0, &s, &v);
  CHECK((s == a && v == 4));
  strata_hal_fence_at(joined, 1, &s, &v);
  CHECK((s == b && v == 6));
  REQUIRE(strata_hal_semaphore_signal(a, 4) == nullptr);
  REQUIRE(strata_hal_semaphore_signal(b, 5) == nullptr);
  int reached = -1;
  CHECK(strata_hal_fence_query(joined, &reached) == nullptr);
  CHECK(reached == 0);
  REQUIRE(strata_hal_semaphore_signal(b, 6) == nullptr);
  CHECK(strata_hal_fence_query(joined, &reached) == nullptr);
  CHECK(reached == 1);
  for (strata_hal_fence_t* f : {f1, f2, joined}) {
    strata_hal_fence_release(f);
  }
  strata_hal_semaphore_release(a);
  strata_hal_semaphore_release(b);
}

TEST_CASE("fail fails every semaphore with the original message") {
  Fixture fx(3);
  fx.signal(0);
  strata_hal_fence_fail(fx.fence, failure("device lost"));
  for (strata_hal_semaphore_t* s : fx.semaphores) {
    uint64_t v = 0;
    Status q(strata_hal_semaphore_query(s, &v));
    CHECK(q.code() == STRATA_STATUS_ABORTED);
    CHECK(q.contains("device lost"));
    CHECK(q.contains("at kernel.matmul"));
  }
  int reached = -1;
  Status q(strata_hal_fence_query(fx.fence, &reached));
  CHECK(q.contains("device lost"));
}

TEST_CASE("wait blocks until every pair is reached") {
  Fixture fx(3);
  std::thread signaller([&] {
    for (size_t i : {2u, 0u, 1u}) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      CHECK(strata_hal_semaphore_signal(fx.semaphores[i], 1) == nullptr);
    }
  });
  Status status(strata_hal_fence_wait(fx.fence, deadlineAfterMs(5000)));
  CHECK(status.ok());
  CHECK(fx.reached() == 1);
  signaller.join();
}

TEST_CASE("wait sees a failure of any pair while an earlier one is pending") {
  Fixture fx(3);
  std::thread failer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    strata_hal_semaphore_fail(fx.semaphores[2], failure("late pair failed"));
  });
  int64_t start = strata_hal_now_ns();
  Status status(strata_hal_fence_wait(fx.fence, deadlineAfterMs(5000)));
  CHECK(status.code() == STRATA_STATUS_ABORTED);
  CHECK(status.contains("late pair failed"));
  CHECK(status.contains("at kernel.matmul"));
  CHECK((strata_hal_now_ns() - start) < 2000 * 1000000LL);
  failer.join();
}

TEST_CASE("wait gives up at its deadline and leaks nothing") {
  CountingAllocator counting;
  {
    for (size_t count : {1u, 3u}) {
      Fixture fx(count, counting.get());
      if (count > 1) {
        fx.signal(0);  // partly reached
      }
      int64_t start = strata_hal_now_ns();
      Status status(strata_hal_fence_wait(fx.fence, start + 30 * 1000000));
      int64_t elapsed_ms = (strata_hal_now_ns() - start) / 1000000;
      CHECK(status.code() == STRATA_STATUS_DEADLINE_EXCEEDED);
      CHECK(elapsed_ms >= 30);
      CHECK(elapsed_ms < 1000);
      Status past(strata_hal_fence_wait(fx.fence, STRATA_HAL_IMMEDIATE_PAST));
      CHECK(past.code() == STRATA_STATUS_DEADLINE_EXCEEDED);
      // The timed-out waits left no timepoints behind.
      for (strata_hal_semaphore_t* s : fx.semaphores) {
        CHECK(refs(s) == 2);  // the fixture and the fence
      }
    }
  }
  CHECK(counting.live() == 0);
}

TEST_CASE("on_resolved runs once, after the last pair, on its thread") {
  CountingAllocator counting;
  {
    Fixture fx(3, counting.get());
    Record r;
    REQUIRE(strata_hal_fence_on_resolved(fx.fence, counting.get(),
                                         recordCallback, &r) == nullptr);
    CHECK(refs(fx.fence) == 2);  // retained until the callback
    fx.signal(1);
    fx.signal(0);
    CHECK(r.calls == 0);
    std::thread last([&] { fx.signal(2); });
    last.join();
    CHECK(r.calls == 1);
    CHECK(r.code == STRATA_STATUS_OK);
    CHECK(refs(fx.fence) == 1);
    // Already reached: at once.
    Record now;
    REQUIRE(strata_hal_fence_on_resolved(fx.fence, counting.get(),
                                         recordCallback, &now) == nullptr);
    CHECK(now.calls == 1);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE("on_resolved delivers the first failure at once and lets go") {
  CountingAllocator counting;
  {
    Fixture fx(3, counting.get());
    Record r;
    REQUIRE(strata_hal_fence_on_resolved(fx.fence, counting.get(),
                                         recordCallback, &r) == nullptr);
    fx.signal(0);
    strata_hal_semaphore_fail(fx.semaphores[1], failure("bad tile"));
    CHECK(r.calls == 1);
    CHECK(r.code == STRATA_STATUS_ABORTED);
    CHECK(r.text.find("bad tile") != std::string::npos);
    CHECK(r.text.find("at kernel.matmul") != std::string::npos);
    // The pending pair's timepoint was disarmed: nothing holds on.
    CHECK(refs(fx.semaphores[2]) == 2);
    CHECK(refs(fx.fence) == 1);
    fx.signal(2);
    CHECK(r.calls == 1);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE("a joined fence fails when any input fails, with its message") {
  Fixture a(2), b(2);
  strata_hal_fence_t* inputs[] = {a.fence, b.fence};
  strata_hal_fence_t* joined = nullptr;
  REQUIRE(strata_hal_fence_join(inputs, 2, strata_allocator_system(),
                                &joined) == nullptr);
  Record r;
  REQUIRE(strata_hal_fence_on_resolved(joined, strata_allocator_system(),
                                       recordCallback, &r) == nullptr);
  Status blocked;
  std::thread waiter([&] {
    blocked.reset(strata_hal_fence_wait(joined, deadlineAfterMs(5000)));
  });
  a.signal(0);
  a.signal(1);
  strata_hal_fence_fail(b.fence, failure("input b failed"));
  waiter.join();
  CHECK(r.calls == 1);
  CHECK(r.text.find("input b failed") != std::string::npos);
  CHECK(blocked.code() == STRATA_STATUS_ABORTED);
  CHECK(blocked.contains("input b failed"));
  CHECK(blocked.contains("at kernel.matmul"));
  strata_hal_fence_release(joined);
}

TEST_CASE("unsubscribe before resolution cancels and releases everything") {
  CountingAllocator counting;
  {
    Fixture fx(2, counting.get());
    Record r;
    strata_hal_fence_token_t token = 0;
    REQUIRE(strata_hal_fence_subscribe(fx.fence, counting.get(), recordCallback,
                                       &r, &token) == nullptr);
    CHECK(token != 0);
    fx.signal(0);
    long live_subscribed = counting.live();
    CHECK(strata_hal_fence_unsubscribe(fx.fence, token) == 1);
    CHECK(counting.live() == live_subscribed - 1);  // the record is gone
    CHECK(strata_hal_fence_unsubscribe(fx.fence, token) == 0);
    CHECK(refs(fx.fence) == 1);
    CHECK(refs(fx.semaphores[1]) == 2);
    fx.signal(1);
    CHECK(r.calls == 0);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE("unsubscribe after the callback ran returns 0 and is harmless") {
  Fixture fx(1);
  Record r;
  strata_hal_fence_token_t token = 0;
  REQUIRE(strata_hal_fence_subscribe(fx.fence, strata_allocator_system(),
                                     recordCallback, &r, &token) == nullptr);
  fx.signal(0);
  CHECK(r.calls == 1);
  CHECK(strata_hal_fence_unsubscribe(fx.fence, token) == 0);
  CHECK(strata_hal_fence_unsubscribe(fx.fence, 0) == 0);
  CHECK(strata_hal_fence_unsubscribe(fx.fence, token + 1000) == 0);
  // Already resolved: the callback runs inside subscribe and the token is 0.
  Record now;
  REQUIRE(strata_hal_fence_subscribe(fx.fence, strata_allocator_system(),
                                     recordCallback, &now, &token) == nullptr);
  CHECK(now.calls == 1);
  CHECK(token == 0);
}

TEST_CASE(
    "unsubscribe racing with signals and failures: exactly once, no leaks") {
  // Many rounds, each over a fresh fence of several semaphores: resolver
  // threads signal (or fail) the semaphores while the main thread
  // unsubscribes at a random moment. Either unsubscribe wins and the
  // callback never runs, or the callback runs exactly once.
  CountingAllocator counting;
  constexpr int kRounds = 300;
  constexpr size_t kPairs = 4;
  std::mt19937 rng(1234);
  int cancelled_rounds = 0, fired_rounds = 0;
  for (int round = 0; round < kRounds; ++round) {
    Fixture fx(kPairs, counting.get());
    Record r;
    strata_hal_fence_token_t token = 0;
    REQUIRE(strata_hal_fence_subscribe(fx.fence, counting.get(), recordCallback,
                                       &r, &token) == nullptr);
    bool fail = round % 3 == 0;
    std::vector<std::thread> resolvers;
    for (size_t i = 0; i < kPairs; ++i) {
      resolvers.emplace_back([&, i] {
        if (fail && i == kPairs - 1) {
          strata_hal_semaphore_fail(fx.semaphores[i], failure("raced"));
        } else {
          strata_status_free(strata_hal_semaphore_signal(fx.semaphores[i], 1));
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
    int result = strata_hal_fence_unsubscribe(fx.fence, token);
    for (std::thread& t : resolvers) {
      t.join();
    }
    if (result == 1) {
      ++cancelled_rounds;
      CHECK(r.calls == 0);
    } else {
      ++fired_rounds;
      // The resolvers are done, so a callback that was running is done too.
      CHECK(r.calls == 1);
    }
    CHECK(refs(fx.fence) == 1);
  }
  CHECK(cancelled_rounds + fired_rounds == kRounds);
  CHECK(counting.live() == 0);
  MESSAGE("unsubscribe won " << cancelled_rounds << " of " << kRounds
                             << " rounds");
}

TEST_CASE(
    "many threads subscribe and unsubscribe one fence while it resolves") {
  CountingAllocator counting;
  {
    Fixture fx(2, counting.get());
    constexpr int kThreads = 6;
    constexpr int kPerThread = 300;
    std::atomic<int> calls{0}, cancels{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kPerThread; ++i) {
          strata_hal_fence_token_t token = 0;
          strata_status_t s = strata_hal_fence_subscribe(
              fx.fence, counting.get(),
              [](void* user, strata_status_t status) {
                strata_status_free(status);
                static_cast<std::atomic<int>*>(user)->fetch_add(1);
              },
              &calls, &token);
          CHECK(s == nullptr);
          if (i % 2 == 0) {
            cancels += strata_hal_fence_unsubscribe(fx.fence, token);
          }
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    fx.signal(0);
    fx.signal(1);
    for (std::thread& t : threads) {
      t.join();
    }
    CHECK(calls + cancels == kThreads * kPerThread);
    CHECK(refs(fx.fence) == 1);
  }
  CHECK(counting.live() == 0);
}

TEST_CASE("the fence is a VM ref of type hal.fence") {
  Fixture fx(1);
  CHECK(std::string(strata_hal_fence_type()->name) == "hal.fence");
  CHECK(strata_hal_fence_from_ref(strata_hal_fence_as_ref(fx.fence)) ==
        fx.fence);
  CHECK(strata_hal_fence_from_ref(
            strata_hal_semaphore_as_ref(fx.semaphores[0])) == nullptr);
}
}
