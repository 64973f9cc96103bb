"""Float32 composites that the CUDA column of the math table calls instead of libdevice where
libdevice's own compiles to many more instructions under Triton, or, where libdevice has none
(digamma, trigamma, i0e, i1e, the K functions), instead of portable_math's float64 composites.

libdevice's erff picks its polynomial's coefficients per element (|x| < 1 or not). Compiled by
Triton, each picked coefficient costs a move and a predicated move per element (ncu: 19.3M
instructions for a 2^24-element bfloat16 gelu, eager's nvcc build of the same erff 15.8M), and
16-bit gelu, which is compute-bound on an H200, ran at 0.9x eager. `f32_erf` evaluates both
polynomials with their coefficients as immediates and selects once: 15.6M instructions, 1.09x
eager (benchmarks/results/experiment_gelu_compute_h200.txt). Its polynomials and steps are
libdevice's own, so it gives erff's results bit for bit (its first form, fitted by
benchmarks/experiments/fit_erf.py, was within 1.2 ulp but 1-2 ulp off erff on 23% of inputs).

Triton 3.6 compiles libdevice's atanf loosely too: bfloat16 atan at 2^24 elements executed 21.2M
instructions on an H200, `f32_atan` (the same method) 15.0M, eager 11.7M; atan went from 0.80x to
0.92-0.95x eager and atan2 from 0.92x to 1.02-1.05x. Fitted at first, f32_erf, f32_atan and
f32_atan2 now take libdevice's own coefficients and steps (CUDA 13's for atan2f), so that their
results are eager's bit for bit, with or without a CUDA toolkit. Composites of sinh, cosh and tanh were
measured too and not taken: as accurate as libdevice's, they were no faster
(benchmarks/experiments/math_composites.py, results/experiment_math_composites_h200.txt).

The code generator copies these functions' source into the generated module as @triton.jit
helpers, as it does the portable ones, so they follow portable_math.py's rules: only `tl.*`,
straight-line code, no module-level names besides `tl`, constants as inline literals, a
one-line docstring, signs flipped by `* -1.0` (tests/helper_rules.py checks them). Unlike
those they take and return float32 blocks, and only CUDA kernels call them.
"""

import triton.language as tl


# f32_erf: CUDA's erff (libdevice's __nv_erff, the same in Triton's libdevice and a CUDA 13
# toolkit's), step for step: the same coefficients, fmas and branch test, so that its results are
# eager's bit for bit. |x| < 1.00296: x + x * p(x^2); else 1 - 2^(-t - t * q(t)) with x's sign,
# t = |x| (ex2.approx, as libdevice's). libdevice picks each coefficient of one polynomial per
# element; here each polynomial has its own, as immediates, and one select picks the result.
# nan stays nan (the first branch: nan >= c is false), +-inf give +-1 (q overflows to +inf,
# 2^-inf = 0), -0.0 stays -0.0.
def f32_erf(x):
    """erf in float32 as CUDA's erff computes it (libdevice's polynomials and steps), coefficients as immediates."""
    s = x * x
    p = tl.math.fma(8.483494457323104e-05, s, -0.0008213091641664505)
    p = tl.math.fma(p, s, 0.005213488824665546)
    p = tl.math.fma(p, s, -0.026868773624300957)
    p = tl.math.fma(p, s, 0.11284004896879196)
    p = tl.math.fma(p, s, -0.37612664699554443)
    p = tl.math.fma(p, s, 0.12837915122509003)
    near_zero = tl.math.fma(p, x, x)
    t = tl.abs(x)
    q = tl.math.fma(0.00011219871521461755, t, -0.0013275252422317863)
    q = tl.math.fma(q, t, 0.00839653518050909)
    q = tl.math.fma(q, t, -0.04024658352136612)
    q = tl.math.fma(q, t, 0.15950430929660797)
    q = tl.math.fma(q, t, 0.9129176735877991)
    q = tl.math.fma(q, t, 0.6290600299835205)
    tail = 1.0 - tl.exp2(tl.math.fma(q, t * -1.0, t * -1.0))
    return tl.where(t >= 1.002959966659546, tl.where(x < 0.0, tail * -1.0, tail), near_zero)


def f32_sin_pi_over(uu):
    """sin(pi u) / u for u in [0, 1/2], given uu = u^2: f32_digamma's fitted polynomial (fit_digamma.py)."""
    s = tl.math.fma(-0.007022163365036249, uu, 0.08204647898674011)
    s = tl.math.fma(s, uu, -0.5992513298988342)
    s = tl.math.fma(s, uu, 2.5501632690429688)
    s = tl.math.fma(s, uu, -5.167712688446045)
    return tl.math.fma(s, uu, 3.1415927410125732)


# f32_digamma (benchmarks/experiments/fit_digamma.py): float32 throughout, as torch's CUDA
# digamma computes it, where the portable composite's float64 ran at 0.16-0.18x eager on an H200
# (float64 divisions, log and sines). psi(1 + t) = (t - t0) r(t) on [0, 1) with t0 = psi's
# positive root less 1 in two float32 parts; the recurrence psi(v) = psi(v - 1) + 1 / (v - 1)
# up to v < 4 (two selects, Triton's float32 `/`); from 4 the asymptotic series, five terms
# (the sixth is 1.3e-9); for x < 0 the reflection psi(x) = psi(1 - x) + pi cot(pi t) with t =
# frac(|x|) exact and cot(pi u) = cospi(u) / sinpi(u) from two fitted polynomials on u in
# [0, 1/2]. Emulated: within 2.6 ulp for x > 0; for x < 0 within 6e-7 of max(|psi|, 1) (next
# to psi's zeros the reflection cancels, as in torch's). psi(+-0) = -+inf, nan at negative
# integers and -inf, +inf at +inf. Each of the three runs only in blocks that have such elements
# (portable_sides_and_any): data from 4 skips the polynomial, positive data the reflection.
def f32_digamma(x):
    """digamma in float32: a fitted polynomial around the root, recurrence below 4, the asymptotic series above, reflection below 0, each only in blocks that have such elements."""
    neg = x < 0.0
    v = tl.where(neg, 1.0 - x, x)
    result = tl.full(x.shape, 0.0, tl.float32)
    some_low, some_high, some_negative = portable_sides_and_any(v < 4.0, neg)
    # |x|'s floor and fraction for the polynomial and the reflection only (data from 4 needs neither), and the
    # edge cases fixed inside the branches that can meet them
    m = tl.abs(x)
    fl = m
    t = m
    if some_low | some_negative:
        fl = tl.math.floor(m)
        t = m - fl
    if some_low:
        g = (t - 0.4616321325302124) - 1.243815006546356e-08
        r = tl.math.fma(0.011118805967271328, t, -0.0719781294465065)
        r = tl.math.fma(r, t, 0.21579532325267792)
        r = tl.math.fma(r, t, -0.4079412519931793)
        r = tl.math.fma(r, t, 0.5679424405097961)
        r = tl.math.fma(r, t, -0.6554930210113525)
        r = tl.math.fma(r, t, 0.6914991140365601)
        r = tl.math.fma(r, t, -0.7137435674667358)
        r = tl.math.fma(r, t, 0.7524198293685913)
        r = tl.math.fma(r, t, -0.8546922206878662)
        r = tl.math.fma(r, t, 1.2503801584243774)
        base = g * r
        # psi(1 + t + n) = psi(1 + t) + sum_{k=1}^{n} 1 / (t + k); n = -1: psi(t) = psi(1 + t) - 1 / t
        n = tl.where(neg, fl, fl - 1.0)
        acc = tl.where(n >= 2.0, 1.0 / (t + 2.0), 0.0) + tl.where(n >= 1.0, 1.0 / (t + 1.0), 0.0)
        result = tl.where(n < 0.0, base - 1.0 / t, base + acc)
        result = tl.where(x == 0.0, -1.0 / x, result)
    if some_high:
        z = 1.0 / (v * v)
        asy = tl.math.fma(0.007575757801532745, z, -0.004166666883975267)
        asy = tl.math.fma(asy, z, 0.003968254197388887)
        asy = tl.math.fma(asy, z, -0.008333333767950535)
        asy = tl.math.fma(asy, z, 0.0833333358168602)
        high = tl.math.log(v) - 0.5 / v - z * asy
        result = tl.where(v < 4.0, result, high)
    if some_negative:
        u = tl.where(t > 0.5, 1.0 - t, t)
        uu = u * u
        s = f32_sin_pi_over(uu)
        c = tl.math.fma(0.0018400214612483978, uu, -0.025776339694857597)
        c = tl.math.fma(c, uu, 0.23532544076442719)
        c = tl.math.fma(c, uu, -1.3352622985839844)
        c = tl.math.fma(c, uu, 4.058712005615234)
        c = tl.math.fma(c, uu, -4.934802055358887)
        c = tl.math.fma(c, uu, 1.0)
        cot = c / (u * s)
        cot = tl.where(t > 0.5, cot * -1.0, cot)
        result = tl.where(neg, result + 3.141592653589793 * cot, result)
        result = tl.where(neg & (t == 0.0), float("nan"), result)
    return result


# f32_trigamma: float32 throughout, as torch's CUDA polygamma(1, x) computes it, but with one division
# for its recurrence where torch's takes six: psi1(v) = sum_k 1 / (v + k)^2 + psi1(w), six unrolled
# steps (portable_math.portable_reciprocal_square_step, dtype-generic selects) bringing w >= 6, the sum
# kept as one fraction (q <= 14400 v^2 where it has steps); the asymptotic series 1/w + 1/(2w^2) +
# sum B_2k / w^(2k+1) to B_8 (the next term is 1e-9 of psi1(6)); for x < 0 the reflection
# psi1(x) = pi^2 / sin^2(pi u) - psi1(1 - x) with u = min(t, 1 - t), t = frac(|x|) exact and
# sin(pi u) = u f32_sin_pi_over(u^2), so that the poles stay sharp where torch's sinf(pi x) is not
# zero (its float32 result at x = -1 is 1.3e15). +inf at +-0 and the negative integers, nan at -inf,
# 0 at +inf.
def f32_trigamma(x):
    """trigamma in float32: six unrolled recurrence steps as one fraction, the asymptotic series from 6, reflection below 0."""
    neg = x < 0.0
    v = tl.where(neg, 1.0 - x, x)
    # the first step from p / q = 0 / 1 (float32 blocks; the step itself is dtype-generic)
    low = v < 6.0
    p = tl.where(low, 1.0, 0.0)
    q = tl.where(low, v * v, 1.0)
    w = tl.where(low, v + 1.0, v)
    p, q, w = portable_reciprocal_square_step(p, q, w, 6.0)
    p, q, w = portable_reciprocal_square_step(p, q, w, 6.0)
    p, q, w = portable_reciprocal_square_step(p, q, w, 6.0)
    p, q, w = portable_reciprocal_square_step(p, q, w, 6.0)
    p, q, w = portable_reciprocal_square_step(p, q, w, 6.0)
    z = 1.0 / w
    zz = z * z
    series = zz * (0.1666666716337204 + zz * (-0.03333333507180214 + zz * (0.02380952425301075 + zz * (
        -0.03333333507180214))))
    r = p / q + (z + (0.5 * zz + series * z))
    m = tl.abs(x)
    t = m - tl.math.floor(m)
    u = tl.where(t > 0.5, 1.0 - t, t)
    uu = u * u
    s = f32_sin_pi_over(uu)
    # its own division, not one fraction with p / q as portable_trigamma's: that took the worst error
    # below zero from 5.3 to 6.1 ulp (the interpreter, 60000 random x in (-12, 0))
    cosecant = 3.1415927410125732 / (u * s)
    r = tl.where(neg, cosecant * cosecant - r, r)
    r = tl.where(neg & (t == 0.0), float("inf"), r)
    return tl.where(x != x, x, r)


# f32_atan, f32_atan2: CUDA's atanf and CUDA 13's atan2f (libdevice's __nv_atanf and the CUDA 13.0
# toolkit's __nv_atan2f; Triton 3.6 bundles an older atan2f), step for step, so that their results
# are eager's bit for bit: atan(u) = u + u s p(s), s = u^2, with libdevice's coefficients, and
# pi/2 and pi as an fma of two float32 factors (0.93318945 * 1.6832556 and twice the first).
# atanf takes u = 1/|x| for |x| > 1 by the approximate reciprocal (rcp.approx.ftz), which
# Triton's float32 `/` of 1.0 (div.full) gives there; atan2f takes u = min/max of |x| and |y|
# rounded to nearest, and its own results for zeros, equal magnitudes (pi/4, 3pi/4) and nans.
def f32_atan(x):
    """atan in float32 as CUDA's atanf computes it: libdevice's polynomial in u = |x| or 1/|x|, from pi/2 above 1."""
    t = tl.abs(x)
    big = t > 1.0
    u = tl.where(big, 1.0 / t, t)
    s = u * u
    p = tl.math.fma(0.0024500289000570774, s, -0.014396979473531246)
    p = tl.math.fma(p, s, 0.03984975069761276)
    p = tl.math.fma(p, s, -0.07252974808216095)
    p = tl.math.fma(p, s, 0.10518480092287064)
    p = tl.math.fma(p, s, -0.1417180299758911)
    p = tl.math.fma(p, s, 0.19988775253295898)
    p = tl.math.fma(p, s, -0.3333294093608856)
    r = tl.math.fma(p * s, u, u)
    r = tl.where(big, tl.math.fma(0.9331894516944885, 1.6832555532455444, r * -1.0), r)
    return tl.where(x.to(tl.int32, bitcast=True) < 0, r * -1.0, r)


def f32_atan2(y, x):
    """atan2 in float32 as CUDA 13's atan2f computes it: libdevice's polynomial in min/max, quadrant steps, special cases."""
    ax = tl.abs(x)
    ay = tl.abs(y)
    swap = ay > ax
    larger = tl.where(swap, ay, ax)
    q = tl.math.div_rn(tl.where(swap, ax, ay), larger)
    s = q * q
    p = tl.math.fma(0.0027380611281841993, s, -0.015681877732276917)
    p = tl.math.fma(p, s, 0.04220075160264969)
    p = tl.math.fma(p, s, -0.07479298114776611)
    p = tl.math.fma(p, s, 0.10640415549278259)
    p = tl.math.fma(p, s, -0.1420772224664688)
    p = tl.math.fma(p, s, 0.19993925094604492)
    p = tl.math.fma(p, s, -0.33333197236061096)
    r = tl.math.fma(p * s, q, q)
    x_negative = x.to(tl.int32, bitcast=True) < 0
    above = tl.math.fma(0.9331894516944885, 1.6832555532455444, tl.where(x_negative, r, r * -1.0))
    below = tl.where(x_negative, tl.math.fma(1.866378903388977, 1.6832555532455444, r * -1.0), r)
    r = tl.where(swap, above, below)
    r = tl.where(ax == ay, tl.where(x_negative, 2.356194496154785, 0.7853981852531433), r)
    r = tl.where(larger == 0.0, tl.where(x_negative, 3.1415927410125732, 0.0), r)
    total = ax + ay
    return tl.where(total == total, tl.where(y.to(tl.int32, bitcast=True) < 0, r * -1.0, r), total)


# f32_hypot: nvcc's hypotf (CUDA 13.0's math headers inline it; torch's ::hypot(float, float) is
# this, not libdevice's __nv_hypotf, whose results differ on 17% of float32 pairs), step for step
# from its PTX: on the bits of |x| and |y| (as int32, so a nan is the larger), the smaller and
# the larger, both scaled by a power of two taken from the larger's exponent bits (masked to a
# multiple of 4), one fma of the squares, sqrt rounded to nearest, and the scale undone. A zero
# smaller gives the larger (exactly), an infinite one inf (hypot(inf, nan) is inf).
def f32_hypot(x, y):
    """hypot in float32 as nvcc's hypotf computes it: scaled by the larger's exponent, one fma of the squares, sqrt_rn."""
    a = tl.abs(x).to(tl.int32, bitcast=True)
    b = tl.abs(y).to(tl.int32, bitcast=True)
    low_bits = tl.minimum(b, a)
    high_bits = tl.maximum(b, a)
    low = low_bits.to(tl.float32, bitcast=True)
    high = high_bits.to(tl.float32, bitcast=True)
    exponent = high_bits & -33554432
    scale = (2122317824 - exponent).to(tl.float32, bitcast=True)
    low_scaled = low * scale
    high_scaled = high * scale
    root = tl.math.sqrt_rn(tl.math.fma(high_scaled, high_scaled, low_scaled * low_scaled))
    result = root * (exponent | 8388608).to(tl.float32, bitcast=True)
    result = tl.where(low == 0.0, high, result)
    return tl.where(low == float("inf"), float("inf"), result)


# f32_i0e and f32_i1e: Cephes' Chebyshev tables (portable_math's Bessel functions) rounded to float32,
# as torch's float32 kernels use them, less the leading coefficients that cannot change a float32
# result: i0e 19 of 30 and 7 of 25, i1e 18 of 29 (torch's float table: 17) and 7 of 25 (torch: 7);
# at 16 terms i0e's [0, 8] series is 7.5 ulp off, i1e's 14. 32/x, the last division and the square
# root are tl.math.div_rn and tl.math.sqrt_rn, correctly rounded as in the interpreter, where Triton
# compiles float32 `/` to div.full.f32 and tl.math.sqrt to sqrt.approx.ftz.f32. There are no f32_i0
# and f32_i1: exp(|x|) in float32 adds ~|x| 2^-24 relative error next to the overflow at 88-92, where
# libdevice's cyl_bessel_i0f and cyl_bessel_i1f are within a few ulp.


# f32_i0e: torch.special.i0e in float32. On [0, 8] the recurrence in Reinsch's form for y = s - 2
# (s = |x|/2 exact): q_i = p_i + p_(i-1) = s p_(i-1) - q_(i-1) + c_i, p_i = q_i - p_(i-1), result
# (s p + c_last) / 2 - q; the plain recurrence (torch's) is off by up to 4.2 ulp next to 0, where
# y = -2 and the p_i alternate with growing magnitudes. 1 at +-0, +0.0 at +-inf, nan at nan.
def f32_i0e(x):
    """exp(-|x|) I0(x) in float32: Cephes' Chebyshev series, Reinsch's recurrence in |x|/2 on [0, 8], Clenshaw in 32/|x| - 2 over sqrt(|x|) above."""
    a = tl.abs(x)
    s = a * 0.5
    q = tl.math.fma(s, 2.6598236946284715e-09, -1.5660074126344625e-08)
    p = q - 2.6598236946284715e-09
    q = tl.math.fma(s, p, 6.046995082442663e-08 - q)
    p = q - p
    q = tl.math.fma(s, p, -2.6707937195169507e-07 - q)
    p = q - p
    q = tl.math.fma(s, p, 1.1173875691383728e-06 - q)
    p = q - p
    q = tl.math.fma(s, p, -4.416738192958292e-06 - q)
    p = q - p
    q = tl.math.fma(s, p, 1.6448448150185868e-05 - q)
    p = q - p
    q = tl.math.fma(s, p, -5.75419508095365e-05 - q)
    p = q - p
    q = tl.math.fma(s, p, 0.0001885028905235231 - q)
    p = q - p
    q = tl.math.fma(s, p, -0.0005763755762018263 - q)
    p = q - p
    q = tl.math.fma(s, p, 0.001639475580304861 - q)
    p = q - p
    q = tl.math.fma(s, p, -0.00432430999353528 - q)
    p = q - p
    q = tl.math.fma(s, p, 0.010546460747718811 - q)
    p = q - p
    q = tl.math.fma(s, p, -0.023737415671348572 - q)
    p = q - p
    q = tl.math.fma(s, p, 0.04930528253316879 - q)
    p = q - p
    q = tl.math.fma(s, p, -0.09490109980106354 - q)
    p = q - p
    q = tl.math.fma(s, p, 0.1716209053993225 - q)
    p = q - p
    q = tl.math.fma(s, p, -0.3046826720237732 - q)
    p = q - p
    small = tl.math.fma(s, p, 0.6767953038215637) * 0.5 - q
    z = tl.math.div_rn(32.0, a) - 2.0
    u = tl.math.fma(z, 3.3962319623270787e-09, 2.266668985839715e-08)
    v = tl.math.fma(z, u, -3.3962319623270787e-09) + 2.0489186169925233e-07
    u = tl.math.fma(z, v, u * -1.0) + 2.891370513680158e-06
    v = tl.math.fma(z, u, v * -1.0) + 6.889758515171707e-05
    u = tl.math.fma(z, v, u * -1.0) + 0.0033691164571791887
    w = tl.math.fma(z, u, v * -1.0) + 0.8044903874397278
    big = 0.5 * (w - v)
    return tl.where(a <= 8.0, small, tl.math.div_rn(big, tl.math.sqrt_rn(a)))


# f32_i1e: torch.special.i1e in float32: Clenshaw as fma(y, b1, -b2) + c (what torch's float32
# kernel compiles to), the [0, 8] series times x itself (keeps -0.0; torch's CPU kernel gives
# +0.0), above the sign flipped for x < 0. Up to ~10 ulp next to x = 8, as torch's: there
# i1e / x = 0.0168 is the cancelling sum of coefficients up to 0.25, whose rounding to float32
# alone costs 5.6 ulp (an exact evaluation of the float32 table). +-0.0 at +-inf, nan at nan.
def f32_i1e(x):
    """exp(-|x|) I1(x) in float32: Cephes' Chebyshev series (Clenshaw, fma) times x in |x|/2 - 2 on [0, 8], in 32/|x| - 2 over sqrt(|x|) above."""
    a = tl.abs(x)
    y = a * 0.5 - 2.0
    u = tl.math.fma(y, -1.887249689858095e-09, 9.381537324770761e-09)
    v = tl.math.fma(y, u, 1.887249689858095e-09) - 4.445059076374491e-08
    u = tl.math.fma(y, v, u * -1.0) + 2.0032948100379144e-07
    v = tl.math.fma(y, u, v * -1.0) - 8.568720204493729e-07
    u = tl.math.fma(y, v, u * -1.0) + 3.4702513858064776e-06
    v = tl.math.fma(y, u, v * -1.0) - 1.3273163858684711e-05
    u = tl.math.fma(y, v, u * -1.0) + 4.781565075973049e-05
    v = tl.math.fma(y, u, v * -1.0) - 0.0001617608213564381
    u = tl.math.fma(y, v, u * -1.0) + 0.0005122859729453921
    v = tl.math.fma(y, u, v * -1.0) - 0.001513572409749031
    u = tl.math.fma(y, v, u * -1.0) + 0.0041564228013157845
    v = tl.math.fma(y, u, v * -1.0) - 0.010564085096120834
    u = tl.math.fma(y, v, u * -1.0) + 0.024726448580622673
    v = tl.math.fma(y, u, v * -1.0) - 0.05294598266482353
    u = tl.math.fma(y, v, u * -1.0) + 0.10264366120100021
    v = tl.math.fma(y, u, v * -1.0) - 0.1764165163040161
    w = tl.math.fma(y, v, u * -1.0) + 0.2525871992111206
    small = 0.5 * (w - u)
    z = tl.math.div_rn(32.0, a) - 2.0
    u = tl.math.fma(z, -3.8353804576729544e-09, -2.631468909441992e-08)
    v = tl.math.fma(z, u, 3.8353804576729544e-09) - 2.5122361080320843e-07
    u = tl.math.fma(z, v, u * -1.0) - 3.882564669765998e-06
    v = tl.math.fma(z, u, v * -1.0) - 0.00011058893869630992
    u = tl.math.fma(z, v, u * -1.0) - 0.009761097840964794
    w = tl.math.fma(z, u, v * -1.0) + 0.7785762548446655
    big = 0.5 * (w - v)
    big = tl.math.div_rn(big, tl.math.sqrt_rn(a))
    return tl.where(a <= 8.0, small * x, tl.where(x < 0.0, big * -1.0, big))


# The Bessel functions of the first and second kinds, orders 0 and 1, in float32, by fma, where the float64
# composites ran float32 J0 at 0.15x eager and Y0 at 0.10x on an H100. Below 5, polynomials in u = x^2 - 12.5
# fitted for float32 (benchmarks/experiments/fit_bessel_jy.py), with no division: J0 = (a - j01)(a + j01)(a^2 - j02^2) P0(u),
# J1 = x (a - j11)(a + j11)(a^2 - j12^2) P1(u), Y0 = R0(u) + (2/pi) ln(x) J0, Y1 = x R1(u) + (2/pi)(J1 ln x - 1/x), where
# Cephes' rationals (torch's) took two polynomials and a correctly rounded division each, and Y J's rational
# too; above 5 Cephes' Hankel expansion (P and Q). What keeps them accurate in float32:
# * the first zero of J0 (J1) below 5 is a factor (a - j)(a + j) with j in two float32 parts, so that
#   (a - j) is exact next to it (Sterbenz) and J keeps its relative accuracy there;
# * u taken about the middle of (0, 25], whose terms cancel little (Cephes' YP about 0 cancelled to 24 eps of
#   the amplitude next to 5 in float32), and by one fma from x;
# * above 5 the phase comes from float32 sin(a) and cos(a) (full range reduction), never from a rounded
#   a - pi/4, whose rounding cost torch's float32 kernels 3.6e6 float32 eps of the envelope sqrt(2/(pi a))
#   between 10 and 1e7, where these are within 6.3-6.7 (benchmarks/results/experiment_bessel_branches_h100.txt).
# Each branch runs only in blocks that have an element on its side (portable_sides, one reduction for
# both tests): where every element of a block is below 5, as in most blocks of data on [-2, 2], the
# block skips the Hankel branch (P, Q, a sine and a cosine), and above 5 the polynomials. Quotients and
# square roots are rounded to nearest (div_rn, sqrt_rn): Triton's float32 `/` and sqrt are approximate.
# Errors, compiled, against the float64 composites: see tests.
def f32_bessel_near0(a, u):
    """J0 on |x| <= 5 in float32, a = |x|, u = a^2 - 12.5: (a - j01)(a + j01)(a^2 - j02^2) P0(u), j01 in two parts (a - j01 exact next to it), P0 of degree 6 (fit_bessel_jy)."""
    p = tl.math.fma(u, 5.869425446022739e-15, -1.5469128799086573e-12)
    p = tl.math.fma(p, u, 2.8090232917499236e-10)
    p = tl.math.fma(p, u, -3.646288604386427e-08)
    p = tl.math.fma(p, u, 3.121162308161729e-06)
    p = tl.math.fma(p, u, -0.0001536869676783681)
    p = tl.math.fma(p, u, 0.0031873558182269335)
    return ((a - 2.404825448989868) - 1.087059047222283e-07) * (a + 2.404825448989868) * tl.math.fma(a, a, -30.471261978149414) * p


def f32_bessel_near1(a, u):
    """J1(x) / x on |x| <= 5 in float32, a = |x|, u = a^2 - 12.5: (a - j11)(a + j11)(a^2 - j12^2) P1(u), j11 in two parts, P1 of degree 6 (fit_bessel_jy)."""
    p = tl.math.fma(u, 2.802710261478312e-16, -9.259472122423798e-14)
    p = tl.math.fma(p, u, 1.8964487966122157e-11)
    p = tl.math.fma(p, u, -2.8238815730219358e-09)
    p = tl.math.fma(p, u, 2.8299845666879264e-07)
    p = tl.math.fma(p, u, -1.6746138499001972e-05)
    p = tl.math.fma(p, u, 0.0004323698813095689)
    return ((a - 3.8317060470581055) + 7.685058989181925e-08) * (a + 3.8317060470581055) * tl.math.fma(a, a, -49.21845626831055) * p


# Cephes' P and Q for the Hankel expansion (portable_bessel_hankel0/1) by fma: half the instructions of
# the float64 helpers' `a * b + c`, which tritonize compiles without contraction
def f32_bessel_hankel0(a):
    """Order 0 above 5 in float32: (P d, w Q d, d) for Cephes' P = PP/PQ and w Q = (5/a) QP/QQ in t = (5/a)^2 over one denominator d = PQ QQ (portable_bessel_hankel0's, by fma)."""
    w = 5.0 / a
    t = w * w
    pp = tl.math.fma(t, 0.0007969367292973471, 0.08283523921074408)
    pp = tl.math.fma(pp, t, 1.239533716464143)
    pp = tl.math.fma(pp, t, 5.447250030587687)
    pp = tl.math.fma(pp, t, 8.74716500199817)
    pp = tl.math.fma(pp, t, 5.303240382353949)
    pp = tl.math.fma(pp, t, 1.0)
    pq = tl.math.fma(t, 0.0009244088105588637, 0.08562884743544745)
    pq = tl.math.fma(pq, t, 1.2535274390105895)
    pq = tl.math.fma(pq, t, 5.470977403304171)
    pq = tl.math.fma(pq, t, 8.761908832370695)
    pq = tl.math.fma(pq, t, 5.306052882353947)
    pq = tl.math.fma(pq, t, 1.0)
    qp = tl.math.fma(t, -0.011366383889846916, -1.2825271867050931)
    qp = tl.math.fma(qp, t, -19.553954425773597)
    qp = tl.math.fma(qp, t, -93.20601521237683)
    qp = tl.math.fma(qp, t, -177.68116798048806)
    qp = tl.math.fma(qp, t, -147.07750515495118)
    qp = tl.math.fma(qp, t, -51.41053267665993)
    qp = tl.math.fma(qp, t, -6.050143506007285)
    qq = tl.math.fma(t + 64.3178256118178, t, 856.4300259769806)
    qq = tl.math.fma(qq, t, 3882.4018360540163)
    qq = tl.math.fma(qq, t, 7240.467741956525)
    qq = tl.math.fma(qq, t, 5930.727011873169)
    qq = tl.math.fma(qq, t, 2062.0933166032783)
    qq = tl.math.fma(qq, t, 242.0057402402914)
    return pp * qq, w * qp * pq, pq * qq


def f32_bessel_hankel1(a):
    """Order 1 above 5 in float32: (P d, w Q d, d) for Cephes' P = PP/PQ and w Q = (5/a) QP/QQ in t = (5/a)^2 over one denominator d = PQ QQ (portable_bessel_hankel1's, by fma)."""
    w = 5.0 / a
    t = w * w
    pp = tl.math.fma(t, 0.0007621256162081731, 0.07313970569409176)
    pp = tl.math.fma(pp, t, 1.1271960812968493)
    pp = tl.math.fma(pp, t, 5.112079511468076)
    pp = tl.math.fma(pp, t, 8.424045901417724)
    pp = tl.math.fma(pp, t, 5.214515986823615)
    pp = tl.math.fma(pp, t, 1.0)
    pq = tl.math.fma(t, 0.0005713231280725487, 0.06884559087544954)
    pq = tl.math.fma(pq, t, 1.105142326340617)
    pq = tl.math.fma(pq, t, 5.073863861286015)
    pq = tl.math.fma(pq, t, 8.399855543276042)
    pq = tl.math.fma(pq, t, 5.209828486823619)
    pq = tl.math.fma(pq, t, 1.0)
    qp = tl.math.fma(t, 0.05108625947501766, 4.982138729512334)
    qp = tl.math.fma(qp, t, 75.82382841325453)
    qp = tl.math.fma(qp, t, 366.7796093601508)
    qp = tl.math.fma(qp, t, 710.8563049989261)
    qp = tl.math.fma(qp, t, 597.4896124006136)
    qp = tl.math.fma(qp, t, 211.68875710057213)
    qp = tl.math.fma(qp, t, 25.207020585802372)
    qq = tl.math.fma(t + 74.23732770356752, t, 1056.4488603826283)
    qq = tl.math.fma(qq, t, 4986.410583376536)
    qq = tl.math.fma(qq, t, 9562.318924047562)
    qq = tl.math.fma(qq, t, 7997.041604473507)
    qq = tl.math.fma(qq, t, 2826.1927851763908)
    qq = tl.math.fma(qq, t, 336.0936078106983)
    return pp * qq, w * qp * pq, pq * qq


# f32_sincos: the Hankel branches' sine and cosine of one argument from one reduction, libdevice's sinf and
# cosf step for step (read from their SASS for sm_90: q = rint(a 2/pi), a - q pi/2 in three fmas, its sine or
# cosine polynomial by q's low bit, negated by its next; cosf's q is sinf's plus 1), so bit for bit theirs below
# 105615, where their Payne-Hanek reduction starts. Two calls held its code (and its local array) beside the
# branch: float32 J0 took 64 registers, 39 with the trigonometry taken out (sass_counts, Triton 3.9's ptxas), so
# the callers take tl.math.sin and cos only in blocks with an argument from 105615 (or an infinity), and in
# every block where tl.math.fma rounds twice (f32_fma_rounds_apart), where q pi/2 would be off by half its ulp.
def f32_fma_rounds_apart(a):
    """Does tl.math.fma round the product apart (Triton 3.6's interpreter does), as a block of a's shape: fma(c, c, -(c c)) is c c's rounding error, 2^-46 for c = 1 + 2^-23, and 0 after two roundings."""
    c = tl.full(a.shape, 1.0000001192092896, tl.float32)
    return tl.math.fma(c, c, (c * c) * -1.0) == 0.0


def f32_sincos(a):
    """sin a and cos a in float32 for |a| < 105615: q = rint(a 2/pi) by adding 1.5 * 2^23, r = a - q pi/2 in three fmas, libdevice's sinf and cosf polynomials of r chosen and signed by q."""
    shifted = a * 0.6366197466850281 + 12582912.0
    q = shifted - 12582912.0
    quadrant = shifted.to(tl.int32, bitcast=True)
    r = tl.math.fma(q, -1.570796251296997, a)
    r = tl.math.fma(q, -7.549789415861596e-08, r)
    r = tl.math.fma(q, -5.390302953474238e-15, r)
    r2 = r * r
    sine = tl.math.fma(r2, -0.00019574658654164523, 0.00833270326256752)
    sine = tl.math.fma(r2, sine, -0.16666662693023682)
    sine = tl.math.fma(tl.math.fma(r2, r, 0.0), sine, r)
    cosine = tl.math.fma(r2, 2.4279579520225525e-05, -0.0013887860113754869)
    cosine = tl.math.fma(r2, cosine, 0.041666727513074875)
    cosine = tl.math.fma(r2, cosine, -0.4999999701976776)
    cosine = tl.math.fma(r2, cosine, 1.0)
    odd = (quadrant & 1) != 0
    s = tl.where(odd, cosine, sine)
    c = tl.where(odd, sine, cosine)
    # libdevice negates as fma(v, -1, 0): a zero comes out +0
    s = tl.where((quadrant & 2) != 0, tl.math.fma(s, -1.0, 0.0), s)
    c = tl.where(((quadrant + 1) & 2) != 0, tl.math.fma(c, -1.0, 0.0), c)
    return s, c


def f32_hankel_sides(a, near):
    """portable_huge_sides's with the huge elements, from 105615 (or where tl.math.fma rounds twice), where f32_sincos stops."""
    huge = (a >= 105615.0) | f32_fma_rounds_apart(a)
    some_near, some_far, huge_s, huge_c = portable_huge_sides(a, near, huge)
    return some_near, some_far, huge, huge_s, huge_c


def f32_hankel_sincos(a, huge, huge_s, huge_c):
    """sin a and cos a for the Hankel branch: f32_sincos's, and f32_hankel_sides's where huge."""
    s, c = f32_sincos(a)
    return tl.where(huge, huge_s, s), tl.where(huge, huge_c, c)


# f32_bessel_j0: even, 1 at +-0, nan at nan, 0.0 at +-inf (as portable_bessel_j0)
def f32_bessel_j0(x):
    """J0 in float32: f32_bessel_near0 to |x| = 5, above (P (cos a + sin a) - w Q (sin a - cos a)) / sqrt(pi a) (f32_bessel_hankel0), each branch in blocks that have such elements."""
    a = tl.abs(x)
    near = a <= 5.0
    r = tl.full(x.shape, 0.0, tl.float32)
    some_near, some_far, huge, huge_s, huge_c = f32_hankel_sides(a, near)
    if some_near:
        r = f32_bessel_near0(a, tl.math.fma(a, a, -12.5))
        # 1 - x^2/4 below 0.02, where the next term is under a quarter of an ulp: exactly 1 at 0
        r = tl.where(a < 0.02, 1.0 - a * a * 0.25, r)
    if some_far:
        p, q, d = f32_bessel_hankel0(a)
        s, c = f32_hankel_sincos(a, huge, huge_s, huge_c)
        big = tl.math.div_rn(p * (c + s) - q * (s - c), d * tl.math.sqrt_rn(a) * 1.7724539041519165)
        r = tl.where(near, r, big)
    return tl.where(a == float("inf"), 0.0, r)


# f32_bessel_j1: odd (x times the series to 5, which keeps -0.0), +-0.0 at +-inf, nan at nan
def f32_bessel_j1(x):
    """J1 in float32: x times f32_bessel_near1 to |x| = 5, above (P (sin a - cos a) + w Q (sin a + cos a)) / sqrt(pi a) with x's sign (f32_bessel_hankel1), each branch in blocks that have such elements."""
    a = tl.abs(x)
    near = a <= 5.0
    r = tl.full(x.shape, 0.0, tl.float32)
    some_near, some_far, huge, huge_s, huge_c = f32_hankel_sides(a, near)
    if some_near:
        r = x * f32_bessel_near1(a, tl.math.fma(a, a, -12.5))
        # x (1/2 - x^2/16) below 0.01, where the next term is 5e-11 of it: x/2 rounded once (the polynomials'
        # J1(x) / x is an ulp from 1/2 at 0, which rounds the smallest subnormal's half up)
        r = tl.where(a < 0.01, x * (0.5 - a * a * 0.0625), r)
    if some_far:
        p, q, d = f32_bessel_hankel1(a)
        s, c = f32_hankel_sincos(a, huge, huge_s, huge_c)
        # x's sign before the division, not after it (the same bits): after, ptxas held 46 registers, not 40
        big = p * (s - c) + q * (s + c)
        big = tl.math.div_rn(tl.where(x < 0.0, big * -1.0, big), d * tl.math.sqrt_rn(a) * 1.7724539041519165)
        r = tl.where(near, r, big)
    # x's sign on a zero, made at run time: Triton 3.6 keeps one constant per value, and -0.0 == 0.0
    zero = tl.where(x < 0.0, -1.0, 1.0) * 0.0
    return tl.where(a == float("inf"), zero, r)


# f32_log: ln x for Y0 and Y1 below 5, libdevice's logf step for step (read from its sm_90 SASS), so bit for bit
# its value, without its cases for 0, infinities and nan, which the callers select anyway: x = 2^k m with
# m in [2/3, 4/3) from the bits (subnormal x scaled by 2^23 first), f = m - 1 exact, ln m = f + f^2 P(f),
# then k ln 2 added. tl.math.log runs those cases' 5 instructions an element and scaled subnormals itself
# (3 more); f32_bessel_y0 below 5 is bound by its instructions (sass_counts).
def f32_log(x):
    """ln x in float32 for finite x > 0 (subnormals too), libdevice's logf without its special cases: f = m - 1 for x = 2^k m, m in [2/3, 4/3), ln x = k ln 2 + f + f^2 P(f)."""
    tiny = x < 1.1754943508222875e-38
    bits = tl.where(tiny, x * 8388608.0, x).to(tl.int32, bitcast=True)
    # k in the exponent field of bits - bits(2/3), which leaves m's bits in [2/3, 4/3)
    exponent = (bits - 1059760811) & -8388608
    f = (bits - exponent).to(tl.float32, bitcast=True) - 1.0
    k = tl.math.fma(exponent.to(tl.float32), 1.1920928955078125e-07, tl.where(tiny, -23.0, 0.0))
    p = tl.math.fma(f, -0.13018856942653656, 0.1408461034297943)
    p = tl.math.fma(f, p, -0.12148627638816833)
    p = tl.math.fma(f, p, 0.1398061066865921)
    p = tl.math.fma(f, p, -0.16684235632419586)
    p = tl.math.fma(f, p, 0.20012299716472626)
    p = tl.math.fma(f, p, -0.24999669194221497)
    p = tl.math.fma(f, p, 0.333331823348999)
    p = tl.math.fma(f, p, -0.5)
    return tl.math.fma(k, 0.6931471824645996, tl.math.fma(f, f * p, f))


# f32_bessel_y0: -inf at +-0, nan below 0 and at nan, 0.0 at +inf (as portable_bessel_y0)
def f32_bessel_y0(x):
    """Y0 in float32: R0(u) + (2/pi) ln(x) J0(x) to 5 (J0 from f32_bessel_near0, R0 of degree 8 in u = x^2 - 12.5: fit_bessel_jy), above (P (sin x - cos x) + w Q (cos x + sin x)) / sqrt(pi x) (f32_bessel_hankel0), each branch in blocks that have such elements."""
    near = x <= 5.0
    r = tl.full(x.shape, 0.0, tl.float32)
    some_near, some_far, huge, huge_s, huge_c = f32_hankel_sides(x, near)
    if some_near:
        u = tl.math.fma(x, x, -12.5)
        y = tl.math.fma(u, -1.0593476847142215e-14, 2.734965032225034e-12)
        y = tl.math.fma(y, u, -4.729487357302276e-10)
        y = tl.math.fma(y, u, 5.7786849083640845e-08)
        y = tl.math.fma(y, u, -4.5676952140638605e-06)
        y = tl.math.fma(y, u, 0.00019892040290869772)
        y = tl.math.fma(y, u, -0.003011689754202962)
        y = tl.math.fma(y, u, -0.034612465649843216)
        y = tl.math.fma(y, u, 0.4837248623371124)
        # ln |x|, not ln x: x < 0 is nan below whichever, and a finite value keeps its arithmetic off nans
        r = tl.math.fma(0.6366197723675814 * f32_log(tl.abs(x)), f32_bessel_near0(x, u), y)
        # the special values below 5 in this branch, those above in the other: a block skips the other's compares
        r = tl.where(x < 0.0, float("nan"), r)
        r = tl.where(x == 0.0, float("-inf"), r)
    if some_far:
        p, q, d = f32_bessel_hankel0(x)
        s, c = f32_hankel_sincos(x, huge, huge_s, huge_c)
        big = tl.math.div_rn(p * (s - c) + q * (c + s), d * tl.math.sqrt_rn(x) * 1.7724539041519165)
        r = tl.where(near, r, big)
    return tl.where(x == float("inf"), 0.0, r)


# f32_bessel_y1: -inf at +-0 and where -2 / (pi x) overflows (x < 1.9e-39), nan below 0 and at nan, 0.0 at +inf
def f32_bessel_y1(x):
    """Y1 in float32: x R1(u) + (2/pi) (J1(x) ln(x) - 1/x) to 5 (J1 from f32_bessel_near1, R1 of degree 7 in u = x^2 - 12.5: fit_bessel_jy), above (w Q (sin x - cos x) - P (sin x + cos x)) / sqrt(pi x) (f32_bessel_hankel1), each branch in blocks that have such elements."""
    near = x <= 5.0
    r = tl.full(x.shape, 0.0, tl.float32)
    some_near, some_far, huge, huge_s, huge_c = f32_hankel_sides(x, near)
    if some_near:
        u = tl.math.fma(x, x, -12.5)
        y = tl.math.fma(u, 1.7800714515684574e-13, -3.722685007478965e-11)
        y = tl.math.fma(y, u, 5.469338759667153e-09)
        y = tl.math.fma(y, u, -5.502232056642242e-07)
        y = tl.math.fma(y, u, 3.396959800738841e-05)
        y = tl.math.fma(y, u, -0.0010439695324748755)
        y = tl.math.fma(y, u, 0.007286920677870512)
        y = tl.math.fma(y, u, 0.13974939286708832)
        j1_log = x * f32_bessel_near1(x, u) * f32_log(tl.abs(x))
        # 2 / (pi x) as rough = Triton's `/` (div.full, 2 ulp) and one Newton step on its residual e, rough + e (pi/2)
        # rough (finite wherever rough is), within half an ulp: a div_rn here, whose slow path is a call, took the kernel from
        # 40 registers to 61 (Triton 3.6's ptxas); inf where it overflows (x < 1.87e-39), which the step makes nan
        rough = 0.6366197723675814 / x
        inverse = tl.math.fma(tl.math.fma(rough, x * -1.0, 0.6366197723675814) * 1.5707963267948966, rough, rough)
        inverse = tl.where(rough == float("inf"), rough, inverse)
        r = tl.math.fma(x, y, 0.6366197723675814 * j1_log - inverse)
        r = tl.where(x < 0.0, float("nan"), r)
        r = tl.where(x == 0.0, float("-inf"), r)
    if some_far:
        p, q, d = f32_bessel_hankel1(x)
        s, c = f32_hankel_sincos(x, huge, huge_s, huge_c)
        big = tl.math.div_rn(q * (s - c) - p * (s + c), d * tl.math.sqrt_rn(x) * 1.7724539041519165)
        r = tl.where(near, r, big)
    return tl.where(x == float("inf"), 0.0, r)


# The modified Bessel functions of the second kind, K0 and K1, and their scaled forms exp(x) K(x)
# (torch.special.modified_bessel_k0, _k1, scaled_modified_bessel_k0, _k1), float32 throughout, where the
# portable composites' float64 ran at 0.36-0.51x eager on an H100. Not Cephes' method (torch's, portable_k0
# ...), which splits at x = 2: from x ~ 0.5 to 2 its K0 = c - ln(x/2) I0(x) and K1 = ln(x/2) I1(x) + c/x cancel
# 2-3.5x (c = -0.46 against K0 = 0.42 at x = 1), and its c, a Chebyshev sum whose terms reach 0.5, would need
# its last Clenshaw steps and ln(x/2) in float64 for a float32 result within a few ulp (torch's float32
# kernels: 7-13 ulp off there). Instead (as Boost does) the split is at x = 1: on (0, 1] the power series
# K0 = P(q) - ln(x) I0(q) and K1 = 1/x + x (ln(x) S(q) / 2 - R(q)), q = x^2/4, whose four series have only
# positive terms (K0's two parts share a sign up to x = 1; K1's cancel at most 2.3x, at 1); above, exp(-x)
# g(1/x) / sqrt(x) with g a polynomial fitted on [1, inf) (benchmarks/experiments/fit_bessel_k.py, which also
# gives the series' coefficients). ln x, exp(-x), 1/sqrt(x) are this file's own float32 reductions (f32_k_log,
# f32_k_exp, f32_k_rsqrt: Triton's tl.exp is ex2.approx, its float32 log not certain to be libdevice's, rsqrt
# and float32 `/` approximate); 1/x is tl.math.div_rn, correctly rounded. No float64, and no conversions to or
# from it (16 a clock per SM on an H100, the CUDA guide says, against 128 float32 operations): compiled for
# sm_90 on the CPU (8 elements a thread), ~150 SASS instructions an element and 48-56 registers, where the
# float64 composites are ~500 with ~210 float64 ones (and Cephes' split with the float64 steps above, sketched,
# 225 with 50).


# f32_k_log: ln x for x > 0 as high + low, FreeBSD's logf (e_logf.c) in straight-line code: x = 2^k m with
# m in [sqrt(1/2), sqrt(2)) from the bits (subnormal x scaled by 2^23 first), f = m - 1 exact, and
# ln m = f - f^2/2 + s (f^2/2 + R(s^2)), s = f / (2 + f); high = k ln2_hi (17 bits: exact for |k| < 128)
# is left unsummed, so that the callers add it last. s only scales the small correction (at most 5% of
# ln m), so Triton's float32 `/` (div.full, 2 ulp) serves. Within 0.78 ulp of ln x summed.
def f32_k_log(x):
    """ln x = high + low for x > 0 in float32 (subnormals too): x = 2^k m, high = k ln2_hi, low = ln m + k ln2_lo with ln m = f - f^2/2 + s (f^2/2 + R(s^2)), f = m - 1, s = f / (2 + f)."""
    tiny = x < 1.1754943508222875e-38
    bits = tl.where(tiny, x * 8388608.0, x).to(tl.int32, bitcast=True) + 4913933
    # k as a float32 without a conversion instruction: k + 1.5 * 2^23 has k in its low bits
    k = ((bits >> 23) + tl.where(tiny, 1262485354, 1262485377)).to(tl.float32, bitcast=True) - 12582912.0
    f = ((bits & 8388607) + 1060439283).to(tl.float32, bitcast=True) - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    r = z * tl.math.fma(w, 0.2849878668785095, 0.6666666269302368) + w * tl.math.fma(w, 0.24279078841209412,
                                                                                    0.40000972151756287)
    half_square = 0.5 * f * f
    return k * 0.6931381225585938, f - (half_square - tl.math.fma(s, half_square + r, k * 9.05800061445916e-06))


# f32_k_exp: e^v = (1 + p) 2^k for v in [-120, 1]: k = round(v / ln 2) by the 1.5 * 2^23 shift (its bits
# give k as an int32), r = v - k ln 2 as r1 = v - k L1 (L1 of 16 bits: k L1 and r1 exact, without fma) and
# c = -k (ln 2 - L1) (|c| < 2.5e-4), p = e^r - 1 = r1 + (c + r^2 Q(r)), Q to r^5/7!. Exact in every
# rounding Triton's interpreters and CUDA can differ on (the fmas are plain Horner steps); 1 + p within
# 0.38 ulp of e^r (0.88 with the rounding of 1 + p, which f32_k_large leaves out).
def f32_k_exp(v):
    """e^v = (1 + p) 2^k for v in [-120, 1] in float32: Cody and Waite's r = v - k ln 2 in two parts, p = r1 + (c + r^2 Q(r)) to degree 7; returns (p, k as int32)."""
    shifted = v * 1.4426950408889634 + 12582912.0
    kf = shifted - 12582912.0
    r1 = v - kf * 0.693145751953125
    c = kf * -1.4286068203094316e-06
    r = r1 + c
    q = tl.math.fma(r, 0.0001984127011382952, 0.0013888889225199819)
    q = tl.math.fma(q, r, 0.008333333767950535)
    q = tl.math.fma(q, r, 0.0416666679084301)
    q = tl.math.fma(q, r, 0.1666666716337204)
    q = tl.math.fma(q, r, 0.5)
    return r1 + tl.math.fma(r * r, q, c), shifted.to(tl.int32, bitcast=True) - 1262485504


def f32_k_scale(m, k):
    """m 2^k for int32 k in [-252, 254] in float32: two exact steps, so that only a subnormal result rounds (once)."""
    k1 = k >> 1
    return m * ((k1 + 127) << 23).to(tl.float32, bitcast=True) * ((k - k1 + 127) << 23).to(tl.float32, bitcast=True)


# f32_k_rsqrt: 1/sqrt(x) = y (1 + e/2) to float32's precision, y = tl.math.rsqrt(x) (rsqrt.approx compiled,
# 1/np.sqrt in the interpreter) and e = 1 - x y^2 from x y = high + low (fma): a Newton step its callers fold
# into their last product, within 0.5 ulp where y (1 + e/2) is rounded alone.
def f32_k_rsqrt(x):
    """(y, e) with 1/sqrt(x) = y (1 + e/2) to float32's precision: y = rsqrt(x), e = 1 - x y^2 formed exactly (fma)."""
    y = tl.math.rsqrt(x)
    high = x * y
    low = tl.math.fma(x, y, high * -1.0)
    return y, tl.math.fma(low * -1.0, y, tl.math.fma(high * -1.0, y, 1.0))


# f32_k0_small: K0 on (0, 1] as P(q) - ln(x) I0(q) = P - low (1 + q J) - high, the parts of ln x apart
# (f32_k_log) so that the largest, k ln2_hi, is added last, and P's step in q taking q's rounding error
# (x^2 = square + fma residual). q underflows below x ~ 2e-19, where K0 = P0 - ln x (ln x exact there).
def f32_k0_small(x):
    """K0(x) on (0, 1] in float32: P(q) - ln(x) I0(q), q = x^2/4 (with its rounding error, for P), both power series of positive terms."""
    high, low = f32_k_log(x)
    square = x * x
    q = square * 0.25
    p = tl.math.fma(q, 4.949713456881e-06, 0.00016661561676301062)
    p = tl.math.fma(p, q, 0.0038181680720299482)
    p = tl.math.fma(p, q, 0.05414624512195587)
    p = tl.math.fma(p, q, 0.40398287773132324)
    p = tl.math.fma(p, q, 1.115931510925293)
    p = tl.math.fma(p, q, tl.math.fma(p, tl.math.fma(x, x, square * -1.0) * 0.25, 0.11593151837587357))
    j = tl.math.fma(q, 6.944444612599909e-05, 0.0017361111240461469)
    j = tl.math.fma(j, q, 0.02777777798473835)
    j = tl.math.fma(j, q, 0.25)
    j = tl.math.fma(j, q, 1.0)
    return tl.math.fma((high + low) * -1.0, q * j, p - low) - high


# f32_k1_small: K1 on (0, 1] as 1/x + x (ln(x) S(q) / 2 - R(q)), 1/x as r = div_rn(1, x) plus its residual
# (1 - x r) r (fma), added to the rest, which is at most 0.4 of 1/x, before r. Wrong (nan, or the residual
# of an infinite r) for x <= 2^-128, where K1 overflows and the callers select +inf.
def f32_k1_small(x, r):
    """K1(x) on (0, 1] in float32 given r = 1/x rounded: 1/x + x (ln(x) S(q) / 2 - R(q)), q = x^2/4, both power series of positive terms, 1/x as r plus its exact residual."""
    high, low = f32_k_log(x)
    q = x * x * 0.25
    s = tl.math.fma(q, 1.1574074051168282e-05, 0.00034722223062999547)
    s = tl.math.fma(s, q, 0.0069444444961845875)
    s = tl.math.fma(s, q, 0.0833333358168602)
    s = tl.math.fma(s, q, 0.5)
    s = tl.math.fma(s, q, 1.0)
    a = tl.math.fma(q, 1.4366887626238167e-05, 0.00039917792310006917)
    a = tl.math.fma(a, q, 0.007202308624982834)
    a = tl.math.fma(a, q, 0.0742749273777008)
    a = tl.math.fma(a, q, 0.34148287773132324)
    a = tl.math.fma(a, q, 0.3079657554626465)
    t = tl.math.fma((high + low) * 0.5, s, a * -1.0)
    return r + tl.math.fma(x, t, tl.math.fma(x * -1.0, r, 1.0) * r)


# f32_k0_tail, f32_k1_tail: exp(x) sqrt(x) K(x) = sqrt(pi/2) + u Q(u) on [1, inf), u = 1/x, Q of degree 9
# fitted for the relative error (5.3e-9 and 5.5e-9; fit_bessel_k.py), each coefficient rounded to float32
# with the others refitted around it; as one float32 Horner sum within 0.61 and 0.73 ulp.
def f32_k0_tail(u):
    """(exp(x) sqrt(x) K0(x) - sqrt(pi/2)) / u for x >= 1 in float32, u = 1/x: a fitted polynomial of degree 9 in u (fit_bessel_k.py)."""
    g = tl.math.fma(u, 0.010253832675516605, -0.05926130712032318)
    g = tl.math.fma(g, u, 0.1522214412689209)
    g = tl.math.fma(g, u, -0.23200836777687073)
    g = tl.math.fma(g, u, 0.23945707082748413)
    g = tl.math.fma(g, u, -0.18642817437648773)
    g = tl.math.fma(g, u, 0.12594617903232574)
    g = tl.math.fma(g, u, -0.0904252752661705)
    g = tl.math.fma(g, u, 0.08805665373802185)
    return tl.math.fma(g, u, -0.15666310489177704)


def f32_k1_tail(u):
    """(exp(x) sqrt(x) K1(x) - sqrt(pi/2)) / u for x >= 1 in float32, u = 1/x: a fitted polynomial of degree 9 in u (fit_bessel_k.py)."""
    g = tl.math.fma(u, -0.012994018383324146, 0.07467077672481537)
    g = tl.math.fma(g, u, -0.19081860780715942)
    g = tl.math.fma(g, u, 0.2898213267326355)
    g = tl.math.fma(g, u, -0.29930660128593445)
    g = tl.math.fma(g, u, 0.23541462421417236)
    g = tl.math.fma(g, u, -0.16411752998828888)
    g = tl.math.fma(g, u, 0.1269766092300415)
    g = tl.math.fma(g, u, -0.146798774600029)
    return tl.math.fma(g, u, 0.469991534948349)


# f32_k_large: g (1 + p) / sqrt(x) for g = sqrt(pi/2) + u Q with two roundings: S = sqrt(pi/2) + (u Q +
# g h), h = (1 + p)(1 + e/2) - 1 folding f32_k_exp's p and f32_k_rsqrt's Newton step in, then y S.
def f32_k_large(x, u, q, p):
    """exp(x) K(x) (1 + p) for x > 1 in float32, given q = f32_k0_tail(u) or f32_k1_tail(u), u = 1/x: y (sqrt(pi/2) + (u q + g h)), y = rsqrt(x), h = (1 + p)(1 + e/2) - 1 with e y's residual."""
    y, e = f32_k_rsqrt(x)
    h = tl.math.fma(0.5 * e, p + 1.0, p)
    return y * (1.2533141374588013 + tl.math.fma(u, q, tl.math.fma(u, q, 1.2533141374588013) * h))


# f32_k0, f32_k0e: torch.special.modified_bessel_k0 and scaled_modified_bessel_k0 in float32: f32_k0_small on
# (0, 1] (times exp(x), (1 + p) 2^k, for k0e), f32_k_large above (with exp(-x) for k0: 2^k applied last in two
# exact steps, so K0 rounds once into the subnormals from x ~ 85.3 and underflows to 0 from ~101.9 as the
# float64 composite's result rounded to float32 does). Against torch's float64 (tests/test_float32_math.py's
# bessel_k_inputs: (0, 120] and every decade down to the smallest subnormal; the interpreter of Triton 3.9, whose
# fma rounds once as CUDA's): k0 within 2.15 ulp (2.35 in Triton 3.6's interpreter, whose fma rounds the product
# apart), mean 0.36; k0e 1.91 (2.07), mean 0.36. torch's float32 kernels on the same points: k0 11.0 ulp, k0e
# 13.1 on normal x (its log(0.5 x) rounds x/2 below them: 3.8e4 ulp off at 4.2e-45, +inf at 1.4e-45). Tiny x:
# K0 ~ -ln(x/2) - gamma, 103.39 at the smallest subnormal. +inf at +-0, +0.0 at +inf, nan below 0 (-0.0 is
# 0), at -inf and at nan.
def f32_k0(x):
    """K0(x) in float32: P(q) - ln(x) I0(q) on (0, 1], exp(-x) g(1/x) / sqrt(x) above (g fitted), exp(-x) as (1 + p) 2^k applied last."""
    small = f32_k0_small(x)
    u = tl.math.div_rn(1.0, x)
    p, k = f32_k_exp(tl.where(x < 120.0, x, 120.0) * -1.0)
    big = f32_k_scale(f32_k_large(x, u, f32_k0_tail(u), p), k)
    r = tl.where(x <= 1.0, small, tl.where(x == float("inf"), 0.0, big))
    return tl.where(x < 0.0, float("nan"), tl.where(x == 0.0, float("inf"), r))


def f32_k0e(x):
    """exp(x) K0(x) in float32: f32_k0_small times exp(x) on (0, 1], g(1/x) / sqrt(x) above (g fitted)."""
    p, k = f32_k_exp(tl.where(x < 1.0, x, 1.0))
    small = f32_k0_small(x)
    small = f32_k_scale(tl.math.fma(small, p, small), k)
    u = tl.math.div_rn(1.0, x)
    r = tl.where(x <= 1.0, small, tl.where(x == float("inf"), 0.0, f32_k_large(x, u, f32_k0_tail(u), u * 0.0)))
    return tl.where(x < 0.0, float("nan"), tl.where(x == 0.0, float("inf"), r))


# f32_k1, f32_k1e: torch.special.modified_bessel_k1 and scaled_modified_bessel_k1 in float32, as f32_k0 and
# f32_k0e with f32_k1_small and f32_k1_tail. Against torch's float64, as f32_k0's: k1 within 2.11 ulp (2.24 in
# Triton 3.6's interpreter), mean 0.35; k1e 2.14 (3.23: its 1/x residual lost there), mean 0.36; torch's float32
# kernels: k1 7.2 ulp, k1e 5.5. K1 ~ 1/x overflows for x <= 2^-128 (2.9387e-39, a subnormal), as the float64
# composite's result rounded to float32 does: +inf there and at +-0; +0.0 at +inf, nan below 0, at -inf and at nan.
def f32_k1(x):
    """K1(x) in float32: 1/x + x (ln(x) S(q) / 2 - R(q)) on (0, 1], exp(-x) g(1/x) / sqrt(x) above (g fitted), exp(-x) as (1 + p) 2^k applied last."""
    u = tl.math.div_rn(1.0, x)
    small = f32_k1_small(x, u)
    p, k = f32_k_exp(tl.where(x < 120.0, x, 120.0) * -1.0)
    big = f32_k_scale(f32_k_large(x, u, f32_k1_tail(u), p), k)
    r = tl.where(x <= 1.0, small, tl.where(x == float("inf"), 0.0, big))
    return tl.where(x < 0.0, float("nan"), tl.where(x <= 2.938735877055719e-39, float("inf"), r))


def f32_k1e(x):
    """exp(x) K1(x) in float32: f32_k1_small times exp(x) on (0, 1], g(1/x) / sqrt(x) above (g fitted)."""
    u = tl.math.div_rn(1.0, x)
    p, k = f32_k_exp(tl.where(x < 1.0, x, 1.0))
    small = f32_k1_small(x, u)
    small = f32_k_scale(tl.math.fma(small, p, small), k)
    r = tl.where(x <= 1.0, small, tl.where(x == float("inf"), 0.0, f32_k_large(x, u, f32_k1_tail(u), u * 0.0)))
    return tl.where(x < 0.0, float("nan"), tl.where(x <= 2.938735877055719e-39, float("inf"), r))
