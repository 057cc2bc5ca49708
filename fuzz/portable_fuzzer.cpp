// portable_fuzzer.cpp - libFuzzer target for the portable-bytecode verifier
// (hal/src/portable_program.cpp): the bytes are a program; one the verifier
// accepts is then run, every export over bindings of exactly the bytes it
// declares, so AddressSanitizer sees any access the verifier let through.
// Exports whose loops are too long to run quickly (2^16 body steps) are
// only verified. Exports with dynamic shapes run with small push constants
// over 4 KiB bindings, once the dispatch's own check accepts them.
#include <cstdint>
#include <cstring>
#include <vector>

#include "executable_impl.h"
#include "kernel_bytecode.h"
#include "portable_program.h"

namespace {

namespace kernel = strata::kernel;

// Iterations of code[at, words) (verified, so the layout is sound).
uint64_t work(const uint32_t* code, size_t at, size_t words) {
  uint64_t total = 0;
  while (at < words) {
    const uint32_t* p = code + at;
    if (p[0] == static_cast<uint32_t>(kernel::Inst::Generic)) {
      uint32_t rank = p[1];
      uint64_t n = 1;
      for (uint32_t d = 0; d < rank; ++d) {
        n *= p[2 + d];
        if (n > (1u << 20)) n = 1u << 20;
      }
      size_t q = 2 + 2 * rank + 1;
      uint32_t operands = p[q];
      uint32_t outputs = p[q + 1];
      q += 2 + operands * (4 + 2 * rank);
      uint32_t body = p[q];
      total += n * (body + 1);
      at += q + 1 + body * kernel::kBodyWords + outputs;
    } else {
      uint64_t n = 1;
      for (int i = 1; i <= 4; ++i) {
        n *= p[i];
        if (n > (1u << 24)) n = 1u << 24;
      }
      total += n;
      at += 5 + 3 * 10;
    }
  }
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  strata_hal_executable_t* executable = nullptr;
  strata_status_t status = strata_hal_executable_load_portable(
      data, size, "fuzz", strata_allocator_system(), &executable);
  if (status) {
    strata_status_free(status);
    return 0;
  }
  const strata::hal::PortableProgram* program = executable->portable_program;
  for (uint32_t i = 0; i < program->export_count; ++i) {
    const strata::hal::PortableExport& e = program->exports[i];
    // Dynamic shapes: push constants of 3 (i64 words 3, 0) and bindings of
    // 4 KiB; the dispatch proves the patched code (or refuses it), and its
    // length is bounded on that code.
    if (e.value_count) {
      std::vector<uint32_t> constants(e.constant_count);
      for (size_t c = 0; c < constants.size(); ++c) {
        constants[c] = c % 2 == 0 ? 3 : 0;
      }
      std::vector<std::vector<uint8_t>> buffers(e.binding_count);
      std::vector<void*> ptrs(e.binding_count);
      std::vector<size_t> lengths(e.binding_count);
      for (uint32_t b = 0; b < e.binding_count; ++b) {
        size_t length = e.binding_bytes[b] > 4096 ? 0 : 4096;
        buffers[b].resize(length ? length : 1, 0x5A);
        ptrs[b] = buffers[b].data();
        lengths[b] = length;
      }
      std::vector<uint32_t> patched(e.code_words);
      uint64_t offsets[kernel::kMaxTemporaries];
      strata_hal_executable_dispatch_detail_v1_t detail = {};
      // Local memory: what the export asks for, at most 16 MiB (one with
      // temporaries sized at dispatch asks for the devices' most).
      uint64_t local_size = e.local_memory_size < (16u << 20)
                                ? e.local_memory_size
                                : uint64_t(16u << 20);
      if (local_size < e.code_copy_offset + 4ull * e.code_words) {
        continue;
      }
      if (strata::hal::preparePortableDispatch(
              e, constants.data(), lengths.data(), local_size, patched.data(),
              offsets, &detail) != 0) {
        continue;
      }
      size_t start = 4 + 3 * size_t(e.value_count) +
                     2 * size_t(e.requirement_count) +
                     2 * size_t(e.patch_count);
      if (work(patched.data(), start, e.code_words) > (1u << 16)) {
        continue;
      }
      std::vector<uint8_t> local(local_size ? local_size : 1);
      strata_hal_executable_dispatch_state_v0_t state = {};
      state.binding_count = static_cast<uint16_t>(e.binding_count);
      state.constant_count = static_cast<uint16_t>(e.constant_count);
      state.constants = constants.data();
      state.binding_ptrs = ptrs.data();
      state.binding_lengths = lengths.data();
      state.workgroup_count_x = 2;
      state.workgroup_count_y = 1;
      state.workgroup_count_z = 1;
      strata_hal_executable_workgroup_state_v1_t workgroup = {};
      workgroup.detail = &detail;
      workgroup.v0.local_memory = local.data();
      workgroup.v0.local_memory_size = static_cast<uint32_t>(local_size);
      for (uint32_t part = 0; part < 2; ++part) {
        workgroup.v0.workgroup_id_x = part;
        strata::hal::exportFunction(executable, i)(
            &strata::hal::dispatchEnvironment(executable, i), &state,
            &workgroup.v0);
      }
      continue;
    }
    // Bindings of at most 16 MiB together (each checked first: the sum of
    // declared sizes may wrap).
    uint64_t bytes = 0;
    bool small = true;
    for (uint32_t b = 0; b < e.binding_count; ++b) {
      small &= e.binding_bytes[b] <= (16u << 20);
      bytes += small ? e.binding_bytes[b] : 0;
    }
    if (!small || work(e.code, 0, e.code_words) > (1u << 16) ||
        bytes > (16u << 20)) {
      continue;
    }
    std::vector<std::vector<uint8_t>> buffers(e.binding_count);
    std::vector<void*> ptrs(e.binding_count);
    std::vector<size_t> lengths(e.binding_count);
    for (uint32_t b = 0; b < e.binding_count; ++b) {
      // Exactly the declared bytes, each its own allocation.
      buffers[b].resize(e.binding_bytes[b] ? e.binding_bytes[b] : 1, 0x5A);
      ptrs[b] = buffers[b].data();
      lengths[b] = e.binding_bytes[b];
    }
    std::vector<uint32_t> constants(e.constant_count, 3);
    std::vector<uint8_t> local(e.local_memory_size ? e.local_memory_size : 1);
    strata_hal_executable_dispatch_state_v0_t state = {};
    state.binding_count = static_cast<uint16_t>(e.binding_count);
    state.constant_count = static_cast<uint16_t>(e.constant_count);
    state.constants = constants.data();
    state.binding_ptrs = ptrs.data();
    state.binding_lengths = lengths.data();
    // Version 1 state, as the devices pass.
    strata_hal_executable_dispatch_detail_v1_t detail = {};
    strata_hal_executable_workgroup_state_v1_t workgroup = {};
    workgroup.detail = &detail;
    workgroup.v0.local_memory = local.data();
    workgroup.v0.local_memory_size = static_cast<uint32_t>(e.local_memory_size);
    // Two workgroups, one after the other: the split of the outermost loop
    // runs too.
    state.workgroup_count_x = 2;
    state.workgroup_count_y = 1;
    state.workgroup_count_z = 1;
    for (uint32_t part = 0; part < 2; ++part) {
      workgroup.v0.workgroup_id_x = part;
      strata::hal::exportFunction(executable, i)(
          &strata::hal::dispatchEnvironment(executable, i), &state,
          &workgroup.v0);
    }
  }
  strata_hal_executable_release(executable);
  return 0;
}
