// module.cpp - strata._strata, the native module of the strata package:
// the Python classes over the embedding API (strata/runtime.h). The
// package's __init__.py is the documented surface.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "errors.h"
#include "session.h"
#include "values.h"

namespace py = pybind11;
using namespace strata::python;

PYBIND11_MODULE(_strata, m) {
  m.doc() = "Native module of the strata package (see strata.__doc__).";

  py::class_<Instance, std::shared_ptr<Instance>>(
      m, "Instance",
      "A VM instance and its device, shared by the sessions made from it.")
      .def(py::init(&Instance::create), py::arg("device") = "local-task",
           py::arg("task_workers") = 0,
           "device: 'local-task' (worker threads) or 'local-sync' (inline); "
           "task_workers: local-task threads, 0 for one per core.")
      .def_property_readonly("device", &Instance::device)
      .def_property_readonly("task_workers", &Instance::taskWorkers)
      .def_property_readonly(
          "vm_instance",
          [](const Instance& instance) {
            // For C++ extensions that register ref types or make native
            // modules: a strata_vm_instance_t* that keeps the instance
            // alive while the capsule lives.
            strata_runtime_instance_t* runtime = instance.get();
            strata_runtime_instance_retain(runtime);
            py::capsule capsule(strata_runtime_instance_vm_instance(runtime),
                                "strata_vm_instance_t", [](PyObject* object) {
                                  strata_runtime_instance_release(
                                      static_cast<strata_runtime_instance_t*>(
                                          PyCapsule_GetContext(object)));
                                });
            PyCapsule_SetContext(capsule.ptr(), runtime);
            return capsule;
          },
          "A capsule of the instance's strata_vm_instance_t* (named "
          "'strata_vm_instance_t'), for native code.")
      .def("shutdown", &Instance::shutdown,
           "Stops the loop of asynchronous calls: those in flight fail with "
           "strata.CancelledError, later ones are refused.")
      .def("__repr__", [](const Instance& instance) {
        return "<strata.Instance device='" + instance.device() + "'>";
      });

  py::class_<Fence>(m, "Fence",
                    "A fence: a wait= gate for asynchronous calls that the "
                    "host signals or fails.")
      .def(py::init<>())
      .def("signal", &Fence::signal, "Reaches the fence.")
      .def("fail", &Fence::fail, py::arg("message"),
           "Fails the fence (and whatever waits for it) with message.")
      .def_property_readonly("reached", &Fence::reached)
      .def("wait", &Fence::wait, py::arg("timeout") = py::none(),
           "Blocks until reached (without the GIL); raises its failure or "
           "strata.DeadlineExceededError.");

  py::class_<Ref>(m, "Ref",
                  "A ref result with no Python conversion (a vm.list, a "
                  "fence...); pass it back into calls.")
      .def_property_readonly("type_name", &Ref::typeName)
      .def("__repr__", [](const Ref& ref) {
        return "<strata.Ref " + ref.typeName() + ">";
      });

  py::class_<Tensor>(
      m, "Tensor",
      "A tensor that stays in the runtime: a call made with tensors=True "
      "returns its results as Tensors, and a Tensor passed as an argument "
      "goes into the call without a copy. strata.Tensor(array) wraps a "
      "numpy array (no copy; the runtime only reads it).")
      .def(py::init<const py::array&>(), py::arg("array"))
      .def_property_readonly("shape", &Tensor::shape)
      .def_property_readonly("element_type", &Tensor::elementType,
                             "\"f32\", \"ui8\", \"bf16\"...")
      .def_property_readonly("nbytes", &Tensor::byteLength)
      .def("numpy", &Tensor::numpy,
           "A new numpy array holding a copy of the contents.")
      .def(
          "__array__",
          [](const Tensor& tensor, const py::object& dtype) {
            py::array array = tensor.numpy();
            if (dtype.is_none()) {
              return array;
            }
            return py::array(array.attr("astype")(dtype));
          },
          py::arg("dtype") = py::none())
      .def("__repr__", [](const Tensor& tensor) {
        return "<strata.Tensor " + tensor.typeText() + ">";
      });

  py::class_<Function, std::shared_ptr<Function>>(
      m, "Function",
      "One function of a session: call it with numpy arrays and Python "
      "numbers.")
      .def("__call__", &Function::call, py::arg("tensors") = false,
           "Calls the function and returns its result (a tuple for several, "
           "None for none). The GIL is released while it runs. "
           "tensors=True returns tensor results as strata.Tensor (kept in "
           "the runtime, no copy) instead of numpy arrays.")
      .def("call_async", &Function::callAsync, py::arg("wait") = py::none(),
           py::arg("tensors") = false,
           "Starts the call; returns a concurrent.futures.Future of its "
           "results. wait: a strata.Fence to wait for first. tensors as for "
           "calls.")
      .def_property_readonly("name", &Function::name)
      .def_property_readonly("full_name", &Function::fullName)
      .def_property_readonly("calling_convention", &Function::callingConvention)
      .def_property_readonly("arguments", &Function::argumentTypes)
      .def_property_readonly("results", &Function::resultTypes)
      .def_property_readonly("signature", &Function::signature)
      .def_property_readonly("has_async_entry", &Function::hasAsyncEntry)
      .def_property_readonly("attributes", &Function::attributes)
      .def("__repr__", [](const Function& function) {
        return "<strata.Function " + function.fullName() +
               function.signature() + ">";
      });

  py::class_<Session, std::shared_ptr<Session>>(m, "_Session")
      .def(py::init<std::shared_ptr<Instance>, const py::list&>(),
           py::arg("instance"), py::arg("modules"))
      .def_property_readonly("instance", &Session::instance)
      .def_property_readonly("name", &Session::name)
      .def_property_readonly("functions", &Session::functions)
      .def("function", &Session::function, py::arg("name"))
      .def("__contains__", &Session::contains);

  m.def("_shutdown", &shutdownAllInstances,
        "Stops every instance's loop thread (registered with atexit).");
  m.def("_release_deferred", &releaseDeferredReferences);
}
