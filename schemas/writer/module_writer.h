// module_writer.h - writes Strata module images (header, FlatBuffer, segment
// area) from an in-memory description: the one serializer of module.fbs. The
// compiler's bytecode target writes every .vmfb through it; the runtime's
// tests, samples and fuzz seeds write theirs through vm/testing's
// ModuleBuilder, which adds fault injectors on top of the layout() step.
//
// Depends only on schemas/ (format.h, opcodes.def, module.fbs) and base.
// Not thread-safe: one writer per thread.
#ifndef STRATA_SCHEMAS_WRITER_MODULE_WRITER_H_
#define STRATA_SCHEMAS_WRITER_MODULE_WRITER_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "format.h"
#include "opcode_enum.h"

namespace strata::vm::writer {

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

class ModuleWriter;

// Appends instructions to one function. Blocks are numbered; block 0 starts
// at offset 0 and is bound on creation. Branch operands name blocks and are
// patched to byte offsets by ModuleWriter::layout().
class FunctionWriter {
 public:
  uint32_t index() const { return index_; }

  // Starts an instruction; follow with one call per operand, in format order.
  FunctionWriter& op(Opcode opcode);
  FunctionWriter& reg(uint16_t encoded);                       // a or r
  FunctionWriter& i32(int32_t value);                          // i
  FunctionWriter& i64(int64_t value);                          // l
  FunctionWriter& f32(float value);                            // f
  FunctionWriter& f64(double value);                           // d
  FunctionWriter& u32(uint32_t value);                         // F M w W G D T
  FunctionWriter& block(uint32_t block_id);                    // B
  FunctionWriter& str(const std::string& s);                   // S
  FunctionWriter& list(std::initializer_list<uint16_t> regs);  // V
  FunctionWriter& list(const std::vector<uint16_t>& regs);     // V
  FunctionWriter& sizes(std::initializer_list<uint16_t> sizes);  // C
  FunctionWriter& sizes(const std::vector<uint16_t>& sizes);     // C
  FunctionWriter& u16(uint16_t value);  // the count that starts X
  FunctionWriter& remap(std::initializer_list<Remap> pairs);  // P
  FunctionWriter& remap(const std::vector<Remap>& pairs);     // P
  // X: each case is a block and its remap list.
  FunctionWriter& cases(
      const std::vector<std::pair<uint32_t, std::vector<Remap>>>& cases);
  // Raw bytes, for malformed bytecode.
  FunctionWriter& bytes(std::initializer_list<uint8_t> raw);

  // Creates a block id; bind() places it at the current offset.
  uint32_t newBlock();
  FunctionWriter& bind(uint32_t block_id);

  // Source location recorded for the instructions that follow.
  FunctionWriter& location(const std::string& file, uint32_t line,
                           uint32_t column = 0);

  // Register counts; by default the highest index used plus one.
  FunctionWriter& registerCounts(uint16_t prims, uint16_t refs);

  uint32_t size() const { return static_cast<uint32_t>(code_.size()); }

 private:
  friend class ModuleWriter;
  FunctionWriter(uint32_t index, std::string name, std::string cconv);
  void noteRegister(uint16_t encoded);

  uint32_t index_;
  std::string name_;
  std::string cconv_;
  std::vector<uint8_t> code_;
  std::vector<int64_t> block_offsets_;                 // -1 until bound
  std::vector<std::pair<uint32_t, uint32_t>> fixups_;  // code offset, block
  std::optional<std::pair<uint16_t, uint16_t>> register_counts_;
  uint16_t max_prim_ = 0;
  uint16_t max_ref_ = 0;
  bool any_prim_ = false;
  bool any_ref_ = false;
  // pc offset -> (file, line, column)
  std::vector<std::pair<uint32_t, std::tuple<std::string, uint32_t, uint32_t>>>
      locations_;
};

// Everything a module file holds, resolved: what layout() computes and
// serialize() writes. Plain data, so that a caller may change any table
// between the two steps (vm/testing's fault injectors do).
struct ModuleLayout {
  struct Import {
    std::string full_name;
    std::string cconv;
    bool optional = false;
  };
  struct Export {
    std::string name;
    uint32_t function = 0;
    std::vector<std::pair<std::string, std::string>> attrs;
  };
  struct Dependency {
    std::string name;
    uint32_t minimum_version = 0;
    bool optional = false;
  };
  struct Function {
    std::string name;
    std::string cconv;
    uint32_t offset = 0;  // into bytecode
    uint32_t length = 0;
    uint16_t prim_count = 0;
    uint16_t ref_count = 0;
    std::vector<uint32_t> blocks;  // block start offsets, ascending
    std::vector<uint32_t> debug_pcs;
    std::vector<uint32_t> debug_location_ids;
  };
  struct Location {
    uint32_t file = 0;
    uint32_t line = 0;
    uint32_t column = 0;
  };

  std::string name;
  uint32_t version = 0;
  std::optional<std::tuple<std::string, std::string, std::vector<std::string>>>
      compiler;  // name, version, flags
  std::vector<std::string> requirements;
  std::vector<std::string> types;
  std::vector<Dependency> dependencies;
  std::vector<Import> imports;
  std::vector<Export> exports;
  std::vector<Function> functions;
  int32_t initializer = -1;
  uint32_t global_prim_bytes = 0;
  uint32_t global_ref_count = 0;
  std::vector<uint8_t> bytecode;
  // The segment area and each rodata entry's (offset, length) in it.
  std::vector<uint8_t> segments;
  std::vector<std::pair<uint64_t, uint64_t>> rodata;
  std::vector<uint32_t> rodata_checksums;  // CRC-32C, parallel to rodata
  bool write_checksums = true;
  bool write_debug = true;
  std::vector<std::string> debug_files;
  std::vector<Location> debug_locations;
  std::vector<uint8_t> signing_key;  // empty: unsigned
};

// The CRC-32C of rodata entry `index` over the range its ref names, or 0
// when that range lies outside the segment area.
uint32_t rodataChecksum(const ModuleLayout& layout, uint32_t index);

// Writes the file: header, FlatBuffer, segments; signed when the layout has
// a signing key. Empty when signing failed; *error then says why.
std::vector<uint8_t> serialize(const ModuleLayout& layout, std::string* error);

class ModuleWriter {
 public:
  explicit ModuleWriter(std::string name, uint32_t version = 1);
  ~ModuleWriter();
  ModuleWriter(const ModuleWriter&) = delete;
  ModuleWriter& operator=(const ModuleWriter&) = delete;

  uint32_t addImport(const std::string& full_name, const std::string& cconv,
                     bool optional = false);
  // The returned reference stays valid until the writer dies.
  FunctionWriter& addFunction(const std::string& name,
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
  // Leaves the debug database out (functions get no names, errors no source
  // locations).
  void omitDebugDatabase();

  // Signs what build() writes with this Ed25519 secret key (libsodium's
  // 64-byte form, STRATA_MODULE_SECRET_KEY_SIZE): Module.signature over the
  // whole file (module_signature.h).
  void setSigningKey(std::vector<uint8_t> secret_key);

  // Resolves the module: bytecode with block ids patched into offsets
  // (an unbound block becomes UINT32_MAX, which the verifier rejects),
  // register counts, the segment area, checksums and the debug database.
  ModuleLayout layout() const;

  // serialize(layout()). Empty when signing failed (a malformed key, or no
  // libsodium); buildError() says why.
  std::vector<uint8_t> build();
  const std::string& buildError() const;

 protected:
  std::string build_error_;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata::vm::writer

#endif  // STRATA_SCHEMAS_WRITER_MODULE_WRITER_H_
