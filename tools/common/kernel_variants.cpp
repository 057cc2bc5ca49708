// kernel_variants.cpp - finds a module's kernel libraries and asks the hal
// which of them this host runs (kernel_variants.h).
#include "kernel_variants.h"

#include <cstring>

#include "format.h"
#include "module_generated.h"
#include "strata/hal/executable.h"

namespace strata::tools {

KernelVariants probeKernelVariants(const uint8_t* data, size_t size) {
  KernelVariants out;
  strata_module_header_t header;
  if (size < sizeof(header)) {
    return out;
  }
  std::memcpy(&header, data, sizeof(header));
  if (header.flatbuffer_offset > size ||
      header.flatbuffer_size > size - header.flatbuffer_offset ||
      header.segments_offset > size ||
      header.segments_size > size - header.segments_offset) {
    return out;
  }
  // The FlatBuffer verifier needs aligned data; copy into aligned storage.
  size_t fb_size = static_cast<size_t>(header.flatbuffer_size);
  std::vector<uint64_t> aligned((fb_size + 7) / 8);
  std::memcpy(aligned.data(), data + header.flatbuffer_offset, fb_size);
  const uint8_t* base = reinterpret_cast<const uint8_t*>(aligned.data());
  flatbuffers::Verifier verifier(base, fb_size);
  if (!schema::VerifyModuleBuffer(verifier)) {
    return out;
  }
  const schema::Module* module = schema::GetModule(base);
  if (!module->rodata()) {
    return out;
  }
  int best_features = -1;
  for (uint32_t i = 0; i < module->rodata()->size(); ++i) {
    const schema::SegmentRef* seg = module->rodata()->Get(i);
    if (seg->offset() > header.segments_size ||
        seg->length() > header.segments_size - seg->offset()) {
      continue;
    }
    const uint8_t* bytes = data + header.segments_offset + seg->offset();
    size_t length = static_cast<size_t>(seg->length());
    if (length < 20 || std::memcmp(bytes,
                                   "\x7f"
                                   "ELF",
                                   4) != 0) {
      continue;
    }
    KernelVariant variant;
    variant.segment = i;
    variant.size = seg->length();
    strata_hal_executable_t* executable = nullptr;
    std::string name = "rodata segment " + std::to_string(i);
    strata_status_t status = strata_hal_executable_load_memory(
        bytes, length, name.c_str(), strata_allocator_system(), &executable);
    if (status) {
      variant.error = strata_status_message(status);
      strata_status_free(status);
    } else {
      uint64_t required = strata_hal_executable_required_features(executable);
      variant.runs = true;
      char names[256];
      strata_hal_cpu_feature_names(required, names, sizeof(names));
      variant.features = names;
      strata_hal_executable_release(executable);
      int count = __builtin_popcountll(required);
      if (count > best_features) {
        best_features = count;
        out.picked = static_cast<int>(out.libraries.size());
      }
    }
    out.libraries.push_back(std::move(variant));
  }
  return out;
}

}  // namespace strata::tools
