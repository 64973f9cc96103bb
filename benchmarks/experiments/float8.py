"""8-bit float quantize and dequantize against torch eager, torch.compile and a device copy of the same bytes, on
one GPU: us per call (do_bench median of single launches, the best of three rounds that take the systems in turn),
GB/s and the fraction of the same-size copy, each result checked against eager first (bit for bit where eager
computes as one kernel does).

- quantize: `min(max(x * scale, -448), 448)` from float32 or bfloat16 to float8_e4m3fn, a 0-d scale in GPU
  memory (eager: a multiply, a clamp and a conversion, three kernels; torch.compile: one);
- dequantize: float8_e4m3fn times a per-row float32 scale to bfloat16 (eager: a conversion, a multiply and a
  conversion).

    python -m benchmarks.experiments.float8 [--sizes 20,24,27]
"""
from __future__ import annotations

import argparse

import torch
import triton

from benchmarks.run import best_in_turn, median_us, same_bytes_copy
from tritonize import pointwise

E4M3 = torch.float8_e4m3fn


@pointwise(promotion=E4M3)
def quantize(x, scale):
    return min(max(x * scale, -448.0), 448.0)


@pointwise(promotion=torch.bfloat16)
def dequantize(q: torch.float32, scale):
    return q * scale


def eager_quantize(x, scale):
    return (x * scale).clamp(-448.0, 448.0).to(E4M3)


def eager_dequantize(q, scale):
    return (q.float() * scale).to(torch.bfloat16)


def codes(t):
    t = t.contiguous()
    bits = t.view({1: torch.uint8, 2: torch.int16}[t.element_size()]).to(torch.int32)
    return torch.where(t.float().isnan(), -1, bits)


def row(label, ours, eager, compiled, moved, exact):
    reference = eager()
    if exact:  # one rounding either way: equal codes
        assert torch.equal(codes(ours()), codes(reference)), label
        assert torch.equal(codes(compiled()), codes(reference)), label + " (torch.compile)"
    else:  # eager rounds a bfloat16 product first: at most one 8-bit step apart
        assert torch.allclose(ours().float(), reference.float(), rtol=0.13, atol=2**-9, equal_nan=True), label
    best = best_in_turn({"tritonize": lambda: median_us(ours), "eager": lambda: median_us(eager),
                         "torch.compile": lambda: median_us(compiled),
                         "copy": lambda: median_us(same_bytes_copy(moved, "cuda"))}, 3)
    print(f"{label:44s} tritonize {best['tritonize']:8.1f} us {moved / best['tritonize'] / 1e3:6.0f} GB/s "
          f"({100 * best['copy'] / best['tritonize']:3.0f}% of copy)  eager {best['eager']:8.1f}  "
          f"torch.compile {best['torch.compile']:8.1f}  x{best['eager'] / best['tritonize']:.2f} eager  "
          f"x{best['torch.compile'] / best['tritonize']:.2f} compile")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20,24,27", help="powers of two of the element count")
    args = parser.parse_args(argv)
    print(f"# float8 quantize/dequantize, {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"triton {triton.__version__}")
    compiled_quantize = torch.compile(eager_quantize)
    compiled_dequantize = torch.compile(eager_dequantize)
    for exponent in (int(e) for e in args.sizes.split(",")):
        rows, cols = 2 ** (exponent // 2), 2 ** (exponent - exponent // 2)
        for dtype in (torch.float32, torch.bfloat16):
            x = torch.randn(rows, cols, device="cuda", dtype=dtype) * 100
            scale = torch.tensor(1.7, device="cuda")
            moved = x.numel() * (x.element_size() + 1)
            row(f"quantize {str(dtype)[6:]} -> e4m3fn 2^{exponent}", lambda: quantize(x, scale),
                lambda: eager_quantize(x, scale), lambda: compiled_quantize(x, scale), moved,
                exact=dtype == torch.float32)
        q = (torch.randn(rows, cols, device="cuda") * 100).to(E4M3)
        scale = torch.rand(rows, 1, device="cuda")
        moved = q.numel() * 3 + rows * 4
        row(f"dequantize e4m3fn -> bfloat16 2^{exponent}", lambda: dequantize(q, scale),
            lambda: eager_dequantize(q, scale), lambda: compiled_dequantize(q, scale), moved, exact=True)


if __name__ == "__main__":
    main()
