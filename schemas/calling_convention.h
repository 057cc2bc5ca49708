// calling_convention.h - the one parser of calling convention strings
// (format.h: "0" version, argument chars, "_", result chars, "C...D"
// variadic spans in imports), and the "$async" entry point convention.
//
// Header-only C++17 on format.h alone, so every side uses the same parser:
// the runtime's loader and native modules, the embedding API, the tools, the
// Python package and the compiler (which declares the hal imports from
// hal_imports.def through it). Thread-safe: pure functions.
#ifndef STRATA_SCHEMAS_CALLING_CONVENTION_H_
#define STRATA_SCHEMAS_CALLING_CONVENTION_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "format.h"

namespace strata::cconv {

// i i32, I i64, f f32, F f64, r ref.
constexpr bool isValueChar(char c) {
  return c == 'i' || c == 'I' || c == 'f' || c == 'F' || c == 'r';
}

// A parsed calling convention. The views point into the parsed text.
struct Parsed {
  std::string_view text;
  std::string_view args;     // argument chars as written, spans included
  std::string_view results;  // result chars
  bool variadic = false;     // args holds "C...D" spans (imports only)
  uint16_t span_count = 0;
  // Outside spans: how many arguments/results land in each register bank.
  uint16_t arg_prim_count = 0;
  uint16_t arg_ref_count = 0;
  uint16_t result_prim_count = 0;
  uint16_t result_ref_count = 0;
};

// Why a string is malformed: the character index and a reason.
struct Error {
  size_t at = 0;
  const char* why = nullptr;
};

// Parses and validates `text`. Spans are accepted only when allow_variadic
// (imports). On failure returns false and fills *error.
constexpr bool parse(std::string_view text, bool allow_variadic, Parsed* out,
                     Error* error) {
  *out = Parsed{};
  out->text = text;
  auto fail = [&](size_t at, const char* why) {
    *error = Error{at, why};
    return false;
  };
  if (text.size() > STRATA_MAX_CALLING_CONVENTION) {
    return fail(0, "too long");
  }
  if (text.empty() || text[0] != '0') {
    return fail(0, "expected version '0'");
  }
  size_t i = 1;
  bool in_span = false;
  size_t span_start = 0;
  for (; i < text.size() && text[i] != '_'; ++i) {
    char c = text[i];
    if (c == 'C') {
      if (!allow_variadic) {
        return fail(i, "variadic spans are only allowed on imports");
      }
      if (in_span) {
        return fail(i, "variadic spans cannot nest");
      }
      in_span = true;
      span_start = i;
      continue;
    }
    if (c == 'D') {
      if (!in_span) {
        return fail(i, "'D' without an opening 'C'");
      }
      if (i == span_start + 1) {
        return fail(i, "empty variadic span");
      }
      in_span = false;
      out->variadic = true;
      ++out->span_count;
      continue;
    }
    if (!isValueChar(c)) {
      return fail(i, "expected one of i I f F r C D _");
    }
    if (!in_span) {
      (c == 'r' ? out->arg_ref_count : out->arg_prim_count)++;
    }
  }
  if (in_span) {
    return fail(i, "unterminated variadic span");
  }
  if (i >= text.size()) {
    return fail(i, "missing '_' between arguments and results");
  }
  out->args = text.substr(1, i - 1);
  for (size_t r = i + 1; r < text.size(); ++r) {
    char c = text[r];
    if (!isValueChar(c)) {
      return fail(r, "expected a result type (i I f F r)");
    }
    (c == 'r' ? out->result_ref_count : out->result_prim_count)++;
  }
  out->results = text.substr(i + 1);
  return true;
}

// Parses a convention without spans; false for anything else.
constexpr bool parseFixed(std::string_view text, Parsed* out) {
  Error error;
  return parse(text, /*allow_variadic=*/false, out, &error);
}

// "0" + args + "_" + results.
inline std::string make(std::string_view args, std::string_view results) {
  std::string text = "0";
  text += args;
  text += '_';
  text += results;
  return text;
}

//===------------------------------------------------------------------===//
// The async-external entry point ("$async")
//===------------------------------------------------------------------===//
//
// A module compiled with --async-exports exports, beside each function
// `fn` that takes or returns tensors, "fn$async": fn's arguments, then a wait
// fence (a hal.fence ref, may be null) and a signal fence (a hal.fence ref),
// returning fn's results. It starts fn's work once the wait fence is reached
// and returns as soon as the work is submitted; the results are valid when
// the signal fence is reached, or the fence fails with fn's error. The
// compiler writes it (the stream scheduler); the embedding API, strata-run
// and the Python package find and call it by this convention.

inline constexpr std::string_view kAsyncSuffix = "$async";

// The convention fn$async must have, from fn's.
inline std::string asyncConvention(const Parsed& fn) {
  std::string args(fn.args);
  args += "rr";
  return make(args, fn.results);
}

// Whether `name` is an async entry point ("fn$async", fn not empty).
constexpr bool isAsyncName(std::string_view name) {
  return name.size() > kAsyncSuffix.size() &&
         name.substr(name.size() - kAsyncSuffix.size()) == kAsyncSuffix;
}

}  // namespace strata::cconv

#endif  // STRATA_SCHEMAS_CALLING_CONVENTION_H_
