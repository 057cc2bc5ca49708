// executable_loader.cpp - loads kernel libraries that are shared objects: from
// a path, or from bytes in memory through a memfd, never a temp file.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "executable_impl.h"

namespace strata::hal {
namespace {

// Longest memfd name Linux accepts, less the NUL (the kernel's limit is 249
// bytes after its "memfd:" prefix).
constexpr size_t kMaxMemfdName = 240;

// At most this many extra descriptor numbers are tried when /proc/self/fd/N
// names a library that is already loaded (see pickUniquePath).
constexpr int kMaxPathProbes = 64;

// Finds the query function of a dlopen()ed library and hands the handle to
// createExecutable, which owns it from here on.
strata_status_t adoptHandle(const char* name, void* handle,
                            strata_allocator_t allocator,
                            strata_hal_executable_t** out_executable) {
  dlerror();
  void* symbol = dlsym(handle, STRATA_HAL_EXECUTABLE_LIBRARY_QUERY_SYMBOL);
  if (!symbol) {
    dlclose(handle);
    return strata_make_status(STRATA_STATUS_NOT_FOUND,
                              "library '%s' does not export %s", name,
                              STRATA_HAL_EXECUTABLE_LIBRARY_QUERY_SYMBOL);
  }
  auto query =
      reinterpret_cast<strata_hal_executable_library_query_fn_t>(symbol);
  return createExecutable(name, query, handle, allocator, out_executable);
}

// Text of the last dlerror() on this thread, or a fallback.
const char* lastDlError() {
  const char* error = dlerror();
  return error ? error : "unknown dlopen error";
}

strata_status_t writeAll(int fd, const uint8_t* data, size_t size,
                         const char* name) {
  while (size) {
    ssize_t written = write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) {
        continue;
      }
      return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                "cannot write library '%s' to a memfd: %s",
                                name, strerror(errno));
    }
    data += written;
    size -= static_cast<size_t>(written);
  }
  return nullptr;
}

// glibc's dlopen() returns an already loaded object whose name equals the
// path, before it looks at the file. A memfd is closed once it is mapped, so
// its number is reused and "/proc/self/fd/N" may already name a live library
// loaded from other bytes. While fd is open no later load can take its
// number, so only libraries loaded earlier can collide; RTLD_NOLOAD finds
// them, and the memfd is then dup()ed to a number no loaded library has.
// Extra descriptors go to extra_fds (closed by the caller).
strata_status_t pickUniquePath(int fd, const char* name, char* path,
                               size_t path_size, int* extra_fds,
                               int* extra_count) {
  int candidate = fd;
  for (int attempt = 0;; ++attempt) {
    snprintf(path, path_size, "/proc/self/fd/%d", candidate);
    void* existing = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!existing) {
      dlerror();  // the expected "not loaded" answer is not an error
      return nullptr;
    }
    dlclose(existing);
    if (attempt == kMaxPathProbes) {
      return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                "cannot load library '%s' from memory: %d "
                                "descriptor paths in a row name loaded "
                                "libraries",
                                name, kMaxPathProbes + 1);
    }
    candidate = fcntl(fd, F_DUPFD_CLOEXEC, candidate + 1);
    if (candidate < 0) {
      return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                "cannot load library '%s' from memory: "
                                "dup of its memfd failed: %s",
                                name, strerror(errno));
    }
    extra_fds[(*extra_count)++] = candidate;
  }
}

}  // namespace
}  // namespace strata::hal

using strata::hal::adoptHandle;
using strata::hal::lastDlError;

extern "C" {

strata_status_t strata_hal_executable_load_file(
    const char* path, strata_allocator_t allocator,
    strata_hal_executable_t** out_executable) {
  if (!path || !out_executable) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "load_file needs a path and an output");
  }
  *out_executable = nullptr;
  if (access(path, F_OK) != 0) {
    return strata_make_status(STRATA_STATUS_NOT_FOUND,
                              "cannot load library '%s': %s", path,
                              strerror(errno));
  }
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "cannot load library '%s': %s", path,
                              lastDlError());
  }
  return adoptHandle(path, handle, allocator, out_executable);
}

strata_status_t strata_hal_executable_load_memory(
    const uint8_t* data, size_t size, const char* name_for_messages,
    strata_allocator_t allocator, strata_hal_executable_t** out_executable) {
  const char* name = name_for_messages ? name_for_messages : "<memory>";
  if (!out_executable) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "load_memory needs an output");
  }
  *out_executable = nullptr;
  if (!data || !size) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "cannot load library '%s' from memory: it is "
                              "empty",
                              name);
  }

  char memfd_name[strata::hal::kMaxMemfdName + 1];
  snprintf(memfd_name, sizeof(memfd_name), "%s", name);
  int fd = memfd_create(memfd_name, MFD_CLOEXEC);
  if (fd < 0) {
    return strata_make_status(errno == ENOSYS
                                  ? STRATA_STATUS_UNIMPLEMENTED
                                  : STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "cannot load library '%s' from memory: "
                              "memfd_create failed: %s",
                              name, strerror(errno));
  }
  int extra_fds[strata::hal::kMaxPathProbes];
  int extra_count = 0;
  char path[32];
  strata_status_t status = strata::hal::writeAll(fd, data, size, name);
  if (!status) {
    status = strata::hal::pickUniquePath(fd, name, path, sizeof(path),
                                         extra_fds, &extra_count);
  }
  void* handle = nullptr;
  if (!status) {
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      status = strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                                  "cannot load library '%s' from memory "
                                  "(%zu bytes): %s",
                                  name, size, lastDlError());
    }
  }
  // The mapping keeps the memfd's pages alive; the descriptors are not needed.
  for (int i = 0; i < extra_count; ++i) {
    close(extra_fds[i]);
  }
  close(fd);
  if (status) {
    return status;
  }
  return adoptHandle(name, handle, allocator, out_executable);
}

}  // extern "C"

strata_status_t strata_hal_executable_load_portable(
    const uint8_t* data, size_t size, const char* name_for_messages,
    strata_allocator_t allocator, strata_hal_executable_t** out_executable) {
  const char* name = name_for_messages ? name_for_messages : "<memory>";
  if (!out_executable) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "load_portable needs an output");
  }
  *out_executable = nullptr;
  if (!data || !size) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "cannot load portable program '%s': it is empty",
                              name);
  }
  return strata::hal::createPortableExecutable(data, size, name, allocator,
                                               out_executable);
}

int strata_hal_executable_is_native(const strata_hal_executable_t* executable) {
  return executable->portable_program == nullptr;
}
