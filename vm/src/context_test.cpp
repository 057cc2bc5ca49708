// context_test.cpp - linking: imports by name and calling convention,
// optional imports, dependencies, initializers, lookups and call arity.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "module_builder.h"
#include "vm_harness.h"

using namespace strata::vm;
using namespace strata::vm::testing;

namespace {

// A native module "math" (version 3) with add(i32, i32) -> i32 and
// sum(variadic i32) -> i64.
strata_status_t nativeAdd(strata_vm_native_call_t*, void*, void*,
                          const strata_vm_value_t* args, size_t,
                          strata_vm_value_t* results, size_t) {
  results[0].i32 = args[0].i32 + args[1].i32;
  return nullptr;
}
strata_status_t nativeSum(strata_vm_native_call_t*, void*, void*,
                          const strata_vm_value_t* args, size_t arg_count,
                          strata_vm_value_t* results, size_t) {
  int32_t count = args[0].i32;
  int64_t sum = 0;
  for (int32_t i = 0; i < count; ++i) sum += args[1 + i].i32;
  results[0].i64 = sum + static_cast<int64_t>(arg_count) * 1000;
  return nullptr;
}
strata_status_t nativeBoom(strata_vm_native_call_t*, void*, void*,
                           const strata_vm_value_t*, size_t,
                           strata_vm_value_t*, size_t) {
  return strata_make_status(STRATA_STATUS_DATA_LOSS, "boom from native");
}
// spans(variadic i32, variadic ref, i32) -> i32: encodes what it received.
strata_status_t nativeSpans(strata_vm_native_call_t*, void*, void*,
                            const strata_vm_value_t* args, size_t arg_count,
                            strata_vm_value_t* results, size_t) {
  int32_t ints = args[0].i32;
  int32_t sum = 0;
  for (int32_t i = 0; i < ints; ++i) sum += args[1 + i].i32;
  int32_t refs = args[1 + ints].i32;
  int32_t last = args[2 + ints + refs].i32;
  results[0].i32 = static_cast<int32_t>(arg_count) * 10000 + ints * 1000 +
                   refs * 100 + sum + last;
  return nullptr;
}
const strata_vm_native_function_t kMathFunctions[] = {
    {"add", "0ii_i", nativeAdd},
    {"sum", "0CiD_I", nativeSum},
    {"boom", "0_", nativeBoom},
    {"spans", "0CiDCrDi_i", nativeSpans},
};
const strata_vm_native_module_descriptor_t kMath = {
    "math", 3, nullptr, 0, kMathFunctions, 4, nullptr, nullptr, nullptr};

strata_vm_module_t* makeMath() {
  strata_vm_module_t* module = nullptr;
  strata_status_t s = strata_vm_native_module_create(
      &kMath, nullptr, strata_allocator_system(), &module);
  REQUIRE(s == nullptr);
  return module;
}

}  // namespace

TEST_SUITE("vm.context") {
  TEST_CASE("imports resolve to native functions, variadic spans included") {
    Harness h;
    h.add(makeMath());
    ModuleBuilder mb("app");
    uint32_t add = mb.addImport("math.add", "0ii_i");
    uint32_t sum = mb.addImport("math.sum", "0CiD_I");
    auto& f = mb.addFunction("f", "0ii_iI");
    f.op(Opcode::CallImport).u32(add).list({prim(0), prim(1)}).list({prim(2)});
    f.op(Opcode::CallVariadic)
        .u32(sum)
        .sizes({3})
        .list({prim(0), prim(1), prim(2)})
        .list({prim(3)});
    f.op(Opcode::Return).list({prim(2), prim(3)});
    mb.addExport("f", f.index());
    REQUIRE(StatusText(h.load(mb)).ok());
    StatusText link(h.link());
    REQUIRE_MESSAGE(link.ok(), link.str);
    std::vector<strata_vm_value_t> r;
    StatusText s(h.call("app.f", {vI32(2), vI32(5)}, &r, 2));
    REQUIRE_MESSAGE(s.ok(), s.str);
    CHECK(r[0].i32 == 7);
    // 2 + 5 + 7, plus 1000 per marshalled value (count + 3 elements).
    CHECK(r[1].i64 == 14 + 4000);
  }

  TEST_CASE("a variadic import may hold several spans") {
    Harness h;
    h.add(makeMath());
    ModuleBuilder mb("app");
    uint32_t spans = mb.addImport("math.spans", "0CiDCrDi_i");
    auto& f = mb.addFunction("f", "0iir_i");
    f.op(Opcode::CallVariadic)
        .u32(spans)
        .sizes({2, 1})
        .list({prim(0), prim(1), ref(0), prim(1)})
        .list({prim(2)});
    f.op(Opcode::Return).list({prim(2)});
    mb.addExport("f", f.index());
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    StatusText s(h.call("app.f", {vI32(3), vI32(4), vRef(nullptr)}, &r, 1));
    REQUIRE_MESSAGE(s.ok(), s.str);
    // 6 values marshalled (2 counts + 2 ints + 1 ref + 1 i32), 2 ints,
    // 1 ref, 3 + 4 summed, last 4.
    CHECK(r[0].i32 == 6 * 10000 + 2 * 1000 + 1 * 100 + 7 + 4);
  }

  TEST_CASE("a native failure carries the import name and the backtrace") {
    Harness h;
    h.add(makeMath());
    ModuleBuilder mb("app");
    uint32_t boom = mb.addImport("math.boom", "0_");
    auto& f = mb.addFunction("f", "0_");
    f.location("app.mlir", 12, 4);
    f.op(Opcode::CallImport).u32(boom).list({}).list({});
    f.op(Opcode::Return).list({});
    mb.addExport("f", f.index());
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    StatusText s(h.call("app.f", {}, &r, 0));
    CHECK(s.code() == STRATA_STATUS_DATA_LOSS);
    CHECK(s.contains("boom from native"));
    CHECK(s.contains("in call to 'math.boom'"));
    CHECK(s.contains("at app.f (app.mlir:12:4)"));
  }

  TEST_CASE("bytecode modules call each other's exports") {
    Harness h;
    ModuleBuilder lib("lib");
    auto& twice = lib.addFunction("twice", "0r_rr");
    twice.op(Opcode::Return).list({ref(0), ref(0)});
    lib.addExport("twice", twice.index());
    ModuleBuilder app("app");
    uint32_t imp = app.addImport("lib.twice", "0r_rr");
    auto& f = app.addFunction("f", "0r_i");
    f.op(Opcode::CallImport).u32(imp).list({ref(0)}).list({ref(1), ref(2)});
    f.op(Opcode::CmpEqRef).reg(ref(1)).reg(ref(2)).reg(prim(0));
    f.op(Opcode::Return).list({prim(0)});
    app.addExport("f", f.index());
    REQUIRE(StatusText(h.load(lib)).ok());
    REQUIRE(StatusText(h.load(app)).ok());
    REQUIRE(StatusText(h.link()).ok());
    strata_vm_buffer_t* b = nullptr;
    REQUIRE(strata_vm_buffer_create(1, 0, strata_allocator_system(), &b) ==
            nullptr);
    std::vector<strata_vm_value_t> r;
    StatusText s(h.call("app.f", {vRef(strata_vm_buffer_as_ref(b))}, &r, 1));
    REQUIRE_MESSAGE(s.ok(), s.str);
    CHECK(r[0].i32 == 1);
    CHECK(strata_vm_ref_count(strata_vm_buffer_as_ref(b)) == 1);
    strata_vm_buffer_release(b);
  }

  TEST_CASE("a missing import names the module, the import and the exports") {
    Harness h;
    h.add(makeMath());
    ModuleBuilder mb("app");
    mb.addImport("math.mul", "0ii_i");
    auto& f = mb.addFunction("f", "0_");
    f.op(Opcode::Return).list({});
    REQUIRE(StatusText(h.load(mb)).ok());
    StatusText s(h.link());
    CHECK(s.code() == STRATA_STATUS_NOT_FOUND);
    CHECK(s.contains("module 'app' imports 'math.mul', but module 'math' has "
                     "no export 'mul' (it exports: add, sum, boom, spans)"));
  }

  TEST_CASE("an import of an absent module is an error unless optional") {
    {
      Harness h;
      ModuleBuilder mb("app");
      mb.addImport("nowhere.f", "0_");
      mb.addFunction("f", "0_").op(Opcode::Return).list({});
      REQUIRE(StatusText(h.load(mb)).ok());
      StatusText s(h.link());
      CHECK(s.contains("no module named 'nowhere' is in the context"));
    }
    {
      Harness h;
      ModuleBuilder mb("app");
      uint32_t imp = mb.addImport("nowhere.f", "0_", /*optional=*/true);
      auto& f = mb.addFunction("probe", "0_i");
      f.op(Opcode::ImportResolved).u32(imp).reg(prim(0));
      f.op(Opcode::Return).list({prim(0)});
      auto& g = mb.addFunction("call", "0_");
      g.op(Opcode::CallImport).u32(imp).list({}).list({});
      g.op(Opcode::Return).list({});
      mb.addExport("probe", f.index());
      mb.addExport("call", g.index());
      REQUIRE(StatusText(h.load(mb)).ok());
      REQUIRE(StatusText(h.link()).ok());
      std::vector<strata_vm_value_t> r;
      REQUIRE(StatusText(h.call("app.probe", {}, &r, 1)).ok());
      CHECK(r[0].i32 == 0);
      StatusText s(h.call("app.call", {}, &r, 0));
      CHECK(s.contains("optional import 'nowhere.f' is not present"));
    }
  }

  TEST_CASE("a calling convention mismatch names both sides") {
    Harness h;
    h.add(makeMath());
    ModuleBuilder mb("app");
    mb.addImport("math.add", "0iI_i");
    mb.addFunction("f", "0_").op(Opcode::Return).list({});
    REQUIRE(StatusText(h.load(mb)).ok());
    StatusText s(h.link());
    CHECK(s.code() == STRATA_STATUS_INVALID_ARGUMENT);
    CHECK(s.contains("imports 'math.add' as (i32, i64) -> (i32) [0iI_i]"));
    CHECK(s.contains("'math' exports it as (i32, i32) -> (i32) [0ii_i]"));
  }

  TEST_CASE("dependencies check presence and minimum versions") {
    {
      Harness h;
      h.add(makeMath());
      ModuleBuilder mb("app");
      mb.addDependency("math", 4);
      mb.addFunction("f", "0_").op(Opcode::Return).list({});
      REQUIRE(StatusText(h.load(mb)).ok());
      StatusText s(h.link());
      CHECK(s.code() == STRATA_STATUS_FAILED_PRECONDITION);
      CHECK(s.contains("module 'app' needs 'math' >= 4, the context has "
                       "'math' version 3"));
    }
    {
      Harness h;
      ModuleBuilder mb("app");
      mb.addDependency("math", 1);
      mb.addDependency("extras", 1, /*optional=*/true);
      mb.addFunction("f", "0_").op(Opcode::Return).list({});
      REQUIRE(StatusText(h.load(mb)).ok());
      StatusText s(h.link());
      CHECK(s.contains("depends on module 'math' (>= 1), which is not in the "
                       "context"));
    }
  }

  TEST_CASE("two modules with one name are rejected") {
    Harness h;
    h.add(makeMath());
    h.add(makeMath());
    StatusText s(h.link());
    CHECK(s.code() == STRATA_STATUS_ALREADY_EXISTS);
    CHECK(s.contains("two modules named 'math'"));
  }

  TEST_CASE("initializers run once at context creation") {
    Harness h;
    ModuleBuilder mb("init");
    mb.setGlobals(4, 0);
    auto& init = mb.addFunction("__init", "0_");
    init.op(Opcode::ConstI32).i32(41).reg(prim(0));
    init.op(Opcode::GlobalStoreI32).reg(prim(0)).u32(0);
    init.op(Opcode::Return).list({});
    mb.setInitializer(static_cast<int32_t>(init.index()));
    auto& get = mb.addFunction("get", "0_i");
    get.op(Opcode::GlobalLoadI32).u32(0).reg(prim(0));
    get.op(Opcode::Return).list({prim(0)});
    mb.addExport("get", get.index());
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    std::vector<strata_vm_value_t> r;
    REQUIRE(StatusText(h.call("init.get", {}, &r, 1)).ok());
    CHECK(r[0].i32 == 41);
  }

  TEST_CASE("a failing initializer fails context creation") {
    Harness h;
    ModuleBuilder mb("init");
    auto& init = mb.addFunction("__init", "0_");
    init.op(Opcode::ConstI32).i32(STRATA_STATUS_ABORTED).reg(prim(0));
    init.op(Opcode::Fail).reg(prim(0)).str("cannot start");
    mb.setInitializer(static_cast<int32_t>(init.index()));
    REQUIRE(StatusText(h.load(mb)).ok());
    StatusText s(h.link());
    CHECK(s.code() == STRATA_STATUS_ABORTED);
    CHECK(s.contains("cannot start"));
    CHECK(s.contains("while initializing module 'init'"));
    CHECK(h.context == nullptr);
  }

  TEST_CASE("lookups and calls report what is wrong") {
    Harness h;
    h.add(makeMath());
    REQUIRE(StatusText(h.link()).ok());
    strata_vm_function_t fn;
    StatusText no_dot(h.lookup("add", &fn));
    CHECK(no_dot.contains("must be 'module.function'"));
    StatusText no_module(h.lookup("nope.add", &fn));
    CHECK(no_module.contains("no module named 'nope'"));
    StatusText no_fn(h.lookup("math.mul", &fn));
    CHECK(no_fn.contains("module 'math' has no export 'mul' (it exports: add, "
                         "sum, boom, spans)"));
    std::vector<strata_vm_value_t> r;
    StatusText arity(h.call("math.add", {vI32(1)}, &r, 1));
    CHECK(arity.contains("math.add expects (i32, i32) -> (i32) [0ii_i], got 1 "
                         "argument(s)"));
    REQUIRE(StatusText(h.call("math.add", {vI32(1), vI32(2)}, &r, 1)).ok());
    CHECK(r[0].i32 == 3);
  }

  TEST_CASE("invoke checks input types against the signature") {
    Harness h;
    h.add(makeMath());
    REQUIRE(StatusText(h.link()).ok());
    strata_vm_function_t fn;
    REQUIRE(StatusText(h.lookup("math.add", &fn)).ok());
    strata_vm_list_t* inputs = nullptr;
    strata_vm_list_t* outputs = nullptr;
    REQUIRE(strata_vm_list_create(2, strata_allocator_system(), &inputs) ==
            nullptr);
    REQUIRE(strata_vm_list_create(1, strata_allocator_system(), &outputs) ==
            nullptr);
    REQUIRE(strata_vm_list_push(inputs, strata_vm_variant_i32(4)) == nullptr);
    REQUIRE(strata_vm_list_push(inputs, strata_vm_variant_f32(1.0f)) == nullptr);
    StatusText bad(strata_vm_invoke(h.context, fn, inputs, outputs));
    CHECK(bad.contains("argument 1 of math.add must be i32, got f32"));
    REQUIRE(strata_vm_list_set(inputs, 1, strata_vm_variant_i32(6)) == nullptr);
    REQUIRE(StatusText(strata_vm_invoke(h.context, fn, inputs, outputs)).ok());
    strata_vm_variant_t v;
    REQUIRE(strata_vm_list_get(outputs, 0, &v) == nullptr);
    CHECK(v.type == STRATA_VM_VALUE_I32);
    CHECK(v.value.i32 == 10);
    strata_vm_list_release(inputs);
    strata_vm_list_release(outputs);
  }
}
