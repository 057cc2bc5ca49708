// cli.h - helpers shared by the runtime command-line tools (strata-run,
// strata-dump, strata-benchmark): reading files, IREE-style --input parsing,
// printing VM values and calling conventions, and flattening statuses.
//
// Everything here is for tools: it uses the STL freely, reports errors as
// strings, and is thread-compatible.
#ifndef STRATA_TOOLS_COMMON_CLI_H_
#define STRATA_TOOLS_COMMON_CLI_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/base/status.h"
#include "strata/vm/module.h"
#include "strata/vm/value.h"

namespace strata::tools {

// Limits of readFile.
struct ReadFileOptions {
  // Files (regular or not) holding more are refused, before any allocation
  // when the file is regular.
  uint64_t max_size = uint64_t{1} << 32;
  // The limit for files that are not regular (pipes, devices), whose size
  // is unknown until they end: an endless one costs this much, no more.
  uint64_t max_stream_size = uint64_t{1} << 30;
  // When set, called with the first prefix_size bytes (fewer if the file is
  // shorter) before the rest is read; returning false (with *reason) stops
  // the read, so a wrong file (/dev/zero as .npy) is refused at once.
  size_t prefix_size = 0;
  std::function<bool(const uint8_t*, size_t, std::string*)> check_prefix;
};

// Reads a whole file within options' limits: directories are refused, a
// regular file over max_size is refused before it is read, other files
// (pipes, devices) are read up to max_stream_size, and running out of memory is an
// error. On failure returns false and sets *error to the reason (strerror
// text or a phrase), without the path.
bool readFile(const std::string& path, std::vector<uint8_t>* out,
              std::string* error, const ReadFileOptions& options = {});

// A module file's bytes, 64-byte aligned, from strata_vm_module_file_read
// (the header is checked before the rest is read). Owns the bytes.
struct ModuleFile {
  ModuleFile() = default;
  ModuleFile(const ModuleFile&) = delete;
  ModuleFile& operator=(const ModuleFile&) = delete;
  ~ModuleFile();
  uint8_t* data = nullptr;
  size_t size = 0;
};

// Reads a module file; on failure returns false and sets *error to one line
// that names the path.
bool readModuleFile(const std::string& path, ModuleFile* out,
                    std::string* error);

// "i32=5", "f64=2.5", "vm.buffer<16 bytes>", "vm.list<2>[i32=1, i32=2]",
// "null" for a null ref. Floats print as the shortest exact decimal.
std::string formatVariant(const strata_vm_variant_t& value);

// Shortest decimal text that reads back to exactly the same value.
std::string formatF32(float value);
std::string formatF64(double value);

// Readable type of a calling-convention character: 'i' -> "i32", 'I' ->
// "i64", 'f' -> "f32", 'F' -> "f64", 'r' -> "ref".
const char* cconvTypeName(char c);

// "0ii_i" -> "(i32, i32) -> i32"; "0_" -> "() -> ()"; "0iCrD_r" ->
// "(i32, ref...) -> ref"; several results print as a tuple "(i32, f64)".
// Malformed text is returned unchanged in brackets.
std::string describeSignature(std::string_view calling_convention);

// The argument characters of a calling convention without spans ("ii" for
// "0ii_i"); false when malformed or variadic.
bool signatureArgs(std::string_view calling_convention, std::string* args);

// text made safe for one terminal line: control characters (newlines
// included) and bytes that are not valid UTF-8 become \xNN. Module files
// can hold any bytes in their names; errors quoting them stay one line.
std::string sanitizeLine(std::string_view text);

// The full text of a status ("CODE: message" plus one indented line per
// annotation). Does not free status.
std::string statusToString(strata_status_t status);
// The same on one line: annotations are joined with "; " and the text is
// passed through sanitizeLine.
std::string statusToLine(strata_status_t status);
/// statusToLine, then frees status.
std::string consumeStatusLine(strata_status_t status);

/// For "--flag=value" and flag "--flag": sets *out to value and returns
/// true; false for any other argument (a bare "--flag" included).
bool takeFlagValue(const std::string& arg, const char* flag, std::string* out);

/// A whole number from min to max given to flag. On failure returns false
/// and sets *error to "FLAG needs a whole number from MIN to MAX, not
/// 'TEXT'".
bool parseFlagCount(const char* flag, const std::string& text, uint64_t min,
                    uint64_t max, uint64_t* out, std::string* error);

/// The flags strata-run and strata-benchmark share (each tool's --help
/// describes them).
struct RunFlags {
  std::vector<std::string> modules;   // --module=FILE, repeatable
  std::string function = "main";      // --function=NAME
  std::vector<std::string> inputs;    // --input=VALUE, repeatable
  std::string device = "local-task";  // --device=local-sync|local-task
  uint32_t task_workers = 0;          // --task_workers=N (0..1024)
  std::string trace;                  // --trace=FILE.json
  std::string require_signature;      // --require-signature=PUBKEY_FILE
  uint64_t timeout_ms = 0;            // --timeout_ms=N; 0: none
  bool no_native_kernels = false;     // --no-native-kernels
};

/// Applies arg to *flags when it is one of RunFlags' flags. Returns false
/// when it is not one (the tool handles it); true when it is, with *error
/// set (naming the flag and the value) when its value is bad.
bool takeRunFlag(const std::string& arg, RunFlags* flags, std::string* error);

/// Parses the command line of a tool that takes RunFlags: "--help" or "-h"
/// prints usage to stdout and exits 0; RunFlags' flags fill *flags; every
/// other argument goes to `other`, which returns "" when it took it and the
/// error otherwise. An error, or no --module at all, prints "TOOL: error"
/// and the usage to stderr and exits 2.
void parseRunArgs(int argc, char** argv, const char* tool, const char* usage,
                  RunFlags* flags,
                  const std::function<std::string(const std::string&)>& other);

/// Runs `run` with a trace recorder installed (strata/base/trace.h) and
/// writes the trace to `path` as Chrome trace JSON once it returns; just
/// runs it when path is empty. `run` must release every device it made
/// before it returns, so nothing records into the trace after it is
/// written. A path that cannot be written fails before `run` runs. Errors
/// are printed as "<tool>: --trace: ..." and give exit status 1; otherwise
/// returns what `run` returned.
int runWithTrace(const std::string& path, const char* tool,
                 const std::function<int()>& run);

/// The reflection attribute `key` of export `name` of `module` (the
/// compiler records each tensor argument's type as "arg0" = "?x16xf32"),
/// or "" when there is none (strata_vm_module_export_attr_value, as a
/// string). `module` is borrowed.
std::string exportAttr(const strata_vm_module_t* module,
                       const std::string& name, const std::string& key);

}  // namespace strata::tools

#endif  // STRATA_TOOLS_COMMON_CLI_H_
