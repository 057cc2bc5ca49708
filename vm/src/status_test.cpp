// status_test.cpp - unit tests for strata_status_t: creation, annotation,
// formatting, the deferred sentinel and code names.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "strata/base/status.h"

namespace {

// Formats and frees the string from strata_status_to_string.
std::string toString(strata_status_t status) {
  char* text = strata_status_to_string(status);
  REQUIRE(text != nullptr);
  std::string out = text;
  std::free(text);
  return out;
}

strata_status_t failIfNegative(int value) {
  if (value < 0) {
    return strata_make_status(STRATA_STATUS_OUT_OF_RANGE, "%d < 0", value);
  }
  return strata_ok_status();
}

strata_status_t forward(int value, int* reached_end) {
  STRATA_RETURN_IF_ERROR(failIfNegative(value));
  *reached_end = 1;
  return strata_ok_status();
}

}  // namespace

TEST_SUITE("base.status") {

TEST_CASE("the OK status is NULL and reads as OK with an empty message") {
  strata_status_t ok = strata_ok_status();
  CHECK(ok == nullptr);
  CHECK(strata_status_code(ok) == STRATA_STATUS_OK);
  CHECK(std::strcmp(strata_status_message(ok), "") == 0);
  CHECK(strata_status_annotation_count(ok) == 0);
  CHECK(toString(ok) == "OK");
  strata_status_free(ok);  // freeing NULL is fine
}

TEST_CASE("a made status carries its code and formatted message") {
  strata_status_t status = strata_make_status(
      STRATA_STATUS_INVALID_ARGUMENT, "bad %s at %d", "operand", 7);
  REQUIRE(status != nullptr);
  CHECK(strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(strata_status_message(status)) == "bad operand at 7");
  CHECK(toString(status) == "INVALID_ARGUMENT: bad operand at 7");
  strata_status_free(status);
}

TEST_CASE("making a status with the OK code yields UNKNOWN, never OK") {
  strata_status_t status = strata_make_status(STRATA_STATUS_OK, "oops");
  REQUIRE(status != nullptr);
  CHECK(strata_status_code(status) == STRATA_STATUS_UNKNOWN);
  strata_status_free(status);
}

TEST_CASE("annotations are appended in order and formatted one per line") {
  strata_status_t status =
      strata_make_status(STRATA_STATUS_NOT_FOUND, "no function 'main'");
  strata_status_t same = strata_status_annotate(status, "at %s (%s:%d:%d)",
                                                "mod.caller", "a.mlir", 3, 7);
  CHECK(same == status);
  status = strata_status_annotate(status, "at mod.outer");
  REQUIRE(strata_status_annotation_count(status) == 2);
  CHECK(std::string(strata_status_annotation(status, 0)) ==
        "at mod.caller (a.mlir:3:7)");
  CHECK(std::string(strata_status_annotation(status, 1)) == "at mod.outer");
  CHECK(std::string(strata_status_annotation(status, 2)) == "");
  CHECK(toString(status) ==
        "NOT_FOUND: no function 'main'\n  at mod.caller (a.mlir:3:7)\n"
        "  at mod.outer");
  strata_status_free(status);
}

TEST_CASE("annotating the OK status keeps it OK") {
  CHECK(strata_status_annotate(strata_ok_status(), "at nowhere") == nullptr);
}

TEST_CASE("an empty message formats as the code name alone") {
  strata_status_t status = strata_make_status(STRATA_STATUS_ABORTED, "%s", "");
  CHECK(toString(status) == "ABORTED");
  strata_status_free(status);
}

TEST_CASE("the deferred status is a shared sentinel that is never freed") {
  strata_status_t deferred = strata_status_deferred();
  REQUIRE(deferred != nullptr);
  CHECK(deferred == strata_status_deferred());
  CHECK(strata_status_code(deferred) == STRATA_STATUS_DEFERRED);
  // Making a DEFERRED status returns the same sentinel.
  CHECK(strata_make_status(STRATA_STATUS_DEFERRED, "ignored") == deferred);
  // Annotating or freeing it leaves it intact for the next user.
  CHECK(strata_status_annotate(deferred, "at x") == deferred);
  CHECK(strata_status_annotation_count(deferred) == 0);
  strata_status_free(deferred);
  strata_status_free(deferred);
  CHECK(strata_status_code(strata_status_deferred()) ==
        STRATA_STATUS_DEFERRED);
  CHECK(toString(deferred) == "DEFERRED");
}

TEST_CASE("every code has its canonical name") {
  struct {
    strata_status_code_t code;
    const char* name;
  } const kNames[] = {
      {STRATA_STATUS_OK, "OK"},
      {STRATA_STATUS_CANCELLED, "CANCELLED"},
      {STRATA_STATUS_UNKNOWN, "UNKNOWN"},
      {STRATA_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT"},
      {STRATA_STATUS_DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED"},
      {STRATA_STATUS_NOT_FOUND, "NOT_FOUND"},
      {STRATA_STATUS_ALREADY_EXISTS, "ALREADY_EXISTS"},
      {STRATA_STATUS_PERMISSION_DENIED, "PERMISSION_DENIED"},
      {STRATA_STATUS_RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED"},
      {STRATA_STATUS_FAILED_PRECONDITION, "FAILED_PRECONDITION"},
      {STRATA_STATUS_ABORTED, "ABORTED"},
      {STRATA_STATUS_OUT_OF_RANGE, "OUT_OF_RANGE"},
      {STRATA_STATUS_UNIMPLEMENTED, "UNIMPLEMENTED"},
      {STRATA_STATUS_INTERNAL, "INTERNAL"},
      {STRATA_STATUS_UNAVAILABLE, "UNAVAILABLE"},
      {STRATA_STATUS_DATA_LOSS, "DATA_LOSS"},
      {STRATA_STATUS_DEFERRED, "DEFERRED"},
  };
  for (const auto& entry : kNames) {
    CAPTURE(entry.name);
    CHECK(std::string(strata_status_code_name(entry.code)) == entry.name);
  }
}

TEST_CASE("consume_ok reports success and frees a failure") {
  CHECK(strata_status_consume_ok(strata_ok_status()) == 1);
  CHECK(strata_status_consume_ok(
            strata_make_status(STRATA_STATUS_INTERNAL, "boom")) == 0);
}

TEST_CASE("STRATA_RETURN_IF_ERROR returns the first failure unchanged") {
  int reached_end = 0;
  CHECK(forward(1, &reached_end) == nullptr);
  CHECK(reached_end == 1);

  reached_end = 0;
  strata_status_t status = forward(-4, &reached_end);
  CHECK(reached_end == 0);
  CHECK(strata_status_code(status) == STRATA_STATUS_OUT_OF_RANGE);
  CHECK(std::string(strata_status_message(status)) == "-4 < 0");
  strata_status_free(status);
}

TEST_CASE("long messages are kept whole") {
  std::string long_text(5000, 'x');
  strata_status_t status =
      strata_make_status(STRATA_STATUS_DATA_LOSS, "%s!", long_text.c_str());
  CHECK(std::string(strata_status_message(status)) == long_text + "!");
  strata_status_free(status);
}

}  // TEST_SUITE("base.status")
