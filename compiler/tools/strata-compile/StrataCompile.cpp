// StrataCompile.cpp - strata-compile, the compiler driver: standard MLIR
// dialects (or VM dialect input with --compile-mode=vm) to a .vmfb module.

#include "Strata/Dialect/VM/IR/VMDialect.h"
#include "Strata/Dialect/VM/IR/VMOps.h"
#include "Strata/Dialect/Check/IR/CheckOps.h"
#include "Strata/Dialect/Util/IR/UtilOps.h"
#include "Strata/Pipelines/Pipelines.h"
#include "Strata/Target/Bytecode/BytecodeTarget.h"
#include "Strata/Target/TargetBackend.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

namespace {

enum class CompileMode { Std, Vm };
enum class OutputFormat { VmBytecode, VmMlir };

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
        clEnumValN(CompileMode::Vm, "vm",
                   "one vm.module, assembled as it is")),
    llvm::cl::init(CompileMode::Std), llvm::cl::cat(category));

llvm::cl::opt<OutputFormat> outputFormat(
    "output-format", llvm::cl::desc("What to write"),
    llvm::cl::values(
        clEnumValN(OutputFormat::VmBytecode, "vm-bytecode",
                   "a .vmfb module file (the default)"),
        clEnumValN(OutputFormat::VmMlir, "vm-mlir",
                   "the VM dialect module as MLIR text")),
    llvm::cl::init(OutputFormat::VmBytecode), llvm::cl::cat(category));

llvm::cl::opt<std::string> compileTo(
    "compile-to",
    llvm::cl::desc("Stop after this phase and write its MLIR: input, flow, "
                   "stream, hal or vm (the default: everything)"),
    llvm::cl::value_desc("phase"), llvm::cl::init("vm"),
    llvm::cl::cat(category));

llvm::cl::opt<std::string> compileFrom(
    "compile-from",
    llvm::cl::desc("The input is the MLIR written after this phase "
                   "(--compile-to): input, flow, stream, hal or vm"),
    llvm::cl::value_desc("phase"), llvm::cl::init(""),
    llvm::cl::cat(category));

llvm::cl::opt<std::string> target(
    "target", llvm::cl::desc("Where the kernels run: llvm-cpu (the default)"),
    llvm::cl::init("llvm-cpu"), llvm::cl::cat(category));

llvm::cl::opt<std::string> targetCpu(
    "target-cpu",
    llvm::cl::desc("llvm-cpu: an LLVM CPU name, or host to detect this "
                   "machine (the default)"),
    llvm::cl::init("host"), llvm::cl::cat(category));

llvm::cl::opt<std::string> targetTriple(
    "target-triple",
    llvm::cl::desc("llvm-cpu: the kernels' LLVM triple (default: the host's), "
                   "e.g. aarch64-linux-gnu"),
    llvm::cl::init(""), llvm::cl::cat(category));

llvm::cl::opt<bool> asyncExports(
    "async-exports",
    llvm::cl::desc("Also export <name>$async for each function with tensors "
                   "in its signature: its arguments, then a wait fence and a "
                   "signal fence; it returns once its work is submitted and "
                   "signals the fence when the results are ready"),
    llvm::cl::init(false), llvm::cl::cat(category));

llvm::cl::opt<std::string> signKey(
    "sign-key",
    llvm::cl::desc("Sign the module with this Ed25519 secret key file "
                   "(strata-keygen; docs/security.md)"),
    llvm::cl::init(""), llvm::cl::cat(category));

/// Checks that the input holds exactly one vm.module and nothing else.
FailureOr<strata::vm::ModuleOp> findVMModule(ModuleOp root) {
  strata::vm::ModuleOp found;
  for (Operation &op : root.getBody()->getOperations()) {
    auto vmModule = dyn_cast<strata::vm::ModuleOp>(op);
    if (!vmModule) {
      op.emitError("--compile-mode=vm takes only vm.module ops, got '")
          << op.getName() << "'";
      return failure();
    }
    if (found) {
      op.emitError("--compile-mode=vm takes one vm.module; the first is '")
          << found.getSymName() << "'";
      return failure();
    }
    found = vmModule;
  }
  if (!found) {
    root.emitError("the input has no vm.module");
    return failure();
  }
  return found;
}

LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                      const strata::vm::BytecodeTargetOptions &options,
                      llvm::raw_ostream &os) {
  OwningOpRef<ModuleOp> root = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!root) {
    return failure();
  }
  // The in-process linker of the llvm-cpu target resets every command-line
  // option to its default when it runs, so read ours before the passes.
  const OutputFormat format = outputFormat;
  // --compile-mode=vm assembles its input unchanged; the pass manager still
  // runs so that --mlir-print-ir-* and the other pass manager flags apply.
  PassManager pm(&context);
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope timingScope = timing.getRootScope();
  pm.enableTiming(timingScope);
  std::optional<strata::Phase> to = strata::parsePhase(compileTo);
  std::optional<strata::Phase> from;
  if (!compileFrom.empty()) {
    from = strata::parsePhase(compileFrom);
    if (!from) {
      return emitError(UnknownLoc::get(&context), "--compile-from=")
             << compileFrom << " is not a phase: input, flow, stream, hal, vm";
    }
  }
  if (!to) {
    return emitError(UnknownLoc::get(&context), "--compile-to=")
           << compileTo << " is not a phase: input, flow, stream, hal, vm";
  }
  if (from && *from > *to) {
    return emitError(UnknownLoc::get(&context), "--compile-from=")
           << compileFrom << " comes after --compile-to=" << compileTo;
  }
  // A scalar program needs no target, so only a target the user names must
  // exist here; the hal phase reports a missing one if kernels need it.
  if (target.getNumOccurrences() > 0 && !strata::lookupTargetBackend(target)) {
    return emitError(UnknownLoc::get(&context), "--target=")
           << target << " is not a target of this build; it has: "
           << strata::getTargetBackendNames();
  }
  bool vmInput = compileMode == CompileMode::Vm ||
                 (from && *from == strata::Phase::VM);
  if (!vmInput) {
    for (Operation &op : root->getBody()->getOperations()) {
      if (isa<strata::vm::ModuleOp>(op)) {
        return op.emitError("vm.module input needs --compile-mode=vm");
      }
    }
    strata::PipelineOptions options;
    options.target = target;
    options.targetCpu = targetCpu;
    options.targetTriple = targetTriple;
    options.asyncExports = asyncExports;
    strata::buildPhasePipeline(pm, from, *to, options);
  } else if (failed(findVMModule(*root))) {
    return failure();
  }
  if (failed(applyPassManagerCLOptions(pm)) || failed(pm.run(*root))) {
    return failure();
  }
  if (*to != strata::Phase::VM) {
    root->print(os);
    os << "\n";
    return success();
  }
  FailureOr<strata::vm::ModuleOp> vmModule = findVMModule(*root);
  if (failed(vmModule)) {
    return failure();
  }
  switch (format) {
  case OutputFormat::VmMlir:
    root->print(os);
    os << "\n";
    return success();
  case OutputFormat::VmBytecode:
    return strata::vm::translateModuleToBytecode(*vmModule, options, os);
  }
  return failure();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "strata-compile " << STRATA_VERSION << " (LLVM " << LLVM_VERSION_STRING
       << ")\n";
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

  DialectRegistry registry;
  registry.insert<strata::vm::VMDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, func::FuncDialect,
                  index::IndexDialect, math::MathDialect, scf::SCFDialect,
                  linalg::LinalgDialect, tensor::TensorDialect,
                  tosa::TosaDialect, strata::util::UtilDialect,
                  strata::check::CheckDialect>();
  strata::registerTargetBackendDialects(registry);
  MLIRContext context(registry);
  // An error names its op's location; the whole op (a dispatch function can
  // be long) is printed only on request.
  if (llvm::cl::getRegisteredOptions()["mlir-print-op-on-diagnostic"]
          ->getNumOccurrences() == 0) {
    context.printOpOnDiagnostic(false);
  }
  context.loadAllAvailableDialects();

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
      outputFilename == "-" &&
      llvm::sys::Process::StandardOutIsDisplayed()) {
    llvm::errs() << "strata-compile: not writing a binary module to a "
                    "terminal; give -o FILE\n";
    return 1;
  }

  strata::vm::BytecodeTargetOptions options;
  options.compilerVersion = STRATA_VERSION;
  options.compilerFlags.assign(argv + 1, argv + argc);
  options.signingKeyFile = signKey;

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  if (failed(compile(context, sourceMgr, options, output->os()))) {
    return 1;
  }
  output->keep();
  return 0;
}
