// loop_invoke.cpp - VM invocations as loop operations: each step runs the
// invocation until it completes or suspends, and a suspension becomes the
// loop wait (or a yield) the invocation's deferral asked for.
#include <new>

#include "strata/modules/hal/loop_invoke.h"

namespace {

// One invocation submitted to a loop; allocated with the caller's allocator.
struct InvokeOp {
  strata_allocator_t allocator;
  strata_vm_invocation_t* invocation;
  size_t result_count;
  // Taken when the invocation completes; handed to the callback.
  strata_vm_list_t* outputs;
  strata_hal_loop_invoke_fn_t callback;
  void* user;
};

strata_hal_loop_step_t fail(strata_status_t* out_status,
                            strata_status_t status) {
  *out_status = status;
  return STRATA_HAL_LOOP_STEP_DONE;
}

// A suspended invocation: a wait the loop can subscribe to, a yield, or an
// error for a wait the loop cannot honour without blocking.
strata_hal_loop_step_t park(InvokeOp* op, strata_hal_loop_wait_t* out_wait,
                            strata_status_t* out_status) {
  strata_vm_wait_t wait = strata_vm_invocation_wait(op->invocation);
  if (wait.subscribe && !wait.unsubscribe) {
    return fail(out_status,
                strata_make_status(
                    STRATA_STATUS_FAILED_PRECONDITION,
                    "a native function deferred with a wait that can "
                    "subscribe but not unsubscribe; the loop needs both to "
                    "honour deadlines and to be destroyed"));
  }
  if (wait.subscribe) {
    out_wait->subscribe = wait.subscribe;
    out_wait->unsubscribe = wait.unsubscribe;
    out_wait->user = wait.user;
    out_wait->deadline_ns = wait.deadline_ns;
    return STRATA_HAL_LOOP_STEP_WAIT;
  }
  if (wait.wait) {
    return fail(out_status,
                strata_make_status(
                    STRATA_STATUS_FAILED_PRECONDITION,
                    "a native function deferred with a wait that can only "
                    "block (no subscribe); the loop thread never blocks, so "
                    "this invocation cannot run on a strata_hal_loop"));
  }
  if (strata_vm_invocation_is_deferred(op->invocation)) {
    // Polling it would spin the loop thread until it gives up.
    return fail(out_status,
                strata_make_status(
                    STRATA_STATUS_FAILED_PRECONDITION,
                    "a native function deferred without a wait, so nothing "
                    "can tell the loop when to resume this invocation"));
  }
  // vm.yield: run again on the next turn.
  return STRATA_HAL_LOOP_STEP_YIELD;
}

strata_hal_loop_step_t stepInvoke(void* user, int timed_out,
                                  strata_hal_loop_wait_t* out_wait,
                                  strata_status_t* out_status) {
  auto* op = static_cast<InvokeOp*>(user);
  if (timed_out) {
    strata_vm_invocation_set_timed_out(op->invocation);
  }
  strata_status_t status = strata_vm_invocation_run(op->invocation);
  if (status) {
    return fail(out_status, status);
  }
  switch (strata_vm_invocation_state(op->invocation)) {
    case STRATA_VM_INVOCATION_SUSPENDED: return park(op, out_wait, out_status);
    case STRATA_VM_INVOCATION_COMPLETED: break;
    default:
      return fail(out_status,
                  strata_make_status(STRATA_STATUS_INTERNAL,
                                     "invocation stopped in an unexpected "
                                     "state"));
  }
  strata_vm_list_t* outputs = nullptr;
  status = strata_vm_list_create(op->result_count, op->allocator, &outputs);
  if (!status) {
    status = strata_vm_invocation_take_outputs(op->invocation, outputs);
  }
  if (status) {
    strata_vm_list_release(outputs);
    outputs = nullptr;
  }
  op->outputs = outputs;
  return fail(out_status, status);
}

// Frees the operation (and the invocation), then runs the callback.
void completeInvoke(void* user, strata_status_t status) {
  auto* op = static_cast<InvokeOp*>(user);
  strata_hal_loop_invoke_fn_t callback = op->callback;
  void* callback_user = op->user;
  strata_vm_list_t* outputs = op->outputs;
  if (status) {
    strata_vm_list_release(outputs);
    outputs = nullptr;
  }
  strata_vm_invocation_destroy(op->invocation);
  strata_allocator_t allocator = op->allocator;
  op->~InvokeOp();
  strata_allocator_free(allocator, op);
  callback(callback_user, status, outputs);
}

}  // namespace

extern "C" {

strata_status_t strata_hal_loop_invoke(strata_hal_loop_t* loop,
                                       strata_vm_context_t* context,
                                       strata_vm_function_t function,
                                       const strata_vm_list_t* inputs,
                                       strata_allocator_t allocator,
                                       strata_hal_loop_invoke_fn_t callback,
                                       void* user) {
  return strata_hal_loop_invoke_until(loop, context, function, inputs, 0,
                                      allocator, callback, user);
}

strata_status_t strata_hal_loop_invoke_until(
    strata_hal_loop_t* loop, strata_vm_context_t* context,
    strata_vm_function_t function, const strata_vm_list_t* inputs,
    int64_t deadline_ns, strata_allocator_t allocator,
    strata_hal_loop_invoke_fn_t callback, void* user) {
  strata_vm_invocation_t* invocation = nullptr;
  STRATA_RETURN_IF_ERROR(strata_vm_invocation_create(context, function, inputs,
                                                     allocator, &invocation));
  strata_vm_invocation_set_deadline(invocation, deadline_ns);
  void* memory =
      strata_allocator_alloc(allocator, sizeof(InvokeOp), alignof(InvokeOp));
  if (!memory) {
    strata_vm_invocation_destroy(invocation);
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory submitting to a loop");
  }
  auto* op = new (memory) InvokeOp();
  op->allocator = allocator;
  op->invocation = invocation;
  op->result_count =
      strata_vm_function_signature(context, function).results_length;
  op->outputs = nullptr;
  op->callback = callback;
  op->user = user;
  strata_hal_loop_op_t loop_op{};
  loop_op.step = stepInvoke;
  loop_op.complete = completeInvoke;
  loop_op.user = op;
  strata_status_t status = strata_hal_loop_submit(loop, loop_op);
  if (status) {
    strata_vm_invocation_destroy(invocation);
    op->~InvokeOp();
    strata_allocator_free(allocator, op);
  }
  return status;
}

}  // extern "C"
