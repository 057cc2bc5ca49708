// capi_calls.cpp - bench/python's reference: the native module
// _capi_calls times the same calls bench/python/run.py makes through the
// strata package, made directly through the embedding C API
// (strata/runtime.h) from C++, as an embedder would: a reused call, inputs
// copied into new buffer views, the result copied out into a caller buffer.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "strata/runtime.h"

namespace py = pybind11;

namespace {

void check(strata_status_t status) {
  if (!status) {
    return;
  }
  char* text = strata_status_to_string(status);
  std::string message = text ? text : "strata error";
  std::free(text);
  strata_status_free(status);
  throw std::runtime_error(message);
}

// One session and one reused call of one function.
class Caller {
 public:
  Caller(const std::string& module, const std::string& function,
         const std::string& device) {
    strata_runtime_instance_options_t options;
    strata_runtime_instance_options_initialize(&options);
    options.device = device.c_str();
    check(strata_runtime_instance_create(&options, allocator_, &instance_));
    check(strata_runtime_session_create_from_file(instance_, module.c_str(),
                                                  &session_));
    check(strata_runtime_call_create(session_, function.c_str(), allocator_,
                                     &call_));
  }
  ~Caller() {
    strata_runtime_call_destroy(call_);
    strata_runtime_session_release(session_);
    strata_runtime_instance_release(instance_);
  }

  // Nanoseconds per call of fn(i32 a, i32 b) -> i32 over n calls.
  double timeScalars(int32_t a, int32_t b, int64_t n) {
    py::gil_scoped_release release;
    int32_t sum = 0;
    auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < n; ++i) {
      strata_runtime_call_reset(call_);
      check(strata_runtime_call_push_i32(call_, a));
      check(strata_runtime_call_push_i32(call_, b));
      check(strata_runtime_call_invoke(call_));
      int32_t result = 0;
      check(strata_runtime_call_result_i32(call_, 0, &result));
      sum += result;
    }
    auto stop = std::chrono::steady_clock::now();
    if (sum != static_cast<int32_t>(n * (a + b))) {
      throw std::runtime_error("wrong scalar results");
    }
    return std::chrono::duration<double, std::nano>(stop - start).count() / n;
  }

  // Nanoseconds per call of fn(f32 tensor a, f32 tensor b) -> f32 tensor of
  // a's shape over n calls; the last result is written into out.
  double timeTensors(py::array_t<float, py::array::c_style> a,
                     py::array_t<float, py::array::c_style> b,
                     py::array_t<float, py::array::c_style> out, int64_t n) {
    std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
    const float* a_data = a.data();
    const float* b_data = b.data();
    float* out_data = out.mutable_data();
    size_t bytes = static_cast<size_t>(a.nbytes());
    py::gil_scoped_release release;
    auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < n; ++i) {
      strata_hal_buffer_view_t* x = nullptr;
      strata_hal_buffer_view_t* y = nullptr;
      strata_hal_buffer_view_t* result = nullptr;
      strata_runtime_call_reset(call_);
      check(strata_runtime_buffer_view_from_host(
          STRATA_HAL_ELEMENT_TYPE_FLOAT_32, shape.data(), shape.size(), a_data,
          bytes, allocator_, &x));
      check(strata_runtime_buffer_view_from_host(
          STRATA_HAL_ELEMENT_TYPE_FLOAT_32, shape.data(), shape.size(), b_data,
          bytes, allocator_, &y));
      check(strata_runtime_call_push_buffer_view(call_, x));
      check(strata_runtime_call_push_buffer_view(call_, y));
      strata_hal_buffer_view_release(x);
      strata_hal_buffer_view_release(y);
      check(strata_runtime_call_invoke(call_));
      check(strata_runtime_call_result_buffer_view(call_, 0, &result));
      strata_status_t status =
          strata_runtime_buffer_view_to_host(result, out_data, bytes);
      strata_hal_buffer_view_release(result);
      check(status);
    }
    auto stop = std::chrono::steady_clock::now();
    strata_runtime_call_reset(call_);
    return std::chrono::duration<double, std::nano>(stop - start).count() / n;
  }

 private:
  strata_allocator_t allocator_ = strata_allocator_system();
  strata_runtime_instance_t* instance_ = nullptr;
  strata_runtime_session_t* session_ = nullptr;
  strata_runtime_call_t* call_ = nullptr;
};

}  // namespace

PYBIND11_MODULE(_capi_calls, m) {
  py::class_<Caller>(m, "Caller")
      .def(py::init<const std::string&, const std::string&,
                    const std::string&>(),
           py::arg("module"), py::arg("function"), py::arg("device"))
      .def("time_scalars", &Caller::timeScalars)
      .def("time_tensors", &Caller::timeTensors);
}
