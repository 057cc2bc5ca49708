"""test_values.py - arguments and results: numpy arrays of every dtype
strata-run supports (in without a copy when C-contiguous and aligned, out as
new arrays), Python numbers, bytes, strata.Ref, tuples of results, and
sequences and optionals (vm.lists) as Python lists and None."""
import sys
import time

import numpy as np
import pytest

import strata

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
          np.uint16, np.uint32, np.uint64, np.float16, np.float32, np.float64]


def sample_array(dtype, shape=(2, 3)):
    count = int(np.prod(shape))
    if dtype == np.bool_:
        return (np.arange(count) % 3 == 0).reshape(shape)
    values = np.arange(count).reshape(shape)
    if np.issubdtype(dtype, np.signedinteger) or np.issubdtype(
            dtype, np.floating):
        values = values - count // 2
    if np.issubdtype(dtype, np.floating):
        values = values * 0.75
    return values.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_round_trips(views, dtype):
    a = sample_array(dtype)
    out = views["echo"](a)
    assert isinstance(out, np.ndarray)
    assert out.dtype == a.dtype
    assert out.shape == a.shape
    np.testing.assert_array_equal(out, a)
    # One copy out: the result is the caller's own array.
    assert not np.shares_memory(out, a)
    assert out.flags.c_contiguous and out.flags.writeable


@pytest.mark.parametrize("shape", [(), (0,), (7,), (2, 0, 3), (1, 2, 3, 4, 5)])
def test_shapes_round_trip(views, shape):
    a = sample_array(np.float32, shape)
    out = views["echo"](a)
    assert out.shape == shape
    np.testing.assert_array_equal(out, a)


def test_strided_and_big_endian_arrays_are_copied_once(views):
    a = sample_array(np.int32, (4, 6))
    for view in (a.T, a[:, ::2], a[::-1]):
        out = views["echo"](view)
        assert out.flags.c_contiguous
        np.testing.assert_array_equal(out, view)
    big = sample_array(np.float64).astype(">f8")
    out = views["echo"](big)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, big)


def test_lists_and_numpy_scalars_become_arrays(views):
    out = views["echo"]([[1.5, 2.5], [3.5, 4.5]])
    assert out.dtype == np.float64 and out.shape == (2, 2)
    out = views["echo"](np.float32(2.5))
    assert out.dtype == np.float32 and out.shape == () and out == 2.5


def test_a_contiguous_array_is_used_in_place(device):
    # While a call is in flight the runtime holds a reference to the
    # caller's array itself (no copy); a strided one is copied, so the
    # runtime holds the copy instead.
    from conftest import module_path
    session = strata.Session(module_path("STRATA_TEST_HAL_SAMPLE"),
                             device=device)
    contiguous = np.ones((2, 3), np.float32)
    strided = np.ones((3, 2), np.float32).T
    before = (sys.getrefcount(contiguous), sys.getrefcount(strided))
    gate = strata.Fence()
    future = session["add"].call_async(contiguous, strided, wait=gate)
    assert sys.getrefcount(contiguous) == before[0] + 1
    assert sys.getrefcount(strided) == before[1]
    gate.signal()
    np.testing.assert_array_equal(future.result(timeout=30),
                                  np.full((2, 3), 2, np.float32))
    del future
    # Then the runtime lets go of it (a local-task worker may hold the
    # finished submission for a moment).
    deadline = time.monotonic() + 10
    while (sys.getrefcount(contiguous) != before[0]
           and time.monotonic() < deadline):
        time.sleep(0.01)
        strata._strata._release_deferred()
    assert sys.getrefcount(contiguous) == before[0]


def test_read_only_arrays_are_accepted(views):
    a = sample_array(np.int16)
    a.flags.writeable = False
    np.testing.assert_array_equal(views["echo"](a), a)


def test_several_results_come_back_as_a_tuple(views):
    a = sample_array(np.uint8)
    b = sample_array(np.float16)
    first, second = views["swap"](a, b)
    np.testing.assert_array_equal(first, b)
    np.testing.assert_array_equal(second, a)
    number, tensor = views["tag"](a, 42)
    assert number == 42 and isinstance(number, int)
    np.testing.assert_array_equal(tensor, a)


def test_scalars_round_trip(sample):
    assert sample["add"](2, 3) == 5
    assert sample["add"](np.int32(-7), True) == -6
    assert sample["add"](2**31 - 1, 1) == -(2**31)  # i32 wraps
    assert sample["neg64"](2**40) == -(2**40)
    assert sample["scale"](2.0) == 5.0
    assert isinstance(sample["scale"](2), float)
    assert sample["fadd32"](0.5, 0.25) == pytest.approx(0.75)
    assert sample["pair"]() == (7, 0.5)
    assert sample["fails"].results == []
    assert sample["rodata_len"]() == 20


def test_vm_buffers_are_bytes(sample):
    assert sample["make_buffer"]() == bytes(16)


def test_the_hal_sample_adds_on_both_devices(hal_sample):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.full((3, 4), 0.5, np.float32)
    np.testing.assert_array_equal(hal_sample["add"](a, b), a + b)
    np.testing.assert_array_equal(hal_sample.call("add", a, b), a + b)


def test_functions_list_names_and_signatures(sample, device):
    from conftest import module_path
    functions = sample.functions
    assert set(functions) >= {"add", "scale", "pair", "fails", "make_buffer"}
    assert functions["add"].signature == "(i32, i32) -> i32"
    assert functions["pair"].signature == "() -> (i32, f64)"
    assert functions["add"].full_name == "sample.add"
    assert functions["add"].calling_convention == "0ii_i"
    assert functions["add"].attributes["iree.abi.declaration"] == (
        "add(%a: i32, %b: i32) -> i32")
    typed = strata.Session(module_path("STRATA_TEST_TYPED"), device=device)
    assert typed.functions["echo_f32"].signature == (
        "(tensor<2x3xf32>) -> tensor<2x3xf32>")
    assert typed["echo_dynamic"].arguments == ["tensor<?x3xi32>"]
    hal = strata.Session(module_path("STRATA_TEST_HAL_SAMPLE"), device=device)
    # The async twin is not listed; the function knows it has one.
    assert list(hal.functions) == ["add"]
    assert hal["add"].has_async_entry
    assert not sample["add"].has_async_entry
    assert "add" in sample and "nope" not in sample


def test_sessions_load_from_bytes_and_link_modules(device):
    from conftest import module_path
    with open(module_path("STRATA_TEST_VIEWS"), "rb") as f:
        session = strata.Session(f.read(), device=device)
    np.testing.assert_array_equal(session["echo"](np.arange(3)), np.arange(3))
    # app.main(x) = math.double(x) + 1, math given as bytes before it.
    with open(module_path("STRATA_TEST_MATH"), "rb") as f:
        math = f.read()
    app = strata.Session(module_path("STRATA_TEST_APP"), device=device,
                         modules=[bytearray(math)])
    assert app["main"](20) == 41
    assert app["math.double"](4) == 8


def test_sessions_share_an_instance():
    from conftest import module_path
    instance = strata.Instance("local-sync")
    a = strata.Session(module_path("STRATA_TEST_SAMPLE"), instance=instance)
    b = strata.Session(module_path("STRATA_TEST_VIEWS"), instance=instance)
    assert a.instance is instance and b.instance is instance
    assert a["add"](1, 2) == 3
    # Each session is its own context: module globals are not shared.
    assert a["counter"]() == 1 and a["counter"]() == 2
    c = strata.Session(module_path("STRATA_TEST_SAMPLE"), instance=instance)
    assert c["counter"]() == 1


def test_tensors_stay_in_the_runtime(views):
    a = sample_array(np.float32, (2, 3))
    tensor = views["echo"](a, tensors=True)
    assert isinstance(tensor, strata.Tensor)
    assert tensor.shape == (2, 3)
    assert tensor.element_type == "f32"
    assert tensor.nbytes == a.nbytes
    assert repr(tensor) == "<strata.Tensor 2x3xf32>"
    np.testing.assert_array_equal(tensor.numpy(), a)
    np.testing.assert_array_equal(np.asarray(tensor), a)
    assert np.asarray(tensor, dtype=np.float64).dtype == np.float64
    # A Tensor goes back in as it is; its results as Tensors or arrays.
    again = views["echo"](tensor, tensors=True)
    assert isinstance(again, strata.Tensor)
    np.testing.assert_array_equal(views["echo"](again), a)
    first, second = views["swap"](tensor, np.int8([1, 2]), tensors=True)
    assert isinstance(first, strata.Tensor) and first.element_type == "i8"
    np.testing.assert_array_equal(second.numpy(), a)


def test_a_tensor_wraps_an_array(views):
    a = sample_array(np.int64, (4,))
    tensor = strata.Tensor(a)
    assert tensor.shape == (4,) and tensor.element_type == "i64"
    np.testing.assert_array_equal(views["echo"](tensor), a)
    empty = strata.Tensor(np.zeros((1, 4, 0, 8), np.float32))
    assert empty.shape == (1, 4, 0, 8) and empty.nbytes == 0
    assert empty.numpy().shape == (1, 4, 0, 8)
    with pytest.raises(strata.InvalidArgumentError, match="unsupported dtype"):
        strata.Tensor(np.array(["text"]))


def test_a_tensor_of_the_wrong_type_is_refused(hal_sample):
    a = np.ones((3, 4), np.float32)
    wrong = strata.Tensor(np.ones((4, 3), np.float32))
    # This module has no reflection: its own check names the input.
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"input 1: expected tensor<3x4xf32>, got "
                             r"tensor<4x3xf32>"):
        hal_sample["add"](a, wrong)
    total = hal_sample["add"](strata.Tensor(a), a, tensors=True)
    np.testing.assert_array_equal(total.numpy(), a + a)
    # The result tensor feeds the next call and keeps its contents when the
    # next call writes its own result.
    twice = hal_sample["add"](total, total, tensors=True)
    np.testing.assert_array_equal(total.numpy(), a + a)
    np.testing.assert_array_equal(twice.numpy(), 4 * a)


def test_sequences_are_python_lists(lists):
    seq = [np.array([1, 2, 3], np.float32), np.array([4, 5], np.float32)]
    out = lists["seq_echo"](seq)
    assert isinstance(out, list) and len(out) == 2
    assert out[0].tolist() == [1, 2, 3] and out[1].tolist() == [4, 5]
    assert out[0].dtype == np.float32
    assert lists["seq_echo"]([]) == []
    assert lists["seq_echo"](tuple(seq))[1].tolist() == [4, 5]
    # Elements of any rank; the module counts them.
    assert lists["seq_len"]([np.int64(1), np.zeros((2, 2), np.int64),
                             np.zeros(0, np.int64)]) == 3
    count, tensor = lists["mixed"](seq, np.array([7, 8, 9], np.float32))
    assert count == 2 and tensor.tolist() == [7, 8, 9]
    # Tensors stay in the runtime with tensors=True, and go back in.
    kept = lists["seq_echo"](seq, tensors=True)
    assert isinstance(kept[0], strata.Tensor)
    assert lists["seq_echo"](kept)[1].tolist() == [4, 5]


def test_optionals_are_none_or_the_value(lists):
    assert lists["opt_echo"](None) is None
    out = lists["opt_echo"](np.array([1, 2], np.int32))
    assert out.dtype == np.int32 and out.tolist() == [1, 2]
    assert lists["optseq_echo"](None) is None
    out = lists["optseq_echo"]([np.array([1.5], np.float32)])
    assert isinstance(out, list) and out[0].tolist() == [1.5]


def test_bf16_sequence_elements_are_float32(lists):
    out = lists["bf16_seq"]([np.array([1.0, 1.00390625, -2.5], np.float32)])
    assert out[0].dtype == np.float32
    assert out[0].tolist() == [1.0, 1.0, -2.5]


def test_bad_sequence_arguments_name_the_argument(lists):
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"argument 0 of lists.seq_echo is a list<\?xf32>:"
                             r" pass a Python list of arrays, not ndarray"):
        lists["seq_echo"](np.zeros(3, np.float32))
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"argument 0 of lists.seq_echo"):
        lists["seq_echo"]([np.zeros(3, np.int32)])
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"argument 0 of lists.opt_echo"):
        lists["opt_echo"](np.zeros(3, np.int32))
