// invocation_test.cpp - suspend and resume: deferring native imports,
// vm.yield, waits for blocking calls, and teardown of suspended invocations.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "module_builder.h"
#include "vm_harness.h"

using namespace strata::vm;
using namespace strata::vm::testing;

namespace {

// A native module "gate" whose pass(i32) -> i32 defers until the gate opens.
struct Gate {
  bool open = false;
  bool give_wait = false;
  bool wait_times_out = false;
  int calls = 0;
  int waits = 0;
  int timeouts_seen = 0;
  int64_t deadline_seen = 0;
};

strata_status_t openGate(void* user, int64_t deadline_ns) {
  auto* gate = static_cast<Gate*>(user);
  gate->waits++;
  gate->deadline_seen = deadline_ns;
  if (gate->wait_times_out) {
    return strata_make_status(STRATA_STATUS_DEADLINE_EXCEEDED, "too slow");
  }
  gate->open = true;
  return nullptr;
}

strata_status_t gatePass(strata_vm_native_call_t* call, void* self, void*,
                         const strata_vm_value_t* args, size_t,
                         strata_vm_value_t* results, size_t) {
  auto* gate = static_cast<Gate*>(self);
  gate->calls++;
  if (call && strata_vm_native_call_timed_out(call)) {
    gate->timeouts_seen++;
    results[0].i32 = -1000;  // reports the timeout as a value
    return nullptr;
  }
  if (!gate->open) {
    if (gate->give_wait) {
      strata_vm_wait_t wait{};
      wait.wait = openGate;
      wait.user = gate;
      wait.deadline_ns = 12345;
      strata_vm_native_call_set_wait(call, wait);
    }
    return strata_status_deferred();
  }
  results[0].i32 = args[0].i32 * 2;
  return nullptr;
}

const strata_vm_native_function_t kGateFunctions[] = {
    {"pass", "0i_i", gatePass},
};
const strata_vm_native_module_descriptor_t kGate = {
    "gate", 1, nullptr, 0, kGateFunctions, 1, nullptr, nullptr, nullptr};

// app.f(r, i) -> (r, i): holds the ref across the deferred call.
void buildApp(ModuleBuilder& mb) {
  uint32_t pass = mb.addImport("gate.pass", "0i_i");
  auto& f = mb.addFunction("f", "0ri_ri");
  f.op(Opcode::CallImport).u32(pass).list({prim(0)}).list({prim(1)});
  f.op(Opcode::ConstI32).i32(1).reg(prim(2));
  f.op(Opcode::AddI32).reg(prim(1)).reg(prim(2)).reg(prim(1));
  f.op(Opcode::Return).list({ref(0), prim(1)});
  mb.addExport("f", f.index());
}

struct Fixture {
  Fixture() {
    strata_vm_module_t* module = nullptr;
    REQUIRE(strata_vm_native_module_create(&kGate, &gate,
                                           strata_allocator_system(),
                                           &module) == nullptr);
    h.add(module);
    ModuleBuilder mb("app");
    buildApp(mb);
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    REQUIRE(StatusText(h.lookup("app.f", &fn)).ok());
    REQUIRE(strata_vm_buffer_create(8, 0, strata_allocator_system(),
                                    &buffer) == nullptr);
    REQUIRE(strata_vm_list_create(2, strata_allocator_system(), &inputs) ==
            nullptr);
    REQUIRE(strata_vm_list_create(2, strata_allocator_system(), &outputs) ==
            nullptr);
    REQUIRE(strata_vm_list_push(inputs, strata_vm_variant_ref(strata_vm_buffer_as_ref(
                                            buffer))) == nullptr);
    REQUIRE(strata_vm_list_push(inputs, strata_vm_variant_i32(20)) == nullptr);
  }
  ~Fixture() {
    strata_vm_list_release(inputs);
    strata_vm_list_release(outputs);
    strata_vm_buffer_release(buffer);
  }
  uint32_t bufferRefs() {
    return strata_vm_ref_count(strata_vm_buffer_as_ref(buffer));
  }
  Gate gate;
  Harness h;
  strata_vm_function_t fn{};
  strata_vm_buffer_t* buffer = nullptr;
  strata_vm_list_t* inputs = nullptr;
  strata_vm_list_t* outputs = nullptr;
};

}  // namespace

TEST_SUITE("vm.invocation") {
  TEST_CASE("a deferred import suspends the invocation and resume finishes it") {
    Fixture fx;
    strata_vm_invocation_t* inv = nullptr;
    REQUIRE(StatusText(strata_vm_invocation_create(
                           fx.h.context, fx.fn, fx.inputs,
                           strata_allocator_system(), &inv))
                .ok());
    CHECK(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_READY);
    REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
    CHECK(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_SUSPENDED);
    CHECK(strata_vm_invocation_is_deferred(inv) == 1);
    REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
    CHECK(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_SUSPENDED);
    CHECK(fx.gate.calls == 2);
    StatusText early(strata_vm_invocation_take_outputs(inv, fx.outputs));
    CHECK(early.contains("has not completed"));
    fx.gate.open = true;
    REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
    CHECK(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_COMPLETED);
    CHECK(fx.gate.calls == 3);
    REQUIRE(StatusText(strata_vm_invocation_take_outputs(inv, fx.outputs)).ok());
    strata_vm_variant_t v;
    REQUIRE(strata_vm_list_get(fx.outputs, 1, &v) == nullptr);
    CHECK(v.value.i32 == 41);
    REQUIRE(strata_vm_list_get(fx.outputs, 0, &v) == nullptr);
    CHECK(v.value.ref == strata_vm_buffer_as_ref(fx.buffer));
    StatusText again(strata_vm_invocation_run(inv));
    CHECK(again.contains("already finished"));
    strata_vm_invocation_destroy(inv);
    // inputs list, outputs list and the fixture's own reference.
    CHECK(fx.bufferRefs() == 3);
  }

  TEST_CASE("destroying a suspended invocation releases its frames") {
    Fixture fx;
    strata_vm_invocation_t* inv = nullptr;
    REQUIRE(StatusText(strata_vm_invocation_create(
                           fx.h.context, fx.fn, fx.inputs,
                           strata_allocator_system(), &inv))
                .ok());
    REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
    CHECK(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_SUSPENDED);
    CHECK(fx.bufferRefs() > 2);
    strata_vm_invocation_destroy(inv);
    CHECK(fx.bufferRefs() == 2);  // inputs list and the fixture
  }

  TEST_CASE("a blocking invoke waits on the wait a deferral registered") {
    Fixture fx;
    fx.gate.give_wait = true;
    StatusText s(strata_vm_invoke(fx.h.context, fx.fn, fx.inputs, fx.outputs));
    REQUIRE_MESSAGE(s.ok(), s.str);
    CHECK(fx.gate.waits == 1);
    CHECK(fx.gate.calls == 2);
    strata_vm_variant_t v;
    REQUIRE(strata_vm_list_get(fx.outputs, 1, &v) == nullptr);
    CHECK(v.value.i32 == 41);
  }

  TEST_CASE("a blocking wait that times out reruns the call marked timed out") {
    Fixture fx;
    fx.gate.give_wait = true;
    fx.gate.wait_times_out = true;
    StatusText s(strata_vm_invoke(fx.h.context, fx.fn, fx.inputs, fx.outputs));
    REQUIRE_MESSAGE(s.ok(), s.str);
    CHECK(fx.gate.deadline_seen == 12345);
    CHECK(fx.gate.timeouts_seen == 1);
    strata_vm_variant_t v;
    REQUIRE(strata_vm_list_get(fx.outputs, 1, &v) == nullptr);
    CHECK(v.value.i32 == -1000 + 1);
  }

  TEST_CASE("an async host marks a suspended invocation as timed out") {
    Fixture fx;
    strata_vm_invocation_t* inv = nullptr;
    REQUIRE(StatusText(strata_vm_invocation_create(
                           fx.h.context, fx.fn, fx.inputs,
                           strata_allocator_system(), &inv))
                .ok());
    REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
    REQUIRE(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_SUSPENDED);
    strata_vm_invocation_set_timed_out(inv);
    REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
    CHECK(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_COMPLETED);
    CHECK(fx.gate.timeouts_seen == 1);
    strata_vm_invocation_destroy(inv);
  }

  TEST_CASE("a blocking call cannot resume a deferral without a wait") {
    Fixture fx;
    StatusText s(strata_vm_invoke(fx.h.context, fx.fn, fx.inputs, fx.outputs));
    CHECK(s.code() == STRATA_STATUS_FAILED_PRECONDITION);
    CHECK(s.contains("deferred without a wait"));
    CHECK(s.contains("at app.f"));
    CHECK(fx.bufferRefs() == 2);
    // The context keeps working.
    fx.gate.open = true;
    CHECK(StatusText(strata_vm_invoke(fx.h.context, fx.fn, fx.inputs,
                                      fx.outputs))
              .ok());
  }

  TEST_CASE("the invocation exposes the registered wait while suspended") {
    Fixture fx;
    fx.gate.give_wait = true;
    strata_vm_invocation_t* inv = nullptr;
    REQUIRE(StatusText(strata_vm_invocation_create(
                           fx.h.context, fx.fn, fx.inputs,
                           strata_allocator_system(), &inv))
                .ok());
    REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
    strata_vm_wait_t wait = strata_vm_invocation_wait(inv);
    REQUIRE(static_cast<bool>(wait.wait));
    CHECK(StatusText(wait.wait(wait.user, -1)).ok());
    REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
    CHECK(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_COMPLETED);
    strata_vm_invocation_destroy(inv);
  }

  TEST_CASE("vm.yield suspends at every iteration and resumes in place") {
    ModuleBuilder mb("y");
    auto& f = mb.addFunction("count", "0i_i");
    uint32_t loop = f.newBlock(), done = f.newBlock();
    f.op(Opcode::ConstI32).i32(0).reg(prim(1));
    f.op(Opcode::ConstI32).i32(1).reg(prim(2));
    f.op(Opcode::Br).block(loop).remap({});
    f.bind(loop);
    f.op(Opcode::CmpLtSI32).reg(prim(1)).reg(prim(0)).reg(prim(3));
    uint32_t body = f.newBlock();
    f.op(Opcode::CondBr).reg(prim(3)).block(body).remap({}).block(done).remap({});
    f.bind(body);
    f.op(Opcode::AddI32).reg(prim(1)).reg(prim(2)).reg(prim(4));
    f.op(Opcode::Yield).block(loop).remap({{prim(4), prim(1)}});
    f.bind(done);
    f.op(Opcode::Return).list({prim(1)});
    mb.addExport("count", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    strata_vm_function_t fn;
    REQUIRE(StatusText(h.lookup("y.count", &fn)).ok());
    strata_vm_list_t* inputs = nullptr;
    REQUIRE(strata_vm_list_create(1, strata_allocator_system(), &inputs) ==
            nullptr);
    REQUIRE(strata_vm_list_push(inputs, strata_vm_variant_i32(3)) == nullptr);
    strata_vm_invocation_t* inv = nullptr;
    REQUIRE(StatusText(strata_vm_invocation_create(
                           h.context, fn, inputs, strata_allocator_system(),
                           &inv))
                .ok());
    int suspensions = 0;
    for (;;) {
      REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
      if (strata_vm_invocation_state(inv) != STRATA_VM_INVOCATION_SUSPENDED) {
        break;
      }
      CHECK(strata_vm_invocation_is_deferred(inv) == 0);  // a yield
      ++suspensions;
      REQUIRE(suspensions < 10);
    }
    CHECK(suspensions == 3);
    strata_vm_list_t* outputs = nullptr;
    REQUIRE(strata_vm_list_create(1, strata_allocator_system(), &outputs) ==
            nullptr);
    REQUIRE(StatusText(strata_vm_invocation_take_outputs(inv, outputs)).ok());
    strata_vm_variant_t v;
    REQUIRE(strata_vm_list_get(outputs, 0, &v) == nullptr);
    CHECK(v.value.i32 == 3);
    // A blocking call runs straight through the yields.
    std::vector<strata_vm_value_t> r;
    REQUIRE(StatusText(h.call("y.count", {vI32(5)}, &r, 1)).ok());
    CHECK(r[0].i32 == 5);
    strata_vm_invocation_destroy(inv);
    strata_vm_list_release(inputs);
    strata_vm_list_release(outputs);
  }

  TEST_CASE("a failure during resume returns the error once") {
    ModuleBuilder mb("y");
    auto& f = mb.addFunction("f", "0_");
    uint32_t next = f.newBlock();
    f.op(Opcode::Yield).block(next).remap({});
    f.bind(next);
    f.op(Opcode::ConstI32).i32(STRATA_STATUS_CANCELLED).reg(prim(0));
    f.op(Opcode::Fail).reg(prim(0)).str("stopped after resume");
    mb.addExport("f", f.index());
    Harness h;
    REQUIRE(StatusText(h.load(mb)).ok());
    REQUIRE(StatusText(h.link()).ok());
    strata_vm_function_t fn;
    REQUIRE(StatusText(h.lookup("y.f", &fn)).ok());
    strata_vm_invocation_t* inv = nullptr;
    REQUIRE(StatusText(strata_vm_invocation_create(
                           h.context, fn, nullptr, strata_allocator_system(),
                           &inv))
                .ok());
    REQUIRE(StatusText(strata_vm_invocation_run(inv)).ok());
    StatusText s(strata_vm_invocation_run(inv));
    CHECK(s.code() == STRATA_STATUS_CANCELLED);
    CHECK(s.contains("stopped after resume"));
    CHECK(strata_vm_invocation_state(inv) == STRATA_VM_INVOCATION_FAILED);
    strata_vm_invocation_destroy(inv);
  }
}
