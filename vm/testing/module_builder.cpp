// module_builder.cpp - writes Strata module images (header, FlatBuffer,
// segment area) from an in-memory description, for tests and tools.
#include "module_builder.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "flatbuffers/flatbuffers.h"
#include "format.h"
#include "module_generated.h"
#include "module_signature.h"
#include "strata/base/crc32c.h"

namespace strata::vm::testing {

namespace {

constexpr uint64_t kAlign = STRATA_MODULE_SEGMENT_ALIGNMENT;

uint64_t alignUp(uint64_t value) {
  return (value + kAlign - 1) & ~(kAlign - 1);
}

template <typename T> void appendLE(std::vector<uint8_t>& out, T value) {
  uint8_t raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  out.insert(out.end(), raw, raw + sizeof(T));
}

}  // namespace

//===----------------------------------------------------------------------===//
// FunctionBuilder
//===----------------------------------------------------------------------===//

FunctionBuilder::FunctionBuilder(uint32_t index, std::string name,
                                 std::string cconv)
    : index_(index), name_(std::move(name)), cconv_(std::move(cconv)) {
  block_offsets_.push_back(0);  // block 0 is the entry, bound at offset 0
}

void FunctionBuilder::notePrim(uint16_t encoded) {
  // Despite the name this notes either bank: the bank bit says which.
  if (isRefRegister(encoded)) {
    uint16_t index = refIndex(encoded);
    max_ref_ = any_ref_ ? std::max(max_ref_, index) : index;
    any_ref_ = true;
  } else {
    uint16_t index = primIndex(encoded);
    max_prim_ = any_prim_ ? std::max(max_prim_, index) : index;
    any_prim_ = true;
  }
}

FunctionBuilder& FunctionBuilder::op(Opcode opcode) {
  code_.push_back(static_cast<uint8_t>(opcode));
  return *this;
}

FunctionBuilder& FunctionBuilder::reg(uint16_t encoded) {
  notePrim(encoded);
  appendLE(code_, encoded);
  return *this;
}

FunctionBuilder& FunctionBuilder::i32(int32_t value) {
  appendLE(code_, value);
  return *this;
}

FunctionBuilder& FunctionBuilder::i64(int64_t value) {
  appendLE(code_, value);
  return *this;
}

FunctionBuilder& FunctionBuilder::f32(float value) {
  appendLE(code_, value);
  return *this;
}

FunctionBuilder& FunctionBuilder::f64(double value) {
  appendLE(code_, value);
  return *this;
}

FunctionBuilder& FunctionBuilder::u32(uint32_t value) {
  appendLE(code_, value);
  return *this;
}

FunctionBuilder& FunctionBuilder::block(uint32_t block_id) {
  fixups_.push_back({static_cast<uint32_t>(code_.size()), block_id});
  appendLE<uint32_t>(code_, 0);
  return *this;
}

FunctionBuilder& FunctionBuilder::str(const std::string& s) {
  appendLE(code_, static_cast<uint16_t>(s.size()));
  code_.insert(code_.end(), s.begin(), s.end());
  return *this;
}

FunctionBuilder& FunctionBuilder::list(std::initializer_list<uint16_t> regs) {
  return list(std::vector<uint16_t>(regs));
}

FunctionBuilder& FunctionBuilder::list(const std::vector<uint16_t>& regs) {
  appendLE(code_, static_cast<uint16_t>(regs.size()));
  for (uint16_t r : regs) {
    reg(r);
  }
  return *this;
}

FunctionBuilder& FunctionBuilder::sizes(std::initializer_list<uint16_t> sizes) {
  return this->sizes(std::vector<uint16_t>(sizes));
}

FunctionBuilder& FunctionBuilder::u16(uint16_t value) {
  appendLE(code_, value);
  return *this;
}

FunctionBuilder& FunctionBuilder::sizes(const std::vector<uint16_t>& sizes) {
  appendLE(code_, static_cast<uint16_t>(sizes.size()));
  for (uint16_t s : sizes) {
    appendLE(code_, s);
  }
  return *this;
}

FunctionBuilder& FunctionBuilder::remap(std::initializer_list<Remap> pairs) {
  return remap(std::vector<Remap>(pairs));
}

FunctionBuilder& FunctionBuilder::remap(const std::vector<Remap>& pairs) {
  appendLE(code_, static_cast<uint16_t>(pairs.size()));
  for (const Remap& pair : pairs) {
    reg(pair.src);
    reg(pair.dst);
  }
  return *this;
}

FunctionBuilder& FunctionBuilder::cases(
    const std::vector<std::pair<uint32_t, std::vector<Remap>>>& cases) {
  appendLE(code_, static_cast<uint16_t>(cases.size()));
  for (const auto& c : cases) {
    block(c.first);
    remap(c.second);
  }
  return *this;
}

FunctionBuilder& FunctionBuilder::bytes(std::initializer_list<uint8_t> raw) {
  code_.insert(code_.end(), raw.begin(), raw.end());
  return *this;
}

uint32_t FunctionBuilder::newBlock() {
  block_offsets_.push_back(-1);
  return static_cast<uint32_t>(block_offsets_.size() - 1);
}

FunctionBuilder& FunctionBuilder::bind(uint32_t block_id) {
  if (block_id < block_offsets_.size()) {
    block_offsets_[block_id] = static_cast<int64_t>(code_.size());
  }
  return *this;
}

FunctionBuilder& FunctionBuilder::location(const std::string& file,
                                           uint32_t line, uint32_t column) {
  uint32_t pc = static_cast<uint32_t>(code_.size());
  // A later location at the same pc replaces the earlier one, so that a
  // location set right before an instruction always wins.
  if (!locations_.empty() && locations_.back().first == pc) {
    locations_.back().second = {file, line, column};
  } else {
    locations_.push_back({pc, {file, line, column}});
  }
  return *this;
}

FunctionBuilder& FunctionBuilder::registerCounts(uint16_t prims,
                                                 uint16_t refs) {
  register_counts_ = std::make_pair(prims, refs);
  return *this;
}

FunctionBuilder&
FunctionBuilder::overrideBlockOffsets(std::vector<uint32_t> offsets) {
  block_override_ = std::move(offsets);
  return *this;
}

//===----------------------------------------------------------------------===//
// ModuleBuilder
//===----------------------------------------------------------------------===//

struct ModuleBuilder::Impl {
  struct ImportEntry {
    std::string full_name;
    std::string cconv;
    bool optional;
  };
  struct ExportEntry {
    std::string name;
    uint32_t function;
    std::vector<std::pair<std::string, std::string>> attrs;
  };
  struct DependencyEntry {
    std::string name;
    uint32_t minimum_version;
    bool optional;
  };
  struct DebugLines {
    std::vector<uint32_t> pc_offsets;
    std::vector<uint32_t> location_ids;
  };

  std::string name;
  uint32_t version = 0;
  std::vector<ImportEntry> imports;
  // unique_ptr keeps each FunctionBuilder's address stable for callers.
  std::vector<std::unique_ptr<FunctionBuilder>> functions;
  std::vector<ExportEntry> exports;
  std::vector<std::vector<uint8_t>> rodata;
  std::vector<std::string> types;
  std::vector<DependencyEntry> dependencies;
  std::vector<std::string> requirements;
  uint32_t global_prim_bytes = 0;
  uint32_t global_ref_count = 0;
  int32_t initializer = -1;
  bool has_compiler = false;
  std::string compiler_name;
  std::string compiler_version;
  std::vector<std::string> compiler_flags;
  bool emit_debug = true;

  std::map<uint32_t, std::pair<uint64_t, uint64_t>> rodata_overrides;
  std::map<uint32_t, uint32_t> checksum_overrides;
  bool omit_checksums = false;
  std::vector<uint8_t> signing_key;
  std::string build_error;
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> range_overrides;
  std::map<uint32_t, std::string> cconv_overrides;
  std::map<uint32_t, DebugLines> debug_overrides;
};

ModuleBuilder::ModuleBuilder(std::string name, uint32_t version)
    : impl_(new Impl) {
  impl_->name = std::move(name);
  impl_->version = version;
}

ModuleBuilder::~ModuleBuilder() { delete impl_; }

void ModuleBuilder::setSigningKey(std::vector<uint8_t> secret_key) {
  impl_->signing_key = std::move(secret_key);
}

const std::string& ModuleBuilder::buildError() const {
  return impl_->build_error;
}

void ModuleBuilder::overrideRodataChecksum(uint32_t index, uint32_t checksum) {
  impl_->checksum_overrides[index] = checksum;
}

void ModuleBuilder::omitRodataChecksums() { impl_->omit_checksums = true; }

uint32_t ModuleBuilder::addImport(const std::string& full_name,
                                  const std::string& cconv, bool optional) {
  impl_->imports.push_back({full_name, cconv, optional});
  return static_cast<uint32_t>(impl_->imports.size() - 1);
}

FunctionBuilder& ModuleBuilder::addFunction(const std::string& name,
                                            const std::string& cconv) {
  auto index = static_cast<uint32_t>(impl_->functions.size());
  impl_->functions.emplace_back(new FunctionBuilder(index, name, cconv));
  return *impl_->functions.back();
}

void ModuleBuilder::addExport(
    const std::string& name, uint32_t function,
    std::vector<std::pair<std::string, std::string>> attrs) {
  impl_->exports.push_back({name, function, std::move(attrs)});
}

uint32_t ModuleBuilder::addRodata(std::vector<uint8_t> bytes) {
  impl_->rodata.push_back(std::move(bytes));
  return static_cast<uint32_t>(impl_->rodata.size() - 1);
}

uint32_t ModuleBuilder::addType(const std::string& name) {
  impl_->types.push_back(name);
  return static_cast<uint32_t>(impl_->types.size() - 1);
}

void ModuleBuilder::addDependency(const std::string& name,
                                  uint32_t minimum_version, bool optional) {
  impl_->dependencies.push_back({name, minimum_version, optional});
}

void ModuleBuilder::addRequirement(const std::string& feature) {
  impl_->requirements.push_back(feature);
}

void ModuleBuilder::setGlobals(uint32_t prim_bytes, uint32_t ref_count) {
  impl_->global_prim_bytes = prim_bytes;
  impl_->global_ref_count = ref_count;
}

void ModuleBuilder::setInitializer(int32_t function) {
  impl_->initializer = function;
}

void ModuleBuilder::setCompiler(const std::string& name,
                                const std::string& version,
                                std::vector<std::string> flags) {
  impl_->has_compiler = true;
  impl_->compiler_name = name;
  impl_->compiler_version = version;
  impl_->compiler_flags = std::move(flags);
}

void ModuleBuilder::overrideRodataRef(uint32_t index, uint64_t offset,
                                      uint64_t length) {
  impl_->rodata_overrides[index] = {offset, length};
}

void ModuleBuilder::overrideFunctionRange(uint32_t function, uint32_t offset,
                                          uint32_t length) {
  impl_->range_overrides[function] = {offset, length};
}

void ModuleBuilder::overrideFunctionCconv(uint32_t function,
                                          const std::string& cconv) {
  impl_->cconv_overrides[function] = cconv;
}

void ModuleBuilder::overrideExportFunction(uint32_t export_index,
                                           uint32_t function) {
  if (export_index < impl_->exports.size()) {
    impl_->exports[export_index].function = function;
  }
}

void ModuleBuilder::overrideDebugLines(uint32_t function,
                                       std::vector<uint32_t> pc_offsets,
                                       std::vector<uint32_t> location_ids) {
  impl_->debug_overrides[function] = {std::move(pc_offsets),
                                      std::move(location_ids)};
}

void ModuleBuilder::omitDebugDatabase() { impl_->emit_debug = false; }

std::vector<uint8_t> ModuleBuilder::build() {
  Impl& m = *impl_;
  flatbuffers::FlatBufferBuilder fbb(4096);

  // Bytecode: functions back to back, block ids patched into byte offsets.
  // An unbound block patches to UINT32_MAX so the verifier rejects it instead
  // of the builder silently inventing a target.
  std::vector<uint8_t> bytecode;
  std::vector<flatbuffers::Offset<schema::FunctionDef>> function_defs;
  for (auto& fp : m.functions) {
    FunctionBuilder& f = *fp;
    std::vector<uint8_t> code = f.code_;
    for (const auto& fixup : f.fixups_) {
      uint32_t target = UINT32_MAX;
      if (fixup.second < f.block_offsets_.size() &&
          f.block_offsets_[fixup.second] >= 0) {
        target = static_cast<uint32_t>(f.block_offsets_[fixup.second]);
      }
      std::memcpy(code.data() + fixup.first, &target, sizeof(target));
    }
    std::vector<uint32_t> blocks;
    if (f.block_override_) {
      blocks = *f.block_override_;
    } else {
      for (int64_t offset : f.block_offsets_) {
        if (offset >= 0) {
          blocks.push_back(static_cast<uint32_t>(offset));
        }
      }
      // Several ids may be bound at one offset; the table lists each once.
      std::sort(blocks.begin(), blocks.end());
      blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
    }
    auto offset = static_cast<uint32_t>(bytecode.size());
    auto length = static_cast<uint32_t>(code.size());
    bytecode.insert(bytecode.end(), code.begin(), code.end());
    auto range = m.range_overrides.find(f.index_);
    if (range != m.range_overrides.end()) {
      offset = range->second.first;
      length = range->second.second;
    }
    uint16_t prims = f.any_prim_ ? static_cast<uint16_t>(f.max_prim_ + 1) : 0;
    uint16_t refs = f.any_ref_ ? static_cast<uint16_t>(f.max_ref_ + 1) : 0;
    if (f.register_counts_) {
      prims = f.register_counts_->first;
      refs = f.register_counts_->second;
    }
    auto cconv = m.cconv_overrides.find(f.index_);
    auto cconv_offset = fbb.CreateString(
        cconv != m.cconv_overrides.end() ? cconv->second : f.cconv_);
    auto block_vector = fbb.CreateVector(blocks);
    function_defs.push_back(schema::CreateFunctionDef(
        fbb, cconv_offset, offset, length, prims, refs, block_vector));
  }

  std::vector<flatbuffers::Offset<schema::ImportDef>> import_defs;
  for (const auto& i : m.imports) {
    auto full_name = fbb.CreateString(i.full_name);
    auto cconv = fbb.CreateString(i.cconv);
    import_defs.push_back(
        schema::CreateImportDef(fbb, full_name, cconv, i.optional));
  }

  std::vector<flatbuffers::Offset<schema::ExportDef>> export_defs;
  for (const auto& e : m.exports) {
    std::vector<flatbuffers::Offset<schema::Attr>> attrs;
    for (const auto& a : e.attrs) {
      auto key = fbb.CreateString(a.first);
      auto value = fbb.CreateString(a.second);
      attrs.push_back(schema::CreateAttr(fbb, key, value));
    }
    auto name = fbb.CreateString(e.name);
    auto attr_vector = attrs.empty() ? 0 : fbb.CreateVector(attrs);
    export_defs.push_back(
        schema::CreateExportDef(fbb, name, e.function, attr_vector));
  }

  std::vector<flatbuffers::Offset<schema::Dependency>> dependency_defs;
  for (const auto& d : m.dependencies) {
    auto name = fbb.CreateString(d.name);
    dependency_defs.push_back(
        schema::CreateDependency(fbb, name, d.minimum_version, d.optional));
  }

  // Segment area: every rodata blob at a 64-byte aligned offset.
  std::vector<uint8_t> segments;
  std::vector<schema::SegmentRef> rodata_refs;
  for (uint32_t i = 0; i < m.rodata.size(); ++i) {
    uint64_t offset = alignUp(segments.size());
    segments.resize(offset, 0);
    segments.insert(segments.end(), m.rodata[i].begin(), m.rodata[i].end());
    uint64_t length = m.rodata[i].size();
    auto over = m.rodata_overrides.find(i);
    if (over != m.rodata_overrides.end()) {
      offset = over->second.first;
      length = over->second.second;
    }
    rodata_refs.emplace_back(offset, length);
  }
  segments.resize(alignUp(segments.size()), 0);
  // Format 1.1: each segment's CRC-32C, over the range its ref names (an
  // overridden ref outside the area gets 0; the loader rejects its range
  // before it looks at the checksum).
  std::vector<uint32_t> checksums;
  for (uint32_t i = 0; i < rodata_refs.size(); ++i) {
    const schema::SegmentRef& ref = rodata_refs[i];
    uint32_t crc = 0;
    if (ref.offset() <= segments.size() &&
        ref.length() <= segments.size() - ref.offset()) {
      crc = strata_crc32c(0, segments.data() + ref.offset(),
                          static_cast<size_t>(ref.length()));
    }
    auto over = m.checksum_overrides.find(i);
    checksums.push_back(over != m.checksum_overrides.end() ? over->second
                                                           : crc);
  }

  flatbuffers::Offset<schema::DebugDatabase> debug = 0;
  if (m.emit_debug) {
    std::vector<std::string> files;
    std::vector<schema::Location> locations;
    std::vector<flatbuffers::Offset<schema::FunctionDebugInfo>> infos;
    auto fileId = [&](const std::string& file) {
      auto it = std::find(files.begin(), files.end(), file);
      if (it != files.end()) {
        return static_cast<uint32_t>(it - files.begin());
      }
      files.push_back(file);
      return static_cast<uint32_t>(files.size() - 1);
    };
    auto locationId = [&](uint32_t file, uint32_t line, uint32_t column) {
      for (uint32_t i = 0; i < locations.size(); ++i) {
        const auto& l = locations[i];
        if (l.file() == file && l.line() == line && l.column() == column) {
          return i;
        }
      }
      locations.emplace_back(file, line, column);
      return static_cast<uint32_t>(locations.size() - 1);
    };
    for (auto& fp : m.functions) {
      FunctionBuilder& f = *fp;
      std::vector<uint32_t> pcs;
      std::vector<uint32_t> ids;
      for (const auto& entry : f.locations_) {
        // A location set after the last instruction describes nothing, and
        // the loader rejects pc offsets past the end.
        if (entry.first >= f.code_.size()) {
          continue;
        }
        const auto& [file, line, column] = entry.second;
        pcs.push_back(entry.first);
        ids.push_back(locationId(fileId(file), line, column));
      }
      auto over = m.debug_overrides.find(f.index_);
      if (over != m.debug_overrides.end()) {
        pcs = over->second.pc_offsets;
        ids = over->second.location_ids;
      }
      auto name = fbb.CreateString(f.name_);
      auto pc_vector = fbb.CreateVector(pcs);
      auto id_vector = fbb.CreateVector(ids);
      infos.push_back(
          schema::CreateFunctionDebugInfo(fbb, name, pc_vector, id_vector));
    }
    std::vector<flatbuffers::Offset<flatbuffers::String>> file_strings;
    for (const auto& file : files) {
      file_strings.push_back(fbb.CreateString(file));
    }
    auto file_vector = fbb.CreateVector(file_strings);
    auto location_vector = fbb.CreateVectorOfStructs(locations);
    auto info_vector = fbb.CreateVector(infos);
    debug = schema::CreateDebugDatabase(fbb, file_vector, location_vector,
                                        info_vector);
  }

  flatbuffers::Offset<schema::CompilerInfo> compiler = 0;
  if (m.has_compiler) {
    auto name = fbb.CreateString(m.compiler_name);
    auto version = fbb.CreateString(m.compiler_version);
    auto flags = fbb.CreateVectorOfStrings(m.compiler_flags);
    compiler = schema::CreateCompilerInfo(fbb, name, version, flags);
  }

  auto name = fbb.CreateString(m.name);
  auto requirements =
      m.requirements.empty() ? 0 : fbb.CreateVectorOfStrings(m.requirements);
  auto types = m.types.empty() ? 0 : fbb.CreateVectorOfStrings(m.types);
  auto dependencies =
      dependency_defs.empty() ? 0 : fbb.CreateVector(dependency_defs);
  auto imports = import_defs.empty() ? 0 : fbb.CreateVector(import_defs);
  auto exports = export_defs.empty() ? 0 : fbb.CreateVector(export_defs);
  auto functions = function_defs.empty() ? 0 : fbb.CreateVector(function_defs);
  auto rodata =
      rodata_refs.empty() ? 0 : fbb.CreateVectorOfStructs(rodata_refs);
  auto bytecode_vector = fbb.CreateVector(bytecode);
  auto checksum_vector =
      rodata_refs.empty() || m.omit_checksums ? 0 : fbb.CreateVector(checksums);
  // A signed module carries 64 zero bytes here until signModuleImage fills
  // them in below, over the finished file.
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> signature_vector = 0;
  if (!m.signing_key.empty()) {
    signature_vector = fbb.CreateVector(
        std::vector<uint8_t>(STRATA_MODULE_SIGNATURE_SIZE, 0));
  }
  auto root = schema::CreateModule(
      fbb, name, m.version, compiler, requirements, types, dependencies,
      imports, exports, functions, m.initializer, rodata, m.global_prim_bytes,
      m.global_ref_count, bytecode_vector, debug, checksum_vector,
      signature_vector);
  schema::FinishModuleBuffer(fbb, root);

  // File: header, FlatBuffer at 64, zero padding, then the segment area.
  uint64_t fb_offset = STRATA_MODULE_HEADER_SIZE;
  uint64_t fb_size = fbb.GetSize();
  uint64_t segments_offset = alignUp(fb_offset + fb_size);
  strata_module_header_t header = {};
  std::memcpy(header.magic, STRATA_MODULE_MAGIC, STRATA_MODULE_MAGIC_SIZE);
  header.version_major = STRATA_FORMAT_VERSION_MAJOR;
  header.version_minor = STRATA_FORMAT_VERSION_MINOR;
  header.header_size = STRATA_MODULE_HEADER_SIZE;
  header.flatbuffer_offset = fb_offset;
  header.flatbuffer_size = fb_size;
  header.segments_offset = segments_offset;
  header.segments_size = segments.size();

  std::vector<uint8_t> out(segments_offset + segments.size(), 0);
  std::memcpy(out.data(), &header, sizeof(header));
  std::memcpy(out.data() + fb_offset, fbb.GetBufferPointer(), fb_size);
  if (!segments.empty()) {
    std::memcpy(out.data() + segments_offset, segments.data(), segments.size());
  }
  if (!m.signing_key.empty()) {
    strata_status_t status = strata::vm::signModuleImage(
        out.data(), out.size(), m.signing_key.data(), m.signing_key.size());
    if (status) {
      m.build_error = strata_status_message(status);
      strata_status_free(status);
      return {};
    }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// AlignedBytes
//===----------------------------------------------------------------------===//

AlignedBytes::AlignedBytes(const std::vector<uint8_t>& bytes)
    : size(bytes.size()) {
  // aligned_alloc wants a multiple of the alignment; never ask for zero.
  size_t capacity = static_cast<size_t>(alignUp(std::max<size_t>(size, 1)));
  data = static_cast<uint8_t*>(std::aligned_alloc(kAlign, capacity));
  if (data && size) {
    std::memcpy(data, bytes.data(), size);
  }
}

AlignedBytes::~AlignedBytes() { std::free(data); }

}  // namespace strata::vm::testing
