// signature.cpp - calling convention strings as the loader keeps them,
// parsed by the one public parser (schemas/calling_convention.h).
#include "bytecode_module.h"
#include "calling_convention.h"

namespace strata::vm {

strata_status_t parseSignature(std::string_view text, bool allow_variadic,
                               Signature* out) {
  cconv::Error error;
  if (!cconv::parse(text, allow_variadic, out, &error)) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "malformed calling convention '%.*s' at "
                              "character %zu: %s",
                              static_cast<int>(text.size()), text.data(),
                              error.at, error.why);
  }
  return nullptr;
}

}  // namespace strata::vm
