/* format.h - the Strata module file: header layout, versions, limits and the
 * bytecode instruction encoding. Shared by the compiler and the runtime.
 *
 * This header is C99 and C++ and has no dependencies besides <stdint.h>.
 *
 * File layout
 * -----------
 *
 *   offset 0   strata_module_header_t (64 bytes)
 *   offset 64  FlatBuffer (schemas/module.fbs, identifier "STRM")
 *   ...        zero padding up to a multiple of 64
 *   segments   the segment area: rodata and other large blobs, each one at a
 *              64-byte aligned offset relative to the area's start
 *
 * All integers are little-endian. Every offset and size is validated by the
 * loader with overflow-safe arithmetic before anything else reads it.
 *
 * Instruction encoding
 * --------------------
 *
 * An instruction is an opcode byte followed by its operands, packed with no
 * padding. Operand kinds come from the format string of the opcode's row in
 * opcodes.def, one character per operand:
 *
 *   +--------+----------+----------+-----+
 *   | opcode | operand0 | operand1 | ... |
 *   |  u8    |          |          |     |
 *   +--------+----------+----------+-----+
 *
 *   char  operand                      bytes
 *   ----  ---------------------------  --------------------------------------
 *   a     primitive register           u16, bit 15 clear, index in bits 0-14
 *   r     ref register                 u16, bit 15 set, bit 14 = MOVE,
 *                                      index in bits 0-13
 *   i     i32 immediate                4
 *   l     i64 immediate                8
 *   f     f32 immediate                4
 *   d     f64 immediate                8
 *   B     branch target                u32 byte offset from the function's
 *                                      first instruction; must start a block
 *   F     internal function ordinal    u32
 *   M     import ordinal               u32
 *   w     4-byte global byte offset    u32, 4-aligned, inside global memory
 *   W     8-byte global byte offset    u32, 8-aligned, inside global memory
 *   G     ref global ordinal           u32
 *   D     rodata ordinal               u32
 *   T     type ordinal                 u32 (module.types)
 *   S     string                       u16 length, then that many bytes
 *   V     register list                u16 count, then count u16 registers
 *                                      (bank taken from bit 15)
 *   P     remap list                   u16 count, then count (src, dst) u16
 *                                      register pairs of the same bank,
 *                                      copied in order
 *   X     branch table cases           u16 count, then count (u32 target,
 *                                      remap list) entries
 *   C     variadic segment sizes       u16 count, then count u16 sizes
 *
 * A register u16 therefore tells its bank by itself:
 *
 *    15 14 13                                   0
 *   +--+--+--------------------------------------+
 *   | 0|  primitive register index (15 bits)     |
 *   +--+--+--------------------------------------+
 *   | 1|MV|  ref register index (14 bits)        |
 *   +--+--+--------------------------------------+
 *
 * Primitive registers are 64-bit slots. i32 and f32 values occupy the low 32
 * bits; an op that reads an i32 looks at the low 32 bits only. i1 values are
 * i32 0 or 1.
 *
 * A MOVE bit on a ref operand that is read means "this is the last use": the
 * instruction takes the reference and clears the register, so no
 * retain/release pair is needed.
 *
 * Calling conventions
 * -------------------
 *
 * A calling convention string is "0" (its version), then one character per
 * argument, then "_", then one character per result:
 *
 *   i i32   I i64   f f32   F f64   r ref
 *
 * In imports, "C" <chars> "D" marks a variadic span: a run of zero or more
 * repetitions of the chars inside. "0iCrD_r" takes an i32, then any number of
 * refs, and returns a ref. A signature may hold several spans (each call
 * gives one repetition count per span, in order); spans may not nest.
 *
 * Evolving this file: append, never renumber. A change that an old runtime
 * cannot read bumps STRATA_FORMAT_VERSION_MAJOR; an addition that old runtimes
 * may ignore bumps STRATA_FORMAT_VERSION_MINOR.
 */
#ifndef STRATA_SCHEMAS_FORMAT_H_
#define STRATA_SCHEMAS_FORMAT_H_

#include <stdint.h>

#define STRATA_MODULE_MAGIC "STRATAVM" /* 8 bytes, no terminator stored */
#define STRATA_MODULE_MAGIC_SIZE 8
#define STRATA_MODULE_FLATBUFFER_IDENTIFIER "STRM"

#define STRATA_FORMAT_VERSION_MAJOR 1
/* 1.1: Module.rodata_checksums (required from 1.1 on) and
 * Module.signature (optional); a 1.0 runtime ignores both. */
#define STRATA_FORMAT_VERSION_MINOR 1

/* Size of Module.signature: an Ed25519 signature. */
#define STRATA_MODULE_SIGNATURE_SIZE 64
#define STRATA_MODULE_PUBLIC_KEY_SIZE 32
#define STRATA_MODULE_SECRET_KEY_SIZE 64

/* Alignment of the FlatBuffer and of every segment. */
#define STRATA_MODULE_SEGMENT_ALIGNMENT 64
#define STRATA_MODULE_HEADER_SIZE 64

/* Limits. The verifier rejects anything beyond them. */
#define STRATA_MAX_MODULE_SIZE ((uint64_t)1 << 36)
#define STRATA_MAX_PRIM_REGISTERS 0x8000u /* 15-bit index */
#define STRATA_MAX_REF_REGISTERS 0x4000u  /* 14-bit index */
#define STRATA_MAX_FUNCTIONS (1u << 20)
#define STRATA_MAX_IMPORTS (1u << 16)
#define STRATA_MAX_FUNCTION_BYTECODE (1u << 24)
#define STRATA_MAX_GLOBAL_PRIM_BYTES (1u << 26)
#define STRATA_MAX_GLOBAL_REFS (1u << 20)
#define STRATA_MAX_CALL_ARGS 0xFFFFu
#define STRATA_MAX_CALLING_CONVENTION 4096u
/* Default maximum depth of nested calls in one invocation. */
#define STRATA_DEFAULT_MAX_CALL_DEPTH 2048u

#define STRATA_REGISTER_REF_BIT 0x8000u
#define STRATA_REGISTER_MOVE_BIT 0x4000u
#define STRATA_REGISTER_PRIM_MASK 0x7FFFu
#define STRATA_REGISTER_REF_MASK 0x3FFFu

/* The fixed file header at offset 0. */
typedef struct strata_module_header_t {
  uint8_t magic[8];            /* STRATA_MODULE_MAGIC */
  uint16_t version_major;      /* STRATA_FORMAT_VERSION_MAJOR */
  uint16_t version_minor;      /* STRATA_FORMAT_VERSION_MINOR */
  uint32_t header_size;        /* STRATA_MODULE_HEADER_SIZE */
  uint64_t flatbuffer_offset;  /* from file start; 64-aligned */
  uint64_t flatbuffer_size;    /* bytes */
  uint64_t segments_offset;    /* from file start; 64-aligned */
  uint64_t segments_size;      /* bytes */
  uint8_t reserved[16];        /* zero */
} strata_module_header_t;

#ifdef __cplusplus
static_assert(sizeof(strata_module_header_t) == 64, "header is 64 bytes");
#else
_Static_assert(sizeof(strata_module_header_t) == 64, "header is 64 bytes");
#endif

#endif /* STRATA_SCHEMAS_FORMAT_H_ */
