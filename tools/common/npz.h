// npz.h - reads and writes NumPy .npz archives (a zip of .npy files, as
// numpy.savez writes them) as ordered lists of HostTensors: the tools' form
// of a list value (an ONNX sequence or optional) at a function's boundary.
//
// Only stored (uncompressed) members are read: numpy.savez writes them so;
// numpy.savez_compressed's deflated members are refused with a message
// saying so. Zip64 size and offset fields (numpy forces them) are read.
//
// For tools: uses the STL freely and is thread-compatible.
#ifndef STRATA_TOOLS_COMMON_NPZ_H_
#define STRATA_TOOLS_COMMON_NPZ_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "host_tensor.h"

namespace strata::tools {

// One array of an archive: its member name without ".npy" ("arr_0").
struct NpzArray {
  std::string name;
  HostTensor tensor;
};

// Whether data (a file's first bytes, at least 4 when it has them) starts
// like a zip archive (an .npz); an empty archive starts with its end record.
bool looksLikeNpz(const uint8_t* data, size_t size);

// Parses a whole .npz image into its arrays, in the archive's order (the
// order numpy.savez wrote them: arr_0, arr_1, ... for positional arrays).
// On failure returns false and sets *error to one phrase naming the problem
// and the member: "not a .npz file (no zip end record)", "member 'arr_1.npy'
// is compressed (numpy.savez_compressed); save it with numpy.savez",
// "member 'arr_0.npy': truncated: ...", "member 'arr_2.npy': CRC mismatch".
bool parseNpz(const uint8_t* data, size_t size, std::vector<NpzArray>* out,
              std::string* error);

// Reads the .npz file at path (its first bytes are checked before the rest
// is read) and parses it as parseNpz does; errors name the path where the
// file cannot be read.
bool readNpzFile(const std::string& path, std::vector<NpzArray>* out,
                 std::string* error);

// Serializes tensors as members arr_0.npy, arr_1.npy, ... (stored), which
// numpy.load reads back in order. False with *error when a tensor has no
// .npy dtype or the archive would need zip64 (4 GiB or more).
bool writeNpz(const std::vector<HostTensor>& tensors, std::vector<uint8_t>* out,
              std::string* error);

}  // namespace strata::tools

#endif  // STRATA_TOOLS_COMMON_NPZ_H_
