// hal_module_fences.cpp - the hal module's fence exports, including
// fence.await, which suspends the invocation while its fences are pending
// (documented in the table at the top of hal_module.cpp).
#include <cstdint>

#include "hal_module_impl.h"
#include "strata/base/trace.h"

namespace strata::hal {
namespace {

// Milliseconds to an absolute deadline; negative means none.
int64_t deadlineAfterMs(int32_t timeout_ms) {
  if (timeout_ms < 0) {
    return STRATA_HAL_INFINITE_FUTURE;
  }
  return strata_hal_deadline_after_ns(int64_t{timeout_ms} * 1000000);
}

}  // namespace

strata_status_t HalState::fenceCreate(strata_hal_device_t* device,
                                      int32_t /*flags*/,
                                      Ref<strata_hal_fence_t>* out) {
  return strata_hal_fence_create_pending(strata_hal_device_allocator(device),
                                         out->out());
}

strata_status_t HalState::fenceJoin(const NativeCall& call, Fences span,
                                    Ref<strata_hal_fence_t>* out) {
  strata_hal_fence_t* fences[kMaxSpanRefs];
  size_t count = 0;
  STRATA_RETURN_IF_ERROR(gatherSpan(call, span, "fences", fences, &count));
  return strata_hal_fence_join(fences, count, allocator, out->out());
}

int32_t HalState::fenceQuery(strata_hal_fence_t* fence) {
  int reached = 0;
  strata_status_t failure = strata_hal_fence_query(fence, &reached);
  if (failure) {
    auto code = static_cast<int32_t>(strata_status_code(failure));
    strata_status_free(failure);
    return code;
  }
  return reached ? 0 : kFencePending;
}

strata_status_t HalState::fenceSignal(strata_hal_fence_t* fence) {
  return strata_hal_fence_signal(fence);
}

strata_status_t HalState::fenceFail(const NativeCall& call,
                                    strata_hal_fence_t* fence, int32_t code) {
  if (code <= STRATA_STATUS_OK || code > STRATA_STATUS_DATA_LOSS) {
    return call.fail(STRATA_STATUS_INVALID_ARGUMENT,
                     "argument 1 (status code) is %d; it must be a failure "
                     "code, 1 to %d",
                     code, STRATA_STATUS_DATA_LOSS);
  }
  strata_hal_fence_fail(
      fence, strata_make_status(static_cast<strata_status_code_t>(code),
                                "fence failed by hal.fence.fail"));
  return nullptr;
}

// Every fence is queried on each run: a failure anywhere fails the call, all
// reached answers 0. Otherwise the call defers on the first pending fence
// (borrowed: the caller's registers keep it alive while the invocation is
// suspended) and runs again when it resolves or the deadline passes. With
// several pending fences the timeout restarts each time one resolves; the
// compiler joins fences with fence.join when it needs one deadline.
strata_status_t HalState::fenceAwait(const NativeCall& call, int32_t timeout_ms,
                                     Fences span, int32_t* out) {
  strata_hal_fence_t* fences[kMaxSpanRefs];
  size_t count = 0;
  STRATA_RETURN_IF_ERROR(gatherSpan(call, span, "fences", fences, &count));
  strata_hal_fence_t* pending = nullptr;
  for (size_t i = 0; i < count; ++i) {
    int reached = 0;
    STRATA_RETURN_IF_ERROR(strata_hal_fence_query(fences[i], &reached));
    if (!reached && !pending) {
      pending = fences[i];
    }
  }
  if (!pending) {
    // Traced as a wait that found its fences reached, so a trace shows the
    // await whether the work ended before it or not.
    strata_trace_t* trace = strata_trace_installed();
    if (trace && count > 0) {
      int64_t now = strata_trace_now_ns();
      strata_trace_record(trace, "wait", "fence.wait", STRATA_TRACE_TRACK_HOST,
                          now, now, "\"ok\": true, \"reached\": true");
    }
    *out = 0;
    return nullptr;
  }
  strata_vm_native_call_t* native_call = call.raw();
  if (native_call && strata_vm_native_call_timed_out(native_call) &&
      strata_hal_deadline_after_ns(0) >=
          strata_vm_native_call_deadline_ns(native_call)) {
    // The call's own deadline passed with device work in flight. That work
    // may never finish (a kernel that does not return): the caller gets
    // DEADLINE_EXCEEDED now and the devices of this context are lost, so
    // no later call waits behind it or reads what it half wrote.
    for (size_t i = 0; i < device_count; ++i) {
      strata_hal_device_lose(devices[i],
                             "a call's deadline passed while it waited for "
                             "the device's work");
    }
    return strata_make_status(
        STRATA_STATUS_DEADLINE_EXCEEDED,
        "the call's deadline passed while it waited for device work; the "
        "device is now lost");
  }
  if (timeout_ms == 0 ||
      (native_call && strata_vm_native_call_timed_out(native_call))) {
    *out = STRATA_STATUS_DEADLINE_EXCEEDED;
    return nullptr;
  }
  strata_vm_native_call_set_wait(
      native_call,
      strata_hal_fence_make_vm_wait(pending, deadlineAfterMs(timeout_ms)));
  return strata_status_deferred();
}

}  // namespace strata::hal
