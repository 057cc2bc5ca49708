// LLVMCPUTargetTest.cpp - the llvm-cpu target end to end: MLIR text is
// compiled by compileExecutable, the library bytes are loaded by the runtime
// (strata_hal_executable_load_memory), every workgroup of the reported grid
// runs through the export's function pointer in a scrambled order, and the
// results are checked against values computed here.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "Strata/Target/LLVMCPU/LLVMCPUTarget.h"
#include "executable_impl.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "strata/hal/executable.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

namespace {

using mlir::strata::CompiledExecutable;
using mlir::strata::LLVMCPUTargetOptions;

// Compiles `source`; on failure returns false and the diagnostics in errors.
bool compile(const std::string &source, CompiledExecutable &out,
             std::string &errors, const LLVMCPUTargetOptions &options = {}) {
  mlir::DialectRegistry registry;
  mlir::strata::registerLLVMCPUTargetDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::raw_string_ostream errorStream(errors);
  mlir::ScopedDiagnosticHandler handler(
      &context, [&](mlir::Diagnostic &diagnostic) {
        errorStream << diagnostic.getLocation() << ": " << diagnostic << "\n";
        return mlir::success();
      });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context, "test.mlir");
  if (!module) {
    return false;
  }
  mlir::FailureOr<CompiledExecutable> compiled =
      mlir::strata::compileExecutable(*module, options);
  if (mlir::failed(compiled)) {
    return false;
  }
  out = std::move(*compiled);
  return true;
}

// A compiled and loaded executable.
struct Loaded {
  CompiledExecutable compiled;
  strata_hal_executable_t *executable = nullptr;
  ~Loaded() {
    if (executable) {
      strata_hal_executable_release(executable);
    }
  }
};

bool compileAndLoad(const std::string &source, Loaded &loaded) {
  std::string errors;
  if (!compile(source, loaded.compiled, errors)) {
    FAIL_CHECK("compile failed:\n" << errors);
    return false;
  }
  strata_status_t status = strata_hal_executable_load_memory(
      loaded.compiled.library.data(), loaded.compiled.library.size(),
      "llvmcpu_test", strata_allocator_system(), &loaded.executable);
  if (status) {
    char *text = strata_status_to_string(status);
    FAIL_CHECK("load failed: " << (text ? text : "?"));
    free(text);
    strata_status_free(status);
    return false;
  }
  return true;
}

// Runs every workgroup of export `ordinal` in a shuffled order; each call
// must return 0.
void dispatch(const Loaded &loaded, uint32_t ordinal,
              const std::vector<std::pair<void *, size_t>> &bindings,
              unsigned threads = 1) {
  const mlir::strata::ExecutableExportInfo &info =
      loaded.compiled.exports[ordinal];
  REQUIRE(info.bindingCount == bindings.size());
  std::vector<void *> ptrs;
  std::vector<size_t> lengths;
  for (const auto &binding : bindings) {
    ptrs.push_back(binding.first);
    lengths.push_back(binding.second);
  }
  strata_hal_executable_dispatch_state_v0_t state = {};
  state.workgroup_count_x = info.workgroupCount[0];
  state.workgroup_count_y = info.workgroupCount[1];
  state.workgroup_count_z = static_cast<uint16_t>(info.workgroupCount[2]);
  state.binding_count = static_cast<uint16_t>(bindings.size());
  state.binding_ptrs = ptrs.data();
  state.binding_lengths = lengths.data();
  std::vector<strata_hal_executable_workgroup_state_v0_t> workgroups;
  for (uint32_t z = 0; z < info.workgroupCount[2]; ++z) {
    for (uint32_t y = 0; y < info.workgroupCount[1]; ++y) {
      for (uint32_t x = 0; x < info.workgroupCount[0]; ++x) {
        strata_hal_executable_workgroup_state_v0_t workgroup = {};
        workgroup.workgroup_id_x = x;
        workgroup.workgroup_id_y = y;
        workgroup.workgroup_id_z = static_cast<uint16_t>(z);
        workgroups.push_back(workgroup);
      }
    }
  }
  std::shuffle(workgroups.begin(), workgroups.end(), std::mt19937(7));
  strata_hal_executable_dispatch_v0_t function =
      strata::hal::exportFunction(loaded.executable, ordinal);
  const strata_hal_executable_environment_v0_t *environment =
      strata_hal_executable_environment(loaded.executable);
  // Workers take workgroups from a shared counter, as the task device's do.
  std::atomic<size_t> next{0};
  std::atomic<int> failures{0};
  const strata_hal_executable_dispatch_attrs_v0_t *attrs =
      strata_hal_executable_export_attrs(loaded.executable, ordinal);
  REQUIRE(attrs);
  uint32_t localMemorySize = attrs->local_memory_size;
  auto work = [&] {
    // Each worker has its own local memory, as the devices give.
    std::vector<uint64_t> localMemory((localMemorySize + 7) / 8);
    for (size_t i = next++; i < workgroups.size(); i = next++) {
      strata_hal_executable_workgroup_state_v0_t workgroup = workgroups[i];
      workgroup.local_memory = localMemory.data();
      workgroup.local_memory_size = localMemorySize;
      if (function(environment, &state, &workgroup) != 0) {
        ++failures;
      }
    }
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t) {
    workers.emplace_back(work);
  }
  work();
  for (std::thread &worker : workers) {
    worker.join();
  }
  REQUIRE(failures == 0);
}

template <typename T>
std::pair<void *, size_t> binding(std::vector<T> &values) {
  return {values.data(), values.size() * sizeof(T)};
}

std::vector<float> ramp(size_t count, float scale, float offset) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) {
    values[i] = static_cast<float>((i * 37) % 101) * scale + offset;
  }
  return values;
}

uint32_t workgroupTotal(const mlir::strata::ExecutableExportInfo &info) {
  return info.workgroupCount[0] * info.workgroupCount[1] *
         info.workgroupCount[2];
}

} // namespace

TEST_SUITE("compiler.llvmcpu") {

TEST_CASE("adds two 2x3 f32 tensors") {
  Loaded loaded;
  REQUIRE(compileAndLoad(R"mlir(
module @adder {
  func.func @add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %e = tensor.empty() : tensor<2x3xf32>
    %r = linalg.add ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>)
                    outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
    return %r : tensor<2x3xf32>
  }
})mlir",
                         loaded));
  REQUIRE(loaded.compiled.exports.size() == 1);
  CHECK(loaded.compiled.exports[0].name == "add");
  CHECK(loaded.compiled.exports[0].bindingCount == 3);
  CHECK(std::string(strata_hal_executable_library_name(loaded.executable)) ==
        "adder");
  CHECK(std::string(strata_hal_executable_export_name(loaded.executable,
                                                      0)) == "add");
  const strata_hal_executable_dispatch_attrs_v0_t *attrs =
      strata_hal_executable_export_attrs(loaded.executable, 0);
  REQUIRE(attrs);
  CHECK(attrs->binding_count == 3);
  CHECK(attrs->constant_count == 0);
  std::vector<float> a = {1, 2, 3, 4, 5, 6};
  std::vector<float> b = {10, 20, 30, 40, 50, 60};
  std::vector<float> out(6, 0.0f);
  dispatch(loaded, 0, {binding(a), binding(b), binding(out)});
  CHECK(out == std::vector<float>{11, 22, 33, 44, 55, 66});
}

TEST_CASE("multiplies 64x16 by 16x32 over several workgroups") {
  Loaded loaded;
  auto start = std::chrono::steady_clock::now();
  REQUIRE(compileAndLoad(R"mlir(
module @mm {
  func.func @matmul(%a: tensor<64x16xf32>, %b: tensor<16x32xf32>) -> tensor<64x32xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x32xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
    %r = linalg.matmul ins(%a, %b : tensor<64x16xf32>, tensor<16x32xf32>)
                       outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
    return %r : tensor<64x32xf32>
  }
})mlir",
                         loaded));
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  MESSAGE("matmul 64x32x16: compileExecutable + load took " << seconds
                                                           << " s");
  const auto &info = loaded.compiled.exports[0];
  CHECK(workgroupTotal(info) > 1);
  std::vector<float> a = ramp(64 * 16, 0.25f, -3.0f);
  std::vector<float> b = ramp(16 * 32, -0.5f, 7.0f);
  std::vector<float> out(64 * 32, 0.0f);
  dispatch(loaded, 0, {binding(a), binding(b), binding(out)});
  for (int i = 0; i < 64; ++i) {
    for (int j = 0; j < 32; ++j) {
      double sum = 0;
      for (int k = 0; k < 16; ++k) {
        sum += static_cast<double>(a[i * 16 + k]) * b[k * 32 + j];
      }
      REQUIRE(out[i * 32 + j] == doctest::Approx(sum).epsilon(1e-5));
    }
  }
}

TEST_CASE("fuses a bias add and relu into a distributed matmul") {
  Loaded loaded;
  REQUIRE(compileAndLoad(R"mlir(
module @mlp {
  func.func @layer(%x: tensor<128x32xf32>, %w: tensor<32x64xf32>, %bias: tensor<64xf32>) -> tensor<128x64xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
    %m = linalg.matmul ins(%x, %w : tensor<128x32xf32>, tensor<32x64xf32>)
                       outs(%f : tensor<128x64xf32>) -> tensor<128x64xf32>
    %r = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                         affine_map<(i, j) -> (i, j)>],
        iterator_types = ["parallel", "parallel"]}
        ins(%m, %bias : tensor<128x64xf32>, tensor<64xf32>) outs(%e : tensor<128x64xf32>) {
    ^bb0(%v: f32, %b: f32, %o: f32):
      %s = arith.addf %v, %b : f32
      %y = arith.maximumf %s, %zero : f32
      linalg.yield %y : f32
    } -> tensor<128x64xf32>
    return %r : tensor<128x64xf32>
  }
})mlir",
                         loaded));
  CHECK(workgroupTotal(loaded.compiled.exports[0]) > 1);
  std::vector<float> x = ramp(128 * 32, 0.125f, -6.0f);
  std::vector<float> w = ramp(32 * 64, -0.0625f, 3.0f);
  std::vector<float> bias = ramp(64, 1.0f, -50.0f);
  std::vector<float> out(128 * 64, -1.0f);
  dispatch(loaded, 0, {binding(x), binding(w), binding(bias), binding(out)});
  for (int i = 0; i < 128; ++i) {
    for (int j = 0; j < 64; ++j) {
      double sum = bias[j];
      for (int k = 0; k < 32; ++k) {
        sum += static_cast<double>(x[i * 32 + k]) * w[k * 64 + j];
      }
      REQUIRE(out[i * 64 + j] ==
              doctest::Approx(std::max(sum, 0.0)).epsilon(1e-5));
    }
  }
}

TEST_CASE("sums rows, and sums everything into a 0-d result") {
  Loaded loaded;
  REQUIRE(compileAndLoad(R"mlir(
module @sums {
  func.func @row_sum(%a: tensor<256x96xf32>) -> tensor<256xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256xf32>) -> tensor<256xf32>
    %r = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
        iterator_types = ["parallel", "reduction"]}
        ins(%a : tensor<256x96xf32>) outs(%f : tensor<256xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    } -> tensor<256xf32>
    return %r : tensor<256xf32>
  }
  func.func @total(%a: tensor<1000xi32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %e = tensor.empty() : tensor<i32>
    %f = linalg.fill ins(%zero : i32) outs(%e : tensor<i32>) -> tensor<i32>
    %r = linalg.reduce ins(%a : tensor<1000xi32>) outs(%f : tensor<i32>) dimensions = [0]
      (%in: i32, %acc: i32) {
        %s = arith.addi %in, %acc : i32
        linalg.yield %s : i32
      }
    return %r : tensor<i32>
  }
})mlir",
                         loaded));
  REQUIRE(loaded.compiled.exports.size() == 2);
  CHECK(workgroupTotal(loaded.compiled.exports[0]) > 1);
  CHECK(workgroupTotal(loaded.compiled.exports[1]) == 1);
  std::vector<float> a = ramp(256 * 96, 0.5f, -20.0f);
  std::vector<float> sums(256, 0.0f);
  dispatch(loaded, 0, {binding(a), binding(sums)});
  for (int i = 0; i < 256; ++i) {
    double sum = 0;
    for (int j = 0; j < 96; ++j) {
      sum += a[i * 96 + j];
    }
    REQUIRE(sums[i] == doctest::Approx(sum).epsilon(1e-5));
  }
  std::vector<int32_t> values(1000);
  int32_t expected = 0;
  for (int i = 0; i < 1000; ++i) {
    values[i] = i * 7 - 3000;
    expected += values[i];
  }
  std::vector<int32_t> total(1, 0);
  dispatch(loaded, 1, {binding(values), binding(total)});
  CHECK(total[0] == expected);
}

TEST_CASE("approximates exp and tanh without libm") {
  Loaded loaded;
  REQUIRE(compileAndLoad(R"mlir(
module @math {
  func.func @exp_tanh(%a: tensor<64x128xf32>) -> (tensor<64x128xf32>, tensor<64x128xf32>) {
    %e = tensor.empty() : tensor<64x128xf32>
    %x = linalg.exp ins(%a : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
    %t = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
        iterator_types = ["parallel", "parallel"]}
        ins(%a : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
    ^bb0(%in: f32, %o: f32):
      %y = math.tanh %in : f32
      linalg.yield %y : f32
    } -> tensor<64x128xf32>
    return %x, %t : tensor<64x128xf32>, tensor<64x128xf32>
  }
})mlir",
                         loaded));
  CHECK(loaded.compiled.exports[0].bindingCount == 3);
  std::vector<float> a(64 * 128);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = -8.0f + 16.0f * static_cast<float>(i) / a.size();
  }
  std::vector<float> exps(a.size(), 0.0f), tanhs(a.size(), 0.0f);
  dispatch(loaded, 0, {binding(a), binding(exps), binding(tanhs)});
  for (size_t i = 0; i < a.size(); ++i) {
    REQUIRE(exps[i] == doctest::Approx(std::exp(a[i])).epsilon(1e-5));
    REQUIRE(tanhs[i] == doctest::Approx(std::tanh(a[i])).epsilon(1e-5));
  }
}

TEST_CASE("computes i32 elementwise ops with wrap-around, and i1 results") {
  Loaded loaded;
  REQUIRE(compileAndLoad(R"mlir(
module @ints {
  func.func @muladd(%a: tensor<256x64xi32>, %b: tensor<256x64xi32>) -> tensor<256x64xi32> {
    %e = tensor.empty() : tensor<256x64xi32>
    %r = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                         affine_map<(i, j) -> (i, j)>],
        iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : tensor<256x64xi32>, tensor<256x64xi32>) outs(%e : tensor<256x64xi32>) {
    ^bb0(%x: i32, %y: i32, %o: i32):
      %m = arith.muli %x, %y : i32
      %c = arith.constant 12345 : i32
      %s = arith.addi %m, %c : i32
      linalg.yield %s : i32
    } -> tensor<256x64xi32>
    return %r : tensor<256x64xi32>
  }
  func.func @less(%a: tensor<7xf32>, %b: tensor<7xf32>) -> tensor<7xi1> {
    %e = tensor.empty() : tensor<7xi1>
    %r = linalg.generic {
        indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
        iterator_types = ["parallel"]}
        ins(%a, %b : tensor<7xf32>, tensor<7xf32>) outs(%e : tensor<7xi1>) {
    ^bb0(%x: f32, %y: f32, %o: i1):
      %c = arith.cmpf olt, %x, %y : f32
      linalg.yield %c : i1
    } -> tensor<7xi1>
    return %r : tensor<7xi1>
  }
})mlir",
                         loaded));
  CHECK(workgroupTotal(loaded.compiled.exports[0]) > 1);
  std::vector<int32_t> a(256 * 64), b(256 * 64), out(256 * 64, 0);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<int32_t>(i * 2654435761u);
    b[i] = static_cast<int32_t>(i * 40503u + 17);
  }
  dispatch(loaded, 0, {binding(a), binding(b), binding(out)});
  for (size_t i = 0; i < a.size(); ++i) {
    uint32_t expected = static_cast<uint32_t>(a[i]) *
                            static_cast<uint32_t>(b[i]) +
                        12345u;
    REQUIRE(static_cast<uint32_t>(out[i]) == expected);
  }
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7};
  std::vector<float> y = {7, 6, 5, 4, 3, 2, 1};
  std::vector<uint8_t> flags(7, 0xAA);
  dispatch(loaded, 1, {binding(x), binding(y), binding(flags)});
  CHECK(flags == std::vector<uint8_t>{1, 1, 1, 0, 0, 0, 0});
}

TEST_CASE("transposes a 48x80 matrix") {
  Loaded loaded;
  REQUIRE(compileAndLoad(R"mlir(
module @transpose {
  func.func @transpose(%a: tensor<48x80xf32>) -> tensor<80x48xf32> {
    %e = tensor.empty() : tensor<80x48xf32>
    %r = linalg.transpose ins(%a : tensor<48x80xf32>) outs(%e : tensor<80x48xf32>) permutation = [1, 0]
    return %r : tensor<80x48xf32>
  }
})mlir",
                         loaded));
  std::vector<float> a = ramp(48 * 80, 1.0f, 0.0f);
  std::vector<float> out(80 * 48, -1.0f);
  dispatch(loaded, 0, {binding(a), binding(out)});
  for (int i = 0; i < 80; ++i) {
    for (int j = 0; j < 48; ++j) {
      REQUIRE(out[i * 48 + j] == a[j * 80 + i]);
    }
  }
}

TEST_CASE("convolves NHWC by HWCF over several workgroups") {
  Loaded loaded;
  REQUIRE(compileAndLoad(R"mlir(
module @conv {
  func.func @conv(%in: tensor<1x18x18x8xf32>, %f: tensor<3x3x8x16xf32>) -> tensor<1x16x16x16xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x16x16x16xf32>
    %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
    %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %f : tensor<1x18x18x8xf32>, tensor<3x3x8x16xf32>)
      outs(%fill : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
    return %r : tensor<1x16x16x16xf32>
  }
})mlir",
                         loaded));
  CHECK(workgroupTotal(loaded.compiled.exports[0]) > 1);
  std::vector<float> in = ramp(18 * 18 * 8, 0.125f, -4.0f);
  std::vector<float> filter = ramp(3 * 3 * 8 * 16, -0.25f, 9.0f);
  std::vector<float> out(16 * 16 * 16, -1.0f);
  dispatch(loaded, 0, {binding(in), binding(filter), binding(out)});
  for (int h = 0; h < 16; ++h) {
    for (int w = 0; w < 16; ++w) {
      for (int f = 0; f < 16; ++f) {
        double sum = 0;
        for (int kh = 0; kh < 3; ++kh) {
          for (int kw = 0; kw < 3; ++kw) {
            for (int c = 0; c < 8; ++c) {
              sum += static_cast<double>(in[((h + kh) * 18 + w + kw) * 8 + c]) *
                     filter[((kh * 3 + kw) * 8 + c) * 16 + f];
            }
          }
        }
        REQUIRE(out[(h * 16 + w) * 16 + f] ==
                doctest::Approx(sum).epsilon(1e-4));
      }
    }
  }
}

TEST_CASE("batch matmul runs on a 2-d grid, workgroups on four threads") {
  Loaded loaded;
  REQUIRE(compileAndLoad(R"mlir(
module @bmm {
  func.func @bmm(%a: tensor<4x32x16xf32>, %b: tensor<4x16x64xf32>) -> tensor<4x32x64xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x32x64xf32>
    %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
    %r = linalg.batch_matmul ins(%a, %b : tensor<4x32x16xf32>, tensor<4x16x64xf32>)
                             outs(%fill : tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
    return %r : tensor<4x32x64xf32>
  }
})mlir",
                         loaded));
  const auto &info = loaded.compiled.exports[0];
  CHECK(info.workgroupCount[0] > 1);
  CHECK(info.workgroupCount[1] > 1);
  std::vector<float> a = ramp(4 * 32 * 16, 0.5f, -10.0f);
  std::vector<float> b = ramp(4 * 16 * 64, 0.25f, 3.0f);
  std::vector<float> out(4 * 32 * 64, -1.0f);
  dispatch(loaded, 0, {binding(a), binding(b), binding(out)}, /*threads=*/4);
  for (int n = 0; n < 4; ++n) {
    for (int i = 0; i < 32; ++i) {
      for (int j = 0; j < 64; ++j) {
        double sum = 0;
        for (int k = 0; k < 16; ++k) {
          sum += static_cast<double>(a[(n * 32 + i) * 16 + k]) *
                 b[(n * 16 + k) * 64 + j];
        }
        REQUIRE(out[(n * 32 + i) * 64 + j] ==
                doctest::Approx(sum).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("broadcasts, pads, concatenates, reshapes and updates slices") {
  Loaded loaded;
  REQUIRE(compileAndLoad(R"mlir(
module @shapes {
  func.func @bcast(%a: tensor<64xf32>) -> tensor<128x64xf32> {
    %e = tensor.empty() : tensor<128x64xf32>
    %r = linalg.broadcast ins(%a : tensor<64xf32>) outs(%e : tensor<128x64xf32>) dimensions = [0]
    return %r : tensor<128x64xf32>
  }
  func.func @pad(%a: tensor<30x30xf32>) -> tensor<32x32xf32> {
    %c = arith.constant 1.5 : f32
    %r = tensor.pad %a low[1, 1] high[1, 1] {
    ^bb0(%i: index, %j: index):
      tensor.yield %c : f32
    } : tensor<30x30xf32> to tensor<32x32xf32>
    return %r : tensor<32x32xf32>
  }
  func.func @concat(%a: tensor<16x8xi32>, %b: tensor<16x4xi32>) -> tensor<16x12xi32> {
    %r = tensor.concat dim(1) %a, %b : (tensor<16x8xi32>, tensor<16x4xi32>) -> tensor<16x12xi32>
    return %r : tensor<16x12xi32>
  }
  func.func @reshape(%a: tensor<8x16x4xi16>) -> tensor<32x16xi16> {
    %c = tensor.collapse_shape %a [[0, 1], [2]] : tensor<8x16x4xi16> into tensor<128x4xi16>
    %x = tensor.expand_shape %c [[0, 1], [2]] output_shape [32, 4, 4] : tensor<128x4xi16> into tensor<32x4x4xi16>
    %y = tensor.collapse_shape %x [[0], [1, 2]] : tensor<32x4x4xi16> into tensor<32x16xi16>
    return %y : tensor<32x16xi16>
  }
  func.func @slices(%a: tensor<64x64xf64>, %b: tensor<8x8xf64>) -> tensor<64x64xf64> {
    %s = tensor.extract_slice %a[8, 8] [8, 8] [1, 1] : tensor<64x64xf64> to tensor<8x8xf64>
    %e = tensor.empty() : tensor<8x8xf64>
    %sum = linalg.add ins(%s, %b : tensor<8x8xf64>, tensor<8x8xf64>) outs(%e : tensor<8x8xf64>) -> tensor<8x8xf64>
    %r = tensor.insert_slice %sum into %a[0, 0] [8, 8] [1, 1] : tensor<8x8xf64> into tensor<64x64xf64>
    return %r : tensor<64x64xf64>
  }
  func.func @constant() -> tensor<4xi64> {
    %c = arith.constant dense<[1, 2, -3, 4000000000000]> : tensor<4xi64>
    return %c : tensor<4xi64>
  }
})mlir",
                         loaded));
  REQUIRE(loaded.compiled.exports.size() == 6);

  std::vector<float> row = ramp(64, 1.0f, 0.0f);
  std::vector<float> broadcast(128 * 64, -1.0f);
  dispatch(loaded, 0, {binding(row), binding(broadcast)});
  for (int i = 0; i < 128; ++i) {
    for (int j = 0; j < 64; ++j) {
      REQUIRE(broadcast[i * 64 + j] == row[j]);
    }
  }

  std::vector<float> small = ramp(30 * 30, 1.0f, 0.0f);
  std::vector<float> padded(32 * 32, -1.0f);
  dispatch(loaded, 1, {binding(small), binding(padded)});
  for (int i = 0; i < 32; ++i) {
    for (int j = 0; j < 32; ++j) {
      bool inside = i >= 1 && i <= 30 && j >= 1 && j <= 30;
      REQUIRE(padded[i * 32 + j] ==
              (inside ? small[(i - 1) * 30 + (j - 1)] : 1.5f));
    }
  }

  std::vector<int32_t> left(16 * 8), right(16 * 4), joined(16 * 12, -1);
  for (size_t i = 0; i < left.size(); ++i) {
    left[i] = static_cast<int32_t>(i);
  }
  for (size_t i = 0; i < right.size(); ++i) {
    right[i] = -static_cast<int32_t>(i) - 1;
  }
  dispatch(loaded, 2, {binding(left), binding(right), binding(joined)});
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 12; ++j) {
      REQUIRE(joined[i * 12 + j] ==
              (j < 8 ? left[i * 8 + j] : right[i * 4 + (j - 8)]));
    }
  }

  std::vector<int16_t> block(8 * 16 * 4), flat(32 * 16, 0);
  for (size_t i = 0; i < block.size(); ++i) {
    block[i] = static_cast<int16_t>(i * 3 - 700);
  }
  dispatch(loaded, 3, {binding(block), binding(flat)});
  CHECK(flat == block); // row-major reshapes keep the element order

  std::vector<double> big(64 * 64), patch(8 * 8), updated(64 * 64, -1.0);
  for (size_t i = 0; i < big.size(); ++i) {
    big[i] = static_cast<double>(i) * 0.5;
  }
  for (size_t i = 0; i < patch.size(); ++i) {
    patch[i] = 1000.0 + static_cast<double>(i);
  }
  dispatch(loaded, 4, {binding(big), binding(patch), binding(updated)});
  for (int i = 0; i < 64; ++i) {
    for (int j = 0; j < 64; ++j) {
      double expected = i < 8 && j < 8
                            ? big[(i + 8) * 64 + (j + 8)] + patch[i * 8 + j]
                            : big[i * 64 + j];
      REQUIRE(updated[i * 64 + j] == expected);
    }
  }

  std::vector<int64_t> constants(4, 0);
  dispatch(loaded, 5, {binding(constants)});
  CHECK(constants == std::vector<int64_t>{1, 2, -3, 4000000000000});
}

TEST_CASE("approximates powf, log, erf, sqrt and rsqrt; returns two results") {
  Loaded loaded;
  REQUIRE(compileAndLoad(R"mlir(
module @more_math {
  func.func @mathops(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
    %e = tensor.empty() : tensor<1024xf32>
    %r:3 = linalg.generic {
        indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                         affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
        iterator_types = ["parallel"]}
        ins(%a, %b : tensor<1024xf32>, tensor<1024xf32>) outs(%e, %e, %e : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
    ^bb0(%x: f32, %y: f32, %o0: f32, %o1: f32, %o2: f32):
      %p = math.powf %x, %y : f32
      %l = math.log %x : f32
      %er = math.erf %y : f32
      %sq = math.sqrt %x : f32
      %rs = math.rsqrt %x : f32
      %s = arith.addf %sq, %rs : f32
      %le = arith.addf %l, %er : f32
      linalg.yield %p, %le, %s : f32, f32, f32
    } -> (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>)
    return %r#0, %r#1, %r#2 : tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>
  }
})mlir",
                         loaded));
  CHECK(loaded.compiled.exports[0].bindingCount == 5);
  std::vector<float> a(1024), b(1024);
  for (int i = 0; i < 1024; ++i) {
    a[i] = 0.05f + static_cast<float>(i) * 0.01f;
    b[i] = -2.0f + static_cast<float>(i) * 0.004f;
  }
  std::vector<float> pows(1024), logErfs(1024), roots(1024);
  dispatch(loaded, 0,
           {binding(a), binding(b), binding(pows), binding(logErfs),
            binding(roots)});
  for (int i = 0; i < 1024; ++i) {
    REQUIRE(pows[i] ==
            doctest::Approx(std::pow(a[i], b[i])).epsilon(1e-4));
    REQUIRE(logErfs[i] == doctest::Approx(std::log(a[i]) + std::erf(b[i]))
                              .epsilon(1e-4)
                              .scale(1.0));
    REQUIRE(roots[i] ==
            doctest::Approx(std::sqrt(a[i]) + 1.0 / std::sqrt(a[i]))
                .epsilon(1e-5));
  }
}

TEST_CASE("keeps a large temporary in workgroup local memory") {
  Loaded loaded;
  REQUIRE(compileAndLoad(R"mlir(
module @local {
  func.func @sum_of_products(%a: tensor<256x32xf32>, %b: tensor<32x256xf32>) -> tensor<f32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<256x32xf32>, tensor<32x256xf32>)
                       outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
    %e0 = tensor.empty() : tensor<f32>
    %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
    %r = linalg.reduce ins(%m : tensor<256x256xf32>) outs(%f0 : tensor<f32>) dimensions = [0, 1]
      (%in: f32, %acc: f32) {
        %s = arith.addf %in, %acc : f32
        linalg.yield %s : f32
      }
    return %r : tensor<f32>
  }
})mlir",
                         loaded));
  const strata_hal_executable_dispatch_attrs_v0_t *attrs =
      strata_hal_executable_export_attrs(loaded.executable, 0);
  REQUIRE(attrs);
  CHECK(attrs->local_memory_size >= 256 * 256 * 4);
  std::vector<float> a = ramp(256 * 32, 0.01f, -0.5f);
  std::vector<float> b = ramp(32 * 256, 0.02f, -1.0f);
  std::vector<float> total(1, 0.0f);
  dispatch(loaded, 0, {binding(a), binding(b), binding(total)});
  double expected = 0;
  for (int i = 0; i < 256; ++i) {
    for (int j = 0; j < 256; ++j) {
      for (int k = 0; k < 32; ++k) {
        expected += static_cast<double>(a[i * 32 + k]) * b[k * 256 + j];
      }
    }
  }
  CHECK(total[0] == doctest::Approx(expected).epsilon(1e-3));
}

TEST_CASE("distributes a prime-length loop with a partial last workgroup") {
  Loaded loaded;
  REQUIRE(compileAndLoad(R"mlir(
module @prime {
  func.func @sub(%a: tensor<100003xi64>, %b: tensor<100003xi64>) -> tensor<100003xi64> {
    %e = tensor.empty() : tensor<100003xi64>
    %r = linalg.sub ins(%a, %b : tensor<100003xi64>, tensor<100003xi64>)
                    outs(%e : tensor<100003xi64>) -> tensor<100003xi64>
    return %r : tensor<100003xi64>
  }
})mlir",
                         loaded));
  CHECK(workgroupTotal(loaded.compiled.exports[0]) > 1);
  std::vector<int64_t> a(100003), b(100003), out(100003, 0);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<int64_t>(i) * 1000000007;
    b[i] = 5 - static_cast<int64_t>(i);
  }
  dispatch(loaded, 0, {binding(a), binding(b), binding(out)}, /*threads=*/3);
  for (size_t i = 0; i < a.size(); ++i) {
    REQUIRE(out[i] == a[i] - b[i]);
  }
}

TEST_CASE("distributes a two-result generic reached through a private call") {
  Loaded loaded;
  REQUIRE(compileAndLoad(R"mlir(
module @calls {
  func.func private @minmax(%a: tensor<256x128xf32>, %b: tensor<256x128xf32>) -> (tensor<256x128xf32>, tensor<256x128xf32>) {
    %e = tensor.empty() : tensor<256x128xf32>
    %r:2 = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                         affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
        iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : tensor<256x128xf32>, tensor<256x128xf32>) outs(%e, %e : tensor<256x128xf32>, tensor<256x128xf32>) {
    ^bb0(%x: f32, %y: f32, %o0: f32, %o1: f32):
      %lo = arith.minimumf %x, %y : f32
      %hi = arith.maximumf %x, %y : f32
      linalg.yield %lo, %hi : f32, f32
    } -> (tensor<256x128xf32>, tensor<256x128xf32>)
    return %r#0, %r#1 : tensor<256x128xf32>, tensor<256x128xf32>
  }
  func.func @main(%a: tensor<256x128xf32>, %b: tensor<256x128xf32>) -> (tensor<256x128xf32>, tensor<256x128xf32>) {
    %r:2 = func.call @minmax(%a, %b) : (tensor<256x128xf32>, tensor<256x128xf32>) -> (tensor<256x128xf32>, tensor<256x128xf32>)
    return %r#0, %r#1 : tensor<256x128xf32>, tensor<256x128xf32>
  }
})mlir",
                         loaded));
  REQUIRE(loaded.compiled.exports.size() == 1);
  CHECK(loaded.compiled.exports[0].bindingCount == 4);
  CHECK(workgroupTotal(loaded.compiled.exports[0]) > 1);
  std::vector<float> a = ramp(256 * 128, 1.0f, -50.0f);
  std::vector<float> b = ramp(256 * 128, -1.0f, 50.0f);
  std::vector<float> lo(a.size(), 0.0f), hi(a.size(), 0.0f);
  dispatch(loaded, 0, {binding(a), binding(b), binding(lo), binding(hi)},
           /*threads=*/2);
  for (size_t i = 0; i < a.size(); ++i) {
    REQUIRE(lo[i] == std::min(a[i], b[i]));
    REQUIRE(hi[i] == std::max(a[i], b[i]));
  }
}

TEST_CASE("exports only the query function and leaves nothing undefined") {
  CompiledExecutable compiled;
  std::string errors;
  REQUIRE_MESSAGE(compile(R"mlir(
module {
  func.func @copy(%a: tensor<4096xi8>) -> tensor<4096xi8> {
    return %a : tensor<4096xi8>
  }
})mlir",
                          compiled, errors),
                  errors);
  CHECK(compiled.format.rfind("embedded-elf-", 0) == 0);
  llvm::MemoryBufferRef buffer(
      llvm::StringRef(reinterpret_cast<const char *>(compiled.library.data()),
                      compiled.library.size()),
      "library");
  auto object = llvm::object::ObjectFile::createObjectFile(buffer);
  REQUIRE(static_cast<bool>(object));
  auto *elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(object->get());
  REQUIRE(elf);
  std::vector<std::string> defined;
  int undefined = 0;
  for (const llvm::object::SymbolRef &symbol : elf->getDynamicSymbolIterators()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    REQUIRE(static_cast<bool>(flags));
    REQUIRE(static_cast<bool>(name));
    if (name->empty()) {
      continue;
    }
    if (*flags & llvm::object::SymbolRef::SF_Undefined) {
      ++undefined;
      MESSAGE("undefined symbol: " << name->str());
    } else if (*flags & llvm::object::SymbolRef::SF_Global) {
      defined.push_back(name->str());
    }
  }
  CHECK(undefined == 0);
  CHECK(defined == std::vector<std::string>{"strata_hal_executable_library_query"});
  // The copy of an argument to the result runs (memcpy-like code without libc).
  Loaded loaded;
  loaded.compiled = compiled;
  REQUIRE(strata_hal_executable_load_memory(
              compiled.library.data(), compiled.library.size(), "copy",
              strata_allocator_system(), &loaded.executable) == nullptr);
  std::vector<int8_t> in(4096), out(4096, 0);
  for (size_t i = 0; i < in.size(); ++i) {
    in[i] = static_cast<int8_t>(i * 13);
  }
  dispatch(loaded, 0, {binding(in), binding(out)});
  CHECK(in == out);
}

TEST_CASE("cross-compiles an aarch64 library") {
  CompiledExecutable compiled;
  std::string errors;
  LLVMCPUTargetOptions options;
  options.triple = "aarch64-linux-gnu";
  REQUIRE_MESSAGE(compile(R"mlir(
module {
  func.func @scale(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %e = tensor.empty() : tensor<64x64xf32>
    %r = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
        iterator_types = ["parallel", "parallel"]}
        ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
    ^bb0(%in: f32, %o: f32):
      %y = math.exp %in : f32
      linalg.yield %y : f32
    } -> tensor<64x64xf32>
    return %r : tensor<64x64xf32>
  }
})mlir",
                          compiled, errors, options),
                  errors);
  CHECK(compiled.format == "embedded-elf-aarch64");
  REQUIRE(compiled.library.size() > 64);
  CHECK(std::memcmp(compiled.library.data(), "\x7f" "ELF", 4) == 0);
  uint16_t machine = static_cast<uint16_t>(compiled.library[18] |
                                           (compiled.library[19] << 8));
  CHECK(machine == 183); // EM_AARCH64
}

TEST_CASE("reports a dynamic shape at its location") {
  CompiledExecutable compiled;
  std::string errors;
  CHECK_FALSE(compile(R"mlir(
module {
  func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
    return %a : tensor<?xf32>
  }
})mlir",
                      compiled, errors));
  CHECK(errors.find("test.mlir\":3:3") != std::string::npos);
  CHECK(errors.find("dynamic shape") != std::string::npos);
}

TEST_CASE("reports f16 and library-only math at their locations") {
  CompiledExecutable compiled;
  std::string errors;
  CHECK_FALSE(compile(R"mlir(
module {
  func.func @half(%a: tensor<4xf16>) -> tensor<4xf16> {
    return %a : tensor<4xf16>
  }
})mlir",
                      compiled, errors));
  CHECK(errors.find("test.mlir\":3:3") != std::string::npos);
  CHECK(errors.find("unsupported element type") != std::string::npos);

  errors.clear();
  CHECK_FALSE(compile(R"mlir(
module {
  func.func @exp64(%a: tensor<4xf64>) -> tensor<4xf64> {
    %e = tensor.empty() : tensor<4xf64>
    %r = linalg.generic {
        indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
        iterator_types = ["parallel"]}
        ins(%a : tensor<4xf64>) outs(%e : tensor<4xf64>) {
    ^bb0(%in: f64, %o: f64):
      %y = math.exp %in : f64
      linalg.yield %y : f64
    } -> tensor<4xf64>
    return %r : tensor<4xf64>
  }
})mlir",
                      compiled, errors));
  CHECK(errors.find("test.mlir\":10:12") != std::string::npos);
  CHECK(errors.find("math.exp") != std::string::npos);
}

} // TEST_SUITE
