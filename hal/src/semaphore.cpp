// semaphore.cpp - timeline semaphores: a value that only grows, a sticky
// failure, blocking waits and one-shot timepoint callbacks run outside the
// lock.
#include "strata/hal/semaphore.h"

#include <time.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <new>

struct strata_hal_semaphore_t {
  strata_vm_ref_object_t header;
  strata_allocator_t allocator;
  std::mutex mutex;
  std::condition_variable condition;
  // Everything below is guarded by mutex.
  uint64_t value = 0;
  // Sticky: set once, freed with the semaphore. Read without the lock only
  // by the thread that set it, right after setting it.
  strata_status_t failure = nullptr;
  // Armed timepoints sorted by value, smallest first, so a signal takes only
  // what it resolves; each holds a reference to the semaphore. Timepoints
  // usually arrive in increasing order, so insertion starts at the tail.
  strata_hal_timepoint_t* head = nullptr;
  strata_hal_timepoint_t* tail = nullptr;
  // Threads blocked in strata_hal_semaphore_wait; signal skips the
  // condition variable when there are none.
  uint32_t blocked = 0;
};

namespace strata::hal {
namespace {

void destroySemaphore(strata_vm_ref_object_t* object) {
  auto* semaphore = reinterpret_cast<strata_hal_semaphore_t*>(object);
  // Armed timepoints retain the semaphore, so none can be left here.
  strata_status_free(semaphore->failure);
  strata_allocator_t allocator = semaphore->allocator;
  semaphore->~strata_hal_semaphore_t();
  strata_allocator_free(allocator, semaphore);
}

const strata_vm_ref_type_t kSemaphoreType = {"hal.semaphore", destroySemaphore};

// The timepoint's semaphore field doubles as its "armed" flag. It is written
// under the semaphore's lock and read without it by cancel, so every access
// is atomic; sequential consistency lets a fence subscription decide, Dekker
// style, which of two threads disarms a timepoint armed during a race.
strata_hal_semaphore_t* armedOn(const strata_hal_timepoint_t* timepoint) {
  return __atomic_load_n(&timepoint->semaphore, __ATOMIC_SEQ_CST);
}
void setArmedOn(strata_hal_timepoint_t* timepoint,
                strata_hal_semaphore_t* semaphore) {
  __atomic_store_n(&timepoint->semaphore, semaphore, __ATOMIC_SEQ_CST);
}

// Unlinks a timepoint from its semaphore's list. Lock held.
void unlink(strata_hal_semaphore_t* semaphore,
            strata_hal_timepoint_t* timepoint) {
  if (timepoint->prev) {
    timepoint->prev->next = timepoint->next;
  } else {
    semaphore->head = timepoint->next;
  }
  if (timepoint->next) {
    timepoint->next->prev = timepoint->prev;
  } else {
    semaphore->tail = timepoint->prev;
  }
  timepoint->next = nullptr;
  timepoint->prev = nullptr;
}

// Inserts a timepoint keeping the list sorted by value (stable: equal
// values keep their arrival order). Lock held.
void insertSorted(strata_hal_semaphore_t* semaphore,
                  strata_hal_timepoint_t* timepoint) {
  strata_hal_timepoint_t* after = semaphore->tail;
  while (after && after->value > timepoint->value) {
    after = after->prev;
  }
  timepoint->prev = after;
  timepoint->next = after ? after->next : semaphore->head;
  if (timepoint->next) {
    timepoint->next->prev = timepoint;
  } else {
    semaphore->tail = timepoint;
  }
  if (after) {
    after->next = timepoint;
  } else {
    semaphore->head = timepoint;
  }
}

// Moves the timepoints that value (or a failure) resolves onto a private
// list linked through next, disarmed. Lock held.
strata_hal_timepoint_t* takeResolved(strata_hal_semaphore_t* semaphore,
                                     bool all) {
  strata_hal_timepoint_t* resolved = nullptr;
  strata_hal_timepoint_t** tail = &resolved;
  strata_hal_timepoint_t* timepoint = semaphore->head;
  // Sorted: stop at the first timepoint the value does not reach.
  while (timepoint && (all || timepoint->value <= semaphore->value)) {
    strata_hal_timepoint_t* next = timepoint->next;
    unlink(semaphore, timepoint);
    setArmedOn(timepoint, nullptr);
    *tail = timepoint;
    tail = &timepoint->next;
    timepoint = next;
  }
  return resolved;
}

// Runs timepoints taken by takeResolved, without the lock. failure (may be
// NULL) is the semaphore's sticky failure: each callback gets its own copy.
// Each timepoint's reference to the semaphore is dropped after its callback.
void runResolved(strata_hal_semaphore_t* semaphore,
                 strata_hal_timepoint_t* resolved, strata_status_t failure) {
  while (resolved) {
    // Read everything first: once the callback runs, the owner may free or
    // reuse the timepoint storage.
    strata_hal_timepoint_t* next = resolved->next;
    strata_hal_timepoint_fn_t fn = resolved->fn;
    void* user = resolved->user;
    resolved->next = nullptr;
    fn(user, strata_status_clone(failure));
    strata_hal_semaphore_release(semaphore);
    resolved = next;
  }
}

std::chrono::steady_clock::time_point toTimePoint(int64_t deadline_ns) {
  // libstdc++'s steady_clock is CLOCK_MONOTONIC, the clock of deadlines.
  return std::chrono::steady_clock::time_point(
      std::chrono::nanoseconds(deadline_ns));
}

}  // namespace
}  // namespace strata::hal

using namespace strata::hal;

extern "C" {

int64_t strata_hal_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int64_t strata_hal_deadline_after_ns(int64_t timeout_ns) {
  if (timeout_ns < 0) {
    return STRATA_HAL_INFINITE_FUTURE;
  }
  int64_t now = strata_hal_now_ns();
  if (timeout_ns > STRATA_HAL_INFINITE_FUTURE - now) {
    return STRATA_HAL_INFINITE_FUTURE;
  }
  return now + timeout_ns;
}

const strata_vm_ref_type_t* strata_hal_semaphore_type(void) {
  return &kSemaphoreType;
}

strata_status_t
strata_hal_semaphore_create(uint64_t initial_value,
                            strata_allocator_t allocator,
                            strata_hal_semaphore_t** out_semaphore) {
  *out_semaphore = nullptr;
  void* memory =
      strata_allocator_alloc(allocator, sizeof(strata_hal_semaphore_t),
                             alignof(strata_hal_semaphore_t));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a semaphore");
  }
  auto* semaphore = new (memory) strata_hal_semaphore_t();
  strata_vm_ref_object_init(&semaphore->header, &kSemaphoreType);
  semaphore->allocator = allocator;
  semaphore->value = initial_value;
  *out_semaphore = semaphore;
  return nullptr;
}

strata_hal_semaphore_t*
strata_hal_semaphore_from_ref(strata_vm_ref_object_t* ref) {
  return strata_vm_ref_isa(ref, &kSemaphoreType)
             ? reinterpret_cast<strata_hal_semaphore_t*>(ref)
             : nullptr;
}

strata_status_t strata_hal_semaphore_query(strata_hal_semaphore_t* semaphore,
                                           uint64_t* out_value) {
  std::lock_guard<std::mutex> lock(semaphore->mutex);
  *out_value = semaphore->value;
  return strata_status_clone(semaphore->failure);
}

strata_status_t strata_hal_semaphore_signal(strata_hal_semaphore_t* semaphore,
                                            uint64_t new_value) {
  strata_hal_timepoint_t* resolved = nullptr;
  {
    std::lock_guard<std::mutex> lock(semaphore->mutex);
    if (semaphore->failure) {
      return strata_status_clone(semaphore->failure);
    }
    if (new_value <= semaphore->value) {
      return strata_make_status(
          STRATA_STATUS_FAILED_PRECONDITION,
          "semaphore signalled to %llu, which is not above its value %llu",
          static_cast<unsigned long long>(new_value),
          static_cast<unsigned long long>(semaphore->value));
    }
    semaphore->value = new_value;
    resolved = takeResolved(semaphore, /*all=*/false);
    if (semaphore->blocked) {
      semaphore->condition.notify_all();
    }
  }
  runResolved(semaphore, resolved, nullptr);
  return nullptr;
}

void strata_hal_semaphore_fail(strata_hal_semaphore_t* semaphore,
                               strata_status_t status) {
  if (!status) {
    status = strata_make_status(STRATA_STATUS_UNKNOWN,
                                "semaphore failed with an OK status");
  }
  strata_hal_timepoint_t* resolved = nullptr;
  {
    std::lock_guard<std::mutex> lock(semaphore->mutex);
    if (semaphore->failure) {
      strata_status_free(status);
      return;
    }
    semaphore->failure = status;
    resolved = takeResolved(semaphore, /*all=*/true);
    if (semaphore->blocked) {
      semaphore->condition.notify_all();
    }
  }
  // The failure is immutable from here until the semaphore dies, and the
  // callers of fail hold a reference, so reading it unlocked is safe.
  runResolved(semaphore, resolved, status);
}

strata_status_t strata_hal_semaphore_wait(strata_hal_semaphore_t* semaphore,
                                          uint64_t value, int64_t deadline_ns) {
  std::unique_lock<std::mutex> lock(semaphore->mutex);
  for (;;) {
    if (semaphore->failure) {
      return strata_status_clone(semaphore->failure);
    }
    if (semaphore->value >= value) {
      return nullptr;
    }
    if (deadline_ns != STRATA_HAL_INFINITE_FUTURE &&
        strata_hal_now_ns() >= deadline_ns) {
      return strata_make_status(
          STRATA_STATUS_DEADLINE_EXCEEDED,
          "deadline passed waiting for semaphore value %llu (reached %llu)",
          static_cast<unsigned long long>(value),
          static_cast<unsigned long long>(semaphore->value));
    }
    ++semaphore->blocked;
    if (deadline_ns == STRATA_HAL_INFINITE_FUTURE) {
      semaphore->condition.wait(lock);
    } else {
      semaphore->condition.wait_until(lock, toTimePoint(deadline_ns));
    }
    --semaphore->blocked;
  }
}

void strata_hal_semaphore_add_timepoint(strata_hal_semaphore_t* semaphore,
                                        uint64_t value,
                                        strata_hal_timepoint_fn_t fn,
                                        void* user,
                                        strata_hal_timepoint_t* timepoint) {
  timepoint->next = nullptr;
  timepoint->prev = nullptr;
  timepoint->value = value;
  timepoint->fn = fn;
  timepoint->user = user;
  strata_status_t now = nullptr;
  {
    std::lock_guard<std::mutex> lock(semaphore->mutex);
    if (!semaphore->failure && semaphore->value < value) {
      strata_hal_semaphore_retain(semaphore);
      insertSorted(semaphore, timepoint);
      setArmedOn(timepoint, semaphore);
      return;
    }
    setArmedOn(timepoint, nullptr);
    now = strata_status_clone(semaphore->failure);
  }
  fn(user, now);
}

int strata_hal_semaphore_cancel_timepoint(strata_hal_timepoint_t* timepoint) {
  strata_hal_semaphore_t* semaphore = armedOn(timepoint);
  if (!semaphore) {
    return 0;
  }
  {
    std::lock_guard<std::mutex> lock(semaphore->mutex);
    // Resolved (and so disarmed) between the load and the lock.
    if (armedOn(timepoint) != semaphore) {
      return 0;
    }
    unlink(semaphore, timepoint);
    setArmedOn(timepoint, nullptr);
  }
  // The caller holds another reference, so this never destroys it under us.
  strata_hal_semaphore_release(semaphore);
  return 1;
}

}  // extern "C"
