// portable_program.cpp - parses and verifies portable-bytecode programs
// (schemas/kernel_bytecode.h) before anything runs them: the header and the
// opcode table's digest, every export's tables, every instruction's opcode,
// types and registers, and for every memory operand the smallest and largest
// element it reaches over its loop bounds against its slot's bytes.
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "kernel_bytecode.h"
#include "portable_program.h"

namespace strata::hal {
namespace {

using kernel::Inst;
using kernel::OpKind;

// Reads words from the program, remembering the first failure.
struct Reader {
  const uint32_t* words;
  size_t count;
  size_t at = 0;
  bool failed = false;
  uint32_t next() {
    if (at >= count) {
      failed = true;
      return 0;
    }
    return words[at++];
  }
  uint64_t next64() {
    uint64_t low = next();
    uint64_t high = next();
    return low | (high << 32);
  }
};

struct Verifier {
  const char* name;
  const char* export_name = "";
  std::string error;

  strata_status_t fail() const {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "portable program '%s': %s", name, error.c_str());
  }
  bool reject(const char* format, ...) __attribute__((format(printf, 2, 3))) {
    char text[320];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof(text), format, args);
    va_end(args);
    if (*export_name) {
      error = std::string("export '") + export_name + "': " + text;
    } else {
      error = text;
    }
    return false;
  }
};

// The smallest and largest element an access reaches: offset plus, per
// dimension, (size - 1) * stride. False on overflow.
bool accessRange(int64_t offset, const uint32_t* sizes, const int64_t* strides,
                 uint32_t rank, int64_t* out_min, int64_t* out_max) {
  int64_t low = offset;
  int64_t high = offset;
  for (uint32_t d = 0; d < rank; ++d) {
    int64_t step = 0;
    if (__builtin_mul_overflow(static_cast<int64_t>(sizes[d]) - 1, strides[d],
                               &step)) {
      return false;
    }
    if (step > 0 ? __builtin_add_overflow(high, step, &high)
                 : __builtin_add_overflow(low, step, &low)) {
      return false;
    }
  }
  *out_min = low;
  *out_max = high;
  return true;
}

struct Slots {
  uint32_t binding_count;
  const uint64_t* binding_bytes;
  uint32_t temporary_count;
  const uint64_t* temporary_bytes;
  uint32_t data_count;
  const uint64_t* data_bytes;
  uint64_t bytes(uint32_t slot) const {
    if (slot < binding_count) {
      return binding_bytes[slot];
    }
    slot -= binding_count;
    return slot < temporary_count ? temporary_bytes[slot]
                                  : data_bytes[slot - temporary_count];
  }
  bool readOnly(uint32_t slot) const {
    return slot >= binding_count + temporary_count;
  }
  uint32_t count() const {
    return binding_count + temporary_count + data_count;
  }
};

// Checks that [min, max] elements of `type` lie inside `slot`.
bool checkRange(Verifier& v, const Slots& slots, uint32_t inst_at,
                const char* what, uint32_t slot, uint32_t type, int64_t min,
                int64_t max) {
  uint64_t bytes = kernel::typeBytes(type);
  uint64_t end = 0;
  if (min < 0 ||
      __builtin_mul_overflow(static_cast<uint64_t>(max) + 1, bytes, &end) ||
      end > slots.bytes(slot)) {
    return v.reject("instruction at word %" PRIu32
                    ": %s reaches elements [%" PRId64 ", %" PRId64
                    "] of %s, outside slot %" PRIu32 " (%" PRIu64 " bytes)",
                    inst_at, what, min, max, kernel::typeName(type), slot,
                    slots.bytes(slot));
  }
  return true;
}

bool verifyGeneric(Verifier& v, Reader& r, const Slots& slots,
                   uint32_t register_count, uint32_t constant_count,
                   uint32_t inst_at) {
  uint32_t rank = r.next();
  if (r.failed || rank < 1 || rank > kernel::kMaxRank) {
    return v.reject("generic at word %" PRIu32 " has rank %" PRIu32
                    " (1..%" PRIu32 ")",
                    inst_at, rank, kernel::kMaxRank);
  }
  uint32_t sizes[kernel::kMaxRank];
  bool empty = false;
  for (uint32_t d = 0; d < rank; ++d) {
    sizes[d] = r.next();
    if (sizes[d] > (1u << 30)) {
      return v.reject("generic at word %" PRIu32 ": dimension %" PRIu32
                      " has %" PRIu32 " iterations (at most 2^30)",
                      inst_at, d, sizes[d]);
    }
    empty |= sizes[d] == 0;
  }
  bool seen[kernel::kMaxRank] = {};
  for (uint32_t d = 0; d < rank; ++d) {
    uint32_t loop = r.next();
    if (loop >= rank || seen[loop]) {
      return v.reject("generic at word %" PRIu32
                      ": loop order is not a permutation of its %" PRIu32
                      " dimensions",
                      inst_at, rank);
    }
    seen[loop] = true;
  }
  uint32_t vector = r.next();
  uint32_t operand_count = r.next();
  uint32_t output_count = r.next();
  if (r.failed) {
    return v.reject("generic at word %" PRIu32 " is truncated", inst_at);
  }
  if (vector > 1 || operand_count < 1 || operand_count > kernel::kMaxOperands ||
      output_count < 1 || output_count > operand_count) {
    return v.reject("generic at word %" PRIu32 " has vector %" PRIu32
                    ", %" PRIu32 " operands and %" PRIu32
                    " outputs (1..%" PRIu32 " operands, 1..operands outputs)",
                    inst_at, vector, operand_count, output_count,
                    kernel::kMaxOperands);
  }
  uint32_t operand_types[kernel::kMaxOperands];
  uint32_t operand_slots[kernel::kMaxOperands];
  int64_t operand_max[kernel::kMaxOperands] = {};
  for (uint32_t i = 0; i < operand_count; ++i) {
    uint32_t slot = r.next();
    uint32_t type = r.next();
    int64_t offset = static_cast<int64_t>(r.next64());
    int64_t strides[kernel::kMaxRank];
    for (uint32_t d = 0; d < rank; ++d) {
      strides[d] = static_cast<int64_t>(r.next64());
    }
    if (r.failed) {
      return v.reject("generic at word %" PRIu32 " is truncated", inst_at);
    }
    if (slot >= slots.count()) {
      return v.reject("generic at word %" PRIu32 ": operand %" PRIu32
                      " names slot %" PRIu32 " of %" PRIu32,
                      inst_at, i, slot, slots.count());
    }
    if (!kernel::typeBytes(type)) {
      return v.reject("generic at word %" PRIu32 ": operand %" PRIu32
                      " has unknown type %" PRIu32,
                      inst_at, i, type);
    }
    operand_types[i] = type;
    operand_slots[i] = slot;
    if (i >= operand_count - output_count && slots.readOnly(slot)) {
      return v.reject("generic at word %" PRIu32 ": output %" PRIu32
                      " writes constant data (slot %" PRIu32 ")",
                      inst_at, i - (operand_count - output_count), slot);
    }
    if (empty) {
      continue;
    }
    int64_t min = 0;
    int64_t max = 0;
    if (!accessRange(offset, sizes, strides, rank, &min, &max)) {
      return v.reject("generic at word %" PRIu32 ": operand %" PRIu32
                      " overflows computing its range",
                      inst_at, i);
    }
    char what[32];
    std::snprintf(what, sizeof(what), "operand %" PRIu32, i);
    if (!checkRange(v, slots, inst_at, what, slot, type, min, max)) {
      return false;
    }
    operand_max[i] = max;
  }
  uint32_t body_count = r.next();
  if (r.failed || body_count > 4096) {
    return v.reject("generic at word %" PRIu32 " has a bad body count",
                    inst_at);
  }
  // Type of each register defined so far in this body (0xFF: undefined).
  uint8_t types[kernel::kMaxRegisters];
  std::memset(types, 0xFF, sizeof(types));
  for (uint32_t i = 0; i < body_count; ++i) {
    uint32_t at = static_cast<uint32_t>(r.at);
    uint32_t head = r.next();
    uint32_t d = r.next();
    uint32_t a = r.next();
    uint32_t b = r.next();
    uint32_t c = r.next();
    if (r.failed) {
      return v.reject("generic at word %" PRIu32 " is truncated", inst_at);
    }
    uint32_t number = head & 0xFF;
    uint32_t type = (head >> 8) & 0xFF;
    uint32_t aux = head >> 16;
    kernel::OpInfo info = kernel::opInfo(number);
    if (!info.valid) {
      return v.reject("body instruction at word %" PRIu32
                      " has unknown opcode %" PRIu32,
                      at, number);
    }
    if (!kernel::typeBytes(type) ||
        (info.types == 'f' && !kernel::isFloatType(type)) ||
        (info.types == 'i' && kernel::isFloatType(type))) {
      return v.reject("body instruction at word %" PRIu32
                      " (%s) has type %" PRIu32 " (%s), which it does not take",
                      at, info.mnemonic, type, kernel::typeName(type));
    }
    if (d >= register_count) {
      return v.reject("body instruction at word %" PRIu32
                      " (%s) writes register %" PRIu32 " of %" PRIu32,
                      at, info.mnemonic, d, register_count);
    }
    auto use = [&](uint32_t reg, uint32_t want) {
      if (reg >= register_count || types[reg] == 0xFF) {
        return v.reject("body instruction at word %" PRIu32
                        " (%s) reads register %" PRIu32
                        ", which is not defined before it",
                        at, info.mnemonic, reg);
      }
      if (want != 0xFF && types[reg] != want) {
        return v.reject("body instruction at word %" PRIu32
                        " (%s) reads register %" PRIu32 " as %s; it holds %s",
                        at, info.mnemonic, reg, kernel::typeName(want),
                        kernel::typeName(types[reg]));
      }
      return true;
    };
    uint32_t result = type;
    const uint32_t kI1 = static_cast<uint32_t>(kernel::Type::I1);
    switch (info.kind) {
      case OpKind::Load:
        if (a >= operand_count || operand_types[a] != type) {
          return v.reject("body instruction at word %" PRIu32
                          " (load) reads operand %" PRIu32
                          " as %s; the generic has %" PRIu32 " operands",
                          at, a, kernel::typeName(type), operand_count);
        }
        break;
      case OpKind::Const: break;
      case OpKind::Gather: {
        if (a >= operand_count || operand_types[a] != type) {
          return v.reject("body instruction at word %" PRIu32
                          " (gather) reads operand %" PRIu32
                          " as %s; the generic has %" PRIu32 " operands",
                          at, a, kernel::typeName(type), operand_count);
        }
        if (!use(b, static_cast<uint32_t>(kernel::Type::I64))) {
          return false;
        }
        // Elements [max, max + c - 1] past the operand's last position.
        int64_t last = 0;
        if (c == 0 || __builtin_add_overflow(
                          operand_max[a], static_cast<int64_t>(c) - 1, &last)) {
          return v.reject("body instruction at word %" PRIu32
                          " (gather) has extent %" PRIu32,
                          at, c);
        }
        if (!empty && !checkRange(v, slots, at, "gather", operand_slots[a],
                                  type, 0, last)) {
          return false;
        }
        break;
      }
      case OpKind::Push: {
        uint32_t words = kernel::typeBytes(type) > 4 ? 2 : 1;
        if (a >= constant_count || words > constant_count - a) {
          return v.reject("body instruction at word %" PRIu32
                          " (push) reads push constant word %" PRIu32
                          " as %s; the export has %" PRIu32 " words",
                          at, a, kernel::typeName(type), constant_count);
        }
        break;
      }
      case OpKind::Index:
        if (a >= rank || type != static_cast<uint32_t>(kernel::Type::I64)) {
          return v.reject("body instruction at word %" PRIu32
                          " (index) of dimension %" PRIu32 " (rank %" PRIu32
                          ") must be i64",
                          at, a, rank);
        }
        break;
      case OpKind::Unary:
        if (!use(a, type)) {
          return false;
        }
        break;
      case OpKind::Binary:
        if (!use(a, type) || !use(b, type)) {
          return false;
        }
        break;
      case OpKind::Compare:
        if (aux > (info.types == 'f' ? 15u : 9u)) {
          return v.reject("body instruction at word %" PRIu32
                          " (%s) has unknown predicate %" PRIu32,
                          at, info.mnemonic, aux);
        }
        if (!use(a, type) || !use(b, type)) {
          return false;
        }
        result = kI1;
        break;
      case OpKind::Select:
        if (!use(a, kI1) || !use(b, type) || !use(c, type)) {
          return false;
        }
        break;
      case OpKind::Cast: {
        if (!use(a, 0xFF)) {
          return false;
        }
        uint32_t from = types[a];
        bool ok = false;
        switch (static_cast<kernel::Op>(number)) {
          case kernel::Op::SIToFP:
          case kernel::Op::UIToFP: ok = !kernel::isFloatType(from); break;
          case kernel::Op::FPToSI:
          case kernel::Op::FPToUI: ok = kernel::isFloatType(from); break;
          case kernel::Op::ExtF:
          case kernel::Op::TruncF: ok = kernel::isFloatType(from); break;
          case kernel::Op::ExtSI:
          case kernel::Op::ExtUI:
          case kernel::Op::TruncI: ok = !kernel::isFloatType(from); break;
          case kernel::Op::Bitcast:
            ok = kernel::typeBytes(from) == kernel::typeBytes(type) &&
                 from != kI1 && type != kI1;
            break;
          default: break;
        }
        if (!ok || aux != from) {
          return v.reject("body instruction at word %" PRIu32
                          " (%s) cannot convert %s to %s",
                          at, info.mnemonic, kernel::typeName(from),
                          kernel::typeName(type));
        }
        break;
      }
    }
    types[d] = static_cast<uint8_t>(result);
  }
  for (uint32_t k = 0; k < output_count; ++k) {
    uint32_t reg = r.next();
    uint32_t operand = operand_count - output_count + k;
    if (r.failed) {
      return v.reject("generic at word %" PRIu32 " is truncated", inst_at);
    }
    if (reg >= register_count || types[reg] != operand_types[operand]) {
      return v.reject(
          "generic at word %" PRIu32 ": output %" PRIu32
          " stores register %" PRIu32 ", which does not hold a defined %s",
          inst_at, k, reg, kernel::typeName(operand_types[operand]));
    }
  }
  return true;
}

bool verifyMatmul(Verifier& v, Reader& r, const Slots& slots,
                  uint32_t inst_at) {
  uint32_t batch = r.next();
  uint32_t m = r.next();
  uint32_t n = r.next();
  uint32_t k = r.next();
  const char* names[3] = {"A", "B", "C"};
  uint32_t rows[3] = {m, k, m};
  uint32_t cols[3] = {k, n, n};
  for (int i = 0; i < 3; ++i) {
    uint32_t slot = r.next();
    uint32_t type = r.next();
    int64_t offset = static_cast<int64_t>(r.next64());
    int64_t strides[3];
    for (int64_t& stride : strides) {
      stride = static_cast<int64_t>(r.next64());
    }
    if (r.failed) {
      return v.reject("matmul at word %" PRIu32 " is truncated", inst_at);
    }
    if (batch > (1u << 30) || m > (1u << 30) || n > (1u << 30) ||
        k > (1u << 30)) {
      return v.reject("matmul at word %" PRIu32 " has sizes past 2^30",
                      inst_at);
    }
    if (slot >= slots.count() ||
        type != static_cast<uint32_t>(kernel::Type::F32)) {
      return v.reject("matmul at word %" PRIu32 ": %s names slot %" PRIu32
                      " of %" PRIu32 " with type %" PRIu32 " (f32 only)",
                      inst_at, names[i], slot, slots.count(), type);
    }
    if (i == 2 && slots.readOnly(slot)) {
      return v.reject("matmul at word %" PRIu32
                      ": C writes constant data (slot %" PRIu32 ")",
                      inst_at, slot);
    }
    if (!batch || !rows[i] || !cols[i]) {
      continue;
    }
    uint32_t sizes[3] = {batch, rows[i], cols[i]};
    int64_t min = 0;
    int64_t max = 0;
    if (!accessRange(offset, sizes, strides, 3, &min, &max)) {
      return v.reject("matmul at word %" PRIu32
                      ": %s overflows computing its range",
                      inst_at, names[i]);
    }
    if (!checkRange(v, slots, inst_at, names[i], slot, type, min, max)) {
      return false;
    }
  }
  return true;
}

bool verifyCode(Verifier& v, const PortableExport& e, const Slots& slots) {
  Reader r{e.code, e.code_words};
  while (r.at < r.count) {
    uint32_t at = static_cast<uint32_t>(r.at);
    uint32_t inst = r.next();
    if (inst == static_cast<uint32_t>(Inst::Generic)) {
      if (!verifyGeneric(v, r, slots, e.register_count, e.constant_count, at)) {
        return false;
      }
    } else if (inst == static_cast<uint32_t>(Inst::Matmul)) {
      if (!verifyMatmul(v, r, slots, at)) {
        return false;
      }
    } else {
      return v.reject("unknown instruction %" PRIu32 " at word %" PRIu32, inst,
                      at);
    }
  }
  return true;
}

}  // namespace

strata_status_t parsePortableProgram(const uint8_t* data, size_t size,
                                     const char* name,
                                     strata_allocator_t allocator,
                                     PortableProgram** out) {
  *out = nullptr;
  Verifier v{name ? name : "<memory>"};
  if (size % 4 != 0 || size < 16) {
    v.reject("%zu bytes is not a whole program (a multiple of 4, at least 16)",
             size);
    return v.fail();
  }
  // One allocation: the program record, then a copy of the words, then the
  // tables (sized from the export count, which is checked first).
  uint32_t head[4];
  std::memcpy(head, data, sizeof(head));
  if (head[0] != kernel::kMagic) {
    v.reject("bad magic 0x%08" PRIx32 " (expected 0x%08" PRIx32 ", '%s')",
             head[0], kernel::kMagic, kernel::kFormat);
    return v.fail();
  }
  if (head[1] != kernel::kVersion) {
    v.reject("bytecode version %" PRIu32 "; this runtime runs version %" PRIu32,
             head[1], kernel::kVersion);
    return v.fail();
  }
  if (head[2] != kernel::kTableDigest) {
    v.reject("encoded against opcode table 0x%08" PRIx32
             "; this runtime has table 0x%08" PRIx32
             " (schemas/kernel_opcodes.def differs)",
             head[2], kernel::kTableDigest);
    return v.fail();
  }
  uint32_t export_count = head[3];
  size_t word_count = size / 4;
  if (export_count < 1 || export_count > word_count) {
    v.reject("%" PRIu32 " exports in %zu words", export_count, word_count);
    return v.fail();
  }
  // Each table aligned for its type (the words' size is only a multiple
  // of 4).
  auto align = [](size_t offset, size_t alignment) {
    return (offset + alignment - 1) & ~(alignment - 1);
  };
  size_t words_offset = align(sizeof(PortableProgram), 64);
  size_t exports_offset = align(words_offset + size, alignof(PortableExport));
  size_t ptrs_offset =
      align(exports_offset + export_count * sizeof(PortableExport),
            alignof(strata_hal_executable_dispatch_v0_t));
  size_t names_offset = align(
      ptrs_offset + export_count * sizeof(strata_hal_executable_dispatch_v0_t),
      alignof(const char*));
  size_t attrs_offset =
      align(names_offset + export_count * sizeof(const char*),
            alignof(strata_hal_executable_dispatch_attrs_v0_t));
  size_t handles_offset = align(
      attrs_offset +
          export_count * sizeof(strata_hal_executable_dispatch_attrs_v0_t),
      alignof(const void*));
  size_t temps_offset = align(
      handles_offset + export_count * sizeof(const void*), alignof(uint64_t));
  // Temporary offsets: at most one u64 per word of the program; names need
  // one byte more than their words hold.
  size_t chars_offset = temps_offset + word_count * sizeof(uint64_t);
  size_t total = chars_offset + export_count * (kernel::kMaxNameLength + 1);
  auto* memory =
      static_cast<uint8_t*>(strata_allocator_alloc(allocator, total, 64));
  if (!memory) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory loading portable program '%s' "
                              "(%zu bytes)",
                              v.name, total);
  }
  auto* program = new (memory) PortableProgram();
  program->allocator = allocator;
  auto* words = reinterpret_cast<uint32_t*>(memory + words_offset);
  std::memcpy(words, data, size);
  program->export_count = export_count;
  program->exports = reinterpret_cast<PortableExport*>(memory + exports_offset);
  program->ptrs = reinterpret_cast<strata_hal_executable_dispatch_v0_t*>(
      memory + ptrs_offset);
  program->names = reinterpret_cast<const char**>(memory + names_offset);
  program->attrs = reinterpret_cast<strata_hal_executable_dispatch_attrs_v0_t*>(
      memory + attrs_offset);
  program->export_handles =
      reinterpret_cast<const void**>(memory + handles_offset);
  auto* temp_offsets = reinterpret_cast<uint64_t*>(memory + temps_offset);
  char* chars = reinterpret_cast<char*>(memory + chars_offset);

  Reader r{words, word_count, 4};
  for (uint32_t i = 0; i < export_count; ++i) {
    PortableExport& e = program->exports[i];
    std::memset(&e, 0, sizeof(e));
    uint32_t name_length = r.next();
    if (r.failed || name_length < 1 || name_length > kernel::kMaxNameLength ||
        (name_length + 3) / 4 > r.count - r.at) {
      v.reject("export %" PRIu32 " has a name of %" PRIu32 " bytes (1..%" PRIu32
               ") or is truncated",
               i, name_length, kernel::kMaxNameLength);
      destroyPortableProgram(program);
      return v.fail();
    }
    std::memcpy(chars, words + r.at, name_length);
    chars[name_length] = '\0';
    r.at += (name_length + 3) / 4;
    e.name = chars;
    chars += name_length + 1;
    if (std::strlen(e.name) != name_length) {
      v.reject("export %" PRIu32 "'s name holds a NUL byte", i);
      destroyPortableProgram(program);
      return v.fail();
    }
    v.export_name = e.name;
    e.binding_count = r.next();
    e.constant_count = r.next();
    if (r.failed || e.binding_count > kernel::kMaxBindings ||
        e.constant_count > kernel::kMaxConstants ||
        e.binding_count * 2 > r.count - r.at) {
      v.reject("%" PRIu32 " bindings and %" PRIu32
               " constants (at most %" PRIu32 " and %" PRIu32
               ") or a truncated table",
               e.binding_count, e.constant_count, kernel::kMaxBindings,
               kernel::kMaxConstants);
      destroyPortableProgram(program);
      return v.fail();
    }
    // Words are 4-byte aligned; the u64 tables are read where they lie only
    // when 8-byte aligned, so copy them next to the temporaries instead.
    uint64_t* binding_bytes = temp_offsets;
    for (uint32_t b = 0; b < e.binding_count; ++b) {
      binding_bytes[b] = r.next64();
    }
    temp_offsets += e.binding_count;
    e.binding_bytes = binding_bytes;
    e.temporary_count = r.next();
    if (r.failed || e.temporary_count > kernel::kMaxTemporaries ||
        e.temporary_count * 2 > r.count - r.at) {
      v.reject("%" PRIu32 " temporaries (at most %" PRIu32
               ") or a truncated table",
               e.temporary_count, kernel::kMaxTemporaries);
      destroyPortableProgram(program);
      return v.fail();
    }
    uint64_t* temp_bytes = temp_offsets;
    for (uint32_t t = 0; t < e.temporary_count; ++t) {
      temp_bytes[t] = r.next64();
    }
    temp_offsets += e.temporary_count;
    e.data_count = r.next();
    // Each block has at least three header words: the table holds two
    // entries per block only while the words are there.
    if (r.failed || e.data_count > kernel::kMaxConstantData ||
        e.data_count * 3 > r.count - r.at) {
      v.reject("%" PRIu32 " constant data blocks (at most %" PRIu32
               ") or a truncated table",
               e.data_count, kernel::kMaxConstantData);
      destroyPortableProgram(program);
      return v.fail();
    }
    uint64_t* data_bytes = temp_offsets;
    // The data pointers share the table (a pointer fits in a u64 entry).
    auto** data =
        reinterpret_cast<const uint8_t**>(temp_offsets + e.data_count);
    for (uint32_t k = 0; k < e.data_count; ++k) {
      data_bytes[k] = r.next64();
      uint32_t pad = r.next();
      if (r.failed || pad > 1 || pad > r.count - r.at) {
        v.reject("constant data %" PRIu32 " has a bad header", k);
        destroyPortableProgram(program);
        return v.fail();
      }
      r.at += pad;
      uint64_t data_words = (data_bytes[k] + 3) / 4;
      if (data_words > r.count - r.at) {
        v.reject("constant data %" PRIu32 " of %" PRIu64
                 " bytes runs past the program",
                 k, data_bytes[k]);
        destroyPortableProgram(program);
        return v.fail();
      }
      data[k] = reinterpret_cast<const uint8_t*>(words + r.at);
      r.at += data_words;
    }
    temp_offsets += 2 * e.data_count;
    e.data = data;
    e.register_count = r.next();
    e.code_words = r.next();
    if (r.failed || e.register_count > kernel::kMaxRegisters ||
        e.code_words > r.count - r.at) {
      v.reject("%" PRIu32 " registers (at most %" PRIu32 ") and %" PRIu32
               " code words (%zu left)",
               e.register_count, kernel::kMaxRegisters, e.code_words,
               r.failed ? size_t(0) : r.count - r.at);
      destroyPortableProgram(program);
      return v.fail();
    }
    e.code = words + r.at;
    r.at += e.code_words;
    // Local memory: registers, then each temporary 64-byte aligned.
    uint64_t local = uint64_t(e.register_count) * kernel::kRegisterBytes;
    uint64_t* offsets = temp_offsets;
    for (uint32_t t = 0; t < e.temporary_count; ++t) {
      offsets[t] = local;
      local = (local + temp_bytes[t] + 63) & ~uint64_t(63);
      if (temp_bytes[t] > kernel::kMaxLocalMemory ||
          local > kernel::kMaxLocalMemory) {
        v.reject("registers and temporaries need more than %" PRIu64
                 " bytes of local memory",
                 kernel::kMaxLocalMemory);
        destroyPortableProgram(program);
        return v.fail();
      }
    }
    temp_offsets += e.temporary_count;
    e.temporary_offsets = offsets;
    e.local_memory_size = local;
    Slots slots{e.binding_count, e.binding_bytes, e.temporary_count,
                temp_bytes,      e.data_count,    data_bytes};
    if (!verifyCode(v, e, slots)) {
      destroyPortableProgram(program);
      return v.fail();
    }
    program->ptrs[i] = runPortableExport;
    program->names[i] = e.name;
    strata_hal_executable_dispatch_attrs_v0_t& attrs = program->attrs[i];
    std::memset(&attrs, 0, sizeof(attrs));
    attrs.binding_count = static_cast<uint16_t>(e.binding_count);
    attrs.constant_count = static_cast<uint16_t>(e.constant_count);
    attrs.local_memory_size = static_cast<uint32_t>(e.local_memory_size);
    program->export_handles[i] = &e;
  }
  v.export_name = "";
  if (r.at != r.count) {
    v.reject("%zu words after the last export", r.count - r.at);
    destroyPortableProgram(program);
    return v.fail();
  }
  program->header.version = 0;
  program->header.sanitizer = STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_NONE;
  program->header.name = nullptr;
  program->header.required_features = 0;
  program->library.header = &program->header;
  program->library.imports = {};
  program->library.exports.count = export_count;
  program->library.exports.ptrs = program->ptrs;
  program->library.exports.names = program->names;
  program->library.exports.tags = nullptr;
  program->library.exports.attrs = program->attrs;
  *out = program;
  return nullptr;
}

void destroyPortableProgram(PortableProgram* program) {
  if (!program) {
    return;
  }
  strata_allocator_t allocator = program->allocator;
  program->~PortableProgram();
  strata_allocator_free(allocator, program);
}

}  // namespace strata::hal
