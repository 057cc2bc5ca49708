// hal_module_test.cpp - the hal VM module driven by bytecode: buffers, views,
// executables loaded from rodata, dispatches of the sample kernels submitted
// with fences on local-sync and local-task, and every error message the
// compiler's programs rely on.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "module_builder.h"
#include "sample_kernels.h"
#include "strata/hal/module.h"
#include "vm_harness.h"

using namespace strata::vm;
using namespace strata::vm::testing;

namespace {

// The contract: every export of the hal module and its calling convention,
// written out independently of hal_module.cpp so that a change to either
// fails here.
const std::map<std::string, std::string> kHalContract = {
    {"devices.count", "0_i"},
    {"devices.get", "0i_r"},
    {"device.allocator", "0r_r"},
    {"allocator.allocate", "0rI_r"},
    {"buffer.length", "0r_I"},
    {"buffer.subspan", "0rII_r"},
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

constexpr int32_t kF32 = static_cast<int32_t>(STRATA_HAL_ELEMENT_TYPE_FLOAT_32);
constexpr int32_t kAwaitMs = 10000;  // every wait in these tests is bounded
constexpr uint32_t kAdd = 0, kMul = 1, kMatmul = 2, kFailAlways = 3;

#if defined(__x86_64__)
const char* const kElfFormat = "embedded-elf-x86_64";
#else
const char* const kElfFormat = "embedded-elf-aarch64";
#endif

std::vector<uint8_t> bytesOf(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

// The bytes of a file; empty when it cannot be read.
std::vector<uint8_t> readFile(const char* path) {
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

const std::vector<uint8_t>& sampleKernels() {
  static const std::vector<uint8_t> bytes =
      readFile(STRATA_TEST_SAMPLE_KERNELS_PATH);
  return bytes;
}

float asFloat(int32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// A bytecode module "app" that imports hal.* by name, with the contract's
// calling conventions, as the compiler will.
class App {
 public:
  App() : mb_("app") { mb_.addDependency("hal", STRATA_HAL_MODULE_VERSION); }

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

// app.small(i32 ordinal) -> (i32 status, i32 out0, i32 out1, i32 out2):
// everything in bytecode. Allocates a, b and out of three f32 each, stores
// the inputs with buffer.store, dispatches export `ordinal` (add_f32 or
// mul_f32), submits, awaits and reads out back with buffer.load.
const float kSmallA[3] = {1.5f, 2.0f, -3.0f};
const float kSmallB[3] = {4.0f, 0.5f, 10.0f};
void buildSmall(App& app) {
  FunctionBuilder& f = app.function("small", "0i_iiii", 10);
  f.op(Opcode::ConstI32).i32(0).reg(prim(1));
  app.call(f, "devices.get", {prim(1)}, {ref(0)});
  app.call(f, "device.allocator", {ref(0)}, {ref(1)});
  f.op(Opcode::ConstI64).i64(12).reg(prim(2));
  for (uint16_t r = 2; r <= 4; ++r) {
    app.call(f, "allocator.allocate", {ref(1), prim(2)}, {ref(r)});
  }
  f.op(Opcode::ConstI32).i32(4).reg(prim(5));
  for (int i = 0; i < 3; ++i) {
    f.op(Opcode::ConstI64).i64(4 * i).reg(prim(4));
    f.op(Opcode::ConstF32).f32(kSmallA[i]).reg(prim(3));
    app.call(f, "buffer.store", {prim(3), ref(2), prim(4), prim(5)}, {});
    f.op(Opcode::ConstF32).f32(kSmallB[i]).reg(prim(3));
    app.call(f, "buffer.store", {prim(3), ref(3), prim(4), prim(5)}, {});
  }
  app.createExecutable(f, 0, 5, 6, 7);
  f.op(Opcode::ConstI32).i32(1).reg(prim(6));  // one-shot; also "1"
  f.op(Opcode::ConstI32).i32(0).reg(prim(7));
  app.call(f, "command_buffer.create", {ref(0), prim(6), prim(7)}, {ref(8)});
  f.op(Opcode::ConstI32).i32(3).reg(prim(8));
  f.op(Opcode::ConstI64).i64(0).reg(prim(10));
  f.op(Opcode::ConstI64).i64(-1).reg(prim(11));
  f.location("app.mlir", 20, 5);
  app.callv(f, "command_buffer.dispatch", {1, 3},
            {ref(8), ref(7), prim(0), prim(6), prim(6), prim(6), prim(8),
             ref(2), prim(10), prim(11), ref(3), prim(10), prim(11), ref(4),
             prim(10), prim(11)},
            {});
  app.submitAndAwait(f, 0, 8, 9, 10, 20, 13);
  for (uint16_t i = 0; i < 3; ++i) {
    f.op(Opcode::ConstI64).i64(4 * i).reg(prim(4));
    app.call(f, "buffer.load", {ref(4), prim(4), prim(5)}, {prim(14 + i)});
  }
  f.op(Opcode::Return).list({prim(13), prim(14), prim(15), prim(16)});
}

// app.binary(view a, view b, i32 ordinal) -> view: out = a (op) b for f32
// vectors of any length n; asserts b matches a's shape, dispatches
// ceil(n / 64) workgroups with n as the constant.
void buildBinary(App& app) {
  FunctionBuilder& f = app.function("binary", "0rri_r", 30);
  uint32_t message = app.builder().addRodata(bytesOf("input 1"));
  f.op(Opcode::ConstI32).i32(0).reg(prim(1));
  app.call(f, "buffer_view.dim", {ref(0), prim(1)}, {prim(2)});  // n (i64)
  f.op(Opcode::ConstRefRodata).u32(message).reg(ref(2));
  f.op(Opcode::ConstI32).i32(kF32).reg(prim(3));
  app.callv(f, "buffer_view.assert", {1},
            {ref(1), ref(2), prim(3), prim(1), prim(2)}, {});
  app.call(f, "devices.get", {prim(1)}, {ref(3)});
  app.call(f, "device.allocator", {ref(3)}, {ref(4)});
  f.op(Opcode::ConstI64).i64(4).reg(prim(4));
  f.op(Opcode::MulI64).reg(prim(2)).reg(prim(4)).reg(prim(5));  // bytes
  app.call(f, "allocator.allocate", {ref(4), prim(5)}, {ref(5)});
  app.call(f, "buffer_view.buffer", {ref(0)}, {ref(6)});
  app.call(f, "buffer_view.buffer", {ref(1)}, {ref(7)});
  app.createExecutable(f, 3, 8, 9, 10);
  f.op(Opcode::ConstI32).i32(1).reg(prim(6));
  app.call(f, "command_buffer.create", {ref(3), prim(6), prim(1)}, {ref(11)});
  f.op(Opcode::TruncI64I32).reg(prim(2)).reg(prim(7));  // n (i32)
  f.op(Opcode::ConstI32).i32(63).reg(prim(8));
  f.op(Opcode::AddI32).reg(prim(7)).reg(prim(8)).reg(prim(9));
  f.op(Opcode::ConstI32).i32(6).reg(prim(8));
  f.op(Opcode::ShrUI32).reg(prim(9)).reg(prim(8)).reg(prim(9));  // groups
  f.op(Opcode::ConstI64).i64(0).reg(prim(10));
  f.op(Opcode::ConstI64).i64(-1).reg(prim(11));
  app.callv(f, "command_buffer.dispatch", {1, 3},
            {ref(11), ref(10), prim(0), prim(9), prim(6), prim(6), prim(7),
             ref(6), prim(10), prim(11), ref(7), prim(10), prim(11), ref(5),
             prim(10), prim(11)},
            {});
  app.submitAndAwait(f, 3, 11, 12, 13, 20, 12);
  f.op(Opcode::ConstI32).i32(STRATA_STATUS_DEADLINE_EXCEEDED).reg(prim(13));
  f.op(Opcode::CondFail).reg(prim(12)).reg(prim(13)).str("await timed out");
  app.callv(f, "buffer_view.create", {1},
            {ref(5), prim(10), prim(5), prim(3), prim(1), prim(2)}, {ref(14)});
  f.op(Opcode::Return).list({ref(14)});
}

// app.matmul(view a, view b) -> view: C[MxN] = A[MxK] * B[KxN] with
// constants M, N, K over ceil(M / 8) x ceil(N / 8) workgroups.
void buildMatmul(App& app) {
  FunctionBuilder& f = app.function("matmul", "0rr_r", 50);
  f.op(Opcode::ConstI32).i32(0).reg(prim(0));
  f.op(Opcode::ConstI32).i32(1).reg(prim(1));
  app.call(f, "buffer_view.dim", {ref(0), prim(0)}, {prim(2)});  // M
  app.call(f, "buffer_view.dim", {ref(0), prim(1)}, {prim(3)});  // K
  app.call(f, "buffer_view.dim", {ref(1), prim(1)}, {prim(4)});  // N
  app.call(f, "devices.get", {prim(0)}, {ref(2)});
  app.call(f, "device.allocator", {ref(2)}, {ref(3)});
  f.op(Opcode::MulI64).reg(prim(2)).reg(prim(4)).reg(prim(5));
  f.op(Opcode::ConstI64).i64(4).reg(prim(6));
  f.op(Opcode::MulI64).reg(prim(5)).reg(prim(6)).reg(prim(7));  // bytes
  app.call(f, "allocator.allocate", {ref(3), prim(7)}, {ref(4)});
  app.call(f, "buffer_view.buffer", {ref(0)}, {ref(5)});
  app.call(f, "buffer_view.buffer", {ref(1)}, {ref(6)});
  app.createExecutable(f, 2, 8, 9, 7);
  app.call(f, "command_buffer.create", {ref(2), prim(1), prim(0)}, {ref(8)});
  f.op(Opcode::TruncI64I32).reg(prim(2)).reg(prim(8));   // M
  f.op(Opcode::TruncI64I32).reg(prim(4)).reg(prim(9));   // N
  f.op(Opcode::TruncI64I32).reg(prim(3)).reg(prim(10));  // K
  f.op(Opcode::ConstI32).i32(7).reg(prim(11));
  f.op(Opcode::ConstI32).i32(3).reg(prim(12));
  f.op(Opcode::AddI32).reg(prim(8)).reg(prim(11)).reg(prim(13));
  f.op(Opcode::ShrUI32).reg(prim(13)).reg(prim(12)).reg(prim(13));
  f.op(Opcode::AddI32).reg(prim(9)).reg(prim(11)).reg(prim(14));
  f.op(Opcode::ShrUI32).reg(prim(14)).reg(prim(12)).reg(prim(14));
  f.op(Opcode::ConstI64).i64(0).reg(prim(15));
  f.op(Opcode::ConstI64).i64(-1).reg(prim(16));
  f.op(Opcode::ConstI32).i32(kMatmul).reg(prim(17));
  app.callv(f, "command_buffer.dispatch", {3, 3},
            {ref(8), ref(7), prim(17), prim(13), prim(14), prim(1), prim(8),
             prim(9), prim(10), ref(5), prim(15), prim(16), ref(6), prim(15),
             prim(16), ref(4), prim(15), prim(16)},
            {});
  app.submitAndAwait(f, 2, 8, 9, 10, 20, 18);
  f.op(Opcode::ConstI32).i32(STRATA_STATUS_DEADLINE_EXCEEDED).reg(prim(19));
  f.op(Opcode::CondFail).reg(prim(18)).reg(prim(19)).str("await timed out");
  f.op(Opcode::ConstI32).i32(kF32).reg(prim(20));
  app.callv(f, "buffer_view.create", {2},
            {ref(4), prim(15), prim(7), prim(20), prim(0), prim(2), prim(4)},
            {ref(11)});
  f.op(Opcode::Return).list({ref(11)});
}

// app.fail() -> i32: dispatches fail_always and awaits the result.
void buildFail(App& app) {
  FunctionBuilder& f = app.function("fail", "0_i", 70);
  f.op(Opcode::ConstI32).i32(0).reg(prim(0));
  f.op(Opcode::ConstI32).i32(1).reg(prim(1));
  f.op(Opcode::ConstI32).i32(kFailAlways).reg(prim(2));
  app.call(f, "devices.get", {prim(0)}, {ref(0)});
  app.createExecutable(f, 0, 1, 2, 3);
  app.call(f, "command_buffer.create", {ref(0), prim(1), prim(0)}, {ref(4)});
  app.callv(f, "command_buffer.dispatch", {0, 0},
            {ref(4), ref(3), prim(2), prim(1), prim(1), prim(1)}, {});
  f.location("app.mlir", 75, 7);
  app.submitAndAwait(f, 0, 4, 5, 6, 10, 3);
  f.op(Opcode::Return).list({prim(3)});
}

// app.gated(fence gate) -> i32: submits a barrier-only command buffer that
// waits on gate, then awaits its signal fence.
void buildGated(App& app) {
  FunctionBuilder& f = app.function("gated", "0r_i", 90);
  f.op(Opcode::ConstI32).i32(0).reg(prim(0));
  f.op(Opcode::ConstI32).i32(1).reg(prim(1));
  app.call(f, "devices.get", {prim(0)}, {ref(1)});
  app.call(f, "command_buffer.create", {ref(1), prim(1), prim(0)}, {ref(2)});
  app.call(f, "command_buffer.execution_barrier", {ref(2)}, {});
  app.call(f, "command_buffer.finalize", {ref(2)}, {});
  app.call(f, "fence.create", {ref(1), prim(0)}, {ref(3)});
  app.callv(f, "device.queue.execute", {1}, {ref(1), ref(0), ref(3), ref(2)},
            {});
  f.op(Opcode::ConstI32).i32(kAwaitMs).reg(prim(2));
  app.callv(f, "fence.await", {1}, {prim(2), ref(3)}, {prim(3)});
  f.op(Opcode::Return).list({prim(3)});
}

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
strata_hal_buffer_view_t* makeView(const std::vector<int64_t>& dims,
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
std::vector<float> viewValues(strata_hal_buffer_view_t* view) {
  uint64_t bytes = strata_hal_buffer_view_byte_length(view);
  uint8_t* data = nullptr;
  REQUIRE(strata_hal_buffer_map(strata_hal_buffer_view_buffer(view), 0, bytes,
                                &data) == nullptr);
  std::vector<float> values(bytes / sizeof(float));
  std::memcpy(values.data(), data, bytes);
  return values;
}

const std::string kDevices[] = {"local-sync", "local-task"};

}  // namespace

TEST_SUITE("hal.module") {
  TEST_CASE("exports the documented contract") {
    Harness h;
    strata_vm_module_t* hal = nullptr;
    REQUIRE(strata_hal_module_create(h.instance, nullptr, 0,
                                     strata_allocator_system(),
                                     &hal) == nullptr);
    h.add(hal);
    CHECK(std::string(strata_vm_module_name(hal)) == "hal");
    CHECK(strata_vm_module_version(hal) == STRATA_HAL_MODULE_VERSION);
    std::map<std::string, std::string> exports;
    for (size_t i = 0; i < strata_vm_module_export_count(hal); ++i) {
      strata_vm_export_info_t info;
      REQUIRE(strata_vm_module_export_info(hal, i, &info) == nullptr);
      exports[info.name] = info.calling_convention;
    }
    CHECK(exports == kHalContract);
    // Every HAL type is registered, so modules may name them.
    for (const char* name :
         {"hal.buffer", "hal.buffer_view", "hal.device", "hal.allocator",
          "hal.executable", "hal.command_buffer", "hal.semaphore",
          "hal.fence"}) {
      CAPTURE(name);
      CHECK(strata_vm_instance_lookup_type(h.instance, name,
                                           std::strlen(name)) != nullptr);
    }
  }

  TEST_CASE("bytecode stores inputs, dispatches add and mul, loads results") {
    for (const std::string& device : kDevices) {
      CAPTURE(device);
      App app;
      buildSmall(app);
      Fixture fx(device, app);
      for (uint32_t ordinal : {kAdd, kMul}) {
        CAPTURE(ordinal);
        StatusText s(
            fx.call("small", {vI32(static_cast<int32_t>(ordinal))}, 4));
        REQUIRE_MESSAGE(s.ok(), s.str);
        CHECK(fx.results[0].i32 == 0);
        for (int i = 0; i < 3; ++i) {
          float expected = ordinal == kAdd ? kSmallA[i] + kSmallB[i]
                                           : kSmallA[i] * kSmallB[i];
          CHECK(asFloat(fx.results[1 + i].i32) == expected);
        }
      }
    }
  }

  TEST_CASE("element-wise kernels over views of any length") {
    for (const std::string& device : kDevices) {
      CAPTURE(device);
      App app;
      buildBinary(app);
      Fixture fx(device, app);
      for (int64_t n : {int64_t{1}, int64_t{64}, int64_t{1000}}) {
        CAPTURE(n);
        std::vector<float> a(n), b(n);
        for (int64_t i = 0; i < n; ++i) {
          a[i] = static_cast<float>(i) * 0.5f;
          b[i] = 3.0f - static_cast<float>(i);
        }
        Owned va(strata_hal_buffer_view_as_ref(makeView({n}, a)));
        Owned vb(strata_hal_buffer_view_as_ref(makeView({n}, b)));
        for (uint32_t ordinal : {kAdd, kMul}) {
          StatusText s(fx.call(
              "binary",
              {vRef(va.ptr), vRef(vb.ptr), vI32(static_cast<int32_t>(ordinal))},
              1));
          REQUIRE_MESSAGE(s.ok(), s.str);
          Owned out(fx.results[0].ref);
          strata_hal_buffer_view_t* view =
              strata_hal_buffer_view_from_ref(out.ptr);
          REQUIRE(view != nullptr);
          REQUIRE(strata_hal_buffer_view_rank(view) == 1);
          CHECK(strata_hal_buffer_view_dim(view, 0) == n);
          std::vector<float> got = viewValues(view);
          int wrong = 0;
          for (int64_t i = 0; i < n; ++i) {
            float expected = ordinal == kAdd ? a[i] + b[i] : a[i] * b[i];
            wrong += got[i] != expected;
          }
          CHECK(wrong == 0);
        }
      }
    }
  }

  TEST_CASE("matmul with three constants over a 2-D grid") {
    const int64_t m = 13, k = 7, n = 19;  // partial 8x8 tiles on both edges
    std::vector<float> a(m * k), b(k * n);
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = static_cast<float>(i % 5) - 2.0f;
    }
    for (size_t i = 0; i < b.size(); ++i) {
      b[i] = static_cast<float>(i % 3) * 0.25f;
    }
    for (const std::string& device : kDevices) {
      CAPTURE(device);
      App app;
      buildMatmul(app);
      Fixture fx(device, app);
      Owned va(strata_hal_buffer_view_as_ref(makeView({m, k}, a)));
      Owned vb(strata_hal_buffer_view_as_ref(makeView({k, n}, b)));
      StatusText s(fx.call("matmul", {vRef(va.ptr), vRef(vb.ptr)}, 1));
      REQUIRE_MESSAGE(s.ok(), s.str);
      Owned out(fx.results[0].ref);
      strata_hal_buffer_view_t* view = strata_hal_buffer_view_from_ref(out.ptr);
      REQUIRE(view != nullptr);
      REQUIRE(strata_hal_buffer_view_rank(view) == 2);
      CHECK(strata_hal_buffer_view_dim(view, 0) == m);
      CHECK(strata_hal_buffer_view_dim(view, 1) == n);
      std::vector<float> got = viewValues(view);
      int wrong = 0;
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t c = 0; c < n; ++c) {
          float sum = 0.0f;
          for (int64_t i = 0; i < k; ++i) {
            sum += a[r * k + i] * b[i * n + c];
          }
          wrong += got[r * n + c] != sum;
        }
      }
      CHECK(wrong == 0);
    }
  }

  TEST_CASE("a failing kernel fails fence.await with the dispatch error and "
            "the VM backtrace") {
    for (const std::string& device : kDevices) {
      CAPTURE(device);
      App app;
      buildFail(app);
      Fixture fx(device, app);
      StatusText s(fx.call("fail", {}, 1));
      REQUIRE_FALSE(s.ok());
      CAPTURE(s.str);
      CHECK(s.contains("fail_always"));
      CHECK(s.contains("in call to 'hal.fence.await'"));
      CHECK(s.contains("at app.fail (app.mlir:75:7)"));
      // The context keeps working after the failure.
      StatusText again(fx.call("fail", {}, 1));
      CHECK(again.contains("fail_always"));
    }
  }

  TEST_CASE("fence.await returns 4 when its timeout passes first") {
    App app;
    FunctionBuilder& f = app.function("timeout", "0i_i", 110);
    f.op(Opcode::ConstI32).i32(0).reg(prim(1));
    app.call(f, "devices.get", {prim(1)}, {ref(0)});
    app.call(f, "fence.create", {ref(0), prim(1)}, {ref(1)});
    f.op(Opcode::ConstRefZero).reg(ref(2));
    app.callv(f, "fence.await", {2}, {prim(0), ref(2), ref(1)}, {prim(2)});
    f.op(Opcode::Return).list({prim(2)});
    for (const std::string& device : kDevices) {
      CAPTURE(device);
      Fixture fx(device, app);
      auto start = std::chrono::steady_clock::now();
      StatusText s(fx.call("timeout", {vI32(30)}, 1));
      auto elapsed = std::chrono::steady_clock::now() - start;
      REQUIRE_MESSAGE(s.ok(), s.str);
      CHECK(fx.results[0].i32 == STRATA_STATUS_DEADLINE_EXCEEDED);
      CHECK(elapsed >= std::chrono::milliseconds(25));
      CHECK(elapsed < std::chrono::seconds(5));
      // Timeout 0 polls.
      StatusText poll(fx.call("timeout", {vI32(0)}, 1));
      REQUIRE_MESSAGE(poll.ok(), poll.str);
      CHECK(fx.results[0].i32 == STRATA_STATUS_DEADLINE_EXCEEDED);
    }
  }

  TEST_CASE("an async invocation suspends on a pending fence and completes "
            "once it is reached") {
    App app;
    buildGated(app);
    Fixture fx("local-task", app);
    strata_vm_function_t fn;
    REQUIRE(StatusText(fx.h.lookup("app.gated", &fn)).ok());
    for (bool subscribe : {false, true}) {
      CAPTURE(subscribe);
      strata_hal_fence_t* gate = nullptr;
      REQUIRE(strata_hal_fence_create_pending(strata_allocator_system(),
                                              &gate) == nullptr);
      Owned gate_ref(strata_hal_fence_as_ref(gate));
      strata_vm_list_t* inputs = nullptr;
      strata_vm_list_t* outputs = nullptr;
      REQUIRE(strata_vm_list_create(1, strata_allocator_system(), &inputs) ==
              nullptr);
      REQUIRE(strata_vm_list_create(1, strata_allocator_system(), &outputs) ==
              nullptr);
      REQUIRE(strata_vm_list_push(
                  inputs, strata_vm_variant_ref(gate_ref.ptr)) == nullptr);
      strata_vm_invocation_t* inv = nullptr;
      REQUIRE(StatusText(strata_vm_invocation_create(fx.h.context, fn, inputs,
                                                     strata_allocator_system(),
                                                     &inv))
                  .ok());
      REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
      CHECK(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_SUSPENDED);
      strata_vm_wait_t wait = strata_vm_invocation_wait(inv);
      REQUIRE(static_cast<bool>(wait.wait));
      CHECK(wait.deadline_ns > strata_hal_now_ns());
      CHECK(wait.deadline_ns != STRATA_HAL_INFINITE_FUTURE);
      if (subscribe) {
        REQUIRE(static_cast<bool>(wait.subscribe));
        static std::atomic<int> notified;
        notified = 0;
        void* token = nullptr;
        REQUIRE(StatusText(wait.subscribe(
                               wait.user, [](void*) { notified.fetch_add(1); },
                               nullptr, &token))
                    .ok());
        CHECK(notified.load() == 0);
        REQUIRE(strata_hal_fence_signal(gate) == nullptr);
        auto give_up =
            std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (notified.load() == 0 &&
               std::chrono::steady_clock::now() < give_up) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        REQUIRE(notified.load() == 1);
      } else {
        // Still pending: a short wait times out.
        StatusText early(
            wait.wait(wait.user, strata_hal_deadline_after_ns(5000000)));
        CHECK(early.code() == STRATA_STATUS_DEADLINE_EXCEEDED);
        REQUIRE(strata_hal_fence_signal(gate) == nullptr);
        StatusText waited(
            wait.wait(wait.user, strata_hal_deadline_after_ns(10000000000)));
        REQUIRE_MESSAGE(waited.ok(), waited.str);
      }
      REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
      CHECK(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_COMPLETED);
      REQUIRE(StatusText(strata_vm_invocation_take_outputs(inv, outputs)).ok());
      strata_vm_variant_t v;
      REQUIRE(strata_vm_list_get(outputs, 0, &v) == nullptr);
      CHECK(v.value.i32 == 0);
      strata_vm_invocation_destroy(inv);
      strata_vm_list_release(inputs);
      strata_vm_list_release(outputs);
    }
  }

  TEST_CASE("fence.await over several fences resumes until every one is "
            "reached") {
    App app;
    FunctionBuilder& f = app.function("both", "0rr_i", 100);
    f.op(Opcode::ConstI32).i32(kAwaitMs).reg(prim(0));
    f.op(Opcode::ConstRefZero).reg(ref(2));
    app.callv(f, "fence.await", {3}, {prim(0), ref(0), ref(2), ref(1)},
              {prim(1)});
    f.op(Opcode::Return).list({prim(1)});
    Fixture fx("local-task", app);
    strata_vm_function_t fn;
    REQUIRE(StatusText(fx.h.lookup("app.both", &fn)).ok());
    strata_hal_fence_t* fences[2] = {nullptr, nullptr};
    strata_vm_list_t* inputs = nullptr;
    strata_vm_list_t* outputs = nullptr;
    REQUIRE(strata_vm_list_create(2, strata_allocator_system(), &inputs) ==
            nullptr);
    REQUIRE(strata_vm_list_create(1, strata_allocator_system(), &outputs) ==
            nullptr);
    for (strata_hal_fence_t*& fence : fences) {
      REQUIRE(strata_hal_fence_create_pending(strata_allocator_system(),
                                              &fence) == nullptr);
      REQUIRE(strata_vm_list_push(
                  inputs, strata_vm_variant_ref(
                              strata_hal_fence_as_ref(fence))) == nullptr);
    }
    strata_vm_invocation_t* inv = nullptr;
    REQUIRE(
        StatusText(strata_vm_invocation_create(fx.h.context, fn, inputs,
                                               strata_allocator_system(), &inv))
            .ok());
    for (strata_hal_fence_t* fence : fences) {
      REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
      REQUIRE(strata_vm_invocation_state(inv) ==
              STRATA_VM_INVOCATION_SUSPENDED);
      REQUIRE(strata_hal_fence_signal(fence) == nullptr);
      strata_vm_wait_t wait = strata_vm_invocation_wait(inv);
      REQUIRE(static_cast<bool>(wait.wait));
      StatusText waited(
          wait.wait(wait.user, strata_hal_deadline_after_ns(10000000000)));
      REQUIRE_MESSAGE(waited.ok(), waited.str);
    }
    REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
    CHECK(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_COMPLETED);
    REQUIRE(StatusText(strata_vm_invocation_take_outputs(inv, outputs)).ok());
    strata_vm_variant_t v;
    REQUIRE(strata_vm_list_get(outputs, 0, &v) == nullptr);
    CHECK(v.value.i32 == 0);
    strata_vm_invocation_destroy(inv);
    strata_vm_list_release(inputs);
    strata_vm_list_release(outputs);
    for (strata_hal_fence_t* fence : fences) {
      strata_hal_fence_release(fence);
    }
  }

  TEST_CASE("destroying an invocation suspended in fence.await releases it") {
    App app;
    buildGated(app);
    Fixture fx("local-task", app);
    strata_vm_function_t fn;
    REQUIRE(StatusText(fx.h.lookup("app.gated", &fn)).ok());
    strata_hal_fence_t* gate = nullptr;
    REQUIRE(strata_hal_fence_create_pending(strata_allocator_system(), &gate) ==
            nullptr);
    strata_vm_list_t* inputs = nullptr;
    REQUIRE(strata_vm_list_create(1, strata_allocator_system(), &inputs) ==
            nullptr);
    REQUIRE(strata_vm_list_push(
                inputs, strata_vm_variant_ref(strata_hal_fence_as_ref(gate))) ==
            nullptr);
    strata_vm_invocation_t* inv = nullptr;
    REQUIRE(
        StatusText(strata_vm_invocation_create(fx.h.context, fn, inputs,
                                               strata_allocator_system(), &inv))
            .ok());
    REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
    REQUIRE(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_SUSPENDED);
    strata_vm_invocation_destroy(inv);
    strata_vm_list_release(inputs);
    // The queued work still runs once the gate opens; nothing leaks (LSan).
    REQUIRE(strata_hal_fence_signal(gate) == nullptr);
    strata_hal_fence_release(gate);
  }

  TEST_CASE("buffer_view.assert names the message and both tensor types") {
    App app;
    FunctionBuilder& f = app.function("check", "0r_", 130);
    uint32_t message = app.builder().addRodata(bytesOf("input 0"));
    f.op(Opcode::ConstRefRodata).u32(message).reg(ref(1));
    f.op(Opcode::ConstI32).i32(kF32).reg(prim(0));
    f.op(Opcode::ConstI32).i32(0).reg(prim(1));
    f.op(Opcode::ConstI64).i64(2).reg(prim(2));
    f.op(Opcode::ConstI64).i64(3).reg(prim(3));
    f.location("app.mlir", 131, 5);
    app.callv(f, "buffer_view.assert", {2},
              {ref(0), ref(1), prim(0), prim(1), prim(2), prim(3)}, {});
    f.op(Opcode::Return).list({});
    Fixture fx("local-sync", app);

    Owned good(strata_hal_buffer_view_as_ref(
        makeView({2, 3}, std::vector<float>(6, 1.0f))));
    StatusText ok(fx.call("check", {vRef(good.ptr)}, 0));
    CHECK_MESSAGE(ok.ok(), ok.str);

    Owned wide(strata_hal_buffer_view_as_ref(
        makeView({2, 4}, std::vector<float>(8, 1.0f))));
    StatusText s(fx.call("check", {vRef(wide.ptr)}, 0));
    CHECK(s.code() == STRATA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE(
        s.contains("input 0: expected tensor<2x3xf32>, got tensor<2x4xf32>"),
        s.str);
    CHECK_MESSAGE(s.contains("at app.check (app.mlir:131:5)"), s.str);

    Owned flat(strata_hal_buffer_view_as_ref(
        makeView({6}, std::vector<float>(6, 1.0f))));
    StatusText rank(fx.call("check", {vRef(flat.ptr)}, 0));
    CHECK_MESSAGE(
        rank.contains("input 0: expected tensor<2x3xf32>, got tensor<6xf32>"),
        rank.str);

    StatusText null(fx.call("check", {vRef(nullptr)}, 0));
    CHECK_MESSAGE(null.contains("input 0: expected tensor<2x3xf32>, got null"),
                  null.str);
    strata_hal_buffer_t* buffer = strata_hal_buffer_view_buffer(
        strata_hal_buffer_view_from_ref(good.ptr));
    StatusText raw(
        fx.call("check", {vRef(strata_hal_buffer_as_ref(buffer))}, 0));
    CHECK_MESSAGE(
        raw.contains("input 0: expected tensor<2x3xf32>, got a hal.buffer"),
        raw.str);
  }

  TEST_CASE("a ref of the wrong type names the function, argument and type") {
    App app;
    FunctionBuilder& f = app.function("length", "0r_I", 150);
    app.call(f, "buffer.length", {ref(0)}, {prim(0)});
    f.op(Opcode::Return).list({prim(0)});
    Fixture fx("local-sync", app);

    strata_vm_buffer_t* vm_buffer = nullptr;
    REQUIRE(strata_vm_buffer_create(8, 0, strata_allocator_system(),
                                    &vm_buffer) == nullptr);
    Owned owned(strata_vm_buffer_as_ref(vm_buffer));
    StatusText s(fx.call("length", {vRef(owned.ptr)}, 1));
    CHECK(s.code() == STRATA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE(s.contains("native function 'hal.buffer.length': argument 0 "
                             "(buffer) must be a hal.buffer, got a vm.buffer"),
                  s.str);
    CHECK(s.contains("at app.length (app.mlir:150:3)"));

    StatusText null(fx.call("length", {vRef(nullptr)}, 1));
    CHECK_MESSAGE(null.contains("must be a hal.buffer, got null"), null.str);

    strata_hal_buffer_t* buffer = nullptr;
    REQUIRE(strata_hal_buffer_allocate(strata_allocator_system(), 24,
                                       &buffer) == nullptr);
    Owned hal_buffer(strata_hal_buffer_as_ref(buffer));
    StatusText ok(fx.call("length", {vRef(hal_buffer.ptr)}, 1));
    REQUIRE_MESSAGE(ok.ok(), ok.str);
    CHECK(fx.results[0].i64 == 24);
  }

  TEST_CASE("devices.count and devices.get, out of range naming index and "
            "count") {
    App app;
    FunctionBuilder& f = app.function("get", "0i_rii", 170);
    app.call(f, "devices.get", {prim(0)}, {ref(0)});
    app.call(f, "devices.count", {}, {prim(1)});
    // One hal.allocator per device and context.
    app.call(f, "device.allocator", {ref(0)}, {ref(1)});
    app.call(f, "device.allocator", {ref(0)}, {ref(2)});
    f.op(Opcode::CmpEqRef).reg(ref(1)).reg(ref(2)).reg(prim(2));
    f.op(Opcode::Return).list({ref(0), prim(1), prim(2)});
    Fixture fx("local-sync", app);

    StatusText ok(fx.call("get", {vI32(0)}, 3));
    REQUIRE_MESSAGE(ok.ok(), ok.str);
    Owned device(fx.results[0].ref);
    CHECK(device.ptr == strata_hal_device_as_ref(fx.device.ptr));
    CHECK(fx.results[1].i32 == 1);
    CHECK(fx.results[2].i32 == 1);

    for (int32_t index : {1, 5, -1}) {
      StatusText s(fx.call("get", {vI32(index)}, 3));
      CHECK(s.code() == STRATA_STATUS_OUT_OF_RANGE);
      std::string expected =
          "native function 'hal.devices.get': device index " +
          std::to_string(index) + " is out of range: the context has 1 device";
      CHECK_MESSAGE(s.contains(expected), s.str);
    }
  }

  TEST_CASE("buffers: subspan, length, load and store of every width, "
            "assert") {
    App app;
    FunctionBuilder& f = app.function("bytes", "0_Iiii", 190);
    f.op(Opcode::ConstI32).i32(0).reg(prim(0));
    app.call(f, "devices.get", {prim(0)}, {ref(0)});
    app.call(f, "device.allocator", {ref(0)}, {ref(1)});
    f.op(Opcode::ConstI64).i64(16).reg(prim(1));
    app.call(f, "allocator.allocate", {ref(1), prim(1)}, {ref(2)});
    f.op(Opcode::ConstI32).i32(0x11223344).reg(prim(2));
    f.op(Opcode::ConstI64).i64(4).reg(prim(3));
    f.op(Opcode::ConstI32).i32(4).reg(prim(4));
    app.call(f, "buffer.store", {prim(2), ref(2), prim(3), prim(4)}, {});
    f.op(Opcode::ConstI64).i64(8).reg(prim(5));
    app.call(f, "buffer.subspan", {ref(2), prim(3), prim(5)}, {ref(3)});
    app.call(f, "buffer.length", {ref(3)}, {prim(6)});
    f.op(Opcode::ConstI64).i64(0).reg(prim(7));
    f.op(Opcode::ConstI32).i32(1).reg(prim(8));
    f.op(Opcode::ConstI32).i32(2).reg(prim(9));
    app.call(f, "buffer.load", {ref(3), prim(7), prim(8)}, {prim(10)});
    app.call(f, "buffer.load", {ref(3), prim(7), prim(9)}, {prim(11)});
    app.call(f, "buffer.load", {ref(3), prim(7), prim(4)}, {prim(12)});
    f.op(Opcode::Return).list({prim(6), prim(10), prim(11), prim(12)});

    FunctionBuilder& g = app.function("assert_len", "0rI_", 200);
    uint32_t message = app.builder().addRodata(bytesOf("weights"));
    g.op(Opcode::ConstRefRodata).u32(message).reg(ref(1));
    app.call(g, "buffer.assert", {ref(0), ref(1), prim(0)}, {});
    g.op(Opcode::Return).list({});

    FunctionBuilder& w = app.function("bad_width", "0_i", 210);
    w.op(Opcode::ConstI32).i32(0).reg(prim(0));
    app.call(w, "devices.get", {prim(0)}, {ref(0)});
    app.call(w, "device.allocator", {ref(0)}, {ref(1)});
    w.op(Opcode::ConstI64).i64(8).reg(prim(1));
    app.call(w, "allocator.allocate", {ref(1), prim(1)}, {ref(2)});
    w.op(Opcode::ConstI64).i64(0).reg(prim(2));
    w.op(Opcode::ConstI32).i32(3).reg(prim(3));
    app.call(w, "buffer.load", {ref(2), prim(2), prim(3)}, {prim(4)});
    w.op(Opcode::Return).list({prim(4)});

    FunctionBuilder& o = app.function("past_end", "0_i", 220);
    o.op(Opcode::ConstI32).i32(0).reg(prim(0));
    app.call(o, "devices.get", {prim(0)}, {ref(0)});
    app.call(o, "device.allocator", {ref(0)}, {ref(1)});
    o.op(Opcode::ConstI64).i64(8).reg(prim(1));
    app.call(o, "allocator.allocate", {ref(1), prim(1)}, {ref(2)});
    o.op(Opcode::ConstI64).i64(6).reg(prim(2));
    o.op(Opcode::ConstI32).i32(4).reg(prim(3));
    app.call(o, "buffer.load", {ref(2), prim(2), prim(3)}, {prim(4)});
    o.op(Opcode::Return).list({prim(4)});
    Fixture fx("local-sync", app);

    StatusText s(fx.call("bytes", {}, 4));
    REQUIRE_MESSAGE(s.ok(), s.str);
    CHECK(fx.results[0].i64 == 8);
    CHECK(fx.results[1].i32 == 0x44);
    CHECK(fx.results[2].i32 == 0x3344);
    CHECK(fx.results[3].i32 == 0x11223344);

    strata_hal_buffer_t* buffer = nullptr;
    REQUIRE(strata_hal_buffer_allocate(strata_allocator_system(), 32,
                                       &buffer) == nullptr);
    Owned owned(strata_hal_buffer_as_ref(buffer));
    CHECK(
        StatusText(fx.call("assert_len", {vRef(owned.ptr), vI64(32)}, 0)).ok());
    StatusText shorter(fx.call("assert_len", {vRef(owned.ptr), vI64(33)}, 0));
    CHECK_MESSAGE(shorter.contains("weights: expected a hal.buffer of at least "
                                   "33 bytes, got 32 bytes"),
                  shorter.str);
    StatusText null(fx.call("assert_len", {vRef(nullptr), vI64(0)}, 0));
    CHECK_MESSAGE(null.contains("weights: expected a hal.buffer, got null"),
                  null.str);

    StatusText width(fx.call("bad_width", {}, 1));
    CHECK_MESSAGE(width.contains("native function 'hal.buffer.load': argument "
                                 "2 (byte width) is 3; it must be 1, 2 or 4"),
                  width.str);
    StatusText past(fx.call("past_end", {}, 1));
    CHECK(past.code() == STRATA_STATUS_OUT_OF_RANGE);
    CHECK_MESSAGE(past.contains("in call to 'hal.buffer.load'"), past.str);
  }

  TEST_CASE("buffer_view accessors; dim out of range names index and rank") {
    App app;
    FunctionBuilder& f = app.function("describe", "0ri_iiIr", 230);
    app.call(f, "buffer_view.element_type", {ref(0)}, {prim(1)});
    app.call(f, "buffer_view.rank", {ref(0)}, {prim(2)});
    app.call(f, "buffer_view.dim", {ref(0), prim(0)}, {prim(3)});
    app.call(f, "buffer_view.buffer", {ref(0)}, {ref(1)});
    f.op(Opcode::Return).list({prim(1), prim(2), prim(3), ref(1)});

    // A view of bytes [8, 8 + 24) of a 40-byte buffer, shape 2x3 f32.
    FunctionBuilder& g = app.function("subview", "0r_r", 240);
    g.op(Opcode::ConstI64).i64(8).reg(prim(0));
    g.op(Opcode::ConstI64).i64(24).reg(prim(1));
    g.op(Opcode::ConstI32).i32(kF32).reg(prim(2));
    g.op(Opcode::ConstI32).i32(0).reg(prim(3));
    g.op(Opcode::ConstI64).i64(2).reg(prim(4));
    g.op(Opcode::ConstI64).i64(3).reg(prim(5));
    app.callv(g, "buffer_view.create", {2},
              {ref(0), prim(0), prim(1), prim(2), prim(3), prim(4), prim(5)},
              {ref(1)});
    g.op(Opcode::Return).list({ref(1)});
    Fixture fx("local-sync", app);

    Owned view(strata_hal_buffer_view_as_ref(
        makeView({4, 5}, std::vector<float>(20, 0.0f))));
    StatusText s(fx.call("describe", {vRef(view.ptr), vI32(1)}, 4));
    REQUIRE_MESSAGE(s.ok(), s.str);
    Owned buffer(fx.results[3].ref);
    CHECK(fx.results[0].i32 == kF32);
    CHECK(fx.results[1].i32 == 2);
    CHECK(fx.results[2].i64 == 5);
    CHECK(buffer.ptr == strata_hal_buffer_as_ref(strata_hal_buffer_view_buffer(
                            strata_hal_buffer_view_from_ref(view.ptr))));

    StatusText past(fx.call("describe", {vRef(view.ptr), vI32(2)}, 4));
    CHECK(past.code() == STRATA_STATUS_OUT_OF_RANGE);
    CHECK_MESSAGE(past.contains("dim index 2 is out of range for a view of "
                                "rank 2"),
                  past.str);

    strata_hal_buffer_t* raw = nullptr;
    REQUIRE(strata_hal_buffer_allocate(strata_allocator_system(), 40, &raw) ==
            nullptr);
    Owned raw_ref(strata_hal_buffer_as_ref(raw));
    uint8_t* data = nullptr;
    REQUIRE(strata_hal_buffer_map(raw, 0, 40, &data) == nullptr);
    for (int i = 0; i < 40; ++i) {
      data[i] = static_cast<uint8_t>(i);
    }
    StatusText made(fx.call("subview", {vRef(raw_ref.ptr)}, 1));
    REQUIRE_MESSAGE(made.ok(), made.str);
    Owned sub(fx.results[0].ref);
    strata_hal_buffer_view_t* sv = strata_hal_buffer_view_from_ref(sub.ptr);
    REQUIRE(sv != nullptr);
    CHECK(strata_hal_buffer_view_rank(sv) == 2);
    CHECK(strata_hal_buffer_view_byte_length(sv) == 24);
    uint8_t* first = nullptr;
    REQUIRE(strata_hal_buffer_map(strata_hal_buffer_view_buffer(sv), 0, 1,
                                  &first) == nullptr);
    CHECK(*first == 8);

    // Too small for the shape: the view's own check names both sizes.
    strata_hal_buffer_t* small = nullptr;
    REQUIRE(strata_hal_buffer_allocate(strata_allocator_system(), 16, &small) ==
            nullptr);
    Owned small_ref(strata_hal_buffer_as_ref(small));
    StatusText too_small(fx.call("subview", {vRef(small_ref.ptr)}, 1));
    CHECK_FALSE(too_small.ok());
    CHECK_MESSAGE(too_small.contains("in call to 'hal.buffer_view.create'"),
                  too_small.str);
  }

  TEST_CASE("fences: query, signal, fail, join skipping null, await of a "
            "failed fence") {
    App app;
    FunctionBuilder& f = app.function("states", "0_iiiii", 260);
    f.op(Opcode::ConstI32).i32(0).reg(prim(0));
    app.call(f, "devices.get", {prim(0)}, {ref(0)});
    app.call(f, "fence.create", {ref(0), prim(0)}, {ref(1)});
    app.call(f, "fence.query", {ref(1)}, {prim(1)});  // pending
    app.call(f, "fence.signal", {ref(1)}, {});
    app.call(f, "fence.query", {ref(1)}, {prim(2)});  // reached
    app.call(f, "fence.create", {ref(0), prim(0)}, {ref(2)});
    f.op(Opcode::ConstI32).i32(STRATA_STATUS_INTERNAL).reg(prim(3));
    app.call(f, "fence.fail", {ref(2), prim(3)}, {});
    app.call(f, "fence.query", {ref(2)}, {prim(3)});  // failed: 13
    f.op(Opcode::ConstRefZero).reg(ref(3));
    app.callv(f, "fence.join", {2}, {ref(1), ref(3)}, {ref(4)});
    app.call(f, "fence.query", {ref(4)}, {prim(4)});  // reached
    app.callv(f, "fence.join", {3}, {ref(1), ref(3), ref(2)}, {ref(5)});
    app.call(f, "fence.query", {ref(5)}, {prim(5)});  // failed
    f.op(Opcode::Return).list({prim(1), prim(2), prim(3), prim(4), prim(5)});

    FunctionBuilder& g = app.function("await_failed", "0_i", 280);
    g.op(Opcode::ConstI32).i32(0).reg(prim(0));
    app.call(g, "devices.get", {prim(0)}, {ref(0)});
    app.call(g, "fence.create", {ref(0), prim(0)}, {ref(1)});
    app.call(g, "fence.create", {ref(0), prim(0)}, {ref(2)});
    app.call(g, "fence.signal", {ref(2)}, {});
    g.op(Opcode::ConstI32).i32(STRATA_STATUS_FAILED_PRECONDITION).reg(prim(1));
    app.call(g, "fence.fail", {ref(1), prim(1)}, {});
    g.op(Opcode::ConstI32).i32(kAwaitMs).reg(prim(2));
    g.location("app.mlir", 285, 9);
    app.callv(g, "fence.await", {2}, {prim(2), ref(2), ref(1)}, {prim(3)});
    g.op(Opcode::Return).list({prim(3)});

    FunctionBuilder& h = app.function("bad_code", "0i_", 290);
    h.op(Opcode::ConstI32).i32(0).reg(prim(1));
    app.call(h, "devices.get", {prim(1)}, {ref(0)});
    app.call(h, "fence.create", {ref(0), prim(1)}, {ref(1)});
    app.call(h, "fence.fail", {ref(1), prim(0)}, {});
    h.op(Opcode::Return).list({});

    FunctionBuilder& j = app.function("join_bad", "0r_", 295);
    app.callv(j, "fence.join", {1}, {ref(0)}, {ref(1)});
    j.op(Opcode::Return).list({});
    Fixture fx("local-sync", app);

    StatusText s(fx.call("states", {}, 5));
    REQUIRE_MESSAGE(s.ok(), s.str);
    CHECK(fx.results[0].i32 == 1000);
    CHECK(fx.results[1].i32 == 0);
    CHECK(fx.results[2].i32 == STRATA_STATUS_INTERNAL);
    CHECK(fx.results[3].i32 == 0);
    CHECK(fx.results[4].i32 == STRATA_STATUS_INTERNAL);

    StatusText failed(fx.call("await_failed", {}, 1));
    CHECK(failed.code() == STRATA_STATUS_FAILED_PRECONDITION);
    CHECK_MESSAGE(failed.contains("fence failed by hal.fence.fail"),
                  failed.str);
    CHECK_MESSAGE(failed.contains("at app.await_failed (app.mlir:285:9)"),
                  failed.str);

    StatusText code(fx.call("bad_code", {vI32(0)}, 0));
    CHECK_MESSAGE(code.contains("argument 1 (status code) is 0"), code.str);

    strata_vm_buffer_t* vm_buffer = nullptr;
    REQUIRE(strata_vm_buffer_create(1, 0, strata_allocator_system(),
                                    &vm_buffer) == nullptr);
    Owned wrong(strata_vm_buffer_as_ref(vm_buffer));
    StatusText join(fx.call("join_bad", {vRef(wrong.ptr)}, 0));
    CHECK_MESSAGE(join.contains("native function 'hal.fence.join': argument 1 "
                                "(element 0 of fences) must be a hal.fence or "
                                "null, got a vm.buffer"),
                  join.str);
  }

  TEST_CASE("command buffers fill and copy; queue alloca, dealloca and "
            "barrier order on fences") {
    App app;
    FunctionBuilder& f = app.function("fillcopy", "0i_iii", 310);
    f.op(Opcode::ConstI32).i32(0).reg(prim(1));
    app.call(f, "devices.get", {prim(1)}, {ref(0)});
    f.op(Opcode::ConstRefZero).reg(ref(1));
    app.call(f, "fence.create", {ref(0), prim(1)}, {ref(2)});
    f.op(Opcode::ConstI64).i64(16).reg(prim(2));
    app.call(f, "device.queue.alloca", {ref(0), ref(1), ref(2), prim(2)},
             {ref(3)});
    app.call(f, "fence.create", {ref(0), prim(1)}, {ref(4)});
    app.call(f, "device.queue.alloca", {ref(0), ref(2), ref(4), prim(2)},
             {ref(5)});
    // Reusable command buffer: fill a with 0xAB, copy a[4..8) to b[8..12).
    f.op(Opcode::ConstI32).i32(2).reg(prim(3));
    app.call(f, "command_buffer.create", {ref(0), prim(3), prim(1)}, {ref(6)});
    f.op(Opcode::ConstI64).i64(0).reg(prim(4));
    f.op(Opcode::ConstI32).i32(0xAB).reg(prim(5));
    f.op(Opcode::ConstI32).i32(1).reg(prim(6));
    app.call(f, "command_buffer.fill_buffer",
             {ref(6), ref(3), prim(4), prim(2), prim(5), prim(6)}, {});
    app.call(f, "command_buffer.execution_barrier", {ref(6)}, {});
    f.op(Opcode::ConstI64).i64(4).reg(prim(7));
    f.op(Opcode::ConstI64).i64(8).reg(prim(8));
    app.call(f, "command_buffer.copy_buffer",
             {ref(6), ref(3), prim(7), ref(5), prim(8), prim(7)}, {});
    app.call(f, "command_buffer.finalize", {ref(6)}, {});
    app.call(f, "fence.create", {ref(0), prim(1)}, {ref(7)});
    app.callv(f, "device.queue.execute", {1}, {ref(0), ref(4), ref(7), ref(6)},
              {});
    app.call(f, "fence.create", {ref(0), prim(1)}, {ref(8)});
    app.callv(f, "device.queue.execute", {1}, {ref(0), ref(7), ref(8), ref(6)},
              {});
    app.call(f, "fence.create", {ref(0), prim(1)}, {ref(9)});
    app.call(f, "device.queue.dealloca", {ref(0), ref(8), ref(9), ref(5)}, {});
    app.call(f, "fence.create", {ref(0), prim(1)}, {ref(10)});
    app.call(f, "device.queue.barrier", {ref(0), ref(9), ref(10)}, {});
    f.op(Opcode::ConstI32).i32(kAwaitMs).reg(prim(9));
    app.callv(f, "fence.await", {1}, {prim(9), ref(10)}, {prim(10)});
    f.op(Opcode::ConstI32).i32(4).reg(prim(11));
    app.call(f, "buffer.load", {ref(5), prim(8), prim(11)}, {prim(12)});
    app.call(f, "buffer.load", {ref(5), prim(7), prim(11)}, {prim(13)});
    f.op(Opcode::Return).list({prim(10), prim(12), prim(13)});
    for (const std::string& device : kDevices) {
      CAPTURE(device);
      Fixture fx(device, app);
      StatusText s(fx.call("fillcopy", {vI32(0)}, 3));
      REQUIRE_MESSAGE(s.ok(), s.str);
      CHECK(fx.results[0].i32 == 0);
      CHECK(static_cast<uint32_t>(fx.results[1].i32) == 0xABABABABu);
      CHECK(fx.results[2].i32 == 0);
    }
  }

  TEST_CASE("executable.create loads static libraries and rejects unknown "
            "formats") {
    App app;
    FunctionBuilder& f = app.function("load", "0rr_r", 330);
    f.op(Opcode::ConstI32).i32(0).reg(prim(0));
    app.call(f, "devices.get", {prim(0)}, {ref(2)});
    app.call(f, "executable.create", {ref(2), ref(0), ref(1)}, {ref(3)});
    f.op(Opcode::Return).list({ref(3)});
    Fixture fx("local-sync", app);
    REQUIRE(strata_hal_executable_register_static(
                "hal_module_test_kernels", sample_kernels_library_query) ==
            nullptr);

    auto vmText = [](const std::string& text) {
      strata_vm_buffer_t* buffer = nullptr;
      REQUIRE(strata_vm_buffer_create(text.size(), 0, strata_allocator_system(),
                                      &buffer) == nullptr);
      std::memcpy(strata_vm_buffer_data(buffer), text.data(), text.size());
      return strata_vm_buffer_as_ref(buffer);
    };
    Owned static_format(vmText("static"));
    Owned name(vmText("hal_module_test_kernels"));
    StatusText ok(
        fx.call("load", {vRef(static_format.ptr), vRef(name.ptr)}, 1));
    REQUIRE_MESSAGE(ok.ok(), ok.str);
    Owned executable(fx.results[0].ref);
    strata_hal_executable_t* exe =
        strata_hal_executable_from_ref(executable.ptr);
    REQUIRE(exe != nullptr);
    CHECK(strata_hal_executable_export_count(exe) == 4);

    Owned missing(vmText("no_such_library"));
    StatusText not_found(
        fx.call("load", {vRef(static_format.ptr), vRef(missing.ptr)}, 1));
    CHECK(not_found.code() == STRATA_STATUS_NOT_FOUND);

    Owned spirv(vmText("spirv-fb"));
    StatusText unknown(fx.call("load", {vRef(spirv.ptr), vRef(name.ptr)}, 1));
    CHECK(unknown.code() == STRATA_STATUS_INVALID_ARGUMENT);
    CHECK_MESSAGE(unknown.contains("executable format 'spirv-fb' is unknown"),
                  unknown.str);

    Owned riscv(vmText("embedded-elf-riscv64"));
    StatusText other(fx.call("load", {vRef(riscv.ptr), vRef(name.ptr)}, 1));
    CHECK(other.code() == STRATA_STATUS_FAILED_PRECONDITION);
    CHECK_MESSAGE(other.contains("is for another architecture"), other.str);

    // Bytes that are not a shared object.
    Owned elf(vmText(kElfFormat));
    StatusText garbage(fx.call("load", {vRef(elf.ptr), vRef(name.ptr)}, 1));
    CHECK(garbage.code() == STRATA_STATUS_INVALID_ARGUMENT);
    REQUIRE(strata_hal_executable_unregister_static(
                "hal_module_test_kernels") == nullptr);
  }

  TEST_CASE("command_buffer.dispatch checks its arguments") {
    App app;
    // dispatch(cb, exe, ordinal, x, 1, 1) with one constant and no bindings.
    FunctionBuilder& f = app.function("dispatch", "0ii_", 350);
    f.op(Opcode::ConstI32).i32(0).reg(prim(2));
    f.op(Opcode::ConstI32).i32(1).reg(prim(3));
    app.call(f, "devices.get", {prim(2)}, {ref(0)});
    app.createExecutable(f, 0, 1, 2, 3);
    app.call(f, "command_buffer.create", {ref(0), prim(3), prim(2)}, {ref(4)});
    app.callv(f, "command_buffer.dispatch", {1, 0},
              {ref(4), ref(3), prim(0), prim(1), prim(3), prim(3), prim(3)},
              {});
    f.op(Opcode::Return).list({});

    FunctionBuilder& g = app.function("swapped", "0_", 360);
    g.op(Opcode::ConstI32).i32(0).reg(prim(0));
    app.call(g, "devices.get", {prim(0)}, {ref(0)});
    app.createExecutable(g, 0, 1, 2, 3);
    app.call(g, "command_buffer.create", {ref(0), prim(0), prim(0)}, {ref(4)});
    g.op(Opcode::Return).list({});
    Fixture fx("local-sync", app);

    StatusText negative(fx.call("dispatch", {vI32(0), vI32(-2)}, 0));
    CHECK_MESSAGE(negative.contains("argument 3 (workgroup count x) is -2"),
                  negative.str);
    // add_f32 takes 3 bindings: the executable's attrs reject none.
    StatusText counts(fx.call("dispatch", {vI32(kAdd), vI32(1)}, 0));
    CHECK_FALSE(counts.ok());
    CHECK_MESSAGE(counts.contains("in call to 'hal.command_buffer.dispatch'"),
                  counts.str);
    StatusText ordinal(fx.call("dispatch", {vI32(9), vI32(1)}, 0));
    CHECK_FALSE(ordinal.ok());
    StatusText mode(fx.call("swapped", {}, 0));
    CHECK_MESSAGE(mode.contains("argument 1 (mode) is 0; it must be 1"),
                  mode.str);
  }
}
