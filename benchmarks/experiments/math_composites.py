"""Do float32 composites (passes/float32_math.py) beat libdevice where tritonize ran slower than
eager? For each function, at 2^24 elements in bfloat16 and float32: eager, the tritonize op as
the math table lowers it now, and bare kernels of libdevice's function and of the composite at
a few (BLOCK, num_warps); then, in float32, each one's largest error in float32 ulps against
torch's float64 function on the GPU over a dense sweep, and its special values against eager.
`--ncu` launches each kernel once instead, for ncu's instruction counts.

    python -m benchmarks.experiments.math_composites
    ncu --metrics smsp__inst_executed.sum python -m benchmarks.experiments.math_composites --ncu
"""
import ast
import importlib.util
import math
import re
import sys
import tempfile

import torch
import triton

import tritonize.ops as ops
from benchmarks.experiments import best_us
from tritonize.passes.build_module import math_helpers

# name: (arity, libdevice call, composite or None, eager, tritonize op)
FUNCTIONS = {
    "sinh": (1, "libdevice.sinh", "f32_sinh_candidate", torch.sinh, ops.sinh),
    "cosh": (1, "libdevice.cosh", "f32_cosh_candidate", torch.cosh, ops.cosh),
    "tanh": (1, "libdevice.tanh", "f32_tanh_candidate", torch.tanh, ops.tanh),
    "atan": (1, "libdevice.atan", "f32_atan", torch.atan, ops.atan),
    "atan2": (2, "libdevice.atan2", "f32_atan2", torch.atan2, ops.atan2),
    "asinh": (1, "libdevice.asinh", "f32_asinh_candidate", torch.asinh, ops.asinh),
    "pow": (2, "libdevice.pow", None, torch.pow, ops.pow),
}
# Candidates measured and not taken into passes/float32_math.py (experiment_math_composites_h200.txt):
# - sinh: |x| < 2 an odd polynomial of degree 4, above it 4E - 1 / (16E) with E = e^|x| / 8 =
#   2^f 2^(j - 3), 2^f a polynomial of degree 6 on [-1/2, 1/2] and 2^(j - 3) built in the exponent
#   bits (fit_float32.py); cosh 4E + 1 / (16E): 1.5 and 1.4 ulp, but no faster than libdevice's
# - the same from two ex2.approx (e^|x| / 4 and e^-|x| / 2, each with the exponent's low part):
#   faster, but 3.5 ulp off (sinh) where libdevice's is 2.8
# - tanh by CUDA's tanhf's method (an odd polynomial of degree 4 below 0.6, 1 - 2 / (e^2|x| + 1)
#   above it): slower than libdevice's
# - asinh = log1p(a + a^2 / (1 + sqrt(1 + a^2))) (log(a / 4) + 3 ln 2 above 2^30, x below 2^-12),
#   log1p from the exponent bits of 1 + v, f = v 2^-k + (2^-k - 1) in one fma and 2 atanh(f / (2 + f))
#   with its residual, reciprocals as rsqrt(d^2) (fit_float32.py's Q): fewer instructions than
#   libdevice's in the listing, but libdevice's branches skip most of its own: slower, and 2.4 ulp
#   against libdevice's 1.7
EXP_EIGHTH = """
def f32_exp_eighth(a):
    h = a * 1.4426950216293335
    lo = tl.math.fma(a, 1.92596298909109e-08, tl.math.fma(a, 1.4426950216293335, h * -1.0))
    j = tl.math.floor(h + 0.5)
    f = (h - j) + lo
    p = tl.math.fma(0.00015345810970757157, f, 0.0013399930903688073)
    p = tl.math.fma(p, f, 0.009618489071726799)
    p = tl.math.fma(p, f, 0.05550328642129898)
    p = tl.math.fma(p, f, 0.24022646248340607)
    p = tl.math.fma(p, f, 0.6931471824645996)
    p = tl.math.fma(p, f, 1.0)
    return p * ((j.to(tl.int32) + 124) << 23).to(tl.float32, bitcast=True)
"""
VARIANTS = {
    "f32_asinh_candidate": """
def f32_asinh_candidate(x):
    a = tl.abs(x)
    big = a > 1073741824.0
    aa = a * a
    den = 1.0 + tl.sqrt(aa + 1.0)
    v = tl.where(big, a * 0.25, tl.math.fma(aa, tl.math.rsqrt(den * den), a))
    k = ((v + 1.0).to(tl.int32, bitcast=True) - 1060439283) >> 23
    scale = ((127 - k) << 23).to(tl.float32, bitcast=True)
    f = tl.math.fma(v, scale, scale - 1.0)
    d = f + 2.0
    d_lo = (2.0 - d) + f
    inv = tl.math.rsqrt(d * d)
    s = f * inv
    s_lo = (tl.math.fma(s * -1.0, d, f) - s * d_lo) * inv
    z = s * s
    q = tl.math.fma(0.2987093925476074, z, 0.39977574348449707)
    q = tl.math.fma(q, z, 0.6666677594184875)
    kf = k.to(tl.float32) + tl.where(big, 3.0, 0.0)
    low = tl.math.fma(kf, 1.4286068202862268e-06, tl.math.fma(s_lo, 2.0, (z * s) * q))
    r = tl.math.fma(kf, 0.693145751953125, s * 2.0) + low
    r = tl.where((a < 0.000244140625) | (a == float("inf")), a, r)
    return tl.where(x.to(tl.int32, bitcast=True) < 0, r * -1.0, r)
""",
    "f32_sinh_candidate": EXP_EIGHTH + """
def f32_sinh_candidate(x):
    s = x * x
    p = tl.math.fma(2.6966521460281e-08, s, 2.7474857233755756e-06)
    p = tl.math.fma(p, s, 0.00019842860638163984)
    p = tl.math.fma(p, s, 0.008333319798111916)
    p = tl.math.fma(p, s, 0.1666666716337204)
    near = tl.math.fma(p * s, x, x)
    a = tl.abs(x)
    e = f32_exp_eighth(tl.where(a > 90.0, 90.0, a))
    far = tl.math.fma(e, 4.0, (0.0625 / e) * -1.0)
    far = tl.where(x < 0.0, far * -1.0, far)
    return tl.where(a < 2.0, near, far)
""",
    "f32_cosh_candidate": EXP_EIGHTH + """
def f32_cosh_candidate(x):
    a = tl.abs(x)
    e = f32_exp_eighth(tl.where(a > 90.0, 90.0, a))
    return tl.math.fma(e, 4.0, 0.0625 / e)
""",
    "f32_tanh_candidate": """
def f32_tanh_candidate(x):
    s = x * x
    p = tl.math.fma(-0.005895157344639301, s, 0.020795971155166626)
    p = tl.math.fma(p, s, -0.053783830255270004)
    p = tl.math.fma(p, s, 0.13331924378871918)
    p = tl.math.fma(p, s, -0.33333298563957214)
    near = tl.where(x == 0.0, x, tl.math.fma(p * s, x, x))
    a = tl.abs(x)
    e = tl.exp2(a * 2.885390043258667)
    far = 1.0 - 2.0 / (e + 1.0)
    far = tl.where(x < 0.0, far * -1.0, far)
    return tl.where(a < 0.6, near, far)
""",
    "f32_sinh_candidate_two_ex2": """
def f32_sinh_candidate_two_ex2(x):
    s = x * x
    p = tl.math.fma(2.6966521460281e-08, s, 2.7474857233755756e-06)
    p = tl.math.fma(p, s, 0.00019842860638163984)
    p = tl.math.fma(p, s, 0.008333319798111916)
    p = tl.math.fma(p, s, 0.1666666716337204)
    near = tl.math.fma(p * s, x, x)
    a = tl.abs(x)
    a = tl.where(a > 90.0, 90.0, a)
    h = a * 1.4426950216293335
    lo = tl.math.fma(a, 1.92596298909109e-08, tl.math.fma(a, 1.4426950216293335, h * -1.0)) * 0.6931471824645996
    e = tl.exp2(h - 2.0)
    e = tl.math.fma(e, lo, e)
    n = tl.exp2(h * -1.0 - 1.0)
    n = tl.math.fma(n, lo * -1.0, n)
    far = tl.math.fma(e, 2.0, n * -1.0)
    far = tl.where(x < 0.0, far * -1.0, far)
    return tl.where(a < 2.0, near, far)
""",
    "f32_cosh_candidate_two_ex2": """
def f32_cosh_candidate_two_ex2(x):
    a = tl.abs(x)
    a = tl.where(a > 90.0, 90.0, a)
    h = a * 1.4426950216293335
    lo = tl.math.fma(a, 1.92596298909109e-08, tl.math.fma(a, 1.4426950216293335, h * -1.0)) * 0.6931471824645996
    e = tl.exp2(h - 2.0)
    e = tl.math.fma(e, lo, e)
    n = tl.exp2(h * -1.0 - 1.0)
    return tl.math.fma(e, 2.0, tl.math.fma(n, lo * -1.0, n))
""",
}
LAUNCHES = [(1024, 4), (2048, 8), (512, 4), (1024, 8)]
NUMEL = 2**24


def kernel(call: str, arity: int):
    """A flat kernel storing call(loads...) in the output's dtype, in a module of its own (with the
    helper the generator would paste, for a composite)."""
    args = ", ".join(f"in{i}" for i in range(arity))
    loads = ", ".join(f"tl.load(in{i} + i).to(tl.float32)" for i in range(arity))
    helpers = "" if call.startswith("libdevice") else VARIANTS.get(call) or ast.unparse(
        ast.Module(body=math_helpers({call}), type_ignores=[]))
    # every helper jitted, as passes/build_module.py pastes them
    helpers = re.sub(r"(?m)^def ", "@triton.jit\ndef ", helpers)
    text = ("import triton\nimport triton.language as tl\nfrom triton.language.extra import libdevice\n\n\n"
            + "\n" + helpers + f"\n\n\n@triton.jit\ndef apply(out, {args}, BLOCK: tl.constexpr):\n"
            "    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
            f"    tl.store(out + i, {call}({loads}).to(out.dtype.element_ty))\n")
    path = tempfile.mkdtemp() + f"/k_{call.replace('.', '_')}.py"
    open(path, "w").write(text)
    spec = importlib.util.spec_from_file_location(f"k_{call.replace('.', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.apply


def inputs(name: str, dtype, numel: int, generator):
    x = torch.randn(numel, device="cuda", generator=generator)
    if name == "pow":
        return [(x.abs() + 0.5).to(dtype), torch.randn(numel, device="cuda", generator=generator).to(dtype)]
    if name == "atan2":
        return [x.to(dtype), torch.randn(numel, device="cuda", generator=generator).to(dtype)]
    return [(x * 3).to(dtype)]


def launcher(apply, block, warps, xs):
    out = torch.empty_like(xs[0])
    grid = (triton.cdiv(xs[0].numel(), block),)
    # compiled as tritonize compiles its kernels (passes/build_module.py): torch's denormals, no fma contraction
    return out, lambda: apply[grid](out, *xs, BLOCK=block, num_warps=warps, enable_reflect_ftz=False,
                                    enable_fp_fusion=False)


def ulps(got, exact):
    magnitude = exact.float().abs()
    spacing = torch.nextafter(magnitude, torch.tensor(math.inf, device=magnitude.device)) - magnitude
    return (got.double() - exact).abs() / spacing.double()


def sweep(name: str):
    """Dense float32 inputs over the function's interesting range, on the GPU."""
    if name in ("atan2", "pow"):
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn(1 << 22, device="cuda", generator=g) * torch.exp(torch.randn(1 << 22, device="cuda", generator=g) * 4)
        b = torch.randn(1 << 22, device="cuda", generator=g) * torch.exp(torch.randn(1 << 22, device="cuda", generator=g) * 2)
        return [a.abs() if name == "pow" else a, b]
    x = torch.cat([torch.linspace(-95, 95, 1 << 22, device="cuda"), torch.linspace(-3, 3, 1 << 22, device="cuda"),
                   torch.logspace(-30, 1.5, 1 << 20, device="cuda")])
    return [torch.cat([x, -x])]


def specials(arity: int):
    values = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, math.inf, -math.inf, math.nan, 89.4, 89.5, 1e-40, 3e38]
    if arity == 1:
        return [torch.tensor(values, device="cuda")]
    return [torch.tensor([a for a in values for _ in values], device="cuda"),
            torch.tensor([b for _ in values for b in values], device="cuda")]


def main():
    ncu = "--ncu" in sys.argv
    only = next((a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--only=")), list(FUNCTIONS))
    print(f"# python -m benchmarks.experiments.math_composites{' --ncu' if ncu else ''} ({torch.cuda.get_device_name()}, "
          f"torch {torch.__version__.split('+')[0]}, triton {triton.__version__}): us per launch (best of 3 do_bench "
          f"medians) at 2^{int(math.log2(NUMEL))} elements; errors in float32 ulps against float64", flush=True)
    generator = torch.Generator(device="cuda").manual_seed(0)
    for name in only:
        arity, libdevice_call, composite, eager, op = FUNCTIONS[name]
        kernels = {"libdevice": kernel(libdevice_call, arity)}
        if composite:
            kernels["composite"] = kernel(composite, arity)
        if f"{composite}_two_ex2" in VARIANTS:
            kernels["two ex2"] = kernel(f"{composite}_two_ex2", arity)
        for dtype in (torch.bfloat16, torch.float32):
            xs = inputs(name, dtype, NUMEL, generator)
            expected = eager(*xs)
            rows = {"eager": lambda: eager(*xs), "tritonize op": lambda: op(*xs)}
            assert torch.allclose(op(*xs).float(), expected.float(), rtol=1e-2, atol=1e-5, equal_nan=True), name
            for label, apply in kernels.items():
                for block, warps in LAUNCHES:
                    out, run = launcher(apply, block, warps, xs)
                    run()
                    assert torch.allclose(out.float(), expected.float(), rtol=1e-2, atol=1e-5, equal_nan=True), (name, label)
                    rows[f"{label} {block}/{warps}"] = run
            if ncu:
                for label, run in rows.items():
                    torch.cuda.synchronize()
                    run()
                print(f"{name} {str(dtype)[6:]}: launched {', '.join(rows)}", flush=True)
                continue
            times = {label: best_us(run) for label, run in rows.items()}
            line = "  ".join(f"{label} {us:6.1f}" for label, us in times.items())
            print(f"{name:6s} {str(dtype)[6:]:8s} {line}", flush=True)
            best = min((us, label) for label, us in times.items() if label not in ("eager", "tritonize op"))
            print(f"{'':15s} best kernel {best[1]}: {times['eager'] / best[0]:.3f}x eager; "
                  f"tritonize op {times['eager'] / times['tritonize op']:.3f}x eager", flush=True)
        if ncu:
            continue
        xs = sweep(name)
        exact = eager(*[x.double() for x in xs])
        finite = exact.float().isfinite()
        evaluators = {label: lambda *values, apply=apply: padded_launch(apply, values) for label, apply in kernels.items()}
        evaluators["tritonize op"] = op
        for label, evaluate in evaluators.items():
            out = evaluate(*xs)
            error = ulps(out[finite], exact[finite])
            worst = int(error.argmax())
            at = ", ".join(f"{x[finite][worst].item()!r}" for x in xs)
            agree = torch.equal(out[~finite].isnan(), exact[~finite].isnan()) and torch.equal(
                out[~finite].nan_to_num(), exact[~finite].float().nan_to_num())
            sv = specials(arity)
            want, got = eager(*sv), evaluate(*sv)
            same = (got == want) | (got.isnan() & want.isnan())
            same &= (got.signbit() == want.signbit()) | got.isnan()
            wrong = [(tuple(v[i].item() for v in sv), got[i].item(), want[i].item()) for i in (~same).nonzero().flatten().tolist()]
            print(f"{'':15s} float32 {label}: max {error.max():.2f} ulp at ({at}), mean {error.mean():.3f}; "
                  f"non-finite agree {agree}; special values off eager: {wrong[:6]}{' ...' if len(wrong) > 6 else ''}", flush=True)


def padded_launch(apply, values):
    """`apply` on float32 tensors of one shape, padded to whole blocks of 1024 (its launches take no mask)."""
    numel = values[0].numel()
    padded = [torch.cat([v.contiguous(), v.new_zeros(-numel % 1024)]) for v in values]
    out, run = launcher(apply, 1024, 4, padded)
    run()
    return out[:numel]


if __name__ == "__main__":
    main()
