"""conftest.py - fixtures of the strata package's tests: the builder-made
modules (paths from meson, see meson.build) and sessions on both devices."""
import os

import pytest

DEVICES = ["local-task", "local-sync"]


def module_path(variable):
    """The module named by environment variable `variable`; a missing one
    fails the test (the build must provide every module)."""
    path = os.environ.get(variable)
    if not path or not os.path.isfile(path):
        pytest.fail("%s does not name a module file (got %r); run the tests "
                    "with meson test" % (variable, path))
    return path


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


@pytest.fixture
def views(device):
    """views.vmfb: echo(r) -> r, swap(r, r) -> (r, r), tag(r, i32) -> (i32, r)."""
    import strata
    return strata.Session(module_path("STRATA_TEST_VIEWS"), device=device)


@pytest.fixture
def lists(device):
    """lists.vmfb: vm.list arguments and results recorded as sequences
    (list<?xf32>) and optionals (optional<2xi32>)."""
    import strata
    return strata.Session(module_path("STRATA_TEST_LISTS"), device=device)


@pytest.fixture
def sample(device):
    """sample.vmfb: scalar functions and failing functions."""
    import strata
    return strata.Session(module_path("STRATA_TEST_SAMPLE"), device=device)


@pytest.fixture
def hal_sample(device):
    """hal_sample.vmfb: add(a, b) of f32 tensors, and add$async."""
    import strata
    return strata.Session(module_path("STRATA_TEST_HAL_SAMPLE"), device=device)
