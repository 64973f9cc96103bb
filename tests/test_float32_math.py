"""passes/float32_math.py: each composite pasted into a module whose only globals are `triton`
and `tl` (as the code generator pastes it), run through Triton's interpreter on CPU float32
tensors and, where a GPU is present, compiled; compared with torch's float64 function in
float32 ulps, special values exactly."""
import ast
import importlib.util
import math
import sys

import numpy
import pytest
import torch
import triton
from triton.runtime.interpreter import InterpretedFunction

from tritonize.passes import float32_math
from helper_rules import assert_follows_generator_rules
from tritonize.passes.build_module import is_helper, math_helpers
from tritonize.passes.math_table import MATH_TABLE

HELPERS = {name: fn for name, fn in vars(float32_math).items() if name.startswith("f32_")}
GPU = torch.cuda.is_available()


# how a kernel of load_module gives its helper the elements: a 1-D block, a scalar (a kernel whose input is
# broadcast from one element loads it as one) or a 2-D block (a tile; its rows summed into the 1-D store)
BLOCK_SHAPES = {"1-D": ("tl.load(x{k}_ptr + i, mask=i < n)", "{}"),
                "scalar": ("tl.load(x{k}_ptr)", "{}"),
                "2-D": ("tl.load(x{k}_ptr + i[:, None] * 2 + tl.arange(0, 2)[None, :])", "tl.sum({}, axis=1)")}


def load_module(tmp_path_factory, helper: str, jit: bool, arity: int = 1, shape: str = "1-D"):
    """`helper`, copied by the code generator's own math_helpers (with the helpers it calls, each
    jitted as the generator jits them), and a kernel that applies it to blocks of `shape` (BLOCK_SHAPES)."""
    helpers = math_helpers({helper})
    for function in helpers:
        function.decorator_list = [ast.parse("triton.jit", mode="eval").body] if jit else []
    decorator = "@triton.jit\n" if jit else ""
    args = ", ".join(f"x{k}_ptr" for k in range(arity))
    load, stored = BLOCK_SHAPES[shape]
    loads = ", ".join(load.format(k=k) for k in range(arity))
    text = "import triton\nimport triton.language as tl\n\n\n" + ast.unparse(ast.Module(body=helpers, type_ignores=[]))
    text += (f"\n\n\n{decorator}def apply_kernel({args}, out_ptr, n, BLOCK: tl.constexpr):\n"
             "    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
             f"    tl.store(out_ptr + i, {stored.format(f'{helper}({loads})')}, mask=i < n)\n")
    suffix = "" if shape == "1-D" else f"_{shape.replace('-', '')}"
    return import_text(tmp_path_factory, f"{helper}_{'jit' if jit else 'interpreted'}{suffix}", text)


def import_text(tmp_path_factory, stem: str, text: str):
    """The module of source `text`, written to a file named `stem` and imported from it."""
    path = tmp_path_factory.mktemp("float32_math") / f"{stem}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # triton.jit finds its function's module again
    spec.loader.exec_module(module)
    return module


def elementwise(helper: str, device: str, tmp_path_factory, arity: int = 1):
    """A function applying `helper` to each element (of each of `arity` float32 tensors of one
    shape), on the interpreter (cpu) or compiled (cuda)."""
    kernel = load_module(tmp_path_factory, helper, jit=device == "cuda", arity=arity).apply_kernel
    if device == "cpu":
        kernel = InterpretedFunction(kernel)

    def run(*xs):
        xs = [x.to(device=device, dtype=torch.float32).contiguous() for x in xs]
        out = torch.empty_like(xs[0])
        with numpy.errstate(all="ignore"):  # the interpreter's numpy: 1 / 0 is the infinity asked for
            kernel[(triton.cdiv(out.numel(), 1024),)](*xs, out, out.numel(), BLOCK=1024)
        return out.cpu()
    run.device = device
    return run


DEVICES = ["cpu"] + (["cuda"] if GPU else [])


@pytest.fixture(scope="module", params=DEVICES)
def f32_erf(request, tmp_path_factory):
    return elementwise("f32_erf", request.param, tmp_path_factory)


@pytest.fixture(scope="module", params=DEVICES)
def f32_digamma(request, tmp_path_factory):
    return elementwise("f32_digamma", request.param, tmp_path_factory)


@pytest.fixture(scope="module", params=DEVICES)
def f32_trigamma(request, tmp_path_factory):
    return elementwise("f32_trigamma", request.param, tmp_path_factory)


@pytest.fixture(scope="module", params=DEVICES)
def f32_i0e(request, tmp_path_factory):
    return elementwise("f32_i0e", request.param, tmp_path_factory)


@pytest.fixture(scope="module", params=DEVICES)
def f32_i1e(request, tmp_path_factory):
    return elementwise("f32_i1e", request.param, tmp_path_factory)


BESSEL_JY = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1")


@pytest.fixture(scope="module", params=[(name, device) for name in BESSEL_JY for device in DEVICES],
                ids=lambda param: "-".join(param))
def f32_bessel_jy(request, tmp_path_factory):
    name, device = request.param
    run = elementwise(f"f32_{name}", device, tmp_path_factory)
    run.name = name
    return run


@pytest.fixture(scope="module", params=DEVICES)
def f32_k0(request, tmp_path_factory):
    return elementwise("f32_k0", request.param, tmp_path_factory)


@pytest.fixture(scope="module", params=DEVICES)
def f32_k1(request, tmp_path_factory):
    return elementwise("f32_k1", request.param, tmp_path_factory)


@pytest.fixture(scope="module", params=DEVICES)
def f32_k0e(request, tmp_path_factory):
    return elementwise("f32_k0e", request.param, tmp_path_factory)


@pytest.fixture(scope="module", params=DEVICES)
def f32_k1e(request, tmp_path_factory):
    return elementwise("f32_k1e", request.param, tmp_path_factory)


@pytest.fixture(scope="module", params=DEVICES)
def f32_atan(request, tmp_path_factory):
    return elementwise("f32_atan", request.param, tmp_path_factory)


@pytest.fixture(scope="module", params=DEVICES)
def f32_atan2(request, tmp_path_factory):
    return elementwise("f32_atan2", request.param, tmp_path_factory, arity=2)


@pytest.fixture(scope="module", params=DEVICES)
def f32_hypot(request, tmp_path_factory):
    return elementwise("f32_hypot", request.param, tmp_path_factory, arity=2)


def ulps(got, exact):
    """|got - exact| in units of the float32 spacing at exact."""
    magnitude = exact.float().abs()
    spacing = torch.nextafter(magnitude, torch.tensor(math.inf)) - magnitude
    return ((got.double() - exact).abs() / spacing.double())


def test_f32_erf_is_within_two_ulp(f32_erf):
    dense = torch.linspace(-5, 5, 200_001)  # both branches, the switch at |x| = 1.00296, the tail
    tiny = torch.logspace(-38, 0, 20_001)  # down to float32's normals, where x + x * p must not flush
    below_one = torch.nextafter(torch.tensor(1.0), torch.tensor(0.0))
    switch = torch.tensor(1.002959966659546)
    x = torch.cat([dense, tiny, -tiny, torch.stack([below_one, -below_one]),
                   torch.stack([switch, torch.nextafter(switch, torch.tensor(0.0))]),
                   torch.tensor([1.0, -1.0, 3.9999998, 4.0, 4.0000005, 9.5])])
    error = ulps(f32_erf(x), torch.erf(x.double()))
    worst = int(error.argmax())
    assert error.max() <= 2.0, f"{error.max():.2f} ulp at x = {x[worst].item()!r}"
    assert error.mean() < 0.5


def test_f32_erf_special_values(f32_erf):
    x = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 10.0, -10.0, 1e30, 1e-45, -1e-45])
    got = f32_erf(x)
    assert torch.equal(got[:4], torch.tensor([0.0, -0.0, 1.0, -1.0]))
    assert torch.equal(got[:2].signbit(), torch.tensor([False, True]))  # erf(-0.0) is -0.0
    assert got[4].isnan()
    assert torch.equal(got[5:8], torch.tensor([1.0, -1.0, 1.0]))
    assert torch.equal(got[8:], x[8:])  # erf(x) = 1.128 x rounds to x at the smallest subnormal


def every_float32(chunk: int = 2**26):
    """Every float32 bit pattern, in CUDA tensors of `chunk` values."""
    for start in range(-2**31, 2**31, chunk):
        yield torch.arange(start, start + chunk, dtype=torch.int64, device="cuda").to(torch.int32).view(torch.float32)


def random_bit_pairs(count: int, seed: int) -> tuple:
    """Two float32 CUDA tensors of random bit patterns: every magnitude, subnormals, infinities, NaNs."""
    generator = torch.Generator(device="cuda").manual_seed(seed)
    bits = torch.randint(-2**31, 2**31, (2, count), generator=generator, device="cuda", dtype=torch.int64)
    x, y = bits.to(torch.int32).view(torch.float32)
    return x, y


def assert_same_bits(got, expected, *inputs):
    """got is expected bit for bit (any NaN for any NaN); else the count and the first inputs that differ."""
    same = (got.view(torch.int32) == expected.view(torch.int32)) | (got.isnan() & expected.isnan())
    if not bool(same.all()):
        first = int((~same).nonzero()[0])
        raise AssertionError(f"{int((~same).sum())} of {got.numel()} differ, first at "
                             f"{tuple(t[first].item() for t in inputs)}: {got[first].item()!r}, "
                             f"expected {expected[first].item()!r}")


@pytest.mark.skipif(not GPU, reason="CUDA's erff is eager's on a GPU")
def test_f32_erf_is_cudas_erff_bit_for_bit_on_every_float32(tmp_path_factory):
    """Compiled, f32_erf takes erff's steps: every one of the 2^32 float32 bit patterns (NaN
    payloads aside: any NaN) gives torch.erf's CUDA result, which calls erff."""
    f32_erf = load_module(tmp_path_factory, "f32_erf", jit=True).apply_kernel
    for x in every_float32():
        out = torch.empty_like(x)
        f32_erf[(x.numel() // 1024,)](x, out, x.numel(), BLOCK=1024)
        assert_same_bits(out, torch.erf(x), x)


def test_f32_hypot_is_within_one_ulp_at_every_scale(f32_hypot):
    """Scaled by the larger's exponent, no square overflows or flushes: pairs from 1e-44 to 3e38,
    of like and unlike magnitudes, within 1 ulp of float64 hypot compiled (the one fma and sqrt_rn);
    1.5 in the interpreter, whose fma in Triton 3.6 rounds the product apart (1.11 ulp seen there)."""
    generator = torch.Generator().manual_seed(5)
    exponents = torch.randint(-146, 128, (2, 200_000), generator=generator).double()
    mantissas = 1.0 + torch.rand(2, 200_000, generator=generator, dtype=torch.float64)
    signs = torch.randint(0, 2, (2, 200_000), generator=generator) * 2.0 - 1.0
    x, y = (signs * mantissas * 2.0 ** exponents).float()
    x, y = x[x.isfinite() & y.isfinite()], y[x.isfinite() & y.isfinite()]
    exact = torch.hypot(x.double(), y.double())
    finite = exact < 3.4e38
    error = ulps(f32_hypot(x, y), exact)[finite]
    worst = int(error.argmax())
    worst_pair = (x[finite][worst].item(), y[finite][worst].item())
    assert error.max() <= (1.0 if f32_hypot.device == "cuda" else 1.5), f"{error.max():.2f} ulp at {worst_pair}"


def test_f32_hypot_special_values(f32_hypot):
    inf, nan = math.inf, math.nan
    x = torch.tensor([3.0, -3.0, 0.0, -0.0, 0.0, inf, nan, -inf, nan, 2.0, 3e38, 1e-45, 0.0])
    y = torch.tensor([4.0, -4.0, 0.0, 0.0, -5.0, nan, inf, 1.0, 1.0, nan, 3e38, 1e-45, 1e-45])
    got = f32_hypot(x, y)
    assert torch.equal(got[:6], torch.tensor([5.0, 5.0, 0.0, 0.0, 5.0, inf]))
    assert not got[2:4].signbit().any()
    assert torch.equal(got[6:8], torch.tensor([inf, inf]))
    assert got[8:10].isnan().all()
    assert got[10].item() == inf  # 4.2e38 overflows float32
    # the smallest subnormal: sqrt(2) of it rounds to it; with a zero, it is the larger
    assert torch.equal(got[11:], torch.tensor([1e-45, 1e-45]))


@pytest.mark.skipif(not GPU, reason="nvcc's hypotf is eager's on a GPU")
def test_f32_hypot_is_nvccs_hypotf_bit_for_bit(tmp_path_factory):
    """Compiled, f32_hypot gives torch.hypot's CUDA results on 2^24 pairs of random bit patterns
    (every magnitude, subnormals, infinities and NaNs) and on 2^22 pairs of normal samples."""
    f32_hypot = load_module(tmp_path_factory, "f32_hypot", jit=True, arity=2).apply_kernel
    normal = torch.randn(2, 2**22, generator=torch.Generator(device="cuda").manual_seed(3), device="cuda")
    for x, y in (random_bit_pairs(2**24, 3), normal):
        out = torch.empty_like(x)
        f32_hypot[(x.numel() // 1024,)](x, y, out, x.numel(), BLOCK=1024)
        assert_same_bits(out, torch.hypot(x, y), x, y)


def test_f32_digamma_is_within_three_ulp_above_zero(f32_digamma):
    """x > 0 (the root near 1.4616, both sides of 1, 2 and 4 where the method changes, tiny and
    huge x) against float64 digamma: within 3 ulp (the recurrence's sum at x = 2.009 is 2.6 in
    fit_digamma.py's emulation; the GPU's `/` adds up to 2 ulp to a term)."""
    generator = torch.Generator().manual_seed(0)
    root = 1.4616321449683622
    x = torch.cat([torch.linspace(1e-3, 12.0, 60_001), torch.rand(20_000, generator=generator) * 100,
                   torch.logspace(-30, 30, 4001), root + torch.linspace(-1e-3, 1e-3, 2001),
                   torch.tensor([1.0, 2.0, 3.0, 4.0, 3.9999998, 4.0000005, 1e38])]).float()
    x = x[x > 0]
    exact = torch.digamma(x.double())
    away = (x.double() - root).abs() > 1e-4  # next to the root the relative error of any float32 psi grows
    error = ulps(f32_digamma(x), exact)
    worst = int(error[away].argmax())
    assert error[away].max() <= 3.0 + 2.0 * (x.device.type == "cuda"), \
        f"{error[away].max():.2f} ulp at x = {x[away][worst].item()!r}"
    assert error.mean() < 0.6
    # next to the root, |psi| < 1e-4: its error stays ~1e-7 of that, since t - t0 is formed exactly
    close = (f32_digamma(x[~away]).double() - exact[~away]).abs()
    assert close.max() < 2e-10


def test_f32_digamma_reflects_below_zero(f32_digamma):
    """x < 0, away from its poles: within 1e-6 of max(|psi(x)|, 1) against float64 digamma (next
    to psi's zeros the reflection cancels, as torch's does)."""
    generator = torch.Generator().manual_seed(1)
    x = -(torch.rand(60_000, generator=generator) * 12.0)
    x = x[(x - x.round()).abs() > 1e-3].float()
    exact = torch.digamma(x.double())
    error = (f32_digamma(x).double() - exact).abs() / exact.abs().clamp_min(1.0)
    assert error.max() < 1e-6, f"{error.max():.2e} at x = {x[int(error.argmax())].item()!r}"


def test_f32_digamma_parts_taken_per_block_give_each_element_its_value(f32_digamma):
    """Each part (the polynomial and recurrence below 4, the asymptotic series above, the reflection below 0)
    runs only in blocks that have such elements: blocks of (0, 4) only, of [6, 1e6) only, of negatives only and
    of all three give every element the same bits, whichever block it is in (sorted against shuffled), the
    special values included. (f32_trigamma is straight-line: its branches measured 1.2-1.4x slower.)"""
    generator = torch.Generator().manual_seed(6)
    edges = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 4.0, 3.9999998, 6.0, 5.9999995, -3.0, -2.5,
                          1e-40, 3e38])
    x = torch.cat([torch.rand(1024, generator=generator) * 4, 6.0 + torch.rand(1024, generator=generator) * 1e6,
                   torch.rand(1024, generator=generator) * -20,
                   torch.cat([torch.rand(1024 - len(edges), generator=generator) * 60 - 30, edges])])
    shuffled = torch.randperm(x.numel(), generator=generator)
    assert_same_bits(f32_digamma(x[shuffled]), f32_digamma(x)[shuffled], x[shuffled])


def test_f32_digamma_special_values(f32_digamma):
    x = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, -1.0, -2.0, -3.0, -1e10, 1.0])
    got = f32_digamma(x)
    assert torch.equal(got[:3], torch.tensor([-math.inf, math.inf, math.inf]))
    assert got[3:9].isnan().all()
    assert abs(got[9].item() - (-0.5772156649015329)) < 1e-7  # psi(1) = -Euler's constant


def test_f32_trigamma_is_within_six_ulp(f32_trigamma):
    """x > 0 (both sides of 6, where the series takes over, tiny and huge x) and x < 0 away from the
    poles, against the float64 value (tritonize.math.trigamma, exact to a few float64 ulp): within 6 ulp
    (the six steps' fraction rounds a dozen times; the GPU's `/` adds up to 2 ulp a division), where
    torch's own float32 polygamma(1, x) is 6 ulp off above zero and thousands below."""
    import tritonize.math as tm

    generator = torch.Generator().manual_seed(0)
    x = torch.cat([torch.linspace(1e-3, 12.0, 30_001), torch.rand(10_000, generator=generator) * 100,
                   torch.logspace(-19, 30, 2001), torch.tensor([1.0, 2.0, 5.9999995, 6.0, 6.0000005, 1e38]),
                   -(torch.rand(20_000, generator=generator) * 12.0)]).float()
    x = x[(x > 0) | ((x - x.round()).abs() > 1e-3)]
    exact = torch.tensor([tm.trigamma(v) for v in x.double().tolist()], dtype=torch.float64)
    error = ulps(f32_trigamma(x), exact)
    worst = int(error.argmax())
    assert error.max() <= 6.0 + 2.0 * (x.device.type == "cuda"), f"{error.max():.2f} ulp at x = {x[worst].item()!r}"
    assert error.mean() < 1.0


def test_f32_trigamma_special_values(f32_trigamma):
    x = torch.tensor([0.0, -0.0, -1.0, -2.0, -1e10, math.inf, -math.inf, math.nan, 1.0, 1e-30])
    got = f32_trigamma(x)
    assert torch.equal(got[:6], torch.tensor([math.inf] * 5 + [0.0]))
    assert got[6:8].isnan().all()
    assert abs(got[8].item() - math.pi ** 2 / 6) < 2e-7 and got[9].item() == math.inf  # 1e60 overflows


def bessel_inputs():
    """Both sides of 8 (the two series' seam), tiny and huge |x|, both signs."""
    generator = torch.Generator().manual_seed(1)
    x = torch.cat([torch.linspace(0, 20, 200_001), torch.rand(20_000, generator=generator) * 200,
                   torch.logspace(-38, 38, 20_001), torch.tensor([7.9999995, 8.0, 8.000001])])
    return torch.cat([x, -x])


# the float32 bound of each, compiled: what Cephes' table rounded to float32 leaves on [0, 8] (i1e / x
# ~ 0.017 near 8 cancels coefficients up to 0.25: 5.6 ulp from their rounding alone), 2.5-2.7 above;
# torch's own float32 kernels measured 6.2 (i0e) and 10.3 (i1e). In the interpreter of Triton 3.6,
# whose fma rounds the product apart, 5.1 and 12.6 (the newest's fma rounds once, as CUDA's).
def assert_bessel_within(helper, name, compiled_bound, interpreter_bound, mean_bound):
    x = bessel_inputs()
    exact = getattr(torch.special, name)(x.double())  # float64: a few float64 ulp, nothing in float32's
    error = ulps(helper(x), exact)
    worst = int(error.argmax())
    bound = compiled_bound if helper.device == "cuda" else interpreter_bound
    assert error.max() <= bound, f"{error.max():.2f} ulp at x = {x[worst].item()!r}"
    assert error[x.abs() > 8].max() <= 2.8
    assert error.mean() < mean_bound


def test_f32_i0e_is_within_five_ulp(f32_i0e):
    assert_bessel_within(f32_i0e, "i0e", 4.6, 5.2, 0.8)


def test_f32_i1e_is_within_ten_ulp(f32_i1e):
    assert_bessel_within(f32_i1e, "i1e", 9.7, 12.7, 1.3)


def test_f32_bessel_special_values(f32_i0e, f32_i1e):
    x = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-45, -1e-45])
    i0e, i1e = f32_i0e(x), f32_i1e(x)
    assert torch.equal(i0e[:4], torch.tensor([1.0, 1.0, 0.0, 0.0])) and i0e[4].isnan()
    assert torch.equal(i1e[:4], torch.tensor([0.0, -0.0, 0.0, -0.0])) and i1e[4].isnan()
    assert torch.equal(i1e[:4].signbit(), torch.tensor([False, True, False, True]))  # odd: -0.0 kept
    assert torch.equal(i0e[5:], torch.tensor([1.0, 1.0])) and torch.equal(i1e[5:].signbit(), torch.tensor([False, True]))


def bessel_jy_inputs():
    """Both sides of 5 (the two branches' seam) and the first zeros of J0 and J1, tiny x and x up to 1e7,
    where torch's float32 kernels lose the phase, both signs."""
    generator = torch.Generator().manual_seed(2)
    x = torch.cat([torch.linspace(0, 30, 60_001), torch.rand(20_000, generator=generator) * 400,
                   torch.logspace(-38, 7, 4_001), torch.tensor([2.4048255, 3.831706, 4.9999995, 5.0, 5.0000005])])
    return torch.cat([x, -x])


def bessel_jy_envelope_eps(got, exact, x):
    """|got - exact| in float32 eps of max(|exact|, sqrt(2 / (pi |x|))), the functions' amplitude."""
    envelope = torch.sqrt(2.0 / (math.pi * x.double().abs())).clamp(max=1.0)
    return (got.double() - exact).abs() / torch.maximum(envelope, exact.abs()) / 2.0**-24


# each helper's bound in eps of the amplitude. Measured on these points, interpreted (Triton 3.9, whose fma
# rounds once as CUDA's; Triton 3.6's rounds the product apart): J0 6.4 (6.4), J1 5.8 (7.2), Y0 6.0 (7.3), Y1 6.9
# (6.2), the worst of J above 5 (Cephes' P and Q); below 5, the polynomials of fit_bessel_jy: 3.5 (5.0), 4.3 (5.2),
# 5.8 (7.3), 6.8 (6.2), and on 400k points of (0, 5]: 4.1 (5.5), 5.3 (5.7), 6.7 (7.5), 7.3 (7.9). Cephes' rationals,
# before them: 6.7, 6.9, 7.1, 7.8 here; compiled on 2M points of [-30, 30]: 7.75, 7.54, 8.18, 8.37. J relatively to
# |x| = 5, where the first zero is a factor (a - j)(a + j): J0 4.1 (5.4) ulp, J1 4.2 (4.4) here, 4.8 (6.2) and 4.6
# (4.7) on the 400k points (the rationals: 7.4 and 5.7, benchmarks/results/experiment_bessel_branches_*.txt).
# torch's own float32 kernels: 17-112 below 400, 3.6e6-5.9e6 above, where their float32 phase x - pi/4 is off
BESSEL_JY_EPS = {"bessel_j0": 8.5, "bessel_j1": 8.5, "bessel_y0": 9.0, "bessel_y1": 9.0}
@pytest.fixture(scope="module", params=DEVICES)
def f32_log(request, tmp_path_factory):
    return elementwise("f32_log", request.param, tmp_path_factory)


def test_f32_log_is_within_one_ulp_of_every_positive_float32(f32_log):
    """f32_log (Y0's and Y1's ln x below 5) against float64 ln on random bit patterns of every positive finite
    float32, subnormals (scaled by 2^23 first) too, [0, 5] densely, and 1, its neighbours and the powers of 2:
    within libdevice logf's 1 ulp (its steps give 0.83 here), and 1.1 (1.05) where tl.math.fma rounds the product
    apart (Triton 3.6's interpreter)."""
    generator = torch.Generator().manual_seed(7)
    random = torch.randint(1, 0x7F800000, (300_000,), generator=generator, dtype=torch.int32).view(torch.float32)
    one = torch.tensor(1.0)
    special = torch.cat([2.0 ** torch.arange(-149, 128, dtype=torch.float64).float(),
                         torch.stack([torch.nextafter(one, torch.tensor(0.0)), one, torch.nextafter(one, 2 * one)]),
                         torch.tensor([1.1754942e-38, 1.1754944e-38, 3.4028234663852886e38])])
    x = torch.cat([random, torch.linspace(0.0, 5.0, 100_001)[1:], special])
    error = ulps(f32_log(x), torch.log(x.double()))
    worst = int(error.argmax())
    assert error.max() <= 1.1, f"{error.max():.2f} ulp at x = {x[worst].item()!r}"


@pytest.mark.skipif(not GPU, reason="libdevice's logf runs compiled")
def test_f32_log_is_libdevices_logf_bit_for_bit_on_every_positive_float32(tmp_path_factory):
    """Compiled, f32_log takes libdevice's logf steps: tl.math.log's bits on every positive finite float32."""
    f32_log = load_module(tmp_path_factory, "f32_log", jit=True).apply_kernel
    log = import_text(tmp_path_factory, "tl_log", "import triton\nimport triton.language as tl\n\n\n"
                      "@triton.jit\ndef log_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                      "    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                      "    tl.store(out_ptr + i, tl.math.log(tl.load(x_ptr + i, mask=i < n)), mask=i < n)\n").log_kernel
    finite = 0x7F800000
    for start in range(1, finite, 2**26):
        x = torch.arange(start, min(start + 2**26, finite), dtype=torch.int32, device="cuda").view(torch.float32)
        got, expected = torch.empty_like(x), torch.empty_like(x)
        grid = (triton.cdiv(x.numel(), 1024),)
        # as the op library launches (run_sincos)
        options = {"enable_reflect_ftz": False, "enable_fp_fusion": False}
        f32_log[grid](x, got, x.numel(), BLOCK=1024, **options)
        log[grid](x, expected, x.numel(), BLOCK=1024, **options)
        assert_same_bits(got, expected, x)


BESSEL_J_ULP = {"bessel_j0": 6.0, "bessel_j1": 5.5}


def test_f32_bessel_jy_is_within_a_few_eps_of_the_amplitude(f32_bessel_jy):
    """Against the float64 composite (within a few float64 ulp of the true value, test_portable_math.py), in
    eps of the amplitude; J relatively to |x| = 5 (away from subnormal results); and torch's float32 kernel,
    on the same points, further off."""
    from test_portable_math import run as run_float64

    name, x = f32_bessel_jy.name, bessel_jy_inputs()
    x = x[x > 0] if name.startswith("bessel_y") else x
    exact = run_float64(name, x.double())
    got = f32_bessel_jy(x)
    error = bessel_jy_envelope_eps(got, exact, x)
    worst = int(error.argmax())
    assert error.max() <= BESSEL_JY_EPS[name], f"{error.max():.2f} eps at x = {x[worst].item()!r}"
    assert error.mean() < 1.0
    if name in BESSEL_J_ULP:
        near = (x.abs() <= 5) & (x.abs() > 1e-30)
        assert ulps(got[near], exact[near]).max() <= BESSEL_J_ULP[name]
    far = x.abs() > 10
    theirs = bessel_jy_envelope_eps(getattr(torch.special, name)(x), exact, x)
    assert theirs[far].max() > 1000 * error[far].max()


def test_f32_bessel_jy_special_values(f32_bessel_jy):
    """As the float64 composites: J0 1 at +-0 and tiny x, J1 odd with -0.0 kept, both 0 (J1 signed) at
    +-inf; Y -inf at +-0 and (Y1) where -2 / (pi x) overflows, nan below 0, 0 at +inf; nan at nan."""
    from test_portable_math import run as run_float64

    name = f32_bessel_jy.name
    x = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, -1.0, 1e-45, -1e-45, 1e-38, 1.8e-39, 1.9e-39])
    got = f32_bessel_jy(x)
    expected = run_float64(name, x.double())
    special = torch.arange(x.numel()) < 5
    special[5] = name.startswith("bessel_y")  # nan below 0
    special[6:8] = name.startswith("bessel_j")  # J0 1, J1 x/2 rounded to +-0.0
    special |= expected.float().isinf()  # Y1 below 1.87e-39
    assert torch.equal(got.isnan(), expected.isnan())
    assert torch.equal(got[special & ~got.isnan()], expected.float()[special & ~got.isnan()])
    assert torch.equal(got[special].signbit(), expected.float()[special].signbit())
    finite = ~special & expected.isfinite()
    assert ulps(got[finite], expected[finite]).max() <= 3.0


def test_f32_bessel_jy_branches_taken_per_block_give_each_element_its_value(f32_bessel_jy):
    """A block of |x| <= 5 only, one of |x| > 5 only and blocks of both (shuffled) give each element the
    same bits (portable_sides' block-uniform branches)."""
    from test_portable_math import bessel_jy_blocks

    generator = torch.Generator().manual_seed(4)
    edges = [0.0, -0.0, math.inf, -math.inf, math.nan, 5.0, -5.0, 5.0000005, 1e-40, 1e30]
    x = bessel_jy_blocks(generator, edges, torch.float32, above=5.000001)
    shuffled = torch.randperm(x.numel(), generator=generator)
    assert_same_bits(f32_bessel_jy(x[shuffled]), f32_bessel_jy(x)[shuffled], x[shuffled])


def bessel_k_inputs():
    """x > 0: (0, 20] densely (the seam at 1 too), random x up to 120 (K0 and K1 turn subnormal from 85.3 and
    underflow from 101.9), every decade from the smallest subnormal to 3e38."""
    generator = torch.Generator().manual_seed(2)
    x = torch.cat([torch.linspace(0, 20, 200_001), torch.linspace(0.99, 1.01, 20_001),
                   torch.rand(20_000, generator=generator) * 120, torch.logspace(-45, 38.5, 20_001),
                   torch.tensor([0.99999994, 1.0, 1.0000001, 85.3, 88.7, 100.0, 101.88, 101.9])])
    return x[x > 0]


# compiled, the bound of each is what the interpreter of Triton 3.9 measures (fma rounded once, as CUDA's: k0 2.15,
# k1 2.11, k0e 1.91, k1e 2.14 ulp) and 0.35-0.4 more: f32_k_rsqrt's start and f32_k_log's s are approximations
# there. The interpreter's bound covers Triton 3.6's too, whose fma rounds the product apart (2.35, 2.24, 2.07 and
# 3.23: k1e's 1/x residual is lost). The float64 values which overflow float32 (K1 below 2^-128) are
# test_f32_bessel_k_special_values'.
def assert_bessel_k_within(helper, name, compiled_bound, interpreter_bound, mean_bound=0.45):
    x = bessel_k_inputs()
    exact = getattr(torch.special, name)(x.double())  # float64: within 1e-13 of K (test_tritonize_math.py)
    finite = exact < 3.4028235677973366e38
    x, got, exact = x[finite], helper(x)[finite], exact[finite]
    error = ulps(got, exact)
    worst = int(error.argmax())
    bound = compiled_bound if helper.device == "cuda" else interpreter_bound
    assert error.max() <= bound, f"{error.max():.2f} ulp at x = {x[worst].item()!r}"
    assert error.mean() < mean_bound
    # where the result is subnormal or 0 (x > 100), scaled or not: the last rounding, as good as anywhere
    assert error[x > 100].max() <= (2.2 if name.startswith("scaled") else 0.5)


def test_f32_k0_is_within_two_and_a_half_ulp(f32_k0):
    """Against float64 K0 on (0, 100] and beyond, where torch's own float32 kernel is 11.0 ulp off."""
    assert_bessel_k_within(f32_k0, "modified_bessel_k0", 2.5, 2.4)


def test_f32_k1_is_within_two_and_a_half_ulp(f32_k1):
    """Against float64 K1 (torch's float32 kernel: 7.2 ulp off)."""
    assert_bessel_k_within(f32_k1, "modified_bessel_k1", 2.5, 2.4)


def test_f32_k0e_is_within_two_and_a_half_ulp(f32_k0e):
    """Against float64 exp(x) K0(x) (torch's float32 kernel: 13.1 ulp off on normal x, +inf at 1.4e-45)."""
    assert_bessel_k_within(f32_k0e, "scaled_modified_bessel_k0", 2.3, 2.2)


def test_f32_k1e_is_within_two_and_a_half_ulp(f32_k1e):
    """Against float64 exp(x) K1(x) (torch's float32 kernel: 5.5 ulp off)."""
    assert_bessel_k_within(f32_k1e, "scaled_modified_bessel_k1", 2.5, 3.3)


def test_f32_bessel_k_special_values(f32_k0, f32_k1, f32_k0e, f32_k1e):
    """+inf at +-0, nan below 0 (-0.0 is not), at -inf and at nan, +0.0 at +inf; K1 overflows float32 for
    x <= 2^-128 (a subnormal) and not above; K0 of the smallest subnormal is -ln(x/2) - gamma; K0 and K1 round
    into the subnormals from x ~ 85.3 and underflow to 0 from 101.9, and the scaled forms stay finite: each tiny or
    subnormal result is float64 K rounded to float32, bit for bit, the rest within 2.5 ulp of it."""
    inf, nan = math.inf, math.nan
    overflow = 2.0 ** -128
    above = torch.nextafter(torch.tensor(overflow), torch.tensor(1.0)).item()
    x = torch.tensor([0.0, -0.0, inf, -inf, nan, -1.0, -1e-45, 1e-45, overflow, above, 1e-30, 100.0, 101.88, 101.9,
                      110.0, 1.0, 88.7, 1e4, 1e30, 3.4e38])
    functions = {"modified_bessel_k0": f32_k0, "modified_bessel_k1": f32_k1, "scaled_modified_bessel_k0": f32_k0e,
                 "scaled_modified_bessel_k1": f32_k1e}
    for name, helper in functions.items():
        got = helper(x)
        assert torch.equal(got[:3], torch.tensor([inf, inf, 0.0])) and not got[2].signbit(), name
        assert got[3:7].isnan().all(), name
        exact = getattr(torch.special, name)(x[7:].double())
        bitwise = 4 if name.startswith("scaled") else 8  # the tiny x, and the subnormal results of K0 and K1
        assert torch.equal(got[7:7 + bitwise], exact[:bitwise].float()), f"{name}: {got[7:]} against {exact}"
        assert (ulps(got[7 + bitwise:], exact[bitwise:]) <= 2.5).all(), f"{name}: {got[7:]} against {exact}"
    k0, k1 = f32_k0(x), f32_k1(x)
    assert k1[8].item() == inf and k1[9].item() == pytest.approx(1 / above, rel=1e-6)
    assert k0[7].item() == pytest.approx(-math.log(x[7].item() / 2) - 0.5772156649015329, rel=1e-6)
    assert k0[12] > 0 and k0[13] == 0 and k1[13] == 0 and k1[14] == 0  # the last subnormal K0 (1e-45), then 0


@pytest.mark.skipif(GPU, reason="a GPU runs these kernels (test_f32_bessel_jy_* and test_portable_math's on cuda)")
@pytest.mark.parametrize("shape", sorted(BLOCK_SHAPES))
@pytest.mark.parametrize("helper", sorted(f"{prefix}_{name}" for prefix in ("portable", "f32") for name in BESSEL_JY)
                         + ["portable_digamma", "f32_digamma", "portable_trigamma"])
def test_block_uniform_branches_compile_for_every_block_shape(helper, shape, tmp_path_factory):
    """Each helper with block-uniform branches (a block reduction's test), applied to a scalar, a 1-D block and
    a 2-D block, compiles for sm_90 (Triton's own ptxas; no GPU needed): a scalar failed on the GPU before
    portable_any widened it (portable_sides widens it too)."""
    from triton.backends.compiler import GPUTarget

    assert any(f"{test}(" in ast.unparse(function) for function in math_helpers({helper})
               for test in ("portable_any", "portable_sides", "portable_sides_and_any"))
    kernel = load_module(tmp_path_factory, helper, jit=True, shape=shape).apply_kernel
    element = "fp32" if helper.startswith("f32_") else "fp64"
    source = triton.compiler.ASTSource(kernel, signature={"x0_ptr": f"*{element}", "out_ptr": f"*{element}",
                                                          "n": "i32", "BLOCK": "constexpr"},
                                       constexprs={"BLOCK": 256})
    compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32))
    assert "bar.sync" in compiled.asm["ptx"] or shape == "scalar"  # the block reduction's barrier


def atan_inputs():
    """Both sides of |x| = 1 (where 1/x takes over), tiny and huge values and every float32 in
    [0.99, 1.01]."""
    near_one = torch.arange(int(torch.tensor(0.99).view(torch.int32)), int(torch.tensor(1.01).view(torch.int32)))
    x = torch.cat([torch.linspace(0, 10, 400_001), torch.logspace(-38, 38, 20_001),
                   near_one.to(torch.int32).view(torch.float32)])
    return torch.cat([x, -x])


def test_f32_atan_is_within_two_ulp(f32_atan):
    """Against float64: within 2 ulp compiled (CUDA documents 2 for atanf, whose steps it takes);
    2.5 in the interpreter, whose division is exact where CUDA's reciprocal is approximate and
    whose fma in Triton 3.6 rounds the product apart (2.12 ulp seen there)."""
    x = atan_inputs()
    exact = torch.atan(x.double())
    error = ulps(f32_atan(x), exact)
    worst = int(error.argmax())
    bound = 2.0 if f32_atan.device == "cuda" else 2.5
    assert error.max() <= bound, f"{error.max():.2f} ulp at x = {x[worst].item()!r}"
    assert error.mean() < 0.5


def test_f32_atan_special_values(f32_atan):
    x = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-40, -1e-40, 3e38])
    got = f32_atan(x)
    assert torch.equal(got[:2], x[:2]) and torch.equal(got[:2].signbit(), x[:2].signbit())
    assert torch.equal(got[2:4], torch.tensor([math.pi / 2, -math.pi / 2]))
    assert got[4].isnan()
    assert torch.equal(got[5:7], x[5:7])
    assert got[7] == torch.tensor(math.pi / 2)


def test_f32_atan2_is_within_three_ulp(f32_atan2):
    """Pairs over 20 decades in every quadrant against float64: within 3 ulp (CUDA documents 3
    for atan2f, whose steps it takes)."""
    generator = torch.Generator().manual_seed(2)
    y = torch.randn(200_000, generator=generator) * torch.exp(torch.randn(200_000, generator=generator) * 5)
    x = torch.randn(200_000, generator=generator) * torch.exp(torch.randn(200_000, generator=generator) * 5)
    y, x = torch.cat([y, x[:1000], -x[:1000]]), torch.cat([x, x[:1000], x[:1000]])  # and |y| = |x|
    exact = torch.atan2(y.double(), x.double())
    error = ulps(f32_atan2(y, x), exact)
    worst = int(error.argmax())
    assert error.max() <= 3.0, f"{error.max():.2f} ulp at (y, x) = ({y[worst].item()!r}, {x[worst].item()!r})"
    assert error.mean() < 0.5


def test_f32_atan2_special_values_are_torchs(f32_atan2):
    """Every pair of zeros, ones, infinities and nans of both signs: C99's atan2 (torch's), bit
    for bit but for the last bit of +-pi/4 and +-3pi/4."""
    values = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan]
    y = torch.tensor([a for a in values for _ in values])
    x = torch.tensor([b for _ in values for b in values])
    got, want = f32_atan2(y, x), torch.atan2(y, x)
    assert torch.equal(got.isnan(), want.isnan())
    number = ~want.isnan()
    assert torch.equal(got[number].signbit(), want[number].signbit())
    assert (ulps(got[number], want[number].double()) <= 1.0).all()
    odd_eighths = ((want.abs() - math.pi / 4).abs() < 1e-6) | ((want.abs() - 3 * math.pi / 4).abs() < 1e-6)
    exact = number & ~odd_eighths
    assert torch.equal(got[exact], want[exact])


@pytest.mark.skipif(not GPU, reason="CUDA's atanf and atan2f are eager's on a GPU")
def test_f32_atan_and_atan2_are_cudas_bit_for_bit(tmp_path_factory):
    """Compiled, f32_atan gives torch.atan's CUDA result on every float32 bit pattern, and
    f32_atan2 torch.atan2's on 2^24 random bit-pattern pairs, 2^22 normal pairs, equal
    magnitudes and every pair of zeros, ones, infinities and nans."""
    f32_atan = load_module(tmp_path_factory, "f32_atan", jit=True).apply_kernel
    for x in every_float32():
        out = torch.empty_like(x)
        f32_atan[(x.numel() // 1024,)](x, out, x.numel(), BLOCK=1024)
        assert_same_bits(out, torch.atan(x), x)
    f32_atan2 = load_module(tmp_path_factory, "f32_atan2", jit=True, arity=2).apply_kernel
    generator = torch.Generator(device="cuda").manual_seed(4)
    normal = torch.randn(2, 2**22, generator=generator, device="cuda")
    values = torch.tensor([0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 2.5, -1e-40], device="cuda")
    grid = torch.stack(torch.meshgrid(values, values, indexing="ij")).reshape(2, -1)
    equal = torch.stack([normal[0], normal[0].abs() * torch.sign(normal[1])])
    for y, x in (random_bit_pairs(2**24, 6), normal, equal, grid):
        y, x = y.contiguous(), x.contiguous()
        out = torch.empty_like(x)
        f32_atan2[(triton.cdiv(x.numel(), 1024),)](y, x, out, x.numel(), BLOCK=1024)
        assert_same_bits(out, torch.atan2(y, x), y, x)


@pytest.mark.parametrize("name", sorted(HELPERS))
def test_helpers_follow_the_generator_rules(name):
    # portable_math's dtype-generic helpers may be called too (the generator copies callees of either module)
    shared = {"portable_reciprocal_square_step", "portable_sides", "portable_sides_and_any", "portable_any",
              "portable_huge_sides"}
    assert_follows_generator_rules(HELPERS[name], set(HELPERS) | shared,
                                   {"abs", "math", "minimum", "maximum", "where", "exp2", "int32", "float32", "full",
                                    "float64"})


def test_math_table_float32_templates_name_helpers_of_float32_math():
    templates = {fname: entry.float32 for fname, entry in MATH_TABLE.items() if entry.float32}
    assert {"erf", "digamma", "trigamma", "atan", "atan2", "i0e", "i1e", "bessel_j0", "bessel_j1", "bessel_y0",
            "bessel_y1", "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
            "scaled_modified_bessel_k1"} <= set(templates)
    for fname, template in templates.items():
        called = ast.parse(template, mode="eval").body.func.id
        assert called in HELPERS and is_helper(called), fname


def sincos_module(tmp_path_factory, jit: bool, prefix: str = "f32"):
    """f32_sincos and f32_fma_rounds_apart (prefix "portable": the float64 portable_sincos and its test), as the
    generator copies them, and a kernel that stores, for each element, their sine and cosine, tl.math.sin's and
    cos's, and whether fma rounds apart."""
    helpers = math_helpers({f"{prefix}_sincos", f"{prefix}_fma_rounds_apart"})
    for function in helpers:
        function.decorator_list = [ast.parse("triton.jit", mode="eval").body] if jit else []
    text = "import triton\nimport triton.language as tl\n\n\n" + ast.unparse(ast.Module(body=helpers, type_ignores=[]))
    text += ("\n\n\n" + ("@triton.jit\n" if jit else "")
             + "def sincos_kernel(x_ptr, s_ptr, c_ptr, sin_ptr, cos_ptr, apart_ptr, n, BLOCK: tl.constexpr):\n"
             "    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
             "    x = tl.load(x_ptr + i, mask=i < n, other=0.0)\n"
             f"    s, c = {prefix}_sincos(x)\n"
             "    tl.store(s_ptr + i, s, mask=i < n)\n"
             "    tl.store(c_ptr + i, c, mask=i < n)\n"
             "    tl.store(sin_ptr + i, tl.math.sin(x), mask=i < n)\n"
             "    tl.store(cos_ptr + i, tl.math.cos(x), mask=i < n)\n"
             f"    tl.store(apart_ptr + i, {prefix}_fma_rounds_apart(x).to(tl.int32), mask=i < n)\n")
    module = import_text(tmp_path_factory, f"{prefix}_sincos_{'jit' if jit else 'interpreted'}", text)
    return module.sincos_kernel if jit else InterpretedFunction(module.sincos_kernel)


def run_sincos(kernel, x):
    """(f32_sincos's sine, its cosine, tl.math.sin, tl.math.cos, fma rounds apart) of float32 x on x's device."""
    outputs = [torch.empty_like(x) for _ in range(4)] + [torch.empty(x.shape, dtype=torch.int32, device=x.device)]
    # as the op library launches (passes/build_module): keeping subnormals (enable_reflect_ftz=False), which
    # libdevice's sinf follows, and each * and + rounded on its own (enable_fp_fusion=False: contracted,
    # x 2/pi + 1.5 2^23 rounds q from the exact product, where libdevice rounds the rounded one)
    options = {"enable_reflect_ftz": False, "enable_fp_fusion": False} if x.is_cuda else {}
    with numpy.errstate(all="ignore"):
        kernel[(triton.cdiv(x.numel(), 1024),)](x, *outputs, x.numel(), BLOCK=1024, **options)
    return outputs


def fma_rounds_apart(apart, device: str) -> bool:
    """run_sincos's answer to whether tl.math.fma rounds the product apart: one for every element, never on CUDA."""
    rounds_apart = bool(apart.bool().all())
    assert bool(apart.bool().any()) is rounds_apart
    assert not (rounds_apart and device == "cuda")
    return rounds_apart


@pytest.mark.parametrize("device", DEVICES)
def test_f32_sincos_is_within_two_ulp_below_105615(device, tmp_path_factory):
    """f32_sincos (the Bessel functions' Hankel branches) against float64 sin and cos on |x| < 105615: within 2 ulp
    (libdevice's sinf and cosf bound), at and next to the multiples of pi/2 (where the reduction cancels) too;
    +-0 keep sin's sign. Where tl.math.fma rounds the product apart (Triton 3.6's interpreter), the reduction
    cannot hold that, and f32_fma_rounds_apart says so, which sends the callers to tl.math.sin and cos."""
    kernel = sincos_module(tmp_path_factory, jit=device == "cuda")
    generator = torch.Generator().manual_seed(6)
    multiples = (torch.arange(1, 67_000, 7, dtype=torch.float64) * (math.pi / 2)).float()
    x = torch.cat([torch.linspace(-105614.0, 105614.0, 200_001), torch.rand(50_000, generator=generator) * 20 - 10,
                   torch.logspace(-40, 5, 2_001), multiples, torch.nextafter(multiples, torch.tensor(0.0)),
                   torch.nextafter(multiples, torch.tensor(1e6)), torch.tensor([0.0, -0.0, 105614.99])])
    x = torch.cat([x, -x])
    s, c, _, _, apart = (out.cpu() for out in run_sincos(kernel, x.to(device)))
    if fma_rounds_apart(apart, device):
        return  # the callers never read f32_sincos here (f32_bessel_j0 ...): test_f32_bessel_jy_* hold them
    for got, exact in ((s, torch.sin(x.double())), (c, torch.cos(x.double()))):
        error = ulps(got, exact)
        worst = int(error.argmax())
        assert error.max() <= 2.0, f"{error.max():.2f} ulp at x = {x[worst].item()!r}"
    zero = x == 0.0
    assert torch.equal(s[zero].signbit(), x[zero].signbit()) and bool((c[zero] == 1.0).all())


@pytest.mark.skipif(not GPU, reason="libdevice's sinf and cosf run compiled")
def test_f32_sincos_is_libdevices_sinf_and_cosf_bit_for_bit_below_105615(tmp_path_factory):
    """Compiled, f32_sincos gives tl.math.sin's and tl.math.cos's (libdevice's sinf and cosf) bits on every float32
    of |x| < 105615, where they reduce as it does (NaN for NaN)."""
    kernel = sincos_module(tmp_path_factory, jit=True)
    bound = int(numpy.float32(105615.0).view(numpy.int32))
    for start in range(0, bound, 2**26):
        magnitude = torch.arange(start, min(start + 2**26, bound), dtype=torch.int32, device="cuda").view(torch.float32)
        for x in (magnitude, -magnitude):
            s, c, sin, cos, apart = run_sincos(kernel, x)
            assert not bool(apart.bool().any())
            assert_same_bits(s, sin, x)
            assert_same_bits(c, cos, x)
