"""Float32 exp for 16-bit sigmoid and silu (0.89-0.97x a static torch.compile at 2^21..2^27 on
an H200): libdevice's `expf` (what tritonize's kernels call), inductor's `tl.exp` (ex2.approx of
the rounded product x * log2(e)), and `f32_exp`, ex2.approx of that product with the product's
rounding error carried into one fma, each with correctly rounded division (`div_rn`), inductor's
2-ulp `/`, and for sigmoid the correctly rounded reciprocal (`rcp_rn`: 1 / d is its reciprocal,
bit for bit). Kernels are launched as tritonize launches its own (no fma contraction, no
flush-to-zero, its block sizes, 4 warps). Part 1: each exp's largest error in float32 ulps over
every float32 input whose exp is finite and nonzero, and the special values. Part 2: SASS
instructions per kernel. Part 3: times beside tritonize, eager and torch.compile, as CUDA graphs
from 2^20 to 2^22 and as single launches above.

    python -m benchmarks.experiments.exp16
"""
import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from triton.language.extra import libdevice

from benchmarks.cases import OPS
from benchmarks.experiments import best_us
from benchmarks.run import compile_static, graph_us, rotating_sets
from tritonize import call

EXPS = {0: "libdevice expf", 1: "tl.exp", 2: "f32_exp"}
DIVS = {0: "div_rn", 1: "rcp_rn", 2: "div.full"}
LAUNCH = {"enable_reflect_ftz": False, "enable_fp_fusion": False, "num_warps": 4}


@triton.jit
def f32_exp(x):
    """exp in float32: ex2.approx of x * log2(e), the product's rounding error carried by one fma."""
    hi = x * 1.4426950216293335
    lo = tl.math.fma(x, 1.4426950216293335, hi * -1.0)  # what rounding the product dropped, exactly
    lo = tl.math.fma(x, 1.925962991e-08, lo)  # log2(e) beyond its float32 rounding
    e = tl.exp2(hi)
    # +-inf make lo nan, where exp2(hi) is already exp(x)
    return tl.where(lo == lo, tl.math.fma(e, lo * 0.6931471805599453, e), e)


@triton.jit
def exp_of(x, EXP: tl.constexpr):
    if EXP == 0:
        e = libdevice.exp(x)
    elif EXP == 1:
        e = tl.exp(x)
    else:
        e = f32_exp(x)
    return e


@triton.jit
def exp_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EXP: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, exp_of(tl.load(x_ptr + offsets, mask=mask), EXP), mask=mask)


@triton.jit
def activation_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SILU: tl.constexpr, EXP: tl.constexpr,
                      DIV: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    d = 1.0 + exp_of(x * -1.0, EXP)
    if DIV == 0:
        y = tl.math.div_rn(x if SILU else tl.full(x.shape, 1.0, tl.float32), d)
    elif DIV == 1:
        y = libdevice.rcp_rn(d)
    else:
        y = (x if SILU else tl.full(x.shape, 1.0, tl.float32)) / d
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def float32_ulps(result, reference):
    """|result - reference| in units of the float32 last place at the reference (float64)."""
    exponent = torch.floor(torch.log2(reference.abs().clamp(min=2.0**-126)))
    return (result.double() - reference).abs() / torch.exp2(exponent - 23)


def accuracy():
    print("Part 1: largest error over every float32 x with a finite, normal exp(x) "
          "(float64 reference), and special values", flush=True)
    lowest, highest = -87.33654022216797, 88.72283172607422  # exp is normal and finite between
    worst = dict.fromkeys(EXPS, (0.0, 0.0))
    for sign, start, stop in ((1, 0, torch.tensor(highest).view(torch.int32).item()),
                              (-1, 0, torch.tensor(-lowest).view(torch.int32).item())):
        for first in range(start, stop + 1, 2**27):
            bits = torch.arange(first, min(first + 2**27, stop + 1), device="cuda", dtype=torch.int32)
            x = bits.view(torch.float32) * sign
            reference = torch.exp(x.double())
            out = torch.empty_like(x)
            for k in EXPS:
                exp_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024, EXP=k, **LAUNCH)
                errors = float32_ulps(out, reference)
                at = errors.argmax()
                if errors[at].item() > worst[k][0]:
                    worst[k] = (errors[at].item(), x[at].item())
    specials = torch.tensor([float("inf"), float("-inf"), float("nan"), 0.0, -0.0, 88.72283935546875, -104.0,
                             -100.0, -90.0, 1e-30, -1e-30], device="cuda")
    for k, label in EXPS.items():
        out = torch.empty_like(specials)
        exp_kernel[(1,)](specials, out, specials.numel(), BLOCK=16, EXP=k, **LAUNCH)
        print(f"  {label:15}: max {worst[k][0]:.3f} ulp (at x = {worst[k][1]!r}); "
              f"inf, -inf, nan, 0, -0, 88.7228394, -104, -100, -90, 1e-30, -1e-30 -> {out.tolist()}", flush=True)
    print(f"  torch (float32 exp on CUDA) on the specials: {torch.exp(specials).tolist()}", flush=True)


def sass_counts():
    print("Part 2: SASS of the bfloat16 kernels (BLOCK 1024)", flush=True)
    x = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    out = torch.empty_like(x)
    for silu in (False, True):
        for exp in EXPS:
            for div in DIVS:
                if silu and div == 1:
                    continue
                compiled = activation_kernel[(4,)](x, out, x.numel(), BLOCK=1024, SILU=silu, EXP=exp, DIV=div,
                                                   **LAUNCH)
                try:  # Triton's disassembly: one "control<TAB>instruction;" line per instruction
                    lines = [ln for ln in compiled.asm["sass"].splitlines() if "\t" in ln and ln.rstrip().endswith(";")]
                    count = (f"{len(lines)} instructions (static, slow paths included), "
                             f"{sum('MUFU' in ln for ln in lines)} MUFU")
                except Exception as error:  # no cuobjdump: PTX lines instead
                    count = f"{len(compiled.asm['ptx'].splitlines())} PTX lines ({type(error).__name__})"
                print(f"  {'silu' if silu else 'sigmoid'} exp {EXPS[exp]} {DIVS[div]}: {count}", flush=True)


def timing():
    print("Part 3: times in us (CUDA graphs at 2^20..2^22, best do_bench medians above)", flush=True)
    for name, eager_fn in (("silu", F.silu), ("sigmoid", torch.sigmoid)):
        for dtype in (torch.bfloat16, torch.float16):
            for exponent in (20, 21, 22, 24, 27):
                n = 2**exponent
                graphs = exponent <= 22
                sets = [(torch.randn(n, device="cuda") * 4).to(dtype)
                        for _ in range(rotating_sets(4 * n) if graphs else 1)]
                outs = [torch.empty_like(x) for x in sets]
                reference = eager_fn(sets[0].double())

                def time(fn):  # fn(x, out=None)
                    if graphs:
                        return graph_us([lambda x=x, o=o: fn(x, o) for x, o in zip(sets, outs)])
                    return best_us(lambda: fn(sets[0], outs[0]))

                compiled = compile_static(eager_fn)
                ours = OPS[name].ours
                eager_equal = (ours(sets[0]) == eager_fn(sets[0])).float().mean().item()
                line = (f"{name} {str(dtype)[6:]} 2^{exponent}: tritonize {time(lambda x, o: ours(x)):.2f}, "
                        f"eager {time(lambda x, o: eager_fn(x)):.2f}, torch.compile {time(lambda x, o: compiled(x)):.2f} "
                        f"(tritonize's results equal to eager's: {eager_equal:.6%})")
                print(line, flush=True)
                (block,), _ = call.launch_shape(sets[0].device, (n,), None, costly_math=True)  # tritonize's
                for exp in EXPS:
                    for div in DIVS:
                        if name == "silu" and div == 1:
                            continue

                        def launch(x, o, exp=exp, div=div):
                            activation_kernel[(triton.cdiv(n, block),)](x, o, n, BLOCK=block, SILU=name == "silu",
                                                                        EXP=exp, DIV=div, **LAUNCH)
                        launch(sets[0], outs[0])
                        error = ((outs[0].double() - reference).abs()
                                 / (torch.finfo(dtype).eps * reference.abs().clamp(min=torch.finfo(dtype).tiny))).max()
                        same = (outs[0] == ours(sets[0])).float().mean().item()
                        print(f"  exp {EXPS[exp]:15} {DIVS[div]:8}: {time(launch):7.2f} us "
                              f"(max {error.item():.2f} ulp of {str(dtype)[6:]}, equal to tritonize's: {same:.6%})",
                              flush=True)


def main():
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
    accuracy()
    sass_counts()
    timing()


if __name__ == "__main__":
    main()
