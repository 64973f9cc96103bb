"""Launch-configuration sweep for one op on contiguous inputs: the kernel tritonize generates,
launched with other block sizes, warp counts and libdevice flush-to-zero settings, beside
torch eager. What decides CUDA_BLOCK / CUDA_WARPS and the ftz choice in dsl/decorator.py.

    python -m benchmarks.tune gelu bfloat16 27
"""
from __future__ import annotations

import argparse

import torch

from benchmarks.cases import OPS, make_inputs
from benchmarks.run import copy_bandwidth, median_us

CONFIGS = [(1024, 4), (2048, 4), (2048, 8), (4096, 8), (4096, 16), (512, 4), (1024, 8)]


def sweep(name: str, dtype: torch.dtype, exponent: int, copy_bw: float):
    op = OPS[name]
    inputs = make_inputs("contiguous", 2**exponent, op.arity, dtype, "cuda", op.bool_first)
    fn = op.ours
    plan, spec = fn.plan(inputs, {}, None, positional=True)
    assert spec.tile is None and spec.rank == 1, "the sweep covers flat (rank-1) kernels"
    module = fn.module_for(spec)[0]
    kernel = next(getattr(module, n) for n in dir(module) if n.endswith("_kernel") and hasattr(module, n))
    outputs = [o.tensor for o in plan.outputs]
    strides = [s for o in plan.inputs + plan.outputs for s in o.strides]
    args = [o.tensor for o in plan.inputs] + outputs + strides + [plan.numel]
    reference = op.eager(*inputs)
    moved = sum(t.numel() * t.element_size() for t in inputs) + sum(o.numel() * o.element_size() for o in outputs)
    eager_us = median_us(lambda: op.eager(*inputs))
    print(f"{name} {dtype} 2^{exponent}: eager {eager_us:.1f} us ({moved / eager_us / 1e3 / copy_bw:.0%} copy)")
    for ftz in (False, True):
        for block, warps in CONFIGS:
            grid = (triton_cdiv(plan.numel, block),)

            def launch():
                kernel[grid](*args, BLOCK=block, num_warps=warps, enable_reflect_ftz=ftz)
            launch()
            torch.testing.assert_close(outputs[0].float(), (reference[0] if isinstance(reference, tuple)
                                                            else reference).float(), rtol=2e-2, atol=2e-2)
            us = median_us(launch)
            print(f"  ftz={ftz!s:5} BLOCK={block:5d} warps={warps:2d}: {us:8.1f} us "
                  f"{moved / us / 1e3:7.0f} GB/s ({moved / us / 1e3 / copy_bw:.0%} copy, "
                  f"{eager_us / us:.2f}x eager)")


def triton_cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ops", nargs="*", default=["gelu", "silu", "add"])
    parser.add_argument("--dtypes", default="bfloat16,float16,float32")
    parser.add_argument("--exponent", type=int, default=26)
    args = parser.parse_args(argv)
    copy_bw = copy_bandwidth("cuda") / 1e9
    print(f"copy {copy_bw:.0f} GB/s")
    for name in args.ops:
        for dtype in args.dtypes.split(","):
            sweep(name, getattr(torch, dtype), args.exponent, copy_bw)


if __name__ == "__main__":
    main()
