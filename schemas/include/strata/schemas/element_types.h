/* element_types.h - the element type codes of buffer views: IREE's
 * encoding, (numerical type << 24) | bit width. Part of the contract between
 * the compiler and the runtime (schemas/): compiled programs pass these codes
 * to hal.buffer_view.create and hal.buffer_view.assert, the compiler's
 * hal dialect writes them (mlir::strata::hal::getElementTypeCode, HALOps.cpp)
 * and the runtime's buffer views, tools and embedding API read them
 * (strata/hal/buffer.h includes this header).
 *
 * Standalone C99 (also valid C++), installed with the runtime's headers.
 * Append, never renumber: a module compiled today must mean the same types
 * to every later runtime.
 */
#ifndef STRATA_SCHEMAS_ELEMENT_TYPES_H_
#define STRATA_SCHEMAS_ELEMENT_TYPES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t strata_hal_element_type_t;

#define STRATA_HAL_NUMERICAL_TYPE_INTEGER 0x10u
#define STRATA_HAL_NUMERICAL_TYPE_INTEGER_SIGNED 0x11u
#define STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED 0x12u
#define STRATA_HAL_NUMERICAL_TYPE_BOOLEAN 0x13u
#define STRATA_HAL_NUMERICAL_TYPE_FLOAT_IEEE 0x21u
#define STRATA_HAL_NUMERICAL_TYPE_FLOAT_BRAIN 0x22u
#define STRATA_HAL_ELEMENT_TYPE(numerical, bits) \
  (((uint32_t)(numerical) << 24) | (uint32_t)(bits))

#define STRATA_HAL_ELEMENT_TYPE_NONE 0u
#define STRATA_HAL_ELEMENT_TYPE_BOOL_8 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_BOOLEAN, 8)
#define STRATA_HAL_ELEMENT_TYPE_INT_8 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER, 8)
#define STRATA_HAL_ELEMENT_TYPE_INT_16 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER, 16)
#define STRATA_HAL_ELEMENT_TYPE_INT_32 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER, 32)
#define STRATA_HAL_ELEMENT_TYPE_INT_64 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER, 64)
#define STRATA_HAL_ELEMENT_TYPE_SINT_8 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER_SIGNED, 8)
#define STRATA_HAL_ELEMENT_TYPE_SINT_16 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER_SIGNED, 16)
#define STRATA_HAL_ELEMENT_TYPE_SINT_32 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER_SIGNED, 32)
#define STRATA_HAL_ELEMENT_TYPE_SINT_64 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER_SIGNED, 64)
#define STRATA_HAL_ELEMENT_TYPE_UINT_8 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED, 8)
#define STRATA_HAL_ELEMENT_TYPE_UINT_16 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED, 16)
#define STRATA_HAL_ELEMENT_TYPE_UINT_32 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED, 32)
#define STRATA_HAL_ELEMENT_TYPE_UINT_64 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED, 64)
#define STRATA_HAL_ELEMENT_TYPE_FLOAT_16 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_FLOAT_IEEE, 16)
#define STRATA_HAL_ELEMENT_TYPE_FLOAT_32 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_FLOAT_IEEE, 32)
#define STRATA_HAL_ELEMENT_TYPE_FLOAT_64 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_FLOAT_IEEE, 64)
#define STRATA_HAL_ELEMENT_TYPE_BFLOAT_16 \
  STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_FLOAT_BRAIN, 16)

/* Element types the ONNX importer records in an export's reflection
 * ("argN.element_type", "resultN.element_type") for tensors the signature
 * holds in another type, and the element type tools (strata-run, the
 * Python package, strata-serve) present their data with:
 * X(recorded name, presented element type). ONNX's float8 tensors are
 * their bit patterns in an i8 (presented as uint8), uint4 and int4 ones a
 * value a byte (uint8, int8). The unsigned integers ("ui8" ...) are
 * recorded too and presented as the type they name. */
#define STRATA_RECORDED_ELEMENT_TYPES(X)          \
  X("f8E4M3FN", STRATA_HAL_ELEMENT_TYPE_UINT_8)   \
  X("f8E4M3FNUZ", STRATA_HAL_ELEMENT_TYPE_UINT_8) \
  X("f8E5M2", STRATA_HAL_ELEMENT_TYPE_UINT_8)     \
  X("f8E5M2FNUZ", STRATA_HAL_ELEMENT_TYPE_UINT_8) \
  X("ui4", STRATA_HAL_ELEMENT_TYPE_UINT_8)        \
  X("i4", STRATA_HAL_ELEMENT_TYPE_INT_8)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STRATA_SCHEMAS_ELEMENT_TYPES_H_ */
