"""torch.func's transforms and forward-mode AD over @pointwise calls: vmap (batch dims anywhere,
broadcasting, weak 0-d tensors), grad, vjp, jacrev, jvp, jacfwd, hessian, and dual tensors of
torch.autograd.forward_ad; compared with torch's own functions (float64) and with the same
function called example by example (what vmap means)."""
from __future__ import annotations

import math
from unittest import mock

import pytest
import torch
import torch.autograd.forward_ad as forward_ad
from hypothesis import given
from hypothesis import strategies as st

import tritonize
from tritonize import pointwise, transforms


@pointwise
def gelu(x):
    return 0.5 * x * (1.0 + math.erf(x * 0.7071067811865476))


@pointwise
def mul_add(a, b):
    return a * b + a


@pointwise
def polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


@pointwise
def scaled_by_float(x, s):
    return x * float(s)  # float(s) is a float32 0-d value beside x where s is a 0-d tensor


@pointwise
def floor_mod(a, b):
    return a // b, a % b


def torch_gelu(x):
    return torch.nn.functional.gelu(x)


def torch_polar(r, theta):
    return r * torch.cos(theta), r * torch.sin(theta)


def values(device, *shape, dtype=torch.float64, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(tuple(shape), generator=generator, dtype=torch.float64).to(dtype).to(device)


def example_by_example(fn, args, in_dims, batch_size):
    """vmap's meaning: the function called on each example, the results stacked."""
    results = []
    for index in range(batch_size):
        each = [a if d is None else a.select(d, index) for a, d in zip(args, in_dims)]
        result = fn(*each)
        results.append(result if isinstance(result, tuple) else (result,))
    return tuple(torch.stack(outputs) for outputs in zip(*results))


def test_vmap_of_a_unary_function_over_any_dim(device):
    x = values(device, 4, 6, 5)
    for dim in (0, 1, 2, -1):
        torch.testing.assert_close(torch.func.vmap(gelu, in_dims=dim)(x), torch.func.vmap(torch_gelu, in_dims=dim)(x))
    torch.testing.assert_close(torch.func.vmap(gelu, in_dims=1, out_dims=1)(x), torch_gelu(x))


def test_vmap_broadcasts_the_logical_shapes(device):
    batch, row, matrix = values(device, 4, 5), values(device, 5, seed=1), values(device, 3, 5, seed=2)
    # a batched row beside a row, and a batched row beside a matrix: each example broadcasts alone
    torch.testing.assert_close(torch.func.vmap(mul_add, in_dims=(0, None))(batch, row), batch * row + batch)
    torch.testing.assert_close(torch.func.vmap(mul_add, in_dims=(0, None))(batch, matrix),
                               batch[:, None] * matrix + batch[:, None])
    torch.testing.assert_close(torch.func.vmap(mul_add, in_dims=(None, 0))(matrix, batch),
                               matrix * batch[:, None] + matrix)
    # two batched arguments of different ranks, and a Python number
    torch.testing.assert_close(torch.func.vmap(mul_add)(values(device, 4, 3, 5), batch),
                               values(device, 4, 3, 5) * batch[:, None] + values(device, 4, 3, 5))
    torch.testing.assert_close(torch.func.vmap(lambda v: mul_add(v, 2.5))(batch), batch * 2.5 + batch)


def test_vmap_of_a_per_example_number(device):
    batch, scale = values(device, 4, 5), values(device, 4, seed=3)
    torch.testing.assert_close(torch.func.vmap(mul_add)(batch, scale), batch * scale[:, None] + batch)


@pytest.mark.parametrize("fn,dtypes", [
    (mul_add, (torch.float16, torch.float32)),      # a 0-d float32 is weak beside float16
    (mul_add, (torch.int32, torch.int64)),          # a 0-d int64 is weak beside int32
    (scaled_by_float, (torch.float16, torch.float16)),
], ids=["float16-float32", "int32-int64", "float-cast"])
def test_vmap_keeps_a_batched_0d_tensor_weak(fn, dtypes, device):
    # batched, a per-example 0-d tensor would have dims; vmap must compute what each example computes
    batch = (values(device, 4, 5) * 8).to(dtypes[0])
    scale = (values(device, 4, seed=4) * 8).to(dtypes[1])
    got = torch.func.vmap(fn)(batch, scale)
    expected, = example_by_example(fn, (batch, scale), (0, 0), 4)
    assert got.dtype == expected.dtype == fn(batch[0], scale[0]).dtype
    assert torch.equal(got, expected)


def test_vmap_of_two_outputs_and_integers(device):
    r, theta = values(device, 4, 5), values(device, 5, 4, seed=5)
    for got, expected in zip(torch.func.vmap(polar, in_dims=(0, 1))(r, theta), torch_polar(r, theta.t())):
        torch.testing.assert_close(got, expected)
    a = torch.arange(-10, 10, device=device).reshape(4, 5)
    b = torch.tensor([3, -3, 2, -2, 7], device=device)
    quotient, remainder = torch.func.vmap(floor_mod, in_dims=(0, None))(a, b)
    assert torch.equal(quotient, torch.floor_divide(a, b)) and torch.equal(remainder, torch.remainder(a, b))


def test_nested_vmap(device):
    x, y = values(device, 3, 4, 5), values(device, 4, 5, seed=6)
    got = torch.func.vmap(torch.func.vmap(mul_add, in_dims=(0, 0)), in_dims=(0, None))(x, y)
    torch.testing.assert_close(got, x * y + x)


def test_reverse_mode_transforms_match_torch(device):
    x = values(device, 6)
    torch.testing.assert_close(torch.func.grad(lambda v: gelu(v).sum())(x),
                               torch.func.grad(lambda v: torch_gelu(v).sum())(x))
    torch.testing.assert_close(torch.func.jacrev(gelu)(x), torch.func.jacrev(torch_gelu)(x))
    torch.testing.assert_close(torch.func.jacrev(lambda r: polar(r, x)[1])(x),
                               torch.func.jacrev(lambda r: torch_polar(r, x)[1])(x))
    _, vjp = torch.func.vjp(mul_add, x, values(device, 3, 6, seed=7))
    expected = torch.func.vjp(lambda a, b: a * b + a, x, values(device, 3, 6, seed=7))[1]
    for got, wanted in zip(vjp(torch.ones(3, 6, device=device, dtype=torch.float64)),
                           expected(torch.ones(3, 6, device=device, dtype=torch.float64))):
        torch.testing.assert_close(got, wanted)
    # per-example gradients: vmap over grad
    batch = values(device, 4, 6, seed=8)
    torch.testing.assert_close(torch.func.vmap(torch.func.grad(lambda v: gelu(v).sum()))(batch),
                               torch.func.vmap(torch.func.grad(lambda v: torch_gelu(v).sum()))(batch))


def test_forward_mode_transforms_match_torch(device):
    x, t = values(device, 6), values(device, 6, seed=9)
    torch.testing.assert_close(torch.func.jvp(gelu, (x,), (t,))[1], torch.func.jvp(torch_gelu, (x,), (t,))[1])
    torch.testing.assert_close(torch.func.jacfwd(gelu)(x), torch.func.jacfwd(torch_gelu)(x))
    torch.testing.assert_close(torch.func.hessian(lambda v: gelu(v).sum())(x),
                               torch.func.hessian(lambda v: torch_gelu(v).sum())(x))
    # two outputs, two tangents, broadcasting
    theta = values(device, 3, 6, seed=10)
    got = torch.func.jvp(polar, (x, theta), (t, -theta))[1]
    expected = torch.func.jvp(torch_polar, (x, theta), (t, -theta))[1]
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e)


def test_dual_tensors_of_forward_ad_carry_their_tangents(device):
    # before, the steady path read a dual tensor as a plain one and dropped its tangent
    x, t = values(device, 6), values(device, 6, seed=11)
    with forward_ad.dual_level():
        dual = forward_ad.make_dual(x, t)
        result = gelu(dual)
        expected = torch_gelu(dual)
        torch.testing.assert_close(forward_ad.unpack_dual(result).primal, forward_ad.unpack_dual(expected).primal)
        torch.testing.assert_close(forward_ad.unpack_dual(result).tangent, forward_ad.unpack_dual(expected).tangent)
        cosine, sine = polar(dual, 2.0)
        torch.testing.assert_close(forward_ad.unpack_dual(cosine).tangent, t * math.cos(2.0))
        torch.testing.assert_close(forward_ad.unpack_dual(sine).tangent, t * math.sin(2.0))
        assert forward_ad.unpack_dual(gelu(x)).tangent is None  # a plain tensor in the level stays plain


def test_out_is_refused_under_transforms(device):
    x = values(device, 4, 5)
    with pytest.raises(tritonize.CallError, match="out= does not support torch.func's transforms"):
        torch.func.vmap(lambda v: mul_add(v, v, out=torch.empty_like(v)))(x)
    with forward_ad.dual_level():
        dual = forward_ad.make_dual(x, x)
        with pytest.raises(tritonize.CallError, match="out= does not support forward-mode automatic"):
            gelu(dual, out=torch.empty_like(x))


@st.composite
def batched_calls(draw):
    """Two arguments of mul_add: shapes that broadcast, each batched at a dim of its own or not
    (at least one batched), dtypes that promote, possibly 0-d."""
    batch_size = draw(st.integers(1, 4))
    rank = draw(st.integers(0, 3))
    shape = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    arguments = []
    for index in range(2):
        own = shape[draw(st.integers(0, rank)):]
        own = [n if draw(st.booleans()) else 1 for n in own]
        batched = index == 0 or draw(st.booleans())
        dim = draw(st.integers(0, len(own))) if batched else None
        dtype = draw(st.sampled_from([torch.float16, torch.float32, torch.float64, torch.int32, torch.int64]))
        arguments.append((own, dim, dtype))
    return batch_size, arguments


@given(batched_calls())
def test_vmap_computes_what_each_example_computes(device, call):
    batch_size, arguments = call
    tensors, dims = [], []
    for seed, (shape, dim, dtype) in enumerate(arguments):
        full = list(shape)
        if dim is not None:
            full.insert(dim, batch_size)
        tensors.append((values(device, *full, seed=seed) * 4).to(dtype))
        dims.append(dim)
    got = torch.func.vmap(mul_add, in_dims=tuple(dims))(*tensors)
    expected, = example_by_example(mul_add, tensors, dims, batch_size)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    torch.testing.assert_close(got, expected, rtol=0, atol=0, equal_nan=True)


def test_reverse_mode_and_vmap_call_the_op_and_forward_mode_the_function(device):
    """Under vmap, grad, vjp and jacrev a call is its torch.library op, whose own autograd and vmap
    kernels record and batch at the transform's level (without the Python that functorch puts
    around an autograd.Function); under forward mode (jvp, and jacfwd's vmap over it) it is the
    autograd.Function, whose jvp and vmap rules run (a vmap of jvp over batched primals)."""
    batch, row, scale = values(device, 4, 5), values(device, 5, seed=12), values(device, 4, seed=13)
    forward, rule = transforms.Recorded.forward, transforms.Recorded.vmap
    with mock.patch.object(transforms.Recorded, "forward", side_effect=forward) as through_the_function, \
            mock.patch.object(transforms, "batched", wraps=transforms.batched) as batched:
        torch.testing.assert_close(torch.func.vmap(mul_add, in_dims=(0, None))(batch, row), batch * row + batch)
        torch.testing.assert_close(torch.func.vmap(mul_add)(batch, scale), batch * scale[:, None] + batch)
        torch.testing.assert_close(torch.func.vmap(torch.func.grad(lambda v: gelu(v).sum()))(batch),
                                   torch.func.vmap(torch.func.grad(lambda v: torch_gelu(v).sum()))(batch))
        torch.testing.assert_close(torch.func.jacrev(gelu)(row), torch.func.jacrev(torch_gelu)(row))
        assert batched.called
        assert not through_the_function.called
    with mock.patch.object(transforms.Recorded, "vmap", side_effect=rule) as vmap_rule:
        torch.testing.assert_close(torch.func.vmap(lambda v: torch.func.jvp(gelu, (v,), (v,))[1])(batch),
                                   torch.func.vmap(lambda v: torch.func.jvp(torch_gelu, (v,), (v,))[1])(batch))
        assert vmap_rule.called


def test_second_derivatives_in_reverse_mode(device):
    """A gradient differentiated again (grad of grad, jacrev of jacrev, create_graph) is recorded: the
    backward's own autograd is the derived function's op."""
    x = values(device, 6)

    def second(fn):
        return torch.func.grad(lambda v: torch.func.grad(lambda u: fn(u).sum())(v).sum())(x)

    torch.testing.assert_close(second(gelu), second(torch_gelu))
    torch.testing.assert_close(torch.func.jacrev(torch.func.jacrev(lambda v: polar(v, x)[0]))(x),
                               torch.func.jacrev(torch.func.jacrev(lambda v: torch_polar(v, x)[0]))(x))
    tracked = x.clone().requires_grad_()
    (first,) = torch.autograd.grad(mul_add(tracked, tracked).sum(), tracked, create_graph=True)
    (again,) = torch.autograd.grad(first.sum(), tracked)
    torch.testing.assert_close(again, torch.full_like(x, 2.0))


def test_a_batched_0d_tensor_of_the_same_dtypes_is_one_call(device):
    # where its dtypes do not change, a per-example number rides in the batch; where they do
    # (float32 beside float16), the call is made example by example
    batch, scale = values(device, 4, 5), values(device, 4, seed=14)
    with mock.patch.object(transforms, "_example_by_example", wraps=transforms._example_by_example) as each:
        torch.testing.assert_close(torch.func.vmap(mul_add)(batch, scale), batch * scale[:, None] + batch)
        assert not each.called
        torch.func.vmap(mul_add)(batch.half(), scale.float())
        assert each.called
