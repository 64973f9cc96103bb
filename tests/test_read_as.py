"""Parameters annotated with a torch dtype (`x: torch.float64`): a tensor argument is read as that
dtype, converted on load as `x.to(dtype)` converts it (no copy beforehand), and a number takes the
dtype's Python kind. Under this file's `from __future__ import annotations` every annotation is a
string, so the lookup of `torch.float64` by name is what these tests run."""
from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tensor_strategies import laid_out, make_values, python_elementwise

import tritonize.ops as tops
from tritonize import pointwise
from tritonize.errors import ScalarTypeError


@pointwise
def scaled_sum(x, y):
    return x * 2 + y / 3


@pointwise
def scaled_sum_float64(x: torch.float64, y):
    return x * 2 + y / 3


@pointwise
def scaled_sum_float32(x: torch.float32, y):
    return x * 2 + y / 3


@pointwise
def scaled_sum_bfloat16(x: torch.bfloat16, y):
    return x * 2 + y / 3


@pointwise
def scaled_sum_int32(x: torch.int32, y):
    return x * 2 + y / 3


@pointwise
def scaled_sum_bool(x: torch.bool, y):
    return x * 2 + y / 3


READ_AS = {torch.float64: scaled_sum_float64, torch.float32: scaled_sum_float32,
           torch.bfloat16: scaled_sum_bfloat16, torch.int32: scaled_sum_int32, torch.bool: scaled_sum_bool}
STORED = [torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int8,
          torch.uint8, torch.bool]


def same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    assert torch.equal(a.nan_to_num(), b.nan_to_num()) and torch.equal(a.isnan(), b.isnan()), (a, b)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), read_as=st.sampled_from(list(READ_AS)), stored=st.sampled_from(STORED),
       other=st.sampled_from([torch.float32, torch.bfloat16, torch.int32]))
def test_a_tensor_is_read_as_its_annotation(data, read_as, stored, other, device):
    """Bit for bit what the function without the annotation gives on `x.to(read_as)`, over drawn
    dtypes, shapes, broadcasts and layouts; and near the plain-Python function on those values."""
    shape = tuple(data.draw(st.lists(st.integers(1, 9), min_size=1, max_size=3)))
    y_shape = shape[data.draw(st.integers(0, len(shape) - 1)):]
    generator = torch.Generator().manual_seed(data.draw(st.integers(0, 2**16)))
    x = data.draw(laid_out(make_values(shape, stored, generator, low=-3, high=3), device))
    y = data.draw(laid_out(make_values(y_shape, other, generator), device))
    got = READ_AS[read_as](x, y)
    expected = scaled_sum(x.to(read_as), y)
    same(got, expected)
    if read_as == torch.float64:
        reference = python_elementwise(_scaled_sum_python, [x.double(), y.double()], shape)[0]
        torch.testing.assert_close(got.cpu(), torch.tensor(reference, dtype=torch.float64).reshape(shape))


@pytest.mark.parametrize("stored", STORED, ids=lambda d: str(d)[6:])
def test_a_0d_cpu_tensor_is_read_as_its_annotation(stored, device):
    """A 0-d tensor in CPU memory, passed to the kernel by value (its value in by_value_dtype), is
    converted in the kernel as `x.to(read_as)` converts it, bit for bit, for every annotation."""
    y = torch.linspace(-2, 2, 7, device=device)
    generator = torch.Generator().manual_seed(7)
    for _ in range(3):
        x = make_values((), stored, generator, low=-3, high=3)
        for read_as, fn in READ_AS.items():
            spec = fn.plan((x, y), {}, None)[1]
            assert spec.params[0].by_value and spec.params[0].stored == (stored if stored != read_as else None)
            for _ in range(2):  # planned, then the recipe
                same(fn(x, y), scaled_sum(x.to(read_as), y))


def _scaled_sum_python(x, y):
    return x * 2 + y / 3


def test_bool_reading_is_torchs(device):
    """x.to(torch.bool) is x != 0: 0.5, -2 and NaN are True (Triton's cast to int1 would truncate)."""
    x = torch.tensor([0.0, 0.5, -2.0, math.nan, -0.0, 3.0], device=device)
    same(scaled_sum_bool(x, 0.0), scaled_sum(x.to(torch.bool), 0.0))
    assert scaled_sum_bool(x, 0.0).tolist() == [0.0, 2.0, 2.0, 2.0, 0.0, 2.0]
    n = torch.tensor([0, 1, 2, -4, 256], dtype=torch.int32, device=device)
    assert scaled_sum_bool(n, 0.0).tolist() == [0.0, 2.0, 2.0, 2.0, 2.0]


def test_numbers_take_the_dtypes_python_kind(device):
    y = torch.linspace(-2, 2, 11, device=device)
    same(scaled_sum_float64(2, y), scaled_sum(2.0, y))  # an int for a float64 parameter: a float
    same(scaled_sum_int32(2.75, y), scaled_sum(2, y))   # a float for an int32 one: int(2.75)
    same(scaled_sum_bool(0.25, y), scaled_sum(True, y))
    for _ in range(2):  # the second call of each takes the memoized path, which converts too
        same(scaled_sum_int32(-1.5, y), scaled_sum(-1, y))
        same(scaled_sum_float64(3, y), scaled_sum(3.0, y))


def test_the_conversion_is_in_the_kernel(device, monkeypatch):
    """No conversion through torch before the launch: the load converts, and the plan says so."""
    x = torch.randn(4, 5, device=device)
    y = torch.randn(4, 5, device=device)
    scaled_sum_float64(x, y)  # planned

    def refuse(*args, **kwargs):
        raise AssertionError("converted by torch")
    monkeypatch.setattr(torch.Tensor, "to", refuse)
    monkeypatch.setattr(torch.Tensor, "double", refuse)
    result = scaled_sum_float64(x, y)
    monkeypatch.undo()
    same(result, scaled_sum(x.double(), y))
    source = scaled_sum_float64.source(x, y)
    assert "x = tl.load(" in source and ").to(tl.float64)" in source
    assert "x: float32 tensor read as float64" in scaled_sum_float64.explain(x, y)
    # a tensor already of the annotated dtype loads as it is: another specialization
    assert "read as" not in scaled_sum_float64.explain(x.double(), y)


def test_promotion_reads_the_annotated_dtype(device):
    @pointwise(promotion="default")
    def added(x: torch.float64, y):
        return x + y
    x, y = torch.ones(3, device=device), torch.ones(3, dtype=torch.bfloat16, device=device)
    assert added(x, y).dtype == torch.float64
    assert added(x, 1).dtype == torch.float64
    out = torch.empty(3, dtype=torch.float32, device=device)
    with pytest.raises(RuntimeError, match="can't be cast|float64|Double"):
        added(x, y, out=torch.empty(3, dtype=torch.int32, device=device))
    added(x, y, out=out)  # float64 results cast into a float32 out=, as torch's out= does
    assert out.tolist() == [2.0, 2.0, 2.0]


def test_gradients_through_a_read_parameter(device):
    x = torch.linspace(0.5, 2.0, 7, device=device, requires_grad=True)
    y = torch.linspace(-1.0, 1.0, 7, device=device)
    result = scaled_sum_float64(x, y)
    assert result.dtype == torch.float64
    result.sum().backward()
    assert x.grad.dtype == torch.float32
    assert torch.equal(x.grad, torch.full_like(x, 2.0))


def test_float_power_reads_float64_without_copies(device, monkeypatch):
    """tritonize.ops.float_power converts its inputs on load, as one kernel, not two copies and a pow."""
    generator = torch.Generator().manual_seed(3)
    x = (torch.rand(6, 7, generator=generator) * 3 + 0.1).to(device)
    y = (torch.rand(7, generator=generator) * 4 - 2).to(device=device, dtype=torch.bfloat16)
    expected = torch.float_power(x, y)
    from tritonize.ops import arithmetic

    def refuse(*args, **kwargs):
        raise AssertionError("float_power copied an input")
    monkeypatch.setattr(arithmetic, "to_copy", refuse)
    got = tops.float_power(x, y)
    assert got.dtype == torch.float64
    torch.testing.assert_close(got, expected, rtol=4 * torch.finfo(torch.float64).eps, atol=0)
    same(tops.float_power(2, y), tops.float_power(2.0, y.double()))


def test_a_dtype_annotation_tritonize_cannot_compute_in():
    with pytest.raises(ScalarTypeError) as info:
        @pointwise
        def complex_read(x: torch.complex64):
            return x
    message = str(info.value)
    assert "test_read_as.py" in message and "torch.complex64" in message and "'x'" in message
    assert "x: torch.complex64" in message and "^" in message  # the line and a caret under the annotation


def half_of(x: torch.float64):
    return x / 2


def test_a_helper_cannot_read_as_a_dtype():
    """Inlined, a helper's parameters are the caller's values: no load would convert them."""
    with pytest.raises(ScalarTypeError, match="helper parameter 'x'"):
        @pointwise
        def calls_helper(x):
            return half_of(x)
