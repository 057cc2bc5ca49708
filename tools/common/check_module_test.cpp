// check_module_test.cpp - unit tests for the "check" native module: exact and
// tolerant tensor comparison, the failure messages, and calls through a
// context as compiled programs make them.
#include <doctest/doctest.h>

#include <string>

#include "check_module.h"
#include "strata/modules/hal/module.h"
#include "strata/vm/buffer.h"
#include "strata/vm/context.h"
#include "strata/vm/list.h"
#include "tensor_io.h"

namespace {

using namespace strata::tools;

// A buffer view parsed from IREE's text grammar ("2x2xi32=1 2 3 4").
struct View {
  strata_hal_buffer_view_t* view = nullptr;
  explicit View(const std::string& text) {
    HostTensor tensor;
    std::string error;
    bool parsed = parseTensorText(text, &tensor, &error);
    INFO(text, ": ", error);
    REQUIRE(parsed);
    REQUIRE(bufferViewFromTensor(tensor, strata_allocator_system(), &view) ==
            nullptr);
  }
  ~View() { strata_hal_buffer_view_release(view); }
  View(const View&) = delete;
  View& operator=(const View&) = delete;
};

// "" when the check passes, else its message.
std::string check(CheckKind kind, const std::string& actual,
                  const std::string& expected, CheckTolerance tolerance = {}) {
  View a(actual);
  View e(expected);
  strata_status_t status = checkBufferViews(kind, a.view, e.view, tolerance);
  std::string message = strata_status_message(status);
  if (status) {
    CHECK(strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT);
    CHECK(!message.empty());
  }
  strata_status_free(status);
  return message;
}

TEST_SUITE("tools.check_module") {
  TEST_CASE("expect_eq passes equal tensors of every element type") {
    for (const char* text :
         {"4xi1=1 0 1 0", "2xi8=-128 127", "2xi16=-3 40000", "2x2xi32=1 2 3 4",
          "2xi64=-9000000000 7", "3xf16=0.5 -2 65504", "2xf32=1.5 nan",
          "f64=-0.25"}) {
      INFO(text);
      CHECK(check(CheckKind::kEqual, text, text) == "");
    }
  }

  TEST_CASE("expect_eq names the first differing element and both values") {
    CHECK(check(CheckKind::kEqual, "2x3xi32=1 2 3 4 5 3",
                "2x3xi32=1 2 3 4 5 4") ==
          "check.expect_eq failed: element [1, 2] is 3, expected 4; actual "
          "2x3xi32=[1 2 3][4 5 3], expected 2x3xi32=[1 2 3][4 5 4]");
    CHECK(check(CheckKind::kEqual, "4xi1=1 0 1 1", "4xi1=1 0 1 0")
              .rfind("check.expect_eq failed: element [3] is 1, expected 0",
                     0) == 0);
  }

  TEST_CASE("expect_eq compares floats exactly") {
    CHECK(check(CheckKind::kEqual, "f32=1.00001", "f32=1")
              .rfind("check.expect_eq failed: is 1.00001, expected 1", 0) ==
          0);
  }

  TEST_CASE("a shape or element type difference is reported as such") {
    CHECK(check(CheckKind::kEqual, "2x4xi32=0", "2x3xi32=0")
              .rfind("check.expect_eq failed: is 2x4xi32, expected 2x3xi32",
                     0) == 0);
    CHECK(check(CheckKind::kAlmostEqual, "2xf64=0", "2xf32=0")
              .rfind("check.expect_almost_eq failed: is 2xf64, expected 2xf32",
                     0) == 0);
  }

  TEST_CASE("expect_almost_eq allows the documented tolerances") {
    // f32: 1e-4 absolute plus 1e-4 relative.
    CHECK(check(CheckKind::kAlmostEqual, "2xf32=1.00009 -0.00005",
                "2xf32=1 0") == "");
    CHECK(check(CheckKind::kAlmostEqual, "f32=20000.5", "f32=20000") == "");
    CHECK(check(CheckKind::kAlmostEqual, "2xf32=1 0.5", "2xf32=1 0.5003")
              .rfind("check.expect_almost_eq failed: element [1] is 0.5, "
                     "expected 0.5003",
                     0) == 0);
    // f16: 1e-2 absolute.
    CHECK(check(CheckKind::kAlmostEqual, "f16=1.005", "f16=1") == "");
    CHECK(check(CheckKind::kAlmostEqual, "f16=1.05", "f16=1") != "");
    // NaN matches only NaN; an infinity only itself.
    CHECK(check(CheckKind::kAlmostEqual, "2xf32=nan inf", "2xf32=nan inf") ==
          "");
    CHECK(check(CheckKind::kAlmostEqual, "f32=nan", "f32=1") != "");
    CHECK(check(CheckKind::kAlmostEqual, "f32=-inf", "f32=inf") != "");
    // Integers stay exact.
    CHECK(check(CheckKind::kAlmostEqual, "2xi32=1 2", "2xi32=1 3") != "");
  }

  TEST_CASE("expect_almost_eq takes explicit tolerances") {
    CHECK(check(CheckKind::kAlmostEqual, "f32=1.05", "f32=1", {0.1, 0}) == "");
    CHECK(check(CheckKind::kAlmostEqual, "f32=1.05", "f32=1", {0.01, 0}) !=
          "");
    CHECK(check(CheckKind::kAlmostEqual, "f32=110", "f32=100", {0, 0.2}) ==
          "");
  }

  TEST_CASE("compiled programs call the module through a context") {
    strata_allocator_t allocator = strata_allocator_system();
    strata_vm_instance_t* instance = nullptr;
    REQUIRE(strata_vm_instance_create(allocator, &instance) == nullptr);
    REQUIRE(strata_hal_register_types(instance) == nullptr);
    strata_vm_module_t* module = nullptr;
    REQUIRE(createCheckModule(allocator, &module) == nullptr);
    CHECK(std::string(strata_vm_module_name(module)) == "check");
    strata_vm_context_t* context = nullptr;
    REQUIRE(strata_vm_context_create(instance, &module, 1, nullptr, allocator,
                                     &context) == nullptr);

    auto call = [&](const char* name, const char* cc,
                    std::initializer_list<strata_vm_variant_t> args) {
      strata_vm_function_t function;
      REQUIRE(strata_vm_context_lookup(context, name, &function) == nullptr);
      CHECK(std::string(strata_vm_function_calling_convention(
                context, function)) == cc);
      strata_vm_list_t* inputs = nullptr;
      strata_vm_list_t* outputs = nullptr;
      REQUIRE(strata_vm_list_create(args.size(), allocator, &inputs) ==
              nullptr);
      REQUIRE(strata_vm_list_create(1, allocator, &outputs) == nullptr);
      for (const strata_vm_variant_t& arg : args) {
        REQUIRE(strata_vm_list_push(inputs, arg) == nullptr);
      }
      strata_status_t status =
          strata_vm_invoke(context, function, inputs, outputs);
      std::string message = strata_status_message(status);
      strata_status_free(status);
      strata_vm_list_release(inputs);
      strata_vm_list_release(outputs);
      return message;
    };

    CHECK(call("check.expect_true", "0i_", {strata_vm_variant_i32(3)}) == "");
    CHECK(call("check.expect_true", "0i_", {strata_vm_variant_i32(0)}) ==
          "check.expect_true failed: the value is 0");
    CHECK(call("check.expect_false", "0i_", {strata_vm_variant_i32(0)}) == "");
    CHECK(call("check.expect_false", "0i_", {strata_vm_variant_i32(2)}) ==
          "check.expect_false failed: the value is 2");

    View a("3xi8=1 2 3");
    View b("3xi8=1 2 4");
    auto ref = [](const View& v) {
      return strata_vm_variant_ref(strata_hal_buffer_view_as_ref(v.view));
    };
    CHECK(call("check.expect_eq", "0rr_", {ref(a), ref(a)}) == "");
    CHECK(call("check.expect_eq", "0rr_", {ref(a), ref(b)})
              .rfind("check.expect_eq failed: element [2] is 3, expected 4",
                     0) == 0);
    CHECK(call("check.expect_almost_eq", "0rr_", {ref(a), ref(a)}) == "");
    CHECK(call("check.expect_almost_eq_tol", "0rrff_",
               {ref(a), ref(b), strata_vm_variant_f32(1),
                strata_vm_variant_f32(0)})
              .rfind("check.expect_almost_eq failed", 0) == 0);

    // A ref of another type is refused by name.
    strata_vm_buffer_t* buffer = nullptr;
    REQUIRE(strata_vm_buffer_create(4, 0, allocator, &buffer) == nullptr);
    std::string wrong = call(
        "check.expect_eq", "0rr_",
        {ref(a), strata_vm_variant_ref(
                     reinterpret_cast<strata_vm_ref_object_t*>(buffer))});
    CHECK(wrong ==
          "check.expect_eq: argument 1 must be a hal.buffer_view, got a "
          "vm.buffer");
    strata_vm_ref_release(reinterpret_cast<strata_vm_ref_object_t*>(buffer));

    strata_vm_context_release(context);
    strata_vm_module_release(module);
    strata_vm_instance_release(instance);
  }
}

}  // namespace
