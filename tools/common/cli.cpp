// cli.cpp - file reading, --input parsing and value printing for the tools.
#include "strata/base/trace.h"
#include "cli.h"

#include "calling_convention.h"
#include "utf8.h"

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata/vm/buffer.h"
#include "strata/vm/list.h"
#include "strata/vm/module.h"

namespace strata::tools {

namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) {
      ::close(fd);
    }
  }
};

// Appends up to `want` bytes from fd to *out; false with errno set on a read
// error. Stops early only at end of file.
bool appendFromFd(int fd, size_t want, std::vector<uint8_t>* out) {
  uint8_t chunk[1 << 16];
  while (want > 0) {
    size_t n = want < sizeof(chunk) ? want : sizeof(chunk);
    ssize_t got = ::read(fd, chunk, n);
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      return false;
    }
    if (got == 0) {
      break;
    }
    out->insert(out->end(), chunk, chunk + got);
    want -= static_cast<size_t>(got);
  }
  return true;
}

std::string sizeText(uint64_t bytes) {
  return std::to_string(bytes) + " bytes";
}

}  // namespace

bool readFile(const std::string& path, std::vector<uint8_t>* out,
              std::string* error, const ReadFileOptions& options) {
  out->clear();
  Fd file;
  do {
    file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (file.fd < 0 && errno == EINTR);
  if (file.fd < 0) {
    *error = std::strerror(errno);
    return false;
  }
  struct stat st;
  if (::fstat(file.fd, &st) != 0) {
    *error = std::strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = "is a directory";
    return false;
  }
  const bool regular = S_ISREG(st.st_mode);
  const uint64_t max_size =
      regular || options.max_stream_size > options.max_size
          ? options.max_size
          : options.max_stream_size;
  if (regular && static_cast<uint64_t>(st.st_size) > max_size) {
    *error = "the file has " + sizeText(static_cast<uint64_t>(st.st_size)) +
             ", over the limit of " + sizeText(max_size);
    return false;
  }
  // Allocation failure is an error, never an abort (tools are built with
  // exceptions; this is the one place a file's size picks an allocation).
  try {
    if (options.check_prefix && options.prefix_size > 0) {
      if (!appendFromFd(file.fd, options.prefix_size, out)) {
        *error = std::strerror(errno);
        return false;
      }
      std::string reason;
      if (!options.check_prefix(out->data(), out->size(), &reason)) {
        *error = reason;
        return false;
      }
    }
    if (regular) {
      out->reserve(static_cast<size_t>(st.st_size));
    }
    // Read at most one byte past the limit, to tell "over it" from "at it".
    for (;;) {
      size_t before = out->size();
      uint64_t room = max_size + 1 - before;
      size_t want = room < (1u << 20) ? static_cast<size_t>(room) : (1u << 20);
      if (!appendFromFd(file.fd, want, out)) {
        *error = std::strerror(errno);
        return false;
      }
      if (out->size() > max_size) {
        *error = std::string(regular ? "the file" : "this file, not a regular "
                                                    "file,") +
                 " holds more than the limit of " + sizeText(max_size);
        out->clear();
        return false;
      }
      if (out->size() - before < want) {
        break;
      }
    }
  } catch (const std::bad_alloc&) {
    out->clear();
    out->shrink_to_fit();
    *error = "out of memory reading " +
             (regular ? sizeText(static_cast<uint64_t>(st.st_size))
                      : std::string("it"));
    return false;
  }
  return true;
}

ModuleFile::~ModuleFile() {
  if (data) {
    strata_allocator_free(strata_allocator_system(), data);
  }
}

bool readModuleFile(const std::string& path, ModuleFile* out,
                    std::string* error) {
  strata_status_t status = strata_vm_module_file_read(
      path.c_str(), strata_allocator_system(), &out->data, &out->size);
  if (status) {
    *error = statusToLine(status);
    strata_status_free(status);
    return false;
  }
  return true;
}

namespace {

// The shortest %g text of `value` picks an exponent when the number has
// fewer significant digits than integer digits ("1e+01", "1.5e+03"); such a
// number is an integer, and below 1e16 its plain digits read better.
void preferPlainIntegers(char* buffer, size_t size, double value) {
  const char* e = std::strchr(buffer, 'e');
  if (e && std::atoi(e + 1) >= 0 && std::fabs(value) < 1e16) {
    std::snprintf(buffer, size, "%.0f", value);
  }
}

}  // namespace

std::string formatF32(float value) {
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value < 0 ? "-inf" : "inf";
  }
  char buffer[64];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision,
                  static_cast<double>(value));
    if (std::strtof(buffer, nullptr) == value) {
      break;
    }
  }
  preferPlainIntegers(buffer, sizeof(buffer), static_cast<double>(value));
  return buffer;
}

std::string formatF64(double value) {
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value < 0 ? "-inf" : "inf";
  }
  char buffer[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) {
      break;
    }
  }
  preferPlainIntegers(buffer, sizeof(buffer), value);
  return buffer;
}

namespace {

constexpr int kMaxListDepth = 4;
constexpr size_t kMaxListElements = 16;

std::string formatVariantAt(const strata_vm_variant_t& v, int depth) {
  char buffer[64];
  switch (v.type) {
    case STRATA_VM_VALUE_NONE:
      return "(empty)";
    case STRATA_VM_VALUE_I32:
      std::snprintf(buffer, sizeof(buffer), "i32=%" PRId32, v.value.i32);
      return buffer;
    case STRATA_VM_VALUE_I64:
      std::snprintf(buffer, sizeof(buffer), "i64=%" PRId64, v.value.i64);
      return buffer;
    case STRATA_VM_VALUE_F32:
      return "f32=" + formatF32(v.value.f32);
    case STRATA_VM_VALUE_F64:
      return "f64=" + formatF64(v.value.f64);
    case STRATA_VM_VALUE_MAX_ENUM:
      return "(invalid)";
    case STRATA_VM_VALUE_REF:
      break;
  }
  strata_vm_ref_object_t* ref = v.value.ref;
  if (!ref) {
    return "null";
  }
  if (strata_vm_buffer_t* buffer_ref = strata_vm_buffer_from_ref(ref)) {
    std::snprintf(buffer, sizeof(buffer), "vm.buffer<%zu bytes>",
                  strata_vm_buffer_length(buffer_ref));
    return buffer;
  }
  if (strata_vm_list_t* list = strata_vm_list_from_ref(ref)) {
    size_t size = strata_vm_list_size(list);
    std::snprintf(buffer, sizeof(buffer), "vm.list<%zu>", size);
    std::string out = buffer;
    if (depth >= kMaxListDepth) {
      return out + "[...]";
    }
    out += '[';
    for (size_t i = 0; i < size && i < kMaxListElements; ++i) {
      if (i) {
        out += ", ";
      }
      strata_vm_variant_t element;
      strata_status_t status = strata_vm_list_get(list, i, &element);
      if (status) {
        strata_status_free(status);
        out += "?";
        continue;
      }
      out += formatVariantAt(element, depth + 1);
    }
    if (size > kMaxListElements) {
      out += ", ...";
    }
    out += ']';
    return out;
  }
  return std::string(ref->type && ref->type->name ? ref->type->name : "ref") +
         "<object>";
}

}  // namespace

std::string formatVariant(const strata_vm_variant_t& value) {
  return formatVariantAt(value, 0);
}

const char* cconvTypeName(char c) {
  switch (c) {
    case 'i':
      return "i32";
    case 'I':
      return "i64";
    case 'f':
      return "f32";
    case 'F':
      return "f64";
    case 'r':
      return "ref";
    default:
      return "?";
  }
}

std::string describeSignature(std::string_view cc) {
  strata::cconv::Parsed parsed;
  strata::cconv::Error error;
  if (!strata::cconv::parse(cc, /*allow_variadic=*/true, &parsed, &error)) {
    return "[" + std::string(cc) + "]";
  }
  std::string args;
  std::string_view a = parsed.args;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!args.empty()) {
      args += ", ";
    }
    if (a[i] == 'C') {
      size_t close = a.find('D', i);
      std::string_view span = a.substr(i + 1, close - i - 1);
      if (span.size() == 1) {
        args += cconvTypeName(span[0]);
      } else {
        args += '(';
        for (size_t j = 0; j < span.size(); ++j) {
          args += j ? ", " : "";
          args += cconvTypeName(span[j]);
        }
        args += ')';
      }
      args += "...";
      i = close;
      continue;
    }
    args += cconvTypeName(a[i]);
  }
  std::string_view r = parsed.results;
  std::string results;
  for (size_t i = 0; i < r.size(); ++i) {
    results += i ? ", " : "";
    results += cconvTypeName(r[i]);
  }
  if (r.size() != 1) {
    results = "(" + results + ")";
  }
  return "(" + args + ") -> " + results;
}

bool signatureArgs(std::string_view cc, std::string* args) {
  strata::cconv::Parsed parsed;
  if (!strata::cconv::parseFixed(cc, &parsed)) {
    return false;
  }
  args->assign(parsed.args);
  return true;
}

std::string statusToString(strata_status_t status) {
  char* text = strata_status_to_string(status);
  if (!text) {
    return strata_status_code_name(strata_status_code(status));
  }
  std::string out = text;
  std::free(text);
  return out;
}


std::string sanitizeLine(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = (c < 0x20 || c == 0x7F) ? 0 : utf8SequenceLength(text, i);
    if (n == 0) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\x%02x", c);
      out += buffer;
      ++i;
      continue;
    }
    out.append(text.data() + i, n);
    i += n;
  }
  return out;
}

std::string statusToLine(strata_status_t status) {
  std::string out = strata_status_code_name(strata_status_code(status));
  const char* message = strata_status_message(status);
  if (*message) {
    out += ": ";
    out += message;
  }
  for (size_t i = 0; i < strata_status_annotation_count(status); ++i) {
    out += "; ";
    out += strata_status_annotation(status, i);
  }
  return sanitizeLine(out);
}

std::string consumeStatusLine(strata_status_t status) {
  std::string line = statusToLine(status);
  strata_status_free(status);
  return line;
}

bool takeFlagValue(const std::string& arg, const char* flag,
                   std::string* out) {
  size_t n = std::strlen(flag);
  if (arg.compare(0, n, flag) != 0 || arg.size() < n + 1 || arg[n] != '=') {
    return false;
  }
  *out = arg.substr(n + 1);
  return true;
}

bool parseFlagCount(const char* flag, const std::string& text, uint64_t min,
                    uint64_t max, uint64_t* out, std::string* error) {
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end || errno || text[0] == '-' || value < min ||
      value > max) {
    *error = std::string(flag) + " needs a whole number from " +
             std::to_string(min) + " to " + std::to_string(max) + ", not '" +
             sanitizeLine(text) + "'";
    return false;
  }
  *out = value;
  return true;
}

bool takeRunFlag(const std::string& arg, RunFlags* flags, std::string* error) {
  error->clear();
  std::string value;
  uint64_t count = 0;
  if (takeFlagValue(arg, "--module", &value)) {
    if (value.empty()) {
      *error = "--module needs a file";
    }
    flags->modules.push_back(value);
  } else if (takeFlagValue(arg, "--function", &value)) {
    if (value.empty()) {
      *error = "--function needs a name";
    }
    flags->function = value;
  } else if (takeFlagValue(arg, "--input", &value)) {
    flags->inputs.push_back(value);
  } else if (takeFlagValue(arg, "--device", &value)) {
    if (value != "local-task" && value != "local-sync") {
      *error = "unknown device '" + sanitizeLine(value) +
               "'; the devices are local-sync and local-task";
    }
    flags->device = value;
  } else if (takeFlagValue(arg, "--task_workers", &value)) {
    if (parseFlagCount("--task_workers", value, 0, 1024, &count, error)) {
      flags->task_workers = static_cast<uint32_t>(count);
    }
  } else if (takeFlagValue(arg, "--trace", &value)) {
    flags->trace = value;
  } else if (takeFlagValue(arg, "--require-signature", &value)) {
    flags->require_signature = value;
  } else if (arg == "--no-native-kernels") {
    flags->no_native_kernels = true;
  } else if (takeFlagValue(arg, "--timeout_ms", &value)) {
    parseFlagCount("--timeout_ms", value, 0, uint64_t{1} << 40,
                   &flags->timeout_ms, error);
  } else {
    return false;
  }
  return true;
}

void parseRunArgs(int argc, char** argv, const char* tool, const char* usage,
                  RunFlags* flags,
                  const std::function<std::string(const std::string&)>& other) {
  auto usageError = [&](const std::string& message) {
    std::fprintf(stderr, "%s: %s\n%s", tool, message.c_str(), usage);
    std::exit(2);
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string error;
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    }
    if (!takeRunFlag(arg, flags, &error)) {
      error = other(arg);
    }
    if (!error.empty()) {
      usageError(error);
    }
  }
  if (flags->modules.empty()) {
    usageError("no module given; use --module=FILE");
  }
}

int runWithTrace(const std::string& path, const char* tool,
                 const std::function<int()>& run) {
  if (path.empty()) {
    return run();
  }
  auto fail = [&](const std::string& message) {
    std::fprintf(stderr, "%s: --trace: %s\n", tool, message.c_str());
    return 1;
  };
  if (FILE* probe = std::fopen(path.c_str(), "wb")) {
    std::fclose(probe);
  } else {
    return fail("cannot write '" + path + "': " + std::strerror(errno));
  }
  strata_trace_t* trace = nullptr;
  strata_status_t status =
      strata_trace_create(strata_allocator_system(), &trace);
  if (status) {
    std::string line = statusToLine(status);
    strata_status_free(status);
    return fail(line);
  }
  strata_trace_install(trace);
  int code = run();
  strata_trace_install(nullptr);
  status = strata_trace_write_json(trace, path.c_str());
  strata_trace_destroy(trace);
  if (status) {
    std::string line = statusToLine(status);
    strata_status_free(status);
    return fail(line);
  }
  return code;
}

std::string exportAttr(const strata_vm_module_t* module,
                       const std::string& name, const std::string& key) {
  const char* value =
      strata_vm_module_export_attr_value(module, name.c_str(), key.c_str());
  return value ? value : "";
}

}  // namespace strata::tools
