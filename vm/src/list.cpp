// list.cpp - vm.list: a growable array of variants that retains its refs.
//
// Ownership: every REF element holds one reference, taken by set/push (a
// retain) or set_move (the caller's). Elements leave the list through set
// (the old value), resize, clear and destruction, each releasing exactly once.
// Elements are popped before they are released, so a ref destructor that
// touches the list sees it consistent.
#include "strata/vm/list.h"

#include <cstring>
#include <vector>
#include <new>

struct strata_vm_list_t {
  strata_vm_ref_object_t header;  // first: lists are ref objects
  strata_allocator_t allocator;
  strata_vm_variant_t* items;  // capacity slots; NULL when capacity is 0
  size_t size;
  size_t capacity;
  // The slots created with the list, in its own allocation (never freed
  // alone); items starts there and moves to the heap when the list grows.
  strata_vm_variant_t* inline_items;
};

namespace {
// The list header rounded up so that the inline slots after it are aligned.
constexpr size_t kListHeaderSize =
    (sizeof(strata_vm_list_t) + alignof(strata_vm_variant_t) - 1) &
    ~(alignof(strata_vm_variant_t) - 1);
}  // namespace

namespace strata::vm {
namespace {

constexpr size_t kMinimumGrowth = 4;

bool isValidType(strata_vm_value_type_t type) {
  // Compared as an integer: a corrupt type is not one of the enumerators.
  return static_cast<unsigned>(type) <=
         static_cast<unsigned>(STRATA_VM_VALUE_REF);
}

void releaseVariant(const strata_vm_variant_t& value) {
  if (value.type == STRATA_VM_VALUE_REF) {
    strata_vm_ref_release(value.value.ref);
  }
}

// Whether `target` is `from` or is reachable through the lists nested in
// `from`. Lists are the only ref objects user code can nest, so refusing to
// store a list where it can reach its container rules out reference cycles,
// which reference counting could never free.
bool reaches(const strata_vm_list_t* from, const strata_vm_list_t* target) {
  if (from == target) {
    return true;
  }
  // Iterative depth-first walk; the stack grows only with nesting.
  std::vector<const strata_vm_list_t*> pending{from};
  while (!pending.empty()) {
    const strata_vm_list_t* list = pending.back();
    pending.pop_back();
    for (size_t i = 0; i < list->size; ++i) {
      const strata_vm_variant_t& v = list->items[i];
      if (v.type != STRATA_VM_VALUE_REF) continue;
      const strata_vm_list_t* nested = strata_vm_list_from_ref(v.value.ref);
      if (!nested) continue;
      if (nested == target) return true;
      pending.push_back(nested);
    }
  }
  return false;
}

strata_status_t checkNoCycle(const strata_vm_list_t* list,
                             const strata_vm_variant_t& value) {
  if (value.type != STRATA_VM_VALUE_REF) {
    return nullptr;
  }
  const strata_vm_list_t* nested = strata_vm_list_from_ref(value.value.ref);
  if (nested && reaches(nested, list)) {
    return strata_make_status(
        STRATA_STATUS_FAILED_PRECONDITION,
        "storing this vm.list would make a reference cycle (it is, or "
        "contains, the list it is stored into)");
  }
  return nullptr;
}

strata_vm_variant_t emptyVariant() {
  strata_vm_variant_t out;
  out.type = STRATA_VM_VALUE_NONE;
  out.value.bits = 0;
  return out;
}

// Releases elements from the back until size is new_size.
void truncate(strata_vm_list_t* list, size_t new_size) {
  while (list->size > new_size) {
    strata_vm_variant_t dropped = list->items[--list->size];
    list->items[list->size] = emptyVariant();
    releaseVariant(dropped);
  }
}

// Reallocates items to exactly capacity slots (capacity > list->capacity).
strata_status_t reallocate(strata_vm_list_t* list, size_t capacity) {
  if (capacity > SIZE_MAX / sizeof(strata_vm_variant_t)) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "vm.list capacity %zu is too large", capacity);
  }
  auto* items = static_cast<strata_vm_variant_t*>(
      strata_allocator_alloc(list->allocator,
                             capacity * sizeof(strata_vm_variant_t),
                             alignof(strata_vm_variant_t)));
  if (!items) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory growing a vm.list to %zu "
                              "elements",
                              capacity);
  }
  if (list->size) {
    std::memcpy(items, list->items, list->size * sizeof(strata_vm_variant_t));
  }
  if (list->items != list->inline_items) {
    strata_allocator_free(list->allocator, list->items);
  }
  list->items = items;
  list->capacity = capacity;
  return nullptr;
}

// Makes room for at least needed elements, doubling the capacity so that
// repeated pushes cost amortized O(1).
strata_status_t grow(strata_vm_list_t* list, size_t needed) {
  if (needed <= list->capacity) {
    return nullptr;
  }
  size_t doubled = list->capacity > SIZE_MAX / 2 ? SIZE_MAX
                                                 : list->capacity * 2;
  size_t capacity = doubled > needed ? doubled : needed;
  if (capacity < kMinimumGrowth) {
    capacity = kMinimumGrowth;
  }
  return reallocate(list, capacity);
}

strata_status_t outOfRange(const strata_vm_list_t* list, size_t i) {
  return strata_make_status(STRATA_STATUS_OUT_OF_RANGE,
                            "vm.list index %zu is out of range for a list of "
                            "size %zu",
                            i, list->size);
}

strata_status_t checkType(strata_vm_value_type_t type) {
  if (!isValidType(type)) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "vm.list element has an invalid value type %d",
                              static_cast<int>(type));
  }
  return nullptr;
}

void destroyList(strata_vm_ref_object_t* object) {
  auto* list = reinterpret_cast<strata_vm_list_t*>(object);
  truncate(list, 0);
  strata_allocator_t allocator = list->allocator;
  if (list->items != list->inline_items) {
    strata_allocator_free(allocator, list->items);
  }
  list->~strata_vm_list_t();
  strata_allocator_free(allocator, list);
}

const strata_vm_ref_type_t kListType = {"vm.list", destroyList};

}  // namespace
}  // namespace strata::vm

using strata::vm::kListType;

extern "C" {

const strata_vm_ref_type_t* strata_vm_list_type(void) { return &kListType; }

strata_status_t strata_vm_list_create(size_t capacity,
                                      strata_allocator_t allocator,
                                      strata_vm_list_t** out_list) {
  *out_list = nullptr;
  // One allocation holds the list and its first capacity slots.
  if (capacity > (SIZE_MAX - kListHeaderSize) / sizeof(strata_vm_variant_t)) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "vm.list capacity %zu is too large", capacity);
  }
  void* memory = strata_allocator_alloc(
      allocator, kListHeaderSize + capacity * sizeof(strata_vm_variant_t),
      alignof(strata_vm_list_t) > alignof(strata_vm_variant_t)
          ? alignof(strata_vm_list_t)
          : alignof(strata_vm_variant_t));
  if (!memory) {
    return capacity ? strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                         "out of memory creating a vm.list "
                                         "of %zu elements",
                                         capacity)
                    : strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                                         "out of memory creating a vm.list");
  }
  auto* list = new (memory) strata_vm_list_t();
  strata_vm_ref_object_init(&list->header, &kListType);
  list->allocator = allocator;
  list->inline_items =
      capacity ? reinterpret_cast<strata_vm_variant_t*>(
                     static_cast<uint8_t*>(memory) + kListHeaderSize)
               : nullptr;
  list->items = list->inline_items;
  list->size = 0;
  list->capacity = capacity;
  *out_list = list;
  return nullptr;
}

size_t strata_vm_list_size(const strata_vm_list_t* list) { return list->size; }

size_t strata_vm_list_capacity(const strata_vm_list_t* list) {
  return list->capacity;
}

strata_status_t strata_vm_list_reserve(strata_vm_list_t* list,
                                       size_t capacity) {
  if (capacity <= list->capacity) {
    return nullptr;
  }
  return strata::vm::reallocate(list, capacity);
}

strata_status_t strata_vm_list_resize(strata_vm_list_t* list, size_t size) {
  if (size <= list->size) {
    strata::vm::truncate(list, size);
    return nullptr;
  }
  STRATA_RETURN_IF_ERROR(strata::vm::grow(list, size));
  for (size_t i = list->size; i < size; ++i) {
    list->items[i] = strata::vm::emptyVariant();
  }
  list->size = size;
  return nullptr;
}

void strata_vm_list_clear(strata_vm_list_t* list) {
  strata::vm::truncate(list, 0);
}

strata_status_t strata_vm_list_get(const strata_vm_list_t* list, size_t i,
                                   strata_vm_variant_t* out) {
  if (i >= list->size) {
    *out = strata::vm::emptyVariant();
    return strata::vm::outOfRange(list, i);
  }
  *out = list->items[i];
  return nullptr;
}

strata_status_t strata_vm_list_set(strata_vm_list_t* list, size_t i,
                                   strata_vm_variant_t value) {
  if (i >= list->size) {
    return strata::vm::outOfRange(list, i);
  }
  STRATA_RETURN_IF_ERROR(strata::vm::checkType(value.type));
  STRATA_RETURN_IF_ERROR(strata::vm::checkNoCycle(list, value));
  if (value.type == STRATA_VM_VALUE_REF) {
    strata_vm_ref_retain(value.value.ref);
  }
  // Store first, release after: value may be the very ref being replaced.
  strata_vm_variant_t old = list->items[i];
  list->items[i] = value;
  strata::vm::releaseVariant(old);
  return nullptr;
}

strata_status_t strata_vm_list_push(strata_vm_list_t* list,
                                    strata_vm_variant_t value) {
  STRATA_RETURN_IF_ERROR(strata::vm::checkType(value.type));
  STRATA_RETURN_IF_ERROR(strata::vm::checkNoCycle(list, value));
  if (list->size == SIZE_MAX) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "vm.list is full");
  }
  STRATA_RETURN_IF_ERROR(strata::vm::grow(list, list->size + 1));
  if (value.type == STRATA_VM_VALUE_REF) {
    strata_vm_ref_retain(value.value.ref);
  }
  list->items[list->size++] = value;
  return nullptr;
}

// On failure the caller keeps its reference: nothing is taken.
strata_status_t strata_vm_list_set_move(strata_vm_list_t* list, size_t i,
                                        strata_vm_variant_t value) {
  if (i >= list->size) {
    return strata::vm::outOfRange(list, i);
  }
  STRATA_RETURN_IF_ERROR(strata::vm::checkType(value.type));
  STRATA_RETURN_IF_ERROR(strata::vm::checkNoCycle(list, value));
  strata_vm_variant_t old = list->items[i];
  list->items[i] = value;
  strata::vm::releaseVariant(old);
  return nullptr;
}

strata_vm_variant_t* strata_vm_list_data(strata_vm_list_t* list) {
  return list->items;
}

strata_vm_list_t* strata_vm_list_from_ref(strata_vm_ref_object_t* ref) {
  return strata_vm_ref_isa(ref, &kListType)
             ? reinterpret_cast<strata_vm_list_t*>(ref)
             : nullptr;
}

}  // extern "C"
