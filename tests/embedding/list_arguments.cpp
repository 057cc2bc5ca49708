// list_arguments.cpp - the C API with list arguments and results (ONNX
// sequences and optionals), as runtime.h says to build them: a vm.list of
// buffer views pushed onto the call's inputs, and a list result read from
// its outputs. Runs the builder-made lists.vmfb (tests/tools): seq_echo
// (list) -> list and mixed (list, 3xf32) -> (i32 size, 3xf32).
//
//   list_arguments LISTS.vmfb DEVICE
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
  std::fprintf(stderr, "list_arguments: FAILED: %s\n", what.c_str());
  std::exit(1);
}

void ok(strata_status_t status, const std::string& what) {
  if (status) {
    die(what + ": " + strata::runtime::Status(status).toString());
  }
}

// A 1-D f32 tensor of `values`.
strata_hal_buffer_view_t* tensor(const std::vector<float>& values) {
  const int64_t shape[1] = {static_cast<int64_t>(values.size())};
  strata_hal_buffer_view_t* view = nullptr;
  ok(strata_runtime_buffer_view_from_host(
         STRATA_HAL_ELEMENT_TYPE_FLOAT_32, shape, 1, values.data(),
         values.size() * sizeof(float), strata_allocator_system(), &view),
     "input");
  return view;
}

std::vector<float> values(const strata_hal_buffer_view_t* view) {
  std::vector<float> out(
      static_cast<size_t>(strata_hal_buffer_view_dim(view, 0)));
  ok(strata_runtime_buffer_view_to_host(view, out.data(),
                                        out.size() * sizeof(float)),
     "read back");
  return out;
}

// A list of the given tensors (the list holds them; they are released).
strata_vm_list_t* list(const std::vector<strata_hal_buffer_view_t*>& views) {
  strata_vm_list_t* out = nullptr;
  ok(strata_vm_list_create(views.size(), strata_allocator_system(), &out),
     "list");
  for (strata_hal_buffer_view_t* view : views) {
    ok(strata_vm_list_push(
           out, strata_vm_variant_ref(strata_hal_buffer_view_as_ref(view))),
       "push element");
    strata_hal_buffer_view_release(view);
  }
  return out;
}

// Pushes `l` onto the call's inputs (the call holds it; it is released).
void pushList(strata_runtime_call_t* c, strata_vm_list_t* l) {
  ok(strata_vm_list_push(strata_runtime_call_inputs(c),
                         strata_vm_variant_ref(strata_vm_list_as_ref(l))),
     "push list");
  strata_vm_list_release(l);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: list_arguments LISTS.vmfb DEVICE\n");
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

  // seq_echo: a list of two tensors in, the same list out.
  strata_runtime_call_t* c = nullptr;
  ok(strata_runtime_call_create(session, "seq_echo", allocator, &c), "call");
  pushList(c, list({tensor({1, 2, 3}), tensor({4, 5})}));
  ok(strata_runtime_call_invoke(c), "seq_echo");
  if (strata_runtime_call_result_kind(c, 0) != STRATA_RUNTIME_VALUE_REF) {
    die("seq_echo's result is not a ref");
  }
  strata_vm_variant_t result;
  ok(strata_vm_list_get(strata_runtime_call_outputs(c), 0, &result),
     "result 0");
  strata_vm_list_t* out = strata_vm_list_from_ref(result.value.ref);
  if (!out || strata_vm_list_size(out) != 2) {
    die("seq_echo's result is not a list of 2 elements");
  }
  std::vector<std::vector<float>> want = {{1, 2, 3}, {4, 5}};
  for (size_t i = 0; i < 2; ++i) {
    strata_vm_variant_t element;
    ok(strata_vm_list_get(out, i, &element), "element");
    strata_hal_buffer_view_t* view =
        strata_hal_buffer_view_from_ref(element.value.ref);
    if (!view || values(view) != want[i]) {
      die("seq_echo's element " + std::to_string(i) + " is wrong");
    }
  }
  std::printf("a list of buffer views in and out: ok\n");

  // mixed: a list pushed directly, then a buffer view with the call API.
  strata_runtime_call_t* m = nullptr;
  ok(strata_runtime_call_create(session, "mixed", allocator, &m), "call");
  pushList(m, list({tensor({1}), tensor({2}), tensor({3})}));
  strata_hal_buffer_view_t* x = tensor({7, 8, 9});
  ok(strata_runtime_call_push_buffer_view(m, x), "push x");
  strata_hal_buffer_view_release(x);
  ok(strata_runtime_call_invoke(m), "mixed");
  int32_t size = 0;
  ok(strata_runtime_call_result_i32(m, 0, &size), "result 0");
  strata_hal_buffer_view_t* y = nullptr;
  ok(strata_runtime_call_result_buffer_view(m, 1, &y), "result 1");
  if (size != 3 || values(y) != std::vector<float>{7, 8, 9}) {
    die("mixed returned the wrong size or tensor");
  }
  strata_hal_buffer_view_release(y);
  // An empty list (an empty optional, or an empty sequence).
  strata_runtime_call_reset(m);
  pushList(m, list({}));
  x = tensor({1, 1, 1});
  ok(strata_runtime_call_push_buffer_view(m, x), "push x");
  strata_hal_buffer_view_release(x);
  ok(strata_runtime_call_invoke(m), "mixed of an empty list");
  ok(strata_runtime_call_result_i32(m, 0, &size), "result 0");
  if (size != 0) {
    die("an empty list has " + std::to_string(size) + " elements");
  }
  std::printf("a list and a buffer view in, its size out: ok\n");

  strata_runtime_call_destroy(m);
  strata_runtime_call_destroy(c);
  strata_runtime_session_release(session);
  strata_runtime_instance_release(instance);
  std::printf("all checks passed\n");
  return 0;
}
