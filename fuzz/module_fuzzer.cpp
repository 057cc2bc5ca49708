// module_fuzzer.cpp - libFuzzer target: arbitrary bytes -> load -> verify ->
// link with the real hal module (a local-sync device) and the check module
// -> invoke every export under a 2 ms deadline, so fuzzed bytecode calls
// real hal.* and check.* imports.
//
// A fuzzed module may loop forever, which is legal bytecode: each call ends
// at its deadline (DEADLINE_EXCEEDED). Initializers run while the context
// is linked, without a deadline, so a module is linked only when its
// initializer provably terminates (its branches all go forward and its
// calls go to higher-numbered functions: a DAG). Native code is never run
// from fuzzed bytes: a module whose rodata holds an ELF header anywhere is
// skipped, so hal.executable.create only ever sees non-libraries.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check_module.h"
#include "module_impl.h"
#include "opcodes.h"
#include "strata/hal/device.h"
#include "strata/hal/semaphore.h"
#include "strata/modules/hal/module.h"
#include "strata/vm/vm.h"

namespace {

using strata::vm::BytecodeModule;
using strata::vm::DecodeError;
using strata::vm::Instruction;
using strata::vm::Opcode;

constexpr uint64_t kNever = ~uint64_t(0);
// Most call-tree nodes an invocation may visit; beyond it, skip the export.
constexpr uint64_t kMaxCost = 20000;

// Bounds the calls made by function `index` if it only branches forward and
// only calls functions with a higher index whose bound is known (`cost`);
// kNever otherwise. Imports are never resolved here, so import calls fail.
uint64_t callCost(const BytecodeModule& module, uint32_t index,
                  const std::vector<uint64_t>& cost) {
  uint64_t total = 1;
  const strata::vm::Function& fn = module.functions[index];
  for (uint32_t pc = 0; pc < fn.length;) {
    Instruction inst;
    if (strata::vm::decodeInstruction(fn.code, fn.length, pc, &inst) !=
        DecodeError::kOk) {
      return kNever;
    }
    for (int i = 0; i < inst.operand_count; ++i) {
      const strata::vm::Operand& o = inst.operands[i];
      if (o.kind == 'B' && o.value <= pc) return kNever;
      if (o.kind == 'F') {
        if (o.value <= index || cost[o.value] == kNever) return kNever;
        total += cost[o.value];
        if (total > kMaxCost) return kNever;
      }
      if (o.kind == 'X') {
        const uint8_t* c = o.data;
        for (uint32_t k = 0; k < o.count; ++k) {
          if (strata::vm::readU32(c) <= pc) return kNever;
          c += 4 + strata::vm::remapListSize(c + 4);
        }
      }
    }
    pc += inst.length;
  }
  return total;
}

// A module may ask for any size of buffer or list; the fuzzer's contexts get
// an allocator that refuses single allocations over 64 MiB, so such requests
// fail as RESOURCE_EXHAUSTED statuses instead of exhausting the machine.
constexpr size_t kMaxAllocation = size_t(64) << 20;

void* cappedAlloc(void*, size_t size, size_t alignment) {
  if (size > kMaxAllocation) return nullptr;
  return strata_allocator_system().alloc(nullptr, size, alignment);
}

void cappedFree(void*, void* ptr) { strata_allocator_system().free(nullptr, ptr); }

strata_allocator_t cappedAllocator() {
  return strata_allocator_t{nullptr, cappedAlloc, cappedFree};
}

// The instance (with the HAL types), the hal module over one local-sync
// device and the check module, made once.
struct Host {
  strata_vm_instance_t* instance = nullptr;
  strata_vm_module_t* hal = nullptr;
  strata_vm_module_t* check = nullptr;
};

const Host& host() {
  static Host made = [] {
    Host h;
    strata_allocator_t allocator = strata_allocator_system();
    strata_hal_device_t* device = nullptr;
    strata_hal_device_options_t options = {};
    options.name = "local-sync";
    if (strata_vm_instance_create(allocator, &h.instance) ||
        strata_hal_register_types(h.instance) ||
        strata_hal_device_create(&options, allocator, &device) ||
        strata_hal_module_create(h.instance, &device, 1, allocator, &h.hal) ||
        strata::tools::createCheckModule(allocator, &h.check)) {
      std::abort();
    }
    strata_hal_device_release(device);  // the hal module holds it
    return h;
  }();
  return made;
}

strata_vm_instance_t* instance() { return host().instance; }

// Whether any rodata segment holds an ELF header (a kernel library).
bool holdsNativeCode(const BytecodeModule& module) {
  static const uint8_t kElf[4] = {0x7F, 'E', 'L', 'F'};
  for (const auto& span : module.rodata) {
    for (uint64_t i = 0; i + 4 <= span.length; ++i) {
      if (std::memcmp(span.data + i, kElf, 4) == 0) return true;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  strata_vm_module_t* module = nullptr;
  strata_status_t status = strata_vm_bytecode_module_load(
      instance(), data, size, nullptr, nullptr, strata_allocator_system(),
      &module);
  if (status) {
    strata_status_free(status);
    return 0;
  }
  strata_vm_context_options_t options{};
  options.max_call_depth = 64;
  options.print = [](void*, const char*, size_t) {};
  strata_vm_context_t* context = nullptr;
  // Initializers run here; they are not checked for termination, so only
  // link modules whose initializer terminates.
  const BytecodeModule& bytecode = *module->bytecode;
  std::vector<uint64_t> cost(bytecode.functions.size(), kNever);
  for (size_t i = cost.size(); i-- > 0;) {
    cost[i] = callCost(bytecode, static_cast<uint32_t>(i), cost);
  }
  if ((bytecode.initializer >= 0 && cost[bytecode.initializer] == kNever) ||
      holdsNativeCode(bytecode)) {
    strata_vm_module_release(module);
    return 0;
  }
  strata_vm_module_t* modules[] = {host().hal, host().check, module};
  status = strata_vm_context_create(instance(), modules, 3, &options,
                                    cappedAllocator(), &context);
  if (status) {
    strata_status_free(status);
    strata_vm_module_release(module);
    return 0;
  }
  for (const strata::vm::Export& e : bytecode.exports) {
    const strata::vm::Signature& sig = bytecode.functions[e.function].signature;
    std::vector<strata_vm_value_t> args(sig.args.size());
    std::vector<strata_vm_value_t> results(sig.results.size());
    strata_vm_buffer_t* buffer = nullptr;
    if (strata_vm_buffer_create(64, 0, strata_allocator_system(), &buffer)) {
      std::abort();
    }
    for (size_t i = 0; i < args.size(); ++i) {
      args[i].bits = 0;
      if (sig.args[i] == 'r') {
        args[i].ref = strata_vm_buffer_as_ref(buffer);
      } else {
        args[i].i64 = static_cast<int64_t>(i + 1);
      }
    }
    strata_vm_function_t fn{2, e.function};
    status = strata_vm_call_until(context, fn, args.data(), args.size(),
                                  results.data(), results.size(),
                                  strata_hal_deadline_after_ns(2000000));
    if (status) {
      strata_status_free(status);
    } else {
      for (size_t i = 0; i < results.size(); ++i) {
        if (sig.results[i] == 'r') strata_vm_ref_release(results[i].ref);
      }
    }
    strata_vm_buffer_release(buffer);
  }
  strata_vm_context_release(context);
  strata_vm_module_release(module);
  return 0;
}
