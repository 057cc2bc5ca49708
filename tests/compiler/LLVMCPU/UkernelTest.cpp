// UkernelTest.cpp - f32 matmuls that take the matmul microkernel
// (MatmulUkernel.cpp, ukernel/*.c) against a double reference, for both x86
// variants, at sizes that are not multiples of the register tile, of the
// depth block or of the workgroup tile (partial last workgroups); and the
// aarch64 target links the NEON variant (tests/aarch64 runs it under qemu).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "Strata/Codegen/LLVMCPU/Codegen.h"
#include "TestHarness.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"

using namespace llvmcpu_test;

namespace {

std::string matmulSource(int m, int k, int n) {
  auto type = [](int rows, int cols) {
    return "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) +
           "xf32>";
  };
  std::string a = type(m, k), b = type(k, n), c = type(m, n);
  return "func.func @matmul(%a: " + a + ", %b: " + b + ") -> " + c +
         " {\n"
         "  %zero = arith.constant 0.0 : f32\n"
         "  %e = tensor.empty() : " +
         c +
         "\n"
         "  %f = linalg.fill ins(%zero : f32) outs(%e : " +
         c + ") -> " + c +
         "\n"
         "  %r = linalg.matmul ins(%a, %b : " +
         a + ", " + b + ") outs(%f : " + c + ") -> " + c +
         "\n"
         "  return %r : " +
         c + "\n}\n";
}

// Names of the library's defined global dynamic symbols; counts undefined
// ones.
std::vector<std::string> exportedSymbols(const CompiledExecutable &compiled,
                                         int &undefined) {
  llvm::MemoryBufferRef buffer(
      llvm::StringRef(reinterpret_cast<const char *>(compiled.library.data()),
                      compiled.library.size()),
      "library");
  auto object = llvm::object::ObjectFile::createObjectFile(buffer);
  REQUIRE(static_cast<bool>(object));
  auto *elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(object->get());
  REQUIRE(elf);
  std::vector<std::string> defined;
  undefined = 0;
  for (const llvm::object::SymbolRef &symbol :
       elf->getDynamicSymbolIterators()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    REQUIRE(static_cast<bool>(flags));
    REQUIRE(static_cast<bool>(name));
    if (name->empty()) {
      continue;
    }
    if (*flags & llvm::object::SymbolRef::SF_Undefined) {
      ++undefined;
    } else if (*flags & llvm::object::SymbolRef::SF_Global) {
      defined.push_back(name->str());
    }
  }
  return defined;
}

// Whether the library's static symbol table has a symbol `name` (the
// microkernels are linked with internal linkage: local symbols).
bool hasSymbol(const CompiledExecutable &compiled, llvm::StringRef name) {
  llvm::MemoryBufferRef buffer(
      llvm::StringRef(reinterpret_cast<const char *>(compiled.library.data()),
                      compiled.library.size()),
      "library");
  auto object = llvm::object::ObjectFile::createObjectFile(buffer);
  REQUIRE(static_cast<bool>(object));
  for (const llvm::object::SymbolRef &symbol : (*object)->symbols()) {
    llvm::Expected<llvm::StringRef> symbolName = symbol.getName();
    REQUIRE(static_cast<bool>(symbolName));
    if (*symbolName == name) {
      return true;
    }
  }
  return false;
}

// Whether a float result `got` matches the double reference `sum` of
// terms whose absolute values add up to `magnitude` (f32 rounding of
// each term and of any summation order).
bool closeEnough(double got, double sum, double magnitude) {
  return std::fabs(got - sum) <= 1e-5 * magnitude + 1e-6;
}

// Compiles an m x k x n matmul for `features`, checks the library's
// symbols, runs it on two threads and compares C with a double reference.
void checkMatmul(int m, int k, int n, const char *features) {
  CAPTURE(m);
  CAPTURE(k);
  CAPTURE(n);
  LLVMCPUTargetOptions options;
  options.features = features;
  Loaded loaded;
  std::string errors;
  REQUIRE_MESSAGE(
      compile(matmulSource(m, k, n), loaded.compiled, errors, options), errors);
  int undefined = 0;
  CHECK(exportedSymbols(loaded.compiled, undefined) ==
        std::vector<std::string>{"strata_hal_executable_library_query"});
  CHECK(undefined == 0);
  REQUIRE(strata_hal_executable_load_memory(
              loaded.compiled.library.data(), loaded.compiled.library.size(),
              "ukernel", strata_allocator_system(),
              &loaded.executable) == nullptr);
  std::vector<float> a = ramp(size_t(m) * k, 0.125f, -1.5f);
  std::vector<float> b = ramp(size_t(k) * n, -0.0625f, 0.75f);
  std::vector<float> c(size_t(m) * n, NAN);
  dispatch(loaded, 0, {binding(a), binding(b), binding(c)}, /*threads=*/2);
  int wrong = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0, magnitude = 0;
      for (int p = 0; p < k; ++p) {
        double term = double(a[size_t(i) * k + p]) * b[size_t(p) * n + j];
        sum += term;
        magnitude += std::fabs(term);
      }
      double got = c[size_t(i) * n + j];
      if (!closeEnough(got, sum, magnitude) && wrong++ < 5) {
        MESSAGE("C[" << i << "][" << j << "] = " << got << ", expected "
                     << sum);
      }
    }
  }
  CHECK(wrong == 0);
}

// Attention's products per head, h batches of an m x k by k x n matmul
// whose B is a copy of a [sequence, heads, depth] tensor, which the
// microkernel reads in place of the copy: with `transposed`, the scores'
// K^T (B[h][p][j] = key[j][h][p], depth contiguous:
// STRATA_SGEMM_TRANSPOSED_B), else the values (B[h][p][j] =
// values[p][h][j], rows heads * n floats apart). Runs it for `features`
// on two threads against a double reference.
void checkHeads(int h, int m, int k, int n, bool transposed,
                const char *features) {
  CAPTURE(h);
  CAPTURE(m);
  CAPTURE(k);
  CAPTURE(n);
  CAPTURE(transposed);
  auto type = [](int d0, int d1, int d2) {
    return "tensor<" + std::to_string(d0) + "x" + std::to_string(d1) + "x" +
           std::to_string(d2) + "xf32>";
  };
  std::string a = type(h, m, k), b = type(h, k, n), c = type(h, m, n);
  std::string source = transposed ? type(n, h, k) : type(k, h, n);
  std::string permutation = transposed ? "[1, 2, 0]" : "[1, 0, 2]";
  std::string text =
      "func.func @heads(%a: " + a + ", %s: " + source + ") -> " + c +
      " {\n  %zero = arith.constant 0.0 : f32\n  %eb = tensor.empty() : " + b +
      "\n  %b = linalg.transpose ins(%s : " + source + ") outs(%eb : " + b +
      ") permutation = " + permutation + "\n  %e = tensor.empty() : " + c +
      "\n  %f = linalg.fill ins(%zero : f32) outs(%e : " + c + ") -> " + c +
      "\n  %r = linalg.batch_matmul ins(%a, %b : " + a + ", " + b +
      ") outs(%f : " + c + ") -> " + c + "\n  return %r : " + c + "\n}\n";
  LLVMCPUTargetOptions options;
  options.features = features;
  Loaded loaded;
  std::string errors;
  REQUIRE_MESSAGE(compile(text, loaded.compiled, errors, options), errors);
  REQUIRE(strata_hal_executable_load_memory(loaded.compiled.library.data(),
                                            loaded.compiled.library.size(),
                                            "heads", strata_allocator_system(),
                                            &loaded.executable) == nullptr);
  std::vector<float> lhs = ramp(size_t(h) * m * k, 0.125f, -1.5f);
  std::vector<float> rhs = ramp(size_t(h) * k * n, -0.0625f, 0.75f);
  std::vector<float> result(size_t(h) * m * n, NAN);
  dispatch(loaded, 0, {binding(lhs), binding(rhs), binding(result)},
           /*threads=*/2);
  auto bAt = [&](int batch, int p, int j) {
    return transposed ? rhs[(size_t(j) * h + batch) * k + p]
                      : rhs[(size_t(p) * h + batch) * n + j];
  };
  int wrong = 0;
  for (int batch = 0; batch < h; ++batch) {
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        double sum = 0, magnitude = 0;
        for (int p = 0; p < k; ++p) {
          double term =
              double(lhs[(size_t(batch) * m + i) * k + p]) * bAt(batch, p, j);
          sum += term;
          magnitude += std::fabs(term);
        }
        double got = result[(size_t(batch) * m + i) * n + j];
        if (!closeEnough(got, sum, magnitude) && wrong++ < 5) {
          MESSAGE("C[" << batch << "][" << i << "][" << j << "] = " << got
                       << ", expected " << sum);
        }
      }
    }
  }
  CHECK(wrong == 0);
}

// A valid (unpadded) NHWC x HWCF convolution of one image through the
// convolution microkernel for `features`, against a double reference.
void checkConv(int outH, int outW, int c, int f, int kernel, int stride,
               int dilation, const char *features) {
  CAPTURE(outH);
  CAPTURE(outW);
  CAPTURE(c);
  CAPTURE(f);
  CAPTURE(kernel);
  CAPTURE(stride);
  CAPTURE(dilation);
  int span = (kernel - 1) * dilation + 1;
  int inH = (outH - 1) * stride + span, inW = (outW - 1) * stride + span;
  auto type = [](std::initializer_list<int> dims) {
    std::string text = "tensor<";
    for (int dim : dims) {
      text += std::to_string(dim) + "x";
    }
    return text + "f32>";
  };
  std::string in = type({1, inH, inW, c});
  std::string filter = type({kernel, kernel, c, f});
  std::string out = type({1, outH, outW, f});
  std::string attrs = "{dilations = dense<" + std::to_string(dilation) +
                      "> : tensor<2xi64>, strides = dense<" +
                      std::to_string(stride) + "> : tensor<2xi64>}";
  std::string source =
      "func.func @conv(%in: " + in + ", %f: " + filter + ") -> " + out +
      " {\n  %zero = arith.constant 0.0 : f32\n  %e = tensor.empty() : " + out +
      "\n  %z = linalg.fill ins(%zero : f32) outs(%e : " + out + ") -> " + out +
      "\n  %r = linalg.conv_2d_nhwc_hwcf " + attrs + " ins(%in, %f : " + in +
      ", " + filter + ") outs(%z : " + out + ") -> " + out +
      "\n  return %r : " + out + "\n}\n";
  LLVMCPUTargetOptions options;
  options.features = features;
  Loaded loaded;
  std::string errors;
  REQUIRE_MESSAGE(compile(source, loaded.compiled, errors, options), errors);
  REQUIRE(strata_hal_executable_load_memory(loaded.compiled.library.data(),
                                            loaded.compiled.library.size(),
                                            "conv", strata_allocator_system(),
                                            &loaded.executable) == nullptr);
  std::vector<float> input = ramp(size_t(inH) * inW * c, 0.125f, -1.5f);
  std::vector<float> weights =
      ramp(size_t(kernel) * kernel * c * f, -0.0625f, 0.75f);
  std::vector<float> result(size_t(outH) * outW * f, NAN);
  dispatch(loaded, 0, {binding(input), binding(weights), binding(result)},
           /*threads=*/2);
  int wrong = 0;
  for (int y = 0; y < outH; ++y) {
    for (int x = 0; x < outW; ++x) {
      for (int o = 0; o < f; ++o) {
        double sum = 0, magnitude = 0;
        for (int ky = 0; ky < kernel; ++ky) {
          for (int kx = 0; kx < kernel; ++kx) {
            for (int ch = 0; ch < c; ++ch) {
              int iy = y * stride + ky * dilation,
                  ix = x * stride + kx * dilation;
              double term =
                  double(input[(size_t(iy) * inW + ix) * c + ch]) *
                  weights[((size_t(ky) * kernel + kx) * c + ch) * f + o];
              sum += term;
              magnitude += std::fabs(term);
            }
          }
        }
        double got = result[(size_t(y) * outW + x) * f + o];
        if (!closeEnough(got, sum, magnitude) && wrong++ < 5) {
          MESSAGE("out[" << y << "][" << x << "][" << o << "] = " << got
                         << ", expected " << sum);
        }
      }
    }
  }
  CHECK(wrong == 0);
}

// Whether this machine can run the x86 microkernels (AVX2 + FMA); says so
// when it cannot.
bool hostRunsMicrokernels() {
  llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
  if (!hostFeatures.lookup("avx2") || !hostFeatures.lookup("fma")) {
    MESSAGE("host has no AVX2 + FMA: no microkernel to test");
    return false;
  }
  return true;
}

} // namespace

TEST_SUITE("compiler.llvmcpu.ukernel") {

  TEST_CASE("matmuls through the microkernel match a reference at edge sizes "
            "on every x86 variant") {
    if (!hostRunsMicrokernels()) {
      return;
    }
    // "" is the host (AVX-512 here when it has it); -avx512f forces AVX2;
    // -avx2 leaves SSE2 (the baseline x86-64 kernel, no FMA).
    for (const char *features : {"", "-avx512f", "-avx2"}) {
      // m x k x n: a prime number of rows (partial last workgroup), one
      // row, a depth of several 256-blocks with a remainder, thin columns;
      // then shallow depths, where A is read in place instead of packed:
      // depth 1, primes, exactly 64, 16 columns (one AVX-512 vector);
      // deeper A is read in place too when its rows spread over the
      // cache's sets (spreadRows, SgemmDriver.h:
      // 300, 128, 700 and 512 floats apart; two depth blocks, 300 = 256 +
      // 44, take each block's columns of A) and packed when they do not
      // (2048 floats, 8 KiB apart: one set).
      for (auto [m, k, n] :
           std::vector<std::tuple<int, int, int>>{{257, 300, 263},
                                                  {1, 2000, 300},
                                                  {33, 1000, 65},
                                                  {70, 600, 90},
                                                  {1031, 13, 47},
                                                  {4099, 1, 70},
                                                  {600, 37, 16},
                                                  {257, 64, 263},
                                                  {600, 300, 16},
                                                  {333, 128, 24},
                                                  {1000, 700, 32},
                                                  {100, 512, 40},
                                                  {50, 2048, 33}}) {
        CAPTURE(features);
        checkMatmul(m, k, n, features);
      }
    }
  }

  TEST_CASE("attention's per-head products read K^T and V in place of "
            "their copies at edge sizes on every x86 variant") {
    if (!hostRunsMicrokernels()) {
      return;
    }
    for (const char *features : {"", "-avx512f", "-avx2"}) {
      CAPTURE(features);
      for (bool transposed : {true, false}) {
        // A depth of 131 (16 blocks of 8 and 3 more) and 67 columns (two
        // panels of 32 or four of 16, and 3 columns: a partial panel, its
        // columns past n zeros); the transformer's 128 x 64 by 64 x 128;
        // one row (never B in place: transposed B is always packed) over
        // two depth blocks (300 = 256 + 44).
        checkHeads(3, 37, 131, 67, transposed, features);
        checkHeads(2, 128, 64, 128, transposed, features);
        checkHeads(2, 1, 300, 97, transposed, features);
      }
    }
  }

  TEST_CASE("convolutions through the microkernel (windows read in place "
            "or packed) match a reference at edge sizes on every x86 "
            "variant") {
    // Output rows that fill at least 90% of their register tiles are read
    // in place (convPixelStep, SgemmDriver.h): row panels end where output
    // rows do (55 = 3 x 14 + 13, 9 x 6 + 1; 40 rows: several per
    // workgroup), runs of a window split across
    // depth blocks (288 = 256 + 32), a 7x7 stride-2 stem with 3
    // channels, dilated taps (runs of one pixel's channels).
    if (!hostRunsMicrokernels()) {
      return;
    }
    for (const char *features : {"", "-avx512f", "-avx2"}) {
      CAPTURE(features);
      checkConv(40, 55, 5, 33, 3, 1, 1, features);
      checkConv(6, 28, 32, 48, 3, 2, 1, features);
      checkConv(4, 56, 3, 64, 7, 2, 1, features);
      checkConv(5, 42, 16, 48, 3, 1, 2, features);
      checkConv(3, 12, 8, 24, 3, 1, 1, features);
      // 1x1 convolutions over dense pixels of more than 64 channels: A
      // read in place (rowStrideOf), 128 and 300 channels (two depth
      // blocks).
      checkConv(6, 27, 128, 16, 1, 1, 1, features);
      checkConv(4, 13, 300, 24, 1, 1, 1, features);
      // Windows of more than 64 channels are packed (the packed-A kernels
      // at their compile-time row stride): 13 x 13 = 169 pixels (12 panels
      // of 14 and one row), a depth of 3 x 3 x 97 = 873 (three 256-blocks
      // and a remainder), 67 filters (two panels and 3 columns).
      checkConv(13, 13, 97, 67, 3, 1, 1, features);
    }
  }

  TEST_CASE("results of 32 MiB or more are stored streamed, every element "
            "exact") {
    // kStreamedResultBytes (UkernelCommon.cpp): these results are written
    // with non-temporal stores where a vector is aligned and plain stores
    // elsewhere (rows of 4099 floats, pixels of 136 channels start at
    // every alignment), by both kernels on every variant.
    if (!hostRunsMicrokernels()) {
      return;
    }
    for (std::string features : {"", "-avx512f", "-avx2"}) {
      CAPTURE(features);
      LLVMCPUTargetOptions options;
      options.features = features;
      checkMatmul(2053, 8, 4099, features.c_str());
      {
        // A 3x3 depthwise convolution, 256 x 256 x 136 out (35.7 MB).
        const int h = 256, w = 256, c = 136;
        const std::string in = "tensor<1x258x258x136xf32>";
        const std::string filter = "tensor<3x3x136xf32>";
        const std::string out = "tensor<1x256x256x136xf32>";
        Loaded loaded;
        std::string errors;
        REQUIRE_MESSAGE(
            compile(
                "func.func @dw(%in: " + in + ", %f: " + filter + ") -> " + out +
                    " {\n"
                    "  %zero = arith.constant 0.0 : f32\n"
                    "  %e = tensor.empty() : " +
                    out + "\n  %z = linalg.fill ins(%zero : f32) outs(%e : " +
                    out + ") -> " + out +
                    "\n  %r = linalg.depthwise_conv_2d_nhwc_hwc "
                    "{dilations = dense<1> : tensor<2xi64>, strides = "
                    "dense<1> : tensor<2xi64>} ins(%in, %f : " +
                    in + ", " + filter + ") outs(%z : " + out + ") -> " + out +
                    "\n  return %r : " + out + "\n}\n",
                loaded.compiled, errors, options),
            errors);
        REQUIRE(strata_hal_executable_load_memory(
                    loaded.compiled.library.data(),
                    loaded.compiled.library.size(), "streamed",
                    strata_allocator_system(), &loaded.executable) == nullptr);
        std::vector<float> input =
            ramp(size_t(h + 2) * (w + 2) * c, 0.125f, -2.0f);
        std::vector<float> weights = ramp(size_t(9) * c, -0.25f, 1.0f);
        // The output 64-byte aligned, as the runtime allocates it: half
        // the pixels (136 floats apart) start on a vector boundary.
        std::vector<float> storage(size_t(h) * w * c + 16, NAN);
        float *result = storage.data();
        while (reinterpret_cast<uintptr_t>(result) % 64) {
          ++result;
        }
        dispatch(loaded, 0,
                 {binding(input),
                  binding(weights),
                  {result, size_t(h) * w * c * sizeof(float)}},
                 /*threads=*/2);
        int wrong = 0;
        for (int y = 0; y < h; ++y) {
          for (int x = 0; x < w; ++x) {
            for (int ch = 0; ch < c; ++ch) {
              double sum = 0;
              for (int ky = 0; ky < 3; ++ky) {
                for (int kx = 0; kx < 3; ++kx) {
                  sum +=
                      double(
                          input[(size_t(y + ky) * (w + 2) + x + kx) * c + ch]) *
                      weights[(ky * 3 + kx) * c + ch];
                }
              }
              double got = result[(size_t(y) * w + x) * c + ch];
              if (!(std::fabs(got - sum) <= 1e-5 * std::fabs(sum) + 1e-5) &&
                  wrong++ < 5) {
                MESSAGE("out[" << y << "][" << x << "][" << ch << "] = " << got
                               << ", expected " << sum);
              }
            }
          }
        }
        CHECK(wrong == 0);
      }
    }
  }

  TEST_CASE("every microkernel variant has its row of the tuning table") {
    // ukernel/IsaTuning.def: a variant without a row would be refused as
    // unknown; the row's streaming threshold is the default one.
    for (const char *variant :
         {"avx512amx", "avx512vnni", "avx512", "avx2", "sse", "neon"}) {
      CAPTURE(variant);
      CHECK(mlir::strata::llvmcpu::ukernelStreamedResultBytes(variant) ==
            (int64_t(32) << 20));
      CHECK(mlir::strata::llvmcpu::ukernelPanelColumns(variant) > 0);
    }
    CHECK(mlir::strata::llvmcpu::ukernelStreamedResultBytes("none") == 0);
  }

  TEST_CASE("aarch64 links the NEON matmul microkernel") {
    LLVMCPUTargetOptions options;
    options.triple = "aarch64-linux-gnu";
    CompiledExecutable compiled;
    std::string errors;
    REQUIRE_MESSAGE(
        compile(matmulSource(256, 256, 256), compiled, errors, options),
        errors);
    CHECK(compiled.format == "embedded-elf-aarch64");
    int undefined = 0;
    CHECK(exportedSymbols(compiled, undefined) ==
          std::vector<std::string>{"strata_hal_executable_library_query"});
    CHECK(undefined == 0);
    CHECK(hasSymbol(compiled, "strata_ukernel_sgemm_f32"));
    // Without NEON (+neon off), no microkernel: the vectorized loops.
    options.features = "-neon";
    REQUIRE_MESSAGE(
        compile(matmulSource(256, 256, 256), compiled, errors, options),
        errors);
    CHECK_FALSE(hasSymbol(compiled, "strata_ukernel_sgemm_f32"));
  }
}
