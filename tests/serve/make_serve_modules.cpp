// make_serve_modules - writes the modules tests/serve's protocol and
// repository tests serve, with the C++ module builder (the compiler is not
// needed), their reflection written as strata-compile writes it.
//
// usage: make_serve_modules OUTPUT_DIR
//
//   oip.vmfb    module "oip": main(a, b) -> (a_out, b_out) passing both
//               through (arg0/arg1 "?x3xf32" named a and b, sharing the
//               dimension N); echo_<t> (x: ?x2x<t>) -> y for every
//               datatype of the protocol (bool, i8..i64, u8..u64 as
//               signless tensors whose element_type records the unsigned
//               type, f16, f32, f64); fixed (4x16xf32) -> 4x16xf32.
//   multi.vmfb  module "multi", without main: divide(i32, i32) -> i32
//               (fails on a zero divisor), count(?x3xf32) -> (the same, i32 7:
//               an output without a batch dimension), echo_any(?x?xf32).
//   seq.vmfb    module "seq": main(pieces: list<?xf32>) -> list<?xf32>.
//   optout.vmfb module "optout": main(x: ?x3xf32) -> optional<?x3xf32>.
#include <cstdio>
#include <string>
#include <vector>

#include "module_builder.h"

namespace {

using namespace strata::vm;
using namespace strata::vm::testing;
using Attrs = std::vector<std::pair<std::string, std::string>>;

bool writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file || bytes.empty()) {
    std::fprintf(stderr, "make_serve_modules: cannot write %s\n", path.c_str());
    if (file) std::fclose(file);
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  return std::fclose(file) == 0 && ok;
}

std::vector<uint8_t> buildOip() {
  ModuleBuilder b("oip", 1);
  // Arguments fill each register bank in order: refs r0.., primitives i0..
  FunctionBuilder& main = b.addFunction("main", "0rr_rr");
  main.op(Opcode::Return).list({ref(0), ref(1)});
  b.addExport("main", main.index(),
              {{"arg0", "?x3xf32"},
               {"arg0.name", "a"},
               {"arg0.dims", "N,3"},
               {"arg1", "?x3xf32"},
               {"arg1.name", "b"},
               {"arg1.dims", "N,3"},
               {"result0", "?x3xf32"},
               {"result0.name", "a_out"},
               {"result1", "?x3xf32"},
               {"result1.name", "b_out"}});
  struct Echo {
    const char* name;
    const char* type;
    const char* recorded;
  };
  const Echo echoes[] = {
      {"bool", "i1", nullptr},
      {"i8", "i8", nullptr},
      {"i16", "i16", nullptr},
      {"i32", "i32", nullptr},
      {"i64", "i64", nullptr},
      {"u8", "i8", "ui8"},
      {"u16", "i16", "ui16"},
      {"u32", "i32", "ui32"},
      {"u64", "i64", "ui64"},
      {"f16", "f16", nullptr},
      {"f32", "f32", nullptr},
      {"f64", "f64", nullptr},
      // ONNX's float8 (bits in an i8) and int4 (a value in an i8).
      {"f8", "i8", "f8E4M3FN"},
      {"i4", "i8", "i4"},
  };
  for (const Echo& echo : echoes) {
    std::string name = std::string("echo_") + echo.name;
    std::string type = std::string("?x2x") + echo.type;
    FunctionBuilder& f = b.addFunction(name, "0r_r");
    f.op(Opcode::Return).list({ref(0)});
    Attrs attrs = {{"arg0", type},
                   {"arg0.name", "x"},
                   {"result0", type},
                   {"result0.name", "y"}};
    if (echo.recorded) {
      attrs.push_back({"arg0.element_type", echo.recorded});
      attrs.push_back({"result0.element_type", echo.recorded});
    }
    b.addExport(name, f.index(), attrs);
  }
  FunctionBuilder& fixed = b.addFunction("fixed", "0r_r");
  fixed.op(Opcode::Return).list({ref(0)});
  b.addExport("fixed", fixed.index(),
              {{"arg0", "4x16xf32"}, {"result0", "4x16xf32"}});
  return b.build();
}

std::vector<uint8_t> buildMulti() {
  ModuleBuilder b("multi", 1);
  FunctionBuilder& divide = b.addFunction("divide", "0ii_i");
  divide.op(Opcode::DivSI32).reg(prim(0)).reg(prim(1)).reg(prim(2));
  divide.op(Opcode::Return).list({prim(2)});
  b.addExport("divide", divide.index());
  FunctionBuilder& count = b.addFunction("count", "0r_ri");
  count.op(Opcode::ConstI32).i32(7).reg(prim(0));
  count.op(Opcode::Return).list({ref(0), prim(0)});
  b.addExport("count", count.index(), {{"arg0", "?x3xf32"}});
  FunctionBuilder& echo = b.addFunction("echo_any", "0r_r");
  echo.op(Opcode::Return).list({ref(0)});
  b.addExport("echo_any", echo.index(),
              {{"arg0", "?x?xf32"}, {"result0", "?x?xf32"}});
  return b.build();
}

// Modules whose main takes or returns a list (an ONNX sequence or
// optional, recorded as strata-compile records one), which the protocol
// cannot carry: strata-serve refuses them at load.
std::vector<uint8_t> buildSequenceIn() {
  ModuleBuilder b("seq", 1);
  FunctionBuilder& main = b.addFunction("main", "0r_r");
  main.op(Opcode::Return).list({ref(0)});
  b.addExport("main", main.index(),
              {{"arg0", "list<?xf32>"},
               {"arg0.name", "pieces"},
               {"result0", "list<?xf32>"},
               {"result0.name", "same"}});
  return b.build();
}

std::vector<uint8_t> buildOptionalOut() {
  ModuleBuilder b("optout", 1);
  FunctionBuilder& main = b.addFunction("main", "0r_r");
  main.op(Opcode::Return).list({ref(0)});
  b.addExport("main", main.index(),
              {{"arg0", "?x3xf32"},
               {"arg0.name", "x"},
               {"result0", "optional<?x3xf32>"},
               {"result0.name", "maybe"}});
  return b.build();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_serve_modules OUTPUT_DIR\n");
    return 2;
  }
  std::string dir = argv[1];
  bool ok = writeFile(dir + "/oip.vmfb", buildOip());
  ok = writeFile(dir + "/multi.vmfb", buildMulti()) && ok;
  ok = writeFile(dir + "/seq.vmfb", buildSequenceIn()) && ok;
  ok = writeFile(dir + "/optout.vmfb", buildOptionalOut()) && ok;
  return ok ? 0 : 1;
}
