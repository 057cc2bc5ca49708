// buffer.cpp - vm.buffer: owned byte arrays and zero-copy views kept alive by
// an owner ref.
#include "strata/vm/buffer.h"

#include <cstring>
#include <new>

struct strata_vm_buffer_t {
  strata_vm_ref_object_t header;  // first: buffers are ref objects
  strata_allocator_t allocator;   // frees this record (and owned bytes)
  uint8_t* data;                  // never NULL, even when length is 0
  size_t length;
  // Keeps the bytes of a wrapped buffer alive; retained, may be NULL. Owned
  // buffers store their bytes in the same allocation and have no owner.
  strata_vm_ref_object_t* owner;
  bool writable;
};

namespace strata::vm {
namespace {

constexpr size_t kDefaultAlignment = 16;

void destroyBuffer(strata_vm_ref_object_t* object) {
  auto* buffer = reinterpret_cast<strata_vm_buffer_t*>(object);
  strata_vm_ref_object_t* owner = buffer->owner;
  strata_allocator_t allocator = buffer->allocator;
  buffer->~strata_vm_buffer_t();
  strata_allocator_free(allocator, buffer);
  strata_vm_ref_release(owner);
}

const strata_vm_ref_type_t kBufferType = {"vm.buffer", destroyBuffer};

bool isPowerOfTwo(size_t value) { return value && !(value & (value - 1)); }

// Allocates an owned, writable buffer whose bytes (not zeroed) follow the
// record in the same allocation, aligned to alignment (a power of two).
strata_status_t allocateBuffer(size_t length, size_t alignment,
                               strata_allocator_t allocator,
                               strata_vm_buffer_t** out_buffer) {
  // Offset of the bytes: the record size rounded up to the alignment.
  size_t header = sizeof(strata_vm_buffer_t);
  size_t offset = (header + alignment - 1) & ~(alignment - 1);
  if (length > SIZE_MAX - offset) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "vm.buffer of %zu bytes is too large", length);
  }
  size_t record_alignment = alignment > alignof(strata_vm_buffer_t)
                                ? alignment
                                : alignof(strata_vm_buffer_t);
  void* memory =
      strata_allocator_alloc(allocator, offset + length, record_alignment);
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory allocating a vm.buffer of %zu "
                              "bytes",
                              length);
  }
  auto* buffer = new (memory) strata_vm_buffer_t();
  strata_vm_ref_object_init(&buffer->header, &kBufferType);
  buffer->allocator = allocator;
  buffer->data = static_cast<uint8_t*>(memory) + offset;
  buffer->length = length;
  buffer->owner = nullptr;
  buffer->writable = true;
  *out_buffer = buffer;
  return nullptr;
}

}  // namespace
}  // namespace strata::vm

using strata::vm::kBufferType;

extern "C" {

const strata_vm_ref_type_t* strata_vm_buffer_type(void) { return &kBufferType; }

strata_status_t strata_vm_buffer_create(size_t length, size_t alignment,
                                        strata_allocator_t allocator,
                                        strata_vm_buffer_t** out_buffer) {
  *out_buffer = nullptr;
  if (alignment == 0) {
    alignment = strata::vm::kDefaultAlignment;
  }
  if (!strata::vm::isPowerOfTwo(alignment)) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "vm.buffer alignment %zu is not a power of two",
                              alignment);
  }
  strata_vm_buffer_t* buffer = nullptr;
  STRATA_RETURN_IF_ERROR(
      strata::vm::allocateBuffer(length, alignment, allocator, &buffer));
  std::memset(buffer->data, 0, length);
  *out_buffer = buffer;
  return nullptr;
}

strata_status_t strata_vm_buffer_wrap(void* data, size_t length, int writable,
                                      strata_vm_ref_object_t* owner,
                                      strata_allocator_t allocator,
                                      strata_vm_buffer_t** out_buffer) {
  *out_buffer = nullptr;
  if (!data && length) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "cannot wrap NULL as a vm.buffer of %zu bytes",
                              length);
  }
  void* memory = strata_allocator_alloc(allocator, sizeof(strata_vm_buffer_t),
                                        alignof(strata_vm_buffer_t));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory wrapping a vm.buffer");
  }
  auto* buffer = new (memory) strata_vm_buffer_t();
  strata_vm_ref_object_init(&buffer->header, &kBufferType);
  buffer->allocator = allocator;
  // A zero-length view of NULL still hands out a non-NULL pointer, so that
  // callers may memcpy zero bytes from it.
  buffer->data = data ? static_cast<uint8_t*>(data)
                      : reinterpret_cast<uint8_t*>(&buffer->length);
  buffer->length = length;
  buffer->owner = owner;
  strata_vm_ref_retain(owner);
  buffer->writable = writable != 0;
  *out_buffer = buffer;
  return nullptr;
}

strata_status_t strata_vm_buffer_clone(const strata_vm_buffer_t* source,
                                       uint64_t offset, uint64_t length,
                                       strata_allocator_t allocator,
                                       strata_vm_buffer_t** out_buffer) {
  *out_buffer = nullptr;
  uint8_t* bytes = nullptr;
  STRATA_RETURN_IF_ERROR(
      strata_vm_buffer_map(source, offset, length, /*writable=*/0, &bytes));
  strata_vm_buffer_t* clone = nullptr;
  // length fits in size_t: map proved it lies inside source.
  STRATA_RETURN_IF_ERROR(strata::vm::allocateBuffer(
      static_cast<size_t>(length), strata::vm::kDefaultAlignment, allocator,
      &clone));
  if (length) {
    std::memcpy(clone->data, bytes, static_cast<size_t>(length));
  }
  *out_buffer = clone;
  return nullptr;
}

uint8_t* strata_vm_buffer_data(const strata_vm_buffer_t* buffer) {
  return buffer->data;
}

size_t strata_vm_buffer_length(const strata_vm_buffer_t* buffer) {
  return buffer->length;
}

int strata_vm_buffer_is_writable(const strata_vm_buffer_t* buffer) {
  return buffer->writable ? 1 : 0;
}

strata_status_t strata_vm_buffer_map(const strata_vm_buffer_t* buffer,
                                     uint64_t offset, uint64_t length,
                                     int writable, uint8_t** out_ptr) {
  *out_ptr = nullptr;
  if (!buffer) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "cannot map a null vm.buffer");
  }
  uint64_t size = buffer->length;
  // Written as two comparisons so that offset + length never overflows.
  if (offset > size || length > size - offset) {
    return strata_make_status(
        STRATA_STATUS_OUT_OF_RANGE,
        "range of %llu bytes at offset %llu is out of bounds of a vm.buffer "
        "of %llu bytes",
        static_cast<unsigned long long>(length),
        static_cast<unsigned long long>(offset),
        static_cast<unsigned long long>(size));
  }
  if (writable && !buffer->writable) {
    return strata_make_status(
        STRATA_STATUS_PERMISSION_DENIED,
        "cannot map %llu bytes at offset %llu for writing: the vm.buffer of "
        "%llu bytes is read-only",
        static_cast<unsigned long long>(length),
        static_cast<unsigned long long>(offset),
        static_cast<unsigned long long>(size));
  }
  *out_ptr = buffer->data + offset;
  return nullptr;
}

strata_vm_buffer_t* strata_vm_buffer_from_ref(strata_vm_ref_object_t* ref) {
  return strata_vm_ref_isa(ref, &kBufferType)
             ? reinterpret_cast<strata_vm_buffer_t*>(ref)
             : nullptr;
}

}  // extern "C"
