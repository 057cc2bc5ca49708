// tensor_json.h - the JSON form of tensor elements, shared by the old
// /v1 protocol (model_registry.cpp) and the Open Inference Protocol
// (oip.cpp): one JSON value read into an element's bytes, an element's
// bytes written as JSON, and strings escaped.
//
// Threading: pure functions.
#ifndef STRATA_TOOLS_STRATA_SERVE_TENSOR_JSON_H_
#define STRATA_TOOLS_STRATA_SERVE_TENSOR_JSON_H_

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

#include <simdjson.h>

#include "strata/runtime.h"

namespace strata::service {

/// Reads one JSON number (or boolean) as an element of type and stores its
/// little-endian bytes at out. False with *error saying what is wrong with
/// it ("is out of range for ui8"). siN and uiN take their ranges, signless
/// iN both; i1 true, false, 0 or 1.
bool decodeElement(simdjson::dom::element value, strata_hal_element_type_t type,
                   uint8_t* out, std::string* error);

/// Appends element i of data (element type type) as a JSON number: the
/// shortest text that reads back exactly; null for NaN and infinities.
void appendElementText(std::string* out, const uint8_t* data,
                       strata_hal_element_type_t type, size_t i);

/// Appends text as a JSON string (quoted, escaped; invalid UTF-8 becomes
/// U+FFFD).
void appendJsonString(std::string* out, const std::string& text);

template <typename T>
void appendNumber(std::string* out, T value) {
  char buffer[64];
  std::to_chars_result r =
      std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, r.ptr);
}

template <typename T>
void appendFloat(std::string* out, T value) {
  if (!std::isfinite(value)) {
    out->append("null");  // JSON has no NaN or infinity
    return;
  }
  appendNumber(out, value);
}

}  // namespace strata::service

#endif  // STRATA_TOOLS_STRATA_SERVE_TENSOR_JSON_H_
