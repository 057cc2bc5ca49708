// signature.cpp - parsing and validating calling convention strings.
#include <string>

#include "bytecode_module.h"
#include "format.h"

namespace strata::vm {

namespace {

bool isValueChar(char c) {
  return c == 'i' || c == 'I' || c == 'f' || c == 'F' || c == 'r';
}

strata_status_t bad(std::string_view text, size_t at, const char* why) {
  return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                            "malformed calling convention '%.*s' at "
                            "character %zu: %s",
                            static_cast<int>(text.size()), text.data(), at,
                            why);
}

}  // namespace

strata_status_t parseSignature(std::string_view text, bool allow_variadic,
                               Signature* out) {
  *out = Signature{};
  out->text = text;
  if (text.size() > STRATA_MAX_CALLING_CONVENTION) {
    return bad(text, 0, "too long");
  }
  if (text.empty() || text[0] != '0') {
    return bad(text, 0, "expected version '0'");
  }
  size_t i = 1;
  bool in_span = false;
  size_t span_start = 0;
  for (; i < text.size() && text[i] != '_'; ++i) {
    char c = text[i];
    if (c == 'C') {
      if (!allow_variadic) {
        return bad(text, i, "variadic spans are only allowed on imports");
      }
      if (in_span) {
        return bad(text, i, "variadic spans cannot nest");
      }
      in_span = true;
      span_start = i;
      out->args.push_back(c);
      continue;
    }
    if (c == 'D') {
      if (!in_span) {
        return bad(text, i, "'D' without an opening 'C'");
      }
      if (i == span_start + 1) {
        return bad(text, i, "empty variadic span");
      }
      in_span = false;
      out->variadic = true;
      ++out->span_count;
      out->args.push_back(c);
      continue;
    }
    if (!isValueChar(c)) {
      return bad(text, i, "expected one of i I f F r C D _");
    }
    out->args.push_back(c);
    if (!in_span) {
      (c == 'r' ? out->arg_ref_count : out->arg_prim_count)++;
    }
  }
  if (in_span) {
    return bad(text, i, "unterminated variadic span");
  }
  if (i >= text.size()) {
    return bad(text, i, "missing '_' between arguments and results");
  }
  for (++i; i < text.size(); ++i) {
    char c = text[i];
    if (!isValueChar(c)) {
      return bad(text, i, "expected a result type (i I f F r)");
    }
    out->results.push_back(c);
    (c == 'r' ? out->result_ref_count : out->result_prim_count)++;
  }
  return nullptr;
}

}  // namespace strata::vm
