"""Register caps for the Bessel functions (math_table.BRANCHED_HEAVY_ROWS), where their data lies: the op library's
kernel for tritonize.ops.OP on 2^24 elements of a domain below 5 (every block skips the Hankel branch), across 5,
and above it (every block takes it), with ptxas held to each of CAPS registers a thread (call.CAPPED_REGISTERS,
Triton's `maxnreg`; 0: ptxas chooses; Y0 and Y1 too, which the op library leaves unheld), beside torch eager. ptxas allocates for the kernel's longest path, so the
branch a block skips still sets the blocks an SM holds (results/sass_heavy_branches_sm90.txt); a cap lets more
blocks in below 5 and spills inside the branch above it. us per launch (do_bench median, least of 3); each result
checked against the uncapped launch's bits.

    python -m benchmarks.experiments.register_caps [op ...] [--float32 0,40,48] [--float64 0,48,64]
        (the caps to time in each dtype, 0 for none; a dtype given an empty list is left out)
"""
from __future__ import annotations

import argparse

import torch
import triton

import tritonize
import tritonize.ops
from tritonize import call
from tritonize.passes.math_table import BRANCHED_HEAVY_ROWS, CAPPED_ROWS, caps_registers
from benchmarks.experiments import best_us
from benchmarks.experiments.heavy_blocks import kernels

DOMAINS = {"bessel_j0": ((-2.0, 2.0), (-30.0, 30.0), (25.0, 400.0)),
           "bessel_j1": ((-2.0, 2.0), (25.0, 400.0)),
           "bessel_y0": ((0.0, 2.0), (0.0, 30.0), (25.0, 400.0)),
           "bessel_y1": ((0.0, 2.0), (25.0, 400.0))}
CAPS = {torch.float32: (0, 32, 40, 48), torch.float64: (0, 40, 48, 56, 64)}
DEVICE, NUMEL = "cuda", 2**24
# the per-function memos that hold a plan's Specialization, and so its register cap
PLAN_MEMOS = ("_recipes", "_out_recipes", "_class_templates", "_class_walks", "_leading_walks", "_leading_probes",
              "_scaled_probes", "_seen", "_kernels")


def cap_registers(wide: bool, cap: int, rows: set = BRANCHED_HEAVY_ROWS):
    """Hold flat launches of kernels that call `rows` (and no other heavy row; the op library caps
    math_table.CAPPED_ROWS) of float64 (`wide`) or narrower operands to `cap` registers, and forget the op
    library's plans so that the next call plans with it."""
    call.CAPPED_REGISTERS[wide] = cap
    for kernel in kernels():
        kernel._caps_registers = caps_registers(kernel._ctx.tree, rows)  # as decorator._setup takes it
        for memo in PLAN_MEMOS:
            getattr(kernel, memo).clear()


def compiled_registers() -> str:
    """The registers and spilled bytes a thread of the op library's compiled kernels (one, after cap_registers)."""
    compiled = [k for kernel in kernels() for k in kernel._kernels.values()]
    return ",".join(f"{getattr(k, 'n_regs', '?')}r{'+' + str(k.n_spills) + 's' if getattr(k, 'n_spills', 0) else ''}"
                    for k in compiled)


def parse_caps(text: str) -> tuple:
    return tuple(int(cap) for cap in text.split(",") if cap)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ops", nargs="*", help="some of DOMAINS' ops (all by default)")
    parser.add_argument("--float32", type=parse_caps, default=CAPS[torch.float32])
    parser.add_argument("--float64", type=parse_caps, default=CAPS[torch.float64])
    args = parser.parse_args()
    caps_by_dtype = {torch.float32: args.float32, torch.float64: args.float64}
    print(f"# python -m benchmarks.experiments.register_caps ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__.split('+')[0]}, triton {triton.__version__}); defaults {call.CAPPED_REGISTERS}",
          flush=True)
    defaults = dict(call.CAPPED_REGISTERS)
    generator = torch.Generator(device=DEVICE).manual_seed(0)
    for name, domains in DOMAINS.items():
        if args.ops and name not in args.ops:
            continue
        eager, ours = getattr(torch.special, name), getattr(tritonize.ops, name)
        for dtype, caps in caps_by_dtype.items():
            if not caps:
                continue
            wide = dtype == torch.float64
            for low, high in domains:
                x = (torch.rand(NUMEL, device=DEVICE, dtype=torch.float64, generator=generator) * (high - low)
                     + low).to(dtype)
                cap_registers(wide, 0)
                expected = ours(x)
                eager_us = best_us(lambda: eager(x))
                line = [f"{name:10} {str(dtype)[6:]:8} [{low:g}, {high:g}] eager {eager_us:6.1f}:"]
                for cap in caps:
                    cap_registers(wide, cap)
                    try:
                        got = ours(x)
                        same = bool(((got == expected) | (got.isnan() & expected.isnan())).all())
                        us = best_us(lambda: ours(x))
                        registers = compiled_registers()
                    finally:
                        cap_registers(wide, defaults[wide], CAPPED_ROWS)
                    line.append(f"{cap or 'none'} [{registers}] {us:6.1f} ({eager_us / us:.3f}x)"
                                f"{'' if same else ' DIFFERS'}")
                print("  ".join(line), flush=True)


if __name__ == "__main__":
    main()
