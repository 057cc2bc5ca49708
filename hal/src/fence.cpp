// fence.cpp - fences (sets of semaphore/value pairs), their cancellable
// subscriptions and blocking waits.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>

#include "strata/base/trace.h"
#include "strata/hal/semaphore.h"

namespace strata::hal {
namespace {

struct FencePair {
  strata_hal_semaphore_t* semaphore;  // retained
  uint64_t value;
};

struct Subscription;

}  // namespace
}  // namespace strata::hal

struct strata_hal_fence_t {
  strata_vm_ref_object_t header;
  strata_allocator_t allocator;
  size_t count = 0;
  size_t capacity = 0;
  // Points at the storage after this struct, or at a larger allocation once
  // insert outgrew it.
  strata::hal::FencePair* pairs = nullptr;
  // Guards the live subscriptions and next_token.
  std::mutex mutex;
  strata::hal::Subscription* subscriptions = nullptr;
  uint64_t next_token = 1;
};

namespace strata::hal {
namespace {

// A fence subscription: one timepoint per pair, a countdown of the pairs
// not reached yet, and a claim that exactly one party wins: the timepoint
// that completes the countdown, the first failing timepoint, or
// unsubscribe. The record is reference counted: one reference for the
// claim, one per armed timepoint, one held while subscribe arms them. It
// retains the fence, which retains the semaphores, so cancelling timepoints
// from any party is always safe.
//
// Unsubscribe finds a subscription by token in the fence's list, under the
// fence's lock, and the firing party unlinks it under the same lock before
// running the callback, so a late unsubscribe never touches freed memory.
struct Subscription {
  Subscription* next;
  Subscription* prev;
  strata_hal_fence_t* fence;  // retained
  strata_allocator_t allocator;
  strata_hal_fence_token_t token;
  strata_hal_timepoint_fn_t fn;  // either fn(user, status)
  strata_hal_notify_fn_t notify;  // or notify(user)
  void* user;
  std::atomic<bool> claimed{false};
  std::atomic<size_t> remaining;
  std::atomic<size_t> references;
  size_t timepoint_count;
  strata_hal_timepoint_t* timepoints;  // trailing storage
};

void destroyFence(strata_vm_ref_object_t* object) {
  auto* fence = reinterpret_cast<strata_hal_fence_t*>(object);
  // Live subscriptions retain the fence, so none can be left here.
  for (size_t i = 0; i < fence->count; ++i) {
    strata_hal_semaphore_release(fence->pairs[i].semaphore);
  }
  strata_allocator_t allocator = fence->allocator;
  if (fence->pairs != reinterpret_cast<FencePair*>(fence + 1)) {
    strata_allocator_free(allocator, fence->pairs);
  }
  fence->~strata_hal_fence_t();
  strata_allocator_free(allocator, fence);
}

const strata_vm_ref_type_t kFenceType = {"hal.fence", destroyFence};

void releaseSubscription(Subscription* s, size_t n = 1) {
  if (s->references.fetch_sub(n, std::memory_order_acq_rel) != n) {
    return;
  }
  strata_hal_fence_t* fence = s->fence;
  strata_allocator_t allocator = s->allocator;
  s->~Subscription();
  strata_allocator_free(allocator, s);
  strata_hal_fence_release(fence);
}

// Lock held.
void unlinkSubscription(strata_hal_fence_t* fence, Subscription* s) {
  if (s->prev) {
    s->prev->next = s->next;
  } else {
    fence->subscriptions = s->next;
  }
  if (s->next) {
    s->next->prev = s->prev;
  }
  s->next = s->prev = nullptr;
}

// Disarms the timepoints that have not run; each one disarmed gives back
// its reference. Those that ran or are running give theirs back themselves.
void disarmAll(Subscription* s) {
  size_t disarmed = 0;
  for (size_t i = 0; i < s->timepoint_count; ++i) {
    disarmed += static_cast<size_t>(
        strata_hal_semaphore_cancel_timepoint(&s->timepoints[i]));
  }
  if (disarmed) {
    releaseSubscription(s, disarmed);
  }
}

void deliver(strata_hal_timepoint_fn_t fn, strata_hal_notify_fn_t notify,
             void* user, strata_status_t status) {
  if (notify) {
    strata_status_free(status);
    notify(user);
  } else {
    fn(user, status);
  }
}

// The party that won the claim: unlink, run the callback, disarm the rest.
void fire(Subscription* s, strata_status_t status) {
  {
    std::lock_guard<std::mutex> lock(s->fence->mutex);
    unlinkSubscription(s->fence, s);
  }
  deliver(s->fn, s->notify, s->user, status);
  disarmAll(s);
  releaseSubscription(s);  // the claim's reference
}

// Sequentially consistent: pairs with the arming loop in subscribe, which
// arms a timepoint and then reads the claim (see there).
bool claim(Subscription* s) {
  return !s->claimed.exchange(true, std::memory_order_seq_cst);
}

void onTimepoint(void* user, strata_status_t status) {
  auto* s = static_cast<Subscription*>(user);
  if (status) {
    if (claim(s)) {
      fire(s, status);
    } else {
      strata_status_free(status);
    }
  } else if (s->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1 &&
             claim(s)) {
    fire(s, nullptr);
  }
  releaseSubscription(s);  // this timepoint's reference
}

// Resolves a fence without blocking: OK with *out_reached, or its failure.
strata_status_t queryFence(strata_hal_fence_t* fence, int* out_reached) {
  *out_reached = 1;
  for (size_t i = 0; i < fence->count; ++i) {
    uint64_t value = 0;
    STRATA_RETURN_IF_ERROR(
        strata_hal_semaphore_query(fence->pairs[i].semaphore, &value));
    if (value < fence->pairs[i].value) {
      *out_reached = 0;
    }
  }
  return nullptr;
}

strata_status_t subscribe(strata_hal_fence_t* fence,
                          strata_allocator_t allocator,
                          strata_hal_timepoint_fn_t fn,
                          strata_hal_notify_fn_t notify, void* user,
                          strata_hal_fence_token_t* out_token) {
  *out_token = 0;
  int reached = 0;
  strata_status_t failure = queryFence(fence, &reached);
  if (failure || reached) {
    deliver(fn, notify, user, failure);
    return nullptr;
  }
  size_t count = fence->count;
  void* memory = strata_allocator_alloc(
      allocator, sizeof(Subscription) + count * sizeof(strata_hal_timepoint_t),
      alignof(Subscription));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory subscribing to a fence");
  }
  auto* s = new (memory) Subscription();
  s->fence = fence;
  strata_hal_fence_retain(fence);
  s->allocator = allocator;
  s->fn = fn;
  s->notify = notify;
  s->user = user;
  s->remaining.store(count, std::memory_order_relaxed);
  // The claim's reference and the one held while arming.
  s->references.store(2, std::memory_order_relaxed);
  s->timepoint_count = count;
  s->timepoints = reinterpret_cast<strata_hal_timepoint_t*>(s + 1);
  std::memset(s->timepoints, 0, count * sizeof(strata_hal_timepoint_t));
  strata_hal_fence_token_t token = 0;
  {
    std::lock_guard<std::mutex> lock(fence->mutex);
    token = fence->next_token++;
    s->token = token;
    s->next = fence->subscriptions;
    if (s->next) {
      s->next->prev = s;
    }
    fence->subscriptions = s;
  }
  for (size_t i = 0; i < count; ++i) {
    if (s->claimed.load(std::memory_order_seq_cst)) {
      break;  // resolved already (a failure): the rest need not be armed
    }
    s->references.fetch_add(1, std::memory_order_relaxed);
    strata_hal_semaphore_add_timepoint(fence->pairs[i].semaphore,
                                       fence->pairs[i].value, onTimepoint, s,
                                       &s->timepoints[i]);
    // The winner of a claim made while this timepoint was being armed may
    // have swept past it; whichever of us disarms it first gets 1.
    if (s->claimed.load(std::memory_order_seq_cst) &&
        strata_hal_semaphore_cancel_timepoint(&s->timepoints[i])) {
      releaseSubscription(s);
    }
  }
  releaseSubscription(s);  // the arming reference
  *out_token = token;
  return nullptr;
}

int unsubscribe(strata_hal_fence_t* fence, strata_hal_fence_token_t token) {
  if (!token) {
    return 0;
  }
  Subscription* s = nullptr;
  {
    std::lock_guard<std::mutex> lock(fence->mutex);
    for (Subscription* it = fence->subscriptions; it; it = it->next) {
      if (it->token == token) {
        s = it;
        break;
      }
    }
    // Gone (fired and unlinked), or firing: the winner unlinks it next.
    if (!s || !claim(s)) {
      return 0;
    }
    unlinkSubscription(fence, s);
  }
  disarmAll(s);
  releaseSubscription(s);  // the claim's reference
  return 1;
}

// Blocks on a subscription with a deadline. The callback's state lives on
// this stack frame, so on a timeout the frame waits until unsubscribe has
// taken the callback back or the callback has finished.
struct BlockingWaiter {
  std::mutex mutex;
  std::condition_variable condition;
  bool done = false;
  strata_status_t status = nullptr;
};

void onBlockingResolved(void* user, strata_status_t status) {
  auto* waiter = static_cast<BlockingWaiter*>(user);
  std::lock_guard<std::mutex> lock(waiter->mutex);
  waiter->done = true;
  waiter->status = status;
  // Under the lock: the waiter cannot return (and pop its frame) before
  // this thread has left the lock.
  waiter->condition.notify_one();
}

strata_status_t waitMany(strata_hal_fence_t* fence, int64_t deadline_ns) {
  BlockingWaiter waiter;
  strata_hal_fence_token_t token = 0;
  STRATA_RETURN_IF_ERROR(subscribe(fence, fence->allocator, onBlockingResolved,
                                   nullptr, &waiter, &token));
  std::unique_lock<std::mutex> lock(waiter.mutex);
  while (!waiter.done) {
    if (deadline_ns == STRATA_HAL_INFINITE_FUTURE) {
      waiter.condition.wait(lock);
      continue;
    }
    if (strata_hal_now_ns() < deadline_ns) {
      waiter.condition.wait_until(lock,
                                  std::chrono::steady_clock::time_point(
                                      std::chrono::nanoseconds(deadline_ns)));
      continue;
    }
    lock.unlock();
    int cancelled = unsubscribe(fence, token);
    lock.lock();
    if (cancelled) {
      return strata_make_status(
          STRATA_STATUS_DEADLINE_EXCEEDED,
          "deadline passed waiting for a fence of %zu semaphores",
          fence->count);
    }
    // The callback is on its way; it only takes the lock and notifies.
    while (!waiter.done) {
      waiter.condition.wait(lock);
    }
  }
  return waiter.status;
}

}  // namespace
}  // namespace strata::hal

using namespace strata::hal;

extern "C" {

const strata_vm_ref_type_t* strata_hal_fence_type(void) { return &kFenceType; }

strata_hal_fence_t* strata_hal_fence_from_ref(strata_vm_ref_object_t* ref) {
  return strata_vm_ref_isa(ref, &kFenceType)
             ? reinterpret_cast<strata_hal_fence_t*>(ref)
             : nullptr;
}

strata_status_t strata_hal_fence_create(size_t capacity,
                                        strata_allocator_t allocator,
                                        strata_hal_fence_t** out_fence) {
  *out_fence = nullptr;
  static_assert(alignof(strata_hal_fence_t) >= alignof(FencePair),
                "pairs follow the fence");
  if (capacity > (SIZE_MAX - sizeof(strata_hal_fence_t)) / sizeof(FencePair)) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "fence capacity %zu is too large", capacity);
  }
  void* memory = strata_allocator_alloc(
      allocator, sizeof(strata_hal_fence_t) + capacity * sizeof(FencePair),
      alignof(strata_hal_fence_t));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a fence of %zu pairs",
                              capacity);
  }
  auto* fence = new (memory) strata_hal_fence_t();
  strata_vm_ref_object_init(&fence->header, &kFenceType);
  fence->allocator = allocator;
  fence->capacity = capacity;
  fence->pairs = reinterpret_cast<FencePair*>(fence + 1);
  *out_fence = fence;
  return nullptr;
}

strata_status_t
strata_hal_fence_create_pending(strata_allocator_t allocator,
                                strata_hal_fence_t** out_fence) {
  *out_fence = nullptr;
  strata_hal_semaphore_t* semaphore = nullptr;
  STRATA_RETURN_IF_ERROR(strata_hal_semaphore_create(0, allocator, &semaphore));
  strata_hal_fence_t* fence = nullptr;
  strata_status_t status = strata_hal_fence_create(1, allocator, &fence);
  if (!status) {
    status = strata_hal_fence_insert(fence, semaphore, 1);
  }
  strata_hal_semaphore_release(semaphore);
  if (status) {
    strata_hal_fence_release(fence);
    return status;
  }
  *out_fence = fence;
  return nullptr;
}

strata_status_t strata_hal_fence_insert(strata_hal_fence_t* fence,
                                        strata_hal_semaphore_t* semaphore,
                                        uint64_t value) {
  for (size_t i = 0; i < fence->count; ++i) {
    if (fence->pairs[i].semaphore == semaphore) {
      if (value > fence->pairs[i].value) {
        fence->pairs[i].value = value;
      }
      return nullptr;
    }
  }
  if (fence->count == fence->capacity) {
    size_t capacity = fence->capacity ? fence->capacity * 2 : 4;
    auto* grown = static_cast<FencePair*>(strata_allocator_alloc(
        fence->allocator, capacity * sizeof(FencePair), alignof(FencePair)));
    if (!grown) {
      return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                "out of memory growing a fence to %zu pairs",
                                capacity);
    }
    if (fence->count) {
      std::memcpy(grown, fence->pairs, fence->count * sizeof(FencePair));
    }
    if (fence->pairs != reinterpret_cast<FencePair*>(fence + 1)) {
      strata_allocator_free(fence->allocator, fence->pairs);
    }
    fence->pairs = grown;
    fence->capacity = capacity;
  }
  strata_hal_semaphore_retain(semaphore);
  fence->pairs[fence->count++] = FencePair{semaphore, value};
  return nullptr;
}

strata_status_t strata_hal_fence_join(strata_hal_fence_t* const* fences,
                                      size_t count,
                                      strata_allocator_t allocator,
                                      strata_hal_fence_t** out_fence) {
  *out_fence = nullptr;
  size_t capacity = 0;
  for (size_t i = 0; i < count; ++i) {
    capacity += fences[i] ? fences[i]->count : 0;
  }
  strata_hal_fence_t* joined = nullptr;
  STRATA_RETURN_IF_ERROR(strata_hal_fence_create(capacity, allocator, &joined));
  for (size_t i = 0; i < count; ++i) {
    if (!fences[i]) {
      continue;
    }
    for (size_t j = 0; j < fences[i]->count; ++j) {
      // Within the capacity reserved above, so this cannot fail.
      strata_status_t status = strata_hal_fence_insert(
          joined, fences[i]->pairs[j].semaphore, fences[i]->pairs[j].value);
      if (status) {
        strata_hal_fence_release(joined);
        return status;
      }
    }
  }
  *out_fence = joined;
  return nullptr;
}

size_t strata_hal_fence_count(const strata_hal_fence_t* fence) {
  return fence->count;
}

void strata_hal_fence_at(const strata_hal_fence_t* fence, size_t i,
                         strata_hal_semaphore_t** out_semaphore,
                         uint64_t* out_value) {
  *out_semaphore = fence->pairs[i].semaphore;
  *out_value = fence->pairs[i].value;
}

strata_status_t strata_hal_fence_query(strata_hal_fence_t* fence,
                                       int* out_reached) {
  return queryFence(fence, out_reached);
}

strata_status_t strata_hal_fence_signal(strata_hal_fence_t* fence) {
  for (size_t i = 0; i < fence->count; ++i) {
    STRATA_RETURN_IF_ERROR(strata_hal_semaphore_signal(
        fence->pairs[i].semaphore, fence->pairs[i].value));
  }
  return nullptr;
}

void strata_hal_fence_fail(strata_hal_fence_t* fence, strata_status_t status) {
  for (size_t i = 0; i < fence->count; ++i) {
    strata_hal_semaphore_fail(fence->pairs[i].semaphore,
                              strata_status_clone(status));
  }
  strata_status_free(status);
}

namespace {
// The wait itself (strata_hal_fence_wait adds the trace event).
strata_status_t waitFence(strata_hal_fence_t* fence, int64_t deadline_ns) {
  if (fence->count == 1) {
    return strata_hal_semaphore_wait(fence->pairs[0].semaphore,
                                     fence->pairs[0].value, deadline_ns);
  }
  int reached = 0;
  STRATA_RETURN_IF_ERROR(queryFence(fence, &reached));
  if (reached) {
    return nullptr;
  }
  if (deadline_ns != STRATA_HAL_INFINITE_FUTURE &&
      strata_hal_now_ns() >= deadline_ns) {
    return strata_make_status(
        STRATA_STATUS_DEADLINE_EXCEEDED,
        "deadline passed waiting for a fence of %zu semaphores", fence->count);
  }
  // Waiting on each pair in turn would miss a failure of a later pair while
  // an earlier one is still pending: wait on all of them at once.
  return waitMany(fence, deadline_ns);
}
}  // namespace

strata_status_t strata_hal_fence_wait(strata_hal_fence_t* fence,
                                      int64_t deadline_ns) {
  strata_trace_t* trace = strata_trace_installed();
  if (!trace) {
    return waitFence(fence, deadline_ns);
  }
  // Tracing: the wait, on the host track (blocking waits are the host's).
  int64_t start = strata_trace_now_ns();
  strata_status_t status = waitFence(fence, deadline_ns);
  strata_trace_record(trace, "wait", "fence.wait", STRATA_TRACE_TRACK_HOST,
                      start, strata_trace_now_ns(),
                      status ? "\"ok\": false" : "\"ok\": true");
  return status;
}


strata_status_t strata_hal_fence_on_resolved(strata_hal_fence_t* fence,
                                             strata_allocator_t allocator,
                                             strata_hal_timepoint_fn_t fn,
                                             void* user) {
  strata_hal_fence_token_t token = 0;
  return subscribe(fence, allocator, fn, nullptr, user, &token);
}

strata_status_t
strata_hal_fence_subscribe(strata_hal_fence_t* fence,
                           strata_allocator_t allocator,
                           strata_hal_timepoint_fn_t fn, void* user,
                           strata_hal_fence_token_t* out_token) {
  return subscribe(fence, allocator, fn, nullptr, user, out_token);
}

int strata_hal_fence_unsubscribe(strata_hal_fence_t* fence,
                                 strata_hal_fence_token_t token) {
  return unsubscribe(fence, token);
}

strata_status_t strata_hal_fence_subscribe_notify(
    strata_hal_fence_t* fence, strata_hal_notify_fn_t notify, void* user,
    strata_hal_fence_token_t* out_token) {
  return subscribe(fence, fence->allocator, nullptr, notify, user, out_token);
}

}  // extern "C"
