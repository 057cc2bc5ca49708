//===- LibraryEmitter.cpp - the kernel ABI's tables in LLVM IR ------------===//
//
// Writes, with the LLVM C++ API, what samples/executable_library/
// sample_kernels.c writes by hand in C: a dispatch function per export, the
// export table (struct of arrays), the header and the query function. The
// offsets, version and query symbol come from the kernel ABI's header,
// hal/include/strata/hal/executable_library.h (v0, LP64); the assertions
// below pin every field written or read here, so a layout change in the
// header fails this file's build.
//
//===----------------------------------------------------------------------===//
#include "LibraryEmitter.h"

#include "strata/hal/executable_library.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"

namespace mlir::strata::llvmcpu {
namespace {

using DispatchState = strata_hal_executable_dispatch_state_v0_t;
using WorkgroupState = strata_hal_executable_workgroup_state_v0_t;
using WorkgroupStateV1 = strata_hal_executable_workgroup_state_v1_t;
using DispatchDetail = strata_hal_executable_dispatch_detail_v1_t;
using DispatchAttrs = strata_hal_executable_dispatch_attrs_v0_t;
using ImportTable = strata_hal_executable_import_table_v0_t;
using ExportTable = strata_hal_executable_export_table_v0_t;
using LibraryHeader = strata_hal_executable_library_header_t;
using Library = strata_hal_executable_library_v0_t;

// Fields the dispatch functions read. The emitted code loads them at these
// offsets of the target's (LP64) layout; this compiler is LP64 too.
static_assert(sizeof(void *) == 8 && sizeof(size_t) == 8,
              "the kernel ABI tables are emitted for LP64 targets");
constexpr uint64_t kDispatchConstantCountOffset =
    offsetof(DispatchState, constant_count); // uint16_t
constexpr uint64_t kDispatchBindingCountOffset =
    offsetof(DispatchState, binding_count); // uint16_t
constexpr uint64_t kDispatchConstantsOffset =
    offsetof(DispatchState, constants); // const uint32_t*
constexpr uint64_t kDispatchBindingPtrsOffset =
    offsetof(DispatchState, binding_ptrs); // void* const*
constexpr uint64_t kDispatchBindingLengthsOffset =
    offsetof(DispatchState, binding_lengths); // const size_t*
constexpr uint64_t kWorkgroupIdXOffset =
    offsetof(WorkgroupState, workgroup_id_x); // uint32_t
constexpr uint64_t kWorkgroupIdYOffset =
    offsetof(WorkgroupState, workgroup_id_y); // uint32_t
constexpr uint64_t kLocalMemoryOffset =
    offsetof(WorkgroupState, local_memory); // void*
constexpr uint64_t kLocalMemorySizeOffset =
    offsetof(WorkgroupState, local_memory_size); // uint32_t
// Version 1: the detail pointer after the version 0 state, and its fields.
constexpr uint64_t kWorkgroupDetailOffset =
    offsetof(WorkgroupStateV1, detail); // dispatch_detail_v1_t*
constexpr uint64_t kDetailKindOffset = offsetof(DispatchDetail, kind);
constexpr uint64_t kDetailIndexOffset = offsetof(DispatchDetail, index);
constexpr uint64_t kDetailBoundOffset = offsetof(DispatchDetail, bound);
static_assert(offsetof(WorkgroupStateV1, v0) == 0 &&
                  sizeof(DispatchDetail::kind) == 4 &&
                  sizeof(DispatchDetail::index) == 8 &&
                  sizeof(DispatchDetail::bound) == 8,
              "the dispatch functions store these widths");
static_assert(sizeof(DispatchState::constant_count) == 2 &&
                  sizeof(DispatchState::binding_count) == 2 &&
                  sizeof(WorkgroupState::workgroup_id_x) == 4 &&
                  sizeof(WorkgroupState::workgroup_id_y) == 4 &&
                  sizeof(WorkgroupState::local_memory_size) == 4,
              "the dispatch functions load these widths");

// The tables written as LLVM constant structs: each struct type below lists
// its fields in the header's order with these offsets (LLVM's natural
// layout of those types on LP64), so the pins say the two agree.
// {i16, i16, i32, i32, i32, i32, i32}
static_assert(offsetof(DispatchAttrs, binding_count) == 0 &&
                  offsetof(DispatchAttrs, constant_count) == 2 &&
                  offsetof(DispatchAttrs, local_memory_size) == 4 &&
                  offsetof(DispatchAttrs, workgroup_size_x) == 8 &&
                  offsetof(DispatchAttrs, workgroup_size_y) == 12 &&
                  offsetof(DispatchAttrs, workgroup_size_z) == 16 &&
                  offsetof(DispatchAttrs, reserved0) == 20 &&
                  sizeof(DispatchAttrs) == 24,
              "dispatch_attrs_v0 as emitted");
// {i32, i32, ptr, i64}
static_assert(offsetof(LibraryHeader, version) == 0 &&
                  offsetof(LibraryHeader, sanitizer) == 4 &&
                  offsetof(LibraryHeader, name) == 8 &&
                  offsetof(LibraryHeader, required_features) == 16 &&
                  sizeof(LibraryHeader) == 24,
              "library_header as emitted");
// {i32, i32, ptr}
static_assert(offsetof(ImportTable, count) == 0 &&
                  offsetof(ImportTable, reserved0) == 4 &&
                  offsetof(ImportTable, symbols) == 8 &&
                  sizeof(ImportTable) == 16,
              "import_table_v0 as emitted");
// {i32, i32, ptr, ptr, ptr, ptr}
static_assert(offsetof(ExportTable, count) == 0 &&
                  offsetof(ExportTable, reserved0) == 4 &&
                  offsetof(ExportTable, ptrs) == 8 &&
                  offsetof(ExportTable, names) == 16 &&
                  offsetof(ExportTable, tags) == 24 &&
                  offsetof(ExportTable, attrs) == 32 &&
                  sizeof(ExportTable) == 40,
              "export_table_v0 as emitted");
// {ptr, imports, exports}
static_assert(offsetof(Library, header) == 0 &&
                  offsetof(Library, imports) == 8 &&
                  offsetof(Library, exports) == 24 && sizeof(Library) == 64,
              "library_v0 as emitted");

constexpr llvm::StringLiteral kQuerySymbol =
    STRATA_HAL_EXECUTABLE_LIBRARY_QUERY_SYMBOL;
// Version 1: guarded kernels write the dispatch detail.
constexpr uint32_t kLibraryVersion = STRATA_HAL_EXECUTABLE_LIBRARY_VERSION_1;

llvm::Value *loadAt(llvm::IRBuilder<> &builder, llvm::Type *type,
                    llvm::Value *base, uint64_t offset) {
  llvm::Value *address =
      builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), base, offset);
  return builder.CreateLoad(type, address);
}

// The 32-bit push constants a kernel's scalar inputs take: one for i1..i32
// and f32, two (low word first) for i64, index and f64.
uint32_t constantWords(llvm::Function *kernel, uint32_t inputCount) {
  uint32_t words = 0;
  for (uint32_t i = 0; i < inputCount; ++i) {
    llvm::Type *type = kernel->getArg(i)->getType();
    if (!type->isPointerTy()) {
      words += type->getPrimitiveSizeInBits() > 32 ? 2 : 1;
    }
  }
  return words;
}

// int dispatch(const environment*, const dispatch_state*,
//              const workgroup_state*): checks the binding and constant
// counts, loads the bindings, push constants and workgroup ids, calls the
// kernel and returns 0.
llvm::Function *emitDispatchFunction(llvm::Module &module,
                                     const KernelExport &exported,
                                     llvm::Function *kernel) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptrType = llvm::PointerType::getUnqual(context);
  llvm::Type *i32Type = llvm::Type::getInt32Ty(context);
  auto *type = llvm::FunctionType::get(i32Type, {ptrType, ptrType, ptrType},
                                       /*isVarArg=*/false);
  auto *function =
      llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                             "__strata_dispatch_" + exported.name, module);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Argument *dispatchState = function->getArg(1);
  llvm::Argument *workgroupState = function->getArg(2);
  dispatchState->setName("dispatch_state");
  workgroupState->setName("workgroup_state");

  auto *entry = llvm::BasicBlock::Create(context, "entry", function);
  auto *run = llvm::BasicBlock::Create(context, "run", function);
  auto *fail = llvm::BasicBlock::Create(context, "bad_state", function);
  llvm::IRBuilder<> builder(entry);
  llvm::MDNode *unlikely =
      llvm::MDBuilder(context).createUnlikelyBranchWeights();
  // A failing check writes what failed into the version 1 detail (when the
  // runtime passed one), then returns STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE;
  // the device names the export and the binding from it.
  auto failWith = [&](uint32_t kind, llvm::Value *index,
                      llvm::Value *bound) -> llvm::BasicBlock * {
    auto *block =
        llvm::BasicBlock::Create(context, "bad_state_detail", function, fail);
    llvm::IRBuilder<> failing(block);
    llvm::Value *detail =
        loadAt(failing, ptrType, workgroupState, kWorkgroupDetailOffset);
    auto *write =
        llvm::BasicBlock::Create(context, "write_detail", function, fail);
    failing.CreateCondBr(failing.CreateIsNotNull(detail), write, fail);
    failing.SetInsertPoint(write);
    auto storeAt = [&](llvm::Value *value, uint64_t offset) {
      failing.CreateStore(value, failing.CreateConstInBoundsGEP1_64(
                                     failing.getInt8Ty(), detail, offset));
    };
    storeAt(failing.getInt32(kind), kDetailKindOffset);
    storeAt(index, kDetailIndexOffset);
    storeAt(bound, kDetailBoundOffset);
    failing.CreateBr(fail);
    return block;
  };
  // Continues in a new block when `ok`, else branches to `failed`.
  auto check = [&](llvm::Value *ok, llvm::BasicBlock *failed) {
    auto *next = llvm::BasicBlock::Create(context, "checked", function);
    builder.CreateCondBr(ok, next, failed, unlikely);
    builder.SetInsertPoint(next);
  };
  uint32_t bindingCount = static_cast<uint32_t>(exported.bindingBytes.size());
  uint32_t words = constantWords(kernel, exported.inputCount);
  llvm::Value *actualCount = loadAt(builder, builder.getInt16Ty(),
                                    dispatchState, kDispatchBindingCountOffset);
  llvm::Value *enough = builder.CreateICmpUGE(
      actualCount, builder.getInt16(static_cast<uint16_t>(bindingCount)));
  llvm::Value *actualConstants = loadAt(
      builder, builder.getInt16Ty(), dispatchState, kDispatchConstantCountOffset);
  enough = builder.CreateAnd(
      enough, builder.CreateICmpUGE(actualConstants,
                                    builder.getInt16(static_cast<uint16_t>(words))));
  // (The device checks the counts against the export's attributes first.)
  check(enough, fail);
  // Every binding must hold the bytes the kernel reads or writes; the
  // lengths are only read once the count is known to be enough.
  if (bindingCount) {
    llvm::Value *lengths =
        loadAt(builder, ptrType, dispatchState, kDispatchBindingLengthsOffset);
    for (uint32_t i = 0; i < bindingCount; ++i) {
      if (i < exported.bindingSizeArgs.size() &&
          !exported.bindingSizeArgs[i].empty()) {
        continue; // checked against its sizes below
      }
      llvm::Value *slot =
          builder.CreateConstInBoundsGEP1_64(builder.getInt64Ty(), lengths, i);
      llvm::Value *length = builder.CreateLoad(builder.getInt64Ty(), slot);
      llvm::Value *needed = builder.getInt64(exported.bindingBytes[i]);
      check(builder.CreateICmpUGE(length, needed),
            failWith(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_BINDING,
                     builder.getInt64(i), needed));
    }
  }
  if (exported.localMemorySize) {
    llvm::Value *localSize =
        loadAt(builder, i32Type, workgroupState, kLocalMemorySizeOffset);
    check(builder.CreateICmpUGE(localSize,
                                builder.getInt32(exported.localMemorySize)),
          failWith(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_LOCAL_MEMORY,
                   builder.getInt64(exported.localMemorySize),
                   builder.CreateZExt(localSize, builder.getInt64Ty())));
  }
  builder.CreateBr(run);

  builder.SetInsertPoint(fail);
  // STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE
  builder.CreateRet(builder.getInt32(1));

  builder.SetInsertPoint(run);
  llvm::Value *bindings =
      loadAt(builder, ptrType, dispatchState, kDispatchBindingPtrsOffset);
  auto loadBinding = [&](uint32_t index) -> llvm::Value * {
    llvm::Value *slot =
        builder.CreateConstInBoundsGEP1_64(ptrType, bindings, index);
    return builder.CreateLoad(ptrType, slot);
  };
  llvm::Value *constants =
      words ? loadAt(builder, ptrType, dispatchState, kDispatchConstantsOffset)
            : nullptr;
  uint32_t nextBinding = 0;
  uint32_t nextWord = 0;
  auto loadWord = [&]() -> llvm::Value * {
    llvm::Value *slot =
        builder.CreateConstInBoundsGEP1_64(i32Type, constants, nextWord++);
    return builder.CreateLoad(i32Type, slot);
  };
  llvm::SmallVector<llvm::Value *> args;
  for (uint32_t i = 0; i < exported.inputCount; ++i) {
    llvm::Type *argType = kernel->getArg(i)->getType();
    if (argType->isPointerTy()) {
      args.push_back(loadBinding(nextBinding++));
      continue;
    }
    // A push constant: its bits in one or two words, low word first.
    unsigned bits = argType->getPrimitiveSizeInBits();
    llvm::Value *raw = builder.CreateZExt(loadWord(), builder.getInt64Ty());
    if (bits > 32) {
      llvm::Value *high = builder.CreateZExt(loadWord(), builder.getInt64Ty());
      raw = builder.CreateOr(raw, builder.CreateShl(high, 32));
    }
    llvm::Value *value = builder.CreateTrunc(
        raw, llvm::IntegerType::get(context, bits));
    if (!argType->isIntegerTy()) {
      value = builder.CreateBitCast(value, argType);
    }
    args.push_back(value);
  }
  for (uint64_t offset : {kWorkgroupIdXOffset, kWorkgroupIdYOffset}) {
    llvm::Value *id = loadAt(builder, i32Type, workgroupState, offset);
    args.push_back(builder.CreateZExt(id, builder.getInt64Ty()));
  }
  if (exported.localMemorySize) {
    args.push_back(
        loadAt(builder, ptrType, workgroupState, kLocalMemoryOffset));
  }
  for (uint32_t i = 0; i < exported.resultCount; ++i) {
    args.push_back(loadBinding(nextBinding++));
  }
  // Bindings with dynamic dimensions: the length must cover the static
  // part times the sizes the push constants give, computed without
  // overflow (an overflowing product fails the dispatch).
  if (llvm::any_of(exported.bindingSizeArgs,
                   [](const auto &sizes) { return !sizes.empty(); })) {
    llvm::Value *lengths =
        loadAt(builder, ptrType, dispatchState, kDispatchBindingLengthsOffset);
    llvm::BasicBlock *overflowed =
        failWith(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_SHAPE,
                 builder.getInt64(0), builder.getInt64(-1));
    for (auto [binding, sizes] : llvm::enumerate(exported.bindingSizeArgs)) {
      if (sizes.empty()) {
        continue;
      }
      llvm::Value *needed = builder.getInt64(exported.bindingBytes[binding]);
      for (uint32_t arg : sizes) {
        llvm::Value *product = builder.CreateBinaryIntrinsic(
            llvm::Intrinsic::umul_with_overflow, needed, args[arg]);
        check(builder.CreateNot(builder.CreateExtractValue(product, 1)),
              overflowed);
        needed = builder.CreateExtractValue(product, 0);
      }
      llvm::Value *slot = builder.CreateConstInBoundsGEP1_64(
          builder.getInt64Ty(), lengths, binding);
      llvm::Value *length = builder.CreateLoad(builder.getInt64Ty(), slot);
      check(builder.CreateICmpUGE(length, needed),
            failWith(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_BINDING,
                     builder.getInt64(binding), needed));
    }
  }
  llvm::Value *status =
      builder.CreateCall(kernel->getFunctionType(), kernel, args);
  // A kernel that guards indices computed from data returns its outcome:
  // {code, index, bound} (GuardDataIndices.cpp), the code 0 or
  // STRATA_HAL_EXECUTABLE_DISPATCH_INDEX_OUT_OF_RANGE.
  auto *outcome = llvm::dyn_cast<llvm::StructType>(kernel->getReturnType());
  if (!outcome || outcome->getNumElements() != 3) {
    builder.CreateRet(kernel->getReturnType()->isIntegerTy(32)
                          ? status
                          : builder.getInt32(0));
    return function;
  }
  llvm::Value *code = builder.CreateExtractValue(status, 0);
  auto *failed = llvm::BasicBlock::Create(context, "out_of_range", function);
  auto *done = llvm::BasicBlock::Create(context, "done", function);
  builder.CreateCondBr(builder.CreateICmpNE(code, builder.getInt32(0)), failed,
                       done,
                       llvm::MDBuilder(context).createUnlikelyBranchWeights());
  // The detail pointer of the version 1 state (never NULL from a version 1
  // runtime; checked all the same, as the failure path costs nothing).
  builder.SetInsertPoint(failed);
  llvm::Value *detail =
      loadAt(builder, ptrType, workgroupState, kWorkgroupDetailOffset);
  auto *write = llvm::BasicBlock::Create(context, "write_detail", function);
  builder.CreateCondBr(builder.CreateIsNotNull(detail), write, done);
  builder.SetInsertPoint(write);
  auto storeAt = [&](llvm::Value *value, uint64_t offset) {
    builder.CreateStore(value, builder.CreateConstInBoundsGEP1_64(
                                   builder.getInt8Ty(), detail, offset));
  };
  storeAt(builder.getInt32(STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_INDEX),
          kDetailKindOffset);
  storeAt(builder.CreateExtractValue(status, 1), kDetailIndexOffset);
  storeAt(builder.CreateExtractValue(status, 2), kDetailBoundOffset);
  builder.CreateBr(done);
  builder.SetInsertPoint(done);
  builder.CreateRet(code);
  return function;
}

llvm::GlobalVariable *addConstant(llvm::Module &module, llvm::Constant *init,
                                  const llvm::Twine &name) {
  auto *global = new llvm::GlobalVariable(
      module, init->getType(),
      /*isConstant=*/true, llvm::GlobalValue::InternalLinkage, init, name);
  global->setAlignment(llvm::Align(8));
  return global;
}

} // namespace

std::string emitLibraryABI(llvm::Module &module, llvm::StringRef libraryName,
                           llvm::ArrayRef<KernelExport> exports,
                           uint64_t requiredFeatures) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptrType = llvm::PointerType::getUnqual(context);
  llvm::Type *i16Type = llvm::Type::getInt16Ty(context);
  llvm::Type *i32Type = llvm::Type::getInt32Ty(context);
  llvm::Type *i64Type = llvm::Type::getInt64Ty(context);

  llvm::SmallVector<llvm::Constant *> ptrs, names, attrs;
  // strata_hal_executable_dispatch_attrs_v0_t
  auto *attrsType = llvm::StructType::get(
      context, {i16Type, i16Type, i32Type, i32Type, i32Type, i32Type, i32Type});
  for (const KernelExport &exported : exports) {
    llvm::Function *kernel = module.getFunction(exported.kernelSymbol);
    if (!kernel || kernel->isDeclaration()) {
      return "kernel function '" + exported.kernelSymbol +
             "' is missing from the LLVM module";
    }
    if (kernel->arg_size() != exported.inputCount + exported.resultCount + 2 +
                                  (exported.localMemorySize ? 1 : 0)) {
      return "kernel function '" + exported.kernelSymbol +
             "' has an unexpected signature";
    }
    ptrs.push_back(emitDispatchFunction(module, exported, kernel));
    // The kernel is only called by its dispatch function: inline it there.
    // Its symbol is renamed so an export may be called anything (memcpy,
    // the query function's name...) without clashing.
    kernel->setLinkage(llvm::GlobalValue::InternalLinkage);
    kernel->setName("__strata_kernel_" + exported.name);
    llvm::Constant *name = llvm::ConstantDataArray::getString(
        context, exported.name, /*AddNull=*/true);
    names.push_back(
        addConstant(module, name, "__strata_name_" + exported.name));
    attrs.push_back(llvm::ConstantStruct::get(
        attrsType, {llvm::ConstantInt::get(i16Type, exported.bindingBytes.size()),
                    llvm::ConstantInt::get(
                        i16Type, constantWords(kernel, exported.inputCount)),
                    llvm::ConstantInt::get(i32Type, exported.localMemorySize),
                    llvm::ConstantInt::get(i32Type, 0), // workgroup_size_x: any
                    llvm::ConstantInt::get(i32Type, 0), // workgroup_size_y
                    llvm::ConstantInt::get(i32Type, 0), // workgroup_size_z
                    llvm::ConstantInt::get(i32Type, 0)})); // reserved0
  }
  uint64_t count = exports.size();
  llvm::Constant *ptrTable = addConstant(
      module,
      llvm::ConstantArray::get(llvm::ArrayType::get(ptrType, count), ptrs),
      "__strata_export_ptrs");
  llvm::Constant *nameTable = addConstant(
      module,
      llvm::ConstantArray::get(llvm::ArrayType::get(ptrType, count), names),
      "__strata_export_names");
  llvm::Constant *attrTable = addConstant(
      module,
      llvm::ConstantArray::get(llvm::ArrayType::get(attrsType, count), attrs),
      "__strata_export_attrs");

  // strata_hal_executable_library_header_t
  auto *headerType =
      llvm::StructType::get(context, {i32Type, i32Type, ptrType, i64Type});
  llvm::Constant *libraryNameString = addConstant(
      module, llvm::ConstantDataArray::getString(context, libraryName, true),
      "__strata_library_name");
  llvm::Constant *header = addConstant(
      module,
      llvm::ConstantStruct::get(
          headerType,
          {llvm::ConstantInt::get(i32Type, kLibraryVersion),
           llvm::ConstantInt::get(i32Type,
                                  STRATA_HAL_EXECUTABLE_LIBRARY_SANITIZER_NONE),
           libraryNameString,
           llvm::ConstantInt::get(i64Type, requiredFeatures)}),
      "__strata_library_header");

  // strata_hal_executable_library_v0_t
  auto *importsType =
      llvm::StructType::get(context, {i32Type, i32Type, ptrType});
  auto *exportsType = llvm::StructType::get(
      context, {i32Type, i32Type, ptrType, ptrType, ptrType, ptrType});
  auto *libraryType =
      llvm::StructType::get(context, {ptrType, importsType, exportsType});
  llvm::Constant *nullPtr =
      llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(context));
  llvm::Constant *library = addConstant(
      module,
      llvm::ConstantStruct::get(
          libraryType,
          {header,
           llvm::ConstantStruct::get(
               importsType, {llvm::ConstantInt::get(i32Type, 0),
                             llvm::ConstantInt::get(i32Type, 0), nullPtr}),
           llvm::ConstantStruct::get(exportsType,
                                     {llvm::ConstantInt::get(i32Type, count),
                                      llvm::ConstantInt::get(i32Type, 0),
                                      ptrTable, nameTable,
                                      nullPtr, // tags
                                      attrTable})}),
      "__strata_library");

  // Hide everything else before adding the one exported symbol.
  for (llvm::GlobalValue &global : module.global_values()) {
    if (global.isDeclaration() || global.hasLocalLinkage()) {
      continue;
    }
    global.setVisibility(llvm::GlobalValue::HiddenVisibility);
  }

  // const header* const* query(uint32_t max_version, const environment*)
  // (strata_hal_executable_library_query_fn_t): the library is version 1
  // only (its kernels write the detail of the version 1 workgroup state),
  // so a runtime that asks for at most version 0 gets NULL. The runtime
  // calls it before it has checked the header's CPU features (a multi-ISA
  // module's loader tries its libraries best first), so it must run on any
  // CPU of the architecture: a compare and a select need no feature.
  auto *queryType = llvm::FunctionType::get(ptrType, {i32Type, ptrType}, false);
  if (module.getFunction(kQuerySymbol)) {
    return "the executable already defines " + kQuerySymbol.str();
  }
  auto *query = llvm::Function::Create(
      queryType, llvm::GlobalValue::ExternalLinkage, kQuerySymbol, module);
  query->setVisibility(llvm::GlobalValue::DefaultVisibility);
  query->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", query));
  llvm::Value *supported = builder.CreateICmpUGE(
      query->getArg(0), builder.getInt32(kLibraryVersion));
  builder.CreateRet(builder.CreateSelect(
      supported, library,
      llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(ptrType))));
  return {};
}

void addFreestandingMemoryFunctions(llvm::Module &module) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptrType = llvm::PointerType::getUnqual(context);
  llvm::Type *i8Type = llvm::Type::getInt8Ty(context);
  llvm::Type *i32Type = llvm::Type::getInt32Ty(context);
  llvm::Type *i64Type = llvm::Type::getInt64Ty(context);

  // Builds `name`(ptr dst, <second>, i64 n) -> ptr dst, whose body is a byte
  // loop from index `forward ? 0 : n-1`; `body` stores one byte.
  auto build = [&](llvm::StringRef name, llvm::Type *second,
                   llvm::function_ref<void(llvm::IRBuilder<> &, llvm::Value *,
                                           llvm::Value *, llvm::Value *)>
                       body,
                   bool backwardWhenOverlapping) {
    if (llvm::Function *existing = module.getFunction(name)) {
      if (!existing->isDeclaration()) {
        return;
      }
    }
    auto *type =
        llvm::FunctionType::get(ptrType, {ptrType, second, i64Type}, false);
    llvm::Function *function = module.getFunction(name);
    if (!function) {
      function = llvm::Function::Create(
          type, llvm::GlobalValue::ExternalLinkage, name, module);
    }
    function->setLinkage(llvm::GlobalValue::ExternalLinkage);
    function->setVisibility(llvm::GlobalValue::HiddenVisibility);
    function->addFnAttr("no-builtins");
    function->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::Value *dst = function->getArg(0);
    llvm::Value *src = function->getArg(1);
    llvm::Value *size = function->getArg(2);
    auto *entry = llvm::BasicBlock::Create(context, "entry", function);
    auto *forward = llvm::BasicBlock::Create(context, "forward", function);
    auto *backward = llvm::BasicBlock::Create(context, "backward", function);
    auto *done = llvm::BasicBlock::Create(context, "done", function);
    llvm::IRBuilder<> builder(entry);
    llvm::Value *empty = builder.CreateICmpEQ(size, builder.getInt64(0));
    // The block both loops are entered from.
    llvm::BasicBlock *preheader = entry;
    if (backwardWhenOverlapping) {
      // dst > src: copy from the end so an overlapping source is read first.
      preheader = llvm::BasicBlock::Create(context, "nonempty", function);
      builder.CreateCondBr(empty, done, preheader);
      builder.SetInsertPoint(preheader);
      llvm::Value *after =
          builder.CreateICmpUGT(builder.CreatePtrToInt(dst, i64Type),
                                builder.CreatePtrToInt(src, i64Type));
      builder.CreateCondBr(after, backward, forward);
    } else {
      builder.CreateCondBr(empty, done, forward);
    }
    {
      builder.SetInsertPoint(forward);
      llvm::PHINode *index = builder.CreatePHI(i64Type, 2);
      index->addIncoming(builder.getInt64(0), preheader);
      body(builder, dst, src, index);
      llvm::Value *next = builder.CreateAdd(index, builder.getInt64(1));
      index->addIncoming(next, forward);
      builder.CreateCondBr(builder.CreateICmpEQ(next, size), done, forward);
    }
    if (backwardWhenOverlapping) {
      builder.SetInsertPoint(backward);
      llvm::PHINode *remaining = builder.CreatePHI(i64Type, 2);
      remaining->addIncoming(size, preheader);
      llvm::Value *index = builder.CreateSub(remaining, builder.getInt64(1));
      body(builder, dst, src, index);
      remaining->addIncoming(index, backward);
      builder.CreateCondBr(builder.CreateICmpEQ(index, builder.getInt64(0)),
                           done, backward);
    } else {
      backward->eraseFromParent();
    }
    builder.SetInsertPoint(done);
    builder.CreateRet(dst);
  };

  auto copyByte = [&](llvm::IRBuilder<> &builder, llvm::Value *dst,
                      llvm::Value *src, llvm::Value *index) {
    llvm::Value *from = builder.CreateInBoundsGEP(i8Type, src, index);
    llvm::Value *to = builder.CreateInBoundsGEP(i8Type, dst, index);
    builder.CreateStore(builder.CreateLoad(i8Type, from), to);
  };
  build("memcpy", ptrType, copyByte, /*backwardWhenOverlapping=*/false);
  build("memmove", ptrType, copyByte, /*backwardWhenOverlapping=*/true);
  build(
      "memset", i32Type,
      [&](llvm::IRBuilder<> &builder, llvm::Value *dst, llvm::Value *value,
          llvm::Value *index) {
        llvm::Value *to = builder.CreateInBoundsGEP(i8Type, dst, index);
        builder.CreateStore(builder.CreateTrunc(value, i8Type), to);
      },
      /*backwardWhenOverlapping=*/false);
}

void addFreestandingHalfConversions(llvm::Module &module) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *halfType = llvm::Type::getHalfTy(context);
  llvm::Type *i16Type = llvm::Type::getInt16Ty(context);
  llvm::Type *i32Type = llvm::Type::getInt32Ty(context);
  llvm::Type *floatType = llvm::Type::getFloatTy(context);

  // Creates `name` (hidden, no-builtins) unless the module defines it, and
  // returns a builder at its entry; null when it is already defined.
  auto define = [&](llvm::StringRef name, llvm::Type *result,
                    llvm::Type *argument) -> llvm::Function * {
    llvm::Function *function = module.getFunction(name);
    if (function && !function->isDeclaration()) {
      return nullptr;
    }
    auto *type = llvm::FunctionType::get(result, {argument}, false);
    if (!function) {
      function = llvm::Function::Create(
          type, llvm::GlobalValue::ExternalLinkage, name, module);
    }
    function->setLinkage(llvm::GlobalValue::ExternalLinkage);
    function->setVisibility(llvm::GlobalValue::HiddenVisibility);
    function->addFnAttr("no-builtins");
    function->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::BasicBlock::Create(context, "entry", function);
    return function;
  };

  // float __extendhfsf2(half): exact, in integer operations (an fpext here
  // would call this function).
  if (llvm::Function *function =
          define("__extendhfsf2", floatType, halfType)) {
    llvm::IRBuilder<> b(&function->getEntryBlock());
    llvm::Value *x = b.CreateZExt(
        b.CreateBitCast(function->getArg(0), i16Type), i32Type);
    llvm::Value *sign = b.CreateShl(b.CreateAnd(x, 0x8000), 16);
    llvm::Value *exponent = b.CreateAnd(b.CreateLShr(x, 10), 0x1f);
    llvm::Value *mantissa = b.CreateAnd(x, 0x3ff);
    llvm::Value *shifted = b.CreateShl(mantissa, 13);
    // Normal: rebias the exponent (127 - 15 = 112).
    llvm::Value *normal = b.CreateOr(
        b.CreateOr(sign, b.CreateShl(b.CreateAdd(exponent, b.getInt32(112)),
                                     23)),
        shifted);
    // Infinity and NaN keep their payload.
    llvm::Value *special =
        b.CreateOr(b.CreateOr(sign, b.getInt32(0x7f800000)), shifted);
    // Zero and subnormals: mantissa * 2^-24, exact in f32.
    llvm::Value *small = b.CreateFMul(b.CreateUIToFP(mantissa, floatType),
                                      llvm::ConstantFP::get(floatType, 0x1p-24));
    small = b.CreateOr(b.CreateBitCast(small, i32Type), sign);
    llvm::Value *bits = b.CreateSelect(
        b.CreateICmpEQ(exponent, b.getInt32(0x1f)), special,
        b.CreateSelect(b.CreateICmpEQ(exponent, b.getInt32(0)), small,
                       normal));
    b.CreateRet(b.CreateBitCast(bits, floatType));
  }

  // half __truncsfhf2(float): rounds to nearest even; overflow gives
  // infinity, NaN a quiet NaN.
  if (llvm::Function *function =
          define("__truncsfhf2", halfType, floatType)) {
    llvm::IRBuilder<> b(&function->getEntryBlock());
    llvm::Value *x = b.CreateBitCast(function->getArg(0), i32Type);
    llvm::Value *sign = b.CreateAnd(b.CreateLShr(x, 16), 0x8000);
    llvm::Value *magnitude = b.CreateAnd(x, 0x7fffffff);
    constexpr uint32_t kInfinity = 255u << 23;
    constexpr uint32_t kTooLarge = (127u + 16u) << 23;  // 65536.0
    constexpr uint32_t kSmallest = 113u << 23;          // 2^-14
    constexpr uint32_t kDenormMagic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
    // Out of range: infinity, or a quiet NaN.
    llvm::Value *special = b.CreateSelect(
        b.CreateICmpUGT(magnitude, b.getInt32(kInfinity)),
        b.getInt32(0x7e00), b.getInt32(0x7c00));
    // Subnormal (and zero) results: adding 0.5 (the magic, as a float) makes
    // the FPU round the value to a multiple of 2^-24, left in the low bits
    // of the sum's mantissa.
    llvm::Value *magic = llvm::ConstantInt::get(i32Type, kDenormMagic);
    llvm::Value *sum = b.CreateFAdd(b.CreateBitCast(magnitude, floatType),
                                    b.CreateBitCast(magic, floatType));
    llvm::Value *subnormal = b.CreateSub(b.CreateBitCast(sum, i32Type), magic);
    // Normal results: rebias, then round to nearest even on bit 13.
    llvm::Value *odd = b.CreateAnd(b.CreateLShr(magnitude, 13), 1);
    llvm::Value *rounded = b.CreateAdd(
        b.CreateAdd(magnitude,
                    b.getInt32((static_cast<uint32_t>(15 - 127) << 23) +
                               0xfffu)),
        odd);
    llvm::Value *normal = b.CreateLShr(rounded, 13);
    llvm::Value *bits = b.CreateSelect(
        b.CreateICmpUGE(magnitude, b.getInt32(kTooLarge)), special,
        b.CreateSelect(b.CreateICmpULT(magnitude, b.getInt32(kSmallest)),
                       subnormal, normal));
    bits = b.CreateOr(b.CreateTrunc(bits, i16Type),
                      b.CreateTrunc(sign, i16Type));
    b.CreateRet(b.CreateBitCast(bits, halfType));
  }
}

} // namespace mlir::strata::llvmcpu
