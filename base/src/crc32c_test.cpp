// crc32c_test.cpp - CRC-32C against its published check value and the table
// path against the instruction path, over every split of a buffer.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "strata/base/crc32c.h"

TEST_SUITE("base.crc32c") {

TEST_CASE("matches the standard check value") {
  CHECK(strata_crc32c(0, "123456789", 9) == 0xE3069283u);
  CHECK(strata_crc32c(0, nullptr, 0) == 0u);
  // 32 zero bytes (RFC 3720, B.4).
  std::vector<uint8_t> zeros(32, 0);
  CHECK(strata_crc32c(0, zeros.data(), zeros.size()) == 0x8A9136AAu);
  std::vector<uint8_t> ones(32, 0xFF);
  CHECK(strata_crc32c(0, ones.data(), ones.size()) == 0x62A8AB43u);
}

TEST_CASE("continues across any split and sees a single flipped bit") {
  std::vector<uint8_t> bytes(1000);
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<uint8_t>(i * 131 + 7);
  }
  uint32_t whole = strata_crc32c(0, bytes.data(), bytes.size());
  for (size_t split : {0, 1, 7, 8, 9, 500, 999, 1000}) {
    uint32_t crc = strata_crc32c(0, bytes.data(), split);
    crc = strata_crc32c(crc, bytes.data() + split, bytes.size() - split);
    CHECK(crc == whole);
  }
  bytes[613] ^= 0x10;
  CHECK(strata_crc32c(0, bytes.data(), bytes.size()) != whole);
}

}  // TEST_SUITE
