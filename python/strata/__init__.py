"""strata - run Strata modules (.vmfb) on numpy arrays from Python.

    import numpy as np, strata
    session = strata.Session("model.vmfb")          # device="local-task"
    print(session.functions)                        # names and signatures
    y = session["predict"](np.ones((2, 3), np.float32))
    future = session["predict"].call_async(x)       # concurrent.futures
    y = await session["predict"].acall(x)           # asyncio

Arguments are numpy arrays (anything numpy.asarray takes; C-contiguous,
aligned arrays are used in place, others copied once), Python numbers for
i32/i64/f32/f64 parameters, bytes for vm.buffer parameters and strata.Ref
for other refs. Results come back as new numpy arrays, numbers, bytes or
strata.Ref; a function with several results returns a tuple. The GIL is
released while a function runs. Failures raise strata.Error subclasses that
carry the runtime's message and the VM backtrace.
"""

import asyncio as _asyncio
import atexit as _atexit

from ._errors import (  # noqa: F401
    CancelledError,
    CompileError,
    DataLossError,
    DeadlineExceededError,
    Error,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    OutOfRangeError,
    ResourceExhaustedError,
    UnavailableError,
    UnimplementedError,
)
from . import _strata
from ._strata import Fence, Function, Instance, Ref  # noqa: F401

__all__ = [
    "Session", "Instance", "Function", "Fence", "Ref", "Error",
    "CancelledError", "CompileError", "DataLossError",
    "DeadlineExceededError", "FailedPreconditionError", "InternalError",
    "InvalidArgumentError", "NotFoundError", "OutOfRangeError",
    "ResourceExhaustedError", "UnavailableError", "UnimplementedError",
]

# Asynchronous calls complete on each instance's loop thread; stop those
# threads while the interpreter can still run their callbacks.
_atexit.register(_strata._shutdown)


async def _acall(self, *args, wait=None):
    """Awaits the call (asyncio): call_async wrapped for the running loop."""
    return await _asyncio.wrap_future(self.call_async(*args, wait=wait))


Function.acall = _acall


class Session(_strata._Session):
    """A module (the main module) loaded into a new VM context.

    module: a .vmfb path, the bytes of one, or a capsule of a native module
    (a strata_vm_module_t* named "strata_vm_module_t"). modules: modules the
    main module imports from, in order, in the same forms. The session runs
    on instance, or on a new Instance(device, task_workers).
    """

    def __init__(self, module, *, device="local-task", task_workers=0,
                 instance=None, modules=()):
        if instance is None:
            instance = Instance(device, task_workers)
        elif (device, task_workers) != ("local-task", 0) and (
                device != instance.device
                or task_workers != instance.task_workers):
            raise InvalidArgumentError(
                "INVALID_ARGUMENT: device=%r, task_workers=%r do not match "
                "the given instance (%r, %r)" % (
                    device, task_workers, instance.device,
                    instance.task_workers),
                code="INVALID_ARGUMENT")
        super().__init__(instance, [*modules, module])

    def __getitem__(self, name):
        """The function "fn" of the main module, or "module.fn"."""
        return self.function(name)

    def call(self, name, *args):
        """session.call("fn", x) is session["fn"](x)."""
        return self.function(name)(*args)

    def call_async(self, name, *args, wait=None):
        """A concurrent.futures.Future of session["fn"](*args)."""
        return self.function(name).call_async(*args, wait=wait)

    async def acall(self, name, *args, wait=None):
        """Awaits session["fn"](*args) (asyncio)."""
        return await self.function(name).acall(*args, wait=wait)

    def __repr__(self):
        return "<strata.Session %s on %s>" % (self.name, self.instance.device)
