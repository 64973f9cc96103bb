"""Tiled kernels (transposed and permuted operands) at small sizes: tiles of fewer elements
and fewer warps against the 4096-element tile of 4 warps, beside eager and a same-size copy.
At 2^12..2^16 one to sixteen programs of 4096 elements each run the whole op, and tritonize
ran 0.78-0.97x eager there (latest.md): is a kernel that small bound by one program's length?

    python -m benchmarks.experiments.small_tiles
"""
import math

import torch

from benchmarks.cases import OPS, bytes_moved, make_inputs
from benchmarks.experiments import best_us
from benchmarks.run import check, graph_us, rotating_inputs, same_bytes_copy
from tritonize import call

CASES = ("transposed + contiguous", "rank-3 permuted", "rank-4 permuted")
EXPONENTS = (12, 14, 16, 18, 20)
# (elements per tile, warps)
RULES = ((4096, 4), (2048, 4), (1024, 4), (512, 4), (2048, 2), (1024, 2), (512, 2), (512, 1), (256, 1))


def rule_override(elements, warps):
    def override(sizes, tile):
        return (call.tile_blocks(sizes, tile, elements), warps) if tile else None
    return override


def main():
    op = OPS["add"]
    for case in CASES:
        for exponent in EXPONENTS:
            n = 2**exponent
            inputs = make_inputs(case, n, 2, torch.float32, "cuda")
            reference = op.eager(*inputs)
            moved = bytes_moved(inputs, (reference,))
            sets = rotating_inputs(inputs, case, n, op, torch.float32, "cuda", moved)
            eager_single = best_us(lambda: op.eager(*inputs))
            eager_graph = graph_us([lambda x=x: op.eager(*x) for x in sets])
            copy_single = best_us(same_bytes_copy(moved, "cuda"))
            print(f"add {case} float32 2^{exponent}: eager single {eager_single:.2f} us, graph {eager_graph:.2f} us; "
                  f"same-size copy single {copy_single:.2f} us", flush=True)
            for elements, warps in RULES:
                call.LAUNCH_SHAPE_OVERRIDE = rule_override(elements, warps)
                op.ours._recipes.clear()
                try:
                    check("add", op.ours(*inputs), reference, torch.float32)
                    plan, spec = op.ours.plan(op.ours._positional(tuple(inputs), {}), {}, None, positional=True)
                    single = best_us(lambda: op.ours(*inputs))
                    graph = graph_us([lambda x=x: op.ours(*x) for x in sets])
                finally:
                    call.LAUNCH_SHAPE_OVERRIDE = None
                    op.ours._recipes.clear()
                grid = math.prod(call.launch_grid(plan, spec.tile))
                print(f"  tile {elements:5d} ({'x'.join(map(str, plan.blocks)):>7}) warps {warps}: {grid:6d} programs,"
                      f" single {single:6.2f} us ({eager_single / single:.2f}x eager), graph {graph:6.2f} us"
                      f" ({eager_graph / graph:.2f}x eager)", flush=True)


if __name__ == "__main__":
    main()
