// task_pool.cpp - worker threads for local-task: a FIFO of tasks and a list
// of dispatch jobs whose workgroups are claimed with fetch_add; idle workers
// spin briefly, then sleep on a futex.
#include "task_pool.h"

#include <cstdio>

#include "strata/base/trace.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <mutex>
#include <new>
#include <thread>

namespace strata::hal {
namespace {

// How long an idle worker polls for work before it sleeps: long enough to
// catch the next dispatch of a chain submitted from another thread, and
// the next one of its own chain when the other workers' last workgroups
// run that much longer than its own, short enough not to burn a core for
// nothing. At 50 us, resnet18 at batch 1 on two workers (AMD Zen 5, a
// 2-vCPU VM) had its idle worker asleep at most dispatch ends (the last
// workgroups end 30-120 us apart), and the worker publishing the next
// dispatch paid the futex wake: a median 14 us between dispatches, 300 us
// a call; at 250 us, 1.1 us and 116 us (whole calls 0.96-1.006x across
// models, most near 0.99).
constexpr int64_t kSpinNs = 250 * 1000;
// Polls with a pause instruction before the worker starts yielding.
constexpr uint32_t kPauseSpins = 64;
// Largest local memory a worker grows its scratch to on demand.
constexpr uint32_t kMaxLocalMemory = 64u << 20;
constexpr size_t kCacheLine = 64;
// A range of fewer workgroups than this gives up its last one to a thief
// (claimChunk's leave_last only from this many on). A thief leaves an
// owner at work its last workgroup for the rows the owner has in its
// cache; in a range of a few workgroups that last one is a large part of
// the owner's share, and an owner on a slower vCPU (a busy hyperthread
// sibling: 1.5-2x slower for seconds, Intel Xeon, 2026-12-06) then holds
// the whole dispatch back: the transformer at batch 1 on two workers ran
// its 2-4 workgroup ranges (attention's batch matmuls, the projections)
// at the slower worker's pace, 1.5-1.8x the other's share.
constexpr uint64_t kLeaveLastMinRange = 8;

thread_local const TaskPool* tls_pool = nullptr;

// Where range `range` of job's workgroups starts (range_count ends at the
// total): ranges differ in size by one workgroup at most.
uint64_t rangeStart(const PoolJob* job, uint32_t range) {
  return job->workgroup_total * range / job->range_count;
}

// Whether some range of job still has workgroups to claim.
bool hasUnclaimed(const PoolJob* job) {
  for (uint32_t r = 0; r < job->range_count; ++r) {
    if (job->ranges[r].next.load(std::memory_order_relaxed) <
        rangeStart(job, r + 1)) {
      return true;
    }
  }
  return false;
}

// The first job from job on (along the pool's list; mutex held) that still
// has workgroups to claim, or NULL.
PoolJob* firstClaimable(PoolJob* job) {
  for (; job; job = job->list_next) {
    if (hasUnclaimed(job)) {
      return job;
    }
  }
  return nullptr;
}

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

int64_t monotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The futex word is a std::atomic<uint32_t>, which has the layout of a
// uint32_t on every platform we build for.
void futexWait(std::atomic<uint32_t>* word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE,
          expected, nullptr, nullptr, 0);
}
void futexWake(std::atomic<uint32_t>* word, uint32_t count) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE,
          count > INT32_MAX ? INT32_MAX : static_cast<int>(count), nullptr,
          nullptr, 0);
}

}  // namespace

bool claimChunk(std::atomic<uint64_t>& next, uint64_t range_end,
                uint64_t max_chunk, uint32_t ranges, bool leave_last,
                uint64_t* begin, uint64_t* end) {
  uint64_t first = next.load(std::memory_order_relaxed);
  for (;;) {
    if (first >= range_end || (leave_last && range_end - first < 2)) {
      return false;
    }
    uint64_t take = (range_end - first) / (2 * uint64_t(ranges));
    take = take < 1 ? 1 : (take > max_chunk ? max_chunk : take);
    if (next.compare_exchange_weak(first, first + take,
                                   std::memory_order_relaxed)) {
      *begin = first;
      *end = first + take;
      return true;
    }
  }
}

struct alignas(kCacheLine) TaskPool::Worker {
  TaskPool* pool = nullptr;
  uint32_t index = 0;
  pthread_t thread = {};
  bool started = false;
  // Scratch for kernels' local memory, owned by this worker alone.
  uint8_t* scratch = nullptr;
  uint32_t scratch_size = 0;
};

struct TaskPool::State {
  std::mutex mutex;
  // Tasks (FIFO) and listed jobs, guarded by mutex.
  PoolTask* task_head = nullptr;
  PoolTask* task_tail = nullptr;
  PoolJob* job_head = nullptr;
  PoolJob* job_tail = nullptr;

  // Queued tasks plus listed jobs; read without the lock by idle workers.
  alignas(kCacheLine) std::atomic<uint32_t> work_available{0};
  // The futex word: bumped whenever work arrives or the pool stops.
  alignas(kCacheLine) std::atomic<uint32_t> epoch{0};
  std::atomic<uint32_t> sleepers{0};
  std::atomic<bool> shutdown{false};
  std::atomic<bool> cancelled{false};  // cancelAll was called
};

strata_status_t TaskPool::create(uint32_t worker_count,
                                 uint32_t local_memory_size,
                                 strata_allocator_t allocator,
                                 TaskPool** out_pool,
                                 void (*on_idle)(void* user),
                                 void* idle_user) {
  *out_pool = nullptr;
  if (worker_count == 0) {
    worker_count = std::thread::hardware_concurrency();
    if (worker_count == 0) {
      worker_count = 1;
    }
  }
  constexpr uint32_t kMaxWorkers = 1024;
  if (worker_count > kMaxWorkers) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "a task pool of %" PRIu32
                              " workers exceeds the limit of %" PRIu32,
                              worker_count, kMaxWorkers);
  }
  void* pool_memory =
      strata_allocator_alloc(allocator, sizeof(TaskPool), alignof(TaskPool));
  void* state_memory =
      strata_allocator_alloc(allocator, sizeof(State), alignof(State));
  void* workers_memory = strata_allocator_alloc(
      allocator, sizeof(Worker) * worker_count, alignof(Worker));
  if (!pool_memory || !state_memory || !workers_memory) {
    strata_allocator_free(allocator, pool_memory);
    strata_allocator_free(allocator, state_memory);
    strata_allocator_free(allocator, workers_memory);
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a task pool of %" PRIu32
                              " workers",
                              worker_count);
  }
  auto* pool = new (pool_memory) TaskPool();
  pool->allocator_ = allocator;
  pool->on_idle_ = on_idle;
  pool->idle_user_ = idle_user;
  pool->worker_count_ = worker_count;
  pool->state_ = new (state_memory) State();
  pool->workers_ = static_cast<Worker*>(workers_memory);
  for (uint32_t i = 0; i < worker_count; ++i) {
    new (&pool->workers_[i]) Worker();
    pool->workers_[i].pool = pool;
    pool->workers_[i].index = i;
  }
  strata_status_t status = nullptr;
  for (uint32_t i = 0; i < worker_count && !status; ++i) {
    Worker& worker = pool->workers_[i];
    if (local_memory_size) {
      worker.scratch = static_cast<uint8_t*>(
          strata_allocator_alloc(allocator, local_memory_size, kCacheLine));
      if (!worker.scratch) {
        status = strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                    "out of memory allocating %" PRIu32
                                    " bytes of local memory for worker %" PRIu32,
                                    local_memory_size, i);
        break;
      }
      worker.scratch_size = local_memory_size;
    }
    int error = pthread_create(
        &worker.thread, nullptr,
        [](void* arg) -> void* {
          auto* self = static_cast<Worker*>(arg);
          self->pool->workerMain(self->index);
          return nullptr;
        },
        &worker);
    if (error) {
      status = strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                  "cannot start task pool worker %" PRIu32
                                  " of %" PRIu32 ": error %d",
                                  i, worker_count, error);
      break;
    }
    worker.started = true;
    char name[16];
    std::snprintf(name, sizeof(name), "strata-w%" PRIu32, i);
    pthread_setname_np(worker.thread, name);
  }
  if (status) {
    destroy(pool);
    return status;
  }
  *out_pool = pool;
  return nullptr;
}

void TaskPool::destroy(TaskPool* pool) {
  if (!pool) {
    return;
  }
  State& state = *pool->state_;
  state.shutdown.store(true, std::memory_order_seq_cst);
  state.epoch.fetch_add(1, std::memory_order_seq_cst);
  futexWake(&state.epoch, UINT32_MAX);
  strata_allocator_t allocator = pool->allocator_;
  for (uint32_t i = 0; i < pool->worker_count_; ++i) {
    Worker& worker = pool->workers_[i];
    if (worker.started) {
      pthread_join(worker.thread, nullptr);
    }
    strata_allocator_free(allocator, worker.scratch);
    worker.~Worker();
  }
  strata_allocator_free(allocator, pool->workers_);
  pool->state_->~State();
  strata_allocator_free(allocator, pool->state_);
  pool->~TaskPool();
  strata_allocator_free(allocator, pool);
}

bool TaskPool::onWorkerThread() const { return tls_pool == this; }

bool TaskPool::hasWork() const {
  return state_->work_available.load(std::memory_order_seq_cst) != 0;
}

void TaskPool::wake(uint32_t count) {
  State& state = *state_;
  state.epoch.fetch_add(1, std::memory_order_seq_cst);
  if (count && state.sleepers.load(std::memory_order_seq_cst)) {
    futexWake(&state.epoch, count);
  }
}

void TaskPool::submitTask(PoolTask* task) {
  State& state = *state_;
  task->next = nullptr;
  uint32_t queued;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.task_tail) {
      state.task_tail->next = task;
    } else {
      state.task_head = task;
    }
    state.task_tail = task;
    queued = state.work_available.fetch_add(1, std::memory_order_seq_cst) + 1;
  }
  // A worker queueing the only piece of work runs it itself as soon as it
  // returns to its loop: waking another thread would only add latency.
  wake(onWorkerThread() && queued == 1 ? 0 : 1);
}

void TaskPool::cancelAll() {
  State& state = *state_;
  std::lock_guard<std::mutex> lock(state.mutex);
  state.cancelled.store(true, std::memory_order_relaxed);
  for (PoolJob* job = state.job_head; job; job = job->list_next) {
    bool expected = false;
    if (job->failed.compare_exchange_strong(expected, true,
                                            std::memory_order_relaxed)) {
      job->failure_code = kCancelledCode;
      job->failure_local_memory = 0;
    }
  }
}

void TaskPool::publishJob(PoolJob* job) {
  job->publish_next = nullptr;
  publishJobs(job);
}

void TaskPool::publishJobs(PoolJob* first) {
  State& state = *state_;
  uint64_t useful = 0;
  uint32_t count = 0;
  for (PoolJob* job = first; job; job = job->publish_next) {
    uint64_t total = job->workgroup_total;
    // The largest claim (claimChunk: guided below it): a few per worker
    // keep the counter cool.
    uint64_t chunk = total / (uint64_t(worker_count_) * 4);
    chunk = chunk < 1 ? 1 : (chunk > 64 ? 64 : chunk);
    job->chunk = static_cast<uint32_t>(chunk);
    // A cancelled pool (lost device) hands out no workgroup of a new job.
    bool cancelled = state.cancelled.load(std::memory_order_relaxed);
    job->failed.store(cancelled, std::memory_order_relaxed);
    job->failure_code = cancelled ? kCancelledCode : 0;
    job->failure_local_memory = 0;
    job->failure_detail = {};
    job->range_count =
        worker_count_ < kPoolJobRanges ? worker_count_ : kPoolJobRanges;
    if (job->range_count < 1) {
      job->range_count = 1;
    }
    for (uint32_t r = 0; r < job->range_count; ++r) {
      job->ranges[r].next.store(rangeStart(job, r), std::memory_order_relaxed);
      job->ranges[r].owned.store(false, std::memory_order_relaxed);
    }
    job->active_workers = 0;
    if (useful < worker_count_) {
      useful += (total + chunk - 1) / chunk;
    }
    ++count;
  }
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    // Workers find the jobs only under this lock; once it is released
    // they may complete them, so nothing below touches a job again.
    for (PoolJob* job = first; job; job = job->publish_next) {
      job->listed = true;
      job->list_next = nullptr;
      job->list_prev = state.job_tail;
      if (state.job_tail) {
        state.job_tail->list_next = job;
      } else {
        state.job_head = job;
      }
      state.job_tail = job;
    }
    state.work_available.fetch_add(count, std::memory_order_seq_cst);
  }
  if (useful > worker_count_) {
    useful = worker_count_;
  }
  // The publishing worker takes part itself.
  if (onWorkerThread() && useful) {
    --useful;
  }
  wake(static_cast<uint32_t>(useful));
}

bool TaskPool::runOne(Worker& worker) {
  State& state = *state_;
  PoolTask* task = nullptr;
  PoolJob* job = nullptr;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    // Tasks first: each is short and usually publishes a job, which is how
    // independent submissions come to overlap.
    if ((task = state.task_head)) {
      state.task_head = task->next;
      if (!state.task_head) {
        state.task_tail = nullptr;
      }
      state.work_available.fetch_sub(1, std::memory_order_seq_cst);
    } else if ((job = state.job_head)) {
      // A listed job whose last workgroups are running elsewhere is only
      // worth entering (to unlist it) when no other job has work.
      if (PoolJob* claimable = firstClaimable(job)) {
        job = claimable;
      }
      ++job->active_workers;
    } else {
      return false;
    }
  }
  if (task) {
    task->next = nullptr;
    task->run(task, worker.index);
  } else {
    while (job) {
      job = runJob(worker, job);
    }
  }
  return true;
}

PoolJob* TaskPool::runJob(Worker& worker, PoolJob* job) {
  const uint64_t chunk = job->chunk;
  const strata_hal_executable_dispatch_state_v0_t* state = job->state;
  const uint64_t count_x = state->workgroup_count_x;
  const uint64_t count_y = state->workgroup_count_y;

  // Version 1 state for every library (version 0 reads only .v0). The
  // detail is reset once: after a failure this worker runs no more
  // workgroups of the job.
  strata_hal_executable_dispatch_detail_v1_t detail = {};
  strata_hal_executable_workgroup_state_v1_t state_v1 = {};
  state_v1.detail = &detail;
  strata_hal_executable_workgroup_state_v0_t& workgroup = state_v1.v0;
  workgroup.processor_id = worker.index;
  bool runnable = true;
  if (job->local_memory_size) {
    if (job->local_memory_size > worker.scratch_size) {
      // Grown once per larger kernel, never per dispatch in steady state.
      uint8_t* grown = nullptr;
      if (job->local_memory_size <= kMaxLocalMemory) {
        grown = static_cast<uint8_t*>(strata_allocator_alloc(
            allocator_, job->local_memory_size, kCacheLine));
      }
      if (grown) {
        strata_allocator_free(allocator_, worker.scratch);
        worker.scratch = grown;
        worker.scratch_size = job->local_memory_size;
      } else {
        runnable = false;
      }
    }
    workgroup.local_memory = worker.scratch;
    workgroup.local_memory_size = job->local_memory_size;
  }

  // Tracing: this worker's share of the dispatch, one event.
  strata_trace_t* trace = strata_trace_installed();
  int64_t share_start = trace ? strata_trace_now_ns() : 0;
  uint64_t share = 0;
  // This worker's own range first, then the next ones in turn: a range
  // once found exhausted stays so.
  const uint32_t ranges = job->range_count;
  const uint32_t own = worker.index % ranges;
  uint32_t range = own;
  job->ranges[own].owned.store(true, std::memory_order_relaxed);
  for (uint32_t exhausted = 0; exhausted < ranges;) {
    const uint64_t range_end = rangeStart(job, range + 1);
    uint64_t begin = 0, end = 0;
    // Another range's last workgroup is left to its owner once the owner
    // has started (it will take it); one that has not may never come.
    bool leave_last =
        range != own &&
        range_end - rangeStart(job, range) >= kLeaveLastMinRange &&
        job->ranges[range].owned.load(std::memory_order_relaxed);
    if (!claimChunk(job->ranges[range].next, range_end, chunk, ranges,
                    leave_last, &begin, &end)) {
      range = range + 1 == ranges ? 0 : range + 1;
      ++exhausted;
      continue;
    }
    share += end - begin;
    uint64_t x = begin % count_x;
    uint64_t yz = begin / count_x;
    uint64_t y = yz % count_y;
    uint64_t z = yz / count_y;
    for (uint64_t i = begin; i < end; ++i) {
      if (!job->failed.load(std::memory_order_relaxed)) {
        workgroup.workgroup_id_x = static_cast<uint32_t>(x);
        workgroup.workgroup_id_y = static_cast<uint32_t>(y);
        workgroup.workgroup_id_z = static_cast<uint16_t>(z);
        int code = runnable
                       ? job->function(&job->environment, state, &workgroup)
                       : -1;
        bool expected = false;
        if (code &&
            job->failed.compare_exchange_strong(expected, true,
                                                std::memory_order_relaxed)) {
          job->failure_code = runnable ? code : 0;
          job->failure_local_memory = runnable ? 0 : job->local_memory_size;
          job->failure_workgroup[0] = static_cast<uint32_t>(x);
          job->failure_workgroup[1] = static_cast<uint32_t>(y);
          job->failure_workgroup[2] = static_cast<uint32_t>(z);
          job->failure_worker = worker.index;
          job->failure_detail = detail;
        }
      }
      if (++x == count_x) {
        x = 0;
        if (++y == count_y) {
          y = 0;
          ++z;
        }
      }
    }
  }

  if (trace && share) {
    char args[128];
    std::snprintf(args, sizeof(args),
                  "\"workgroups\": %llu, \"grid\": [%u, %u, %u]",
                  static_cast<unsigned long long>(share),
                  state->workgroup_count_x, state->workgroup_count_y,
                  static_cast<unsigned>(state->workgroup_count_z));
    strata_trace_record(trace, "dispatch",
                        job->trace_name ? job->trace_name : "dispatch",
                        STRATA_TRACE_TRACK_WORKER0 + worker.index, share_start,
                        strata_trace_now_ns(), args);
  }

  State& pool_state = *state_;
  bool last;
  PoolJob* next = nullptr;
  {
    std::lock_guard<std::mutex> lock(pool_state.mutex);
    // Every workgroup is claimed: nobody new may enter.
    if (job->listed) {
      job->listed = false;
      if (job->list_prev) {
        job->list_prev->list_next = job->list_next;
      } else {
        pool_state.job_head = job->list_next;
      }
      if (job->list_next) {
        job->list_next->list_prev = job->list_prev;
      } else {
        pool_state.job_tail = job->list_prev;
      }
      pool_state.work_available.fetch_sub(1, std::memory_order_seq_cst);
    }
    last = --job->active_workers == 0;
    // Enter the next job with work in the same critical section: with many
    // small jobs (a wide batch), one lock per job instead of two, which two
    // workers otherwise contend for. Queued tasks go first, through runOne.
    // The price: when this worker also runs job's on_complete below, the
    // next job cannot complete before that returns (its workgroups are
    // still claimed by everyone else meanwhile); on_complete never blocks.
    if (!pool_state.task_head &&
        (next = firstClaimable(pool_state.job_head))) {
      ++next->active_workers;
    }
  }
  // The mutex orders every other worker's kernel writes before this point.
  if (last) {
    job->on_complete(job, worker.index);
  }
  return next;
}

void TaskPool::workerMain(uint32_t index) {
  tls_pool = this;
  Worker& worker = workers_[index];
  State& state = *state_;
  for (;;) {
    if (runOne(worker)) {
      continue;
    }
    // Idle: poll for a while, then sleep until the epoch moves. After a
    // few pause instructions the poll yields the CPU, so that an idle
    // worker never delays the thread that is about to hand it work on a
    // machine with more runnable threads than cores.
    int64_t spin_until = monotonicNs() + kSpinNs;
    bool found = false;
    for (uint32_t i = 0;; ++i) {
      if (hasWork() || state.shutdown.load(std::memory_order_relaxed)) {
        found = true;
        break;
      }
      if (i < kPauseSpins) {
        cpuRelax();
      } else {
        sched_yield();
        if (monotonicNs() >= spin_until) {
          break;
        }
      }
    }
    if (!found) {
      if (on_idle_) {
        on_idle_(idle_user_);
      }
      state.sleepers.fetch_add(1, std::memory_order_seq_cst);
      uint32_t epoch = state.epoch.load(std::memory_order_seq_cst);
      if (!hasWork() && !state.shutdown.load(std::memory_order_seq_cst)) {
        futexWait(&state.epoch, epoch);
      }
      state.sleepers.fetch_sub(1, std::memory_order_seq_cst);
    }
    if (state.shutdown.load(std::memory_order_seq_cst) && !hasWork()) {
      break;
    }
  }
  tls_pool = nullptr;
}

}  // namespace strata::hal
