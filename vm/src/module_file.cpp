// module_file.cpp - reads a module file safely: the 64-byte header first,
// then exactly the extent it declares, into checked allocations.
//
// Nothing a file can hold makes this abort or read without bound: a
// directory is refused, a file that does not start with the module magic is
// refused after 64 bytes (so /dev/zero and /dev/urandom fail at once), a
// regular file shorter than its header declares is refused before anything
// is allocated, and other files (pipes, devices) are read only up to
// STRATA_MAX_STREAMED_MODULE_SIZE. Allocation failure is RESOURCE_EXHAUSTED.
#include <cerrno>
#include <cinttypes>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "module_signature.h"
#include "strata/vm/module.h"

namespace {

// Fills buffer with size bytes from fd; returns how many were read before
// end of file (fewer than size only at the end), or -1 with errno set.
int64_t readFully(int fd, uint8_t* buffer, uint64_t size) {
  uint64_t done = 0;
  while (done < size) {
    uint64_t want = size - done;
    if (want > (uint64_t{1} << 30)) {
      want = uint64_t{1} << 30;
    }
    ssize_t n = ::read(fd, buffer + done, static_cast<size_t>(want));
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return -1;
    }
    if (n == 0) {
      break;
    }
    done += static_cast<uint64_t>(n);
  }
  return static_cast<int64_t>(done);
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) {
      ::close(fd);
    }
  }
};

strata_status_t openError(const char* path, int error) {
  strata_status_code_t code = STRATA_STATUS_UNAVAILABLE;
  if (error == ENOENT || error == ENOTDIR) {
    code = STRATA_STATUS_NOT_FOUND;
  } else if (error == EACCES || error == EPERM) {
    code = STRATA_STATUS_PERMISSION_DENIED;
  }
  return strata_make_status(code, "cannot open module file '%s': %s", path,
                            std::strerror(error));
}

}  // namespace

extern "C" {

strata_status_t strata_vm_module_file_read(const char* path,
                                           strata_allocator_t allocator,
                                           uint8_t** out_data,
                                           size_t* out_size) {
  *out_data = nullptr;
  *out_size = 0;
  if (!path) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "module path is NULL");
  }
  Fd file;
  do {
    file.fd = ::open(path, O_RDONLY | O_CLOEXEC);
  } while (file.fd < 0 && errno == EINTR);
  if (file.fd < 0) {
    return openError(path, errno);
  }
  struct stat st;
  if (::fstat(file.fd, &st) != 0) {
    return openError(path, errno);
  }
  if (S_ISDIR(st.st_mode)) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "module file '%s' is a directory", path);
  }
  const bool regular = S_ISREG(st.st_mode);

  strata_module_header_t header;
  int64_t got = readFully(file.fd, reinterpret_cast<uint8_t*>(&header),
                          sizeof(header));
  if (got < 0) {
    return strata_make_status(STRATA_STATUS_DATA_LOSS,
                              "cannot read module file '%s': %s", path,
                              std::strerror(errno));
  }
  if (static_cast<uint64_t>(got) < sizeof(header)) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "module file '%s': module is truncated: %" PRId64
        " bytes cannot hold the %d-byte header",
        path, got, STRATA_MODULE_HEADER_SIZE);
  }
  if (std::memcmp(header.magic, STRATA_MODULE_MAGIC,
                  STRATA_MODULE_MAGIC_SIZE) != 0) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "module file '%s': not a Strata module: bad magic (expected \"%s\")",
        path, STRATA_MODULE_MAGIC);
  }
  // The extent the header declares: the end of the FlatBuffer or of the
  // segment area, whichever is later. The loader checks both ranges again
  // against what is read; here they only bound the read.
  uint64_t fb_end = 0;
  uint64_t seg_end = 0;
  if (__builtin_add_overflow(header.flatbuffer_offset, header.flatbuffer_size,
                             &fb_end) ||
      __builtin_add_overflow(header.segments_offset, header.segments_size,
                             &seg_end)) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "module file '%s': the header's ranges overflow",
                              path);
  }
  uint64_t extent = fb_end > seg_end ? fb_end : seg_end;
  if (extent < sizeof(header)) {
    extent = sizeof(header);
  }
  if (extent > STRATA_MAX_MODULE_SIZE) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "module file '%s': the header declares %" PRIu64
        " bytes, over the %" PRIu64 "-byte module limit",
        path, extent, static_cast<uint64_t>(STRATA_MAX_MODULE_SIZE));
  }
  if (regular && extent > static_cast<uint64_t>(st.st_size)) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "module file '%s': module is truncated: the header declares %" PRIu64
        " bytes, the file has %" PRIu64,
        path, extent, static_cast<uint64_t>(st.st_size));
  }
  if (!regular && extent > STRATA_MAX_STREAMED_MODULE_SIZE) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "module file '%s' is not a regular file and its header declares "
        "%" PRIu64 " bytes, over the %" PRIu64
        "-byte limit for streamed modules",
        path, extent, static_cast<uint64_t>(STRATA_MAX_STREAMED_MODULE_SIZE));
  }
  if (extent > SIZE_MAX) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "module file '%s' (%" PRIu64
                              " bytes) does not fit in this address space",
                              path, extent);
  }
  auto* data = static_cast<uint8_t*>(strata_allocator_alloc(
      allocator, static_cast<size_t>(extent), STRATA_MODULE_SEGMENT_ALIGNMENT));
  if (!data) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "module file '%s': out of memory for its %" PRIu64
                              " bytes",
                              path, extent);
  }
  std::memcpy(data, &header, sizeof(header));
  got = readFully(file.fd, data + sizeof(header), extent - sizeof(header));
  if (got < 0) {
    int error = errno;
    strata_allocator_free(allocator, data);
    return strata_make_status(STRATA_STATUS_DATA_LOSS,
                              "cannot read module file '%s': %s", path,
                              std::strerror(error));
  }
  if (static_cast<uint64_t>(got) < extent - sizeof(header)) {
    strata_allocator_free(allocator, data);
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "module file '%s': module is truncated: the header declares %" PRIu64
        " bytes, the file ended after %" PRIu64,
        path, extent, static_cast<uint64_t>(got) + sizeof(header));
  }
  *out_data = data;
  *out_size = static_cast<size_t>(extent);
  return nullptr;
}

namespace {
// Puts "module file '<path>': " in front of a status's message.
strata_status_t prefixPath(strata_status_t status, const char* path) {
  if (!status) {
    return nullptr;
  }
  strata_status_t named =
      strata_make_status(strata_status_code(status), "module file '%s': %s",
                         path, strata_status_message(status));
  for (size_t i = 0; i < strata_status_annotation_count(status); ++i) {
    named = strata_status_annotate(named, "%s",
                                   strata_status_annotation(status, i));
  }
  strata_status_free(status);
  return named;
}

void releaseFileBytes(void* user, const uint8_t* data, size_t /*size*/) {
  auto* allocator = static_cast<strata_allocator_t*>(user);
  strata_allocator_free(*allocator, const_cast<uint8_t*>(data));
  strata_allocator_free(*allocator, allocator);
}
}  // namespace

strata_status_t strata_vm_module_verify_signature(const uint8_t* data,
                                                  size_t size,
                                                  const uint8_t* public_key,
                                                  size_t public_key_size) {
  if (!public_key) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "the public key is NULL");
  }
  return strata::vm::verifyModuleImage(data, size, public_key,
                                       public_key_size);
}

strata_status_t strata_vm_key_file_read(const char* path, uint8_t* out_key,
                                        size_t key_size) {
  if (!path) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "key file path is NULL");
  }
  return strata::vm::readKeyFile(path, key_size, out_key);
}

strata_status_t strata_vm_bytecode_module_load_file(
    strata_vm_instance_t* instance, const char* path,
    const uint8_t* required_public_key, strata_allocator_t allocator,
    strata_vm_module_t** out_module) {
  *out_module = nullptr;
  uint8_t* data = nullptr;
  size_t size = 0;
  strata_status_t status =
      strata_vm_module_file_read(path, allocator, &data, &size);
  if (status) {
    return status;
  }
  if (required_public_key) {
    status = strata_vm_module_verify_signature(
        data, size, required_public_key, STRATA_VM_MODULE_PUBLIC_KEY_SIZE);
    if (status) {
      strata_allocator_free(allocator, data);
      return prefixPath(status, path);
    }
  }
  auto* holder = static_cast<strata_allocator_t*>(strata_allocator_alloc(
      allocator, sizeof(strata_allocator_t), alignof(strata_allocator_t)));
  if (!holder) {
    strata_allocator_free(allocator, data);
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "module file '%s': out of memory", path);
  }
  *holder = allocator;
  status = strata_vm_bytecode_module_load(instance, data, size,
                                          releaseFileBytes, holder, allocator,
                                          out_module);
  return prefixPath(status, path);
}

}  // extern "C"
