// run_hal_sample.cpp - loads hal_sample.vmfb through the C API, as an
// embedding application would, and calls add() on both local devices:
//
//   run_hal_sample PATH/hal_sample.vmfb
//
// It checks the sums of 2x3, 1000-element, rank-0 and empty tensors, and
// the messages of a shape mismatch and an unsupported rank. Exits non-zero on
// any error.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "strata/hal/buffer.h"
#include "strata/hal/device.h"
#include "strata/modules/hal/module.h"
#include "strata/vm/vm.h"

namespace {

int errors = 0;

void report(const char* what, strata_status_t status) {
  char* text = strata_status_to_string(status);
  std::fprintf(stderr, "run_hal_sample: %s: %s\n", what, text ? text : "");
  std::free(text);
  strata_status_free(status);
  ++errors;
}

std::vector<uint8_t> readFile(const char* path) {
  std::vector<uint8_t> bytes;
  FILE* file = std::fopen(path, "rb");
  if (!file) {
    return bytes;
  }
  uint8_t chunk[65536];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0) {
    bytes.insert(bytes.end(), chunk, chunk + got);
  }
  std::fclose(file);
  return bytes;
}

// A new f32 view of shape dims with values[i] = f(i).
strata_hal_buffer_view_t* makeView(const std::vector<int64_t>& dims,
                                   float (*f)(size_t)) {
  size_t count = 1;
  for (int64_t d : dims) {
    count *= static_cast<size_t>(d);
  }
  strata_hal_buffer_t* buffer = nullptr;
  strata_status_t status = strata_hal_buffer_allocate(
      strata_allocator_system(), count * sizeof(float), &buffer);
  if (status) {
    report("allocate", status);
    return nullptr;
  }
  uint8_t* data = nullptr;
  status = strata_hal_buffer_map(buffer, 0, count * sizeof(float), &data);
  for (size_t i = 0; !status && i < count; ++i) {
    float value = f(i);
    std::memcpy(data + i * sizeof(float), &value, sizeof(float));
  }
  strata_hal_buffer_view_t* view = nullptr;
  if (!status) {
    status = strata_hal_buffer_view_create(buffer, dims.data(), dims.size(),
                                           STRATA_HAL_ELEMENT_TYPE_FLOAT_32,
                                           strata_allocator_system(), &view);
  }
  strata_hal_buffer_release(buffer);
  if (status) {
    report("view", status);
  }
  return view;
}

float ramp(size_t i) { return static_cast<float>(i) + 1.0f; }
float tens(size_t i) { return 10.0f * (static_cast<float>(i) + 1.0f); }

// Calls add(a, b); returns the result view (owned) or NULL, reporting
// failures unless expect_error names a substring the error must contain.
strata_hal_buffer_view_t* callAdd(strata_vm_context_t* context,
                                  strata_vm_function_t add,
                                  strata_hal_buffer_view_t* a,
                                  strata_hal_buffer_view_t* b,
                                  const char* expect_error = nullptr) {
  strata_vm_value_t args[2];
  args[0].ref = strata_hal_buffer_view_as_ref(a);
  args[1].ref = strata_hal_buffer_view_as_ref(b);
  strata_vm_value_t result;
  result.ref = nullptr;
  strata_status_t status = strata_vm_call(context, add, args, 2, &result, 1);
  if (expect_error) {
    char* text = strata_status_to_string(status);
    if (!status || !std::strstr(text, expect_error)) {
      std::fprintf(stderr,
                   "run_hal_sample: expected an error with '%s', got "
                   "'%s'\n",
                   expect_error, text ? text : "OK");
      ++errors;
    } else {
      std::printf("  error as expected: %s\n", strata_status_message(status));
    }
    std::free(text);
    strata_status_free(status);
    strata_vm_ref_release(result.ref);
    return nullptr;
  }
  if (status) {
    report("hal_sample.add", status);
    return nullptr;
  }
  return strata_hal_buffer_view_from_ref(result.ref);
}

// Checks that out = a + b elementwise over the shape dims.
void checkSum(strata_hal_buffer_view_t* out, const std::vector<int64_t>& dims,
              const char* what) {
  if (!out) {
    return;
  }
  bool shape_ok = strata_hal_buffer_view_rank(out) == dims.size() &&
                  strata_hal_buffer_view_element_type(out) ==
                      STRATA_HAL_ELEMENT_TYPE_FLOAT_32;
  for (size_t i = 0; shape_ok && i < dims.size(); ++i) {
    shape_ok = strata_hal_buffer_view_dim(out, i) == dims[i];
  }
  uint64_t bytes = strata_hal_buffer_view_byte_length(out);
  uint8_t* data = nullptr;
  strata_status_t status = strata_hal_buffer_map(
      strata_hal_buffer_view_buffer(out), 0, bytes, &data);
  if (!shape_ok || status) {
    std::fprintf(stderr, "run_hal_sample: %s: wrong result view\n", what);
    strata_status_free(status);
    ++errors;
    return;
  }
  size_t wrong = 0;
  for (size_t i = 0; i < bytes / sizeof(float); ++i) {
    float value;
    std::memcpy(&value, data + i * sizeof(float), sizeof(float));
    wrong += value != ramp(i) + tens(i);
  }
  std::printf("  %s: %llu elements, %zu wrong\n", what,
              static_cast<unsigned long long>(bytes / sizeof(float)), wrong);
  errors += wrong != 0;
}

void runOn(const char* device_name, const std::vector<uint8_t>& bytes) {
  std::printf("%s:\n", device_name);
  strata_allocator_t allocator = strata_allocator_system();
  strata_vm_instance_t* instance = nullptr;
  strata_hal_device_t* device = nullptr;
  strata_vm_module_t* hal = nullptr;
  strata_vm_module_t* app = nullptr;
  strata_vm_context_t* context = nullptr;
  strata_hal_device_options_t options = {device_name, 0};
  strata_status_t status = strata_vm_instance_create(allocator, &instance);
  if (!status) {
    status = strata_hal_device_create(&options, allocator, &device);
  }
  if (!status) {
    status = strata_hal_module_create(instance, &device, 1, allocator, &hal);
  }
  if (!status) {
    status =
        strata_vm_bytecode_module_load(instance, bytes.data(), bytes.size(),
                                       nullptr, nullptr, allocator, &app);
  }
  if (!status) {
    strata_vm_module_t* modules[] = {hal, app};
    status = strata_vm_context_create(instance, modules, 2, nullptr, allocator,
                                      &context);
  }
  strata_vm_function_t add;
  if (!status) {
    status = strata_vm_context_lookup(context, "hal_sample.add", &add);
  }
  if (status) {
    report("set-up", status);
  } else {
    strata_hal_buffer_view_t* a = makeView({2, 3}, ramp);
    strata_hal_buffer_view_t* b = makeView({2, 3}, tens);
    strata_hal_buffer_view_t* out = callAdd(context, add, a, b);
    checkSum(out, {2, 3}, "2x3xf32");
    strata_vm_ref_release(strata_hal_buffer_view_as_ref(out));

    strata_hal_buffer_view_t* long_a = makeView({1000}, ramp);
    strata_hal_buffer_view_t* long_b = makeView({1000}, tens);
    out = callAdd(context, add, long_a, long_b);
    checkSum(out, {1000}, "1000xf32");
    strata_vm_ref_release(strata_hal_buffer_view_as_ref(out));

    strata_hal_buffer_view_t* scalar_a = makeView({}, ramp);
    strata_hal_buffer_view_t* scalar_b = makeView({}, tens);
    out = callAdd(context, add, scalar_a, scalar_b);
    checkSum(out, {}, "f32 (rank 0)");
    strata_vm_ref_release(strata_hal_buffer_view_as_ref(out));

    strata_hal_buffer_view_t* empty = makeView({0, 3}, tens);
    out = callAdd(context, add, empty, empty);
    checkSum(out, {0, 3}, "0x3xf32");
    strata_vm_ref_release(strata_hal_buffer_view_as_ref(out));

    strata_hal_buffer_view_t* flipped = makeView({3, 2}, tens);
    callAdd(context, add, a, flipped,
            "input 1: expected tensor<2x3xf32>, got tensor<3x2xf32>");
    strata_hal_buffer_view_t* deep = makeView({1, 1, 1, 1, 2}, tens);
    callAdd(context, add, deep, deep, "takes tensors of rank 0 to 4");
    for (strata_hal_buffer_view_t* view :
         {a, b, long_a, long_b, scalar_a, scalar_b, empty, flipped, deep}) {
      strata_vm_ref_release(strata_hal_buffer_view_as_ref(view));
    }
  }
  strata_vm_context_release(context);
  strata_vm_module_release(app);
  strata_vm_module_release(hal);
  strata_hal_device_release(device);
  strata_vm_instance_release(instance);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: run_hal_sample PATH/hal_sample.vmfb\n");
    return 2;
  }
  std::vector<uint8_t> bytes = readFile(argv[1]);
  if (bytes.empty()) {
    std::fprintf(stderr, "run_hal_sample: cannot read %s\n", argv[1]);
    return 1;
  }
  runOn("local-sync", bytes);
  runOn("local-task", bytes);
  if (errors) {
    std::fprintf(stderr, "run_hal_sample: %d check(s) failed\n", errors);
    return 1;
  }
  std::printf("run_hal_sample: ok\n");
  return 0;
}
