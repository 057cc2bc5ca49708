// buffer.cpp - hal.buffer: 64-byte aligned host memory, wrapped memory and
// subspans, with overflow-safe range checks.
#include "strata/hal/buffer.h"

#include <sys/mman.h>

#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

struct strata_hal_buffer_t {
  strata_vm_ref_object_t header;  // first: buffers are ref objects
  strata_allocator_t allocator;   // frees this record (and owned bytes)
  uint8_t* data;                  // never NULL, even when length is 0
  uint64_t length;
  // Keeps the bytes alive: the parent of a subspan or the owner of wrapped
  // memory; retained, may be NULL. Allocated buffers hold their bytes in the
  // same allocation as the record, except large ones: mapped pages.
  strata_vm_ref_object_t* owner;
  size_t mapped_length;  // bytes mapped at data (large buffers), else 0
  bool read_only;        // wrapped constant data, and subspans of it
};

namespace strata::hal {
namespace {

// Alignment of allocated buffer bytes: a cache line, and enough for any
// vector load a kernel does.
constexpr size_t kBufferAlignment = 64;

// Mappings of destroyed large buffers, kept for uninitialized allocations
// that fit in them (oldest first), up to STRATA_HAL_MAPPING_CACHE_BYTES in
// total. A buffer whose size the host computes per call (a transient slab
// with dynamic sizes) takes the mapping of an earlier call while it is
// large enough, and a new, larger one when it is not, which then pushes the
// oldest kept mappings out.
struct MappingCache {
  std::mutex mutex;
  std::vector<std::pair<void*, size_t>> entries;
  size_t bytes = 0;

  ~MappingCache() {
    for (auto& [data, length] : entries) {
      munmap(data, length);
    }
  }
  // Keeps a mapping, unmapping the oldest kept ones to make room; false
  // when it alone is larger than the cache.
  bool put(void* data, size_t length) {
    if (length > STRATA_HAL_MAPPING_CACHE_BYTES) {
      return false;
    }
    std::vector<std::pair<void*, size_t>> evicted;
    {
      std::lock_guard<std::mutex> lock(mutex);
      size_t drop = 0;
      while (bytes + length > STRATA_HAL_MAPPING_CACHE_BYTES) {
        bytes -= entries[drop].second;
        evicted.push_back(entries[drop++]);
      }
      entries.erase(entries.begin(),
                    entries.begin() + static_cast<std::ptrdiff_t>(drop));
      entries.emplace_back(data, length);
      bytes += length;
    }
    for (auto& [old, old_length] : evicted) {
      munmap(old, old_length);
    }
    return true;
  }
  // The smallest kept mapping of at least length bytes (the newest of
  // equals), or NULL; its size goes to *mapped.
  void* take(size_t length, size_t* mapped) {
    std::lock_guard<std::mutex> lock(mutex);
    size_t best = entries.size();
    for (size_t i = entries.size(); i-- > 0;) {
      if (entries[i].second >= length &&
          (best == entries.size() ||
           entries[i].second < entries[best].second)) {
        best = i;
      }
    }
    if (best == entries.size()) {
      return nullptr;
    }
    void* data = entries[best].first;
    *mapped = entries[best].second;
    entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(best));
    bytes -= *mapped;
    return data;
  }
};

MappingCache& mappingCache() {
  static MappingCache* cache = new MappingCache();  // lives to exit
  return *cache;
}

void destroyBuffer(strata_vm_ref_object_t* object) {
  auto* buffer = reinterpret_cast<strata_hal_buffer_t*>(object);
  if (buffer->mapped_length &&
      !mappingCache().put(buffer->data, buffer->mapped_length)) {
    munmap(buffer->data, buffer->mapped_length);
  }
  strata_vm_ref_object_t* owner = buffer->owner;
  strata_allocator_t allocator = buffer->allocator;
  buffer->~strata_hal_buffer_t();
  strata_allocator_free(allocator, buffer);
  // Released last: the owner may hold this allocator's state.
  strata_vm_ref_release(owner);
}

const strata_vm_ref_type_t kBufferType = {"hal.buffer", destroyBuffer};

// Creates a record without bytes; data and length are set by the caller.
strata_status_t allocateRecord(size_t extra, strata_allocator_t allocator,
                               strata_hal_buffer_t** out_buffer) {
  void* memory = strata_allocator_alloc(
      allocator, sizeof(strata_hal_buffer_t) + extra, kBufferAlignment);
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory allocating a hal.buffer of %zu "
                              "bytes",
                              extra);
  }
  auto* buffer = new (memory) strata_hal_buffer_t();
  strata_vm_ref_object_init(&buffer->header, &kBufferType);
  buffer->allocator = allocator;
  buffer->data = nullptr;
  buffer->length = 0;
  buffer->owner = nullptr;
  buffer->mapped_length = 0;
  buffer->read_only = false;
  *out_buffer = buffer;
  return nullptr;
}

// Mapped buffers: pages from the OS. A memset of tens of megabytes would
// fault every page in on one thread and write it twice; fresh pages are
// zero already and fault in where the kernels first write them, on every
// worker at once, in huge pages where the system allows. With `reuse`, the
// smallest cached mapping that is large enough (dirty) is taken first: that is
// what keeps repeated calls off the page-fault path, for medium buffers too
// (the C library would return those to the OS on free and fault them in
// again on the next call).
strata_status_t allocateMapped(uint64_t length, bool reuse,
                               strata_allocator_t allocator,
                               strata_hal_buffer_t** out_buffer) {
  constexpr size_t kHugePage = 2 * 1024 * 1024;
  constexpr size_t kPage = 4096;
  size_t granule = length >= STRATA_HAL_LARGE_BUFFER_BYTES ? kHugePage : kPage;
  size_t mapped = (static_cast<size_t>(length) + granule - 1) & ~(granule - 1);
  void* data = reuse ? mappingCache().take(mapped, &mapped) : nullptr;
  if (!data) {
    data = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (data == MAP_FAILED) {
      return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                "cannot map %zu bytes for a hal.buffer of "
                                "%" PRIu64 " bytes: %s",
                                mapped, length, std::strerror(errno));
    }
#ifdef MADV_HUGEPAGE
    if (granule == kHugePage) {
      (void)madvise(data, mapped, MADV_HUGEPAGE);  // advice only
    }
#endif
  }
  strata_hal_buffer_t* buffer = nullptr;
  strata_status_t status = allocateRecord(0, allocator, &buffer);
  if (status) {
    munmap(data, mapped);
    return status;
  }
  buffer->data = static_cast<uint8_t*>(data);
  buffer->length = length;
  buffer->mapped_length = mapped;
  *out_buffer = buffer;
  return nullptr;
}

// OUT_OF_RANGE unless [offset, offset + length) lies inside a buffer of
// buffer_length bytes. Two comparisons, so offset + length never overflows.
strata_status_t checkRange(uint64_t buffer_length, uint64_t offset,
                           uint64_t length, const char* what) {
  if (offset > buffer_length || length > buffer_length - offset) {
    return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                              "%s of %" PRIu64 " bytes at offset %" PRIu64
                              " is out of bounds of a hal.buffer of %" PRIu64
                              " bytes",
                              what, length, offset, buffer_length);
  }
  return nullptr;
}

}  // namespace
}  // namespace strata::hal

using strata::hal::kBufferType;

extern "C" {

const strata_vm_ref_type_t* strata_hal_buffer_type(void) {
  return &kBufferType;
}

}  // extern "C"

namespace strata::hal {
namespace {

strata_status_t allocateBuffer(strata_allocator_t allocator, uint64_t length,
                               bool zeroed, strata_hal_buffer_t** out_buffer) {
  *out_buffer = nullptr;
  if (length <= SIZE_MAX / 2 &&
      (length >= STRATA_HAL_LARGE_BUFFER_BYTES ||
       (!zeroed && length >= STRATA_HAL_REUSED_BUFFER_BYTES))) {
    return allocateMapped(length, /*reuse=*/!zeroed, allocator, out_buffer);
  }
  // The bytes start at the first 64-byte boundary after the record.
  constexpr size_t kOffset =
      (sizeof(strata_hal_buffer_t) + strata::hal::kBufferAlignment - 1) &
      ~(strata::hal::kBufferAlignment - 1);
  if (length > SIZE_MAX - kOffset) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "a hal.buffer of %" PRIu64
                              " bytes is too large for this host",
                              length);
  }
  size_t extra = kOffset - sizeof(strata_hal_buffer_t) +
                 static_cast<size_t>(length);
  strata_hal_buffer_t* buffer = nullptr;
  STRATA_RETURN_IF_ERROR(
      strata::hal::allocateRecord(extra, allocator, &buffer));
  buffer->data = reinterpret_cast<uint8_t*>(buffer) + kOffset;
  buffer->length = length;
  if (zeroed) {
    std::memset(buffer->data, 0, static_cast<size_t>(length));
  }
  *out_buffer = buffer;
  return nullptr;
}

}  // namespace
}  // namespace strata::hal

extern "C" {

strata_status_t strata_hal_buffer_allocate(strata_allocator_t allocator,
                                           uint64_t length,
                                           strata_hal_buffer_t** out_buffer) {
  return strata::hal::allocateBuffer(allocator, length, /*zeroed=*/true,
                                     out_buffer);
}

strata_status_t strata_hal_buffer_allocate_uninitialized(
    strata_allocator_t allocator, uint64_t length,
    strata_hal_buffer_t** out_buffer) {
  return strata::hal::allocateBuffer(allocator, length, /*zeroed=*/false,
                                     out_buffer);
}

strata_status_t strata_hal_buffer_wrap(void* data, uint64_t length,
                                       strata_vm_ref_object_t* owner,
                                       strata_allocator_t allocator,
                                       strata_hal_buffer_t** out_buffer) {
  *out_buffer = nullptr;
  if (!data && length) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "cannot wrap NULL as a hal.buffer of %" PRIu64
                              " bytes",
                              length);
  }
  if (data && reinterpret_cast<uintptr_t>(data) > UINTPTR_MAX - length) {
    return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                              "cannot wrap %" PRIu64
                              " bytes at %p: the range wraps around the "
                              "address space",
                              length, data);
  }
  strata_hal_buffer_t* buffer = nullptr;
  STRATA_RETURN_IF_ERROR(strata::hal::allocateRecord(0, allocator, &buffer));
  // A zero-length wrap of NULL still hands out a non-NULL pointer, so that
  // callers may memcpy zero bytes from it.
  buffer->data = data ? static_cast<uint8_t*>(data)
                      : reinterpret_cast<uint8_t*>(&buffer->length);
  buffer->length = length;
  buffer->owner = owner;
  strata_vm_ref_retain(owner);
  *out_buffer = buffer;
  return nullptr;
}

strata_status_t strata_hal_buffer_wrap_read_only(
    const void* data, uint64_t length, strata_vm_ref_object_t* owner,
    strata_allocator_t allocator, strata_hal_buffer_t** out_buffer) {
  // The memory is only ever read through this buffer: every path that
  // writes checks read_only first.
  STRATA_RETURN_IF_ERROR(strata_hal_buffer_wrap(
      const_cast<void*>(data), length, owner, allocator, out_buffer));
  (*out_buffer)->read_only = true;
  return nullptr;
}

int strata_hal_buffer_is_read_only(const strata_hal_buffer_t* buffer) {
  return buffer && buffer->read_only ? 1 : 0;
}

strata_status_t strata_hal_buffer_subspan(strata_hal_buffer_t* buffer,
                                          uint64_t offset, uint64_t length,
                                          strata_allocator_t allocator,
                                          strata_hal_buffer_t** out_buffer) {
  *out_buffer = nullptr;
  if (!buffer) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "cannot take a subspan of a null hal.buffer");
  }
  STRATA_RETURN_IF_ERROR(
      strata::hal::checkRange(buffer->length, offset, length, "subspan"));
  strata_hal_buffer_t* span = nullptr;
  STRATA_RETURN_IF_ERROR(strata::hal::allocateRecord(0, allocator, &span));
  span->data = buffer->data + offset;
  span->length = length;
  span->owner = &buffer->header;
  span->read_only = buffer->read_only;
  strata_vm_ref_retain(&buffer->header);
  *out_buffer = span;
  return nullptr;
}

uint64_t strata_hal_buffer_length(const strata_hal_buffer_t* buffer) {
  return buffer ? buffer->length : 0;
}

strata_status_t strata_hal_buffer_map(const strata_hal_buffer_t* buffer,
                                      uint64_t offset, uint64_t length,
                                      uint8_t** out_ptr) {
  *out_ptr = nullptr;
  if (!buffer) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "cannot map a null hal.buffer");
  }
  STRATA_RETURN_IF_ERROR(
      strata::hal::checkRange(buffer->length, offset, length, "range"));
  *out_ptr = buffer->data + offset;
  return nullptr;
}

strata_hal_buffer_t* strata_hal_buffer_from_ref(strata_vm_ref_object_t* ref) {
  return strata_vm_ref_isa(ref, &kBufferType)
             ? reinterpret_cast<strata_hal_buffer_t*>(ref)
             : nullptr;
}

}  // extern "C"
