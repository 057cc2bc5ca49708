// make_python_modules - writes the builder-made modules the Python tests
// use beyond tests/tools' samples (the compiler is not needed):
//
//   make_python_modules --kernels=sample_kernels.so OUTPUT_DIR
//
//   typed.vmfb        module "typed": functions passing a buffer view
//                     through, with the reflection attributes the compiler
//                     writes: echo_f32(2x3xf32) -> 2x3xf32,
//                     echo_dynamic(?x3xi32) -> ?x3xi32.
//   kernel_fail.vmfb  module "kernel_fail": fail(i32 n) -> i32 loads the
//                     sample kernel library, dispatches its fail_always
//                     kernel over n workgroups, submits and awaits it:
//                     the kernel's failure fails the call.
//   custom_app.vmfb   module "app" over samples/custom_module's native
//                     "custom" module: run(i32 n) -> (i32, i32) calls
//                     custom.add(n) twice; flip(vm.buffer) -> vm.buffer
//                     calls custom.reverse.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "module_builder.h"

namespace {

using namespace strata::vm;
using namespace strata::vm::testing;

constexpr uint32_t kFailAlways = 3;  // export ordinal in sample_kernels.so

#if defined(__aarch64__)
constexpr const char kFormat[] = "embedded-elf-aarch64";
#else
constexpr const char kFormat[] = "embedded-elf-x86_64";
#endif

bool readFile(const std::string& path, std::vector<uint8_t>* out) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) {
    return false;
  }
  uint8_t chunk[65536];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0) {
    out->insert(out->end(), chunk, chunk + got);
  }
  bool ok = !std::ferror(file);
  std::fclose(file);
  return ok;
}

bool writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) {
    std::perror(path.c_str());
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  ok = std::fclose(file) == 0 && ok;
  if (!ok) {
    std::fprintf(stderr, "make_python_modules: cannot write %s\n",
                 path.c_str());
  }
  return ok;
}

std::vector<uint8_t> buildTyped() {
  ModuleBuilder b("typed", 1);
  FunctionBuilder& f32 = b.addFunction("echo_f32", "0r_r");
  f32.op(Opcode::Return).list({ref(0)});
  b.addExport("echo_f32", f32.index(),
              {{"arg0", "2x3xf32"}, {"result0", "2x3xf32"}});
  FunctionBuilder& dynamic = b.addFunction("echo_dynamic", "0r_r");
  dynamic.op(Opcode::Return).list({ref(0)});
  b.addExport("echo_dynamic", dynamic.index(),
              {{"arg0", "?x3xi32"}, {"result0", "?x3xi32"}});
  return b.build();
}

std::vector<uint8_t> buildKernelFail(const std::vector<uint8_t>& kernels) {
  ModuleBuilder mb("kernel_fail", 1);
  mb.addDependency("hal", 1);
  uint32_t devices_get = mb.addImport("hal.devices.get", "0i_r");
  uint32_t executable_create = mb.addImport("hal.executable.create", "0rrr_r");
  uint32_t cb_create = mb.addImport("hal.command_buffer.create", "0rii_r");
  uint32_t cb_dispatch =
      mb.addImport("hal.command_buffer.dispatch", "0rriiiiCiDCrIID_");
  uint32_t cb_finalize = mb.addImport("hal.command_buffer.finalize", "0r_");
  uint32_t fence_create = mb.addImport("hal.fence.create", "0ri_r");
  uint32_t queue_execute = mb.addImport("hal.device.queue.execute", "0rrrCrD_");
  uint32_t fence_await = mb.addImport("hal.fence.await", "0iCrD_i");
  uint32_t format = mb.addRodata(
      std::vector<uint8_t>(kFormat, kFormat + sizeof(kFormat) - 1));
  uint32_t library = mb.addRodata(kernels);

  // Arguments: prim(0) = workgroups.
  FunctionBuilder& f = mb.addFunction("fail", "0i_i");
  f.location("kernel_fail.mlir", 3, 3);
  f.op(Opcode::ConstI32).i32(0).reg(prim(1));
  f.op(Opcode::CallImport).u32(devices_get).list({prim(1)}).list({ref(0)});
  f.op(Opcode::ConstRefRodata).u32(format).reg(ref(1));
  f.op(Opcode::ConstRefRodata).u32(library).reg(ref(2));
  f.op(Opcode::CallImport)
      .u32(executable_create)
      .list({ref(0), ref(1, true), ref(2, true)})
      .list({ref(3)});
  f.op(Opcode::ConstI32).i32(1).reg(prim(2));  // one-shot; also "1"
  f.op(Opcode::CallImport)
      .u32(cb_create)
      .list({ref(0), prim(2), prim(1)})
      .list({ref(4)});
  f.op(Opcode::ConstI32).i32(kFailAlways).reg(prim(3));
  f.location("kernel_fail.mlir", 5, 5);
  f.op(Opcode::CallVariadic)
      .u32(cb_dispatch)
      .sizes({0, 0})
      .list({ref(4), ref(3, true), prim(3), prim(0), prim(2), prim(2)})
      .list({});
  f.op(Opcode::CallImport).u32(cb_finalize).list({ref(4)}).list({});
  f.op(Opcode::CallImport)
      .u32(fence_create)
      .list({ref(0), prim(1)})
      .list({ref(5)});
  f.op(Opcode::ConstRefZero).reg(ref(6));
  f.location("kernel_fail.mlir", 6, 5);
  f.op(Opcode::CallVariadic)
      .u32(queue_execute)
      .sizes({1})
      .list({ref(0, true), ref(6), ref(5), ref(4, true)})
      .list({});
  f.op(Opcode::ConstI32).i32(-1).reg(prim(4));  // no timeout
  f.location("kernel_fail.mlir", 7, 5);
  f.op(Opcode::CallVariadic)
      .u32(fence_await)
      .sizes({1})
      .list({prim(4), ref(5, true)})
      .list({prim(5)});
  f.op(Opcode::Return).list({prim(5)});
  mb.addExport("fail", f.index());
  return mb.build();
}

// samples/custom_module/main.cpp's app, made the same way.
std::vector<uint8_t> buildCustomApp() {
  ModuleBuilder mb("app");
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
  if (argc != 3 || std::strncmp(argv[1], "--kernels=", 10) != 0) {
    std::fprintf(stderr,
                 "usage: make_python_modules --kernels=sample_kernels.so "
                 "OUTPUT_DIR\n");
    return 2;
  }
  std::vector<uint8_t> kernels;
  if (!readFile(argv[1] + 10, &kernels) || kernels.empty()) {
    std::fprintf(stderr, "make_python_modules: cannot read %s\n", argv[1] + 10);
    return 1;
  }
  std::string dir = argv[2];
  bool ok = writeFile(dir + "/typed.vmfb", buildTyped());
  ok = writeFile(dir + "/kernel_fail.vmfb", buildKernelFail(kernels)) && ok;
  ok = writeFile(dir + "/custom_app.vmfb", buildCustomApp()) && ok;
  return ok ? 0 : 1;
}
