// module_builder.cpp - the fault injectors of ModuleBuilder: each rewrites
// one table of the writer's layout before it is serialized.
#include "module_builder.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace strata::vm::testing {

std::vector<uint8_t> ModuleBuilder::build() {
  build_error_.clear();
  writer::ModuleLayout layout = this->layout();
  for (const auto& [index, range] : range_overrides_) {
    if (index < layout.functions.size()) {
      layout.functions[index].offset = range.first;
      layout.functions[index].length = range.second;
    }
  }
  for (const auto& [index, cconv] : cconv_overrides_) {
    if (index < layout.functions.size()) {
      layout.functions[index].cconv = cconv;
    }
  }
  for (const auto& [index, blocks] : block_overrides_) {
    if (index < layout.functions.size()) {
      layout.functions[index].blocks = blocks;
    }
  }
  for (const auto& [index, lines] : debug_overrides_) {
    if (index < layout.functions.size()) {
      layout.functions[index].debug_pcs = lines.first;
      layout.functions[index].debug_location_ids = lines.second;
    }
  }
  for (const auto& [index, function] : export_overrides_) {
    if (index < layout.exports.size()) {
      layout.exports[index].function = function;
    }
  }
  // Checksums follow the (overridden) refs unless overridden themselves.
  for (const auto& [index, ref] : rodata_overrides_) {
    if (index < layout.rodata.size()) {
      layout.rodata[index] = ref;
      layout.rodata_checksums[index] = writer::rodataChecksum(layout, index);
    }
  }
  for (const auto& [index, checksum] : checksum_overrides_) {
    if (index < layout.rodata_checksums.size()) {
      layout.rodata_checksums[index] = checksum;
    }
  }
  layout.write_checksums = !omit_checksums_;
  return writer::serialize(layout, &build_error_);
}

void ModuleBuilder::overrideRodataRef(uint32_t index, uint64_t offset,
                                      uint64_t length) {
  rodata_overrides_[index] = {offset, length};
}

void ModuleBuilder::overrideRodataChecksum(uint32_t index, uint32_t checksum) {
  checksum_overrides_[index] = checksum;
}

void ModuleBuilder::omitRodataChecksums() { omit_checksums_ = true; }

void ModuleBuilder::overrideFunctionRange(uint32_t function, uint32_t offset,
                                          uint32_t length) {
  range_overrides_[function] = {offset, length};
}

void ModuleBuilder::overrideFunctionCconv(uint32_t function,
                                          const std::string& cconv) {
  cconv_overrides_[function] = cconv;
}

void ModuleBuilder::overrideBlockOffsets(uint32_t function,
                                         std::vector<uint32_t> offsets) {
  block_overrides_[function] = std::move(offsets);
}

void ModuleBuilder::overrideExportFunction(uint32_t export_index,
                                           uint32_t function) {
  export_overrides_[export_index] = function;
}

void ModuleBuilder::overrideDebugLines(uint32_t function,
                                       std::vector<uint32_t> pc_offsets,
                                       std::vector<uint32_t> location_ids) {
  debug_overrides_[function] = {std::move(pc_offsets), std::move(location_ids)};
}

//===----------------------------------------------------------------------===//
// AlignedBytes
//===----------------------------------------------------------------------===//

AlignedBytes::AlignedBytes(const std::vector<uint8_t>& bytes)
    : size(bytes.size()) {
  // aligned_alloc wants a multiple of the alignment; never ask for zero.
  constexpr size_t kAlign = STRATA_MODULE_SEGMENT_ALIGNMENT;
  size_t capacity = (std::max<size_t>(size, 1) + kAlign - 1) & ~(kAlign - 1);
  data = static_cast<uint8_t*>(std::aligned_alloc(kAlign, capacity));
  if (data && size) {
    std::memcpy(data, bytes.data(), size);
  }
}

AlignedBytes::~AlignedBytes() { std::free(data); }

}  // namespace strata::vm::testing
