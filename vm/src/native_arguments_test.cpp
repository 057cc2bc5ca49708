// native_arguments_test.cpp - unit tests for what the native-module builder
// (native_module.hpp) checks before a function runs and how it says so:
// argument names, NonNegative sizes, several variadic spans, NativeCall, and
// user data the definition owns.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "strata/vm/native_module.hpp"

using strata::vm::methodCallingConvention;
using strata::vm::NativeCall;
using strata::vm::NativeModuleBuilder;
using strata::vm::NativeModuleDefinition;
using strata::vm::NonNegative;
using strata::vm::Nullable;
using strata::vm::Variadic;

namespace {

struct Shapes {
  // A subspan-like function: sizes must not be negative.
  int64_t end(strata_vm_buffer_t*, NonNegative<int64_t> offset,
              NonNegative<int64_t> length) {
    return static_cast<int64_t>(offset + length);
  }
  // Two spans, as hal.command_buffer.dispatch has: constants, then
  // (value, weight) pairs; and a scalar after both.
  int64_t weigh(NonNegative<int32_t> base, Variadic<int32_t> constants,
                Variadic<Nullable<strata_vm_list_t>, int64_t> pairs,
                int32_t scale) {
    int64_t total = base;
    for (size_t i = 0; i < constants.size(); ++i) {
      total += constants[i];
    }
    for (size_t i = 0; i < pairs.size(); ++i) {
      total += (pairs.get<0>(i) ? 1000 : 0) + pairs.get<1>(i);
    }
    return total * scale;
  }
  // Fails on its own with the builder's form.
  strata_status_t check(const NativeCall& call, int32_t width) {
    if (width != 4) {
      return call.fail(STRATA_STATUS_INVALID_ARGUMENT,
                       "argument 0 (width) is %d in %s.%s", width,
                       call.moduleName(), call.functionName());
    }
    return nullptr;
  }
};

static_assert(methodCallingConvention<&Shapes::end>() == "0rII_I");
static_assert(methodCallingConvention<&Shapes::weigh>() == "0iCiDCrIDi_I");
static_assert(methodCallingConvention<&Shapes::check>() == "0i_");
// What function() may name: NativeCall and out-params take no argument, a
// span is one.
static_assert(strata::vm::methodArgumentCount<&Shapes::end>() == 3);
static_assert(strata::vm::methodArgumentCount<&Shapes::weigh>() == 4);
static_assert(strata::vm::methodArgumentCount<&Shapes::check>() == 1);

NativeModuleBuilder<Shapes> shapesBuilder() {
  NativeModuleBuilder<Shapes> builder("shapes");
  builder.function<&Shapes::end>("end", "buffer, offset, length")
      .function<&Shapes::weigh>("weigh", " base ,constants, pairs, scale")
      .function<&Shapes::check>("check", "width");
  return builder;
}

struct Harness {
  NativeModuleDefinition<Shapes>* definition = nullptr;
  void* state = nullptr;

  explicit Harness(const NativeModuleBuilder<Shapes>& builder) {
    REQUIRE(builder.createDefinition(strata_allocator_system(), &definition) ==
            nullptr);
    REQUIRE(definition->descriptor()->create_state(
                definition, strata_allocator_system(), &state) == nullptr);
  }
  ~Harness() {
    definition->descriptor()->destroy_state(definition, state);
    definition->descriptor()->destroy(definition);
  }
  // Calls a function's trampoline as the interpreter would; "" when it
  // succeeds, else the error's message.
  std::string call(const char* name, std::initializer_list<strata_vm_value_t> a,
                   strata_vm_value_t* results, size_t result_count) {
    const strata_vm_native_module_descriptor_t* d = definition->descriptor();
    std::vector<strata_vm_value_t> args(a);
    for (size_t i = 0; i < d->function_count; ++i) {
      if (std::strcmp(d->functions[i].name, name) == 0) {
        strata_status_t status =
            d->functions[i].fn(nullptr, definition, state, args.data(),
                               args.size(), results, result_count);
        std::string text = status ? strata_status_message(status) : "";
        strata_status_free(status);
        return text;
      }
    }
    FAIL("no function " << name);
    return "";
  }
};

strata_vm_value_t i32(int32_t v) {
  strata_vm_value_t out;
  out.bits = 0;
  out.i32 = v;
  return out;
}
strata_vm_value_t i64(int64_t v) {
  strata_vm_value_t out;
  out.i64 = v;
  return out;
}
strata_vm_value_t ref(strata_vm_ref_object_t* v) {
  strata_vm_value_t out;
  out.ref = v;
  return out;
}

struct Owned {
  strata_vm_ref_object_t* ptr = nullptr;
  ~Owned() { strata_vm_ref_release(ptr); }
};

}  // namespace

TEST_SUITE("vm.native_module.arguments") {

TEST_CASE("errors name the argument when the function was given names") {
  Harness harness(shapesBuilder());
  Owned list;
  strata_vm_list_t* raw = nullptr;
  REQUIRE(strata_vm_list_create(0, strata_allocator_system(), &raw) == nullptr);
  list.ptr = strata_vm_list_as_ref(raw);
  strata_vm_value_t result;
  CHECK(harness.call("end", {ref(list.ptr), i64(0), i64(0)}, &result, 1) ==
        "native function 'shapes.end': argument 0 (buffer) must be a "
        "vm.buffer, got a vm.list");
  CHECK(harness.call("end", {ref(nullptr), i64(0), i64(0)}, &result, 1) ==
        "native function 'shapes.end': argument 0 (buffer) must be a "
        "vm.buffer, got null");
}

TEST_CASE("a negative NonNegative argument fails before the function runs") {
  Harness harness(shapesBuilder());
  Owned buffer;
  strata_vm_buffer_t* raw = nullptr;
  REQUIRE(strata_vm_buffer_create(4, 0, strata_allocator_system(), &raw) ==
          nullptr);
  buffer.ptr = strata_vm_buffer_as_ref(raw);
  strata_vm_value_t result;
  result.i64 = 0;
  CHECK(harness.call("end", {ref(buffer.ptr), i64(3), i64(-1)}, &result, 1) ==
        "native function 'shapes.end': argument 2 (length) is -1; it must "
        "not be negative");
  CHECK(harness.call("end", {ref(buffer.ptr), i64(3), i64(5)}, &result, 1) ==
        "");
  CHECK(result.i64 == 8);
  // i32 ones too, named after trimming the spaces around a name.
  CHECK(harness.call("weigh", {i32(-7), i32(0), i32(0), i32(1)}, &result, 1) ==
        "native function 'shapes.weigh': argument 0 (base) is -7; it must not "
        "be negative");
}

TEST_CASE("a function takes several variadic spans and arguments after them") {
  Harness harness(shapesBuilder());
  Owned list;
  strata_vm_list_t* raw = nullptr;
  REQUIRE(strata_vm_list_create(0, strata_allocator_system(), &raw) == nullptr);
  list.ptr = strata_vm_list_as_ref(raw);
  strata_vm_value_t result;
  // base 1; constants {2, 3}; pairs {(list, 10), (null, 20)}; scale 2.
  CHECK(harness.call("weigh",
                     {i32(1), i32(2), i32(2), i32(3), i32(2), ref(list.ptr),
                      i64(10), ref(nullptr), i64(20), i32(2)},
                     &result, 1) == "");
  CHECK(result.i64 == (1 + 2 + 3 + 1000 + 10 + 20) * 2);
  // Both spans empty.
  CHECK(harness.call("weigh", {i32(4), i32(0), i32(0), i32(3)}, &result, 1) ==
        "");
  CHECK(result.i64 == 12);
  // A span element of the wrong type is named by its span.
  Owned buffer;
  strata_vm_buffer_t* raw_buffer = nullptr;
  REQUIRE(strata_vm_buffer_create(4, 0, strata_allocator_system(),
                                  &raw_buffer) == nullptr);
  buffer.ptr = strata_vm_buffer_as_ref(raw_buffer);
  CHECK(harness.call("weigh",
                     {i32(0), i32(0), i32(1), ref(buffer.ptr), i64(1), i32(1)},
                     &result, 1) ==
        "native function 'shapes.weigh': argument 3 (element 0 of pairs) "
        "must be a vm.list or null, got a vm.buffer");
}

TEST_CASE("span counts are checked against the arguments left") {
  Harness harness(shapesBuilder());
  strata_vm_value_t result;
  // The first span claims more values than there are.
  CHECK(harness.call("weigh", {i32(0), i32(5), i32(1), i32(0), i32(1)}, &result,
                     1) ==
        "native function 'shapes.weigh': variadic span count 5 (argument 1) "
        "does not match the 1 argument values after the fixed ones "
        "(0iCiDCrIDi_I)");
  // The last span must use exactly what is left.
  CHECK(harness.call("weigh", {i32(0), i32(0), i32(0), i32(1), i32(1)}, &result,
                     1) ==
        "native function 'shapes.weigh': variadic span count 0 (argument 2) "
        "does not match the 1 argument values after the fixed ones "
        "(0iCiDCrIDi_I)");
  CHECK(harness.call("weigh", {i32(0), i32(-1), i32(0), i32(1)}, &result, 1) ==
        "native function 'shapes.weigh': variadic span count -1 (argument 1) "
        "does not match the 0 argument values after the fixed ones "
        "(0iCiDCrIDi_I)");
}

TEST_CASE("NativeCall::fail names the function as the builder's errors do") {
  Harness harness(shapesBuilder());
  CHECK(harness.call("check", {i32(4)}, nullptr, 0) == "");
  CHECK(harness.call("check", {i32(3)}, nullptr, 0) ==
        "native function 'shapes.check': argument 0 (width) is 3 in "
        "shapes.check");
}

TEST_CASE("user data given with a release is released with the definition") {
  struct User {
    int released = 0;
    static strata_status_t create(void*, strata_allocator_t,
                                  Shapes** out_state) {
      *out_state = new Shapes();
      return nullptr;
    }
    static void destroy(void*, Shapes* state) { delete state; }
    static void release(void* user) { static_cast<User*>(user)->released++; }
  };
  User user;
  {
    NativeModuleBuilder<Shapes> builder = shapesBuilder();
    builder.stateFactory(&User::create, &User::destroy, &user, &User::release);
    Harness harness(builder);
    CHECK(user.released == 0);
  }
  CHECK(user.released == 1);
}

}  // TEST_SUITE
