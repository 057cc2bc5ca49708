// hal_module_commands.cpp - the hal module's executable, command_buffer and
// device.queue exports (documented in the table at the top of
// hal_module.cpp).
#include <cstring>

#include "executable_impl.h"
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

bool textEquals(const uint8_t* data, size_t length, const char* text) {
  return length == std::strlen(text) && std::memcmp(data, text, length) == 0;
}

// An i32 workgroup count or mode that must not be negative.
strata_status_t count32(const Call& call, size_t slot, const char* what,
                        uint32_t* out) {
  int32_t value = call.i32(slot);
  if (value < 0) {
    return call.fail(STRATA_STATUS_INVALID_ARGUMENT,
                     "argument %zu (%s) is %d; it must not be negative", slot,
                     what, value);
  }
  *out = static_cast<uint32_t>(value);
  return nullptr;
}

// Loads the library registered under the name in `name` (a vm.buffer).
strata_status_t loadStatic(const Call& call, const uint8_t* name, size_t length,
                           strata_allocator_t allocator,
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

// The wait and signal fences of a queue operation (slots 1 and 2).
struct QueueFences {
  strata_hal_fence_t* wait = nullptr;
  strata_hal_fence_t* signal = nullptr;
};
strata_status_t queueArgs(const Call& call, strata_hal_device_t** device,
                          QueueFences* fences) {
  STRATA_RETURN_IF_ERROR(call.ref(0, "device", device));
  STRATA_RETURN_IF_ERROR(call.nullableRef(1, "wait fence", &fences->wait));
  return call.nullableRef(2, "signal fence", &fences->signal);
}

}  // namespace

strata_status_t executableCreate(const Call& call) {
  strata_hal_device_t* device = nullptr;
  strata_vm_buffer_t* format = nullptr;
  strata_vm_buffer_t* library = nullptr;
  STRATA_RETURN_IF_ERROR(call.ref(0, "device", &device));
  STRATA_RETURN_IF_ERROR(call.ref(1, "format", &format));
  STRATA_RETURN_IF_ERROR(call.ref(2, "library", &library));
  const uint8_t* format_text = strata_vm_buffer_data(format);
  size_t format_length = strata_vm_buffer_length(format);
  const uint8_t* bytes = strata_vm_buffer_data(library);
  size_t size = strata_vm_buffer_length(library);
  strata_allocator_t allocator = strata_hal_device_allocator(device);

  strata_hal_executable_t* executable = nullptr;
  if (textEquals(format_text, format_length, kHostElfFormat)) {
    STRATA_RETURN_IF_ERROR(strata_hal_executable_load_memory(
        bytes, size, kHostElfFormat, allocator, &executable));
  } else if (textEquals(format_text, format_length, kStaticFormat)) {
    STRATA_RETURN_IF_ERROR(
        loadStatic(call, bytes, size, allocator, &executable));
  } else {
    size_t prefix = std::strlen(kElfPrefix);
    bool elf = format_length > prefix &&
               std::memcmp(format_text, kElfPrefix, prefix) == 0;
    int shown = static_cast<int>(format_length > 64 ? 64 : format_length);
    return call.fail(
        elf ? STRATA_STATUS_FAILED_PRECONDITION
            : STRATA_STATUS_INVALID_ARGUMENT,
        "executable format '%.*s' %s; this runtime loads '%s' and 'static'",
        shown, reinterpret_cast<const char*>(format_text),
        elf ? "is for another architecture" : "is unknown", kHostElfFormat);
  }
  // Kernels see how many workers the device runs them on.
  setWorkerCount(executable, strata_hal_device_worker_count(device));
  call.setRef(0, strata_hal_executable_as_ref(executable));
  return nullptr;
}

strata_status_t commandBufferCreate(const Call& call) {
  strata_hal_device_t* device = nullptr;
  STRATA_RETURN_IF_ERROR(call.ref(0, "device", &device));
  int32_t mode = call.i32(1);
  if (mode != STRATA_HAL_COMMAND_BUFFER_MODE_ONE_SHOT &&
      mode != STRATA_HAL_COMMAND_BUFFER_MODE_REUSABLE) {
    return call.fail(STRATA_STATUS_INVALID_ARGUMENT,
                     "argument 1 (mode) is %d; it must be 1 (one-shot) or 2 "
                     "(reusable)",
                     mode);
  }
  strata_hal_command_buffer_t* command_buffer = nullptr;
  STRATA_RETURN_IF_ERROR(strata_hal_command_buffer_create(
      static_cast<strata_hal_command_buffer_mode_t>(mode),
      strata_hal_device_allocator(device), &command_buffer));
  call.setRef(0, strata_hal_command_buffer_as_ref(command_buffer));
  return nullptr;
}

strata_status_t commandBufferFinalize(const Call& call) {
  strata_hal_command_buffer_t* command_buffer = nullptr;
  STRATA_RETURN_IF_ERROR(call.ref(0, "command buffer", &command_buffer));
  return strata_hal_command_buffer_finalize(command_buffer);
}

// Arguments: 0 cb, 1 executable, 2 ordinal, 3-5 workgroup counts, 6 the
// constant count n, 7.. the constants, 7+n the binding count, then
// (buffer, offset, length) per binding.
strata_status_t commandBufferDispatch(const Call& call) {
  strata_hal_command_buffer_t* command_buffer = nullptr;
  strata_hal_executable_t* executable = nullptr;
  STRATA_RETURN_IF_ERROR(call.ref(0, "command buffer", &command_buffer));
  STRATA_RETURN_IF_ERROR(call.ref(1, "executable", &executable));
  uint32_t ordinal = 0;
  uint32_t workgroups[3] = {0, 0, 0};
  STRATA_RETURN_IF_ERROR(count32(call, 2, "export ordinal", &ordinal));
  STRATA_RETURN_IF_ERROR(count32(call, 3, "workgroup count x", &workgroups[0]));
  STRATA_RETURN_IF_ERROR(count32(call, 4, "workgroup count y", &workgroups[1]));
  STRATA_RETURN_IF_ERROR(count32(call, 5, "workgroup count z", &workgroups[2]));

  size_t constant_count = call.spanCount(6);
  size_t binding_slot = 7 + constant_count;
  size_t binding_count = call.spanCount(binding_slot);
  if (constant_count > kMaxDispatchConstants ||
      binding_count > kMaxDispatchBindings) {
    return call.fail(STRATA_STATUS_OUT_OF_RANGE,
                     "%zu constants and %zu bindings exceed the limits of %zu "
                     "and %zu",
                     constant_count, binding_count, kMaxDispatchConstants,
                     kMaxDispatchBindings);
  }
  uint32_t constants[kMaxDispatchConstants];
  for (size_t i = 0; i < constant_count; ++i) {
    constants[i] = static_cast<uint32_t>(call.i32(7 + i));
  }
  strata_hal_buffer_binding_t bindings[kMaxDispatchBindings];
  for (size_t i = 0; i < binding_count; ++i) {
    size_t slot = binding_slot + 1 + 3 * i;
    STRATA_RETURN_IF_ERROR(
        call.ref(slot, "binding buffer", &bindings[i].buffer));
    int64_t offset = call.i64(slot + 1);
    int64_t length = call.i64(slot + 2);
    if (offset < 0 || length < -1) {
      return call.fail(STRATA_STATUS_INVALID_ARGUMENT,
                       "binding %zu has offset %lld and length %lld; the "
                       "offset must not be negative and the length must be "
                       "-1 (to the end) or more",
                       i, static_cast<long long>(offset),
                       static_cast<long long>(length));
    }
    bindings[i].offset = static_cast<uint64_t>(offset);
    bindings[i].length = static_cast<uint64_t>(length);  // -1: UINT64_MAX
  }
  return strata_hal_command_buffer_dispatch(
      command_buffer, executable, ordinal, workgroups, constants,
      constant_count, bindings, binding_count);
}

strata_status_t commandBufferFillBuffer(const Call& call) {
  strata_hal_command_buffer_t* command_buffer = nullptr;
  strata_hal_buffer_t* target = nullptr;
  uint64_t offset = 0;
  uint64_t length = 0;
  STRATA_RETURN_IF_ERROR(call.ref(0, "command buffer", &command_buffer));
  STRATA_RETURN_IF_ERROR(call.ref(1, "target", &target));
  STRATA_RETURN_IF_ERROR(call.size(2, "offset", &offset));
  STRATA_RETURN_IF_ERROR(call.size(3, "length", &length));
  int32_t pattern_size = call.i32(5);
  if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4) {
    return call.fail(STRATA_STATUS_INVALID_ARGUMENT,
                     "argument 5 (pattern size) is %d; it must be 1, 2 or 4",
                     pattern_size);
  }
  return strata_hal_command_buffer_fill(command_buffer, target, offset, length,
                                        static_cast<uint32_t>(call.i32(4)),
                                        static_cast<size_t>(pattern_size));
}

strata_status_t commandBufferCopyBuffer(const Call& call) {
  strata_hal_command_buffer_t* command_buffer = nullptr;
  strata_hal_buffer_t* source = nullptr;
  strata_hal_buffer_t* target = nullptr;
  uint64_t source_offset = 0;
  uint64_t target_offset = 0;
  uint64_t length = 0;
  STRATA_RETURN_IF_ERROR(call.ref(0, "command buffer", &command_buffer));
  STRATA_RETURN_IF_ERROR(call.ref(1, "source", &source));
  STRATA_RETURN_IF_ERROR(call.size(2, "source offset", &source_offset));
  STRATA_RETURN_IF_ERROR(call.ref(3, "target", &target));
  STRATA_RETURN_IF_ERROR(call.size(4, "target offset", &target_offset));
  STRATA_RETURN_IF_ERROR(call.size(5, "length", &length));
  return strata_hal_command_buffer_copy(command_buffer, source, source_offset,
                                        target, target_offset, length);
}

strata_status_t commandBufferExecutionBarrier(const Call& call) {
  strata_hal_command_buffer_t* command_buffer = nullptr;
  STRATA_RETURN_IF_ERROR(call.ref(0, "command buffer", &command_buffer));
  return strata_hal_command_buffer_barrier(command_buffer);
}

strata_status_t deviceQueueAlloca(const Call& call) {
  strata_hal_device_t* device = nullptr;
  QueueFences fences;
  uint64_t length = 0;
  STRATA_RETURN_IF_ERROR(queueArgs(call, &device, &fences));
  STRATA_RETURN_IF_ERROR(call.size(3, "length", &length));
  strata_hal_buffer_t* buffer = nullptr;
  STRATA_RETURN_IF_ERROR(strata_hal_device_queue_alloca(
      device, fences.wait, fences.signal, length, &buffer));
  call.setRef(0, strata_hal_buffer_as_ref(buffer));
  return nullptr;
}

strata_status_t deviceQueueDealloca(const Call& call) {
  strata_hal_device_t* device = nullptr;
  QueueFences fences;
  strata_hal_buffer_t* buffer = nullptr;
  STRATA_RETURN_IF_ERROR(queueArgs(call, &device, &fences));
  STRATA_RETURN_IF_ERROR(call.ref(3, "buffer", &buffer));
  return strata_hal_device_queue_dealloca(device, fences.wait, fences.signal,
                                          buffer);
}

strata_status_t deviceQueueExecute(const Call& call) {
  strata_hal_device_t* device = nullptr;
  QueueFences fences;
  STRATA_RETURN_IF_ERROR(queueArgs(call, &device, &fences));
  strata_hal_command_buffer_t* command_buffers[kMaxSpanRefs];
  size_t count = 0;
  STRATA_RETURN_IF_ERROR(gatherSpan(call, 4, call.spanCount(3),
                                    "command buffers", /*skip_null=*/false,
                                    command_buffers, &count));
  return strata_hal_device_queue_execute(device, fences.wait, fences.signal,
                                         command_buffers, count);
}

strata_status_t deviceQueueBarrier(const Call& call) {
  strata_hal_device_t* device = nullptr;
  QueueFences fences;
  STRATA_RETURN_IF_ERROR(queueArgs(call, &device, &fences));
  return strata_hal_device_queue_barrier(device, fences.wait, fences.signal);
}

}  // namespace strata::hal
