"""Overlap decided element by element (tritonize.overlap): the solver against brute force, and
out= calls whose views interleave with their inputs (written, as torch writes them) or whose
elements meet (refused), planned, memoized and under tritonize.enabled()."""
from __future__ import annotations

import itertools

import pytest
import torch
from hypothesis import event, given, settings
from hypothesis import strategies as st

import tritonize
from tritonize import overlap, pointwise


def _bytes_of(layout, start):
    size, sizes, strides = layout
    held = set()
    for index in itertools.product(*[range(n) for n in sizes]):
        address = start + sum(i * s for i, s in zip(index, strides)) * size
        held.update(range(address, address + size))
    return held


def _addresses(layout):
    _, sizes, strides = layout
    return [sum(i * s for i, s in zip(index, strides)) for index in itertools.product(*[range(n) for n in sizes])]


_layouts = st.tuples(st.sampled_from([1, 2, 4, 8]),
                     st.integers(0, 3).flatmap(lambda rank: st.tuples(
                         st.lists(st.integers(0, 5), min_size=rank, max_size=rank),
                         st.lists(st.integers(-9, 12), min_size=rank, max_size=rank)))
                     ).map(lambda drawn: (drawn[0], tuple(drawn[1][0]), tuple(drawn[1][1])))


@settings(max_examples=2000)
@given(_layouts, _layouts, st.integers(-60, 60))
def test_elements_overlap_is_exact(first, second, offset):
    """Against the bytes each layout's elements cover: any element size, negative and zero
    strides, empty layouts, offsets either way."""
    expected = bool(_bytes_of(first, 0) & _bytes_of(second, offset))
    assert overlap.elements_overlap(first, second, offset) is expected
    assert overlap.elements_overlap(second, first, -offset) is expected


@settings(max_examples=2000)
@given(_layouts)
def test_overlaps_itself_is_exact(layout):
    addresses = _addresses(layout)
    assert overlap.overlaps_itself(layout) is (len(addresses) != len(set(addresses)))


@settings(max_examples=1000)
@given(_layouts.filter(lambda layout: min(layout[2], default=0) >= 0))
def test_a_tensor_overlaps_itself_as_its_layout_does(layout):
    """tensor_overlaps_itself's way around the sort (strides that nest from the last dim out)
    answers as overlaps_itself does, on tensors of any sizes and non-negative strides."""
    size, sizes, strides = layout
    dtype = {1: torch.uint8, 2: torch.int16, 4: torch.float32, 8: torch.float64}[size]
    tensor = torch.zeros(200, dtype=dtype).as_strided(sizes, strides)  # the farthest element: 3 * 4 * 12
    assert overlap.tensor_overlaps_itself(tensor) is overlap.overlaps_itself(layout)


def test_interleaved_and_folded_layouts():
    even = odd = (4, (4, 4), (8, 2))  # x[:, ::2] and x[:, 1::2] of a 4 x 8 float32 matrix
    assert overlap.elements_overlap(even, odd, 4) is False
    assert overlap.elements_overlap(even, odd, 8) is True  # x[:, 2::2] shares 3 columns of 4
    halves = (2, (16, 8), (16, 1))  # the two column halves of a 16 x 16 bfloat16 matrix
    assert overlap.elements_overlap(halves, halves, 16) is False
    assert overlap.elements_overlap(halves, halves, 14) is True
    assert overlap.elements_overlap((4, (8,), (1,)), (2, (8,), (2,)), 1) is True  # a float32 over bfloat16s
    assert overlap.overlaps_itself((4, (4, 4), (1, 1))) is True  # as_strided sliding windows
    assert overlap.overlaps_itself((4, (3, 4), (4, 1))) is False
    assert overlap.overlaps_itself((4, (3, 4), (-4, 1))) is False
    assert overlap.overlaps_itself((4, (3, 4), (3, 1))) is True


def test_a_search_past_its_budget_is_not_proof(monkeypatch):
    """Column blocks need the search; interleaved elements are apart by their residues alone,
    at any size, with no search."""
    monkeypatch.setattr(overlap, "SEARCH_BUDGET", 0)
    halves = (4, (16, 8), (16, 1))
    assert overlap.elements_overlap(halves, halves, 32) is None
    assert overlap.overlaps_itself((4, (4, 4), (1, 1))) is None
    for rows in (4, 1000, 10**9):
        assert overlap.elements_overlap((4, (rows, 64), (128, 2)), (4, (rows, 64), (128, 2)), 4) is False


@pointwise
def rotate(a, b, cos, sin):
    return a * cos - b * sin, a * sin + b * cos


@pointwise
def shift(x, y):
    return x + y


def test_rotation_in_place_on_interleaved_halves(device):
    """The even and odd elements of each row, rotated in place (out= are the inputs themselves,
    and each output's span covers the other input's): bit for bit the result into fresh tensors,
    call after call, the steady ones decided by the recipe's write guard without planning."""
    planned, plan = [], rotate.plan
    rotate.plan = lambda *args, **kwargs: planned.append(1) or plan(*args, **kwargs)
    try:
        for call in range(4):
            x = torch.randn(6, 16, device=device)
            cos, sin = torch.randn(6, 8, device=device), torch.randn(6, 8, device=device)
            even, odd = x[:, ::2], x[:, 1::2]
            expected = rotate(even.clone(), odd.clone(), cos, sin)
            reference = (even * cos - odd * sin, even * sin + odd * cos)
            result = rotate(even, odd, cos, sin, out=(even, odd))
            assert result[0] is even and result[1] is odd
            assert torch.equal(x[:, ::2], expected[0]) and torch.equal(x[:, 1::2], expected[1])
            torch.testing.assert_close(x[:, ::2], reference[0])
            torch.testing.assert_close(x[:, 1::2], reference[1])
    finally:
        del rotate.plan
    assert len(planned) <= 2  # the shape's first call launches by its class; its second keeps a recipe


def test_out_interleaved_with_its_input_is_written(device):
    """torch.add(y[1::2], 1, out=y[::2]) as torch writes it, in every dtype width."""
    for dtype in (torch.float32, torch.bfloat16, torch.float64, torch.int16):
        for n in (8, 9, 1001):
            y = torch.arange(n, device=device).to(dtype)
            expected = y.clone()
            torch.add(expected[1::2], 1, out=expected[::2][:len(expected[1::2])])
            shift(y[1::2], 1, out=y[::2][:len(y[1::2])])
            assert torch.equal(y, expected)


def test_interleaved_views_whose_elements_meet_are_refused(device):
    """A shift of one step along an interleaved view shares elements: refused, planned or
    memoized, with nothing written; the recipe's guard tells the two apart by their pointers."""
    @pointwise
    def step(x, y):
        return x + y

    for _ in range(3):
        buffer = torch.arange(40.0, device=device)
        step(buffer[0:16:2], 1.0, out=buffer[1:17:2])  # apart: written
        assert torch.equal(buffer[1:17:2], torch.arange(0.0, 16.0, 2, device=device) + 1)
        before = buffer.clone()
        with pytest.raises(tritonize.OutArgumentError, match="overlaps input 'x'"):
            step(buffer[0:16:2], 1.0, out=buffer[2:18:2])  # one element on: 7 of 8 elements shared
        assert torch.equal(buffer, before)


def test_out_with_elements_at_one_address_is_refused(device):
    """An as_strided out= whose elements fold onto each other (sliding windows) would be written
    in an order the result depends on: refused, naming it, first call and memoized alike."""
    x = torch.randn(4, 4, device=device)
    storage = torch.zeros(16, device=device)
    for _ in range(2):
        windows = storage.as_strided((4, 4), (1, 1))
        with pytest.raises(tritonize.OutArgumentError, match=r"out \(shape \(4, 4\), strides \(1, 1\)\) has elements "
                                                             r"at the same memory location"):
            shift(x, 1.0, out=windows)
        assert torch.equal(storage, torch.zeros(16, device=device))
    with pytest.raises(tritonize.OutArgumentError, match=r"out\[1\] .* has elements at the same memory location"):
        rotate(x, x, x, x, out=(torch.empty_like(x), storage.as_strided((4, 4), (2, 1))))
    apart = storage.as_strided((4, 2), (4, 2))  # a stepped view whose elements lie apart
    shift(x[:, :2], 1.0, out=apart)
    assert torch.equal(apart, x[:, :2] + 1)


def test_a_search_that_gives_up_refuses_the_call(device, monkeypatch):
    monkeypatch.setattr(overlap, "SEARCH_BUDGET", 0)

    @pointwise
    def offset(x, y):
        return x + y

    buffer = torch.zeros(32, device=device)
    with pytest.raises(tritonize.OutArgumentError, match="could not prove their elements apart"):
        offset(buffer[:16].view(4, 4)[:, :2], 1.0, out=buffer[:16].view(4, 4)[:, 2:])  # column blocks
    with pytest.raises(tritonize.OutArgumentError, match="could not rule it out"):
        offset(buffer[:16].reshape(4, 4), 1.0, out=buffer.as_strided((4, 4), (3, 1)))
    assert torch.equal(buffer, torch.zeros(32, device=device))


def test_aten_in_place_ops_on_interleaved_views_under_enabled(device):
    """x[::2].add_(x[1::2]) works in eager; under tritonize.enabled() it is tritonize's kernel
    and gives eager's result (it was refused as an overlap)."""
    x = torch.randn(64, device=device)
    expected = x.clone()
    expected[::2].add_(expected[1::2])
    rows = torch.randn(8, 16, device=device)
    rows_expected = rows.clone()
    torch.mul(rows_expected[:, ::2], 3.0, out=rows_expected[:, 1::2])
    with tritonize.enabled(devices=(device,)):
        x[::2].add_(x[1::2])
        torch.mul(rows[:, ::2], 3.0, out=rows[:, 1::2])
    assert torch.equal(x, expected)
    assert torch.equal(rows, rows_expected)


@st.composite
def _views_in_one_storage(draw):
    """Two inputs and two outputs of one shape, each a view of one float32 or int16 storage with
    its own dims order, steps (1-3) and offset, or an input itself; the shape 1-3 dims of 1-4."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    storage = torch.zeros(400, dtype=draw(st.sampled_from([torch.float32, torch.int16])))

    def view():
        order = draw(st.permutations(range(len(shape))))
        strides, step = [0] * len(shape), draw(st.integers(1, 3))
        for d in reversed(order):
            strides[d] = step
            step *= shape[d] + draw(st.integers(0, 1))  # a gap after some dims
        return storage.as_strided(shape, strides, draw(st.integers(0, 60)))

    inputs = [view(), view()]
    outputs = [draw(st.sampled_from(inputs)) if draw(st.booleans()) else view() for _ in range(2)]
    return shape, inputs, outputs


def _addresses_of(tensor):
    """The byte addresses the tensor's elements cover."""
    size, held = tensor.element_size(), set()
    for index in itertools.product(*[range(n) for n in tensor.shape]):
        start = tensor.data_ptr() + sum(i * s for i, s in zip(index, tensor.stride())) * size
        held.update(range(start, start + size))
    return held


@settings(max_examples=1000)
@given(_views_in_one_storage())
def test_the_planner_and_the_class_path_decide_overlap_exactly(views):
    """Against the bytes each view covers: the planner (check_overlap) refuses an output exactly
    where it shares a byte with an input it is not (the same pointer, dtype and walk) or with an
    earlier output; the class path (writes_apart) writes such calls only where the planner would."""
    from tritonize import call

    shape, inputs, outputs = views
    shared = False
    for k, out in enumerate(outputs):
        for other in inputs:
            same_view = other.data_ptr() == out.data_ptr() and call.same_walk(shape, other.stride(), out.stride())
            shared = shared or (not same_view and bool(_addresses_of(out) & _addresses_of(other)))
        for other in outputs[:k]:
            shared = shared or bool(_addresses_of(out) & _addresses_of(other))
    operands = [call.Operand(f"in{k}", t, list(t.stride())) for k, t in enumerate(inputs)]
    given = [call.Operand(f"out{k}", t, list(t.stride())) for k, t in enumerate(outputs)]
    try:
        call.check_overlap(given, operands)
        refused = False
    except tritonize.OutArgumentError:
        refused = True
    assert refused is shared
    apart = call.writes_apart(inputs, outputs, shape, inputs[0].device)
    event(f"refused: {refused}, writes_apart: {apart}")
    if apart:
        assert not refused
