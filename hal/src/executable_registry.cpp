// executable_registry.cpp - the process-wide registry of kernel libraries
// linked into the application, loaded by name with load_static.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "executable_impl.h"

namespace strata::hal {
namespace {

// One registration; the name is stored after the struct.
struct Registration {
  Registration* next;
  strata_hal_executable_library_query_fn_t query;
  char name[1];
};

// Function-local so that registration from static constructors in other
// translation units finds it constructed.
struct Registry {
  std::mutex mutex;
  Registration* head = nullptr;  // guarded by mutex; entries live until
                                 // unregistered (or process exit)
};

Registry& registry() {
  static Registry instance;
  return instance;
}

Registration** findLocked(Registry& r, const char* name) {
  Registration** link = &r.head;
  while (*link && strcmp((*link)->name, name) != 0) {
    link = &(*link)->next;
  }
  return link;
}

}  // namespace
}  // namespace strata::hal

using strata::hal::Registration;

extern "C" {

strata_status_t strata_hal_executable_register_static(
    const char* name, strata_hal_executable_library_query_fn_t query) {
  if (!name || !name[0] || !query) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "register_static needs a non-empty name and a "
                              "query function");
  }
  auto& r = strata::hal::registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  Registration** link = strata::hal::findLocked(r, name);
  if (*link) {
    return strata_make_status(STRATA_STATUS_ALREADY_EXISTS,
                              "a static library named '%s' is already "
                              "registered",
                              name);
  }
  size_t length = strlen(name);
  // Plain malloc: the registry outlives any allocator a caller could pass.
  auto* entry =
      static_cast<Registration*>(malloc(sizeof(Registration) + length));
  if (!entry) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory registering static library '%s'",
                              name);
  }
  entry->next = nullptr;
  entry->query = query;
  memcpy(entry->name, name, length + 1);
  *link = entry;
  return nullptr;
}

strata_status_t strata_hal_executable_unregister_static(const char* name) {
  if (!name) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "unregister_static needs a name");
  }
  auto& r = strata::hal::registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  Registration** link = strata::hal::findLocked(r, name);
  Registration* entry = *link;
  if (!entry) {
    return strata_make_status(STRATA_STATUS_NOT_FOUND,
                              "no static library named '%s' is registered",
                              name);
  }
  *link = entry->next;
  free(entry);
  return nullptr;
}

strata_status_t strata_hal_executable_load_static(
    const char* name, strata_allocator_t allocator,
    strata_hal_executable_t** out_executable) {
  if (!name || !out_executable) {
    return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                              "load_static needs a name and an output");
  }
  *out_executable = nullptr;
  strata_hal_executable_library_query_fn_t query = nullptr;
  {
    auto& r = strata::hal::registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    Registration* entry = *strata::hal::findLocked(r, name);
    if (!entry) {
      std::string names;
      for (Registration* it = r.head; it; it = it->next) {
        names += names.empty() ? "'" : ", '";
        names += it->name;
        names += "'";
      }
      return strata_make_status(STRATA_STATUS_NOT_FOUND,
                                "no static library named '%s' is registered "
                                "(registered: %s)",
                                name, names.empty() ? "none" : names.c_str());
    }
    query = entry->query;
  }
  // The query runs outside the lock: it is library code.
  return strata::hal::createExecutable(name, query, nullptr, allocator,
                                       out_executable);
}

}  // extern "C"
