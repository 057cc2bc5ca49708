// bytecode_verifier_test.cpp - the bytecode verifier: well-formed functions
// pass, and every way an instruction can break memory safety (registers,
// banks, branch targets, ordinals, globals, call signatures, terminators) is
// rejected with a message naming the function, pc and fault.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bytecode_module.h"
#include "module_builder.h"
#include "module_generated.h"
#include "opcodes.h"
#include "strata/vm/module.h"
#include "vm_harness.h"

namespace {

using strata::vm::BytecodeModule;
using strata::vm::Opcode;
using namespace strata::vm::testing;

struct Loaded {
  Loaded() {
    REQUIRE(strata_status_consume_ok(
        strata_vm_instance_create(strata_allocator_system(), &instance)));
  }
  ~Loaded() {
    delete module;
    strata_status_free(status);
    strata_vm_instance_release(instance);
  }
  std::string message() const { return strata_status_message(status); }

  strata_vm_instance_t* instance = nullptr;
  BytecodeModule* module = nullptr;
  strata_status_t status = nullptr;
};

void load(ModuleBuilder& b, Loaded* out) {
  std::vector<uint8_t> bytes = b.build();
  out->status = strata::vm::loadBytecodeModule(
      out->instance, bytes.data(), bytes.size(), nullptr, nullptr,
      strata_allocator_system(), &out->module);
}

void expectValid(ModuleBuilder& b) {
  Loaded loaded;
  load(b, &loaded);
  INFO("unexpected failure: " << loaded.message());
  CHECK(loaded.status == nullptr);
  CHECK(loaded.module != nullptr);
}

// The verifier's failures are all INVALID_ARGUMENT; the substring tells
// which check fired.
void expectInvalid(ModuleBuilder& b, const std::string& needle) {
  Loaded loaded;
  load(b, &loaded);
  std::string message = loaded.message();
  INFO("expected '" << needle << "', got: " << message);
  REQUIRE(loaded.status != nullptr);
  CHECK(loaded.module == nullptr);
  CHECK(strata_status_code(loaded.status) == STRATA_STATUS_INVALID_ARGUMENT);
  CHECK(message.find(needle) != std::string::npos);
}

TEST_SUITE("vm.verifier") {

  TEST_CASE("accepts a function using every kind of operand") {
    ModuleBuilder b("all");
    b.addImport("io.write", "0ri_i");
    b.addImport("io.concat", "0iCriD_r");
    b.addImport("io.maybe", "0_", /*optional=*/true);
    b.addType("vm.buffer");
    b.addRodata({1, 2, 3});
    b.setGlobals(16, 2);
    FunctionBuilder& callee = b.addFunction("callee", "0ir_ir");
    callee.op(Opcode::Return).list({prim(0), ref(0)});
    FunctionBuilder& f = b.addFunction("main", "0i_i");
    uint32_t b1 = f.newBlock();
    uint32_t b2 = f.newBlock();
    uint32_t b3 = f.newBlock();
    f.op(Opcode::ConstI32).i32(5).reg(prim(1));
    f.op(Opcode::ConstI64).i64(-1).reg(prim(7));
    f.op(Opcode::ConstF32).f32(1.5f).reg(prim(7));
    f.op(Opcode::ConstF64).f64(2.5).reg(prim(7));
    f.op(Opcode::GlobalStoreI32).reg(prim(1)).u32(4);
    f.op(Opcode::GlobalLoadI64).u32(8).reg(prim(2));
    f.op(Opcode::ConstRefRodata).u32(0).reg(ref(0));
    f.op(Opcode::GlobalStoreRef).reg(ref(0)).u32(1);
    f.op(Opcode::GlobalLoadRef).u32(1).reg(ref(1));
    f.op(Opcode::CastRef).reg(ref(1)).u32(0).reg(ref(2));
    f.op(Opcode::Call)
        .u32(callee.index())
        .list({prim(1), ref(2, true)})
        .list({prim(3), ref(3)});
    f.op(Opcode::CallImport).u32(0).list({ref(3), prim(3)}).list({prim(4)});
    f.op(Opcode::CallVariadic)
        .u32(1)
        .sizes({2})
        .list({prim(4), ref(0), prim(1), ref(1), prim(2)})
        .list({ref(4)});
    f.op(Opcode::ImportResolved).u32(2).reg(prim(5));
    f.op(Opcode::CondFail).reg(prim(0)).reg(prim(1)).str("boom");
    f.op(Opcode::Trace).str("hi").list({prim(5), ref(4)});
    f.op(Opcode::Break);
    f.op(Opcode::BrTable)
        .reg(prim(5))
        .block(b1)
        .remap({})
        .cases({{b2, {{prim(1), prim(6)}}}, {b1, {}}});
    f.bind(b1);
    f.op(Opcode::CondBr)
        .reg(prim(0))
        .block(b2)
        .remap({})
        .block(b3)
        .remap({{ref(4, true), ref(0)}});
    f.bind(b2);
    f.op(Opcode::Yield).block(b3).remap({});
    f.bind(b3);
    f.op(Opcode::MovRef).reg(ref(0, true)).reg(ref(1, true));
    f.op(Opcode::Return).list({prim(6)});
    b.addExport("main", f.index());
    expectValid(b);
  }

  TEST_CASE("accepts fall-through into the next block") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    uint32_t next = f.newBlock();
    f.op(Opcode::Break);
    f.bind(next);
    f.op(Opcode::Return).list({});
    expectValid(b);
  }

  TEST_CASE("rejects an out-of-range primitive register") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::AddI32).reg(prim(0)).reg(prim(1)).reg(prim(40));
    f.op(Opcode::Return).list({});
    f.registerCounts(8, 0);
    expectInvalid(b, "function 'main' at pc 0 (add.i32): register %i40 out of "
                     "range (function has 8 primitive registers)");
  }

  TEST_CASE("rejects an out-of-range ref register") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::Break);
    f.op(Opcode::MovRef).reg(ref(0)).reg(ref(5));
    f.op(Opcode::Return).list({});
    f.registerCounts(0, 2);
    expectInvalid(b, "function 'main' at pc 1 (mov.ref): register %r5 out of "
                     "range (function has 2 ref registers)");
  }

  TEST_CASE("rejects a ref register where a primitive is expected") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::AddI32).reg(prim(0)).reg(ref(0)).reg(prim(1));
    f.op(Opcode::Return).list({});
    expectInvalid(b, "operand 1 must be a primitive register, not %r0");
  }

  TEST_CASE("rejects a primitive register where a ref is expected") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::CmpNzRef).reg(prim(3)).reg(prim(1));
    f.op(Opcode::Return).list({});
    expectInvalid(b, "(cmp.nz.ref): operand 0 must be a ref register, not %i3");
  }

  TEST_CASE("rejects an out-of-range register inside a register list") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::Print).str("x").list({prim(0), prim(9)});
    f.op(Opcode::Return).list({});
    f.registerCounts(2, 0);
    expectInvalid(b, "(print): register %i9 out of range");
  }

  TEST_CASE("rejects a branch to an offset that is not a block start") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::ConstI32).i32(0).reg(prim(0));
    f.op(Opcode::Br).u32(3).remap({});  // inside the const.i32
    expectInvalid(b, "at pc 7 (br): branch target 3 is not the start of a "
                     "block");
  }

  TEST_CASE("rejects a branch past the end of the function") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::Br).u32(1000).remap({});
    expectInvalid(b, "branch target 1000 is past the end of the function (7 "
                     "bytes)");
  }

  TEST_CASE("rejects a branch to a block that was never bound") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    uint32_t nowhere = f.newBlock();
    f.op(Opcode::CondBr)
        .reg(prim(0))
        .block(0)
        .remap({})
        .block(nowhere)
        .remap({});
    expectInvalid(b, "branch target 4294967295 is past the end");
  }

  TEST_CASE("rejects a branch table case that is not a block start") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    uint32_t b1 = f.newBlock();
    uint32_t b2 = f.newBlock();
    f.op(Opcode::BrTable).reg(prim(0)).block(b1).remap({}).cases({{b2, {}}});
    uint32_t b1_offset = f.size();
    f.bind(b1).op(Opcode::Return).list({});
    f.bind(b2).op(Opcode::Return).list({});
    // Drop b2 from the block table: its case now lands between blocks.
    b.overrideBlockOffsets(f.index(), {0, b1_offset});
    expectInvalid(b, "(br_table): branch target " +
                         std::to_string(b1_offset + 3) +
                         " is not the start of a block");
  }

  TEST_CASE("rejects a block that starts inside an instruction") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::ConstI32).i32(0).reg(prim(0));
    f.op(Opcode::Return).list({});
    b.overrideBlockOffsets(f.index(), {0, 2});
    expectInvalid(b, "function 'main': block 1 starts at offset 2, inside the "
                     "instruction at pc 0");
  }

  TEST_CASE("rejects a remap pair that mixes banks") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    uint32_t next = f.newBlock();
    f.op(Opcode::Br).block(next).remap({{prim(0), ref(0)}});
    f.bind(next).op(Opcode::Return).list({});
    expectInvalid(b, "remap pair 0 mixes register banks (%i0 -> %r0)");
  }

  TEST_CASE("rejects a function ordinal out of range") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::Call).u32(9).list({}).list({});
    f.op(Opcode::Return).list({});
    expectInvalid(b, "(call): function ordinal 9 out of range (module has 1 "
                     "functions)");
  }

  TEST_CASE("rejects an import ordinal out of range") {
    ModuleBuilder b("m");
    b.addImport("io.write", "0_");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::CallImport).u32(3).list({}).list({});
    f.op(Opcode::Return).list({});
    expectInvalid(b, "(call.import): import ordinal 3 out of range (module has "
                     "1 imports)");
    ModuleBuilder c("m");
    FunctionBuilder& g = c.addFunction("main", "0_");
    g.op(Opcode::ImportResolved).u32(0).reg(prim(0));
    g.op(Opcode::Return).list({});
    expectInvalid(c, "(import.resolved): import ordinal 0 out of range");
  }

  TEST_CASE("rejects a rodata ordinal out of range") {
    ModuleBuilder b("m");
    b.addRodata({1});
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::ConstRefRodata).u32(2).reg(ref(0));
    f.op(Opcode::Return).list({});
    expectInvalid(b, "rodata ordinal 2 out of range (module has 1 rodata "
                     "segments)");
  }

  TEST_CASE("rejects a type ordinal out of range") {
    ModuleBuilder b("m");
    b.addType("vm.list");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::CastRef).reg(ref(0)).u32(1).reg(ref(1));
    f.op(Opcode::Return).list({});
    expectInvalid(b, "type ordinal 1 out of range (module has 1 types)");
  }

  TEST_CASE("rejects a global offset out of range") {
    ModuleBuilder b("m");
    b.setGlobals(8, 0);
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::GlobalLoadI64).u32(8).reg(prim(0));
    f.op(Opcode::Return).list({});
    expectInvalid(b, "(global.load.i64): global offset 8 (8 bytes) is outside "
                     "the 8 bytes of primitive globals");
    ModuleBuilder c("m");
    c.setGlobals(8, 0);
    FunctionBuilder& g = c.addFunction("main", "0_");
    g.op(Opcode::GlobalStoreI32).reg(prim(0)).u32(0xFFFFFFFCu);
    g.op(Opcode::Return).list({});
    expectInvalid(c, "global offset 4294967292 (4 bytes) is outside");
  }

  TEST_CASE("rejects a misaligned global offset") {
    ModuleBuilder b("m");
    b.setGlobals(64, 0);
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::GlobalLoadI32).u32(2).reg(prim(0));
    f.op(Opcode::Return).list({});
    expectInvalid(b, "global offset 2 is not 4-byte aligned");
    ModuleBuilder c("m");
    c.setGlobals(64, 0);
    FunctionBuilder& g = c.addFunction("main", "0_");
    g.op(Opcode::GlobalStoreF64).reg(prim(0)).u32(4);
    g.op(Opcode::Return).list({});
    expectInvalid(c, "(global.store.f64): global offset 4 is not 8-byte "
                     "aligned");
  }

  TEST_CASE("rejects a ref global out of range") {
    ModuleBuilder b("m");
    b.setGlobals(0, 2);
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::GlobalLoadRef).u32(2).reg(ref(0));
    f.op(Opcode::Return).list({});
    expectInvalid(b, "ref global 2 out of range (module has 2 ref globals)");
  }

  TEST_CASE("rejects a call with the wrong argument count") {
    ModuleBuilder b("m");
    FunctionBuilder& callee = b.addFunction("callee", "0ii_i");
    callee.op(Opcode::Return).list({prim(0)}).registerCounts(2, 0);
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::Call).u32(0).list({prim(0)}).list({prim(1)});
    f.op(Opcode::Return).list({});
    expectInvalid(b, "call to 'callee' has 1 arguments but calling convention "
                     "'0ii_i' expects 2");
  }

  TEST_CASE("rejects a call argument in the wrong bank") {
    ModuleBuilder b("m");
    FunctionBuilder& callee = b.addFunction("callee", "0ri_i");
    callee.op(Opcode::Return).list({prim(0)}).registerCounts(1, 1);
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::Call).u32(0).list({prim(0), prim(1)}).list({prim(2)});
    f.op(Opcode::Return).list({});
    expectInvalid(b, "argument 0 of call to 'callee' is %i0 but calling "
                     "convention '0ri_i' expects a ref register ('r')");
  }

  TEST_CASE("rejects call results that do not match the callee") {
    ModuleBuilder b("m");
    FunctionBuilder& callee = b.addFunction("callee", "0_i");
    callee.op(Opcode::Return).list({prim(0)});
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::Call).u32(0).list({}).list({ref(0)});
    f.op(Opcode::Return).list({});
    expectInvalid(b, "result 0 of call to 'callee' is %r0 but calling "
                     "convention '0_i' expects a primitive register ('i')");
    ModuleBuilder c("m");
    FunctionBuilder& callee2 = c.addFunction("callee", "0_i");
    callee2.op(Opcode::Return).list({prim(0)});
    FunctionBuilder& g = c.addFunction("main", "0_");
    g.op(Opcode::Call).u32(0).list({}).list({});
    g.op(Opcode::Return).list({});
    expectInvalid(c, "call to 'callee' has 0 results but calling convention "
                     "'0_i' expects 1");
  }

  TEST_CASE("rejects an import call that does not match the import") {
    ModuleBuilder b("m");
    b.addImport("io.write", "0rI_");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::CallImport).u32(0).list({ref(0), ref(1)}).list({});
    f.op(Opcode::Return).list({});
    expectInvalid(b, "argument 1 of call to import 'io.write' is %r1 but "
                     "calling convention '0rI_' expects a primitive register");
  }

  TEST_CASE("rejects a return that does not match the function's results") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_i");
    f.op(Opcode::Return).list({});
    expectInvalid(b, "(return): return has 0 values but calling convention "
                     "'0_i' expects 1");
    ModuleBuilder c("m");
    FunctionBuilder& g = c.addFunction("main", "0_r");
    g.op(Opcode::Return).list({prim(0)});
    expectInvalid(c, "value 0 of return is %i0 but calling convention '0_r' "
                     "expects a ref register ('r')");
  }

  TEST_CASE("rejects an unknown opcode and names the byte") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::Break);
    f.bytes({0xFF});
    f.op(Opcode::Return).list({});
    expectInvalid(b, "function 'main': unknown opcode 0xff at pc 1");
    ModuleBuilder c("m");
    // A free byte inside a family (0x0B became cond_br.lt.i64.s).
    c.addFunction("main", "0_").bytes({0x0F, 0, 0});
    expectInvalid(c, "unknown opcode 0x0f at pc 0");
  }

  TEST_CASE("rejects a truncated instruction") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::AddI32).reg(prim(0)).reg(prim(1));
    expectInvalid(b, "function 'main' at pc 0 (add.i32): instruction is "
                     "truncated (function is 5 bytes)");
    ModuleBuilder c("m");
    FunctionBuilder& g = c.addFunction("main", "0_");
    g.op(Opcode::Return).bytes({5, 0, 0, 0});  // a list of 5, with 1 entry
    expectInvalid(c, "(return): instruction is truncated");
  }

  TEST_CASE("rejects a function that falls off its end") {
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::ConstI32).i32(1).reg(prim(0));
    f.op(Opcode::AddI32).reg(prim(0)).reg(prim(0)).reg(prim(0));
    expectInvalid(b, "function 'main': ends with add.i32 at pc 7, which is not "
                     "a terminator");
  }

  TEST_CASE("cond_br.lt.i64.s ends a function and has its operands checked") {
    // Accepted as the terminator of the last block.
    ModuleBuilder ok("m");
    FunctionBuilder& f = ok.addFunction("main", "0II_");
    uint32_t head = f.newBlock();
    uint32_t done = f.newBlock();
    f.op(Opcode::Br).block(head).remap({});
    f.bind(done);
    f.op(Opcode::Return).list({});
    f.bind(head);
    f.op(Opcode::CondBrLtSI64)
        .reg(prim(0))
        .reg(prim(1))
        .block(head)
        .remap({{prim(1), prim(0)}})
        .block(done)
        .remap({});
    expectValid(ok);

    ModuleBuilder bank("m");
    FunctionBuilder& g = bank.addFunction("main", "0_");
    uint32_t b1 = g.newBlock();
    g.op(Opcode::CondBrLtSI64).reg(prim(0)).reg(ref(0)).block(b1).remap(
        {}).block(b1).remap({});
    g.bind(b1);
    g.op(Opcode::Return).list({});
    expectInvalid(bank, "(cond_br.lt.i64.s): operand 1 must be a primitive "
                        "register, not %r0");

    ModuleBuilder target("m");
    FunctionBuilder& t = target.addFunction("main", "0II_");
    uint32_t end = t.newBlock();
    t.op(Opcode::CondBrLtSI64).reg(prim(0)).reg(prim(1)).block(end).remap(
        {}).u32(1).remap({});
    t.bind(end);
    t.op(Opcode::Return).list({});
    expectInvalid(target, "at pc 0 (cond_br.lt.i64.s): branch target 1 is not "
                          "the start of a block");

    ModuleBuilder remap("m");
    FunctionBuilder& r = remap.addFunction("main", "0II_");
    uint32_t out = r.newBlock();
    r.op(Opcode::CondBrLtSI64).reg(prim(0)).reg(prim(1)).block(out).remap(
        {}).block(out).remap({{prim(1), ref(0)}});
    r.bind(out);
    r.op(Opcode::Return).list({});
    expectInvalid(remap, "(cond_br.lt.i64.s): remap pair 0 mixes register "
                         "banks");
  }

  TEST_CASE("rejects rem.i64.s.imm by 0 or -1, accepts other immediates") {
    for (int64_t divisor : {0, -1}) {
      ModuleBuilder bad("m");
      FunctionBuilder& f = bad.addFunction("main", "0I_I");
      f.op(Opcode::Break);
      f.op(Opcode::RemSI64Imm).reg(prim(0)).i64(divisor).reg(prim(1));
      f.op(Opcode::Return).list({prim(1)});
      expectInvalid(bad, "function 'main' at pc 1 (rem.i64.s.imm): the divisor "
                         "immediate is " + std::to_string(divisor) +
                         "; rem.i64.s.imm takes neither 0 nor -1");
    }
    ModuleBuilder good("m");
    FunctionBuilder& g = good.addFunction("main", "0I_I");
    g.op(Opcode::RemSI64Imm).reg(prim(0)).i64(-2).reg(prim(1));
    g.op(Opcode::RemSI64Imm).reg(prim(1)).i64(1).reg(prim(1));
    g.op(Opcode::RemSI64Imm).reg(prim(1)).i64(INT64_MIN).reg(prim(1));
    g.op(Opcode::AddI64Imm).reg(prim(1)).i64(0).reg(prim(1));
    g.op(Opcode::MulI64Imm).reg(prim(1)).i64(0).reg(prim(1));
    g.op(Opcode::Return).list({prim(1)});
    expectValid(good);
    ModuleBuilder bank("m");
    FunctionBuilder& h = bank.addFunction("main", "0_");
    h.op(Opcode::AddI64Imm).reg(ref(0)).i64(1).reg(prim(0));
    h.op(Opcode::Return).list({});
    expectInvalid(bank, "(add.i64.imm): operand 0 must be a primitive register, "
                        "not %r0");
  }

  TEST_CASE("cond_fail.ne.i64 has its registers and message checked") {
    ModuleBuilder good("m");
    FunctionBuilder& g = good.addFunction("main", "0II_");
    g.op(Opcode::ConstI32).i32(9).reg(prim(2));
    g.op(Opcode::CondFailNeI64)
        .reg(prim(0))
        .reg(prim(1))
        .reg(prim(2))
        .str("{0} != {1}");
    g.op(Opcode::Return).list({});
    expectValid(good);
    ModuleBuilder bank("m");
    FunctionBuilder& b = bank.addFunction("main", "0_");
    b.op(Opcode::CondFailNeI64).reg(prim(0)).reg(ref(0)).reg(prim(1)).str("x");
    b.op(Opcode::Return).list({});
    expectInvalid(bank,
                  "(cond_fail.ne.i64): operand 1 must be a primitive "
                  "register, not %r0");
    ModuleBuilder cut("m");
    FunctionBuilder& c = cut.addFunction("main", "0_");
    // A message of 200 bytes of which only 2 are there.
    c.op(Opcode::CondFailNeI64)
        .reg(prim(0))
        .reg(prim(0))
        .reg(prim(0))
        .bytes({200, 0, 'a', 'b'});
    expectInvalid(cut, "(cond_fail.ne.i64): instruction is truncated");
  }

  TEST_CASE("a function may not fall off its end after a fused compare") {
    // cond_br.lt.i64.s is a terminator; cmp.lt.i64.s, its unfused half, is
    // not.
    ModuleBuilder b("m");
    FunctionBuilder& f = b.addFunction("main", "0II_");
    f.op(Opcode::CmpLtSI64).reg(prim(0)).reg(prim(1)).reg(prim(2));
    expectInvalid(b, "ends with cmp.lt.i64.s at pc 0, which is not a "
                     "terminator");
  }

  TEST_CASE("rejects a variadic import called with call.import") {
    ModuleBuilder b("m");
    b.addImport("io.concat", "0CrD_r");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::CallImport).u32(0).list({ref(0)}).list({ref(1)});
    f.op(Opcode::Return).list({});
    expectInvalid(b, "call to import 'io.concat': the import is variadic "
                     "('0CrD_r'); use call.variadic");
  }

  TEST_CASE("rejects call.variadic of an import without a span") {
    ModuleBuilder b("m");
    b.addImport("io.write", "0r_");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::CallVariadic).u32(0).sizes({1}).list({ref(0)}).list({});
    f.op(Opcode::Return).list({});
    expectInvalid(b, "the import is not variadic ('0r_'); use call.import");
  }

  TEST_CASE("rejects call.variadic arguments that do not fill the span") {
    ModuleBuilder b("m");
    b.addImport("io.concat", "0iCrD_r");
    FunctionBuilder& f = b.addFunction("main", "0_");
    f.op(Opcode::CallVariadic)
        .u32(0)
        .sizes({3})
        .list({prim(0), ref(0), ref(1)})
        .list({ref(2)});
    f.op(Opcode::Return).list({});
    expectInvalid(b, "has 3 arguments but calling convention '0iCrD_r' with "
                     "its span sizes expects 4");
    ModuleBuilder c("m");
    c.addImport("io.concat", "0iCrD_r");
    FunctionBuilder& g = c.addFunction("main", "0_");
    g.op(Opcode::CallVariadic)
        .u32(0)
        .sizes({1, 1})
        .list({prim(0), ref(0)})
        .list({ref(2)});
    g.op(Opcode::Return).list({});
    expectInvalid(c, "gives 2 span sizes but the calling convention "
                     "'0iCrD_r' has 1 span(s)");
    ModuleBuilder d("m");
    d.addImport("io.concat", "0iCrD_r");
    FunctionBuilder& h = d.addFunction("main", "0_");
    h.op(Opcode::CallVariadic)
        .u32(0)
        .sizes({1})
        .list({prim(0), prim(1)})
        .list({ref(2)});
    h.op(Opcode::Return).list({});
    expectInvalid(d, "argument 1 of variadic call to import 'io.concat' is %i1 "
                     "but calling convention '0iCrD_r' expects a ref register");
  }

  TEST_CASE("accepts the MOVE bit on any ref operand") {
    ModuleBuilder b("m");
    b.addImport("io.take", "0r_r");
    FunctionBuilder& f = b.addFunction("main", "0r_r");
    f.op(Opcode::CallImport).u32(0).list({ref(0, true)}).list({ref(1, true)});
    f.op(Opcode::MovRef).reg(ref(1, true)).reg(ref(0, true));
    f.op(Opcode::Return).list({ref(0, true)});
    expectValid(b);
  }

  TEST_CASE("reports a function index out of range") {
    ModuleBuilder b("m");
    b.addFunction("main", "0_").op(Opcode::Return).list({});
    Loaded loaded;
    load(b, &loaded);
    REQUIRE(loaded.module);
    strata_status_t status = strata::vm::verifyFunction(*loaded.module, 4);
    REQUIRE(status);
    CHECK(std::string(strata_status_message(status)) ==
          "function 4 out of range (module has 1 functions)");
    strata_status_free(status);
    CHECK(strata::vm::verifyFunction(*loaded.module, 0) == nullptr);
  }

  TEST_CASE("annotates verifier errors with the function and module") {
    ModuleBuilder b("annotated");
    b.addFunction("ok", "0_").op(Opcode::Return).list({});
    b.addFunction("bad", "0_").op(Opcode::Break);
    Loaded loaded;
    load(b, &loaded);
    REQUIRE(loaded.status);
    REQUIRE(strata_status_annotation_count(loaded.status) == 1);
    CHECK(std::string(strata_status_annotation(loaded.status, 0)) ==
          "while verifying function #1 of module 'annotated'");
  }

  // A tiny deterministic generator, so failures reproduce.
  struct Lcg {
    uint64_t state;
    uint32_t next() {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<uint32_t>(state >> 33);
    }
  };

  TEST_CASE("rejects random bytes as a function body without crashing") {
    Lcg rng{42};
    int accepted = 0;
    for (int iteration = 0; iteration < 3000; ++iteration) {
      ModuleBuilder b("fuzz");
      b.addImport("io.a", "0ri_i");
      b.addImport("io.b", "0CrD_");
      b.addRodata({1, 2});
      b.addType("vm.buffer");
      b.setGlobals(16, 2);
      FunctionBuilder& f = b.addFunction("main", "0i_i");
      uint32_t length = 1 + rng.next() % 48;
      std::vector<uint8_t> body;
      for (uint32_t i = 0; i < length; ++i) {
        // Bias towards small values, which make plausible operands.
        uint32_t r = rng.next();
        body.push_back(static_cast<uint8_t>((r & 3) ? (r >> 8) % 8 : r >> 8));
      }
      for (uint8_t byte : body) {
        f.bytes({byte});
      }
      f.registerCounts(4, 4);
      // A few random block starts, sorted and unique.
      std::vector<uint32_t> blocks = {0};
      for (uint32_t i = 1; i < length && blocks.size() < 4; ++i) {
        if (rng.next() % 8 == 0) {
          blocks.push_back(i);
        }
      }
      b.overrideBlockOffsets(f.index(), blocks);
      Loaded loaded;
      load(b, &loaded);
      if (loaded.status) {
        CHECK(strata_status_code(loaded.status) ==
              STRATA_STATUS_INVALID_ARGUMENT);
        CHECK(loaded.message().rfind("function '", 0) == 0);
      } else {
        ++accepted;
      }
    }
    // Random bytes almost never form a valid function; the point is that
    // every rejection is a clean status, checked above.
    CHECK(accepted < 3000);
  }

  // Ops whose sizes come from registers; random programs could ask for
  // gigabytes, which is a fine runtime error but slow under sanitizers.
  bool allocates(Opcode op) {
    switch (op) {
    case Opcode::BufferAlloc:
    case Opcode::BufferClone:
    case Opcode::ListAlloc:
    case Opcode::ListReserve:
    case Opcode::ListResize:
    case Opcode::BufferFillI8:
    case Opcode::BufferFillI16:
    case Opcode::BufferFillI32:
    case Opcode::BufferFillI64:
      return true;
    default:
      return false;
    }
  }

  // Appends one random instruction whose operands are mostly plausible, so
  // that generated functions reach the deep checks, not just the decoder.
  // With a target block, branches only jump there, so the function cannot
  // loop and allocation sizes never come from random immediates.
  void randomInstruction(Lcg & rng, FunctionBuilder & f, int64_t target = -1) {
    uint8_t byte;
    do {
      byte = static_cast<uint8_t>(rng.next());
    } while (!strata::vm::isValidOpcode(byte) ||
             (target >= 0 && allocates(static_cast<Opcode>(byte))));
    f.op(static_cast<Opcode>(byte));
    auto small = [&](uint32_t limit) {
      return rng.next() % 16 == 0 ? rng.next() : rng.next() % limit;
    };
    auto anyReg = [&]() -> uint16_t {
      if (rng.next() % 16 == 0) {
        return static_cast<uint16_t>(rng.next());
      }
      uint16_t index = static_cast<uint16_t>(rng.next() % 5);
      return rng.next() % 2 ? ref(index, rng.next() % 2) : prim(index);
    };
    for (const char* kind = strata::vm::opcodeInfo(byte).format; *kind;
         ++kind) {
      switch (*kind) {
      case 'a':
        f.reg(rng.next() % 16 == 0 ? anyReg()
                                   : prim(static_cast<uint16_t>(small(5))));
        break;
      case 'r':
        f.reg(rng.next() % 16 == 0
                  ? anyReg()
                  : ref(static_cast<uint16_t>(small(5)), rng.next() % 2));
        break;
      case 'i':
      case 'f':
        f.u32(rng.next());
        break;
      case 'l':
      case 'd':
        f.i64(static_cast<int64_t>(rng.next()) << 20);
        break;
      case 'B':
        if (target >= 0) {
          f.block(static_cast<uint32_t>(target));
        } else {
          f.u32(small(3));
        }
        break;
      case 'F':
      case 'M':
      case 'G':
      case 'D':
      case 'T':
        f.u32(small(3));
        break;
      case 'w':
        f.u32(small(6) * 4);
        break;
      case 'W':
        f.u32(small(3) * 8);
        break;
      case 'S':
        f.str("msg");
        break;
      case 'V': {
        std::vector<uint16_t> regs(rng.next() % 4);
        for (uint16_t& r : regs) {
          r = anyReg();
        }
        f.list(regs);
        break;
      }
      case 'P': {
        std::vector<Remap> pairs(rng.next() % 3);
        for (Remap& pair : pairs) {
          bool is_ref = rng.next() % 2;
          auto pick = [&]() {
            uint16_t index = static_cast<uint16_t>(small(5));
            return is_ref ? ref(index) : prim(index);
          };
          pair = Remap{pick(), pick()};
        }
        f.remap(pairs);
        break;
      }
      case 'X': {
        uint32_t to = target >= 0 ? static_cast<uint32_t>(target) : 0;
        f.cases({{to, {}}, {to, {{prim(1), prim(2)}}}});
        break;
      } break;
      case 'C':
        f.sizes({static_cast<uint16_t>(rng.next() % 3)});
        break;
      default:
        FAIL("unknown operand kind " << *kind);
      }
    }
  }

  TEST_CASE("never crashes on random instruction sequences") {
    Lcg rng{7};
    int accepted = 0;
    int rejected = 0;
    for (int iteration = 0; iteration < 20000; ++iteration) {
      ModuleBuilder b("fuzz");
      b.addImport("io.a", "0ri_i");
      b.addImport("io.b", "0CrD_");
      b.addImport("io.c", "0_", /*optional=*/true);
      b.addRodata({1, 2});
      b.addType("vm.buffer");
      b.setGlobals(16, 2);
      FunctionBuilder& callee = b.addFunction("callee", "0i_i");
      callee.op(Opcode::Return).list({prim(0)});
      FunctionBuilder& f = b.addFunction("main", "0i_i");
      uint32_t count = 1 + rng.next() % 4;
      for (uint32_t i = 0; i < count; ++i) {
        randomInstruction(rng, f);
      }
      if (rng.next() % 4 != 0) {
        f.op(Opcode::Return).list({prim(0)});
      }
      f.registerCounts(4, 4);
      Loaded loaded;
      load(b, &loaded);
      if (loaded.status) {
        CHECK(strata_status_code(loaded.status) ==
              STRATA_STATUS_INVALID_ARGUMENT);
        CHECK(loaded.message().rfind("function '", 0) == 0);
        ++rejected;
      } else {
        ++accepted;
      }
    }
    // Both outcomes must occur, or the generator is not testing anything.
    CHECK(accepted > 0);
    CHECK(rejected > 0);
    MESSAGE("random instruction sequences accepted: " << accepted
                                                      << ", "
                                                         "rejected: "
                                                      << rejected);
  }

  strata_status_t ioFunction(strata_vm_native_call_t*, void*, void*,
                             const strata_vm_value_t*, size_t,
                             strata_vm_value_t*, size_t) {
    return nullptr;
  }

  const strata_vm_native_function_t kIoFunctions[] = {
      {"a", "0ri_i", ioFunction},
      {"b", "0CrD_", ioFunction},
  };
  const strata_vm_native_module_descriptor_t kIo = {
      "io", 1, nullptr, 0, kIoFunctions, 2, nullptr, nullptr, nullptr};

  void discardPrint(void*, const char*, size_t) {}

  // The interpreter trusts the verifier: whatever it admits must run without
  // memory errors (run this suite under ASan). Runtime failures are fine.
  TEST_CASE("runs verified random programs without memory errors") {
    Lcg rng{1234};
    int ran = 0;
    for (int iteration = 0; iteration < 20000; ++iteration) {
      ModuleBuilder b("fuzz");
      b.addImport("io.a", "0ri_i");
      b.addImport("io.b", "0CrD_");
      b.addImport("io.c", "0_", /*optional=*/true);
      b.addRodata({1, 2, 3, 4, 5, 6, 7, 8});
      b.addType("vm.buffer");
      b.setGlobals(16, 2);
      FunctionBuilder& callee = b.addFunction("callee", "0i_i");
      callee.op(Opcode::Return).list({prim(0)});
      FunctionBuilder& f = b.addFunction("main", "0i_i");
      uint32_t end = f.newBlock();
      uint32_t count = 1 + rng.next() % 6;
      for (uint32_t i = 0; i < count; ++i) {
        randomInstruction(rng, f, end);
      }
      f.bind(end);
      f.op(Opcode::Return).list({prim(0)});
      f.registerCounts(4, 4);
      b.addExport("main", f.index());

      Harness h;
      StatusText loaded(h.load(b));
      if (!loaded.ok()) {
        continue;
      }
      strata_vm_module_t* io = nullptr;
      REQUIRE(strata_status_consume_ok(strata_vm_native_module_create(
          &kIo, nullptr, strata_allocator_system(), &io)));
      // Native modules must come before the modules that import them.
      h.modules.insert(h.modules.begin(), io);
      strata_vm_context_options_t options = {};
      options.print = discardPrint;
      StatusText linked(h.link(&options));
      REQUIRE(linked.ok());
      std::vector<strata_vm_value_t> results;
      StatusText called(h.call("fuzz.main", {vI32(3)}, &results, 1));
      ++ran;
    }
    CHECK(ran > 1000);
    MESSAGE("verified random programs run: " << ran);
  }

}  // TEST_SUITE

}  // namespace
