"""Python's tuple-valued math functions, math.frexp and math.modf, written as scalar helpers in the DSL:
a row of the math table gives one value, so ResolveNames hands these calls to InlineHelpers as it
does a user's own helper, and `m, e = math.frexp(x)` unpacks the tuple the helper returns.

Each gives Python's results in the compute dtype (float16 and bfloat16 in float32), special values
too: frexp(0.0) is (0.0, 0), frexp(-inf) (-inf, 0), frexp(nan) (nan, 0); modf(-2.0) is (-0.0, -2.0),
modf(inf) (0.0, inf). Their tests run them against Python's own (tests/test_tritonize_math.py).
"""
from __future__ import annotations

import math


def frexp(x):
    """(m, e) with x == m * 2**e and 0.5 <= |m| < 1; (x, 0) where x is 0, infinite or nan."""
    x = float(x)
    magnitude = abs(x)
    finite_nonzero = magnitude > 0.0 and magnitude < math.inf  # nan fails both
    # log2 of a stand-in where x has no exponent: a select computes both sides
    exponent = int(math.floor(math.log2(magnitude if finite_nonzero else 1.0))) + 1
    mantissa = math.ldexp(x, -exponent)
    # log2 may round across a power of two (log2 of 2**k - ulp to k): one step mends it,
    # since ldexp is exact at any exponent, subnormal x included
    if abs(mantissa) >= 1.0:
        mantissa = mantissa * 0.5
        exponent = exponent + 1
    elif abs(mantissa) < 0.5:
        mantissa = mantissa * 2.0
        exponent = exponent - 1
    if not finite_nonzero:
        return x, 0
    return mantissa, exponent


def modf(x):
    """(fraction, whole), both with x's sign, whole = trunc(x); (0.0 with x's sign, x) where x is
    infinite, (nan, nan) where it is nan."""
    x = float(x)
    whole = math.trunc(x)
    # the difference is +0.0 where x is whole (-2.0 - -2.0), and nan at infinity: Python's carry x's sign
    fraction = math.copysign(x - whole, x)
    if math.isinf(x):
        fraction = math.copysign(0.0, x)
    return fraction, whole


# by identity, as resolve_names' math functions: a callable the user calls need not be hashable
HELPERS = {id(math.frexp): frexp, id(math.modf): modf}
