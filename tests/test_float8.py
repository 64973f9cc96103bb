"""8-bit floats (float8_e4m3fn, float8_e5m2) as a @pointwise function's inputs and outputs: read exactly,
computed in float32, rounded once on store as torch's `.to(dtype)` rounds (bit for bit, its overflow rule
included), promoted as torch promotes them (with no other dtype), in any layout."""
from __future__ import annotations

import math

import torch
from hypothesis import given
from hypothesis import strategies as st

import pytest
import triton
from tensor_strategies import broadcast_shapes, laid_out, python_elementwise, shapes
from tritonize import ScalarTypeError, pointwise
from tritonize.decorator import signature_key

FLOAT8 = [torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e8m0fnu]


def plain_product(a, b):
    return a * b


product = pointwise(plain_product)


@pointwise
def scaled(x, scale: float):
    return x * scale


@pointwise
def dequantize(q: torch.float32, scale):
    return q * scale


@pointwise(promotion="no_opmath")
def product_plus(a, b):
    return a * b + a


def bits(t: torch.Tensor) -> torch.Tensor:
    """The 8-bit codes, every NaN as one (a NaN's sign from arithmetic is the machine's: x86 makes them
    negative, the interpreter's numpy and the GPU positive)."""
    t = t.cpu().contiguous()
    return torch.where(t.float().isnan(), -1, t.view(torch.uint8).to(torch.int32))


def every_code(dtype, device) -> torch.Tensor:
    return torch.arange(256, dtype=torch.int32).to(torch.uint8).view(dtype).to(device)


def rounding_cases(dtype) -> torch.Tensor:
    """float32 values where rounding to `dtype` decides something: every value of the format, the midpoints
    between neighbours (ties) and one float32 step to each side of them, overflow (e4m3fn: 448 to 480 and
    beyond, where torch's rule changed in 2.12; e5m2: from 57344 to inf), subnormals of both formats and
    of float32, infinities, NaN, and random values over the whole range."""
    values = every_code(dtype, "cpu").float()
    finite = values[values.isfinite()].unique()
    middles = (finite[:-1].double() + finite[1:].double()) / 2
    middles = middles.float()
    steps = [middles, torch.nextafter(middles, torch.tensor(float("inf"))),
             torch.nextafter(middles, torch.tensor(-float("inf")))]
    top = torch.finfo(dtype).max
    edges = torch.tensor([top, top * 1.03, top * 1.0625, top * 1.07, top * 1.071428, top * 1.1, top * 2, 1e6, 3e38,
                          float("inf"), float("nan"), 0.0, 1e-45, 1e-40, 2.0**-126, 1e-30])
    generator = torch.Generator().manual_seed(8)
    random = torch.randn(4000, generator=generator, dtype=torch.float64) * torch.logspace(
        -12, 6, 4000, dtype=torch.float64)
    cases = torch.cat([values, *steps, edges, random.float()])
    return torch.cat([cases, -cases])


@pytest.mark.parametrize("dtype", FLOAT8, ids=str)
def test_every_code_reads_as_torch_widens_it(dtype, device):
    codes = every_code(dtype, device)
    widened = pointwise(promotion=torch.float32)(lambda v: v)(codes)
    expected = codes.float()
    assert widened.dtype == torch.float32
    same = (widened == expected) | (widened.isnan() & expected.isnan())
    assert bool(same.all()), codes[~same]
    assert torch.equal(torch.signbit(widened[~widened.isnan()]), torch.signbit(expected[~expected.isnan()]))


@pytest.mark.parametrize("dtype", FLOAT8, ids=str)
def test_rounding_to_8_bits_is_torchs_bit_for_bit(dtype, device):
    x = rounding_cases(dtype).to(device)
    rounded = pointwise(promotion=dtype)(lambda v: v)(x)
    assert rounded.dtype == dtype
    expected = x.to(dtype)
    differ = bits(rounded) != bits(expected)
    assert not bool(differ.any()), list(zip(x.cpu()[differ].tolist()[:8], rounded.cpu()[differ].float().tolist()[:8],
                                            expected.cpu()[differ].float().tolist()[:8]))


@pytest.mark.parametrize("dtype", FLOAT8, ids=str)
def test_float64_and_16_bit_values_round_through_float32_as_torch_does(dtype, device):
    x = rounding_cases(dtype).double().to(device)
    x = torch.cat([x, x + x * 2.0**-30])  # float64 values that float32 rounds first
    for source in (x, x.to(torch.bfloat16), x.to(torch.float16)):
        rounded = pointwise(promotion=dtype)(lambda v: v)(source)
        assert torch.equal(bits(rounded), bits(source.to(dtype))), source.dtype


@pytest.mark.parametrize("dtype", FLOAT8, ids=str)
def test_8_bit_operands_compute_in_float32_and_round_once(dtype, device):
    """The product of two 8-bit values is exact in float32 (and in Python's float64), so its one rounding is
    the whole difference: torch's (a.float() * b.float()).to(dtype), and the scalar function's."""
    codes = every_code(dtype, device)
    a, b = codes.view(16, 16), codes.view(16, 16).t()
    got = product(a, b)
    assert got.dtype == torch.result_type(a, b) == dtype
    assert torch.equal(bits(got), bits((a.float() * b.float()).to(dtype)))
    python = torch.tensor(python_elementwise(plain_product, [a, b], (16, 16))[0], dtype=torch.float64)
    python = python.view(16, 16).to(torch.float32).to(dtype)
    assert torch.equal(bits(got), bits(python))


@pytest.mark.parametrize("dtype", FLOAT8, ids=str)
def test_numbers_and_0d_tensors_beside_8_bit_tensors_keep_the_8_bit_dtype(dtype, device):
    x = every_code(dtype, device)
    for other in (2.5, 3, True, torch.tensor(0.3, device=device), torch.tensor(7, device=device)):
        got = product(x, other)
        assert got.dtype == torch.result_type(x, other) == dtype, other
        factor = other.item() if isinstance(other, torch.Tensor) else other
        # a Python number is exact in the kernel (as in any @pointwise function); a 0-d float tensor is float32
        assert torch.equal(bits(got), bits((x.double() * float(factor)).float().to(dtype))), other
    got = scaled(x, 0.1)
    assert torch.equal(bits(got), bits((x.double() * 0.1).float().to(dtype)))


@pytest.mark.parametrize("dtype", FLOAT8, ids=str)
def test_no_opmath_rounds_every_operation_to_8_bits(dtype, device):
    codes = every_code(dtype, device)
    a, b = codes.view(16, 16), codes.view(16, 16).t()
    first = (a.float() * b.float()).to(dtype)
    expected = (first.float() + a.float()).to(dtype)
    assert torch.equal(bits(product_plus(a, b)), bits(expected))


@pytest.mark.parametrize("dtype", FLOAT8, ids=str)
def test_a_float32_annotation_dequantizes(dtype, device):
    q = every_code(dtype, device).view(16, 16)
    scale = torch.linspace(-2, 2, 16, device=device)
    got = dequantize(q, scale)
    expected = q.float() * scale
    assert got.dtype == torch.float32
    assert bool(((got == expected) | (got.isnan() & expected.isnan())).all())


@pytest.mark.parametrize("dtype", FLOAT8, ids=str)
def test_out_of_8_bits_is_rounded_on_store(dtype, device):
    x = rounding_cases(dtype).to(device)
    out = torch.empty(x.shape, dtype=dtype, device=device)
    result = scaled(x, 3.0, out=out)
    assert result is out
    assert torch.equal(bits(out), bits((x.double() * 3.0).float().to(dtype)))


@pytest.mark.parametrize("other", [torch.float32, torch.bfloat16, torch.int32, torch.bool, "the other 8-bit"])
def test_8_bit_floats_meet_no_other_dtype(other, device):
    """torch promotes an 8-bit float with nothing else: the call is refused where the operands meet, with the
    user's line, both dtypes and the way out."""
    x = torch.ones(4, device=device).to(torch.float8_e4m3fn)
    y = torch.ones(4, device=device).to(torch.float8_e5m2 if other == "the other 8-bit" else other)
    with pytest.raises(RuntimeError, match="Promotion for Float8"):
        torch.result_type(x, y)
    with pytest.raises(ScalarTypeError) as info:
        product(x, y)
    message = str(info.value)
    assert "float8_e4m3fn" in message and str(y.dtype).replace("torch.", "") in message
    assert "test_float8.py:" in message and "return a * b" in message and "torch.float32" in message


@given(data=st.data(), dtype=st.sampled_from(FLOAT8))
def test_8_bit_tensors_in_any_layout_and_broadcast(data, dtype, device):
    shape = data.draw(shapes(max_rank=4, max_numel=300))
    a_shape, b_shape = data.draw(broadcast_shapes(shape, 2))
    generator = torch.Generator().manual_seed(data.draw(st.integers(0, 2**16)))
    codes = every_code(dtype, "cpu")
    a = codes[torch.randint(0, 256, a_shape, generator=generator)]
    b = codes[torch.randint(0, 256, b_shape, generator=generator)]
    a, b = data.draw(laid_out(a, device)), data.draw(laid_out(b, device))
    got = product(a, b)
    assert got.shape == torch.broadcast_shapes(a.shape, b.shape) and got.dtype == dtype
    assert torch.equal(bits(got), bits((a.float() * b.float()).to(dtype)))
    back = dequantize(a, 1.0)
    assert bool(((back == a.float()) | back.isnan()).all())


@pytest.mark.parametrize("source", [torch.float32, torch.bfloat16])
def test_the_readmes_quantize_is_torchs_scale_clamp_and_cast(source, device):
    @pointwise(promotion=torch.float8_e4m3fn)
    def quantize(x, scale):
        return min(max(x * scale, -448.0), 448.0)

    x = rounding_cases(torch.float8_e4m3fn).to(device).to(source)
    got = quantize(x, 1.7)
    # one kernel: the product in float32 (a number beside a 16-bit tensor is read in float32, as torch's CUDA
    # kernels read it), rounded once, to 8 bits, where torch's chain of ops rounds a bfloat16 product to
    # bfloat16 first; for float32 the chain is the same
    expected = (x.float() * 1.7).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    if source == torch.float32:
        assert torch.equal(bits(expected), bits((x * 1.7).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)))
    assert got.dtype == torch.float8_e4m3fn
    assert torch.equal(bits(got), bits(expected))


@pointwise
def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


@pytest.mark.parametrize("dtype", FLOAT8, ids=str)
def test_math_on_8_bit_floats_rounds_the_float32_result(dtype, device):
    """exp and a division on every 8-bit input: the float32 result rounded once (on CUDA the kernel may run
    approximate exp and division, kept only where they give the exact kernel's 8 bits on every input)."""
    x = every_code(dtype, device)
    got = sigmoid(x)
    assert got.dtype == dtype
    expected = (1.0 / (1.0 + torch.exp(-x.double()))).float().to(dtype)
    assert torch.equal(bits(got), bits(expected))


@pointwise
def halve_as_e5m2(x: torch.float8_e5m2):
    return x * 0.5


def test_an_8_bit_annotation_reads_any_tensor_as_torchs_cast(device):
    """`x: torch.float8_e5m2` converts a float32 tensor on load as x.to(torch.float8_e5m2) would; the value is
    then an 8-bit float (a number beside it is weak)."""
    x = rounding_cases(torch.float8_e5m2).to(device)
    got = halve_as_e5m2(x)
    assert got.dtype == torch.float8_e5m2
    assert torch.equal(bits(got), bits((x.to(torch.float8_e5m2).float() * 0.5).to(torch.float8_e5m2)))



@pointwise(promotion=torch.float8_e4m3fn)
def scaled_to_e4m3fn(x, scale):
    return x * scale


@pointwise(promotion=torch.float8_e4m3fn)
def e4m3fn_ones(x):
    return 1.0


def entries_and_exits(device) -> list:
    """A call for each way an 8-bit float enters or leaves a kernel: a float32 tensor rounded to e4m3fn on
    store, an e4m3fn tensor read as float32, e4m3fn in and out, and an e4m3fn constant."""
    q = every_code(torch.float8_e4m3fn, device)
    x = q.float().nan_to_num(0.0)
    return [(scaled_to_e4m3fn, (x, 0.5), (x * 0.5).to(torch.float8_e4m3fn)),
            (dequantize, (q, 2.0), q.float() * 2.0),
            (product, (q, q), (q.float() * q.float()).to(torch.float8_e4m3fn)),
            (e4m3fn_ones, (x,), torch.ones_like(x).to(torch.float8_e4m3fn))]


def test_kernels_hold_8_bit_floats_as_their_uint8_codes(device):
    """Triton types float8_e4m3fn only from compute capability 8.9 ("type fp8e4nv not supported in this
    architecture" before): a kernel takes an 8-bit tensor as a uint8 view and converts its codes on the bits,
    so no Triton 8-bit type appears in it, and its results are torch's."""
    for fn, args, expected in entries_and_exits(device):
        source = fn.source(*args)
        assert "tl.float8" not in source and "fp8" not in source, fn.__name__
        assert "view(torch.uint8)" in source, fn.__name__
        got = fn(*args)
        assert got.dtype == expected.dtype, fn.__name__
        if got.dtype in FLOAT8:
            assert torch.equal(bits(got), bits(expected)), fn.__name__
        else:
            torch.testing.assert_close(got, expected, rtol=0, atol=0, equal_nan=True)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="compiles for a CUDA target")
def test_8_bit_kernels_compile_for_an_a100(device):
    """The kernels Triton compiled for this GPU compile for compute capability 8.0 too (an A100), where Triton
    has no float8_e4m3fn type."""
    from triton.backends.compiler import GPUTarget

    for fn, args, _ in entries_and_exits(device):
        fn(*args)
        fn(*args)  # the second call of a signature keeps its recipe, with the kernel Triton compiled
        recipe = fn._recipes[signature_key(args)]
        ampere = triton.compile(recipe.compiled.src, target=GPUTarget("cuda", 80, 32))
        assert ampere.metadata.target.arch == 80 and "fp8" not in ampere.asm["ttgir"], fn.__name__


@pointwise(promotion=torch.float8_e8m0fnu)
def mx_scale(amax):
    return amax / 448.0


def test_the_readmes_mx_scale_is_torchs(device):
    """An e8m0 block scale from each block's absolute maximum: the correctly rounded float32 quotient
    amax / 448 (a @pointwise division; torch's CUDA kernel multiplies by 1 / 448, which can land below
    1.5 x 2^e) rounded as torch's .to(float8_e8m0fnu), the powers of two and the values 1.5 x 2^e (which round
    up) among them."""
    generator = torch.Generator().manual_seed(4)
    amax = (torch.rand(2000, generator=generator) * torch.logspace(-30, 30, 2000)).to(device)
    powers = 2.0 ** torch.arange(-20, 20, device=device)
    amax = torch.cat([amax, 448.0 * powers, 672.0 * powers])  # 672 / 448 = 1.5
    got = mx_scale(amax)
    assert got.dtype == torch.float8_e8m0fnu
    assert torch.equal(bits(got), bits((amax.double() / 448.0).float().to(torch.float8_e8m0fnu)))
