// device_local_task.cpp - local-task execution: a resolved submission runs
// on the worker pool, one command at a time, each dispatch published as a
// job whose workgroups every worker may claim.
#include "device_impl.h"
#include "executable_impl.h"

namespace strata::hal {
namespace {

void advance(Submission* submission, uint32_t worker_index);

// Called on the worker that finished the dispatch's last workgroup.
void onJobComplete(PoolJob* job, uint32_t worker_index) {
  auto* submission = static_cast<Submission*>(job->user);
  if (job->failed.load(std::memory_order_relaxed)) {
    finishSubmission(submission,
                     makeDispatchFailure(submission->dispatch,
                                         job->failure_code,
                                         job->failure_workgroup,
                                         job->failure_local_memory));
    return;
  }
  advance(submission, worker_index);
}

// Runs the submission's commands from its cursor: fills, copies and barriers
// inline on this worker, until a dispatch is published (the workers then
// run it and onJobComplete continues) or the end is reached.
void advance(Submission* submission, uint32_t worker_index) {
  (void)worker_index;
  TaskPool* pool = submission->device->pool;
  while (const Command* command = nextCommand(submission)) {
    switch (command->kind) {
    case CommandKind::kDispatch: {
      auto* dispatch = reinterpret_cast<const DispatchCommand*>(command);
      if (!dispatch->workgroup_total) {
        break;
      }
      submission->dispatch = dispatch;
      PoolJob& job = submission->job;
      job.function = dispatch->function;
      job.environment = dispatch->executable->environment;
      job.environment.worker_count = pool->workerCount();
      job.state = &dispatch->state;
      job.workgroup_total = dispatch->workgroup_total;
      job.local_memory_size = dispatch->local_memory_size;
      job.on_complete = onJobComplete;
      pool->publishJob(&job);
      return;
    }
    case CommandKind::kFill:
      executeFill(reinterpret_cast<const FillCommand*>(command));
      break;
    case CommandKind::kCopy:
      executeCopy(reinterpret_cast<const CopyCommand*>(command));
      break;
    case CommandKind::kBarrier:
      // Commands already run one after the other.
      break;
    }
  }
  finishSubmission(submission, nullptr);
}

// The pool task of a resolved submission.
void runTask(PoolTask* task, uint32_t worker_index) {
  auto* submission = static_cast<Submission*>(task->user);
  strata_status_t status = submission->wait_status;
  submission->wait_status = nullptr;
  if (status || submission->op != SubmissionOp::kExecute) {
    // A failed wait propagates without running anything.
    finishSubmission(submission, status);
    return;
  }
  advance(submission, worker_index);
}

}  // namespace

void localTaskStart(Submission* submission) {
  // Never inline: the resolving thread may be a libuv loop thread, and
  // chains must not recurse through signal -> callback -> run.
  submission->task.run = runTask;
  submission->device->pool->submitTask(&submission->task);
}

}  // namespace strata::hal
