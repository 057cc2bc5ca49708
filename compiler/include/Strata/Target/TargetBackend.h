// TargetBackend.h - the interface every code generation target implements,
// and the registry the hal phase finds them in. The common passes know
// targets only through it: each target builds its own pipeline.

#ifndef STRATA_TARGET_TARGETBACKEND_H
#define STRATA_TARGET_TARGETBACKEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mlir::strata {

/// Where the kernels run, as the user asked (--target-cpu, --target-triple).
struct TargetBackendOptions {
  std::string triple; // "" = the host's
  std::string cpu = "host";
};

/// An executable compiled by a target: the bytes the runtime loads and what
/// the host needs to dispatch each export.
struct TargetExecutable {
  struct Export {
    std::string name;
    uint32_t workgroupCount[3] = {1, 1, 1};
  };
  std::string format; // hal.executable.create's format, "embedded-elf-x86_64"
  std::vector<uint8_t> library;
  std::vector<Export> exports; // in export-ordinal order
};

class TargetBackend {
public:
  virtual ~TargetBackend() = default;
  /// The name --target selects it by, "llvm-cpu".
  virtual llvm::StringRef getName() const = 0;
  /// Dialects and interfaces its pipeline creates, for the driver's context.
  virtual void registerDialects(DialectRegistry &registry) const = 0;
  /// Registers its code generation passes (for strata-opt and lit tests).
  virtual void registerPasses() const {}
  /// Compiles the dispatch functions of `executable` (consumed). Reports
  /// errors at the ops and fails then.
  virtual FailureOr<TargetExecutable>
  compile(ModuleOp executable, const TargetBackendOptions &options) const = 0;
  /// Whether its kernels run an f32 NHWC convolution directly (reading the
  /// input's windows as they go), so the flow phase keeps convolutions
  /// whole instead of making an im2col matrix for a matmul.
  virtual bool hasDirectConvolution(const TargetBackendOptions &options) const {
    return false;
  }
  /// Whether the flow phase also makes im2col matmuls of convolutions whose
  /// batch is dynamic (its dynamic matmul is fast where its convolution
  /// loops are not); false keeps them whole.
  virtual bool im2colDynamicBatch(const TargetBackendOptions &options) const {
    return false;
  }
  /// The panel width its matmul kernels read constant weights in, so the
  /// flow phase stores them packed (--strata-pack-weights); 0: as written.
  virtual int64_t
  weightPanelColumns(const TargetBackendOptions &options) const {
    return 0;
  }
  /// Whether its convolution kernel takes a 3x3 stride-1 convolution's
  /// filter as its Winograd F(4x4, 3x3) transform, so the flow phase
  /// stores those filters transformed (--strata-pack-weights winograd).
  virtual bool winogradConvolutions(const TargetBackendOptions &options) const {
    return false;
  }
  /// The panel its int8 matmul kernels read constant int8 weights in:
  /// {columns per panel, depth steps per group, multiple the packed depth
  /// is padded to}; {0, 0, 0}: as written.
  virtual std::array<int64_t, 3>
  int8WeightPanel(const TargetBackendOptions &options) const {
    return {0, 0, 0};
  }
  /// The fewest multiply-adds of an f32 matmul or convolution its kernels
  /// run as a matmul (tiled for its microkernel, if it has one): the flow
  /// phase packs weights and makes im2col matmuls only from products this
  /// large; 0: any size.
  virtual int64_t minMatmulTileWork(const TargetBackendOptions &options) const {
    return 0;
  }
  /// Whether its code generator computes a static concatenation's
  /// convolution operands inside the concatenation's dispatch, each
  /// written in place into its slice of the result, so the flow phase
  /// fuses them there (--fuse-into-concat); false keeps a copy dispatch.
  virtual bool
  writesConcatOperandsInPlace(const TargetBackendOptions &options) const {
    return false;
  }
  /// Whether its code generator computes a large producer inside its
  /// reader's dispatch, band by band, into a temporary the reader's kernel
  /// then reads: a convolution read only by a max pool (--fuse-into-pool) or
  /// by a depthwise convolution (--fuse-into-depthwise), and a depthwise
  /// convolution read only by a 1x1 convolution (--fuse-into-projection).
  /// False keeps each in its own dispatch.
  virtual bool
  computesProducersInBands(const TargetBackendOptions &options) const {
    return false;
  }
};

/// The targets this build has (each behind its own Meson option), by name.
const TargetBackend *lookupTargetBackend(llvm::StringRef name);
/// The CPUs a --target-cpu value names, best first: a comma-separated list
/// ("x86-64-v4,x86-64-v3,x86-64"), where "x86-64-multi" stands for that
/// list. One CPU makes an ordinary module; several, a multi-ISA module with
/// one kernel library per CPU. Empty entries are dropped.
std::vector<std::string> expandTargetCpus(llvm::StringRef cpus);
/// The CPU the flow phase asks its questions for (weight panels, direct
/// convolutions): the first of the list. The other variants' kernels read
/// the same layouts (repacking at run time where theirs differ).
std::string primaryTargetCpu(llvm::StringRef cpus);
/// Their names, for messages: "llvm-cpu".
std::string getTargetBackendNames();
/// The target a compile uses when none is named: the first this build has
/// (llvm-cpu, else portable); "" when it has none.
std::string getDefaultTargetBackendName();
/// Registers every built target's dialects into `registry`.
void registerTargetBackendDialects(DialectRegistry &registry);
/// Registers every built target's passes.
void registerTargetBackendPasses();

} // namespace mlir::strata

#endif // STRATA_TARGET_TARGETBACKEND_H
