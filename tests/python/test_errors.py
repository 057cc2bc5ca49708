"""test_errors.py - failures as strata.Error subclasses with the runtime's
message and the VM backtrace: wrong shapes and dtypes naming the argument
(as strata-run does), argument counts and kinds, failures inside functions
and kernels, bad modules, devices and names."""
import numpy as np
import pytest

import strata
from conftest import module_path


def test_a_wrong_shape_names_the_argument(device):
    typed = strata.Session(module_path("STRATA_TEST_TYPED"), device=device)
    with pytest.raises(strata.InvalidArgumentError) as error:
        typed["echo_f32"](np.zeros((3, 2), np.float32))
    assert str(error.value) == ("INVALID_ARGUMENT: argument 0 of "
                                "typed.echo_f32 is a 2x3xf32 tensor, not "
                                "3x2xf32")
    assert error.value.code == "INVALID_ARGUMENT"
    assert isinstance(error.value, ValueError)
    # Dynamic dims take any size; the rank and the other dims must match.
    assert typed["echo_dynamic"](np.zeros((5, 3), np.int32)).shape == (5, 3)
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"argument 0 of typed.echo_dynamic is a "
                             r"\?x3xi32 tensor, not 5x4xi32$"):
        typed["echo_dynamic"](np.zeros((5, 4), np.int32))
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"is a \?x3xi32 tensor, not 3xi32$"):
        typed["echo_dynamic"](np.zeros((3,), np.int32))


def test_a_wrong_dtype_names_the_argument(device):
    typed = strata.Session(module_path("STRATA_TEST_TYPED"), device=device)
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"argument 0 of typed.echo_f32 is a 2x3xf32 "
                             r"tensor, not 2x3xf64$"):
        typed["echo_f32"](np.zeros((2, 3), np.float64))
    # Unsigned data of the width of a signless argument is taken as it is
    # (ONNX's uint8 inputs compile to i8), as strata-run does; another
    # width is not.
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"is a \?x3xi32 tensor, not 2x3xui64$"):
        typed["echo_dynamic"](np.zeros((2, 3), np.uint64))
    data = np.array([[1, 2, 3], [0xFFFFFFFF, 7, 0x80000000]], np.uint32)
    echoed = typed["echo_dynamic"](data)
    assert echoed.dtype == np.int32
    assert (echoed.view(np.uint32) == data).all()


def test_an_unsupported_dtype_names_the_argument(views):
    for value in (np.zeros(3, np.complex64), np.array(["a", "b"])):
        with pytest.raises(strata.InvalidArgumentError,
                           match=r"^INVALID_ARGUMENT: argument 0 of "
                                 r"views.echo"):
            views["echo"](value)


def test_a_shape_the_program_rejects_fails_with_its_backtrace(hal_sample):
    a = np.ones((2, 3), np.float32)
    with pytest.raises(strata.InvalidArgumentError) as error:
        hal_sample["add"](a, np.ones((3, 2), np.float32))
    assert error.value.message == ("input 1: expected tensor<2x3xf32>, got "
                                   "tensor<3x2xf32>")
    assert any(line.startswith("at hal_sample.add (hal_sample.mlir:")
               for line in error.value.backtrace)


def test_argument_counts_and_kinds(sample):
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"sample.add takes 2 arguments, got 1; "
                             r"sample.add takes \(i32, i32\) -> i32$"):
        sample["add"](1)
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"argument 1 of sample.add is i32, not str "
                             r"\('x'\)"):
        sample["add"](1, "x")
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"argument 0 of sample.add is i32, not int "
                             r"\(4294967296\)"):
        sample["add"](2**32, 1)
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"argument 0 of sample.add is i32, not float"):
        sample["add"](1.5, 1)
    with pytest.raises(strata.InvalidArgumentError,
                       match=r"argument 0 of sample.scale is f64, not "
                             r"ndarray"):
        sample["scale"](np.ones(2))
    # The session stays usable after a refused call.
    assert sample["add"](1, 2) == 3


def test_a_failure_inside_a_function_carries_the_vm_backtrace(sample):
    with pytest.raises(strata.InvalidArgumentError) as error:
        sample["fails_deep"]()
    e = error.value
    assert isinstance(e, strata.Error)
    assert e.message == 'sample failure: "bad" input'
    assert e.backtrace == ["at sample.fails (sample.mlir:31:5)",
                           "at sample.fails_deep (sample.mlir:40:3)"]
    assert str(e).splitlines() == [
        'INVALID_ARGUMENT: sample failure: "bad" input',
        "  at sample.fails (sample.mlir:31:5)",
        "  at sample.fails_deep (sample.mlir:40:3)"]


def test_a_failing_kernel_raises(device):
    session = strata.Session(module_path("STRATA_TEST_KERNEL_FAIL"),
                             device=device)
    for workgroups in (1, 5):
        with pytest.raises(strata.InternalError) as error:
            session["fail"](workgroups)
        assert "dispatch 'fail_always'" in error.value.message
        assert "failed with code 1" in error.value.message
        assert "at kernel_fail.fail (kernel_fail.mlir:7:5)" in (
            error.value.backtrace)


def test_unknown_functions_list_the_exports(sample):
    with pytest.raises(strata.NotFoundError) as error:
        sample["nope"]
    assert isinstance(error.value, LookupError)
    assert "no function 'nope'" in str(error.value)
    assert "add" in str(error.value) and "fails_deep" in str(error.value)


def test_bad_modules_devices_and_sources():
    with pytest.raises(strata.Error) as error:
        strata.Session(b"not a module", device="local-sync")
    assert error.value.code == "INVALID_ARGUMENT"
    with pytest.raises(strata.Error, match="no-such.vmfb"):
        strata.Session("no-such.vmfb", device="local-sync")
    with pytest.raises(strata.InvalidArgumentError, match="warp-drive"):
        strata.Instance("warp-drive")
    with pytest.raises(strata.InvalidArgumentError,
                       match="a module is a .vmfb path"):
        strata.Session(42, device="local-sync")
    # A truncated module names what is malformed and is not a crash.
    with open(module_path("STRATA_TEST_SAMPLE"), "rb") as f:
        data = f.read()
    for size in (0, 8, len(data) // 2):
        with pytest.raises(strata.Error):
            strata.Session(data[:size], device="local-sync")
