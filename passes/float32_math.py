"""Float32 composites that the CUDA column of the math table calls instead of libdevice where
libdevice's own compiles to many more instructions under Triton.

libdevice's erff picks its polynomial's coefficients per element (|x| < 1 or not). Compiled by
Triton, each picked coefficient costs a move and a predicated move per element (ncu: 19.3M
instructions for a 2^24-element bfloat16 gelu, eager's nvcc build of the same erff 15.8M), and
16-bit gelu, which is compute-bound on an H200, ran at 0.9x eager. `f32_erf` evaluates both
polynomials with their coefficients as immediates and selects once: 15.6M instructions, 1.09x
eager (benchmarks/results/experiment_gelu_compute_h200.txt).

The code generator copies these functions' source into the generated module as @triton.jit
helpers, as it does the portable ones, so they follow portable_math.py's rules: only `tl.*`,
straight-line code, no module-level names besides `tl`, constants as inline literals, a
one-line docstring, signs flipped by `* -1.0` (tests/helper_rules.py checks them). Unlike
those they take and return float32 blocks, and only CUDA kernels call them.
"""

import triton.language as tl


# f32_erf: |x| < 1: x + x * p(x^2). Else 1 - 2^(-t * (1 + q(t))) with x's sign, t = min(|x|, 4)
# (erf(4) rounds to 1). p and q are minimax fits (benchmarks/experiments/fit_erf.py), 0.99 ulp
# before rounding in ex2.approx, with each step one fma (kernels compile without fma
# contraction, so it is spelled out). nan stays nan (the first branch), +-inf give +-1, -0.0
# stays -0.0.
def f32_erf(x):
    """erf in float32 from two minimax polynomials and one select, within 1.2 ulp (libdevice's erff: 2)."""
    s = x * x
    p = tl.math.fma(7.853860006434843e-05, s, -0.0008010193123482168)
    p = tl.math.fma(p, s, 0.005188327748328447)
    p = tl.math.fma(p, s, -0.026853810995817184)
    p = tl.math.fma(p, s, 0.1128358542919159)
    p = tl.math.fma(p, s, -0.3761262595653534)
    p = tl.math.fma(p, s, 0.12837916612625122)
    near_zero = tl.math.fma(p, x, x)
    t = tl.minimum(tl.abs(x), 4.0)
    q = tl.math.fma(-0.00030389297171495855, t, 0.004597784485667944)
    q = tl.math.fma(q, t, -0.032891206443309784)
    q = tl.math.fma(q, t, 0.15165050327777863)
    q = tl.math.fma(q, t, 0.9173109531402588)
    q = tl.math.fma(q, t, 0.6280525326728821)
    tail = 1.0 - tl.exp2(tl.math.fma(q, t * -1.0, t * -1.0))
    return tl.where(tl.abs(x) >= 1.0, tl.where(x < 0.0, tail * -1.0, tail), near_zero)
