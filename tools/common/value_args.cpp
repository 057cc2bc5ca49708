// value_args.cpp - the argument values strata-run and strata-benchmark
// build from --input flags: tensors, and lists (ONNX sequences and
// optionals) from "list:N" and N more flags, an .npz file, or "none".
#include "value_args.h"

#include <cstring>

#include "cli.h"
#include "npz.h"
#include "strata/runtime.h"
#include "tensor_io.h"
#include "tensor_type_match.h"

namespace strata::tools {

// "--input #2 ('2x3xf32=1 2 3')", long values shortened.
std::string describeFlag(const char* flag, size_t index,
                         const std::string& text) {
  constexpr size_t kMaxQuoted = 60;
  std::string quoted =
      text.size() <= kMaxQuoted ? text : text.substr(0, kMaxQuoted - 3) + "...";
  return std::string(flag) + " #" + std::to_string(index + 1) + " ('" + quoted +
         "')";
}

// Rewrites tensor's f32 elements as bf16 (rounded) or its bf16 elements
// as f32 (exact): a bf16 argument takes .npy data of f32 (numpy has no
// bf16), and a bf16 result is written to .npy as f32.
void convertBFloat(HostTensor* tensor, bool to_bfloat) {
  uint64_t count = tensor->elementCount();
  std::vector<uint8_t> data(count * (to_bfloat ? 2 : 4));
  for (uint64_t i = 0; i < count; ++i) {
    if (to_bfloat) {
      float value;
      std::memcpy(&value, tensor->data.data() + i * 4, 4);
      uint16_t bits = strata::runtime::bfloatFromFloat(value);
      std::memcpy(data.data() + i * 2, &bits, 2);
    } else {
      uint16_t bits;
      std::memcpy(&bits, tensor->data.data() + i * 2, 2);
      float value = strata::runtime::bfloatToFloat(bits);
      std::memcpy(data.data() + i * 4, &value, 4);
    }
  }
  tensor->data = std::move(data);
  tensor->element_type = to_bfloat ? STRATA_HAL_ELEMENT_TYPE_BFLOAT_16
                                   : STRATA_HAL_ELEMENT_TYPE_FLOAT_32;
}

// True when an --input carries its own type: a file, "TYPE=VALUES", or a
// type name without values (which then fails as a malformed typed value).
// IREE's untyped values ("1", "1 2 3") take the argument's type.
bool isTyped(const std::string& text) {
  size_t last_x = text.rfind('x');
  std::string suffix =
      last_x == std::string::npos ? text : text.substr(last_x + 1);
  bool names_type =
      strata_hal_element_type_parse(suffix.c_str(), suffix.size()) !=
      STRATA_HAL_ELEMENT_TYPE_NONE;
  return text.empty() || text[0] == '@' ||
         text.find('=') != std::string::npos || names_type;
}

bool endsWith(const std::string& text, const char* suffix) {
  size_t n = std::strlen(suffix);
  return text.size() >= n && text.compare(text.size() - n, n, suffix) == 0;
}

// "a list<?xf32>", "an optional<4xf32>", "a 4xf32 tensor".
std::string describeRecorded(const std::string& want) {
  switch (boundaryType(want).kind) {
    case BoundaryType::kList: return "a " + want;
    case BoundaryType::kOptional: return "an " + want;
    case BoundaryType::kTensor: break;
  }
  return "a " + want + " tensor";
}

namespace {

// A new list holding `elements` (retained); *out is owned.
strata_status_t makeList(const std::vector<strata_vm_ref_object_t*>& elements,
                         strata_allocator_t allocator,
                         strata_vm_ref_object_t** out) {
  strata_vm_list_t* list = nullptr;
  strata_status_t status =
      strata_vm_list_create(elements.size(), allocator, &list);
  for (size_t i = 0; !status && i < elements.size(); ++i) {
    status = strata_vm_list_push(list, strata_vm_variant_ref(elements[i]));
  }
  if (status) {
    if (list) {
      strata_vm_list_release(list);
    }
    return status;
  }
  *out = strata_vm_list_as_ref(list);
  return nullptr;
}

// Releases the refs it holds when it goes.
struct RefVector {
  std::vector<strata_vm_ref_object_t*> refs;
  ~RefVector() {
    for (strata_vm_ref_object_t* ref : refs) {
      strata_vm_ref_release(ref);
    }
  }
};

}  // namespace

std::string InputReader::ref(const std::string& want, const std::string& what,
                             strata_vm_ref_object_t** out) {
  BoundaryType type = boundaryType(want);
  size_t index = (*next)++;
  const std::string& text = inputs[index];
  std::string where = describeFlag("--input", index, text);
  if (text == "none") {
    if (!want.empty() && type.kind != BoundaryType::kOptional) {
      return where + ": 'none' is an empty optional, but " + what + " is " +
             describeRecorded(want);
    }
    return statusError(where, makeList({}, allocator, out));
  }
  // An optional's value may be a list (an optional sequence): it is then
  // read as a list and wrapped.
  BoundaryType list_type = type;
  bool wrap = false;
  if (type.kind == BoundaryType::kOptional) {
    BoundaryType inner = boundaryType(type.element);
    wrap = inner.kind == BoundaryType::kList;
    if (wrap) {
      list_type = inner;
    }
  }
  bool is_list_text = text.compare(0, 5, "list:") == 0;
  bool is_npz = text.size() > 1 && text[0] == '@' && endsWith(text, ".npz");
  if (is_list_text || is_npz) {
    if (!want.empty() &&
        (list_type.kind == BoundaryType::kTensor ||
         (is_list_text && list_type.kind == BoundaryType::kOptional))) {
      return where + ": " + what + " is " + describeRecorded(want) +
             (type.kind == BoundaryType::kOptional
                  ? ": give its value, or 'none'"
                  : ", not a list");
    }
  }
  strata_vm_ref_object_t* value = nullptr;
  std::string error;
  if (is_list_text) {
    uint64_t count = 0;
    if (!parseFlagCount("list:", text.substr(5), 0, uint64_t{1} << 20, &count,
                        &error)) {
      return where + ": " + error;
    }
    if (count > inputs.size() - *next) {
      return where + ": the list has " + std::to_string(count) +
             " elements but " + std::to_string(inputs.size() - *next) +
             (inputs.size() - *next == 1 ? " --input flag follows it"
                                         : " --input flags follow it");
    }
    RefVector elements;
    for (uint64_t k = 0; k < count; ++k) {
      strata_vm_ref_object_t* element = nullptr;
      error =
          ref(list_type.kind == BoundaryType::kList ? list_type.element : "",
              "element " + std::to_string(k) + " of " + what, &element);
      if (!error.empty()) {
        return error;
      }
      elements.refs.push_back(element);
    }
    error = statusError(where, makeList(elements.refs, allocator, &value));
  } else if (is_npz) {
    std::vector<NpzArray> arrays;
    if (!readNpzFile(text.substr(1), &arrays, &error)) {
      return where + ": " + error;
    }
    if (list_type.kind == BoundaryType::kOptional && arrays.size() > 1) {
      return where + ": " + what + " is " + describeRecorded(want) +
             ", which holds at most one value; the file has " +
             std::to_string(arrays.size()) + " arrays";
    }
    RefVector elements;
    for (size_t k = 0; k < arrays.size(); ++k) {
      strata_vm_ref_object_t* element = nullptr;
      error = tensorRef(
          list_type.kind == BoundaryType::kTensor ? "" : list_type.element,
          "element " + std::to_string(k) + " ('" + arrays[k].name + "') of " +
              what,
          where, &arrays[k].tensor, &element);
      if (!error.empty()) {
        return error;
      }
      elements.refs.push_back(element);
    }
    error = statusError(where, makeList(elements.refs, allocator, &value));
    if (list_type.kind == BoundaryType::kOptional) {
      wrap = false;  // the list of 0 or 1 arrays is the optional
    }
  } else {
    if (list_type.kind == BoundaryType::kList) {
      return where + ": " + what + " is " + describeRecorded(want) +
             ": give it as 'list:N' followed by its N elements, or as "
             "@FILE.npz";
    }
    std::string tensor_want =
        type.kind == BoundaryType::kOptional ? type.element : want;
    std::string typed = text;
    if (!isTyped(text)) {
      if (tensor_want.empty() ||
          tensor_want.find_first_of("?*") != std::string::npos) {
        return where + ": " + what + " has no static type to read '" + text +
               "' as; write it as TYPE=VALUE or SHAPExTYPE=VALUES";
      }
      typed = tensor_want + "=" + text;
    }
    HostTensor tensor;
    if (!parseValueArgument(typed, &tensor, &error)) {
      return where + ": " + error;
    }
    error = tensorRef(tensor_want, what, where, &tensor, &value);
    // An optional's value is wrapped into a list of one element.
    wrap = type.kind == BoundaryType::kOptional;
  }
  if (!error.empty()) {
    return error;
  }
  if (wrap) {
    strata_vm_ref_object_t* outer = nullptr;
    error = statusError(where, makeList({value}, allocator, &outer));
    strata_vm_ref_release(value);
    value = outer;
    if (!error.empty()) {
      return error;
    }
  }
  *out = value;
  return "";
}

std::string InputReader::tensorRef(const std::string& want,
                                   const std::string& what,
                                   const std::string& where, HostTensor* tensor,
                                   strata_vm_ref_object_t** out) {
  if (isBFloatType(want) &&
      tensor->element_type == STRATA_HAL_ELEMENT_TYPE_FLOAT_32) {
    convertBFloat(tensor, /*to_bfloat=*/true);
  }
  std::string got = describeTensorType(tensor->shape, tensor->element_type);
  if (!fitArgumentType(want, got, &tensor->element_type)) {
    return where + ": " + what + " is a " + want + " tensor, not " + got;
  }
  strata_hal_buffer_view_t* view = nullptr;
  std::string error =
      statusError(where, bufferViewFromTensor(*tensor, allocator, &view));
  if (error.empty()) {
    *out = strata_hal_buffer_view_as_ref(view);
  }
  return error;
}

std::string InputReader::statusError(const std::string& where,
                                     strata_status_t status) {
  return status ? where + ": " + consumeStatusLine(status) : "";
}

}  // namespace strata::tools
