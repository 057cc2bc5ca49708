// fence_wait.cpp - the VM wait on a fence (strata_hal_fence_make_vm_wait):
// blocks with strata_hal_fence_wait, subscribes through the fence's
// notify-only subscriptions.
#include <cstdint>

#include "strata/modules/hal/module.h"

namespace {

strata_status_t vmWaitWait(void* user, int64_t deadline_ns) {
  auto* fence = static_cast<strata_hal_fence_t*>(user);
  strata_status_t status = strata_hal_fence_wait(fence, deadline_ns);
  if (!status ||
      strata_status_code(status) == STRATA_STATUS_DEADLINE_EXCEEDED) {
    return status;
  }
  // A failed fence ends the wait; the call reruns and reports the failure
  // itself. Anything else (out of memory) breaks the wait.
  int reached = 0;
  strata_status_t failure = strata_hal_fence_query(fence, &reached);
  if (failure) {
    strata_status_free(failure);
    strata_status_free(status);
    return nullptr;
  }
  return status;
}

strata_status_t vmWaitSubscribe(void* user, strata_vm_notify_fn_t notify,
                                void* notify_user, void** out_token) {
  auto* fence = static_cast<strata_hal_fence_t*>(user);
  strata_hal_fence_token_t token = 0;
  strata_status_t status =
      strata_hal_fence_subscribe_notify(fence, notify, notify_user, &token);
  *out_token = reinterpret_cast<void*>(static_cast<uintptr_t>(token));
  return status;
}

int vmWaitUnsubscribe(void* user, void* token) {
  return strata_hal_fence_unsubscribe(static_cast<strata_hal_fence_t*>(user),
                                      static_cast<strata_hal_fence_token_t>(
                                          reinterpret_cast<uintptr_t>(token)));
}

static_assert(sizeof(uintptr_t) >= sizeof(strata_hal_fence_token_t),
              "fence tokens travel through the VM wait as pointers");

}  // namespace

extern "C" strata_vm_wait_t strata_hal_fence_make_vm_wait(
    strata_hal_fence_t* fence, int64_t deadline_ns) {
  strata_vm_wait_t wait{};
  wait.wait = vmWaitWait;
  wait.user = fence;
  wait.subscribe = vmWaitSubscribe;
  wait.unsubscribe = vmWaitUnsubscribe;
  wait.deadline_ns =
      deadline_ns == 0 ? STRATA_HAL_INFINITE_FUTURE : deadline_ns;
  return wait;
}
