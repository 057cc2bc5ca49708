// crc32c.cpp - CRC-32C: the SSE4.2 instruction where the CPU has it (checked
// once), a byte table elsewhere.
#include "strata/base/crc32c.h"

#include <cstring>

namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;  // reflected Castagnoli

struct Table {
  uint32_t entries[256];
  constexpr Table() : entries() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t crc = i;
      for (int k = 0; k < 8; ++k) {
        crc = (crc >> 1) ^ ((crc & 1) ? kPolynomial : 0);
      }
      entries[i] = crc;
    }
  }
};
constexpr Table kTable;

uint32_t crcTable(uint32_t crc, const uint8_t* p, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    crc = kTable.entries[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
  }
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crcSse42(uint32_t crc,
                                                   const uint8_t* p,
                                                   size_t size) {
  uint64_t c = crc;
  while (size >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = __builtin_ia32_crc32di(c, word);
    p += 8;
    size -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (size > 0) {
    c32 = __builtin_ia32_crc32qi(c32, *p);
    ++p;
    --size;
  }
  return c32;
}

bool haveSse42() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#endif

}  // namespace

extern "C" uint32_t strata_crc32c(uint32_t crc, const void* data,
                                  size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
#if defined(__x86_64__)
  if (haveSse42()) {
    return ~crcSse42(crc, p, size);
  }
#endif
  return ~crcTable(crc, p, size);
}
