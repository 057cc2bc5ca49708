// errors.cpp - builds strata.Error exceptions from runtime statuses.
#include "errors.h"

#include <cstdlib>

namespace strata::python {

namespace {

// strata._errors._make, looked up once. Leaked on purpose: a static
// py::object would be released after the interpreter is gone.
py::handle makeError() {
  static py::object* make =
      new py::object(py::module_::import("strata._errors").attr("_make"));
  return *make;
}

}  // namespace

py::object exceptionFromStatus(strata_status_t status) {
  strata_status_code_t code = strata_status_code(status);
  char* text = strata_status_to_string(status);
  py::str full(text ? text : strata_status_code_name(code));
  std::free(text);
  py::str message(strata_status_message(status));
  py::list backtrace;
  size_t count = strata_status_annotation_count(status);
  for (size_t i = 0; i < count; ++i) {
    backtrace.append(py::str(strata_status_annotation(status, i)));
  }
  strata_status_free(status);
  return makeError()(py::str(strata_status_code_name(code)), full, message,
                     backtrace);
}

void raiseStatus(strata_status_t status) {
  py::object error = exceptionFromStatus(status);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())),
                  error.ptr());
  throw py::error_already_set();
}

void raiseError(strata_status_code_t code, const std::string& message) {
  raiseStatus(strata_make_status(code, "%s", message.c_str()));
}

}  // namespace strata::python
