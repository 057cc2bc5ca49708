// signature.cpp - calling convention strings as the loader keeps them,
// parsed by the one public parser (schemas/calling_convention.h).
#include <string>

#include "bytecode_module.h"
#include "calling_convention.h"

namespace strata::vm {

strata_status_t parseSignature(std::string_view text, bool allow_variadic,
                               Signature* out) {
  *out = Signature{};
  out->text = text;
  cconv::Parsed parsed;
  cconv::Error error;
  if (!cconv::parse(text, allow_variadic, &parsed, &error)) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "malformed calling convention '%.*s' at "
                              "character %zu: %s",
                              static_cast<int>(text.size()), text.data(),
                              error.at, error.why);
  }
  out->args = std::string(parsed.args);
  out->results = std::string(parsed.results);
  out->variadic = parsed.variadic;
  out->span_count = parsed.span_count;
  out->arg_prim_count = parsed.arg_prim_count;
  out->arg_ref_count = parsed.arg_ref_count;
  out->result_prim_count = parsed.result_prim_count;
  out->result_ref_count = parsed.result_ref_count;
  return nullptr;
}

}  // namespace strata::vm
