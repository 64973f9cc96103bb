"""`tritonize.math`: scalar functions that Python's `math` lacks, for @pointwise bodies.

    import tritonize.math as tm

    @tritonize.pointwise
    def probit(p):
        return 1.4142135623730951 * tm.erfinv(2.0 * p - 1.0)

In a @pointwise function each call maps to a row of the math table (passes/math_table.py), as
`math.*` calls do: libdevice on CUDA, a float64 composite of passes/portable_math.py in
Triton's interpreter. Outside a kernel they are ordinary Python functions of floats, with
torch's special values, so the scalar function still runs as plain Python. They are written
independently of the kernel composites (iterations and loops where those unroll a fixed
approximation), which also makes them a second opinion in the tests.
"""
from __future__ import annotations

import math as _math
from fractions import Fraction as _Fraction

__all__ = ["erfinv", "erfcx", "ndtri", "digamma", "trigamma", "i0", "i0e", "i1", "i1e", "bessel_j0", "bessel_j1",
           "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "airy_ai", "fma", "rsqrt"]

_TWO_OVER_SQRT_PI = 1.1283791670955126
_INV_SQRT_PI = 0.5641895835477563
_SQRT2 = 1.4142135623730951
_WINITZKI = 0.147  # A in erfinv(x) ~ sqrt(sqrt(t^2 + w / A) - t), t = 2 / (pi A) - w / 2: 2e-3 relative


def fma(x, y, z) -> float:
    """x * y + z rounded once, as C's fma (and math.fma from Python 3.13): what torch's kernels
    compute where their source writes `a + alpha * b` and the compiler contracts it. NaN and
    infinities as x * y + z gives them; an exact zero is +0.0 but for a zero product, whose sum
    with z keeps IEEE's sign.
    """
    x, y, z = float(x), float(y), float(z)
    if not (_math.isfinite(x) and _math.isfinite(y) and _math.isfinite(z)):
        return x * y + z
    exact = _Fraction(x) * _Fraction(y) + _Fraction(z)
    if exact == 0:
        return x * y + z if x == 0 or y == 0 else 0.0
    try:
        return float(exact)  # a ratio of integers, rounded once
    except OverflowError:
        return _math.inf if exact > 0 else -_math.inf


def rsqrt(x) -> float:
    """1 / sqrt(x), as torch.rsqrt: inf at 0.0, -inf at -0.0, nan below 0, 0.0 at inf. On CUDA it
    is CUDA's rsqrtf (within 2 ulp, torch's results bit for bit), where 1 / math.sqrt(x) rounds
    twice; in the interpreter and here, the quotient of the rounded square root.
    """
    x = float(x)
    if x == 0.0:
        return _math.copysign(_math.inf, x)
    if not x >= 0.0:  # negative or nan
        return _math.nan
    return 1.0 / _math.sqrt(x)


def erfinv(x) -> float:
    """The inverse of erf, as torch.special.erfinv: nan outside [-1, 1], +-inf at +-1, -0.0 kept.

    Winitzki's closed form in w = -log(1 - x^2) to start, then Halley's method on
    f(y) = erf(y) - |x|, or (1 - |x|) - erfc(y) above 0.5 where 1 - |x| is exact and erf(y)
    would cancel; each step triples the correct digits.
    """
    x = float(x)
    a = abs(x)
    if not a < 1.0:  # nan, +-1, or outside the domain
        return x if x != x else (_math.copysign(_math.inf, x) if a == 1.0 else _math.nan)
    if a == 0.0:
        return x
    c = 1.0 - a
    w = -_math.log(c * (1.0 + a))
    t = 2.0 / (_math.pi * _WINITZKI) - 0.5 * w
    y = _math.sqrt(_math.sqrt(t * t + w / _WINITZKI) - t)
    for _ in range(8):
        f = _math.erf(y) - a if a <= 0.5 else c - _math.erfc(y)
        d = f / (_TWO_OVER_SQRT_PI * _math.exp(-y * y))
        step = d / (1.0 + y * d)
        y -= step
        if abs(step) <= 1e-15 * y:  # the error is now far below an ulp: cubic convergence
            break
    return _math.copysign(y, x)


def _exp_square(x: float) -> float:
    """exp(x^2) with x^2's rounding error carried: exp(h) (1 + l), h + l = x^2 exactly."""
    h = x * x
    if h == _math.inf:
        return h
    l = float(_Fraction(x) ** 2 - _Fraction(h))
    try:
        return _math.exp(h) * (1.0 + l)
    except OverflowError:
        return _math.inf


def erfcx(x) -> float:
    """The scaled complementary error function exp(x^2) erfc(x), as torch.special.erfcx: 1 at 0,
    0 at +inf, +inf at -inf and below -26.6 (where 2 exp(x^2) overflows), nan at nan.

    Below 5, erfc(x) (relatively accurate on both sides of 0) times exp(x^2), with x^2's rounding
    carried; from 5, the continued fraction 1/sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / ...))),
    evaluated from its depth inwards, where erfc(x) would underflow.
    """
    x = float(x)
    if x != x:
        return x
    if x < 5.0:
        return _exp_square(x) * _math.erfc(x)
    if x > 1e8:
        return _INV_SQRT_PI / x  # the next term is 1 / (2 x^2) of this: below half an ulp
    tail = x
    for k in range(60 if x >= 10.0 else 400, 0, -1):
        tail = x + 0.5 * k / tail
    return _INV_SQRT_PI / tail


def ndtri(p) -> float:
    """The inverse of the standard normal CDF, as torch.special.ndtri: -inf at 0, +inf at 1, nan
    outside [0, 1].

    sqrt(2) erfinv(2p - 1) on [1/4, 3/4], where 2p - 1 is exact; in the tails, with q = min(p, 1 - p)
    (1 - p exact above 1/2), Newton's method on log ndtr(x) = log q from Abramowitz and Stegun's
    26.2.23 (4.5e-4), where log ndtr(x) = log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 neither underflows
    nor cancels, down to the smallest subnormal q.
    """
    p = float(p)
    if not 0.0 <= p <= 1.0:  # nan, or outside the domain
        return _math.nan
    if p == 0.0 or p == 1.0:
        return _math.copysign(_math.inf, p - 0.5)
    if 0.25 <= p <= 0.75:
        return _SQRT2 * erfinv(2.0 * p - 1.0)
    q = min(p, 1.0 - p)
    t = _math.sqrt(-2.0 * _math.log(q))
    x = (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))) - t
    for _ in range(20):
        scaled = erfcx(-x / _SQRT2)
        # d/dx log ndtr(x) = sqrt(2 / pi) / erfcx(-x / sqrt 2)
        step = (_math.log(0.5 * scaled) - 0.5 * x * x - _math.log(q)) * scaled * 1.2533141373155003
        x -= step
        if abs(step) <= 1e-17 * abs(x):  # quadratic convergence: the error is now far below an ulp
            break
    return x if p < 0.5 else -x


def digamma(x) -> float:
    """The logarithmic derivative of the gamma function, as torch.special.digamma: -+inf at
    +-0, nan at the negative integers and -inf.

    psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series
    log(x) - 1/(2x) - sum B_2k / (2k x^2k); x < 0 reflects, psi(x) = psi(1 - x) - pi cot(pi x).
    The terms are summed exactly, so the error is a few ulp of the largest term: ~1e-15
    absolute next to the zeros of digamma (x ~ 1.4616, and one per negative unit interval),
    where torch's own digamma is no closer.
    """
    x = float(x)
    if x != x or x == _math.inf:
        return x
    if x == 0.0:
        return _math.copysign(_math.inf, -x)
    if x < 0.0:
        if x == -_math.inf or x.is_integer():  # the poles, and -inf
            return _math.nan
        t = -x % 1.0  # exact; cot(pi x) = -cot(pi t) = cot(pi (1 - t)), folded into (0, 1/2]
        pi_cot = -_math.pi / _math.tan(_math.pi * t) if t <= 0.5 else _math.pi / _math.tan(_math.pi * (1.0 - t))
        return digamma(1.0 - x) - pi_cot
    terms = []  # summed exactly by fsum: the error is that of the terms alone
    while x < 10.0:
        terms.append(-1.0 / x)
        x += 1.0
    z = 1.0 / (x * x)
    series = 0.0
    for b2k_over_2k in (1 / 12, -691 / 32760, 1 / 132, -1 / 240, 1 / 252, -1 / 120, 1 / 12):
        series = (series + b2k_over_2k) * z
    return _math.fsum(terms + [_math.log(x), -0.5 / x, -series])


# B_2k, the Bernoulli numbers of trigamma's asymptotic series, k = 1..8
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)


def trigamma(x) -> float:
    """The derivative of digamma, as torch.special.polygamma(1, x): +inf at 0 and at the negative
    integers (poles, from both sides), nan at -inf, 0 at +inf.

    psi1(x) = psi1(x + 1) + 1/x^2 up to x >= 10, then the asymptotic series
    1/x + 1/(2x^2) + sum B_2k / x^(2k+1); x < 0 reflects, psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x),
    with sin(pi x) from x's fraction (exact), so that the poles stay sharp. The terms are summed
    exactly: the error is a few ulp. torch's own polygamma(1, x) gives large finite values at the
    negative integers (its sin(pi x) is not zero there) and is accurate to ~1e-9 relative.
    """
    x = float(x)
    if x != x or x == _math.inf:
        return 0.0 if x == _math.inf else x
    if x <= 0.0:
        if x == -_math.inf:
            return _math.nan
        if x.is_integer():
            return _math.inf
        t = -x % 1.0  # |x|'s fraction, exact: sin^2(pi x) = sin^2(pi t) = sin^2(pi (1 - t))
        cosecant = _math.pi / _math.sin(_math.pi * min(t, 1.0 - t))  # its square overflows to inf near 0
        return _math.fsum([cosecant * cosecant, -trigamma(1.0 - x)])
    terms = []  # summed exactly by fsum: the error is that of the terms alone
    while x < 10.0:
        reciprocal = 1.0 / x  # its square overflows to inf below 1e-154, as psi1 does
        terms.append(reciprocal * reciprocal)
        x += 1.0
    z = 1.0 / x
    zz = z * z
    series = 0.0
    for b2k in reversed(_BERNOULLI):
        series = (series + b2k) * zz
    return _math.fsum(terms + [z, 0.5 * zz, series * z])


# -- modified Bessel functions of the first kind, orders 0 and 1 ---------------------------------
# Written independently of the Cephes Chebyshev tables that torch and the kernel composites use, so
# that they are a second opinion in the tests: every quantity in integer fixed point with _GUARD
# fraction bits (the power series, the asymptotic series, exp and the square root), the result one
# ratio of integers rounded once by Python's correctly rounded int / int.

_GUARD = 200  # fraction bits of the fixed-point sums
_ONE = 1 << _GUARD
_PI = _Fraction("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899863")
_SWITCH = 45.0  # power series below, asymptotic expansion from here (its truncation error ~e^-90 here)
_OVERFLOW = 720.0  # I0, I1 > 1.8e308 well before this (from x ~ 713.99)
_TINY = 2.0 ** -100  # below: closed forms (the fixed-point sums no longer see x)


def _exp_fixed(a: _Fraction) -> int:
    """exp(a) * 2^_GUARD (a >= 0 exact, a < ~1000): the Taylor series of exp(a / 2^12), squared
    12 times, with 60 more guard bits than the result keeps (each squaring doubles the
    relative error)."""
    g = _GUARD + 60
    r = a / 4096
    rn, rd = r.numerator, r.denominator
    term = total = 1 << g
    k = 1
    while term:
        term = term * rn // (rd * k)
        total += term
        k += 1
    for _ in range(12):
        total = total * total >> g
    return total >> 60


def _power_series(a: _Fraction, nu: int) -> int:
    """sum_k (a^2/4)^k nu! / (k! (k + nu)!) * 2^_GUARD, all terms positive, each from the previous
    by the ratio (a^2/4) / (k (k + nu)); I_nu(a) = (a/2)^nu / nu! times this sum."""
    q = a * a / 4
    qn, qd = q.numerator, q.denominator
    term = total = _ONE
    k = 1
    while term:
        term = term * qn // (qd * k * (k + nu))
        total += term
        k += 1
    return 2 * total + 1  # at scale 2^(_GUARD + 1), a sticky bit: the floors only lower the sum


def _asymptotic(a: _Fraction, nu: int) -> int:
    """sum_k t_k * 2^_GUARD of I_nu(a) ~ exp(a) / sqrt(2 pi a) sum_k t_k, t_0 = 1,
    t_k = t_(k-1) ((2k - 1)^2 - 4 nu^2) / (8 k a), up to the smallest term (~exp(-2a))."""
    an, ad = a.numerator, a.denominator
    term = total = _ONE
    k = 1
    while term:
        new = term * ((2 * k - 1) ** 2 - 4 * nu * nu) * ad // (8 * k * an)
        if abs(new) >= abs(term):  # the series starts to diverge
            break
        term = new
        total += term
        k += 1
    return total


def _sqrt_2pi_fixed(a: _Fraction) -> int:
    """sqrt(2 pi a) * 2^_GUARD, by an integer square root."""
    v = 2 * _PI * a
    return _math.isqrt(v.numerator * (1 << (2 * _GUARD)) // v.denominator)


def _ratio(num: int, den: int) -> float:
    """num / den rounded once (int / int is correctly rounded), +-inf on overflow."""
    try:
        return num / den
    except OverflowError:
        return _math.inf if (num > 0) == (den > 0) else -_math.inf


def _bessel(x, nu: int, scaled: bool) -> float:
    """I_nu(|x|) (or exp(-|x|) I_nu(|x|)) for finite 2^-100 <= |x|, positive."""
    a = abs(x)
    fa = _Fraction(a)
    if a < _SWITCH:
        s = _power_series(fa, nu)  # scale 2^(_GUARD + 1)
        num = s * fa.numerator ** nu
        den = (2 * fa.denominator) ** nu << (_GUARD + 1)
        if scaled:
            num <<= _GUARD
            den *= _exp_fixed(fa)
        return _ratio(num, den)
    if not scaled and a > _OVERFLOW:
        return _math.inf
    num = _asymptotic(fa, nu)
    den = _sqrt_2pi_fixed(fa)
    if not scaled:
        num *= _exp_fixed(fa)
        den <<= _GUARD
    return _ratio(num, den)


def _half_tiny(x: float, away: bool) -> float:
    """x / 2 rounded away from zero (away) or toward it where x / 2 is not a double (x odd
    multiples of the smallest subnormal): i1's x/2 (1 + x^2/8) is just above |x| / 2,
    i1e's x/2 (1 - |x| + ...) just below."""
    h = x * 0.5
    if h + h == x:
        return h
    n = abs(x) / 5e-324  # an odd integer, exact
    m = (n + 1.0) / 2.0 if away else (n - 1.0) / 2.0
    return _math.copysign(m * 5e-324, x)


def i0(x) -> float:
    """The modified Bessel function of the first kind of order 0, as torch.special.i0 (torch.i0):
    even, 1 at +-0, nan at nan, +inf at +-inf (torch's CPU kernel gives nan there: exp(inf) times
    a Chebyshev series over sqrt(inf)); finite up to |x| ~ 713.987 where torch's exp(x) already
    overflows above 709.78.

    |x| < 45: the power series sum_k (x^2/4)^k / (k!)^2 (positive terms, each from the previous by
    a ratio); above: the asymptotic expansion exp(|x|) / sqrt(2 pi |x|) sum_k t_k with
    t_k = t_(k-1) (2k - 1)^2 / (8k|x|), summed to its smallest term (~e^-90 relative at 45).
    Sums, exp and sqrt in 200-bit integer fixed point, the result rounded once: correctly rounded
    but within 2^-150 of a boundary.
    """
    x = float(x)
    if x != x:
        return x
    if abs(x) == _math.inf:
        return _math.inf
    if abs(x) < _TINY:
        return 1.0  # 1 + x^2/4 rounds to 1
    return _bessel(x, 0, False)


def i0e(x) -> float:
    """The exponentially scaled i0, exp(-|x|) I0(x), as torch.special.i0e: even, 1 at +-0, nan at
    nan, +0.0 at +-inf; ~1/sqrt(2 pi |x|) for large |x|, no overflow anywhere.

    |x| < 45: the power series of I0 (positive terms, ratios) over the Taylor series of
    exp(|x|); above: the asymptotic sum_k t_k / sqrt(2 pi |x|), t_k = t_(k-1) (2k - 1)^2 / (8k|x|),
    exp cancelled. Sums, exp and sqrt in 200-bit integer fixed point, rounded once: correctly
    rounded but within 2^-150 of a boundary.
    """
    x = float(x)
    if x != x:
        return x
    if abs(x) == _math.inf:
        return 0.0
    if abs(x) < _TINY:
        return 1.0  # 1 - |x| + 3x^2/4 rounds to 1
    return _bessel(x, 0, True)


def i1(x) -> float:
    """The modified Bessel function of the first kind of order 1, as torch.special.i1: odd, nan at
    nan, +-inf at +-inf (torch's CPU kernel: nan), -0.0 at -0.0 (torch's CPU kernel: +0.0, it
    tests x < 0 for the sign); finite up to |x| ~ 713.988 where torch's overflows above 709.78.

    |x| < 45: x/2 times the power series sum_k (x^2/4)^k / (k! (k+1)!) (positive terms, ratios);
    above: exp(|x|) / sqrt(2 pi |x|) sum_k t_k, t_k = t_(k-1) ((2k - 1)^2 - 4) / (8k|x|), to the
    smallest term; the sign of x. In 200-bit integer fixed point, rounded once: correctly rounded
    but within 2^-150 of a boundary (subnormal results included).
    """
    x = float(x)
    if x != x or abs(x) == _math.inf or x == 0.0:
        return x
    if abs(x) < _TINY:
        return _half_tiny(x, away=True)  # x/2 (1 + x^2/8)
    return _math.copysign(_bessel(x, 1, False), x)


def i1e(x) -> float:
    """The exponentially scaled i1, exp(-|x|) I1(x), as torch.special.i1e: odd, nan at nan, +-0.0
    at +-inf, -0.0 at -0.0 (torch's CPU kernel: +0.0); no overflow anywhere.

    |x| < 45: x/2 times the power series of I1 (positive terms, ratios) over the Taylor series of
    exp(|x|); above: the asymptotic sum_k t_k / sqrt(2 pi |x|), t_k = t_(k-1) ((2k - 1)^2 - 4) /
    (8k|x|); the sign of x. In 200-bit integer fixed point, rounded once: correctly rounded but
    within 2^-150 of a boundary (subnormal results included).
    """
    x = float(x)
    if x != x or x == 0.0:
        return x
    if abs(x) == _math.inf:
        return _math.copysign(0.0, x)
    if abs(x) < _TINY:
        return _half_tiny(x, away=False)  # x/2 (1 - |x| + ...)
    return _math.copysign(_bessel(x, 1, True), x)


# -- Bessel functions of the first and second kinds, orders 0 and 1 ------------------------------
# Independent of the Cephes rationals that torch and the kernel composites use: in integer fixed
# point with _J_GUARD fraction bits, the power series below _J_SWITCH (alternating: its terms reach
# ~e^|x| / |x|, 2^68 at 50, and cancel; the result keeps ~250 bits near the zeros) and Hankel's
# asymptotic expansion from there (summed to its smallest term, ~e^-2|x|: 2^-144 at 50), with
# cos and sin of x - (2 nu + 1) pi / 4 from x reduced modulo 2 pi with as many bits of pi as x has
# above the point, so that x up to 1.8e308 keeps its phase. The result is one ratio of integers,
# rounded once.

_J_GUARD = 320  # fraction bits of the fixed-point sums
_J_ONE = 1 << _J_GUARD
_J_SWITCH = 50.0  # power series below, asymptotic expansion from here
_EULER_GAMMA = _Fraction("0.57721566490153286060651209008240243104215933593992359880576723488486772677766"
                         "4670936947063291746749514631447249807082481")  # 120 digits, ~400 bits
_PI_KEPT: list = []  # _pi_fixed's: [bits, floor(pi 2^bits)] at the widest precision asked so far


def _atan_inverse(n: int, bits: int) -> int:
    """atan(1/n) * 2^bits (n >= 2): its Taylor series, alternating, in fixed point."""
    power = (1 << bits) // n
    total, k, n2 = power, 1, n * n
    while power:
        power //= n2
        term = power // (2 * k + 1)
        total += -term if k % 2 else term
        k += 1
    return total


def _pi_fixed(bits: int) -> int:
    """floor(pi * 2^bits) within a unit: Machin's 16 atan(1/5) - 4 atan(1/239) with 32 guard bits, computed
    again only where more bits are asked than any call asked before (at least 1500: 1024 above the point
    for J's and Y's phase, their guard bits and a margin)."""
    if not _PI_KEPT or _PI_KEPT[0] < bits:
        widest = max(bits, 1500)
        g = widest + 32
        _PI_KEPT[:] = [widest, (16 * _atan_inverse(5, g) - 4 * _atan_inverse(239, g)) >> 32]
    widest, pi = _PI_KEPT
    return pi >> (widest - bits)


def _atanh_series(t: int, bits: int) -> int:
    """2 atanh(t / 2^bits) * 2^bits for 0 <= t / 2^bits <= 1/3: 2 sum_j t^(2j+1) / (2j + 1)."""
    t2 = t * t >> bits
    power, total, j = t, 0, 0
    while power:
        total += power // (2 * j + 1)
        power = power * t2 >> bits
        j += 1
    return 2 * total


def _fixed(v: _Fraction, bits: int) -> int:
    """floor(v 2^bits)."""
    return (v.numerator << bits) // v.denominator


def _ln_fixed(v: _Fraction, bits: int) -> int:
    """ln(v) * 2^bits for a positive rational v: v = f 2^e with f in [sqrt(1/2), sqrt(2)), ln f = 2 atanh(z),
    z = (f - 1) / (f + 1) (|z| < 0.172), and e ln 2 (ln 2 = 2 atanh(1/3)), with 20 more guard bits."""
    g = bits + 20
    e = v.numerator.bit_length() - v.denominator.bit_length()
    f = v / _Fraction(2) ** e
    while f * f < _Fraction(1, 2):
        f, e = f * 2, e - 1
    while f * f >= 2:
        f, e = f / 2, e + 1
    z = (f - 1) / (f + 1)
    ln_f = _atanh_series(_fixed(abs(z), g), g)
    return ((ln_f if z >= 0 else -ln_f) + e * _atanh_series((1 << g) // 3, g)) >> 20


def _log_half_plus_gamma(a: _Fraction, bits: int) -> int:
    """ln(a/2) + Euler's gamma at scale 2^bits: the logarithm of Y's and K's series."""
    return _ln_fixed(a / 2, bits) + _fixed(_EULER_GAMMA, bits)


def _j_power_series(a: _Fraction, nu: int) -> tuple:
    """(S, H) * 2^_J_GUARD: S = sum_k (-q)^k / (k! (k + nu)!), q = a^2/4 (J0 = S, J1 = a/2 S), and
    the harmonic sum H = sum_k (-q)^k c_k / (k! (k + nu)!) with c_k = H_k for nu = 0 (Y0's) and
    H_k + H_(k+1) for nu = 1 (Y1's), H_k = 1 + 1/2 + ... + 1/k. Each term from the previous by the
    ratio q / (k (k + nu)); the floors leave a few units of 2^-_J_GUARD."""
    q = a * a / 4
    qn, qd = q.numerator, q.denominator
    term = _J_ONE  # |(-q)^k / (k! (k + nu)!)|
    harmonic = 0  # H_k
    total = _J_ONE
    weighted = _J_ONE if nu else 0  # c_0 = H_0 + H_1 = 1 for nu = 1
    k = 1
    while term:
        term = term * qn // (qd * k * (k + nu))
        harmonic += _J_ONE // k
        c = harmonic + harmonic + _J_ONE // (k + 1) if nu else harmonic
        sign = -1 if k % 2 else 1
        total += sign * term
        weighted += sign * (term * c >> _J_GUARD)
        k += 1
    return total, weighted


def _j_hankel(a: _Fraction, nu: int, second: bool) -> float:
    """J_nu(a) (Y_nu(a) if second) for a >= _J_SWITCH: sqrt(2 / (pi a)) (P cos w - Q sin w) (Y:
    P sin w + Q cos w), w = a - (2 nu + 1) pi / 4, P = t_0 - t_2 + t_4 ..., Q = t_1 - t_3 + ...,
    t_k = t_(k-1) (4 nu^2 - (2k - 1)^2) / (8 k a), summed up to the smallest term."""
    an, ad = a.numerator, a.denominator  # ad: a power of two, at most 2^47 here
    g = _J_GUARD
    term, p, q, k = _J_ONE, _J_ONE, 0, 1
    while True:
        new = term * (4 * nu * nu - (2 * k - 1) ** 2) * ad // (8 * k * an)
        if abs(new) >= abs(term) or not new:
            break
        term = new
        if k % 2:
            q += term if k % 4 == 1 else -term
        else:
            p += term if k % 4 == 0 else -term
        k += 1
    # w modulo 2 pi, with bits of pi enough for the multiple of 2 pi taken away
    bits = g + max(0, an.bit_length() - ad.bit_length()) + 64
    pi = _pi_fixed(bits)
    w = ((an << bits) // ad - ((2 * nu + 1) * pi >> 2)) % (2 * pi)
    if w > pi:
        w -= 2 * pi
    w >>= bits - g  # in (-pi, pi], at scale 2^g
    sin, cos = _sin_cos_fixed(w, g)
    value = (p * sin + q * cos) if second else (p * cos - q * sin)  # scale 2^(2g)
    # sqrt(2 / (pi a)) * 2^scale, by an integer square root
    scale = g + an.bit_length() // 2 + 8
    amplitude = _math.isqrt((2 * ad << (2 * scale + g)) // (_pi_fixed(g) * an))
    return (2 * value + 1) * amplitude / (1 << (2 * g + scale + 1))


def bessel_j0(x) -> float:
    """The Bessel function of the first kind of order 0, as torch.special.bessel_j0: even, 1 at
    +-0, nan at nan, 0.0 at +-inf (torch's kernel: nan, cos(inf)).

    |x| < 50: the power series sum_k (-x^2/4)^k / (k!)^2; above: Hankel's expansion, x's phase
    reduced modulo 2 pi exactly. In 320-bit integer fixed point, rounded once: correctly rounded but
    within ~2^-250 of a boundary, also next to the zeros.
    """
    x = float(x)
    if x != x:
        return x
    a = abs(x)
    if a == _math.inf:
        return 0.0
    fa = _Fraction(a)
    if a >= _J_SWITCH:
        return _j_hankel(fa, 0, False)
    s, _ = _j_power_series(fa, 0)
    return _ratio(2 * s + 1, 1 << (_J_GUARD + 1))


def bessel_j1(x) -> float:
    """The Bessel function of the first kind of order 1, as torch.special.bessel_j1: odd (-0.0 at
    -0.0), nan at nan, +-0.0 at +-inf (torch's kernel: nan); ~x/2 down to the subnormals.

    |x| < 50: x/2 times the power series sum_k (-x^2/4)^k / (k! (k + 1)!); above: Hankel's
    expansion, x's phase reduced modulo 2 pi exactly; negated for negative x. In 320-bit integer fixed point,
    rounded once: correctly rounded but within ~2^-250 of a boundary, also next to the zeros.
    """
    x = float(x)
    if x != x or x == 0.0:
        return x
    a = abs(x)
    if a == _math.inf:
        return _math.copysign(0.0, x)
    if a < _TINY:
        return _half_tiny(x, away=False)  # x/2 (1 - x^2/8)
    fa = _Fraction(a)
    if a >= _J_SWITCH:
        value = _j_hankel(fa, 1, False)
    else:
        s, _ = _j_power_series(fa, 1)
        value = _ratio((2 * s + 1) * fa.numerator, fa.denominator << (_J_GUARD + 2))
    return value if x > 0 else -value  # odd (J1 is never 0 here)


def _y_edge(x: float) -> float:
    """Y0's and Y1's values where no series is summed: -inf at +-0, nan below 0 and at nan, 0.0 at +inf."""
    if x == 0.0:
        return -_math.inf
    return 0.0 if x == _math.inf else _math.nan


def bessel_y0(x) -> float:
    """The Bessel function of the second kind of order 0, as torch.special.bessel_y0: -inf at +-0,
    nan below 0 and at nan, 0.0 at +inf (torch's kernel: nan, sin(inf)).

    x < 50: (2/pi) ((ln(x/2) + gamma) J0(x) + sum_(k>=1) (-1)^(k+1) H_k (x^2/4)^k / (k!)^2) (H_k
    the harmonic numbers); above: Hankel's expansion, x's phase reduced modulo 2 pi exactly. In
    320-bit integer fixed point, rounded once: correctly rounded but within ~2^-250 of a boundary,
    also next to the zeros.
    """
    x = float(x)
    if not 0.0 < x < _math.inf:
        return _y_edge(x)
    fa = _Fraction(x)
    if x >= _J_SWITCH:
        return _j_hankel(fa, 0, True)
    s, h = _j_power_series(fa, 0)
    log_half = _log_half_plus_gamma(fa, _J_GUARD)
    num = 2 * ((log_half * s >> _J_GUARD) - h)  # h sums (-1)^k H_k ...: Y0's sum with the other sign
    return _ratio(2 * num + 1, _pi_fixed(_J_GUARD) << 1)


def bessel_y1(x) -> float:
    """The Bessel function of the second kind of order 1, as torch.special.bessel_y1: -inf at +-0
    and where -2 / (pi x) overflows (x < ~3.5e-309), nan below 0 and at nan, 0.0 at +inf (torch's
    kernel: nan).

    x < 50: (x^2 S (ln(x/2) + gamma) - x^2/2 H - 2) / (pi x), S = sum_k (-x^2/4)^k / (k! (k + 1)!)
    (J1 = x/2 S) and H its sum weighted by H_k + H_(k+1) (the harmonic numbers); above: Hankel's
    expansion, x's phase reduced modulo 2 pi exactly. In 320-bit integer fixed point, rounded once:
    correctly rounded but within ~2^-250 of a boundary, also next to the zeros.
    """
    x = float(x)
    if not 0.0 < x < _math.inf:
        return _y_edge(x)
    fa = _Fraction(x)
    if x >= _J_SWITCH:
        return _j_hankel(fa, 1, True)
    s, h = _j_power_series(fa, 1)
    log_half = _log_half_plus_gamma(fa, _J_GUARD)
    x2 = fa * fa  # num = x^2 (S (ln(x/2) + gamma) - H/2) - 2, at scale 2^_J_GUARD
    inner = (s * log_half >> _J_GUARD) - (h >> 1)
    num = inner * x2.numerator // x2.denominator - 2 * _J_ONE
    return _ratio((2 * num + 1) * fa.denominator, (_pi_fixed(_J_GUARD) * fa.numerator) << 1)


# -- modified Bessel functions of the second kind, orders 0 and 1 --------------------------------
# Independent of the Cephes tables too: below _SWITCH the power series (A&S 9.6.13, 9.6.11)
#   K0(x) = -(ln(x/2) + gamma) I0(x) + sum_k H_k q^k / (k!)^2,
#   K1(x) = 1/x + (x/2) [(ln(x/2) + gamma) sum_k u_k - sum_k (H_k + 1/(2k + 2)) u_k],
# q = x^2/4, u_k = q^k / (k! (k+1)!), H_k the harmonic numbers; its terms grow like I(x) ~ e^x where
# K(x) ~ e^-x, so it cancels up to e^(2x) ~ 2^130 at 45: _K_GUARD fraction bits leave 200 beyond that.
# From _SWITCH, the asymptotic expansion sqrt(pi / 2x) e^-x sum_k t_k, t_k = t_(k-1) (4 nu^2 - (2k-1)^2) / (8kx),
# to its smallest term (~e^-2x; the remainder is below the first omitted term). ln, sqrt and exp in
# integer fixed point, the result one ratio of integers rounded once.

_K_GUARD = 330  # fraction bits of the K sums
_K_ONE = 1 << _K_GUARD
_K_UNDERFLOW = 800.0  # K0, K1 < 1e-340 beyond (they round to 0 from x ~ 742)


def _k_power_series(a: _Fraction, nu: int) -> int:
    """K_nu(a) * 2^_K_GUARD for 0 < a < _SWITCH, by the power series above."""
    q = a * a / 4
    qn, qd = q.numerator, q.denominator
    log_gamma = _log_half_plus_gamma(a, _K_GUARD)
    term = plain = _K_ONE  # q^k / (k! (k + nu)!), and its sum
    harmonic = weighted = 0  # H_k, and sum (H_k [+ 1/(2k + 2)]) term_k
    k = 0
    while term:
        weight = harmonic + (_K_ONE // (2 * k + 2) if nu else 0)
        weighted += weight * term >> _K_GUARD
        k += 1
        harmonic += _K_ONE // k
        term = term * qn // (qd * k * (k + nu))
        plain += term
    inner = weighted - (log_gamma * plain >> _K_GUARD)  # K0; -inner for K1's bracket
    if nu == 0:
        return inner
    an, ad = a.numerator, a.denominator
    return (ad << _K_GUARD) // an - inner * an // (2 * ad)


def _k_asymptotic(a: _Fraction, nu: int) -> int:
    """sum_k t_k * 2^_K_GUARD of K_nu(a) ~ sqrt(pi / 2a) e^-a sum_k t_k, t_0 = 1,
    t_k = t_(k-1) (4 nu^2 - (2k - 1)^2) / (8 k a), up to the smallest term."""
    an, ad = a.numerator, a.denominator
    term = total = _K_ONE
    k = 1
    while term:
        new = term * (4 * nu * nu - (2 * k - 1) ** 2) * ad // (8 * k * an)
        if abs(new) >= abs(term):  # the series starts to diverge
            break
        term = new
        total += term
        k += 1
    return total


_SQRT_HALF_PI = _math.isqrt(_fixed(_PI / 2, 2 * _K_GUARD))  # sqrt(pi / 2) * 2^_K_GUARD


def _bessel_k(x, nu: int, scaled: bool) -> float:
    """K_nu(x) (or exp(x) K_nu(x)) with torch's special values: nan at nan and below 0 (-0.0 is 0),
    +inf at 0, 0 at +inf."""
    x = float(x)
    if x != x or x < 0.0:
        return _math.nan
    if x == 0.0:
        return _math.inf
    if x == _math.inf or (not scaled and x > _K_UNDERFLOW):
        return 0.0
    a = _Fraction(x)
    if x < _SWITCH:
        k = _k_power_series(a, nu)
        if not scaled:
            return _ratio(k, _K_ONE)
        return _ratio(k * _exp_fixed(a), _K_ONE << _GUARD)
    # sqrt(pi / 2) sum / sqrt(a), over exp(a) unless scaled
    num = _k_asymptotic(a, nu) * _SQRT_HALF_PI
    den = _math.isqrt((a.numerator << (2 * _K_GUARD)) // a.denominator) << _K_GUARD
    if not scaled:
        num <<= _GUARD
        den *= _exp_fixed(a)
    return _ratio(num, den)


def modified_bessel_k0(x) -> float:
    """The modified Bessel function of the second kind of order 0, as torch.special.modified_bessel_k0:
    defined for x > 0, +inf at +-0, nan below 0 and at nan, 0 at +inf (and from x ~ 742, where it
    underflows); ~ -ln(x/2) - gamma for tiny x, subnormal x too (torch's float64 kernel: +inf at the odd
    multiples of 5e-324, where its 0.5 * x rounds to 0).

    x < 45: the power series -(ln(x/2) + gamma) I0(x) + sum_k H_k (x^2/4)^k / (k!)^2; above, the
    asymptotic expansion sqrt(pi / 2x) e^-x sum_k t_k, t_k = t_(k-1) (-(2k - 1)^2) / (8kx). In integer
    fixed point (330 fraction bits: the series cancels to e^-2x of its terms), rounded once: correctly
    rounded but within ~2^-150 of a boundary.
    """
    return _bessel_k(x, 0, False)


def modified_bessel_k1(x) -> float:
    """The modified Bessel function of the second kind of order 1, as torch.special.modified_bessel_k1:
    defined for x > 0, +inf at +-0 (and below x ~ 5.56e-309, where 1/x overflows; torch's float64 kernel
    gives nan at 5e-324, log(0) times I1), nan below 0 and at nan, 0 at +inf (and from x ~ 742).

    x < 45: the power series 1/x + (x/2) [(ln(x/2) + gamma) sum_k u_k - sum_k (H_k + 1/(2k + 2)) u_k],
    u_k = (x^2/4)^k / (k! (k+1)!); above, the asymptotic expansion sqrt(pi / 2x) e^-x sum_k t_k,
    t_k = t_(k-1) (4 - (2k - 1)^2) / (8kx). In integer fixed point, rounded once: correctly rounded but
    within ~2^-150 of a boundary.
    """
    return _bessel_k(x, 1, False)


def scaled_modified_bessel_k0(x) -> float:
    """exp(x) K0(x), as torch.special.scaled_modified_bessel_k0: +inf at +-0, nan below 0 and at nan,
    0 at +inf; ~sqrt(pi / 2x) for large x, no underflow but past 1e308. As modified_bessel_k0, its
    power series times exp(x) below 45, the asymptotic sum with e^-x cancelled above; correctly rounded
    but within ~2^-150 of a boundary."""
    return _bessel_k(x, 0, True)


def scaled_modified_bessel_k1(x) -> float:
    """exp(x) K1(x), as torch.special.scaled_modified_bessel_k1: +inf at +-0 (and below x ~ 5.56e-309),
    nan below 0 and at nan, 0 at +inf; ~sqrt(pi / 2x) for large x. As modified_bessel_k1, its power
    series times exp(x) below 45, the asymptotic sum with e^-x cancelled above; correctly rounded but
    within ~2^-150 of a boundary."""
    return _bessel_k(x, 1, True)


# -- the Airy function Ai ------------------------------------------------------------------------
# Maclaurin series below |x| = _AIRY_SWITCH, Ai(x) = Ai(0) f(x) + Ai'(0) g(x),
# f = sum_k x^3k / prod_j (3j - 1) 3j, g = x sum_k x^3k / prod_j 3j (3j + 1): it cancels to e^-2zeta of its terms
# for x > 0 (zeta = 2/3 |x|^(3/2), 46.7 at 17: 2^135) and to ~e^-zeta for x < 0, which _AIRY_GUARD bits
# leave ~280 beyond. Above, the asymptotic expansions (DLMF 9.7.5, 9.7.9) with u_k = u_(k-1) (6k - 5)(6k - 3)
# (6k - 1) / ((2k - 1) 216 k), to their smallest term (~e^-2zeta): e^-zeta / (2 sqrt(pi) x^(1/4)) sum (-1)^k
# u_k / zeta^k for x > 0, and (cos(zeta - pi/4) P + sin(zeta - pi/4) Q) / (sqrt(pi) |x|^(1/4)) for x < 0, the
# phase reduced with as many more bits of pi (Machin's formula) as zeta has.

_AIRY_GUARD = 420
_AIRY_SWITCH = 17.0
_AIRY_UNDERFLOW = 108.0  # Ai(x) < 2.4e-324 (half the smallest subnormal) from ~107.5
_AI0 = _Fraction("0.355028053887817239260063186004183176397979174199177240583326510300810042450126712957174")
_AIP0 = _Fraction("-0.258819403792806798405183560189203963479091138354934582210001813856102772676790280654196")


def _airy_series(a: _Fraction) -> int:
    """Ai(a) * 2^_AIRY_GUARD by the Maclaurin series (|a| < _AIRY_SWITCH)."""
    g = _AIRY_GUARD
    z = a ** 3
    zn, zd = abs(z.numerator), z.denominator
    negative = z < 0
    totals = []
    for shift in (0, 1):  # f, then g / a: the ratios z / ((3k - 1) 3k) and z / (3k (3k + 1))
        term = total = 1 << g
        k = 1
        while term:
            term = term * zn // (zd * (3 * k - 1 + shift) * (3 * k + shift))
            total += -term if negative and k % 2 else term
            k += 1
        totals.append(total)
    f, g_over_a = totals
    return (_AI0.numerator * f * _AIP0.denominator * a.denominator
            + _AIP0.numerator * g_over_a * _AI0.denominator * a.numerator) // (
            _AI0.denominator * _AIP0.denominator * a.denominator)


def _airy_asymptotic_terms(zeta: int, bits: int) -> list:
    """u_k / zeta^k * 2^bits (zeta given as zeta * 2^bits), k = 0, 1, ... up to the smallest."""
    terms = [1 << bits]
    k = 1
    while True:
        new = terms[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) // ((2 * k - 1) * 216 * k) * (1 << bits) // zeta
        if new >= terms[-1] or new == 0:
            return terms
        terms.append(new)
        k += 1


def airy_ai(x) -> float:
    """The Airy function Ai, as torch.special.airy_ai: 0.355... at 0, oscillating for x < 0, decaying as
    exp(-2/3 x^(3/2)) for x > 0 (subnormal from ~103.9, where torch's is already 0; 0 from ~107.5); 0 at
    +-inf (torch's: nan), nan at nan. The true value at every finite x, also below ~-1e205, where the
    kernels (and torch) give nan: 2/3 |x|^(3/2) overflows there, and with it the phase.

    |x| < 17: the Maclaurin series Ai(0) f(x) + Ai'(0) g(x); above, the asymptotic expansions in zeta =
    2/3 |x|^(3/2) to their smallest term (~e^-2zeta), the phase of the oscillating one reduced with
    Machin's pi to as many bits as zeta needs. In integer fixed point, rounded once: correctly rounded
    but within ~2^-150 of a boundary (or of a zero of Ai).
    """
    x = float(x)
    if x != x:
        return x
    if abs(x) == _math.inf or x > _AIRY_UNDERFLOW:
        return 0.0
    a = _Fraction(x)
    g = _AIRY_GUARD
    if abs(x) < _AIRY_SWITCH:
        return _ratio(_airy_series(a), 1 << g)
    t = abs(a)
    # extra bits: zeta's integer part, so that the phase keeps g fraction bits after the reduction
    w = g + max(0, int(abs(x)) .bit_length() * 3 // 2 + 8)
    sqrt_t = _math.isqrt((t.numerator << (2 * w)) // t.denominator)  # sqrt(t) 2^w
    zeta = 2 * t.numerator * sqrt_t // (3 * t.denominator)  # zeta 2^w
    quarter = _math.isqrt(sqrt_t << w)  # t^(1/4) 2^w
    pi = _pi_fixed(w)
    sqrt_pi = _math.isqrt(pi << w)  # sqrt(pi) 2^w
    terms = _airy_asymptotic_terms(zeta >> (w - g), g)
    if x > 0:
        total = sum(-u if k % 2 else u for k, u in enumerate(terms))
        num = total << (2 * w - g + _GUARD)  # sum 2^(2w + _GUARD)
        den = 2 * sqrt_pi * quarter * _exp_fixed(_Fraction(zeta, 1 << w))
        return _ratio(num, den)
    p = sum(u if k % 4 == 0 else -u for k, u in enumerate(terms) if k % 2 == 0)
    q = sum(u if k % 4 == 1 else -u for k, u in enumerate(terms) if k % 2 == 1)
    theta = (zeta - pi // 4) % (2 * pi)  # zeta - pi/4 reduced to [0, 2 pi), 2^w
    sin, cos = _sin_cos_fixed(theta, w)
    num = (cos * p + sin * q) >> (w - g)  # 2^(2g)
    return _ratio(num << (2 * w - 2 * g), sqrt_pi * quarter)


def _sin_cos_fixed(theta: int, bits: int) -> tuple:
    """sin and cos of theta (theta 2^bits, |theta| < 7) times 2^bits, by their Taylor series with 20
    guard bits."""
    g = bits + 20
    t = theta << 20
    term, n = 1 << g, 0
    sin = cos = 0
    while term:
        if n % 4 == 0:
            cos += term
        elif n % 4 == 1:
            sin += term
        elif n % 4 == 2:
            cos -= term
        else:
            sin -= term
        n += 1
        term = term * t // (n << g)
    return sin >> 20, cos >> 20
