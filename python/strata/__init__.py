"""strata - run Strata modules (.vmfb) on numpy arrays from Python.

    import numpy as np, strata
    session = strata.Session("model.vmfb")          # device="local-task"
    print(session.functions)                        # names and signatures
    y = session["predict"](np.ones((2, 3), np.float32))
    future = session["predict"].call_async(x)       # concurrent.futures
    y = await session["predict"].acall(x)           # asyncio

Arguments are numpy arrays (anything numpy.asarray takes; C-contiguous,
aligned arrays are used in place, others copied once), strata.Tensor,
Python numbers for i32/i64/f32/f64 parameters, bytes for vm.buffer
parameters and strata.Ref for other refs. Results come back as new numpy
arrays, numbers, bytes or strata.Ref; a function with several results
returns a tuple. With tensors=True, tensor results come back as
strata.Tensor instead: they stay in the runtime and feed later calls
without a copy (tensor.numpy() copies one out):

    logits, *cache = session["decode"](ids, *cache, tensors=True) The GIL is
released while a function runs. Failures raise strata.Error subclasses that
carry the runtime's message and the VM backtrace.
"""

import asyncio as _asyncio
import atexit as _atexit
import os as _os
import re as _re

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
from ._strata import Fence, Function, Instance, Ref, Tensor  # noqa: F401

__all__ = [
    "compile", "Session", "Instance", "Function", "Fence", "Ref", "Tensor",
    "Error",
    "CancelledError", "CompileError", "DataLossError",
    "DeadlineExceededError", "FailedPreconditionError", "InternalError",
    "InvalidArgumentError", "NotFoundError", "OutOfRangeError",
    "ResourceExhaustedError", "UnavailableError", "UnimplementedError",
]

# Asynchronous calls complete on each instance's loop thread; stop those
# threads while the interpreter can still run their callbacks.
_atexit.register(_strata._shutdown)


async def _acall(self, *args, wait=None, tensors=False):
    """Awaits the call (asyncio): call_async wrapped for the running loop."""
    return await _asyncio.wrap_future(
        self.call_async(*args, wait=wait, tensors=tensors))


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

    def call(self, name, *args, tensors=False):
        """session.call("fn", x) is session["fn"](x)."""
        return self.function(name)(*args, tensors=tensors)

    def call_async(self, name, *args, wait=None, tensors=False):
        """A concurrent.futures.Future of session["fn"](*args)."""
        return self.function(name).call_async(*args, wait=wait,
                                              tensors=tensors)

    async def acall(self, name, *args, wait=None, tensors=False):
        """Awaits session["fn"](*args) (asyncio)."""
        return await self.function(name).acall(*args, wait=wait,
                                               tensors=tensors)

    def __repr__(self):
        return "<strata.Session %s on %s>" % (self.name, self.instance.device)


_DIAGNOSTIC = _re.compile(r"^(.+?):(\d+):(\d+): (error|warning|note|remark): ")


def compile(source, *, target_cpu="host", input_type="auto",
            async_exports=False, input_shapes=(), winograd=True):
    """Compiles a program to a .vmfb module and returns its bytes.

    source: a path (str naming an existing file, or os.PathLike), MLIR text
    (str), or the bytes of an ONNX model (or of MLIR text). input_type:
    "auto" (an ONNX model when the bytes look like one or the path ends in
    .onnx, else MLIR), "mlir" or "onnx". target_cpu: the kernels' LLVM CPU,
    "host" for this machine. async_exports: also export fn$async entry
    points (see Function.call_async). input_shapes: ONNX graph input dims,
    "name=1x3x224x224" each. winograd: store eligible 3x3 convolution
    filters as their Winograd transforms and run those convolutions by
    Winograd's algorithm (the default; rounding differs slightly from the
    direct kernel's, docs/compiler.md); False keeps every convolution on
    the direct kernel (strata-compile --winograd=false).

    The compiler runs in this process (the GIL is released meanwhile);
    failures raise strata.CompileError with the compiler's
    "file:line:col: error: ..." diagnostics.
    """
    try:
        from . import _compiler
    except ImportError as e:
        raise UnimplementedError(
            "UNIMPLEMENTED: this build of strata has no compiler (configure "
            "it with LLVM/MLIR 22 to build strata.compile)",
            code="UNIMPLEMENTED") from e
    external_data_dir = ""
    if isinstance(source, _os.PathLike) or (
            isinstance(source, str) and "\n" not in source
            and _os.path.isfile(source)):
        path = _os.fspath(source)
        with open(path, "rb") as f:
            data = f.read()
        name = path
        external_data_dir = _os.path.dirname(_os.path.abspath(path))
    elif isinstance(source, str):
        data = source.encode()
        name = "<mlir>"
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        name = "<bytes>"
    else:
        raise InvalidArgumentError(
            "INVALID_ARGUMENT: strata.compile takes a path, MLIR text or "
            "bytes, not %s" % type(source).__name__, code="INVALID_ARGUMENT")
    flags = ["--target-cpu=" + target_cpu, "--input-type=" + input_type]
    if async_exports:
        flags.append("--async-exports")
    flags += ["--input-shape=" + shape for shape in input_shapes]
    if not winograd:
        flags.append("--winograd=false")
    ok, output, diagnostics = _compiler.compile(
        data, name, input_type, target_cpu, bool(async_exports),
        list(input_shapes), external_data_dir, flags, bool(winograd))
    if not ok:
        lines = [line for line in diagnostics.splitlines()
                 if _DIAGNOSTIC.match(line)]
        raise CompileError(diagnostics.rstrip() or
                           "the compiler failed without a diagnostic",
                           diagnostics=lines)
    return output
