// module_signature_test.cpp - segment checksums (format 1.1) and module
// signatures: the writer records both, the loader refuses a corrupt
// segment naming it, and the signature policy refuses unsigned, modified
// and otherwise-signed modules.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "format.h"
#include "module_builder.h"
#include "module_signature.h"
#include "strata/vm/module.h"

#if defined(STRATA_HAVE_SODIUM)
#include <sodium.h>
#endif

namespace {

using strata::vm::Opcode;
using namespace strata::vm::testing;

std::string take(strata_status_t status) {
  if (!status) {
    return "";
  }
  std::string text = strata_status_message(status);
  strata_status_free(status);
  return text;
}

void buildSample(ModuleBuilder& b) {
  FunctionBuilder& f = b.addFunction("answer", "0_i");
  f.op(Opcode::ConstI32).i32(42).reg(prim(0));
  f.op(Opcode::Return).list({prim(0)});
  b.addExport("answer", f.index());
  b.addRodata(std::vector<uint8_t>(100, 7));
  b.addRodata(std::vector<uint8_t>(300, 9));
}

// Loads bytes (64-byte aligned copy); returns the error text, "" when OK.
std::string load(const std::vector<uint8_t>& bytes,
                 strata_status_code_t* code = nullptr) {
  strata_vm_instance_t* instance = nullptr;
  REQUIRE(take(strata_vm_instance_create(strata_allocator_system(),
                                         &instance)) == "");
  AlignedBytes image(bytes);
  strata_vm_module_t* module = nullptr;
  strata_status_t status = strata_vm_bytecode_module_load(
      instance, image.data, image.size, nullptr, nullptr,
      strata_allocator_system(), &module);
  if (code) {
    *code = strata_status_code(status);
  }
  std::string text = take(status);
  strata_vm_module_release(module);
  strata_vm_instance_release(instance);
  return text;
}

uint64_t segmentsOffset(const std::vector<uint8_t>& bytes) {
  strata_module_header_t header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  return header.segments_offset;
}

TEST_SUITE("vm.module_signature") {

TEST_CASE("a corrupt segment is a load error naming the segment") {
  ModuleBuilder b("sample");
  buildSample(b);
  std::vector<uint8_t> bytes = b.build();
  CHECK(load(bytes) == "");
  // Rodata 1 starts at 128 in the segment area (64-byte aligned after 100).
  bytes[segmentsOffset(bytes) + 128 + 17] ^= 0x01;
  strata_status_code_t code = STRATA_STATUS_OK;
  std::string error = load(bytes, &code);
  CHECK(code == STRATA_STATUS_DATA_LOSS);
  CHECK(error.rfind("rodata 1 [128, +300) is corrupt: its CRC-32C is 0x", 0) ==
        0);
  CHECK(error.find(", the module records 0x") != std::string::npos);
}

TEST_CASE("a recorded checksum that does not match is refused") {
  ModuleBuilder b("sample");
  buildSample(b);
  b.overrideRodataChecksum(0, 0x12345678u);
  std::string error = load(b.build());
  CHECK(error.rfind("rodata 0 [0, +100) is corrupt: its CRC-32C is 0x", 0) ==
        0);
  CHECK(error.find("the module records 0x12345678") != std::string::npos);
}

TEST_CASE("format 1.1 requires checksums; format 1.0 modules load without") {
  ModuleBuilder b("sample");
  buildSample(b);
  b.omitRodataChecksums();
  std::vector<uint8_t> bytes = b.build();
  CHECK(load(bytes) == "module format 1.1 requires rodata_checksums, and the "
                       "module has 2 rodata segments without them");
  uint16_t minor = 0;
  std::memcpy(bytes.data() + 10, &minor, sizeof(minor));
  CHECK(load(bytes) == "");
}

#if defined(STRATA_HAVE_SODIUM)

struct KeyPair {
  KeyPair() {
    REQUIRE(sodium_init() >= 0);
    crypto_sign_keypair(public_key, secret_key);
  }
  uint8_t public_key[crypto_sign_PUBLICKEYBYTES];
  uint8_t secret_key[crypto_sign_SECRETKEYBYTES];
  std::vector<uint8_t> secret() const {
    return std::vector<uint8_t>(secret_key, secret_key + sizeof(secret_key));
  }
};

std::string verify(const std::vector<uint8_t>& bytes, const uint8_t* key) {
  return take(strata_vm_module_verify_signature(
      bytes.data(), bytes.size(), key, STRATA_VM_MODULE_PUBLIC_KEY_SIZE));
}

TEST_CASE("a signed module verifies and loads") {
  KeyPair keys;
  ModuleBuilder b("sample");
  buildSample(b);
  b.setSigningKey(keys.secret());
  std::vector<uint8_t> bytes = b.build();
  REQUIRE(b.buildError() == "");
  REQUIRE(!bytes.empty());
  CHECK(verify(bytes, keys.public_key) == "");
  CHECK(load(bytes) == "");
  // Any alignment: the verifier streams the bytes in place.
  std::vector<uint8_t> shifted(bytes.size() + 3);
  std::memcpy(shifted.data() + 3, bytes.data(), bytes.size());
  CHECK(take(strata_vm_module_verify_signature(
            shifted.data() + 3, bytes.size(), keys.public_key,
            STRATA_VM_MODULE_PUBLIC_KEY_SIZE)) == "");
}

TEST_CASE("a modified, unsigned or otherwise signed module is refused") {
  KeyPair keys;
  KeyPair other;
  ModuleBuilder b("sample");
  buildSample(b);
  b.setSigningKey(keys.secret());
  std::vector<uint8_t> bytes = b.build();
  const std::string mismatch =
      "the module's signature does not match the required public key "
      "(modified after signing, or signed with another key)";
  CHECK(verify(bytes, other.public_key) == mismatch);
  // One flipped bit in the header's reserved bytes, the FlatBuffer, a
  // segment: each is caught.
  for (size_t at : {size_t{50}, size_t{100}, bytes.size() - 1}) {
    CAPTURE(at);
    std::vector<uint8_t> changed = bytes;
    changed[at] ^= 0x20;
    strata_status_t status = strata_vm_module_verify_signature(
        changed.data(), changed.size(), keys.public_key,
        STRATA_VM_MODULE_PUBLIC_KEY_SIZE);
    CHECK(strata_status_code(status) == STRATA_STATUS_PERMISSION_DENIED);
    CHECK(take(status) == mismatch);
  }
  ModuleBuilder unsigned_builder("sample");
  buildSample(unsigned_builder);
  strata_status_t status = strata_vm_module_verify_signature(
      unsigned_builder.build().data(), unsigned_builder.build().size(),
      keys.public_key, STRATA_VM_MODULE_PUBLIC_KEY_SIZE);
  CHECK(strata_status_code(status) == STRATA_STATUS_PERMISSION_DENIED);
  CHECK(take(status) ==
        "the module is not signed, and a signature is required");
  CHECK(verify(std::vector<uint8_t>(200, 0), keys.public_key) ==
        "not a Strata module: bad magic (expected \"STRATAVM\")");
}

TEST_CASE("signing with a malformed key fails the build") {
  ModuleBuilder b("sample");
  buildSample(b);
  b.setSigningKey(std::vector<uint8_t>(10, 1));
  CHECK(b.build().empty());
  CHECK(b.buildError() == "an Ed25519 secret key is 64 bytes, not 10");
}

#endif  // STRATA_HAVE_SODIUM

}  // TEST_SUITE

}  // namespace
