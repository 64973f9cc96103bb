"""What stands between a 16-bit broadcast add at 2^24 elements (64 MB moved) and 90% of the peak
copy back to back? Copies of the same bytes written by hand in Triton, launched as a grid of
blocks of several sizes and warps, as a persistent grid (a few programs per multiprocessor
walking the blocks in a loop, so that no block waits to be scheduled and the last wave is short),
with streaming cache hints (loads evict_first, stores .cs), and with dependent launch; beside
torch's copy kernel (`x * 1`), tritonize's broadcast adds with other launch shapes, and
torch.compile. All as CUDA graphs of launches on rotating inputs, each writing an output of its
own, replayed back to back (benchmarks.run.steady_us), the least of three rounds taken in turn.

    python -m benchmarks.experiments.launch_tail [--exponents 24,25]
"""
import argparse

import torch
import triton
import triton.language as tl

from benchmarks import run
from benchmarks.cases import OPS, bytes_moved, make_inputs
from benchmarks.experiments import header
from tritonize import call

try:
    from triton.language.extra import cuda as tl_cuda
except ImportError:  # a Triton without the grid-dependency ops: no dependent-launch variant
    tl_cuda = None


@triton.jit
def grid_copy(src, dst, BLOCK: tl.constexpr, STREAMING: tl.constexpr, DEPENDENT: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if DEPENDENT:
        tl_cuda.gdc_wait()
    if STREAMING:
        values = tl.load(src + offsets, eviction_policy="evict_first")
    else:
        values = tl.load(src + offsets)
    if DEPENDENT:
        tl_cuda.gdc_launch_dependents()
    if STREAMING:
        tl.store(dst + offsets, values, cache_modifier=".cs")
    else:
        tl.store(dst + offsets, values)


@triton.jit
def persistent_copy(src, dst, numel, BLOCK: tl.constexpr):
    # numel is a multiple of BLOCK here: no masks
    for start in range(tl.program_id(0) * BLOCK, numel, tl.num_programs(0) * BLOCK):
        offsets = start + tl.arange(0, BLOCK)
        tl.store(dst + offsets, tl.load(src + offsets))


def hand_copies(numel: int, dtype, multiprocessors: int) -> dict:
    """label -> a function that makes one copy of `numel` elements (a source and destination of
    its own per call of the returned factory)."""
    def grid(block, warps, streaming=False, dependent=False):
        def factory():
            src = torch.randn(numel, device="cuda").to(dtype)
            dst = torch.empty_like(src)
            extra = {"launch_pdl": True} if dependent else {}

            def copy():
                grid_copy[(numel // block,)](src, dst, BLOCK=block, STREAMING=streaming, DEPENDENT=dependent,
                                             num_warps=warps, **extra)
                return dst
            return copy, src, dst
        return factory

    def persistent(per_multiprocessor, block, warps):
        def factory():
            src = torch.randn(numel, device="cuda").to(dtype)
            dst = torch.empty_like(src)

            def copy():
                persistent_copy[(per_multiprocessor * multiprocessors,)](src, dst, numel, BLOCK=block,
                                                                        num_warps=warps)
                return dst
            return copy, src, dst
        return factory

    copies = {f"grid {b}/{w}": grid(b, w) for b, w in ((1024, 4), (512, 2), (2048, 4), (2048, 8), (4096, 4),
                                                         (4096, 8), (8192, 4), (8192, 8), (8192, 16),
                                                         (16384, 8), (16384, 16))}
    copies["grid 1024/4 streaming"] = grid(1024, 4, streaming=True)
    copies["grid 8192/8 streaming"] = grid(8192, 8, streaming=True)
    if tl_cuda is not None and torch.cuda.get_device_capability()[0] >= 9:
        copies["grid 1024/4 dependent launch"] = grid(1024, 4, dependent=True)
    for per in (8, 16):
        copies[f"persistent {per}/SM 1024/4"] = persistent(per, 1024, 4)
    return copies


def copy_rows(exponent: int, dtype, peak: float):
    numel = 2**exponent
    moved = 2 * numel * dtype.itemsize
    sets = run.rotating_sets(moved)
    calls = {}
    for label, factory in hand_copies(numel, dtype, torch.cuda.get_device_properties(0).multi_processor_count).items():
        made = [factory() for _ in range(sets)]
        copy, src, dst = made[0]
        copy()
        assert torch.equal(dst, src), label
        calls[label] = [m[0] for m in made]
    calls["torch x * 1"] = [run.kernel_copy(moved, "cuda") for _ in range(sets)]
    times = run.graphs_in_turn(calls, run.steady_us, keep_outputs=True)
    print(f"copy | {str(dtype)[6:]} | 2^{exponent} | {moved / 1e6:.0f} MB", flush=True)
    for label, us in times.items():
        print(f"  {label:30} {us:7.2f} us  {moved / us / 1e3:5.0f} GB/s  {moved / us / 1e3 / peak:6.1%} of peak copy",
              flush=True)


def add_rows(case: str, exponent: int, dtype, peak: float):
    op = OPS["add"]
    inputs = make_inputs(case, 2**exponent, 2, dtype, "cuda")
    reference = torch.add(*inputs)
    moved = bytes_moved(inputs, [reference])
    sets = run.rotating_inputs(inputs, case, 2**exponent, op, dtype, "cuda", moved)
    compiled = run.compile_static(torch.add)
    calls = {"torch.compile": [lambda x=x: compiled(*x) for x in sets]}
    graphs = {}
    for blocks, warps in ((None, None), ((512,), 2), ((2048,), 4), ((4096,), 8), ((4096,), 4), ((8192,), 8),
                          ((8192,), 4), ((16384,), 8)):
        label = "tritonize" + ("" if blocks is None else f" {blocks[0]}/{warps}")
        call.LAUNCH_SHAPE_OVERRIDE = None if blocks is None else (lambda sizes, tile, c=(blocks, warps): c)
        op.ours._recipes.clear()
        try:
            assert torch.equal(op.ours(*inputs), reference), label
            graphs[label] = run.capture([lambda x=x: op.ours(*x) for x in sets], keep_outputs=True)
        finally:
            call.LAUNCH_SHAPE_OVERRIDE = None
            op.ours._recipes.clear()
    graphs["torch.compile"] = run.capture(calls["torch.compile"], keep_outputs=True)
    times = run.best_in_turn({label: lambda g=g: run.steady_us(g) for label, g in graphs.items()}, run.ROUNDS)
    print(f"add | {case} | {str(dtype)[6:]} | 2^{exponent} | {moved / 1e6:.0f} MB", flush=True)
    for label, us in times.items():
        print(f"  {label:30} {us:7.2f} us  {moved / us / 1e3:5.0f} GB/s  {moved / us / 1e3 / peak:6.1%} of peak copy",
              flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exponents", default="24,25")
    args = parser.parse_args()
    peak = run.copy_bandwidth("cuda", steady=True) / 1e9
    print(header("launch_tail").replace("CUDA graphs", "CUDA graphs back to back (steady_us)")
          + f"; peak copy back to back {peak:.0f} GB/s", flush=True)
    for exponent in map(int, args.exponents.split(",")):
        copy_rows(exponent, torch.bfloat16, peak)
        for case in ("row broadcast", "column broadcast"):
            add_rows(case, exponent, torch.bfloat16, peak)


if __name__ == "__main__":
    main()
