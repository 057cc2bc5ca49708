// bytecode_loader.cpp - turns an untrusted module image into a BytecodeModule:
// header and identifier, the FlatBuffer verifier, semantic range checks, then
// every function's bytecode (bytecode_verifier.cpp).
//
// Every failure is a status whose message names the field at fault. Codes:
// INVALID_ARGUMENT for anything malformed, UNIMPLEMENTED for a format major
// version this runtime cannot read, NOT_FOUND for a ref type the instance does
// not know, DATA_LOSS for a segment whose checksum does not match and
// RESOURCE_EXHAUSTED when memory runs out.
//
// Ownership of the bytes: once loadBytecodeModule is called with a release
// callback, that callback runs exactly once. It runs at once when the bytes
// had to be copied (no 64-byte alignment) or when loading fails, and
// otherwise when the module dies. Callers therefore never have to guess
// whether they still own the bytes after an error.
#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>

#include "bytecode_module.h"
#include "flatbuffers/flatbuffers.h"
#include "format.h"
#include "module_generated.h"
#include "strata/base/crc32c.h"

namespace strata::vm {

namespace {

// The FlatBuffer's vectors of uint32 are handed out as raw pointers
// (Function::block_offsets); that is only valid on little-endian hosts.
static_assert(FLATBUFFERS_LITTLEENDIAN, "Strata modules are little-endian");

constexpr uint64_t kAlign = STRATA_MODULE_SEGMENT_ALIGNMENT;

strata_status_t makeError(strata_status_code_t code, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
strata_status_t makeError(strata_status_code_t code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  strata_status_t status = strata_make_status_v(code, format, args);
  va_end(args);
  return status;
}

#define INVALID(...) makeError(STRATA_STATUS_INVALID_ARGUMENT, __VA_ARGS__)

// Whether [offset, offset + length) lies inside [0, limit), without wrapping.
bool rangeInside(uint64_t offset, uint64_t length, uint64_t limit) {
  uint64_t end = 0;
  return !__builtin_add_overflow(offset, length, &end) && end <= limit;
}

std::string_view view(const flatbuffers::String* s) {
  return s ? std::string_view(s->c_str(), s->size()) : std::string_view();
}

// FlatBuffer strings may hold NUL bytes; names that are later used as C
// strings or compared by length must not.
bool hasNul(std::string_view s) {
  return s.find('\0') != std::string_view::npos;
}

// Prints up to 4 identifier bytes with non-printable bytes shown as '?'.
std::string printableIdentifier(const uint8_t* p) {
  std::string out;
  for (int i = 0; i < 4; ++i) {
    out.push_back(p[i] >= 0x20 && p[i] < 0x7F ? static_cast<char>(p[i]) : '?');
  }
  return out;
}

// Replaces status with one whose message is "<prefix>: <old message>", so
// that errors from shared helpers (parseSignature) name the owner.
strata_status_t prefixStatus(strata_status_t status,
                             const std::string& prefix) {
  if (!status) {
    return status;
  }
  strata_status_t out =
      makeError(strata_status_code(status), "%s: %s", prefix.c_str(),
                strata_status_message(status));
  strata_status_free(status);
  return out;
}

std::string functionLabel(const BytecodeModule& m, uint32_t index) {
  return "function '" + m.functionDisplayName(index) + "' (#" +
         std::to_string(index) + ")";
}

//===----------------------------------------------------------------------===//
// Layer 1: header, ranges and identifier
//===----------------------------------------------------------------------===//

strata_status_t checkHeader(BytecodeModule* m) {
  const uint64_t size = m->image_size;
  if (size < STRATA_MODULE_HEADER_SIZE) {
    return INVALID("module is truncated: %" PRIu64
                   " bytes cannot hold the %d-byte header",
                   size, STRATA_MODULE_HEADER_SIZE);
  }
  strata_module_header_t h;
  std::memcpy(&h, m->image, sizeof(h));
  if (std::memcmp(h.magic, STRATA_MODULE_MAGIC, STRATA_MODULE_MAGIC_SIZE) !=
      0) {
    return INVALID("not a Strata module: bad magic (expected \"%s\")",
                   STRATA_MODULE_MAGIC);
  }
  if (h.version_major > STRATA_FORMAT_VERSION_MAJOR) {
    return makeError(STRATA_STATUS_UNIMPLEMENTED,
                     "module format %u.%u is newer than this runtime (%d.%d)",
                     h.version_major, h.version_minor,
                     STRATA_FORMAT_VERSION_MAJOR, STRATA_FORMAT_VERSION_MINOR);
  }
  if (h.version_major < STRATA_FORMAT_VERSION_MAJOR) {
    return makeError(STRATA_STATUS_UNIMPLEMENTED,
                     "module format %u.%u is older than this runtime "
                     "supports (%d.%d)",
                     h.version_major, h.version_minor,
                     STRATA_FORMAT_VERSION_MAJOR, STRATA_FORMAT_VERSION_MINOR);
  }
  // A later minor version may grow the header; older fields keep their place.
  if (h.header_size < STRATA_MODULE_HEADER_SIZE) {
    return INVALID("header_size %u is smaller than the %d-byte header",
                   h.header_size, STRATA_MODULE_HEADER_SIZE);
  }
  if (h.flatbuffer_offset % kAlign != 0) {
    return INVALID("FlatBuffer offset %" PRIu64 " is not %d-byte aligned",
                   h.flatbuffer_offset, STRATA_MODULE_SEGMENT_ALIGNMENT);
  }
  if (h.flatbuffer_offset < h.header_size) {
    return INVALID("FlatBuffer offset %" PRIu64 " overlaps the %u-byte header",
                   h.flatbuffer_offset, h.header_size);
  }
  if (!rangeInside(h.flatbuffer_offset, h.flatbuffer_size, size)) {
    return INVALID("FlatBuffer [%" PRIu64 ", +%" PRIu64
                   ") extends past the end of the module (%" PRIu64
                   " bytes): truncated or corrupt header",
                   h.flatbuffer_offset, h.flatbuffer_size, size);
  }
  // Root offset plus identifier; anything shorter cannot be a FlatBuffer.
  if (h.flatbuffer_size < 8) {
    return INVALID("FlatBuffer is too small (%" PRIu64 " bytes)",
                   h.flatbuffer_size);
  }
  if (h.flatbuffer_size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return INVALID("FlatBuffer of %" PRIu64 " bytes is over the FlatBuffers "
                   "limit",
                   h.flatbuffer_size);
  }
  if (h.segments_offset % kAlign != 0) {
    return INVALID("segment area offset %" PRIu64 " is not %d-byte aligned",
                   h.segments_offset, STRATA_MODULE_SEGMENT_ALIGNMENT);
  }
  // An empty segment area may sit anywhere inside the file (writers with no
  // segments may leave the offset at 0); a non-empty one must follow the
  // FlatBuffer.
  if (h.segments_size != 0 &&
      h.segments_offset < h.flatbuffer_offset + h.flatbuffer_size) {
    return INVALID("segment area offset %" PRIu64
                   " overlaps the FlatBuffer, which ends at %" PRIu64,
                   h.segments_offset, h.flatbuffer_offset + h.flatbuffer_size);
  }
  if (!rangeInside(h.segments_offset, h.segments_size, size)) {
    return INVALID("segment area [%" PRIu64 ", +%" PRIu64
                   ") extends past the end of the module (%" PRIu64
                   " bytes): truncated or corrupt header",
                   h.segments_offset, h.segments_size, size);
  }
  const uint8_t* fb = m->image + h.flatbuffer_offset;
  if (!flatbuffers::BufferHasIdentifier(fb,
                                        STRATA_MODULE_FLATBUFFER_IDENTIFIER)) {
    return INVALID(
        "FlatBuffer identifier is '%s', expected '%s'",
        printableIdentifier(fb + sizeof(flatbuffers::uoffset_t)).c_str(),
        STRATA_MODULE_FLATBUFFER_IDENTIFIER);
  }
  m->flatbuffer_offset = h.flatbuffer_offset;
  m->flatbuffer_size = h.flatbuffer_size;
  m->segments_offset = h.segments_offset;
  m->segments_size = h.segments_size;
  m->format_version_minor = h.version_minor;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Layer 2: the FlatBuffer verifier
//===----------------------------------------------------------------------===//

strata_status_t checkFlatBuffer(BytecodeModule* m) {
  const uint8_t* fb = m->image + m->flatbuffer_offset;
  flatbuffers::Verifier::Options options;
  // Modules may hold up to STRATA_MAX_FUNCTIONS functions, each a few tables;
  // the buffer size already bounds the work.
  options.max_tables = 1u << 24;
  flatbuffers::Verifier verifier(fb, static_cast<size_t>(m->flatbuffer_size),
                                 options);
  if (!schema::VerifyModuleBuffer(verifier)) {
    return INVALID("FlatBuffer verification failed: the module table (%" PRIu64
                   " bytes) has out-of-range offsets, a missing required "
                   "field or misaligned data",
                   m->flatbuffer_size);
  }
  m->fb = schema::GetModule(fb);
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Layer 3: semantic ranges
//===----------------------------------------------------------------------===//

template <typename T> uint32_t sizeOf(const flatbuffers::Vector<T>* v) {
  return v ? v->size() : 0;
}

strata_status_t loadMetadata(BytecodeModule* m) {
  const schema::Module* fb = m->fb;
  m->name = view(fb->name());
  if (m->name.empty()) {
    return INVALID("module name is empty");
  }
  if (hasNul(m->name)) {
    return INVALID("module name contains a NUL byte");
  }
  m->version = fb->version();
  if (const schema::CompilerInfo* c = fb->compiler()) {
    m->compiler_name = view(c->name());
    m->compiler_version = view(c->version());
    if (c->flags()) {
      for (const flatbuffers::String* flag : *c->flags()) {
        m->compiler_flags.push_back(view(flag));
      }
    }
  }
  if (fb->requirements()) {
    for (const flatbuffers::String* r : *fb->requirements()) {
      m->requirements.push_back(view(r));
    }
  }
  if (fb->dependencies()) {
    uint32_t i = 0;
    for (const schema::Dependency* d : *fb->dependencies()) {
      Dependency dep;
      dep.name = view(d->name());
      if (dep.name.empty() || hasNul(dep.name)) {
        return INVALID("dependency %u has an empty or malformed name", i);
      }
      dep.minimum_version = d->minimum_version();
      dep.optional = d->optional();
      m->dependencies.push_back(dep);
      ++i;
    }
  }
  if (fb->global_prim_bytes() > STRATA_MAX_GLOBAL_PRIM_BYTES) {
    return INVALID("global_prim_bytes %u is over the limit of %u",
                   fb->global_prim_bytes(), STRATA_MAX_GLOBAL_PRIM_BYTES);
  }
  if (fb->global_ref_count() > STRATA_MAX_GLOBAL_REFS) {
    return INVALID("global_ref_count %u is over the limit of %u",
                   fb->global_ref_count(), STRATA_MAX_GLOBAL_REFS);
  }
  m->global_prim_bytes = fb->global_prim_bytes();
  m->global_ref_count = fb->global_ref_count();
  return nullptr;
}

strata_status_t loadTypes(strata_vm_instance_t* instance, BytecodeModule* m) {
  if (!m->fb->types()) {
    return nullptr;
  }
  uint32_t i = 0;
  for (const flatbuffers::String* s : *m->fb->types()) {
    std::string_view name = view(s);
    if (name.empty() || hasNul(name)) {
      return INVALID("type %u has an empty or malformed name", i);
    }
    const strata_vm_ref_type_t* type =
        strata_vm_instance_lookup_type(instance, name.data(), name.size());
    if (!type) {
      return makeError(STRATA_STATUS_NOT_FOUND,
                       "module '%.*s' uses ref type '%.*s' (type %u), which is "
                       "not registered with the VM instance",
                       static_cast<int>(m->name.size()), m->name.data(),
                       static_cast<int>(name.size()), name.data(), i);
    }
    m->type_names.push_back(name);
    m->types.push_back(type);
    ++i;
  }
  return nullptr;
}

strata_status_t loadRodata(BytecodeModule* m) {
  if (!m->fb->rodata()) {
    return nullptr;
  }
  // The FlatBuffer verifier checks a struct vector's length field, not that
  // its 8-byte structs are aligned; the image is 64-aligned, so an offset
  // that is not a multiple of 8 is a malformed file.
  if (reinterpret_cast<uintptr_t>(m->fb->rodata()->Data()) %
          alignof(schema::SegmentRef) !=
      0) {
    return INVALID("the rodata table is misaligned");
  }
  // Format 1.1 writers record every segment's CRC-32C; kernel libraries
  // are dlopen'ed from rodata, so a segment is checked before anything
  // reads it, and a 1.1 module without checksums is refused.
  const flatbuffers::Vector<uint32_t>* checksums = m->fb->rodata_checksums();
  if (checksums && checksums->size() != m->fb->rodata()->size()) {
    return INVALID("rodata_checksums has %u entries for %u rodata segments",
                   checksums->size(), m->fb->rodata()->size());
  }
  if (!checksums && m->format_version_minor >= 1 &&
      m->fb->rodata()->size() > 0) {
    return INVALID("module format 1.%u requires rodata_checksums, and the "
                   "module has %u rodata segments without them",
                   m->format_version_minor, m->fb->rodata()->size());
  }
  const uint8_t* area = m->image + m->segments_offset;
  uint32_t i = 0;
  for (const schema::SegmentRef* ref : *m->fb->rodata()) {
    if (ref->offset() % kAlign != 0) {
      return INVALID("rodata %u offset %" PRIu64 " is not %d-byte aligned", i,
                     ref->offset(), STRATA_MODULE_SEGMENT_ALIGNMENT);
    }
    if (!rangeInside(ref->offset(), ref->length(), m->segments_size)) {
      return INVALID("rodata %u [%" PRIu64 ", +%" PRIu64
                     ") is outside the %" PRIu64 "-byte segment area",
                     i, ref->offset(), ref->length(), m->segments_size);
    }
    if (checksums) {
      uint32_t actual = strata_crc32c(0, area + ref->offset(),
                                      static_cast<size_t>(ref->length()));
      if (actual != checksums->Get(i)) {
        return makeError(STRATA_STATUS_DATA_LOSS,
                         "rodata %u [%" PRIu64 ", +%" PRIu64
                         ") is corrupt: its CRC-32C is 0x%08x, the module "
                         "records 0x%08x",
                         i, ref->offset(), ref->length(), actual,
                         checksums->Get(i));
      }
    }
    m->rodata.push_back(Span{area + ref->offset(), ref->length()});
    ++i;
  }
  return nullptr;
}

// Validates the debug database before anything reads function names or
// locations from it: every index must land inside its table.
strata_status_t checkDebugDatabase(BytecodeModule* m) {
  const schema::DebugDatabase* debug = m->fb->debug();
  if (!debug) {
    return nullptr;
  }
  uint32_t file_count = sizeOf(debug->files());
  uint32_t location_count = sizeOf(debug->locations());
  for (uint32_t i = 0; i < location_count; ++i) {
    const schema::Location* loc = debug->locations()->Get(i);
    if (loc->file() >= file_count) {
      return INVALID("debug location %u names file %u but the debug database "
                     "has %u files",
                     i, loc->file(), file_count);
    }
  }
  if (!debug->functions()) {
    return nullptr;
  }
  uint32_t function_count = sizeOf(m->fb->functions());
  if (debug->functions()->size() != function_count) {
    return INVALID("debug database describes %u functions but the module has "
                   "%u",
                   debug->functions()->size(), function_count);
  }
  for (uint32_t f = 0; f < function_count; ++f) {
    const schema::FunctionDebugInfo* info = debug->functions()->Get(f);
    if (hasNul(view(info->name()))) {
      return INVALID("debug name of function %u contains a NUL byte", f);
    }
    uint32_t pc_count = sizeOf(info->pc_offsets());
    uint32_t id_count = sizeOf(info->location_ids());
    if (pc_count != id_count) {
      return INVALID("debug info of function %u has %u pc offsets but %u "
                     "location ids",
                     f, pc_count, id_count);
    }
    uint32_t length = m->fb->functions()->Get(f)->bytecode_length();
    for (uint32_t i = 0; i < pc_count; ++i) {
      uint32_t pc = info->pc_offsets()->Get(i);
      if (i > 0 && pc <= info->pc_offsets()->Get(i - 1)) {
        return INVALID("debug info of function %u: pc offsets are not "
                       "strictly increasing at entry %u",
                       f, i);
      }
      if (pc >= length) {
        return INVALID("debug info of function %u: pc offset %u is past the "
                       "end of the function (%u bytes)",
                       f, pc, length);
      }
      uint32_t id = info->location_ids()->Get(i);
      if (id >= location_count) {
        return INVALID("debug info of function %u: location id %u out of "
                       "range (%u locations)",
                       f, id, location_count);
      }
    }
  }
  return nullptr;
}

strata_status_t loadFunctions(BytecodeModule* m) {
  const schema::Module* fb = m->fb;
  uint32_t count = sizeOf(fb->functions());
  if (count > STRATA_MAX_FUNCTIONS) {
    return INVALID("module has %u functions, over the limit of %u", count,
                   STRATA_MAX_FUNCTIONS);
  }
  uint64_t bytecode_size = sizeOf(fb->bytecode());
  const uint8_t* bytecode = fb->bytecode() ? fb->bytecode()->data() : nullptr;
  const schema::DebugDatabase* debug = fb->debug();
  m->functions.resize(count);
  // Names first, so that every later message can use them.
  for (uint32_t i = 0; i < count; ++i) {
    if (debug && debug->functions()) {
      m->functions[i].name = view(debug->functions()->Get(i)->name());
    }
  }
  for (uint32_t i = 0; i < count; ++i) {
    const schema::FunctionDef* def = fb->functions()->Get(i);
    Function& f = m->functions[i];
    std::string label = functionLabel(*m, i);
    STRATA_RETURN_IF_ERROR(
        prefixStatus(parseSignature(view(def->calling_convention()),
                                    /*allow_variadic=*/false, &f.signature),
                     label));
    uint32_t offset = def->bytecode_offset();
    uint32_t length = def->bytecode_length();
    if (length == 0) {
      return INVALID("%s has no bytecode", label.c_str());
    }
    if (length > STRATA_MAX_FUNCTION_BYTECODE) {
      return INVALID("%s has %u bytes of bytecode, over the limit of %u",
                     label.c_str(), length, STRATA_MAX_FUNCTION_BYTECODE);
    }
    if (!rangeInside(offset, length, bytecode_size)) {
      return INVALID("%s bytecode [%u, +%u) is outside the module's %" PRIu64
                     " bytes of bytecode",
                     label.c_str(), offset, length, bytecode_size);
    }
    f.code = bytecode + offset;
    f.length = length;
    f.prim_register_count = def->prim_register_count();
    f.ref_register_count = def->ref_register_count();
    if (f.prim_register_count > STRATA_MAX_PRIM_REGISTERS) {
      return INVALID("%s has %u primitive registers, over the limit of %u",
                     label.c_str(), f.prim_register_count,
                     STRATA_MAX_PRIM_REGISTERS);
    }
    if (f.ref_register_count > STRATA_MAX_REF_REGISTERS) {
      return INVALID("%s has %u ref registers, over the limit of %u",
                     label.c_str(), f.ref_register_count,
                     STRATA_MAX_REF_REGISTERS);
    }
    // Arguments arrive in the callee's registers, so they must fit.
    if (f.signature.arg_prim_count > f.prim_register_count) {
      return INVALID("%s takes %u primitive arguments but has only %u "
                     "primitive registers",
                     label.c_str(), f.signature.arg_prim_count,
                     f.prim_register_count);
    }
    if (f.signature.arg_ref_count > f.ref_register_count) {
      return INVALID("%s takes %u ref arguments but has only %u ref registers",
                     label.c_str(), f.signature.arg_ref_count,
                     f.ref_register_count);
    }
    const flatbuffers::Vector<uint32_t>* blocks = def->block_offsets();
    if (blocks->size() == 0) {
      return INVALID("%s has an empty block table", label.c_str());
    }
    if (blocks->Get(0) != 0) {
      return INVALID("%s: block table must start at offset 0, not %u",
                     label.c_str(), blocks->Get(0));
    }
    for (uint32_t b = 1; b < blocks->size(); ++b) {
      if (blocks->Get(b) <= blocks->Get(b - 1)) {
        return INVALID("%s: block offsets are not strictly increasing "
                       "(block %u at %u follows %u)",
                       label.c_str(), b, blocks->Get(b), blocks->Get(b - 1));
      }
    }
    if (blocks->Get(blocks->size() - 1) >= length) {
      return INVALID("%s: block %u starts at offset %u, past the end of the "
                     "function (%u bytes)",
                     label.c_str(), blocks->size() - 1,
                     blocks->Get(blocks->size() - 1), length);
    }
    f.block_offsets = blocks->data();
    f.block_count = blocks->size();
  }
  int32_t initializer = fb->initializer();
  if (initializer != -1) {
    if (initializer < 0 || static_cast<uint32_t>(initializer) >= count) {
      return INVALID("initializer function %d is out of range (module has %u "
                     "functions)",
                     initializer, count);
    }
    const Signature& sig = m->functions[initializer].signature;
    if (sig.text != "0_") {
      return INVALID("initializer %s must take and return nothing ('0_'), "
                     "not '%.*s'",
                     functionLabel(*m, initializer).c_str(),
                     static_cast<int>(sig.text.size()), sig.text.data());
    }
  }
  m->initializer = initializer;
  return nullptr;
}

strata_status_t loadImports(BytecodeModule* m) {
  uint32_t count = sizeOf(m->fb->imports());
  if (count > STRATA_MAX_IMPORTS) {
    return INVALID("module has %u imports, over the limit of %u", count,
                   STRATA_MAX_IMPORTS);
  }
  m->imports.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    const schema::ImportDef* def = m->fb->imports()->Get(i);
    Import& import = m->imports[i];
    import.full_name = view(def->full_name());
    size_t dot = import.full_name.find('.');
    if (dot == std::string_view::npos || dot == 0 ||
        dot + 1 == import.full_name.size() || hasNul(import.full_name)) {
      return INVALID("import %u name '%.*s' is not of the form "
                     "'module.function'",
                     i, static_cast<int>(import.full_name.size()),
                     import.full_name.data());
    }
    import.module_name = import.full_name.substr(0, dot);
    import.function_name = import.full_name.substr(dot + 1);
    import.optional = def->optional();
    STRATA_RETURN_IF_ERROR(
        prefixStatus(parseSignature(view(def->calling_convention()),
                                    /*allow_variadic=*/true, &import.signature),
                     "import '" + std::string(import.full_name) + "' (#" +
                         std::to_string(i) + ")"));
  }
  return nullptr;
}

strata_status_t loadExports(BytecodeModule* m) {
  uint32_t count = sizeOf(m->fb->exports());
  uint32_t function_count = static_cast<uint32_t>(m->functions.size());
  std::unordered_map<std::string_view, uint32_t> seen;
  m->exports.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    const schema::ExportDef* def = m->fb->exports()->Get(i);
    Export& e = m->exports[i];
    e.name = view(def->name());
    if (e.name.empty() || hasNul(e.name)) {
      return INVALID("export %u has an empty or malformed name", i);
    }
    e.function = def->function_ordinal();
    if (e.function >= function_count) {
      return INVALID("export '%.*s' names function %u but the module has %u "
                     "functions",
                     static_cast<int>(e.name.size()), e.name.data(), e.function,
                     function_count);
    }
    auto inserted = seen.emplace(e.name, i);
    if (!inserted.second) {
      return INVALID("duplicate export name '%.*s' (exports %u and %u)",
                     static_cast<int>(e.name.size()), e.name.data(),
                     inserted.first->second, i);
    }
    if (def->attrs()) {
      for (const schema::Attr* attr : *def->attrs()) {
        e.attrs.emplace_back(view(attr->key()), view(attr->value()));
      }
    }
  }
  return nullptr;
}

strata_status_t loadTables(strata_vm_instance_t* instance, BytecodeModule* m) {
  STRATA_RETURN_IF_ERROR(loadMetadata(m));
  STRATA_RETURN_IF_ERROR(loadTypes(instance, m));
  STRATA_RETURN_IF_ERROR(loadRodata(m));
  STRATA_RETURN_IF_ERROR(checkDebugDatabase(m));
  STRATA_RETURN_IF_ERROR(loadFunctions(m));
  STRATA_RETURN_IF_ERROR(loadImports(m));
  STRATA_RETURN_IF_ERROR(loadExports(m));
  return nullptr;
}

strata_status_t loadAll(strata_vm_instance_t* instance, BytecodeModule* m) {
  STRATA_RETURN_IF_ERROR(checkHeader(m));
  STRATA_RETURN_IF_ERROR(checkFlatBuffer(m));
  STRATA_RETURN_IF_ERROR(loadTables(instance, m));
  // Layer 4: every function's bytecode. The interpreter trusts the result.
  for (uint32_t i = 0; i < m->functions.size(); ++i) {
    strata_status_t status = verifyFunction(*m, i);
    if (status) {
      return strata_status_annotate(
          status, "while verifying function #%u of module '%.*s'", i,
          static_cast<int>(m->name.size()), m->name.data());
    }
  }
  return nullptr;
}

}  // namespace

BytecodeModule::~BytecodeModule() {
  if (owns_image) {
    strata_allocator_free(allocator, const_cast<uint8_t*>(image));
  } else if (release) {
    release(release_user, image, static_cast<size_t>(image_size));
  }
}

SourceLocation BytecodeModule::locationFor(uint32_t function,
                                           uint32_t pc) const {
  SourceLocation location;
  const schema::DebugDatabase* debug = fb ? fb->debug() : nullptr;
  if (!debug || !debug->functions() || function >= debug->functions()->size()) {
    return location;
  }
  const schema::FunctionDebugInfo* info = debug->functions()->Get(function);
  const flatbuffers::Vector<uint32_t>* pcs = info->pc_offsets();
  const flatbuffers::Vector<uint32_t>* ids = info->location_ids();
  if (!pcs || !ids || pcs->size() == 0) {
    return location;
  }
  // The entry in effect is the last one starting at or before pc.
  uint32_t lo = 0;
  uint32_t hi = pcs->size();
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (pcs->Get(mid) <= pc) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) {
    return location;
  }
  // The loader proved that ids and files are in range.
  const schema::Location* loc = debug->locations()->Get(ids->Get(lo - 1));
  location.file = view(debug->files()->Get(loc->file()));
  location.line = loc->line();
  location.column = loc->column();
  return location;
}

std::string BytecodeModule::functionDisplayName(uint32_t function) const {
  if (function < functions.size() && !functions[function].name.empty()) {
    return std::string(functions[function].name);
  }
  return "fn" + std::to_string(function);
}

strata_status_t loadBytecodeModule(strata_vm_instance_t* instance,
                                   const uint8_t* data, size_t size,
                                   strata_vm_release_fn_t release,
                                   void* release_user,
                                   strata_allocator_t allocator,
                                   BytecodeModule** out_module) {
  *out_module = nullptr;
  // Calls release exactly once on every early exit (see the file comment).
  auto releaseNow = [&] {
    if (release) {
      release(release_user, data, size);
    }
  };
  if (!instance) {
    releaseNow();
    return INVALID("loading a module needs a VM instance");
  }
  if (!data && size != 0) {
    releaseNow();
    return INVALID("module data is NULL but its size is %zu", size);
  }
  if (static_cast<uint64_t>(size) > STRATA_MAX_MODULE_SIZE) {
    releaseNow();
    return INVALID("module of %zu bytes is over the limit of %" PRIu64 " bytes",
                   size, static_cast<uint64_t>(STRATA_MAX_MODULE_SIZE));
  }
  auto* m = new (std::nothrow) BytecodeModule();
  if (!m) {
    releaseNow();
    return makeError(STRATA_STATUS_RESOURCE_EXHAUSTED,
                     "out of memory loading a module");
  }
  m->allocator = allocator;
  m->image_size = size;
  bool aligned = reinterpret_cast<uintptr_t>(data) % kAlign == 0;
  if (release && aligned && data) {
    // Borrow: the destructor calls release.
    m->image = data;
    m->release = release;
    m->release_user = release_user;
  } else {
    // Copy into 64-byte aligned memory so that the FlatBuffer and segments
    // sit at their intended alignment.
    size_t capacity = size ? size : 1;
    auto* copy = static_cast<uint8_t*>(
        strata_allocator_alloc(allocator, capacity, kAlign));
    if (!copy) {
      delete m;
      releaseNow();
      return makeError(STRATA_STATUS_RESOURCE_EXHAUSTED,
                       "out of memory copying a %zu-byte module", size);
    }
    if (size) {
      std::memcpy(copy, data, size);
    }
    m->image = copy;
    m->owns_image = true;
    releaseNow();
  }
  strata_status_t status = loadAll(instance, m);
  if (status) {
    delete m;  // frees the copy, or calls release on borrowed bytes
    return status;
  }
  *out_module = m;
  return nullptr;
}

}  // namespace strata::vm
