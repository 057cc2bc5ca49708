// make_hal_sample.cpp - writes hal_sample.vmfb (see hal_sample_module.h):
//
//   make_hal_sample [--kernels=PATH/sample_kernels.so] OUTPUT.vmfb
//
// The kernels default to the sample_kernels.so of this build. The build
// writes build/samples/hal_dispatch/hal_sample.vmfb with it; run it with
//
//   strata-run --module=hal_sample.vmfb --function=add
//       --input=2x3xf32=1 2 3 4 5 6 --input=2x3xf32=10 20 30 40 50 60
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "format.h"
#include "hal_sample_module.h"
#include "module_signature.h"

namespace {

bool readFile(const std::string& path, std::vector<uint8_t>* out) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) {
    return false;
  }
  uint8_t chunk[65536];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0) {
    out->insert(out->end(), chunk, chunk + got);
  }
  bool ok = !std::ferror(file);
  std::fclose(file);
  return ok;
}

bool writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) {
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  return std::fclose(file) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::string kernels = STRATA_SAMPLE_KERNELS_PATH;
  std::string output;
  std::string sign_key;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (std::strncmp(arg, "--kernels=", 10) == 0) {
      kernels = arg + 10;
    } else if (std::strncmp(arg, "--sign-key=", 11) == 0) {
      sign_key = arg + 11;
    } else if (arg[0] != '-' && output.empty()) {
      output = arg;
    } else {
      output.clear();
      break;
    }
  }
  if (output.empty()) {
    std::fprintf(stderr,
                 "usage: make_hal_sample [--kernels=PATH/sample_kernels.so] "
                 "[--sign-key=SECRET_KEY_FILE] OUTPUT.vmfb\n");
    return 2;
  }
  std::vector<uint8_t> library;
  if (!readFile(kernels, &library) || library.empty()) {
    std::fprintf(stderr, "make_hal_sample: cannot read %s\n", kernels.c_str());
    return 1;
  }
  std::vector<uint8_t> key;
  if (!sign_key.empty()) {
    key.resize(STRATA_MODULE_SECRET_KEY_SIZE);
    strata_status_t status =
        strata::vm::readKeyFile(sign_key.c_str(), key.size(), key.data());
    if (status) {
      std::fprintf(stderr, "make_hal_sample: %s\n",
                   strata_status_message(status));
      strata_status_free(status);
      return 1;
    }
  }
  std::vector<uint8_t> module =
      strata::samples::buildHalSampleModule(library, key);
  if (module.empty()) {
    std::fprintf(stderr, "make_hal_sample: cannot sign the module\n");
    return 1;
  }
  if (!writeFile(output, module)) {
    std::fprintf(stderr, "make_hal_sample: cannot write %s\n", output.c_str());
    return 1;
  }
  return 0;
}
