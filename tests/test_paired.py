"""Paired operands (Specialization.paired): two operands of an untiled walk whose elements
interleave (x[..., ::2] and x[..., 1::2]) are loaded with one load of both, split, or stored with
one store of both values interleaved, where the launch's pointers pair them; the kernel
tests that on each launch, so a recipe or class planned on paired operands serves unpaired ones
of the same signature. Results against the same call on unpaired copies, torch, and float64."""
from __future__ import annotations

import math
import re

import pytest
import torch
from hypothesis import event, given, settings
from hypothesis import strategies as st

import tritonize
from tritonize import pointwise


@pointwise
def rotate(a, b, cos, sin):
    return a * cos - b * sin, a * sin + b * cos


@pointwise
def polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


@pointwise
def halves(x):
    return x, 1.0  # the second value reads no tensor: a scalar on the GPU, stored beside the first


def _rotated(even, odd, cos, sin):
    """The rotation into fresh tensors, of copies (no operand pairs with another)."""
    return rotate(even.clone(), odd.clone(), cos, sin)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64, torch.int32])
@pytest.mark.parametrize("rows", [1, 7, 64])  # 64 x 64 pairs: blocks that cover the tasks (no masks)
def test_a_rotation_in_place_on_the_even_and_odd_elements_pairs_them(device, dtype, rows):
    """Both inputs and both outputs pair; the results are bit for bit those of unpaired copies."""
    x = (torch.randn(rows, 128, device=device) * 8).to(dtype)
    cos, sin = [(torch.randn(rows, 64, device=device) * 8).to(dtype) for _ in range(2)]
    even, odd = x[:, ::2], x[:, 1::2]
    expected = _rotated(even, odd, cos, sin)
    _, spec = rotate.plan((even, odd, cos, sin), {}, (even, odd))
    assert spec.paired == ((0, 1), (4, 5))
    result = rotate(even, odd, cos, sin, out=(even, odd))
    assert result[0] is even and result[1] is odd
    assert torch.equal(x[:, ::2], expected[0]) and torch.equal(x[:, 1::2], expected[1])
    source = rotate.source(even, odd, cos, sin, out=(even, odd))
    compact = "".join(source.split())  # (astor wraps long lines anywhere)
    assert "a,b=tl.split(" in compact and "tl.join(" in compact and "aandbpaired" in compact


def test_a_recipe_planned_on_paired_operands_serves_unpaired_ones(device):
    """Calls of one signature: the first pairs its operands (its recipe's kernel takes the paired
    accesses), the next ones do not (the halves of two tensors, the same strides and alignment),
    and then pair again; every result is the unpaired rotation's."""
    cos, sin = torch.randn(5, 64, device=device), torch.randn(5, 64, device=device)
    for first, second in [("x", "x"), ("x", "y"), ("y", "x"), ("x", "x")]:
        buffers = {"x": torch.randn(5, 128, device=device), "y": torch.randn(5, 128, device=device)}
        even, odd = buffers[first][:, ::2], buffers[second][:, 1::2]
        expected = _rotated(even, odd, cos, sin)
        rotate(even, odd, cos, sin, out=(even, odd))
        assert torch.equal(even, expected[0]) and torch.equal(odd, expected[1]), (first, second)


def test_a_class_planned_on_paired_operands_serves_new_lengths_paired_or_not(device):
    """A new number of rows every call (on CUDA each launched by its class, with the kernel Triton
    compiled for the first): the halves of one buffer, and of two, in turn; every result is the
    unpaired rotation's."""
    cos_rows, sin_rows = torch.randn(40, 64, device=device), torch.randn(40, 64, device=device)
    for rows in range(3, 40, 3):
        x, y = torch.randn(rows, 128, device=device), torch.randn(rows, 128, device=device)
        even, odd = (x[:, ::2], x[:, 1::2]) if rows % 2 else (x[:, ::2], y[:, 1::2])
        cos, sin = cos_rows[:rows], sin_rows[:rows]
        expected = _rotated(even, odd, cos, sin)
        rotate(even, odd, cos, sin, out=(even, odd))
        assert torch.equal(even, expected[0]) and torch.equal(odd, expected[1]), rows


def test_inputs_pair_into_fresh_outputs(device):
    """Only the inputs pair: the outputs are fresh, contiguous."""
    x = torch.randn(9, 128, device=device)
    cos, sin = torch.randn(9, 64, device=device), torch.randn(9, 64, device=device)
    _, spec = rotate.plan((x[:, ::2], x[:, 1::2], cos, sin), {}, None)
    assert spec.paired == ((0, 1),)
    result = rotate(x[:, ::2], x[:, 1::2], cos, sin)
    expected = _rotated(x[:, ::2], x[:, 1::2], cos, sin)
    assert torch.equal(result[0], expected[0]) and torch.equal(result[1], expected[1])
    even, odd, cos64, sin64 = x[:, ::2].double(), x[:, 1::2].double(), cos.double(), sin.double()
    torch.testing.assert_close(result[0].double(), even * cos64 - odd * sin64, rtol=1e-5, atol=1e-5)


def test_two_outputs_into_the_real_and_imaginary_parts_of_complex_numbers(device):
    """polar(r, theta) into torch.view_as_real(z)'s columns: the outputs pair, and z holds
    torch.polar's numbers."""
    r, theta = torch.rand(1000, device=device) + 0.5, torch.randn(1000, device=device)
    z = torch.empty(1000, dtype=torch.complex64, device=device)
    parts = torch.view_as_real(z)
    _, spec = polar.plan((r, theta), {}, (parts[:, 0], parts[:, 1]))
    assert spec.paired == ((2, 3),)
    polar(r, theta, out=(parts[:, 0], parts[:, 1]))
    torch.testing.assert_close(z, torch.polar(r, theta))


def test_a_value_that_reads_no_tensor_is_stored_beside_its_pair(device):
    x = torch.randn(300, device=device)
    pairs = torch.zeros(300, 2, device=device)
    halves(x, out=(pairs[:, 0], pairs[:, 1]))
    assert torch.equal(pairs[:, 0], x) and torch.equal(pairs[:, 1], torch.ones(300, device=device))


def test_operands_that_do_not_interleave_do_not_pair(device):
    """A step of two elements (x[::2] and x[2::2]), other dtypes, a stride of 3 do not pair; rows
    of 65 pairs with a gap after each (x[:, :130][:, ::2]) pair as rows of pairs (a decoded walk)."""
    x = torch.randn(2000, device=device)
    cos, sin = torch.randn(1000, device=device), torch.randn(1000, device=device)
    _, spec = rotate.plan((x[:-2:2], x[2::2], cos[:999], sin[:999]), {}, None)
    assert spec.paired == ()
    _, spec = rotate.plan((x[:-3:3], x[1:-2:3], cos[:666], sin[:666]), {}, None)
    assert spec.paired == ()
    _, spec = rotate.plan((x[::2], x.view(torch.int32)[1::2], cos, sin), {}, None)
    assert spec.paired == ()  # float32 and int32 elements, one past the other
    _, spec = rotate.plan((x[::2], x[1::2], cos.double(), sin), {}, None)
    assert spec.paired == ((0, 1),)  # a float32 pair beside float64 and float32 tensors
    rows = torch.randn(8, 140, device=device)[:, :130]
    even, odd = rows[:, ::2], rows[:, 1::2]
    _, spec = rotate.plan((even, odd, torch.randn(8, 65, device=device), torch.randn(8, 65, device=device)),
                          {}, None)
    assert spec.rank == 2 and spec.paired == ((0, 1),)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int16])
@pytest.mark.parametrize("rows", [1, 5, 32])  # 32 x 64 pairs: blocks that cover the tasks
def test_the_even_and_odd_elements_of_a_slice_of_columns_pair_as_rows(device, dtype, rows):
    """q, the first 128 columns of a fused (rows, 384) projection, rotated in place: a decoded walk
    whose rows of pairs have a gap after each; its halves pair (both halves of a row's pairs as one
    run), nothing outside q is written, and the results are the unpaired rotation's. Then the same
    signature with the halves of two buffers, which do not pair."""
    fused = (torch.randn(rows, 384, device=device) * 8).to(dtype)
    before = fused.clone()
    q = fused[:, :128]
    cos, sin = [(torch.randn(rows, 64, device=device) * 4).to(dtype) for _ in range(2)]
    even, odd = q[:, ::2], q[:, 1::2]
    expected = _rotated(even, odd, cos, sin)
    _, spec = rotate.plan((even, odd, cos, sin), {}, (even, odd))
    assert spec.rank == (1 if rows == 1 else 2) and spec.paired == ((0, 1), (4, 5))
    rotate(even, odd, cos, sin, out=(even, odd))
    assert torch.equal(q[:, ::2], expected[0]) and torch.equal(q[:, 1::2], expected[1])
    assert torch.equal(fused[:, 128:], before[:, 128:])
    other = (torch.randn(rows, 384, device=device) * 8).to(dtype)
    even, odd = fused[:, :128][:, ::2], other[:, :128][:, 1::2]
    expected = _rotated(even, odd, cos, sin)
    rotate(even, odd, cos, sin, out=(even, odd))
    assert torch.equal(even, expected[0]) and torch.equal(odd, expected[1])
    if rows > 1:
        source = rotate.source(q[:, ::2], q[:, 1::2], cos, sin, out=(q[:, ::2], q[:, 1::2]))
        compact = "".join(source.split())  # (astor wraps long lines anywhere)
        # the block's pairs decoded to rows and a place in the row, where each row's pairs are one run
        assert "pair_column=pair_index%(2*size1)" in compact and "a_ptr+(pair_i0*a_stride0+pair_column)" in compact


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_pairs_of_a_rank_3_walk_decode_every_dim(device, dtype):
    """Heads of 65 pairs, 5 of 6 heads of each of 3 tokens, rotated in place: no two dims coalesce (a
    rank-3 walk), so the block's pairs are decoded to three indices; the result is the unpaired
    rotation's, and nothing outside the slice is written."""
    buffer = (torch.randn(3, 6, 140, device=device) * 8).to(dtype)
    before = buffer.clone()
    heads = buffer[:, :5, :130]
    even, odd = heads[..., ::2], heads[..., 1::2]
    cos, sin = [(torch.randn(3, 5, 65, device=device) * 4).to(dtype) for _ in range(2)]
    expected = _rotated(even, odd, cos, sin)
    _, spec = rotate.plan((even, odd, cos, sin), {}, (even, odd))
    assert spec.rank == 3 and spec.paired == ((0, 1), (4, 5))
    rotate(even, odd, cos, sin, out=(even, odd))
    assert torch.equal(heads[..., ::2], expected[0]) and torch.equal(heads[..., 1::2], expected[1])
    assert torch.equal(buffer[:, 5:], before[:, 5:]) and torch.equal(buffer[..., 130:], before[..., 130:])
    compact = "".join(rotate.source(even, odd, cos, sin, out=(even, odd)).split())
    assert "pair_i2=pair_index%(2*size2)" not in compact  # the last dim's index is the place in the row
    assert "pair_column=pair_index%(2*size2)" in compact and "pair_i1=pair_rest2%size1" in compact


def test_pairs_whose_rows_differ_do_not_pair_at_run_time(device):
    """Two halves one element apart whose row strides differ (possible beside a class planned on
    paired operands): the kernel's test keeps them apart."""
    a_rows = torch.randn(6, 256, device=device)
    cos, sin = torch.randn(6, 32, device=device), torch.randn(6, 32, device=device)
    for first, second in [(a_rows[:, :64:2], a_rows[:, 1:65:2]), (a_rows[:, :64:2], a_rows.view(12, 128)[:6, 1:65:2])]:
        expected = _rotated(first, second, cos, sin)
        result = rotate(first, second, cos, sin)
        assert torch.equal(result[0], expected[0]) and torch.equal(result[1], expected[1])


@st.composite
def _interleaved(draw):
    """Two views of the rows of one buffer at a step of 1-3 elements and offsets 0-2, of one length
    (masked and whole blocks), the rows a gap apart (several rows: a decoded walk; one: flat), and a
    buffer dtype."""
    dtype = draw(st.sampled_from([torch.float32, torch.bfloat16, torch.int16]))
    step = draw(st.sampled_from([1, 2, 2, 3]))  # a step of 2 pairs neighbours
    rows = draw(st.sampled_from([1, 1, 2, 3]))
    length = draw(st.integers(1, 1200 // rows))
    first, second = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    return dtype, step, rows, length, first, second, draw(st.integers(0, 2))


@settings(max_examples=100, deadline=None)
@given(_interleaved())
def test_interleaved_views_give_the_unpaired_result(device, drawn):
    """Fresh outputs and out= into a second buffer's views of the same layout: each result is the
    call's on copies (nothing pairs), whatever pairs."""
    dtype, step, rows, length, first, second, gap = drawn
    width = step * length + 2 + gap
    buffer = (torch.randn(rows, width, device=device) * 16).to(dtype)
    a, b = [buffer[:, offset::step][:, :length] for offset in (first, second)]
    cos, sin = [(torch.randn(rows, length, device=device) * 4).to(dtype) for _ in range(2)]
    expected = rotate(a.clone(), b.clone(), cos, sin)
    result = rotate(a, b, cos, sin)
    assert torch.equal(result[0], expected[0]) and torch.equal(result[1], expected[1])
    event(f"inputs paired: {bool(rotate.plan((a, b, cos, sin), {}, None)[1].paired)}")
    target = torch.zeros_like(buffer)
    outputs = [target[:, offset::step][:, :length] for offset in (first, second)]
    shift = second - first
    if shift % step == 0 and abs(shift) // step < length:  # the outputs share an element: refused
        with pytest.raises(tritonize.OutArgumentError):
            rotate(a, b, cos, sin, out=tuple(outputs))
        return
    rotate(a, b, cos, sin, out=tuple(outputs))
    assert torch.equal(outputs[0], expected[0]) and torch.equal(outputs[1], expected[1])


def test_explain_names_the_pairs(device):
    x, y = torch.randn(8, 128, device=device), torch.randn(8, 128, device=device)
    cos = torch.randn(8, 64, device=device)
    text = str(rotate.explain(x[:, ::2], x[:, 1::2], cos, cos, out=(x[:, ::2], x[:, 1::2])))
    assert re.search(r"\n  paired +a and b: b's elements one past a's", text)
    assert re.search(r"\n  paired +out\[0\] and out\[1\]", text)
    assert "paired" not in str(rotate.explain(x[:, ::2], y[:, 1::2], cos, cos))  # the halves of two buffers
