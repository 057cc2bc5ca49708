// buffer_view.cpp - hal.buffer_view (a buffer with a shape and an element
// type) and element type names as IREE writes them ("f32", "si8", "i1").
#include <cinttypes>
#include <cstring>
#include <new>

#include "strata/hal/buffer.h"

struct strata_hal_buffer_view_t {
  strata_vm_ref_object_t header;  // first: views are ref objects
  strata_allocator_t allocator;   // frees this record
  strata_hal_buffer_t* buffer;    // retained
  strata_hal_element_type_t element_type;
  uint32_t rank;
  uint64_t byte_length;  // element count times element size
  int64_t shape[STRATA_HAL_MAX_RANK];
};

namespace strata::hal {
namespace {

void destroyBufferView(strata_vm_ref_object_t* object) {
  auto* view = reinterpret_cast<strata_hal_buffer_view_t*>(object);
  strata_hal_buffer_t* buffer = view->buffer;
  strata_allocator_t allocator = view->allocator;
  view->~strata_hal_buffer_view_t();
  strata_allocator_free(allocator, view);
  strata_hal_buffer_release(buffer);
}

const strata_vm_ref_type_t kBufferViewType = {"hal.buffer_view",
                                              destroyBufferView};

struct ElementTypeName {
  strata_hal_element_type_t type;
  const char* name;
};

// Every type with a name. BOOL_8 is "i1", as IREE prints MLIR's i1 tensors.
constexpr ElementTypeName kElementTypeNames[] = {
    {STRATA_HAL_ELEMENT_TYPE_BOOL_8, "i1"},
    {STRATA_HAL_ELEMENT_TYPE_INT_8, "i8"},
    {STRATA_HAL_ELEMENT_TYPE_INT_16, "i16"},
    {STRATA_HAL_ELEMENT_TYPE_INT_32, "i32"},
    {STRATA_HAL_ELEMENT_TYPE_INT_64, "i64"},
    {STRATA_HAL_ELEMENT_TYPE_SINT_8, "si8"},
    {STRATA_HAL_ELEMENT_TYPE_SINT_16, "si16"},
    {STRATA_HAL_ELEMENT_TYPE_SINT_32, "si32"},
    {STRATA_HAL_ELEMENT_TYPE_SINT_64, "si64"},
    {STRATA_HAL_ELEMENT_TYPE_UINT_8, "ui8"},
    {STRATA_HAL_ELEMENT_TYPE_UINT_16, "ui16"},
    {STRATA_HAL_ELEMENT_TYPE_UINT_32, "ui32"},
    {STRATA_HAL_ELEMENT_TYPE_UINT_64, "ui64"},
    {STRATA_HAL_ELEMENT_TYPE_FLOAT_16, "f16"},
    {STRATA_HAL_ELEMENT_TYPE_FLOAT_32, "f32"},
    {STRATA_HAL_ELEMENT_TYPE_FLOAT_64, "f64"},
    {STRATA_HAL_ELEMENT_TYPE_BFLOAT_16, "bf16"},
};

}  // namespace
}  // namespace strata::hal

using strata::hal::kBufferViewType;

extern "C" {

const char* strata_hal_element_type_name(strata_hal_element_type_t type) {
  for (const auto& entry : strata::hal::kElementTypeNames) {
    if (entry.type == type) {
      return entry.name;
    }
  }
  return nullptr;
}

strata_hal_element_type_t strata_hal_element_type_parse(const char* name,
                                                        size_t length) {
  if (!name) {
    return STRATA_HAL_ELEMENT_TYPE_NONE;
  }
  for (const auto& entry : strata::hal::kElementTypeNames) {
    if (std::strlen(entry.name) == length &&
        std::memcmp(entry.name, name, length) == 0) {
      return entry.type;
    }
  }
  return STRATA_HAL_ELEMENT_TYPE_NONE;
}

const strata_vm_ref_type_t* strata_hal_buffer_view_type(void) {
  return &kBufferViewType;
}

strata_status_t strata_hal_buffer_view_create(
    strata_hal_buffer_t* buffer, const int64_t* shape, size_t rank,
    strata_hal_element_type_t element_type, strata_allocator_t allocator,
    strata_hal_buffer_view_t** out_view) {
  *out_view = nullptr;
  if (!buffer) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "cannot make a hal.buffer_view of a null "
                              "hal.buffer");
  }
  if (rank > STRATA_HAL_MAX_RANK) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "hal.buffer_view of rank %zu exceeds the "
                              "maximum rank %d",
                              rank, STRATA_HAL_MAX_RANK);
  }
  if (rank && !shape) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "hal.buffer_view of rank %zu has no shape",
                              rank);
  }
  size_t element_size = strata_hal_element_byte_size(element_type);
  if (!element_size) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "hal.buffer_view element type 0x%08" PRIx32
                              " has no size",
                              element_type);
  }
  // Element count times element size, refusing anything past 2^64.
  uint64_t byte_length = element_size;
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 0) {
      return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                                "hal.buffer_view dim %zu is negative (%" PRId64
                                ")",
                                i, shape[i]);
    }
    uint64_t dim = static_cast<uint64_t>(shape[i]);
    if (dim && byte_length > UINT64_MAX / dim) {
      return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                                "hal.buffer_view shape overflows 64 bits at "
                                "dim %zu (%" PRId64 ")",
                                i, shape[i]);
    }
    byte_length *= dim;
  }
  uint64_t buffer_length = strata_hal_buffer_length(buffer);
  if (byte_length > buffer_length) {
    const char* type_name = strata_hal_element_type_name(element_type);
    return strata_make_status(
        STRATA_STATUS_OUT_OF_RANGE,
        "hal.buffer_view of %zu dims of %s needs %" PRIu64
        " bytes but the hal.buffer has %" PRIu64,
        rank, type_name ? type_name : "an unnamed element type", byte_length,
        buffer_length);
  }
  void* memory = strata_allocator_alloc(
      allocator, sizeof(strata_hal_buffer_view_t),
      alignof(strata_hal_buffer_view_t));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory allocating a hal.buffer_view");
  }
  auto* view = new (memory) strata_hal_buffer_view_t();
  strata_vm_ref_object_init(&view->header, &kBufferViewType);
  view->allocator = allocator;
  view->buffer = buffer;
  strata_hal_buffer_retain(buffer);
  view->element_type = element_type;
  view->rank = static_cast<uint32_t>(rank);
  view->byte_length = byte_length;
  for (size_t i = 0; i < rank; ++i) {
    view->shape[i] = shape[i];
  }
  *out_view = view;
  return nullptr;
}

strata_hal_buffer_t* strata_hal_buffer_view_buffer(
    const strata_hal_buffer_view_t* view) {
  return view->buffer;
}

size_t strata_hal_buffer_view_rank(const strata_hal_buffer_view_t* view) {
  return view->rank;
}

int64_t strata_hal_buffer_view_dim(const strata_hal_buffer_view_t* view,
                                   size_t i) {
  return i < view->rank ? view->shape[i] : 0;
}

const int64_t* strata_hal_buffer_view_shape(
    const strata_hal_buffer_view_t* view) {
  return view->shape;
}

strata_hal_element_type_t strata_hal_buffer_view_element_type(
    const strata_hal_buffer_view_t* view) {
  return view->element_type;
}

uint64_t strata_hal_buffer_view_byte_length(
    const strata_hal_buffer_view_t* view) {
  return view->byte_length;
}

strata_hal_buffer_view_t* strata_hal_buffer_view_from_ref(
    strata_vm_ref_object_t* ref) {
  return strata_vm_ref_isa(ref, &kBufferViewType)
             ? reinterpret_cast<strata_hal_buffer_view_t*>(ref)
             : nullptr;
}

}  // extern "C"
