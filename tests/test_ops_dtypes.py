"""dtype parity with aten: over every dtype (all tensor arguments alike) and every dtype pair of
the two-tensor ops, tritonize gives torch's result dtype and values (exact for integer and bool
results), or raises torch's error type; Python numbers and 0-d tensors promote weakly."""
from __future__ import annotations

import itertools

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from test_ops_cases import ALL_DTYPES, CASES, TOLERANCE, T, make_tensor, seed


# torch's CUDA hardsigmoid/hardswish multiply float64 by a float32-rounded 1/6 (3e-8 off)
TORCH_CUDA_FLOAT32_SIXTH = {"hardsigmoid", "hardswish"}


def outcome(fn, args, kwargs):
    try:
        return fn(*args, **kwargs), None
    except Exception as error:  # noqa: BLE001 - torch's error is the expectation
        return None, error


def check_parity(case, args, label=""):
    expected, error = outcome(case.theirs, args, case.kwargs)
    if isinstance(error, TypeError) or any(words in str(error) for words in (
            "failed to match any schema", "Expected a value of type 'Tensor'")):  # the latter: one overload
        return  # torch's Python binding refuses the argument types (a number for a Tensor): no aten semantics
    got, ours_error = outcome(case.ours, args, case.kwargs)
    if error is not None:
        assert ours_error is not None, f"{label}: torch raises {type(error).__name__}: {error}; tritonize returns"
        assert isinstance(ours_error, type(error)), (
            f"{label}: torch raises {type(error).__name__}: {error}\n"
            f"tritonize raises {type(ours_error).__name__}: {ours_error}")
        return
    if ours_error is not None:
        raise AssertionError(f"{label}: torch gives {expected.dtype}, tritonize raises "
                             f"{type(ours_error).__name__}: {ours_error}") from ours_error
    assert got.dtype == expected.dtype, f"{label}: dtype {got.dtype}, torch gives {expected.dtype}"
    assert got.shape == expected.shape, f"{label}: shape {tuple(got.shape)}, torch gives {tuple(expected.shape)}"
    if got.is_floating_point() and not case.exact:
        rtol, atol = TOLERANCE[got.dtype]
        torch.testing.assert_close(got, expected, rtol=2 * rtol, atol=2 * atol, equal_nan=True,
                                   msg=lambda m: f"{label}: {m}")
    else:
        same = (got == expected) | (got.isnan() & expected.isnan() if got.is_floating_point() else False)
        assert bool(same.all()), f"{label}:\nours  {got[~same][:8]}\ntorch {expected[~same][:8]}"


def with_dtypes(case, dtypes, device, shape=(2, 5), generator=None):
    """The case's arguments with its tensors in these dtypes (one per tensor argument)."""
    generator = generator or torch.Generator().manual_seed(seed(case.id))
    dtypes = iter(dtypes)
    return [make_tensor(a, next(dtypes), shape, generator, device) if isinstance(a, T) else a for a in case.args]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES if c.parity])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: str(d)[6:])
def test_every_dtype_matches_torch(case, dtype, device):
    """All tensor arguments in one dtype: results, result dtypes and errors as torch's."""
    if any(a.kind in ("bool", "index") for a in case.args if isinstance(a, T)) and case.tensor_count == 1:
        pytest.skip("the only tensor has a fixed dtype")  # never reached: such cases have 2+ tensors
    dtypes = [torch.bool if a.kind == "bool" else torch.int32 if a.kind == "index" else dtype
              for a in case.args if isinstance(a, T)]
    if device == "cuda" and dtype == torch.float64 and case.id in TORCH_CUDA_FLOAT32_SIXTH:
        args = with_dtypes(case, dtypes, device)
        got = case.ours(*args, **case.kwargs)
        # torch's CPU kernel computes these exactly in float64: hold tritonize to that
        expected = case.theirs(*[a.cpu() if isinstance(a, torch.Tensor) else a for a in args], **case.kwargs)
        assert got.dtype == expected.dtype
        torch.testing.assert_close(got.cpu(), expected, rtol=2 * TOLERANCE[dtype][0], atol=2 * TOLERANCE[dtype][1])
        return
    check_parity(case, with_dtypes(case, dtypes, device), f"{case.id}({str(dtype)[6:]})")


BINARY = [pytest.param(c, id=c.id) for c in CASES if c.parity and c.tensor_count == 2
          and all(a.kind not in ("bool", "index") for a in c.args if isinstance(a, T))]


@pytest.mark.parametrize("case", BINARY)
def test_every_dtype_pair_gives_torchs_dtype_or_error(case, device):
    """All 100 ordered pairs, on empty tensors (no kernel runs): the result dtype or the error."""
    failures = []
    for a, b in itertools.product(ALL_DTYPES, repeat=2):
        args = with_dtypes(case, (a, b), device, shape=(0, 3))
        try:
            check_parity(case, args, f"{case.id}({str(a)[6:]}, {str(b)[6:]})")
        except AssertionError as error:
            failures.append(str(error))
    assert not failures, "\n".join(failures[:10]) + f"\n({len(failures)} pairs differ)"


MIXED = [(torch.bool, torch.int64), (torch.uint8, torch.int8), (torch.int16, torch.int32),
         (torch.int32, torch.float16), (torch.int64, torch.bfloat16), (torch.float16, torch.bfloat16),
         (torch.float16, torch.float32), (torch.bfloat16, torch.float64), (torch.bool, torch.float32),
         (torch.float64, torch.int8)]


@pytest.mark.parametrize("case", [c for c in BINARY if c.values[0].mixed])
def test_mixed_dtype_values_match_torch(case, device):
    for pair in MIXED:
        check_parity(case, with_dtypes(case, pair, device), f"{case.id}{tuple(str(d)[6:] for d in pair)}")


def _scalar_for(spec: T, kind: str):
    """A Python number (or the dtype of a 0-d tensor) from the argument's domain."""
    if kind == "bool":
        return True
    value = 1.5 if spec.kind == "nonzero" else spec.low + 0.3 * (spec.high - spec.low)
    return int(round(value)) or 1 if kind == "int" else value


# (dtype of the tensor, what replaces the other tensor argument)
WEAK = [(torch.float16, "int"), (torch.int32, "float"), (torch.bool, "int"), (torch.uint8, "bool"),
        (torch.uint8, torch.int64), (torch.float16, torch.float64), (torch.int8, torch.float32),
        (torch.bool, torch.int32)]


@pytest.mark.parametrize("case", BINARY)
def test_python_numbers_and_zero_dim_tensors_are_weak(case, device):
    generator = torch.Generator().manual_seed(seed(case.id))
    first, second = [a for a in case.args if isinstance(a, T)]
    for dtype, other in WEAK:
        if isinstance(other, torch.dtype):
            value = make_tensor(second, other, (), generator, device)
        else:
            value = _scalar_for(second, other)
        args = list(case.args)
        args[args.index(first)] = make_tensor(first, dtype, (2, 5), generator, device)
        args[args.index(second)] = value
        check_parity(case, args, f"{case.id}({str(dtype)[6:]}, {value!r})")


@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.one_of(
    st.tuples(st.sampled_from(ALL_DTYPES), st.booleans()),  # a tensor: its dtype, and whether 0-d
    st.sampled_from([True, 3, -2, 0.5, None])), min_size=1, max_size=4))
def test_result_dtype_is_torchs(values):
    """The op wrappers' result_dtype (its one-pass rule for tensors of one dtype first) is torch's
    promotion over tensors, 0-d tensors and Python numbers, None skipped."""
    from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes

    from tritonize.ops import _common as c
    made = [torch.zeros(() if zero_dim else (2,), dtype=value[0]) if isinstance(value, tuple) else value
            for value in values for zero_dim in [isinstance(value, tuple) and value[1]]]
    present = [v for v in made if v is not None]
    if not any(isinstance(v, torch.Tensor) for v in present):
        return  # numbers alone: torch promotes no tensor (the wrappers never ask)
    expected = elementwise_dtypes(*present, type_promotion_kind=ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT)[1]
    assert c.result_dtype(*made) == expected, (values, c.result_dtype(*made), expected)
