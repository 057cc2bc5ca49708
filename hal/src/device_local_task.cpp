// device_local_task.cpp - local-task execution: a resolved submission runs
// on the worker pool one batch at a time. A batch is the run of commands
// between two barriers (or a barrier and either end of a command buffer);
// its commands are independent by contract (command_buffer_impl.h), so all
// of its dispatches are published to the pool together, one job each, and
// their workgroups are claimed by whichever workers are free, interleaved
// or side by side. The batch's fills and copies run inline on the worker
// that published it, meanwhile. The next batch starts when every job of
// the batch has completed: the worker that completes the last one carries
// on, so a chain of dependent dispatches (one per batch) costs one publish
// and one completion per dispatch, as before batches existed.
//
// Failures: a failing dispatch does not cancel the others of its batch
// (they are independent, and their jobs live in the submission record, so
// the batch must drain before the submission ends). When the batch has
// drained, the failure of its earliest-recorded failing dispatch fails the
// submission (with the first failing workgroup that dispatch observed), and
// nothing after the batch runs. The choice is deterministic whatever the
// timing: the same as local-sync, which runs the commands in order and
// stops at the first failure.
#include "device_impl.h"
#include "executable_impl.h"
#include "strata/base/trace.h"

namespace strata::hal {
namespace {

void advance(Submission* submission);

// Runs the fills and copies of [begin, end) in order; dispatches are the
// workers'.
void runFillsAndCopies(const Command* begin, const Command* end) {
  for (const Command* command = begin; command != end;
       command = command->next) {
    if (command->kind == CommandKind::kFill) {
      executeFill(reinterpret_cast<const FillCommand*>(command));
    } else if (command->kind == CommandKind::kCopy) {
      executeCopy(reinterpret_cast<const CopyCommand*>(command));
    }
  }
}

// On the worker that completes a batch: when a dispatch of it failed, fails
// the submission with the earliest-recorded one and returns true; false
// means the next batch may start.
bool failBatch(Submission* submission) {
  for (size_t i = 0; i < submission->batch_job_count; ++i) {
    const PoolJob& job = submission->jobs[i].job;
    if (job.failed.load(std::memory_order_relaxed)) {
      // A cancelled job (lost device) fails with the device's reason.
      strata_status_t lost =
          job.failure_code == TaskPool::kCancelledCode
              ? strata_hal_device_lost_status(submission->device)
              : nullptr;
      finishSubmission(
          submission,
          lost ? lost
               : makeDispatchFailure(submission->jobs[i].dispatch,
                                     job.failure_code, job.failure_workgroup,
                                     job.failure_local_memory,
                                     &job.failure_detail));
      return true;
    }
  }
  return false;
}

// Called on the worker that finished a dispatch's last workgroup. The pool
// mutex ordered every workgroup's writes (and the job's failure record)
// before this call; acq_rel on batch_pending carries them to whoever ends
// the batch.
void onJobComplete(PoolJob* job, uint32_t /*worker_index*/) {
  auto* submission = static_cast<Submission*>(job->user);
  if ((!submission->batch_counted ||
       submission->batch_pending.fetch_sub(1, std::memory_order_acq_rel) ==
           1) &&
      !failBatch(submission)) {
    advance(submission);
  }
}

// Moves the cursor to the first command of the next batch; false at the end
// of the submission. Command buffer boundaries end batches.
bool nextBatch(Submission* submission) {
  while (!submission->command) {
    if (submission->cb_index >= submission->command_buffer_count) {
      return false;
    }
    submission->command =
        commandBufferFirst(submission->command_buffers[submission->cb_index++]);
  }
  return true;
}

// Runs the submission's batches from its cursor on this worker: batches of
// fills and copies only run inline; a batch with dispatches is published,
// and this returns unless this worker ends up completing the batch itself
// (then it carries on here, in a loop rather than recursively).
void advance(Submission* submission) {
  TaskPool* pool = submission->device->pool;
  while (nextBatch(submission)) {
    // Pass 1: a job per dispatch, up to the barrier that ends the batch.
    const Command* begin = submission->command;
    const Command* end = begin;
    size_t job_count = 0;
    bool has_inline = false;
    bool split = false;
    PoolJob* first = nullptr;
    PoolJob** link = &first;
    for (; end && end->kind != CommandKind::kBarrier; end = end->next) {
      if (end->kind != CommandKind::kDispatch) {
        has_inline = true;
        continue;
      }
      auto* dispatch = reinterpret_cast<const DispatchCommand*>(end);
      if (!dispatch->workgroup_total) {
        continue;
      }
      // The command buffer counted this batch when it was recorded and the
      // record was sized for it when it was queued, so this never splits;
      // if it did, the rest would run as a batch of its own: later, never
      // out of bounds.
      if (job_count == submission->job_capacity) {
        split = true;
        break;
      }
      BatchJob& slot = submission->jobs[job_count++];
      slot.dispatch = dispatch;
      PoolJob& job = slot.job;
      job.function = dispatch->function;
      job.environment =
          dispatchEnvironment(dispatch->executable, dispatch->ordinal);
      job.environment.worker_count = pool->workerCount();
      job.state = &dispatch->state;
      job.workgroup_total = dispatch->workgroup_total;
      job.local_memory_size = dispatch->local_memory_size;
      job.on_complete = onJobComplete;
      // Named only for a trace: no lookup per dispatch otherwise.
      job.trace_name =
          strata_trace_installed() ? exportName(dispatch) : nullptr;
      job.publish_next = nullptr;
      *link = &job;
      link = &job.publish_next;
    }
    // Past the barrier: the cursor must be final before the jobs are
    // published, since their completion advances it.
    submission->command = !end ? nullptr : split ? end : end->next;

    if (!job_count) {
      runFillsAndCopies(begin, end);
      continue;
    }
    submission->batch_job_count = job_count;
    // One extra count while this worker runs the fills and copies, so that
    // the batch cannot end (and the record be recycled) under it. A lone
    // job needs no count: its completion ends the batch.
    size_t pending = job_count + (has_inline ? 1 : 0);
    submission->batch_counted = pending > 1;
    if (submission->batch_counted) {
      submission->batch_pending.store(pending, std::memory_order_relaxed);
    }
    pool->publishJobs(first);
    if (!has_inline) {
      // The jobs may have completed already: the submission is not ours.
      return;
    }
    // Pass 2: the fills and copies, while the workers run the dispatches.
    runFillsAndCopies(begin, end);
    if (submission->batch_pending.fetch_sub(1, std::memory_order_acq_rel) !=
        1) {
      return;
    }
    // Every job completed while the fills and copies ran: end the batch
    // here, and go on to the next one in this loop.
    if (failBatch(submission)) {
      return;
    }
  }
  finishSubmission(submission, nullptr);
}

// The pool task of a resolved submission.
void runTask(PoolTask* task, uint32_t /*worker_index*/) {
  auto* submission = static_cast<Submission*>(task->user);
  submission->trace_start_ns =
      strata_trace_installed() ? strata_trace_now_ns() : 0;
  strata_status_t status = submission->wait_status;
  submission->wait_status = nullptr;
  if (!status && submission->op == SubmissionOp::kExecute) {
    // Nothing starts on a lost device.
    status = strata_hal_device_lost_status(submission->device);
  }
  if (status || submission->op != SubmissionOp::kExecute) {
    // A failed wait propagates without running anything.
    finishSubmission(submission, status);
    return;
  }
  advance(submission);
}

}  // namespace

void localTaskStart(Submission* submission) {
  // Never inline: the resolving thread may be a libuv loop thread, and
  // chains must not recurse through signal -> callback -> run.
  submission->task.run = runTask;
  submission->device->pool->submitTask(&submission->task);
}

}  // namespace strata::hal
