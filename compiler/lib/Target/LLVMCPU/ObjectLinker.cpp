//===- ObjectLinker.cpp - llvm::Module to shared library bytes ------------===//
//
// The back half of the llvm-cpu target: a TargetMachine for the requested
// triple/CPU, LLVM's O3 pipeline, an ELF object in memory, then lld linked in
// as a library (no ld.lld binary is needed at run time). lld only reads and
// writes files, so the object, the version script and the output go through
// temporary files that are removed afterwards.
//
//===----------------------------------------------------------------------===//
#include "ObjectLinker.h"

#include "strata/hal/executable_library.h"

#include <fstream>
#include <mutex>

#include "Strata/Target/LLVMCPU/LLVMCPUTarget.h"
#include "lld/Common/Driver.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

LLD_HAS_DRIVER(elf)

namespace mlir::strata::llvmcpu {
namespace {

// Feature bits of the kernel ABI (executable_library.h), for the header's
// required_features.
constexpr uint64_t kFeatureX86Avx2 = STRATA_HAL_CPU_FEATURE_X86_AVX2;
constexpr uint64_t kFeatureX86Fma = STRATA_HAL_CPU_FEATURE_X86_FMA;
constexpr uint64_t kFeatureX86Avx512f = STRATA_HAL_CPU_FEATURE_X86_AVX512F;
constexpr uint64_t kFeatureX86AmxInt8 = STRATA_HAL_CPU_FEATURE_X86_AMX_INT8;
constexpr uint64_t kFeatureArmNeon = STRATA_HAL_CPU_FEATURE_ARM_NEON;

void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    // Tail merging (the branch folder's, and block placement's) off unless
    // the command line sets it: it searches the microkernel's unrolled
    // kernels for identical tails to share, most of the code generator's
    // time on a module with a convolution (the branch folder alone 39%),
    // for no faster code (docs/performance.md, compile time).
    auto &options = llvm::cl::getRegisteredOptions();
    auto tailMerge = options.find("enable-tail-merge");
    if (tailMerge != options.end() &&
        tailMerge->second->getNumOccurrences() == 0) {
      tailMerge->second->addOccurrence(0, "enable-tail-merge", "false");
    }
  });
}

// Removes a temporary file when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty()) {
      llvm::sys::fs::remove(path);
    }
  }
};

std::string writeTempFile(llvm::StringRef suffix, llvm::StringRef contents,
                          TempFile &file) {
  int fd = -1;
  if (std::error_code error = llvm::sys::fs::createTemporaryFile(
          "strata-llvmcpu", suffix, fd, file.path)) {
    return "cannot create a temporary file: " + error.message();
  }
  llvm::raw_fd_ostream stream(fd, /*shouldClose=*/true);
  stream << contents;
  stream.close();
  if (stream.has_error()) {
    return "cannot write " + file.path.str().str() + ": " +
           stream.error().message();
  }
  return {};
}

} // namespace

int64_t hostLastLevelCacheBytes() {
  int64_t largest = 0;
  int largestLevel = 0;
  for (int index = 0; index < 16; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    // (sysfs files claim a page of size: read them as streams.)
    auto read = [&](const char *name) -> std::string {
      std::ifstream file(dir + "/" + name);
      std::string text;
      std::getline(file, text);
      return llvm::StringRef(text).trim().str();
    };
    std::string level = read("level");
    if (level.empty()) {
      break;
    }
    std::string type = read("type");
    if (type != "Unified" && type != "Data") {
      continue;
    }
    // "32768K", "2048K", "480M".
    std::string sizeText = read("size");
    llvm::StringRef size = llvm::StringRef(sizeText).trim();
    int64_t scale = 1;
    if (size.consume_back("K")) {
      scale = int64_t(1) << 10;
    } else if (size.consume_back("M")) {
      scale = int64_t(1) << 20;
    } else if (size.consume_back("G")) {
      scale = int64_t(1) << 30;
    }
    int64_t value = 0;
    int levelValue = 0;
    if (size.getAsInteger(10, value) ||
        llvm::StringRef(level).getAsInteger(10, levelValue) || value <= 0) {
      continue;
    }
    if (levelValue > largestLevel ||
        (levelValue == largestLevel && value * scale > largest)) {
      largestLevel = levelValue;
      largest = value * scale;
    }
  }
  return largest;
}

std::string createTargetMachine(const LLVMCPUTargetOptions &options,
                                ResolvedTarget &out) {
  initializeTargets();
  std::string hostTriple = llvm::sys::getProcessTriple();
  llvm::Triple triple(options.triple.empty() ? hostTriple : options.triple);
  bool isHost = llvm::Triple(hostTriple).getArch() == triple.getArch() &&
                llvm::Triple(hostTriple).getOS() == triple.getOS();
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    return "unknown target triple '" + triple.str() + "': " + error;
  }
  if (triple.getArch() != llvm::Triple::x86_64 &&
      triple.getArch() != llvm::Triple::aarch64) {
    return "target triple '" + triple.str() +
           "' is not supported (x86_64 and aarch64 ELF only)";
  }
  if (!triple.isOSBinFormatELF()) {
    return "target triple '" + triple.str() + "' does not produce ELF";
  }

  std::string cpu = options.cpu;
  llvm::SubtargetFeatures features;
  if (cpu.empty() || cpu == "host") {
    if (isHost) {
      cpu = llvm::sys::getHostCPUName().str();
      out.lastLevelCacheBytes = hostLastLevelCacheBytes();
      for (const auto &feature : llvm::sys::getHostCPUFeatures()) {
        features.AddFeature(feature.first(), feature.second);
      }
    } else {
      cpu = "generic";
    }
  }
  {
    // LLVM only warns (on stderr) about an unknown CPU and then ignores it.
    std::unique_ptr<llvm::MCSubtargetInfo> generic(
        target->createMCSubtargetInfo(triple, "", ""));
    if (generic && !generic->isCPUStringValid(cpu)) {
      return "'" + cpu + "' is not a CPU of target '" + triple.str() + "'";
    }
  }
  if (!options.features.empty()) {
    llvm::SmallVector<llvm::StringRef> extra;
    llvm::StringRef(options.features).split(extra, ',', -1, false);
    for (llvm::StringRef feature : extra) {
      features.AddFeature(feature.trim());
    }
  }
  llvm::TargetOptions targetOptions;
  out.machine.reset(target->createTargetMachine(
      triple, cpu, features.getString(), targetOptions, llvm::Reloc::PIC_,
      llvm::CodeModel::Small, llvm::CodeGenOptLevel::Aggressive));
  if (!out.machine) {
    return "cannot create a target machine for '" + triple.str() + "' (cpu " +
           cpu + ")";
  }
  const llvm::MCSubtargetInfo *subtarget = out.machine->getMCSubtargetInfo();
  if (triple.getArch() == llvm::Triple::x86_64) {
    out.format = "embedded-elf-x86_64";
    out.requiredFeatures |=
        (subtarget->checkFeatures("+avx2") ? kFeatureX86Avx2 : 0) |
        (subtarget->checkFeatures("+fma") ? kFeatureX86Fma : 0) |
        (subtarget->checkFeatures("+avx512f") ? kFeatureX86Avx512f : 0);
    // The same f32 kernels; the int8 one uses AMX tiles (its libraries
    // then need a host whose OS granted the tile state), or vpdpbusd.
    if (subtarget->checkFeatures(
            "+avx512f,+avx512bw,+avx512vnni,+fma,+amx-tile,+amx-int8")) {
      out.ukernelVariant = "avx512amx";
      out.int8UkernelFeatures = kFeatureX86AmxInt8;
    } else if (subtarget->checkFeatures(
                   "+avx512f,+avx512bw,+avx512vnni,+fma")) {
      out.ukernelVariant = "avx512vnni";
    } else if (subtarget->checkFeatures("+avx512f,+fma")) {
      out.ukernelVariant = "avx512";
    } else if (subtarget->checkFeatures("+avx2,+fma")) {
      out.ukernelVariant = "avx2";
    } else {
      // Every x86-64 CPU has SSE2 (ukernel/SgemmSse.c).
      out.ukernelVariant = "sse";
    }
    out.nativeVectorBytes = subtarget->checkFeatures("+avx512f") ? 64
                            : subtarget->checkFeatures("+avx")   ? 32
                                                                 : 16;
  } else {
    out.format = "embedded-elf-aarch64";
    out.requiredFeatures |=
        subtarget->checkFeatures("+neon") ? kFeatureArmNeon : 0;
    // The f32 kernels on 128-bit vectors (ukernel/SgemmNeon.c).
    if (subtarget->checkFeatures("+neon")) {
      out.ukernelVariant = "neon";
    }
  }
  return {};
}

std::string emitObject(llvm::Module &module, llvm::TargetMachine &machine,
                       std::vector<char> &object) {
  module.setTargetTriple(machine.getTargetTriple());
  module.setDataLayout(machine.createDataLayout());
  for (llvm::Function &function : module) {
    if (function.isDeclaration()) {
      continue;
    }
    function.addFnAttr("target-cpu", machine.getTargetCPU());
    if (!machine.getTargetFeatureString().empty()) {
      function.addFnAttr("target-features", machine.getTargetFeatureString());
    }
  }

  {
    llvm::LoopAnalysisManager loopAnalyses;
    llvm::FunctionAnalysisManager functionAnalyses;
    llvm::CGSCCAnalysisManager cgsccAnalyses;
    llvm::ModuleAnalysisManager moduleAnalyses;
    llvm::PassBuilder passBuilder(&machine);
    passBuilder.registerModuleAnalyses(moduleAnalyses);
    passBuilder.registerCGSCCAnalyses(cgsccAnalyses);
    passBuilder.registerFunctionAnalyses(functionAnalyses);
    passBuilder.registerLoopAnalyses(loopAnalyses);
    passBuilder.crossRegisterProxies(loopAnalyses, functionAnalyses,
                                     cgsccAnalyses, moduleAnalyses);
    llvm::ModulePassManager passes =
        passBuilder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    passes.run(module, moduleAnalyses);
  }

  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, stream, nullptr,
                                  llvm::CodeGenFileType::ObjectFile)) {
    return "the target machine cannot emit object files";
  }
  codegen.run(module);
  object.assign(buffer.begin(), buffer.end());
  return {};
}

std::string linkSharedLibrary(llvm::ArrayRef<char> object,
                              std::vector<uint8_t> &library) {
  TempFile objectFile, scriptFile, outputFile;
  std::string error = writeTempFile(
      "o", llvm::StringRef(object.data(), object.size()), objectFile);
  if (error.empty()) {
    error = writeTempFile(
        "map", "{ global: strata_hal_executable_library_query; local: *; };\n",
        scriptFile);
  }
  if (error.empty()) {
    if (std::error_code code = llvm::sys::fs::createTemporaryFile(
            "strata-llvmcpu", "so", outputFile.path)) {
      error = "cannot create a temporary file: " + code.message();
    }
  }
  if (!error.empty()) {
    return error;
  }
  std::string scriptArg = "--version-script=" + scriptFile.path.str().str();
  llvm::SmallVector<const char *> args = {"ld.lld",
                                          "-shared",
                                          "-nostdlib",
                                          "-z",
                                          "defs",
                                          "-z",
                                          "noexecstack",
                                          "-z",
                                          "now",
                                          "--no-undefined",
                                          "--gc-sections",
                                          "-o",
                                          outputFile.path.c_str(),
                                          scriptArg.c_str(),
                                          objectFile.path.c_str()};
  std::string messages;
  llvm::raw_string_ostream messageStream(messages);
  {
    // lld keeps global state while it runs: one link at a time.
    static std::mutex lldMutex;
    std::lock_guard<std::mutex> lock(lldMutex);
    lld::Result result = lld::lldMain(args, messageStream, messageStream,
                                      {{lld::Gnu, &lld::elf::link}});
    if (result.retCode != 0 || !result.canRunAgain) {
      return "linking the kernel library failed: " + messages;
    }
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> bytes =
      llvm::MemoryBuffer::getFile(outputFile.path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!bytes) {
    return "cannot read the linked library: " + bytes.getError().message();
  }
  library.assign((*bytes)->getBufferStart(), (*bytes)->getBufferEnd());
  return {};
}

} // namespace mlir::strata::llvmcpu
