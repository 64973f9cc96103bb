"""Where a tiled add loses to torch.compile with the same tile: a hand copy of the kernel
tritonize generates for `a.t() + b` (rank 2 tiled, runtime sizes and strides, masked loads and
store, one flat program id decoded into tiles) against variants that take one of inductor's
choices (experiment_inductor_tiles_h200.txt): no masks where the tiles divide the sizes,
`eviction_policy='evict_last'` on the loads, the sizes and strides as constants; the output laid
like a (the transposed input, as tritonize, eager and inductor lay it) instead of like b, and
walked along a's contiguous dim (as tritonize orders the dims); and tritonize itself with the
same tile. Each is timed as a CUDA graph of launches on rotating inputs
(benchmarks.run.graph_us), beside torch.compile.

    python -m benchmarks.experiments.tile_kernel
"""
import torch
import triton

from benchmarks.cases import OPS, bytes_moved, make_inputs
from benchmarks.experiments.tile_evict import tiled_add, tiled_add_constant
from benchmarks.run import compile_static, graph_us, rotating_inputs
from tritonize import call


def launcher(blocks, warps, masked, evict_last, constant, out_like_a=False, walk=None):
    """walk="a": the tile's fast axis along a's (and the output's) contiguous dim, as tritonize
    orders the dims for an output laid like a; walk="a, b first": the same, loading b first."""
    if walk == "a":
        inner = launcher(blocks, warps, masked, evict_last, constant, out_like_a=True)
        return lambda a, b: inner(a.t(), b.t()).t()
    if walk is not None:
        inner = launcher(blocks, warps, masked, evict_last, constant, out_like_a=False)
        return lambda a, b: inner(b.t(), a.t()).t()

    def add(a, b):
        out = torch.empty_like(a if out_like_a else b)
        size0, size1 = out.shape
        grid = (triton.cdiv(size0, blocks[0]) * triton.cdiv(size1, blocks[1]),)
        args = (*a.stride(), *b.stride(), *out.stride(), size0, size1)
        # constant: sizes and strides as constexpr, as inductor's static-shape kernels have them
        kernel = tiled_add_constant if constant else tiled_add
        policy = "evict_last" if evict_last else ""  # on both loads
        kernel[grid](a, b, out, *args, BLOCK0=blocks[0], BLOCK1=blocks[1], MASKED=masked, A_POLICY=policy,
                     B_POLICY=policy, num_warps=warps)
        return out
    return add


def main():
    print(f"# python -m benchmarks.experiments.tile_kernel ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__.split('+')[0]}, triton {triton.__version__}): us per launch, CUDA graphs")
    for case in ("transposed + contiguous",):
        for exponent in (20, 22):
            inputs = make_inputs(case, 2**exponent, 2, torch.float32, "cuda")
            reference = torch.add(*inputs)
            moved = bytes_moved(inputs, [reference])
            sets = rotating_inputs(inputs, case, 2**exponent, OPS["add"], torch.float32, "cuda", moved)
            compiled = compile_static(torch.add)
            compiled(*inputs)
            line = [f"add | {case} | 2^{exponent}: torch.compile {graph_us([lambda x=x: compiled(*x) for x in sets]):.2f}"]
            for blocks, warps in (((32, 32), 4), ((64, 64), 8)):
                for name, flags in (("as generated", (True, False, False)), ("no masks", (False, False, False)),
                                    ("evict_last", (True, True, False)), ("constants", (True, False, True)),
                                    ("all three", (False, True, True)), ("out like a", (True, False, False, True)),
                                    ("walk a", (True, False, False, False, "a")),
                                    ("walk a, b 1st", (True, False, False, False, "a, b first"))):
                    add = launcher(blocks, warps, *flags)
                    assert torch.equal(add(*inputs), reference)
                    us = graph_us([lambda x=x: add(*x) for x in sets])
                    line.append(f"  {blocks[0]}x{blocks[1]}/{warps} {name:13} {us:.2f}")
                # tritonize itself with this tile (its output is laid like a, as eager's is)
                call.LAUNCH_SHAPE_OVERRIDE = lambda sizes, tile, blocks=blocks, warps=warps: (blocks, warps)
                OPS["add"].ours._recipes.clear()
                assert torch.equal(OPS["add"].ours(*inputs), reference)
                us = graph_us([lambda x=x: OPS["add"].ours(*x) for x in sets])
                line.append(f"  {blocks[0]}x{blocks[1]}/{warps} {'tritonize':13} {us:.2f}")
                call.LAUNCH_SHAPE_OVERRIDE = None
            print("\n".join(line), flush=True)
            if exponent == 20:
                source = OPS["add"].ours.source(*inputs)
                print(source[source.index("@triton.jit"):source.index("def launch")], flush=True)


if __name__ == "__main__":
    main()
