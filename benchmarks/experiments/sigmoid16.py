"""16-bit silu and sigmoid against a static torch.compile (0.95-0.97x at 2^24..2^27 on an H200):
hand-written copies of tritonize's kernel (float32 opmath, libdevice exp, correctly rounded
division, 1024 elements and 4 warps) with inductor's approximate exp and division instead, and
with 2048 elements per program, beside tritonize, eager and torch.compile; and how far each
variant's results are from a float64 reference, in bfloat16 ulps.

    python -m benchmarks.experiments.sigmoid16
"""
import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from triton.language.extra import libdevice

from benchmarks.cases import OPS
from benchmarks.experiments import best_us
from benchmarks.run import compile_static


@triton.jit
def variant(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SILU: tl.constexpr, EXACT_EXP: tl.constexpr,
            EXACT_DIV: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    if EXACT_EXP:
        e = libdevice.exp(x * -1.0)
    else:
        e = tl.exp(x * -1.0)
    numerator = x if SILU else tl.full(x.shape, 1.0, tl.float32)
    if EXACT_DIV:
        y = tl.math.div_rn(numerator, 1.0 + e)
    else:
        y = numerator / (1.0 + e)
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def ulps(result, reference):
    """Largest distance in units of the result dtype's last place."""
    spacing = torch.finfo(result.dtype).eps * reference.abs().clamp(min=torch.finfo(result.dtype).tiny)
    return ((result.double() - reference) / spacing.double()).abs().max().item()


def main():
    for name, eager_fn in (("silu", F.silu), ("sigmoid", torch.sigmoid)):
        for dtype in (torch.bfloat16, torch.float16):
            for exponent in (24, 27):
                n = 2**exponent
                x = (torch.randn(n, device="cuda") * 4).to(dtype)
                out = torch.empty_like(x)
                reference = eager_fn(x.double())
                compiled = compile_static(eager_fn)
                line = (f"{name} {str(dtype)[6:]} 2^{exponent}: tritonize {best_us(lambda: OPS[name].ours(x)):.1f} us, "
                        f"eager {best_us(lambda: eager_fn(x)):.1f}, torch.compile {best_us(lambda: compiled(x)):.1f} "
                        f"(max {ulps(compiled(x), reference):.2f} ulp)")
                print(line, flush=True)
                for block in (1024, 2048):
                    for exact_exp, exact_div in ((True, True), (False, True), (True, False), (False, False)):
                        def launch():
                            variant[(triton.cdiv(n, block),)](x, out, n, BLOCK=block, SILU=name == "silu",
                                                              EXACT_EXP=exact_exp, EXACT_DIV=exact_div,
                                                              num_warps=4)
                        launch()
                        error = ulps(out, reference)
                        print(f"  block {block} exp {'libdevice' if exact_exp else 'tl.exp'} "
                              f"div {'rn' if exact_div else 'full'}: {best_us(launch):.1f} us (max {error:.2f} ulp)",
                              flush=True)


if __name__ == "__main__":
    main()
