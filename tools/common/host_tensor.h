// host_tensor.h - HostTensor, the tools' dense host array, on its own so
// that the readers and writers of its forms (tensor_io.h: text and buffer
// views; npy.h: .npy files) share it without including each other.
//
// For tools: uses the STL freely and is thread-compatible.
#ifndef STRATA_TOOLS_COMMON_HOST_TENSOR_H_
#define STRATA_TOOLS_COMMON_HOST_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "strata/hal/buffer.h"
#include "strata/tensor_types.hpp"

namespace strata::tools {

// A dense row-major (C order) array in host memory. Elements are stored as
// the HAL stores them: little-endian, each taking
// strata_hal_element_byte_size(element_type) bytes; i1 is one byte, 0 or 1.
struct HostTensor {
  strata_hal_element_type_t element_type = STRATA_HAL_ELEMENT_TYPE_NONE;
  std::vector<int64_t> shape;  // empty for a 0-d tensor (one element)
  std::vector<uint8_t> data;

  // Product of the dims (1 for rank 0).
  uint64_t elementCount() const {
    uint64_t count = 1;
    for (int64_t dim : shape) {
      count *= static_cast<uint64_t>(dim);
    }
    return count;
  }
  size_t elementSize() const {
    return strata_hal_element_byte_size(element_type);
  }
};

// Element type names, "2x3xf32" descriptions, checked element counts and
// IEEE half conversion: the installed header's (strata/tensor_types.hpp).
using runtime::describeTensorType;
using runtime::elementTypeName;
using runtime::halfFromDouble;
using runtime::halfToFloat;
using runtime::shapeElementCount;

}  // namespace strata::tools

#endif  // STRATA_TOOLS_COMMON_HOST_TENSOR_H_
