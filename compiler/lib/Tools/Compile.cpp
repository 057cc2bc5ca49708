// Compile.cpp - the compiler as a library (Strata/Tools/Compile.h): reads
// the input (MLIR text or an ONNX model), runs the phase pipelines and
// writes a .vmfb module, collecting diagnostics as text.

#include "Strata/Tools/Compile.h"

#include "Strata/Dialect/Check/IR/CheckOps.h"
#include "Strata/Dialect/Flow/IR/FlowOps.h"
#include "Strata/Dialect/HAL/IR/HALOps.h"
#include "Strata/Dialect/ONNX/IR/ONNXOps.h"
#include "Strata/Dialect/Stream/IR/StreamOps.h"
#include "Strata/Dialect/Util/IR/UtilOps.h"
#include "Strata/Dialect/VM/IR/VMDialect.h"
#include "Strata/Dialect/VM/IR/VMOps.h"
#include "Strata/InputConversion/Passes.h"
#include "Strata/Pipelines/Pipelines.h"
#include "Strata/Target/Bytecode/BytecodeTarget.h"
#include "Strata/Target/TargetBackend.h"
#ifdef STRATA_HAVE_ONNX
#include "Strata/InputConversion/ONNX/Importer.h"
#endif

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"

#include <functional>
#include <memory>
#include <mutex>

using namespace mlir;

namespace mlir::strata {
namespace {

/// Checks that the input holds exactly one vm.module and nothing else.
FailureOr<vm::ModuleOp> findVMModule(ModuleOp root) {
  vm::ModuleOp found;
  for (Operation &op : root.getBody()->getOperations()) {
    auto vmModule = dyn_cast<vm::ModuleOp>(op);
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

/// Brackets ({, (, [) may nest this deep in MLIR input (docs/compiler.md):
/// the parser and every pass walk regions recursively, and a nesting this
/// deep uses a fraction of kCompileStackBytes.
constexpr unsigned kMaxNesting = 10000;

/// The stack of the thread that parses and compiles.
constexpr unsigned kCompileStackBytes = 512u << 20;

/// Checks the bracket nesting of MLIR text before the recursive parser sees
/// it (strings and comments aside); deeper input is an error at the bracket.
LogicalResult checkNesting(MLIRContext &context, llvm::StringRef text,
                           llvm::StringRef name) {
  unsigned depth = 0;
  unsigned line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
    } else if (c == '"') {
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i) {
        if (text[i] == '\\') {
          ++i;
        }
      }
      if (i < text.size() && text[i] == '\n') {
        --i; // counted as a line break above on the next step
      }
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n') {
        ++i;
      }
    } else if (c == '{' || c == '(' || c == '[') {
      if (++depth > kMaxNesting) {
        return emitError(
                   FileLineColLoc::get(&context, name, line, i - lineStart + 1))
               << "the input nests deeper than " << kMaxNesting
               << " levels of brackets, the limit";
      }
    } else if ((c == '}' || c == ')' || c == ']') && depth) {
      --depth;
    }
  }
  return success();
}

/// --compile-from=`from`: the input must be at that phase. An op of an
/// earlier phase outside the executables (linalg, tosa or onnx before flow;
/// flow.dispatch before stream; flow.executable before hal) is an error at
/// the op naming the phase it belongs to.
LogicalResult checkInputPhase(ModuleOp root, Phase from, llvm::StringRef name) {
  if (from < Phase::Flow) {
    return success();
  }
  Operation *early = nullptr;
  llvm::StringRef phase;
  root.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<flow::ExecutableOp>(op) && from >= Phase::Hal) {
      early = op;
      phase = "flow";
      return WalkResult::interrupt();
    }
    if (isa<flow::ExecutableOp, hal::ExecutableOp>(op)) {
      return WalkResult::skip();
    }
    llvm::StringRef dialect =
        op->getDialect() ? op->getDialect()->getNamespace() : "";
    if (dialect == "linalg" || dialect == "tosa" || dialect == "onnx") {
      early = op;
      phase = "input";
      return WalkResult::interrupt();
    }
    if (isa<flow::DispatchOp>(op) && from >= Phase::Stream) {
      early = op;
      phase = "flow";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!early) {
    return success();
  }
  return early->emitError()
         << "--compile-from=" << name << ": the input is not at that phase: '"
         << early->getName() << "' belongs to phase '" << phase
         << "' (use --compile-from=" << phase
         << ", or leave --compile-from out)";
}

/// A stream handing what is written to CompileOptions::diagnosticSink.
class SinkStream : public llvm::raw_ostream {
public:
  explicit SinkStream(const std::function<void(std::string_view)> &sink)
      : sink(sink) {
    SetUnbuffered();
  }

private:
  void write_impl(const char *ptr, size_t size) override {
    sink(std::string_view(ptr, size));
    written += size;
  }
  uint64_t current_pos() const override { return written; }

  const std::function<void(std::string_view)> &sink;
  uint64_t written = 0;
};

/// Whether the input is an ONNX model (inputType, else its first bytes or
/// its name).
bool isONNXInput(llvm::StringRef bytes, const CompileOptions &options) {
  switch (options.inputType) {
  case CompileOptions::InputType::Mlir:
    return false;
  case CompileOptions::InputType::Onnx:
    return true;
  case CompileOptions::InputType::Auto:
    break;
  }
#ifdef STRATA_HAVE_ONNX
  if (onnx::looksLikeONNXModel(bytes)) {
    return true;
  }
#else
  if (!bytes.empty() && bytes[0] == 0x08) {
    return true;
  }
#endif
  return llvm::StringRef(options.inputName).ends_with(".onnx");
}

/// The input module: MLIR text parsed, or an ONNX model imported.
OwningOpRef<ModuleOp> readInput(MLIRContext &context,
                                llvm::SourceMgr &sourceMgr,
                                const CompileOptions &options) {
  llvm::StringRef bytes =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  if (!isONNXInput(bytes, options)) {
    if (!options.inputShapes.empty()) {
      emitError(UnknownLoc::get(&context))
          << "--input-shape applies to ONNX models only";
      return nullptr;
    }
    if (failed(checkNesting(context, bytes,
                            options.inputName == "-" ? "<stdin>"
                                                     : options.inputName))) {
      return nullptr;
    }
    return parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
#ifdef STRATA_HAVE_ONNX
  onnx::ImportOptions importOptions;
  const std::string &name = options.inputName;
  if (!options.externalDataDir.empty()) {
    importOptions.externalDataDir = options.externalDataDir;
  } else {
    llvm::SmallString<256> folder(name == "-" ? std::string(".") : name);
    llvm::sys::path::remove_filename(folder);
    importOptions.externalDataDir = folder.empty() ? "." : folder.str().str();
  }
  importOptions.fileName = name == "-" ? std::string("<stdin>")
                                       : llvm::sys::path::filename(name).str();
  for (const std::string &shape : options.inputShapes) {
    std::string error;
    if (!onnx::parseInputShape(shape, importOptions, error)) {
      emitError(UnknownLoc::get(&context)) << error;
      return nullptr;
    }
  }
  return onnx::importModel(&context, bytes, importOptions);
#else
  emitError(UnknownLoc::get(&context))
      << "this compiler was built without the ONNX importer "
         "(apt-get install libonnx-dev libprotobuf-dev, then reconfigure)";
  return nullptr;
#endif
}

LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                      const CompileOptions &options, llvm::raw_ostream &os) {
  OwningOpRef<ModuleOp> root = readInput(context, sourceMgr, options);
  if (!root || failed(input::checkTensorByteSizes(*root))) {
    return failure();
  }
  // --compile-mode=vm assembles its input unchanged; the pass manager still
  // runs so that --mlir-print-ir-* and the other pass manager flags apply.
  PassManager pm(&context);
  DefaultTimingManager timing;
  if (options.applyCommandLineOptions) {
    applyDefaultTimingManagerCLOptions(timing);
  }
  TimingScope timingScope = timing.getRootScope();
  pm.enableTiming(timingScope);
  std::optional<Phase> to = parsePhase(options.compileTo);
  std::optional<Phase> from;
  if (!options.compileFrom.empty()) {
    from = parsePhase(options.compileFrom);
    if (!from) {
      return emitError(UnknownLoc::get(&context), "--compile-from=")
             << options.compileFrom
             << " is not a phase: import, input, flow, stream, hal, vm";
    }
  }
  if (!to) {
    return emitError(UnknownLoc::get(&context), "--compile-to=")
           << options.compileTo
           << " is not a phase: import, input, flow, stream, hal, vm";
  }
  if (from && *from > *to) {
    return emitError(UnknownLoc::get(&context), "--compile-from=")
           << options.compileFrom
           << " comes after --compile-to=" << options.compileTo;
  }
  // A scalar program needs no target, so only a target the user names must
  // exist here; the hal phase reports a missing one if kernels need it.
  // Unless named: the first target this build has (llvm-cpu, or portable
  // in a build configured without it).
  std::string targetName = options.target;
  if (std::string fallback = getDefaultTargetBackendName();
      !options.targetGiven && !fallback.empty()) {
    targetName = fallback;
  }
  if (options.targetGiven && !lookupTargetBackend(options.target)) {
    return emitError(UnknownLoc::get(&context), "--target=")
           << options.target << " is not a target of this build; it has: "
           << getTargetBackendNames();
  }
  bool vmInput =
      options.mode == CompileOptions::Mode::Vm || (from && *from == Phase::VM);
  if (!vmInput) {
    for (Operation &op : root->getBody()->getOperations()) {
      if (isa<vm::ModuleOp>(op)) {
        return op.emitError("vm.module input needs --compile-mode=vm");
      }
    }
    if (from && failed(checkInputPhase(*root, *from, options.compileFrom))) {
      return failure();
    }
    // An input without a public function compiles to a module that exports
    // nothing: legal (an empty module), but rarely what was meant.
    if (!from || *from <= Phase::Input) {
      bool exports = llvm::any_of(root->getOps<func::FuncOp>(),
                                  [](func::FuncOp f) { return f.isPublic(); });
      if (!exports) {
        emitWarning(root->getLoc())
            << "the input defines no public function: the module exports "
               "nothing";
      }
    }
    PipelineOptions pipelineOptions;
    pipelineOptions.target = targetName;
    pipelineOptions.targetCpu = options.targetCpu;
    pipelineOptions.targetTriple = options.targetTriple;
    pipelineOptions.asyncExports = options.asyncExports;
    pipelineOptions.winograd = options.winograd;
    buildPhasePipeline(pm, from, *to, pipelineOptions);
  } else if (failed(findVMModule(*root))) {
    return failure();
  }
  if (options.applyCommandLineOptions &&
      failed(applyPassManagerCLOptions(pm))) {
    return failure();
  }
  if (failed(pm.run(*root))) {
    return failure();
  }
  if (*to != Phase::VM) {
    root->print(os);
    os << "\n";
    return success();
  }
  FailureOr<vm::ModuleOp> vmModule = findVMModule(*root);
  if (failed(vmModule)) {
    return failure();
  }
  switch (options.outputFormat) {
  case CompileOptions::OutputFormat::VmMlir:
    root->print(os);
    os << "\n";
    return success();
  case CompileOptions::OutputFormat::VmBytecode: {
    vm::BytecodeTargetOptions bytecodeOptions;
    bytecodeOptions.compilerName = options.compilerName;
    bytecodeOptions.compilerVersion = options.compilerVersion;
    bytecodeOptions.compilerFlags = options.compilerFlags;
    bytecodeOptions.signingKeyFile = options.signingKeyFile;
    return vm::translateModuleToBytecode(*vmModule, bytecodeOptions, os);
  }
  }
  return failure();
}

} // namespace

namespace {

CompileResult compileOnThisThread(std::string_view source,
                                  const CompileOptions &options) {
  DialectRegistry registry;
  registry.insert<vm::VMDialect, arith::ArithDialect, cf::ControlFlowDialect,
                  func::FuncDialect, index::IndexDialect, math::MathDialect,
                  scf::SCFDialect, linalg::LinalgDialect, tensor::TensorDialect,
                  tosa::TosaDialect, util::UtilDialect, check::CheckDialect,
                  flow::FlowDialect, stream::StreamDialect, hal::HALDialect,
                  onnx::ONNXDialect>();
  registerTargetBackendDialects(registry);
  MLIRContext context(registry);
  // An error names its op's location; the whole op (a dispatch function can
  // be long) is printed only on request (then as the context's options,
  // --mlir-print-op-on-diagnostic among them, say).
  if (!options.printOpOnDiagnostic) {
    context.printOpOnDiagnostic(false);
  }
  context.loadAllAvailableDialects();

  CompileResult result;
  std::unique_ptr<llvm::raw_ostream> diagnostics;
  if (options.diagnosticSink) {
    diagnostics = std::make_unique<SinkStream>(options.diagnosticSink);
  } else {
    diagnostics =
        std::make_unique<llvm::raw_string_ostream>(result.diagnostics);
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(source.data(), source.size()),
          options.inputName == "-" ? "<stdin>" : options.inputName),
      llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, *diagnostics);
  llvm::raw_string_ostream output(result.output);
  result.ok = succeeded(compile(context, sourceMgr, options, output));
  output.flush();
  diagnostics->flush();
  if (!result.ok) {
    result.output.clear();
  }
  return result;
}

} // namespace

CompileResult compileSource(std::string_view source,
                            const CompileOptions &options) {
  // The llvm-cpu target links kernels with lld in-process, which resets
  // LLVM's command-line options as it runs: one compilation at a time.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  // The parser and the passes recurse over nested regions: they run on a
  // thread of their own with a large stack (the caller's, the main thread's
  // 8 MiB or a Python thread's, overflowed at a few thousand levels), and
  // checkNesting bounds the depth.
  CompileResult result;
  llvm::thread thread(std::optional<unsigned>(kCompileStackBytes),
                      [&] { result = compileOnThisThread(source, options); });
  thread.join();
  return result;
}

} // namespace mlir::strata
