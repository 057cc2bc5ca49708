// device_impl.h - the device record and queue submissions shared by
// device.cpp (queue, waits, local-sync) and device_local_task.cpp.
#ifndef STRATA_HAL_SRC_DEVICE_IMPL_H_
#define STRATA_HAL_SRC_DEVICE_IMPL_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "command_buffer_impl.h"
#include "strata/hal/device.h"
#include "task_pool.h"

namespace strata::hal {

enum class DeviceKind : uint8_t {
  kLocalSync,
  kLocalTask,
};

enum class SubmissionOp : uint8_t {
  kExecute,   // run command buffers
  kBarrier,   // signal only (also queue_alloca)
  kDealloca,  // drop the queue's reference to a buffer
};

constexpr size_t kInlineCommandBuffers = 4;
constexpr size_t kInlineTimepoints = 2;
// local-task jobs held in the record itself: enough for chains (one
// dispatch per batch) and small batches; larger batches grow the record.
constexpr size_t kInlineJobs = 4;

// local-task: one dispatch of the batch in flight, published to the pool.
struct BatchJob {
  PoolJob job;  // job.user is the submission
  const DispatchCommand* dispatch = nullptr;
};

// One queue operation, from its submission until its signal fence is
// signalled or failed. Records are recycled through the device's free list,
// so a steady stream of submissions allocates nothing.
//
// Lifetime: refs counts one for the work (dropped by finishSubmission) plus
// one per armed wait timepoint (dropped when it runs or is cancelled). At
// zero the record goes back to the free list. A failed wait resolves the
// submission at once, so other timepoints may still be armed after it
// finished; they keep the record (and its wait fence) until they run or the
// device is destroyed.
struct Submission {
  PoolTask task;  // local-task: starts or continues the work on a worker
  strata_hal_device_t* device = nullptr;
  SubmissionOp op = SubmissionOp::kBarrier;

  strata_hal_fence_t* wait_fence = nullptr;    // retained until recycled
  strata_hal_fence_t* signal_fence = nullptr;  // retained until finished
  // local-task: the signal fence once signalled, held with the command
  // buffers until the record is retired (see finishSubmission).
  strata_hal_fence_t* signalled_fence = nullptr;
  strata_hal_buffer_t* buffer = nullptr;       // kDealloca, retained
  strata_hal_command_buffer_t** command_buffers = nullptr;  // retained
  size_t command_buffer_count = 0;
  size_t command_buffer_capacity = kInlineCommandBuffers;
  strata_hal_command_buffer_t* inline_command_buffers[kInlineCommandBuffers] =
      {};

  // Waiting: one timepoint per (semaphore, value) pair of the wait fence.
  strata_hal_timepoint_t* timepoints = nullptr;
  size_t timepoint_count = 0;
  size_t timepoint_capacity = kInlineTimepoints;
  strata_hal_timepoint_t inline_timepoints[kInlineTimepoints] = {};
  std::atomic<uint32_t> refs{0};
  std::atomic<uint32_t> unreached{0};  // pairs not reached yet
  std::atomic<bool> resolved{false};
  // The wait fence's failure (owned), written by the resolver before the
  // work starts; NULL when it was reached.
  strata_status_t wait_status = nullptr;

  // Tracing: when the work started (0: tracing was off then).
  int64_t trace_start_ns = 0;

  // Execution cursor: command buffers [cb_index, count) and, within the
  // current one, command (NULL: take the next command buffer).
  size_t cb_index = 0;
  const Command* command = nullptr;

  // local-task: the batch in flight. jobs has room for the largest batch of
  // the submission's command buffers (sized when it is queued, so running
  // allocates nothing); jobs [0, batch_job_count) hold the batch's
  // dispatches in recording order. When batch_counted, batch_pending
  // counts the jobs not yet completed, plus one while the worker that
  // published them still runs the batch's fills and copies, and whoever
  // takes it to zero ends the batch; otherwise (one dispatch and nothing
  // else, as in chains) the job's completion ends the batch.
  BatchJob* jobs = nullptr;
  size_t job_capacity = kInlineJobs;
  BatchJob inline_jobs[kInlineJobs];
  size_t batch_job_count = 0;
  bool batch_counted = false;
  std::atomic<size_t> batch_pending{0};

  // Device bookkeeping, guarded by the device mutex.
  Submission* live_prev = nullptr;
  Submission* live_next = nullptr;
  Submission* free_next = nullptr;
  bool cancel_visited = false;
  // local-sync: the calling thread's queue of resolved submissions.
  Submission* sync_next = nullptr;
};

}  // namespace strata::hal

struct strata_hal_device_t {
  strata_vm_ref_object_t header;  // first: devices are ref objects
  strata_allocator_t allocator;   // device memory, records, the pool
  strata::hal::DeviceKind kind;
  const char* name;  // static
  uint32_t worker_count;
  strata::hal::TaskPool* pool;  // local-task only

  // Submission records: live (handed out) and free (for reuse).
  std::mutex mutex;
  std::condition_variable idle;  // live_count reached 0 while destroying
  strata::hal::Submission* live_head;
  strata::hal::Submission* free_head;
  // Finished records that still hold their command buffers (local-task, see
  // finishSubmission), linked by free_next.
  strata::hal::Submission* retired_head;
  size_t live_count;
  bool destroying;

  // strata_hal_device_lose: set once (release), with lost_reason written
  // before; read with acquire by every queue operation.
  std::atomic<bool> lost;
  char lost_reason[256];

  // local-sync runs one submission at a time, on processor 0, with this
  // scratch as local memory.
  std::mutex sync_mutex;
  uint8_t* sync_scratch;
  uint32_t sync_scratch_size;
};

namespace strata::hal {

// Ends a submission: releases its command buffers and buffer, signals the
// signal fence (or fails it with status, which is taken) and drops the work
// reference. Never runs kernels.
void finishSubmission(Submission* submission, strata_status_t status);

// The message of a failed dispatch, naming the export, its library and the
// workgroup.
// The dispatch's export name, for traces and errors.
inline const char* exportName(const DispatchCommand* command) {
  return strata_hal_executable_export_name(command->executable,
                                           command->ordinal);
}

// The status of a failed dispatch: code is the kernel's, detail (may be
// NULL) what it wrote about the failure.
strata_status_t makeDispatchFailure(
    const DispatchCommand* command, int code, const uint32_t workgroup[3],
    uint32_t local_memory_size,
    const strata_hal_executable_dispatch_detail_v1_t* detail = nullptr);

// The next command of a submission, advancing its cursor; NULL at the end.
// (local-sync; local-task walks the cursor a batch at a time.)
const Command* nextCommand(Submission* submission);

// local-sync (device_local_sync.cpp): runs a resolved submission on this
// thread, now or after the local-sync work it is already running.
void localSyncStart(Submission* submission);
// Whether this thread is inside local-sync work (running a submission).
bool localSyncRunning();

// local-task (device_local_task.cpp): starts a resolved submission on the
// pool (never inline).
void localTaskStart(Submission* submission);

}  // namespace strata::hal

#endif  // STRATA_HAL_SRC_DEVICE_IMPL_H_
