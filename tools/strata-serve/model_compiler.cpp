// model_compiler.cpp - strata-compile as a child process for a model.onnx
// at load, with a content-keyed cache and a timeout; see model_compiler.h.
#include "model_compiler.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace strata::service {

namespace {

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr uint64_t kFnvPrime = 0x100000001b3ull;

void fnv(uint64_t* hash, const void* data, size_t size) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t h = *hash;
  for (size_t i = 0; i < size; ++i) {
    h = (h ^ p[i]) * kFnvPrime;
  }
  *hash = h;
}

void fnvText(uint64_t* hash, const std::string& text) {
  fnv(hash, text.data(), text.size());
  fnv(hash, "", 1);  // a separator: ("ab", "c") differs from ("a", "bc")
}

std::string directoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// The first lines of the compiler's output, for a model's reason.
std::string firstLines(const std::string& path) {
  constexpr size_t kLines = 6;
  constexpr size_t kChars = 1200;
  std::ifstream in(path);
  std::string out;
  std::string line;
  size_t lines = 0;
  while (lines < kLines && std::getline(in, line)) {
    if (line.empty()) {
      continue;
    }
    out += (out.empty() ? "" : "\n") + line;
    ++lines;
  }
  if (out.size() > kChars) {
    out = out.substr(0, kChars) + "...";
  } else if (std::getline(in, line)) {
    out += "\n...";
  }
  return out;
}

}  // namespace

// Removes the other entries of `label` from the cache directory `dir`
// (<label>.<16 hex digits>.vmfb and their .log): an earlier model.onnx's,
// or one compiled by another compiler or with other flags. Only the newest
// module of a model is served, so the cache holds one entry per model
// rather than one per change. A module loaded already stays valid (its
// file is unlinked, not overwritten); another compile's temporary file is
// left alone.
namespace {

void pruneCache(const std::string& dir, const std::string& label,
                const std::string& keep) {
  DIR* directory = opendir(dir.c_str());
  if (!directory) {
    return;
  }
  std::string prefix = label + ".";
  std::vector<std::string> stale;
  while (struct dirent* entry = readdir(directory)) {
    std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) {
      continue;
    }
    std::string rest = name.substr(prefix.size());
    if (rest.size() < 16 || rest.find_first_not_of("0123456789abcdef") < 16) {
      continue;
    }
    std::string suffix = rest.substr(16);
    if (suffix != ".vmfb" && suffix != ".vmfb.log") {
      continue;
    }
    std::string path = dir + "/" + name;
    if (path != keep) {
      stale.push_back(path);
    }
  }
  closedir(directory);
  for (const std::string& path : stale) {
    unlink(path.c_str());
  }
}

}  // namespace

CompileResult compileModel(const CompileRequest& request,
                           const std::atomic<bool>& cancel) {
  CompileResult result;
  // The key: the ONNX file's bytes, the flags and the compiler's identity.
  uint64_t key = kFnvOffset;
  {
    std::ifstream in(request.onnx_path, std::ios::binary);
    if (!in) {
      result.error =
          request.onnx_path + ": cannot be read (" + std::strerror(errno) + ")";
      return result;
    }
    std::vector<char> buffer(1 << 20);
    while (in) {
      in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      fnv(&key, buffer.data(), static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) {
      result.error = request.onnx_path + ": read error";
      return result;
    }
  }
  struct stat compiler_stat;
  if (stat(request.compiler.c_str(), &compiler_stat) != 0) {
    result.error = "the compiler " + request.compiler +
                   " cannot be found: " + std::strerror(errno);
    return result;
  }
  fnvText(&key, kCompileFlags);
  fnvText(&key, request.compiler);
  fnvText(&key, std::to_string(compiler_stat.st_size) + "." +
                    std::to_string(compiler_stat.st_mtim.tv_sec) + "." +
                    std::to_string(compiler_stat.st_mtim.tv_nsec));
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx",
                static_cast<unsigned long long>(key));
  std::string dir = request.cache_dir.empty() ? directoryOf(request.onnx_path)
                                              : request.cache_dir;
  std::string vmfb = dir + "/" + request.label + "." + hex + ".vmfb";
  struct stat cached;
  if (stat(vmfb.c_str(), &cached) == 0 && S_ISREG(cached.st_mode)) {
    result.vmfb_path = vmfb;
    result.cached = true;
    return result;
  }

  // Compile to a temporary name, renamed into place on success, so that a
  // cache entry is always a whole module.
  std::string temporary = vmfb + ".tmp" + std::to_string(getpid());
  std::string log = vmfb + ".log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::string flags = kCompileFlags;
  std::vector<std::string> args = {request.compiler, flags, request.onnx_path,
                                   "-o", temporary};
  std::vector<char*> argv;
  for (std::string& arg : args) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);
  // The log file must be creatable: posix_spawn reports a failed open
  // only as the child's exit status 127.
  int probe = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (probe < 0) {
    posix_spawn_file_actions_destroy(&actions);
    result.error = "cannot write the compile cache " + dir + " (" +
                   std::strerror(errno) +
                   "); give --compile-cache=DIR a writable directory";
    return result;
  }
  close(probe);
  // Its own process group, so that a kill reaches whatever it started.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, request.compiler.c_str(), &actions, &attributes,
                       argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) {
    result.error = "cannot run " + request.compiler + ": " + std::strerror(rc);
    return result;
  }
  auto start = std::chrono::steady_clock::now();
  int wait_status = 0;
  std::string killed;
  for (;;) {
    pid_t done = waitpid(pid, &wait_status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) {
      break;
    }
    uint64_t elapsed_ms = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - start)
            .count());
    if (killed.empty() && cancel.load()) {
      killed =
          "the compile was cancelled (the server is shutting down or "
          "the model was unloaded)";
    } else if (killed.empty() && request.timeout_ms &&
               elapsed_ms > request.timeout_ms) {
      killed = "strata-compile did not finish within --compile-timeout=" +
               std::to_string(request.timeout_ms) + " ms";
    }
    if (!killed.empty()) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!killed.empty()) {
    unlink(temporary.c_str());
    result.error = killed;
    return result;
  }
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
    unlink(temporary.c_str());
    std::string how =
        WIFEXITED(wait_status)
            ? "exit status " + std::to_string(WEXITSTATUS(wait_status))
            : "signal " + std::to_string(WTERMSIG(wait_status));
    std::string output = firstLines(log);
    result.error = "strata-compile failed (" + how + ")" +
                   (output.empty() ? "" : ": " + output) + " (log: " + log +
                   ")";
    return result;
  }
  if (rename(temporary.c_str(), vmfb.c_str()) != 0) {
    result.error = "cannot rename " + temporary + " to " + vmfb + ": " +
                   std::strerror(errno);
    unlink(temporary.c_str());
    return result;
  }
  unlink(log.c_str());
  pruneCache(dir, request.label, vmfb);
  result.vmfb_path = vmfb;
  return result;
}

}  // namespace strata::service
