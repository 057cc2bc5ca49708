// device_local_sync.cpp - local-sync execution: a resolved submission runs
// on the thread that resolved it, every command in recording order, and
// stops at the first failure. A submission resolved while this thread
// already runs local-sync work (its signal resolved the next one) waits in
// a thread-local queue, so long chains run in a loop instead of recursing
// through signal -> callback -> run -> signal.
#include <cstdio>
#include <mutex>

#include "device_impl.h"
#include "executable_impl.h"
#include "strata/base/trace.h"

namespace strata::hal {
namespace {

// Largest local memory local-sync provides.
constexpr uint32_t kMaxSyncLocalMemory = 64u << 20;

// Submissions resolved on this thread while it already runs local-sync
// work.
struct SyncRunner {
  Submission* head = nullptr;
  Submission* tail = nullptr;
  bool active = false;
};
thread_local SyncRunner tls_sync_runner;

strata_status_t runSyncDispatch(strata_hal_device_t* device,
                                const DispatchCommand* command) {
  if (!command->workgroup_total) {
    return nullptr;
  }
  strata_hal_executable_environment_v0_t environment =
      dispatchEnvironment(command->executable, command->ordinal);
  environment.worker_count = 1;
  // Version 1 state for every library (version 0 reads only .v0).
  strata_hal_executable_dispatch_detail_v1_t detail = {};
  strata_hal_executable_workgroup_state_v1_t state_v1 = {};
  state_v1.detail = &detail;
  strata_hal_executable_workgroup_state_v0_t& workgroup = state_v1.v0;
  workgroup.processor_id = 0;
  if (command->local_memory_size) {
    if (command->local_memory_size > device->sync_scratch_size) {
      uint8_t* grown = nullptr;
      if (command->local_memory_size <= kMaxSyncLocalMemory) {
        grown = static_cast<uint8_t*>(strata_allocator_alloc(
            device->allocator, command->local_memory_size, 64));
      }
      if (!grown) {
        const uint32_t origin[3] = {0, 0, 0};
        return makeDispatchFailure(command, 0, origin,
                                   command->local_memory_size);
      }
      strata_allocator_free(device->allocator, device->sync_scratch);
      device->sync_scratch = grown;
      device->sync_scratch_size = command->local_memory_size;
    }
    workgroup.local_memory = device->sync_scratch;
    workgroup.local_memory_size = command->local_memory_size;
  }
  const strata_hal_executable_dispatch_state_v0_t& state = command->state;
  // Tracing: the whole grid runs on this thread, one event.
  strata_trace_t* trace = strata_trace_installed();
  int64_t trace_start = trace ? strata_trace_now_ns() : 0;
  struct TraceDispatch {
    strata_trace_t* trace;
    int64_t start;
    const DispatchCommand* command;
    ~TraceDispatch() {
      if (!trace) {
        return;
      }
      const strata_hal_executable_dispatch_state_v0_t& s = command->state;
      char args[128];
      std::snprintf(args, sizeof(args),
                    "\"workgroups\": %llu, \"grid\": [%u, %u, %u]",
                    static_cast<unsigned long long>(command->workgroup_total),
                    s.workgroup_count_x, s.workgroup_count_y,
                    static_cast<unsigned>(s.workgroup_count_z));
      const char* name = exportName(command);
      strata_trace_record(trace, "dispatch", name ? name : "dispatch",
                          STRATA_TRACE_TRACK_WORKER0, start,
                          strata_trace_now_ns(), args);
    }
  } trace_dispatch{trace, trace_start, command};
  for (uint32_t z = 0; z < state.workgroup_count_z; ++z) {
    workgroup.workgroup_id_z = static_cast<uint16_t>(z);
    for (uint32_t y = 0; y < state.workgroup_count_y; ++y) {
      workgroup.workgroup_id_y = y;
      for (uint32_t x = 0; x < state.workgroup_count_x; ++x) {
        workgroup.workgroup_id_x = x;
        int code = command->function(&environment, &state, &workgroup);
        if (code) {
          const uint32_t id[3] = {x, y, z};
          return makeDispatchFailure(command, code, id, 0, &detail);
        }
      }
    }
  }
  return nullptr;
}

// Runs every command of a submission on this thread.
strata_status_t runSyncCommands(Submission* submission) {
  strata_hal_device_t* device = submission->device;
  std::lock_guard<std::mutex> lock(device->sync_mutex);
  while (const Command* command = nextCommand(submission)) {
    switch (command->kind) {
      case CommandKind::kDispatch:
        STRATA_RETURN_IF_ERROR(runSyncDispatch(
            device, reinterpret_cast<const DispatchCommand*>(command)));
        break;
      case CommandKind::kFill:
        executeFill(reinterpret_cast<const FillCommand*>(command));
        break;
      case CommandKind::kCopy:
        executeCopy(reinterpret_cast<const CopyCommand*>(command));
        break;
      case CommandKind::kBarrier: break;
    }
  }
  return nullptr;
}

void runSyncSubmission(Submission* submission) {
  submission->trace_start_ns =
      strata_trace_installed() ? strata_trace_now_ns() : 0;
  strata_status_t status = submission->wait_status;
  submission->wait_status = nullptr;
  if (!status && submission->op == SubmissionOp::kExecute) {
    status = runSyncCommands(submission);
  }
  finishSubmission(submission, status);
}

}  // namespace

// Runs a resolved submission on this thread: now, or after the local-sync
// work this thread is already running (see SyncRunner).
void localSyncStart(Submission* submission) {
  SyncRunner& runner = tls_sync_runner;
  submission->sync_next = nullptr;
  if (runner.tail) {
    runner.tail->sync_next = submission;
  } else {
    runner.head = submission;
  }
  runner.tail = submission;
  if (runner.active) {
    return;
  }
  runner.active = true;
  while (Submission* next = runner.head) {
    runner.head = next->sync_next;
    if (!runner.head) {
      runner.tail = nullptr;
    }
    next->sync_next = nullptr;
    runSyncSubmission(next);
  }
  runner.active = false;
}

bool localSyncRunning() { return tls_sync_runner.active; }

}  // namespace strata::hal
