// dynamic_shapes.cpp - the C API with dynamic shapes: one compiled function
// of ?x3xf32 arguments (dynamic_program.mlir) called with 0, 2 and 7 rows
// on one call object; a static dimension that does not fit fails naming
// the argument; two row counts that differ fail naming both arguments, the
// dimension and both sizes; the call works again afterwards.
//
//   dynamic_shapes DYNAMIC_PROGRAM.vmfb DEVICE
//
// Prints one line per check and exits 1 at the first failure.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "strata/runtime.h"
#include "strata/runtime.hpp"

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "dynamic_shapes: FAILED: %s\n", what.c_str());
  std::exit(1);
}

std::string text(strata_status_t status) {
  return strata::runtime::Status(status).toString();
}

void ok(strata_status_t status, const std::string& what) {
  if (status) {
    die(what + ": " + text(status));
  }
}

// A rows x cols f32 tensor whose element i is start + i.
strata_hal_buffer_view_t* tensor(int64_t rows, int64_t cols, float start) {
  std::vector<float> data(static_cast<size_t>(rows * cols) + 1);
  for (size_t i = 0; i < data.size(); ++i) {
    data[i] = start + static_cast<float>(i);
  }
  const int64_t shape[2] = {rows, cols};
  strata_hal_buffer_view_t* view = nullptr;
  ok(strata_runtime_buffer_view_from_host(
         STRATA_HAL_ELEMENT_TYPE_FLOAT_32, shape, 2, data.data(),
         static_cast<size_t>(rows * cols) * sizeof(float),
         strata_allocator_system(), &view),
     "input");
  return view;
}

// Pushes x and y, invokes, and returns the status (the call is reset).
strata_status_t call(strata_runtime_call_t* c, strata_hal_buffer_view_t* x,
                     strata_hal_buffer_view_t* y) {
  strata_runtime_call_reset(c);
  ok(strata_runtime_call_push_buffer_view(c, x), "push x");
  ok(strata_runtime_call_push_buffer_view(c, y), "push y");
  strata_hal_buffer_view_release(x);
  strata_hal_buffer_view_release(y);
  return strata_runtime_call_invoke(c);
}

void expectSum(strata_runtime_call_t* c, int64_t rows) {
  std::string what = "add_rows with " + std::to_string(rows) + " rows";
  ok(call(c, tensor(rows, 3, 1), tensor(rows, 3, 100)), what);
  strata_hal_buffer_view_t* view = nullptr;
  ok(strata_runtime_call_result_buffer_view(c, 0, &view), what);
  if (strata_hal_buffer_view_rank(view) != 2 ||
      strata_hal_buffer_view_dim(view, 0) != rows ||
      strata_hal_buffer_view_dim(view, 1) != 3) {
    die(what + ": the result is not " + std::to_string(rows) + "x3");
  }
  std::vector<float> got(static_cast<size_t>(rows * 3));
  ok(strata_runtime_buffer_view_to_host(view, got.data(),
                                        got.size() * sizeof(float)),
     what);
  strata_hal_buffer_view_release(view);
  for (size_t i = 0; i < got.size(); ++i) {
    float want = (1 + static_cast<float>(i)) + (100 + static_cast<float>(i));
    if (got[i] != want) {
      die(what + ": element " + std::to_string(i) + " is " +
          std::to_string(got[i]) + ", expected " + std::to_string(want));
    }
  }
  std::printf("%s: ok\n", what.c_str());
}

void expectFailure(strata_status_t status, strata_status_code_t code,
                   const std::string& needle, const std::string& what) {
  if (!status) {
    die(what + ": the call succeeded");
  }
  strata_status_code_t got = strata_status_code(status);
  std::string message = text(status);
  if (got != code || message.find(needle) == std::string::npos) {
    die(what + ": expected '" + needle + "', got " + message);
  }
  std::printf("%s: ok (%s)\n", what.c_str(), needle.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: dynamic_shapes MODULE.vmfb DEVICE\n");
    return 2;
  }
  strata_allocator_t allocator = strata_allocator_system();
  strata_runtime_instance_options_t options;
  strata_runtime_instance_options_initialize(&options);
  options.device = argv[2];
  options.task_worker_count = 2;
  strata_runtime_instance_t* instance = nullptr;
  ok(strata_runtime_instance_create(&options, allocator, &instance),
     "instance");
  strata_runtime_session_t* session = nullptr;
  ok(strata_runtime_session_create_from_file(instance, argv[1], &session),
     "session");
  strata_runtime_call_t* c = nullptr;
  ok(strata_runtime_call_create(session, "add_rows", allocator, &c), "call");

  for (int64_t rows : {2, 0, 7, 2}) {
    expectSum(c, rows);
  }
  expectFailure(call(c, tensor(2, 3, 0), tensor(2, 4, 0)),
                STRATA_STATUS_INVALID_ARGUMENT, "argument 1",
                "a static dimension that does not fit");
  expectFailure(call(c, tensor(2, 3, 0), tensor(5, 3, 0)),
                STRATA_STATUS_FAILED_PRECONDITION,
                "argument 1 ('y') dimension 0 is 5 but argument 0 ('x') "
                "dimension 0 is 2; the model names both 'N'",
                "two row counts that differ");
  expectSum(c, 3);

  strata_runtime_call_destroy(c);
  strata_runtime_session_release(session);
  strata_runtime_instance_release(instance);
  std::printf("all checks passed\n");
  return 0;
}
