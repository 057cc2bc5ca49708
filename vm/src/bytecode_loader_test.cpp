// bytecode_loader_test.cpp - the module loader: valid modules load with every
// table filled, malformed headers, FlatBuffers and tables are rejected with a
// message naming the fault, and no corruption crashes it.
#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bytecode_module.h"
#include "module_builder.h"
#include "module_generated.h"
#include "strata/vm/module.h"

namespace {

using strata::vm::BytecodeModule;
using strata::vm::Opcode;
using strata::vm::SourceLocation;
using namespace strata::vm::testing;

// Header field offsets (format.h).
constexpr size_t kVersionMajor = 8;
constexpr size_t kVersionMinor = 10;
constexpr size_t kHeaderSize = 12;
constexpr size_t kFlatBufferOffset = 16;
constexpr size_t kFlatBufferSize = 24;
constexpr size_t kSegmentsOffset = 32;
constexpr size_t kSegmentsSize = 40;

template <typename T>
void poke(std::vector<uint8_t>& bytes, size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

template <typename T> T peek(const std::vector<uint8_t>& bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

struct Instance {
  Instance() {
    REQUIRE(strata_status_consume_ok(
        strata_vm_instance_create(strata_allocator_system(), &ptr)));
  }
  ~Instance() { strata_vm_instance_release(ptr); }
  strata_vm_instance_t* ptr = nullptr;
};

using ModulePtr = std::unique_ptr<BytecodeModule>;

// Loads a copy of bytes; the returned status is owned by the caller.
strata_status_t loadCopy(const std::vector<uint8_t>& bytes,
                         BytecodeModule** out) {
  Instance instance;
  return strata::vm::loadBytecodeModule(instance.ptr, bytes.data(),
                                        bytes.size(), nullptr, nullptr,
                                        strata_allocator_system(), out);
}

ModulePtr loadOk(const std::vector<uint8_t>& bytes) {
  BytecodeModule* module = nullptr;
  strata_status_t status = loadCopy(bytes, &module);
  INFO("load failed: " << strata_status_message(status));
  CHECK(status == nullptr);
  strata_status_free(status);
  return ModulePtr(module);
}

// Loads bytes and checks the failure's code and a distinctive substring.
void expectRejected(const std::vector<uint8_t>& bytes,
                    strata_status_code_t code, const std::string& needle) {
  BytecodeModule* module = nullptr;
  strata_status_t status = loadCopy(bytes, &module);
  std::string message = strata_status_message(status);
  INFO("expected '" << needle << "', got: " << message);
  REQUIRE(status != nullptr);
  CHECK(module == nullptr);
  CHECK(strata_status_code(status) == code);
  CHECK(message.find(needle) != std::string::npos);
  strata_status_free(status);
  delete module;
}

// A small module: one export adding its argument to a constant, with a
// location, an import, a rodata blob, a global and a type.
std::vector<uint8_t> smallModule() {
  ModuleBuilder b("small", 7);
  b.addImport("hal.buffer.length", "0r_I");
  b.addType("vm.buffer");
  b.addRodata({1, 2, 3, 4, 5});
  b.setGlobals(16, 1);
  b.addDependency("hal", 2);
  b.addRequirement("f64");
  b.setCompiler("strata-compile", "0.1", {"-o", "x.vmfb"});
  FunctionBuilder& f = b.addFunction("add_one", "0i_i");
  f.location("model.mlir", 3, 7);
  f.op(Opcode::ConstI32).i32(1).reg(prim(1));
  f.location("model.mlir", 4, 9);
  f.op(Opcode::AddI32).reg(prim(0)).reg(prim(1)).reg(prim(2));
  f.op(Opcode::Return).list({prim(2)});
  b.addExport("add_one", f.index(), {{"tensor", "i32"}});
  return b.build();
}

// A module with one empty function, for table-level negative tests.
ModuleBuilder& withMain(ModuleBuilder& b, const std::string& cconv = "0_") {
  FunctionBuilder& f = b.addFunction("main", cconv);
  f.op(Opcode::Return).list({});
  b.addExport("main", f.index());
  return b;
}

TEST_SUITE("vm.loader") {

  TEST_CASE("loads a builder module and fills every table") {
    std::vector<uint8_t> bytes = smallModule();
    ModulePtr m = loadOk(bytes);
    REQUIRE(m);
    CHECK(m->name == "small");
    CHECK(m->version == 7);
    CHECK(m->compiler_name == "strata-compile");
    REQUIRE(m->compiler_flags.size() == 2);
    CHECK(m->compiler_flags[1] == "x.vmfb");
    REQUIRE(m->requirements.size() == 1);
    CHECK(m->requirements[0] == "f64");
    REQUIRE(m->dependencies.size() == 1);
    CHECK(m->dependencies[0].name == "hal");
    CHECK(m->dependencies[0].minimum_version == 2);
    REQUIRE(m->types.size() == 1);
    CHECK(std::string(m->types[0]->name) == "vm.buffer");
    REQUIRE(m->imports.size() == 1);
    CHECK(m->imports[0].module_name == "hal");
    CHECK(m->imports[0].function_name == "buffer.length");
    CHECK(m->imports[0].signature.results == "I");
    REQUIRE(m->functions.size() == 1);
    const strata::vm::Function& f = m->functions[0];
    CHECK(f.name == "add_one");
    CHECK(f.signature.text == "0i_i");
    CHECK(f.prim_register_count == 3);
    CHECK(f.ref_register_count == 0);
    CHECK(f.block_count == 1);
    CHECK(f.length == 7 + 7 + 5);
    REQUIRE(m->exports.size() == 1);
    CHECK(m->exports[0].name == "add_one");
    REQUIRE(m->exports[0].attrs.size() == 1);
    CHECK(m->exports[0].attrs[0].second == "i32");
    REQUIRE(m->rodata.size() == 1);
    CHECK(m->rodata[0].length == 5);
    CHECK(reinterpret_cast<uintptr_t>(m->rodata[0].data) % 64 == 0);
    CHECK(m->rodata[0].data[4] == 5);
    CHECK(m->global_prim_bytes == 16);
    CHECK(m->global_ref_count == 1);
    CHECK(m->initializer == -1);
    CHECK(m->flatbuffer_offset == 64);
    CHECK(m->segments_offset % 64 == 0);
  }

  TEST_CASE("loads through the public C API") {
    Instance instance;
    std::vector<uint8_t> bytes = smallModule();
    strata_vm_module_t* module = nullptr;
    REQUIRE(strata_status_consume_ok(strata_vm_bytecode_module_load(
        instance.ptr, bytes.data(), bytes.size(), nullptr, nullptr,
        strata_allocator_system(), &module)));
    CHECK(std::string(strata_vm_module_name(module)) == "small");
    CHECK(strata_vm_module_export_count(module) == 1);
    strata_vm_module_release(module);
  }

  TEST_CASE("resolves pc offsets to the builder's source locations") {
    ModulePtr m = loadOk(smallModule());
    REQUIRE(m);
    SourceLocation first = m->locationFor(0, 0);
    CHECK(first.file == "model.mlir");
    CHECK(first.line == 3);
    CHECK(first.column == 7);
    // pc 7 starts the add; pc 9 is inside it; pc 14 is the return.
    CHECK(m->locationFor(0, 7).line == 4);
    CHECK(m->locationFor(0, 9).line == 4);
    CHECK(m->locationFor(0, 14).column == 9);
    CHECK(m->locationFor(5, 0).file.empty());
    CHECK(m->functionDisplayName(0) == "add_one");
  }

  TEST_CASE("drops a builder location set after the last instruction") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.location("a.mlir", 1, 2);
    f.op(Opcode::Return).list({});
    f.location("a.mlir", 9, 9);
    ModulePtr m = loadOk(b.build());
    REQUIRE(m);
    CHECK(m->locationFor(0, 2).line == 1);
  }

  TEST_CASE("names functions fn<index> without a debug database") {
    ModuleBuilder b("nodebug");
    withMain(b);
    b.omitDebugDatabase();
    ModulePtr m = loadOk(b.build());
    REQUIRE(m);
    CHECK(m->functions[0].name.empty());
    CHECK(m->functionDisplayName(0) == "fn0");
    CHECK(m->locationFor(0, 0).file.empty());
  }

  TEST_CASE("accepts an initializer that takes and returns nothing") {
    ModuleBuilder b("init");
    withMain(b);
    b.setInitializer(0);
    ModulePtr m = loadOk(b.build());
    REQUIRE(m);
    CHECK(m->initializer == 0);
  }

  struct ReleaseLog {
    int calls = 0;
    const uint8_t* data = nullptr;
    static void release(void* user, const uint8_t* data, size_t) {
      auto* log = static_cast<ReleaseLog*>(user);
      log->calls++;
      log->data = data;
    }
  };

  TEST_CASE("borrows aligned bytes and releases them when the module dies") {
    Instance instance;
    AlignedBytes bytes(smallModule());
    ReleaseLog log;
    BytecodeModule* m = nullptr;
    REQUIRE(strata_status_consume_ok(strata::vm::loadBytecodeModule(
        instance.ptr, bytes.data, bytes.size, ReleaseLog::release, &log,
        strata_allocator_system(), &m)));
    CHECK(m->image == bytes.data);
    CHECK_FALSE(m->owns_image);
    CHECK(log.calls == 0);
    delete m;
    CHECK(log.calls == 1);
    CHECK(log.data == bytes.data);
  }

  TEST_CASE("copies misaligned bytes and releases the original at once") {
    Instance instance;
    std::vector<uint8_t> module = smallModule();
    std::vector<uint8_t> shifted(module.size() + 64 + 1);
    AlignedBytes storage(shifted);
    uint8_t* misaligned = storage.data + 1;
    std::memcpy(misaligned, module.data(), module.size());
    ReleaseLog log;
    BytecodeModule* m = nullptr;
    REQUIRE(strata_status_consume_ok(strata::vm::loadBytecodeModule(
        instance.ptr, misaligned, module.size(), ReleaseLog::release, &log,
        strata_allocator_system(), &m)));
    CHECK(log.calls == 1);
    CHECK(m->owns_image);
    CHECK(m->image != misaligned);
    CHECK(reinterpret_cast<uintptr_t>(m->image) % 64 == 0);
    delete m;
    CHECK(log.calls == 1);
  }

  TEST_CASE("calls release exactly once when loading fails") {
    Instance instance;
    std::vector<uint8_t> module = smallModule();
    module[0] = 'X';
    AlignedBytes bytes(module);
    ReleaseLog log;
    BytecodeModule* m = nullptr;
    strata_status_t status = strata::vm::loadBytecodeModule(
        instance.ptr, bytes.data, bytes.size, ReleaseLog::release, &log,
        strata_allocator_system(), &m);
    CHECK(status != nullptr);
    CHECK(m == nullptr);
    CHECK(log.calls == 1);
    strata_status_free(status);
  }

  //===--------------------------------------------------------------------===//
  // Layer 1: header
  //===--------------------------------------------------------------------===//

  TEST_CASE("rejects a module too short for its header") {
    std::vector<uint8_t> bytes = smallModule();
    for (size_t cut : {size_t(0), size_t(1), size_t(8), size_t(63)}) {
      CAPTURE(cut);
      expectRejected(std::vector<uint8_t>(bytes.begin(), bytes.begin() + cut),
                     STRATA_STATUS_INVALID_ARGUMENT,
                     "cannot hold the 64-byte header");
    }
  }

  TEST_CASE("rejects a truncated module") {
    std::vector<uint8_t> bytes = smallModule();
    uint64_t fb_end = peek<uint64_t>(bytes, kFlatBufferOffset) +
                      peek<uint64_t>(bytes, kFlatBufferSize);
    // Inside the FlatBuffer: its range runs past the end.
    for (size_t cut :
         {size_t(64), size_t(65), size_t(fb_end / 2), size_t(fb_end - 1)}) {
      CAPTURE(cut);
      expectRejected(std::vector<uint8_t>(bytes.begin(), bytes.begin() + cut),
                     STRATA_STATUS_INVALID_ARGUMENT, "FlatBuffer [64, +");
    }
    // Inside the segment area.
    for (size_t cut : {bytes.size() - 1, bytes.size() - 60}) {
      CAPTURE(cut);
      expectRejected(std::vector<uint8_t>(bytes.begin(), bytes.begin() + cut),
                     STRATA_STATUS_INVALID_ARGUMENT, "segment area [");
    }
  }

  TEST_CASE("rejects a wrong magic") {
    std::vector<uint8_t> bytes = smallModule();
    std::memcpy(bytes.data(), "STRATAXX", 8);
    expectRejected(bytes, STRATA_STATUS_INVALID_ARGUMENT,
                   "not a Strata module: bad magic");
  }

  TEST_CASE("rejects a newer major version and names both versions") {
    std::vector<uint8_t> bytes = smallModule();
    poke<uint16_t>(bytes, kVersionMajor, 2);
    poke<uint16_t>(bytes, kVersionMinor, 0);
    expectRejected(bytes, STRATA_STATUS_UNIMPLEMENTED,
                   "module format 2.0 is newer than this runtime (1.1)");
  }

  TEST_CASE("rejects an older major version") {
    std::vector<uint8_t> bytes = smallModule();
    poke<uint16_t>(bytes, kVersionMajor, 0);
    poke<uint16_t>(bytes, kVersionMinor, 9);
    expectRejected(
        bytes, STRATA_STATUS_UNIMPLEMENTED,
        "module format 0.9 is older than this runtime supports (1.1)");
  }

  TEST_CASE("accepts a newer minor version") {
    std::vector<uint8_t> bytes = smallModule();
    poke<uint16_t>(bytes, kVersionMinor, 5);
    CHECK(loadOk(bytes));
  }

  TEST_CASE("rejects a header_size below 64") {
    std::vector<uint8_t> bytes = smallModule();
    poke<uint32_t>(bytes, kHeaderSize, 32);
    expectRejected(bytes, STRATA_STATUS_INVALID_ARGUMENT,
                   "header_size 32 is smaller");
  }

  TEST_CASE("rejects a FlatBuffer range outside the file") {
    std::vector<uint8_t> bytes = smallModule();
    poke<uint64_t>(bytes, kFlatBufferSize, uint64_t(1) << 40);
    expectRejected(bytes, STRATA_STATUS_INVALID_ARGUMENT,
                   "extends past the end of the module");
    // offset + size wraps around 2^64: caught, not wrapped.
    poke<uint64_t>(bytes, kFlatBufferSize, ~uint64_t(0) - 32);
    expectRejected(bytes, STRATA_STATUS_INVALID_ARGUMENT,
                   "extends past the end of the module");
    poke<uint64_t>(bytes, kFlatBufferSize, 4);
    expectRejected(bytes, STRATA_STATUS_INVALID_ARGUMENT,
                   "FlatBuffer is too small");
  }

  TEST_CASE("rejects a misaligned or overlapping FlatBuffer offset") {
    std::vector<uint8_t> bytes = smallModule();
    poke<uint64_t>(bytes, kFlatBufferOffset, 72);
    expectRejected(bytes, STRATA_STATUS_INVALID_ARGUMENT,
                   "FlatBuffer offset 72 is not 64-byte aligned");
    poke<uint64_t>(bytes, kFlatBufferOffset, 0);
    expectRejected(bytes, STRATA_STATUS_INVALID_ARGUMENT,
                   "overlaps the 64-byte header");
  }

  TEST_CASE("rejects a segment area out of range, misaligned or overlapping") {
    std::vector<uint8_t> bytes = smallModule();
    uint64_t offset = peek<uint64_t>(bytes, kSegmentsOffset);
    poke<uint64_t>(bytes, kSegmentsSize, ~uint64_t(0));
    expectRejected(bytes, STRATA_STATUS_INVALID_ARGUMENT, "segment area [");
    poke<uint64_t>(bytes, kSegmentsSize, 64);
    poke<uint64_t>(bytes, kSegmentsOffset, offset + 8);
    expectRejected(bytes, STRATA_STATUS_INVALID_ARGUMENT,
                   "segment area offset " + std::to_string(offset + 8) +
                       " is not 64-byte aligned");
    poke<uint64_t>(bytes, kSegmentsOffset, 64);
    expectRejected(bytes, STRATA_STATUS_INVALID_ARGUMENT,
                   "overlaps the FlatBuffer");
  }

  TEST_CASE("accepts an empty segment area at any offset inside the file") {
    // Writers with no segments may leave the offset at 0.
    ModuleBuilder b("noseg");
    withMain(b);
    std::vector<uint8_t> bytes = b.build();
    REQUIRE(peek<uint64_t>(bytes, kSegmentsSize) == 0);
    poke<uint64_t>(bytes, kSegmentsOffset, 0);
    CHECK(loadOk(bytes));
    poke<uint64_t>(bytes, kSegmentsOffset, uint64_t(1) << 20);
    expectRejected(bytes, STRATA_STATUS_INVALID_ARGUMENT, "segment area [");
  }

  TEST_CASE("rejects a wrong FlatBuffer identifier") {
    std::vector<uint8_t> bytes = smallModule();
    std::memcpy(bytes.data() + 64 + 4, "ABCD", 4);
    expectRejected(bytes, STRATA_STATUS_INVALID_ARGUMENT,
                   "FlatBuffer identifier is 'ABCD', expected 'STRM'");
  }

  //===--------------------------------------------------------------------===//
  // Layer 2: FlatBuffer verifier
  //===--------------------------------------------------------------------===//

  TEST_CASE("rejects corrupted FlatBuffer offsets") {
    std::vector<uint8_t> bytes = smallModule();
    // The root table offset points far outside the buffer.
    poke<uint32_t>(bytes, 64, 0x7FFFFF00u);
    expectRejected(bytes, STRATA_STATUS_INVALID_ARGUMENT,
                   "FlatBuffer verification failed");
    // The root table's vtable offset points outside the buffer.
    bytes = smallModule();
    uint32_t root = peek<uint32_t>(bytes, 64);
    poke<int32_t>(bytes, 64 + root, 0x40000000);
    expectRejected(bytes, STRATA_STATUS_INVALID_ARGUMENT,
                   "FlatBuffer verification failed");
  }

  //===--------------------------------------------------------------------===//
  // Layer 3: semantic ranges
  //===--------------------------------------------------------------------===//

  TEST_CASE("rejects a malformed function calling convention") {
    ModuleBuilder b("m");
    withMain(b);
    b.overrideFunctionCconv(0, "0x_");
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "function 'main' (#0): malformed calling convention '0x_'");
  }

  TEST_CASE("rejects a variadic span on a bytecode function") {
    ModuleBuilder b("m");
    withMain(b);
    b.overrideFunctionCconv(0, "0CiD_");
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "variadic spans are only allowed on imports");
  }

  TEST_CASE("rejects a malformed import calling convention") {
    ModuleBuilder b("m");
    withMain(b);
    b.addImport("hal.thing", "1i_");
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "import 'hal.thing' (#0): malformed calling convention");
  }

  TEST_CASE("rejects an export of a missing function") {
    ModuleBuilder b("m");
    withMain(b);
    b.overrideExportFunction(0, 7);
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "export 'main' names function 7 but the module has 1");
  }

  TEST_CASE("rejects a duplicate export name") {
    ModuleBuilder b("m");
    withMain(b);
    b.addExport("main", 0);
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "duplicate export name 'main' (exports 0 and 1)");
  }

  TEST_CASE("rejects an unknown ref type and names it") {
    ModuleBuilder b("m");
    withMain(b);
    b.addType("vm.buffer");
    b.addType("acme.widget");
    expectRejected(b.build(), STRATA_STATUS_NOT_FOUND,
                   "ref type 'acme.widget' (type 1), which is not registered");
  }

  TEST_CASE("rejects a block table that does not start at 0") {
    ModuleBuilder b("m");
    withMain(b);
    // The main function is 3 bytes: return with an empty list.
    FunctionBuilder& f = b.addFunction("f", "0_");
    f.op(Opcode::Return).list({});
    b.overrideBlockOffsets(f.index(), {1});
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "function 'f' (#1): block table must start at offset 0, "
                   "not 1");
  }

  TEST_CASE("rejects a block table that is not strictly increasing") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("f", "0_");
    f.op(Opcode::Br).block(1).remap({});
    uint32_t b1 = f.newBlock();
    f.bind(b1).op(Opcode::Return).list({});
    b.overrideBlockOffsets(f.index(), {0, 7, 7});
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "block offsets are not strictly increasing (block 2 at 7 "
                   "follows 7)");
  }

  TEST_CASE("rejects a block that starts past the end of its function") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("f", "0_");
    f.op(Opcode::Return).list({});
    b.overrideBlockOffsets(f.index(), {0, 3});
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "block 1 starts at offset 3, past the end of the function");
  }

  TEST_CASE("rejects an empty block table") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("f", "0_");
    f.op(Opcode::Return).list({});
    b.overrideBlockOffsets(f.index(), {});
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "has an empty block table");
  }

  TEST_CASE("rejects an import name without a module part") {
    for (const char* name : {"nodot", ".fn", "hal."}) {
      CAPTURE(name);
      ModuleBuilder b("m");
      withMain(b);
      b.addImport(name, "0_");
      expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                     std::string("import 0 name '") + name +
                         "' is not of the form 'module.function'");
    }
  }

  TEST_CASE("rejects register counts over the limit") {
    ModuleBuilder b("m");
    withMain(b);
    b.addFunction("big", "0_")
        .op(Opcode::Return)
        .list({})
        .registerCounts(0x8001, 0);
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "function 'big' (#1) has 32769 primitive registers, over "
                   "the limit of 32768");
    ModuleBuilder c("m");
    c.addFunction("refs", "0_")
        .op(Opcode::Return)
        .list({})
        .registerCounts(0, 0x4001);
    expectRejected(c.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "has 16385 ref registers, over the limit of 16384");
  }

  TEST_CASE("rejects arguments that do not fit the function's registers") {
    ModuleBuilder b("m");
    b.addFunction("f", "0iir_")
        .op(Opcode::Return)
        .list({})
        .registerCounts(1, 1);
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "takes 2 primitive arguments but has only 1 primitive "
                   "registers");
    ModuleBuilder c("m");
    c.addFunction("f", "0rr_").op(Opcode::Return).list({});
    expectRejected(c.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "takes 2 ref arguments but has only 0 ref registers");
  }

  TEST_CASE("rejects a function bytecode range outside the bytecode blob") {
    ModuleBuilder b("m");
    withMain(b);
    b.overrideFunctionRange(0, 2, 0xFFFFFFF0u);
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "over the limit of 16777216");
    ModuleBuilder c("m");
    withMain(c);
    c.overrideFunctionRange(0, 1, 3);
    expectRejected(c.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "bytecode [1, +3) is outside the module's 3 bytes");
    ModuleBuilder d("m");
    withMain(d);
    d.overrideFunctionRange(0, 0, 0);
    expectRejected(d.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "has no bytecode");
  }

  TEST_CASE("rejects a misaligned rodata segment") {
    ModuleBuilder b("m");
    withMain(b);
    b.addRodata(std::vector<uint8_t>(100, 7));
    b.overrideRodataRef(0, 3, 4);
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "rodata 0 offset 3 is not 64-byte aligned");
  }

  TEST_CASE("rejects a rodata segment outside the segment area") {
    ModuleBuilder b("m");
    withMain(b);
    b.addRodata(std::vector<uint8_t>(100, 7));
    b.addRodata(std::vector<uint8_t>(10, 7));
    b.overrideRodataRef(1, 192, 64);
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "rodata 1 [192, +64) is outside the 192-byte segment area");
    ModuleBuilder c("m");
    withMain(c);
    c.addRodata(std::vector<uint8_t>(10, 7));
    c.overrideRodataRef(0, 0, ~uint64_t(0));
    expectRejected(c.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "is outside the 64-byte segment area");
  }

  TEST_CASE("rejects an initializer out of range or with arguments") {
    ModuleBuilder b("m");
    withMain(b);
    b.setInitializer(3);
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "initializer function 3 is out of range");
    ModuleBuilder c("m");
    withMain(c);
    c.setInitializer(-2);
    expectRejected(c.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "initializer function -2 is out of range");
    ModuleBuilder d("m");
    FunctionBuilder& f = d.addFunction("init", "0i_");
    f.op(Opcode::Return).list({}).registerCounts(1, 0);
    d.setInitializer(0);
    expectRejected(d.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "initializer function 'init' (#0) must take and return "
                   "nothing ('0_'), not '0i_'");
  }

  TEST_CASE("rejects global sizes over the limits") {
    ModuleBuilder b("m");
    withMain(b);
    b.setGlobals(STRATA_MAX_GLOBAL_PRIM_BYTES + 8, 0);
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "global_prim_bytes 67108872 is over the limit");
    ModuleBuilder c("m");
    withMain(c);
    c.setGlobals(0, STRATA_MAX_GLOBAL_REFS + 1);
    expectRejected(c.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "global_ref_count 1048577 is over the limit");
  }

  TEST_CASE("rejects an empty module name") {
    ModuleBuilder b("");
    withMain(b);
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "module name is empty");
  }

  TEST_CASE("rejects inconsistent debug line tables") {
    ModuleBuilder b("m");
    withMain(b);
    b.overrideDebugLines(0, {0, 1}, {0});
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "debug info of function 0 has 2 pc offsets but 1 location "
                   "ids");
  }

  TEST_CASE("rejects debug lines naming a missing location") {
    ModuleBuilder b("m");
    withMain(b);
    b.overrideDebugLines(0, {0}, {5});
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "location id 5 out of range (0 locations)");
  }

  TEST_CASE("rejects debug pc offsets out of order or past the end") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("f", "0_");
    f.location("a.mlir", 1);
    f.op(Opcode::Break);
    f.op(Opcode::Return).list({});
    b.overrideDebugLines(0, {1, 1}, {0, 0});
    expectRejected(b.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "pc offsets are not strictly increasing at entry 1");
    ModuleBuilder c("m");
    FunctionBuilder& g = c.addFunction("g", "0_");
    g.location("a.mlir", 1);
    g.op(Opcode::Return).list({});
    c.overrideDebugLines(0, {0, 3}, {0, 0});
    expectRejected(c.build(), STRATA_STATUS_INVALID_ARGUMENT,
                   "pc offset 3 is past the end of the function (3 bytes)");
  }

  //===--------------------------------------------------------------------===//
  // Robustness
  //===--------------------------------------------------------------------===//

  // Loads every mutation; any outcome but a crash (or a sanitizer report) is
  // fine. Returns how many loaded.
  int loadMutations(const std::vector<uint8_t>& bytes, size_t stride,
                    uint8_t mask, int* rejected) {
    Instance instance;
    int loaded = 0;
    std::vector<uint8_t> mutated = bytes;
    for (size_t i = 0; i < bytes.size(); i += stride) {
      mutated[i] ^= mask;
      BytecodeModule* m = nullptr;
      strata_status_t status = strata::vm::loadBytecodeModule(
          instance.ptr, mutated.data(), mutated.size(), nullptr, nullptr,
          strata_allocator_system(), &m);
      if (status) {
        CHECK(m == nullptr);
        CHECK(strata_status_message(status)[0] != '\0');
        strata_status_free(status);
        ++*rejected;
      } else {
        // Whatever loaded must be internally consistent enough to walk.
        for (uint32_t f = 0; f < m->functions.size(); ++f) {
          (void)m->locationFor(f, 0);
          CHECK(strata::vm::verifyFunction(*m, f) == nullptr);
        }
        ++loaded;
      }
      delete m;
      mutated[i] = bytes[i];
    }
    return loaded;
  }

  TEST_CASE("survives every single-byte flip of a small module") {
    std::vector<uint8_t> bytes = smallModule();
    int rejected = 0;
    int loaded = 0;
    for (uint8_t mask :
         {uint8_t(0xFF), uint8_t(0x01), uint8_t(0x80), uint8_t(0x10)}) {
      loaded += loadMutations(bytes, 1, mask, &rejected);
    }
    // Padding and immediates flip harmlessly; offsets and opcodes do not.
    CHECK(loaded > 0);
    CHECK(rejected > 0);
  }

  TEST_CASE("survives byte flips of a larger module") {
    ModuleBuilder b("bigger");
    b.addImport("hal.buffer.length", "0r_I");
    b.addImport("hal.list.make", "0CrD_r");
    b.addType("vm.buffer");
    b.addRodata(std::vector<uint8_t>(300, 9));
    b.setGlobals(64, 4);
    for (int i = 0; i < 8; ++i) {
      FunctionBuilder& f = b.addFunction("f" + std::to_string(i), "0ir_I");
      uint32_t loop = f.newBlock();
      uint32_t done = f.newBlock();
      f.location("big.mlir", 10 + i, 1);
      f.op(Opcode::Br).block(loop).remap({{prim(0), prim(1)}});
      f.bind(loop);
      f.op(Opcode::CallImport).u32(0).list({ref(0)}).list({prim(2)});
      f.op(Opcode::CallVariadic)
          .u32(1)
          .sizes({2})
          .list({ref(0), ref(0)})
          .list({ref(1)});
      f.op(Opcode::GlobalStoreI64).reg(prim(2)).u32(8);
      f.op(Opcode::ConstRefRodata).u32(0).reg(ref(2));
      f.op(Opcode::CondBr)
          .reg(prim(1))
          .block(loop)
          .remap({})
          .block(done)
          .remap({{ref(2), ref(1)}});
      f.bind(done);
      f.location("big.mlir", 30 + i, 2);
      f.op(Opcode::Return).list({prim(2)});
      b.addExport("f" + std::to_string(i), f.index());
    }
    std::vector<uint8_t> bytes = b.build();
    REQUIRE(loadOk(bytes));
    int rejected = 0;
    int loaded = loadMutations(bytes, 7, 0xFF, &rejected);
    loaded += loadMutations(bytes, 5, 0x04, &rejected);
    CHECK(loaded > 0);
    CHECK(rejected > 0);
  }

  TEST_CASE("survives every truncation of a small module") {
    std::vector<uint8_t> bytes = smallModule();
    Instance instance;
    for (size_t size = 0; size < bytes.size(); ++size) {
      CAPTURE(size);
      BytecodeModule* m = nullptr;
      strata_status_t status = strata::vm::loadBytecodeModule(
          instance.ptr, bytes.data(), size, nullptr, nullptr,
          strata_allocator_system(), &m);
      CHECK(status != nullptr);
      CHECK(m == nullptr);
      strata_status_free(status);
    }
  }

}  // TEST_SUITE

}  // namespace
