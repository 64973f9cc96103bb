"""Math: exp, log and their variants, roots, trigonometric and hyperbolic functions and their
inverses, erf/erfc/erfinv, rounding (ceil, floor, round, trunc, frac), deg2rad/rad2deg,
sigmoid, logit, lgamma and digamma. Integer and bool inputs give float32, as in torch.

erfinv and digamma are written here in the DSL itself (the math table has no row for them: the
DSL reaches only functions of Python's `math` module), so they compute in the input's own
float dtype (float32 for half types) on both devices.
"""
from __future__ import annotations

import math

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
    return 1 / math.sqrt(input)


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


def round_half_even(x):
    """torch.round: to nearest, ties to even, the sign of zero kept (x - floor(x) is exact)."""
    f = math.floor(x)
    d = x - f
    odd = f - 2.0 * math.floor(0.5 * f) == 1.0
    r = f + 1.0 if d > 0.5 or (d == 0.5 and odd) else f
    return math.copysign(r, x)


@pointwise
def round_kernel(input):
    return round_half_even(input)


@pointwise
def round_scaled_kernel(input, scale: float):
    return round_half_even(input * scale) / scale


@pointwise
def round_coarse_kernel(input, scale: float):
    return round_half_even(input / scale) * scale


@pointwise
def frac_kernel(input):
    return input - math.trunc(input)


@pointwise
def deg2rad_kernel(input):
    return input * 0.017453292519943295


@pointwise
def rad2deg_kernel(input):
    return input * 57.29577951308232


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


def erfinv_of(x):
    """Giles' erfinv approximation (w = -log((1 - |x|)(1 + |x|)) on w < 6.25, w < 16, beyond)
    polished by one Halley step on f = erf(y) - |x|, or (1 - |x|) - erfc(y) where 1 - |x| is
    exact and erf(y) would cancel."""
    a = abs(x)
    c = 1.0 - a
    w = -math.log(c * (1.0 + a))
    sw = math.sqrt(w)
    w1 = w - 3.125
    p1 = -3.64441206401782e-21
    p1 = -1.6850591381820166e-19 + p1 * w1
    p1 = 1.28584807152564e-18 + p1 * w1
    p1 = 1.1157877678025181e-17 + p1 * w1
    p1 = -1.333171662854621e-16 + p1 * w1
    p1 = 2.0972767875968562e-17 + p1 * w1
    p1 = 6.637638134358324e-15 + p1 * w1
    p1 = -4.054566272975207e-14 + p1 * w1
    p1 = -8.151934197605472e-14 + p1 * w1
    p1 = 2.6335093153082323e-12 + p1 * w1
    p1 = -1.2975133253453532e-11 + p1 * w1
    p1 = -5.415412054294628e-11 + p1 * w1
    p1 = 1.0512122733215323e-09 + p1 * w1
    p1 = -4.112633980346984e-09 + p1 * w1
    p1 = -2.9070369957882005e-08 + p1 * w1
    p1 = 4.2347877827932404e-07 + p1 * w1
    p1 = -1.3654692000834679e-06 + p1 * w1
    p1 = -1.3882523362786469e-05 + p1 * w1
    p1 = 0.00018673420803405714 + p1 * w1
    p1 = -0.000740702534166267 + p1 * w1
    p1 = -0.006033670871430149 + p1 * w1
    p1 = 0.24015818242558962 + p1 * w1
    p1 = 1.6536545626831027 + p1 * w1
    w2 = sw - 3.25
    p2 = 2.2137376921775787e-09
    p2 = 9.075656193888539e-08 + p2 * w2
    p2 = -2.7517406297064545e-07 + p2 * w2
    p2 = 1.8239629214389228e-08 + p2 * w2
    p2 = 1.5027403968909828e-06 + p2 * w2
    p2 = -4.013867526981546e-06 + p2 * w2
    p2 = 2.9234449089955446e-06 + p2 * w2
    p2 = 1.2475304481671779e-05 + p2 * w2
    p2 = -4.7318229009055734e-05 + p2 * w2
    p2 = 6.828485145957318e-05 + p2 * w2
    p2 = 2.4031110387097894e-05 + p2 * w2
    p2 = -0.0003550375203628475 + p2 * w2
    p2 = 0.0009532893797373805 + p2 * w2
    p2 = -0.0016882755560235047 + p2 * w2
    p2 = 0.002491442096107851 + p2 * w2
    p2 = -0.003751208507569241 + p2 * w2
    p2 = 0.005370914553590064 + p2 * w2
    p2 = 1.0052589676941592 + p2 * w2
    p2 = 3.0838856104922208 + p2 * w2
    w3 = sw - 5.0
    p3 = -2.7109920616438573e-11
    p3 = -2.555641816996525e-10 + p3 * w3
    p3 = 1.5076572693500548e-09 + p3 * w3
    p3 = -3.789465440126737e-09 + p3 * w3
    p3 = 7.61570120807834e-09 + p3 * w3
    p3 = -1.496002662714924e-08 + p3 * w3
    p3 = 2.914795345090108e-08 + p3 * w3
    p3 = -6.771199775845234e-08 + p3 * w3
    p3 = 2.2900482228026655e-07 + p3 * w3
    p3 = -9.9298272942317e-07 + p3 * w3
    p3 = 4.526062597223154e-06 + p3 * w3
    p3 = -1.968177810553167e-05 + p3 * w3
    p3 = 7.599527703001776e-05 + p3 * w3
    p3 = -0.00021503011930044477 + p3 * w3
    p3 = -0.00013871931833623122 + p3 * w3
    p3 = 1.0103004648645344 + p3 * w3
    p3 = 4.849906401408584 + p3 * w3
    p = p1 if w < 6.25 else (p2 if w < 16.0 else p3)
    y = p * a if a < 1.0 else 0.0 * a
    f = math.erf(y) - a if a <= 0.5 else c - math.erfc(y)
    d = f / (1.1283791670955126 * math.exp(-y * y))
    y = y - d / (1.0 + y * d)
    if a == 1.0:
        y = math.inf
    if a > 1.0:
        y = math.nan
    if a != a:
        y = a
    return math.copysign(y, x)


@pointwise
def erfinv_kernel(input):
    return erfinv_of(float(input))


def digamma_of(x):
    """Digamma: a rational approximation of psi(1 + t) around its positive root (t in [0, 1)),
    the recurrence psi(v + 1) = psi(v) + 1/v unrolled into [1, 2) below 10, the asymptotic
    series above, and the reflection psi(1 - x) - pi cot(pi x) for x < 0. psi(+-0) = -+inf,
    nan at negative integers and -inf, as in torch."""
    neg = x < 0.0
    m = abs(x)
    fl = math.floor(m)
    t = m - fl
    g = ((t - 0.4616321446374059) - 3.309564688275257e-10) - 9.016312093258696e-20
    pn = 0.25479851061131551 + t * (-0.32555031186804491 + t * (-0.65031853770896507 + t * (
        -0.28919126444774784 + t * (-0.045251321448739056 + t * -0.0020713321167745952))))
    qd = 1.0 + t * (2.0767117023730469 + t * (1.4606242909763515 + t * (0.43593529692665969 + t * (
        0.054151797245674225 + t * (0.0021284987017821144 + t * -0.55789841321675513e-6)))))
    base = g * 0.99558162689208984375 + g * (pn / qd)
    # psi(1 + t + n) = psi(1 + t) + sum 1 / (t + k), k = 1..n   (n = -1: psi(t) = psi(1 + t) - 1/t)
    n = fl if neg else fl - 1.0
    acc = 1.0 / (t + 8.0) if n >= 8.0 else 0.0 * t
    acc = acc + (1.0 / (t + 7.0) if n >= 7.0 else 0.0 * t)
    acc = acc + (1.0 / (t + 6.0) if n >= 6.0 else 0.0 * t)
    acc = acc + (1.0 / (t + 5.0) if n >= 5.0 else 0.0 * t)
    acc = acc + (1.0 / (t + 4.0) if n >= 4.0 else 0.0 * t)
    acc = acc + (1.0 / (t + 3.0) if n >= 3.0 else 0.0 * t)
    acc = acc + (1.0 / (t + 2.0) if n >= 2.0 else 0.0 * t)
    acc = acc + (1.0 / (t + 1.0) if n >= 1.0 else 0.0 * t)
    low = base - 1.0 / t if n < 0.0 else base + acc
    v = 1.0 - x if neg else x
    zz = 1.0 / (v * v)
    asy = zz * (8.33333333333333333333E-2 + zz * (-8.33333333333333333333E-3 + zz * (3.96825396825396825397E-3 + zz * (
        -4.16666666666666666667E-3 + zz * (7.57575757575757575758E-3 + zz * (
            -2.10927960927960927961E-2 + zz * 8.33333333333333333333E-2))))))
    r = low if v < 10.0 else math.log(v) - 0.5 / v - asy
    # reflection: psi(x) = psi(1 - x) + pi cot(pi t) for x < 0, cot reduced to [0, 1/2]
    u = 1.0 - t if t > 0.5 else t
    ct = math.sin(3.141592653589793 * (0.5 - u)) / math.sin(3.141592653589793 * u)
    ct = -ct if t > 0.5 else ct
    if neg:
        r = r + 3.141592653589793 * ct
    if neg and t == 0.0:
        r = math.nan
    if x == 0.0:
        r = math.copysign(math.inf, -x)
    if x == math.inf:
        r = x
    if x != x:
        r = x
    return r


@pointwise
def digamma_kernel(input):
    return digamma_of(float(input))


# -- torch-compatible functions ---------------------------------------------------------------


def _unary(name, kernel, check=None, doc=None):
    """`name(input, *, out=None)` and `name_(input)` for a one-argument kernel."""

    def op(input, *, out=None):
        if check is not None:
            check(input)
        return c.run(kernel, input, out=out)

    def op_(input):
        if check is not None:
            check(input)
        return c.run(kernel, input, inplace=input)

    for fn, fn_name in ((op, name), (op_, name + "_")):
        fn.__name__ = fn.__qualname__ = fn_name
        fn.__doc__ = doc or f"torch.{fn_name} as a tritonize kernel."
    return op, op_


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


def round(input, *, decimals=0, out=None):
    """Round half to even (optionally to `decimals` decimal digits); integers are copied."""
    kernel, extra = _round_kernel(input, decimals)
    return c.run(kernel, input, *extra, out=out)


def round_(input, *, decimals=0):
    kernel, extra = _round_kernel(input, decimals)
    if kernel is copy_kernel:
        return input
    return c.run(kernel, input, *extra, inplace=input)


def _logit_kernel(eps):
    if eps is None or eps < 0:
        return logit_kernel, ()
    return logit_eps_kernel, (float(eps), 1.0 - float(eps))


def logit(input, eps=None, *, out=None):
    kernel, extra = _logit_kernel(eps)
    return c.run(kernel, input, *extra, out=out)


def logit_(input, eps=None):
    kernel, extra = _logit_kernel(eps)
    return c.run(kernel, input, *extra, inplace=input)
