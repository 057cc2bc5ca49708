// KernelsTest.cpp - llvm-cpu kernels against C++ references: elementwise,
// matmuls, reductions, math approximations, transposes and convolutions, over
// every element width, with workgroups run in any order and on several threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "TestHarness.h"
#include "executable_impl.h"

using namespace llvmcpu_test;

namespace {

// One module per element type: an elementwise x * y + x on 128x257 (a
// partial last vector), a 96x48x80 matmul, a 64x96 transpose and column sums
// of 512x64, all checked against the same computation done here in T.
template <typename T>
void checkElementType(const std::string &type, const std::string &add,
                      const std::string &mul, const std::string &zero) {
  std::string source = R"mlir(
module @sweep {
  func.func @ew(%a: tensor<128x257xT>, %b: tensor<128x257xT>) -> tensor<128x257xT> {
    %e = tensor.empty() : tensor<128x257xT>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<128x257xT>, tensor<128x257xT>) outs(%e : tensor<128x257xT>) {
    ^bb0(%x: T, %y: T, %o: T):
      %m = MUL %x, %y : T
      %s = ADD %m, %x : T
      linalg.yield %s : T
    } -> tensor<128x257xT>
    return %r : tensor<128x257xT>
  }
  func.func @mm(%a: tensor<96x48xT>, %b: tensor<48x80xT>) -> tensor<96x80xT> {
    %z = arith.constant ZERO
    %e = tensor.empty() : tensor<96x80xT>
    %f = linalg.fill ins(%z : T) outs(%e : tensor<96x80xT>) -> tensor<96x80xT>
    %r = linalg.matmul ins(%a, %b : tensor<96x48xT>, tensor<48x80xT>) outs(%f : tensor<96x80xT>) -> tensor<96x80xT>
    return %r : tensor<96x80xT>
  }
  func.func @tr(%a: tensor<64x96xT>) -> tensor<96x64xT> {
    %e = tensor.empty() : tensor<96x64xT>
    %r = linalg.transpose ins(%a : tensor<64x96xT>) outs(%e : tensor<96x64xT>) permutation = [1, 0]
    return %r : tensor<96x64xT>
  }
  func.func @colsum(%a: tensor<512x64xT>) -> tensor<64xT> {
    %z = arith.constant ZERO
    %e = tensor.empty() : tensor<64xT>
    %f = linalg.fill ins(%z : T) outs(%e : tensor<64xT>) -> tensor<64xT>
    %r = linalg.reduce ins(%a : tensor<512x64xT>) outs(%f : tensor<64xT>) dimensions = [0]
      (%in: T, %acc: T) {
        %s = ADD %in, %acc : T
        linalg.yield %s : T
      }
    return %r : tensor<64xT>
  }
})mlir";
  auto replaceAll = [&](const std::string &from, const std::string &to) {
    for (size_t at = source.find(from); at != std::string::npos;
         at = source.find(from, at + to.size())) {
      source.replace(at, from.size(), to);
    }
  };
  replaceAll("xT>", "x" + type + ">");
  replaceAll(": T", ": " + type);
  replaceAll("MUL", mul);
  replaceAll("ADD", add);
  replaceAll("ZERO", zero);
  Loaded loaded;
  REQUIRE(compileAndLoad(source, loaded));
  // Small integer values keep every type (and float rounding) exact.
  auto value = [](size_t i, int salt) {
    return static_cast<T>(static_cast<int>((i * 7 + salt) % 5) - 2);
  };
  std::vector<T> a(128 * 257), b(128 * 257), ew(128 * 257);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = value(i, 1);
    b[i] = value(i, 3);
  }
  dispatch(loaded, 0, {binding(a), binding(b), binding(ew)}, 2);
  for (size_t i = 0; i < a.size(); ++i) {
    REQUIRE(ew[i] == static_cast<T>(a[i] * b[i] + a[i]));
  }
  std::vector<T> lhs(96 * 48), rhs(48 * 80), product(96 * 80);
  for (size_t i = 0; i < lhs.size(); ++i) {
    lhs[i] = value(i, 2);
  }
  for (size_t i = 0; i < rhs.size(); ++i) {
    rhs[i] = value(i, 4);
  }
  dispatch(loaded, 1, {binding(lhs), binding(rhs), binding(product)}, 2);
  for (int i = 0; i < 96; ++i) {
    for (int j = 0; j < 80; ++j) {
      T sum = 0;
      for (int k = 0; k < 48; ++k) {
        sum = static_cast<T>(sum + lhs[i * 48 + k] * rhs[k * 80 + j]);
      }
      REQUIRE(product[i * 80 + j] == sum);
    }
  }
  std::vector<T> matrix(64 * 96), transposed(96 * 64);
  for (size_t i = 0; i < matrix.size(); ++i) {
    matrix[i] = value(i, 0);
  }
  dispatch(loaded, 2, {binding(matrix), binding(transposed)});
  for (int i = 0; i < 96; ++i) {
    for (int j = 0; j < 64; ++j) {
      REQUIRE(transposed[i * 64 + j] == matrix[j * 96 + i]);
    }
  }
  std::vector<T> tall(512 * 64), sums(64);
  for (size_t i = 0; i < tall.size(); ++i) {
    tall[i] = value(i, 5);
  }
  dispatch(loaded, 3, {binding(tall), binding(sums)}, 2);
  for (int j = 0; j < 64; ++j) {
    T sum = 0;
    for (int i = 0; i < 512; ++i) {
      sum = static_cast<T>(sum + tall[i * 64 + j]);
    }
    REQUIRE(sums[j] == sum);
  }
}

} // namespace

TEST_SUITE("compiler.llvmcpu.kernels") {

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

    // A binding shorter than its tensor, or too few bindings, fail the call
    // instead of reading past the end.
    void *ptrs[3] = {a.data(), b.data(), out.data()};
    size_t lengths[3] = {24, 20, 24};
    strata_hal_executable_dispatch_state_v0_t state = {};
    state.workgroup_count_x = state.workgroup_count_y = 1;
    state.workgroup_count_z = 1;
    state.binding_count = 3;
    state.binding_ptrs = ptrs;
    state.binding_lengths = lengths;
    strata_hal_executable_dispatch_detail_v1_t detail = {};
    strata_hal_executable_workgroup_state_v1_t stateV1 = {{}, &detail};
    strata_hal_executable_workgroup_state_v0_t &workgroup = stateV1.v0;
    strata_hal_executable_dispatch_v0_t function =
        strata::hal::exportFunction(loaded.executable, 0);
    const strata_hal_executable_environment_v0_t *environment =
        strata_hal_executable_environment(loaded.executable);
    CHECK(function(environment, &state, &workgroup) != 0);
    lengths[1] = 24;
    state.binding_count = 2;
    CHECK(function(environment, &state, &workgroup) != 0);
    state.binding_count = 3;
    CHECK(function(environment, &state, &workgroup) == 0);
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
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
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
      uint32_t expected =
          static_cast<uint32_t>(a[i]) * static_cast<uint32_t>(b[i]) + 12345u;
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
                sum +=
                    static_cast<double>(in[((h + kh) * 18 + w + kw) * 8 + c]) *
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

  TEST_CASE("computes elementwise, matmul, transpose and column sums for "
            "every integer and float width") {
    SUBCASE("i8") {
      checkElementType<int8_t>("i8", "arith.addi", "arith.muli", "0 : i8");
    }
    SUBCASE("i16") {
      checkElementType<int16_t>("i16", "arith.addi", "arith.muli", "0 : i16");
    }
    SUBCASE("i32") {
      checkElementType<int32_t>("i32", "arith.addi", "arith.muli", "0 : i32");
    }
    SUBCASE("i64") {
      checkElementType<int64_t>("i64", "arith.addi", "arith.muli", "0 : i64");
    }
    SUBCASE("f32") {
      checkElementType<float>("f32", "arith.addf", "arith.mulf", "0.0 : f32");
    }
    SUBCASE("f64") {
      checkElementType<double>("f64", "arith.addf", "arith.mulf", "0.0 : f64");
    }
  }

} // TEST_SUITE
