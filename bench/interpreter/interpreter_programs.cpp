// interpreter_programs.cpp - writes the two interpreter benchmark programs,
// recursive fib and an i64 loop, as .vmfb files for strata-run. They are
// built with the module builder exactly as a straightforward compiler lowers
// the peers in /work/shared/bench/peers (fib.lua, loop.lua): constants
// materialized at the top of the entry block, one block per loop header and
// body, block arguments passed through branch remap lists, compare +
// cond_br, i64 arithmetic, rem.i64.s and a call per recursion.
//
// Two forms of each program are written:
//   plain  only the original opcodes: every constant materialized with
//          const.i64, compare and cond_br separate;
//   fused  what the compiler emits with its peepholes: a compare whose only
//          use is a cond_br becomes cond_br.lt.i64.s, and a constant operand
//          of add/sub/mul/rem is folded into add.i64.imm / mul.i64.imm /
//          rem.i64.s.imm (sub x, c is add x, -c).
// Both have the same blocks, block arguments and calls.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "module_builder.h"

using namespace strata::vm;
using namespace strata::vm::testing;

namespace {

// fib(n: i64) -> i64 { if (n < 2) return n; return fib(n-1) + fib(n-2); }
std::vector<uint8_t> buildFib(bool fused) {
  ModuleBuilder mb("fib");
  auto& f = mb.addFunction("fib", "0I_I");
  uint32_t recurse = f.newBlock();
  uint32_t base = f.newBlock();
  // %i0 = n
  f.op(Opcode::ConstI64).i64(2).reg(prim(1));
  if (!fused) {
    f.op(Opcode::ConstI64).i64(1).reg(prim(2));
  }
  if (fused) {
    f.op(Opcode::CondBrLtSI64)
        .reg(prim(0))
        .reg(prim(1))
        .block(base)
        .remap({})
        .block(recurse)
        .remap({});
  } else {
    f.op(Opcode::CmpLtSI64).reg(prim(0)).reg(prim(1)).reg(prim(3));
    f.op(Opcode::CondBr)
        .reg(prim(3))
        .block(base)
        .remap({})
        .block(recurse)
        .remap({});
  }
  f.bind(recurse);
  if (fused) {
    f.op(Opcode::AddI64Imm).reg(prim(0)).i64(-1).reg(prim(4));
  } else {
    f.op(Opcode::SubI64).reg(prim(0)).reg(prim(2)).reg(prim(4));
  }
  f.op(Opcode::Call).u32(f.index()).list({prim(4)}).list({prim(5)});
  if (fused) {
    f.op(Opcode::AddI64Imm).reg(prim(0)).i64(-2).reg(prim(6));
  } else {
    f.op(Opcode::SubI64).reg(prim(0)).reg(prim(1)).reg(prim(6));
  }
  f.op(Opcode::Call).u32(f.index()).list({prim(6)}).list({prim(7)});
  f.op(Opcode::AddI64).reg(prim(5)).reg(prim(7)).reg(prim(8));
  f.op(Opcode::Return).list({prim(8)});
  f.bind(base);
  f.op(Opcode::Return).list({prim(0)});
  mb.addExport("fib", f.index());
  return mb.build();
}

// loop(n: i64) -> i64 {
//   s = 0; for (i = 1; i < n + 1; i += 1) s = (s + i * 3) % 1000003;
//   return s;
// }
// scf.for lowered to cf: the header takes (i, s) as block arguments and
// compares i < upper bound; the body branches back with the new values.
std::vector<uint8_t> buildLoop(bool fused) {
  ModuleBuilder mb("loop");
  auto& f = mb.addFunction("loop", "0I_I");
  uint32_t header = f.newBlock();
  uint32_t body = f.newBlock();
  uint32_t exit = f.newBlock();
  // %i0 = n
  f.op(Opcode::ConstI64).i64(0).reg(prim(1));        // s0
  f.op(Opcode::ConstI64).i64(1).reg(prim(2));        // lower bound, step
  if (fused) {
    f.op(Opcode::AddI64Imm).reg(prim(0)).i64(1).reg(prim(5));  // ub = n + 1
  } else {
    f.op(Opcode::ConstI64).i64(3).reg(prim(3));
    f.op(Opcode::ConstI64).i64(1000003).reg(prim(4));
    f.op(Opcode::AddI64).reg(prim(0)).reg(prim(2)).reg(prim(5));
  }
  f.op(Opcode::Br).block(header).remap({{prim(2), prim(6)}, {prim(1), prim(7)}});
  f.bind(header);  // (%i6 = i, %i7 = s)
  if (fused) {
    f.op(Opcode::CondBrLtSI64)
        .reg(prim(6))
        .reg(prim(5))
        .block(body)
        .remap({})
        .block(exit)
        .remap({});
  } else {
    f.op(Opcode::CmpLtSI64).reg(prim(6)).reg(prim(5)).reg(prim(8));
    f.op(Opcode::CondBr)
        .reg(prim(8))
        .block(body)
        .remap({})
        .block(exit)
        .remap({});
  }
  f.bind(body);
  if (fused) {
    f.op(Opcode::MulI64Imm).reg(prim(6)).i64(3).reg(prim(9));
    f.op(Opcode::AddI64).reg(prim(7)).reg(prim(9)).reg(prim(10));
    f.op(Opcode::RemSI64Imm).reg(prim(10)).i64(1000003).reg(prim(11));
    f.op(Opcode::AddI64Imm).reg(prim(6)).i64(1).reg(prim(12));
  } else {
    f.op(Opcode::MulI64).reg(prim(6)).reg(prim(3)).reg(prim(9));
    f.op(Opcode::AddI64).reg(prim(7)).reg(prim(9)).reg(prim(10));
    f.op(Opcode::RemSI64).reg(prim(10)).reg(prim(4)).reg(prim(11));
    f.op(Opcode::AddI64).reg(prim(6)).reg(prim(2)).reg(prim(12));
  }
  f.op(Opcode::Br).block(header).remap(
      {{prim(12), prim(6)}, {prim(11), prim(7)}});
  f.bind(exit);
  f.op(Opcode::Return).list({prim(7)});
  mb.addExport("loop", f.index());
  return mb.build();
}

bool writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) {
    std::perror(path.c_str());
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  ok = std::fclose(file) == 0 && ok;
  if (!ok) {
    std::fprintf(stderr, "interpreter_programs: writing %s failed\n",
                 path.c_str());
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || std::strncmp(argv[1], "--", 2) == 0) {
    std::fprintf(stderr,
                 "usage: interpreter_programs OUTPUT_DIR\n"
                 "Writes fib.vmfb, loop.vmfb (fused compare+branch, folded "
                 "immediates) and fib-plain.vmfb, loop-plain.vmfb (original "
                 "opcodes only).\n");
    return argc == 2 && std::strcmp(argv[1], "--help") == 0 ? 0 : 2;
  }
  std::string dir = argv[1];
  bool ok = writeFile(dir + "/fib.vmfb", buildFib(true)) &&
            writeFile(dir + "/loop.vmfb", buildLoop(true)) &&
            writeFile(dir + "/fib-plain.vmfb", buildFib(false)) &&
            writeFile(dir + "/loop-plain.vmfb", buildLoop(false));
  return ok ? 0 : 1;
}
