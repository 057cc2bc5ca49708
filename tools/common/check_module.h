// check_module.h - the "check" native VM module: the run-time assertions
// that compiled test programs call (the compiler lowers check.expect_* ops
// to these imports; compiler/lib/Conversion/StandardToVM/CheckToVM.cpp).
//
// Exports (calling conventions as in schemas/format.h):
//
//   check.expect_true          0i_      value
//       Fails unless value != 0.
//   check.expect_false         0i_      value
//       Fails unless value == 0.
//   check.expect_eq            0rr_     actual, expected (hal.buffer_views)
//       Fails unless element types, shapes and every element are equal.
//       Every element compares exactly, floats too (NaN equals NaN).
//   check.expect_almost_eq     0rr_     actual, expected
//       As expect_eq, but float elements match when
//         |actual - expected| <= atol + rtol * |expected|
//       with the defaults below; NaN matches NaN, an infinity only itself.
//       Integer and i1 elements compare exactly.
//   check.expect_almost_eq_tol 0rrff_   actual, expected, atol, rtol
//       As expect_almost_eq with the given tolerances (a negative one takes
//       the default).
//
// Default tolerances:            atol     rtol
//   f16                          1e-2     1e-3
//   f32, f64                     1e-4     1e-4
// (IREE's check module uses an absolute tolerance of about 1e-4 for f32;
// the relative term lets results of a large magnitude, such as exp(10),
// differ in their last bits.)
//
// Element types: i1 (one byte, 0 or 1), i8, i16, i32, i64 (also their si/ui
// spellings), f16, f32, f64.
//
// A failure is INVALID_ARGUMENT (FAILED_PRECONDITION for expect_true/false)
// whose message names the check and shows the difference, for example
//   check.expect_eq failed: element [1, 2] is 3, expected 4
//   check.expect_eq failed: is 2x4xi32, expected 2x3xi32
// followed by both tensors (at most 16 elements each). The VM appends the
// backtrace, whose first frame is the source location of the check op.
//
// Thread-safety: the module is immutable; it keeps no per-context state.
#ifndef STRATA_TOOLS_COMMON_CHECK_MODULE_H_
#define STRATA_TOOLS_COMMON_CHECK_MODULE_H_

#include <string>

#include "strata/base/allocator.h"
#include "strata/base/status.h"
#include "strata/hal/buffer.h"
#include "strata/vm/module.h"

namespace strata::tools {

/// The version of the check module's exports.
constexpr uint32_t kCheckModuleVersion = 1;

/// Creates the "check" module. The caller owns *out_module. The hal types
/// (hal.buffer_view) must be registered with the instance that links it
/// (strata_hal_register_types; the hal module does it).
strata_status_t createCheckModule(strata_allocator_t allocator,
                                  strata_vm_module_t** out_module);

enum class CheckKind { kEqual, kAlmostEqual };

/// Tolerances of expect_almost_eq; negative values take the defaults of the
/// element type (table above).
struct CheckTolerance {
  double atol = -1;
  double rtol = -1;
};

/// The comparison behind expect_eq / expect_almost_eq: OK, or a failed
/// status with the message described above. Both views are borrowed.
strata_status_t checkBufferViews(CheckKind kind,
                                 const strata_hal_buffer_view_t* actual,
                                 const strata_hal_buffer_view_t* expected,
                                 CheckTolerance tolerance = {});

}  // namespace strata::tools

#endif  // STRATA_TOOLS_COMMON_CHECK_MODULE_H_
