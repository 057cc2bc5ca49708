// buffer_test.cpp - hal.buffer and hal.buffer_view: allocation, wrapping,
// range checks, subspans keeping parents alive, view size validation and
// element type names.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "strata/hal/buffer.h"

namespace {

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

// Wraps the system allocator, counting live allocations.
struct CountingAllocator {
  int live = 0;
  size_t last_alignment = 0;
  bool fail = false;
  static void* alloc(void* self, size_t size, size_t alignment) {
    auto* counter = static_cast<CountingAllocator*>(self);
    if (counter->fail) {
      return nullptr;
    }
    counter->last_alignment = alignment;
    void* ptr =
        strata_allocator_alloc(strata_allocator_system(), size, alignment);
    if (ptr) {
      counter->live++;
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

strata_hal_buffer_t* allocate(uint64_t length,
                              strata_allocator_t allocator =
                                  strata_allocator_system()) {
  strata_hal_buffer_t* buffer = nullptr;
  REQUIRE(consume(strata_hal_buffer_allocate(allocator, length, &buffer)) ==
          "OK");
  return buffer;
}

}  // namespace

TEST_SUITE("hal.buffer") {

TEST_CASE("allocates zeroed, 64-byte aligned memory") {
  for (uint64_t length : {0ull, 1ull, 63ull, 64ull, 1000ull}) {
    strata_hal_buffer_t* buffer = allocate(length);
    CHECK(strata_hal_buffer_length(buffer) == length);
    uint8_t* ptr = nullptr;
    REQUIRE(consume(strata_hal_buffer_map(buffer, 0, length, &ptr)) == "OK");
    REQUIRE(ptr != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(ptr) % 64 == 0);
    bool zero = true;
    for (uint64_t i = 0; i < length; ++i) {
      zero = zero && ptr[i] == 0;
    }
    CHECK(zero);
    strata_hal_buffer_release(buffer);
  }
}

TEST_CASE("large buffers are mapped pages: zeroed, aligned, writable, freed") {
  CountingAllocator counter;
  const uint64_t length = STRATA_HAL_LARGE_BUFFER_BYTES + 4096 + 3;
  for (int round = 0; round < 2; ++round) {
    strata_hal_buffer_t* buffer = allocate(length, counter.get());
    // Only the record comes from the allocator.
    CHECK(counter.live == 1);
    uint8_t* ptr = nullptr;
    REQUIRE(consume(strata_hal_buffer_map(buffer, 0, length, &ptr)) == "OK");
    CHECK(reinterpret_cast<uintptr_t>(ptr) % 64 == 0);
    bool zero = true;
    for (uint64_t i = 0; i < length; i += 511) {
      zero = zero && ptr[i] == 0;
    }
    CHECK(zero);
    CHECK(ptr[length - 1] == 0);
    // Written in one round, fresh (zero) again in the next.
    std::memset(ptr, 0xab, length);
    strata_hal_buffer_t* span = nullptr;
    REQUIRE(consume(strata_hal_buffer_subspan(buffer, length - 8, 8,
                                              counter.get(), &span)) == "OK");
    strata_hal_buffer_release(buffer);
    uint8_t* tail = nullptr;
    REQUIRE(consume(strata_hal_buffer_map(span, 0, 8, &tail)) == "OK");
    CHECK(tail[7] == 0xab);  // the subspan keeps the pages mapped
    strata_hal_buffer_release(span);
    CHECK(counter.live == 0);
  }
}

TEST_CASE("uninitialized large buffers reuse the mappings of destroyed ones") {
  const uint64_t length = 3 * STRATA_HAL_LARGE_BUFFER_BYTES + 5;
  strata_hal_buffer_t* first = nullptr;
  REQUIRE(consume(strata_hal_buffer_allocate_uninitialized(
              strata_allocator_system(), length, &first)) == "OK");
  uint8_t* first_ptr = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(first, 0, length, &first_ptr)) ==
          "OK");
  std::memset(first_ptr, 0x5a, length);  // every byte written, as kernels do
  strata_hal_buffer_release(first);
  // The same mapped size gets the cached mapping back, warm.
  strata_hal_buffer_t* second = nullptr;
  REQUIRE(consume(strata_hal_buffer_allocate_uninitialized(
              strata_allocator_system(), length - 2, &second)) == "OK");
  uint8_t* second_ptr = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(second, 0, length - 2,
                                        &second_ptr)) == "OK");
  CHECK(second_ptr == first_ptr);
  CHECK(second_ptr[100] == 0x5a);
  // A zeroed allocation never takes a dirty cached mapping.
  strata_hal_buffer_t* zeroed = nullptr;
  REQUIRE(consume(strata_hal_buffer_allocate(strata_allocator_system(),
                                             length, &zeroed)) == "OK");
  uint8_t* zeroed_ptr = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(zeroed, 0, length, &zeroed_ptr)) ==
          "OK");
  CHECK(zeroed_ptr[100] == 0);
  CHECK(zeroed_ptr[length - 1] == 0);
  strata_hal_buffer_release(second);
  strata_hal_buffer_release(zeroed);
  // Small uninitialized buffers are allocator memory, aligned.
  strata_hal_buffer_t* small = nullptr;
  REQUIRE(consume(strata_hal_buffer_allocate_uninitialized(
              strata_allocator_system(), 100, &small)) == "OK");
  CHECK(strata_hal_buffer_length(small) == 100);
  strata_hal_buffer_release(small);
}

TEST_CASE("a kept mapping serves uninitialized buffers while large enough") {
  // A buffer whose size changes from call to call (a slab sized by dynamic
  // shapes): a smaller one takes the mapping back, a larger one maps anew.
  // Sizes above any other test's, so that their kept mappings never fit
  // better.
  const uint64_t large = 12 * STRATA_HAL_LARGE_BUFFER_BYTES;
  strata_hal_buffer_t* first = nullptr;
  REQUIRE(consume(strata_hal_buffer_allocate_uninitialized(
              strata_allocator_system(), large, &first)) == "OK");
  uint8_t* first_ptr = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(first, 0, large, &first_ptr)) == "OK");
  std::memset(first_ptr, 0x7e, large);
  strata_hal_buffer_release(first);
  // Smaller (and not a multiple of a page).
  const uint64_t smaller = 9 * STRATA_HAL_LARGE_BUFFER_BYTES + 17;
  strata_hal_buffer_t* second = nullptr;
  REQUIRE(consume(strata_hal_buffer_allocate_uninitialized(
              strata_allocator_system(), smaller, &second)) == "OK");
  CHECK(strata_hal_buffer_length(second) == smaller);
  uint8_t* second_ptr = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(second, 0, smaller, &second_ptr)) ==
          "OK");
  CHECK(second_ptr == first_ptr);
  CHECK(second_ptr[smaller - 1] == 0x7e);
  // The whole range past the length stays out of reach.
  uint8_t* past = nullptr;
  CHECK(consume(strata_hal_buffer_map(second, 0, smaller + 1, &past)) != "OK");
  // While it is in use, a request of the same size gets other memory.
  strata_hal_buffer_t* third = nullptr;
  REQUIRE(consume(strata_hal_buffer_allocate_uninitialized(
              strata_allocator_system(), smaller, &third)) == "OK");
  uint8_t* third_ptr = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(third, 0, smaller, &third_ptr)) ==
          "OK");
  CHECK(third_ptr != second_ptr);
  std::memset(third_ptr, 0x11, smaller);
  strata_hal_buffer_release(third);
  strata_hal_buffer_release(second);
  // Both are kept; the smallest that fits is taken: the third's.
  strata_hal_buffer_t* fourth = nullptr;
  REQUIRE(consume(strata_hal_buffer_allocate_uninitialized(
              strata_allocator_system(), smaller - 4096, &fourth)) == "OK");
  uint8_t* fourth_ptr = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(fourth, 0, smaller - 4096,
                                        &fourth_ptr)) == "OK");
  CHECK(fourth_ptr == third_ptr);
  // Larger than every kept mapping: new pages, which grow the cache.
  strata_hal_buffer_t* fifth = nullptr;
  REQUIRE(consume(strata_hal_buffer_allocate_uninitialized(
              strata_allocator_system(), large + 1, &fifth)) == "OK");
  uint8_t* fifth_ptr = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(fifth, 0, large + 1, &fifth_ptr)) ==
          "OK");
  CHECK(fifth_ptr != first_ptr);
  CHECK(fifth_ptr != fourth_ptr);
  fifth_ptr[large] = 1;  // writable to its last byte
  strata_hal_buffer_release(fourth);
  strata_hal_buffer_release(fifth);
}

TEST_CASE("uninitialized medium buffers reuse mappings too, page-rounded") {
  // Between STRATA_HAL_REUSED_BUFFER_BYTES and the large size: whole pages,
  // taken back by the next allocation of the same page count.
  const uint64_t length = STRATA_HAL_REUSED_BUFFER_BYTES + 4096 * 7 + 12;
  CountingAllocator counter;
  strata_hal_buffer_t* first = nullptr;
  REQUIRE(consume(strata_hal_buffer_allocate_uninitialized(
              counter.get(), length, &first)) == "OK");
  CHECK(counter.live == 1);  // the record only: the bytes are mapped
  uint8_t* first_ptr = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(first, 0, length, &first_ptr)) == "OK");
  CHECK(reinterpret_cast<uintptr_t>(first_ptr) % 4096 == 0);
  std::memset(first_ptr, 0x3c, length);
  strata_hal_buffer_release(first);
  strata_hal_buffer_t* second = nullptr;
  REQUIRE(consume(strata_hal_buffer_allocate_uninitialized(
              counter.get(), length + 100, &second)) == "OK");
  uint8_t* second_ptr = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(second, 0, length + 100,
                                        &second_ptr)) == "OK");
  CHECK(second_ptr == first_ptr);
  CHECK(second_ptr[length - 1] == 0x3c);
  strata_hal_buffer_release(second);
  // Zeroed medium buffers stay allocator memory, zero.
  strata_hal_buffer_t* zeroed = nullptr;
  REQUIRE(consume(strata_hal_buffer_allocate(counter.get(), length, &zeroed)) ==
          "OK");
  uint8_t* zeroed_ptr = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(zeroed, 0, length, &zeroed_ptr)) ==
          "OK");
  CHECK(zeroed_ptr[length - 1] == 0);
  strata_hal_buffer_release(zeroed);
  CHECK(counter.live == 0);
}

TEST_CASE("is a hal.buffer ref object") {
  strata_hal_buffer_t* buffer = allocate(8);
  strata_vm_ref_object_t* ref = strata_hal_buffer_as_ref(buffer);
  CHECK(std::string(ref->type->name) == "hal.buffer");
  CHECK(strata_hal_buffer_from_ref(ref) == buffer);
  Owner owner;
  strata_vm_ref_object_init(&owner.header, &kOwnerType);
  CHECK(strata_hal_buffer_from_ref(&owner.header) == nullptr);
  CHECK(strata_hal_buffer_from_ref(nullptr) == nullptr);
  strata_hal_buffer_release(buffer);
}

TEST_CASE("frees everything it allocates") {
  CountingAllocator counter;
  strata_hal_buffer_t* buffer = allocate(100, counter.get());
  CHECK(counter.live == 1);
  CHECK(counter.last_alignment == 64);
  strata_hal_buffer_t* span = nullptr;
  REQUIRE(consume(strata_hal_buffer_subspan(buffer, 4, 8, counter.get(),
                                            &span)) == "OK");
  CHECK(counter.live == 2);
  strata_hal_buffer_release(buffer);
  strata_hal_buffer_release(span);
  CHECK(counter.live == 0);
}

TEST_CASE("reports out of memory as RESOURCE_EXHAUSTED") {
  CountingAllocator counter;
  counter.fail = true;
  strata_hal_buffer_t* buffer = nullptr;
  std::string text = consume(
      strata_hal_buffer_allocate(counter.get(), 128, &buffer));
  CHECK(text.rfind("RESOURCE_EXHAUSTED", 0) == 0);
  CHECK(buffer == nullptr);
  text = consume(strata_hal_buffer_allocate(strata_allocator_system(),
                                            UINT64_MAX, &buffer));
  CHECK(text.find("too large") != std::string::npos);
}

TEST_CASE("map checks ranges without overflowing and names them") {
  strata_hal_buffer_t* buffer = allocate(16);
  uint8_t* ptr = nullptr;
  CHECK(consume(strata_hal_buffer_map(buffer, 16, 0, &ptr)) == "OK");
  CHECK(consume(strata_hal_buffer_map(buffer, 8, 8, &ptr)) == "OK");
  std::string text = consume(strata_hal_buffer_map(buffer, 8, 9, &ptr));
  CHECK(text ==
        "OUT_OF_RANGE: range of 9 bytes at offset 8 is out of bounds of a "
        "hal.buffer of 16 bytes");
  CHECK(ptr == nullptr);
  // offset + length wraps around 2^64.
  text = consume(strata_hal_buffer_map(buffer, 8, UINT64_MAX - 3, &ptr));
  CHECK(text.rfind("OUT_OF_RANGE", 0) == 0);
  text = consume(strata_hal_buffer_map(buffer, UINT64_MAX, 2, &ptr));
  CHECK(text.find("hal.buffer of 16 bytes") != std::string::npos);
  text = consume(strata_hal_buffer_map(nullptr, 0, 0, &ptr));
  CHECK(text.rfind("INVALID_ARGUMENT", 0) == 0);
  strata_hal_buffer_release(buffer);
}

TEST_CASE("subspans share memory and keep their parent alive") {
  strata_hal_buffer_t* buffer = allocate(32);
  uint8_t* base = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(buffer, 0, 32, &base)) == "OK");
  strata_hal_buffer_t* span = nullptr;
  REQUIRE(consume(strata_hal_buffer_subspan(buffer, 8, 16,
                                            strata_allocator_system(),
                                            &span)) == "OK");
  CHECK(strata_hal_buffer_length(span) == 16);
  CHECK(strata_vm_ref_count(strata_hal_buffer_as_ref(buffer)) == 2);
  // A subspan of the subspan, checked against the subspan's own length.
  strata_hal_buffer_t* inner = nullptr;
  std::string text = consume(strata_hal_buffer_subspan(
      span, 8, 9, strata_allocator_system(), &inner));
  CHECK(text ==
        "OUT_OF_RANGE: subspan of 9 bytes at offset 8 is out of bounds of a "
        "hal.buffer of 16 bytes");
  REQUIRE(consume(strata_hal_buffer_subspan(span, 4, 4,
                                            strata_allocator_system(),
                                            &inner)) == "OK");
  strata_hal_buffer_release(buffer);
  strata_hal_buffer_release(span);
  // inner alone keeps the chain alive; writes land in the original memory.
  uint8_t* ptr = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(inner, 0, 4, &ptr)) == "OK");
  CHECK(ptr == base + 12);
  std::memset(ptr, 0xAB, 4);
  CHECK(base[12] == 0xAB);
  CHECK(base[15] == 0xAB);
  strata_hal_buffer_release(inner);
}

TEST_CASE("wraps caller memory and retains its owner") {
  Owner owner;
  strata_vm_ref_object_init(&owner.header, &kOwnerType);
  strata_hal_buffer_t* buffer = nullptr;
  REQUIRE(consume(strata_hal_buffer_wrap(owner.bytes, sizeof(owner.bytes),
                                         &owner.header,
                                         strata_allocator_system(),
                                         &buffer)) == "OK");
  CHECK(strata_vm_ref_count(&owner.header) == 2);
  uint8_t* ptr = nullptr;
  REQUIRE(consume(strata_hal_buffer_map(buffer, 4, 4, &ptr)) == "OK");
  CHECK(ptr == owner.bytes + 4);
  strata_vm_ref_release(&owner.header);
  CHECK(owner.destroyed == 0);
  strata_hal_buffer_release(buffer);
  CHECK(owner.destroyed == 1);

  std::string text = consume(strata_hal_buffer_wrap(
      nullptr, 4, nullptr, strata_allocator_system(), &buffer));
  CHECK(text.rfind("INVALID_ARGUMENT", 0) == 0);
  REQUIRE(consume(strata_hal_buffer_wrap(nullptr, 0, nullptr,
                                         strata_allocator_system(),
                                         &buffer)) == "OK");
  CHECK(consume(strata_hal_buffer_map(buffer, 0, 0, &ptr)) == "OK");
  CHECK(ptr != nullptr);
  strata_hal_buffer_release(buffer);
}

TEST_CASE("element type names round-trip") {
  const strata_hal_element_type_t types[] = {
      STRATA_HAL_ELEMENT_TYPE_BOOL_8,   STRATA_HAL_ELEMENT_TYPE_INT_8,
      STRATA_HAL_ELEMENT_TYPE_INT_16,   STRATA_HAL_ELEMENT_TYPE_INT_32,
      STRATA_HAL_ELEMENT_TYPE_INT_64,   STRATA_HAL_ELEMENT_TYPE_SINT_8,
      STRATA_HAL_ELEMENT_TYPE_SINT_16,  STRATA_HAL_ELEMENT_TYPE_SINT_32,
      STRATA_HAL_ELEMENT_TYPE_SINT_64,  STRATA_HAL_ELEMENT_TYPE_UINT_8,
      STRATA_HAL_ELEMENT_TYPE_UINT_16,  STRATA_HAL_ELEMENT_TYPE_UINT_32,
      STRATA_HAL_ELEMENT_TYPE_UINT_64,  STRATA_HAL_ELEMENT_TYPE_FLOAT_16,
      STRATA_HAL_ELEMENT_TYPE_FLOAT_32, STRATA_HAL_ELEMENT_TYPE_FLOAT_64,
  };
  for (strata_hal_element_type_t type : types) {
    const char* name = strata_hal_element_type_name(type);
    REQUIRE(name != nullptr);
    CHECK(strata_hal_element_type_parse(name, std::strlen(name)) == type);
  }
  CHECK(std::string(strata_hal_element_type_name(
            STRATA_HAL_ELEMENT_TYPE_BOOL_8)) == "i1");
  CHECK(std::string(strata_hal_element_type_name(
            STRATA_HAL_ELEMENT_TYPE_FLOAT_32)) == "f32");
  CHECK(std::string(strata_hal_element_type_name(
            STRATA_HAL_ELEMENT_TYPE_SINT_16)) == "si16");
  CHECK(std::string(strata_hal_element_type_name(
            STRATA_HAL_ELEMENT_TYPE_UINT_64)) == "ui64");
  CHECK(strata_hal_element_type_parse("i1", 2) ==
        STRATA_HAL_ELEMENT_TYPE_BOOL_8);
  CHECK(strata_hal_element_byte_size(STRATA_HAL_ELEMENT_TYPE_BOOL_8) ==
        1);
  // Length-delimited: "f32x" read as 3 characters is f32.
  CHECK(strata_hal_element_type_parse("f32x", 3) ==
        STRATA_HAL_ELEMENT_TYPE_FLOAT_32);
  CHECK(strata_hal_element_type_parse("f32x", 4) ==
        STRATA_HAL_ELEMENT_TYPE_NONE);
  CHECK(strata_hal_element_type_parse("f8", 2) == STRATA_HAL_ELEMENT_TYPE_NONE);
  CHECK(strata_hal_element_type_parse(nullptr, 0) ==
        STRATA_HAL_ELEMENT_TYPE_NONE);
  CHECK(strata_hal_element_type_name(STRATA_HAL_ELEMENT_TYPE_NONE) == nullptr);
  CHECK(strata_hal_element_type_name(0x12345678u) == nullptr);
}

TEST_CASE("views validate their size against the buffer") {
  strata_hal_buffer_t* buffer = allocate(24);
  const int64_t shape[] = {2, 3};
  strata_hal_buffer_view_t* view = nullptr;
  REQUIRE(consume(strata_hal_buffer_view_create(
              buffer, shape, 2, STRATA_HAL_ELEMENT_TYPE_FLOAT_32,
              strata_allocator_system(), &view)) == "OK");
  CHECK(strata_hal_buffer_view_rank(view) == 2);
  CHECK(strata_hal_buffer_view_dim(view, 0) == 2);
  CHECK(strata_hal_buffer_view_dim(view, 1) == 3);
  CHECK(strata_hal_buffer_view_dim(view, 2) == 0);
  CHECK(strata_hal_buffer_view_shape(view)[1] == 3);
  CHECK(strata_hal_buffer_view_element_type(view) ==
        STRATA_HAL_ELEMENT_TYPE_FLOAT_32);
  CHECK(strata_hal_buffer_view_byte_length(view) == 24);
  CHECK(strata_hal_buffer_view_buffer(view) == buffer);
  CHECK(std::string(strata_hal_buffer_view_as_ref(view)->type->name) ==
        "hal.buffer_view");
  CHECK(strata_hal_buffer_view_from_ref(strata_hal_buffer_view_as_ref(view)) ==
        view);
  CHECK(strata_hal_buffer_view_from_ref(strata_hal_buffer_as_ref(buffer)) ==
        nullptr);
  // The view keeps its buffer alive.
  CHECK(strata_vm_ref_count(strata_hal_buffer_as_ref(buffer)) == 2);
  strata_hal_buffer_view_release(view);
  CHECK(strata_vm_ref_count(strata_hal_buffer_as_ref(buffer)) == 1);

  const int64_t too_big[] = {2, 4};
  std::string text = consume(strata_hal_buffer_view_create(
      buffer, too_big, 2, STRATA_HAL_ELEMENT_TYPE_FLOAT_32,
      strata_allocator_system(), &view));
  CHECK(text ==
        "OUT_OF_RANGE: hal.buffer_view of 2 dims of f32 needs 32 bytes but "
        "the hal.buffer has 24");
  CHECK(view == nullptr);

  const int64_t negative[] = {2, -1};
  text = consume(strata_hal_buffer_view_create(
      buffer, negative, 2, STRATA_HAL_ELEMENT_TYPE_INT_8,
      strata_allocator_system(), &view));
  CHECK(text.find("dim 1 is negative") != std::string::npos);

  const int64_t overflow[] = {INT64_MAX, INT64_MAX};
  text = consume(strata_hal_buffer_view_create(
      buffer, overflow, 2, STRATA_HAL_ELEMENT_TYPE_INT_8,
      strata_allocator_system(), &view));
  CHECK(text.find("overflows") != std::string::npos);

  int64_t deep[STRATA_HAL_MAX_RANK + 1] = {};
  text = consume(strata_hal_buffer_view_create(
      buffer, deep, STRATA_HAL_MAX_RANK + 1, STRATA_HAL_ELEMENT_TYPE_INT_8,
      strata_allocator_system(), &view));
  CHECK(text.find("exceeds the maximum rank 16") != std::string::npos);

  text = consume(strata_hal_buffer_view_create(
      buffer, shape, 2, STRATA_HAL_ELEMENT_TYPE_NONE,
      strata_allocator_system(), &view));
  CHECK(text.rfind("INVALID_ARGUMENT", 0) == 0);

  // A zero dim, and rank 0 (a scalar of one element).
  const int64_t empty[] = {0, 5};
  REQUIRE(consume(strata_hal_buffer_view_create(
              buffer, empty, 2, STRATA_HAL_ELEMENT_TYPE_FLOAT_64,
              strata_allocator_system(), &view)) == "OK");
  CHECK(strata_hal_buffer_view_byte_length(view) == 0);
  strata_hal_buffer_view_release(view);
  REQUIRE(consume(strata_hal_buffer_view_create(
              buffer, nullptr, 0, STRATA_HAL_ELEMENT_TYPE_INT_64,
              strata_allocator_system(), &view)) == "OK");
  CHECK(strata_hal_buffer_view_byte_length(view) == 8);
  strata_hal_buffer_view_release(view);
  strata_hal_buffer_release(buffer);
}

}  // TEST_SUITE
