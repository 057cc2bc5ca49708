// main.cpp - the custom_module sample: a bytecode module calls the native
// "custom" module.
//
//   custom_module_sample [APP.vmfb]
//
//   app.run(i32 n) -> (i32, i32): calls custom.add(n) twice, returns both
//   app.flip(ref) -> ref:         returns custom.reverse(buffer)
//
// APP.vmfb is app.mlir compiled by strata-compile (the build does that when
// it builds the compiler). Without it, the sample makes the same module with
// the installed module writer (strata-module-writer), so that runtime-only
// builds run it too. Everything else is the runtime's installed API.
//
// It runs app.run in two contexts to show that each has its own counter, and
// flips a buffer. It exits non-zero if any result is wrong.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "custom_module.h"
#include "module_writer.h"
#include "strata/vm/vm.h"

using namespace strata::vm;
using namespace strata::vm::writer;

namespace {

int fail(strata_status_t status, const char* what) {
  char* text = strata_status_to_string(status);
  std::fprintf(stderr, "custom_module: %s: %s\n", what, text ? text : "");
  std::free(text);
  strata_status_free(status);
  return 1;
}

std::vector<uint8_t> buildApp() {
  ModuleWriter mb("app");
  mb.addDependency("custom", 1);
  uint32_t add = mb.addImport("custom.add", "0i_i");
  uint32_t reverse = mb.addImport("custom.reverse", "0r_r");
  auto& run = mb.addFunction("run", "0i_ii");
  run.location("app.mlir", 11, 14);
  run.op(Opcode::CallImport).u32(add).list({prim(0)}).list({prim(1)});
  run.location("app.mlir", 12, 15);
  run.op(Opcode::CallImport).u32(add).list({prim(0)}).list({prim(2)});
  run.op(Opcode::Return).list({prim(1), prim(2)});
  mb.addExport("run", run.index());
  auto& flip = mb.addFunction("flip", "0r_r");
  flip.location("app.mlir", 18, 17);
  flip.op(Opcode::CallImport).u32(reverse).list({ref(0, true)}).list({ref(1)});
  flip.op(Opcode::Return).list({ref(1, true)});
  mb.addExport("flip", flip.index());
  return mb.build();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2) {
    std::fprintf(stderr, "usage: custom_module_sample [APP.vmfb]\n");
    return 2;
  }
  strata_allocator_t allocator = strata_allocator_system();
  strata_vm_instance_t* instance = nullptr;
  strata_status_t status = strata_vm_instance_create(allocator, &instance);
  if (status) return fail(status, "instance");

  strata_vm_module_t* custom = nullptr;
  status = custom_module_create(allocator, &custom);
  if (status) return fail(status, "custom module");
  strata_vm_module_t* app = nullptr;
  if (argc == 2) {
    status = strata_vm_bytecode_module_load_file(instance, argv[1], nullptr,
                                                 allocator, &app);
    if (status) return fail(status, "load app");
    std::printf("app module: %s (compiled from app.mlir)\n", argv[1]);
  } else {
    // The bytes are copied (no release function), so they may go after.
    std::vector<uint8_t> bytes = buildApp();
    status =
        strata_vm_bytecode_module_load(instance, bytes.data(), bytes.size(),
                                       nullptr, nullptr, allocator, &app);
    if (status) return fail(status, "load app");
    std::printf("app module: made with the module writer\n");
  }

  strata_vm_module_t* modules[] = {custom, app};
  int errors = 0;
  for (int c = 0; c < 2; ++c) {
    strata_vm_context_t* context = nullptr;
    status = strata_vm_context_create(instance, modules, 2, nullptr, allocator,
                                      &context);
    if (status) return fail(status, "context");
    strata_vm_function_t run;
    status = strata_vm_context_lookup(context, "app.run", &run);
    if (status) return fail(status, "lookup");
    strata_vm_value_t arg;
    arg.bits = 0;
    arg.i32 = 5 + c;
    strata_vm_value_t results[2];
    status = strata_vm_call(context, run, &arg, 1, results, 2);
    if (status) return fail(status, "app.run");
    std::printf("context %d: app.run(%d) -> %d, %d\n", c, arg.i32,
                results[0].i32, results[1].i32);
    if (results[0].i32 != arg.i32 || results[1].i32 != 2 * arg.i32) {
      std::fprintf(stderr, "custom_module: wrong counter values\n");
      ++errors;
    }

    strata_vm_function_t flip;
    status = strata_vm_context_lookup(context, "app.flip", &flip);
    if (status) return fail(status, "lookup");
    strata_vm_buffer_t* buffer = nullptr;
    status = strata_vm_buffer_create(4, 0, allocator, &buffer);
    if (status) return fail(status, "buffer");
    std::memcpy(strata_vm_buffer_data(buffer), "abcd", 4);
    strata_vm_value_t in;
    in.ref = strata_vm_buffer_as_ref(buffer);
    strata_vm_value_t out;
    status = strata_vm_call(context, flip, &in, 1, &out, 1);
    if (status) return fail(status, "app.flip");
    strata_vm_buffer_t* flipped = strata_vm_buffer_from_ref(out.ref);
    std::printf("context %d: app.flip(\"abcd\") -> \"%.*s\"\n", c,
                static_cast<int>(flipped ? strata_vm_buffer_length(flipped) : 0),
                flipped ? reinterpret_cast<char*>(strata_vm_buffer_data(flipped))
                        : "");
    if (!flipped || strata_vm_buffer_length(flipped) != 4 ||
        std::memcmp(strata_vm_buffer_data(flipped), "dcba", 4) != 0) {
      std::fprintf(stderr, "custom_module: wrong reversed buffer\n");
      ++errors;
    }
    strata_vm_ref_release(out.ref);

    // A list passed where a buffer is expected fails with a clear message.
    strata_vm_list_t* list = nullptr;
    status = strata_vm_list_create(0, allocator, &list);
    if (status) return fail(status, "list");
    in.ref = strata_vm_list_as_ref(list);
    status = strata_vm_call(context, flip, &in, 1, &out, 1);
    if (!status) {
      std::fprintf(stderr, "custom_module: a vm.list was accepted\n");
      ++errors;
    } else {
      char* text = strata_status_to_string(status);
      std::printf("context %d: app.flip(list) fails: %s\n", c, text);
      // The error names the bad argument and where app.flip made the call.
      if (!std::strstr(text, "argument 0 (input) must be a vm.buffer") ||
          !std::strstr(text, "app.flip") || !std::strstr(text, "app.mlir:")) {
        ++errors;
      }
      std::free(text);
      strata_status_free(status);
    }
    strata_vm_list_release(list);
    strata_vm_buffer_release(buffer);
    strata_vm_context_release(context);
  }
  strata_vm_module_release(app);
  strata_vm_module_release(custom);
  strata_vm_instance_release(instance);
  if (errors) {
    std::fprintf(stderr, "custom_module: %d check(s) failed\n", errors);
    return 1;
  }
  std::printf("custom_module: ok\n");
  return 0;
}
