// vm_calls.cpp - call overhead: host -> VM calls of an empty export and
// bytecode -> bytecode calls, beside a direct C++ call measured in the same
// run. Repetitions are interleaved and the median is reported.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_support.h"
#include "module_builder.h"
#include "strata/vm/vm.h"

using namespace strata::vm;
using namespace strata::vm::testing;

namespace {

using strata::bench::median;
using strata::bench::nowNs;
using strata::bench::nowUs;

void check(strata_status_t status, const char* what) {
  strata::bench::checkOrExit("vm_calls", status, what);
}


[[gnu::noinline]] int emptyCxx(int x) {
  asm volatile("" ::: "memory");
  return x;
}

// Module "bench":
//   empty()            - returns at once (host -> VM target)
//   calls(n: i64)      - loops n times calling leaf() (bytecode -> bytecode)
//   loop(n: i64)       - the same loop without the call
std::vector<uint8_t> buildModule() {
  ModuleBuilder mb("bench");
  auto& empty = mb.addFunction("empty", "0_");
  empty.op(Opcode::Return).list({});
  mb.addExport("empty", empty.index());
  auto& leaf = mb.addFunction("leaf", "0_");
  leaf.op(Opcode::Return).list({});
  for (bool with_call : {true, false}) {
    auto& f = mb.addFunction(with_call ? "calls" : "loop", "0I_");
    uint32_t head = f.newBlock();
    uint32_t exit = f.newBlock();
    f.op(Opcode::ConstI64).i64(0).reg(prim(1));
    f.op(Opcode::ConstI64).i64(1).reg(prim(2));
    f.op(Opcode::Br).block(head).remap({});
    f.bind(head);
    if (with_call) {
      f.op(Opcode::Call).u32(leaf.index()).list({}).list({});
    }
    f.op(Opcode::AddI64).reg(prim(1)).reg(prim(2)).reg(prim(1));
    f.op(Opcode::CmpLtSI64).reg(prim(1)).reg(prim(0)).reg(prim(3));
    f.op(Opcode::CondBr).reg(prim(3)).block(head).remap({}).block(exit).remap(
        {});
    f.bind(exit);
    f.op(Opcode::Return).list({});
    mb.addExport(with_call ? "calls" : "loop", f.index());
  }
  return mb.build();
}

}  // namespace

int main(int argc, char** argv) {
  int repetitions = 15;
  int64_t iterations = 2000000;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--repetitions=", 14) == 0) {
      repetitions = std::atoi(argv[i] + 14);
    } else if (std::strncmp(argv[i], "--iterations=", 13) == 0) {
      iterations = std::atoll(argv[i] + 13);
    } else {
      std::fprintf(stderr,
                   "usage: vm_calls [--repetitions=N] [--iterations=N]\n"
                   "Prints ns per call for host->VM and bytecode->bytecode "
                   "calls beside a direct C++ call.\n");
      return std::strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  if (repetitions < 1 || iterations < 1) {
    std::fprintf(stderr, "vm_calls: repetitions and iterations must be >= 1\n");
    return 2;
  }

  strata_vm_instance_t* instance = nullptr;
  check(strata_vm_instance_create(strata_allocator_system(), &instance),
        "instance");
  std::vector<uint8_t> bytes = buildModule();
  strata_vm_module_t* module = nullptr;
  check(strata_vm_bytecode_module_load(instance, bytes.data(), bytes.size(),
                                       nullptr, nullptr,
                                       strata_allocator_system(), &module),
        "load");
  strata_vm_context_t* context = nullptr;
  check(strata_vm_context_create(instance, &module, 1, nullptr,
                                 strata_allocator_system(), &context),
        "context");
  strata_vm_function_t empty, calls, loop;
  check(strata_vm_context_lookup(context, "bench.empty", &empty), "lookup");
  check(strata_vm_context_lookup(context, "bench.calls", &calls), "lookup");
  check(strata_vm_context_lookup(context, "bench.loop", &loop), "lookup");
  strata_vm_list_t* inputs = nullptr;
  strata_vm_list_t* outputs = nullptr;
  check(strata_vm_list_create(1, strata_allocator_system(), &inputs), "list");
  check(strata_vm_list_create(1, strata_allocator_system(), &outputs), "list");

  struct Variant {
    const char* name;
    std::function<double()> run;  // ns per operation
    std::vector<double> samples;
  };
  const int64_t n = iterations;
  std::vector<Variant> variants = {
      {"direct C++ call (noinline)",
       [&] {
         int (*volatile fn)(int) = emptyCxx;
         int sink = 0;
         double t0 = nowNs();
         for (int64_t i = 0; i < n; ++i) sink += fn(static_cast<int>(i));
         double t1 = nowNs();
         if (sink == 42) std::puts("");
         return (t1 - t0) / double(n);
       },
       {}},
      {"host->VM call, strata_vm_call",
       [&] {
         double t0 = nowNs();
         for (int64_t i = 0; i < n; ++i) {
           strata_status_t s = strata_vm_call(context, empty, nullptr, 0,
                                              nullptr, 0);
           if (s) check(s, "call");
         }
         return (nowNs() - t0) / double(n);
       },
       {}},
      {"host->VM call, strata_vm_invoke (lists)",
       [&] {
         int64_t m = n / 4;
         double t0 = nowNs();
         for (int64_t i = 0; i < m; ++i) {
           strata_status_t s = strata_vm_invoke(context, empty, inputs, outputs);
           if (s) check(s, "invoke");
         }
         return (nowNs() - t0) / double(m);
       },
       {}},
      {"bytecode->bytecode call (incl. loop)",
       [&] {
         strata_vm_value_t arg;
         arg.i64 = n;
         double t0 = nowNs();
         check(strata_vm_call(context, calls, &arg, 1, nullptr, 0), "calls");
         return (nowNs() - t0) / double(n);
       },
       {}},
      {"bytecode loop iteration alone",
       [&] {
         strata_vm_value_t arg;
         arg.i64 = n;
         double t0 = nowNs();
         check(strata_vm_call(context, loop, &arg, 1, nullptr, 0), "loop");
         return (nowNs() - t0) / double(n);
       },
       {}},
  };
  // Warm up, then interleave repetitions so drift hits every variant alike.
  for (Variant& v : variants) v.run();
  for (int r = 0; r < repetitions; ++r) {
    for (Variant& v : variants) v.samples.push_back(v.run());
  }
  double cxx = median(variants[0].samples);
  std::printf("vm_calls: %d interleaved repetitions x %lld iterations, median "
              "ns per call\n",
              repetitions, static_cast<long long>(iterations));
  std::printf("%-42s %10s %12s\n", "variant", "ns/call", "x C++ call");
  for (Variant& v : variants) {
    double m = median(v.samples);
    std::printf("%-42s %10.2f %12.1f\n", v.name, m, m / cxx);
  }
  double b2b = median(variants[3].samples) - median(variants[4].samples);
  std::printf("%-42s %10.2f %12.1f\n", "bytecode->bytecode call (loop removed)",
              b2b, b2b / cxx);
  std::printf("targets: host->VM <= 25 ns, bytecode->bytecode <= 10 ns "
              "(IREE publishes 55 ns and 43 ns)\n");

  strata_vm_list_release(inputs);
  strata_vm_list_release(outputs);
  strata_vm_context_release(context);
  strata_vm_module_release(module);
  strata_vm_instance_release(instance);
  return 0;
}
