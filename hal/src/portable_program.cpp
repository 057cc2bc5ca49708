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
#include <vector>

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

// The code words a shape instruction patches: kSize or kWide while no
// field has claimed the word, kTaken once the field starting there has (a
// size, or the first word of an i64 offset or stride). Empty for an export
// without one.
struct Patches {
  static constexpr uint8_t kSize = 1;
  static constexpr uint8_t kWide = 2;
  static constexpr uint8_t kTaken = 3;
  std::vector<uint8_t> marks;
  // Whether the field starting at code word `at` (an i64 when `wide`) is
  // patched, claiming it. A patch of the other width stays unclaimed.
  bool take(size_t at, bool wide) {
    if (at >= marks.size() || marks[at] != (wide ? kWide : kSize)) {
      return false;
    }
    marks[at] = kTaken;
    return true;
  }
};

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
  // Bindings and temporaries whose bytes come from a shape requirement
  // (bit b, bit t).
  uint64_t dynamic_bindings = 0;
  uint64_t dynamic_temporaries = 0;
  bool dynamic(uint32_t slot) const {
    if (slot < binding_count) {
      return (dynamic_bindings >> slot) & 1;
    }
    slot -= binding_count;
    return slot < temporary_count && ((dynamic_temporaries >> slot) & 1);
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

bool verifyGeneric(Verifier& v, Reader& r, const Slots& slots, Patches& patches,
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
  // A patched size: every range of the instruction is proved at dispatch.
  bool deferred = false;
  for (uint32_t d = 0; d < rank; ++d) {
    bool patched = patches.take(r.at, false);
    sizes[d] = r.next();
    if (patched) {
      deferred = true;
      continue;
    }
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
  // Whether operand_max is known now (else the range waits for dispatch).
  bool operand_known[kernel::kMaxOperands] = {};
  for (uint32_t i = 0; i < operand_count; ++i) {
    uint32_t slot = r.next();
    uint32_t type = r.next();
    bool operand_deferred = patches.take(r.at, true);
    int64_t offset = static_cast<int64_t>(r.next64());
    int64_t strides[kernel::kMaxRank];
    for (uint32_t d = 0; d < rank; ++d) {
      operand_deferred |= patches.take(r.at, true);
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
    if (empty || deferred || operand_deferred || slots.dynamic(slot)) {
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
    operand_known[i] = true;
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
    // Only a gather's extent (word c) and an i64 const's immediate (words
    // a, b: any bits are a value) may be patched.
    bool extent_patched = patches.take(r.at + 4, false);
    bool immediate_patched = patches.take(r.at + 2, true);
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
    if ((extent_patched && info.kind != OpKind::Gather) ||
        (immediate_patched &&
         (info.kind != OpKind::Const ||
          type != static_cast<uint32_t>(kernel::Type::I64)))) {
      return v.reject("body instruction at word %" PRIu32
                      " (%s): the shape instruction patches word %" PRIu32
                      ", which is no gather's extent or i64 constant",
                      at, info.mnemonic, extent_patched ? at + 4 : at + 2);
    }
    if (!kernel::typeBytes(type) || kernel::isMemoryOnlyType(type) ||
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
        if (a >= operand_count || !kernel::loadsAs(operand_types[a], type)) {
          return v.reject("body instruction at word %" PRIu32
                          " (load) reads operand %" PRIu32
                          " as %s; the generic has %" PRIu32 " operands",
                          at, a, kernel::typeName(type), operand_count);
        }
        break;
      case OpKind::Const: break;
      case OpKind::Gather: {
        if (a >= operand_count || !kernel::loadsAs(operand_types[a], type)) {
          return v.reject("body instruction at word %" PRIu32
                          " (gather) reads operand %" PRIu32
                          " as %s; the generic has %" PRIu32 " operands",
                          at, a, kernel::typeName(type), operand_count);
        }
        if (!use(b, static_cast<uint32_t>(kernel::Type::I64))) {
          return false;
        }
        if (extent_patched) {
          break;  // proved at dispatch with the extent
        }
        // Elements [max, max + c - 1] past the operand's last position.
        int64_t last = 0;
        if (c == 0 || __builtin_add_overflow(
                          operand_max[a], static_cast<int64_t>(c) - 1, &last)) {
          return v.reject("body instruction at word %" PRIu32
                          " (gather) has extent %" PRIu32,
                          at, c);
        }
        if (!empty && operand_known[a] &&
            !checkRange(v, slots, at, "gather", operand_slots[a], type, 0,
                        last)) {
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
    if (reg >= register_count || types[reg] == 0xFF ||
        !kernel::loadsAs(operand_types[operand], types[reg])) {
      return v.reject(
          "generic at word %" PRIu32 ": output %" PRIu32
          " stores register %" PRIu32 ", which does not hold a defined %s",
          inst_at, k, reg, kernel::typeName(operand_types[operand]));
    }
  }
  return true;
}

bool verifyMatmul(Verifier& v, Reader& r, const Slots& slots, Patches& patches,
                  uint32_t inst_at) {
  bool deferred = false;
  uint32_t dims[4];
  for (uint32_t& dim : dims) {
    deferred |= patches.take(r.at, false);
    dim = r.next();
  }
  uint32_t batch = dims[0];
  uint32_t m = dims[1];
  uint32_t n = dims[2];
  uint32_t k = dims[3];
  const char* names[3] = {"A", "B", "C"};
  uint32_t types[3] = {0, 0, 0};
  uint32_t rows[3] = {m, k, m};
  uint32_t cols[3] = {k, n, n};
  for (int i = 0; i < 3; ++i) {
    uint32_t slot = r.next();
    uint32_t type = r.next();
    bool matrix_deferred = patches.take(r.at, true) || deferred;
    int64_t offset = static_cast<int64_t>(r.next64());
    int64_t strides[3];
    for (int64_t& stride : strides) {
      matrix_deferred |= patches.take(r.at, true);
      stride = static_cast<int64_t>(r.next64());
    }
    if (r.failed) {
      return v.reject("matmul at word %" PRIu32 " is truncated", inst_at);
    }
    if (!deferred && (batch > (1u << 30) || m > (1u << 30) || n > (1u << 30) ||
                      k > (1u << 30))) {
      return v.reject("matmul at word %" PRIu32 " has sizes past 2^30",
                      inst_at);
    }
    if (slot >= slots.count() ||
        (type != static_cast<uint32_t>(kernel::Type::F32) &&
         !kernel::isMemoryOnlyType(type))) {
      return v.reject("matmul at word %" PRIu32 ": %s names slot %" PRIu32
                      " of %" PRIu32 " with type %" PRIu32
                      " (f32, f16 or bf16 only)",
                      inst_at, names[i], slot, slots.count(), type);
    }
    types[i] = type;
    // An f16/bf16 C accumulates in its type: A and B must be of it.
    if (i == 2 && kernel::isMemoryOnlyType(type) &&
        (types[0] != type || types[1] != type)) {
      return v.reject("matmul at word %" PRIu32
                      ": C is %s but A is %s and B %s (an f16 or bf16 C "
                      "needs A and B of its type)",
                      inst_at, kernel::typeName(type),
                      kernel::typeName(types[0]), kernel::typeName(types[1]));
    }
    if (i == 2 && slots.readOnly(slot)) {
      return v.reject("matmul at word %" PRIu32
                      ": C writes constant data (slot %" PRIu32 ")",
                      inst_at, slot);
    }
    if (matrix_deferred || slots.dynamic(slot) || !batch || !rows[i] ||
        !cols[i]) {
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

// Reads the shape instruction at the start of e's code, if there is one:
// its values (each reading only push constants the export has and values
// before it), requirements (each naming a binding once, whose table entry
// is 0) and patches (each naming a distinct code word after it, claimed
// later by the field it must start). Sets *start past it.
bool verifyShape(Verifier& v, PortableExport& e, Slots& slots, Patches& patches,
                 size_t* start) {
  *start = 0;
  if (e.code_words == 0 || e.code[0] != static_cast<uint32_t>(Inst::Shape)) {
    return true;
  }
  Reader r{e.code, e.code_words, 1};
  e.value_count = r.next();
  if (r.failed || e.value_count < 1 || e.value_count > kernel::kMaxValues ||
      e.value_count * 3ull > r.count - r.at) {
    return v.reject("shape has %" PRIu32 " values (1..%" PRIu32
                    ") or is truncated",
                    e.value_count, kernel::kMaxValues);
  }
  e.values = e.code + r.at;
  for (uint32_t i = 0; i < e.value_count; ++i) {
    uint32_t op = r.next();
    uint32_t a = r.next();
    uint32_t b = r.next();
    const char* name = kernel::valueName(op);
    if (!name) {
      return v.reject("shape value %" PRIu32 " has unknown op %" PRIu32, i, op);
    }
    bool ok = true;
    switch (static_cast<kernel::Value>(op)) {
      case kernel::Value::Push:
        ok = a < e.constant_count && e.constant_count - a >= 2;
        break;
      case kernel::Value::PushI32: ok = a < e.constant_count; break;
      case kernel::Value::Const: break;
      default: ok = a < i && b < i; break;
    }
    if (!ok) {
      return v.reject("shape value %" PRIu32 " (%s) reads %" PRIu32
                      " and %" PRIu32 ": past the %" PRIu32
                      " push constant words or not a value before it",
                      i, name, a, b, e.constant_count);
    }
  }
  e.requirement_count = r.next();
  uint32_t sized = e.binding_count + e.temporary_count;
  if (r.failed || e.requirement_count > sized ||
      e.requirement_count * 2ull > r.count - r.at) {
    return v.reject("shape has %" PRIu32 " requirements for %" PRIu32
                    " bindings and temporaries or is truncated",
                    e.requirement_count, sized);
  }
  e.requirements = e.code + r.at;
  for (uint32_t q = 0; q < e.requirement_count; ++q) {
    uint32_t slot = r.next();
    uint32_t value = r.next();
    if (slot >= sized || value >= e.value_count || slots.dynamic(slot) ||
        slots.bytes(slot) != 0) {
      return v.reject("shape requirement %" PRIu32 " names slot %" PRIu32
                      " and value %" PRIu32
                      ": no binding or temporary of %" PRIu32
                      " with a table entry of 0 and no other requirement, "
                      "or no value",
                      q, slot, value, sized);
    }
    if (slot < e.binding_count) {
      slots.dynamic_bindings |= uint64_t(1) << slot;
    } else {
      slots.dynamic_temporaries |= uint64_t(1) << (slot - e.binding_count);
      e.dynamic_temporaries = true;
    }
  }
  e.patch_count = r.next();
  if (r.failed || e.patch_count * 2ull > r.count - r.at) {
    return v.reject("shape has %" PRIu32 " patches or is truncated",
                    e.patch_count);
  }
  e.patches = e.code + r.at;
  *start = r.at + 2 * size_t(e.patch_count);
  patches.marks.assign(e.code_words, 0);
  for (uint32_t i = 0; i < e.patch_count; ++i) {
    uint32_t field = r.next();
    uint32_t value = r.next();
    uint32_t word = field & ~kernel::kPatchWide;
    if (word < *start || word >= e.code_words || value >= e.value_count ||
        patches.marks[word] ||
        ((field & kernel::kPatchWide) && word + 1 >= e.code_words)) {
      return v.reject("shape patch %" PRIu32 " writes value %" PRIu32
                      " into code word %" PRIu32
                      ": not a word after the shape instruction, patched "
                      "once, or no value",
                      i, value, word);
    }
    patches.marks[word] =
        (field & kernel::kPatchWide) ? Patches::kWide : Patches::kSize;
  }
  return true;
}

bool verifyCode(Verifier& v, const PortableExport& e, const Slots& slots,
                Patches& patches, size_t start) {
  Reader r{e.code, e.code_words, start};
  while (r.at < r.count) {
    uint32_t at = static_cast<uint32_t>(r.at);
    uint32_t inst = r.next();
    if (inst == static_cast<uint32_t>(Inst::Generic)) {
      if (!verifyGeneric(v, r, slots, patches, e.register_count,
                         e.constant_count, at)) {
        return false;
      }
    } else if (inst == static_cast<uint32_t>(Inst::Matmul)) {
      if (!verifyMatmul(v, r, slots, patches, at)) {
        return false;
      }
    } else if (inst == static_cast<uint32_t>(Inst::Shape)) {
      return v.reject("shape at word %" PRIu32 " is not the first instruction",
                      at);
    } else {
      return v.reject("unknown instruction %" PRIu32 " at word %" PRIu32, inst,
                      at);
    }
  }
  for (size_t w = 0; w < patches.marks.size(); ++w) {
    if (patches.marks[w] == Patches::kSize ||
        patches.marks[w] == Patches::kWide) {
      return v.reject(
          "a shape patch writes code word %zu, which starts no "
          "%s",
          w,
          patches.marks[w] == Patches::kWide ? "offset or stride"
                                             : "size or extent");
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
    e.temporary_bytes = temp_bytes;
    e.data_bytes = data_bytes;
    Slots slots{e.binding_count, e.binding_bytes, e.temporary_count,
                temp_bytes,      e.data_count,    data_bytes};
    Patches patches;
    size_t start = 0;
    if (!verifyShape(v, e, slots, patches, &start) ||
        !verifyCode(v, e, slots, patches, start)) {
      destroyPortableProgram(program);
      return v.fail();
    }
    // Exports with dynamic shapes run a patched copy of their code.
    if (e.value_count) {
      e.code_copy_offset = local;
      local = (local + uint64_t(e.code_words) * 4 + 63) & ~uint64_t(63);
      if (local > kernel::kMaxLocalMemory) {
        v.reject("registers, temporaries and the code need more than %" PRIu64
                 " bytes of local memory",
                 kernel::kMaxLocalMemory);
        destroyPortableProgram(program);
        return v.fail();
      }
    }
    // Temporaries sized at dispatch follow, in whatever local memory the
    // devices give (they ask for the most; each dispatch checks its need).
    e.dynamic_temporary_offset = local;
    if (e.dynamic_temporaries) {
      local = kernel::kMaxLocalMemory;
    }
    e.local_memory_size = local;
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

namespace {

// The dispatch-time proof of a patched code's accesses (the load-time one
// without the structure, which the verifier proved of the code it copies).
struct DispatchCheck {
  const PortableExport& e;
  const uint64_t* slot_bytes;
  strata_hal_executable_dispatch_detail_v1_t* detail;

  int fail(uint32_t kind, int64_t index, int64_t bound) const {
    detail->kind = kind;
    detail->index = index;
    detail->bound = bound;
    return STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE;
  }
  // 0 when elements [min, max] of `type` lie inside `slot`.
  int inside(uint32_t slot, uint32_t type, int64_t min, int64_t max) const {
    uint64_t end = 0;
    if (min < 0 || max < 0 ||
        __builtin_mul_overflow(static_cast<uint64_t>(max) + 1,
                               uint64_t(kernel::typeBytes(type)), &end) ||
        end > uint64_t(INT64_MAX)) {
      return fail(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE,
                  min < 0 ? min : max, -1);
    }
    if (end > slot_bytes[slot]) {
      if (slot < e.binding_count) {
        return fail(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_BINDING, slot,
                    static_cast<int64_t>(end));
      }
      return fail(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE,
                  static_cast<int64_t>(end),
                  static_cast<int64_t>(slot_bytes[slot]));
    }
    return 0;
  }

  int generic(const uint32_t* code, size_t* at) const {
    const uint32_t* p = code + *at + 1;
    uint32_t rank = *p++;
    const uint32_t* sizes = p;
    p += 2 * rank + 1;  // sizes, loops, vector
    uint32_t operand_count = *p++;
    uint32_t output_count = *p++;
    bool empty = false;
    for (uint32_t d = 0; d < rank; ++d) {
      empty |= sizes[d] == 0;
    }
    int64_t operand_max[kernel::kMaxOperands] = {};
    uint32_t operand_slot[kernel::kMaxOperands] = {};
    for (uint32_t i = 0; i < operand_count; ++i) {
      operand_slot[i] = p[0];
      uint32_t type = p[1];
      int64_t offset =
          static_cast<int64_t>(uint64_t(p[2]) | (uint64_t(p[3]) << 32));
      int64_t strides[kernel::kMaxRank];
      for (uint32_t d = 0; d < rank; ++d) {
        strides[d] = static_cast<int64_t>(uint64_t(p[4 + 2 * d]) |
                                          (uint64_t(p[5 + 2 * d]) << 32));
      }
      p += 4 + 2 * rank;
      if (empty) {
        continue;
      }
      int64_t min = 0;
      if (!accessRange(offset, sizes, strides, rank, &min, &operand_max[i])) {
        return fail(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE, offset, -1);
      }
      if (int code = inside(operand_slot[i], type, min, operand_max[i])) {
        return code;
      }
    }
    uint32_t body_count = *p++;
    for (uint32_t i = 0; i < body_count; ++i, p += kernel::kBodyWords) {
      if (empty || kernel::opInfo(p[0] & 0xFF).kind != OpKind::Gather) {
        continue;
      }
      // Extent 0: every index fails the dispatch before a read.
      uint32_t a = p[2];
      uint32_t c = p[4];
      int64_t last = 0;
      if (c == 0) {
        continue;
      }
      if (__builtin_add_overflow(operand_max[a], int64_t(c) - 1, &last)) {
        return fail(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE, c, -1);
      }
      if (int code = inside(operand_slot[a], (p[0] >> 8) & 0xFF, 0, last)) {
        return code;
      }
    }
    p += output_count;
    *at = static_cast<size_t>(p - code);
    return 0;
  }

  int matmul(const uint32_t* code, size_t* at) const {
    const uint32_t* p = code + *at + 1;
    uint32_t batch = p[0];
    uint32_t m = p[1];
    uint32_t n = p[2];
    uint32_t k = p[3];
    p += 4;
    *at = static_cast<size_t>(p + 30 - code);
    if (!batch || !m || !n || !k) {
      return 0;  // touches nothing (kernel_bytecode.h)
    }
    uint32_t rows[3] = {m, k, m};
    uint32_t cols[3] = {k, n, n};
    for (int i = 0; i < 3; ++i, p += 10) {
      int64_t offset =
          static_cast<int64_t>(uint64_t(p[2]) | (uint64_t(p[3]) << 32));
      int64_t strides[3];
      for (int d = 0; d < 3; ++d) {
        strides[d] = static_cast<int64_t>(uint64_t(p[4 + 2 * d]) |
                                          (uint64_t(p[5 + 2 * d]) << 32));
      }
      uint32_t sizes[3] = {batch, rows[i], cols[i]};
      int64_t min = 0;
      int64_t max = 0;
      if (!accessRange(offset, sizes, strides, 3, &min, &max)) {
        return fail(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE, offset, -1);
      }
      if (int code = inside(p[0], p[1], min, max)) {
        return code;
      }
    }
    return 0;
  }
};

// V[a] op V[b] for the binary value ops; false on overflow or division by
// zero.
bool computeValue(kernel::Value op, int64_t x, int64_t y, int64_t* out) {
  using V = kernel::Value;
  bool divides =
      op == V::DivS || op == V::FloorDivS || op == V::CeilDivS || op == V::RemS;
  if (divides && (y == 0 || (x == INT64_MIN && y == -1))) {
    return false;
  }
  switch (op) {
    case V::Add: return !__builtin_add_overflow(x, y, out);
    case V::Sub: return !__builtin_sub_overflow(x, y, out);
    case V::Mul: return !__builtin_mul_overflow(x, y, out);
    case V::DivS: *out = x / y; return true;
    case V::FloorDivS:
      *out = x / y - ((x % y != 0 && ((x < 0) != (y < 0))) ? 1 : 0);
      return true;
    case V::CeilDivS:
      *out = x / y + ((x % y != 0 && ((x < 0) == (y < 0))) ? 1 : 0);
      return true;
    case V::RemS: *out = x % y; return true;
    case V::MinS: *out = x < y ? x : y; return true;
    case V::MaxS: *out = x > y ? x : y; return true;
    default: return false;
  }
}

}  // namespace

int preparePortableDispatch(
    const PortableExport& e, const uint32_t* constants,
    const size_t* binding_lengths, uint64_t local_memory_size, uint32_t* code,
    uint64_t* temporary_offsets,
    strata_hal_executable_dispatch_detail_v1_t* detail) {
  uint64_t slot_bytes[kernel::kMaxBindings + kernel::kMaxTemporaries +
                      kernel::kMaxConstantData];
  DispatchCheck check{e, slot_bytes, detail};
  int64_t values[kernel::kMaxValues];
  for (uint32_t i = 0; i < e.value_count; ++i) {
    const uint32_t* w = e.values + 3 * i;
    auto op = static_cast<kernel::Value>(w[0]);
    switch (op) {
      case kernel::Value::Push:
        values[i] = static_cast<int64_t>(uint64_t(constants[w[1]]) |
                                         (uint64_t(constants[w[1] + 1]) << 32));
        break;
      case kernel::Value::PushI32:
        values[i] = static_cast<int32_t>(constants[w[1]]);
        break;
      case kernel::Value::Const:
        values[i] =
            static_cast<int64_t>(uint64_t(w[1]) | (uint64_t(w[2]) << 32));
        break;
      default:
        if (!computeValue(op, values[w[1]], values[w[2]], &values[i])) {
          return check.fail(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE, 0, -1);
        }
        break;
    }
  }
  for (uint32_t b = 0; b < e.binding_count; ++b) {
    slot_bytes[b] = e.binding_bytes[b];
  }
  uint32_t slot = e.binding_count;
  for (uint32_t t = 0; t < e.temporary_count; ++t, ++slot) {
    slot_bytes[slot] = e.temporary_bytes[t];
    temporary_offsets[t] = e.temporary_offsets[t];
  }
  // Temporaries sized here go after everything else, each 64-byte aligned.
  uint64_t local = e.dynamic_temporary_offset;
  for (uint32_t q = 0; q < e.requirement_count; ++q) {
    uint32_t target = e.requirements[2 * q];
    int64_t bytes = values[e.requirements[2 * q + 1]];
    if (bytes < 0) {
      return check.fail(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE, bytes,
                        INT64_MAX);
    }
    if (target < e.binding_count) {
      if (binding_lengths[target] < static_cast<uint64_t>(bytes)) {
        return check.fail(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_BINDING, target,
                          bytes);
      }
    } else {
      uint64_t end = 0;
      if (__builtin_add_overflow(local, static_cast<uint64_t>(bytes), &end) ||
          end > local_memory_size) {
        return check.fail(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_LOCAL_MEMORY,
                          bytes,
                          static_cast<int64_t>(local_memory_size - local));
      }
      temporary_offsets[target - e.binding_count] = local;
      local = (end + 63) & ~uint64_t(63);
    }
    slot_bytes[target] = static_cast<uint64_t>(bytes);
  }
  for (uint32_t k = 0; k < e.data_count; ++k, ++slot) {
    slot_bytes[slot] = e.data_bytes[k];
  }
  std::memcpy(code, e.code, size_t(e.code_words) * 4);
  for (uint32_t i = 0; i < e.patch_count; ++i) {
    uint32_t field = e.patches[2 * i];
    uint32_t word = field & ~kernel::kPatchWide;
    int64_t value = values[e.patches[2 * i + 1]];
    if (field & kernel::kPatchWide) {
      code[word] = static_cast<uint32_t>(static_cast<uint64_t>(value));
      code[word + 1] =
          static_cast<uint32_t>(static_cast<uint64_t>(value) >> 32);
    } else if (value < 0 || value > int64_t(kernel::kMaxPatchedSize)) {
      return check.fail(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE, value,
                        kernel::kMaxPatchedSize);
    } else {
      code[word] = static_cast<uint32_t>(value);
    }
  }
  size_t at = 4 + 3 * size_t(e.value_count) + 2 * size_t(e.requirement_count) +
              2 * size_t(e.patch_count);
  while (at < e.code_words) {
    int result = code[at] == static_cast<uint32_t>(Inst::Generic)
                     ? check.generic(code, &at)
                     : check.matmul(code, &at);
    if (result) {
      return result;
    }
  }
  return 0;
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
