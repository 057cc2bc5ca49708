// tensor_type_match.h - does a tensor's type ("2x3xui8") fit an export's
// recorded argument type ("?x3xi8")? Shared by strata-run and the Python
// package, header-only so the Python extension needs only the C API.

#ifndef STRATA_TOOLS_COMMON_TENSOR_TYPE_MATCH_H_
#define STRATA_TOOLS_COMMON_TENSOR_TYPE_MATCH_H_

#include <string>
#include <utility>

#include "strata/hal/buffer.h"

namespace strata::tools {

/// Whether `got` (dims and element type, "2x3xf32") matches `want`, where a
/// dim of '?' in `want` matches any size.
inline bool tensorTypeMatches(const std::string& want,
                              const std::string& got) {
  if (want.size() > 2 && want[0] == '*' && want[1] == 'x') {
    // Any rank ("*xf32", an ONNX sequence element of unknown shape): the
    // element type after the last dim.
    size_t at = got.rfind('x');
    std::string element = at == std::string::npos ? got : got.substr(at + 1);
    return element == want.substr(2);
  }
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

/// How an export records a list argument or result: "list<E>" (an ONNX
/// sequence: a vm.list of E) or "optional<E>" (a vm.list of 0 elements,
/// None, or 1). E is a tensor type ("?x4xf32"; "*xf32" when the rank is
/// unknown) or again a list or an optional.
struct BoundaryType {
  enum Kind { kTensor, kList, kOptional } kind = kTensor;
  /// The element's recorded type for a list or an optional; the tensor
  /// type itself ("" when nothing is recorded) for a tensor.
  std::string element;
};

inline BoundaryType boundaryType(const std::string& recorded) {
  BoundaryType type;
  type.element = recorded;
  for (auto [prefix, kind] : {std::pair<const char*, BoundaryType::Kind>{
                                  "list<", BoundaryType::kList},
                              {"optional<", BoundaryType::kOptional}}) {
    size_t n = std::char_traits<char>::length(prefix);
    if (recorded.size() > n && recorded.compare(0, n, prefix) == 0 &&
        recorded.back() == '>') {
      type.kind = kind;
      type.element = recorded.substr(n, recorded.size() - n - 1);
    }
  }
  return type;
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

/// Fits a tensor whose type is `got` ("2x3xui8") and element type *type to
/// an argument recorded as `want` ("" takes anything): true when it
/// matches, or when it is unsigned data for a signless integer argument of
/// its width (unsignedFitsSignless). Unsigned data that fits becomes the
/// signless type of its width in *type (the data is passed as it is):
/// programs hold every unsigned tensor signless, also where `want` names
/// the unsigned type (a sequence element, "?xui8"). False when it fits
/// neither.
inline bool fitArgumentType(const std::string& want, const std::string& got,
                            strata_hal_element_type_t* type) {
  if (want.empty()) {
    return true;
  }
  if (tensorTypeMatches(want, got)) {
    // An unsigned type recorded in the signature itself (an element of an
    // ONNX sequence of uint8: "list<?xui8>") is held signless by the
    // program, as every unsigned tensor is: the data goes in as it is.
    if ((*type >> 24) == STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED) {
      *type = STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER,
                                      strata_hal_element_byte_size(*type) * 8);
    }
    return true;
  }
  if (!unsignedFitsSignless(want, got)) {
    return false;
  }
  *type = STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER,
                                  strata_hal_element_byte_size(*type) * 8);
  return true;
}

/// The element type tools present data recorded as `recorded` (a
/// reflection "argN.element_type") with: the unsigned type it names
/// ("ui8"); uint8 for ONNX's float8 types ("f8E4M3FN", "f8E4M3FNUZ",
/// "f8E5M2", "f8E5M2FNUZ": their bit patterns) and uint4 ("ui4": a value
/// a byte); int8 for int4 ("i4"): the table STRATA_RECORDED_ELEMENT_TYPES
/// (schemas/); NONE for anything else.
inline strata_hal_element_type_t recordedPresentationType(
    const std::string& recorded) {
#define STRATA_RECORDED_TYPE_CASE(name, presented) \
  if (recorded == name) {                          \
    return presented;                              \
  }
  STRATA_RECORDED_ELEMENT_TYPES(STRATA_RECORDED_TYPE_CASE)
#undef STRATA_RECORDED_TYPE_CASE
  return strata_hal_element_type_parse(recorded.c_str(), recorded.size());
}

/// The element type a tensor of element type `type` has for the export's
/// reader, given the reflection entry `recorded` ("resultN.element_type",
/// "" when the export has none): the unsigned type it names ("ui8") for a
/// signless integer of its width, whose bytes are the unsigned values
/// (ONNX's uint8 tensors compile to i8 ones); uint8 for ONNX's float8
/// tensors (their bit patterns) and uint4 ones (a value a byte); else
/// `type`.
inline strata_hal_element_type_t recordedElementType(
    strata_hal_element_type_t type, const std::string& recorded) {
  if (recorded.empty()) {
    return type;
  }
  strata_hal_element_type_t named = recordedPresentationType(recorded);
  if ((named >> 24) == STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED &&
      (type >> 24) == STRATA_HAL_NUMERICAL_TYPE_INTEGER &&
      (named & 0xFFu) == (type & 0xFFu)) {
    return named;
  }
  return type;
}

/// The unsigned element type a recorded tensor type names ("?x4xui8" ->
/// "ui8"; a list's element records its type so), else "": what
/// recordedElementType takes for such an element.
inline std::string recordedUnsignedElement(const std::string& want) {
  size_t at = want.rfind('x');
  std::string element = at == std::string::npos ? want : want.substr(at + 1);
  return element.compare(0, 2, "ui") == 0 ? element : std::string();
}

/// Whether `want` (a recorded argument type, "2x3xbf16") has bf16
/// elements: such arguments also take f32 data, rounded (numpy has no
/// bf16), and tools give bf16 results back as f32 where their format has
/// no bf16 (.npy, numpy).
inline bool isBFloatType(const std::string& want) {
  return want.size() >= 4 && want.compare(want.size() - 4, 4, "bf16") == 0 &&
         (want.size() == 4 || want[want.size() - 5] == 'x');
}

}  // namespace strata::tools

#endif  // STRATA_TOOLS_COMMON_TENSOR_TYPE_MATCH_H_
