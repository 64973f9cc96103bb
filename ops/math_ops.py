"""Math: exp, log and their variants, roots, trigonometric and hyperbolic functions and their
inverses, erf/erfc/erfinv, rounding (ceil, floor, round, trunc, frac), deg2rad/rad2deg,
sigmoid, logit, lgamma, digamma, polygamma of orders 0 and 1, sinc, angle and frexp of real tensors, i0 and
torch.special's entr, ndtr,
ndtri, log_ndtr, erfcx, i0e, i1, i1e, spherical_bessel_j0, bessel_j0, bessel_j1, bessel_y0, bessel_y1, the
modified_bessel_ (i0, i1, k0, k1) and scaled_modified_bessel_ (k0, k1) functions and airy_ai.
Integer and bool inputs give float32, as in torch.

erfinv, erfcx, ndtri, digamma, trigamma and the Bessel functions, which Python's `math` lacks, come from
`tritonize.math`: rows of the math table like the rest (erfinv, erfcx, ndtri, i0, i1: libdevice on CUDA in float32
or float64; digamma, trigamma, i0e, i1e, the K functions and bessel_j0, j1, y0 and y1:
composites of their own, float32 ones for float32 and 16-bit work on CUDA; airy_ai: a float64 composite on
both, float32 work rounded once; the interpreter computes them all in float64 and rounds once).
"""
from __future__ import annotations

import math

import torch

import tritonize.math as tmath
from tritonize import pointwise
from tritonize.ops import _common as c
from tritonize.ops.arithmetic import copy_kernel

# -- kernels ------------------------------------------------------------------------------------


@pointwise
def exp_kernel(input):
    return math.exp(input)


@pointwise
def exp2_kernel(input):
    return math.exp2(input)


@pointwise
def expm1_kernel(input):
    return math.expm1(input)


@pointwise
def log_kernel(input):
    return math.log(input)


@pointwise
def log2_kernel(input):
    return math.log2(input)


@pointwise
def log10_kernel(input):
    return math.log10(input)


@pointwise
def log1p_kernel(input):
    return math.log1p(input)


@pointwise
def sqrt_kernel(input):
    return math.sqrt(input)


@pointwise
def rsqrt_kernel(input):
    return tmath.rsqrt(input)  # on CUDA rsqrtf, as torch (1 / sqrt differed on 34% of float32)


@pointwise
def sin_kernel(input):
    return math.sin(input)


@pointwise
def cos_kernel(input):
    return math.cos(input)


@pointwise
def tan_kernel(input):
    return math.tan(input)


@pointwise
def asin_kernel(input):
    return math.asin(input)


@pointwise
def acos_kernel(input):
    return math.acos(input)


@pointwise
def atan_kernel(input):
    return math.atan(input)


@pointwise
def sinh_kernel(input):
    return math.sinh(input)


@pointwise
def cosh_kernel(input):
    return math.cosh(input)


@pointwise
def tanh_kernel(input):
    return math.tanh(input)


@pointwise
def asinh_kernel(input):
    return math.asinh(input)


@pointwise
def acosh_kernel(input):
    return math.acosh(input)


@pointwise
def atanh_kernel(input):
    return math.atanh(input)


@pointwise
def erf_kernel(input):
    return math.erf(input)


@pointwise
def erfc_kernel(input):
    return math.erfc(input)


@pointwise
def lgamma_kernel(input):
    return math.lgamma(input)


@pointwise
def ceil_kernel(input):
    return math.ceil(input)


@pointwise
def floor_kernel(input):
    return math.floor(input)


@pointwise
def trunc_kernel(input):
    return math.trunc(input)


@pointwise
def round_kernel(input):
    return round(input)  # Python's round: to nearest, ties to even, as torch.round


@pointwise
def round_scaled_kernel(input, scale: float):
    return round(input * scale) / scale


@pointwise
def round_coarse_kernel(input, scale: float):
    return round(input / scale) * scale


@pointwise
def frac_kernel(input):
    return input - math.trunc(input)


@pointwise
def deg2rad_kernel(input):
    return input * 0.017453292519943295


@pointwise
def rad2deg_kernel(input):
    return input * 57.29577951308232


@pointwise(promotion="int_to_float")
def angle_kernel(input):
    # the angle of a real number: pi below zero, 0 elsewhere (-0.0 too), nan kept
    x = float(input)
    if x != x:
        return x
    return math.pi if x < 0 else 0.0


@pointwise(promotion=("default", torch.int32))
def frexp_kernel(input):
    return math.frexp(input)


def sigmoid_of(x):
    return 1 / (1 + math.exp(-float(x)))


@pointwise
def sigmoid_kernel(input):
    return sigmoid_of(input)


@pointwise
def logit_kernel(input):
    return math.log(input / (1 - input))


@pointwise
def logit_eps_kernel(input, low: float, high: float):
    z = low if input < low else (high if input > high else input)
    return math.log(z / (1 - z))


# ATen's CPU kernel for 16-bit tensors computes in their dtype, c10's 16-bit arithmetic rounding each
# step (its CUDA kernel computes in float32): the quotient's 16-bit rounding moves 15-60% of random
# inputs' results by an ulp
@pointwise(promotion="no_opmath")
def logit_rounded_kernel(input):
    return math.log(input / (1 - input))


@pointwise(promotion="no_opmath")
def logit_eps_rounded_kernel(input, low: float, high: float):
    z = low if input < low else (high if input > high else input)
    return math.log(z / (1 - z))


@pointwise
def erfinv_kernel(input):
    return tmath.erfinv(input)


@pointwise
def digamma_kernel(input):
    return tmath.digamma(input)


@pointwise
def trigamma_kernel(input):
    return tmath.trigamma(input)


@pointwise(promotion="int_to_float")
def sinc_kernel(input):
    if input == 0:
        return 1.0
    product = math.pi * input
    return math.sin(product) / product


@pointwise(promotion="int_to_float")
def entr_kernel(input):
    x = float(input)  # a negated uint8 wraps, a bool has no negation
    if x != x:
        return x
    if x > 0:
        return -x * math.log(x)
    return 0.0 if x == 0 else -math.inf


@pointwise(promotion="int_to_float")
def ndtr_kernel(input):
    # 0.5 erfc(-x / sqrt(2)), Cephes' (and SciPy's) form, accurate in both tails: ATen's
    # (1 + erf(x / sqrt(2))) / 2 cancels in the lower one (0 for 4.9e-198 at x = -30 in float64, 4% high
    # at x = -5 in float32)
    return 0.5 * math.erfc(input * -0.7071067811865476)


@pointwise
def ndtri_kernel(input):
    return tmath.ndtri(input)


@pointwise
def erfcx_kernel(input):
    return tmath.erfcx(input)


@pointwise
def i0_kernel(input):
    return tmath.i0(input)


@pointwise
def i0e_kernel(input):
    return tmath.i0e(input)


@pointwise
def i1_kernel(input):
    return tmath.i1(input)


@pointwise
def i1e_kernel(input):
    return tmath.i1e(input)


@pointwise
def bessel_j0_kernel(input):
    return tmath.bessel_j0(input)


@pointwise
def bessel_j1_kernel(input):
    return tmath.bessel_j1(input)


@pointwise
def bessel_y0_kernel(input):
    return tmath.bessel_y0(input)


@pointwise
def bessel_y1_kernel(input):
    return tmath.bessel_y1(input)


@pointwise
def modified_bessel_k0_kernel(input):
    return tmath.modified_bessel_k0(input)


@pointwise
def modified_bessel_k1_kernel(input):
    return tmath.modified_bessel_k1(input)


@pointwise
def scaled_modified_bessel_k0_kernel(input):
    return tmath.scaled_modified_bessel_k0(input)


@pointwise
def scaled_modified_bessel_k1_kernel(input):
    return tmath.scaled_modified_bessel_k1(input)


@pointwise
def airy_ai_kernel(input):
    return tmath.airy_ai(input)


@pointwise(promotion="int_to_float")
def spherical_bessel_j0_kernel(input):
    # ATen's: sin(x) / x, and its Taylor series below 0.5, where the quotient would lose bits to the sine's
    x = float(input)
    if math.isinf(x):
        return 0.0
    if abs(x) < 0.5:
        s = x * x
        return 1.0 + s * (-1.0 / 6.0 + s * (1.0 / 120.0 + s * (-1.0 / 5040.0 + s * (
            1.0 / 362880.0 + s * (-1.0 / 39916800.0 + s * (1.0 / 6227020800.0))))))
    return math.sin(x) / x


@pointwise(promotion="int_to_float")
def log_ndtr_kernel(input):
    # SciPy's and ATen's form: below -1, ndtr(x) = erfcx(-t) exp(-t^2) / 2 (t = x / sqrt 2) keeps the log
    # finite where ndtr itself underflows (x < -38.5 in float64); above, log1p of -erfc(t) / 2, which
    # keeps the upper tail's tiny logs
    t = input * 0.7071067811865476
    if input < -1.0:
        return math.log(0.5 * tmath.erfcx(-t)) - t * t
    return math.log1p(-0.5 * math.erfc(t))


# -- torch-compatible functions ---------------------------------------------------------------


def _function(name, kernel, check=None, doc=None):
    """`name(input, *, out=None)` for a one-argument kernel."""

    def op(input, *, out=None):
        if check is not None:
            check(input)
        return c.run(kernel, input, out=out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc or f"torch.{name} as a tritonize kernel."
    return op


def _unary(name, kernel, check=None, doc=None):
    """`name(input, *, out=None)` and `name_(input)` for a one-argument kernel."""

    def op_(input):
        if check is not None:
            check(input)
        return c.run(kernel, input, inplace=input)

    op_.__name__ = op_.__qualname__ = name + "_"
    op_.__doc__ = doc or f"torch.{name}_ as a tritonize kernel."
    return _function(name, kernel, check, doc), op_


def _not_bool(name):
    return lambda input: c.require_not_bool(name, input.dtype)


def _floating(name):
    return lambda input: c.require_floating(name, input.dtype)


exp, exp_ = _unary("exp", exp_kernel)
exp2, exp2_ = _unary("exp2", exp2_kernel)
expm1, expm1_ = _unary("expm1", expm1_kernel)
log, log_ = _unary("log", log_kernel)
log2, log2_ = _unary("log2", log2_kernel)
log10, log10_ = _unary("log10", log10_kernel)
log1p, log1p_ = _unary("log1p", log1p_kernel)
sqrt, sqrt_ = _unary("sqrt", sqrt_kernel)
rsqrt, rsqrt_ = _unary("rsqrt", rsqrt_kernel)
sin, sin_ = _unary("sin", sin_kernel)
cos, cos_ = _unary("cos", cos_kernel)
tan, tan_ = _unary("tan", tan_kernel)
asin, asin_ = _unary("asin", asin_kernel)
acos, acos_ = _unary("acos", acos_kernel)
atan, atan_ = _unary("atan", atan_kernel)
sinh, sinh_ = _unary("sinh", sinh_kernel)
cosh, cosh_ = _unary("cosh", cosh_kernel)
tanh, tanh_ = _unary("tanh", tanh_kernel)
asinh, asinh_ = _unary("asinh", asinh_kernel)
acosh, acosh_ = _unary("acosh", acosh_kernel)
atanh, atanh_ = _unary("atanh", atanh_kernel)
arcsin, arcsin_, arccos, arccos_, arctan, arctan_ = asin, asin_, acos, acos_, atan, atan_
arcsinh, arcsinh_, arccosh, arccosh_, arctanh, arctanh_ = asinh, asinh_, acosh, acosh_, atanh, atanh_
erf, erf_ = _unary("erf", erf_kernel)
erfc, erfc_ = _unary("erfc", erfc_kernel)
erfinv, erfinv_ = _unary("erfinv", erfinv_kernel)
lgamma, lgamma_ = _unary("lgamma", lgamma_kernel)
digamma, digamma_ = _unary("digamma", digamma_kernel)
ceil, ceil_ = _unary("ceil", ceil_kernel, _not_bool("ceil"))
floor, floor_ = _unary("floor", floor_kernel, _not_bool("floor"))
trunc, trunc_ = _unary("trunc", trunc_kernel, _not_bool("trunc"))
fix, fix_ = trunc, trunc_
frac, frac_ = _unary("frac", frac_kernel, _floating("frac"))
deg2rad, deg2rad_ = _unary("deg2rad", deg2rad_kernel)
rad2deg, rad2deg_ = _unary("rad2deg", rad2deg_kernel)
sigmoid, sigmoid_ = _unary("sigmoid", sigmoid_kernel)


def _round_kernel(input, decimals):
    if decimals == 0:
        c.require_not_bool("round", input.dtype)
        return (round_kernel, ()) if input.dtype.is_floating_point else (copy_kernel, ())
    c.require_floating("round", input.dtype)
    if decimals > 0:
        return round_scaled_kernel, (10.0 ** decimals,)
    return round_coarse_kernel, (10.0 ** -decimals,)


sinc, sinc_ = _unary("sinc", sinc_kernel)


def _angle_dtypes(input):
    # ATen's CUDA kernel has no 16-bit instance (its CPU kernel has)
    if c.on_cuda(input) and input.dtype in (torch.float16, torch.bfloat16):
        c.not_implemented("angle_cuda", input.dtype)


angle = _function("angle", angle_kernel, _angle_dtypes,
                  doc="torch.angle of a real tensor (pi below zero, 0 elsewhere, nan kept) as a tritonize kernel; "
                      "integers and bools give float32; 16-bit tensors on CUDA raise torch's error.")

# the C++ type names torch.frexp's out= checks print
_FREXP_TYPE_NAMES = {
    torch.bool: "bool", torch.uint8: "unsigned char", torch.int8: "signed char", torch.int16: "short int",
    torch.int32: "int", torch.int64: "long int", torch.float16: "c10::Half", torch.bfloat16: "c10::BFloat16",
    torch.float32: "float", torch.float64: "double",
}


def frexp(input, *, out=None):
    """torch.frexp: (mantissa, exponent) with input = mantissa * 2**exponent, 0.5 <= |mantissa| < 1 and an
    int32 exponent; (input, 0) where input is 0, infinite or nan (the CPU's; CUDA leaves that exponent
    unspecified). math.frexp in a @pointwise function (passes/math_helpers.py)."""
    if out is None:
        return torch.return_types.frexp(_frexp_aten(input))
    mantissa, exponent = out
    return torch.return_types.frexp_out(_frexp_aten(input, mantissa=mantissa, exponent=exponent))


def _frexp_aten(input, *, mantissa=None, exponent=None):
    """aten::frexp.Tensor and .Tensor_out: a plain tuple, as the dispatcher takes it."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    if mantissa is None and exponent is None:
        return frexp_kernel(input)
    if mantissa.dtype != input.dtype:
        raise RuntimeError(f"torch.frexp() expects mantissa to have dtype {_FREXP_TYPE_NAMES[input.dtype]} but got "
                           f"{_FREXP_TYPE_NAMES[mantissa.dtype]}")
    if exponent.dtype != torch.int32:
        raise RuntimeError(f"torch.frexp() expects exponent to have int dtype but got "
                           f"{_FREXP_TYPE_NAMES[exponent.dtype]}")
    c.call(frexp_kernel, input, out=(mantissa, exponent))
    return mantissa, exponent


entr = _function("entr", entr_kernel, doc="torch.special.entr, -x log(x) (0 at 0, -inf below), as a tritonize kernel.")
ndtr = _function("ndtr", ndtr_kernel, doc="torch.special.ndtr, the standard normal CDF, as a tritonize kernel "
                                          "(accurate in the lower tail, where torch's cancels).")


def _no_16_bit(name):
    """ATen's kernels of ndtri, log_ndtr, erfcx, spherical_bessel_j0 and the Bessel functions of the first
    and second kinds have float32 and float64 instances only (integers promote to float32): 16-bit tensors
    get its error, on either device."""
    def check(input):
        if isinstance(input, torch.Tensor) and input.dtype in (torch.float16, torch.bfloat16):
            c.not_implemented(f"{name}_{input.device.type}", input.dtype)
    return check


def _float_only(name, kernel, doc):
    """A torch.special function whose ATen kernels have float32 and float64 instances only (_no_16_bit)."""
    return _function(name, kernel, _no_16_bit(name), doc)


ndtri = _float_only("ndtri", ndtri_kernel,
                    "torch.special.ndtri, the inverse of the standard normal CDF, as a tritonize kernel.")
log_ndtr = _float_only("log_ndtr", log_ndtr_kernel,
                       "torch.special.log_ndtr, the log of the standard normal CDF, as a tritonize kernel.")
spherical_bessel_j0 = _float_only("spherical_bessel_j0", spherical_bessel_j0_kernel,
                                  "torch.special.spherical_bessel_j0, sin(x) / x (1 at 0, 0 at +-inf), as a "
                                  "tritonize kernel.")
erfcx = _float_only("erfcx", erfcx_kernel, "torch.special.erfcx, exp(x^2) erfc(x), as a tritonize kernel.")
bessel_j0 = _float_only("bessel_j0", bessel_j0_kernel,
                        "torch.special.bessel_j0, the Bessel function of the first kind of order 0, as a tritonize "
                        "kernel.")
bessel_j1 = _float_only("bessel_j1", bessel_j1_kernel,
                        "torch.special.bessel_j1, the Bessel function of the first kind of order 1, as a tritonize "
                        "kernel.")
bessel_y0 = _float_only("bessel_y0", bessel_y0_kernel,
                        "torch.special.bessel_y0, the Bessel function of the second kind of order 0 (nan below 0), "
                        "as a tritonize kernel.")
bessel_y1 = _float_only("bessel_y1", bessel_y1_kernel,
                        "torch.special.bessel_y1, the Bessel function of the second kind of order 1 (nan below 0), "
                        "as a tritonize kernel.")
i0, i0_ = _unary("i0", i0_kernel)
i0e = _function("i0e", i0e_kernel, doc="torch.special.i0e, exp(-|x|) I0(x), as a tritonize kernel.")
i1 = _function("i1", i1_kernel, doc="torch.special.i1, the modified Bessel function of order 1, as a tritonize "
                                    "kernel.")
i1e = _function("i1e", i1e_kernel, doc="torch.special.i1e, exp(-|x|) I1(x), as a tritonize kernel.")
# torch.special's modified_bessel_* (ATen's Cephes kernels, float32 and float64 only: _no_16_bit). Its
# modified_bessel_i0 is torch.i0's values (the same Cephes table and operations) and modified_bessel_i1
# special.i1's within 2 float64 ulp (the same table, multiplied in another order): the i0 and i1 kernels,
# as accurate against both (and +-inf at +-inf, -0.0 kept in i1, where torch gives nan and +0.0)
modified_bessel_i0 = _float_only("modified_bessel_i0", i0_kernel,
                                 "torch.special.modified_bessel_i0, I0(x), as a tritonize kernel.")
modified_bessel_i1 = _float_only("modified_bessel_i1", i1_kernel,
                                 "torch.special.modified_bessel_i1, I1(x), as a tritonize kernel.")
modified_bessel_k0 = _float_only("modified_bessel_k0", modified_bessel_k0_kernel,
                                 "torch.special.modified_bessel_k0, K0(x) (+inf at 0, nan below), as a tritonize "
                                 "kernel.")
modified_bessel_k1 = _float_only("modified_bessel_k1", modified_bessel_k1_kernel,
                                 "torch.special.modified_bessel_k1, K1(x) (+inf at 0, nan below), as a tritonize "
                                 "kernel.")
scaled_modified_bessel_k0 = _float_only("scaled_modified_bessel_k0", scaled_modified_bessel_k0_kernel,
                                        "torch.special.scaled_modified_bessel_k0, exp(x) K0(x), as a tritonize "
                                        "kernel.")
scaled_modified_bessel_k1 = _float_only("scaled_modified_bessel_k1", scaled_modified_bessel_k1_kernel,
                                        "torch.special.scaled_modified_bessel_k1, exp(x) K1(x), as a tritonize "
                                        "kernel.")
# float32 and float64 only too; Cephes' approximations with the leading 1 of their denominators for x < -2.09,
# which ATen's loops leave out (portable_math.portable_airy_ai): torch's is up to 1.7e-5 off there
airy_ai = _float_only("airy_ai", airy_ai_kernel,
                      "torch.special.airy_ai, the Airy function Ai(x), as a tritonize kernel.")


def _polygamma_kernel(n):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n > 1:
        # torch's higher orders are Hurwitz's zeta, whose series runs as many terms as |x| asks: no
        # fixed unrolled form covers x < 0; the registered kernels hand these calls to torch's
        raise c.Unsupported(f"tritonize's polygamma has orders 0 (digamma) and 1 (trigamma), not {n}")
    return digamma_kernel if n == 0 else trigamma_kernel


def polygamma(n, input, *, out=None):
    """torch.polygamma of order 0 (digamma) or 1 (trigamma) as a tritonize kernel."""
    return c.run(_polygamma_kernel(n), input, out=out)


def polygamma_(input, n):
    """Tensor.polygamma_ of order 0 (digamma) or 1 (trigamma) as a tritonize kernel."""
    return c.run(_polygamma_kernel(n), input, inplace=input)


def round(input, *, decimals=0, out=None):
    """Round half to even (optionally to `decimals` decimal digits); integers are copied."""
    kernel, extra = _round_kernel(input, decimals)
    return c.run(kernel, input, *extra, out=out)


def round_(input, *, decimals=0):
    kernel, extra = _round_kernel(input, decimals)
    if kernel is copy_kernel:
        return input
    return c.run(kernel, input, *extra, inplace=input)


def logit_rounds_steps(dtype, tensor) -> bool:
    """Do torch's logit kernels compute in this 16-bit dtype (its CPU kernels), rather than in float32?"""
    return dtype in (torch.float16, torch.bfloat16) and tensor.device.type == "cpu"


def logit_bounds(eps, dtype, rounded: bool) -> tuple:
    """ATen's clamp bounds (eps, 1 - eps): eps in the compute dtype and 1 - eps computed in it (float32 for
    float32 and 16-bit tensors, the 16-bit dtype itself where the steps round to it)."""
    if rounded:
        low = c.sixteen_bit_number(dtype, float(eps))
        return low, c.sixteen_bit_number(dtype, 1.0 - low)
    low = c.opmath_number(dtype, float(eps))
    return low, c.opmath_number(dtype, 1.0 - low)


def _logit_kernel(input, eps):
    rounded = logit_rounds_steps(input.dtype, input)
    if eps is None or eps < 0:
        return (logit_rounded_kernel if rounded else logit_kernel), ()
    return (logit_eps_rounded_kernel if rounded else logit_eps_kernel), logit_bounds(eps, input.dtype, rounded)


def logit(input, eps=None, *, out=None):
    kernel, extra = _logit_kernel(input, eps)
    return c.run(kernel, input, *extra, out=out)


def logit_(input, eps=None):
    kernel, extra = _logit_kernel(input, eps)
    return c.run(kernel, input, *extra, inplace=input)
