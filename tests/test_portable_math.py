"""Accuracy and special-value tests for ``passes/portable_math.py``.

The code generator copies the source of each ``portable_*`` function verbatim into a generated
kernel module whose only global is ``tl``. These tests do the same: they paste every function's
source (``inspect.getsource``) into a temporary module holding only ``import triton.language
as tl`` plus one tiny kernel per function, then run the kernels through Triton's interpreter on
CPU float64 tensors and compare with torch's float64 op (numpy / mpmath where torch has no op
or is itself inaccurate). When a GPU is present the same module is compiled with
``@triton.jit`` and checked against the interpreter.

Target: relative error <= 1e-13 against the true float64 value; special values (nan, +-inf,
signed zeros) exactly as torch.
"""
import ast
import atexit
import fractions
import importlib.util
import inspect
import math
import pathlib
import shutil
import sys
import tempfile
import textwrap

import numpy as np
import pytest
import torch
import triton
import triton.language as tl  # noqa: F401  (the generated module imports it too)
from triton.runtime.interpreter import InterpretedFunction
import tritonize.math

from helper_rules import assert_follows_generator_rules


def _load_portable_math():
    try:
        from tritonize.passes import portable_math
        return portable_math
    except Exception:  # the package is not installed (or is mid-edit): load the file by path
        path = pathlib.Path(__file__).resolve().parents[1] / "passes" / "portable_math.py"
        spec = importlib.util.spec_from_file_location("_portable_math_under_test", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod


pm = _load_portable_math()
FUNCS = {name[len("portable_"):]: fn for name, fn in vars(pm).items()
         if name.startswith("portable_") and inspect.isfunction(fn)}

UNARY = ["expm1", "log1p", "log10", "tan", "atan", "asin", "acos", "sinh", "cosh", "tanh", "asinh",
         "acosh", "atanh", "erfc", "erfcx", "erfinv", "ndtri", "i0", "i0e", "i1", "i1e", "k0", "k0e", "k1", "k1e", "airy_ai", "lgamma", "digamma", "trigamma", "trunc", "round_half_even", "cbrt"]
BINARY = ["atan2", "hypot", "pow", "fmod", "nextafter", "copysign"]
# held to absolute error near their zeros (test_bessel_jy_*), not to UNARY's relative 1e-13
BESSEL_JY = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1"]
EXPECTED = set(UNARY) | set(BINARY) | set(BESSEL_JY) | {"signbit", "ldexp"}

F64 = torch.float64
INF = math.inf
NAN = math.nan
TINY = 2.2250738585072014e-308  # smallest normal


# ---------------------------------------------------------------------------------------------
# the generated module: portable functions pasted verbatim + one kernel per function

def _kernel_source(name, jit):
    deco = "@triton.jit\n" if jit else ""
    if name == "ldexp":
        args, call = "x_ptr, n_ptr", "portable_ldexp(tl.load(x_ptr + i, mask=m), tl.load(n_ptr + i, mask=m))"
    elif name in BINARY:
        args, call = "x_ptr, y_ptr", f"portable_{name}(tl.load(x_ptr + i, mask=m), tl.load(y_ptr + i, mask=m))"
    else:
        args, call = "x_ptr", f"portable_{name}(tl.load(x_ptr + i, mask=m))"
    return (f"{deco}def kernel_{name}({args}, o_ptr, n, BLOCK: tl.constexpr):\n"
            f"    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
            f"    m = i < n\n"
            f"    tl.store(o_ptr + i, {call}, mask=m)\n")


def _generated_module(jit):
    parts = ["import triton\nimport triton.language as tl\n"]
    for fn in FUNCS.values():
        src = textwrap.dedent(inspect.getsource(fn))
        parts.append(("@triton.jit\n" if jit else "") + src)
    parts += [_kernel_source(name, jit) for name in sorted(EXPECTED)]
    text = "\n\n".join(parts)
    tag = "jit" if jit else "interp"
    tmp = tempfile.mkdtemp(prefix="portable_math_")
    atexit.register(shutil.rmtree, tmp, True)  # kept until exit: triton.jit reads the source lazily
    path = pathlib.Path(tmp) / f"generated_{tag}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"_portable_math_generated_{tag}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # triton.jit wants to find the module again
    spec.loader.exec_module(mod)
    return mod


_MODULES = {}


def _module(jit):
    if jit not in _MODULES:
        _MODULES[jit] = _generated_module(jit)
    return _MODULES[jit]


def run(name, *args, device="cpu"):
    """Run portable_<name> elementwise on 1-D inputs (float64, or int64 for ldexp's n)."""
    jit = device != "cpu"
    kernel = getattr(_module(jit), f"kernel_{name}")
    if not jit:
        kernel = InterpretedFunction(kernel)
    args = [a.to(device).contiguous() for a in args]
    n = args[0].numel()
    out = torch.empty(n, dtype=torch.bool if name == "signbit" else F64, device=device)
    block = 1024
    with np.errstate(all="ignore"):
        kernel[(triton.cdiv(n, block),)](*args, out, n, BLOCK=block)
    return out.cpu()


# ---------------------------------------------------------------------------------------------
# inputs

EDGES = [NAN, -NAN, INF, -INF, 0.0, -0.0, 1e300, -1e300, 1.7976931348623157e308, -1.7976931348623157e308,
         1e-300, -1e-300, 5e-324, -5e-324, 1e-310, -1e-310, TINY, -TINY, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5,
         1.5, -1.5, 3.0, -3.0, 2.5, -2.5, 1e-20, -1e-20, 0.9999999999999999, -0.9999999999999999,
         1.0000000000000002, -1.0000000000000002, 0.49999999999999994, -0.49999999999999994,
         4503599627370496.0, -4503599627370497.0, 4503599627370495.5, -4503599627370495.5, 1e15, -1e15,
         709.78, 710.0, -709.78, -745.2, -746.0, 6.0, -6.0, 26.5, 27.0, 28.0, -28.0, 100.5, -100.5]

_rng = np.random.default_rng(20240601)


def _lin(lo, hi, n):
    return np.linspace(lo, hi, n)


def _geo(lo, hi, n):  # positive, log-spaced
    return np.geomspace(lo, hi, n)


def _pm(v):  # both signs
    return np.concatenate([v, -v])


def _inputs(*arrays):
    x = np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a in arrays] + [np.array(EDGES)])
    return torch.from_numpy(x)


DOMAINS = {
    "expm1": lambda: _inputs(_lin(-40, 40, 2001), _pm(_geo(1e-310, 709.7, 800))),
    "log1p": lambda: _inputs(_lin(-0.999, 3, 2001), _geo(1e-310, 1e308, 800), -_geo(1e-307, 0.9999, 800)),
    "log10": lambda: _inputs(_lin(0, 20, 2001), _geo(5e-324, 1.7e308, 1500), -_geo(1e-3, 1e3, 50),
                             10.0 ** np.arange(-300, 301, 7)),
    "tan": lambda: _inputs(_lin(-20, 20, 2001), _pm(_geo(1e-310, 1e300, 800)), np.pi / 2 * np.arange(-40, 41)),
    "atan": lambda: _inputs(_lin(-10, 10, 2001), _pm(_geo(1e-310, 1e308, 800))),
    "asin": lambda: _inputs(_lin(-1, 1, 2001), _pm(_geo(1e-310, 1, 500)), _pm(1 - _geo(1.2e-16, 0.5, 300))),
    "acos": lambda: _inputs(_lin(-1, 1, 2001), _pm(_geo(1e-310, 1, 500)), _pm(1 - _geo(1.2e-16, 0.5, 300))),
    "sinh": lambda: _inputs(_lin(-20, 20, 2001), _pm(_geo(1e-310, 710.4758, 800)), [711.0, -711.0]),
    "cosh": lambda: _inputs(_lin(-20, 20, 2001), _pm(_geo(1e-310, 710.4758, 800)), [711.0, -711.0]),
    "tanh": lambda: _inputs(_lin(-20, 20, 2001), _pm(_geo(1e-310, 1e300, 800))),
    "asinh": lambda: _inputs(_lin(-10, 10, 2001), _pm(_geo(1e-310, 1e308, 800))),
    "acosh": lambda: _inputs(_lin(0, 10, 2001), 1 + _geo(1.2e-16, 1e300, 1000), [-1e10, -1.0, 0.5]),
    "atanh": lambda: _inputs(_lin(-1, 1, 2001), _pm(_geo(1e-310, 1, 500)), _pm(1 - _geo(1.2e-16, 0.5, 300))),
    "erfc": lambda: _inputs(_lin(-7, 27.2, 2001), _pm(_geo(1e-310, 30, 800)), [40.0, -40.0, 10.0]),
    "erfinv": lambda: _inputs(_lin(-1, 1, 2001), _pm(_geo(1e-310, 1, 500)), _pm(1 - _geo(1.2e-16, 0.5, 300))),
    "erfcx": lambda: _inputs(_lin(-27, 30, 2001), _pm(_geo(1e-310, 1e300, 800)), _pm(np.array([0.46875, 4.0, 6.71e7])),
                             np.nextafter(_pm(np.array([0.46875, 4.0])), 0)),
    # the Bessel functions: both branches' seam at 8, exp(|x|) past 709.78 (I0 and I1 overflow at ~713.98)
    **{name: lambda: _inputs(_lin(-30, 30, 2001), _pm(_geo(1e-310, 1e300, 800)), _pm(np.linspace(705, 716, 45)),
                             _pm(np.nextafter(8.0, [0.0, 9.0]))) for name in ("i0", "i0e", "i1", "i1e")},
    # K0, K1 and the scaled forms: both tables' seam at 2, tiny and subnormal x (ln(x/2), 1/x), exp(-x)
    # underflowing from 708 (K from ~742), x < 0 (nan)
    **{name: lambda: _inputs(_lin(0, 20, 2001), _geo(5e-324, 1e300, 800), np.linspace(20, 760, 371),
                             np.nextafter(2.0, [0.0, 3.0]), -_geo(1e-300, 1e3, 20))
       for name in ("k0", "k0e", "k1", "k1e")},
    # Ai: the seams at -2.09 and 2.09 (the series between), the oscillating side to -250, and the decaying one
    # past 103.892 (where torch returns 0) into the subnormals and 0 (~107.5)
    "airy_ai": lambda: _inputs(_lin(-30, 30, 3001), _pm(_geo(1e-310, 2, 400)), np.linspace(-250, -30, 441),
                               np.linspace(30, 110, 321), np.nextafter([2.09, -2.09], [0.0, 0.0]), [2.09, -2.09]),
    # p, and 1 - p down to the smallest subnormal p; the branches' seams at exp(-2) and 1 - exp(-2)
    "ndtri": lambda: _inputs(_lin(0, 1, 2001), _geo(5e-324, 0.5, 800), 1 - _geo(1.2e-16, 0.5, 300),
                             [0.1353352832366127, 0.13533528323661273, 0.8646647167633873, 0.8646647167633872]),
    "lgamma": lambda: _inputs(_lin(-10, 10, 2001), _geo(1e-310, 1e305, 800), -_geo(1e-310, 1e15, 400),
                              1 + _pm(_geo(1e-15, 0.2, 200)), 2 + _pm(_geo(1e-15, 0.2, 200)), -np.arange(1, 40)),
    "digamma": lambda: _inputs(_lin(-10, 12, 2001), _geo(1e-310, 1e305, 800), -_geo(1e-310, 1e15, 400),
                               1.4616321449683622 + _pm(_geo(1e-15, 0.1, 200)), -np.arange(1, 40)),
    "trigamma": lambda: _inputs(_lin(-10, 12, 2001), _geo(1e-310, 1e305, 800), -_geo(1e-310, 1e15, 400),
                                _pm(np.arange(0, 40) + 1e-9), -np.arange(1, 40)),
    "trunc": lambda: _inputs(_lin(-10, 10, 4001), _pm(_geo(1e-310, 1e300, 800))),
    "round_half_even": lambda: _inputs(_lin(-10, 10, 4001), _pm(_geo(1e-310, 1e300, 800)),
                                       _pm(np.arange(0, 41) + 0.5)),
    "cbrt": lambda: _inputs(_lin(-10, 10, 2001), _pm(_geo(5e-324, 1.7e308, 1000))),
    **{name: lambda: _bessel_jy_inputs() for name in BESSEL_JY},
}


def _bessel_jy_zeros(count=12):
    """The doubles next to the first zeros of J0, J1, Y0 and Y1 (mpmath's), one ulp either side too."""
    mpmath = pytest.importorskip("mpmath")
    zeros = np.array([float(find(nu, k)) for find in (mpmath.besseljzero, mpmath.besselyzero)
                      for nu in (0, 1) for k in range(1, count + 1)])
    return np.concatenate([zeros, np.nextafter(zeros, 0.0), np.nextafter(zeros, np.inf)])


def _bessel_jy_inputs():
    """Both branches' seam at 5, J0's 1 - x^2/4 below 1e-5 (ATen's), next to the zeros, x up to 1.8e308
    (whose phase x - pi/4 is the hard part), Y1's overflow of -2 / (pi x) below 3.54e-309."""
    return _inputs(_lin(-40, 40, 2001), _pm(_geo(1e-310, 1e300, 800)), _pm(_bessel_jy_zeros()),
                   _pm(np.nextafter([5.0, 5.0, 1e-5, 1e-5], [0.0, 6.0, 0.0, 1.0])), _geo(3.5e-309, 3.6e-309, 20),
                   _pm(_geo(1e4, 1.7e308, 300)))


def _sinh_ref(x):
    # numpy (glibc): torch's scalar-tail sinh/cosh overflow to inf early (x = 710.0)
    with np.errstate(over="ignore"):
        return torch.from_numpy(np.sinh(x.numpy()))


def _cosh_ref(x):
    with np.errstate(over="ignore"):
        return torch.from_numpy(np.cosh(x.numpy()))


def _log1p_ref(x):
    # torch's CPU log1p flushes 5e-324 to 0 and is off by ~1e3 subnormal ulps elsewhere in the
    # subnormal range, where log1p(x) == x exactly
    return torch.where(x.abs() < TINY, x, torch.log1p(x))


def _bessel_ref(name):
    """torch.special's function, but where it is wrong: nan at +-inf for i0 and i1 (exp(inf) times 0),
    inf from 709.78 where I0 and I1 are finite up to ~713.98, and +0.0 for i1(-0.0) and i1e(-0.0),
    which are odd; there tritonize.math's (correctly rounded, test_tritonize_math.py) stands in."""
    def reference(x):
        wrong = x.isinf() | ((x.abs() > 709.78) & (x.abs() < 714)) | ((x == 0) & torch.signbit(x))
        python = torch.tensor([getattr(tritonize.math, name)(v) if w else 0.0 for v, w in zip(x.tolist(), wrong.tolist())],
                              dtype=F64)
        return torch.where(wrong, python, getattr(torch.special, name)(x))
    return reference


# torch's float64 K0 takes log(0.5 * x), which below 2^-1021 rounds x/2 (to 0 at 5e-324: K0 = +inf), and
# its K1 at 5e-324 is log(0) I1(x) + c / x = -inf + inf, nan: there tritonize.math's stands in
K_TORCH_WRONG = {
    "k0": lambda x: (x > 0) & (x < 4.450147717014403e-308), "k0e": lambda x: (x > 0) & (x < 4.450147717014403e-308),
    "k1": lambda x: x == 5e-324, "k1e": lambda x: x == 5e-324,
}
K_NAMES = {"k0": "modified_bessel_k0", "k1": "modified_bessel_k1", "k0e": "scaled_modified_bessel_k0",
           "k1e": "scaled_modified_bessel_k1"}


def _bessel_k_ref(name):
    """torch.special's function, but where it is wrong (K_TORCH_WRONG), tritonize.math's."""
    def reference(x):
        wrong = K_TORCH_WRONG[name](x)
        python = torch.tensor([getattr(tritonize.math, K_NAMES[name])(v) if w else 0.0
                               for v, w in zip(x.tolist(), wrong.tolist())], dtype=F64)
        return torch.where(wrong, python, getattr(torch.special, K_NAMES[name])(x))
    return reference


def _airy_ref(x):
    """torch.special.airy_ai, but where it is wrong, tritonize.math's: between -8 and -2.09, where ATen drops
    the leading 1 of Cephes' denominators (1.7e-5 off at -2.1, 1e-14 at -5.5, nothing from -7.2), past 103.892,
    where it returns 0 for subnormal Ai, and at +-inf (torch: nan, Ai: 0)."""
    wrong = ((x > -8) & (x < -2.09)) | (x > 103.892) | x.isinf()
    python = torch.tensor([tritonize.math.airy_ai(v) if w else 0.0 for v, w in zip(x.tolist(), wrong.tolist())],
                          dtype=F64)
    return torch.where(wrong, python, torch.special.airy_ai(x))


def _trigamma_ref(x):
    # torch's polygamma(1, x) reflects with sin(pi x), which is not zero at the negative integers (a
    # large finite value where trigamma has its poles, +inf as at 0) and loses pi x's bits next to them
    # and below -1e6, where tritonize.math.trigamma (an exact fraction, fsum) stands in
    far = (x < 0) & ((x < -1e6) | ((x - x.round()).abs() < 1e-6))
    python = torch.tensor([tritonize.math.trigamma(v) if f else 0.0 for v, f in zip(x.tolist(), far.tolist())],
                          dtype=F64)
    pole = (x <= 0) & (x == x.floor()) & x.isfinite()
    return torch.where(pole, INF, torch.where(far, python, torch.polygamma(1, x)))


REFERENCE = {
    "expm1": torch.expm1, "log1p": _log1p_ref, "log10": torch.log10, "tan": torch.tan, "atan": torch.atan,
    "asin": torch.asin, "acos": torch.acos, "sinh": _sinh_ref, "cosh": _cosh_ref, "tanh": torch.tanh,
    "asinh": torch.asinh, "acosh": torch.acosh, "atanh": torch.atanh, "erfc": torch.erfc,
    "erfcx": torch.special.erfcx, "ndtri": torch.special.ndtri,
    "i0": _bessel_ref("i0"), "i0e": _bessel_ref("i0e"), "i1": _bessel_ref("i1"), "i1e": _bessel_ref("i1e"),
    "k0": _bessel_k_ref("k0"), "k0e": _bessel_k_ref("k0e"), "k1": _bessel_k_ref("k1"), "k1e": _bessel_k_ref("k1e"),
    "airy_ai": _airy_ref,
    "erfinv": torch.erfinv, "lgamma": torch.lgamma, "digamma": torch.digamma, "trigamma": _trigamma_ref,
    "trunc": torch.trunc,
    "round_half_even": torch.round, "cbrt": lambda x: torch.from_numpy(np.cbrt(x.numpy())),
}

# (rtol, atol) where the default (1e-13, 0) is loosened, with the reason
TOLERANCE = {
    # torch's own digamma (ATen calc_digamma) is only accurate to ~5e-12 absolute: it reflects
    # with pi / tan(pi * x) and sums 1/x terms; near the zeros of digamma (x ~ 1.4616 and one
    # per negative unit interval) that is a large relative error. The true-value test below
    # (mpmath) holds portable_digamma to 1e-13 relative for x > 0.
    "digamma": (1e-13, 1e-11),
    # lgamma(x) for x < 0 is log(pi / |x sin(pi x)|) - lgamma(-x); next to the zeros of lgamma
    # (x ~ -2.457, -2.747, -3.144, -3.955, ...) that cancellation leaves an absolute error of
    # ~1e-15, so the relative error there is ~1e-15 / |lgamma(x)| (documented limitation).
    "lgamma": (1e-13, 1e-14),
    # torch's polygamma(1, x) (ATen calc_trigamma): six recurrence steps, then a series to B_6, so
    # ~1e-9 relative where x + 6 is small; the true-value test below holds portable_trigamma to 1e-15
    "trigamma": (2e-9, 0.0),
    # Ai between -8 and -2.09 is held to the true value (torch is wrong there), which the composite meets to
    # ~1e-15 of the amplitude: an absolute error next to Ai's zeros; elsewhere it runs torch's operations
    "airy_ai": (1e-13, 2e-15),
}


def assert_matches(out, ref, rtol=1e-13, atol=0.0, inputs=None):
    """assert_close (nan == nan) plus: infinities and zeros carry the same sign as ref."""
    assert out.dtype == ref.dtype == F64
    try:
        torch.testing.assert_close(out, ref, rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError as err:
        bad = ~((out == ref) | (out.isnan() & ref.isnan()) | ((out - ref).abs() <= atol + rtol * ref.abs()))
        idx = bad.nonzero().flatten()[:8].tolist()
        detail = [(tuple(float(a[i]) for a in inputs) if inputs else i, float(out[i]), float(ref[i])) for i in idx]
        raise AssertionError(f"{err}\nfirst mismatches (input, got, expected): {detail}") from None
    exact = (ref == 0) | ref.isinf()
    sign_bad = exact & (torch.signbit(out) != torch.signbit(ref))
    if sign_bad.any():
        idx = sign_bad.nonzero().flatten()[:8].tolist()
        detail = [(tuple(float(a[i]) for a in inputs) if inputs else i, float(out[i]), float(ref[i])) for i in idx]
        raise AssertionError(f"wrong sign of zero/inf (input, got, expected): {detail}")


# ---------------------------------------------------------------------------------------------
# the module follows the code generator's rules

def test_module_exports_every_function():
    assert EXPECTED <= set(FUNCS), EXPECTED - set(FUNCS)


# with the helpers only the Bessel functions call, and their block-uniform branches' test
@pytest.mark.parametrize("name", sorted(EXPECTED | {f"bessel_{part}" for part in ("near0", "near1", "hankel0", "hankel1")}
                                        | {"any", "sides", "sides_and_any", "horner_start", "horner_step"}))
def test_source_is_straight_line_and_self_contained(name):
    assert_follows_generator_rules(FUNCS[name], {f"portable_{n}" for n in FUNCS},
                                   {"math", "where", "abs", "minimum", "maximum", "full", "int64", "float64", "int32",
                                    "reduce", "standard", "static_assert"})


def _uniform_union_branch(x):
    """A helper whose branch a block takes when any element is positive or any is not (for the rules' test)."""
    positive, other = portable_sides(x > 0.0)
    r = x
    if positive | other:
        r = x * 2.0
    return r


def _element_branch(x):
    """A helper whose branch tests one element's value beside a block-uniform name (for the rules' test)."""
    positive, other = portable_sides(x > 0.0)
    r = x
    if positive | (x > 1.0):
        r = x * 2.0
    return r


def test_generator_rules_take_a_union_of_block_uniform_tests_only():
    """`if a | b:` of block-uniform names is a block-uniform branch (digamma's floor for its rational or its
    reflection); with an element's test beside them it is an element's branch, which the rules refuse."""
    assert_follows_generator_rules(_uniform_union_branch, {"portable_sides"}, set())
    with pytest.raises(AssertionError, match="If at line"):
        assert_follows_generator_rules(_element_branch, {"portable_sides"}, set())


def helper_tree(name):
    """portable_<name>'s source as an AST."""
    return ast.parse(textwrap.dedent(inspect.getsource(FUNCS[name])))


def divisions_in(node) -> list:
    """The `/` expressions below `node`: CUDA runs the composites in float64, where each is a dozen instructions."""
    return [n for n in ast.walk(node) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div)]


def attribute_calls_in(node) -> set:
    """The attribute names called below `node` (tl.math.sin is `sin`)."""
    return {n.func.attr for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}


def test_trigamma_divides_once_but_to_reflect():
    """CUDA runs portable_trigamma in float64, the GPU's slower pipe, where a division is a dozen instructions:
    one division serves the steps' fraction and the series' 1 / w; the reflection (x < 0 only) divides once more
    and calls no sine."""
    tree = helper_tree("trigamma")
    (reflection,) = [node for node in ast.walk(tree) if isinstance(node, ast.If) and node.test.id == "some_negative"]
    assert (len(divisions_in(tree)), len(divisions_in(reflection))) == (2, 1)
    assert not attribute_calls_in(tree) & {"sin", "cos"}


def test_digamma_divides_twice_and_calls_no_sine():
    """CUDA runs portable_digamma in float64, where a division is a dozen instructions and sin more: with
    thirteen divisions and two sins it ran 0.28x eager on an H200, with two and none 0.93x
    (benchmarks/results/experiment_float64_h200.txt). Straight-line code computes every branch, so each
    one added costs every element."""
    tree = helper_tree("digamma")
    divisions = divisions_in(tree)
    calls = attribute_calls_in(tree)
    assert len(divisions) == 2, [ast.unparse(node) for node in divisions]
    assert not calls & {"sin", "cos"}, calls


# ---------------------------------------------------------------------------------------------
# against torch (and numpy / math where torch has no op)

@pytest.mark.parametrize("name", UNARY)
def test_unary_matches_reference(name):
    x = DOMAINS[name]()
    if name == "digamma":
        # torch.digamma is far off (0.6 relative at -0.9999999999999999) just above negative
        # integers, where pi / tan(pi * x) loses x's last bits; test_digamma_true_value covers them
        x = x[~((x < 0) & ((x - x.round()).abs() < 1e-6) & (x != x.round()))]
    out = run(name, x)
    ref = REFERENCE[name](x)
    rtol, atol = TOLERANCE.get(name, (1e-13, 0.0))
    assert_matches(out, ref, rtol, atol, inputs=(x,))


_PAIR_VALUES = torch.tensor(EDGES + [0.3, -0.3, 7.25, -7.25, 1e-5, 123456.789, -1e-200, 1e200, 0.75, 1.25],
                            dtype=F64)


def _pairs(extra_x=(), extra_y=()):
    a, b = torch.meshgrid(_PAIR_VALUES, _PAIR_VALUES, indexing="ij")
    x = torch.cat([a.reshape(-1), torch.as_tensor(np.asarray(extra_x, dtype=np.float64))])
    y = torch.cat([b.reshape(-1), torch.as_tensor(np.asarray(extra_y, dtype=np.float64))])
    return x, y


def _random_pairs(n):
    mag = np.exp(_rng.uniform(np.log(1e-300), np.log(1e300), (2, n)))
    sign = _rng.choice([-1.0, 1.0], (2, n))
    return mag[0] * sign[0], mag[1] * sign[1]


def test_atan2_matches_torch():
    rx, ry = _random_pairs(1500)
    gy, gx = np.meshgrid(_lin(-3, 3, 41), _lin(-3, 3, 41))
    y, x = _pairs(np.concatenate([ry, gy.ravel()]), np.concatenate([rx, gx.ravel()]))
    assert_matches(run("atan2", y, x), torch.atan2(y, x), inputs=(y, x))


def test_hypot_matches_torch():
    rx, ry = _random_pairs(1500)
    x, y = _pairs(rx, ry)
    assert_matches(run("hypot", x, y), torch.hypot(x, y), inputs=(x, y))


def _pow_inputs():
    n = 1500
    a = np.exp(_rng.uniform(np.log(1e-300), np.log(1e300), n))
    b = _rng.uniform(-700, 700, n) / np.log(a)  # results across the whole exponent range
    neg = -np.exp(_rng.uniform(-5, 5, 300))
    nb = np.round(_rng.uniform(-700, 700, 300) / np.abs(np.log(-neg)))  # integers: odd and even
    near1 = 1 + _rng.uniform(-1e-6, 1e-6, 200)
    b1 = _rng.uniform(-700, 700, 200) / np.log(near1)
    sub = np.exp(_rng.uniform(np.log(5e-324), np.log(TINY), 100))
    bsub = _rng.uniform(-0.9, 0.9, 100)
    small = _rng.uniform(0, 10, 300)
    bsmall = _rng.uniform(-10, 10, 300)
    return _pairs(np.concatenate([a, neg, near1, sub, small]), np.concatenate([b, nb, b1, bsub, bsmall]))


def test_pow_matches_torch():
    a, b = _pow_inputs()
    assert_matches(run("pow", a, b), torch.pow(a, b), inputs=(a, b))


def test_pow_special_cases():
    cases = [  # (a, b, expected) from C99 Annex F / torch.pow
        (NAN, 0.0, 1.0), (NAN, -0.0, 1.0), (1.0, NAN, 1.0), (1.0, INF, 1.0), (-1.0, INF, 1.0), (-1.0, -INF, 1.0),
        (0.0, -1.0, INF), (-0.0, -1.0, -INF), (-0.0, -2.0, INF), (-0.0, -0.5, INF), (0.0, -INF, INF),
        (-0.0, 3.0, -0.0), (-0.0, 2.0, 0.0), (-0.0, 0.5, 0.0), (0.5, INF, 0.0), (2.0, INF, INF),
        (0.5, -INF, INF), (2.0, -INF, 0.0), (-INF, 3.0, -INF), (-INF, 2.0, INF), (-INF, 0.5, INF),
        (-INF, -3.0, -0.0), (-INF, -2.0, 0.0), (-INF, -0.5, 0.0), (INF, -1.0, 0.0), (INF, 0.5, INF),
        (-2.0, 0.5, NAN), (-2.0, 3.0, -8.0), (-2.0, -3.0, -0.125), (-8.0, 1.0 / 3.0, NAN), (NAN, 1.0, NAN),
        (2.0, NAN, NAN), (-2.0, 1e300, INF), (-0.5, 1e300, 0.0), (-0.5, 2.0 ** 53 + 2, 0.0),
        (-1.0, 2.0 ** 53 + 1, 1.0), (-1.0, 9007199254740991.0, -1.0), (10.0, 308.0, 1e308), (10.0, 309.0, INF),
        (2.0, -1074.0, 5e-324), (2.0, -1075.0, 0.0), (3.0, 2.0, 9.0), (1.5, 1.0, 1.5), (4.0, -1.0, 0.25),
    ]
    a, b, exp = (torch.tensor(c, dtype=F64) for c in zip(*cases))
    assert_matches(run("pow", a, b), exp, rtol=1e-15, inputs=(a, b))
    assert_matches(run("pow", a, b), torch.pow(a, b), rtol=1e-15, inputs=(a, b))


def test_fmod_matches_c_fmod():
    # numpy's fmod is C fmod (exact). torch's CPU fmod is not for huge quotients: it returns nan
    # for torch.fmod(1e300, 1e-300), which C gives as 4.89e-301.
    x, y = _pairs(*_random_pairs(2000))
    with np.errstate(invalid="ignore"):
        ref = torch.from_numpy(np.fmod(x.numpy(), y.numpy()))
    assert_matches(run("fmod", x, y), ref, rtol=0.0, inputs=(x, y))


def test_nextafter_matches_torch():
    x, y = _pairs()
    assert_matches(run("nextafter", x, y), torch.nextafter(x, y), rtol=0.0, inputs=(x, y))
    assert run("nextafter", torch.tensor([0.0], dtype=F64), torch.tensor([-1.0], dtype=F64)).item() == -5e-324


def test_copysign_and_signbit():
    x, y = _pairs()
    y = torch.cat([y, torch.tensor([-NAN, NAN], dtype=F64)])
    x = torch.cat([x, torch.tensor([1.0, -1.0], dtype=F64)])
    assert_matches(run("copysign", x, y), torch.copysign(x, y), rtol=0.0, inputs=(x, y))
    assert torch.equal(run("copysign", x, y).isnan(), x.isnan())
    assert torch.equal(run("signbit", y), torch.signbit(y))


def test_ldexp_is_exact():
    xs = torch.tensor(EDGES + [1.5, 0.75, -1.25, 3.0, 1.1, 0.9999999999999999], dtype=F64)
    ns = torch.tensor([0, 1, -1, 52, -52, 1023, 1024, -1022, -1023, -1074, -1075, -1076, 1100, -1100,
                       2000, -2000, 2098, -2098, 2200, -2200, 5000, -5000, 2 ** 40, -2 ** 40], dtype=torch.int64)
    x, n = xs.repeat_interleave(len(ns)), ns.repeat(len(xs))
    with np.errstate(over="ignore", under="ignore"):
        ref = torch.from_numpy(np.ldexp(x.numpy(), np.clip(n.numpy(), -10000, 10000).astype(np.int32)))
    assert_matches(run("ldexp", x, n), ref, rtol=0.0, inputs=(x, n.to(F64)))
    # an exact tie in the subnormal range rounds once (to even): 1.5 * 2**-1075 = 0.75 * 2**-1074 -> 2**-1074
    one = torch.tensor([1.5, 2.5 * 2.0 ** -20, 1.0 + 2.0 ** -52], dtype=F64)
    m = torch.tensor([-1075, -1054, -1074], dtype=torch.int64)
    assert run("ldexp", one, m).tolist() == [5e-324, 1e-323, 5e-324]


def test_signed_zeros():
    z = torch.tensor([0.0, -0.0], dtype=F64)
    odd = ["expm1", "log1p", "tan", "atan", "asin", "sinh", "tanh", "asinh", "atanh", "erfinv", "trunc",
           "round_half_even", "cbrt"]
    for name in odd:
        assert torch.signbit(run(name, z)).tolist() == [False, True], name
    neg_small = torch.tensor([-0.4, -0.5, -1e-300], dtype=F64)
    assert torch.signbit(run("round_half_even", neg_small)).all()
    assert torch.signbit(run("trunc", neg_small)).all()
    assert run("digamma", z).tolist() == [-INF, INF]
    assert run("lgamma", z).tolist() == [INF, INF]
    assert run("erfc", z).tolist() == [1.0, 1.0]
    assert run("acos", torch.tensor([1.0], dtype=F64)).item() == 0.0
    # atan2 on the signed-zero axes
    y = torch.tensor([0.0, -0.0, 0.0, -0.0, 0.0, -0.0], dtype=F64)
    x = torch.tensor([0.0, 0.0, -0.0, -0.0, 1.0, -1.0], dtype=F64)
    assert_matches(run("atan2", y, x), torch.atan2(y, x), rtol=0.0, inputs=(y, x))


def test_round_half_even_ties():
    x = torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994, 4503599627370495.5,
                      -4503599627370495.5, 2.0 ** 52 + 1, 1e300], dtype=F64)
    assert run("round_half_even", x).tolist() == torch.round(x).tolist()


def test_log10_exact_powers_of_ten():
    # with log correctly rounded, the double-double 1/ln(10) makes these exact
    k = torch.arange(0, 23, dtype=F64)
    assert run("log10", 10.0 ** k).tolist() == k.tolist()


# ---------------------------------------------------------------------------------------------
# against the true value (mpmath), where torch itself is not a tight enough reference


def _mp_ref(f, *cols):
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.prec = 160
    return torch.tensor([float(f(mpmath, *(mpmath.mpf(float(v)) for v in row))) for row in zip(*cols)], dtype=F64)


def _lgamma_true(mp, x):
    return mp.inf if (x <= 0 and x == mp.floor(x)) else mp.re(mp.loggamma(x))


def _digamma_true(mp, x):
    if x == 0 or (x < 0 and x == mp.floor(x)):
        return mp.nan
    return mp.digamma(x)


def test_digamma_true_value():
    pos = np.concatenate([_lin(1e-3, 12, 1500), 1.4616321449683622 + _pm(_geo(1e-16, 0.2, 300)),
                          _geo(1e-300, 1e300, 300), 1 + _geo(1e-16, 1, 100)])
    neg = np.concatenate([_lin(-10, -1e-3, 1000), -_geo(1e-300, 1e12, 200),
                          -np.arange(1, 20) + 1e-12, -np.arange(1, 20) - 1e-12, [-0.9999999999999999]])
    neg = neg[neg != np.floor(neg)]
    x = torch.from_numpy(pos)
    assert_matches(run("digamma", x), _mp_ref(_digamma_true, x), inputs=(x,))
    # negative x: relative 1e-13 away from the zeros of digamma, ~1e-15 absolute next to them
    x = torch.from_numpy(neg)
    assert_matches(run("digamma", x), _mp_ref(_digamma_true, x), 1e-13, 2e-14, inputs=(x,))


def _erfcx_true(mp, x):
    if x > 1e6:  # mpmath's erfc gives up; three terms of the asymptotic series are exact here
        return (1 - 1 / (2 * x * x) + 3 / (4 * x ** 4)) / (x * mp.sqrt(mp.pi))
    return mp.exp(x * x) * mp.erfc(x)


def test_erfcx_true_value():
    """Cody's rationals are within a few ulp everywhere (torch's ATen erfcx: 6e-14 below -6.1, where it
    takes 2 exp(x * x) and x * x's rounding)."""
    x = DOMAINS["erfcx"]()
    x = x[x.isfinite() & (x > -26.6)]  # below, 2 exp(x^2) overflows: the special values test has them
    assert_matches(run("erfcx", x), _mp_ref(_erfcx_true, x), 1e-15, inputs=(x,))


def test_ndtri_true_value():
    """Within 1.1e-15 of the true value (Cephes' rationals); mpmath's erfinv of 1 - 2p where p is not tiny,
    tritonize.math.ndtri (Newton's method in log space, itself within 5e-16) below."""
    p = DOMAINS["ndtri"]()
    p = p[(p > 0) & (p < 1)]
    large = p[p > 1e-15]
    assert_matches(run("ndtri", large), _mp_ref(lambda mp, v: -mp.sqrt(2) * mp.erfinv(1 - 2 * v), large), 1.2e-15,
                   inputs=(large,))
    tiny = p[p <= 1e-15]
    assert_matches(run("ndtri", tiny), torch.tensor([tritonize.math.ndtri(v) for v in tiny.tolist()], dtype=F64),
                   1.2e-15, inputs=(tiny,))


# ulp of the correctly rounded value (tritonize.math's) that Cephes' tables in float64 leave: up to 3 for
# i0e, 5 for i0, 9 for i1e and 14 for i1 (on [0, 8], where i1e / x cancels; 2-3 above)
BESSEL_RTOL = {"i0e": 8e-16, "i0": 1.2e-15, "i1e": 2.1e-15, "i1": 3.2e-15}


@pytest.mark.parametrize("name", sorted(BESSEL_RTOL))
def test_bessel_true_value(name):
    x = DOMAINS[name]()
    x = x[x.isfinite()]
    truth = torch.tensor([getattr(tritonize.math, name)(v) for v in x.tolist()], dtype=F64)
    # subnormal i1 and i1e (x / 2 below 4.5e-308) keep what a subnormal can: an absolute few ulp of 5e-324
    assert_matches(run(name, x), truth, BESSEL_RTOL[name], 1e-322, inputs=(x,))


def _bessel_jy_scale(x, truth):
    """|truth|, but at least the envelope min(1, sqrt(2 / (pi |x|))) of J and Y: next to their zeros the
    slope is the envelope, so half an ulp of x (from |x| = 1 on, at least 2^-53 of it) moves the value by
    ~2^-53 of the envelope; relative to the value there, any float64 evaluation's error blows up."""
    return torch.maximum(truth.abs(), torch.clamp(torch.sqrt(2.0 / (math.pi * x.abs())), max=1.0))


def assert_bessel_jy_within(out, truth, x, bound):
    """nan, infinities and signed zeros exactly as `truth`; elsewhere within `bound` units of 2^-52 of
    _bessel_jy_scale."""
    exact = ~truth.isfinite() | (truth == 0) | ~x.isfinite()
    assert_matches(out[exact], truth[exact], 0.0, 0.0, inputs=(x[exact],))
    error = (out - truth)[~exact].abs() / _bessel_jy_scale(x[~exact], truth[~exact]) / 2.0 ** -52
    worst = int(error.argmax())
    assert error.max() <= bound, f"{error.max():.2f} units at x = {x[~exact][worst].item()!r}"


# the worst errors measured, in units of 2^-52 of _bessel_jy_scale: J0 2.6, J1 2.6, Y0 2.85 and Y1 2.4 on these
# points (above 5, P and Q times x's own sine and cosine; below 5 the polynomials of fit_bessel_jy: 1.5, 1.8, 1.9
# and 1.7, and 1.9-2.4 on 6000 random points of (0, 5]). Cephes' rationals, before them, left Y0 and Y1 14.0 and
# 11.9 next to 4.96, where YP / YQ are themselves ~6e-16 off (Y0 is -0.33 there)
BESSEL_JY_BOUND = {"bessel_j0": 3.0, "bessel_j1": 3.0, "bessel_y0": 3.0, "bessel_y1": 3.0}


@pytest.mark.parametrize("name", BESSEL_JY)
def test_bessel_jy_true_value(name):
    """Against tritonize.math's correctly rounded values (test_tritonize_math.py holds them to mpmath)."""
    x = DOMAINS[name]()
    truth = torch.tensor([getattr(tritonize.math, name)(v) for v in x.tolist()], dtype=F64)
    out = run(name, x)
    assert_bessel_jy_within(out, truth, x, BESSEL_JY_BOUND[name])
    above = x.abs() > 5
    assert_bessel_jy_within(out[above], truth[above], x[above], 3.0)


def _fitted_bessel_jy():
    """benchmarks/results/fit_bessel_jy.txt's coefficients: {(dtype, name): [coefficient, ...]}."""
    path = pathlib.Path(__file__).parents[1] / "benchmarks" / "results" / "fit_bessel_jy.txt"
    fits, dtype = {}, None
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            dtype = line.split()[-1]
        elif " = [" in line:
            name, listed = line.split(" = ", 1)
            fits[dtype, name] = ast.literal_eval(listed.split("  #")[0])
    return fits


def _float_constants(function):
    """The float literals of a function's source, as floats (a negated literal as its value)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            found.add(-node.operand.value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, float):
            found.add(node.value)
    return found


def test_bessel_jy_polynomials_are_the_fits_of_fit_bessel_jy():
    """Every coefficient of the polynomials below 5, in float32 (float32_math) and float64, is the one that
    benchmarks/experiments/fit_bessel_jy.py printed into benchmarks/results/fit_bessel_jy.txt: a coefficient
    edited by hand, or a fit run again without its results, fails here."""
    from tritonize.passes import float32_math as f32

    fits = _fitted_bessel_jy()
    helpers = {"float32": {"P0": f32.f32_bessel_near0, "P1": f32.f32_bessel_near1, "R0": f32.f32_bessel_y0,
                           "R1": f32.f32_bessel_y1},
               "float64": {"P0": pm.portable_bessel_near0, "P1": pm.portable_bessel_near1, "R0": pm.portable_bessel_y0,
                           "R1": pm.portable_bessel_y1}}
    assert set(fits) == {(dtype, name) for dtype in helpers for name in helpers[dtype]}
    for (dtype, name), coefficients in fits.items():
        function = helpers[dtype][name]
        missing = [c for c in coefficients if c not in _float_constants(function)]
        assert not missing, f"{dtype} {name}: {function.__name__} lacks {missing}"


@pytest.mark.parametrize("name", BESSEL_JY)
def test_bessel_jy_matches_torch_where_torch_is_right(name):
    """torch's float64 values, on |x| <= 2 and 25 <= |x| <= 1000, where they are within 5.3e-14 of the envelope:
    between, ATen's loops drop the leading 1 of Cephes' p1evl (RQ, YQ, QQ), 2.7e-8 of it off by 5 and 2.4e-6
    between 5 and 10; above, its rounded phase x - pi/4 loses ulp(x)/2 (5e-13 by 1e4, all of it by 1e16).
    And nan, infinities and signed zeros as torch's, but at +inf (-inf for J), where torch's cosine of inf
    gives nan and the functions tend to 0."""
    x = DOMAINS[name]()
    theirs = getattr(torch.special, name)(x)
    out = run(name, x)
    a = x.abs()
    judged = (a <= 2) | ((a >= 25) & (a <= 1000)) | x.isnan()
    if name == "bessel_y1":  # ATen's 1 / x overflows below 5.6e-309, -2 / (pi x) only below 3.54e-309
        judged &= ~((x > 0) & (x < 5.6e-309))
    assert_bessel_jy_within(out[judged], theirs[judged], x[judged], 240.0)  # 5.3e-14: torch's Y0 at 2 (233)
    infinite = x.isinf() & ((x > 0) | name.startswith("bessel_j"))
    assert theirs[infinite].isnan().all() and (out[infinite] == 0).all()
    middle = (x > 5) & (x < 10)
    assert ((out - theirs)[middle].abs() / _bessel_jy_scale(x[middle], out[middle])).max() > 4e-7


def bessel_jy_blocks(generator, edges, dtype, above):
    """Three blocks of 1024: |x| <= 5, both sides (with `edges`), |x| from `above` to 400 + `above`, of either
    sign."""
    near = torch.rand(1024, generator=generator, dtype=dtype) * 10 - 5
    mixed = torch.cat([torch.rand(1024 - len(edges), generator=generator, dtype=dtype) * 80 - 40,
                       torch.tensor(edges, dtype=dtype)])
    far = torch.rand(1024, generator=generator, dtype=dtype) * 400 + above
    return torch.cat([near, mixed, far * (torch.rand(1024, generator=generator) - 0.5).sign().to(dtype)])


def load_helpers_with_kernel(path, helpers, kernel_source, jit=False):
    """A module of `helpers`' own source (as the generator copies it) and one kernel, written to `path` and
    imported; with `jit`, every function @triton.jit."""
    decorator = "@triton.jit\n" if jit else ""
    path.write_text("import triton\nimport triton.language as tl\n\n"
                    + "".join(decorator + textwrap.dedent(inspect.getsource(f)) + "\n" for f in helpers)
                    + decorator + textwrap.dedent(kernel_source).lstrip())
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # triton.jit finds its function's module again
    spec.loader.exec_module(module)
    return module


def block_masks(block, scalar):
    """Masks of one block each: all, none, and (blocks of more than one) one element at either end, all but
    one, and every other."""
    masks = [torch.ones(block), torch.zeros(block)]
    if not scalar:
        masks += [torch.eye(block)[0], torch.eye(block)[-1], 1 - torch.eye(block)[0], torch.arange(block) % 2]
    return masks


SIDES_AND_ANY_KERNEL = """
def sides_and_any_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr, SCALAR: tl.constexpr):
    pid = tl.program_id(0)
    if SCALAR:
        x = tl.load(x_ptr + pid)
        y = tl.load(y_ptr + pid)
    else:
        x = tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))
        y = tl.load(y_ptr + pid * BLOCK + tl.arange(0, BLOCK))
    inside, outside, other = portable_sides_and_any(x > 0.0, y > 0.0)
    tl.store(out_ptr + 3 * pid, inside.to(tl.int32))
    tl.store(out_ptr + 3 * pid + 1, outside.to(tl.int32))
    tl.store(out_ptr + 3 * pid + 2, other.to(tl.int32))
"""


@pytest.mark.parametrize("scalar", [False, True], ids=["block", "scalar"])
def test_sides_and_any_answers_three_tests_of_each_block(scalar, tmp_path):
    """portable_sides_and_any(mask, other) is (any element of mask holds, any does not, any of other holds), per
    block, from one reduction whose sum carries both counts: every pair of masks from all, none, one element at
    either end, half and all but one, in blocks of 4096 (CPU_MAX_BLOCK; CUDA's flat blocks reach 8192), so that a count
    of `mask` at its largest cannot reach `other`'s place, and a block of 2^15 refused; a scalar pair too."""
    module = load_helpers_with_kernel(tmp_path / f"sides_and_any_{'scalar' if scalar else 'block'}.py",
                                      [pm.portable_sides_and_any], SIDES_AND_ANY_KERNEL)
    block = 1 if scalar else 4096
    masks = block_masks(block, scalar)
    pairs = [(mask, other) for mask in masks for other in masks]
    x = torch.cat([torch.where(mask.bool(), 1.5, -0.5) for mask, _ in pairs]).to(F64)
    y = torch.cat([torch.where(other.bool(), 1.5, -0.5) for _, other in pairs]).to(F64)
    out = torch.empty(3 * len(pairs), dtype=torch.int32)
    InterpretedFunction(module.sides_and_any_kernel)[(len(pairs),)](x, y, out, BLOCK=block, SCALAR=scalar)
    expected = [[int(mask.bool().any()), int((~mask.bool()).any()), int(other.bool().any())] for mask, other in pairs]
    assert out.view(-1, 3).tolist() == expected
    if not scalar:  # a block of 2^15 would carry its count of `mask` into `other`'s place: refused as it compiles
        ones = torch.ones(2**15, dtype=F64)
        with pytest.raises(Exception, match="overflows the count"):
            InterpretedFunction(module.sides_and_any_kernel)[(1,)](ones, ones, out, BLOCK=2**15, SCALAR=False)


HORNER_KERNEL = """
def horner_kernel(p_ptr, z_ptr, out_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    p = tl.load(p_ptr + i)
    z = tl.load(z_ptr + i)
    tl.store(out_ptr + i, portable_horner_step(p, z, 0.1))
    tl.store(out_ptr + BLOCK + i, portable_horner_step(p, z, -1.0))
    tl.store(out_ptr + 2 * BLOCK + i, portable_horner_start(0.1, z, -0.30000000000000004))
"""


@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if torch.cuda.is_available() else []))
def test_horner_steps_keep_their_literals_float64(device, tmp_path):
    """portable_horner_step(p, z, c) is p z + c and portable_horner_start(a, z, b) a z + b, their literals
    float64 (Triton 3.6's tl.math.fma made a literal that fits float32, as 0.1 does, a float32 constant:
    0.10000000149011612), on exact products; compiled, rounded once (an fma): (1 + 2^-30)^2 - 1 keeps the
    product's 2^-60, which a product rounded first drops (Triton 3.6's interpreter rounds twice)."""
    jit = device == "cuda"
    module = load_helpers_with_kernel(tmp_path / f"horner_{device}.py", [pm.portable_horner_start,
                                      pm.portable_horner_step], HORNER_KERNEL, jit=jit)
    p = [0.0, 1.0, 3.0, 1.0 + 2.0 ** -30]
    z = [0.0, 2.0, -1.0, 1.0 + 2.0 ** -30]
    out = torch.empty(12, dtype=F64, device=device)
    kernel = module.horner_kernel if jit else InterpretedFunction(module.horner_kernel)
    kernel[(1,)](torch.tensor(p, dtype=F64, device=device), torch.tensor(z, dtype=F64, device=device), out, BLOCK=4)
    got = out.cpu().view(3, 4).tolist()

    def once(a, b, c):  # a b + c rounded once
        return float(fractions.Fraction(a) * fractions.Fraction(b) + fractions.Fraction(c))
    assert got[0][:3] == [once(a, b, 0.1) for a, b in zip(p[:3], z[:3])], got[0]
    assert got[1][:3] == [once(a, b, -1.0) for a, b in zip(p[:3], z[:3])], got[1]
    assert got[2][:3] == [once(0.1, b, -0.30000000000000004) for b in z[:3]], got[2]
    if jit:
        assert got[1][3] == 2.0 ** -29 + 2.0 ** -60 == once(p[3], z[3], -1.0), got[1][3]
        assert got[2][3] == once(0.1, z[3], -0.30000000000000004), got[2][3]


def assert_each_element_its_value_in_any_block(name, x, generator):
    """portable_<name> gives every element of `x` (laid out in one-sided blocks) the same bits as it gets
    shuffled among blocks of every side (any NaN for any NaN)."""
    shuffled = torch.randperm(x.numel(), generator=generator)
    in_blocks, in_mixed_blocks = run(name, x)[shuffled], run(name, x[shuffled])
    same = (in_blocks.view(torch.int64) == in_mixed_blocks.view(torch.int64)) | (in_blocks.isnan() & in_mixed_blocks.isnan())
    assert same.all(), f"{int((~same).sum())} differ, first at x = {x[shuffled][int((~same).nonzero()[0])].item()!r}"


@pytest.mark.parametrize("name", BESSEL_JY)
def test_bessel_jy_branches_taken_per_block_give_each_element_its_value(name):
    """Each branch runs only in blocks that have an element on its side (portable_sides): a block of |x| <= 5
    only, one of |x| > 5 only, and blocks of both give every element the same bits, whichever block it is in
    (the same values sorted by |x| against shuffled), nan and the infinities included."""
    generator = torch.Generator().manual_seed(3)
    assert_each_element_its_value_in_any_block(name, bessel_jy_blocks(generator, EDGES, F64, above=5.0000001), generator)


@pytest.mark.parametrize("name", ["digamma", "trigamma"])
def test_gamma_derivatives_branches_taken_per_block_give_each_element_its_value(name):
    """digamma's rational and recurrence (below 10), asymptotic series and reflection (x < 0), trigamma's
    recurrence steps and reflection, run only in blocks that have such elements (portable_sides_and_any): blocks of
    (0, 10) only, of [10, 1e6) only, of negatives only and of all three give every element the same bits, whichever
    block it is in (sorted against shuffled), the edges included."""
    generator = torch.Generator().manual_seed(5)
    low = torch.rand(1024, generator=generator, dtype=F64) * 10
    high = 10.0 + torch.rand(1024, generator=generator, dtype=F64) * 1e6
    negative = torch.rand(1024, generator=generator, dtype=F64) * -20
    mixed = torch.cat([torch.rand(1024 - len(EDGES), generator=generator, dtype=F64) * 60 - 30, torch.tensor(EDGES)])
    assert_each_element_its_value_in_any_block(name, torch.cat([low, high, negative, mixed]), generator)


SIDES_KERNEL = """
def sides_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, SCALAR: tl.constexpr):
    pid = tl.program_id(0)
    if SCALAR:
        x = tl.load(x_ptr + pid)
    else:
        x = tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))
    inside, outside = portable_sides(x > 0.0)
    tl.store(out_ptr + 2 * pid, inside.to(tl.int32))
    tl.store(out_ptr + 2 * pid + 1, outside.to(tl.int32))
"""


@pytest.mark.parametrize("scalar", [False, True], ids=["block", "scalar"])
def test_sides_answers_both_tests_of_each_block(scalar, tmp_path):
    """portable_sides(mask) is (any element holds, any does not), per block, from one reduction: blocks of all,
    none, one element at either end, and half; a scalar mask (a broadcast input loads a scalar) too."""
    module = load_helpers_with_kernel(tmp_path / f"sides_{'scalar' if scalar else 'block'}.py", [pm.portable_sides],
                                      SIDES_KERNEL)
    block = 1 if scalar else 64
    masks = block_masks(block, scalar)
    x = torch.cat([torch.where(mask.bool(), 1.5, -0.5) for mask in masks]).to(F64)
    out = torch.empty(2 * len(masks), dtype=torch.int32)
    InterpretedFunction(module.sides_kernel)[(len(masks),)](x, out, BLOCK=block, SCALAR=scalar)
    expected = [[int(mask.bool().any()), int((~mask.bool()).any())] for mask in masks]
    assert out.view(-1, 2).tolist() == expected


def test_bessel_jy_divide_twice():
    """5/x and one quotient for both branches: CUDA runs these in float64, where a division is a dozen
    instructions (test_digamma_divides_twice_and_calls_no_sine)."""
    def divisions(name):  # its own and its helpers'
        tree = helper_tree(name)
        called = {node.func.id for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
        return len(divisions_in(tree)) + sum(divisions(c[len("portable_"):]) for c in called
                                             if c.startswith("portable_"))
    assert [divisions(name) for name in BESSEL_JY] == [2, 2, 2, 2]


# relative error against the correctly rounded value (tritonize.math's) measured on these domains: 6.4e-16
# (k0), 7.9e-16 (k0e), 5.1e-16 (k1), 6.2e-16 (k1e), all on [0, 2] next to 2, where the Chebyshev sum in
# x^2 - 2 cancels (at 2e4 random points on [0, 2]: 9, 8, 5 and 5 ulp; torch's own 11, 13, 7 and 5); above 2
# the values are torch's operations in torch's order (2-4 ulp), the subnormal ones from x ~ 708 exact here
K_RTOL = {"k0": 7e-16, "k0e": 8.5e-16, "k1": 5.5e-16, "k1e": 6.5e-16}


@pytest.mark.parametrize("name", sorted(K_RTOL))
def test_bessel_k_true_value(name):
    x = DOMAINS[name]()
    x = x[x.isfinite()]
    truth = torch.tensor([getattr(tritonize.math, K_NAMES[name])(v) for v in x.tolist()], dtype=F64)
    assert_matches(run(name, x), truth, K_RTOL[name], 1e-323, inputs=(x,))


# Ai against the true value (tritonize.math's), each range as its method allows (measured on the domain):
# the series on (-2.09, 2.09) cancels to Ai(2.09) ~ 0.03 of its terms: 5.6e-16 of the amplitude 0.56
# (1.0e-14 relative at 2.08); the decaying side divides by exp(zeta), whose argument's rounding makes
# ~zeta 2^-53 of relative error (measured: 2.16 zeta 2^-53, 1.1e-13 at x = 103), its subnormal values
# within 42 units of 5e-324; the oscillating side's phase zeta + pi/4 does the same to its amplitude
# 0.56 |x|^(-1/4) (measured: 2.6 zeta 2^-53, 4.6e-13 at -247). torch's errors are the same but between
# -8 and -2.09, where they reach 1.7e-5.
def test_airy_ai_true_value():
    x = DOMAINS["airy_ai"]()
    x = x[x.isfinite() & (x > -300)]
    truth = torch.tensor([tritonize.math.airy_ai(v) for v in x.tolist()], dtype=F64)
    error = (run("airy_ai", x) - truth).abs()
    zeta = 2.0 / 3.0 * x.abs() ** 1.5
    amplitude = 0.5641895835477563 * x.abs().clamp(min=1.0) ** -0.25
    middle, negative = x.abs() < 2.09, x <= -2.09
    normal = (x >= 2.09) & (truth >= 2.2250738585072014e-308)
    subnormal = (x >= 2.09) & ~normal
    assert (error[middle] <= 7e-16 * amplitude[middle]).all()
    assert (error[negative] <= (2.7 * zeta[negative] + 8) * 2.0 ** -53 * amplitude[negative]).all()
    assert (error[normal] <= (2.5 * zeta[normal] + 8) * 2.0 ** -53 * truth[normal]).all()
    assert (error[subnormal] <= 2.5e-322).all() and subnormal.sum() > 20


def _trigamma_true(mp, x):
    return mp.inf if (x <= 0 and x == mp.floor(x)) else mp.psi(1, x)


def test_trigamma_true_value():
    """Within 1e-15 relative everywhere: x > 0 (across the eight recurrence steps and the series, and next to
    0, where psi1 = 1 / x^2 reaches the largest float64 at 7.458e-155 and the steps' q w underflows below it),
    and x < 0, whose reflection adds two positive terms' worth of rounding and next to each pole keeps 1 / u^2
    exact."""
    pos = np.concatenate([_lin(1e-3, 12, 1500), _geo(1e-300, 1e300, 300), 8 + _pm(_geo(1e-16, 1, 100)),
                          _lin(7.40e-155, 7.52e-155, 25), _geo(1e-160, 1e-150, 200), [5e-324]])
    # (mpmath's psi(1, x) takes seconds a value below -1e4)
    neg = np.concatenate([_lin(-10, -1e-3, 1000), -_geo(1e-300, 1e4, 200),
                          -np.arange(1, 20) + 1e-12, -np.arange(1, 20) - 1e-12, [-0.9999999999999999]])
    neg = neg[neg != np.floor(neg)]
    for v in (pos, neg):
        x = torch.from_numpy(v)
        assert_matches(run("trigamma", x), _mp_ref(_trigamma_true, x), 1e-15, inputs=(x,))


def test_lgamma_true_value():
    pos = np.concatenate([_lin(1e-3, 12, 1500), 1 + _pm(_geo(1e-16, 0.3, 200)), 2 + _pm(_geo(1e-16, 0.3, 200)),
                          _geo(1e-300, 1e300, 300)])
    x = torch.from_numpy(pos)
    assert_matches(run("lgamma", x), _mp_ref(_lgamma_true, x), inputs=(x,))
    neg = np.concatenate([_lin(-10, -1e-3, 1000), -_geo(1e-300, 1e14, 200)])
    neg = neg[neg != np.floor(neg)]
    x = torch.from_numpy(neg)
    assert_matches(run("lgamma", x), _mp_ref(_lgamma_true, x), 1e-13, 1e-14, inputs=(x,))


def test_erfinv_true_value():
    v = np.concatenate([_lin(-1, 1, 1001)[1:-1], _pm(1 - _geo(1.1102230246251565e-16, 0.5, 400)),
                        _pm(_geo(1e-300, 0.5, 200))])
    x = torch.from_numpy(v)
    assert_matches(run("erfinv", x), _mp_ref(lambda mp, t: mp.erfinv(t), x), inputs=(x,))


def test_erfc_tail_true_value():
    # erfc(x) stays relatively accurate while it is a normal number (x < 26.55); 1 - erf(x) would not
    x = torch.from_numpy(np.concatenate([_lin(-6, 26.5, 1500), [10.0, 20.0, 26.0]]))
    ref = _mp_ref(lambda mp, t: mp.erfc(t), x)
    assert_matches(run("erfc", x), ref, inputs=(x,))
    assert abs(run("erfc", torch.tensor([10.0], dtype=F64)).item() / 2.088487583762545e-45 - 1) < 1e-13


def test_pow_true_value():
    a, b = _pow_inputs()
    keep = torch.isfinite(a) & torch.isfinite(b) & (a != 0) & ((a > 0) | (b == b.floor()))
    a, b = a[keep], b[keep]
    ref = _mp_ref(lambda mp, u, v: mp.re(mp.power(u, v)), a, b)
    assert_matches(run("pow", a, b), ref, rtol=1e-14, atol=1e-300, inputs=(a, b))


def test_pow_within_an_ulp_of_the_true_value():
    """float64 pow of normal results lands within 1 ulp of the true value: exp(p) times the
    low part pe of b * log|a| is added to exp(p), where a factor 1.0 + pe rounded pe to a
    multiple of 2^-53 (up to 2 ulp; 2.0 ** 4.0 was 15.999999999999998)."""
    a, b = _pow_inputs()
    keep = torch.isfinite(a) & torch.isfinite(b) & (a > 0)
    a, b = a[keep], b[keep]
    ref = _mp_ref(lambda mp, u, v: mp.power(u, v), a, b)
    normal = torch.isfinite(ref) & (ref.abs() >= TINY)
    got, ref = run("pow", a, b)[normal], ref[normal]
    ulps = (got - ref).abs() / torch.from_numpy(np.spacing(ref.abs().numpy()))
    assert float(ulps.max()) <= 1.0, float(ulps.max())
    assert run("pow", torch.tensor([2.0], dtype=F64), torch.tensor([4.0], dtype=F64)).item() == 16.0


def test_cbrt_true_value():
    x = torch.from_numpy(np.concatenate([_pm(_geo(5e-324, 1.7e308, 600)), _lin(-3, 3, 601)]))
    ref = _mp_ref(lambda mp, t: mp.sign(t) * mp.cbrt(abs(t)), x)
    assert_matches(run("cbrt", x), ref, inputs=(x,))


# ---------------------------------------------------------------------------------------------
# the same source compiled with @triton.jit on a GPU

@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_gpu_jit_matches_interpreter(name):
    if name == "ldexp":
        ns = torch.tensor([0, 7, -7, 1100, -1100, 2100, -2100, -1075], dtype=torch.int64)
        args = (torch.tensor(EDGES, dtype=F64).repeat_interleave(len(ns)), ns.repeat(len(EDGES)))
    elif name == "pow":
        args = _pow_inputs()
    elif name in BINARY:
        args = _pairs(*_random_pairs(1000))
    elif name == "signbit":
        args = (torch.tensor(EDGES, dtype=F64),)
    else:
        args = (DOMAINS[name](),)
    cpu = run(name, *args)
    gpu = run(name, *args, device="cuda")
    if name == "signbit":
        assert torch.equal(gpu, cpu)
        return
    # exact ops must agree bit for bit; the others differ by libdevice vs numpy libm ulps (and
    # by ~1e-15 absolute next to the negative zeros of lgamma and digamma, as documented)
    exact = name in {"trunc", "round_half_even", "fmod", "nextafter", "copysign", "ldexp"}
    # and by a few float64 ulp of the envelope next to the Bessel functions' zeros (sin and cos of libdevice
    # against numpy's: 4.5e-17 apart at J1's zero 3.83)
    atol = {"lgamma": 1e-14, "digamma": 2e-14, "bessel_j0": 1e-15, "bessel_j1": 1e-15, "bessel_y0": 1e-15,
            "bessel_y1": 1e-15}.get(name, 0.0)
    assert_matches(gpu, cpu, rtol=0.0 if exact else 1e-13, atol=atol, inputs=args)


def float64_ulps(got, exact):
    """|got - exact| in units of the float64 spacing at exact (a float64 tensor of true values)."""
    spacing = torch.tensor([math.ulp(v) for v in exact.tolist()], dtype=F64)
    return (got - exact).abs() / spacing


@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if torch.cuda.is_available() else []))
def test_portable_sincos_is_within_two_ulp_below_2_to_31(device, tmp_path_factory):
    """portable_sincos (the float64 Bessel functions' Hankel branches) against the true sine and cosine (mpmath) on
    |x| < 2^31: within 2 ulp (libdevice's sin and cos bound), next to multiples of pi/2 (where the reduction
    cancels) too; +-0 keep sin's sign. Where tl.math.fma rounds the product apart (Triton 3.6's interpreter),
    portable_fma_rounds_apart says so, which sends the callers to tl.math.sin and cos."""
    from test_float32_math import fma_rounds_apart, run_sincos, sincos_module

    kernel = sincos_module(tmp_path_factory, jit=device == "cuda", prefix="portable")
    multiples = torch.tensor([k * (math.pi / 2) for k in (1, 2, 3, 7, 100, 12345, 6_000_000, 1_000_000_007)],
                             dtype=F64)
    x = torch.cat([torch.tensor(_lin(-30.0, 30.0, 1_001)), torch.tensor(_geo(1e-300, 2.1e9, 1_000)), multiples,
                   torch.nextafter(multiples, torch.tensor(0.0, dtype=F64)),
                   torch.nextafter(multiples, torch.tensor(3e9, dtype=F64)), torch.tensor([0.0, -0.0])])
    x = torch.cat([x, -x])
    s, c, _, _, apart = (out.cpu() for out in run_sincos(kernel, x.to(device)))
    if fma_rounds_apart(apart, device):
        return  # the callers never read portable_sincos here: the Bessel tests hold them
    for got, name in ((s, "sin"), (c, "cos")):
        exact = _mp_ref(lambda mp, v: getattr(mp, name)(v), x)
        error = float64_ulps(got, exact)
        worst = int(error.argmax())
        assert error.max() <= 2.0, f"{name}: {error.max():.2f} ulp at x = {x[worst].item()!r}"
    zero = x == 0.0
    assert torch.equal(s[zero].signbit(), x[zero].signbit()) and bool((c[zero] == 1.0).all())


@pytest.mark.skipif(not torch.cuda.is_available(), reason="libdevice's sin and cos run compiled")
def test_portable_sincos_is_libdevices_sin_and_cos_bit_for_bit_below_2_to_31(tmp_path_factory):
    """Compiled, portable_sincos gives tl.math.sin's and tl.math.cos's (libdevice's) bits on 2^24 float64 of every
    magnitude below 2^31, both signs, and next to 2^20 multiples of pi/2 (NaN for NaN)."""
    from test_float32_math import run_sincos, sincos_module

    kernel = sincos_module(tmp_path_factory, jit=True, prefix="portable")
    generator = torch.Generator(device="cuda").manual_seed(7)
    magnitude = torch.exp2(torch.rand(2**24, generator=generator, device="cuda", dtype=F64) * 1051.0 - 1020.0)
    sign = torch.randint(0, 2, (2**24,), generator=generator, device="cuda") * 2.0 - 1.0
    multiples = torch.randint(1, 2**30, (2**20,), generator=generator, device="cuda").double() * (math.pi / 2)
    for x in (sign * magnitude, multiples, torch.nextafter(multiples, torch.zeros_like(multiples))):
        s, c, sin, cos, apart = run_sincos(kernel, x)
        assert not bool(apart.bool().any())
        same_s = (s.view(torch.int64) == sin.view(torch.int64)) | (s.isnan() & sin.isnan())
        same_c = (c.view(torch.int64) == cos.view(torch.int64)) | (c.isnan() & cos.isnan())
        assert bool(same_s.all()), f"{int((~same_s).sum())} sines differ, first at {x[~same_s][0].item()!r}"
        assert bool(same_c.all()), f"{int((~same_c).sum())} cosines differ, first at {x[~same_c][0].item()!r}"
