"""test_async.py - asynchronous calls: concurrent.futures and asyncio,
completed on the instance's loop thread; many in flight at once behind a
gate fence; failures, failed gates and shutdown as exceptions."""
import asyncio
import concurrent.futures
import threading

import numpy as np
import pytest

import strata
from conftest import module_path


def test_call_async_returns_a_future(hal_sample):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    future = hal_sample["add"].call_async(a, a)
    assert isinstance(future, concurrent.futures.Future)
    np.testing.assert_array_equal(future.result(timeout=30), a + a)
    np.testing.assert_array_equal(
        hal_sample.call_async("add", a, a).result(timeout=30), a + a)


def test_functions_without_an_async_entry_run_on_the_loop(sample):
    assert not sample["add"].has_async_entry
    assert sample["add"].call_async(20, 22).result(timeout=30) == 42
    assert sample["pair"].call_async().result(timeout=30) == (7, 0.5)


def test_asyncio(hal_sample, sample):
    a = np.ones((4,), np.float32)

    async def main():
        results = await asyncio.gather(
            *[hal_sample["add"].acall(a, a * k) for k in range(8)],
            sample.acall("add", 1, 2))
        return results

    results = asyncio.run(main())
    for k in range(8):
        np.testing.assert_array_equal(results[k], a + a * k)
    assert results[8] == 3


def test_async_calls_overlap_behind_a_gate(device):
    session = strata.Session(module_path("STRATA_TEST_HAL_SAMPLE"),
                             device=device, task_workers=2)
    gate = strata.Fence()
    inputs = [np.full((64,), k, np.float32) for k in range(16)]
    futures = [session["add"].call_async(x, x, wait=gate) for x in inputs]
    # All sixteen are in flight at once, none can finish before the gate.
    done, _ = concurrent.futures.wait(futures, timeout=0.2)
    assert not done
    gate.signal()
    for x, future in zip(inputs, futures):
        np.testing.assert_array_equal(future.result(timeout=30), x + x)


def test_a_failed_gate_fails_every_call_behind_it(hal_sample):
    gate = strata.Fence()
    a = np.ones(3, np.float32)
    futures = [hal_sample["add"].call_async(a, a, wait=gate) for _ in range(4)]
    gate.fail("the input never came")
    for future in futures:
        with pytest.raises(strata.Error, match="the input never came"):
            future.result(timeout=30)
    # The function is fine afterwards.
    np.testing.assert_array_equal(
        hal_sample["add"].call_async(a, a).result(timeout=30), a + a)


def test_failures_come_back_through_the_future(device):
    session = strata.Session(module_path("STRATA_TEST_KERNEL_FAIL"),
                             device=device)
    with pytest.raises(strata.InternalError) as error:
        session["fail"].call_async(3).result(timeout=30)
    assert "fail_always" in error.value.message
    assert error.value.backtrace
    hal = strata.Session(module_path("STRATA_TEST_HAL_SAMPLE"), device=device)
    with pytest.raises(strata.InvalidArgumentError, match="input 1"):
        hal["add"].call_async(np.ones((2, 3), np.float32),
                              np.ones((3, 2), np.float32)).result(timeout=30)
    # Bad arguments are refused at once, not through the future.
    with pytest.raises(strata.InvalidArgumentError, match="takes 2 arguments"):
        hal["add"].call_async(np.ones(3, np.float32))


def test_shutdown_cancels_calls_in_flight():
    instance = strata.Instance("local-task", 2)
    session = strata.Session(module_path("STRATA_TEST_HAL_SAMPLE"),
                             instance=instance)
    gate = strata.Fence()
    a = np.ones(3, np.float32)
    futures = [session["add"].call_async(a, a, wait=gate) for _ in range(3)]
    instance.shutdown()
    for future in futures:
        with pytest.raises(strata.CancelledError):
            future.result(timeout=30)
    with pytest.raises(strata.CancelledError, match="shut down"):
        session["add"].call_async(a, a)
    # Blocking calls do not need the loop.
    np.testing.assert_array_equal(session["add"](a, a), a + a)
    gate.signal()


def test_blocking_calls_from_many_threads(hal_sample):
    # The GIL is released while each call runs; every thread gets its own
    # runtime call object.
    errors = []

    def worker(k):
        try:
            x = np.full((5, 7), k, np.float32)
            for _ in range(50):
                np.testing.assert_array_equal(hal_sample["add"](x, x), x + x)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    assert not any(t.is_alive() for t in threads)
