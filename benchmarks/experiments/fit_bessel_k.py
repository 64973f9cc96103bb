"""The coefficients of passes/float32_math.py's f32_k0, f32_k1, f32_k0e and f32_k1e: the power series of
K0 and K1 on (0, 1] (exact, from mpmath), and minimax fits by Lawson's iteration (fit_erf.lawson, here on any
basis) of exp(x) sqrt(x) K(x) above 1 as polynomials in u = 1/x, each coefficient rounded to float32 in turn
(lowest first) and the rest refitted around it; then each polynomial's float32 Horner evaluation (each fma
rounded once) emulated in numpy against mpmath. CPU only (mpmath: about a minute).

    python -m benchmarks.experiments.fit_bessel_k

(0, 1]:  K0(x) = P(q) - ln(x) I0(q), q = x^2/4 (Abramowitz and Stegun 9.6.13 with ln(x/2) = ln x - ln 2):
         P = sum_k (H_k + ln 2 - gamma) q^k / (k!)^2 and I0 = sum_k q^k / (k!)^2, positive terms both;
         K1(x) = 1/x + x (ln(x) S(q) / 2 - R(q)) (A&S 9.6.11): S = sum_k q^k / (k! (k+1)!), R = sum_k
         (psi(k+1) + psi(k+2) + 2 ln 2) q^k / (4 k! (k+1)!), positive terms both. Terms to q^6 (P), q^5.
[1, inf): exp(x) sqrt(x) K(x) = sqrt(pi/2) + u Q(u), Q of degree DEGREE - 1, weighted for the relative error,
         sqrt(pi/2) rounded to float32 (it is the limit at u = 0 of both).

Cephes' tables (torch's) split at x = 2 instead: there K0 = c - ln(x/2) I0 and K1 = ln(x/2) I1 + c/x cancel
(2-3.5x from x ~ 0.5 to 2: c = -0.46 against K0 = 0.42 at 1), which costs float32 several ulp (torch's float32
kernels: 7-13) unless c's last Clenshaw steps and ln(x/2) run in float64 (K0 on (0, 2] emulated so: within 0.6
ulp; sketched in Triton and compiled for sm_90: 225 SASS instructions an element, 50 of them float64, against
f32_k0's ~150 with none).
"""
import math

import mpmath
import numpy as np

from benchmarks.experiments.fit_erf import chebyshev_points, horner, lawson_on

mpmath.mp.dps = 30
DEGREE = 10
F32 = np.float32
ROOT_HALF_PI = float(F32(math.sqrt(math.pi / 2)))


def scaled(order, u):
    """exp(x) sqrt(x) K_order(x) at x = 1/u (sqrt(pi/2) at u = 0), from mpmath."""
    values = []
    for v in u:
        x = 1 / mpmath.mpf(float(v)) if v > 0 else None
        values.append(float(mpmath.besselk(order, x) * mpmath.exp(x) * mpmath.sqrt(x)) if x else math.sqrt(math.pi / 2))
    return np.array(values)


def tail_fit(order):
    """Coefficients, lowest first, of sqrt(pi/2) + u Q(u), each a float32 (sqrt(pi/2) rounded; each next
    one rounded after refitting those above it around the ones already rounded)."""
    u = chebyshev_points(0.0, 1.0, 3000)
    target = scaled(order, u)
    basis = np.vander(u, DEGREE + 1, increasing=True)
    fixed = [ROOT_HALF_PI]
    for i in range(1, DEGREE + 1):
        rest = lawson_on(basis[:, i:], target - basis[:, :i] @ np.array(fixed), 1 / target, rounds=300)
        fixed.append(float(F32(rest[0])))
    return fixed


def series():
    """The power series' coefficients on (0, 1], lowest first."""
    gamma, ln2 = mpmath.euler, mpmath.log(2)

    def harmonic(n):
        return sum(mpmath.mpf(1) / j for j in range(1, n + 1))

    def fac(n):
        return mpmath.factorial(n)

    p = [(harmonic(k) + ln2 - gamma) / fac(k) ** 2 for k in range(7)]
    i0 = [1 / fac(k) ** 2 for k in range(6)]
    s = [1 / (fac(k) * fac(k + 1)) for k in range(6)]
    r = [(harmonic(k) + harmonic(k + 1) - 2 * gamma + 2 * ln2) / (4 * fac(k) * fac(k + 1)) for k in range(6)]
    return {"P": p, "I0": i0, "S": s, "R": r}


def main():
    for name, coefficients in series().items():
        print(f"{name} = [{', '.join(repr(float(F32(float(c)))) for c in coefficients)}]")
    check = np.concatenate([np.linspace(0, 1, 20001), np.geomspace(1e-9, 1, 1000)]).astype(F32)
    for order in (0, 1):
        coefficients = tail_fit(order)
        print(f"Q{order} = [{', '.join(repr(c) for c in coefficients[1:])}]")
        exact = scaled(order, check.astype(np.float64))
        got = horner(coefficients, check).astype(np.float64)  # fma steps, the last adding sqrt(pi/2)
        ulps = np.abs(got - exact) / np.spacing(exact.astype(F32)).astype(np.float64)
        relative = np.abs(np.polynomial.polynomial.polyval(check.astype(np.float64), coefficients) - exact) / exact
        print(f"  exp(x) sqrt(x) K{order}: fit {relative.max():.2e} relative; float32 Horner within "
              f"{ulps.max():.3f} ulp (mean {ulps.mean():.3f})")


if __name__ == "__main__":
    main()
