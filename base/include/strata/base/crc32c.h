/* crc32c.h - CRC-32C (Castagnoli), the checksum of module segments.
 *
 * Chosen for speed where it matters (SSE4.2 has an instruction for it, so a
 * large rodata segment is checked at several GB/s when a module loads) and
 * because it catches every burst error up to 32 bits; it is not a defence
 * against deliberate changes (signatures are, docs/security.md).
 *
 * C99 and C++. Thread-safe.
 */
#ifndef STRATA_BASE_CRC32C_H_
#define STRATA_BASE_CRC32C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Continues a CRC-32C: pass 0 to start. strata_crc32c(0, "123456789", 9)
 * is 0xE3069283. data may be NULL when size is 0. */
uint32_t strata_crc32c(uint32_t crc, const void* data, size_t size);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif /* STRATA_BASE_CRC32C_H_ */
