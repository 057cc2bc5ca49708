// BytecodeTarget.cpp - the module-level part of the bytecode target: ordinals,
// global layout, rodata bytes, the initializer and the file itself.

#include "Strata/Target/Bytecode/BytecodeTarget.h"

#include "FunctionEncoder.h"
#include "module_signature.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::strata::vm;
namespace builder = ::strata::vm::writer;

namespace {

FailureOr<char> cconvChar(Operation *op, Type type) {
  if (type.isInteger(32)) {
    return 'i';
  }
  if (type.isInteger(64)) {
    return 'I';
  }
  if (type.isF32()) {
    return 'f';
  }
  if (type.isF64()) {
    return 'F';
  }
  if (isRefType(type)) {
    return 'r';
  }
  op->emitError("has a value of type ")
      << type << ", which no calling convention can pass";
  return failure();
}

/// The little-endian bytes of a vm.rodata value.
FailureOr<std::vector<uint8_t>> rodataBytes(RodataOp op) {
  std::vector<uint8_t> bytes;
  if (auto str = dyn_cast<StringAttr>(op.getValue())) {
    bytes.assign(str.getValue().begin(), str.getValue().end());
    return bytes;
  }
  // Blobs (large constants such as an imported model's weights) are
  // stored as they are: little-endian, as every target of the project.
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(op.getValue())) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob) {
      return op.emitError("holds a dense resource with no data");
    }
    ArrayRef<char> data = blob->getData();
    bytes.assign(data.begin(), data.end());
    return bytes;
  }
  auto elements = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!elements) {
    return op.emitError("holds ") << op.getValue()
                                  << "; only dense elements and strings are "
                                     "encodable";
  }
  auto append = [&](const APInt &value) {
    unsigned byteCount = (value.getBitWidth() + 7) / 8;
    for (unsigned i = 0; i < byteCount; ++i) {
      bytes.push_back(static_cast<uint8_t>(
          value.extractBitsAsZExtValue(std::min(8u, value.getBitWidth() - 8 * i),
                                       8 * i)));
    }
  };
  Type elementType = elements.getElementType();
  // Whole bytes per element, not a splat: the raw data is the encoding
  // (megabytes of weights are copied rather than walked element by element).
  if (!elements.isSplat() && elementType.isIntOrFloat() &&
      elementType.getIntOrFloatBitWidth() % 8 == 0) {
    ArrayRef<char> data = elements.getRawData();
    bytes.assign(data.begin(), data.end());
    return bytes;
  }
  if (isa<IntegerType>(elementType)) {
    for (const APInt &value : elements.getValues<APInt>()) {
      append(value);
    }
  } else if (isa<FloatType>(elementType)) {
    for (const APFloat &value : elements.getValues<APFloat>()) {
      append(value.bitcastToAPInt());
    }
  } else {
    return op.emitError("has elements of type ")
           << elementType << ", which are not encodable";
  }
  return bytes;
}

/// A global's initial value, or nothing when it starts at zero.
std::optional<TypedAttr> initialValue(Operation *op) {
  auto attr = op->getAttrOfType<TypedAttr>("initial_value");
  if (!attr) {
    return std::nullopt;
  }
  if (auto i = dyn_cast<IntegerAttr>(attr); i && i.getValue().isZero()) {
    return std::nullopt;
  }
  if (auto f = dyn_cast<FloatAttr>(attr); f && f.getValue().isPosZero()) {
    return std::nullopt;
  }
  return attr;
}

} // namespace

FailureOr<std::string>
mlir::strata::vm::getCallingConvention(Operation *op, FunctionType type,
                                       ArrayRef<int32_t> variadicSpans) {
  std::string cconv = "0";
  for (auto [index, input] : llvm::enumerate(type.getInputs())) {
    for (size_t s = 0; s + 1 < variadicSpans.size(); s += 2) {
      if (variadicSpans[s] == static_cast<int32_t>(index)) {
        cconv += 'C';
      }
    }
    FailureOr<char> c = cconvChar(op, input);
    if (failed(c)) {
      return failure();
    }
    cconv += *c;
    for (size_t s = 0; s + 1 < variadicSpans.size(); s += 2) {
      if (variadicSpans[s] + variadicSpans[s + 1] - 1 ==
          static_cast<int32_t>(index)) {
        cconv += 'D';
      }
    }
  }
  cconv += '_';
  for (Type result : type.getResults()) {
    FailureOr<char> c = cconvChar(op, result);
    if (failed(c)) {
      return failure();
    }
    cconv += *c;
  }
  return cconv;
}

LogicalResult
mlir::strata::vm::translateModuleToBytecode(ModuleOp module,
                                            const BytecodeTargetOptions &options,
                                            llvm::raw_ostream &os) {
  builder::ModuleWriter out(module.getSymName().str());
  ModuleOrdinals ordinals;
  // vm.funcs and the vm.initializer, in module order.
  SmallVector<FunctionOpInterface> functions;
  // The index of the vm.initializer in `functions`, if any.
  std::optional<uint32_t> userInitializer;
  // Primitive globals: 8-byte ones first, so that nothing needs padding.
  SmallVector<Operation *> globals8, globals4;

  // Per imported module: the highest minimum_version of its imports, and
  // whether every import of it is optional. Written as the module's
  // dependencies, which the runtime checks before it resolves imports.
  struct Needed {
    uint32_t version = 0;
    bool optional = true;
  };
  llvm::MapVector<StringRef, Needed> needed;

  for (Operation &op : module.getBody().front().getOperations()) {
    if (auto import = dyn_cast<ImportOp>(op)) {
      if (std::optional<uint32_t> version = import.getMinimumVersion()) {
        Needed &dep = needed[import.getSymName().split('.').first];
        dep.version = std::max(dep.version, *version);
        dep.optional = dep.optional && import.getIsOptional();
      }
      FailureOr<std::string> cconv = getCallingConvention(
          import, import.getFunctionType(),
          import.getVariadicSpans().value_or(ArrayRef<int32_t>()));
      if (failed(cconv)) {
        return failure();
      }
      ordinals.imports[import.getSymName()] =
          out.addImport(import.getSymName().str(), *cconv,
                        import.getIsOptional());
    } else if (auto func = dyn_cast<FuncOp>(op)) {
      if (func.isExternal()) {
        return func.emitError("has no body; declare functions of other "
                              "modules with vm.import");
      }
      ordinals.functions[func.getSymName()] = functions.size();
      functions.push_back(func);
    } else if (auto init = dyn_cast<InitializerOp>(op)) {
      if (userInitializer) {
        return init.emitError("is a second vm.initializer; a module has one");
      }
      userInitializer = functions.size();
      functions.push_back(init);
    } else if (auto rodata = dyn_cast<RodataOp>(op)) {
      FailureOr<std::vector<uint8_t>> bytes = rodataBytes(rodata);
      if (failed(bytes)) {
        return failure();
      }
      ordinals.rodata[rodata.getSymName()] = out.addRodata(std::move(*bytes));
    } else if (isa<GlobalI64Op, GlobalF64Op>(op)) {
      globals8.push_back(&op);
    } else if (isa<GlobalI32Op, GlobalF32Op>(op)) {
      globals4.push_back(&op);
    } else if (auto global = dyn_cast<GlobalRefOp>(op)) {
      uint32_t ordinal = ordinals.refGlobals.size();
      ordinals.refGlobals[global.getSymName()] = ordinal;
    } else if (!isa<ExportOp>(op)) {
      return op.emitError("'") << op.getName()
                               << "' cannot appear in a vm.module";
    }
  }

  for (const auto &[name, dep] : needed) {
    out.addDependency(name.str(), dep.version, dep.optional);
  }

  uint32_t primBytes = 0;
  for (Operation *global : llvm::concat<Operation *>(globals8, globals4)) {
    ordinals.primGlobals[SymbolTable::getSymbolName(global)] = primBytes;
    primBytes += isa<GlobalI64Op, GlobalF64Op>(global) ? 8 : 4;
  }
  if (primBytes > STRATA_MAX_GLOBAL_PRIM_BYTES ||
      ordinals.refGlobals.size() > STRATA_MAX_GLOBAL_REFS) {
    return module.emitError("has more global state than a module may hold");
  }
  out.setGlobals(primBytes, ordinals.refGlobals.size());

  llvm::StringMap<uint32_t> &types = ordinals.types;
  auto addType = [&](StringRef name) -> uint32_t {
    auto [it, inserted] = types.try_emplace(name, types.size());
    if (inserted) {
      out.addType(name.str());
    }
    return it->second;
  };

  for (FunctionOpInterface func : functions) {
    FailureOr<std::string> cconv =
        getCallingConvention(func, cast<FunctionType>(func.getFunctionType()));
    if (failed(cconv)) {
      return failure();
    }
    builder::FunctionWriter &fb = out.addFunction(func.getName().str(), *cconv);
    FailureOr<std::unique_ptr<RegisterAllocation>> registers =
        RegisterAllocation::compute(func);
    if (failed(registers)) {
      return failure();
    }
    if (failed(encodeFunction(func, **registers, ordinals, addType,
                              options.emitDebugInfo, fb))) {
      return failure();
    }
    fb.registerCounts((*registers)->getPrimCount(),
                      (*registers)->getRefCount());
  }

  // Globals start zeroed; any other initial value is stored once per
  // context by a synthesized initializer.
  SmallVector<std::pair<Operation *, TypedAttr>> initialized;
  for (Operation *global : llvm::concat<Operation *>(globals8, globals4)) {
    if (std::optional<TypedAttr> value = initialValue(global)) {
      initialized.push_back({global, *value});
    }
  }
  // The vm.initializer runs once per context too, after the globals have
  // their initial values.
  if (initialized.empty() && userInitializer) {
    out.setInitializer(static_cast<int32_t>(*userInitializer));
  }
  if (!initialized.empty()) {
    builder::FunctionWriter &init =
        out.addFunction("__strata_initialize_globals", "0_");
    using ::strata::vm::Opcode;
    for (auto [global, value] : initialized) {
      uint32_t offset =
          ordinals.primGlobals.lookup(SymbolTable::getSymbolName(global));
      if (isa<GlobalI32Op>(global)) {
        init.op(Opcode::ConstI32)
            .i32(static_cast<int32_t>(
                cast<IntegerAttr>(value).getValue().getSExtValue()))
            .reg(0);
        init.op(Opcode::GlobalStoreI32).reg(0).u32(offset);
      } else if (isa<GlobalI64Op>(global)) {
        init.op(Opcode::ConstI64)
            .i64(cast<IntegerAttr>(value).getValue().getSExtValue())
            .reg(0);
        init.op(Opcode::GlobalStoreI64).reg(0).u32(offset);
      } else if (isa<GlobalF32Op>(global)) {
        init.op(Opcode::ConstF32)
            .f32(cast<FloatAttr>(value).getValue().convertToFloat())
            .reg(0);
        init.op(Opcode::GlobalStoreF32).reg(0).u32(offset);
      } else {
        init.op(Opcode::ConstF64)
            .f64(cast<FloatAttr>(value).getValue().convertToDouble())
            .reg(0);
        init.op(Opcode::GlobalStoreF64).reg(0).u32(offset);
      }
    }
    if (userInitializer) {
      init.op(Opcode::Call)
          .u32(*userInitializer)
          .list(std::vector<uint16_t>{})
          .list(std::vector<uint16_t>{});
    }
    init.op(Opcode::Return).list(std::vector<uint16_t>{});
    out.setInitializer(static_cast<int32_t>(init.index()));
  }

  for (ExportOp exportOp : module.getBody().front().getOps<ExportOp>()) {
    StringRef name = exportOp.getExportName().value_or(
        exportOp.getFunctionRef());
    auto it = ordinals.functions.find(exportOp.getFunctionRef());
    if (it == ordinals.functions.end()) {
      return exportOp.emitError("exports '")
             << exportOp.getFunctionRef() << "', which is not a vm.func";
    }
    std::vector<std::pair<std::string, std::string>> attrs;
    if (DictionaryAttr reflection = exportOp.getReflectionAttr()) {
      for (NamedAttribute entry : reflection) {
        auto value = dyn_cast<StringAttr>(entry.getValue());
        if (!value) {
          return exportOp.emitError("reflection entry '")
                 << entry.getName().getValue() << "' is not a string";
        }
        attrs.push_back({entry.getName().str(), value.str()});
      }
    }
    out.addExport(name.str(), it->second, std::move(attrs));
  }

  if (!options.emitDebugInfo) {
    out.omitDebugDatabase();
  }
  out.setCompiler(options.compilerName, options.compilerVersion,
                  options.compilerFlags);
  if (!options.signingKeyFile.empty()) {
    std::vector<uint8_t> key(STRATA_MODULE_SECRET_KEY_SIZE);
    strata_status_t status = ::strata::vm::readKeyFile(
        options.signingKeyFile.c_str(), key.size(), key.data());
    if (status) {
      std::string message = strata_status_message(status);
      strata_status_free(status);
      return module.emitError("--sign-key: ") << message;
    }
    out.setSigningKey(std::move(key));
  }
  std::vector<uint8_t> bytes = out.build();
  if (bytes.empty()) {
    return module.emitError("cannot sign the module: ") << out.buildError();
  }
  os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  return success();
}
