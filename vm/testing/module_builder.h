// module_builder.h - the module writer (schemas/writer/module_writer.h) with
// fault injectors on top, for tests, samples, fuzz seeds and benchmarks, so
// that runtime work needs no compiler. It writes valid modules by default;
// each override breaks exactly one thing for a negative test, applied to the
// writer's layout before it is serialized.
#ifndef STRATA_VM_TESTING_MODULE_BUILDER_H_
#define STRATA_VM_TESTING_MODULE_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "module_writer.h"

namespace strata::vm::testing {

using writer::prim;
using writer::ref;
using writer::Remap;
using FunctionBuilder = writer::FunctionWriter;

class ModuleBuilder : public writer::ModuleWriter {
 public:
  using ModuleWriter::ModuleWriter;

  // Serializes the module with the overrides below applied. Empty when
  // signing failed; buildError() says why.
  std::vector<uint8_t> build();

  // --- Overrides for negative tests; each breaks one thing. ---
  // Replaces the rodata entry's (offset, length) in the segment area.
  void overrideRodataRef(uint32_t index, uint64_t offset, uint64_t length);
  // Writes this checksum for the rodata entry instead of its CRC-32C.
  void overrideRodataChecksum(uint32_t index, uint32_t checksum);
  // Leaves Module.rodata_checksums out (as a format 1.0 writer did).
  void omitRodataChecksums();
  // Overrides the function's bytecode range in Module.bytecode.
  void overrideFunctionRange(uint32_t function, uint32_t offset,
                             uint32_t length);
  // Sets the function's calling convention string as written.
  void overrideFunctionCconv(uint32_t function, const std::string& cconv);
  // Replaces the block table written for the function.
  void overrideBlockOffsets(uint32_t function, std::vector<uint32_t> offsets);
  // Points the export at any function index.
  void overrideExportFunction(uint32_t export_index, uint32_t function);
  // Replaces the debug line table written for one function.
  void overrideDebugLines(uint32_t function, std::vector<uint32_t> pc_offsets,
                          std::vector<uint32_t> location_ids);

 private:
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> rodata_overrides_;
  std::map<uint32_t, uint32_t> checksum_overrides_;
  bool omit_checksums_ = false;
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> range_overrides_;
  std::map<uint32_t, std::string> cconv_overrides_;
  std::map<uint32_t, std::vector<uint32_t>> block_overrides_;
  std::map<uint32_t, uint32_t> export_overrides_;
  std::map<uint32_t, std::pair<std::vector<uint32_t>, std::vector<uint32_t>>>
      debug_overrides_;
};

// Copies bytes into a 64-byte aligned buffer, as modules are kept in memory.
struct AlignedBytes {
  explicit AlignedBytes(const std::vector<uint8_t>& bytes);
  ~AlignedBytes();
  AlignedBytes(const AlignedBytes&) = delete;
  AlignedBytes& operator=(const AlignedBytes&) = delete;
  uint8_t* data = nullptr;
  size_t size = 0;
};

}  // namespace strata::vm::testing

#endif  // STRATA_VM_TESTING_MODULE_BUILDER_H_
