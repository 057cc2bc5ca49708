// command_buffer.cpp - hal.command_buffer: records dispatches, fills, copies
// and barriers into a compact arena, resolving and checking every range at
// record time so that execution neither fails on bad input nor allocates.
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <new>

#include "command_buffer_impl.h"
#include "executable_impl.h"

namespace strata::hal {
namespace {

// Arena blocks: a header, then commands. Most command buffers fit in one.
struct ArenaBlock {
  ArenaBlock* next;
  size_t capacity;  // bytes after the header
  size_t used;
};
constexpr size_t kArenaAlignment = 16;
constexpr size_t kArenaBlockHeader =
    (sizeof(ArenaBlock) + kArenaAlignment - 1) & ~(kArenaAlignment - 1);
constexpr size_t kArenaBlockSize = 4096;

}  // namespace
}  // namespace strata::hal

struct strata_hal_command_buffer_t {
  strata_vm_ref_object_t header;  // first: command buffers are ref objects
  strata_allocator_t allocator;   // frees this record and the arena
  strata_hal_command_buffer_mode_t mode;
  bool finalized;
  // ONE_SHOT: set by the first submission.
  std::atomic<bool> submitted;
  strata::hal::ArenaBlock* blocks;  // newest first
  strata::hal::Command* first;
  strata::hal::Command* last;
  size_t command_count;
  // Dispatches with workgroups since the last barrier, and the most in any
  // such run: how many jobs local-task keeps in flight for one submission.
  size_t batch_dispatches;
  size_t max_batch_dispatches;
};

namespace strata::hal {
namespace {

void releaseCommand(const Command* command) {
  switch (command->kind) {
  case CommandKind::kDispatch: {
    auto* dispatch = reinterpret_cast<const DispatchCommand*>(command);
    for (uint32_t i = 0; i < dispatch->state.binding_count; ++i) {
      strata_hal_buffer_release(dispatch->buffers[i]);
    }
    strata_hal_executable_release(dispatch->executable);
    break;
  }
  case CommandKind::kFill:
    strata_hal_buffer_release(
        reinterpret_cast<const FillCommand*>(command)->target);
    break;
  case CommandKind::kCopy: {
    auto* copy = reinterpret_cast<const CopyCommand*>(command);
    strata_hal_buffer_release(copy->source);
    strata_hal_buffer_release(copy->target);
    break;
  }
  case CommandKind::kBarrier:
    break;
  }
}

void destroyCommandBuffer(strata_vm_ref_object_t* object) {
  auto* cb = reinterpret_cast<strata_hal_command_buffer_t*>(object);
  for (const Command* command = cb->first; command; command = command->next) {
    releaseCommand(command);
  }
  strata_allocator_t allocator = cb->allocator;
  ArenaBlock* block = cb->blocks;
  while (block) {
    ArenaBlock* next = block->next;
    strata_allocator_free(allocator, block);
    block = next;
  }
  cb->~strata_hal_command_buffer_t();
  strata_allocator_free(allocator, cb);
}

const strata_vm_ref_type_t kCommandBufferType = {"hal.command_buffer",
                                                 destroyCommandBuffer};

// Zeroed arena space for one command of size bytes (16-byte aligned).
strata_status_t arenaAllocate(strata_hal_command_buffer_t* cb, size_t size,
                              void** out_ptr) {
  *out_ptr = nullptr;
  size = (size + kArenaAlignment - 1) & ~(kArenaAlignment - 1);
  ArenaBlock* block = cb->blocks;
  if (!block || block->capacity - block->used < size) {
    size_t capacity = size > kArenaBlockSize - kArenaBlockHeader
                          ? size
                          : kArenaBlockSize - kArenaBlockHeader;
    void* memory = strata_allocator_alloc(
        cb->allocator, kArenaBlockHeader + capacity, kArenaAlignment);
    if (!memory) {
      return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                "out of memory recording a command of %zu "
                                "bytes",
                                size);
    }
    block = static_cast<ArenaBlock*>(memory);
    block->next = cb->blocks;
    block->capacity = capacity;
    block->used = 0;
    cb->blocks = block;
  }
  uint8_t* ptr = reinterpret_cast<uint8_t*>(block) + kArenaBlockHeader +
                 block->used;
  block->used += size;
  std::memset(ptr, 0, size);
  *out_ptr = ptr;
  return nullptr;
}

void appendCommand(strata_hal_command_buffer_t* cb, Command* command) {
  command->next = nullptr;
  if (cb->last) {
    cb->last->next = command;
  } else {
    cb->first = command;
  }
  cb->last = command;
  ++cb->command_count;
}

strata_status_t checkRecording(const strata_hal_command_buffer_t* cb,
                               const char* what) {
  if (!cb) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "cannot record a %s into a null "
                              "hal.command_buffer",
                              what);
  }
  if (cb->finalized) {
    return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                              "cannot record a %s: the hal.command_buffer is "
                              "finalized",
                              what);
  }
  return nullptr;
}

// Names a command's operand in messages: `literal` ("fill target"), or for
// a null literal "binding <binding> of dispatch '<export_name>'". Formatted
// only when something is wrong with the operand.
struct Operand {
  const char* literal;
  size_t binding;
  const char* export_name;
};

// Why [offset, offset + length) of buffer cannot be resolved (the checks
// resolveRange made failed).
[[gnu::noinline]] strata_status_t rangeError(strata_hal_buffer_t* buffer,
                                            uint64_t offset, uint64_t length,
                                            const Operand& operand) {
  char what[160];
  if (operand.literal) {
    std::snprintf(what, sizeof(what), "%s", operand.literal);
  } else {
    std::snprintf(what, sizeof(what), "binding %zu of dispatch '%s'",
                  operand.binding, operand.export_name);
  }
  if (!buffer) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "%s is a null hal.buffer", what);
  }
  uint64_t buffer_length = strata_hal_buffer_length(buffer);
  if (length == UINT64_MAX && offset > buffer_length) {
    return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                              "%s: offset %" PRIu64
                              " is past the end of a hal.buffer of %" PRIu64
                              " bytes",
                              what, offset, buffer_length);
  }
  if (length == UINT64_MAX) {
    length = buffer_length - offset;
  }
  if (offset > buffer_length || length > buffer_length - offset) {
    return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                              "%s: range of %" PRIu64
                              " bytes at offset %" PRIu64
                              " is out of bounds of a hal.buffer of %" PRIu64
                              " bytes",
                              what, length, offset, buffer_length);
  }
  return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                            "%s: %" PRIu64 " bytes exceed size_t", what,
                            length);
}

// Resolves [offset, offset + length) of buffer for a command; length
// UINT64_MAX means "to the end". The range must fit in size_t. operand
// names it in messages.
strata_status_t resolveRange(strata_hal_buffer_t* buffer, uint64_t offset,
                             uint64_t* length, const Operand& operand,
                             uint8_t** out_ptr) {
  if (buffer) {
    uint64_t buffer_length = strata_hal_buffer_length(buffer);
    uint64_t range = *length == UINT64_MAX && offset <= buffer_length
                         ? buffer_length - offset
                         : *length;
    // Two comparisons, so offset + length never overflows.
    if (offset <= buffer_length && range <= buffer_length - offset &&
        range <= SIZE_MAX) {
      *length = range;
      return strata_hal_buffer_map(buffer, offset, range, out_ptr);
    }
  }
  return rangeError(buffer, offset, *length, operand);
}

}  // namespace

const Command* commandBufferFirst(const strata_hal_command_buffer_t* cb) {
  return cb->first;
}

size_t commandBufferMaxBatchDispatches(const strata_hal_command_buffer_t* cb) {
  return cb->max_batch_dispatches;
}

strata_status_t commandBufferBeginSubmit(strata_hal_command_buffer_t* cb) {
  if (!cb) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "cannot submit a null hal.command_buffer");
  }
  if (!cb->finalized) {
    return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                              "cannot submit a hal.command_buffer that is not "
                              "finalized");
  }
  if (cb->mode == STRATA_HAL_COMMAND_BUFFER_MODE_ONE_SHOT &&
      cb->submitted.exchange(true, std::memory_order_acq_rel)) {
    return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                              "a ONE_SHOT hal.command_buffer (%zu commands) "
                              "was already submitted; record it as REUSABLE "
                              "to submit it again",
                              cb->command_count);
  }
  return nullptr;
}

void commandBufferCancelSubmit(strata_hal_command_buffer_t* cb) {
  if (cb->mode == STRATA_HAL_COMMAND_BUFFER_MODE_ONE_SHOT) {
    cb->submitted.store(false, std::memory_order_release);
  }
}

void executeFill(const FillCommand* command) {
  uint8_t* ptr = command->ptr;
  uint64_t length = command->length;
  switch (command->pattern_size) {
  case 1:
    std::memset(ptr, static_cast<int>(command->pattern & 0xFFu),
                static_cast<size_t>(length));
    break;
  case 2: {
    uint16_t pattern = static_cast<uint16_t>(command->pattern);
    for (uint64_t i = 0; i < length; i += 2) {
      std::memcpy(ptr + i, &pattern, 2);
    }
    break;
  }
  default: {
    uint32_t pattern = command->pattern;
    for (uint64_t i = 0; i < length; i += 4) {
      std::memcpy(ptr + i, &pattern, 4);
    }
    break;
  }
  }
}

void executeCopy(const CopyCommand* command) {
  // memmove: the ranges may overlap (one buffer, or subspans of one parent).
  if (command->length) {
    std::memmove(command->target_ptr, command->source_ptr,
                 static_cast<size_t>(command->length));
  }
}

const char* dispatchExportName(const DispatchCommand* command) {
  return command->executable->export_names[command->ordinal];
}

const char* dispatchLibraryName(const DispatchCommand* command) {
  return command->executable->library_name;
}

}  // namespace strata::hal

using namespace strata::hal;

extern "C" {

const strata_vm_ref_type_t* strata_hal_command_buffer_type(void) {
  return &kCommandBufferType;
}

strata_status_t strata_hal_command_buffer_create(
    strata_hal_command_buffer_mode_t mode, strata_allocator_t allocator,
    strata_hal_command_buffer_t** out_command_buffer) {
  *out_command_buffer = nullptr;
  if (mode != STRATA_HAL_COMMAND_BUFFER_MODE_ONE_SHOT &&
      mode != STRATA_HAL_COMMAND_BUFFER_MODE_REUSABLE) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "unknown hal.command_buffer mode %d (1: "
                              "ONE_SHOT, 2: REUSABLE)",
                              static_cast<int>(mode));
  }
  void* memory =
      strata_allocator_alloc(allocator, sizeof(strata_hal_command_buffer_t),
                             alignof(strata_hal_command_buffer_t));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory allocating a hal.command_buffer");
  }
  auto* cb = new (memory) strata_hal_command_buffer_t();
  strata_vm_ref_object_init(&cb->header, &kCommandBufferType);
  cb->allocator = allocator;
  cb->mode = mode;
  cb->finalized = false;
  cb->submitted.store(false, std::memory_order_relaxed);
  cb->blocks = nullptr;
  cb->first = nullptr;
  cb->last = nullptr;
  cb->command_count = 0;
  cb->batch_dispatches = 0;
  cb->max_batch_dispatches = 0;
  *out_command_buffer = cb;
  return nullptr;
}

strata_status_t strata_hal_command_buffer_dispatch(
    strata_hal_command_buffer_t* command_buffer,
    strata_hal_executable_t* executable, uint32_t ordinal,
    const uint32_t workgroup_count[3], const uint32_t* constants,
    size_t constant_count, const strata_hal_buffer_binding_t* bindings,
    size_t binding_count) {
  STRATA_RETURN_IF_ERROR(checkRecording(command_buffer, "dispatch"));
  if (!executable) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "cannot dispatch a null hal.executable");
  }
  if (!workgroup_count) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "dispatch has no workgroup count");
  }
  if ((constant_count && !constants) || (binding_count && !bindings)) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "dispatch passes %zu constants and %zu "
                              "bindings but a NULL array for one of them",
                              constant_count, binding_count);
  }
  // Counts beyond 32 bits can never match the attrs' 16-bit fields.
  uint32_t narrow_bindings = binding_count > UINT32_MAX
                                 ? UINT32_MAX
                                 : static_cast<uint32_t>(binding_count);
  uint32_t narrow_constants = constant_count > UINT32_MAX
                                  ? UINT32_MAX
                                  : static_cast<uint32_t>(constant_count);
  STRATA_RETURN_IF_ERROR(validateDispatch(executable, ordinal, narrow_bindings,
                                          narrow_constants));
  const char* export_name = executable->export_names[ordinal];
  if (workgroup_count[2] > UINT16_MAX) {
    return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                              "dispatch of '%s': workgroup count z %" PRIu32
                              " exceeds %u",
                              export_name, workgroup_count[2],
                              static_cast<unsigned>(UINT16_MAX));
  }
  // x * y fits in 64 bits and z < 2^16, so only the last product may wrap.
  uint64_t total = static_cast<uint64_t>(workgroup_count[0]) *
                   static_cast<uint64_t>(workgroup_count[1]);
  if (__builtin_mul_overflow(total, uint64_t(workgroup_count[2]), &total) ||
      total > kMaxWorkgroupCount) {
    return strata_make_status(
        STRATA_STATUS_OUT_OF_RANGE,
        "dispatch of '%s': a grid of %" PRIu32 "x%" PRIu32 "x%" PRIu32
        " workgroups exceeds the limit of %" PRIu64,
        export_name, workgroup_count[0], workgroup_count[1],
        workgroup_count[2], kMaxWorkgroupCount);
  }

  // validateDispatch bounded binding_count by the attrs' uint16.
  size_t pointers_bytes = binding_count * sizeof(void*);
  size_t lengths_bytes = binding_count * sizeof(size_t);
  size_t buffers_bytes = binding_count * sizeof(strata_hal_buffer_t*);
  size_t constants_bytes = constant_count * sizeof(uint32_t);
  size_t size = sizeof(DispatchCommand) + pointers_bytes + lengths_bytes +
                buffers_bytes + constants_bytes;
  void* memory = nullptr;
  STRATA_RETURN_IF_ERROR(arenaAllocate(command_buffer, size, &memory));
  auto* command = static_cast<DispatchCommand*>(memory);
  uint8_t* tail = static_cast<uint8_t*>(memory) + sizeof(DispatchCommand);
  auto* binding_ptrs = reinterpret_cast<void**>(tail);
  tail += pointers_bytes;
  auto* binding_lengths = reinterpret_cast<size_t*>(tail);
  tail += lengths_bytes;
  auto* buffers = reinterpret_cast<strata_hal_buffer_t**>(tail);
  tail += buffers_bytes;
  auto* constant_copy = reinterpret_cast<uint32_t*>(tail);

  // Resolved straight into the command. A bad binding returns before
  // anything is retained or appended, so the command buffer records nothing
  // (the arena space stays unused).
  for (size_t i = 0; i < binding_count; ++i) {
    uint64_t length = bindings[i].length;
    uint8_t* ptr = nullptr;
    STRATA_RETURN_IF_ERROR(resolveRange(bindings[i].buffer, bindings[i].offset,
                                        &length, {nullptr, i, export_name},
                                        &ptr));
    binding_ptrs[i] = ptr;
    binding_lengths[i] = static_cast<size_t>(length);
  }
  for (size_t i = 0; i < binding_count; ++i) {
    buffers[i] = bindings[i].buffer;
    strata_hal_buffer_retain(buffers[i]);
  }
  if (constant_count) {
    std::memcpy(constant_copy, constants, constant_count * sizeof(uint32_t));
  }

  const strata_hal_executable_dispatch_attrs_v0_t* attrs =
      executable->export_attrs ? &executable->export_attrs[ordinal] : nullptr;
  command->header.kind = CommandKind::kDispatch;
  command->executable = executable;
  strata_hal_executable_retain(executable);
  command->ordinal = ordinal;
  command->local_memory_size = attrs ? attrs->local_memory_size : 0;
  command->function = exportFunction(executable, ordinal);
  command->workgroup_total = total;
  strata_hal_executable_dispatch_state_v0_t& state = command->state;
  // A workgroup size of 0 in the attrs means "any": kernels then see 1.
  state.workgroup_size_x =
      attrs && attrs->workgroup_size_x ? attrs->workgroup_size_x : 1;
  state.workgroup_size_y =
      attrs && attrs->workgroup_size_y ? attrs->workgroup_size_y : 1;
  state.workgroup_size_z = static_cast<uint16_t>(
      attrs && attrs->workgroup_size_z ? attrs->workgroup_size_z : 1);
  state.constant_count = static_cast<uint16_t>(constant_count);
  state.workgroup_count_x = workgroup_count[0];
  state.workgroup_count_y = workgroup_count[1];
  state.workgroup_count_z = static_cast<uint16_t>(workgroup_count[2]);
  state.binding_count = static_cast<uint16_t>(binding_count);
  state.constants = constant_count ? constant_copy : nullptr;
  state.binding_ptrs = binding_count ? binding_ptrs : nullptr;
  state.binding_lengths = binding_count ? binding_lengths : nullptr;
  command->buffers = buffers;
  appendCommand(command_buffer, &command->header);
  if (total) {
    if (++command_buffer->batch_dispatches >
        command_buffer->max_batch_dispatches) {
      command_buffer->max_batch_dispatches = command_buffer->batch_dispatches;
    }
  }
  return nullptr;
}

strata_status_t strata_hal_command_buffer_fill(
    strata_hal_command_buffer_t* command_buffer, strata_hal_buffer_t* target,
    uint64_t offset, uint64_t length, uint32_t pattern, size_t pattern_size) {
  STRATA_RETURN_IF_ERROR(checkRecording(command_buffer, "fill"));
  if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "fill pattern size %zu is not 1, 2 or 4 bytes",
                              pattern_size);
  }
  if (strata_hal_buffer_is_read_only(target)) {
    return strata_make_status(STRATA_STATUS_PERMISSION_DENIED,
                              "fill target is a read-only hal.buffer "
                              "(constant data)");
  }
  uint8_t* ptr = nullptr;
  STRATA_RETURN_IF_ERROR(
      resolveRange(target, offset, &length, {"fill target"}, &ptr));
  if (offset % pattern_size || length % pattern_size) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "fill of %" PRIu64 " bytes at offset %" PRIu64
                              " is not aligned to its %zu-byte pattern",
                              length, offset, pattern_size);
  }
  void* memory = nullptr;
  STRATA_RETURN_IF_ERROR(
      arenaAllocate(command_buffer, sizeof(FillCommand), &memory));
  auto* command = static_cast<FillCommand*>(memory);
  command->header.kind = CommandKind::kFill;
  command->target = target;
  strata_hal_buffer_retain(target);
  command->ptr = ptr;
  command->length = length;
  // Only the low pattern_size bytes are used, as a store of that width would.
  command->pattern = pattern;
  command->pattern_size = static_cast<uint32_t>(pattern_size);
  appendCommand(command_buffer, &command->header);
  return nullptr;
}

strata_status_t strata_hal_command_buffer_copy(
    strata_hal_command_buffer_t* command_buffer, strata_hal_buffer_t* source,
    uint64_t source_offset, strata_hal_buffer_t* target,
    uint64_t target_offset, uint64_t length) {
  STRATA_RETURN_IF_ERROR(checkRecording(command_buffer, "copy"));
  if (length == UINT64_MAX) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "copy length must be given explicitly");
  }
  if (strata_hal_buffer_is_read_only(target)) {
    return strata_make_status(STRATA_STATUS_PERMISSION_DENIED,
                              "copy target is a read-only hal.buffer "
                              "(constant data)");
  }
  uint8_t* source_ptr = nullptr;
  uint8_t* target_ptr = nullptr;
  uint64_t source_length = length;
  uint64_t target_length = length;
  STRATA_RETURN_IF_ERROR(resolveRange(source, source_offset, &source_length,
                                      {"copy source"}, &source_ptr));
  STRATA_RETURN_IF_ERROR(resolveRange(target, target_offset, &target_length,
                                      {"copy target"}, &target_ptr));
  void* memory = nullptr;
  STRATA_RETURN_IF_ERROR(
      arenaAllocate(command_buffer, sizeof(CopyCommand), &memory));
  auto* command = static_cast<CopyCommand*>(memory);
  command->header.kind = CommandKind::kCopy;
  command->source = source;
  command->target = target;
  strata_hal_buffer_retain(source);
  strata_hal_buffer_retain(target);
  command->source_ptr = source_ptr;
  command->target_ptr = target_ptr;
  command->length = length;
  appendCommand(command_buffer, &command->header);
  return nullptr;
}

strata_status_t strata_hal_command_buffer_barrier(
    strata_hal_command_buffer_t* command_buffer) {
  STRATA_RETURN_IF_ERROR(checkRecording(command_buffer, "barrier"));
  void* memory = nullptr;
  STRATA_RETURN_IF_ERROR(
      arenaAllocate(command_buffer, sizeof(Command), &memory));
  auto* command = static_cast<Command*>(memory);
  command->kind = CommandKind::kBarrier;
  appendCommand(command_buffer, command);
  command_buffer->batch_dispatches = 0;
  return nullptr;
}

strata_status_t strata_hal_command_buffer_finalize(
    strata_hal_command_buffer_t* command_buffer) {
  if (!command_buffer) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "cannot finalize a null hal.command_buffer");
  }
  if (command_buffer->finalized) {
    return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                              "the hal.command_buffer is already finalized");
  }
  command_buffer->finalized = true;
  return nullptr;
}

size_t strata_hal_command_buffer_command_count(
    const strata_hal_command_buffer_t* command_buffer) {
  return command_buffer ? command_buffer->command_count : 0;
}

strata_hal_command_buffer_t* strata_hal_command_buffer_from_ref(
    strata_vm_ref_object_t* ref) {
  return strata_vm_ref_isa(ref, &kCommandBufferType)
             ? reinterpret_cast<strata_hal_command_buffer_t*>(ref)
             : nullptr;
}

}  // extern "C"
