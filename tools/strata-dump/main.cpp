// strata-dump - prints a Strata module (.vmfb): metadata, imports, exports,
// functions, globals, segments and the disassembly with source locations, as
// text or JSON.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "bytecode_module.h"
#include "cli.h"
#include "disassembler.h"
#include "format.h"
#include "json_writer.h"
#include "kernel_variants.h"
#include "module_generated.h"
#include "strata/vm/vm.h"

namespace {

using strata::tools::JsonWriter;
using strata::vm::appendf;
using strata::vm::BytecodeModule;
using strata::vm::DisassembledInstruction;

constexpr const char kUsage[] =
    "usage: strata-dump [options] MODULE.vmfb\n"
    "\n"
    "Prints a Strata module: name and version, format version, compiler,\n"
    "requirements, dependencies, imports, exports with signatures and\n"
    "reflection attributes, the function table, globals, the segment table,\n"
    "then the disassembly with source locations.\n"
    "\n"
    "options:\n"
    "  --format=text|json  output format (default: text)\n"
    "  --no-disassembly    leave out the bytecode disassembly\n"
    "  --function=NAME     disassemble only this function (a function name\n"
    "                      from the debug database, or an export name)\n"
    "  --help              print this help and exit\n";

struct Options {
  std::string path;
  bool json = false;
  bool disassembly = true;
  std::string function;  // "" = all
};

// Exit codes: 0 success, 1 bad module or I/O, 2 bad command line.
[[noreturn]] void usageError(const std::string& message) {
  std::fprintf(stderr, "strata-dump: %s\n%s", message.c_str(), kUsage);
  std::exit(2);
}

Options parseArgs(int argc, char** argv) {
  Options options;
  bool have_path = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (arg == "--format=json") {
      options.json = true;
    } else if (arg == "--format=text") {
      options.json = false;
    } else if (arg.rfind("--format=", 0) == 0) {
      usageError("unknown format '" + arg.substr(9) +
                 "'; expected text or json");
    } else if (arg == "--no-disassembly") {
      options.disassembly = false;
    } else if (arg.rfind("--function=", 0) == 0 && arg.size() > 11) {
      options.function = arg.substr(11);
    } else if (arg.size() > 1 && arg[0] == '-') {
      usageError("unknown flag '" + arg + "'");
    } else if (have_path) {
      usageError("more than one module given ('" + options.path + "', '" +
                 arg + "')");
    } else {
      options.path = arg;
      have_path = true;
    }
  }
  if (!have_path) {
    usageError("no module given");
  }
  return options;
}

// Registers a placeholder for every ref type the module names that this
// process does not provide (hal.buffer, ...), so that any module can be
// dumped without its runtime. The FlatBuffer is verified before it is read;
// anything malformed is left for the loader to report.
class PlaceholderTypes {
 public:
  void registerFor(strata_vm_instance_t* instance,
                   const strata::tools::ModuleFile& bytes) {
    strata_module_header_t header;
    if (bytes.size < sizeof(header)) {
      return;
    }
    std::memcpy(&header, bytes.data, sizeof(header));
    if (header.flatbuffer_offset > bytes.size ||
        header.flatbuffer_size > bytes.size - header.flatbuffer_offset) {
      return;
    }
    const uint8_t* fb = bytes.data + header.flatbuffer_offset;
    size_t fb_size = static_cast<size_t>(header.flatbuffer_size);
    // The FlatBuffer verifier needs aligned data; copy into aligned storage.
    std::vector<uint64_t> aligned((fb_size + 7) / 8);
    std::memcpy(aligned.data(), fb, fb_size);
    const uint8_t* base = reinterpret_cast<const uint8_t*>(aligned.data());
    flatbuffers::Verifier verifier(base, fb_size);
    if (!strata::schema::VerifyModuleBuffer(verifier)) {
      return;
    }
    const strata::schema::Module* module = strata::schema::GetModule(base);
    if (!module->types()) {
      return;
    }
    for (const flatbuffers::String* name : *module->types()) {
      if (!name || strata_vm_instance_lookup_type(instance, name->c_str(),
                                                  name->size())) {
        continue;
      }
      names_.push_back(name->str());
      types_.push_back(strata_vm_ref_type_t{names_.back().c_str(),
                                            &PlaceholderTypes::destroy});
      strata_status_free(
          strata_vm_instance_register_type(instance, &types_.back()));
    }
  }

 private:
  // No objects of placeholder types are ever made.
  static void destroy(strata_vm_ref_object_t*) {}

  std::deque<std::string> names_;
  std::deque<strata_vm_ref_type_t> types_;
};

// The alignment a segment has in the file: the format's segment alignment
// when its file offset honours it (the loader checks that), else the largest
// power of two dividing the offset.
// What a rodata segment holds, in a few words: a kernel library (an ELF
// shared object; its machine from the header), text (quoted, shortened), or
// bytes.
std::string describeSegment(const uint8_t* data, uint64_t length) {
  if (length >= 20 && std::memcmp(data, "\x7f" "ELF", 4) == 0) {
    uint16_t machine = 0;
    std::memcpy(&machine, data + 18, sizeof(machine));  // e_machine, LE
    const char* name = machine == 62    ? "x86-64"
                       : machine == 183 ? "aarch64"
                                        : "another machine";
    return std::string("kernel library (ELF shared object, ") + name + ")";
  }
  bool text = length > 0;
  for (uint64_t i = 0; i < length && text; ++i) {
    text = data[i] >= 0x20 && data[i] < 0x7f;
  }
  if (!text) {
    return "bytes";
  }
  constexpr uint64_t kShown = 48;
  std::string shown(reinterpret_cast<const char*>(data),
                    static_cast<size_t>(std::min(length, kShown)));
  return "\"" + shown + (length > kShown ? "...\"" : "\"");
}

uint64_t alignmentOf(uint64_t offset) {
  constexpr uint64_t kFormat = STRATA_MODULE_SEGMENT_ALIGNMENT;
  if (offset % kFormat == 0) {
    return kFormat;
  }
  return offset & (~offset + 1);
}

std::string str(std::string_view s) { return std::string(s); }

std::string joined(const std::vector<std::string_view>& items,
                   const char* separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) {
      out += separator;
    }
    out += items[i];
  }
  return out;
}

struct Dump {
  const Options& options;
  const BytecodeModule& module;
  const strata_module_header_t& header;
  uint64_t file_size;
  std::vector<uint32_t> to_disassemble;
  strata::tools::KernelVariants kernels;
  bool failed = false;  // a function failed to disassemble

  uint32_t bytecodeOffset(uint32_t i) const {
    return module.fb->functions()->Get(i)->bytecode_offset();
  }

  std::string exportTarget(uint32_t function) const {
    return "@" + module.functionDisplayName(function);
  }

  std::string text() {
    std::string out;
    appendf(out, "module %s version %u\n", str(module.name).c_str(),
            module.version);
    appendf(out, "file: %s (%" PRIu64 " bytes), format %u.%u\n",
            options.path.c_str(), file_size,
            static_cast<unsigned>(header.version_major),
            static_cast<unsigned>(header.version_minor));
    appendf(out, "  flatbuffer: offset %" PRIu64 ", %" PRIu64 " bytes\n",
            module.flatbuffer_offset, module.flatbuffer_size);
    appendf(out, "  segments:   offset %" PRIu64 ", %" PRIu64 " bytes\n",
            module.segments_offset, module.segments_size);

    if (module.compiler_name.empty() && module.compiler_version.empty() &&
        module.compiler_flags.empty()) {
      out += "compiler: (not recorded)\n";
    } else {
      appendf(out, "compiler: %s %s\n", str(module.compiler_name).c_str(),
              str(module.compiler_version).c_str());
      if (!module.compiler_flags.empty()) {
        out += "  flags: " + joined(module.compiler_flags, " ") + "\n";
      }
    }
    out += "requirements: " +
           (module.requirements.empty() ? std::string("(none)")
                                        : joined(module.requirements, ", ")) +
           "\n";
    out += "types: " + (module.type_names.empty()
                            ? std::string("(none)")
                            : joined(module.type_names, ", ")) +
           "\n";

    appendf(out, "dependencies (%zu):\n", module.dependencies.size());
    for (const auto& d : module.dependencies) {
      appendf(out, "  %s >= %u%s\n", str(d.name).c_str(), d.minimum_version,
              d.optional ? "  optional" : "");
    }

    appendf(out, "imports (%zu):\n", module.imports.size());
    for (size_t i = 0; i < module.imports.size(); ++i) {
      const auto& im = module.imports[i];
      appendf(out, "  [%zu] %s  %s  %s%s\n", i, str(im.full_name).c_str(),
              str(im.signature.text).c_str(),
              strata::tools::describeSignature(im.signature.text).c_str(),
              im.optional ? "  optional" : "");
    }

    appendf(out, "exports (%zu):\n", module.exports.size());
    for (const auto& e : module.exports) {
      std::string_view cc = module.functions[e.function].signature.text;
      appendf(out, "  %s -> %s  %s  %s\n", str(e.name).c_str(),
              exportTarget(e.function).c_str(), str(cc).c_str(),
              strata::tools::describeSignature(cc).c_str());
      for (const auto& attr : e.attrs) {
        appendf(out, "    %s = %s\n", str(attr.first).c_str(),
                str(attr.second).c_str());
      }
    }

    appendf(out, "functions (%zu):\n", module.functions.size());
    for (uint32_t i = 0; i < module.functions.size(); ++i) {
      const auto& f = module.functions[i];
      appendf(out,
              "  [%u] @%s  %s  %s  bytecode %u+%u  registers %u prim / %u "
              "ref  blocks %u\n",
              i, module.functionDisplayName(i).c_str(),
              str(f.signature.text).c_str(),
              strata::tools::describeSignature(f.signature.text).c_str(),
              bytecodeOffset(i), f.length,
              static_cast<unsigned>(f.prim_register_count),
              static_cast<unsigned>(f.ref_register_count), f.block_count);
    }
    if (module.initializer >= 0) {
      appendf(out, "initializer: @%s\n",
              module.functionDisplayName(
                          static_cast<uint32_t>(module.initializer))
                  .c_str());
    } else {
      out += "initializer: (none)\n";
    }
    appendf(out, "globals: %u bytes, %u refs\n", module.global_prim_bytes,
            module.global_ref_count);

    appendf(out, "rodata segments (%zu):\n", module.rodata.size());
    for (uint32_t i = 0; i < module.rodata.size(); ++i) {
      const auto* seg = module.fb->rodata()->Get(i);
      appendf(out,
              "  [%u] offset %" PRIu64 "  size %" PRIu64 "  align %" PRIu64
              "  %s\n",
              i, seg->offset(), seg->length(),
              alignmentOf(module.segments_offset + seg->offset()),
              describeSegment(module.rodata[i].data, module.rodata[i].length)
                  .c_str());
    }

    // A multi-ISA module has one kernel library per CPU variant.
    appendf(out, "kernel libraries (%zu):\n", kernels.libraries.size());
    for (size_t i = 0; i < kernels.libraries.size(); ++i) {
      const strata::tools::KernelVariant& k = kernels.libraries[i];
      if (k.runs) {
        appendf(out, "  rodata [%u]  size %" PRIu64 "  needs: %s%s\n",
                k.segment, k.size, k.features.c_str(),
                static_cast<int>(i) == kernels.picked ? "  (this host picks it)"
                                                      : "");
      } else {
        appendf(out, "  rodata [%u]  size %" PRIu64 "  not on this host: %s\n",
                k.segment, k.size, k.error.c_str());
      }
    }

    if (options.disassembly) {
      out += "\ndisassembly:\n";
      for (uint32_t i : to_disassemble) {
        std::vector<DisassembledInstruction> instructions;
        strata_status_t status =
            strata::vm::disassembleFunction(module, i, &instructions);
        if (status) {
          reportDisassemblyError(status);
        }
        out += strata::vm::formatFunctionText(module, i);
        out += '\n';
      }
    }
    return out;
  }

  void reportDisassemblyError(strata_status_t status) {
    std::string line = strata::tools::sanitizeLine(options.path) + ": " +
                       strata::tools::statusToLine(status);
    std::fprintf(stderr, "strata-dump: %s\n", line.c_str());
    strata_status_free(status);
    failed = true;
  }

  std::string json() {
    JsonWriter j;
    j.beginObject();
    j.key("file").value(options.path);
    j.key("file_size").value(file_size);
    j.key("module").beginObject();
    j.key("name").value(module.name);
    j.key("version").value(module.version);
    j.endObject();
    j.key("format").beginObject();
    j.key("version_major").value(uint32_t{header.version_major});
    j.key("version_minor").value(uint32_t{header.version_minor});
    j.key("flatbuffer_offset").value(module.flatbuffer_offset);
    j.key("flatbuffer_size").value(module.flatbuffer_size);
    j.key("segments_offset").value(module.segments_offset);
    j.key("segments_size").value(module.segments_size);
    j.endObject();

    j.key("compiler");
    if (module.compiler_name.empty() && module.compiler_version.empty() &&
        module.compiler_flags.empty()) {
      j.null();
    } else {
      j.beginObject();
      j.key("name").value(module.compiler_name);
      j.key("version").value(module.compiler_version);
      j.key("flags").beginArray();
      for (auto flag : module.compiler_flags) {
        j.value(flag);
      }
      j.endArray();
      j.endObject();
    }
    j.key("requirements").beginArray();
    for (auto r : module.requirements) {
      j.value(r);
    }
    j.endArray();
    j.key("types").beginArray();
    for (auto t : module.type_names) {
      j.value(t);
    }
    j.endArray();

    j.key("dependencies").beginArray();
    for (const auto& d : module.dependencies) {
      j.beginObject();
      j.key("name").value(d.name);
      j.key("minimum_version").value(d.minimum_version);
      j.key("optional").value(d.optional);
      j.endObject();
    }
    j.endArray();

    j.key("imports").beginArray();
    for (size_t i = 0; i < module.imports.size(); ++i) {
      const auto& im = module.imports[i];
      j.beginObject();
      j.key("ordinal").value(uint64_t{i});
      j.key("full_name").value(im.full_name);
      j.key("calling_convention").value(im.signature.text);
      j.key("signature").value(
          strata::tools::describeSignature(im.signature.text));
      j.key("optional").value(im.optional);
      j.endObject();
    }
    j.endArray();

    j.key("exports").beginArray();
    for (const auto& e : module.exports) {
      std::string_view cc = module.functions[e.function].signature.text;
      j.beginObject();
      j.key("name").value(e.name);
      j.key("function").value(e.function);
      j.key("function_name").value(module.functionDisplayName(e.function));
      j.key("calling_convention").value(cc);
      j.key("signature").value(strata::tools::describeSignature(cc));
      j.key("attrs").beginArray();
      for (const auto& attr : e.attrs) {
        j.beginObject();
        j.key("key").value(attr.first);
        j.key("value").value(attr.second);
        j.endObject();
      }
      j.endArray();
      j.endObject();
    }
    j.endArray();

    j.key("functions").beginArray();
    for (uint32_t i = 0; i < module.functions.size(); ++i) {
      const auto& f = module.functions[i];
      j.beginObject();
      j.key("ordinal").value(i);
      j.key("name").value(module.functionDisplayName(i));
      j.key("calling_convention").value(f.signature.text);
      j.key("signature").value(
          strata::tools::describeSignature(f.signature.text));
      j.key("bytecode_offset").value(bytecodeOffset(i));
      j.key("bytecode_length").value(f.length);
      j.key("prim_registers").value(uint32_t{f.prim_register_count});
      j.key("ref_registers").value(uint32_t{f.ref_register_count});
      j.key("block_count").value(f.block_count);
      j.key("block_offsets").beginArray();
      for (uint32_t b = 0; b < f.block_count; ++b) {
        j.value(f.block_offsets[b]);
      }
      j.endArray();
      j.endObject();
    }
    j.endArray();
    j.key("initializer");
    if (module.initializer >= 0) {
      j.value(int64_t{module.initializer});
    } else {
      j.null();
    }
    j.key("globals").beginObject();
    j.key("prim_bytes").value(module.global_prim_bytes);
    j.key("ref_count").value(module.global_ref_count);
    j.endObject();

    j.key("rodata").beginArray();
    for (uint32_t i = 0; i < module.rodata.size(); ++i) {
      const auto* seg = module.fb->rodata()->Get(i);
      j.beginObject();
      j.key("ordinal").value(i);
      j.key("offset").value(seg->offset());
      j.key("size").value(seg->length());
      j.key("alignment")
          .value(alignmentOf(module.segments_offset + seg->offset()));
      j.key("contents").value(
          describeSegment(module.rodata[i].data, module.rodata[i].length));
      j.endObject();
    }
    j.endArray();

    j.key("kernel_libraries").beginArray();
    for (size_t i = 0; i < kernels.libraries.size(); ++i) {
      const strata::tools::KernelVariant& k = kernels.libraries[i];
      j.beginObject();
      j.key("rodata").value(k.segment);
      j.key("size").value(k.size);
      j.key("runs").value(k.runs);
      j.key(k.runs ? "features" : "error").value(k.runs ? k.features : k.error);
      j.key("picked").value(static_cast<int>(i) == kernels.picked);
      j.endObject();
    }
    j.endArray();

    if (options.disassembly) {
      j.key("disassembly").beginArray();
      for (uint32_t i : to_disassemble) {
        j.beginObject();
        j.key("function").value(i);
        j.key("name").value(module.functionDisplayName(i));
        std::vector<DisassembledInstruction> instructions;
        strata_status_t status =
            strata::vm::disassembleFunction(module, i, &instructions);
        if (status) {
          j.key("error").value(strata::tools::statusToLine(status));
          reportDisassemblyError(status);
        }
        j.key("instructions").beginArray();
        for (const auto& d : instructions) {
          j.beginObject();
          j.key("pc").value(d.pc);
          j.key("length").value(d.length);
          if (d.block >= 0) {
            j.key("block").value(d.block);
          }
          j.key("opcode").value(uint32_t{static_cast<uint8_t>(d.opcode)});
          j.key("mnemonic").value(d.mnemonic);
          j.key("operands").value(d.operands);
          j.key("location");
          if (d.location.file.empty() && d.location.line == 0) {
            j.null();
          } else {
            j.beginObject();
            j.key("file").value(d.location.file);
            j.key("line").value(d.location.line);
            j.key("column").value(d.location.column);
            j.endObject();
          }
          j.endObject();
        }
        j.endArray();
        j.endObject();
      }
      j.endArray();
    }
    j.endObject();
    return j.take();
  }
};

int run(const Options& options) {
  auto fail = [&](const std::string& message) {
    std::string line = strata::tools::sanitizeLine(options.path + ": " +
                                                   message);
    std::fprintf(stderr, "strata-dump: %s\n", line.c_str());
    return 1;
  };

  // The header is checked before the rest is read (module.h).
  strata::tools::ModuleFile bytes;
  std::string error;
  if (!strata::tools::readModuleFile(options.path, &bytes, &error)) {
    std::fprintf(stderr, "strata-dump: %s\n", error.c_str());
    return 1;
  }

  strata_allocator_t allocator = strata_allocator_system();
  strata_vm_instance_t* instance = nullptr;
  strata_status_t status = strata_vm_instance_create(allocator, &instance);
  if (status) {
    std::string line = strata::tools::statusToLine(status);
    strata_status_free(status);
    return fail(line);
  }
  PlaceholderTypes placeholders;
  placeholders.registerFor(instance, bytes);

  BytecodeModule* module = nullptr;
  status = strata::vm::loadBytecodeModule(instance, bytes.data, bytes.size,
                                          nullptr, nullptr, allocator,
                                          &module);
  if (status) {
    std::string line = strata::tools::statusToLine(status);
    strata_status_free(status);
    strata_vm_instance_release(instance);
    return fail(line);
  }

  strata_module_header_t header;
  std::memcpy(&header, bytes.data, sizeof(header));
  Dump dump{options, *module, header, bytes.size, {}};
  dump.kernels = strata::tools::probeKernelVariants(bytes.data, bytes.size);
  int rc = 0;
  if (options.function.empty()) {
    for (uint32_t i = 0; i < module->functions.size(); ++i) {
      dump.to_disassemble.push_back(i);
    }
  } else {
    for (uint32_t i = 0; i < module->functions.size(); ++i) {
      if (module->functionDisplayName(i) == options.function) {
        dump.to_disassemble.push_back(i);
      }
    }
    if (dump.to_disassemble.empty()) {
      for (const auto& e : module->exports) {
        if (e.name == options.function) {
          dump.to_disassemble.push_back(e.function);
          break;
        }
      }
    }
    if (dump.to_disassemble.empty()) {
      std::string names;
      for (uint32_t i = 0; i < module->functions.size(); ++i) {
        names += (i ? ", " : "") + module->functionDisplayName(i);
      }
      rc = fail("no function or export named '" + options.function +
                "'; functions: " + (names.empty() ? "(none)" : names));
    }
  }
  if (rc == 0) {
    std::string out = options.json ? dump.json() : dump.text();
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (std::fflush(stdout) != 0) {
      rc = fail("cannot write the output");
    } else if (dump.failed) {
      rc = 1;
    }
  }
  delete module;
  strata_vm_instance_release(instance);
  return rc;
}

}  // namespace

int main(int argc, char** argv) { return run(parseArgs(argc, argv)); }
