"""Launch shapes for the heavy rows (math_table.HEAVY_ROWS: J0, Y0, ...) where their data lies: the op
library's kernel for tritonize.ops.OP on 2^24 elements of a domain, launched with other flat blocks and warp
counts (call.LAUNCH_SHAPE_OVERRIDE, as benchmarks/tune.py does for the benchmark ops), beside torch eager.
A heavy row's branch that a block skips still sets the kernel's registers, so the blocks an SM holds; data
that takes only the light branch (J0 below 5) may be bound by the bytes in flight, which the elements a thread
and the blocks an SM set (results/experiment_heavy_blocks_h100.txt: no other shape beat the defaults).
us per launch (do_bench median, least of 3); each result checked against the default launch's bits.

    python -m benchmarks.experiments.heavy_blocks [op ...]
"""
from __future__ import annotations

import sys

import torch
import triton

import tritonize
import tritonize.ops
from tritonize import call, decorator
from tritonize.ops import math_ops
from benchmarks.experiments import best_us

DOMAINS = {"bessel_j0": ((-2.0, 2.0), (25.0, 400.0)), "bessel_y0": ((0.0, 2.0), (25.0, 400.0))}
DEVICE, NUMEL = "cuda", 2**24
CONFIGS = [((1024,), 4), ((512,), 4), ((256,), 4), ((128,), 4), ((256,), 2), ((512,), 8)]


def kernels():
    return [k for k in vars(math_ops).values() if isinstance(k, decorator.PointwiseFunction)]


def launch_with(config):
    call.LAUNCH_SHAPE_OVERRIDE = None if config is None else (lambda sizes, tile: config)
    for kernel in kernels():
        kernel._recipes.clear()
        kernel._out_recipes.clear()


def main():
    print(f"# python -m benchmarks.experiments.heavy_blocks ({torch.cuda.get_device_name() if DEVICE == 'cuda' else DEVICE}, torch "
          f"{torch.__version__.split('+')[0]}, triton {triton.__version__})", flush=True)
    generator = torch.Generator(device=DEVICE).manual_seed(0)
    for name, domains in DOMAINS.items():
        if sys.argv[1:] and name not in sys.argv[1:]:
            continue
        eager, ours = getattr(torch.special, name), getattr(tritonize.ops, name)
        for dtype in (torch.float32, torch.float64):
            for low, high in domains:
                x = (torch.rand(NUMEL, device=DEVICE, dtype=torch.float64, generator=generator) * (high - low)
                     + low).to(dtype)
                launch_with(None)
                expected = ours(x)
                eager_us = best_us(lambda: eager(x))
                line = [f"{name:10} {str(dtype)[6:]:8} [{low:g}, {high:g}] eager {eager_us:6.1f}:"]
                for config in [None] + CONFIGS:
                    launch_with(config)
                    try:
                        got = ours(x)
                        same = bool(((got == expected) | (got.isnan() & expected.isnan())).all())
                        us = best_us(lambda: ours(x))
                    finally:
                        launch_with(None)
                    label = "default" if config is None else f"{config[0][0]}/{config[1]}"
                    line.append(f"{label} {us:6.1f} ({eager_us / us:.3f}x){'' if same else ' DIFFERS'}")
                print("  ".join(line), flush=True)


if __name__ == "__main__":
    main()
