// TargetRegistry.cpp - the targets compiled into this build. Each target's
// Meson option defines STRATA_TARGET_<NAME> for this file alone, which is the
// only place that names targets.

#include "Strata/Target/TargetBackend.h"

#include "llvm/ADT/STLExtras.h"

namespace mlir::strata {
#ifdef STRATA_TARGET_LLVM_CPU
std::unique_ptr<TargetBackend> createLLVMCPUTargetBackend();
#endif
#ifdef STRATA_TARGET_PORTABLE
std::unique_ptr<TargetBackend> createPortableTargetBackend();
#endif
} // namespace mlir::strata

using namespace mlir;
using namespace mlir::strata;

namespace {

const std::vector<std::unique_ptr<TargetBackend>> &backends() {
  static const std::vector<std::unique_ptr<TargetBackend>> all = [] {
    std::vector<std::unique_ptr<TargetBackend>> list;
#ifdef STRATA_TARGET_LLVM_CPU
    list.push_back(createLLVMCPUTargetBackend());
#endif
#ifdef STRATA_TARGET_PORTABLE
    list.push_back(createPortableTargetBackend());
#endif
    return list;
  }();
  return all;
}

} // namespace

const TargetBackend *mlir::strata::lookupTargetBackend(StringRef name) {
  for (const auto &backend : backends()) {
    if (backend->getName() == name) {
      return backend.get();
    }
  }
  return nullptr;
}

std::string mlir::strata::getTargetBackendNames() {
  std::string names;
  for (const auto &backend : backends()) {
    names += (names.empty() ? "" : ", ") + backend->getName().str();
  }
  return names.empty() ? "(none: configure with -Dtarget_llvm_cpu=true or "
                         "-Dtarget_portable=true)"
                       : names;
}

std::string mlir::strata::getDefaultTargetBackendName() {
  return backends().empty() ? std::string()
                            : backends().front()->getName().str();
}

void mlir::strata::registerTargetBackendPasses() {
  for (const auto &backend : backends()) {
    backend->registerPasses();
  }
}

void mlir::strata::registerTargetBackendDialects(DialectRegistry &registry) {
  for (const auto &backend : backends()) {
    backend->registerDialects(registry);
  }
}

std::vector<std::string> mlir::strata::expandTargetCpus(llvm::StringRef cpus) {
  std::vector<std::string> result;
  llvm::SmallVector<llvm::StringRef> parts;
  cpus.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts) {
    part = part.trim();
    if (part == "x86-64-multi") {
      result.insert(result.end(), {"x86-64-v4", "x86-64-v3", "x86-64"});
    } else if (!part.empty()) {
      result.push_back(part.str());
    }
  }
  return result;
}

std::string mlir::strata::primaryTargetCpu(llvm::StringRef cpus) {
  std::vector<std::string> list = expandTargetCpus(cpus);
  return list.empty() ? std::string("host") : list.front();
}
