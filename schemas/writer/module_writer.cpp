// module_writer.cpp - writes Strata module images (header, FlatBuffer,
// segment area) from an in-memory description (module_writer.h).
#include "module_writer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "flatbuffers/flatbuffers.h"
#include "format.h"
#include "module_generated.h"
#include "module_signature.h"
#include "strata/base/crc32c.h"

namespace strata::vm::writer {

namespace {

constexpr uint64_t kAlign = STRATA_MODULE_SEGMENT_ALIGNMENT;

uint64_t alignUp(uint64_t value) {
  return (value + kAlign - 1) & ~(kAlign - 1);
}

template <typename T>
void appendLE(std::vector<uint8_t>& out, T value) {
  uint8_t raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  out.insert(out.end(), raw, raw + sizeof(T));
}

}  // namespace

//===----------------------------------------------------------------------===//
// FunctionWriter
//===----------------------------------------------------------------------===//

FunctionWriter::FunctionWriter(uint32_t index, std::string name,
                               std::string cconv)
    : index_(index), name_(std::move(name)), cconv_(std::move(cconv)) {
  block_offsets_.push_back(0);  // block 0 is the entry, bound at offset 0
}

void FunctionWriter::noteRegister(uint16_t encoded) {
  // The bank bit says which bank.
  if (encoded & STRATA_REGISTER_REF_BIT) {
    uint16_t index = encoded & STRATA_REGISTER_REF_MASK;
    max_ref_ = any_ref_ ? std::max(max_ref_, index) : index;
    any_ref_ = true;
  } else {
    uint16_t index = encoded & STRATA_REGISTER_PRIM_MASK;
    max_prim_ = any_prim_ ? std::max(max_prim_, index) : index;
    any_prim_ = true;
  }
}

FunctionWriter& FunctionWriter::op(Opcode opcode) {
  code_.push_back(static_cast<uint8_t>(opcode));
  return *this;
}

FunctionWriter& FunctionWriter::reg(uint16_t encoded) {
  noteRegister(encoded);
  appendLE(code_, encoded);
  return *this;
}

FunctionWriter& FunctionWriter::i32(int32_t value) {
  appendLE(code_, value);
  return *this;
}

FunctionWriter& FunctionWriter::i64(int64_t value) {
  appendLE(code_, value);
  return *this;
}

FunctionWriter& FunctionWriter::f32(float value) {
  appendLE(code_, value);
  return *this;
}

FunctionWriter& FunctionWriter::f64(double value) {
  appendLE(code_, value);
  return *this;
}

FunctionWriter& FunctionWriter::u32(uint32_t value) {
  appendLE(code_, value);
  return *this;
}

FunctionWriter& FunctionWriter::block(uint32_t block_id) {
  fixups_.push_back({static_cast<uint32_t>(code_.size()), block_id});
  appendLE<uint32_t>(code_, 0);
  return *this;
}

FunctionWriter& FunctionWriter::str(const std::string& s) {
  appendLE(code_, static_cast<uint16_t>(s.size()));
  code_.insert(code_.end(), s.begin(), s.end());
  return *this;
}

FunctionWriter& FunctionWriter::list(std::initializer_list<uint16_t> regs) {
  return list(std::vector<uint16_t>(regs));
}

FunctionWriter& FunctionWriter::list(const std::vector<uint16_t>& regs) {
  appendLE(code_, static_cast<uint16_t>(regs.size()));
  for (uint16_t r : regs) {
    reg(r);
  }
  return *this;
}

FunctionWriter& FunctionWriter::sizes(std::initializer_list<uint16_t> sizes) {
  return this->sizes(std::vector<uint16_t>(sizes));
}

FunctionWriter& FunctionWriter::u16(uint16_t value) {
  appendLE(code_, value);
  return *this;
}

FunctionWriter& FunctionWriter::sizes(const std::vector<uint16_t>& sizes) {
  appendLE(code_, static_cast<uint16_t>(sizes.size()));
  for (uint16_t s : sizes) {
    appendLE(code_, s);
  }
  return *this;
}

FunctionWriter& FunctionWriter::remap(std::initializer_list<Remap> pairs) {
  return remap(std::vector<Remap>(pairs));
}

FunctionWriter& FunctionWriter::remap(const std::vector<Remap>& pairs) {
  appendLE(code_, static_cast<uint16_t>(pairs.size()));
  for (const Remap& pair : pairs) {
    reg(pair.src);
    reg(pair.dst);
  }
  return *this;
}

FunctionWriter& FunctionWriter::cases(
    const std::vector<std::pair<uint32_t, std::vector<Remap>>>& cases) {
  appendLE(code_, static_cast<uint16_t>(cases.size()));
  for (const auto& c : cases) {
    block(c.first);
    remap(c.second);
  }
  return *this;
}

FunctionWriter& FunctionWriter::bytes(std::initializer_list<uint8_t> raw) {
  code_.insert(code_.end(), raw.begin(), raw.end());
  return *this;
}

uint32_t FunctionWriter::newBlock() {
  block_offsets_.push_back(-1);
  return static_cast<uint32_t>(block_offsets_.size() - 1);
}

FunctionWriter& FunctionWriter::bind(uint32_t block_id) {
  if (block_id < block_offsets_.size()) {
    block_offsets_[block_id] = static_cast<int64_t>(code_.size());
  }
  return *this;
}

FunctionWriter& FunctionWriter::location(const std::string& file, uint32_t line,
                                         uint32_t column) {
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

FunctionWriter& FunctionWriter::registerCounts(uint16_t prims, uint16_t refs) {
  register_counts_ = std::make_pair(prims, refs);
  return *this;
}

//===----------------------------------------------------------------------===//
// ModuleWriter
//===----------------------------------------------------------------------===//

struct ModuleWriter::Impl {
  std::string name;
  uint32_t version = 0;
  std::vector<ModuleLayout::Import> imports;
  // unique_ptr keeps each FunctionWriter's address stable for callers.
  std::vector<std::unique_ptr<FunctionWriter>> functions;
  std::vector<ModuleLayout::Export> exports;
  std::vector<std::vector<uint8_t>> rodata;
  std::vector<std::string> types;
  std::vector<ModuleLayout::Dependency> dependencies;
  std::vector<std::string> requirements;
  uint32_t global_prim_bytes = 0;
  uint32_t global_ref_count = 0;
  int32_t initializer = -1;
  std::optional<std::tuple<std::string, std::string, std::vector<std::string>>>
      compiler;
  bool emit_debug = true;
  std::vector<uint8_t> signing_key;
};

ModuleWriter::ModuleWriter(std::string name, uint32_t version)
    : impl_(std::make_unique<Impl>()) {
  impl_->name = std::move(name);
  impl_->version = version;
}

ModuleWriter::~ModuleWriter() = default;

void ModuleWriter::setSigningKey(std::vector<uint8_t> secret_key) {
  impl_->signing_key = std::move(secret_key);
}

const std::string& ModuleWriter::buildError() const { return build_error_; }

uint32_t ModuleWriter::addImport(const std::string& full_name,
                                 const std::string& cconv, bool optional) {
  impl_->imports.push_back({full_name, cconv, optional});
  return static_cast<uint32_t>(impl_->imports.size() - 1);
}

FunctionWriter& ModuleWriter::addFunction(const std::string& name,
                                          const std::string& cconv) {
  auto index = static_cast<uint32_t>(impl_->functions.size());
  impl_->functions.emplace_back(new FunctionWriter(index, name, cconv));
  return *impl_->functions.back();
}

void ModuleWriter::addExport(
    const std::string& name, uint32_t function,
    std::vector<std::pair<std::string, std::string>> attrs) {
  impl_->exports.push_back({name, function, std::move(attrs)});
}

uint32_t ModuleWriter::addRodata(std::vector<uint8_t> bytes) {
  impl_->rodata.push_back(std::move(bytes));
  return static_cast<uint32_t>(impl_->rodata.size() - 1);
}

uint32_t ModuleWriter::addType(const std::string& name) {
  impl_->types.push_back(name);
  return static_cast<uint32_t>(impl_->types.size() - 1);
}

void ModuleWriter::addDependency(const std::string& name,
                                 uint32_t minimum_version, bool optional) {
  impl_->dependencies.push_back({name, minimum_version, optional});
}

void ModuleWriter::addRequirement(const std::string& feature) {
  impl_->requirements.push_back(feature);
}

void ModuleWriter::setGlobals(uint32_t prim_bytes, uint32_t ref_count) {
  impl_->global_prim_bytes = prim_bytes;
  impl_->global_ref_count = ref_count;
}

void ModuleWriter::setInitializer(int32_t function) {
  impl_->initializer = function;
}

void ModuleWriter::setCompiler(const std::string& name,
                               const std::string& version,
                               std::vector<std::string> flags) {
  impl_->compiler = std::make_tuple(name, version, std::move(flags));
}

void ModuleWriter::omitDebugDatabase() { impl_->emit_debug = false; }

ModuleLayout ModuleWriter::layout() const {
  const Impl& m = *impl_;
  ModuleLayout out;
  out.name = m.name;
  out.version = m.version;
  out.compiler = m.compiler;
  out.requirements = m.requirements;
  out.types = m.types;
  out.dependencies = m.dependencies;
  out.imports = m.imports;
  out.exports = m.exports;
  out.initializer = m.initializer;
  out.global_prim_bytes = m.global_prim_bytes;
  out.global_ref_count = m.global_ref_count;
  out.write_debug = m.emit_debug;
  out.signing_key = m.signing_key;

  // Bytecode: functions back to back, block ids patched into byte offsets.
  // An unbound block patches to UINT32_MAX so the verifier rejects it instead
  // of the writer silently inventing a target.
  for (const auto& fp : m.functions) {
    const FunctionWriter& f = *fp;
    std::vector<uint8_t> code = f.code_;
    for (const auto& fixup : f.fixups_) {
      uint32_t target = UINT32_MAX;
      if (fixup.second < f.block_offsets_.size() &&
          f.block_offsets_[fixup.second] >= 0) {
        target = static_cast<uint32_t>(f.block_offsets_[fixup.second]);
      }
      std::memcpy(code.data() + fixup.first, &target, sizeof(target));
    }
    ModuleLayout::Function fn;
    fn.name = f.name_;
    fn.cconv = f.cconv_;
    for (int64_t offset : f.block_offsets_) {
      if (offset >= 0) {
        fn.blocks.push_back(static_cast<uint32_t>(offset));
      }
    }
    // Several ids may be bound at one offset; the table lists each once.
    std::sort(fn.blocks.begin(), fn.blocks.end());
    fn.blocks.erase(std::unique(fn.blocks.begin(), fn.blocks.end()),
                    fn.blocks.end());
    fn.offset = static_cast<uint32_t>(out.bytecode.size());
    fn.length = static_cast<uint32_t>(code.size());
    out.bytecode.insert(out.bytecode.end(), code.begin(), code.end());
    fn.prim_count = f.any_prim_ ? static_cast<uint16_t>(f.max_prim_ + 1) : 0;
    fn.ref_count = f.any_ref_ ? static_cast<uint16_t>(f.max_ref_ + 1) : 0;
    if (f.register_counts_) {
      fn.prim_count = f.register_counts_->first;
      fn.ref_count = f.register_counts_->second;
    }
    out.functions.push_back(std::move(fn));
  }

  // Segment area: every rodata blob at a 64-byte aligned offset.
  for (const std::vector<uint8_t>& blob : m.rodata) {
    uint64_t offset = alignUp(out.segments.size());
    out.segments.resize(offset, 0);
    out.segments.insert(out.segments.end(), blob.begin(), blob.end());
    out.rodata.emplace_back(offset, blob.size());
  }
  out.segments.resize(alignUp(out.segments.size()), 0);
  for (uint32_t i = 0; i < out.rodata.size(); ++i) {
    out.rodata_checksums.push_back(rodataChecksum(out, i));
  }

  // Debug database: files and locations shared by all functions.
  if (m.emit_debug) {
    auto fileId = [&](const std::string& file) {
      auto it = std::find(out.debug_files.begin(), out.debug_files.end(), file);
      if (it != out.debug_files.end()) {
        return static_cast<uint32_t>(it - out.debug_files.begin());
      }
      out.debug_files.push_back(file);
      return static_cast<uint32_t>(out.debug_files.size() - 1);
    };
    auto locationId = [&](uint32_t file, uint32_t line, uint32_t column) {
      for (uint32_t i = 0; i < out.debug_locations.size(); ++i) {
        const auto& l = out.debug_locations[i];
        if (l.file == file && l.line == line && l.column == column) {
          return i;
        }
      }
      out.debug_locations.push_back({file, line, column});
      return static_cast<uint32_t>(out.debug_locations.size() - 1);
    };
    for (size_t i = 0; i < m.functions.size(); ++i) {
      const FunctionWriter& f = *m.functions[i];
      ModuleLayout::Function& fn = out.functions[i];
      for (const auto& entry : f.locations_) {
        // A location set after the last instruction describes nothing, and
        // the loader rejects pc offsets past the end.
        if (entry.first >= f.code_.size()) {
          continue;
        }
        const auto& [file, line, column] = entry.second;
        fn.debug_pcs.push_back(entry.first);
        fn.debug_location_ids.push_back(locationId(fileId(file), line, column));
      }
    }
  }
  return out;
}

std::vector<uint8_t> ModuleWriter::build() {
  build_error_.clear();
  return serialize(layout(), &build_error_);
}

//===----------------------------------------------------------------------===//
// Serialization
//===----------------------------------------------------------------------===//

uint32_t rodataChecksum(const ModuleLayout& layout, uint32_t index) {
  // Format 1.1: each segment's CRC-32C, over the range its ref names (a ref
  // outside the area gets 0; the loader rejects its range before it looks
  // at the checksum).
  uint64_t offset = layout.rodata[index].first;
  uint64_t length = layout.rodata[index].second;
  const std::vector<uint8_t>& segments = layout.segments;
  if (offset <= segments.size() && length <= segments.size() - offset) {
    return strata_crc32c(0, segments.data() + offset,
                         static_cast<size_t>(length));
  }
  return 0;
}

std::vector<uint8_t> serialize(const ModuleLayout& m, std::string* error) {
  flatbuffers::FlatBufferBuilder fbb(4096);

  std::vector<flatbuffers::Offset<schema::FunctionDef>> function_defs;
  for (const ModuleLayout::Function& f : m.functions) {
    auto cconv = fbb.CreateString(f.cconv);
    auto block_vector = fbb.CreateVector(f.blocks);
    function_defs.push_back(
        schema::CreateFunctionDef(fbb, cconv, f.offset, f.length, f.prim_count,
                                  f.ref_count, block_vector));
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

  std::vector<schema::SegmentRef> rodata_refs;
  for (const auto& ref : m.rodata) {
    rodata_refs.emplace_back(ref.first, ref.second);
  }

  flatbuffers::Offset<schema::DebugDatabase> debug = 0;
  if (m.write_debug) {
    std::vector<flatbuffers::Offset<schema::FunctionDebugInfo>> infos;
    for (const ModuleLayout::Function& f : m.functions) {
      auto name = fbb.CreateString(f.name);
      auto pc_vector = fbb.CreateVector(f.debug_pcs);
      auto id_vector = fbb.CreateVector(f.debug_location_ids);
      infos.push_back(
          schema::CreateFunctionDebugInfo(fbb, name, pc_vector, id_vector));
    }
    std::vector<schema::Location> locations;
    for (const auto& l : m.debug_locations) {
      locations.emplace_back(l.file, l.line, l.column);
    }
    std::vector<flatbuffers::Offset<flatbuffers::String>> file_strings;
    for (const auto& file : m.debug_files) {
      file_strings.push_back(fbb.CreateString(file));
    }
    auto file_vector = fbb.CreateVector(file_strings);
    auto location_vector = fbb.CreateVectorOfStructs(locations);
    auto info_vector = fbb.CreateVector(infos);
    debug = schema::CreateDebugDatabase(fbb, file_vector, location_vector,
                                        info_vector);
  }

  flatbuffers::Offset<schema::CompilerInfo> compiler = 0;
  if (m.compiler) {
    const auto& [compiler_name, compiler_version, compiler_flags] = *m.compiler;
    auto name = fbb.CreateString(compiler_name);
    auto version = fbb.CreateString(compiler_version);
    auto flags = fbb.CreateVectorOfStrings(compiler_flags);
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
  auto bytecode_vector = fbb.CreateVector(m.bytecode);
  auto checksum_vector = rodata_refs.empty() || !m.write_checksums
                             ? 0
                             : fbb.CreateVector(m.rodata_checksums);
  // A signed module carries 64 zero bytes here until signModuleImage fills
  // them in below, over the finished file.
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> signature_vector = 0;
  if (!m.signing_key.empty()) {
    signature_vector =
        fbb.CreateVector(std::vector<uint8_t>(STRATA_MODULE_SIGNATURE_SIZE, 0));
  }
  auto root = schema::CreateModule(
      fbb, name, m.version, compiler, requirements, types, dependencies,
      imports, exports, functions, m.initializer, rodata, m.global_prim_bytes,
      m.global_ref_count, bytecode_vector, debug, checksum_vector,
      signature_vector);
  schema::FinishModuleBuffer(fbb, root);

  // File: header, FlatBuffer at 64, zero padding, then the segment area.
  const std::vector<uint8_t>& segments = m.segments;
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
      if (error) {
        *error = strata_status_message(status);
      }
      strata_status_free(status);
      return {};
    }
  }
  return out;
}

}  // namespace strata::vm::writer
