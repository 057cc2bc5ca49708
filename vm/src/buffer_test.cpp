// buffer_test.cpp - unit tests for vm.buffer: ownership, wrapping, cloning
// and range-checked mapping.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "strata/vm/buffer.h"
#include "strata/vm/list.h"

namespace {

// Wraps the system allocator, counting live allocations; can be told to fail.
struct CountingAllocator {
  int live = 0;
  int total = 0;
  bool fail = false;
  size_t last_alignment = 0;

  static void* alloc(void* self, size_t size, size_t alignment) {
    auto* counter = static_cast<CountingAllocator*>(self);
    if (counter->fail) {
      return nullptr;
    }
    counter->last_alignment = alignment;
    void* ptr = strata_allocator_alloc(strata_allocator_system(), size,
                                       alignment);
    if (ptr) {
      counter->live++;
      counter->total++;
    }
    return ptr;
  }
  static void free(void* self, void* ptr) {
    if (ptr) {
      static_cast<CountingAllocator*>(self)->live--;
    }
    strata_allocator_free(strata_allocator_system(), ptr);
  }
  strata_allocator_t get() { return {this, alloc, free}; }
};

// An owner object that records its destruction.
struct Owner {
  strata_vm_ref_object_t header;
  int destroyed = 0;
  uint8_t bytes[32] = {};
};
void destroyOwner(strata_vm_ref_object_t* object) {
  reinterpret_cast<Owner*>(object)->destroyed++;
}
const strata_vm_ref_type_t kOwnerType = {"test.owner", destroyOwner};

std::string message(strata_status_t status) {
  return strata_status_message(status);
}

strata_vm_buffer_t* makeBuffer(size_t length, strata_allocator_t allocator) {
  strata_vm_buffer_t* buffer = nullptr;
  REQUIRE(strata_vm_buffer_create(length, 0, allocator, &buffer) == nullptr);
  REQUIRE(buffer != nullptr);
  return buffer;
}

}  // namespace

TEST_SUITE("vm.buffer") {

TEST_CASE("the buffer type is registered as vm.buffer") {
  CHECK(std::string(strata_vm_buffer_type()->name) == "vm.buffer");
  CHECK((strata_vm_buffer_type()->destroy != nullptr));
}

TEST_CASE("a created buffer is zero-filled, writable and owns its bytes") {
  CountingAllocator counter;
  strata_vm_buffer_t* buffer = makeBuffer(100, counter.get());
  CHECK(counter.live == 1);
  CHECK(strata_vm_buffer_length(buffer) == 100);
  CHECK(strata_vm_buffer_is_writable(buffer) == 1);
  const uint8_t* data = strata_vm_buffer_data(buffer);
  REQUIRE(data != nullptr);
  for (size_t i = 0; i < 100; ++i) {
    CHECK(data[i] == 0);
  }
  CHECK(strata_vm_ref_count(strata_vm_buffer_as_ref(buffer)) == 1);
  strata_vm_buffer_release(buffer);
  CHECK(counter.live == 0);
}

TEST_CASE("buffer bytes honour the default and requested alignment") {
  strata_allocator_t allocator = strata_allocator_system();
  strata_vm_buffer_t* buffer = makeBuffer(3, allocator);
  CHECK(reinterpret_cast<uintptr_t>(strata_vm_buffer_data(buffer)) % 16 == 0);
  strata_vm_buffer_release(buffer);
  for (size_t alignment : {1u, 8u, 64u, 4096u}) {
    CAPTURE(alignment);
    REQUIRE(strata_vm_buffer_create(5, alignment, allocator, &buffer) ==
            nullptr);
    CHECK(reinterpret_cast<uintptr_t>(strata_vm_buffer_data(buffer)) %
              alignment ==
          0);
    strata_vm_buffer_release(buffer);
  }
}

TEST_CASE("an alignment that is not a power of two is rejected") {
  strata_vm_buffer_t* buffer = nullptr;
  strata_status_t status =
      strata_vm_buffer_create(8, 24, strata_allocator_system(), &buffer);
  CHECK(strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT);
  CHECK(message(status).find("24") != std::string::npos);
  CHECK(buffer == nullptr);
  strata_status_free(status);
}

TEST_CASE("allocation failure is reported as RESOURCE_EXHAUSTED") {
  CountingAllocator counter;
  counter.fail = true;
  strata_vm_buffer_t* buffer = nullptr;
  strata_status_t status = strata_vm_buffer_create(8, 0, counter.get(), &buffer);
  CHECK(strata_status_code(status) == STRATA_STATUS_RESOURCE_EXHAUSTED);
  CHECK(buffer == nullptr);
  strata_status_free(status);

  status = strata_vm_buffer_wrap(nullptr, 0, 1, nullptr, counter.get(),
                                 &buffer);
  CHECK(strata_status_code(status) == STRATA_STATUS_RESOURCE_EXHAUSTED);
  strata_status_free(status);
}

TEST_CASE("a huge length is rejected without overflowing") {
  strata_vm_buffer_t* buffer = nullptr;
  strata_status_t status = strata_vm_buffer_create(
      SIZE_MAX - 8, 0, strata_allocator_system(), &buffer);
  CHECK(strata_status_code(status) == STRATA_STATUS_RESOURCE_EXHAUSTED);
  CHECK(buffer == nullptr);
  strata_status_free(status);
}

TEST_CASE("zero-length buffers are legal and map empty ranges only") {
  strata_vm_buffer_t* buffer = makeBuffer(0, strata_allocator_system());
  CHECK(strata_vm_buffer_length(buffer) == 0);
  CHECK(strata_vm_buffer_data(buffer) != nullptr);
  uint8_t* ptr = nullptr;
  CHECK(strata_vm_buffer_map(buffer, 0, 0, 1, &ptr) == nullptr);
  CHECK(ptr == strata_vm_buffer_data(buffer));
  strata_status_t status = strata_vm_buffer_map(buffer, 0, 1, 0, &ptr);
  CHECK(strata_status_code(status) == STRATA_STATUS_OUT_OF_RANGE);
  CHECK(ptr == nullptr);
  strata_status_free(status);
  strata_vm_buffer_release(buffer);
}

TEST_CASE("map returns a pointer to an in-bounds range") {
  strata_vm_buffer_t* buffer = makeBuffer(16, strata_allocator_system());
  uint8_t* ptr = nullptr;
  REQUIRE(strata_vm_buffer_map(buffer, 4, 8, 1, &ptr) == nullptr);
  CHECK(ptr == strata_vm_buffer_data(buffer) + 4);
  std::memset(ptr, 0xAB, 8);
  CHECK(strata_vm_buffer_data(buffer)[3] == 0);
  CHECK(strata_vm_buffer_data(buffer)[4] == 0xAB);
  CHECK(strata_vm_buffer_data(buffer)[11] == 0xAB);
  CHECK(strata_vm_buffer_data(buffer)[12] == 0);
  // The whole buffer and the empty range at the end are both in bounds.
  CHECK(strata_vm_buffer_map(buffer, 0, 16, 0, &ptr) == nullptr);
  CHECK(strata_vm_buffer_map(buffer, 16, 0, 0, &ptr) == nullptr);
  CHECK(ptr == strata_vm_buffer_data(buffer) + 16);
  strata_vm_buffer_release(buffer);
}

TEST_CASE("map rejects ranges past the end and names length and range") {
  strata_vm_buffer_t* buffer = makeBuffer(12, strata_allocator_system());
  uint8_t* ptr = nullptr;
  strata_status_t status = strata_vm_buffer_map(buffer, 8, 16, 0, &ptr);
  CHECK(strata_status_code(status) == STRATA_STATUS_OUT_OF_RANGE);
  CHECK(message(status) ==
        "range of 16 bytes at offset 8 is out of bounds of a vm.buffer of 12 "
        "bytes");
  CHECK(ptr == nullptr);
  strata_status_free(status);

  status = strata_vm_buffer_map(buffer, 13, 0, 0, &ptr);
  CHECK(strata_status_code(status) == STRATA_STATUS_OUT_OF_RANGE);
  CHECK(message(status).find("offset 13") != std::string::npos);
  strata_status_free(status);
  strata_vm_buffer_release(buffer);
}

TEST_CASE("map rejects ranges whose end overflows 64 bits") {
  strata_vm_buffer_t* buffer = makeBuffer(12, strata_allocator_system());
  uint8_t* ptr = nullptr;
  // offset + length wraps around to 4, which a naive check would accept.
  strata_status_t status =
      strata_vm_buffer_map(buffer, 8, UINT64_MAX - 3, 0, &ptr);
  CHECK(strata_status_code(status) == STRATA_STATUS_OUT_OF_RANGE);
  CHECK(message(status).find("18446744073709551612 bytes at offset 8") !=
        std::string::npos);
  strata_status_free(status);
  status = strata_vm_buffer_map(buffer, UINT64_MAX, 1, 0, &ptr);
  CHECK(strata_status_code(status) == STRATA_STATUS_OUT_OF_RANGE);
  strata_status_free(status);
  CHECK(ptr == nullptr);
  strata_vm_buffer_release(buffer);
}

TEST_CASE("wrapping views the memory in place without copying") {
  uint8_t storage[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CountingAllocator counter;
  strata_vm_buffer_t* buffer = nullptr;
  REQUIRE(strata_vm_buffer_wrap(storage, sizeof(storage), 1, nullptr,
                                counter.get(), &buffer) == nullptr);
  CHECK(strata_vm_buffer_data(buffer) == storage);
  CHECK(strata_vm_buffer_length(buffer) == 8);
  uint8_t* ptr = nullptr;
  REQUIRE(strata_vm_buffer_map(buffer, 2, 1, 1, &ptr) == nullptr);
  *ptr = 42;
  CHECK(storage[2] == 42);
  strata_vm_buffer_release(buffer);
  CHECK(counter.live == 0);
}

TEST_CASE("a buffer wrapping an owner keeps the owner alive") {
  Owner owner;
  strata_vm_ref_object_init(&owner.header, &kOwnerType);
  strata_vm_buffer_t* buffer = nullptr;
  REQUIRE(strata_vm_buffer_wrap(owner.bytes, sizeof(owner.bytes), 0,
                                &owner.header, strata_allocator_system(),
                                &buffer) == nullptr);
  CHECK(strata_vm_ref_count(&owner.header) == 2);
  // The creator lets go; the buffer still holds the owner.
  strata_vm_ref_release(&owner.header);
  CHECK(owner.destroyed == 0);
  CHECK(strata_vm_ref_count(&owner.header) == 1);
  CHECK(strata_vm_buffer_data(buffer) == owner.bytes);
  strata_vm_buffer_release(buffer);
  CHECK(owner.destroyed == 1);
}

TEST_CASE("a buffer may be the owner of another buffer's view") {
  CountingAllocator counter;
  strata_vm_buffer_t* base = makeBuffer(64, counter.get());
  strata_vm_buffer_t* view = nullptr;
  REQUIRE(strata_vm_buffer_wrap(strata_vm_buffer_data(base) + 16, 16, 1,
                                strata_vm_buffer_as_ref(base), counter.get(),
                                &view) == nullptr);
  strata_vm_buffer_release(base);
  CHECK(counter.live == 2);  // base stays alive through the view
  strata_vm_buffer_data(view)[0] = 9;
  strata_vm_buffer_release(view);
  CHECK(counter.live == 0);
}

TEST_CASE("read-only buffers reject writable maps with a clear message") {
  const uint8_t storage[4] = {1, 2, 3, 4};
  strata_vm_buffer_t* buffer = nullptr;
  REQUIRE(strata_vm_buffer_wrap(const_cast<uint8_t*>(storage), 4, 0, nullptr,
                                strata_allocator_system(),
                                &buffer) == nullptr);
  CHECK(strata_vm_buffer_is_writable(buffer) == 0);
  uint8_t* ptr = nullptr;
  CHECK(strata_vm_buffer_map(buffer, 0, 4, 0, &ptr) == nullptr);
  CHECK(ptr == storage);
  strata_status_t status = strata_vm_buffer_map(buffer, 1, 2, 1, &ptr);
  CHECK(strata_status_code(status) == STRATA_STATUS_PERMISSION_DENIED);
  CHECK(message(status) ==
        "cannot map 2 bytes at offset 1 for writing: the vm.buffer of 4 bytes "
        "is read-only");
  CHECK(ptr == nullptr);
  strata_status_free(status);
  strata_vm_buffer_release(buffer);
}

TEST_CASE("wrapping NULL is only legal for an empty view") {
  strata_vm_buffer_t* buffer = nullptr;
  strata_status_t status = strata_vm_buffer_wrap(
      nullptr, 4, 0, nullptr, strata_allocator_system(), &buffer);
  CHECK(strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT);
  CHECK(buffer == nullptr);
  strata_status_free(status);

  REQUIRE(strata_vm_buffer_wrap(nullptr, 0, 0, nullptr,
                                strata_allocator_system(),
                                &buffer) == nullptr);
  CHECK(strata_vm_buffer_length(buffer) == 0);
  CHECK(strata_vm_buffer_data(buffer) != nullptr);
  strata_vm_buffer_release(buffer);
}

TEST_CASE("a clone copies the range into an independent writable buffer") {
  const uint8_t storage[6] = {10, 11, 12, 13, 14, 15};
  Owner owner;
  strata_vm_ref_object_init(&owner.header, &kOwnerType);
  strata_vm_buffer_t* source = nullptr;
  REQUIRE(strata_vm_buffer_wrap(const_cast<uint8_t*>(storage), 6, 0,
                                &owner.header, strata_allocator_system(),
                                &source) == nullptr);
  strata_vm_buffer_t* clone = nullptr;
  REQUIRE(strata_vm_buffer_clone(source, 2, 3, strata_allocator_system(),
                                 &clone) == nullptr);
  CHECK(strata_vm_buffer_length(clone) == 3);
  CHECK(strata_vm_buffer_is_writable(clone) == 1);
  CHECK(strata_vm_buffer_data(clone) != storage + 2);
  CHECK(strata_vm_buffer_data(clone)[0] == 12);
  CHECK(strata_vm_buffer_data(clone)[2] == 14);
  // The clone holds no reference to the source or its owner.
  CHECK(strata_vm_ref_count(strata_vm_buffer_as_ref(source)) == 1);
  CHECK(strata_vm_ref_count(&owner.header) == 2);
  strata_vm_buffer_release(source);
  CHECK(strata_vm_ref_count(&owner.header) == 1);
  strata_vm_buffer_data(clone)[0] = 99;
  CHECK(storage[2] == 12);
  strata_vm_buffer_release(clone);
  CHECK(owner.destroyed == 0);
}

TEST_CASE("writes to the source after cloning do not reach the clone") {
  strata_vm_buffer_t* source = makeBuffer(4, strata_allocator_system());
  strata_vm_buffer_data(source)[1] = 5;
  strata_vm_buffer_t* clone = nullptr;
  REQUIRE(strata_vm_buffer_clone(source, 0, 4, strata_allocator_system(),
                                 &clone) == nullptr);
  strata_vm_buffer_data(source)[1] = 6;
  CHECK(strata_vm_buffer_data(clone)[1] == 5);
  strata_vm_buffer_release(source);
  strata_vm_buffer_release(clone);
}

TEST_CASE("cloning an out-of-range span fails and creates nothing") {
  CountingAllocator counter;
  strata_vm_buffer_t* source = makeBuffer(4, counter.get());
  strata_vm_buffer_t* clone = nullptr;
  strata_status_t status =
      strata_vm_buffer_clone(source, 3, 2, counter.get(), &clone);
  CHECK(strata_status_code(status) == STRATA_STATUS_OUT_OF_RANGE);
  CHECK(clone == nullptr);
  CHECK(counter.live == 1);
  strata_status_free(status);

  // An empty clone is fine.
  REQUIRE(strata_vm_buffer_clone(source, 4, 0, counter.get(), &clone) ==
          nullptr);
  CHECK(strata_vm_buffer_length(clone) == 0);
  strata_vm_buffer_release(clone);
  strata_vm_buffer_release(source);
  CHECK(counter.live == 0);
}

TEST_CASE("from_ref accepts buffers only") {
  strata_vm_buffer_t* buffer = makeBuffer(1, strata_allocator_system());
  CHECK(strata_vm_buffer_from_ref(strata_vm_buffer_as_ref(buffer)) == buffer);
  strata_vm_list_t* list = nullptr;
  REQUIRE(strata_vm_list_create(0, strata_allocator_system(), &list) ==
          nullptr);
  CHECK(strata_vm_buffer_from_ref(strata_vm_list_as_ref(list)) == nullptr);
  CHECK(strata_vm_buffer_from_ref(nullptr) == nullptr);
  strata_vm_list_release(list);
  strata_vm_buffer_release(buffer);
}

}  // TEST_SUITE("vm.buffer")
