// make_sample_modules - writes the sample .vmfb files that the tools tests and
// scripts/run-sample.sh run strata-dump and strata-run on, built with the C++
// module builder (the compiler is not needed).
//
// usage: make_sample_modules OUTPUT_DIR
//
//   sample.vmfb     module "sample": scalar functions (add, scale, neg64,
//                   fadd32, pair, sum_to with a loop, counter with globals,
//                   rodata_len, make_buffer), failing functions (fails,
//                   fails_deep), compiler info, requirements, an optional
//                   dependency and import ("extras", which nothing
//                   provides), two rodata segments, debug
//                   locations and reflection attributes.
//   math.vmfb       module "math" exporting double(i32) -> i32.
//   app.vmfb        module "app" importing math.double; main(i32) -> i32.
//   needs_hal.vmfb  names the ref type hal.buffer, which only the HAL
//                   registers: strata-dump shows it without the HAL;
//                   strata-run (which creates the hal module) runs it.
//   views.vmfb      module "views" passing refs through untouched, for
//                   strata-run's tensor inputs and outputs: echo(r) -> r,
//                   swap(r, r) -> (r, r), tag(r, i32) -> (i32, r).
//   lists.vmfb      module "lists": vm.list arguments and results recorded
//                   as sequences and optionals (seq_echo, seq_len,
//                   opt_echo, optseq_echo, bf16_seq, mixed, any_echo).
#include <cstdio>
#include <string>
#include <vector>

#include "module_builder.h"
#include "strata/base/status.h"

namespace {

using namespace strata::vm;
using namespace strata::vm::testing;

bool writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) {
    std::perror(path.c_str());
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  ok = std::fclose(file) == 0 && ok;
  if (!ok) {
    std::fprintf(stderr, "make_sample_modules: cannot write %s\n",
                 path.c_str());
  }
  return ok;
}

std::vector<uint8_t> buildSample() {
  ModuleBuilder b("sample", 3);
  b.setCompiler("make_sample_modules", "0.1.0",
                {"make_sample_modules", "--sample"});
  b.addRequirement("f64");
  // An optional dependency no process provides (strata-run always provides
  // "hal", so naming it here would have to match the real hal module).
  b.addDependency("extras", 3, /*optional=*/true);
  b.addImport("extras.get", "0_r", /*optional=*/true);
  b.setGlobals(16, 1);
  uint32_t rodata = b.addRodata(std::vector<uint8_t>(20, 0xAB));
  b.addRodata(std::vector<uint8_t>(100, 0x01));

  FunctionBuilder& add = b.addFunction("add", "0ii_i");
  add.location("sample.mlir", 2, 10);
  add.op(Opcode::AddI32).reg(prim(0)).reg(prim(1)).reg(prim(2));
  add.location("sample.mlir", 3, 3);
  add.op(Opcode::Return).list({prim(2)});
  b.addExport("add", add.index(),
              {{"iree.abi.declaration", "add(%a: i32, %b: i32) -> i32"},
               {"note", "quoted \"value\"\twith a tab"}});

  FunctionBuilder& scale = b.addFunction("scale", "0F_F");
  scale.location("sample.mlir", 6, 10);
  scale.op(Opcode::ConstF64).f64(2.5).reg(prim(1));
  scale.op(Opcode::MulF64).reg(prim(0)).reg(prim(1)).reg(prim(2));
  scale.op(Opcode::Return).list({prim(2)});
  b.addExport("scale", scale.index());

  FunctionBuilder& neg = b.addFunction("neg64", "0I_I");
  neg.op(Opcode::NegI64).reg(prim(0)).reg(prim(1));
  neg.op(Opcode::Return).list({prim(1)});
  b.addExport("neg64", neg.index());

  FunctionBuilder& fadd = b.addFunction("fadd32", "0ff_f");
  fadd.op(Opcode::AddF32).reg(prim(0)).reg(prim(1)).reg(prim(2));
  fadd.op(Opcode::Return).list({prim(2)});
  b.addExport("fadd32", fadd.index());

  FunctionBuilder& pair = b.addFunction("pair", "0_iF");
  pair.op(Opcode::ConstI32).i32(7).reg(prim(0));
  pair.op(Opcode::ConstF64).f64(0.5).reg(prim(1));
  pair.op(Opcode::Return).list({prim(0), prim(1)});
  b.addExport("pair", pair.index());

  // sum_to(n) = 1 + 2 + ... + n, with a loop over blocks and remaps.
  FunctionBuilder& sum = b.addFunction("sum_to", "0i_i");
  uint32_t head = sum.newBlock();
  uint32_t body = sum.newBlock();
  uint32_t exit = sum.newBlock();
  sum.location("sample.mlir", 12, 3);
  sum.op(Opcode::ConstI32).i32(0).reg(prim(1));  // acc
  sum.op(Opcode::ConstI32).i32(1).reg(prim(2));  // i
  sum.op(Opcode::ConstI32).i32(1).reg(prim(4));  // one
  sum.op(Opcode::Br).block(head).remap({});
  sum.bind(head);
  sum.location("sample.mlir", 13, 5);
  sum.op(Opcode::CmpLeSI32).reg(prim(2)).reg(prim(0)).reg(prim(3));
  sum.op(Opcode::CondBr)
      .reg(prim(3))
      .block(body)
      .remap({})
      .block(exit)
      .remap({{prim(1), prim(5)}});
  sum.bind(body);
  sum.location("sample.mlir", 14, 7);
  sum.op(Opcode::AddI32).reg(prim(1)).reg(prim(2)).reg(prim(1));
  sum.op(Opcode::AddI32).reg(prim(2)).reg(prim(4)).reg(prim(2));
  sum.op(Opcode::Br).block(head).remap({});
  sum.bind(exit);
  sum.location("sample.mlir", 16, 3);
  sum.op(Opcode::Return).list({prim(5)});
  b.addExport("sum_to", sum.index());

  // counter() increments an i32 global and returns it.
  FunctionBuilder& counter = b.addFunction("counter", "0_i");
  counter.op(Opcode::GlobalLoadI32).u32(0).reg(prim(0));
  counter.op(Opcode::ConstI32).i32(1).reg(prim(1));
  counter.op(Opcode::AddI32).reg(prim(0)).reg(prim(1)).reg(prim(0));
  counter.op(Opcode::GlobalStoreI32).reg(prim(0)).u32(0);
  counter.op(Opcode::Return).list({prim(0)});
  b.addExport("counter", counter.index());

  // rodata_len() is the byte length of rodata segment 0 (20).
  FunctionBuilder& len = b.addFunction("rodata_len", "0_I");
  len.op(Opcode::ConstRefRodata).u32(rodata).reg(ref(0));
  len.op(Opcode::BufferLength).reg(ref(0, /*move=*/true)).reg(prim(0));
  len.op(Opcode::Return).list({prim(0)});
  b.addExport("rodata_len", len.index());

  FunctionBuilder& buffer = b.addFunction("make_buffer", "0_r");
  buffer.op(Opcode::ConstI64).i64(16).reg(prim(0));
  buffer.op(Opcode::BufferAlloc).reg(prim(0)).reg(ref(0));
  buffer.op(Opcode::Return).list({ref(0, /*move=*/true)});
  b.addExport("make_buffer", buffer.index());

  // fails() fails with INVALID_ARGUMENT (3); fails_deep() calls it, so the
  // backtrace has two frames.
  FunctionBuilder& fails = b.addFunction("fails", "0_");
  fails.location("sample.mlir", 30, 5);
  fails.op(Opcode::ConstI32).i32(STRATA_STATUS_INVALID_ARGUMENT).reg(prim(0));
  fails.location("sample.mlir", 31, 5);
  fails.op(Opcode::Fail).reg(prim(0)).str("sample failure: \"bad\" input");
  b.addExport("fails", fails.index());

  FunctionBuilder& deep = b.addFunction("fails_deep", "0_");
  deep.location("sample.mlir", 40, 3);
  deep.op(Opcode::Call).u32(fails.index()).list({}).list({});
  deep.op(Opcode::Return).list({});
  b.addExport("fails_deep", deep.index());

  return b.build();
}

std::vector<uint8_t> buildMath() {
  ModuleBuilder b("math", 2);
  FunctionBuilder& f = b.addFunction("double", "0i_i");
  f.location("math.mlir", 1, 1);
  f.op(Opcode::AddI32).reg(prim(0)).reg(prim(0)).reg(prim(1));
  f.op(Opcode::Return).list({prim(1)});
  b.addExport("double", f.index());
  return b.build();
}

std::vector<uint8_t> buildApp() {
  ModuleBuilder b("app", 1);
  b.addDependency("math", 2);
  uint32_t twice = b.addImport("math.double", "0i_i");
  FunctionBuilder& f = b.addFunction("main", "0i_i");
  f.location("app.mlir", 5, 3);
  f.op(Opcode::CallImport).u32(twice).list({prim(0)}).list({prim(1)});
  f.op(Opcode::ConstI32).i32(1).reg(prim(2));
  f.op(Opcode::AddI32).reg(prim(1)).reg(prim(2)).reg(prim(3));
  f.op(Opcode::Return).list({prim(3)});
  b.addExport("main", f.index());
  return b.build();
}

std::vector<uint8_t> buildNeedsHal() {
  ModuleBuilder b("needs_hal", 1);
  uint32_t type = b.addType("hal.buffer");
  FunctionBuilder& f = b.addFunction("is_hal_buffer", "0r_i");
  f.op(Opcode::CastRef).reg(ref(0)).u32(type).reg(ref(1));
  f.op(Opcode::CmpNzRef).reg(ref(1, /*move=*/true)).reg(prim(0));
  f.op(Opcode::Return).list({prim(0)});
  b.addExport("is_hal_buffer", f.index());
  return b.build();
}

std::vector<uint8_t> buildViews() {
  ModuleBuilder b("views", 1);
  // Arguments fill each register bank in order: refs r0.., primitives i0...
  FunctionBuilder& echo = b.addFunction("echo", "0r_r");
  echo.op(Opcode::Return).list({ref(0)});
  b.addExport("echo", echo.index());
  FunctionBuilder& swap = b.addFunction("swap", "0rr_rr");
  swap.op(Opcode::Return).list({ref(1), ref(0)});
  b.addExport("swap", swap.index());
  FunctionBuilder& tag = b.addFunction("tag", "0ri_ir");
  tag.op(Opcode::Return).list({prim(0), ref(0)});
  b.addExport("tag", tag.index());
  return b.build();
}

// Functions whose arguments and results are vm.lists, recorded as ONNX
// sequences and optionals are ("list<?xf32>", "optional<2xi32>"), for
// strata-run's list inputs and outputs.
std::vector<uint8_t> buildLists() {
  ModuleBuilder b("lists", 1);
  FunctionBuilder& seq = b.addFunction("seq_echo", "0r_r");
  seq.op(Opcode::Return).list({ref(0)});
  b.addExport("seq_echo", seq.index(),
              {{"arg0", "list<?xf32>"}, {"result0", "list<?xf32>"}});
  FunctionBuilder& len = b.addFunction("seq_len", "0r_i");
  len.op(Opcode::ListSize).reg(ref(0)).reg(prim(0));
  len.op(Opcode::Return).list({prim(0)});
  b.addExport("seq_len", len.index(), {{"arg0", "list<*xi64>"}});
  FunctionBuilder& opt = b.addFunction("opt_echo", "0r_r");
  opt.op(Opcode::Return).list({ref(0)});
  b.addExport("opt_echo", opt.index(),
              {{"arg0", "optional<2xi32>"}, {"result0", "optional<2xi32>"}});
  FunctionBuilder& optseq = b.addFunction("optseq_echo", "0r_r");
  optseq.op(Opcode::Return).list({ref(0)});
  b.addExport("optseq_echo", optseq.index(),
              {{"arg0", "optional<list<*xf32>>"},
               {"result0", "optional<list<*xf32>>"}});
  FunctionBuilder& bf = b.addFunction("bf16_seq", "0r_r");
  bf.op(Opcode::Return).list({ref(0)});
  b.addExport("bf16_seq", bf.index(),
              {{"arg0", "list<?xbf16>"}, {"result0", "list<?xbf16>"}});
  // A list and a tensor in, the list's size and the tensor out.
  FunctionBuilder& mixed = b.addFunction("mixed", "0rr_ir");
  mixed.op(Opcode::ListSize).reg(ref(0)).reg(prim(0));
  mixed.op(Opcode::Return).list({prim(0), ref(1)});
  b.addExport(
      "mixed", mixed.index(),
      {{"arg0", "list<*xf32>"}, {"arg1", "3xf32"}, {"result1", "3xf32"}});
  // Unrecorded: a ref argument returned as it is.
  FunctionBuilder& any = b.addFunction("any_echo", "0r_r");
  any.op(Opcode::Return).list({ref(0)});
  b.addExport("any_echo", any.index());
  return b.build();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_sample_modules OUTPUT_DIR\n");
    return 2;
  }
  std::string dir = argv[1];
  bool ok = writeFile(dir + "/sample.vmfb", buildSample());
  ok = writeFile(dir + "/math.vmfb", buildMath()) && ok;
  ok = writeFile(dir + "/app.vmfb", buildApp()) && ok;
  ok = writeFile(dir + "/needs_hal.vmfb", buildNeedsHal()) && ok;
  ok = writeFile(dir + "/views.vmfb", buildViews()) && ok;
  ok = writeFile(dir + "/lists.vmfb", buildLists()) && ok;
  return ok ? 0 : 1;
}
