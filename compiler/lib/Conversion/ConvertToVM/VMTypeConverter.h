// VMTypeConverter.h - the type converter of the vm conversion: source types
// to vm register types (see --strata-convert-to-vm in Passes.td).

#ifndef STRATA_CONVERSION_CONVERTTOVM_VMTYPECONVERTER_H
#define STRATA_CONVERSION_CONVERTTOVM_VMTYPECONVERTER_H

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::strata {

/// Maps source types to vm register types: i1/i8/i16/i32 -> i32,
/// i64/index -> i64, f32 and f64 and the vm ref types to themselves. Every
/// other type has no conversion. Thread-compatible; holds no state beyond
/// MLIR's conversion caches.
class VMTypeConverter : public TypeConverter {
public:
  VMTypeConverter();
};

} // namespace mlir::strata

#endif // STRATA_CONVERSION_CONVERTTOVM_VMTYPECONVERTER_H
