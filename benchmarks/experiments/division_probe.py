"""How CUDA eager divides a tensor by a number (ATen's div_true_kernel_cuda with a CPU scalar): torch.div's
result against candidate products and quotients, counted in mismatching elements of 8192. Each candidate
is itself computed by torch's CUDA ops: `a*f32(1/b)` multiplies by a Python float (exact in float32), and
`a/f32(b)` is again a division by a number, so torch's own product (it equals `a*f32(1/f32(b))`); `a/b f64`
is the correctly rounded quotient. Session 42 found `a*f32(1/b)`: the reciprocal from b's double, rounded
once to float32 (x / 1e-3 is x * 1000.0), 0 mismatches everywhere; the quotient differs on 24-54% of
float32 elements by 3, 0.7, 7 or 49 (ops.div follows it on CUDA since: ops/arithmetic.cuda_reciprocal).

    python -m benchmarks.experiments.division_probe
"""
import struct

import torch


def f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]


def main():
    g = torch.Generator().manual_seed(21)
    base = torch.randn(8192, generator=g) * 100
    for dtype in (torch.float32, torch.bfloat16, torch.float16, torch.int32):
        a = base.to(dtype).cuda()
        for b in (3.0, 0.7, 1e-3, 7, 49):
            t = torch.div(a, b)
            af = a.float()
            cands = {
                "a*f32(1/f32(b))": (af * f32(1.0 / f32(b))).to(t.dtype),
                "a*f32(1/b)": (af * f32(1.0 / b)).to(t.dtype),
                "a/f32(b)": (af / f32(b)).to(t.dtype),
                "a*(1/b) f64": (a.double() * (1.0 / b)).to(t.dtype),
                "a/b f64": (a.double() / b).to(t.dtype),
            }
            print(str(dtype)[6:], b, {k: int((v != t).sum()) for k, v in cands.items()})
        a = base.to(dtype).cuda()
        print("0-d cpu f64 0.3:", {k: int((v != torch.div(a, torch.tensor(0.3, dtype=torch.float64))).sum()) for k, v in {
            "a*f32(1/f32(b))": (a.float() * f32(1.0 / f32(0.3))), "a/b f64->": (a.double() / 0.3)}.items()})


if __name__ == "__main__":
    main()
