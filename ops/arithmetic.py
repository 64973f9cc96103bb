"""Arithmetic: add, sub, mul, div (all rounding modes), remainder, fmod, pow, neg, abs, sign,
addcmul/addcdiv, lerp, clamp, maximum/minimum, copysign, hypot, atan2, logaddexp, xlogy, xlog1py,
heaviside, ldexp, nextafter, where, masked_fill, nan_to_num, fill, copy and dtype casts.

Every kernel is a @pointwise scalar function; the wrappers below only choose one by a flag or
by dtype, apply torch's checks and errors, and pick the functional, out= or in-place form.
Output dtypes: a function without `promotion=` gets the dtype it computes (torch's promotion op
by op, exact for one binary operation); `promotion=` gives torch's rule where op-by-op
promotion would differ (three or more operands, or a dtype fixed by one argument).
"""
from __future__ import annotations

import functools
import math

import torch

import tritonize.math
from tritonize import Promotion, pointwise
from tritonize.ops import _common as c
from tritonize.passes.type_rules import LIBRARY_DTYPES

# -- kernels ------------------------------------------------------------------------------------


@pointwise
def add_kernel(input, other):
    return input + other


@pointwise(promotion=Promotion("default", over=("input", "other")))
def add_alpha_kernel(input, other, alpha):
    return input + alpha * other


# torch's `self + alpha * other` (add, sub, rsub with alpha) is contracted into one fma by the
# compilers of its kernels: eager's results equal fma(alpha, other, self) on every float element
# (CPU, and an H200), where a rounded product and a sum differ on ~28% of float32 ones
@pointwise(promotion=Promotion("default", over=("input", "other")))
def add_alpha_fma_kernel(input, other, alpha):
    return tritonize.math.fma(alpha, other, input)


@pointwise(promotion=Promotion("default", over=("input", "other")))
def sub_alpha_fma_kernel(input, other, alpha):
    return tritonize.math.fma(-alpha, other, input)


@pointwise(promotion=Promotion("default", over=("input", "other")))
def rsub_alpha_fma_kernel(input, other, alpha):
    return tritonize.math.fma(-alpha, input, other)


@pointwise
def sub_kernel(input, other):
    return input - other


@pointwise(promotion=Promotion("default", over=("input", "other")))
def sub_alpha_kernel(input, other, alpha):
    return input - alpha * other


@pointwise(promotion=Promotion("default", over=("input", "other")))
def rsub_alpha_kernel(input, other, alpha):
    return other - alpha * input


@pointwise
def mul_kernel(input, other):
    return input * other


@pointwise
def true_divide_kernel(input, other):
    return input / other


@pointwise
def div_trunc_float_kernel(input, other):
    return math.trunc(input / other)


# ATen's trunc division of two 16-bit tensors divides in their dtype (`std::trunc(a / b)` on
# c10::BFloat16 and c10::Half, CPU and CUDA): the float quotient rounds to 16 bits before the trunc,
# and lands on the next integer where it lies within half an ulp below one (5105 of 4.2M random
# bfloat16 pairs on an H100); by a number it truncates the float quotient (div_trunc_float_kernel)
@pointwise(promotion="no_opmath")
def div_trunc_rounded_kernel(input, other):
    return math.trunc(input / other)


def trunc_div_of(a, b):
    """C's truncating division from Python's floor division: one step back up where the floor
    quotient is negative and inexact (only values in the promoted dtype are compared)."""
    q = a // b
    return q + 1 if a - q * b != 0 and q < 0 else q


@pointwise
def div_trunc_int_kernel(input, other):
    return trunc_div_of(input, other)


@pointwise
def floor_divide_kernel(input, other):
    return input // other


# c10's div_floor_floating (whose results `//` gives in float32) with every step rounded to
# the 16-bit dtype, as torch's CPU kernels compute it for two 16-bit tensors (c10's 16-bit
# arithmetic): -456704 // -1360 is 334 there, where the float32 steps give 336, torch's CUDA
# result (benchmarks/experiments/floor_divide16.py: 0 of 2^20 random bit patterns differ)
@pointwise(promotion="no_opmath")
def floor_divide_rounded_kernel(input, other):
    if other == 0:
        return input / other
    mod = math.fmod(input, other)
    div = (input - mod) / other
    if mod != 0 and (other < 0) != (mod < 0):
        div = div - 1
    if div == 0:
        return math.copysign(0.0, input / other)
    floor = math.floor(div)
    if div - floor > 0.5:
        return floor + 1
    return floor


@pointwise
def remainder_kernel(input, other):
    return input % other


@pointwise
def fmod_float_kernel(input, other):
    return math.fmod(input, other)


@pointwise
def fmod_int_kernel(input, other):
    return input - trunc_div_of(input, other) * other  # C's remainder: the dividend's sign


@pointwise
def pow_kernel(input, exponent):
    return input ** exponent


@pointwise
def two_to_the_power_kernel(input, exponent):
    # the literal lets the lowering call exp2 where that is pow's result (bfloat16 exponents)
    return 2.0 ** exponent


@pointwise
def float_power_kernel(input: torch.float64, exponent: torch.float64):
    # read as float64 on load, as ATen's float_power converts both first (without its copies)
    return input ** exponent


@pointwise
def square_kernel(input):
    return input ** 2


# torch.pow(tensor, scalar) runs other kernels for these exponents (ATen's PowKernel.cu and
# PowKernel.cpp): sqrt, rsqrt and reciprocal, and for floating tensors x * x * x and
# 1 / (x * x) in the tensor's dtype, so 16-bit cubes round twice. Their zeros and infinities
# follow: pow(-0.0, 0.5) is -0.0 and pow(-inf, 0.5) nan, where pow's own rules give 0.0 and inf.
@pointwise(promotion="no_opmath")
def cube_kernel(input):
    return input * input * input


@pointwise(promotion="no_opmath")
def reciprocal_square_kernel(input):
    return 1 / (input * input)


@pointwise
def neg_kernel(input):
    return -input


@pointwise
def reciprocal_kernel(input):
    return 1 / input


@pointwise
def abs_kernel(input):
    return abs(input)


@pointwise(promotion="default")
def sign_kernel(input):
    return 1 if input > 0 else (-1 if input < 0 else 0)  # nan and -0.0 give 0, as in torch


@pointwise(promotion=Promotion("default", over=("input", "tensor1", "tensor2")))
def addcmul_kernel(input, tensor1, tensor2, value):
    return input + value * tensor1 * tensor2


# torch's float addcmul is one fma, whose product differs by device: its CPU kernels contract
# input + (value * tensor1) * tensor2, its CUDA kernel computes fma(value, tensor1 * tensor2, input)
# and fma(tensor1, tensor2, input) where value is 1 (ATen's pointwise_op_impl); a rounded product
# and a sum differ on 25-40% of float32 elements from either
@pointwise(promotion=Promotion("default", over=("input", "tensor1", "tensor2")))
def addcmul_cpu_kernel(input, tensor1, tensor2, value):
    return tritonize.math.fma(value * tensor1, tensor2, input)


@pointwise(promotion=Promotion("default", over=("input", "tensor1", "tensor2")))
def addcmul_cuda_kernel(input, tensor1, tensor2, value):
    if value == 1:
        return tritonize.math.fma(tensor1, tensor2, input)
    return tritonize.math.fma(value, tensor1 * tensor2, input)


@pointwise(promotion=Promotion("default", over=("input", "tensor1", "tensor2")))
def addcdiv_kernel(input, tensor1, tensor2, value):
    return input + value * tensor1 / tensor2


# torch's CUDA kernel computes input + value * (tensor1 / tensor2), contracted into one fma
@pointwise(promotion=Promotion("default", over=("input", "tensor1", "tensor2")))
def addcdiv_fma_kernel(input, tensor1, tensor2, value):
    return tritonize.math.fma(value, tensor1 / tensor2, input)


@pointwise(promotion=Promotion("default", over=("input",)))
def lerp_kernel(input, end, weight):
    # ATen's lerp: the form with the smaller error on each side of weight = 0.5, each a product
    # and a sum that its compilers contract into one fma (CPU and CUDA)
    if abs(weight) < 0.5:
        return tritonize.math.fma(weight, end - input, input)
    return tritonize.math.fma(input - end, 1 - weight, end)


@pointwise(promotion="default")
def clamp_kernel(input, low, high):
    return min(max(input, low), high)  # NaN anywhere gives NaN; low > high gives high


@pointwise
def clamp_min_kernel(input, low):
    return max(input, low)


@pointwise
def clamp_max_kernel(input, high):
    return min(input, high)


@pointwise
def maximum_kernel(input, other):
    return max(input, other)


@pointwise
def minimum_kernel(input, other):
    return min(input, other)


@pointwise
def fmax_kernel(input, other):
    # NaN loses unless both are NaN
    return other if input != input else (input if other != other else max(input, other))


@pointwise
def fmin_kernel(input, other):
    return other if input != input else (input if other != other else min(input, other))


@pointwise
def copysign_kernel(input, other):
    return math.copysign(input, other)


@pointwise
def hypot_kernel(input, other):
    return math.hypot(input, other)


@pointwise
def atan2_kernel(input, other):
    return math.atan2(input, other)


@pointwise
def logaddexp_kernel(input, other):
    m = max(input, other)
    if math.isinf(input) and input == other:  # inf + inf, -inf + -inf: no inf - inf
        return input
    return m + math.log1p(math.exp(-abs(input - other)))


@pointwise
def logaddexp2_kernel(input, other):
    m = max(input, other)
    if math.isinf(input) and input == other:
        return input
    # torch's m + log1p(...) * (1 / ln 2), a product and a sum its compilers contract
    return tritonize.math.fma(math.log1p(math.exp2(-abs(input - other))), 1.4426950408889634, m)


def x_times_log(input, other, log_of_other):
    """xlogy's and xlog1py's input * log_of_other: 0 where input is 0, NaN where other is."""
    if other != other:
        return other
    if input == 0:
        return 0
    return input * log_of_other


@pointwise(promotion="int_to_float")
def xlogy_kernel(input, other):
    return x_times_log(input, other, math.log(other))


@pointwise(promotion="int_to_float")
def xlog1py_kernel(input, other):
    return x_times_log(input, other, math.log1p(other))


# ATen's CPU kernels for 16-bit results round the logarithm to the dtype before the product (c10's
# reduced-float std::log and std::log1p return the 16-bit type); its CUDA kernels round once: 25-27% of
# random inputs differ by an ulp
@pointwise(promotion="no_opmath")
def xlogy_rounded_kernel(input, other):
    return x_times_log(input, other, math.log(other))


@pointwise(promotion="no_opmath")
def xlog1py_rounded_kernel(input, other):
    return x_times_log(input, other, math.log1p(other))


@pointwise(promotion=Promotion("default", over=("input",)))
def heaviside_kernel(input, values):
    if input == 0:
        return values
    return 1 if input > 0 else 0


@pointwise(promotion="int_to_float")
def ldexp_kernel(input, other):
    return input * 2.0 ** other


# torch's ldexp is mul(input, pow(2, other)), two kernels: for a 16-bit float exponent the power
# rounds to that dtype before the product (2.0 ** 20.0 is inf in float16, 2.0 ** -31.0 is 0)
@pointwise(promotion="no_opmath")
def ldexp_rounded_kernel(input, other):
    return input * 2.0 ** other


@pointwise
def nextafter_kernel(input, other):
    return math.nextafter(input, other)


@pointwise(promotion=Promotion("default", over=("input", "other")))
def where_kernel(condition, input, other):
    return input if condition else other


@pointwise(promotion=Promotion("default", over=("input",)))
def masked_fill_kernel(input, mask, value):
    return value if mask else input


@pointwise
def nan_to_num_kernel(input, nan, posinf, neginf):
    if input != input:
        return nan
    if input == math.inf:
        return posinf
    if input == -math.inf:
        return neginf
    return input


@pointwise(promotion=Promotion("default", over=("input",)))
def fill_kernel(input, value):
    return value


def _identity(input):
    return input


# one cast per target dtype: `copy_` and `_to_copy` store into any dtype
CAST_KERNELS = {dtype: pointwise(promotion=dtype)(_identity) for dtype in LIBRARY_DTYPES}
copy_kernel = pointwise(_identity)


# -- torch-compatible functions ---------------------------------------------------------------


def _alpha(dtype, alpha, name="alpha"):
    """ATen's alpha_check, and alpha as the kernel takes it (a bool for bool results)."""
    if isinstance(alpha, torch.Tensor):
        alpha = alpha.item()
    if isinstance(alpha, bool) and dtype != torch.bool:
        raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
    if isinstance(alpha, float) and not dtype.is_floating_point:
        raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
    return bool(alpha) if dtype == torch.bool else alpha


def _is_bool(value) -> bool:
    return value.dtype == torch.bool if isinstance(value, torch.Tensor) else type(value) is bool


def _alpha_kernel(dtype, input, other, fma_kernel, kernel):
    """`fma_kernel` where the result is a float, else `kernel`; `dtype` the result dtype where the
    caller has it already (None: found here, once a call)."""
    return fma_kernel if (dtype or c.result_dtype(input, other)).is_floating_point else kernel


def _add(input, other, alpha, out=None, inplace=None):
    # an int alpha passes alpha_check whatever the dtypes, and stays an int unless the result is
    # bool: only then is the result dtype needed (it costs ~1 us of a tiny call)
    dtype = None
    if type(alpha) is not int or (_is_bool(input) and _is_bool(other)):
        dtype = c.result_dtype(input, other)
        alpha = _alpha(dtype, alpha)
    if alpha == 1 and not isinstance(alpha, bool):
        return c.run(add_kernel, input, other, out=out, inplace=inplace)
    kernel = _alpha_kernel(dtype, input, other, add_alpha_fma_kernel, add_alpha_kernel)
    return c.run(kernel, input, other, alpha, out=out, inplace=inplace)


def add(input, other, *, alpha=1, out=None):
    return _add(input, other, alpha, out=out)


def add_(input, other, *, alpha=1):
    return _add(input, other, alpha, inplace=input)


def _sub_check(input, other):
    a, b = _is_bool(input), _is_bool(other)
    if a and b:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if a or b:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _sub(input, other, alpha, out=None, inplace=None):
    _sub_check(input, other)
    dtype = None
    if type(alpha) is not int:  # an int alpha passes alpha_check; the result is not bool (_sub_check)
        dtype = c.result_dtype(input, other)
        alpha = _alpha(dtype, alpha)
    if alpha == 1:
        return c.run(sub_kernel, input, other, out=out, inplace=inplace)
    kernel = _alpha_kernel(dtype, input, other, sub_alpha_fma_kernel, sub_alpha_kernel)
    return c.run(kernel, input, other, alpha, out=out, inplace=inplace)


def sub(input, other, *, alpha=1, out=None):
    return _sub(input, other, alpha, out=out)


def sub_(input, other, *, alpha=1):
    return _sub(input, other, alpha, inplace=input)


subtract, subtract_ = sub, sub_


def rsub(input, other, *, alpha=1, out=None):
    """other - alpha * input."""
    _sub_check(input, other)
    dtype = None
    if type(alpha) is not int:  # an int alpha passes alpha_check; the result is not bool (_sub_check)
        dtype = c.result_dtype(input, other)
        alpha = _alpha(dtype, alpha)
    if alpha == 1:
        return c.run(sub_kernel, other, input, out=out)
    kernel = _alpha_kernel(dtype, input, other, rsub_alpha_fma_kernel, rsub_alpha_kernel)
    return c.run(kernel, input, other, alpha, out=out)


def mul(input, other, *, out=None):
    return c.run(mul_kernel, input, other, out=out)


def mul_(input, other):
    return c.run(mul_kernel, input, other, inplace=input)


multiply, multiply_ = mul, mul_


def _rounded_steps(dtype, input, other) -> bool:
    """Are these two 16-bit tensors (not a number or a 0-d tensor), which torch divides in steps
    rounded to their dtype (c10's 16-bit arithmetic: trunc on both devices, floor on the CPU)?"""
    return dtype in (torch.bfloat16, torch.float16) and all(
        isinstance(x, torch.Tensor) and x.dim() > 0 for x in (input, other))


def _div_kernel(input, other, rounding_mode):
    if rounding_mode is None:
        return true_divide_kernel
    if rounding_mode == "trunc":
        dtype = c.result_dtype(input, other)
        c.require_not_bool("div_trunc", dtype)
        if _rounded_steps(dtype, input, other):
            return div_trunc_rounded_kernel
        return div_trunc_float_kernel if dtype.is_floating_point else div_trunc_int_kernel
    if rounding_mode == "floor":
        dtype = c.result_dtype(input, other)
        c.require_not_bool("div_floor", dtype)
        if _rounded_steps(dtype, input, other) and input.device.type == "cpu":
            return floor_divide_rounded_kernel
        return floor_divide_kernel
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                       f"'{rounding_mode}'")


def cuda_reciprocal(input, other):
    """The reciprocal CUDA's true division multiplies by, where torch takes one: a CUDA tensor divided by
    a number or a 0-d CPU tensor (ATen's div_true_kernel_cuda, `iter.is_cpu_scalar(2)`) is a * (1 / b),
    the product in opmath, which "may lose one bit of precision" against a / b (on 24-54% of float32
    elements by 3, 0.7, 7 or 49); torch's CPU kernels divide. None where torch divides. A number, or
    where a product with a number would not give the quotient's dtype (an integer tensor over a 0-d
    float64 one: float64), a 0-d CPU tensor of that dtype."""
    if not (isinstance(input, torch.Tensor) and input.is_cuda):
        return None
    # kept per (dtype, number), as opmath_number keeps its roundings: a training loop divides by the same
    # few numbers every step, and the steps below took ~1 us of a ~10 us call on the CPU machine; a zero
    # is worked out anew (-0.0 and 0.0 are one key), and so is a NaN (never equal to a key it left)
    kept = type(other) in (float, int) and other and other == other
    if kept:
        found = _RECIPROCALS.get((input.dtype, other))
        if found is not None:
            return found
    if isinstance(other, torch.Tensor):
        if other.dim() or other.device.type != "cpu" or other.is_complex():
            return None
        value = other.item()
    elif type(other) in (float, int, bool):
        value = other
    else:
        return None
    dtype = c.result_dtype(input, other)
    if not dtype.is_floating_point:
        dtype = torch.get_default_dtype()  # integers and bools divide into it
    # the reciprocal of b's own value (a number's double), rounded once to opmath: on an H100 with torch
    # 2.11, x / 1e-3 is x * 1000.0 in float32 (1 / float32(1e-3) would be 999.99994)
    value = float(value)
    inverse = c.opmath_number(dtype, 1.0 / value) if value else math.copysign(math.inf, value)
    if c.result_dtype(input, 1.0) != dtype:
        return torch.tensor(inverse, dtype=dtype)
    if kept:
        c.keep(_RECIPROCALS, (input.dtype, other), inverse)
    return inverse


_RECIPROCALS: dict = {}  # cuda_reciprocal's: (a tensor's dtype, a number) -> the number CUDA multiplies by


def div(input, other, *, rounding_mode=None, out=None):
    if rounding_mode is None:
        inverse = cuda_reciprocal(input, other)
        if inverse is not None:
            return c.run(mul_kernel, input, inverse, out=out)
    if not isinstance(input, torch.Tensor) or not input.dim():
        # a number or 0-d CPU tensor divided: ATen's kernels take the dividend as scalar_t (a divisor
        # is read exactly, or as its reciprocal)
        input = c.as_scalar_t(input, other)[0]
    return c.run(_div_kernel(input, other, rounding_mode), input, other, out=out)


def div_(input, other, *, rounding_mode=None):
    if rounding_mode is None:
        inverse = cuda_reciprocal(input, other)
        if inverse is not None:
            return c.run(mul_kernel, input, inverse, inplace=input)
    return c.run(_div_kernel(input, other, rounding_mode), input, other, inplace=input)


divide, divide_ = div, div_


def true_divide(input, other, *, out=None):
    return div(input, other, out=out)


def true_divide_(input, other):
    return div_(input, other)


def floor_divide(input, other, *, out=None):
    return div(input, other, rounding_mode="floor", out=out)


def floor_divide_(input, other):
    return c.run(_div_kernel(input, other, "floor"), input, other, inplace=input)


def remainder(input, other, *, out=None):
    c.require_not_bool("remainder", c.result_dtype(input, other))
    return c.run(remainder_kernel, *c.as_scalar_t(input, other), out=out)


def remainder_(input, other):
    c.require_not_bool("remainder", c.result_dtype(input, other))
    return c.run(remainder_kernel, *c.as_scalar_t(input, other), inplace=input)


def _fmod_kernel(input, other):
    dtype = c.result_dtype(input, other)
    c.require_not_bool("fmod", dtype)
    return fmod_float_kernel if dtype.is_floating_point else fmod_int_kernel


def fmod(input, other, *, out=None):
    return c.run(_fmod_kernel(input, other), *c.as_scalar_t(input, other), out=out)


def fmod_(input, other):
    return c.run(_fmod_kernel(input, other), *c.as_scalar_t(input, other), inplace=input)


def _pow_kernel(input, exponent):
    dtype = c.result_dtype(input, exponent)
    c.require_not_bool("pow", dtype)
    # bfloat16 only: with a literal base, float32's pow ran 0.4-4% slower than pow_kernel's on an
    # H200 (2^20..2^24), and only bfloat16 turns it into exp2 (see two_to_the_power_kernel)
    if isinstance(exponent, torch.Tensor) and exponent.dtype == torch.bfloat16 \
            and type(input) in (int, float) and input == 2:
        return two_to_the_power_kernel
    if isinstance(exponent, torch.Tensor) or isinstance(exponent, bool):
        return pow_kernel
    if not dtype.is_floating_point and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if isinstance(input, torch.Tensor) and exponent == 2 and (isinstance(exponent, int) or
                                                              input.dtype.is_floating_point):
        return _square_of_base  # exactly x * x, as ATen
    if isinstance(input, torch.Tensor) and input.dtype.is_floating_point:
        return _of_base_kernels().get(exponent, pow_kernel)
    return pow_kernel


def _of_base(kernel):
    """pow(input, exponent) for one exponent, as `kernel(input)`."""
    return lambda input, exponent, out=None: kernel(input, out=out)


_square_of_base = _of_base(square_kernel)


@functools.cache
def _of_base_kernels() -> dict:
    """ATen's own kernels for these exponents of a floating tensor (see cube_kernel); -1 and -1.0
    are one key (a float equal to an int hashes as it). Built on first use: math_ops, which holds
    sqrt and rsqrt, imports this module."""
    from tritonize.ops.math_ops import rsqrt_kernel, sqrt_kernel
    return {0.5: _of_base(sqrt_kernel), -0.5: _of_base(rsqrt_kernel), -1: _of_base(reciprocal_kernel),
            3: _of_base(cube_kernel), -2: _of_base(reciprocal_square_kernel)}


def pow(input, exponent, *, out=None):
    input, exponent = c.as_scalar_t(input, exponent)
    return c.run(_pow_kernel(input, exponent), input, exponent, out=out)


def pow_(input, exponent):
    input, exponent = c.as_scalar_t(input, exponent)
    return c.run(_pow_kernel(input, exponent), input, exponent, inplace=input)


def float_power(input, exponent, *, out=None):
    """pow computed in float64 (the kernel reads its inputs as float64)."""
    if out is not None and out.dtype != torch.float64:
        raise RuntimeError(f"the output given to float_power has dtype {c.TYPE_NAMES[out.dtype]} but the "
                           f"operation's result requires dtype Double")
    return c.run(float_power_kernel, input, exponent, out=out)


def float_power_(input, exponent):
    if input.dtype != torch.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {c.TYPE_NAMES[input.dtype]} but the "
                           f"operation's result requires dtype Double")
    return c.run(float_power_kernel, input, exponent, inplace=input)


def square(input, *, out=None):
    return c.run(square_kernel, input, out=out)


def square_(input):
    return c.run(square_kernel, input, inplace=input)


def _neg_check(input):
    if input.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")


def neg(input, *, out=None):
    _neg_check(input)
    return c.run(neg_kernel, input, out=out)


def neg_(input):
    _neg_check(input)
    return c.run(neg_kernel, input, inplace=input)


negative, negative_ = neg, neg_


def positive(input):
    """The input itself (torch returns it, not a copy)."""
    if input.dtype == torch.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def conj_physical(input, *, out=None):
    """torch.conj_physical of a real tensor: the input itself (torch returns it), or a copy into `out`,
    which must have the input's dtype, as torch's (complex tensors are not tritonize's)."""
    if out is None:
        return input
    if out.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {c.TYPE_NAMES[out.dtype]} but expected {c.TYPE_NAMES[input.dtype]}")
    return c.call(copy_kernel, input, out=out)


def reciprocal(input, *, out=None):
    return c.run(reciprocal_kernel, input, out=out)


def reciprocal_(input):
    return c.run(reciprocal_kernel, input, inplace=input)


def abs(input, *, out=None):
    c.require_not_bool_on_cpu("abs", input)
    return c.run(abs_kernel, input, out=out)


def abs_(input):
    c.require_not_bool_on_cpu("abs", input)
    return c.run(abs_kernel, input, inplace=input)


absolute, absolute_ = abs, abs_


def sign(input, *, out=None):
    return c.run(sign_kernel, input, out=out)


def sign_(input):
    return c.run(sign_kernel, input, inplace=input)


sgn, sgn_ = sign, sign_  # the same for real dtypes


def _addc_operands(name, input, tensor1, tensor2, value) -> tuple:
    """(result dtype, the kernel's arguments: the tensors converted to the result dtype where it is
    float64 or 16-bit, then the value)."""
    dtype = c.result_dtype(input, tensor1, tensor2)
    c.require_not_bool(name, dtype)
    # the value as ATen holds it: in the dtype for integers, in the compute dtype for floats
    value = c.opmath_number(dtype, value) if dtype.is_floating_point else c.scalar_for(dtype, value)
    if dtype is torch.float64 or dtype is torch.float16 or dtype is torch.bfloat16:
        # a 0-d tensor of another dtype beside 16-bit ones is converted to their dtype first, as ATen's
        # TensorIterator converts it (a float64 divisor of 0.10002 divides as bfloat16's 0.10009765625)
        return dtype, (*c.in_result_dtype(input, tensor1, tensor2, dtype=dtype), value)
    operands = (input, tensor1, tensor2)
    if dtype is torch.float32 and any(isinstance(t, torch.Tensor) and t.dtype is torch.float64 for t in operands):
        # a 0-d float64 tensor beside float32 ones, converted as ATen converts it: value * tensor1 would
        # otherwise be a float64 product (7.7e-4 off torch's result where the sum cancels)
        operands = tuple(t.to(dtype) if isinstance(t, torch.Tensor) and t.dtype is torch.float64 else t
                         for t in operands)
    return dtype, (*operands, value)


def _addcmul(input, tensor1, tensor2, value, **destination):
    dtype, operands = _addc_operands("addcmul", input, tensor1, tensor2, value)
    if not dtype.is_floating_point:
        kernel = addcmul_kernel
    else:
        kernel = addcmul_cuda_kernel if c.on_cuda(input) else addcmul_cpu_kernel
    return c.run(kernel, *operands, **destination)


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    return _addcmul(input, tensor1, tensor2, value, out=out)


def addcmul_(input, tensor1, tensor2, *, value=1):
    return _addcmul(input, tensor1, tensor2, value, inplace=input)


def _addcdiv_check(tensor1, tensor2):
    if not c.dtype_of(tensor1).is_floating_point and not c.dtype_of(tensor2).is_floating_point:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform "
            "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.")


def _addcdiv(input, tensor1, tensor2, value, **destination):
    _addcdiv_check(tensor1, tensor2)
    _, operands = _addc_operands("addcdiv", input, tensor1, tensor2, value)
    # torch's CPU kernels compute (value * tensor1) / tensor2 and add, its CUDA kernel one fma
    return c.run(addcdiv_fma_kernel if c.on_cuda(input) else addcdiv_kernel, *operands, **destination)


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    return _addcdiv(input, tensor1, tensor2, value, out=out)


def addcdiv_(input, tensor1, tensor2, *, value=1):
    return _addcdiv(input, tensor1, tensor2, value, inplace=input)


def _checked_lerp_weight(input, end, weight):
    """torch's checks; the weight to pass to the kernel."""
    # (a tensor's dtype read directly: dtype_of's VType took ~0.5 us of a ~5 us in-place lerp_)
    if (end.dtype if isinstance(end, torch.Tensor) else c.dtype_of(end)) != input.dtype:
        raise RuntimeError(f"expected dtype {c.C_NAMES[input.dtype]} for `end` but got dtype "
                           f"{c.C_NAMES[c.dtype_of(end)]}")
    if isinstance(weight, torch.Tensor) and weight.dim() > 0 and weight.dtype != input.dtype:
        raise RuntimeError(f"expected dtype {c.C_NAMES[input.dtype]} for `weight` but got dtype "
                           f"{c.C_NAMES[weight.dtype]}")
    c.require_floating("lerp_kernel_tensor" if isinstance(weight, torch.Tensor) else "lerp_kernel_scalar",
                       input.dtype)
    # the weight as ATen's kernels see it: a number in the compute dtype (1 - 0.8 is then float32's
    # 0.19999999, where float64's 0.19999999999999996 rounds to 0.2: a different fma on 41% of
    # elements), a 0-d tensor of another dtype cast to the input's (a bfloat16 weight, say)
    if isinstance(weight, torch.Tensor):
        return weight if weight.dtype == input.dtype else weight.to(input.dtype)
    return c.opmath_number(input.dtype, weight)


def lerp(input, end, weight, *, out=None):
    return c.run(lerp_kernel, input, end, _checked_lerp_weight(input, end, weight), out=out)


def lerp_(input, end, weight):
    return c.run(lerp_kernel, input, end, _checked_lerp_weight(input, end, weight), inplace=input)


def _clamp(input, min, max, out=None, inplace=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if c.result_dtype(input, min, max) == torch.bool:
        # ATen's bool kernels are the one-bound tensor ones (minimum, maximum)
        one_tensor_bound = (min is None) != (max is None) and isinstance(min if max is None else max, torch.Tensor)
        if not one_tensor_bound:
            c.not_implemented("clamp", torch.bool)
    if max is None:
        return c.run(clamp_min_kernel, input, min, out=out, inplace=inplace)
    if min is None:
        return c.run(clamp_max_kernel, input, max, out=out, inplace=inplace)
    return c.run(clamp_kernel, input, min, max, out=out, inplace=inplace)


def clamp(input, min=None, max=None, *, out=None):
    return _clamp(input, min, max, out=out)


def clamp_(input, min=None, max=None):
    return _clamp(input, min, max, inplace=input)


clip, clip_ = clamp, clamp_


def clamp_min(input, min, *, out=None):
    return _clamp(input, min, None, out=out)


def clamp_min_(input, min):
    return _clamp(input, min, None, inplace=input)


def clamp_max(input, max, *, out=None):
    return _clamp(input, None, max, out=out)


def clamp_max_(input, max):
    return _clamp(input, None, max, inplace=input)


def maximum(input, other, *, out=None):
    return c.run(maximum_kernel, input, other, out=out)


def minimum(input, other, *, out=None):
    return c.run(minimum_kernel, input, other, out=out)


def fmax(input, other, *, out=None):
    return c.run(fmax_kernel, input, other, out=out)


def fmin(input, other, *, out=None):
    return c.run(fmin_kernel, input, other, out=out)


def copysign(input, other, *, out=None):
    return c.run(copysign_kernel, input, other, out=out)


def copysign_(input, other):
    return c.run(copysign_kernel, input, other, inplace=input)


def hypot(input, other, *, out=None):
    c.require_floating("hypot", c.result_dtype(input, other))
    return c.run(hypot_kernel, *c.as_scalar_t(input, other), out=out)


def hypot_(input, other):
    c.require_floating("hypot", c.result_dtype(input, other))
    return c.run(hypot_kernel, *c.as_scalar_t(input, other), inplace=input)


def atan2(input, other, *, out=None):
    return c.run(atan2_kernel, *c.as_scalar_t(input, other), out=out)


def atan2_(input, other):
    return c.run(atan2_kernel, *c.as_scalar_t(input, other), inplace=input)


arctan2, arctan2_ = atan2, atan2_


def logaddexp(input, other, *, out=None):
    dtype = c.result_dtype(input, other)
    c.require_floating("logaddexp", dtype)
    return c.run(logaddexp_kernel, *c.zero_dim_in(dtype, input, other), out=out)


def logaddexp2(input, other, *, out=None):
    dtype = c.result_dtype(input, other)
    c.require_floating("logaddexp2", dtype)
    return c.run(logaddexp2_kernel, *c.zero_dim_in(dtype, input, other), out=out)


def _xlog_operands(input, other, kernel, rounded_kernel):
    """The kernel and operands of xlogy or xlog1py: the rounded kernel where the result is 16-bit on the CPU,
    and a weak `other` (a number, or a 0-d tensor of another dtype: a wrapped float64 number) as a value of
    the result dtype."""
    input, other = c.in_result_dtype(*c.as_scalar_t(input, other))
    shaped = [v for v in (input, other) if isinstance(v, torch.Tensor) and v.dim()]  # on one device
    on_cpu = not shaped or shaped[0].device.type == "cpu"
    weak = type(other) in (int, float, bool) or (
        isinstance(other, torch.Tensor) and not other.dim() and shaped and other.dtype != shaped[0].dtype)
    dtype = c.result_dtype(input, other) if weak or on_cpu else None
    if weak and dtype.is_floating_point and dtype != torch.float64:
        # as torch converts it: a value of the result dtype, whose logarithm the kernel takes in the compute
        # dtype (a float64 one's would be exact: log(1.0009765) is 5.8e-5 off log(float32(1.0009765)))
        other = other.to(dtype) if isinstance(other, torch.Tensor) else torch.tensor(other, dtype=dtype)
    if on_cpu and dtype in (torch.float16, torch.bfloat16):
        return rounded_kernel, (input, other)
    return kernel, (input, other)


def xlogy(input, other, *, out=None):
    kernel, operands = _xlog_operands(input, other, xlogy_kernel, xlogy_rounded_kernel)
    return c.run(kernel, *operands, out=out)


def xlogy_(input, other):
    kernel, operands = _xlog_operands(input, other, xlogy_kernel, xlogy_rounded_kernel)
    return c.run(kernel, *operands, inplace=input)


def xlog1py(input, other, *, out=None):
    """torch.special.xlog1py: input * log1p(other), 0 where input is 0 (nan where other is)."""
    kernel, operands = _xlog_operands(input, other, xlog1py_kernel, xlog1py_rounded_kernel)
    return c.run(kernel, *operands, out=out)


def _heaviside_check(input, values):
    if c.dtype_of(values) != c.dtype_of(input):
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


def heaviside(input, values, *, out=None):
    _heaviside_check(input, values)
    return c.run(heaviside_kernel, input, values, out=out)


def heaviside_(input, values):
    _heaviside_check(input, values)
    return c.run(heaviside_kernel, input, values, inplace=input)


def _ldexp_check(input, other):
    if c.dtype_of(input).is_floating_point:
        c.require_not_bool_on_cpu("ldexp_exp", other)


def _ldexp_kernel(input, other):
    """ldexp_rounded_kernel where torch's pow(2, other) is a 16-bit float tensor of the result's
    dtype, else ldexp_kernel."""
    if isinstance(other, torch.Tensor) and other.dtype in (torch.float16, torch.bfloat16) \
            and c.result_dtype(input, other) == other.dtype:
        return ldexp_rounded_kernel
    return ldexp_kernel


def ldexp(input, other, *, out=None):
    """input * 2 ** other."""
    _ldexp_check(input, other)
    return c.run(_ldexp_kernel(input, other), input, other, out=out)


def ldexp_(input, other):
    _ldexp_check(input, other)
    return c.run(_ldexp_kernel(input, other), input, other, inplace=input)


def nextafter(input, other, *, out=None):
    c.require_floating("nextafter", c.result_dtype(input, other))
    return c.run(nextafter_kernel, input, other, out=out)


def nextafter_(input, other):
    c.require_floating("nextafter", c.result_dtype(input, other))
    return c.run(nextafter_kernel, input, other, inplace=input)


def where(condition, input, other, *, out=None):
    dtype = c.dtype_of(condition)
    if dtype not in (torch.bool, torch.uint8):
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{c.TYPE_NAMES.get(dtype, dtype)}")
    return c.run(where_kernel, condition, input, other, out=out)


def _masked_fill_value(input, mask, value):
    if c.dtype_of(mask) != torch.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{c.C_NAMES.get(c.dtype_of(mask), mask.dtype)}")
    if isinstance(value, torch.Tensor) and value.dim() != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    return c.scalar_for(input.dtype, value)


def masked_fill(input, mask, value, *, out=None):
    value = _masked_fill_value(input, mask, value)
    return c.run(masked_fill_kernel, input, mask, value, out=out)


def masked_fill_(input, mask, value):
    value = _masked_fill_value(input, mask, value)
    return c.run(masked_fill_kernel, input, mask, value, inplace=input)


def _nan_to_num_args(input, nan, posinf, neginf):
    info = torch.finfo(input.dtype)
    return (0.0 if nan is None else float(nan), info.max if posinf is None else float(posinf),
            info.min if neginf is None else float(neginf))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """nan, +inf and -inf replaced (by 0 and the dtype's largest and lowest finite values unless
    given); integer and bool tensors are copied."""
    if not input.dtype.is_floating_point:
        return c.run(copy_kernel, input, out=out)
    return c.run(nan_to_num_kernel, input, *_nan_to_num_args(input, nan, posinf, neginf), out=out)


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    if not input.dtype.is_floating_point:
        return input
    return c.run(nan_to_num_kernel, input, *_nan_to_num_args(input, nan, posinf, neginf), inplace=input)


def _fill_value(input, value):
    if isinstance(value, torch.Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.dim()} dimensions.")
        if value.device == input.device and value.device.type != "cpu":
            return value  # read by the kernel: no device-to-host copy
    return c.scalar_for(input.dtype, value)


def fill(input, value, *, out=None):
    """A new tensor like `input` with every element `value` (aten::fill)."""
    return c.run(fill_kernel, input, _fill_value(input, value), out=out)


def fill_(input, value):
    return c.run(fill_kernel, input, _fill_value(input, value), inplace=input)


def copy_(input, src, non_blocking=False):
    """Copy `src` (broadcast to `input`'s shape, converted to its dtype) into `input`."""
    if not isinstance(src, torch.Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
    source, target = src.data_ptr(), input.data_ptr()
    if (not source or not target) and (src._is_zerotensor() or input._is_zerotensor()):
        # autograd's zero tensors (forward-mode tangents of zero: torch.func.hessian of xlogy makes one) have no
        # memory, a data pointer of 0 (looked at only then: the test costs ~80 ns a tensor): ATen's copy_
        # zero-fills from one and refuses to write one; left to it
        raise c.Unsupported("tritonize does not copy autograd's zero tensors, which have no memory")
    if (source == target and src.dtype == input.dtype and src.shape == input.shape
            and src.stride() == input.stride()):
        return input  # the same view: nothing to do (as ATen)
    if src.device != input.device and not (src.dim() == 0 and src.device.type == "cpu"):
        raise c.Unsupported(f"tritonize copies within one device; copy_ from {src.device} to {input.device}")
    kernel = CAST_KERNELS.get(input.dtype)
    if kernel is None or src.dtype not in CAST_KERNELS:
        raise c.Unsupported(f"tritonize does not copy {src.dtype} to {input.dtype}")
    if src.shape != input.shape:
        src = src.expand(input.shape)
    kernel(src, out=input)
    return input


def copy(input, src, non_blocking=False):
    """A new tensor like `input` holding `src` (aten::copy)."""
    return copy_(torch.empty_like(input), src)


def to_copy(input, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
            memory_format=None):
    """`input` converted to `dtype` in a new tensor on the same device (aten::_to_copy), laid
    out like `input` unless `memory_format` says otherwise."""
    if device is not None:
        device = torch.device(device)
        if device.type != input.device.type or (device.index is not None and device.index != input.device.index):
            raise c.Unsupported(f"tritonize converts on one device; _to_copy from {input.device} to {device}")
    if layout not in (None, torch.strided) or pin_memory:
        raise c.Unsupported("tritonize's _to_copy makes strided tensors only (no pinned memory)")
    dtype = input.dtype if dtype is None else dtype
    kernel = CAST_KERNELS.get(dtype)
    if kernel is None or input.dtype not in CAST_KERNELS:
        raise c.Unsupported(f"tritonize does not convert {input.dtype} to {dtype}")
    out = torch.empty_like(input, dtype=dtype, memory_format=memory_format or torch.preserve_format)
    kernel(input, out=out)
    return out
