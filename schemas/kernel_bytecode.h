/* kernel_bytecode.h - the portable target's kernel bytecode
 * ("portable-bytecode-v1"): the encoding the compiler writes
 * (compiler/lib/Target/Portable) and the runtime verifies and interprets
 * (hal/src/portable_*.cpp). The numbers are in kernel_opcodes.def.
 *
 * C++17, no dependencies besides <stdint.h>.
 *
 * Program (all words little-endian u32; i64/u64 are two words, low first)
 * -------
 *
 *   magic 'SKBC' | version | table digest | export count | export...
 *
 *   export:  name length L (1..255) | ceil(L/4) words of name bytes
 *            binding count B | constant count C
 *            B x u64 binding bytes   (what the code may touch of each)
 *            temporary count T | T x u64 temporary bytes
 *            constant data count D | D x (u64 bytes | padding words P (0 or
 *              1, so the data starts 8-byte aligned in the program) | P
 *              zero words | ceil(bytes/4) words of data)
 *            register count | code word count W | W words of code
 *
 * Slots: an operand names slot s: a binding for s < B, temporary s-B for
 * s < B+T (scratch in the workgroup's local memory, after the registers),
 * else constant data s-B-T (read-only: no instruction writes it).
 *
 * Code: a sequence of instructions (kernel_opcodes.def STRATA_KINST):
 *
 *   generic:  1 | rank R (1..12) | R x size | R x loop (a permutation of the
 *             dimensions, outermost first; the last is the vector loop)
 *             | vector (1: the last loop runs in chunks of up to
 *             kKernelChunk lanes; 0: one lane at a time)
 *             | operand count N (1..16) | output count K (1..N; the last K)
 *             | N x operand | body count I | I x body instruction
 *             | K x yield register (stored into the K outputs)
 *   operand:  slot | type | i64 offset | R x i64 stride (elements per step
 *             of each dimension; the element at iteration i is
 *             offset + sum(i[d] * stride[d]))
 *   body:     op | type << 8 | aux << 16,  d, a, b, c  (five words); the
 *             type is a register type (never f16 or bf16: a load of an
 *             f16/bf16 operand is typed f32, and so is what an f16/bf16
 *             output stores)
 *
 *   matmul:   2 | batch | M | N | K | 3 x matrix (A: MxK, B: KxN, C: MxN)
 *   matrix:   slot | type (f32, f16 or bf16) | i64 offset
 *             | i64 batch stride | i64 row stride | i64 column stride
 *             An f32 C accumulates in f32 (f16/bf16 A or B widened
 *             exactly); an f16/bf16 C needs A and B of its type and rounds
 *             each product and each sum to it (to nearest even), in order
 *             of k, as an f16/bf16 multiply-add body computes it.
 *
 *   shape:    3 | value count V (1..kMaxValues) | V x (op | a | b)
 *             | requirement count Q | Q x (slot | value)
 *             | patch count P | P x (field | value)
 *             Only as the first instruction, for exports with dynamic
 *             shapes. Each dispatch call computes the values
 *             (kernel_opcodes.def STRATA_KVALUE; value i reads only values
 *             before it), checks that each binding named by a requirement
 *             holds at least V[value] bytes, gives each temporary named by
 *             one V[value] bytes of local memory (after everything else;
 *             the export then asks for kMaxLocalMemory and each dispatch
 *             checks what it gets), the slot's table entry being 0 and
 *             each slot named once; and writes V[value] into code word
 *             `field` (an
 *             index into the export's code, after this instruction) of a
 *             copy of the code it runs. A patch names the first word of a
 *             size (a generic's dimension, a matmul's batch, M, N or K, a
 *             gather's extent: V must lie in [0, 2^30]) or, with
 *             kPatchWide set in `field`, of an i64 offset or stride or the
 *             immediate of an i64 const body instruction (both words
 *             written); each word at most once. The interpreter
 *             skips the instruction.
 *
 * Workgroups: a dispatch over a grid of X workgroups (y and z: 1) runs,
 * in workgroup x, share x of X of each instruction's outermost loop (a
 * generic's first loop, when it has two or more; otherwise workgroup 0
 * runs it) or of a matmul's batches (when there are several) else of its
 * blocks of 4 rows. The compiler gives a grid larger than 1 only to exports
 * whose one instruction splits so without a race.
 *
 * The verifier proves, for every operand and matrix, that the smallest
 * element it reaches over the loop bounds is >= 0 and the largest lies
 * inside its slot's bytes; a dispatch then only checks that each binding it
 * is given holds the bytes the export declared. An access whose sizes,
 * offset or strides are patched, or whose slot has a requirement, is
 * proved the same way once per dispatch call, on the patched code, before
 * any element is touched (never per access). */
#ifndef STRATA_SCHEMAS_KERNEL_BYTECODE_H_
#define STRATA_SCHEMAS_KERNEL_BYTECODE_H_

#include <stdint.h>

namespace strata::kernel {

inline constexpr const char* kFormat = "portable-bytecode-v1";
inline constexpr uint32_t kMagic = 0x43424B53u;  // "SKBC"
inline constexpr uint32_t kVersion = 1;

// Limits the verifier enforces (and the encoder respects).
inline constexpr uint32_t kMaxRank = 12;
inline constexpr uint32_t kMaxOperands = 16;
inline constexpr uint32_t kMaxRegisters = 1024;
inline constexpr uint32_t kMaxBindings = 64;
inline constexpr uint32_t kMaxConstants = 256;
inline constexpr uint32_t kMaxTemporaries = 64;
inline constexpr uint32_t kMaxConstantData = 64;
inline constexpr uint32_t kMaxNameLength = 255;
// Lanes of a register, and bytes of one lane.
inline constexpr uint32_t kChunk = 64;
inline constexpr uint32_t kLaneBytes = 8;
inline constexpr uint32_t kRegisterBytes = kChunk * kLaneBytes;
// Workgroup local memory an export may ask for (registers + temporaries);
// the devices' limit.
inline constexpr uint64_t kMaxLocalMemory = 64ull << 20;
inline constexpr uint32_t kBodyWords = 5;
// Values of a shape instruction, and the largest patched size.
inline constexpr uint32_t kMaxValues = 256;
inline constexpr uint32_t kMaxPatchedSize = 1u << 30;
inline constexpr uint32_t kPatchWide = 1u << 31;

enum class Type : uint8_t {
#define STRATA_KTYPE(name, number, bytes, mnemonic) name = number,
#include "kernel_opcodes.def"
};
inline constexpr uint32_t kTypeCount = 0
#define STRATA_KTYPE(name, number, bytes, mnemonic) +1
#include "kernel_opcodes.def"
    ;

enum class Inst : uint32_t {
#define STRATA_KINST(name, number, mnemonic) name = number,
#include "kernel_opcodes.def"
};

enum class Value : uint32_t {
#define STRATA_KVALUE(name, number, mnemonic) name = number,
#include "kernel_opcodes.def"
};

constexpr const char* valueName(uint32_t number) {
  switch (number) {
#define STRATA_KVALUE(name, number, mnemonic) \
  case number: return mnemonic;
#include "kernel_opcodes.def"
    default: return nullptr;
  }
}

enum class OpKind : uint8_t {
  Load,
  Const,
  Index,
  Push,
  Gather,
  Unary,
  Binary,
  Compare,
  Select,
  Cast
};

enum class Op : uint8_t {
#define STRATA_KOP(name, number, mnemonic, kind, types) name = number,
#include "kernel_opcodes.def"
};

struct OpInfo {
  bool valid;
  OpKind kind;
  char types;  // 'f', 'i' or 'a'
  const char* mnemonic;
};

// Row of each op number (valid false for unused numbers).
constexpr OpInfo opInfo(uint32_t number) {
  switch (number) {
#define STRATA_KOP(name, number, mnemonic, kind, types) \
  case number: return {true, OpKind::kind, types, mnemonic};
#include "kernel_opcodes.def"
    default: return {false, OpKind::Load, 0, nullptr};
  }
}

// Bytes of a type in memory (0 for numbers that are no type).
constexpr uint32_t typeBytes(uint32_t number) {
  switch (number) {
#define STRATA_KTYPE(name, number, bytes, mnemonic) \
  case number: return bytes;
#include "kernel_opcodes.def"
    default: return 0;
  }
}

constexpr const char* typeName(uint32_t number) {
  switch (number) {
#define STRATA_KTYPE(name, number, bytes, mnemonic) \
  case number: return mnemonic;
#include "kernel_opcodes.def"
    default: return "?";
  }
}

constexpr bool isFloatType(uint32_t number) {
  return number == static_cast<uint32_t>(Type::F32) ||
         number == static_cast<uint32_t>(Type::F64);
}

// Types only memory holds (f16, bf16): registers hold them as f32.
constexpr bool isMemoryOnlyType(uint32_t number) {
  return number == static_cast<uint32_t>(Type::F16) ||
         number == static_cast<uint32_t>(Type::BF16);
}

// Whether a register of `type` may be loaded from (or stored to) an operand
// of `memory`: the same type, or f32 for a memory-only type.
constexpr bool loadsAs(uint32_t memory, uint32_t type) {
  return memory == type ||
         (isMemoryOnlyType(memory) && type == static_cast<uint32_t>(Type::F32));
}

// FNV-1a over every row (kind, number, mnemonic): both sides compute it from
// the table they were built with; a program carries the compiler's.
constexpr uint32_t fnvText(uint32_t hash, const char* text) {
  for (; *text; ++text) {
    hash = (hash ^ static_cast<uint8_t>(*text)) * 16777619u;
  }
  return hash;
}
constexpr uint32_t fnvWord(uint32_t hash, uint32_t value) {
  for (int i = 0; i < 4; ++i) {
    hash = (hash ^ ((value >> (8 * i)) & 0xFFu)) * 16777619u;
  }
  return hash;
}
constexpr uint32_t tableDigest() {
  uint32_t hash = 2166136261u;
#define STRATA_KTYPE(name, number, bytes, mnemonic) \
  hash = fnvText(fnvWord(fnvWord(hash, number), bytes), mnemonic);
#define STRATA_KINST(name, number, mnemonic) \
  hash = fnvText(fnvWord(hash, 1000 + number), mnemonic);
#define STRATA_KVALUE(name, number, mnemonic) \
  hash = fnvText(fnvWord(hash, 3000 + number), mnemonic);
#define STRATA_KOP(name, number, mnemonic, kind, types)                \
  hash = fnvText(fnvWord(fnvWord(fnvWord(hash, 2000 + number),         \
                                 static_cast<uint32_t>(OpKind::kind)), \
                         static_cast<uint32_t>(types)),                \
                 mnemonic);
#include "kernel_opcodes.def"
  return hash;
}
inline constexpr uint32_t kTableDigest = tableDigest();

}  // namespace strata::kernel

#endif  // STRATA_SCHEMAS_KERNEL_BYTECODE_H_
