// hal_module_errors_test.cpp - the hal module's checks and messages: type
// and range errors naming the function and argument, buffer and view
// assertions naming the program's message and both tensor types, and the
// executable and dispatch argument checks.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "hal_module_testing.h"
#include "sample_kernels.h"

using namespace strata::hal::testing;

TEST_SUITE("hal.module.errors") {
TEST_CASE("a module needing a newer hal is refused, naming both versions") {
  // Refused: the context's hal is older than the module needs.
  {
    App app(STRATA_HAL_MODULE_VERSION + 1);
    FunctionBuilder& f = app.function("count", "0_i", 10);
    app.call(f, "devices.count", {}, {prim(0)});
    f.op(Opcode::Return).list({prim(0)});
    Device device("local-sync");
    Harness h;
    strata_vm_module_t* hal = nullptr;
    StatusText created(strata_hal_module_create(
        h.instance, &device.ptr, 1, strata_allocator_system(), &hal));
    REQUIRE_MESSAGE(created.ok(), created.str);
    h.add(hal);
    StatusText loaded(h.load(app.builder()));
    REQUIRE_MESSAGE(loaded.ok(), loaded.str);
    StatusText linked(h.link());
    CHECK(linked.code() == STRATA_STATUS_FAILED_PRECONDITION);
    std::string expected = "module 'app' needs 'hal' >= " +
                           std::to_string(STRATA_HAL_MODULE_VERSION + 1) +
                           ", the context has 'hal' version " +
                           std::to_string(STRATA_HAL_MODULE_VERSION);
    CHECK_MESSAGE(linked.contains(expected), linked.str);
  }
  // Accepted: as old as the runtime's hal, or older.
  for (uint32_t version : {1u, uint32_t{STRATA_HAL_MODULE_VERSION}}) {
    App app(version);
    FunctionBuilder& f = app.function("count", "0_i", 10);
    app.call(f, "devices.count", {}, {prim(0)});
    f.op(Opcode::Return).list({prim(0)});
    Fixture fx("local-sync", app);
    StatusText s(fx.call("count", {}, 1));
    REQUIRE_MESSAGE(s.ok(), s.str);
    CHECK(fx.results[0].i32 == 1);
  }
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

  TEST_CASE("buffer_view.assert takes -1 as a dynamic dimension of any size") {
    App app;
    FunctionBuilder& f = app.function("check", "0r_", 140);
    uint32_t message = app.builder().addRodata(bytesOf("input 0"));
    f.op(Opcode::ConstRefRodata).u32(message).reg(ref(1));
    f.op(Opcode::ConstI32).i32(kF32).reg(prim(0));
    f.op(Opcode::ConstI32).i32(0).reg(prim(1));
    f.op(Opcode::ConstI64).i64(-1).reg(prim(2));
    f.op(Opcode::ConstI64).i64(3).reg(prim(3));
    app.callv(f, "buffer_view.assert", {2},
              {ref(0), ref(1), prim(0), prim(1), prim(2), prim(3)}, {});
    f.op(Opcode::Return).list({});
    Fixture fx("local-sync", app);

    for (int64_t rows : {1, 2, 5}) {
      Owned view(strata_hal_buffer_view_as_ref(makeView(
          {rows, 3}, std::vector<float>(static_cast<size_t>(rows) * 3, 1.0f))));
      StatusText ok(fx.call("check", {vRef(view.ptr)}, 0));
      CHECK_MESSAGE(ok.ok(), ok.str);
    }
    Owned wide(strata_hal_buffer_view_as_ref(
        makeView({2, 4}, std::vector<float>(8, 1.0f))));
    StatusText s(fx.call("check", {vRef(wide.ptr)}, 0));
    CHECK_MESSAGE(
        s.contains("input 0: expected tensor<?x3xf32>, got tensor<2x4xf32>"),
        s.str);
    Owned flat(strata_hal_buffer_view_as_ref(
        makeView({3}, std::vector<float>(3, 1.0f))));
    StatusText rank(fx.call("check", {vRef(flat.ptr)}, 0));
    CHECK_MESSAGE(
        rank.contains("input 0: expected tensor<?x3xf32>, got tensor<3xf32>"),
        rank.str);
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
