// custom_module.h - the "custom" native module of the sample: a per-context
// counter and a function that reverses a vm.buffer into a new one.
#ifndef STRATA_SAMPLES_CUSTOM_MODULE_CUSTOM_MODULE_H_
#define STRATA_SAMPLES_CUSTOM_MODULE_CUSTOM_MODULE_H_

#include "strata/vm/vm.h"

/// Creates the "custom" module (version 1). Exports:
///   custom.add(i32) -> i32        adds to this context's counter, returns it
///   custom.reverse(ref) -> ref    a new vm.buffer with the bytes reversed
/// The caller owns the returned module reference.
strata_status_t custom_module_create(strata_allocator_t allocator,
                                     strata_vm_module_t** out_module);

#endif  // STRATA_SAMPLES_CUSTOM_MODULE_CUSTOM_MODULE_H_
