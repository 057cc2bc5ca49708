// tensor_io.h - host tensors for the tools: IREE's text grammar
// ("2x3xf32=1 2 3 4 5 6"), IREE-style printing ("2x3xf32=[1 2 3][4 5 6]"),
// comparison against expected values, and the bridge to hal.buffer_view
// (element type names and half conversion come from strata/tensor_types.hpp).
//
// Everything here is for tools: it uses the STL freely, reports errors as
// strings, and is thread-compatible.
#ifndef STRATA_TOOLS_COMMON_TENSOR_IO_H_
#define STRATA_TOOLS_COMMON_TENSOR_IO_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "host_tensor.h"
#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/hal/buffer.h"
#include "strata/vm/value.h"

namespace strata::tools {

//===--------------------------------------------------------------------===//
// Text
//===--------------------------------------------------------------------===//

// Parses IREE's tensor grammar:
//   [DIMx...]TYPE=VALUES
// where DIMs are non-negative decimal integers separated by 'x', TYPE is an
// element type (i1 i8 i16 i32 i64 si8.. ui8.. f16 f32 f64), and VALUES are
// separated by spaces, tabs, commas or '[' ']' (so IREE's printed form
// reads back). A single value is splatted to every element. Integers may be
// decimal or 0x hex; signless iN accepts -2^(N-1) .. 2^N-1 (the unsigned
// spelling wraps); i1 takes 0, 1, true or false; floats take nan and inf.
// No dims means a 0-d tensor holding exactly one value.
// On failure returns false and sets *error to one phrase, such as
// "expected 6 elements, got 3" or "unknown element type 'f31'".
/// A command-line value: "@FILE.npy" (read from the file) or tensor text
/// (parseTensorText). False with *error set on failure.
bool parseValueArgument(const std::string& text, HostTensor* out,
                        std::string* error);

bool parseTensorText(std::string_view text, HostTensor* out,
                     std::string* error);

// True when text looks like a 0-d "TYPE=VALUE" (no 'x' before the '='), the
// spelling of a VM scalar when the argument is a primitive.
bool isScalarText(std::string_view text);

// IREE's printed form: "2x3xf32=[1 2 3][4 5 6]", "3xi8=1 2 3", "f32=2.5",
// rank N nests N-1 levels of brackets. Floats print as the shortest text
// that reads back exactly; i1 prints 0/1. At most max_elements elements are
// printed, then "..." (0 prints none).
std::string formatTensor(const HostTensor& tensor, size_t max_elements);

// Element i (flat index) as text, as formatTensor prints it.
std::string formatElement(const HostTensor& tensor, uint64_t i);

// "[1, 2]" for flat index 5 of a 2x3 tensor; "[]" for rank 0.
std::string formatIndex(const std::vector<int64_t>& shape, uint64_t flat);

//===--------------------------------------------------------------------===//
// Comparison
//===--------------------------------------------------------------------===//

// Absolute tolerances, per float width, and a relative one for every
// width (0 unless set): floats match when
// |actual - expected| <= threshold + relative * |expected|. Ints and i1
// compare exactly.
struct CompareThresholds {
  double f16 = 1e-3;
  double f32 = 1e-4;
  double f64 = 1e-4;
  double relative = 0;
};

// Compares actual with expected: element type, shape, then every element
// (floats: |a - b| <= threshold (+ relative |b|), NaN matches NaN, infinities match their
// own sign). Returns true on a match; otherwise sets *mismatch to a phrase
// naming the first difference, such as
//   "element [1, 2] is 7, expected 6"
//   "is 5, expected 6" (0-d)
//   "element [0] is 2.5, expected 2.25 (|difference| 0.25 > 0.0001)"
//   "is 3x2xf32, expected 2x3xf32".
bool compareTensors(const HostTensor& expected, const HostTensor& actual,
                    const CompareThresholds& thresholds, std::string* mismatch);

//===--------------------------------------------------------------------===//
// VM values and HAL buffer views
//===--------------------------------------------------------------------===//

// A 0-d tensor of i32/i64/f32/f64 from a primitive variant; false for refs.
bool tensorFromScalar(const strata_vm_variant_t& value, HostTensor* out);
// The VM scalar of a 0-d i32/i64/f32/f64 tensor; false for any other.
bool scalarFromTensor(const HostTensor& tensor, strata_vm_variant_t* out);

// Allocates a hal.buffer holding tensor's bytes and a view of it; the caller
// owns *out_view. The rank must not exceed STRATA_HAL_MAX_RANK.
strata_status_t bufferViewFromTensor(const HostTensor& tensor,
                                     strata_allocator_t allocator,
                                     strata_hal_buffer_view_t** out_view);
// Copies a buffer view's shape, element type and bytes. On failure returns
// false and sets *error.
bool tensorFromBufferView(const strata_hal_buffer_view_t* view, HostTensor* out,
                          std::string* error);

}  // namespace strata::tools

#endif  // STRATA_TOOLS_COMMON_TENSOR_IO_H_
