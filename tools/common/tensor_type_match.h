// tensor_type_match.h - does a tensor's type ("2x3xui8") fit an export's
// recorded argument type ("?x3xi8")? Shared by strata-run and the Python
// package, header-only so the Python extension needs only the C API.

#ifndef STRATA_TOOLS_COMMON_TENSOR_TYPE_MATCH_H_
#define STRATA_TOOLS_COMMON_TENSOR_TYPE_MATCH_H_

#include <string>

namespace strata::tools {

/// Whether `got` (dims and element type, "2x3xf32") matches `want`, where a
/// dim of '?' in `want` matches any size.
inline bool tensorTypeMatches(const std::string& want,
                              const std::string& got) {
  size_t w = 0;
  size_t g = 0;
  while (w < want.size() && g < got.size()) {
    if (want[w] == '?') {
      // Any dimension: digits up to the next 'x'.
      size_t start = g;
      while (g < got.size() && got[g] >= '0' && got[g] <= '9') {
        ++g;
      }
      if (g == start || g == got.size() || got[g] != 'x') {
        return false;
      }
      ++w;
      continue;
    }
    if (want[w] != got[g]) {
      return false;
    }
    ++w;
    ++g;
  }
  return w == want.size() && g == got.size();
}

/// Whether unsigned data `got` ("4xui8") fits a signless integer argument
/// `want` ("4xi8") of its width: ONNX's unsigned tensors compile to signless
/// ones, and their data is passed as it is.
inline bool unsignedFitsSignless(const std::string& want,
                                 const std::string& got) {
  size_t at = got.rfind("ui");
  if (at == std::string::npos || (at != 0 && got[at - 1] != 'x')) {
    return false;
  }
  std::string signless = got;
  signless.erase(at, 1);
  return tensorTypeMatches(want, signless);
}

}  // namespace strata::tools

#endif  // STRATA_TOOLS_COMMON_TENSOR_TYPE_MATCH_H_
