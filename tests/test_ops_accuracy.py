"""Every op of tritonize.ops against torch: accuracy on float16, bfloat16 and float32 against a
float64 reference (FlagGems' tolerances), torch's result dtype, and every memory layout the
runtime handles (non-contiguous, broadcast, 0-d, empty), for the direct call."""
from __future__ import annotations

import math

import pytest
import torch

from conftest import DEVICE
from test_ops_cases import CASES, TOLERANCE, T, make_args, make_tensor, seed
from test_semantics import _bitwise_equal

from tritonize import approximations, ops


def float64_reference(value):
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.double()
    return value


def assert_matches(got, expected, reference=None, exact=False, scale=1.0):
    """`got` has torch's dtype and shape; its values equal `expected` (exact) or are within the
    tolerance of got's dtype of `reference` (a float64 result), NaN where it is NaN."""
    assert isinstance(got, torch.Tensor), f"expected a tensor, got {type(got).__name__}"
    assert got.dtype == expected.dtype, f"dtype {got.dtype}, torch gives {expected.dtype}"
    assert got.shape == expected.shape, f"shape {tuple(got.shape)}, torch gives {tuple(expected.shape)}"
    if exact or not got.is_floating_point():
        same = got == expected
        if got.is_floating_point():
            same |= got.isnan() & expected.isnan()
        assert bool(same.all()), f"\nours  {got[~same][:8]}\ntorch {expected[~same][:8]}"
        return
    rtol, atol = TOLERANCE[got.dtype]
    reference = expected if reference is None else reference
    torch.testing.assert_close(got.double(), reference.double(), rtol=rtol * scale, atol=atol * scale,
                               equal_nan=True, check_device=False)


# torch's CUDA round(decimals) rounds x * 10**d to the input's half precision before rounding
# to an integer (its CPU kernel and tritonize compute that in float32, exactly for these
# inputs), so on CUDA these cases are held to the float64 reference instead of to torch
TORCH_CUDA_HALF_STEPS = {"round_decimals", "round_negative_decimals"}

ACCURACY = [pytest.param(case, dtype, id=f"{case.id}-{str(dtype)[6:]}") for case in CASES for dtype in case.floats]


@pytest.mark.parametrize("case, dtype", ACCURACY)
def test_accuracy_against_float64(case, dtype, device):
    generator = torch.Generator().manual_seed(seed(case.id))
    args = make_args(case, dtype, generator, device)
    got = case.ours(*args, **case.kwargs)
    expected = case.theirs(*args, **case.kwargs)  # torch on the same dtypes: the dtype to match
    if case.exact or (case.same_dtype_ref and not (device == "cuda" and case.id in TORCH_CUDA_HALF_STEPS)):
        assert_matches(got, expected, exact=case.exact, scale=case.tol_scale)
    else:
        reference = case.theirs(*[float64_reference(a) for a in args], **case.kwargs)
        assert_matches(got, expected, reference, scale=case.tol_scale)


def _layouts(case, dtype, device, generator):
    """(label, args): transposed views, broadcasts (stride 0), 0-d tensors and empty tensors."""
    count = case.tensor_count
    even_last = case.fn == "glu"  # glu halves its last dim, which must stay even

    def tensors(shapes):
        made = iter([make_tensor(a, dtype, shape, generator, device) for a, shape in
                     zip([a for a in case.args if isinstance(a, T)], shapes)])
        return [next(made) if isinstance(a, T) else a for a in case.args]

    base = tensors([(8, 6) if even_last else (7, 6)] * count)
    yield "transposed", [a.t() if isinstance(a, torch.Tensor) else a for a in base]
    sliced = tensors([(12, 9)] * count)
    yield "sliced", [a[::2, 1::2] if isinstance(a, torch.Tensor) else a for a in sliced]
    if count == 1:
        yield "expanded", [a.expand(4, 6) if isinstance(a, torch.Tensor) else a
                           for a in tensors([(1, 6)])]
    else:
        yield "broadcast", tensors([(4, 1) if i == 0 else (1, 6) for i in range(count)])
    yield "0-d", tensors([()] * count)
    yield "empty", tensors([(0, 4)] * count)


LAYOUT_CASES = [pytest.param(case, id=case.id) for case in CASES]


@pytest.mark.parametrize("case", LAYOUT_CASES)
def test_layouts(case, device):
    dtype = torch.float32 if case.floats else torch.int32
    generator = torch.Generator().manual_seed(seed(case.id) + 1)
    for label, args in _layouts(case, dtype, device, generator):
        try:
            expected = case.theirs(*args, **case.kwargs)
        except RuntimeError as error:
            try:  # some torch CPU kernels fail on some layouts (gelu_backward in oneDNN): not an input error
                tensors = iter(torch.broadcast_tensors(*[a for a in args if isinstance(a, torch.Tensor)]))
                dense = [next(tensors).contiguous() if isinstance(a, torch.Tensor) else a for a in args]
                expected = case.theirs(*dense, **case.kwargs)
            except RuntimeError:  # e.g. glu of a 0-d tensor: ours must refuse it alike
                with pytest.raises(type(error)):
                    case.ours(*args, **case.kwargs)
                continue
        got = case.ours(*args, **case.kwargs)
        try:
            assert_matches(got, expected, exact=case.exact, scale=4.0)
        except AssertionError as error:
            raise AssertionError(f"{label}: {error}") from None


def test_outputs_follow_the_inputs_layout(device):
    """A transposed input gives a transposed result (TensorIterator's rule), as in torch."""
    import tritonize.ops as tops
    x = torch.randn(6, 9, device=device).t()
    for fn in ("exp", "sigmoid", "neg"):
        got, expected = getattr(tops, fn)(x), getattr(torch, fn)(x)
        assert got.stride() == expected.stride()


def test_positive_is_the_input_itself(device):
    import tritonize.ops as tops
    x = torch.randn(3, device=device)
    assert tops.positive(x) is x and torch.positive(x) is x
    with pytest.raises(RuntimeError, match="bool"):
        tops.positive(x > 0)


@pytest.mark.parametrize("dtype", [torch.bool, torch.int32, torch.bfloat16, torch.float64], ids=lambda d: str(d)[6:])
def test_conj_physical_of_a_real_tensor(dtype, device):
    """The input itself, or a copy into out= (resized as torch resizes it, transposed like the input), whose
    dtype must be the input's: torch's error otherwise."""
    import tritonize.ops as tops
    x = (torch.randn(4, 6, device=device) * 3).to(dtype).t()
    assert tops.conj_physical(x) is x and torch.conj_physical(x) is x
    out = torch.empty(0, dtype=dtype, device=device)
    assert tops.conj_physical(x, out=out) is out
    expected = torch.conj_physical(x, out=torch.empty(0, dtype=dtype, device=device))
    assert torch.equal(out, expected) and out.stride() == expected.stride()
    other = torch.float32 if dtype != torch.float32 else torch.float64
    for fn in (tops.conj_physical, torch.conj_physical):
        with pytest.raises(RuntimeError, match="Found dtype (Float|Double) but expected"):
            fn(x, out=torch.empty(0, dtype=other, device=device))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=lambda d: str(d)[6:])
def test_xlogy_of_a_number_takes_the_logarithm_of_its_value_in_the_dtype(dtype, device):
    """xlogy(x, number) and xlog1py(x, number), and by a 0-d float64 tensor: torch converts the number to a
    value of the result dtype and takes its logarithm there; log(1.0009765) is 5.8e-5 off log(float32(1.0009765)), so the exact number
    gave results that many ulps off. Bit for bit torch's."""
    import tritonize.ops as tops
    x = (torch.randn(4096, generator=torch.Generator().manual_seed(15)) * 2).to(device, dtype)
    for number in (1.0009765, 0.10002, 2.71828):
        assert torch.equal(tops.xlogy(x, number), torch.xlogy(x, number))
        assert torch.equal(tops.xlog1py(x, number), torch.special.xlog1py(x, number))
        wrapped = torch.tensor(number, dtype=torch.float64)  # a 0-d float64 tensor promotes as the number does
        assert torch.equal(tops.xlogy(x, wrapped), torch.xlogy(x, wrapped))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=lambda d: str(d)[6:])
def test_a_zero_dim_float64_tensor_computes_as_its_value_in_the_result_dtype(dtype, device):
    """A 0-d float64 tensor (a wrapped number) beside tensors of a narrower dtype promotes weakly, and torch's
    TensorIterator converts its value to the result dtype before the kernel reads it: addcdiv's divisor, addcmul's
    factor and logaddexp's operand as that value (bit for bit torch's, but float32 logaddexp, whose CPU kernel's
    log1p differs from tritonize's by an ulp: there the same as a 0-d tensor of the dtype)."""
    import tritonize.ops as tops
    generator = torch.Generator().manual_seed(16)
    a, b = ((torch.rand(4096, generator=generator) * 8 - 4).to(device, dtype) for _ in range(2))
    for number in (0.10002, -0.3337, 1.0009765):
        wrapped = torch.tensor(number, dtype=torch.float64, device=device)
        assert torch.equal(tops.addcdiv(a, b, wrapped, value=-1.5), torch.addcdiv(a, b, wrapped, value=-1.5))
        assert torch.equal(tops.addcmul(a, wrapped, b, value=-1.5), torch.addcmul(a, wrapped, b, value=-1.5))
        for ours, theirs in ((tops.logaddexp, torch.logaddexp), (tops.logaddexp2, torch.logaddexp2)):
            got = ours(a, wrapped)
            assert torch.equal(got, ours(a, wrapped.to(dtype)))
            if dtype != torch.float32:
                assert torch.equal(got, theirs(a, wrapped))


def random_bit_patterns(dtype, generator, count=2**14):
    """`count` 16-bit values drawn from all 2^16 bit patterns (every exponent, subnormals,
    infinities, NaN), on the CPU."""
    return approximations.every_value(dtype, "cpu")[torch.randint(0, 2**16, (count,), generator=generator)]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_trunc_division_of_16_bit_tensors_rounds_the_quotient_first(dtype, device):
    """div(a, b, rounding_mode="trunc") of two 16-bit tensors is trunc of the quotient rounded to
    their dtype, as torch's CPU and CUDA kernels compute it (c10's 16-bit `a / b`), bit for bit;
    it lands on the next integer where the float32 quotient lies within half an ulp below one,
    which these pairs include. By a number, the float32 quotient is truncated, as torch does."""
    generator = torch.Generator().manual_seed(5)
    a, b = random_bit_patterns(dtype, generator), random_bit_patterns(dtype, generator)
    quotient = a.float() / b.float()
    rounded = quotient.to(dtype).float()
    assert int(((rounded == rounded.trunc()) & (quotient.trunc() != rounded.trunc())).sum()) > 0
    got = ops.div(a.to(device), b.to(device), rounding_mode="trunc")
    _bitwise_equal(got, rounded.trunc().to(dtype))
    _bitwise_equal(got, torch.div(a.to(device), b.to(device), rounding_mode="trunc"))
    _bitwise_equal(ops.div(a.to(device), 3.0, rounding_mode="trunc"), torch.trunc(a.float() / 3.0).to(dtype))


DISCRETE_HALVES = [pytest.param(case, dtype, id=f"{case.id}-{str(dtype)[6:]}") for case in CASES
                   if case.same_dtype_ref and case.id not in TORCH_CUDA_HALF_STEPS
                   for dtype in (torch.bfloat16, torch.float16) if dtype in case.floats]
# torch's CPU fmod of bfloat16 gives NaN for subnormal divisors and huge quotients (ours and its
# CUDA kernel give the exact remainder)
TORCH_CPU_BFLOAT16_FMOD = {"remainder", "remainder_scalar_tensor", "fmod"}
# torch's CUDA floor division of two float16 tensors rounds floor(div) to float16 inside c10's
# float32 steps (benchmarks/experiments/floor_divide16.py); ours rounds only the result, which
# differs on 210 of 2^20 random bit patterns (an H100)
TORCH_CUDA_FLOAT16_FLOOR = {"floor_divide", "div_floor"}


@pytest.mark.parametrize("case, dtype", DISCRETE_HALVES)
def test_discrete_16_bit_ops_give_torchs_results_bit_for_bit(case, dtype, device):
    """Floor and trunc division, remainder and fmod of random 16-bit bit patterns (every exponent,
    subnormals, infinities, NaN) give torch's results on the same device bit for bit, where its
    CPU and CUDA kernels differ too: floor division of two 16-bit tensors rounds c10's steps to
    16 bits on the CPU (-456704 // -1360 is 334 in bfloat16) and computes them in float32 on
    CUDA (336)."""
    if device == "cpu" and dtype == torch.bfloat16 and case.id in TORCH_CPU_BFLOAT16_FMOD:
        pytest.skip("torch's CPU bfloat16 fmod gives NaN where the remainder exists")
    if device == "cuda" and dtype == torch.float16 and case.id in TORCH_CUDA_FLOAT16_FLOOR:
        pytest.skip("torch's CUDA float16 floor division rounds floor(div) inside its steps")
    generator = torch.Generator().manual_seed(seed(case.id))
    args = [random_bit_patterns(dtype, generator).to(device) if not isinstance(a, (int, float)) else a
            for a in case.args]
    _bitwise_equal(case.ours(*args, **case.kwargs), case.theirs(*args, **case.kwargs))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_ldexp_by_a_16_bit_exponent_rounds_the_power_first(dtype, device):
    """torch's ldexp is mul(input, pow(2, other)): by a 16-bit float exponent the power rounds to
    that dtype first (2 ** 20 is inf in float16, 2 ** -31 is 0), which ldexp here does too, bit
    for bit over random bit patterns; by an integer exponent the power is float32."""
    generator = torch.Generator().manual_seed(7)
    x, e = (random_bit_patterns(dtype, generator).to(device) for _ in range(2))
    _bitwise_equal(ops.ldexp(x, e), torch.ldexp(x, e))
    integer_e = torch.randint(-40, 40, (2**14,), generator=generator, dtype=torch.int32).to(device)
    _bitwise_equal(ops.ldexp(x, integer_e), torch.ldexp(x, integer_e))
    if dtype == torch.float16:
        small = torch.full((2,), 0.01, dtype=dtype, device=device)
        got = ops.ldexp(small, torch.tensor([20.0, -31.0], dtype=dtype, device=device)).cpu()
        assert got[0].item() == math.inf and got[1].item() == 0
        assert ops.ldexp(small, torch.tensor([20, -31], device=device)).cpu()[0].item() == 10488.0  # 0.01 * 2 ** 20


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_add_and_sub_with_alpha_give_torchs_fma(dtype, device):
    """add, sub and rsub with alpha compute self + alpha * other as one fma, as torch's compiled
    kernels do, bit for bit torch's (a rounded product and a sum differ on ~28% of float32
    elements). By a number, and for 16-bit alphas 16 bits cannot hold, torch's CPU kernels round
    the number (or alpha) to the 16-bit dtype first and its CUDA ones do not: those only on CUDA."""
    generator = torch.Generator().manual_seed(9)
    a, b = (torch.randn(4096, generator=generator).to(dtype).to(device) for _ in range(2))
    half = dtype in (torch.float16, torch.bfloat16)
    for alpha in (2.5, 3, 0.3):
        if half and alpha == 0.3 and device == "cpu":
            continue
        for fn in ("add", "sub", "rsub"):
            _bitwise_equal(getattr(ops, fn)(a, b, alpha=alpha), getattr(torch, fn)(a, b, alpha=alpha))
        if not (half and device == "cpu"):
            _bitwise_equal(ops.add(a, 1.7, alpha=alpha), torch.add(a, 1.7, alpha=alpha))
    # a case where the two roundings matter in float32: 0.1 * 10 - 1 is 0 with two, 2^-54 with one
    x = torch.tensor([-1.0], dtype=torch.float64, device=device)
    assert ops.add(x, torch.tensor([0.1], dtype=torch.float64, device=device), alpha=10).item() == 5.551115123125783e-17


# Cases whose results are torch's bit for bit, by device (torch 2.11 CUDA and 2.13 CPU): the ops
# whose ATen kernels contract a product and a sum into one fma (found per op: the
# benchmarks/experiments/eager_bits.py sweep), round each 16-bit step, or scale by a float32 1/6.
# Torch's CPU kernels call Sleef's sqrt, exp and tanh, an ulp from ours, in the ones marked CUDA only;
# float32 erf, asin, acos and acosh are eager's where a CUDA toolkit's libdevice is linked.
BOTH, CUDA_ONLY = ("cpu", "cuda"), ("cuda",)
BIT_FOR_BIT = {
    "lerp": BOTH, "lerp_big_weight": BOTH, "lerp_tensor": BOTH, "addcmul": BOTH, "addcmul_inexact_value": BOTH,
    "addcdiv": BOTH, "tanh_backward": BOTH, "sigmoid_backward": BOTH, "hardswish": BOTH, "hardsigmoid": BOTH,
    "gelu_tanh": BOTH, "sqrt": CUDA_ONLY, "rsqrt": CUDA_ONLY, "silu_backward": CUDA_ONLY, "elu_backward": CUDA_ONLY,
    "logaddexp2": CUDA_ONLY, "gelu_backward_tanh": CUDA_ONLY,
    # float32_math's composites take CUDA's steps (erff, hypotf, atanf, atan2f), with or without a toolkit
    "erf": CUDA_ONLY, "gelu": CUDA_ONLY, "gelu_backward": CUDA_ONLY, "hypot": CUDA_ONLY, "atan": CUDA_ONLY,
    "atan2": CUDA_ONLY,
}
FLOAT32_ONLY = set()  # 16-bit kernels keep Triton's libdevice, faster there
if DEVICE == "cuda":
    from tritonize.launch import extern_libs

    if extern_libs() is not None:  # math_table.EAGER_EXACT_IN_FLOAT32
        FLOAT32_ONLY = {"asin", "acos", "acosh"}
        BIT_FOR_BIT.update(dict.fromkeys(FLOAT32_ONLY, CUDA_ONLY))


@pytest.mark.parametrize("case, dtype", [
    pytest.param(case, dtype, id=f"{case.id}-{str(dtype)[6:]}") for case in CASES
    if DEVICE in BIT_FOR_BIT.get(case.id, ())
    for dtype in ((torch.float32,) if case.id in FLOAT32_ONLY else (torch.float32, torch.bfloat16, torch.float16))])
def test_ops_give_torchs_results_bit_for_bit(case, dtype, device):
    """Each result element is torch's, on random inputs of the case's domains: a product rounded
    apart from its sum (where torch's compiler fused them) differed on 11-48% of float32 elements,
    by up to 10^5 ulp where the sum cancels."""
    args = make_args(case, dtype, torch.Generator().manual_seed(seed(case.id)), device=device, shape=(32, 64))
    _bitwise_equal(case.ours(*args, **case.kwargs), case.theirs(*args, **case.kwargs))


@pytest.mark.skipif(DEVICE != "cuda", reason="torch's CPU kernels call another erf")
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=lambda d: str(d)[6:])
def test_erf_and_gelu_give_cudas_results_on_every_16_bit_value(dtype, device):
    """erf, gelu and gelu's backward (in float32, as ATen's opmath computes them) take erff's own
    steps on CUDA (float32_math.f32_erf): torch's result on each of the 65536 values of a 16-bit
    dtype (the erf composite fitted apart from erff was 1 ulp off on 0.2-1.5% of gelu's)."""
    x = approximations.every_value(dtype, device)
    grad = torch.ones_like(x)
    _bitwise_equal(ops.erf(x), torch.erf(x))
    _bitwise_equal(ops.gelu(x), torch.nn.functional.gelu(x))
    _bitwise_equal(ops.gelu_backward(grad * 0.75, x), torch.ops.aten.gelu_backward(grad * 0.75, x))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int32],
                         ids=lambda d: str(d)[6:])
def test_division_by_a_number_is_torchs_on_either_device(dtype, device):
    """By a number or a 0-d CPU tensor torch's CUDA kernel multiplies by the reciprocal (in opmath; a
    quotient 1 ulp off on ~10-20% of float32 elements), its CPU kernel divides: bit for bit either way,
    in place and into out= too; by a 0-d tensor on the tensor's own device, both divide (by its 16-bit
    value where the tensor is 16-bit)."""
    generator = torch.Generator().manual_seed(21)
    a = (torch.randn(8192, generator=generator) * 100).to(dtype).to(device)
    divisors = [3.0, 0.7, 1e-3, 7, 49, True, -0.0, math.inf, 1e-45, torch.tensor(0.3, dtype=torch.float64),
                torch.tensor(3, dtype=torch.int64), torch.tensor(0.3, dtype=torch.float32, device=device)]
    for b in divisors:
        expected = torch.div(a, b)
        _bitwise_equal(ops.div(a, b), expected)
        _bitwise_equal(ops.true_divide(a, b), expected)
        if expected.dtype == a.dtype:
            _bitwise_equal(ops.div_(a.clone(), b), a.clone().div_(b))
            _bitwise_equal(ops.div(a, b, out=torch.empty_like(a)), expected)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16], ids=lambda d: str(d)[6:])
def test_lerp_weights_reach_the_kernel_as_torchs_do(dtype, device):
    """A number weight in the compute dtype, a 0-d tensor weight of another dtype cast to the
    input's: bit for bit torch's either way (they differ from each other in 16 bits)."""
    generator = torch.Generator().manual_seed(13)
    a, b = (torch.randn(2048, generator=generator).to(dtype).to(device) for _ in range(2))
    for weight in (0.3, 0.8, torch.tensor(0.8, dtype=torch.float64), torch.tensor(0.7001, dtype=torch.float64),
                   torch.tensor(0.3, dtype=torch.float64, device=device)):
        _bitwise_equal(ops.lerp(a, b, weight), torch.lerp(a, b, weight))


SCALAR_T_OPS = {
    "remainder": (ops.remainder, torch.remainder), "fmod": (ops.fmod, torch.fmod), "pow": (ops.pow, torch.pow),
    "atan2": (ops.atan2, torch.atan2), "hypot": (ops.hypot, torch.hypot), "lt": (ops.lt, torch.lt),
    "ge": (ops.ge, torch.ge), "eq": (ops.eq, torch.eq), "ne": (ops.ne, torch.ne),
    "dividend": (lambda x, s: ops.div(s, x), lambda x, s: torch.div(s, x)),
    "floor_dividend": (lambda x, s: ops.floor_divide(s, x), lambda x, s: torch.floor_divide(s, x)),
}
ARITHMETIC_OPS = {"add": (ops.add, torch.add), "mul": (ops.mul, torch.mul), "rsub": (ops.rsub, torch.rsub)}
CPU_SCALARS = {"float": 0.1001, "int": 2049, "0-d float32": torch.tensor(0.1001),
               "0-d float64": torch.tensor(0.1001, dtype=torch.float64), "0-d int64": torch.tensor(2049)}


def _near_scalars(dtype, device):
    """Values on both sides of, and at, the 16-bit values of 0.1001 and 2049 (2048 in both dtypes)."""
    steps = torch.linspace(-0.002, 0.002, 201)
    values = torch.cat([torch.linspace(-4, 4, 801), 0.10009765625 + steps, 0.10009765625 - steps,
                        torch.tensor([0.1001, 0.10009765625, 2040.0, 2048.0, 2049.0, 2056.0, 2064.0])])
    return values.to(dtype).to(device)


@pytest.mark.parametrize("scalar", list(CPU_SCALARS), ids=str)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("name", list(SCALAR_T_OPS) + list(ARITHMETIC_OPS))
def test_cpu_scalars_meet_16_bit_tensors_as_torchs_kernels_read_them(name, dtype, scalar, device):
    """A Python number or a 0-d CPU tensor (a CPU scalar to torch's CUDA kernels) meeting a 16-bit tensor:
    remainder, fmod, pow, atan2, hypot, the comparisons and a dividend read it as the 16-bit value (their
    functors take scalar_t), torch.remainder(x, 0.1001) is x % 0.10009765625 on either device; add, mul and
    rsub read it exactly, in float32 (opmath), as torch's CUDA kernels do. Held to torch with the scalar
    given as a 0-d tensor of the 16-bit dtype, and to the float32 computation with the scalar exact."""
    s = CPU_SCALARS[scalar]
    value = s.item() if isinstance(s, torch.Tensor) else s
    x = _near_scalars(dtype, device)
    if name in ("pow",):
        x = x.abs() + 0.25
    ours, theirs = (SCALAR_T_OPS | ARITHMETIC_OPS)[name]
    if name in ("atan2", "hypot") and not isinstance(s, torch.Tensor):
        s = torch.tensor(s)  # torch takes these with tensors only
    if name in SCALAR_T_OPS:
        as_16_bit = torch.tensor(float(value), dtype=torch.float32).to(dtype)  # c10's conversion: via float32
        expected = theirs(x, as_16_bit)
        if name == "floor_dividend" and x.device.type == "cpu":
            # torch's CPU kernel rounds each step of c10's formula to 16 bits for two 16-bit operands;
            # tritonize takes CUDA's float32 steps on either device (README, Known limits)
            expected = theirs(x.float(), as_16_bit.float()).to(dtype)
    else:
        expected = theirs(x.float(), torch.tensor(float(value), dtype=torch.float32)).to(dtype)
    _bitwise_equal(ours(x, s), expected)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_xlogy_converts_its_inputs_to_the_16_bit_result_dtype_first(name, dtype, device):
    """ATen converts every input to the result dtype before xlogy's log: a 0-d float32 tensor, an integer
    tensor or a number meeting a 16-bit one enters the log as its 16-bit value (the kernel alone would take
    the log of the float32 or integer value, then meet). Ours equals ours on the converted inputs, and on
    CUDA torch's own results."""
    generator = torch.Generator().manual_seed(8)
    x = (torch.randn(2048, generator=generator) * 3).to(dtype).to(device)
    ours, theirs = {"xlogy": (ops.xlogy, torch.xlogy), "xlog1py": (ops.xlog1py, torch.special.xlog1py)}[name]
    others = [torch.tensor(0.1001, device=device), torch.tensor(2049, device=device), 0.1001, 2049,
              torch.randint(1, 3000, (2048,), generator=generator).to(device)]
    for other in others:
        converted = (other.to(dtype) if isinstance(other, torch.Tensor)
                     else torch.tensor(float(other)).to(dtype).to(device))
        got = ours(x, other)
        _bitwise_equal(got, ours(x, converted))
        if device == "cuda":
            _bitwise_equal(got, theirs(x, other))
