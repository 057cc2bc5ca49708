// deadline_test.cpp - call deadlines in the VM: bytecode that loops or
// fans out calls forever ends with DEADLINE_EXCEEDED soon after the
// deadline, blocking or as an invocation; waits give up at the call's
// deadline; a deferring function that keeps deferring past it cannot hold
// the call; no deadline changes nothing.
#include <doctest/doctest.h>

#include <chrono>
#include <ctime>
#include <string>
#include <vector>

#include "module_builder.h"
#include "vm_harness.h"

using namespace strata::vm;
using namespace strata::vm::testing;

namespace {

int64_t nowNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}
int64_t msFromNow(int64_t ms) { return nowNs() + ms * 1000000; }

// "loop": spin(i64) -> i64 loops forever; count(i64) -> i64 counts down to
// 0 and returns it; fan(i64) -> i64 calls itself twice with n - 1 until
// n < 1 (2^n calls, no backward branch); yielder(i64) -> i64 yields to
// itself forever (no branch, no call: found by module_fuzzer).
void buildLoops(ModuleBuilder& mb) {
  {
    auto& f = mb.addFunction("yielder", "0I_I");
    uint32_t body = f.newBlock();
    f.op(Opcode::Br).block(body).remap({});
    f.bind(body);
    f.op(Opcode::AddI64Imm).reg(prim(0)).i64(1).reg(prim(0));
    f.op(Opcode::Yield).block(body).remap({});
    mb.addExport("yielder", f.index());
  }
  {
    auto& f = mb.addFunction("spin", "0I_I");
    uint32_t body = f.newBlock();
    f.op(Opcode::Br).block(body).remap({});
    f.bind(body);
    f.op(Opcode::AddI64Imm).reg(prim(0)).i64(1).reg(prim(0));
    f.op(Opcode::Br).block(body).remap({});
    mb.addExport("spin", f.index());
  }
  {
    auto& f = mb.addFunction("count", "0I_I");
    uint32_t head = f.newBlock(), body = f.newBlock(), done = f.newBlock();
    f.op(Opcode::Br).block(head).remap({});
    f.bind(head);
    f.op(Opcode::CondBrLtSI64Imm)
        .reg(prim(0)).i64(1).block(done).remap({}).block(body).remap({});
    f.bind(body);
    f.op(Opcode::AddI64Imm).reg(prim(0)).i64(-1).reg(prim(0));
    f.op(Opcode::Br).block(head).remap({});
    f.bind(done);
    f.op(Opcode::Return).list({prim(0)});
    mb.addExport("count", f.index());
  }
  {
    auto& f = mb.addFunction("fan", "0I_I");
    uint32_t base = f.newBlock(), recurse = f.newBlock();
    f.op(Opcode::CondBrLtSI64Imm)
        .reg(prim(0)).i64(1).block(base).remap({}).block(recurse).remap({});
    f.bind(base);
    f.op(Opcode::Return).list({prim(0)});
    f.bind(recurse);
    f.op(Opcode::AddI64Imm).reg(prim(0)).i64(-1).reg(prim(1));
    f.op(Opcode::Call).u32(f.index()).list({prim(1)}).list({prim(2)});
    f.op(Opcode::Call).u32(f.index()).list({prim(1)}).list({prim(3)});
    f.op(Opcode::Return).list({prim(3)});
    mb.addExport("fan", f.index());
  }
}

// "OK", or the status's whole text (message and annotations); freed.
std::string take(strata_status_t status) {
  return status ? StatusText(status).str : "OK";
}

TEST_SUITE("vm.deadline") {

TEST_CASE("endless loops and call trees end at the call's deadline") {
  Harness h;
  ModuleBuilder mb("loop");
  buildLoops(mb);
  REQUIRE(take(h.load(mb)) == "OK");
  REQUIRE(take(h.link()) == "OK");
  for (const char* name : {"loop.spin", "loop.fan", "loop.yielder"}) {
    CAPTURE(name);
    strata_vm_function_t fn;
    REQUIRE(take(h.lookup(name, &fn)) == "OK");
    strata_vm_value_t arg = vI64(name[5] == 'f' ? 62 : 0);
    strata_vm_value_t result{};
    int64_t start = nowNs();
    strata_status_t status =
        strata_vm_call_until(h.context, fn, &arg, 1, &result, 1,
                             msFromNow(30));
    int64_t elapsed = nowNs() - start;
    CHECK(strata_status_code(status) == STRATA_STATUS_DEADLINE_EXCEEDED);
    std::string text = take(status);
    CHECK(text.find("the call's deadline passed while its bytecode ran") !=
          std::string::npos);
    CHECK(text.find(std::string("at ") + name) != std::string::npos);
    CHECK(elapsed < 2000000000);  // noticed promptly
  }
  // No deadline (0) and a far one change nothing.
  strata_vm_function_t count;
  REQUIRE(take(h.lookup("loop.count", &count)) == "OK");
  for (int64_t deadline : {int64_t{0}, msFromNow(60000)}) {
    strata_vm_value_t arg = vI64(100000);
    strata_vm_value_t result{};
    CHECK(take(strata_vm_call_until(h.context, count, &arg, 1, &result, 1,
                                    deadline)) == "OK");
    CHECK(result.i64 == 0);
  }
}

TEST_CASE("an invocation with a deadline fails when it passes") {
  Harness h;
  ModuleBuilder mb("loop");
  buildLoops(mb);
  REQUIRE(take(h.load(mb)) == "OK");
  REQUIRE(take(h.link()) == "OK");
  strata_vm_function_t fn;
  REQUIRE(take(h.lookup("loop.spin", &fn)) == "OK");
  strata_vm_list_t* inputs = nullptr;
  REQUIRE(take(strata_vm_list_create(1, strata_allocator_system(),
                                     &inputs)) == "OK");
  REQUIRE(take(strata_vm_list_push(inputs, strata_vm_variant_i64(0))) ==
          "OK");
  strata_vm_invocation_t* invocation = nullptr;
  REQUIRE(take(strata_vm_invocation_create(h.context, fn, inputs,
                                           strata_allocator_system(),
                                           &invocation)) == "OK");
  strata_vm_invocation_set_deadline(invocation, msFromNow(20));
  strata_status_t status = strata_vm_invocation_run(invocation);
  CHECK(strata_status_code(status) == STRATA_STATUS_DEADLINE_EXCEEDED);
  CHECK(take(status).find("the call's deadline passed while its bytecode "
                          "ran") != std::string::npos);
  CHECK(strata_vm_invocation_state(invocation) == STRATA_VM_INVOCATION_FAILED);
  strata_vm_invocation_destroy(invocation);
  // One that yields forever: each run returns at the yield, and the first
  // run after the deadline fails.
  REQUIRE(take(h.lookup("loop.yielder", &fn)) == "OK");
  REQUIRE(take(strata_vm_invocation_create(
              h.context, fn, inputs, strata_allocator_system(), &invocation)) ==
          "OK");
  strata_vm_invocation_set_deadline(invocation, msFromNow(20));
  int64_t start = nowNs();
  status = nullptr;
  while (!status && nowNs() - start < 2000000000) {
    status = strata_vm_invocation_run(invocation);
    if (!status) {
      REQUIRE(strata_vm_invocation_state(invocation) ==
              STRATA_VM_INVOCATION_SUSPENDED);
    }
  }
  CHECK(strata_status_code(status) == STRATA_STATUS_DEADLINE_EXCEEDED);
  CHECK(take(status).find("the call's deadline passed while its bytecode "
                          "ran") != std::string::npos);
  strata_vm_invocation_destroy(invocation);
  strata_vm_list_release(inputs);
}

// "stubborn": wait() always times out and the function defers again even
// when told it timed out.
int stubborn_waits = 0;
int64_t stubborn_deadline = 0;
strata_status_t stubbornWait(void*, int64_t deadline_ns) {
  ++stubborn_waits;
  stubborn_deadline = deadline_ns;
  struct timespec ts = {0, 5000000};
  nanosleep(&ts, nullptr);
  return strata_make_status(STRATA_STATUS_DEADLINE_EXCEEDED, "not yet");
}
strata_status_t stubbornFn(strata_vm_native_call_t* call, void*, void*,
                           const strata_vm_value_t*, size_t,
                           strata_vm_value_t*, size_t) {
  strata_vm_wait_t wait{};
  wait.wait = stubbornWait;
  wait.deadline_ns = 0;  // none of its own
  strata_vm_native_call_set_wait(call, wait);
  return strata_status_deferred();
}

TEST_CASE("a function that keeps deferring past the deadline cannot hold the "
          "call") {
  static const strata_vm_native_function_t kFunctions[] = {
      {"wait", "0_", stubbornFn}};
  static const strata_vm_native_module_descriptor_t kDescriptor = {
      "stubborn", 1, nullptr, 0, kFunctions, 1, nullptr, nullptr, nullptr};
  strata_vm_module_t* native = nullptr;
  Harness h;
  REQUIRE(take(strata_vm_native_module_create(&kDescriptor, nullptr,
                                              strata_allocator_system(),
                                              &native)) == "OK");
  h.add(native);
  ModuleBuilder mb("app");
  uint32_t imp = mb.addImport("stubborn.wait", "0_");
  auto& f = mb.addFunction("main", "0_");
  f.op(Opcode::CallImport).u32(imp).list({}).list({});
  f.op(Opcode::Return).list({});
  mb.addExport("main", f.index());
  REQUIRE(take(h.load(mb)) == "OK");
  REQUIRE(take(h.link()) == "OK");
  strata_vm_function_t fn;
  REQUIRE(take(h.lookup("app.main", &fn)) == "OK");
  stubborn_waits = 0;
  int64_t deadline = msFromNow(20);
  strata_status_t status =
      strata_vm_call_until(h.context, fn, nullptr, 0, nullptr, 0, deadline);
  CHECK(strata_status_code(status) == STRATA_STATUS_DEADLINE_EXCEEDED);
  CHECK(take(status).find("the call's deadline passed while it waited") !=
        std::string::npos);
  CHECK(stubborn_deadline == deadline);  // the wait got the call's deadline
  CHECK(stubborn_waits >= 1);
  CHECK(stubborn_waits < 100);
}

}  // TEST_SUITE

}  // namespace
