// host_buffer_view.cpp - buffer views made from host data and read back, so
// an embedder needs no other HAL call to pass tensors in and out.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "runtime_impl.h"

namespace {

// "2x3xf32"; "f32" for rank 0. Unknown element types print as their code.
std::string describeType(strata_hal_element_type_t element_type,
                         const int64_t* shape, size_t rank) {
  std::string out;
  for (size_t i = 0; i < rank; ++i) {
    out += std::to_string(shape[i]) + "x";
  }
  const char* name = strata_hal_element_type_name(element_type);
  if (name) {
    out += name;
  } else {
    char code[32];
    std::snprintf(code, sizeof(code), "<element type 0x%08" PRIx32 ">",
                  element_type);
    out += code;
  }
  return out;
}

}  // namespace

extern "C" {

strata_status_t strata_runtime_buffer_view_from_host(
    strata_hal_element_type_t element_type, const int64_t* shape, size_t rank,
    const void* data, size_t data_length, strata_allocator_t allocator,
    strata_hal_buffer_view_t** out_view) {
  *out_view = nullptr;
  if (rank > STRATA_HAL_MAX_RANK) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "a buffer view has at most %d dims, got %zu",
                              STRATA_HAL_MAX_RANK, rank);
  }
  if (rank && !shape) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "the shape of a rank-%zu buffer view is NULL",
                              rank);
  }
  std::string type = describeType(element_type, shape, rank);
  if (!strata_hal_element_type_name(element_type)) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "buffer view %s: unknown element type",
                              type.c_str());
  }
  uint64_t bytes = strata_hal_element_byte_size(element_type);
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 0) {
      return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                                "buffer view %s: dim %zu is negative",
                                type.c_str(), i);
    }
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(shape[i]),
                               &bytes) ||
        bytes > SIZE_MAX) {
      return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                                "buffer view %s: the byte size overflows",
                                type.c_str());
    }
  }
  if (bytes != data_length) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "buffer view %s needs %" PRIu64 " bytes of data, got %zu",
        type.c_str(), bytes, data_length);
  }
  if (!data && data_length) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "buffer view %s: data is NULL", type.c_str());
  }
  strata_hal_buffer_t* buffer = nullptr;
  STRATA_RETURN_IF_ERROR(strata_hal_buffer_allocate(allocator, bytes, &buffer));
  if (bytes) {
    uint8_t* target = nullptr;
    strata_status_t status = strata_hal_buffer_map(buffer, 0, bytes, &target);
    if (status) {
      strata_hal_buffer_release(buffer);
      return status;
    }
    std::memcpy(target, data, bytes);
  }
  strata_status_t status = strata_hal_buffer_view_create(
      buffer, shape, rank, element_type, allocator, out_view);
  strata_hal_buffer_release(buffer);  // the view holds it
  return status;
}

strata_status_t strata_runtime_buffer_view_data(
    const strata_hal_buffer_view_t* view, const void** out_data,
    size_t* out_length) {
  *out_data = nullptr;
  *out_length = 0;
  if (!view) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "the buffer view is NULL");
  }
  uint64_t length = strata_hal_buffer_view_byte_length(view);
  uint8_t* data = nullptr;
  STRATA_RETURN_IF_ERROR(strata_hal_buffer_map(
      strata_hal_buffer_view_buffer(view), 0, length, &data));
  *out_data = data;
  *out_length = static_cast<size_t>(length);
  return nullptr;
}

strata_status_t strata_runtime_buffer_view_to_host(
    const strata_hal_buffer_view_t* view, void* data, size_t data_length) {
  const void* source = nullptr;
  size_t length = 0;
  STRATA_RETURN_IF_ERROR(strata_runtime_buffer_view_data(view, &source,
                                                         &length));
  if (length != data_length) {
    std::string type = describeType(strata_hal_buffer_view_element_type(view),
                                    strata_hal_buffer_view_shape(view),
                                    strata_hal_buffer_view_rank(view));
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "buffer view %s holds %zu bytes, the destination has %zu",
        type.c_str(), length, data_length);
  }
  if (length) {
    std::memcpy(data, source, length);
  }
  return nullptr;
}

size_t strata_runtime_buffer_view_format_type(
    const strata_hal_buffer_view_t* view, char* buffer, size_t capacity) {
  std::string type =
      view ? describeType(strata_hal_buffer_view_element_type(view),
                          strata_hal_buffer_view_shape(view),
                          strata_hal_buffer_view_rank(view))
           : std::string("null");
  if (capacity) {
    size_t n = type.size() < capacity - 1 ? type.size() : capacity - 1;
    std::memcpy(buffer, type.data(), n);
    buffer[n] = '\0';
  }
  return type.size();
}

}  // extern "C"
