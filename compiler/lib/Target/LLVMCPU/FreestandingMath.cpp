//===- FreestandingMath.cpp - rounding functions the kernels may call -----===//
//
// LLVM lowers llvm.floor/ceil/trunc/rint/nearbyint/roundeven/round to one
// instruction where the CPU has one (SSE4.1 roundss, AVX-512, NEON frint*),
// and to a libm call (floorf, ...) where it does not, such as x86-64
// without SSE4.1. Kernels link without a C library, so the library defines
// these functions itself: hidden, "no-builtins" (so their bodies are not
// turned back into the calls they implement), written with integer and
// exact floating-point operations only.
//
//===----------------------------------------------------------------------===//
#include "LibraryEmitter.h"

#include <cmath>

#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace mlir::strata::llvmcpu {
namespace {

// The bit layout of a binary floating-point type.
struct Format {
  llvm::Type *floatType;
  llvm::IntegerType *intType;
  unsigned mantissaBits; // 23 or 52
  unsigned bias;         // 127 or 1023
  unsigned exponentMask; // 0xff or 0x7ff
};

// Creates `name`(x) -> same type, hidden and no-builtins, unless the module
// defines it already; null then.
llvm::Function *define(llvm::Module &module, llvm::StringRef name,
                       llvm::Type *type) {
  llvm::Function *function = module.getFunction(name);
  if (function && !function->isDeclaration()) {
    return nullptr;
  }
  auto *functionType = llvm::FunctionType::get(type, {type}, false);
  if (!function) {
    function = llvm::Function::Create(
        functionType, llvm::GlobalValue::ExternalLinkage, name, module);
  }
  function->setLinkage(llvm::GlobalValue::ExternalLinkage);
  function->setVisibility(llvm::GlobalValue::HiddenVisibility);
  function->addFnAttr("no-builtins");
  function->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::BasicBlock::Create(module.getContext(), "entry", function);
  return function;
}

class Rounding {
public:
  Rounding(llvm::IRBuilder<> &b, const Format &f) : b(b), f(f) {}

  llvm::Value *bits(llvm::Value *x) { return b.CreateBitCast(x, f.intType); }
  llvm::Value *value(llvm::Value *i) { return b.CreateBitCast(i, f.floatType); }
  llvm::Value *intConst(uint64_t v) {
    return llvm::ConstantInt::get(f.intType, v);
  }
  llvm::Value *floatConst(double v) {
    return llvm::ConstantFP::get(f.floatType, v);
  }
  llvm::Value *signBit() {
    return intConst(uint64_t(1) << (f.intType->getBitWidth() - 1));
  }
  llvm::Value *sign(llvm::Value *x) { return b.CreateAnd(bits(x), signBit()); }

  // Toward zero: clears the fraction bits below the binary point.
  llvm::Value *trunc(llvm::Value *x) {
    llvm::Value *i = bits(x);
    llvm::Value *exponent = b.CreateSub(
        b.CreateAnd(b.CreateLShr(i, f.mantissaBits), f.exponentMask),
        intConst(f.bias));
    llvm::Value *belowOne = b.CreateICmpSLT(exponent, intConst(0));
    llvm::Value *integral = b.CreateICmpSGE(exponent, intConst(f.mantissaBits));
    // The shift stays in [0, mantissaBits] so it is never poison.
    llvm::Value *shift = b.CreateSelect(
        belowOne, intConst(0),
        b.CreateSelect(integral, intConst(f.mantissaBits), exponent));
    llvm::Value *fraction =
        b.CreateLShr(intConst((uint64_t(1) << f.mantissaBits) - 1), shift);
    llvm::Value *cleared = b.CreateAnd(i, b.CreateNot(fraction));
    llvm::Value *result = b.CreateSelect(belowOne, b.CreateAnd(i, signBit()),
                                         b.CreateSelect(integral, i, cleared));
    return value(result);
  }

  llvm::Value *floor(llvm::Value *x) {
    llvm::Value *t = trunc(x);
    return b.CreateSelect(b.CreateFCmpOLT(x, t),
                          b.CreateFSub(t, floatConst(1.0)), t);
  }

  llvm::Value *ceil(llvm::Value *x) {
    llvm::Value *t = trunc(x);
    return b.CreateSelect(b.CreateFCmpOGT(x, t),
                          b.CreateFAdd(t, floatConst(1.0)), t);
  }

  // Ties to even (the default rounding mode): below 2^mantissaBits, adding
  // and subtracting 2^mantissaBits rounds the magnitude; the sign is kept
  // (so -0.4 gives -0.0).
  llvm::Value *roundEven(llvm::Value *x) {
    llvm::Value *magnitude =
        value(b.CreateAnd(bits(x), b.CreateNot(signBit())));
    llvm::Value *two = floatConst(std::ldexp(1.0, f.mantissaBits));
    llvm::Value *rounded = b.CreateFSub(b.CreateFAdd(magnitude, two), two);
    llvm::Value *signed_ = value(b.CreateOr(bits(rounded), sign(x)));
    return b.CreateSelect(b.CreateFCmpOLT(magnitude, two), signed_, x);
  }

  // Ties away from zero.
  llvm::Value *round(llvm::Value *x) {
    llvm::Value *t = trunc(x);
    llvm::Value *difference = b.CreateFSub(x, t);
    llvm::Value *distance =
        value(b.CreateAnd(bits(difference), b.CreateNot(signBit())));
    llvm::Value *away = value(b.CreateOr(bits(floatConst(1.0)), sign(x)));
    return b.CreateSelect(b.CreateFCmpOGE(distance, floatConst(0.5)),
                          b.CreateFAdd(t, away), t);
  }

private:
  llvm::IRBuilder<> &b;
  const Format &f;
};

} // namespace

void addFreestandingRounding(llvm::Module &module) {
  llvm::LLVMContext &context = module.getContext();
  const Format formats[] = {
      {llvm::Type::getFloatTy(context), llvm::Type::getInt32Ty(context), 23,
       127, 0xff},
      {llvm::Type::getDoubleTy(context), llvm::Type::getInt64Ty(context), 52,
       1023, 0x7ff},
  };
  for (const Format &format : formats) {
    bool isFloat = format.mantissaBits == 23;
    auto name = [&](llvm::StringRef base) {
      return (base + (isFloat ? "f" : "")).str();
    };
    using Member = llvm::Value *(Rounding::*)(llvm::Value *);
    const std::pair<const char *, Member> functions[] = {
        {"trunc", &Rounding::trunc},
        {"floor", &Rounding::floor},
        {"ceil", &Rounding::ceil},
        {"rint", &Rounding::roundEven},
        {"nearbyint", &Rounding::roundEven},
        {"roundeven", &Rounding::roundEven},
        {"round", &Rounding::round},
    };
    for (const auto &[base, member] : functions) {
      llvm::Function *function = define(module, name(base), format.floatType);
      if (!function) {
        continue;
      }
      llvm::IRBuilder<> b(&function->getEntryBlock());
      Rounding rounding(b, format);
      b.CreateRet((rounding.*member)(function->getArg(0)));
    }
  }
}

} // namespace mlir::strata::llvmcpu
