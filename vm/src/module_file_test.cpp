// module_file_test.cpp - reading module files: the header is checked before
// the rest is read, endless and oversized files are refused with a message
// naming the path, and a valid file loads without a copy.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "module_builder.h"
#include "strata/vm/module.h"

namespace {

using strata::vm::Opcode;
using namespace strata::vm::testing;

std::string take(strata_status_t status) {
  if (!status) {
    return "";
  }
  std::string text = strata_status_message(status);
  strata_status_free(status);
  return text;
}

// A temporary directory removed with its files at the end of the test.
struct TempDir {
  TempDir() {
    char pattern[] = "/tmp/strata_module_file_XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempDir() {
    for (const std::string& f : files) {
      ::unlink(f.c_str());
    }
    ::rmdir(path.c_str());
  }
  std::string write(const char* name, const std::vector<uint8_t>& bytes) {
    std::string file = path + "/" + name;
    FILE* f = std::fopen(file.c_str(), "wb");
    REQUIRE(f);
    REQUIRE(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
    std::fclose(f);
    files.push_back(file);
    return file;
  }
  std::string path;
  std::vector<std::string> files;
};

std::vector<uint8_t> sampleModule() {
  ModuleBuilder b("sample");
  FunctionBuilder& f = b.addFunction("answer", "0_i");
  f.op(Opcode::ConstI32).i32(42).reg(prim(0));
  f.op(Opcode::Return).list({prim(0)});
  b.addExport("answer", f.index());
  b.addRodata(std::vector<uint8_t>(100, 7));
  return b.build();
}

TEST_SUITE("vm.module_file") {

TEST_CASE("a valid module file loads") {
  TempDir dir;
  std::string path = dir.write("ok.vmfb", sampleModule());
  strata_vm_instance_t* instance = nullptr;
  REQUIRE(take(strata_vm_instance_create(strata_allocator_system(),
                                         &instance)) == "");
  strata_vm_module_t* module = nullptr;
  CHECK(take(strata_vm_bytecode_module_load_file(
            instance, path.c_str(), nullptr, strata_allocator_system(),
            &module)) ==
        "");
  REQUIRE(module);
  CHECK(std::string(strata_vm_module_name(module)) == "sample");
  strata_vm_module_release(module);
  strata_vm_instance_release(instance);
}

TEST_CASE("an endless device is refused after its header") {
  uint8_t* data = nullptr;
  size_t size = 0;
  strata_status_t status = strata_vm_module_file_read(
      "/dev/zero", strata_allocator_system(), &data, &size);
  CHECK(strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT);
  CHECK(take(status) ==
        "module file '/dev/zero': not a Strata module: bad magic (expected "
        "\"STRATAVM\")");
  CHECK(data == nullptr);
}

TEST_CASE("a directory, a missing file and a short file are refused") {
  TempDir dir;
  uint8_t* data = nullptr;
  size_t size = 0;
  strata_status_t status = strata_vm_module_file_read(
      dir.path.c_str(), strata_allocator_system(), &data, &size);
  CHECK(take(status) == "module file '" + dir.path + "' is a directory");
  std::string missing = dir.path + "/missing.vmfb";
  status = strata_vm_module_file_read(missing.c_str(),
                                      strata_allocator_system(), &data, &size);
  CHECK(strata_status_code(status) == STRATA_STATUS_NOT_FOUND);
  CHECK(take(status) == "cannot open module file '" + missing +
                            "': No such file or directory");
  std::string tiny = dir.write("tiny.vmfb", {'S', 'T'});
  CHECK(take(strata_vm_module_file_read(tiny.c_str(),
                                        strata_allocator_system(), &data,
                                        &size)) ==
        "module file '" + tiny +
            "': module is truncated: 2 bytes cannot hold the 64-byte header");
}

TEST_CASE("a header declaring more than the file holds is refused before "
          "allocating") {
  TempDir dir;
  std::vector<uint8_t> bytes = sampleModule();
  strata_module_header_t header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  // A huge segment area: refused from the file size, nothing allocated.
  header.segments_size = uint64_t{1} << 35;
  std::memcpy(bytes.data(), &header, sizeof(header));
  std::string huge = dir.write("huge.vmfb", bytes);
  uint8_t* data = nullptr;
  size_t size = 0;
  CHECK(take(strata_vm_module_file_read(huge.c_str(),
                                        strata_allocator_system(), &data,
                                        &size)) ==
        "module file '" + huge + "': module is truncated: the header declares " +
            std::to_string(header.segments_offset + header.segments_size) +
            " bytes, the file has " + std::to_string(bytes.size()));
  // Over the format's limit.
  header.segments_size = uint64_t{1} << 40;
  std::memcpy(bytes.data(), &header, sizeof(header));
  std::string over = dir.write("over.vmfb", bytes);
  CHECK(take(strata_vm_module_file_read(over.c_str(),
                                        strata_allocator_system(), &data,
                                        &size))
            .find("over the 68719476736-byte module limit") !=
        std::string::npos);
  // Offsets that wrap.
  header.segments_offset = ~uint64_t{0} - 10;
  std::memcpy(bytes.data(), &header, sizeof(header));
  std::string wrap = dir.write("wrap.vmfb", bytes);
  CHECK(take(strata_vm_module_file_read(wrap.c_str(),
                                        strata_allocator_system(), &data,
                                        &size)) ==
        "module file '" + wrap + "': the header's ranges overflow");
}

TEST_CASE("a pipe is read up to the streamed-module limit") {
  TempDir dir;
  std::string fifo = dir.path + "/module.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  dir.files.push_back(fifo);
  std::vector<uint8_t> bytes = sampleModule();
  strata_module_header_t header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  header.segments_size = STRATA_MAX_STREAMED_MODULE_SIZE;
  std::memcpy(bytes.data(), &header, sizeof(header));
  // The writer sends the header and stops; the reader must refuse from the
  // header alone, without waiting for more.
  std::thread writer([&] {
    FILE* f = std::fopen(fifo.c_str(), "wb");
    if (f) {
      std::fwrite(bytes.data(), 1, sizeof(header), f);
      std::fclose(f);
    }
  });
  uint8_t* data = nullptr;
  size_t size = 0;
  std::string text = take(strata_vm_module_file_read(
      fifo.c_str(), strata_allocator_system(), &data, &size));
  writer.join();
  CHECK(text.find("is not a regular file and its header declares") !=
        std::string::npos);
  CHECK(text.find("-byte limit for streamed modules") != std::string::npos);

  // A valid module through a pipe loads.
  std::vector<uint8_t> good = sampleModule();
  std::thread good_writer([&] {
    FILE* f = std::fopen(fifo.c_str(), "wb");
    if (f) {
      std::fwrite(good.data(), 1, good.size(), f);
      std::fclose(f);
    }
  });
  CHECK(take(strata_vm_module_file_read(fifo.c_str(),
                                        strata_allocator_system(), &data,
                                        &size)) == "");
  good_writer.join();
  CHECK(size == good.size());
  CHECK((data && std::memcmp(data, good.data(), size) == 0));
  strata_allocator_free(strata_allocator_system(), data);
}

}  // TEST_SUITE

}  // namespace
