"""Calls whose signature differs from an earlier call's only in the leading size (a growing sequence,
a varying batch) take their class key and walk from that size alone (class_walks.LeadingWalk), where
a kept ClassWalk gives them: by the signature key less its leading size where the walk's strides do not
hold it, by its scaled form where they do (a transposed batch's). Each such answer is checked against
the full class path's (PointwiseFunction._class_key, _out_class_key) and every result against torch and
the scalar function run as a fresh @pointwise function."""
from __future__ import annotations

import pytest
import torch
from hypothesis import assume, event, example, given, settings
from hypothesis import strategies as st

import tritonize
from tritonize import pointwise
from tritonize.class_walks import ClassWalk, LeadingWalk, leading_key
from tritonize.decorator import NO_WALK, signature_key
from tritonize.view import StridedView

from test_runtime import (DENSE_FUNCTIONS, _dense_call, _out_call, _strided_call, dense_structures, leading_structures,
                          out_structures)


def _affine():
    def affine(x, scale, shift):
        return x * scale + shift
    return pointwise(affine)


def _values(shape, dtype, device, generator):
    return (torch.randn(shape, generator=generator) * 8).to(dtype).to(device)


# (x, scale, shift) of a leading size n, from a maker of values of a shape; each is walked by a kept
# ClassWalk that gives its walk at any n
LEADING = {
    "bias": lambda v, n: (v((n, 4, 8)), v((n, 4, 8)), v((8,))),
    "per-row column": lambda v, n: (v((n, 8)), v((n, 1)), v((n, 8))),
    "broadcast leading dim": lambda v, n: (v((n, 3, 8)), v((1, 3, 8)), v((n, 1, 8))),
    "strided slice": lambda v, n: (v((n, 16))[:, ::2], v((n, 8)), v((1, 8))),
    "column slice": lambda v, n: (v((n, 11))[:, :8], v((n, 8)), v((n, 1))),
    "every other row": lambda v, n: (v((2 * n, 8))[::2], v((n, 8)), v((n, 8))),
    "expanded": lambda v, n: (v((n, 1)).expand(n, 8), v((n, 8)), v((8,))),
    "inner dims permuted": lambda v, n: (v((n, 8, 4)).transpose(1, 2), v((n, 4, 8)), v((4, 1))),
}
# walks whose strides hold the leading size: kept by the scaled form of the leading key
SCALED = {
    "transposed": lambda v, n: (v((8, n)).t(), v((n, 8)), v((8,))),
    "permuted": lambda v, n: (v((4, n, 8)).transpose(0, 1), v((n, 4, 8)), v((n, 1, 8))),
    "leading dim innermost": lambda v, n: (v((8, 4, n)).permute(2, 1, 0), v((n, 4, 8)), v((4, 1))),
    "transposed beside a column": lambda v, n: (v((16, n)).t(), v((n, 1)), v((n, 16))),
}
# layouts that keep no LeadingWalk: strides that hold the leading size but are no multiple of it (a
# transposed column slice), and a size-1 dim whose stride does (its place in the order of strides
# would move with the size)
NO_LEADING_WALK = {
    "transposed slice": lambda v, n: (v((8, n + 3))[:, :n].t(), v((n, 8)), v((8,))),
    "size-1 dim among scaled strides": lambda v, n: (v((8, 1, n)).permute(2, 1, 0), v((n, 4, 8)), v((8,))),
}


def _full_path(fn, args, out=None):
    """The class key and walk of the full class path (no LeadingWalk asked)."""
    return fn._class_key(args) if out is None else fn._out_class_key(args, list(out))


def _kept(fn, args, out=None):
    """The LeadingWalk kept for calls like this one, its answer for this call, and the leading size;
    Nones for a call with no leading size of two or more (no leading_key: the full class path's)."""
    key = signature_key(args) + (signature_key(out) if out is not None else ())
    if leading_key(key) is None:
        return None, None, None
    walk, found, _ = fn._leading_walk(key)
    if type(walk) is not LeadingWalk:
        return None, None, leading_key(key)[1]
    answer = walk.classed(found[1]) if out is None else walk.out_classed(args, list(out), found[1])
    return walk, answer, found[1]


def _check_result(fn, args, got):
    expected = pointwise(fn.scalar_function)(*args)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert torch.equal(got, expected)
    x, scale, shift = (a.double() if isinstance(a, torch.Tensor) else a for a in args)
    rtol = {torch.bfloat16: 2**-8, torch.float16: 2**-11}.get(got.dtype, 1e-6)
    torch.testing.assert_close(got.double(), x * scale + shift, rtol=rtol, atol=1e-3)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("layout", list(LEADING) + list(SCALED))
def test_new_leading_sizes_take_the_kept_walk_s_answer(layout, dtype, device):
    """From the third call of a structure (its ClassWalk kept on the second), calls of new leading
    sizes take a LeadingWalk's class key and walk: the full class path's for that call, and the
    results are torch's. A scaled key of a size that divides a stride that does not hold it (2, 4, 8
    beside rows of 8) is another key, whose calls are right, by a LeadingWalk or by the full path."""
    fn, generator = _affine(), torch.Generator().manual_seed(5)
    make = {**LEADING, **SCALED}[layout]

    def values(shape):
        return _values(shape, dtype, device, generator)

    for n in (6, 7, 9) if layout in LEADING else (5, 7, 9):  # plans, the structure's walk, the LeadingWalk
        _check_result(fn, args := make(values, n), fn(*args))
    for n in (2, 3, 10, 31, 64, 257) if layout in LEADING else (3, 11, 31, 67, 257, 2, 4, 8):
        args = make(values, n)
        walk, answer, size = _kept(fn, args)
        assert walk is not None or (layout in SCALED and n in (2, 4, 8)), layout
        if walk is not None:
            assert size == n and answer == _full_path(fn, args)
        _check_result(fn, args, fn(*args))
    scaled = [k for k, walk in fn._leading_walks.items() if type(walk) is LeadingWalk
              and any(type(e) is tuple and len(e) == 6 and min(e[3]) < 0 for e in k)]
    assert len(scaled) == (layout in SCALED)


@pytest.mark.parametrize("layout", list(NO_LEADING_WALK))
def test_layouts_whose_walk_at_one_size_serves_no_other_keep_no_leading_walk(layout, device):
    """A transposed slice's strides hold its leading size plus a constant (a new key every call); a
    size-1 dim whose stride holds the leading size could move in the order of strides: no LeadingWalk
    serves them, and their calls take the full class path (beside a LeadingWalk of another layout,
    asked first)."""
    fn, generator = _affine(), torch.Generator().manual_seed(6)

    def values(shape):
        return _values(shape, torch.float32, device, generator)

    for n in (6, 7, 9):
        fn(*LEADING["bias"](values, n))
    for n in (6, 7, 9, 11, 33):
        args = NO_LEADING_WALK[layout](values, n)
        _check_result(fn, args, fn(*args))
        assert _kept(fn, args)[0] is None
    assert sum(type(walk) is LeadingWalk for walk in fn._leading_walks.values()) == 1


def test_a_transposed_batch_multiplied_in_place_takes_a_scaled_leading_walk(device):
    """x.mul_(y) of a transposed (64, n).t() beside (n, 64) rows, n new every call: from the third call
    a LeadingWalk of the scaled key answers, asking writes_apart of every call; an out= tensor that
    overlaps the input is refused by the planner, and nothing beside x is written."""
    @pointwise
    def mul(a, b):
        return a * b

    generator = torch.Generator().manual_seed(10)
    answered = 0
    for n in (5, 7, 9, 11, 13, 37):
        x = _values((16, n), torch.float32, device, generator).t()
        y = _values((n, 16), torch.float32, device, generator)
        expected, before = x * y, y.clone()
        walk, answer, _ = _kept(mul, (x, y), (x,))
        if walk is not None:
            answered += 1
            assert answer == _full_path(mul, (x, y), (x,))
        assert mul(x, y, out=x) is x and torch.equal(x, expected) and torch.equal(y, before)
    assert answered >= 3
    # an out= tensor of x's layout four elements on (aligned as x is): the same scaled key, overlapping x
    buffer = _values((16 * 13 + 4,), torch.float32, device, generator)
    x, out, y = buffer[:208].view(16, 13).t(), buffer[4:].view(16, 13).t(), torch.ones(13, 16, device=device)
    walk, answer, _ = _kept(mul, (x, y), (out,))
    assert walk is not None and answer is None
    with pytest.raises(tritonize.OutArgumentError, match="overlaps input 'a'"):
        mul(x, y, out=out)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=lambda d: str(d)[6:])
def test_a_rotation_in_place_over_a_growing_sequence_takes_a_leading_walk(dtype, device):
    """The even and odd halves of rows rotated in place, a row more every call: a LeadingWalk with
    out= tensors, which still asks call.writes_apart of each call; the results are the rotation into
    fresh tensors, and nothing but the halves is written."""
    @pointwise
    def rotate(a, b, cos, sin):
        return a * cos - b * sin, a * sin + b * cos

    generator = torch.Generator().manual_seed(7)
    buffer = _values((80, 130), dtype, device, generator)
    table = _values((2, 80, 32), dtype, device, generator)
    for n in list(range(3, 12)) + [40, 79]:
        rows = buffer[:n, :64]
        even, odd = rows[:, ::2], rows[:, 1::2]
        cos, sin = table[0, :n], table[1, :n]
        fresh = rotate(even.clone(), odd.clone(), cos, sin)
        before = buffer.clone()
        if n > 6:
            walk, answer, _ = _kept(rotate, (even, odd, cos, sin), (even, odd))
            assert walk is not None and answer == _full_path(rotate, (even, odd, cos, sin), (even, odd))
        result = rotate(even, odd, cos, sin, out=(even, odd))
        assert result[0] is even and result[1] is odd
        assert torch.equal(even, fresh[0]) and torch.equal(odd, fresh[1])
        assert torch.equal(buffer[:n, 64:], before[:n, 64:]) and torch.equal(buffer[n:], before[n:])


def test_an_out_tensor_that_overlaps_an_input_is_refused_beside_a_leading_walk(device):
    """Calls into the other half of one buffer keep a LeadingWalk; a call of the same signature whose
    output overlaps its input by a row is refused (the walk asks writes_apart of every call), and one
    whose output is apart again is written."""
    fn, generator = _affine(), torch.Generator().manual_seed(8)
    scale = _values((8,), torch.float32, device, generator)
    for n in (6, 7, 9, 10):
        buffer = _values((2 * n, 8), torch.float32, device, generator)
        x, out = buffer[:n], buffer[n:]
        expected = x * scale + 1.0
        assert fn(x, scale, 1.0, out=out) is out and torch.equal(out, expected)
    walk, answer, _ = _kept(fn, (x, scale, 1.0), (out,))
    assert walk is not None and answer is not None
    buffer = _values((12, 8), torch.float32, device, generator)
    assert _kept(fn, (buffer[1:], scale, 1.0), (buffer[:-1],))[1] is None
    with pytest.raises(tritonize.OutArgumentError, match="overlaps input 'x'"):
        fn(buffer[1:], scale, 1.0, out=buffer[:-1])
    buffer = _values((22, 8), torch.float32, device, generator)
    expected = buffer[:11] * scale + 1.0
    assert fn(buffer[:11], scale, 1.0, out=buffer[11:]) is not None and torch.equal(buffer[11:], expected)


def test_leading_key_replaces_each_leading_size_of_the_call_s_rank():
    """Tensors of the call's rank keep the rest of their shape and whether their leading size is 1;
    others (lower ranks, numbers, a StridedView's key) keep their entries; leading sizes of two or more
    must agree."""
    a, b, c = torch.empty(5, 3, 4), torch.empty(1, 3, 4), torch.empty(4)
    key = signature_key((a, b, c, 2.0))
    found, size = leading_key(key)
    assert size == 5 and found[2:] == key[2:]
    assert found[0] == (a.dtype, torch.Size([3, 4]), False, a.stride(), a.device, True)
    assert found[1] == (b.dtype, torch.Size([3, 4]), True, b.stride(), b.device, True)
    assert leading_key(signature_key((torch.empty(6, 3, 4), b, c, 2.0)))[0] == found
    assert leading_key(signature_key((a, torch.empty(6, 3, 4)))) is None  # no broadcast
    assert leading_key(signature_key((b, b))) is None  # no leading size of two or more
    assert leading_key(signature_key((torch.empty(0, 4), torch.empty(0, 4)))) is None
    view = StridedView(torch.arange(10.0), (5,), (2,))
    found, size = leading_key(signature_key((torch.empty(5), view)))
    assert size == 5 and found[1] == view.key


@st.composite
def _calls(draw):
    """A layout and dtype, and leading sizes of its calls in turn."""
    layout = draw(st.sampled_from(sorted(LEADING) + sorted(SCALED) + sorted(NO_LEADING_WALK)))
    dtype = draw(st.sampled_from([torch.float32, torch.float16, torch.int32]))
    sizes = draw(st.lists(st.integers(1, 70), min_size=3, max_size=9))
    return layout, dtype, sizes


@settings(max_examples=40, deadline=None)
@given(_calls())
@example(drawn=("bias", torch.float32, [2, 2, 3, 1, 4]))  # a leading size of 1 beside a kept walk: no leading key
def test_every_call_of_a_growing_batch_gives_the_full_path_s_answer(device, drawn):
    """Calls of one layout at drawn leading sizes (1 among them: another signature), with out= into a
    fresh tensor laid out as the planner allocates, or not: wherever a LeadingWalk answers, its answer
    is the full class path's, and every result is the scalar function's."""
    layout, dtype, sizes = drawn
    fn, generator = _affine(), torch.Generator().manual_seed(len(sizes))
    make = {**LEADING, **SCALED, **NO_LEADING_WALK}[layout]

    def values(shape):
        return _values(shape, dtype, device, generator)

    for k, n in enumerate(sizes):
        args = make(values, n)
        out = None
        if k % 2:
            shape = torch.broadcast_shapes(*(a.shape for a in args))
            out = (torch.empty(shape, dtype=dtype, device=device),)
        if fn._leading_walks:
            walk, answer, _ = _kept(fn, args, out)
            if walk is not None:
                event("a LeadingWalk answered a call" + (" with out=" if out else ""))
                assert answer == _full_path(fn, args, out)
        got = fn(*args) if out is None else fn(*args, out=out[0])
        _check_result(fn, args, got)
    # every kept walk of a layout whose strides do not hold the leading size checked out (NO_WALK: one whose
    # answer at another leading size was not the ClassWalk's; scaled keys of sizes that divide a stride
    # that does not hold the size are keys of other layouts)
    assert layout not in LEADING or NO_WALK not in fn._leading_walks.values()


def test_leading_walks_beside_numbers_0d_tensors_and_two_outputs(device):
    """A growing batch beside a Python number and a 0-d CPU tensor (passed by value), and a two-output
    function written into an input in place and a fresh tensor: every call after the LeadingWalk is
    kept gives the full class path's answer and the scalar function's results."""
    @pointwise
    def scaled_pair(x, bias, scale, shift):
        return x * scale + bias, x - shift

    generator = torch.Generator().manual_seed(9)
    scale = torch.tensor(1.5)  # 0-d, in CPU memory: by value beside tensors of any device
    answered = 0
    for n in (4, 5, 6, 7, 8, 20, 33):
        x = _values((n, 3, 8), torch.float32, device, generator)
        bias = _values((3, 1), torch.float32, device, generator)
        fresh = torch.empty(n, 3, 8, device=device)
        expected = pointwise(scaled_pair.scalar_function)(x, bias, scale, 0.25)
        walk, answer, _ = _kept(scaled_pair, (x, bias, scale, 0.25), (x, fresh))
        if walk is not None:
            answered += 1
            assert answer == _full_path(scaled_pair, (x, bias, scale, 0.25), (x, fresh))
        first, second = scaled_pair(x, bias, scale, 0.25, out=(x, fresh))
        assert first is x and second is fresh
        assert torch.equal(x, expected[0]) and torch.equal(fresh, expected[1])
    assert answered >= 3


def _class_through_run(fn, args, outputs=None):
    """A call's class as _run finds it on a miss (PointwiseFunction._missed_class)."""
    key = signature_key(args) + (signature_key(outputs) if outputs is not None else ())
    return fn._missed_class(args, outputs, outputs, key)


def _leading_against_planner(fn, first, second, first_out=None, second_out=None):
    """Three calls of `first` (its structure's walk kept on the second, its LeadingWalk on the third),
    then the LeadingWalk's answer for `second` (another leading size) against the planner's walk of it
    (no ClassWalk kept); an event for each answer."""
    for kept in (fn._class_walks, fn._leading_walks, fn._leading_probes, fn._scaled_probes):
        kept.clear()
    for _ in range(3):
        _class_through_run(fn, first, first_out)
    key = signature_key(second) + (signature_key(second_out) if second_out is not None else ())
    walk, found, _ = fn._leading_walk(key) if leading_key(key) is not None else (None, None, None)
    if type(walk) is not LeadingWalk:
        kept = [walk for walk in fn._class_walks.values() if type(walk) is ClassWalk]
        event("no LeadingWalk: " + ("it did not check out" if walk == NO_WALK else "no ClassWalk kept" if not kept
                                    else "another leading key"))
        return
    answer = walk.classed(found[1]) if second_out is None else walk.out_classed(second, second_out, found[1])
    fn._class_walks.clear()
    assert answer == (fn._class_key(second) if second_out is None else fn._out_class_key(second, second_out))
    event("a LeadingWalk of a scaled key answered the second call" if min(
        [min(e[3], default=0) for e in found[0] if type(e) is tuple and len(e) == 6], default=0) < 0
          else "a LeadingWalk answered the second call")


@settings(max_examples=400, deadline=None)  # (most draws keep no walk that serves every leading size)
@given(structure=leading_structures())
def test_a_leading_walk_is_the_planners_walk_of_strided_tensors(structure):
    """Slices with steps and gaps of a new leading size (test_runtime's leading structures):
    wherever a LeadingWalk answers, its class key and walk are the planner's."""
    tensors, (first_shape, second_shape) = structure
    fn = DENSE_FUNCTIONS[len(tensors)]
    _leading_against_planner(fn, _strided_call(tensors, first_shape), _strided_call(tensors, second_shape))


@settings(max_examples=400, deadline=None)  # (most draws keep no walk that serves every leading size)
@given(structure=dense_structures())
def test_a_leading_walk_is_the_planners_walk_of_dense_tensors(structure):
    """Permuted row-major tensors, broadcast or not, at a new leading size (test_runtime's dense
    structures, the second call's shape the first's but for its leading size): wherever a LeadingWalk
    answers (by the scaled key where the leading dim is not outermost in every tensor of the call's
    rank), it is the planner's."""
    tensors, (first_shape, other_shape) = structure
    assume(other_shape[0] != first_shape[0])
    fn = DENSE_FUNCTIONS[len(tensors)]
    second_shape = [other_shape[0], *first_shape[1:]]
    _leading_against_planner(fn, _dense_call(tensors, first_shape, "cpu"), _dense_call(tensors, second_shape, "cpu"))


@settings(max_examples=400, deadline=None)  # (most draws keep no walk that serves every leading size)
@given(structure=out_structures())
def test_a_leading_walk_with_out_is_the_planners_walk(structure):
    """Calls with out= (test_runtime's out structures: dense or strided, outputs fresh or in place) at
    a new leading size: wherever a LeadingWalk answers, it is the planner's (_out_class_key's)."""
    dense, inputs, outputs, (first_shape, other_shape) = structure
    assume(other_shape[0] != first_shape[0])
    fn = DENSE_FUNCTIONS[len(inputs)]
    first = _out_call(dense, inputs, outputs, first_shape)
    second = _out_call(dense, inputs, outputs, [other_shape[0], *first_shape[1:]])
    _leading_against_planner(fn, first[0], second[0], first[1], second[1])


@settings(max_examples=300, deadline=None)
@given(structure=dense_structures(), sizes=st.tuples(st.integers(2, 40), st.integers(2, 90)))
def test_a_scaled_leading_walk_is_the_planners_walk_of_dense_tensors(structure, sizes):
    """Permuted row-major tensors (test_runtime's dense structures) at drawn leading sizes, the leading
    dim anywhere in each tensor's order: wherever a LeadingWalk answers the second call, by the scaled
    key or the plain one, it is the planner's."""
    tensors, (shape, _) = structure
    first, second = sizes
    assume(first != second)
    fn = DENSE_FUNCTIONS[len(tensors)]
    _leading_against_planner(fn, _dense_call(tensors, [first, *shape[1:]], "cpu"),
                             _dense_call(tensors, [second, *shape[1:]], "cpu"))


@settings(max_examples=300, deadline=None)
@given(structure=out_structures(), sizes=st.tuples(st.integers(2, 40), st.integers(2, 90)))
def test_a_scaled_leading_walk_with_out_is_the_planners_walk(structure, sizes):
    """Calls with out= (test_runtime's out structures, outputs fresh or in place) at drawn leading sizes:
    wherever a LeadingWalk answers the second call, it is the planner's (_out_class_key's)."""
    dense, inputs, outputs, (shape, _) = structure
    first, second = sizes
    assume(first != second)
    fn = DENSE_FUNCTIONS[len(inputs)]
    made = [_out_call(dense, inputs, outputs, [n, *shape[1:]]) for n in (first, second)]
    _leading_against_planner(fn, made[0][0], made[1][0], made[0][1], made[1][1])
