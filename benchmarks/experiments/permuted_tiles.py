"""Why the rank-4 permuted add (`a + b`, a laid (2, 1024, m/4, 2) innermost-last and permuted
to b's (2, 2, m/4, 1024)) trails torch.compile at 2^20 in bfloat16 (0.94x as CUDA graphs on an
H100, the 2026-11-25 runs) where the transposed add runs even: after coalescing, its walk is
(2, 1024, m/4, 2), the tile is 1024 (b's contiguous dim) x the last two dims together (a's and
the output's contiguous run), and b's address splits that run into its two dims with a division
and a remainder by a runtime size (2). tritonize's generated kernel copied by hand against
variants: the add in float32 (as tritonize and inductor do it), that size as a constant
(inductor's static kernels divide by constants), no masks (the tiles divide the sizes), the
output's address from its own strides (as tritonize) or from a's (as inductor, whose output is
laid like a), and other tile edges (inductor's autotuner picks among 32x32/4, 64x64/8, 256x16/8
and 16x256/8); beside tritonize itself and torch.compile, as CUDA graphs of launches on rotating
inputs, the least of three rounds. Then the same kernels first and last in each round (does the
order move them?), and tritonize's and inductor's kernels for the row.

    python -m benchmarks.experiments.permuted_tiles
"""
import logging

import torch
import triton
import triton.language as tl
from torch._inductor.utils import run_and_get_code

from benchmarks.cases import OPS, make_inputs
from benchmarks.experiments import header, print_graphed_adds
from benchmarks.run import compile_static

CASE = "rank-4 permuted"
# the walk tritonize takes over the torch dims (a's memory order, outermost first)
WALK = (0, 3, 2, 1)


@triton.jit
def rank4_tiled_add_body(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, b_stride2, b_stride3,
                         out_stride0, out_stride1, out_stride3, size1, size2, size3, BLOCK0: tl.constexpr,
                         BLOCK1: tl.constexpr, MASKED: tl.constexpr, UPCAST: tl.constexpr, OWN_OUT: tl.constexpr):
    # as generated: a and the output run contiguously over dims 2 and 3 together (stride 1)
    pid = tl.program_id(0)
    group_size = size2 * size3
    tiles_inner = (group_size + BLOCK1 - 1) // BLOCK1
    tiles_p = (size1 + BLOCK0 - 1) // BLOCK0
    tile_inner = pid % tiles_inner
    rest = pid // tiles_inner
    tile_p = rest % tiles_p
    i0 = rest // tiles_p
    inner = tile_inner * BLOCK1 + tl.arange(0, BLOCK1)[None, :]
    i1 = tile_p * BLOCK0 + tl.arange(0, BLOCK0)[:, None]
    i3 = inner % size3
    i2 = inner // size3
    a_at = a_ptr + (i0 * a_stride0 + i1 * a_stride1 + inner)
    b_at = b_ptr + (i0 * b_stride0 + i1 * b_stride1 + i2 * b_stride2 + i3 * b_stride3)
    if OWN_OUT:  # as tritonize generates it: the output's address from its own strides
        out_at = out_ptr + (i0 * out_stride0 + i1 * out_stride1 + inner * out_stride3)
    else:  # as inductor's: the output is laid like a, and a's address serves both
        out_at = out_ptr + (i0 * a_stride0 + i1 * a_stride1 + inner)
    if MASKED:
        mask = (inner < group_size) & (i1 < size1)
        a = tl.load(a_at, mask=mask)
        b = tl.load(b_at, mask=mask)
    else:
        a = tl.load(a_at)
        b = tl.load(b_at)
    if UPCAST:  # as tritonize and inductor add 16-bit floats: in float32, rounded once by the store
        a = a.to(tl.float32)
        b = b.to(tl.float32)
    if MASKED:
        tl.store(out_at, a + b, mask=mask)
    else:
        tl.store(out_at, a + b)


@triton.jit
def rank4_tiled_add(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, b_stride2, b_stride3,
                    out_stride0, out_stride1, out_stride3, size1, size2, size3, BLOCK0: tl.constexpr,
                    BLOCK1: tl.constexpr, MASKED: tl.constexpr, UPCAST: tl.constexpr, OWN_OUT: tl.constexpr):
    rank4_tiled_add_body(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, b_stride2, b_stride3,
                         out_stride0, out_stride1, out_stride3, size1, size2, size3, BLOCK0, BLOCK1, MASKED, UPCAST,
                         OWN_OUT)


@triton.jit
def rank4_tiled_add_constant(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, b_stride2,
                             b_stride3, out_stride0, out_stride1, out_stride3, size1, size2, size3: tl.constexpr,
                             BLOCK0: tl.constexpr, BLOCK1: tl.constexpr, MASKED: tl.constexpr,
                             UPCAST: tl.constexpr, OWN_OUT: tl.constexpr):
    rank4_tiled_add_body(a_ptr, b_ptr, out_ptr, a_stride0, a_stride1, b_stride0, b_stride1, b_stride2, b_stride3,
                         out_stride0, out_stride1, out_stride3, size1, size2, size3, BLOCK0, BLOCK1, MASKED, UPCAST,
                         OWN_OUT)


def launcher(blocks, warps, masked=True, constant=False, upcast=False, own_out=False):
    def add(a, b):
        out = torch.empty_like(a)  # laid like a, as eager, inductor and tritonize lay it
        walk_a, walk_b, walk_out = a.permute(WALK), b.permute(WALK), out.permute(WALK)
        sizes = walk_a.shape
        assert walk_a.stride()[2:] == (sizes[3], 1)
        grid = (sizes[0] * triton.cdiv(sizes[1], blocks[0]) * triton.cdiv(sizes[2] * sizes[3], blocks[1]),)
        kernel = rank4_tiled_add_constant if constant else rank4_tiled_add
        kernel[grid](a, b, out, *walk_a.stride()[:2], *walk_b.stride(),
                     *walk_out.stride()[:2], walk_out.stride(3), *sizes[1:], BLOCK0=blocks[0],
                     BLOCK1=blocks[1], MASKED=masked, UPCAST=upcast, OWN_OUT=own_out,
                     num_warps=warps)
        return out
    return add


VARIANTS = {
    "32x32/4 as generated": ((32, 32), 4, {}),
    "32x32/4 float32 add": ((32, 32), 4, {"upcast": True}),
    "32x32/4 float32, constant": ((32, 32), 4, {"upcast": True, "constant": True}),
    "32x32/4 float32, no masks": ((32, 32), 4, {"upcast": True, "masked": False}),
    "32x32/4 float32, own out": ((32, 32), 4, {"upcast": True, "own_out": True}),
    "256x16/8 float32 add": ((256, 16), 8, {"upcast": True}),
    "256x16/8 float32, own out": ((256, 16), 8, {"upcast": True, "own_out": True}),
    "64x64/8 float32 add": ((64, 64), 8, {"upcast": True}),
    "16x64/4 float32 add": ((16, 64), 4, {"upcast": True}),
    "64x16/4 float32 add": ((64, 16), 4, {"upcast": True}),
}


def variants(inputs) -> dict:
    return {name: launcher(blocks, warps, **flags) for name, (blocks, warps, flags) in VARIANTS.items()}


class BestConfig(logging.Handler):
    """Prints the config inductor's autotuner picked for each kernel."""

    def emit(self, record):
        message = record.getMessage()
        if message.startswith("Best config"):
            print("  inductor:", message[:200], flush=True)


def main():
    logger = logging.getLogger("torch._inductor.runtime.triton_heuristics")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(BestConfig())
    print(header("permuted_tiles"))
    for dtype in (torch.bfloat16, torch.float32):
        for exponent in ((20, 22) if dtype == torch.bfloat16 else (20,)):
            print_graphed_adds(CASE, dtype, exponent, variants, "torch.compile", 28,
                               lambda inputs: f"a strides {inputs[0].stride()}")
    # the same kernels measured again, first and last in each round: does the order (so where
    # each graph's outputs land) move them?
    def bracketed(inputs):
        middle = variants(inputs)
        return {"tritonize, first": OPS["add"].ours, "32x32/4 float32 add, first": middle.pop("32x32/4 float32 add"),
                **middle, "32x32/4 float32 add, last": launcher((32, 32), 4, upcast=True)}
    for repeat in range(2):
        print_graphed_adds(CASE, torch.bfloat16, 20, bracketed, "torch.compile", 28,
                           lambda inputs, repeat=repeat: f"order check {repeat + 1}")
    inputs = make_inputs(CASE, 2**20, 2, torch.bfloat16, "cuda")
    source = OPS["add"].ours.source(*inputs)
    print(f"== tritonize's kernel, add | {CASE} | bfloat16 | 2^20")
    print(source[source.index("@triton.jit"):source.index("def launch")], flush=True)
    _, sources = run_and_get_code(compile_static(torch.add), *inputs)
    print(f"== inductor's kernel, add | {CASE} | bfloat16 | 2^20")
    for source in sources:
        start = source.find("@triton.jit")
        print(source[start:source.find("''', device_str=", start)], flush=True)


if __name__ == "__main__":
    main()
