// strata-run - loads bytecode modules into one session of the embedding API
// (strata/runtime.h: the instance's device and hal module, then the check
// module and the given modules), invokes a function with inputs in IREE's
// grammar (scalars, tensors, .npy files), and prints, saves or checks its
// results.
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "calling_convention.h"
#include "check_module.h"
#include "cli.h"
#include "kernel_variants.h"
#include "npy.h"
#include "npz.h"
#include "run_setup.h"
#include "strata/base/trace.h"
#include "strata/hal/buffer.h"
#include "strata/hal/device.h"
#include "strata/hal/semaphore.h"
#include "strata/runtime.h"
#include "strata/vm/vm.h"
#include "tensor_io.h"
#include "tensor_type_match.h"
#include "value_args.h"

namespace {

using strata::tools::parseValueArgument;
using strata::tools::takeFlagValue;

using strata::tools::convertBFloat;
using strata::tools::describeFlag;
using strata::tools::describeRecorded;
using strata::tools::endsWith;
using strata::tools::HostTensor;
using strata::tools::isTyped;

constexpr const char kUsage[] =
    "usage: strata-run --module=FILE [--module=FILE ...] [--function=NAME]\n"
    "                  [--device=local-sync|local-task] [--task_workers=N]\n"
    "                  [--input=VALUE ...] [--output=TARGET ...]\n"
    "                  [--expected_output=VALUE ...] [--trace=FILE.json]\n"
    "                  [--require-signature=PUBKEY_FILE] [--timeout_ms=N]\n"
    "                  [--no-native-kernels] [--verbose]\n"
    "\n"
    "Creates a device, the hal module and the check module (the check.*\n"
    "assertions of test programs), loads the modules into one context after\n"
    "them, in order (each may import from the ones before it; the last is\n"
    "the main module), invokes one function and prints its results, one\n"
    "per line (\"i32=5\", \"2x3xf32=[1 2 3][4 5 6]\").\n"
    "\n"
    "options:\n"
    "  --module=FILE      a .vmfb module; repeatable\n"
    "  --function=NAME    the function to invoke: \"fn\" exported by the last\n"
    "                     module, or \"module.fn\" (default: main); for an\n"
    "                     async-external \"fn$async\" strata-run passes the\n"
    "                     wait and signal fences and waits for the results\n"
    "  --device=NAME      local-task (default; a pool of worker threads) or\n"
    "                     local-sync (runs dispatches inline)\n"
    "  --task_workers=N   local-task worker threads (default 0: one per "
    "core)\n"
    "  --input=VALUE      one argument, in IREE's grammar; repeatable:\n"
    "                       5  2.5   an untyped value takes the argument's\n"
    "                         type from the signature (i32, f32, 4xf32...)\n"
    "                       i32=5  i64=-3  f32=2.5  f64=1e-3   scalars (a\n"
    "                         0-d tensor where the argument is a ref)\n"
    "                       2x3xf32=1 2 3 4 5 6   a tensor (hal.buffer_view);\n"
    "                         values split on spaces, commas or [ ]; one\n"
    "                         value fills every element\n"
    "                       @FILE.npy   a tensor from a NumPy .npy file\n"
    "                     a list argument (recorded as list<...>: an ONNX\n"
    "                     sequence) takes 'list:N' and then one --input per\n"
    "                     element, or @FILE.npz (numpy.savez's arrays in\n"
    "                     order); an optional<...> takes its value or 'none'\n"
    "                     element types: i1 i8 i16 i32 i64 si8..si64\n"
    "                     ui8..ui64 f16 f32 f64\n"
    "                     A tensor must match the type the compiler recorded\n"
    "                     for that argument (shown by strata-dump).\n"
    "  --output=TARGET    what to do with the next result, in order;\n"
    "                     repeatable: '-' prints it, '@FILE.npy' writes it,\n"
    "                     '' drops it. Results without a flag print. A list\n"
    "                     result prints as list<N>[...] (an optional as its\n"
    "                     value or none) and is written to @FILE.npz\n"
    "  --expected_output=VALUE\n"
    "                     the next result's expected value (same grammar as\n"
    "                     --input); repeatable, one per result. Prints\n"
    "                     [SUCCESS] or the first mismatch of each result.\n"
    "                     Results are then printed only when --output asks.\n"
    "  --expected_f16_threshold=X  |actual - expected| allowed for f16\n"
    "                     (default 0.001); ints and i1 compare exactly\n"
    "  --expected_f32_threshold=X  the same for f32 (default 0.0001)\n"
    "  --expected_f64_threshold=X  the same for f64 (default 0.0001)\n"
    "  --print_max_element_count=N  elements printed per tensor before\n"
    "                     \"...\" (default 1024)\n"
    "  --trace=FILE.json  write a timeline of the run as Chrome trace events\n"
    "                     (open it in Perfetto): the invocation, each queue\n"
    "                     submission and fence wait, and each dispatch's\n"
    "                     share on every worker that ran it\n"
    "  --timeout_ms=N     the call's deadline: it fails with "
    "DEADLINE_EXCEEDED\n"
    "                     N ms after it starts, however it loops or waits\n"
    "                     (a kernel that never returns loses the device)\n"
    "  --require-signature=PUBKEY_FILE\n"
    "                     refuse any --module not signed by this Ed25519\n"
    "                     public key (strata-keygen; docs/security.md),\n"
    "                     before anything in it is loaded\n"
    "  --no-native-kernels\n"
    "                     refuse every native kernel library: only modules\n"
    "                     compiled with --target=portable run (their kernel\n"
    "                     bytecode is verified at load and interpreted)\n"
    "  --verbose          say on stderr which kernel library of each module\n"
    "                     this host loads (a multi-ISA module has one per\n"
    "                     CPU variant; STRATA_CPU_FEATURES lowers the host)\n"
    "  --help             print this help and exit\n"
    "\n"
    "Exit status: 0 on success, 1 when loading, linking, an input or the\n"
    "invocation fails (the error and its VM backtrace go to stderr) or a\n"
    "result does not match its --expected_output, 2 on a bad command line.\n";

// The shared flags (cli.h), then strata-run's own.
struct Options : strata::tools::RunFlags {
  std::vector<std::string> outputs;
  std::vector<std::string> expected_outputs;
  strata::tools::CompareThresholds thresholds;
  size_t print_max_element_count = 1024;
  bool verbose = false;  // --verbose: say which kernels load
};

[[noreturn]] void usageError(const std::string& message) {
  std::fprintf(stderr, "strata-run: %s\n%s", message.c_str(), kUsage);
  std::exit(2);
}

double parseThreshold(const std::string& flag, const std::string& value) {
  char* end = nullptr;
  double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end || !std::isfinite(v) || v < 0) {
    usageError(flag + " takes a non-negative number, not '" + value + "'");
  }
  return v;
}

Options parseArgs(int argc, char** argv) {
  Options options;
  strata::tools::parseRunArgs(
      argc, argv, "strata-run", kUsage, &options,
      [&](const std::string& arg) -> std::string {
        std::string value;
        std::string error;
        if (takeFlagValue(arg, "--output", &value)) {
          if (!value.empty() && value != "-" &&
              (value[0] != '@' || value.size() == 1)) {
            return "--output takes '-' (print), '@FILE.npy' or "
                   "'@FILE.npz' (write) or '' (drop), not '" +
                   strata::tools::sanitizeLine(value) + "'";
          }
          options.outputs.push_back(value);
        } else if (takeFlagValue(arg, "--expected_output", &value)) {
          options.expected_outputs.push_back(value);
        } else if (takeFlagValue(arg, "--expected_f16_threshold", &value)) {
          options.thresholds.f16 =
              parseThreshold("--expected_f16_threshold", value);
        } else if (takeFlagValue(arg, "--expected_f32_threshold", &value)) {
          options.thresholds.f32 =
              parseThreshold("--expected_f32_threshold", value);
        } else if (takeFlagValue(arg, "--expected_f64_threshold", &value)) {
          options.thresholds.f64 =
              parseThreshold("--expected_f64_threshold", value);
        } else if (takeFlagValue(arg, "--print_max_element_count", &value)) {
          uint64_t count = 0;
          if (!strata::tools::parseFlagCount("--print_max_element_count", value,
                                             0, UINT32_MAX, &count, &error)) {
            return error;
          }
          options.print_max_element_count = static_cast<size_t>(count);
        } else if (arg == "--verbose") {
          options.verbose = true;
        } else if (arg.size() > 1 && arg[0] == '-') {
          return "unknown flag '" + strata::tools::sanitizeLine(arg) + "'";
        } else {
          return "unexpected argument '" + strata::tools::sanitizeLine(arg) +
                 "'; modules are given with --module=FILE";
        }
        return "";
      });
  return options;
}

// Owns everything the run creates, released in reverse order on exit.
struct Session {
  strata::tools::RunSetup setup;  // the instance and the modules
  strata_runtime_session_t* session = nullptr;
  strata_hal_device_t* device = nullptr;   // the instance's, borrowed
  strata_vm_context_t* context = nullptr;  // the session's, borrowed
  strata_vm_list_t* inputs = nullptr;
  strata_vm_list_t* outputs = nullptr;

  ~Session() {
    if (outputs) {
      strata_vm_list_release(outputs);
    }
    if (inputs) {
      strata_vm_list_release(inputs);
    }
    strata_runtime_session_release(session);
  }
};

// Prints "strata-run: message" to stderr, each line made safe for a
// terminal (module names and inputs may hold any bytes), and returns exit
// code 1.
int fail(const std::string& message) {
  std::string out;
  size_t start = 0;
  for (;;) {
    size_t end = message.find('\n', start);
    out += strata::tools::sanitizeLine(
        std::string_view(message).substr(start, end - start));
    if (end == std::string::npos) {
      break;
    }
    out += '\n';
    start = end + 1;
  }
  std::fprintf(stderr, "strata-run: %s\n", out.c_str());
  return 1;
}

// One-line status text; the status is freed.
using strata::tools::consumeStatusLine;

// "sample.add expects (i32, i32) -> i32 [0ii_i]"
std::string describeFunction(const std::string& full_name,
                             const char* calling_convention) {
  std::string cc = calling_convention ? calling_convention : "?";
  return full_name + " expects " + strata::tools::describeSignature(cc) +
         " [" + cc + "]";
}

// "add (i32, i32) -> i32 [0ii_i], neg (i64) -> i64 [0I_I]"
std::string listExports(const strata_vm_module_t* module) {
  std::string out;
  size_t count = strata_vm_module_export_count(module);
  for (size_t i = 0; i < count; ++i) {
    strata_vm_export_info_t info;
    strata_status_t status = strata_vm_module_export_info(module, i, &info);
    if (status) {
      strata_status_free(status);
      continue;
    }
    if (!out.empty()) {
      out += ", ";
    }
    out += std::string(info.name) + " " +
           strata::tools::describeSignature(info.calling_convention) + " [" +
           info.calling_convention + "]";
  }
  return out.empty() ? "(none)" : out;
}

// A result as a host tensor: primitives become 0-d tensors, buffer views are
// copied out. False (with *what set to its printed form) for other refs.
bool resultTensor(const strata_vm_variant_t& value, HostTensor* out,
                  std::string* what) {
  if (strata::tools::tensorFromScalar(value, out)) {
    return true;
  }
  strata_hal_buffer_view_t* view =
      value.type == STRATA_VM_VALUE_REF
          ? strata_hal_buffer_view_from_ref(value.value.ref)
          : nullptr;
  if (!view) {
    *what = strata::tools::formatVariant(value);
    return false;
  }
  std::string error;
  if (!strata::tools::tensorFromBufferView(view, out, &error)) {
    *what = "an unreadable buffer view (" + error + ")";
    return false;
  }
  return true;
}

// The tensors of a list result (recorded as `want`) for an .npz file: a
// list's elements, an optional's value (none: no array), an optional list's
// elements. False with *error for nested lists and unreadable views.
bool listTensors(strata_vm_list_t* list, const std::string& want,
                 std::vector<HostTensor>* out, std::string* error) {
  using strata::tools::BoundaryType;
  BoundaryType type = strata::tools::boundaryType(want);
  BoundaryType inner = strata::tools::boundaryType(type.element);
  size_t size = strata_vm_list_size(list);
  if (type.kind == BoundaryType::kOptional &&
      inner.kind == BoundaryType::kList && size == 1) {
    strata_vm_variant_t value;
    strata_status_t status = strata_vm_list_get(list, 0, &value);
    strata_vm_list_t* nested = status || value.type != STRATA_VM_VALUE_REF
                                   ? nullptr
                                   : strata_vm_list_from_ref(value.value.ref);
    strata_status_free(status);
    if (!nested) {
      *error = "its value is not a list";
      return false;
    }
    return listTensors(nested, type.element, out, error);
  }
  for (size_t k = 0; k < size; ++k) {
    strata_vm_variant_t value;
    strata_status_t status = strata_vm_list_get(list, k, &value);
    if (status) {
      *error = consumeStatusLine(status);
      return false;
    }
    HostTensor tensor;
    std::string what;
    if (!resultTensor(value, &tensor, &what)) {
      *error = "element " + std::to_string(k) + " is " + what +
               ", which an .npz file cannot hold";
      return false;
    }
    // An unsigned element ("list<?xui8>") comes back unsigned.
    tensor.element_type = strata::tools::recordedElementType(
        tensor.element_type,
        strata::tools::recordedUnsignedElement(
            type.kind == BoundaryType::kTensor ? "" : type.element));
    if (tensor.element_type == STRATA_HAL_ELEMENT_TYPE_BFLOAT_16) {
      convertBFloat(&tensor, /*to_bfloat=*/false);
    }
    out->push_back(std::move(tensor));
  }
  return true;
}

// A list result as one line: "list<2>[3xf32=1 2 3, 2xi64=4 5]"; an optional
// (recorded "optional<E>") as its value or "none".
std::string formatList(strata_vm_list_t* list, const std::string& want,
                       size_t max_elements) {
  using strata::tools::BoundaryType;
  BoundaryType type = strata::tools::boundaryType(want);
  size_t size = strata_vm_list_size(list);
  bool optional = type.kind == BoundaryType::kOptional && size <= 1;
  if (optional && size == 0) {
    return "none";
  }
  std::string out = optional ? "" : "list<" + std::to_string(size) + ">[";
  for (size_t k = 0; k < size; ++k) {
    strata_vm_variant_t value;
    strata_status_t status = strata_vm_list_get(list, k, &value);
    if (status) {
      return out + consumeStatusLine(status) + "]";
    }
    if (k > 0) {
      out += ", ";
    }
    strata_vm_list_t* nested = value.type == STRATA_VM_VALUE_REF
                                   ? strata_vm_list_from_ref(value.value.ref)
                                   : nullptr;
    HostTensor tensor;
    std::string what;
    if (nested) {
      out += formatList(nested,
                        type.kind == BoundaryType::kTensor ? "" : type.element,
                        max_elements);
    } else if (resultTensor(value, &tensor, &what)) {
      tensor.element_type = strata::tools::recordedElementType(
          tensor.element_type,
          strata::tools::recordedUnsignedElement(
              type.kind == BoundaryType::kTensor ? "" : type.element));
      out += strata::tools::formatTensor(tensor, max_elements);
    } else {
      out += what;
    }
  }
  return optional ? out : out + "]";
}

bool writeWholeFile(const std::string& path, const std::vector<uint8_t>& data,
                    std::string* error) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) {
    *error = std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(data.data(), 1, data.size(), file) == data.size();
  int saved = errno;
  ok = std::fclose(file) == 0 && ok;
  if (!ok) {
    *error = std::strerror(saved ? saved : EIO);
  }
  return ok;
}

// --verbose: the kernel libraries of the module at path and the one this
// host loads (hal.executable.create_first's choice).
void reportKernelVariants(const std::string& path) {
  strata::tools::ModuleFile file;
  std::string error;
  if (!strata::tools::readModuleFile(path, &file, &error)) {
    return;  // loading it succeeded: this only races with a change
  }
  strata::tools::KernelVariants kernels =
      strata::tools::probeKernelVariants(file.data, file.size);
  for (size_t i = 0; i < kernels.libraries.size(); ++i) {
    const strata::tools::KernelVariant& k = kernels.libraries[i];
    bool picked = static_cast<int>(i) == kernels.picked;
    std::fprintf(stderr,
                 "strata-run: %s: kernel library %zu of %zu (%" PRIu64
                 " bytes) %s %s%s\n",
                 path.c_str(), i + 1, kernels.libraries.size(), k.size,
                 k.runs ? "needs" : "cannot run:",
                 k.runs ? k.features.c_str() : k.error.c_str(),
                 picked   ? ": loaded"
                 : k.runs ? ": not picked"
                          : "");
  }
}

int run(const Options& options) {
  Session s;
  std::string error = strata::tools::setUpRun(options, &s.setup);
  if (!error.empty()) {
    return fail(error);
  }
  if (options.verbose) {
    for (const std::string& path : options.modules) {
      reportKernelVariants(path);
    }
  }
  s.device = strata_runtime_instance_device(s.setup.instance);

  strata_status_t status = strata_runtime_session_create(
      s.setup.instance, nullptr, s.setup.modules.data(), s.setup.modules.size(),
      s.setup.allocator, &s.session);
  if (status) {
    std::string text = strata::tools::statusToString(status);
    strata_status_free(status);
    return fail("creating the context: " + text);
  }
  s.context = strata_runtime_session_context(s.session);

  // "fn" names an export of the main (last) module; "module.fn" any module.
  const strata_vm_module_t* main_module = s.setup.modules.back();
  std::string main_name = strata_vm_module_name(main_module);
  std::string full_name = main_name + "." + options.function;
  strata_vm_function_t function;
  status = strata_vm_context_lookup(s.context, full_name.c_str(), &function);
  if (status && options.function.find('.') != std::string::npos) {
    strata_status_t second =
        strata_vm_context_lookup(s.context, options.function.c_str(),
                                 &function);
    if (!second) {
      strata_status_free(status);
      status = nullptr;
      full_name = options.function;
    } else {
      strata_status_free(second);
    }
  }
  if (status) {
    strata_status_free(status);
    return fail("no function '" + options.function + "' in module '" +
                main_name + "'; it exports: " + listExports(main_module));
  }

  const char* cc = strata_vm_function_calling_convention(s.context, function);
  std::string expects = describeFunction(full_name, cc);
  std::string args;
  if (!cc || !strata::tools::signatureArgs(cc, &args)) {
    return fail(expects + ", which strata-run cannot call");
  }
  // An async-external function (strata-compile --async-exports) takes a
  // wait fence and a signal fence after its inputs: strata-run passes no
  // wait fence and a new signal fence, and waits for it before reading the
  // results.
  bool async_external = strata::cconv::isAsyncName(full_name) &&
                        args.size() >= 2 &&
                        args.substr(args.size() - 2) == "rr";
  if (async_external) {
    args.resize(args.size() - 2);
  }
  status = strata_vm_list_create(args.size(), s.setup.allocator, &s.inputs);
  if (!status) {
    status = strata_vm_list_create(4, s.setup.allocator, &s.outputs);
  }
  if (status) {
    return fail(consumeStatusLine(status));
  }
  // Each argument takes the next --input; a list argument (recorded as
  // list<...> or optional<...>) takes "list:N" and the N values after it,
  // an .npz file, "none", or an optional's value.
  size_t next = 0;
  auto count_error = [&]() {
    return fail(expects + ", got " + std::to_string(options.inputs.size()) +
                (options.inputs.size() == 1 ? " input" : " inputs") +
                (async_external ? " (besides its wait and signal fences, "
                                  "which strata-run passes)"
                                : "") +
                (next > 0 && next < options.inputs.size()
                     ? "; the inputs after --input #" + std::to_string(next) +
                           " are left over"
                     : ""));
  };
  for (size_t i = 0; i < args.size(); ++i) {
    if (next >= options.inputs.size()) {
      return count_error();
    }
    if (args[i] == 'r') {
      strata::tools::InputReader reader{options.inputs, s.setup.allocator,
                                        &next};
      strata_vm_ref_object_t* ref = nullptr;
      std::string error = reader.ref(
          strata::tools::exportAttr(main_module, options.function,
                                    "arg" + std::to_string(i)),
          "argument " + std::to_string(i) + " of " + full_name, &ref);
      if (!error.empty()) {
        return fail(error);
      }
      status = strata_vm_list_push(s.inputs, strata_vm_variant_ref(ref));
      strata_vm_ref_release(ref);  // the list holds it now
      if (status) {
        return fail(consumeStatusLine(status));
      }
      continue;
    }
    std::string where = describeFlag("--input", next, options.inputs[next]);
    std::string text = options.inputs[next++];
    if (!isTyped(text)) {
      text = std::string(strata::tools::cconvTypeName(args[i])) + "=" + text;
    }
    HostTensor tensor;
    std::string error;
    if (!parseValueArgument(text, &tensor, &error)) {
      return fail(where + ": " + error);
    }
    strata_vm_variant_t value;
    std::string type = strata::tools::describeTensorType(tensor.shape,
                                                         tensor.element_type);
    if (!strata::tools::scalarFromTensor(tensor, &value) ||
        strata_vm_value_type_cconv_char(value.type) != args[i]) {
      // 0-based, as every "argument N of F" message (--input #N counts
      // flags from 1).
      return fail(where + ": " + expects + "; argument " + std::to_string(i) +
                  " is " + strata::tools::cconvTypeName(args[i]) + ", not " +
                  (tensor.shape.empty() ? type : "a " + type + " tensor"));
    }
    status = strata_vm_list_push(s.inputs, value);
    if (status) {
      return fail(consumeStatusLine(status));
    }
  }
  if (next != options.inputs.size()) {
    return count_error();
  }
  // Expected outputs are parsed before the call, so a typo fails fast.
  std::vector<HostTensor> expected(options.expected_outputs.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    std::string error;
    if (!parseValueArgument(options.expected_outputs[i], &expected[i],
                            &error)) {
      return fail(
          describeFlag("--expected_output", i, options.expected_outputs[i]) +
          ": " + error);
    }
  }

  strata_hal_fence_t* signal = nullptr;
  if (async_external) {
    status = strata_hal_fence_create_pending(s.setup.allocator, &signal);
    if (!status) {
      status = strata_vm_list_push(s.inputs, strata_vm_variant_ref(nullptr));
    }
    if (!status) {
      status = strata_vm_list_push(
          s.inputs, strata_vm_variant_ref(strata_hal_fence_as_ref(signal)));
    }
    if (status) {
      strata_hal_fence_release(signal);
      return fail(consumeStatusLine(status));
    }
  }
  int64_t deadline =
      options.timeout_ms
          ? strata_hal_deadline_after_ns(
                static_cast<int64_t>(options.timeout_ms) * 1000000)
          : INT64_MAX;
  status =
      strata_vm_invoke_until(s.context, function, s.inputs, s.outputs, deadline);
  if (!status && signal) {
    status = strata_hal_fence_wait(signal, deadline);
    if (strata_status_code(status) == STRATA_STATUS_DEADLINE_EXCEEDED) {
      // The device work may never end: the device is lost (runtime.h).
      strata_status_free(status);
      strata_hal_device_lose(s.device, "the call's deadline passed while its "
                                       "device work ran");
      status = strata_make_status(
          STRATA_STATUS_DEADLINE_EXCEEDED,
          "the call's deadline passed while its device work ran; device "
          "'%s' is now lost",
          strata_hal_device_name(s.device));
    }
  }
  if (signal) {
    strata_hal_fence_release(signal);
  }
  if (status) {
    std::string text = strata::tools::statusToString(status);
    strata_status_free(status);
    return fail(full_name + " failed: " + text);
  }

  size_t count = strata_vm_list_size(s.outputs);
  auto plural = [](size_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
  };
  if (options.outputs.size() > count) {
    return fail(plural(options.outputs.size(), "--output flag") + " but " +
                full_name + " returned " + plural(count, "result"));
  }
  if (!expected.empty() && expected.size() != count) {
    return fail(plural(expected.size(), "--expected_output flag") + " but " +
                full_name + " returned " + plural(count, "result"));
  }

  // Results: print, write or drop, in order.
  for (size_t i = 0; i < count; ++i) {
    strata_vm_variant_t value;
    status = strata_vm_list_get(s.outputs, i, &value);
    if (status) {
      return fail(consumeStatusLine(status));
    }
    std::string target = i < options.outputs.size() ? options.outputs[i]
                         : expected.empty()         ? "-"
                                                    : "";
    if (target.empty()) {
      continue;
    }
    std::string want = strata::tools::exportAttr(main_module, options.function,
                                                 "result" + std::to_string(i));
    strata_vm_list_t* list = value.type == STRATA_VM_VALUE_REF
                                 ? strata_vm_list_from_ref(value.value.ref)
                                 : nullptr;
    if (list) {
      // A sequence or an optional: printed on one line, or its tensors
      // written to an .npz (an optional's value also to an .npy).
      if (target == "-") {
        std::printf(
            "%s\n",
            formatList(list, want, options.print_max_element_count).c_str());
        continue;
      }
      std::string path = target.substr(1);
      std::vector<HostTensor> tensors;
      std::string error;
      if (!listTensors(list, want, &tensors, &error)) {
        return fail("result " + std::to_string(i) + ": " + error);
      }
      bool optional = strata::tools::boundaryType(want).kind ==
                      strata::tools::BoundaryType::kOptional;
      std::vector<uint8_t> file;
      if (endsWith(path, ".npz")) {
        if (!strata::tools::writeNpz(tensors, &file, &error) ||
            !writeWholeFile(path, file, &error)) {
          return fail("writing result " + std::to_string(i) + " to " + path +
                      ": " + error);
        }
        continue;
      }
      if (!optional || strata_vm_list_size(list) != 1 || tensors.size() != 1) {
        return fail("result " + std::to_string(i) + " is " +
                    (optional && strata_vm_list_size(list) == 0
                         ? std::string("none (an empty optional)")
                         : "a list of " +
                               std::to_string(strata_vm_list_size(list)) +
                               " values") +
                    ", which cannot be written to " + path +
                    "; write it to a .npz file");
      }
      if (!strata::tools::writeNpy(tensors[0], &file, &error) ||
          !writeWholeFile(path, file, &error)) {
        return fail("writing result " + std::to_string(i) + " to " + path +
                    ": " + error);
      }
      continue;
    }
    HostTensor tensor;
    std::string what;
    bool is_tensor = resultTensor(value, &tensor, &what);
    if (is_tensor) {
      // An unsigned result the compiler recorded comes back unsigned.
      tensor.element_type = strata::tools::recordedElementType(
          tensor.element_type,
          strata::tools::exportAttr(
              main_module, options.function,
              "result" + std::to_string(i) + ".element_type"));
    }
    if (target == "-") {
      std::string line =
          value.type != STRATA_VM_VALUE_REF || !is_tensor
              ? strata::tools::formatVariant(value)
              : strata::tools::formatTensor(tensor,
                                            options.print_max_element_count);
      std::printf("%s\n", line.c_str());
      continue;
    }
    std::string path = target.substr(1);
    std::vector<uint8_t> file;
    std::string error;
    if (!is_tensor) {
      return fail("result " + std::to_string(i) + " is " + what +
                  ", which cannot be written to " + path);
    }
    if (endsWith(path, ".npz")) {
      return fail("result " + std::to_string(i) +
                  " is a tensor; .npz files "
                  "are for lists (sequences and optionals): write it to a "
                  ".npy file");
    }
    if (tensor.element_type == STRATA_HAL_ELEMENT_TYPE_BFLOAT_16) {
      convertBFloat(&tensor, /*to_bfloat=*/false);
    }
    if (!strata::tools::writeNpy(tensor, &file, &error) ||
        !writeWholeFile(path, file, &error)) {
      return fail("writing result " + std::to_string(i) + " to " + path +
                  ": " + error);
    }
  }

  // Expected outputs: the first mismatch of each result.
  size_t mismatches = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    strata_vm_variant_t value;
    status = strata_vm_list_get(s.outputs, i, &value);
    if (status) {
      return fail(consumeStatusLine(status));
    }
    HostTensor tensor;
    std::string what;
    std::string mismatch;
    bool is_tensor = resultTensor(value, &tensor, &what);
    if (is_tensor) {
      tensor.element_type = strata::tools::recordedElementType(
          tensor.element_type,
          strata::tools::exportAttr(
              main_module, options.function,
              "result" + std::to_string(i) + ".element_type"));
    }
    if (!is_tensor) {
      mismatch = "is " + what + ", which cannot be compared";
    } else if (strata::tools::compareTensors(expected[i], tensor,
                                             options.thresholds, &mismatch)) {
      continue;
    }
    ++mismatches;
    std::printf("[FAILED] result[%zu]: %s\n", i,
                strata::tools::sanitizeLine(mismatch).c_str());
  }
  if (!expected.empty() && mismatches == 0) {
    std::printf("[SUCCESS] all results match\n");
  }
  if (std::fflush(stdout) != 0) {
    return fail("cannot write the results");
  }
  if (mismatches) {
    return fail(plural(mismatches, "result") + " of " +
                std::to_string(count) + (mismatches == 1 ? " does" : " do") +
                " not match the expected output");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options = parseArgs(argc, argv);
  // With --trace, every device is gone when run returns.
  return strata::tools::runWithTrace(options.trace, "strata-run",
                                     [&] { return run(options); });
}
