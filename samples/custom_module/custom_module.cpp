// custom_module.cpp - the sample's native module, written with the C++
// helper: the calling conventions come from the member function signatures.
#include "custom_module.h"

#include "strata/vm/native_module.hpp"

namespace {

using strata::vm::Ref;
using strata::vm::Result;

// One State per context: counters in two contexts never mix.
struct CustomState {
  int32_t counter = 0;

  // "0i_i"
  int32_t add(int32_t amount) {
    counter += amount;
    return counter;
  }

  // "0r_r": the argument is borrowed and checked to be a vm.buffer.
  Result<Ref<strata_vm_buffer_t>> reverse(strata_vm_native_call_t* call,
                                          strata_vm_buffer_t* input) {
    size_t length = strata_vm_buffer_length(input);
    Ref<strata_vm_buffer_t> output;
    strata_status_t status = strata_vm_buffer_create(
        length, 0, strata_vm_native_call_allocator(call), output.out());
    if (status) {
      return status;
    }
    const uint8_t* src = strata_vm_buffer_data(input);
    uint8_t* dst = strata_vm_buffer_data(output.get());
    for (size_t i = 0; i < length; ++i) {
      dst[i] = src[length - 1 - i];
    }
    return output;
  }
};

}  // namespace

strata_status_t custom_module_create(strata_allocator_t allocator,
                                     strata_vm_module_t** out_module) {
  strata::vm::NativeModuleBuilder<CustomState> builder("custom",
                                                       /*version=*/1);
  // Argument names make the builder's errors name the argument:
  // "native function 'custom.reverse': argument 0 (input) must be a
  // vm.buffer, got a vm.list".
  builder.function<&CustomState::add>("add", "amount")
      .function<&CustomState::reverse>("reverse", "input");
  return builder.build(allocator, out_module);
}
