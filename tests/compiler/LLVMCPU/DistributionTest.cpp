// DistributionTest.cpp - how llvm-cpu dispatches are split and what they may
// hold: shape ops, multi-result and reshaped results, private calls, partial
// workgroups, local memory for large temporaries, decomposed softmax.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "TestHarness.h"

using namespace llvmcpu_test;

TEST_SUITE("compiler.llvmcpu.distribution") {

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

  TEST_CASE(
      "approximates powf, log, erf, sqrt and rsqrt; returns two results") {
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
      REQUIRE(pows[i] == doctest::Approx(std::pow(a[i], b[i])).epsilon(1e-4));
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

  TEST_CASE("runs softmax, an i8 matmul into i32, argmax and max pooling") {
    Loaded loaded;
    REQUIRE(compileAndLoad(R"mlir(
module @nn {
  func.func @softmax(%in: tensor<64x128xf32>) -> tensor<64x128xf32> {
    %e = tensor.empty() : tensor<64x128xf32>
    %r = linalg.softmax dimension(1) ins(%in : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
    return %r : tensor<64x128xf32>
  }
  func.func @i8mm(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>) -> tensor<64x64xi32> {
    %zero = arith.constant 0 : i32
    %e = tensor.empty() : tensor<64x64xi32>
    %f = linalg.fill ins(%zero : i32) outs(%e : tensor<64x64xi32>) -> tensor<64x64xi32>
    %r = linalg.matmul ins(%a, %b : tensor<64x32xi8>, tensor<32x64xi8>) outs(%f : tensor<64x64xi32>) -> tensor<64x64xi32>
    return %r : tensor<64x64xi32>
  }
  func.func @argmax(%a: tensor<64x100xf32>) -> tensor<64xi64> {
    %c0 = arith.constant 0 : i64
    %ninf = arith.constant -3.4e38 : f32
    %e = tensor.empty() : tensor<64xi64>
    %fi = linalg.fill ins(%c0 : i64) outs(%e : tensor<64xi64>) -> tensor<64xi64>
    %ev = tensor.empty() : tensor<64xf32>
    %fv = linalg.fill ins(%ninf : f32) outs(%ev : tensor<64xf32>) -> tensor<64xf32>
    %r:2 = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
        iterator_types = ["parallel", "reduction"]}
        ins(%a : tensor<64x100xf32>) outs(%fv, %fi : tensor<64xf32>, tensor<64xi64>) {
    ^bb0(%x: f32, %best: f32, %idx: i64):
      %j = linalg.index 1 : index
      %ji = arith.index_cast %j : index to i64
      %gt = arith.cmpf ogt, %x, %best : f32
      %nb = arith.select %gt, %x, %best : f32
      %ni = arith.select %gt, %ji, %idx : i64
      linalg.yield %nb, %ni : f32, i64
    } -> (tensor<64xf32>, tensor<64xi64>)
    return %r#1 : tensor<64xi64>
  }
  func.func @pool(%in: tensor<1x16x16x8xf32>) -> tensor<1x8x8x8xf32> {
    %ninf = arith.constant -3.4e38 : f32
    %w = tensor.empty() : tensor<2x2xf32>
    %e = tensor.empty() : tensor<1x8x8x8xf32>
    %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %w : tensor<1x16x16x8xf32>, tensor<2x2xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    return %r : tensor<1x8x8x8xf32>
  }
})mlir",
                           loaded));
    REQUIRE(loaded.compiled.exports.size() == 4);

    std::vector<float> logits = ramp(64 * 128, 0.1f, -5.0f);
    std::vector<float> probabilities(logits.size(), 0.0f);
    dispatch(loaded, 0, {binding(logits), binding(probabilities)}, 2);
    for (int i = 0; i < 64; ++i) {
      double maxValue = -1e30, sum = 0;
      for (int j = 0; j < 128; ++j) {
        maxValue = std::max<double>(maxValue, logits[i * 128 + j]);
      }
      for (int j = 0; j < 128; ++j) {
        sum += std::exp(logits[i * 128 + j] - maxValue);
      }
      for (int j = 0; j < 128; ++j) {
        REQUIRE(probabilities[i * 128 + j] ==
                doctest::Approx(std::exp(logits[i * 128 + j] - maxValue) / sum)
                    .epsilon(1e-4));
      }
    }

    std::vector<int8_t> a(64 * 32), b(32 * 64);
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = static_cast<int8_t>(i * 29);
      b[i] = static_cast<int8_t>(i * 53 + 7);
    }
    std::vector<int32_t> product(64 * 64, -1);
    dispatch(loaded, 1, {binding(a), binding(b), binding(product)}, 2);
    for (int i = 0; i < 64; ++i) {
      for (int j = 0; j < 64; ++j) {
        int32_t sum = 0;
        for (int k = 0; k < 32; ++k) {
          sum += int32_t{a[i * 32 + k]} * int32_t{b[k * 64 + j]};
        }
        REQUIRE(product[i * 64 + j] == sum);
      }
    }

    std::vector<float> scores = ramp(64 * 100, 1.0f, 0.0f);
    std::vector<int64_t> best(64, -1);
    dispatch(loaded, 2, {binding(scores), binding(best)});
    for (int i = 0; i < 64; ++i) {
      const float *row = &scores[i * 100];
      REQUIRE(best[i] == std::max_element(row, row + 100) - row);
    }

    std::vector<float> image = ramp(16 * 16 * 8, 0.5f, -20.0f);
    std::vector<float> pooled(8 * 8 * 8, 0.0f);
    dispatch(loaded, 3, {binding(image), binding(pooled)});
    for (int h = 0; h < 8; ++h) {
      for (int w = 0; w < 8; ++w) {
        for (int c = 0; c < 8; ++c) {
          float expected = -3.4e38f;
          for (int dh = 0; dh < 2; ++dh) {
            for (int dw = 0; dw < 2; ++dw) {
              expected = std::max(
                  expected, image[((2 * h + dh) * 16 + 2 * w + dw) * 8 + c]);
            }
          }
          REQUIRE(pooled[(h * 8 + w) * 8 + c] == expected);
        }
      }
    }
  }

  TEST_CASE("returns a matmul and its biased sum from one distributed loop") {
    Loaded loaded;
    REQUIRE(compileAndLoad(R"mlir(
module @multi {
  func.func @mm_and_bias(%x: tensor<256x32xf32>, %w: tensor<32x64xf32>, %bias: tensor<64xf32>) -> (tensor<256x64xf32>, tensor<256x64xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x64xf32>) -> tensor<256x64xf32>
    %m = linalg.matmul ins(%x, %w : tensor<256x32xf32>, tensor<32x64xf32>) outs(%f : tensor<256x64xf32>) -> tensor<256x64xf32>
    %r = linalg.generic {
        indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
        iterator_types = ["parallel", "parallel"]}
        ins(%m, %bias : tensor<256x64xf32>, tensor<64xf32>) outs(%e : tensor<256x64xf32>) {
    ^bb0(%v: f32, %b: f32, %o: f32):
      %s = arith.addf %v, %b : f32
      linalg.yield %s : f32
    } -> tensor<256x64xf32>
    return %m, %r : tensor<256x64xf32>, tensor<256x64xf32>
  }
})mlir",
                           loaded));
    CHECK(loaded.compiled.exports[0].bindingCount == 5);
    CHECK(workgroupTotal(loaded.compiled.exports[0]) > 1);
    std::vector<float> x = ramp(256 * 32, 0.125f, -6.0f);
    std::vector<float> w = ramp(32 * 64, -0.0625f, 3.0f);
    std::vector<float> bias = ramp(64, 1.0f, -50.0f);
    std::vector<float> product(256 * 64, -1.0f), biased(256 * 64, -1.0f);
    dispatch(loaded, 0,
             {binding(x), binding(w), binding(bias), binding(product),
              binding(biased)},
             3);
    for (int i = 0; i < 256; ++i) {
      for (int j = 0; j < 64; ++j) {
        double sum = 0;
        for (int k = 0; k < 32; ++k) {
          sum += static_cast<double>(x[i * 32 + k]) * w[k * 64 + j];
        }
        REQUIRE(product[i * 64 + j] == doctest::Approx(sum).epsilon(1e-5));
        REQUIRE(biased[i * 64 + j] ==
                doctest::Approx(sum + bias[j]).epsilon(1e-5));
      }
    }
  }

  TEST_CASE("distributes results reshaped after their root op") {
    Loaded loaded;
    REQUIRE(compileAndLoad(R"mlir(
module @reshaped {
  func.func @collapse(%a: tensor<64x1024xf32>) -> tensor<65536xf32> {
    %e = tensor.empty() : tensor<64x1024xf32>
    %x = linalg.negf ins(%a : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
    %c = tensor.collapse_shape %x [[0, 1]] : tensor<64x1024xf32> into tensor<65536xf32>
    return %c : tensor<65536xf32>
  }
  func.func @expand(%a: tensor<65536xi32>, %b: tensor<65536xi32>) -> tensor<64x1024xi32> {
    %e = tensor.empty() : tensor<65536xi32>
    %x = linalg.add ins(%a, %b : tensor<65536xi32>, tensor<65536xi32>) outs(%e : tensor<65536xi32>) -> tensor<65536xi32>
    %c = tensor.expand_shape %x [[0, 1]] output_shape [64, 1024] : tensor<65536xi32> into tensor<64x1024xi32>
    return %c : tensor<64x1024xi32>
  }
})mlir",
                           loaded));
    CHECK(workgroupTotal(loaded.compiled.exports[0]) > 1);
    CHECK(workgroupTotal(loaded.compiled.exports[1]) > 1);
    std::vector<float> a = ramp(65536, 1.0f, -40.0f);
    std::vector<float> negated(65536, 0.0f);
    dispatch(loaded, 0, {binding(a), binding(negated)}, 2);
    for (size_t i = 0; i < a.size(); ++i) {
      REQUIRE(negated[i] == -a[i]);
    }
    std::vector<int32_t> x(65536), y(65536), sum(65536, 0);
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<int32_t>(i);
      y[i] = static_cast<int32_t>(3 * i) - 100000;
    }
    dispatch(loaded, 1, {binding(x), binding(y), binding(sum)}, 2);
    for (size_t i = 0; i < x.size(); ++i) {
      REQUIRE(sum[i] == x[i] + y[i]);
    }
  }

  TEST_CASE("cuts a large concatenation into bands of its leading "
            "dimensions") {
    Loaded loaded;
    // Three operands joined along the channels of an NHWC tensor (as
    // squeezenet's fire modules), large enough for several workgroups;
    // odd channel counts, so rows are not vector multiples.
    REQUIRE(compileAndLoad(R"mlir(
module @concat {
  func.func @channels(%a: tensor<4x30x17x13xf32>, %b: tensor<4x30x17x7xf32>, %c: tensor<4x30x17x1xf32>) -> tensor<4x30x17x21xf32> {
    %r = tensor.concat dim(3) %a, %b, %c : (tensor<4x30x17x13xf32>, tensor<4x30x17x7xf32>, tensor<4x30x17x1xf32>) -> tensor<4x30x17x21xf32>
    return %r : tensor<4x30x17x21xf32>
  }
  func.func @rows(%a: tensor<3x64x128xi16>, %b: tensor<3x61x128xi16>) -> tensor<3x125x128xi16> {
    %r = tensor.concat dim(1) %a, %b : (tensor<3x64x128xi16>, tensor<3x61x128xi16>) -> tensor<3x125x128xi16>
    return %r : tensor<3x125x128xi16>
  }
})mlir",
                           loaded));
    CHECK(workgroupTotal(loaded.compiled.exports[0]) > 1);
    CHECK(workgroupTotal(loaded.compiled.exports[1]) > 1);
    const int pixels = 4 * 30 * 17;
    std::vector<float> a = ramp(pixels * 13, 1.0f, 0.0f);
    std::vector<float> b = ramp(pixels * 7, -1.0f, -0.5f);
    std::vector<float> c = ramp(pixels, 0.25f, 1000.0f);
    std::vector<float> joined(pixels * 21, -7.0f);
    dispatch(loaded, 0, {binding(a), binding(b), binding(c), binding(joined)},
             2);
    for (int p = 0; p < pixels; ++p) {
      for (int j = 0; j < 21; ++j) {
        float want = j < 13   ? a[p * 13 + j]
                     : j < 20 ? b[p * 7 + (j - 13)]
                              : c[p];
        REQUIRE(joined[p * 21 + j] == want);
      }
    }
    std::vector<int16_t> x(3 * 64 * 128), y(3 * 61 * 128);
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<int16_t>(i % 30000);
    }
    for (size_t i = 0; i < y.size(); ++i) {
      y[i] = static_cast<int16_t>(-static_cast<int>(i % 30000) - 1);
    }
    std::vector<int16_t> rows(3 * 125 * 128, 0);
    dispatch(loaded, 1, {binding(x), binding(y), binding(rows)}, 2);
    for (int n = 0; n < 3; ++n) {
      for (int r = 0; r < 125; ++r) {
        for (int j = 0; j < 128; ++j) {
          int16_t want = r < 64 ? x[(n * 64 + r) * 128 + j]
                                : y[(n * 61 + (r - 64)) * 128 + j];
          REQUIRE(rows[(n * 125 + r) * 128 + j] == want);
        }
      }
    }
  }

} // TEST_SUITE
