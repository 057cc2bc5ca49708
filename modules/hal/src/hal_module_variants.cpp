// hal_module_variants.cpp - hal.executable.create_first: the first of a
// multi-ISA module's kernel libraries (one per CPU variant, best first)
// that this host can run (schemas/hal_imports.def).
#include <string>

#include "hal_module_impl.h"

namespace strata::hal {

strata_status_t HalState::executableCreateFirst(
    const NativeCall& call, strata_hal_device_t* device,
    Variadic<strata_vm_buffer_t*, strata_vm_buffer_t*> candidates,
    Ref<strata_hal_executable_t>* out) {
  if (candidates.empty()) {
    return call.fail(STRATA_STATUS_INVALID_ARGUMENT,
                     "no candidate libraries; give at least one (format, "
                     "library) pair");
  }
  // A library this host cannot run (CPU features, another architecture)
  // fails with FAILED_PRECONDITION: try the next one. Any other error is a
  // bad library and fails the call.
  std::string skipped;
  for (size_t i = 0; i < candidates.size(); ++i) {
    strata_status_t status = executableCreate(
        call, device, candidates.get<0>(i), candidates.get<1>(i), out);
    if (!status) {
      return nullptr;
    }
    if (strata_status_code(status) != STRATA_STATUS_FAILED_PRECONDITION) {
      return status;
    }
    skipped += "; candidate " + std::to_string(i) + ": " +
               strata_status_message(status);
    strata_status_free(status);
  }
  return call.fail(STRATA_STATUS_FAILED_PRECONDITION,
                   "none of the %zu kernel libraries runs on this host%s",
                   candidates.size(), skipped.c_str());
}

}  // namespace strata::hal
