// strata-benchmark: times repeated calls of one function of a module through
// the embedding API (strata/runtime.h) and prints min/median/p90/p99 per
// call, as text or JSON.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "check_module.h"
#include "cli.h"
#include "json_writer.h"
#include "run_setup.h"
#include "strata/base/trace.h"
#include "strata/runtime.h"
#include "tensor_io.h"
#include "tensor_type_match.h"
#include "value_args.h"

namespace {

using strata::tools::parseValueArgument;
using strata::tools::takeFlagValue;

constexpr const char kUsage[] =
    "usage: strata-benchmark --module=FILE [--module=FILE ...]\n"
    "                        [--function=NAME] [--input=VALUE ...]\n"
    "                        [--warmup=N] [--repetitions=N]\n"
    "                        [--device=local-sync|local-task]\n"
    "                        [--task_workers=N] [--format=text|json]\n"
    "                        [--trace=FILE.json]\n"
    "                        [--require-signature=PUBKEY_FILE]\n"
    "                        [--timeout_ms=N] [--no-native-kernels]\n"
    "\n"
    "Calls one function of the last module (after the hal and check modules\n"
    "and the modules before it) --warmup times, then --repetitions times\n"
    "timed, each call blocking until its results are ready, and prints the\n"
    "time per call: min, median, p90, p99 and mean.\n"
    "\n"
    "options:\n"
    "  --module=FILE      a .vmfb module; repeatable\n"
    "  --function=NAME    \"fn\" of the last module or \"module.fn\"\n"
    "                     (default: main)\n"
    "  --input=VALUE      one argument, as in strata-run: i32=5, 2x3xf32=1 2\n"
    "                     3 4 5 6 (one value fills every element), @FILE.npy\n"
    "  --warmup=N         untimed calls first (default 2)\n"
    "  --repetitions=N    timed calls (default 10)\n"
    "  --device=NAME      local-task (default) or local-sync\n"
    "  --task_workers=N   local-task worker threads (default 0: one per core)\n"
    "  --format=FORMAT    text (default) or json\n"
    "  --trace=FILE.json  also write a Chrome trace of the run (warm-up\n"
    "                     included): calls, submissions, waits, dispatches\n"
    "  --timeout_ms=N     each call's deadline: a call still running N ms\n"
    "                     after it started fails with DEADLINE_EXCEEDED\n"
    "  --require-signature=PUBKEY_FILE\n"
    "                     refuse any --module not signed by this Ed25519\n"
    "                     public key (docs/security.md)\n"
    "  --no-native-kernels\n"
    "                     refuse every native kernel library (only\n"
    "                     --target=portable modules run)\n"
    "  --help             print this help and exit\n"
    "\n"
    "Exit status: 0 on success, 1 when loading or a call fails, 2 on a bad\n"
    "command line.\n";

// The shared flags (cli.h), then the benchmark's own.
struct Options : strata::tools::RunFlags {
  uint32_t warmup = 2;
  uint32_t repetitions = 10;
  bool json = false;
};

[[noreturn]] void usageError(const std::string& message) {
  std::fprintf(stderr, "strata-benchmark: %s\n%s", message.c_str(), kUsage);
  std::exit(2);
}

int fail(const std::string& message) {
  std::fprintf(stderr, "strata-benchmark: %s\n", message.c_str());
  return 1;
}

std::string consumeLine(strata_status_t status) {
  std::string text = strata::tools::statusToString(status);
  strata_status_free(status);
  return text;
}

uint32_t parseCount(const char* flag, const std::string& text, uint32_t min,
                    uint32_t max) {
  uint64_t value = 0;
  std::string error;
  if (!strata::tools::parseFlagCount(flag, text, min, max, &value, &error)) {
    usageError(error);
  }
  return static_cast<uint32_t>(value);
}

Options parseArgs(int argc, char** argv) {
  Options options;
  strata::tools::parseRunArgs(
      argc, argv, "strata-benchmark", kUsage, &options,
      [&](const std::string& arg) -> std::string {
        std::string value;
        if (takeFlagValue(arg, "--warmup", &value)) {
          options.warmup = parseCount("--warmup", value, 0, 1000000);
        } else if (takeFlagValue(arg, "--repetitions", &value)) {
          options.repetitions = parseCount("--repetitions", value, 1, 10000000);
        } else if (takeFlagValue(arg, "--format", &value)) {
          if (value != "text" && value != "json") {
            return "--format is text or json, not '" +
                   strata::tools::sanitizeLine(value) + "'";
          }
          options.json = value == "json";
        } else {
          return "unknown argument '" + strata::tools::sanitizeLine(arg) + "'";
        }
        return "";
      });
  return options;
}

// Everything the run creates, released in reverse order.
struct Run {
  strata::tools::RunSetup setup;  // the instance and the modules
  strata_runtime_session_t* session = nullptr;
  strata_runtime_call_t* call = nullptr;

  ~Run() {
    strata_runtime_call_destroy(call);
    strata_runtime_session_release(session);
  }
};

// Pushes argument `index` from the --input flags at *next (advancing it).
// A ref argument takes a tensor that must fit the export's recorded type,
// where the compiler recorded one ("arg0" = "?x3x224x224xf32": a '?' takes
// any size), or a list ("list<...>", "optional<...>": "list:N" and N more
// flags, @FILE.npz or "none"), as in strata-run; a scalar one flag.
std::string pushInput(Run& run, const Options& options, size_t index,
                      size_t* next) {
  strata_runtime_value_kind_t kind =
      strata_runtime_call_argument_kind(run.call, index);
  strata_status_t status = nullptr;
  if (kind == STRATA_RUNTIME_VALUE_BUFFER_VIEW) {
    const strata_vm_module_t* main = run.setup.modules.back();
    std::string full_name = strata_runtime_call_function_name(run.call);
    std::string prefix = std::string(strata_vm_module_name(main)) + ".";
    std::string export_name = full_name.compare(0, prefix.size(), prefix) == 0
                                  ? full_name.substr(prefix.size())
                                  : full_name;
    std::string want = strata::tools::exportAttr(main, export_name,
                                                 "arg" + std::to_string(index));
    strata::tools::InputReader reader{options.inputs, run.setup.allocator,
                                      next};
    strata_vm_ref_object_t* ref = nullptr;
    std::string error = reader.ref(
        want, "argument " + std::to_string(index) + " of " + full_name, &ref);
    if (!error.empty()) {
      return error;
    }
    status = strata_vm_list_push(strata_runtime_call_inputs(run.call),
                                 strata_vm_variant_ref(ref));
    strata_vm_ref_release(ref);  // the call holds it now
    return status ? consumeLine(status) : std::string();
  }
  std::string where =
      strata::tools::describeFlag("--input", *next, options.inputs[*next]);
  strata::tools::HostTensor tensor;
  std::string error;
  if (!parseValueArgument(options.inputs[(*next)++], &tensor, &error)) {
    return where + ": " + error;
  }
  strata_vm_variant_t value;
  if (!strata::tools::scalarFromTensor(tensor, &value)) {
    return where + ": a scalar is expected here, not a " +
           strata::tools::describeTensorType(tensor.shape,
                                             tensor.element_type) +
           " tensor";
  }
  switch (value.type) {
    case STRATA_VM_VALUE_I32:
      status = strata_runtime_call_push_i32(run.call, value.value.i32);
      break;
    case STRATA_VM_VALUE_I64:
      status = strata_runtime_call_push_i64(run.call, value.value.i64);
      break;
    case STRATA_VM_VALUE_F32:
      status = strata_runtime_call_push_f32(run.call, value.value.f32);
      break;
    case STRATA_VM_VALUE_F64:
      status = strata_runtime_call_push_f64(run.call, value.value.f64);
      break;
    default: return where + ": an unsupported scalar";
  }
  return status ? where + ": " + consumeLine(status) : std::string();
}

// The value at quantile q of sorted times (nearest rank).
double quantile(const std::vector<double>& sorted, double q) {
  size_t rank = static_cast<size_t>(std::ceil(q * sorted.size()));
  rank = std::max<size_t>(rank, 1);
  return sorted[std::min(rank, sorted.size()) - 1];
}

int benchmark(const Options& options) {
  Run run;
  std::string error = strata::tools::setUpRun(options, &run.setup);
  if (!error.empty()) {
    return fail(error);
  }
  strata_status_t status = strata_runtime_session_create(
      run.setup.instance, nullptr, run.setup.modules.data(),
      run.setup.modules.size(), run.setup.allocator, &run.session);
  if (!status) {
    status = strata_runtime_call_create(run.session, options.function.c_str(),
                                        run.setup.allocator, &run.call);
  }
  if (status) {
    return fail(consumeLine(status));
  }
  const char* name = strata_runtime_call_function_name(run.call);
  size_t expected = strata_runtime_call_argument_count(run.call);
  // A list argument takes "list:N" and N more flags: the flags are counted
  // as the arguments are read.
  size_t next = 0;
  for (size_t i = 0; i < expected; ++i) {
    if (next >= options.inputs.size()) {
      break;
    }
    std::string error = pushInput(run, options, i, &next);
    if (!error.empty()) {
      return fail(error);
    }
  }
  if (next != options.inputs.size() ||
      strata_vm_list_size(strata_runtime_call_inputs(run.call)) != expected) {
    return fail(std::string(name) + " takes " + std::to_string(expected) +
                " arguments, got " + std::to_string(options.inputs.size()) +
                " --input flags");
  }

  // Each call gets its own deadline, set just before it starts.
  auto setDeadline = [&] {
    if (options.timeout_ms) {
      strata_runtime_call_set_deadline(
          run.call, strata_hal_deadline_after_ns(
                        static_cast<int64_t>(options.timeout_ms) * 1000000));
    }
  };
  for (uint32_t i = 0; i < options.warmup; ++i) {
    setDeadline();
    status = strata_runtime_call_invoke(run.call);
    if (status) {
      return fail(std::string(name) + " failed: " + consumeLine(status));
    }
  }
  std::vector<double> times_ms;
  times_ms.reserve(options.repetitions);
  for (uint32_t i = 0; i < options.repetitions; ++i) {
    setDeadline();
    auto start = std::chrono::steady_clock::now();
    status = strata_runtime_call_invoke(run.call);
    auto end = std::chrono::steady_clock::now();
    if (status) {
      return fail(std::string(name) + " failed: " + consumeLine(status));
    }
    times_ms.push_back(
        std::chrono::duration<double, std::milli>(end - start).count());
  }

  std::vector<double> sorted = times_ms;
  std::sort(sorted.begin(), sorted.end());
  double mean = 0;
  for (double t : times_ms) {
    mean += t / times_ms.size();
  }
  double median = quantile(sorted, 0.5);
  double p90 = quantile(sorted, 0.9);
  double p99 = quantile(sorted, 0.99);
  if (options.json) {
    strata::tools::JsonWriter json;
    json.beginObject();
    json.key("function").value(name);
    json.key("device").value(options.device);
    json.key("task_workers").value(options.task_workers);
    json.key("warmup").value(options.warmup);
    json.key("repetitions").value(options.repetitions);
    json.key("min_ms").value(sorted.front());
    json.key("median_ms").value(median);
    json.key("p90_ms").value(p90);
    json.key("p99_ms").value(p99);
    json.key("mean_ms").value(mean);
    json.key("times_ms").beginArray();
    for (double t : times_ms) {
      json.value(t);
    }
    json.endArray();
    json.endObject();
    std::printf("%s\n", json.take().c_str());
  } else {
    std::printf("%s on %s: %u calls after %u warm-up\n", name,
                options.device.c_str(), options.repetitions, options.warmup);
    std::printf("  min %.4f ms  median %.4f ms  p90 %.4f ms  p99 %.4f ms  "
                "mean %.4f ms\n",
                sorted.front(), median, p90, p99, mean);
  }
  return std::fflush(stdout) == 0 ? 0 : fail("cannot write the results");
}

}  // namespace

int main(int argc, char** argv) {
  Options options = parseArgs(argc, argv);
  // With --trace, the instance (and its workers) is gone when benchmark
  // returns.
  return strata::tools::runWithTrace(options.trace, "strata-benchmark",
                                     [&] { return benchmark(options); });
}
