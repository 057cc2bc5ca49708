// kernel_variants.h - the kernel libraries a module carries (one per CPU
// variant in a multi-ISA module) and which one this host runs, for
// strata-dump and strata-run --verbose.
#ifndef STRATA_TOOLS_COMMON_KERNEL_VARIANTS_H_
#define STRATA_TOOLS_COMMON_KERNEL_VARIANTS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace strata::tools {

struct KernelVariant {
  uint32_t segment = 0;  // rodata segment index
  uint64_t size = 0;     // bytes
  bool runs = false;     // this host (as STRATA_CPU_FEATURES shows it) runs it
  std::string features;  // required CPU features ("avx2 fma"), when it runs
  std::string error;     // why it does not run
};

struct KernelVariants {
  std::vector<KernelVariant> libraries;  // in segment order
  // The library the runtime loads: of those this host runs, the one that
  // needs the most CPU features (a multi-ISA module lists its variants best
  // first, each needing a subset of the one before); -1 when none runs.
  int picked = -1;
};

// The ELF kernel libraries among the rodata segments of the module file
// bytes. Each one for this host's architecture is loaded (its query
// function runs) to learn the features it requires. A malformed module
// gives no libraries (the loader reports it).
KernelVariants probeKernelVariants(const uint8_t* data, size_t size);

}  // namespace strata::tools

#endif  // STRATA_TOOLS_COMMON_KERNEL_VARIANTS_H_
