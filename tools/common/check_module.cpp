// check_module.cpp - the "check" native VM module (check_module.h): scalar
// and tensor assertions for compiled test programs.
#include "check_module.h"

#include <string>

#include "strata/vm/native_module.hpp"
#include "tensor_io.h"

namespace strata::tools {
namespace {

// Elements of each tensor shown after a failure.
constexpr size_t kShownElements = 16;

const char* checkName(CheckKind kind) {
  return kind == CheckKind::kEqual ? "check.expect_eq"
                                   : "check.expect_almost_eq";
}

strata_status_t viewArgument(const char* check, int index,
                             strata_vm_ref_object_t* ref,
                             const strata_hal_buffer_view_t** out) {
  *out = strata_hal_buffer_view_from_ref(ref);
  if (!*out) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "%s: argument %d must be a hal.buffer_view, got a %s", check, index,
        ref && ref->type ? ref->type->name : "null ref");
  }
  return nullptr;
}

struct CheckState {
  // "0i_"
  strata_status_t expect_true(int32_t value) {
    if (value != 0) {
      return nullptr;
    }
    return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                              "check.expect_true failed: the value is 0");
  }

  // "0i_"
  strata_status_t expect_false(int32_t value) {
    if (value == 0) {
      return nullptr;
    }
    return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                              "check.expect_false failed: the value is %d",
                              static_cast<int>(value));
  }

  // "0rr_"
  strata_status_t expect_eq(strata_vm_ref_object_t* actual,
                            strata_vm_ref_object_t* expected) {
    return compare(CheckKind::kEqual, actual, expected, {});
  }

  // "0rr_"
  strata_status_t expect_almost_eq(strata_vm_ref_object_t* actual,
                                   strata_vm_ref_object_t* expected) {
    return compare(CheckKind::kAlmostEqual, actual, expected, {});
  }

  // "0rrff_"
  strata_status_t expect_almost_eq_tol(strata_vm_ref_object_t* actual,
                                       strata_vm_ref_object_t* expected,
                                       float atol, float rtol) {
    return compare(CheckKind::kAlmostEqual, actual, expected, {atol, rtol});
  }

  static strata_status_t compare(CheckKind kind, strata_vm_ref_object_t* a,
                                 strata_vm_ref_object_t* b,
                                 CheckTolerance tolerance) {
    const strata_hal_buffer_view_t* actual = nullptr;
    const strata_hal_buffer_view_t* expected = nullptr;
    STRATA_RETURN_IF_ERROR(viewArgument(checkName(kind), 0, a, &actual));
    STRATA_RETURN_IF_ERROR(viewArgument(checkName(kind), 1, b, &expected));
    return checkBufferViews(kind, actual, expected, tolerance);
  }
};

}  // namespace

strata_status_t checkBufferViews(CheckKind kind,
                                 const strata_hal_buffer_view_t* actual,
                                 const strata_hal_buffer_view_t* expected,
                                 CheckTolerance tolerance) {
  const char* name = checkName(kind);
  HostTensor actual_tensor;
  HostTensor expected_tensor;
  std::string error;
  if (!tensorFromBufferView(actual, &actual_tensor, &error) ||
      !tensorFromBufferView(expected, &expected_tensor, &error)) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "%s: cannot read a tensor: %s", name,
                              error.c_str());
  }
  if (elementTypeName(actual_tensor.element_type) == "?" ||
      elementTypeName(expected_tensor.element_type) == "?") {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "%s: unsupported element type 0x%08x (supported: i1, i8, i16, i32, "
        "i64, f16, f32, f64)",
        name,
        static_cast<unsigned>(
            elementTypeName(actual_tensor.element_type) == "?"
                ? actual_tensor.element_type
                : expected_tensor.element_type));
  }
  CompareThresholds thresholds;
  if (kind == CheckKind::kEqual) {
    thresholds.f16 = thresholds.f32 = thresholds.f64 = 0;
    thresholds.relative = 0;
  } else {
    // The relative default is per width, so the element type picks it.
    bool half = strata_hal_element_byte_size(expected_tensor.element_type) == 2;
    double atol = tolerance.atol >= 0 ? tolerance.atol : half ? 1e-2 : 1e-4;
    double rtol = tolerance.rtol >= 0 ? tolerance.rtol : half ? 1e-3 : 1e-4;
    thresholds.f16 = thresholds.f32 = thresholds.f64 = atol;
    thresholds.relative = rtol;
  }
  std::string mismatch;
  if (compareTensors(expected_tensor, actual_tensor, thresholds, &mismatch)) {
    return nullptr;
  }
  std::string shown = "; actual " +
                      formatTensor(actual_tensor, kShownElements) +
                      ", expected " +
                      formatTensor(expected_tensor, kShownElements);
  return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT, "%s failed: %s%s",
                            name, mismatch.c_str(), shown.c_str());
}

strata_status_t createCheckModule(strata_allocator_t allocator,
                                  strata_vm_module_t** out_module) {
  strata::vm::NativeModuleBuilder<CheckState> builder("check",
                                                      kCheckModuleVersion);
  builder.function<&CheckState::expect_true>("expect_true")
      .function<&CheckState::expect_false>("expect_false")
      .function<&CheckState::expect_eq>("expect_eq")
      .function<&CheckState::expect_almost_eq>("expect_almost_eq")
      .function<&CheckState::expect_almost_eq_tol>("expect_almost_eq_tol");
  return builder.build(allocator, out_module);
}

}  // namespace strata::tools
