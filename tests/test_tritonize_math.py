"""tritonize.math: the functions Python's math lacks (erfinv, digamma), in @pointwise bodies and
as plain Python.

Plain Python: each function against torch.special in float64 and against mpmath, over the
domains test_portable_math.py gives the kernel composites, special values and signed zeros
exactly. In kernels: a user's @pointwise function over Hypothesis-drawn shapes, layouts and
dtypes against torch and against its own scalar function run as plain Python. (How the three
spellings resolve, lower and fail: test_passes.py, test_errors.py, test_autograd.py.)
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import tritonize.math as tm
from tensor_strategies import FLOAT_DTYPES, INT_DTYPES, TOLERANCE, laid_out, make_values, python_elementwise, shapes
from test_portable_math import DOMAINS, EDGES, _digamma_true, _mp_ref, assert_matches
from tritonize import pointwise
from tritonize.passes.math_table import MATH_TABLE

F64 = torch.float64


def plain(fn, x: torch.Tensor) -> torch.Tensor:
    return torch.tensor([fn(v) for v in x.tolist()], dtype=F64)


def torch_can_judge(name, x: torch.Tensor) -> torch.Tensor:
    """torch.digamma is far off just above the negative integers (test_portable_math.py says
    why; the true-value test covers them): leave those out of comparisons with torch."""
    if name != "digamma":
        return x
    return x[~((x < 0) & ((x - x.round()).abs() < 1e-6) & (x != x.round()))]


def test_every_function_is_a_math_table_row():
    assert tm.__all__ and set(tm.__all__) <= set(MATH_TABLE)
    # round is the builtin's row
    assert all(hasattr(math, n) or hasattr(tm, n) or n == "round" for n in MATH_TABLE), "a row no user can call"
    assert not set(tm.__all__) & set(dir(math)), "tritonize.math is for what math lacks"


def test_special_values_as_torch():
    for name in tm.__all__:
        x = torch_can_judge(name, torch.tensor(EDGES, dtype=F64))
        assert_matches(plain(getattr(tm, name), x), getattr(torch.special, name)(x), 1e-13, 1e-15, inputs=(x,))
    assert tm.erfinv(-0.0) == 0.0 and math.copysign(1.0, tm.erfinv(-0.0)) == -1.0
    assert [tm.erfinv(v) for v in (1.0, -1.0)] == [math.inf, -math.inf]
    assert math.isnan(tm.erfinv(1.0000000000000002)) and math.isnan(tm.erfinv(-math.inf))
    assert [tm.digamma(v) for v in (0.0, -0.0, math.inf)] == [-math.inf, math.inf, math.inf]
    assert all(math.isnan(tm.digamma(v)) for v in (-1.0, -2.0, -1e20, -math.inf, math.nan))
    assert tm.erfinv(1) == math.inf and tm.digamma(True) == tm.digamma(1.0)  # ints and bools are numbers


def test_erfinv_matches_torch_and_the_true_value():
    x = DOMAINS["erfinv"]()
    assert_matches(plain(tm.erfinv, x), torch.special.erfinv(x), 1e-13, 0.0, inputs=(x,))
    inside = x[(x.abs() < 1) & (x != 0)]  # mpmath has no -0.0
    assert_matches(plain(tm.erfinv, inside), _mp_ref(lambda mp, t: mp.erfinv(t), inside), 1e-15, 0.0,
                   inputs=(inside,))


def test_digamma_matches_torch_and_the_true_value():
    x = torch_can_judge("digamma", DOMAINS["digamma"]())
    assert_matches(plain(tm.digamma, x), torch.special.digamma(x), 1e-13, 1e-11, inputs=(x,))
    # the true value: a few ulp of the terms summed, ~1e-15 absolute next to the zeros of digamma
    x = DOMAINS["digamma"]()
    x = x[x.isfinite() & ~((x <= 0) & (x == x.round()))]
    assert_matches(plain(tm.digamma, x), _mp_ref(_digamma_true, x), 1e-13, 3e-15, inputs=(x,))
    near_poles = torch.from_numpy(-np.arange(1, 20) + np.array([[1e-12], [-1e-12]])).flatten()
    assert_matches(plain(tm.digamma, near_poles), _mp_ref(_digamma_true, near_poles), 1e-13, 0.0,
                   inputs=(near_poles,))


# -- in a user's @pointwise function ----------------------------------------------------------

def special(p, scale):
    """A user's function of both: each argument as drawn, so that torch rounds nothing before them."""
    return scale * tm.erfinv(p) + tm.digamma(p + 2.0)


def _special_torch(p, scale):
    return scale * torch.special.erfinv(p) + torch.special.digamma(p + 2.0)


SPECIAL = pointwise(special)


@given(data=st.data())
def test_user_function_against_torch_and_python(data, device):
    shape = data.draw(shapes(max_rank=4), label="shape")
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES + INT_DTYPES[:1]), label="dtype")
    generator = torch.Generator().manual_seed(data.draw(st.integers(0, 2**31 - 1), label="seed"))
    # mostly inside [-1, 1], where erfinv is finite but at the ends; sometimes outside (nan)
    low, high = data.draw(st.sampled_from([(-1, 1), (-1, 1), (-2, 2)]), label="range")
    p = data.draw(laid_out(make_values(shape, dtype, generator, low, high), device), label="p")
    scale = data.draw(st.sampled_from([1.0, -0.5, 3]), label="scale")

    got = SPECIAL(p, scale)
    expected = _special_torch(p if p.is_floating_point() else p.float(), scale)  # torch's dtype
    assert got.dtype == expected.dtype and got.shape == expected.shape
    rtol, atol = TOLERANCE[got.dtype]
    reference = _special_torch(p.double(), scale).to(got.dtype)  # float64, rounded once as ours is
    torch.testing.assert_close(got.double(), reference.double(), rtol=rtol, atol=atol, equal_nan=True)

    if got.numel() <= 64:  # the same scalar function, element by element in plain Python
        python_values = torch.tensor(python_elementwise(special, [p, scale], tuple(got.shape))[0], dtype=F64)
        python_values = python_values.reshape(got.shape).to(got.dtype).double()
        torch.testing.assert_close(got.double().cpu(), python_values, rtol=rtol, atol=atol, equal_nan=True)
