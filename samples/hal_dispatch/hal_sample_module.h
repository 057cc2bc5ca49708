// hal_sample_module.h - builds hal_sample.vmfb, a bytecode module that adds
// two f32 tensors with the sample add_f32 kernel through the hal module.
#ifndef STRATA_SAMPLES_HAL_DISPATCH_HAL_SAMPLE_MODULE_H_
#define STRATA_SAMPLES_HAL_DISPATCH_HAL_SAMPLE_MODULE_H_

#include <cstdint>
#include <vector>

namespace strata::samples {

/// The bytes of module "hal_sample" (depends on hal >= 1). kernels is the
/// shared object samples/executable_library builds (sample_kernels.so); it is
/// embedded as rodata and loaded once per context, from memory, by the
/// module's initializer. Exports:
///
///   add(%a: hal.buffer_view, %b: hal.buffer_view) -> hal.buffer_view  0rr_r
///       a + b element-wise for f32 tensors of rank 0 to 4 and any shape; b
///       must have a's shape. Dispatches add_f32 over ceil(N / 64)
///       workgroups with the element count N as its constant, on device 0,
///       waits for it and returns a new view of a's shape. Mismatches fail
///       with "input 1: expected tensor<2x3xf32>, got tensor<3x2xf32>".
///
///   add$async(%a, %b, %wait: hal.fence?, %signal: hal.fence)
///       -> hal.buffer_view                                     0rrrr_r
///       The async-external entry point of add (the contract the embedding
///       API's strata_runtime_call_invoke_async uses): the same checks and
///       dispatch, submitted to wait for %wait (null: nothing to wait for)
///       and signal %signal; returns the result view at once, without
///       waiting. Its contents are ready when %signal is reached; a failed
///       %wait or dispatch fails %signal.
///
/// With a signing_key (an Ed25519 secret key, 64 bytes), the module is
/// signed (docs/security.md); empty bytes come back when signing fails.
std::vector<uint8_t> buildHalSampleModule(
    const std::vector<uint8_t>& kernels,
    const std::vector<uint8_t>& signing_key = {});

}  // namespace strata::samples

#endif  // STRATA_SAMPLES_HAL_DISPATCH_HAL_SAMPLE_MODULE_H_
