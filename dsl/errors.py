"""The error catalogue: every user-facing error is a class here with a fixed message shape.

DSL errors (raised while a @pointwise function is compiled) point at the user's own file,
line and column and show the source line with a caret. Call errors (raised when a compiled
function is called with bad arguments) name the argument, shape, dtype or device at fault.
"""
from __future__ import annotations

import linecache
import os
from dataclasses import dataclass

# set to 1, tritonize's errors keep its own frames in their tracebacks (see without_internal_frames)
FULL_TRACEBACK_VARIABLE = "TRITONIZE_FULL_TRACEBACK"


@dataclass(frozen=True)
class SourceLocation:
    """An absolute position in the user's file (1-based line, 0-based column)."""

    filename: str
    lineno: int
    col: int

    def line_text(self) -> str:
        return linecache.getline(self.filename, self.lineno).rstrip("\n")

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}:{self.col + 1}"


class DSLError(Exception):
    """A @pointwise function uses something the scalar subset cannot express."""

    kind = "error"

    def __init__(self, message: str, location: SourceLocation | None = None):
        self.message = message
        self.location = location
        super().__init__(self._format())

    def _format(self) -> str:
        if self.location is None:
            return self.message
        text = f"{self.location}: {self.message}"
        line = self.location.line_text()
        if line:
            caret = " " * self.location.col + "^"
            text += f"\n    {line}\n    {caret}"
        return text


class UnsupportedSyntax(DSLError):
    """A construct outside the scalar subset (loops, lists, attribute access, ...)."""


class UnknownName(DSLError):
    """A name that is neither a parameter, a local, a constant, math, a builtin nor a helper."""


class UnsupportedCall(DSLError):
    """A call to something that is not math.*, abs/min/max/round/float/int/bool or a scalar helper."""


class RecursiveHelper(DSLError):
    """A helper that calls itself, directly or through other helpers."""


class ControlFlowError(DSLError):
    """Paths that return different numbers of values, miss a return, or leave a name unbound."""


class ScalarTypeError(DSLError):
    """An operation the argument dtypes of this call do not allow (e.g. `~` on a float)."""


class CallError(RuntimeError):
    """A compiled function was called with arguments it cannot run on."""


class BroadcastError(CallError):
    """Argument shapes that do not broadcast together."""


class OutArgumentError(CallError):
    """An `out=` tensor of the wrong count, shape, dtype or device, or one that overlaps an input."""


class OutDtypeError(OutArgumentError):
    """An `out=` tensor of a dtype the result type can't be cast to (`result_dtype`, `out_dtype`)."""

    def __init__(self, message, result_dtype, out_dtype):
        super().__init__(message)
        self.result_dtype, self.out_dtype = result_dtype, out_dtype


class LayoutError(CallError):
    """An argument or out= tensor that keeps no strided storage (sparse, nested): no pointer and strides for a
    kernel to read or write."""


class DeviceError(CallError):
    """Tensors on different devices, or a device tritonize cannot run on."""


class DtypeError(CallError):
    """A dtype no kernel can be generated for (complex, the fnuz 8-bit floats, ...)."""


class StridedViewError(CallError, ValueError):
    """A StridedView that reads outside its base's storage, or whose shape and strides disagree."""


class ArgumentCountError(CallError, TypeError):
    """Wrong number of arguments, or an unknown or duplicated keyword."""


def without_internal_frames(error: BaseException) -> BaseException:
    """`error` with the frames it has passed through inside tritonize dropped from its traceback,
    for an entry point (the decorator, a call) to raise again: the user then sees their own line,
    the entry point's and the message (which names the file, line and column at fault), not the
    compiler's passes and AST visitors, as Triton hides its front end's (TRITONIZE_FULL_TRACEBACK=1
    keeps them, to debug tritonize itself)."""
    if os.environ.get(FULL_TRACEBACK_VARIABLE, "").strip() not in ("", "0"):
        return error
    return error.with_traceback(None)
