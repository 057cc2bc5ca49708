// Compile.h - the compiler as a library: a program (MLIR text or an ONNX
// model) to a .vmfb module, what strata-compile runs and what the Python
// package's strata.compile calls. Only standard C++ types cross this
// header, so that code built with exceptions and RTTI (a Python extension)
// can call the compiler, which is built without them.

#ifndef STRATA_TOOLS_COMPILE_H
#define STRATA_TOOLS_COMPILE_H

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mlir::strata {

struct CompileOptions {
  /// What the source is: Auto takes an ONNX model when the bytes start
  /// like one (or inputName ends in .onnx), else MLIR text.
  enum class InputType { Auto, Mlir, Onnx };
  /// Std: the standard dialects (func, arith, ..., tosa, util, check);
  /// Vm: one vm.module, assembled as it is.
  enum class Mode { Std, Vm };
  enum class OutputFormat { VmBytecode, VmMlir };

  /// The name diagnostics give the source ("model.mlir"; "-" reads as
  /// "<stdin>").
  std::string inputName = "<source>";
  InputType inputType = InputType::Auto;
  /// ONNX: graph input dims, NAME=DIMS each ("input=1x3x224x224").
  std::vector<std::string> inputShapes;
  /// ONNX: where tensors with external data are read from ("" = the
  /// folder of inputName).
  std::string externalDataDir;
  Mode mode = Mode::Std;
  OutputFormat outputFormat = OutputFormat::VmBytecode;
  /// The phase to stop after ("vm" writes the module; any other phase,
  /// import, input, flow, stream or hal, writes its MLIR) and the phase the
  /// input comes from ("" = the start).
  std::string compileTo = "vm";
  std::string compileFrom;
  /// The kernels' target backend; when targetGiven a target this build
  /// lacks is an error even for programs without kernels.
  std::string target = "llvm-cpu";
  bool targetGiven = false;
  std::string targetCpu = "host";
  std::string targetTriple;
  /// Also export <name>$async for each function with tensors in its
  /// signature (the async-external entry points of the embedding API).
  bool asyncExports = false;
  /// Winograd's F(4x4, 3x3) for the 3x3 stride-1 convolutions the target
  /// takes it for (PipelineOptions::winograd).
  bool winograd = true;
  /// When not empty: an Ed25519 secret key file (strata-keygen's
  /// PREFIX.key) whose key signs the module (docs/security.md).
  std::string signingKeyFile;
  /// Recorded in the module: the compiler and its command line.
  std::string compilerName = "strata-compile";
  std::string compilerVersion;
  std::vector<std::string> compilerFlags;
  /// Print the failing op under an error diagnostic (as the MLIR context
  /// options, from the command line in strata-compile, say); false: never.
  bool printOpOnDiagnostic = false;
  /// strata-compile: apply the --mlir-* pass manager and timing flags of
  /// the command line (registered by the caller).
  bool applyCommandLineOptions = false;
  /// When set, diagnostic text goes here as it is emitted (in pieces)
  /// instead of into CompileResult::diagnostics.
  std::function<void(std::string_view)> diagnosticSink;
};

struct CompileResult {
  bool ok = false;
  /// The .vmfb bytes (or MLIR text, per the options); empty on failure.
  std::string output;
  /// Every diagnostic, as "name:line:col: error: message" lines followed
  /// by the source line and a caret when the location is in the source.
  std::string diagnostics;
};

/// Compiles source (the bytes of the input) in a new MLIRContext with the
/// dialects strata-compile reads. Thread-compatible: concurrent calls each
/// have their own context, but the llvm-cpu target's in-process linker
/// resets LLVM's command-line options, so calls are serialized inside.
CompileResult compileSource(std::string_view source,
                            const CompileOptions &options);

} // namespace mlir::strata

#endif // STRATA_TOOLS_COMPILE_H
