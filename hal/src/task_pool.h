// task_pool.h - the worker pool behind local-task: threads that run queued
// tasks and claim the workgroups of published dispatch jobs with an atomic
// counter, without allocating per dispatch.
#ifndef STRATA_HAL_SRC_TASK_POOL_H_
#define STRATA_HAL_SRC_TASK_POOL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/hal/executable_library.h"

namespace strata::hal {

class TaskPool;

// A unit of serial work run once by some worker (for local-task: "start or
// continue a submission"). Owned by the caller, who keeps it alive until
// run is called; run may resubmit it.
struct PoolTask {
  PoolTask* next = nullptr;  // owned by the pool while queued
  void (*run)(PoolTask* task, uint32_t worker_index) = nullptr;
  void* user = nullptr;  // for run
};

// Workgroups of a job are cut into this many ranges at most (one per
// worker): each worker claims from its own range first, then from the
// others' (see PoolJob).
inline constexpr uint32_t kPoolJobRanges = 8;

// Claims the next workgroups [*begin, *end) of a range (PoolRange) whose
// first unclaimed one is `next` and which ends at range_end; false when
// none is left to this worker. Guided: a claim takes 1/(2 * ranges) of
// what is left, at most max_chunk and at least one, so a range ends in
// single workgroups that another worker may take while the owner runs its
// last ones. With leave_last (another worker's range of at least
// kLeaveLastMinRange workgroups, task_pool.cpp, its owner at work) the last
// workgroup is left to the owner, which is about to take it with its rows
// in its own cache. A fixed chunk (a quarter of a worker's share)
// left one worker 12-15% behind the other on every resnet18 convolution at
// batch 8 on a shared 2-vCPU host: each had claimed all of its own range
// before the faster one ran out, and the dispatch waited for the slower.
bool claimChunk(std::atomic<uint64_t>& next, uint64_t range_end,
                uint64_t max_chunk, uint32_t ranges, bool leave_last,
                uint64_t* begin, uint64_t* end);

// One range of a job's workgroups (PoolJob), a cache line of its own: its
// owner claims from it again and again while others claim from theirs.
struct alignas(64) PoolRange {
  // The next unclaimed workgroup; range r ends where range r + 1 starts
  // (rangeStart in task_pool.cpp).
  std::atomic<uint64_t> next{0};
  // Whether a worker whose own range this is has started on it: it then
  // claims every workgroup left here, and others leave it the last one.
  std::atomic<bool> owned{false};
};

// One dispatch: a grid of workgroups that workers claim in guided chunks
// (claimChunk in task_pool.cpp: smaller as a range empties).
// The workgroups are cut into one contiguous range per worker (up to
// kPoolJobRanges); a worker claims chunks of its own range first and then
// of the next ones, so every workgroup runs once whoever turns up, and in
// a chain of dispatches cut alike (bands of rows of the same images) a
// worker reads the rows it wrote in the previous one from its own cache.
// The publisher fills in the first block, then calls
// TaskPool::publishJob (or publishJobs for several at once); the pool calls
// on_complete exactly once, on the worker that finished last, after every
// workgroup has run or been skipped. The job storage belongs to the
// publisher (a submission record) and may be republished once on_complete
// was called.
struct PoolJob {
  // --- Set by the publisher.
  strata_hal_executable_dispatch_v0_t function = nullptr;
  // Copied per dispatch so kernels see this pool's worker count.
  strata_hal_executable_environment_v0_t environment = {};
  const strata_hal_executable_dispatch_state_v0_t* state = nullptr;
  uint64_t workgroup_total = 0;  // > 0
  uint32_t local_memory_size = 0;
  void (*on_complete)(PoolJob* job, uint32_t worker_index) = nullptr;
  void* user = nullptr;  // for on_complete
  // The dispatch's name in traces (borrowed; may be NULL).
  const char* trace_name = nullptr;
  // publishJobs: the next job published together with this one (NULL ends
  // the list). Not read after publishJobs returns.
  PoolJob* publish_next = nullptr;

  // --- Results, read in on_complete.
  // Set once by the first failing workgroup; later workgroups are skipped.
  std::atomic<bool> failed{false};
  int failure_code = 0;  // the kernel's return value (0: see below)
  // Non-zero when the worker could not provide the local memory the kernel
  // needs (then failure_code is 0).
  uint32_t failure_local_memory = 0;
  uint32_t failure_workgroup[3] = {0, 0, 0};
  uint32_t failure_worker = 0;
  // What the failing kernel said about its failure (version 1 libraries).
  strata_hal_executable_dispatch_detail_v1_t failure_detail = {};

  // --- Owned by the pool.
  // The next unclaimed workgroup of each range; range r ends where range
  // r + 1 starts (rangeStart in task_pool.cpp).
  PoolRange ranges[kPoolJobRanges];
  uint32_t range_count = 1;     // ranges in use, at most kPoolJobRanges
  uint32_t chunk = 1;           // most workgroups claimed at once
  uint32_t active_workers = 0;  // guarded by the pool mutex
  bool listed = false;          // in the pool's active list (mutex)
  PoolJob* list_next = nullptr;
  PoolJob* list_prev = nullptr;
};

class TaskPool {
public:
  // Starts worker_count threads (0: std::thread::hardware_concurrency()),
  // each with local_memory_size bytes of preallocated scratch. Memory comes
  // from allocator. on_idle (optional) runs on a worker that found no work
  // for a while, just before it sleeps, with idle_user: the owner's chance
  // to do deferred clean-up off every critical path. It may run on several
  // workers at once, and until destroy returns.
  static strata_status_t create(uint32_t worker_count,
                                uint32_t local_memory_size,
                                strata_allocator_t allocator,
                                TaskPool** out_pool,
                                void (*on_idle)(void* user) = nullptr,
                                void* idle_user = nullptr);
  // Stops and joins every worker. Queued tasks and published jobs must be
  // finished first; must not be called on a worker of this pool.
  static void destroy(TaskPool* pool);

  uint32_t workerCount() const { return worker_count_; }

  // Queues task to run on a worker (FIFO). Thread-safe; never runs the task
  // on the calling thread and never allocates.
  void submitTask(PoolTask* task);
  // Makes job's workgroups claimable and wakes as many sleeping workers as
  // it can use. Thread-safe; never allocates.
  void publishJob(PoolJob* job);
  // Publishes every job of the list first -> publish_next at once (one lock,
  // one wake-up for all): their workgroups are claimable together, and
  // workers spread over the jobs that still have unclaimed workgroups, in
  // list order. Thread-safe; never allocates. Once this returns, any of the
  // jobs may have completed.
  void publishJobs(PoolJob* first);

  // Cancels every job in flight and every job published from now on:
  // their workgroups not yet started are skipped and the jobs complete as
  // failed with failure_code kCancelledCode. For a lost device. Thread-safe.
  void cancelAll();
  static constexpr int kCancelledCode = -0x7FFF;

  // Whether the calling thread is one of this pool's workers.
  bool onWorkerThread() const;

  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

private:
  struct Worker;
  struct State;

  TaskPool() = default;
  ~TaskPool() = default;

  void workerMain(uint32_t index);
  bool runOne(Worker& worker);
  PoolJob* runJob(Worker& worker, PoolJob* job);
  void wake(uint32_t count);
  bool hasWork() const;

  strata_allocator_t allocator_ = {};
  void (*on_idle_)(void* user) = nullptr;
  void* idle_user_ = nullptr;
  uint32_t worker_count_ = 0;
  Worker* workers_ = nullptr;
  State* state_ = nullptr;
};

}  // namespace strata::hal

#endif  // STRATA_HAL_SRC_TASK_POOL_H_
