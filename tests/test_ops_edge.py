"""Edge values for the math ops: nan, +-inf, -0.0, huge, tiny and subnormal inputs give torch's
results in every float dtype: NaN where torch gives NaN, the same infinities, the same sign of
zero, and finite values within the dtype's tolerance."""
from __future__ import annotations

import itertools

import pytest
import torch

import tritonize.math as tm
import tritonize.ops as tops
from test_ops_cases import BY_ID, TOLERANCE

INF, NAN = float("inf"), float("nan")


def edge_values(dtype, device):
    info = torch.finfo(dtype)
    values = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0, 10.0, 0.9999, -0.9999,
              info.max, -info.max, info.max / 7, info.tiny, -info.tiny, 4 * info.eps]
    values += [info.tiny / 8, -info.tiny / 8]  # subnormals
    return torch.tensor(values, dtype=torch.float64).to(dtype).to(device)


def assert_same_specials(got, expected, label, zero_sign=True, exact=False):
    assert got.dtype == expected.dtype, f"{label}: dtype {got.dtype}, torch gives {expected.dtype}"
    if not got.is_floating_point():
        bad = got != expected
        assert not bool(bad.any()), f"{label}: differ at {bad.nonzero().flatten().tolist()}"
        return
    nan_differs = got.isnan() != expected.isnan()
    assert not bool(nan_differs.any()), (f"{label}: NaN differs at {nan_differs.nonzero().flatten().tolist()}\n"
                                         f"ours  {got}\ntorch {expected}")
    inf = expected.isinf() | got.isinf()
    assert torch.equal(got[inf], expected[inf]), f"{label}: infinities differ\nours  {got}\ntorch {expected}"
    if zero_sign:
        zero = expected == 0
        assert torch.equal(got[zero].signbit(), expected[zero].signbit()), (
            f"{label}: sign of zero differs\nours  {got}\ntorch {expected}")
    finite = expected.isfinite() & got.isfinite()
    if exact:
        assert torch.equal(got[finite], expected[finite]), f"{label}:\nours  {got}\ntorch {expected}"
    else:
        rtol, atol = TOLERANCE[got.dtype]
        torch.testing.assert_close(got[finite].double(), expected[finite].double(), rtol=2 * rtol, atol=2 * atol,
                                   msg=lambda m: f"{label}: {m}")


UNARY = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "asin",
         "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv", "ceil", "floor",
         "round", "trunc", "frac", "deg2rad", "rad2deg", "sigmoid", "logit", "lgamma", "digamma", "sinc", "entr", "ndtr",
         "ndtri", "log_ndtr", "erfcx", "i0", "i0e", "i1", "i1e", "spherical_bessel_j0", "bessel_j0", "bessel_j1",
         "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
         "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "airy_ai",
         "neg", "reciprocal", "angle",
         "abs", "sign", "square", "nan_to_num", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"]
EXACT = {"ceil", "floor", "round", "trunc", "frac", "angle", "neg", "abs", "sign", "square", "nan_to_num", "isnan", "isinf",
         "isfinite", "isposinf", "isneginf", "signbit"}
DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
NO_16_BIT = {"ndtri", "log_ndtr", "erfcx", "spherical_bessel_j0", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
             "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
             "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "airy_ai"}
CUDA_NO_16_BIT = {"angle"}  # torch's CPU kernel has 16-bit instances
# torch's i0 and i1 are nan at +-inf (exp(inf) times a series over sqrt(inf)), and its i1 and i1e +0.0 at
# -0.0, where these odd functions keep the sign (test_tritonize_math.py holds the values to the truth)
# torch's J and Y are nan at +inf (J at -inf too), where they tend to 0, and its float64 ones 1e-9 off at 10
# (ATen drops Cephes' leading coefficients between 2 and 25): tritonize.math's (correctly rounded) there
TORCH_WRONG = {
    "i0": lambda x, theirs: torch.where(x.isinf(), x.abs(), theirs),
    "i1": lambda x, theirs: torch.where(x.isinf() | (x == 0), x, theirs),
    "i1e": lambda x, theirs: torch.where(x == 0, x, theirs),
    **{name: lambda x, theirs, name=name: _bessel_jy_where_torch_is_wrong(name, x, theirs)
       for name in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1")},
}
TORCH_WRONG["modified_bessel_i0"], TORCH_WRONG["modified_bessel_i1"] = TORCH_WRONG["i0"], TORCH_WRONG["i1"]


def _bessel_jy_where_torch_is_wrong(name, x, theirs):
    wrong = (x == INF) | ((x == -INF) & name.startswith("bessel_j"))
    if x.dtype == torch.float64:
        wrong |= (x.abs() > 2) & (x.abs() < 25)
    truth = torch.tensor([getattr(tm, name)(v) for v in x.tolist()], dtype=torch.float64)
    return torch.where(wrong.cpu(), truth.to(x.dtype), theirs.cpu()).to(theirs.device)


def _airy_truth(x, theirs):
    """torch's Ai is nan at +-inf (Ai: 0) and drops Cephes' leading 1s between -8 and -2.09 (1.7e-5 off at
    -2.1); its float32 kernel is nan from ~-6e25, where 2/3 |x|^(3/2) overflows float32 (tritonize computes in
    float64: a value below the amplitude 0.56 |x|^(-1/4), ~4e-10 at -3.4e38, its phase lost as torch's float64
    one is from ~-1e11): there tritonize.math's (the true value, test_tritonize_math.py)."""
    truth = torch.tensor([tm.airy_ai(v) for v in x.double().cpu().tolist()], dtype=x.dtype, device=x.device)
    overflowed = theirs.isnan() & x.isfinite() & (x.dtype == torch.float32)
    return torch.where(x.isinf() | ((x > -8) & (x < -2.09)) | overflowed, truth, theirs)


TORCH_WRONG["airy_ai"] = _airy_truth


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d)[6:])
def test_unary_edge_values(name, dtype, device):
    x = edge_values(dtype, device)
    theirs = getattr(torch, name, None) or getattr(torch.special, name)  # entr, ndtr, ... are torch.special's
    if (name in NO_16_BIT or name in CUDA_NO_16_BIT and device == "cuda") and dtype in (torch.float16, torch.bfloat16):
        for fn in (theirs, getattr(tops, name)):  # torch has no such kernels: its error
            with pytest.raises(NotImplementedError, match=f"{name}_{device}\" not implemented for"):
                fn(x)
        return
    got, expected = getattr(tops, name)(x), theirs(x)
    if name in TORCH_WRONG:
        expected = TORCH_WRONG[name](x, expected)
    assert_same_specials(got, expected, f"{name}({str(dtype)[6:]})", exact=name in EXACT)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d)[6:])
def test_polygamma_edge_values(dtype, device):
    """Order 0 is digamma and order 1 trigamma, with torch's special values, but at the negative
    integers, where trigamma has poles (+inf) and torch's sin(pi x) gives a large finite value. Order 1
    against torch's float64 result, rounded: its float32 one is 4e-4 off at -0.9999, next to a pole."""
    x = edge_values(dtype, device)
    assert_same_specials(tops.polygamma(0, x), torch.polygamma(0, x), f"polygamma(0, {str(dtype)[6:]})")
    got, expected = tops.polygamma(1, x), torch.polygamma(1, x.double()).to(dtype)
    poles = (x < 0) & (x == x.round()) & x.isfinite()
    assert got[poles].eq(INF).all()
    assert_same_specials(got[~poles], expected[~poles], f"polygamma(1, {str(dtype)[6:]})")


def every_16_bit_value(dtype, device):
    """Every float16 or bfloat16 bit pattern, as one contiguous 256 x 256 tensor: whole blocks,
    so the compiled kernel loads and stores in vectors. The CPU takes every 16th pattern, and
    every bfloat16 subnormal besides (Triton's interpreter converted them wrongly until kernels
    widened bfloat16 on the bits: lower_to_triton.cast_value)."""
    bits = torch.arange(-2**15, 2**15, dtype=torch.int32).to(torch.int16)
    values = bits.view(dtype)
    if device == "cpu":
        subnormal = (values.float().abs() < torch.finfo(dtype).tiny) & (values != 0)
        values = torch.cat([values[::16], values[subnormal]]) if dtype == torch.bfloat16 else values[::16]
    return values[: values.numel() // 256 * 256].reshape(-1, 256).to(device)


@pytest.mark.parametrize("name", sorted(EXACT))
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=lambda d: str(d)[6:])
def test_exact_unary_ops_on_every_16_bit_value(name, dtype, device):
    """The exact unary ops on every 16-bit value give torch's results bit for bit. Small tensors
    do not reach this: in vectorized code Triton 3.6 compiled bfloat16 sign(x) of negative x to
    +1.0 (an integer -1 cast to bfloat16), which 185-element tests never saw."""
    x = every_16_bit_value(dtype, device)
    if name in CUDA_NO_16_BIT and device == "cuda":  # torch's error, as test_unary_edge_values holds it
        with pytest.raises(NotImplementedError, match=f"{name}_cuda\" not implemented for"):
            getattr(tops, name)(x)
        return
    got, expected = getattr(tops, name)(x), getattr(torch, name)(x)
    if name == "signbit" and dtype == torch.float16 and device == "cuda":
        # torch's CUDA kernel gives False for float16 NaNs whose sign bit is set (an H200, torch
        # 2.11); tritonize reads the sign bit, as torch's CPU kernel and IEEE do. Every other
        # value is held to torch's result bit for bit
        negative_nan = x.isnan() & (x.view(torch.int16) < 0)
        assert got[negative_nan].all()
        got, expected = got[~negative_nan], expected[~negative_nan]
    assert_same_specials(got, expected, f"{name}({str(dtype)[6:]}), every value", exact=True)


BINARY = ["add", "sub", "mul", "div", "pow", "atan2", "hypot", "copysign", "nextafter", "fmod", "remainder",
          "floor_divide", "logaddexp", "logaddexp2", "xlogy", "maximum", "minimum", "fmax", "fmin", "eq", "lt"]
# torch's CPU and CUDA kernels disagree on these signs of zero (max/min of +-0, zero remainders,
# log2(2^a + 2^a) = 0 from half types)
NO_ZERO_SIGN = {"fmod", "remainder", "maximum", "minimum", "fmax", "fmin", "floor_divide", "logaddexp", "logaddexp2"}
BINARY_EXACT = {"add", "sub", "mul", "div", "copysign", "nextafter", "fmod", "maximum", "minimum", "fmax", "fmin",
                "eq", "lt"}


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32], ids=lambda d: str(d)[6:])
def test_binary_edge_values(name, dtype, device):
    x = edge_values(dtype, device)
    pairs = torch.tensor(list(itertools.product(range(len(x)), repeat=2)), device=device)
    a, b = x[pairs[:, 0]], x[pairs[:, 1]]
    got, expected = getattr(tops, name)(a, b), getattr(torch, name)(a, b)
    if name in ("fmod", "remainder", "floor_divide") and device == "cpu":
        # torch's vectorized CPU fmod in float32 gives NaN for tiny divisors and huge quotients
        # (fmod(3.4e38, 0.5)); in float64 these quotients fit, and fmod is exact
        expected = getattr(torch, name)(a.double(), b.double()).to(dtype)
    assert_same_specials(got, expected, f"{name}({str(dtype)[6:]})", zero_sign=name not in NO_ZERO_SIGN,
                         exact=name in BINARY_EXACT)


def test_nan_to_num_defaults_are_the_dtypes_extremes(device):
    for dtype in DTYPES:
        x = edge_values(dtype, device)
        got = tops.nan_to_num(x)
        assert torch.equal(got, torch.nan_to_num(x)), dtype
        assert got.max().item() == torch.finfo(dtype).max
    ints = torch.tensor([1, -2, 3], device=device)
    assert torch.equal(tops.nan_to_num(ints, nan=5.0), ints)


def test_nextafter_steps_one_ulp_of_its_own_dtype(device):
    """nextafter on half types moves by one unit of the half type (the compiler's bit-level
    lowering; computed in float32 and rounded, it would not move)."""
    for dtype in DTYPES:
        x = edge_values(dtype, device)
        for target in (INF, -INF, 0.0):
            y = torch.full_like(x, target)
            got, expected = tops.nextafter(x, y), torch.nextafter(x, y)
            assert_same_specials(got, expected, f"nextafter({dtype}, {target})", exact=True)
    one = torch.ones(3, dtype=torch.float16, device=device)
    assert torch.equal(tops.nextafter(one, 2.0), torch.full_like(one, 1.0009765625))


def test_edge_cases_cover_the_math_cases():
    """Every math case of the accuracy tests is also an edge-value case."""
    from test_ops_cases import MATH
    assert {c.fn for c in MATH} - {"fix", "polygamma"} <= set(UNARY)  # polygamma: test_polygamma_edge_values
    assert BY_ID["nextafter"].exact


ATEN_POW_KERNELS = {0.5: torch.sqrt, -0.5: torch.rsqrt, -1: torch.reciprocal, 3: lambda x: x * x * x,
                    -2: lambda x: 1 / (x * x)}


@pytest.mark.parametrize("exponent", [0.5, -0.5, -1, -1.0, 3, 3.0, -2, -2.0])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_pow_by_the_exponents_aten_special_cases(exponent, dtype, device):
    """torch.pow(tensor, scalar) on CUDA runs sqrt, rsqrt, reciprocal, x * x * x and 1 / (x * x)
    for these exponents (ATen's PowKernel.cu), in the tensor's dtype: pow(-0.0, 0.5) is -0.0 and
    pow(-inf, 0.5) nan (pow's rules: 0.0 and inf), 16-bit cubes round twice. tritonize does so on
    both devices (torch's CPU kernel does for some dtypes only). Edge values exactly as those
    kernels; random values bit for bit in float32, else within 2 ulp (torch's CPU sqrt and its
    rsqrt are not always correctly rounded); on CUDA, against torch.pow itself too."""
    aten = ATEN_POW_KERNELS[exponent]
    x = edge_values(dtype, device)
    assert_same_specials(tops.pow(x, exponent), aten(x), f"pow(x, {exponent!r})")
    if device == "cuda":
        assert_same_specials(tops.pow(x, exponent), torch.pow(x, exponent), f"pow(x, {exponent!r})")
    generator = torch.Generator().manual_seed(5)
    x = (torch.randn(3000, generator=generator) * 4).to(dtype).to(device)
    got = tops.pow(x, exponent)
    if dtype == torch.float32 and exponent not in (0.5, -0.5):
        assert torch.equal(got.nan_to_num(), aten(x).nan_to_num())
    else:  # CUDA's rsqrtf is within 2 ulp, tritonize's rsqrt 1 / sqrt(x)
        torch.testing.assert_close(got, aten(x), rtol=2 * torch.finfo(dtype).eps, atol=0, equal_nan=True)
    out = torch.empty_like(x)
    tops.pow(x, exponent, out=out)
    assert torch.equal(out.nan_to_num(), got.nan_to_num())
    inplace = x.clone()
    tops.pow_(inplace, exponent)
    assert torch.equal(inplace.nan_to_num(), got.nan_to_num())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("beta", [1.0, 1, 2.0, 0.5, 0.25, -2.0, 8192.0])
def test_softplus_by_a_power_of_two_multiplies_exactly(beta, dtype, device):
    """softplus divides by beta (ATen's formula); for a power of two beta tritonize multiplies
    by 1 / beta instead, which rounds the same real number once: bit for bit the division
    kernel's results, on edge values and random ones, with torch's special values."""
    from tritonize.ops import activations
    generator = torch.Generator().manual_seed(11)
    x = torch.cat([edge_values(dtype, device),
                   (torch.randn(2000, generator=generator) * 8).to(dtype).to(device)])
    threshold = 5.0
    got = tops.softplus(x, beta, threshold)
    divided = activations.softplus_kernel(x, beta, threshold)
    assert torch.equal(got.nan_to_num(), divided.nan_to_num()) and torch.equal(got.isnan(), divided.isnan())
    assert torch.equal(got[got == 0].signbit(), divided[divided == 0].signbit())
    assert_same_specials(got, torch.nn.functional.softplus(x, beta, threshold), f"softplus(beta={beta})")
    assert activations._exact_inverse(beta) and not activations._exact_inverse(1.5)
    assert not activations._exact_inverse(2.0 ** -200) and not activations._exact_inverse(True)


def test_numbers_round_to_float32_as_atens_scalars_do_when_asked_again():
    """The op library rounds a number to float32 (the compute dtype of float32 and 16-bit
    tensors) as ATen's `Scalar::to<float>()` does, and keeps the rounding per number: asked again,
    each gives the same value, -0.0 keeps its sign after 0.0 (they are one dict key), values past
    float32's range give infinities, and float64 keeps the number."""
    import math
    import struct

    from tritonize.ops import _common as c

    numbers = [0.1, 0.0, -0.0, 1e-46, -1e-46, 3, True, 1e39, -1e39, 2**200, 0.1 + 2**-40, 65504.5, INF, -INF]
    for _ in range(2):  # the second pass reads what the first kept
        for number in numbers:
            got = c.opmath_number(torch.float32, number)
            try:
                want = struct.unpack("f", struct.pack("f", number))[0]
            except OverflowError:
                want = math.copysign(INF, number)
            assert got == want and math.copysign(1, got) == math.copysign(1, want), (number, got, want)
            assert c.opmath_number(torch.float64, number) == float(number)
    assert math.isnan(c.opmath_number(torch.float32, NAN))
    assert c.opmath_number(torch.float32, torch.tensor(0.1, dtype=torch.float64)) == c.opmath_number(torch.float32, 0.1)
    assert not any(isinstance(key, torch.Tensor) for key in c._FLOAT32_ROUNDED)  # a tensor is not kept alive
    assert torch.tensor(c.opmath_number(torch.bfloat16, 0.1)).item() == torch.tensor(0.1, dtype=torch.float32).item()


def assert_frexp_matches(x, got, expected, label):
    """frexp's mantissa and exponent give torch's bit for bit where x is finite (NaN as NaN); where x is
    infinite or nan, the mantissa is x and the exponent 0, as on torch's CPU (CUDA's frexp leaves that
    exponent unspecified)."""
    mantissa, exponent = got
    assert mantissa.dtype == x.dtype and exponent.dtype == torch.int32, label
    assert_same_specials(mantissa, expected[0], f"{label}: mantissa", exact=True)
    finite = x.isfinite()
    bad = (exponent != expected[1]) & finite
    assert not bool(bad.any()), f"{label}: exponents differ at {x[bad][:8].tolist()}: {exponent[bad][:8].tolist()}"
    assert not bool(exponent[~finite].any()), f"{label}: exponent of inf or nan not 0"
    # mantissa * 2**exponent is x, with 0.5 <= |mantissa| < 1 where x is finite and not 0
    nonzero = finite & (x != 0)
    m = mantissa[nonzero].double()
    assert bool(((m.abs() >= 0.5) & (m.abs() < 1)).all()), label
    # on the CPU, whose ldexp (a product with pow(2, e)) is exact; CUDA's pow(2, e) is not; in two factors:
    # 2**exponent alone leaves float64's range
    m, e = m.cpu(), exponent[nonzero].double().cpu()
    half = e.div(2).floor()
    assert torch.equal(torch.ldexp(torch.ldexp(m, half), e - half), x[nonzero].double().cpu()), label


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d)[6:])
def test_frexp_edge_values(dtype, device):
    x = edge_values(dtype, device)
    assert_frexp_matches(x, tops.frexp(x), torch.frexp(x), f"frexp({str(dtype)[6:]})")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=lambda d: str(d)[6:])
def test_frexp_on_every_16_bit_value(dtype, device):
    x = every_16_bit_value(dtype, device)
    assert_frexp_matches(x, tops.frexp(x), torch.frexp(x), f"frexp({str(dtype)[6:]}), every value")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=lambda d: str(d)[6:])
def test_frexp_of_random_bit_patterns(dtype, device):
    """Every exponent field, subnormals and the powers of two and their neighbours (where log2 rounds
    across an integer) included."""
    bits = torch.int32 if dtype == torch.float32 else torch.int64
    g = torch.Generator().manual_seed(11)
    info = torch.iinfo(bits)
    random = torch.randint(info.min, info.max, (4096,), generator=g, dtype=bits).view(dtype)
    powers = torch.tensor([2.0 ** k for k in range(-1074 if dtype == torch.float64 else -149, 128 if dtype ==
                                                   torch.float32 else 1024, 7)], dtype=torch.float64).to(dtype)
    neighbours = torch.cat([powers, torch.nextafter(powers, torch.zeros_like(powers)),
                            torch.nextafter(powers, torch.full_like(powers, INF)), -powers])
    x = torch.cat([random, neighbours]).to(device)
    assert_frexp_matches(x, tops.frexp(x), torch.frexp(x), f"frexp({str(dtype)[6:]}), bit patterns")


def test_frexp_out_forms_named_tuples_and_errors(device):
    x = torch.randn(3, 5, device=device).t()  # a transposed input: the outputs follow its layout
    result = tops.frexp(x)
    assert isinstance(result, torch.return_types.frexp)
    assert result.mantissa.stride() == torch.frexp(x).mantissa.stride()
    mantissa, exponent = torch.empty(0, device=device), torch.empty(0, dtype=torch.int32, device=device)
    written = tops.frexp(x, out=(mantissa, exponent))
    assert isinstance(written, torch.return_types.frexp_out)
    assert written.mantissa is mantissa and written.exponent is exponent and mantissa.shape == x.shape
    assert torch.equal(mantissa, torch.frexp(x).mantissa) and torch.equal(exponent, torch.frexp(x).exponent)
    wrong = [(torch.arange(3, device=device), None),
             (x, (torch.empty(5, 3, dtype=torch.float64, device=device), exponent)),
             (x, (mantissa, torch.empty(5, 3, dtype=torch.int64, device=device))),
             (x.half(), (mantissa, exponent)),
             (x, (mantissa, torch.empty(5, 3, dtype=torch.float16, device=device)))]
    for value, out in wrong:
        with pytest.raises(RuntimeError) as theirs:
            torch.frexp(value, out=out) if out else torch.frexp(value)
        with pytest.raises(RuntimeError) as ours:
            tops.frexp(value, out=out) if out else tops.frexp(value)
        assert str(ours.value) == str(theirs.value)
