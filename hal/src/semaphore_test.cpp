// semaphore_test.cpp - timeline semaphores: signal/query/wait, deadlines,
// timepoints, sticky failure, and cancellation racing with signals.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "strata/hal/semaphore.h"
#include "sync_testing.h"

using namespace strata::hal::testing;

namespace {

struct Semaphore {
  explicit Semaphore(uint64_t initial = 0,
                     strata_allocator_t allocator = strata_allocator_system()) {
    REQUIRE(strata_hal_semaphore_create(initial, allocator, &s) == nullptr);
  }
  ~Semaphore() { strata_hal_semaphore_release(s); }
  Semaphore(const Semaphore&) = delete;
  Semaphore& operator=(const Semaphore&) = delete;
  strata_hal_semaphore_t* operator->() const { return s; }
  operator strata_hal_semaphore_t*() const { return s; }
  strata_hal_semaphore_t* s = nullptr;
};

// Records how a timepoint resolved.
struct Record {
  std::atomic<int> calls{0};
  std::atomic<strata_status_code_t> code{STRATA_STATUS_OK};
  std::string message;  // written before calls is bumped
  std::string annotation;
  std::thread::id thread;
};

void recordCallback(void* user, strata_status_t status) {
  auto* r = static_cast<Record*>(user);
  r->code = strata_status_code(status);
  r->message = strata_status_message(status);
  r->annotation = strata_status_annotation(status, 0);
  r->thread = std::this_thread::get_id();
  strata_status_free(status);
  r->calls.fetch_add(1);
}

strata_status_t failure(const char* message) {
  return strata_status_annotate(
      strata_make_status(STRATA_STATUS_DATA_LOSS, "%s", message),
      "at dispatch 3");
}

uint64_t valueOf(strata_hal_semaphore_t* s) {
  uint64_t value = 0;
  strata_status_free(strata_hal_semaphore_query(s, &value));
  return value;
}

}  // namespace

TEST_SUITE("hal.semaphore") {
TEST_CASE("signal raises the value and query reads it") {
  Semaphore s(5);
  CHECK(valueOf(s) == 5);
  REQUIRE(strata_hal_semaphore_signal(s, 9) == nullptr);
  uint64_t value = 0;
  CHECK(strata_hal_semaphore_query(s, &value) == nullptr);
  CHECK(value == 9);
}

TEST_CASE("signalling to a value not above the current one is rejected") {
  Semaphore s(4);
  Status same(strata_hal_semaphore_signal(s, 4));
  CHECK(same.code() == STRATA_STATUS_FAILED_PRECONDITION);
  CHECK(same.contains("4"));
  Status back(strata_hal_semaphore_signal(s, 2));
  CHECK(back.code() == STRATA_STATUS_FAILED_PRECONDITION);
  CHECK(back.contains("signalled to 2"));
  CHECK(back.contains("its value 4"));
  CHECK(valueOf(s) == 4);
}

TEST_CASE("wait returns at once when the value is already reached") {
  Semaphore s(3);
  CHECK(strata_hal_semaphore_wait(s, 3, STRATA_HAL_IMMEDIATE_PAST) == nullptr);
  CHECK(strata_hal_semaphore_wait(s, 1, deadlineAfterMs(1000)) == nullptr);
}

TEST_CASE("a blocked waiter wakes when another thread reaches its value") {
  Semaphore s;
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(strata_hal_semaphore_signal(s, 1) == nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    CHECK(strata_hal_semaphore_signal(s, 2) == nullptr);
  });
  Status status(strata_hal_semaphore_wait(s, 2, deadlineAfterMs(5000)));
  CHECK(status.ok());
  CHECK(valueOf(s) >= 2);
  signaller.join();
}

TEST_CASE("wait gives up at its deadline naming the values") {
  Semaphore s(1);
  int64_t start = strata_hal_now_ns();
  Status status(strata_hal_semaphore_wait(s, 7, start + 30 * 1000000));
  int64_t elapsed_ms = (strata_hal_now_ns() - start) / 1000000;
  CHECK(status.code() == STRATA_STATUS_DEADLINE_EXCEEDED);
  CHECK(status.contains("value 7"));
  CHECK(status.contains("reached 1"));
  CHECK(elapsed_ms >= 30);
  CHECK(elapsed_ms < 1000);
  Status past(strata_hal_semaphore_wait(s, 7, STRATA_HAL_IMMEDIATE_PAST));
  CHECK(past.code() == STRATA_STATUS_DEADLINE_EXCEEDED);
}

TEST_CASE("deadline helpers saturate and treat negative timeouts as none") {
  CHECK(strata_hal_deadline_after_ns(-1) == STRATA_HAL_INFINITE_FUTURE);
  CHECK(strata_hal_deadline_after_ns(INT64_MAX) == STRATA_HAL_INFINITE_FUTURE);
  int64_t now = strata_hal_now_ns();
  int64_t later = strata_hal_deadline_after_ns(1000000000);
  CHECK(later >= now + 1000000000);
  CHECK(later < now + 2000000000);
}

TEST_CASE("a timepoint already reached runs at once on the calling thread") {
  Semaphore s(2);
  Record r;
  strata_hal_timepoint_t tp{};
  strata_hal_semaphore_add_timepoint(s, 2, recordCallback, &r, &tp);
  CHECK(r.calls == 1);
  CHECK(r.code == STRATA_STATUS_OK);
  CHECK(bool(r.thread == std::this_thread::get_id()));
  CHECK(strata_hal_semaphore_cancel_timepoint(&tp) == 0);
  CHECK(refs(s) == 1);
}

TEST_CASE(
    "a timepoint runs on the signalling thread once its value is reached") {
  Semaphore s;
  Record r;
  strata_hal_timepoint_t tp{};
  strata_hal_semaphore_add_timepoint(s, 3, recordCallback, &r, &tp);
  CHECK(r.calls == 0);
  CHECK(refs(s) == 2);  // an armed timepoint holds the semaphore
  REQUIRE(strata_hal_semaphore_signal(s, 2) == nullptr);
  CHECK(r.calls == 0);
  std::thread::id signaller_id;
  std::thread signaller([&] {
    signaller_id = std::this_thread::get_id();
    CHECK(strata_hal_semaphore_signal(s, 5) == nullptr);
  });
  signaller.join();
  CHECK(r.calls == 1);
  CHECK(r.code == STRATA_STATUS_OK);
  CHECK(bool(r.thread == signaller_id));
  CHECK(refs(s) == 1);
}

TEST_CASE("one signal runs every timepoint it reaches and keeps the others") {
  Semaphore s;
  Record r1, r2, r3;
  strata_hal_timepoint_t t1{}, t2{}, t3{};
  strata_hal_semaphore_add_timepoint(s, 1, recordCallback, &r1, &t1);
  strata_hal_semaphore_add_timepoint(s, 4, recordCallback, &r2, &t2);
  strata_hal_semaphore_add_timepoint(s, 2, recordCallback, &r3, &t3);
  REQUIRE(strata_hal_semaphore_signal(s, 2) == nullptr);
  CHECK(r1.calls == 1);
  CHECK(r2.calls == 0);
  CHECK(r3.calls == 1);
  REQUIRE(strata_hal_semaphore_signal(s, 4) == nullptr);
  CHECK(r2.calls == 1);
  CHECK(refs(s) == 1);
}

TEST_CASE("a cancelled timepoint never runs and gives back its reference") {
  Semaphore s;
  Record r;
  strata_hal_timepoint_t tp{};
  strata_hal_semaphore_add_timepoint(s, 1, recordCallback, &r, &tp);
  CHECK(strata_hal_semaphore_cancel_timepoint(&tp) == 1);
  CHECK(strata_hal_semaphore_cancel_timepoint(&tp) == 0);
  CHECK(refs(s) == 1);
  REQUIRE(strata_hal_semaphore_signal(s, 1) == nullptr);
  CHECK(r.calls == 0);
  strata_hal_timepoint_t never{};
  CHECK(strata_hal_semaphore_cancel_timepoint(&never) == 0);
}

TEST_CASE("a timepoint callback may call back into its semaphore") {
  Semaphore s;
  struct Chain {
    strata_hal_semaphore_t* s;
    strata_hal_timepoint_t next{};
    Record record;
    uint64_t seen = 0;
  } chain{s.s};
  strata_hal_timepoint_t first{};
  strata_hal_semaphore_add_timepoint(
      s, 1,
      [](void* user, strata_status_t status) {
        auto* c = static_cast<Chain*>(user);
        strata_status_free(status);
        c->seen = valueOf(c->s);
        // Signals again from inside the callback, then arms another.
        CHECK(strata_hal_semaphore_signal(c->s, 2) == nullptr);
        strata_hal_semaphore_add_timepoint(c->s, 3, recordCallback, &c->record,
                                           &c->next);
      },
      &chain, &first);
  REQUIRE(strata_hal_semaphore_signal(s, 1) == nullptr);
  CHECK(chain.seen == 1);
  CHECK(valueOf(s) == 2);
  CHECK(chain.record.calls == 0);
  REQUIRE(strata_hal_semaphore_signal(s, 3) == nullptr);
  CHECK(chain.record.calls == 1);
}

TEST_CASE("a failure reaches blocked waiters, timepoints and later callers") {
  Semaphore s(1);
  Record pending, later;
  strata_hal_timepoint_t tp{}, late_tp{};
  strata_hal_semaphore_add_timepoint(s, 5, recordCallback, &pending, &tp);
  std::atomic<int> waiters_failed{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 4; ++i) {
    waiters.emplace_back([&] {
      Status status(strata_hal_semaphore_wait(s, 10, deadlineAfterMs(5000)));
      if (status.code() == STRATA_STATUS_DATA_LOSS &&
          status.contains("kernel exploded") &&
          status.contains("at dispatch 3")) {
        waiters_failed.fetch_add(1);
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  strata_hal_semaphore_fail(s, failure("kernel exploded"));
  for (std::thread& t : waiters) {
    t.join();
  }
  CHECK(waiters_failed == 4);
  CHECK(pending.calls == 1);
  CHECK(pending.code == STRATA_STATUS_DATA_LOSS);
  CHECK(pending.message == "kernel exploded");
  CHECK(pending.annotation == "at dispatch 3");
  // Afterwards: timepoints fail at once, queries and signals return copies.
  strata_hal_semaphore_add_timepoint(s, 2, recordCallback, &later, &late_tp);
  CHECK(later.calls == 1);
  CHECK(later.message == "kernel exploded");
  uint64_t value = 0;
  Status query(strata_hal_semaphore_query(s, &value));
  CHECK(query.code() == STRATA_STATUS_DATA_LOSS);
  CHECK(value == 1);
  Status signal(strata_hal_semaphore_signal(s, 2));
  CHECK(signal.contains("kernel exploded"));
  CHECK(signal.contains("at dispatch 3"));
  CHECK(refs(s) == 1);
}

TEST_CASE("the first failure wins and later ones are freed") {
  CountingAllocator counting;
  {
    Semaphore s(0, counting.get());
    strata_hal_semaphore_fail(s, failure("first"));
    strata_hal_semaphore_fail(s, failure("second"));
    Status wait(strata_hal_semaphore_wait(s, 1, STRATA_HAL_INFINITE_FUTURE));
    CHECK(wait.contains("first"));
    CHECK_FALSE(wait.contains("second"));
  }
  CHECK(counting.live() == 0);
}

TEST_CASE("the semaphore is a VM ref of type hal.semaphore") {
  Semaphore s;
  CHECK(std::string(strata_hal_semaphore_type()->name) == "hal.semaphore");
  CHECK(strata_hal_semaphore_from_ref(strata_hal_semaphore_as_ref(s)) == s.s);
  strata_hal_fence_t* fence = nullptr;
  REQUIRE(strata_hal_fence_create(0, strata_allocator_system(), &fence) ==
          nullptr);
  CHECK(strata_hal_semaphore_from_ref(strata_hal_fence_as_ref(fence)) ==
        nullptr);
  CHECK(strata_hal_semaphore_from_ref(nullptr) == nullptr);
  strata_hal_fence_release(fence);
}

TEST_CASE("cancel racing with signal and fail: every timepoint resolves once") {
  // Threads arm timepoints and cancel half of them while others signal and
  // finally fail the semaphore; each callback runs at most once, exactly
  // when cancel did not win, and every reference comes back.
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2000;
  Semaphore s;
  std::atomic<int> callbacks{0};
  std::atomic<int> cancelled{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  struct Slot {
    strata_hal_timepoint_t tp{};
    std::atomic<int> runs{0};
  };
  std::vector<std::vector<Slot>> slots(kThreads);
  for (auto& v : slots) {
    v = std::vector<Slot>(kPerThread);
  }
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        Slot& slot = slots[t][i];
        strata_hal_semaphore_add_timepoint(
            s, valueOf(s) + 1 + (i % 3),
            [](void* user, strata_status_t status) {
              strata_status_free(status);
              static_cast<Slot*>(user)->runs.fetch_add(1);
            },
            &slot, &slot.tp);
        if (i % 2 == 0 && strata_hal_semaphore_cancel_timepoint(&slot.tp)) {
          cancelled.fetch_add(1);
          slot.runs.fetch_add(100);  // marks "cancelled"
        }
      }
    });
  }
  std::thread signaller([&] {
    uint64_t v = 0;
    while (!stop.load()) {
      strata_status_free(strata_hal_semaphore_signal(s, ++v));
    }
  });
  for (std::thread& t : threads) {
    t.join();
  }
  stop = true;
  signaller.join();
  strata_hal_semaphore_fail(s, failure("done"));
  for (auto& v : slots) {
    for (Slot& slot : v) {
      int runs = slot.runs.load();
      CHECK((runs == 1 || runs == 100));
      callbacks += runs == 1;
    }
  }
  CHECK(callbacks + cancelled == kThreads * kPerThread);
  CHECK(refs(s) == 1);
}
}
