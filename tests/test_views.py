"""StridedView operands: a base tensor, sizes, strides of any sign and an offset, checked to lie
inside the base's storage, read by any @pointwise call like a tensor input: broadcasting,
layouts, coalescing (signed), 2D tiles, overlap checks with out=, memoization keyed by the
view's metadata, and the generated code."""
from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import tritonize
from tritonize import StridedView, StridedViewError, pointwise
from tritonize.decorator import signature_key
from tensor_strategies import ALL_DTYPES, laid_out, make_values, shapes


@pointwise
def ident(x):
    return x


@pointwise
def add(x, y):
    return x + y


@pointwise(promotion="int_to_float")
def halve(x):
    return x / 2


def flipped(t, dims):
    """A view of `t` flipped along `dims` (what tritonize.ops.flip builds)."""
    strides, offset = list(t.stride()), 0
    for d in dims:
        offset += (t.shape[d] - 1) * strides[d]
        strides[d] = -strides[d]
    return StridedView(t, t.shape, strides, offset)


def _spec(fn, *args):
    return fn.plan(args, {}, None)[1]


def test_a_view_reads_outside_its_storage_is_refused():
    base = torch.arange(12.0)
    with pytest.raises(StridedViewError, match="storage elements -4 to 3 .* would read outside"):
        StridedView(base, (2, 4), (-4, 1), 0)  # the first row is before the storage's start
    with pytest.raises(StridedViewError, match="would read outside"):
        StridedView(base, (4,), (4,), 1)  # its last element is past the end
    with pytest.raises(StridedViewError, match="would read outside"):
        StridedView(base[6:], (7,), (-1,), 6)  # from base[6:]'s last element back before storage element 0
    assert StridedView(base[6:], (7,), (-1,), 5).clone().tolist() == [11.0, 10.0, 9.0, 8.0, 7.0, 6.0, 5.0]
    with pytest.raises(StridedViewError, match="2 dims but strides"):
        StridedView(base, (2, 3), (1,), 0)
    with pytest.raises(StridedViewError, match="negative size"):
        StridedView(base, (-1,), (1,), 0)
    with pytest.raises(StridedViewError, match="must be an int"):
        StridedView(base, (2,), (1,), 0.5)
    with pytest.raises(StridedViewError, match="strided torch.Tensor"):
        StridedView([1.0, 2.0], (2,), (1,))
    assert issubclass(StridedViewError, tritonize.CallError) and issubclass(StridedViewError, ValueError)
    empty = StridedView(base, (0, 5), (-100, 1), 10**6)  # no element: nothing to check
    assert ident(empty).shape == (0, 5)


def test_views_duck_type_as_the_runtime_reads_tensors():
    base = torch.arange(24, dtype=torch.int16).reshape(4, 6)[1:]
    view = StridedView(base, (3, 2), (-6, 2), 12)
    assert view.dim() == 2 and view.numel() == 6 and view.stride() == (-6, 2) and view.stride(0) == -6
    assert view.dtype == torch.int16 and view.device == base.device and view.element_size() == 2
    assert view.storage_offset() == 18 and view.data_ptr() == base.data_ptr() + 12 * 2
    assert view.clone().tolist() == [[18, 20], [12, 14], [6, 8]]
    assert "strides=(-6, 2)" in repr(view)


def test_negative_strides_in_several_dims(device):
    x = torch.randn(3, 4, 5, device=device)
    for dims in ([0], [1], [2], [0, 2], [0, 1, 2]):
        view = flipped(x, dims)
        torch.testing.assert_close(ident(view), x.flip(dims), rtol=0, atol=0)
        torch.testing.assert_close(add(view, x), x.flip(dims) + x)
    other = torch.randn(5, 4, 3, device=device).permute(2, 1, 0)  # flipped and transposed at once
    torch.testing.assert_close(ident(flipped(other, [0, 2])), other.flip(0, 2), rtol=0, atol=0)


def test_the_base_is_left_as_it_was(device):
    x = torch.randn(6, 7, device=device)
    before = x.clone()
    for dims in ([0], [0, 1]):
        ident(flipped(x, dims))
        add(flipped(x, dims), 1.0)
    assert torch.equal(x, before)


def test_broadcast_with_other_tensors(device):
    row = torch.randn(1, 6, device=device)
    col = torch.randn(4, 1, device=device)
    v = flipped(row, [1])
    torch.testing.assert_close(add(v, col), row.flip(1) + col)
    torch.testing.assert_close(add(col, flipped(col, [0])), col + col.flip(0))  # (4, 1) + (4, 1)
    torch.testing.assert_close(add(flipped(torch.randn(6, device=device), [0]), col).shape, torch.Size((4, 6)))
    # a view that broadcasts itself (stride 0 along a dim of size > 1)
    base = torch.arange(5.0, device=device)
    spread = StridedView(base, (3, 5), (0, -1), 4)
    torch.testing.assert_close(ident(spread), base.flip(0).expand(3, 5))
    torch.testing.assert_close(add(spread, col[:3]), base.flip(0) + col[:3])
    # 0-d: a view of one element is that element, and weak in promotion like a 0-d tensor
    one = StridedView(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, device=device), (), (), 2)
    result = add(one, torch.ones(3, dtype=torch.float32, device=device))
    assert result.dtype == torch.float32 and result.tolist() == [4.0, 4.0, 4.0]


def test_coalescing_is_signed(device):
    x = torch.randn(3, 4, 5, device=device)
    # every dim flipped: one run with stride -1
    plan, spec = ident.plan((flipped(x, [0, 1, 2]),), {}, None)
    assert spec.rank == 1 and plan.inputs[0].strides == [-1]
    # one dim flipped: its neighbours do not merge across it
    assert _spec(ident, flipped(x, [1])).rank == 3
    plan, spec = ident.plan((flipped(x, [0]),), {}, None)
    assert spec.rank == 2 and plan.inputs[0].strides == [-20, 1]
    assert plan.outputs[0].tensor.stride() == (20, 5, 1)  # laid out like x, as torch.flip does
    # two operands of opposite signs keep dims apart that either alone would merge
    assert _spec(add, flipped(x, [0, 1, 2]), x).rank == 1  # ... but coalesce within each
    assert _spec(add, flipped(x, [0, 1]), x).rank == 2
    for dims in ([0, 1, 2], [1], [0], [0, 1]):
        torch.testing.assert_close(add(flipped(x, dims), x), x.flip(dims) + x)


def test_layout_orders_dims_by_stride_magnitude(device):
    x = torch.randn(5, 7, device=device).t()  # strides (1, 7)
    out = ident(flipped(x, [0, 1]))
    assert out.stride() == (1, 7)  # like x, as torch.flip's empty_like(preserve)
    torch.testing.assert_close(out, x.flip(0, 1), rtol=0, atol=0)


def test_transposed_flip_and_contiguous_operand_take_a_2d_tile(device):
    a = torch.randn(70, 33, device=device)
    b = torch.randn(33, 70, device=device)
    view = flipped(a.t(), [0, 1])  # strides (-1, -33)
    spec = _spec(add, view, b)
    assert spec.tile is not None
    torch.testing.assert_close(add(view, b), a.t().flip(0, 1) + b)


@given(data=st.data(), shape=shapes(max_rank=4), dtype=st.sampled_from(ALL_DTYPES))
def test_flipped_views_match_torch(data, shape, dtype, device):
    values = make_values(shape, dtype, torch.Generator().manual_seed(len(shape)))
    x = data.draw(laid_out(values, device))
    dims = data.draw(st.lists(st.sampled_from(range(len(shape))), unique=True)) if shape else []
    if x.numel() == 0:
        dims = []  # an empty view: no element is checked, any offset goes
    view = flipped(x, dims)
    expected = x.flip(dims) if dims else x
    assert torch.equal(ident(view), expected)
    other = data.draw(laid_out(make_values(shape[data.draw(st.integers(0, len(shape))):], dtype,
                                           torch.Generator().manual_seed(3)), device))
    assert torch.equal(add(view, other), expected + other)


def test_memoized_calls_key_views_by_their_metadata(device):
    x = torch.randn(4, 6, device=device)
    y = torch.randn(4, 6, device=device)
    ident._recipes.clear()
    # two different flips in a row, then again: each gives its own result
    for _ in range(2):
        assert torch.equal(ident(flipped(x, [0])), x.flip(0))
        assert torch.equal(ident(flipped(x, [1])), x.flip(1))
        assert torch.equal(ident(flipped(x, [0, 1])), x.flip(0, 1))
    assert len(ident._recipes) == 3
    # the same metadata over other data takes the memoized recipe with the new pointer
    assert torch.equal(ident(flipped(y, [0])), y.flip(0))
    assert torch.equal(ident(flipped(x[1:], [0])), x[1:].flip(0))  # another shape: a new recipe
    assert len(ident._recipes) == 4
    # a view never shares a key with a tensor or a number
    keys = {signature_key((flipped(x, [0]),)), signature_key((flipped(x, [1]),)), signature_key((x,)),
            signature_key((1.0,))}
    assert len(keys) == 4
    assert torch.equal(ident(x), x)


def test_alignment_of_the_first_element_is_in_the_key(device):
    base = torch.randn(34, device=device)
    aligned = StridedView(base, (16,), (-1,), 15)  # first element at byte 60: not 16-byte aligned
    other = StridedView(base, (16,), (-1,), 19)  # at byte 76
    third = StridedView(base, (16,), (-1,), 16)  # at byte 64: aligned
    assert signature_key((aligned,)) == signature_key((other,)) != signature_key((third,))
    for _ in range(2):
        for view, start in ((aligned, 15), (third, 16), (other, 19)):
            assert torch.equal(ident(view), base[start - 15:start + 1].flip(0))


def test_overlap_with_out_is_checked_on_the_views_memory(device):
    x = torch.arange(12.0, device=device)
    with pytest.raises(tritonize.OutArgumentError, match="overlaps input 'x'"):
        ident(flipped(x[:8], [0]), out=x[4:])  # reads 0..7 backwards, writes 4..11
    with pytest.raises(tritonize.OutArgumentError, match="overlaps input 'x'"):
        ident(flipped(x[:6], [0]), out=x[:6])  # the same memory, not the same view
    ident(flipped(x[:6], [0]), out=x[6:])  # the other half of the storage: allowed
    assert x.tolist() == [0.0, 1, 2, 3, 4, 5, 5, 4, 3, 2, 1, 0]
    forward = StridedView(x, (6,), (1,), 0)  # positive strides over exactly out's memory: in place
    add(forward, 1.0, out=x[:6])
    assert x[:6].tolist() == [1.0, 2, 3, 4, 5, 6]
    with pytest.raises(tritonize.OutArgumentError, match="StridedView, which is a read-only input"):
        ident(x, out=flipped(x, [0]))


def test_promotion_rules_read_a_views_dtype(device):
    ints = torch.arange(6, dtype=torch.int32, device=device)
    result = halve(flipped(ints, [0]))
    assert result.dtype == torch.float32 and result.tolist() == [2.5, 2.0, 1.5, 1.0, 0.5, 0.0]
    with pytest.raises(tritonize.DtypeError, match="complex64"):
        ident(flipped(torch.zeros(3, dtype=torch.complex64, device=device), [0]))


def test_autograd_and_compile_paths_refuse_views_clearly(device):
    w = torch.randn(5, device=device, requires_grad=True)
    with pytest.raises(tritonize.CallError, match="requires grad"):
        ident(flipped(w, [0]))
    with torch.no_grad():
        assert torch.equal(ident(flipped(w, [0])), w.detach().flip(0))
    # a view of data that needs no gradient joins a differentiable call as a constant
    x = torch.randn(5, device=device)
    y = add(flipped(x, [0]), w)
    y.sum().backward()
    torch.testing.assert_close(y.detach(), x.flip(0) + w.detach())
    torch.testing.assert_close(w.grad, torch.ones(5, device=device))
    with pytest.raises(tritonize.CallError, match="torch.compile"):
        ident._op_call((flipped(x, [0]),), {}, None)


def test_generated_code_and_explain_for_a_view_call(device):
    x = torch.randn(3, 4, device=device)
    view = flipped(x, [0])
    source = ident.source(view)
    assert "tl.load(x_ptr + (i0 * x_stride0 + i1 * x_stride1), mask=mask)" in source
    # the code does not know about views: a rank-2 float32 tensor gets the same module
    assert source == ident.source(torch.randn(3, 8, device=device)[:, :4])
    text = ident.explain(view)
    assert "StridedView, shape (3, 4), strides (-4, 1), offset 8" in text
    assert "x strides (-4, 1)" in text
