"""Comparison and logic: eq, ne, lt, le, gt, ge (compared in the promoted dtype, Python floats
at full width), isclose, isnan, isinf, isfinite, isposinf, isneginf, signbit and the logical
ops. Results are bool; `out=` and the in-place forms store them in any dtype."""
from __future__ import annotations

import math

from tritonize import pointwise
from tritonize.ops import _common as c

# -- kernels ------------------------------------------------------------------------------------


@pointwise
def eq_kernel(input, other):
    return input == other


@pointwise
def ne_kernel(input, other):
    return input != other


@pointwise
def lt_kernel(input, other):
    return input < other


@pointwise
def le_kernel(input, other):
    return input <= other


@pointwise
def gt_kernel(input, other):
    return input > other


@pointwise
def ge_kernel(input, other):
    return input >= other


@pointwise
def isclose_kernel(input, other, rtol: float, atol: float, equal_nan: bool):
    # ATen: |a - b| <= atol + rtol * |b|, where the difference is finite, or a == b
    close = input == other
    if equal_nan and input != input and other != other:
        close = True
    actual = abs(input - other)
    return close or (math.isfinite(actual) and actual <= atol + abs(rtol * other))


def isclose_of(a, b, rtol, atol):
    return a == b or abs(a - b) <= atol + abs(rtol * b)


@pointwise
def isclose_integral_kernel(input, other, rtol: float, atol: float):
    # ATen compares integers and bools as the default float dtype
    return isclose_of(float(input), float(other), rtol, atol)


@pointwise
def isnan_kernel(input):
    return input != input


@pointwise
def isinf_kernel(input):
    return math.isinf(input)


@pointwise
def isfinite_kernel(input):
    return math.isfinite(input)


@pointwise
def isposinf_kernel(input):
    return input == math.inf


@pointwise
def isneginf_kernel(input):
    return input == -math.inf


@pointwise
def signbit_kernel(input):
    return math.copysign(1.0, input) < 0  # the sign bit: True for -0.0 and negative NaNs


@pointwise
def logical_and_kernel(input, other):
    return bool(input) and bool(other)


@pointwise
def logical_or_kernel(input, other):
    return bool(input) or bool(other)


@pointwise
def logical_xor_kernel(input, other):
    return bool(input) != bool(other)


@pointwise
def logical_not_kernel(input):
    return not input


# -- torch-compatible functions ---------------------------------------------------------------


def _binary(name, kernel, doc=None):
    """`name(input, other, *, out=None)` and `name_(input, other)` for a two-argument kernel."""

    def op(input, other, *, out=None):
        return c.run(kernel, *c.as_scalar_t(input, other), out=out)

    def op_(input, other):
        return c.run(kernel, *c.as_scalar_t(input, other), inplace=input)

    for fn, fn_name in ((op, name), (op_, name + "_")):
        fn.__name__ = fn.__qualname__ = fn_name
        fn.__doc__ = doc or f"torch.{fn_name} as a tritonize kernel."
    return op, op_


eq, eq_ = _binary("eq", eq_kernel)
ne, ne_ = _binary("ne", ne_kernel)
lt, lt_ = _binary("lt", lt_kernel)
le, le_ = _binary("le", le_kernel)
gt, gt_ = _binary("gt", gt_kernel)
ge, ge_ = _binary("ge", ge_kernel)
not_equal, not_equal_, less, less_, less_equal, less_equal_ = ne, ne_, lt, lt_, le, le_
greater, greater_, greater_equal, greater_equal_ = gt, gt_, ge, ge_
logical_and, logical_and_ = _binary("logical_and", logical_and_kernel)
logical_or, logical_or_ = _binary("logical_or", logical_or_kernel)
logical_xor, logical_xor_ = _binary("logical_xor", logical_xor_kernel)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if input.dtype != c.dtype_of(other):
        raise RuntimeError(f"{c.TYPE_NAMES.get(input.dtype, input.dtype)} did not match "
                           f"{c.TYPE_NAMES.get(c.dtype_of(other), other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    if not input.dtype.is_floating_point:
        if rtol == 0 and atol == 0:  # exact, not through float
            return eq_kernel(input, other)
        return isclose_integral_kernel(input, other, float(rtol), float(atol))
    return isclose_kernel(input, other, float(rtol), float(atol), bool(equal_nan))


def _unary(name, kernel):
    def op(input, *, out=None):
        return c.run(kernel, input, out=out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.{name} as a tritonize kernel."
    return op


isnan = _unary("isnan", isnan_kernel)
isinf = _unary("isinf", isinf_kernel)
isfinite = _unary("isfinite", isfinite_kernel)
isposinf = _unary("isposinf", isposinf_kernel)
isneginf = _unary("isneginf", isneginf_kernel)
signbit = _unary("signbit", signbit_kernel)
logical_not = _unary("logical_not", logical_not_kernel)


def logical_not_(input):
    return c.run(logical_not_kernel, input, inplace=input)
