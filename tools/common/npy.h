// npy.h - reads and writes NumPy .npy files (format versions 1.0, 2.0 and
// 3.0; one C-order array per file) as HostTensors.
//
// dtypes map to element types as follows (little-endian '<', or '|' / '='
// for one byte; '=' is native, little-endian on every supported host):
//   b1 <-> i1   i1 i2 i4 i8 <-> i8 i16 i32 i64 (si* write as i* too)
//   u1 u2 u4 u8 <-> ui8 ui16 ui32 ui64   f2 f4 f8 <-> f16 f32 f64
// Big-endian, complex, structured and object dtypes are rejected.
#ifndef STRATA_TOOLS_COMMON_NPY_H_
#define STRATA_TOOLS_COMMON_NPY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "host_tensor.h"

namespace strata::tools {

// Parses a whole .npy file image. On failure returns false and sets *error
// to one phrase naming the problem: "not a .npy file (bad magic ...)",
// "unsupported dtype '<c8'", "fortran_order arrays are not supported ...",
// "truncated: expected 24 bytes of data, found 12", "malformed header: ...".
bool parseNpy(const uint8_t* data, size_t size, HostTensor* out,
              std::string* error);

// Whether data (the first bytes of a file, at least 6 when the file has
// them) starts with the .npy magic; sets *error as parseNpy does when not.
// Lets readers refuse a wrong file before reading all of it.
bool checkNpyMagic(const uint8_t* data, size_t size, std::string* error);

// The descr of an element type ("<f4", "|b1"); empty when .npy has none.
std::string npyDescr(strata_hal_element_type_t element_type);

// Serializes tensor as a version 1.0 file (2.0 when the header needs it),
// header padded so the data starts 64-byte aligned. Returns false and sets
// *error when the element type has no dtype.
bool writeNpy(const HostTensor& tensor, std::vector<uint8_t>* out,
              std::string* error);

}  // namespace strata::tools

#endif  // STRATA_TOOLS_COMMON_NPY_H_
