// model_compiler.h - compiling a repository's model.onnx when it is loaded:
// strata-compile runs as a child process, its .vmfb cached under a key of
// the ONNX file's content, the compiler and its flags, with a timeout.
//
// Threading: compileModel blocks (reading, hashing, waiting for the child)
// and runs on a worker thread (uv_queue_work), never on the HTTP loop; it
// touches nothing shared but the cache files and the cancel flag.
#ifndef STRATA_TOOLS_STRATA_SERVE_MODEL_COMPILER_H_
#define STRATA_TOOLS_STRATA_SERVE_MODEL_COMPILER_H_

#include <atomic>
#include <cstdint>
#include <string>

namespace strata::service {

struct CompileRequest {
  /// strata-compile's path.
  std::string compiler;
  /// <repo>/<model>/<version>/model.onnx.
  std::string onnx_path;
  /// Where the .vmfb goes ("" : beside model.onnx).
  std::string cache_dir;
  /// Names the cached file (<label>.<key>.vmfb): the model's name.
  std::string label;
  /// The child is killed past this (0: no limit).
  uint64_t timeout_ms = 0;
};

struct CompileResult {
  /// The .vmfb to load ("" on failure).
  std::string vmfb_path;
  /// Whether it was in the cache already (no compile ran).
  bool cached = false;
  /// Why it failed: the compiler's first lines of output, a timeout, a
  /// file that cannot be read or written.
  std::string error;
};

/// The flags strata-serve compiles a model.onnx with (besides -o).
constexpr const char* kCompileFlags = "--async-exports";

/// Compiles request.onnx_path unless its key's .vmfb is cached: the key
/// is a 64-bit FNV-1a hash of the ONNX file's bytes, kCompileFlags and the
/// compiler's path, size and modification time. The compiler writes to a
/// temporary file renamed into place when it succeeds, its output to
/// <vmfb>.log (kept on failure). A compile that succeeds removes the
/// label's other entries from the cache directory. When cancel becomes true
/// the child is killed and the result says so.
CompileResult compileModel(const CompileRequest& request,
                           const std::atomic<bool>& cancel);

}  // namespace strata::service

#endif  // STRATA_TOOLS_STRATA_SERVE_MODEL_COMPILER_H_
