// inprocess_calls.cpp - the in-process ceiling for bench/service: the same
// function the service serves, called through the embedding API with the
// same number of calls in flight (strata_runtime_call_invoke_async on one
// loop, each completion starting the next call), and no HTTP. Without
// --json-body there is no JSON either: the same input view is pushed each
// time. With --json-body=FILE (a request body, as the service takes it)
// each call decodes it and encodes its results with the service's own code
// (tools/strata-serve/model_registry.cpp), as the service does. Prints one
// JSON line: calls, seconds, calls/s, p50/p99 latency, and the CPU time of
// all the process's threads over the calls (cpu_us).
//
//   inprocess_calls MODULE.vmfb FUNCTION INPUT(tensor text or @file.npy)
//       [--calls=N] [--in-flight=K] [--device=NAME] [--task_workers=N]
//       [--json-body=FILE]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "strata/runtime.h"
#include "tensor_io.h"
#if STRATA_BENCH_WITH_JSON
#include <fstream>
#include <sstream>

#include "model_registry.h"
#endif

namespace {

struct Bench;

struct Slot {
  Bench *bench = nullptr;
  strata_runtime_call_t *call = nullptr;
  std::chrono::steady_clock::time_point start;
};

struct Bench {
  strata_hal_loop_t *loop = nullptr;
  strata_hal_buffer_view_t *input = nullptr;
  size_t total = 0;
  size_t started = 0;
  size_t finished = 0;
  size_t failed = 0;
  std::vector<double> latencies_us;
#if STRATA_BENCH_WITH_JSON
  const strata::service::Function *function = nullptr; // JSON mode
  std::string body;
  std::string answer;
#endif
};

void start(Slot *slot);

void onDone(void *user, strata_runtime_call_t *, strata_status_t status) {
  Slot *slot = static_cast<Slot *>(user);
  Bench *bench = slot->bench;
  auto now = std::chrono::steady_clock::now();
  bench->latencies_us.push_back(
      std::chrono::duration<double, std::micro>(now - slot->start).count());
  if (status) {
    ++bench->failed;
    strata_status_free(status);
  }
#if STRATA_BENCH_WITH_JSON
  std::string error;
  if (bench->function && !status &&
      !strata::service::encodeOutputs(slot->call, &bench->answer, &error)) {
    ++bench->failed;
  }
#endif
  ++bench->finished;
  if (bench->started < bench->total) {
    start(slot);
  }
}

void start(Slot *slot) {
  Bench *bench = slot->bench;
  ++bench->started;
  strata_runtime_call_reset(slot->call);
  slot->start = std::chrono::steady_clock::now();
  strata_status_t status = nullptr;
#if STRATA_BENCH_WITH_JSON
  std::string error;
  if (bench->function) {
    if (!strata::service::pushInputs(*bench->function, bench->body, slot->call,
                                     &error)) {
      status = strata_make_status(STRATA_STATUS_INVALID_ARGUMENT, "%s",
                                  error.c_str());
    }
  } else
#endif
  {
    status = strata_runtime_call_push_buffer_view(slot->call, bench->input);
  }
  if (!status) {
    status = strata_runtime_call_invoke_async(slot->call, bench->loop, nullptr,
                                              onDone, slot);
  }
  if (status) {
    ++bench->failed;
    ++bench->finished;
    strata_status_free(status);
  }
}

int die(strata_status_t status) {
  char *text = strata_status_to_string(status);
  std::fprintf(stderr, "inprocess_calls: %s\n", text);
  std::free(text);
  strata_status_free(status);
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: inprocess_calls MODULE FUNCTION INPUT "
                         "[--calls=N] [--in-flight=K] [--device=NAME] "
                         "[--task_workers=N]\n");
    return 2;
  }
  size_t calls = 10000;
  size_t in_flight = 64;
  std::string device = "local-task";
  uint32_t workers = 0;
  std::string json_body_path;
  for (int i = 4; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *prefix) {
      return arg.compare(0, std::strlen(prefix), prefix) == 0
                 ? arg.c_str() + std::strlen(prefix)
                 : nullptr;
    };
    if (const char *v = value("--calls=")) {
      calls = std::strtoull(v, nullptr, 10);
    } else if (const char *v = value("--in-flight=")) {
      in_flight = std::max<size_t>(1, std::strtoull(v, nullptr, 10));
    } else if (const char *v = value("--device=")) {
      device = v;
    } else if (const char *v = value("--task_workers=")) {
      workers = static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
#if STRATA_BENCH_WITH_JSON
    } else if (const char *v = value("--json-body=")) {
      json_body_path = v;
#endif
    } else {
      std::fprintf(stderr, "inprocess_calls: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  strata::tools::HostTensor tensor;
  std::string error;
  if (!strata::tools::parseValueArgument(argv[3], &tensor, &error)) {
    std::fprintf(stderr, "inprocess_calls: input: %s\n", error.c_str());
    return 1;
  }
  strata_allocator_t allocator = strata_allocator_system();
  strata_runtime_instance_options_t options;
  strata_runtime_instance_options_initialize(&options);
  options.device = device.c_str();
  options.task_worker_count = workers;
  strata_runtime_instance_t *instance = nullptr;
  strata_runtime_session_t *session = nullptr;
  Bench bench;
  bench.total = calls;
  std::vector<Slot> slots(std::min(in_flight, calls));
  strata_status_t status =
      strata_runtime_instance_create(&options, allocator, &instance);
  if (!status) {
    status =
        strata_runtime_session_create_from_file(instance, argv[1], &session);
  }
  if (!status) {
    status =
        strata::tools::bufferViewFromTensor(tensor, allocator, &bench.input);
  }
  if (!status) {
    status = strata_hal_loop_create(allocator, &bench.loop);
  }
#if STRATA_BENCH_WITH_JSON
  // JSON mode: the service's registry makes the session's function table.
  strata::service::ModelRegistry registry;
  if (!status && !json_body_path.empty()) {
    std::ifstream file(json_body_path);
    std::stringstream text;
    text << file.rdbuf();
    bench.body = text.str();
    status = registry.add(instance, "model", argv[1]);
    if (!status) {
      const auto &functions = registry.findModel("model")->functions;
      auto it = functions.find(argv[2]);
      if (it == functions.end()) {
        status = strata_make_status(STRATA_STATUS_NOT_FOUND, "no function %s",
                                    argv[2]);
      } else {
        bench.function = it->second.get();
      }
    }
  }
#endif
  for (Slot &slot : slots) {
    slot.bench = &bench;
    if (!status) {
      status =
          strata_runtime_call_create(session, argv[2], allocator, &slot.call);
    }
  }
  if (status) {
    return die(status);
  }
  bench.latencies_us.reserve(calls);
  struct rusage usage_begin;
  getrusage(RUSAGE_SELF, &usage_begin);
  auto begin = std::chrono::steady_clock::now();
  for (Slot &slot : slots) {
    start(&slot);
  }
  status = strata_hal_loop_run(bench.loop);
  auto end = std::chrono::steady_clock::now();
  struct rusage usage_end;
  getrusage(RUSAGE_SELF, &usage_end);
  auto cpu_us = [](const struct rusage &u) {
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + u.ru_utime.tv_usec +
           u.ru_stime.tv_usec;
  };
  if (status) {
    return die(status);
  }
  double seconds = std::chrono::duration<double>(end - begin).count();
  std::vector<double> &l = bench.latencies_us;
  std::sort(l.begin(), l.end());
  auto pct = [&](double p) {
    return l.empty() ? 0.0 : l[std::min(l.size() - 1, size_t(p * l.size()))];
  };
  std::printf(
      "{\"calls\": %zu, \"failed\": %zu, \"in_flight\": %zu, "
      "\"seconds\": %.6f, \"calls_per_s\": %.1f, \"p50_us\": %.1f, "
      "\"p99_us\": %.1f, \"cpu_us\": %.0f, \"async_entry\": %d, "
      "\"json\": %d}\n",
      bench.finished, bench.failed, slots.size(), seconds,
      bench.finished / seconds, pct(0.5), pct(0.99),
      cpu_us(usage_end) - cpu_us(usage_begin),
      slots.empty() ? 0 : strata_runtime_call_has_async_entry(slots[0].call),
      json_body_path.empty() ? 0 : 1);
  for (Slot &slot : slots) {
    strata_runtime_call_destroy(slot.call);
  }
  strata_hal_loop_destroy(bench.loop);
  strata_hal_buffer_view_release(bench.input);
  strata_runtime_session_release(session);
  strata_runtime_instance_release(instance);
  return bench.failed ? 1 : 0;
}
