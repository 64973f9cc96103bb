"""Bitwise: and, or, xor, not (logical on bool) and the shifts, for integer and bool dtypes.
Shifts by a negative amount or by the bit width or more give torch's results (0, or -1 for a
negative value shifted right), not C's undefined behaviour."""
from __future__ import annotations

from tritonize import pointwise
from tritonize.ops import _common as c

# -- kernels ------------------------------------------------------------------------------------


@pointwise
def bitwise_and_kernel(input, other):
    return input & other


@pointwise
def bitwise_or_kernel(input, other):
    return input | other


@pointwise
def bitwise_xor_kernel(input, other):
    return input ^ other


@pointwise
def bitwise_not_kernel(input):
    return ~input


@pointwise
def left_shift_kernel(input, other):
    return input << other


@pointwise
def right_shift_kernel(input, other):
    return input >> other


# -- torch-compatible functions ---------------------------------------------------------------


def _binary(name, kernel, allow_bool):
    def check(input, other):
        dtype = c.result_dtype(input, other)
        c.require_integral(name, dtype)
        if not allow_bool:
            c.require_not_bool(name, dtype)

    def op(input, other, *, out=None):
        check(input, other)
        return c.run(kernel, input, other, out=out)

    def op_(input, other):
        check(input, other)
        return c.run(kernel, input, other, inplace=input)

    for fn, fn_name in ((op, name), (op_, name + "_")):
        fn.__name__ = fn.__qualname__ = fn_name
        fn.__doc__ = f"torch.{fn_name} as a tritonize kernel."
    return op, op_


bitwise_and, bitwise_and_ = _binary("bitwise_and", bitwise_and_kernel, allow_bool=True)
bitwise_or, bitwise_or_ = _binary("bitwise_or", bitwise_or_kernel, allow_bool=True)
bitwise_xor, bitwise_xor_ = _binary("bitwise_xor", bitwise_xor_kernel, allow_bool=True)
bitwise_left_shift, bitwise_left_shift_ = _binary("lshift", left_shift_kernel, allow_bool=False)
bitwise_right_shift, bitwise_right_shift_ = _binary("rshift", right_shift_kernel, allow_bool=False)
bitwise_left_shift.__name__, bitwise_left_shift_.__name__ = "bitwise_left_shift", "bitwise_left_shift_"
bitwise_right_shift.__name__, bitwise_right_shift_.__name__ = "bitwise_right_shift", "bitwise_right_shift_"


def bitwise_not(input, *, out=None):
    c.require_integral("bitwise_not", input.dtype)
    return c.run(bitwise_not_kernel, input, out=out)


def bitwise_not_(input):
    c.require_integral("bitwise_not", input.dtype)
    return c.run(bitwise_not_kernel, input, inplace=input)
