//===- Passes.cpp - the llvm-cpu code generator's steps as passes ---------===//
//
// Thin pass wrappers (Passes.td) around the functions compileExecutable
// calls, so each step can run alone in strata-opt.
//
//===----------------------------------------------------------------------===//
#include "Strata/Codegen/LLVMCPU/Passes.h"

#include "Strata/Codegen/LLVMCPU/Codegen.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"

namespace mlir::strata::llvmcpu {

#define GEN_PASS_DEF_LLVMCPUVERIFYINPUTPASS
#define GEN_PASS_DEF_LLVMCPUTILEANDDISTRIBUTEPASS
#define GEN_PASS_DEF_LLVMCPUBUFFERIZEPASS
#define GEN_PASS_DEF_LLVMCPUBINDWORKGROUPIDSPASS
#define GEN_PASS_DEF_LLVMCPULOWERSOFTMAXROWSPASS
#define GEN_PASS_DEF_LLVMCPULOWERTOLLVMPASS
#include "Strata/Codegen/LLVMCPU/Passes.h.inc"

namespace {

struct LLVMCPUVerifyInputPass
    : impl::LLVMCPUVerifyInputPassBase<LLVMCPUVerifyInputPass> {
  void runOnOperation() override {
    if (failed(verifyExecutableInput(getOperation()))) {
      signalPassFailure();
    }
  }
};

struct LLVMCPUTileAndDistributePass
    : impl::LLVMCPUTileAndDistributePassBase<LLVMCPUTileAndDistributePass> {
  void runOnOperation() override {
    if (failed(tileAndDistributeToWorkgroups(getOperation(), {}))) {
      signalPassFailure();
    }
  }
};

struct LLVMCPUBufferizePass
    : impl::LLVMCPUBufferizePassBase<LLVMCPUBufferizePass> {
  void runOnOperation() override {
    if (failed(bufferizeExecutable(getOperation()))) {
      signalPassFailure();
    }
  }
};

struct LLVMCPUBindWorkgroupIdsPass
    : impl::LLVMCPUBindWorkgroupIdsPassBase<LLVMCPUBindWorkgroupIdsPass> {
  void runOnOperation() override {
    SmallVector<std::string> unsafe;
    if (failed(bindWorkgroupIds(getOperation(), unsafe))) {
      signalPassFailure();
      return;
    }
    for (const std::string &name : unsafe) {
      getOperation().emitError()
          << "export '" << name
          << "' writes a binding outside its workgroup loop";
    }
    if (!unsafe.empty()) {
      signalPassFailure();
    }
  }
};

struct LLVMCPULowerSoftmaxRowsPass
    : impl::LLVMCPULowerSoftmaxRowsPassBase<LLVMCPULowerSoftmaxRowsPass> {
  using LLVMCPULowerSoftmaxRowsPassBase::LLVMCPULowerSoftmaxRowsPassBase;
  void runOnOperation() override {
    if (failed(lowerSoftmaxRows(getOperation(), nativeVectorBytes))) {
      signalPassFailure();
    }
  }
};

struct LLVMCPULowerToLLVMPass
    : impl::LLVMCPULowerToLLVMPassBase<LLVMCPULowerToLLVMPass> {
  using LLVMCPULowerToLLVMPassBase::LLVMCPULowerToLLVMPassBase;
  void runOnOperation() override {
    if (failed(lowerToLLVMDialect(getOperation(), nativeVectorBytes,
                                  matmulUkernel, streamedResultBytes))) {
      signalPassFailure();
    }
  }
};

} // namespace

void registerLLVMCPUCodegenDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
}

} // namespace mlir::strata::llvmcpu
