// VMOps.cpp - verifiers and custom syntax of the hand-written vm ops.

#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace mlir::strata::vm;

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

// [^bb1, ^bb2(%x : i32), ...]: the destinations of vm.br_table's cases.
static ParseResult parseBrTableCases(
    OpAsmParser &parser, SmallVectorImpl<Block *> &dests,
    SmallVectorImpl<SmallVector<OpAsmParser::UnresolvedOperand>> &operands,
    SmallVectorImpl<SmallVector<Type>> &types) {
  auto parseCaseOperands = [&](Block *dest) -> ParseResult {
    SmallVector<OpAsmParser::UnresolvedOperand> caseOperands;
    SmallVector<Type> caseTypes;
    if (succeeded(parser.parseOptionalLParen())) {
      if (parser.parseOperandList(caseOperands) ||
          parser.parseColonTypeList(caseTypes) || parser.parseRParen()) {
        return failure();
      }
    }
    dests.push_back(dest);
    operands.push_back(std::move(caseOperands));
    types.push_back(std::move(caseTypes));
    return success();
  };
  // An empty table is allowed: every index takes the default.
  Block *dest = nullptr;
  OptionalParseResult first = parser.parseOptionalSuccessor(dest);
  if (!first.has_value()) {
    return success();
  }
  if (failed(*first) || parseCaseOperands(dest)) {
    return failure();
  }
  while (succeeded(parser.parseOptionalComma())) {
    if (parser.parseSuccessor(dest) || parseCaseOperands(dest)) {
      return failure();
    }
  }
  return success();
}

static void printBrTableCases(OpAsmPrinter &p, Operation *, SuccessorRange dests,
                              OperandRangeRange operands,
                              const TypeRangeRange &) {
  llvm::interleaveComma(llvm::zip(dests, operands), p, [&](auto it) {
    auto [dest, caseOperands] = it;
    p.printSuccessor(dest);
    if (!caseOperands.empty()) {
      p << '(';
      p.printOperands(caseOperands);
      p << " : ";
      llvm::interleaveComma(caseOperands.getTypes(), p);
      p << ')';
    }
  });
}

#define GET_OP_CLASSES
#include "Strata/Dialect/VM/IR/VMOps.cpp.inc"

//===----------------------------------------------------------------------===//
// vm.func
//===----------------------------------------------------------------------===//

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag,
                          std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

static LogicalResult verifyVMTypes(Operation *op, TypeRange types,
                                   StringRef what) {
  for (auto [index, type] : llvm::enumerate(types)) {
    if (!isPrimType(type) && !isRefType(type)) {
      return op->emitOpError() << what << " #" << index << " has type " << type
                               << ", which no VM register holds";
    }
  }
  return success();
}

LogicalResult FuncOp::verify() {
  if (failed(verifyVMTypes(*this, getArgumentTypes(), "argument")) ||
      failed(verifyVMTypes(*this, getResultTypes(), "result"))) {
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// vm.initializer
//===----------------------------------------------------------------------===//

void InitializerOp::build(OpBuilder &builder, OperationState &result,
                          StringRef name) {
  build(builder, result, builder.getStringAttr(name),
        TypeAttr::get(builder.getFunctionType({}, {})),
        /*arg_attrs=*/ArrayAttr(), /*res_attrs=*/ArrayAttr());
}

// vm.initializer @name attributes {...} { body }
ParseResult InitializerOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes)) {
    return failure();
  }
  result.addAttribute(
      getFunctionTypeAttrName(result.name),
      TypeAttr::get(parser.getBuilder().getFunctionType({}, {})));
  Region *body = result.addRegion();
  return parser.parseRegion(*body, /*arguments=*/{});
}

void InitializerOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {getSymNameAttrName(), getFunctionTypeAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

LogicalResult InitializerOp::verify() {
  FunctionType type = getFunctionType();
  if (type.getNumInputs() != 0 || type.getNumResults() != 0) {
    return emitOpError("takes and returns nothing, but has type ") << type;
  }
  if (getBody().empty()) {
    return emitOpError("needs a body");
  }
  for (Operation *before = (*this)->getPrevNode(); before;
       before = before->getPrevNode()) {
    if (isa<InitializerOp>(before)) {
      return emitOpError("is a second initializer of the module; a module "
                         "has at most one");
    }
  }
  return success();
}

OpBuilder mlir::strata::vm::getInitializerBuilder(ModuleOp module) {
  Block &body = module.getBody().front();
  OpBuilder builder(module.getContext());
  for (auto init : body.getOps<InitializerOp>()) {
    builder.setInsertionPoint(init.getBody().back().getTerminator());
    return builder;
  }
  Location loc = module.getLoc();
  builder.setInsertionPointToEnd(&body);
  // The runtime finds the initializer through the module, not by name, so
  // its name only has to be free: a user function may be called __init.
  std::string name = "__init";
  for (unsigned suffix = 1;
       SymbolTable::lookupSymbolIn(module, builder.getStringAttr(name));
       ++suffix) {
    name = "__init_" + std::to_string(suffix);
  }
  auto init = InitializerOp::create(builder, loc, name);
  builder.setInsertionPointToStart(&init.getBody().emplaceBlock());
  auto ret = ReturnOp::create(builder, loc, ValueRange());
  builder.setInsertionPoint(ret);
  return builder;
}

//===----------------------------------------------------------------------===//
// vm.import / vm.export / vm.global.ref
//===----------------------------------------------------------------------===//

LogicalResult ImportOp::verify() {
  if (!getSymName().contains('.')) {
    return emitOpError("name '")
           << getSymName() << "' must be qualified as module.function";
  }
  FunctionType type = getFunctionType();
  if (failed(verifyVMTypes(*this, type.getInputs(), "argument")) ||
      failed(verifyVMTypes(*this, type.getResults(), "result"))) {
    return failure();
  }
  if (std::optional<ArrayRef<int32_t>> spans = getVariadicSpans()) {
    if (spans->size() % 2 != 0) {
      return emitOpError("variadic_spans must hold (start, length) pairs");
    }
    int64_t end = 0;
    for (size_t i = 0; i < spans->size(); i += 2) {
      int64_t start = (*spans)[i], length = (*spans)[i + 1];
      if (start < end || length < 1 ||
          start + length > static_cast<int64_t>(type.getNumInputs())) {
        return emitOpError("variadic span (")
               << start << ", " << length << ") must be non-empty, follow "
               << "the previous span and lie within the "
               << type.getNumInputs() << " inputs";
      }
      end = start + length;
    }
  }
  return success();
}

LogicalResult ExportOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!symbolTable.lookupNearestSymbolFrom<FuncOp>(*this,
                                                   getFunctionRefAttr())) {
    return emitOpError("exports '")
           << getFunctionRef() << "', which is not a vm.func of this module";
  }
  return success();
}

LogicalResult GlobalRefOp::verify() {
  if (!isRefType(getType())) {
    return emitOpError("type must be a ref type, got ") << getType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Symbol uses of the generated opcode ops
//===----------------------------------------------------------------------===//

LogicalResult mlir::strata::vm::verifyGlobalAccess(
    Operation *op, FlatSymbolRefAttr global, bool isStore, Type valueType,
    SymbolTableCollection &symbolTable) {
  Operation *symbol = symbolTable.lookupNearestSymbolFrom(op, global);
  if (!symbol) {
    return op->emitOpError("refers to '")
           << global.getValue() << "', which is not a global of this module";
  }
  bool isMutable = false;
  bool kindMatches = false;
  if (auto g = dyn_cast<GlobalI32Op>(symbol)) {
    kindMatches = valueType.isInteger(32);
    isMutable = g.getIsMutable();
  } else if (auto g = dyn_cast<GlobalI64Op>(symbol)) {
    kindMatches = valueType.isInteger(64);
    isMutable = g.getIsMutable();
  } else if (auto g = dyn_cast<GlobalF32Op>(symbol)) {
    kindMatches = valueType.isF32();
    isMutable = g.getIsMutable();
  } else if (auto g = dyn_cast<GlobalF64Op>(symbol)) {
    kindMatches = valueType.isF64();
    isMutable = g.getIsMutable();
  } else if (auto g = dyn_cast<GlobalRefOp>(symbol)) {
    kindMatches = valueType == g.getType();
    isMutable = g.getIsMutable();
  } else {
    return op->emitOpError("refers to '")
           << global.getValue() << "', which is not a global of this module";
  }
  if (!kindMatches) {
    return op->emitOpError("accesses a ")
           << valueType << " through '" << global.getValue() << "', a '"
           << symbol->getName() << "'";
  }
  if (isStore && !isMutable) {
    return op->emitOpError("stores to '")
           << global.getValue() << "', which is not mutable";
  }
  return success();
}

LogicalResult
mlir::strata::vm::verifyRodataUse(Operation *op, FlatSymbolRefAttr rodata,
                                  SymbolTableCollection &symbolTable) {
  if (!symbolTable.lookupNearestSymbolFrom<RodataOp>(op, rodata)) {
    return op->emitOpError("refers to '")
           << rodata.getValue() << "', which is not a vm.rodata of this module";
  }
  return success();
}

LogicalResult
mlir::strata::vm::verifyImportUse(Operation *op, FlatSymbolRefAttr import,
                                  SymbolTableCollection &symbolTable) {
  if (!symbolTable.lookupNearestSymbolFrom<ImportOp>(op, import)) {
    return op->emitOpError("refers to '")
           << import.getValue() << "', which is not a vm.import of this module";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Branches
//===----------------------------------------------------------------------===//

SuccessorOperands BrOp::getSuccessorOperands(unsigned index) {
  return SuccessorOperands(getDestOperandsMutable());
}

SuccessorOperands YieldOp::getSuccessorOperands(unsigned index) {
  return SuccessorOperands(getDestOperandsMutable());
}

SuccessorOperands CondBrOp::getSuccessorOperands(unsigned index) {
  return SuccessorOperands(index == 0 ? getTrueDestOperandsMutable()
                                      : getFalseDestOperandsMutable());
}

// Successor 0 is the default destination, then the cases in order.
SuccessorOperands BrTableOp::getSuccessorOperands(unsigned index) {
  if (index == 0) {
    return SuccessorOperands(getDefaultOperandsMutable());
  }
  return SuccessorOperands(getCaseOperandsMutable()[index - 1]);
}

namespace {

/// A copy of the terminator `dest` consists of when it holds nothing but a
/// vm.br or a vm.return, with `operands` standing in for its block
/// arguments. Only when those arguments are used by that terminator alone:
/// then every other value it uses dominates `dest`, hence each of its
/// predecessors, and nothing past `dest` loses its definition.
Operation *cloneTrivialSuccessor(PatternRewriter &rewriter, Block *dest,
                                 ValueRange operands, Location loc) {
  if (!llvm::hasSingleElement(*dest)) {
    return nullptr;
  }
  Operation *terminator = dest->getTerminator();
  if (!isa<BrOp, ReturnOp>(terminator)) {
    return nullptr;
  }
  for (BlockArgument arg : dest->getArguments()) {
    for (Operation *user : arg.getUsers()) {
      if (user != terminator) {
        return nullptr;
      }
    }
  }
  IRMapping mapping;
  mapping.map(dest->getArguments(), operands);
  Operation *clone = rewriter.clone(*terminator, mapping);
  clone->setLoc(loc);
  return clone;
}

/// br ^bb(args) where ^bb has no other predecessor: merge the blocks.
/// br to a block that only branches or returns: do that here instead.
struct SimplifyBr : OpRewritePattern<BrOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BrOp op,
                                PatternRewriter &rewriter) const override {
    Block *dest = op.getDest();
    Block *block = op->getBlock();
    if (dest == block) {
      return failure();
    }
    if (dest->getSinglePredecessor() == block) {
      SmallVector<Value> operands(op.getDestOperands());
      rewriter.eraseOp(op);
      rewriter.mergeBlocks(dest, block, operands);
      return success();
    }
    // A trivial block that branches to itself would loop forever here.
    if (auto next = dyn_cast<BrOp>(dest->getTerminator());
        next && next.getDest() == dest) {
      return failure();
    }
    rewriter.setInsertionPoint(op);
    if (!cloneTrivialSuccessor(rewriter, dest, op.getDestOperands(),
                               op.getLoc())) {
      return failure();
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// cond_br on a constant, or to one destination with the same operands
/// either way, is a br.
struct SimplifyCondBr : OpRewritePattern<CondBrOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CondBrOp op,
                                PatternRewriter &rewriter) const override {
    APInt condition;
    if (matchPattern(op.getCondition(), m_ConstantInt(&condition))) {
      bool taken = !condition.isZero();
      rewriter.replaceOpWithNewOp<BrOp>(
          op, taken ? op.getTrueDestOperands() : op.getFalseDestOperands(),
          taken ? op.getTrueDest() : op.getFalseDest());
      return success();
    }
    if (op.getTrueDest() == op.getFalseDest() &&
        op.getTrueDestOperands() == op.getFalseDestOperands()) {
      rewriter.replaceOpWithNewOp<BrOp>(op, op.getTrueDestOperands(),
                                        op.getTrueDest());
      return success();
    }
    return failure();
  }
};

} // namespace

void BrOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                       MLIRContext *context) {
  results.add<SimplifyBr>(context);
}

void CondBrOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<SimplifyCondBr>(context);
}

LogicalResult BrTableOp::verify() {
  if (getCaseDests().size() != getCaseOperands().size()) {
    return emitOpError("has ")
           << getCaseDests().size() << " case destinations but "
           << getCaseOperands().size() << " case operand lists";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// vm.return
//===----------------------------------------------------------------------===//

LogicalResult ReturnOp::verify() {
  auto func = cast<FunctionOpInterface>((*this)->getParentOp());
  ArrayRef<Type> results = func.getResultTypes();
  if (getNumOperands() != results.size()) {
    return emitOpError("returns ")
           << getNumOperands() << " values but '" << func.getName() << "' has "
           << results.size() << " results";
  }
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(getOperandTypes(), results))) {
    auto [actual, expected] = pair;
    if (actual != expected) {
      return emitOpError("result #")
             << index << " has type " << actual << " but '" << func.getName()
             << "' returns " << expected;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

static LogicalResult verifyCallSignature(Operation *op, StringRef callee,
                                         FunctionType type) {
  if (op->getOperandTypes() != TypeRange(type.getInputs()) ||
      op->getResultTypes() != TypeRange(type.getResults())) {
    return op->emitOpError("signature does not match '")
           << callee << "' of type " << type;
  }
  return success();
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto func = symbolTable.lookupNearestSymbolFrom<FuncOp>(*this, getCalleeAttr());
  if (!func) {
    return emitOpError("calls '")
           << getCallee() << "', which is not a vm.func of this module";
  }
  return verifyCallSignature(*this, getCallee(), func.getFunctionType());
}

LogicalResult
CallImportOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto import =
      symbolTable.lookupNearestSymbolFrom<ImportOp>(*this, getCalleeAttr());
  if (!import) {
    return emitOpError("calls '")
           << getCallee() << "', which is not a vm.import of this module";
  }
  return verifyCallSignature(*this, getCallee(), import.getFunctionType());
}

LogicalResult
CallVariadicOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto import =
      symbolTable.lookupNearestSymbolFrom<ImportOp>(*this, getCalleeAttr());
  if (!import) {
    return emitOpError("calls '")
           << getCallee() << "', which is not a vm.import of this module";
  }
  // Expand the import's inputs: each span repeats segment_sizes[i] times.
  ArrayRef<int32_t> spans = import.getVariadicSpans().value_or(
      ArrayRef<int32_t>());
  ArrayRef<int32_t> sizes = getSegmentSizes();
  if (sizes.size() * 2 != spans.size()) {
    return emitOpError("gives ")
           << sizes.size() << " segment sizes but '" << getCallee() << "' has "
           << spans.size() / 2 << " variadic spans";
  }
  ArrayRef<Type> inputs = import.getFunctionType().getInputs();
  SmallVector<Type> expanded;
  size_t next = 0;
  for (size_t s = 0; s < sizes.size(); ++s) {
    if (sizes[s] < 0) {
      return emitOpError("segment size ") << sizes[s] << " is negative";
    }
    size_t start = spans[2 * s], length = spans[2 * s + 1];
    expanded.append(inputs.begin() + next, inputs.begin() + start);
    for (int32_t i = 0; i < sizes[s]; ++i) {
      expanded.append(inputs.begin() + start, inputs.begin() + start + length);
    }
    next = start + length;
  }
  expanded.append(inputs.begin() + next, inputs.end());
  if (getOperandTypes() != TypeRange(expanded) ||
      getResultTypes() != TypeRange(import.getFunctionType().getResults())) {
    InFlightDiagnostic diag = emitOpError("signature does not match '")
                              << getCallee() << "' of type "
                              << import.getFunctionType()
                              << " with segment sizes [";
    llvm::interleaveComma(sizes, diag);
    return diag << "]";
  }
  return success();
}
