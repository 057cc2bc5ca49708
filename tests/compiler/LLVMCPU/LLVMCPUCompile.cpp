// LLVMCPUCompile.cpp - llvmcpu-compile: compiles one .mlir executable with
// the llvm-cpu target and writes the kernel library, for inspecting the
// generated code (llvm-objdump, readelf) and for debugging the pipeline with
// the usual --mlir-print-ir-after-all and friends.
//
//   llvmcpu-compile IN.mlir OUT.so [--triple=T] [--cpu=C] [--features=F]
//
// Prints one line per export: its name, grid and binding count.
#include "Strata/Target/LLVMCPU/LLVMCPUTarget.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/FileUtilities.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::list<std::string> files(llvm::cl::Positional,
                                    llvm::cl::desc("<input .mlir> <output .so>"),
                                    llvm::cl::OneOrMore);
  llvm::cl::opt<std::string> triple("triple", llvm::cl::desc("target triple"),
                                    llvm::cl::init(""));
  llvm::cl::opt<std::string> cpu("cpu", llvm::cl::desc("target CPU"),
                                 llvm::cl::init("host"));
  llvm::cl::opt<std::string> features("features",
                                      llvm::cl::desc("target features"),
                                      llvm::cl::init(""));
  mlir::registerAllPasses(); // so --mlir-print-ir-after=NAME knows them
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  llvm::cl::ParseCommandLineOptions(argc, argv, "llvm-cpu kernel compiler\n");
  if (files.size() != 2) {
    llvm::errs() << "usage: llvmcpu-compile IN.mlir OUT.so [options]\n";
    return 2;
  }
  std::string input = files[0];
  std::string output = files[1];

  mlir::DialectRegistry registry;
  mlir::strata::registerLLVMCPUTargetDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::string error;
  auto file = mlir::openInputFile(input, &error);
  if (!file) {
    llvm::errs() << "llvmcpu-compile: " << error << "\n";
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module) {
    return 1;
  }
  mlir::strata::LLVMCPUTargetOptions options;
  options.triple = triple;
  options.cpu = cpu;
  options.features = features;
  mlir::FailureOr<mlir::strata::CompiledExecutable> compiled =
      mlir::strata::compileExecutable(*module, options);
  if (mlir::failed(compiled)) {
    return 1;
  }
  for (const auto &exported : compiled->exports) {
    llvm::outs() << exported.name << " grid=" << exported.workgroupCount[0]
                 << "x" << exported.workgroupCount[1] << "x"
                 << exported.workgroupCount[2]
                 << " bindings=" << exported.bindingCount << "\n";
  }
  auto out = mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << "llvmcpu-compile: " << error << "\n";
    return 1;
  }
  out->os().write(reinterpret_cast<const char *>(compiled->library.data()),
                  compiled->library.size());
  out->keep();
  return 0;
}
