// tensor_io.cpp - tensor text parsing and printing, half conversion,
// comparison and the hal.buffer_view bridge for the tools.
#include "tensor_io.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli.h"
#include "npy.h"

namespace strata::tools {

namespace {

// Text tensors are typed by hand; anything bigger is almost surely a typo
// in the shape (and would only exhaust memory when splatted).
constexpr uint64_t kMaxTextTensorBytes = uint64_t{1} << 30;

enum class Kind {
  Unsupported,
  Bool,
  Signless,
  Signed,
  Unsigned,
  Float,
  BFloat
};

Kind kindOf(strata_hal_element_type_t type) {
  uint32_t numerical = type >> 24;
  uint32_t bits = type & 0xFFu;
  bool int_bits = bits == 8 || bits == 16 || bits == 32 || bits == 64;
  switch (numerical) {
    case STRATA_HAL_NUMERICAL_TYPE_BOOLEAN:
      return bits == 8 || bits == 1 ? Kind::Bool : Kind::Unsupported;
    case STRATA_HAL_NUMERICAL_TYPE_INTEGER:
      if (bits == 1) {
        return Kind::Bool;
      }
      return int_bits ? Kind::Signless : Kind::Unsupported;
    case STRATA_HAL_NUMERICAL_TYPE_INTEGER_SIGNED:
      return int_bits ? Kind::Signed : Kind::Unsupported;
    case STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED:
      return int_bits ? Kind::Unsigned : Kind::Unsupported;
    case STRATA_HAL_NUMERICAL_TYPE_FLOAT_IEEE:
      return bits == 16 || bits == 32 || bits == 64 ? Kind::Float
                                                    : Kind::Unsupported;
    case STRATA_HAL_NUMERICAL_TYPE_FLOAT_BRAIN:
      return bits == 16 ? Kind::BFloat : Kind::Unsupported;
    default:
      return Kind::Unsupported;
  }
}

uint32_t bitsOf(strata_hal_element_type_t type) { return type & 0xFFu; }

bool isSeparator(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' ||
         c == '[' || c == ']';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// Little-endian load/store of the low `bytes` bytes.
uint64_t loadBits(const uint8_t* p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) {
    v |= uint64_t{p[i]} << (8 * i);
  }
  return v;
}

void storeBits(uint8_t* p, size_t bytes, uint64_t v) {
  for (size_t i = 0; i < bytes; ++i) {
    p[i] = static_cast<uint8_t>(v >> (8 * i));
  }
}

enum class ParseResult { Ok, Malformed, OutOfRange };

// "-0x1F" -> negative, magnitude 31. Decimal or 0x hex, optional sign.
// OutOfRange when the magnitude does not fit 64 bits.
ParseResult parseIntegerToken(const std::string& token, bool* negative,
                              uint64_t* magnitude) {
  const char* p = token.c_str();
  *negative = false;
  if (*p == '-' || *p == '+') {
    *negative = *p == '-';
    ++p;
  }
  int base = 10;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    base = 16;
    p += 2;
  }
  if (*p == '\0') {
    return ParseResult::Malformed;
  }
  uint64_t v = 0;
  bool overflow = false;
  for (; *p; ++p) {
    int digit;
    if (*p >= '0' && *p <= '9') {
      digit = *p - '0';
    } else if (base == 16 && *p >= 'a' && *p <= 'f') {
      digit = *p - 'a' + 10;
    } else if (base == 16 && *p >= 'A' && *p <= 'F') {
      digit = *p - 'A' + 10;
    } else {
      return ParseResult::Malformed;
    }
    uint64_t d = static_cast<uint64_t>(digit);
    uint64_t b = static_cast<uint64_t>(base);
    if (v > (UINT64_MAX - d) / b) {
      overflow = true;  // keep checking the digits; reported as out of range
    } else {
      v = v * b + d;
    }
  }
  *magnitude = v;
  return overflow ? ParseResult::OutOfRange : ParseResult::Ok;
}

ParseResult parseElement(const std::string& token, Kind kind, uint32_t bits,
                         uint8_t* out) {
  size_t bytes = (bits + 7) / 8;
  switch (kind) {
    case Kind::Bool: {
      if (token == "true" || token == "false") {
        out[0] = token == "true";
        return ParseResult::Ok;
      }
      bool negative;
      uint64_t magnitude;
      ParseResult parsed = parseIntegerToken(token, &negative, &magnitude);
      if (parsed != ParseResult::Ok) {
        return parsed;
      }
      if (magnitude > 1 || (negative && magnitude != 0)) {
        return ParseResult::OutOfRange;
      }
      out[0] = static_cast<uint8_t>(magnitude);
      return ParseResult::Ok;
    }
    case Kind::Signless:
    case Kind::Signed:
    case Kind::Unsigned: {
      bool negative;
      uint64_t magnitude;
      ParseResult parsed = parseIntegerToken(token, &negative, &magnitude);
      if (parsed != ParseResult::Ok) {
        return parsed;
      }
      uint64_t half = uint64_t{1} << (bits - 1);  // 2^(N-1)
      uint64_t all = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
      bool ok;
      if (negative) {
        ok = kind == Kind::Unsigned ? magnitude == 0 : magnitude <= half;
      } else {
        ok = magnitude <= (kind == Kind::Signed ? half - 1 : all);
      }
      if (!ok) {
        return ParseResult::OutOfRange;
      }
      uint64_t v = negative ? (~magnitude + 1) : magnitude;
      storeBits(out, bytes, v);
      return ParseResult::Ok;
    }
    case Kind::Float: {
      if (token.empty()) {
        return ParseResult::Malformed;
      }
      errno = 0;
      char* end = nullptr;
      if (bits == 32) {
        float v = std::strtof(token.c_str(), &end);
        if (*end != '\0') {
          return ParseResult::Malformed;
        }
        if (errno == ERANGE && std::isinf(v)) {
          return ParseResult::OutOfRange;
        }
        uint32_t u;
        std::memcpy(&u, &v, sizeof(u));
        storeBits(out, 4, u);
        return ParseResult::Ok;
      }
      double v = std::strtod(token.c_str(), &end);
      if (*end != '\0') {
        return ParseResult::Malformed;
      }
      if (errno == ERANGE && std::isinf(v)) {
        return ParseResult::OutOfRange;
      }
      if (bits == 64) {
        uint64_t u;
        std::memcpy(&u, &v, sizeof(u));
        storeBits(out, 8, u);
        return ParseResult::Ok;
      }
      uint16_t h = halfFromDouble(v);
      if (std::isfinite(v) && (h & 0x7FFFu) == 0x7C00u) {
        return ParseResult::OutOfRange;
      }
      storeBits(out, 2, h);
      return ParseResult::Ok;
    }
    case Kind::BFloat: {
      // bf16: the high half of the f32, rounded to nearest even.
      errno = 0;
      char* end = nullptr;
      float v = token.empty() ? 0.0f : std::strtof(token.c_str(), &end);
      if (token.empty() || *end != '\0') {
        return ParseResult::Malformed;
      }
      uint32_t u;
      std::memcpy(&u, &v, sizeof(u));
      uint16_t h;
      if (std::isnan(v)) {
        h = static_cast<uint16_t>((u >> 16) | 0x40u);
      } else {
        h = static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
      }
      if ((errno == ERANGE && std::isinf(v)) ||
          (std::isfinite(v) && (h & 0x7FFFu) == 0x7F80u)) {
        return ParseResult::OutOfRange;
      }
      storeBits(out, 2, h);
      return ParseResult::Ok;
    }
    case Kind::Unsupported:
      break;
  }
  return ParseResult::Malformed;
}

// The element at flat index i as a double (floats only).
double floatAt(const HostTensor& t, uint64_t i) {
  size_t size = t.elementSize();
  uint64_t bits = loadBits(t.data.data() + i * size, size);
  if (kindOf(t.element_type) == Kind::BFloat) {
    uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof(f));
    return f;
  }
  switch (size) {
    case 2:
      return halfToFloat(static_cast<uint16_t>(bits));
    case 4: {
      uint32_t u = static_cast<uint32_t>(bits);
      float f;
      std::memcpy(&f, &u, sizeof(f));
      return f;
    }
    default: {
      double d;
      std::memcpy(&d, &bits, sizeof(d));
      return d;
    }
  }
}

std::string formatHalf(uint16_t bits) {
  float value = halfToFloat(bits);
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value < 0 ? "-inf" : "inf";
  }
  char buffer[32];
  if (std::fabs(value) >= 1024.0f || value == std::trunc(value)) {
    // Halves from 1024 up are integers; "65504" reads better than "6.55e+04",
    // and "20" better than the shortest "%g" that reads back, "2e+01".
    std::snprintf(buffer, sizeof(buffer), "%.0f", static_cast<double>(value));
    return buffer;
  }
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision,
                  static_cast<double>(value));
    if (halfFromDouble(std::strtod(buffer, nullptr)) == bits) {
      break;
    }
  }
  return buffer;
}

}  // namespace

bool isScalarText(std::string_view text) {
  size_t eq = text.find('=');
  return !text.empty() && text[0] != '@' && eq != std::string_view::npos &&
         text.substr(0, eq).find('x') == std::string_view::npos;
}

bool parseTensorText(std::string_view text, HostTensor* out,
                     std::string* error) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    *error = "expected SHAPExTYPE=VALUES or TYPE=VALUE, such as "
             "2x3xf32=1 2 3 4 5 6 or i32=5";
    return false;
  }
  std::string_view type_text = trim(text.substr(0, eq));
  std::string_view values = text.substr(eq + 1);

  // Dims, then the element type after the last 'x'.
  out->shape.clear();
  size_t last_x = type_text.rfind('x');
  std::string_view element_name = type_text;
  if (last_x != std::string_view::npos) {
    element_name = type_text.substr(last_x + 1);
    std::string_view dims = type_text.substr(0, last_x + 1);
    size_t start = 0;
    while (start < dims.size()) {
      size_t x = dims.find('x', start);
      std::string_view dim = dims.substr(start, x - start);
      bool digits = !dim.empty() && dim.size() <= 18;
      for (char c : dim) {
        digits = digits && c >= '0' && c <= '9';
      }
      if (!digits) {
        *error = "malformed shape '" + std::string(dims.substr(0, last_x)) +
                 "': dims are non-negative integers separated by 'x'";
        return false;
      }
      out->shape.push_back(std::strtoll(std::string(dim).c_str(), nullptr, 10));
      start = x + 1;
    }
    if (out->shape.size() > STRATA_HAL_MAX_RANK) {
      *error = "rank " + std::to_string(out->shape.size()) +
               " exceeds the maximum of " + std::to_string(STRATA_HAL_MAX_RANK);
      return false;
    }
  }
  if (element_name.empty()) {
    *error = "missing element type before '='";
    return false;
  }
  strata_hal_element_type_t type =
      strata_hal_element_type_parse(element_name.data(), element_name.size());
  Kind kind = kindOf(type);
  if (type == STRATA_HAL_ELEMENT_TYPE_NONE || kind == Kind::Unsupported) {
    *error = "unknown element type '" + std::string(element_name) +
             "'; expected i1, i8, i16, i32, i64, si8..si64, ui8..ui64, f16, "
             "bf16, f32 or f64";
    return false;
  }
  out->element_type = type;
  size_t size = out->elementSize();
  uint64_t count = 0;
  if (!shapeElementCount(out->shape, size, &count) ||
      count * size > kMaxTextTensorBytes) {
    *error = "shape " + describeTensorType(out->shape, type) +
             " is too large for a text tensor (the limit is 1 GiB)";
    return false;
  }

  // Tokens between separators.
  std::vector<std::string> tokens;
  for (size_t i = 0; i < values.size();) {
    if (isSeparator(values[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < values.size() && !isSeparator(values[j])) {
      ++j;
    }
    tokens.emplace_back(values.substr(i, j - i));
    i = j;
  }
  bool splat = tokens.size() == 1 && count > 1;
  if (!splat && tokens.size() != count) {
    *error = "expected " + std::to_string(count) +
             (count == 1 ? " element" : " elements") + ", got " +
             std::to_string(tokens.size());
    return false;
  }
  out->data.assign(static_cast<size_t>(count * size), 0);
  for (size_t i = 0; i < tokens.size(); ++i) {
    ParseResult result = parseElement(tokens[i], kind, bitsOf(type),
                                      out->data.data() + i * size);
    if (result != ParseResult::Ok) {
      *error = "value '" + tokens[i] + "'" +
               (tokens.size() > 1 ? " (element " + std::to_string(i) + ")"
                                  : std::string()) +
               (result == ParseResult::OutOfRange ? " is out of range for "
                                                  : " is not a valid ") +
               std::string(element_name);
      return false;
    }
  }
  if (splat) {
    // Doubling copies: a 1 GiB splat of bytes is 30 memcpys, not 2^30.
    uint8_t* data = out->data.data();
    size_t filled = size;
    size_t total = static_cast<size_t>(count * size);
    while (filled < total) {
      size_t chunk = std::min(filled, total - filled);
      std::memcpy(data + filled, data, chunk);
      filled += chunk;
    }
  }
  return true;
}

std::string formatElement(const HostTensor& t, uint64_t i) {
  size_t size = t.elementSize();
  uint64_t bits = loadBits(t.data.data() + i * size, size);
  uint32_t width = static_cast<uint32_t>(size * 8);
  char buffer[32];
  switch (kindOf(t.element_type)) {
    case Kind::Bool:
      return bits ? "1" : "0";
    case Kind::Signless:
    case Kind::Signed: {
      // Sign-extend from the element width.
      uint64_t shift = 64 - width;
      int64_t v = static_cast<int64_t>(bits << shift) >> shift;
      std::snprintf(buffer, sizeof(buffer), "%" PRId64, v);
      return buffer;
    }
    case Kind::Unsigned:
      std::snprintf(buffer, sizeof(buffer), "%" PRIu64, bits);
      return buffer;
    case Kind::Float:
      if (size == 2) {
        return formatHalf(static_cast<uint16_t>(bits));
      }
      if (size == 4) {
        return formatF32(static_cast<float>(floatAt(t, i)));
      }
      return formatF64(floatAt(t, i));
    case Kind::BFloat: return formatF32(static_cast<float>(floatAt(t, i)));
    case Kind::Unsupported:
      break;
  }
  return "?";
}

std::string formatTensor(const HostTensor& tensor, size_t max_elements) {
  std::string out = describeTensorType(tensor.shape, tensor.element_type);
  out += '=';
  if (kindOf(tensor.element_type) == Kind::Unsupported) {
    return out + "(" + std::to_string(tensor.data.size()) + " bytes)";
  }
  size_t rank = tensor.shape.size();
  if (rank == 0) {
    return max_elements ? out + formatElement(tensor, 0) : out + "...";
  }
  uint64_t printed = 0;
  bool truncated = false;
  // Level d loops over dim d; levels before the last wrap each child in
  // brackets, the last prints its elements separated by spaces.
  auto print = [&](auto& self, size_t d, uint64_t offset) -> void {
    uint64_t stride = 1;
    for (size_t k = d + 1; k < rank; ++k) {
      stride *= static_cast<uint64_t>(tensor.shape[k]);
    }
    for (int64_t i = 0; i < tensor.shape[d] && !truncated; ++i) {
      uint64_t at = offset + static_cast<uint64_t>(i) * stride;
      if (d + 1 == rank) {
        if (printed == max_elements) {
          out += i ? " ..." : "...";
          truncated = true;
          return;
        }
        if (i) {
          out += ' ';
        }
        out += formatElement(tensor, at);
        ++printed;
      } else {
        out += '[';
        self(self, d + 1, at);
        if (truncated) {
          return;
        }
        out += ']';
      }
    }
  };
  print(print, 0, 0);
  return out;
}

std::string formatIndex(const std::vector<int64_t>& shape, uint64_t flat) {
  std::vector<uint64_t> index(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    uint64_t dim = static_cast<uint64_t>(shape[k]);
    index[k] = dim ? flat % dim : 0;
    flat = dim ? flat / dim : 0;
  }
  std::string out = "[";
  for (size_t k = 0; k < index.size(); ++k) {
    out += k ? ", " : "";
    out += std::to_string(index[k]);
  }
  return out + "]";
}

bool compareTensors(const HostTensor& expected, const HostTensor& actual,
                    const CompareThresholds& thresholds,
                    std::string* mismatch) {
  if (expected.element_type != actual.element_type ||
      expected.shape != actual.shape) {
    *mismatch = "is " + describeTensorType(actual.shape, actual.element_type) +
                ", expected " +
                describeTensorType(expected.shape, expected.element_type);
    return false;
  }
  uint64_t count = expected.elementCount();
  size_t size = expected.elementSize();
  if (expected.data.size() != count * size ||
      actual.data.size() != count * size) {
    *mismatch = "holds " + std::to_string(actual.data.size()) +
                " bytes, expected " + std::to_string(count * size);
    return false;
  }
  // bf16 compares with the f16 threshold (both are 2 bytes).
  bool is_float = kindOf(expected.element_type) == Kind::Float ||
                  kindOf(expected.element_type) == Kind::BFloat;
  double threshold = size == 2   ? thresholds.f16
                     : size == 4 ? thresholds.f32
                                 : thresholds.f64;
  for (uint64_t i = 0; i < count; ++i) {
    std::string note;
    if (is_float) {
      double e = floatAt(expected, i);
      double a = floatAt(actual, i);
      if ((std::isnan(e) && std::isnan(a)) || e == a) {
        continue;
      }
      double difference = std::fabs(a - e);
      double allowed = threshold;
      if (thresholds.relative > 0 && std::isfinite(e)) {
        allowed += thresholds.relative * std::fabs(e);
      }
      if (!std::isnan(difference) && !std::isinf(difference) &&
          difference <= allowed) {
        continue;
      }
      if (std::isfinite(difference)) {
        // Six significant digits: enough to see the excess, without the
        // representation noise of a - b.
        char buffer[64];
        std::snprintf(buffer, sizeof(buffer), " (|difference| %.6g > %.6g)",
                      difference, allowed);
        note = buffer;
      }
    } else if (std::memcmp(expected.data.data() + i * size,
                           actual.data.data() + i * size, size) == 0) {
      continue;
    }
    // A 0-d tensor (or VM scalar) has no index worth printing.
    std::string where = expected.shape.empty()
                            ? std::string()
                            : "element " + formatIndex(expected.shape, i) + " ";
    *mismatch = where + "is " + formatElement(actual, i) + ", expected " +
                formatElement(expected, i) + note;
    return false;
  }
  return true;
}

bool tensorFromScalar(const strata_vm_variant_t& value, HostTensor* out) {
  out->shape.clear();
  switch (value.type) {
    case STRATA_VM_VALUE_I32:
    case STRATA_VM_VALUE_F32: {
      out->element_type = value.type == STRATA_VM_VALUE_I32
                              ? STRATA_HAL_ELEMENT_TYPE_INT_32
                              : STRATA_HAL_ELEMENT_TYPE_FLOAT_32;
      uint32_t u;
      std::memcpy(&u, &value.value, sizeof(u));
      out->data.resize(4);
      storeBits(out->data.data(), 4, u);
      return true;
    }
    case STRATA_VM_VALUE_I64:
    case STRATA_VM_VALUE_F64:
      out->element_type = value.type == STRATA_VM_VALUE_I64
                              ? STRATA_HAL_ELEMENT_TYPE_INT_64
                              : STRATA_HAL_ELEMENT_TYPE_FLOAT_64;
      out->data.resize(8);
      storeBits(out->data.data(), 8, value.value.bits);
      return true;
    default:
      return false;
  }
}

bool scalarFromTensor(const HostTensor& tensor, strata_vm_variant_t* out) {
  if (!tensor.shape.empty() || tensor.data.size() != tensor.elementSize()) {
    return false;
  }
  uint64_t bits = loadBits(tensor.data.data(), tensor.data.size());
  switch (tensor.element_type) {
    case STRATA_HAL_ELEMENT_TYPE_INT_32: {
      *out = strata_vm_variant_i32(
          static_cast<int32_t>(static_cast<uint32_t>(bits)));
      return true;
    }
    case STRATA_HAL_ELEMENT_TYPE_INT_64:
      *out = strata_vm_variant_i64(static_cast<int64_t>(bits));
      return true;
    case STRATA_HAL_ELEMENT_TYPE_FLOAT_32: {
      uint32_t u = static_cast<uint32_t>(bits);
      float f;
      std::memcpy(&f, &u, sizeof(f));
      *out = strata_vm_variant_f32(f);
      return true;
    }
    case STRATA_HAL_ELEMENT_TYPE_FLOAT_64: {
      double d;
      std::memcpy(&d, &bits, sizeof(d));
      *out = strata_vm_variant_f64(d);
      return true;
    }
    default:
      return false;
  }
}

strata_status_t bufferViewFromTensor(const HostTensor& tensor,
                                     strata_allocator_t allocator,
                                     strata_hal_buffer_view_t** out_view) {
  *out_view = nullptr;
  if (tensor.shape.size() > STRATA_HAL_MAX_RANK) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "rank %zu exceeds the maximum of %d",
                              tensor.shape.size(), STRATA_HAL_MAX_RANK);
  }
  strata_hal_buffer_t* buffer = nullptr;
  STRATA_RETURN_IF_ERROR(
      strata_hal_buffer_allocate(allocator, tensor.data.size(), &buffer));
  if (!tensor.data.empty()) {
    uint8_t* bytes = nullptr;
    strata_status_t status =
        strata_hal_buffer_map(buffer, 0, tensor.data.size(), &bytes);
    if (status) {
      strata_hal_buffer_release(buffer);
      return status;
    }
    std::memcpy(bytes, tensor.data.data(), tensor.data.size());
  }
  strata_status_t status = strata_hal_buffer_view_create(
      buffer, tensor.shape.data(), tensor.shape.size(), tensor.element_type,
      allocator, out_view);
  strata_hal_buffer_release(buffer);  // the view holds its own reference
  return status;
}

bool tensorFromBufferView(const strata_hal_buffer_view_t* view, HostTensor* out,
                          std::string* error) {
  size_t rank = strata_hal_buffer_view_rank(view);
  const int64_t* shape = strata_hal_buffer_view_shape(view);
  out->shape.assign(shape, shape + rank);
  out->element_type = strata_hal_buffer_view_element_type(view);
  uint64_t length = strata_hal_buffer_view_byte_length(view);
  out->data.clear();
  if (length == 0) {
    return true;
  }
  uint8_t* bytes = nullptr;
  strata_status_t status = strata_hal_buffer_map(
      strata_hal_buffer_view_buffer(view), 0, length, &bytes);
  if (status) {
    *error = statusToLine(status);
    strata_status_free(status);
    return false;
  }
  out->data.assign(bytes, bytes + length);
  return true;
}

bool parseValueArgument(const std::string& text, HostTensor* out,
                        std::string* error) {
  if (!text.empty() && text[0] == '@') {
    std::string path = text.substr(1);
    std::vector<uint8_t> bytes;
    std::string reason;
    // The magic is checked on the first bytes, so /dev/zero or a text file
    // is refused before the rest is read.
    bool not_npy = false;
    ReadFileOptions options;
    options.prefix_size = 8;
    options.check_prefix = [&](const uint8_t* data, size_t size,
                               std::string* why) {
      not_npy = !checkNpyMagic(data, size, why);
      return !not_npy;
    };
    if (!readFile(path, &bytes, &reason, options)) {
      *error = not_npy ? reason : "cannot read '" + path + "': " + reason;
      return false;
    }
    try {
      return parseNpy(bytes.data(), bytes.size(), out, error);
    } catch (const std::bad_alloc&) {
      *error = "out of memory reading '" + path + "'";
      return false;
    }
  }
  return parseTensorText(text, out, error);
}

}  // namespace strata::tools
