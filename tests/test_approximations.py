"""dsl/approximations.py: Triton's approximate exp and division stand in for the exact ones only
where a kernel run on every input it can see gives the exact kernel's results bit for bit.

On the CPU: what the lowering emits with and without approximations, which specializations can
be checked, the enumeration of inputs, bitwise equality and the choice among candidates. On a GPU:
the whole mechanism, against the exact kernel and eager on every 16-bit input."""
import ast
import dataclasses
import json
import logging
import math

import pytest
import torch
import torch.nn.functional as F

import tritonize
from tritonize import approximations, cache
from tritonize.passes import ParamSpec, Specialization, approximable, generate_module
from tritonize.passes.type_rules import PYTHON, TENSOR, ZERO_DIM, VType

GPU = torch.cuda.is_available()
needs_gpu = pytest.mark.skipif(not GPU, reason="approximations are compiled for CUDA only")


@tritonize.pointwise
def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


@tritonize.pointwise
def silu(x):
    return x / (1.0 + math.exp(-x))


@tritonize.pointwise
def exp(x):
    return math.exp(x)


@tritonize.pointwise(promotion=torch.float32)
def exp_to_float32(x):  # a float32 result shows tl.exp's error (up to 64 ulp) on many inputs
    return math.exp(x)


@tritonize.pointwise
def ratio(a, b):  # int8 / int8 is float32: two inputs, 65536 pairs
    return a / b


@tritonize.pointwise
def scaled(x, scale: float = 2.0):
    return math.exp(x) * scale


def spec_of(*dtypes, device_type="cuda", out=None, rank=1, priority=TENSOR, approximate=()):
    params = tuple(ParamSpec(f"p{k}", VType(d, priority)) for k, d in enumerate(dtypes))
    return Specialization(params=params, out_dtypes=(out or dtypes[0],), rank=rank, index_dtype=torch.int32,
                          device_type=device_type, approximate=approximate)


def bf16_spec(approximate=(), device_type="cuda"):
    return dataclasses.replace(spec_of(torch.bfloat16, device_type=device_type), params=(
        ParamSpec("x", VType(torch.bfloat16, TENSOR)),), approximate=approximate)


# -- the lowering -----------------------------------------------------------------------------


def called(source: str) -> set:
    """The functions a generated module calls, by name (the rendered text may wrap a call's name
    across lines)."""
    return {ast.unparse(node.func) for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)}


def divides(source: str) -> bool:
    """Does the generated module use Triton's `/` anywhere?"""
    return any(isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) for node in ast.walk(ast.parse(source)))


def test_exact_kernel_calls_libdevice_exp_and_correctly_rounded_division():
    source = generate_module(sigmoid._ctx, bf16_spec(), "test")
    assert {"libdevice.exp", "tl.math.div_rn"} <= called(source)
    assert "tl.exp" not in called(source) and "approximate" not in source


def test_approximate_kernel_calls_tl_exp_and_triton_division():
    source = generate_module(sigmoid._ctx, bf16_spec(("division", "exp")), "test")
    assert "tl.exp" in called(source) and divides(source)
    assert "libdevice" not in source and "div_rn" not in source
    assert "approximate division and exp, equal to the exact kernel on every input" in source


@pytest.mark.parametrize("kinds", [("division",), ("exp",)])
def test_each_approximation_alone_replaces_only_its_own_operation(kinds):
    source = generate_module(sigmoid._ctx, bf16_spec(kinds), "test")
    assert ("tl.math.div_rn" in called(source)) == (kinds == ("exp",)) == (not divides(source))
    assert ("libdevice.exp" in called(source)) == (kinds == ("division",)) == ("tl.exp" not in called(source))


def test_approximable_names_what_the_kernel_computes_in_float32_on_cuda():
    assert approximable(sigmoid._ctx, bf16_spec()) == ("division", "exp")
    assert approximable(exp._ctx, bf16_spec()) == ("exp",)
    assert approximable(ratio._ctx, dataclasses.replace(spec_of(torch.int8, torch.int8, out=torch.float32), params=(
        ParamSpec("a", VType(torch.int8, TENSOR)), ParamSpec("b", VType(torch.int8, TENSOR))))) == ("division",)
    # the interpreter has no faster variant; float64 work has no approximate exp, and its `/` is exact
    assert approximable(sigmoid._ctx, bf16_spec(device_type="cpu")) == ()
    float64 = dataclasses.replace(bf16_spec(), params=(ParamSpec("x", VType(torch.float64, TENSOR)),),
                                  out_dtypes=(torch.float64,))
    assert approximable(sigmoid._ctx, float64) == ()


def test_one_verdict_serves_every_rank_and_layout():
    """The check's specialization (its memo key and verdict file) keeps only the element math:
    a rank-2 call's tile, grid, masks, flat-indexed operands, dependent launch and approximations
    all map to the rank-1 exact one; dtypes, opmath, out= result dtypes and the libdevice linked
    still tell kernels apart."""
    plain = spec_of(torch.bfloat16, torch.bfloat16)
    laid_out = dataclasses.replace(
        plain, rank=2, index_dtype=torch.int64, tile=(0, 1, (True, False, True)), approximate=("exp",),
        evict_last=True, broadcast_dims=(("p1", (0,)),), unmasked=True, dependent_launch=True,
        flat_indexed=(True, False, True), two_dimensional_grid=True)
    assert approximations.exact_rank1(laid_out) == approximations.exact_rank1(plain) == plain
    for other in (spec_of(torch.bfloat16, torch.float16), dataclasses.replace(plain, opmath=False),
                  dataclasses.replace(plain, result_dtypes=(torch.float16,)),
                  dataclasses.replace(plain, toolkit_libdevice=True)):
        assert approximations.exact_rank1(other) != approximations.exact_rank1(plain)


def test_cpu_calls_never_approximate():
    x = torch.randn(64, dtype=torch.bfloat16)
    _, spec = sigmoid.plan((x,), {}, None)
    assert spec.approximate == () and not sigmoid._approximations


# -- which calls are checked ----------------------------------------------------------------------


@pytest.mark.parametrize("dtypes, expected", [
    ((torch.bfloat16,), True), ((torch.float16,), True), ((torch.int8, torch.uint8), True),
    ((torch.bool, torch.bfloat16), True), ((torch.int16,), True),
    ((torch.float8_e4m3fn, torch.float8_e5m2), True), ((torch.float8_e4m3fn, torch.bfloat16), False),
    ((torch.float32,), False), ((torch.int32,), False),
    ((torch.bfloat16, torch.bfloat16), False),  # 2^32 pairs
    ((torch.int8, torch.int8, torch.uint8), False),  # 2^24 triples
])
def test_checkable_when_every_input_can_be_enumerated(dtypes, expected):
    assert approximations.checkable(spec_of(*dtypes)) is expected
    assert approximations.checkable(spec_of(*dtypes, device_type="cpu")) is False


@pytest.mark.parametrize("priority", [PYTHON, ZERO_DIM])
def test_numbers_and_zero_dim_tensors_are_not_checkable(priority):
    spec = spec_of(torch.bfloat16)
    other = ParamSpec("s", VType(torch.float64 if priority == PYTHON else torch.bfloat16, priority))
    assert not approximations.checkable(dataclasses.replace(spec, params=spec.params + (other,)))


def test_environment_turns_approximation_off(monkeypatch):
    for value in ("0", "off", "False"):
        monkeypatch.setenv("TRITONIZE_APPROXIMATE", value)
        assert not approximations.checkable(spec_of(torch.bfloat16))
    monkeypatch.setenv("TRITONIZE_APPROXIMATE", "1")
    assert approximations.checkable(spec_of(torch.bfloat16))


# -- the enumeration and the comparison ---------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.int16])
def test_every_value_of_a_16_bit_dtype_once(dtype):
    values = approximations.every_value(dtype, "cpu")
    assert values.dtype == dtype and values.shape == (65536,)
    assert torch.unique(values.view(torch.int16)).numel() == 65536


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.bool])
def test_every_value_of_a_narrow_dtype_once(dtype):
    values = approximations.every_value(dtype, "cpu")
    count = 2 if dtype == torch.bool else 256
    assert values.dtype == dtype and torch.unique(values).numel() == values.numel() == count


@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e8m0fnu])
def test_every_value_of_an_8_bit_float_once(dtype):
    values = approximations.every_value(dtype, "cpu")
    assert values.dtype == dtype and torch.unique(values.view(torch.uint8)).numel() == values.numel() == 256


@pytest.mark.parametrize("dtypes", [(torch.int8, torch.uint8), (torch.bool, torch.int8), (torch.bool, torch.bool, torch.uint8)])
def test_every_input_holds_each_combination_once(dtypes):
    inputs = approximations.every_input(dtypes, "cpu")
    counts = [2 if d == torch.bool else 256 for d in dtypes]
    assert [t.dtype for t in inputs] == list(dtypes)
    assert all(t.shape == (math.prod(counts),) and t.is_contiguous() for t in inputs)
    combinations = set(zip(*[t.tolist() for t in inputs]))
    assert len(combinations) == math.prod(counts)
    assert {c[0] for c in combinations} == set(approximations.every_value(dtypes[0], "cpu").tolist())


def test_same_bits_tells_signed_zeros_and_nan_payloads_apart():
    zeros = torch.tensor([0.0, -0.0], dtype=torch.bfloat16)
    assert not approximations.same_bits(zeros, zeros.flip(0))
    assert torch.equal(zeros, zeros.flip(0))  # what torch.equal alone would miss
    nan = torch.tensor([0x7FC0, 0x7FC1], dtype=torch.int16).view(torch.bfloat16)
    assert approximations.same_bits(nan, nan.clone())
    assert not approximations.same_bits(nan, nan.flip(0))
    assert approximations.same_bits(torch.tensor([True, False]), torch.tensor([True, False]))
    assert not approximations.same_bits(torch.tensor([True, False]), torch.tensor([True, True]))
    assert not approximations.same_bits(zeros, zeros.float())


def test_candidates_try_everything_together_first():
    assert approximations.candidates(("exp", "division")) == [("division", "exp"), ("division",), ("exp",)]
    assert approximations.candidates(("exp",)) == [("exp",)]


def fake_runner(results, calls):
    def run(candidate):
        calls.append(candidate)
        found = results[candidate]
        if isinstance(found, Exception):
            raise found
        return [torch.tensor(found, dtype=torch.float16)]
    return run


@pytest.mark.parametrize("results, expected, tried", [
    ({(): [1.0, 2.0], ("division", "exp"): [1.0, 2.0]}, ("division", "exp"), 1),
    ({(): [1.0, 2.0], ("division", "exp"): [1.0, 2.5], ("division",): [1.5, 2.0], ("exp",): [1.0, 2.0]}, ("exp",), 3),
    ({(): [1.0, -0.0], ("division", "exp"): [1.0, 0.0], ("division",): [1.0, 0.0], ("exp",): [1.0, 0.0]}, (), 3),
])
def test_choose_keeps_the_first_candidate_equal_bit_for_bit(results, expected, tried):
    calls = []
    assert approximations.choose(("division", "exp"), fake_runner(results, calls)) == expected
    assert calls == [(), *approximations.candidates(("division", "exp"))[:tried]]


def test_a_candidate_that_fails_to_build_is_skipped_with_a_warning(caplog):
    results = {(): [1.0], ("division", "exp"): RuntimeError("no such instruction"), ("division",): [1.0]}
    with caplog.at_level(logging.WARNING, logger="tritonize"):
        assert approximations.choose(("division", "exp"), fake_runner(results, [])) == ("division",)
    assert "division and exp variant failed (RuntimeError: no such instruction)" in caplog.text


def test_a_damaged_verdict_is_checked_again(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITONIZE_CACHE_DIR", str(tmp_path))
    assert approximations.read_verdict("v.json") is None
    for text in ("{", '{"approximate": 3}', '{"other": []}', '{"approximate": [1]}'):
        cache.write_note("v.json", text)
        assert approximations.read_verdict("v.json") is None
    cache.write_note("v.json", json.dumps({"approximate": ["division", "exp"]}))
    assert approximations.read_verdict("v.json") == ("division", "exp")


# -- on the GPU: the whole mechanism ---------------------------------------------------------------------


def exact_outputs(function, inputs, out_dtypes):
    return function.run_on(inputs, out_dtypes, ())


@needs_gpu
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("function, eager", [(sigmoid, torch.sigmoid), (silu, F.silu), (exp, torch.exp)])
def test_every_16_bit_input_gives_the_exact_kernels_and_eagers_bits(function, eager, dtype):
    x = approximations.every_value(dtype, "cuda")
    result = function(x)
    assert approximations.same_bits(result, exact_outputs(function, [x], (dtype,))[0])
    assert approximations.same_bits(result, eager(x))
    # a transposed view runs another (rank-2, tiled) kernel with the same approximations
    grid = x.view(256, 256).t()
    assert approximations.same_bits(function(grid), eager(grid))
    _, spec = function.plan((grid,), {}, None)
    assert spec.approximate == function.plan((x,), {}, None)[1].approximate


@needs_gpu
def test_bfloat16_sigmoid_and_silu_run_both_approximations():
    # measured: neither approximation changes a bfloat16 sigmoid or silu (experiment_exhaustive16)
    x = torch.randn(1000, device="cuda", dtype=torch.bfloat16)
    for function in (sigmoid, silu):
        function(x)
        assert function.plan((x,), {}, None)[1].approximate == ("division", "exp")
        source = function.source(x)
        assert "tl.exp(" in source and "div_rn" not in source and "approximate division and exp" in source
        assert "_approx_" in function.source_path(x).name


@needs_gpu
def test_an_approximation_that_changes_a_result_is_refused():
    x = approximations.every_value(torch.bfloat16, "cuda")
    result = exp_to_float32(x)
    assert result.dtype == torch.float32
    assert exp_to_float32.plan((x,), {}, None)[1].approximate == ()
    assert "libdevice.exp(" in exp_to_float32.source(x)
    # what the check saw: tl.exp's float32 results differ
    fast = exp_to_float32.run_on([x], (torch.float32,), ("exp",))[0]
    assert not approximations.same_bits(fast, result)
    assert approximations.same_bits(result, torch.exp(x.float()))


@needs_gpu
def test_two_narrow_inputs_are_checked_on_every_pair():
    a, b = approximations.every_input((torch.int8, torch.int8), "cuda")
    result = ratio(a, b)
    assert approximations.same_bits(result, exact_outputs(ratio, [a, b], (torch.float32,))[0])
    assert approximations.same_bits(result, torch.true_divide(a, b))


@needs_gpu
def test_numbers_keep_the_exact_kernel():
    x = torch.randn(100, device="cuda", dtype=torch.bfloat16)
    assert scaled.plan((x, 3.0), {}, None)[1].approximate == ()
    assert "libdevice.exp(" in scaled.source(x, 3.0)


@needs_gpu
def test_the_verdict_is_read_from_disk_by_a_later_function(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITONIZE_CACHE_DIR", str(tmp_path))
    x = torch.randn(100, device="cuda", dtype=torch.bfloat16)
    first = tritonize.pointwise(sigmoid.scalar_function)
    first(x)
    again = tritonize.pointwise(sigmoid.scalar_function)  # a new function object: an empty memo

    def no_check(*args, **kwargs):
        raise AssertionError("the verdict should have come from the cache directory")
    monkeypatch.setattr(type(again), "run_on", no_check)
    assert again.plan((x,), {}, None)[1].approximate == ("division", "exp")
    names = [p.name for p in cache.cache_dir().glob("sigmoid_rank1_bf16_*.approximations.*.json")]
    assert names and json.loads(cache.read_note(names[0]))["approximate"] == ["division", "exp"]


@needs_gpu
def test_nothing_is_checked_while_a_graph_is_captured(monkeypatch, tmp_path):
    monkeypatch.setenv("TRITONIZE_CACHE_DIR", str(tmp_path))  # no verdict from an earlier run
    @tritonize.pointwise
    def fresh(x):
        return x / (2.0 + math.exp(x))
    x = torch.randn(100, device="cuda", dtype=torch.float16)
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: True)
    assert fresh.plan((x,), {}, None)[1].approximate == ()
    assert not fresh._approximations  # not remembered: a later call checks
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    fresh.plan((x,), {}, None)
    assert len(fresh._approximations) == 1


@tritonize.pointwise
def logistic_pair(x):  # two outputs, each checked
    e = math.exp(-x)
    return 1.0 / (1.0 + e), e / (1.0 + e)


@needs_gpu
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_several_outputs_are_each_equal_to_the_exact_kernels(dtype):
    x = approximations.every_value(dtype, "cuda")
    first, second = logistic_pair(x)
    exact = logistic_pair.run_on([x], (dtype, dtype), ())
    assert approximations.same_bits(first, exact[0]) and approximations.same_bits(second, exact[1])


@needs_gpu
def test_an_out_of_another_dtype_is_checked_with_that_dtype():
    # a float32 out= holds the bfloat16 results, cast: the check compares those
    x = approximations.every_value(torch.bfloat16, "cuda")
    out = torch.empty(x.shape, device="cuda", dtype=torch.float32)
    sigmoid(x, out=out)
    _, spec = sigmoid.plan((x,), {}, out)
    assert spec.result_dtypes == (torch.bfloat16,) and spec.out_dtypes == (torch.float32,)
    assert approximations.same_bits(out, sigmoid.run_on([x], (torch.float32,), ())[0])
    assert approximations.same_bits(out, sigmoid(x).float())


def test_atan_gives_way_to_a_toolkits_libdevice_and_atan2_and_erf_keep_their_composites():
    """The atan, atan2 and erf composites take CUDA's own steps (eager's results bit for bit, and
    faster than Triton's build of libdevice's); a toolkit's atanf is faster still (rcp.approx where
    the composite divides), so with a toolkit atan calls it."""
    @tritonize.pointwise
    def angles(p0, p1):  # spec_of names the parameters
        return math.atan(p0) + math.atan2(p0, p1) + math.erf(p1)

    for dtype in (torch.float32, torch.bfloat16):
        spec = spec_of(dtype, dtype)
        for toolkit in (False, True):
            source = generate_module(angles._ctx, dataclasses.replace(spec, toolkit_libdevice=toolkit), "test")
            calls = called(source)
            for name in ("atan2", "erf"):
                assert f"libdevice.{name}" not in calls and f"f32_{name}" in calls, (name, calls)
            assert ("libdevice.atan" in calls) == toolkit and ("f32_atan" in calls) != toolkit
            assert ("a CUDA toolkit's libdevice" in source) == toolkit


def test_kernels_link_a_toolkits_libdevice_only_where_it_is_faster_for_them():
    """math_table.prefers_toolkit_libdevice: a call of a row the toolkit's libdevice runs faster
    (sinh, pow, `**` but by 2, 0.5, ...) and none it runs slower (acos, fmod, ...)."""
    from tritonize.passes.math_table import prefers_toolkit_libdevice

    def tree(source):
        return ast.parse(source)

    assert prefers_toolkit_libdevice(tree("math.sinh(x) + math.exp(x)"))
    assert prefers_toolkit_libdevice(tree("x ** y"))
    assert prefers_toolkit_libdevice(tree("x ** 2.5"))
    assert not prefers_toolkit_libdevice(tree("x ** 2 + x ** 0.5 + math.exp(x)"))
    assert not prefers_toolkit_libdevice(tree("math.sinh(x) + math.acos(x)"))
    assert not prefers_toolkit_libdevice(tree("math.fmod(x, y)"))
    # asin, acos, acosh: in kernels with a float32 tensor, for eager's results; erf's composite
    # gives them with any libdevice
    assert not prefers_toolkit_libdevice(tree("math.asin(x)"))
    assert prefers_toolkit_libdevice(tree("math.asin(x)"), float32_tensors=True)
    assert not prefers_toolkit_libdevice(tree("math.erf(x)"), float32_tensors=True)
    assert prefers_toolkit_libdevice(tree("math.sinh(x) + math.acos(x)"), float32_tensors=True)
    assert not prefers_toolkit_libdevice(tree("math.exp(x)"), float32_tensors=True)
