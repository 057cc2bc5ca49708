/* embed.c - an out-of-tree C program built against the installed
 * strata-runtime package (pkg-config only): adds two tensors with
 * hal_sample.vmfb's add, blocking and then asynchronously on a loop, and
 * shows an unknown function's error.
 *
 *   embed MODULE.vmfb DEVICE
 */
#include <stdio.h>
#include <stdlib.h>

#include <strata/runtime.h>

static int check(strata_status_t status, const char* what) {
  if (!status) {
    return 0;
  }
  char* text = strata_status_to_string(status);
  fprintf(stderr, "embed: %s: %s\n", what, text ? text : "?");
  free(text);
  strata_status_free(status);
  return 1;
}

static void print_result(const char* label, strata_runtime_call_t* call) {
  strata_hal_buffer_view_t* view = NULL;
  float values[6];
  char type[32];
  if (check(strata_runtime_call_result_buffer_view(call, 0, &view), label)) {
    return;
  }
  strata_runtime_buffer_view_format_type(view, type, sizeof(type));
  if (!check(strata_runtime_buffer_view_to_host(view, values, sizeof(values)),
             label)) {
    printf("%s: %s=%g %g %g %g %g %g\n", label, type, values[0], values[1],
           values[2], values[3], values[4], values[5]);
  }
  strata_hal_buffer_view_release(view);
}

static void on_done(void* user, strata_runtime_call_t* call,
                    strata_status_t status) {
  (void)user;
  if (!check(status, "async add")) {
    print_result("async", call);
  }
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: embed MODULE.vmfb DEVICE\n");
    return 2;
  }
  strata_allocator_t allocator = strata_allocator_system();
  strata_runtime_instance_options_t options;
  strata_runtime_instance_options_initialize(&options);
  options.device = argv[2];
  options.task_worker_count = 2;
  strata_runtime_instance_t* instance = NULL;
  strata_runtime_session_t* session = NULL;
  strata_runtime_call_t* call = NULL;
  strata_hal_loop_t* loop = NULL;
  int failed = 0;

  const int64_t shape[2] = {2, 3};
  const float a[6] = {1, 2, 3, 4, 5, 6};
  const float b[6] = {10, 20, 30, 40, 50, 60};
  strata_hal_buffer_view_t* va = NULL;
  strata_hal_buffer_view_t* vb = NULL;

  failed = check(strata_runtime_instance_create(&options, allocator, &instance),
                 "instance") ||
           check(strata_runtime_session_create_from_file(instance, argv[1],
                                                         &session),
                 "session") ||
           check(strata_runtime_buffer_view_from_host(
                     STRATA_HAL_ELEMENT_TYPE_FLOAT_32, shape, 2, a, sizeof(a),
                     allocator, &va),
                 "input a") ||
           check(strata_runtime_buffer_view_from_host(
                     STRATA_HAL_ELEMENT_TYPE_FLOAT_32, shape, 2, b, sizeof(b),
                     allocator, &vb),
                 "input b") ||
           check(strata_runtime_call_create(session, "add", allocator, &call),
                 "call");
  if (!failed) {
    failed = check(strata_runtime_call_push_buffer_view(call, va), "push") ||
             check(strata_runtime_call_push_buffer_view(call, vb), "push") ||
             check(strata_runtime_call_invoke(call), "add");
  }
  if (!failed) {
    print_result("blocking", call);
    printf("async entry: %d\n", strata_runtime_call_has_async_entry(call));
    failed = check(strata_hal_loop_create(allocator, &loop), "loop") ||
             check(strata_runtime_call_invoke_async(call, loop, NULL, on_done,
                                                    NULL),
                   "invoke_async") ||
             check(strata_hal_loop_run(loop), "loop run");
  }
  if (!failed) {
    strata_runtime_call_t* unknown = NULL;
    strata_status_t status =
        strata_runtime_call_create(session, "sub", allocator, &unknown);
    printf("unknown: %s: %s\n",
           strata_status_code_name(strata_status_code(status)),
           strata_status_message(status));
    strata_status_free(status);
  }
  strata_hal_loop_destroy(loop);
  strata_runtime_call_destroy(call);
  strata_hal_buffer_view_release(va);
  strata_hal_buffer_view_release(vb);
  strata_runtime_session_release(session);
  strata_runtime_instance_release(instance);
  return failed;
}
