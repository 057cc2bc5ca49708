// module_signature.cpp - locating, writing and checking Module.signature
// (module_signature.h) with libsodium's Ed25519ph.
#include "module_signature.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "format.h"
#include "module_generated.h"

#if defined(STRATA_HAVE_SODIUM)
#include <sodium.h>
#endif

namespace strata::vm {

namespace {

strata_status_t noSodium() {
  return strata_make_status(STRATA_STATUS_UNIMPLEMENTED,
                            "module signatures need libsodium, which this "
                            "build of Strata does not have (apt-get install "
                            "libsodium-dev, then reconfigure)");
}

#if defined(STRATA_HAVE_SODIUM)
bool sodiumReady() {
  static const bool ready = sodium_init() >= 0;
  return ready;
}

// Feeds the signed message (module_signature.h) to state.
void hashMessage(crypto_sign_state* state, const uint8_t* data, uint64_t offset,
                 uint64_t extent) {
  static const uint8_t kZeros[STRATA_MODULE_SIGNATURE_SIZE] = {};
  crypto_sign_init(state);
  crypto_sign_update(state, data, offset);
  crypto_sign_update(state, kZeros, sizeof(kZeros));
  crypto_sign_update(state, data + offset + STRATA_MODULE_SIGNATURE_SIZE,
                     extent - offset - STRATA_MODULE_SIGNATURE_SIZE);
}

// What signing and verifying share: the key's size (`kind` names it in the
// message), libsodium, and the signature field's place in the image.
strata_status_t locateSignature(const uint8_t* data, size_t size,
                                size_t key_size, size_t expected_key_size,
                                const char* kind, bool* found, uint64_t* offset,
                                uint64_t* extent) {
  if (key_size != expected_key_size) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "an Ed25519 %s key is %u bytes, not %zu", kind,
                              static_cast<unsigned>(expected_key_size),
                              key_size);
  }
  if (!sodiumReady()) {
    return strata_make_status(STRATA_STATUS_INTERNAL,
                              "libsodium failed to initialize");
  }
  return findModuleSignature(data, size, found, offset, extent);
}
#endif

}  // namespace

strata_status_t findModuleSignature(const uint8_t* data, size_t size,
                                    bool* found, uint64_t* offset,
                                    uint64_t* extent) {
  *found = false;
  *offset = 0;
  *extent = 0;
  if (!data || size < STRATA_MODULE_HEADER_SIZE) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "module is truncated: %zu bytes cannot hold the "
                              "%d-byte header",
                              size, STRATA_MODULE_HEADER_SIZE);
  }
  strata_module_header_t h;
  std::memcpy(&h, data, sizeof(h));
  if (std::memcmp(h.magic, STRATA_MODULE_MAGIC, STRATA_MODULE_MAGIC_SIZE) !=
      0) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "not a Strata module: bad magic (expected "
                              "\"%s\")",
                              STRATA_MODULE_MAGIC);
  }
  uint64_t fb_end = 0;
  uint64_t seg_end = 0;
  if (__builtin_add_overflow(h.flatbuffer_offset, h.flatbuffer_size, &fb_end) ||
      __builtin_add_overflow(h.segments_offset, h.segments_size, &seg_end) ||
      fb_end > size || seg_end > size || h.flatbuffer_size < 8 ||
      h.flatbuffer_size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "module header ranges are outside its %zu bytes",
                              size);
  }
  *extent = fb_end > seg_end ? fb_end : seg_end;
  // FlatBuffers reads its scalars in place, which is undefined behaviour on
  // misaligned bytes: an image that is not 8-aligned is verified from an
  // aligned copy of its FlatBuffer (offsets within it are the same).
  const uint8_t* fb = data + h.flatbuffer_offset;
  const size_t fb_size = static_cast<size_t>(h.flatbuffer_size);
  void* copy = nullptr;
  if (reinterpret_cast<uintptr_t>(fb) % 8 != 0) {
    copy = std::malloc(fb_size);
    if (!copy) {
      return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                "out of memory checking a %zu-byte module's "
                                "signature",
                                size);
    }
    std::memcpy(copy, fb, fb_size);
    fb = static_cast<const uint8_t*>(copy);
  }
  flatbuffers::Verifier::Options options;
  options.max_tables = 1u << 24;
  flatbuffers::Verifier verifier(fb, fb_size, options);
  strata_status_t status = nullptr;
  const flatbuffers::Vector<uint8_t>* signature = nullptr;
  if (!schema::VerifyModuleBuffer(verifier)) {
    status = strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                                "FlatBuffer verification failed while "
                                "looking for the module's signature");
  } else if ((signature = schema::GetModule(fb)->signature()) &&
             signature->size() != STRATA_MODULE_SIGNATURE_SIZE) {
    status =
        strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                           "the module's signature is %u bytes, not %d",
                           signature->size(), STRATA_MODULE_SIGNATURE_SIZE);
  } else if (signature) {
    *found = true;
    *offset =
        h.flatbuffer_offset + static_cast<uint64_t>(signature->Data() - fb);
  }
  std::free(copy);
  return status;
}

strata_status_t signModuleImage(uint8_t* data, size_t size,
                                const uint8_t* secret_key,
                                size_t secret_key_size) {
#if defined(STRATA_HAVE_SODIUM)
  bool found = false;
  uint64_t offset = 0;
  uint64_t extent = 0;
  strata_status_t status =
      locateSignature(data, size, secret_key_size, crypto_sign_SECRETKEYBYTES,
                      "secret", &found, &offset, &extent);
  if (status) {
    return status;
  }
  if (!found) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "the module has no signature field to fill");
  }
  crypto_sign_state state;
  hashMessage(&state, data, offset, extent);
  uint8_t signature[STRATA_MODULE_SIGNATURE_SIZE];
  crypto_sign_final_create(&state, signature, nullptr, secret_key);
  std::memcpy(data + offset, signature, sizeof(signature));
  return nullptr;
#else
  (void)data;
  (void)size;
  (void)secret_key;
  (void)secret_key_size;
  return noSodium();
#endif
}

strata_status_t verifyModuleImage(const uint8_t* data, size_t size,
                                  const uint8_t* public_key,
                                  size_t public_key_size) {
#if defined(STRATA_HAVE_SODIUM)
  bool found = false;
  uint64_t offset = 0;
  uint64_t extent = 0;
  strata_status_t status =
      locateSignature(data, size, public_key_size, crypto_sign_PUBLICKEYBYTES,
                      "public", &found, &offset, &extent);
  if (status) {
    return status;
  }
  if (!found) {
    return strata_make_status(STRATA_STATUS_PERMISSION_DENIED,
                              "the module is not signed, and a signature is "
                              "required");
  }
  uint8_t signature[STRATA_MODULE_SIGNATURE_SIZE];
  std::memcpy(signature, data + offset, sizeof(signature));
  crypto_sign_state state;
  hashMessage(&state, data, offset, extent);
  if (crypto_sign_final_verify(&state, signature, public_key) != 0) {
    return strata_make_status(STRATA_STATUS_PERMISSION_DENIED,
                              "the module's signature does not match the "
                              "required public key (modified after signing, "
                              "or signed with another key)");
  }
  return nullptr;
#else
  (void)data;
  (void)size;
  (void)public_key;
  (void)public_key_size;
  return noSodium();
#endif
}

strata_status_t readKeyFile(const char* path, size_t key_size, uint8_t* out) {
  FILE* file = std::fopen(path, "rb");
  if (!file) {
    return strata_make_status(
        errno == ENOENT ? STRATA_STATUS_NOT_FOUND : STRATA_STATUS_UNAVAILABLE,
        "cannot open key file '%s': %s", path, std::strerror(errno));
  }
  // A key file is small: read one byte more than the longest valid form.
  std::vector<uint8_t> bytes(2 * key_size + 3);
  size_t n = std::fread(bytes.data(), 1, bytes.size(), file);
  std::fclose(file);
  bytes.resize(n);
  if (n == key_size) {
    std::memcpy(out, bytes.data(), key_size);
    return nullptr;
  }
  while (!bytes.empty() && (bytes.back() == '\n' || bytes.back() == '\r')) {
    bytes.pop_back();
  }
  auto hex = [](uint8_t c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (bytes.size() == 2 * key_size) {
    bool ok = true;
    for (size_t i = 0; i < key_size && ok; ++i) {
      int hi = hex(bytes[2 * i]);
      int lo = hex(bytes[2 * i + 1]);
      ok = hi >= 0 && lo >= 0;
      out[i] = static_cast<uint8_t>(hi << 4 | lo);
    }
    if (ok) {
      return nullptr;
    }
  }
  return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                            "key file '%s' holds neither %zu raw bytes nor "
                            "%zu hexadecimal digits",
                            path, key_size, 2 * key_size);
}

}  // namespace strata::vm
