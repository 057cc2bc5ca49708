// LibraryTest.cpp - the llvm-cpu kernel library as the runtime sees it:
// exported symbols, the aarch64 ELF, the local-sync and local-task devices,
// binding checks, and the errors for input the target does not support.
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
#include "strata/hal/executable.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvmcpu_test;

TEST_SUITE("compiler.llvmcpu.library") {

  TEST_CASE("exports only the query function, leaves nothing undefined, and "
            "lets exports take any name") {
    CompiledExecutable compiled;
    std::string errors;
    REQUIRE_MESSAGE(compile(R"mlir(
module {
  func.func @memcpy(%a: tensor<4096xi8>) -> tensor<4096xi8> {
    return %a : tensor<4096xi8>
  }
  func.func @strata_hal_executable_library_query(%a: tensor<4xi8>) -> tensor<4xi8> {
    return %a : tensor<4xi8>
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
        MESSAGE("undefined symbol: " << name->str());
      } else if (*flags & llvm::object::SymbolRef::SF_Global) {
        defined.push_back(name->str());
      }
    }
    CHECK(undefined == 0);
    CHECK(defined ==
          std::vector<std::string>{"strata_hal_executable_library_query"});
    // The copy of an argument to the result runs (memcpy-like code without
    // libc).
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
  func.func @matmul(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>)
                       outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    return %r : tensor<64x64xf32>
  }
})mlir",
                            compiled, errors, options),
                    errors);
    CHECK(compiled.format == "embedded-elf-aarch64");
    CHECK(compiled.exports.size() == 2);
    REQUIRE(compiled.library.size() > 64);
    CHECK(std::memcmp(compiled.library.data(),
                      "\x7f"
                      "ELF",
                      4) == 0);
    uint16_t machine = static_cast<uint16_t>(compiled.library[18] |
                                             (compiled.library[19] << 8));
    CHECK(machine == 183); // EM_AARCH64
  }

  TEST_CASE("runs on the local-sync and local-task devices, local memory "
            "included") {
    Loaded loaded;
    REQUIRE(compileAndLoad(R"mlir(
module @device {
  func.func @layer(%x: tensor<128x32xf32>, %w: tensor<32x64xf32>) -> tensor<128x64xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
    %m = linalg.matmul ins(%x, %w : tensor<128x32xf32>, tensor<32x64xf32>)
                       outs(%f : tensor<128x64xf32>) -> tensor<128x64xf32>
    return %m : tensor<128x64xf32>
  }
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
    CHECK(workgroupTotal(loaded.compiled.exports[0]) > 1);
    struct Config {
      const char *name;
      uint32_t workers;
    };
    for (Config config : {Config{"local-sync", 0}, Config{"local-task", 1},
                          Config{"local-task", 3}}) {
      CAPTURE(config.name);
      CAPTURE(config.workers);
      auto allocate = [](size_t bytes) {
        strata_hal_buffer_t *buffer = nullptr;
        REQUIRE(consume(strata_hal_buffer_allocate(strata_allocator_system(),
                                                   bytes, &buffer)) == "OK");
        return buffer;
      };
      strata_hal_buffer_t *x = allocate(128 * 32 * 4);
      strata_hal_buffer_t *w = allocate(32 * 64 * 4);
      strata_hal_buffer_t *y = allocate(128 * 64 * 4);
      std::vector<float> xs = ramp(128 * 32, 0.125f, -6.0f);
      std::vector<float> ws = ramp(32 * 64, -0.0625f, 3.0f);
      std::memcpy(mapBuffer<float>(x), xs.data(), xs.size() * 4);
      std::memcpy(mapBuffer<float>(w), ws.data(), ws.size() * 4);
      REQUIRE(runOnDevice(loaded, 0, config.name, config.workers, {x, w, y}) ==
              "OK");
      const float *ys = mapBuffer<float>(y);
      for (int i = 0; i < 128; ++i) {
        for (int j = 0; j < 64; ++j) {
          double sum = 0;
          for (int k = 0; k < 32; ++k) {
            sum += static_cast<double>(xs[i * 32 + k]) * ws[k * 64 + j];
          }
          REQUIRE(ys[i * 64 + j] == doctest::Approx(sum).epsilon(1e-5));
        }
      }

      strata_hal_buffer_t *a = allocate(256 * 32 * 4);
      strata_hal_buffer_t *b = allocate(32 * 256 * 4);
      strata_hal_buffer_t *total = allocate(4);
      std::vector<float> as = ramp(256 * 32, 0.01f, -0.5f);
      std::vector<float> bs = ramp(32 * 256, 0.02f, -1.0f);
      std::memcpy(mapBuffer<float>(a), as.data(), as.size() * 4);
      std::memcpy(mapBuffer<float>(b), bs.data(), bs.size() * 4);
      REQUIRE(runOnDevice(loaded, 1, config.name, config.workers,
                          {a, b, total}) == "OK");
      double expected = 0;
      for (int i = 0; i < 256; ++i) {
        for (int j = 0; j < 256; ++j) {
          for (int k = 0; k < 32; ++k) {
            expected += static_cast<double>(as[i * 32 + k]) * bs[k * 256 + j];
          }
        }
      }
      CHECK(*mapBuffer<float>(total) ==
            doctest::Approx(expected).epsilon(1e-3));

      // A result binding one element short is refused by the device's
      // dispatch check or failed by the kernel: never written out of bounds.
      strata_hal_buffer_t *small = allocate(128 * 64 * 4 - 4);
      std::string refused =
          runOnDevice(loaded, 0, config.name, config.workers, {x, w, small});
      CHECK_MESSAGE(refused.find("binding 2 holds 32764 bytes, fewer than "
                                 "the 32768 that the dispatch's shapes "
                                 "need") != std::string::npos,
                    refused);
      for (strata_hal_buffer_t *buffer : {x, w, y, a, b, total, small}) {
        strata_hal_buffer_release(buffer);
      }
    }
  }

  TEST_CASE("reports an op without a lowering at its location") {
    CompiledExecutable compiled;
    std::string errors;
    CHECK_FALSE(compile(R"mlir(
module {
  func.func @rem(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    %r = linalg.generic {
        indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
        iterator_types = ["parallel"]}
        ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %m = arith.remf %x, %y : f32
      linalg.yield %m : f32
    } -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
})mlir",
                        compiled, errors));
    CHECK(errors.find("test.mlir\":10:12") != std::string::npos);
    CHECK(errors.find("arith.remf") != std::string::npos);
  }

  TEST_CASE("reports an unsupported triple and an unknown CPU") {
    const char *source = R"mlir(
module {
  func.func @id(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
})mlir";
    CompiledExecutable compiled;
    std::string errors;
    LLVMCPUTargetOptions options;
    options.triple = "riscv64-linux-gnu";
    CHECK_FALSE(compile(source, compiled, errors, options));
    CHECK(errors.find("is not supported") != std::string::npos);
    errors.clear();
    options.triple.clear();
    options.cpu = "no-such-cpu";
    CHECK_FALSE(compile(source, compiled, errors, options));
    CHECK(errors.find("'no-such-cpu' is not a CPU") != std::string::npos);
    errors.clear();
    options.cpu = "x86-64-v2";
    options.triple = "x86_64-unknown-linux-gnu";
    CHECK(compile(source, compiled, errors, options));
  }

  TEST_CASE("reports dynamic dimensions without size arguments at the export") {
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
    CHECK(errors.find("2 dynamic dimensions but only 1 arguments") !=
          std::string::npos);
  }

  TEST_CASE("compiles an export with dynamic dimensions and size arguments") {
    CompiledExecutable compiled;
    std::string errors;
    CHECK(compile(R"mlir(
module {
  func.func @twice(%a: tensor<?x3xf32>, %n: index, %m: index) -> tensor<?x3xf32> {
    %e = tensor.empty(%m) : tensor<?x3xf32>
    %r = linalg.add ins(%a, %a : tensor<?x3xf32>, tensor<?x3xf32>)
                    outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
    return %r : tensor<?x3xf32>
  }
})mlir",
                  compiled, errors));
    CHECK_MESSAGE(errors.empty(), errors);
    REQUIRE(compiled.exports.size() == 1);
    CHECK(compiled.exports[0].bindingCount == 2);
    Loaded loaded;
    loaded.compiled = compiled;
    REQUIRE(strata_hal_executable_load_memory(
                compiled.library.data(), compiled.library.size(), "twice",
                strata_allocator_system(), &loaded.executable) == nullptr);
    // 5 rows: the sizes are index push constants, two words each.
    std::vector<float> in = ramp(15, 0.5f, 1.0f), out(15, 0.0f);
    std::vector<uint32_t> sizes = {5, 0, 5, 0};
    uint32_t grid = compiled.exports[0].workgroupCount[0];
    for (uint32_t x = 0; x < grid; ++x) {
      CHECK(dispatchWorkgroup(loaded, 0, {binding(in), binding(out)}, sizes,
                              x) == 0);
    }
    for (size_t i = 0; i < in.size(); ++i) {
      CHECK(out[i] == 2 * in[i]);
    }
    // A binding shorter than its sizes say, and sizes whose byte count
    // overflows, are refused before the kernel runs.
    // Each failure says what failed in the dispatch detail.
    std::pair<void *, size_t> shortOut = {out.data(), 14 * sizeof(float)};
    strata_hal_executable_dispatch_detail_v1_t detail = {};
    CHECK(dispatchWorkgroup(loaded, 0, {binding(in), shortOut}, sizes, 0,
                            &detail) ==
          STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE);
    CHECK(detail.kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_BINDING);
    CHECK(detail.index == 1);
    CHECK(detail.bound == 15 * 4);
    std::pair<void *, size_t> shortIn = {in.data(), 3 * sizeof(float)};
    detail = {};
    CHECK(dispatchWorkgroup(loaded, 0, {shortIn, binding(out)}, sizes, 0,
                            &detail) ==
          STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE);
    CHECK(detail.kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_BINDING);
    CHECK(detail.index == 0);
    CHECK(detail.bound == 15 * 4);
    std::vector<uint32_t> huge = {5, 0, 0, 0x40000000};
    detail = {};
    CHECK(dispatchWorkgroup(loaded, 0, {binding(in), binding(out)}, huge, 0,
                            &detail) ==
          STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE);
    CHECK(detail.kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE);
    CHECK(detail.bound == -1);
  }

  TEST_CASE("a gather out of range returns code 2 and writes the detail") {
    CompiledExecutable compiled;
    std::string errors;
    CHECK(compile(R"mlir(
module {
  func.func @gather(%t: tensor<8xf32>, %i: tensor<4xi32>) -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d) -> (d)>, affine_map<(d) -> (d)>], iterator_types = ["parallel"]}
        ins(%i : tensor<4xi32>) outs(%e : tensor<4xf32>) {
      ^bb0(%x: i32, %o: f32):
        %k = arith.index_cast %x : i32 to index
        %v = tensor.extract %t[%k] : tensor<8xf32>
        linalg.yield %v : f32
    } -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
})mlir",
                  compiled, errors));
    CHECK_MESSAGE(errors.empty(), errors);
    REQUIRE(compiled.exports.size() == 1);
    REQUIRE(compiled.exports[0].workgroupCount[0] == 1);
    Loaded loaded;
    loaded.compiled = compiled;
    REQUIRE(strata_hal_executable_load_memory(
                compiled.library.data(), compiled.library.size(), "gather",
                strata_allocator_system(), &loaded.executable) == nullptr);
    std::vector<float> table = ramp(8, 1.0f, 0.0f), out(4, -1.0f);
    std::vector<int32_t> indices = {7, 0, 3, 1};
    std::pair<void *, size_t> index = {indices.data(), 16};
    strata_hal_executable_dispatch_detail_v1_t detail = {};
    CHECK(dispatchWorkgroup(loaded, 0, {binding(table), index, binding(out)},
                            {}, 0, &detail) == 0);
    CHECK(detail.kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_NONE);
    CHECK(out[0] == table[7]);
    // Index 9 of 8, then one in range: the code, the index and the bound,
    // and a zero read in its place.
    indices = {1, 9, 2, 3};
    CHECK(dispatchWorkgroup(loaded, 0, {binding(table), index, binding(out)},
                            {}, 0, &detail) ==
          STRATA_HAL_EXECUTABLE_DISPATCH_INDEX_OUT_OF_RANGE);
    CHECK(detail.kind == STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_INDEX);
    CHECK(detail.index == 9);
    CHECK(detail.bound == 8);
    CHECK(out[1] == 0.0f);
    indices = {-5, 0, 0, 0};
    CHECK(dispatchWorkgroup(loaded, 0, {binding(table), index, binding(out)},
                            {}, 0, &detail) ==
          STRATA_HAL_EXECUTABLE_DISPATCH_INDEX_OUT_OF_RANGE);
    CHECK(detail.index == -5);
    CHECK(detail.bound == 8);
  }

  TEST_CASE("reports f8 and library-only math at their locations") {
    CompiledExecutable compiled;
    std::string errors;
    CHECK_FALSE(compile(R"mlir(
module {
  func.func @fp8(%a: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
    return %a : tensor<4xf8E4M3FN>
  }
})mlir",
                        compiled, errors));
    CHECK(errors.find("test.mlir\":3:3") != std::string::npos);
    CHECK(errors.find("unsupported element type") != std::string::npos);

    errors.clear();
    CHECK_FALSE(compile(R"mlir(
module {
  func.func @remf(%a: tensor<4xf32>) -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    %r = linalg.generic {
        indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
        iterator_types = ["parallel"]}
        ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %o: f32):
      %y = arith.remf %in, %in : f32
      linalg.yield %y : f32
    } -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
})mlir",
                        compiled, errors));
    CHECK(errors.find("test.mlir\":10:12") != std::string::npos);
    CHECK(errors.find("arith.remf") != std::string::npos);
  }

} // TEST_SUITE
