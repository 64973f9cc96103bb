"""The first coefficients of passes/float32_math.py's f32_atan / f32_atan2 (since replaced by
libdevice's own atanf and atan2f coefficients and steps, eager's results bit for bit), and of math_composites.py's
sinh, cosh and asinh candidates (measured, not taken): minimax fits
(fit_erf.lawson) in float64, then each composite's float32 arithmetic emulated in numpy (every
fma rounded once, exact division) against float64. CPU only.

    python -m benchmarks.experiments.fit_float32

sinh, |x| < 2:   x + x s p(s), s = x^2, p of degree 4, weighted for sinh's relative error.
2^f, |f| <= 1/2: a polynomial of degree 6 (the 1 and ln 2 it ends with come out of the fit).
atan, |t| <= 1:  t + t s p(s), p of degree 7.
log m = 2 atanh(s) = 2s + s z Q(z), z = s^2 <= (3 - 2 sqrt(2))^2 = 0.0295: Q of degree 2.
"""
import math

import numpy as np

from benchmarks.experiments.fit_erf import chebyshev_points, fma, horner, lawson

f32 = np.float32
LOG2E = f32(math.log2(math.e))
LOG2E_LOW = f32(math.log2(math.e) - float(LOG2E))


def odd_fit(function, high, degree):
    """p of function(x) = x + x s p(s) on [0, high], minimizing the relative error."""
    s = chebyshev_points(0.0, high * high)[:-1]
    x = np.sqrt(s)
    value = function(x)
    return lawson(s, (value / x - 1) / s, x * s / value, degree)


def exp2_fit():
    f = chebyshev_points(-0.5, 0.5)
    return lawson(f, np.exp2(f), 1 / np.exp2(f), 6)


def log_fit():
    """Q of log m = 2s + s z Q(z), and the largest error it leaves, relative to log m."""
    z = chebyshev_points(1e-12, (3 - 2 * math.sqrt(2)) ** 2)
    s = np.sqrt(z)
    log_m = 2 * np.arctanh(s)
    q = lawson(z, (log_m - 2 * s) / (s * z), s * z / log_m, 2)
    return q, np.abs((np.polynomial.polynomial.polyval(z, q) * s * z + 2 * s - log_m) / log_m).max()


def odd(p, x):
    s = (x * x).astype(f32)
    return fma((horner(p, s) * s).astype(f32), x, x)


def exp_eighth(q, a):
    """math_composites.py's f32_exp_eighth: e^a / 8 = 2^f 2^(j - 3)."""
    h = (a * LOG2E).astype(f32)
    lo = fma(a, LOG2E_LOW, fma(a, LOG2E, -h))
    j = np.floor(h + f32(0.5)).astype(f32)
    f = ((h - j) + lo).astype(f32)
    return (horner(q, f) * np.exp2(j.astype(np.float64) - 3).astype(f32)).astype(f32)


def sinh(p, q, x):
    a = np.minimum(np.abs(x), f32(90))
    e = exp_eighth(q, a)
    far = fma(e, f32(4), -(f32(0.0625) / e).astype(f32))
    return np.where(a < 2, odd(p, x), np.copysign(far, x))


def cosh(q, x):
    e = exp_eighth(q, np.minimum(np.abs(x), f32(90)))
    return fma(e, f32(4), (f32(0.0625) / e).astype(f32))


def atan(p, x):
    big = np.abs(x) > 1
    t = np.where(big, (f32(1) / x).astype(f32), x)
    r = odd(p, t)
    half_pi = np.where(x < 0, f32(-math.pi / 2), f32(math.pi / 2))
    return np.where(big, fma(half_pi, f32(-2.7827534417466256e-08), (half_pi - r).astype(f32)), r)


def report(name, got, exact, x):
    finite = np.isfinite(exact.astype(f32))
    error = np.abs(got[finite] - exact[finite]) / np.spacing(np.abs(exact[finite]).astype(f32))
    print(f"{name}: float32 evaluation within {error.max():.3f} ulp (at x = {x[finite][error.argmax()]}), "
          f"mean {error.mean():.3f}")


def main():
    with np.errstate(over="ignore", divide="ignore"):
        p_sinh, q_exp2, p_atan = odd_fit(np.sinh, 2.0, 4), exp2_fit(), odd_fit(np.arctan, 1.0, 7)
        for name, c in [("sinh p", p_sinh), ("2^f", q_exp2), ("atan p", p_atan)]:
            print(f"{name}, highest first:", [float(f32(v)) for v in c[::-1]])
        x = np.concatenate([np.linspace(0, 95, 2_000_001, dtype=f32), np.linspace(0, 4, 1_000_001, dtype=f32),
                            np.geomspace(1e-30, 1, 200_000).astype(f32)])
        x = np.concatenate([x, -x])
        report("sinh", sinh(p_sinh, q_exp2, x), np.sinh(x.astype(np.float64)), x)
        report("cosh", cosh(q_exp2, x), np.cosh(x.astype(np.float64)), x)
        t = np.concatenate([np.linspace(0, 10, 2_000_001, dtype=f32), np.geomspace(1e-30, 1e30, 200_000).astype(f32)])
        t = np.concatenate([t, -t])
        report("atan", atan(p_atan, t), np.arctan(t.astype(np.float64)), t)
        q_log, error = log_fit()
        print("log Q, highest first:", [float(f32(v)) for v in q_log[::-1]], f"(within {error:.1e} of log m)")


if __name__ == "__main__":
    main()
