// session.cpp - the embedding API's session: one VM context over the hal
// module and the user's modules.
#include <string>
#include <vector>

#include "runtime_impl.h"

using namespace strata::runtime;

namespace {

void destroySession(strata_runtime_session_t* session) {
  if (session->context) {
    strata_vm_context_release(session->context);
  }
  for (strata_vm_module_t* module : session->modules) {
    strata_vm_module_release(module);
  }
  strata_runtime_instance_t* instance = session->instance;
  freeObject(session->allocator, session);
  strata_runtime_instance_release(instance);
}

}  // namespace

extern "C" {

strata_status_t strata_runtime_session_create(
    strata_runtime_instance_t* instance,
    const strata_runtime_session_options_t* options,
    strata_vm_module_t* const* modules, size_t module_count,
    strata_allocator_t allocator, strata_runtime_session_t** out_session) {
  *out_session = nullptr;
  if (module_count == 0 || !modules) {
    return strata_make_status(
        STRATA_STATUS_INVALID_ARGUMENT,
        "a session needs at least one module (the main module is the last)");
  }
  for (size_t i = 0; i < module_count; ++i) {
    if (!modules[i]) {
      return strata_make_status(STRATA_STATUS_INVALID_ARGUMENT,
                                "module %zu of %zu given to the session is NULL",
                                i, module_count);
    }
  }
  auto* session = allocateObject<strata_runtime_session_t>(allocator);
  if (!session) {
    return strata_make_status(STRATA_STATUS_RESOURCE_EXHAUSTED,
                              "out of memory creating a session");
  }
  session->allocator = allocator;
  session->instance = instance;
  strata_runtime_instance_retain(instance);
  session->modules.reserve(module_count + 1);
  session->modules.push_back(instance->hal_module);
  strata_vm_module_retain(instance->hal_module);
  for (size_t i = 0; i < module_count; ++i) {
    session->modules.push_back(modules[i]);
    strata_vm_module_retain(modules[i]);
  }
  strata_status_t status = strata_vm_context_create(
      instance->vm_instance, session->modules.data(), session->modules.size(),
      options ? options->context_options : nullptr, allocator,
      &session->context);
  if (status) {
    destroySession(session);
    return strata_status_annotate(status, "creating a session of %zu module%s",
                                  module_count, module_count == 1 ? "" : "s");
  }
  *out_session = session;
  return nullptr;
}

strata_status_t strata_runtime_session_create_from_file(
    strata_runtime_instance_t* instance, const char* path,
    strata_runtime_session_t** out_session) {
  *out_session = nullptr;
  strata_vm_module_t* module = nullptr;
  STRATA_RETURN_IF_ERROR(
      strata_runtime_module_load_file(instance, path, &module));
  strata_status_t status = strata_runtime_session_create(
      instance, nullptr, &module, 1, instance->allocator, out_session);
  strata_vm_module_release(module);
  return status;
}

void strata_runtime_session_retain(strata_runtime_session_t* session) {
  if (session) {
    session->counter.fetch_add(1, std::memory_order_relaxed);
  }
}

void strata_runtime_session_release(strata_runtime_session_t* session) {
  if (session &&
      session->counter.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    destroySession(session);
  }
}

strata_vm_context_t* strata_runtime_session_context(
    const strata_runtime_session_t* session) {
  return session->context;
}

strata_vm_module_t* strata_runtime_session_main_module(
    const strata_runtime_session_t* session) {
  return session->modules.back();
}

strata_runtime_instance_t* strata_runtime_session_instance(
    const strata_runtime_session_t* session) {
  return session->instance;
}

}  // extern "C"
