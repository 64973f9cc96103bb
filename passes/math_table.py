"""The one table that maps `math.*` and `tritonize.math.*` calls to Triton: a libdevice column and
a portable column. The passes spell every call `math.NAME`, whichever module it came from.

Templates are parsed once and the arguments spliced in as AST (`a`, `b` are the placeholders).
The CUDA column runs in the compute dtype (float32 or float64). The portable column is what
Triton's interpreter can run (it patches only `tl` and `tl.math`; libdevice calls return
nothing there): it computes in float64 and the caller rounds once, so float32 results stay
within an ulp; its `portable_*` helpers live in `portable_math.py` and are copied into the
generated module. `kind` says how argument and result dtypes are chosen:

- "float": arguments promote to a float dtype, the result has it
- "bool":  arguments promote to a float dtype, the result is bool (isnan, ...)
- "same":  integer arguments pass through unchanged (floor, ceil, trunc of an int)
- "ldexp": first argument float, second integer

`float32` (rows where libdevice's float32 function compiles badly under Triton): the CUDA
template for float32 work instead, a composite of `float32_math.py`, copied into the module too.

`fast` (float32 work on CUDA only): a faster, inexact template (Triton's `tl.exp`, ex2.approx
of x * log2(e): up to 64 ulp off near |x| = 88, where libdevice's expf is 1.9) that a kernel
uses only where dsl/approximations.py has run it on every input the kernel can see and found
its results equal to the exact template's, bit for bit.

`portable_narrow`: the portable template where the result narrows from float64 to float32 or
16 bits (fma: rounded to odd in float64, so that the narrowing rounds once, as fma does).

`costly` marks the rows that are many instructions per element (libdevice's exp, erf, sin, ...)
rather than one or two (fabs, floor, comparisons): what `call.launch_shape` asks of a kernel.
"""
from __future__ import annotations

import ast
import builtins
import math
from typing import NamedTuple

import tritonize.math as tritonize_math

from tritonize.passes.ast_tools import is_math_call, math_name


class MathFn(NamedTuple):
    arity: int
    kind: str
    cuda: str
    portable: str
    costly: bool
    float32: str | None
    fast: str | None
    portable_narrow: str | None


def _f(arity, cuda, portable, kind="float", costly=True, float32=None, fast=None, portable_narrow=None):
    return MathFn(arity, kind, cuda, portable, costly, float32, fast, portable_narrow)


MATH_TABLE: dict[str, MathFn] = {
    "exp": _f(1, "libdevice.exp(a)", "tl.exp(a)", fast="tl.exp(a)"),
    "exp2": _f(1, "libdevice.exp2(a)", "tl.exp2(a)"),
    "expm1": _f(1, "libdevice.expm1(a)", "portable_expm1(a)"),
    "log": _f(1, "libdevice.log(a)", "tl.log(a)"),
    "log2": _f(1, "libdevice.log2(a)", "tl.log2(a)"),
    "log10": _f(1, "libdevice.log10(a)", "portable_log10(a)"),
    "log1p": _f(1, "libdevice.log1p(a)", "portable_log1p(a)"),
    # sqrt rounded to nearest, as Python's and torch's: libdevice's sqrtf is sqrt.approx (1 ulp off
    # on 17% of float32 inputs) unless nvcc's -prec-sqrt, which Triton does not pass, asks otherwise
    "sqrt": _f(1, "libdevice.sqrt_rn(a)", "tl.sqrt(a)"),
    "cbrt": _f(1, "libdevice.cbrt(a)", "portable_cbrt(a)"),
    "sin": _f(1, "libdevice.sin(a)", "tl.sin(a)"),
    "cos": _f(1, "libdevice.cos(a)", "tl.cos(a)"),
    "tan": _f(1, "libdevice.tan(a)", "portable_tan(a)"),
    "asin": _f(1, "libdevice.asin(a)", "portable_asin(a)"),
    "acos": _f(1, "libdevice.acos(a)", "portable_acos(a)"),
    "atan": _f(1, "libdevice.atan(a)", "portable_atan(a)", float32="f32_atan(a)"),
    "atan2": _f(2, "libdevice.atan2(a, b)", "portable_atan2(a, b)", float32="f32_atan2(a, b)"),
    "sinh": _f(1, "libdevice.sinh(a)", "portable_sinh(a)"),
    "cosh": _f(1, "libdevice.cosh(a)", "portable_cosh(a)"),
    "tanh": _f(1, "libdevice.tanh(a)", "portable_tanh(a)"),
    "asinh": _f(1, "libdevice.asinh(a)", "portable_asinh(a)"),
    "acosh": _f(1, "libdevice.acosh(a)", "portable_acosh(a)"),
    "atanh": _f(1, "libdevice.atanh(a)", "portable_atanh(a)"),
    "erf": _f(1, "libdevice.erf(a)", "tl.math.erf(a)", float32="f32_erf(a)"),
    "erfc": _f(1, "libdevice.erfc(a)", "portable_erfc(a)"),
    "lgamma": _f(1, "libdevice.lgamma(a)", "portable_lgamma(a)"),
    # not in Python's math: tritonize.math's (dsl/math.py)
    "erfinv": _f(1, "libdevice.erfinv(a)", "portable_erfinv(a)"),
    "erfcx": _f(1, "libdevice.erfcx(a)", "portable_erfcx(a)"),
    "ndtri": _f(1, "libdevice.normcdfinv(a)", "portable_ndtri(a)"),
    # torch.special's modified Bessel functions: libdevice's own I0 and I1; the scaled forms, which it
    # lacks, composites (Cephes' Chebyshev series) in float64 and float32
    "i0": _f(1, "libdevice.cyl_bessel_i0(a)", "portable_i0(a)"),
    "i1": _f(1, "libdevice.cyl_bessel_i1(a)", "portable_i1(a)"),
    "i0e": _f(1, "portable_i0e(a)", "portable_i0e(a)", float32="f32_i0e(a)"),
    "i1e": _f(1, "portable_i1e(a)", "portable_i1e(a)", float32="f32_i1e(a)"),
    # torch.special's Bessel functions of the first and second kinds: Cephes' rationals in float64 on CUDA too
    # (libdevice's j0, j1, y0 and y1: 5e-12 absolute from |x| = 8, the CUDA guide says); float32 work on CUDA
    # takes float32 composites of the same method (float32_math.f32_bessel_j0 ...), within 9 float32 eps of
    # max(|f|, sqrt(2 / (pi |x|))) (J 7.1) and J within 7.4 ulp to |x| = 5, where torch's float32 Cephes is
    # 17-112 eps of the amplitude off below 400 and loses the phase above (x - pi/4 rounded to float32: 3.6e6
    # eps of the amplitude between 10 and 1e7). The portable column computes in float64 and rounds once, within
    # half a float32 ulp and a few float64 ones. (torch has no 16-bit kernels of these.)
    "bessel_j0": _f(1, "portable_bessel_j0(a)", "portable_bessel_j0(a)", float32="f32_bessel_j0(a)"),
    "bessel_j1": _f(1, "portable_bessel_j1(a)", "portable_bessel_j1(a)", float32="f32_bessel_j1(a)"),
    "bessel_y0": _f(1, "portable_bessel_y0(a)", "portable_bessel_y0(a)", float32="f32_bessel_y0(a)"),
    "bessel_y1": _f(1, "portable_bessel_y1(a)", "portable_bessel_y1(a)", float32="f32_bessel_y1(a)"),
    # the modified Bessel functions of the second kind, which libdevice lacks: float64 composites (torch's
    # Cephes tables) on both columns, for float64 work and the interpreter. float32 work on CUDA takes float32
    # composites (float32_math.f32_k0 ...: power series with ln x on (0, 1], a fitted polynomial in 1/x times
    # exp(-x) / sqrt(x) above, no float64; ~150 SASS instructions an element against the float64 ones' ~500):
    # within 2.2 ulp where torch's float32 kernels are up to 13 ulp off. float32 work ran the float64 composites
    # before, within an ulp, at 0.36-0.51x eager on an H100 (float64 at half float32's rate)
    "modified_bessel_k0": _f(1, "portable_k0(a)", "portable_k0(a)", float32="f32_k0(a)"),
    "modified_bessel_k1": _f(1, "portable_k1(a)", "portable_k1(a)", float32="f32_k1(a)"),
    "scaled_modified_bessel_k0": _f(1, "portable_k0e(a)", "portable_k0e(a)", float32="f32_k0e(a)"),
    "scaled_modified_bessel_k1": _f(1, "portable_k1e(a)", "portable_k1e(a)", float32="f32_k1e(a)"),
    # torch.special.airy_ai: a float64 composite (Cephes' approximations) on both columns too
    "airy_ai": _f(1, "portable_airy_ai(a)", "portable_airy_ai(a)"),
    # CUDA's rsqrtf, which torch.rsqrt calls (within 2 ulp); the portable column divides in float64
    "rsqrt": _f(1, "libdevice.rsqrt(a)", "1.0 / tl.sqrt(a)"),
    # also the derivative of lgamma; libdevice has none, so CUDA runs the portable composite too
    # (compiled as a @triton.jit helper, in float64), but float32 work its own float32 composite
    "digamma": _f(1, "portable_digamma(a)", "portable_digamma(a)", float32="f32_digamma(a)"),
    # digamma's derivative (torch.polygamma(1, x)), with neither in libdevice: the same arrangement
    "trigamma": _f(1, "portable_trigamma(a)", "portable_trigamma(a)", float32="f32_trigamma(a)"),
    "fabs": _f(1, "tl.abs(a)", "tl.abs(a)", costly=False),
    "floor": _f(1, "libdevice.floor(a)", "tl.floor(a)", kind="same", costly=False),
    "ceil": _f(1, "libdevice.ceil(a)", "tl.ceil(a)", kind="same", costly=False),
    "trunc": _f(1, "libdevice.trunc(a)", "portable_trunc(a)", kind="same", costly=False),
    # Python's builtin round(x): to nearest, ties to even, as torch.round (one instruction, rint)
    "round": _f(1, "libdevice.rint(a)", "portable_round_half_even(a)", kind="same", costly=False),
    "copysign": _f(2, "libdevice.copysign(a, b)", "portable_copysign(a, b)", costly=False),
    # tritonize.math.fma: one rounding (what torch's contracted `a + alpha * b` computes)
    "fma": _f(3, "tl.fma(a, b, c)", "portable_fma(a, b, c)", costly=False,
              portable_narrow="portable_fma_to_odd(a, b, c)"),
    "fmod": _f(2, "libdevice.fmod(a, b)", "portable_fmod(a, b)"),
    # nvcc's hypotf, which torch's CUDA kernel calls, is inlined code, not libdevice's __nv_hypotf
    "hypot": _f(2, "libdevice.hypot(a, b)", "portable_hypot(a, b)", float32="f32_hypot(a, b)"),
    "pow": _f(2, "libdevice.pow(a, b)", "portable_pow(a, b)"),
    "nextafter": _f(2, "libdevice.nextafter(a, b)", "portable_nextafter(a, b)"),
    "degrees": _f(1, "a * 57.29577951308232", "a * 57.29577951308232", costly=False),
    "radians": _f(1, "a * 0.017453292519943295", "a * 0.017453292519943295", costly=False),
    # exact comparisons: the same on both columns
    "isnan": _f(1, "a != a", "a != a", kind="bool", costly=False),
    "isinf": _f(1, "tl.abs(a) == float('inf')", "tl.abs(a) == float('inf')", kind="bool", costly=False),
    "isfinite": _f(1, "tl.abs(a) < float('inf')", "tl.abs(a) < float('inf')", kind="bool", costly=False),
    "ldexp": _f(2, "libdevice.ldexp(a, b)", "portable_ldexp(a, b)", kind="ldexp"),
}

# A kernel links a CUDA toolkit's libdevice (where there is one) only where that is faster for it:
# it calls a row of TOOLKIT_FASTER and none of TOOLKIT_SLOWER (`**` is pow but by CHEAP_EXPONENTS). On
# an H200, bfloat16 at 2^24, the toolkit's (CUDA 13.0) against Triton 3.6's: sinh 25.4 against
# 29.2 us, asinh 30.1/34.6, pow 54.1/68.9, tanh 21.9/22.5, cosh 20.9/21.7, atan 22.2/28.1, atan2
# 36.6/41.1; acos 26.1/21.7, asin 25.8/22.0, fmod (remainder) 31.1/27.3, ldexp 40.0/38.2; the
# rest within noise (results/experiment_libdevice_h200.txt, experiment_op_library_h200.txt). atan2
# has since taken CUDA 13's steps as a float32 composite (float32_math), faster than either. float64
# sin, cos and tan: 72.3, 71.7 and 70.7 us against Triton's 78.8, 78.9 and 77.8 (eager 71.9, 72.0, 70.6;
# the same results), where float32 and bfloat16 sin ran the same with either (experiment_float64_h200.txt).
TOOLKIT_FASTER = {"sinh", "cosh", "tanh", "asinh", "pow", "atan", "sin", "cos", "tan"}
TOOLKIT_SLOWER = {"acos", "asin", "fmod", "ldexp"}


# Rows whose kernels, where they have a float32 tensor, link a CUDA toolkit's libdevice, whose
# functions give eager's results bit for bit, at the copy's speed there as Triton's do (within 2% on
# an H200). Triton's asinf, acosf and acoshf (2-3 ulp off on 11-41%) are faster only in all-16-bit
# kernels, which keep them (benchmarks/results/experiment_eager_bits.txt, experiment_libdevice_h200.txt).
# erf needs no toolkit: its float32 composite is erff's own steps (float32_math.f32_erf).
EAGER_EXACT_IN_FLOAT32 = {"asin", "acos", "acosh"}


def prefers_toolkit_libdevice(tree: ast.AST, float32_tensors: bool = False) -> bool:
    """Does this (inlined) function, in a kernel with (or without) a float32 tensor, run faster, or
    as fast and with eager's results, linked with a CUDA toolkit's libdevice?"""
    called = costly_rows(tree)
    if float32_tensors and called & EAGER_EXACT_IN_FLOAT32:
        return True
    return bool(called & TOOLKIT_FASTER) and not called & TOOLKIT_SLOWER


def costly_rows(tree: ast.AST) -> set:
    """The costly rows this (inlined) function calls, "pow" for a `**` that lowers to a pow call."""
    called = {math_name(node) for node in ast.walk(tree) if is_math_call(node) and MATH_TABLE[math_name(node)].costly}
    if any(map(_costly_power, ast.walk(tree))):
        called.add("pow")
    return called


# Rows whose 16-bit kernels run faster with 16 elements a thread than with 8 where a dependent
# launch grows a flat block (call.dependent_block): more math in flight per thread. On an H200,
# bfloat16 unary ops from the op library at 2^24 and 2^26 (dependent launches; blocks of 2048 with 4
# warps against 8): sin, cos, log1p, atanh, gelu (erf), gelu_tanh (tanh), logit (log), selu
# (expm1) and the rest of these 3-15% faster; kernels of exp, exp2, rsqrt, sigmoid, silu, cosh,
# acosh or erfc alone, already near the copy bandwidth, 1-2% slower, and lgamma 16-18% slower
# (benchmarks/results/experiment_wide_threads_h200.txt). exp and exp2 may come along (softplus,
# mish, logsigmoid gained); any other costly call keeps 8 elements a thread.
WIDE_THREAD_ROWS = {"log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "tanh",
                    "asinh", "atanh", "erf", "expm1"}
WIDE_THREAD_COMPANIONS = {"exp", "exp2"}


# Rows whose composites keep many values live per element (each of the Bessel functions' two branches has
# four rational functions and a sine and a cosine): a flat CUDA launch of a kernel that calls one takes
# fewer elements a thread (call.CUDA_HEAVY_BLOCK, and no dependent launch's growth), where eight of them
# spilled registers. On an H200 at 2^24, float32 J0 with blocks of 1024, 512 and 256 (4 warps) took 71.0,
# 64.1 and 62.9 us on [-2, 2] and 147.1, 122.8 and 122.9 on [-30, 30]; float64 J0 151.6, 146.8 and 122.6,
# and 462.6, 299.6 and 245.6 (benchmarks/results/experiment_bessel_branches_h200.txt). airy_ai's composite (float64
# in every dtype, three regions straight-line) spilled at float32's blocks of 1024 (255 registers, 392 B of stack): on
# an H100 at 2^24 on [-2, 8], float32 732.8 -> 555.3 us with blocks of 512 and float64 553.4 -> 429.3 with 256
# (results/experiment_horner_fma_h100.txt).
HEAVY_ROWS = {"bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"}


def calls_heavy_math(tree: ast.AST) -> bool:
    """Does this (inlined) function call a row of HEAVY_ROWS (see call.launch_shape)?"""
    return bool(costly_rows(tree) & HEAVY_ROWS)


# Heavy rows whose composites take their heavy branch per block (portable_sides: the Bessel functions' Hankel
# expansion from 5, of four rational functions, a sine and a cosine), which blocks of small arguments skip. ptxas
# allocates a kernel's registers for its longest path, so that branch still sets the blocks an SM holds where no
# block takes it (float64 J0: 72 registers, 39 without it; results/sass_heavy_branches_sm90.txt).
BRANCHED_HEAVY_ROWS = {"bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1"}
# Those whose flat CUDA launches cap their registers (call.max_registers), where a cap gained below 5 and lost
# little above it on an H100 (results/experiment_register_caps_h100.txt): J0 and J1. With the branch's sine and
# cosine from one reduction (portable_sincos), Y0 and Y1 ran fastest uncapped; at 40 their float64 branch spills.
CAPPED_ROWS = {"bessel_j0", "bessel_j1"}


def caps_registers(tree: ast.AST, rows: set = CAPPED_ROWS) -> bool:
    """Does this (inlined) function call rows of `rows` (CAPPED_ROWS; benchmarks try others) and no other heavy row?"""
    heavy = costly_rows(tree) & HEAVY_ROWS
    return bool(heavy) and heavy <= rows


def gains_from_wide_threads(tree: ast.AST) -> bool:
    """Does this (inlined) function call a row of WIDE_THREAD_ROWS, and no costly math but those
    and WIDE_THREAD_COMPANIONS (see call.dependent_block)?"""
    called = costly_rows(tree)
    return bool(called & WIDE_THREAD_ROWS) and called <= WIDE_THREAD_ROWS | WIDE_THREAD_COMPANIONS


# Rows whose float32 composite gives way to libdevice's own function where a CUDA toolkit's is linked
# (Specialization.toolkit_libdevice): f32_atan takes atanf's steps, eager's results as the toolkit's
# atanf gives them, but its reciprocal is Triton's div.full where atanf's is rcp.approx, and bfloat16
# atan at 2^24 took 26.6 us against 21.4 with the toolkit's on an H200 (eager 23.0; results/
# experiment_eager_bits.txt, session 26); without a toolkit, Triton 3.6's build of atanf is slower still.
LIBDEVICE_WITH_A_TOOLKIT = {"atan"}


MATH_CONSTANTS = {
    "pi": 3.141592653589793,
    "e": 2.718281828459045,
    "tau": 6.283185307179586,
    "inf": float("inf"),
    "nan": float("nan"),
}


# the only `**` exponents lower_to_triton.power_by_constant turns into products, sqrt or a division
CHEAP_EXPONENTS = {0, 1, 2, 3, 4, 0.5, -0.5, -1, -2}


def costly_calls(tree: ast.AST) -> int:
    """How many calls of a costly math row, or `**` with an exponent other than a literal of
    CHEAP_EXPONENTS (a pow call, or for integers a square-and-multiply loop), this (inlined)
    function makes per element: both sides of a lowered if/else count, since both run."""
    return sum(1 for node in ast.walk(tree)
               if (is_math_call(node) and MATH_TABLE[math_name(node)].costly) or _costly_power(node))


def _costly_power(node: ast.AST) -> bool:
    """A `**` that lowers to a pow call (or an integer square-and-multiply loop): its exponent is
    not a literal of CHEAP_EXPONENTS."""
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and _literal(node.right) not in CHEAP_EXPONENTS


def _literal(node: ast.AST):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value
    return node.value if isinstance(node, ast.Constant) else None


# the Python function a user calls for each row: math's, else tritonize.math's (what math lacks),
# else the builtin (round); it is also what constant folding runs
PYTHON_FUNCTIONS = {name: getattr(math, name, None) or getattr(tritonize_math, name, None) or getattr(builtins, name)
                    for name in MATH_TABLE}


def public_name(fname: str) -> str:
    """How the user spells a row: `math.exp`, `tritonize.math.erfinv`, or `round`."""
    module = PYTHON_FUNCTIONS[fname].__module__
    return fname if module == builtins.__name__ else f"{module}.{fname}"
