//===- KernelGuards.cpp - kernel code that cannot fault on data -----------===//
//
// An integer division by zero (or INT_MIN / -1) is SIGFPE on x86 and
// undefined behaviour in LLVM IR; in a kernel it would take the whole
// process down on one bad input value. Each division whose divisor is not a
// constant known to be safe gets a divisor of 1 in the bad cases and a
// documented result (docs/security.md): x / 0 = 0, x % 0 = 0,
// INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0. The selects are cheap next to
// the division itself, and constant divisors (most index arithmetic) are
// left alone. Booleans (i1, one byte per element in a binding) are read as
// "byte != 0", so a caller's byte 2 is true, never an i1 LLVM assumes is
// 0 or 1.
//
//===----------------------------------------------------------------------===//
#include "KernelGuards.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

namespace mlir::strata::llvmcpu {
namespace {

// A constant divisor none of whose lanes is 0 (or, for a signed division,
// -1) cannot fault.
bool isSafeConstantDivisor(llvm::Value *divisor, bool isSigned) {
  auto *constant = llvm::dyn_cast<llvm::Constant>(divisor);
  if (!constant) {
    return false;
  }
  auto safeLane = [&](llvm::Constant *lane) {
    auto *value = llvm::dyn_cast_or_null<llvm::ConstantInt>(lane);
    return value && !value->isZero() && !(isSigned && value->isMinusOne());
  };
  if (!constant->getType()->isVectorTy()) {
    return safeLane(constant);
  }
  if (llvm::Constant *splat = constant->getSplatValue()) {
    return safeLane(splat);
  }
  auto *vectorType = llvm::dyn_cast<llvm::FixedVectorType>(constant->getType());
  if (!vectorType) {
    return false;
  }
  for (unsigned i = 0; i < vectorType->getNumElements(); ++i) {
    if (!safeLane(constant->getAggregateElement(i))) {
      return false;
    }
  }
  return true;
}

void guard(llvm::BinaryOperator *division) {
  llvm::IRBuilder<> builder(division);
  bool isSigned = division->getOpcode() == llvm::Instruction::SDiv ||
                  division->getOpcode() == llvm::Instruction::SRem;
  bool isQuotient = division->getOpcode() == llvm::Instruction::SDiv ||
                    division->getOpcode() == llvm::Instruction::UDiv;
  llvm::Value *dividend = division->getOperand(0);
  llvm::Value *divisor = division->getOperand(1);
  llvm::Type *type = divisor->getType();
  llvm::Constant *zero = llvm::Constant::getNullValue(type);
  llvm::Constant *one = llvm::ConstantInt::get(type, 1);
  llvm::Value *isZero = builder.CreateICmpEQ(divisor, zero, "divisor.zero");
  llvm::Value *bad = isZero;
  llvm::Value *isMinusOne = nullptr;
  if (isSigned) {
    isMinusOne = builder.CreateICmpEQ(
        divisor, llvm::Constant::getAllOnesValue(type), "divisor.minus1");
    bad = builder.CreateOr(isZero, isMinusOne);
  }
  // x % 1 == 0 is the documented remainder of both bad cases, and x / 1
  // == x is replaced below.
  division->setOperand(1,
                       builder.CreateSelect(bad, one, divisor, "divisor.safe"));
  if (!isQuotient) {
    return;
  }
  // The division's users, before the selects below become users too.
  llvm::SmallVector<llvm::Use *> uses;
  for (llvm::Use &use : division->uses()) {
    uses.push_back(&use);
  }
  builder.SetInsertPoint(division->getNextNode());
  llvm::Value *result = division;
  if (isSigned) {
    // -x wraps: INT_MIN / -1 = INT_MIN.
    result = builder.CreateSelect(isMinusOne, builder.CreateSub(zero, dividend),
                                  result);
  }
  result = builder.CreateSelect(isZero, zero, result, "quotient.safe");
  for (llvm::Use *use : uses) {
    use->set(result);
  }
}

} // namespace

unsigned normalizeBoolLoads(llvm::Module &module) {
  llvm::SmallVector<llvm::LoadInst *> loads;
  for (llvm::Function &function : module) {
    for (llvm::Instruction &instruction : llvm::instructions(function)) {
      auto *load = llvm::dyn_cast<llvm::LoadInst>(&instruction);
      if (load && load->getType()->isIntegerTy(1)) {
        loads.push_back(load);
      }
    }
  }
  for (llvm::LoadInst *load : loads) {
    llvm::IRBuilder<> builder(load);
    llvm::LoadInst *byte = builder.CreateAlignedLoad(
        builder.getInt8Ty(), load->getPointerOperand(), load->getAlign(),
        load->isVolatile(), load->getName() + ".byte");
    llvm::Value *truth = builder.CreateICmpNE(byte, builder.getInt8(0));
    load->replaceAllUsesWith(truth);
    load->eraseFromParent();
  }
  return loads.size();
}

unsigned guardIntegerDivision(llvm::Module &module) {
  llvm::SmallVector<llvm::BinaryOperator *> divisions;
  for (llvm::Function &function : module) {
    for (llvm::Instruction &instruction : llvm::instructions(function)) {
      auto *binary = llvm::dyn_cast<llvm::BinaryOperator>(&instruction);
      if (!binary) {
        continue;
      }
      switch (binary->getOpcode()) {
      case llvm::Instruction::SDiv:
      case llvm::Instruction::SRem:
      case llvm::Instruction::UDiv:
      case llvm::Instruction::URem:
        break;
      default:
        continue;
      }
      bool isSigned = binary->getOpcode() == llvm::Instruction::SDiv ||
                      binary->getOpcode() == llvm::Instruction::SRem;
      if (!isSafeConstantDivisor(binary->getOperand(1), isSigned)) {
        divisions.push_back(binary);
      }
    }
  }
  for (llvm::BinaryOperator *division : divisions) {
    guard(division);
  }
  return divisions.size();
}

} // namespace mlir::strata::llvmcpu
