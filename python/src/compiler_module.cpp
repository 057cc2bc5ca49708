// compiler_module.cpp - strata._compiler, the native module behind
// strata.compile: the compiler as a library (Strata/Tools/Compile.h) in
// this process, not a subprocess. Built only with the compiler; it does not
// link the runtime.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "Strata/Tools/Compile.h"

namespace py = pybind11;
using mlir::strata::CompileOptions;
using mlir::strata::CompileResult;

namespace {

CompileOptions::InputType parseInputType(const std::string& name) {
  if (name == "auto") {
    return CompileOptions::InputType::Auto;
  }
  if (name == "mlir") {
    return CompileOptions::InputType::Mlir;
  }
  if (name == "onnx") {
    return CompileOptions::InputType::Onnx;
  }
  throw py::value_error("input_type is 'auto', 'mlir' or 'onnx', not '" + name +
                        "'");
}

}  // namespace

PYBIND11_MODULE(_compiler, m) {
  m.doc() = "Native module of strata.compile (see strata.compile).";
  m.def(
      "compile",
      [](const py::bytes& source, const std::string& input_name,
         const std::string& input_type, const std::string& target_cpu,
         bool async_exports, const std::vector<std::string>& input_shapes,
         const std::string& external_data_dir,
         const std::vector<std::string>& flags, bool winograd) {
        CompileOptions options;
        options.inputName = input_name;
        options.inputType = parseInputType(input_type);
        options.targetCpu = target_cpu;
        options.asyncExports = async_exports;
        options.inputShapes = input_shapes;
        options.externalDataDir = external_data_dir;
        options.winograd = winograd;
        options.compilerName = "strata.compile";
        options.compilerVersion = STRATA_VERSION;
        options.compilerFlags = flags;
        std::string bytes = source;  // a copy: the GIL goes while compiling
        CompileResult result;
        {
          py::gil_scoped_release release;
          result = mlir::strata::compileSource(bytes, options);
        }
        return py::make_tuple(result.ok, py::bytes(result.output),
                              py::str(result.diagnostics));
      },
      py::arg("source"), py::arg("input_name"), py::arg("input_type"),
      py::arg("target_cpu"), py::arg("async_exports"), py::arg("input_shapes"),
      py::arg("external_data_dir"), py::arg("flags"), py::arg("winograd"),
      "Compiles source (bytes); returns (ok, the module's bytes, the "
      "diagnostics text).");
}
