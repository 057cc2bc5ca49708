// interpreter.cpp - the register interpreter: frames, calls, and one handler
// per opcode of schemas/opcodes.def.
//
// The verifier has proven every register index, branch target, ordinal and
// call signature, so handlers read operands at fixed offsets without checks.
// What only run time can know is still checked: null and mistyped refs,
// buffer and list ranges, integer division by zero and the call depth.
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <ctime>
#include <limits>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "context_impl.h"
#include "opcodes.h"
#include "strata/vm/buffer.h"
#include "strata/vm/list.h"

// Computed goto (labels as values) is a GNU extension; the switch fallback
// below is standard C++.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpedantic"
#endif

namespace strata::vm {

namespace {

//===----------------------------------------------------------------------===//
// Arenas
//===----------------------------------------------------------------------===//

// Whether ptr points into the stack's inline storage (never freed).
bool isInline(const Stack* stack, const void* ptr) {
  auto p = static_cast<const uint8_t*>(ptr);
  return p >= stack->inline_begin && p < stack->inline_end;
}

template <typename T>
bool growArray(Stack* stack, T** array, uint32_t* capacity, uint32_t used,
               uint64_t needed) {
  if (needed <= *capacity) {
    return true;
  }
  uint64_t next = *capacity ? uint64_t(*capacity) * 2 : 64;
  while (next < needed) {
    next *= 2;
  }
  if (next > std::numeric_limits<uint32_t>::max()) {
    return false;
  }
  auto* grown = static_cast<T*>(
      strata_allocator_alloc(stack->allocator, next * sizeof(T), alignof(T)));
  if (!grown) {
    return false;
  }
  if (used) {
    std::memcpy(grown, *array, used * sizeof(T));
  }
  if (!isInline(stack, *array)) {
    strata_allocator_free(stack->allocator, *array);
  }
  *array = grown;
  *capacity = static_cast<uint32_t>(next);
  return true;
}

std::string_view moduleName(const ModuleState* state) {
  return state->module->name;
}

// Slow path of pushFrame: the depth limit or growing an arena.
[[gnu::noinline]] strata_status_t makeRoom(Stack* stack, ModuleState* state,
                                           uint32_t function_index) {
  const Function& fn = state->bytecode->functions[function_index];
  if (stack->frame_count >= stack->max_depth) {
    std::string name = state->bytecode->functionDisplayName(function_index);
    return strata_make_status(
        STRATA_STATUS_RESOURCE_EXHAUSTED,
        "call depth limit of %u frames exceeded calling %.*s.%s (runaway "
        "recursion?)",
        stack->max_depth, static_cast<int>(moduleName(state).size()),
        moduleName(state).data(), name.c_str());
  }
  if (!growArray(stack, &stack->frames, &stack->frame_capacity,
                 stack->frame_count, uint64_t(stack->frame_count) + 1) ||
      !growArray(stack, &stack->prims, &stack->prim_capacity,
                 stack->prim_top,
                 uint64_t(stack->prim_top) + fn.prim_register_count) ||
      !growArray(stack, &stack->refs, &stack->ref_capacity,
                 stack->ref_top,
                 uint64_t(stack->ref_top) + fn.ref_register_count)) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory growing the VM stack");
  }
  stack->heap_arrays = true;
  return nullptr;
}

// Pushes a frame for function_index of state; registers are not filled.
inline strata_status_t pushFrame(Stack* stack, ModuleState* state,
                                 uint32_t function_index) {
  const Function& fn = state->bytecode->functions[function_index];
  // One test covers the depth limit (max_depth <= frame_capacity is not
  // assumed) and all three arenas.
  if (__builtin_expect(
          stack->frame_count >= stack->frame_capacity ||
              stack->frame_count >= stack->max_depth ||
              uint64_t(stack->prim_top) + fn.prim_register_count >
                  stack->prim_capacity ||
              uint64_t(stack->ref_top) + fn.ref_register_count >
                  stack->ref_capacity,
          0)) {
    STRATA_RETURN_IF_ERROR(makeRoom(stack, state, function_index));
  }
  Frame& frame = stack->frames[stack->frame_count++];
  frame.state = state;
  frame.function = &fn;
  frame.function_index = function_index;
  frame.pc = 0;
  frame.call_pc = 0;
  frame.prim_base = stack->prim_top;
  frame.ref_base = stack->ref_top;
  stack->prim_top += fn.prim_register_count;
  if (fn.ref_register_count) {
    std::memset(stack->refs + stack->ref_top, 0,
                fn.ref_register_count * sizeof(strata_vm_ref_object_t*));
  }
  stack->ref_top += fn.ref_register_count;
  return nullptr;
}

[[gnu::noinline]] void releaseRefs(strata_vm_ref_object_t** refs,
                                   uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    strata_vm_ref_release(refs[i]);
  }
}

// Inline: every bytecode return pops a frame, and functions without ref
// registers (scalar code) need nothing but the two tops restored.
inline void popFrame(Stack* stack) {
  Frame& frame = stack->frames[--stack->frame_count];
  if (uint32_t n = frame.function->ref_register_count) {
    releaseRefs(stack->refs + frame.ref_base, n);
  }
  stack->prim_top = frame.prim_base;
  stack->ref_top = frame.ref_base;
}

// Appends "at module.function (file:line:col)" for every frame, innermost
// first.
strata_status_t annotateBacktrace(Stack* stack, strata_status_t status) {
  // One line per frame, innermost first. A run of identical lines (deep
  // recursion) is written once with its count, and a very deep stack keeps
  // only its innermost and outermost frames.
  constexpr size_t kInnermost = 24;
  constexpr size_t kOutermost = 8;
  std::vector<std::pair<std::string, uint32_t>> lines;
  for (uint32_t i = stack->frame_count; i-- > 0;) {
    const Frame& frame = stack->frames[i];
    const BytecodeModule& module = *frame.state->bytecode;
    std::string name = module.functionDisplayName(frame.function_index);
    SourceLocation loc = module.locationFor(frame.function_index, frame.call_pc);
    std::string line = "at " + std::string(module.name) + "." + name;
    if (!loc.file.empty()) {
      line += " (" + std::string(loc.file) + ":" + std::to_string(loc.line) +
              ":" + std::to_string(loc.column) + ")";
    } else {
      line += " (pc " + std::to_string(frame.call_pc) + ")";
    }
    if (!lines.empty() && lines.back().first == line) {
      ++lines.back().second;
    } else {
      lines.push_back({std::move(line), 1});
    }
  }
  auto annotate = [&](const std::pair<std::string, uint32_t>& line) {
    if (line.second > 1) {
      status = strata_status_annotate(status, "%s (%u frames)",
                                      line.first.c_str(), line.second);
    } else {
      status = strata_status_annotate(status, "%s", line.first.c_str());
    }
  };
  if (lines.size() <= kInnermost + kOutermost) {
    for (const auto& line : lines) annotate(line);
    return status;
  }
  for (size_t i = 0; i < kInnermost; ++i) annotate(lines[i]);
  status = strata_status_annotate(
      status, "... %zu more lines ...", lines.size() - kInnermost - kOutermost);
  for (size_t i = lines.size() - kOutermost; i < lines.size(); ++i) {
    annotate(lines[i]);
  }
  return status;
}

//===----------------------------------------------------------------------===//
// Value helpers
//===----------------------------------------------------------------------===//

inline float asF32(uint64_t bits) {
  uint32_t low = static_cast<uint32_t>(bits);
  float f;
  std::memcpy(&f, &low, sizeof(f));
  return f;
}
inline uint64_t fromF32(float f) {
  uint32_t low;
  std::memcpy(&low, &f, sizeof(low));
  return low;
}
inline double asF64(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d;
}
inline uint64_t fromF64(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  return bits;
}

// Stores ref into *slot, releasing what was there.
inline void assignRef(strata_vm_ref_object_t** slot,
                      strata_vm_ref_object_t* ref) {
  strata_vm_ref_object_t* old = *slot;
  *slot = ref;
  strata_vm_ref_release(old);
}

// Reads the ref register `reg` for a transfer: with MOVE the register is
// cleared and its reference handed over; otherwise a new one is taken.
inline strata_vm_ref_object_t* takeRef(strata_vm_ref_object_t** refs,
                                       uint16_t reg) {
  strata_vm_ref_object_t** slot = &refs[reg & STRATA_REGISTER_REF_MASK];
  strata_vm_ref_object_t* ref = *slot;
  if (reg & STRATA_REGISTER_MOVE_BIT) {
    *slot = nullptr;
  } else {
    strata_vm_ref_retain(ref);
  }
  return ref;
}

// Applies the pairs of a remap list (P) in order. The ref registers are
// found from the stack only when a ref pair needs them: most remaps move
// primitives (block arguments of loops).
[[gnu::noinline]] void remapRef(uint16_t src, uint16_t dst, Stack* stack) {
  if ((src & STRATA_REGISTER_REF_MASK) == (dst & STRATA_REGISTER_REF_MASK)) {
    return;
  }
  strata_vm_ref_object_t** refs =
      stack->refs + stack->frames[stack->frame_count - 1].ref_base;
  assignRef(&refs[dst & STRATA_REGISTER_REF_MASK], takeRef(refs, src));
}

inline void applyRemapPairs(const uint8_t* p, uint32_t count, uint64_t* regs,
                            Stack* stack) {
  do {
    // One load per pair: src in the low half, dst in the high half (LE).
    uint32_t pair = readU32(p);
    uint16_t src = static_cast<uint16_t>(pair);
    uint16_t dst = static_cast<uint16_t>(pair >> 16);
    if (__builtin_expect(src & STRATA_REGISTER_REF_BIT, 0)) {
      remapRef(src, dst, stack);
    } else {
      regs[dst] = regs[src];
    }
    p += 4;
  } while (--count);
}

// Applies a remap list (P) in order; an empty list costs a load and a test.
inline void applyRemap(const uint8_t* p, uint64_t* regs, Stack* stack) {
  if (uint32_t count = readU16(p)) {
    applyRemapPairs(p + 2, count, regs, stack);
  }
}

int32_t clz32(uint32_t v) { return v ? __builtin_clz(v) : 32; }
int64_t clz64(uint64_t v) { return v ? __builtin_clzll(v) : 64; }

template <typename I, typename F>
I saturatingCast(F value) {
  if (std::isnan(value)) {
    return 0;
  }
  if (value <= static_cast<F>(std::numeric_limits<I>::min())) {
    return std::numeric_limits<I>::min();
  }
  // max() may round up when converted to F; compare with >=.
  if (value >= static_cast<F>(std::numeric_limits<I>::max())) {
    return std::numeric_limits<I>::max();
  }
  return static_cast<I>(value);
}

template <typename T>
T fmin2(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) {
    return std::numeric_limits<T>::quiet_NaN();
  }
  if (a == b) {
    return std::signbit(a) ? a : b;  // min(-0, +0) = -0
  }
  return a < b ? a : b;
}
template <typename T>
T fmax2(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) {
    return std::numeric_limits<T>::quiet_NaN();
  }
  if (a == b) {
    return std::signbit(a) ? b : a;  // max(-0, +0) = +0
  }
  return a > b ? a : b;
}

// Round half to even, independent of the current rounding mode.
template <typename T>
T roundEven(T x) {
  T r = std::round(x);
  if (std::fabs(x - std::trunc(x)) == static_cast<T>(0.5)) {
    r = static_cast<T>(2) * std::round(x / static_cast<T>(2));
  }
  return r;
}

// The status code of a fail instruction: codes outside the status range
// become UNKNOWN.
strata_status_code_t failCode(int32_t code_value) {
  return (code_value > 0 && code_value <= STRATA_STATUS_DATA_LOSS)
             ? static_cast<strata_status_code_t>(code_value)
             : STRATA_STATUS_UNKNOWN;
}

// The failure of cond_fail.ne.i64: the message `text` with each "{0}"
// replaced by `a` and each "{1}" by `b`. Only a failing check gets here.
[[gnu::cold]] [[gnu::noinline]] strata_status_t failNotEqual(
    int32_t code_value, const uint8_t* text, uint32_t length, int64_t a,
    int64_t b) {
  std::string message;
  message.reserve(length + 40);
  const char* chars = reinterpret_cast<const char*>(text);
  for (uint32_t i = 0; i < length; ++i) {
    if (chars[i] == '{' && i + 2 < length && chars[i + 2] == '}' &&
        (chars[i + 1] == '0' || chars[i + 1] == '1')) {
      message += std::to_string(chars[i + 1] == '0' ? a : b);
      i += 2;
    } else {
      message += chars[i];
    }
  }
  return strata_make_status(failCode(code_value), "%.*s",
                            static_cast<int>(message.size()), message.data());
}

//===----------------------------------------------------------------------===//
// Ref operand checks
//===----------------------------------------------------------------------===//

strata_status_t wrongRef(const char* op, strata_vm_ref_object_t* ref,
                         const char* expected) {
  if (!ref) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "%s: expected a %s, got a null ref", op,
                              expected);
  }
  return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                            "%s: expected a %s, got a %s", op, expected,
                            ref->type->name);
}

// Maps element `index` of elements of `size` bytes, `count` elements long.
strata_status_t mapElements(const char* op, strata_vm_ref_object_t* ref,
                            int64_t index, int64_t count, uint32_t size,
                            bool writable, uint8_t** out) {
  strata_vm_buffer_t* buffer = strata_vm_buffer_from_ref(ref);
  if (!buffer) {
    return wrongRef(op, ref, "vm.buffer");
  }
  uint64_t length = strata_vm_buffer_length(buffer);
  if (index < 0 || count < 0 || uint64_t(index) > length / size ||
      uint64_t(count) > length / size - uint64_t(index)) {
    return strata_make_status(
        STRATA_STATUS_OUT_OF_RANGE,
        "%s: elements [%lld, %lld + %lld) of %u bytes are out of range of a "
        "%llu-byte vm.buffer",
        op, static_cast<long long>(index), static_cast<long long>(index),
        static_cast<long long>(count), size,
        static_cast<unsigned long long>(length));
  }
  return strata_vm_buffer_map(buffer, uint64_t(index) * size,
                              uint64_t(count) * size, writable, out);
}

strata_status_t mapBytes(const char* op, strata_vm_ref_object_t* ref,
                         int64_t offset, int64_t length, bool writable,
                         uint8_t** out) {
  strata_vm_buffer_t* buffer = strata_vm_buffer_from_ref(ref);
  if (!buffer) {
    return wrongRef(op, ref, "vm.buffer");
  }
  if (offset < 0 || length < 0) {
    return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                              "%s: negative offset %lld or length %lld", op,
                              static_cast<long long>(offset),
                              static_cast<long long>(length));
  }
  return strata_vm_buffer_map(buffer, uint64_t(offset), uint64_t(length),
                              writable, out);
}

strata_status_t listElement(const char* op, strata_vm_ref_object_t* ref,
                            int32_t index, strata_vm_list_t** out_list) {
  strata_vm_list_t* list = strata_vm_list_from_ref(ref);
  if (!list) {
    return wrongRef(op, ref, "vm.list");
  }
  if (index < 0 || size_t(index) >= strata_vm_list_size(list)) {
    return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                              "%s: index %d is out of range of a vm.list of "
                              "%zu elements",
                              op, index, strata_vm_list_size(list));
  }
  *out_list = list;
  return nullptr;
}

// Reads list element `index` as a primitive of `type`. Empty elements read
// as zero; other types are an error.
strata_status_t listGetPrim(const char* op, strata_vm_ref_object_t* ref,
                            int32_t index, strata_vm_value_type_t type,
                            uint64_t* out) {
  strata_vm_list_t* list = nullptr;
  STRATA_RETURN_IF_ERROR(listElement(op, ref, index, &list));
  const strata_vm_variant_t& v = strata_vm_list_data(list)[index];
  if (v.type == STRATA_VM_VALUE_NONE) {
    *out = 0;
    return nullptr;
  }
  if (v.type != type) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "%s: element %d is %s, expected %s", op, index,
                              strata_vm_value_type_name(v.type),
                              strata_vm_value_type_name(type));
  }
  *out = (type == STRATA_VM_VALUE_I32 || type == STRATA_VM_VALUE_F32)
             ? uint64_t(uint32_t(v.value.bits))
             : v.value.bits;
  return nullptr;
}

strata_status_t listSetPrim(const char* op, strata_vm_ref_object_t* ref,
                            int32_t index, strata_vm_value_type_t type,
                            uint64_t bits) {
  strata_vm_list_t* list = nullptr;
  STRATA_RETURN_IF_ERROR(listElement(op, ref, index, &list));
  strata_vm_variant_t v;
  v.type = type;
  v.value.bits = bits;
  return strata_vm_list_set(list, size_t(index), v);
}

//===----------------------------------------------------------------------===//
// Native calls
//===----------------------------------------------------------------------===//

// Marshals the V list at `args` (and span sizes) into stack->scratch for a
// call to `sig`. Returns the number of argument values.
bool marshalArgs(Stack* stack, const Signature& sig, const uint8_t* sizes,
                 const uint8_t* args, const uint64_t* regs,
                 strata_vm_ref_object_t** refs, uint32_t result_count,
                 uint32_t* out_arg_count) {
  uint32_t arg_regs = readU16(args);
  uint64_t needed = uint64_t(arg_regs) + sig.span_count + result_count;
  if (needed > stack->scratch_capacity) {
    if (!growArray(stack, &stack->scratch, &stack->scratch_capacity, 0,
                   needed)) {
      return false;
    }
    stack->heap_arrays = true;
  }
  strata_vm_value_t* out = stack->scratch;
  uint32_t n = 0;
  const uint8_t* reg = args + 2;
  auto put = [&]() {
    uint16_t r = readU16(reg);
    reg += 2;
    if (r & STRATA_REGISTER_REF_BIT) {
      out[n++].ref = refs[r & STRATA_REGISTER_REF_MASK];
    } else {
      out[n++].bits = regs[r];
    }
  };
  std::string_view chars = sig.args;
  uint32_t span = 0;
  for (size_t i = 0; i < chars.size(); ++i) {
    if (chars[i] == 'C') {
      // A span contributes its repetition count, then its elements.
      size_t end = chars.find('D', i);
      size_t width = end - i - 1;
      uint32_t repeats = readU16(sizes + 2 + 2 * span++);
      out[n].bits = 0;
      out[n++].i32 = static_cast<int32_t>(repeats);
      for (uint32_t k = 0; k < repeats; ++k) {
        for (size_t j = 0; j < width; ++j) {
          put();
        }
      }
      i = end;
      continue;
    }
    put();
  }
  *out_arg_count = n;
  return true;
}

// After a native call returned OK: drops moved ref arguments and stores the
// results into the registers of the result list.
void finishNativeCall(const uint8_t* args, const uint8_t* result_list,
                      strata_vm_value_t* results, uint64_t* regs,
                      strata_vm_ref_object_t** refs) {
  uint32_t arg_regs = readU16(args);
  for (uint32_t i = 0; i < arg_regs; ++i) {
    uint16_t r = readU16(args + 2 + 2 * i);
    if (isMoveRegister(r)) {
      assignRef(&refs[r & STRATA_REGISTER_REF_MASK], nullptr);
    }
  }
  uint32_t count = readU16(result_list);
  for (uint32_t i = 0; i < count; ++i) {
    uint16_t r = readU16(result_list + 2 + 2 * i);
    if (r & STRATA_REGISTER_REF_BIT) {
      assignRef(&refs[r & STRATA_REGISTER_REF_MASK], results[i].ref);
    } else {
      regs[r] = results[i].bits;
    }
  }
}

void releaseResults(strata_vm_value_t* results, std::string_view chars) {
  for (size_t i = 0; i < chars.size(); ++i) {
    if (chars[i] == 'r') {
      strata_vm_ref_release(results[i].ref);
      results[i].ref = nullptr;
    }
  }
}

}  // namespace

//===----------------------------------------------------------------------===//
// Stack API
//===----------------------------------------------------------------------===//

int64_t monotonicNowNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

void stackInitialize(Stack* stack, strata_vm_context_t* context,
                     strata_allocator_t allocator, void* storage,
                     size_t storage_size) {
  // Field by field: this runs on every host call.
  stack->context = context;
  stack->allocator = allocator;
  stack->max_depth = context->options.max_call_depth
                         ? context->options.max_call_depth
                         : STRATA_DEFAULT_MAX_CALL_DEPTH;
  stack->frame_count = stack->prim_top = stack->ref_top = 0;
  stack->host_results = nullptr;
  stack->wait = strata_vm_wait_t{};
  stack->deferred = false;
  stack->timed_out = false;
  stack->heap_arrays = false;
  stack->deadline_ns = INT64_MAX;
  stack->interrupt_countdown = kInterruptInterval;
  if (!storage || storage_size < 1024) {
    stack->frames = nullptr;
    stack->prims = nullptr;
    stack->refs = nullptr;
    stack->scratch = nullptr;
    stack->frame_capacity = stack->prim_capacity = stack->ref_capacity = 0;
    stack->scratch_capacity = 0;
    stack->inline_begin = stack->inline_end = nullptr;
    return;
  }
  // Carve the caller's block: 1/8 frames, 1/8 refs, 1/8 scratch, the rest
  // primitive registers, each suitably aligned.
  auto* base = static_cast<uint8_t*>(storage);
  stack->inline_begin = base;
  stack->inline_end = base + storage_size;
  size_t part = (storage_size / 8) & ~size_t(15);
  stack->frames = reinterpret_cast<Frame*>(base);
  stack->frame_capacity = static_cast<uint32_t>(part / sizeof(Frame));
  stack->refs = reinterpret_cast<strata_vm_ref_object_t**>(base + part);
  stack->ref_capacity = static_cast<uint32_t>(part / sizeof(void*));
  stack->scratch = reinterpret_cast<strata_vm_value_t*>(base + 2 * part);
  stack->scratch_capacity =
      static_cast<uint32_t>(part / sizeof(strata_vm_value_t));
  stack->prims = reinterpret_cast<uint64_t*>(base + 3 * part);
  stack->prim_capacity =
      static_cast<uint32_t>((storage_size - 3 * part) / sizeof(uint64_t));
}

void stackReset(Stack* stack) {
  while (stack->frame_count) {
    popFrame(stack);
  }
  stack->host_results = nullptr;
  stack->wait = strata_vm_wait_t{};
  stack->deferred = false;
  stack->timed_out = false;
}

void stackDeinitialize(Stack* stack) {
  stackReset(stack);
  if (stack->heap_arrays) {
    for (void* array : {static_cast<void*>(stack->frames),
                        static_cast<void*>(stack->prims),
                        static_cast<void*>(stack->refs),
                        static_cast<void*>(stack->scratch)}) {
      if (!isInline(stack, array)) {
        strata_allocator_free(stack->allocator, array);
      }
    }
  }
  stack->frames = nullptr;
  stack->prims = nullptr;
  stack->refs = nullptr;
  stack->scratch = nullptr;
  stack->frame_capacity = stack->prim_capacity = stack->ref_capacity = 0;
  stack->scratch_capacity = 0;
}

strata_status_t stackEnter(Stack* stack, ModuleState* state,
                           uint32_t function_index,
                           const strata_vm_value_t* args,
                           strata_vm_value_t* results) {
  STRATA_RETURN_IF_ERROR(pushFrame(stack, state, function_index));
  const Frame& frame = stack->frames[stack->frame_count - 1];
  const Signature& sig = frame.function->signature;
  uint64_t* regs = stack->prims + frame.prim_base;
  strata_vm_ref_object_t** refs = stack->refs + frame.ref_base;
  uint32_t p = 0, r = 0;
  for (size_t i = 0; i < sig.args.size(); ++i) {
    if (sig.args[i] == 'r') {
      strata_vm_ref_retain(args[i].ref);
      refs[r++] = args[i].ref;
    } else if (sig.args[i] == 'i' || sig.args[i] == 'f') {
      regs[p++] = uint32_t(args[i].bits);
    } else {
      regs[p++] = args[i].bits;
    }
  }
  stack->host_results = results;
  for (size_t i = 0; i < sig.results.size(); ++i) {
    results[i].bits = 0;
  }
  return nullptr;
}

strata_status_t callNative(strata_vm_context_t* context, ModuleState* state,
                           uint32_t ordinal, const strata_vm_value_t* args,
                           size_t arg_count, strata_vm_value_t* results,
                           size_t result_count, bool timed_out,
                           strata_vm_wait_t* out_wait, int64_t deadline_ns) {
  const strata_vm_native_function_t& fn =
      state->module->native->functions[ordinal];
  strata_vm_native_call_t call{context, nullptr, {}, timed_out, deadline_ns};
  for (size_t i = 0; i < result_count; ++i) {
    results[i].bits = 0;
  }
  strata_status_t status =
      fn.fn(&call, state->module->native_self, state->native_state, args,
            arg_count, results, result_count);
  if (status && strata_status_code(status) != STRATA_STATUS_DEFERRED) {
    releaseResults(results, state->module->native_signatures[ordinal].results);
  }
  if (out_wait) {
    *out_wait = call.wait;
  }
  return status;
}

//===----------------------------------------------------------------------===//
// The interpreter loop
//===----------------------------------------------------------------------===//

#if defined(__GNUC__) && !defined(STRATA_VM_NO_COMPUTED_GOTO)
#define STRATA_VM_COMPUTED_GOTO 1
#endif

// GCC (not clang, which allocates this loop well) on x86-64: see stackRun.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define STRATA_VM_PIN_REGISTERS 1
#endif

strata_status_t stackRun(Stack* stack, RunState* out_state) {
#if STRATA_VM_COMPUTED_GOTO
  // Dense label table in opcodes.def order, mapped once to all 256 bytes.
  static void* const kLabels[] = {
#define STRATA_OP(name, number, mnemonic, format) &&L_##name,
#include "opcodes.def"
      &&L_Invalid,
  };
  struct DispatchTable {
    void* entries[256];
    explicit DispatchTable(void* const* labels) {
      for (void*& e : entries) {
        e = labels[sizeof(kLabels) / sizeof(kLabels[0]) - 1];
      }
      int i = 0;
#define STRATA_OP(name, number, mnemonic, format) entries[number] = labels[i++];
#include "opcodes.def"
    }
  };
  static const DispatchTable kTable(kLabels);
#define DISPATCH() goto* table[*ip]
#define OP(name) L_##name:
// The empty asm makes the next opcode load use the advanced ip; otherwise
// GCC keeps the old ip in a second register and loads at old + n, a copy
// per instruction.
#define NEXT(n)              \
  do {                       \
    ip += (n);               \
    asm("" : "+r"(ip));      \
    DISPATCH();              \
  } while (0)
#define JUMP() DISPATCH()
#else
#define OP(name) case static_cast<uint8_t>(Opcode::name):
#define NEXT(n) \
  do {          \
    ip += (n);  \
    goto next;  \
  } while (0)
#define JUMP() goto next
#endif

  strata_status_t status = nullptr;
  stack->deferred = false;
  stack->wait = strata_vm_wait_t{};

  // Hot state of the top frame, reloaded whenever the frame changes. Only
  // what nearly every handler needs lives in locals (ip, R, code, stack and
  // the dispatch table): with more values live across the whole loop than
  // there are callee-saved registers, GCC spilled ip to the stack and every
  // instruction paid a store and a reload on its critical path. The frame,
  // the ref registers and the context are recomputed from the stack by the
  // handlers that need them.
#if STRATA_VM_COMPUTED_GOTO
#if STRATA_VM_PIN_REGISTERS
  register void* const* table asm("r15") = kTable.entries;
#else
  void* const* table = kTable.entries;
#endif
#endif
#if STRATA_VM_PIN_REGISTERS
  // Even then GCC's allocator keeps ip in a stack slot across this one huge
  // function; pinning the three hottest values to callee-saved registers
  // halves the instructions of a simple handler. Only the allocation
  // changes: the variables keep their C++ meaning.
  register const uint8_t* ip asm("r12");
  register uint64_t* R asm("r13");
  register const uint8_t* code asm("r14");
#else
  const uint8_t* code;
  const uint8_t* ip;
  uint64_t* R;
#endif
#define FRAME (&stack->frames[stack->frame_count - 1])
#define RR (stack->refs + FRAME->ref_base)
#define CONTEXT (stack->context)
  // Operands of the call being made, for the shared call sections.
  ModuleState* call_target = nullptr;
  uint32_t call_function = 0;
  const ResolvedImport* call_import = nullptr;
  const uint8_t* call_sizes = nullptr;
  const uint8_t* call_args = nullptr;

#define LOAD_FRAME()                                   \
  do {                                                 \
    const Frame* top = FRAME;                          \
    code = top->function->code;                        \
    ip = code + top->pc;                               \
    R = stack->prims + top->prim_base;                 \
  } while (0)
#define FAIL(expr)                                         \
  do {                                                     \
    status = (expr);                                       \
    FRAME->call_pc = static_cast<uint32_t>(ip - code);     \
    goto failed;                                           \
  } while (0)
#define CHECK(expr)                                        \
  do {                                                     \
    strata_status_t check_status__ = (expr);               \
    if (check_status__) FAIL(check_status__);              \
  } while (0)

  // Backward branches and calls count down to a look at the clock
  // (interrupt_check), which resumes at ip: placed before an instruction
  // has any effect, it reruns that instruction; placed after a branch set
  // ip, it continues at the target.
#define POLL_INTERRUPT()                                            \
  do {                                                              \
    if (__builtin_expect(--stack->interrupt_countdown == 0, 0)) {   \
      goto interrupt_check;                                         \
    }                                                               \
  } while (0)

  // Operand readers; o is the byte offset of the operand from the opcode.
#define U16(o) readU16(ip + (o))
#define U32(o) readU32(ip + (o))
#define REG(o) R[U16(o)]
#define REF(o) RR[U16(o) & STRATA_REGISTER_REF_MASK]
#define I32(o) static_cast<int32_t>(static_cast<uint32_t>(REG(o)))
#define U32R(o) static_cast<uint32_t>(REG(o))
#define I64(o) static_cast<int64_t>(REG(o))
#define U64R(o) static_cast<uint64_t>(REG(o))
#define F32(o) asF32(REG(o))
#define F64(o) asF64(REG(o))
#define SET_I32(o, v) REG(o) = static_cast<uint64_t>(static_cast<uint32_t>(v))
#define SET_I64(o, v) REG(o) = static_cast<uint64_t>(v)
#define SET_F32(o, v) REG(o) = fromF32(v)
#define SET_F64(o, v) REG(o) = fromF64(v)

  if (stack->frame_count == 0) {
    *out_state = RunState::kCompleted;
    return nullptr;
  }
  LOAD_FRAME();

#if STRATA_VM_COMPUTED_GOTO
  DISPATCH();
#else
next:
  switch (*ip) {
#endif

  //===--------------------------------------------------------------------===//
  // Control flow
  //===--------------------------------------------------------------------===//

  OP(Br) {
    // Loop back edges carry the loop's block arguments. One or two primitive
    // pairs, the common case, are copied straight-line with no loop. The
    // verifier keeps each pair in one bank, so the sources' ref bits decide.
    POLL_INTERRUPT();
    uint32_t count = U16(5);
    const uint8_t* p = ip + 7;
    ip = code + U32(1);
    if (__builtin_expect(count == 2, 1)) {
      uint16_t src0 = readU16(p), dst0 = readU16(p + 2);
      uint16_t src1 = readU16(p + 4), dst1 = readU16(p + 6);
      if (__builtin_expect(((src0 | src1) & STRATA_REGISTER_REF_BIT) == 0, 1)) {
        R[dst0] = R[src0];
        R[dst1] = R[src1];
        JUMP();
      }
    } else if (count == 1) {
      uint16_t src0 = readU16(p), dst0 = readU16(p + 2);
      if (__builtin_expect((src0 & STRATA_REGISTER_REF_BIT) == 0, 1)) {
        R[dst0] = R[src0];
        JUMP();
      }
    }
    if (count) {
      applyRemapPairs(p, count, R, stack);
    }
    JUMP();
  }

  // Both conditional branches. b1 is the offset of B1; P1, B2 and P2 follow.
  //
  // When neither remap list has entries (the usual case) the layout is fixed
  // and the instruction ends at b1 + 12. If the chosen target is that very
  // next instruction (a loop body after its header, the code after a base
  // case), ip moves by a constant behind a predicted compare instead of
  // through the loaded offset: ip's chain from one instruction to the next is
  // then an add, not a load, and loops stop waiting on it. OPAQUE keeps the
  // compiler from folding the two equal values back into the load.
#define OPAQUE(x) asm("" : "+r"(x))
#define COND_BRANCH(taken, b1_offset)                                       \
  do {                                                                      \
    const uint8_t* b1 = ip + (b1_offset);                                   \
    if (__builtin_expect((readU16(b1 + 4) | readU16(b1 + 10)) == 0, 1)) {   \
      uint32_t target = (taken) ? readU32(b1) : readU32(b1 + 6);            \
      const uint8_t* next = b1 + 12;                                        \
      if (__builtin_expect(target == static_cast<uint32_t>(next - code), 1)) { \
        ip = next;                                                          \
        OPAQUE(ip);                                                         \
      } else {                                                              \
        ip = code + target;                                                 \
        POLL_INTERRUPT();                                                   \
      }                                                                     \
    } else if (taken) {                                                     \
      applyRemap(b1 + 4, R, stack);                                         \
      ip = code + readU32(b1);                                              \
      POLL_INTERRUPT();                                                     \
    } else {                                                                \
      const uint8_t* b2 = b1 + 4 + remapListSize(b1 + 4);                   \
      applyRemap(b2 + 4, R, stack);                                         \
      ip = code + readU32(b2);                                              \
      POLL_INTERRUPT();                                                     \
    }                                                                       \
    JUMP();                                                                 \
  } while (0)
  OP(CondBr) { COND_BRANCH(I32(1) != 0, 3); }
  OP(CondBrLtSI64) {
    // The loop-header and recursion-base test of compiled code: one dispatch
    // instead of two, and no i1 register written and read back.
    COND_BRANCH(I64(1) < I64(3), 5);
  }
  OP(CondBrLtSI64Imm) {
    // The same against a constant: a recursion's base case (n < 2) needs no
    // register loaded with the bound on every call.
    COND_BRANCH(I64(1) < static_cast<int64_t>(readU64(ip + 3)), 11);
  }
  OP(BrTable) {
    POLL_INTERRUPT();
    uint32_t index = U32R(1);
    const uint8_t* p = ip + 7;
    const uint8_t* cases = p + remapListSize(p);
    uint32_t count = readU16(cases);
    const uint8_t* c = cases + 2;
    if (index < count) {
      for (uint32_t i = 0; i < index; ++i) {
        c += 4 + remapListSize(c + 4);
      }
      applyRemap(c + 4, R, stack);
      ip = code + readU32(c);
    } else {
      applyRemap(p, R, stack);
      ip = code + U32(3);
    }
    JUMP();
  }
  OP(Call) {
    // The common case inline: a frame that fits the arenas and the depth
    // limit. Everything comes from the caller's frame: the callee sits in the
    // same function table, so no trip through the module state is needed.
    POLL_INTERRUPT();
    uint32_t depth = stack->frame_count;
    Frame* caller = &stack->frames[depth - 1];
    uint32_t callee_index = U32(1);
    const Function* fn = caller->function - caller->function_index + callee_index;
    const uint8_t* args = ip + 5;
    uint32_t prim_base = stack->prim_top;
    uint32_t ref_base = stack->ref_top;
    // Bitwise ors: one predictable branch instead of four.
    if (__builtin_expect((depth >= stack->frame_capacity) |
                             (depth >= stack->max_depth) |
                             (uint64_t(prim_base) + fn->prim_register_count >
                              stack->prim_capacity) |
                             (uint64_t(ref_base) + fn->ref_register_count >
                              stack->ref_capacity),
                         0)) {
      call_target = caller->state;
      call_function = callee_index;
      call_args = args;
      goto bytecode_call;  // grows the arenas or fails with the limit
    }
    uint32_t count = readU16(args);
    const uint8_t* result_list = args + 2 + 2 * count;
    caller->pc =
        static_cast<uint32_t>(result_list + registerListSize(result_list) - code);
    caller->call_pc = static_cast<uint32_t>(ip - code);
    Frame* callee = caller + 1;
    callee->state = caller->state;
    callee->function = fn;
    callee->function_index = callee_index;
    callee->pc = 0;
    callee->call_pc = 0;
    callee->prim_base = prim_base;
    callee->ref_base = ref_base;
    stack->frame_count = depth + 1;
    stack->prim_top = prim_base + fn->prim_register_count;
    uint64_t* regs = stack->prims + prim_base;
    if (uint32_t ref_count = fn->ref_register_count) {
      strata_vm_ref_object_t** refs = stack->refs + ref_base;
      std::memset(refs, 0, ref_count * sizeof(strata_vm_ref_object_t*));
      stack->ref_top = ref_base + ref_count;
      strata_vm_ref_object_t** caller_refs = stack->refs + caller->ref_base;
      uint32_t p = 0, r = 0;
      for (uint32_t i = 0; i < count; ++i) {
        uint16_t reg = readU16(args + 2 + 2 * i);
        if (reg & STRATA_REGISTER_REF_BIT) {
          refs[r++] = takeRef(caller_refs, reg);
        } else {
          regs[p++] = R[reg];
        }
      }
    } else if (count == 1) {
      // No ref registers: the verified arguments are all primitives.
      regs[0] = R[readU16(args + 2)];
    } else {
      for (uint32_t i = 0; i < count; ++i) {
        regs[i] = R[readU16(args + 2 + 2 * i)];
      }
    }
    code = fn->code;
    ip = code;
    R = regs;
    JUMP();
  }
  OP(CallImport) {
    POLL_INTERRUPT();
    call_import = &FRAME->state->imports[U32(1)];
    call_sizes = nullptr;
    call_args = ip + 5;
    if (call_import->kind == ResolvedImport::Kind::kBytecode) {
      call_target = call_import->target;
      call_function = call_import->ordinal;
      goto bytecode_call;
    }
    goto native_call;
  }
  OP(CallVariadic) {
    // Variadic imports always resolve to native functions: the context
    // rejects a bytecode export for a variadic import.
    call_import = &FRAME->state->imports[U32(1)];
    call_sizes = ip + 5;
    call_args = call_sizes + registerListSize(call_sizes);
    goto native_call;
  }
  OP(Return) {
    const uint8_t* list = ip + 1;
    uint32_t count = readU16(list);
    if (stack->frame_count == 1) {
      // Back to the host.
      strata_vm_value_t* results = stack->host_results;
      std::string_view chars = FRAME->function->signature.results;
      for (uint32_t i = 0; i < count; ++i) {
        uint16_t reg = readU16(list + 2 + 2 * i);
        if (reg & STRATA_REGISTER_REF_BIT) {
          results[i].ref = takeRef(RR, reg);
        } else if (chars[i] == 'i' || chars[i] == 'f') {
          results[i].bits = uint32_t(R[reg]);
        } else {
          results[i].bits = R[reg];
        }
      }
      popFrame(stack);
      *out_state = RunState::kCompleted;
      return nullptr;
    }
    // Straight back into the caller's registers. Its pc is the instruction
    // after the call, and the call's result registers end right there: the
    // verifier matched both lists to one signature, so they have `count`
    // entries and ip does not wait on loading the list's length.
    Frame* callee = &stack->frames[stack->frame_count - 1];
    Frame* caller = callee - 1;
    const uint8_t* caller_code = caller->function->code;
    const uint8_t* resume = caller_code + caller->pc;
    const uint8_t* results = resume - 2 * count;
    uint64_t* caller_regs = stack->prims + caller->prim_base;
    if (count == 1 && !(readU16(list + 2) & STRATA_REGISTER_REF_BIT)) {
      caller_regs[readU16(results)] = R[readU16(list + 2)];
      count = 0;  // done; one primitive result is the common case
    }
    for (uint32_t i = 0; i < count; ++i) {
      uint16_t src = readU16(list + 2 + 2 * i);
      uint16_t dst = readU16(results + 2 * i);
      if (__builtin_expect(src & STRATA_REGISTER_REF_BIT, 0)) {
        assignRef(&stack->refs[caller->ref_base + (dst & STRATA_REGISTER_REF_MASK)],
                  takeRef(stack->refs + callee->ref_base, src));
      } else {
        caller_regs[dst] = R[src];
      }
    }
    popFrame(stack);
    code = caller_code;
    ip = resume;
    R = caller_regs;
    JUMP();
  }
  OP(Fail) {
    uint32_t length = U16(3);
    FAIL(strata_make_status(failCode(I32(1)), "%.*s", static_cast<int>(length),
                            reinterpret_cast<const char*>(ip + 5)));
  }
  OP(CondFail) {
    if (I32(1) != 0) {
      uint32_t length = U16(5);
      FAIL(strata_make_status(failCode(I32(3)), "%.*s",
                              static_cast<int>(length),
                              reinterpret_cast<const char*>(ip + 7)));
    }
    NEXT(7 + U16(5));
  }
  OP(CondFailNeI64) {
    if (__builtin_expect(I64(1) != I64(3), 0)) {
      FAIL(failNotEqual(I32(5), ip + 9, U16(7), I64(1), I64(3)));
    }
    NEXT(9 + U16(7));
  }
  OP(Yield) {
    // The host resumes a yield at once, so a loop through a yield (no
    // backward branch, no call) must meet the deadline here; a yield costs
    // a return to the host, so one look at the clock is nothing beside it.
    if (stack->deadline_ns != INT64_MAX &&
        monotonicNowNs() >= stack->deadline_ns) {
      FAIL(strata_make_status(STRATA_STATUS_DEADLINE_EXCEEDED,
                              "the call's deadline passed while its bytecode "
                              "ran"));
    }
    applyRemap(ip + 5, R, stack);
    FRAME->pc = U32(1);
    *out_state = RunState::kSuspended;
    return nullptr;
  }
  OP(ImportResolved) {
    const ResolvedImport& import = FRAME->state->imports[U32(1)];
    SET_I32(5, import.kind != ResolvedImport::Kind::kNull);
    NEXT(7);
  }

  //===--------------------------------------------------------------------===//
  // Constants and moves
  //===--------------------------------------------------------------------===//

  OP(ConstI32) {
    SET_I32(5, static_cast<int32_t>(U32(1)));
    NEXT(7);
  }
  OP(ConstI64) {
    SET_I64(9, readU64(ip + 1));
    NEXT(11);
  }
  OP(ConstF32) {
    REG(5) = U32(1);
    NEXT(7);
  }
  OP(ConstF64) {
    REG(9) = readU64(ip + 1);
    NEXT(11);
  }
  OP(ConstRefZero) {
    assignRef(&REF(1), nullptr);
    NEXT(3);
  }
  OP(ConstRefRodata) {
    strata_vm_buffer_t* buffer = FRAME->state->rodata[U32(1)];
    strata_vm_buffer_retain(buffer);
    assignRef(&REF(5), strata_vm_buffer_as_ref(buffer));
    NEXT(7);
  }
  OP(Mov) {
    REG(3) = REG(1);
    NEXT(5);
  }
  OP(MovRef) {
    uint16_t src = U16(1);
    uint16_t dst = U16(3);
    if ((src & STRATA_REGISTER_REF_MASK) != (dst & STRATA_REGISTER_REF_MASK)) {
      assignRef(&RR[dst & STRATA_REGISTER_REF_MASK], takeRef(RR, src));
    }
    NEXT(5);
  }

  //===--------------------------------------------------------------------===//
  // Globals
  //===--------------------------------------------------------------------===//

  OP(GlobalLoadI32) {
    uint32_t v;
    std::memcpy(&v, FRAME->state->globals + U32(1), 4);
    REG(5) = v;
    NEXT(7);
  }
  OP(GlobalLoadI64) {
    uint64_t v;
    std::memcpy(&v, FRAME->state->globals + U32(1), 8);
    REG(5) = v;
    NEXT(7);
  }
  OP(GlobalLoadF32) {
    uint32_t v;
    std::memcpy(&v, FRAME->state->globals + U32(1), 4);
    REG(5) = v;
    NEXT(7);
  }
  OP(GlobalLoadF64) {
    uint64_t v;
    std::memcpy(&v, FRAME->state->globals + U32(1), 8);
    REG(5) = v;
    NEXT(7);
  }
  OP(GlobalLoadRef) {
    strata_vm_ref_object_t* ref = FRAME->state->ref_globals[U32(1)];
    strata_vm_ref_retain(ref);
    assignRef(&REF(5), ref);
    NEXT(7);
  }
  OP(GlobalStoreI32) {
    uint32_t v = U32R(1);
    std::memcpy(FRAME->state->globals + U32(3), &v, 4);
    NEXT(7);
  }
  OP(GlobalStoreI64) {
    uint64_t v = REG(1);
    std::memcpy(FRAME->state->globals + U32(3), &v, 8);
    NEXT(7);
  }
  OP(GlobalStoreF32) {
    uint32_t v = U32R(1);
    std::memcpy(FRAME->state->globals + U32(3), &v, 4);
    NEXT(7);
  }
  OP(GlobalStoreF64) {
    uint64_t v = REG(1);
    std::memcpy(FRAME->state->globals + U32(3), &v, 8);
    NEXT(7);
  }
  OP(GlobalStoreRef) {
    assignRef(&FRAME->state->ref_globals[U32(3)], takeRef(RR, U16(1)));
    NEXT(7);
  }

  //===--------------------------------------------------------------------===//
  // Integer arithmetic
  //===--------------------------------------------------------------------===//

#define BINARY_I32(name, expr)     \
  OP(name) {                       \
    uint32_t a = U32R(1);          \
    uint32_t b = U32R(3);          \
    (void)a;                       \
    (void)b;                       \
    SET_I32(5, (expr));            \
    NEXT(7);                       \
  }
#define BINARY_I64(name, expr)     \
  OP(name) {                       \
    uint64_t a = U64R(1);          \
    uint64_t b = U64R(3);          \
    (void)a;                       \
    (void)b;                       \
    SET_I64(5, (expr));            \
    NEXT(7);                       \
  }
#define UNARY_I32(name, expr)      \
  OP(name) {                       \
    uint32_t a = U32R(1);          \
    SET_I32(3, (expr));            \
    NEXT(5);                       \
  }
#define UNARY_I64(name, expr)      \
  OP(name) {                       \
    uint64_t a = U64R(1);          \
    SET_I64(3, (expr));            \
    NEXT(5);                       \
  }
// Signed division tests 0 and -1 with one compare (U(b) + 1 <= 1): -1 needs
// its own result because MIN / -1 traps on x86.
#define DIVIDE_S(name, T, U, SET, minus_one, expr)                         \
  OP(name) {                                                               \
    T a = static_cast<T>(static_cast<U>(REG(1)));                          \
    T b = static_cast<T>(static_cast<U>(REG(3)));                          \
    if (__builtin_expect(static_cast<U>(static_cast<U>(b) + 1) <= 1, 0)) { \
      if (b == 0) {                                                        \
        FAIL(strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,            \
                                "integer division by zero (%s)",           \
                                kOpcodeInfo[*ip].mnemonic));               \
      }                                                                    \
      SET(5, (minus_one));                                                 \
      NEXT(7);                                                             \
    }                                                                      \
    SET(5, (expr));                                                        \
    NEXT(7);                                                               \
  }
#define DIVIDE(name, T, U, SET, expr)                                      \
  OP(name) {                                                               \
    T a = static_cast<T>(static_cast<U>(REG(1)));                          \
    T b = static_cast<T>(static_cast<U>(REG(3)));                          \
    if (b == 0) {                                                          \
      FAIL(strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,              \
                              "integer division by zero (%s)",             \
                              kOpcodeInfo[*ip].mnemonic));                 \
    }                                                                      \
    SET(5, (expr));                                                        \
    NEXT(7);                                                               \
  }

  BINARY_I32(AddI32, a + b)
  BINARY_I32(SubI32, a - b)
  BINARY_I32(MulI32, a * b)
  DIVIDE_S(DivSI32, int32_t, uint32_t, SET_I32,
           static_cast<int32_t>(0u - static_cast<uint32_t>(a)), a / b)
  DIVIDE(DivUI32, uint32_t, uint32_t, SET_I32, a / b)
  DIVIDE_S(RemSI32, int32_t, uint32_t, SET_I32, 0, a % b)
  DIVIDE(RemUI32, uint32_t, uint32_t, SET_I32, a % b)
  BINARY_I32(ShlI32, a << (b & 31))
  BINARY_I32(ShrSI32, static_cast<uint32_t>(static_cast<int32_t>(a) >> (b & 31)))
  BINARY_I32(ShrUI32, a >> (b & 31))
  BINARY_I32(AndI32, a & b)
  BINARY_I32(OrI32, a | b)
  BINARY_I32(XorI32, a ^ b)
  UNARY_I32(NotI32, ~a)
  UNARY_I32(NegI32, 0u - a)
  BINARY_I32(MinSI32, static_cast<int32_t>(a) < static_cast<int32_t>(b) ? a : b)
  BINARY_I32(MinUI32, a < b ? a : b)
  BINARY_I32(MaxSI32, static_cast<int32_t>(a) > static_cast<int32_t>(b) ? a : b)
  BINARY_I32(MaxUI32, a > b ? a : b)
  UNARY_I32(AbsI32, static_cast<int32_t>(a) < 0 ? 0u - a : a)
  UNARY_I32(CtlzI32, clz32(a))

  BINARY_I64(AddI64, a + b)
  BINARY_I64(SubI64, a - b)
  BINARY_I64(MulI64, a * b)
  DIVIDE_S(DivSI64, int64_t, uint64_t, SET_I64,
           static_cast<int64_t>(0ull - static_cast<uint64_t>(a)), a / b)
  DIVIDE(DivUI64, uint64_t, uint64_t, SET_I64, a / b)
  DIVIDE_S(RemSI64, int64_t, uint64_t, SET_I64, 0, a % b)
  DIVIDE(RemUI64, uint64_t, uint64_t, SET_I64, a % b)
  BINARY_I64(ShlI64, a << (b & 63))
  BINARY_I64(ShrSI64, static_cast<uint64_t>(static_cast<int64_t>(a) >> (b & 63)))
  BINARY_I64(ShrUI64, a >> (b & 63))
  BINARY_I64(AndI64, a & b)
  BINARY_I64(OrI64, a | b)
  BINARY_I64(XorI64, a ^ b)
  UNARY_I64(NotI64, ~a)
  UNARY_I64(NegI64, 0ull - a)
  BINARY_I64(MinSI64, static_cast<int64_t>(a) < static_cast<int64_t>(b) ? a : b)
  BINARY_I64(MinUI64, a < b ? a : b)
  BINARY_I64(MaxSI64, static_cast<int64_t>(a) > static_cast<int64_t>(b) ? a : b)
  BINARY_I64(MaxUI64, a > b ? a : b)
  UNARY_I64(AbsI64, static_cast<int64_t>(a) < 0 ? 0ull - a : a)
  UNARY_I64(CtlzI64, clz64(a))

  // Constant operands folded into the instruction (as Lua's ADDI/MULK/MODK):
  // one register read fewer per instruction and no const.i64 to dispatch.
  // rem.i64.s.imm needs no test at all: the verifier rejected the divisors
  // 0 (a fault) and -1 (MIN % -1 traps on x86).
  OP(AddI64Imm) {
    SET_I64(11, U64R(1) + readU64(ip + 3));
    NEXT(13);
  }
  OP(MulI64Imm) {
    SET_I64(11, U64R(1) * readU64(ip + 3));
    NEXT(13);
  }
  OP(RemSI64Imm) {
    SET_I64(11, I64(1) % static_cast<int64_t>(readU64(ip + 3)));
    NEXT(13);
  }

  //===--------------------------------------------------------------------===//
  // Floating point
  //===--------------------------------------------------------------------===//

#define BINARY_F(name, GET, SET, expr) \
  OP(name) {                           \
    auto a = GET(1);                   \
    auto b = GET(3);                   \
    SET(5, (expr));                    \
    NEXT(7);                           \
  }
#define UNARY_F(name, GET, SET, expr) \
  OP(name) {                          \
    auto a = GET(1);                  \
    SET(3, (expr));                   \
    NEXT(5);                          \
  }
#define FLOAT_OPS(T, GET, SET)                                         \
  BINARY_F(Add##T, GET, SET, a + b)                                    \
  BINARY_F(Sub##T, GET, SET, a - b)                                    \
  BINARY_F(Mul##T, GET, SET, a * b)                                    \
  BINARY_F(Div##T, GET, SET, a / b)                                    \
  BINARY_F(Rem##T, GET, SET, std::fmod(a, b))                          \
  UNARY_F(Neg##T, GET, SET, -a)                                        \
  UNARY_F(Abs##T, GET, SET, std::fabs(a))                              \
  UNARY_F(Sqrt##T, GET, SET, std::sqrt(a))                             \
  UNARY_F(Exp##T, GET, SET, std::exp(a))                               \
  UNARY_F(Log##T, GET, SET, std::log(a))                               \
  BINARY_F(Pow##T, GET, SET, std::pow(a, b))                           \
  UNARY_F(Tanh##T, GET, SET, std::tanh(a))                             \
  UNARY_F(Erf##T, GET, SET, std::erf(a))                               \
  UNARY_F(Floor##T, GET, SET, std::floor(a))                           \
  UNARY_F(Ceil##T, GET, SET, std::ceil(a))                             \
  UNARY_F(Round##T, GET, SET, std::round(a))                           \
  UNARY_F(RoundEven##T, GET, SET, roundEven(a))                        \
  OP(Fma##T) {                                                         \
    SET(7, std::fma(GET(1), GET(3), GET(5)));                          \
    NEXT(9);                                                           \
  }                                                                    \
  BINARY_F(Min##T, GET, SET, fmin2(a, b))                              \
  BINARY_F(Max##T, GET, SET, fmax2(a, b))                              \
  UNARY_F(Sin##T, GET, SET, std::sin(a))                               \
  UNARY_F(Cos##T, GET, SET, std::cos(a))                               \
  UNARY_F(Exp2##T, GET, SET, std::exp2(a))                             \
  UNARY_F(Log2##T, GET, SET, std::log2(a))

  FLOAT_OPS(F32, F32, SET_F32)
  FLOAT_OPS(F64, F64, SET_F64)

  //===--------------------------------------------------------------------===//
  // Compares and selects
  //===--------------------------------------------------------------------===//

#define COMPARE(name, GET, expr) \
  OP(name) {                     \
    auto a = GET(1);             \
    auto b = GET(3);             \
    SET_I32(5, (expr) ? 1 : 0);  \
    NEXT(7);                     \
  }
  COMPARE(CmpEqI32, U32R, a == b)
  COMPARE(CmpNeI32, U32R, a != b)
  COMPARE(CmpLtSI32, I32, a < b)
  COMPARE(CmpLtUI32, U32R, a < b)
  COMPARE(CmpLeSI32, I32, a <= b)
  COMPARE(CmpLeUI32, U32R, a <= b)
  OP(CmpNzI32) {
    SET_I32(3, U32R(1) != 0);
    NEXT(5);
  }
  COMPARE(CmpEqI64, U64R, a == b)
  COMPARE(CmpNeI64, U64R, a != b)
  COMPARE(CmpLtSI64, I64, a < b)
  COMPARE(CmpLtUI64, U64R, a < b)
  COMPARE(CmpLeSI64, I64, a <= b)
  COMPARE(CmpLeUI64, U64R, a <= b)
  OP(CmpNzI64) {
    SET_I32(3, U64R(1) != 0);
    NEXT(5);
  }
  COMPARE(CmpEqF32, F32, a == b)
  COMPARE(CmpNeF32, F32, a != b)
  COMPARE(CmpLtF32, F32, a < b)
  COMPARE(CmpLeF32, F32, a <= b)
  COMPARE(CmpNanF32, F32, std::isnan(a) || std::isnan(b))
  COMPARE(CmpEqF64, F64, a == b)
  COMPARE(CmpNeF64, F64, a != b)
  COMPARE(CmpLtF64, F64, a < b)
  COMPARE(CmpLeF64, F64, a <= b)
  COMPARE(CmpNanF64, F64, std::isnan(a) || std::isnan(b))
  OP(CmpEqRef) {
    SET_I32(5, REF(1) == REF(3));
    NEXT(7);
  }
  OP(CmpNzRef) {
    SET_I32(3, REF(1) != nullptr);
    NEXT(5);
  }
  OP(Select) {
    REG(7) = I32(1) != 0 ? REG(3) : REG(5);
    NEXT(9);
  }
  OP(SelectRef) {
    strata_vm_ref_object_t* chosen = I32(1) != 0 ? REF(3) : REF(5);
    strata_vm_ref_retain(chosen);
    assignRef(&REF(7), chosen);
    NEXT(9);
  }

  //===--------------------------------------------------------------------===//
  // Casts
  //===--------------------------------------------------------------------===//

  UNARY_I64(TruncI64I32, static_cast<uint32_t>(a))
  UNARY_I64(ExtI32I64S,
            static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(a))))
  UNARY_I64(ExtI32I64U, static_cast<uint32_t>(a))
  UNARY_I32(ExtI8I32S, static_cast<int32_t>(static_cast<int8_t>(a & 0xFF)))
  UNARY_I32(ExtI8I32U, a & 0xFFu)
  UNARY_I32(ExtI16I32S, static_cast<int32_t>(static_cast<int16_t>(a & 0xFFFF)))
  UNARY_I32(ExtI16I32U, a & 0xFFFFu)
  UNARY_F(CastSI32F32, I32, SET_F32, static_cast<float>(a))
  UNARY_F(CastUI32F32, U32R, SET_F32, static_cast<float>(a))
  UNARY_F(CastSI64F32, I64, SET_F32, static_cast<float>(a))
  UNARY_F(CastUI64F32, U64R, SET_F32, static_cast<float>(a))
  UNARY_F(CastSI32F64, I32, SET_F64, static_cast<double>(a))
  UNARY_F(CastUI32F64, U32R, SET_F64, static_cast<double>(a))
  UNARY_F(CastSI64F64, I64, SET_F64, static_cast<double>(a))
  UNARY_F(CastUI64F64, U64R, SET_F64, static_cast<double>(a))
  UNARY_F(CastF32SI32, F32, SET_I32, (saturatingCast<int32_t, float>(a)))
  UNARY_F(CastF32UI32, F32, SET_I32, (saturatingCast<uint32_t, float>(a)))
  UNARY_F(CastF32SI64, F32, SET_I64, (saturatingCast<int64_t, float>(a)))
  UNARY_F(CastF32UI64, F32, SET_I64, (saturatingCast<uint64_t, float>(a)))
  UNARY_F(CastF64SI32, F64, SET_I32, (saturatingCast<int32_t, double>(a)))
  UNARY_F(CastF64UI32, F64, SET_I32, (saturatingCast<uint32_t, double>(a)))
  UNARY_F(CastF64SI64, F64, SET_I64, (saturatingCast<int64_t, double>(a)))
  UNARY_F(CastF64UI64, F64, SET_I64, (saturatingCast<uint64_t, double>(a)))
  UNARY_F(ExtF32F64, F32, SET_F64, static_cast<double>(a))
  UNARY_F(TruncF64F32, F64, SET_F32, static_cast<float>(a))
  // Bitcasts keep the bits; i32/f32 occupy the low 32 bits of a slot.
  UNARY_I32(BitcastI32F32, a)
  UNARY_I32(BitcastF32I32, a)
  UNARY_I64(BitcastI64F64, a)
  UNARY_I64(BitcastF64I64, a)

  //===--------------------------------------------------------------------===//
  // vm.buffer
  //===--------------------------------------------------------------------===//

  OP(BufferAlloc) {
    int64_t length = I64(1);
    if (length < 0) {
      FAIL(strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "buffer.alloc: negative length %lld",
                              static_cast<long long>(length)));
    }
    strata_vm_buffer_t* buffer = nullptr;
    CHECK(strata_vm_buffer_create(static_cast<size_t>(length), 0,
                                  CONTEXT->allocator, &buffer));
    assignRef(&REF(3), strata_vm_buffer_as_ref(buffer));
    NEXT(5);
  }
  OP(BufferClone) {
    uint8_t* ptr = nullptr;
    CHECK(mapBytes("buffer.clone", REF(1), I64(3), I64(5), false, &ptr));
    strata_vm_buffer_t* clone = nullptr;
    CHECK(strata_vm_buffer_clone(strata_vm_buffer_from_ref(REF(1)),
                                 uint64_t(I64(3)), uint64_t(I64(5)),
                                 CONTEXT->allocator, &clone));
    assignRef(&REF(7), strata_vm_buffer_as_ref(clone));
    NEXT(9);
  }
  OP(BufferLength) {
    strata_vm_buffer_t* buffer = strata_vm_buffer_from_ref(REF(1));
    if (!buffer) {
      FAIL(wrongRef("buffer.length", REF(1), "vm.buffer"));
    }
    SET_I64(3, static_cast<int64_t>(strata_vm_buffer_length(buffer)));
    NEXT(5);
  }
  OP(BufferCopy) {
    uint8_t* src = nullptr;
    uint8_t* dst = nullptr;
    CHECK(mapBytes("buffer.copy", REF(1), I64(3), I64(9), false, &src));
    CHECK(mapBytes("buffer.copy", REF(5), I64(7), I64(9), true, &dst));
    std::memmove(dst, src, static_cast<size_t>(I64(9)));
    NEXT(11);
  }
  OP(BufferCompare) {
    uint8_t* lhs = nullptr;
    uint8_t* rhs = nullptr;
    CHECK(mapBytes("buffer.compare", REF(1), I64(3), I64(9), false, &lhs));
    CHECK(mapBytes("buffer.compare", REF(5), I64(7), I64(9), false, &rhs));
    SET_I32(11, std::memcmp(lhs, rhs, static_cast<size_t>(I64(9))) == 0);
    NEXT(13);
  }
#define BUFFER_FILL(name, T)                                              \
  OP(name) {                                                              \
    uint8_t* ptr = nullptr;                                               \
    CHECK(mapElements(kOpcodeInfo[*ip].mnemonic, REF(1), I64(3), I64(5),  \
                      sizeof(T), true, &ptr));                            \
    T value = static_cast<T>(REG(7));                                     \
    for (int64_t i = 0, n = I64(5); i < n; ++i) {                         \
      std::memcpy(ptr + i * sizeof(T), &value, sizeof(T));                \
    }                                                                     \
    NEXT(9);                                                              \
  }
  BUFFER_FILL(BufferFillI8, uint8_t)
  BUFFER_FILL(BufferFillI16, uint16_t)
  BUFFER_FILL(BufferFillI32, uint32_t)
  BUFFER_FILL(BufferFillI64, uint64_t)
#define BUFFER_LOAD(name, T, WIDEN)                                       \
  OP(name) {                                                              \
    uint8_t* ptr = nullptr;                                               \
    CHECK(mapElements(kOpcodeInfo[*ip].mnemonic, REF(1), I64(3), 1,       \
                      sizeof(T), false, &ptr));                           \
    T value;                                                              \
    std::memcpy(&value, ptr, sizeof(T));                                  \
    REG(5) = WIDEN(value);                                                \
    NEXT(7);                                                              \
  }
#define WIDEN_S32(v) static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(v)))
#define WIDEN_U(v) static_cast<uint64_t>(v)
  BUFFER_LOAD(BufferLoadI8S, int8_t, WIDEN_S32)
  BUFFER_LOAD(BufferLoadI8U, uint8_t, WIDEN_U)
  BUFFER_LOAD(BufferLoadI16S, int16_t, WIDEN_S32)
  BUFFER_LOAD(BufferLoadI16U, uint16_t, WIDEN_U)
  BUFFER_LOAD(BufferLoadI32, uint32_t, WIDEN_U)
  BUFFER_LOAD(BufferLoadI64, uint64_t, WIDEN_U)
  BUFFER_LOAD(BufferLoadF32, uint32_t, WIDEN_U)
  BUFFER_LOAD(BufferLoadF64, uint64_t, WIDEN_U)
#define BUFFER_STORE(name, T)                                             \
  OP(name) {                                                              \
    uint8_t* ptr = nullptr;                                               \
    CHECK(mapElements(kOpcodeInfo[*ip].mnemonic, REF(1), I64(3), 1,       \
                      sizeof(T), true, &ptr));                            \
    T value = static_cast<T>(REG(5));                                     \
    std::memcpy(ptr, &value, sizeof(T));                                  \
    NEXT(7);                                                              \
  }
  BUFFER_STORE(BufferStoreI8, uint8_t)
  BUFFER_STORE(BufferStoreI16, uint16_t)
  BUFFER_STORE(BufferStoreI32, uint32_t)
  BUFFER_STORE(BufferStoreI64, uint64_t)
  BUFFER_STORE(BufferStoreF32, uint32_t)
  BUFFER_STORE(BufferStoreF64, uint64_t)

  //===--------------------------------------------------------------------===//
  // vm.list
  //===--------------------------------------------------------------------===//

  OP(ListAlloc) {
    int32_t capacity = I32(1);
    if (capacity < 0) {
      FAIL(strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "list.alloc: negative capacity %d", capacity));
    }
    strata_vm_list_t* list = nullptr;
    CHECK(strata_vm_list_create(size_t(capacity), CONTEXT->allocator, &list));
    assignRef(&REF(3), strata_vm_list_as_ref(list));
    NEXT(5);
  }
  OP(ListReserve) {
    strata_vm_list_t* list = strata_vm_list_from_ref(REF(1));
    if (!list) {
      FAIL(wrongRef("list.reserve", REF(1), "vm.list"));
    }
    if (I32(3) < 0) {
      FAIL(strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "list.reserve: negative capacity %d", I32(3)));
    }
    CHECK(strata_vm_list_reserve(list, size_t(I32(3))));
    NEXT(5);
  }
  OP(ListSize) {
    strata_vm_list_t* list = strata_vm_list_from_ref(REF(1));
    if (!list) {
      FAIL(wrongRef("list.size", REF(1), "vm.list"));
    }
    SET_I32(3, static_cast<int32_t>(strata_vm_list_size(list)));
    NEXT(5);
  }
  OP(ListResize) {
    strata_vm_list_t* list = strata_vm_list_from_ref(REF(1));
    if (!list) {
      FAIL(wrongRef("list.resize", REF(1), "vm.list"));
    }
    if (I32(3) < 0) {
      FAIL(strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "list.resize: negative size %d", I32(3)));
    }
    CHECK(strata_vm_list_resize(list, size_t(I32(3))));
    NEXT(5);
  }
#define LIST_GET(name, TYPE)                                              \
  OP(name) {                                                              \
    uint64_t bits = 0;                                                    \
    CHECK(listGetPrim(kOpcodeInfo[*ip].mnemonic, REF(1), I32(3), TYPE,    \
                      &bits));                                            \
    REG(5) = bits;                                                        \
    NEXT(7);                                                              \
  }
  LIST_GET(ListGetI32, STRATA_VM_VALUE_I32)
  LIST_GET(ListGetI64, STRATA_VM_VALUE_I64)
  LIST_GET(ListGetF32, STRATA_VM_VALUE_F32)
  LIST_GET(ListGetF64, STRATA_VM_VALUE_F64)
  OP(ListGetRef) {
    strata_vm_list_t* list = nullptr;
    CHECK(listElement("list.get.ref", REF(1), I32(3), &list));
    const strata_vm_variant_t& v = strata_vm_list_data(list)[I32(3)];
    strata_vm_ref_object_t* ref = nullptr;
    if (v.type == STRATA_VM_VALUE_REF) {
      ref = v.value.ref;
    } else if (v.type != STRATA_VM_VALUE_NONE) {
      FAIL(strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "list.get.ref: element %d is %s, expected ref",
                              I32(3), strata_vm_value_type_name(v.type)));
    }
    strata_vm_ref_retain(ref);
    assignRef(&REF(5), ref);
    NEXT(7);
  }
#define LIST_SET(name, TYPE)                                              \
  OP(name) {                                                              \
    uint64_t bits = REG(5);                                               \
    if (TYPE == STRATA_VM_VALUE_I32 || TYPE == STRATA_VM_VALUE_F32) {     \
      bits = uint32_t(bits);                                              \
    }                                                                     \
    CHECK(listSetPrim(kOpcodeInfo[*ip].mnemonic, REF(1), I32(3), TYPE,    \
                      bits));                                             \
    NEXT(7);                                                              \
  }
  LIST_SET(ListSetI32, STRATA_VM_VALUE_I32)
  LIST_SET(ListSetI64, STRATA_VM_VALUE_I64)
  LIST_SET(ListSetF32, STRATA_VM_VALUE_F32)
  LIST_SET(ListSetF64, STRATA_VM_VALUE_F64)
  OP(ListSetRef) {
    strata_vm_list_t* list = nullptr;
    CHECK(listElement("list.set.ref", REF(1), I32(3), &list));
    strata_vm_ref_object_t* value = takeRef(RR, U16(5));
    strata_vm_variant_t v;
    v.type = STRATA_VM_VALUE_REF;
    v.value.ref = value;
    strata_status_t set_status =
        strata_vm_list_set_move(list, size_t(I32(3)), v);
    if (set_status) {
      strata_vm_ref_release(value);
      FAIL(set_status);
    }
    NEXT(7);
  }
  OP(CastRef) {
    strata_vm_ref_object_t* ref = REF(1);
    const strata_vm_ref_type_t* type = FRAME->state->bytecode->types[U32(3)];
    if (ref && ref->type != type) {
      FAIL(strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "cast.ref: expected a %s, got a %s", type->name,
                              ref->type->name));
    }
    strata_vm_ref_retain(ref);
    assignRef(&REF(7), ref);
    NEXT(9);
  }

  //===--------------------------------------------------------------------===//
  // Debugging
  //===--------------------------------------------------------------------===//

  OP(Trace) {
    uint32_t length = U16(1);
    const uint8_t* list = ip + 3 + length;
    uint32_t count = readU16(list);
    if (CONTEXT->options.trace) {
      strata_vm_variant_t values[16];
      uint32_t n = count < 16 ? count : 16;
      for (uint32_t i = 0; i < n; ++i) {
        uint16_t reg = readU16(list + 2 + 2 * i);
        if (reg & STRATA_REGISTER_REF_BIT) {
          values[i] = strata_vm_variant_ref(RR[reg & STRATA_REGISTER_REF_MASK]);
        } else {
          values[i] = strata_vm_variant_i64(static_cast<int64_t>(R[reg]));
        }
      }
      CONTEXT->options.trace(CONTEXT->options.trace_user,
                             reinterpret_cast<const char*>(ip + 3), length,
                             values, n);
    }
    NEXT(3 + length + 2 + 2 * count);
  }
  OP(Print) {
    uint32_t length = U16(1);
    const uint8_t* list = ip + 3 + length;
    uint32_t count = readU16(list);
    char text[1024];
    int n = std::snprintf(text, sizeof(text), "%.*s", static_cast<int>(length),
                          reinterpret_cast<const char*>(ip + 3));
    for (uint32_t i = 0; i < count && n >= 0 && size_t(n) < sizeof(text);
         ++i) {
      uint16_t reg = readU16(list + 2 + 2 * i);
      if (reg & STRATA_REGISTER_REF_BIT) {
        strata_vm_ref_object_t* ref = RR[reg & STRATA_REGISTER_REF_MASK];
        n += std::snprintf(text + n, sizeof(text) - size_t(n), " %s",
                           ref ? ref->type->name : "null");
      } else {
        n += std::snprintf(text + n, sizeof(text) - size_t(n), " %lld",
                           static_cast<long long>(R[reg]));
      }
    }
    size_t length_out = n < 0 ? 0 : std::min(size_t(n), sizeof(text) - 1);
    if (CONTEXT->options.print) {
      CONTEXT->options.print(CONTEXT->options.print_user, text, length_out);
    } else {
      std::fprintf(stderr, "%.*s\n", static_cast<int>(length_out), text);
    }
    NEXT(3 + length + 2 + 2 * count);
  }
  OP(Break) { NEXT(1); }

#if STRATA_VM_COMPUTED_GOTO
L_Invalid:
  // Unreachable for verified code; kept so a bad table cannot run wild.
  FAIL(strata_make_status(STRATA_STATUS_INTERNAL,
                          "unverified opcode 0x%02x at pc %u", *ip,
                          static_cast<uint32_t>(ip - code)));
#endif

#if !STRATA_VM_COMPUTED_GOTO
    default:
      goto L_InvalidDefault;
  }
L_InvalidDefault:
  FAIL(strata_make_status(STRATA_STATUS_INTERNAL,
                          "unverified opcode 0x%02x at pc %u", *ip,
                          static_cast<uint32_t>(ip - code)));
#endif

  //===--------------------------------------------------------------------===//
  // Calls, shared by call, call.import and call.variadic
  //===--------------------------------------------------------------------===//

bytecode_call : {
  // Pushes a frame for call_function of call_target and moves the arguments
  // of the V list at call_args into its first registers, per bank.
  const uint8_t* result_list = call_args + registerListSize(call_args);
  FRAME->pc =
      static_cast<uint32_t>(result_list + registerListSize(result_list) - code);
  FRAME->call_pc = static_cast<uint32_t>(ip - code);
  uint32_t caller_prim_base = FRAME->prim_base;
  uint32_t caller_ref_base = FRAME->ref_base;
  CHECK(pushFrame(stack, call_target, call_function));
  // The arenas may have moved: recompute the caller's registers.
  uint64_t* caller_regs = stack->prims + caller_prim_base;
  strata_vm_ref_object_t** caller_refs = stack->refs + caller_ref_base;
  const Frame& callee = stack->frames[stack->frame_count - 1];
  uint64_t* regs = stack->prims + callee.prim_base;
  strata_vm_ref_object_t** refs = stack->refs + callee.ref_base;
  uint32_t count = readU16(call_args);
  uint32_t p = 0, r = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint16_t reg = readU16(call_args + 2 + 2 * i);
    if (reg & STRATA_REGISTER_REF_BIT) {
      refs[r++] = takeRef(caller_refs, reg);
    } else {
      regs[p++] = caller_regs[reg];
    }
  }
  LOAD_FRAME();
  JUMP();
}

native_call : {
  if (call_import->kind == ResolvedImport::Kind::kNull) {
    FAIL(strata_make_status(
        STRATA_STATUS_FAILED_PRECONDITION,
        "optional import '%.*s' is not present in this context",
        static_cast<int>(call_import->import->full_name.size()),
        call_import->import->full_name.data()));
  }
  const uint8_t* result_list = call_args + registerListSize(call_args);
  const Signature& sig = call_import->import->signature;
  uint32_t result_count = readU16(result_list);
  uint32_t arg_count = 0;
  if (!marshalArgs(stack, sig, call_sizes, call_args, R, RR, result_count,
                   &arg_count)) {
    FAIL(strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                            "out of memory marshalling a native call"));
  }
  strata_vm_value_t* results = stack->scratch + arg_count;
  for (uint32_t i = 0; i < result_count; ++i) {
    results[i].bits = 0;
  }
  ModuleState* target = call_import->target;
  const strata_vm_native_function_t& fn =
      target->module->native->functions[call_import->ordinal];
  strata_vm_native_call_t call{CONTEXT, stack, {}, stack->timed_out,
                               stack->deadline_ns};
  stack->timed_out = false;
  FRAME->call_pc = static_cast<uint32_t>(ip - code);
  strata_status_t call_status =
      fn.fn(&call, target->module->native_self, target->native_state,
            stack->scratch, arg_count, results, result_count);
  if (call_status) {
    if (strata_status_code(call_status) == STRATA_STATUS_DEFERRED) {
      // Park: the call runs again, with the same arguments, on resume.
      FRAME->pc = static_cast<uint32_t>(ip - code);
      stack->wait = call.wait;
      stack->deferred = true;
      *out_state = RunState::kSuspended;
      return nullptr;
    }
    releaseResults(results, sig.results);
    FAIL(strata_status_annotate(
        call_status, "in call to '%.*s'",
        static_cast<int>(call_import->import->full_name.size()),
        call_import->import->full_name.data()));
  }
  finishNativeCall(call_args, result_list, results, R, RR);
  ip = result_list + registerListSize(result_list);
  JUMP();
}

interrupt_check : {
  stack->interrupt_countdown = kInterruptInterval;
  if (stack->deadline_ns != INT64_MAX && monotonicNowNs() >= stack->deadline_ns) {
    FAIL(strata_make_status(STRATA_STATUS_DEADLINE_EXCEEDED,
                            "the call's deadline passed while its bytecode "
                            "ran"));
  }
  JUMP();
}

failed:
  status = annotateBacktrace(stack, status);
  stackReset(stack);
  return status;

#undef OP
#undef FRAME
#undef RR
#undef CONTEXT
#undef NEXT
#undef JUMP
#undef DISPATCH
}

}  // namespace strata::vm
