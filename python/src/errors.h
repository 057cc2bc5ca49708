// errors.h - runtime statuses as Python exceptions: strata.Error and its
// subclasses (strata/_errors.py), carrying the runtime's message and the VM
// backtrace (the status annotations).
#ifndef STRATA_PYTHON_ERRORS_H_
#define STRATA_PYTHON_ERRORS_H_

#include <pybind11/pybind11.h>

#include <string>

#include "strata/base/status.h"

namespace strata::python {

namespace py = pybind11;

/// The exception object for status (consumed; must not be OK): an instance
/// of the strata.Error subclass of its code. Needs the GIL.
py::object exceptionFromStatus(strata_status_t status);

/// Raises status (consumed; must not be OK) as its strata.Error subclass:
/// sets the Python error and throws py::error_already_set. Needs the GIL.
[[noreturn]] void raiseStatus(strata_status_t status);

/// Raises status when it is not OK (consumed either way).
inline void check(strata_status_t status) {
  if (status) {
    raiseStatus(status);
  }
}

/// Raises a strata.Error subclass of code with message, as if the runtime
/// had returned it ("CODE: message").
[[noreturn]] void raiseError(strata_status_code_t code,
                             const std::string& message);

}  // namespace strata::python

#endif  // STRATA_PYTHON_ERRORS_H_
