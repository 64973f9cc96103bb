"""The polynomials of J0, J1, Y0 and Y1 below |x| = 5 (passes/float32_math.py's f32_bessel_near*, and
passes/portable_math.py's portable_bessel_near* in float64): minimax fits by Lawson's iteration in
u = x^2 - 12.5, which maps (0, 5] onto [-12.5, 12.5], each coefficient rounded to its dtype in turn (lowest
first) and the rest refitted around it. The kernels' errors, fma steps and roundings included, are measured by the
tests through Triton's interpreter (tests/test_float32_math.py, test_portable_math.py). CPU only (mpmath: 1-2
minutes a dtype); the output is benchmarks/results/fit_bessel_jy.txt, which a test holds the kernels to.

    python -m benchmarks.experiments.fit_bessel_jy [--dtype float32|float64]

Cephes' rationals (torch's) cost two polynomials, a correctly rounded division and, for Y, J's own rational
again; these are one polynomial for J and two for Y, and no division but Y1's 1/x:
  J0(x)      = (x - j01)(x + j01)(x^2 - j02^2) P0(u)     j01 the first zero of J0 (in two parts: x - j01 exact
  J1(x)      = x (x - j11)(x + j11)(x^2 - j12^2) P1(u)   near it), so that J keeps its relative accuracy there;
                                                           the second zeros, beyond 5, keep P far from 0 (and
                                                           Horner's terms from cancelling next to 5);
  Y0(x)      = R0(u) + (2/pi) ln(x) J0(x)       R0 = Y0 - (2/pi) ln(x) J0 and R1 = (Y1 - (2/pi)(J1 ln x - 1/x)) / x
  Y1(x)      = x R1(u) + (2/pi)(J1(x) ln(x) - 1/x)   are entire functions of x^2 (A&S 9.1.13).
P is weighted for J's relative error, R for Y's error in units of its amplitude max(|Y|, min(1, sqrt(2/(pi x)))),
the tests' measure. In float64 the zeros' factors are z - Z with z = x^2 and Z = j^2 rounded (its error is far below
an ulp of the amplitude), and the Lawson steps solve for corrections in float64 around mpmath's residuals.
"""
from __future__ import annotations

import argparse

import mpmath
import numpy as np

from benchmarks.experiments.fit_erf import chebyshev_points

mpmath.mp.dps = 40
CENTER = 12.5  # u = x^2 - CENTER
F32 = np.float32
TWO_OVER_PI = 2 / mpmath.pi
DEGREES = {"float32": {"P0": 6, "P1": 6, "R0": 8, "R1": 7}, "float64": {"P0": 11, "P1": 10, "R0": 13, "R1": 12}}


def split(value):
    """value as float32 high + float32 low."""
    high = F32(float(value))
    return float(high), float(F32(float(value - mpmath.mpf(float(high)))))


def zero_factor(order, x, dtype):
    """The factor of J's first two zeros: in float32 the kernel's, exactly, (x - j1)(x + j1) with j1 in two
    float32 parts (their float32 sum in x + j1), times x^2 - Z2 (one fma) with Z2 = j2^2 rounded to float32,
    beyond 5; in float64 (z - j1^2)(z - j2^2) with the true zeros, not the kernel's rounded squares Z, which
    would leave P a pole at Z1, next to j1^2 (the first float64 fits stalled at 1e-14 for it). The kernel's
    z - Z1 is off by |Z1 - j1^2| <= 4.4e-16 there, 0.2 units of 2^-52 of the amplitude."""
    j1, j2 = mpmath.besseljzero(order, 1), mpmath.besseljzero(order, 2)
    if dtype == "float32":
        high, low = split(j1)
        return (x - high - low) * (x + high) * (x * x - mpmath.mpf(float(F32(float(j2 * j2)))))
    return (x * x - j1 * j1) * (x * x - j2 * j2)


def targets(name, x, dtype):
    """(values to fit, weights) at mpmath points x > 0."""
    if name in ("P0", "P1"):
        order = int(name[1])
        j = mpmath.besselj(order, x)
        value = j / zero_factor(order, x, dtype) / (x if order else 1)
        return value, 1 / abs(value)
    order = int(name[1])
    j, y = mpmath.besselj(order, x), mpmath.bessely(order, x)
    amplitude = max(abs(y), min(1, mpmath.sqrt(2 / (mpmath.pi * x))))
    if order == 0:
        return y - TWO_OVER_PI * mpmath.log(x) * j, 1 / amplitude
    return (y - TWO_OVER_PI * (j * mpmath.log(x) - 1 / x)) / x, x / amplitude


def fit(name, dtype, count=1500, rounds=120):
    """Coefficients in u, lowest first, each rounded to dtype: Lawson's iteration on mpmath's residuals (the
    weighted least squares of each step in float64, in t = u / 12.5), then each coefficient from the lowest
    rounded and the rest refitted."""
    degree = DEGREES[dtype][name]
    u = chebyshev_points(-CENTER, CENTER, count)
    x = [mpmath.sqrt(mpmath.mpf(float(v)) + CENTER) for v in u]
    x[-1] = mpmath.mpf(2) ** -60  # u = -12.5 is x = 0, where R's weight and J's factor are fine but Y is not
    values, weights = zip(*(targets(name, xi, dtype) for xi in x))
    weight = np.array([float(w) for w in weights])
    t = u / CENTER
    basis = np.vander(t, degree + 1, increasing=True)
    scale = np.array([CENTER ** -k for k in range(degree + 1)])
    mu = [mpmath.mpf(float(v)) for v in u]
    coefficients = [mpmath.mpf(0)] * (degree + 1)
    rounding = F32 if dtype == "float32" else np.float64

    def residual(cs):
        return np.array([float(v - mpmath.polyval(cs[::-1], m)) for v, m in zip(values, mu)])

    def lawson(cs, free, steps):
        mass = np.full(len(u), 1 / len(u))
        error = residual(cs)
        for _ in range(steps):
            root = np.sqrt(mass) * weight
            step = np.linalg.lstsq(basis[:, free:] * root[:, None], error * root, rcond=None)[0]
            cs = cs[:free] + [c + mpmath.mpf(float(s)) * mpmath.mpf(float(k))
                              for c, s, k in zip(cs[free:], step, scale[free:])]
            # the residual that reweights this step is the one the next step solves against
            error = residual(cs)
            weighted = np.abs(error * weight)
            mass = mass * weighted / (mass * weighted).sum()
        return cs

    coefficients = lawson(coefficients, 0, rounds)
    for i in range(degree + 1):
        coefficients[i] = mpmath.mpf(float(rounding(float(coefficients[i]))))
        if i < degree:
            coefficients = lawson(coefficients, i + 1, rounds // 4)
    fitted = np.abs(residual(coefficients) * weight).max()
    return [float(c) for c in coefficients], fitted


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    arguments = parser.parse_args()
    for name in ("P0", "P1", "R0", "R1"):
        coefficients, fitted = fit(name, arguments.dtype)
        print(f"{name} = [{', '.join(repr(c) for c in coefficients)}]  # fit {fitted:.2e}")


if __name__ == "__main__":
    main()
