// custom_module_capsule.cpp - a test extension module: samples/custom_module's
// native "custom" module handed to Python as a capsule, the way a C++
// extension adds its own native module to a strata.Session (modules=[...]).
#include <pybind11/pybind11.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "custom_module.h"

namespace py = pybind11;

namespace {

constexpr const char kCapsuleName[] = "strata_vm_module_t";

int not_a_module = 0;

void releaseModule(PyObject* capsule) {
  strata_vm_module_release(static_cast<strata_vm_module_t*>(
      PyCapsule_GetPointer(capsule, kCapsuleName)));
}

}  // namespace

PYBIND11_MODULE(_custom_module_capsule, m) {
  m.def(
      "create",
      [] {
        strata_vm_module_t* module = nullptr;
        strata_status_t status =
            custom_module_create(strata_allocator_system(), &module);
        if (status) {
          char* text = strata_status_to_string(status);
          std::string message = text ? text : "custom_module_create failed";
          std::free(text);
          strata_status_free(status);
          throw std::runtime_error(message);
        }
        // The capsule owns one reference; a session takes its own.
        return py::capsule(module, kCapsuleName, releaseModule);
      },
      "A new 'custom' module (samples/custom_module) as a capsule.");
  m.def(
      "has_type",
      [](py::capsule instance, const std::string& name) {
        auto* vm = static_cast<strata_vm_instance_t*>(
            PyCapsule_GetPointer(instance.ptr(), "strata_vm_instance_t"));
        if (!vm) {
          throw py::error_already_set();
        }
        return strata_vm_instance_lookup_type(vm, name.data(), name.size()) !=
               nullptr;
      },
      "Whether the VM instance in a strata.Instance.vm_instance capsule has "
      "the ref type name registered.");
  m.def(
      "wrong_name",
      [] {
        return py::capsule(static_cast<void*>(&not_a_module), "not_a_module");
      },
      "A capsule under another name, which sessions must refuse.");
}
