// values.cpp - conversions between Python values and call arguments and
// results: numpy arrays wrapped as buffer views without a copy, results
// copied out into new arrays, Python numbers, bytes and opaque refs.
#include "values.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "errors.h"
#include "strata/tensor_types.hpp"
#include "strata/vm/buffer.h"
#include "tensor_type_match.h"

namespace strata::python {

namespace {

//===--------------------------------------------------------------------===//
// The owner of a wrapped array's memory
//===--------------------------------------------------------------------===//

// A ref object holding one reference to a Python object: the owner of a
// hal.buffer wrapped around an array's data (strata_hal_buffer_wrap).
struct PythonOwner {
  strata_vm_ref_object_t header;
  PyObject* object;
};

// References dropped by threads that do not hold the GIL (local-task
// workers releasing retired submissions, the loop thread): they are
// released by the next thread that holds it (the interpreter's pending
// call, or the next call into this module). A worker never waits for the
// GIL, so kernels never queue behind Python code.
std::mutex deferred_mutex;
std::vector<PyObject*>* deferred = new std::vector<PyObject*>();
// Whether deferred may hold references: every call checks it, few lock.
std::atomic<bool> has_deferred{false};

int releaseDeferredCallback(void*) {
  releaseDeferredReferences();
  return 0;
}

void destroyOwner(strata_vm_ref_object_t* ref) {
  auto* owner = reinterpret_cast<PythonOwner*>(ref);
  PyObject* object = owner->object;
  delete owner;
  if (PyGILState_Check()) {
    Py_DECREF(object);
    return;
  }
  bool first;
  {
    std::lock_guard<std::mutex> lock(deferred_mutex);
    first = deferred->empty();
    deferred->push_back(object);
    has_deferred.store(true, std::memory_order_release);
  }
  if (first) {
    // Needs neither the GIL nor a thread state. When the queue of pending
    // calls is full the next call into the module releases them.
    Py_AddPendingCall(releaseDeferredCallback, nullptr);
  }
}

const strata_vm_ref_type_t kPythonOwnerType = {"python.object", destroyOwner};

strata_vm_ref_object_t* newOwner(PyObject* object) {
  auto* owner = new PythonOwner;
  strata_vm_ref_object_init(&owner->header, &kPythonOwnerType);
  Py_INCREF(object);
  owner->object = object;
  return &owner->header;
}

// Bytes at which the copy out of a result lets other threads run.
constexpr size_t kCopyWithoutGilBytes = 256 * 1024;

}  // namespace

void releaseDeferredReferences() {
  if (!has_deferred.load(std::memory_order_acquire)) {
    return;
  }
  std::vector<PyObject*> objects;
  {
    std::lock_guard<std::mutex> lock(deferred_mutex);
    has_deferred.store(false, std::memory_order_relaxed);
    objects.swap(*deferred);
  }
  for (PyObject* object : objects) {
    Py_DECREF(object);
  }
}

//===--------------------------------------------------------------------===//
// Element types
//===--------------------------------------------------------------------===//

strata_hal_element_type_t elementTypeOf(const py::dtype& dtype) {
  ssize_t size = dtype.itemsize();
  switch (dtype.kind()) {
  case 'b':
    return size == 1 ? STRATA_HAL_ELEMENT_TYPE_BOOL_8
                     : STRATA_HAL_ELEMENT_TYPE_NONE;
  case 'i':
    switch (size) {
    case 1: return STRATA_HAL_ELEMENT_TYPE_INT_8;
    case 2: return STRATA_HAL_ELEMENT_TYPE_INT_16;
    case 4: return STRATA_HAL_ELEMENT_TYPE_INT_32;
    case 8: return STRATA_HAL_ELEMENT_TYPE_INT_64;
    }
    break;
  case 'u':
    switch (size) {
    case 1: return STRATA_HAL_ELEMENT_TYPE_UINT_8;
    case 2: return STRATA_HAL_ELEMENT_TYPE_UINT_16;
    case 4: return STRATA_HAL_ELEMENT_TYPE_UINT_32;
    case 8: return STRATA_HAL_ELEMENT_TYPE_UINT_64;
    }
    break;
  case 'f':
    switch (size) {
    case 2: return STRATA_HAL_ELEMENT_TYPE_FLOAT_16;
    case 4: return STRATA_HAL_ELEMENT_TYPE_FLOAT_32;
    case 8: return STRATA_HAL_ELEMENT_TYPE_FLOAT_64;
    }
    break;
  }
  return STRATA_HAL_ELEMENT_TYPE_NONE;
}

bool dtypeOf(strata_hal_element_type_t type, py::dtype* out_dtype) {
  uint32_t numerical = type >> 24;
  uint32_t bits = type & 0xFFu;
  const char* name = nullptr;
  switch (numerical) {
  case STRATA_HAL_NUMERICAL_TYPE_BOOLEAN:
    name = bits == 8 || bits == 1 ? "bool" : nullptr;
    break;
  case STRATA_HAL_NUMERICAL_TYPE_INTEGER:
  case STRATA_HAL_NUMERICAL_TYPE_INTEGER_SIGNED:
    switch (bits) {
    case 1:
      name = numerical == STRATA_HAL_NUMERICAL_TYPE_INTEGER ? "bool" : nullptr;
      break;
    case 8: name = "int8"; break;
    case 16: name = "int16"; break;
    case 32: name = "int32"; break;
    case 64: name = "int64"; break;
    }
    break;
  case STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED:
    switch (bits) {
    case 8: name = "uint8"; break;
    case 16: name = "uint16"; break;
    case 32: name = "uint32"; break;
    case 64: name = "uint64"; break;
    }
    break;
  case STRATA_HAL_NUMERICAL_TYPE_FLOAT_IEEE:
    switch (bits) {
    case 16: name = "float16"; break;
    case 32: name = "float32"; break;
    case 64: name = "float64"; break;
    }
    break;
  }
  if (!name) {
    return false;
  }
  // numpy parses a dtype name slowly; each is made once (and leaked, as
  // the module's other Python constants). Few types: a linear scan.
  struct CachedDtype {
    strata_hal_element_type_t type;
    py::dtype* dtype;
  };
  static std::vector<CachedDtype>* cache = new std::vector<CachedDtype>();
  py::dtype* dtype = nullptr;
  for (const CachedDtype& entry : *cache) {
    if (entry.type == type) {
      dtype = entry.dtype;
      break;
    }
  }
  if (!dtype) {
    dtype = new py::dtype(name);
    cache->push_back({type, dtype});
  }
  *out_dtype = *dtype;
  return true;
}

//===--------------------------------------------------------------------===//
// Arguments
//===--------------------------------------------------------------------===//

strata_hal_buffer_view_t* viewFromArray(const py::array& input,
                                        const std::string& want, size_t index,
                                        const std::string& function) {
  // Built only for a message: this is every call's path.
  auto where = [&] {
    return "argument " + std::to_string(index) + " of " + function;
  };
  py::array array = input;
  py::dtype dtype = array.dtype();
  strata_hal_element_type_t type = elementTypeOf(dtype);
  if (type == STRATA_HAL_ELEMENT_TYPE_NONE) {
    raiseError(STRATA_STATUS_INVALID_ARGUMENT,
               where() + ": unsupported dtype " +
                   py::str(dtype).cast<std::string>() +
                   " (strata takes bool, int8-64, uint8-64 and float16-64 "
                   "arrays)");
  }
  int ndim = static_cast<int>(array.ndim());
  if (ndim > STRATA_HAL_MAX_RANK) {
    raiseError(STRATA_STATUS_INVALID_ARGUMENT,
               where() + ": " + std::to_string(ndim) +
                   " dimensions; strata takes at most " +
                   std::to_string(STRATA_HAL_MAX_RANK));
  }
  int64_t shape[STRATA_HAL_MAX_RANK];
  for (int i = 0; i < ndim; ++i) {
    shape[i] = static_cast<int64_t>(array.shape(i));
  }
  if (type == STRATA_HAL_ELEMENT_TYPE_FLOAT_32 && tools::isBFloatType(want)) {
    // numpy has no bf16: a float32 array is rounded into a bf16 copy.
    py::array_t<float, py::array::c_style | py::array::forcecast> floats(array);
    py::array_t<uint16_t> bits(std::vector<py::ssize_t>(
        floats.shape(), floats.shape() + floats.ndim()));
    const float* in = floats.data();
    uint16_t* out = bits.mutable_data();
    for (py::ssize_t i = 0; i < floats.size(); ++i) {
      out[i] = runtime::bfloatFromFloat(in[i]);
    }
    array = bits;
    dtype = array.dtype();
    type = STRATA_HAL_ELEMENT_TYPE_BFLOAT_16;
  }
  if (!want.empty()) {
    // The export's signature, when the compiler recorded it; strata-run's
    // message.
    std::string got =
        runtime::describeTensorType(shape, static_cast<size_t>(ndim), type);
    // A signless integer argument (i8: ONNX's uint8 becomes one) takes
    // unsigned data of its width as it is, as strata-run does.
    if (!tools::fitArgumentType(want, got, &type)) {
      raiseError(STRATA_STATUS_INVALID_ARGUMENT,
                 where() + " is a " + want + " tensor, not " + got);
    }
  }

  // Big-endian data is converted; anything not C-contiguous or not aligned
  // is copied once (py::array::ensure copies only when it has to).
  if (dtype.byteorder() == '>') {
    array = array.attr("astype")(dtype.attr("newbyteorder")("="));
  }
  constexpr int kWrappable = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ |
                             py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  if ((array.flags() & kWrappable) != kWrappable) {
    array = py::array::ensure(array, kWrappable);
    if (!array) {
      throw py::error_already_set();
    }
  }

  strata_allocator_t allocator = strata_allocator_system();
  size_t length = static_cast<size_t>(array.nbytes());
  strata_vm_ref_object_t* owner = newOwner(array.ptr());
  strata_hal_buffer_t* buffer = nullptr;
  // The runtime reads arguments and never writes them, so read-only arrays
  // are wrapped too.
  strata_status_t status = strata_hal_buffer_wrap(
      const_cast<void*>(array.data()), length, owner, allocator, &buffer);
  strata_vm_ref_release(owner);  // the buffer holds it now
  strata_hal_buffer_view_t* view = nullptr;
  if (!status) {
    status = strata_hal_buffer_view_create(
        buffer, shape, static_cast<size_t>(ndim), type, allocator, &view);
  }
  strata_hal_buffer_release(buffer);  // the view holds it now
  if (status) {
    raiseStatus(strata_status_annotate(status, "%s", where().c_str()));
  }
  return view;
}

strata_vm_buffer_t* bufferFromBytes(const py::buffer& bytes) {
  py::buffer_info info = bytes.request();
  size_t length = static_cast<size_t>(info.size * info.itemsize);
  strata_vm_buffer_t* buffer = nullptr;
  check(strata_vm_buffer_create(length, 0, strata_allocator_system(), &buffer));
  if (length) {
    std::memcpy(strata_vm_buffer_data(buffer), info.ptr, length);
  }
  return buffer;
}

//===--------------------------------------------------------------------===//
// Results
//===--------------------------------------------------------------------===//

py::array arrayFromView(const strata_hal_buffer_view_t* view,
                        const std::string& recorded) {
  strata_hal_element_type_t type = tools::recordedElementType(
      strata_hal_buffer_view_element_type(view), recorded);
  bool bfloat = type == STRATA_HAL_ELEMENT_TYPE_BFLOAT_16;
  py::dtype dtype;
  if (bfloat) {
    dtype = py::dtype::of<float>();
  } else if (!dtypeOf(type, &dtype)) {
    const char* name = strata_hal_element_type_name(type);
    raiseError(STRATA_STATUS_UNIMPLEMENTED,
               std::string("a result of element type ") +
                   (name ? name : std::to_string(type)) +
                   " has no numpy dtype");
  }
  size_t rank = strata_hal_buffer_view_rank(view);
  const int64_t* dims = strata_hal_buffer_view_shape(view);
  Py_intptr_t shape[STRATA_HAL_MAX_RANK];
  for (size_t i = 0; i < rank; ++i) {
    shape[i] = static_cast<Py_intptr_t>(dims[i]);
  }
  const void* data = nullptr;
  size_t length = 0;
  check(strata_runtime_buffer_view_data(view, &data, &length));
  // numpy's C API directly: py::array's constructor builds stride vectors
  // for every result. NewFromDescr steals a dtype reference.
  auto& api = py::detail::npy_api::get();
  PyObject* created = api.PyArray_NewFromDescr_(
      api.PyArray_Type_, dtype.inc_ref().ptr(), static_cast<int>(rank), shape,
      nullptr, nullptr, 0, nullptr);
  if (!created) {
    throw py::error_already_set();
  }
  py::array array = py::reinterpret_steal<py::array>(created);
  if (bfloat) {
    // Widened exactly, element by element.
    if (static_cast<size_t>(array.nbytes()) != length * 2) {
      raiseError(STRATA_STATUS_INTERNAL,
                 "a bf16 result view of " + std::to_string(length) +
                     " bytes does not fill its " +
                     std::to_string(array.nbytes()) + "-byte array");
    }
    auto* out = static_cast<float*>(array.mutable_data());
    const auto* in = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < length / 2; ++i) {
      uint16_t bits;
      std::memcpy(&bits, in + 2 * i, 2);
      out[i] = runtime::bfloatToFloat(bits);
    }
    return array;
  }
  if (static_cast<size_t>(array.nbytes()) != length) {
    raiseError(STRATA_STATUS_INTERNAL,
               "a result view of " + std::to_string(length) +
                   " bytes does not fill its " +
                   std::to_string(array.nbytes()) + "-byte array");
  }
  void* out = array.mutable_data();
  if (length >= kCopyWithoutGilBytes) {
    py::gil_scoped_release release;
    std::memcpy(out, data, length);
  } else if (length) {
    std::memcpy(out, data, length);
  }
  if (dtype.kind() == 'b') {
    // numpy's bools are 0 or 1; the runtime's i1 is any non-zero byte.
    auto* bytes = static_cast<uint8_t*>(out);
    for (size_t i = 0; i < length; ++i) {
      bytes[i] = bytes[i] != 0;
    }
  }
  return array;
}

Ref::Ref(strata_vm_ref_object_t* ref) : ref_(ref) {
  strata_vm_ref_retain(ref);
}

Ref::~Ref() {
  strata_vm_ref_release(ref_);
}

std::string Ref::typeName() const {
  return ref_ && ref_->type && ref_->type->name ? ref_->type->name : "null";
}

Tensor::Tensor(strata_hal_buffer_view_t* view, std::string recorded)
    : view_(view), recorded_(std::move(recorded)) {
  strata_vm_ref_retain(strata_hal_buffer_view_as_ref(view));
}

Tensor::Tensor(const py::array& array)
    : view_(viewFromArray(array, "", 0, "strata.Tensor")) {}

Tensor::~Tensor() { strata_hal_buffer_view_release(view_); }

py::tuple Tensor::shape() const {
  size_t rank = strata_hal_buffer_view_rank(view_);
  const int64_t* dims = strata_hal_buffer_view_shape(view_);
  py::tuple out(rank);
  for (size_t i = 0; i < rank; ++i) {
    out[i] = py::int_(dims[i]);
  }
  return out;
}

std::string Tensor::elementType() const {
  strata_hal_element_type_t type = tools::recordedElementType(
      strata_hal_buffer_view_element_type(view_), recorded_);
  return runtime::elementTypeName(type);
}

std::string Tensor::typeText() const {
  strata_hal_element_type_t type = tools::recordedElementType(
      strata_hal_buffer_view_element_type(view_), recorded_);
  return runtime::describeTensorType(strata_hal_buffer_view_shape(view_),
                                     strata_hal_buffer_view_rank(view_), type);
}

size_t Tensor::byteLength() const {
  const void* data = nullptr;
  size_t length = 0;
  check(strata_runtime_buffer_view_data(view_, &data, &length));
  return length;
}

py::array Tensor::numpy() const { return arrayFromView(view_, recorded_); }

py::object fromVariant(const strata_vm_variant_t& value,
                       const std::string& recorded, bool tensors) {
  switch (value.type) {
  case STRATA_VM_VALUE_I32: return py::int_(value.value.i32);
  case STRATA_VM_VALUE_I64: return py::int_(value.value.i64);
  case STRATA_VM_VALUE_F32:
    return py::float_(static_cast<double>(value.value.f32));
  case STRATA_VM_VALUE_F64: return py::float_(value.value.f64);
  case STRATA_VM_VALUE_REF: {
    strata_vm_ref_object_t* ref = value.value.ref;
    if (!ref) {
      return py::none();
    }
    if (strata_hal_buffer_view_t* view = strata_hal_buffer_view_from_ref(ref)) {
      if (tensors) {
        return py::cast(new Tensor(view, recorded),
                        py::return_value_policy::take_ownership);
      }
      return arrayFromView(view, recorded);
    }
    if (strata_vm_buffer_t* buffer = strata_vm_buffer_from_ref(ref)) {
      return py::bytes(
          reinterpret_cast<const char*>(strata_vm_buffer_data(buffer)),
          strata_vm_buffer_length(buffer));
    }
    return py::cast(new Ref(ref), py::return_value_policy::take_ownership);
  }
  default:
    raiseError(STRATA_STATUS_INTERNAL,
               "a result of unknown value type " + std::to_string(value.type));
  }
}

}  // namespace strata::python
