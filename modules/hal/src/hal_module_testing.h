// hal_module_testing.h - what the hal module's tests share: the contract
// table, App (a bytecode module importing hal.* written with the module
// builder), a fixture linking it with the hal module over one device, and
// host-side views. Header-only so that doctest registration stays in the
// test binary.
#ifndef STRATA_MODULES_HAL_SRC_HAL_MODULE_TESTING_H_
#define STRATA_MODULES_HAL_SRC_HAL_MODULE_TESTING_H_

#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "module_builder.h"
#include "strata/modules/hal/module.h"
#include "vm_harness.h"

namespace strata::hal::testing {

using namespace strata::vm;
using namespace strata::vm::testing;

// The contract: every export of the hal module and its calling convention,
// written out independently of schemas/hal_imports.def (which the module and
// the compiler expand) so that a change to a released row fails here.
inline const std::map<std::string, std::string> kHalContract = {
    {"devices.count", "0_i"},
    {"devices.get", "0i_r"},
    {"device.allocator", "0r_r"},
    {"allocator.allocate", "0rI_r"},
    {"allocator.allocate_uninitialized", "0rI_r"},
    {"buffer.length", "0r_I"},
    {"buffer.subspan", "0rII_r"},
    {"buffer.wrap", "0r_r"},
    {"buffer.load", "0rIi_i"},
    {"buffer.store", "0irIi_"},
    {"buffer.assert", "0rrI_"},
    {"buffer_view.create", "0rIIiiCID_r"},
    {"buffer_view.assert", "0rriiCID_"},
    {"buffer_view.buffer", "0r_r"},
    {"buffer_view.element_type", "0r_i"},
    {"buffer_view.rank", "0r_i"},
    {"buffer_view.dim", "0ri_I"},
    {"executable.create", "0rrr_r"},
    {"executable.create_first", "0rCrrD_r"},
    {"command_buffer.create", "0rii_r"},
    {"command_buffer.finalize", "0r_"},
    {"command_buffer.dispatch", "0rriiiiCiDCrIID_"},
    {"command_buffer.fill_buffer", "0rrIIii_"},
    {"command_buffer.copy_buffer", "0rrIrII_"},
    {"command_buffer.execution_barrier", "0r_"},
    {"device.queue.alloca", "0rrrI_r"},
    {"device.queue.dealloca", "0rrrr_"},
    {"device.queue.execute", "0rrrCrD_"},
    {"device.queue.barrier", "0rrr_"},
    {"fence.create", "0ri_r"},
    {"fence.join", "0CrD_r"},
    {"fence.query", "0r_i"},
    {"fence.signal", "0r_"},
    {"fence.fail", "0ri_"},
    {"fence.await", "0iCrD_i"},
};

inline constexpr int32_t kF32 =
    static_cast<int32_t>(STRATA_HAL_ELEMENT_TYPE_FLOAT_32);
inline constexpr int32_t kAwaitMs =
    10000;  // every wait in these tests is bounded
inline constexpr uint32_t kAdd = 0, kMul = 1, kMatmul = 2, kFailAlways = 3;

#if defined(__x86_64__)
inline const char* const kElfFormat = "embedded-elf-x86_64";
#else
inline const char* const kElfFormat = "embedded-elf-aarch64";
#endif

inline std::vector<uint8_t> bytesOf(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

// The bytes of a file; empty when it cannot be read.
inline std::vector<uint8_t> readFile(const char* path) {
  std::vector<uint8_t> bytes;
  FILE* file = std::fopen(path, "rb");
  if (!file) {
    return bytes;
  }
  uint8_t chunk[4096];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0) {
    bytes.insert(bytes.end(), chunk, chunk + got);
  }
  std::fclose(file);
  return bytes;
}

inline const std::vector<uint8_t>& sampleKernels() {
  static const std::vector<uint8_t> bytes =
      readFile(STRATA_TEST_SAMPLE_KERNELS_PATH);
  return bytes;
}

inline float asFloat(int32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// A bytecode module "app" that imports hal.* by name, with the contract's
// calling conventions, as the compiler will, and depends on hal >=
// hal_version as compiled modules do.
class App {
 public:
  explicit App(uint32_t hal_version = STRATA_HAL_MODULE_VERSION) : mb_("app") {
    mb_.addDependency("hal", hal_version);
  }

  ModuleBuilder& builder() { return mb_; }

  // The import ordinal of hal.<name>, added on first use.
  uint32_t hal(const std::string& name) {
    auto it = imports_.find(name);
    if (it != imports_.end()) {
      return it->second;
    }
    auto contract = kHalContract.find(name);
    REQUIRE_MESSAGE(contract != kHalContract.end(), name);
    uint32_t ordinal = mb_.addImport("hal." + name, contract->second);
    imports_[name] = ordinal;
    return ordinal;
  }

  // Rodata holding the sample kernels and the format string.
  uint32_t kernelsRodata() {
    if (!kernels_) {
      REQUIRE_MESSAGE(!sampleKernels().empty(),
                      "cannot read " STRATA_TEST_SAMPLE_KERNELS_PATH);
      kernels_ = mb_.addRodata(sampleKernels());
      format_ = mb_.addRodata(bytesOf(kElfFormat));
    }
    return *kernels_;
  }
  uint32_t formatRodata() {
    kernelsRodata();
    return *format_;
  }

  FunctionBuilder& function(const std::string& name, const std::string& cconv,
                            uint32_t line) {
    FunctionBuilder& f = mb_.addFunction(name, cconv);
    f.location("app.mlir", line, 3);
    mb_.addExport(name, f.index());
    return f;
  }

  // f: calls hal.<name>.
  void call(FunctionBuilder& f, const std::string& name,
            std::vector<uint16_t> args, std::vector<uint16_t> results) {
    f.op(Opcode::CallImport).u32(hal(name)).list(args).list(results);
  }
  void callv(FunctionBuilder& f, const std::string& name,
             std::initializer_list<uint16_t> sizes, std::vector<uint16_t> args,
             std::vector<uint16_t> results) {
    f.op(Opcode::CallVariadic)
        .u32(hal(name))
        .sizes(sizes)
        .list(args)
        .list(results);
  }

  // ref(dst) = the executable of the sample kernels on device ref(device).
  void createExecutable(FunctionBuilder& f, uint16_t device, uint16_t format,
                        uint16_t library, uint16_t dst) {
    f.op(Opcode::ConstRefRodata).u32(formatRodata()).reg(ref(format));
    f.op(Opcode::ConstRefRodata).u32(kernelsRodata()).reg(ref(library));
    call(f, "executable.create", {ref(device), ref(format), ref(library)},
         {ref(dst)});
  }

  // Submits command buffer ref(cb) (finalizing it first) on ref(device)
  // with a new signal fence in ref(fence), then awaits it into prim(status).
  // Uses prims scratch, scratch + 1 and ref null.
  void submitAndAwait(FunctionBuilder& f, uint16_t device, uint16_t cb,
                      uint16_t fence, uint16_t null, uint16_t scratch,
                      uint16_t status) {
    call(f, "command_buffer.finalize", {ref(cb)}, {});
    f.op(Opcode::ConstI32).i32(0).reg(prim(scratch));
    call(f, "fence.create", {ref(device), prim(scratch)}, {ref(fence)});
    f.op(Opcode::ConstRefZero).reg(ref(null));
    callv(f, "device.queue.execute", {1},
          {ref(device), ref(null), ref(fence), ref(cb)}, {});
    f.op(Opcode::ConstI32).i32(kAwaitMs).reg(prim(scratch + 1));
    callv(f, "fence.await", {1}, {prim(scratch + 1), ref(fence)},
          {prim(status)});
  }

 private:
  ModuleBuilder mb_;
  std::map<std::string, uint32_t> imports_;
  std::optional<uint32_t> kernels_;
  std::optional<uint32_t> format_;
};

// Owns one device.
struct Device {
  explicit Device(const char* name, uint32_t workers = 4) {
    strata_hal_device_options_t options = {name, workers};
    StatusText s(
        strata_hal_device_create(&options, strata_allocator_system(), &ptr));
    REQUIRE_MESSAGE(s.ok(), s.str);
  }
  ~Device() { strata_hal_device_release(ptr); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  strata_hal_device_t* ptr = nullptr;
};

// Owns one reference to a ref object.
struct Owned {
  explicit Owned(strata_vm_ref_object_t* p = nullptr) : ptr(p) {}
  ~Owned() { strata_vm_ref_release(ptr); }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  strata_vm_ref_object_t* ptr;
};

// A context of the hal module over one device and the app module.
struct Fixture {
  Fixture(const std::string& device_name, App& app)
      : device(device_name.c_str()) {
    strata_vm_module_t* hal = nullptr;
    StatusText s(strata_hal_module_create(h.instance, &device.ptr, 1,
                                          strata_allocator_system(), &hal));
    REQUIRE_MESSAGE(s.ok(), s.str);
    h.add(hal);
    StatusText loaded(h.load(app.builder()));
    REQUIRE_MESSAGE(loaded.ok(), loaded.str);
    StatusText linked(h.link());
    REQUIRE_MESSAGE(linked.ok(), linked.str);
  }

  // Calls app.<name>; ref results are owned by the caller (see Owned).
  strata_status_t call(const std::string& name,
                       std::vector<strata_vm_value_t> args,
                       size_t result_count) {
    return h.call("app." + name, std::move(args), &results, result_count);
  }

  Device device;
  Harness h;
  std::vector<strata_vm_value_t> results;
};

// A host-made f32 view of shape dims holding values.
inline strata_hal_buffer_view_t* makeView(const std::vector<int64_t>& dims,
                                          const std::vector<float>& values) {
  strata_hal_buffer_t* buffer = nullptr;
  uint64_t bytes = values.size() * sizeof(float);
  REQUIRE(strata_hal_buffer_allocate(strata_allocator_system(), bytes,
                                     &buffer) == nullptr);
  uint8_t* data = nullptr;
  REQUIRE(strata_hal_buffer_map(buffer, 0, bytes, &data) == nullptr);
  std::memcpy(data, values.data(), bytes);
  strata_hal_buffer_view_t* view = nullptr;
  StatusText s(strata_hal_buffer_view_create(buffer, dims.data(), dims.size(),
                                             STRATA_HAL_ELEMENT_TYPE_FLOAT_32,
                                             strata_allocator_system(), &view));
  strata_hal_buffer_release(buffer);
  REQUIRE_MESSAGE(s.ok(), s.str);
  return view;
}

// The f32 contents of a view.
inline std::vector<float> viewValues(strata_hal_buffer_view_t* view) {
  uint64_t bytes = strata_hal_buffer_view_byte_length(view);
  uint8_t* data = nullptr;
  REQUIRE(strata_hal_buffer_map(strata_hal_buffer_view_buffer(view), 0, bytes,
                                &data) == nullptr);
  std::vector<float> values(bytes / sizeof(float));
  std::memcpy(values.data(), data, bytes);
  return values;
}

inline const std::string kDevices[] = {"local-sync", "local-task"};

}  // namespace strata::hal::testing

#endif  // STRATA_MODULES_HAL_SRC_HAL_MODULE_TESTING_H_
