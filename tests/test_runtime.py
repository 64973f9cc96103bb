"""The runtime: coalescing, index width, layouts, 0-d and empty tensors, out=, aliasing,
the on-disk cache, source comments, functions defined in notebooks and redefined."""
from __future__ import annotations

import copy
import dataclasses
import itertools
import linecache
import math
import os
import pickle
import subprocess
import sys
import textwrap

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import tritonize
from tritonize import call, decorator, pointwise
from tritonize.class_walks import ClassWalk
from tritonize.decorator import kernel_strides, signature_key, strided_tensors
from tritonize.passes.type_rules import by_value_dtype, triton_dtype

from test_semantics import _bitwise_equal


@pointwise
def axpy(a, x, y):
    return a * x + y


@pointwise
def add(x, y):
    return x + y


def math_sin(v):
    import_free = v - v * v * v / 6.0  # a plain helper: inlined
    return import_free


@pointwise
def sincos(x):
    return math_sin(x), x * 2


def _spec(fn, *args):
    return fn.plan(args, {}, None)[1]


def test_contiguous_dims_coalesce_to_rank_1(device):
    x = torch.randn(2, 3, 4, 5, device=device)
    assert _spec(add, x, x).rank == 1
    torch.testing.assert_close(add(x, x), x + x)


def test_transposed_and_contiguous_stay_rank_2(device):
    a = torch.randn(6, 5, device=device)
    b = torch.randn(5, 6, device=device)
    assert _spec(add, a.t(), b).rank == 2
    torch.testing.assert_close(add(a.t(), b), a.t() + b)


def test_size_one_dims_dropped_and_broadcast_row(device):
    x = torch.randn(4, 1, 6, device=device)
    row = torch.randn(6, device=device)
    assert _spec(add, x, row).rank == 1 or _spec(add, x, row).rank == 2
    torch.testing.assert_close(add(x, row), x + row)
    assert _spec(add, torch.randn(1, 1, 7, device=device), torch.randn(7, device=device)).rank == 1


def test_all_transposed_output_is_transposed_and_rank_1(device):
    a = torch.randn(5, 7, device=device).t()
    b = torch.randn(5, 7, device=device).t()
    out = add(a, b)
    assert out.stride() == (a + b).stride() == (1, 7)
    assert _spec(add, a, b).rank == 1


def test_zero_dim_empty_and_scalars(device):
    x0 = torch.tensor(2.5, device=device)
    assert add(x0, x0).shape == ()
    assert add(x0, x0).item() == 5.0
    empty = torch.empty(0, 3, device=device)
    out = add(empty, 1.0)
    assert out.shape == (0, 3) and out.device.type == device
    assert add(2, 3).item() == 5 and add(2, 3).dtype == torch.int64
    assert add(2.5, True).dtype == torch.float32  # a Python float result: the default dtype
    x = torch.randn(3, device=device)
    torch.testing.assert_close(axpy(x0, x, 1.0), x0 * x + 1.0)


def test_int64_indexing_is_correct_too(device):
    """The int64 path runs wherever an offset needs it; forced here on a small tensor."""
    x = torch.randn(3, 4, device=device).t()
    plan, spec = add.plan((x, x), {}, None)
    assert spec.index_dtype == torch.int32
    spec = dataclasses.replace(spec, index_dtype=torch.int64)
    assert "pid.to(tl.int64)" in add.module_for(spec)[1].read_text()
    add._launch_planned(plan, spec)
    torch.testing.assert_close(plan.outputs[0].tensor, x + x)


def test_evict_last_loads_are_correct_too(device):
    """Tiled CUDA launches of a wave or more ask the L2 to keep their loads' lines; forced here
    on a small tiled call, where the plan does not choose it (call.evict_last)."""
    x, y = torch.randn(37, 20, device=device).t(), torch.randn(20, 37, device=device)
    plan, spec = add.plan((x, y), {}, None)
    assert spec.tile is not None and not spec.evict_last
    spec = dataclasses.replace(spec, evict_last=True)
    source = add.module_for(spec)[1].read_text()
    assert source.count("eviction_policy='evict_last'") == 2 and "loads kept in L2 (evict_last)" in source
    assert "eviction_policy" not in add.module_for(dataclasses.replace(spec, evict_last=False))[1].read_text()
    add._launch_planned(plan, spec)
    torch.testing.assert_close(plan.outputs[0].tensor, x + y)


def test_plan_keeps_loads_in_l2_on_large_cuda_tiles(device):
    a, b = torch.empty(2048, 2048, device=device).t(), torch.empty(2048, 2048, device=device)
    plan, spec = add.plan((a, b), {}, None)  # planned, not launched
    assert spec.tile is not None and spec.evict_last == (device == "cuda")
    assert not add.plan((a, a), {}, None)[1].evict_last  # one layout: a flat kernel


# (shape on CUDA, shape on the CPU, the tile edges and warps the CUDA rule gives 16-bit operands)
SIXTEEN_BIT_TILES = [((1024, 1024), (128, 128), (64, 64), 8),  # from 2^20 elements: 64 x 64, 8 warps
                     ((512, 256), (64, 64), (32, 32), 4),  # below: 32 x 32 where float32 takes 512
                     ((2048, 16), (64, 16), (16, 32), 4)]  # a side under 32: the float32 tile


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("cuda_shape, cpu_shape, blocks, warps", SIXTEEN_BIT_TILES)
def test_16bit_tiles_of_each_launch_rule_give_torchs_results(device, dtype, cuda_shape, cpu_shape, blocks, warps,
                                                             monkeypatch):
    """A transposed 16-bit add under each 16-bit tile rule (call.tile_shape): on CUDA the plan
    takes the rule's tile edges and warps; on the CPU they are forced (LAUNCH_SHAPE_OVERRIDE) on a
    smaller shape, for Triton's interpreter. Either way the result is torch's, bit for bit."""
    @pointwise
    def add16(x, y):
        return x + y

    if device == "cpu":
        monkeypatch.setattr(call, "LAUNCH_SHAPE_OVERRIDE", lambda sizes, tile: (blocks, warps))
    shape = cuda_shape if device == "cuda" else cpu_shape
    x = torch.randn(shape[::-1], device=device).to(dtype).t()
    y = torch.randn(shape, device=device).to(dtype)
    plan, spec = add16.plan((x, y), {}, None)
    assert spec.tile is not None and (plan.blocks, plan.warps) == (blocks, warps)
    assert torch.equal(add16(x, y), x + y)
    out = torch.full_like(y, float("nan"))
    assert torch.equal(add16(x, y, out=out), x + y) and torch.equal(out, x + y)


@pytest.mark.parametrize("shape, other", [((64,), (64,)), ((8, 16), (8, 1)), ((4, 4, 8), (4, 1, 1)),
                                           ((60,), (60,)), ((6, 10), (6, 1)), ((2048, 5), (5,))])
def test_launches_whose_blocks_cover_the_elements_need_no_masks(device, shape, other):
    """A flat launch of a multiple of BLOCK elements leaves the masks out (the header and
    explain() say so); other sizes keep them; the results are torch's either way."""
    x, y = torch.randn(shape, device=device), torch.randn(other, device=device)
    plan, spec = add.plan((x, y), {}, None)
    covered = plan.numel % plan.blocks[0] == 0
    assert spec.tile is None and spec.unmasked == covered
    source = add.module_for(spec)[1].read_text()
    assert ("mask" not in source.split("def launch")[0].replace("no masks", "").replace("no mask:", "")) == covered
    assert ("no masks (the blocks cover the tasks exactly)" in source) == covered
    assert ("covering the elements exactly, so no masks" in add.explain(x, y)) == covered
    last_only = spec.masks_last_block_only
    assert last_only == (not covered)  # (60,) and the decoded walks: their last block masked
    assert ("only the last block is masked" in add.explain(x, y)) == last_only
    assert ("if whole_block:" in source) == last_only
    torch.testing.assert_close(add(x, y), x + y)
    out = torch.full_like(x, float("nan"))
    torch.testing.assert_close(add(x, y, out=out), x + y)


def test_unmasked_rule():
    """No masks exactly where a flat launch's blocks divide its elements; tiles keep theirs."""
    assert call.unmasked((2**24,), None, (1024,)) and call.unmasked((16, 4096), None, (1024,))
    assert not call.unmasked((2**24 + 16,), None, (1024,)) and not call.unmasked((1000,), None, (1024,))
    assert not call.unmasked((0,), None, (1024,))
    assert not call.unmasked((4096, 4096), (0, 1, ()), (64, 64))


@pytest.mark.parametrize("form", ["column", "row", "middle", "tiled row", "tiled column", "expanded scalar"])
def test_broadcast_dims_leave_the_address(device, form):
    """An input with stride 0 along some dims (not all) has those terms left out of its address;
    the spec names them, and the results are torch's. Tiled: a transposed and a contiguous input
    beside the broadcast one (the output follows the transposed one, its dims reversed)."""
    x = torch.randn(3, 33, 40, device=device) if form == "middle" else torch.randn(33, 40, device=device)
    y, dims = {"column": (torch.randn(33, 1, device=device), (1,)),
               "row": (torch.randn(40, device=device), (0,)),
               "middle": (torch.randn(3, 1, 40, device=device), (1,)),
               "tiled row": (torch.randn(40, device=device), (1,)),
               "tiled column": (torch.randn(33, 1, device=device), (0,)),
               "expanded scalar": (torch.randn(1, 1, device=device).expand(33, 40), None)}[form]
    if form.startswith("tiled"):
        fn, args = axpy, (torch.randn(40, 33, device=device).t(), x, y)
        expected = args[0] * x + y
    else:
        fn, args, expected = add, (x, y), x + y
    plan, spec = fn.plan(args, {}, None)
    assert dict(spec.broadcast_dims).get("y") == dims and len(spec.broadcast_dims) == (dims is not None)
    assert (spec.tile is not None) == form.startswith("tiled")
    source = fn.module_for(spec)[1].read_text()
    if dims:
        assert f"y broadcast along dim {dims[0]}" in source
        assert f"i{dims[0]} * y_stride{dims[0]}" not in source and "* y_stride" in source
    fn._launch_planned(plan, spec)
    torch.testing.assert_close(plan.outputs[0].tensor, expected)


def test_index_width_choice():
    assert call.fits_int32([2**20], [[1], [1]], 1024)
    assert not call.fits_int32([2**31], [[1]], 1024)  # more tasks than int32 counts
    assert not call.fits_int32([3, 2**20], [[2**30, 1]], 1024)  # an offset past 2**31
    assert call.fits_int32([3, 2**20], [[-2**20, 1]], 1024)  # negative strides count by size
    assert not call.fits_int32([2**16, 2**16], [[1, 2**16], [2**16, 1]], 1024)


def test_out_non_contiguous_and_upcast(device):
    x = torch.randn(4, 6, device=device)
    out = torch.full((6, 4), -7.0, dtype=torch.float64, device=device).t()
    result = add(x, x, out=out)
    assert result is out
    torch.testing.assert_close(out, (x + x).double())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_a_wider_out_holds_the_rounded_result_as_torch_does(device, dtype):
    # torch computes the result in its own dtype, then copies it into out=: a float16 sum in a
    # float32 out= is the float16 sum, not the float32 one the kernel computes on the way
    a, b = (torch.randn(300, device=device) * 3).to(dtype), torch.randn(300, device=device).to(dtype)
    for out_dtype in (torch.float32, torch.float64, dtype):
        expected = torch.empty(300, dtype=out_dtype, device=device)
        torch.add(a, b, out=expected)
        assert not torch.equal(expected, a.double() + b.double()) or out_dtype == dtype
        for _ in range(2):  # planned, then memoized
            out = torch.full((300,), float("nan"), dtype=out_dtype, device=device)
            add(a, b, out=out)
            assert torch.equal(out, expected)
    assert "(results of " + ("float16" if dtype == torch.float16 else "bfloat16") in add.source(a, b, out=out.float())


def test_in_place_alias(device):
    x = torch.randn(5, 3, device=device)
    y = torch.randn(3, device=device)
    expected = x + y
    add(x, y, out=x)
    torch.testing.assert_close(x, expected)


def test_two_outputs_with_out_tuple(device):
    x = torch.randn(9, device=device)
    a, b = torch.empty(9, device=device), torch.empty(9, device=device)
    ra, rb = sincos(x, out=(a, b))
    assert ra is a and rb is b
    torch.testing.assert_close(a, x - x * x * x / 6.0)
    torch.testing.assert_close(b, x * 2)


def test_out_with_zero_elements_is_resized_as_torch_resizes_it(device):
    """out= with zero elements (`torch.empty(0)`, to be filled) takes the result's shape, call after call
    (each call keyed by the resized shape: a recipe kept for the empty one would write past it), in
    both outputs of a pair, and for a result that has zero elements itself."""
    x, y = torch.randn(4, 5, device=device), torch.randn(5, device=device)
    for _ in range(3):
        out = torch.empty(0, device=device)
        assert add(x, y, out=out) is out
        assert out.shape == (4, 5) and out.is_contiguous()
        torch.testing.assert_close(out, x + y)
    out = torch.empty(7, device=device)[:0]  # a view, with room in its storage
    torch.testing.assert_close(add(x, y, out=out), x + y)
    a, b = torch.empty(0, 3, device=device), torch.empty(0, device=device)
    ra, rb = sincos(x, out=(a, b))
    assert ra is a and rb is b and a.shape == b.shape == (4, 5)
    torch.testing.assert_close(b, x * 2)
    out = torch.empty(0, device=device)
    add(torch.empty(0, 3, device=device), 1.0, out=out)
    assert out.shape == (0, 3)
    out = torch.empty(0, dtype=torch.float64, device=device)  # a wider dtype takes the result too
    torch.testing.assert_close(add(x, y, out=out), (x + y).double())


def test_a_resized_out_is_laid_out_as_torchs_ops_lay_out_a_new_result(device):
    """A resized out= follows the inputs' physical order, as TensorIterator restrides one: transposed for
    a transposed input, channels-last beside a channels-last input, row-major for contiguous ones; an out=
    of another shape with elements (which torch resizes with a warning) alike, in tritonize.ops."""
    import tritonize.ops as tops
    transposed = torch.randn(4, 5, device=device).t()
    channels_last = torch.randn(2, 3, 4, 5, device=device).to(memory_format=torch.channels_last)
    bias = torch.randn(3, 1, 1, device=device)
    for args in ((transposed, 1.0), (channels_last, bias), (bias, channels_last), (torch.randn(3, 4, device=device),
                                                                                   1.0)):
        expected = torch.add(*args, out=torch.empty(0, device=device))
        out = torch.empty(0, device=device)
        assert add(*args, out=out) is out
        assert out.stride() == expected.stride() and torch.equal(out, expected)
        with pytest.warns(UserWarning, match="was resized"):
            out = tops.add(*args, out=torch.empty(2, device=device))
        assert out.stride() == expected.stride() and torch.equal(out, expected)
    a, b = torch.empty(0, device=device), torch.empty(0, device=device)
    sincos(transposed, out=(a, b))
    assert a.stride() == b.stride() == (1, 5)


class _Holder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.activation = add  # a @pointwise function kept on a module

    def forward(self, x):
        return self.activation(x, 1.0)


def test_a_function_pickles_and_copies_by_reference(device, tmp_path):
    """As a def does: pickle and torch.save name its module and qualified name (a spawned worker imports
    it there), copy and deepcopy keep it (its locks cannot be copied), and a lambda by its variable."""
    from test_lambdas import double

    for fn in (add, double):
        assert pickle.loads(pickle.dumps(fn)) is fn
        assert copy.copy(fn) is fn and copy.deepcopy(fn) is fn
    model = _Holder()
    x = torch.randn(5, device=device)
    torch.testing.assert_close(copy.deepcopy(model)(x), x + 1.0)
    torch.save(model, tmp_path / "model.pt")
    loaded = torch.load(tmp_path / "model.pt", weights_only=False)
    assert loaded.activation is add
    torch.testing.assert_close(loaded(x), x + 1.0)
    nested = pointwise(lambda v: v + 2)  # not reachable by name, as a nested def is not
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(nested)


def test_cache_file_name_location_and_comments(device):
    x = torch.randn(3, 4, device=device)
    path = add.source_path(x, x)
    assert path.parent == tritonize.cache_dir()
    assert path.name.startswith("add_rank1_f32") and path.suffix == ".py"
    text = path.read_text()
    line = add.scalar_function.__code__.co_firstlineno + 2  # the decorator, the def, the return
    assert f"# src[test_runtime.py:{line}]: return x + y" in text
    assert "def launch(" in text and "@triton.jit" in text


def test_cache_dir_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITONIZE_CACHE_DIR", str(tmp_path / "explicit"))
    assert tritonize.cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("TRITONIZE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert tritonize.cache_dir() == tmp_path / "xdg" / "tritonize"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert tritonize.cache_dir() == tmp_path / "home" / ".cache" / "tritonize"


def test_corrupted_cache_file_is_rewritten(device):
    x = torch.randn(5, device=device)
    path = axpy.source_path(2.0, x, x)
    good = path.read_text()
    path.write_text(good[: len(good) // 2])  # truncated by a crash, say
    again = tritonize.cache.write_module(path.stem.rsplit("_", 1)[0], good)
    assert again == path and path.read_text() == good


NEXT_PROCESS = textwrap.dedent("""
    import sys, torch, tritonize
    sys.path.insert(0, {tests!r})
    from test_runtime import add
    x = torch.arange(6.0, device={device!r})
    assert torch.equal(add(x, x), x + x)
    print(add.source_path(x, x))
""")


def test_next_process_reuses_the_cached_module(device, tmp_path):
    env = dict(os.environ, TRITONIZE_CACHE_DIR=str(tmp_path))
    script = NEXT_PROCESS.format(tests=os.path.dirname(__file__), device=device)
    first = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    path = first.stdout.strip().splitlines()[-1]
    mtime = os.stat(path).st_mtime_ns
    second = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert second.stdout.strip().splitlines()[-1] == path
    assert os.stat(path).st_mtime_ns == mtime  # read, not rewritten
    assert len(os.listdir(tmp_path)) == 1


def _define_in_cell(source: str, filename: str, namespace: dict):
    """What IPython does with a cell: the source lives in linecache, not in a file."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)


def test_function_defined_in_a_notebook_cell_and_redefined(device):
    namespace = {"pointwise": pointwise}
    _define_in_cell("@pointwise\ndef cell_fn(x):\n    return x * 3\n", "<ipython-input-1>", namespace)
    x = torch.arange(4.0, device=device)
    assert torch.equal(namespace["cell_fn"](x), x * 3)
    _define_in_cell("@pointwise\ndef cell_fn(x):\n    return x - 1\n", "<ipython-input-2>", namespace)
    assert torch.equal(namespace["cell_fn"](x), x - 1)


def test_mixed_devices_are_refused():
    if not torch.cuda.is_available():
        pytest.skip("needs a GPU; the CPU-only refusal (meta tensors) is in test_errors.py")
    with pytest.raises(tritonize.DeviceError, match="'x' on cpu"):
        add(torch.ones(3), torch.ones(3, device="cuda"))
    # a 0-d CPU tensor may join CUDA tensors, as in torch
    torch.testing.assert_close(add(torch.tensor(2.0), torch.ones(3, device="cuda")), torch.full((3,), 3.0, device="cuda"))


@pointwise
def scaled(x, factor: float, flag):
    return x * factor if flag else x - factor


def test_repeated_calls_take_the_memoized_path_with_new_values(device):
    x = torch.randn(6, 5, device=device)
    first = scaled(x, 2, True)
    recipes = len(scaled._recipes)
    torch.testing.assert_close(first, x * 2.0)
    # same signature, other values: no new plan, the right answer
    torch.testing.assert_close(scaled(x + 1, 3, True), (x + 1) * 3.0)
    torch.testing.assert_close(scaled(x, 3, False), x - 3.0)
    assert len(scaled._recipes) == recipes
    # another layout is another signature
    torch.testing.assert_close(scaled(x.t(), 2.5, True), x.t() * 2.5)
    assert len(scaled._recipes) == recipes + 1
    with pytest.raises(tritonize.CallError, match="does not fit in int64"):
        add(x, 2**70)
    add(x, 2)  # the int signature, memoized
    with pytest.raises(tritonize.CallError, match="does not fit in int64"):
        add(x, 2**70)


@pointwise
def cube(x):
    return x * x * x


@pytest.mark.parametrize("arity", [1, 2, 3])
def test_memoized_signatures_still_record_gradients(device, arity):
    """The steady path (its one- and two-tensor forms unrolled) keys no requires_grad: a call
    like a memoized one whose input requires grad goes to autograd while grad mode is on, and
    to the memoized launch under no_grad; a tensor subclass misses it."""
    fn = {1: cube, 2: add, 3: axpy}[arity]
    reference = {1: lambda x: x * x * x, 2: lambda x, y: x + y, 3: lambda a, x, y: a * x + y}[arity]
    plain = [torch.randn(5, 3, device=device) for _ in range(arity)]
    for _ in range(2):  # planned, then memoized
        torch.testing.assert_close(fn(*plain), reference(*plain))
    leaves = [t.clone().requires_grad_() for t in plain]
    for position in range(arity):
        args = [leaves[k] if k == position else plain[k] for k in range(arity)]
        result = fn(*args)
        assert result.grad_fn is not None
        result.sum().backward()
        expected = [t.detach().clone().requires_grad_() if k == position else t for k, t in enumerate(args)]
        reference(*expected).sum().backward()
        torch.testing.assert_close(leaves[position].grad, expected[position].grad)
        with torch.no_grad():
            quiet = fn(*args)
        assert quiet.grad_fn is None and not quiet.requires_grad
        torch.testing.assert_close(quiet, reference(*plain))

    class Tagged(torch.Tensor):
        pass
    tagged = plain[0].as_subclass(Tagged)
    torch.testing.assert_close(fn(tagged, *plain[1:]), reference(*plain))


def test_results_are_fresh_tensors_each_call(device):
    x = torch.ones(4, device=device)
    a = add(x, x)
    b = add(x, x)
    assert a.data_ptr() != b.data_ptr()
    a.zero_()
    assert torch.equal(b, torch.full((4,), 2.0, device=device))


def test_keywords_and_defaults_take_the_memoized_path(device):
    @pointwise
    def affine(x, scale: float = 2.0, shift: float = 0.5):
        return x * scale + shift

    x = torch.randn(7, device=device)
    torch.testing.assert_close(affine(x), x * 2.0 + 0.5)
    torch.testing.assert_close(affine(x, shift=1.0), x * 2.0 + 1.0)
    torch.testing.assert_close(affine(x, 3.0, shift=-1.0), x * 3.0 - 1.0)
    torch.testing.assert_close(affine(x, shift=2, scale=1), x + 2.0)
    assert len(affine._recipes) == 2  # (tensor, float, float) and (tensor, int, int)
    with pytest.raises(tritonize.ArgumentCountError):
        affine(x, scale=1.0, bogus=2)
    with pytest.raises(tritonize.ArgumentCountError):
        affine(x, 1.0, scale=2.0)


def test_differently_aligned_pointers_of_one_signature(device):
    """Triton specializes on 16-byte alignment: the memoized launch must tell them apart."""
    base = torch.randn(1025, device=device)
    aligned, misaligned = base[:1024], base[1:]
    assert signature_key((aligned, aligned)) != signature_key((misaligned, misaligned))
    for _ in range(3):
        torch.testing.assert_close(add(aligned, aligned), aligned * 2)
        torch.testing.assert_close(add(misaligned, misaligned), misaligned * 2)
        torch.testing.assert_close(add(aligned, misaligned), aligned + misaligned)


def test_operands_that_disagree_on_layout_get_a_2d_tile(device):
    a = torch.randn(70, 33, device=device)
    b = torch.randn(33, 70, device=device)
    spec = _spec(add, a.t(), b)
    assert spec.tile[:2] == (0, 1)
    assert "BLOCK1: tl.constexpr" in add.source(a.t(), b)
    torch.testing.assert_close(add(a.t(), b), a.t() + b)
    x = torch.randn(3, 5, 7, 9, device=device).permute(2, 0, 3, 1)
    y = torch.randn(x.shape, device=device)
    assert _spec(add, x, y).tile is not None
    torch.testing.assert_close(add(x, y), x + y)
    torch.testing.assert_close(axpy(2.5, x, y), 2.5 * x + y)  # a scalar in a tiled kernel
    # contiguous and broadcast operands keep the flat walk
    assert _spec(add, b, b).tile is None
    assert _spec(add, b, torch.randn(33, 1, device=device)).tile is None
    assert call.choose_tile([5, 7], [[7, 1], [1, 5]]) == (0, 1)
    assert call.choose_tile([5, 7], [[7, 1], [2, 0]]) is None


def test_tile_with_combined_inner_dims(device):
    """The output is contiguous over two trailing dims that the other operand splits: the
    tile's inner side walks both as one index."""
    x = torch.randn(2, 64, 3, 2, device=device)  # a permuted view whose last two dims are one run
    a = x.permute(0, 3, 2, 1)
    b = torch.randn(a.shape, device=device)
    spec = _spec(add, a, b)
    assert spec.tile is not None and spec.tile[0] < spec.rank - 2
    assert "group_size" in add.source(a, b)
    torch.testing.assert_close(add(a, b), a + b)


# (a's shape before .t() or a permute, that permute, the tile's dim p: its rank-2 and rank-3 walks)
GRID_CASES = [((33, 70), (1, 0), 0), ((70, 200), (1, 0), 0), ((5, 64, 3, 2), (0, 3, 2, 1), 1),
              ((3, 40, 6, 5), (0, 3, 2, 1), 1)]


@pytest.mark.parametrize("shape, permute, p", GRID_CASES)
@pytest.mark.parametrize("max_rows", [65535, 1, 0], ids=["rows fit", "one row", "none fit"])
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
def test_tiles_take_a_2d_grid_where_their_rows_fit(device, monkeypatch, shape, permute, p, max_rows, index_dtype):
    """A tiled launch runs on a 2D grid (tile column, row of tiles: program_id(0) and (1)) where
    its rows of tiles (along p, times the dims before p) fit call.MAX_GRID_ROWS; else on one
    program id split by division. Both give torch's results, in rank 2 and with dims before p,
    with int32 and int64 indexing (forced)."""
    monkeypatch.setattr(call, "MAX_GRID_ROWS", max_rows)
    if index_dtype == torch.int64:
        monkeypatch.setattr(call, "fits_int32", lambda *args: False)
    a = torch.randn(shape, device=device).permute(permute)
    b = torch.randn(a.shape, device=device)

    @pointwise
    def add_on_a_grid(a, b):
        return a + b

    plan, spec = add_on_a_grid.plan((a, b), {}, None)
    assert spec.tile is not None and spec.tile[0] == p and spec.index_dtype == index_dtype
    rows = -(-plan.sizes[p] // plan.blocks[0]) * math.prod(plan.sizes[:p])
    columns = -(-math.prod(plan.sizes[p + 1:]) // plan.blocks[1])
    assert spec.two_dimensional_grid == (rows <= max_rows)
    grid = call.launch_grid(plan, spec.tile, spec.two_dimensional_grid)
    assert grid == ((columns, rows) if spec.two_dimensional_grid else (columns * rows,))
    source = add_on_a_grid.source(a, b)
    assert ("tl.program_id(1)" in source) == spec.two_dimensional_grid
    assert ("// tiles_inner" in source) != spec.two_dimensional_grid
    assert ("tl.program_id(1).to(tl.int64)" in source) == (spec.two_dimensional_grid and index_dtype == torch.int64)
    for _ in range(2):  # planned, then the memoized recipe
        torch.testing.assert_close(add_on_a_grid(a, b), a + b, rtol=0, atol=0)


# -- memoized calls with out= -----------------------------------------------------------------


def _count_plans(fn, monkeypatch) -> list:
    planned = []
    original = fn.plan

    def plan(*args, **kwargs):
        planned.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(fn, "plan", plan)  # the instance attribute shadows the method
    return planned


def test_calls_with_out_are_memoized(device, monkeypatch):
    @pointwise
    def blend(x, y, w: float):
        return x * w + y

    planned = _count_plans(blend, monkeypatch)
    x, y = torch.randn(5, 6, device=device), torch.randn(6, device=device)
    out = torch.empty(5, 6, device=device)
    for w in (0.5, 2.0, -1.0):
        assert blend(x, y, w, out=out) is out
        torch.testing.assert_close(out, x * w + y)
    assert len(planned) == 1 and len(blend._out_recipes) == 1
    # in place (out is input x): another signature of the outputs' pointers, planned once
    for _ in range(2):
        before = x.clone()
        blend(x, y, 3.0, out=x)
        torch.testing.assert_close(x, before * 3.0 + y)
    assert len(planned) == 1  # the same key: shapes, strides, dtypes and alignment agree
    # keywords bind, then take the same recipe
    blend(x, y=y, w=1.0, out=out)
    torch.testing.assert_close(out, x + y)
    assert len(planned) == 1
    # an out of another layout is another recipe
    blend(x, y, 1.0, out=torch.empty(6, 5, device=device).t())
    assert len(planned) == 2 and len(blend._out_recipes) == 2


def test_memoized_out_calls_still_refuse_partial_overlap(device):
    """The second call has the first one's signature; only its pointers say it overlaps."""
    @pointwise
    def shifted(x, y):
        return x + y

    buffer = torch.arange(64.0, device=device)
    y = torch.ones(16, device=device)
    shifted(buffer[:16], y, out=buffer[32:48])  # disjoint: memoized
    before = buffer.clone()
    with pytest.raises(tritonize.OutArgumentError, match="overlaps input 'x'"):
        shifted(buffer[:16], y, out=buffer[4:20])  # 16-byte aligned too: the same key
    torch.testing.assert_close(buffer, before)
    shifted(buffer[:16], y, out=buffer[:16])  # the very view: in place
    torch.testing.assert_close(buffer[:16], before[:16] + 1)


def test_in_place_through_views_that_differ_only_in_size1_strides(device):
    """out= that walks the input's elements from the same pointer is in place, whatever the
    strides of its size-1 dims (which never move): planned afresh and memoized alike."""
    @pointwise
    def twice(x):
        return x * 2.0

    base = torch.arange(12.0, device=device)
    x = base.as_strided((3, 1, 4), (4, 4, 1))
    out = base.as_strided((3, 1, 4), (4, 1, 1))
    for _ in range(2):
        expected = x.clone() * 2.0
        assert twice(x, out=out) is out
        torch.testing.assert_close(out, expected)
    assert len(twice._out_recipes) == 1


def test_memoized_out_calls_check_outputs_against_each_other(device):
    @pointwise
    def both(x):
        return x + 1, x * 2

    x = torch.ones(8, device=device)
    buffer = torch.zeros(32, device=device)
    both(x, out=(buffer[:8], buffer[16:24]))
    torch.testing.assert_close(buffer[:8], x + 1)
    with pytest.raises(tritonize.OutArgumentError, match="overlaps another output"):
        both(x, out=(buffer[:8], buffer[4:12]))
    with pytest.raises(tritonize.OutArgumentError, match="overlaps another output"):
        both(x, out=(buffer[8:16], buffer[8:16]))


def test_out_beside_an_input_requiring_grad_is_refused_after_its_signature_is_memoized(device):
    """Two tensors into a third take the steady path's own key (requires_grad is not in it): an input
    that requires grad is refused there too, with nothing written, and written under no_grad."""
    x, out = torch.randn(4, device=device), torch.zeros(4, device=device)
    y = torch.randn(4, device=device, requires_grad=True)
    with torch.no_grad():
        for _ in range(2):
            assert add(x, y, out=out) is out
    torch.testing.assert_close(out, (x + y).detach())
    before = out.clone()
    with pytest.raises(tritonize.CallError, match="out= does not support automatic differentiation"):
        add(x * 2, y, out=out)
    assert torch.equal(out, before)
    with torch.no_grad():
        add(x * 2, y, out=out)
    torch.testing.assert_close(out, (x * 2 + y).detach())


def test_out_requiring_grad_is_refused_while_grad_is_enabled(device):
    """As torch: out= cannot be differentiated, also when only out requires grad."""
    x = torch.randn(4, device=device)
    out = torch.zeros(4, device=device, requires_grad=True)
    for _ in range(2):
        with pytest.raises(tritonize.CallError, match="out= does not support automatic differentiation"):
            add(x, x, out=out)
        assert torch.equal(out, torch.zeros(4, device=device))
    with torch.no_grad():
        add(x, x, out=out)
    torch.testing.assert_close(out.detach(), x + x)


@st.composite
def _views_of_one_buffer(draw):
    """An input view and an out view of one buffer, of one shape and any strides and offsets
    (often the same offset, and size-1 dims whose strides may differ between two views that
    walk the same elements)."""
    shape = draw(st.sampled_from([(6,), (3, 4), (4, 3), (2, 2, 3), (1, 6), (3, 1, 4), (2, 1, 3, 1)]))
    orders = list(itertools.permutations(range(len(shape))))

    def strides():
        order = draw(st.sampled_from(orders))
        result, step = [0] * len(shape), draw(st.sampled_from([1, 1, 2]))
        for d in reversed(order):
            result[d] = step
            step *= shape[d]
        return tuple(result)

    input_offset = draw(st.integers(0, 40))
    return shape, strides(), strides(), input_offset, draw(st.one_of(st.just(input_offset), st.integers(0, 40)))


@given(_views_of_one_buffer())
def test_memoized_out_calls_decide_overlap_as_a_fresh_plan_does(device, views):
    """Differential: a call whose signature is memoized (a disjoint out before it) writes or
    refuses exactly as the same call planned afresh."""
    shape, input_strides, out_strides, input_offset, out_offset = views

    def run(fn, buffer):
        try:
            fn(buffer.as_strided(shape, input_strides, input_offset), 0.5,
               out=buffer.as_strided(shape, out_strides, out_offset))
        except tritonize.OutArgumentError:
            return None
        return buffer

    @pointwise
    def halve_plus(x, s: float):
        return x * 0.5 + s

    @pointwise
    def fresh(x, s: float):
        return x * 0.5 + s

    primer = torch.zeros(200, device=device)  # same offsets mod 4: the same alignment
    halve_plus(primer.as_strided(shape, input_strides, input_offset), 0.5,
               out=primer.as_strided(shape, out_strides, out_offset + 100))
    plans, plan = [], halve_plus.plan
    halve_plus.plan = lambda *args, **kwargs: plans.append(1) or plan(*args, **kwargs)
    start = torch.randn(200, device=device)
    memoized, planned = run(halve_plus, start.clone()), run(fresh, start.clone())
    assert (memoized is None) == (planned is None)
    assert bool(plans) == (memoized is None)  # the recipe decided every call it may write
    if memoized is not None:
        assert torch.equal(memoized, planned)


# -- calls planned by their class: dense tensors of one shape (PointwiseFunction._class_plan) ----


def _dense_functions():
    """Fresh functions (no template learned yet): binary, with a number, unary with costly math
    and an int result, two outputs."""
    def add_scaled(x, y, alpha: float):
        return x + alpha * y

    def softplus_like(x):
        return math.log1p(math.exp(x)) if x < 20.0 else x

    def floor_halves(x):
        return x // 2

    def polar(r, t):
        return r * math.cos(t), r * math.sin(t)

    return {"add_scaled": (pointwise(add_scaled), 2, (0.25,)), "softplus_like": (pointwise(softplus_like), 1, ()),
            "floor_halves": (pointwise(floor_halves), 1, ()), "polar": (pointwise(polar), 2, ())}


def _class_plan(fn, args):
    """What _run asks first of a call without out=: its class's plan, or None."""
    dense = fn._class_key(args)
    return None if dense is None else fn._class_plan(dense, args)


def _same_plan(fn, args):
    """The class template's plan and specialization are the full planner's."""
    quick = _class_plan(fn, args)
    assert quick is not None, [tuple(a.shape) for a in args if isinstance(a, torch.Tensor)]
    plan, spec = quick
    full_plan, full_spec = fn.plan(args, {}, None, positional=True)
    assert spec == full_spec
    for field in ("shape", "device", "sizes", "index_dtype", "blocks", "warps", "moved_bytes", "vtypes"):
        assert getattr(plan, field) == getattr(full_plan, field), field
    assert [(o.label, o.strides) for o in plan.inputs] == [(o.label, o.strides) for o in full_plan.inputs]
    assert ([(o.tensor.dtype, o.tensor.shape, o.tensor.stride(), o.strides) for o in plan.outputs]
            == [(o.tensor.dtype, o.tensor.shape, o.tensor.stride(), o.strides) for o in full_plan.outputs])
    # a class launch (CUDA) passes the walk strides of each tensor that takes strides (all but 0-d ones on
    # the GPU), then the outputs': the kernel's strides
    classed = fn._class_key(args)
    _, sizes, walked, out_strides, allocated, *_ = fn._class_sizes(classed, fn._class_templates[classed[0]])
    strided = [tuple(walked[k]) for k in strided_tensors(full_spec)]
    assert (*strided, *[tuple(strides) for strides in out_strides]) == kernel_strides(full_plan, full_spec)
    assert sizes == full_plan.sizes and tuple(allocated) == full_plan.outputs[0].tensor.stride()


@pytest.mark.parametrize("name", ["add_scaled", "softplus_like", "floor_halves", "polar"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32], ids=lambda d: str(d)[6:])
def test_a_dense_call_of_a_new_shape_plans_as_the_full_planner_does(name, dtype, device):
    """After one dense call (every tensor row-major, of one shape), calls of other shapes, ranks
    and sizes (across the int32 limit of blocks, masks, and 1-sized dims) take the class's
    template, whose plan and specialization are the full planner's, and give torch's results."""
    fn, arity, numbers = _dense_functions()[name]
    if name == "floor_halves" and dtype == torch.bfloat16:
        dtype = torch.int64
    generator = torch.Generator().manual_seed(3)

    def tensors(shape):
        return [(torch.randn(shape, generator=generator) * 8).to(dtype).to(device) for _ in range(arity)]

    first = tensors((64,))
    fn(*first, *numbers)
    assert fn._class_templates, "the first dense call leaves its class's template"
    for shape in [(2,), (1000,), (1024,), (3, 5), (4, 1, 3), (1, 1, 7), (2, 3, 4, 5), (4096,), (33, 31)]:
        args = (*tensors(shape), *numbers)
        _same_plan(fn, args)
        got = fn(*args)
        planned_fully = pointwise(fn.scalar_function)(*args)  # a fresh function: no template
        for value, expected in zip(got if isinstance(got, tuple) else (got,),
                                   planned_fully if isinstance(planned_fully, tuple) else (planned_fully,)):
            assert value.shape == torch.Size(shape) and value.is_contiguous()
            _bitwise_equal(value, expected)
        if name == "add_scaled":
            a, b = (t.double() for t in args[:2])
            torch.testing.assert_close(got.double(), a + 0.25 * b, rtol=1e-2 if dtype == torch.bfloat16 else 1e-6,
                                       atol=0.1 if dtype == torch.bfloat16 else 1e-5)


@pytest.mark.parametrize("name", ["add_scaled", "polar"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32], ids=lambda d: str(d)[6:])
def test_a_call_with_a_bias_of_a_new_shape_plans_as_the_full_planner_does(name, dtype, device):
    """After one call of a whole tensor beside one of a shape that ends its shape (a bias), in
    either order, calls of other shapes of that kind (ranks 2-4, ones before the bias's dims or
    among the whole tensor's) take their class's template: a walk of two runs (the rows, the row)
    whose plan and specialization are the full planner's, with a fresh function's results bit for
    bit."""
    fn, _, numbers = _dense_functions()[name]
    generator = torch.Generator().manual_seed(5)

    def values(shape):
        return (torch.randn(shape, generator=generator) * 8).to(dtype).to(device)

    whole, bias = values((64, 16)), values((16,))
    fn(whole, bias, *numbers)
    fn(bias, whole, *numbers)
    for shape, ending in [((3, 5), (5,)), ((1000, 7), (7,)), ((2, 3, 4, 5), (4, 5)), ((4, 1, 3), (1, 3)),
                          ((33, 31), (1, 31)), ((2, 2), (2,)), ((4096, 3), (3,)), ((5, 6, 7), (6, 7)),
                          ((7, 1, 9), (9,)), ((2, 3, 4), (1, 1, 4))]:
        whole, bias = values(shape), values(ending)
        for args in ((whole, bias, *numbers), (bias, whole, *numbers)):
            _same_plan(fn, args)
            got = fn(*args)
            planned_fully = pointwise(fn.scalar_function)(*args)
            for value, expected in zip(got if isinstance(got, tuple) else (got,),
                                       planned_fully if isinstance(planned_fully, tuple) else (planned_fully,)):
                assert value.shape == torch.Size(shape) and value.is_contiguous()
                _bitwise_equal(value, expected)
    column = values((6, 1))  # broadcast along each row: a class of its own, with no template yet
    assert _class_plan(fn, (values((6, 5)), column, *numbers)) is None
    fn(values((64, 16)), values((64, 1)), *numbers)
    _same_plan(fn, (values((6, 5)), column, *numbers))
    # a bias of more dims than the batch widens the result: (6, 5) beside (1, 1, 5) gives (1, 6, 5),
    # the same walk (the size-1 dim is dropped): the bias's class, with an output of the wider shape
    wider = (values((6, 5)), values((1, 1, 5)), *numbers)
    _same_plan(fn, wider)
    got = fn(*wider)
    assert (got[0] if isinstance(got, tuple) else got).shape == (1, 6, 5)
    assert _class_plan(fn, (values((6, 5)), values((5, 6)).t()[0], *numbers)) is None  # a strided bias
    # an empty batch beside its per-row column (a class with a template): the planner's, which
    # launches nothing (a class launch would ask CUDA for a grid of no programs)
    empty = (torch.zeros((0, 5), dtype=dtype, device=device), torch.zeros((0, 1), dtype=dtype, device=device),
             *numbers)  # row-major strides (an op's empty result may have others)
    assert _class_plan(fn, empty) is None
    got = fn(*empty)
    assert all(value.shape == (0, 5) for value in (got if isinstance(got, tuple) else (got,)))


KINDS = {"whole": lambda shape, k: shape, "row": lambda shape, k: shape[-k:],
         "column": lambda shape, k: shape[:-k] + (1,) * k}


def _affine_and_values(dtype, device, seed: int):
    """A fresh @pointwise x * scale + shift, and a maker of argument values of a shape."""
    def affine(x, scale, shift):
        return x * scale + shift

    generator = torch.Generator().manual_seed(seed)

    def values(shape):
        return (torch.randn(shape, generator=generator) * 8).to(dtype).to(device)

    return pointwise(affine), values


def _check_class_walks(fn, values, dtype, learned: list, cases: list):
    """After one call on arguments of the shapes `learned`, calls on those of each case (a list of
    argument shapes of the same class) take the class's template: plan and specialization the full
    planner's, a contiguous result of the broadcast shape, a fresh function's results bit for bit,
    torch's values."""
    fn(*[values(shape) for shape in learned])  # learns the class's template
    for shapes in cases:
        got = _check_affine_class_call(fn, tuple(values(shape) for shape in shapes), dtype)
        assert got.is_contiguous(), shapes


def _check_affine_class_call(fn, args, dtype):
    """A call of _affine_and_values's function on `args`, of a class with a template: plan and
    specialization the full planner's (so the output's layout too), a result of the broadcast
    shape, a fresh function's results bit for bit, torch's values. Returns the result."""
    _same_plan(fn, args)
    got = fn(*args)
    assert got.shape == torch.broadcast_shapes(*(a.shape for a in args))
    _bitwise_equal(got, pointwise(fn.scalar_function)(*args))
    x, scale, shift = args
    if dtype == torch.bfloat16:  # computed in float32, rounded once: within half a bfloat16 ulp
        exact = x.double() * scale.double() + shift.double()
        torch.testing.assert_close(got.double(), exact, rtol=2**-8, atol=1e-3)
    else:  # torch's two ops, each rounded (the kernel contracts no fma)
        assert torch.equal(got, x * scale + shift)
    return got


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32], ids=lambda d: str(d)[6:])
def test_calls_with_per_row_columns_and_biases_plan_as_the_full_planner_does(dtype, device):
    """Columns broadcast along each row (the shape's leading dims, then k ones: a per-row scale)
    beside a batch, alone or with a bias of the last k dims, in any order and any mix, take their
    class's walk of two runs too (_check_class_walks)."""
    fn, values = _affine_and_values(dtype, device, 11)
    sizes = [((3, 5), 1), ((1000, 7), 1), ((2, 3, 4, 5), 1), ((2, 3, 4, 5), 2), ((33, 31), 1), ((4, 1, 3), 1),
             ((7, 1, 9), 1), ((5, 6, 1), 2), ((2, 2), 1)]
    for kinds in (("whole", "column", "row"), ("column", "whole", "row"), ("whole", "row", "column"),
                  ("whole", "column", "column"), ("column", "whole", "whole"), ("row", "column", "whole")):
        _check_class_walks(fn, values, dtype, [KINDS[kind]((64, 16), 1) for kind in kinds],
                           [[KINDS[kind](shape, k) for kind in kinds] for shape, k in sizes])
    x, bias = values((2, 6, 5)), values((5,))
    # walks of three runs: classes of their own, with no template learned yet
    assert _class_plan(fn, (x, values((1, 6, 1)), bias)) is None
    assert _class_plan(fn, (x, values((2, 1, 1)), bias)) is None
    assert _class_plan(fn, (x, values((2, 6, 1)), bias)) is not None


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=lambda d: str(d)[6:])
def test_calls_broadcast_along_middle_dims_plan_as_the_full_planner_does(dtype, device):
    """Row-major tensors broadcast along any runs of dims (a rotary embedding's (s, 1, d) beside
    (s, h, d), an outer product, a 4-D mix) take their class's walk of those runs after one call
    (_check_class_walks)."""
    fn, values = _affine_and_values(dtype, device, 17)
    patterns = {  # shapes from the sizes, for (x, scale, shift)
        "rotary": lambda s, h, d: ((s, h, d), (s, 1, d), (s, 1, d)),
        "outer": lambda s, h, d: ((s, 1), (1, d), (s, d)),
        "middle": lambda s, h, d: ((h, s, d), (h, 1, d), (d,)),
        "four runs": lambda s, h, d: ((s, h, 2, d), (s, 1, 2, 1), (1, h, 1, d)),
    }
    for shapes in patterns.values():
        _check_class_walks(fn, values, dtype, shapes(8, 4, 16),
                           [shapes(*sizes) for sizes in [(3, 5, 7), (17, 2, 64), (2, 3, 2), (100, 12, 33)]])


LAYOUTS = {  # (x, scale, shift) of sizes (s, h, d), from a maker of row-major values of a shape
    "transposed": lambda v, s, h, d: (v((d, s)).t(), v((s, d)), v((d,))),
    "transposed beside a column": lambda v, s, h, d: (v((d, s)).t(), v((s, 1)), v((1, d))),
    "permuted": lambda v, s, h, d: (v((s, d, h)).permute(0, 2, 1), v((s, h, d)), v((s, 1, d))),
    "rank-4 permuted": lambda v, s, h, d: (v((h, s, 2, d)).permute(1, 0, 2, 3), v((s, h, 2, d)),
                                           v((s, h, 2, d)).permute(3, 2, 1, 0).contiguous().permute(3, 2, 1, 0)),
    "strided slice": lambda v, s, h, d: (v((s, 2 * d))[:, ::2], v((s, d)), v((1, d))),
    "strided slices, gathered": lambda v, s, h, d: (v((s, 2 * d + 1))[:, ::2][:, :d], v((s, 3 * d))[:, ::3], v((d,))),
    "column slice": lambda v, s, h, d: (v((s, d + 3))[:, :d], v((s, d)), v((s, 1))),
    "every other row": lambda v, s, h, d: (v((2 * s, d))[::2], v((s, d)), v((s, d))),
    "expanded": lambda v, s, h, d: (v((s, 1)).expand(s, d), v((s, d)), v((d,))),
    "all of them strided": lambda v, s, h, d: (v((h, s, 2 * d))[:, :, 1::2].transpose(0, 1),
                                               v((s, d, h)).transpose(1, 2), v((s, h, d + 1))[..., :d]),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_calls_of_other_layouts_plan_as_the_full_planner_does(layout, dtype, device):
    """Transposed, permuted, sliced and expanded tensors (tiled walks, gathered loads, decoded
    indices) take their class's template after one call: the planner's walk of their dims, a
    specialization that depends on its rank, tile and broadcast dims, sized for each call
    (_check_affine_class_call)."""
    fn, values = _affine_and_values(dtype, device, 23)
    make = LAYOUTS[layout]
    learned = make(values, 8, 4, 32)
    fn(*learned)
    for sizes in [(3, 5, 7), (17, 2, 64), (2, 3, 2), (100, 12, 33), (40, 4, 32)]:
        args = make(values, *sizes)
        if fn._class_key(args)[0] != fn._class_key(learned)[0]:
            fn(*args)  # another class of the layout (sizes that make a tile or a run): its template
        _check_affine_class_call(fn, args, dtype)


OUT_LAYOUTS = {  # LAYOUTS, and the dense classes' layouts: rows, a bias, a column
    "rows": lambda v, s, h, d: (v((s, d)), v((s, d)), v((s, d))),
    "bias": lambda v, s, h, d: (v((s, h, d)), v((s, h, d)), v((d,))),
    "column": lambda v, s, h, d: (v((s, d)), v((s, 1)), v((s, d))),
    **LAYOUTS,
}


def _allocated_as_planned(fn, args, dtype=None):
    """An out= tensor laid out as plan() allocates the result of fn(*args) (of `dtype` if given)."""
    planned = fn.plan(args, {}, None, positional=True)[0].outputs[0].tensor
    return torch.empty_strided(planned.shape, planned.stride(), dtype=dtype or planned.dtype, device=planned.device)


def _check_out_class_call(fn, args, out, dtype):
    """A call of _affine_and_values's function on `args` into `out`, of a class with a template:
    plan and specialization the full planner's with out=, torch's values and a fresh function's
    results bit for bit in `out`, which the call returns."""
    classed = fn._out_class_key(args, [out])
    assert classed is not None and classed[0] in fn._class_templates
    plan, spec = fn._class_plan(classed, args, [out])
    full_plan, full_spec = fn.plan(args, {}, out, positional=True)
    assert spec == full_spec
    for field in ("shape", "device", "sizes", "index_dtype", "blocks", "warps", "moved_bytes", "vtypes"):
        assert getattr(plan, field) == getattr(full_plan, field), field
    assert [(o.label, o.strides) for o in plan.inputs] == [(o.label, o.strides) for o in full_plan.inputs]
    assert [(o.label, o.tensor, o.strides) for o in plan.outputs] == [(o.label, o.tensor, o.strides)
                                                                      for o in full_plan.outputs]
    expected = pointwise(fn.scalar_function)(*args).to(out.dtype)  # computed before `out` is written
    x, scale, shift = args
    want = (x.double() * scale.double() + shift.double()) if dtype == torch.bfloat16 else x * scale + shift
    assert fn(*args, out=out) is out
    _bitwise_equal(out, expected)
    if dtype == torch.bfloat16:
        torch.testing.assert_close(out.double(), want, rtol=2**-8, atol=1e-3)
    else:
        assert torch.equal(out, want.to(out.dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("layout", list(OUT_LAYOUTS))
def test_calls_with_out_of_a_new_shape_plan_as_the_full_planner_does(layout, dtype, device):
    """Calls with out= of other sizes take their class's template after one such call
    (_check_out_class_call): into a tensor laid out as tritonize would allocate the result (of the
    result's dtype or float64), the class of the call without out=, keyed by the outputs' dtypes
    too; into one laid out otherwise (its dims reversed), and in place into the first argument
    wherever it has the call's shape, the planner's walk of the inputs and the outputs."""
    fn, values = _affine_and_values(dtype, device, 41)
    make = OUT_LAYOUTS[layout]

    def reversed_dims(args):
        allocated = _allocated_as_planned(fn, args)
        dims = list(range(allocated.dim()))[::-1]
        return allocated.permute(*dims).contiguous().permute(*dims)

    into = {"allocated": _allocated_as_planned,
            "allocated, float64": lambda fn, args: _allocated_as_planned(fn, args, torch.float64),
            "dims reversed": lambda fn, args: reversed_dims(args),
            "in place": lambda fn, args: args[0]}
    for kind, out_for in into.items():
        learned = make(values, 8, 4, 32)
        if kind == "in place" and (learned[0].shape != torch.broadcast_shapes(*(a.shape for a in learned))
                                   or 0 in learned[0].stride()):
            continue  # the first argument is broadcast: no call writes it in place
        fn(*learned, out=out_for(fn, learned))
        for sizes in [(3, 5, 7), (17, 2, 64), (100, 12, 33), (40, 4, 32)]:
            args = make(values, *sizes)
            if fn._out_class_key(args, [out_for(fn, args)])[0] not in fn._class_templates:
                other = make(values, *sizes)  # another class (sizes that make a tile or a run): its template
                fn(*other, out=out_for(fn, other))
            _check_out_class_call(fn, args, out_for(fn, args), dtype)


def test_out_calls_that_overlap_take_the_planner(device):
    """An out= tensor whose elements overlap an input's without being it, or with a stride-0 dim, has
    no class plan: the planner refuses it (check_overlap, check_output). Views of one storage
    whose elements lie apart take their class, their spans apart or interleaved."""
    fn, values = _affine_and_values(torch.float32, device, 43)
    x, scale, shift = values((16, 8)), values((16, 8)), values((8,))
    fn(x, scale, shift, out=torch.empty(16, 8, device=device))  # the class's template
    for n in (5, 12):
        x, scale, shift = values((n, 8)), values((n, 8)), values((8,))
        buffer = values((n + 1, 8))
        assert fn._out_class_key((buffer[1:], scale, shift), [buffer[:-1]]) is None
        with pytest.raises(tritonize.OutArgumentError, match="overlaps input 'x'"):
            fn(buffer[1:], scale, shift, out=buffer[:-1])
        expanded = torch.empty(n, 1, device=device).expand(n, 8)
        assert fn._out_class_key((x, scale, shift), [expanded]) is None
        with pytest.raises(tritonize.OutArgumentError, match="stride-0"):
            fn(x, scale, shift, out=expanded)
        apart = values((2 * n, 8))  # two halves of one storage: apart, so of the class
        assert fn._out_class_key((apart[:n], scale, shift), [apart[n:]]) is not None
        fn(apart[:n], scale, shift, out=apart[n:])
        assert torch.equal(apart[n:], apart[:n] * scale + shift)
        together = values((n, 16))  # an input and the output interleaved in one storage, elements apart
        assert fn._out_class_key((together[:, 8:], scale, shift), [together[:, :8]]) is not None
        expected = together[:, 8:] * scale + shift
        fn(together[:, 8:], scale, shift, out=together[:, :8])
        assert torch.equal(together[:, :8], expected)
        before = together.clone()  # interleaved and sharing elements: the planner refuses it
        assert fn._out_class_key((together[:, 4:12], scale, shift), [together[:, :8]]) is None
        with pytest.raises(tritonize.OutArgumentError, match="overlaps input 'x'"):
            fn(together[:, 4:12], scale, shift, out=together[:, :8])
        assert torch.equal(together, before)


@st.composite
def _one_layout_two_sizes(draw):
    """Three arguments' layouts (dims kept or broadcast, an order of dims in memory, a step
    along each dim, extra elements at the end of each dim) and two sets of sizes to lay them out in."""
    rank = draw(st.integers(1, 4))
    layouts = []
    for _ in range(3):
        kept = tuple(draw(st.booleans()) or draw(st.booleans()) for _ in range(rank))
        order = tuple(draw(st.permutations(range(rank))))
        steps = tuple(draw(st.sampled_from([1, 1, 1, 2])) for _ in range(rank))
        extra = tuple(draw(st.sampled_from([0, 0, 0, 1])) for _ in range(rank))
        layouts.append((kept, order, steps, extra))
    sizes = st.lists(st.integers(2, 9), min_size=rank, max_size=rank).map(tuple)
    return layouts, draw(sizes), draw(sizes)


def _laid_out(values, layout, sizes):
    """A tensor of `sizes` (1 where the layout broadcasts) in memory as the layout says."""
    kept, order, steps, extra = layout
    shape = [n if keep else 1 for n, keep in zip(sizes, kept)]
    stored = [shape[d] * steps[d] + extra[d] for d in order]  # the buffer, its dims in memory order
    buffer = values(tuple(stored)).permute(*[order.index(d) for d in range(len(order))])
    return buffer[tuple(slice(0, n * step, step) for n, step in zip(shape, steps))]


@given(_one_layout_two_sizes())
def test_any_layout_of_another_size_plans_as_the_full_planner_does(device, drawn):
    """Differential: after one call, a call of the same layouts at other sizes gives a fresh
    function's results bit for bit and torch's; where it is of the first call's class, its
    class's plan and specialization are the full planner's (_check_affine_class_call)."""
    layouts, first, second = drawn
    fn, values = _affine_and_values(torch.float32, device, 29)
    learned = tuple(_laid_out(values, layout, first) for layout in layouts)
    fn(*learned)
    args = tuple(_laid_out(values, layout, second) for layout in layouts)
    key, learned_key = fn._class_key(args), fn._class_key(learned)
    if key is not None and learned_key is not None and key[0] == learned_key[0]:
        _check_affine_class_call(fn, args, torch.float32)
    else:
        got = fn(*args)
        _bitwise_equal(got, pointwise(fn.scalar_function)(*args))
        assert torch.equal(got, args[0] * args[1] + args[2])


@given(_one_layout_two_sizes(), st.data())
def test_any_out_layout_of_another_size_plans_as_the_full_planner_does(device, drawn, data):
    """Differential, with out=: after one call into an out= tensor of any layout (its dims in any
    order in memory, with steps and gaps), or in place into the first argument where it keeps every
    dim, a call of the same layouts at other sizes writes a fresh function's results bit for bit and
    torch's; where it is of the first call's class, its class's plan and specialization are the
    full planner's (_check_out_class_call)."""
    layouts, first, second = drawn
    rank = len(first)
    kept = tuple(any(layout[0][d] for layout in layouts) for d in range(rank))  # the broadcast shape's dims
    out_layout = (kept, tuple(data.draw(st.permutations(range(rank)))),
                  tuple(data.draw(st.sampled_from([1, 1, 2])) for _ in range(rank)),
                  tuple(data.draw(st.sampled_from([0, 0, 1])) for _ in range(rank)))
    in_place = layouts[0][0] == kept and data.draw(st.booleans())
    fn, values = _affine_and_values(torch.float32, device, 31)

    def arguments(sizes):
        args = tuple(_laid_out(values, layout, sizes) for layout in layouts)
        return args, args[0] if in_place else _laid_out(values, out_layout, sizes)

    learned, learned_out = arguments(first)
    learned_key = fn._out_class_key(learned, [learned_out])
    fn(*learned, out=learned_out)
    args, out = arguments(second)
    key = fn._out_class_key(args, [out])
    if key is not None and learned_key is not None and key[0] == learned_key[0]:
        _check_out_class_call(fn, args, out, torch.float32)
    else:
        expected, want = pointwise(fn.scalar_function)(*args), args[0] * args[1] + args[2]
        assert fn(*args, out=out) is out
        _bitwise_equal(out, expected)
        assert torch.equal(out, want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("layout", ["rows", "bias", "transposed", "column"])
def test_a_0d_tensor_among_the_arguments_takes_its_class_too(layout, dtype, device):
    """A 0-d tensor (torch.where's wrapped number, a learning rate kept as a tensor) beside tensors
    of any layout is broadcast along every dim of the walk: after one call, calls of other sizes
    take their class's template (_check_affine_class_call), in either place among the arguments.
    Its class is not that of a tensor of size-1 dims, which takes strides where a 0-d tensor
    (loaded once, on the GPU) takes none."""
    fn, values = _affine_and_values(dtype, device, 31)
    shift = torch.tensor(0.25, device=device).to(dtype)

    def arguments(n):
        x = values((16, n)).t() if layout == "transposed" else values((n, 16))
        scale = values((16,)) if layout == "bias" else values((n, 1)) if layout == "column" else values((n, 16))
        return x, scale

    x, scale = arguments(8)
    fn(x, scale, shift)
    fn(shift, x, scale)
    for n in (24, 40, 57, 3):
        x, scale = arguments(n)
        for args in ((x, scale, shift), (shift, x, scale)):
            _check_affine_class_call(fn, args, dtype)
    ones = shift.reshape(1, 1)
    assert fn._class_key((x, scale, ones))[0] != fn._class_key((x, scale, shift))[0]
    fn(x, scale, ones)
    _check_affine_class_call(fn, (*arguments(33), ones), dtype)


# -- the class of a call by its structure (class_walks.py) -------------------------------------


@pointwise
def scale_and_add(a, b, c):
    return a * b + c


DENSE_FUNCTIONS = {1: sincos, 2: add, 3: scale_and_add}


def _dense_tensor(shape, order, device):
    """A dense tensor of `shape` whose dims lie in memory in `order` (outermost first)."""
    inverse = sorted(range(len(order)), key=order.__getitem__)
    return torch.randn([shape[d] for d in order], device=device).permute(inverse)


@st.composite
def dense_structures(draw):
    """Two calls of one dense structure: (arity, each tensor's (dim count, size-1 dims, order of
    dims), and two shapes of two or more elements a dim)."""
    rank = draw(st.integers(1, 4))
    shapes = [draw(st.lists(st.integers(2, 6), min_size=rank, max_size=rank)) for _ in range(2)]
    tensors = []
    for _ in range(draw(st.integers(1, 3))):
        count = draw(st.integers(0, rank))
        ones = draw(st.lists(st.booleans(), min_size=count, max_size=count))
        tensors.append((count, ones, draw(st.permutations(range(count)))))
    # the broadcast shape holds no size 1: some tensor is not broadcast along each dim
    full = draw(st.integers(0, len(tensors) - 1))
    tensors[full] = (rank, [False] * rank, tensors[full][2] if tensors[full][0] == rank else list(range(rank)))
    return tensors, shapes


def _dense_call(tensors, shape, device):
    rank = len(shape)
    return tuple(_dense_tensor([1 if one else shape[rank - count + i] for i, one in enumerate(ones)], order, device)
                 for count, ones, order in tensors)


def _walk_of(fn):
    """The ClassWalks `fn` keeps (those of structures called twice or more)."""
    return [walk for walk in fn._class_walks.values() if type(walk) is ClassWalk]


def _check_structure_walk(fn, first, second):
    """Two calls of `first` (a structure's walk is kept from its second), then `second` of the
    same structure: its class key and walk are the planner's (_broadcast_key's or _layout_key's),
    and the first's walk kept where it is a broadcast or layout walk (of a shape without 1s)."""
    fn._class_walks.clear()
    learned = fn._class_key(first)
    assert fn._class_key(first) == learned
    shortcut = fn._class_key(second)
    kept = _walk_of(fn)
    fn._class_walks.clear()
    assert shortcut == fn._class_key(second)
    return learned, kept


@given(structure=dense_structures())
def test_a_dense_structures_walk_is_the_planners_at_every_shape(structure):
    """After calls of dense tensors (permuted row-major ones, broadcast or not, size-1 dims among
    them), a call of the same structure at other sizes takes its class key and walk from their
    ClassWalk: exactly the planner's."""
    tensors, (first_shape, second_shape) = structure
    fn = DENSE_FUNCTIONS[len(tensors)]
    learned, kept = _check_structure_walk(fn, _dense_call(tensors, first_shape, "cpu"),
                                          _dense_call(tensors, second_shape, "cpu"))
    if learned is not None and learned[3][0] in ("broadcast", "layout"):
        assert kept, "a broadcast or layout walk of dense tensors keeps its ClassWalk"


@st.composite
def leading_structures(draw):
    """Two calls of one structure of strided tensors that differ in their leading size only: each
    tensor a view of a row-major base with a step and a gap along each dim (slices with gaps,
    column slices), of the call's rank or fewer dims, size-1 dims among them."""
    rank = draw(st.integers(1, 3))
    rest = draw(st.lists(st.integers(2, 5), min_size=rank - 1, max_size=rank - 1))
    leading = draw(st.lists(st.integers(2, 7), min_size=2, max_size=2))
    tensors = []
    for _ in range(draw(st.integers(1, 3))):
        count = draw(st.integers(0, rank))
        ones = draw(st.lists(st.booleans(), min_size=count, max_size=count))
        steps = draw(st.lists(st.integers(1, 3), min_size=count, max_size=count))
        gaps = draw(st.lists(st.integers(0, 2), min_size=count, max_size=count))
        tensors.append((count, ones, steps, gaps, draw(st.booleans())))
    full = draw(st.integers(0, len(tensors) - 1))
    count, _, steps, gaps, inner = tensors[full]
    if count < rank:
        steps, gaps = [1] * rank, [0] * rank
    tensors[full] = (rank, [False] * rank, steps, gaps, inner)
    return tensors, [[n, *rest] for n in leading]


def _strided_call(tensors, shape):
    """The views of a leading_structures call of this shape. A tensor marked `inner` takes its
    leading dim innermost, from a base of 7 along it whatever the size (its strides the same at
    every leading size, as those of the first rows of a transposed tensor, where the leading size
    could meet other sizes in the planner's steps)."""
    rank, views = len(shape), []
    for count, ones, steps, gaps, inner in tensors:
        own = [1 if one else shape[rank - count + i] for i, one in enumerate(ones)]
        if inner and count == rank and own[0] > 1:
            base = torch.randn([*own[1:], 7]).movedim(-1, 0)
            views.append(base[:own[0]])
            continue
        base = torch.randn([n * step + gap for n, step, gap in zip(own, steps, gaps)])
        views.append(base[tuple(slice(0, n * step, step) for n, step in zip(own, steps))])
    return tuple(views)


@given(structure=leading_structures())
def test_a_leading_structures_walk_is_the_planners_at_every_leading_size(structure):
    """After calls of strided tensors (slices with steps and gaps, broadcast or not), a call of the
    same structure but for its leading size takes its class key and walk from their ClassWalk:
    exactly the planner's."""
    tensors, (first_shape, second_shape) = structure
    fn = DENSE_FUNCTIONS[len(tensors)]
    _check_structure_walk(fn, _strided_call(tensors, first_shape), _strided_call(tensors, second_shape))


@st.composite
def out_structures(draw):
    """Two calls with out= of one structure, all of one shape: dense tensors (permuted row-major)
    at two shapes, or strided views (steps, gaps; leading_structures') at two leading sizes, the
    outputs fresh views of either kind or in place (an input)."""
    rank = draw(st.integers(1, 3))
    dense = draw(st.booleans())
    rest = draw(st.lists(st.integers(2, 5), min_size=rank - 1, max_size=rank - 1))
    if dense:
        shapes = [draw(st.lists(st.integers(2, 5), min_size=rank, max_size=rank)) for _ in range(2)]
    else:
        shapes = [[n, *rest] for n in draw(st.lists(st.integers(2, 7), min_size=2, max_size=2))]

    def layout():
        if dense:
            return draw(st.permutations(range(rank)))
        return (rank, [False] * rank, draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank)),
                draw(st.lists(st.integers(0, 2), min_size=rank, max_size=rank)), draw(st.booleans()))

    arity = draw(st.integers(1, 3))
    inputs = [layout() for _ in range(arity)]
    outputs = [draw(st.integers(0, arity - 1)) if draw(st.booleans()) else layout()
               for _ in range(DENSE_FUNCTIONS[arity].num_outputs)]
    return dense, inputs, outputs, shapes


def _out_call(dense, inputs, outputs, shape):
    """The arguments and out= tensors of an out_structures call of this shape (an output given as an
    input's position writes that input in place; at most one output so)."""
    make = (lambda spec: _dense_tensor(shape, spec, "cpu")) if dense else (lambda spec: _strided_call([spec], shape)[0])
    args = tuple(make(spec) for spec in inputs)
    written, used = [], set()
    for spec in outputs:
        if type(spec) is int and spec not in used:
            used.add(spec)
            written.append(args[spec])
        else:
            written.append(make(spec if type(spec) is not int else inputs[spec]))
    return args, written


@given(structure=out_structures())
def test_a_structures_walk_with_out_is_the_planners_at_every_shape(structure):
    """After calls with out= of one structure (dense tensors, or strided ones at another leading
    size; outputs laid out as the planner allocates them or not, in place or fresh), a call of the
    same structure at another size takes its class key and walk from their ClassWalk: exactly the
    planner's (_out_class_key's)."""
    dense, inputs, outputs, (first_shape, second_shape) = structure
    fn = DENSE_FUNCTIONS[len(inputs)]
    first, second = _out_call(dense, inputs, outputs, first_shape), _out_call(dense, inputs, outputs, second_shape)
    fn._class_walks.clear()
    learned = fn._out_class_key(*first)
    assert fn._out_class_key(*first) == learned
    shortcut = fn._out_class_key(*second)
    fn._class_walks.clear()
    assert shortcut == fn._out_class_key(*second)


@pytest.mark.parametrize("case", ["bias", "transposed", "rotary table", "permuted", "column", "column slice",
                                  "strided slice", "split columns"])
def test_new_shapes_of_a_structure_take_its_walk_without_the_planners_steps(case, device, monkeypatch):
    """A new batch beside a bias, a new transposed batch, a rotary table (s, 1, d) beside (s, h, d),
    rank-4 permuted tensors, a per-row column, and slices of rows of a new count (a column slice,
    a strided slice, two column blocks of one tensor): after two calls, calls of new sizes make
    neither _broadcast_key's nor _layout_key's walk, and give torch's results."""
    def arguments(n):
        return {"bias": lambda: (torch.randn(n, 24, device=device), torch.randn(24, device=device)),
                "transposed": lambda: (torch.randn(24, n, device=device).t(), torch.randn(n, 24, device=device)),
                "rotary table": lambda: (torch.randn(n, 4, 8, device=device), torch.randn(n, 1, 8, device=device)),
                "permuted": lambda: (torch.randn(n, 3, 5, 7, device=device).permute(2, 0, 3, 1),
                                     torch.randn(5, n, 7, 3, device=device)),
                "column": lambda: (torch.randn(n, 24, device=device), torch.randn(n, 1, device=device)),
                "column slice": lambda: (torch.randn(n, 40, device=device)[:, :24], torch.randn(n, 24, device=device)),
                "strided slice": lambda: (torch.randn(n, 48, device=device)[:, ::2], torch.randn(n, 24, device=device)),
                "split columns": lambda: torch.randn(n, 72, device=device)[:, 24:].split(24, dim=1)}[case]()
    fn = pointwise(add.scalar_function)
    fn(*arguments(9))
    fn(*arguments(10))
    assert len(_walk_of(fn)) == 1
    for name in ("_broadcast_key", "_layout_key"):
        monkeypatch.setattr(fn, name, lambda *args, name=name: pytest.fail(f"{name} ran"))
    for n in (5, 17, 40):
        a, b = arguments(n)
        torch.testing.assert_close(fn(a, b), a + b)


def test_structures_whose_strides_follow_the_size_or_with_a_size_1_result_keep_the_planners_walk(device):
    """Slices of a transposed batch of a new size (their strides change with the size: each call
    another structure) and calls whose broadcast shape holds a size-1 dim (where the outputs'
    layout follows the size-1 dims' strides) keep no ClassWalk."""
    fn = pointwise(add.scalar_function)
    for n in (9, 10, 11):
        x = torch.randn(16, n, device=device).t()
        fn(x[:, ::2], x[:, 1::2])
    for _ in range(3):
        fn(torch.randn(1, 8, 5, device=device).transpose(1, 2), torch.randn(5, 8, device=device))
    assert not _walk_of(fn)


# -- 0-d tensors in CPU memory are passed by value ---------------------------------------------

@pointwise
def scale_and_shift(x, s):
    return x * s + s


@pointwise
def shift_and_scale(s, x):
    return (x + s) * s


BY_VALUE_VALUES = {  # per dtype of the 0-d tensor: edge values (subnormals, extremes, signed zeros, NaN)
    torch.float32: [1.5, -0.0, 1e-45, -3.4e38, math.inf, math.nan, -math.nan],
    torch.float64: [0.1, 1e300, -5e-324, math.nan],
    torch.float16: [-2.5, 65504.0, 6e-8, -0.0],
    torch.bfloat16: [3.0e38, 1e-40, -7.5],
    torch.int64: [7, 2**63 - 1, -2**63],
    torch.int32: [-3, 2**31 - 1],
    torch.int16: [-32768, 300],
    torch.int8: [-128, 5],
    torch.uint8: [255, 0],
    torch.bool: [True, False],
}


def _loaded_from_memory(fn, args, device, monkeypatch):
    """fn's results on `args` with each 0-d tensor in CPU memory loaded through a pointer, as before
    it was passed by value (moved to the GPU; on the CPU, read where it lies): the reference."""
    moved = [a.to(device) if isinstance(a, torch.Tensor) else a for a in args]
    with monkeypatch.context() as patch:
        patch.setattr(decorator, "_by_value", lambda tensor: False)
        fresh = pointwise(fn.scalar_function)
        plan, spec = fresh.plan(moved, {}, None, positional=True)
        assert not any(p.by_value for p in spec.params)
        return fresh._launch_planned(plan, spec)[1][0]


@pytest.mark.parametrize("dtype", list(BY_VALUE_VALUES), ids=lambda d: str(d)[6:])
def test_a_0d_cpu_tensor_is_passed_by_value(dtype, device, monkeypatch):
    """A 0-d tensor in CPU memory (a scale kept as a tensor; beside GPU tensors, what torch allows)
    reaches the kernel as its value, a number, exactly, in either place: no pointer, no copy. The
    results are those of loading it, bit for bit, and torch's; every later value of the same
    signature takes the same recipe, so no value is kept with it."""
    x = torch.linspace(-3, 3, 12, device=device).reshape(3, 4)
    if not dtype.is_floating_point:
        x = (x * 5).to(torch.int32)
    for fn in (scale_and_shift, shift_and_scale):
        recipes = None
        for value in BY_VALUE_VALUES[dtype]:
            s = torch.tensor(value, dtype=dtype)
            args = (x, s) if fn is scale_and_shift else (s, x)
            spec = _spec(fn, *args)
            by_value = [p.name for p in spec.params if p.by_value]
            assert by_value == ["s"] and [p.name for p in spec.params if p.is_pointer] == ["x"]
            for _ in range(3):  # planned, the recipe, its steady path
                got = fn(*args)
                _bitwise_equal(got, _loaded_from_memory(fn, args, device, monkeypatch))
                want = x * s + s if fn is scale_and_shift else (x + s) * s
                assert got.dtype == want.dtype
                torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)
            if recipes is None:
                recipes = len(fn._recipes)
            assert len(fn._recipes) == recipes, "a new value of the 0-d tensor takes the same recipe"
        source = fn.source(*args)
        assert "s_ptr" not in source and "s: 0-d tensor in CPU memory, passed by value" in source
        assert f"s_arg: {triton_dtype(by_value_dtype(dtype))}" in source
        assert f"s   {str(dtype)[6:]} 0-d tensor in CPU memory, passed by value" in fn.explain(*args)


def test_a_0d_cpu_tensor_beside_out_and_in_place(device):
    """With out= (into a given tensor, and in place into the other argument) a 0-d tensor in CPU
    memory is passed by value too, and the calls after the first keep one recipe with a new value
    each time."""
    x = torch.linspace(-2, 2, 20, device=device).reshape(4, 5)
    ours, theirs, out = x.clone(), x.clone(), torch.empty_like(x)
    recipes = None
    for k in range(4):
        s = torch.tensor(0.5 + k)
        scale_and_shift(x, s, out=out)
        assert torch.equal(out, x * s + s)
        scale_and_shift(ours, s, out=ours)
        theirs = theirs * s + s
        assert torch.equal(ours, theirs), k
        recipes = recipes or len(scale_and_shift._out_recipes)
        assert len(scale_and_shift._out_recipes) == recipes, "one recipe (its write guard allows in place)"


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=lambda d: str(d)[6:])
def test_a_0d_cpu_tensor_takes_its_class_beside_any_layout(dtype, device):
    """After one call, calls of other sizes with a 0-d tensor in CPU memory among the arguments take
    their class's template (_check_affine_class_call), its part the tensor's dtype: a new value,
    and another dtype of it, keep the plan's walk; a 0-d tensor in the GPU's memory is another class."""
    fn, values = _affine_and_values(dtype, device, 37)
    for layout in ("rows", "transposed", "column"):
        def arguments(n):
            x = values((16, n)).t() if layout == "transposed" else values((n, 16))
            return x, values((n, 1)) if layout == "column" else values((n, 16))

        fn(*arguments(8), torch.tensor(0.5).to(dtype))
        for n in (24, 3, 57):
            args = (*arguments(n), torch.tensor(n / 8).to(dtype))
            _check_affine_class_call(fn, args, dtype)
            assert fn._class_key(args)[0][0][2] == dtype
    if device == "cuda":
        x, scale = values((8, 16)), values((8, 16))
        assert fn._class_key((x, scale, torch.tensor(0.5).to(dtype)))[0] != \
            fn._class_key((x, scale, torch.tensor(0.5, device=device).to(dtype)))[0]


def test_calls_that_are_not_dense_or_of_another_class_take_the_full_planner(device):
    """A broadcast, a transposed tensor, tensors on 0 or 1 elements, and another class (dtype, a
    number's type, alignment) have no template: _class_plan says None and the planner runs."""
    fn, _, _ = _dense_functions()["add_scaled"]
    x = torch.randn(8, 16, device=device)
    fn(x, x, 0.5)
    assert _class_plan(fn, (x, x, 2.0)) is not None
    assert _class_plan(fn, (x, x[0], 2.0)) is None  # broadcast
    assert _class_plan(fn, (x, torch.randn(16, 8, device=device).t(), 2.0)) is None  # transposed
    assert _class_plan(fn, (x[:, ::2].contiguous(), x[:, ::2], 2.0)) is None  # strided
    one = torch.randn(1, device=device)
    assert _class_plan(fn, (one, one, 2.0)) is None
    assert _class_plan(fn, (x.double(), x.double(), 2.0)) is None  # no float64 template yet
    assert _class_plan(fn, (x, x, 2)) is None  # an int where a float was: another class
    unaligned = torch.randn(8 * 16 + 1, device=device)[1:].view(8, 16)
    assert _class_plan(fn, (unaligned, x, 2.0)) is None
