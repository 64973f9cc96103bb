"""Python and PyTorch semantics where raw Triton differs: floor `//` and `%`, true division,
`**`, shifts, promotion over every dtype pair, weak scalars, float64 scalars, opmath."""
from __future__ import annotations

import itertools
import math
import re

import pytest
import torch

from tritonize import Promotion, approximations, ops, pointwise

INF, NAN = float("inf"), float("nan")
DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]


@pointwise
def floordiv(a, b):
    return a // b


@pointwise
def remainder(a, b):
    return a % b


@pointwise
def truediv(a, b):
    return a / b


@pointwise
def power(a, b):
    return a ** b


@pointwise
def shifts(a, b):
    return a << b, a >> b


@pointwise
def add(a, b):
    return a + b


@pointwise
def less(a, b):
    return a < b


@pointwise(promotion="int_to_float")
def half_of(a):
    return a / 2


@pointwise(promotion=["always_bool", Promotion("default", over=("a", "b"))])
def where_like(cond, a, b):
    return cond, a if cond else b


def _bitwise_equal(got, expected):
    """Equal dtype, shape and values, any NaN matching any NaN and zeros carrying their sign
    (compared on the CPU, so that a GPU result can be held to a CPU reference)."""
    got, expected = got.cpu(), expected.cpu()
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    if got.is_floating_point():
        same = (got == expected) | (got.isnan() & expected.isnan())
        assert bool(same.all()), f"\n{got}\n{expected}"
        zeros = expected == 0
        assert torch.equal(torch.signbit(got[zeros]), torch.signbit(expected[zeros])), "signed zeros differ"
    else:
        assert torch.equal(got, expected), f"\n{got}\n{expected}"


INT_PAIRS = torch.tensor([[7, 2], [-7, 2], [7, -2], [-7, -2], [6, 3], [-6, 3], [0, 5], [0, -5], [1, -1],
                          [-2**31, 3], [2**31 - 1, -4], [5, 7], [-5, 7], [5, -7]])


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.int32, torch.int64])
def test_integer_floor_division_and_remainder_match_torch(dtype, device):
    pairs = INT_PAIRS.clamp(torch.iinfo(dtype).min, torch.iinfo(dtype).max).to(dtype).to(device)
    pairs = pairs[pairs[:, 1] != 0]
    a, b = pairs[:, 0], pairs[:, 1]
    _bitwise_equal(floordiv(a, b), torch.floor_divide(a, b))
    _bitwise_equal(remainder(a, b), torch.remainder(a, b))


def test_uint8_division(device):
    a = torch.tensor([7, 200, 0, 255], dtype=torch.uint8, device=device)
    b = torch.tensor([2, 7, 3, 16], dtype=torch.uint8, device=device)
    _bitwise_equal(floordiv(a, b), torch.floor_divide(a, b))
    _bitwise_equal(remainder(a, b), torch.remainder(a, b))


SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 7.0, -7.0, 1e-30, -1e-30, 1e30, float("inf"), float("-inf"), float("nan"),
           0.3, 5.0, -0.75]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_float_floor_division_and_remainder_match_torch(dtype, device):
    grid = torch.tensor(list(itertools.product(SPECIAL, SPECIAL)), dtype=dtype, device=device)
    a, b = grid[:, 0], grid[:, 1]
    _bitwise_equal(floordiv(a, b), torch.floor_divide(a, b))
    expected = torch.remainder(a, b)
    got = remainder(a, b)
    # torch's CPU and CUDA kernels differ on the sign of a zero remainder; compare values
    assert torch.equal(got.isnan(), expected.isnan())
    assert torch.equal(got[~got.isnan()], expected[~expected.isnan()])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_float32_floor_division_gives_c10s_results_bit_for_bit(dtype, device):
    """Float32 `//` (16-bit ones compute in it) lowers to the floor of the correctly rounded
    quotient with an fma's correction, and c10's fmod formula in the band 2^22..2^25 of
    quotients only: bit for bit what c10's div_floor_floating gives, over random bit patterns
    and dividends near multiples of the divisor (the band among them). The reference is that
    formula computed element by element with C's fmod (torch's vectorized CPU fmod is not C's
    for subnormal divisors)."""
    from benchmarks.experiments.floor_divide import eager_formula, float32_pairs

    a, b = float32_pairs(torch.Generator().manual_seed(3), 2048)
    if dtype != torch.float32:
        a, b = a.to(dtype), b.to(dtype)
    expected = eager_formula(a.float(), b.float()).to(dtype)
    _bitwise_equal(floordiv(a.to(device), b.to(device)).cpu(), expected)
    a_number, b_tensor = float(a[7]), b[:64]  # a number dividend: a scalar of the kernel
    _bitwise_equal(floordiv(a_number, b_tensor.to(device)).cpu(),
                   eager_formula(torch.full((64,), a_number, dtype=dtype).float(), b_tensor.float()).to(dtype))


def test_half_floor_division_of_inputs_skips_the_band():
    """The exact floor alone serves `a // b` of two 16-bit inputs (c10's result after rounding,
    for every pair of 16-bit values); a computed operand (float32 inside the kernel), a number
    (float32, not a 16-bit value) and float32 inputs keep c10's formula for the band."""
    @pointwise
    def of_sum(a, b):
        return (a + b) // b

    x = torch.randn(64).to(torch.bfloat16)
    assert "band" not in floordiv.source(x, x) and "band" not in floordiv.source(x.half(), x.half())
    assert "band" in of_sum.source(x, x) and "band" in floordiv.source(x, 0.1)
    assert "band" in floordiv.source(x.float(), x.float()) and "band" in floordiv.source(x, x.half())


def test_python_numbers_floor_like_python():
    for x, y in [(7, 2), (-7, 2), (7, -2), (-7.5, 2), (7.5, -2.0), (-0.0, 3.0)]:
        assert floordiv(x, y).item() == x // y
        assert remainder(x, y).item() == x % y


def test_true_division_is_correctly_rounded(device):
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(4096, generator=generator).to(device) * 100
    b = torch.randn(4096, generator=generator).to(device)
    _bitwise_equal(truediv(a, b), a / b)
    ints = torch.randint(-50, 50, (256,), generator=generator)
    # int / int is float32, as in torch; torch's CUDA kernel multiplies by the reciprocal of a
    # scalar divisor (an ulp off), so the correctly rounded CPU result is the reference
    _bitwise_equal(truediv(ints.to(device), 7).cpu(), ints / 7)


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.int64])
def test_integer_power_with_tensor_exponent_matches_torch(dtype, device):
    base = torch.tensor([2, -3, 1, -1, 0, 5, -2, 3, 7], dtype=dtype, device=device)
    exponent = torch.tensor([3, 3, -4, -3, 0, 2, -1, 4, 9], dtype=dtype, device=device)
    _bitwise_equal(power(base, exponent), torch.pow(base, exponent))


@pytest.mark.parametrize("exponent", [0, 1, 2, 3, 4, 0.5, -1, -2, -0.5, 1.5])
def test_power_by_literal_exponents_matches_torch_special_cases(exponent, device):
    @pointwise
    def by_constant(x):
        return x ** exponent  # a closure constant: a literal to the compiler

    x = torch.tensor([0.5, -1.5, 2.0, 0.0, -0.0, 3.0, float("inf"), float("nan")], device=device)
    if exponent in (0.5, -0.5, 1.5):  # sqrt, rsqrt, pow: vendor functions may differ by an ulp
        torch.testing.assert_close(by_constant(x), torch.pow(x, exponent), equal_nan=True)
    else:
        _bitwise_equal(by_constant(x), torch.pow(x, exponent))


def test_power_integer_constants(device):
    ints = torch.tensor([2, -3, 5], device=device)
    _bitwise_equal(power(ints, 3), torch.pow(ints, 3))

    @pointwise
    def inverse(x):
        return x ** -1  # Python: 2 ** -1 == 0.5 (torch refuses negative integer powers)

    _bitwise_equal(inverse(ints), 1.0 / ints)
    assert power(2, -1).item() == 0  # a runtime exponent: torch's integer rule


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.int64, torch.uint8])
def test_shifts_past_the_width_match_torch(dtype, device):
    a = torch.tensor([1, 5, 100, 3, 127, 1, 9], dtype=dtype, device=device)
    if dtype != torch.uint8:
        a[1] = -5
    b = torch.tensor([0, 1, 3, 7, 8, 63, 31], dtype=dtype, device=device).clamp(max=torch.iinfo(dtype).max)
    left, right = shifts(a, b)
    _bitwise_equal(left, torch.bitwise_left_shift(a, b))
    _bitwise_equal(right, torch.bitwise_right_shift(a, b))


def _sample(dtype, device, zero_dim=False):
    values = torch.tensor([1, 0, 3] if not zero_dim else 2)
    return values.to(dtype).to(device)


@pytest.mark.parametrize("left, right", list(itertools.combinations_with_replacement(DTYPES, 2)))
def test_promotion_parity_over_dtype_pairs(left, right, device):
    a, b = _sample(left, device), _sample(right, device)
    for x, y in [(a, b), (b, a)]:
        expected = torch.add(x, y) if (x.dtype, y.dtype) != (torch.bool, torch.bool) else x | y
        _bitwise_equal(add(x, y), expected)
        _bitwise_equal(less(x, y), x < y)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("other", [2, 2.5, True, "0-d int64", "0-d float64"])
def test_weak_scalars_and_zero_dim_tensors(dtype, other, device):
    a = _sample(dtype, device)
    if isinstance(other, str):
        other = torch.tensor(2, dtype=torch.int64 if "int" in other else torch.float64, device=device)
    expected = a + other if not (dtype == torch.bool and other is True) else a | other
    got = add(a, other)
    assert got.dtype == expected.dtype
    torch.testing.assert_close(got, expected)


def test_float64_scalars_keep_their_precision(device):
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, device=device)
    tiny = 1e-12  # rounds to 0 relative to 1.0 in float32
    _bitwise_equal(add(x, tiny), x + tiny)
    _bitwise_equal(add(x, 0.1), x + 0.1)
    # comparisons happen in float64 too (FlagGems compares in float32)
    _bitwise_equal(less(x, 1.0 + 1e-12), x < 1.0 + 1e-12)


def test_half_computes_in_float32_and_rounds_once(device):
    @pointwise
    def fma_like(x, y):
        return x * y + x * 3.0 - y

    generator = torch.Generator().manual_seed(1)
    for dtype in (torch.float16, torch.bfloat16):
        x = torch.randn(512, generator=generator).to(dtype).to(device)
        y = torch.randn(512, generator=generator).to(dtype).to(device)
        once = (x.float() * y.float() + x.float() * 3.0 - y.float()).to(dtype)
        _bitwise_equal(fma_like(x, y), once)


@pytest.mark.parametrize("int_dtype", [torch.int16, torch.int32, torch.int64, torch.uint8])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_integer_tensors_round_to_the_16_bit_dtype_they_meet(int_dtype, dtype, device):
    """torch casts each tensor operand to the common dtype before computing (int64 2049 + float16 0.5 is
    2048 + 0.5, which rounds to 2048, not 2050): in arithmetic, comparisons, selects, min/max and two-argument
    math, bit for bit torch's; an integer Python number is kept exact, as torch's CUDA kernels keep it."""
    @pointwise
    def mixed(i, h):
        return i * h + i, i < h, (i if h > 0 else h), max(i, h), math.atan2(i, h) + (i + 4097)

    generator = torch.Generator().manual_seed(3)
    high = 256 if int_dtype == torch.uint8 else 9000
    i = torch.randint(0 if int_dtype == torch.uint8 else -high, high, (2048,), generator=generator).to(int_dtype)
    h = (torch.randn(2048, generator=generator) * 3).to(dtype)
    i, h = i.to(device), h.to(device)
    rounded = i.to(dtype).float()  # the integers as the 16-bit dtype holds them, then opmath, rounded once
    expected = ((rounded * h.float() + rounded).to(dtype), i < h, torch.where(h > 0, i.to(dtype), h),
                torch.maximum(i.to(dtype), h),
                (torch.atan2(rounded, h.float()) + (i + 4097).to(dtype).float()).to(dtype))
    for got, want in zip(mixed(i, h), expected):
        _bitwise_equal(got, want)


@pointwise
def with_zero_dim(x, s):
    return x * s + s, x < s, math.atan2(x, s * 3.0) - s, x * s


@pytest.mark.parametrize("zero_dim_dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("in_cpu_memory", [False, True])
def test_zero_dim_float_tensors_round_to_the_16_bit_dtype_they_meet_on_the_gpu(in_cpu_memory, zero_dim_dtype,
                                                                                dtype, device):
    """A 0-d float tensor in GPU memory meets a 16-bit tensor as the 16-bit dtype's value (torch casts every
    tensor operand to the common dtype first: x_bf16 * torch.tensor(0.3, device="cuda") multiplies by
    0.30078125); a 0-d tensor in CPU memory is read exactly, as torch's CUDA kernels read CPU scalars, and
    as every 0-d tensor is read on the CPU. A value computed from the 0-d tensor (s * 3.0, in its own dtype)
    is rounded where it meets the 16-bit tensor."""
    generator = torch.Generator().manual_seed(5)
    x = (torch.randn(2048, generator=generator) * 3).to(dtype).to(device)
    s = torch.tensor(0.1001, dtype=zero_dim_dtype, device="cpu" if in_cpu_memory else device)
    rounds = s.device.type != "cpu"

    def as_met(value):  # the float32 opmath value the kernel computes with
        value = value.to(torch.float32)
        return value.to(dtype).float() if rounds else value

    met, tripled = as_met(s.cpu()), as_met(s.cpu().double() * 3.0)
    xf = x.cpu().float()
    expected = ((xf * met + met).to(dtype), xf < met, (torch.atan2(xf, tripled) - met).to(dtype),
                (xf * met).to(dtype))
    got = with_zero_dim(x, s)
    for got_one, want in zip(got, expected):
        _bitwise_equal(got_one, want)
    if rounds:  # the rounding is what gives eager's results: one product held to eager's own
        _bitwise_equal(got[3], x * s)


def test_no_opmath_rounds_every_half_operation(device):
    """promotion="no_opmath": each 16-bit operation rounds to its dtype, as torch's own 16-bit
    arithmetic (`x * x * x` on bfloat16 tensors) does, on both devices (the interpreter once read
    bfloat16 operands as garbage here); with opmath the same function rounds once."""
    @pointwise(promotion="no_opmath")
    def per_operation(x, y):
        return x * x * x + y / (x * 2.5) - math.exp(y)

    @pointwise
    def once(x, y):
        return x * x * x + y / (x * 2.5) - math.exp(y)

    generator = torch.Generator().manual_seed(4)
    for dtype in (torch.float16, torch.bfloat16):
        x = (torch.randn(4096, generator=generator) * 4).to(dtype).to(device)
        y = torch.randn(4096, generator=generator).to(dtype).to(device)
        in_dtype = x * x * x + y / (x * 2.5) - torch.exp(y)
        _bitwise_equal(per_operation(x, y), in_dtype)
        assert per_operation(x, y).dtype == dtype
        assert not torch.equal(once(x, y), in_dtype)  # one rounding differs somewhere


def test_bfloat16_subnormals_are_read_and_rounded_exactly(device):
    """Every bfloat16 subnormal and zero, read by a kernel: widened into a float32 output, through
    opmath arithmetic, as a bool, and through no_opmath products that round to subnormals, all as
    torch gives them. Triton's interpreter widened bfloat16 subnormals wrongly (9.2e-41 became 0),
    so CPU kernels widen bfloat16 on the bits (lower_to_triton.cast_value)."""
    @pointwise(promotion=torch.float32)
    def widened(x):
        return x

    @pointwise
    def doubled_plus_one(x):
        return x * 2.0 + 1.0

    @pointwise(promotion="always_bool")
    def truthy(x):
        return bool(x)

    @pointwise(promotion="no_opmath")
    def halved_twice(x):
        return x * 0.5 * 0.5

    bits = torch.cat([torch.arange(0, 128), torch.arange(-32768, -32768 + 128)]).to(torch.int16)
    x = bits.view(torch.bfloat16).to(device)
    _bitwise_equal(widened(x).cpu(), x.cpu().float())
    _bitwise_equal(doubled_plus_one(x).cpu(), (x.cpu().float() * 2.0 + 1.0).bfloat16())
    assert torch.equal(truthy(x).cpu(), x.cpu() != 0)
    _bitwise_equal(halved_twice(x).cpu(), x.cpu() * 0.5 * 0.5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_products_and_sums_round_separately_as_in_python(device, dtype):
    """No fma contraction: fused into fma(x, y, -p), p - p for p = x * y came out as the
    product's rounding error (6.9e-05 for radians(1e15) on CUDA) where Python gives 0."""
    @pointwise
    def cancel(x, y):
        p = x * y
        return p - p, x * y + y, math.radians(x) - math.radians(x)

    generator = torch.Generator().manual_seed(3)
    x = (torch.randn(777, generator=generator, dtype=torch.float64) * 1e6).to(dtype).to(device)
    y = torch.randn(777, generator=generator, dtype=torch.float64).to(dtype).to(device)
    x[0] = 1e15
    difference, multiply_add, radians = cancel(x, y)
    _bitwise_equal(difference, torch.zeros_like(x))
    _bitwise_equal(radians, torch.zeros_like(x))
    _bitwise_equal(multiply_add, x * y + y)  # torch's two kernels round twice


def test_explicit_promotion_kinds(device):
    ints = torch.tensor([1, 2, 3], device=device)
    assert half_of(ints).dtype == torch.float32
    torch.testing.assert_close(half_of(ints), ints / 2)
    cond = torch.tensor([1, 0, 1], dtype=torch.int32, device=device)
    a = torch.tensor([1, 2, 3], dtype=torch.int8, device=device)
    c, value = where_like(cond, a, 2.5)
    assert c.dtype == torch.bool and value.dtype == torch.float32
    _bitwise_equal(value, torch.where(cond.bool(), a, 2.5))


def test_math_constants_and_int_arguments(device):
    @pointwise
    def circle(r):
        return math.pi * r * r, math.exp(r)

    r = torch.tensor([1, 2, 3], device=device)
    area, grown = circle(r)
    assert area.dtype == torch.float32 and grown.dtype == torch.float32  # int -> float32, as torch.exp
    torch.testing.assert_close(area, math.pi * r * r)
    torch.testing.assert_close(grown, torch.exp(r))


def test_bool_arithmetic_follows_torch(device):
    a = torch.tensor([True, True, False, False], device=device)
    b = torch.tensor([True, False, True, False], device=device)
    _bitwise_equal(add(a, b), a + b)  # logical or
    assert add(True, True).item() == 2  # Python numbers: Python's int arithmetic


def test_min_max_propagate_nan_like_torch(device):
    @pointwise
    def lo_hi(a, b):
        return min(a, b), max(a, b, 0.0)

    a = torch.tensor([1.0, float("nan"), -2.0, 3.0], device=device)
    b = torch.tensor([float("nan"), 1.0, -3.0, 4.0], device=device)
    lo, hi = lo_hi(a, b)
    _bitwise_equal(lo, torch.minimum(a, b))
    _bitwise_equal(hi, torch.maximum(torch.maximum(a, b), torch.zeros_like(a)))


def test_integer_division_by_a_literal_zero_is_zero_not_a_compiler_crash(device):
    """Undefined as in torch's CUDA kernels (Python raises): a literal 0 divisor, after
    folding, gives 0 instead of reaching Triton's compiler, which crashed folding it."""
    @pointwise
    def by_zero(x, k: int):
        return x // (3 - 3) + x % 0 + x // k

    x = torch.arange(-4, 5, device=device)
    assert torch.equal(by_zero(x, 2), torch.div(x, 2, rounding_mode="floor"))
    assert re.search(r"tl\.full\(\[(BLOCK)?\], 0, tl\.int64\)", by_zero.source(x, 2))

    @pointwise
    def into_math(x):  # the zero is a block where the interpreter's math helpers need one
        return math.atan2(0.0 * (x // 0), x)

    want = torch.tensor([math.atan2(0.0, v) for v in x.tolist()], device=device)
    torch.testing.assert_close(into_math(x), want.float(), rtol=1e-6, atol=0)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64])
def test_integer_division_by_zero_at_run_time_is_zero(device, dtype):
    """x // 0 and x % 0 give 0 on every device (as NumPy), a divisor that Triton's compiler folds
    to a constant 0 (y - y, y * 0) included: its CUDA compile crashed on those (AxisInfo)."""
    @pointwise
    def divisions(x, y):
        return x // y, x % y, x // (y - y), x % (y * 0), 0 // (y // 0)

    low = 0 if dtype == torch.uint8 else -7
    x = torch.arange(low, low + 15, device=device).to(dtype)
    y = torch.tensor([0, 1, 3, 0, 2, 5, 0, 1, 4, 0, 7, 2, 0, 3, 1], device=device).to(dtype)
    if dtype != torch.uint8:
        y[1::3] *= -1
    safe = torch.where(y == 0, torch.ones_like(y), y)
    zero = torch.zeros_like(x)
    floor, rem, by_difference, by_product, nested = divisions(x, y)
    assert torch.equal(floor, torch.where(y == 0, zero, torch.div(x, safe, rounding_mode="floor")))
    assert torch.equal(rem, torch.where(y == 0, zero, torch.remainder(x, safe)))
    for result in (by_difference, by_product, nested):
        assert result.dtype == dtype and torch.equal(result, zero)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_integer_results_cast_to_half_types_keep_their_sign(dtype, device):
    """Integer results of -1 and 0 (a select, a negated comparison) stored as bfloat16 or float16,
    through the output dtype rule and through out=, on 4096 elements (whole blocks, vector
    stores): Triton 3.6 compiles a {-1, 0} integer cast to bfloat16 as if unsigned, +1.0 for -1,
    unless the cast goes through float32's bits."""
    from tritonize import pointwise

    @pointwise(promotion=dtype)
    def indicator(x):
        return -1 if x < 0 else 0

    @pointwise
    def negated_comparison(x):
        return -int(x < 0)

    x = torch.linspace(-3, 3, 4096, device=device).to(dtype)
    expected = -(x < 0).to(dtype)
    assert torch.equal(indicator(x), expected)
    out = torch.empty_like(x)
    assert negated_comparison(x).dtype == torch.int64
    assert torch.equal(negated_comparison(x, out=out), expected) and torch.equal(out, expected)


@pointwise
def rounded(x):
    return round(x)


@pointwise
def rounded_to_cents(x):
    return round(x * 100.0) / 100.0


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_builtin_round_is_torch_round(dtype, device):
    """Python's round(x): to nearest, ties to even (0.5 -> 0, 1.5 -> 2, -2.5 -> -2), the dtype
    and the sign of zero kept, NaN and inf through, as torch.round; every tie and its neighbours
    in the dtype's range of non-integers, and large values that are integers already."""
    info = torch.finfo(dtype)
    ties = torch.arange(-600, 601, dtype=torch.float64) + 0.5
    steps = torch.tensor([-1, 0, 1], dtype=torch.float64) * info.eps
    near = (ties[:, None] * (1 + steps)).flatten()
    values = torch.cat([ties, near, torch.tensor(SPECIAL, dtype=torch.float64),
                        torch.tensor([info.max, -info.max, info.tiny, -info.tiny, 2.0 / info.eps + 1,
                                      0.49999999999999994, -0.49999999999999994, 1e-300, -1e-300])])
    x = values.to(dtype).to(device)
    _bitwise_equal(rounded(x), torch.round(x))
    for value in [0.5, 1.5, 2.5, -0.5, -2.5, 3.7, -3.2]:  # the plain-Python function, on numbers
        assert rounded(torch.tensor([value], dtype=torch.float64, device=device)).item() == round(value)


def test_builtin_round_of_integers_and_literals(device):
    n = torch.tensor([-3, 0, 7, 2**40], dtype=torch.int64, device=device)
    _bitwise_equal(rounded(n), n)  # an integer rounds to itself, as torch.round
    x = torch.tensor([1.005, 2.675, -0.125, 0.125], dtype=torch.float64, device=device)
    _bitwise_equal(rounded_to_cents(x), torch.round(x * 100.0) / 100.0)

    @pointwise
    def folded(x):
        return x + round(2.5) + round(3.5)  # folded when decorated: 2.0 + 4.0, as Python's round
    assert folded(torch.zeros(1, device=device)).item() == 6.0


def test_builtin_round_has_no_gradient(device):
    x = torch.tensor([0.3, 1.7, -2.5], dtype=torch.float64, device=device, requires_grad=True)
    rounded(x).sum().backward()
    assert torch.equal(x.grad, torch.zeros_like(x))


def test_two_to_an_integer_power_is_built_from_bits(device):
    """`2.0 ** e` for an integer tensor e is pow(2.0, e) bit for bit (normal and subnormal powers,
    inf and 0 past float32's range, every integer dtype's extremes) without a pow call; a float
    exponent keeps pow."""
    @pointwise
    def two_to(e):
        return 2.0 ** e

    for dtype in (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64):
        info = torch.iinfo(dtype)
        e = torch.arange(max(info.min, -300), min(info.max, 300) + 1)
        e = torch.cat([e, torch.tensor([info.min, info.max])]).to(dtype)
        _bitwise_equal(two_to(e.to(device)).cpu(), torch.pow(2.0, e))
    assert "pow" not in two_to.source(torch.arange(3)) and "pow" in two_to.source(torch.rand(3))


def test_two_to_a_bfloat16_power_is_exp2(device):
    """`2.0 ** x` for a bfloat16 input x calls exp2, whose result rounds to pow(2.0, x)'s bfloat16
    for every bfloat16 value (checked here bit for bit, as torch.pow gives it); float16 (3 values
    differ on the GPU), float32 and a computed exponent (float32 inside the kernel) keep pow."""
    @pointwise
    def two_to(x):
        return 2.0 ** x

    @pointwise
    def two_to_double(x):
        return 2.0 ** (x + x)

    every = approximations.every_value(torch.bfloat16, device)
    _bitwise_equal(two_to(every).cpu(), torch.pow(2.0, every).cpu())
    _bitwise_equal(ops.pow(2.0, every).cpu(), torch.pow(2.0, every).cpu())
    x = torch.rand(3, dtype=torch.bfloat16)
    assert "exp2" in two_to.source(x)
    assert "exp2" not in two_to.source(x.half()) and "exp2" not in two_to.source(x.float())
    assert "exp2" not in two_to_double.source(x)


@pointwise
def split_exponent(x):
    mantissa, exponent = math.frexp(x)
    return mantissa, exponent


@pointwise
def split_whole(x):
    fraction, whole = math.modf(x)
    return fraction, whole


def _python_pairs(fn, x):
    """fn (a scalar function returning two values) of each element, run as plain Python, as two float64 lists."""
    pairs = [fn(v) for v in x.double().cpu().tolist()]
    return [float(p[0]) for p in pairs], [float(p[1]) for p in pairs]


def _same_floats(got, want: list, label):
    want = torch.tensor(want, dtype=torch.float64)
    got = got.double().cpu()
    same = (got == want) & (got.signbit() == want.signbit()) | (got.isnan() & want.isnan())
    assert bool(same.all()), f"{label}: {got[~same][:6].tolist()} where Python gives {want[~same][:6].tolist()}"


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int32],
                         ids=lambda d: str(d)[6:])
def test_frexp_and_modf_unpack_as_in_python(dtype, device):
    """`m, e = math.frexp(x)` and `f, w = math.modf(x)` give Python's pairs, special values, subnormals and
    the neighbours of powers of two (where log2 rounds across an integer) included; an int x gives float
    results as Python's do (float32, torch's default dtype)."""
    g = torch.Generator().manual_seed(5)
    if dtype.is_floating_point:
        info = torch.finfo(dtype)
        specials = torch.tensor([0.0, -0.0, INF, -INF, NAN, 1.0, -2.0, 2.5, -2.5, info.max, -info.max, info.tiny,
                                 info.tiny / 4, -info.tiny / 8, info.tiny * info.eps], dtype=torch.float64).to(dtype)
        powers = torch.tensor([2.0 ** k for k in range(-20, 21)], dtype=dtype)
        x = torch.cat([specials, powers, torch.nextafter(powers, torch.zeros_like(powers)),
                       torch.nextafter(powers, torch.full_like(powers, INF)),
                       (torch.randn(200, generator=g, dtype=torch.float64) * 1e3).to(dtype)])
    else:
        x = torch.randint(-10**6, 10**6, (200,), generator=g, dtype=dtype)
    x = x.to(device)
    mantissa, exponent = split_exponent(x)
    fraction, whole = split_whole(x)
    float_dtype = dtype if dtype.is_floating_point else torch.float32
    assert (mantissa.dtype, exponent.dtype, fraction.dtype, whole.dtype) == (float_dtype, torch.int64, float_dtype,
                                                                             float_dtype)
    # the scalar functions run as plain Python on the value each computes from: x itself, or an int's float32
    m, e = _python_pairs(split_exponent.scalar_function, x.to(float_dtype))
    _same_floats(mantissa, m, "frexp's mantissa")
    assert exponent.cpu().tolist() == [int(v) for v in e]
    f, w = _python_pairs(split_whole.scalar_function, x.to(float_dtype))
    _same_floats(fraction, f, "modf's fraction")
    _same_floats(whole, w, "modf's whole part")


def test_frexp_and_modf_errors_point_at_the_users_line():
    """A tuple-valued math call used as one value, or unpacked into the wrong number of names, is refused
    at the call, in the user's file."""
    from tritonize import ControlFlowError

    def as_one_value(x):
        return math.frexp(x) + 1.0

    def three_names(x):
        a, b, c = math.modf(x)
        return a

    for fn, message in ((as_one_value, r"math.frexp\(\) returns 2 values, used here as one value; unpack them"),
                        (three_names, "cannot unpack 2 values into 3")):
        with pytest.raises(ControlFlowError, match=message) as error:
            pointwise(fn)
        line = fn.__code__.co_firstlineno + 1
        assert f"test_semantics.py:{line}:" in str(error.value) and "math_helpers" not in str(error.value)


def test_gradients_flow_through_frexp_and_modf(device):
    """d mantissa / dx is 2**-exponent (the exponent is piecewise constant), d fraction / dx is 1 and
    d whole / dx 0, as the inlined helpers' selects, ldexp and trunc give them."""
    @pointwise
    def scaled_parts(x):
        mantissa, exponent = math.frexp(x)
        fraction, whole = math.modf(x)
        return mantissa * exponent + fraction * 3.0 + whole * 5.0

    x = torch.tensor([3.0, 0.1, -7.5, 1e-3, 1000.25, -0.7], dtype=torch.float64, device=device, requires_grad=True)
    (gradient,) = torch.autograd.grad(scaled_parts(x).sum(), x)
    exponents = torch.tensor([math.frexp(v)[1] for v in x.tolist()], dtype=torch.float64, device=device)
    assert torch.equal(gradient, exponents * torch.exp2(-exponents) + 3.0)
