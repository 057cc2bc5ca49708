// dispatch.cpp - dispatch overhead and kernel-library load time, beside
// their direct equivalents measured in the same run:
//   1. a chain of dependent one-workgroup add_f32 dispatches on local-sync
//      and local-task, against calling the kernel directly; beside it, as
//      many independent ones in one batch (no barriers), which local-task
//      runs side by side;
//   2. loading a module's embedded kernel library and running its first
//      dispatch, against a bare memfd + dlopen of the same bytes.
// Repetitions are interleaved; medians are reported.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_support.h"
#include "strata/hal/command_buffer.h"
#include "strata/hal/device.h"
#include "strata/hal/executable.h"
#include "strata/hal/executable_library.h"
#include "strata/hal/semaphore.h"

namespace {

using strata::bench::median;
using strata::bench::nowNs;
using strata::bench::nowUs;

void check(strata_status_t status, const char* what) {
  strata::bench::checkOrExit("dispatch", status, what);
}

std::vector<uint8_t> readFile(const char* path) {
  return strata::bench::readFileOrExit("dispatch", path);
}

constexpr uint32_t kElements = 64;  // one workgroup of add_f32

struct Buffers {
  strata_hal_buffer_t* a = nullptr;
  strata_hal_buffer_t* b = nullptr;
  strata_hal_buffer_t* out = nullptr;
  Buffers() {
    strata_allocator_t allocator = strata_allocator_system();
    check(strata_hal_buffer_allocate(allocator, kElements * 4, &a), "alloc");
    check(strata_hal_buffer_allocate(allocator, kElements * 4, &b), "alloc");
    check(strata_hal_buffer_allocate(allocator, kElements * 4, &out), "alloc");
  }
  ~Buffers() {
    strata_hal_buffer_release(a);
    strata_hal_buffer_release(b);
    strata_hal_buffer_release(out);
  }
};

// Resolves an export of the sample library by dlopen()ing it directly.
strata_hal_executable_dispatch_v0_t directKernel(const char* name) {
  void* handle = dlopen(STRATA_BENCH_SAMPLE_KERNELS_PATH, RTLD_NOW);
  if (!handle) {
    std::fprintf(stderr, "dispatch: %s\n", dlerror());
    std::exit(1);
  }
  auto query = reinterpret_cast<strata_hal_executable_library_query_fn_t>(
      dlsym(handle, STRATA_HAL_EXECUTABLE_LIBRARY_QUERY_SYMBOL));
  strata_hal_executable_environment_v0_t env{};
  env.worker_count = 1;
  const auto* lib = reinterpret_cast<const strata_hal_executable_library_v0_t*>(
      query ? query(STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST, &env)
            : nullptr);
  if (!lib) {
    std::fprintf(stderr, "dispatch: the sample library did not answer\n");
    std::exit(1);
  }
  for (uint32_t i = 0; i < lib->exports.count; ++i) {
    if (lib->exports.names && std::strcmp(lib->exports.names[i], name) == 0) {
      return lib->exports.ptrs[i];
    }
  }
  std::fprintf(stderr, "dispatch: no export %s\n", name);
  std::exit(1);
}

// The kernel called directly through the ABI, `chain` times.
double directCall(strata_hal_executable_dispatch_v0_t fn, Buffers& buffers,
                  int chain) {
  uint8_t *a, *b, *out;
  check(strata_hal_buffer_map(buffers.a, 0, kElements * 4, &a), "map");
  check(strata_hal_buffer_map(buffers.b, 0, kElements * 4, &b), "map");
  check(strata_hal_buffer_map(buffers.out, 0, kElements * 4, &out), "map");
  void* ptrs[3] = {a, b, out};
  size_t lengths[3] = {kElements * 4, kElements * 4, kElements * 4};
  uint32_t constants[1] = {kElements};
  strata_hal_executable_environment_v0_t env{};
  env.worker_count = 1;
  strata_hal_executable_dispatch_state_v0_t state{};
  state.workgroup_size_x = 64;
  state.workgroup_size_y = 1;
  state.workgroup_size_z = 1;
  state.workgroup_count_x = 1;
  state.workgroup_count_y = 1;
  state.workgroup_count_z = 1;
  state.constant_count = 1;
  state.constants = constants;
  state.binding_count = 3;
  state.binding_ptrs = ptrs;
  state.binding_lengths = lengths;
  strata_hal_executable_workgroup_state_v0_t wg{};
  double t0 = nowUs();
  for (int i = 0; i < chain; ++i) {
    if (fn(&env, &state, &wg) != 0) {
      std::fprintf(stderr, "dispatch: kernel failed\n");
      std::exit(1);
    }
    asm volatile("" ::: "memory");
  }
  return (nowUs() - t0) / chain;
}

// Finalizes cb, submits it once, waits, releases it, and returns the time
// from submission to the signal divided by dispatches (us per dispatch).
double executeTimed(strata_hal_device_t* device,
                    strata_hal_command_buffer_t* cb, int dispatches) {
  check(strata_hal_command_buffer_finalize(cb), "finalize");
  strata_hal_fence_t* fence = nullptr;
  check(strata_hal_fence_create_pending(strata_allocator_system(), &fence),
        "fence");
  double t0 = nowUs();
  check(strata_hal_device_queue_execute(device, nullptr, fence, &cb, 1),
        "execute");
  check(strata_hal_fence_wait(fence, strata_hal_deadline_after_ns(60e9)),
        "wait");
  double t = (nowUs() - t0) / dispatches;
  strata_hal_fence_release(fence);
  strata_hal_command_buffer_release(cb);
  return t;
}

// One command buffer holding `chain` dependent dispatches (barrier between
// each), submitted once and waited for.
double deviceChain(strata_hal_device_t* device,
                   strata_hal_executable_t* executable, uint32_t ordinal,
                   Buffers& buffers, int chain) {
  strata_allocator_t allocator = strata_allocator_system();
  strata_hal_command_buffer_t* cb = nullptr;
  check(strata_hal_command_buffer_create(STRATA_HAL_COMMAND_BUFFER_MODE_REUSABLE,
                                         allocator, &cb),
        "command buffer");
  strata_hal_buffer_binding_t bindings[3] = {
      {buffers.a, 0, UINT64_MAX},
      {buffers.b, 0, UINT64_MAX},
      {buffers.out, 0, UINT64_MAX}};
  uint32_t constants[1] = {kElements};
  uint32_t count[3] = {1, 1, 1};
  for (int i = 0; i < chain; ++i) {
    check(strata_hal_command_buffer_dispatch(cb, executable, ordinal, count,
                                             constants, 1, bindings, 3),
          "record");
    check(strata_hal_command_buffer_barrier(cb), "barrier");
  }
  return executeTimed(device, cb, chain);
}

// One command buffer holding `chain` independent dispatches (no barriers:
// one batch), each writing its own slice of `wide`, submitted once and
// waited for.
double deviceBatch(strata_hal_device_t* device,
                   strata_hal_executable_t* executable, uint32_t ordinal,
                   Buffers& buffers, strata_hal_buffer_t* wide, int chain) {
  strata_allocator_t allocator = strata_allocator_system();
  strata_hal_command_buffer_t* cb = nullptr;
  check(strata_hal_command_buffer_create(STRATA_HAL_COMMAND_BUFFER_MODE_REUSABLE,
                                         allocator, &cb),
        "command buffer");
  uint32_t constants[1] = {kElements};
  uint32_t count[3] = {1, 1, 1};
  for (int i = 0; i < chain; ++i) {
    strata_hal_buffer_binding_t bindings[3] = {
        {buffers.a, 0, UINT64_MAX},
        {buffers.b, 0, UINT64_MAX},
        {wide, uint64_t(i) * kElements * 4, kElements * 4}};
    check(strata_hal_command_buffer_dispatch(cb, executable, ordinal, count,
                                             constants, 1, bindings, 3),
          "record");
  }
  return executeTimed(device, cb, chain);
}

// `chain` submissions of a one-dispatch command buffer, each waiting on the
// previous one's timepoint of one timeline semaphore.
double submissionChain(strata_hal_device_t* device,
                       strata_hal_executable_t* executable, uint32_t ordinal,
                       Buffers& buffers, int chain) {
  strata_allocator_t allocator = strata_allocator_system();
  strata_hal_command_buffer_t* cb = nullptr;
  check(strata_hal_command_buffer_create(STRATA_HAL_COMMAND_BUFFER_MODE_REUSABLE,
                                         allocator, &cb),
        "command buffer");
  strata_hal_buffer_binding_t bindings[3] = {
      {buffers.a, 0, UINT64_MAX},
      {buffers.b, 0, UINT64_MAX},
      {buffers.out, 0, UINT64_MAX}};
  uint32_t constants[1] = {kElements};
  uint32_t count[3] = {1, 1, 1};
  check(strata_hal_command_buffer_dispatch(cb, executable, ordinal, count,
                                           constants, 1, bindings, 3),
        "record");
  check(strata_hal_command_buffer_finalize(cb), "finalize");
  strata_hal_semaphore_t* semaphore = nullptr;
  check(strata_hal_semaphore_create(0, allocator, &semaphore), "semaphore");
  std::vector<strata_hal_fence_t*> fences(chain + 1);
  for (int i = 0; i <= chain; ++i) {
    check(strata_hal_fence_create(1, allocator, &fences[i]), "fence");
    check(strata_hal_fence_insert(fences[i], semaphore, uint64_t(i)), "insert");
  }
  double t0 = nowUs();
  for (int i = 0; i < chain; ++i) {
    check(strata_hal_device_queue_execute(device, fences[i], fences[i + 1],
                                          &cb, 1),
          "execute");
  }
  check(strata_hal_fence_wait(fences[chain],
                              strata_hal_deadline_after_ns(60e9)),
        "wait");
  double t = (nowUs() - t0) / chain;
  for (strata_hal_fence_t* f : fences) strata_hal_fence_release(f);
  strata_hal_semaphore_release(semaphore);
  strata_hal_command_buffer_release(cb);
  return t;
}

double bareLoad(const std::vector<uint8_t>& bytes) {
  double t0 = nowUs();
  int fd = memfd_create("bare", MFD_CLOEXEC);
  if (fd < 0 || write(fd, bytes.data(), bytes.size()) !=
                    static_cast<ssize_t>(bytes.size())) {
    std::fprintf(stderr, "dispatch: memfd failed\n");
    std::exit(1);
  }
  // glibc's dlopen() returns an already loaded object with the same path
  // instead of loading, and the fd number of an earlier (closed) memfd load
  // comes back first; an fd number above the ones loads use keeps this
  // peer honest.
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 32);
  close(fd);
  if (high < 0) {
    std::fprintf(stderr, "dispatch: fcntl failed\n");
    std::exit(1);
  }
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/self/fd/%d", high);
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  close(high);
  if (!handle) {
    std::fprintf(stderr, "dispatch: %s\n", dlerror());
    std::exit(1);
  }
  double t = nowUs() - t0;
  dlclose(handle);
  return t;
}

double strataLoadAndDispatch(const std::vector<uint8_t>& bytes,
                             strata_hal_device_t* device, Buffers& buffers) {
  double t0 = nowUs();
  strata_hal_executable_t* executable = nullptr;
  check(strata_hal_executable_load_memory(bytes.data(), bytes.size(),
                                          "sample_kernels",
                                          strata_allocator_system(),
                                          &executable),
        "load");
  uint32_t ordinal = 0;
  check(strata_hal_executable_lookup_export(executable, "add_f32", &ordinal),
        "lookup");
  deviceChain(device, executable, ordinal, buffers, 1);
  double t = nowUs() - t0;
  strata_hal_executable_release(executable);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  int repetitions = 7;
  int chain = 10000;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--repetitions=", 14) == 0) {
      repetitions = std::atoi(argv[i] + 14);
    } else if (std::strncmp(argv[i], "--chain=", 8) == 0) {
      chain = std::atoi(argv[i] + 8);
    } else {
      std::fprintf(stderr,
                   "usage: dispatch [--repetitions=N] [--chain=N]\n"
                   "Per-dispatch overhead on local-sync and local-task against "
                   "a direct kernel call, and load-to-first-dispatch against a "
                   "bare memfd + dlopen.\n");
      return std::strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  if (repetitions < 1 || chain < 1) {
    std::fprintf(stderr, "dispatch: repetitions and chain must be >= 1\n");
    return 2;
  }
  std::vector<uint8_t> bytes = readFile(STRATA_BENCH_SAMPLE_KERNELS_PATH);
  strata_allocator_t allocator = strata_allocator_system();
  strata_hal_executable_t* executable = nullptr;
  check(strata_hal_executable_load_memory(bytes.data(), bytes.size(),
                                          "sample_kernels", allocator,
                                          &executable),
        "load");
  uint32_t ordinal = 0;
  check(strata_hal_executable_lookup_export(executable, "add_f32", &ordinal),
        "lookup");
  strata_hal_device_options_t sync_options{"local-sync", 0};
  strata_hal_device_options_t task_options{"local-task", 0};
  strata_hal_device_t* sync = nullptr;
  strata_hal_device_t* task = nullptr;
  check(strata_hal_device_create(&sync_options, allocator, &sync), "device");
  check(strata_hal_device_create(&task_options, allocator, &task), "device");
  Buffers buffers;
  strata_hal_buffer_t* wide = nullptr;
  check(strata_hal_buffer_allocate(allocator, uint64_t(chain) * kElements * 4,
                                   &wide),
        "alloc");
  strata_hal_executable_dispatch_v0_t direct_fn = directKernel("add_f32");

  struct Row {
    const char* name;
    std::function<double()> run;
    std::vector<double> samples;
  };
  std::vector<Row> rows = {
      {"direct kernel call", [&] {
         return directCall(direct_fn, buffers, chain);
       }, {}},
      {"local-sync, one command buffer", [&] {
         return deviceChain(sync, executable, ordinal, buffers, chain);
       }, {}},
      {"local-task, one command buffer", [&] {
         return deviceChain(task, executable, ordinal, buffers, chain);
       }, {}},
      {"local-sync, one independent batch", [&] {
         return deviceBatch(sync, executable, ordinal, buffers, wide, chain);
       }, {}},
      {"local-task, one independent batch", [&] {
         return deviceBatch(task, executable, ordinal, buffers, wide, chain);
       }, {}},
      {"local-sync, chained submissions", [&] {
         return submissionChain(sync, executable, ordinal, buffers, chain);
       }, {}},
      {"local-task, chained submissions", [&] {
         return submissionChain(task, executable, ordinal, buffers, chain);
       }, {}},
  };
  std::vector<double> bare, strata;
  for (Row& r : rows) r.run();  // warm up
  for (int rep = 0; rep < repetitions; ++rep) {
    for (Row& r : rows) r.samples.push_back(r.run());
  }
  // The loads get their own interleaved rounds: run right after a long
  // submission chain, either load paid for the heap and mappings the chain
  // left behind, by a varying amount.
  for (int rep = 0; rep < repetitions; ++rep) {
    // Alternate which load goes first so neither always inherits the
    // other's leftovers (freed mappings, allocator state).
    if (rep % 2 == 0) {
      bare.push_back(bareLoad(bytes));
      strata.push_back(strataLoadAndDispatch(bytes, sync, buffers));
    } else {
      strata.push_back(strataLoadAndDispatch(bytes, sync, buffers));
      bare.push_back(bareLoad(bytes));
    }
  }
  double direct = median(rows[0].samples);
  std::printf("dispatch: chain of %d dependent one-workgroup add_f32 "
              "dispatches (barrier between each; \"independent batch\": as "
              "many without barriers), %d interleaved repetitions, medians\n",
              chain, repetitions);
  std::printf("%-36s %12s %14s\n", "variant", "us/dispatch",
              "over direct us");
  for (Row& r : rows) {
    double m = median(r.samples);
    std::printf("%-36s %12.3f %14.3f\n", r.name, m, m - direct);
  }
  double b = median(bare), s = median(strata);
  std::printf("\nload: %zu-byte kernel library from memory\n", bytes.size());
  std::printf("%-36s %12s %14s\n", "variant", "us", "x bare");
  std::printf("%-36s %12.1f %14.2f\n", "bare memfd + dlopen", b, 1.0);
  std::printf("%-36s %12.1f %14.2f\n", "strata load + first dispatch", s,
              s / b);
  std::printf("targets: local-sync <= 0.2 us over direct, local-task <= 3 us "
              "per dependent dispatch, load <= 1.5x bare\n");
  strata_hal_buffer_release(wide);
  strata_hal_device_release(sync);
  strata_hal_device_release(task);
  strata_hal_executable_release(executable);
  return 0;
}
