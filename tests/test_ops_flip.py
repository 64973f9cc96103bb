"""flip: tritonize.ops.flip and the registered aten::flip / flip.out against torch.flip, over
drawn shapes, dims, dtypes and layouts (0-d and empty included), bit for bit and with torch's
output strides and errors."""
from __future__ import annotations

import warnings
from unittest import mock

import pytest
import torch
import torch.autograd.forward_ad as forward_ad
from hypothesis import given
from hypothesis import strategies as st

import tritonize
import tritonize.ops as tops
from tritonize.decorator import PointwiseFunction
from test_ops_cases import ALL_DTYPES
from tensor_strategies import laid_out, make_values, shapes


@st.composite
def flip_dims(draw, rank):
    """Distinct dims of a tensor of this rank, each maybe spelled negatively, in any order."""
    if rank == 0:
        return draw(st.sampled_from([[], [0], [-1]]))
    dims = draw(st.lists(st.integers(0, rank - 1), unique=True))
    return [d - rank if draw(st.booleans()) else d for d in dims]


def assert_same(got, expected):
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert torch.equal(got, expected)
    if got.is_floating_point() and got.numel():  # bit for bit: -0.0 stays -0.0
        assert torch.equal(got.signbit(), expected.signbit())


@given(data=st.data(), shape=shapes(max_rank=4), dtype=st.sampled_from(ALL_DTYPES))
def test_flip_matches_torch(data, shape, dtype, device):
    values = make_values(shape, dtype, torch.Generator().manual_seed(sum(shape) + len(shape)))
    x = data.draw(laid_out(values, device))
    if data.draw(st.booleans()) and x.dim() >= 2:
        x = x.transpose(0, -1)
    dims = data.draw(flip_dims(x.dim()))
    expected = torch.flip(x, dims)
    got = tops.flip(x, dims)
    assert_same(got, expected)
    if x.numel() > 1:
        assert got.stride() == expected.stride()  # laid out like the input, as torch's empty_like(preserve)
    out = torch.empty(0, dtype=dtype, device=device)
    assert tops.flip(x, dims, out=out) is out
    assert_same(out, expected)


@given(data=st.data(), shape=shapes(max_rank=3), dtype=st.sampled_from(ALL_DTYPES))
def test_registered_flip_matches_torch(data, shape, dtype, device):
    x = data.draw(laid_out(make_values(shape, dtype, torch.Generator().manual_seed(len(shape))), device))
    dims = data.draw(flip_dims(x.dim()))
    expected = torch.flip(x, dims)
    calls = []
    original = PointwiseFunction.__call__

    def spy(self, *args, **kwargs):
        calls.append(self.__name__)
        return original(self, *args, **kwargs)

    with mock.patch.object(PointwiseFunction, "__call__", spy), tritonize.enabled(devices=(device,)):
        got = torch.flip(x, dims)
        method = x.flip(dims) if dims else x.flip([])
        out = torch.empty_like(expected)
        torch.ops.aten.flip.out(x, dims, out=out)
    assert calls and set(calls) == {"_identity"}
    assert_same(got, expected)
    assert_same(method, expected)
    assert_same(out, expected)


def test_expanded_input_and_size_one_dims(device):
    x = torch.arange(4.0, device=device)
    assert_same(tops.flip(x.expand(3, 4), [0, 1]), torch.flip(x.expand(3, 4), [0, 1]))
    y = torch.randn(1, 5, 1, device=device)
    assert_same(tops.flip(y, [0, 2]), y.clone())
    assert_same(tops.flip(y, [0, 1, 2]), y.flip(1))


def test_signed_zeros_nan_and_inf_are_moved_bit_for_bit(device):
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        x = torch.tensor([-0.0, 0.0, float("inf"), -float("inf"), float("nan"), 1e-30], device=device).to(dtype)
        got = tops.flip(x, [0])
        bits = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32,
                torch.float64: torch.int64}[dtype]
        assert torch.equal(got.view(bits), x.flip(0).view(bits))


def test_errors_are_torchs(device):
    x = torch.randn(2, 3, device=device)
    for dims, error in (([0, 0], RuntimeError), ([1, -1], RuntimeError), ([2], IndexError), ([-3], IndexError)):
        with pytest.raises(error) as expected:
            torch.flip(x, dims)
        with pytest.raises(error) as ours:
            tops.flip(x, dims)
        assert str(ours.value) == str(expected.value)
    scalar = torch.tensor(2.0, device=device)
    assert_same(tops.flip(scalar, [0]), scalar)
    assert_same(tops.flip(scalar, [-1]), scalar)
    with pytest.raises(IndexError, match=r"\[-1, 0\], but got 1"):
        tops.flip(scalar, [1])
    with pytest.raises(RuntimeError, match="appears multiple times"):
        tops.flip(scalar, [0, -1])
    with pytest.raises(TypeError, match="tuple of ints"):
        tops.flip(x, 0)
    with pytest.raises(TypeError, match="found element of type float at pos 1"):
        tops.flip(x, [0, 0.5])
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got double instead"):
        tops.flip(x, [0], out=torch.empty(2, 3, dtype=torch.float64, device=device))


def test_out_is_resized_and_may_be_the_input(device):
    x = torch.randn(4, 5, device=device)
    expected = x.flip(0, 1)
    out = torch.empty(7, device=device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert tops.flip(x, [0, 1], out=out) is out
    assert out.shape == (4, 5) and any("was resized" in str(w.message) for w in caught)
    assert_same(out, expected)
    transposed = torch.empty(5, 4, device=device).t()
    assert_same(tops.flip(x, [1], out=transposed), x.flip(1))
    # into its own memory (torch gives the flipped values): read before it is written
    y = x.clone()
    assert tops.flip(y, [0, 1], out=y) is y
    assert_same(y, expected)
    with tritonize.enabled(devices=(device,)):
        z = x.clone()
        torch.ops.aten.flip.out(z, [0], out=z)
    assert_same(z, x.flip(0))


def test_gradients_through_the_registered_flip(device):
    x = torch.randn(3, 4, device=device, requires_grad=True)
    weight = torch.randn(3, 4, device=device)
    with tritonize.enabled(devices=(device,)):
        y = torch.flip(x, [0])
        (y * weight).sum().backward()
    torch.testing.assert_close(x.grad, weight.flip(0))
    x.grad = None
    y = tops.flip(x.t(), [0, -1])  # the direct call records its gradient too
    assert y.requires_grad and "Flip" in type(y.grad_fn).__name__
    (y * weight.t()).sum().backward()
    torch.testing.assert_close(x.grad, weight.t().flip(0, 1).t())
    assert torch.autograd.gradcheck(lambda t: tops.flip(t, [1]), x.detach().double().requires_grad_())
    assert torch.autograd.gradgradcheck(lambda t: tops.flip(t * t, [0]), x.detach().double().requires_grad_())
    with torch.no_grad():
        assert_same(tops.flip(x, [0]), x.detach().flip(0))


def test_flip_under_torch_func_transforms(device):
    # a transform's tensors have no storage for the StridedView to read: flip goes through its
    # autograd.Function, whose vmap rule moves the batch dim first and flips the dims after it
    x = torch.randn(4, 3, 5, device=device, dtype=torch.float64)
    for in_dim in (0, 1, 2):
        got = torch.func.vmap(lambda t: tops.flip(t, [0, -1]), in_dims=in_dim)(x)
        assert_same(got, torch.func.vmap(lambda t: t.flip(0, -1), in_dims=in_dim)(x))
    assert_same(torch.func.vmap(lambda t: tops.flip(t, [0]))(x[:, 0, 0]), x[:, 0, 0])  # 0-d examples
    weight = torch.randn(3, 5, device=device, dtype=torch.float64)
    torch.testing.assert_close(torch.func.grad(lambda t: (tops.flip(t, [1]) * weight).sum())(x[0]), weight.flip(1))
    torch.testing.assert_close(torch.func.jvp(lambda t: tops.flip(t, [0]), (x,), (x * 2,))[1], (x * 2).flip(0))
    torch.testing.assert_close(torch.func.jacrev(lambda t: tops.flip(t, [0]))(x[0, 0]),
                               torch.eye(5, device=device, dtype=torch.float64).flip(0))
    with forward_ad.dual_level():
        flipped = tops.flip(forward_ad.make_dual(x, -x), [2])
        assert_same(forward_ad.unpack_dual(flipped).tangent, (-x).flip(2))
