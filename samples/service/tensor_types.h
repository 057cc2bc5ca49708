// tensor_types.h - what the service's JSON form needs of tensor types on top
// of the installed API: element type names, "2x3xf32" descriptions, checked
// element counts and IEEE half conversion. The sample keeps its own copy
// (strata-run has the same in tools/common) so that it builds on installed
// headers only.
#ifndef STRATA_SAMPLES_SERVICE_TENSOR_TYPES_H_
#define STRATA_SAMPLES_SERVICE_TENSOR_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/hal/buffer.h"

namespace strata::service {

// Element product of shape, or false when a dim is negative or the product
// (times element_size) overflows 2^62 bytes.
bool shapeElementCount(const std::vector<int64_t>& shape, size_t element_size,
                       uint64_t* out);

// "2x3xf32", "f32" for a 0-d tensor, "0x4xi8".
std::string describeTensorType(const std::vector<int64_t>& shape,
                               strata_hal_element_type_t element_type);

// Element type name ("f32", "ui8", "i1"), or "<element type 0x...>".
std::string elementTypeName(strata_hal_element_type_t element_type);

// Rounds value to the nearest half, ties to even. Values whose magnitude
// rounds past 65504 become infinity; NaN stays a (quiet) NaN.
uint16_t halfFromDouble(double value);
// Exact widening of a half.
float halfToFloat(uint16_t bits);

}  // namespace strata::service

#endif  // STRATA_SAMPLES_SERVICE_TENSOR_TYPES_H_
