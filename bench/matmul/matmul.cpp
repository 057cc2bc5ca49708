// matmul.cpp - GFLOP/s of Strata's compiled f32 matmul (zero fill +
// linalg.matmul, N x N x N) on the local-task device with 1 and 2 workers. Each
// size is compiled once through the llvm-cpu target's C++ API and loaded from
// memory; one reusable command buffer holds its dispatch. Repetitions are
// interleaved across worker counts in batches of 5; medians are reported, one
// line per size and count:
//   strata N=<n> threads=<t> gflops=<x> ms=<median> workgroups=<count>
// run.py prints them beside OpenBLAS.
// Usage: matmul [--sizes=256,512,1024,2048] [--threads=1,2] [--seconds=S]
//               [--features=-avx512f] (the AVX2 microkernel on AVX-512 CPUs)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "Strata/Target/LLVMCPU/LLVMCPUTarget.h"
#include "bench_support.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "strata/hal/buffer.h"
#include "strata/hal/command_buffer.h"
#include "strata/hal/device.h"
#include "strata/hal/executable.h"
#include "strata/hal/semaphore.h"

namespace {

void check(strata_status_t status, const char *what) {
  strata::bench::checkOrExit("matmul", status, what);
}

std::vector<int> parseList(const char *text) {
  std::vector<int> values;
  for (const char *p = text; *p;) {
    values.push_back(std::atoi(p));
    p = std::strchr(p, ',');
    if (!p) {
      break;
    }
    ++p;
  }
  return values;
}

// The accumulate form: the matmul adds to a third input, as a matmul
// accumulating into a loop-carried tensor does (its dispatch reads the
// accumulator from a binding and writes the result to another).
std::string accumulateSource(int n) {
  std::string t =
      "tensor<" + std::to_string(n) + "x" + std::to_string(n) + "xf32>";
  return "func.func @matmul(%a: " + t + ", %b: " + t + ", %c: " + t + ") -> " +
         t + " {\n  %r = linalg.matmul ins(%a, %b : " + t + ", " + t +
         ") outs(%c : " + t + ") -> " + t + "\n  return %r : " + t + "\n}\n";
}

std::string matmulSource(int n) {
  std::string t =
      "tensor<" + std::to_string(n) + "x" + std::to_string(n) + "xf32>";
  return "func.func @matmul(%a: " + t + ", %b: " + t + ") -> " + t +
         " {\n"
         "  %zero = arith.constant 0.0 : f32\n"
         "  %e = tensor.empty() : " +
         t +
         "\n"
         "  %f = linalg.fill ins(%zero : f32) outs(%e : " +
         t + ") -> " + t +
         "\n"
         "  %r = linalg.matmul ins(%a, %b : " +
         t + ", " + t + ") outs(%f : " + t + ") -> " + t +
         "\n"
         "  return %r : " +
         t + "\n}\n";
}

mlir::strata::CompiledExecutable compileOrExit(const std::string &source,
                                               const std::string &features) {
  mlir::DialectRegistry registry;
  mlir::strata::registerLLVMCPUTargetDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context, "matmul.mlir");
  mlir::strata::LLVMCPUTargetOptions options;
  options.features = features;
  if (!module) {
    std::fprintf(stderr, "matmul: cannot parse the matmul\n");
    std::exit(1);
  }
  mlir::FailureOr<mlir::strata::CompiledExecutable> compiled =
      mlir::strata::compileExecutable(*module, options);
  if (mlir::failed(compiled)) {
    std::fprintf(stderr, "matmul: cannot compile the matmul\n");
    std::exit(1);
  }
  return std::move(*compiled);
}

struct Device {
  int threads = 0;
  strata_hal_device_t *device = nullptr;
  std::vector<double> samples;
};

// Runs the command buffer on `device` and waits for it; returns seconds.
double runOnce(strata_hal_device_t *device,
               strata_hal_command_buffer_t *commands) {
  strata_hal_fence_t *done = nullptr;
  check(strata_hal_fence_create_pending(strata_allocator_system(), &done),
        "fence");
  double start = strata::bench::nowNs();
  check(strata_hal_device_queue_execute(device, nullptr, done, &commands, 1),
        "execute");
  check(strata_hal_fence_wait(
            done, strata_hal_deadline_after_ns(60ll * 1000 * 1000 * 1000)),
        "wait");
  double seconds = (strata::bench::nowNs() - start) * 1e-9;
  strata_hal_fence_release(done);
  return seconds;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<int> sizes = {256, 512, 1024, 2048};
  std::vector<int> threadCounts = {1, 2};
  double secondsPerSize = 3.0;
  std::string features; // extra LLVM features, e.g. -avx512f for AVX2 code
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--sizes=", 8)) {
      sizes = parseList(argv[i] + 8);
    } else if (!std::strncmp(argv[i], "--threads=", 10)) {
      threadCounts = parseList(argv[i] + 10);
    } else if (!std::strncmp(argv[i], "--features=", 11)) {
      features = argv[i] + 11;
    } else if (!std::strncmp(argv[i], "--seconds=", 10)) {
      secondsPerSize = std::atof(argv[i] + 10);
    } else {
      std::fprintf(stderr, "usage: matmul [--sizes=A,B] [--threads=1,2] "
                           "[--seconds=S] [--features=F]\n");
      return 2;
    }
  }
  strata_allocator_t allocator = strata_allocator_system();
  std::vector<Device> devices;
  for (int threads : threadCounts) {
    Device device;
    device.threads = threads;
    strata_hal_device_options_t options = {"local-task",
                                           static_cast<uint32_t>(threads)};
    check(strata_hal_device_create(&options, allocator, &device.device),
          "device");
    devices.push_back(device);
  }
  for (int n : sizes) {
    for (bool accumulate : {false, true}) {
      mlir::strata::CompiledExecutable compiled = compileOrExit(
          accumulate ? accumulateSource(n) : matmulSource(n), features);
      // Bindings: a, b, (accumulator,) result.
      int bindingCount = accumulate ? 4 : 3;
      strata_hal_executable_t* executable = nullptr;
      check(strata_hal_executable_load_memory(compiled.library.data(),
                                              compiled.library.size(), "matmul",
                                              allocator, &executable),
            "load");
      size_t bytes = size_t(n) * n * sizeof(float);
      strata_hal_buffer_t* buffers[4] = {};
      for (int i = 0; i < bindingCount; ++i) {
        check(strata_hal_buffer_allocate(allocator, bytes, &buffers[i]),
              "alloc");
      }
      float *a = nullptr, *b = nullptr, *c = nullptr, *acc = nullptr;
      check(strata_hal_buffer_map(buffers[0], 0, bytes, (uint8_t**)&a), "map");
      check(strata_hal_buffer_map(buffers[1], 0, bytes, (uint8_t**)&b), "map");
      check(strata_hal_buffer_map(buffers[bindingCount - 1], 0, bytes,
                                  (uint8_t**)&c),
            "map");
      if (accumulate) {
        check(strata_hal_buffer_map(buffers[2], 0, bytes, (uint8_t**)&acc),
              "map");
      }
      for (size_t i = 0; i < size_t(n) * n; ++i) {
        a[i] = float((i * 7) % 13) * 0.125f - 0.75f;
        b[i] = float((i * 5) % 11) * 0.25f - 1.25f;
        if (acc) {
          acc[i] = float((i * 3) % 7) - 3.0f;
        }
      }
      strata_hal_command_buffer_t* commands = nullptr;
      check(strata_hal_command_buffer_create(
                STRATA_HAL_COMMAND_BUFFER_MODE_REUSABLE, allocator, &commands),
            "command buffer");
      strata_hal_buffer_binding_t bindings[4];
      for (int i = 0; i < bindingCount; ++i) {
        bindings[i] = {buffers[i], 0, UINT64_MAX};
      }
      const uint32_t* grid = compiled.exports[0].workgroupCount;
      check(strata_hal_command_buffer_dispatch(commands, executable, 0, grid,
                                               nullptr, 0, bindings,
                                               bindingCount),
            "dispatch");
      check(strata_hal_command_buffer_finalize(commands), "finalize");

      // Warm up each device, then spot-check a few entries in double.
      for (Device& device : devices) {
        runOnce(device.device, commands);
        device.samples.clear();
      }
      double worst = 0;
      for (int probe = 0; probe < 16; ++probe) {
        size_t i = (size_t(probe) * 7919) % n, j = (size_t(probe) * 104729) % n;
        double sum = acc ? acc[i * n + j] : 0.0;
        for (int k = 0; k < n; ++k) {
          sum += double(a[i * n + k]) * b[size_t(k) * n + j];
        }
        worst = std::max(worst, std::fabs(sum - c[i * n + j]) /
                                    std::max(1.0, std::fabs(sum)));
      }
      const char* form = accumulate ? "strata-acc" : "strata";
      if (worst > 1e-3) {
        std::printf("%s N=%d WRONG RESULT (relative error %g)\n", form, n,
                    worst);
      }
      double flops = 2.0 * n * n * double(n);
      // Rounds until about secondsPerSize have passed; each round runs
      // kBatch back-to-back repetitions on each device in turn. Back to back,
      // as a model's consecutive dispatches (and the OpenBLAS peer's loop)
      // run: after the other device's turn this device's workers have gone
      // to sleep, and only the first repetition of its batch pays their
      // wake-up.
      constexpr int kBatch = 5;
      double spent = 0;
      int rounds = 0;
      while ((spent < secondsPerSize || rounds < 3) && rounds < 2000) {
        for (Device& device : devices) {
          for (int i = 0; i < kBatch; ++i) {
            double seconds = runOnce(device.device, commands);
            device.samples.push_back(seconds);
            spent += seconds;
          }
        }
        ++rounds;
      }
      for (Device& device : devices) {
        double seconds = strata::bench::median(device.samples);
        std::printf("%s N=%d threads=%d gflops=%.1f ms=%.3f workgroups=%u\n",
                    form, n, device.threads, flops / seconds * 1e-9,
                    seconds * 1e3, grid[0] * grid[1] * grid[2]);
        std::fflush(stdout);
      }
      strata_hal_command_buffer_release(commands);
      for (int i = 0; i < bindingCount; ++i) {
        strata_hal_buffer_release(buffers[i]);
      }
      strata_hal_executable_release(executable);
    }
  }
  for (Device &device : devices) {
    strata_hal_device_release(device.device);
  }
  return 0;
}
