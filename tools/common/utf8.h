// utf8.h - UTF-8 validation shared by the tools' text and JSON output.
#ifndef STRATA_TOOLS_COMMON_UTF8_H_
#define STRATA_TOOLS_COMMON_UTF8_H_

#include <cstddef>
#include <string_view>

namespace strata::tools {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is invalid
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
// Requires i < s.size().
size_t utf8SequenceLength(std::string_view s, size_t i);

}  // namespace strata::tools

#endif  // STRATA_TOOLS_COMMON_UTF8_H_
