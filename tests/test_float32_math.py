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


def load_module(tmp_path_factory, helper: str, jit: bool):
    """`helper`, copied by the code generator's own math_helpers, and a kernel that applies it."""
    decorator = "@triton.jit\n" if jit else ""
    helpers = ast.unparse(ast.Module(body=math_helpers({helper}), type_ignores=[]))
    text = "import triton\nimport triton.language as tl\n\n\n" + decorator + helpers
    text += (f"\n\n\n{decorator}def apply_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
             "    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
             f"    tl.store(out_ptr + i, {helper}(tl.load(x_ptr + i, mask=i < n)), mask=i < n)\n")
    path = tmp_path_factory.mktemp("float32_math") / f"{helper}_{'jit' if jit else 'interpreted'}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # triton.jit finds its function's module again
    spec.loader.exec_module(module)
    return module


def elementwise(helper: str, device: str, tmp_path_factory):
    """A function applying `helper` to each element of a float32 tensor, on the interpreter (cpu)
    or compiled (cuda)."""
    kernel = load_module(tmp_path_factory, helper, jit=device == "cuda").apply_kernel
    if device == "cpu":
        kernel = InterpretedFunction(kernel)

    def run(x):
        x = x.to(device=device, dtype=torch.float32).contiguous()
        out = torch.empty_like(x)
        with numpy.errstate(all="ignore"):  # the interpreter's numpy: 1 / 0 is the infinity asked for
            kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out.cpu()
    return run


DEVICES = ["cpu"] + (["cuda"] if GPU else [])


@pytest.fixture(scope="module", params=DEVICES)
def f32_erf(request, tmp_path_factory):
    return elementwise("f32_erf", request.param, tmp_path_factory)


@pytest.fixture(scope="module", params=DEVICES)
def f32_digamma(request, tmp_path_factory):
    return elementwise("f32_digamma", request.param, tmp_path_factory)


def ulps(got, exact):
    """|got - exact| in units of the float32 spacing at exact."""
    magnitude = exact.float().abs()
    spacing = torch.nextafter(magnitude, torch.tensor(math.inf)) - magnitude
    return ((got.double() - exact).abs() / spacing.double())


def test_f32_erf_is_within_two_ulp(f32_erf):
    dense = torch.linspace(-5, 5, 200_001)  # both branches, the switch at |x| = 1, the clamp at 4
    tiny = torch.logspace(-38, 0, 20_001)  # down to float32's normals, where x + x * p must not flush
    below_one = torch.nextafter(torch.tensor(1.0), torch.tensor(0.0))
    x = torch.cat([dense, tiny, -tiny, torch.stack([below_one, -below_one]),
                   torch.tensor([1.0, -1.0, 3.9999998, 4.0, 4.0000005])])
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


def test_f32_digamma_special_values(f32_digamma):
    x = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, -1.0, -2.0, -3.0, -1e10, 1.0])
    got = f32_digamma(x)
    assert torch.equal(got[:3], torch.tensor([-math.inf, math.inf, math.inf]))
    assert got[3:9].isnan().all()
    assert abs(got[9].item() - (-0.5772156649015329)) < 1e-7  # psi(1) = -Euler's constant


@pytest.mark.parametrize("name", sorted(HELPERS))
def test_helpers_follow_the_generator_rules(name):
    assert_follows_generator_rules(HELPERS[name], set(HELPERS), {"abs", "math", "minimum", "where", "exp2"})


def test_math_table_float32_templates_name_helpers_of_float32_math():
    templates = {fname: entry.float32 for fname, entry in MATH_TABLE.items() if entry.float32}
    assert {"erf", "digamma"} <= set(templates)
    for fname, template in templates.items():
        called = ast.parse(template, mode="eval").body.func.id
        assert called in HELPERS and is_helper(called), fname
