// Pipelines.h - the pass pipelines strata-compile runs, phase by phase, also
// registered in strata-opt so that lit tests can run a whole phase.

#ifndef STRATA_PIPELINES_PIPELINES_H
#define STRATA_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

#include <optional>
#include <string>

namespace mlir::strata {

/// The phases of compilation, in order. Each names the form of the program
/// after it:
///   import  the input as read: MLIR as parsed, an ONNX model as onnx.node
///           ops (no passes run);
///   input   the input in linalg, tensor, arith and math: ONNX nodes and
///           TOSA lowered (--strata-lower-onnx, --strata-convert-input),
///           cleaned up (canonicalization, CSE);
///   flow    tensor work in dispatch functions of one executable module,
///           host functions calling them (--strata-form-dispatches);
///   stream  the dispatch calls scheduled into submissions, timepoints and
///           allocations of the stream dialect (--strata-schedule-execution);
///   hal     the executable compiled to a kernel library, a hal.executable
///           (--strata-compile-executables);
///   vm      one vm.module, optimized (--strata-convert-to-vm and the VM
///           passes); the bytecode target writes it.
enum class Phase { Import, Input, Flow, Stream, Hal, VM };

/// "import", "input", "flow", ... -> the phase, or nothing for another name.
std::optional<Phase> parsePhase(llvm::StringRef name);

struct PipelineOptions {
  /// The target backend of the kernels (Target/TargetBackend.h).
  std::string target = "llvm-cpu";
  /// For the llvm-cpu target: an LLVM triple ("" = the host's) and CPU
  /// ("host" = detect this machine).
  std::string targetTriple;
  std::string targetCpu = "host";
  /// Also export an async-external `<name>$async` (wait and signal fences)
  /// for each public function with tensors in its signature.
  bool asyncExports = false;
  /// Store the filters of 3x3 stride-1 convolutions as their Winograd
  /// transforms where the target's kernel reads those
  /// (TargetBackend::winogradConvolutions).
  bool winograd = true;
};

/// Adds the passes that take a module from the end of phase `from` (the
/// start of the input when not given) to the end of phase `to`.
void buildPhasePipeline(OpPassManager &pm, std::optional<Phase> from,
                        Phase to, const PipelineOptions &options);

/// Standard dialects (func, arith, math, scf, cf, index) in a builtin module
/// to an optimized vm.module ready for the bytecode target: cleanups, the
/// conversion, then the VM optimizations (buildVMOptimizationPipeline).
void buildStandardToVMPipeline(OpPassManager &pm);

/// Optimizations on the vm.modules of a builtin module: canonicalization
/// and CSE, loop rotation, then the peephole selection of fused opcodes.
void buildVMOptimizationPipeline(OpPassManager &pm);

/// Registers --strata-std-to-vm-pipeline, --strata-vm-optimize-pipeline and
/// --strata-phase-pipeline.
void registerStrataPipelines();

} // namespace mlir::strata

#endif // STRATA_PIPELINES_PIPELINES_H
