"""Registration into PyTorch: under `tritonize.enabled(devices=...)` torch's own functions
(torch.add, torch.nn.functional.gelu, Tensor.add_, out=) run tritonize kernels and give torch's
results; enable/disable/enabled restore the dispatcher, nest, and hand what tritonize does not
run (other dtypes, other devices) to the kernels they replaced. Also the in-place and out=
forms of the direct calls."""
from __future__ import annotations

import warnings
from unittest import mock

import pytest
import torch

import tritonize
import tritonize.ops as tops
from test_ops_cases import CASES, T, make_args, make_tensor, seed
from test_ops_accuracy import assert_matches
from tritonize.decorator import PointwiseFunction

F = torch.nn.functional


@pytest.fixture
def kernel_calls():
    """The names of the @pointwise kernels that run while the fixture is active."""
    calls = []
    original = PointwiseFunction.__call__

    def spy(self, *args, **kwargs):
        calls.append(self.__name__)
        return original(self, *args, **kwargs)

    with mock.patch.object(PointwiseFunction, "__call__", spy):
        yield calls


def _args(case, device, dtype=None):
    dtype = dtype or (torch.float32 if case.floats else torch.int32)
    return make_args(case, dtype, torch.Generator().manual_seed(seed(case.id) + 2), device)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES if c.aten])
def test_torch_functions_run_tritonize_kernels_when_enabled(case, device, kernel_calls):
    args = _args(case, device)
    call = case.api or case.theirs
    expected = call(*args, **case.kwargs)
    assert not kernel_calls
    with tritonize.enabled(devices=(device,)):
        got = call(*args, **case.kwargs)
    assert kernel_calls, f"torch's {case.fn} did not run a tritonize kernel"
    assert_matches(got, expected, exact=case.exact, scale=4.0)


INPLACE = [pytest.param(c, id=c.id) for c in CASES if c.inplace and hasattr(tops, c.fn + "_")]


@pytest.mark.parametrize("case", INPLACE)
def test_inplace_and_out_forms_match_the_functional_one(case, device):
    args = _args(case, device)
    expected = case.ours(*args, **case.kwargs)
    target = args[0].clone()
    returned = getattr(tops, case.fn + "_")(target, *args[1:], **case.kwargs)
    assert returned is target
    assert_matches(target, expected.to(target.dtype), exact=True)  # comparisons store 0/1 in a float self
    out = torch.empty_like(expected).t().contiguous().t()  # any strides will do
    returned = case.ours(*args, out=out, **case.kwargs)
    assert returned is out
    assert_matches(out, expected, exact=True)


def test_registered_inplace_and_out_through_torchs_api(device, kernel_calls):
    g = torch.Generator().manual_seed(7)
    a = torch.randn(4, 5, generator=g).to(device)
    b = torch.randn(4, 5, generator=g).to(device)
    mask = a > 0
    native = [a.clone().add_(b, alpha=2), torch.exp(a), a.clone().clamp_(min=0), torch.eq(a, b).float(),
              a.clone().masked_fill_(mask, 3.0), a.clone().fill_(2.5), torch.relu_(a.clone()),
              F.hardtanh(a.clone(), inplace=True), a.clone().copy_(b.half()), a.clone().sigmoid_(),
              torch.bitwise_and(mask, ~mask)]
    with tritonize.enabled(devices=(device,)):
        out_exp, out_eq = torch.empty_like(a), torch.empty_like(a)
        ours = [a.clone().add_(b, alpha=2), torch.exp(a, out=out_exp), a.clone().clamp_(min=0),
                torch.eq(a, b, out=out_eq), a.clone().masked_fill_(mask, 3.0), a.clone().fill_(2.5),
                torch.relu_(a.clone()), F.hardtanh(a.clone(), inplace=True), a.clone().copy_(b.half()),
                a.clone().sigmoid_(), torch.bitwise_and(mask, ~mask)]
    assert out_exp is ours[1] and out_eq is ours[3]
    for got, expected in zip(ours, native):
        assert_matches(got, expected, exact=True)
    assert {"add_alpha_fma_kernel", "exp_kernel", "clamp_min_kernel", "eq_kernel", "masked_fill_kernel", "fill_kernel",
            "relu_kernel", "hardtanh_kernel", "sigmoid_kernel", "bitwise_and_kernel"} <= set(kernel_calls)


def test_polygamma_in_place_orders_and_dtypes(device, kernel_calls):
    x = torch.linspace(0.2, 5.0, 12, device=device)
    target = x.clone()
    assert tops.polygamma_(target, 1) is target
    torch.testing.assert_close(target, torch.polygamma(1, x))
    ints = torch.arange(1, 6, device=device)
    assert tops.polygamma(1, ints).dtype == torch.float32  # integers give float32, as in torch
    torch.testing.assert_close(tops.polygamma(1, ints), torch.polygamma(1, ints))
    with pytest.raises(RuntimeError, match="can't be cast"):
        tops.polygamma_(ints.clone(), 1)
    with pytest.raises(RuntimeError, match="does not support negative n"):
        tops.polygamma(-1, x)
    with pytest.raises(RuntimeError, match="orders 0 .digamma. and 1 .trigamma., not 2"):
        tops.polygamma(2, x)
    kernel_calls.clear()
    with tritonize.enabled(devices=(device,)):
        second = torch.polygamma(2, x)
        assert not kernel_calls  # torch's own kernel, which tritonize's hands order 2 to
        first = x.clone().polygamma_(1)
        assert kernel_calls[-1] == "trigamma_kernel"  # after the clone's copy
    torch.testing.assert_close(second, torch.special.polygamma(2, x.double()).float())
    torch.testing.assert_close(first, torch.polygamma(1, x))


def test_float_power_in_place_needs_a_float64_self(device):
    x = torch.rand(5, dtype=torch.float64, device=device) + 0.5
    expected = torch.float_power(x, 1.5)
    assert_matches(tops.float_power_(x.clone(), 1.5), expected)
    with pytest.raises(RuntimeError, match="float_power_"):
        tops.float_power_(x.float(), 1.5)
    with pytest.raises(RuntimeError, match="float_power"):
        tops.float_power(x, 1.5, out=torch.empty(5, device=device))


BOOL_RESULTS = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "logical_not",
                "isnan", "isinf", "isposinf", "isneginf", "signbit"}
SCALARS = {"alpha": 2, "beta": 2.0, "threshold": 0.5, "lambd": 0.3, "negative_slope": 0.1, "min_val": 0.2,
           "max_val": 0.7, "scale": 1.0, "input_scale": 1.2, "is_result": False, "self_is_result": False,
           "dim": -1, "decimals": 1, "approximate": "tanh", "rounding_mode": "floor", "eps": 0.1,
           "dtype": torch.float16, "non_blocking": False, "min": 0.3, "max": 0.6, "weight": 0.3, "dims": [0, -1],
           "n": 1, "reduction": 1, "delta": 0.5, "beta": 0.5}


def _overload_call(overload, device, generator):
    """Arguments for one aten overload from its schema: small tensors in (0.1, 0.9) (integers
    for the bitwise ops), bool masks, empty out= tensors (torch resizes them), typical scalars."""
    name, _, variant = overload.partition(".")
    op = getattr(getattr(torch.ops.aten, name), variant or "default")
    integral = name.startswith(("bitwise", "__"))

    def tensor(shape=(3, 4)):
        if integral:
            return torch.randint(0, 7, shape, generator=generator, dtype=torch.int32).to(device)
        return (torch.rand(shape, generator=generator) * 0.8 + 0.1).to(device)

    args, kwargs = [], {}
    for argument in op._schema.arguments:
        kind, arg = str(argument.type), argument.name
        if argument.is_out:
            dtype = torch.bool if name in BOOL_RESULTS else torch.int32 if integral else torch.float32
            value = torch.empty(0, dtype=dtype, device=device)
        elif arg in ("mask", "condition"):
            value = tensor() > 0.5 if not integral else tensor() > 3
        elif "Tensor" in kind:
            value = torch.tensor(0.5, device=device) if arg == "value" else tensor()
            if arg == "max":
                value = value + 0.5
        elif arg in ("self", "other", "exponent", "value"):
            value = 3 if integral else 0.5 if arg != "self" else 2.0
        elif arg in SCALARS:
            value = SCALARS[arg]
        elif argument.has_default_value():
            continue
        else:
            raise AssertionError(f"no value for {overload}'s {arg}: {kind}")
        if argument.kwarg_only:
            kwargs[arg] = value
        else:
            args.append(value)
    return op, args, kwargs


def _clone(values):
    return [v.clone() if isinstance(v, torch.Tensor) else v for v in values]


def _results(result, args, kwargs):
    """What to compare: the result, and every tensor argument (in-place and out= write them)."""
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    return results + [v for v in list(args) + list(kwargs.values()) if isinstance(v, torch.Tensor)]


def test_every_registered_overload_matches_the_kernel_it_replaces(device, kernel_calls):
    """Each of the 450 overloads, called through torch.ops.aten with arguments built from its
    schema: tritonize's kernel runs and gives the replaced kernel's results (or its error)."""
    failures = []
    for qualified in tritonize.registered_ops():
        overload = qualified[len("aten::"):]
        generator = torch.Generator().manual_seed(seed(overload))
        op, args, kwargs = _overload_call(overload, device, generator)
        native_args, native_kwargs = _clone(args), {k: _clone([v])[0] for k, v in kwargs.items()}
        try:
            expected = _results(op(*native_args, **native_kwargs), native_args, native_kwargs)
        except RuntimeError as error:
            expected = error
        del kernel_calls[:]
        try:
            with tritonize.enabled(devices=(device,)):
                got = _results(op(*args, **kwargs), args, kwargs)
        except RuntimeError as error:
            got = error
        if isinstance(expected, Exception) or isinstance(got, Exception):
            if not (isinstance(expected, Exception) and isinstance(got, type(expected))):
                failures.append(f"{overload}: torch {expected!r}, tritonize {got!r}")
            continue
        if not kernel_calls:
            failures.append(f"{overload}: no tritonize kernel ran")
        for ours, theirs in zip(got, expected):
            try:
                assert_matches(ours, theirs, scale=4.0)
            except AssertionError as error:
                failures.append(f"{overload}: {error}")
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} overloads differ)"


AWKWARD_NUMBERS = [0.10002, 1.0009765, 0.3337, 2.71828]  # none a 16-bit value: each rounds in float16 and bfloat16
# torch's CPU add and sub round a number or alpha to the 16-bit dtype first, its CUDA kernels read it exactly in
# float32; tritonize.ops reads it as CUDA does on either device (README, "Known limits")
READ_AS_ON_CUDA = {"add.Scalar", "sub.Scalar", "rsub.Scalar", "add.Tensor", "sub.Tensor", "rsub.Tensor"}
NUMBER_TYPES = ("number", "float", "Optional[float]", "Optional[number]")


def test_16_bit_overloads_with_numbers_match_torch_bit_for_bit(device):
    """Each overload that takes a number (lambd, eps, beta, alpha, value, ...) with 16-bit tensors and numbers
    that no 16-bit dtype holds, through torch.ops.aten: the replaced kernel's results bit for bit (where
    torch rounds the number to the dtype, computes in it or in float32, tritonize does the same); values
    beside the number and its negation included. clamp's and hardtanh's bounds stay in order."""
    failures, compared = [], 0
    for qualified in tritonize.registered_ops():
        overload = qualified[len("aten::"):]
        name, _, variant = overload.partition(".")
        if "out" in variant or name.endswith("_") or name in ("clamp", "clamp_min", "clamp_max", "hardtanh") or (
                device == "cpu" and overload in READ_AS_ON_CUDA):
            continue
        op = getattr(getattr(torch.ops.aten, name), variant or "default")
        positional = [a for a in op._schema.arguments if not a.kwarg_only]
        numbers = {a.name for a in positional if str(a.type) in NUMBER_TYPES}
        keyword_numbers = [a.name for a in op._schema.arguments if a.kwarg_only and str(a.type) in NUMBER_TYPES]
        if not numbers and not keyword_numbers:
            continue
        for dtype, number in ((d, n) for d in (torch.float16, torch.bfloat16) for n in AWKWARD_NUMBERS):
            generator = torch.Generator().manual_seed(seed(overload))
            _, args, kwargs = _overload_call(overload, device, generator)
            near = torch.tensor([number, -number, number * 1.001, number * 0.999, -number * 1.001, 2 * number,
                                 number / 2, 0.0])
            given = 0
            for i, (argument, value) in enumerate(zip(positional, args)):
                if isinstance(value, torch.Tensor) and value.is_floating_point() and value.dim():
                    values = torch.randn(64, generator=generator) * 2
                    values[:8] = near
                    args[i] = values.to(device, dtype)
                elif argument.name in numbers and isinstance(value, float):
                    # the first number the one the values lie beside, the others other awkward ones
                    # (threshold's value differs from its threshold)
                    args[i] = number if not given else AWKWARD_NUMBERS[(AWKWARD_NUMBERS.index(number) + given) % 4]
                    given += 1
            for keyword in keyword_numbers:  # alpha, value, weight
                kwargs[keyword] = AWKWARD_NUMBERS[(AWKWARD_NUMBERS.index(number) + 1) % 4]
            try:
                expected = op(*_clone(args), **kwargs)
            except RuntimeError:
                continue  # torch refuses it (a 16-bit dtype its kernel lacks): the parity tests cover errors
            with tritonize.enabled(devices=(device,)):
                got = op(*_clone(args), **kwargs)
            compared += 1
            for ours, theirs in zip(*(r if isinstance(r, tuple) else (r,) for r in (got, expected))):
                same = (ours == theirs) | (ours.isnan() & theirs.isnan())
                if not bool(same.all()):
                    failures.append(f"{overload}({str(dtype)[6:]}, {number}): torch {theirs[~same][:3].tolist()}, "
                                    f"tritonize {ours[~same][:3].tolist()}")
    assert compared > 100
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} of {compared} calls differ)"


@pytest.mark.parametrize("mode", ["jvp", "dual", "jacfwd"])
def test_forward_mode_ad_through_registered_ops(mode, device, kernel_calls):
    """torch.func.jvp, forward_ad's dual tensors and torch.func.jacfwd through ops under enabled(): the
    registered kernels run below autograd, whose formulas give the tangents (the kernels read no dual
    tensor's primal: there unpack_dual reached _fw_primal's kernel, which asserted), torch's results."""
    import torch.autograd.forward_ad as forward_ad
    generator = torch.Generator().manual_seed(19)
    x, dx = (torch.randn(6, 8, generator=generator).to(device) for _ in range(2))

    def fn(t):
        return F.gelu(t) * torch.sigmoid(t) + F.glu(t, 0).sum()

    def run():
        if mode == "jvp":
            return torch.func.jvp(fn, (x,), (dx,))
        if mode == "jacfwd":
            return (torch.func.jacfwd(lambda t: fn(t).sum())(x),)
        with forward_ad.dual_level():
            y = fn(forward_ad.make_dual(x, dx))
            return forward_ad.unpack_dual(y)

    expected = run()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # functorch's fallback for glu_jvp's missing batching rule (jacfwd)
        with tritonize.enabled(devices=(device,)):
            got = run()
    assert {"gelu_kernel", "sigmoid_kernel", "glu_kernel", "glu_jvp_kernel"} <= set(kernel_calls), kernel_calls
    for ours, theirs in zip(got, expected):
        torch.testing.assert_close(ours, theirs, rtol=1.3e-6, atol=1e-5)


def test_torch_func_transforms_of_every_case_under_enabled(device):
    """hessian, jacfwd, vmap and jvp of each case's torch function (in its first tensor, float64), under
    enabled() as without: the registered kernels run below the transforms, whose rules and aten's formulas
    give the results (forward mode's zero tensors go to torch's kernels; flip reads no dual tensor there)."""
    failures = []
    for case in CASES:
        specs = [a for a in case.args if isinstance(a, T)]
        if not case.aten or torch.float32 not in case.floats or any(s.kind != "float" for s in specs):
            continue
        generator = torch.Generator().manual_seed(seed(case.id))
        args = [make_tensor(a, torch.float64, (3, 4), generator, device) if isinstance(a, T) else a for a in case.args]
        first = next(i for i, a in enumerate(case.args) if isinstance(a, T))

        def fn(t, case=case, args=args, first=first):
            result = (case.api or case.theirs)(*args[:first], t, *args[first + 1:], **case.kwargs)
            return result if isinstance(result, torch.Tensor) else result[0]

        x = args[first]
        transforms = {"hessian": lambda: torch.func.hessian(lambda t: fn(t).sum())(x),
                      "jacfwd": lambda: torch.func.jacfwd(fn)(x),
                      "vmap": lambda: torch.func.vmap(fn)(torch.stack([x, x * 0.5])),
                      "jvp": lambda: torch.func.jvp(fn, (x,), (torch.ones_like(x),))[1]}
        for name, transform in transforms.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # functorch's fallbacks for batching rules it lacks
                try:
                    expected = transform()
                except RuntimeError:
                    continue  # torch's own transform does not take it
                try:
                    with tritonize.enabled(devices=(device,)):
                        got = transform()
                    torch.testing.assert_close(got, expected, rtol=1e-6, atol=1e-6, equal_nan=True)
                except Exception as error:  # noqa: BLE001 - collected, all reported
                    failures.append(f"{case.id} {name}: {type(error).__name__}: {str(error)[:160]}")
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} differ)"


def test_autograds_zero_tensors_go_to_torchs_copy(device):
    """torch.func.hessian of xlogy under enabled(): autograd's formulas copy one of its zero tensors (no memory,
    a data pointer of 0) into a gradient; tritonize's copy_ leaves those to torch's (which zero-fills), where it
    read the pointer's storage and failed."""
    x = torch.randn(4, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(20)).to(device)

    def fn(t):
        return torch.xlogy(t, t.abs() + 1).sum()

    expected = torch.func.hessian(fn)(x)
    with tritonize.enabled(devices=(device,)):
        got = torch.func.hessian(fn)(x)
    torch.testing.assert_close(got, expected)
    zeros = torch._efficientzerotensor((4, 6), dtype=torch.float64, device=device)
    with pytest.raises(RuntimeError, match="zero tensors"):
        tops.copy_(torch.ones_like(x), zeros)


def test_registered_ops_are_aten_overloads_without_composite_implicit_kernels():
    names = tritonize.registered_ops()
    assert len(names) == len(set(names)) > 400
    for qualified in names:
        name, _, overload = qualified[len("aten::"):].partition(".")
        getattr(getattr(torch.ops.aten, name), overload or "default")  # exists
        # a backend kernel for a CompositeImplicitAutograd op would hide its autograd formula, unless
        # ATen has one already (silu_backward has both)
        if torch._C._dispatch_has_kernel_for_dispatch_key(qualified, "CompositeImplicitAutograd"):
            assert torch._C._dispatch_has_kernel_for_dispatch_key(qualified, "CPU"), qualified
    for expected in ("aten::add.Tensor", "aten::add.out", "aten::add_.Scalar", "aten::gelu", "aten::gelu.out",
                     "aten::where.self", "aten::copy_", "aten::_to_copy", "aten::pow.Scalar", "aten::__lshift__.Scalar",
                     "aten::log_sigmoid_forward"):
        assert expected in names


def test_enable_disable(device, kernel_calls):
    x = torch.randn(8, device=device)
    try:
        tritonize.enable(devices=(device,))
        tritonize.enable(devices=(device,))  # again: replaces, does not stack
        y = torch.sigmoid(x)
        assert kernel_calls == ["sigmoid_kernel"]
    finally:
        tritonize.disable()
    tritonize.disable()  # twice is harmless
    torch.sigmoid(x)
    assert kernel_calls == ["sigmoid_kernel"]
    torch.testing.assert_close(y, torch.sigmoid(x))


def test_enabled_nests_and_restores_on_exit_and_on_error(device, kernel_calls):
    x = torch.randn(8, device=device)
    with tritonize.enabled(devices=(device,)):
        with tritonize.enabled(devices=(device,)):
            torch.exp(x)
        torch.exp(x)  # the outer registration is back in force
        with pytest.raises(ZeroDivisionError):
            with tritonize.enabled(devices=(device,)):
                raise ZeroDivisionError
        torch.exp(x)
    assert kernel_calls == ["exp_kernel"] * 3
    torch.exp(x)
    assert len(kernel_calls) == 3


def test_enabled_for_another_device_leaves_this_one_alone(device, kernel_calls):
    other = "cpu" if device == "cuda" else "cuda"
    with tritonize.enabled(devices=(other,)):
        torch.exp(torch.ones(3, device=device))
    assert not kernel_calls
    with pytest.raises(ValueError, match="devices"):
        with tritonize.enabled(devices=("tpu",)):
            pass


def test_unsupported_dtypes_and_devices_go_to_the_previous_kernel(device, kernel_calls):
    z = torch.tensor([1 + 2j, 3 - 1j], device=device)
    x = torch.randn(3, device=device)
    with tritonize.enabled(devices=(device,)):
        s = z + z
        meta = x.to("meta")
        x2 = x * 2
    assert torch.equal(s, torch.tensor([2 + 4j, 6 - 2j], device=device))
    assert meta.device.type == "meta"
    assert kernel_calls == ["mul_kernel"]
    torch.testing.assert_close(x2, x * 2)
    with pytest.raises(RuntimeError, match="tritonize"):
        tops.to_copy(x, device="meta")


def test_python_numbers_stay_weak_through_the_dispatcher(device):
    ints = torch.tensor([1, 2, 3], dtype=torch.int32, device=device)
    halves = torch.tensor([1, 2, 3], dtype=torch.float16, device=device)
    with tritonize.enabled(devices=(device,)):
        results = [ints + 2.5, halves * 3, ints * True, torch.add(ints, 2, alpha=3), halves < 2.5]
    native = [ints + 2.5, halves * 3, ints * True, torch.add(ints, 2, alpha=3), halves < 2.5]
    for got, expected in zip(results, native):
        assert_matches(got, expected, exact=True)


def test_torchs_errors_for_bad_input(device):
    ints = torch.ones(3, dtype=torch.int64, device=device)
    floats = torch.ones(3, device=device)
    with tritonize.enabled(devices=(device,)):
        with pytest.raises(RuntimeError, match="can't be cast"):
            ints.add_(floats)
        with pytest.raises(RuntimeError):
            floats.add_(torch.ones(2, 3, device=device))  # self is not the broadcast shape
        with pytest.raises(RuntimeError, match="Negation"):
            -(floats > 0)
        with pytest.raises(RuntimeError, match="approximate"):
            F.gelu(floats, approximate="cubic")
        with pytest.raises(NotImplementedError):
            torch.bitwise_and(floats, floats)
        with pytest.raises(RuntimeError, match="alpha"):
            torch.add(ints, ints, alpha=0.5)
        with pytest.raises(RuntimeError, match="Integers to negative integer powers"):
            torch.pow(ints, -1)


def test_out_is_resized_like_torch(device):
    a, b = torch.ones(2, 3, device=device), torch.ones(3, device=device)
    empty = torch.empty(0, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tops.add(a, b, out=empty)  # zero elements: resized silently
    assert empty.shape == (2, 3) and bool((empty == 2).all())
    wrong = torch.empty(5, device=device)
    with pytest.warns(UserWarning, match="resized"):
        with tritonize.enabled(devices=(device,)):
            torch.add(a, b, out=wrong)
    assert wrong.shape == (2, 3) and bool((wrong == 2).all())


def test_autograd_runs_through_registered_kernels(device, kernel_calls):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(6, 7, generator=g).to(device)
    for fn in (F.gelu, torch.sigmoid, F.silu, F.logsigmoid, torch.tanh, F.elu, F.hardswish, F.softplus):
        leaf = x.clone().requires_grad_()
        fn(leaf).square().sum().backward()
        expected = leaf.grad
        leaf = x.clone().requires_grad_()
        with tritonize.enabled(devices=(device,)):
            fn(leaf).square().sum().backward()
        torch.testing.assert_close(leaf.grad, expected, rtol=1e-5, atol=1e-6)
    assert "log_sigmoid_forward_kernel" in kernel_calls or device == "cuda"


def test_copies_and_casts_under_enabled(device, kernel_calls):
    x = torch.randn(5, 6, device=device).t()
    native = [x.to(torch.float16), x.clone(), x.contiguous(), x.double(), (x > 0).int(), x.to(torch.bfloat16),
              torch.empty(6, 5, dtype=torch.int8, device=device).copy_(x * 10)]
    with tritonize.enabled(devices=(device,)):
        ours = [x.to(torch.float16), x.clone(), x.contiguous(), x.double(), (x > 0).int(), x.to(torch.bfloat16),
                torch.empty(6, 5, dtype=torch.int8, device=device).copy_(x * 10)]
    for got, expected in zip(ours, native):
        assert_matches(got, expected, exact=True)
        assert got.stride() == expected.stride()
    assert "_identity" in kernel_calls


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                                   torch.float16, torch.bfloat16, torch.float32, torch.float64],
                         ids=lambda d: str(d)[6:])
def test_casts_between_all_dtypes(dtype, device):
    values = torch.tensor([0.0, 1.0, -1.0, 2.5, -2.5, 100.75, -7.25, 0.3], dtype=torch.float64)
    for target in (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
                   torch.bfloat16, torch.float32, torch.float64):
        source = values.to(dtype).to(device)
        if target == torch.uint8 and dtype.is_floating_point:
            source = source.abs()  # negative float -> uint8 is undefined in C (and differs by device)
        assert_matches(tops.to_copy(source, dtype=target), source.to(target), exact=True)
        dst = torch.empty(8, dtype=target, device=device)
        assert_matches(tops.copy_(dst, source), source.to(target), exact=True)


def test_copy_broadcasts_and_same_view_is_a_no_op(device):
    dst = torch.zeros(3, 4, device=device)
    tops.copy_(dst, torch.arange(4.0, device=device))
    assert torch.equal(dst, torch.arange(4.0, device=device).expand(3, 4))
    assert tops.copy_(dst, dst) is dst
    with pytest.raises(RuntimeError):
        tops.copy_(dst, torch.ones(5, device=device))


def test_registered_kernels_leave_grad_mode_as_they_found_it(device, kernel_calls):
    """A registered kernel turns grad mode off while it runs tensors that require grad (torch's
    own formula records the graph) and back on after, also when the op raises."""
    x = torch.randn(4, device=device, requires_grad=True)
    with tritonize.enabled(devices=(device,)):
        y = x * 2
        assert kernel_calls and torch.is_grad_enabled()
        assert y.grad_fn is not None and "Mul" in type(y.grad_fn).__name__  # torch's node, not tritonize's
        with pytest.raises(RuntimeError, match="must match the size"):
            torch.add(x, torch.ones(3, device=device))
        assert torch.is_grad_enabled()
        with torch.no_grad():
            x.detach().mul_(0.5)
            assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()
    y.sum().backward()
    torch.testing.assert_close(x.grad, torch.full_like(x, 2.0))


def test_shape_and_cast_errors_are_torchs(device):
    """Shapes that do not broadcast, an in-place self that is not the broadcast shape, and a self
    or out= the result type can't be cast to raise torch's own messages under enabled(), not
    tritonize's (which name the scalar function's parameters, never seen by aten's callers)."""
    a, b, m = (torch.ones(4, device=device), torch.ones(3, device=device), torch.ones(2, 3, device=device))
    ints, flags = torch.ones(3, dtype=torch.int64, device=device), torch.ones(3, dtype=torch.bool, device=device)
    calls = [lambda: a + b, lambda: b.add_(m), lambda: a.mul_(b), lambda: torch.where(a > 0, a, b),
             lambda: torch.lerp(a, b, 0.5), lambda: b.lerp_(m, 0.5), lambda: torch.addcmul(a, b, b),
             lambda: F.silu(a) * b, lambda: torch.maximum(a, m),
             lambda: ints.add_(b), lambda: ints.mul_(0.5), lambda: flags.add_(ints), lambda: ints.div_(ints),
             lambda: torch.add(b, b, out=torch.empty(3, dtype=torch.int32, device=device)),
             lambda: torch.sigmoid(ints, out=torch.empty(3, dtype=torch.int64, device=device)),
             lambda: torch.mul(b, 2, out=torch.empty(5, dtype=torch.int16, device=device))]

    def message(fn):
        with pytest.raises(RuntimeError) as error:
            fn()
        # torch's error alone: not shown as raised while handling one of tritonize's
        shown_context = error.value.__context__ is not None and not error.value.__suppress_context__
        assert error.value.__cause__ is None and not shown_context, repr(error.value.__context__)
        return str(error.value)

    expected = [message(fn) for fn in calls]
    with tritonize.enabled(devices=(device,)):
        got = [message(fn) for fn in calls]
    assert got == expected
    assert all("must match the size" in m or "doesn't match the broadcast shape" in m or "can't be cast" in m
               for m in got)


def test_import_tritonize_leaves_the_op_library_until_first_asked_for():
    """`import tritonize` does not define the op library (its ~170 kernels took ~0.3 s of the
    import); the registration's names and `tritonize.ops` load it when first used."""
    import subprocess
    import sys

    script = """
import sys, tritonize
assert "tritonize.ops" not in sys.modules, "import tritonize loaded the op library"
assert tritonize.pointwise and tritonize.Promotion
from tritonize import enable, disable, enabled, registered_ops
assert "tritonize.ops" in sys.modules
assert enabled is sys.modules["tritonize.ops.registry"].enabled
assert "aten::gelu" in registered_ops()
import tritonize as again
assert again.ops.gelu is sys.modules["tritonize.ops"].gelu
assert set(tritonize.__all__) >= {"enable", "disable", "enabled", "registered_ops"}
try:
    tritonize.no_such_name
except AttributeError as error:
    assert "no_such_name" in str(error)
else:
    raise AssertionError("an unknown name must raise AttributeError")
print("ok")
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]


def test_an_error_of_the_kernel_registered_before_is_raised_as_its_own():
    """Where tritonize refuses a call (ops._common.Unsupported) and the kernel registered before raises,
    that error is raised alone, not "during handling of" tritonize's refusal."""
    from tritonize.ops import _common, registry

    class Refusing:
        def call_boxed(self, keyset, *args, **kwargs):
            raise ValueError("the kernel registered before refuses it too")

    def refuse(input, other, alpha=1, out=None):
        raise _common.Unsupported("tritonize does not run this call")

    kernel = registry._make_kernel(refuse, registry._schema("add.Tensor"), Refusing(), "cpu")
    with pytest.raises(ValueError, match="refuses it too") as info:
        kernel(torch.ones(2), torch.ones(2))
    assert info.value.__context__ is None


def test_an_error_of_a_registered_op_shows_the_callers_line_not_the_op_librarys():
    """`a + b` of shapes that do not broadcast, served by tritonize, raises torch's error from the
    registered kernel, without the op library's frames (as the aten op's own error comes from the op)."""
    import traceback

    with tritonize.enabled(devices=("cpu",)):
        with pytest.raises(RuntimeError, match="must match the size") as info:
            torch.ones(3) + torch.ones(4)
    files = [frame.filename for frame in traceback.extract_tb(info.value.__traceback__)]
    assert files[0] == __file__
    assert not any(name.endswith(("_common.py", "arithmetic.py")) for name in files), files


def test_frexp_under_enabled_runs_its_kernel_below_autograd(device, kernel_calls):
    x = torch.randn(3, 5, device=device).t()
    mantissa, exponent = torch.empty(0, device=device), torch.empty(0, dtype=torch.int32, device=device)
    with tritonize.enabled(devices=(device,)):
        leaf = x.clone().requires_grad_()
        m, e = torch.frexp(leaf)
        m.sum().backward()  # torch's formula: grad / 2**exponent
        written = torch.frexp(x, out=(mantissa, exponent))
    assert kernel_calls.count("frexp_kernel") == 2  # the backward's ops run kernels of their own
    assert isinstance(written, torch.return_types.frexp_out) and written.mantissa is mantissa
    expected = torch.frexp(x)
    assert torch.equal(m.detach(), expected.mantissa) and torch.equal(e, expected.exponent)
    assert torch.equal(mantissa, expected.mantissa) and torch.equal(exponent, expected.exponent)
    assert torch.equal(leaf.grad, torch.exp2(-e.double()).float())
