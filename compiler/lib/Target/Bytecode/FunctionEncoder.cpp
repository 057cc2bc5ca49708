// FunctionEncoder.cpp - one instruction per vm op, operands in the order of
// the op's opcodes.def format string; branch remaps as ordered copies.

#include "FunctionEncoder.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::strata::vm;
namespace builder = ::strata::vm::writer;

StringRef mlir::strata::vm::getOpcodeFormat(Opcode opcode) {
  return ::strata::vm::opcodeFormat(opcode);
}

FailureOr<std::string> mlir::strata::vm::getRefTypeName(Type type) {
  if (isa<BufferType>(type)) {
    return std::string("vm.buffer");
  }
  if (isa<ListType>(type)) {
    return std::string("vm.list");
  }
  auto ref = dyn_cast<RefType>(type);
  if (!ref || ref.isOpaque()) {
    return failure();
  }
  std::string name;
  llvm::raw_string_ostream os(name);
  ref.getObjectType().print(os);
  StringRef printed(name);
  return printed.starts_with("!") ? printed.drop_front().str() : name;
}

namespace {

/// The first file location inside `loc`, if any.
std::optional<FileLineColRange> findFileLocation(Location loc) {
  std::optional<FileLineColRange> found;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColRange>(inner)) {
      found = file;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

struct Copy {
  uint16_t src;
  uint16_t dst;
  bool moveable; // the source register's value is dead after the copy
};

class FunctionEncoder {
public:
  FunctionEncoder(FunctionOpInterface func, RegisterAllocation &registers,
                  ModuleOrdinals &ordinals,
                  function_ref<uint32_t(StringRef)> addType, bool emitLocations,
                  builder::FunctionWriter &out)
      : func(func), registers(registers), ordinals(ordinals), addType(addType),
        emitLocations(emitLocations), out(out) {}

  LogicalResult encode();

private:
  LogicalResult encodeOp(Operation *op);
  LogicalResult encodeRemap(Operation *terminator, unsigned successor);
  uint16_t readRegister(OpOperand &operand);
  void noteLocation(Location loc);
  LogicalResult symbolOrdinal(Operation *op, StringRef attrName,
                              const llvm::StringMap<uint32_t> &table,
                              StringRef what);

  FunctionOpInterface func;
  RegisterAllocation &registers;
  ModuleOrdinals &ordinals;
  function_ref<uint32_t(StringRef)> addType;
  bool emitLocations;
  builder::FunctionWriter &out;
  DenseMap<Block *, uint32_t> blockIds;
  std::optional<std::tuple<std::string, unsigned, unsigned>> lastLocation;
};

LogicalResult FunctionEncoder::encode() {
  for (Block &block : func.getFunctionBody()) {
    blockIds[&block] = block.isEntryBlock() ? 0 : out.newBlock();
  }
  for (Block &block : func.getFunctionBody()) {
    out.bind(blockIds[&block]);
    for (Operation &op : block) {
      if (failed(encodeOp(&op))) {
        return failure();
      }
    }
  }
  return success();
}

void FunctionEncoder::noteLocation(Location loc) {
  if (!emitLocations) {
    return;
  }
  std::optional<FileLineColRange> file = findFileLocation(loc);
  if (!file) {
    return;
  }
  std::tuple<std::string, unsigned, unsigned> key{
      file->getFilename().str(), file->getStartLine(), file->getStartColumn()};
  if (lastLocation == key) {
    return;
  }
  out.location(std::get<0>(key), std::get<1>(key), std::get<2>(key));
  lastLocation = std::move(key);
}

uint16_t FunctionEncoder::readRegister(OpOperand &operand) {
  uint16_t reg = registers.getRegister(operand.get());
  if ((reg & STRATA_REGISTER_REF_BIT) && registers.isLastUse(operand)) {
    reg |= STRATA_REGISTER_MOVE_BIT;
  }
  return reg;
}

LogicalResult FunctionEncoder::symbolOrdinal(
    Operation *op, StringRef attrName, const llvm::StringMap<uint32_t> &table,
    StringRef what) {
  auto symbol = op->getAttrOfType<FlatSymbolRefAttr>(attrName);
  if (!symbol) {
    return op->emitError("has no '") << attrName << "' symbol to encode";
  }
  auto it = table.find(symbol.getValue());
  if (it == table.end()) {
    return op->emitError("refers to '")
           << symbol.getValue() << "', which is not a " << what
           << " of this module";
  }
  out.u32(it->second);
  return success();
}

// Writes the copies that give `successor`'s block arguments their values.
// The remap list runs in order, so the parallel copy is sequentialized: a
// copy goes once no later copy reads its destination, and a cycle is broken
// by saving one destination in a scratch register first.
LogicalResult FunctionEncoder::encodeRemap(Operation *terminator,
                                           unsigned successor) {
  Block *dest = terminator->getSuccessor(successor);
  SuccessorOperands operands =
      cast<BranchOpInterface>(terminator).getSuccessorOperands(successor);
  if (operands.getProducedOperandCount() != 0) {
    return terminator->emitError("produces successor operands, which the "
                                 "bytecode cannot express");
  }
  SmallVector<Copy> pending;
  SmallVector<uint16_t> inPlace; // registers that already hold an argument
  for (unsigned i = 0, e = operands.size(); i < e; ++i) {
    Value value = operands[i];
    uint16_t src = registers.getRegister(value);
    uint16_t dst = registers.getRegister(dest->getArgument(i));
    if (src == dst) {
      inPlace.push_back(src);
      continue;
    }
    bool moveable = (src & STRATA_REGISTER_REF_BIT) &&
                    !registers.isLiveIn(value, dest);
    pending.push_back({src, dst, moveable});
  }
  for (Copy &copy : pending) {
    // A register that stays in place as one argument must keep its ref.
    if (llvm::is_contained(inPlace, copy.src)) {
      copy.moveable = false;
    }
  }

  SmallVector<Copy> ordered;
  while (!pending.empty()) {
    auto ready = llvm::find_if(pending, [&](const Copy &copy) {
      return llvm::none_of(pending, [&](const Copy &other) {
        return &other != &copy && other.src == copy.dst;
      });
    });
    if (ready != pending.end()) {
      ordered.push_back(*ready);
      pending.erase(ready);
      continue;
    }
    // Every destination is still to be read: save one and read the copy.
    uint16_t saved = pending.front().dst;
    FailureOr<uint16_t> scratch =
        registers.getScratchRegister(saved & STRATA_REGISTER_REF_BIT);
    if (failed(scratch)) {
      return terminator->emitError("needs a scratch register to reorder "
                                   "block arguments, but the bank is full");
    }
    // The saved value dies in its register: refs move out of it.
    bool isRef = saved & STRATA_REGISTER_REF_BIT;
    ordered.push_back({saved, *scratch, /*moveable=*/isRef});
    for (Copy &copy : pending) {
      if (copy.src == saved) {
        copy.src = *scratch;
        copy.moveable = isRef;
      }
    }
  }

  // MOVE on the last read of each dying ref register.
  std::vector<builder::Remap> pairs(ordered.size());
  SmallVector<uint16_t> readLater;
  for (size_t i = ordered.size(); i-- > 0;) {
    const Copy &copy = ordered[i];
    uint16_t src = copy.src;
    if (copy.moveable && !llvm::is_contained(readLater, copy.src)) {
      src |= STRATA_REGISTER_MOVE_BIT;
    }
    readLater.push_back(copy.src);
    pairs[i] = {src, copy.dst};
  }
  if (pairs.size() > std::numeric_limits<uint16_t>::max()) {
    return terminator->emitError("passes more block arguments than a remap "
                                 "list holds");
  }
  out.remap(pairs);
  return success();
}

LogicalResult FunctionEncoder::encodeOp(Operation *op) {
  auto opcodeOp = dyn_cast<OpcodeOpInterface>(op);
  if (!opcodeOp) {
    return op->emitError("'")
           << op->getName() << "' has no bytecode encoding; only vm ops with "
           << "an opcodes.def row can be encoded";
  }
  noteLocation(op->getLoc());
  Opcode opcode = opcodeOp.getOpcode();
  StringRef format = getOpcodeFormat(opcode);
  out.op(static_cast<::strata::vm::Opcode>(opcode));

  bool isCall = isa<CallOp, CallImportOp, CallVariadicOp>(op);
  unsigned registerKinds = llvm::count_if(
      format, [](char kind) { return kind == 'a' || kind == 'r'; });
  unsigned registersSeen = 0;
  unsigned nextOperand = 0;
  unsigned nextSuccessor = 0;
  unsigned listsSeen = 0;

  auto valueAttr = [&]() { return op->getAttr("value"); };
  for (char kind : format) {
    switch (kind) {
    case 'a':
    case 'r': {
      ++registersSeen;
      if (op->getNumResults() == 1 && registersSeen == registerKinds) {
        out.reg(registers.getRegister(op->getResult(0)));
      } else {
        out.reg(readRegister(op->getOpOperand(nextOperand++)));
      }
      break;
    }
    case 'i':
      out.i32(static_cast<int32_t>(
          cast<IntegerAttr>(valueAttr()).getValue().getSExtValue()));
      break;
    case 'l':
      out.i64(cast<IntegerAttr>(valueAttr()).getValue().getSExtValue());
      break;
    case 'f':
      out.f32(cast<FloatAttr>(valueAttr()).getValue().convertToFloat());
      break;
    case 'd':
      out.f64(cast<FloatAttr>(valueAttr()).getValue().convertToDouble());
      break;
    case 'F':
      if (failed(symbolOrdinal(op, "callee", ordinals.functions, "vm.func"))) {
        return failure();
      }
      break;
    case 'M':
      if (failed(symbolOrdinal(op, "callee", ordinals.imports, "vm.import"))) {
        return failure();
      }
      break;
    case 'w':
    case 'W':
      if (failed(symbolOrdinal(op, "global", ordinals.primGlobals,
                               "primitive global"))) {
        return failure();
      }
      break;
    case 'G':
      if (failed(symbolOrdinal(op, "global", ordinals.refGlobals,
                               "ref global"))) {
        return failure();
      }
      break;
    case 'D':
      if (failed(symbolOrdinal(op, "rodata", ordinals.rodata, "vm.rodata"))) {
        return failure();
      }
      break;
    case 'T': {
      Type target = cast<TypeAttr>(op->getAttr("target")).getValue();
      FailureOr<std::string> name = getRefTypeName(target);
      if (failed(name)) {
        return op->emitError("casts to ")
               << target << ", which names no registered type";
      }
      out.u32(addType(*name));
      break;
    }
    case 'S': {
      StringRef message = cast<StringAttr>(op->getAttr("message")).getValue();
      if (message.size() > std::numeric_limits<uint16_t>::max()) {
        return op->emitError("has a message of ")
               << message.size() << " bytes; at most 65535 are encodable";
      }
      out.str(message.str());
      break;
    }
    case 'C': {
      auto sizes = op->getAttrOfType<DenseI32ArrayAttr>("segment_sizes");
      std::vector<uint16_t> encoded;
      for (int32_t size : sizes.asArrayRef()) {
        if (size < 0 || size > std::numeric_limits<uint16_t>::max()) {
          return op->emitError("has variadic segment size ")
                 << size << ", which is not encodable";
        }
        encoded.push_back(static_cast<uint16_t>(size));
      }
      out.sizes(encoded);
      break;
    }
    case 'V': {
      std::vector<uint16_t> list;
      if (isCall && listsSeen == 1) {
        for (Value result : op->getResults()) {
          list.push_back(registers.getRegister(result));
        }
      } else {
        for (unsigned e = op->getNumOperands(); nextOperand < e;
             ++nextOperand) {
          list.push_back(readRegister(op->getOpOperand(nextOperand)));
        }
      }
      ++listsSeen;
      if (list.size() > std::numeric_limits<uint16_t>::max()) {
        return op->emitError("has more values than a register list holds");
      }
      out.list(list);
      break;
    }
    case 'B':
      out.block(blockIds.lookup(op->getSuccessor(nextSuccessor++)));
      break;
    case 'P':
      if (failed(encodeRemap(op, nextSuccessor - 1))) {
        return failure();
      }
      break;
    case 'X': {
      auto table = cast<BrTableOp>(op);
      size_t count = table.getCaseDests().size();
      if (count > std::numeric_limits<uint16_t>::max()) {
        return op->emitError("has more cases than the bytecode holds");
      }
      out.u16(static_cast<uint16_t>(count));
      for (size_t i = 0; i < count; ++i) {
        out.block(blockIds.lookup(op->getSuccessor(nextSuccessor)));
        if (failed(encodeRemap(op, nextSuccessor++))) {
          return failure();
        }
      }
      break;
    }
    default:
      return op->emitError("has operand kind '")
             << kind << "' in its opcodes.def format, which the encoder "
             << "does not know";
    }
  }
  return success();
}

} // namespace

LogicalResult mlir::strata::vm::encodeFunction(
    FunctionOpInterface func, RegisterAllocation &registers,
    ModuleOrdinals &ordinals, function_ref<uint32_t(StringRef)> addType,
    bool emitLocations, builder::FunctionWriter &builder) {
  return FunctionEncoder(func, registers, ordinals, addType, emitLocations,
                         builder)
      .encode();
}
