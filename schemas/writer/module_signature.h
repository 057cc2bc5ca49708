// module_signature.h - Ed25519 signatures of module images (format 1.1,
// Module.signature): where the signature sits, and signing and verifying the
// image around it. Shared by the writer (vm/testing's ModuleBuilder) and the
// runtime's signature policy; built with libsodium when it is found, and
// otherwise every call fails with UNIMPLEMENTED naming it.
//
// The signed message is the module's bytes from offset 0 to the end of its
// declared extent (the later of the FlatBuffer's and the segment area's
// ends), with the 64 bytes of Module.signature read as zeros. It is signed
// as Ed25519ph (SHA-512 of the message, libsodium's crypto_sign_init /
// update / final_*), so verifying streams the bytes and copies nothing.
#ifndef STRATA_VM_MODULE_SIGNATURE_H_
#define STRATA_VM_MODULE_SIGNATURE_H_

#include <cstddef>
#include <cstdint>

#include "strata/base/status.h"

namespace strata::vm {

// Finds Module.signature in an untrusted image (any alignment): checks the
// header and verifies the FlatBuffer first. Sets *found and, when found,
// *offset (of its first byte, from the image's start); *extent is the
// declared extent in either case. An image that is not a well-formed module
// is INVALID_ARGUMENT; a signature field that is not 64 bytes too.
strata_status_t findModuleSignature(const uint8_t* data, size_t size,
                                    bool* found, uint64_t* offset,
                                    uint64_t* extent);

// Writes the signature of the image into its Module.signature field, which
// must be present (ModuleBuilder::setSigningKey writes 64 zero bytes there).
// secret_key is libsodium's 64-byte Ed25519 secret key.
strata_status_t signModuleImage(uint8_t* data, size_t size,
                                const uint8_t* secret_key,
                                size_t secret_key_size);

// Checks the image's signature against a 32-byte Ed25519 public key, before
// anything else reads the image. PERMISSION_DENIED when the module is not
// signed or the signature does not match the key. Thread-safe.
strata_status_t verifyModuleImage(const uint8_t* data, size_t size,
                                  const uint8_t* public_key,
                                  size_t public_key_size);

// Reads a key file: key_size raw bytes, or 2 * key_size hexadecimal digits
// (what strata-keygen writes), optionally followed by a newline. Errors name
// the path and what is wrong.
strata_status_t readKeyFile(const char* path, size_t key_size, uint8_t* out);

}  // namespace strata::vm

#endif  // STRATA_VM_MODULE_SIGNATURE_H_
