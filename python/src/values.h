// values.h - Python values as call arguments and results as Python values:
// numpy arrays to and from HAL buffer views (zero-copy in, one copy out),
// Python numbers to and from VM scalars, bytes to and from vm.buffer, and
// an opaque strata.Ref for other refs.
#ifndef STRATA_PYTHON_VALUES_H_
#define STRATA_PYTHON_VALUES_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

#include "strata/runtime.h"
#include "strata/vm/buffer.h"

namespace strata::python {

namespace py = pybind11;

/// The HAL element type strata uses for a numpy dtype: the mapping of
/// strata-run's .npy reader (bool -> i1, intN -> iN, uintN -> uiN,
/// floatN -> fN). NONE when strata has no such type (complex, objects,
/// strings, datetimes...).
strata_hal_element_type_t elementTypeOf(const py::dtype& dtype);

/// The numpy dtype of a HAL element type; false when numpy has none.
bool dtypeOf(strata_hal_element_type_t type, py::dtype* out_dtype);

/// A buffer view of array (owned by the caller). A C-contiguous, aligned
/// array in native byte order is wrapped without copying: the view keeps
/// the array alive (a reference released with the GIL, or handed to the
/// interpreter when the last holder is a runtime thread) and the runtime
/// only reads it. Any other array is copied once into a C-contiguous one.
/// A float32 array for a bf16 `want` is rounded into a bf16 copy.
/// An unsupported dtype, or a type ("2x3xf32") that is not `want` (a
/// reflection type such as "?x3xf32"; "" accepts any), raises
/// strata.InvalidArgumentError starting with "argument <index> of
/// <function>". Needs the GIL.
strata_hal_buffer_view_t* viewFromArray(const py::array& array,
                                        const std::string& want, size_t index,
                                        const std::string& function);

/// A new numpy array holding a copy of the view's contents. `recorded` is
/// the export's "resultN.element_type" reflection ("" if none): a signless
/// integer view it names unsigned ("ui8") gives an unsigned array. A bf16
/// view gives a float32 array (numpy has no bf16). Needs the GIL (released
/// around large copies).
py::array arrayFromView(const strata_hal_buffer_view_t* view,
                        const std::string& recorded = "");

/// A vm.buffer holding a copy of a bytes-like object (owned by the
/// caller). Needs the GIL.
strata_vm_buffer_t* bufferFromBytes(const py::buffer& bytes);

/// A result as a Python value: int (i32, i64), float (f32, f64), a numpy
/// array (buffer view, copied; a strata.Tensor holding the view instead
/// when `tensors`), bytes (vm.buffer, copied), None (null ref) or
/// strata.Ref (any other ref, retained). Needs the GIL.
/// `recorded` as for arrayFromView.
py::object fromVariant(const strata_vm_variant_t& value,
                       const std::string& recorded = "", bool tensors = false);

/// strata.Tensor: a tensor that stays in the runtime. A call made with
/// tensors=True returns its results as Tensors, and a Tensor passed as an
/// argument goes into the call as it is, so one call's results feed the
/// next without a copy (a decoder's key/value cache stays in the runtime
/// between tokens). numpy() copies the contents out. Built from a numpy
/// array, a Tensor wraps it without copying (as arguments do) and keeps it
/// alive; the runtime only reads it.
class Tensor {
 public:
  /// Retains view. `recorded` as for arrayFromView.
  Tensor(strata_hal_buffer_view_t* view, std::string recorded);
  /// Wraps array (viewFromArray with no expected type).
  explicit Tensor(const py::array& array);
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  ~Tensor();
  strata_hal_buffer_view_t* get() const { return view_; }
  /// The view's dimensions.
  py::tuple shape() const;
  /// The element type as the signature spells it ("f32", "ui8", "bf16").
  std::string elementType() const;
  /// "1x4x9x64xf32", as arguments are matched against signatures.
  std::string typeText() const;
  size_t byteLength() const;
  /// A new numpy array holding a copy of the contents (arrayFromView).
  py::array numpy() const;

 private:
  strata_hal_buffer_view_t* view_;
  std::string recorded_;
};

/// A ref the Python API has no conversion for (a vm.list, a hal.fence...),
/// held so that it can be passed back into calls.
class Ref {
 public:
  /// Retains ref.
  explicit Ref(strata_vm_ref_object_t* ref);
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  ~Ref();
  strata_vm_ref_object_t* get() const { return ref_; }
  std::string typeName() const;

 private:
  strata_vm_ref_object_t* ref_;
};

/// Drops the Python references that runtime threads let go of without the
/// GIL (see viewFromArray). Needs the GIL; cheap when there are none.
void releaseDeferredReferences();

}  // namespace strata::python

#endif  // STRATA_PYTHON_VALUES_H_
