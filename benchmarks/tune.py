"""Launch-shape sweep: the kernel tritonize generates for an op and a layout case, launched
with other block sizes (tile edges for tiled kernels) and warp counts, beside torch eager,
optionally torch.compile, and a plain device copy of the same number of bytes. What decides
`tritonize.call.launch_shape`.

    python -m benchmarks.tune add --cases contiguous,"row broadcast" --dtypes float32 --exponents 20,24

`--graph` times each configuration as a CUDA graph of launches on rotating input sets (more bytes
than the L2 holds) instead of single launches: precise to ~0.05 us where a single launch's CUDA
events resolve ~0.5 us, which is what decides launch shapes at 2^20..2^22.
"""
from __future__ import annotations

import argparse

import torch

from benchmarks.cases import CASES, OPS, bytes_moved, make_inputs
from benchmarks.run import check, compile_static, copy_bandwidth, graph_us, median_us, rotating_inputs, same_bytes_copy
from tritonize import call

FLAT_CONFIGS = [((1024,), 4), ((512,), 4), ((512,), 8), ((256,), 2), ((256,), 4), ((1024,), 8), ((2048,), 4),
                ((2048,), 8), ((4096,), 8)]
TILE_CONFIGS = [((64, 64), 4), ((32, 32), 4), ((32, 64), 4), ((64, 32), 4), ((64, 64), 8), ((32, 128), 4),
                ((128, 32), 4), ((64, 128), 8), ((128, 64), 8)]


def sweep(name: str, case: str, dtype: torch.dtype, exponent: int, copy_bw: float, compiled: bool,
          graph: bool = False, configs=None):
    op = OPS[name]
    inputs = make_inputs(case, 2**exponent, op.arity, dtype, "cuda", op.bool_first)
    fn = op.ours
    reference = op.eager(*inputs)
    outputs = reference if isinstance(reference, tuple) else (reference,)
    moved = bytes_moved(inputs, outputs)
    sets = rotating_inputs(inputs, case, 2**exponent, op, dtype, "cuda", moved) if graph else [inputs]

    def time(function):  # microseconds per call of function(*inputs)
        if graph:
            return graph_us([lambda x=x: function(*x) for x in sets])
        return median_us(lambda: function(*inputs))

    plan, spec = fn.plan(fn._positional(tuple(inputs), {}), {}, None, positional=True)
    eager_us = time(op.eager)
    copies = [same_bytes_copy(moved, "cuda", allocate=graph) for _ in sets]  # as the systems' calls
    copy_us = graph_us(copies) if graph else median_us(copies[0])
    line = (f"{name} | {case} | {str(dtype)[6:]} | 2^{exponent} | rank {spec.rank}"
            f"{' tiled' if spec.tile else ''}: copy of the same bytes {copy_us:.2f} us "
            f"({moved / copy_us / 1e3 / copy_bw:.0%} of peak copy), eager {eager_us:.2f} us")
    if compiled:
        function = compile_static(op.eager)
        check(name + " (torch.compile)", function(*inputs), reference, dtype)
        line += f", torch.compile {time(function):.2f} us"
    print(line, flush=True)
    default = (plan.blocks, plan.warps)
    configs = configs or (TILE_CONFIGS if spec.tile else FLAT_CONFIGS)
    for blocks, warps in [default] + [c for c in configs if c != default]:
        call.LAUNCH_SHAPE_OVERRIDE = lambda sizes, tile: (blocks, warps)  # noqa: B023
        fn._recipes.clear()
        try:
            check(name, fn(*inputs), reference, dtype)
            us = time(fn)
        finally:
            call.LAUNCH_SHAPE_OVERRIDE = None
            fn._recipes.clear()
        label = "default" if (blocks, warps) == default else ""
        print(f"  {label:7} blocks {'x'.join(map(str, blocks)):>7} warps {warps:2d}: {us:8.2f} us "
              f"{moved / us / 1e3:6.0f} GB/s ({moved / us / 1e3 / copy_bw:4.0%} of peak copy, "
              f"{copy_us / us:4.0%} of same-size copy, {eager_us / us:.2f}x eager)", flush=True)


def parse_configs(text):
    """'1024/4,64x64/8' -> [((1024,), 4), ((64, 64), 8)]; None stays None."""
    if not text:
        return None
    configs = []
    for item in text.split(","):
        blocks, warps = item.split("/")
        configs.append((tuple(int(b) for b in blocks.split("x")), int(warps)))
    return configs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ops", nargs="*", default=["add"])
    parser.add_argument("--cases", default="contiguous", help=f"comma-separated, from {CASES}")
    parser.add_argument("--dtypes", default="float32")
    parser.add_argument("--exponents", default="24")
    parser.add_argument("--compile", action="store_true", help="also time torch.compile")
    parser.add_argument("--graph", action="store_true", help="time CUDA graphs of launches on rotating inputs")
    parser.add_argument("--configs", help="BLOCK/WARPS or ROWSxCOLS/WARPS, comma-separated (default: a sweep)")
    args = parser.parse_args(argv)
    copy_bw = copy_bandwidth("cuda") / 1e9
    print(f"peak copy {copy_bw:.0f} GB/s (best of 2^26..2^28 fp32)", flush=True)
    for name in args.ops:
        for case in args.cases.split(","):
            for dtype in args.dtypes.split(","):
                for exponent in map(int, args.exponents.split(",")):
                    sweep(name, case, getattr(torch, dtype), exponent, copy_bw, args.compile, args.graph,
                          parse_configs(args.configs))


if __name__ == "__main__":
    main()
