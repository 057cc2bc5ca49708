// strata-run - loads bytecode modules into one context and invokes a
// function with inputs given on the command line, printing its results.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli.h"
#include "strata/vm/vm.h"

namespace {

constexpr const char kUsage[] =
    "usage: strata-run --module=FILE [--module=FILE ...] [--function=NAME]\n"
    "                  [--input=VALUE ...]\n"
    "\n"
    "Loads the modules into one context, in order (each may import from the\n"
    "ones before it; the last is the main module), invokes one function and\n"
    "prints its results, one per line (\"i32=5\", \"f64=2.5\").\n"
    "\n"
    "options:\n"
    "  --module=FILE    a .vmfb module; repeatable\n"
    "  --function=NAME  the function to invoke: \"fn\" exported by the last\n"
    "                   module, or \"module.fn\" (default: main)\n"
    "  --input=VALUE    one argument, in IREE's grammar; repeatable.\n"
    "                   Scalars: i32=5  i64=-3  f32=2.5  f64=1e-3.\n"
    "                   Tensors (2x3xf32=...) and @file.npy inputs come with\n"
    "                   the HAL module and are rejected for now.\n"
    "  --help           print this help and exit\n"
    "\n"
    "Exit status: 0 on success, 1 when loading, linking or the invocation\n"
    "fails (the error and its VM backtrace go to stderr), 2 on a bad\n"
    "command line.\n";

struct Options {
  std::vector<std::string> modules;
  std::string function = "main";
  std::vector<std::string> inputs;
};

[[noreturn]] void usageError(const std::string& message) {
  std::fprintf(stderr, "strata-run: %s\n%s", message.c_str(), kUsage);
  std::exit(2);
}

bool takeValue(const std::string& arg, const char* flag, std::string* out) {
  size_t n = std::strlen(flag);
  if (arg.compare(0, n, flag) != 0 || arg.size() <= n || arg[n] != '=') {
    return false;
  }
  *out = arg.substr(n + 1);
  return true;
}

Options parseArgs(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (takeValue(arg, "--module", &value)) {
      if (value.empty()) {
        usageError("--module needs a file");
      }
      options.modules.push_back(value);
    } else if (takeValue(arg, "--function", &value)) {
      if (value.empty()) {
        usageError("--function needs a name");
      }
      options.function = value;
    } else if (takeValue(arg, "--input", &value)) {
      options.inputs.push_back(value);
    } else if (arg.size() > 1 && arg[0] == '-') {
      usageError("unknown flag '" + arg + "'");
    } else {
      usageError("unexpected argument '" + arg +
                 "'; modules are given with --module=FILE");
    }
  }
  if (options.modules.empty()) {
    usageError("no module given; use --module=FILE");
  }
  return options;
}

// Owns everything the run creates, released in reverse order on exit.
struct Session {
  strata_allocator_t allocator = strata_allocator_system();
  strata_vm_instance_t* instance = nullptr;
  std::vector<strata_vm_module_t*> modules;
  strata_vm_context_t* context = nullptr;
  strata_vm_list_t* inputs = nullptr;
  strata_vm_list_t* outputs = nullptr;

  ~Session() {
    if (outputs) strata_vm_list_release(outputs);
    if (inputs) strata_vm_list_release(inputs);
    if (context) strata_vm_context_release(context);
    for (strata_vm_module_t* module : modules) {
      strata_vm_module_release(module);
    }
    if (instance) strata_vm_instance_release(instance);
  }
};

// Prints "strata-run: message" to stderr, each line made safe for a
// terminal (module names may hold any bytes), and returns exit code 1.
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
std::string consumeLine(strata_status_t status) {
  std::string line = strata::tools::statusToLine(status);
  strata_status_free(status);
  return line;
}

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

int run(const Options& options) {
  Session s;
  strata_status_t status = strata_vm_instance_create(s.allocator, &s.instance);
  if (status) {
    return fail(consumeLine(status));
  }

  for (const std::string& path : options.modules) {
    std::vector<uint8_t> bytes;
    std::string error;
    if (!strata::tools::readFile(path, &bytes, &error)) {
      return fail(path + ": cannot read: " + error);
    }
    strata_vm_module_t* module = nullptr;
    status = strata_vm_bytecode_module_load(s.instance, bytes.data(),
                                            bytes.size(), nullptr, nullptr,
                                            s.allocator, &module);
    if (status) {
      return fail(path + ": " + consumeLine(status));
    }
    s.modules.push_back(module);
  }

  status = strata_vm_context_create(s.instance, s.modules.data(),
                                    s.modules.size(), nullptr, s.allocator,
                                    &s.context);
  if (status) {
    std::string text = strata::tools::statusToString(status);
    strata_status_free(status);
    return fail("creating the context: " + text);
  }

  // "fn" names an export of the main (last) module; "module.fn" any module.
  const strata_vm_module_t* main_module = s.modules.back();
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
  if (options.inputs.size() != args.size()) {
    return fail(expects + ", got " + std::to_string(options.inputs.size()) +
                (options.inputs.size() == 1 ? " input" : " inputs"));
  }

  status = strata_vm_list_create(args.size(), s.allocator, &s.inputs);
  if (!status) {
    status = strata_vm_list_create(4, s.allocator, &s.outputs);
  }
  if (status) {
    return fail(consumeLine(status));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& text = options.inputs[i];
    std::string where = expects + "; input " + std::to_string(i + 1) + " '" +
                        text + "'";
    if (args[i] == 'r') {
      return fail(where + ": argument " + std::to_string(i + 1) +
                  " is a ref; ref inputs (buffers, tensors) come with the "
                  "HAL module");
    }
    strata_vm_variant_t value;
    std::string error;
    if (!strata::tools::parseScalarInput(text, &value, &error)) {
      return fail(where + " is malformed: " + error);
    }
    char have = strata_vm_value_type_cconv_char(value.type);
    if (have != args[i]) {
      return fail(where + " is " + strata::tools::cconvTypeName(have) +
                  ", expected " + strata::tools::cconvTypeName(args[i]));
    }
    status = strata_vm_list_push(s.inputs, value);
    if (status) {
      return fail(consumeLine(status));
    }
  }

  status = strata_vm_invoke(s.context, function, s.inputs, s.outputs);
  if (status) {
    std::string text = strata::tools::statusToString(status);
    strata_status_free(status);
    return fail(full_name + " failed: " + text);
  }

  size_t count = strata_vm_list_size(s.outputs);
  for (size_t i = 0; i < count; ++i) {
    strata_vm_variant_t value;
    status = strata_vm_list_get(s.outputs, i, &value);
    if (status) {
      return fail(consumeLine(status));
    }
    std::string line = strata::tools::formatVariant(value);
    std::printf("%s\n", line.c_str());
  }
  if (std::fflush(stdout) != 0) {
    return fail("cannot write the results");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run(parseArgs(argc, argv)); }
