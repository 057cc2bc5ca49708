"""_errors.py - the exceptions of the strata package: strata.Error and one
subclass per runtime status code that Python code is likely to catch, plus
CompileError for the compiler's diagnostics."""


class Error(Exception):
    """A failure reported by the Strata runtime (or compiler).

    str(error) is the runtime's full text: "CODE: message" followed by one
    indented line per annotation (the VM backtrace of a failure inside a
    function). The parts are also attributes:

      code       the status code name ("INVALID_ARGUMENT", ...)
      message    the message without the code or annotations
      backtrace  the annotation lines (VM frames, outermost last), a list
    """

    def __init__(self, text, code="UNKNOWN", message=None, backtrace=()):
        super().__init__(text)
        self.code = code
        self.message = text if message is None else message
        self.backtrace = list(backtrace)


class CancelledError(Error):
    pass


class InvalidArgumentError(Error, ValueError):
    pass


class DeadlineExceededError(Error, TimeoutError):
    pass


class NotFoundError(Error, LookupError):
    pass


class ResourceExhaustedError(Error, MemoryError):
    pass


class FailedPreconditionError(Error):
    pass


class OutOfRangeError(Error, IndexError):
    pass


class UnimplementedError(Error, NotImplementedError):
    pass


class InternalError(Error):
    pass


class UnavailableError(Error):
    pass


class DataLossError(Error):
    pass


class CompileError(Error):
    """strata.compile failed: str(error) holds the compiler's diagnostics,
    one "file:line:col: error: ..." line each; diagnostics is their list."""

    def __init__(self, text, diagnostics=()):
        super().__init__(text, code="COMPILE_ERROR")
        self.diagnostics = list(diagnostics)


_BY_CODE = {
    "CANCELLED": CancelledError,
    "INVALID_ARGUMENT": InvalidArgumentError,
    "DEADLINE_EXCEEDED": DeadlineExceededError,
    "NOT_FOUND": NotFoundError,
    "RESOURCE_EXHAUSTED": ResourceExhaustedError,
    "FAILED_PRECONDITION": FailedPreconditionError,
    "OUT_OF_RANGE": OutOfRangeError,
    "UNIMPLEMENTED": UnimplementedError,
    "INTERNAL": InternalError,
    "UNAVAILABLE": UnavailableError,
    "DATA_LOSS": DataLossError,
}


def _make(code, text, message, backtrace):
    """Called by the native module: the exception for a runtime status."""
    return _BY_CODE.get(code, Error)(text, code=code, message=message,
                                     backtrace=backtrace)
