// tensor_types.hpp - header-only C++17 helpers for the tensor types of
// strata/runtime.h: element type names, "2x3xf32" descriptions (the form
// every tool and message uses), checked element counts, IEEE half and
// bf16 conversion. strata-run, the Python module and the service sample
// share them; they need only the installed headers.
#ifndef STRATA_TENSOR_TYPES_HPP_
#define STRATA_TENSOR_TYPES_HPP_

#include <cinttypes>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "strata/hal/buffer.h"

namespace strata::runtime {

/// Element type name ("f32", "ui8", "i1"), or "<element type 0x...>".
inline std::string elementTypeName(strata_hal_element_type_t element_type) {
  const char* name = strata_hal_element_type_name(element_type);
  if (name) {
    return name;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "<element type 0x%08" PRIx32 ">",
                element_type);
  return buffer;
}

/// "2x3xf32", "f32" for a 0-d tensor, "0x4xi8".
inline std::string describeTensorType(const int64_t* shape, size_t rank,
                                      strata_hal_element_type_t element_type) {
  std::string out;
  for (size_t i = 0; i < rank; ++i) {
    out += std::to_string(shape[i]);
    out += 'x';
  }
  return out + elementTypeName(element_type);
}
inline std::string describeTensorType(const std::vector<int64_t>& shape,
                                      strata_hal_element_type_t element_type) {
  return describeTensorType(shape.data(), shape.size(), element_type);
}

/// Element product of shape into *out, or false when a dim is negative or
/// the product (times element_size) overflows 2^62 bytes.
inline bool shapeElementCount(const std::vector<int64_t>& shape,
                              size_t element_size, uint64_t* out) {
  constexpr uint64_t kLimit = uint64_t{1} << 62;
  uint64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0) {
      return false;
    }
    uint64_t d = static_cast<uint64_t>(dim);
    if (d != 0 && count > kLimit / d) {
      return false;
    }
    count *= d;
  }
  if (element_size != 0 && count > kLimit / element_size) {
    return false;
  }
  *out = count;
  return true;
}

/// Rounds value to the nearest half, ties to even. Values whose magnitude
/// rounds past 65504 become infinity; NaN stays a (quiet) NaN.
inline uint16_t halfFromDouble(double value) {
  uint16_t sign = std::signbit(value) ? 0x8000u : 0u;
  if (std::isnan(value)) {
    return static_cast<uint16_t>(sign | 0x7E00u);
  }
  double a = std::fabs(value);
  if (std::isinf(a) || a >= 65520.0) {  // 65520 is the halfway point to 2^16
    return static_cast<uint16_t>(sign | 0x7C00u);
  }
  if (a < 0x1p-14) {
    // Subnormal (or zero): units of 2^-24. Scaling by a power of two is
    // exact, and nearbyint rounds ties to even in the default mode; 1024
    // units carry into the smallest normal, which has the same encoding.
    return static_cast<uint16_t>(
        sign | static_cast<uint16_t>(std::nearbyint(a * 0x1p24)));
  }
  int exponent;
  double fraction = std::frexp(a, &exponent);  // a = fraction * 2^exponent
  // a = (1 + m / 1024) * 2^(exponent - 1), m rounded to even.
  double m = std::nearbyint((fraction * 2.0 - 1.0) * 1024.0);
  int e = exponent - 1;
  if (m >= 1024.0) {
    m = 0.0;
    ++e;
  }
  if (e > 15) {
    return static_cast<uint16_t>(sign | 0x7C00u);
  }
  return static_cast<uint16_t>(sign | static_cast<uint16_t>((e + 15) << 10) |
                               static_cast<uint16_t>(m));
}

/// Exact widening of a half.
inline float halfToFloat(uint16_t bits) {
  bool negative = (bits & 0x8000u) != 0;
  uint32_t exponent = (bits >> 10) & 0x1Fu;
  uint32_t mantissa = bits & 0x3FFu;
  float value;
  if (exponent == 0x1F) {
    value = mantissa ? std::nanf("") : INFINITY;
  } else if (exponent == 0) {
    value = std::ldexp(static_cast<float>(mantissa), -24);
  } else {
    value = std::ldexp(static_cast<float>(mantissa | 0x400u),
                       static_cast<int>(exponent) - 25);
  }
  return negative ? -value : value;
}

/// Rounds an f32 to the nearest bf16 (its high half), ties to even; NaN
/// stays a (quiet) NaN.
inline uint16_t bfloatFromFloat(float value) {
  uint32_t u;
  std::memcpy(&u, &value, sizeof(u));
  if (std::isnan(value)) {
    return static_cast<uint16_t>((u >> 16) | 0x40u);
  }
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

/// Exact widening of a bf16.
inline float bfloatToFloat(uint16_t bits) {
  uint32_t u = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &u, sizeof(value));
  return value;
}

}  // namespace strata::runtime

#endif  // STRATA_TENSOR_TYPES_HPP_
