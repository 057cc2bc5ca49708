// list_test.cpp - unit tests for vm.list: growth, element access and the
// ownership of ref elements.
#include <doctest/doctest.h>

#include <string>

#include "strata/vm/buffer.h"
#include "strata/vm/list.h"

namespace {

// Wraps the system allocator, counting live allocations; can be told to fail.
struct CountingAllocator {
  int live = 0;
  int total = 0;
  bool fail = false;

  static void* alloc(void* self, size_t size, size_t alignment) {
    auto* counter = static_cast<CountingAllocator*>(self);
    if (counter->fail) {
      return nullptr;
    }
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

// A ref object that records its destruction and lives on the test's stack.
struct Probe {
  strata_vm_ref_object_t header;
  int destroyed = 0;

  Probe() { strata_vm_ref_object_init(&header, &kType); }
  strata_vm_ref_object_t* ref() { return &header; }
  uint32_t count() const { return strata_vm_ref_count(&header); }

  static void destroy(strata_vm_ref_object_t* object) {
    reinterpret_cast<Probe*>(object)->destroyed++;
  }
  static const strata_vm_ref_type_t kType;
};
const strata_vm_ref_type_t Probe::kType = {"test.probe", Probe::destroy};

strata_vm_list_t* makeList(size_t capacity,
                           strata_allocator_t allocator =
                               strata_allocator_system()) {
  strata_vm_list_t* list = nullptr;
  REQUIRE(strata_vm_list_create(capacity, allocator, &list) == nullptr);
  REQUIRE(list != nullptr);
  return list;
}

strata_vm_variant_t get(strata_vm_list_t* list, size_t i) {
  strata_vm_variant_t out;
  REQUIRE(strata_vm_list_get(list, i, &out) == nullptr);
  return out;
}

}  // namespace

TEST_SUITE("vm.list") {

TEST_CASE("the list type is registered as vm.list") {
  CHECK(std::string(strata_vm_list_type()->name) == "vm.list");
}

TEST_CASE("a new list is empty with the requested capacity") {
  CountingAllocator counter;
  strata_vm_list_t* list = makeList(5, counter.get());
  CHECK(strata_vm_list_size(list) == 0);
  CHECK(strata_vm_list_capacity(list) == 5);
  CHECK(counter.live == 1);  // the list and its first slots, together
  strata_vm_list_release(list);
  CHECK(counter.live == 0);

  // Growing past them moves the items to an allocation of their own; the
  // first slots stay with the list and are never freed alone.
  list = makeList(2, counter.get());
  for (int i = 0; i < 3; ++i) {
    REQUIRE(strata_vm_list_push(list, strata_vm_variant_i32(i)) == nullptr);
  }
  CHECK(counter.live == 2);
  CHECK(strata_vm_list_capacity(list) >= 3);
  strata_vm_variant_t value;
  REQUIRE(strata_vm_list_get(list, 2, &value) == nullptr);
  CHECK(value.value.i32 == 2);
  REQUIRE(strata_vm_list_get(list, 0, &value) == nullptr);
  CHECK(value.value.i32 == 0);
  strata_vm_list_release(list);
  CHECK(counter.live == 0);

  list = makeList(0, counter.get());
  CHECK(strata_vm_list_capacity(list) == 0);
  CHECK(counter.live == 1);
  strata_vm_list_release(list);
  CHECK(counter.live == 0);
}

TEST_CASE("primitive values round-trip with their types") {
  strata_vm_list_t* list = makeList(0);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_i32(-7)) == nullptr);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_i64(1ll << 40)) ==
          nullptr);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_f32(1.5f)) == nullptr);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_f64(-2.25)) == nullptr);
  REQUIRE(strata_vm_list_size(list) == 4);
  CHECK(get(list, 0).type == STRATA_VM_VALUE_I32);
  CHECK(get(list, 0).value.i32 == -7);
  CHECK(get(list, 1).type == STRATA_VM_VALUE_I64);
  CHECK(get(list, 1).value.i64 == (1ll << 40));
  CHECK(get(list, 2).type == STRATA_VM_VALUE_F32);
  CHECK(get(list, 2).value.f32 == 1.5f);
  CHECK(get(list, 3).type == STRATA_VM_VALUE_F64);
  CHECK(get(list, 3).value.f64 == -2.25);
  REQUIRE(strata_vm_list_set(list, 0, strata_vm_variant_f64(3.0)) == nullptr);
  CHECK(get(list, 0).type == STRATA_VM_VALUE_F64);
  CHECK(strata_vm_list_data(list)[1].value.i64 == (1ll << 40));
  strata_vm_list_release(list);
}

TEST_CASE("pushing grows the capacity by doubling") {
  CountingAllocator counter;
  strata_vm_list_t* list = makeList(4, counter.get());
  int allocations = counter.total;
  for (int i = 0; i < 4; ++i) {
    REQUIRE(strata_vm_list_push(list, strata_vm_variant_i32(i)) == nullptr);
  }
  CHECK(counter.total == allocations);  // fits, no reallocation
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_i32(4)) == nullptr);
  CHECK(strata_vm_list_capacity(list) == 8);
  for (int i = 5; i < 9; ++i) {
    REQUIRE(strata_vm_list_push(list, strata_vm_variant_i32(i)) == nullptr);
  }
  CHECK(strata_vm_list_capacity(list) == 16);
  CHECK(counter.total == allocations + 2);
  CHECK(counter.live == 2);  // old item arrays were freed
  for (int i = 0; i < 9; ++i) {
    CHECK(get(list, static_cast<size_t>(i)).value.i32 == i);
  }
  strata_vm_list_release(list);
  CHECK(counter.live == 0);
}

TEST_CASE("reserve only ever grows the capacity") {
  strata_vm_list_t* list = makeList(2);
  REQUIRE(strata_vm_list_reserve(list, 10) == nullptr);
  CHECK(strata_vm_list_capacity(list) == 10);
  REQUIRE(strata_vm_list_reserve(list, 3) == nullptr);
  CHECK(strata_vm_list_capacity(list) == 10);
  CHECK(strata_vm_list_size(list) == 0);
  strata_vm_list_release(list);
}

TEST_CASE("get and set out of range fail naming the index and the size") {
  strata_vm_list_t* list = makeList(8);
  REQUIRE(strata_vm_list_resize(list, 3) == nullptr);
  strata_vm_variant_t out = strata_vm_variant_i32(5);
  strata_status_t status = strata_vm_list_get(list, 3, &out);
  CHECK(strata_status_code(status) == STRATA_STATUS_OUT_OF_RANGE);
  CHECK(std::string(strata_status_message(status)) ==
        "vm.list index 3 is out of range for a list of size 3");
  CHECK(out.type == STRATA_VM_VALUE_NONE);
  strata_status_free(status);

  status = strata_vm_list_set(list, 7, strata_vm_variant_i32(1));
  CHECK(strata_status_code(status) == STRATA_STATUS_OUT_OF_RANGE);
  CHECK(std::string(strata_status_message(status)) ==
        "vm.list index 7 is out of range for a list of size 3");
  strata_status_free(status);
  strata_vm_list_release(list);
}

TEST_CASE("resize grows with empty elements") {
  strata_vm_list_t* list = makeList(0);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_i32(1)) == nullptr);
  REQUIRE(strata_vm_list_resize(list, 5) == nullptr);
  CHECK(strata_vm_list_size(list) == 5);
  CHECK(strata_vm_list_capacity(list) >= 5);
  CHECK(get(list, 0).value.i32 == 1);
  for (size_t i = 1; i < 5; ++i) {
    CHECK(get(list, i).type == STRATA_VM_VALUE_NONE);
    CHECK(get(list, i).value.bits == 0);
  }
  strata_vm_list_release(list);
}

TEST_CASE("elements of an invalid type are rejected") {
  strata_vm_list_t* list = makeList(1);
  REQUIRE(strata_vm_list_resize(list, 1) == nullptr);
  strata_vm_variant_t bad = strata_vm_variant_i32(0);
  bad.type = static_cast<strata_vm_value_type_t>(7);
  strata_status_t status = strata_vm_list_push(list, bad);
  CHECK(strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT);
  strata_status_free(status);
  status = strata_vm_list_set(list, 0, bad);
  CHECK(strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT);
  strata_status_free(status);
  CHECK(strata_vm_list_size(list) == 1);
  strata_vm_list_release(list);
}

TEST_CASE("set and push retain refs; get borrows them") {
  Probe probe;
  strata_vm_list_t* list = makeList(0);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_ref(probe.ref())) ==
          nullptr);
  CHECK(probe.count() == 2);
  REQUIRE(strata_vm_list_resize(list, 2) == nullptr);
  REQUIRE(strata_vm_list_set(list, 1, strata_vm_variant_ref(probe.ref())) ==
          nullptr);
  CHECK(probe.count() == 3);
  strata_vm_variant_t out = get(list, 1);
  CHECK(out.type == STRATA_VM_VALUE_REF);
  CHECK(out.value.ref == probe.ref());
  CHECK(probe.count() == 3);  // get does not retain
  strata_vm_list_release(list);
  CHECK(probe.count() == 1);
  CHECK(probe.destroyed == 0);
}

TEST_CASE("set releases the element it replaces") {
  Probe first;
  Probe second;
  strata_vm_list_t* list = makeList(1);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_ref(first.ref())) ==
          nullptr);
  strata_vm_ref_release(first.ref());  // the list holds the last reference
  CHECK(first.destroyed == 0);
  REQUIRE(strata_vm_list_set(list, 0, strata_vm_variant_ref(second.ref())) ==
          nullptr);
  CHECK(first.destroyed == 1);
  CHECK(second.count() == 2);
  REQUIRE(strata_vm_list_set(list, 0, strata_vm_variant_i32(3)) == nullptr);
  CHECK(second.count() == 1);
  strata_vm_list_release(list);
}

TEST_CASE("setting an element to the ref it already holds keeps it alive") {
  Probe probe;
  strata_vm_list_t* list = makeList(1);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_ref(probe.ref())) ==
          nullptr);
  strata_vm_ref_release(probe.ref());
  REQUIRE(strata_vm_list_set(list, 0, get(list, 0)) == nullptr);
  CHECK(probe.destroyed == 0);
  CHECK(probe.count() == 1);
  strata_vm_list_release(list);
  CHECK(probe.destroyed == 1);
}

TEST_CASE("set_move takes over the caller's reference") {
  Probe probe;
  strata_vm_list_t* list = makeList(1);
  REQUIRE(strata_vm_list_resize(list, 1) == nullptr);
  REQUIRE(strata_vm_list_set_move(list, 0, strata_vm_variant_ref(probe.ref())) ==
          nullptr);
  CHECK(probe.count() == 1);  // no retain: the list now owns the creator's ref
  strata_vm_list_release(list);
  CHECK(probe.destroyed == 1);
}

TEST_CASE("a failed set_move leaves the reference with the caller") {
  Probe probe;
  strata_vm_list_t* list = makeList(1);
  strata_status_t status =
      strata_vm_list_set_move(list, 0, strata_vm_variant_ref(probe.ref()));
  CHECK(strata_status_code(status) == STRATA_STATUS_OUT_OF_RANGE);
  strata_status_free(status);
  CHECK(probe.count() == 1);
  CHECK(probe.destroyed == 0);
  strata_vm_list_release(list);
  CHECK(probe.destroyed == 0);
}

TEST_CASE("shrinking releases exactly the dropped refs") {
  Probe kept;
  Probe dropped;
  strata_vm_list_t* list = makeList(0);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_ref(kept.ref())) ==
          nullptr);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_i32(1)) == nullptr);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_ref(dropped.ref())) ==
          nullptr);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_ref(dropped.ref())) ==
          nullptr);
  CHECK(dropped.count() == 3);
  REQUIRE(strata_vm_list_resize(list, 2) == nullptr);
  CHECK(dropped.count() == 1);
  CHECK(kept.count() == 2);
  // Growing again yields empty elements, not the old refs.
  REQUIRE(strata_vm_list_resize(list, 4) == nullptr);
  CHECK(get(list, 2).type == STRATA_VM_VALUE_NONE);
  CHECK(dropped.count() == 1);
  strata_vm_list_release(list);
  CHECK(kept.count() == 1);
}

TEST_CASE("clear releases every element and keeps the capacity") {
  Probe probe;
  strata_vm_list_t* list = makeList(0);
  for (int i = 0; i < 5; ++i) {
    REQUIRE(strata_vm_list_push(list, strata_vm_variant_ref(probe.ref())) ==
            nullptr);
  }
  size_t capacity = strata_vm_list_capacity(list);
  CHECK(probe.count() == 6);
  strata_vm_list_clear(list);
  CHECK(strata_vm_list_size(list) == 0);
  CHECK(strata_vm_list_capacity(list) == capacity);
  CHECK(probe.count() == 1);
  strata_vm_list_release(list);
}

TEST_CASE("null refs are valid elements") {
  strata_vm_list_t* list = makeList(0);
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_ref(nullptr)) ==
          nullptr);
  strata_vm_variant_t out = get(list, 0);
  CHECK(out.type == STRATA_VM_VALUE_REF);
  CHECK(out.value.ref == nullptr);
  strata_vm_list_clear(list);
  strata_vm_list_release(list);
}

TEST_CASE("a list holding the last reference to a buffer frees it") {
  CountingAllocator counter;
  strata_vm_list_t* list = makeList(0, counter.get());
  strata_vm_buffer_t* buffer = nullptr;
  REQUIRE(strata_vm_buffer_create(32, 0, counter.get(), &buffer) == nullptr);
  REQUIRE(strata_vm_list_push(
              list, strata_vm_variant_ref(strata_vm_buffer_as_ref(buffer))) ==
          nullptr);
  strata_vm_buffer_release(buffer);
  CHECK(counter.live == 3);  // list, items, buffer
  strata_vm_list_release(list);
  CHECK(counter.live == 0);
}

TEST_CASE("lists nest and release their children") {
  CountingAllocator counter;
  strata_vm_list_t* outer = makeList(0, counter.get());
  strata_vm_list_t* inner = makeList(0, counter.get());
  REQUIRE(strata_vm_list_push(inner, strata_vm_variant_i32(1)) == nullptr);
  REQUIRE(strata_vm_list_resize(outer, 1) == nullptr);
  REQUIRE(strata_vm_list_set_move(
              outer, 0, strata_vm_variant_ref(strata_vm_list_as_ref(inner))) ==
          nullptr);
  strata_vm_variant_t out = get(outer, 0);
  CHECK(strata_vm_list_from_ref(out.value.ref) == inner);
  CHECK(strata_vm_ref_count(strata_vm_list_as_ref(inner)) == 1);
  strata_vm_list_release(outer);
  CHECK(counter.live == 0);
}

TEST_CASE("a failed growth leaves the list unchanged") {
  CountingAllocator counter;
  strata_vm_list_t* list = makeList(1, counter.get());
  REQUIRE(strata_vm_list_push(list, strata_vm_variant_i32(9)) == nullptr);
  counter.fail = true;
  strata_status_t status = strata_vm_list_push(list, strata_vm_variant_i32(10));
  CHECK(strata_status_code(status) == STRATA_STATUS_RESOURCE_EXHAUSTED);
  strata_status_free(status);
  status = strata_vm_list_resize(list, 100);
  CHECK(strata_status_code(status) == STRATA_STATUS_RESOURCE_EXHAUSTED);
  strata_status_free(status);
  counter.fail = false;
  CHECK(strata_vm_list_size(list) == 1);
  CHECK(strata_vm_list_capacity(list) == 1);
  CHECK(get(list, 0).value.i32 == 9);
  strata_vm_list_release(list);
  CHECK(counter.live == 0);
}

TEST_CASE("from_ref accepts lists only") {
  strata_vm_list_t* list = makeList(0);
  CHECK(strata_vm_list_from_ref(strata_vm_list_as_ref(list)) == list);
  Probe probe;
  CHECK(strata_vm_list_from_ref(probe.ref()) == nullptr);
  CHECK(strata_vm_list_from_ref(nullptr) == nullptr);
  strata_vm_list_release(list);
}


TEST_CASE("refuses to store a list where it would make a reference cycle") {
  strata_allocator_t allocator = strata_allocator_system();
  strata_vm_list_t* outer = nullptr;
  strata_vm_list_t* inner = nullptr;
  REQUIRE(strata_vm_list_create(1, allocator, &outer) == nullptr);
  REQUIRE(strata_vm_list_create(1, allocator, &inner) == nullptr);
  // Nesting is fine: outer holds inner.
  REQUIRE(strata_vm_list_push(outer, strata_vm_variant_ref(
                                         strata_vm_list_as_ref(inner))) ==
          nullptr);
  // A list into itself, and inner holding outer, would both be cycles.
  strata_status_t self = strata_vm_list_push(
      outer, strata_vm_variant_ref(strata_vm_list_as_ref(outer)));
  CHECK(strata_status_code(self) == STRATA_STATUS_FAILED_PRECONDITION);
  CHECK(std::string(strata_status_message(self)).find("reference cycle") !=
        std::string::npos);
  strata_status_free(self);
  REQUIRE(strata_vm_list_resize(inner, 1) == nullptr);
  strata_status_t back = strata_vm_list_set(
      inner, 0, strata_vm_variant_ref(strata_vm_list_as_ref(outer)));
  CHECK(strata_status_code(back) == STRATA_STATUS_FAILED_PRECONDITION);
  strata_status_free(back);
  strata_status_t moved = strata_vm_list_set_move(
      inner, 0, strata_vm_variant_ref(strata_vm_list_as_ref(outer)));
  CHECK(strata_status_code(moved) == STRATA_STATUS_FAILED_PRECONDITION);
  strata_status_free(moved);
  CHECK(strata_vm_ref_count(strata_vm_list_as_ref(outer)) == 1);
  CHECK(strata_vm_ref_count(strata_vm_list_as_ref(inner)) == 2);
  strata_vm_list_release(inner);
  strata_vm_list_release(outer);
}
}  // TEST_SUITE("vm.list")
