// device.cpp - hal.device: creation and the queue (waits on fences through
// semaphore timepoints, recycled submission records). What runs a resolved
// submission is the device kind's: device_local_sync.cpp (on the thread
// that resolved it) and device_local_task.cpp (on the worker pool).
#include <pthread.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <new>


#include "device_impl.h"
#include "executable_impl.h"
#include "strata/base/trace.h"
#include "strata/hal/semaphore.h"

namespace strata::hal {
namespace {

// Local memory each local-task worker preallocates; larger kernels grow a
// worker's scratch once.
constexpr uint32_t kDefaultLocalMemory = 64 * 1024;

void destroyDevice(strata_vm_ref_object_t* object);
const strata_vm_ref_type_t kDeviceType = {"hal.device", destroyDevice};

//===----------------------------------------------------------------------===//
// Submission records
//===----------------------------------------------------------------------===//

// Releases what a record still holds from its finished submission: its
// command buffers and, on local-task, its fences.
void releaseHeld(Submission* submission) {
  for (size_t i = 0; i < submission->command_buffer_count; ++i) {
    strata_hal_command_buffer_release(submission->command_buffers[i]);
    submission->command_buffers[i] = nullptr;
  }
  submission->command_buffer_count = 0;
  strata_hal_fence_release(submission->signalled_fence);
  submission->signalled_fence = nullptr;
  strata_hal_fence_release(submission->wait_fence);
  submission->wait_fence = nullptr;
}

bool holdsFinished(const Submission* submission) {
  return submission->command_buffer_count || submission->signalled_fence ||
         submission->wait_fence;
}

// Releases what the retired records hold (see
// finishSubmission) and makes the records free. Runs on the thread that
// queues the next work, before it takes a record, or on an idle worker;
// never under the device mutex.
void releaseRetired(strata_hal_device_t* device) {
  Submission* records;
  {
    std::lock_guard<std::mutex> lock(device->mutex);
    records = device->retired_head;
    device->retired_head = nullptr;
  }
  if (!records) {
    return;
  }
  Submission* tail = records;
  for (Submission* r = records; r; r = r->free_next) {
    releaseHeld(r);
    tail = r;
  }
  std::lock_guard<std::mutex> lock(device->mutex);
  tail->free_next = device->free_head;
  device->free_head = records;
}

void onPoolIdle(void* user) {
  releaseRetired(static_cast<strata_hal_device_t*>(user));
}

void freeRecord(strata_allocator_t allocator, Submission* submission) {
  releaseHeld(submission);
  if (submission->timepoints != submission->inline_timepoints) {
    strata_allocator_free(allocator, submission->timepoints);
  }
  if (submission->command_buffers != submission->inline_command_buffers) {
    strata_allocator_free(allocator, submission->command_buffers);
  }
  if (submission->jobs != submission->inline_jobs) {
    for (size_t i = 0; i < submission->job_capacity; ++i) {
      submission->jobs[i].~BatchJob();
    }
    strata_allocator_free(allocator, submission->jobs);
  }
  submission->~Submission();
  strata_allocator_free(allocator, submission);
}

// Takes a record from the free list (or allocates one) with room for
// command_buffer_count command buffers, timepoint_count timepoints and
// job_count local-task jobs, and links it into the live list with one
// reference.
strata_status_t acquireSubmission(strata_hal_device_t* device, SubmissionOp op,
                                  size_t command_buffer_count,
                                  size_t timepoint_count, size_t job_count,
                                  Submission** out_submission) {
  *out_submission = nullptr;
  releaseRetired(device);
  Submission* submission = nullptr;
  {
    std::lock_guard<std::mutex> lock(device->mutex);
    Submission** link = &device->free_head;
    if (job_count > kInlineJobs) {
      // A wide batch takes a record already grown for it, if one is free,
      // so that records do not all grow one after the other.
      for (Submission** it = link; *it; it = &(*it)->free_next) {
        if ((*it)->job_capacity >= job_count) {
          link = it;
          break;
        }
      }
    }
    if ((submission = *link)) {
      *link = submission->free_next;
      submission->free_next = nullptr;
    }
  }
  if (!submission) {
    void* memory = strata_allocator_alloc(device->allocator, sizeof(Submission),
                                          alignof(Submission));
    if (!memory) {
      return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                "out of memory queueing work on device '%s'",
                                device->name);
    }
    submission = new (memory) Submission();
    submission->command_buffers = submission->inline_command_buffers;
    submission->timepoints = submission->inline_timepoints;
    submission->jobs = submission->inline_jobs;
    submission->task.user = submission;
    for (BatchJob& job : submission->inline_jobs) {
      job.job.user = submission;
    }
  }
  // Grow the arrays if needed; grown arrays stay with the record.
  strata_status_t status = nullptr;
  if (command_buffer_count > submission->command_buffer_capacity) {
    auto* grown = static_cast<strata_hal_command_buffer_t**>(
        strata_allocator_alloc(device->allocator,
                               command_buffer_count * sizeof(void*),
                               alignof(void*)));
    if (grown) {
      if (submission->command_buffers != submission->inline_command_buffers) {
        strata_allocator_free(device->allocator, submission->command_buffers);
      }
      submission->command_buffers = grown;
      submission->command_buffer_capacity = command_buffer_count;
    } else {
      status = strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                  "out of memory queueing %zu command buffers",
                                  command_buffer_count);
    }
  }
  if (!status && timepoint_count > submission->timepoint_capacity) {
    auto* grown = static_cast<strata_hal_timepoint_t*>(strata_allocator_alloc(
        device->allocator, timepoint_count * sizeof(strata_hal_timepoint_t),
        alignof(strata_hal_timepoint_t)));
    if (grown) {
      if (submission->timepoints != submission->inline_timepoints) {
        strata_allocator_free(device->allocator, submission->timepoints);
      }
      submission->timepoints = grown;
      submission->timepoint_capacity = timepoint_count;
    } else {
      status = strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                  "out of memory waiting on a fence of %zu "
                                  "semaphores",
                                  timepoint_count);
    }
  }
  if (!status && job_count > submission->job_capacity) {
    // Grown to the batch size asked for, once per record: a steady stream
    // of submissions of the same command buffers allocates nothing.
    void* memory = job_count <= SIZE_MAX / sizeof(BatchJob)
                       ? strata_allocator_alloc(device->allocator,
                                                job_count * sizeof(BatchJob),
                                                alignof(BatchJob))
                       : nullptr;
    if (memory) {
      if (submission->jobs != submission->inline_jobs) {
        for (size_t i = 0; i < submission->job_capacity; ++i) {
          submission->jobs[i].~BatchJob();
        }
        strata_allocator_free(device->allocator, submission->jobs);
      }
      submission->jobs = static_cast<BatchJob*>(memory);
      for (size_t i = 0; i < job_count; ++i) {
        new (&submission->jobs[i]) BatchJob();
        submission->jobs[i].job.user = submission;
      }
      submission->job_capacity = job_count;
    } else {
      status = strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                  "out of memory queueing a batch of %zu "
                                  "concurrent dispatches",
                                  job_count);
    }
  }
  if (status) {
    std::lock_guard<std::mutex> lock(device->mutex);
    submission->free_next = device->free_head;
    device->free_head = submission;
    return status;
  }
  submission->device = device;
  submission->op = op;
  submission->wait_fence = nullptr;
  submission->signal_fence = nullptr;
  submission->buffer = nullptr;
  submission->command_buffer_count = 0;
  submission->timepoint_count = 0;
  std::memset(static_cast<void*>(submission->timepoints), 0,
              timepoint_count * sizeof(strata_hal_timepoint_t));
  submission->refs.store(1, std::memory_order_relaxed);
  submission->unreached.store(0, std::memory_order_relaxed);
  submission->resolved.store(false, std::memory_order_relaxed);
  submission->wait_status = nullptr;
  submission->cb_index = 0;
  submission->command = nullptr;
  submission->batch_job_count = 0;
  submission->batch_pending.store(0, std::memory_order_relaxed);
  submission->cancel_visited = false;
  submission->sync_next = nullptr;
  {
    std::lock_guard<std::mutex> lock(device->mutex);
    submission->live_prev = nullptr;
    submission->live_next = device->live_head;
    if (device->live_head) {
      device->live_head->live_prev = submission;
    }
    device->live_head = submission;
    ++device->live_count;
  }
  *out_submission = submission;
  return nullptr;
}

// Drops a reference; the last one returns the record to the free list, or
// on local-task to the retired list while it holds its command buffers or
// fences (see finishSubmission).
void releaseSubmission(Submission* submission) {
  if (submission->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) {
    return;
  }
  strata_hal_device_t* device = submission->device;
  if (device->kind != DeviceKind::kLocalTask) {
    strata_hal_fence_release(submission->wait_fence);
    submission->wait_fence = nullptr;
  }
  std::lock_guard<std::mutex> lock(device->mutex);
  if (submission->live_prev) {
    submission->live_prev->live_next = submission->live_next;
  } else {
    device->live_head = submission->live_next;
  }
  if (submission->live_next) {
    submission->live_next->live_prev = submission->live_prev;
  }
  Submission** list =
      holdsFinished(submission) ? &device->retired_head : &device->free_head;
  submission->free_next = *list;
  *list = submission;
  // Notified under the lock: once it is released, a destroying device may
  // be freed at any moment.
  if (--device->live_count == 0 && device->destroying) {
    device->idle.notify_all();
  }
}

//===----------------------------------------------------------------------===//
// Waiting
//===----------------------------------------------------------------------===//

void startResolved(Submission* submission) {
  if (submission->device->kind == DeviceKind::kLocalSync) {
    localSyncStart(submission);
  } else {
    localTaskStart(submission);
  }
}

// Timepoint callback: one pair of the wait fence was reached or failed.
void onTimepoint(void* user, strata_status_t status) {
  auto* submission = static_cast<Submission*>(user);
  if (status) {
    // A failure resolves at once; the other pairs need not be reached.
    if (!submission->resolved.exchange(true, std::memory_order_acq_rel)) {
      submission->wait_status = status;
      startResolved(submission);
    } else {
      strata_status_free(status);
    }
  } else if (submission->unreached.fetch_sub(1, std::memory_order_acq_rel) ==
             1) {
    if (!submission->resolved.exchange(true, std::memory_order_acq_rel)) {
      startResolved(submission);
    }
  }
  releaseSubmission(submission);
}

// Arms one timepoint per pair of wait_fence (borrowed, may be NULL) and
// starts the submission when all are reached or one fails (possibly before
// this returns).
void armWait(Submission* submission, strata_hal_fence_t* wait_fence) {
  size_t count = wait_fence ? strata_hal_fence_count(wait_fence) : 0;
  submission->timepoint_count = count;
  submission->unreached.store(static_cast<uint32_t>(count),
                              std::memory_order_relaxed);
  // One reference per timepoint, taken before any can run.
  submission->refs.fetch_add(static_cast<uint32_t>(count),
                             std::memory_order_relaxed);
  if (!count) {
    submission->resolved.store(true, std::memory_order_relaxed);
    startResolved(submission);
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    strata_hal_semaphore_t* semaphore = nullptr;
    uint64_t value = 0;
    strata_hal_fence_at(wait_fence, i, &semaphore, &value);
    strata_hal_semaphore_add_timepoint(semaphore, value, onTimepoint,
                                       submission, &submission->timepoints[i]);
  }
}

size_t waitPairCount(strata_hal_fence_t* wait_fence) {
  return wait_fence ? strata_hal_fence_count(wait_fence) : 0;
}

// Rejects a queue operation before it was queued: the error is returned,
// and a copy fails signal_fence so that nobody waits on it forever.
strata_status_t rejectSubmission(strata_hal_fence_t* signal_fence,
                                 strata_status_t status) {
  if (status && signal_fence) {
    strata_hal_fence_fail(signal_fence, strata_status_clone(status));
  }
  return status;
}

// Queues a submission with no commands (barrier, alloca, dealloca).
strata_status_t queueSignalOnly(strata_hal_device_t* device, SubmissionOp op,
                                strata_hal_fence_t* wait_fence,
                                strata_hal_fence_t* signal_fence,
                                strata_hal_buffer_t* buffer) {
  Submission* submission = nullptr;
  STRATA_RETURN_IF_ERROR(rejectSubmission(
      signal_fence, acquireSubmission(device, op, 0, waitPairCount(wait_fence),
                                      0, &submission)));
  submission->wait_fence = wait_fence;
  strata_hal_fence_retain(wait_fence);
  submission->signal_fence = signal_fence;
  strata_hal_fence_retain(signal_fence);
  submission->buffer = buffer;
  strata_hal_buffer_retain(buffer);
  armWait(submission, wait_fence);
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Destruction
//===----------------------------------------------------------------------===//

// Pins a live submission whose timepoints have not been cancelled yet, or
// returns NULL when none is left.
Submission* pinNextToCancel(strata_hal_device_t* device) {
  std::lock_guard<std::mutex> lock(device->mutex);
  for (Submission* s = device->live_head; s; s = s->live_next) {
    if (s->cancel_visited) {
      continue;
    }
    s->cancel_visited = true;
    uint32_t refs = s->refs.load(std::memory_order_acquire);
    while (refs &&
           !s->refs.compare_exchange_weak(refs, refs + 1,
                                          std::memory_order_acq_rel)) {
    }
    if (refs) {
      return s;
    }
  }
  return nullptr;
}

void destroyDeviceNow(strata_hal_device_t* device) {
  {
    std::lock_guard<std::mutex> lock(device->mutex);
    device->destroying = true;
  }
  // Submissions still waiting on fences would wait forever: cancel their
  // timepoints and fail their signal fences.
  while (Submission* submission = pinNextToCancel(device)) {
    for (size_t i = 0; i < submission->timepoint_count; ++i) {
      if (strata_hal_semaphore_cancel_timepoint(&submission->timepoints[i])) {
        onTimepoint(submission,
                    strata_make_status(STRATA_STATUS_CANCELLED,
                                       "device '%s' was destroyed before the "
                                       "submission's wait fence was reached",
                                       device->name));
      }
    }
    releaseSubmission(submission);
  }
  // Work already running finishes on its own; on a lost device it may
  // never (a kernel that does not return): after 100 ms, leak the device
  // and its threads rather than block forever.
  {
    std::unique_lock<std::mutex> lock(device->mutex);
    if (device->lost.load(std::memory_order_acquire)) {
      if (!device->idle.wait_for(lock, std::chrono::milliseconds(100), [device] {
            return device->live_count == 0;
          })) {
        return;
      }
    } else {
      device->idle.wait(lock, [device] { return device->live_count == 0; });
    }
  }
  TaskPool::destroy(device->pool);
  strata_allocator_t allocator = device->allocator;
  for (Submission** list : {&device->retired_head, &device->free_head}) {
    while (Submission* submission = *list) {
      *list = submission->free_next;
      freeRecord(allocator, submission);
    }
  }
  strata_allocator_free(allocator, device->sync_scratch);
  device->~strata_hal_device_t();
  strata_allocator_free(allocator, device);
}

void destroyDevice(strata_vm_ref_object_t* object) {
  auto* device = reinterpret_cast<strata_hal_device_t*>(object);
  // Released from inside the device's own work (a fence callback on one of
  // its workers, or during local-sync work on this thread): this thread
  // cannot wait for that work, so a helper thread tears the device down.
  bool inside =
      (device->pool && device->pool->onWorkerThread()) || localSyncRunning();
  if (inside) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    int error = pthread_create(
        &thread, &attr,
        [](void* arg) -> void* {
          destroyDeviceNow(static_cast<strata_hal_device_t*>(arg));
          return nullptr;
        },
        device);
    pthread_attr_destroy(&attr);
    if (!error) {
      return;
    }
    // No thread to spare: leak the device rather than deadlock.
    return;
  }
  destroyDeviceNow(device);
}

}  // namespace

//===----------------------------------------------------------------------===//
// Shared with device_local_task.cpp
//===----------------------------------------------------------------------===//

const Command* nextCommand(Submission* submission) {
  while (!submission->command) {
    if (submission->cb_index >= submission->command_buffer_count) {
      return nullptr;
    }
    submission->command = commandBufferFirst(
        submission->command_buffers[submission->cb_index++]);
  }
  const Command* command = submission->command;
  submission->command = command->next;
  return command;
}

strata_status_t makeDispatchFailure(
    const DispatchCommand* command, int code, const uint32_t workgroup[3],
    uint32_t local_memory_size,
    const strata_hal_executable_dispatch_detail_v1_t* detail) {
  if (local_memory_size) {
    return strata_make_status(
        STRATA_STATUS_RESOURCE_EXHAUSTED,
        "dispatch '%s' (export %" PRIu32 " of library '%s') needs %" PRIu32
        " bytes of local memory, more than a worker can provide",
        dispatchExportName(command), command->ordinal,
        dispatchLibraryName(command), local_memory_size);
  }
  if (code == STRATA_HAL_EXECUTABLE_DISPATCH_INDEX_OUT_OF_RANGE && detail &&
      detail->kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_INDEX) {
    return strata_make_status(
        STRATA_STATUS_OUT_OF_RANGE,
        "dispatch '%s' (export %" PRIu32
        " of library '%s') failed with code %d "
        "at workgroup (%" PRIu32 ",%" PRIu32 ",%" PRIu32 "): index %" PRId64
        " computed from tensor data is out of range "
        "[0, %" PRId64 ") of the dimension it indexes",
        dispatchExportName(command), command->ordinal,
        dispatchLibraryName(command), code, workgroup[0], workgroup[1],
        workgroup[2], detail->index, detail->bound);
  }
  if (code == STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE && detail &&
      detail->kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_BINDING &&
      detail->index >= 0 && detail->index < command->state.binding_count) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "dispatch '%s' (export %" PRIu32 " of library '%s'): binding %" PRId64
        " holds %zu bytes, fewer than "
        "the %" PRId64 " that the dispatch's shapes need",
        dispatchExportName(command), command->ordinal,
        dispatchLibraryName(command), detail->index,
        command->state.binding_lengths[detail->index], detail->bound);
  }
  if (code == STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE && detail &&
      detail->kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE) {
    if (detail->bound < 0) {
      return strata_make_status(
          STRATA_STATUS_INVALID_ARGUMENT,
          "dispatch '%s' (export %" PRIu32
          " of library '%s'): a size computed from its push constants "
          "overflows or divides by zero",
          dispatchExportName(command), command->ordinal,
          dispatchLibraryName(command));
    }
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "dispatch '%s' (export %" PRIu32
        " of library '%s'): a size computed from its push constants is "
        "%" PRId64 ", outside [0, %" PRId64 "]",
        dispatchExportName(command), command->ordinal,
        dispatchLibraryName(command), detail->index, detail->bound);
  }
  if (code == STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE && detail &&
      detail->kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_LOCAL_MEMORY) {
    return strata_make_status(
        STRATA_STATUS_RESOURCE_EXHAUSTED,
        "dispatch '%s' (export %" PRIu32
        " of library '%s'): its temporaries need %" PRId64
        " bytes of local memory at the shapes its push constants give, "
        "more than the %" PRId64 " left",
        dispatchExportName(command), command->ordinal,
        dispatchLibraryName(command), detail->index, detail->bound);
  }
  if (code == STRATA_HAL_EXECUTABLE_DISPATCH_INDEX_OUT_OF_RANGE) {
    return strata_make_status(
        STRATA_STATUS_OUT_OF_RANGE,
        "dispatch '%s' (export %" PRIu32
        " of library '%s') failed with code %d "
        "at workgroup (%" PRIu32 ",%" PRIu32 ",%" PRIu32
        "): an index computed from tensor data is out of range of the "
        "dimension it indexes",
        dispatchExportName(command), command->ordinal,
        dispatchLibraryName(command), code, workgroup[0], workgroup[1],
        workgroup[2]);
  }
  return strata_make_status(
      STRATA_STATUS_INTERNAL,
      "dispatch '%s' (export %" PRIu32 " of library '%s') failed with code %d "
      "at workgroup (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ")",
      dispatchExportName(command), command->ordinal,
      dispatchLibraryName(command), code, workgroup[0], workgroup[1],
      workgroup[2]);
}

void finishSubmission(Submission* submission, strata_status_t status) {
  if (submission->trace_start_ns) {
    if (strata_trace_t* trace = strata_trace_installed()) {
      char args[96];
      std::snprintf(args, sizeof(args),
                    "\"command_buffers\": %zu, \"ok\": %s",
                    submission->command_buffer_count,
                    status ? "false" : "true");
      strata_trace_record(trace, "queue",
                          submission->op == SubmissionOp::kExecute
                              ? "queue.execute"
                              : "queue.submission",
                          STRATA_TRACE_TRACK_QUEUE, submission->trace_start_ns,
                          strata_trace_now_ns(), args);
    }
    submission->trace_start_ns = 0;
  }
  // On local-task the command buffers and the fences stay with the record,
  // retired, until the next submission takes a record (on the thread that
  // queues it) or a worker goes idle (releaseRetired). Destroying them here
  // would put their teardown (the buffers they hold, their arena) on the
  // worker before the signal its waiter is blocked on, and hand memory the
  // submitting thread allocated back to malloc on another thread, which
  // glibc serves through its arena lock: in-process calls of samples/mlp
  // ran ~40% slower so.
  if (submission->device->kind != DeviceKind::kLocalTask) {
    releaseHeld(submission);
  }
  strata_hal_buffer_release(submission->buffer);
  submission->buffer = nullptr;
  strata_hal_fence_t* signal_fence = submission->signal_fence;
  submission->signal_fence = nullptr;
  if (signal_fence) {
    if (!status) {
      // Signalling fails only when a semaphore already failed or was
      // signalled past this value by someone else: fail it so that its
      // waiters see that.
      status = strata_hal_fence_signal(signal_fence);
    }
    if (status) {
      strata_hal_fence_fail(signal_fence, status);
    }
    if (submission->device->kind == DeviceKind::kLocalTask) {
      submission->signalled_fence = signal_fence;
    } else {
      strata_hal_fence_release(signal_fence);
    }
  } else {
    strata_status_free(status);
  }
  releaseSubmission(submission);
}

}  // namespace strata::hal

using namespace strata::hal;

extern "C" {

const strata_vm_ref_type_t* strata_hal_device_type(void) {
  return &kDeviceType;
}

strata_status_t strata_hal_device_create(
    const strata_hal_device_options_t* options, strata_allocator_t allocator,
    strata_hal_device_t** out_device) {
  *out_device = nullptr;
  const char* name = options ? options->name : nullptr;
  DeviceKind kind;
  if (name && std::strcmp(name, "local-sync") == 0) {
    kind = DeviceKind::kLocalSync;
  } else if (name && std::strcmp(name, "local-task") == 0) {
    kind = DeviceKind::kLocalTask;
  } else {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "unknown device '%s'; known devices: "
                              "local-sync, local-task",
                              name ? name : "(null)");
  }
  void* memory = strata_allocator_alloc(allocator, sizeof(strata_hal_device_t),
                                        alignof(strata_hal_device_t));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating device '%s'", name);
  }
  auto* device = new (memory) strata_hal_device_t();
  strata_vm_ref_object_init(&device->header, &kDeviceType);
  device->allocator = allocator;
  device->kind = kind;
  device->name = kind == DeviceKind::kLocalSync ? "local-sync" : "local-task";
  device->pool = nullptr;
  device->worker_count = 1;
  device->live_head = nullptr;
  device->free_head = nullptr;
  device->retired_head = nullptr;
  device->live_count = 0;
  device->destroying = false;
  device->lost.store(false, std::memory_order_relaxed);
  device->lost_reason[0] = '\0';
  device->sync_scratch = nullptr;
  device->sync_scratch_size = 0;
  if (kind == DeviceKind::kLocalTask) {
    // Created last: its idle workers call onPoolIdle on the device.
    strata_status_t status =
        TaskPool::create(options->worker_count, kDefaultLocalMemory, allocator,
                         &device->pool, onPoolIdle, device);
    if (status) {
      device->~strata_hal_device_t();
      strata_allocator_free(allocator, memory);
      return status;
    }
    device->worker_count = device->pool->workerCount();
  }
  *out_device = device;
  return nullptr;
}

const char* strata_hal_device_name(const strata_hal_device_t* device) {
  return device->name;
}

uint32_t strata_hal_device_worker_count(const strata_hal_device_t* device) {
  return device->worker_count;
}

strata_allocator_t strata_hal_device_allocator(
    const strata_hal_device_t* device) {
  return device->allocator;
}

strata_status_t strata_hal_device_queue_alloca(
    strata_hal_device_t* device, strata_hal_fence_t* wait_fence,
    strata_hal_fence_t* signal_fence, uint64_t length,
    strata_hal_buffer_t** out_buffer) {
  *out_buffer = nullptr;
  if (!device) {
    return rejectSubmission(
        signal_fence, strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                                         "queue_alloca on a null device"));
  }
  if (strata_status_t lost = strata_hal_device_lost_status(device)) {
    return rejectSubmission(signal_fence, lost);
  }
  strata_hal_buffer_t* buffer = nullptr;
  STRATA_RETURN_IF_ERROR(rejectSubmission(
      signal_fence,
      strata_hal_buffer_allocate(device->allocator, length, &buffer)));
  strata_status_t status = queueSignalOnly(device, SubmissionOp::kBarrier,
                                           wait_fence, signal_fence, nullptr);
  if (status) {
    strata_hal_buffer_release(buffer);
    return status;
  }
  *out_buffer = buffer;
  return nullptr;
}

strata_status_t strata_hal_device_queue_dealloca(
    strata_hal_device_t* device, strata_hal_fence_t* wait_fence,
    strata_hal_fence_t* signal_fence, strata_hal_buffer_t* buffer) {
  if (!device || !buffer) {
    return rejectSubmission(
        signal_fence,
        strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                           "queue_dealloca needs a device and a buffer"));
  }
  if (strata_status_t lost = strata_hal_device_lost_status(device)) {
    return rejectSubmission(signal_fence, lost);
  }
  return queueSignalOnly(device, SubmissionOp::kDealloca, wait_fence,
                         signal_fence, buffer);
}

strata_status_t strata_hal_device_queue_execute(
    strata_hal_device_t* device, strata_hal_fence_t* wait_fence,
    strata_hal_fence_t* signal_fence,
    strata_hal_command_buffer_t* const* command_buffers, size_t count) {
  if (!device) {
    return rejectSubmission(
        signal_fence, strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                                         "queue_execute on a null device"));
  }
  if (strata_status_t lost = strata_hal_device_lost_status(device)) {
    return rejectSubmission(signal_fence, lost);
  }
  if (count && !command_buffers) {
    return rejectSubmission(
        signal_fence,
        strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                           "queue_execute of %zu command buffers got a NULL "
                           "array",
                           count));
  }
  // Claim every command buffer first (ONE_SHOT ones may run once).
  for (size_t i = 0; i < count; ++i) {
    strata_status_t status = commandBufferBeginSubmit(command_buffers[i]);
    if (status) {
      for (size_t j = 0; j < i; ++j) {
        commandBufferCancelSubmit(command_buffers[j]);
      }
      return rejectSubmission(
          signal_fence,
          strata_status_annotate(status, "in command buffer %zu of %zu", i,
                                 count));
    }
  }
  // local-task runs each batch's dispatches at once, one job each.
  size_t job_count = 0;
  if (device->kind == DeviceKind::kLocalTask) {
    for (size_t i = 0; i < count; ++i) {
      size_t batch = commandBufferMaxBatchDispatches(command_buffers[i]);
      job_count = batch > job_count ? batch : job_count;
    }
  }
  Submission* submission = nullptr;
  strata_status_t status =
      acquireSubmission(device, SubmissionOp::kExecute, count,
                        waitPairCount(wait_fence), job_count, &submission);
  if (status) {
    for (size_t i = 0; i < count; ++i) {
      commandBufferCancelSubmit(command_buffers[i]);
    }
    return rejectSubmission(signal_fence, status);
  }
  for (size_t i = 0; i < count; ++i) {
    submission->command_buffers[i] = command_buffers[i];
    strata_vm_ref_retain(strata_hal_command_buffer_as_ref(command_buffers[i]));
  }
  submission->command_buffer_count = count;
  submission->wait_fence = wait_fence;
  strata_hal_fence_retain(wait_fence);
  submission->signal_fence = signal_fence;
  strata_hal_fence_retain(signal_fence);
  armWait(submission, wait_fence);
  return nullptr;
}

strata_status_t strata_hal_device_queue_barrier(
    strata_hal_device_t* device, strata_hal_fence_t* wait_fence,
    strata_hal_fence_t* signal_fence) {
  if (!device) {
    return rejectSubmission(
        signal_fence, strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                                         "queue_barrier on a null device"));
  }
  if (strata_status_t lost = strata_hal_device_lost_status(device)) {
    return rejectSubmission(signal_fence, lost);
  }
  return queueSignalOnly(device, SubmissionOp::kBarrier, wait_fence,
                         signal_fence, nullptr);
}

void strata_hal_device_lose(strata_hal_device_t* device, const char* reason) {
  {
    std::lock_guard<std::mutex> lock(device->mutex);
    if (device->lost.load(std::memory_order_relaxed)) {
      return;
    }
    std::snprintf(device->lost_reason, sizeof(device->lost_reason), "%s",
                  reason ? reason : "lost");
    device->lost.store(true, std::memory_order_release);
  }
  if (device->pool) {
    device->pool->cancelAll();
  }
}

strata_status_t strata_hal_device_lost_status(
    const strata_hal_device_t* device) {
  if (__builtin_expect(!device->lost.load(std::memory_order_acquire), 1)) {
    return nullptr;
  }
  return strata_make_status(STRATA_STATUS_UNAVAILABLE,
                            "device '%s' is lost: %s", device->name,
                            device->lost_reason);
}

strata_hal_device_t* strata_hal_device_from_ref(strata_vm_ref_object_t* ref) {
  return strata_vm_ref_isa(ref, &kDeviceType)
             ? reinterpret_cast<strata_hal_device_t*>(ref)
             : nullptr;
}

}  // extern "C"
