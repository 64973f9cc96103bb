"""The first coefficients of passes/float32_math.f32_erf (since replaced by libdevice's erff's own,
whose results are eager's bit for bit): minimax fits by Lawson's iteration
(iteratively reweighted least squares) in float64, then the whole float32 evaluation emulated
in numpy (fma rounded once) against float64 erf. CPU only, numpy and the math module.

    python -m benchmarks.experiments.fit_erf

|x| < 1:  erf(x) = x + x * p(x^2), p of degree 6, weighted for erf's relative error.
|x| >= 1: erf(t) = 1 - 2^(-t (1 + q(t))) on [1, 4], q of degree 5, weighted by how an error
          in q moves erf (erfc(t) ln2 t / erf(t)); erf(4) rounds to 1 in float32.
"""
import math

import numpy as np

erf = np.vectorize(math.erf)
erfc = np.vectorize(math.erfc)


def lawson(points, target, weight, degree, rounds=200):
    """Coefficients, lowest first, of the polynomial that minimizes max |weight * error|."""
    return lawson_on(np.vander(points, degree + 1, increasing=True), target, weight, rounds)


def lawson_on(basis, target, weight, rounds=200):
    """Coefficients on the columns of `basis` that minimize max |weight * error| (Lawson's iteration)."""
    mass = np.full(len(target), 1 / len(target))
    for _ in range(rounds):
        root = np.sqrt(mass) * weight
        coefficients = np.linalg.lstsq(basis * root[:, None], target * root, rcond=None)[0]
        error = np.abs((basis @ coefficients - target) * weight)
        mass = mass * error / (mass * error).sum()
    return coefficients


def chebyshev_points(low, high, count=20000):
    return (np.cos(np.linspace(0, np.pi, count)) + 1) * (high - low) / 2 + low


def near_zero_fit():
    s = chebyshev_points(0.0, 1.0)[:-1]  # s = x^2 > 0
    x = np.sqrt(s)
    return lawson(s, erf(x) / x - 1, x / erf(x), 6)


def tail_fit():
    t = chebyshev_points(1.0, 4.0)
    return lawson(t, -np.log2(erfc(t)) / t - 1, erfc(t) * math.log(2) * t / erf(t), 5)


def fma(a, b, c):
    """A float32 fma: the product and sum exact in float64, rounded once to float32."""
    return (np.float64(a) * np.float64(b) + np.float64(c)).astype(np.float32)


def horner(coefficients, u):
    """The polynomial (coefficients lowest first) at float32 `u`, one float32 fma a step."""
    value = np.full_like(u, np.float32(coefficients[-1]))
    for c in coefficients[-2::-1]:
        value = fma(value, u, np.full_like(u, np.float32(c)))
    return value


def float32_erf(x, p, q):
    """f32_erf's arithmetic in float32, each fma rounded once."""
    f32 = np.float32
    near_zero = fma(horner(p, (x * x).astype(f32)), x, x)
    t = np.minimum(np.abs(x), f32(4.0))
    tail = (f32(1) - np.exp2(fma(horner(q, t), -t, -t).astype(np.float64)).astype(f32)).astype(f32)
    return np.where(np.abs(x) >= 1, np.where(x < 0, -tail, tail), near_zero)


def main():
    p, q = near_zero_fit(), tail_fit()
    print("p, highest first:", [float(np.float32(c)) for c in p[::-1]])
    print("q, highest first:", [float(np.float32(c)) for c in q[::-1]])
    x = np.concatenate([np.linspace(-6, 6, 2_000_001, dtype=np.float32),
                        np.geomspace(1e-30, 6, 500_000).astype(np.float32)])
    x = np.concatenate([x, -x])
    exact = erf(x.astype(np.float64))
    ulps = np.abs(float32_erf(x, p, q) - exact) / np.spacing(np.abs(exact).astype(np.float32))
    print(f"float32 evaluation: max error {ulps.max():.3f} ulp at x = {x[ulps.argmax()]}, mean {ulps.mean():.3f}")


if __name__ == "__main__":
    main()
