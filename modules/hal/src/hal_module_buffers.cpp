// hal_module_buffers.cpp - the hal module's buffer and buffer_view exports
// (documented in the table at the top of hal_module.cpp).
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "hal_module_impl.h"

namespace strata::hal {
namespace {

// Checks a load/store width (argument `slot`).
strata_status_t checkWidth(const NativeCall& call, size_t slot, int32_t width) {
  if (width == 1 || width == 2 || width == 4) {
    return nullptr;
  }
  return call.fail(STRATA_STATUS_INVALID_ARGUMENT,
                   "argument %zu (byte width) is %d; it must be 1, 2 or 4",
                   slot, width);
}

// The text of a message argument (a vm.buffer), at most 4096 bytes of it.
struct Text {
  const char* data = "";
  int length = 0;
};
Text messageText(strata_vm_buffer_t* buffer) {
  Text text;
  text.data = reinterpret_cast<const char*>(strata_vm_buffer_data(buffer));
  size_t length = strata_vm_buffer_length(buffer);
  text.length = static_cast<int>(length > 4096 ? 4096 : length);
  return text;
}

// printf-appends to out[capacity], tracking *used; truncates silently.
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
void appendf(char* out, size_t capacity, size_t* used, const char* format,
             ...) {
  if (*used >= capacity) {
    return;
  }
  va_list args;
  va_start(args, format);
  int n = std::vsnprintf(out + *used, capacity - *used, format, args);
  va_end(args);
  *used += n > 0 ? static_cast<size_t>(n) : 0;
}

// Writes "tensor<2x3xf32>" for a shape and element type to out.
void formatTensorType(char* out, size_t capacity, const int64_t* dims,
                      size_t rank, strata_hal_element_type_t type) {
  size_t used = 0;
  out[0] = '\0';
  appendf(out, capacity, &used, "tensor<");
  for (size_t i = 0; i < rank; ++i) {
    if (dims[i] == -1) {
      appendf(out, capacity, &used, "?x");
    } else {
      appendf(out, capacity, &used, "%lldx", static_cast<long long>(dims[i]));
    }
  }
  const char* name = strata_hal_element_type_name(type);
  if (name) {
    appendf(out, capacity, &used, "%s>", name);
  } else {
    appendf(out, capacity, &used, "type0x%08x>", static_cast<unsigned>(type));
  }
}

// Copies a dims span into dims[].
strata_status_t readDims(const NativeCall& call, const Variadic<int64_t>& span,
                         int64_t* dims, size_t* out_rank) {
  size_t rank = span.size();
  if (rank > STRATA_HAL_MAX_RANK) {
    return call.fail(STRATA_STATUS_OUT_OF_RANGE,
                     "rank %zu exceeds the maximum of %d", rank,
                     STRATA_HAL_MAX_RANK);
  }
  for (size_t i = 0; i < rank; ++i) {
    dims[i] = span[i];
  }
  *out_rank = rank;
  return nullptr;
}

strata_status_t checkEncoding(const NativeCall& call, size_t slot,
                              int32_t encoding) {
  if (encoding == 0) {
    return nullptr;
  }
  return call.fail(STRATA_STATUS_UNIMPLEMENTED,
                   "argument %zu (encoding) is %d; only 0 (dense row-major) "
                   "is supported",
                   slot, encoding);
}

}  // namespace

int64_t HalState::bufferLength(strata_hal_buffer_t* buffer) {
  return static_cast<int64_t>(strata_hal_buffer_length(buffer));
}

strata_status_t HalState::bufferSubspan(strata_hal_buffer_t* buffer,
                                        Size offset, Size length,
                                        Ref<strata_hal_buffer_t>* out) {
  return strata_hal_buffer_subspan(buffer, offset, length, allocator,
                                   out->out());
}

strata_status_t HalState::bufferWrap(strata_vm_buffer_t* source,
                                     Ref<strata_hal_buffer_t>* out) {
  return strata_hal_buffer_wrap_read_only(
      strata_vm_buffer_data(source), strata_vm_buffer_length(source),
      reinterpret_cast<strata_vm_ref_object_t*>(source), allocator, out->out());
}

strata_status_t HalState::bufferLoad(const NativeCall& call,
                                     strata_hal_buffer_t* buffer, Size offset,
                                     int32_t width, int32_t* out) {
  STRATA_RETURN_IF_ERROR(checkWidth(call, 2, width));
  uint8_t* ptr = nullptr;
  STRATA_RETURN_IF_ERROR(strata_hal_buffer_map(buffer, offset, width, &ptr));
  uint32_t value = 0;
  for (int32_t i = 0; i < width; ++i) {
    value |= static_cast<uint32_t>(ptr[i]) << (8 * i);
  }
  *out = static_cast<int32_t>(value);
  return nullptr;
}

strata_status_t HalState::bufferStore(const NativeCall& call, int32_t value,
                                      strata_hal_buffer_t* buffer, Size offset,
                                      int32_t width) {
  STRATA_RETURN_IF_ERROR(checkWidth(call, 3, width));
  if (strata_hal_buffer_is_read_only(buffer)) {
    return call.fail(STRATA_STATUS_PERMISSION_DENIED,
                     "argument 1 (buffer) is read-only (constant data)");
  }
  uint8_t* ptr = nullptr;
  STRATA_RETURN_IF_ERROR(strata_hal_buffer_map(buffer, offset, width, &ptr));
  for (int32_t i = 0; i < width; ++i) {
    ptr[i] = static_cast<uint8_t>(static_cast<uint32_t>(value) >> (8 * i));
  }
  return nullptr;
}

strata_status_t HalState::bufferAssert(Nullable<strata_vm_ref_object_t> ref,
                                       strata_vm_buffer_t* message,
                                       Size minimum) {
  Text text = messageText(message);
  strata_hal_buffer_t* buffer = strata_hal_buffer_from_ref(ref.get());
  if (!buffer) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT, "%.*s: expected a hal.buffer, got %s%s",
        text.length, text.data, refArticle(ref.get()), refTypeName(ref.get()));
  }
  uint64_t length = strata_hal_buffer_length(buffer);
  if (length < minimum) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "%.*s: expected a hal.buffer of at least %llu bytes, got %llu bytes",
        text.length, text.data, static_cast<unsigned long long>(minimum),
        static_cast<unsigned long long>(length));
  }
  return nullptr;
}

strata_status_t HalState::bufferViewCreate(
    const NativeCall& call, strata_hal_buffer_t* buffer, Size offset,
    Size length, int32_t element_type, int32_t encoding,
    Variadic<int64_t> dims_span, Ref<strata_hal_buffer_view_t>* out) {
  STRATA_RETURN_IF_ERROR(checkEncoding(call, 4, encoding));
  int64_t dims[STRATA_HAL_MAX_RANK];
  size_t rank = 0;
  STRATA_RETURN_IF_ERROR(readDims(call, dims_span, dims, &rank));
  for (size_t i = 0; i < rank; ++i) {
    if (dims[i] < 0) {
      return call.fail(STRATA_STATUS_INVALID_ARGUMENT,
                       "dim %zu is %lld; dims must not be negative", i,
                       static_cast<long long>(dims[i]));
    }
  }
  // A view of the whole buffer needs no subspan object.
  Ref<strata_hal_buffer_t> source = vm::retainRef(buffer);
  if (offset != 0 || length != strata_hal_buffer_length(buffer)) {
    STRATA_RETURN_IF_ERROR(strata_hal_buffer_subspan(buffer, offset, length,
                                                     allocator, source.out()));
  }
  return strata_hal_buffer_view_create(
      source.get(), dims, rank,
      static_cast<strata_hal_element_type_t>(element_type), allocator,
      out->out());
}

strata_status_t HalState::bufferViewAssert(const NativeCall& call,
                                           Nullable<strata_vm_ref_object_t> ref,
                                           strata_vm_buffer_t* message,
                                           int32_t element_type_code,
                                           int32_t encoding,
                                           Variadic<int64_t> dims_span) {
  auto element_type = static_cast<strata_hal_element_type_t>(element_type_code);
  STRATA_RETURN_IF_ERROR(checkEncoding(call, 3, encoding));
  int64_t dims[STRATA_HAL_MAX_RANK];
  size_t rank = 0;
  STRATA_RETURN_IF_ERROR(readDims(call, dims_span, dims, &rank));

  strata_hal_buffer_view_t* view = strata_hal_buffer_view_from_ref(ref.get());
  if (view && strata_hal_buffer_view_element_type(view) == element_type &&
      strata_hal_buffer_view_rank(view) == rank) {
    const int64_t* shape = strata_hal_buffer_view_shape(view);
    bool same = true;
    for (size_t i = 0; i < rank; ++i) {
      same = same && (dims[i] == -1 || dims[i] == shape[i]);
    }
    if (same) {
      return nullptr;
    }
  }
  char expected[320];
  formatTensorType(expected, sizeof(expected), dims, rank, element_type);
  char actual[320];
  if (view) {
    formatTensorType(actual, sizeof(actual), strata_hal_buffer_view_shape(view),
                     strata_hal_buffer_view_rank(view),
                     strata_hal_buffer_view_element_type(view));
  } else {
    std::snprintf(actual, sizeof(actual), "%s%s", refArticle(ref.get()),
                  refTypeName(ref.get()));
  }
  Text text = messageText(message);
  return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                            "%.*s: expected %s, got %s", text.length, text.data,
                            expected, actual);
}

Ref<strata_hal_buffer_t> HalState::bufferViewBuffer(
    strata_hal_buffer_view_t* view) {
  return vm::retainRef(strata_hal_buffer_view_buffer(view));
}

int32_t HalState::bufferViewElementType(strata_hal_buffer_view_t* view) {
  return static_cast<int32_t>(strata_hal_buffer_view_element_type(view));
}

int32_t HalState::bufferViewRank(strata_hal_buffer_view_t* view) {
  return static_cast<int32_t>(strata_hal_buffer_view_rank(view));
}

strata_status_t HalState::bufferViewDim(const NativeCall& call,
                                        strata_hal_buffer_view_t* view,
                                        int32_t index, int64_t* out) {
  size_t rank = strata_hal_buffer_view_rank(view);
  if (index < 0 || static_cast<size_t>(index) >= rank) {
    return call.fail(STRATA_STATUS_OUT_OF_RANGE,
                     "dim index %d is out of range for a view of rank %zu",
                     index, rank);
  }
  *out = strata_hal_buffer_view_dim(view, static_cast<size_t>(index));
  return nullptr;
}

}  // namespace strata::hal
