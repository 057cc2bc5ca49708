"""test_modules.py - native modules made in C++ added to a session as
capsules: samples/custom_module's "custom" module under a bytecode app."""
import pytest

import _custom_module_capsule
import strata
from conftest import module_path


def test_a_native_module_from_a_capsule(device):
    session = strata.Session(module_path("STRATA_TEST_CUSTOM_APP"),
                             device=device,
                             modules=[_custom_module_capsule.create()])
    # custom.add keeps a per-context counter.
    assert session["run"](5) == (5, 10)
    assert session["run"](5) == (15, 20)
    assert session["flip"](b"abcd") == b"dcba"
    assert session["custom.add"](1) == 21
    # Another session is another context, with its own counter.
    other = strata.Session(module_path("STRATA_TEST_CUSTOM_APP"),
                           device=device,
                           modules=[_custom_module_capsule.create()])
    assert other["run"](1) == (1, 2)


def test_the_native_module_checks_its_arguments():
    session = strata.Session(module_path("STRATA_TEST_CUSTOM_APP"),
                             device="local-sync",
                             modules=[_custom_module_capsule.create()])
    flip = session["flip"]
    ref = strata.Session(module_path("STRATA_TEST_SAMPLE"),
                         device="local-sync")
    with pytest.raises(strata.Error) as error:
        # A buffer view where custom.reverse wants a vm.buffer.
        flip([1, 2, 3])
    assert "must be a vm.buffer" in str(error.value)
    assert "at app.flip (app.mlir:18:17)" in error.value.backtrace
    del ref


def test_a_capsule_must_hold_a_module():
    with pytest.raises(strata.InvalidArgumentError,
                       match="named 'strata_vm_module_t'"):
        strata.Session(module_path("STRATA_TEST_CUSTOM_APP"),
                       device="local-sync",
                       modules=[_custom_module_capsule.wrong_name()])


def test_the_app_needs_its_native_module():
    with pytest.raises(strata.NotFoundError, match="'custom'"):
        strata.Session(module_path("STRATA_TEST_CUSTOM_APP"),
                       device="local-sync")


def test_native_code_reaches_the_vm_instance():
    instance = strata.Instance("local-sync")
    capsule = instance.vm_instance
    del instance  # the capsule keeps the instance alive
    # The runtime registered the HAL's ref types with it.
    assert _custom_module_capsule.has_type(capsule, "hal.buffer_view")
    assert _custom_module_capsule.has_type(capsule, "vm.buffer")
    assert not _custom_module_capsule.has_type(capsule, "no.such_type")
