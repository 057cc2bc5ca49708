// module_builder.h - builds Strata module images in C++ for tests, samples,
// fuzz seeds and benchmarks, so that runtime work needs no compiler. It writes
// valid modules by default and offers overrides that break exactly one thing
// for negative tests.
#ifndef STRATA_VM_TESTING_MODULE_BUILDER_H_
#define STRATA_VM_TESTING_MODULE_BUILDER_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "opcodes.h"

namespace strata::vm::testing {

// Register operand encodings (format.h).
inline uint16_t prim(uint16_t index) { return index; }
inline uint16_t ref(uint16_t index, bool move = false) {
  return static_cast<uint16_t>(STRATA_REGISTER_REF_BIT |
                               (move ? STRATA_REGISTER_MOVE_BIT : 0) | index);
}

struct Remap {
  uint16_t src;
  uint16_t dst;
};

class ModuleBuilder;

// Appends instructions to one function. Blocks are numbered; block 0 starts
// at offset 0 and is bound on creation. Branch operands name blocks and are
// patched to byte offsets by ModuleBuilder::build().
class FunctionBuilder {
 public:
  uint32_t index() const { return index_; }

  // Starts an instruction; follow with one call per operand, in format order.
  FunctionBuilder& op(Opcode opcode);
  FunctionBuilder& reg(uint16_t encoded);       // a or r
  FunctionBuilder& i32(int32_t value);          // i
  FunctionBuilder& i64(int64_t value);          // l
  FunctionBuilder& f32(float value);            // f
  FunctionBuilder& f64(double value);           // d
  FunctionBuilder& u32(uint32_t value);         // F M w W G D T
  FunctionBuilder& block(uint32_t block_id);    // B
  FunctionBuilder& str(const std::string& s);   // S
  FunctionBuilder& list(std::initializer_list<uint16_t> regs);  // V
  FunctionBuilder& list(const std::vector<uint16_t>& regs);     // V
  FunctionBuilder& sizes(std::initializer_list<uint16_t> sizes);  // C
  FunctionBuilder& sizes(const std::vector<uint16_t>& sizes);     // C
  FunctionBuilder& u16(uint16_t value);  // the count that starts X
  FunctionBuilder& remap(std::initializer_list<Remap> pairs);   // P
  FunctionBuilder& remap(const std::vector<Remap>& pairs);      // P
  // X: each case is a block and its remap list.
  FunctionBuilder& cases(
      const std::vector<std::pair<uint32_t, std::vector<Remap>>>& cases);
  // Raw bytes, for malformed bytecode.
  FunctionBuilder& bytes(std::initializer_list<uint8_t> raw);

  // Creates a block id; bind() places it at the current offset.
  uint32_t newBlock();
  FunctionBuilder& bind(uint32_t block_id);

  // Source location recorded for the instructions that follow.
  FunctionBuilder& location(const std::string& file, uint32_t line,
                            uint32_t column = 0);

  // Register counts; by default the highest index used plus one.
  FunctionBuilder& registerCounts(uint16_t prims, uint16_t refs);
  // Replaces the block table written for this function (negative tests).
  FunctionBuilder& overrideBlockOffsets(std::vector<uint32_t> offsets);

  uint32_t size() const { return static_cast<uint32_t>(code_.size()); }

 private:
  friend class ModuleBuilder;
  FunctionBuilder(uint32_t index, std::string name, std::string cconv);
  void notePrim(uint16_t encoded);

  uint32_t index_;
  std::string name_;
  std::string cconv_;
  std::vector<uint8_t> code_;
  std::vector<int64_t> block_offsets_;   // -1 until bound
  std::vector<std::pair<uint32_t, uint32_t>> fixups_;  // code offset, block
  std::optional<std::pair<uint16_t, uint16_t>> register_counts_;
  uint16_t max_prim_ = 0;
  uint16_t max_ref_ = 0;
  bool any_prim_ = false;
  bool any_ref_ = false;
  std::optional<std::vector<uint32_t>> block_override_;
  // pc offset -> (file, line, column)
  std::vector<std::pair<uint32_t, std::tuple<std::string, uint32_t, uint32_t>>>
      locations_;
};

class ModuleBuilder {
 public:
  explicit ModuleBuilder(std::string name, uint32_t version = 1);
  ~ModuleBuilder();
  ModuleBuilder(const ModuleBuilder&) = delete;
  ModuleBuilder& operator=(const ModuleBuilder&) = delete;

  uint32_t addImport(const std::string& full_name, const std::string& cconv,
                     bool optional = false);
  // The returned reference stays valid until the builder dies.
  FunctionBuilder& addFunction(const std::string& name,
                               const std::string& cconv);
  void addExport(const std::string& name, uint32_t function,
                 std::vector<std::pair<std::string, std::string>> attrs = {});
  uint32_t addRodata(std::vector<uint8_t> bytes);
  uint32_t addType(const std::string& name);
  void addDependency(const std::string& name, uint32_t minimum_version,
                     bool optional = false);
  void addRequirement(const std::string& feature);
  void setGlobals(uint32_t prim_bytes, uint32_t ref_count);
  void setInitializer(int32_t function);
  void setCompiler(const std::string& name, const std::string& version,
                   std::vector<std::string> flags);

  // Signs what build() writes with this Ed25519 secret key (libsodium's
  // 64-byte form, STRATA_MODULE_SECRET_KEY_SIZE): Module.signature over the
  // whole file (module_signature.h).
  void setSigningKey(std::vector<uint8_t> secret_key);

  // Serializes the module: header, FlatBuffer, segments. Empty when signing
  // failed (a malformed key, or no libsodium); buildError() says why.
  std::vector<uint8_t> build();
  const std::string& buildError() const;

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
  // Points the export at any function index.
  void overrideExportFunction(uint32_t export_index, uint32_t function);
  // Replaces the debug line table written for one function.
  void overrideDebugLines(uint32_t function, std::vector<uint32_t> pc_offsets,
                          std::vector<uint32_t> location_ids);
  // Leaves the debug database out entirely (functions get no names).
  void omitDebugDatabase();

 private:
  struct Impl;
  Impl* impl_;
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
