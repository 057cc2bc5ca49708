// native_module_test.cpp - unit tests for the C++ native module helper
// (native_module.hpp): derived calling conventions, descriptors, trampolines
// called directly, ref ownership and per-context state.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <tuple>

#include "strata/vm/native_module.hpp"

using strata::vm::adoptRef;
using strata::vm::callingConvention;
using strata::vm::methodCallingConvention;
using strata::vm::NativeModuleBuilder;
using strata::vm::NativeModuleDefinition;
using strata::vm::Nullable;
using strata::vm::Ref;
using strata::vm::refCast;
using strata::vm::Result;
using strata::vm::retainRef;
using strata::vm::Variadic;

using BufferRef = Ref<strata_vm_buffer_t>;
using ListRef = Ref<strata_vm_list_t>;
using AnyRef = Ref<strata_vm_ref_object_t>;

//===----------------------------------------------------------------------===//
// A user-defined ref type, declared to the helper.
//===----------------------------------------------------------------------===//

struct test_widget_t {
  strata_vm_ref_object_t header;
  int32_t size;
};

namespace {
int g_widgets_destroyed = 0;
void destroyWidget(strata_vm_ref_object_t* object) {
  g_widgets_destroyed++;
  delete reinterpret_cast<test_widget_t*>(object);
}
const strata_vm_ref_type_t kWidgetType = {"test.widget", destroyWidget};
}  // namespace

STRATA_VM_DECLARE_REF_TYPE(test_widget_t, &kWidgetType)

namespace {

Ref<test_widget_t> makeWidget(int32_t size) {
  auto* widget = new test_widget_t;
  strata_vm_ref_object_init(&widget->header, &kWidgetType);
  widget->size = size;
  return adoptRef(widget);
}

//===----------------------------------------------------------------------===//
// Calling conventions are derived at compile time.
//===----------------------------------------------------------------------===//

static_assert(callingConvention<void()>() == "0_");
static_assert(callingConvention<int32_t(int32_t)>() == "0i_i");
static_assert(callingConvention<Result<int32_t>(int32_t, int32_t)>() ==
              "0ii_i");
static_assert(callingConvention<strata_status_t(int32_t, int32_t*)>() ==
              "0i_i");
static_assert(callingConvention<int64_t(int64_t, float, double)>() ==
              "0IfF_I");
static_assert(callingConvention<uint32_t(uint64_t, size_t, bool)>() ==
              "0IIi_i");
static_assert(callingConvention<
                  Result<std::tuple<float, double, BufferRef>>(bool)>() ==
              "0i_fFr");
static_assert(callingConvention<Result<ListRef>(
                  strata_vm_buffer_t*, const strata_vm_list_t*,
                  strata_vm_ref_object_t*)>() == "0rrr_r");
static_assert(callingConvention<strata_status_t(
                  strata_vm_native_call_t*, const BufferRef&,
                  Nullable<strata_vm_list_t>, BufferRef*, int64_t*)>() ==
              "0rr_rI");
static_assert(callingConvention<strata_status_t(float*, int32_t, double*)>() ==
              "0i_fF");
static_assert(callingConvention<int32_t(int32_t,
                                        Variadic<strata_vm_buffer_t*>)>() ==
              "0iCrD_i");
static_assert(callingConvention<void(Variadic<strata_vm_buffer_t*, int64_t,
                                              int64_t>,
                                     float)>() == "0CrIIDf_");
static_assert(callingConvention<std::tuple<int32_t, AnyRef>(
                  Ref<test_widget_t>, Nullable<test_widget_t>)>() ==
              "0rr_ir");
static_assert(callingConvention<Result<std::tuple<>>()>() == "0_");

//===----------------------------------------------------------------------===//
// Module states used by the tests.
//===----------------------------------------------------------------------===//

int g_counters_alive = 0;

struct Counter {
  int32_t total = 0;

  Counter() { g_counters_alive++; }
  ~Counter() { g_counters_alive--; }

  int32_t add(int32_t amount) { return total += amount; }
  int32_t get() const { return total; }
  void reset() noexcept { total = 0; }
};

static_assert(methodCallingConvention<&Counter::add>() == "0i_i");
static_assert(methodCallingConvention<&Counter::get>() == "0_i");
static_assert(methodCallingConvention<&Counter::reset>() == "0_");

// Exercises refs, out-params, tuples, failure and deferral.
struct Store {
  BufferRef kept;
  int32_t pending_polls = 0;
  strata_vm_native_call_t* last_call = nullptr;

  // Copies a range of source into a new buffer, returned owned.
  Result<BufferRef> slice(strata_vm_buffer_t* source, int64_t offset,
                          int64_t length) {
    BufferRef out;
    strata_status_t status = strata_vm_buffer_clone(
        source, static_cast<uint64_t>(offset), static_cast<uint64_t>(length),
        strata_allocator_system(), out.out());
    if (status) {
      return status;
    }
    return out;
  }

  // Keeps a reference to buffer across calls.
  void keep(BufferRef buffer) { kept = std::move(buffer); }

  // Length and the first byte of a buffer, through out-params.
  strata_status_t describe(const strata_vm_buffer_t* buffer,
                           int64_t* out_length, int32_t* out_first) {
    *out_length = static_cast<int64_t>(strata_vm_buffer_length(buffer));
    if (*out_length == 0) {
      return strata_make_status(STRATA_STATUS_FAILED_PRECONDITION,
                                "buffer is empty");
    }
    *out_first = strata_vm_buffer_data(buffer)[0];
    return nullptr;
  }

  // Returns the list's size and, as an owned generic ref, the list itself.
  std::tuple<int64_t, AnyRef> echo(Nullable<strata_vm_list_t> list) {
    if (!list) {
      return {-1, AnyRef()};
    }
    return {static_cast<int64_t>(strata_vm_list_size(list.get())),
            AnyRef(retainRef(list.get()))};
  }

  // Fills out_widget then fails: the out-param must be released.
  strata_status_t makeThenFail(int32_t size, Ref<test_widget_t>* out_widget) {
    *out_widget = makeWidget(size);
    return strata_make_status(STRATA_STATUS_ABORTED, "failed on purpose");
  }

  // Defers until polled enough times.
  Result<int32_t> poll(strata_vm_native_call_t* call, int32_t value) {
    last_call = call;
    if (pending_polls > 0) {
      --pending_polls;
      return strata_status_deferred();
    }
    return value * 2;
  }

  // Sums a span of i64 values and counts the widgets in another.
  int64_t sum(int32_t base, Variadic<int64_t> values) {
    int64_t total = base;
    for (size_t i = 0; i < values.size(); ++i) {
      total += values[i];
    }
    return total;
  }
  std::tuple<int32_t, int64_t> widgets(
      Variadic<test_widget_t*, int64_t> pairs, int32_t scale) {
    int64_t total = 0;
    for (size_t i = 0; i < pairs.size(); ++i) {
      total += pairs.get<0>(i)->size * pairs.get<1>(i);
    }
    return {static_cast<int32_t>(pairs.size()), total * scale};
  }

  // Accepts a ref of any type and reports its type's name length.
  int32_t typeNameLength(strata_vm_ref_object_t* any) {
    return static_cast<int32_t>(std::strlen(any->type->name));
  }

  float half(float value) { return value / 2; }
  double twice(double value) { return value * 2; }
  bool isPositive(int64_t value) { return value > 0; }
};

// A state that needs a factory: no default constructor.
struct Configured {
  explicit Configured(int32_t start) : value(start) {}
  int32_t next() { return value++; }
  int32_t value;
};

struct Factory {
  int32_t start = 0;
  int created = 0;
  int destroyed = 0;
  bool fail = false;

  static strata_status_t create(void* user, strata_allocator_t,
                                Configured** out_state) {
    auto* factory = static_cast<Factory*>(user);
    if (factory->fail) {
      return strata_make_status(STRATA_STATUS_UNAVAILABLE, "no state today");
    }
    factory->created++;
    *out_state = new Configured(factory->start);
    return nullptr;
  }
  static void destroy(void* user, Configured* state) {
    static_cast<Factory*>(user)->destroyed++;
    delete state;
  }
};

//===----------------------------------------------------------------------===//
// Helpers.
//===----------------------------------------------------------------------===//

// Wraps the system allocator, counting live allocations.
struct CountingAllocator {
  int live = 0;
  static void* alloc(void* self, size_t size, size_t alignment) {
    void* ptr =
        strata_allocator_alloc(strata_allocator_system(), size, alignment);
    if (ptr) {
      static_cast<CountingAllocator*>(self)->live++;
    }
    return ptr;
  }
  static void free(void* self, void* ptr) {
    if (ptr) {
      static_cast<CountingAllocator*>(self)->live--;
    }
    strata_allocator_free(strata_allocator_system(), ptr);
  }
  strata_allocator_t get() { return {this, alloc, free}; }
};

// A definition plus one state, torn down at scope exit.
template <typename State>
struct Harness {
  NativeModuleDefinition<State>* definition = nullptr;
  void* state = nullptr;

  explicit Harness(const NativeModuleBuilder<State>& builder) {
    REQUIRE(builder.createDefinition(strata_allocator_system(), &definition) ==
            nullptr);
    REQUIRE(descriptor()->create_state(definition, strata_allocator_system(),
                                       &state) == nullptr);
  }
  ~Harness() {
    descriptor()->destroy_state(definition, state);
    descriptor()->destroy(definition);
  }
  const strata_vm_native_module_descriptor_t* descriptor() const {
    return definition->descriptor();
  }
  State& typed() { return *static_cast<State*>(state); }
  const strata_vm_native_function_t& function(const char* name) const {
    for (size_t i = 0; i < descriptor()->function_count; ++i) {
      if (std::strcmp(descriptor()->functions[i].name, name) == 0) {
        return descriptor()->functions[i];
      }
    }
    FAIL("no function " << name);
    return descriptor()->functions[0];
  }
  // Calls a function's trampoline as the interpreter would.
  strata_status_t call(const char* name, const strata_vm_value_t* args,
                       size_t arg_count, strata_vm_value_t* results,
                       size_t result_count,
                       strata_vm_native_call_t* native_call = nullptr) {
    for (size_t i = 0; i < result_count; ++i) {
      results[i].bits = 0;
    }
    return function(name).fn(native_call, definition, state, args, arg_count,
                             results, result_count);
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
strata_vm_value_t f32(float v) {
  strata_vm_value_t out;
  out.bits = 0;
  out.f32 = v;
  return out;
}
strata_vm_value_t f64(double v) {
  strata_vm_value_t out;
  out.f64 = v;
  return out;
}
strata_vm_value_t ref(strata_vm_ref_object_t* v) {
  strata_vm_value_t out;
  out.ref = v;
  return out;
}

std::string message(strata_status_t status) {
  return strata_status_message(status);
}

NativeModuleBuilder<Counter> counterBuilder() {
  NativeModuleBuilder<Counter> builder("counter", 3);
  builder.function<&Counter::add>("add")
      .function<&Counter::get>("get")
      .function<&Counter::reset>("reset");
  return builder;
}

NativeModuleBuilder<Store> storeBuilder() {
  NativeModuleBuilder<Store> builder("store");
  builder.function<&Store::slice>("slice")
      .function<&Store::keep>("keep")
      .function<&Store::describe>("describe")
      .function<&Store::echo>("echo")
      .function<&Store::makeThenFail>("make_then_fail")
      .function<&Store::poll>("poll")
      .function<&Store::sum>("sum")
      .function<&Store::widgets>("widgets")
      .function<&Store::typeNameLength>("type_name_length")
      .function<&Store::half>("half")
      .function<&Store::twice>("twice")
      .function<&Store::isPositive>("is_positive");
  return builder;
}

BufferRef makeBuffer(std::initializer_list<uint8_t> bytes) {
  BufferRef buffer;
  REQUIRE(strata_vm_buffer_create(bytes.size(), 0, strata_allocator_system(),
                                  buffer.out()) == nullptr);
  size_t i = 0;
  for (uint8_t byte : bytes) {
    strata_vm_buffer_data(buffer.get())[i++] = byte;
  }
  return buffer;
}

ListRef makeList() {
  ListRef list;
  REQUIRE(strata_vm_list_create(0, strata_allocator_system(), list.out()) ==
          nullptr);
  return list;
}

}  // namespace

TEST_SUITE("vm.native_module") {

TEST_CASE("calling conventions are derived from C++ signatures") {
  // The same strings the static_asserts above pin, checked at run time too.
  CHECK(std::string(callingConvention<int32_t(int32_t)>().data()) == "0i_i");
  CHECK(std::string(callingConvention<strata_status_t(
                        strata_vm_native_call_t*, const BufferRef&,
                        Nullable<strata_vm_list_t>, BufferRef*, int64_t*)>()
                        .data()) == "0rr_rI");
  CHECK(std::string(methodCallingConvention<&Store::widgets>().data()) ==
        "0CrIDi_iI");
  CHECK(methodCallingConvention<&Store::slice>() == "0rII_r");
  CHECK(methodCallingConvention<&Store::describe>() == "0r_Ii");
  CHECK(methodCallingConvention<&Store::echo>() == "0r_Ir");
  CHECK(methodCallingConvention<&Store::poll>() == "0i_i");
}

TEST_CASE("the descriptor lists names, conventions and callbacks") {
  NativeModuleBuilder<Counter> builder = counterBuilder();
  builder.dependency("hal", 2).dependency("check", 0, /*optional=*/true);
  CHECK(builder.functionCount() == 3);
  Harness<Counter> harness(builder);
  const strata_vm_native_module_descriptor_t* d = harness.descriptor();
  CHECK(std::string(d->name) == "counter");
  CHECK(d->version == 3);
  REQUIRE(d->function_count == 3);
  CHECK(std::string(d->functions[0].name) == "add");
  CHECK(std::string(d->functions[0].calling_convention) == "0i_i");
  CHECK(std::string(d->functions[1].name) == "get");
  CHECK(std::string(d->functions[1].calling_convention) == "0_i");
  CHECK(std::string(d->functions[2].name) == "reset");
  CHECK(std::string(d->functions[2].calling_convention) == "0_");
  CHECK((d->functions[0].fn != nullptr));
  CHECK((d->functions[0].fn != d->functions[1].fn));
  REQUIRE(d->dependency_count == 2);
  CHECK(std::string(d->dependencies[0].name) == "hal");
  CHECK(d->dependencies[0].minimum_version == 2);
  CHECK(d->dependencies[0].optional == 0);
  CHECK(std::string(d->dependencies[1].name) == "check");
  CHECK(d->dependencies[1].optional == 1);
  CHECK((d->create_state != nullptr));
  CHECK((d->destroy_state != nullptr));
  CHECK((d->destroy != nullptr));
}

TEST_CASE("the definition is one allocation that destroy frees") {
  CountingAllocator counter;
  NativeModuleDefinition<Counter>* definition = nullptr;
  REQUIRE(counterBuilder().createDefinition(counter.get(), &definition) ==
          nullptr);
  CHECK(counter.live == 1);
  // Strings were copied: the builder is gone, the names remain.
  CHECK(std::string(definition->descriptor()->functions[2].name) == "reset");
  definition->descriptor()->destroy(definition);
  CHECK(counter.live == 0);
}

TEST_CASE("a trampoline unpacks i32 arguments and packs the result") {
  Harness<Counter> harness(counterBuilder());
  strata_vm_value_t args[1] = {i32(5)};
  strata_vm_value_t results[1];
  REQUIRE(harness.call("add", args, 1, results, 1) == nullptr);
  CHECK(results[0].i32 == 5);
  args[0] = i32(-7);
  REQUIRE(harness.call("add", args, 1, results, 1) == nullptr);
  CHECK(results[0].i32 == -2);
  CHECK(results[0].bits == static_cast<uint32_t>(-2));  // upper bits zero
  REQUIRE(harness.call("get", nullptr, 0, results, 1) == nullptr);
  CHECK(results[0].i32 == -2);
  REQUIRE(harness.call("reset", nullptr, 0, nullptr, 0) == nullptr);
  CHECK(harness.typed().total == 0);
}

TEST_CASE("each context's state is created, isolated and destroyed") {
  CHECK(g_counters_alive == 0);
  NativeModuleDefinition<Counter>* definition = nullptr;
  CountingAllocator counter;
  REQUIRE(counterBuilder().createDefinition(strata_allocator_system(),
                                            &definition) == nullptr);
  const strata_vm_native_module_descriptor_t* d = definition->descriptor();
  void* first = nullptr;
  void* second = nullptr;
  REQUIRE(d->create_state(definition, counter.get(), &first) == nullptr);
  REQUIRE(d->create_state(definition, counter.get(), &second) == nullptr);
  CHECK(first != second);
  CHECK(g_counters_alive == 2);
  CHECK(counter.live == 2);  // states use the allocator they were given

  strata_vm_value_t args[1] = {i32(10)};
  strata_vm_value_t results[1] = {};
  strata_vm_native_fn_t add = d->functions[0].fn;
  REQUIRE(add(nullptr, definition, first, args, 1, results, 1) == nullptr);
  REQUIRE(add(nullptr, definition, first, args, 1, results, 1) == nullptr);
  CHECK(results[0].i32 == 20);
  args[0] = i32(1);
  REQUIRE(add(nullptr, definition, second, args, 1, results, 1) == nullptr);
  CHECK(results[0].i32 == 1);
  CHECK(static_cast<Counter*>(first)->total == 20);

  d->destroy_state(definition, first);
  d->destroy_state(definition, second);
  CHECK(g_counters_alive == 0);
  CHECK(counter.live == 0);
  d->destroy(definition);
}

TEST_CASE("over-aligned states are placed on their alignment") {
  struct alignas(64) Wide {
    int32_t value = 7;
    int32_t get() { return value; }
  };
  NativeModuleBuilder<Wide> builder("wide");
  builder.function<&Wide::get>("get");
  Harness<Wide> harness(builder);
  CHECK(reinterpret_cast<uintptr_t>(harness.state) % 64 == 0);
  strata_vm_value_t results[1];
  REQUIRE(harness.call("get", nullptr, 0, results, 1) == nullptr);
  CHECK(results[0].i32 == 7);
}

TEST_CASE("ref arguments are borrowed and ref results are owned") {
  Harness<Store> harness(storeBuilder());
  BufferRef source = makeBuffer({1, 2, 3, 4, 5});
  strata_vm_value_t args[3] = {ref(source.asRef()), i64(1), i64(3)};
  strata_vm_value_t results[1];
  REQUIRE(harness.call("slice", args, 3, results, 1) == nullptr);
  CHECK(source.useCount() == 1);  // borrowed: no reference kept
  BufferRef slice =
      adoptRef(strata_vm_buffer_from_ref(results[0].ref));  // take ownership
  REQUIRE(slice);
  CHECK(slice.useCount() == 1);
  CHECK(strata_vm_buffer_length(slice.get()) == 3);
  CHECK(strata_vm_buffer_data(slice.get())[0] == 2);
}

TEST_CASE("a failing Result leaves the results empty") {
  Harness<Store> harness(storeBuilder());
  BufferRef source = makeBuffer({1, 2});
  strata_vm_value_t args[3] = {ref(source.asRef()), i64(1), i64(5)};
  strata_vm_value_t results[1];
  strata_status_t status = harness.call("slice", args, 3, results, 1);
  CHECK(strata_status_code(status) == STRATA_STATUS_OUT_OF_RANGE);
  CHECK(results[0].ref == nullptr);
  strata_status_free(status);
}

TEST_CASE("a Ref parameter retains the argument for the function to keep") {
  BufferRef buffer = makeBuffer({9});
  BufferRef other = makeBuffer({8});
  {
    Harness<Store> harness(storeBuilder());
    strata_vm_value_t args[1] = {ref(buffer.asRef())};
    REQUIRE(harness.call("keep", args, 1, nullptr, 0) == nullptr);
    CHECK(buffer.useCount() == 2);
    CHECK(harness.typed().kept == buffer);
    // A second keep replaces (and releases) the first.
    args[0] = ref(other.asRef());
    REQUIRE(harness.call("keep", args, 1, nullptr, 0) == nullptr);
    CHECK(buffer.useCount() == 1);
    CHECK(other.useCount() == 2);
  }
  // Destroying the state released what it kept.
  CHECK(other.useCount() == 1);
}

TEST_CASE("out-params become results in order") {
  Harness<Store> harness(storeBuilder());
  BufferRef buffer = makeBuffer({42, 0, 0});
  strata_vm_value_t args[1] = {ref(buffer.asRef())};
  strata_vm_value_t results[2];
  REQUIRE(harness.call("describe", args, 1, results, 2) == nullptr);
  CHECK(results[0].i64 == 3);
  CHECK(results[1].i32 == 42);
}

TEST_CASE("a failing function writes no out-params") {
  Harness<Store> harness(storeBuilder());
  BufferRef empty = makeBuffer({});
  strata_vm_value_t args[1] = {ref(empty.asRef())};
  strata_vm_value_t results[2];
  strata_status_t status = harness.call("describe", args, 1, results, 2);
  CHECK(strata_status_code(status) == STRATA_STATUS_FAILED_PRECONDITION);
  CHECK(results[0].i64 == 0);
  strata_status_free(status);
}

TEST_CASE("refs left in out-params of a failing function are released") {
  Harness<Store> harness(storeBuilder());
  int before = g_widgets_destroyed;
  strata_vm_value_t args[1] = {i32(16)};
  strata_vm_value_t results[1];
  strata_status_t status = harness.call("make_then_fail", args, 1, results, 1);
  CHECK(strata_status_code(status) == STRATA_STATUS_ABORTED);
  CHECK(message(status) == "failed on purpose");
  CHECK(results[0].ref == nullptr);
  CHECK(g_widgets_destroyed == before + 1);  // released, not leaked
  strata_status_free(status);
}

TEST_CASE("tuples return several results, with refs transferred") {
  Harness<Store> harness(storeBuilder());
  ListRef list = makeList();
  REQUIRE(strata_vm_list_resize(list.get(), 4) == nullptr);
  strata_vm_value_t args[1] = {ref(list.asRef())};
  strata_vm_value_t results[2];
  REQUIRE(harness.call("echo", args, 1, results, 2) == nullptr);
  CHECK(results[0].i64 == 4);
  CHECK(results[1].ref == list.asRef());
  CHECK(list.useCount() == 2);  // one owned by the results
  strata_vm_ref_release(results[1].ref);

  // Nullable accepts null.
  args[0] = ref(nullptr);
  REQUIRE(harness.call("echo", args, 1, results, 2) == nullptr);
  CHECK(results[0].i64 == -1);
  CHECK(results[1].ref == nullptr);
}

TEST_CASE("a ref of the wrong type is rejected naming function, index, type") {
  Harness<Store> harness(storeBuilder());
  ListRef list = makeList();
  strata_vm_value_t args[3] = {ref(list.asRef()), i64(0), i64(0)};
  strata_vm_value_t results[1];
  strata_status_t status = harness.call("slice", args, 3, results, 1);
  CHECK(strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT);
  CHECK(message(status) ==
        "native function 'store.slice': argument 0 must be a vm.buffer, got "
        "a vm.list");
  strata_status_free(status);
  CHECK(list.useCount() == 1);

  // Nullable still checks the type of a non-null ref.
  BufferRef buffer = makeBuffer({1});
  strata_vm_value_t echo_args[1] = {ref(buffer.asRef())};
  strata_vm_value_t echo_results[2];
  status = harness.call("echo", echo_args, 1, echo_results, 2);
  CHECK(message(status) ==
        "native function 'store.echo': argument 0 must be a vm.list or null, "
        "got a vm.buffer");
  strata_status_free(status);
}

TEST_CASE("a null ref is rejected unless the parameter is Nullable") {
  Harness<Store> harness(storeBuilder());
  strata_vm_value_t args[1] = {ref(nullptr)};
  strata_vm_value_t results[1];
  strata_status_t status = harness.call("keep", args, 1, nullptr, 0);
  CHECK(strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT);
  CHECK(message(status) ==
        "native function 'store.keep': argument 0 must be a vm.buffer, got "
        "null");
  strata_status_free(status);

  status = harness.call("type_name_length", args, 1, results, 1);
  CHECK(message(status) ==
        "native function 'store.type_name_length': argument 0 must be a "
        "non-null ref, got null");
  strata_status_free(status);
}

TEST_CASE("a generic ref parameter accepts any ref type") {
  Harness<Store> harness(storeBuilder());
  ListRef list = makeList();
  Ref<test_widget_t> widget = makeWidget(1);
  strata_vm_value_t args[1] = {ref(list.asRef())};
  strata_vm_value_t results[1];
  REQUIRE(harness.call("type_name_length", args, 1, results, 1) == nullptr);
  CHECK(results[0].i32 == 7);  // "vm.list"
  args[0] = ref(widget.asRef());
  REQUIRE(harness.call("type_name_length", args, 1, results, 1) == nullptr);
  CHECK(results[0].i32 == 11);  // "test.widget"
}

TEST_CASE("floating-point and bool values cross in the right slots") {
  Harness<Store> harness(storeBuilder());
  strata_vm_value_t args[1] = {f32(3.0f)};
  strata_vm_value_t results[1];
  REQUIRE(harness.call("half", args, 1, results, 1) == nullptr);
  CHECK(results[0].f32 == 1.5f);
  args[0] = f64(0.25);
  REQUIRE(harness.call("twice", args, 1, results, 1) == nullptr);
  CHECK(results[0].f64 == 0.5);
  args[0] = i64(int64_t{1} << 40);
  REQUIRE(harness.call("is_positive", args, 1, results, 1) == nullptr);
  CHECK(results[0].i32 == 1);
  args[0] = i64(-5);
  REQUIRE(harness.call("is_positive", args, 1, results, 1) == nullptr);
  CHECK(results[0].i32 == 0);
}

TEST_CASE("a deferring function is called again with the same arguments") {
  Harness<Store> harness(storeBuilder());
  harness.typed().pending_polls = 2;
  strata_vm_value_t args[1] = {i32(21)};
  strata_vm_value_t results[1];
  // Any non-NULL pointer stands in for the interpreter's call record.
  int token = 0;
  auto* call = reinterpret_cast<strata_vm_native_call_t*>(&token);
  CHECK(harness.call("poll", args, 1, results, 1, call) ==
        strata_status_deferred());
  CHECK(harness.typed().last_call == call);
  CHECK(results[0].i32 == 0);
  CHECK(harness.call("poll", args, 1, results, 1, call) ==
        strata_status_deferred());
  REQUIRE(harness.call("poll", args, 1, results, 1, call) == nullptr);
  CHECK(results[0].i32 == 42);
}

TEST_CASE("a variadic span arrives as a count followed by its values") {
  Harness<Store> harness(storeBuilder());
  strata_vm_value_t args[5] = {i32(100), i32(3), i64(1), i64(2), i64(3)};
  strata_vm_value_t results[1];
  REQUIRE(harness.call("sum", args, 5, results, 1) == nullptr);
  CHECK(results[0].i64 == 106);
  // An empty span.
  strata_vm_value_t empty[2] = {i32(7), i32(0)};
  REQUIRE(harness.call("sum", empty, 2, results, 1) == nullptr);
  CHECK(results[0].i64 == 7);
}

TEST_CASE("arguments after a multi-value span are found past it") {
  Harness<Store> harness(storeBuilder());
  Ref<test_widget_t> small = makeWidget(2);
  Ref<test_widget_t> large = makeWidget(10);
  strata_vm_value_t args[6] = {i32(2),
                               ref(small.asRef()),
                               i64(3),
                               ref(large.asRef()),
                               i64(4),
                               i32(10)};
  strata_vm_value_t results[2];
  REQUIRE(harness.call("widgets", args, 6, results, 2) == nullptr);
  CHECK(results[0].i32 == 2);
  CHECK(results[1].i64 == (2 * 3 + 10 * 4) * 10);
}

TEST_CASE("span elements are type-checked and named by their position") {
  Harness<Store> harness(storeBuilder());
  Ref<test_widget_t> widget = makeWidget(2);
  ListRef list = makeList();
  strata_vm_value_t args[6] = {i32(2),        ref(widget.asRef()),
                               i64(1),        ref(list.asRef()),
                               i64(1),        i32(1)};
  strata_vm_value_t results[2];
  strata_status_t status = harness.call("widgets", args, 6, results, 2);
  CHECK(strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT);
  CHECK(message(status) ==
        "native function 'store.widgets': argument 3 (element 2 of the "
        "variadic span) must be a test.widget, got a vm.list");
  strata_status_free(status);
}

TEST_CASE("argument and result counts must match the calling convention") {
  Harness<Store> harness(storeBuilder());
  strata_vm_value_t args[5] = {i32(1), i32(5), i64(1), i64(2), i64(3)};
  strata_vm_value_t results[2];
  strata_status_t status = harness.call("sum", args, 5, results, 1);
  CHECK(strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT);
  CHECK(message(status) ==
        "native function 'store.sum': variadic span count 5 (argument 1) "
        "does not match the 3 argument values after the fixed ones (0iCID_I)");
  strata_status_free(status);

  status = harness.call("half", args, 2, results, 1);
  CHECK(message(status) ==
        "native function 'store.half': expects 1 arguments (0f_f), got 2");
  strata_status_free(status);

  status = harness.call("half", args, 1, results, 2);
  CHECK(message(status) ==
        "native function 'store.half': returns 1 results (0f_f), caller "
        "expects 2");
  strata_status_free(status);
}

TEST_CASE("a call without a module state fails cleanly") {
  Harness<Counter> harness(counterBuilder());
  strata_vm_value_t results[1];
  strata_status_t status = harness.function("get").fn(
      nullptr, harness.definition, nullptr, nullptr, 0, results, 1);
  CHECK(strata_status_code(status) == STRATA_STATUS_FAILED_PRECONDITION);
  CHECK(message(status) ==
        "native function 'counter.get': called without a module state");
  strata_status_free(status);
}

TEST_CASE("a state factory replaces default construction") {
  Factory factory;
  factory.start = 40;
  NativeModuleBuilder<Configured> builder("configured");
  builder.function<&Configured::next>("next").stateFactory(
      &Factory::create, &Factory::destroy, &factory);
  {
    Harness<Configured> harness(builder);
    CHECK(factory.created == 1);
    strata_vm_value_t results[1];
    REQUIRE(harness.call("next", nullptr, 0, results, 1) == nullptr);
    REQUIRE(harness.call("next", nullptr, 0, results, 1) == nullptr);
    CHECK(results[0].i32 == 41);
  }
  CHECK(factory.destroyed == 1);

  // A failing factory's status reaches the caller.
  factory.fail = true;
  NativeModuleDefinition<Configured>* definition = nullptr;
  REQUIRE(builder.createDefinition(strata_allocator_system(), &definition) ==
          nullptr);
  void* state = reinterpret_cast<void*>(1);
  strata_status_t status = definition->descriptor()->create_state(
      definition, strata_allocator_system(), &state);
  CHECK(strata_status_code(status) == STRATA_STATUS_UNAVAILABLE);
  CHECK(state == nullptr);
  strata_status_free(status);
  definition->destroy();
}

TEST_CASE("a state without a default constructor needs a factory") {
  NativeModuleBuilder<Configured> builder("configured");
  builder.function<&Configured::next>("next");
  NativeModuleDefinition<Configured>* definition = nullptr;
  strata_status_t status =
      builder.createDefinition(strata_allocator_system(), &definition);
  CHECK(strata_status_code(status) == STRATA_STATUS_INVALID_ARGUMENT);
  CHECK(message(status).find("stateFactory") != std::string::npos);
  CHECK(definition == nullptr);
  strata_status_free(status);
}

TEST_CASE("build creates a module that exports every function") {
  CountingAllocator counter;
  strata_vm_module_t* module = nullptr;
  REQUIRE(counterBuilder().build(counter.get(), &module) == nullptr);
  CHECK(std::string(strata_vm_module_name(module)) == "counter");
  CHECK(strata_vm_module_version(module) == 3);
  REQUIRE(strata_vm_module_export_count(module) == 3);
  strata_vm_export_info_t info;
  REQUIRE(strata_vm_module_export_info(module, 0, &info) == nullptr);
  CHECK(std::string(info.name) == "add");
  CHECK(std::string(info.calling_convention) == "0i_i");
  REQUIRE(strata_vm_module_export_info(module, 1, &info) == nullptr);
  CHECK(std::string(info.name) == "get");
  CHECK(std::string(info.calling_convention) == "0_i");
  strata_vm_module_release(module);
  CHECK(counter.live == 0);  // the module freed its definition
}

TEST_CASE("build reports module errors and frees the definition") {
  CountingAllocator counter;
  NativeModuleBuilder<Counter> builder("counter");
  builder.function<&Counter::add>("add").function<&Counter::get>("add");
  strata_vm_module_t* module = nullptr;
  strata_status_t status = builder.build(counter.get(), &module);
  CHECK(strata_status_code(status) == STRATA_STATUS_ALREADY_EXISTS);
  CHECK(module == nullptr);
  CHECK(counter.live == 0);
  strata_status_free(status);
}

TEST_CASE("Ref retains on copy, moves without traffic and releases once") {
  BufferRef a = makeBuffer({1});
  CHECK(a.useCount() == 1);
  {
    BufferRef b = a;
    CHECK(a.useCount() == 2);
    BufferRef c = std::move(b);
    CHECK(!b);
    CHECK(a.useCount() == 2);
    c = a;  // same object: count unchanged
    CHECK(a.useCount() == 2);
    BufferRef& alias = c;
    c = alias;  // self-assignment is harmless
    CHECK(a.useCount() == 2);
  }
  CHECK(a.useCount() == 1);

  strata_vm_buffer_t* raw = a.detach();
  CHECK(!a);
  CHECK(strata_vm_ref_count(strata_vm_buffer_as_ref(raw)) == 1);
  BufferRef again = adoptRef(raw);
  BufferRef shared = retainRef(raw);
  CHECK(again.useCount() == 2);
  shared.reset();
  CHECK(again.useCount() == 1);

  AnyRef copied = again;  // a copying upcast retains
  CHECK(again.useCount() == 2);
  copied.reset();
  AnyRef any = std::move(again);  // a moving upcast keeps the one reference
  CHECK(any.useCount() == 1);
  CHECK(refCast<strata_vm_list_t>(any.asRef()).get() == nullptr);
  BufferRef back = refCast<strata_vm_buffer_t>(any.asRef());
  CHECK(back.get() == raw);
  CHECK(any.useCount() == 2);
}

TEST_CASE("Ref out() releases the old object before a create refills it") {
  int before = g_widgets_destroyed;
  Ref<test_widget_t> widget = makeWidget(1);
  test_widget_t** slot = widget.out();
  CHECK(g_widgets_destroyed == before + 1);
  CHECK(*slot == nullptr);
  *slot = makeWidget(2).detach();
  CHECK(widget.get()->size == 2);
}

TEST_CASE("Result holds a value or owns a failure") {
  Result<int32_t> value = 5;
  CHECK(value.ok());
  CHECK(value.value() == 5);
  CHECK(value.status() == nullptr);

  Result<int32_t> failed =
      strata_make_status(STRATA_STATUS_NOT_FOUND, "missing");
  CHECK(!failed.ok());
  CHECK(strata_status_code(failed.status()) == STRATA_STATUS_NOT_FOUND);
  strata_status_t taken = failed.takeStatus();
  CHECK(failed.status() == nullptr);
  strata_status_free(taken);

  // An unconsumed failure is freed by the destructor (checked by LSan).
  Result<BufferRef> dropped =
      strata_make_status(STRATA_STATUS_INTERNAL, "dropped");
  CHECK(!dropped.ok());

  // A Result made from an OK status is an INTERNAL error, not a success.
  Result<int32_t> bogus = strata_ok_status();
  CHECK(strata_status_code(bogus.status()) == STRATA_STATUS_INTERNAL);

  // Moving transfers ownership of both value and status.
  Result<BufferRef> buffer = makeBuffer({3});
  Result<BufferRef> moved = std::move(buffer);
  REQUIRE(moved.ok());
  CHECK(moved.value().useCount() == 1);
}

}  // TEST_SUITE("vm.native_module")
