// cli.cpp - file reading, --input parsing and value printing for the tools.
#include "strata/base/trace.h"
#include "cli.h"

#include "utf8.h"

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "strata/vm/buffer.h"
#include "strata/vm/list.h"

namespace strata::tools {

bool readFile(const std::string& path, std::vector<uint8_t>* out,
              std::string* error) {
  out->clear();
  FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) {
    *error = std::strerror(errno);
    return false;
  }
  uint8_t buffer[1 << 16];
  for (;;) {
    size_t n = std::fread(buffer, 1, sizeof(buffer), file);
    out->insert(out->end(), buffer, buffer + n);
    if (n < sizeof(buffer)) {
      break;
    }
  }
  bool failed = std::ferror(file) != 0;
  int saved = errno;
  std::fclose(file);
  if (failed) {
    *error = std::strerror(saved ? saved : EIO);
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
  size_t underscore = cc.find('_');
  if (cc.empty() || cc[0] != '0' || underscore == std::string_view::npos) {
    return "[" + std::string(cc) + "]";
  }
  std::string args;
  std::string_view a = cc.substr(1, underscore - 1);
  for (size_t i = 0; i < a.size(); ++i) {
    if (!args.empty()) {
      args += ", ";
    }
    if (a[i] == 'C') {
      size_t close = a.find('D', i);
      if (close == std::string_view::npos) {
        return "[" + std::string(cc) + "]";
      }
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
  std::string_view r = cc.substr(underscore + 1);
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
  size_t underscore = cc.find('_');
  if (cc.empty() || cc[0] != '0' || underscore == std::string_view::npos) {
    return false;
  }
  args->assign(cc.substr(1, underscore - 1));
  for (char c : *args) {
    if (c != 'i' && c != 'I' && c != 'f' && c != 'F' && c != 'r') {
      return false;
    }
  }
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

bool takeFlagValue(const std::string& arg, const char* flag,
                   std::string* out) {
  size_t n = std::strlen(flag);
  if (arg.compare(0, n, flag) != 0 || arg.size() < n + 1 || arg[n] != '=') {
    return false;
  }
  *out = arg.substr(n + 1);
  return true;
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

}  // namespace strata::tools
