// hal_sample_module.cpp - writes the hal_sample module with the module
// writer (schemas/writer), as strata-compile writes such programs: an
// initializer loads the kernel library into a ref global, and add() checks its
// inputs, allocates, records a dispatch, submits it with a fence and awaits it.
#include "hal_sample_module.h"

#include <string>

#include "module_writer.h"
#include "strata/base/status.h"
#include "strata/hal/buffer.h"

namespace strata::samples {
namespace {

using vm::Opcode;
using FunctionBuilder = vm::writer::FunctionWriter;
using ModuleBuilder = vm::writer::ModuleWriter;
using vm::writer::prim;
using vm::writer::ref;

constexpr int32_t kF32 = static_cast<int32_t>(STRATA_HAL_ELEMENT_TYPE_FLOAT_32);
constexpr uint32_t kMaxRank = 4;
constexpr uint32_t kAddF32 = 0;  // export ordinal in sample_kernels.so
constexpr int64_t kTile = 64;    // elements per add_f32 workgroup

#if defined(__aarch64__)
constexpr const char* kFormat = "embedded-elf-aarch64";
#else
constexpr const char* kFormat = "embedded-elf-x86_64";
#endif

std::vector<uint8_t> bytesOf(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

// The imports this module uses, by their hal module calling conventions.
struct Imports {
  explicit Imports(ModuleBuilder& mb)
      : devices_get(mb.addImport("hal.devices.get", "0i_r")),
        device_allocator(mb.addImport("hal.device.allocator", "0r_r")),
        allocate(mb.addImport("hal.allocator.allocate", "0rI_r")),
        view_create(mb.addImport("hal.buffer_view.create", "0rIIiiCID_r")),
        view_assert(mb.addImport("hal.buffer_view.assert", "0rriiCID_")),
        view_buffer(mb.addImport("hal.buffer_view.buffer", "0r_r")),
        view_rank(mb.addImport("hal.buffer_view.rank", "0r_i")),
        view_dim(mb.addImport("hal.buffer_view.dim", "0ri_I")),
        executable_create(mb.addImport("hal.executable.create", "0rrr_r")),
        cb_create(mb.addImport("hal.command_buffer.create", "0rii_r")),
        cb_finalize(mb.addImport("hal.command_buffer.finalize", "0r_")),
        cb_dispatch(
            mb.addImport("hal.command_buffer.dispatch", "0rriiiiCiDCrIID_")),
        queue_execute(mb.addImport("hal.device.queue.execute", "0rrrCrD_")),
        fence_create(mb.addImport("hal.fence.create", "0ri_r")),
        fence_await(mb.addImport("hal.fence.await", "0iCrD_i")) {}
  uint32_t devices_get, device_allocator, allocate, view_create, view_assert,
      view_buffer, view_rank, view_dim, executable_create, cb_create,
      cb_finalize, cb_dispatch, queue_execute, fence_create, fence_await;
};

void call(FunctionBuilder& f, uint32_t import, std::vector<uint16_t> args,
          std::vector<uint16_t> results) {
  f.op(Opcode::CallImport).u32(import).list(args).list(results);
}

// __init(): G0 = hal.executable.create(device 0, format, kernels).
uint32_t buildInit(ModuleBuilder& mb, const Imports& hal,
                   const std::vector<uint8_t>& kernels) {
  uint32_t format = mb.addRodata(bytesOf(kFormat));
  uint32_t library = mb.addRodata(kernels);
  FunctionBuilder& f = mb.addFunction("__init", "0_");
  f.location("hal_sample.mlir", 3, 3);
  f.op(Opcode::ConstI32).i32(0).reg(prim(0));
  call(f, hal.devices_get, {prim(0)}, {ref(0)});
  f.op(Opcode::ConstRefRodata).u32(format).reg(ref(1));
  f.op(Opcode::ConstRefRodata).u32(library).reg(ref(2));
  call(f, hal.executable_create, {ref(0, true), ref(1, true), ref(2, true)},
       {ref(3)});
  f.op(Opcode::GlobalStoreRef).reg(ref(3, true)).u32(0);
  f.op(Opcode::Return).list({});
  return f.index();
}

// dispatch(a, b, i64 n) -> out: a new buffer holding a + b for n f32s.
// With async, dispatch_async(a, b, i64 n, wait, signal) -> out: the same
// work submitted to wait for `wait` (may be null) and signal `signal`,
// returned at once without waiting (the async-external contract).
uint32_t buildDispatch(ModuleBuilder& mb, const Imports& hal, bool async) {
  FunctionBuilder& f = mb.addFunction(async ? "dispatch_async" : "dispatch",
                                      async ? "0rrIrr_r" : "0rrI_r");
  // The fences are ref arguments 2 and 3; the work registers come after.
  const uint16_t k = async ? 2 : 0;
  auto r = [k](uint16_t i, bool move = false) {
    return i < 2 ? ref(i, move) : ref(static_cast<uint16_t>(i + k), move);
  };
  f.location("hal_sample.mlir", 10, 5);
  // The kernel takes n as a u32 constant.
  f.op(Opcode::ConstI64).i64(0xFFFFFFFFll).reg(prim(1));
  f.op(Opcode::CmpLtUI64).reg(prim(1)).reg(prim(0)).reg(prim(2));
  f.op(Opcode::ConstI32).i32(STRATA_STATUS_OUT_OF_RANGE).reg(prim(3));
  f.op(Opcode::CondFail)
      .reg(prim(2))
      .reg(prim(3))
      .str("hal_sample.add: more than 2^32-1 elements");
  f.op(Opcode::ConstI32).i32(0).reg(prim(1));
  call(f, hal.devices_get, {prim(1)}, {r(2)});
  call(f, hal.device_allocator, {r(2)}, {r(3)});
  f.op(Opcode::ConstI64).i64(4).reg(prim(2));
  f.op(Opcode::MulI64).reg(prim(0)).reg(prim(2)).reg(prim(3));
  f.location("hal_sample.mlir", 11, 5);
  call(f, hal.allocate, {r(3, true), prim(3)}, {r(4)});
  call(f, hal.view_buffer, {r(0)}, {r(5)});
  call(f, hal.view_buffer, {r(1)}, {r(6)});
  f.op(Opcode::GlobalLoadRef).u32(0).reg(r(7));
  f.op(Opcode::ConstI32).i32(1).reg(prim(4));  // one-shot; also "1"
  call(f, hal.cb_create, {r(2), prim(4), prim(1)}, {r(8)});
  // Workgroups: ceil(n / 64).
  f.op(Opcode::TruncI64I32).reg(prim(0)).reg(prim(5));
  f.op(Opcode::ConstI64).i64(kTile - 1).reg(prim(6));
  f.op(Opcode::AddI64).reg(prim(0)).reg(prim(6)).reg(prim(6));
  f.op(Opcode::ConstI64).i64(6).reg(prim(7));
  f.op(Opcode::ShrUI64).reg(prim(6)).reg(prim(7)).reg(prim(6));
  f.op(Opcode::TruncI64I32).reg(prim(6)).reg(prim(6));
  f.op(Opcode::ConstI64).i64(0).reg(prim(8));
  f.op(Opcode::ConstI64).i64(-1).reg(prim(9));  // to the end of the buffer
  f.op(Opcode::ConstI32).i32(kAddF32).reg(prim(10));
  f.location("hal_sample.mlir", 12, 5);
  f.op(Opcode::CallVariadic)
      .u32(hal.cb_dispatch)
      .sizes({1, 3})
      .list({r(8), r(7, true), prim(10), prim(6), prim(4), prim(4), prim(5),
             r(5, true), prim(8), prim(9), r(6, true), prim(8), prim(9),
             r(4), prim(8), prim(9)})
      .list({});
  call(f, hal.cb_finalize, {r(8)}, {});
  if (async) {
    // Wait for the caller's fence, signal the caller's fence, return now.
    f.location("hal_sample.mlir", 13, 5);
    f.op(Opcode::CallVariadic)
        .u32(hal.queue_execute)
        .sizes({1})
        .list({r(2, true), ref(2), ref(3), r(8, true)})
        .list({});
    f.op(Opcode::Return).list({r(4, true)});
    return f.index();
  }
  call(f, hal.fence_create, {r(2), prim(1)}, {r(9)});
  f.op(Opcode::ConstRefZero).reg(r(10));
  f.location("hal_sample.mlir", 13, 5);
  f.op(Opcode::CallVariadic)
      .u32(hal.queue_execute)
      .sizes({1})
      .list({r(2, true), r(10), r(9), r(8, true)})
      .list({});
  f.op(Opcode::ConstI32).i32(-1).reg(prim(11));
  f.location("hal_sample.mlir", 14, 5);
  f.op(Opcode::CallVariadic)
      .u32(hal.fence_await)
      .sizes({1})
      .list({prim(11), r(9, true)})
      .list({prim(12)});
  f.op(Opcode::ConstI32).i32(STRATA_STATUS_DEADLINE_EXCEEDED).reg(prim(13));
  f.op(Opcode::CondFail)
      .reg(prim(12))
      .reg(prim(13))
      .str("hal_sample.add: the dispatch did not finish");
  f.op(Opcode::Return).list({r(4, true)});
  return f.index();
}

// The block of add() for inputs of rank `rank`: assert both inputs are
// f32 tensors of a's shape, dispatch, and wrap the result in a view.
void buildRankCase(FunctionBuilder& f, const Imports& hal, uint32_t rank,
                   uint32_t dispatch, uint32_t message0, uint32_t message1,
                   bool async) {
  // Scratch refs start after the arguments (two views, and two fences in
  // the async entry point).
  const uint16_t k = async ? 2 : 0;
  auto r = [k](uint16_t i, bool move = false) {
    return ref(static_cast<uint16_t>(i + k), move);
  };
  std::vector<uint16_t> dims;
  for (uint16_t i = 0; i < rank; ++i) {
    f.op(Opcode::ConstI32).i32(i).reg(prim(10));
    call(f, hal.view_dim, {ref(0), prim(10)}, {prim(20 + i)});
    dims.push_back(prim(20 + i));
  }
  f.op(Opcode::ConstI32).i32(kF32).reg(prim(1));
  f.op(Opcode::ConstI32).i32(0).reg(prim(2));  // dense row-major
  uint16_t rank16 = static_cast<uint16_t>(rank);
  for (auto [input, message] :
       {std::pair{ref(0), message0}, std::pair{ref(1), message1}}) {
    f.op(Opcode::ConstRefRodata).u32(message).reg(r(2));
    std::vector<uint16_t> args = {input, r(2), prim(1), prim(2)};
    args.insert(args.end(), dims.begin(), dims.end());
    f.op(Opcode::CallVariadic)
        .u32(hal.view_assert)
        .sizes({rank16})
        .list(args)
        .list({});
  }
  f.op(Opcode::ConstI64).i64(1).reg(prim(3));  // n = product of the dims
  for (uint16_t dim : dims) {
    f.op(Opcode::MulI64).reg(prim(3)).reg(dim).reg(prim(3));
  }
  if (async) {
    f.op(Opcode::Call)
        .u32(dispatch)
        .list({ref(0), ref(1), prim(3), ref(2), ref(3)})
        .list({r(3)});
  } else {
    f.op(Opcode::Call)
        .u32(dispatch)
        .list({ref(0), ref(1), prim(3)})
        .list({r(3)});
  }
  f.op(Opcode::ConstI64).i64(4).reg(prim(4));
  f.op(Opcode::MulI64).reg(prim(3)).reg(prim(4)).reg(prim(5));
  f.op(Opcode::ConstI64).i64(0).reg(prim(6));
  std::vector<uint16_t> args = {r(3, true), prim(6), prim(5), prim(1),
                                prim(2)};
  args.insert(args.end(), dims.begin(), dims.end());
  f.op(Opcode::CallVariadic)
      .u32(hal.view_create)
      .sizes({rank16})
      .list(args)
      .list({r(4)});
  f.op(Opcode::Return).list({r(4, true)});
}

// add(a, b) -> view: branches on a's rank to a case per rank. With async,
// add$async(a, b, wait, signal) -> view, the async-external entry point.
void buildAdd(ModuleBuilder& mb, const Imports& hal, uint32_t dispatch,
              bool async, uint32_t message0, uint32_t message1) {
  const char* name = async ? "add$async" : "add";
  FunctionBuilder& f = mb.addFunction(name, async ? "0rrrr_r" : "0rr_r");
  f.location("hal_sample.mlir", 20, 3);
  call(f, hal.view_rank, {ref(0)}, {prim(0)});
  uint32_t unsupported = f.newBlock();
  std::vector<uint32_t> cases;
  std::vector<std::pair<uint32_t, std::vector<vm::writer::Remap>>> table;
  for (uint32_t rank = 0; rank <= kMaxRank; ++rank) {
    cases.push_back(f.newBlock());
    table.push_back({cases.back(), {}});
  }
  f.op(Opcode::BrTable).reg(prim(0)).block(unsupported).remap({}).cases(table);
  for (uint32_t rank = 0; rank <= kMaxRank; ++rank) {
    f.bind(cases[rank]);
    f.location("hal_sample.mlir", 21 + rank, 5);
    buildRankCase(f, hal, rank, dispatch, message0, message1, async);
  }
  f.bind(unsupported);
  f.location("hal_sample.mlir", 30, 5);
  f.op(Opcode::ConstI32).i32(STRATA_STATUS_INVALID_ARGUMENT).reg(prim(1));
  f.op(Opcode::Fail)
      .reg(prim(1))
      .str("input 0: hal_sample.add takes tensors of rank 0 to 4");
  if (async) {
    mb.addExport(name, f.index(),
                 {{"signature", "(tensor<*xf32>, tensor<*xf32>, !hal.fence, "
                                "!hal.fence) -> tensor<*xf32>"}});
  } else {
    mb.addExport(name, f.index(),
                 {{"signature", "(tensor<*xf32>, tensor<*xf32>) -> "
                                "tensor<*xf32>"}});
  }
}

}  // namespace

std::vector<uint8_t> buildHalSampleModule(
    const std::vector<uint8_t>& kernels,
    const std::vector<uint8_t>& signing_key) {
  ModuleBuilder mb("hal_sample", 1);
  if (!signing_key.empty()) {
    mb.setSigningKey(signing_key);
  }
  mb.addDependency("hal", 1);
  mb.setCompiler("samples/hal_dispatch", "1", {});
  Imports hal(mb);
  mb.setGlobals(0, 1);  // G0: the kernels' hal.executable
  uint32_t init = buildInit(mb, hal, kernels);
  mb.setInitializer(static_cast<int32_t>(init));
  uint32_t message0 = mb.addRodata(bytesOf("input 0"));
  uint32_t message1 = mb.addRodata(bytesOf("input 1"));
  buildAdd(mb, hal, buildDispatch(mb, hal, /*async=*/false),
           /*async=*/false, message0, message1);
  buildAdd(mb, hal, buildDispatch(mb, hal, /*async=*/true), /*async=*/true,
           message0, message1);
  return mb.build();
}

}  // namespace strata::samples
