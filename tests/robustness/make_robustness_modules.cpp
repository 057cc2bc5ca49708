// make_robustness_modules.cpp - writes the modules the robustness tests run
// under deadlines, made with the module builder (no compiler needed):
//   endless_loop.vmfb    loop.spin(i64) -> i64 never returns: a backward
//                        branch forever.
//   endless_kernel.vmfb  the HAL sample's add over endless_kernel.so,
//                        whose kernel never returns.
#include <cstdio>
#include <string>
#include <vector>

#include "hal_sample_module.h"
#include "module_builder.h"

namespace {

using strata::vm::Opcode;
using namespace strata::vm::testing;

std::vector<uint8_t> buildEndlessLoop() {
  ModuleBuilder b("loop");
  // spin: r0 += 1 forever (block 1 branches to itself).
  FunctionBuilder& spin = b.addFunction("spin", "0I_I");
  uint32_t body = spin.newBlock();
  spin.op(Opcode::Br).block(body).remap({});
  spin.bind(body);
  spin.op(Opcode::AddI64Imm).reg(prim(0)).i64(1).reg(prim(0));
  spin.op(Opcode::Br).block(body).remap({});
  b.addExport("spin", spin.index());
  return b.build();
}

bool readFile(const char* path, std::vector<uint8_t>* out) {
  FILE* f = std::fopen(path, "rb");
  if (!f) {
    return false;
  }
  uint8_t chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0) {
    out->insert(out->end(), chunk, chunk + n);
  }
  std::fclose(f);
  return !out->empty();
}

bool writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr,
                 "usage: make_robustness_modules ENDLESS_KERNEL.so OUT_DIR\n");
    return 2;
  }
  std::vector<uint8_t> kernels;
  if (!readFile(argv[1], &kernels)) {
    std::fprintf(stderr, "make_robustness_modules: cannot read %s\n", argv[1]);
    return 1;
  }
  std::string dir = argv[2];
  if (!writeFile(dir + "/endless_loop.vmfb", buildEndlessLoop()) ||
      !writeFile(dir + "/endless_kernel.vmfb",
                 strata::samples::buildHalSampleModule(kernels))) {
    std::fprintf(stderr, "make_robustness_modules: cannot write to %s\n",
                 dir.c_str());
    return 1;
  }
  return 0;
}
