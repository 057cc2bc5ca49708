// StrataCompile.cpp - strata-compile, the compiler driver: standard MLIR
// dialects or an ONNX model (or VM dialect input with --compile-mode=vm)
// to a .vmfb module.

#include "Strata/Tools/Compile.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

namespace {

enum class CompileMode { Std, Vm };
enum class OutputFormat { VmBytecode, VmMlir };
enum class InputType { Auto, Mlir, Onnx };

llvm::cl::OptionCategory category("strata-compile options");

llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                         llvm::cl::desc("<input file>"),
                                         llvm::cl::init("-"),
                                         llvm::cl::cat(category));

llvm::cl::opt<std::string> outputFilename("o",
                                          llvm::cl::desc("Output file name"),
                                          llvm::cl::value_desc("filename"),
                                          llvm::cl::init("-"),
                                          llvm::cl::cat(category));

llvm::cl::opt<CompileMode> compileMode(
    "compile-mode", llvm::cl::desc("What the input is"),
    llvm::cl::values(
        clEnumValN(CompileMode::Std, "std",
                   "func, arith, math, scf, cf, index, tensor, linalg, tosa, "
                   "util and check (the default)"),
        clEnumValN(CompileMode::Vm, "vm", "one vm.module, assembled as it is")),
    llvm::cl::init(CompileMode::Std), llvm::cl::cat(category));

llvm::cl::opt<InputType> inputType(
    "input-type", llvm::cl::desc("What the input file is"),
    llvm::cl::values(
        clEnumValN(InputType::Auto, "auto",
                   "an ONNX model when the file starts like one (or is "
                   "named *.onnx), else MLIR text (the default)"),
        clEnumValN(InputType::Mlir, "mlir", "MLIR text"),
        clEnumValN(InputType::Onnx, "onnx",
                   "an ONNX model (ModelProto protobuf)")),
    llvm::cl::init(InputType::Auto), llvm::cl::cat(category));

llvm::cl::list<std::string> inputShapes(
    "input-shape",
    llvm::cl::desc("ONNX: the dimensions of a graph input, NAME=DIMS (for "
                   "example input=1x3x224x224; repeat for several inputs); "
                   "fixes symbolic dimensions such as a batch size"),
    llvm::cl::value_desc("name=dims"), llvm::cl::cat(category));

llvm::cl::opt<OutputFormat> outputFormat(
    "output-format", llvm::cl::desc("What to write"),
    llvm::cl::values(clEnumValN(OutputFormat::VmBytecode, "vm-bytecode",
                                "a .vmfb module file (the default)"),
                     clEnumValN(OutputFormat::VmMlir, "vm-mlir",
                                "the VM dialect module as MLIR text")),
    llvm::cl::init(OutputFormat::VmBytecode), llvm::cl::cat(category));

llvm::cl::opt<std::string> compileTo(
    "compile-to",
    llvm::cl::desc("Stop after this phase and write its MLIR: import, "
                   "input, flow, stream, hal or vm (the default: "
                   "everything)"),
    llvm::cl::value_desc("phase"), llvm::cl::init("vm"),
    llvm::cl::cat(category));

llvm::cl::opt<std::string> compileFrom(
    "compile-from",
    llvm::cl::desc("The input is the MLIR written after this phase "
                   "(--compile-to): import, input, flow, stream, hal or "
                   "vm"),
    llvm::cl::value_desc("phase"), llvm::cl::init(""), llvm::cl::cat(category));

llvm::cl::opt<std::string>
    target("target",
           llvm::cl::desc("Where the kernels run: llvm-cpu (the default) or "
                          "portable (the default in a build without "
                          "llvm-cpu)"),
           llvm::cl::init("llvm-cpu"), llvm::cl::cat(category));

llvm::cl::opt<std::string> targetCpu(
    "target-cpu",
    llvm::cl::desc("llvm-cpu: an LLVM CPU name, or host to detect this "
                   "machine (the default); a comma-separated list makes a "
                   "multi-ISA module with one kernel library per CPU, best "
                   "first (x86-64-multi: x86-64-v4,x86-64-v3,x86-64)"),
    llvm::cl::init("host"), llvm::cl::cat(category));

llvm::cl::opt<std::string> targetTriple(
    "target-triple",
    llvm::cl::desc("llvm-cpu: the kernels' LLVM triple (default: the host's), "
                   "e.g. aarch64-linux-gnu"),
    llvm::cl::init(""), llvm::cl::cat(category));

llvm::cl::opt<std::string> signKey(
    "sign-key",
    llvm::cl::desc("Sign the module with this Ed25519 secret key file "
                   "(strata-keygen; docs/security.md)"),
    llvm::cl::init(""), llvm::cl::cat(category));

llvm::cl::opt<bool> asyncExports(
    "async-exports",
    llvm::cl::desc("Also export <name>$async for each function with tensors "
                   "in its signature: its arguments, then a wait fence and a "
                   "signal fence; it returns once its work is submitted and "
                   "signals the fence when the results are ready"),
    llvm::cl::init(false), llvm::cl::cat(category));

llvm::cl::opt<bool> winograd(
    "winograd",
    llvm::cl::desc("Run 3x3 stride-1 convolutions with constant filters by "
                   "Winograd's F(4x4, 3x3) where the target's kernel takes "
                   "it (the default; docs/compiler.md). --winograd=false "
                   "keeps them on the direct kernel: sums rounded as "
                   "before, and a NaN or infinity reaching only the "
                   "outputs whose windows hold it"),
    llvm::cl::init(true), llvm::cl::cat(category));

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "strata-compile " << STRATA_VERSION << " (LLVM "
       << LLVM_VERSION_STRING << ")\n";
  });
  // libLLVM registers hundreds of backend flags; --help shows ours and
  // MLIR's (--mlir-print-ir-after-all and friends). The rest still parse.
  static llvm::cl::OptionCategory mlirCategory("MLIR options");
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    if (entry.first.starts_with("mlir-")) {
      entry.second->addCategory(mlirCategory);
    }
  }
  llvm::cl::HideUnrelatedOptions({&category, &mlirCategory});
  llvm::cl::ParseCommandLineOptions(argc, argv, "Strata compiler\n");

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << "strata-compile: " << errorMessage << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << "strata-compile: " << errorMessage << "\n";
    return 1;
  }

  if (outputFormat == OutputFormat::VmBytecode && compileTo == "vm" &&
      outputFilename == "-" && llvm::sys::Process::StandardOutIsDisplayed()) {
    llvm::errs() << "strata-compile: not writing a binary module to a "
                    "terminal; give -o FILE\n";
    return 1;
  }

  strata::CompileOptions options;
  options.inputName = inputFilename;
  options.inputType =
      inputType == InputType::Mlir   ? strata::CompileOptions::InputType::Mlir
      : inputType == InputType::Onnx ? strata::CompileOptions::InputType::Onnx
                                     : strata::CompileOptions::InputType::Auto;
  options.inputShapes.assign(inputShapes.begin(), inputShapes.end());
  options.mode = compileMode == CompileMode::Vm
                     ? strata::CompileOptions::Mode::Vm
                     : strata::CompileOptions::Mode::Std;
  options.outputFormat = outputFormat == OutputFormat::VmMlir
                             ? strata::CompileOptions::OutputFormat::VmMlir
                             : strata::CompileOptions::OutputFormat::VmBytecode;
  options.compileTo = compileTo;
  options.compileFrom = compileFrom;
  options.target = target;
  options.targetGiven = target.getNumOccurrences() > 0;
  options.targetCpu = targetCpu;
  options.targetTriple = targetTriple;
  options.asyncExports = asyncExports;
  options.winograd = winograd;
  options.signingKeyFile = signKey;
  options.compilerVersion = STRATA_VERSION;
  options.compilerFlags.assign(argv + 1, argv + argc);
  // An error names its op's location; the whole op (a dispatch function can
  // be long) is printed only on request.
  options.printOpOnDiagnostic =
      llvm::cl::getRegisteredOptions()["mlir-print-op-on-diagnostic"]
          ->getNumOccurrences() > 0;
  options.applyCommandLineOptions = true;
  options.diagnosticSink = [](std::string_view text) {
    llvm::errs() << llvm::StringRef(text.data(), text.size());
  };
  strata::CompileResult result =
      strata::compileSource(input->getBuffer(), options);
  if (!result.ok) {
    return 1;
  }
  output->os() << result.output;
  output->keep();
  return 0;
}
