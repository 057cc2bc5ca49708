// tensor_fuzzer.cpp - libFuzzer target for the tools' tensor readers
// (tools/common): the first byte picks .npy (parseNpy) or tensor text
// (parseTensorText, "2x3xf32=1 2 3 4 5 6"); the rest is the input. Every
// refusal says why, and a .npy that parses must write back (writeNpy) and
// read again to the same tensor.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "npy.h"
#include "tensor_io.h"

namespace {

using strata::tools::HostTensor;

bool same(const HostTensor& a, const HostTensor& b) {
  return a.element_type == b.element_type && a.shape == b.shape &&
         a.data == b.data;
}

// Tensor text may ask for up to 1 GiB (one value fills every element); a
// fuzzer that allocated that per input would crawl. Shapes whose dimensions
// (every run of digits before the '=') multiply to more than 2^20 elements
// are skipped here (many small dimensions add up: 2x222x2x2x22x22x22x22
// is 0.8 GiB); tensor_io_test covers the limit.
bool smallEnough(std::string_view text) {
  size_t eq = text.find('=');
  std::string_view shape = text.substr(0, eq);
  constexpr uint64_t kMaxElements = uint64_t{1} << 20;
  uint64_t elements = 1;
  uint64_t dim = 0;
  bool in_digits = false;
  for (size_t i = 0; i <= shape.size(); ++i) {
    char c = i < shape.size() ? shape[i] : 'x';
    if (c >= '0' && c <= '9') {
      dim = dim * 10 + static_cast<uint64_t>(c - '0');
      if (dim > kMaxElements) return false;
      in_digits = true;
      continue;
    }
    if (in_digits) {
      elements *= dim ? dim : 1;
      if (elements > kMaxElements) return false;
    }
    dim = 0;
    in_digits = false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t* body = data + 1;
  size_t length = size - 1;
  HostTensor tensor;
  std::string error;
  if (data[0] & 1) {
    if (!strata::tools::parseNpy(body, length, &tensor, &error)) {
      if (error.empty()) __builtin_trap();  // every refusal says why
      return 0;
    }
    std::vector<uint8_t> written;
    if (!strata::tools::writeNpy(tensor, &written, &error)) return 0;
    HostTensor again;
    if (!strata::tools::parseNpy(written.data(), written.size(), &again,
                                 &error) ||
        !same(tensor, again)) {
      __builtin_trap();  // what was read must round-trip
    }
    return 0;
  }
  std::string_view text(reinterpret_cast<const char*>(body), length);
  if (!smallEnough(text)) return 0;
  if (!strata::tools::parseTensorText(text, &tensor, &error)) {
    if (error.empty()) __builtin_trap();
    return 0;
  }
  return 0;
}
