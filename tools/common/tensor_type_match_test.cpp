// tensor_type_match_test.cpp - unit tests for how the tools fit a tensor to
// an export's recorded type: shapes with '?' and '*x', unsigned data for a
// signless argument, a list element recorded unsigned (held signless), and
// the unsigned type a result is given back as (float8 and 4-bit ones too).
#include <doctest/doctest.h>

#include <string>

#include "tensor_type_match.h"

namespace {

using namespace strata::tools;

constexpr strata_hal_element_type_t kI8 =
    STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER, 8);
constexpr strata_hal_element_type_t kU8 =
    STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED, 8);
constexpr strata_hal_element_type_t kU16 =
    STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED, 16);

TEST_SUITE("tools.tensor_type_match") {
TEST_CASE("unsigned data fits a signless argument and becomes signless") {
  strata_hal_element_type_t type = kU8;
  CHECK(fitArgumentType("4xi8", "4xui8", &type));
  CHECK(type == kI8);
}

TEST_CASE("a list element recorded unsigned is held signless") {
  // "list<?xui8>": the element's recorded type names ui8, which the
  // program holds as i8.
  strata_hal_element_type_t type = kU8;
  CHECK(fitArgumentType("?xui8", "3xui8", &type));
  CHECK(type == kI8);
  type = kU16;
  CHECK(fitArgumentType("*xui16", "2x2xui16", &type));
  CHECK(type == STRATA_HAL_ELEMENT_TYPE(STRATA_HAL_NUMERICAL_TYPE_INTEGER, 16));
}

TEST_CASE("signed data does not fit an unsigned element") {
  strata_hal_element_type_t type = kI8;
  CHECK_FALSE(fitArgumentType("?xui8", "3xi8", &type));
  CHECK(type == kI8);
  CHECK_FALSE(fitArgumentType("?xui8", "3xui16", &type));
}

TEST_CASE("other types are left as they are") {
  strata_hal_element_type_t type = STRATA_HAL_ELEMENT_TYPE_FLOAT_32;
  CHECK(fitArgumentType("?x4xf32", "2x4xf32", &type));
  CHECK(type == STRATA_HAL_ELEMENT_TYPE_FLOAT_32);
  CHECK(fitArgumentType("", "2x4xf32", &type));
  CHECK_FALSE(fitArgumentType("?x4xf32", "2x3xf32", &type));
}

TEST_CASE("the unsigned element a recorded type names") {
  CHECK(recordedUnsignedElement("?x4xui8") == "ui8");
  CHECK(recordedUnsignedElement("*xui64") == "ui64");
  CHECK(recordedUnsignedElement("ui32") == "ui32");
  CHECK(recordedUnsignedElement("?xi8") == "");
  CHECK(recordedUnsignedElement("3xf32") == "");
  CHECK(recordedUnsignedElement("") == "");
  // A signless result comes back as the unsigned type named.
  CHECK(recordedElementType(kI8, recordedUnsignedElement("?xui8")) == kU8);
  CHECK(recordedElementType(kI8, recordedUnsignedElement("?xi8")) == kI8);
}
TEST_CASE("float8 and 4-bit results are presented as 8-bit integers") {
  // ONNX's float8 tensors are their bits (uint8), uint4 values uint8 and
  // int4 values int8 (schemas/ STRATA_RECORDED_ELEMENT_TYPES).
  for (const char* name :
       {"f8E4M3FN", "f8E4M3FNUZ", "f8E5M2", "f8E5M2FNUZ", "ui4"}) {
    CHECK(recordedPresentationType(name) == kU8);
    CHECK(recordedElementType(kI8, name) == kU8);
  }
  CHECK(recordedPresentationType("i4") == kI8);
  CHECK(recordedElementType(kI8, "i4") == kI8);
  CHECK(recordedPresentationType("ui16") == kU16);
  CHECK(recordedPresentationType("f8") == STRATA_HAL_ELEMENT_TYPE_NONE);
  // Only an i8 tensor is presented so: the recorded name does not widen.
  CHECK(recordedElementType(STRATA_HAL_ELEMENT_TYPE_INT_16, "f8E5M2") ==
        STRATA_HAL_ELEMENT_TYPE_INT_16);
}
}

}  // namespace
