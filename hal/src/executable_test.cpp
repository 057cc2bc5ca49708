// executable_test.cpp - hal.executable: loading kernel libraries from a path,
// from memory and from the static registry, running the sample kernels
// through the ABI, and every rejection of a broken library.
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "executable_impl.h"
#include "sample_kernels.h"

namespace {

using namespace strata::hal;

const char* const kSamplePath = STRATA_TEST_SAMPLE_KERNELS_PATH;

std::string badPath(const char* variant) {
  return std::string(STRATA_TEST_BAD_EXECUTABLES_DIR) + "/bad_" + variant +
         ".so";
}

// Frees status and returns "CODE: message" ("OK" for NULL).
std::string consume(strata_status_t status) {
  if (!status) {
    return "OK";
  }
  std::string text = strata_status_code_name(strata_status_code(status));
  text += ": ";
  text += strata_status_message(status);
  strata_status_free(status);
  return text;
}

// Owns one executable reference.
struct Executable {
  strata_hal_executable_t* ptr = nullptr;
  Executable() = default;
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;
  ~Executable() { strata_hal_executable_release(ptr); }
  strata_hal_executable_t** out() { return &ptr; }
};

std::vector<uint8_t> readFile(const char* path) {
  std::vector<uint8_t> bytes;
  FILE* file = fopen(path, "rb");
  REQUIRE(file != nullptr);
  uint8_t chunk[4096];
  size_t got;
  while ((got = fread(chunk, 1, sizeof(chunk), file)) > 0) {
    bytes.insert(bytes.end(), chunk, chunk + got);
  }
  fclose(file);
  return bytes;
}

strata_status_t loadFile(const std::string& path, Executable& executable) {
  return strata_hal_executable_load_file(
      path.c_str(), strata_allocator_system(), executable.out());
}

strata_status_t loadMemory(const std::string& path, const char* name,
                           Executable& executable) {
  std::vector<uint8_t> bytes = readFile(path.c_str());
  return strata_hal_executable_load_memory(bytes.data(), bytes.size(), name,
                                           strata_allocator_system(),
                                           executable.out());
}

// Loads the bad library variant from its path and returns the status text.
std::string loadBad(const char* variant) {
  Executable executable;
  std::string text = consume(loadFile(badPath(variant), executable));
  if (text == "OK") {
    CHECK(executable.ptr != nullptr);
  } else {
    CHECK(executable.ptr == nullptr);
  }
  return text;
}

struct Binding {
  void* ptr;
  size_t length;
};

// Runs every workgroup of a dispatch of export ordinal the way a device
// would, after validateDispatch; returns the first non-zero kernel result.
int dispatch(const strata_hal_executable_t* executable, uint32_t ordinal,
             const std::vector<Binding>& bindings,
             const std::vector<uint32_t>& constants,
             const uint32_t workgroup_count[3]) {
  const strata_hal_executable_dispatch_attrs_v0_t* attrs =
      strata_hal_executable_export_attrs(executable, ordinal);
  uint32_t workgroup_size[3] = {1, 1, 1};
  if (attrs && attrs->workgroup_size_x) {
    workgroup_size[0] = attrs->workgroup_size_x;
    workgroup_size[1] = attrs->workgroup_size_y;
    workgroup_size[2] = attrs->workgroup_size_z;
  }
  std::string validation = consume(validateDispatch(
      executable, ordinal, static_cast<uint32_t>(bindings.size()),
      static_cast<uint32_t>(constants.size()), workgroup_size));
  REQUIRE(validation == "OK");

  std::vector<void*> ptrs;
  std::vector<size_t> lengths;
  for (const Binding& binding : bindings) {
    ptrs.push_back(binding.ptr);
    lengths.push_back(binding.length);
  }
  strata_hal_executable_dispatch_state_v0_t state = {};
  state.workgroup_size_x = workgroup_size[0];
  state.workgroup_size_y = workgroup_size[1];
  state.workgroup_size_z = static_cast<uint16_t>(workgroup_size[2]);
  state.constant_count = static_cast<uint16_t>(constants.size());
  state.workgroup_count_x = workgroup_count[0];
  state.workgroup_count_y = workgroup_count[1];
  state.workgroup_count_z = static_cast<uint16_t>(workgroup_count[2]);
  state.binding_count = static_cast<uint16_t>(bindings.size());
  state.constants = constants.data();
  state.binding_ptrs = ptrs.data();
  state.binding_lengths = lengths.data();

  strata_hal_executable_dispatch_v0_t function =
      exportFunction(executable, ordinal);
  strata_hal_executable_workgroup_state_v0_t workgroup = {};
  for (uint32_t z = 0; z < workgroup_count[2]; ++z) {
    for (uint32_t y = 0; y < workgroup_count[1]; ++y) {
      for (uint32_t x = 0; x < workgroup_count[0]; ++x) {
        workgroup.workgroup_id_x = x;
        workgroup.workgroup_id_y = y;
        workgroup.workgroup_id_z = static_cast<uint16_t>(z);
        int result = function(&executable->environment, &state, &workgroup);
        if (result) {
          return result;
        }
      }
    }
  }
  return 0;
}

uint32_t lookup(const strata_hal_executable_t* executable, const char* name) {
  uint32_t ordinal = UINT32_MAX;
  REQUIRE(consume(strata_hal_executable_lookup_export(executable, name,
                                                      &ordinal)) == "OK");
  return ordinal;
}

uint32_t ceilDiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// Runs add_f32 and mul_f32 over n elements and checks every element,
// including that nothing is written past n.
void checkElementwise(const strata_hal_executable_t* executable, uint32_t n) {
  std::vector<float> a(n), b(n), out(n + 1, -1.0f);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = 0.5f * static_cast<float>(i) - 3.0f;
    b[i] = 2.0f + static_cast<float>(i % 7);
  }
  const uint32_t count[3] = {ceilDiv(n, 64), 1, 1};
  for (const char* name : {"add_f32", "mul_f32"}) {
    CAPTURE(name);
    CAPTURE(n);
    std::fill(out.begin(), out.end(), -1.0f);
    bool add = strcmp(name, "add_f32") == 0;
    REQUIRE(dispatch(executable, lookup(executable, name),
                     {{a.data(), n * sizeof(float)},
                      {b.data(), n * sizeof(float)},
                      {out.data(), n * sizeof(float)}},
                     {n}, count) == 0);
    for (uint32_t i = 0; i < n; ++i) {
      CAPTURE(i);
      CHECK(out[i] == (add ? a[i] + b[i] : a[i] * b[i]));
    }
    CHECK(out[n] == -1.0f);
  }
}

void checkMatmul(const strata_hal_executable_t* executable, uint32_t m,
                 uint32_t n, uint32_t k) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  std::vector<float> lhs(size_t{m} * k), rhs(size_t{k} * n);
  std::vector<float> out(size_t{m} * n + 1, -1.0f);
  for (size_t i = 0; i < lhs.size(); ++i) {
    lhs[i] = static_cast<float>(static_cast<int>(i % 11) - 5) * 0.25f;
  }
  for (size_t i = 0; i < rhs.size(); ++i) {
    rhs[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
  }
  const uint32_t count[3] = {ceilDiv(m, 8), ceilDiv(n, 8), 1};
  REQUIRE(dispatch(executable, lookup(executable, "matmul_f32"),
                   {{lhs.data(), lhs.size() * sizeof(float)},
                    {rhs.data(), rhs.size() * sizeof(float)},
                    {out.data(), size_t{m} * n * sizeof(float)}},
                   {m, n, k}, count) == 0);
  for (uint32_t row = 0; row < m; ++row) {
    for (uint32_t col = 0; col < n; ++col) {
      float expected = 0.0f;
      for (uint32_t i = 0; i < k; ++i) {
        expected += lhs[size_t{row} * k + i] * rhs[size_t{i} * n + col];
      }
      CAPTURE(row);
      CAPTURE(col);
      CHECK(out[size_t{row} * n + col] == expected);
    }
  }
  CHECK(out[size_t{m} * n] == -1.0f);
}

// Entries of a directory, or -1 if it cannot be read.
long countEntries(const char* path) {
  DIR* dir = opendir(path);
  if (!dir) {
    return -1;
  }
  long count = 0;
  while (readdir(dir)) {
    ++count;
  }
  closedir(dir);
  return count;
}

// The path the dynamic loader recorded for a loaded executable.
std::string loadedPath(const strata_hal_executable_t* executable) {
  struct link_map* map = nullptr;
  REQUIRE(executable->dl_handle != nullptr);
  REQUIRE(dlinfo(executable->dl_handle, RTLD_DI_LINKMAP, &map) == 0);
  return map->l_name ? map->l_name : "";
}

// Static query functions for registry tests of the shared validation.
const strata_hal_executable_library_header_t kFutureHeader = {
    7, STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_NONE, "future", 0};
const strata_hal_executable_library_v0_t kFutureLibrary = {
    &kFutureHeader,
    {0, 0, nullptr},
    {0, 0, nullptr, nullptr, nullptr, nullptr}};
const strata_hal_executable_library_header_t* const* futureQuery(
    uint32_t, const strata_hal_executable_environment_v0_t*) {
  return &kFutureLibrary.header;
}

std::atomic<int> g_seen_worker_count{-1};
const strata_hal_executable_library_header_t* const* recordingQuery(
    uint32_t max_version,
    const strata_hal_executable_environment_v0_t* environment) {
  g_seen_worker_count = static_cast<int>(environment->worker_count);
  CHECK(environment->cpu_features == hostCpuFeatures());
  CHECK(environment->import_functions == nullptr);
  return sample_kernels_library_query(max_version, environment);
}

// Counts live allocations of the system allocator; can be told to fail.
struct CountingAllocator {
  int live = 0;
  bool fail = false;
  static void* alloc(void* self, size_t size, size_t alignment) {
    auto* counter = static_cast<CountingAllocator*>(self);
    if (counter->fail) {
      return nullptr;
    }
    void* ptr =
        strata_allocator_alloc(strata_allocator_system(), size, alignment);
    counter->live += ptr != nullptr;
    return ptr;
  }
  static void free(void* self, void* ptr) {
    static_cast<CountingAllocator*>(self)->live -= ptr != nullptr;
    strata_allocator_free(strata_allocator_system(), ptr);
  }
  strata_allocator_t allocator() { return {this, alloc, free}; }
};

}  // namespace

TEST_SUITE("hal.executable") {

TEST_CASE("loads the sample kernels from a path with names, tags and attrs") {
  Executable executable;
  REQUIRE(consume(loadFile(kSamplePath, executable)) == "OK");
  const strata_hal_executable_t* e = executable.ptr;
  CHECK(strata_vm_ref_count(&e->header) == 1);
  CHECK(std::string(strata_hal_executable_name(e)) == kSamplePath);
  CHECK(std::string(strata_hal_executable_library_name(e)) ==
        "sample_kernels");
  REQUIRE(strata_hal_executable_export_count(e) == 4);
  const char* names[] = {"add_f32", "mul_f32", "matmul_f32", "fail_always"};
  for (uint32_t i = 0; i < 4; ++i) {
    CHECK(std::string(strata_hal_executable_export_name(e, i)) == names[i]);
    CHECK(lookup(e, names[i]) == i);
  }
  CHECK(strata_hal_executable_export_name(e, 4) == nullptr);
  CHECK(std::string(strata_hal_executable_export_tag(e, 2)) ==
        "sample:matmul:tile8x8");
  CHECK(strata_hal_executable_export_tag(e, 4) == nullptr);
  const strata_hal_executable_dispatch_attrs_v0_t* attrs =
      strata_hal_executable_export_attrs(e, 2);
  REQUIRE(attrs != nullptr);
  CHECK(attrs->binding_count == 3);
  CHECK(attrs->constant_count == 3);
  CHECK(attrs->workgroup_size_x == 8);
  CHECK(attrs->workgroup_size_y == 8);
  CHECK(strata_hal_executable_export_attrs(e, 0)->constant_count == 1);
  CHECK(strata_hal_executable_export_attrs(e, 4) == nullptr);
  CHECK(loadedPath(e) == kSamplePath);
  // Only the query function is visible; the kernels are reached through it.
  CHECK(dlsym(e->dl_handle, STRATA_HAL_EXECUTABLE_LIBRARY_QUERY_SYMBOL) !=
        nullptr);
  CHECK(dlsym(e->dl_handle, "add_f32") == nullptr);
}

TEST_CASE("is a hal.executable ref object") {
  Executable executable;
  REQUIRE(consume(loadFile(kSamplePath, executable)) == "OK");
  const strata_vm_ref_type_t* type = strata_hal_executable_type();
  CHECK(std::string(type->name) == "hal.executable");
  strata_vm_ref_object_t* ref = strata_hal_executable_as_ref(executable.ptr);
  CHECK(strata_vm_ref_isa(ref, type));
  CHECK(strata_hal_executable_from_ref(ref) == executable.ptr);
  CHECK(strata_hal_executable_from_ref(nullptr) == nullptr);
  strata_hal_executable_retain(executable.ptr);
  CHECK(strata_vm_ref_count(ref) == 2);
  strata_hal_executable_release(executable.ptr);
  CHECK(strata_vm_ref_count(ref) == 1);
}

TEST_CASE("a missing path is NOT_FOUND and names the path") {
  Executable executable;
  std::string text =
      consume(loadFile("/nonexistent/strata/kernels.so", executable));
  CHECK(text.rfind("NOT_FOUND: ", 0) == 0);
  CHECK(text.find("/nonexistent/strata/kernels.so") != std::string::npos);
  CHECK(executable.ptr == nullptr);
}

TEST_CASE("loads from memory through /proc/self/fd and creates no file") {
  std::vector<uint8_t> bytes = readFile(kSamplePath);
  long tmp_before = countEntries("/tmp");
  long cwd_before = countEntries(".");
  long fds_before = countEntries("/proc/self/fd");
  Executable executable;
  REQUIRE(consume(strata_hal_executable_load_memory(
              bytes.data(), bytes.size(), "sample_kernels.so",
              strata_allocator_system(), executable.out())) == "OK");
  // No temp file, and the memfd is closed once the library is mapped.
  CHECK(countEntries("/tmp") == tmp_before);
  CHECK(countEntries(".") == cwd_before);
  CHECK(countEntries("/proc/self/fd") == fds_before);
  std::string path = loadedPath(executable.ptr);
  CHECK(path.rfind("/proc/self/fd/", 0) == 0);
  int fd = atoi(path.c_str() + strlen("/proc/self/fd/"));
  char link[256] = {};
  std::string fd_link = "/proc/self/fd/" + std::to_string(fd);
  ssize_t link_length = readlink(fd_link.c_str(), link, sizeof(link) - 1);
  // Either closed, or reused by something that is not our memfd.
  CHECK((link_length < 0 || std::string(link).find("memfd:sample_kernels") ==
                                std::string::npos));
  CHECK(std::string(strata_hal_executable_name(executable.ptr)) ==
        "sample_kernels.so");
  CHECK(std::string(strata_hal_executable_library_name(executable.ptr)) ==
        "sample_kernels");
  // The bytes may go away: the library lives in its own mapping.
  std::fill(bytes.begin(), bytes.end(), 0);
  checkElementwise(executable.ptr, 100);
}

TEST_CASE("live memory loads of different libraries stay distinct") {
  // The memfd of the first load is closed, so the second one usually gets
  // the same descriptor number and path; it must still load its own bytes.
  Executable first, second, third;
  REQUIRE(consume(loadMemory(kSamplePath, "first", first)) == "OK");
  REQUIRE(consume(loadMemory(badPath("minimal"), "second", second)) == "OK");
  REQUIRE(consume(loadMemory(kSamplePath, "third", third)) == "OK");
  CHECK(std::string(strata_hal_executable_library_name(first.ptr)) ==
        "sample_kernels");
  CHECK(std::string(strata_hal_executable_library_name(second.ptr)) ==
        "bad_minimal");
  CHECK(std::string(strata_hal_executable_library_name(third.ptr)) ==
        "sample_kernels");
  CHECK(strata_hal_executable_export_count(second.ptr) == 2);
  // Same bytes, yet two independent mappings.
  CHECK(first.ptr->dl_handle != third.ptr->dl_handle);
  CHECK(first.ptr->library != third.ptr->library);
  CHECK(loadedPath(first.ptr) != loadedPath(second.ptr));
  CHECK(loadedPath(second.ptr) != loadedPath(third.ptr));
  checkElementwise(third.ptr, 7);
}

TEST_CASE("concurrent memory loads each get their own library") {
  std::vector<uint8_t> sample = readFile(kSamplePath);
  std::vector<uint8_t> minimal = readFile(badPath("minimal").c_str());
  constexpr int kThreads = 4;
  constexpr int kRounds = 16;
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Each thread keeps a few libraries alive while it loads more, so
      // descriptor numbers are reused while their libraries are loaded.
      strata_hal_executable_t* live[3] = {};
      for (int round = 0; round < kRounds; ++round) {
        bool use_sample = (round + t) % 2 == 0;
        const std::vector<uint8_t>& bytes = use_sample ? sample : minimal;
        strata_hal_executable_t*& slot = live[round % 3];
        strata_hal_executable_release(slot);
        slot = nullptr;
        strata_status_t status = strata_hal_executable_load_memory(
            bytes.data(), bytes.size(), "concurrent",
            strata_allocator_system(), &slot);
        if (status) {
          ++failed;
          strata_status_free(status);
          continue;
        }
        const char* expected = use_sample ? "sample_kernels" : "bad_minimal";
        if (strcmp(strata_hal_executable_library_name(slot), expected) != 0) {
          ++wrong;
        }
      }
      for (strata_hal_executable_t* executable : live) {
        strata_hal_executable_release(executable);
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  CHECK(failed == 0);
  CHECK(wrong == 0);
}

TEST_CASE("garbage bytes from memory fail with the dlopen error") {
  std::vector<uint8_t> garbage(4096);
  for (size_t i = 0; i < garbage.size(); ++i) {
    garbage[i] = static_cast<uint8_t>(i * 131 + 7);
  }
  long fds_before = countEntries("/proc/self/fd");
  Executable executable;
  std::string text = consume(strata_hal_executable_load_memory(
      garbage.data(), garbage.size(), "garbage.so", strata_allocator_system(),
      executable.out()));
  CHECK(text.rfind("INVALID_ARGUMENT: cannot load library 'garbage.so' from "
                   "memory (4096 bytes): ",
                   0) == 0);
  CHECK(text.find("ELF") != std::string::npos);  // dlopen's own words
  CHECK(executable.ptr == nullptr);
  CHECK(countEntries("/proc/self/fd") == fds_before);

  // A truncated library is refused the same way.
  std::vector<uint8_t> bytes = readFile(kSamplePath);
  text = consume(strata_hal_executable_load_memory(bytes.data(), 200, nullptr,
                                                   strata_allocator_system(),
                                                   executable.out()));
  CHECK(text.rfind("INVALID_ARGUMENT: cannot load library '<memory>'", 0) ==
        0);
  text = consume(strata_hal_executable_load_memory(
      bytes.data(), 0, "empty", strata_allocator_system(), executable.out()));
  CHECK(text.find("'empty' from memory: it is empty") != std::string::npos);
}

TEST_CASE("loads statically registered kernels by name") {
  const char* name = "test.sample_kernels_static";
  REQUIRE(consume(strata_hal_executable_register_static(
              name, sample_kernels_library_query)) == "OK");
  std::string text = consume(strata_hal_executable_register_static(
      name, sample_kernels_library_query));
  CHECK(text == "ALREADY_EXISTS: a static library named "
                "'test.sample_kernels_static' is already registered");
  {
    Executable executable;
    REQUIRE(consume(strata_hal_executable_load_static(
                name, strata_allocator_system(), executable.out())) == "OK");
    CHECK(executable.ptr->dl_handle == nullptr);
    CHECK(std::string(strata_hal_executable_name(executable.ptr)) == name);
    CHECK(std::string(strata_hal_executable_library_name(executable.ptr)) ==
          "sample_kernels");
    CHECK(strata_hal_executable_export_count(executable.ptr) == 4);
    checkElementwise(executable.ptr, 33);
    checkMatmul(executable.ptr, 9, 10, 3);

    // Unregistering leaves loaded executables alone.
    REQUIRE(consume(strata_hal_executable_unregister_static(name)) == "OK");
    checkElementwise(executable.ptr, 1);
  }
  Executable missing;
  text = consume(strata_hal_executable_load_static(
      name, strata_allocator_system(), missing.out()));
  CHECK(text.rfind("NOT_FOUND: no static library named "
                   "'test.sample_kernels_static' is registered (registered: ",
                   0) == 0);
  CHECK(consume(strata_hal_executable_unregister_static(name))
            .rfind("NOT_FOUND", 0) == 0);
}

TEST_CASE("an unknown static name lists the registered names") {
  REQUIRE(consume(strata_hal_executable_register_static(
              "test.listed", sample_kernels_library_query)) == "OK");
  Executable executable;
  std::string text = consume(strata_hal_executable_load_static(
      "test.not_there", strata_allocator_system(), executable.out()));
  CHECK(text.find("'test.not_there'") != std::string::npos);
  CHECK(text.find("'test.listed'") != std::string::npos);
  CHECK(consume(strata_hal_executable_unregister_static("test.listed")) ==
        "OK");
  CHECK(consume(strata_hal_executable_register_static("", futureQuery))
            .rfind("INVALID_ARGUMENT", 0) == 0);
  CHECK(consume(strata_hal_executable_register_static("test.null", nullptr))
            .rfind("INVALID_ARGUMENT", 0) == 0);
}

TEST_CASE("concurrent registration of one name lets exactly one win") {
  constexpr int kThreads = 8;
  std::atomic<int> wins{0}, duplicates{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::string own = "test.concurrent." + std::to_string(t);
      CHECK(consume(strata_hal_executable_register_static(
                own.c_str(), sample_kernels_library_query)) == "OK");
      strata_status_t status = strata_hal_executable_register_static(
          "test.concurrent.shared", sample_kernels_library_query);
      if (!status) {
        ++wins;
      } else if (strata_status_code(status) == STRATA_STATUS_ALREADY_EXISTS) {
        ++duplicates;
      }
      strata_status_free(status);
      Executable executable;
      CHECK(consume(strata_hal_executable_load_static(
                own.c_str(), strata_allocator_system(), executable.out())) ==
            "OK");
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  CHECK(wins == 1);
  CHECK(duplicates == kThreads - 1);
  CHECK(consume(strata_hal_executable_unregister_static(
            "test.concurrent.shared")) == "OK");
  for (int t = 0; t < kThreads; ++t) {
    std::string own = "test.concurrent." + std::to_string(t);
    CHECK(consume(strata_hal_executable_unregister_static(own.c_str())) ==
          "OK");
  }
}

TEST_CASE("the library is queried with the host environment") {
  REQUIRE(consume(strata_hal_executable_register_static(
              "test.recording", recordingQuery)) == "OK");
  Executable executable;
  REQUIRE(consume(strata_hal_executable_load_static(
              "test.recording", strata_allocator_system(),
              executable.out())) == "OK");
  CHECK(g_seen_worker_count == 1);
  const strata_hal_executable_environment_v0_t* environment =
      strata_hal_executable_environment(executable.ptr);
  CHECK(environment->cpu_features == hostCpuFeatures());
  CHECK(environment->worker_count == 1);
  CHECK(environment->import_functions == nullptr);
#if defined(__x86_64__)
  CHECK(((hostCpuFeatures() & STRATA_HAL_CPU_FEATURE_X86_AVX2) != 0) ==
        (__builtin_cpu_supports("avx2") != 0));
#endif
  setWorkerCount(executable.ptr, 6);
  CHECK(environment->worker_count == 6);
  setWorkerCount(executable.ptr, 0);
  CHECK(environment->worker_count == 1);
  CHECK(consume(strata_hal_executable_unregister_static("test.recording")) ==
        "OK");
}

TEST_CASE("add_f32 and mul_f32 cover sizes that are not tile multiples") {
  Executable from_file, from_memory;
  REQUIRE(consume(loadFile(kSamplePath, from_file)) == "OK");
  REQUIRE(consume(loadMemory(kSamplePath, "sample", from_memory)) == "OK");
  for (uint32_t n : {1u, 7u, 33u, 63u, 64u, 65u, 100u, 1000u}) {
    checkElementwise(from_file.ptr, n);
    checkElementwise(from_memory.ptr, n);
  }
}

TEST_CASE("matmul_f32 matches a reference on ragged tiles") {
  Executable executable;
  REQUIRE(consume(loadFile(kSamplePath, executable)) == "OK");
  const uint32_t shapes[][3] = {{1, 1, 1},   {7, 5, 3},    {8, 8, 8},
                                {33, 17, 9}, {100, 20, 7}, {1, 33, 100},
                                {16, 1, 1}};
  for (const auto& shape : shapes) {
    checkMatmul(executable.ptr, shape[0], shape[1], shape[2]);
  }
}

TEST_CASE("fail_always and short bindings make kernels return non-zero") {
  Executable executable;
  REQUIRE(consume(loadFile(kSamplePath, executable)) == "OK");
  const uint32_t one[3] = {1, 1, 1};
  CHECK(dispatch(executable.ptr, lookup(executable.ptr, "fail_always"), {},
                 {}, one) != 0);

  std::vector<float> a(10, 1.0f), b(10, 2.0f), out(10, 0.0f);
  // out is one element short of the count in the constant.
  CHECK(dispatch(executable.ptr, lookup(executable.ptr, "add_f32"),
                 {{a.data(), 40}, {b.data(), 40}, {out.data(), 36}}, {10},
                 one) != 0);
  CHECK(out[0] == 0.0f);  // nothing was written
  // matmul with B too short for K x N.
  CHECK(dispatch(executable.ptr, lookup(executable.ptr, "matmul_f32"),
                 {{a.data(), 40}, {b.data(), 16}, {out.data(), 40}},
                 {2, 2, 5}, one) != 0);
}

TEST_CASE("lookup of a missing export lists the exports") {
  Executable executable;
  REQUIRE(consume(loadFile(kSamplePath, executable)) == "OK");
  uint32_t ordinal = 99;
  std::string text = consume(strata_hal_executable_lookup_export(
      executable.ptr, "conv_f32", &ordinal));
  CHECK(text == "NOT_FOUND: library 'sample_kernels' has no export "
                "'conv_f32'; its exports are: add_f32, mul_f32, matmul_f32, "
                "fail_always");
  CHECK(ordinal == 99);
}

TEST_CASE("validateDispatch rejects bad ordinals, counts and sizes") {
  Executable executable;
  REQUIRE(consume(loadFile(kSamplePath, executable)) == "OK");
  const strata_hal_executable_t* e = executable.ptr;
  CHECK(consume(validateDispatch(e, 4, 0, 0)) ==
        "OUT_OF_RANGE: dispatch of export ordinal 4 but library "
        "'sample_kernels' has 4 exports");
  CHECK(consume(validateDispatch(e, 0, 2, 1)) ==
        "INVALID_ARGUMENT: export 'add_f32' of library 'sample_kernels' "
        "takes 3 bindings but the dispatch passes 2");
  CHECK(consume(validateDispatch(e, 2, 3, 1)) ==
        "INVALID_ARGUMENT: export 'matmul_f32' of library 'sample_kernels' "
        "takes 3 push constants but the dispatch passes 1");
  const uint32_t wrong_size[3] = {4, 4, 1};
  CHECK(consume(validateDispatch(e, 2, 3, 3, wrong_size)) ==
        "INVALID_ARGUMENT: export 'matmul_f32' of library 'sample_kernels' "
        "has workgroup size 8x8x1 but the dispatch uses 4x4x1");
  const uint32_t right_size[3] = {8, 8, 1};
  CHECK(consume(validateDispatch(e, 2, 3, 3, right_size)) == "OK");
  CHECK(consume(validateDispatch(e, 3, 0, 0, wrong_size)) == "OK");

  // Exports without attrs take no bindings or constants.
  Executable minimal;
  REQUIRE(consume(loadFile(badPath("minimal"), minimal)) == "OK");
  CHECK(consume(validateDispatch(minimal.ptr, 0, 0, 0)) == "OK");
  CHECK(consume(validateDispatch(minimal.ptr, 1, 1, 0)) ==
        "INVALID_ARGUMENT: export 'export1' of library 'bad_minimal' has no "
        "dispatch attributes, so it takes no bindings or constants; the "
        "dispatch passes 1 bindings and 0 constants");
}

TEST_CASE("a library without names, tags or attrs gets export<N> names and "
          "NULL optional imports") {
  Executable executable;
  REQUIRE(consume(loadFile(badPath("minimal"), executable)) == "OK");
  const strata_hal_executable_t* e = executable.ptr;
  CHECK(std::string(strata_hal_executable_export_name(e, 0)) == "export0");
  CHECK(std::string(strata_hal_executable_export_name(e, 1)) == "export1");
  CHECK(lookup(e, "export1") == 1);
  CHECK(strata_hal_executable_export_tag(e, 0) == nullptr);
  CHECK(strata_hal_executable_export_attrs(e, 0) == nullptr);
  const strata_hal_executable_environment_v0_t* environment =
      strata_hal_executable_environment(e);
  REQUIRE(environment->import_functions != nullptr);
  CHECK(environment->import_functions[0] == nullptr);
  // export1 checks from inside the kernel that the import resolved to NULL.
  const uint32_t one[3] = {1, 1, 1};
  CHECK(dispatch(e, 1, {}, {}, one) == 0);
}

TEST_CASE("rejects a library without the query symbol") {
  std::string text = loadBad("missing_query");
  CHECK(text == "NOT_FOUND: library '" + badPath("missing_query") +
                    "' does not export strata_hal_executable_library_query");
}

TEST_CASE("rejects a library with no version the runtime supports") {
  std::string text = loadBad("query_null");
  CHECK(text.rfind("FAILED_PRECONDITION: ", 0) == 0);
  CHECK(text.find("query returned NULL for versions <= 1") !=
        std::string::npos);
}

TEST_CASE("rejects a library whose header is NULL") {
  CHECK(loadBad("null_header")
            .find("returned a library whose header is "
                  "NULL") != std::string::npos);
}

TEST_CASE("rejects a library of a newer ABI version, naming both versions") {
  std::string text = loadBad("wrong_version");
  CHECK(text == "FAILED_PRECONDITION: library '" + badPath("wrong_version") +
                    "' has ABI version 7 but the runtime supports versions "
                    "<= 1");
  // The static registry goes through the same validation.
  REQUIRE(consume(strata_hal_executable_register_static(
              "test.future", futureQuery)) == "OK");
  Executable executable;
  CHECK(consume(strata_hal_executable_load_static(
            "test.future", strata_allocator_system(), executable.out())) ==
        "FAILED_PRECONDITION: library 'test.future' has ABI version 7 but "
        "the runtime supports versions <= 1");
  CHECK(consume(strata_hal_executable_unregister_static("test.future")) ==
        "OK");
}

TEST_CASE("rejects a sanitizer the runtime was not built with") {
  const int runtime_sanitizer = static_cast<int>(runtimeSanitizer());
  auto sanitizerName = [](int sanitizer) -> std::string {
    switch (sanitizer) {
      case STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_ADDRESS:
        return "AddressSanitizer";
      case STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_THREAD:
        return "ThreadSanitizer";
      default:
        return "no sanitizer";
    }
  };
  std::string runtime = sanitizerName(runtime_sanitizer);
  for (int library_sanitizer : {STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_ADDRESS,
                                STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_THREAD}) {
    std::string name = library_sanitizer ==
                               STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_ADDRESS
                           ? "sanitizer_address"
                           : "sanitizer_thread";
    std::string result = loadBad(name.c_str());
    if (library_sanitizer == runtime_sanitizer) {
      CHECK(result == "OK");
    } else {
      CHECK(result == "FAILED_PRECONDITION: library '" + badPath(name.c_str()) +
                          "' was built with " +
                          sanitizerName(library_sanitizer) +
                          " but the runtime was built with " + runtime);
    }
  }
  CHECK(loadBad("sanitizer_unknown").find("names unknown sanitizer 9") !=
        std::string::npos);
}

TEST_CASE("rejects a library needing CPU features the host lacks") {
  std::string text = loadBad("foreign_features");
  CHECK(text.rfind("FAILED_PRECONDITION: ", 0) == 0);
#if defined(__x86_64__)
  CHECK(text.find("needs CPU features this host lacks: neon (needs: neon; "
                  "host has: ") != std::string::npos);
#endif
}

TEST_CASE("an AMX-INT8 library loads only where the host grants AMX") {
  // As the host is: loads exactly when detection found AMX usable.
  std::string text = loadBad("amx_int8");
  bool host_amx =
      (hostCpuFeatures() & STRATA_HAL_CPU_FEATURE_X86_AMX_INT8) != 0;
  CHECK((text == "OK") == host_amx);
#if defined(__x86_64__)
  // Detection agrees with CPUID (the OS may still refuse the tile state).
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx);
  if (host_amx) {
    CHECK((edx & (3u << 24)) == (3u << 24));
  }
#endif
  // A host without it (the bit masked off): refused, naming the library
  // and the feature; no other check fails first.
  uint64_t previous =
      setHostCpuFeatureMask(~uint64_t{STRATA_HAL_CPU_FEATURE_X86_AMX_INT8});
  text = loadBad("amx_int8");
  setHostCpuFeatureMask(previous);
  CHECK(text.rfind("FAILED_PRECONDITION: library '" + badPath("amx_int8") +
                       "' needs CPU features this host lacks: amx-int8 "
                       "(needs: amx-int8; host has: ",
                   0) == 0);
  // The mask restored, the host is as detected again.
  CHECK(((hostCpuFeatures() & STRATA_HAL_CPU_FEATURE_X86_AMX_INT8) != 0) ==
        host_amx);
}

TEST_CASE("rejects malformed export tables") {
  CHECK(loadBad("zero_exports") == "INVALID_ARGUMENT: library '" +
                                       badPath("zero_exports") +
                                       "' exports no functions");
  CHECK(loadBad("null_export_table") ==
        "INVALID_ARGUMENT: library '" + badPath("null_export_table") +
            "' declares 2 exports but its function pointer table is NULL");
  CHECK(loadBad("null_export_fn") ==
        "INVALID_ARGUMENT: export 1 ('second') of library '" +
            badPath("null_export_fn") + "' has a NULL function pointer");
}

TEST_CASE("rejects a non-optional import, naming the symbol") {
  std::string text = loadBad("required_import");
  CHECK(text.rfind("NOT_FOUND: library '" + badPath("required_import") +
                       "' imports 'strata_test_missing_import', which the "
                       "runtime does not provide",
                   0) == 0);
}

TEST_CASE("rejections from memory name the memory name and close the fd") {
  long fds_before = countEntries("/proc/self/fd");
  Executable executable;
  std::string text =
      consume(loadMemory(badPath("wrong_version"), "wrong.so", executable));
  CHECK(text ==
        "FAILED_PRECONDITION: library 'wrong.so' has ABI version 7 "
        "but the runtime supports versions <= 1");
  text = consume(loadMemory(badPath("missing_query"), "noquery", executable));
  CHECK(text == "NOT_FOUND: library 'noquery' does not export "
                "strata_hal_executable_library_query");
  CHECK(executable.ptr == nullptr);
  CHECK(countEntries("/proc/self/fd") == fds_before);
}

TEST_CASE("frees everything it allocated, also when allocation fails") {
  CountingAllocator counter;
  {
    Executable executable;
    REQUIRE(consume(strata_hal_executable_load_file(
                kSamplePath, counter.allocator(), executable.out())) == "OK");
    CHECK(counter.live == 1);  // one allocation per executable
  }
  CHECK(counter.live == 0);
  {
    Executable executable;
    CHECK(consume(strata_hal_executable_load_file(
              badPath("wrong_version").c_str(), counter.allocator(),
              executable.out())) != "OK");
  }
  CHECK(counter.live == 0);
  counter.fail = true;
  Executable executable;
  std::string text = consume(strata_hal_executable_load_file(
      kSamplePath, counter.allocator(), executable.out()));
  CHECK(text.rfind("RESOURCE_EXHAUSTED: out of memory loading library '",
                   0) == 0);
  CHECK(executable.ptr == nullptr);
  CHECK(counter.live == 0);
}

}  // TEST_SUITE

TEST_CASE("STRATA_CPU_FEATURES values: classes, lists, and bad names") {
  uint64_t bits = 0;
  std::string error;
  constexpr uint64_t kAvx2 =
      STRATA_HAL_CPU_FEATURE_X86_AVX2 | STRATA_HAL_CPU_FEATURE_X86_FMA;
  CHECK(parseCpuFeatures("baseline", &bits, &error));
  CHECK(bits == 0);
  CHECK(parseCpuFeatures("avx2", &bits, &error));
  CHECK(bits == kAvx2);
  CHECK(parseCpuFeatures("avx512", &bits, &error));
  CHECK(bits == (kAvx2 | STRATA_HAL_CPU_FEATURE_X86_AVX512F));
  CHECK(parseCpuFeatures("fma,avx512f", &bits, &error));
  CHECK(bits ==
        (STRATA_HAL_CPU_FEATURE_X86_FMA | STRATA_HAL_CPU_FEATURE_X86_AVX512F));
  CHECK(parseCpuFeatures("amx-int8", &bits, &error));
  CHECK(bits == STRATA_HAL_CPU_FEATURE_X86_AMX_INT8);
  CHECK(error.empty());
  CHECK_FALSE(parseCpuFeatures("avx3", &bits, &error));
  CHECK(error ==
        "STRATA_CPU_FEATURES='avx3': 'avx3' is not a CPU feature; give "
        "avx512, avx2 or baseline, or a comma-separated list of avx2, fma, "
        "avx512f, amx-int8, neon");
  CHECK_FALSE(parseCpuFeatures("avx2,,fma", &bits, &error));
  CHECK(error.rfind("STRATA_CPU_FEATURES='avx2,,fma': '' is not", 0) == 0);
  CHECK_FALSE(parseCpuFeatures("", &bits, &error));
  CHECK_FALSE(parseCpuFeatures("none", &bits, &error));
  // The names the tools print.
  char names[64];
  CHECK(strata_hal_cpu_feature_names(kAvx2, names, sizeof(names)) == 8);
  CHECK(std::string(names) == "avx2 fma");
  CHECK(strata_hal_cpu_feature_names(0, names, 3) == 4);
  CHECK(std::string(names) == "no");
}
