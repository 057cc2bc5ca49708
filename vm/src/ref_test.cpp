// ref_test.cpp - unit tests for intrusive reference counting (ref.h).
#include <doctest/doctest.h>

#include <thread>
#include <vector>

#include "strata/vm/ref.h"

namespace {

// A test object that counts how often it was destroyed instead of freeing.
struct Probe {
  strata_vm_ref_object_t header;
  int destroyed = 0;
};

void destroyProbe(strata_vm_ref_object_t* object) {
  reinterpret_cast<Probe*>(object)->destroyed++;
}

const strata_vm_ref_type_t kProbeType = {"test.probe", destroyProbe};
const strata_vm_ref_type_t kOtherType = {"test.other", destroyProbe};

// A heap object freeing itself, for leak checks under LSan.
struct Heap {
  strata_vm_ref_object_t header;
  int* destroyed;
};

void destroyHeap(strata_vm_ref_object_t* object) {
  auto* heap = reinterpret_cast<Heap*>(object);
  (*heap->destroyed)++;
  delete heap;
}

const strata_vm_ref_type_t kHeapType = {"test.heap", destroyHeap};

}  // namespace

TEST_SUITE("vm.ref") {

TEST_CASE("a new object starts with one reference held by its creator") {
  Probe probe;
  strata_vm_ref_object_init(&probe.header, &kProbeType);
  CHECK(strata_vm_ref_count(&probe.header) == 1);
  CHECK(probe.header.type == &kProbeType);
  CHECK(probe.header.reserved == 0);
}

TEST_CASE("retain and release adjust the count without destroying early") {
  Probe probe;
  strata_vm_ref_object_init(&probe.header, &kProbeType);
  strata_vm_ref_retain(&probe.header);
  strata_vm_ref_retain(&probe.header);
  CHECK(strata_vm_ref_count(&probe.header) == 3);
  strata_vm_ref_release(&probe.header);
  strata_vm_ref_release(&probe.header);
  CHECK(strata_vm_ref_count(&probe.header) == 1);
  CHECK(probe.destroyed == 0);
}

TEST_CASE("releasing the last reference destroys the object exactly once") {
  int destroyed = 0;
  auto* heap = new Heap;
  heap->destroyed = &destroyed;
  strata_vm_ref_object_init(&heap->header, &kHeapType);
  strata_vm_ref_retain(&heap->header);
  strata_vm_ref_release(&heap->header);
  CHECK(destroyed == 0);
  strata_vm_ref_release(&heap->header);
  CHECK(destroyed == 1);
}

TEST_CASE("null refs are ignored by retain, release, count and isa") {
  strata_vm_ref_retain(nullptr);
  strata_vm_ref_release(nullptr);
  CHECK(strata_vm_ref_count(nullptr) == 0);
  CHECK(strata_vm_ref_isa(nullptr, &kProbeType) == 0);
}

TEST_CASE("isa matches the exact registered type only") {
  Probe probe;
  strata_vm_ref_object_init(&probe.header, &kProbeType);
  CHECK(strata_vm_ref_isa(&probe.header, &kProbeType) != 0);
  CHECK(strata_vm_ref_isa(&probe.header, &kOtherType) == 0);
}

TEST_CASE("concurrent retains and releases keep an exact count") {
  int destroyed = 0;
  auto* heap = new Heap;
  heap->destroyed = &destroyed;
  strata_vm_ref_object_init(&heap->header, &kHeapType);
  constexpr int kThreads = 8;
  constexpr int kIterations = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([heap] {
      for (int i = 0; i < kIterations; ++i) {
        strata_vm_ref_retain(&heap->header);
        strata_vm_ref_retain(&heap->header);
        strata_vm_ref_release(&heap->header);
        strata_vm_ref_release(&heap->header);
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  CHECK(strata_vm_ref_count(&heap->header) == 1);
  CHECK(destroyed == 0);
  strata_vm_ref_release(&heap->header);
  CHECK(destroyed == 1);
}

TEST_CASE("the last release from any thread destroys the object once") {
  int destroyed = 0;
  auto* heap = new Heap;
  heap->destroyed = &destroyed;
  strata_vm_ref_object_init(&heap->header, &kHeapType);
  constexpr int kThreads = 8;
  for (int t = 1; t < kThreads; ++t) {
    strata_vm_ref_retain(&heap->header);
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([heap] { strata_vm_ref_release(&heap->header); });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  CHECK(destroyed == 1);
}

}  // TEST_SUITE("vm.ref")
