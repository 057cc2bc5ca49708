// hal_module_commands.cpp - the hal module's executable, command_buffer and
// device.queue exports (documented in the table at the top of
// hal_module.cpp).
#include <cstring>

#include "hal_module_impl.h"

namespace strata::hal {
namespace {

#if defined(__x86_64__)
constexpr const char* kHostElfFormat = "embedded-elf-x86_64";
#elif defined(__aarch64__)
constexpr const char* kHostElfFormat = "embedded-elf-aarch64";
#else
constexpr const char* kHostElfFormat = "embedded-elf-unknown";
#endif
constexpr const char* kElfPrefix = "embedded-elf-";
constexpr const char* kStaticFormat = "static";
constexpr const char* kPortableFormat = "portable-bytecode-v1";

bool textEquals(const uint8_t* data, size_t length, const char* text) {
  return length == std::strlen(text) && std::memcmp(data, text, length) == 0;
}

// Loads the library registered under the name in `name` (a vm.buffer).
strata_status_t loadStatic(const NativeCall& call, const uint8_t* name,
                           size_t length, strata_allocator_t allocator,
                           strata_hal_executable_t** out) {
  char copy[256];
  if (length >= sizeof(copy) || std::memchr(name, 0, length)) {
    return call.fail(STRATA_STATUS_INVALID_ARGUMENT,
                     "a static library name must be text shorter than %zu "
                     "bytes; got %zu bytes",
                     sizeof(copy), length);
  }
  std::memcpy(copy, name, length);
  copy[length] = '\0';
  return strata_hal_executable_load_static(copy, allocator, out);
}

}  // namespace

strata_status_t HalState::executableCreate(const NativeCall& call,
                                           strata_hal_device_t* device,
                                           strata_vm_buffer_t* format,
                                           strata_vm_buffer_t* library,
                                           Ref<strata_hal_executable_t>* out) {
  const uint8_t* format_text = strata_vm_buffer_data(format);
  size_t format_length = strata_vm_buffer_length(format);
  const uint8_t* bytes = strata_vm_buffer_data(library);
  size_t size = strata_vm_buffer_length(library);
  strata_allocator_t device_allocator = strata_hal_device_allocator(device);

  Ref<strata_hal_executable_t> executable;
  bool portable = textEquals(format_text, format_length, kPortableFormat);
  if (!portable && no_native_kernels) {
    int shown = static_cast<int>(format_length > 64 ? 64 : format_length);
    return call.fail(STRATA_STATUS_PERMISSION_DENIED,
                     "executable format '%.*s' is native code, which the "
                     "policy refuses (no native kernels); only '%s' loads",
                     shown, reinterpret_cast<const char*>(format_text),
                     kPortableFormat);
  }
  if (portable) {
    STRATA_RETURN_IF_ERROR(strata_hal_executable_load_portable(
        bytes, size, kPortableFormat, device_allocator, executable.out()));
  } else if (textEquals(format_text, format_length, kHostElfFormat)) {
    STRATA_RETURN_IF_ERROR(strata_hal_executable_load_memory(
        bytes, size, kHostElfFormat, device_allocator, executable.out()));
  } else if (textEquals(format_text, format_length, kStaticFormat)) {
    STRATA_RETURN_IF_ERROR(
        loadStatic(call, bytes, size, device_allocator, executable.out()));
  } else {
    size_t prefix = std::strlen(kElfPrefix);
    bool elf = format_length > prefix &&
               std::memcmp(format_text, kElfPrefix, prefix) == 0;
    int shown = static_cast<int>(format_length > 64 ? 64 : format_length);
    return call.fail(
        elf ? STRATA_STATUS_FAILED_PRECONDITION
            : STRATA_STATUS_INVALID_ARGUMENT,
        "executable format '%.*s' %s; this runtime loads '%s', 'static' and "
        "'%s'",
        shown, reinterpret_cast<const char*>(format_text),
        elf ? "is for another architecture" : "is unknown", kHostElfFormat,
        kPortableFormat);
  }
  // Kernels see how many workers the device runs them on.
  strata_hal_executable_set_worker_count(
      executable.get(), strata_hal_device_worker_count(device));
  *out = std::move(executable);
  return nullptr;
}

strata_status_t HalState::commandBufferCreate(
    const NativeCall& call, strata_hal_device_t* device, int32_t mode,
    int32_t /*categories*/, Ref<strata_hal_command_buffer_t>* out) {
  if (mode != STRATA_HAL_COMMAND_BUFFER_MODE_ONE_SHOT &&
      mode != STRATA_HAL_COMMAND_BUFFER_MODE_REUSABLE) {
    return call.fail(STRATA_STATUS_INVALID_ARGUMENT,
                     "argument 1 (mode) is %d; it must be 1 (one-shot) or 2 "
                     "(reusable)",
                     mode);
  }
  return strata_hal_command_buffer_create(
      static_cast<strata_hal_command_buffer_mode_t>(mode),
      strata_hal_device_allocator(device), out->out());
}

strata_status_t HalState::commandBufferFinalize(
    strata_hal_command_buffer_t* command_buffer) {
  return strata_hal_command_buffer_finalize(command_buffer);
}

strata_status_t HalState::commandBufferDispatch(
    const NativeCall& call, strata_hal_command_buffer_t* command_buffer,
    strata_hal_executable_t* executable, Count ordinal, Count x, Count y,
    Count z, Variadic<int32_t> constant_span,
    Variadic<strata_hal_buffer_t*, int64_t, int64_t> binding_span) {
  size_t constant_count = constant_span.size();
  size_t binding_count = binding_span.size();
  if (constant_count > kMaxDispatchConstants ||
      binding_count > kMaxDispatchBindings) {
    return call.fail(STRATA_STATUS_OUT_OF_RANGE,
                     "%zu constants and %zu bindings exceed the limits of %zu "
                     "and %zu",
                     constant_count, binding_count, kMaxDispatchConstants,
                     kMaxDispatchBindings);
  }
  uint32_t workgroups[3] = {x, y, z};
  uint32_t constants[kMaxDispatchConstants];
  for (size_t i = 0; i < constant_count; ++i) {
    constants[i] = static_cast<uint32_t>(constant_span[i]);
  }
  strata_hal_buffer_binding_t bindings[kMaxDispatchBindings];
  for (size_t i = 0; i < binding_count; ++i) {
    int64_t offset = binding_span.get<1>(i);
    int64_t length = binding_span.get<2>(i);
    if (offset < 0 || length < -1) {
      return call.fail(STRATA_STATUS_INVALID_ARGUMENT,
                       "binding %zu has offset %lld and length %lld; the "
                       "offset must not be negative and the length must be "
                       "-1 (to the end) or more",
                       i, static_cast<long long>(offset),
                       static_cast<long long>(length));
    }
    bindings[i].buffer = binding_span.get<0>(i);
    bindings[i].offset = static_cast<uint64_t>(offset);
    bindings[i].length = static_cast<uint64_t>(length);  // -1: UINT64_MAX
  }
  return strata_hal_command_buffer_dispatch(
      command_buffer, executable, ordinal, workgroups, constants,
      constant_count, bindings, binding_count);
}

strata_status_t HalState::commandBufferFillBuffer(
    const NativeCall& call, strata_hal_command_buffer_t* command_buffer,
    strata_hal_buffer_t* target, Size offset, Size length, int32_t pattern,
    int32_t pattern_size) {
  if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4) {
    return call.fail(STRATA_STATUS_INVALID_ARGUMENT,
                     "argument 5 (pattern size) is %d; it must be 1, 2 or 4",
                     pattern_size);
  }
  return strata_hal_command_buffer_fill(command_buffer, target, offset, length,
                                        static_cast<uint32_t>(pattern),
                                        static_cast<size_t>(pattern_size));
}

strata_status_t HalState::commandBufferCopyBuffer(
    strata_hal_command_buffer_t* command_buffer, strata_hal_buffer_t* source,
    Size source_offset, strata_hal_buffer_t* target, Size target_offset,
    Size length) {
  return strata_hal_command_buffer_copy(command_buffer, source, source_offset,
                                        target, target_offset, length);
}

strata_status_t HalState::commandBufferExecutionBarrier(
    strata_hal_command_buffer_t* command_buffer) {
  return strata_hal_command_buffer_barrier(command_buffer);
}

strata_status_t HalState::deviceQueueAlloca(strata_hal_device_t* device,
                                            Nullable<strata_hal_fence_t> wait,
                                            Nullable<strata_hal_fence_t> signal,
                                            Size length,
                                            Ref<strata_hal_buffer_t>* out) {
  return strata_hal_device_queue_alloca(device, wait.get(), signal.get(),
                                        length, out->out());
}

strata_status_t HalState::deviceQueueDealloca(
    strata_hal_device_t* device, Nullable<strata_hal_fence_t> wait,
    Nullable<strata_hal_fence_t> signal, strata_hal_buffer_t* buffer) {
  return strata_hal_device_queue_dealloca(device, wait.get(), signal.get(),
                                          buffer);
}

strata_status_t HalState::deviceQueueExecute(
    const NativeCall& call, strata_hal_device_t* device,
    Nullable<strata_hal_fence_t> wait, Nullable<strata_hal_fence_t> signal,
    Variadic<strata_hal_command_buffer_t*> span) {
  strata_hal_command_buffer_t* command_buffers[kMaxSpanRefs];
  size_t count = 0;
  STRATA_RETURN_IF_ERROR(
      gatherSpan(call, span, "command buffers", command_buffers, &count));
  return strata_hal_device_queue_execute(device, wait.get(), signal.get(),
                                         command_buffers, count);
}

strata_status_t HalState::deviceQueueBarrier(
    strata_hal_device_t* device, Nullable<strata_hal_fence_t> wait,
    Nullable<strata_hal_fence_t> signal) {
  return strata_hal_device_queue_barrier(device, wait.get(), signal.get());
}

}  // namespace strata::hal
