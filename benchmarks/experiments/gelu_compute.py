"""Why is 16-bit gelu slower than eager? Eager's launch shape and registers (torch.profiler),
hand-written gelu kernels at several elements per thread, the same kernel without erf (the
memory floor), and erf as a composite with no selected coefficients (its accuracy and speed).
`--ncu`: launch each kernel once, for ncu's instruction counts.

    python -m benchmarks.experiments.gelu_compute
    ncu --metrics smsp__inst_executed.sum python -m benchmarks.experiments.gelu_compute --ncu
"""
import json
import sys
import tempfile

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from triton.language.extra import libdevice

from benchmarks.cases import OPS
from benchmarks.experiments import best_us
from tritonize.decorator import signature_key
from tritonize.passes.float32_math import f32_erf


# the product's composite (passes/float32_math.py), compiled as the generated modules compile it
erf_composite = triton.jit(f32_erf)


@triton.jit
def erf_k(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    tid = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = tid < n
    tl.store(o_ptr + tid, erf_composite(tl.load(x_ptr + tid, mask=m)), mask=m)


def ulp_error(values):
    """Largest error of erf_composite in float32 ulps of float64 erf, over `values`."""
    out = torch.empty_like(values)
    erf_k[(triton.cdiv(values.numel(), 1024),)](values, out, values.numel(), BLOCK=1024)
    ref = torch.erf(values.double())
    ulp = (ref.float().abs().nextafter(torch.tensor(float("inf"), device=ref.device)) - ref.float().abs()).double()
    err = (out.double() - ref).abs() / ulp
    worst = int(err.argmax())
    return float(err.max()), float(values[worst]), bool(torch.equal(out.isnan(), values.isnan()))


@triton.jit
def gelu_k(x_ptr, o_ptr, n, BLOCK: tl.constexpr, ERF: tl.constexpr):
    tid = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = tid < n
    x = tl.load(x_ptr + tid, mask=m).to(tl.float32)
    if ERF == "libdevice":
        e = libdevice.erf(x * 0.7071067811865476)
    elif ERF == "tl.math":
        e = tl.math.erf(x * 0.7071067811865476)
    elif ERF == "composite":
        e = erf_composite(x * 0.7071067811865476)
    else:  # the memory floor: the same loads, stores and casts, one multiply for the erf
        e = x * 0.7071067811865476
    tl.store(o_ptr + tid, (0.5 * x * (1.0 + e)).to(o_ptr.dtype.element_ty), mask=m)


def kernel_events(fn):
    """(name, grid, block, registers per thread) of the CUDA kernels one call of fn launches."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        prof.export_chrome_trace(f.name)
        trace = json.load(open(f.name))
    return [(e["name"][:60], e["args"].get("grid"), e["args"].get("block"),
             e["args"].get("registers per thread"))
            for e in trace["traceEvents"] if e.get("cat") == "kernel"]


if sys.argv[1:] == ["--ncu"]:
    # one launch of each, for `ncu --metrics smsp__inst_executed.sum` to count instructions
    x = torch.randn(2 ** 24, device="cuda").to(torch.bfloat16)
    out = torch.empty_like(x)
    F.gelu(x)
    OPS["gelu"].ours(x)
    for erf in ("libdevice", "composite", "none"):
        gelu_k[(2 ** 24 // 1024,)](x, out, x.numel(), BLOCK=1024, ERF=erf, num_warps=4)
    torch.cuda.synchronize()
    sys.exit()

special = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1e-38, 1e-45, 3.9, 4.1, 10.0],
                       device="cuda")
grid = torch.linspace(-6, 6, 2 ** 24 + 1, device="cuda")
print("erf_composite accuracy (max ulp, at, nan where nan): dense [-6, 6]", ulp_error(grid),
      "| near 0", ulp_error(torch.logspace(-38, 0, 2 ** 20, device="cuda")))
out = torch.empty_like(special)
erf_k[(1,)](special, out, special.numel(), BLOCK=16)
print("  specials", special.tolist(), "->", out.tolist())

for dtype in (torch.bfloat16, torch.float16, torch.float32):
    n = 2 ** 27
    x = torch.randn(n, device="cuda").to(dtype)
    ref = F.gelu(x)
    out = torch.empty_like(ref)
    ours = OPS["gelu"].ours
    ours(x)
    name = str(dtype)[6:]
    print(f"gelu {name} 2^27: eager {best_us(lambda: F.gelu(x)):.1f} us, tritonize {best_us(lambda: ours(x)):.1f} us",
          flush=True)
    print("  eager kernels:", kernel_events(lambda: F.gelu(x)))
    print("  tritonize kernels:", kernel_events(lambda: ours(x)))
    compiled = ours._recipes[signature_key((x,))].compiled
    print(f"  tritonize {compiled.n_regs} registers, {compiled.n_spills} spills")
    for erf in ("libdevice", "tl.math", "composite", "none"):
        line = f"  hand-written, erf {erf}:"
        for block, warps in ((1024, 4), (2048, 4), (4096, 4), (2048, 8), (4096, 8), (512, 4)):
            f = lambda: gelu_k[(triton.cdiv(n, block),)](x, out, n, BLOCK=block, ERF=erf, num_warps=warps)
            handle = f()
            if erf != "none":
                torch.testing.assert_close(out.float(), ref.float(), rtol=2e-2, atol=2e-2)
            line += f" {block}/{warps} {best_us(f):.1f}"
            if (block, warps) in ((1024, 4), (2048, 4)) and erf == "libdevice":
                line += f" [{handle.n_regs} regs]"
        print(line, flush=True)
