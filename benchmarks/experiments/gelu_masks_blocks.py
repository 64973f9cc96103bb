"""Hand-written 16-bit gelu and silu kernels, masked and unmasked, at several blocks and warps,
beside tritonize and eager: is 16-bit gelu bound by per-element mask and index work?

    python -m benchmarks.experiments.gelu_masks_blocks
"""
import torch
import triton
import triton.language as tl
import torch.nn.functional as F
from triton.language.extra import libdevice
from benchmarks.cases import OPS
from benchmarks.experiments import best_us

@triton.jit
def gelu_k(x_ptr, o_ptr, n, BLOCK: tl.constexpr, MASKED: tl.constexpr):
    tid = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if MASKED:
        m = tid < n
        x = tl.load(x_ptr + tid, mask=m).to(tl.float32)
        tl.store(o_ptr + tid, (0.5 * x * (1.0 + libdevice.erf(x * 0.7071067811865476))).to(o_ptr.dtype.element_ty), mask=m)
    else:
        x = tl.load(x_ptr + tid).to(tl.float32)
        tl.store(o_ptr + tid, (0.5 * x * (1.0 + libdevice.erf(x * 0.7071067811865476))).to(o_ptr.dtype.element_ty))

@triton.jit
def silu_k(x_ptr, o_ptr, n, BLOCK: tl.constexpr, MASKED: tl.constexpr):
    tid = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if MASKED:
        m = tid < n
        x = tl.load(x_ptr + tid, mask=m).to(tl.float32)
        tl.store(o_ptr + tid, (x / (1.0 + libdevice.exp(-x))).to(o_ptr.dtype.element_ty), mask=m)
    else:
        x = tl.load(x_ptr + tid).to(tl.float32)
        tl.store(o_ptr + tid, (x / (1.0 + libdevice.exp(-x))).to(o_ptr.dtype.element_ty))

for dtype in (torch.bfloat16, torch.float16, torch.float32):
    for exp in (24, 27):
        n = 2**exp
        x = torch.randn(n, device="cuda").to(dtype)
        for name, kern, eager in (("gelu", gelu_k, F.gelu), ("silu", silu_k, F.silu)):
            if dtype == torch.float32 and name == "silu":
                continue
            ref = eager(x); out = torch.empty_like(ref)
            ours = OPS[name].ours
            line = f"{name} {str(dtype)[6:]} 2^{exp}: eager {best_us(lambda: eager(x)):.1f} ours {best_us(lambda: ours(x)):.1f} |"
            for block, warps in ((1024, 4), (2048, 4), (2048, 8), (4096, 8)):
                for masked in (True, False):
                    f = lambda: kern[(n // block,)](x, out, n, BLOCK=block, MASKED=masked, num_warps=warps)
                    f(); torch.testing.assert_close(out.float(), ref.float(), rtol=2e-2, atol=2e-2)
                    line += f" {block}/{warps}{'m' if masked else 'u'} {best_us(f):.1f}"
            print(line, flush=True)
