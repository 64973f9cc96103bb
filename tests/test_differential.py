"""Differential tests: each @pointwise function against torch (float64 reference, dtype parity)
and against the same scalar function run element by element in plain Python, over Hypothesis-
drawn ranks, shapes with 0/1 sizes, broadcasts, layouts, Python-number arguments and dtypes."""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from tensor_strategies import (ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, TOLERANCE, broadcast_shapes, laid_out,
                               make_values, python_elementwise, shapes)
from tritonize import pointwise


def arith(a, b):
    return a * 2.5 - b / 4 + 1


def poly(a, b):
    return a * a + 3 * a * b - b ** 2


def floordiv(a, b):
    return a // b


def mod(a, b):
    return a % b


def select(a, b):
    return a if a > b else b - 1


def branches(a, b):
    if a > 1:
        y = a - b
    elif a < -1:
        y = b * 2
    else:
        return a + 0.5
    return y * 3


def minmax(a, b):
    return max(a, b) - abs(min(a, 0))


def transcendental(a, b):
    return math.exp(a * 0.3) - math.sin(b) + math.sqrt(abs(a)) + math.tanh(a) * math.log(abs(b) + 1.0)


def compare(a, b):
    return a < b, -1 < a <= b


def bitwise(a, b):
    return (a & b) ^ (a | 3), a << 2, b >> 1


def casts(a, b):
    return float(a) / 2 + int(b)


def powers(a, b):
    return abs(a) ** 0.5 + abs(b) ** 1.7 - a ** 3


def logic(a, b):
    return (a > 0 and b > 0) or not (a < b)


def polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


def _float(t):
    return t if t.is_floating_point() else t.float()


def _trunc_long(t):
    return t.trunc().long() if t.is_floating_point() else t


class Case(NamedTuple):
    fn: Callable
    reference: Callable  # the same computation on torch tensors
    dtypes: list
    nonzero_b: bool = False
    python_check: bool = True  # Python and torch agree on these values
    outputs: int = 1
    python_b: bool = True  # the reference handles a Python number for b (torch.sin does not)


CASES = {
    "arith": Case(arith, arith, FLOAT_DTYPES + INT_DTYPES),
    "poly": Case(poly, poly, FLOAT_DTYPES + INT_DTYPES),
    "floordiv": Case(floordiv, floordiv, FLOAT_DTYPES + INT_DTYPES, nonzero_b=True),
    "mod": Case(mod, mod, FLOAT_DTYPES + INT_DTYPES, nonzero_b=True),
    "select": Case(select, lambda a, b: torch.where(a > b, a, b - 1), ALL_DTYPES[:-1]),
    "branches": Case(branches, lambda a, b: torch.where(a > 1, (a - b) * 3, torch.where(a < -1, b * 2 * 3, a + 0.5)),
                     FLOAT_DTYPES + INT_DTYPES),
    "minmax": Case(minmax, lambda a, b: torch.where(a >= b, a, b) - torch.abs(torch.clamp(a, max=0)),
                   FLOAT_DTYPES + INT_DTYPES),
    "transcendental": Case(transcendental, lambda a, b: torch.exp(a * 0.3) - torch.sin(_float(torch.as_tensor(b)))
                           + torch.sqrt(torch.abs(a)) + torch.tanh(a) * torch.log(torch.abs(torch.as_tensor(b)) + 1.0),
                           FLOAT_DTYPES + INT_DTYPES, python_b=False),
    "compare": Case(compare, lambda a, b: (a < b, (a > -1) & (a <= b)), ALL_DTYPES[:-1], outputs=2),
    "bitwise": Case(bitwise, lambda a, b: ((a & b) ^ (a | 3), a << 2, b >> 1), INT_DTYPES, outputs=3),
    "casts": Case(casts, lambda a, b: _float(a) / 2 + _trunc_long(torch.as_tensor(b)), FLOAT_DTYPES + INT_DTYPES, python_b=False),
    "powers": Case(powers, lambda a, b: torch.abs(a) ** 0.5 + torch.abs(torch.as_tensor(b)) ** 1.7 - a ** 3,
                   [torch.float32, torch.float64], python_b=False),
    "logic": Case(logic, lambda a, b: ((a > 0) & (b > 0)) | ~(a < b), ALL_DTYPES[:-1]),
    "polar": Case(polar, lambda r, t: (r * torch.cos(t), r * torch.sin(t)), FLOAT_DTYPES, outputs=2, python_b=False),
}
COMPILED = {name: pointwise(case.fn) for name, case in CASES.items()}


def _to_reference(value):
    """Float tensors go to float64 for the reference; ints, bools and Python numbers stay."""
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.double()
    return value


def _tolerance(output_dtype, args):
    """Torch rounds each intermediate in its own dtype (an fp32 product inside an fp64 result,
    an int tensor times 2.5 in float32), so the loosest precision that takes part counts."""
    dtypes = {output_dtype}
    for arg in args:
        if isinstance(arg, torch.Tensor):
            dtypes.add(arg.dtype if arg.is_floating_point() else torch.float32)
    return max(TOLERANCE[d] for d in dtypes if d in TOLERANCE)


def as_gpu_reads(value, other):
    """The values of a tensor that will be laid out in GPU memory, `value`, as torch's CUDA kernels (and
    tritonize's) read them beside a tensor `other`: a 0-d float tensor beside one of dims is cast to their
    common dtype first (x_f16 // torch.tensor(1.67, device="cuda") divides by
    float16's 1.669921875, where the float64 reference would divide by 1.67 and floor 1.9999 to 1, not 2), so
    the value drawn is one that cast keeps; test_semantics.py tests the cast itself."""
    if value.dim() or not value.is_floating_point() or not other.dim():
        return value
    return value.to(torch.result_type(other, value)).to(value.dtype)


def _check(name, got, expected_dtype, reference, device, args):
    assert got.dtype == expected_dtype, f"{name}: dtype {got.dtype}, torch gives {expected_dtype}"
    reference = reference.to(device)
    if expected_dtype.is_floating_point:
        rtol, atol = _tolerance(expected_dtype, args)
        torch.testing.assert_close(got.double(), reference.double(), rtol=rtol, atol=atol, equal_nan=True)
    else:
        assert torch.equal(got, reference.to(expected_dtype)), f"{name}: {got} != {reference}"


@pytest.mark.parametrize("name", sorted(CASES))
@given(data=st.data())
def test_against_torch_and_python(name, data, device):
    case = CASES[name]
    shape = data.draw(shapes(), label="shape")
    shape_a, shape_b = data.draw(broadcast_shapes(shape, 2), label="arg shapes")
    dtype_a = data.draw(st.sampled_from(case.dtypes), label="dtype a")
    dtype_b = data.draw(st.sampled_from(case.dtypes), label="dtype b")
    generator = torch.Generator().manual_seed(data.draw(st.integers(0, 2**31 - 1), label="seed"))
    a_values = make_values(shape_a, dtype_a, generator)
    kinds = ["tensor", "tensor", "python", "0-d"] if case.python_b else ["tensor", "tensor", "0-d"]
    b_kind = data.draw(st.sampled_from(kinds), label="b kind")
    b_values = make_values(shape_b if b_kind == "tensor" else (), dtype_b, generator, nonzero=case.nonzero_b)
    if device == "cuda" and b_kind != "python":
        a_values, b_values = as_gpu_reads(a_values, b_values), as_gpu_reads(b_values, a_values)
    a = data.draw(laid_out(a_values, device), label="a")
    b = data.draw(laid_out(b_values, device), label="b") if b_kind != "python" else b_values.item()
    if b_kind == "0-d":
        b = b_values.to(device)

    got = COMPILED[name](a, b)
    got = got if case.outputs > 1 else (got,)

    expected = case.reference(a, b)  # torch on the original dtypes: the dtype to match
    expected = expected if case.outputs > 1 else (expected,)
    reference = case.reference(_to_reference(a), _to_reference(b))
    reference = reference if case.outputs > 1 else (reference,)
    # every output has the broadcast shape of all arguments, even one that reads only `b`
    full_shape = torch.broadcast_shapes(*[x.shape for x in (a, b) if isinstance(x, torch.Tensor)])
    for k in range(case.outputs):
        assert got[k].shape == full_shape
        if not isinstance(expected[k], torch.Tensor):  # computed from Python numbers alone
            expected_dtype = torch.tensor(expected[k]).dtype
            if expected_dtype == torch.float64:
                expected_dtype = torch.get_default_dtype()
        else:
            expected_dtype = expected[k].dtype
        _check(name, got[k], expected_dtype, torch.as_tensor(reference[k]).expand(full_shape), device, [a, b])

    if case.python_check and got[0].numel() <= 64:
        plain = python_elementwise(case.fn, [a, b], tuple(got[0].shape), case.outputs)
        for k in range(case.outputs):
            python_values = torch.tensor(plain[k], dtype=torch.float64).reshape(got[k].shape)
            ours = got[k].double().cpu()
            if got[k].dtype.is_floating_point:
                rtol, atol = _tolerance(got[k].dtype, [a, b])
                torch.testing.assert_close(ours, python_values, rtol=rtol, atol=atol, equal_nan=True)
            else:
                assert torch.equal(ours, python_values)


@given(data=st.data())
def test_output_layout_follows_inputs(data, device):
    """Outputs are laid out like the inputs (TensorIterator's rule), so transposed in, transposed out."""
    shape = data.draw(shapes(max_rank=4), label="shape")
    generator = torch.Generator().manual_seed(data.draw(st.integers(0, 2**31 - 1)))
    a = data.draw(laid_out(make_values(shape, torch.float32, generator), device))
    b = data.draw(laid_out(make_values(shape, torch.float32, generator), device))
    got = COMPILED["arith"](a, b)
    expected = arith(a, b)
    if got.numel() > 1:  # the strides of size-1 dims mean nothing; compare the rest
        ours = [s for s, n in zip(got.stride(), got.shape) if n > 1]
        theirs = [s for s, n in zip(expected.stride(), expected.shape) if n > 1]
        assert ours == theirs, f"{got.stride()} vs torch {expected.stride()} for shape {tuple(got.shape)}"
    torch.testing.assert_close(got, expected, rtol=1.3e-6, atol=1e-5)


def axpy_and_diff(a, b):
    return a * 3 + b, a - b


AXPY_AND_DIFF = pointwise(axpy_and_diff)


@given(data=st.data())
def test_flat_walks_in_small_blocks(data, device):
    """Flat walks forced into blocks of 16-64 elements (call.LAUNCH_SHAPE_OVERRIDE; tiles keep
    theirs), so that most launches have whole blocks, which load and store without masks and
    address dense operands by the flat index, and a ragged last block: the results equal torch's
    for drawn broadcasts, layouts, int32 and float32 operands, with and without out= tensors in
    a drawn layout."""
    from tritonize import call

    shape = data.draw(shapes(max_rank=4, max_numel=300), label="shape")
    shape_a, shape_b = data.draw(broadcast_shapes(shape, 2), label="arg shapes")
    dtype_a, dtype_b = (data.draw(st.sampled_from([torch.int32, torch.float32]), label=f"dtype {n}") for n in "ab")
    generator = torch.Generator().manual_seed(data.draw(st.integers(0, 2**31 - 1), label="seed"))
    a = data.draw(laid_out(make_values(shape_a, dtype_a, generator), device), label="a")
    b = data.draw(laid_out(make_values(shape_b, dtype_b, generator), device), label="b")
    block = data.draw(st.sampled_from([16, 32, 64]), label="BLOCK")
    expected = (a * 3 + b, a - b)
    outs = None
    if data.draw(st.booleans(), label="out="):
        outs = tuple(data.draw(laid_out(torch.zeros(e.shape, dtype=e.dtype), device), label=f"out{k}")
                     for k, e in enumerate(expected))
    AXPY_AND_DIFF._recipes.clear()
    AXPY_AND_DIFF._out_recipes.clear()
    call.LAUNCH_SHAPE_OVERRIDE = lambda sizes, tile: ((block,), 1) if tile is None else None
    try:
        got = AXPY_AND_DIFF(a, b) if outs is None else AXPY_AND_DIFF(a, b, out=outs)
    finally:
        call.LAUNCH_SHAPE_OVERRIDE = None
        AXPY_AND_DIFF._recipes.clear()
        AXPY_AND_DIFF._out_recipes.clear()
    for ours, theirs in zip(got, expected):
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        assert torch.equal(ours, theirs) if not theirs.is_floating_point() else \
            torch.testing.assert_close(ours, theirs, rtol=1.3e-6, atol=1e-5) is None
    if outs is not None:
        assert all(o is g for o, g in zip(outs, got))
