"""The coefficients of passes/float32_math.f32_digamma: minimax fits by Lawson's iteration
(fit_erf.lawson) in float64 against mpmath, then the whole float32 evaluation emulated in numpy
(each fma rounded once, divisions correctly rounded) against float64 digamma. CPU only.

    python -m benchmarks.experiments.fit_digamma

[1, 2):  psi(1 + t) = (t - t0) * r(t), t in [0, 1), t0 = 0.4616... (psi's positive root less 1),
         r of degree R_DEGREE, weighted for psi's relative error.
x < 0:   psi(x) = psi(1 - x) + pi cot(pi t) (t = frac(|x|)), cot(pi u) = cospi(u) / sinpi(u) with
         u = min(t, 1 - t) in [0, 1/2]: sinpi(u) = u * s(u^2), cospi(u) = c(u^2).
"""
import math

import mpmath
import numpy as np

from benchmarks.experiments.fit_erf import chebyshev_points, fma, horner, lawson

R_DEGREE, SIN_DEGREE, COS_DEGREE = 10, 5, 6
ROOT = float(mpmath.findroot(mpmath.digamma, 1.4616321449683622))
T0_HIGH = np.float32(ROOT - 1.0)
T0_LOW = np.float32(ROOT - 1.0 - np.float64(T0_HIGH))
# psi(v) ~ log v - 1/(2v) - sum B_2k / (2k v^2k), k = 1..5: from v >= 4 the sixth term is 1.3e-9
ASYMPTOTIC = [1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132]
digamma64 = np.vectorize(lambda v: float(mpmath.digamma(v)))


def root_fit():
    t = chebyshev_points(0.0, 1.0)
    t = t[np.abs(t - (ROOT - 1.0)) > 1e-6]
    ratio = digamma64(1.0 + t) / (t - (ROOT - 1.0))
    return lawson(t, ratio, 1 / np.abs(ratio), R_DEGREE)


def sinpi_fit():
    s = chebyshev_points(0.0, 0.25)[:-1]  # s = u^2 > 0
    u = np.sqrt(s)
    target = np.sin(np.pi * u) / u
    return lawson(s, target, 1 / target, SIN_DEGREE)


def cospi_fit():
    s = chebyshev_points(0.0, 0.25)
    target = np.cos(np.pi * np.sqrt(s))
    # absolute error: where cospi nears 0 (u -> 1/2), pi cot(pi u) adds nearly nothing to psi
    return lawson(s, target, np.ones_like(s), COS_DEGREE)


F32 = np.float32


def float32_digamma(x, r, s, c):
    """f32_digamma's arithmetic in float32 (numpy's float32 division is correctly rounded; the
    GPU's `/` is within 2 ulp)."""
    with np.errstate(all="ignore"):
        x = x.astype(F32)
        neg = x < 0
        m = np.abs(x)
        fl = np.floor(m)
        t = (m - fl).astype(F32)
        g = ((t - T0_HIGH).astype(F32) - T0_LOW).astype(F32)
        base = (g * horner(r, t)).astype(F32)
        n = np.where(neg, fl, fl - F32(1))
        one = F32(1)
        acc = np.where(n >= 2, one / (t + F32(2)), F32(0)) + np.where(n >= 1, one / (t + one), F32(0))
        low = np.where(n < 0, base - one / t, base + acc.astype(F32)).astype(F32)
        v = np.where(neg, one - x, x).astype(F32)
        z = (one / (v * v)).astype(F32)
        asy = (z * horner(ASYMPTOTIC, z)).astype(F32)
        high = (np.log(v).astype(F32) - F32(0.5) / v - asy).astype(F32)
        result = np.where(v < 4, low, high).astype(F32)
        u = np.where(t > 0.5, one - t, t).astype(F32)
        uu = (u * u).astype(F32)
        cot = (horner(c, uu) / (u * horner(s, uu)).astype(F32)).astype(F32)
        cot = np.where(t > 0.5, -cot, cot)
        result = np.where(neg, result + F32(math.pi) * cot, result)
        result = np.where(neg & (t == 0), F32(np.nan), result)
        result = np.where(x == 0, F32(-1) / x, result)
    return result.astype(F32)


def report(name, coefficients):
    print(f"{name} = [{', '.join(repr(float(F32(c))) for c in coefficients)}]")


def main():
    r, s, c = root_fit(), sinpi_fit(), cospi_fit()
    print(f"root {ROOT!r}: t0 = {float(T0_HIGH)!r} + {float(T0_LOW)!r}")
    report("r", r)
    report("s", s)
    report("c", c)
    rng = np.random.default_rng(0)
    positive = np.concatenate([chebyshev_points(1e-3, 12.0, 40000), rng.uniform(0, 100, 20000),
                               np.exp(rng.uniform(-80, 80, 20000))]).astype(F32)
    negative = -rng.uniform(0, 12, 40000).astype(F32)
    for label, x in (("x > 0", positive), ("x < 0", negative)):
        exact = digamma64(x.astype(np.float64))
        got = float32_digamma(x, r, s, c).astype(np.float64)
        spacing = np.spacing(np.abs(exact).astype(F32)).astype(np.float64)
        ulps = np.abs(got - exact) / spacing
        scale = np.maximum(np.abs(exact), 1.0)  # absolute error where psi is small
        print(f"{label}: worst {ulps.max():.2f} ulp at x = {x[ulps.argmax()]!r} (mean {ulps.mean():.3f}); "
              f"worst |error| / max(|psi|, 1) {(np.abs(got - exact) / scale).max():.2e}")


if __name__ == "__main__":
    main()
