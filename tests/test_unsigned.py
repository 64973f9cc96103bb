"""uint16, uint32 and uint64 as a @pointwise function's inputs and outputs: arithmetic wraps around modulo
2^bits as C's unsigned arithmetic (and torch's uint8) does, `>>` shifts in zeros, `//` and `%` divide unsigned,
and they promote as torch promotes them (with no other integer dtype). torch itself has almost no arithmetic
for them, so the reference is the scalar function run on numpy's unsigned scalars, which wrap the same way."""
from __future__ import annotations

import math

import numpy as np
import torch
from hypothesis import given
from hypothesis import strategies as st

import pytest
import tritonize
from tensor_strategies import broadcast_shapes, laid_out, shapes
from tritonize import ScalarTypeError, pointwise

UNSIGNED = [torch.uint16, torch.uint32, torch.uint64]
NUMPY = {torch.uint16: np.uint16, torch.uint32: np.uint32, torch.uint64: np.uint64}


def plain_mix(a, b):
    return (a * b + (a ^ b) - (a | 7), a // b, a % b, (a & b) >> 3, a << 5, ~a, -a, a ** 3, abs(a), max(a, b),
            min(a, 3), a < b, a == b, a * 40503 + 12345)


mix = pointwise(plain_mix)


def wide_values(shape, dtype, generator) -> torch.Tensor:
    """Values over the whole range of `dtype`, a third of them small (0 and 1 among them: divisors of 0,
    products that do not wrap)."""
    # int64 bits, kept to the width of `dtype` (torch has no random numbers in the unsigned dtypes)
    bits = torch.randint(-2**63, 2**63 - 1, shape, generator=generator, dtype=torch.int64)
    small = torch.randint(0, 9, shape, generator=generator)
    bits = torch.where(torch.randint(0, 3, shape, generator=generator) == 0, small, bits)
    if dtype == torch.uint64:
        return bits.view(torch.uint64)
    return (bits & (2**(8 * dtype.itemsize) - 1)).to(dtype)


def numpy_elementwise(fn, arrays, dtype, shape) -> list:
    """The scalar function run on numpy scalars of `dtype`, element by element: each output as an array."""
    expanded = [np.broadcast_to(a.cpu().numpy(), shape) for a in arrays]
    results = []
    with np.errstate(all="ignore"):
        for index in np.ndindex(*shape):
            results.append(fn(*[a[index] for a in expanded]))
    columns = list(zip(*results)) if results else [()] * 14
    return [np.array(column).reshape(shape) for column in columns]


def assert_matches(got, expected, dtype):
    for k, (g, e) in enumerate(zip(got, expected)):
        g = g.cpu().numpy()
        assert g.shape == e.shape, k
        if g.dtype == np.bool_:
            assert (g == e.astype(np.bool_)).all(), k
        else:
            assert g.dtype == NUMPY[dtype], (k, g.dtype)
            assert (g == e.astype(NUMPY[dtype])).all(), (k, g[g != e.astype(NUMPY[dtype])][:4])


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_unsigned_operators_wrap_as_numpys_unsigned_scalars_do(dtype, device):
    generator = torch.Generator().manual_seed(7)
    a, b = wide_values((600,), dtype, generator), wide_values((600,), dtype, generator)
    assert_matches(mix(a.to(device), b.to(device)), numpy_elementwise(plain_mix, [a, b], NUMPY[dtype], (600,)),
                   dtype)


@given(data=st.data(), dtype=st.sampled_from(UNSIGNED))
def test_unsigned_tensors_in_any_layout_and_broadcast(data, dtype, device):
    shape = data.draw(shapes(max_rank=4, max_numel=120))
    a_shape, b_shape = data.draw(broadcast_shapes(shape, 2))
    generator = torch.Generator().manual_seed(data.draw(st.integers(0, 2**16)))
    a, b = wide_values(a_shape, dtype, generator), wide_values(b_shape, dtype, generator)
    got = mix(data.draw(laid_out(a, device)), data.draw(laid_out(b, device)))
    assert_matches(got, numpy_elementwise(plain_mix, [a, b], NUMPY[dtype], torch.broadcast_shapes(a_shape, b_shape)),
                   dtype)


@pointwise
def shifted(x, n):
    return x >> n, x << n


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_shifts_past_the_width_give_0_and_right_shifts_bring_in_zeros(dtype, device):
    """As torch shifts its integers: by the width or more (or a negative count) 0; the top bit set shifts
    right as a value, not a sign."""
    bits = 8 * dtype.itemsize
    x = (torch.tensor([-1, -2**63, 5], dtype=torch.int64).view(torch.uint64) if bits == 64
         else torch.tensor([2**bits - 1, 2**(bits - 1), 5]).to(dtype))
    for n, right, left in [(1, [2**(bits - 1) - 1, 2**(bits - 2), 2], [2**bits - 2, 0, 10]),
                           (bits, [0, 0, 0], [0, 0, 0]), (bits + 3, [0, 0, 0], [0, 0, 0])]:
        got_right, got_left = shifted(x.to(device), torch.full((3,), n).to(dtype).to(device))
        assert got_right.dtype == dtype and got_left.dtype == dtype
        assert got_right.cpu().numpy().tolist() == right, n
        assert got_left.cpu().numpy().tolist() == left, n


@pointwise
def scaled(x, y):
    return x * y


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_unsigned_dtypes_promote_as_torch_promotes_them(dtype, device):
    """With a float tensor: the float; with numbers and 0-d tensors of any integer dtype: the unsigned dtype
    (the number converted as torch converts it, -1 to the largest value); with another integer tensor:
    refused at the user's line, as torch refuses it."""
    x = torch.tensor([3, 5]).to(dtype).to(device)
    top = 2**(8 * dtype.itemsize) - 1
    for other in [torch.tensor([1.5, 2.5], device=device), torch.tensor(2.0, device=device), 2.5, -1, True,
                  torch.tensor(-1), torch.tensor(7, dtype=torch.int32, device=device),
                  torch.tensor(3, dtype=torch.uint8)]:
        got = scaled(x, other)
        assert got.dtype == torch.result_type(x, other), other
        if got.dtype == dtype:
            factor = int(other) % (top + 1)
            expected = [(3 * factor) % (top + 1), (5 * factor) % (top + 1)]
            assert got.cpu().numpy().tolist() == expected, other
        else:
            assert torch.equal(got, x.to(got.dtype) * other), other
    for other_dtype in [torch.int32, torch.uint8, torch.bool, torch.int64] + [u for u in UNSIGNED if u != dtype]:
        with pytest.raises(ScalarTypeError) as info:
            scaled(x, torch.ones(2, dtype=other_dtype, device=device))
        message = str(info.value)
        assert str(dtype).replace("torch.", "") in message and str(other_dtype).replace("torch.", "") in message
        assert "test_unsigned.py:" in message and "return x * y" in message


@pointwise
def as_unsigned(x: torch.uint32, y: torch.uint64):
    return x, y, x + 1


def test_annotations_convert_as_torchs_to_does(device):
    """`x: torch.uint32` reads an int64 tensor as x.to(torch.uint32) would (modulo 2^32), and a float tensor
    of values in range as its integer part."""
    ints = torch.tensor([-1, 0, 2**32 + 5, 2**40 - 3, 7], device=device)
    floats = torch.tensor([0.0, 1.9, 2.0**31, 4e9, 123.5], device=device)
    x, y, z = as_unsigned(ints, floats)
    assert x.dtype == torch.uint32 and y.dtype == torch.uint64 and z.dtype == torch.uint32
    assert x.cpu().numpy().tolist() == [v % 2**32 for v in ints.tolist()]
    assert y.cpu().numpy().tolist() == [int(v) for v in floats.tolist()]
    assert z.cpu().numpy().tolist() == [(v + 1) % 2**32 for v in ints.tolist()]
    assert torch.equal(x.cpu(), ints.cpu().to(torch.uint32))


@pointwise
def add_number(x, z):
    return x + z


def test_a_uint64_0d_tensor_past_2_63_is_passed_by_value_exactly(device):
    """A 0-d CPU tensor is passed to the kernel by its value, in int64: a uint64 from 2^63 up goes as the
    int64 of its bits, and the kernel reads it back."""
    x = torch.tensor([1, 2, 2**62], dtype=torch.int64).to(torch.uint64).to(device)
    big = torch.tensor(-2, dtype=torch.int64).view(torch.uint64)  # 2^64 - 2
    got = add_number(x, big)
    assert got.dtype == torch.uint64
    assert got.cpu().numpy().tolist() == [(v + 2**64 - 2) % 2**64 for v in (1, 2, 2**62)]


@pointwise
def power_of_two(e):
    return 2.0 ** e


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_two_to_an_unsigned_power(dtype, device):
    """2.0 ** e in float32 from its bits: inf for any e past the largest power (a uint64 from 2^63 up too,
    which an int64 would make negative)."""
    e = (torch.tensor([0, 1, 127, 128, 2**15, -1], dtype=torch.int64) if dtype != torch.uint16
         else torch.tensor([0, 1, 127, 128, 2**15, 2**16 - 1]))
    e = e.view(torch.uint64) if dtype == torch.uint64 else e.to(dtype)
    got = power_of_two(e.to(device))
    assert got.dtype == torch.float32
    assert got.cpu().tolist() == [1.0, 2.0, 2.0**127, float("inf"), float("inf"), float("inf")]


def test_the_readmes_hash_is_numpys(device):
    @pointwise
    def hash32(x):
        x = (x ^ (x >> 16)) * 0x45D9F3B
        x = (x ^ (x >> 16)) * 0x45D9F3B
        return x ^ (x >> 16)

    x = torch.arange(4096, dtype=torch.int64).mul(2654435761).remainder(2**32).to(torch.uint32)
    got = hash32(x.to(device))
    y = x.numpy()
    y = (y ^ (y >> np.uint32(16))) * np.uint32(0x45D9F3B)
    y = (y ^ (y >> np.uint32(16))) * np.uint32(0x45D9F3B)
    expected = y ^ (y >> np.uint32(16))
    assert got.dtype == torch.uint32
    assert (got.cpu().numpy() == expected).all()


def outcome(call):
    """The call's result, or the type of the error it raised."""
    try:
        return call()
    except Exception as error:  # torch's "not implemented for 'UInt32'"
        return type(error)


def test_the_op_library_leaves_them_to_torch(device):
    """Under enabled() an aten op on them gives what torch's own kernel gives: bitwise ops where torch has
    them, torch's error where it has none (add)."""
    x = torch.tensor([1, 2, 3]).to(torch.uint32).to(device)
    for call in [lambda: torch.bitwise_xor(x, x), lambda: x | 5, lambda: torch.add(x, x), lambda: x * x]:
        plain = outcome(call)
        with tritonize.enabled():
            served = outcome(call)
        if isinstance(plain, torch.Tensor):
            assert isinstance(served, torch.Tensor) and served.dtype == plain.dtype and torch.equal(served, plain)
        else:
            assert served is plain


@pointwise
def as_floats(x):
    return float(x), math.sqrt(x), x / 3


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_float_and_math_read_the_unsigned_value(dtype, device):
    """float(x), math and true division see the value, the top bit set too (a signed reading would make it
    negative): float32 results, as torch's int_to_float gives for an integer tensor."""
    generator = torch.Generator().manual_seed(11)
    x = wide_values((300,), dtype, generator)
    as_float, root, third = as_floats(x.to(device))
    values = x.numpy().astype(np.float64)
    assert as_float.dtype == root.dtype == third.dtype == torch.float32
    assert (as_float.cpu().numpy() == x.numpy().astype(np.float32)).all()
    np.testing.assert_allclose(root.cpu().numpy(), np.sqrt(values), rtol=2e-7)
    np.testing.assert_allclose(third.cpu().numpy(), values / 3, rtol=2e-7)
