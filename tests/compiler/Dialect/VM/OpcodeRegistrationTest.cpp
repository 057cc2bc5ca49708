// OpcodeRegistrationTest.cpp - the built vm dialect has one op per opcodes.def row.
//
// Complements check_vm_opcode_coverage.py (which reads the .td records): this
// asks the registered dialect itself. Each row's "vm.<mnemonic>" must be a
// registered op whose OpcodeOpInterface::getOpcode() is that row, and no
// other registered vm op may implement the interface.

#include "Strata/Dialect/VM/IR/VMDialect.h"
#include "Strata/Dialect/VM/IR/VMOps.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;
using namespace mlir::strata::vm;

namespace {

struct Row {
  const char *name;
  Opcode opcode;
  const char *mnemonic;
};

const Row kRows[] = {
#define STRATA_OP(name, number, mnemonic, format)                              \
  {#name, Opcode::name, mnemonic},
#include "opcodes.def"
};

} // namespace

int main() {
  MLIRContext context;
  context.loadDialect<VMDialect>();
  int failures = 0;
  for (const Row &row : kRows) {
    std::string opName = std::string("vm.") + row.mnemonic;
    std::optional<RegisteredOperationName> name =
        RegisteredOperationName::lookup(opName, &context);
    if (!name) {
      llvm::errs() << "row " << row.name << ": no registered op " << opName
                   << "\n";
      ++failures;
      continue;
    }
    auto *iface = name->getInterface<OpcodeOpInterface>();
    if (!iface) {
      llvm::errs() << "row " << row.name << ": " << opName
                   << " does not implement OpcodeOpInterface\n";
      ++failures;
      continue;
    }
    if (iface->getOpcode() != row.opcode) {
      llvm::errs() << "row " << row.name << ": " << opName
                   << " encodes as opcode "
                   << static_cast<unsigned>(iface->getOpcode()) << ", not "
                   << static_cast<unsigned>(row.opcode) << "\n";
      ++failures;
    }
  }
  size_t withInterface = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() == "vm" &&
        name.hasInterface<OpcodeOpInterface>()) {
      ++withInterface;
    }
  }
  size_t rowCount = sizeof(kRows) / sizeof(kRows[0]);
  if (withInterface != rowCount) {
    llvm::errs() << withInterface << " vm ops implement OpcodeOpInterface but "
                 << "opcodes.def has " << rowCount << " rows\n";
    ++failures;
  }
  if (failures == 0) {
    llvm::outs() << rowCount << " opcodes.def rows, each a registered vm op "
                 << "with its opcode\n";
  }
  return failures == 0 ? 0 : 1;
}
