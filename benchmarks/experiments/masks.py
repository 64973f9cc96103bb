"""Hand-written flat where and if/else kernels, masked and unmasked, at several blocks and warps,
beside tritonize, eager and torch.compile: do masks or launch shapes explain 2^20 gaps?

    python -m benchmarks.experiments.masks
"""
import torch
import triton
import triton.language as tl
from triton.testing import do_bench
from benchmarks.cases import OPS, make_inputs

def us(fn): return do_bench(fn, warmup=25, rep=200, return_mode="median") * 1e3

@triton.jit
def where_k(c_ptr, a_ptr, b_ptr, o_ptr, n, BLOCK: tl.constexpr, MASKED: tl.constexpr):
    tid = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if MASKED:
        m = tid < n
        c = tl.load(c_ptr + tid, mask=m); a = tl.load(a_ptr + tid, mask=m); b = tl.load(b_ptr + tid, mask=m)
        tl.store(o_ptr + tid, tl.where(c, a, b), mask=m)
    else:
        c = tl.load(c_ptr + tid); a = tl.load(a_ptr + tid); b = tl.load(b_ptr + tid)
        tl.store(o_ptr + tid, tl.where(c, a, b))

@triton.jit
def clip_k(x_ptr, o_ptr, slope, n, BLOCK: tl.constexpr, MASKED: tl.constexpr):
    tid = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if MASKED:
        m = tid < n
        x = tl.load(x_ptr + tid, mask=m)
    else:
        m = None
        x = tl.load(x_ptr + tid)
    r = tl.where(x > 6.0, 6.0, x)
    r = tl.where(x < 0.0, x * slope, r)
    if MASKED:
        tl.store(o_ptr + tid, r, mask=m)
    else:
        tl.store(o_ptr + tid, r)

for exp in (20, 22, 24):
    n = 2**exp
    for name in ("where", "if_else (user)"):
        op = OPS[name]
        x = make_inputs("contiguous", n, op.arity, torch.float32, "cuda", op.bool_first)
        ref = op.eager(*x)
        comp = torch.compile(op.eager)
        comp(*x)
        line = f"{name} 2^{exp}: ours {us(lambda: op.ours(*x)):.2f}  eager {us(lambda: op.eager(*x)):.2f}  compile {us(lambda: comp(*x)):.2f} |"
        out = torch.empty_like(ref)
        for block, warps in ((1024, 4), (512, 4), (512, 8), (2048, 8)):
            for masked in (True, False):
                grid = (n // block,)
                if name == "where":
                    f = lambda: where_k[grid](*x, out, n, BLOCK=block, MASKED=masked, num_warps=warps)
                else:
                    f = lambda: clip_k[grid](x[0], out, 0.01, n, BLOCK=block, MASKED=masked, num_warps=warps)
                f(); torch.testing.assert_close(out, ref)
                line += f" {block}/{warps}{'m' if masked else 'u'} {us(f):.2f}"
        print(line, flush=True)
